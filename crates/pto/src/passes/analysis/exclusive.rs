//! Branch exclusivity: when two allocation roots whose lifetime hulls
//! overlap are still never live at the same time, because one lives only
//! on a path through one branch of an `if` while the other is not live on
//! that path (seed 000: "tiles of different if branches can share"; the
//! hulls of [`super::roots`] do not see it, as an `if` result's reads are
//! charged to the value of each branch, and a value read only in an else
//! branch is charged across the then branch before it).
//!
//! # The branch rule ([`reach`])
//!
//! One read keeps a value live from the value's start to the read
//! (loop-extended, [`ProgramOrder::read_end`]), except in the
//! then branch of each `if` whose else branch holds the read: a path
//! through that then branch never reaches the read. Which else branches
//! count is decided by the blocks around the read, up to the loop the read
//! was extended to: the next iteration of that loop reads again, so on
//! every path through the loop's body the value is still needed (a value
//! defined before a loop and read in the else branch of an `if` inside it
//! is not cut in the then branch). Such a read repeated by a later
//! iteration keeps the value live through the loop's last statement
//! (`2 end + 2`), as the next iteration needs it after that statement
//! wrote: a tile that statement writes may not take its bytes (a value
//! read for the last time by a statement may). The lower bound of the report
//! ([`crate::report::live_values`]) and the occupancies below both apply
//! this one rule.
//!
//! # Occupancy
//!
//! A root's *occupancy* is the union, in program order, of the spans in
//! which some value it holds is live:
//! - a member (an assignment-defined tile whose MemRef names the root):
//!   from its definition to each of its reads, by the branch rule;
//! - a value without a definition of its own, charged to its own root and
//!   to the roots of every value it carries (`carried_from`, followed
//!   through phis of phis): a loop iter arg from its loop's start (the
//!   next iteration reads it again) and over the whole loop unless the
//!   body writes its next value anew into its window ([`rewritten_in_body`]:
//!   then the root is free between the iter arg's last read and that
//!   write, as the yielded value, a member, carries it across the back
//!   edge), a loop result and an `if` result from where
//!   their statement ends (an `if` result before the join sits in the bytes
//!   of the value the taken branch yields, which are members with spans of
//!   their own), a parameter or free variable from the start; each to its
//!   reads by the branch rule.
//!
//! Occupancy may have gaps: a root that holds the then-branch value and
//! the phi is not occupied during the else branch, a root whose value is
//! read only in an else branch is not occupied during the then branch.
//! Two roots whose occupancies are disjoint may share bytes although their
//! hulls overlap: during such a gap the gapped root holds nothing still
//! needed on the path taken. Program-order disjointness is enough inside
//! loops too, as any value live across an iteration covers its whole loop.
//!
//! Read-only and deterministic.

use super::facts::Facts;
use super::order::{carried_from, is_assigned, yielded, Lifetime, ProgramOrder, ReadEnd};
use super::roots::{tile_storage, AllocationLifetimes};
use super::walk::stmts;
use crate::ir::{Block, EntityRef, Expr, Function, MemRef, StmtId, StmtKind, VarDef, VarId};

/// The occupancy of one root: sorted, merged half-open intervals in the
/// DSA_RP model's time scale ([`Lifetime::half_open`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Occupancy(Vec<(u64, u64)>);

impl Occupancy {
    /// The occupancy made of `spans` (closed program-order spans).
    fn of_spans(mut spans: Vec<(u64, u64)>) -> Occupancy {
        spans.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(spans.len());
        for (lo, hi) in spans {
            match merged.last_mut() {
                Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        Occupancy(merged)
    }

    /// Whether the occupancy has a gap (more than one interval); two roots
    /// without gaps are disjoint exactly when their hulls are.
    pub fn has_gap(&self) -> bool {
        self.0.len() > 1
    }

    /// The half-open hull of the occupancy (`None` when empty).
    pub fn hull(&self) -> Option<(u64, u64)> {
        Some((self.0.first()?.0, self.0.last()?.1))
    }

    /// Whether the two occupancies share no instant.
    pub fn disjoint(&self, other: &Occupancy) -> bool {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].0 < b[j].1 && b[j].0 < a[i].1 {
                return false;
            }
            if a[i].1 <= b[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        true
    }
}

/// Where the reads of a function keep values live, by the branch rule
/// (see the module doc), on the half-open scale of
/// [`Lifetime::half_open`]. Every span starts at its value's start; the
/// reads no else branch cuts are kept as one end per value.
#[derive(Clone, Debug, Default)]
pub struct Reach {
    /// Per value (by variable index): the greatest upper end of its
    /// uncut read spans, 0 when it has none.
    pub end: Vec<u64>,
    /// The pieces of the read spans some else branch cuts, sorted by
    /// value (variable index), then span.
    pub pieces: Vec<(VarId, (u64, u64))>,
}

impl Reach {
    /// The spans of value `v` as sorted, merged half-open intervals: from
    /// `own` (its start, a span where it is written) to its uncut reads,
    /// and its cut pieces. `next` is a cursor into
    /// [`pieces`](Self::pieces): call for values in increasing index order
    /// with one cursor, starting at 0.
    pub fn spans_of(&self, v: VarId, own: (u64, u64), next: &mut usize, out: &mut Vec<(u64, u64)>) {
        let first = self.skip_to(v, next);
        out.clear();
        out.push((own.0, own.1.max(self.end[v.index()])));
        for &(_, (lo, hi)) in &self.pieces[first..*next] {
            // Pieces are sorted and start at or after the value's start.
            match out.last_mut() {
                Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
    }

    /// Moves the cursor `next` past the pieces of `v` (and of every value
    /// before it); returns where the pieces of `v` start.
    pub fn skip_to(&self, v: VarId, next: &mut usize) -> usize {
        while *next < self.pieces.len() && self.pieces[*next].0 < v {
            *next += 1;
        }
        let first = *next;
        while *next < self.pieces.len() && self.pieces[*next].0 == v {
            *next += 1;
        }
        first
    }

    /// Whether value `v` was read at all.
    pub fn is_read(&self, v: VarId, first: usize, next: usize) -> bool {
        self.end[v.index()] > 0 || first < next
    }
}

/// The branch rule over every read of `f`: a read of `x` is charged to
/// the value `value_of(x)` names with the index its span starts at
/// (`None`: not charged), and keeps it live from there to the read
/// (loop-extended from `x`'s own definition), less the then branches the
/// blocks around the read exclude.
pub fn reach(
    f: &Function,
    order: &ProgramOrder,
    facts: &Facts,
    value_of: impl Fn(VarId) -> Option<(VarId, u32)>,
) -> Reach {
    let mut chain: Vec<Block> = Vec::new();
    let mut end: Vec<u64> = vec![0; f.vars.len()];
    let mut pieces: Vec<(VarId, (u64, u64))> = Vec::new();
    let mut walk = stmts(f);
    while let Some((_, s)) = walk.next() {
        let st = &f.stmts[s];
        if matches!(st.kind, StmtKind::Comment(_) | StmtKind::Blank) {
            continue;
        }
        chain.clear();
        chain.extend(walk.enclosing(s));
        st.for_each_use(&mut |x| {
            let Some((v, from)) = value_of(x) else { return };
            let read = order.read_end(s, facts.var(x).def);
            let mut span = Lifetime {
                def: from,
                last: read.at.max(from),
            }
            .half_open();
            // Read again by the next iteration: still needed while the
            // loop's last statement writes.
            span.1 = span.1.max(read.instant_end());
            let around = deciding_blocks(&chain, read);
            match excluding_other_branches(f, order, around, span) {
                Some(cut) => pieces.extend(cut.into_iter().map(|p| (v, p))),
                None => end[v.index()] = end[v.index()].max(span.1),
            }
        });
    }
    pieces.sort_unstable_by_key(|&(v, p)| (v.index(), p));
    Reach { end, pieces }
}

/// The blocks whose branches decide on which paths a read happens, by a
/// statement enclosed by `chain` (outermost first), when the read ends at
/// `end`: those around the loop the read was extended to
/// ([`ReadEnd::again_in`]: its next iteration reads again, so the value is
/// live on every path through it), else the whole chain.
fn deciding_blocks(chain: &[Block], end: ReadEnd) -> &[Block] {
    let extended_to = end
        .again_in
        .and_then(|l| chain.iter().position(|&b| b == Block::Loop(l)));
    &chain[..extended_to.unwrap_or(chain.len())]
}

/// `span` without the then branches of the `if`s whose else branch is
/// one of `around` (the blocks around a read): on a path through such a
/// then branch the read does not happen. Branch indices `[a, b]` cover
/// the instants `[2a + 1, 2b + 2)`. `None` when no else branch is around
/// the read (the span stays whole).
fn excluding_other_branches(
    f: &Function,
    order: &ProgramOrder,
    around: &[Block],
    span: (u64, u64),
) -> Option<Vec<(u64, u64)>> {
    let mut pieces = vec![span];
    let mut cut_any = false;
    for &b in around {
        let Block::Else(owner) = b else { continue };
        if let StmtKind::If(i) = &f.stmts[owner].kind {
            if let (Some(&first), Some(&last)) = (i.then_body.first(), i.then_body.last()) {
                cut_any = true;
                let cut = (
                    2 * u64::from(order.index[first]) + 1,
                    2 * u64::from(order.end[last]) + 2,
                );
                pieces = pieces
                    .into_iter()
                    .flat_map(|(lo, hi)| {
                        let before = (lo, hi.min(cut.0));
                        let after = (lo.max(cut.1), hi);
                        [before, after].into_iter().filter(|&(a, b)| a < b)
                    })
                    .collect();
            }
        }
    }
    cut_any.then_some(pieces)
}

/// The occupancy of every root of `lt`, indexed by
/// [`RootId`](super::roots::RootId).
pub fn occupancies(
    f: &Function,
    lt: &AllocationLifetimes,
    facts: &Facts,
    order: &ProgramOrder,
) -> Vec<Occupancy> {
    // Where each value's span starts: a member at its definition, a loop
    // iter arg at its loop, a loop or `if` result where its statement
    // ends, a parameter or free variable at the start.
    let start = |v: VarId| -> Option<u32> {
        if is_assigned(f, v).is_some() {
            return lt.root_of(v).and(facts.var(v).def);
        }
        match f.vars[v].def {
            VarDef::IterArg(s) => Some(order.index[s]),
            VarDef::Stmt(s) if matches!(f.stmts[s].kind, StmtKind::For(_) | StmtKind::If(_)) => {
                Some(order.end[s])
            }
            VarDef::Param(_) | VarDef::Free => Some(0),
            _ => None,
        }
    };
    let reach = reach(f, order, facts, |x| start(x).map(|d| (x, d)));
    let mut spans: Vec<Vec<(u64, u64)>> = vec![Vec::new(); lt.roots.len()];
    let mut next = 0;
    let mut own: Vec<(u64, u64)> = Vec::new();
    for v in f.vars.keys() {
        let Some(from) = start(v) else { continue };
        let at = Lifetime {
            def: from,
            last: from,
        }
        .half_open();
        if is_assigned(f, v).is_some() {
            reach.spans_of(v, at, &mut next, &mut own);
            if let Some(r) = lt.root_of(v) {
                spans[r.index()].extend_from_slice(&own);
            }
            continue;
        }
        let first = reach.skip_to(v, &mut next);
        let unread = !reach.is_read(v, first, next);
        if unread && matches!(f.vars[v].def, VarDef::Param(_) | VarDef::Free) {
            // A parameter never read holds nothing.
            continue;
        }
        next = first;
        reach.spans_of(v, at, &mut next, &mut own);
        if let VarDef::IterArg(s) = f.vars[v].def {
            if !rewritten_in_body(f, lt, v, s) {
                // The whole loop: the next iteration reads it again, and
                // nothing shows when its bytes are written anew.
                let whole = Lifetime {
                    def: order.index[s],
                    last: order.end[s],
                };
                own.push(whole.half_open());
            }
        }
        for r in lt.carrying_roots(f, v) {
            spans[r.index()].extend_from_slice(&own);
        }
    }
    spans.into_iter().map(Occupancy::of_spans).collect()
}

/// Whether the carry of iter arg `v` of loop `s` is written anew, on
/// every path, into the very bytes the next iteration reads as `v`: the
/// value the body yields for it is a tile defined by a statement of the
/// body's own block (not of a branch, so every iteration writes it),
/// member of the one root that carries `v`, on `v`'s window (same base,
/// constant offset and size). Then the root holds nothing still needed
/// between `v`'s last read in the body and that definition: `v` is dead
/// there and the next iteration reads the yielded value, whose own span
/// runs from its definition to the yield, the body's last statement
/// (seed 000, step 7 of MemoryReuse: init value, iter arg, yield value
/// and loop result share one MemRef). An in-place or retargeted carry,
/// written by the statement that reads `v` last or before, leaves no gap.
/// A yield of another iter arg, a phi or a value defined before the loop
/// tells nothing about when the bytes are written: the whole loop stays.
pub fn rewritten_in_body(f: &Function, lt: &AllocationLifetimes, v: VarId, s: StmtId) -> bool {
    let StmtKind::For(l) = &f.stmts[s].kind else {
        return false;
    };
    let Some(k) = l.iter_args.iter().position(|&a| a == v) else {
        return false;
    };
    let Some(y) = yielded(f, Block::Loop(s))
        .and_then(|vals| vals.get(k))
        .and_then(Expr::as_var)
    else {
        return false;
    };
    let Some(def) = is_assigned(f, y) else {
        return false;
    };
    if !f.block(Block::Loop(s)).contains(&def) {
        return false;
    }
    let [r] = lt.carrying_roots(f, v)[..] else {
        return false;
    };
    if lt.root_of(y) != Some(r) {
        return false;
    }
    // The window the next iteration reads: the iter arg's own, else its
    // init value's.
    let carried = tile_storage(f, v)
        .or_else(|| carried_from(f, v).first().and_then(|&i| tile_storage(f, i)))
        .map(|(m, _)| m);
    let window = |m: &MemRef| (m.base(), m.const_offset(), m.size());
    match (carried, tile_storage(f, y)) {
        (Some(a), Some((b, _))) => {
            a.const_offset().is_some() && a.size().is_some() && window(a) == window(b)
        }
        _ => false,
    }
}
