//! `tilemem opt`: an mlir-opt style driver for the HIVM passes.
//!
//! `tilemem opt [pass flags] [-split-input-file] [-allow-unregistered-dialect]
//! [-o FILE] FILE.mlir|-` reads the input, runs the passes in flag order and
//! prints the result in MLIR's canonical form. With `-split-input-file` each
//! `// -----` chunk is processed on its own and the outputs are joined by
//! `// -----`. Diagnostics go to stderr as `file:line:col: error: message`
//! followed by the source line. Exit codes: 0 success, 1 a pass failed
//! (signalled failure; an error a pass only emits, such as `unsupport
//! flatten op`, is printed and the module still is, with exit 0, as
//! mlir-opt does), 2 bad input (unreadable file, syntax error, unknown flag
//! or option value, a program a pass rejects, such as a dynamic-shaped
//! allocation `-hivm-plan-memory` cannot plan, an op
//! `-hivm-mark-stride-align` finds not bufferized, or a stride mark
//! `-hivm-enable-stride-align` cannot satisfy), 3 internal error (the
//! independent check refused a plan the passes made: a bug). With
//! `-verify-diagnostics` the diagnostics are checked against
//! `// expected-error {{...}}` comments instead of printed, and only a
//! mismatch fails the run.

use std::io::{Read, Write};
use std::process::ExitCode;

use tilemem_mlir::ir::Diagnostic;
use tilemem_mlir::parse::{parse_module, split_input, ParseOptions};
use tilemem_mlir::pass::{Pass, PassContext};
use tilemem_mlir::passes::registry;
use tilemem_mlir::print::print_module;
use tilemem_mlir::verify::{expectations, verify};

use tilemem_mlir::explain::explain_module;
use tilemem_mlir::memplan::PlanRequest;
use tilemem_mlir::passes::plan_memory::map::SpacePlacement;

use crate::input_kind::{self, InputKind};
use crate::output::Outputs;
use crate::plan::MapFormat;

/// Whether `p` is one of the plan-memory passes.
fn is_plan_memory(p: &dyn Pass) -> bool {
    matches!(p.name(), "hivm-plan-memory" | "hivm-plan-memory-regbase")
}

/// Stages the memory map of `placements` for `path` in `o` (HTML or SVG
/// by its extension); `planner` names the planner. A function that
/// overflowed is drawn beyond its capacity, and the map says so under its
/// title.
pub fn stage_map(
    o: &mut Outputs<'_>,
    path: &str,
    file: &str,
    text: &str,
    placements: &[SpacePlacement],
    planner: Option<&str>,
) -> Result<(), String> {
    let Some(planner) = planner else {
        return Err(format!(
            "no memory map written to '{path}': no -hivm-plan-memory pass ran"
        ));
    };
    let format = MapFormat::of(std::path::Path::new(path))?;
    let over: Vec<String> = placements
        .iter()
        .filter_map(|s| {
            let drawn = s.drawn_capacity?;
            Some(format!(
                "@{}/{} needs {} of {} bytes (drawn as planned with {drawn})",
                s.function, s.space, s.used, s.capacity
            ))
        })
        .collect();
    let note = (!over.is_empty()).then(|| {
        format!(
            "does not fit; drawn as planned with larger capacities against the real ones: {}",
            over.join("; ")
        )
    });
    match format {
        MapFormat::Html => {
            let doc = crate::map_model::mlir_doc(file, placements, planner, text, note);
            o.add(path, crate::html_map::render(&doc));
        }
        MapFormat::Svg => {
            let mut svg = Vec::new();
            crate::map_model::write_mlir_svg(placements, file, &mut svg)
                .map_err(|e| e.to_string())?;
            o.add(path, svg);
        }
    }
    Ok(())
}

/// One `memref.alloc`: source position, type text and bytes.
struct AllocInfo {
    line: u32,
    col: u32,
    ty: String,
    bytes: Option<u64>,
}

/// The `memref.alloc` results of a module.
fn allocs(m: &tilemem_mlir::ir::Module) -> Vec<AllocInfo> {
    let mut out = Vec::new();
    for op in m.all_ops() {
        let d = m.op(op);
        if !d.is("memref.alloc") {
            continue;
        }
        let Some(v) = d.result(0) else { continue };
        let ty = m.value_type(v);
        let bytes = ty.shape().and_then(|shape| {
            let bits = u64::from(ty.element_type()?.bit_width()?);
            let elems = shape
                .iter()
                .try_fold(1u64, |a, &n| a.checked_mul(u64::try_from(n).ok()?))?;
            Some((elems * bits).div_ceil(8))
        });
        out.push(AllocInfo {
            line: d.loc.line,
            col: d.loc.col,
            ty: ty.to_string(),
            bytes,
        });
    }
    out
}

/// One line per allocation whose size the passes changed, matched by
/// source position.
fn padding(before: &[AllocInfo], after: &[AllocInfo]) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for a in after {
        let Some(b) = before
            .iter()
            .find(|b| (b.line, b.col) == (a.line, a.col) && b.line > 0)
        else {
            continue;
        };
        if b.bytes == a.bytes {
            continue;
        }
        let n = |x: Option<u64>| x.map_or("?".to_string(), |x| x.to_string());
        out.push((
            format!(
                "line {}: {} -> {}: {} -> {} bytes",
                a.line,
                b.ty,
                a.ty,
                n(b.bytes),
                n(a.bytes)
            ),
            b.bytes.unwrap_or(0),
            a.bytes.unwrap_or(0),
        ));
    }
    out
}

/// Parsed command line.
struct Options {
    passes: Vec<Box<dyn Pass>>,
    split: bool,
    allow_unregistered: bool,
    verify: bool,
    output: Option<String>,
    input: Option<String>,
    quiet: bool,
    debug_only: Vec<String>,
    /// `-map=FILE.html|svg`: the memory map of the plan-memory passes.
    map: Option<String>,
}

enum Parsed {
    Run(Options),
    Help,
    Version,
    ListPasses,
}

fn usage() -> String {
    let mut s = String::from(
        "OVERVIEW: tilemem opt: run HIVM MLIR passes (mlir-opt conventions)\n\n\
         USAGE: tilemem opt [options] [pass flags] <input file|->\n\n\
         OPTIONS:\n  \
         -split-input-file            Split the input at '// -----' and process each chunk independently\n  \
         -allow-unregistered-dialect  Allow operations of unknown dialects\n  \
         -pass-pipeline=<pipeline>    Passes as an MLIR pipeline string, e.g. 'builtin.module(hivm-mark-stride-align)'\n  \
         -verify-diagnostics          Check diagnostics against '// expected-error {{...}}' comments\n  \
         -o <file>                    Output file (default: stdout)\n  \
         -debug-only=<type>[,<type>]  Print the debug trace of the given debug types on stderr (vf-inplace-reuse, hivm-plan-memory)\n  \
         -q, -quiet                   Do not print the summary (padded allocations, planned spaces) nor the explanation of an overflow on stderr\n  \
         -map=<FILE.html|FILE.svg>    Draw the memory map of -hivm-plan-memory(-regbase) into this file (an overflowing function is drawn beyond its capacity)\n  \
         -list-passes                 List the passes and exit\n  \
         -version                     Show the version and exit\n  \
         -h, --help                   Show this help\n\n\
         TARGET:\n  \
         The chip is read from the module attribute hacc.target, e.g.\n  \
           module attributes {hacc.target = #hacc.target<\"Ascend950PR_9589\">} {...}\n  \
         Ascend950* and Ascend910_95* select Ascend950 (register-based vector units),\n  \
         Ascend310B* the other register-based chip; any other value, or a module without\n  \
         hacc.target, selects the default: Ascend910B (A2/A3, memory-based vector units).\n  \
         The target travels with the IR: -hacc-append-device-spec=target=CHIP writes it\n  \
         (with the chip's buffer sizes, which -hivm-plan-memory needs) when the module\n  \
         lacks it; there is no --target flag.\n\n\
         SUMMARY:\n  \
         Unless -quiet, each allocation the passes padded is listed on stderr as\n  \
         'line L: TYPE BEFORE -> TYPE AFTER: B -> A bytes', then the total; after\n  \
         -hivm-plan-memory(-regbase), each (function, space) placed within capacity as\n  \
         'FUNC/SPACE: USED / CAPACITY bytes (P %), lower bound LB, allocations N -> M\n  \
         buffers, planner NAME'. After an overflow error, a short explanation: the peak\n  \
         op, the largest allocations live there, whether the lower bound proves that\n  \
         nothing fits, and the best remedy found by re-planning ('tilemem explain FILE'\n  \
         tells the whole story).\n\n\
         INPUT:\n  \
         Bufferized HIVM: memref.alloc with an on-chip address space\n  \
         (memref<..., #hivm.address_space<ub>>, cbuf, ca, cb, cc). A PyPTO program\n  \
         goes to `tilemem plan`, a placement problem (CSV) to `tilemem solve`.\n\n\
",
    );
    s.push_str(crate::exit::TABLE);
    s.push_str(
        "\n  \
         In opt, a pass error that does not fail the pass is printed and the module\n  \
         still is, with exit 0, as in mlir-opt; a pass that fails on a module it\n  \
         accepts (an overflow, rewrites that do not converge) is exit 1, one that\n  \
         rejects the module exit 2.\n\n\
         EXAMPLES (from the repository root):\n  \
         tilemem opt -hivm-mark-stride-align -hivm-enable-stride-align examples/mlir/unaligned_rows.mlir\n  \
         tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory examples/mlir/unaligned_rows.mlir\n  \
         tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory=planner=optimal examples/mlir/unaligned_rows.mlir\n  \
         tilemem opt -pass-pipeline='builtin.module(hivm-mark-stride-align,hivm-enable-stride-align)' examples/mlir/unaligned_rows.mlir\n\n\
         PASSES (run in the order given):\n",
    );
    for p in registry() {
        s.push_str(&format!("  -{:<32} {}\n", p.name(), p.description()));
        for (o, d) in p.options() {
            s.push_str(&format!("      {:<30} {}\n", format!("{o}=<value>"), d));
        }
    }
    s.push_str(
        "\nPASS OPTIONS:\n  \
         -pass=name=value,... is not the syntax; options are separated by spaces:\n  \
         -hivm-plan-memory=\"mem-plan-mode=global-work-space-plan enable-global-workspace-reuse=true\"\n  \
         or, in a pipeline, 'builtin.module(hivm-plan-memory{restrict-inplace-as-isa=true})'.\n",
    );
    s
}

/// The registered pass named `name`, configured with the option list
/// `options` (MLIR's `name=value name2=value2`).
fn configured_pass(name: &str, options: &str) -> Result<Box<dyn Pass>, String> {
    let Some(mut p) = registry().into_iter().find(|p| p.name() == name) else {
        return Err(format!(
            "Unknown command line argument '-{name}'. Try: 'tilemem opt --help'\n{}",
            known_passes()
        ));
    };
    p.set_options(options)?;
    Ok(p)
}

/// What to do instead of an unknown flag: the flags of `plan` that `opt`
/// spells differently, a pass one or two letters away, or the list of
/// passes.
fn unknown_flag_hint(flag: &str) -> String {
    match flag {
        "target" | "soc" | "chip" => {
            return "the chip travels with the IR: add -hacc-append-device-spec=target=Ascend910B1 \
                    (or another chip name) before the plan-memory pass, or set hacc.target on the module"
                .to_string()
        }
        "planner" => {
            return "the planner is an option of the plan-memory pass: -hivm-plan-memory=planner=optimal"
                .to_string()
        }
        _ => {}
    }
    let near = registry()
        .into_iter()
        .map(|p| (edit_distance(p.name(), flag), p.name().to_string()))
        .min()
        .filter(|(d, _)| *d <= 2)
        .map(|(_, name)| name);
    match near {
        Some(name) => format!("did you mean -{name}?"),
        None => known_passes(),
    }
}

/// Levenshtein distance of two short flag names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != cb)).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

fn known_passes() -> String {
    let names: Vec<String> = registry()
        .iter()
        .map(|p| format!("-{}", p.name()))
        .collect();
    if names.is_empty() {
        "known passes: (none)".to_string()
    } else {
        format!("known passes: {}", names.join(", "))
    }
}

/// The passes of a textual pipeline such as
/// `builtin.module(func.func(hivm-mark-stride-align),hivm-plan-memory{restrict-inplace-as-isa=true})`,
/// as `(name, options)`. Op anchors (a name followed by `(`) are
/// flattened away: every pass here runs over the whole module.
fn pipeline_passes(text: &str) -> Result<Vec<(String, String)>, String> {
    let text = text.trim().trim_matches(|c| c == '"' || c == '\'');
    let bytes = text.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'-' | b'.'))
            {
                i += 1;
            }
            let name = &text[start..i];
            match bytes.get(i) {
                Some(b'(') => {}
                Some(b'{') => {
                    let Some(close) = text[i..].find('}') else {
                        return Err(format!(
                            "unterminated options of '{name}' in -pass-pipeline"
                        ));
                    };
                    names.push((name.to_string(), text[i + 1..i + close].to_string()));
                    i += close + 1;
                }
                _ => names.push((name.to_string(), String::new())),
            }
        } else if matches!(c, b'(' | b')' | b',' | b' ') {
            i += 1;
        } else {
            return Err(format!(
                "unexpected '{}' in -pass-pipeline '{text}'",
                c as char
            ));
        }
    }
    Ok(names)
}

fn parse_args(args: &[String]) -> Result<Parsed, String> {
    let mut o = Options {
        passes: Vec::new(),
        split: false,
        allow_unregistered: false,
        verify: false,
        output: None,
        input: None,
        quiet: false,
        debug_only: Vec::new(),
        map: None,
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "-" || !a.starts_with('-') {
            if let Some(prev) = &o.input {
                return Err(format!(
                    "too many input files: '{prev}' and '{a}' (give one file, or '-' for stdin)"
                ));
            }
            o.input = Some(a.clone());
            continue;
        }
        let flag = a.trim_start_matches('-');
        let (flag, value) = match flag.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (flag, None),
        };
        match flag {
            "h" | "help" => return Ok(Parsed::Help),
            "version" | "V" => return Ok(Parsed::Version),
            "list-passes" => return Ok(Parsed::ListPasses),
            "q" | "quiet" => o.quiet = true,
            "split-input-file" => o.split = true,
            "allow-unregistered-dialect" => o.allow_unregistered = true,
            "verify-diagnostics" => o.verify = true,
            "pass-pipeline" => {
                let v = match value {
                    Some(v) => v,
                    None => {
                        let Some(v) = args.get(i) else {
                            return Err("option '-pass-pipeline' needs a value".to_string());
                        };
                        i += 1;
                        v.clone()
                    }
                };
                for (name, options) in pipeline_passes(&v)? {
                    if !registry().iter().any(|p| p.name() == name) {
                        return Err(format!(
                            "unknown pass '{name}' in -pass-pipeline\n{}",
                            known_passes()
                        ));
                    }
                    o.passes.push(configured_pass(&name, &options)?);
                }
            }
            "debug-only" => {
                let Some(v) = value else {
                    return Err("option '-debug-only' needs a value (-debug-only=TYPE)".to_string());
                };
                o.debug_only.extend(
                    v.trim_matches('"')
                        .split(',')
                        .map(|t| t.trim().to_string())
                        .filter(|t| !t.is_empty()),
                );
            }
            "map" => {
                let v = match value {
                    Some(v) => v,
                    None => {
                        let Some(v) = args.get(i) else {
                            return Err("option '-map' needs a file name (FILE.html or FILE.svg)"
                                .to_string());
                        };
                        i += 1;
                        v.clone()
                    }
                };
                MapFormat::of(std::path::Path::new(&v))?;
                o.map = Some(v);
            }
            "o" => {
                let v = match value {
                    Some(v) => v,
                    None => {
                        let Some(v) = args.get(i) else {
                            return Err("option '-o' needs a file name".to_string());
                        };
                        i += 1;
                        v.clone()
                    }
                };
                o.output = Some(v);
            }
            _ => {
                if !registry().iter().any(|p| p.name() == flag) {
                    return Err(format!(
                        "Unknown command line argument '{a}'. Try: 'tilemem opt --help'\n{}",
                        unknown_flag_hint(flag)
                    ));
                }
                o.passes
                    .push(configured_pass(flag, value.as_deref().unwrap_or(""))?);
            }
        }
    }
    if let Some(map) = &o.map {
        if !o.passes.iter().any(|p| is_plan_memory(p.as_ref())) {
            return Err(format!(
                "-map={map} draws the plan of -hivm-plan-memory or -hivm-plan-memory-regbase: add one of them"
            ));
        }
    }
    Ok(Parsed::Run(o))
}

/// Renders a diagnostic MLIR-style, with the source line and a caret.
/// `source`: the `file:line:col` the op's `loc(...)` leads to, when the
/// input carries one; the diagnostic is then located there, as MLIR
/// reports it, and a note gives its place in the IR.
fn render(d: &Diagnostic, file: &str, text: &str, source: Option<&str>) -> String {
    if let Some(at) = source {
        let note = Diagnostic {
            severity: tilemem_mlir::ir::Severity::Note,
            message: "the operation in the IR".to_string(),
            notes: d.notes.clone(),
            ..d.clone()
        };
        return format!(
            "{at}: {}: {}\n{}",
            d.severity,
            d.message,
            render(&note, file, text, None)
        );
    }
    let mut out = String::new();
    let one = |d: &Diagnostic, out: &mut String| {
        let head = Diagnostic {
            notes: Vec::new(),
            ..d.clone()
        };
        out.push_str(&head.render(file));
        out.push('\n');
        if d.loc.is_known() {
            if let Some(line) = text.lines().nth(d.loc.line as usize - 1) {
                out.push_str(line);
                out.push('\n');
                let pad: String = line
                    .chars()
                    .take(d.loc.col.saturating_sub(1) as usize)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                out.push_str(&pad);
                out.push_str("^\n");
            }
        }
    };
    one(d, &mut out);
    for n in &d.notes {
        one(n, &mut out);
    }
    out
}

/// Runs the driver on the arguments after `opt`.
pub fn run(args: &[String]) -> ExitCode {
    let opts = match parse_args(args) {
        Ok(Parsed::Help) => {
            print!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Version) => {
            println!("tilemem-opt {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::ListPasses) => {
            for p in registry() {
                println!("{:<32} {}", p.name(), p.description());
            }
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Run(o)) => o,
        Err(msg) => {
            eprintln!("tilemem opt: {msg}");
            return ExitCode::from(2);
        }
    };
    let Some(input) = opts.input.as_deref() else {
        eprintln!("tilemem opt: no input file (give a .mlir file, or '-' for stdin)");
        return ExitCode::from(2);
    };
    let (file, text) = if input == "-" {
        let mut s = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut s) {
            eprintln!("tilemem opt: cannot read stdin: {e}");
            return ExitCode::from(2);
        }
        ("<stdin>".to_string(), s)
    } else {
        match input_kind::read_text(std::path::Path::new(input), input, InputKind::Mlir) {
            Ok(s) => (input.to_string(), s),
            Err(input_kind::TextError::Kind(msg)) => {
                eprintln!("{msg}");
                return ExitCode::from(2);
            }
            Err(input_kind::TextError::Io(e)) => {
                eprintln!("tilemem opt: cannot read '{input}': {e}");
                return ExitCode::from(2);
            }
        }
    };
    let chunks = if opts.split {
        split_input(&text)
    } else {
        vec![tilemem_mlir::parse::Chunk {
            text: &text,
            line_offset: 0,
        }]
    };
    // Per chunk: what its passes wrote to standard output, and the module
    // (none when the passes failed).
    let mut outputs: Vec<(String, Option<String>)> = Vec::new();
    let mut bad_input = false;
    let mut failed = false;
    // A pass's own check refused its result (exit 3).
    let mut internal = false;
    let mut stderr = String::new();
    let mut padded: Vec<(String, u64, u64)> = Vec::new();
    let mut debug = String::new();
    // Summary lines passes report (the optimal planner's choices).
    let mut notes: Vec<String> = Vec::new();
    // What the plan-memory passes placed (the map), and the planner.
    let mut placements: Vec<SpacePlacement> = Vec::new();
    let mut planner_name: Option<String> = None;
    let mut explanations: Vec<String> = Vec::new();
    // Why a plan-memory pass found nothing to place (tensors, not buffers).
    let mut nothing: Vec<String> = Vec::new();
    for chunk in chunks {
        let popts = ParseOptions {
            allow_unregistered_dialect: opts.allow_unregistered,
            line_offset: chunk.line_offset,
        };
        // Diagnostics of this chunk, whether reading and the passes
        // succeeded; the source location of each diagnostic, when its
        // op's loc(...) gives one.
        let mut sources: Vec<Option<String>> = Vec::new();
        let (diags, output, chunk_bad, chunk_failed) = match parse_module(chunk.text, &popts) {
            Err(d) => {
                // A PyPTO program or a problem file given to `opt`: say
                // which command reads it rather than where MLIR syntax ends.
                if let Some(msg) = input_kind::mismatch(&file, text.as_bytes(), InputKind::Mlir) {
                    eprintln!("{msg}");
                    return ExitCode::from(2);
                }
                (vec![d], None, true, false)
            }
            Ok(mut module) => {
                let before = allocs(&module);
                let mut cx = PassContext {
                    debug_only: opts.debug_only.clone(),
                    ..PassContext::default()
                };
                let plans = opts.passes.iter().any(|p| is_plan_memory(p.as_ref()));
                let explained = !opts.quiet && !opts.verify;
                if plans && (opts.map.is_some() || explained) {
                    cx.placements = Some(Vec::new());
                    cx.placements_beyond_capacity = opts.map.is_some();
                }
                // The module as the plan-memory pass received it: what an
                // overflow's explanation re-plans.
                let mut before_plan: Option<tilemem_mlir::ir::Module> = None;
                let mut ok = true;
                for p in &opts.passes {
                    if is_plan_memory(p.as_ref()) && explained {
                        before_plan = Some(module.clone());
                    }
                    if p.run_in(&mut module, &mut cx).is_err() {
                        ok = false;
                        break;
                    }
                }
                padded.extend(padding(&before, &allocs(&module)));
                debug.push_str(&cx.debug);
                notes.append(&mut cx.summary);
                let planner = cx
                    .plan_options
                    .as_ref()
                    .map_or("bishengir", |o| o.planner.name());
                if cx.plan_options.is_some() && planner_name.is_none() {
                    planner_name = Some(planner.to_string());
                }
                if let Some(p) = cx.placements.take() {
                    if ok && p.is_empty() && !opts.quiet && !opts.verify {
                        if let Some(why) = crate::explain_mlir::nothing_to_plan(chunk.text) {
                            nothing.push(why);
                        }
                    }
                    if !opts.quiet && !opts.verify {
                        notes.extend(
                            crate::summary::mlir_lines(&p, planner)
                                .into_iter()
                                .map(|l| l.trim_start_matches("[summary] ").to_string()),
                        );
                    }
                    placements.extend(p);
                }
                // After an overflow, the short explanation follows the
                // reference's diagnostic.
                let overflowed = !ok
                    && !cx.bad_input
                    && cx
                        .diags
                        .iter()
                        .any(|d| d.message.contains(" overflow, requires "));
                let explanation = match (&before_plan, &cx.plan_options) {
                    (Some(m), Some(o)) if overflowed => {
                        let req = PlanRequest {
                            target: None,
                            options: o.clone(),
                        };
                        explain_module(m, &req, false, true)
                            .map(|ex| ex.render_short(&file))
                            .unwrap_or_default()
                    }
                    _ => String::new(),
                };
                // Like mlir-opt: an error emitted by a pass that does not
                // signal failure is reported, and the module still prints
                // with exit 0 (see `tilemem_mlir::pass`). Text a pass
                // writes to standard output (`llvm::outs()` in the
                // reference) comes before the module; it stays on standard
                // output when -o sends the module to a file.
                let output = if ok {
                    Some((cx.stdout, Some(print_module(&module))))
                } else if cx.stdout.is_empty() {
                    None
                } else {
                    Some((cx.stdout, None))
                };
                if !explanation.is_empty() {
                    explanations.push(explanation);
                }
                sources = cx
                    .diags
                    .iter()
                    .map(|d| module.src_file_line(d.loc))
                    .collect();
                internal |= !ok && cx.internal;
                // A pass that rejects its input (see `PassContext::bad_input`)
                // makes the run exit 2 like a reading error.
                (cx.diags, output, !ok && cx.bad_input, !ok)
            }
        };
        if opts.verify {
            let mismatches = match expectations(chunk.text, chunk.line_offset) {
                Ok(expected) => verify(&expected, &diags),
                Err(d) => vec![d],
            };
            for d in &mismatches {
                stderr.push_str(&render(d, &file, &text, None));
            }
            failed |= !mismatches.is_empty();
        } else {
            for (i, d) in diags.iter().enumerate() {
                let at = sources.get(i).and_then(Option::as_deref);
                stderr.push_str(&render(d, &file, &text, at));
                if let Some(help) = crate::explain_mlir::help_for(&d.message) {
                    stderr.push_str(&format!("{help}\n"));
                }
            }
            for e in explanations.drain(..) {
                stderr.push_str(&e);
            }
            bad_input |= chunk_bad;
            failed |= chunk_failed;
        }
        if let Some(out) = output {
            outputs.push(out);
        }
    }
    if !opts.quiet && !opts.verify {
        for n in &notes {
            stderr.push_str(&format!("[summary] {n}\n"));
        }
        if let Some(why) = nothing.first() {
            stderr.push_str(&format!("[note] {file}: {why}\n"));
        }
    }
    if !opts.quiet && !opts.verify && !padded.is_empty() {
        for (line, _, _) in &padded {
            stderr.push_str(&format!("[summary] {line}\n"));
        }
        let before: u64 = padded.iter().map(|p| p.1).sum();
        let after: u64 = padded.iter().map(|p| p.2).sum();
        stderr.push_str(&format!(
            "[summary] {} allocation(s) padded: {before} -> {after} bytes\n",
            padded.len()
        ));
    }
    // The map is written whether or not everything fits (it is the
    // overflow's diagnosis, not a partial result), but not for input the
    // passes reject (exit 2: nothing is written).
    if let Some(path) = opts.map.as_deref().filter(|_| !bad_input) {
        let mut o = Outputs::new();
        let staged = stage_map(
            &mut o,
            path,
            &file,
            &text,
            &placements,
            planner_name.as_deref(),
        );
        if let Err(msg) = staged.and_then(|()| o.commit().map_err(|e| e.to_string())) {
            // An output that cannot be written: exit 2.
            stderr.push_str(&format!("tilemem opt: {msg}\n"));
            bad_input = true;
        }
    }
    eprint!("{debug}{stderr}");
    // On standard output each chunk's pass text precedes its module; with
    // -o the file holds the modules alone, the pass text goes to standard
    // output (a file that reads back as MLIR).
    let to_stdout = matches!(opts.output.as_deref(), None | Some("-"));
    let joined = if to_stdout {
        outputs
            .iter()
            .map(|(text, module)| format!("{text}{}", module.as_deref().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("// -----\n")
    } else {
        outputs
            .iter()
            .filter_map(|(_, module)| module.as_deref())
            .collect::<Vec<_>>()
            .join("// -----\n")
    };
    if !to_stdout {
        let text: String = outputs.iter().map(|(text, _)| text.as_str()).collect();
        let mut out = std::io::stdout().lock();
        if out.write_all(text.as_bytes()).is_err() || out.flush().is_err() {
            return ExitCode::from(2);
        }
    }
    let code = if internal {
        ExitCode::from(crate::exit::INTERNAL)
    } else if bad_input {
        ExitCode::from(2)
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    match opts.output.as_deref() {
        None | Some("-") => {
            let mut out = std::io::stdout().lock();
            if out.write_all(joined.as_bytes()).is_err() || out.flush().is_err() {
                return ExitCode::from(2);
            }
        }
        Some(path) => {
            // No partial output files: write only when everything succeeded,
            // through a temporary file renamed into place.
            if bad_input || failed || internal {
                return code;
            }
            let mut o = Outputs::new();
            o.add(path, joined);
            if let Err(e) = o.commit() {
                eprintln!("tilemem opt: {e}");
                return ExitCode::from(2);
            }
        }
    }
    code
}
