//! DSA_RP's reuse-penalty recognizer, as PyPTO computes it (behaviour.md,
//! "DSA_RP: which pairs get a reuse penalty").
//!
//! - **Accesses** of an allocation root are the operands (reads) and
//!   results (writes) of the calls that touch one of its tiles. Ops with
//!   no execution memory access (views, `tile.create`, `tile.alloc`; see
//!   [`evidence`]) are not accesses. A provably whole `tile.assemble`
//!   (the source has the target's shape, constant-zero offsets, the result
//!   on the target's allocation) does not read its target: the target's
//!   first access is the write.
//! - **Poisoning**: an access through an op without functional evidence
//!   poisons the root, which then gets no penalty at all; a three-argument
//!   `tile.store` of a whole tile and an in-place window write
//!   (`tile.assemble`) that provably covers the whole root are promoted to
//!   functional. A functional access needs a pipe: one the SoC has no
//!   route for (a `tile.move` Vec -> Mat on 910B) poisons too
//!   (`op-registry.md` section 9, "DSA-RP recognizer").
//! - **Qualifying** roots: every access covers the root whole (offset 0,
//!   the root's size, no `valid_shape`), every access lies on one
//!   structured path (each `if` branch and each loop body opens a new
//!   path; a `with` block does not) and the earliest access is a write on
//!   one known pipe.
//! - **Pairs** ([`handoff`]), between roots of one path: a prior root whose accesses end no later
//!   than the current root's first write costs 1 when it has a terminal
//!   access (the last access on some pipe) on a pipe other than that
//!   write's. Two roots of one
//!   loop also hand over across the back edge: the later one's last access
//!   of an iteration against the earlier one's first write of the next.
//!
//! Assumes: `order` is the program order of `f`. Guarantees: read-only,
//! deterministic.

use std::collections::{BTreeSet, HashMap};

use super::pipes::stmt_pipe;
use crate::ir::{Block, Expr, Function, StmtId, StmtKind, Type, VarId};
use crate::ops::{OpClass, Pipe};
use tilemem_soc::Family;

/// The argument count of a `tile.store` the recognizer promotes to a
/// functional access when its tile is whole (`op-registry.md` section 9:
/// "3 args, fully-valid tile"; a store given explicit `shapes` may write
/// a part of the tile only).
const STORE_PROMOTED_ARGS: usize = 3;
use crate::passes::analysis::evidence::{memory_access, Evidence};
use crate::passes::analysis::order::ProgramOrder;

/// What the recognizer found about one root.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recog {
    /// The root may take part in penalty pairs.
    pub qualifies: bool,
    /// An op without functional evidence touched it.
    pub poisoned: bool,
    /// Pipe of the earliest access when that access is a write.
    pub head: Option<Pipe>,
    /// Program index of the first and of the last access.
    pub first: u32,
    pub last: u32,
    /// Pipes with a terminal access: each pipe that accessed the root ends
    /// with one (`None`: uncertain).
    pub terminal: BTreeSet<Option<Pipe>>,
    /// The structured path of its accesses.
    pub path: Option<Block>,
    /// Innermost loop (into `ProgramOrder::loops`) of its path, if any.
    pub lp: Option<u32>,
}

/// One access: program index, pipe, whether it writes.
type Access = (u32, Option<Pipe>, bool);

/// The structured path a block belongs to: `with` blocks continue their
/// parent's path; if branches and loop bodies open their own.
fn path_of(b: Block, block_of: &HashMap<StmtId, Block>) -> Block {
    let mut b = b;
    while let Block::With(s) = b {
        b = block_of.get(&s).copied().unwrap_or(Block::Body);
    }
    b
}

fn same_shape(f: &Function, a: Option<VarId>, b: Option<VarId>) -> bool {
    let shape = |v: Option<VarId>| match v.and_then(|v| f.ty(v)) {
        Some(Type::Tile(t, _)) => Some(t.shape.clone()),
        _ => None,
    };
    matches!((shape(a), shape(b)), (Some(x), Some(y)) if x == y)
}

/// Recognizes every root: `root_index(v)` maps a tile variable to its
/// root's position (`None`: not a root of this space); `partial(v)` says
/// whether tile `v` covers only part of its root.
pub(crate) fn recognize(
    f: &Function,
    order: &ProgramOrder,
    n: usize,
    root_index: &dyn Fn(VarId) -> Option<usize>,
    partial: &dyn Fn(VarId) -> bool,
    family: Family,
) -> Vec<Recog> {
    let walk = f.walk();
    let block_of: HashMap<StmtId, Block> = walk.iter().map(|&(b, s)| (s, b)).collect();
    let mut accesses: Vec<Vec<Access>> = vec![Vec::new(); n];
    let mut poisoned = vec![false; n];
    let mut not_whole = vec![false; n];
    // The one path of each root's accesses so far; `multi`: more than one.
    let mut paths: Vec<Option<Block>> = vec![None; n];
    let mut multi = vec![false; n];
    let mut loops: Vec<Option<u32>> = vec![None; n];
    for &(b, s) in &walk {
        let st = &f.stmts[s];
        let Some(call) = st.call() else { continue };
        let info = crate::ops::lookup_or_default(call.op_name());
        let evidence = memory_access(call.op_name());
        if evidence == Evidence::NoAccess {
            continue;
        }
        let mut touched: Vec<(VarId, bool)> = Vec::new();
        if let StmtKind::Assign { targets, .. } = &st.kind {
            touched.extend(targets.iter().map(|&t| (t, true)));
        }
        // A provably whole assemble writes its target without reading it.
        let unread = whole_assemble(f, st, call, root_index);
        st.for_each_use(&mut |v| {
            if Some(v) != unread {
                touched.push((v, false));
            }
        });
        let at = order.index[s];
        let pipe = stmt_pipe(f, s, family);
        let path = path_of(b, &block_of);
        let arg = |k: usize| call.args.get(k).and_then(Expr::as_var);
        let mut seen: BTreeSet<(usize, bool)> = BTreeSet::new();
        for (v, write) in touched {
            let Some(r) = root_index(v) else { continue };
            let whole = !partial(v);
            let covers = match evidence {
                // A functional access the SoC has no pipe for is not
                // known exactly either.
                Evidence::Functional => pipe.is_some(),
                // A store reads its tile whole; an in-place window write
                // (an assemble) covers its target whole only when the
                // source has the target's shape.
                _ => {
                    whole
                        && pipe.is_some()
                        && if info.class == OpClass::Store {
                            call.args.len() == STORE_PROMOTED_ARGS
                        } else if info.writes_window_of_first_arg() {
                            Some(v) == arg(1) || same_shape(f, arg(0), arg(1))
                        } else {
                            false
                        }
                }
            };
            if !covers {
                poisoned[r] = true;
            }
            not_whole[r] |= !whole;
            match paths[r] {
                None => paths[r] = Some(path),
                Some(p) if p != path => multi[r] = true,
                Some(_) => {}
            }
            loops[r] = order.enclosing_loop(s);
            if seen.insert((r, write)) {
                accesses[r].push((at, pipe, write));
            }
        }
    }
    (0..n)
        .map(|r| {
            let acc = &accesses[r];
            let Some(first) = acc.iter().map(|a| a.0).min() else {
                return Recog::default();
            };
            let last = acc.iter().map(|a| a.0).max().unwrap_or(first);
            // The earliest access: reads of an op come before its writes.
            let earliest: Vec<&Access> = acc.iter().filter(|a| a.0 == first).collect();
            let head = if earliest.iter().all(|a| a.2) {
                let pipes: BTreeSet<Option<Pipe>> = earliest.iter().map(|a| a.1).collect();
                match pipes.into_iter().collect::<Vec<_>>().as_slice() {
                    [Some(p)] => Some(*p),
                    _ => None,
                }
            } else {
                None
            };
            // Each pipe's last access is terminal on that pipe.
            let terminal = acc.iter().map(|a| a.1).collect();
            Recog {
                qualifies: !poisoned[r] && !not_whole[r] && !multi[r] && head.is_some(),
                poisoned: poisoned[r],
                head,
                first,
                last,
                terminal,
                path: paths[r],
                lp: loops[r],
            }
        })
        .collect()
}

/// The target of a provably whole `tile.assemble` (an in-place window
/// write of its first argument: the source has the target's shape, every
/// offset is the constant 0, and the result is on the target's
/// allocation), which the op overwrites without reading it (PyPTO's
/// recognizer: the target's first access is then the write).
fn whole_assemble(
    f: &Function,
    st: &crate::ir::Stmt,
    call: &crate::ir::Call,
    root_index: &dyn Fn(VarId) -> Option<usize>,
) -> Option<VarId> {
    if !crate::ops::lookup_or_default(call.op_name()).writes_window_of_first_arg() {
        return None;
    }
    let target = call.args.first().and_then(Expr::as_var)?;
    let source = call.args.get(1).and_then(Expr::as_var)?;
    let zero = match call.args.get(2)? {
        Expr::List(v) | Expr::Tuple(v) => v.iter().all(|e| e.as_int() == Some(0)),
        _ => false,
    };
    let StmtKind::Assign { targets, .. } = &st.kind else {
        return None;
    };
    let [result] = targets.as_slice() else {
        return None;
    };
    let same_root = root_index(*result).is_some() && root_index(*result) == root_index(target);
    (zero && same_root && same_shape(f, Some(target), Some(source))).then_some(target)
}

/// Whether `prior` hands its bytes to `current` across a pipe change: both
/// qualify on the same structured path, `prior`'s accesses end no later than `current`'s first write,
/// and a terminal access of `prior` runs on a known pipe other than that
/// write's (an uncertain terminal pipe never counts).
pub(crate) fn handoff(prior: &Recog, current: &Recog) -> bool {
    if !(prior.qualifies && current.qualifies)
        || prior.path != current.path
        || prior.last > current.first
    {
        return false;
    }
    let Some(h) = current.head else { return false };
    !prior.terminal.contains(&None) && prior.terminal.iter().flatten().any(|&p| p != h)
}

/// The back-edge rule: `later` and `earlier` lie on one path inside a loop and `later`'s
/// last access of an iteration precedes `earlier`'s first write of the
/// next one.
pub(crate) fn back_edge(earlier: &Recog, later: &Recog) -> bool {
    if earlier.lp.is_none() || earlier.path != later.path || earlier.last > later.first {
        return false;
    }
    let Some(h) = earlier.head else { return false };
    later.qualifies
        && earlier.qualifies
        && !later.terminal.contains(&None)
        && later.terminal.iter().flatten().any(|&p| p != h)
}

/// What [`handoff`] of `earlier` and `later`, or [`back_edge`] of `later`
/// and `earlier`, needs beyond one path, the order of their accesses and
/// (across the back edge) a loop: both qualify, and the clean terminal
/// set of `earlier` holds a pipe other than `later`'s head. The back-edge
/// rule is this test with the roles swapped, so a pair may take a penalty
/// only when `may_pair(a, b) || may_pair(b, a)`. It reads only
/// `qualifies`, `head` and `terminal`, so roots alike in those can be
/// judged together.
pub(crate) fn may_pair(earlier: &Recog, later: &Recog) -> bool {
    earlier.qualifies
        && later.qualifies
        && later.head.is_some_and(|h| {
            !earlier.terminal.contains(&None) && earlier.terminal.iter().flatten().any(|&p| p != h)
        })
}
