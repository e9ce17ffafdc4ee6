//! The planner-specific flow of materialize_semantic_aliases in the DSA_RP
//! mode, on the repository's own small programs (exact text): with
//! MemoryReuse skipped, the pass itself settles loop carries and `if`
//! results with `tile.move` copies (ordered, swaps through scratch), never
//! by moving a producer onto another allocation; a second run changes
//! nothing; and the PYPTO planner's flow is left to MemoryReuse.

use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

fn run(src: &str, mode: PlannerMode, passes: &[PassId]) -> String {
    let mut p = parse(src).expect("test program parses");
    let mut cx = PassContext::new(Soc::from_name("950").unwrap(), mode);
    run_pipeline(&mut p, &mut cx, passes).expect("pipeline succeeds");
    print(&p)
}

const UP_TO_ALIASES: &[PassId] = &[PassId::InitMemref, PassId::MaterializeSemanticAliases];

/// Checks the whole DSA_RP pipeline's output, that the aliases pass is
/// idempotent in DSA mode, and that PYPTO mode inserts no copy there.
fn check(src: &str, want: &str) {
    let full = PassId::default_pipeline(PlannerMode::DsaRp);
    assert_eq!(run(src, PlannerMode::DsaRp, &full), want);
    let once = run(src, PlannerMode::DsaRp, UP_TO_ALIASES);
    assert!(once.contains("pl.tile.move("), "{once}");
    let twice = run(
        &once,
        PlannerMode::DsaRp,
        &[PassId::MaterializeSemanticAliases],
    );
    assert_eq!(twice, once);
    let pypto = run(src, PlannerMode::Pypto, UP_TO_ALIASES);
    assert!(!pypto.contains("pl.tile.move("), "{pypto}");
}

/// A yielded `t` cannot be retargeted onto the carry's buffer (`p` is read after `t` is written): the DSA flow keeps `t` on its own allocation and copies it into the carry window before the yield. The second carry `q` (`b`'s bytes) lives through the whole loop, as the yield reads it every iteration: nothing in the loop takes its bytes.
#[test]
fn a_loop_yield_whose_carry_is_still_read_gets_a_move() {
    let src = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        a: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        b: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        for i, (p, q) in pl.range(4, init_values=(a, b)):
            t: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(p, p)
            u: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mul(t, p)
            s: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(u, [0, 0], y)
            ro, so = pl.yield_(t, q)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(ro, [0, 0], y)
        return r
"#;
    let want = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], y: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        b: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        for i, (p, q) in pl.range(4, init_values=(a, b)):
            t: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_4, pl.const(8192, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(p, p)
            u: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_5, pl.const(12288, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.mul(t, p)
            s: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(u, [0, 0], y)
            t_mv: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
            ro, so = pl.yield_(t_mv, q)
        r: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(ro, [0, 0], y)
        return r
"#;
    check(src, want);
}

/// Two carries yielded crosswise: one copy goes through a scratch allocation made at the top of the function, so no copy overwrites bytes the other still reads.
#[test]
fn swapped_carries_go_through_a_scratch_buffer() {
    let src = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        a: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        b: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        for i, (p, q) in pl.range(4, init_values=(a, b)):
            ro, so = pl.yield_(q, p)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(ro, so)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(c, [0, 0], y)
        return r
"#;
    let want = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], y: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        b: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        for i, (p, q) in pl.range(4, init_values=(a, b)):
            q_swap: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_7, pl.const(8192, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(q, target_memory=pl.Mem.Vec)
            p_mv: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(p, target_memory=pl.Mem.Vec)
            q_mv: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(q_swap, target_memory=pl.Mem.Vec)
            ro, so = pl.yield_(q_mv, p_mv)
        c: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_6, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(ro, so)
        r: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c, [0, 0], y)
        return r
"#;
    check(src, want);
}

/// The `if` result takes the then branch's buffer; the else value keeps its own allocation (no sharing in DSA mode) and is moved into it.
#[test]
fn the_else_branch_of_an_if_is_copied_not_retargeted() {
    let src = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        if n == 0:
            a: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
            v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(a)
        else:
            b: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
            v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(b)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(v, [0, 0], y)
        return r
"#;
    let want = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        if n == 0:
            a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
            v: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(a)
        else:
            b: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
            b_mv: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(b, target_memory=pl.Mem.Vec)
            v: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(b_mv)
        r: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(v, [0, 0], y)
        return r
"#;
    check(src, want);
}

/// An `if` result `h` is yielded by one loop whose carry lives in `a`'s
/// buffer, and is the init of a second loop. `h`'s then value `e` cannot
/// move onto `a` (`a` is read after the `if`), so `h` stays in `e`'s
/// window and the first loop copies it into `a` (`h_mv`); the first
/// loop's result `r` then lives in `a`'s buffer until its store after the
/// second loop. The second loop's body `w` must therefore be pushed onto
/// `h`'s window (`mem_vec_3`), never onto `a`'s (`mem_vec_2`), which it
/// would overwrite while `r` is still to be read.
#[test]
fn a_loop_fed_by_an_if_result_writes_the_if_window_not_an_earlier_carry() {
    let src = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]], k: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 32], pl.FP32]:
        a: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        if k < 1:
            e: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
            h: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(e)
        else:
            g: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(a, 2.0)
            h: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(g)
        s: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(a, [0, 0], y)
        for i, (c,) in pl.range(2, init_values=(a,)):
            r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(h)
        for j, (d,) in pl.range(2, init_values=(h,)):
            w: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(d, d)
            dd: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(w)
        s2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(r, [0, 0], y)
        s3: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(dd, [0, 0], y)
        return y
"#;
    let want = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], y: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]], k: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
        if k < 1:
            e: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(a)
            h: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(e)
        else:
            g: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_4, pl.const(8192, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.muls(a, 2.0)
            g_mv: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(g, target_memory=pl.Mem.Vec)
            h: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(g_mv)
        s: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(a, [0, 0], y)
        for i, (c,) in pl.range(2, init_values=(a,)):
            h_mv: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.move(h, target_memory=pl.Mem.Vec)
            r: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(h_mv)
        for j, (d,) in pl.range(2, init_values=(h,)):
            w: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(d, d)
            dd: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.yield_(w)
        s2: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(r, [0, 0], y)
        s3: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(dd, [0, 0], y)
        return y
"#;
    check(src, want);
}
