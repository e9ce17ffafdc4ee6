//! Program order, loop-aware lifetime extension and phi families: the one
//! statement numbering every planner shares (seed 000, MemoryReuse's
//! `LifetimeAnalyzer`; seed 001 and 002 reuse it).
//!
//! # Program order
//!
//! Every statement of the function, nested blocks included, gets the next
//! index in pre-order (a `for`/`if` before the statements of its blocks;
//! allocations, yields and returns count like any statement; comments and
//! blank lines take none). Loop inits,
//! loop bounds and `if` conditions are read at the index of their `for`/`if`.
//! A loop spans `[index of the for, index of the last statement of its body]`.
//!
//! Loop-aware extension: a read inside a loop of a value defined before that
//! loop keeps the value alive until the end of the outermost such loop (the
//! next iteration reads it again), past the writes of that loop's last
//! statement: the roots' lifetimes end one index after it
//! (`roots::extended_read`), the occupancies at `2 end + 2`
//! ([`ProgramOrder::read_again`]).
//!
//! # Phi families
//!
//! Control-flow values carry the storage of other values: a loop iter arg
//! or loop result carries its init value, an `if` result (a phi) carries
//! the value each branch yields ([`carried_from`]).
//!
//! Assumes a well-formed program model; read-only and deterministic.

use crate::ir::{
    Block, EntityRef, Expr, ForStmt, Function, SecondaryMap, StmtId, StmtKind, VarDef, VarId,
};

/// A closed lifetime `[def, last]` in program-order indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    /// Index of the defining statement.
    pub def: u32,
    /// Greatest index at which the value (or its storage) is read.
    pub last: u32,
}

impl Lifetime {
    /// Whether two lifetimes interfere. Touching is not interference: the
    /// statement that reads a value for the last time may define the value
    /// that takes over its bytes (inputs are read before the output is
    /// written), so `a.last <= b.def` or `b.last <= a.def` means disjoint.
    pub fn overlaps(&self, other: &Lifetime) -> bool {
        !(self.last <= other.def || other.last <= self.def)
    }

    /// The union of two lifetimes.
    pub fn union(&self, other: &Lifetime) -> Lifetime {
        Lifetime {
            def: self.def.min(other.def),
            last: self.last.max(other.last),
        }
    }

    /// The half-open interval used by the DSA-RP problem:
    /// `[2*def + 1, max(2*def + 2, 2*last + 1))`. Two such intervals
    /// intersect exactly when [`overlaps`](Self::overlaps) holds.
    pub fn half_open(&self) -> (u64, u64) {
        let d = u64::from(self.def);
        let l = u64::from(self.last);
        (2 * d + 1, (2 * d + 2).max(2 * l + 1)) // u32 indices: no overflow in u64
    }
}

/// The extent of one loop in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopSpan {
    /// The `for` statement.
    pub stmt: StmtId,
    /// Its index (where inits and bounds are read).
    pub start: u32,
    /// Index of the last statement of its body (nested blocks included).
    pub end: u32,
}

/// No enclosing loop (see [`ProgramOrder::enclosing_loop`]).
pub const NO_LOOP: u32 = u32::MAX;

/// Program-order indices and loop nesting of one function.
#[derive(Clone, Debug, Default)]
pub struct ProgramOrder {
    /// Index of every statement reachable from the body (`u32::MAX` for
    /// statements no block contains).
    pub index: SecondaryMap<StmtId, u32>,
    /// Loops, outer before inner.
    pub loops: Vec<LoopSpan>,
    /// Innermost loop (into `loops`) enclosing each statement, [`NO_LOOP`]
    /// at top level (4 bytes a statement; read it through
    /// [`enclosing_loop`](Self::enclosing_loop)).
    innermost: SecondaryMap<StmtId, u32>,
    /// Parent loop of each loop (into `loops`).
    pub loop_parent: Vec<Option<u32>>,
    /// Number of indices handed out.
    pub len: u32,
    /// Last index of each statement's subtree (its own index for a
    /// statement without blocks): where an `if`'s branches join.
    pub end: SecondaryMap<StmtId, u32>,
}

impl ProgramOrder {
    /// Numbers the statements of `f` in pre-order.
    pub fn build(f: &Function) -> ProgramOrder {
        let mut o = ProgramOrder {
            index: SecondaryMap::with_default(u32::MAX),
            ..ProgramOrder::default()
        };
        // Every table at its full length at once: growing them statement
        // by statement would leave up to twice the capacity behind.
        if let Some(last) = f.stmts.len().checked_sub(1).map(StmtId::new) {
            o.index[last] = u32::MAX;
            o.end[last] = 0;
            o.innermost[last] = NO_LOOP;
        }
        o.number_block(f, Block::Body, None);
        o
    }

    fn number_block(&mut self, f: &Function, b: Block, lp: Option<u32>) {
        for &s in f.block(b) {
            let i = self.len;
            self.index[s] = i;
            self.end[s] = i;
            self.innermost[s] = lp.unwrap_or(NO_LOOP);
            // Comments and blank lines take no index of their own.
            if matches!(f.stmts[s].kind, StmtKind::Comment(_) | StmtKind::Blank) {
                continue;
            }
            self.len += 1;
            match &f.stmts[s].kind {
                StmtKind::For(_) => {
                    let id = u32::try_from(self.loops.len()).unwrap_or(u32::MAX);
                    self.loops.push(LoopSpan {
                        stmt: s,
                        start: i,
                        end: i,
                    });
                    self.loop_parent.push(lp);
                    self.number_block(f, Block::Loop(s), Some(id));
                    self.loops[id as usize].end = self.len - 1;
                }
                StmtKind::If(_) | StmtKind::With(_) => {
                    for child in f.child_blocks(s) {
                        self.number_block(f, child, lp);
                    }
                }
                _ => {}
            }
            self.end[s] = self.len - 1;
        }
    }

    /// The index at which a read by statement `s` of a value defined at
    /// `def` ends: the end of the outermost loop that encloses `s` but
    /// started after `def`, else the index of `s` itself.
    pub fn extended_read(&self, s: StmtId, def: u32) -> u32 {
        self.extended_read_from(s, Some(def))
    }

    /// [`extended_read`](Self::extended_read) for a value whose definition
    /// may be unknown (`None`: defined before every loop).
    pub fn extended_read_from(&self, s: StmtId, def: Option<u32>) -> u32 {
        let mut at = self.index[s];
        let mut lp = self.enclosing_loop(s);
        while let Some(l) = lp {
            let span = self.loops[l as usize];
            if def.is_none_or(|d| span.start > d) {
                at = at.max(span.end);
            }
            lp = self.loop_parent[l as usize];
        }
        at
    }

    /// Whether a read by statement `s` of a value defined at `def`
    /// (`None`: before every loop) is repeated by a later iteration: some
    /// loop enclosing `s` started after `def`. Such a value is still
    /// needed while that loop's last statement writes, unlike a value
    /// that statement reads for the last time.
    pub fn read_again(&self, s: StmtId, def: Option<u32>) -> bool {
        let mut lp = self.enclosing_loop(s);
        while let Some(l) = lp {
            if def.is_none_or(|d| self.loops[l as usize].start > d) {
                return true;
            }
            lp = self.loop_parent[l as usize];
        }
        false
    }

    /// The innermost loop (into `loops`) enclosing statement `s`; `None`
    /// at top level.
    pub fn enclosing_loop(&self, s: StmtId) -> Option<u32> {
        Some(self.innermost[s]).filter(|&l| l != NO_LOOP)
    }

    /// Whether statement `s` is inside any loop.
    pub fn in_loop(&self, s: StmtId) -> bool {
        self.enclosing_loop(s).is_some()
    }
}

/// The variables whose storage a control-flow value carries: the init value
/// of an iter arg or loop result, the yielded values of an `if` result.
/// Empty for assignment-defined variables, parameters and loop variables.
pub fn carried_from(f: &Function, v: VarId) -> Vec<VarId> {
    match f.vars[v].def {
        VarDef::IterArg(s) => match &f.stmts[s].kind {
            StmtKind::For(l) => init_var_of(l, &l.iter_args, v),
            _ => Vec::new(),
        },
        VarDef::Stmt(s) => match &f.stmts[s].kind {
            StmtKind::For(l) => init_var_of(l, &l.results, v),
            StmtKind::If(i) => {
                let Some(k) = i.results.iter().position(|&a| a == v) else {
                    return Vec::new();
                };
                let mut out = Vec::new();
                for b in f.child_blocks(s) {
                    if let Some(y) = yielded(f, b).and_then(|vals| vals.get(k)) {
                        out.extend(y.as_var());
                    }
                }
                out
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The init value of loop `l` at the position `v` has in `carries` (its
/// iter args or its results, which line up with the init values); empty
/// when `v` is not there or the init value is not a variable.
fn init_var_of(l: &ForStmt, carries: &[VarId], v: VarId) -> Vec<VarId> {
    let Some(k) = carries.iter().position(|&a| a == v) else {
        return Vec::new();
    };
    l.init_values()
        .get(k)
        .and_then(Expr::as_var)
        .into_iter()
        .collect()
}

/// The values yielded by the final `pl.yield_` of block `b`.
pub fn yielded(f: &Function, b: Block) -> Option<&[Expr]> {
    let i = f.yield_index(b)?;
    match &f.stmts[f.block(b)[i]].kind {
        StmtKind::Yield(v) => Some(v),
        _ => None,
    }
}

/// Whether `v` is defined by an assignment statement.
pub fn is_assigned(f: &Function, v: VarId) -> Option<StmtId> {
    match f.vars[v].def {
        VarDef::Stmt(s)
            if matches!(
                f.stmts[s].kind,
                StmtKind::Assign { .. } | StmtKind::Alloc { .. }
            ) =>
        {
            Some(s)
        }
        _ => None,
    }
}
