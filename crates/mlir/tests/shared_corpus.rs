//! The AscendNPU-IR lit corpus (`../shared/reference/ascendnpu-ir/corpus`):
//! every `// -----` chunk that is valid MLIR reads, and printing is a fixed
//! point (print, read, print again gives the same text). Chunks that hold
//! `expected-error` lines may be invalid on purpose: they must read or give
//! an error, never panic.
//!
//! Chunks the reader cannot read yet are listed, with the reason, in
//! `tests/corpus_unread.txt`; a chunk missing from that list that fails, or
//! a listed chunk that now reads, fails the test (so the list only shrinks).
//!
//! `CORPUS_BLESS=1 cargo test -p tilemem-mlir --test shared_corpus` rewrites
//! the list from the current reader.
//!
//! The test skips (with a `SKIPPED (no ../shared):` line on stderr,
//! written past the harness's capture) when the corpus is absent.

// A skip is written to stderr directly, past the harness's output capture.
use std::collections::BTreeSet;
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use tilemem_mlir::parse::{parse_module, split_input, ParseOptions};
use tilemem_mlir::print::print_module;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference/ascendnpu-ir/corpus")
}

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            mlir_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mlir") {
            out.push(p);
        }
    }
}

/// What happened to one chunk.
enum Outcome {
    /// Read, and print∘read is a fixed point.
    Ok,
    /// Read failed with this message.
    Unread(String),
    /// Read, but printing again changed the text (or the printed text did
    /// not read).
    NotFixed(String),
    /// The reader or printer panicked.
    Panic,
}

/// Time spent in the first read and print of every chunk (the fixed-point
/// check reads and prints again; that is not counted).
static FIRST_PASS_NANOS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn check_chunk(text: &str, line_offset: u32) -> Outcome {
    let opts = ParseOptions {
        allow_unregistered_dialect: true,
        line_offset,
    };
    let r = catch_unwind(AssertUnwindSafe(|| {
        let t0 = Instant::now();
        let m = parse_module(text, &opts);
        let p1 = m.as_ref().ok().map(print_module);
        FIRST_PASS_NANOS.fetch_add(
            t0.elapsed().as_nanos() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        let p1 = match (m, p1) {
            (Ok(_), Some(p1)) => p1,
            (Err(d), _) => return Outcome::Unread(d.render("chunk")),
            (Ok(_), None) => unreachable!(),
        };
        let opts0 = ParseOptions {
            allow_unregistered_dialect: true,
            line_offset: 0,
        };
        let m2 = match parse_module(&p1, &opts0) {
            Ok(m) => m,
            Err(d) => {
                return Outcome::NotFixed(format!(
                    "printed text does not read: {}\n{p1}",
                    d.render("printed")
                ))
            }
        };
        let p2 = print_module(&m2);
        if p1 != p2 {
            return Outcome::NotFixed(first_difference(&p1, &p2));
        }
        Outcome::Ok
    }));
    r.unwrap_or(Outcome::Panic)
}

fn first_difference(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  first:  {x}\n  second: {y}", i + 1);
        }
    }
    format!(
        "lengths differ ({} vs {} lines)",
        a.lines().count(),
        b.lines().count()
    )
}

fn known_unread() -> BTreeSet<String> {
    let text = include_str!("corpus_unread.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn shared_corpus_reads_and_prints_to_a_fixed_point() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_corpus_reads_and_prints_to_a_fixed_point: {} is absent",
            dir.display()
        );
        return;
    }
    let mut files = Vec::new();
    mlir_files(&dir, &mut files);
    assert!(!files.is_empty(), "no .mlir files under {}", dir.display());
    let known = known_unread();
    let verbose = std::env::var_os("CORPUS_VERBOSE").is_some();
    let bless = std::env::var_os("CORPUS_BLESS").is_some();
    let start = Instant::now();
    let (mut valid, mut valid_ok, mut invalid, mut invalid_err) = (0usize, 0usize, 0usize, 0usize);
    let (mut files_ok, mut problems) = (0usize, Vec::new());
    let mut still_unread = std::collections::BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(&dir).unwrap().display().to_string();
        let text = std::fs::read_to_string(f).unwrap();
        let mut file_ok = true;
        for (i, chunk) in split_input(&text).iter().enumerate() {
            let key = format!("{rel}#{}", i + 1);
            let expects_error = chunk.text.contains("expected-error");
            let outcome = check_chunk(chunk.text, chunk.line_offset);
            if let Outcome::Panic = outcome {
                problems.push(format!("{key}: panic"));
                file_ok = false;
                continue;
            }
            if expects_error {
                invalid += 1;
                if let Outcome::Unread(_) = outcome {
                    invalid_err += 1;
                }
                continue;
            }
            valid += 1;
            match outcome {
                Outcome::Ok => {
                    valid_ok += 1;
                    if known.contains(&key) && !bless {
                        problems.push(format!(
                            "{key}: reads now; remove it from corpus_unread.txt"
                        ));
                    }
                }
                Outcome::Unread(msg) | Outcome::NotFixed(msg) => {
                    file_ok = false;
                    let reason = msg.lines().next().unwrap_or("").to_string();
                    still_unread.insert(key.clone(), reason);
                    if verbose {
                        eprintln!("{key}:\n{msg}");
                    }
                    if !known.contains(&key) && !bless {
                        problems.push(format!("{key}: {msg}"));
                    }
                }
                Outcome::Panic => unreachable!(),
            }
        }
        if file_ok {
            files_ok += 1;
        }
    }
    eprintln!(
        "corpus: {valid_ok}/{valid} valid chunks read and print to a fixed point; \
         {files_ok}/{} files wholly; {invalid_err}/{invalid} expected-error chunks give a read error \
         (the others are verifier errors), no panics; first read+print {:.3} s, whole test {:.3} s",
        files.len(),
        FIRST_PASS_NANOS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e9,
        start.elapsed().as_secs_f64()
    );
    if bless {
        let mut text = String::from(
            "# Corpus chunks (file#chunk, 1-based) that do not read or print to a\n\
             # fixed point yet, with the first line of the reason.\n",
        );
        for (k, why) in &still_unread {
            text.push_str(&format!("{k} {why}\n"));
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus_unread.txt");
        std::fs::write(&path, text).unwrap();
        eprintln!("wrote {}", path.display());
    }
    assert!(
        problems.is_empty(),
        "{} corpus problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The same corpus through `opt`: every chunk that reads (and expects no
/// error) goes through each pass alone and through all four in order;
/// each output a pipeline gives prints, reads back and prints to the same
/// text (print ∘ read is a fixed point after every pipeline), and no pass
/// panics.
#[test]
fn shared_corpus_pass_outputs_print_to_a_fixed_point() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_corpus_pass_outputs_print_to_a_fixed_point: {} is absent",
            dir.display()
        );
        return;
    }
    let mut files = Vec::new();
    mlir_files(&dir, &mut files);
    let names: Vec<&str> = tilemem_mlir::passes::registry()
        .iter()
        .map(|p| p.name())
        .collect();
    let mut pipelines: Vec<Vec<&str>> = names.iter().map(|&n| vec![n]).collect();
    pipelines.push(names.clone());
    let opts = ParseOptions {
        allow_unregistered_dialect: true,
        line_offset: 0,
    };
    let (mut runs, mut ran, mut problems) = (0usize, 0usize, Vec::new());
    for f in &files {
        let rel = f.strip_prefix(&dir).unwrap().display().to_string();
        let text = std::fs::read_to_string(f).unwrap();
        for (i, chunk) in split_input(&text).iter().enumerate() {
            if chunk.text.contains("expected-error") {
                continue;
            }
            let Ok(module) = parse_module(chunk.text, &opts) else {
                continue;
            };
            for pipeline in &pipelines {
                let key = format!("{rel}#{} {}", i + 1, pipeline.join(","));
                let passes: Vec<_> = pipeline
                    .iter()
                    .filter_map(|n| tilemem_mlir::passes::lookup(n))
                    .collect();
                let mut m = module.clone();
                let r = catch_unwind(AssertUnwindSafe(|| {
                    let (_, ok) = tilemem_mlir::pass::run_pipeline(&passes, &mut m);
                    ok.then(|| print_module(&m))
                }));
                runs += 1;
                let once = match r {
                    Err(_) => {
                        problems.push(format!("{key}: panic"));
                        continue;
                    }
                    Ok(None) => continue, // the pipeline refused the input
                    Ok(Some(p)) => p,
                };
                ran += 1;
                match parse_module(&once, &opts) {
                    Err(d) => problems.push(format!(
                        "{key}: output does not read back: {}",
                        d.render("printed")
                    )),
                    Ok(back) => {
                        let twice = print_module(&back);
                        if twice != once {
                            problems.push(format!("{key}: {}", first_difference(&once, &twice)));
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "corpus through opt: {ran}/{runs} pipeline runs succeeded, each output a fixed point"
    );
    assert!(ran > 100, "only {ran} pipeline runs succeeded");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
