//! Address assignment within one memory space: the reference's outline
//! allocator with speculative levels and roll-back (`MemPlan::SpecAlloc`,
//! `MultiSpecPlan`, `ApplyFailStrategy`, `RollBackForAllocFail`).
//!
//! The outline is the space cut into bounds, each remembering the
//! lifetimes of the entries placed in it. Entries are placed in order
//! (root first); each tries levels from high to low and takes the first
//! bound run, lowest address first, that is large enough and passes the
//! level's checks:
//! - level 0 (every level): no lifetime overlap with what the run holds,
//!   `mem_unique` buffers overlapping nothing (memory-based pass: an
//!   overlap of one instant between buffers recorded as in-place
//!   candidates that would stall the pipeline is allowed);
//! - level 1: a single run already holding a multi-buffered entry of the
//!   same loop whose other slots are free for this entry's lifetime: the
//!   entry is upgraded to the same number of slots, placed at the same
//!   offsets;
//! - level 2: no overlap, in address, with an entry of the same loop;
//! - level 3: no overlap, in address, with an entry when either is a DMA
//!   buffer (pipe conflict).
//!
//! A plan at level 3 alone is tried first (with unbounded space; when it
//! fits no DMA buffer is reused); when it does not fit, entries are placed
//! one by one, each at the highest level that works. When an entry fits
//! nowhere, placed entries are rolled back, newest first (slots of one
//! multi-buffer together), to the latest one placed above the lowest level;
//! planning resumes from it one level lower, never at the address it had.
//! When nothing is left to roll back, planning restarts once with split
//! bounds (an entry may span bounds it only partly covers); after that the
//! space overflows, reported with the size a level-0 plan needs.

use std::rc::Rc;

use super::gen_kill::BufferLife;
use crate::ir::ValueId;

/// The buffers of an overlap: the later-born first (see
/// `MemPlan::overlap`).
pub type LifePair = (Option<ValueId>, Option<ValueId>);
use super::storage::{align_up, merge_lifes, SeId};
use super::MemPlan;

/// Level: reuse by lifetime only.
pub const LEVEL_0: i32 = 0;
/// Level: single buffers join multi-buffers of the same loop.
pub const LEVEL_1: i32 = 1;
/// Level: no reuse within one loop.
pub const LEVEL_2: i32 = 2;
/// Level: no reuse across DMA buffers.
pub const LEVEL_3: i32 = 3;

/// A bound of the outline (`MemoryBound`).
#[derive(Debug)]
pub struct Bound {
    lifes: Vec<BufferLife>,
    offset: u64,
    extent: u64,
    last: Option<SeId>,
}

/// The outline (`MemBoundList`); bounds are shared with the history.
pub type Outline = Vec<Rc<Bound>>;

/// One placement, for roll-back (`PlanRecord`).
#[derive(Debug, Clone)]
pub struct Record {
    level: i32,
    child_idx: i32,
    tailed: bool,
    split: usize,
    entry: SeId,
    extent: u64,
    first: Rc<Bound>,
    replaced: Vec<Rc<Bound>>,
    directly: bool,
    /// Index key in [`History`].
    seq: u64,
    /// The entry holds a DMA buffer.
    dma: bool,
    /// The entry's innermost loop.
    lp: Option<crate::ir::OpId>,
}

/// Address ranges of placements, sorted by start, with their union as
/// disjoint intervals (rebuilt after a change, on the next query): "does
/// any range meet `[offset, offset + n)`, and up to where?" in
/// logarithmic time.
#[derive(Debug, Default)]
struct Ranges {
    items: Vec<(u64, u64, u64)>,
    merged: std::cell::RefCell<Option<Vec<(u64, u64)>>>,
}

impl Ranges {
    fn insert(&mut self, start: u64, seq: u64, end: u64) {
        let i = self
            .items
            .partition_point(|&(s, q, _)| (s, q) < (start, seq));
        self.items.insert(i, (start, seq, end));
        *self.merged.get_mut() = None;
    }

    fn remove(&mut self, start: u64, seq: u64) {
        let i = self
            .items
            .partition_point(|&(s, q, _)| (s, q) < (start, seq));
        if self
            .items
            .get(i)
            .is_some_and(|&(s, q, _)| (s, q) == (start, seq))
        {
            self.items.remove(i);
            *self.merged.get_mut() = None;
        }
    }

    /// When a range has `start < offset + n` and `end > offset` (the
    /// reference's test): the end of the union interval it lies in. Every
    /// offset below that end conflicts too.
    fn hit_until(&self, offset: u64, n: u64) -> Option<u64> {
        let mut cache = self.merged.borrow_mut();
        let merged = cache.get_or_insert_with(|| {
            let mut u: Vec<(u64, u64)> = Vec::new();
            for &(s, _, e) in &self.items {
                if s >= e {
                    continue;
                }
                match u.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => u.push((s, e)),
                }
            }
            u
        });
        let i = merged.partition_point(|&(_, e)| e <= offset);
        let &(s, e) = merged.get(i)?;
        (s < offset.wrapping_add(n)).then_some(e)
    }
}

/// The placements so far (`PlanRecHis`), newest last, indexed by the
/// conflict relations of levels 2 and 3.
#[derive(Debug, Default)]
pub struct History {
    recs: Vec<Record>,
    all: Ranges,
    dma: Ranges,
    loops: std::collections::HashMap<Option<crate::ir::OpId>, Ranges>,
    planned: std::collections::HashMap<SeId, u32>,
    seq: u64,
}

impl History {
    fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    fn has(&self, e: SeId) -> bool {
        self.planned.get(&e).is_some_and(|&n| n > 0)
    }

    fn pop(&mut self) -> Option<Record> {
        let r = self.recs.pop()?;
        let start = r.first.offset;
        self.all.remove(start, r.seq);
        if r.dma {
            self.dma.remove(start, r.seq);
        }
        if let Some(l) = self.loops.get_mut(&r.lp) {
            l.remove(start, r.seq);
        }
        if let Some(n) = self.planned.get_mut(&r.entry) {
            *n = n.saturating_sub(1);
        }
        Some(r)
    }
}

/// Speculation state (`SpecInfo`).
#[derive(Debug, Clone, Copy)]
pub struct SpecInfo {
    max_level: i32,
    min_level: i32,
    level: i32,
    child_idx: i32,
    start_idx: i32,
    rollback_idx: i32,
    rollback_addr: u64,
}

impl Default for SpecInfo {
    fn default() -> Self {
        SpecInfo {
            max_level: LEVEL_3,
            min_level: LEVEL_0,
            level: LEVEL_3,
            child_idx: -1,
            start_idx: 0,
            rollback_idx: -1,
            rollback_addr: u64::MAX,
        }
    }
}

/// Outcome of a failed placement (`PlanStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fail {
    Continue,
    Restart,
    Failed,
}

/// Why a space could not be planned.
#[derive(Debug, Clone)]
pub struct Overflow {
    /// The memory space.
    pub scope: String,
    /// Bits a plan needs (level 0, unbounded).
    pub required: u64,
}

fn bound(lifes: Vec<BufferLife>, offset: u64, extent: u64, last: Option<SeId>) -> Rc<Bound> {
    Rc::new(Bound {
        lifes,
        offset,
        extent,
        last,
    })
}

impl MemPlan<'_> {
    /// `PlanMemAddressOfWholeLocalBuffer`.
    pub fn plan_local_spaces(&mut self) -> Result<(), Overflow> {
        for (scope, root) in self.roots.clone() {
            let Ok((align, max_bits)) = self.space_info(&scope) else {
                continue;
            };
            let required = self.required.get(&scope).copied().unwrap_or(0);
            if required <= max_bits {
                self.plan_without_reuse(root, align);
                self.planned.push(scope);
                continue;
            } else if self.se[root].children.is_empty() {
                return Err(Overflow { scope, required });
            }
            let mut si = SpecInfo::default();
            let root = self.reorder_root(root);
            let max_alloc = self.plan_single_level(root, si.max_level);
            if max_alloc <= max_bits {
                self.planned.push(scope);
                continue;
            }
            let mut outline: Outline = vec![bound(Vec::new(), 0, max_bits, None)];
            let mut his = History::default();
            let n = self.se[root].children.len() as i32;
            let mut cur = root;
            while si.child_idx < n {
                self.se[cur].aligned = align_up(self.bits(cur), align);
                self.se[cur].child_idx = si.child_idx;
                if !self.multi_spec_plan(&mut si, &mut outline, &mut his, cur) {
                    let aligned = self.se[cur].aligned;
                    match self.apply_fail(&mut si, &mut outline, &mut his, root, aligned, max_bits)
                    {
                        Fail::Restart => {
                            si = SpecInfo::default();
                            cur = root;
                            continue;
                        }
                        Fail::Failed => {
                            let required = self.plan_single_level(root, LEVEL_0);
                            return Err(Overflow { scope, required });
                        }
                        Fail::Continue => {}
                    }
                }
                if si.child_idx >= n {
                    break;
                }
                cur = self.child(root, si.child_idx);
            }
            self.stdout.push_str(&format!(
                "warning: [hivm-plan-memory] There reused some dma buffers in {scope} address space, which may stall pipe. Not reusing dma buffer needs {max_alloc} bits while {max_bits} bits available!\n"
            ));
            self.planned.push(scope);
        }
        Ok(())
    }

    fn child(&self, root: SeId, idx: i32) -> SeId {
        if idx < 0 {
            root
        } else {
            self.se[root].children[idx as usize]
        }
    }

    /// Places `root` and then each of its children, in order, from an
    /// empty outline with `multi_spec_plan` starting at `si` (the loop of
    /// `PlanMemAddressForSingleLevel` and of the workspace plan). Stops
    /// when a step finds no room (unbounded space always has room; this
    /// keeps the loop finite).
    fn plan_entries_in_order(&mut self, root: SeId, align: u64, mut si: SpecInfo) {
        let mut outline: Outline = vec![bound(Vec::new(), 0, u64::MAX, None)];
        let mut his = History::default();
        let n = self.se[root].children.len() as i32;
        let mut cur = root;
        while si.child_idx < n {
            self.se[cur].aligned = align_up(self.bits(cur), align);
            self.se[cur].child_idx = si.child_idx;
            if !self.multi_spec_plan(&mut si, &mut outline, &mut his, cur) {
                break;
            }
            if si.child_idx >= n {
                break;
            }
            cur = self.child(root, si.child_idx);
        }
    }

    /// `PlanMemAddressForSingleLevel`: a plan at one level in unbounded
    /// space; returns the bits it uses.
    pub fn plan_single_level(&mut self, root: SeId, level: i32) -> u64 {
        let scope = self.scope(root);
        let align = self.space_info(&scope).map_or(1, |s| s.0);
        let root = self.reorder_root(root);
        self.plan_entries_in_order(
            root,
            align,
            SpecInfo {
                level,
                max_level: level,
                min_level: level,
                ..SpecInfo::default()
            },
        );
        let mut max_alloc = self.se[root].aligned;
        for c in self.se[root].children.clone() {
            max_alloc = max_alloc.max(self.se[c].offset.wrapping_add(self.se[c].aligned));
        }
        max_alloc
    }

    /// `MultiSpecPlan`: the highest level that places `e`.
    fn multi_spec_plan(
        &mut self,
        si: &mut SpecInfo,
        outline: &mut Outline,
        his: &mut History,
        e: SeId,
    ) -> bool {
        let top = si.level;
        let mut level = top;
        while level >= si.min_level {
            if self.spec_alloc(outline, his, e, si, level) {
                if si.child_idx == si.start_idx {
                    si.level = si.max_level;
                }
                si.child_idx += 1;
                return true;
            }
            level -= 1;
        }
        false
    }

    /// `SpecAlloc`: places `e` at `level` if some bound run allows it.
    fn spec_alloc(
        &mut self,
        outline: &mut Outline,
        his: &mut History,
        e: SeId,
        si: &SpecInfo,
        level: i32,
    ) -> bool {
        if his.has(e) {
            return true;
        }
        if self.se[e].aligned == 0 {
            self.se[e].offset = 0;
            return true;
        }
        let mut start = 0usize;
        // The last scan for a bound free of level-2/3 conflicts: (from,
        // first free bound at or after it). Neither the outline nor the
        // history changes within this call.
        let mut memo: Option<(usize, Option<usize>)> = None;
        while start < outline.len() {
            let mut size: u64 = 0;
            let alloc_offset = outline[start].offset;
            let mut end = start;
            while end < outline.len() {
                let last = outline[end].clone();
                size = size.wrapping_add(last.extent);
                if self.same_as_last_rollback(alloc_offset, self.se[e].child_idx, si)
                    || self.conflict_level0(e, &last)
                {
                    start = end;
                    break;
                }
                if size < self.se[e].aligned {
                    end += 1;
                    continue;
                }
                let mut others: Vec<u64> = Vec::new();
                if level == LEVEL_1
                    && self.conflict_level1(outline, his, e, start, end, &mut others)
                {
                    break;
                }
                if level == LEVEL_2
                    && self.conflict_common(his, e, &mut start, outline, true, &mut memo)
                {
                    break;
                }
                if level == LEVEL_3
                    && self.conflict_common(his, e, &mut start, outline, false, &mut memo)
                {
                    break;
                }
                self.se[e].offset = alloc_offset;
                self.update_outline(outline, his, e, start, end, size, false, level);
                if level == LEVEL_1 {
                    self.assign_other_slots(&others, e);
                    for off in others {
                        self.place_other_slot(outline, his, e, off);
                    }
                }
                return true;
            }
            start += 1;
        }
        false
    }

    fn same_as_last_rollback(&self, offset: u64, child_idx: i32, si: &SpecInfo) -> bool {
        child_idx == si.rollback_idx && offset == si.rollback_addr
    }

    /// `GetOverlapBufferLife`: the instants two lifetime lists share, keyed
    /// by buffer pair (the later-born first when it starts the overlap and
    /// the other ends it); the first overlap of a pair is kept.
    pub(crate) fn overlap(
        &self,
        b1: &[BufferLife],
        b2: &[BufferLife],
    ) -> Vec<(LifePair, BufferLife)> {
        let mut out: Vec<(LifePair, BufferLife)> = Vec::new();
        if self.regbase() {
            if b1.is_empty() || b2.is_empty() {
                return out;
            }
            let i1 = b1[0].buffer.and_then(|b| self.lt.info(b));
            let i2 = b2[0].buffer.and_then(|b| self.lt.info(b));
            let unique = i1.is_some_and(|i| i.memory_unique) || i2.is_some_and(|i| i.memory_unique);
            if unique {
                let (a, b) = (
                    i1.map_or(-1, |i| i.cv_mix_id),
                    i2.map_or(-1, |i| i.cv_mix_id),
                );
                let safe = a >= 0 && b >= 0 && a != b && self.cv_allowed.contains(&(a, b));
                if !safe {
                    let life = BufferLife {
                        buffer: None,
                        alloc: -1,
                        free: -1,
                    };
                    out.push(((b1[0].buffer, b2[0].buffer), life));
                    return out;
                }
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < b1.len() && j < b2.len() {
            let lo = b1[i].alloc.max(b2[j].alloc);
            let hi = b1[i].free.min(b2[j].free);
            if lo <= hi {
                let key = if lo == b1[i].alloc && hi == b2[j].free {
                    (b1[i].buffer, b2[j].buffer)
                } else {
                    (b2[j].buffer, b1[i].buffer)
                };
                if !out.iter().any(|(k, _)| *k == key) {
                    let life = BufferLife {
                        buffer: None,
                        alloc: lo,
                        free: hi,
                    };
                    out.push((key, life));
                }
            }
            if b1[i].free < b2[j].free {
                i += 1;
            } else {
                j += 1;
            }
        }
        out
    }

    /// `VerifyConflictStage0`: true when `e` may not share `last`.
    fn conflict_level0(&self, e: SeId, last: &Bound) -> bool {
        let el = &self.se[e].lifes;
        if self.regbase() {
            return !self.overlap(el, &last.lifes).is_empty();
        }
        if el.is_empty() || last.lifes.is_empty() {
            return false;
        }
        let unique = |l: &BufferLife| {
            l.buffer
                .and_then(|b| self.lt.info(b))
                .is_some_and(|i| i.memory_unique)
        };
        if unique(&el[0]) || unique(&last.lifes[0]) {
            return true;
        }
        let inter = self.overlap(el, &last.lifes);
        for &((a, b), life) in &inter {
            if life.alloc != life.free {
                return true;
            }
            let (Some(a), Some(b)) = (a, b) else {
                return true;
            };
            if !self.inplacable_matched(a, b) {
                return true;
            }
        }
        false
    }

    /// `IsInplacableBufferPairMatched`.
    fn inplacable_matched(&self, a: ValueId, b: ValueId) -> bool {
        let (Some(&sa), Some(&sb)) = (self.buffer2se.get(&a), self.buffer2se.get(&b)) else {
            return false;
        };
        for &x in &self.se[sa].inplace {
            for &y in &self.se[sb].inplace {
                if self
                    .inplacable
                    .iter()
                    .any(|&(p, q)| (x == p && y == q) || (x == q && y == p))
                {
                    return true;
                }
            }
        }
        false
    }

    /// `IsBufferLifeVecConflict`.
    fn record_conflicts(&self, r: &Record, offset: u64, e: SeId) -> bool {
        let a = &self.se[e];
        if r.first.offset.wrapping_add(r.extent) > offset
            && r.first.offset < offset.wrapping_add(a.aligned)
        {
            return !self.overlap(&self.se[r.entry].lifes, &a.lifes).is_empty();
        }
        false
    }

    /// `VerifyConflictStage1`: true unless `e` can take the slots of the
    /// multi-buffer in the single bound `start`; fills their offsets.
    fn conflict_level1(
        &mut self,
        outline: &Outline,
        his: &History,
        e: SeId,
        start: usize,
        end: usize,
        others: &mut Vec<u64>,
    ) -> bool {
        if start != end {
            return true;
        }
        let Some(reuse) = outline[start].last else {
            return true;
        };
        let mut slots: Vec<SeId> = Vec::new();
        if self.se[reuse].mb > 1 {
            for &r in &self.se[reuse].others {
                if self.se[r].offset != 0 {
                    slots.push(r);
                }
            }
        } else if let Some(list) = self.relation_others.get(&reuse) {
            for &o in list {
                if self.se[o].offset != 0 {
                    slots.push(o);
                }
            }
        }
        if slots.is_empty() {
            return true;
        }
        let l1 = self.entry_loop(e);
        let l2 = self.entry_loop(reuse);
        if !(l1.is_some() && l2.is_some() && l1 == l2) {
            return true;
        }
        let mb = self.se[e].mb;
        if mb > 1 && (slots.len() < (mb - 1) as usize || self.se[e].others.is_empty()) {
            return true;
        }
        for s in slots {
            let off = self.se[s].offset;
            if his.recs.iter().any(|r| self.record_conflicts(r, off, e)) {
                others.clear();
                return true;
            }
            others.push(off);
        }
        false
    }

    /// `PlanRelationOtherBufferEntryAddress`: `e`'s slots (existing other
    /// slots first, new ones for a single buffer after) take `offsets`.
    fn assign_other_slots(&mut self, offsets: &[u64], e: SeId) {
        let mb = self.se[e].mb as usize;
        for i in 1..mb {
            if i > self.se[e].others.len() || i > offsets.len() {
                continue;
            }
            let r = self.se[e].others[i - 1];
            self.se[r].offset = offsets[i - 1];
        }
        let mut created = Vec::new();
        for &off in offsets.iter().skip(mb.saturating_sub(1)) {
            let src = self.se[e].clone();
            let id = self.se.len();
            self.se.push(super::storage::StorageEntry {
                children: Vec::new(),
                others: Vec::new(),
                first: None,
                offset: off,
                applied_level: -1,
                ..src
            });
            created.push(id);
        }
        self.relation_others.insert(e, created);
    }

    /// `SpecAllocRelationOtherBufferEntry`: puts the slot of `e` at
    /// `offset` into the outline.
    fn place_other_slot(&mut self, outline: &mut Outline, his: &mut History, e: SeId, offset: u64) {
        let mut start = 0;
        while start < outline.len() {
            if outline[start].offset != offset {
                start += 1;
                continue;
            }
            let mut size: u64 = 0;
            let mut end = start;
            while end < outline.len() {
                size = size.wrapping_add(outline[end].extent);
                if size < self.se[e].aligned {
                    end += 1;
                    continue;
                }
                let mut slot = self
                    .relation_others
                    .get(&e)
                    .and_then(|v| v.iter().copied().find(|&o| self.se[o].offset == offset));
                if slot.is_none() && self.se[e].mb > 1 {
                    slot = self.se[e]
                        .others
                        .iter()
                        .copied()
                        .find(|&o| self.se[o].offset == offset);
                }
                if let Some(slot) = slot {
                    self.update_outline(outline, his, slot, start, end, size, true, LEVEL_1);
                }
                return;
            }
            start += 1;
        }
    }

    /// `VerifyConflictStageCommon` for level 2 (`same_loop`) and level 3
    /// (pipe conflict): true when `e` must move; `start` then points right
    /// before the first bound where nothing conflicts.
    fn conflict_common(
        &mut self,
        his: &History,
        e: SeId,
        start: &mut usize,
        outline: &Outline,
        same_loop: bool,
        memo: &mut Option<(usize, Option<usize>)>,
    ) -> bool {
        let aligned = self.se[e].aligned;
        let known = match *memo {
            Some((from, Some(f))) if from <= *start && *start <= f => Some(Some(f)),
            Some((from, None)) if from <= *start => Some(None),
            _ => None,
        };
        if let Some(found) = known {
            return match found {
                Some(f) => {
                    let moved = f != *start;
                    if moved {
                        *start = f - 1;
                    }
                    moved
                }
                None => true,
            };
        }
        let from = *start;
        // The placements that conflict with `e` do not depend on the bound:
        // at level 2 those of `e`'s loop, at level 3 all of them when `e`
        // holds a DMA buffer, else the DMA ones.
        let empty = Ranges::default();
        let ranges = if same_loop {
            let l = self.entry_loop(e);
            his.loops.get(&l).unwrap_or(&empty)
        } else if self.entry_is_dma(e) {
            &his.all
        } else {
            &his.dma
        };
        let mut found = None;
        let mut it = *start;
        while it < outline.len() {
            if let Some(until) = ranges.hit_until(outline[it].offset, aligned) {
                // The bounds below `until` conflict as well.
                it += outline[it..].partition_point(|b| b.offset < until).max(1);
                continue;
            }
            if it == outline.len() - 1 && outline[it].extent < aligned {
                it += 1;
                continue;
            }
            found = Some(it);
            break;
        }
        *memo = Some((from, found));
        match found {
            Some(f) => {
                let moved = f != *start;
                if moved {
                    *start = f - 1;
                }
                moved
            }
            None => true,
        }
    }

    /// Whether entry `e` holds a DMA buffer (cached per entry): at level
    /// 3 (`PipeConflict`) two entries conflict when either does.
    pub(super) fn entry_is_dma(&mut self, e: SeId) -> bool {
        if self.dma_cache.len() <= e {
            self.dma_cache.resize(self.se.len().max(e + 1), None);
        }
        if let Some(d) = self.dma_cache[e] {
            return d;
        }
        let d = self.se[e].inplace.iter().any(|&b| self.dma.is_dma(b));
        self.dma_cache[e] = Some(d);
        d
    }

    /// The innermost loop of an entry's buffers (cached per entry): at
    /// level 2 (`PipeConflictInSameLoop`) two entries conflict when they
    /// share it (or both have none).
    pub(super) fn entry_loop(&mut self, e: SeId) -> Option<crate::ir::OpId> {
        if self.loop_cache.len() <= e {
            self.loop_cache.resize(self.se.len().max(e + 1), None);
        }
        if let Some(l) = self.loop_cache[e] {
            return l;
        }
        let l = self.buffer_parent_loop(&self.se[e].inplace.clone());
        self.loop_cache[e] = Some(l);
        l
    }

    /// `UpdateOutline`: `e` takes bounds `start..=end`; a tail keeps the
    /// rest of the last bound.
    #[allow(clippy::too_many_arguments)]
    fn update_outline(
        &mut self,
        outline: &mut Outline,
        his: &mut History,
        e: SeId,
        start: usize,
        end: usize,
        size: u64,
        directly: bool,
        level: i32,
    ) {
        let aligned = self.se[e].aligned;
        let res = size.wrapping_sub(aligned);
        let last = outline[end].clone();
        let mut split: Vec<Rc<Bound>> = Vec::new();
        if self.split_outline {
            let n = end + 1 - start;
            for (k, b) in outline[start..=end].iter().enumerate() {
                let mut life = self.se[e].lifes.clone();
                life.extend(b.lifes.iter().copied());
                merge_lifes(&mut life);
                let ext = if k == n - 1 {
                    self.se[e]
                        .offset
                        .wrapping_add(aligned)
                        .wrapping_sub(b.offset)
                } else {
                    b.extent
                };
                split.push(bound(life, b.offset, ext, Some(e)));
            }
        } else {
            let mut life = self.se[e].lifes.clone();
            for b in &outline[start..=end] {
                life.extend(b.lifes.iter().copied());
            }
            merge_lifes(&mut life);
            split.push(bound(life, self.se[e].offset, aligned, Some(e)));
        }
        let mut new = split.clone();
        if res > 0 {
            new.push(bound(
                last.lifes.clone(),
                last.offset.wrapping_add(last.extent).wrapping_sub(res),
                res,
                last.last,
            ));
        }
        let replaced: Vec<Rc<Bound>> = outline.splice(start..=end, new).collect();
        let (dma, lp) = (self.entry_is_dma(e), self.entry_loop(e));
        his.seq += 1;
        let seq = his.seq;
        let first = split[0].clone();
        let (s0, e0) = (first.offset, first.offset.wrapping_add(aligned));
        his.all.insert(s0, seq, e0);
        if dma {
            his.dma.insert(s0, seq, e0);
        }
        his.loops.entry(lp).or_default().insert(s0, seq, e0);
        *his.planned.entry(e).or_insert(0) += 1;
        his.recs.push(Record {
            level,
            child_idx: self.se[e].child_idx,
            tailed: res > 0,
            split: split.len(),
            entry: e,
            extent: aligned,
            first,
            replaced,
            directly,
            seq,
            dma,
            lp,
        });
        self.se[e].applied_level = level;
    }

    /// `RollbackOutline`: undoes the newest placement.
    fn rollback_outline(his: &mut History, outline: &mut Outline) -> Option<Record> {
        let r = his.pop()?;
        let at = outline
            .iter()
            .position(|b| Rc::ptr_eq(b, &r.first))
            .unwrap_or(outline.len());
        let remove = r.split + usize::from(r.tailed);
        let end = (at + remove).min(outline.len());
        outline.splice(at..end, r.replaced.iter().cloned());
        Some(r)
    }

    /// `ShouldRollbackMuiltiBuffer`: slots placed with their first buffer
    /// at level 1, or at the level the first buffer was placed, go back
    /// with it.
    fn rolls_with_multi_buffer(&self, r: &Record) -> bool {
        if r.directly {
            return true;
        }
        let e = &self.se[r.entry];
        if e.mb > 1 && e.others.is_empty() {
            if let Some(first) = e.first {
                let fl = self.se[first].applied_level;
                if fl >= LEVEL_0 && r.level == fl {
                    return true;
                }
            }
        }
        false
    }

    /// `ApplyFailStrategy`.
    #[allow(clippy::too_many_arguments)]
    fn apply_fail(
        &mut self,
        si: &mut SpecInfo,
        outline: &mut Outline,
        his: &mut History,
        root: SeId,
        aligned: u64,
        max_bits: u64,
    ) -> Fail {
        let mut enough = false;
        while !enough && !his.is_empty() && !outline.is_empty() {
            if si.child_idx > si.start_idx {
                si.start_idx = si.child_idx;
            }
            while !his.is_empty() {
                let Some(r) = Self::rollback_outline(his, outline) else {
                    break;
                };
                self.relation_others.remove(&r.entry);
                if self.rolls_with_multi_buffer(&r) {
                    continue;
                }
                si.child_idx = r.child_idx;
                si.level = r.level;
                if si.level > si.min_level {
                    si.rollback_addr = if si.child_idx == -1 {
                        u64::MAX
                    } else {
                        self.se[self.child(root, si.child_idx)].offset
                    };
                    si.rollback_idx = si.child_idx;
                    if si.rollback_addr.wrapping_add(aligned) > max_bits {
                        continue;
                    }
                    enough = true;
                    break;
                }
            }
        }
        if si.level > LEVEL_0 && si.child_idx >= 0 {
            si.level -= 1;
            return Fail::Continue;
        }
        if !self.split_outline {
            self.split_outline = true;
            return Fail::Restart;
        }
        Fail::Failed
    }

    /// `GetReorderRootStorageEntry`: in UB, `mem_unique` entries first, then
    /// DMA buffers, then the others, then scalar buffers (each group by size
    /// with `plan-memory-strategy=largest-first`); a multi-buffer's slots
    /// stay together. Returns the new root.
    pub fn reorder_root(&mut self, root: SeId) -> SeId {
        if self.scope(root) != "ub" {
            return root;
        }
        let mut all = vec![root];
        all.extend(self.se[root].children.iter().copied());
        let (mut uniq, mut dma, mut scalar, mut other) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for e in all {
            let mut placed = false;
            for &b in &self.se[e].inplace {
                let info = self.lt.info(b);
                if info.is_some_and(|i| i.memory_unique) {
                    uniq.push(e);
                    placed = true;
                    break;
                }
                if self.dma.is_dma(b) {
                    dma.push(e);
                    placed = true;
                    break;
                }
                if self.dma.is_scalar(b) {
                    scalar.push(e);
                    placed = true;
                    break;
                }
            }
            if !placed {
                other.push(e);
            }
        }
        if self.opts.largest_first {
            for v in [&mut dma, &mut scalar, &mut other] {
                v.sort_by_key(|&e| std::cmp::Reverse(self.bits(e)));
            }
        }
        let mut ordered = uniq;
        ordered.extend(dma);
        ordered.extend(other);
        ordered.extend(scalar);
        // ReorderContinuousFirstBufferOtherBufferEntry
        let mut cont: Vec<SeId> = Vec::new();
        for e in ordered {
            if cont.contains(&e) {
                continue;
            }
            cont.push(e);
            for &r in &self.se[e].others {
                if !cont.contains(&r) {
                    cont.push(r);
                }
            }
        }
        let new_root = cont[0];
        self.se[new_root].children = cont[1..].to_vec();
        new_root
    }

    /// `PlanMemOffsetOfWholeWorkSpace`: per workspace argument, one after
    /// another, or reused by lifetime with `enable-global-workspace-reuse`.
    pub fn plan_workspace(&mut self) {
        let align = if self.regbase() { 1 } else { 256 };
        for (_, root) in self.roots.clone() {
            if !self.opts.global_reuse {
                self.se[root].offset = 0;
                let mut off = align_up(self.bits(root), align);
                for c in self.se[root].children.clone() {
                    self.se[c].offset = off;
                    off += align_up(self.bits(c), align);
                }
                continue;
            }
            let mut si = SpecInfo::default();
            si.level = si.min_level;
            self.plan_entries_in_order(root, align, si);
        }
    }
}
