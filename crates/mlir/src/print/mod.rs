//! The printer, in `mlir-opt`'s canonical style: custom forms of the known
//! ops, SSA names as `mlir-opt` assigns them ([`names`]), attribute
//! dictionaries sorted by name, and `#map` aliases for affine maps.

mod names;
mod ops;
mod types;

pub use names::Names;
pub use types::{
    format_float, is_bare_identifier, write_attr, write_dict, write_function_type, write_strided,
    write_type, write_type_list,
};

use crate::ir::Module;

/// Prints a module (ending with a newline).
pub fn print_module(module: &Module) -> String {
    let body = ops::OpPrinter::new(module).print_module();
    alias_affine_maps(body)
}

/// Replaces inline `affine_map<...>` texts by `#map`, `#map1`, ... aliases
/// defined at the top, numbered in order of first appearance (as mlir-opt
/// prints them).
fn alias_affine_maps(body: String) -> String {
    let mut maps: Vec<String> = Vec::new();
    let mut rest = body.as_str();
    while let Some(i) = rest.find("affine_map<") {
        let tail = &rest[i..];
        let Some(len) = balanced_len(tail) else {
            break;
        };
        let text = &tail[..len];
        if !maps.iter().any(|m| m == text) {
            maps.push(text.to_string());
        }
        rest = &tail[len..];
    }
    if maps.is_empty() {
        return body;
    }
    let alias = |i: usize| {
        if i == 0 {
            "#map".to_string()
        } else {
            format!("#map{i}")
        }
    };
    let mut out = String::new();
    for (i, m) in maps.iter().enumerate() {
        out.push_str(&format!("{} = {}\n", alias(i), m));
    }
    // Replace longest texts first so that no map text is a prefix problem.
    let mut order: Vec<usize> = (0..maps.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(maps[i].len()));
    let mut text = body;
    for i in order {
        text = text.replace(&maps[i], &alias(i));
    }
    out.push_str(&text);
    out
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
