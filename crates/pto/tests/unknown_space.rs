//! A `pl.Mem.<Name>` the SoC crate does not know, in an allocation
//! statement: kept verbatim as `MemSpace::Other` through reading, the
//! address pass and printing, and never given an address or a capacity.

mod common;

use common::program;
use tilemem_pto::ir::MemSpace;
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_soc::{MemoryAllocatorPolicy, Soc};

fn src() -> String {
    program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "mem_scratch_0: pl.Ptr = pl.tile.alloc(pl.Mem.Scratch, 64)",
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    )
}

#[test]
fn an_unknown_alloc_space_reads_as_other() {
    let p = tilemem_pto::parse::parse(&src()).unwrap();
    let allocs = p.functions[0].allocs();
    assert_eq!(allocs.len(), 1);
    let space = allocs[0].space;
    assert_eq!(space, MemSpace::parse("Scratch"));
    assert_eq!(space.name(), "Scratch");
    assert!(!space.is_known());
    assert!(!space.is_on_chip());
    assert_eq!(Soc::ascend910b().capacity(space), None);
    assert!(!tilemem_soc::DefaultPolicy.should_allocate(space));
}

#[test]
fn the_address_pass_leaves_an_unknown_space_verbatim() {
    let mut p = tilemem_pto::parse::parse(&src()).unwrap();
    let mut ctx = PassContext::new(Soc::ascend910b(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut ctx, &[PassId::AllocateMemoryAddr]).unwrap();
    assert_eq!(tilemem_pto::print::print(&p), src());
}

#[test]
fn dsa_rp_drops_the_unused_allocation_whatever_its_space() {
    let mut p = tilemem_pto::parse::parse(&src()).unwrap();
    let mut ctx = PassContext::new(Soc::ascend910b(), PlannerMode::DsaRp);
    run_pipeline(&mut p, &mut ctx, &[PassId::AllocateMemoryAddr]).unwrap();
    let out = tilemem_pto::print::print(&p);
    assert_eq!(
        out,
        src().replace(
            "        mem_scratch_0: pl.Ptr = pl.tile.alloc(pl.Mem.Scratch, 64)\n",
            ""
        )
    );
}
