//! The shared analysis layer seen through every planner: one reserve
//! resolver (the same bases, the same error text under `pypto`, `dsa-rp`
//! and `optimal`) and branch exclusivity in the optimal planner: the
//! branch rule the report's lower bound and the planners' occupancies
//! share, its limit in loops, the rules it does not lift, and the
//! independent placement check on sharings legal only by it.

mod common;

use common::{check_alone, program, tile_offset, vec_usage};
use tilemem_pto::ir::{EntityRef, Function, MemSpace};
use tilemem_pto::passes::analysis::model::Model;
use tilemem_pto::passes::analysis::{facts, order::ProgramOrder};
use tilemem_pto::passes::{
    run_pipeline, ErrorKind, PassContext, PassError, PassId, PlannerMode, SeedRules,
};
use tilemem_pto::{parse, print, report};
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

/// The signature of the branch programs: a tensor in, an index, a tensor
/// out.
const BRANCH_SIG: &str = "x: pl.Tensor[[8, 8], pl.FP32], k: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]";

/// A 256-byte Vec tile `name = rhs`, at `addr` of its own allocation
/// `mem` when given (a planned program), else without a MemRef.
fn vt(name: &str, at: Option<(&str, u64)>, rhs: &str) -> String {
    match at {
        Some((mem, addr)) => format!(
            "{name}: pl.Tile[[8, 8], pl.FP32, pl.MemRef({mem}, pl.const({addr}, pl.INT64), 256), pl.Mem.Vec] = {rhs}"
        ),
        None => format!("{name}: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = {rhs}"),
    }
}

const LOAD: &str = "pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)";

/// `a` is loaded before an `if` and read only in its else branch; the then
/// branch loads `b` and computes `c` (each at `addr` when planned: `a`,
/// `b`, `c` and `d` in allocations of their own). Inside a loop when
/// `in_loop`.
fn else_only(in_loop: bool, addr: Option<[u64; 4]>) -> String {
    let at = |i: usize| {
        addr.map(|a| {
            (
                ["mem_vec_2", "mem_vec_3", "mem_vec_4", "mem_vec_5"][i],
                a[i],
            )
        })
    };
    let ind = if in_loop { "    " } else { "" };
    let mut lines: Vec<String> = Vec::new();
    if addr.is_some() {
        for i in 2..6 {
            lines.push(format!(
                "mem_vec_{i}: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)"
            ));
        }
    }
    lines.push(vt("a", at(0), LOAD));
    if in_loop {
        lines.push("for i in pl.range(4):".into());
    }
    lines.push(format!("{ind}if k < 1:"));
    lines.push(format!("{ind}    {}", vt("b", at(1), LOAD)));
    lines.push(format!("{ind}    {}", vt("c", at(2), "pl.tile.exp(b)")));
    lines.push(format!(
        "{ind}    r1: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(c, [0, 0], y)"
    ));
    lines.push(format!("{ind}else:"));
    lines.push(format!("{ind}    {}", vt("d", at(3), "pl.tile.exp(a)")));
    lines.push(format!(
        "{ind}    r2: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(d, [0, 0], y)"
    ));
    lines.push("return y".into());
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    program("InCore", BRANCH_SIG, &body)
}

/// The planned program of `src` under `mode` on 910B with its report.
fn plan_report(src: &str, mode: PlannerMode) -> (String, report::Report) {
    let mut p = parse(src).expect("test program parses");
    let mut cx = PassContext::new(Soc::from_name("910b").unwrap(), mode);
    run_pipeline(&mut p, &mut cx, &PassId::default_pipeline(mode))
        .unwrap_or_else(|e| panic!("{mode:?}: {e}\n{src}"));
    let r = report::build(&p, &cx.soc, true);
    (print(&p), r)
}

/// The occupancies of the roots of `f`'s tiles `names` after InitMemRef,
/// as (has a gap, hull).
fn occupancy_of(f: &Function, names: &[&str]) -> Vec<(bool, Option<(u64, u64)>)> {
    let model = Model::build(f, &Soc::from_name("910b").unwrap(), SeedRules::default()).unwrap();
    let order = ProgramOrder::build(f);
    let fx = facts::analyze_with(f, &order);
    let occ = model.occupancies(f, &fx, &order);
    names
        .iter()
        .map(|n| {
            let v = f
                .vars
                .keys()
                .find(|&v| f.vars[v].name.as_str() == *n)
                .unwrap();
            let r = model.lt.root_of(v).unwrap();
            let o = &occ[r.index()];
            (o.has_gap(), o.hull())
        })
        .collect()
}

fn init_memref(src: &str) -> tilemem_pto::ir::Program {
    let mut p = parse(src).unwrap();
    let mut cx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::DsaRp);
    run_pipeline(&mut p, &mut cx, &[PassId::InitMemref]).unwrap();
    p
}

/// The report's rule, in the planners: a value read only in the else
/// branch holds nothing still needed during the then branch, so its root
/// is occupied before the `if` and in the else branch only, and the
/// optimal planner gives its bytes to the then branch's tiles, reaching
/// the lower bound. DSA_RP keeps PyPTO's program-order lifetimes.
#[test]
fn a_value_read_only_in_the_else_branch_leaves_its_bytes_to_the_then_branch() {
    let src = else_only(false, None);
    let p = init_memref(&src);
    let f = &p.functions[0];
    let occ = occupancy_of(f, &["a", "b", "c"]);
    let (a_gap, a_hull) = occ[0];
    assert!(a_gap, "{occ:?}");
    // b and c live inside the then branch, inside a's hull.
    for &(_, h) in &occ[1..] {
        let (lo, hi) = h.unwrap();
        let (alo, ahi) = a_hull.unwrap();
        assert!(alo < lo && hi < ahi, "{occ:?}");
    }
    let (_, opt) = plan_report(&src, PlannerMode::Optimal);
    assert_eq!(vec_usage(&opt), (256, 256));
    // DSA_RP: a's hull covers the then branch, and the load into b and
    // the exp reading it stay apart (a cross-pipe handoff penalty).
    let (_, dsa) = plan_report(&src, PlannerMode::DsaRp);
    assert_eq!(vec_usage(&dsa), (768, 256));
}

/// The same program inside a loop: the next iteration's else branch reads
/// `a` again after this iteration's then branch, so `a` is live through
/// the whole loop, the rule cuts nothing, and no planner (nor the bound)
/// lets the then branch take `a`'s bytes.
#[test]
fn a_loop_keeps_a_value_read_in_an_else_branch_live_through_the_then_branch() {
    let src = else_only(true, None);
    let p = init_memref(&src);
    let f = &p.functions[0];
    let occ = occupancy_of(f, &["a"]);
    assert!(!occ[0].0, "{occ:?}");
    let values = report::live_values(f);
    assert_eq!(
        values
            .iter()
            .filter(|v| f.vars[v.var].name.as_str() == "a")
            .count(),
        1
    );
    assert_eq!(report::lower_bound(&values, MemSpace::Vec), 512);
    for mode in [PlannerMode::DsaRp, PlannerMode::Optimal] {
        let (out, r) = plan_report(&src, mode);
        assert_eq!(vec_usage(&r).1, 512, "{mode:?}");
        let addr = |name: &str| tile_offset(&out, name);
        assert_ne!(addr("a"), addr("b"), "{mode:?}\n{out}");
        assert_ne!(addr("a"), addr("c"), "{mode:?}\n{out}");
    }
}

/// The branch rule lifts a lifetime overlap, not the rules that hold
/// whatever the lifetimes: a written workspace in the then branch may not
/// take the bytes of a tile defined before it, although that tile is dead
/// there (seed 000's written-workspace rule; a read of it may still be in
/// flight), while the branch's other tiles may. Every placement the
/// optimal planner writes passes the check.
#[test]
fn the_branch_rule_does_not_lift_the_written_workspace_rule() {
    let lines = [
        vt("a", None, LOAD),
        "if k < 1:".into(),
        format!("    {}", vt("b", None, LOAD)),
        format!("    {}", vt("m", None, "pl.tile.cmps(b, 0.0, cmp_type=1)")),
        format!(
            "    {}",
            vt(
                "w",
                None,
                "pl.tile.create([8, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)"
            )
        ),
        format!("    {}", vt("t", None, "pl.tile.sels(m, b, w, 1.0)")),
        format!("    {}", vt("p", None, "pl.yield_(t)")),
        "else:".into(),
        format!("    {}", vt("d", None, "pl.tile.muls(a, 2.0)")),
        format!("    {}", vt("p", None, "pl.yield_(d)")),
        "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(p, [0, 0], y)".into(),
        "return r".into(),
    ];
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let src = program("InCore", BRANCH_SIG, &body);
    let p = init_memref(&src);
    let f = &p.functions[0];
    let model = Model::build(f, &Soc::from_name("910b").unwrap(), SeedRules::default()).unwrap();
    let order = ProgramOrder::build(f);
    let occ = model.occupancies(f, &facts::analyze_with(f, &order), &order);
    let root = |n: &str| {
        let v = f
            .vars
            .keys()
            .find(|&v| f.vars[v].name.as_str() == n)
            .unwrap();
        model.lt.root_of(v).unwrap()
    };
    // a is dead in the then branch: b may take its bytes, w may not.
    assert!(model.exclusive(&occ, root("a"), root("b")));
    assert!(model.exclusive(&occ, root("a"), root("m")));
    assert!(!model.exclusive(&occ, root("a"), root("w")));
    assert!(!model.exclusive(&occ, root("w"), root("a")));
    let (out, _) = plan_report(&src, PlannerMode::Optimal);
    let addr = |name: &str| tile_offset(&out, name);
    assert_ne!(addr("a"), addr("w"), "{out}");
}

/// The checker accepts a sharing legal only by the branch rule: `b` and
/// `c` written over `a`'s bytes in the then branch, `a` read only in the
/// else branch. Moving `b` off those bytes changes nothing; reading `a`
/// after the `if` too makes the same sharing illegal.
#[test]
fn the_checker_accepts_a_then_branch_over_a_value_read_only_in_the_else_branch() {
    let shared = else_only(false, Some([0, 0, 0, 256]));
    check_alone(&shared).unwrap_or_else(|e| panic!("{e}\n{shared}"));
    check_alone(&else_only(false, Some([0, 256, 256, 512]))).unwrap();
    let read_after = shared.replace(
        "        return y",
        "        s: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)\n        return s",
    );
    let e = check_alone(&read_after).unwrap_err().to_string();
    assert!(
        e.contains("placement check failed") && e.contains("tile 'a' read at line"),
        "{e}"
    );
}

/// Inside a loop the same addresses are illegal: the next iteration's
/// else branch reads `a`, which this iteration's then branch overwrote.
/// The checker alone rejects them (an address edited in by hand, no
/// planner involved).
#[test]
fn the_checker_rejects_the_branch_sharing_when_a_loop_reads_again() {
    let src = else_only(true, Some([0, 0, 0, 256]));
    let e = check_alone(&src).unwrap_err().to_string();
    assert!(
        e.contains("placement check failed") && e.contains("tile 'a' read at line 19"),
        "{e}"
    );
    // Apart, the loop's program passes.
    check_alone(&else_only(true, Some([0, 256, 256, 512]))).unwrap();
}

/// On a fixed family of branch and loop programs without sharing rules
/// the optimal planner reaches the lower bound in every program (its
/// placements checked), and in a good share of them that bound is below
/// the one program-order lifetimes give (each value live over its hull):
/// the branch rule closes that gap, in the planner as in the bound.
#[test]
fn on_branch_and_loop_programs_the_optimal_planner_reaches_the_bound() {
    let mut rng = common::Rng(0x5eed_b4a2);
    let mut below_hulls = 0;
    for _ in 0..60 {
        let src = common::branchy(&mut rng, true);
        let (out, opt) = plan_report(&src, PlannerMode::Optimal);
        let (used, bound) = vec_usage(&opt);
        assert_eq!(used, bound, "{src}");
        let planned = parse(&out).unwrap();
        let mut values = report::live_values(&planned.functions[0]);
        values.dedup_by_key(|v| v.var);
        let hulls = tilemem_plan::bound::plain_lower_bound(
            values.iter().map(|v| (v.bytes, v.hull.0, v.hull.1)),
        );
        assert!(bound <= hulls);
        if bound < hulls {
            below_hulls += 1;
        }
    }
    assert!(below_hulls >= 5, "{below_hulls} of 60");
}

/// A value read inside a loop it was defined before is read again by the
/// next iteration, so the loop's last statement may not write over it
/// (unlike a statement that reads a value for the last time). Here the
/// last statement is a load whose tile nothing reads, and then the
/// reading `exp` itself: DSA_RP and the optimal planner keep both off
/// `a`'s bytes, and the checker accepts their placements.
#[test]
fn a_loop_last_statement_does_not_write_over_a_value_the_next_iteration_reads() {
    for last in [vt("t", None, LOAD), vt("e", None, "pl.tile.exp(a)")] {
        let lines = [
            vt("a", None, LOAD),
            "for i in pl.range(2):".into(),
            format!("    {}", vt("e", None, "pl.tile.exp(a)")),
            format!("    {last}"),
            "return y".into(),
        ];
        let lines = if last.starts_with("e:") {
            vec![
                lines[0].clone(),
                lines[1].clone(),
                lines[3].clone(),
                lines[4].clone(),
            ]
        } else {
            lines.to_vec()
        };
        let body: Vec<&str> = lines.iter().map(String::as_str).collect();
        let src = program("InCore", BRANCH_SIG, &body);
        for mode in [PlannerMode::DsaRp, PlannerMode::Optimal] {
            let (out, _) = plan_report(&src, mode);
            check_alone(&out).unwrap();
            let at = |name: &str| {
                let l = out
                    .lines()
                    .find(|l| l.trim_start().starts_with(&format!("{name}: ")))
                    .unwrap();
                l.split_once("pl.const(")
                    .unwrap()
                    .1
                    .split(',')
                    .next()
                    .unwrap()
                    .to_string()
            };
            let written: &[&str] = if last.starts_with("t:") {
                &["e", "t"]
            } else {
                &["e"]
            };
            for w in written {
                assert_ne!(at("a"), at(w), "{mode:?} {w}\n{out}");
            }
        }
    }
}
