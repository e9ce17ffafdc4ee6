//! A program of several functions is planned one function per thread; the
//! program, the diagnostics, the DSA_RP reports and the first error must
//! be exactly those of running each pass over the whole program in turn.

mod common;

use common::HEAD;
use tilemem_pto::passes::{run_pass, run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

/// Function `k`: `stages` pipelined loads of `size` bytes each in stage
/// order (more than fit in 910B's Vec when `stages * size` is large, so
/// the planners report relaxed stages).
fn function(k: usize, stages: usize, rows: usize) -> String {
    let mut s = format!(
        "    @pl.function(type=pl.FunctionType.InCore)\n    def main{k}(x: pl.Tensor[[4096, 64], pl.FP32], out: pl.Out[pl.Tensor[[4096, 64], pl.FP32]]) -> pl.Tensor[[4096, 64], pl.FP32]:\n        for i in pl.pipeline(0, 4, 1, stage=1):\n"
    );
    for j in 0..stages {
        s.push_str(&format!(
            "            t_{j}: pl.Tile[[{rows}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [{j}, 0], [{rows}, 64], [{rows}, 64], target_memory=pl.Mem.Vec, attrs={{\"pipeline_membership\": \"0:{j}\"}})\n"
        ));
        s.push_str(&format!(
            "            _r_{j}: pl.Tensor[[4096, 64], pl.FP32] = pl.tile.store(t_{j}, [{j}, 0], out)\n"
        ));
    }
    s.push_str("        return out\n");
    s
}

fn program(shapes: &[(usize, usize)]) -> String {
    let mut s = HEAD.to_string();
    for (k, &(stages, rows)) in shapes.iter().enumerate() {
        s.push_str(&function(k, stages, rows));
    }
    s
}

type Run = (Result<String, String>, Vec<String>, String);

fn outcome(
    p: &mut tilemem_pto::ir::Program,
    cx: &PassContext,
    r: Result<(), tilemem_pto::passes::PassError>,
) -> Run {
    (
        r.map(|_| print(p)).map_err(|e| e.to_string()),
        cx.diagnostics.iter().map(|d| d.to_string()).collect(),
        format!("{:?}", cx.dsa_reports),
    )
}

fn both(src: &str, mode: PlannerMode) -> (Run, Run) {
    let passes = PassId::default_pipeline(mode);
    let mut p = parse(src).unwrap();
    let mut cx = PassContext::new(Soc::ascend910b(), mode);
    let r = run_pipeline(&mut p, &mut cx, &passes);
    let parallel = outcome(&mut p, &cx, r);
    let mut p = parse(src).unwrap();
    let mut cx = PassContext::new(Soc::ascend910b(), mode);
    let r = passes
        .iter()
        .try_for_each(|&id| run_pass(id, &mut p, &mut cx));
    let sequential = outcome(&mut p, &cx, r);
    (parallel, sequential)
}

#[test]
fn several_functions_plan_exactly_as_one_after_another() {
    // 8 stages of 32 KiB do not all fit (relaxed, with a hint); 2 do.
    let src = program(&[(8, 128), (2, 128), (8, 128), (3, 16)]);
    for mode in [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal] {
        let (par, seq) = both(&src, mode);
        assert!(par.0.is_ok(), "{mode:?}: {:?}", par.0);
        assert!(!par.1.is_empty(), "{mode:?}: expected stage hints");
        assert_eq!(par, seq, "{mode:?}");
    }
}

#[test]
fn the_first_error_is_the_sequential_one() {
    // Functions 1 and 3 cannot fit one 256 KiB tile; function 1's error
    // comes first.
    let src = program(&[(2, 128), (1, 1024), (2, 128), (1, 1024)]);
    for mode in [PlannerMode::Pypto, PlannerMode::DsaRp] {
        let (par, seq) = both(&src, mode);
        let err = par.0.clone().unwrap_err();
        assert!(err.contains("main1"), "{mode:?}: {err}");
        assert_eq!(par, seq, "{mode:?}");
    }
}
