//! Fault injection: every command writes all of its outputs or none of
//! them. A read-only folder, a missing folder, a full disk (a file-size
//! limit that fails the write after N bytes), a full or closed standard
//! output, and an interrupt during a long solve never leave a partial or
//! torn file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::KERNEL;

const PROBLEM: &str = "id,lower,upper,size\na,0,2,64\nb,1,3,64\nc,2,4,64\n";

fn scratch(name: &str) -> common::Scratch {
    common::scratch("faults", name)
}

fn files(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn tilemem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(args)
        .output()
        .unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A folder nothing can be created in, even by root: a read-only folder
/// when permissions apply, else procfs.
fn read_only_dir(d: &Path) -> PathBuf {
    let ro = d.join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(ro.join("probe"), "x").is_err() {
            return ro;
        }
        let _ = std::fs::remove_file(ro.join("probe"));
    }
    PathBuf::from("/proc")
}

#[test]
fn plan_writes_nothing_when_a_later_output_fails() {
    let d = scratch("plan-nodir");
    let input = d.join("k.py");
    std::fs::write(&input, KERNEL).unwrap();
    // Four outputs; only the program's folder varies.
    let plan_to = |out: &str| {
        tilemem(&[
            "plan",
            s(&input),
            "--planner",
            "dsa-rp",
            "--report",
            s(&d.join("r.json")),
            "--map",
            s(&d.join("m.html")),
            "--export-problems",
            s(&d.join("problems")),
            "-o",
            s(&d.join(out)),
        ])
    };
    let o = plan_to("nodir/out.py");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("nodir/out.py") && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(files(&d), ["k.py"]);
    // The same command with a writable output writes all four.
    let o = plan_to("out.py");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        files(&d),
        ["k.py", "m.html", "out.py", "problems", "r.json"]
    );
    assert_eq!(
        files(&d.join("problems")),
        ["main.Vec.csv", "main.Vec.dsa.txt"]
    );
}

#[test]
fn plan_into_a_read_only_folder_writes_nothing() {
    let d = scratch("plan-ro");
    let input = d.join("k.py");
    std::fs::write(&input, KERNEL).unwrap();
    let ro = read_only_dir(&d);
    let o = tilemem(&[
        "plan",
        s(&input),
        "-o",
        s(&d.join("out.py")),
        "--report",
        s(&ro.join("r.json")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!d.join("out.py").exists());
}

/// A truncated or corrupted MessagePack document (PyPTO's own, from the
/// pto crate's test data) is an error that names the byte offset and the
/// node being read: exit 2, no output file.
#[test]
fn plan_of_a_broken_document_names_the_offset_and_writes_nothing() {
    let doc = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../pto/tests/data/msgpack/tile_assemble_double_loop/31_after_MaterializeTensorStrides.msgpack"
    ))
    .unwrap();
    let d = scratch("plan-msgpack-broken");
    let mut corrupt = doc.clone();
    // A byte MessagePack never uses, inside the first function.
    corrupt[doc.len() / 2] = 0xc1;
    for (name, bytes) in [
        ("cut.msgpack", &doc[..doc.len() / 2]),
        ("bad.msgpack", &corrupt[..]),
    ] {
        let input = d.join(name);
        std::fs::write(&input, bytes).unwrap();
        let out = d.join("out.msgpack");
        let o = tilemem(&["plan", s(&input), "-o", s(&out), "--emit", "msgpack"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains("byte"), "{name}: {err}");
        assert!(
            err.contains("function '"),
            "{name}: the node being read: {err}"
        );
        assert!(!out.exists(), "{name}");
    }
}

#[test]
fn solve_writes_nothing_when_the_map_cannot_be_written() {
    let d = scratch("solve-nodir");
    let input = d.join("p.csv");
    std::fs::write(&input, PROBLEM).unwrap();
    let solve_with_map = |map: &Path| {
        let o = tilemem(&[
            "solve",
            s(&input),
            "-o",
            s(&d.join("ok.csv")),
            "--map",
            s(map),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", map.display());
        assert!(!d.join("ok.csv").exists(), "{}", map.display());
    };
    solve_with_map(&d.join("nodir/m.svg"));
    assert_eq!(files(&d), ["p.csv"]);
    solve_with_map(&read_only_dir(&d).join("m.html"));
}

/// A full disk: the file-size limit makes every write past N bytes fail
/// (EFBIG, with SIGXFSZ ignored), for N from 0 to past the first file.
#[cfg(unix)]
#[test]
fn a_full_disk_after_n_bytes_writes_nothing() {
    use std::os::unix::process::CommandExt;
    let d = scratch("full");
    let input = d.join("k.py");
    std::fs::write(&input, KERNEL).unwrap();
    let report_len = {
        let o = tilemem(&[
            "plan",
            s(&input),
            "--quiet",
            "--report",
            s(&d.join("r.json")),
        ]);
        assert_eq!(o.status.code(), Some(0));
        let n = std::fs::metadata(d.join("r.json")).unwrap().len();
        std::fs::remove_file(d.join("r.json")).unwrap();
        n
    };
    for limit in [0, 1, 100, report_len - 1, report_len + 200] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tilemem"));
        cmd.args(["plan", s(&input), "--quiet"])
            .args(["--report", s(&d.join("r.json"))])
            .args(["-o", s(&d.join("out.py"))]);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let lim = libc::rlimit {
                    rlim_cur: limit as libc::rlim_t,
                    rlim_max: libc::RLIM_INFINITY,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let o = cmd.output().unwrap();
        assert_eq!(o.status.code(), Some(2), "limit {limit}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("nothing was written"), "limit {limit}: {err}");
        assert_eq!(files(&d), ["k.py"], "limit {limit}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let d = scratch("devfull");
    let input = d.join("k.py");
    std::fs::write(&input, KERNEL).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["plan", s(&input), "--quiet"])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot write standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_closed_standard_output_ends_quietly() {
    let d = scratch("pipe");
    let input = d.join("k.py");
    std::fs::write(&input, KERNEL).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["plan", s(&input)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
}

/// An interrupt during a long solve stops the search through its budget:
/// the best placement found by then is validated and written whole, the
/// command says it was interrupted and exits 130. Never a torn file, never
/// a temporary file left behind.
#[cfg(unix)]
#[test]
fn an_interrupt_during_a_long_solve_writes_the_best_placement_whole() {
    let d = scratch("sigint");
    let input = d.join("big.csv");
    // 3,000 buffers of random sizes and lifetimes (a fixed linear
    // congruential sequence): no search closes the gap to the co-live
    // bound on this, so the exact search runs until its 60 s limit and only
    // the interrupt can end it within the test. (All buffers sharing one
    // lifetime would not do: stacking them meets the bound at once.)
    let mut text = String::from("id,lower,upper,size\n");
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % m
    };
    for i in 0..3000 {
        let lower = next(2000);
        let len = 1 + next(300);
        let size = 1 + next(4096);
        text.push_str(&format!("b{i},{lower},{},{size}\n", lower + len));
    }
    std::fs::write(&input, text).unwrap();
    let out = d.join("out.csv");
    let child = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", s(&input), "--solver", "exact"])
        .args(["--time-limit", "60", "-o", s(&out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    // SAFETY: signalling our own child by its id.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let o = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stdout}{stderr}");
    assert!(
        stdout.contains("budget:      interrupted; the result is the best found by then\n"),
        "{stdout}"
    );
    assert!(
        stderr.starts_with(
            "interrupted: the placement written is the best found by then (validated), height "
        ),
        "{stderr}"
    );
    // The file is whole and the independent validator accepts it.
    assert_eq!(files(&d), ["big.csv", "out.csv"]);
    let v = tilemem(&["validate", s(&out)]);
    assert_eq!(
        v.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&v.stdout)
    );
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("ok: 3000 buffers"));
}

/// `solve`, `validate` and `bench` print through the checked writer: a full
/// standard output is exit 2 with a message, not a panic.
#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_fails_solve_validate_and_bench_cleanly() {
    let d = scratch("devfull-solve");
    let input = d.join("p.csv");
    std::fs::write(&input, PROBLEM).unwrap();
    let placed = d.join("placed.csv");
    assert_eq!(
        tilemem(&["solve", s(&input), "-o", s(&placed)])
            .status
            .code(),
        Some(0)
    );
    let runs: [&[&str]; 4] = [
        &["solve", s(&input)],
        &["solve", s(&input), "--map", "-"],
        &["validate", s(&placed)],
        &["bench", s(&d), "--time-limit", "1"],
    ];
    for args in runs {
        let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
            .args(args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("error: cannot write standard output: No space left on device"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
