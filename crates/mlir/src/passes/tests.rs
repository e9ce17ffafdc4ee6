//! End-to-end tests of the passes: read a program, run passes, compare the
//! printed result (or the rendered diagnostics) exactly. They cover the
//! rules without lit; `tests/lit/stride-align` has the FileCheck suite.

use crate::parse::{parse_module, ParseOptions};
use crate::pass::{run_pipeline, Pass};
use crate::passes::lookup;
use crate::print::print_module;

const UB: &str = "#hivm.address_space<ub>";

/// Runs `passes` (flag names) over `src`; the printed module, or the
/// rendered diagnostics when a pass fails.
fn run(src: &str, passes: &[&str]) -> Result<String, String> {
    let opts = ParseOptions {
        allow_unregistered_dialect: true,
        ..ParseOptions::default()
    };
    let mut m = parse_module(src, &opts).map_err(|d| d.render("t.mlir"))?;
    let ps: Vec<Box<dyn Pass>> = passes
        .iter()
        .map(|n| lookup(n).unwrap_or_else(|| panic!("no pass {n}")))
        .collect();
    let (diags, ok) = run_pipeline(&ps, &mut m);
    if ok {
        Ok(print_module(&m))
    } else {
        Err(diags
            .iter()
            .map(|d| d.render("t.mlir"))
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

/// Runs `passes` over `src`; the rendered diagnostics (one per line) and
/// whether the pipeline succeeded (errors a pass emits without failing
/// leave it successful, as in MLIR).
fn diagnostics(src: &str, passes: &[&str]) -> (String, bool) {
    let mut m = parse_module(src, &ParseOptions::default()).expect("reads");
    let ps: Vec<Box<dyn Pass>> = passes.iter().filter_map(|n| lookup(n)).collect();
    let (diags, ok) = run_pipeline(&ps, &mut m);
    let text = diags
        .iter()
        .map(|d| d.render("t.mlir"))
        .collect::<Vec<_>>()
        .join("\n");
    (text, ok)
}

fn ok(src: &str, passes: &[&str]) -> String {
    match run(src, passes) {
        Ok(s) => s,
        Err(e) => panic!("passes failed:\n{e}"),
    }
}

fn err(src: &str, passes: &[&str]) -> String {
    match run(src, passes) {
        Ok(s) => panic!("passes succeeded:\n{s}"),
        Err(e) => e,
    }
}

/// Replaces `UB` by the address space attribute text.
fn ub(s: &str) -> String {
    s.replace("UB", UB)
}

const MARK: &str = "hivm-mark-stride-align";
const ENABLE: &str = "hivm-enable-stride-align";
const PRE: &str = "hivm-pre-mark-stride-align";
const SIZE: &str = "hivm-align-alloc-size";

fn regbase(body: &str) -> String {
    format!(
        "module attributes {{hacc.target = #hacc.target<\"Ascend950PR_9589\">}} {{\n{body}\n}}\n"
    )
}

#[test]
fn registry_has_the_four_passes_in_pipeline_order() {
    let names: Vec<&str> = super::registry().iter().map(|p| p.name()).collect();
    assert_eq!(
        names,
        [
            "hacc-append-device-spec",
            SIZE,
            PRE,
            MARK,
            ENABLE,
            "hivm-plan-memory",
            "hivm-plan-memory-regbase"
        ]
    );
}

#[test]
fn membase_mark_and_enable_pad_rows() {
    let src = ub("func.func @f(%gm: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
  %a = memref.alloc() : memref<2x15xf16, UB>
  hivm.hir.load ins(%gm : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%a : memref<2x15xf16, UB>)
  return
}
");
    let marked = ok(&src, &[MARK]);
    assert_eq!(
        marked,
        ub("module {
  func.func @f(%arg0: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) {
    %alloc = memref.alloc() : memref<2x15xf16, UB>
    annotation.mark %alloc {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, UB>
    hivm.hir.load ins(%arg0 : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%alloc : memref<2x15xf16, UB>)
    return
  }
}
")
    );
    let enabled = ok(&src, &[MARK, ENABLE]);
    assert_eq!(
        enabled,
        ub("module {
  func.func @f(%arg0: memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) attributes {hivm.storage_aligned} {
    %alloc = memref.alloc() : memref<2x16x1xf16, UB>
    %subview = memref.subview %alloc[0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x16x1xf16, UB> to memref<2x15xf16, strided<[16, 1]>, UB>
    hivm.hir.load ins(%arg0 : memref<2x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>) outs(%subview : memref<2x15xf16, strided<[16, 1]>, UB>)
    return
  }
}
")
    );
    // Enabling is idempotent; marking again writes the mark again (as the
    // C++ does), and enabling the result changes nothing.
    assert_eq!(ok(&marked, &[MARK]).matches("stride_align_dims").count(), 2);
    assert_eq!(ok(&enabled, &[ENABLE]), enabled);
    assert_eq!(ok(&enabled, &[MARK, ENABLE]), enabled);
}

#[test]
fn regbase_seed_example_reaches_the_vector_function() {
    // The callee stores what it loads: the greedy drivers of the enable
    // pass run on every function and erase an unused load (a read only).
    let src = regbase(&ub("  func.func @vf(%arg0: memref<37x5x3xi32, UB>, %i: index) attributes {hivm.vector_function} {
    %s = memref.subview %arg0[%i, 0, 0] [1, 5, 3] [1, 1, 1] : memref<37x5x3xi32, UB> to memref<5x3xi32, strided<[3, 1], offset: ?>, UB>
    %v = memref.load %s[%i, %i] : memref<5x3xi32, strided<[3, 1], offset: ?>, UB>
    memref.store %v, %s[%i, %i] : memref<5x3xi32, strided<[3, 1], offset: ?>, UB>
    return
  }
  func.func @kernel(%gm: memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>, %i: index) {
    %a = memref.alloc() : memref<37x5x3xi32, UB>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, UB>)
    func.call @vf(%a, %i) : (memref<37x5x3xi32, UB>, index) -> ()
    return
  }"));
    let marked = ok(&src, &[MARK]);
    assert!(marked.contains(&ub("annotation.mark %alloc {hivm.stride_align_dims = array<i32: 2>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<37x5x3xi32, UB>")), "{marked}");
    let out = ok(&src, &[MARK, ENABLE]);
    assert_eq!(
        out,
        ub("module attributes {hacc.target = #hacc.target<\"Ascend950PR_9589\">} {
  func.func @vf(%arg0: memref<37x5x3xi32, strided<[40, 8, 1]>, UB>, %arg1: index) attributes {hivm.vector_function} {
    %subview = memref.subview %arg0[%arg1, 0, 0] [1, 5, 3] [1, 1, 1] : memref<37x5x3xi32, strided<[40, 8, 1]>, UB> to memref<5x3xi32, strided<[8, 1], offset: ?>, UB>
    %0 = memref.load %subview[%arg1, %arg1] : memref<5x3xi32, strided<[8, 1], offset: ?>, UB>
    memref.store %0, %subview[%arg1, %arg1] : memref<5x3xi32, strided<[8, 1], offset: ?>, UB>
    return
  }
  func.func @kernel(%arg0: memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>, %arg1: index) {
    %alloc = memref.alloc() : memref<37x5x8x1xi32, UB>
    %subview = memref.subview %alloc[0, 0, 0, 0] [37, 5, 3, 1] [1, 1, 1, 1] : memref<37x5x8x1xi32, UB> to memref<37x5x3xi32, strided<[40, 8, 1]>, UB>
    hivm.hir.load ins(%arg0 : memref<37x5x3xi32, strided<[15, 3, 1]>, #hivm.address_space<gm>>) outs(%subview : memref<37x5x3xi32, strided<[40, 8, 1]>, UB>)
    call @vf(%subview, %arg1) : (memref<37x5x3xi32, strided<[40, 8, 1]>, UB>, index) -> ()
    return
  }
}
")
    );
    assert_eq!(ok(&out, &[MARK, ENABLE]), out);
}

#[test]
fn regbase_dma_exemption_and_membase_contrast() {
    let body = ub("  func.func @f(%gm: memref<3x741xf32, #hivm.address_space<gm>>, %gm3: memref<37x5x3xi32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<3x741xf32, UB>
    hivm.hir.load ins(%gm : memref<3x741xf32, #hivm.address_space<gm>>) outs(%a : memref<3x741xf32, UB>)
    %b = memref.alloc() : memref<37x5x3xi32, UB>
    hivm.hir.load ins(%gm3 : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%b : memref<37x5x3xi32, UB>)
    return
  }");
    let reg = ok(&regbase(&body), &[MARK]);
    assert_eq!(reg.matches("annotation.mark").count(), 1, "{reg}");
    assert!(reg.contains(&ub(
        "annotation.mark %alloc_0 {hivm.stride_align_dims = array<i32: 2>"
    )));
    let mem = ok(&format!("{body}\n"), &[MARK]);
    assert_eq!(mem.matches("annotation.mark").count(), 0, "{mem}");
}

#[test]
fn fixpipe_marks_follow_the_tables() {
    let case = |elem: &str, attrs: &str| {
        let a = if attrs.is_empty() {
            String::new()
        } else {
            format!(" {{{attrs}}}")
        };
        let src = regbase(&ub(&format!("  func.func @f(%l0c: memref<16x30xf32, #hivm.address_space<cc>>, %u: memref<16x30x{elem}, UB>) {{
    hivm.hir.fixpipe{a} ins(%l0c : memref<16x30xf32, #hivm.address_space<cc>>) outs(%u : memref<16x30x{elem}, UB>)
    return
  }}")));
        let out = ok(&src, &[MARK]);
        // One mark per table entry: the M one (written last) comes first.
        out.lines()
            .filter(|l| l.contains("hivm.stride_align_dims"))
            .map(|l| {
                let dims = l.split("stride_align_dims = array<i32: ").nth(1).unwrap();
                let dims = &dims[..dims.find('>').unwrap()];
                let bytes = l.split("value_in_byte = array<i32: ").nth(1).unwrap();
                let bytes = &bytes[..bytes.find('>').unwrap()];
                format!("{dims} / {bytes}")
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    assert_eq!(case("f16", ""), "1 / 32");
    assert_eq!(case("i8", "dma_mode = #hivm.dma_mode<nz2nd>"), "1 / 32");
    assert_eq!(case("i8", ""), "1 / 16");
    assert_eq!(case("i4", "dma_mode = #hivm.dma_mode<nz2nd>"), "1 / 32");
    assert_eq!(case("f32", ""), "1 / 64");
    assert_eq!(case("f32", "channel_split = true"), "1 / 32");
    assert_eq!(
        case(
            "f32",
            "dual_dst_mode = #hivm.fixpipe_dual_dst_mode<COLUMN_SPLIT>"
        ),
        "1 / 128"
    );
    assert_eq!(
        case("f16", "dma_mode = #hivm.dma_mode<nz2dn>"),
        "0 / 32; 1 / 32"
    );
    assert_eq!(
        case(
            "f32",
            "dma_mode = #hivm.dma_mode<nz2nd>, dual_dst_mode = #hivm.fixpipe_dual_dst_mode<ROW_SPLIT>"
        ),
        "0 / 8; 1 / 32"
    );
    assert_eq!(case("f16", "channel_split = true"), "");
}

#[test]
fn dynamic_sizes_are_rounded_at_run_time() {
    let src = ub("func.func @f(%n: index) {
  %a = memref.alloc(%n) : memref<2x?xf16, UB>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x?xf16, UB>
  hivm.hir.vexp ins(%a : memref<2x?xf16, UB>) outs(%a : memref<2x?xf16, UB>)
  return
}
");
    assert_eq!(
        ok(&src, &[ENABLE]),
        ub("module {
  func.func @f(%arg0: index) attributes {hivm.storage_aligned} {
    %c16 = arith.constant 16 : index
    %c15 = arith.constant 15 : index
    %0 = arith.addi %arg0, %c15 : index
    %1 = arith.remsi %0, %c16 : index
    %2 = arith.subi %0, %1 : index
    %alloc = memref.alloc(%2) : memref<2x?x1xf16, UB>
    %subview = memref.subview %alloc[0, 0, 0] [2, %arg0, 1] [1, 1, 1] : memref<2x?x1xf16, UB> to memref<2x?xf16, strided<[?, 1]>, UB>
    hivm.hir.vexp ins(%subview : memref<2x?xf16, strided<[?, 1]>, UB>) outs(%subview : memref<2x?xf16, strided<[?, 1]>, UB>)
    return
  }
}
")
    );
}

#[test]
fn propagation_through_views_loops_and_operands() {
    // collapse_shape up, then the root padded and the view retyped.
    let src = ub("func.func @f() {
  %a = memref.alloc() : memref<2x3x15xf16, UB>
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<2x3x15xf16, UB> into memref<6x15xf16, UB>
  annotation.mark %c {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<6x15xf16, UB>
  hivm.hir.vexp ins(%c : memref<6x15xf16, UB>) outs(%c : memref<6x15xf16, UB>)
  return
}
");
    let out = ok(&src, &[ENABLE]);
    assert!(
        out.contains(&ub("memref.alloc() : memref<2x3x16x1xf16, UB>")),
        "{out}"
    );
    assert!(
        out.contains(&ub("into memref<6x15xf16, strided<[16, 1]>, UB>")),
        "{out}"
    );

    // scf.for iter arg -> init; among operands vadd(A, B) -> C.
    let src = ub("func.func @f() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<2x15xf16, UB>
  %c = memref.alloc() : memref<2x15xf16, UB>
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a) -> (memref<2x15xf16, UB>) {
    annotation.mark %x {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, UB>
    hivm.hir.vadd ins(%x, %x : memref<2x15xf16, UB>, memref<2x15xf16, UB>) outs(%c : memref<2x15xf16, UB>)
    scf.yield %x : memref<2x15xf16, UB>
  }
  return
}
");
    let out = ok(&src, &[ENABLE]);
    assert_eq!(out.matches("memref<2x16x1xf16").count(), 4, "{out}");
    assert!(
        out.contains(&ub(
            "iter_args(%arg1 = %subview) -> (memref<2x15xf16, strided<[16, 1]>, UB>)"
        )),
        "{out}"
    );

    // Copies: the destination receives, the source does not.
    let src = ub("func.func @f() {
  %a = memref.alloc() : memref<2x15xf16, UB>
  %b = memref.alloc() : memref<2x15xf16, UB>
  annotation.mark %b {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, UB>
  hivm.hir.copy ins(%a : memref<2x15xf16, UB>) outs(%b : memref<2x15xf16, UB>)
  return
}
");
    let out = ok(&src, &[ENABLE]);
    assert!(
        out.contains(&ub("%alloc = memref.alloc() : memref<2x15xf16, UB>")),
        "{out}"
    );
    assert!(
        out.contains(&ub("%alloc_0 = memref.alloc() : memref<2x16x1xf16, UB>")),
        "{out}"
    );
}

#[test]
fn mirror_for_users_that_cannot_take_the_layout() {
    let src = ub("func.func @f() {
  %a = memref.alloc() : memref<2x15xf16, UB>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, UB>
  %f = \"some_use\"(%a) : (memref<2x15xf16, UB>) -> memref<30xf16, UB>
  return
}
");
    assert_eq!(
        ok(&src, &[ENABLE]),
        ub("module {
  func.func @f() attributes {hivm.storage_aligned} {
    %alloc = memref.alloc() : memref<2x16x1xf16, UB>
    %subview = memref.subview %alloc[0, 0, 0] [2, 15, 1] [1, 1, 1] : memref<2x16x1xf16, UB> to memref<2x15xf16, strided<[16, 1]>, UB>
    %alloc_0 = memref.alloc() : memref<2x15xf16, UB>
    hivm.hir.copy ins(%subview : memref<2x15xf16, strided<[16, 1]>, UB>) outs(%alloc_0 : memref<2x15xf16, UB>)
    %0 = \"some_use\"(%alloc_0) : (memref<2x15xf16, UB>) -> memref<30xf16, UB>
    return
  }
}
")
    );
}

#[test]
fn diagnostics_carry_locations() {
    let e = err(
        &ub("func.func @f(%t: tensor<4x16xf16>) {
  %c = memref.alloc() : memref<4x16xf16, UB>
  hivm.hir.vexp ins(%t : tensor<4x16xf16>) outs(%c : memref<4x16xf16, UB>)
  return
}
"),
        &[MARK],
    );
    assert_eq!(e, "t.mlir:3:3: error: Not bufferized.");
    let e = err(
        &ub("func.func @f(%a: memref<4x15xf16, UB>) {
  hivm.hir.custom {arg_attrs = [{align_dim = 2 : i64}]} ins(%a : memref<4x15xf16, UB>)
  return
}
"),
        &[MARK],
    );
    assert_eq!(e, "t.mlir:2:3: error: align dim is too large.");
    // NormalizeAlignInfoPattern's errors do not fail the pass.
    let (e, succeeded) = diagnostics(
        &ub("func.func @f() {
  %a = memref.alloc() : memref<2x15xf16, UB>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0>} : memref<2x15xf16, UB>
  return
}
"),
        &[ENABLE],
    );
    assert_eq!(
        e,
        "t.mlir:3:3: error: align info must contain align dims and align bytes"
    );
    assert!(succeeded);
    let (e, succeeded) = diagnostics(
        &ub("func.func @f() {
  %a = memref.alloc() : memref<2x15xf16, UB>
  annotation.mark %a {hivm.stride_align_dims = array<i32: 0, 1>, hivm.stride_align_value_in_byte = array<i32: 32>} : memref<2x15xf16, UB>
  return
}
"),
        &[ENABLE],
    );
    assert_eq!(
        e,
        "t.mlir:3:3: error: size of align bytes should be matched with size of align dims\n\
         t.mlir:3:3: error: Mismatched storage align marks\n\
         t.mlir:3:3: error: Mismatched storage align marks"
    );
    assert!(succeeded);
}

/// A chain of `n` links, each crossing one subview per propagation round.
fn chain(n: usize) -> String {
    let ty = ub("memref<2x15xf16, UB>");
    let sty = ub("memref<2x15xf16, strided<[15, 1]>, UB>");
    let mut s = String::from("func.func @f() {\n");
    for k in 0..=n {
        s += &format!("  %a{k} = memref.alloc() : {ty}\n");
        s += &format!("  %s{k} = memref.subview %a{k}[0, 0] [2, 15] [1, 1] : {ty} to {sty}\n");
    }
    s += &format!("  annotation.mark %a0 {{hivm.stride_align_dims = array<i32: 0>, hivm.stride_align_value_in_byte = array<i32: 32>}} : {ty}\n");
    for k in 0..n {
        s += &format!(
            "  hivm.hir.vexp ins(%a{k} : {ty}) outs(%s{} : {sty})\n",
            k + 1
        );
    }
    s + "  return\n}\n"
}

#[test]
fn propagation_gives_up_after_ten_rounds() {
    let out = ok(&chain(9), &[ENABLE]);
    assert_eq!(
        out.matches("memref.alloc() : memref<2x16x1xf16").count(),
        10
    );
    let e = err(&chain(10), &[ENABLE]);
    assert!(
        e.ends_with("error: propagate storage align failure and match the max iterations10"),
        "{e}"
    );
}

#[test]
fn align_alloc_size_pads_narrowing_casts() {
    let src = ub("func.func @f() {
  %a = memref.alloc() : memref<2x16xi32, UB>
  %b = memref.alloc() : memref<2x16xi8, UB>
  hivm.hir.vcast ins(%a : memref<2x16xi32, UB>) outs(%b : memref<2x16xi8, UB>)
  return
}
");
    let out = ok(&src, &[SIZE]);
    assert_eq!(
        out,
        ub("module {
  func.func @f() {
    %alloc = memref.alloc() : memref<32x16xi32, UB>
    %subview = memref.subview %alloc[0, 0] [2, 16] [1, 1] : memref<32x16xi32, UB> to memref<2x16xi32, strided<[16, 1]>, UB>
    %alloc_0 = memref.alloc() : memref<32x32xi8, UB>
    %subview_1 = memref.subview %alloc_0[0, 0] [2, 16] [1, 1] : memref<32x32xi8, UB> to memref<2x16xi8, strided<[32, 1]>, UB>
    hivm.hir.vcast ins(%subview : memref<2x16xi32, strided<[16, 1]>, UB>) outs(%subview_1 : memref<2x16xi8, strided<[32, 1]>, UB>)
    return
  }
}
")
    );
    assert_eq!(ok(&out, &[SIZE]), out);
}

#[test]
fn pre_mark_protects_vector_loads() {
    let src = regbase(&ub("  func.func @vf(%arg0: memref<37x5x3xi32, UB>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %0 = vector.transfer_read %arg0[%c0, %c0, %c0], %c0_i32 : memref<37x5x3xi32, UB>, vector<3xi32>
    return
  }
  func.func @kernel(%gm: memref<37x5x3xi32, #hivm.address_space<gm>>) {
    %a = memref.alloc() : memref<37x5x3xi32, UB>
    hivm.hir.load ins(%gm : memref<37x5x3xi32, #hivm.address_space<gm>>) outs(%a : memref<37x5x3xi32, UB>)
    func.call @vf(%a) : (memref<37x5x3xi32, UB>) -> ()
    return
  }"));
    let out = ok(&src, &[PRE, MARK]);
    assert!(out.contains(&ub("annotation.mark %alloc {hivm.skip_stride_align_for_vload = #hivm.skip_stride_align_for_vload} : memref<37x5x3xi32, UB>")), "{out}");
    assert!(!out.contains("hivm.stride_align_dims"), "{out}");
    assert_eq!(ok(&out, &[PRE]), out);
    // Without pre-mark, the load is marked.
    assert!(ok(&src, &[MARK]).contains("hivm.stride_align_dims = array<i32: 2>"));
}

#[test]
fn vsstb_stores_ask_for_bank_conflict_free_strides() {
    let src = regbase(&ub(
        "  func.func @vf(%arg0: memref<8x64x16xf16, UB>) attributes {hivm.vector_function} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %cst = arith.constant dense<0.000000e+00> : vector<16xf16>
    scf.for %i = %c0 to %c64 step %c1 {
      vector.transfer_write %cst, %arg0[%c0, %i, %c0] : vector<16xf16>, memref<8x64x16xf16, UB>
    } {unroll_for_vsstb}
    return
  }
  func.func @caller() {
    %a = memref.alloc() : memref<8x64x16xf16, UB>
    func.call @vf(%a) : (memref<8x64x16xf16, UB>) -> ()
    return
  }",
    ));
    let out = ok(&src, &[MARK]);
    assert!(out.contains("{hivm.stride_align_dims = array<i32: 1>, hivm.stride_align_value_in_byte = array<i32: 130>}"), "{out}");
    let out = ok(&src, &[MARK, ENABLE]);
    assert!(
        out.contains(&ub("memref.alloc() : memref<8x65x16x1xf16, UB>")),
        "{out}"
    );
    assert!(
        out.contains(&ub(
            "func.func @vf(%arg0: memref<8x64x16xf16, strided<[1040, 16, 1]>, UB>)"
        )),
        "{out}"
    );
}

/// Type agreement the passes must keep when they retype values
/// ([`super::type_agree`]), over the whole module.
fn check_types(m: &crate::ir::Module) -> Result<(), String> {
    super::type_agree::check(m, &m.all_ops())
        .map_err(|d| format!("{}: {}", m.op(d.op).name(), d.message))
}

/// The lit inputs of the suite, embedded so that this test needs no files.
const LIT_INPUTS: &[&str] = &[
    include_str!("../../../../tests/lit/stride-align/align-alloc-size.mlir"),
    include_str!("../../../../tests/lit/stride-align/enable-errors.mlir"),
    include_str!("../../../../tests/lit/stride-align/enable-membase.mlir"),
    include_str!("../../../../tests/lit/stride-align/enable-propagate.mlir"),
    include_str!("../../../../tests/lit/stride-align/enable-regbase.mlir"),
    include_str!("../../../../tests/lit/stride-align/mark-errors.mlir"),
    include_str!("../../../../tests/lit/stride-align/mark-fixpipe.mlir"),
    include_str!("../../../../tests/lit/stride-align/mark-membase.mlir"),
    include_str!("../../../../tests/lit/stride-align/mark-ops.mlir"),
    include_str!("../../../../tests/lit/stride-align/mark-regbase.mlir"),
    include_str!("../../../../tests/lit/stride-align/mark-vf-call.mlir"),
    include_str!("../../../../tests/lit/stride-align/pre-mark.mlir"),
    include_str!("../../../../tests/lit/stride-align/mark-warnings.mlir"),
    include_str!("../../../../tests/lit/stride-align/enable-warnings.mlir"),
    include_str!("../../../../tests/lit/stride-align/enable-max-iterations.mlir"),
    include_str!("../../../../tests/lit/stride-align/seed-examples.mlir"),
];

/// Token swaps the mutation test applies besides digit changes.
const SWAPS: &[(&str, &str)] = &[
    ("address_space<ub>", "address_space<gm>"),
    ("address_space<gm>", "address_space<ub>"),
    ("address_space<ub>", "address_space<cc>"),
    ("xf16", "xi1"),
    ("xf16", "xi4"),
    ("xi32", "xf16"),
    ("xf32", "xi8"),
    ("Ascend950PR_9589", "Ascend310B1"),
    ("strided<[", "strided<[?, "),
    ("x15x", "x?x"),
    ("memref<", "memref<1x"),
    ("scf.yield %a", "scf.yield %b"),
    ("<sum>", "<max>"),
];

/// Deterministic digit mutations of every lit case (sizes, strides, dims,
/// bytes, offsets change; the text stays mostly readable) through every
/// pass and the full pipeline: no input may make a pass panic, and each
/// pass run twice gives what it gave once.
#[test]
fn passes_never_panic_and_stay_idempotent_on_mutated_inputs() {
    let pipelines: [&[&str]; 5] = [
        &[SIZE],
        &[PRE],
        &[MARK],
        &[ENABLE],
        &[SIZE, PRE, MARK, ENABLE],
    ];
    let mut seed: u64 = 0x5eed_2026;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut runs = 0;
    for input in LIT_INPUTS {
        for chunk in crate::parse::split_input(input) {
            let base = chunk.text.to_string();
            let digits: Vec<usize> = base
                .char_indices()
                .filter(|(_, c)| c.is_ascii_digit())
                .map(|(i, _)| i)
                .collect();
            for variant in 0..16 {
                let mut text = base.clone().into_bytes();
                if variant > 0 && !digits.is_empty() {
                    for _ in 0..1 + next() % 3 {
                        let at = digits[next() % digits.len()];
                        text[at] = b'0' + (next() % 10) as u8;
                    }
                }
                let mut text = String::from_utf8(text).unwrap();
                if variant % 2 == 1 {
                    let (from, to) = SWAPS[next() % SWAPS.len()];
                    let hits: Vec<usize> = text.match_indices(from).map(|(i, _)| i).collect();
                    if !hits.is_empty() {
                        let at = hits[next() % hits.len()];
                        text.replace_range(at..at + from.len(), to);
                    }
                }
                let opts = ParseOptions {
                    allow_unregistered_dialect: true,
                    ..ParseOptions::default()
                };
                // Inputs whose types already disagree are not the passes'
                // doing (the reader does not verify them).
                let well_typed = parse_module(&text, &opts)
                    .map(|m| check_types(&m).is_ok())
                    .unwrap_or(false);
                if !well_typed {
                    continue;
                }
                for passes in pipelines {
                    let Ok(once) = run(&text, passes) else {
                        continue;
                    };
                    runs += 1;
                    let opts = ParseOptions {
                        allow_unregistered_dialect: true,
                        ..ParseOptions::default()
                    };
                    let reread = parse_module(&once, &opts).unwrap_or_else(|d| {
                        panic!("output unreadable: {}\n{once}", d.render("out"))
                    });
                    if let Err(e) = check_types(&reread) {
                        panic!("{passes:?}: {e} in\n{once}\nfrom\n{text}");
                    }
                    // `hivm-mark-stride-align` writes its marks again on a
                    // second run, as the C++ does (createAlignMarkOp never
                    // merges); every other pass is idempotent.
                    if passes.len() == 1 && passes[0] != MARK {
                        match run(&once, passes) {
                            Ok(twice) => {
                                assert_eq!(twice, once, "{passes:?} not idempotent on:\n{text}")
                            }
                            Err(e) => panic!("{passes:?} failed on its own output:\n{e}\n{once}"),
                        }
                    }
                }
            }
        }
    }
    assert!(runs > 500, "only {runs} runs");
}
