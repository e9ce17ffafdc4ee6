//! The placement check after AllocateMemoryAddr follows the same seed rules
//! as MemoryReuse: under `--compat pypto-e2d0f78` an A2/A3 narrowing
//! `tile.cast` may share its source's buffer (PyPTO e2d0f78 let it), so
//! the check must accept that sharing instead of calling it a bug; with the
//! seed's rules the cast gets its own buffer.

use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode, SeedRules};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

/// The first lines of every test program.
macro_rules! head {
    () => {
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n"
    };
}

const SRC: &str = concat!(
    head!(),
    r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 128], pl.BF16]]) -> pl.Tensor[[16, 128], pl.BF16]:
        x: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, x)
        z: pl.Tile[[16, 128], pl.BF16, pl.Mem.Vec] = pl.tile.cast(y, target_type=pl.BF16, mode='round')
        r: pl.Tensor[[16, 128], pl.BF16] = pl.tile.store(z, [0, 0], o)
        return r
"#
);

fn plan(rules: SeedRules) -> String {
    let mut p = parse(SRC).expect("test program parses");
    let mut cx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    cx.seed_rules = rules;
    run_pipeline(
        &mut p,
        &mut cx,
        &PassId::default_pipeline(PlannerMode::Pypto),
    )
    .expect("planning succeeds");
    print(&p)
}

/// PyPTO e2d0f78's rules: the narrowing cast reuses its source's buffer and
/// the checked placement is written.
#[test]
fn compat_narrowing_cast_shares_its_source_and_passes_the_check() {
    let want = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], o: pl.Out[pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 128], pl.BF16]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        x: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(x, x)
        z: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(y, target_type=pl.BF16, mode='round')
        r: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(z, [0, 0], o)
        return r
"#
    );
    assert_eq!(plan(SeedRules::pypto_e2d0f78()), want);
}

/// The seed's rules: the narrowing cast gets a buffer of its own.
#[test]
fn seed_narrowing_cast_gets_its_own_buffer() {
    let want = concat!(
        head!(),
        r#"    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], o: pl.Out[pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 128], pl.BF16]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        x: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.add(x, x)
        z: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_vec_4, pl.const(8192, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.cast(y, target_type=pl.BF16, mode='round')
        r: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(z, [0, 0], o)
        return r
"#
    );
    assert_eq!(plan(SeedRules::ALL), want);
}
