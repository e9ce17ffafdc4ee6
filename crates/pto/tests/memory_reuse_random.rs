//! Random kernels (straight code, loops with carries, ifs with phis, views,
//! ops with no-alias rules, two spaces) through the whole PYPTO pipeline.
//! The address pass checks every placement with an independent validator,
//! so any sharing of co-live bytes by MemoryReuse fails the pipeline; the
//! test also checks that MemoryReuse never panics and is idempotent.

mod common;

use common::{random_kernel, Rng};
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_soc::Soc;

fn generate(rng: &mut Rng, stmts: usize) -> String {
    random_kernel(rng, stmts, &[16, 32, 64])
}

#[test]
fn random_kernels_plan_without_overlap_and_reuse_is_idempotent() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut shared, mut swaps, mut moves) = (0usize, 0usize, 0usize);
    for case in 0..200 {
        let src = generate(&mut rng, 10 + case % 40);
        if std::env::var("DUMP_RANDOM").is_ok() {
            let _ = std::fs::write(format!("/tmp/rand_{case}.py"), &src);
        }
        let mut p = tilemem_pto::parse(&src)
            .unwrap_or_else(|e| panic!("case {case}: {}\n{src}", e.message));
        let mut ctx = PassContext::new(Soc::no_backend(), PlannerMode::Pypto);
        run_pipeline(
            &mut p,
            &mut ctx,
            &[PassId::InitMemref, PassId::MaterializeSemanticAliases],
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}\n{src}"));
        let before_allocs = tilemem_pto::print(&p).matches("pl.tile.alloc").count();
        run_pipeline(&mut p, &mut ctx, &[PassId::MemoryReuse])
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{src}"));
        let once = tilemem_pto::print(&p);
        shared += before_allocs.saturating_sub(once.matches("pl.tile.alloc").count());
        swaps += usize::from(once.contains("_swap: "));
        moves += usize::from(once.contains("_mv: "));
        run_pipeline(&mut p, &mut ctx, &[PassId::MemoryReuse]).unwrap();
        assert_eq!(
            tilemem_pto::print(&p),
            once,
            "case {case}: second run changed\n{src}"
        );
        // The address pass validates every placement independently.
        run_pipeline(&mut p, &mut ctx, &[PassId::AllocateMemoryAddr])
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{once}"));
    }
    // The generator leaves plenty to share; a pass that shares nothing
    // would trivially pass the checks above.
    println!("{shared} allocations shared; {moves} programs with yield copies, {swaps} with swaps");
    assert!(shared > 500, "only {shared} allocations were shared");
    assert!(moves > 0 && swaps > 0, "copies {moves}, swaps {swaps}");
}

#[test]
fn random_kernels_over_capacity_use_the_fallbacks_soundly() {
    // Tiles of 8 KiB to 48 KiB on 910B's 188416-byte Vec: many programs
    // overflow whole-buffer packing, so the sub-range fallback runs; the
    // result is either placed (and validated) or a capacity error, never an
    // internal error.
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let (mut placed, mut over, mut sub_range) = (0, 0, 0);
    for case in 0..150 {
        let src = random_kernel(&mut rng, 8 + case % 30, &[32, 64, 128, 192]);
        let mut p =
            tilemem_pto::parse(&src).unwrap_or_else(|e| panic!("case {case}: {}", e.message));
        let mut ctx = PassContext::new(Soc::ascend910b(), PlannerMode::Pypto);
        run_pipeline(
            &mut p,
            &mut ctx,
            &[
                PassId::InitMemref,
                PassId::MaterializeSemanticAliases,
                PassId::MemoryReuse,
            ],
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}\n{src}"));
        let once = tilemem_pto::print(&p);
        if once.lines().any(|l| {
            l.contains("pl.Mem.Vec] =")
                && l.contains("pl.const(")
                && !l.contains("pl.const(0, pl.INT64)")
        }) {
            sub_range += 1;
        }
        run_pipeline(&mut p, &mut ctx, &[PassId::MemoryReuse]).unwrap();
        assert_eq!(
            tilemem_pto::print(&p),
            once,
            "case {case}: second run changed\n{src}"
        );
        match run_pipeline(&mut p, &mut ctx, &[PassId::AllocateMemoryAddr]) {
            Ok(()) => placed += 1,
            Err(e) if e.to_string().contains("exceeds platform limit") => over += 1,
            Err(e) => panic!("case {case}: {e}\n{once}"),
        }
    }
    println!("placed {placed}, over capacity {over}, with sub-range placements {sub_range}");
    assert!(
        placed > 50 && over > 0 && sub_range > 0,
        "placed {placed}, over capacity {over}, sub-range {sub_range}"
    );
}
