//! Benchmark: reading and printing a generated function of 10,000 ops
//! (allocs, subviews, HIVM loads and vector ops, as in `stride_align`).
//!
//! Run with `cargo bench -p tilemem-mlir --bench read_print`. Prints the
//! best and median wall time of reading and of printing, and the text size.

use std::time::{Duration, Instant};

use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::print::print_module;

/// A function of about `ops` ops whose buffers live in UB.
fn generate(ops: usize) -> String {
    let ub = "#hivm.address_space<ub>";
    let gm_ty = "memref<4x15xf16, strided<[16, 1]>, #hivm.address_space<gm>>";
    let a_ty = format!("memref<4x15xf16, {ub}>");
    let s_ty = format!("memref<2x15xf16, strided<[15, 1]>, {ub}>");
    let b_ty = format!("memref<2x15xf16, {ub}>");
    let mut out = format!("func.func @generated(%gm: {gm_ty}) {{\n");
    for g in 0..ops / 5 {
        out.push_str(&format!("  %a{g} = memref.alloc() : {a_ty}\n"));
        out.push_str(&format!("  %b{g} = memref.alloc() : {b_ty}\n"));
        out.push_str(&format!(
            "  %s{g} = memref.subview %a{g}[0, 0] [2, 15] [1, 1] : {a_ty} to {s_ty}\n"
        ));
        out.push_str(&format!(
            "  hivm.hir.load ins(%gm : {gm_ty}) outs(%a{g} : {a_ty})\n"
        ));
        out.push_str(&format!(
            "  hivm.hir.vadd ins(%s{g}, %b{g} : {s_ty}, {b_ty}) outs(%b{g} : {b_ty})\n"
        ));
    }
    out.push_str("  return\n}\n");
    out
}

fn report(label: &str, mut times: Vec<Duration>) {
    times.sort();
    println!(
        "{label}: best {:.1} ms, median {:.1} ms",
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3
    );
}

fn main() {
    let text = generate(10_000);
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
