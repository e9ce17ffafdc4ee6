//! `tilemem fmt`: read a PyPTO program and print it back in canonical form.
//!
//! The input is program text or PyPTO's MessagePack IR, told apart by its
//! first byte; a document prints as the text PyPTO's printer writes for it
//! (`--emit msgpack` writes the document back instead, as PyPTO's
//! serializer would).
//!
//! A formatter (hand-written programs become PyPTO's printed form) and a
//! round-trip check of the reader/printer: PyPTO's own dumps come back byte
//! for byte. `--check` prints nothing and exits 1 when the file would change.

use std::io::{Read, Write};

use crate::input_kind::{self, InputKind};
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
    /// Output form: `text` (PyPTO program text) or `msgpack` (PyPTO's
    /// MessagePack IR; a MessagePack input only).
    #[arg(long, value_name = "FORM", default_value = "text")]
    pub emit: String,
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
    if !matches!(args.emit.as_str(), "text" | "msgpack") {
        eprintln!(
            "tilemem fmt: unknown --emit '{}'; use text or msgpack",
            args.emit
        );
        return ExitCode::from(2);
    }
    if tilemem_pto::msgpack::looks_like_msgpack(&bytes) {
        return fmt_document(&args, &bytes, &shown);
    }
    if args.emit == "msgpack" {
        eprintln!(
            "tilemem fmt: --emit msgpack needs a MessagePack input ({shown} is program text)"
        );
        return ExitCode::from(2);
    }
    let src = match tilemem_pto::decode(&bytes) {
        Ok(s) => s,
        Err(e) => {
            match input_kind::mismatch(&shown, &bytes, InputKind::Pypto) {
                Some(msg) => eprintln!("{msg}"),
                None => eprintln!("{shown}:{}:{}: error: {}", e.line, e.col, e.message),
            }
            return ExitCode::from(2);
        }
    };
    let program = match tilemem_pto::parse(src) {
        Ok(p) => p,
        Err(e) => {
            match input_kind::mismatch(&shown, &bytes, InputKind::Pypto) {
                Some(msg) => eprintln!("{msg}"),
                None => eprint!("{}", e.render(&shown, src)),
            }
            return ExitCode::from(2);
        }
    };
    if args.check {
        return match first_difference(src, &program) {
            None => ExitCode::SUCCESS,
            Some(line) => {
                eprintln!(
                    "{shown}:{line}: not in canonical form (run `tilemem fmt` to rewrite it)"
                );
                ExitCode::from(1)
            }
        };
    }
    // Printed straight into the file or standard output: the text is never
    // held whole.
    let print = |w: &mut dyn Write| tilemem_pto::print::print_to(&program, w);
    let written = match &args.output {
        Some(path) => {
            let mut o = crate::output::Outputs::new();
            o.add_stream(path, print);
            o.commit().map_err(|e| e.error)
        }
        None => crate::output::stdout_stream(print),
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

/// `fmt` of a MessagePack document: its program text, or (`--emit
/// msgpack`) the document as PyPTO writes it. Nothing is written on error.
fn fmt_document(args: &Args, bytes: &[u8], shown: &str) -> ExitCode {
    // A document is canonical when PyPTO's writer would write it as it is.
    let out: Vec<u8> = if args.emit == "msgpack" || args.check {
        match tilemem_pto::msgpack::read(bytes).map(|g| tilemem_pto::msgpack::write(&g)) {
            Ok(Ok(b)) => b,
            Ok(Err(e)) => {
                eprintln!("{shown}: error: {e}");
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("{shown}: error: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        match tilemem_pto::msgpack::read_program(bytes) {
            Ok(p) => tilemem_pto::print(&p).into_bytes(),
            Err(e) => {
                eprintln!("{shown}: error: {e}");
                return ExitCode::from(2);
            }
        }
    };
    if args.check {
        return if out == bytes {
            ExitCode::SUCCESS
        } else {
            eprintln!("{shown}: not in canonical form");
            ExitCode::from(1)
        };
    }
    let write = |w: &mut dyn Write| w.write_all(&out);
    let written = match &args.output {
        Some(path) => {
            let mut o = crate::output::Outputs::new();
            o.add_stream(path, write);
            o.commit().map_err(|e| e.error)
        }
        None => crate::output::stdout_stream(write),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tilemem fmt: cannot write output: {e}");
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

/// 1-based line of the first difference between `src` and the printed
/// `program`, `None` when equal; the printed text is compared as it is
/// produced, never held whole.
fn first_difference(src: &str, program: &tilemem_pto::ir::Program) -> Option<usize> {
    let mut cmp = Compare {
        src: src.as_bytes(),
        at: 0,
        next: None,
    };
    // Comparing cannot fail otherwise: a write error means a difference.
    let _ = tilemem_pto::print::print_to(program, &mut cmp);
    if cmp.next.is_none() && cmp.at == src.len() {
        return None;
    }
    // The lines up to the first differing byte, and that byte, decide the
    // line exactly as comparing the whole texts line by line would.
    let mut printed = src.as_bytes()[..cmp.at].to_vec();
    printed.extend(cmp.next);
    let end = (cmp.at + 1).min(src.len());
    Some(first_different_line(&src.as_bytes()[..end], &printed))
}

/// A writer that compares what it is given with `src`: `at` is the length
/// of the common prefix, `next` the first printed byte past it (the
/// comparison stops there).
struct Compare<'a> {
    src: &'a [u8],
    at: usize,
    next: Option<u8>,
}

impl Write for Compare<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let rest = &self.src[self.at..];
        let same = buf.iter().zip(rest).take_while(|(a, b)| a == b).count();
        self.at += same;
        if same < buf.len() {
            self.next = Some(buf[same]);
            return Err(std::io::Error::other("differs"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// 1-based line of the first difference of two different texts.
fn first_different_line(a: &[u8], b: &[u8]) -> usize {
    let mut la = a.split(|&c| c == b'\n');
    let mut lb = b.split(|&c| c == b'\n');
    let mut line = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            _ => return line,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole-text comparison the streaming one must agree with.
    fn whole(a: &str, b: &str) -> Option<usize> {
        (a != b).then(|| first_different_line(a.as_bytes(), b.as_bytes()))
    }

    #[test]
    fn streamed_check_finds_the_line_the_whole_comparison_finds() {
        let canonical = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n        y: pl.Tensor[[4], pl.FP32] = pl.tensor.add(x, x)\n        return y\n";
        let variants = [
            canonical.to_string(),
            canonical.trim_end().to_string(),
            format!("{canonical}\n"),
            canonical.replace("pl.tensor.add(x, x)", "pl.tensor.add(x,x)"),
            canonical.replace("return y", "return  y"),
            canonical.replace("class P:", "class P :"),
            canonical.replace("\n\n@pl", "\n\n\n@pl"),
            canonical.replace("[[4], pl.FP32])", "[[4],pl.FP32])"),
            canonical.trim_end().replace("return y", "return (y)"),
            canonical.replace("return y", "return (y)"),
            canonical.replace("pl.tensor.add(x, x)", "pl.tensor.add((x), x)"),
        ];
        let mut differing = 0;
        for src in &variants {
            let p = tilemem_pto::parse(src).unwrap();
            let printed = tilemem_pto::print(&p);
            let expect = whole(src, &printed);
            differing += usize::from(expect.is_some());
            assert_eq!(first_difference(src, &p), expect, "{src:?} vs {printed:?}");
        }
        assert_eq!(differing, 7);
    }
}
