//! The documentation's commands, run as written, so that it cannot drift
//! from what the binary does:
//!
//! - every ```` ```text ```` block of README.md that starts with `$ tilemem
//!   ...` is run, and what it shows must be what the command prints
//!   (standard error, then standard output, as a terminal shows them when
//!   the summary comes first), exactly, except that a line `...` stands
//!   for any lines and a `...` inside a line for any text;
//! - every `tilemem` line of a ```` ```sh ```` block of README.md runs
//!   (in order, in a scratch copy of `examples/`) and exits 0, the opening
//!   `cargo run ... --` command included; lines that need `../shared` or
//!   other tools are left to their own suites;
//! - every repository path the documents name in backquotes exists;
//! - the examples of `tilemem --help` run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A fenced block: its info string, the line it starts on, its lines.
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, l) in text.lines().enumerate() {
        if let Some(rest) = l.strip_prefix("```") {
            match open.take() {
                Some(b) => out.push(b),
                None => {
                    open = Some(Block {
                        info: rest.trim().to_string(),
                        line: i + 1,
                        lines: Vec::new(),
                    })
                }
            }
        } else if let Some(b) = open.as_mut() {
            b.lines.push(l.to_string());
        }
    }
    out
}

/// A scratch folder holding a copy of `examples/`, where documented
/// commands may write (`out/`) without touching the checkout.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tilemem-readme-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    copy_dir(&root().join("examples"), &d.join("examples"));
    d
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// Runs a shell command line in `dir` with the built `tilemem` first on
/// PATH.
fn sh(dir: &Path, line: &str) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_tilemem")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap()
}

/// Whether `actual` is what `expected` shows: a line `...` matches any
/// lines (none included), a `...` inside a line any text.
fn matches(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e.trim() == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((e, rest)) => match actual.split_first() {
            Some((a, arest)) => line_matches(e, a) && matches(rest, arest),
            None => false,
        },
    }
}

fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("...").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || !actual[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn line_patterns() {
    assert!(matches(&["a", "...", "d"], &["a", "b", "c", "d"]));
    assert!(matches(&["a", "...", "b"], &["a", "b"]));
    assert!(!matches(&["a", "...", "d"], &["a", "b"]));
    assert!(line_matches("x (y: ...)", "x (y: long words)"));
    assert!(!line_matches("x (y: ...)", "x (z: long words)"));
    assert!(line_matches("a...b...c", "a1b2c"));
    assert!(!line_matches("a...b...c", "a1c"));
}

/// The `$ tilemem ...` blocks of a document, each shown output checked.
fn check_shown_outputs(doc: &str) -> usize {
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let dir = scratch(&doc.replace(['/', '.'], "-"));
    let mut checked = 0;
    let mut failures = Vec::new();
    for b in blocks(&text).iter().filter(|b| b.info == "text") {
        let Some(cmd) = b.lines.first().and_then(|l| l.strip_prefix("$ ")) else {
            continue;
        };
        let o = sh(&dir, cmd);
        let shown = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stderr),
            String::from_utf8_lossy(&o.stdout)
        );
        let expected: Vec<&str> = b.lines[1..].iter().map(String::as_str).collect();
        let actual: Vec<&str> = shown.lines().collect();
        if !matches(&expected, &actual) {
            failures.push(format!(
                "{doc}:{}: `{cmd}` printed:\n{shown}\n--- but the document shows:\n{}\n",
                b.line,
                expected.join("\n")
            ));
        }
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn readme_shows_what_the_commands_print() {
    assert!(check_shown_outputs("README.md") >= 4);
}

/// The lines of README's `sh` blocks that run `tilemem` (the opening
/// `cargo run` included), with the lines before them that prepare the
/// folder (`mkdir`).
fn readme_command_lines() -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut out = Vec::new();
    for b in blocks(&text).iter().filter(|b| b.info == "sh") {
        for (i, l) in b.lines.iter().enumerate() {
            let l = l.replace("cargo run --release -p tilemem -- ", "tilemem ");
            let needs_other = l.contains("../shared") || l.trim_end().ends_with('\\');
            if (l.starts_with("tilemem ") || l.starts_with("mkdir ")) && !needs_other {
                out.push((b.line + 1 + i, l));
            }
        }
    }
    out
}

#[test]
fn readme_commands_run() {
    let lines = readme_command_lines();
    let first = &lines[0].1;
    assert_eq!(
        first, "tilemem plan examples/pto/vector_chain.py --target 910b",
        "README must open with the command that plans a bundled example"
    );
    assert!(lines.len() >= 8, "{lines:?}");
    let dir = scratch("commands");
    for (line, cmd) in &lines {
        let o = sh(&dir, cmd);
        assert!(
            o.status.success(),
            "README.md:{line}: `{cmd}` exited {:?}:\n{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // What the examples say they write is there.
    for f in [
        "out/r.json",
        "out/map.html",
        "out/hivm.html",
        "out/placed.csv",
    ] {
        assert!(dir.join(f).is_file(), "{f} not written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Repository paths named in backquotes in the documents (`crates/...`,
/// `examples/...`, a module path such as `passes/init_memref.rs` found
/// somewhere under `crates/`) exist.
#[test]
fn documented_paths_exist() {
    let root = root();
    let roots = [
        "crates/",
        "examples/",
        "docs/",
        "tests/",
        "python/",
        "fuzz/",
        ".ci/",
        "xtask/",
    ];
    let mut missing = Vec::new();
    for doc in [
        "README.md",
        "CONTRIBUTING.md",
        "docs/architecture.md",
        "python/README.md",
    ] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for (n, line) in text.lines().enumerate() {
            for quoted in line.split('`').skip(1).step_by(2) {
                let path = quoted.split_whitespace().next().unwrap_or("");
                let is_path = path.contains('/')
                    && !path.contains(['<', '>', '*', '(', '=', '|', '{', '#'])
                    && !path.contains("TARGET")
                    && (roots.iter().any(|r| path.starts_with(r)) || path.ends_with(".rs"));
                if !is_path || quoted.contains(' ') && !roots.iter().any(|r| path.starts_with(r)) {
                    continue;
                }
                let found = root.join(path).exists()
                    || path.ends_with(".rs") && found_under(&root.join("crates"), path);
                if !found {
                    missing.push(format!("{doc}:{}: `{path}`", n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}

/// Whether some file under `dir` ends with `/suffix`.
fn found_under(dir: &Path, suffix: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let p = e.path();
        if p.to_string_lossy().ends_with(&format!("/{suffix}")) {
            return true;
        }
        p.is_dir() && !p.ends_with("target") && found_under(&p, suffix)
    })
}

/// The commands the help of `tilemem` and of each command gives as
/// examples run from the repository root and exit 0.
#[test]
fn help_examples_run() {
    let dir = scratch("help");
    let mut ran = 0;
    for command in ["", "plan", "explain", "fmt", "validate", "bench", "opt"] {
        let o = sh(&dir, &format!("tilemem {command} --help"));
        assert!(o.status.success(), "tilemem {command} --help");
        let help = String::from_utf8_lossy(&o.stdout).to_string();
        let examples: Vec<&str> = help
            .lines()
            .skip_while(|l| !l.to_ascii_lowercase().starts_with("examples"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(str::trim)
            .collect();
        assert!(
            !examples.is_empty(),
            "no examples in `tilemem {command} --help`:\n{help}"
        );
        for cmd in examples {
            let o = sh(&dir, cmd);
            assert!(
                o.status.success(),
                "`{cmd}` from `tilemem {command} --help` exited {:?}:\n{}",
                o.status.code(),
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 15, "{ran}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tilemem help opt` prints opt's own help (clap's stub for it listed no
/// flag at all).
#[test]
fn help_opt_is_opts_help() {
    let dir = scratch("help-opt");
    let a = sh(&dir, "tilemem help opt");
    let b = sh(&dir, "tilemem opt --help");
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert!(String::from_utf8_lossy(&a.stdout).contains("-hivm-plan-memory "));
    let _ = std::fs::remove_dir_all(&dir);
}
