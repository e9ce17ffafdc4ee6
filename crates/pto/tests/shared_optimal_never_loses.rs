//! `--planner optimal` never uses more bytes than another planner, on every
//! (function, memory space) of every program of PyPTO's shared reference
//! data (the cases' sources and the kernels' first dumps). Skips, visibly,
//! where the data is absent.

#[allow(dead_code)] // the conformance helpers this test does not need
mod support;

// A skip is written to stderr directly, past the harness's output capture.
use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use support::{target_of, DATA};
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, report};
use tilemem_soc::Soc;

/// Bytes used per (function, space) after planning `src` with `mode`, or
/// `None` when the planner rejects the program.
fn bytes(src: &str, target: &str, mode: PlannerMode) -> Option<BTreeMap<(String, String), u64>> {
    let mut p = parse(src).ok()?;
    let soc = Soc::from_name(target)?;
    let mut cx = PassContext::new(soc.clone(), mode);
    // A work budget, so the result is the same on every machine.
    cx.dsa.node_limit = Some(200_000);
    cx.dsa.time_limit = None;
    run_pipeline(&mut p, &mut cx, &PassId::default_pipeline(mode)).ok()?;
    let r = report::build(&p, &soc, true);
    Some(
        r.functions
            .iter()
            .flat_map(|f| {
                f.spaces
                    .iter()
                    .map(move |s| ((f.name.clone(), s.space.clone()), s.bytes_used))
            })
            .collect(),
    )
}

/// Every program to plan: `(name, path, target)`.
fn programs(root: &Path) -> Vec<(String, PathBuf, String)> {
    let mut out = Vec::new();
    for dir in ["cases", "kernels"] {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for d in entries {
            let meta = fs::read_to_string(d.join("meta.json")).unwrap_or_default();
            let src = if dir == "cases" {
                Some(d.join("src.py"))
            } else {
                fs::read_dir(d.join("pypto")).ok().and_then(|it| {
                    let mut files: Vec<PathBuf> = it.flatten().map(|e| e.path()).collect();
                    files.sort();
                    files.into_iter().next()
                })
            };
            if let Some(src) = src.filter(|p| p.exists()) {
                let name = d.file_name().unwrap().to_string_lossy().to_string();
                out.push((name, src, target_of(&meta)));
            }
        }
    }
    out
}

#[test]
fn shared_optimal_never_uses_more_bytes_than_another_planner() {
    let root = PathBuf::from(DATA);
    if !root.exists() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_optimal_never_uses_more_bytes_than_another_planner: {DATA} not found"
        );
        return;
    }
    let mut losses = Vec::new();
    let mut compared = 0usize;
    for (name, path, target) in programs(&root) {
        let src = fs::read_to_string(&path).unwrap();
        let Some(opt) = bytes(&src, &target, PlannerMode::Optimal) else {
            continue;
        };
        for mode in [PlannerMode::Pypto, PlannerMode::DsaRp] {
            let Some(other) = bytes(&src, &target, mode) else {
                continue;
            };
            for (key, &b) in &other {
                let Some(&o) = opt.get(key) else { continue };
                compared += 1;
                if o > b {
                    losses.push(format!(
                        "{name} {}/{}: optimal {o} > {mode:?} {b}",
                        key.0, key.1
                    ));
                }
            }
        }
    }
    eprintln!("compared {compared} (function, space, planner) triples");
    assert!(compared > 0);
    assert!(losses.is_empty(), "{}", losses.join("\n"));
}
