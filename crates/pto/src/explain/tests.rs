use super::*;
use crate::report::{BufferReport, SpaceReport};

fn buf(name: &str, size: u64, def: u64, last: u64) -> BufferReport {
    BufferReport {
        name: name.into(),
        root: format!("r_{name}"),
        start: 0,
        end: size,
        def,
        last,
        gaps: Vec::new(),
    }
}

#[test]
fn peak_is_the_first_instant_of_the_largest_co_live_total() {
    let sr = SpaceReport {
        space: "Vec".into(),
        bytes_used: 0,
        capacity: None,
        lower_bound: 0,
        buffers: vec![
            buf("a", 100, 1, 3),
            buf("b", 50, 2, 2),
            buf("c", 70, 3, 4),
            // Read for the last time at 3, where `c` is defined: `c` may
            // take its bytes, so `d` and `c` are not co-live.
            buf("d", 80, 3, 3),
        ],
    };
    let p = peak(&sr);
    // a [3, 7), b [5, 6), c [7, 9), d [7, 8): a + b = 150 at instant 5,
    // c + d = 150 at 7: the first wins.
    assert_eq!(
        p,
        PeakInstant {
            instant: 5,
            statement: 2,
            total: 150,
            live: vec![0, 1],
        }
    );
}

const RING: &str = "# pypto.program: Ring
import pypto.language as pl

@pl.program
class Ring:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kern(a: pl.Tensor[[128, 128], pl.FP32], output: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        _: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=131072, base=-1)
        ta: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        stored: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(ta, [0, 0], output)
        return stored
";

#[test]
fn explains_a_reserve_window_that_leaves_too_little_room() {
    let program = crate::parse(RING).unwrap();
    let soc = Soc::from_name("910b").unwrap();
    let ex = explain(&program, &soc, PlannerMode::Pypto, false, None).unwrap();
    assert!(ex.error.is_some());
    let [s] = ex.spaces.as_slice() else {
        panic!("{:?}", ex.spaces)
    };
    assert_eq!((s.function.as_str(), s.space.as_str()), ("kern", "Vec"));
    assert_eq!(s.capacity, Some(188416));
    assert_eq!(
        (s.co_live, s.reserved, s.lower_bound()),
        (65536, 131072, 196608)
    );
    assert!(s.proven_over());
    assert_eq!(s.planned_bytes, Some(196608));
    let live: Vec<(&str, u64)> = s.live.iter().map(|t| (t.name.as_str(), t.bytes)).collect();
    assert_eq!(live, [("ta", 65536)]);
    assert_eq!(s.peak_line, 9);
    // 8 KiB too many: the window shrinks to 120 KiB, or the tile to 112 rows.
    let changes: Vec<(&str, u64)> = s
        .remedies
        .iter()
        .map(|r| (r.change.as_str(), r.saved))
        .collect();
    assert_eq!(
        changes,
        [
            (
                "shrink reserve_buffer 'ring' (line 8) from 131072 to 122880 bytes",
                8192
            ),
            (
                "shrink tile 'ta' (line 9) from [128, 128] to [112, 128]",
                8192
            ),
        ]
    );
    // Re-planning the program as the first remedy says fits.
    let mut fixed = program.clone();
    let f = &mut fixed.functions[0];
    let r = reserves(f)[0].stmt;
    f.stmts[r]
        .call_mut()
        .unwrap()
        .set_kwarg("size", Expr::Int(122880));
    assert!(replan(&fixed, &soc, PlannerMode::Pypto).is_ok());
}

#[test]
fn the_replanning_budget_cuts_the_remedies_and_says_so() {
    let program = crate::parse(RING).unwrap();
    let soc = Soc::from_name("910b").unwrap();
    let ex = explain(&program, &soc, PlannerMode::Pypto, false, Some(2)).unwrap();
    assert!(ex.budget_exhausted);
    // Two re-plans: dsa-rp and optimal, neither fits; nothing else tried.
    assert!(ex.spaces[0].remedies.is_empty());
    let ex = explain(&program, &soc, PlannerMode::Pypto, false, Some(1000)).unwrap();
    assert!(!ex.budget_exhausted);
}

/// A remedy re-plan searches with a tenth of the run's limits, whatever
/// pass list the run had (remedies run the whole pipeline); a node limit
/// never drops to 0 (which would mean none).
#[test]
fn remedy_replans_get_a_tenth_of_the_runs_limits() {
    use std::time::Duration;
    let mut run = PlanOptions::new(Soc::from_name("910b").unwrap(), PlannerMode::Optimal);
    run.dsa.time_limit = Some(Duration::from_secs(10));
    run.dsa.node_limit = Some(20_000);
    run.passes = Some(vec![PassId::AllocateMemoryAddr]);
    let r = remedies::remedy_options(&run);
    assert_eq!(
        (r.dsa.time_limit, r.dsa.node_limit),
        (Some(Duration::from_secs(1)), Some(2000))
    );
    assert_eq!(r.passes, None);
    assert!(r.report && !r.report_gaps);
    run.dsa.time_limit = None;
    run.dsa.node_limit = Some(7);
    let r = remedies::remedy_options(&run);
    assert_eq!((r.dsa.time_limit, r.dsa.node_limit), (None, Some(1)));
}

/// What every part of one explanation plans again with (the plan and its
/// `--all` buffers, the fitting spaces' lines): the run's own rules,
/// objective and both exact-search limits (a time limit has no exact
/// effect to test end to end), the whole pipeline.
#[test]
fn every_replan_of_an_explanation_keeps_the_runs_options() {
    use std::time::Duration;
    let mut run = PlanOptions::new(Soc::from_name("910b").unwrap(), PlannerMode::Optimal);
    run.seed_rules = crate::passes::SeedRules::pypto_e2d0f78();
    run.dsa.time_limit = Some(Duration::from_millis(1234));
    run.dsa.node_limit = Some(77);
    run.dsa.objective = tilemem_plan::Objective::PenaltyThenPeak;
    run.passes = Some(vec![PassId::AllocateMemoryAddr]);
    let r = remedies::run_options(&run);
    assert_eq!(
        (r.dsa.time_limit, r.dsa.node_limit, r.dsa.objective),
        (
            Some(Duration::from_millis(1234)),
            Some(77),
            tilemem_plan::Objective::PenaltyThenPeak
        )
    );
    assert_eq!(
        (r.seed_rules, r.planner, r.passes),
        (run.seed_rules, run.planner, None)
    );
}
