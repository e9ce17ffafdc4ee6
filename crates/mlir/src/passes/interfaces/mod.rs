//! The HIVM op interfaces the stride passes ask, written from their C++
//! (AscendNPU-IR `ir-impl/`): an op's operands by role
//! (`getHIVMOperands`, DPS inputs and inits, extra buffers,
//! `getTargetSpaceOperands`), its iterator types and the loop dims they
//! give (`getIteratorTypesArray`, `get*LoopDims`), the axes its flattening
//! must keep apart (`getLimitedAxes`), its flattening ([`flatten`]),
//! whether it lowers to scalar loops ([`scalar`]) and the sizes its
//! implementation needs whole blocks of ([`unaligned`]).
//!
//! Which interfaces and traits an op has comes from the ODS table
//! ([`crate::ir::ods::traits_of`], generated from the `.td` files); what
//! each method computes is written here, op by op where the C++ is.

pub mod flatten;
pub mod scalar;
pub mod unaligned;

use std::ops::Range;

use crate::ir::ods::{traits_of, OdsTraits};
use crate::ir::{Attribute, MemRefType, Module, OpId, Type, ValueId};

use super::common::enum_param;

/// The ODS operand names that are an op's DPS inits
/// (`getDpsInitsMutable`: `dst`, `c`, `init`, `outputs`, `base`).
const INIT_OPERANDS: &[&str] = &["dst", "c", "init", "outputs", "base"];
/// The ODS operand names of extra buffers (`getExtraBuffers`).
const EXTRA_OPERANDS: &[&str] = &["temp_buffer", "temp_buffers"];
/// The syntax groups of the same roles for ops read by their custom
/// parsers (`hivm.hir.fixpipe`, `hivm.hir.custom`, ...).
const INIT_GROUPS: &[&str] = &["outs"];

/// An op's operand role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A DPS input.
    Input,
    /// A DPS init.
    Init,
    /// An extra (temporary) buffer.
    Extra,
}

/// How an op's loop dims iterate (`hivm::IteratorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IteratorType {
    /// `kParallel`.
    Parallel,
    /// `kReduction`.
    Reduction,
    /// `kBroadcast`.
    Broadcast,
    /// `kTranspose`.
    Transpose,
    /// `kConcat`.
    Concat,
    /// `kPad`.
    Pad,
    /// `kGather`.
    Gather,
    /// `kCumulative`.
    Cumulative,
    /// `kInterleave`.
    Interleave,
    /// `kDeinterleave`.
    Deinterleave,
    /// `kInverse`.
    Inverse,
    /// `kOpaque`.
    Opaque,
}

/// An HIVM structured op (`HIVMStructuredOpInterface`) as the interfaces
/// see it.
#[derive(Clone, Copy)]
pub struct Structured<'m> {
    /// The module.
    pub m: &'m Module,
    /// The op.
    pub op: OpId,
    /// Its ODS traits.
    pub traits: &'static OdsTraits,
}

impl<'m> Structured<'m> {
    /// The view of `op` when it implements `HIVMStructuredOpInterface`.
    pub fn of(m: &'m Module, op: OpId) -> Option<Structured<'m>> {
        let traits = traits_of(m.op(op).name())?;
        traits
            .has("HIVMStructuredOpInterface")
            .then_some(Structured { m, op, traits })
    }

    /// The op name.
    pub fn name(&self) -> &'m str {
        self.m.op(self.op).name()
    }

    /// Whether the op is `hivm.hir.<mnemonic>`.
    pub fn is(&self, mnemonic: &str) -> bool {
        self.name()
            .strip_prefix("hivm.hir.")
            .is_some_and(|n| n == mnemonic)
    }

    /// Whether the op is defined in `HIVMVectorOps.td` (the ops
    /// `PropagateAlignAmongOperationOperands` is registered for).
    pub fn is_vector_op(&self) -> bool {
        self.traits.file == "HIVMVectorOps"
    }

    /// An attribute of the op.
    pub fn attr(&self, name: &str) -> Option<&'m Attribute> {
        self.m.attr(self.op, name)
    }

    /// An integer-array attribute (empty when absent).
    pub fn int_array(&self, name: &str) -> Vec<i64> {
        self.attr(name)
            .and_then(Attribute::as_int_array)
            .unwrap_or_default()
    }

    /// An integer attribute.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.attr(name).and_then(Attribute::as_int)
    }

    /// The parameter text of an enum attribute (`max_with_index_left`).
    pub fn enum_param(&self, name: &str) -> Option<String> {
        enum_param(self.m, self.op, name).map(|s| s.trim().to_string())
    }

    /// The operand index range of ODS operand `name`, for ops read by
    /// their ODS format.
    fn ods_range(&self, name: &str) -> Option<Range<usize>> {
        let d = self.m.op(self.op);
        if d.syntax.is_some() {
            return None;
        }
        let ods = crate::ir::format::lookup(d.name())?;
        if d.segments.len() != ods.operands.len() {
            return None;
        }
        let i = ods.operand_index(name)?;
        Some(d.segment_range(i))
    }

    /// The role of each operand, in operand order.
    pub fn roles(&self) -> Vec<Role> {
        let d = self.m.op(self.op);
        let n = d.operands().len();
        let mut roles = vec![Role::Input; n];
        let ranges = |names: &[&str], groups: &[&str]| -> Vec<Range<usize>> {
            let mut out: Vec<Range<usize>> =
                names.iter().filter_map(|k| self.ods_range(k)).collect();
            if out.is_empty() && d.syntax.is_some() {
                out = groups.iter().filter_map(|g| d.group_range(g)).collect();
            }
            out
        };
        for r in ranges(INIT_OPERANDS, INIT_GROUPS) {
            for i in r.filter(|&i| i < n) {
                roles[i] = Role::Init;
            }
        }
        for r in ranges(EXTRA_OPERANDS, EXTRA_OPERANDS) {
            for i in r.filter(|&i| i < n) {
                roles[i] = Role::Extra;
            }
        }
        roles
    }

    /// The extra-buffer values (`getExtraBuffers`): empty unless the op
    /// implements `ExtraBufferOpInterface`.
    pub fn extra_buffers(&self) -> Vec<ValueId> {
        if !self.traits.has("ExtraBufferOpInterface") {
            return Vec::new();
        }
        let d = self.m.op(self.op);
        self.roles()
            .iter()
            .zip(d.operands())
            .filter(|(r, _)| **r == Role::Extra)
            .map(|(_, &v)| v)
            .collect()
    }

    /// `getHIVMOperands(includeExtraBuffer)`: operand indices in order;
    /// without extra buffers, an operand whose value is an extra buffer
    /// is left out (by value, as the C++ filters).
    pub fn hivm_operands(&self, include_extra: bool) -> Vec<usize> {
        let d = self.m.op(self.op);
        let extra = if include_extra {
            Vec::new()
        } else {
            self.extra_buffers()
        };
        (0..d.operands().len())
            .filter(|&i| !extra.contains(&d.operands()[i]))
            .collect()
    }

    /// The value of operand `i`.
    pub fn operand(&self, i: usize) -> ValueId {
        self.m.op(self.op).operands()[i]
    }

    /// Whether operand `i` is a DPS input (`isDpsInput`): every operand
    /// that is not a DPS init.
    pub fn is_input(&self, i: usize) -> bool {
        self.roles().get(i) != Some(&Role::Init)
    }

    /// The DPS init values (`getDpsInits`), in order.
    pub fn inits(&self) -> Vec<ValueId> {
        let d = self.m.op(self.op);
        self.roles()
            .iter()
            .zip(d.operands())
            .filter(|(r, _)| **r == Role::Init)
            .map(|(_, &v)| v)
            .collect()
    }

    /// The DPS input values (`getDpsInputs`), in order.
    pub fn inputs(&self) -> Vec<ValueId> {
        let d = self.m.op(self.op);
        self.roles()
            .iter()
            .zip(d.operands())
            .filter(|(r, _)| **r != Role::Init)
            .map(|(_, &v)| v)
            .collect()
    }

    /// The values of ODS operand `name` (or of the syntax group of that
    /// name), in order.
    pub fn named(&self, name: &str) -> Vec<ValueId> {
        let d = self.m.op(self.op);
        match self.ods_range(name) {
            Some(r) => d.operands()[r].to_vec(),
            None => d.group(name).map(<[_]>::to_vec).unwrap_or_default(),
        }
    }

    /// `getTargetSpaceOperands(space, includeTmpBuffer)`: the memref
    /// operands in address space `space`, in operand order.
    pub fn target_space_operands(&self, space: &str, include_extra: bool) -> Vec<ValueId> {
        self.hivm_operands(include_extra)
            .into_iter()
            .map(|i| self.operand(i))
            .filter(|&v| {
                self.m
                    .value_type(v)
                    .as_memref()
                    .is_some_and(|t| t.address_space() == Some(space))
            })
            .collect()
    }

    /// `hasPureBufferSemantics`: no tensor operand.
    pub fn has_pure_buffer_semantics(&self) -> bool {
        self.m.op(self.op).operands().iter().all(|&v| {
            !matches!(
                self.m.value_type(v),
                Type::Tensor { .. } | Type::UnrankedTensor(_)
            )
        })
    }

    /// The memref type of `v`.
    pub fn memref(&self, v: ValueId) -> Option<&'m MemRefType> {
        self.m.value_type(v).as_memref()
    }

    /// `isElemwiseNaryOp`.
    pub fn is_elementwise(&self) -> bool {
        ["1", "2", "3"]
            .iter()
            .any(|n| self.traits.has(&format!("ElementwiseNaryOpTrait<{n}>")))
    }

    /// `isInlineBroadcastable` (`BroadcastableOTF`).
    pub fn is_inline_broadcastable(&self) -> bool {
        self.traits.has("BroadcastableOTF")
    }

    /// `isInlineTransposable` (`TransposableOTF`).
    pub fn is_inline_transposable(&self) -> bool {
        self.traits.has("TransposableOTF")
    }

    /// `getBroadcastArray`: `vbrc`'s `broadcast_dims`, else the
    /// `broadcast` attribute.
    pub fn broadcast_array(&self) -> Vec<i64> {
        if self.is("vbrc") {
            self.int_array("broadcast_dims")
        } else {
            self.int_array("broadcast")
        }
    }

    /// `getPermutationArray`: `vtranspose`'s `permutation`, else the
    /// `transpose` attribute.
    pub fn permutation_array(&self) -> Vec<i64> {
        if self.is("vtranspose") {
            self.int_array("permutation")
        } else {
            self.int_array("transpose")
        }
    }

    /// `existInlineBroadcastLoopDims`.
    pub fn exist_inline_broadcast_loop_dims(&self) -> bool {
        self.is_inline_broadcastable() && !self.broadcast_array().is_empty()
    }

    /// `existInlineTransposeLoopDims`.
    pub fn exist_inline_transpose_loop_dims(&self) -> bool {
        self.is_inline_transposable() && !self.permutation_array().is_empty()
    }

    /// `getInlinedBroadcastableAxes(opOperand)`: the op's inline-broadcast
    /// axes where operand `v` has size 1 (all of them for `None`).
    pub fn inlined_broadcastable_axes(&self, v: Option<ValueId>) -> Vec<i64> {
        if !self.is_inline_broadcastable() {
            return Vec::new();
        }
        let axes = self.int_array("broadcast");
        let Some(v) = v else { return axes };
        let Some(shape) = self.m.value_type(v).shape() else {
            return Vec::new();
        };
        axes.into_iter()
            .filter(|&i| usize::try_from(i).ok().and_then(|i| shape.get(i)) == Some(&1))
            .collect()
    }

    /// The rank of the op's first DPS init (or of `dst`).
    fn rank_of(&self, v: Option<ValueId>) -> usize {
        v.and_then(|v| self.m.value_type(v).shape().map(<[_]>::len))
            .unwrap_or(0)
    }

    /// `getIteratorTypesArray`, for the ops the stride passes flatten;
    /// `None` where the C++ has no answer (it aborts).
    pub fn iterator_types(&self) -> Option<Vec<IteratorType>> {
        use IteratorType::*;
        let dst = self.inits().first().copied();
        let rank = self.rank_of(dst);
        let mnemonic = self.name().strip_prefix("hivm.hir.")?;
        let mut it = vec![Parallel; rank];
        let set = |it: &mut Vec<IteratorType>, dims: &[i64], t: IteratorType| {
            for &d in dims {
                if let Some(x) = usize::try_from(d).ok().and_then(|d| it.get_mut(d)) {
                    *x = t;
                }
            }
        };
        match mnemonic {
            "vbrc" => set(&mut it, &self.int_array("broadcast_dims"), Broadcast),
            "vreduce" => set(&mut it, &self.int_array("reduce_dims"), Reduction),
            "vtranspose" => {
                for (i, &p) in self.int_array("permutation").iter().enumerate() {
                    if p != i as i64 {
                        set(&mut it, &[i as i64], Transpose);
                    }
                }
            }
            "vconcat" => set(&mut it, &[self.int("dim").unwrap_or(-1)], Concat),
            "vcumsum" | "vcumprod" | "vcummax" | "vcummin" => {
                set(&mut it, &self.int_array("cum_dims"), Cumulative)
            }
            "vdeinterleave" => {
                let rank = self.rank_of(self.named("src").first().copied());
                it = vec![Parallel; rank];
                if let Some(l) = it.last_mut() {
                    *l = Deinterleave;
                }
            }
            "vinterleave" => {
                if let Some(l) = it.last_mut() {
                    *l = Interleave;
                }
            }
            "vflip" => {
                if let Some(l) = it.last_mut() {
                    *l = Inverse;
                }
            }
            "vgather" => {
                let axis = match self.int("gather_axis") {
                    Some(a) if a != -1 && self.regbase() => a,
                    _ => rank as i64 - 1,
                };
                set(&mut it, &[axis], Gather);
            }
            "vpad" => {
                let low = self.int_array("static_low");
                let high = self.int_array("static_high");
                for (i, t) in it.iter_mut().enumerate() {
                    let zero = low.get(i) == Some(&0) && high.get(i) == Some(&0);
                    *t = if zero { Parallel } else { Pad };
                }
            }
            "varange" => it = vec![Opaque; rank],
            "vgathermask" | "vmulextended" | "copy" | "load" | "store" | "fixpipe" => {}
            _ if self.is_elementwise() => {
                if self.is_inline_broadcastable() || self.is_inline_transposable() {
                    set(&mut it, &self.int_array("broadcast"), Broadcast);
                    for (i, &p) in self.int_array("transpose").iter().enumerate() {
                        if p != i as i64 {
                            set(&mut it, &[p], Transpose);
                        }
                    }
                }
            }
            _ => return None,
        }
        Some(it)
    }

    /// The loop dims of iterator type `t` (`getTransposeLoopDims`,
    /// `getBroadcastLoopDims`, ...).
    pub fn loop_dims(&self, t: IteratorType) -> Vec<i64> {
        self.iterator_types()
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|(_, &x)| x == t)
            .map(|(i, _)| i as i64)
            .collect()
    }

    /// `getNumLoops`.
    pub fn num_loops(&self) -> usize {
        self.iterator_types().map_or(0, |v| v.len())
    }

    /// Whether the module targets a register-based chip.
    fn regbase(&self) -> bool {
        super::common::target_of(self.m).is_regbase()
    }

    /// `computeElementwiseLimitation`: the inline-broadcast loop dims.
    fn elementwise_limitation(&self) -> Vec<i64> {
        if self.exist_inline_broadcast_loop_dims() {
            return self.loop_dims(IteratorType::Broadcast);
        }
        Vec::new()
    }

    /// `getLimitedAxes` (`OpLimitation.cpp`): the axes flattening keeps in
    /// groups of their own.
    pub fn limited_axes(&self) -> Vec<i64> {
        let Some(mnemonic) = self.name().strip_prefix("hivm.hir.") else {
            return Vec::new();
        };
        match mnemonic {
            "vinterleave" | "vdeinterleave" | "copy" | "store" | "load" => Vec::new(),
            "vbrc" => self.int_array("broadcast_dims"),
            "vreduce" => self.int_array("reduce_dims"),
            "vcumsum" | "vcumprod" | "vcummax" | "vcummin" => self.int_array("cum_dims"),
            "vtranspose" => self
                .int_array("permutation")
                .iter()
                .enumerate()
                .filter(|(i, &p)| p != *i as i64)
                .map(|(i, _)| i as i64)
                .collect(),
            "vconcat" => self.loop_dims(IteratorType::Concat),
            "vpad" => {
                let mut axes = self.elementwise_limitation();
                axes.extend(self.loop_dims(IteratorType::Pad));
                axes
            }
            "vgather" => self.loop_dims(IteratorType::Gather),
            // getGatherMaskLoopDims returns the parallel dims.
            "vgathermask" => self.loop_dims(IteratorType::Parallel),
            "varange" => (0..self.num_loops() as i64).collect(),
            "vflip" => {
                let mut axes = self.elementwise_limitation();
                axes.extend(self.int("flip_axis"));
                axes
            }
            "vsort" => {
                let mut axes = self.elementwise_limitation();
                axes.extend(self.int("sort_axis"));
                axes
            }
            "vmulextended" => self.elementwise_limitation(),
            _ if self.is_elementwise() => self.elementwise_limitation(),
            _ => Vec::new(),
        }
    }
}
