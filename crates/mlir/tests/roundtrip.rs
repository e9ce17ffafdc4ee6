//! Printing what was read reproduces it: canonical texts print back
//! byte-for-byte, other spellings print in mlir-opt's canonical form, and
//! printing is a fixed point.

use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::print::print_module;

fn read(text: &str) -> tilemem_mlir::Module {
    let opts = ParseOptions {
        allow_unregistered_dialect: true,
        line_offset: 0,
    };
    match parse_module(text, &opts) {
        Ok(m) => m,
        Err(d) => panic!("{}\n{}", d.render("input"), text),
    }
}

fn roundtrip(text: &str) -> String {
    print_module(&read(text))
}

/// Canonical text prints back unchanged, and printing is idempotent.
fn assert_canonical(text: &str) {
    let printed = roundtrip(text);
    assert_eq!(printed, text, "canonical text changed when printed");
    assert_eq!(roundtrip(&printed), printed);
}

#[test]
fn stride_align_function_prints_back_unchanged() {
    assert_canonical(
        r#"module attributes {hacc.target = #hacc.target<"Ascend950PR_9589">} {
  func.func @vf(%arg0: memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<ub>>, %arg1: index) attributes {hivm.vector_function, no_inline} {
    %c0 = arith.constant 0 : index
    %subview = memref.subview %arg0[0, 0, 0] [1, 5, 3] [1, 1, 1] : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<ub>> to memref<5x3xi32, strided<[3, 1], offset: ?>, #hivm.address_space<ub>>
    %subview_0 = memref.subview %arg0[%arg1, 0, 0] [1, 5, 3] [1, 1, 1] : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<ub>> to memref<5x3xi32, strided<[3, 1], offset: ?>, #hivm.address_space<ub>>
    return
  }
  func.func private @decl(memref<2x15xf16, #hivm.address_space<ub>>, i32) -> i32
  func.func @main(%arg0: memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) attributes {hacc.entry, hivm.func_core_type = #hivm.func_core_type<AIV>} {
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<37x5x3xi32, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg0 : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) outs(%alloc : memref<37x5x3xi32, #hivm.address_space<ub>>)
    annotation.mark %alloc {hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<37x5x3xi32, #hivm.address_space<ub>>
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %0 = scf.for %arg1 = %c0 to %c4 step %c1 iter_args(%arg2 = %alloc) -> (memref<37x5x3xi32, #hivm.address_space<ub>>) {
      %alloc_1 = memref.alloc() : memref<37x5x3xi32, #hivm.address_space<ub>>
      hivm.hir.vadd ins(%arg2, %alloc_1 : memref<37x5x3xi32, #hivm.address_space<ub>>, memref<37x5x3xi32, #hivm.address_space<ub>>) outs(%alloc_1 : memref<37x5x3xi32, #hivm.address_space<ub>>)
      scf.yield %alloc_1 : memref<37x5x3xi32, #hivm.address_space<ub>>
    } {unroll_for_vsstb}
    %1 = arith.cmpi slt, %c0, %c4 : index
    scf.if %1 {
      "some_use"(%0) : (memref<37x5x3xi32, #hivm.address_space<ub>>) -> ()
    }
    hivm.hir.vreduce <sum> ins(%alloc : memref<37x5x3xi32, #hivm.address_space<ub>>) outs(%0 : memref<37x5x3xi32, #hivm.address_space<ub>>) reduce_dims = [1]
    %collapse_shape = memref.collapse_shape %alloc [[0, 1], [2]] : memref<37x5x3xi32, #hivm.address_space<ub>> into memref<185x3xi32, #hivm.address_space<ub>>
    %c2_i32 = arith.constant 2 : i32
    %alloc_0 = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
    %2 = call @decl(%alloc_0, %c2_i32) : (memref<2x15xf16, #hivm.address_space<ub>>, i32) -> i32
    return
  }
}
"#,
    );
}

#[test]
fn memref_view_ops_print_back_unchanged() {
    assert_canonical(
        r#"module {
  func.func @views(%arg0: memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>>, %arg1: index, %arg2: memref<2048xi8, #hivm.address_space<ub>>) {
    %c0 = arith.constant 0 : index
    %alloc = memref.alloc(%arg1) : memref<2x?xf16, #hivm.address_space<ub>>
    %alloca = memref.alloca() : memref<4xf32>
    %cast = memref.cast %arg0 : memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>> to memref<?x4xf32, strided<[?, 1]>, #hivm.address_space<ub>>
    %expand_shape = memref.expand_shape %alloca [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
    %view = memref.view %arg2[%c0][] : memref<2048xi8, #hivm.address_space<ub>> to memref<64x4xf32, #hivm.address_space<ub>>
    %reinterpret_cast = memref.reinterpret_cast %alloca to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<4xf32> to memref<2x2xf32, strided<[2, 1]>>
    %0 = memref.load %alloca[%c0] : memref<4xf32>
    memref.store %0, %alloca[%c0] : memref<4xf32>
    memref.copy %alloca, %alloca : memref<4xf32> to memref<4xf32>
    %dim = memref.dim %arg0, %c0 : memref<?x4xf32, strided<[4, 1]>, #hivm.address_space<ub>>
    %subview = memref.subview %alloc[0, 0] [2, %dim] [1, 1] : memref<2x?xf16, #hivm.address_space<ub>> to memref<2x?xf16, strided<[?, 1]>, #hivm.address_space<ub>>
    %1 = arith.addi %dim, %arg1 : index
    %2 = arith.remsi %1, %arg1 : index
    %3 = arith.subi %1, %2 : index
    %4 = builtin.unrealized_conversion_cast %alloca : memref<4xf32> to memref<2x2xf32>
    return
  }
}
"#,
    );
}

#[test]
fn vector_and_scope_ops_print_back_unchanged() {
    assert_canonical(
        r#"module {
  func.func @vf(%arg0: memref<8x64x16xf16, #hivm.address_space<ub>>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = vector.transfer_read %arg0[%c0, %c0, %c0], %cst {in_bounds = [true]} : memref<8x64x16xf16, #hivm.address_space<ub>>, vector<16xf16>
    vector.transfer_write %0, %arg0[%c0, %c0, %c0] {in_bounds = [true]} : vector<16xf16>, memref<8x64x16xf16, #hivm.address_space<ub>>
    %1 = vector.constant_mask [4] : vector<16xi1>
    %2 = vector.create_mask %c0 : vector<16xi1>
    %3 = vector.broadcast %cst : f16 to vector<16xf16>
    %4 = vector.shape_cast %3 : vector<16xf16> to vector<4x4xf16>
    %5 = vector.transpose %4, [1, 0] : vector<4x4xf16> to vector<4x4xf16>
    %6 = vector.broadcast %cst : f16 to vector<4xf16>
    %7 = vector.multi_reduction <add>, %5, %6 [1] : vector<4x4xf16> to vector<4xf16>
    scope.scope {
      %true = arith.constant true
      scope.return
    } {hivm.tcore_type = #hivm.tcore_type<VECTOR>}
    %8 = scope.scope : () -> f16 {
      scope.return %cst : f16
    }
    return
  }
}
"#,
    );
}

#[test]
fn other_spellings_print_in_canonical_form() {
    // Implicit module, user-chosen names, unsorted attributes, bare `64`,
    // float literal, scf.for over i32 with an implicit yield.
    let text = r#"func.func @f(%n: i32) {
  %x = memref.alloc() {b, alignment = 64} : memref<16xf32>
  %one = arith.constant 1.0 : f32
  %lo = arith.constant 0 : i32
  %st = arith.constant 1 : i32
  scf.for %i = %lo to %n step %st : i32 {
    memref.store %one, %x[%c] : memref<16xf32>
  }
  return
}
"#
    .replace("%x[%c]", "%x[%idx]")
    .replace(
        "  scf.for %i",
        "  %idx = arith.constant 3 : index\n  scf.for %i",
    );
    let expected = r#"module {
  func.func @f(%arg0: i32) {
    %alloc = memref.alloc() {alignment = 64 : i64, b} : memref<16xf32>
    %cst = arith.constant 1.000000e+00 : f32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3 = arith.constant 3 : index
    scf.for %arg1 = %c0_i32 to %arg0 step %c1_i32  : i32 {
      memref.store %cst, %alloc[%c3] : memref<16xf32>
    }
    return
  }
}
"#;
    assert_eq!(roundtrip(&text), expected);
    assert_eq!(roundtrip(expected), expected);
}

#[test]
fn generic_form_of_known_ops_prints_custom_form() {
    let text = r#""func.func"() <{function_type = (memref<4xf32>) -> (), sym_name = "g"}> ({
^bb0(%a: memref<4xf32>):
  %s = "memref.subview"(%a) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 1>, static_sizes = array<i64: 2>, static_strides = array<i64: 1>}> : (memref<4xf32>) -> memref<2xf32, strided<[1], offset: 1>>
  "func.return"() : () -> ()
}) : () -> ()
"#;
    let expected = r#"module {
  func.func @g(%arg0: memref<4xf32>) {
    %subview = memref.subview %arg0[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
    return
  }
}
"#;
    assert_eq!(roundtrip(text), expected);
}

#[test]
fn names_follow_mlir_numbering_across_regions() {
    // Numbered results of a region come before those of nested regions;
    // sibling regions restart from the same counters.
    let text = r#"func.func @n(%c: i1) {
  %a = "t.op"() : () -> i32
  scf.if %c {
    %b = "t.op"() : () -> i32
    %d = memref.alloc() : memref<2xf32>
  }
  scf.if %c {
    %e = "t.op"() : () -> i32
    %f = memref.alloc() : memref<2xf32>
  }
  %g = "t.op"() : () -> i32
  %h:2 = "t.two"() : () -> (i32, i32)
  "t.use"(%h#1) : (i32) -> ()
  %k = memref.alloc() : memref<2xf32>
  return
}
"#;
    let printed = roundtrip(text);
    let expected = r#"module {
  func.func @n(%arg0: i1) {
    %0 = "t.op"() : () -> i32
    scf.if %arg0 {
      %3 = "t.op"() : () -> i32
      %alloc_0 = memref.alloc() : memref<2xf32>
    }
    scf.if %arg0 {
      %3 = "t.op"() : () -> i32
      %alloc_0 = memref.alloc() : memref<2xf32>
    }
    %1 = "t.op"() : () -> i32
    %2:2 = "t.two"() : () -> (i32, i32)
    "t.use"(%2#1) : (i32) -> ()
    %alloc = memref.alloc() : memref<2xf32>
    return
  }
}
"#;
    assert_eq!(printed, expected);
}

#[test]
fn affine_maps_get_aliases() {
    let text = r#"#map = affine_map<(d0) -> (d0 * 16)>
func.func @m(%i: index) -> index {
  %0 = affine.apply #map(%i)
  %1 = affine.min affine_map<(d0)[s0] -> (d0, s0)>(%0)[%i]
  return %1 : index
}
"#;
    let expected = r#"#map = affine_map<(d0) -> (d0 * 16)>
#map1 = affine_map<(d0)[s0] -> (d0, s0)>
module {
  func.func @m(%arg0: index) -> index {
    %0 = affine.apply #map(%arg0)
    %1 = affine.min #map1(%0)[%arg0]
    return %1 : index
  }
}
"#;
    assert_eq!(roundtrip(text), expected);
}

#[test]
fn structured_ops_keep_their_pieces() {
    assert_canonical(
        r#"module {
  func.func @s(%arg0: memref<16x16xf32, #hivm.address_space<cc>>, %arg1: memref<16x16xf16, #hivm.address_space<ub>>) {
    %c0_i64 = arith.constant 0 : i64
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    hivm.hir.fixpipe {channel_split = true, dma_mode = #hivm.dma_mode<nz2nd>, dual_dst_mode = #hivm.fixpipe_dual_dst_mode<ROW_SPLIT>} ins(%arg0 : memref<16x16xf32, #hivm.address_space<cc>>) outs(%arg1 : memref<16x16xf16, #hivm.address_space<ub>>)
    %0 = hivm.hir.pointer_cast(%c0_i64) : memref<16x16xf16, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg1 : memref<16x16xf16, #hivm.address_space<ub>>) outs(%0 : memref<16x16xf16, #hivm.address_space<ub>>) left_padding_num = %c0 : index
    hivm.hir.vreduce <sum> ins(%0 : memref<16x16xf16, #hivm.address_space<ub>>) outs(%arg1 : memref<16x16xf16, #hivm.address_space<ub>>) temp_buffer(%0 : memref<16x16xf16, #hivm.address_space<ub>>) reduce_dims = [1]
    hivm.hir.sync_block_set[<CUBE>, <PIPE_FIX>, <PIPE_MTE2>] flag = 1
    %1 = hivm.hir.get_block_idx -> i64
    hivm.hir.vpad ins(%arg1 : memref<16x16xf16, #hivm.address_space<ub>>) outs(%0 : memref<16x16xf16, #hivm.address_space<ub>>) low[%c0, %c0] high[%c0, %c0] pad_value %cst : f16
    hivm.hir.set_ctrl false at ctrl[60]
    return
  }
}
"#,
    );
}

#[test]
fn groups_are_reachable_by_keyword() {
    let m = read(
        r#"func.func @s(%a: memref<4xf16>, %b: memref<4xf16>, %t: memref<8xf16>) {
  hivm.hir.vreduce <sum> ins(%a : memref<4xf16>) outs(%b : memref<4xf16>) temp_buffer(%t : memref<8xf16>) reduce_dims = [0]
  return
}
"#,
    );
    let f = m.funcs()[0];
    let body = m.func_body(f).unwrap();
    let args = m.block_args(body).to_vec();
    let op = m.first_op(body).unwrap();
    let d = m.op(op);
    assert_eq!(d.group("ins"), Some(&args[0..1]));
    assert_eq!(d.group("outs"), Some(&args[1..2]));
    assert_eq!(d.group("temp_buffer"), Some(&args[2..3]));
    assert_eq!(d.group("indices"), None);
    assert_eq!(
        d.attr("reduce_dims").and_then(|a| a.as_int_array()),
        Some(vec![0])
    );
}

#[test]
fn split_chunks_keep_file_line_numbers() {
    use tilemem_mlir::parse::split_input;
    let text = "func.func @a() {\n  return\n}\n// -----\nfunc.func @b() {\n  %x = \"bad\n}\n";
    let chunks = split_input(text);
    assert_eq!(chunks.len(), 2);
    assert_eq!(chunks[1].line_offset, 4);
    let err = parse_module(
        chunks[1].text,
        &ParseOptions {
            allow_unregistered_dialect: true,
            line_offset: chunks[1].line_offset,
        },
    )
    .unwrap_err();
    assert_eq!(
        err.render("f.mlir"),
        "f.mlir:6:8: error: unterminated string literal"
    );
}

#[test]
fn custom_op_keeps_callee_and_per_input_attributes() {
    let text = r#"func.func @s(%a: memref<4xf32>, %b: memref<4xf32>) {
  hivm.hir.custom {symbol = "k"} "user.op" ins(%a, %b : memref<4xf32>, memref<4xf32> {inplace_outs = 0 : i32}) outs(%b : memref<4xf32>)
  return
}
"#;
    let m = read(text);
    let f = m.funcs()[0];
    let body = m.func_body(f).unwrap();
    let d = m.op(m.first_op(body).unwrap());
    assert_eq!(
        d.attr("name").map(ToString::to_string),
        Some("\"user.op\"".to_string())
    );
    let dicts = d.attr("arg_attrs").and_then(|a| a.as_array()).unwrap();
    let rendered: Vec<String> = dicts.iter().map(ToString::to_string).collect();
    assert_eq!(rendered, ["{}", "{inplace_outs = 0 : i32}"]);
    let printed = roundtrip(text);
    assert!(
        printed.contains(r#"hivm.hir.custom {symbol = "k"} "user.op" ins(%arg0, %arg1 : memref<4xf32>, memref<4xf32> {inplace_outs = 0 : i32}) outs(%arg1 : memref<4xf32>)"#),
        "{printed}"
    );
}

#[test]
fn llvm_globals_and_functions_print_back_unchanged() {
    // MLIR's `GlobalOp` and `LLVMFuncOp` custom forms: linkage (always on
    // a global, only when not `external` on a function), visibility,
    // `thread_local`, unnamed_addr, `constant`, calling convention, value,
    // comdat, attributes, type (implied for a string), initializer region,
    // variadic signatures.
    assert_canonical(
        r#"module {
  llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global private unnamed_addr constant @str("ab\00")
  llvm.mlir.global weak_odr hidden thread_local local_unnamed_addr constant @both(1 : i64) comdat(@c::@both) : i64
  llvm.mlir.global internal @init() : i32 {
    %0 = llvm.mlir.constant(42 : i32) : i32
    "llvm.return"(%0) : (i32) -> ()
  }
  llvm.func @decl(i32, !llvm.ptr<1>, ...) -> i32
  llvm.func internal hidden fastcc @body(%arg0: i32 {llvm.noundef}, %arg1: !llvm.ptr) -> !llvm.ptr attributes {hacc.entry} {
    "llvm.return"(%arg1) : (!llvm.ptr) -> ()
  }
  llvm.func @kernel() attributes {hacc.entry}
}
"#,
    );
}

#[test]
fn llvm_global_and_function_spellings_print_in_mlir_form() {
    // A global without linkage is `external`; `thread_local` is read on
    // either side of the unnamed_addr keyword; a function's `external` and
    // `ccc` are implied.
    let text = r#"llvm.mlir.global @x(0.5 : f32) : f32
llvm.mlir.global internal local_unnamed_addr thread_local @t(7 : i32) : i32
llvm.func external ccc @f(...)
"#;
    let expected = r#"module {
  llvm.mlir.global external @x(5.000000e-01 : f32) : f32
  llvm.mlir.global internal thread_local local_unnamed_addr @t(7 : i32) : i32
  llvm.func @f(...)
}
"#;
    assert_eq!(roundtrip(text), expected);
    assert_eq!(roundtrip(expected), expected);
}

#[test]
fn llvm_generic_forms_read_with_the_attributes_mlir_sets() {
    // The attributes MLIR's parsers set (default linkage, visibility,
    // unnamed_addr and calling convention, `global_type`, an
    // `!llvm.func` type) in generic form print in custom form.
    let text = r#""llvm.mlir.global"() <{addr_space = 3 : i32, alignment = 16 : i64, global_type = !llvm.array<0 x i8>, linkage = #llvm.linkage<external>, sym_name = "global_smem", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
}) : () -> ()
"llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<ptr<1> (i32, ptr, ...)>, linkage = #llvm.linkage<private>, sym_name = "f", unnamed_addr = 2 : i64, visibility_ = 1 : i64}> ({
}) : () -> ()
"#;
    let expected = r#"module {
  llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.func private hidden unnamed_addr @f(i32, !llvm.ptr, ...) -> !llvm.ptr<1>
}
"#;
    assert_eq!(roundtrip(text), expected);
    assert_eq!(roundtrip(expected), expected);
}

#[test]
fn llvm_global_without_a_type_must_hold_a_string() {
    let opts = ParseOptions {
        allow_unregistered_dialect: true,
        line_offset: 0,
    };
    let Err(err) = parse_module("llvm.mlir.global internal @x(1 : i32)\n", &opts) else {
        panic!("a non-string global without a type is an error");
    };
    let text = err.render("input");
    assert!(
        text.contains("input:1:38: error: expected ':' and the global's type (only a global with a string value may omit it)"),
        "{text}"
    );
}

/// Source locations are kept as written and followed to the first
/// `file:line:col`: through aliases (defined after their use), names,
/// call sites (the callee first, else the caller), fused lists (the first
/// that has one, commas and quotes inside file names included) and
/// ranges; `unknown` and a bare name lead nowhere.
#[test]
fn source_locations_lead_to_a_file_line_and_column() {
    let text = r#"module {
  "t.a"() : () -> () loc(#l1)
  "t.b"() : () -> () loc(callsite(unknown at #l2))
  "t.c"() : () -> () loc(fused<"meta">[unknown, "x, \"y\".py":3:4, "z.py":5:6])
  "t.d"() : () -> () loc("only a name")
  "t.e"() : () -> () loc(unknown)
  "t.f"() : () -> () loc("f.py":7:8 to 9:10)
  "t.g"() : () -> () loc(#l3)
  "t.h"() : () -> ()
}
#l1 = loc("n"(#l2))
#l2 = loc("k.py":12:24)
#l3 = loc(#l3)
"#;
    let m = read(text);
    let got: Vec<Option<String>> = m
        .all_ops()
        .into_iter()
        .filter(|&o| m.op(o).name().starts_with("t."))
        .map(|o| m.src_file_line(m.op(o).loc))
        .collect();
    let want = [
        Some("k.py:12:24"),
        Some("k.py:12:24"),
        Some("x, \\\"y\\\".py:3:4"),
        None,
        None,
        Some("f.py:7:8"),
        None,
        None,
    ];
    assert_eq!(got, want.map(|w| w.map(str::to_string)));
    assert_canonical(text);
}
