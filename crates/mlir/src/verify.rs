//! `-verify-diagnostics`: checking emitted diagnostics against
//! `// expected-error {{message}}` comments, as `mlir-opt` does.
//!
//! A designator `expected-(error|warning|remark|note)` is followed by an
//! optional line reference (`@+N`, `@-N`, `@above`, `@below`, `@unknown`;
//! default: its own line; `@above`/`@below` skip lines that are only
//! designator comments) and the expected text in `{{...}}`. Each emitted
//! diagnostic must match one expectation of the same severity on the same
//! line whose text it contains, and every expectation must be matched.

use crate::ir::{Diagnostic, Location, Severity};

/// One `expected-*` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// Where the comment is (for "was not produced" errors).
    pub at: Location,
    /// The line the diagnostic must be on (`None`: unknown location).
    pub line: Option<u32>,
    /// Expected severity.
    pub severity: Severity,
    /// Text the diagnostic message must contain.
    pub message: String,
}

/// Reads the expectations of a chunk whose first line is line
/// `line_offset + 1` of the file.
pub fn expectations(text: &str, line_offset: u32) -> Result<Vec<Expectation>, Diagnostic> {
    let lines: Vec<&str> = text.lines().collect();
    // `@above`/`@below` skip lines holding only a designator comment.
    let is_designator = |l: &str| l.trim_start().starts_with("//") && l.contains("expected-");
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let mut rest = *l;
        let mut col_base = 0usize;
        while let Some(p) = rest.find("expected-") {
            let at = Location::new(line_offset + i as u32 + 1, (col_base + p) as u32 + 1);
            let after = &rest[p + "expected-".len()..];
            let (severity, kw) = match () {
                _ if after.starts_with("error") => (Severity::Error, "error"),
                _ if after.starts_with("warning") => (Severity::Warning, "warning"),
                _ if after.starts_with("remark") => (Severity::Remark, "remark"),
                _ if after.starts_with("note") => (Severity::Note, "note"),
                _ => {
                    col_base += p + 9;
                    rest = &rest[p + 9..];
                    continue;
                }
            };
            let mut s = &after[kw.len()..];
            if s.starts_with("-re") {
                return Err(Diagnostic::error(
                    at,
                    "expected-*-re (regular expressions) is not supported; use a plain substring",
                ));
            }
            s = s.trim_start();
            let mut line = Some(i as i64);
            if let Some(r) = s.strip_prefix('@') {
                let end = r
                    .find(|c: char| c.is_whitespace() || c == '{')
                    .unwrap_or(r.len());
                let spec = &r[..end];
                line = match spec {
                    "above" => (0..i)
                        .rev()
                        .find(|&j| !is_designator(lines[j]))
                        .map(|j| j as i64),
                    "below" => (i + 1..lines.len())
                        .find(|&j| !is_designator(lines[j]))
                        .map(|j| j as i64),
                    "unknown" => None,
                    _ => match spec.parse::<i64>() {
                        Ok(d) => Some(i as i64 + d),
                        Err(_) => {
                            return Err(Diagnostic::error(
                                at,
                                format!("unknown line designator '@{spec}'"),
                            ))
                        }
                    },
                };
                if (spec == "above" || spec == "below") && line.is_none() {
                    return Err(Diagnostic::error(
                        at,
                        format!("no line {spec} the designator"),
                    ));
                }
                s = r[end..].trim_start();
            }
            let Some(body) = s.strip_prefix("{{") else {
                return Err(Diagnostic::error(at, "expected '{{' after the designator"));
            };
            let Some(close) = body.rfind("}}") else {
                return Err(Diagnostic::error(
                    at,
                    "expected '}}' to end the expected message",
                ));
            };
            let message = body[..close].to_string();
            out.push(Expectation {
                at,
                line: line.map(|l| (l + 1) as u32 + line_offset),
                severity,
                message,
            });
            break;
        }
    }
    Ok(out)
}

/// Matches `produced` (notes included) against `expected`; returns the
/// mismatches as errors (empty when everything matched).
pub fn verify(expected: &[Expectation], produced: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut flat: Vec<&Diagnostic> = Vec::new();
    for d in produced {
        flat.push(d);
        flat.extend(d.notes.iter());
    }
    let mut used = vec![false; expected.len()];
    let mut errors = Vec::new();
    for d in flat {
        let line = d.loc.is_known().then_some(d.loc.line);
        let hit = expected.iter().enumerate().position(|(k, e)| {
            !used[k] && e.severity == d.severity && e.line == line && d.message.contains(&e.message)
        });
        match hit {
            Some(k) => used[k] = true,
            None => errors.push(Diagnostic::error(
                d.loc,
                format!("unexpected {}: {}", d.severity, d.message),
            )),
        }
    }
    for (k, e) in expected.iter().enumerate() {
        if !used[k] {
            errors.push(Diagnostic::error(
                e.at,
                format!("expected {} \"{}\" was not produced", e.severity, e.message),
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn designators_and_matching() {
        let text = "a\n// expected-error @+1 {{bad thing}}\nop\nop2 // expected-warning {{w}}\n// expected-remark@above {{r}}\n";
        let exp = expectations(text, 10).unwrap();
        let lines: Vec<_> = exp.iter().map(|e| (e.line, e.severity)).collect();
        assert_eq!(
            lines,
            [
                (Some(13), Severity::Error),
                (Some(14), Severity::Warning),
                (Some(14), Severity::Remark)
            ]
        );
        let produced = vec![
            Diagnostic::error(Location::new(13, 1), "a bad thing happened"),
            Diagnostic::warning(Location::new(14, 3), "w"),
            Diagnostic::error(Location::new(2, 1), "surprise"),
        ];
        let errs = verify(&exp, &produced);
        let msgs: Vec<String> = errs.iter().map(|d| d.render("f")).collect();
        assert_eq!(
            msgs,
            [
                "f:2:1: error: unexpected error: surprise",
                "f:15:4: error: expected remark \"r\" was not produced"
            ]
        );
    }
}
