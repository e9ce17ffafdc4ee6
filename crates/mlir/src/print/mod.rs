//! The printer, in `mlir-opt`'s canonical style: declarative formats of
//! [`crate::ir::format`] with the spacing of MLIR's generated printers,
//! custom forms of the known ops (their printers sit beside their readers
//! in `src/dialect/`), the generic form (with successors)
//! otherwise, SSA names as `mlir-opt` assigns them ([`Names`]), block
//! labels with their `// pred:` comments, attribute dictionaries sorted by
//! name, and `#map` aliases for affine maps.

pub mod apfloat;
mod names;
mod ods;
pub(crate) mod ops;
mod segments;
pub(crate) mod types;

pub use names::Names;
pub use types::{
    format_float, is_bare_identifier, write_attr, write_dict, write_function_type, write_strided,
    write_type, write_type_list,
};

use crate::ir::Module;

/// Prints a module (ending with a newline).
pub fn print_module(module: &Module) -> String {
    let body = ops::OpPrinter::new(module).print_module();
    let mut out = String::new();
    // Location aliases where the input had them: those before the module
    // first, the trailing ones after it.
    for a in module.loc_aliases.iter().filter(|a| !a.trailing) {
        out.push_str(&format!("#{} = loc({})\n", a.name, a.body));
    }
    out.push_str(&alias_affine_maps(body));
    for a in module.loc_aliases.iter().filter(|a| a.trailing) {
        out.push_str(&format!("#{} = loc({})\n", a.name, a.body));
    }
    for r in &module.resources {
        out.push('\n');
        out.push_str(r);
        out.push('\n');
    }
    out
}

/// Replaces inline `affine_map<...>` texts by `#map`, `#map1`, ... aliases
/// defined at the top, numbered in order of first appearance (as mlir-opt
/// prints them). Text inside string literals is left alone.
fn alias_affine_maps(body: String) -> String {
    let spans = map_spans(&body);
    if spans.is_empty() {
        return body;
    }
    let mut maps: Vec<&str> = Vec::new();
    for &(start, end) in &spans {
        let text = &body[start..end];
        if !maps.contains(&text) {
            maps.push(text);
        }
    }
    let alias = |i: usize| {
        if i == 0 {
            "#map".to_string()
        } else {
            format!("#map{i}")
        }
    };
    let mut out = String::with_capacity(body.len());
    for (i, m) in maps.iter().enumerate() {
        out.push_str(&format!("{} = {}\n", alias(i), m));
    }
    let mut last = 0;
    for &(start, end) in &spans {
        out.push_str(&body[last..start]);
        let k = maps
            .iter()
            .position(|m| *m == &body[start..end])
            .unwrap_or(0);
        out.push_str(&alias(k));
        // An alias directly followed by an identifier character (possible
        // in free-form op text) gets a separating space.
        if body[end..]
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-'))
        {
            out.push(' ');
        }
        last = end;
    }
    out.push_str(&body[last..]);
    out
}

/// Byte ranges of the `affine_map<...>` texts outside string literals.
fn map_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
        } else if b == b'a' && text[i..].starts_with("affine_map<") {
            if let Some(len) = balanced_len(&text[i..]) {
                // Only a map the reader accepts may become an alias: the
                // alias definition is read back through the map check,
                // while text kept inline elsewhere is read as it was.
                let body = &text[i + "affine_map<".len()..i + len - 1];
                if crate::parse::affine_map::check(body).is_ok() {
                    spans.push((i, i + len));
                }
                i += len;
                continue;
            }
        }
        i += 1;
    }
    spans
}

/// Length of `name<...>` up to the matching `>` (`->` does not close).
fn balanced_len(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' | b')' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 && b == b'>' {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// One op printed on its own (as MLIR's `Operation::print`, names
/// assigned over the whole module), without a trailing newline.
pub fn print_op(module: &Module, op: crate::ir::OpId) -> String {
    let mut p = ops::OpPrinter::new(module);
    p.print_op(op);
    p.into_text()
}

/// The SSA name `v` prints with (`%alloc`, `%0`, `%arg1`), names assigned
/// over the whole module.
pub fn value_name(module: &Module, v: crate::ir::ValueId) -> String {
    Names::new(module, module.top()).get(module, v)
}
