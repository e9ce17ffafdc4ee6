//! Benchmark: reading and printing a generated function of 10,000 ops
//! (allocs, subviews, HIVM loads and vector ops, as in `stride_align`).
//!
//! Run with `cargo bench -p tilemem-mlir --bench read_print`. Prints the
//! best and median wall time of reading and of printing, and the text size.

mod common;

use std::time::{Duration, Instant};

use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::print::print_module;

use common::generate;

fn report(label: &str, mut times: Vec<Duration>) {
    times.sort();
    println!(
        "{label}: best {:.1} ms, median {:.1} ms",
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3
    );
}

fn main() {
    let text = generate(10_000, None);
    let opts = ParseOptions::default();
    let mut read = Vec::new();
    let mut print = Vec::new();
    let mut printed_len = 0;
    for _ in 0..7 {
        let start = Instant::now();
        let module = match parse_module(&text, &opts) {
            Ok(m) => m,
            Err(d) => {
                eprintln!("cannot read the generated input: {}", d.render("gen"));
                return;
            }
        };
        read.push(start.elapsed());
        let start = Instant::now();
        let out = print_module(&module);
        print.push(start.elapsed());
        printed_len = out.len();
    }
    println!(
        "10,000 ops, {} KiB in, {} KiB out",
        text.len() / 1024,
        printed_len / 1024
    );
    report("read", read);
    report("print", print);
}
