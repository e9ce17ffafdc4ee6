//! The streamed outputs: `print_to` writes the same bytes as `print`, in
//! chunks, and stops at the first write error; `Report::write_json` writes
//! what `to_json` returns.

use std::io::{self, Write};

use tilemem_pto::print::print_to;
use tilemem_pto::{parse, print};

/// A kernel of `n` statements with a loop and an `if` (nested blocks
/// span chunk boundaries too); `final_newline` decides the last byte.
fn program(n: usize, final_newline: bool) -> String {
    let mut s = String::from(
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(x: pl.Tensor[[64, 64], pl.FP32], c: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:\n        t0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n",
    );
    let v = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]";
    s.push_str(&format!(
        "        for i, (acc,) in pl.range(4, init_values=(t0,)):\n            a0: {v} = pl.tile.add(acc, t0)\n"
    ));
    for i in 1..n {
        s.push_str(&format!(
            "            a{i}: {v} = pl.tile.add(a{}, t0)  # step {i}\n",
            i - 1
        ));
    }
    s.push_str(&format!(
        "            r: {v} = pl.yield_(a{})\n        if c < 2:\n            p: {v} = pl.tile.exp(r)\n            q: {v} = pl.yield_(p)\n        else:\n            o: {v} = pl.tile.exp(t0)\n            q: {v} = pl.yield_(o)\n        out: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(q, [0, 0], x)\n        return out",
        n - 1
    ));
    if final_newline {
        s.push('\n');
    }
    s
}

fn streamed(src: &str) -> Vec<u8> {
    let p = parse(src).unwrap();
    let mut out = Vec::new();
    print_to(&p, &mut out).unwrap();
    out
}

#[test]
fn print_to_writes_the_bytes_print_returns() {
    for (n, nl) in [(1, true), (1, false), (3000, true), (3000, false)] {
        let src = program(n, nl);
        let text = print(&parse(&src).unwrap());
        assert_eq!(text, src, "n={n} newline={nl}: the program is canonical");
        assert_eq!(streamed(&src), text.as_bytes(), "n={n} newline={nl}");
    }
}

/// Counts the writes it receives: the printer hands over chunks, not the
/// whole text at once and not a line at a time.
#[derive(Default)]
struct Counting {
    bytes: Vec<u8>,
    writes: usize,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writes += 1;
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn print_to_writes_in_chunks() {
    let src = program(3000, true);
    let p = parse(&src).unwrap();
    let mut w = Counting::default();
    print_to(&p, &mut w).unwrap();
    assert_eq!(w.bytes, src.as_bytes());
    assert!(src.len() > 3 * 65536, "{}", src.len());
    // About 200 KB of text: a write per full 64 KiB chunk, then the rest.
    assert!(
        (3..=src.len() / 65536 + 1).contains(&w.writes),
        "{} writes",
        w.writes
    );
}

/// Accepts `left` bytes, then fails as a full disk does.
struct Full {
    bytes: Vec<u8>,
    left: usize,
}

impl Write for Full {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::from_raw_os_error(28));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn print_to_stops_at_the_first_write_error() {
    let src = program(3000, true);
    let p = parse(&src).unwrap();
    for left in [0, 1, 65535, 65536, 100_000, src.len() - 1] {
        let mut w = Full {
            bytes: Vec::new(),
            left,
        };
        let e = print_to(&p, &mut w).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(28), "left {left}");
        assert_eq!(w.bytes, src.as_bytes()[..left], "left {left}");
    }
}

/// A long kernel's JSON report, written in chunks, is the text `to_json`
/// returns.
#[test]
fn write_json_writes_the_text_to_json_returns() {
    use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
    use tilemem_soc::Soc;
    let mut p = parse(&program(3000, true)).unwrap();
    let mut cx = PassContext::new(Soc::ascend950(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut cx, &PassId::ALL).unwrap();
    let r = tilemem_pto::report::build(&p, &cx.soc, true);
    let text = r.to_json();
    assert!(text.len() > 3 * 65536, "{}", text.len());
    let mut w = Counting::default();
    r.write_json(&mut w).unwrap();
    assert_eq!(String::from_utf8(w.bytes).unwrap(), text);
    assert!(w.writes >= 3, "{} writes", w.writes);
}
