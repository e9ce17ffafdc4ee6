//! `dense<...>` literals in MLIR's printed spelling: float elements as
//! `1.000000e+00` (the type's precision), and a literal whose elements are
//! all equal as a splat (`dense<[true, true]>` prints `dense<true>`), as
//! `DenseElementsAttr` stores and prints them.

use crate::ir::{FloatKind, Type};
use crate::print::format_float;

/// A nested element list.
enum Node<'a> {
    Leaf(&'a str),
    List(Vec<Node<'a>>),
}

fn parse_list<'a>(s: &'a str, i: &mut usize) -> Option<Node<'a>> {
    let b = s.as_bytes();
    while *i < b.len() && b[*i].is_ascii_whitespace() {
        *i += 1;
    }
    if b.get(*i) == Some(&b'[') {
        *i += 1;
        let mut items = Vec::new();
        loop {
            while *i < b.len() && b[*i].is_ascii_whitespace() {
                *i += 1;
            }
            if b.get(*i) == Some(&b']') {
                *i += 1;
                return Some(Node::List(items));
            }
            items.push(parse_list(s, i)?);
            while *i < b.len() && b[*i].is_ascii_whitespace() {
                *i += 1;
            }
            match b.get(*i) {
                Some(b',') => *i += 1,
                Some(b']') => {}
                _ => return None,
            }
        }
    }
    let start = *i;
    while *i < b.len() && (b[*i].is_ascii_alphanumeric() || matches!(b[*i], b'.' | b'-' | b'+')) {
        *i += 1;
    }
    (*i > start).then(|| Node::Leaf(&s[start..*i]))
}

fn leaf_text(leaf: &str, elem: &Type) -> Option<String> {
    match elem {
        Type::Float(kind) => {
            if leaf.starts_with("0x") {
                return Some(leaf.to_string());
            }
            let v: f64 = leaf.parse().ok()?;
            Some(format_float(v, *kind))
        }
        Type::Integer { width: 1, .. } => match leaf {
            "true" | "1" => Some("true".into()),
            "false" | "0" => Some("false".into()),
            _ => None,
        },
        Type::Integer { .. } | Type::Index => {
            let v: i128 = leaf.parse().ok()?;
            Some(v.to_string())
        }
        _ => None,
    }
}

fn collect<'a>(n: &Node<'a>, out: &mut Vec<&'a str>) {
    match n {
        Node::Leaf(l) => out.push(l),
        Node::List(items) => items.iter().for_each(|i| collect(i, out)),
    }
}

fn render(n: &Node, elem: &Type, out: &mut String) -> Option<()> {
    match n {
        Node::Leaf(l) => out.push_str(&leaf_text(l, elem)?),
        Node::List(items) => {
            out.push('[');
            for (k, it) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                render(it, elem, out)?;
            }
            out.push(']');
        }
    }
    Some(())
}

/// The canonical text of `dense<inner>` with elements of type `elem`
/// (`None`: leave the literal as written, e.g. strings or complex).
pub(crate) fn canonical_dense(inner: &str, elem: &Type) -> Option<String> {
    if matches!(elem, Type::Float(FloatKind::F80 | FloatKind::F128)) {
        return None;
    }
    let mut i = 0;
    let node = parse_list(inner, &mut i)?;
    if inner[i..].trim() != "" {
        return None;
    }
    let mut leaves = Vec::new();
    collect(&node, &mut leaves);
    let texts: Vec<String> = leaves
        .iter()
        .map(|l| leaf_text(l, elem))
        .collect::<Option<_>>()?;
    if let Some(first) = texts.first() {
        if texts.iter().all(|t| t == first) {
            return Some(first.clone());
        }
    }
    let mut out = String::new();
    render(&node, elem, &mut out)?;
    Some(out)
}

/// Checks the body of a `dense<...>` literal (the text between `<` and
/// `>`) against the grammar MLIR's `TensorLiteralParser` reads: nothing,
/// a string (hex data or a string element), or an element or nested `[...]`
/// list of elements, each an integer (decimal or `0x` hex) or float, with
/// an optional `-`, `true`, `false`, a string, or a complex `(re, im)`. On
/// failure returns the byte offset inside `body` and the message.
///
/// The reader keeps literals it cannot canonicalize as text; without this
/// check such text could hold anything (other attributes, whole ops) and
/// print back as something else.
pub(crate) fn check_literal(body: &str) -> Result<(), (usize, String)> {
    let mut c = Lit {
        s: body.as_bytes(),
        i: 0,
    };
    c.ws();
    if c.i == c.s.len() {
        return Ok(());
    }
    c.element(0)?;
    c.ws();
    if c.i != c.s.len() {
        return c.fail("'>'");
    }
    Ok(())
}

struct Lit<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lit<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn fail<T>(&self, what: &str) -> Result<T, (usize, String)> {
        Err((self.i, format!("expected {what} in dense literal")))
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// A list, a complex pair, or a scalar element.
    fn element(&mut self, depth: usize) -> Result<(), (usize, String)> {
        if depth > crate::parse::cursor::MAX_DEPTH {
            return self.fail("less nesting");
        }
        self.ws();
        match self.s.get(self.i) {
            Some(b'[') => {
                self.i += 1;
                if self.eat(b']') {
                    return Ok(());
                }
                loop {
                    self.element(depth + 1)?;
                    if self.eat(b']') {
                        return Ok(());
                    }
                    if !self.eat(b',') {
                        return self.fail("',' or ']'");
                    }
                }
            }
            Some(b'(') => {
                self.i += 1;
                self.scalar()?;
                if !self.eat(b',') {
                    return self.fail("',' between the parts of a complex element");
                }
                self.scalar()?;
                if !self.eat(b')') {
                    return self.fail("')' after a complex element");
                }
                Ok(())
            }
            _ => self.scalar(),
        }
    }

    /// `true`, `false`, a string, or a number with an optional `-`.
    fn scalar(&mut self) -> Result<(), (usize, String)> {
        self.ws();
        let rest = &self.s[self.i..];
        let word_end = |n: usize| {
            !rest
                .get(n)
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'))
        };
        for kw in [&b"true"[..], b"false"] {
            if rest.starts_with(kw) && word_end(kw.len()) {
                self.i += kw.len();
                return Ok(());
            }
        }
        if rest.first() == Some(&b'"') {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            if j >= rest.len() {
                return self.fail("a closing '\"'");
            }
            self.i += j + 1;
            return Ok(());
        }
        let mut j = usize::from(rest.first() == Some(&b'-'));
        let digits = |j: usize| rest[j..].iter().take_while(|b| b.is_ascii_digit()).count();
        if rest[j..].starts_with(b"0x") {
            let n = rest[j + 2..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            if n == 0 {
                return self.fail("an element literal");
            }
            self.i += j + 2 + n;
            return Ok(());
        }
        let n = digits(j);
        if n == 0 {
            return self.fail("an element literal");
        }
        j += n;
        if rest.get(j) == Some(&b'.') {
            j += 1;
            j += digits(j);
            if matches!(rest.get(j), Some(b'e' | b'E')) {
                let mut k = j + 1;
                if matches!(rest.get(k), Some(b'+' | b'-')) {
                    k += 1;
                }
                let e = digits(k);
                if e > 0 {
                    j = k + e;
                }
            }
        }
        // What follows the number is the next token (MLIR's lexer ends a
        // number where its digits end): the list rejects it if it must.
        self.i += j;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::check_literal;

    #[test]
    fn literals_mlir_reads_pass() {
        for body in [
            "",
            "1.0",
            "[1, -2, 0x1F]",
            "[[1.5e-3, 2.], [3.0E+2, -4.25]]",
            "[true, false]",
            "\"0xDEADBEEF\"",
            "[\"a\", \"b\\\"c\"]",
            "[(1.0, 2.0), (-1, 0)]",
            "[]",
        ] {
            assert_eq!(check_literal(body), Ok(()), "{body}");
        }
    }

    #[test]
    fn other_text_is_rejected_at_its_offset() {
        assert_eq!(
            check_literal("[1.0, 2.0, 3.memref<4xf32>"),
            Err((13, "expected ',' or ']' in dense literal".into()))
        );
        assert_eq!(
            check_literal("[1, 2] x"),
            Err((7, "expected '>' in dense literal".into()))
        );
        assert_eq!(
            check_literal("[1 2]"),
            Err((3, "expected ',' or ']' in dense literal".into()))
        );
        assert_eq!(
            check_literal("inf"),
            Err((0, "expected an element literal in dense literal".into()))
        );
    }
}
