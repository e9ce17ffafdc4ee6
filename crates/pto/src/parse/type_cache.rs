//! Reuse of already-read type annotations.
//!
//! PyPTO prints a full type on every assignment, and a kernel repeats the
//! same few annotations (`pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3,
//! ...), pl.Mem.Vec, pl.TileView(...)]`) thousands of times. Reading one
//! costs as much as the rest of its statement, so the reader remembers, per
//! function, the [`Type`] each single-line `pl.Tile[...]` / `pl.Tensor[...]`
//! text produced and, when the same text comes again, clones it and moves
//! the tokenizer past it.
//!
//! Assumes: a cached type is reused only where reading the text again would
//! give the same result. Tokenizing identical single-line text from the
//! same lexer state gives identical tokens; the only state the type reader
//! consults is the scope (which variable a name denotes, and whether a
//! dotted root is a variable) and the nesting depth. So an entry records
//! every name it resolved with its [`VarId`] and is reused only when each
//! still resolves to the same variable, at no greater depth; a text whose
//! reading depended on a name being unbound is not cached.
//!
//! Guarantees: the program read is identical with and without the cache;
//! memory stays bounded (at most [`MAX_ENTRIES`] types per function).

use std::collections::HashMap;

use crate::ir::{Type, VarId};

use super::{FxBuild, Parser, R};

/// Most cached texts per function (a bound on the cache's memory).
const MAX_ENTRIES: usize = 1024;

/// A type read from a given text, with what its reading depended on.
pub(super) struct Entry<'s> {
    ty: Type,
    /// Names resolved while reading it and the variables they denoted.
    uses: Box<[(&'s str, VarId)]>,
    /// Nesting depth it was read at.
    depth: u32,
}

/// Per-function cache keyed by the exact annotation text.
pub(super) type TypeCache<'s> = HashMap<&'s str, Entry<'s>, FxBuild>;

/// Recording of the scope queries made while reading one annotation.
#[derive(Default)]
pub(super) struct Recording<'s> {
    pub(super) uses: Vec<(&'s str, VarId)>,
    /// A dotted root was read as a path because it was unbound.
    pub(super) scope_dependent: bool,
}

/// Bytes [`span_end`] must look at: brackets, quotes, line ends,
/// comments and continuations.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let special = b"[({])}\"'\n\r#\\";
    while k < special.len() {
        t[special[k] as usize] = true;
        k += 1;
    }
    t
};

/// End (exclusive byte offset) of a `pl.Tile[...]` / `pl.Tensor[...]`
/// annotation starting at `start` when it lies on one line without
/// comments or continuations; `None` otherwise.
fn span_end(b: &[u8], start: usize) -> Option<usize> {
    let rest = b.get(start..)?;
    let head = if rest.starts_with(b"pl.Tile[") {
        8
    } else if rest.starts_with(b"pl.Tensor[") {
        10
    } else {
        return None;
    };
    let mut depth = 1u32;
    let mut i = head;
    while let Some(&c) = rest.get(i) {
        if !SPECIAL[usize::from(c)] {
            i += 1;
            continue;
        }
        match c {
            b'[' | b'(' | b'{' => depth += 1,
            b']' | b')' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(start + i + 1);
                }
            }
            b'"' | b'\'' => {
                i += 1;
                loop {
                    match rest.get(i) {
                        None | Some(b'\n' | b'\r') => return None,
                        Some(b'\\') => i += 2,
                        Some(&q) if q == c => break,
                        Some(_) => i += 1,
                    }
                }
            }
            b'\n' | b'\r' | b'#' | b'\\' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

impl<'s> Parser<'s> {
    /// Reads a type annotation, reusing an identical earlier one when its
    /// names still denote the same variables.
    pub(super) fn ty_cached(&mut self) -> R<Type> {
        let t = self.peek()?;
        let start = t.start as usize;
        let end = match (self.recording.is_none() && self.look.len() == 1)
            .then(|| span_end(self.src.as_bytes(), start))
            .flatten()
        {
            Some(end) => end,
            None => return self.ty(),
        };
        let text = &self.src[start..end];
        if let Some(e) = self.ty_cache.get(text) {
            let valid = self.depth <= e.depth
                && e.uses
                    .iter()
                    .all(|&(name, v)| self.scope.get(name, &self.f.vars) == Some(v));
            if valid && self.lex.skip_to(end) {
                let ty = e.ty.clone();
                self.look.clear();
                self.last_end = end as u32;
                return Ok(ty);
            }
        }
        self.recording = Some(Recording::default());
        let depth = self.depth;
        let r = self.ty();
        let rec = self.recording.take().unwrap_or_default();
        let ty = r?;
        // Cache only when the reader consumed exactly the scanned text.
        let consumed_exactly = self.last_end == end as u32;
        if consumed_exactly && !rec.scope_dependent {
            if self.ty_cache.len() >= MAX_ENTRIES {
                self.ty_cache.clear();
            }
            self.ty_cache.insert(
                text,
                Entry {
                    ty: ty.clone(),
                    uses: rec.uses.into_boxed_slice(),
                    depth,
                },
            );
        }
        Ok(ty)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Expr, MemBase, MemRef, Type, VarId};

    const SRC: &str = "\
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        n: pl.Scalar[pl.INDEX] = 16
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        a: pl.Tile[[n, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [n, 64])
        b: pl.Tile[[n, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(a)
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        n: pl.Scalar[pl.INDEX] = 32
        c: pl.Tile[[n, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(b)
        return x
";

    /// The variables named `name`, in definition order.
    fn named(f: &crate::ir::Function, name: &str) -> Vec<VarId> {
        f.vars
            .iter()
            .filter(|(_, d)| &*d.name == name)
            .map(|(v, _)| v)
            .collect()
    }

    /// (shape's first dimension, MemRef base) of the tile variable `name`.
    fn tile_vars(f: &crate::ir::Function, name: &str) -> (VarId, VarId) {
        let v = named(f, name)[0];
        let Some(Type::Tile(t, m)) = &f.vars.get(v).unwrap().ty else {
            panic!("{name} is not a tile");
        };
        let Expr::Var(dim) = t.shape[0] else {
            panic!("{name}: first dimension is not a variable");
        };
        let Some(base) = m.as_ref().and_then(MemRef::base_var) else {
            panic!("{name}: no MemRef on a variable");
        };
        (dim, base)
    }

    #[test]
    fn a_repeated_annotation_is_one_type_until_a_variable_changes_it() {
        let mut p = crate::parse(SRC).unwrap();
        let f = &mut p.functions[0];
        let (a, b) = (named(f, "a")[0], named(f, "b")[0]);
        let tile =
            |f: &crate::ir::Function, v| f.ty(v).and_then(Type::as_tile).unwrap() as *const _;
        // Read from the same text with the same bindings: one copy.
        assert!(std::ptr::eq(tile(f, a), tile(f, b)));
        let slot = f.vars[a].ty.as_mut().and_then(Type::memref_mut).unwrap();
        *slot = Some(MemRef::new(MemBase::Named("x".into()), 64, 128));
        // Setting `a`'s storage copied nothing: the MemRef lives beside the
        // shared tile type, and `b` keeps the one it was read with.
        assert!(std::ptr::eq(tile(f, a), tile(f, b)));
        if let Some(t) = f.vars[a].ty.as_mut().and_then(Type::as_tile_mut) {
            t.space = Some(crate::ir::MemSpace::Mat);
        }
        // Changing `a`'s tile type gave it its own copy.
        assert!(!std::ptr::eq(tile(f, a), tile(f, b)));
        let offset = |f: &crate::ir::Function, v| f.ty(v).unwrap().memref().unwrap().const_offset();
        assert_eq!((offset(f, a), offset(f, b)), (Some(64), Some(0)));
        let text = crate::print(&p);
        assert!(text.contains("a: pl.Tile[[n, 64], pl.FP32, pl.MemRef(\"x\", pl.const(64, pl.INT64), 128), pl.Mem.Mat]"));
        assert!(text.contains("b: pl.Tile[[n, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec]"));
    }

    #[test]
    fn repeated_annotation_follows_rebound_names() {
        let p = crate::parse(SRC).unwrap();
        let f = &p.functions[0];
        let (n, mem) = (named(f, "n"), named(f, "mem_vec_0"));
        assert_eq!((n.len(), mem.len()), (2, 2));
        // `b` repeats `a`'s text with the same bindings; `c` repeats it
        // after both names were rebound and must see the new variables.
        assert_eq!(tile_vars(f, "a"), (n[0], mem[0]));
        assert_eq!(tile_vars(f, "b"), (n[0], mem[0]));
        assert_eq!(tile_vars(f, "c"), (n[1], mem[1]));
        assert_eq!(crate::print(&p), SRC);
    }
}
