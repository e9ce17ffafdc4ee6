//! The IR API: use lists, insertion, erasure, replacement, retyping.

use tilemem_mlir::ir::{InsertPoint, Layout, MemRefType, Ofr, OpSpec, Type, DYNAMIC};
use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::print::print_module;

const INPUT: &str = r#"func.func @f(%gm: memref<2x15xf16, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<2x15xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%gm : memref<2x15xf16, #hivm.address_space<gm>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  hivm.hir.vadd ins(%a, %a : memref<2x15xf16, #hivm.address_space<ub>>, memref<2x15xf16, #hivm.address_space<ub>>) outs(%a : memref<2x15xf16, #hivm.address_space<ub>>)
  return
}
"#;

#[test]
fn pad_an_alloc_and_retype_its_users() {
    let mut m = parse_module(INPUT, &ParseOptions::default()).unwrap();
    let f = m.lookup_func("f").unwrap();
    let body = m.func_body(f).unwrap();
    let alloc = m.first_op(body).unwrap();
    let old = m.op(alloc).results()[0];
    assert_eq!(m.users(old).len(), 2);
    assert_eq!(m.uses(old).len(), 4);
    let ty = m.value_type(old).as_memref().unwrap().clone();
    assert_eq!(ty.address_space(), Some("ub"));
    assert_eq!(ty.strides_and_offset(), Some((vec![15, 1], 0)));

    // New alloc 2x16x1 + subview back to 2x15 with strides [16, 1].
    let loc = m.op(alloc).loc;
    let padded = ty.with_shape(vec![2, 16, 1]);
    let spec = m.alloc_spec(padded, &[], loc);
    let new_alloc = m.build(spec, InsertPoint::After(alloc));
    let new_v = m.op(new_alloc).results()[0];
    let view_ty = Type::MemRef(MemRefType {
        layout: Layout::Strided {
            strides: vec![16, 1],
            offset: 0,
        },
        ..ty.clone()
    });
    let s = |v: &[i64]| v.iter().map(|&x| Ofr::Static(x)).collect::<Vec<_>>();
    let spec = m.subview_spec(
        new_v,
        &s(&[0, 0, 0]),
        &s(&[2, 15, 1]),
        &s(&[1, 1, 1]),
        view_ty,
        loc,
    );
    let sub = m.build(spec, InsertPoint::After(new_alloc));
    let sub_v = m.op(sub).results()[0];
    m.replace_all_uses(old, sub_v);
    assert!(!m.has_uses(old));
    m.erase_op(alloc);
    assert_eq!(m.uses(sub_v).len(), 4);
    assert_eq!(m.defining_op(sub_v), Some(sub));
    assert_eq!(m.parent_op(sub), Some(f));
    let parts = m.slice_parts(sub).unwrap();
    assert_eq!(parts.source, new_v);
    assert_eq!(parts.sizes, s(&[2, 15, 1]));
    assert_eq!(
        print_module(&m),
        r#"module {
  func.func @f(%arg0: memref<2x15xf16, #hivm.address_space<gm>>) {
    %alloc = memref.alloc() : memref<2x16x1xf16, #hivm.address_space<ub>>
    %subview = memref.subview %alloc[0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x16x1xf16, #hivm.address_space<ub>> to memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%arg0 : memref<2x15xf16, #hivm.address_space<gm>>) outs(%subview : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
    hivm.hir.vadd ins(%subview, %subview : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>, memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>) outs(%subview : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<ub>>)
    return
  }
}
"#
    );
}

#[test]
fn dynamic_padding_arithmetic_and_marks() {
    let text =
        "func.func @g(%n: index) {\n  %a = memref.alloc(%n) : memref<2x?xf16>\n  return\n}\n";
    let mut m = parse_module(text, &ParseOptions::default()).unwrap();
    let f = m.funcs()[0];
    let body = m.func_body(f).unwrap();
    let alloc = m.first_op(body).unwrap();
    let n = m.op(alloc).segment(0)[0];
    let loc = m.op(alloc).loc;
    let at = InsertPoint::Before(alloc);
    let c15 = m.build_index_constant(15, at, loc);
    let c16 = m.build_index_constant(16, at, loc);
    let sum = m.build_binary("arith.addi", n, c15, at, loc);
    let rem = m.build_binary("arith.remsi", sum, c16, at, loc);
    let up = m.build_binary("arith.subi", sum, rem, at, loc);
    m.set_operand(alloc, 0, up);
    let v = m.op(alloc).results()[0];
    m.set_type(
        v,
        Type::MemRef(MemRefType::new(
            vec![2, DYNAMIC, 1],
            Type::Float(tilemem_mlir::ir::FloatKind::F16),
        )),
    );
    m.build_mark(
        v,
        [(
            "hivm.stride_align_dims".to_string(),
            tilemem_mlir::Attribute::dense_i32([0]),
        )],
        InsertPoint::After(alloc),
        loc,
    );
    m.op_mut(f)
        .attrs
        .set("hivm.storage_aligned", tilemem_mlir::Attribute::Unit);
    assert!(!m.has_uses(n) || m.users(n) == vec![m.defining_op(sum).unwrap()]);
    assert_eq!(
        print_module(&m),
        r#"module {
  func.func @g(%arg0: index) attributes {hivm.storage_aligned} {
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %0 = arith.addi %arg0, %c15 : index
    %1 = arith.remsi %0, %c16 : index
    %2 = arith.subi %0, %1 : index
    %alloc = memref.alloc(%2) : memref<2x?x1xf16>
    annotation.mark %alloc {hivm.stride_align_dims = array<i32: 0>} : memref<2x?x1xf16>
    return
  }
}
"#
    );
}

#[test]
fn walk_is_program_order_and_erase_drops_nested_uses() {
    let text = r#"func.func @h(%c: i1, %a: memref<4xf32>) {
  scf.if %c {
    memref.dealloc %a : memref<4xf32>
  }
  memref.dealloc %a : memref<4xf32>
  return
}
"#;
    let mut m = parse_module(text, &ParseOptions::default()).unwrap();
    let names: Vec<String> = m
        .all_ops()
        .iter()
        .map(|&o| m.op(o).name().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "func.func",
            "scf.if",
            "memref.dealloc",
            "scf.yield",
            "memref.dealloc",
            "func.return"
        ]
    );
    let f = m.funcs()[0];
    let a = m.block_args(m.func_body(f).unwrap())[1];
    assert_eq!(m.uses(a).len(), 2);
    let if_op = m.all_ops()[1];
    m.erase_op(if_op);
    assert_eq!(m.uses(a).len(), 1);
    assert_eq!(m.all_ops().len(), 3);
    let _ = OpSpec::new("x.y", Default::default());
}

/// Constants made for passes are materialised once at the top of the
/// function (reused when equal, newest first), never next to each use.
#[test]
fn constants_are_materialised_once_at_function_top() {
    use tilemem_mlir::ir::Type;
    use tilemem_mlir::Location;
    let mut m = tilemem_mlir::parse::parse_module(
        "func.func @f(%a: index) {\n  %c4 = arith.constant 4 : index\n  %0 = arith.addi %a, %a : index\n  return\n}\n",
        &tilemem_mlir::parse::ParseOptions::default(),
    )
    .unwrap();
    let f = m.funcs()[0];
    let body = m.func_body(f).unwrap();
    let add = m.block_ops(body).nth(1).unwrap();
    let c15 = m.constant_at_function_top(add, 15, Type::Index, Location::unknown());
    let again = m.constant_at_function_top(add, 15, Type::Index, Location::unknown());
    let c4 = m.constant_at_function_top(add, 4, Type::Index, Location::unknown());
    let c4_i32 = m.constant_at_function_top(add, 4, Type::i32(), Location::unknown());
    assert_eq!(c15, again);
    assert_ne!(c4, c4_i32);
    m.build(
        tilemem_mlir::ir::OpSpec::new("arith.muli", Location::unknown())
            .operands([c15, c4])
            .results([Type::Index]),
        tilemem_mlir::ir::InsertPoint::Before(add),
    );
    assert_eq!(
        tilemem_mlir::print::print_module(&m),
        "module {\n  func.func @f(%arg0: index) {\n    %c4_i32 = arith.constant 4 : i32\n    %c15 = arith.constant 15 : index\n    %c4 = arith.constant 4 : index\n    %0 = arith.muli %c15, %c4 : index\n    %1 = arith.addi %arg0, %arg0 : index\n    return\n  }\n}\n"
    );
}

/// A copy built by a pass is laid out as its ODS format reads one: it
/// prints with the attribute dictionary where the format puts it (after
/// `outs`) and answers `group("ins")`/`group("outs")`.
#[test]
fn structured_spec_follows_the_ods_format() {
    use tilemem_mlir::ir::InsertPoint;
    use tilemem_mlir::{Attribute, Location};
    let mut m = tilemem_mlir::parse::parse_module(
        "func.func @f(%a: memref<4xf16>, %b: memref<4xf16>) {\n  return\n}\n",
        &tilemem_mlir::parse::ParseOptions::default(),
    )
    .unwrap();
    let f = m.funcs()[0];
    let body = m.func_body(f).unwrap();
    let args = m.block_args(body).to_vec();
    let ret = m.first_op(body).unwrap();
    let mut spec = m.structured_spec("hivm.hir.copy", &args[..1], &args[1..], Location::unknown());
    spec.attrs.set("mirror", Attribute::Unit);
    let copy = m.build(spec, InsertPoint::Before(ret));
    assert_eq!(m.op(copy).group("ins"), Some(&args[..1]));
    assert_eq!(m.op(copy).group("outs"), Some(&args[1..]));
    assert_eq!(m.op(copy).segments, vec![1, 1, 0]);
    assert_eq!(
        tilemem_mlir::print::print_module(&m),
        "module {\n  func.func @f(%arg0: memref<4xf16>, %arg1: memref<4xf16>) {\n    hivm.hir.copy ins(%arg0 : memref<4xf16>) outs(%arg1 : memref<4xf16>) {mirror}\n    return\n  }\n}\n"
    );
}
