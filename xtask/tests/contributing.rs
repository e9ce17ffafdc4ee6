//! CONTRIBUTING.md stays true: every test file, bench, fuzz target, lit
//! test, Python test and generator it names exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The crate folder of a package name.
fn crate_dir(package: &str) -> Option<PathBuf> {
    let dir = match package {
        "tilemem" => "crates/cli",
        "xtask" => "xtask",
        p => return Some(root().join("crates").join(p.strip_prefix("tilemem-")?)),
    };
    Some(root().join(dir))
}

/// The word after `flag` in `line`.
fn after<'a>(line: &'a str, flag: &str) -> Option<&'a str> {
    let mut words = line.split_whitespace();
    words.by_ref().find(|w| *w == flag)?;
    words.next()
}

#[test]
fn what_contributing_names_exists() {
    let text = std::fs::read_to_string(root().join("CONTRIBUTING.md"))
        .expect("CONTRIBUTING.md at the repository root");
    let mut missing = Vec::new();
    let mut seen = 0;
    for line in text.lines() {
        let line = line.trim();
        if let Some(package) = after(line, "-p") {
            let Some(dir) = crate_dir(package).filter(|d| d.join("Cargo.toml").is_file()) else {
                missing.push(format!("crate {package}"));
                continue;
            };
            for (flag, sub) in [("--test", "tests"), ("--bench", "benches")] {
                if let Some(name) = after(line, flag) {
                    seen += 1;
                    if !dir.join(sub).join(format!("{name}.rs")).is_file() {
                        missing.push(format!("{package} {flag} {name}"));
                    }
                }
            }
        }
        if let Some(rest) = line.strip_prefix("fuzz/run.sh ") {
            for target in rest
                .split_whitespace()
                .skip(1)
                .take_while(|w| !w.starts_with('#'))
            {
                seen += 1;
                if !root()
                    .join("fuzz/fuzz_targets")
                    .join(format!("{target}.rs"))
                    .is_file()
                {
                    missing.push(format!("fuzz target {target}"));
                }
            }
        }
        for word in line.split(|c: char| c.is_whitespace() || c == '`' || c == '(' || c == ')') {
            let path = word.trim_end_matches([',', '.', ':']);
            if (path.starts_with("tests/lit/") || path.starts_with("python/tests/"))
                && path.contains('.')
            {
                seen += 1;
                if !root().join(path).is_file() {
                    missing.push(path.to_string());
                }
            }
        }
        if let Some(name) = after(line, "xtask").map(|n| n.trim_matches('`')) {
            seen += 1;
            let main = std::fs::read_to_string(root().join("xtask/src/main.rs")).unwrap();
            if !main.contains(&format!("Some(\"{name}\")")) {
                missing.push(format!("cargo xtask {name}"));
            }
        }
    }
    assert!(
        seen >= 10,
        "CONTRIBUTING.md names too few things to check ({seen})"
    );
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md names what does not exist: {missing:?}"
    );
}
