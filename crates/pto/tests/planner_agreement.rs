//! Every planner keeps apart what the rules keep apart: programs on which a
//! planner once shared bytes of two tiles that must not share, planned by
//! every planner on every target, with the bytes of the two tiles compared
//! directly (not through the planner's own model or its checker).

mod common;

use common::{program, TARGETS};
use tilemem_pto::ir::{Function, Program, Type};
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, report};
use tilemem_soc::Soc;

const PLANNERS: [PlannerMode; 3] = [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal];

/// Plans `src` with `planner`'s whole pipeline on `target`.
fn planned(src: &str, target: &str, planner: PlannerMode) -> Program {
    let mut p = parse(src).expect("test program parses");
    let mut cx = PassContext::new(Soc::from_name(target).unwrap(), planner);
    let passes = PassId::default_pipeline(planner);
    run_pipeline(&mut p, &mut cx, &passes)
        .unwrap_or_else(|e| panic!("{target} {}: {e}", planner.name()));
    p
}

/// The bytes `[start, end)` tile `name` of `f` occupies (a constant
/// address after allocate_memory_addr).
fn window(f: &Function, name: &str) -> (i64, i64) {
    let v = f
        .var_by_name(name)
        .unwrap_or_else(|| panic!("no tile {name}"));
    let m = f.vars[v]
        .ty
        .as_ref()
        .and_then(Type::memref)
        .unwrap_or_else(|| panic!("{name} has no MemRef"));
    let start = m.const_offset().expect("a constant address");
    (start, start + m.size().expect("a size") as i64)
}

fn apart(f: &Function, a: &str, b: &str) -> bool {
    let ((a0, a1), (b0, b1)) = (window(f, a), window(f, b));
    a1 <= b0 || b1 <= a0
}

/// Every space's printed lower bound is at most the bytes it uses.
fn bound_holds(p: &Program, target: &str, planner: PlannerMode) {
    let r = report::build(p, &Soc::from_name(target).unwrap(), true);
    for f in &r.functions {
        for s in &f.spaces {
            assert!(
                s.lower_bound <= s.bytes_used,
                "{target} {}: {}/{}: lower bound {} above the {} bytes used",
                planner.name(),
                f.name,
                s.space,
                s.lower_bound,
                s.bytes_used
            );
        }
    }
}

/// A loop carrying `acc` whose body loads `t` and reads `acc` after it:
/// `t` must not take `acc`'s bytes (the optimal planner once did, making
/// `s` compute `t + t`).
fn carried_accumulator() -> String {
    let tile = "pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec]";
    let load = "pl.tile.load(a, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)";
    program(
        "InCore",
        "self, a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]",
        &[
            &format!("acc0: {tile} = {load}"),
            "for i, (acc,) in pl.range(2, init_values=(acc0,)):",
            &format!("    t: {tile} = {load}"),
            &format!("    s: {tile} = pl.tile.add(acc, t)"),
            &format!("    r: {tile} = pl.yield_(s)"),
            "o: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(r, [0, 0], out)",
            "return o",
        ],
    )
}

#[test]
fn a_tile_loaded_before_the_carry_is_read_keeps_off_the_carry() {
    let src = carried_accumulator();
    for target in TARGETS {
        for planner in PLANNERS {
            let p = planned(&src, target, planner);
            let f = &p.functions[0];
            // `s` is the carry's storage in the loop (its MemRef is the
            // carry's window in every planner's output).
            for carry in ["acc0", "s"] {
                assert!(
                    apart(f, "t", carry),
                    "{target} {}: t {:?} overlaps {carry} {:?}",
                    planner.name(),
                    window(f, "t"),
                    window(f, carry)
                );
            }
            bound_holds(&p, target, planner);
        }
    }
}

/// `tile.sels` writes its `tmp` operand as scratch; inside a loop the
/// next iteration rewrites it while reads of this one may be in flight,
/// so no other tile may share its bytes, the result included (seed 000,
/// written workspace).
fn sels_in_a_loop() -> String {
    let tile = "pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec]";
    program(
        "InCore",
        "self, a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]",
        &[
            "for i in pl.range(2):",
            &format!("    src: {tile} = pl.tile.load(a, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)"),
            &format!("    mask: {tile} = pl.tile.cmps(src, 0.0, cmp_type=1)"),
            &format!("    tmp: {tile} = pl.tile.create([64, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)"),
            &format!("    r: {tile} = pl.tile.sels(mask, src, tmp, 1.0)"),
            "    o: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(r, [0, 0], out)",
            "return out",
        ],
    )
}

#[test]
fn a_written_workspace_in_a_loop_shares_with_nothing() {
    let src = sels_in_a_loop();
    for target in TARGETS {
        for planner in PLANNERS {
            let p = planned(&src, target, planner);
            let f = &p.functions[0];
            for other in ["src", "mask", "r"] {
                assert!(
                    apart(f, "tmp", other),
                    "{target} {}: tmp {:?} overlaps {other} {:?}",
                    planner.name(),
                    window(f, "tmp"),
                    window(f, other)
                );
            }
            bound_holds(&p, target, planner);
        }
    }
}
