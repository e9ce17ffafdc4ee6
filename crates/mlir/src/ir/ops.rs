//! How the known ops are stored, with typed accessors and builders.
//!
//! Custom assembly forms are read into MLIR's own generic representation:
//! inherent attributes use MLIR's property names and operands are split in
//! segments, so passes see the same structure as MLIR code does:
//!
//! | op | operands (segments) | attributes |
//! |---|---|---|
//! | `func.func` | — (1 region) | `sym_name`, `function_type`, `sym_visibility`?, `arg_attrs`?, `res_attrs`? |
//! | `func.call` | args | `callee` (symbol ref) |
//! | `func.return`, `scf.yield`, `scope.return` | values | — |
//! | `arith.constant` | — | `value` |
//! | `arith.cmpi` / `arith.cmpf` | lhs, rhs | `predicate` (i64, MLIR numbering) |
//! | `memref.alloc` / `alloca` | \[dynamic sizes\], \[symbols\] | `alignment`? |
//! | `memref.subview` / `reinterpret_cast` | \[source\], \[offsets\], \[sizes\], \[strides\] (dynamic ones) | `static_offsets`, `static_sizes`, `static_strides` (`array<i64>`, [`DYNAMIC`] for dynamic) |
//! | `memref.collapse_shape` | source | `reassociation` (array of arrays of i64) |
//! | `memref.expand_shape` | \[source\], \[dynamic output sizes\] | `reassociation`, `static_output_shape`? |
//! | `memref.view` | \[source\], \[byte shift\], \[sizes\] | — |
//! | `memref.reshape` | source, shape | — |
//! | `memref.load` | \[memref\], \[indices\] | — |
//! | `memref.store` | \[value\], \[memref\], \[indices\] | — |
//! | `scf.for` | lb, ub, step, inits… (1 region: iv, iter args) | — |
//! | `scf.if` | cond (2 regions, else may be empty) | — |
//! | `vector.transfer_read` | \[base\], \[indices\], \[padding\], \[mask\] | `in_bounds`?, `permutation_map`? |
//! | `vector.transfer_write` | \[vector\], \[base\], \[indices\], \[mask\] | same |
//! | `hivm.hir.*` structured | one segment per group/clause, see [`crate::ir::OpData::group`] | all named attributes |
//!
//! Operand and result types are never stored separately from the values:
//! printing takes them from the values, so retyping a value retypes every
//! textual occurrence.

/// `hivm.hir.custom`: a call of a user function; its `ins(...)` types may
/// carry per-operand attribute dictionaries.
pub const CUSTOM_OP: &str = "hivm.hir.custom";
/// `hivm.hir.custom_macro`: like [`CUSTOM_OP`], over two pipes.
pub const CUSTOM_MACRO_OP: &str = "hivm.hir.custom_macro";
/// The attribute of a custom op holding one dictionary per `ins` operand
/// (`CustomOp::kArgAttrsName`), written after each type inside `ins(...)`.
pub const ARG_ATTRS: &str = "arg_attrs";
/// The attribute of a custom op holding the callee, written as a bare
/// string after the attribute dictionary (`StrAttr:$name`).
pub const CUSTOM_NAME: &str = "name";

use crate::ir::{
    Attribute, BlockId, FunctionType, InsertPoint, Location, MemRefType, Module, OpId, OpSpec,
    Piece, Syntax, Type, ValueId, DYNAMIC,
};

/// A static or dynamic offset/size/stride (MLIR's `OpFoldResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ofr {
    /// A constant.
    Static(i64),
    /// An SSA value of type `index`.
    Dynamic(ValueId),
}

impl Ofr {
    /// The constant, if static.
    pub fn as_static(self) -> Option<i64> {
        match self {
            Ofr::Static(v) => Some(v),
            Ofr::Dynamic(_) => None,
        }
    }
}

/// The parts of a `memref.subview` / `memref.reinterpret_cast`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceParts {
    /// The source memref.
    pub source: ValueId,
    /// Offsets.
    pub offsets: Vec<Ofr>,
    /// Sizes.
    pub sizes: Vec<Ofr>,
    /// Strides.
    pub strides: Vec<Ofr>,
}

fn mixed(statics: &[i64], dynamics: &[ValueId]) -> Vec<Ofr> {
    let mut dyn_iter = dynamics.iter();
    statics
        .iter()
        .map(|&s| {
            if s == DYNAMIC {
                dyn_iter
                    .next()
                    .map(|&v| Ofr::Dynamic(v))
                    .unwrap_or(Ofr::Static(DYNAMIC))
            } else {
                Ofr::Static(s)
            }
        })
        .collect()
}

fn split(ofrs: &[Ofr]) -> (Vec<i64>, Vec<ValueId>) {
    let mut statics = Vec::with_capacity(ofrs.len());
    let mut dynamics = Vec::new();
    for o in ofrs {
        match *o {
            Ofr::Static(v) => statics.push(v),
            Ofr::Dynamic(v) => {
                statics.push(DYNAMIC);
                dynamics.push(v);
            }
        }
    }
    (statics, dynamics)
}

impl Module {
    /// Offsets/sizes/strides of a `memref.subview` or `memref.reinterpret_cast`.
    pub fn slice_parts(&self, op: OpId) -> Option<SliceParts> {
        let d = self.op(op);
        let source = d.segment(0).first().copied()?;
        let get = |name: &str| d.attr(name).and_then(Attribute::as_int_array);
        Some(SliceParts {
            source,
            offsets: mixed(&get("static_offsets")?, d.segment(1)),
            sizes: mixed(&get("static_sizes")?, d.segment(2)),
            strides: mixed(&get("static_strides")?, d.segment(3)),
        })
    }

    /// The op spec of a `memref.subview` of `source` with result type `ty`.
    pub fn subview_spec(
        &self,
        source: ValueId,
        offsets: &[Ofr],
        sizes: &[Ofr],
        strides: &[Ofr],
        ty: Type,
        loc: Location,
    ) -> OpSpec {
        let (so, dof) = split(offsets);
        let (ss, dsz) = split(sizes);
        let (st, dst) = split(strides);
        let segments = vec![1, dof.len() as u32, dsz.len() as u32, dst.len() as u32];
        let mut operands = vec![source];
        operands.extend(dof);
        operands.extend(dsz);
        operands.extend(dst);
        OpSpec::new("memref.subview", loc)
            .operands(operands)
            .results([ty])
            .attr("static_offsets", Attribute::dense_i64(so))
            .attr("static_sizes", Attribute::dense_i64(ss))
            .attr("static_strides", Attribute::dense_i64(st))
            .segments(segments)
    }

    /// The op spec of `memref.alloc(dynamic sizes) : ty`.
    pub fn alloc_spec(&self, ty: MemRefType, dynamic_sizes: &[ValueId], loc: Location) -> OpSpec {
        OpSpec::new("memref.alloc", loc)
            .operands(dynamic_sizes.iter().copied())
            .results([Type::MemRef(ty)])
            .segments(vec![dynamic_sizes.len() as u32, 0])
    }

    /// The op spec of `arith.constant value : ty` (`ty` index or integer).
    pub fn int_constant_spec(&self, value: i64, ty: Type, loc: Location) -> OpSpec {
        OpSpec::new("arith.constant", loc)
            .results([ty.clone()])
            .attr(
                "value",
                Attribute::Integer {
                    value: value.into(),
                    ty,
                },
            )
    }

    /// Builds `arith.constant value : index` at `at`; returns the value.
    pub fn build_index_constant(&mut self, value: i64, at: InsertPoint, loc: Location) -> ValueId {
        let spec = self.int_constant_spec(value, Type::Index, loc);
        let op = self.build(spec, at);
        self.op(op).results()[0]
    }

    /// `arith.constant value : ty` (index or integer) for use at or inside
    /// `near`, materialised once at the top of the enclosing function as
    /// MLIR's `OperationFolder::getOrCreateConstant` does: an
    /// `arith.constant` of the same value and type already in the
    /// function's entry block is reused; otherwise a new one is inserted at
    /// the start of the entry block (so constants a pass creates one after
    /// another end up in reverse creation order, as with the folder). Ops
    /// outside any function get the constant right before them.
    pub fn constant_at_function_top(
        &mut self,
        near: OpId,
        value: i64,
        ty: Type,
        loc: Location,
    ) -> ValueId {
        let func = if self.op(near).is("func.func") {
            Some(near)
        } else {
            self.ancestor_named(near, "func.func")
        };
        let Some(entry) = func.and_then(|f| self.func_body(f)) else {
            return self.build_index_constant_typed(value, ty, InsertPoint::Before(near), loc);
        };
        let wanted = Attribute::Integer {
            value: value.into(),
            ty: ty.clone(),
        };
        let existing = self.block_ops(entry).find(|&o| {
            let d = self.op(o);
            d.is("arith.constant")
                && d.attr("value") == Some(&wanted)
                && d.results().len() == 1
                && *self.value_type(d.results()[0]) == ty
        });
        match existing {
            Some(o) => self.op(o).results()[0],
            None => self.build_index_constant_typed(value, ty, InsertPoint::BlockStart(entry), loc),
        }
    }

    fn build_index_constant_typed(
        &mut self,
        value: i64,
        ty: Type,
        at: InsertPoint,
        loc: Location,
    ) -> ValueId {
        let spec = self.int_constant_spec(value, ty, loc);
        let op = self.build(spec, at);
        self.op(op).results()[0]
    }

    /// Builds a binary arith op (`arith.addi`, `arith.remsi`, ...) whose
    /// result has the type of `lhs`; returns the result.
    pub fn build_binary(
        &mut self,
        name: &str,
        lhs: ValueId,
        rhs: ValueId,
        at: InsertPoint,
        loc: Location,
    ) -> ValueId {
        let ty = self.value_type(lhs).clone();
        let op = self.build(
            OpSpec::new(name, loc).operands([lhs, rhs]).results([ty]),
            at,
        );
        self.op(op).results()[0]
    }

    /// Builds `annotation.mark %value {attrs} : T` at `at`.
    pub fn build_mark(
        &mut self,
        value: ValueId,
        attrs: impl IntoIterator<Item = (String, Attribute)>,
        at: InsertPoint,
        loc: Location,
    ) -> OpId {
        let mut spec = OpSpec::new("annotation.mark", loc).operands([value]);
        for (n, a) in attrs {
            spec.attrs.set(n, a);
        }
        self.build(spec, at)
    }

    /// The op spec of a structured HIVM op printed as
    /// `name ins(..) outs(..)` followed by the attribute dictionary.
    pub fn structured_spec(
        &self,
        name: &str,
        ins: &[ValueId],
        outs: &[ValueId],
        loc: Location,
    ) -> OpSpec {
        if let Some(spec) = ods_structured_spec(name, ins, outs, loc) {
            return spec;
        }
        let mut spec = OpSpec::new(name, loc)
            .operands(ins.iter().chain(outs).copied())
            .segments(vec![ins.len() as u32, outs.len() as u32]);
        spec.syntax = Some(Box::new(Syntax {
            pieces: vec![
                Piece::AttrDict,
                Piece::Group {
                    keyword: "ins".into(),
                    segment: 0,
                    typed: true,
                },
                Piece::Group {
                    keyword: "outs".into(),
                    segment: 1,
                    typed: true,
                },
            ],
        }));
        spec
    }

    /// The reassociation of `memref.collapse_shape` / `expand_shape`.
    pub fn reassociation(&self, op: OpId) -> Option<Vec<Vec<i64>>> {
        self.attr(op, "reassociation")?
            .as_array()?
            .iter()
            .map(Attribute::as_int_array)
            .collect()
    }

    /// Name of a `func.func`.
    pub fn func_name(&self, func: OpId) -> Option<&str> {
        self.attr(func, "sym_name").and_then(Attribute::as_str)
    }

    /// Function type of a `func.func`.
    pub fn func_type(&self, func: OpId) -> Option<&FunctionType> {
        match self.attr(func, "function_type")?.as_type()? {
            Type::Function(f) => Some(f),
            _ => None,
        }
    }

    /// Whether a `func.func` is a declaration (no body).
    pub fn func_is_declaration(&self, func: OpId) -> bool {
        self.entry_block(func, 0).is_none()
    }

    /// The entry block of a `func.func` with a body.
    pub fn func_body(&self, func: OpId) -> Option<BlockId> {
        self.entry_block(func, 0)
    }

    /// The attribute dictionary of argument `i` of a `func.func`.
    pub fn func_arg_attrs(&self, func: OpId, i: usize) -> Option<&crate::ir::NamedAttrs> {
        self.attr(func, "arg_attrs")?.as_array()?.get(i)?.as_dict()
    }

    /// The callee of a `func.call`.
    pub fn call_callee(&self, call: OpId) -> Option<&str> {
        self.attr(call, "callee").and_then(Attribute::as_symbol)
    }

    /// The parts of an `scf.for`.
    pub fn for_parts(&self, op: OpId) -> Option<ForParts> {
        let d = self.op(op);
        if d.operands().len() < 3 {
            return None;
        }
        let body = self.entry_block(op, 0)?;
        let args = self.block_args(body);
        let (&iv, iter_args) = args.split_first()?;
        Some(ForParts {
            lower: d.operands()[0],
            upper: d.operands()[1],
            step: d.operands()[2],
            inits: d.operands()[3..].to_vec(),
            iv,
            iter_args: iter_args.to_vec(),
            results: d.results().to_vec(),
            body,
            yield_op: self.last_op(body),
        })
    }
}

/// `name ins(..) outs(..)` laid out as the op's ODS format reads it: one
/// operand segment per ODS operand, `ins` and `outs` values in the
/// operands their groups name (so it prints by the format, attr-dict
/// where the format puts it). `None` when the format has no single-operand
/// `ins`/`outs` groups that take these values.
fn ods_structured_spec(
    name: &str,
    ins: &[ValueId],
    outs: &[ValueId],
    loc: Location,
) -> Option<OpSpec> {
    use crate::ir::format::{group_operands, op_format};
    use crate::ir::ods::Arity;
    let (ods, elems) = op_format(name)?;
    let (gi, go) = (
        group_operands(elems, "ins")?,
        group_operands(elems, "outs")?,
    );
    let ([i], [o]) = (gi.as_slice(), go.as_slice()) else {
        return None;
    };
    let fits = |k: usize, n: usize| match ods.operands[k].1 {
        Arity::Single => n == 1,
        Arity::Optional => n <= 1,
        Arity::Variadic => true,
    };
    if !fits(*i, ins.len()) || !fits(*o, outs.len()) || i == o {
        return None;
    }
    let mut operands = Vec::new();
    let mut segments = Vec::new();
    for k in 0..ods.operands.len() {
        let vals: &[ValueId] = if k == *i {
            ins
        } else if k == *o {
            outs
        } else {
            if ods.operands[k].1 == Arity::Single {
                return None;
            }
            &[]
        };
        operands.extend_from_slice(vals);
        segments.push(vals.len() as u32);
    }
    Some(OpSpec::new(name, loc).operands(operands).segments(segments))
}

/// The parts of an `scf.for`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForParts {
    /// Lower bound.
    pub lower: ValueId,
    /// Upper bound.
    pub upper: ValueId,
    /// Step.
    pub step: ValueId,
    /// `iter_args` initial values.
    pub inits: Vec<ValueId>,
    /// Induction variable.
    pub iv: ValueId,
    /// Region iter args (one per init).
    pub iter_args: Vec<ValueId>,
    /// Loop results (one per init).
    pub results: Vec<ValueId>,
    /// The body block.
    pub body: BlockId,
    /// The terminating `scf.yield` (if the body has ops).
    pub yield_op: Option<OpId>,
}
