//! SSA value names the way `mlir-opt` assigns them.
//!
//! - Results of ops with a preferred name get it (`%alloc`, `%subview`,
//!   `%c16`, `%c0_i32`, `%cst`, `%true`), made unique with `_N` suffixes
//!   drawn from one conflict counter (`%alloc_0`, `%alloc_1`).
//! - Other results are numbered `%0`, `%1`, ...; a multi-result op takes one
//!   number (`%0:2`, used as `%0#1`).
//! - Entry-block arguments are `%arg0`, `%arg1`, ...; other block
//!   arguments are numbered like results.
//! - A region is numbered completely before the regions nested in it; each
//!   nested region starts from the counters its parent region ended with,
//!   and sees only names of enclosing regions (siblings may reuse names).

use std::collections::HashSet;

use crate::ir::{Attribute, Module, OpId, RegionId, Type, ValueDef, ValueId};

/// The printed name of every value (`%` included).
pub struct Names {
    names: Vec<Option<String>>,
    /// First results of multi-result ops named as a group (`%0:2`): their
    /// uses print `%0#0`.
    grouped: Vec<bool>,
}

impl Names {
    /// Numbers all values nested in `root`.
    pub fn new(m: &Module, root: OpId) -> Names {
        let mut n = Namer {
            m,
            names: vec![None; m.num_values()],
            grouped: vec![false; m.num_values()],
            used: vec![HashSet::new()],
        };
        let state = Counters::default();
        for &r in m.op(root).regions() {
            n.region(r, state);
        }
        Names {
            names: n.names,
            grouped: n.grouped,
        }
    }

    /// The stored name of `v`, if it has one of its own (not `%0#1`).
    pub fn name(&self, v: ValueId) -> Option<&str> {
        if self.grouped.get(v.index()).copied().unwrap_or(false) {
            return None;
        }
        self.names.get(v.index())?.as_deref()
    }

    /// The name of `v` (`%0`, `%alloc`, `%0#1`, ...).
    pub fn get(&self, m: &Module, v: ValueId) -> String {
        if let Some(n) = self.name(v) {
            return n.to_string();
        }
        // Multi-result ops: `%base#i`.
        if let ValueDef::OpResult { op, index } = m.value_def(v) {
            if let Some(&first) = m.op(op).results().first() {
                if let Some(Some(base)) = self.names.get(first.index()) {
                    return format!("{base}#{index}");
                }
            }
        }
        "<<UNKNOWN SSA VALUE>>".to_string()
    }

    /// The name a result group is defined with (`%0:2` for two unnamed
    /// results).
    pub fn def_name(&self, m: &Module, op: OpId) -> Vec<String> {
        let results = m.op(op).results();
        if results.len() > 1 {
            if let Some(Some(base)) = self.names.get(results[0].index()) {
                let all_unnamed = results[1..]
                    .iter()
                    .all(|r| self.names.get(r.index()).is_none_or(|n| n.is_none()));
                if all_unnamed {
                    return vec![format!("{base}:{}", results.len())];
                }
            }
        }
        results.iter().map(|&r| self.get(m, r)).collect()
    }
}

#[derive(Clone, Copy, Default)]
struct Counters {
    value: u32,
    arg: u32,
    conflict: u32,
}

struct Namer<'a> {
    m: &'a Module,
    names: Vec<Option<String>>,
    grouped: Vec<bool>,
    used: Vec<HashSet<String>>,
}

impl Namer<'_> {
    fn region(&mut self, r: RegionId, mut st: Counters) {
        self.used.push(HashSet::new());
        let m = self.m;
        let parent = m.region_parent_op(r);
        // linalg.reduce names its combiner's arguments (getAsmBlockArgumentNames).
        let linalg_names = m.op(parent).is("linalg.reduce") && m.op(parent).segments.len() == 2;
        for (bi, &b) in m.region_blocks(r).iter().enumerate() {
            for (ai, &a) in m.block_args(b).iter().enumerate() {
                if bi == 0 && linalg_names {
                    let n_in = m.op(parent).segments[0] as usize;
                    let name = if ai < n_in { "in" } else { "init" };
                    self.set_name(a, name, &mut st);
                } else if bi == 0 {
                    let name = format!("arg{}", st.arg);
                    st.arg += 1;
                    self.set_name(a, &name, &mut st);
                } else {
                    self.names[a.index()] = Some(format!("%{}", st.value));
                    st.value += 1;
                }
            }
            for op in m.block_ops(b) {
                let results = m.op(op).results();
                if results.is_empty() {
                    continue;
                }
                if let Some(names) = preferred_names(m, op) {
                    for (&r, name) in results.iter().zip(names) {
                        self.set_name(r, name, &mut st);
                    }
                    continue;
                }
                match preferred_name(m, op) {
                    Some(name) if results.len() == 1 => self.set_name(results[0], &name, &mut st),
                    _ => {
                        self.names[results[0].index()] = Some(format!("%{}", st.value));
                        self.grouped[results[0].index()] = results.len() > 1;
                        st.value += 1;
                    }
                }
            }
        }
        for &b in m.region_blocks(r) {
            for op in m.block_ops(b) {
                for &inner in m.op(op).regions() {
                    self.region(inner, st);
                }
            }
        }
        self.used.pop();
    }

    fn is_used(&self, name: &str) -> bool {
        self.used.iter().any(|s| s.contains(name))
    }

    fn set_name(&mut self, v: ValueId, name: &str, st: &mut Counters) {
        let name = sanitize(name);
        let chosen = if !self.is_used(&name) {
            name
        } else {
            loop {
                let probe = format!("{name}_{}", st.conflict);
                st.conflict += 1;
                if !self.is_used(&probe) {
                    break probe;
                }
            }
        };
        if let Some(s) = self.used.last_mut() {
            s.insert(chosen.clone());
        }
        self.names[v.index()] = Some(format!("%{chosen}"));
    }
}

/// Keeps `[a-zA-Z0-9_$.-]`, replacing other characters with `_`.
fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// The names `getAsmResultNames` gives each result of a multi-result op.
fn preferred_names(m: &Module, op: OpId) -> Option<&'static [&'static str]> {
    let d = m.op(op);
    match d.name() {
        "arith.mulsi_extended" | "arith.mului_extended" if d.results().len() == 2 => {
            Some(&["low", "high"])
        }
        _ => None,
    }
}

/// The name MLIR's `getAsmResultNames` gives the result of `op`.
fn preferred_name(m: &Module, op: OpId) -> Option<String> {
    let d = m.op(op);
    let fixed = match d.name() {
        "memref.alloc" => "alloc",
        "memref.alloca" => "alloca",
        "memref.subview" => "subview",
        "memref.cast" => "cast",
        "memref.collapse_shape" => "collapse_shape",
        "memref.expand_shape" => "expand_shape",
        "memref.reinterpret_cast" => "reinterpret_cast",
        "memref.reshape" => "reshape",
        "memref.view" => "view",
        "memref.dim" => "dim",
        "tensor.dim" => "dim",
        "linalg.reduce" => "reduced",
        "linalg.transpose" => "transposed",
        "linalg.broadcast" => "broadcasted",
        "tensor.extract" => "extracted",
        "tensor.insert" => "inserted",
        "tensor.extract_slice" => "extracted_slice",
        "tensor.insert_slice" => "inserted_slice",
        "tensor.collapse_shape" => "collapsed",
        "tensor.expand_shape" => "expanded",
        "tensor.splat" => "splat",
        "tensor.cast" => "cast",
        "tensor.bitcast" => "bitcast",
        "tensor.from_elements" => "from_elements",
        "memref.memory_space_cast" => "memspacecast",
        "memref.transpose" => "transpose",
        "memref.extract_aligned_pointer_as_index" => "intptr",
        "memref.assume_alignment" => "assume_align",
        "arith.constant" => return constant_name(d.attr("value")?),
        _ => return None,
    };
    Some(fixed.to_string())
}

fn constant_name(value: &Attribute) -> Option<String> {
    Some(match value {
        Attribute::Bool(b) => (if *b { "true" } else { "false" }).to_string(),
        Attribute::Integer { value, ty } => match ty {
            Type::Integer { width: 1, .. } => (if *value != 0 { "true" } else { "false" }).into(),
            Type::Index => format!("c{value}"),
            _ => format!("c{value}_{ty}"),
        },
        _ => "cst".to_string(),
    })
}
