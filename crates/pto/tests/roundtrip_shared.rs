//! Round trip of every PyPTO dump under `../shared/data/pto` (cases and
//! kernels), when that folder is present. Files listed in
//! `tests/data/shared_known_good.txt` must keep round-tripping byte for
//! byte; the totals are printed either way.

// A skip is written to stderr directly (`writeln!`), not with `eprintln!`,
// which the test harness captures: `cargo test` shows it in every run.
use std::io::Write as _;
use std::path::{Path, PathBuf};

fn shared_root() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/pto"
    ))
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

#[test]
fn shared_reference_dumps_round_trip() {
    let root = shared_root();
    if !root.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_reference_dumps_round_trip: {} not found",
            root.display()
        );
        return;
    }
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let known: Vec<String> = include_str!("data/shared_known_good.txt")
        .lines()
        .map(str::to_string)
        .collect();
    let mut passed = Vec::new();
    let mut failed = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let src = std::fs::read_to_string(f).unwrap();
        let ok = match tilemem_pto::parse(&src) {
            Ok(p) => tilemem_pto::print(&p) == src,
            Err(e) => {
                eprintln!("{}", e.render(&rel, &src));
                false
            }
        };
        if ok {
            passed.push(rel);
        } else {
            failed.push(rel);
        }
    }
    println!(
        "reference round trip: {} of {} files byte-identical ({} failed)",
        passed.len(),
        files.len(),
        failed.len()
    );
    let regressions: Vec<&String> = known.iter().filter(|k| failed.contains(k)).collect();
    assert!(
        regressions.is_empty(),
        "known-good files no longer round-trip: {regressions:?}"
    );
}
