//! PyPTO's own MessagePack documents through tilemem's passes: each
//! kernel's stage-31/32/33 document is read, planned, written back as a
//! document and compared byte for byte with PyPTO's document of the later
//! stage (`../shared/data/pto/msgpack`; skipped visibly when absent). A run
//! that differs is repeated with the seed rules newer than the reference
//! off (`--compat pypto-e2d0f78`). The counts by check and planner are
//! printed with the first difference of each failing run; the test fails
//! when an entry of `msgpack_known_good.txt` no longer matches
//! (`TILEMEM_UPDATE_KNOWN_GOOD=1` rewrites the list).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;

use tilemem_pto::msgpack;
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode, SeedRules};
use tilemem_soc::Soc;

/// The `target` of a `meta.json` text (`none` when absent).
fn target_of(meta: &str) -> String {
    meta.find("\"target\": \"")
        .and_then(|at| meta[at + 11..].split('"').next())
        .unwrap_or("none")
        .to_string()
}

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/pto/msgpack/kernels"
);
const KNOWN_GOOD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/msgpack_known_good.txt");

use PassId::{
    AllocateMemoryAddr as Alloc, InitMemref as Init, MaterializeSemanticAliases as Msa,
    MemoryReuse as Reuse,
};

/// The planned document of `input`, or why there is none.
fn plan(
    input: &[u8],
    target: &str,
    mode: PlannerMode,
    passes: &[PassId],
    rules: SeedRules,
) -> Result<Vec<u8>, String> {
    let (mut p, origin) = msgpack::read_with_origin(input).map_err(|e| format!("read: {e}"))?;
    let soc = Soc::from_name(target).ok_or("target")?;
    let mut cx = PassContext::new(soc, mode);
    cx.seed_rules = rules;
    run_pipeline(&mut p, &mut cx, passes).map_err(|e| format!("plan: {e}"))?;
    msgpack::write_program(&p, &origin).map_err(|e| format!("write: {e}"))
}

#[test]
fn planned_documents_equal_pyptos() {
    let root = Path::new(DATA);
    if !root.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): planned_documents_equal_pyptos: {DATA} not found"
        );
        return;
    }
    let mut kernels: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    kernels.sort();
    let mut results: BTreeMap<String, Result<bool, String>> = BTreeMap::new();
    for k in &kernels {
        let name = k.file_name().unwrap().to_string_lossy().to_string();
        for (planner, mode) in [
            ("pypto", PlannerMode::Pypto),
            ("dsa_rp", PlannerMode::DsaRp),
        ] {
            let d = k.join(planner);
            let meta = std::fs::read_to_string(d.join("meta.json")).unwrap_or_default();
            let target = target_of(&meta);
            let runs: Vec<(&str, &str, &[PassId], &str)> = if planner == "pypto" {
                vec![
                    (
                        "init",
                        "31_after_MaterializeTensorStrides",
                        &[Init],
                        "32_after_InitMemRef",
                    ),
                    (
                        "msa",
                        "31_after_MaterializeTensorStrides",
                        &[Init, Msa],
                        "33_after_MaterializeSemanticAliases",
                    ),
                    (
                        "reuse",
                        "33_after_MaterializeSemanticAliases",
                        &[Reuse],
                        "34_after_MemoryReuse",
                    ),
                    (
                        "alloc",
                        "34_after_MemoryReuse",
                        &[Alloc],
                        "35_after_AllocateMemoryAddr",
                    ),
                    (
                        "reuse_alloc",
                        "33_after_MaterializeSemanticAliases",
                        &[Reuse, Alloc],
                        "35_after_AllocateMemoryAddr",
                    ),
                    (
                        "full",
                        "31_after_MaterializeTensorStrides",
                        &[Init, Msa, Reuse, Alloc],
                        "35_after_AllocateMemoryAddr",
                    ),
                ]
            } else {
                vec![
                    (
                        "init",
                        "31_after_MaterializeTensorStrides",
                        &[Init],
                        "32_after_InitMemRef",
                    ),
                    (
                        "msa",
                        "31_after_MaterializeTensorStrides",
                        &[Init, Msa],
                        "33_after_MaterializeSemanticAliases",
                    ),
                    (
                        "alloc",
                        "33_after_MaterializeSemanticAliases",
                        &[Alloc],
                        "34_after_AllocateMemoryAddr",
                    ),
                    (
                        "full",
                        "31_after_MaterializeTensorStrides",
                        &[Init, Msa, Alloc],
                        "34_after_AllocateMemoryAddr",
                    ),
                ]
            };
            for (check, input, passes, want) in runs {
                let (Ok(input), Ok(want)) = (
                    std::fs::read(d.join(format!("{input}.msgpack"))),
                    std::fs::read(d.join(format!("{want}.msgpack"))),
                ) else {
                    continue;
                };
                let key = format!("{planner} {check} {name}");
                let first = plan(&input, &target, mode, passes, SeedRules::ALL);
                let outcome = match first {
                    Ok(out) if out == want => Ok(true),
                    _ => match plan(&input, &target, mode, passes, SeedRules::pypto_e2d0f78()) {
                        Ok(out) if out == want => Ok(true),
                        Ok(out) => {
                            let at = out
                                .iter()
                                .zip(&want)
                                .position(|(a, b)| a != b)
                                .unwrap_or(out.len().min(want.len()));
                            Err(format!(
                                "differs from byte {at} ({} vs {} bytes)",
                                out.len(),
                                want.len()
                            ))
                        }
                        Err(e) => Err(e),
                    },
                };
                results.insert(key, outcome);
            }
        }
    }
    let mut totals: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    for (key, r) in &results {
        let mut parts = key.split(' ');
        let group = format!("{} {}", parts.next().unwrap(), parts.next().unwrap());
        let t = totals.entry(group).or_default();
        if matches!(r, Ok(true)) {
            t.0 += 1
        } else {
            t.1 += 1
        }
    }
    for (g, (p, f)) in &totals {
        eprintln!("msgpack {g}: {p} passed, {f} failed");
    }
    let mut reasons: BTreeMap<String, u32> = BTreeMap::new();
    for (key, r) in &results {
        if let Err(e) = r {
            let short: String = e.chars().take(110).collect();
            let short = if short.starts_with("differs") {
                "differs".to_string()
            } else {
                short
            };
            *reasons.entry(short).or_default() += 1;
            if std::env::var_os("TILEMEM_MSGPACK_VERBOSE").is_some() {
                eprintln!("  {key}: {e}");
            }
        }
    }
    for (r, n) in &reasons {
        eprintln!("  {n} x {r}");
    }
    let good: Vec<&str> = results
        .iter()
        .filter(|(_, r)| matches!(r, Ok(true)))
        .map(|(k, _)| k.as_str())
        .collect();
    if std::env::var_os("TILEMEM_UPDATE_KNOWN_GOOD").is_some() {
        std::fs::write(KNOWN_GOOD, good.join("\n") + "\n").unwrap();
        return;
    }
    let known = std::fs::read_to_string(KNOWN_GOOD).unwrap_or_default();
    let regressed: Vec<&str> = known
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| !matches!(results.get(*l), Some(Ok(true))))
        .collect();
    assert!(
        regressed.is_empty(),
        "known-good entries no longer match: {regressed:#?}"
    );
}
