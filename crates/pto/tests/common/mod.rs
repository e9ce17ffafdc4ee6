//! Building blocks shared by the tests on the repository's own programs:
//! the program header, a one-function program builder, and a small
//! deterministic generator. Each test file uses a subset.
#![allow(dead_code)]

/// Every planner mode, for tests that run a program under each.
pub const PLANNERS: [tilemem_pto::passes::PlannerMode; 4] = [
    tilemem_pto::passes::PlannerMode::Pypto,
    tilemem_pto::passes::PlannerMode::DsaRp,
    tilemem_pto::passes::PlannerMode::Optimal,
    tilemem_pto::passes::PlannerMode::Ptoas,
];
/// Every target the tests plan for (`none`: no SoC capacity).
pub const TARGETS: [&str; 4] = ["910b", "950", "310b", "none"];

/// The header every test program starts with.
pub const HEAD: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n";

/// A program of one function `main` with the given decorator type,
/// signature (parameters through the return annotation) and body lines.
pub fn program(kind: &str, sig: &str, body: &[&str]) -> String {
    let mut s = String::from(HEAD);
    s.push_str(&format!(
        "    @pl.function(type=pl.FunctionType.{kind})\n    def main({sig}:\n"
    ));
    for l in body {
        s.push_str("        ");
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// xorshift64*: a small deterministic generator (no dependency needed).
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `[0, n)`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Binary and unary element-wise ops of [`random_kernel`].
const OPS: &[&str] = &["add", "mul", "sub", "maximum"];
const UNARY: &[&str] = &["exp", "recip", "rsqrt", "neg", "abs"];

fn vec_tile(rows: u64) -> String {
    format!("pl.Tile[[{rows}, 64], pl.FP32, pl.Mem.Vec]")
}

/// A random kernel `R.k` of about `stmts` statements (straight code,
/// loops with carries, ifs with phis, ops with no-alias rules); every
/// value is `[rows, 64]` FP32 in Vec with `rows` from `row_set`.
pub fn random_kernel(rng: &mut Rng, stmts: usize, row_set: &[u64]) -> String {
    let mut out = String::new();
    let mut live: Vec<(String, u64)> = Vec::new();
    let mut n = 0;
    let mut fresh = |p: &str| {
        n += 1;
        format!("{p}{n}")
    };
    let ind = "        ";
    for _ in 0..stmts {
        let choice = rng.below(10);
        if live.len() < 2 || choice < 2 {
            let rows = row_set[rng.below(row_set.len())];
            let v = fresh("t");
            out += &format!(
                "{ind}{v}: {} = pl.tile.load(x, [0, 0], [{rows}, 64], [{rows}, 64], target_memory=pl.Mem.Vec)\n",
                vec_tile(rows)
            );
            live.push((v, rows));
        } else if choice < 5 {
            let (a, ra) = live[rng.below(live.len())].clone();
            let same: Vec<_> = live.iter().filter(|(_, r)| *r == ra).cloned().collect();
            let (b, _) = same[rng.below(same.len())].clone();
            let v = fresh("t");
            let op = OPS[rng.below(OPS.len())];
            out += &format!("{ind}{v}: {} = pl.tile.{op}({a}, {b})\n", vec_tile(ra));
            live.push((v, ra));
        } else if choice < 7 {
            let (a, ra) = live[rng.below(live.len())].clone();
            let v = fresh("t");
            let op = UNARY[rng.below(UNARY.len())];
            out += &format!("{ind}{v}: {} = pl.tile.{op}({a})\n", vec_tile(ra));
            live.push((v, ra));
        } else if choice < 8 {
            // A loop carrying one value, reading another from outside.
            let (init, ri) = live[rng.below(live.len())].clone();
            let (other, ro) = live[rng.below(live.len())].clone();
            let (c, nx, res, iv) = (fresh("c"), fresh("t"), fresh("t"), fresh("i"));
            let read = if ro == ri { other } else { c.clone() };
            out += &format!("{ind}for {iv}, ({c},) in pl.range(3, init_values=({init},)):\n");
            out += &format!(
                "{ind}    {nx}: {} = pl.tile.add({c}, {read})\n",
                vec_tile(ri)
            );
            out += &format!("{ind}    {res}: {} = pl.yield_({nx})\n", vec_tile(ri));
            live.push((res, ri));
        } else if choice < 8 || (choice == 8 && rng.below(2) == 0) {
            // Two carries whose yields swap or shift them (ordered copies,
            // scratch buffers).
            // Two carries started from one tile would share its buffer
            // (seed 000: an error), so the second starts from another.
            let (a, ra) = live[rng.below(live.len())].clone();
            let same: Vec<_> = live
                .iter()
                .filter(|(v, r)| *r == ra && *v != a)
                .cloned()
                .collect();
            if same.is_empty() {
                continue;
            }
            let (b, _) = same[rng.below(same.len())].clone();
            let (c1, c2, nx, r1, r2, iv) = (
                fresh("c"),
                fresh("c"),
                fresh("t"),
                fresh("t"),
                fresh("t"),
                fresh("i"),
            );
            out +=
                &format!("{ind}for {iv}, ({c1}, {c2}) in pl.range(3, init_values=({a}, {b})):\n");
            out += &format!(
                "{ind}    {nx}: {} = pl.tile.add({c1}, {c2})\n",
                vec_tile(ra)
            );
            let ys = match rng.below(3) {
                0 => format!("{c2}, {c1}"),
                1 => format!("{nx}, {c1}"),
                _ => format!("{nx}, {c2}"),
            };
            out += &format!("{ind}    {r1}, {r2} = pl.yield_({ys})\n");
            let v = fresh("t");
            out += &format!("{ind}{v}: {} = pl.tile.add({r1}, {r2})\n", vec_tile(ra));
            live.push((v, ra));
        } else if choice < 9 {
            // An if whose branches produce the phi differently.
            let (a, ra) = live[rng.below(live.len())].clone();
            let (p, q, phi) = (fresh("t"), fresh("t"), fresh("t"));
            out += &format!("{ind}if k < {}:\n", rng.below(4));
            out += &format!("{ind}    {p}: {} = pl.tile.exp({a})\n", vec_tile(ra));
            out += &format!("{ind}    {phi}: {} = pl.yield_({p})\n", vec_tile(ra));
            out += &format!("{ind}else:\n");
            out += &format!("{ind}    {q}: {} = pl.tile.muls({a}, 2.0)\n", vec_tile(ra));
            out += &format!("{ind}    {phi}: {} = pl.yield_({q})\n", vec_tile(ra));
            live.push((phi, ra));
        } else {
            let (a, _) = live[rng.below(live.len())].clone();
            let s = fresh("s");
            out += &format!(
                "{ind}{s}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({a}, [0, 0], y)\n"
            );
        }
        // Values leave the live set at random (their last use is behind).
        if live.len() > 6 {
            live.remove(rng.below(live.len()));
        }
    }
    for (v, _) in &live {
        let s = fresh("s");
        out += &format!("{ind}{s}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({v}, [0, 0], y)\n");
    }
    format!(
        "# pypto.program: R\nimport pypto.language as pl\n\n@pl.program\nclass R:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]], k: pl.Scalar[pl.INDEX]):\n{out}"
    )
}

/// Every `.msgpack` file under `dir` (its subfolders too), sorted.
pub fn documents(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "msgpack") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// (bytes used, lower bound) of the first function's Vec space in a
/// report.
pub fn vec_usage(r: &tilemem_pto::report::Report) -> (u64, u64) {
    let s = r.functions[0]
        .spaces
        .iter()
        .find(|s| s.space == "Vec")
        .expect("a Vec space");
    (s.bytes_used, s.lower_bound)
}

/// The constant MemRef offset (the address, once planned) of tile `name`
/// in a printed program.
pub fn tile_offset(out: &str, name: &str) -> u64 {
    let l = out
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no tile {name}:\n{out}"));
    l.split_once("pl.const(")
        .expect("a constant offset")
        .1
        .split(',')
        .next()
        .unwrap()
        .parse()
        .expect("an integer offset")
}

/// The independent placement check alone on a planned program (910B,
/// the optimal planner's rules).
pub fn check_alone(src: &str) -> Result<(), tilemem_pto::passes::PassError> {
    let p = tilemem_pto::parse(src).expect("test program parses");
    let cx = tilemem_pto::passes::PassContext::new(
        tilemem_soc::Soc::from_name("910b").unwrap(),
        tilemem_pto::passes::PlannerMode::Optimal,
    );
    tilemem_pto::report::check_placement(&p, &cx.soc, cx.policy.as_ref(), cx.seed_rules)
}

/// A program of nested `if`/`else` branches and loops from `rng`: loads,
/// element-wise ops without sharing rules (`exp`, `muls`, `add`) and
/// stores of values in scope, `[rows, 64]` FP32 tiles of 8, 16 or 32
/// rows. With `tail_store` every loop body ends with a store of an outer
/// value; without it a loop body may end with a tile it writes, over
/// values defined before the loop that the next iteration reads again.
pub fn branchy(rng: &mut Rng, tail_store: bool) -> String {
    fn block(
        rng: &mut Rng,
        tail_store: bool,
        out: &mut Vec<String>,
        ind: &str,
        depth: u32,
        scope: &mut Vec<(String, u64)>,
        n: &mut u32,
    ) {
        for it in 0..1 + rng.below(4) {
            let c = rng.below(100) * if it == 0 { 3 } else { 4 } / 4;
            let fresh = |n: &mut u32| {
                *n += 1;
                format!("t{n}")
            };
            if c < 35 || scope.is_empty() {
                let r = [8, 16, 32][rng.below(3)];
                let v = fresh(n);
                out.push(format!("{ind}{v}: pl.Tile[[{r}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [{r}, 64], [{r}, 64], target_memory=pl.Mem.Vec)"));
                scope.push((v, r));
            } else if c < 60 {
                let (a, r) = scope[rng.below(scope.len())].clone();
                let v = fresh(n);
                let op = [
                    format!("pl.tile.exp({a})"),
                    format!("pl.tile.muls({a}, 2.0)"),
                    format!("pl.tile.add({a}, {a})"),
                ][rng.below(3)]
                .clone();
                out.push(format!(
                    "{ind}{v}: pl.Tile[[{r}, 64], pl.FP32, pl.Mem.Vec] = {op}"
                ));
                scope.push((v, r));
            } else if c < 75 {
                let a = scope[rng.below(scope.len())].0.clone();
                let v = fresh(n);
                out.push(format!(
                    "{ind}{v}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({a}, [0, 0], y)"
                ));
            } else if depth < 3 && c < 90 {
                out.push(format!("{ind}if k < {}:", rng.below(4)));
                let inner = format!("{ind}    ");
                block(
                    rng,
                    tail_store,
                    out,
                    &inner,
                    depth + 1,
                    &mut scope.clone(),
                    n,
                );
                out.push(format!("{ind}else:"));
                block(
                    rng,
                    tail_store,
                    out,
                    &inner,
                    depth + 1,
                    &mut scope.clone(),
                    n,
                );
            } else if depth < 3 {
                let i = fresh(n);
                out.push(format!("{ind}for i{i} in pl.range(2):"));
                let inner = format!("{ind}    ");
                block(
                    rng,
                    tail_store,
                    out,
                    &inner,
                    depth + 1,
                    &mut scope.clone(),
                    n,
                );
                if tail_store {
                    let v = fresh(n);
                    out.push(format!(
                        "{inner}{v}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({}, [0, 0], y)",
                        scope[0].0
                    ));
                }
            }
        }
    }
    let mut lines = Vec::new();
    let mut n = 0;
    block(rng, tail_store, &mut lines, "", 0, &mut Vec::new(), &mut n);
    lines.push("return y".into());
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    program(
        "InCore",
        "x: pl.Tensor[[64, 64], pl.FP32], k: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]",
        &body,
    )
}
