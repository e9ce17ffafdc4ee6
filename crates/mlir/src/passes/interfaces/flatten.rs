//! `FlattenInterface::getFlattened` (`ir-impl/IR/FlattenInterface/`): how
//! an HIVM structured op's loop dims merge into fewer dims.
//!
//! - ops with `UniformReassociationFlattenTrait` run the pipeline of
//!   `collapseUniformReassociationPipeline`: the operand types (under
//!   their stride marks with `check_mark_stride`, `computeAnnotationMarkedOp`),
//!   then unit dims folded into their non-unit neighbour unless the op
//!   limits them (`getFlattenedUnit`), then neighbours merged where every
//!   operand is contiguous and the op's target dims allow it
//!   (`collapseUniformReassociation`);
//! - elementwise ops (`getFlattenedElementwise`) limit their inline
//!   broadcast dims (and then also require the inputs' sizes to agree), or
//!   flatten around an inline transpose (`getFlattenedTransposableOTF`);
//! - other structured ops keep every dim (`fillWithIdentity`).

use crate::ir::{is_dynamic, Attribute, Layout, MemRefType, Module, Type, ValueId};

use super::super::common::marks_of;
use super::super::op_table::attrs;
use super::super::strides::{collapse_if_memref, contiguous_axes, unit_axes};
use super::Structured;

/// Groups of original dims, one per flattened dim.
pub type Reassociation = Vec<Vec<usize>>;

/// `FlattenResult`.
#[derive(Clone, Debug, Default)]
pub struct FlattenResult {
    /// One reassociation for all operands, or the inputs' then the inits'.
    pub reassociation: Vec<Reassociation>,
    /// `(is DPS input, type after flattening, original value)` per HIVM
    /// operand (extra buffers excluded).
    pub operands: Vec<(bool, Type, ValueId)>,
    /// Dims no flattening may merge with others, after flattening.
    pub barrier_dims: Vec<i64>,
    /// The op's target dims before flattening.
    pub original_target_dims: Vec<i64>,
    /// The target dims after flattening.
    pub adjusted_target_dims: Vec<i64>,
}

/// Which operands [`FlattenResult::types`] returns (`DpsKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DpsKind {
    /// DPS inputs.
    Input,
    /// DPS inits.
    Init,
    /// All.
    All,
}

impl FlattenResult {
    /// `getRankAfterFlatten`.
    pub fn rank(&self) -> usize {
        match self.reassociation.first() {
            Some(r) if r.last().is_some_and(|g| !g.is_empty()) => r.len(),
            _ => 0,
        }
    }

    /// `getInputReassociation`.
    pub fn input_reassociation(&self) -> &Reassociation {
        static EMPTY: Vec<Vec<usize>> = Vec::new();
        self.reassociation.first().unwrap_or(&EMPTY)
    }

    /// `getInitReassociation`: the inits' reassociation, the common one
    /// when uniform.
    pub fn init_reassociation(&self) -> &Reassociation {
        static EMPTY: Vec<Vec<usize>> = Vec::new();
        self.reassociation.last().unwrap_or(&EMPTY)
    }

    /// `uniformReassociation`.
    pub fn uniform(&self) -> bool {
        self.reassociation.len() <= 1
    }

    /// `isIdentityCollapse`.
    pub fn is_identity_collapse(&self) -> bool {
        self.input_reassociation().iter().all(|g| g.len() == 1)
    }

    /// `getOperandTypes(kind)`.
    pub fn types(&self, kind: DpsKind) -> Vec<Type> {
        self.operands
            .iter()
            .filter(|(input, _, _)| match kind {
                DpsKind::Input => *input,
                DpsKind::Init => !*input,
                DpsKind::All => true,
            })
            .map(|(_, t, _)| t.clone())
            .collect()
    }

    /// `getOperandTypes(kind)` keeping only ranked memrefs of rank > 0
    /// (`util::getMemRefTypes`).
    pub fn memref_types(&self, kind: DpsKind) -> Vec<MemRefType> {
        memref_types(&self.types(kind))
    }

    /// `getOperandTypeAfterFlattened(value)`.
    pub fn type_of(&self, v: ValueId) -> Option<&Type> {
        self.operands
            .iter()
            .find(|(_, _, o)| *o == v)
            .map(|(_, t, _)| t)
    }

    /// The flattened group holding original dim `d` (`getMapedAlignDim`).
    pub fn group_of(&self, d: usize) -> Option<usize> {
        self.input_reassociation()
            .iter()
            .position(|g| g.contains(&d))
    }

    fn adjust_barrier_and_target_dims(&mut self, mapping: &[usize]) {
        self.adjusted_target_dims = new_indexing(&self.adjusted_target_dims, mapping);
        self.barrier_dims = new_indexing(&self.barrier_dims, mapping);
    }
}

/// `util::getMemRefTypes`: the ranked memrefs of rank > 0.
pub fn memref_types(types: &[Type]) -> Vec<MemRefType> {
    types
        .iter()
        .filter_map(|t| t.as_memref())
        .filter(|t| t.rank() > 0)
        .cloned()
        .collect()
}

/// Options of `getFlattened` (`FlattenOptions`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FlattenOptions {
    /// Read each memref operand under its stride marks.
    pub check_mark_stride: bool,
    /// Require the inputs' sizes to agree on merged dims.
    pub check_input_consistency: bool,
}

/// `getFlattened` of a structured op.
pub fn get_flattened(op: &Structured, mut options: FlattenOptions) -> FlattenResult {
    if !op.traits.has("UniformReassociationFlattenTrait") {
        return fill_with_identity(op);
    }
    if op.is_elementwise() {
        if op.exist_inline_broadcast_loop_dims() {
            options.check_input_consistency = true;
            let brc = op.loop_dims(super::IteratorType::Broadcast);
            return pipeline(op, options, &brc);
        }
        if op.exist_inline_transpose_loop_dims() {
            return transposable_otf(op);
        }
        return pipeline(op, options, &[]);
    }
    pipeline(op, options, &op.limited_axes())
}

/// `fillWithIdentity`: every HIVM operand with its type, one group per
/// dim of the last shaped operand's rank.
fn fill_with_identity(op: &Structured) -> FlattenResult {
    let mut r = FlattenResult::default();
    let mut rank = 0;
    for i in op.hivm_operands(false) {
        let v = op.operand(i);
        let t = op.m.value_type(v).clone();
        if let Some(s) = t.shape() {
            rank = s.len();
        }
        r.operands.push((op.is_input(i), t, v));
    }
    r.reassociation = vec![(0..rank).map(|i| vec![i]).collect()];
    r
}

/// `collapseUniformReassociationPipeline`.
fn pipeline(op: &Structured, options: FlattenOptions, barrier: &[i64]) -> FlattenResult {
    let mut payload = fill_with_identity(op);
    payload.barrier_dims = barrier.to_vec();
    payload.original_target_dims = barrier.to_vec();
    payload.adjusted_target_dims = barrier.to_vec();
    if options.check_mark_stride {
        for (_, t, v) in payload.operands.iter_mut() {
            if t.as_memref().is_some() {
                *t = marked_type(op.m, *v);
            }
        }
    }
    let unit = flatten_unit(&payload);
    let collapsed = collapse_uniform(op, &unit, options);
    compose(unit, collapsed)
}

/// `getFlattenedUnit`: unit dims (static 1 in every memref operand, not
/// limited by the op) join the group of the non-unit dim before them
/// (leading ones the first group).
fn flatten_unit(payload: &FlattenResult) -> FlattenResult {
    let mut unit = unit_axes(&payload.types(DpsKind::All));
    let rank = unit.len();
    if rank > 0 {
        for d in mask(&payload.barrier_dims, rank)
            .iter()
            .enumerate()
            .filter(|(_, &b)| b)
            .map(|(i, _)| i)
        {
            unit[d] = false;
        }
    }
    let reassociation = reassociation_from_unit_mask(&unit);
    let mut result = collapse_uniformly(payload, &reassociation);
    result.adjust_barrier_and_target_dims(&mapping(&reassociation));
    result
}

/// `getReassociationFromUnitMask`.
fn reassociation_from_unit_mask(unit: &[bool]) -> Reassociation {
    let rank = unit.len();
    let mut out: Reassociation = vec![Vec::new()];
    let mut idx = 0;
    while idx < rank && unit[idx] {
        out[0].push(idx);
        idx += 1;
    }
    let mut first = true;
    while idx < rank {
        if !first {
            out.push(Vec::new());
        }
        first = false;
        let last = out.len() - 1;
        out[last].push(idx);
        idx += 1;
        while idx < rank && unit[idx] {
            out[last].push(idx);
            idx += 1;
        }
    }
    out
}

/// `collapseUniformReassociation`: a new group starts at dim 0, where
/// the target mask changes, at every target dim of an op whose consecutive
/// targets may not merge, where some memref is not contiguous, and (with
/// input consistency) where the inputs' sizes differ.
fn collapse_uniform(
    op: &Structured,
    payload: &FlattenResult,
    options: FlattenOptions,
) -> FlattenResult {
    let rank = payload.rank();
    let target = mask(&payload.adjusted_target_dims, rank);
    let contiguous = contiguous_axes(&payload.types(DpsKind::All));
    let consistency = if options.check_input_consistency {
        input_consistency(&payload.types(DpsKind::Input))
    } else {
        Vec::new()
    };
    let collapsible_targets = op.traits.has("CollapsibleConsecutiveTargetDimsTrait");
    let mut reassociation: Reassociation = Vec::new();
    for i in 0..rank {
        let mut new_group = i == 0 || target[i - 1] != target[i];
        if !collapsible_targets && target[i] {
            new_group = true;
        }
        if !contiguous.get(i).copied().unwrap_or(true) {
            new_group = true;
        }
        if options.check_input_consistency {
            let mut merge = consistency.get(i).copied().unwrap_or(false);
            if i >= 1 && !consistency.get(i - 1).copied().unwrap_or(false) {
                merge = false;
            }
            if !merge {
                new_group = true;
            }
        }
        if new_group || reassociation.is_empty() {
            reassociation.push(Vec::new());
        }
        if let Some(g) = reassociation.last_mut() {
            g.push(i);
        }
    }
    let mut result = collapse_uniformly(payload, &reassociation);
    result.adjust_barrier_and_target_dims(&mapping(&reassociation));
    result
}

/// `getInputConsistencyMask`: per dim of the first memref input, whether
/// every memref input of the same rank has the same size there.
fn input_consistency(types: &[Type]) -> Vec<bool> {
    let mut pivot: Option<&MemRefType> = None;
    let mut out = Vec::new();
    for t in types {
        let Some(m) = t.as_memref() else { continue };
        match pivot {
            None => {
                pivot = Some(m);
                out = vec![true; m.rank()];
            }
            Some(p) if p.rank() == m.rank() => {
                for (i, (a, b)) in p.shape.iter().zip(&m.shape).enumerate() {
                    if a != b {
                        out[i] = false;
                    }
                }
            }
            Some(_) => {}
        }
    }
    out
}

/// `collapseOperandsUniformly`.
fn collapse_uniformly(payload: &FlattenResult, reassociation: &Reassociation) -> FlattenResult {
    let mut r = payload.clone();
    r.reassociation = vec![reassociation.clone()];
    for (_, t, _) in r.operands.iter_mut() {
        *t = collapse_if_memref(t, reassociation);
    }
    r
}

/// `composeFlattenResults(producer, consumer)`.
fn compose(producer: FlattenResult, consumer: FlattenResult) -> FlattenResult {
    if consumer.is_identity_collapse() {
        return producer;
    }
    if producer.is_identity_collapse() {
        return consumer;
    }
    let input = compose_reassociation(
        producer.input_reassociation(),
        consumer.input_reassociation(),
    );
    let mut out = consumer.clone();
    out.original_target_dims = producer.original_target_dims.clone();
    out.reassociation = vec![input];
    if !consumer.uniform() {
        out.reassociation.push(compose_reassociation(
            producer.init_reassociation(),
            consumer.init_reassociation(),
        ));
    }
    out
}

/// `composeReassociationIndices`: each outer group lists inner groups.
fn compose_reassociation(inner: &Reassociation, outer: &Reassociation) -> Reassociation {
    outer
        .iter()
        .map(|g| {
            g.iter()
                .flat_map(|&i| inner.get(i).cloned().unwrap_or_default())
                .collect()
        })
        .collect()
}

/// `getReassociationMapping`: the group of each original dim.
fn mapping(reassociation: &Reassociation) -> Vec<usize> {
    let n = reassociation.iter().map(Vec::len).sum();
    let mut out = vec![0; n];
    for (g, group) in reassociation.iter().enumerate() {
        for &d in group {
            if let Some(x) = out.get_mut(d) {
                *x = g;
            }
        }
    }
    out
}

/// `getNewIndexing`: dims mapped through `mapping`, duplicates dropped.
fn new_indexing(dims: &[i64], mapping: &[usize]) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for &d in dims {
        let Some(&g) = usize::try_from(d).ok().and_then(|d| mapping.get(d)) else {
            continue;
        };
        let g = g as i64;
        if !out.contains(&g) {
            out.push(g);
        }
    }
    out
}

/// `arrayToMask`.
fn mask(dims: &[i64], rank: usize) -> Vec<bool> {
    let mut m = vec![false; rank];
    for &d in dims {
        if let Some(x) = usize::try_from(d).ok().and_then(|d| m.get_mut(d)) {
            *x = true;
        }
    }
    m
}

/// `getAnnotationMarkByteAlignment`: the type of `v` with each stride
/// rounded up as its stride marks ask (a mark on dim `d` asks the lcm of
/// its elements for `d` and every dim before it); the type itself when
/// the strides already are. A re-strided type carries no memory space,
/// as the C++ builds it.
pub fn marked_type(m: &Module, v: ValueId) -> Type {
    let ty = m.value_type(v);
    let Some(mt) = ty.as_memref() else {
        return ty.clone();
    };
    let rank = mt.rank();
    let bits = i64::from(mt.element_bit_width().unwrap_or(8)).max(1);
    let mut elems = vec![1i64; rank];
    for mk in marks_of(m, v) {
        let d = m.op(mk);
        let (Some(dims), Some(bytes)) = (
            d.attr(attrs::DIMS).and_then(Attribute::as_int_array),
            d.attr(attrs::BYTES).and_then(Attribute::as_int_array),
        ) else {
            continue;
        };
        if dims.is_empty() || dims.len() != bytes.len() {
            continue;
        }
        for (&dim, &b) in dims.iter().zip(&bytes) {
            let Some(e) = usize::try_from(dim).ok().and_then(|d| elems.get_mut(d)) else {
                continue;
            };
            let n = b * 8 / bits;
            if n > 0 {
                *e = super::super::layout::lcm(*e, n);
            }
        }
    }
    for i in (0..rank.saturating_sub(1)).rev() {
        elems[i] = super::super::layout::lcm(elems[i], elems[i + 1]);
    }
    let Some((strides, offset)) = mt.strides_and_offset() else {
        return ty.clone();
    };
    let mut aligned = true;
    let mut new_strides = Vec::with_capacity(rank);
    for i in 0..rank {
        if elems[i] == 1 {
            new_strides.push(strides[i]);
            continue;
        }
        if is_dynamic(strides[i]) {
            aligned = false;
            new_strides.push(strides[i]);
            continue;
        }
        let s = super::super::layout::align_up(strides[i], elems[i]);
        if s != strides[i] {
            aligned = false;
        }
        new_strides.push(s);
    }
    if aligned {
        return ty.clone();
    }
    // `MemRefType::get(shape, element, layout)`: the re-strided type has
    // no memory space.
    Type::MemRef(MemRefType {
        memory_space: None,
        ..mt.with_layout(Layout::Strided {
            strides: new_strides,
            offset,
        })
    })
}

/// `getFlattenedTransposableOTF`: an elementwise op with an inline
/// transpose. Each memref operand first folds its own unit dims (never the
/// last); then runs of dims the permutation keeps in order merge where
/// both the inputs and the inits are contiguous, giving an input and an
/// init reassociation.
fn transposable_otf(op: &Structured) -> FlattenResult {
    let perm = op.permutation_array();
    // getFlattenedUnitTransposableOTF
    let mut unit = FlattenResult {
        original_target_dims: perm.clone(),
        ..FlattenResult::default()
    };
    let d = op.m.op(op.op);
    let mut input_mask: Vec<bool> = Vec::new();
    for (i, &v) in d.operands().iter().enumerate() {
        let t = op.m.value_type(v).clone();
        let input = op.is_input(i);
        match t.as_memref() {
            Some(mt) => {
                let mut um: Vec<bool> = mt.shape.iter().map(|&s| s == 1).collect();
                if let Some(l) = um.last_mut() {
                    *l = false;
                }
                let r = reassociation_from_unit_mask(&um);
                unit.operands.push((input, collapse_if_memref(&t, &r), v));
                unit.reassociation.push(r);
                if input {
                    input_mask = um;
                }
            }
            None => unit.operands.push((input, t, v)),
        }
    }
    let adjusted: Vec<i64> = perm
        .iter()
        .copied()
        .filter(|&p| {
            !usize::try_from(p)
                .ok()
                .and_then(|p| input_mask.get(p))
                .copied()
                .unwrap_or(false)
        })
        .collect();
    unit.adjusted_target_dims = compress(&adjusted);
    // getPermutationBlocks
    let rank = unit.rank();
    let inverse = inverse_permutation(&unit.adjusted_target_dims);
    let mut blocks: Vec<Vec<i64>> = Vec::new();
    for i in 0..rank.min(inverse.len()) {
        if i == 0 || inverse[i - 1] + 1 != inverse[i] {
            blocks.push(Vec::new());
        }
        if let Some(b) = blocks.last_mut() {
            b.push(inverse[i]);
        }
    }
    // getFragmentedPermutationAndInputReassociation
    let cont_in = contiguous_axes(&unit.types(DpsKind::Input));
    let cont_init = contiguous_axes(&unit.types(DpsKind::Init));
    let mut fragmented: Vec<Reassociation> = vec![Vec::new(); rank];
    let mut input_re: Reassociation = Vec::new();
    let mut index_input = 0usize;
    for block in &blocks {
        let mut part: Reassociation = Vec::new();
        for (j, &index_init) in block.iter().enumerate() {
            let mut new_group = j == 0;
            let ok_in = cont_in.get(index_input).copied().unwrap_or(true);
            let ok_init = usize::try_from(index_init)
                .ok()
                .and_then(|i| cont_init.get(i))
                .copied()
                .unwrap_or(true);
            if !ok_in || !ok_init {
                new_group = true;
            }
            if new_group {
                part.push(Vec::new());
            }
            if let Some(g) = part.last_mut() {
                g.push(index_input);
            }
            index_input += 1;
        }
        input_re.extend(part.iter().cloned());
        if let Some(slot) = block
            .first()
            .and_then(|&p| usize::try_from(p).ok())
            .and_then(|p| fragmented.get_mut(p))
        {
            *slot = part;
        }
    }
    let mut init_re: Reassociation = fragmented.into_iter().flatten().collect();
    let new_perm: Vec<i64> = init_re
        .iter()
        .filter_map(|g| g.first().map(|&x| x as i64))
        .collect();
    let mut res = FlattenResult {
        original_target_dims: unit.original_target_dims.clone(),
        adjusted_target_dims: compress(&new_perm),
        ..FlattenResult::default()
    };
    res.barrier_dims = res.adjusted_target_dims.clone();
    renumber(&mut init_re);
    for (input, t, v) in &unit.operands {
        if *input {
            res.operands
                .push((true, collapse_if_memref(t, &input_re), *v));
        }
    }
    for (input, t, v) in &unit.operands {
        if !*input {
            res.operands
                .push((false, collapse_if_memref(t, &init_re), *v));
        }
    }
    res.reassociation = vec![input_re, init_re];
    compose(unit, res)
}

/// `utils::compressElements`: each value replaced by its rank among the
/// values.
fn compress(v: &[i64]) -> Vec<i64> {
    let mut sorted = v.to_vec();
    sorted.sort_unstable();
    v.iter()
        .map(|x| sorted.iter().position(|y| y == x).unwrap_or(0) as i64)
        .collect()
}

/// `utils::inversePermutation`.
fn inverse_permutation(p: &[i64]) -> Vec<i64> {
    let mut inv = vec![0i64; p.len()];
    for (i, &x) in p.iter().enumerate() {
        if let Some(slot) = usize::try_from(x).ok().and_then(|x| inv.get_mut(x)) {
            *slot = i as i64;
        }
    }
    inv
}

/// `utils::renumberReassociation`: indices renumbered consecutively in
/// order of appearance.
fn renumber(r: &mut Reassociation) {
    let mut next = 0;
    for g in r.iter_mut() {
        for x in g.iter_mut() {
            *x = next;
            next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_masks_fold_into_the_previous_dim() {
        assert_eq!(
            reassociation_from_unit_mask(&[true, true, false, true, false, false, true]),
            vec![vec![0, 1, 2, 3], vec![4], vec![5, 6]]
        );
        assert_eq!(
            reassociation_from_unit_mask(&[true, true]),
            vec![vec![0, 1]]
        );
        assert_eq!(reassociation_from_unit_mask(&[]), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn compose_and_helpers() {
        let inner = vec![vec![0, 1], vec![2], vec![3, 4]];
        let outer = vec![vec![0], vec![1, 2]];
        assert_eq!(
            compose_reassociation(&inner, &outer),
            vec![vec![0, 1], vec![2, 3, 4]]
        );
        assert_eq!(compress(&[2, 0, 4, 5]), vec![1, 0, 2, 3]);
        assert_eq!(inverse_permutation(&[1, 2, 0]), vec![2, 0, 1]);
        let mut r = vec![vec![3, 4], vec![6], vec![0]];
        renumber(&mut r);
        assert_eq!(r, vec![vec![0, 1], vec![2], vec![3]]);
        assert_eq!(new_indexing(&[1, 2], &[0, 1, 1]), vec![1]);
    }
}
