//! MLIR's `Liveness` analysis over one operation (a function), with the
//! same answers and the same iteration orders.
//!
//! For every block nested in the root it computes the live-in and live-out
//! sets (`BlockInfoBuilder`: a value used in a nested region counts as used
//! by its ancestor op in the block; blocks of one region exchange values
//! through successors, to a fixpoint). On top of them:
//! - [`Liveness::is_dead_after`] (`Liveness::isDeadAfter`): no use of the
//!   value after the op in the op's block, and not live-out;
//! - [`Liveness::currently_live`] (`LivenessBlockInfo::currentlyLiveValues`,
//!   ordered as PlanMemory's `currentlyLiveValuesOrdered`): block arguments,
//!   then live-ins in set order, then op results in block order, each kept
//!   when the op lies within its live range in the block (start: block
//!   front for arguments and live-ins, else the defining op's ancestor;
//!   end: block back when live-out, else its last use after the start).
//!
//! Positions come from the module's program order, so the analysis is
//! valid until the IR changes.

use std::collections::{BTreeMap, HashMap};

use crate::analysis::ptr_set::PtrSet;
use crate::ir::{BlockId, Module, OpId, ValueDef, ValueId};

/// Live-in and live-out sets of one block.
#[derive(Clone, Debug, Default)]
struct BlockInfo {
    ins: PtrSet<ValueId>,
    outs: PtrSet<ValueId>,
    defs: PtrSet<ValueId>,
    uses: PtrSet<ValueId>,
}

impl BlockInfo {
    /// `newIn = use ∪ out \ def`; true when the set grew.
    fn update_live_in(&mut self) -> bool {
        let mut new_in = self.uses.clone();
        new_in.union_with(&self.outs);
        new_in.subtract(&self.defs);
        if new_in.len() == self.ins.len() {
            return false;
        }
        self.ins = new_in;
        true
    }
}

/// The liveness of one root operation's blocks.
pub struct Liveness {
    blocks: HashMap<BlockId, BlockInfo>,
    /// Program-order position of every op (`Module::program_order`).
    pos: Vec<u32>,
    /// `(block, value)` to the position of its last use in the block (the
    /// use's ancestor op there), `None` when unused there.
    last_use: std::cell::RefCell<HashMap<(BlockId, ValueId), Option<u32>>>,
}

/// The ancestor of `op` (or `op`) whose parent block is `block`.
pub fn ancestor_in_block(m: &Module, block: BlockId, op: OpId) -> Option<OpId> {
    let mut cur = Some(op);
    while let Some(o) = cur {
        if m.op(o).parent_block() == Some(block) {
            return Some(o);
        }
        cur = m.parent_op(o);
    }
    None
}

/// The block of `region`-sibling blocks that contains `block` (the block
/// itself or the one holding its ancestor op), if any
/// (`Region::findAncestorBlockInRegion`).
fn ancestor_block_in_region(
    m: &Module,
    region_blocks: &[BlockId],
    block: BlockId,
) -> Option<BlockId> {
    let mut b = block;
    loop {
        if region_blocks.contains(&b) {
            return Some(b);
        }
        let parent = m.block_parent_op(b);
        b = m.op(parent).parent_block()?;
    }
}

/// Ops nested in `op`, post-order (nested ops before the op itself).
fn post_order(m: &Module, op: OpId, out: &mut Vec<OpId>) {
    for &r in m.op(op).regions() {
        for &b in m.region_blocks(r) {
            for o in m.block_ops(b) {
                post_order(m, o, out);
            }
        }
    }
    out.push(op);
}

/// Blocks nested in `op`, pre-order (a block before the blocks nested in
/// its ops).
fn blocks_pre_order(m: &Module, op: OpId, out: &mut Vec<BlockId>) {
    for &r in m.op(op).regions() {
        for &b in m.region_blocks(r) {
            out.push(b);
            for o in m.block_ops(b) {
                blocks_pre_order(m, o, out);
            }
        }
    }
}

/// The blocks branching to `block`, newest branch first (MLIR keeps a
/// block's uses newest first).
fn predecessors(m: &Module, block: BlockId) -> Vec<BlockId> {
    let region = m.block_region(block);
    let mut out = Vec::new();
    for &b in m.region_blocks(region) {
        for o in m.block_ops(b) {
            for &s in m.op(o).successors() {
                if s == block {
                    out.push(b);
                }
            }
        }
    }
    out.reverse();
    out
}

/// The successors of a block (its terminator's, in order).
fn successors(m: &Module, block: BlockId) -> Vec<BlockId> {
    m.last_op(block)
        .map(|t| m.op(t).successors().to_vec())
        .unwrap_or_default()
}

fn build_block(m: &Module, block: BlockId) -> BlockInfo {
    let mut info = BlockInfo::default();
    let region_blocks = m.region_blocks(m.block_region(block)).to_vec();
    let escapes = |v: ValueId| {
        m.uses(v).iter().any(|u| {
            let Some(ub) = m.op(u.op).parent_block() else {
                return false;
            };
            ancestor_block_in_region(m, &region_blocks, ub) != Some(block)
        })
    };
    for &a in m.block_args(block) {
        info.defs.insert(a);
        if escapes(a) {
            info.outs.insert(a);
        }
    }
    for o in m.block_ops(block) {
        for &r in m.op(o).results() {
            if escapes(r) {
                info.outs.insert(r);
            }
        }
    }
    let mut nested = Vec::new();
    for o in m.block_ops(block) {
        post_order(m, o, &mut nested);
    }
    for o in nested {
        let d = m.op(o);
        for &r in d.results() {
            info.defs.insert(r);
        }
        for &v in d.operands() {
            info.uses.insert(v);
        }
        for &r in d.regions() {
            for &b in m.region_blocks(r) {
                for &a in m.block_args(b) {
                    info.defs.insert(a);
                }
            }
        }
    }
    let defs = info.defs.clone();
    info.uses.subtract(&defs);
    info
}

impl Liveness {
    /// Computes the liveness of the blocks nested in `root`.
    pub fn new(m: &Module, root: OpId) -> Liveness {
        let mut order = Vec::new();
        blocks_pre_order(m, root, &mut order);
        let mut blocks: HashMap<BlockId, BlockInfo> = HashMap::new();
        // A SetVector of blocks, popped from the back.
        let mut to_process: Vec<BlockId> = Vec::new();
        let push = |to_process: &mut Vec<BlockId>, preds: Vec<BlockId>| {
            for p in preds {
                if !to_process.contains(&p) {
                    to_process.push(p);
                }
            }
        };
        for &b in &order {
            let mut info = build_block(m, b);
            let grew = info.update_live_in();
            blocks.insert(b, info);
            if grew {
                push(&mut to_process, predecessors(m, b));
            }
        }
        while let Some(cur) = to_process.pop() {
            let mut outs = blocks[&cur].outs.clone();
            for s in successors(m, cur) {
                if let Some(si) = blocks.get(&s) {
                    outs.union_with(&si.ins);
                }
            }
            let info = blocks.get_mut(&cur).expect("processed blocks are mapped");
            info.outs = outs;
            if info.update_live_in() {
                push(&mut to_process, predecessors(m, cur));
            }
        }
        Liveness {
            blocks,
            pos: m.program_order(),
            last_use: Default::default(),
        }
    }

    /// Program-order position of `op`.
    pub fn position(&self, op: OpId) -> u32 {
        self.pos[op.index()]
    }

    /// Whether `v` is live into `block`.
    pub fn is_live_in(&self, block: BlockId, v: ValueId) -> bool {
        self.blocks.get(&block).is_some_and(|b| b.ins.contains(&v))
    }

    /// Whether `v` is live out of `block`.
    pub fn is_live_out(&self, block: BlockId, v: ValueId) -> bool {
        self.blocks.get(&block).is_some_and(|b| b.outs.contains(&v))
    }

    /// The live-in values of `block`, in set order.
    pub fn live_in(&self, block: BlockId) -> &[ValueId] {
        self.blocks.get(&block).map_or(&[], |b| b.ins.as_slice())
    }

    /// Position of the last op of `block` using `v` (through nested
    /// regions), if any.
    fn last_use_pos(&self, m: &Module, block: BlockId, v: ValueId) -> Option<u32> {
        if let Some(&p) = self.last_use.borrow().get(&(block, v)) {
            return p;
        }
        let p = m
            .uses(v)
            .iter()
            .filter_map(|u| ancestor_in_block(m, block, u.op))
            .map(|o| self.position(o))
            .max();
        self.last_use.borrow_mut().insert((block, v), p);
        p
    }

    /// `LivenessBlockInfo::getEndOperation` as a position: the block's last
    /// op when `v` is live-out, else the last use after `start`, else
    /// `start`.
    fn end_pos(&self, m: &Module, block: BlockId, v: ValueId, start: u32) -> u32 {
        if self.is_live_out(block, v) {
            return m.last_op(block).map_or(start, |o| self.position(o));
        }
        match self.last_use_pos(m, block, v) {
            Some(p) if p > start => p,
            _ => start,
        }
    }

    /// `Liveness::isDeadAfter(v, op)`: `v` is not live-out of `op`'s block
    /// and no op after `op` in the block uses it.
    pub fn is_dead_after(&self, m: &Module, v: ValueId, op: OpId) -> bool {
        let Some(block) = m.op(op).parent_block() else {
            return true;
        };
        if self.is_live_out(block, v) {
            return false;
        }
        self.end_pos(m, block, v, self.position(op)) <= self.position(op)
    }

    /// The live range of `v` in `block` as positions `(start, end)`, `None`
    /// when its definition is not in (or above) the block.
    fn range(&self, m: &Module, block: BlockId, v: ValueId) -> Option<(u32, u32)> {
        let front = self.position(m.first_op(block)?);
        let start = match m.value_def(v) {
            _ if self.is_live_in(block, v) => front,
            ValueDef::BlockArg { .. } => front,
            ValueDef::OpResult { op, .. } => self.position(ancestor_in_block(m, block, op)?),
        };
        let end = if self.is_live_out(block, v) {
            self.position(m.last_op(block)?)
        } else {
            self.end_pos(m, block, v, start)
        };
        Some((start, end))
    }

    /// The values live at `op` in its block, ordered as PlanMemory's
    /// `currentlyLiveValuesOrdered` (see the module docs).
    pub fn currently_live(&self, m: &Module, op: OpId) -> Vec<ValueId> {
        let Some(block) = m.op(op).parent_block() else {
            return Vec::new();
        };
        let at = self.position(op);
        let mut out: Vec<ValueId> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut consider = |v: ValueId, out: &mut Vec<ValueId>| {
            if let Some((s, e)) = self.range(m, block, v) {
                if s <= at && at <= e && seen.insert(v) {
                    out.push(v);
                }
            }
        };
        for &a in m.block_args(block) {
            consider(a, &mut out);
        }
        for &v in self.live_in(block) {
            consider(v, &mut out);
        }
        for o in m.block_ops(block) {
            for &r in m.op(o).results() {
                consider(r, &mut out);
            }
            if o == op {
                break;
            }
        }
        out
    }
}

/// Positions of the values of blocks, for callers that query many ops of
/// one block in order: a sweep keeping the values whose range holds the
/// current op. Gives the same answers as [`Liveness::currently_live`].
pub struct LiveSweep {
    block: BlockId,
    /// Candidates sorted by start: `(start, end, rank, value)`.
    pending: Vec<(u32, u32, (u8, u32), ValueId)>,
    next: usize,
    active: BTreeMap<(u8, u32), (u32, ValueId)>,
}

impl LiveSweep {
    /// A sweep over `block`.
    pub fn new(live: &Liveness, m: &Module, block: BlockId) -> LiveSweep {
        let mut pending = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (i, &a) in m.block_args(block).iter().enumerate() {
            if let Some((s, e)) = live.range(m, block, a) {
                if seen.insert(a) {
                    pending.push((s, e, (0, i as u32), a));
                }
            }
        }
        for (i, &v) in live.live_in(block).iter().enumerate() {
            if let Some((s, e)) = live.range(m, block, v) {
                if seen.insert(v) {
                    pending.push((s, e, (1, i as u32), v));
                }
            }
        }
        let mut k = 0u32;
        for o in m.block_ops(block) {
            for &r in m.op(o).results() {
                if let Some((s, e)) = live.range(m, block, r) {
                    if seen.insert(r) {
                        pending.push((s, e, (2, k), r));
                    }
                }
                k += 1;
            }
        }
        pending.sort_by_key(|p| p.0);
        LiveSweep {
            block,
            pending,
            next: 0,
            active: BTreeMap::new(),
        }
    }

    /// The block swept.
    pub fn block(&self) -> BlockId {
        self.block
    }

    /// The values live at `op` (an op of the block at or after the previous
    /// query), in `currentlyLiveValuesOrdered` order.
    pub fn live_at(&mut self, live: &Liveness, op: OpId) -> Vec<ValueId> {
        let at = live.position(op);
        while self.next < self.pending.len() && self.pending[self.next].0 <= at {
            let (_, e, rank, v) = self.pending[self.next];
            self.active.insert(rank, (e, v));
            self.next += 1;
        }
        self.active.retain(|_, (e, _)| *e >= at);
        self.active.values().map(|&(_, v)| v).collect()
    }
}
