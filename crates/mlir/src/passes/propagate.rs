//! The alignment-propagation patterns of `PropagateAlignUtil.cpp` and
//! `EnableStrideAlign.cpp`, on the marks themselves, run by the greedy
//! driver model ([`super::greedy`]) the way the C++ runs them:
//!
//! - [`normalize`] (`NormalizeAlignInfoPattern`): validates stride marks
//!   and sorts them by dim;
//! - [`up`] (`PropagateAlignUpToRootAllocationPattern`): moves a mark one
//!   hop towards the root allocation — across `memref.cast`, `subview`,
//!   `view`, `collapse_shape`, `expand_shape`, `reshape`,
//!   `hivm.hir.bitcast`, `scf.for` results and iter args, `scf.if`
//!   results — judging the requirement afresh at the new value
//!   (`adjustAlignInfo`: no address space or GM, unit prefixes and
//!   already aligned strides drop entries), and at an allocation unions it
//!   into the allocation's attributes (and, on membase, marks the inits of
//!   loops yielding it); the mark itself is consumed;
//! - [`down`] (`AddAlignAnnotationMarkForAlloc` +
//!   `PropagateAlignDownToLeafOperandsPattern`): marks every view and loop
//!   copy of a marked allocation that has no stride mark yet;
//! - [`among`] (`PropagateAlignAmongOperationOperands`): the UB operands
//!   of vector ops and `hivm.hir.copy` share their requirements;
//! - [`propagate_to_operands`] (`propagateAlignInfoToOperands`): rounds of
//!   down, among and up until the allocations' requirements stop changing,
//!   at most 10;
//! - [`add_stride_align_info_for_aiv`] (`AddStrideAlignInfoForAiv`).
//!
//! Shared by `hivm-enable-stride-align` (stride names) and
//! `hivm-align-alloc-size` (size names, up propagation only).

use std::collections::BTreeMap;

use tilemem_soc::Soc;

use crate::ir::{Diagnostic, Location, Module, OpId, Type, ValueDef, ValueId};

use super::adjust::adjust_align_info;
use super::common::{attr_text, is_host, is_vector_function};
use super::greedy;
use super::interfaces::Structured;
use super::layout::AlignInfo;
use super::marks::{self, Names, STRIDE};
use super::op_table::{attrs, flow_kind, spaces, FlowKind, MARK_OP};
use super::view_maps::{
    post_dim_after_drop, prev_dim_before_drop, reshape_reassociation, subview_dropped_dims,
};

/// `propagateAlignInfoToOperands`' round limit.
pub const MAX_ITERATIONS: usize = 10;

/// The ops whose results are allocations (`utils::isAllocLikeOp`).
pub fn is_alloc_like(name: &str) -> bool {
    matches!(
        name,
        "memref.alloc" | "memref.alloca" | "memref_ext.alloc_workspace"
    )
}

/// A value as MLIR's diagnostics print it: `<block argument> of type 'T'
/// at index: N` for block arguments, the SSA name otherwise (MLIR prints
/// the whole defining op there).
pub fn value_text(m: &Module, v: ValueId) -> String {
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

/// `NormalizeAlignInfoPattern` on `op` (a mark with stride dims): errors
/// for a missing bytes attribute or unequal lengths; sorts unsorted marks.
pub fn normalize(m: &mut Module, op: OpId, diags: &mut Vec<Diagnostic>) -> bool {
    if !m.op(op).is(MARK_OP) || !m.op(op).has_attr(attrs::DIMS) {
        return false;
    }
    let loc = m.op(op).loc;
    let (Some(dims), Some(bytes)) = marks::read(m, op, STRIDE) else {
        diags.push(Diagnostic::error(
            loc,
            "align info must contain align dims and align bytes",
        ));
        return false;
    };
    if dims.len() != bytes.len() {
        diags.push(Diagnostic::error(
            loc,
            "size of align bytes should be matched with size of align dims",
        ));
        return false;
    }
    if dims.windows(2).all(|w| w[0] <= w[1]) {
        return false;
    }
    let mut pairs: Vec<(i64, i64)> = dims.into_iter().zip(bytes).collect();
    pairs.sort_by_key(|p| p.0);
    m.set_attr(
        op,
        attrs::DIMS,
        crate::ir::Attribute::dense_i32(pairs.iter().map(|p| p.0)),
    );
    m.set_attr(
        op,
        attrs::BYTES,
        crate::ir::Attribute::dense_i32(pairs.iter().map(|p| p.1)),
    );
    true
}

/// `PropagateAlignUpToRootAllocationPattern` on `op` (a mark carrying
/// `names`): one hop up, then the mark's `names` attributes are removed
/// (and the mark erased when nothing is left).
pub fn up(
    m: &mut Module,
    op: OpId,
    names: Names,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    if !m.op(op).is(MARK_OP) {
        return false;
    }
    let (Some(dims), Some(bytes)) = marks::read(m, op, names) else {
        return false;
    };
    let loc = m.op(op).loc;
    if dims.len() != bytes.len() {
        diags.push(Diagnostic::error(loc, "Mismatched storage align marks"));
        return false;
    }
    let Some(src) = m.op(op).operand(0) else {
        return false;
    };
    let info = marks::pairs(&dims, &bytes);
    let result = match m.value_def(src) {
        ValueDef::BlockArg { block, .. } => {
            let parent = m.block_parent_op(block);
            if flow_kind(m.op(parent).name()) != Some(FlowKind::For) {
                diags.push(Diagnostic::error(
                    loc,
                    format!("Cannot align {} across blocks.", value_text(m, src)),
                ));
                return false;
            }
            if matches!(m.value_type(src), Type::UnrankedMemRef { .. }) {
                diags.push(Diagnostic::error(
                    loc,
                    format!("Cannot align unranked memref {}", value_text(m, src)),
                ));
                return false;
            }
            // The C++ passes no attribute names here: the init is marked
            // under the stride names whatever the mark carried.
            up_from_iter_arg(m, parent, src, &info, STRIDE, target)
        }
        ValueDef::OpResult { op: def, index } => {
            if matches!(m.value_type(src), Type::UnrankedMemRef { .. }) {
                diags.push(Diagnostic::error(
                    loc,
                    format!("Cannot align unranked memref {}", value_text(m, src)),
                ));
                return false;
            }
            up_from_result(m, op, def, index as usize, &info, names, target, diags)
        }
    };
    marks::remove(m, op, names, true);
    result
}

/// `propagateAlignUpFromResult`: one hop up from result `index` of `def`.
#[allow(clippy::too_many_arguments)]
fn up_from_result(
    m: &mut Module,
    mark: OpId,
    def: OpId,
    index: usize,
    info: &AlignInfo,
    names: Names,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let name = m.op(def).name().to_string();
    let loc = m.op(def).loc;
    let source = m.op(def).operand(0);
    match name.as_str() {
        "memref.cast" | "hivm.hir.bitcast" => {
            let Some(s) = source else { return false };
            hop(m, def, s, info, names, loc, target)
        }
        "memref.subview" => {
            let (Some(s), Some(dropped)) = (source, subview_dropped_dims(m, def)) else {
                return false;
            };
            let mapped: AlignInfo = info
                .iter()
                .filter_map(|&(d, b)| prev_dim_before_drop(d, &dropped).map(|p| (p, b)))
                .collect();
            hop(m, def, s, &mapped, names, loc, target)
        }
        "memref.view" => byte_view(m, mark, def, info, diags),
        "memref.collapse_shape" => {
            let Some(re) = reassociation(m, def) else {
                return false;
            };
            by_expand(m, def, &re, info, names, true, target, diags)
        }
        "memref.expand_shape" => {
            let Some(re) = reassociation(m, def) else {
                return false;
            };
            by_collapse(m, def, &re, info, names, true, target, diags)
        }
        "memref.reshape" => {
            let (Some(s), Some(r)) = (source, m.op(def).result(0)) else {
                return false;
            };
            let (Some(st), Some(rt)) = (
                m.value_type(s).as_memref().cloned(),
                m.value_type(r).as_memref().cloned(),
            ) else {
                return false;
            };
            let Some(re) = reshape_reassociation(&st, &rt) else {
                return false;
            };
            if st.rank() > rt.rank() {
                by_expand(m, def, &re, info, names, true, target, diags)
            } else {
                by_collapse(m, def, &re, info, names, true, target, diags)
            }
        }
        _ if flow_kind(&name) == Some(FlowKind::For) => {
            let Some(parts) = m.for_parts(def) else {
                return false;
            };
            let (Some(&init), Some(y)) = (
                parts.inits.get(index),
                parts.yield_op.and_then(|y| m.op(y).operand(index)),
            ) else {
                return false;
            };
            let adjusted = adjust_align_info(m, target, def, init, info);
            if adjusted.is_empty() {
                return false;
            }
            marks::create(m, init, &adjusted, names, loc);
            marks::create(m, y, &adjusted, names, loc);
            true
        }
        _ if flow_kind(&name) == Some(FlowKind::If) => {
            let mut any = false;
            let regions = m.op(def).regions().to_vec();
            for r in regions {
                let Some(b) = m.region_blocks(r).first().copied() else {
                    continue;
                };
                let Some(y) = m.last_op(b).and_then(|y| m.op(y).operand(index)) else {
                    continue;
                };
                let adjusted = adjust_align_info(m, target, def, y, info);
                if !adjusted.is_empty() {
                    any = true;
                    marks::create(m, y, &adjusted, names, loc);
                }
            }
            any
        }
        _ if is_alloc_like(&name) => {
            let (old_d, old_b) = marks::read(m, def, names);
            let merged = match (old_d, old_b) {
                (Some(d), Some(b)) => marks::union(&marks::pairs(&d, &b), info),
                _ => info.clone(),
            };
            marks::write(m, def, names, &merged);
            if !super::common::target_of(m).is_regbase() {
                return process_yield(m, def, info, names, diags);
            }
            true
        }
        _ => {
            diags.push(Diagnostic::warning(loc, "Align mark on unsupported op"));
            false
        }
    }
}

/// One hop to `to` through view `op`: `adjustAlignInfo(op, to, ..)` and,
/// when something is left, a new mark on `to` at `op`'s location.
fn hop(
    m: &mut Module,
    op: OpId,
    to: ValueId,
    info: &AlignInfo,
    names: Names,
    loc: Location,
    target: &Soc,
) -> bool {
    let adjusted = adjust_align_info(m, target, op, to, info);
    if adjusted.is_empty() {
        return false;
    }
    marks::create(m, to, &adjusted, names, loc);
    true
}

/// `propagateAlignUp(scf::ForOp, BlockArgument)`: a mark on an iter arg
/// goes to its init.
fn up_from_iter_arg(
    m: &mut Module,
    for_op: OpId,
    arg: ValueId,
    info: &AlignInfo,
    names: Names,
    target: &Soc,
) -> bool {
    let Some(parts) = m.for_parts(for_op) else {
        return false;
    };
    let Some(j) = parts.iter_args.iter().position(|&a| a == arg) else {
        return false;
    };
    let init = parts.inits[j];
    let loc = m.op(for_op).loc;
    hop(m, for_op, init, info, names, loc, target)
}

/// `propagateAlignUp(markOp, memref::ViewOp)`: a mark does not go past a
/// byte view. It is satisfied when, for each entry, the static element
/// count right of the dim is a multiple of the entry's bytes (the remark
/// `Alignemnt already satisfied for ..`, spelled as MLIR spells it),
/// otherwise the error `Alignment cannot be satisfied for ..`.
fn byte_view(
    m: &Module,
    mark: OpId,
    view: OpId,
    info: &AlignInfo,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let loc = m.op(mark).loc;
    let Some(v) = m.op(view).result(0) else {
        return false;
    };
    let Some(ty) = m.value_type(v).as_memref() else {
        return false;
    };
    for &(d, bytes) in info {
        let inner: i64 = ty.shape[(d + 1).min(ty.rank())..]
            .iter()
            .filter(|&&s| !crate::ir::is_dynamic(s))
            .product();
        if bytes != 0 && inner % bytes != 0 {
            diags.push(Diagnostic::error(
                loc,
                format!("Alignment cannot be satisfied for {}", value_text(m, v)),
            ));
            return false;
        }
    }
    diags.push(Diagnostic::remark(
        loc,
        format!("Alignemnt already satisfied for {}", value_text(m, v)),
    ));
    true
}

/// `processYieldOp`: on membase, an allocation yielded by an `scf.for`
/// body marks the loop's init with the requirement as it came.
fn process_yield(
    m: &mut Module,
    alloc: OpId,
    info: &AlignInfo,
    names: Names,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let Some(v) = m.op(alloc).result(0) else {
        return true;
    };
    for u in m.users(v) {
        if flow_kind(m.op(u).name()) != Some(FlowKind::Yield) {
            continue;
        }
        let Some(k) = m.op(u).operands().iter().position(|&x| x == v) else {
            continue;
        };
        let Some(parent) = m.parent_op(u) else {
            continue;
        };
        if flow_kind(m.op(parent).name()) != Some(FlowKind::For) {
            diags.push(Diagnostic::warning(
                m.op(u).loc,
                "Parent operation is not a scf::ForOp",
            ));
            return false;
        }
        let inits: Vec<ValueId> = m.op(parent).operands().get(3..).unwrap_or(&[]).to_vec();
        let Some(&init) = inits.get(k) else {
            if inits.is_empty() {
                diags.push(Diagnostic::warning(m.op(parent).loc, "No iter_args found"));
                return false;
            }
            continue;
        };
        // A loop whose init is the allocation itself would mark the
        // allocation again for ever; the C++ does not converge there.
        if init == v {
            continue;
        }
        let loc = value_loc(m, init);
        marks::create(m, init, info, names, loc);
    }
    true
}

/// `Value::getLoc`: the defining op's location, or the block argument's
/// (its block's parent op's).
pub fn value_loc(m: &Module, v: ValueId) -> Location {
    match m.value_def(v) {
        ValueDef::OpResult { op, .. } => m.op(op).loc,
        ValueDef::BlockArg { block, .. } => m.op(m.block_parent_op(block)).loc,
    }
}

/// The reassociation of a `collapse_shape`/`expand_shape`.
fn reassociation(m: &Module, op: OpId) -> Option<Vec<Vec<usize>>> {
    m.reassociation(op)?
        .into_iter()
        .map(|g| g.into_iter().map(|d| usize::try_from(d).ok()).collect())
        .collect()
}

/// The non-unit dims of a group, from the last: their count and the last
/// one (`countNotOneDim`).
fn count_not_one(group: &[usize], shape: &[i64]) -> (usize, Option<usize>) {
    let mut n = 0;
    let mut last = None;
    for &d in group.iter().rev() {
        if shape.get(d) == Some(&1) {
            continue;
        }
        n += 1;
        if last.is_none() {
            last = Some(d);
        }
    }
    (n, last)
}

/// `getExpandedDim`: the dim of the expanded side standing for collapsed
/// dim `dim`: the group's last non-unit dim (or its last dim); for size
/// alignment a group with more than one non-unit dim has none.
fn expanded_dim(
    dim: usize,
    groups: &[Vec<usize>],
    expanded_shape: &[i64],
    names: Names,
) -> Option<usize> {
    let group = groups.get(dim)?;
    let (n, last) = count_not_one(group, expanded_shape);
    if names == marks::ALLOC && n > 1 {
        return None;
    }
    last.or(group.last().copied())
}

/// `getCollapsedDim`: the collapsed dim standing for expanded dim `dim`:
/// the first group ending at or after `dim`. For stride alignment, when
/// `dim` lies before the group's last non-unit dim, a preceding group
/// with a non-unit dim stands in, but only when the group's dims up to
/// `dim` are all unit and the expanded side is contiguous; for size
/// alignment a group with more than one non-unit dim has none.
fn collapsed_dim(
    dim: usize,
    groups: &[Vec<usize>],
    expanded_shape: &[i64],
    names: Names,
    contiguous: bool,
) -> Option<usize> {
    for (i, group) in groups.iter().enumerate() {
        if group.last().is_some_and(|&l| l < dim) {
            continue;
        }
        let (n, last) = count_not_one(group, expanded_shape);
        if names == marks::ALLOC {
            return (n <= 1).then_some(i);
        }
        match last {
            None => return Some(i),
            Some(l) if l <= dim => return Some(i),
            Some(_) => {}
        }
        let unit_prefix = group
            .iter()
            .take_while(|&&d| d <= dim)
            .all(|&d| expanded_shape.get(d) == Some(&1));
        if !contiguous || !unit_prefix {
            return None;
        }
        return (0..i)
            .rev()
            .find(|&j| count_not_one(&groups[j], expanded_shape).0 > 0);
    }
    None
}

/// The values a collapse/expand/reshape propagates from and to.
fn view_ends(m: &Module, op: OpId, up: bool) -> Option<(ValueId, ValueId)> {
    let src = m.op(op).operand(0)?;
    let res = m.op(op).result(0)?;
    Some(if up { (res, src) } else { (src, res) })
}

/// The rank-direction check of a `memref.reshape` treated as a collapse
/// (`collapse`) or an expansion.
fn reshape_direction_ok(
    m: &Module,
    op: OpId,
    up: bool,
    collapse: bool,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    if !m.op(op).is("memref.reshape") {
        return true;
    }
    let (Some(s), Some(r)) = (m.op(op).operand(0), m.op(op).result(0)) else {
        return false;
    };
    let (sr, rr) = (
        m.value_type(s).shape().map_or(0, <[_]>::len),
        m.value_type(r).shape().map_or(0, <[_]>::len),
    );
    let bad = if collapse {
        (!up && sr < rr) || (up && sr > rr)
    } else {
        (up && sr < rr) || (!up && sr > rr)
    };
    if bad {
        let word = if collapse { "collapse" } else { "expand" };
        let dir = if up { "up" } else { "down" };
        diags.push(Diagnostic::error(
            m.op(op).loc,
            format!("should be {word} behavior when propagete{dir}"),
        ));
    }
    !bad
}

/// `propagateAlignInfoByCollapse`: the propagated-from side is the
/// expanded one; each dim maps by [`collapsed_dim`].
#[allow(clippy::too_many_arguments)]
fn by_collapse(
    m: &mut Module,
    op: OpId,
    groups: &[Vec<usize>],
    info: &AlignInfo,
    names: Names,
    up: bool,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    by_reassociation(
        m,
        op,
        info,
        names,
        up,
        true,
        target,
        diags,
        |m, from, _, d| {
            let ty = m.value_type(from).as_memref()?;
            // `getLayout().getAffineMap().isIdentity()`: no layout, or
            // `strided<[1]>` on rank 1.
            let contiguous = super::strides::layout_is_identity(ty);
            collapsed_dim(d, groups, &ty.shape, names, contiguous)
        },
    )
}

/// `propagateAlignInfoByExpand`: the propagated-to side is the expanded
/// one; each dim maps by [`expanded_dim`].
#[allow(clippy::too_many_arguments)]
fn by_expand(
    m: &mut Module,
    op: OpId,
    groups: &[Vec<usize>],
    info: &AlignInfo,
    names: Names,
    up: bool,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    by_reassociation(
        m,
        op,
        info,
        names,
        up,
        false,
        target,
        diags,
        |m, _, to, d| expanded_dim(d, groups, m.value_type(to).shape()?, names),
    )
}

/// The body both C++ templates share: check a `memref.reshape`'s direction,
/// map every dim with `map(m, from, to, dim)` (an unmappable dim is the
/// error `cannot align <d> axis for <from>`), then hop to the other side.
#[allow(clippy::too_many_arguments)]
fn by_reassociation(
    m: &mut Module,
    op: OpId,
    info: &AlignInfo,
    names: Names,
    up: bool,
    collapse: bool,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
    map: impl Fn(&Module, ValueId, ValueId, usize) -> Option<usize>,
) -> bool {
    if !reshape_direction_ok(m, op, up, collapse, diags) {
        return false;
    }
    let Some((from, to)) = view_ends(m, op, up) else {
        return false;
    };
    if m.value_type(from).as_memref().is_none() || m.value_type(to).shape().is_none() {
        return false;
    }
    let mut mapped = Vec::with_capacity(info.len());
    for &(d, b) in info {
        match map(m, from, to, d) {
            Some(x) => mapped.push((x, b)),
            None => {
                diags.push(Diagnostic::error(
                    m.op(op).loc,
                    format!("cannot align {d} axis for {}", value_text(m, from)),
                ));
                return false;
            }
        }
    }
    let loc = m.op(op).loc;
    hop(m, op, to, &mapped, names, loc, target)
}

/// `AddAlignAnnotationMarkForAlloc` + `PropagateAlignDownToLeafOperandsPattern`
/// on `op`.
pub fn down(m: &mut Module, op: OpId, target: &Soc, diags: &mut Vec<Diagnostic>) -> bool {
    let name = m.op(op).name();
    if name == "memref.alloc" {
        return add_mark_for_alloc(m, op);
    }
    if name != MARK_OP || !m.op(op).has_attr(attrs::DIMS) {
        return false;
    }
    let (Some(dims), Some(bytes)) = marks::read(m, op, STRIDE) else {
        return false;
    };
    let Some(v) = m.op(op).operand(0) else {
        return false;
    };
    let info = marks::pairs(&dims, &bytes);
    let mut any = false;
    for u in m.uses(v).to_vec() {
        if m.op(u.op).is_erased() {
            continue;
        }
        if down_to(m, u.op, u.index as usize, v, &info, target, diags) {
            any = true;
        }
    }
    any
}

/// `AddAlignAnnotationMarkForAlloc`: a `memref.alloc` carrying stride
/// attributes and no stride mark gets one with its attributes (not for
/// all-unit shapes).
fn add_mark_for_alloc(m: &mut Module, alloc: OpId) -> bool {
    if !m.op(alloc).has_attr(attrs::DIMS) {
        return false;
    }
    let Some(v) = m.op(alloc).result(0) else {
        return false;
    };
    if marks::first_with(m, v, attrs::DIMS).is_some() {
        return false;
    }
    if m.value_type(v)
        .as_memref()
        .is_some_and(|t| t.shape.iter().all(|&d| d == 1))
    {
        return false;
    }
    let (Some(d), Some(b)) = marks::read(m, alloc, STRIDE) else {
        return false;
    };
    let loc = m.op(alloc).loc;
    marks::create(m, v, &marks::pairs(&d, &b), STRIDE, loc).is_some()
}

/// Whether `v` already carries a stride mark.
fn marked(m: &Module, v: ValueId) -> bool {
    marks::first_with(m, v, attrs::DIMS).is_some()
}

/// `propagateAlignDown` into user `user` (operand `index` is `v`).
fn down_to(
    m: &mut Module,
    user: OpId,
    index: usize,
    v: ValueId,
    info: &AlignInfo,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let name = m.op(user).name().to_string();
    let loc = m.op(user).loc;
    let result = m.op(user).result(0);
    match name.as_str() {
        "memref.cast" | "hivm.hir.bitcast" => {
            let Some(r) = result else { return false };
            if marked(m, r) || info.is_empty() {
                return false;
            }
            marks::create(m, r, info, STRIDE, loc).is_some()
        }
        "memref.subview" => {
            let Some(r) = result else { return false };
            if marked(m, r) {
                return false;
            }
            let Some(dropped) = subview_dropped_dims(m, user) else {
                return false;
            };
            if dropped.iter().all(|&d| d) {
                return false;
            }
            let mut mapped = Vec::with_capacity(info.len());
            for &(d, b) in info {
                let p = post_dim_after_drop(d, &dropped);
                if p < 0 {
                    return false;
                }
                mapped.push((p as usize, b));
            }
            if mapped.is_empty() {
                return false;
            }
            marks::create(m, r, &mapped, STRIDE, loc).is_some()
        }
        "memref.collapse_shape" => {
            let Some(r) = result else { return false };
            if marked(m, r) {
                return false;
            }
            let Some(re) = reassociation(m, user) else {
                return false;
            };
            by_collapse(m, user, &re, info, STRIDE, false, target, diags)
        }
        "memref.expand_shape" => {
            let Some(r) = result else { return false };
            if marked(m, r) {
                return false;
            }
            let Some(re) = reassociation(m, user) else {
                return false;
            };
            by_expand(m, user, &re, info, STRIDE, false, target, diags)
        }
        "memref.reshape" => {
            let Some(r) = result else { return false };
            if marked(m, r) || index != 0 {
                return false;
            }
            let (Some(st), Some(rt)) = (
                m.value_type(v).as_memref().cloned(),
                m.value_type(r).as_memref().cloned(),
            ) else {
                return false;
            };
            let Some(re) = reshape_reassociation(&st, &rt) else {
                diags.push(Diagnostic::error(loc, "cannot be inference alignment"));
                return false;
            };
            if st.rank() > rt.rank() {
                by_collapse(m, user, &re, info, STRIDE, false, target, diags)
            } else {
                by_expand(m, user, &re, info, STRIDE, false, target, diags)
            }
        }
        _ if flow_kind(&name) == Some(FlowKind::For) => {
            if index < 3 {
                return false;
            }
            let Some(parts) = m.for_parts(user) else {
                return false;
            };
            // `std::find(inits, v)`: the first init that is `v`, whichever
            // use this is.
            let Some(j) = parts.inits.iter().position(|&x| x == v) else {
                return false;
            };
            let (Some(&r), Some(&a)) = (parts.results.get(j), parts.iter_args.get(j)) else {
                return false;
            };
            if (marked(m, r) && marked(m, a)) || info.is_empty() {
                return false;
            }
            marks::create(m, r, info, STRIDE, loc);
            marks::create(m, a, info, STRIDE, loc);
            true
        }
        _ if flow_kind(&name) == Some(FlowKind::Yield) => {
            if super::common::target_of(m).is_regbase() {
                return false;
            }
            let Some(parent) = m.parent_op(user) else {
                return false;
            };
            if flow_kind(m.op(parent).name()) != Some(FlowKind::If) {
                return false;
            }
            // `std::find(yieldOperands, v)`: the first yielded `v`.
            let first = m.op(user).operands().iter().position(|&x| x == v);
            let Some(r) = first.and_then(|k| m.op(parent).result(k)) else {
                return false;
            };
            let ploc = m.op(parent).loc;
            let Some(existing) = marks::first_with(m, r, attrs::DIMS) else {
                marks::create(m, r, info, STRIDE, ploc);
                return true;
            };
            let (Some(d), Some(b)) = marks::read(m, existing, STRIDE) else {
                return false;
            };
            let merged = marks::union(&marks::pairs(&d, &b), info);
            if &merged == info {
                return false;
            }
            marks::write(m, existing, STRIDE, &merged);
            true
        }
        _ => false,
    }
}

/// `PropagateAlignAmongOperationOperands` on `op` (a vector op or
/// `hivm.hir.copy`; never `load`/`store`): the first stride mark of each
/// UB operand of rank > 0 (extra buffers excluded) is read, their union
/// formed, and each operand (not a copy's source) without a mark gets the
/// union as the op's rules adjust it, and one with a mark that does not
/// contain the union (`isContain`) gets it unless the adjusted union is
/// contained. Succeeds when the last operand changed (the C++ overwrites
/// its flag per operand).
pub fn among(m: &mut Module, op: OpId, target: &Soc) -> bool {
    let Some(s) = Structured::of(m, op) else {
        return false;
    };
    if !(s.is_vector_op() || s.is("copy")) || s.is("load") || s.is("store") {
        return false;
    }
    let is_copy = s.is("copy");
    let operands: Vec<ValueId> = s
        .target_space_operands(spaces::UB, false)
        .into_iter()
        .filter(|&v| m.value_type(v).as_memref().is_some_and(|t| t.rank() > 0))
        .collect();
    let found: Vec<Option<OpId>> = operands
        .iter()
        .map(|&v| marks::first_with(m, v, attrs::DIMS))
        .collect();
    if found.iter().all(Option::is_none) {
        return false;
    }
    let mut union: AlignInfo = Vec::new();
    for mk in found.iter().flatten() {
        if let (Some(d), Some(b)) = marks::read(m, *mk, STRIDE) {
            union = marks::union(&union, &marks::pairs(&d, &b));
        }
    }
    let mut changed = false;
    for (i, (&v, mk)) in operands.iter().zip(&found).enumerate() {
        if is_copy && i == 0 {
            continue;
        }
        let loc = value_loc_of(m, v);
        changed = match mk {
            None => {
                let adjusted = adjust_align_info(m, target, op, v, &union);
                !adjusted.is_empty() && marks::create(m, v, &adjusted, STRIDE, loc).is_some()
            }
            Some(mk) => {
                let existing = match marks::read(m, *mk, STRIDE) {
                    (Some(d), Some(b)) => marks::pairs(&d, &b),
                    _ => Vec::new(),
                };
                if contains(&existing, &union) {
                    false
                } else {
                    let adjusted = adjust_align_info(m, target, op, v, &union);
                    if adjusted.is_empty() || contains(&existing, &adjusted) {
                        false
                    } else {
                        marks::create(m, v, &adjusted, STRIDE, loc).is_some()
                    }
                }
            }
        };
    }
    changed
}

/// `Value::getLoc` for new marks on operands.
fn value_loc_of(m: &Module, v: ValueId) -> Location {
    value_loc(m, v)
}

/// `isContain(a, b)`: `a` has at least as many entries as `b` and no dim
/// of both has different bytes.
fn contains(a: &AlignInfo, b: &AlignInfo) -> bool {
    if a.len() < b.len() {
        return false;
    }
    !a.iter()
        .any(|&(ad, ab)| b.iter().any(|&(bd, bb)| ad == bd && ab != bb))
}

/// `RemoveAlignMarkPattern`: a mark with stride bytes loses its stride
/// attributes (and goes when nothing is left).
pub fn remove(m: &mut Module, op: OpId) -> bool {
    if !m.op(op).is(MARK_OP) || !m.op(op).has_attr(attrs::BYTES) {
        return false;
    }
    marks::remove(m, op, STRIDE, true);
    true
}

/// The stride dims and bytes attributes of each marked allocation.
type AllocAlignInfo = BTreeMap<OpId, (Option<Vec<i64>>, Option<Vec<i64>>)>;

/// `collectAlignInfo`: the stride attributes of every allocation of the
/// function.
fn collect(m: &Module, func: OpId) -> AllocAlignInfo {
    m.walk(func)
        .into_iter()
        .filter(|&o| is_alloc_like(m.op(o).name()) && m.op(o).has_attr(attrs::DIMS))
        .map(|o| (o, marks::read(m, o, STRIDE)))
        .collect()
}

/// `propagteAlignInfoUpToAlloc`: (normalization, then) up propagation.
/// `false` when a driver does not converge.
pub fn propagate_up_to_alloc(
    m: &mut Module,
    func: OpId,
    names: Names,
    normalize_first: bool,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    if normalize_first && !greedy::apply(m, func, greedy::DEFAULT_MAX_ITERATIONS, diags, normalize)
    {
        return false;
    }
    greedy::apply(
        m,
        func,
        greedy::DEFAULT_MAX_ITERATIONS,
        diags,
        |m, op, d| up(m, op, names, target, d),
    )
}

/// How [`propagate_to_operands`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    /// The allocations' requirements stopped changing.
    Converged,
    /// They still changed after [`MAX_ITERATIONS`] rounds.
    TooMany,
    /// A pattern driver did not converge.
    DriverFailed,
}

/// `propagateAlignInfoToOperands`: rounds of down, among (at most 10000
/// sweeps) and up until the allocations' stride attributes stop changing.
pub fn propagate_to_operands(
    m: &mut Module,
    func: OpId,
    target: &Soc,
    diags: &mut Vec<Diagnostic>,
) -> Rounds {
    let mut prev = collect(m, func);
    for _ in 0..MAX_ITERATIONS {
        if !greedy::apply(
            m,
            func,
            greedy::DEFAULT_MAX_ITERATIONS,
            diags,
            |m, op, d| down(m, op, target, d),
        ) {
            return Rounds::DriverFailed;
        }
        if !greedy::apply(m, func, 10_000, diags, |m, op, _| among(m, op, target)) {
            return Rounds::DriverFailed;
        }
        if !propagate_up_to_alloc(m, func, STRIDE, false, target, diags) {
            return Rounds::DriverFailed;
        }
        let cur = collect(m, func);
        let changed = cur != prev;
        prev = cur;
        if !changed {
            return Rounds::Converged;
        }
    }
    Rounds::TooMany
}

/// `AddStrideAlignInfoForAiv` (Ascend950 with a Fixpipe): the stride
/// attributes of allocations marked as tightly coupled buffers in AIC
/// functions, gathered per buffer id, become marks (one per entry) on the
/// values marked with the same id in AIV functions that are not vector
/// functions, unless their definition already carries stride attributes;
/// the buffer mark then follows the new marks.
pub fn add_stride_align_info_for_aiv(m: &mut Module) {
    let funcs: Vec<OpId> = m.funcs().into_iter().filter(|&f| !is_host(m, f)).collect();
    let core = |m: &Module, f: OpId| {
        m.attr(f, attrs::FUNC_CORE_TYPE)
            .map(attr_text)
            .map(|s| s.trim().to_string())
    };
    let tcb_id = |m: &Module, mk: OpId| -> Option<i64> {
        let a = m.attr(mk, attrs::TIGHTLY_COUPLED)?;
        attr_text(a).trim().parse::<i64>().ok()
    };
    let mut by_id: BTreeMap<i64, (Vec<i64>, Vec<i64>)> = BTreeMap::new();
    for &f in &funcs {
        if core(m, f).as_deref() != Some("AIC") {
            continue;
        }
        for mk in m.walk(f) {
            if !m.op(mk).is(MARK_OP) {
                continue;
            }
            let Some(id) = tcb_id(m, mk) else { continue };
            let Some(def) = m.op(mk).operand(0).and_then(|v| m.defining_op(v)) else {
                continue;
            };
            let (Some(d), Some(b)) = marks::read(m, def, STRIDE) else {
                continue;
            };
            let e = by_id.entry(id).or_default();
            e.0.extend(d);
            e.1.extend(b);
        }
    }
    if by_id.is_empty() {
        return;
    }
    for &f in &funcs {
        if core(m, f).as_deref() != Some("AIV") || is_vector_function(m, f) {
            continue;
        }
        for mk in m.walk(f) {
            if m.op(mk).is_erased() || !m.op(mk).is(MARK_OP) {
                continue;
            }
            let Some(id) = tcb_id(m, mk) else { continue };
            let Some((dims, bytes)) = by_id.get(&id).cloned() else {
                continue;
            };
            let Some(v) = m.op(mk).operand(0) else {
                continue;
            };
            if m.defining_op(v)
                .is_some_and(|d| m.op(d).has_attr(attrs::DIMS))
            {
                continue;
            }
            let loc = m.op(mk).loc;
            for (&d, &b) in dims.iter().zip(&bytes) {
                let Ok(d) = usize::try_from(d) else { continue };
                if let Some(new) = marks::create(m, v, &vec![(d, b)], STRIDE, loc) {
                    m.move_op(mk, crate::ir::InsertPoint::After(new));
                }
            }
        }
    }
}
