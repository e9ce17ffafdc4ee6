//! Which seed-only rule explains each PYPTO-planner reference output that
//! tilemem reproduces only under `--compat pypto-e2d0f78` (over the shared
//! data in `../shared/data/pto`; skipped, with a note, when it is absent).
//! The DSA_RP twin of this test is `dsa_rp_seed_rules.rs`.
//!
//! The seeds are newer than the PyPTO build that printed the reference
//! (behaviour.md, "Seed-only rules"). For every kernel whose MemoryReuse or
//! MemoryReuse + AllocateMemoryAddr dump tilemem matches only with those
//! rules off, the test switches them off one at a time and prints the rules
//! whose removal alone reproduces PyPTO. It asserts that one rule always
//! suffices (a difference no single rule explains is a real mismatch, not
//! a seed difference) and names the rule of the kernels known to differ:
//! - `bidirect_ud`, `c2v_lr`, `mixed_matmul_bias_lr` (910B): the split-AIV
//!   load + tpop hazard. A vector-core writer `add(loaded, popped)` may not
//!   take over the loaded tile's buffer; PyPTO e2d0f78 shares it (its
//!   popped operand has no MemRef, and the seed keys the rule on variable
//!   identity, "不依赖 MemRef 是否存在"). In `mixed_matmul_bias_lr` the
//!   separation no longer fits beside the 128 KiB pipe ring: an error.
//! - `qwen3_scope3` (910B): the A2/A3 narrowing-cast rule (FP32 -> BF16
//!   `tile.cast` may not write over its source).
//!
//! Their `__a5` twins match as they are: neither rule applies on 950.

use std::io::Write as _;
use std::path::Path;

use tilemem_pto::passes::{PassId, PlannerMode, SeedRules};

mod support;
use support::DATA;

/// The rule each kernel known to differ is expected to need.
const EXPECTED: &[(&str, &str)] = &[
    ("bidirect_ud", "split_load_tpop"),
    ("c2v_lr", "split_load_tpop"),
    ("mixed_matmul_bias_lr", "split_load_tpop"),
    ("qwen3_scope3", "narrowing_casts"),
];

#[test]
fn shared_pypto_compat_differences_are_single_seed_rules() {
    let root = Path::new(DATA);
    if !root.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_pypto_compat_differences_are_single_seed_rules: {DATA} not found"
        );
        return;
    }
    let steps: [(&[PassId], &str); 2] = [
        (&[PassId::MemoryReuse], "34_after_MemoryReuse.py"),
        (
            &[PassId::MemoryReuse, PassId::AllocateMemoryAddr],
            "35_after_AllocateMemoryAddr.py",
        ),
    ];
    // (kernel and step, rules whose removal alone reproduces PyPTO)
    let mut explained: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, d, target) in support::kernel_dirs(root, "pypto") {
        let input = d.join("33_after_MaterializeSemanticAliases.py");
        let err = d.join("error.txt");
        for (passes, want) in steps {
            let want = d.join(want);
            let outcome =
                support::outcome(&input, &target, PlannerMode::Pypto, passes, &want, &err);
            if outcome != Some(support::Outcome::SameWithCompat) {
                continue;
            }
            let rules: Vec<&str> = SeedRules::each_off_alone()
                .into_iter()
                .filter(|(_, r)| {
                    support::check_with(
                        &input,
                        &target,
                        PlannerMode::Pypto,
                        passes,
                        &want,
                        &err,
                        *r,
                    ) == Some(true)
                })
                .map(|(n, _)| n)
                .collect();
            let step = format!("{name} ({} passes)", passes.len());
            println!("compat only: kernel {step}: {}", rules.join(", "));
            explained.push((name.clone(), rules));
        }
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
    for (kernel, rule) in EXPECTED {
        if !root.join("kernels").join(kernel).is_dir() {
            continue;
        }
        let runs: Vec<&Vec<&str>> = explained
            .iter()
            .filter(|(n, _)| n == kernel)
            .map(|(_, r)| r)
            .collect();
        assert_eq!(runs.len(), 2, "{kernel}: {explained:?}");
        for r in runs {
            assert_eq!(r.as_slice(), [*rule].as_slice(), "{kernel}: {explained:?}");
        }
    }
}
