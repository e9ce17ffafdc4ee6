//! A test that cannot run here (no `../shared`, a debug build) must say so
//! in the default `cargo test` output, where the harness shows only `ok`:
//! it writes `SKIPPED (REASON): TEST: WHY` to stderr with `writeln!`,
//! which the harness does not capture (`eprintln!` and `println!` output is
//! captured and shown only for failures or under `--nocapture`).
//! `.ci/tally.py` counts these lines as skipped tests, not passes.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    rust_files(&root().join("xtask"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let rel = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
            (rel, text)
        })
        .collect()
}

/// Every `"SKIPPED` message is written with `writeln!` to stderr, in the
/// form the total of `.ci/run` counts.
#[test]
fn skip_messages_are_written_past_the_capture() {
    let this = file!().rsplit('/').next().unwrap();
    let mut bad = Vec::new();
    for (rel, text) in sources() {
        if rel.ends_with(this) {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(k) = line.find("\"SKIPPED") else {
                continue;
            };
            let msg = &line[k + 1..];
            // The macro call is on this line or up to two lines above.
            let call = lines[i.saturating_sub(2)..=i].join("\n");
            let ok_call = call.contains("writeln!(") && call.contains("std::io::stderr()");
            let ok_form = msg.starts_with("SKIPPED (") && msg.contains("): ") && {
                let after = &msg[msg.find("): ").unwrap() + 3..];
                after.split(':').next().is_some_and(|name| {
                    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
                })
            };
            if !(ok_call && ok_form) {
                bad.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "skip messages the default `cargo test` output hides or the total cannot count \
         (write `let _ = writeln!(std::io::stderr(), \"SKIPPED (REASON): TEST: ...\")`):\n{}",
        bad.join("\n")
    );
}

/// A test file that reads `../shared` has a visible skip for when it is absent.
#[test]
fn tests_that_read_shared_data_can_skip_visibly() {
    let mut bad = Vec::new();
    for (rel, text) in sources() {
        let reads_shared = text.contains("/shared/data") || text.contains("/shared/reference");
        let uses_support_data = text.contains("support::") && text.contains("DATA");
        if !text.contains("#[test]") || !(reads_shared || uses_support_data) {
            continue;
        }
        if rel.contains("/benches/") || text.contains("\"SKIPPED (") {
            continue;
        }
        bad.push(rel);
    }
    assert!(
        bad.is_empty(),
        "test files that read ../shared without a `SKIPPED (no ../shared): ...` line: {bad:?}"
    );
}
