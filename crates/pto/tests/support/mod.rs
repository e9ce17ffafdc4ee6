//! Shared by the conformance tests over PyPTO's reference data: where the
//! data lives, how outputs are compared, and how expected errors match.

use std::fs;
use std::path::{Path, PathBuf};

use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode, SeedRules};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

/// PyPTO's reference dumps beside the repository (absent on some machines).
pub const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/pto");

/// Text compared without trailing whitespace or surrounding blank lines
/// (as `check_pto_cases.py` does).
pub fn norm(t: &str) -> String {
    t.trim()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `target` of a case's `meta.json` text (`none` when absent).
pub fn target_of(meta: &str) -> String {
    meta.find("\"target\": \"")
        .and_then(|at| meta[at + 11..].split('"').next())
        .unwrap_or("none")
        .to_string()
}

/// Every shared kernel's `planner` directory (`pypto` or `dsa_rp`) under
/// `root`, sorted by kernel name: (kernel name, directory, its meta.json's
/// target). (Not every test binary that shares this module walks kernels.)
#[allow(dead_code)]
pub fn kernel_dirs(root: &Path, planner: &str) -> Vec<(String, PathBuf, String)> {
    let mut kernels: Vec<PathBuf> = fs::read_dir(root.join("kernels"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    kernels.sort();
    kernels
        .into_iter()
        .map(|k| {
            let name = k.file_name().unwrap().to_string_lossy().to_string();
            let d = k.join(planner);
            let target = target_of(&fs::read_to_string(d.join("meta.json")).unwrap_or_default());
            (name, d, target)
        })
        .collect()
}

/// The part of PyPTO's error message that must appear in ours: what follows
/// the first `": "`, up to any `(`, at most 40 characters (the rule of
/// `check_pto_cases.py`).
pub fn error_key(msg: &str) -> String {
    let msg = msg.trim();
    let key = msg.split_once(": ").map_or(msg, |(_, k)| k);
    key.split('(')
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(40)
        .collect()
}

/// Runs `passes` under `planner` on `input`; compares with the program in
/// `want`, or, when `err` exists, with the error message it holds. `None`
/// when the inputs are missing.
pub fn check(
    input: &Path,
    target: &str,
    planner: PlannerMode,
    passes: &[PassId],
    want: &Path,
    err: &Path,
) -> Option<bool> {
    check_with(input, target, planner, passes, want, err, SeedRules::ALL)
}

/// How a run compares with PyPTO's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Identical with every seed rule on.
    Same,
    /// Identical only with the seed rules newer than the reference off
    /// (`--compat pypto-e2d0f78`): a deliberate difference.
    SameWithCompat,
    /// Different either way.
    Differs,
}

/// [`check`], and when it differs, again with the newer seed rules off.
pub fn outcome(
    input: &Path,
    target: &str,
    planner: PlannerMode,
    passes: &[PassId],
    want: &Path,
    err: &Path,
) -> Option<Outcome> {
    if check(input, target, planner, passes, want, err)? {
        return Some(Outcome::Same);
    }
    let old = SeedRules::pypto_e2d0f78();
    Some(
        if check_with(input, target, planner, passes, want, err, old)? {
            Outcome::SameWithCompat
        } else {
            Outcome::Differs
        },
    )
}

/// [`check`] under the given seed rules.
pub fn check_with(
    input: &Path,
    target: &str,
    planner: PlannerMode,
    passes: &[PassId],
    want: &Path,
    err: &Path,
    rules: SeedRules,
) -> Option<bool> {
    let src = fs::read_to_string(input).ok()?;
    let soc = Soc::from_name(target)?;
    let mut cx = PassContext::new(soc, planner);
    cx.seed_rules = rules;
    let result = parse(&src)
        .map_err(|e| e.message.clone())
        .and_then(|mut p| {
            run_pipeline(&mut p, &mut cx, passes)
                .map(|_| print(&p))
                .map_err(|e| e.to_string())
        });
    if let Ok(msg) = fs::read_to_string(err) {
        let key = error_key(&msg);
        return Some(matches!(&result, Err(e) if e.contains(&key)));
    }
    let want = fs::read_to_string(want).ok()?;
    Some(matches!(&result, Ok(out) if norm(out) == norm(&want)))
}
