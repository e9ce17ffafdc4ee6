//! Writes a generated training-step trace as a problem file.
//! `cargo run --release -p tilemem-plan --example gen_trace -- SEED N OUT.csv`
use tilemem_plan::{csv, gen};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().expect("a seed").parse().expect("a number");
    let n: usize = args.next().expect("a size").parse().expect("a number");
    let out = args.next().expect("an output file");
    let p = gen::training_step(seed, n);
    std::fs::write(&out, csv::write_problem(&p, None)).expect("writable output");
    eprintln!(
        "{} buffers, lower bound {}",
        p.len(),
        tilemem_plan::lower_bound(&p)
    );
}
