//! Checks the body of an `affine_map<...>` attribute.
//!
//! The reader keeps affine maps as text; this check makes sure that text is
//! a map MLIR would read: `(dims)[symbols] -> (results)`, where each result
//! is an affine expression over the declared names, integers, `+`, `-`,
//! `*`, `floordiv`, `ceildiv`, `mod` and parentheses. A body holding
//! anything else (an attribute alias such as `#map`, a stray word) is
//! rejected, so the printer never keeps text whose meaning changes when it
//! is read back (aliases would be expanded inside it).

/// One token of a map body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    Ident(&'a str),
    Int,
    Punct(&'a str),
    Bad(char),
}

fn tokens(body: &str) -> Vec<(usize, Tok<'_>)> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            out.push((start, Tok::Ident(&body[start..i])));
        } else if c.is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push((start, Tok::Int));
        } else if body[i..].starts_with("->") {
            i += 2;
            out.push((start, Tok::Punct("->")));
        } else if b"()[],+-*".contains(&c) {
            i += 1;
            out.push((start, Tok::Punct(&body[start..i])));
        } else {
            let ch = body[i..].chars().next().unwrap_or('?');
            i += ch.len_utf8();
            out.push((start, Tok::Bad(ch)));
        }
    }
    out
}

struct Checker<'a> {
    toks: Vec<(usize, Tok<'a>)>,
    at: usize,
    end: usize,
    names: Vec<&'a str>,
}

type Check<T> = Result<T, (usize, String)>;

impl<'a> Checker<'a> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.at).map(|t| t.1)
    }

    fn pos(&self) -> usize {
        self.toks.get(self.at).map_or(self.end, |t| t.0)
    }

    fn fail<T>(&self, what: &str) -> Check<T> {
        let found = match self.peek() {
            None => "the end of the map".to_string(),
            Some(Tok::Ident(s)) => format!("'{s}'"),
            Some(Tok::Int) => "an integer".to_string(),
            Some(Tok::Punct(p)) => format!("'{p}'"),
            Some(Tok::Bad(c)) => format!("'{c}'"),
        };
        Err((
            self.pos(),
            format!("expected {what} in affine map, found {found}"),
        ))
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek() == Some(Tok::Punct(p)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Check<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.fail(&format!("'{p}'"))
        }
    }

    /// `open name, ... close`, declaring the names.
    fn name_list(&mut self, close: &str) -> Check<()> {
        if self.eat(close) {
            return Ok(());
        }
        loop {
            match self.peek() {
                Some(Tok::Ident(s)) if !is_keyword(s) => {
                    self.names.push(s);
                    self.at += 1;
                }
                _ => return self.fail("a dimension or symbol name"),
            }
            if self.eat(close) {
                return Ok(());
            }
            if !self.eat(",") {
                return self.fail(&format!("',' or '{close}'"));
            }
        }
    }

    fn expr(&mut self) -> Check<()> {
        self.term()?;
        while self.eat("+") || self.eat("-") {
            self.term()?;
        }
        Ok(())
    }

    fn term(&mut self) -> Check<()> {
        self.unary()?;
        loop {
            if self.eat("*") {
            } else if matches!(self.peek(), Some(Tok::Ident(s)) if is_keyword(s)) {
                self.at += 1;
            } else {
                return Ok(());
            }
            self.unary()?;
        }
    }

    fn unary(&mut self) -> Check<()> {
        if self.eat("-") {
            return self.unary();
        }
        match self.peek() {
            Some(Tok::Int) => {
                self.at += 1;
                Ok(())
            }
            Some(Tok::Ident(s)) if self.names.contains(&s) => {
                self.at += 1;
                Ok(())
            }
            Some(Tok::Ident(s)) if !is_keyword(s) => Err((
                self.pos(),
                format!("use of undeclared identifier '{s}' in affine map"),
            )),
            Some(Tok::Punct("(")) => {
                self.at += 1;
                self.expr()?;
                self.expect(")")
            }
            _ => self.fail("an affine expression"),
        }
    }
}

fn is_keyword(s: &str) -> bool {
    matches!(s, "floordiv" | "ceildiv" | "mod")
}

/// Checks `body`, the text between `affine_map<` and the closing `>`.
/// On failure returns the byte offset inside `body` and the message.
pub(crate) fn check(body: &str) -> Result<(), (usize, String)> {
    let mut c = Checker {
        toks: tokens(body),
        at: 0,
        end: body.len(),
        names: Vec::new(),
    };
    c.expect("(")?;
    c.name_list(")")?;
    if c.eat("[") {
        c.name_list("]")?;
    }
    c.expect("->")?;
    c.expect("(")?;
    if !c.eat(")") {
        loop {
            c.expr()?;
            if c.eat(")") {
                break;
            }
            if !c.eat(",") {
                return c.fail("',' or ')'");
            }
        }
    }
    if c.peek().is_some() {
        return c.fail("the end of the map");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn accepts_maps_mlir_reads() {
        for m in [
            "(d0) -> (d0)",
            "(d0, d1)[s0] -> (d0 + 1, s0)",
            "(d0, d1) -> ()",
            "() -> (0)",
            "(i, j)[n] -> (j floordiv 4, i mod 2 + n * -3, (i + j) ceildiv n)",
            "(d0) -> (-d0 - 1)",
        ] {
            assert_eq!(check(m), Ok(()), "{m}");
        }
    }

    #[test]
    fn rejects_other_text_at_its_offset() {
        assert_eq!(
            check("(d0) -> (d0 #map)"),
            Err((12, "expected ',' or ')' in affine map, found '#'".into()))
        );
        assert_eq!(
            check("a"),
            Err((0, "expected '(' in affine map, found 'a'".into()))
        );
        assert_eq!(
            check("(d0) -> (d1)"),
            Err((9, "use of undeclared identifier 'd1' in affine map".into()))
        );
        assert_eq!(
            check("(d0) -> (d0) x"),
            Err((
                13,
                "expected the end of the map in affine map, found 'x'".into()
            ))
        );
    }
}
