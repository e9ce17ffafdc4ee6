//! `tilemem bench --family random`: instances without a capacity are
//! solved for the lowest placement, `--slack` gives them one above their
//! lower bound, and the family line reports height ÷ bound.

mod common;

use std::process::Command;

fn bench(extra: &[&str]) -> (Option<i32>, String) {
    bench_n(1, extra)
}

/// `bench` over `count` instances of the random family.
fn bench_n(count: u32, extra: &[&str]) -> (Option<i32>, String) {
    let count = count.to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["bench", "--family", "random", "--count", &count, "--rows"])
        .args(["--node-limit", "20000"])
        .args(extra)
        .env_remove("MINIMALLOC")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn random_family_without_and_with_slack() {
    // Instance 0: 2,553 buffers, lower bound 531040.
    let (code, out) = bench(&[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("| random-0 | 2553 | - | 531040 |"), "{out}");
    assert!(
        out.contains("| height ÷ bound median / worst | failures |"),
        "{out}"
    );
    assert!(out.contains("| random | 1 | 2553 |"), "{out}");
    // 10 % slack: capacity 531040 + 53104, met by greedy placement.
    let (code, out) = bench(&["--slack", "10"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("| random-0 | 2553 | 584144 | 531040 |"),
        "{out}"
    );
    let family = out.lines().last().unwrap();
    assert!(family.contains("| 0 | 0 | auto/greedy 1 |"), "{family}");
}

/// `--write` into a folder that does not exist warned once per instance,
/// exited 0 and wrote nothing; it creates the folder, as `plan
/// --export-problems` does, and writes every instance (a folder that
/// cannot be made is an error, exit 2, with nothing written).
#[test]
fn write_creates_its_folder() {
    let d = common::scratch("bench", "write");
    let dest = d.join("new/instances");
    let (code, out) = bench(&["--write", dest.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    let files: Vec<_> = std::fs::read_dir(&dest)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files, ["random-0.csv"]);
    std::fs::write(d.join("file"), "").unwrap();
    let (code, _) = bench(&["--write", d.join("file/sub").to_str().unwrap()]);
    assert_eq!(code, Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

/// `--first-seed N` measures instances N, N+1, ...: the same instances,
/// byte for byte, as a run from seed 0 writes under those numbers.
#[test]
fn first_seed_starts_the_family_there() {
    let d = common::scratch("bench", "first-seed");
    let (code, out) = bench_n(2, &["--write", d.join("all").to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = bench(&[
        "--first-seed",
        "1",
        "--write",
        d.join("one").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("| random-1 |"), "{out}");
    assert!(!out.contains("| random-0 |"), "{out}");
    let names: Vec<_> = std::fs::read_dir(d.join("one"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["random-1.csv"]);
    assert_eq!(
        std::fs::read(d.join("one/random-1.csv")).unwrap(),
        std::fs::read(d.join("all/random-1.csv")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&d);
}
