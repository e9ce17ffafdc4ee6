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
//! [`number`] is the one walk that hands out these indices: [`ProgramOrder`]
//! keeps its tables, the roots' analysis ([`super::roots`]) walks it
//! without tables.
//!
//! # The loop-end rule ([`Loops::read_end`])
//!
//! Seed 000, step 1: a read inside a loop of a value defined before that
//! loop keeps the value alive until the end of the outermost such loop
//! (延展到循环结束: the next iteration reads it again), and past the writes
//! of that loop's last statement, as the next iteration reads the value
//! after that statement wrote. Every planner takes the rule from
//! [`Loops::read_end`]; its [`ReadEnd`] says it in each planner's scale:
//! the roots' lifetimes end one index after the loop
//! ([`ReadEnd::last`]), the occupancies at `2 end + 2`
//! ([`ReadEnd::instant_end`]).
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

/// No enclosing loop (top level; see [`Step::Enter`]).
pub const NO_LOOP: u32 = u32::MAX;

/// The loops of one function, outer before inner, with their nesting:
/// all the loop-end rule reads. A loop's id is its position in
/// [`spans`](Self::spans).
#[derive(Clone, Debug, Default)]
pub struct Loops {
    /// The loops in program order (an outer loop before the loops of its
    /// body).
    pub spans: Vec<LoopSpan>,
    /// The loop enclosing each loop, [`NO_LOOP`] at top level.
    parent: Vec<u32>,
}

impl Loops {
    /// The loop-end rule (seed 000, step 1): where a read at index `at`,
    /// by a statement whose innermost loop is `lp` ([`NO_LOOP`]: none), of
    /// a value defined at `def` (`None`: before every loop) stops keeping
    /// the value's bytes. Each loop enclosing the read that started after
    /// `def` runs the read again in its next iteration; the outermost such
    /// loop ends last, and the read lasts to its end and past the writes
    /// of its last statement ([`ReadEnd`]). Without such a loop the read
    /// is the value's last at that statement.
    pub fn read_end(&self, lp: u32, at: u32, def: Option<u32>) -> ReadEnd {
        let mut end = ReadEnd { at, again_in: None };
        let mut l = lp;
        while l != NO_LOOP {
            let span = self.spans[l as usize];
            if def.is_none_or(|d| span.start > d) {
                // Loops nest: an outer loop ends no earlier.
                end = ReadEnd {
                    at: at.max(span.end),
                    again_in: Some(span.stmt),
                };
            }
            l = self.parent[l as usize];
        }
        end
    }
}

/// Where a read stops keeping a value's bytes ([`Loops::read_end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadEnd {
    /// The index of the reading statement, or of the last statement of
    /// the loop `again_in`.
    pub at: u32,
    /// The outermost loop (its `for`) enclosing the read that started
    /// after the value was defined: its next iteration reads the value
    /// again, after the loop's last statement (index `at`) wrote. `None`:
    /// no loop repeats the read.
    pub again_in: Option<StmtId>,
}

impl ReadEnd {
    /// Whether a later iteration reads the value again.
    pub fn again(&self) -> bool {
        self.again_in.is_some()
    }

    /// The end of the value's [`Lifetime`] (closed indices, touching is
    /// sharing): `at`, or `at + 1` when read again, so that a root the
    /// loop's last statement defines (at `at`) interferes, and one defined
    /// after the loop (at `at + 1`) touches and may share. Ending at `at`
    /// would let the loop's last statement take the bytes under the
    /// touching rule, which is meant for a statement reading a value for
    /// the last time (seed 000: inputs are read before the output is
    /// written, within one statement), not for a read the next iteration
    /// repeats.
    pub fn last(&self) -> u32 {
        // `at` is a statement's index, below the statement count (a u32).
        self.at + u32::from(self.again())
    }

    /// The end of the value's half-open span in the instants of
    /// [`Lifetime::half_open`] (statement `i` runs at `2 i + 1`): `2 at + 1`,
    /// or `2 at + 2` when read again, as the value is still needed while
    /// the loop's last statement writes.
    pub fn instant_end(&self) -> u64 {
        2 * u64::from(self.at) + 1 + u64::from(self.again())
    }
}

/// One step of [`number`]'s walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Statement `s` gets program-order index `index`; `lp` is its
    /// innermost enclosing loop (into [`Loops::spans`], [`NO_LOOP`] at top
    /// level). A comment or blank line takes no index: `numbered` is false
    /// and `index` is the one the next statement gets.
    Enter {
        s: StmtId,
        index: u32,
        lp: u32,
        numbered: bool,
    },
    /// The blocks of numbered statement `s` are done: `last` is the
    /// greatest index of its subtree (its own for a statement without
    /// blocks), where an `if`'s branches join.
    Leave { s: StmtId, last: u32 },
}

/// Numbers the statements of `f` in program order (the module's
/// numbering: pre-order, comments and blank lines skipped), calling
/// `visit` on each step, and returns the loops. Holds no table per
/// statement: callers keep what they need.
pub fn number(f: &Function, visit: &mut impl FnMut(Step)) -> Loops {
    let mut w = Numbering {
        len: 0,
        loops: Loops::default(),
    };
    w.block(f, Block::Body, NO_LOOP, visit);
    w.loops
}

/// The state of [`number`]'s walk.
struct Numbering {
    /// Number of indices handed out.
    len: u32,
    loops: Loops,
}

impl Numbering {
    fn block(&mut self, f: &Function, b: Block, lp: u32, visit: &mut impl FnMut(Step)) {
        for &s in f.block(b) {
            let index = self.len;
            let numbered = !matches!(f.stmts[s].kind, StmtKind::Comment(_) | StmtKind::Blank);
            visit(Step::Enter {
                s,
                index,
                lp,
                numbered,
            });
            if !numbered {
                continue;
            }
            self.len += 1;
            match &f.stmts[s].kind {
                StmtKind::For(_) => {
                    let id = u32::try_from(self.loops.spans.len()).unwrap_or(NO_LOOP);
                    self.loops.spans.push(LoopSpan {
                        stmt: s,
                        start: index,
                        end: index,
                    });
                    self.loops.parent.push(lp);
                    self.block(f, Block::Loop(s), id, visit);
                    self.loops.spans[id as usize].end = self.len - 1;
                }
                StmtKind::If(_) | StmtKind::With(_) => {
                    for child in f.child_blocks(s) {
                        self.block(f, child, lp, visit);
                    }
                }
                _ => {}
            }
            visit(Step::Leave {
                s,
                last: self.len - 1,
            });
        }
    }
}

/// Program-order indices and loop nesting of one function.
#[derive(Clone, Debug, Default)]
pub struct ProgramOrder {
    /// Index of every statement reachable from the body (`u32::MAX` for
    /// statements no block contains).
    pub index: SecondaryMap<StmtId, u32>,
    /// The loops and their nesting.
    pub loops: Loops,
    /// Innermost loop (into `loops.spans`) enclosing each statement,
    /// [`NO_LOOP`] at top level (4 bytes a statement; read it through
    /// [`enclosing_loop`](Self::enclosing_loop)).
    innermost: SecondaryMap<StmtId, u32>,
    /// Number of indices handed out.
    pub len: u32,
    /// Last index of each statement's subtree (its own index for a
    /// statement without blocks): where an `if`'s branches join.
    pub end: SecondaryMap<StmtId, u32>,
}

impl ProgramOrder {
    /// Numbers the statements of `f` in pre-order ([`number`]).
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
        o.loops = number(f, &mut |step| match step {
            Step::Enter {
                s,
                index,
                lp,
                numbered,
            } => {
                o.index[s] = index;
                o.end[s] = index;
                o.innermost[s] = lp;
                if numbered {
                    o.len = index + 1;
                }
            }
            Step::Leave { s, last } => o.end[s] = last,
        });
        o
    }

    /// The loop-end rule ([`Loops::read_end`]) for a read by statement `s`
    /// of a value defined at `def` (`None`: before every loop).
    pub fn read_end(&self, s: StmtId, def: Option<u32>) -> ReadEnd {
        self.loops.read_end(self.innermost[s], self.index[s], def)
    }

    /// The innermost loop (into `loops.spans`) enclosing statement `s`;
    /// `None` at top level.
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
