//! InitMemRef rules found on PyPTO's real kernels, each on a small program
//! of our own (exact text after the pass, and a second run changes nothing).

use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

/// The first lines of every test program.
macro_rules! head {
    () => {
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n"
    };
}

fn init(src: &str) -> String {
    let mut p = parse(src).expect("test program parses");
    let mut cx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut cx, &[PassId::InitMemref]).expect("init_memref succeeds");
    print(&p)
}

/// The pass's output is `want`, and running it again changes nothing.
fn check(src: &str, want: &str) {
    let once = init(src);
    assert_eq!(once, want);
    assert_eq!(init(&once), once, "init_memref is idempotent");
}

/// A bare tensor alias (`s = r`, `b = a`) and a tuple element (`c = t[0]`) get a new DDR MemRef
/// each (PyPTO shares tensor storage only through calls); a bare tile alias
/// (`y = x`) keeps sharing its source's allocation.
#[test]
fn a_tensor_alias_or_tuple_element_gets_new_storage_a_tile_alias_shares() {
    let src = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = x
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(y, [0, 0], o)
        s: pl.Tensor[[16, 16], pl.FP32] = r
        return s
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        b: pl.Tensor[[16, 16], pl.FP32] = a
        t: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k(b, o)
        c: pl.Tensor[[16, 16], pl.FP32] = t[0]
        return c
"#
    );
    let want = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], o: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = x
        r: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(y, [0, 0], o)
        s: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = r
        return s
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], o: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        b: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)] = a
        t: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k(b, o)
        c: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 1024)] = t[0]
        return c
"#
    );
    check(src, want);
}

/// `pld.DistributedTensor` parameters, window results and stores get DDR MemRefs
/// exactly like `pl.Tensor`: a store result shares its output's, a window
/// (`pld.tensor.window` of a pointer) and a bare alias get new ones.
#[test]
fn distributed_tensors_get_ddr_memrefs_like_tensors() {
    let src = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[1, 64], pl.FP32], data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        d: pld.DistributedTensor[[1, 64], pl.FP32] = pl.tile.store(t, [0, 0], data)
        u: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(d, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        return x
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[1, 64], pl.FP32]:
        buf: pl.Ptr = pld.tensor.alloc_window_buffer(pl.const(256, pl.INT64))
        w: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(buf, [1, 64], dtype=pl.FP32)
        v: pld.DistributedTensor[[1, 64], pl.FP32] = w
        r: pl.Tensor[[1, 64], pl.FP32] = self.k(x, v)
        return r
"#
    );
    let want = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)], data: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 256)]]) -> pl.Tensor[[1, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        t: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        d: pld.DistributedTensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 256)] = pl.tile.store(t, [0, 0], data)
        u: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(d, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        return x
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[1, 64], pl.FP32]:
        buf: pl.Ptr = pld.tensor.alloc_window_buffer(pl.const(256, pl.INT64))
        w: pld.DistributedTensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 256)] = pld.tensor.window(buf, [1, 64], dtype=pl.FP32)
        v: pld.DistributedTensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 256)] = w
        r: pl.Tensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 256)] = self.k(x, v)
        return r
"#
    );
    check(src, want);
}

/// Results of a multi-value `pl.yield_` print untyped but still take a MemRef
/// number each (`pr`, `qr` take 4 and 5, so `z` is `mem_vec_7`); the tensor
/// result gets its own DDR MemRef (`mem_ddr_6`), which a store into it shares.
#[test]
fn untyped_results_of_a_multi_value_yield_take_numbers() {
    let src = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (p, q, w) in pl.range(4, init_values=(x, x, o)):
            p2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(p, q)
            w2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(p2, [0, 0], w)
            pr, qr, wr = pl.yield_(p2, q, w2)
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(pr, qr)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(z, [0, 0], wr)
        return r
"#
    );
    let want = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], o: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (p, q, w) in pl.range(4, init_values=(x, x, o)):
            p2: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(p, q)
            w2: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(p2, [0, 0], w)
            pr, qr, wr = pl.yield_(p2, q, w2)
        z: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(pr, qr)
        r: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_6", pl.const(0, pl.INT64), 1024)] = pl.tile.store(z, [0, 0], wr)
        return r
"#
    );
    check(src, want);
}

/// A window of a tensor whose shape is dynamic is sized 0 (its byte offset is
/// still written); a window of a static tensor keeps its own byte size.
#[test]
fn a_window_of_a_dynamic_shape_tensor_is_sized_0() {
    let src = r#"# pypto.program: P
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, bt: pl.Tensor[[N], pl.INT32], st: pl.Tensor[[4, 64], pl.INT32], off: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.INT32]:
        a: pl.Tensor[[64], pl.INT32] = pl.tensor.slice(bt, [64], [off])
        b: pl.Tensor[[64], pl.INT32] = pl.tensor.slice(st, [1, 64], [off, 0])
        return a
"#;
    let want = r#"# pypto.program: P
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, bt: pl.Tensor[[N], pl.INT32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 0)], st: pl.Tensor[[4, 64], pl.INT32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)], off: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.INT32]:
        a: pl.Tensor[[64], pl.INT32, pl.MemRef("mem_ddr_0", off * 4, 0)] = pl.tensor.slice(bt, [64], [off])
        b: pl.Tensor[[64], pl.INT32, pl.MemRef("mem_ddr_1", off * 64 * 4, 256)] = pl.tensor.slice(st, [1, 64], [off, 0])
        return a
"#;
    check(src, want);
}

/// A loop result takes its iter arg's storage (the init value's,
/// `mem_vec_2`), not the yielded value's (`q`, `mem_vec_3`), and still
/// takes a number of its own (4); MaterializeSemanticAliases later moves
/// `q` onto `mem_vec_2`.
#[test]
fn a_loop_result_shares_its_init_value_storage() {
    let src = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (p,) in pl.range(4, init_values=(x,)):
            q: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(p, p)
            r: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(q)
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(r, r)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(z, [0, 0], o)
        return s
"#
    );
    let want = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], o: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (p,) in pl.range(4, init_values=(x,)):
            q: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(p, p)
            r: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(q)
        z: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(r, r)
        s: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(z, [0, 0], o)
        return s
"#
    );
    check(src, want);
}
