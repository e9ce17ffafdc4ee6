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
