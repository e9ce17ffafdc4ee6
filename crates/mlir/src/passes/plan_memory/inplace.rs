//! In-place reuse (`GenerateInplaceList`): at an op that gens buffer `g`
//! and kills buffer `k` (no smaller than `g`), `g` may take `k`'s memory.
//!
//! The op's gens are tried largest first, each with the op's kills in kill
//! order; a kill is used once. The rules (`IsReuseHIVMOp`):
//! - `vadd`, `vsub`, `vmax`, `vmin`, `vor`, `vand`, `vmul` without inline
//!   broadcast or transpose reuse in place (the ISA allows it);
//! - with `restrict-inplace-as-isa` nothing else does; otherwise an
//!   elementwise op reuses in place when its extra buffer (if any, at most
//!   one) serves a scalar or an inline broadcast, it does not transpose
//!   inline, an inline broadcast leaves `g` and `k` the same static shape,
//!   and its operands have the same element type, or (without that trait)
//!   an input is as wide as the output, or wider by a multiple except a
//!   `vcast` of rank above 1 or with a strided last dimension;
//! - `vsel` with an `i64` source and an `i1` condition never reuses the
//!   condition's buffer;
//! - the memory-based pass needs the output and every memref input at the
//!   same static offset, and refuses a pair that would make a multi-buffered
//!   load-compute-store chain wait on itself (`g` reaches a store, `k` a
//!   load, both multi-buffered): such pairs are remembered and may still
//!   share one instant of lifetime at level 0;
//! - a call of a vector function reuses in place when the callee reads the
//!   killed argument once and writes the gen'd one once, in the same block
//!   and iteration, not wider ([`super::vf_reuse`]); inside a loop not when
//!   `g` reaches a store and `k` a load; the register-based pass checks
//!   this reachability ([`super::pipes::Reach`]) unless
//!   `disable-vf-reachable-check`.
//!
//! The register-based pass never reuses a `mem_unique` buffer in place.

use std::collections::{HashMap, HashSet};

use crate::analysis::views::{traceback_memref, traceback_to_alloc, traceback_to_alloc_value};
use crate::ir::{Layout, OpId, Type, ValueId};

use super::op_facts::{
    dps_inits, dps_inputs, extra_buffer_for_scalar_or_brc, extra_buffers, has_inline_broadcast,
    has_inline_transpose, inplace_kind, is_vf_call, traits, InplaceKind, Pipe,
};
use super::pipes::parent_loop;
use super::MemPlan;

fn elem_bits(t: &Type) -> Option<u32> {
    match t {
        Type::MemRef(mt) => mt.elem.bit_width(),
        Type::Tensor { elem, .. } => elem.bit_width(),
        other => other.bit_width(),
    }
}

/// The static offset of a memref type's layout (`None`: not a memref).
fn static_offset(t: &Type) -> Option<i64> {
    match t.as_memref()?.layout {
        Layout::Strided { offset, .. } => Some(offset),
        _ => Some(0),
    }
}

/// `isLastDimContiguous`.
fn last_dim_contiguous(t: &Type) -> bool {
    let Some(mt) = t.as_memref() else {
        return true;
    };
    if mt.shape.last() == Some(&1) {
        return true;
    }
    match mt.strides_and_offset() {
        Some((strides, _)) => strides.last().is_none_or(|&s| s == 1),
        None => false,
    }
}

impl MemPlan<'_> {
    /// `GenerateInplaceList`: the alias pairs first, then the in-place
    /// pairs of each op.
    pub fn generate_inplace_list(&mut self) -> Vec<(ValueId, ValueId)> {
        let m = self.m;
        let mut list = self.lt.inplace_pairs.clone();
        let mut touched: HashSet<OpId> = HashSet::new();
        for seq in 0..self.lt.linear.len() {
            let Some(gk) = self.lt.gen_kill[seq].clone() else {
                continue;
            };
            let op = self.lt.linear[seq];
            if !touched.insert(op) {
                continue;
            }
            let vf_reusable = self.vf.is_some() && is_vf_call(m, op) && !self.vf_alias_risk(op);
            let mut vf_cache: HashMap<(ValueId, ValueId), bool> = HashMap::new();
            let mut gens = gk.gen.clone();
            gens.sort_by_key(|&g| std::cmp::Reverse(self.lt.info(g).map_or(0, |i| i.const_bits)));
            let mut reused: HashSet<ValueId> = HashSet::new();
            for g in gens {
                let Some(gi) = self.lt.info(g) else { continue };
                if gi.ignore_inplace || (self.regbase() && gi.memory_unique) {
                    continue;
                }
                let g_bits = gi.const_bits;
                for &k in &gk.kill {
                    let Some(ki) = self.lt.info(k) else { continue };
                    if ki.ignore_inplace || (self.regbase() && ki.memory_unique) {
                        continue;
                    }
                    if reused.contains(&k) || ki.const_bits < g_bits {
                        continue;
                    }
                    let vf_pair = vf_reusable
                        && self.vf.is_some_and(|v| v.is_inplace_reusable(op, g, k))
                        && *vf_cache
                            .entry((g, k))
                            .or_insert_with(|| self.reuse_vf_call(g, k));
                    let ok = vf_pair
                        || (self.reuse_hivm_op(op, g, k)
                            && (self.regbase() || !self.stall_pipeline(g, k, &list)));
                    if ok {
                        reused.insert(k);
                        self.reach.unite(g, k);
                        list.push((g, k));
                        break;
                    }
                }
            }
        }
        list
    }

    fn vf_alias_risk(&self, op: OpId) -> bool {
        let m = self.m;
        let mut seen = HashSet::new();
        for &v in m.op(op).operands() {
            if let Some(a) = traceback_to_alloc(m, v) {
                if !seen.insert(a) {
                    return true;
                }
            }
        }
        false
    }

    /// `IsReuseVFCall`.
    fn reuse_vf_call(&self, g: ValueId, k: ValueId) -> bool {
        let m = self.m;
        let (Some(ga), Some(ka)) = (traceback_to_alloc(m, g), traceback_to_alloc(m, k)) else {
            return false;
        };
        let (Some(gr), Some(kr)) = (m.op(ga).result(0), m.op(ka).result(0)) else {
            return false;
        };
        let reach = |p: Pipe, v: ValueId| {
            !self.opts.disable_vf_reachable_check && self.reach.reaches(&self.dma, p, v)
        };
        let gen_store = reach(Pipe::Mte3, gr);
        let kill_load = reach(Pipe::Mte2, kr);
        let in_loop = {
            let mut cur = m.parent_op(ga);
            let mut found = false;
            while let Some(p) = cur {
                if super::op_facts::is_loop_like(m.op(p).name()) {
                    found = true;
                    break;
                }
                cur = m.parent_op(p);
            }
            found
        };
        !(gen_store && kill_load && in_loop)
    }

    /// `IsReuseHIVMOp`.
    fn reuse_hivm_op(&self, op: OpId, g: ValueId, k: ValueId) -> bool {
        let m = self.m;
        let Some(t) = traits(m, op) else {
            return false;
        };
        if !self.regbase() && (!t.structured || !self.same_offsets(op)) {
            return false;
        }
        let kind = inplace_kind(m.op(op).name());
        if kind == InplaceKind::Isa && !has_inline_broadcast(m, op) && !has_inline_transpose(m, op)
        {
            return true;
        }
        if self.opts.restrict_inplace_as_isa {
            return false;
        }
        if let Some(extra) = extra_buffers(m, op) {
            if extra.len() > 1 || (extra.len() == 1 && !extra_buffer_for_scalar_or_brc(m, op)) {
                return false;
            }
        }
        if !t.structured || t.elementwise_nary == 0 {
            return false;
        }
        if has_inline_transpose(m, op) {
            return false;
        }
        if has_inline_broadcast(m, op) {
            return self.static_shape_same(op, g, k);
        }
        if t.same_operands_element_type {
            return true;
        }
        if !self.regbase() && kind == InplaceKind::Select {
            let d = m.op(op);
            let cond = d.operand(0).map(|v| m.value_type(v).clone());
            let src = d.operand(1).map(|v| m.value_type(v).clone());
            let cond_bits = cond.as_ref().and_then(elem_bits);
            let src_is_i64 = src
                .as_ref()
                .is_some_and(|t| matches!(elem_ty(t), Some(Type::Integer { width: 64, .. })));
            if src_is_i64 && cond_bits == Some(1) {
                let cond_root = d.operand(0).map(|v| traceback_memref(m, v));
                return cond_root != Some(k);
            }
            return true;
        }
        self.reusable_operands(op, kind)
    }

    /// `isReusableByOffset`: output and memref inputs at one static offset.
    fn same_offsets(&self, op: OpId) -> bool {
        let m = self.m;
        let Some(&out) = dps_inits(m, op).first() else {
            return false;
        };
        let Some(oo) = static_offset(m.value_type(out)) else {
            return false;
        };
        for v in dps_inputs(m, op) {
            if let Some(io) = static_offset(m.value_type(v)) {
                if io != oo {
                    return false;
                }
            }
        }
        true
    }

    /// `isStaticShapeSame`: the operands standing for `g` and `k` have the
    /// same shape.
    fn static_shape_same(&self, op: OpId, g: ValueId, k: ValueId) -> bool {
        let m = self.m;
        let (mut go, mut ko) = (g, k);
        for &v in m.op(op).operands() {
            let root = traceback_memref(m, v);
            if root == g {
                go = v;
            }
            if root == k {
                ko = v;
            }
        }
        let shape = |v: ValueId| {
            m.value_type(v)
                .shape()
                .map(<[i64]>::to_vec)
                .unwrap_or_default()
        };
        shape(go).iter().zip(shape(ko).iter()).all(|(a, b)| a == b)
    }

    /// `isReusableOperands`.
    fn reusable_operands(&self, op: OpId, kind: InplaceKind) -> bool {
        let m = self.m;
        let Some(&out) = dps_inits(m, op).first() else {
            return false;
        };
        let Some(ob) = elem_bits(m.value_type(out)) else {
            return false;
        };
        for v in dps_inputs(m, op) {
            let Some(ib) = elem_bits(m.value_type(v)) else {
                continue;
            };
            if ib == ob {
                return true;
            }
            if ob != 0 && ib % ob == 0 {
                if kind == InplaceKind::Cast {
                    let ot = m.value_type(out);
                    let rank = ot.as_memref().map_or(0, |t| t.rank());
                    return rank <= 1
                        && last_dim_contiguous(ot)
                        && last_dim_contiguous(m.value_type(v));
                }
                return true;
            }
        }
        false
    }

    /// `InplaceStallPipeline`: in-place reuse would make a multi-buffered
    /// chain wait (`g` reaches a store, `k` a load).
    fn stall_pipeline(&mut self, g: ValueId, k: ValueId, list: &[(ValueId, ValueId)]) -> bool {
        let m = self.m;
        let (Some(ga), Some(ka)) = (
            traceback_to_alloc_value(m, g),
            traceback_to_alloc_value(m, k),
        ) else {
            return true;
        };
        if !self.inplace_multi_buffer(ga, list) || !self.inplace_multi_buffer(ka, list) {
            return false;
        }
        if self.has_user(ga, "hivm.hir.store", list) && self.has_user(ka, "hivm.hir.load", list) {
            self.inplacable.push((ga, ka));
            return true;
        }
        false
    }

    /// `IsInplaceMultiBuffer`.
    fn inplace_multi_buffer(&self, v: ValueId, list: &[(ValueId, ValueId)]) -> bool {
        let mb = |x: ValueId| self.lt.multi_num.get(&x).is_some_and(|&n| n > 1);
        if mb(v) {
            return true;
        }
        list.iter()
            .any(|&(a, b)| (a == v && mb(b)) || (b == v && mb(a)))
    }

    /// `HasUser<DstOpType>`.
    fn has_user(&self, v: ValueId, dst: &str, list: &[(ValueId, ValueId)]) -> bool {
        let mut visited = HashSet::new();
        self.reaches_user(v, dst, &mut visited, list)
    }

    /// `VisitDstOpTypeReachable`: through the first view-like user, and
    /// through in-place partners. Users are visited newest first, as MLIR's
    /// use lists hold them.
    fn reaches_user(
        &self,
        v: ValueId,
        dst: &str,
        visited: &mut HashSet<ValueId>,
        list: &[(ValueId, ValueId)],
    ) -> bool {
        let m = self.m;
        if !visited.insert(v) {
            return false;
        }
        let Some(root) = traceback_to_alloc_value(m, v) else {
            return false;
        };
        for u in m.uses(v).iter().rev() {
            let d = m.op(u.op);
            if d.is(dst) {
                return true;
            }
            if crate::analysis::views::is_view_like(d.name()) {
                return match d.result(0) {
                    Some(r) => self.reaches_user(r, dst, visited, list),
                    None => false,
                };
            }
        }
        for &(a, b) in list {
            if a == b {
                continue;
            }
            if a == root && self.reaches_user(b, dst, visited, list) {
                return true;
            }
            if b == root && self.reaches_user(a, dst, visited, list) {
                return true;
            }
        }
        false
    }

    /// `GetBufferParentLoop`.
    pub fn buffer_parent_loop(&self, buffers: &[ValueId]) -> Option<OpId> {
        super::pipes::buffer_parent_loop(self.m, buffers)
    }

    /// Whether `v` lives in a loop (`getParentLoop`).
    pub fn in_loop(&self, v: ValueId) -> bool {
        parent_loop(self.m, v).is_some()
    }
}

fn elem_ty(t: &Type) -> Option<&Type> {
    match t {
        Type::MemRef(_) | Type::Tensor { .. } | Type::Vector(_) => t.element_type(),
        other => Some(other),
    }
}
