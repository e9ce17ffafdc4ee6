//! The alignment-propagation engine: carries `(dim, bytes)` requirements
//! from stride marks (or from any value a pass seeds) up to the root
//! allocations, down to every view and loop copy of a root, and among the
//! operands of ops that must agree, until nothing changes.
//!
//! It mirrors the patterns of `PropagateAlignUtil.cpp`
//! (`NormalizeAlignInfoPattern`, `PropagateAlignUpToRootAllocationPattern`,
//! `propagateAlignInfoToOperands`, `PropagateAlignAmongOperationOperands`)
//! and is shared by `hivm-enable-stride-align` (stride requirements,
//! adjusted at each hop) and `hivm-align-alloc-size` (size requirements,
//! kept whole: [`Propagation::adjust`] off).
//!
//! **Assumes** a module whose requirements are on memref values; the
//! engine only reads the module, never rewrites it.
//!
//! **Guarantees**: after [`Propagation::run_to_fixed_point`] returns
//! `true`, [`Propagation::alloc_info`] holds, per root allocation, the lcm
//! union of every requirement that reaches it; errors and warnings of the
//! patterns (`Cannot align ... across blocks.`, byte views, unsupported
//! ops) are pushed to the diagnostics without stopping the walk.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::ir::{Diagnostic, Location, Module, OpId, ValueDef, ValueId};

use super::adjust::{adjust_align_info, OpView};
use tilemem_soc::Soc;

use super::common::{device_funcs, hw_align_bytes, is_ub, memref_of, read_info, strided_of};
use super::layout::{adds_info, union_info, unmet_info, AlignInfo};
use super::op_table::{
    attrs, flow_kind, hivm_op, hivm_syntax, is_root_alloc, view_kind, FlowKind, HivmKind, ViewKind,
    FIXPIPE_OP, MARK_OP,
};

/// Maximum number of down/among/up rounds.
pub const MAX_ITERATIONS: usize = 10;

/// Alignment requirements on values and on root allocations.
pub struct Propagation {
    target: Soc,
    /// Requirements per value.
    pub info: HashMap<ValueId, AlignInfo>,
    /// Requirements per root allocation, in id order (deterministic).
    pub alloc_info: BTreeMap<OpId, AlignInfo>,
    warned: HashSet<OpId>,
    visited: HashSet<ValueId>,
    roots_changed: bool,
    /// Where a root requirement last grew (the location of the
    /// non-convergence error).
    pub last_changed: Option<Location>,
    /// Location of the mark currently carried up: the original mark's, or
    /// the op that re-created it one step higher (`createAlignMarkOp` takes
    /// the propagating op's location).
    from_loc: Location,
    /// Whether hops drop requirements the layout already meets (stride
    /// alignment) or keep them all (size alignment).
    pub adjust: bool,
}

impl Propagation {
    /// An empty propagation state.
    pub fn new(target: Soc) -> Propagation {
        Propagation {
            target,
            info: HashMap::new(),
            alloc_info: BTreeMap::new(),
            warned: HashSet::new(),
            visited: HashSet::new(),
            roots_changed: false,
            last_changed: None,
            from_loc: Location::default(),
            adjust: true,
        }
    }

    fn adjusted(&self, m: &Module, v: ValueId, info: &AlignInfo) -> AlignInfo {
        if !self.adjust {
            return info.clone();
        }
        match strided_of(m, v) {
            Some(t) => unmet_info(&t, info),
            None => Vec::new(),
        }
    }

    /// Reads the marks (normalizing them) and alloc attributes, then
    /// propagates every mark up once.
    pub fn collect(&mut self, m: &mut Module, diags: &mut Vec<Diagnostic>) {
        let funcs = device_funcs(m);
        let mut seeds = Vec::new();
        for &f in &funcs {
            for op in m.walk(f) {
                let is_mark = m.op(op).is(MARK_OP);
                let is_alloc = is_root_alloc(m.op(op).name());
                if !is_mark && !is_alloc {
                    continue;
                }
                match read_info(m, op) {
                    // `NormalizeAlignInfoPattern` emits the error and fails
                    // to match, which does not fail the pass; the
                    // propagation pattern then skips a mark missing either
                    // attribute and reports one whose lengths differ.
                    Err(msg) => {
                        let loc = m.op(op).loc;
                        let mismatched = msg.starts_with("size of");
                        diags.push(Diagnostic::error(loc, msg));
                        if mismatched {
                            diags.push(Diagnostic::error(loc, "Mismatched storage align marks"));
                        }
                    }
                    Ok(None) => {}
                    Ok(Some(info)) => {
                        let v = if is_mark {
                            m.op(op).operand(0)
                        } else {
                            m.op(op).result(0)
                        };
                        if let Some(v) = v {
                            seeds.push((v, info, m.op(op).loc));
                        }
                    }
                }
            }
        }
        for (v, info, loc) in seeds {
            let on_byte_view = m
                .defining_op(v)
                .is_some_and(|op| view_kind(m.op(op).name()) == Some(ViewKind::ByteView));
            if on_byte_view {
                self.from_loc = loc;
                self.up(m, v, &info, diags, 0);
                continue;
            }
            let info = self.adjusted(m, v, &info);
            if info.is_empty() {
                continue;
            }
            let merged = union_info(self.info.get(&v).unwrap_or(&Vec::new()), &info);
            self.info.insert(v, merged.clone());
            self.from_loc = loc;
            self.up(m, v, &merged, diags, 0);
        }
    }

    /// Ascend950: a tightly coupled buffer is one physical buffer seen by
    /// the cube (AIC) and vector (AIV) sides, so when a module has a
    /// Fixpipe, AIV allocations (outside vector functions) with the same
    /// `hivm.tightly_coupled_buffer` id as a marked AIC allocation get the
    /// same requirement.
    pub fn aic_to_aiv(&mut self, m: &Module) {
        let funcs = device_funcs(m);
        let has_fixpipe = funcs
            .iter()
            .any(|&f| m.walk(f).into_iter().any(|o| m.op(o).is(FIXPIPE_OP)));
        if !has_fixpipe {
            return;
        }
        let core = |f: OpId| {
            m.attr(f, attrs::FUNC_CORE_TYPE)
                .map(super::common::attr_text)
                .unwrap_or_default()
        };
        let coupled_id = |alloc: OpId| -> Option<String> {
            let v = m.op(alloc).result(0)?;
            super::common::marks_of(m, v).into_iter().find_map(|mk| {
                m.attr(mk, attrs::TIGHTLY_COUPLED)
                    .map(super::common::attr_text)
            })
        };
        let mut by_id: BTreeMap<String, AlignInfo> = BTreeMap::new();
        for &f in &funcs {
            if core(f).trim() != "AIC" {
                continue;
            }
            for op in m.walk(f) {
                if let (Some(info), Some(id)) = (self.alloc_info.get(&op), coupled_id(op)) {
                    let merged = union_info(by_id.get(&id).unwrap_or(&Vec::new()), info);
                    by_id.insert(id, merged);
                }
            }
        }
        for &f in &funcs {
            if core(f).trim() != "AIV" || super::common::is_vector_function(m, f) {
                continue;
            }
            for op in m.walk(f) {
                if !is_root_alloc(m.op(op).name()) || self.alloc_info.contains_key(&op) {
                    continue;
                }
                if let Some(info) = coupled_id(op).and_then(|id| by_id.get(&id)) {
                    self.alloc_info.insert(op, info.clone());
                }
            }
        }
    }

    /// Rounds of down, among-operands and up until the root requirements
    /// stop changing; `false` if they still change after
    /// [`MAX_ITERATIONS`] rounds.
    pub fn run_to_fixed_point(&mut self, m: &Module, diags: &mut Vec<Diagnostic>) -> bool {
        let groups = among_groups(m);
        for _ in 0..MAX_ITERATIONS {
            self.roots_changed = false;
            self.visited.clear();
            let roots: Vec<(OpId, AlignInfo)> = self
                .alloc_info
                .iter()
                .map(|(k, v)| (*k, v.clone()))
                .collect();
            for (alloc, info) in roots {
                if let Some(v) = m.op(alloc).result(0) {
                    self.down(m, v, &info, 0);
                }
            }
            let changed_values = self.among_operands(m, &groups);
            for v in changed_values {
                if let Some(info) = self.info.get(&v).cloned() {
                    self.from_loc = value_loc(m, v);
                    self.up(m, v, &info, diags, 0);
                }
            }
            if !self.roots_changed {
                return true;
            }
        }
        false
    }

    /// Records `info` for root allocation `op`.
    fn add_root(&mut self, m: &Module, op: OpId, info: &AlignInfo) {
        let entry = self.alloc_info.entry(op).or_default();
        if adds_info(entry, info) {
            *entry = union_info(entry, info);
            self.roots_changed = true;
            self.last_changed = Some(m.op(op).loc);
        }
    }

    /// Carries `info` on `v` up to the root allocation(s).
    pub fn up(
        &mut self,
        m: &Module,
        v: ValueId,
        info: &AlignInfo,
        diags: &mut Vec<Diagnostic>,
        depth: u32,
    ) {
        if depth > 512 {
            return;
        }
        // A mark on a byte view is judged as it stands, with no adjustment
        // first (propagateAlignUp(markOp, memref::ViewOp)).
        if let Some(op) = m.defining_op(v) {
            if view_kind(m.op(op).name()) == Some(ViewKind::ByteView) {
                self.byte_view(m, v, info, diags);
                return;
            }
        }
        let info = self.adjusted(m, v, info);
        if info.is_empty() {
            return;
        }
        match m.value_def(v) {
            ValueDef::OpResult { op, index } => {
                let name = m.op(op).name();
                if is_root_alloc(name) {
                    self.add_root(m, op, &info);
                    if !self.target.is_regbase() {
                        self.mark_loop_inits_yielding(m, v, &info, diags, depth);
                    }
                    return;
                }
                if let Some(kind) = view_kind(name) {
                    match super::view_maps::up(m, op, kind, &info) {
                        Ok(src_info) => {
                            if let Some(src) = m.op(op).operand(0) {
                                self.from_loc = m.op(op).loc;
                                self.up(m, src, &src_info, diags, depth + 1);
                            }
                        }
                        Err(msg) => diags.push(Diagnostic::error(m.op(op).loc, msg)),
                    }
                    return;
                }
                match flow_kind(name) {
                    Some(FlowKind::For) => {
                        let Some(parts) = m.for_parts(op) else { return };
                        self.from_loc = m.op(op).loc;
                        let j = index as usize;
                        if let Some(&init) = parts.inits.get(j) {
                            self.up(m, init, &info, diags, depth + 1);
                        }
                        if let Some(y) = parts.yield_op.and_then(|y| m.op(y).operand(j)) {
                            self.up(m, y, &info, diags, depth + 1);
                        }
                    }
                    Some(FlowKind::If) => {
                        self.from_loc = m.op(op).loc;
                        for &r in m.op(op).regions() {
                            let Some(b) = m.region_blocks(r).first().copied() else {
                                continue;
                            };
                            if let Some(y) =
                                m.last_op(b).and_then(|y| m.op(y).operand(index as usize))
                            {
                                self.up(m, y, &info, diags, depth + 1);
                            }
                        }
                    }
                    _ => {
                        if self.warned.insert(op) {
                            diags.push(Diagnostic::warning(
                                m.op(op).loc,
                                "Align mark on unsupported op",
                            ));
                        }
                    }
                }
            }
            ValueDef::BlockArg { block, index } => {
                let parent = m.block_parent_op(block);
                if flow_kind(m.op(parent).name()) == Some(FlowKind::For) && index >= 1 {
                    if let Some(&init) = m.op(parent).operands().get(3 + index as usize - 1) {
                        self.up(m, init, &info, diags, depth + 1);
                    }
                    return;
                }
                if self.warned.insert(parent) {
                    diags.push(Diagnostic::error(
                        self.from_loc,
                        format!("Cannot align {} across blocks.", value_text(m, v)),
                    ));
                }
            }
        }
    }

    /// `propagateAlignUp(markOp, memref::ViewOp)`: a mark does not go past
    /// a `memref.view`; it is satisfied when, for each entry, the static
    /// element count right of the dim is a multiple of the entry's bytes
    /// (the remark `Alignemnt already satisfied for ..`, spelled as MLIR
    /// spells it), otherwise the error `Alignment cannot be satisfied for ..`.
    fn byte_view(&mut self, m: &Module, v: ValueId, info: &AlignInfo, diags: &mut Vec<Diagnostic>) {
        let Some(ty) = memref_of(m, v) else { return };
        for &(d, bytes) in info {
            let inner: i64 = ty.shape[(d + 1).min(ty.rank())..]
                .iter()
                .filter(|&&s| !crate::ir::is_dynamic(s))
                .product();
            if bytes != 0 && inner % bytes != 0 {
                diags.push(Diagnostic::error(
                    self.from_loc,
                    format!("Alignment cannot be satisfied for {}", value_text(m, v)),
                ));
                return;
            }
        }
        diags.push(Diagnostic::remark(
            self.from_loc,
            format!("Alignemnt already satisfied for {}", value_text(m, v)),
        ));
    }

    /// Membase: a root yielded by an `scf.for` body also marks the loop's
    /// init (the two share the buffer across iterations).
    fn mark_loop_inits_yielding(
        &mut self,
        m: &Module,
        v: ValueId,
        info: &AlignInfo,
        diags: &mut Vec<Diagnostic>,
        depth: u32,
    ) {
        for u in m.uses(v).to_vec() {
            if flow_kind(m.op(u.op).name()) != Some(FlowKind::Yield) {
                continue;
            }
            let Some(parent) = m.parent_op(u.op) else {
                continue;
            };
            if flow_kind(m.op(parent).name()) != Some(FlowKind::For) {
                // processYieldOp: only loops carry a root across a yield.
                if self.warned.insert(u.op) {
                    diags.push(Diagnostic::warning(
                        m.op(u.op).loc,
                        "Parent operation is not a scf::ForOp",
                    ));
                }
                continue;
            }
            if let Some(&init) = m.op(parent).operands().get(3 + u.index as usize) {
                if init != v {
                    self.up(m, init, info, diags, depth + 1);
                }
            }
        }
    }

    /// Carries `info` on `v` down to its views and loop-carried copies.
    fn down(&mut self, m: &Module, v: ValueId, info: &AlignInfo, depth: u32) {
        if depth > 512 {
            return;
        }
        let info = self.adjusted(m, v, info);
        if info.is_empty() {
            return;
        }
        let have = self.info.get(&v).cloned().unwrap_or_default();
        let grows = adds_info(&have, &info);
        if grows {
            self.info.insert(v, union_info(&have, &info));
        }
        // A value reached again this round with nothing new has already
        // passed its requirements on.
        if !self.visited.insert(v) && !grows {
            return;
        }
        for u in m.uses(v) {
            let op = u.op;
            let name = m.op(op).name();
            if let Some(kind) = view_kind(name) {
                if u.index == 0 {
                    let mapped = super::view_maps::down(m, op, kind, &info);
                    if let Some(r) = m.op(op).result(0) {
                        self.down(m, r, &mapped, depth + 1);
                    }
                }
                continue;
            }
            match flow_kind(name) {
                Some(FlowKind::For) if u.index >= 3 => {
                    let Some(parts) = m.for_parts(op) else {
                        continue;
                    };
                    let j = u.index as usize - 3;
                    for w in [parts.results.get(j), parts.iter_args.get(j)]
                        .into_iter()
                        .flatten()
                    {
                        self.down(m, *w, &info, depth + 1);
                    }
                }
                Some(FlowKind::Yield) if !self.target.is_regbase() => {
                    let Some(parent) = m.parent_op(op) else {
                        continue;
                    };
                    if flow_kind(m.op(parent).name()) == Some(FlowKind::If) {
                        if let Some(r) = m.op(parent).result(u.index as usize) {
                            self.down(m, r, &info, depth + 1);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Unions the requirements of the UB operands of every vector op and
    /// `hivm.hir.copy`, giving each operand what it lacks (never a copy's
    /// source). Returns the values that gained something.
    fn among_operands(&mut self, m: &Module, groups: &[AmongGroup]) -> Vec<ValueId> {
        let mut changed = Vec::new();
        let mut seen = HashSet::new();
        for _ in 0..10_000 {
            let mut any = false;
            for g in groups {
                let mut union: AlignInfo = Vec::new();
                for v in &g.operands {
                    if let Some(i) = self.info.get(v) {
                        union = union_info(&union, i);
                    }
                }
                if union.is_empty() {
                    continue;
                }
                let Some(row) = hivm_op(m.op(g.op).name()) else {
                    continue;
                };
                let view = OpView::new(m, g.op, row);
                for &v in &g.receivers {
                    // adjustAlignInfo(op, operand, ..): the op's own dim
                    // rules, judged against the hardware alignment.
                    let adj = match memref_of(m, v) {
                        Some(t) if self.adjust => {
                            let bits = hw_align_bytes(&self.target, t) * 8;
                            adjust_align_info(m, &view, v, &union, bits)
                        }
                        _ => self.adjusted(m, v, &union),
                    };
                    let have = self.info.get(&v).cloned().unwrap_or_default();
                    if adds_info(&have, &adj) {
                        self.info.insert(v, union_info(&have, &adj));
                        any = true;
                        if seen.insert(v) {
                            changed.push(v);
                        }
                    }
                }
            }
            if !any {
                break;
            }
        }
        changed
    }
}

/// Where a value is defined (its op's location; a block argument takes its
/// block's parent op's).
fn value_loc(m: &Module, v: ValueId) -> Location {
    match m.value_def(v) {
        ValueDef::OpResult { op, .. } => m.op(op).loc,
        ValueDef::BlockArg { block, .. } => m.op(m.block_parent_op(block)).loc,
    }
}

/// A value as MLIR's diagnostics print it: `<block argument> of type 'T'
/// at index: N` for block arguments, the SSA name otherwise (MLIR prints
/// the whole defining op there).
fn value_text(m: &Module, v: ValueId) -> String {
    let mut ty = String::new();
    crate::print::write_type(&mut ty, m.value_type(v));
    match m.value_def(v) {
        ValueDef::BlockArg { index, .. } => {
            format!("<block argument> of type '{ty}' at index: {index}")
        }
        ValueDef::OpResult { op, .. } => {
            let mut root = op;
            while let Some(p) = m.parent_op(root) {
                root = p;
            }
            crate::print::Names::new(m, root).get(m, v)
        }
    }
}

/// The UB operands of one op taking part in among-operand propagation.
struct AmongGroup {
    /// The op.
    op: OpId,
    /// Non-scalar, rank > 0 UB operands (not temp buffers).
    operands: Vec<ValueId>,
    /// Those that may receive (all but a copy's source).
    receivers: Vec<ValueId>,
}

/// The among-operand groups of every device function (the op set does not
/// change while requirements propagate, so it is computed once).
fn among_groups(m: &Module) -> Vec<AmongGroup> {
    let mut out = Vec::new();
    for f in device_funcs(m) {
        for op in m.walk(f) {
            let Some(row) = hivm_op(m.op(op).name()) else {
                continue;
            };
            if !row.propagates_among_operands() {
                continue;
            }
            let d = m.op(op);
            let temps: &[ValueId] = d.group(hivm_syntax::TEMP_BUFFER).unwrap_or(&[]);
            let mut operands = Vec::new();
            let mut receivers = Vec::new();
            for (i, &v) in d.operands().iter().enumerate() {
                if temps.contains(&v) || !memref_of(m, v).is_some_and(|t| is_ub(t) && t.rank() > 0)
                {
                    continue;
                }
                operands.push(v);
                if !(row.kind == HivmKind::Copy && i == 0) {
                    receivers.push(v);
                }
            }
            if operands.len() > 1 {
                out.push(AmongGroup {
                    op,
                    operands,
                    receivers,
                });
            }
        }
    }
    out
}
