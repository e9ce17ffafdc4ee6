//! Time of the steps around a solve that no budget meters: reading the
//! file, checking the problem, validating and writing a placement.
//! `cargo run --release -p tilemem-plan --example overhead -- FILE.csv`
use std::time::Instant;

use tilemem_plan::{csv, lower_bound, validate, Solution};

fn main() {
    let path = std::env::args().nth(1).expect("a CSV file");
    let t = Instant::now();
    let file = csv::read(std::path::Path::new(&path)).expect("readable problem");
    println!("read      {:.3} s", t.elapsed().as_secs_f64());
    let p = &file.problem;
    let t = Instant::now();
    p.check().expect("valid problem");
    println!("check     {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let lb = lower_bound(p);
    println!("bound     {:.3} s ({lb})", t.elapsed().as_secs_f64());
    // A bump placement: every buffer above the previous one.
    let mut top = 0u64;
    let offsets = p
        .buffers
        .iter()
        .map(|b| {
            let o = top.div_ceil(b.align.max(1)) * b.align.max(1);
            top = o + b.size;
            o
        })
        .collect();
    let sol = Solution { offsets };
    let t = Instant::now();
    validate(p, &sol).expect("valid placement");
    println!("validate  {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let text = csv::write_problem(p, Some(&sol));
    println!(
        "write     {:.3} s ({} bytes)",
        t.elapsed().as_secs_f64(),
        text.len()
    );
}
