//! Times MemoryReuse alone on generated kernels of about 10,000 and 100,000
//! statements (loads, views, loops with carries, ifs with phis, two memory
//! spaces) and prints the time per size and the 100k/10k ratio.
//!
//! `cargo run --release -p tilemem-pto --example memory_reuse_bench`

use std::fmt::Write;
use std::time::Instant;

use tilemem_pto::passes::memory_reuse;
use tilemem_pto::passes::{PassContext, PlannerMode};
use tilemem_soc::Soc;

/// A kernel of about `n` statements, already through InitMemRef.
fn generate(n: usize) -> String {
    let mut allocs = String::new();
    let mut body = String::new();
    let mut k = 0;
    let mut new = |allocs: &mut String, space: &str| {
        let name = format!("mem_{}_{k}", space.to_lowercase());
        k += 1;
        let _ = writeln!(
            allocs,
            "        {name}: pl.Ptr = pl.tile.alloc(pl.Mem.{space}, 16384)"
        );
        name
    };
    let t = |b: &str, space: &str| {
        format!("pl.Tile[[64, 64], pl.FP32, pl.MemRef({b}, pl.const(0, pl.INT64), 16384), pl.Mem.{space}]")
    };
    let mut stmts = 0;
    let mut i = 0;
    while stmts < n {
        let (a, b, c, m) = (
            new(&mut allocs, "Vec"),
            new(&mut allocs, "Vec"),
            new(&mut allocs, "Vec"),
            new(&mut allocs, "Mat"),
        );
        let _ = write!(
            body,
            "        a{i}: {ta} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        b{i}: {tb} = pl.tile.exp(a{i})
        v{i}: pl.Tile[[16, 64], pl.FP32, pl.MemRef({b}, 0, 4096), pl.Mem.Vec] = pl.tile.slice(b{i}, [16, 64], [0, 0])
        m{i}: {tm} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        for j{i}, (acc{i},) in pl.range(4, init_values=(b{i},)):
            t{i}: {tc} = pl.tile.add(acc{i}, a{i})
            if j{i} < 2:
                u{i}: {tb} = pl.tile.mul(t{i}, t{i})
                p{i}: {tb} = pl.yield_(u{i})
            else:
                w{i}: {tc} = pl.tile.add(t{i}, t{i})
                p{i}: {tb} = pl.yield_(w{i})
            o{i}: {tb} = pl.yield_(p{i})
        s{i}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(o{i}, [0, 0], y)
        q{i}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(m{i}, [0, 0], y)
",
            ta = t(&a, "Vec"),
            tb = t(&b, "Vec"),
            tc = t(&c, "Vec"),
            tm = t(&m, "Mat"),
        );
        stmts += 19;
        i += 1;
    }
    format!(
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):\n{allocs}{body}"
    )
}

/// Best of three runs of the pass alone, in seconds.
fn time_pass(src: &str) -> f64 {
    let program = tilemem_pto::parse(src).expect("generated program parses");
    (0..3)
        .map(|_| {
            let mut p = program.clone();
            let mut ctx = PassContext::new(Soc::no_backend(), PlannerMode::Pypto);
            let t0 = Instant::now();
            memory_reuse::run(&mut p, &mut ctx).expect("pass succeeds");
            t0.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let small = time_pass(&generate(10_000));
    let large = time_pass(&generate(100_000));
    println!("memory_reuse  10k statements: {:8.1} ms", small * 1e3);
    println!("memory_reuse 100k statements: {:8.1} ms", large * 1e3);
    println!("100k / (10 x 10k) = {:.2}", large / (10.0 * small));
}
