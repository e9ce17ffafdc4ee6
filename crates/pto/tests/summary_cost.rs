//! The summary line `tilemem plan` prints by default costs little next to
//! the plan: its heap use (deterministic, unlike time, which the pipeline
//! bench reports) stays under 5 % of the planning pipeline's, where the
//! full report it was once derived from holds a record per tile.
//! One test in its own binary: the counting allocator sees only it.

#[path = "../benches/counting/mod.rs"]
mod counting;

use std::sync::atomic::Ordering;

use counting::{LIVE, PEAK};
use tilemem_pto::passes::PlannerMode;
use tilemem_pto::PlanOptions;
use tilemem_soc::Soc;

// (`counting` installs itself as the global allocator.)

/// A kernel of `n` element-wise statements over 64 x 64 tiles.
fn kernel(n: usize) -> String {
    let v = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]";
    let mut s = String::from(
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    \
         @pl.function(type=pl.FunctionType.InCore)\n    def main(x: pl.Tensor[[64, 64], pl.FP32], \
         y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n",
    );
    s.push_str(&format!(
        "        t0: {v} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n"
    ));
    for i in 1..n {
        let call = if i % 3 == 0 {
            format!("pl.tile.exp(t{})", i - 1)
        } else {
            format!("pl.tile.adds(t{}, 1.0)", i - 1)
        };
        s.push_str(&format!("        t{i}: {v} = {call}\n"));
    }
    s.push_str(&format!(
        "        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t{}, [0, 0], y)\n        return r\n",
        n - 1
    ));
    s
}

/// Heap bytes `work` holds at its peak beyond what was live before it.
fn extra_peak<T>(work: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = work();
    (out, PEAK.load(Ordering::Relaxed) - before)
}

#[test]
fn the_summary_needs_under_5_percent_of_the_plans_heap() {
    let text = kernel(20_000);
    let soc = Soc::ascend910b();
    let plan = |record: bool| {
        let mut p = tilemem_pto::parse(&text).unwrap();
        let mut opts = PlanOptions::new(soc.clone(), PlannerMode::Pypto);
        opts.summary = record;
        let done = tilemem_pto::plan(&mut p, &opts).unwrap();
        (p, done.summary)
    };
    let ((_, none), quiet_peak) = extra_peak(|| plan(false));
    assert!(none.is_none());
    let ((program, recorded), plan_peak) = extra_peak(|| plan(true));
    let recorded = recorded.unwrap();
    // What the façade computed is what a separate analysis of the planned
    // program finds, and what the full report says.
    let (computed, computed_peak) =
        extra_peak(|| tilemem_pto::report::summary(&program, &soc, true));
    assert_eq!(recorded, computed);
    let (report, report_peak) = extra_peak(|| tilemem_pto::report::build(&program, &soc, true));
    let (s, r) = (&recorded[0], &report.functions[0].spaces[0]);
    assert_eq!(
        (s.bytes_used, s.lower_bound, s.capacity),
        (r.bytes_used, r.lower_bound, r.capacity)
    );
    let lines = extra_peak(|| recorded.iter().map(|s| format!("{s:?}")).count()).1;
    // Recording adds to the plan's peak heap, and writing the lines to
    // nothing, less than 5 % of the plan's peak.
    let added = plan_peak.saturating_sub(quiet_peak) + lines;
    println!(
        "plan {quiet_peak} bytes; summary adds {added}; a separate analysis {computed_peak}; \
         the full report {report_peak}"
    );
    assert!(
        added * 20 < quiet_peak,
        "summary adds {added} bytes to a plan of {quiet_peak} bytes (a separate analysis: \
         {computed_peak} bytes; the full report: {report_peak} bytes)"
    );
}
