//! `tilemem bench --family random`: instances without a capacity are
//! solved for the lowest placement, `--slack` gives them one above their
//! lower bound, and the family line reports height ÷ bound.

mod common;

use std::process::Command;

fn bench(extra: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["bench", "--family", "random", "--count", "1", "--rows"])
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
