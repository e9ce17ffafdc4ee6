//! `tilemem solve` end to end: the placement file, the memory map, exit codes.

mod common;

use std::process::Command;

const PROBLEM: &str = "id,lower,upper,size
a,0,2,64
b,1,3,64
c,2,4,64
";

fn scratch(name: &str) -> common::Scratch {
    common::scratch("solve", name)
}

/// `tilemem validate FILE`, which must accept it: its standard output.
fn validated(file: &std::path::Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["validate", file.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    stdout
}

#[test]
fn writes_a_validated_placement_and_its_maps() {
    let d = scratch("map");
    let input = d.join("p.csv");
    std::fs::write(&input, PROBLEM).unwrap();
    let (out, svg) = (d.join("out.csv"), d.join("map.svg"));
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", input.to_str().unwrap(), "--capacity", "128"])
        .args(["-o", out.to_str().unwrap(), "--map", svg.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("height:      128\n"), "{stdout}");
    assert!(stdout.contains("optimal:     proven\n"), "{stdout}");
    // a and c do not meet, so they share [0, 64); b sits above.
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "id,lower,upper,size,offset\na,0,2,64,0\nb,1,3,64,64\nc,2,4,64,0\n"
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.contains("<title>b: 64 at [64, 128), live [1, 3)</title>"),
        "{picture}"
    );

    let text = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", input.to_str().unwrap(), "--map", "-"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("  B b: 64 at [64, 128), live [1, 3)\n"),
        "{stdout}"
    );
}

#[test]
fn over_capacity_exits_1_and_writes_nothing() {
    let d = scratch("cap");
    let input = d.join("p.csv");
    std::fs::write(&input, PROBLEM).unwrap();
    let out = d.join("out.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", input.to_str().unwrap(), "--capacity", "100"])
        .args(["-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("no placement exists (proven)"));
    assert!(!out.exists());
}

/// A reader that closed its end of the pipe early ends the command quietly
/// (SIGPIPE), never with a panic message.
#[cfg(unix)]
#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    let d = scratch("pipe");
    let input = d.join("p.csv");
    std::fs::write(&input, PROBLEM).unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", input.to_str().unwrap()])
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{stderr}");
}

/// A work budget too small for any greedy pass: the solve still returns a
/// valid placement (the bump allocation), says the budget ended it, and
/// gives the same bytes every time.
#[test]
fn a_spent_budget_is_reported_and_reproducible() {
    let d = scratch("budget");
    let input = d.join("p.csv");
    let mut text = String::from("id,lower,upper,size,alignment\n");
    for i in 0..2000 {
        text.push_str(&format!("b{i},0,10,{},32\n", 32 * (1 + i % 7)));
    }
    std::fs::write(&input, text).unwrap();
    let run = |out: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_tilemem"))
            .args(["solve", input.to_str().unwrap(), "--node-limit", "50"])
            .args(["--solver", "canonical", "-o", out.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let (a, b) = (d.join("a.csv"), d.join("b.csv"));
    let o = run(&a);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("budget:      spent; the result is the best found by then\n"),
        "{stdout}"
    );
    run(&b);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let v = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["validate", a.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        v.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&v.stdout)
    );
}

/// A bad problem file is reported as `file:line:col: error: ...` by every
/// command that reads one (exit 2, nothing on stdout).
#[test]
fn csv_errors_name_file_line_and_column_in_every_command() {
    let d = scratch("csv-errors");
    let path = |name: &str, text: &[u8]| {
        let p = d.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let bad_text = b"id,lower,upper,size\na,0,2,64\nb,1,3,6x4\n";
    let bad = path("bad.csv", bad_text);
    let bench_bad = path("bench/bad.csv", bad_text);
    // `validate` on a row without an offset points at its empty cell.
    let unplaced = path(
        "unplaced.csv",
        b"id,lower,upper,size,offset\na,0,2,64,0\nb,1,3,64,\n",
    );
    // A byte that is not UTF-8: its line and column.
    let binary = path("binary.csv", b"id,lower,upper,size\na,0,2,\xff\n");
    let size = "error: `size` must be a non-negative integer, found `6x4`";
    let bench_dir = d.join("bench");
    let cases = [
        (vec!["solve", &bad], format!("{bad}:3:7: {size}\n")),
        (vec!["validate", &bad], format!("{bad}:3:7: {size}\n")),
        (
            vec!["bench", bench_dir.to_str().unwrap()],
            format!("{bench_bad}:3:7: {size}\n"),
        ),
        (
            vec!["validate", &unplaced],
            format!("{unplaced}:3:10: error: no offset; every row needs an `offset` to validate\n"),
        ),
        (
            vec!["solve", &binary],
            format!("{binary}:2:7: error: byte 0xff is not UTF-8 text; save the file as UTF-8\n"),
        ),
    ];
    for (args, want) in cases {
        let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), want, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

/// The printed bound says where it comes from: two 2-byte buffers
/// aligned to 4 leave only 2-byte holes for the 3-byte one live with them
/// at instant 1, so no stack of the three is below 9 bytes (the co-live
/// peak says 7). `--prove-bound` then finds nothing more to refute below
/// the first-fit placement (10 bytes): its search places the whole
/// problem at 9, and that placement is the result.
#[test]
fn the_lower_bound_names_its_rule_and_instant() {
    let d = scratch("prove");
    let input = d.join("p.csv");
    std::fs::write(
        &input,
        "id,lower,upper,size,alignment\na,0,2,2,4\nb,0,2,2,4\nc,1,3,3,1\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
            .args(["solve", input.to_str().unwrap(), "--solver", "first-fit"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let plain = run(&[]);
    assert!(
        plain.contains("lower bound: 9 (aligned stack at t=1: 3 buffers live, their alignments leave holes; co-live 7)\n"),
        "{plain}"
    );
    assert!(!plain.contains("bound search"), "{plain}");
    let proved = run(&["--prove-bound", "100000"]);
    assert!(
        proved.contains(
            "lower bound: 9 (aligned stack at t=1: 3 buffers live, their alignments leave holes; co-live 7)\n\
             bound search: 0 height(s) refuted; at 9: 3 window(s) tried, 0 cut by the budget; the whole problem placed at it\n\
             solver:      bound search/exact\n"
        ),
        "{proved}"
    );
    // First-fit in size order stacks the 3-byte buffer first: 10 bytes,
    // one above the proven 9.
    assert!(plain.contains("height:      10\n"), "{plain}");
    assert!(plain.contains("optimal:     not proven\n"), "{plain}");
    assert!(proved.contains("height:      9\n"), "{proved}");
    assert!(proved.contains("optimal:     proven\n"), "{proved}");
}

#[test]
fn timings_name_every_phase_on_stderr_only() {
    let d = scratch("timings");
    let input = d.join("p.csv");
    std::fs::write(&input, PROBLEM).unwrap();
    let out = d.join("out.csv");
    let run = |timings: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_tilemem"));
        c.args([
            "solve",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        if timings {
            c.arg("--timings");
        }
        c.output().unwrap()
    };
    let with = run(true);
    let placed = std::fs::read_to_string(&out).unwrap();
    let without = run(false);
    assert_eq!(with.status.code(), Some(0));
    // The placement written is the same with or without.
    assert_eq!(placed, std::fs::read_to_string(&out).unwrap());
    let stderr = String::from_utf8_lossy(&with.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("timings: "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let phases: Vec<&str> = line["timings: ".len()..]
        .split([',', ';'])
        .map(|p| p.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(
        phases,
        ["read", "solve", "validate", "write", "total"],
        "{line}"
    );
    // Each phase gives its wall time, then its CPU time.
    for part in line["timings: ".len()..].split([',', ';']) {
        let words: Vec<&str> = part.split_whitespace().collect();
        assert_eq!(words.len(), 6, "{line}");
        assert!(words[1].parse::<f64>().is_ok() && words[2] == "s", "{line}");
        assert_eq!(words[3], "(cpu", "{line}");
        assert!(
            words[4].parse::<f64>().is_ok() && words[5] == "s)",
            "{line}"
        );
    }
    assert!(!String::from_utf8_lossy(&without.stderr).contains("timings"));
}

/// `--minimize` searches the smallest height, whatever the capacity says
/// (which stays a limit): the aligned three-buffer problem fits in 9
/// bytes and no lower, and the placement written is validated. With the
/// first-fit greedy (10 bytes) the run cannot decide 9 and says so on
/// stderr.
#[test]
fn minimize_finds_the_smallest_height_and_writes_it() {
    let d = scratch("minimize");
    let input = d.join("p.csv");
    std::fs::write(
        &input,
        "id,lower,upper,size,alignment\na,0,2,2,4\nb,0,2,2,4\nc,1,3,3,1\n",
    )
    .unwrap();
    let out = d.join("out.csv");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tilemem"))
            .args(["solve", input.to_str().unwrap(), "--minimize"])
            .args(["--capacity", "64", "--node-limit", "100000"])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("capacity:    64\n"), "{stdout}");
    assert!(stdout.contains("height:      9\n"), "{stdout}");
    assert!(
        stdout.contains("minimum:     proven (no lower height exists)\n"),
        "{stdout}"
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        validated(&out),
        "ok: 3 buffers, height 9, lower bound 9 (aligned stack at t=1: 3 buffers live, their alignments leave holes; co-live 7)\n"
    );

    let o = run(&["--solver", "first-fit"]);
    assert_eq!(o.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("targets:     9 undecided\n"), "{stdout}");
    assert!(stdout.contains("height:      10\n"), "{stdout}");
    assert!(
        stdout.contains("minimum:     not proven (floor 9)\n"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.starts_with("stopped: every capacity left below the height was tried"),
        "{stderr}"
    );

    // Height first: the penalty-first objective does not go with it.
    let o = run(&["--penalty-first"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A run that ends before its time limit without a proof says why on
/// stderr: the greedy has no further move; with `--fit` a placement
/// within the capacity is the goal, and nothing is said.
#[test]
fn an_unproven_early_end_says_why() {
    let d = scratch("why");
    let input = d.join("p.csv");
    std::fs::write(
        &input,
        "id,lower,upper,size,alignment\na,0,2,2,4\nb,0,2,2,4\nc,1,3,3,1\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", input.to_str().unwrap(), "--solver", "first-fit"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.starts_with("stopped: no move found: first-fit ended its search after "),
        "{stderr}"
    );
    // `--fit` asks whether a placement fits the capacity: one within it
    // answers that, though its height is not proven the lowest.
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", input.to_str().unwrap(), "--solver", "first-fit"])
        .args(["--fit", "--capacity", "64"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("optimal:     not proven"));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // A proven result needs no explanation.
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", input.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `validate` reports the best lower bound with its rule and instant, as
/// `solve` does: the aligned stack (9) where alignment lifts it above the
/// co-live peak (7), else the co-live peak and where it is.
#[test]
fn validate_reports_the_best_bound_and_its_source() {
    let d = scratch("validate-bound");
    let aligned = d.join("aligned.csv");
    std::fs::write(
        &aligned,
        "id,lower,upper,size,alignment,offset\na,0,2,2,4,0\nb,0,2,2,4,4\nc,1,3,3,1,8\n",
    )
    .unwrap();
    let plain = d.join("plain.csv");
    std::fs::write(
        &plain,
        "id,lower,upper,size,offset\na,0,2,64,0\nb,1,3,64,64\nc,2,4,64,0\n",
    )
    .unwrap();
    assert_eq!(
        validated(&aligned),
        "ok: 3 buffers, height 11, lower bound 9 (aligned stack at t=1: 3 buffers live, their alignments leave holes; co-live 7)\n"
    );
    assert_eq!(
        validated(&plain),
        "ok: 3 buffers, height 128, lower bound 128 (co-live peak at t=1: 2 buffers live together)\n"
    );
}

/// `--minimize` proves an optimum that every bound misses by refuting the
/// height one grain below it, and says so: a 32 x 32 square cut into 60
/// pieces (fits at 32, its bound) after three aligned buffers that need
/// 33 (brute force in the plan crate's tests). The fit at the bound (32)
/// tried first is refuted by the search, the portfolio's first placement
/// is 33, and the placement written validates at 33.
#[test]
fn minimize_proves_the_optimum_by_a_refuted_target() {
    use tilemem_plan::gen::{sliced, Pick};
    use tilemem_plan::Buffer;
    let mut p = sliced(11, 60, 0, Pick::Mixed, 32, 32, 1);
    p.capacity = None;
    for b in &mut p.buffers {
        b.lower += 10;
        b.upper += 10;
    }
    for (size, lower, upper, align) in [(15, 3, 7, 3), (15, 0, 5, 6), (9, 2, 3, 12)] {
        p.push(Buffer::new(size, lower, upper).with_align(align));
    }
    let d = scratch("minimize-refuted");
    let input = d.join("p.csv");
    std::fs::write(&input, tilemem_plan::csv::write_problem(&p, None)).unwrap();
    let out = d.join("out.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", input.to_str().unwrap(), "--minimize"])
        .args([
            "--solver",
            "portfolio",
            "--node-limit",
            "4401",
            "--time-limit",
            "600",
        ])
        .args(["-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let without_time: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("time:")).collect();
    assert_eq!(
        without_time,
        [
            "buffers:     63",
            "capacity:    none",
            "lower bound: 33 (proven by the exact search: no lower height fits; co-live 32)",
            "bound fit:   32 refuted",
            "first:       33 (first placement)",
            "targets:     none",
            "grain:       1",
            "stopped:     the height is proven minimal",
            "solver:      portfolio/exact",
            "height:      33",
            "gap:         0.000 %",
            "minimum:     proven (no lower height exists)",
            "optimal:     proven",
        ],
        "{stdout}"
    );
    assert_eq!(
        validated(&out),
        "ok: 63 buffers, height 33, lower bound 32 (co-live peak at t=10: 7 buffers live together)\n"
    );
}

/// The lines of `tilemem solve FILE ARGS` (exit 0) that say where the
/// bound comes from: `lower bound:` and `bound search:`.
fn bound_lines(file: &std::path::Path, args: &[&str]) -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["solve", file.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    stdout
        .lines()
        .filter(|l| l.starts_with("lower bound:") || l.starts_with("bound search:"))
        .map(str::to_string)
        .collect()
}

/// Three buffers aligned to 3, 6 and 12 in a chain (`a` and `c` live
/// with `b`, never with each other): 33 bytes at least (`b` at 18, the
/// others at 0; no order of the chain fits in 32), where the co-live peak
/// says 30 and no instant holds all three. Then 80 buffers of 3 bytes one
/// after the other, so a window around the chain holds less than half of
/// the problem (the repair's rule).
fn chain_problem(far: usize) -> String {
    let mut s = String::from("id,lower,upper,size,alignment\na,3,7,15,3\nb,0,5,15,6\nc,2,3,9,12\n");
    for i in 0..far {
        s += &format!("t{i},{},{},3,1\n", 100 + i, 101 + i);
    }
    s
}

/// Every solve says which bound is best and where it came from, one
/// small problem per source, built to show it: the co-live peak, a pinned
/// buffer's top, the largest buffer, an aligned stack, buffers that can
/// never share (hard conflicts), the exact search's proof of its optimum,
/// a window the repair proved, and a window `--prove-bound` refuted; with
/// `--fit` and `--minimize` as well.
#[test]
fn every_bound_names_its_source() {
    let d = scratch("sources");
    let file = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let co_live = file("co-live.csv", PROBLEM);
    assert_eq!(
        bound_lines(&co_live, &[]),
        ["lower bound: 128 (co-live peak at t=1: 2 buffers live together)"]
    );
    assert_eq!(
        bound_lines(&co_live, &["--fit", "--capacity", "256"]),
        ["lower bound: 128 (co-live peak at t=1: 2 buffers live together)"]
    );
    // Nothing left to refute once the height meets the bound.
    assert_eq!(
        bound_lines(&co_live, &["--prove-bound", "1000"]),
        [
            "lower bound: 128 (co-live peak at t=1: 2 buffers live together)",
            "bound search: nothing to refute, the height meets the lower bound"
        ]
    );
    let pinned = file(
        "pinned.csv",
        "id,lower,upper,size,fixed\na,0,2,64,1000\nb,1,3,64,\nc,2,4,64,\n",
    );
    assert_eq!(
        bound_lines(&pinned, &[]),
        ["lower bound: 1064 (the top of a pinned buffer live on [0, 2))"]
    );
    // A buffer never live still needs its bytes.
    let largest = file(
        "largest.csv",
        "id,lower,upper,size\na,0,2,64\nb,1,3,64\nc,5,5,300\n",
    );
    assert_eq!(
        bound_lines(&largest, &[]),
        ["lower bound: 300 (the largest buffer alone)"]
    );
    let aligned = file(
        "aligned.csv",
        "id,lower,upper,size,alignment\na,0,2,2,4\nb,0,2,2,4\nc,1,3,3,1\n",
    );
    assert_eq!(
        bound_lines(&aligned, &[]),
        ["lower bound: 9 (aligned stack at t=1: 3 buffers live, their alignments leave holes; co-live 7)"]
    );
    // `c` lives apart from `a` and `b` but is in hard conflict with both:
    // 5 + 4 + 6.
    let clique = file(
        "clique.csv",
        "id,lower,upper,size,conflicts\na,0,2,5,c\nb,1,3,4,c\nc,5,6,6,\n",
    );
    assert_eq!(
        bound_lines(&clique, &[]),
        ["lower bound: 15 (3 buffers that can never share: live at t=1 or in conflict with all of those; co-live 9)"]
    );
    // The chain alone: the exact search proves 33 optimal.
    let chain = file("chain.csv", &chain_problem(0));
    assert_eq!(
        bound_lines(&chain, &[]),
        ["lower bound: 33 (proven by the exact search: no lower height fits; co-live 30)"]
    );
    // With the far buffers, the repair proves its window around the
    // chain optimal at 33: the chain and the 31 nearest buffers.
    let far = file("far.csv", &chain_problem(80));
    assert_eq!(
        bound_lines(&far, &[]),
        ["lower bound: 33 (repair: window [0, 131) proven, its 34 buffers fit no lower; co-live 30)"]
    );
    // First-fit proves nothing; the bound search refutes 30 on the window
    // of the chain's crowded instants (grain 3: 33 next), which the
    // placement meets.
    assert_eq!(
        bound_lines(&far, &["--solver", "first-fit", "--prove-bound", "100000"]),
        [
            "lower bound: 33 (refuted by the exact search on window [2, 7): its 3 buffers fit no lower; co-live 30)",
            "bound search: 1 height(s) refuted; at 33: 0 window(s) tried, 0 cut by the budget"
        ]
    );
    assert_eq!(
        bound_lines(&chain, &["--minimize", "--node-limit", "100000"]),
        ["lower bound: 33 (proven by the exact search: no lower height fits; co-live 30)"]
    );
}
