//! The fuzz target `hivm_plan`'s byte-level run (`fuzz/src/bytes.rs`,
//! included here so that `cargo test` keeps it honest): it executes a
//! planned function over its bytes, knowing nothing of lifetimes or of
//! carried buffers, and must see a read get another buffer's bytes where
//! two buffers share an address wrongly, and nothing where the plan is
//! right.

#[path = "../../../fuzz/src/bytes.rs"]
mod bytes;
mod common;

use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::passes::plan_memory::optimal::Planner;

const UB: &str = "memref<16xf32, #hivm.address_space<ub>>";
const GM: &str = "memref<16xf32, #hivm.address_space<gm>>";
const GM8: &str = "memref<8xf32, #hivm.address_space<gm>>";

/// A loop carries `%x` and yields `%y`; the body writes half `w` of `%y`
/// (an element offset) and then reads the first half of the carried
/// value. `{X}`/`{Y}` define the buffers.
fn program(w: u32, x: &str, y: &str) -> String {
    let part =
        |o: u32| format!("memref<8xf32, strided<[1], offset: {o}>, #hivm.address_space<ub>>");
    let (pw, p0) = (part(w), part(0));
    format!(
        "module attributes {{hacc.target = #hacc.target<\"Ascend910B1\">}} {{\n\
         func.func @f(%g: {GM}, %o: {GM}, %g8: {GM8}, %o8: {GM8}) {{\n\
         %c0 = arith.constant 0 : index\n\
         %c1 = arith.constant 1 : index\n\
         %c3 = arith.constant 3 : index\n\
         %c0_i64 = arith.constant 0 : i64\n\
         %c64_i64 = arith.constant 64 : i64\n\
         %x = {x} : {UB}\n\
         hivm.hir.load ins(%g : {GM}) outs(%x : {UB})\n\
         %y = {y} : {UB}\n\
         %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> ({UB}) {{\n\
         %sy = memref.subview %y[{w}] [8] [1] : {UB} to {pw}\n\
         hivm.hir.load ins(%g8 : {GM8}) outs(%sy : {pw})\n\
         %sa = memref.subview %a[0] [8] [1] : {UB} to {p0}\n\
         hivm.hir.store ins(%sa : {p0}) outs(%o8 : {GM8})\n\
         %sy2 = memref.subview %y[0] [8] [1] : {UB} to {p0}\n\
         hivm.hir.load ins(%g8 : {GM8}) outs(%sy2 : {p0})\n\
         scf.yield %y : {UB}\n\
         }}\n\
         hivm.hir.store ins(%r : {UB}) outs(%o : {GM})\n\
         return\n\
         }}\n}}\n"
    )
}

const AT0: &str = "hivm.hir.pointer_cast(%c0_i64)";
const AT64: &str = "hivm.hir.pointer_cast(%c64_i64)";

fn run(text: &str) -> bytes::Outcome {
    let m = parse_module(text, &ParseOptions::default()).expect("reads");
    bytes::run(&m, 4)
}

/// Placed by hand: one address with the same half written and read is
/// wrong (the read at line 15 finds `%y`'s write), apart is right, and
/// one address with the other half written is right.
#[test]
fn the_run_sees_a_part_read_of_another_buffers_bytes() {
    let wrong = run(&program(0, AT0, AT0));
    assert_eq!(
        wrong.errors,
        [
            "@f, run 0: 15:1: `hivm.hir.store` reads ub byte 0 (byte 0 of its buffer), which \
          another write overwrote"
        ]
    );
    assert!(wrong.unmodelled.is_empty());
    for right in [program(0, AT0, AT64), program(8, AT0, AT0)] {
        let out = run(&right);
        assert_eq!((out.errors.len(), out.unmodelled.len()), (0, 0), "{right}");
    }
}

/// Both planners' plans of both programs pass the run.
#[test]
fn the_planners_plans_pass_the_run() {
    for w in [0, 8] {
        let text = program(w, "memref.alloc()", "memref.alloc()");
        for planner in [Planner::Bishengir, Planner::Optimal] {
            let out = common::plan(&text, planner);
            let got = run(&out.text);
            assert_eq!(
                (got.errors, got.unmodelled),
                (vec![], vec![]),
                "{w} {planner:?}"
            );
        }
    }
}

/// The subviews the stride-alignment passes leave: a rank-reducing view
/// of a padded buffer (`1x48x1` to `1x34`), then a part of that view (one
/// fewer offset than its source's type has dims). The run places both:
/// elements 26 to 30 are bytes 52 to 62, so a buffer written at byte 48
/// overwrites them, one at byte 64 does not.
#[test]
fn the_run_places_rank_reducing_subviews() {
    let text = |b: u32| {
        format!(
            "module attributes {{hacc.target = #hacc.target<\"Ascend910B1\">}} {{\n\
             func.func @f(%g: memref<1x5xf16, #hivm.address_space<gm>>, %o: memref<1x5xf16, #hivm.address_space<gm>>, %h: memref<16xf16, #hivm.address_space<gm>>) {{\n\
             %c0_i64 = arith.constant 0 : i64\n\
             %cb_i64 = arith.constant {b} : i64\n\
             %a = hivm.hir.pointer_cast(%c0_i64) : memref<1x48x1xf16, #hivm.address_space<ub>>\n\
             %s = memref.subview %a[0, 0, 0] [1, 34, 1] [1, 1, 1] : memref<1x48x1xf16, #hivm.address_space<ub>> to memref<1x34xf16, strided<[48, 1]>, #hivm.address_space<ub>>\n\
             %p = memref.subview %s[0, 26] [1, 5] [1, 1] : memref<1x34xf16, strided<[48, 1]>, #hivm.address_space<ub>> to memref<1x5xf16, strided<[48, 1], offset: 26>, #hivm.address_space<ub>>\n\
             hivm.hir.load ins(%g : memref<1x5xf16, #hivm.address_space<gm>>) outs(%p : memref<1x5xf16, strided<[48, 1], offset: 26>, #hivm.address_space<ub>>)\n\
             %t = hivm.hir.pointer_cast(%cb_i64) : memref<16xf16, #hivm.address_space<ub>>\n\
             hivm.hir.load ins(%h : memref<16xf16, #hivm.address_space<gm>>) outs(%t : memref<16xf16, #hivm.address_space<ub>>)\n\
             hivm.hir.store ins(%p : memref<1x5xf16, strided<[48, 1], offset: 26>, #hivm.address_space<ub>>) outs(%o : memref<1x5xf16, #hivm.address_space<gm>>)\n\
             return\n\
             }}\n}}\n"
        )
    };
    let wrong = run(&text(48));
    assert_eq!(wrong.unmodelled, Vec::<String>::new());
    assert_eq!(
        wrong.errors,
        [
            "@f, run 0: 11:1: `hivm.hir.store` reads ub byte 52 (byte 52 of its buffer), which \
          another write overwrote"
        ]
    );
    let right = run(&text(64));
    assert_eq!((right.errors.len(), right.unmodelled.len()), (0, 0));
}
