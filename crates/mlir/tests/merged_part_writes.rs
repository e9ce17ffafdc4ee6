//! Buffers PlanMemory merges (loop-carried, branch-yielded) when a third
//! buffer of the group writes only a part of the shared bytes.
//!
//! `analysis::merged_reads` knows no offsets. After a part write it used
//! to call the bytes "mixed" and judge no read until a whole buffer was
//! written again, so `A` written, `B` written whole, a part of `C`
//! written, then `A` read: the run over the group `{A, B, C}` (the
//! planner's) found nothing and kept the merge, while the run over the
//! pair `{A, B}` (the placement check's) found the read of `A` after `B`:
//! `tilemem opt -hivm-plan-memory` stopped with "internal error: the plan
//! failed its independent check" (found by the `hivm_plan` fuzz target's
//! rule, reduced by hand; `fuzz/findings/fixed/hivm_plan-part-write-hides-a-whole-write`).
//! Worse, both runs took `A` read whole after a part of `C` was written as
//! fine, so both planners gave `A` and `C` one address and the check
//! accepted it: `A`'s read found half of `C`'s bytes, without an error.
//! The owners of the bytes are now the last whole writer, then every part
//! writer since in the order of their last writes: a read through any
//! other buffer is bad, and so is a whole read of a buffer another wrote a
//! part of after it.

use tilemem_mlir::analysis::merged_reads::bad_reads;
use tilemem_mlir::memplan::{plan_text, PlanRequest};
use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::passes::plan_memory::optimal::Planner;
use tilemem_mlir::passes::plan_memory::Options;
use tilemem_mlir::plan_check::check_module;

const UB: &str = "memref<16xf32, #hivm.address_space<ub>>";
const UB8: &str = "memref<8xf32, strided<[1]>, #hivm.address_space<ub>>";
const GM: &str = "memref<16xf32, #hivm.address_space<gm>>";
const GM8: &str = "memref<8xf32, #hivm.address_space<gm>>";

/// `text` with its `{UB}`, `{UB8}`, `{GM}`, `{GM8}` types spelled out.
fn typed(text: &str) -> String {
    text.replace("{UB8}", UB8)
        .replace("{UB}", UB)
        .replace("{GM8}", GM8)
        .replace("{GM}", GM)
}

/// `%a` loaded; on the else path `%b` loaded whole, then half of `%cc`;
/// both `if`s yield, so PlanMemory merges all three; `%a` is stored after.
fn program() -> String {
    typed(
        "func.func @mixed(%g: {GM}, %o: {GM}, %g8: {GM8}, %c: i1) {\n\
     %a = memref.alloc() : {UB}\n\
     hivm.hir.load ins(%g : {GM}) outs(%a : {UB})\n\
     %r1 = scf.if %c -> ({UB}) {\n\
     scf.yield %a : {UB}\n\
     } else {\n\
     %b = memref.alloc() : {UB}\n\
     hivm.hir.load ins(%g : {GM}) outs(%b : {UB})\n\
     %cc = memref.alloc() : {UB}\n\
     %sv = memref.subview %cc[0] [8] [1] : {UB} to {UB8}\n\
     hivm.hir.load ins(%g8 : {GM8}) outs(%sv : {UB8})\n\
     %r2 = scf.if %c -> ({UB}) {\n\
     scf.yield %b : {UB}\n\
     } else {\n\
     scf.yield %cc : {UB}\n\
     }\n\
     scf.yield %r2 : {UB}\n\
     }\n\
     hivm.hir.store ins(%a : {UB}) outs(%o : {GM})\n\
     hivm.hir.store ins(%r1 : {UB}) outs(%o : {GM})\n\
     return\n\
     }\n",
    )
}

/// The run over the three buffers finds the read of `%a` (its op, at
/// 19:1) after `%b`, then half of `%cc`, wrote the bytes (it names the
/// owner of the first bytes read, `%cc`'s half); the run over `{%a, %b}`
/// finds it after `%b`; the
/// runs over `{%a, %cc}` and `{%b, %cc}` find the whole read of `%a`
/// (19:1) and of `%b` through `%r1` (20:1) after half of `%cc` was written.
#[test]
fn a_part_write_neither_hides_an_earlier_write_nor_leaves_a_whole_read_alone() {
    let m = parse_module(&program(), &ParseOptions::default()).expect("reads");
    let func = m
        .walk(m.top())
        .into_iter()
        .find(|&o| m.op(o).is("func.func"))
        .unwrap();
    let allocs: Vec<_> = m
        .walk(func)
        .into_iter()
        .filter(|&o| m.op(o).is("memref.alloc"))
        .map(|o| m.op(o).results()[0])
        .collect();
    let [a, b, cc] = allocs[..] else {
        panic!("three allocations")
    };
    let cases = [
        (vec![a, b], (a, b, 19)),
        (vec![a, b, cc], (a, cc, 19)),
        (vec![a, cc], (a, cc, 19)),
        (vec![b, cc], (b, cc, 20)),
    ];
    for (group, want) in cases {
        let bad = bad_reads(&m, func, &group).across.expect("a bad read");
        let line = m.op(bad.op).loc.line;
        assert_eq!((bad.wanted, bad.found, line), want, "{group:?}");
    }
}

/// Both planners place the three buffers apart (before: `%a` and `%cc` at
/// one address, or the independent check's internal error), and the plan
/// passes the check.
#[test]
fn both_planners_plan_apart_a_buffer_a_part_write_followed() {
    for planner in [Planner::Bishengir, Planner::Optimal] {
        let req = PlanRequest {
            target: Some("Ascend910B1".into()),
            options: Options {
                planner,
                ..Options::default()
            },
        };
        let out = plan_text(&program(), &req).unwrap_or_else(|f| {
            panic!(
                "{planner:?}: {:?}",
                f.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
            )
        });
        let addrs: Vec<Vec<u64>> = out.functions[0].spaces[0]
            .buffers
            .iter()
            .map(|b| b.offsets.clone())
            .collect();
        assert_eq!(addrs, [vec![0], vec![64], vec![128]], "{planner:?}");
        let again = parse_module(&out.text, &ParseOptions::default()).expect("reads back");
        assert_eq!(check_module(&again, &|_| None), Vec::new(), "{planner:?}");
    }
}

/// A loop that yields a buffer it allocates and writes only a part of,
/// then reads the carried value (the previous iteration's instance, at the
/// same address) whole: its first half is the new instance's. Refused as
/// a read of the previous instance (before: planned, `%x` apart, and the
/// read found the new bytes without an error).
#[test]
fn a_whole_read_of_the_previous_instance_after_a_part_write_is_refused() {
    let text = typed(
        "func.func @parts(%g: {GM}, %o: {GM}, %g8: {GM8}) {\n\
         %c0 = arith.constant 0 : index\n\
         %c1 = arith.constant 1 : index\n\
         %c3 = arith.constant 3 : index\n\
         %x = memref.alloc() : {UB}\n\
         hivm.hir.load ins(%g : {GM}) outs(%x : {UB})\n\
         %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> ({UB}) {\n\
         %y = memref.alloc() : {UB}\n\
         %sy = memref.subview %y[0] [8] [1] : {UB} to {UB8}\n\
         hivm.hir.load ins(%g8 : {GM8}) outs(%sy : {UB8})\n\
         hivm.hir.store ins(%a : {UB}) outs(%o : {GM})\n\
         scf.yield %y : {UB}\n\
         }\n\
         hivm.hir.store ins(%r : {UB}) outs(%o : {GM})\n\
         return\n\
         }\n",
    );
    for planner in [Planner::Bishengir, Planner::Optimal] {
        let req = PlanRequest {
            target: Some("Ascend910B1".into()),
            options: Options {
                planner,
                ..Options::default()
            },
        };
        let f = plan_text(&text, &req).expect_err("refused");
        assert!(f.bad_input, "{planner:?}");
        let d = &f.diagnostics[0];
        assert_eq!((d.loc.line, d.loc.col), (11, 1), "{planner:?}");
        assert!(
            d.message.starts_with(
                "this op reads the buffer a loop carries from its previous iteration after the \
                 iteration wrote the buffer's new instance"
            ),
            "{planner:?}: {}",
            d.message
        );
    }
}

/// A loop carries `%x` (loaded whole) into `%a` and yields `%y` (allocated
/// before it); the body writes the first half of `%y`, then reads the
/// first half of `%a`: merged, that read gets `%y`'s bytes. `text` with
/// the two halves (`{W}` written, `{R}` read) as the offsets.
fn half_loop(w: &str, r: &str) -> String {
    typed(
        &"func.func @halves(%g: {GM}, %o: {GM}, %g8: {GM8}, %o8: {GM8}) {\n\
         %c0 = arith.constant 0 : index\n\
         %c1 = arith.constant 1 : index\n\
         %c3 = arith.constant 3 : index\n\
         %x = memref.alloc() : {UB}\n\
         hivm.hir.load ins(%g : {GM}) outs(%x : {UB})\n\
         %y = memref.alloc() : {UB}\n\
         %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> ({UB}) {\n\
         %sy = memref.subview %y[{W}] [8] [1] : {UB} to {W8}\n\
         hivm.hir.load ins(%g8 : {GM8}) outs(%sy : {W8})\n\
         %sa = memref.subview %a[{R}] [8] [1] : {UB} to {R8}\n\
         hivm.hir.store ins(%sa : {R8}) outs(%o8 : {GM8})\n\
         %sy2 = memref.subview %y[{R}] [8] [1] : {UB} to {R8}\n\
         hivm.hir.load ins(%g8 : {GM8}) outs(%sy2 : {R8})\n\
         scf.yield %y : {UB}\n\
         }\n\
         hivm.hir.store ins(%r : {UB}) outs(%o : {GM})\n\
         return\n\
         }\n"
        .replace("{W8}", &part_type(w))
        .replace("{R8}", &part_type(r))
        .replace("{W}", w)
        .replace("{R}", r),
    )
}

/// The type of an 8-element part of a `{UB}` buffer at `offset`.
fn part_type(offset: &str) -> String {
    format!("memref<8xf32, strided<[1], offset: {offset}>, #hivm.address_space<ub>>")
}

fn plan_addrs(text: &str, planner: Planner) -> Vec<Vec<u64>> {
    let req = PlanRequest {
        target: Some("Ascend910B1".into()),
        options: Options {
            planner,
            ..Options::default()
        },
    };
    let out = plan_text(text, &req).unwrap_or_else(|f| {
        panic!(
            "{planner:?}: {:?}",
            f.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        )
    });
    let again = parse_module(&out.text, &ParseOptions::default()).expect("reads back");
    assert_eq!(check_module(&again, &|_| None), Vec::new(), "{planner:?}");
    out.functions[0].spaces[0]
        .buffers
        .iter()
        .map(|b| b.offsets.clone())
        .collect()
}

/// A part read of `%a` (the init `%x`) after the body wrote those bytes
/// of `%y`: the run finds it (before: a read through a part of a buffer
/// among the owners was not judged, so `%x` and `%y` shared address 0 and
/// the read got `%y`'s bytes without an error); both planners place them
/// apart. The other half, or the half `%y` writes only after the read
/// (the slice-by-slice loop of hivm-create-preload, with constant slices),
/// keeps the reference's shared address.
#[test]
fn a_part_read_of_bytes_another_buffer_wrote_is_judged_by_its_offsets() {
    let same = half_loop("0", "0");
    let m = parse_module(&same, &ParseOptions::default()).expect("reads");
    let func = m
        .walk(m.top())
        .into_iter()
        .find(|&o| m.op(o).is("func.func"))
        .unwrap();
    let allocs: Vec<_> = m
        .walk(func)
        .into_iter()
        .filter(|&o| m.op(o).is("memref.alloc"))
        .map(|o| m.op(o).results()[0])
        .collect();
    let bad = bad_reads(&m, func, &allocs).across.expect("a bad read");
    assert_eq!(
        (bad.wanted, bad.found, m.op(bad.op).loc.line),
        (allocs[0], allocs[1], 12)
    );
    for planner in [Planner::Bishengir, Planner::Optimal] {
        assert_eq!(
            plan_addrs(&same, planner),
            [vec![0], vec![64]],
            "{planner:?}"
        );
        // The other half: the read finds %x's bytes.
        assert_eq!(
            plan_addrs(&half_loop("8", "0"), planner),
            [vec![0], vec![0]],
            "{planner:?}"
        );
    }
}

/// An `scf.if` yields `%x` or `%y`; on the else path an `scf.forall`
/// reads `%x` and writes `%y` on each of its trips: merged, its second
/// trip reads `%y`'s bytes. The run took the body of an op with regions
/// other than `scf.for`/`scf.while`/`scf.if`/`scope.scope` to run once or
/// not at all, so it saw no second trip and both planners gave `%x` and
/// `%y` one address; it now runs such bodies to a fixed point, and they
/// are planned apart, as they were with an `scf.for` in its place.
#[test]
fn a_forall_body_runs_more_than_once() {
    for inner in [
        "scf.forall (%k) in (2) {",
        "scf.for %k = %c0 to %c3 step %c1 {",
    ] {
        let text = typed(&format!(
            "func.func @trips(%g: {{GM}}, %c: i1) {{\n\
             %c0 = arith.constant 0 : index\n\
             %c1 = arith.constant 1 : index\n\
             %c3 = arith.constant 3 : index\n\
             %x = memref.alloc() : {{UB}}\n\
             hivm.hir.load ins(%g : {{GM}}) outs(%x : {{UB}})\n\
             %r = scf.if %c -> ({{UB}}) {{\n\
             scf.yield %x : {{UB}}\n\
             }} else {{\n\
             %y = memref.alloc() : {{UB}}\n\
             {inner}\n\
             hivm.hir.vexp ins(%x : {{UB}}) outs(%y : {{UB}})\n\
             }}\n\
             scf.yield %y : {{UB}}\n\
             }}\n\
             return\n\
             }}\n"
        ));
        for planner in [Planner::Bishengir, Planner::Optimal] {
            assert_eq!(
                plan_addrs(&text, planner),
                [vec![0], vec![64]],
                "{inner} {planner:?}"
            );
        }
    }
}
