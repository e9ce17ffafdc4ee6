//! The optimal planner on a long pipelined loop (every load its own stage,
//! far more stages than fit): the work budget cuts the exact search, the
//! result is the same for the same budget, and the PH-DSA-001 hint stays
//! short however many stage pairs end up sharing.

mod common;

use common::program;
use tilemem_pto::passes::dsa_rp::{DsaOptions, SpaceReport};
use tilemem_pto::passes::{PassContext, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

/// `n` loads of 512 bytes in one `pl.pipeline` loop, load `k` in stage `k`.
fn pipelined(n: usize) -> String {
    let mut lines = Vec::new();
    for k in 0..n {
        lines.push(format!(
            "mem_vec_{k}: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)"
        ));
    }
    lines.push("for i in pl.pipeline(0, 4, 1, stage=1):".to_string());
    for k in 0..n {
        lines.push(format!(
            "    t_{k}: pl.Tile[[1, 128], pl.FP32, pl.MemRef(mem_vec_{k}, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.load(x, [{k}, 0], [1, 128], [1, 128], target_memory=pl.Mem.Vec, attrs={{\"pipeline_membership\": \"0:{k}\"}})"
        ));
        lines.push(format!(
            "    _r_{k}: pl.Tensor[[2048, 128], pl.FP32] = pl.tile.store(t_{k}, [{k}, 0], out)"
        ));
    }
    lines.push("return out".to_string());
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    program(
        "InCore",
        "x: pl.Tensor[[2048, 128], pl.FP32], out: pl.Out[pl.Tensor[[2048, 128], pl.FP32]]) -> pl.Tensor[[2048, 128], pl.FP32]",
        &body,
    )
}

fn run(src: &str, nodes: u64) -> (String, Vec<SpaceReport>, Vec<String>) {
    let mut p = parse(src).unwrap();
    let mut cx = PassContext::new(Soc::ascend910b(), PlannerMode::Optimal);
    let opts = DsaOptions {
        optimal: true,
        node_limit: Some(nodes),
        time_limit: None,
        ..DsaOptions::default()
    };
    cx.dsa = opts;
    tilemem_pto::passes::run_pass(
        tilemem_pto::passes::PassId::AllocateMemoryAddr,
        &mut p,
        &mut cx,
    )
    .unwrap();
    let reports = std::mem::take(&mut cx.dsa_reports);
    let diags = cx.diagnostics.iter().map(|d| d.to_string()).collect();
    (print(&p), reports, diags)
}

#[test]
fn a_small_work_budget_cuts_the_search_reproducibly() {
    // 400 stages of 512 bytes: 368 fit in 910B's Vec, so the greedy
    // relaxes every group and the bytes-first search has work to cut.
    let src = pipelined(400);
    let (out, reports, diags) = run(&src, 100);
    assert_eq!(reports.len(), 1);
    assert!(!reports[0].proven_optimal, "{:?}", reports[0]);
    assert!(
        reports[0].bytes
            <= reports[0]
                .greedy_bytes
                .expect("the greedy places this kernel")
    );
    assert_eq!(run(&src, 100).0, out);
    let hint = diags
        .iter()
        .find(|d| d.contains("PH-DSA-001"))
        .expect("stage copies share");
    assert!(hint.contains(" more pairs now share storage"), "{hint}");
    assert!(hint.len() < 2000, "{} bytes", hint.len());
}
