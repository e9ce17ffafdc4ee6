//! `tilemem fmt`: read a PyPTO program and print it back in canonical form.
//!
//! A formatter (hand-written programs become PyPTO's printed form) and a
//! round-trip check of the reader/printer: PyPTO's own dumps come back byte
//! for byte. `--check` prints nothing and exits 1 when the file would change.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Flags of `tilemem fmt`.
#[derive(clap::Args)]
pub struct Args {
    /// Input program (`-` reads standard input).
    pub file: PathBuf,
    /// Write the result to this file instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Print nothing; exit 1 if the input is not in canonical form.
    #[arg(long)]
    pub check: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let stdin = args.file.as_os_str() == "-";
    let shown = if stdin {
        "<stdin>".to_string()
    } else {
        args.file.display().to_string()
    };
    let bytes = match read_input(&args.file, stdin) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tilemem fmt: cannot read {shown}: {e}");
            return ExitCode::from(2);
        }
    };
    let src = match tilemem_pto::decode(&bytes) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{shown}:{}:{}: error: {}", e.line, e.col, e.message);
            return ExitCode::from(2);
        }
    };
    let program = match tilemem_pto::parse(src) {
        Ok(p) => p,
        Err(e) => {
            eprint!("{}", e.render(&shown, src));
            return ExitCode::from(2);
        }
    };
    let out = tilemem_pto::print(&program);
    if args.check {
        return match first_difference(src, &out) {
            None => ExitCode::SUCCESS,
            Some(line) => {
                eprintln!(
                    "{shown}:{line}: not in canonical form (run `tilemem fmt` to rewrite it)"
                );
                ExitCode::from(1)
            }
        };
    }
    let written = match &args.output {
        Some(path) => write_atomically(path, out.as_bytes()),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(out.as_bytes())
                .and_then(|()| stdout.flush())
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let target = args
                .output
                .as_deref()
                .map_or("standard output".into(), |p| p.display().to_string());
            eprintln!("tilemem fmt: cannot write {target}: {e}");
            ExitCode::from(2)
        }
    }
}

fn read_input(path: &Path, stdin: bool) -> std::io::Result<Vec<u8>> {
    if stdin {
        let mut s = Vec::new();
        std::io::stdin().read_to_end(&mut s)?;
        Ok(s)
    } else {
        std::fs::read(path)
    }
}

/// 1-based line of the first difference, `None` when equal.
fn first_difference(a: &str, b: &str) -> Option<usize> {
    if a == b {
        return None;
    }
    let mut la = a.split('\n');
    let mut lb = b.split('\n');
    let mut line = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            _ => return Some(line),
        }
    }
}

/// Writes through the shared all-or-nothing output set.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut o = crate::output::Outputs::new();
    o.add(path, bytes);
    o.commit().map_err(|e| e.error)
}
