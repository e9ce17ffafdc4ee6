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
//! The test asserts that every entry of `dsa_rp_known_good.txt` still
//! passes and prints the totals and the entries that differ.
//! `TILEMEM_UPDATE_KNOWN_GOOD=1` rewrites the list from the current run.

use std::fs;
use std::path::Path;

use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_target::Soc;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/pto");
const KNOWN_GOOD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dsa_rp_known_good.txt");

/// The address pass alone, on PyPTO's dump before it.
const ADDR_ONLY: &[PassId] = &[PassId::AllocateMemoryAddr];

fn norm(t: &str) -> String {
    t.trim()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

fn target_of(meta: &Path) -> String {
    let text = fs::read_to_string(meta).unwrap_or_default();
    let Some(at) = text.find("\"target\": \"") else {
        return "none".into();
    };
    text[at + 11..]
        .split('"')
        .next()
        .unwrap_or("none")
        .to_string()
}

/// Runs `passes` in the DSA_RP planner mode on `input`; compares with `want`
/// or the error message in `err`.
fn check(input: &Path, target: &str, passes: &[PassId], want: &Path, err: &Path) -> Option<bool> {
    let src = fs::read_to_string(input).ok()?;
    let soc = Soc::from_name(target)?;
    let mut cx = PassContext::new(soc, PlannerMode::DsaRp);
    let result = parse(&src)
        .map_err(|e| e.message.clone())
        .and_then(|mut p| {
            run_pipeline(&mut p, &mut cx, passes)
                .map(|_| print(&p))
                .map_err(|e| e.to_string())
        });
    if let Ok(msg) = fs::read_to_string(err) {
        let msg = msg.trim();
        let key = msg.split_once(": ").map_or(msg, |(_, k)| k);
        let key: String = key
            .split('(')
            .next()
            .unwrap_or("")
            .trim()
            .chars()
            .take(40)
            .collect();
        return Some(matches!(result, Err(e) if e.contains(&key)));
    }
    let want = fs::read_to_string(want).ok()?;
    Some(matches!(result, Ok(out) if norm(&out) == norm(&want)))
}

#[test]
fn dsa_rp_matches_pypto_reference_outputs() {
    let root = Path::new(DATA);
    if !root.is_dir() {
        eprintln!("note: {DATA} not found; DSA_RP conformance skipped");
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
        let err = d.join("none.error.txt");
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
