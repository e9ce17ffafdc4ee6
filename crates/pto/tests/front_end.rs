//! What the CLI and the Python module share: pass selection by name and the
//! capacity class of planning errors.

mod common;

use common::program;
use tilemem_pto::passes::{run_pipeline, select_passes, PassContext, PassId, PlannerMode};
use tilemem_soc::Soc;

#[test]
fn select_passes_by_list_stop_after_or_planner() {
    use PassId::*;
    let all = select_passes(PlannerMode::Pypto, None, None).unwrap();
    assert_eq!(all, PassId::ALL.to_vec());
    let list = select_passes(
        PlannerMode::Pypto,
        Some(&["init_memref", " allocate_memory_addr", ""]),
        None,
    );
    assert_eq!(list.unwrap(), vec![InitMemref, AllocateMemoryAddr]);
    let cut = select_passes(PlannerMode::Pypto, None, Some("memory_reuse")).unwrap();
    assert_eq!(
        cut,
        vec![InitMemref, MaterializeSemanticAliases, MemoryReuse]
    );
    // dsa-rp does not run memory_reuse: stopping "after" it stops before
    // allocate_memory_addr.
    let cut = select_passes(PlannerMode::DsaRp, None, Some("memory_reuse")).unwrap();
    assert_eq!(cut, vec![InitMemref, MaterializeSemanticAliases]);
    assert_eq!(
        select_passes(
            PlannerMode::Pypto,
            Some(&["memory_reuse", "init_memref"]),
            None
        )
        .unwrap_err(),
        "--passes must list passes in pipeline order without repeats (init_memref, \
         materialize_semantic_aliases, memory_reuse, allocate_memory_addr); 'init_memref' \
         cannot follow 'memory_reuse'"
    );
    assert!(select_passes(PlannerMode::Pypto, Some(&["reuse"]), None)
        .unwrap_err()
        .starts_with("unknown pass 'reuse' in --passes; passes: init_memref,"));
}

/// 64 x 752 FP32 = 192512 bytes: over 910B's 188416 usable UB bytes.
fn too_big() -> String {
    program(
        "InCore",
        "x: pl.Tensor[[64, 752], pl.FP32]) -> pl.Tensor[[64, 752], pl.FP32]",
        &[
            "a: pl.Tile[[64, 752], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 752], [64, 752], target_memory=pl.Mem.Vec)",
            "return x",
        ],
    )
}

#[test]
fn capacity_errors_of_both_planners_are_capacity_errors() {
    for planner in [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal] {
        let mut p = tilemem_pto::parse::parse(&too_big()).unwrap();
        let mut ctx = PassContext::new(Soc::from_name("910b").unwrap(), planner);
        let passes = PassId::default_pipeline(planner);
        let e = run_pipeline(&mut p, &mut ctx, &passes).unwrap_err();
        assert!(e.is_capacity(), "{planner:?}: {e}");
    }
}

#[test]
fn other_errors_are_not_capacity_errors() {
    let e = tilemem_pto::passes::PassError::planning("tiles 'a' and 'b' share slot 0");
    assert!(!e.is_capacity());
    let e = tilemem_pto::passes::PassError::internal("buffer usage exceeds platform limit");
    assert!(!e.is_capacity());
}
