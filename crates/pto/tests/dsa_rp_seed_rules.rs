//! Which seed-only rule explains each DSA_RP reference output that tilemem
//! reproduces only under `--compat pypto-e2d0f78` (over the shared data in
//! `../shared/data/pto`; skipped, with a note, when it is absent).
//!
//! The seeds are newer than the PyPTO build that printed the reference
//! (behaviour.md, "Seed-only rules"), so a few outputs differ by design.
//! For every such kernel the test switches the newer rules off one at a
//! time and prints the rules whose removal alone reproduces PyPTO. It
//! asserts that one rule always suffices (a difference no single rule
//! explains is a real mismatch, not a seed difference) and that the
//! `qwen3_scope3` kernel on 910B is the A2/A3 narrowing-cast rule: its
//! `tile.cast` FP32 -> BF16 may not write over its source, so the cast
//! result moves off the source's bytes (28672 Vec bytes where PyPTO
//! e2d0f78 uses 16384). (At the time of writing the only other such
//! kernel is `mixed_matmul_bias_lr`, the split-AIV load + tpop hazard.)

use std::io::Write as _;
use std::path::Path;

use tilemem_pto::passes::{PassId, PlannerMode, SeedRules};

mod support;
use support::DATA;

#[test]
fn shared_dsa_rp_compat_differences_are_single_seed_rules() {
    let root = Path::new(DATA);
    if !root.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_dsa_rp_compat_differences_are_single_seed_rules: {DATA} not found"
        );
        return;
    }
    let passes = [PassId::AllocateMemoryAddr];
    let mut explained: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, d, target) in support::kernel_dirs(root, "dsa_rp") {
        let input = d.join("33_after_MaterializeSemanticAliases.py");
        let want = d.join("34_after_AllocateMemoryAddr.py");
        let err = d.join("error.txt");
        let outcome = support::outcome(&input, &target, PlannerMode::DsaRp, &passes, &want, &err);
        if outcome != Some(support::Outcome::SameWithCompat) {
            continue;
        }
        let rules: Vec<&str> = SeedRules::each_off_alone()
            .into_iter()
            .filter(|(_, r)| {
                support::check_with(
                    &input,
                    &target,
                    PlannerMode::DsaRp,
                    &passes,
                    &want,
                    &err,
                    *r,
                ) == Some(true)
            })
            .map(|(n, _)| n)
            .collect();
        println!("compat only: kernel {name}: {}", rules.join(", "));
        explained.push((name, rules));
    }
    let unexplained: Vec<&str> = explained
        .iter()
        .filter(|(_, r)| r.is_empty())
        .map(|(n, _)| n.as_str())
        .collect();
    assert!(
        unexplained.is_empty(),
        "no single seed rule explains: {unexplained:?}"
    );
    let qwen = explained.iter().find(|(n, _)| n == "qwen3_scope3");
    assert_eq!(
        qwen.map(|(_, r)| r.as_slice()),
        Some(["narrowing_casts"].as_slice()),
        "{explained:?}"
    );
}
