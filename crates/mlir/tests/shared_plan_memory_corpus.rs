//! Memory planning over the AscendNPU-IR lit corpus
//! (`../shared/reference/ascendnpu-ir/corpus`): every chunk that reads and
//! holds a `memref.alloc` inside a `func.func` either plans — the printed
//! result reads back and passes the independent check again — or fails with
//! one of the reference's diagnostics. Nothing panics.
//!
//! The chip is the chunk's `hacc.target`, else Ascend910B1; register-based
//! chips get `-hivm-plan-memory-regbase`. The counts are printed; the test
//! skips (with a `SKIPPED (no ../shared):` line on stderr) when the corpus is absent.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use tilemem_mlir::explain::explain_text;
use tilemem_mlir::memplan::{plan_text, PlanOutcome, PlanRequest};
use tilemem_mlir::parse::{parse_module, split_input, ParseOptions};
use tilemem_mlir::passes::plan_memory::optimal::Planner;
use tilemem_mlir::passes::plan_memory::Options;
use tilemem_mlir::plan_check::check_module;

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

/// The reference's messages (PlanMemory.cpp, regbase/PlanMemory.cpp,
/// AllocToPointerCast.cpp), and ours for a module without a device spec.
const REFERENCE_MESSAGES: &[&str] = &[
    "Alloc buffer not at UB space! ",
    "PlanMemory Fail : Unrecognized type of Operation touches local buffer!",
    "Failed to obtain op buffer shape size which should be static.",
    "'memref.alloc' op error: read before first write",
    "Currently only support (UB | L1 | L0C) allocation",
    "Temporarily unsupported memory buffer space !",
    "The buffer memory has been released and cannot be used again! ",
    "preload local buffer must be inside a loop-like op",
    "Use allocOp before defined!",
    "Unsupported loop parent for pointer cast op with multibuffer attribute",
    "PlanMemory Fail : SimtVFDynamicSize have to in range",
    "Alloc-like on SSBUF is not yet supported!",
];

fn is_reference_message(msg: &str) -> bool {
    REFERENCE_MESSAGES.iter().any(|r| msg.starts_with(r))
        || (msg.contains(" overflow, requires ") && msg.contains(" bits available!"))
}

/// Whether the chunk holds a `memref.alloc` inside a `func.func`.
fn has_alloc_in_func(text: &str) -> bool {
    let Ok(m) = parse_module(text, &ParseOptions::default()) else {
        return false;
    };
    m.funcs()
        .into_iter()
        .any(|f| m.walk(f).into_iter().any(|o| m.op(o).is("memref.alloc")))
}

/// The chunks of the corpus that hold a `memref.alloc` in a `func.func`,
/// as `(file:line, text)`; `None` when the corpus is absent.
fn alloc_chunks() -> Option<Vec<(String, String)>> {
    let dir = corpus_dir();
    if !dir.is_dir() {
        return None;
    }
    let mut files = Vec::new();
    mlir_files(&dir, &mut files);
    let mut out = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let rel = file
            .strip_prefix(&dir)
            .unwrap_or(file)
            .display()
            .to_string();
        for chunk in split_input(&text) {
            if !chunk.text.contains("memref.alloc") || !has_alloc_in_func(chunk.text) {
                continue;
            }
            out.push((
                format!("{rel}:{}", chunk.line_offset + 1),
                chunk.text.to_string(),
            ));
        }
    }
    Some(out)
}

/// Bytes used per (function, space) of a plan.
fn used(out: &PlanOutcome) -> BTreeMap<(String, String), u64> {
    out.functions
        .iter()
        .flat_map(|f| {
            f.spaces
                .iter()
                .map(|s| ((f.name.clone(), s.space.clone()), s.used))
        })
        .collect()
}

/// Slots (addresses) per buffer of a plan, in order, per (function,
/// space): a double buffer has two.
fn slots(out: &PlanOutcome) -> BTreeMap<(String, String), Vec<usize>> {
    out.functions
        .iter()
        .flat_map(|f| {
            f.spaces.iter().map(|s| {
                (
                    (f.name.clone(), s.space.clone()),
                    s.buffers.iter().map(|b| b.offsets.len()).collect(),
                )
            })
        })
        .collect()
}

/// `planner=optimal` against the reference's allocator on every chunk:
/// never more bytes in any (function, space), every buffer with as many
/// slots (a level-1 upgrade is never lost), the same chunks planned
/// except overflows it rescues. Prints the table of the comparison.
#[test]
fn shared_corpus_optimal_never_uses_more_bytes() {
    let Some(chunks) = alloc_chunks() else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_corpus_optimal_never_uses_more_bytes: the corpus is absent");
        return;
    };
    let optimal = PlanRequest {
        target: None,
        options: Options {
            planner: Planner::Optimal,
            ..Options::default()
        },
    };
    let (mut functions, mut spaces, mut smaller) = (0usize, 0usize, 0usize);
    let (mut bytes_ref, mut bytes_opt) = (0u64, 0u64);
    let (mut overflows, mut rescued) = (0usize, 0usize);
    let mut upgraded = 0usize;
    let mut problems = Vec::new();
    for (at, text) in &chunks {
        let reference = plan_text(text, &PlanRequest::default());
        let ours = plan_text(text, &optimal);
        match (reference, ours) {
            (Ok(r), Ok(o)) => {
                functions += r.functions.len();
                let (ur, uo) = (used(&r), used(&o));
                if slots(&r) != slots(&o) {
                    problems.push(format!("{at}: optimal changes the slots of a buffer"));
                }
                upgraded += r
                    .functions
                    .iter()
                    .flat_map(|f| f.spaces.iter())
                    .flat_map(|s| s.buffers.iter())
                    .filter(|b| b.offsets.len() > 1)
                    .count();
                for (key, &b) in &ur {
                    spaces += 1;
                    let Some(&x) = uo.get(key) else {
                        problems.push(format!("{at}: @{} {} not planned by optimal", key.0, key.1));
                        continue;
                    };
                    bytes_ref += b;
                    bytes_opt += x;
                    if x > b {
                        problems.push(format!(
                            "{at}: @{} {}: optimal {x} bytes > bishengir {b}",
                            key.0, key.1
                        ));
                    }
                    smaller += usize::from(x < b);
                }
            }
            (Err(r), ours) => {
                let overflow = r
                    .diagnostics
                    .iter()
                    .any(|d| d.message.contains(" overflow, requires "));
                overflows += usize::from(overflow);
                match ours {
                    Ok(_) if overflow => rescued += 1,
                    Ok(_) => problems.push(format!("{at}: optimal plans what bishengir refuses")),
                    Err(_) => {}
                }
            }
            (Ok(_), Err(e)) => problems.push(format!(
                "{at}: optimal fails where bishengir plans: {:?}",
                e.diagnostics.first().map(|d| &d.message)
            )),
        }
    }
    eprintln!("planner=optimal against planner=bishengir over the corpus:");
    eprintln!("  functions planned by both      {functions}");
    eprintln!("  (function, space) pairs        {spaces}");
    eprintln!("  total bytes, bishengir         {bytes_ref}");
    eprintln!("  total bytes, optimal           {bytes_opt}");
    eprintln!("  pairs where optimal is smaller {smaller}");
    eprintln!("  chunks bishengir overflows     {overflows}");
    eprintln!("  overflows optimal rescues      {rescued}");
    eprintln!("  buffers of several slots       {upgraded} (as many under both)");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn shared_corpus_plans_or_fails_with_the_reference_diagnostic() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_corpus_plans_or_fails_with_the_reference_diagnostic: {} is absent",
            dir.display()
        );
        return;
    }
    let mut files = Vec::new();
    mlir_files(&dir, &mut files);
    let (mut planned, mut refused, mut functions) = (0usize, 0usize, 0usize);
    let mut by_message: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems: Vec<String> = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let rel = file
            .strip_prefix(&dir)
            .unwrap_or(file)
            .display()
            .to_string();
        for chunk in split_input(&text) {
            if !chunk.text.contains("memref.alloc") || !has_alloc_in_func(chunk.text) {
                continue;
            }
            let at = format!("{rel}:{}", chunk.line_offset + 1);
            let result = catch_unwind(AssertUnwindSafe(|| {
                plan_text(chunk.text, &PlanRequest::default())
            }));
            match result {
                Err(_) => problems.push(format!("{at}: panicked")),
                Ok(Ok(out)) => {
                    planned += 1;
                    functions += out.functions.len();
                    match parse_module(&out.text, &ParseOptions::default()) {
                        Err(d) => problems.push(format!(
                            "{at}: the planned output does not read: {}",
                            d.message
                        )),
                        Ok(again) => {
                            let diags = check_module(&again, &|_| None);
                            // SIMT/MIX functions plan a smaller UB; the
                            // full UB is a looser bound, so any report
                            // here is a real overlap or misalignment.
                            for d in diags {
                                problems.push(format!(
                                    "{at}: re-read plan fails the check: {}",
                                    d.message
                                ));
                            }
                        }
                    }
                }
                Ok(Err(f)) => {
                    refused += 1;
                    let Some(err) = f
                        .diagnostics
                        .iter()
                        .find(|d| d.severity == tilemem_mlir::ir::Severity::Error)
                    else {
                        problems.push(format!("{at}: failed without an error"));
                        continue;
                    };
                    if !is_reference_message(&err.message) {
                        problems.push(format!("{at}: not a reference diagnostic: {}", err.message));
                    }
                    let key: String = err
                        .message
                        .split(|c: char| c.is_ascii_digit())
                        .next()
                        .unwrap_or("")
                        .to_string();
                    *by_message.entry(key).or_default() += 1;
                }
            }
        }
    }
    eprintln!(
        "plan-memory corpus: {planned} chunks planned ({functions} functions), {refused} refused"
    );
    for (m, n) in &by_message {
        eprintln!("  {n:4}  {m}");
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(planned >= 100, "only {planned} chunks planned");
}

/// `explain` on every chunk: no panic, and its lower bound is sound: a
/// space it proves over capacity is one the optimal planner does not
/// place either.
#[test]
fn shared_corpus_explains_and_its_bound_agrees_with_the_optimal_planner() {
    let Some(chunks) = alloc_chunks() else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_corpus_explains_and_its_bound_agrees_with_the_optimal_planner: the corpus is absent");
        return;
    };
    let optimal = PlanRequest {
        target: None,
        options: Options {
            planner: Planner::Optimal,
            ..Options::default()
        },
    };
    let (mut explained, mut over, mut problems) = (0usize, 0usize, Vec::new());
    for (at, text) in &chunks {
        let ex = match catch_unwind(AssertUnwindSafe(|| {
            explain_text(text, &PlanRequest::default(), true)
        })) {
            Ok(Ok(ex)) => ex,
            Ok(Err(_)) => continue,
            Err(_) => {
                problems.push(format!("{at}: explain panicked"));
                continue;
            }
        };
        explained += 1;
        let proven: Vec<_> = ex.spaces.iter().filter(|s| s.facts.proven_over()).collect();
        if proven.is_empty() {
            continue;
        }
        over += proven.len();
        if let Ok(o) = plan_text(text, &optimal) {
            for s in proven {
                if o.functions.iter().any(|f| {
                    f.name == s.facts.function && f.spaces.iter().any(|p| p.space == s.facts.space)
                }) {
                    problems.push(format!(
                        "{at}: @{} {} proven over capacity, yet placed",
                        s.facts.function, s.facts.space
                    ));
                }
            }
        }
    }
    eprintln!("explain: {explained} chunks explained, {over} spaces proven over capacity");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
