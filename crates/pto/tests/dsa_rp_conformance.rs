//! DSA_RP conformance with PyPTO's own outputs over the reference data in
//! `../shared/data/pto` (skipped, with a note, when the folder is absent).
//!
//! For every case with `after_alloc_dsa.py` (or its error file), the DSA_RP
//! allocate_memory_addr runs on `before_dsa.py` (else `before.py`); for every
//! real kernel, on its `dsa_rp/33_after_MaterializeSemanticAliases.py`. The
//! result is compared with PyPTO's dump (trailing whitespace aside) or, for
//! expected errors, with the start of PyPTO's message.
//!
//! The whole DSA_RP pipeline (init_memref, materialize_semantic_aliases,
//! allocate_memory_addr) is checked as well: every case's `src.py` against
//! the same `after_alloc_dsa.py` (or error), and every real kernel's
//! `dsa_rp/31_after_MaterializeTensorStrides.py` against its
//! `34_after_AllocateMemoryAddr.py` (entries `src case ...`,
//! `src kernel ...`). This covers the passes before the address pass in
//! DSA mode (the yield fix-up that materialize_semantic_aliases runs when
//! MemoryReuse is skipped).
//!
//! A case whose DSA_RP chain failed in materialize_semantic_aliases has no
//! `before_dsa.py`; its address-only entry runs on the PYPTO flow's
//! `before.py` and cannot meet that error (allocate_memory_addr does no
//! yield fix-up and no accumulator check of its own under DSA_RP), so only
//! its `src case` entry is on the list (the divergent accumulator phi).
//!
//! The test asserts that every entry of `dsa_rp_known_good.txt` still
//! passes and prints the totals and the entries that differ.
//! `TILEMEM_UPDATE_KNOWN_GOOD=1` rewrites the list from the current run.

// A skip is written to stderr directly (`writeln!`), not with `eprintln!`,
// which the test harness captures: `cargo test` shows it in every run.
use std::fs;
use std::io::Write as _;
use std::path::Path;

use tilemem_pto::passes::{PassId, PlannerMode};

mod support;
use support::DATA;
const KNOWN_GOOD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dsa_rp_known_good.txt");

/// Runs `passes` in the DSA_RP planner: identical with every seed rule on,
/// or with the rules newer than the reference off (see
/// [`support::outcome`]).
fn check(input: &Path, target: &str, passes: &[PassId], want: &Path, err: &Path) -> Option<bool> {
    support::outcome(input, target, PlannerMode::DsaRp, passes, want, err)
        .map(|o| o != support::Outcome::Differs)
}

/// The target named by a `meta.json` file.
fn target_of(meta: &Path) -> String {
    support::target_of(&fs::read_to_string(meta).unwrap_or_default())
}

/// The address pass alone, on PyPTO's dump before it.
const ADDR_ONLY: &[PassId] = &[PassId::AllocateMemoryAddr];

#[test]
fn shared_dsa_rp_matches_pypto_reference_outputs() {
    let root = Path::new(DATA);
    if !root.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_dsa_rp_matches_pypto_reference_outputs: {DATA} not found"
        );
        return;
    }
    let full = PassId::default_pipeline(PlannerMode::DsaRp);
    let mut results: Vec<(String, bool)> = Vec::new();
    let mut cases: Vec<_> = fs::read_dir(root.join("cases"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    cases.sort();
    for d in cases {
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        let input = if d.join("before_dsa.py").exists() {
            d.join("before_dsa.py")
        } else {
            d.join("before.py")
        };
        let target = target_of(&d.join("meta.json"));
        let want = d.join("after_alloc_dsa.py");
        let err = d.join("after_alloc_dsa.error.txt");
        if let Some(ok) = check(&input, &target, ADDR_ONLY, &want, &err) {
            results.push((format!("case {name}"), ok));
        }
        if let Some(ok) = check(&d.join("src.py"), &target, &full, &want, &err) {
            results.push((format!("src case {name}"), ok));
        }
    }
    let mut kernels: Vec<_> = fs::read_dir(root.join("kernels"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    kernels.sort();
    for k in kernels {
        let d = k.join("dsa_rp");
        let name = k.file_name().unwrap().to_string_lossy().to_string();
        let target = target_of(&d.join("meta.json"));
        let want = d.join("34_after_AllocateMemoryAddr.py");
        let err = d.join("error.txt");
        if let Some(ok) = check(
            &d.join("33_after_MaterializeSemanticAliases.py"),
            &target,
            ADDR_ONLY,
            &want,
            &err,
        ) {
            results.push((format!("kernel {name}"), ok));
        }
        if let Some(ok) = check(
            &d.join("31_after_MaterializeTensorStrides.py"),
            &target,
            &full,
            &want,
            &err,
        ) {
            results.push((format!("src kernel {name}"), ok));
        }
    }
    let passed: Vec<&str> = results
        .iter()
        .filter(|r| r.1)
        .map(|r| r.0.as_str())
        .collect();
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.1)
        .map(|r| r.0.as_str())
        .collect();
    println!(
        "dsa_rp conformance: {} passed, {} failed",
        passed.len(),
        failed.len()
    );
    for f in &failed {
        println!("  differs: {f}");
    }
    if std::env::var_os("TILEMEM_UPDATE_KNOWN_GOOD").is_some() {
        fs::write(KNOWN_GOOD, passed.join("\n") + "\n").expect("write known-good list");
        return;
    }
    let known = fs::read_to_string(KNOWN_GOOD).unwrap_or_default();
    let regressions: Vec<&str> = known
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !passed.contains(l))
        .collect();
    assert!(
        regressions.is_empty(),
        "known-good entries no longer match: {regressions:?}"
    );
}
