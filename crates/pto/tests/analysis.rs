//! The shared analysis layer seen through every planner: one reserve
//! resolver (the same bases, the same error text under `pypto`, `dsa-rp`
//! and `optimal`) and branch exclusivity in the optimal planner.

mod common;

use common::program;
use tilemem_pto::passes::{run_pipeline, ErrorKind, PassContext, PassError, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

const SIG: &str = "x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]";

const PLANNERS: [PlannerMode; 3] = [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal];

fn plan(src: &str, mode: PlannerMode) -> Result<String, PassError> {
    let mut p = parse(src).expect("test program parses");
    let mut cx = PassContext::new(Soc::from_name("910b").unwrap(), mode);
    run_pipeline(&mut p, &mut cx, &[PassId::AllocateMemoryAddr])?;
    Ok(print(&p))
}

/// One 1024-byte tile after the given reserve lines.
fn with_reserves(reserves: &[&str]) -> String {
    let mut body: Vec<&str> = vec!["mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)"];
    body.extend_from_slice(reserves);
    body.extend_from_slice(&[
        "a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
        "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(a, [0, 0], y)",
        "return r",
    ]);
    program("AIV", SIG, &body)
}

/// Seed 001 step 3 gives AUTO windows "an explicit base", and the notes
/// say "the next free base": an AUTO window after an explicit `[0, 64)`
/// starts at 64, under every planner, and tiles start above both.
#[test]
fn auto_reserve_after_an_explicit_window_takes_the_next_free_base_in_every_planner() {
    let src = with_reserves(&[
        "_a: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='fixed', size=64, base=0)",
        "_b: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=100, base=-1)",
    ]);
    for mode in PLANNERS {
        let out = plan(&src, mode).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert!(
            out.contains("reserve_buffer(name='fixed', size=64, base=0)")
                && out.contains("reserve_buffer(name='ring', size=100, base=64)"),
            "{mode:?}:\n{out}"
        );
        // [64, 164) reserved: tiles start at align32(164) = 192.
        assert!(
            out.contains("pl.MemRef(mem_vec_0, pl.const(192, pl.INT64), 1024)"),
            "{mode:?}:\n{out}"
        );
    }
}

#[test]
fn overlapping_reserves_fail_with_one_text_in_every_planner() {
    let src = with_reserves(&[
        "_a: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='one', size=4096, base=-1)",
        "_b: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='two', size=1024, base=2048)",
    ]);
    for mode in PLANNERS {
        let e = plan(&src, mode).unwrap_err();
        assert_eq!(
            e.to_string(),
            "InternalError: overlapping reserve_buffer ranges in function 'main': [2048, 3072) overlaps with [0, 4096); reserve_buffer 'two' (base=2048, size=1024) overlaps 'one': give 'two' base=-1 (AUTO) to place it above the others, or a base of at least 4096",
            "{mode:?}"
        );
        assert_eq!(e.loc.map(|l| l.line), Some(10), "{mode:?}");
        // The program is wrong, whatever PyPTO's class for it: exit 2.
        assert_eq!(e.kind, ErrorKind::Input, "{mode:?}");
    }
}

#[test]
fn a_reserve_without_a_constant_size_is_rejected_in_every_planner() {
    let src =
        with_reserves(&["_a: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='one', base=-1)"]);
    for mode in PLANNERS {
        let e = plan(&src, mode).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ValueError: reserve_buffer 'one' needs a constant non-negative size= in bytes",
            "{mode:?}"
        );
    }
}

/// Two exclusive branches: the then-branch value and the phi live in one
/// root, the else-branch load in another that is live only while the
/// first holds nothing on that path. DSA_RP keeps the hulls apart; the
/// optimal planner's problem lets them share.
#[test]
fn exclusive_if_branches_share_under_the_optimal_planner_only() {
    let t = |name: &str, root: &str, rhs: &str| {
        format!("{name}: pl.Tile[[64, 64], pl.FP32, pl.MemRef({root}, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = {rhs}")
    };
    let load = "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)";
    let lines = [
        "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)".to_string(),
        "mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)".to_string(),
        "if c < 2:".to_string(),
        format!("    {}", t("b", "mem_vec_2", load)),
        format!("    {}", t("r", "mem_vec_2", "pl.yield_(b)")),
        "else:".to_string(),
        format!("    {}", t("d", "mem_vec_3", load)),
        format!("    {}", t("e", "mem_vec_2", "pl.tile.exp(d)")),
        format!("    {}", t("r", "mem_vec_2", "pl.yield_(e)")),
        "s: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(r, [0, 0], y)".to_string(),
        "return s".to_string(),
    ];
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let src = program(
        "InCore",
        "x: pl.Tensor[[64, 64], pl.FP32], c: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]",
        &body,
    );
    let d_at = |out: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with("d: "))
            .and_then(|l| {
                l.split_once("pl.const(")
                    .map(|(_, r)| r.split(',').next().unwrap().to_string())
            })
            .unwrap()
    };
    assert_eq!(d_at(&plan(&src, PlannerMode::DsaRp).unwrap()), "16384");
    assert_eq!(d_at(&plan(&src, PlannerMode::Optimal).unwrap()), "0");
}
