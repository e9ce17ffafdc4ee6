//! Declarative formats of the upstream ops HIVM programs use that the
//! reader has no fixed form for (tensor, bufferization, memref_ext,
//! vector), in
//! the same format language as the generated `hivm`/`ave` table: each row
//! is the op's `assemblyFormat` as MLIR (LLVM 19) declares it, so reading
//! and printing go through the same interpreter. Result types a format
//! omits come from [`infer`], the ops' `inferReturnTypes`.

use crate::ir::ods::{Arity, OdsAttr, OdsOp, Presence};
use crate::ir::{Attribute, MemRefType, Type, VectorType};

const fn unit(name: &'static str) -> OdsAttr {
    OdsAttr {
        name,
        kind: "unit",
        presence: Presence::Optional,
        default: None,
    }
}

const fn array(name: &'static str) -> OdsAttr {
    OdsAttr {
        name,
        kind: "array:i64",
        presence: Presence::Required,
        default: None,
    }
}

const fn any(name: &'static str) -> OdsAttr {
    OdsAttr {
        name,
        kind: "any",
        presence: Presence::Required,
        default: None,
    }
}

use Arity::{Optional, Single, Variadic};

/// The upstream rows.
pub static OPS: &[OdsOp] = &[
    OdsOp {
        name: "bufferization.to_tensor",
        operands: &[("memref", Single)],
        attrs: &[unit("restrict"), unit("writable")],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$memref (`restrict` $restrict^)? (`writable` $writable^)? attr-dict `:` type($memref)",
        ),
    },
    OdsOp {
        name: "bufferization.to_memref",
        operands: &[("tensor", Single)],
        attrs: &[unit("read_only")],
        results: &[("memref", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$tensor (`read_only` $read_only^)? attr-dict `:` type($memref)"),
    },
    OdsOp {
        name: "bufferization.materialize_in_destination",
        operands: &[("source", Single), ("dest", Single)],
        attrs: &[unit("restrict"), unit("writable")],
        results: &[("result", Optional)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$source `in` (`restrict` $restrict^)? (`writable` $writable^)? $dest attr-dict `:` functional-type(operands, results)",
        ),
    },
    OdsOp {
        name: "bufferization.alloc_tensor",
        operands: &[("dynamic_sizes", Variadic), ("copy", Optional), ("size_hint", Optional)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "`(` $dynamic_sizes `)` (`copy` `(` $copy^ `)`)? (`size_hint` `=` $size_hint^)? attr-dict `:` type($result)",
        ),
    },
    OdsOp {
        name: "tensor.empty",
        operands: &[("dynamicSizes", Variadic)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("`(`$dynamicSizes`)` attr-dict `:` type($result)"),
    },
    OdsOp {
        name: "tensor.extract",
        operands: &[("tensor", Single), ("indices", Variadic)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$tensor `[` $indices `]` attr-dict `:` type($tensor)"),
    },
    OdsOp {
        name: "tensor.insert",
        operands: &[("scalar", Single), ("dest", Single), ("indices", Variadic)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[&["dest", "result"]],
        successors: &[],
        format: Some("$scalar `into` $dest `[` $indices `]` attr-dict `:` type($dest)"),
    },
    OdsOp {
        name: "tensor.dim",
        operands: &[("source", Single), ("index", Single)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("attr-dict $source `,` $index `:` type($source)"),
    },
    OdsOp {
        name: "tensor.splat",
        operands: &[("input", Single)],
        attrs: &[],
        results: &[("aggregate", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$input attr-dict `:` type($aggregate)"),
    },
    OdsOp {
        name: "tensor.cast",
        operands: &[("source", Single)],
        attrs: &[],
        results: &[("dest", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$source attr-dict `:` type($source) `to` type($dest)"),
    },
    OdsOp {
        name: "tensor.bitcast",
        operands: &[("source", Single)],
        attrs: &[],
        results: &[("dest", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$source attr-dict `:` type($source) `to` type($dest)"),
    },
    OdsOp {
        name: "tensor.from_elements",
        operands: &[("elements", Variadic)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$elements attr-dict `:` type($result)"),
    },
    OdsOp {
        name: "tensor.collapse_shape",
        operands: &[("src", Single)],
        attrs: &[any("reassociation")],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$src $reassociation attr-dict `:` type($src) `into` type($result)"),
    },
    OdsOp {
        name: "tensor.expand_shape",
        operands: &[("src", Single), ("output_shape", Variadic)],
        attrs: &[any("reassociation"), array("static_output_shape")],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$src $reassociation `output_shape` custom<DynamicIndexList>($output_shape, $static_output_shape) attr-dict `:` type($src) `into` type($result)",
        ),
    },
    OdsOp {
        name: "tensor.extract_slice",
        operands: &[("source", Single), ("offsets", Variadic), ("sizes", Variadic), ("strides", Variadic)],
        attrs: &[array("static_offsets"), array("static_sizes"), array("static_strides")],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(EXTRACT_SLICE_TEXT),
    },
    OdsOp {
        name: "tensor.insert_slice",
        operands: &[
            ("source", Single),
            ("dest", Single),
            ("offsets", Variadic),
            ("sizes", Variadic),
            ("strides", Variadic),
        ],
        attrs: &[array("static_offsets"), array("static_sizes"), array("static_strides")],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[&["dest", "result"]],
        successors: &[],
        format: Some(INSERT_SLICE_TEXT),
    },
    OdsOp {
        name: "memref_ext.alloc_workspace",
        operands: &[("dynamicSize", Variadic), ("workspaceArg", Optional), ("offset", Variadic)],
        attrs: &[],
        results: &[("memref", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "`(`$dynamicSize`)` (`from` $workspaceArg^)? (`offset` `=` `[` $offset^ `]`)? attr-dict `:` (`from` type($workspaceArg)^ `to`)? type($memref)",
        ),
    },
];

/// Control flow, linalg and annotation rows.
pub static MORE: &[OdsOp] = &[
    OdsOp {
        name: "cf.br",
        operands: &[("destOperands", Variadic)],
        attrs: &[],
        results: &[],
        regions: 0,
        same_types: &[],
        successors: &["dest"],
        format: Some("$dest (`(` $destOperands^ `:` type($destOperands) `)`)? attr-dict"),
    },
    OdsOp {
        name: "cf.cond_br",
        operands: &[
            ("condition", Single),
            ("trueDestOperands", Variadic),
            ("falseDestOperands", Variadic),
        ],
        attrs: &[],
        results: &[],
        regions: 0,
        same_types: &[],
        successors: &["trueDest", "falseDest"],
        format: Some(
            "$condition `,` $trueDest (`(` $trueDestOperands^ `:` type($trueDestOperands) `)`)? `,` $falseDest (`(` $falseDestOperands^ `:` type($falseDestOperands) `)`)? attr-dict",
        ),
    },
    OdsOp {
        name: "cf.assert",
        operands: &[("arg", Single)],
        attrs: &[OdsAttr {
            name: "msg",
            kind: "str",
            presence: Presence::Required,
            default: None,
        }],
        results: &[],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$arg `,` $msg attr-dict"),
    },
    OdsOp {
        name: "annotation.mark",
        operands: &[("src", Single), ("values", Variadic)],
        attrs: &[OdsAttr {
            name: "keys",
            kind: "any",
            presence: Presence::Optional,
            default: None,
        }],
        results: &[],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$src attr-dict (`keys` `=` $keys^ `values` `=` `[` $values `:` type($values) `]`)? `:` type($src)",
        ),
    },
    OdsOp {
        name: "linalg.transpose",
        operands: &[("input", Single), ("init", Single)],
        attrs: &[array("permutation")],
        results: &[("result", Variadic)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "`ins` `(` $input `:` type($input) `)` `outs` `(` $init `:` type($init) `)` `permutation` `=` $permutation attr-dict",
        ),
    },
    OdsOp {
        name: "linalg.broadcast",
        operands: &[("input", Single), ("init", Single)],
        attrs: &[array("dimensions")],
        results: &[("result", Variadic)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "`ins` `(` $input `:` type($input) `)` `outs` `(` $init `:` type($init) `)` `dimensions` `=` $dimensions attr-dict",
        ),
    },
    OdsOp {
        name: "transform.structured.match",
        operands: &[("target", Single)],
        attrs: &[
            OdsAttr {
                name: "ops",
                kind: "any",
                presence: Presence::Optional,
                default: None,
            },
            OdsAttr {
                name: "interface",
                kind: "any",
                presence: Presence::Optional,
                default: None,
            },
            OdsAttr {
                name: "op_attrs",
                kind: "any",
                presence: Presence::Optional,
                default: None,
            },
        ],
        results: &[("results", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "(`ops` `{` $ops^ `}`)? (`interface` `{` $interface^ `}`)? (`attributes` $op_attrs^)? `in` $target attr-dict `:` functional-type($target, results)",
        ),
    },
    OdsOp {
        name: "transform.structured.tile_using_for",
        operands: &[("target", Single), ("dynamic_sizes", Variadic)],
        attrs: &[
            array("static_sizes"),
            OdsAttr {
                name: "interchange",
                kind: "array:i64",
                presence: Presence::Optional,
                default: None,
            },
        ],
        results: &[("tiled_linalg_op", Single), ("loops", Variadic)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$target `tile_sizes` custom<DynamicIndexList>($dynamic_sizes, $static_sizes) (`interchange` `=` $interchange^)? attr-dict `:` functional-type(operands, results)",
        ),
    },
    OdsOp {
        name: "transform.split_handle",
        operands: &[("handle", Single)],
        attrs: &[],
        results: &[("results", Variadic)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$handle attr-dict `:` functional-type(operands, results)"),
    },
    OdsOp {
        name: "transform.structured.fuse_into_containing_op",
        operands: &[("producer_op", Single), ("containing_op", Single)],
        attrs: &[],
        results: &[("fused_op", Single), ("new_containing_op", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$producer_op `into` $containing_op attr-dict `:` functional-type(operands, results)",
        ),
    },
    OdsOp {
        name: "transform.func.get_func_argument",
        operands: &[("target", Single)],
        attrs: &[OdsAttr {
            name: "raw_position",
            kind: "int:i64",
            presence: Presence::Required,
            default: None,
        }],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$target `[` $raw_position `]` attr-dict `:` functional-type(operands, results)",
        ),
    },
    OdsOp {
        name: "transform.hivm.map_forall_to_blocks",
        operands: &[("target", Single)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$target attr-dict `:` functional-type(operands, results)"),
    },
    OdsOp {
        name: "builtin.unrealized_conversion_cast",
        operands: &[("inputs", Variadic)],
        attrs: &[],
        results: &[("outputs", Variadic)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("($inputs^ `:` type($inputs))? `to` type($outputs) attr-dict"),
    },
    OdsOp {
        name: "arith.mulsi_extended",
        operands: &[("lhs", Single), ("rhs", Single)],
        attrs: &[],
        results: &[("low", Single), ("high", Single)],
        regions: 0,
        same_types: &[&["lhs", "rhs", "low", "high"]],
        successors: &[],
        format: Some("$lhs `,` $rhs attr-dict `:` type($lhs)"),
    },
    OdsOp {
        name: "arith.mului_extended",
        operands: &[("lhs", Single), ("rhs", Single)],
        attrs: &[],
        results: &[("low", Single), ("high", Single)],
        regions: 0,
        same_types: &[&["lhs", "rhs", "low", "high"]],
        successors: &[],
        format: Some("$lhs `,` $rhs attr-dict `:` type($lhs)"),
    },
    OdsOp {
        name: "vector.reduction",
        operands: &[("vector", Single), ("acc", Optional)],
        attrs: &[
            OdsAttr {
                name: "kind",
                kind: "enum:vector.kind",
                presence: Presence::Required,
                default: None,
            },
            OdsAttr {
                name: "fastmath",
                kind: "enum:arith.fastmath",
                presence: Presence::Default,
                default: None,
            },
        ],
        results: &[("dest", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$kind `,` $vector (`,` $acc^)? (`fastmath` `` $fastmath^)? attr-dict `:` type($vector) `into` type($dest)",
        ),
    },
    OdsOp {
        name: "memref.extract_aligned_pointer_as_index",
        operands: &[("source", Single)],
        attrs: &[],
        results: &[("aligned_pointer", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$source `:` type($source) `->` type(results) attr-dict"),
    },
    OdsOp {
        name: "vector.extractelement",
        operands: &[("vector", Single), ("position", Optional)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$vector `[` ($position^ `:` type($position))? `]` attr-dict `:` type($vector)",
        ),
    },
    OdsOp {
        name: "vector.insertelement",
        operands: &[("source", Single), ("dest", Single), ("position", Optional)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[&["dest", "result"]],
        successors: &[],
        format: Some(
            "$source `,` $dest `[` ($position^ `:` type($position))? `]` attr-dict `:` type($result)",
        ),
    },
    OdsOp {
        name: "vector.extract",
        operands: &[("vector", Single), ("dynamic_position", Variadic)],
        attrs: &[array("static_position")],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$vector `` custom<DynamicIndexList>($dynamic_position, $static_position) attr-dict `:` type($result) `from` type($vector)",
        ),
    },
    OdsOp {
        name: "vector.insert",
        operands: &[("source", Single), ("dest", Single), ("dynamic_position", Variadic)],
        attrs: &[array("static_position")],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[&["dest", "result"]],
        successors: &[],
        format: Some(
            "$source `,` $dest custom<DynamicIndexList>($dynamic_position, $static_position) attr-dict `:` type($source) `into` type($dest)",
        ),
    },
    OdsOp {
        name: "vector.splat",
        operands: &[("input", Single)],
        attrs: &[],
        results: &[("aggregate", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$input attr-dict `:` type($aggregate)"),
    },
    OdsOp {
        name: "vector.fma",
        operands: &[("lhs", Single), ("rhs", Single), ("acc", Single)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[&["lhs", "rhs", "acc", "result"]],
        successors: &[],
        format: Some("$lhs `,` $rhs `,` $acc attr-dict `:` type($lhs)"),
    },
    OdsOp {
        name: "vector.load",
        operands: &[("base", Single), ("indices", Variadic)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$base `[` $indices `]` attr-dict `:` type($base) `,` type($result)"),
    },
    OdsOp {
        name: "vector.store",
        operands: &[("valueToStore", Single), ("base", Single), ("indices", Variadic)],
        attrs: &[],
        results: &[],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$valueToStore `,` $base `[` $indices `]` attr-dict `:` type($base) `,` type($valueToStore)",
        ),
    },
    OdsOp {
        name: "vector.gather",
        operands: &[
            ("base", Single),
            ("indices", Variadic),
            ("index_vec", Single),
            ("mask", Single),
            ("pass_thru", Single),
        ],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$base `[` $indices `]` `[` $index_vec `]` `,` $mask `,` $pass_thru attr-dict `:` type($base) `,` type($index_vec) `,` type($mask) `,` type($pass_thru) `into` type($result)",
        ),
    },
    OdsOp {
        name: "vector.scatter",
        operands: &[
            ("base", Single),
            ("indices", Variadic),
            ("index_vec", Single),
            ("mask", Single),
            ("valueToStore", Single),
        ],
        attrs: &[],
        results: &[],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$base `[` $indices `]` `[` $index_vec `]` `,` $mask `,` $valueToStore attr-dict `:` type($base) `,` type($index_vec) `,` type($mask) `,` type($valueToStore)",
        ),
    },
    OdsOp {
        name: "vector.from_elements",
        operands: &[("elements", Variadic)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$elements attr-dict `:` type($result)"),
    },
    OdsOp {
        name: "vector.step",
        operands: &[],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("attr-dict `:` type($result)"),
    },
    OdsOp {
        name: "vector.interleave",
        operands: &[("lhs", Single), ("rhs", Single)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[&["lhs", "rhs"]],
        successors: &[],
        format: Some("$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"),
    },
    OdsOp {
        name: "vector.deinterleave",
        operands: &[("source", Single)],
        attrs: &[],
        results: &[("res1", Single), ("res2", Single)],
        regions: 0,
        same_types: &[&["res1", "res2"]],
        successors: &[],
        format: Some("$source attr-dict `:` type($source) `->` type($res1)"),
    },
    OdsOp {
        name: "vector.extract_strided_slice",
        operands: &[("vector", Single)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("$vector attr-dict `:` type($vector) `to` type(results)"),
    },
    OdsOp {
        name: "vector.insert_strided_slice",
        operands: &[("source", Single), ("dest", Single)],
        attrs: &[],
        results: &[("res", Single)],
        regions: 0,
        same_types: &[&["dest", "res"]],
        successors: &[],
        format: Some("$source `,` $dest attr-dict `:` type($source) `into` type($dest)"),
    },
    OdsOp {
        name: "vector.shuffle",
        operands: &[("v1", Single), ("v2", Single)],
        attrs: &[array("mask")],
        results: &[("vector", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some("operands $mask attr-dict `:` type(operands)"),
    },
    OdsOp {
        name: "vector.maskedload",
        operands: &[("base", Single), ("indices", Variadic), ("mask", Single), ("pass_thru", Single)],
        attrs: &[],
        results: &[("result", Single)],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$base `[` $indices `]` `,` $mask `,` $pass_thru attr-dict `:` type($base) `,` type($mask) `,` type($pass_thru) `into` type($result)",
        ),
    },
    OdsOp {
        name: "vector.maskedstore",
        operands: &[("base", Single), ("indices", Variadic), ("mask", Single), ("valueToStore", Single)],
        attrs: &[],
        results: &[],
        regions: 0,
        same_types: &[],
        successors: &[],
        format: Some(
            "$base `[` $indices `]` `,` $mask `,` $valueToStore attr-dict `:` type($base) `,` type($mask) `,` type($valueToStore)",
        ),
    },
];

/// `tensor.parallel_insert_slice` (inside `scf.forall.in_parallel`).
pub static PARALLEL_INSERT_SLICE: OdsOp = OdsOp {
    name: "tensor.parallel_insert_slice",
    operands: &[
        ("source", Single),
        ("dest", Single),
        ("offsets", Variadic),
        ("sizes", Variadic),
        ("strides", Variadic),
    ],
    attrs: &[
        array("static_offsets"),
        array("static_sizes"),
        array("static_strides"),
    ],
    results: &[],
    regions: 0,
    same_types: &[],
    successors: &[],
    format: Some(INSERT_SLICE_TEXT),
};

/// `tensor.extract_slice`.
const EXTRACT_SLICE_TEXT: &str = "$source `` custom<DynamicIndexList>($offsets, $static_offsets) custom<DynamicIndexList>($sizes, $static_sizes) custom<DynamicIndexList>($strides, $static_strides) attr-dict `:` type($source) `to` type($result)";
/// `tensor.insert_slice`.
const INSERT_SLICE_TEXT: &str = "$source `into` $dest `` custom<DynamicIndexList>($offsets, $static_offsets) custom<DynamicIndexList>($sizes, $static_sizes) custom<DynamicIndexList>($strides, $static_strides) attr-dict `:` type($source) `into` type($dest)";

/// The type of result `i` of upstream op `name` when its format omits it
/// (the op's `inferReturnTypes`), from its operand types.
pub fn infer(
    name: &str,
    i: usize,
    operands: &[&Type],
    attrs: &[(String, Attribute)],
) -> Option<Type> {
    if i != 0 {
        return None;
    }
    match name {
        // `memref::getTensorTypeFromMemRefType`: same shape and element.
        "bufferization.to_tensor" => match operands.first()? {
            Type::MemRef(MemRefType { shape, elem, .. }) => Some(Type::Tensor {
                shape: shape.clone(),
                elem: elem.clone(),
                encoding: None,
            }),
            Type::UnrankedMemRef { elem, .. } => Some(Type::UnrankedTensor(elem.clone())),
            _ => None,
        },
        "tensor.extract" => operands.first()?.element_type().cloned(),
        // `TypesMatchWith<"result type matches element type of vector operand">`.
        "vector.extractelement" => operands.first()?.element_type().cloned(),
        // `ShuffleOp::inferReturnTypes`: one leading dim per mask entry, the
        // other dims and the element type of `v1`.
        "vector.shuffle" => {
            let mask = attrs.iter().find(|(n, _)| n == "mask")?.1.as_int_array()?;
            let Type::Vector(v1) = operands.first()? else {
                return None;
            };
            let mut shape = vec![mask.len() as i64];
            shape.extend(v1.shape.iter().skip(1));
            let mut scalable = vec![false];
            scalable.extend(v1.scalable.iter().skip(1));
            Some(Type::Vector(VectorType {
                shape,
                scalable,
                elem: v1.elem.clone(),
            }))
        }
        "tensor.dim" => Some(Type::Index),
        // Destination-style ops return their init when it is a tensor.
        "linalg.transpose" | "linalg.broadcast" => match operands.get(1)? {
            t @ Type::Tensor { .. } => Some((*t).clone()),
            _ => None,
        },
        _ => None,
    }
}
