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

mod common;

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
fn scratch(name: &str) -> common::Scratch {
    let d = common::scratch("readme", name);
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

/// Every flag README's command table names for a command is one its help
/// lists, with each value the table offers for it (`--solver a\|b`).
#[test]
fn readme_command_table_matches_the_help() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let dir = scratch("table");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (n, row) in text.lines().enumerate() {
        let Some(rest) = row.strip_prefix("| `tilemem ") else {
            continue;
        };
        let command = rest.split([' ', '`']).next().unwrap();
        let help = sh(&dir, &format!("tilemem {command} --help"));
        let help = String::from_utf8_lossy(&help.stdout).to_string();
        let what = row.splitn(3, '|').nth(2).unwrap_or("");
        for quoted in what.split('`').skip(1).step_by(2) {
            let mut words = quoted.split_whitespace();
            let Some(flag) = words.next().filter(|w| w.starts_with('-') && w.len() > 1) else {
                continue;
            };
            // `-pass-pipeline=`, `-map=FILE.html`: the flag's name.
            let name = flag.split('=').next().unwrap();
            let listed = help.contains(&format!("{name} "))
                || help.contains(&format!("{name}="))
                || help.contains(&format!("{name},"))
                || help.contains(&format!("{name}\n"));
            if !listed {
                wrong.push(format!(
                    "README.md:{}: `{flag}` not in `tilemem {command} --help`",
                    n + 1
                ));
            }
            for value in words.next().into_iter().flat_map(|v| v.split("\\|")) {
                let value = value.trim_matches(|c: char| !c.is_ascii_alphanumeric());
                if value
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !help.contains(value)
                {
                    wrong.push(format!(
                        "README.md:{}: `{flag}` value `{value}` not in `tilemem {command} --help`",
                        n + 1
                    ));
                }
            }
            checked += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked >= 30, "{checked}");
}

/// The one-test commands of CONTRIBUTING.md name test files, modules and
/// name filters that exist (a filter that matches nothing runs nothing,
/// silently).
#[test]
fn contributing_test_commands_select_something() {
    let text = std::fs::read_to_string(root().join("CONTRIBUTING.md")).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| l.starts_with("cargo test -p ")) {
        let words: Vec<&str> = line.split('#').next().unwrap().split_whitespace().collect();
        let krate = words[3];
        let dir = match krate {
            "tilemem" => "cli".to_string(),
            "xtask" => "../xtask".to_string(),
            k => k.trim_start_matches("tilemem-").to_string(),
        };
        let base = root().join("crates").join(&dir);
        if let Some(i) = words.iter().position(|w| *w == "--test") {
            let file = base.join("tests").join(format!("{}.rs", words[i + 1]));
            let src =
                std::fs::read_to_string(&file).unwrap_or_else(|_| panic!("{line}: no {file:?}"));
            if let Some(filter) = words.get(i + 2).filter(|w| !w.starts_with('-')) {
                assert!(
                    src.lines()
                        .any(|l| l.trim_start().starts_with("fn ") && l.contains(filter)),
                    "{line}: no test in {file:?} has `{filter}` in its name"
                );
            }
        } else if let Some(i) = words.iter().position(|w| *w == "--lib") {
            let module = words[i + 1].trim_end_matches("::");
            let file = base.join("src").join(format!("{module}.rs"));
            assert!(file.is_file(), "{line}: no {file:?}");
        } else {
            assert!(base.is_dir(), "{line}: no crate folder {base:?}");
        }
        checked += 1;
    }
    assert!(checked >= 4, "{checked}");
}

/// Relative links and images of the documents point at files that exist,
/// and `#anchor` links at a heading of the same document.
#[test]
fn document_links_resolve() {
    let mut broken = Vec::new();
    for doc in [
        "README.md",
        "CONTRIBUTING.md",
        "docs/architecture.md",
        "python/README.md",
        "CHANGELOG.md",
    ] {
        let path = root().join(doc);
        let text = std::fs::read_to_string(&path).unwrap();
        let anchors: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| {
                l.trim_start_matches('#')
                    .trim()
                    .to_lowercase()
                    .chars()
                    .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                    .collect::<String>()
                    .replace(' ', "-")
            })
            .collect();
        for (n, line) in text.lines().enumerate() {
            for part in line.split("](").skip(1) {
                let target = part.split(')').next().unwrap_or("");
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let ok = match target.strip_prefix('#') {
                    Some(anchor) => anchors.iter().any(|a| a == anchor),
                    None => path
                        .parent()
                        .unwrap()
                        .join(target.split('#').next().unwrap())
                        .exists(),
                };
                if !ok {
                    broken.push(format!("{doc}:{}: ({target})", n + 1));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
