//! `tilemem bench` with its peers in the same run, MiniMalloc
//! (`MINIMALLOC`) and idealloc (`IDEALLOC`, `-l 1` and `-l 10`), played
//! here by small scripts so the tests need neither binary: what each
//! peer reports lands in its columns, a peer past the time limit is
//! killed and reported as a timeout, one that fails says so, and the
//! family lines count them.

#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// idealloc's stand-in: `-i FILE ex-csv -l N` prints the height of every
/// buffer stacked (`-l 1`) or of all but the last (`-l 10`), as idealloc
/// prints its Makespan. FAKE_SLOW: `-l 10` never ends; FAKE_FAIL: prints
/// nothing and fails.
const IDEALLOC: &str = r#"#!/bin/sh
[ -n "$FAKE_FAIL" ] && exit 3
if [ "$5" = 10 ] && [ -n "$FAKE_SLOW" ]; then exec sleep 30; fi
exec awk -F, -v lives="$5" 'NR > 1 { s += $4; last = $4 }
  END { if (lives == 10) s -= last; printf "Total allocation time: 9 us\nMakespan:\t%.0f bytes\nLOAD:\t\t1 bytes\n", s }' "$2"
"#;

/// MiniMalloc's stand-in: `--capacity=C --input=IN --output=OUT` writes a
/// solution file (tilemem's own placement, `TILEMEM`); FAKE_FAIL: writes
/// nothing and fails; FAKE_WRONG: succeeds with every offset 0, a
/// placement that overlaps, which the bench must not count as placed.
const MINIMALLOC: &str = r#"#!/bin/sh
[ -n "$FAKE_FAIL" ] && exit 1
if [ -n "$FAKE_WRONG" ]; then
  exec awk -F, 'NR == 1 { print $0 ",offset"; next } { print $0 ",0" }' "${2#--input=}" > "${3#--output=}"
fi
exec "$TILEMEM" solve "${2#--input=}" "${1}" --fit -o "${3#--output=}" > /dev/null
"#;

fn scratch(name: &str) -> common::Scratch {
    let d = common::scratch("bench-peers", name);
    for (file, text) in [("idealloc", IDEALLOC), ("minimalloc", MINIMALLOC)] {
        let path = d.join(file);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    d
}

fn bench(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .arg("bench")
        .args(args)
        .env("MINIMALLOC", dir.join("minimalloc"))
        .env("IDEALLOC", dir.join("idealloc"))
        .env("TILEMEM", env!("CARGO_BIN_EXE_tilemem"))
        .env_remove("FAKE_SLOW")
        .env_remove("FAKE_FAIL")
        .env_remove("FAKE_WRONG")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

/// The output with the cells that depend on the machine's speed (times,
/// time ratios, the goal on time, the slowest instance; the speed goal's
/// count, worst and misses) replaced by `T` where they hold numbers;
/// `timeout`, `failed` and `-` stay.
fn masked(out: &str) -> String {
    let mut header: Vec<String> = Vec::new();
    let mut s = String::new();
    for line in out.lines() {
        let cells: Vec<&str> = line.split('|').collect();
        if line.starts_with("| time ≤") {
            // The speed goal's line: its counts, worst and misses are
            // the machine's.
            let mut cells: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
            for c in &mut cells[3..6] {
                *c = " T ".to_string();
            }
            s.push_str(&cells.join("|"));
            s.push('\n');
            continue;
        }
        if line.starts_with("| instance")
            || line.starts_with("| family")
            || line.starts_with("| goal")
        {
            header = cells.iter().map(|c| c.trim().to_string()).collect();
        } else if line.starts_with("| ") {
            let cells: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let h = header.get(k).map_or("", String::as_str);
                    let timed = h.contains("(s)")
                        || h.contains("time ÷")
                        || h == "goal met"
                        || h == "worst instance";
                    let number = c
                        .trim()
                        .chars()
                        .all(|ch| ch.is_ascii_digit() || " ./".contains(ch));
                    if timed && (number || h == "worst instance") && !c.trim().is_empty() {
                        " T ".to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect();
            s.push_str(&cells.join("|"));
            s.push('\n');
            continue;
        }
        s.push_str(line);
        s.push('\n');
    }
    s
}

const FAMILIES: &str = "\
| instance | buffers | capacity | lower bound | height | height ÷ bound | proven | best bound (source) | time (s) | solver | MiniMalloc (s) | idealloc -l 1 height ÷ bound | idealloc -l 1 (s) | idealloc -l 10 height ÷ bound | idealloc -l 10 (s) | first-fit | first-fit / height | valid |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| challenging-0 | 167 | 1048576 | 1048576 | 1048576 | 1.00000 | yes | 1048576 (co-live peak at t=0: 11 buffers live together) | T | auto/exact | T | 22.59375 | T | 22.56836 | T | 1187840 | 1.133 | ok |

| instance | buffers | capacity | lower bound | height | height ÷ bound | proven | best bound (source) | time (s) | solver | MiniMalloc (s) | idealloc -l 1 height ÷ bound | idealloc -l 1 (s) | idealloc -l 10 height ÷ bound | idealloc -l 10 (s) | first-fit | first-fit / height | valid |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| trace-0 | 1000 | - | 1046284096 | 1048557056 | 1.00217 | no (budget spent) | 1046284096 (co-live peak at t=546: 247 buffers live together) | T | auto/greedy | - | 2.69970 | T | 2.69584 | T | 1048557056 | 1.000 | ok |

| family | instances | buffers (median) | time (s) median / p90 / worst | worst instance | height ÷ bound median / worst | failures | budget spent | won by | MiniMalloc (s) median / worst | MiniMalloc timeouts / failures | time ÷ MiniMalloc median / p90 / worst | goal met | idealloc -l 1 height ÷ bound median / worst | idealloc -l 1 (s) median / worst | idealloc -l 10 height ÷ bound median / worst | idealloc -l 10 (s) median / worst | idealloc timeouts -l 1 / -l 10 | at or below idealloc |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| challenging | 1 | 167 | T | T | 1.00000 / 1.00000 | 0 | 0 | auto/exact 1 | T | 0 / 0 | T | T | 22.59375 / 22.59375 | T | 22.56836 / 22.56836 | T | 0 / 0 | 1 / 1 |
| trace | 1 | 1000 | T | T | 1.00217 / 1.00217 | 0 | 1 | auto/greedy 1 | - | - | - | - | 2.69970 / 2.69970 | T | 2.69584 / 2.69584 | T | 0 / 0 | 1 / 1 |

| goal | family or folder | met | worst (instance) | not met (why) |
|---|---|---|---|---|
| time ≤ 0.2 × MiniMalloc's or < 0.05 s | challenging | T | T | T |
| height ≤ 1.005 × best bound | trace | 1 / 1 | 1.00217 (trace-0) | - |
| height ≤ idealloc's | challenging | 1 / 1 | 0.04431 × idealloc (challenging-0) | - |
| height ≤ idealloc's | trace | 1 / 1 | 0.37175 × idealloc (trace-0) | - |
| height ≤ idealloc's | all | 2 / 2 | 0.37175 × idealloc (trace-0) | - |
";

/// Families challenging and trace (1,000-buffer training steps) with both
/// peers: MiniMalloc runs where there is a capacity (not on traces),
/// idealloc everywhere; heights are divided by the co-live bound in every
/// column, and tilemem is at or below idealloc's heights. The trace's
/// solve ends on its work limit, and its row and family line say so.
#[test]
fn families_with_both_peers() {
    let d = scratch("families");
    let (code, out) = bench(
        &d,
        &[
            "--family",
            "challenging",
            "--family",
            "trace",
            "--count",
            "1",
            "--trace-buffers",
            "1000",
            "--rows",
            "--node-limit",
            "20000",
            "--time-limit",
            "600",
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{out}");
    // The fake idealloc stacks every buffer: challenging-0's 167 buffers
    // sum to 22.59 times its capacity; the 1,000-buffer training step's to
    // 2.70 times its bound. The goals: the trace (no capacity) is judged
    // against its bound, both instances against idealloc (1 / 22.56836,
    // 1.00217 / 2.69584), only challenging-0 against MiniMalloc.
    assert_eq!(masked(&out), FAMILIES);
    let _ = std::fs::remove_dir_all(&d);
}

/// A folder: the peers run on every file; idealloc -l 10 still running at
/// the time limit is killed and reported as a timeout, -l 1 placed it;
/// a MiniMalloc that fails says so. With idealloc failing too, both of
/// its columns say so, and no goal is judged (the file has a capacity,
/// and no peer ran to compare with). The goals name the folder.
#[test]
fn folders_with_a_timeout_and_failures() {
    let d = scratch("folder");
    let problems = d.join("problems");
    std::fs::create_dir_all(&problems).unwrap();
    std::fs::write(
        problems.join("p.12.csv"),
        "id,lower,upper,size\na,0,2,4\nb,1,3,4\nc,2,4,4\n",
    )
    .unwrap();
    let dir = problems.to_str().unwrap();
    let header = "\
| instance | buffers | capacity | lower bound | height | height ÷ bound | proven | best bound (source) | time (s) | solver | MiniMalloc (s) | idealloc -l 1 height ÷ bound | idealloc -l 1 (s) | idealloc -l 10 height ÷ bound | idealloc -l 10 (s) | first-fit | first-fit / height | valid |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
";
    let (code, out) = bench(&d, &[dir, "--time-limit", "0.5"], &[("FAKE_SLOW", "1")]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        masked(&out),
        format!("{header}| p.12 | 3 | 12 | 8 | 8 | 1.00000 | yes | 8 (co-live peak at t=1: 2 buffers live together) | T | auto/greedy | T | 1.50000 | T | - | timeout | 8 | 1.000 | ok |\n\n\
                 | goal | family or folder | met | worst (instance) | not met (why) |\n\
                 |---|---|---|---|---|\n\
                 | time ≤ 0.2 × MiniMalloc's or < 0.05 s | problems | T | T | T |\n\
                 | height ≤ idealloc's | problems | 1 / 1 | 0.66667 × idealloc (p.12) | - |\n")
    );
    // A MiniMalloc that exits 0 with a placement that overlaps: checked
    // by our validator, it is a failure, not a time to compare with.
    let (code, out) = bench(&d, &[dir], &[("FAKE_WRONG", "1")]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        masked(&out).contains("| auto/greedy | failed | 1.50000 |"),
        "{out}"
    );
    let (code, out) = bench(&d, &[dir], &[("FAKE_FAIL", "1")]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        masked(&out),
        format!("{header}| p.12 | 3 | 12 | 8 | 8 | 1.00000 | yes | 8 (co-live peak at t=1: 2 buffers live together) | T | auto/greedy | failed | - | failed | - | failed | 8 | 1.000 | ok |\n")
    );
    let _ = std::fs::remove_dir_all(&d);
}
