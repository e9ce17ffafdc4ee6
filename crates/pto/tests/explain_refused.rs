//! `explain --all`'s list of the sharings a rule refuses: a pair the
//! lifetimes keep apart in program order but that is never live on one
//! path (different branches of an `if`) is listed when a rule refuses it,
//! under the optimal planner, the one whose lifetimes allow it (the
//! exclusivity it plans with); the other planners' lifetimes do not.

mod common;

use common::program;
use tilemem_pto::explain::{explain, render_all};
use tilemem_pto::parse;
use tilemem_pto::passes::PlannerMode;
use tilemem_soc::Soc;

/// Parameters with their DDR MemRefs, as PyPTO prints a program right
/// before AllocateMemoryAddr (every planner takes the allocations as
/// given).
const SIG: &str = "x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 256)], k: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_1\", pl.const(0, pl.INT64), 256)]]) -> pl.Tensor[[8, 8], pl.FP32]";

/// A 256-byte Vec tile `name = rhs` in allocation `mem`.
fn tile(name: &str, mem: &str, rhs: &str) -> String {
    format!(
        "{name}: pl.Tile[[8, 8], pl.FP32, pl.MemRef({mem}, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = {rhs}"
    )
}

const LOAD: &str = "pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)";

/// PyPTO's `test_different_if_branches_can_share` after its yield fix-up:
/// the then branch loads `b` into the phi's window, the else branch loads
/// `c` and moves it there (line 15). `b` and `c` are never live together,
/// but `tile.move`'s output may not share its input's bytes, so `c`'s
/// window and the phi's stay apart.
fn branches(second: &str) -> String {
    let lines = [
        "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)".to_string(),
        "mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)".to_string(),
        "if k < 2:".to_string(),
        format!("    {}", tile("b", "mem_vec_2", LOAD)),
        format!("    {}", tile("r", "mem_vec_2", "pl.yield_(b)")),
        "else:".to_string(),
        format!("    {}", tile("c", "mem_vec_3", LOAD)),
        format!("    {}", tile("cm", "mem_vec_2", second)),
        format!("    {}", tile("r", "mem_vec_2", "pl.yield_(cm)")),
        "s: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(r, [0, 0], y)".to_string(),
        "return s".to_string(),
    ];
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    program("InCore", SIG, &body)
}

fn explain_all(src: &str, planner: PlannerMode) -> String {
    let p = parse(src).unwrap();
    let soc = Soc::from_name("910b").unwrap();
    let ex = explain(&p, &soc, planner, true, None).unwrap();
    render_all(&ex, &p, &tilemem_pto::PlanOptions::new(soc, planner))
}

/// Optimal: the bound is one tile (256), the plan two; the list names
/// the move's no-alias rule and says the two are never live together.
#[test]
fn a_rule_refusing_a_sharing_of_exclusive_branches_is_listed_under_optimal() {
    let src = branches("pl.tile.move(c, target_memory=pl.Mem.Vec)");
    assert_eq!(
        explain_all(&src, PlannerMode::Optimal),
        "\
main/Vec: fits: planner optimal uses 512 bytes, capacity 188416
  peak: line 11 (b = tile.load)
  live at the peak: 1 tile, 256 bytes
    b       256 bytes  [8, 8] FP32  line 11
  lower bound: 256 co-live + 0 reserved = 256 bytes <= capacity 188416
  sharings the lifetimes allow but a rule refuses:
    b and c (256 bytes, never live together): no-alias rule of tile.move at line 15 (its output may not share its input's bytes)
  buffers: 2 for 2 tiles, each with its tiles in program order
    mem_vec_2  [0, 256)    b
    mem_vec_3  [256, 512)  c
"
    );
}

/// DSA_RP places hulls: for it `c`'s window and the phi's are live
/// together, so no rule is what refused the sharing and none is listed.
#[test]
fn dsa_rp_lists_no_rule_for_a_pair_its_lifetimes_keep_apart() {
    let src = branches("pl.tile.move(c, target_memory=pl.Mem.Vec)");
    assert_eq!(
        explain_all(&src, PlannerMode::DsaRp),
        "\
main/Vec: fits: planner dsa-rp uses 512 bytes, capacity 188416
  peak: line 11 (b = tile.load)
  live at the peak: 1 tile, 256 bytes
    b       256 bytes  [8, 8] FP32  line 11
  lower bound: 256 co-live + 0 reserved = 256 bytes <= capacity 188416
  buffers: 2 for 2 tiles, each with its tiles in program order
    mem_vec_2  [0, 256)    b
    mem_vec_3  [256, 512)  c
"
    );
}

/// Without the rule (an `exp` writes the phi's window) the optimal
/// planner shares the branches' windows and reaches the bound: nothing to
/// list.
#[test]
fn without_the_rule_the_optimal_planner_shares_the_branches() {
    let src = branches("pl.tile.exp(c)");
    assert_eq!(
        explain_all(&src, PlannerMode::Optimal),
        "\
main/Vec: fits: planner optimal uses 256 bytes, capacity 188416
  peak: line 11 (b = tile.load)
  live at the peak: 1 tile, 256 bytes
    b       256 bytes  [8, 8] FP32  line 11
  lower bound: 256 co-live + 0 reserved = 256 bytes <= capacity 188416
  buffers: 2 for 2 tiles, each with its tiles in program order
    mem_vec_2  [0, 256)  b
    mem_vec_3  [0, 256)  c
"
    );
}

/// `explain` with `all` holds what `explain --all` prints (its report
/// carries the same list): the refused pair of a space that fits above
/// its bound, marked never live together, under optimal only.
#[test]
fn the_explanation_holds_the_listed_refusals_with_their_mark() {
    use tilemem_pto::explain::RefusedSharing;
    let p = parse(&branches("pl.tile.move(c, target_memory=pl.Mem.Vec)")).unwrap();
    let soc = Soc::from_name("910b").unwrap();
    let refused = |planner| -> Vec<RefusedSharing> {
        let ex = explain(&p, &soc, planner, true, None).unwrap();
        assert_eq!(ex.spaces.len(), 1);
        ex.spaces[0].refused.clone()
    };
    let pair = RefusedSharing {
        a: "b".into(),
        b: "c".into(),
        rule: "no-alias rule of tile.move at line 15 (its output may not share its input's bytes)"
            .into(),
        line: 15,
        bytes: 256,
        never_together: true,
    };
    assert_eq!(refused(PlannerMode::Optimal), std::slice::from_ref(&pair));
    assert_eq!(refused(PlannerMode::DsaRp), []);
    assert_eq!(refused(PlannerMode::Pypto), []);
    let planners = [
        PlannerMode::Pypto,
        PlannerMode::DsaRp,
        PlannerMode::Ptoas,
        PlannerMode::Optimal,
    ];
    let under = |r: &RefusedSharing| planners.map(|m| r.refused_under(m));
    assert_eq!(under(&pair), [false, false, false, true]);
    let apart = RefusedSharing {
        never_together: false,
        ..pair
    };
    assert_eq!(under(&apart), [true; 4]);
    // Without `all` a space that fits is not explained.
    let ex = explain(&p, &soc, PlannerMode::Optimal, false, None).unwrap();
    assert!(ex.spaces.is_empty());
}
