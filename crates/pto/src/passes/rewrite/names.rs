//! Fresh names for the variables and allocations the rewrites add, as
//! PyPTO names them: a copy is its source's name hint plus `_mv`, and every
//! name is made unique with `_1`, `_2`, ... like the printer's
//! de-duplication (`x__tile_1` copied gives `x__tile_mv_1` when
//! `x__tile_mv` is taken, never `x__tile_1_mv`).

use rustc_hash::FxHashSet as HashSet;

use crate::ir::{Function, MemSpace, VarId};

/// Names already used in the function, for fresh move and scratch names.
pub struct Names {
    taken: HashSet<String>,
    next_alloc: u64,
}

impl Names {
    /// The names `f` uses.
    pub fn of(f: &Function) -> Names {
        let mut next_alloc = 0u64;
        for d in f.vars.values() {
            if let Some(n) = d.name.strip_prefix("mem_") {
                if let Some(num) = n.rsplit('_').next().and_then(|x| x.parse::<u64>().ok()) {
                    next_alloc = next_alloc.max(num.saturating_add(1));
                }
            }
        }
        Names {
            taken: f.vars.values().map(|d| d.name.to_string()).collect(),
            next_alloc,
        }
    }

    /// `base`, or `base_1`, `base_2`, ... whichever is free; reserves it.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut i = 1u64;
        while self.taken.contains(&name) {
            name = format!("{base}_{i}");
            i += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// A new allocation name `mem_<space>_<n>` above every existing number.
    pub fn alloc(&mut self, space: MemSpace) -> String {
        let n = self.next_alloc;
        self.next_alloc += 1;
        self.fresh(&space.alloc_name(n))
    }
}

/// The name a copy of `src` is made unique from: its name hint plus
/// `_mv` (pass it to [`Names::fresh`]).
pub fn copy_base(f: &Function, src: VarId) -> String {
    format!("{}_mv", name_hint(f, &f.vars[src].name))
}

/// The name hint a printed name was made from: without the `_N` the
/// printer appended to tell it from an earlier variable of the same hint
/// (recognised by that variable being there), else the name itself.
pub fn name_hint<'a>(f: &Function, name: &'a str) -> &'a str {
    let Some((hint, n)) = name.rsplit_once('_') else {
        return name;
    };
    let numbered = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    if numbered && !hint.is_empty() && f.vars.values().any(|d| &*d.name == hint) {
        hint
    } else {
        name
    }
}
