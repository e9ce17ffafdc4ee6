//! `tilemem`: the command-line front end. Thin by design: parse flags, call the
//! libraries, render results.
//!
//! Exit codes, shared by every subcommand: see [`exit`] (0 success, 1
//! cannot be met, 2 bad input, 3 internal error, 130 interrupted).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod exit;
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

/// On-chip memory planner for tile-based NPU compilers.
#[derive(Parser)]
#[command(name = "tilemem", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Place the buffers of a placement problem (MiniMalloc-style CSV).
    Solve(solve::Args),
    /// Check a placement (a problem CSV with an `offset` column).
    Validate(validate::Args),
    /// Run the solvers over a folder of problems and print one table.
    Bench(bench::Args),
    /// Read a PyPTO program and print it back in canonical form.
    Fmt(fmt::Args),
    /// Run the PyPTO memory passes on a program.
    Plan(plan::Args),
    /// Explain where a program's memory goes and what would make it fit.
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
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
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
