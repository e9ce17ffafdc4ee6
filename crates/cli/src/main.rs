//! `tilemem`: the command-line front end. Thin by design: parse flags, call the
//! libraries, render results.
//!
//! Exit codes, shared by every subcommand: see [`exit`] (0 success, 1
//! cannot be met, 2 bad input, 3 internal error, 130 interrupted); every
//! `--help` prints its table ([`exit_table!`]).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[macro_use]
mod exit;
mod bench;
mod explain;
mod explain_mlir;
mod flags;
mod fmt;
mod html_map;
mod input_kind;
mod map_file;
mod map_model;
mod opt;
mod output;
mod peers;
mod plan;
mod planned;
mod problem_file;
mod search;
mod solve;
mod summary;
mod validate;

/// What `tilemem --help` prints after the commands: which one reads which
/// input, the exit codes, and commands to start from (run from the
/// repository root; `tests/readme.rs` runs them).
const AFTER_HELP: &str = concat!(
    "\
Which command for which input:
  a PyPTO program (.py text, or PyPTO's MessagePack IR)    plan, explain, fmt
  HIVM MLIR (bufferized: memref.alloc in ub, cbuf, ...)     opt, explain
  a placement problem (MiniMalloc CSV: id,lower,upper,size) solve, validate, bench

",
    exit_table!(),
    "

Examples (from the repository root):
  tilemem plan examples/pto/vector_chain.py --target 910b
  tilemem explain examples/pto/over_capacity.py
  tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory examples/mlir/unaligned_rows.mlir
  tilemem solve examples/dsa/staircase.csv --capacity 20480 --map -

`tilemem COMMAND --help` explains each command; `tilemem opt --help` lists the HIVM passes."
);

/// The end of `tilemem plan --help` (`tests/readme.rs` runs the examples
/// of every command's help).
const PLAN_HELP: &str = concat!(
    "\
Output: the planned program on standard output (or -o): every tile gets a
MemRef(BUFFER, OFFSET, BYTES), tiles that share a buffer name the same one, and
each buffer is declared by a `pl.tile.alloc(SPACE, BYTES)`. On standard error,
one summary line per (function, space): bytes used / capacity, the lower bound
no placement beats, and how many tiles share how many buffers. Only kernel
functions (type=pl.FunctionType.InCore, AIC, AIV) are planned.

A program that does not fit (exit 1) gets its error in PyPTO's words, then a
short form of what `tilemem explain` prints. Its remedies re-plan at most 10
changed programs, and under --planner optimal each re-plan's exact search gets
1/10 of --time-limit and of --node-limit per (function, space), so together
they search no longer than the run; the output says when that budget stopped
a re-plan without a fit. Nothing is written unless everything succeeded,
except a --map, which draws the overflow.

",
    exit_table!(),
    "

Examples:
  tilemem plan examples/pto/vector_chain.py
  tilemem plan examples/pto/vector_chain.py --target 950 --planner all --report r.json --map map.html
  tilemem plan examples/pto/vector_chain.py --stop-after memory_reuse -q"
);

/// The end of `tilemem explain --help`.
const EXPLAIN_HELP: &str = concat!(
    "\
Without --all, only the (function, space) pairs that do not fit are explained;
with it, a space that fits also lists its buffers and the tiles in each.
Remedies re-plan at most 400 changed programs; under --planner optimal each
re-plan's exact search gets 1/10 of --time-limit and of --node-limit per
(function, space), and the output says when that budget stopped a re-plan
without a fit. On HIVM MLIR the chip comes from the module's hacc.target (a --target is
refused) and --planner takes bishengir (the default) or optimal.

",
    exit_table!(),
    "

Examples:
  tilemem explain examples/pto/over_capacity.py
  tilemem explain examples/pto/vector_chain.py --all
  tilemem explain examples/mlir/double_buffer_overflow.mlir --planner optimal"
);

/// The end of `tilemem fmt --help`.
const FMT_HELP: &str = concat!(
    exit_table!(),
    "

Examples:
  tilemem fmt examples/pto/vector_chain.py
  tilemem fmt --check examples/pto/vector_chain.py"
);

/// The end of `tilemem validate --help`.
const VALIDATE_HELP: &str = concat!(
    "\
Each violation (overlap, alignment, capacity) is listed (exit 1). A row without
`offset` is bad input (exit 2): place the problem first with `tilemem solve
FILE -o placed.csv`.

",
    exit_table!(),
    "

Examples:
  tilemem solve examples/dsa/staircase.csv -o placed.csv && tilemem validate placed.csv"
);

/// The end of `tilemem bench --help`.
const BENCH_HELP: &str = concat!(
    exit_table!(),
    "

Examples:
  tilemem bench examples/dsa
  tilemem bench --family staircase --count 5 --time-limit 1"
);

/// On-chip memory planner for tile-based NPU compilers.
#[derive(Parser)]
#[command(
    name = "tilemem",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Place the buffers of a placement problem (MiniMalloc-style CSV).
    Solve(solve::Args),
    /// Check a placement (a problem CSV with an `offset` column).
    #[command(after_help = VALIDATE_HELP)]
    Validate(validate::Args),
    /// Run the solvers over a folder of problems and print one table.
    #[command(after_help = BENCH_HELP)]
    Bench(bench::Args),
    /// Read a PyPTO program and print it back in canonical form.
    #[command(after_help = FMT_HELP)]
    Fmt(fmt::Args),
    /// Run the PyPTO memory passes on a program.
    #[command(after_help = PLAN_HELP)]
    Plan(plan::Args),
    /// Explain where a program's memory goes and what would make it fit.
    #[command(after_help = EXPLAIN_HELP)]
    Explain(explain::Args),
    /// Run HIVM MLIR passes, mlir-opt style (`tilemem opt --help`).
    Opt,
}

fn main() -> ExitCode {
    // A reader that stops early (`tilemem solve p.csv | head`) closes the
    // pipe: end quietly, as other Unix tools do, instead of panicking in the
    // next write. Files are written before stdout and atomically, so nothing
    // is left half-written.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of one signal at start-up,
    // before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // An interrupt before the outputs are committed ends the command with
    // nothing written (`solve` instead stops its search and writes the best
    // placement, see `output::interrupt::stop_flag`); during the commit it
    // waits for the renames.
    output::interrupt::install();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: setting allocator parameters at start-up, before any thread
    // exists and before any allocation that the change could affect.
    unsafe {
        // Program tables grow by doubling; glibc's adaptive threshold then
        // keeps freed large blocks in the heap, where they fragment and hold
        // resident memory for the rest of the run. A fixed threshold maps
        // every block of 32 KiB or more on its own and returns it at free:
        // a function of 1k statements has arenas of 40-100 KiB, and with
        // 128 KiB the freed arenas of one function left holes the next
        // function's could not reuse (100 functions of 1k statements: 43 ->
        // 35 MB peak RSS; one function of 100k statements: unchanged).
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 * 1024);
        // Functions are planned on worker threads, each of which would get
        // an arena of its own: a function's tables then grow in one arena
        // while the blocks they replace stay free in another, and both
        // stay resident. One arena reuses those holes (peak RSS 40.1 ->
        // 38.7 MB on 100 functions of 1k statements, at the same wall time:
        // the threads spend little of it allocating).
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    let args: Vec<String> = std::env::args().collect();
    // `opt` follows mlir-opt's single-dash flag conventions, which clap does
    // not model; it parses its own arguments.
    if args.get(1).map(String::as_str) == Some("opt") {
        return opt::run(&args[2..]);
    }
    // `tilemem help opt`: opt's own help, not clap's empty stub.
    if args.get(1).map(String::as_str) == Some("help")
        && args.get(2).map(String::as_str) == Some("opt")
    {
        return opt::run(&["--help".to_string()]);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            if let Some(msg) = unknown_flag_message(&e, &args) {
                eprintln!("{msg}");
                return ExitCode::from(2);
            }
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Solve(a) => solve::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Fmt(a) => fmt::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Opt => opt::run(&[]),
    }
}

/// A clearer message than clap's for an unknown flag that has no similar
/// one: clap suggests `-- FLAG` (passing the flag as a file name), which
/// is never what a user of these commands meant. `--soc` and `--chip` name
/// what `--target` does.
fn unknown_flag_message(e: &clap::Error, args: &[String]) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument || e.get(ContextKind::SuggestedArg).is_some() {
        return None;
    }
    let Some(ContextValue::String(flag)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let commands = ["solve", "validate", "bench", "fmt", "plan", "explain"];
    let Some(command) = args
        .get(1)
        .map(String::as_str)
        .filter(|c| commands.contains(c))
    else {
        // Before any command: `tilemem --target 950 plan FILE`.
        return Some(format!(
            "error: unexpected argument '{flag}': flags follow the command (`tilemem COMMAND {flag} ...`); \
             `tilemem --help` lists the commands"
        ));
    };
    let name = flag.trim_start_matches('-');
    let name = name.split_once('=').map_or(name, |(n, _)| n);
    let chip_flags = ["plan", "explain"];
    if matches!(name, "soc" | "chip") && chip_flags.contains(&command) {
        return Some(format!(
            "error: unexpected argument '{flag}': the chip is chosen with --target 910b|950|310b|none"
        ));
    }
    if !flag.starts_with('-') || flag == "-" {
        return None;
    }
    Some(format!(
        "error: unexpected argument '{flag}' for `tilemem {command}`; `tilemem {command} --help` lists its flags"
    ))
}
