//! `sequential::make_relative`: a laid-out function goes back to
//! root-relative offsets, a relative one is left alone (decided without
//! building a layout when two roots of one space start at offset 0).

mod common;

use common::program;
use tilemem_pto::passes::sequential::{allocate_function, make_relative};
use tilemem_pto::passes::{PassContext, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

fn two_roots() -> String {
    program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.add(b, b)",
            "r: pl.Tile[[4, 8], pl.FP32, pl.MemRef(mem_vec_2, 128, 128), pl.Mem.Vec] = pl.tile.slice(c, [4, 8], [4, 0])",
            "return x",
        ],
    )
}

#[test]
fn relative_function_is_left_alone_and_laid_out_one_is_undone() {
    let cx = PassContext::new(Soc::ascend950(), PlannerMode::Pypto);
    let src = two_roots();
    let mut p = parse(&src).unwrap();
    let before = print(&p);
    // Two roots of Vec start at offset 0: not laid out, nothing changes
    // (the view at 128 alone would not tell).
    assert!(!make_relative(&mut p.functions[0], cx.policy.as_ref()));
    assert_eq!(print(&p), before);

    allocate_function(&mut p.functions[0], &cx.soc, cx.policy.as_ref()).unwrap();
    let laid_out = print(&p);
    assert!(
        laid_out.contains("pl.MemRef(mem_vec_2, pl.const(256, pl.INT64), 256)"),
        "{laid_out}"
    );
    assert!(
        laid_out.contains("pl.MemRef(mem_vec_2, pl.const(384, pl.INT64), 128)"),
        "{laid_out}"
    );

    assert!(make_relative(&mut p.functions[0], cx.policy.as_ref()));
    let back = print(&p);
    assert!(
        back.contains("pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256)"),
        "{back}"
    );
    assert!(
        back.contains("pl.MemRef(mem_vec_2, pl.const(128, pl.INT64), 128)"),
        "{back}"
    );
    // And laying it out again gives the same addresses.
    allocate_function(&mut p.functions[0], &cx.soc, cx.policy.as_ref()).unwrap();
    assert_eq!(print(&p), laid_out);
}
