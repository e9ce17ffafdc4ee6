//! MemRefs a program already carries: every planner reads them the same
//! way. In a program not yet planned a tile's offset counts from its
//! allocation's start (seed 001: AllocateMemoryAddr puts each tile at
//! `slot base + its offset`); in a planned one it is the address
//! AllocateMemoryAddr wrote, and the allocation sits at its lowest tile,
//! whichever planner chose the addresses. A function InitMemRef gives new
//! storage (its tensor parameters have no MemRef) does not read the MemRefs
//! its tiles carried, as in PyPTO, and the user is told so on stderr.

mod common;

use common::{program, tile_offset, PLANNERS, TARGETS};
use tilemem_pto::passes::{run_pipeline, ErrorKind, PassContext, PassId, PlannerMode};
use tilemem_soc::Soc;

/// A signature whose tensors have storage: the program reads as one after
/// InitMemRef, so the planners read its tiles' MemRefs.
const SIG_STORED: &str = "x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 256)], y: pl.Out[pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_1\", pl.const(0, pl.INT64), 256)]]) -> pl.Tensor[[8, 8], pl.FP32]";
/// The same without storage: InitMemRef gives every tile new storage.
const SIG_BARE: &str = "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]";

/// `a` loaded into `mem_vec_2` at `a_at`, `b = exp(a)` in `mem_vec_3` at
/// `b_at`, `b` stored: `a` and `b` are live together.
fn two_tiles(sig: &str, a_at: u64, b_at: u64) -> String {
    program(
        "InCore",
        sig,
        &[
            "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            &format!("a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const({a_at}, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)"),
            &format!("b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_3, pl.const({b_at}, pl.INT64), 256), pl.Mem.Vec] = pl.tile.exp(a)"),
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    )
}

/// Runs `passes` (`None`: the planner's whole pipeline) on `src`; the
/// printed program and the warnings.
fn run(
    src: &str,
    planner: PlannerMode,
    target: &str,
    passes: Option<&[PassId]>,
) -> Result<(String, Vec<String>), tilemem_pto::passes::PassError> {
    let mut p = tilemem_pto::parse::parse(src).unwrap();
    let mut ctx = PassContext::new(Soc::from_name(target).unwrap(), planner);
    let all = PassId::default_pipeline(planner);
    run_pipeline(&mut p, &mut ctx, passes.unwrap_or(&all))?;
    let notes = ctx.diagnostics.iter().map(|d| d.to_string()).collect();
    Ok((tilemem_pto::print::print(&p), notes))
}

/// A layout the PYPTO planner's address stage does not make (`a` at 256,
/// `b` at 0, as DSA-RP may place them) is a planned program for every
/// planner. The PYPTO planner read its offsets from 0, found `a`'s window
/// [256, 512) past its 256-byte allocation and refused it (exit 2), while
/// DSA-RP and the optimal planner kept it; 23 of the 93 shared cases DSA-RP
/// plans were refused that way when planned again by the PYPTO planner.
/// Now the PYPTO planner packs it again as MemoryReuse packs any program
/// (`b = exp(a)` reads `a` for the last time and takes its bytes: both at
/// 0), DSA-RP and the optimal planner keep the addresses, and planning any
/// output again changes nothing.
#[test]
fn every_planner_reads_a_planned_layout_from_its_lowest_tiles() {
    let src = two_tiles(SIG_STORED, 256, 0);
    for target in TARGETS {
        for planner in PLANNERS {
            let (out, notes) = run(&src, planner, target, None)
                .unwrap_or_else(|e| panic!("{planner:?} on {target}: {e}"));
            assert!(notes.is_empty(), "{planner:?} on {target}: {notes:?}");
            let want = match planner {
                PlannerMode::Pypto => (0, 0),
                PlannerMode::DsaRp | PlannerMode::Optimal => (256, 0),
                // Its pipeline plans no addresses (the assembler does):
                // the MemRefs stay as written.
                PlannerMode::Ptoas => (256, 0),
            };
            assert_eq!(
                (tile_offset(&out, "a"), tile_offset(&out, "b")),
                want,
                "{planner:?} on {target}\n{out}"
            );
            let (again, _) = run(&out, planner, target, None).unwrap();
            assert_eq!(again, out, "{planner:?} on {target}: not a fixed point");
        }
    }
}

/// The same reading without InitMemRef (`--passes
/// memory_reuse,allocate_memory_addr`, or the address pass alone): a tile
/// alone at 512 in a 256-byte allocation is that allocation at 512. The
/// PYPTO planner counted from 0 and refused it while the others planned
/// it at 512.
#[test]
fn without_init_memref_every_planner_plans_an_allocation_at_its_lowest_tile() {
    let src = program(
        "InCore",
        SIG_BARE,
        &[
            "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_0, pl.const(512, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    );
    let reuse_alloc = [PassId::MemoryReuse, PassId::AllocateMemoryAddr];
    let alloc = [PassId::AllocateMemoryAddr];
    for target in TARGETS {
        for planner in PLANNERS {
            for passes in [&reuse_alloc[..], &alloc[..]] {
                let (out, notes) = run(&src, planner, target, Some(passes))
                    .unwrap_or_else(|e| panic!("{planner:?} {passes:?} on {target}: {e}"));
                assert!(notes.is_empty(), "{notes:?}");
                let want = match planner {
                    PlannerMode::Pypto | PlannerMode::Ptoas => 0,
                    PlannerMode::DsaRp | PlannerMode::Optimal => 512,
                };
                assert_eq!(
                    tile_offset(&out, "a"),
                    want,
                    "{planner:?} {passes:?} on {target}\n{out}"
                );
                assert!(out.contains("pl.MemRef(mem_vec_0, "), "{out}");
            }
        }
    }
}

/// A window past its allocation counted from the allocation's lowest tile
/// is no layout at all: every planner refuses it, with the same words.
#[test]
fn a_window_past_the_lowest_tile_is_refused_by_every_planner() {
    let mut src = two_tiles(SIG_STORED, 256, 0);
    // `c` in `mem_vec_2` at 384: 128 bytes past the allocation at 256.
    src = src.replace(
        "        r: pl.Tensor",
        "        c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(384, pl.INT64), 256), pl.Mem.Vec] = pl.tile.exp(b)\n        r: pl.Tensor",
    );
    for target in TARGETS {
        for planner in [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal] {
            let e = run(&src, planner, target, None).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Input, "{planner:?} on {target}: {e}");
            assert_eq!(
                e.message,
                "tile 'c' has the window [128, 128 + 256) of allocation 'mem_vec_2', which \
                 holds 256 bytes: MemRef offsets are relative to their allocation, or the \
                 addresses allocate_memory_addr gave; write the offset within the allocation",
                "{planner:?} on {target}"
            );
        }
    }
}

/// InitMemRef gives a function whose tensor parameters have no MemRef new
/// storage and does not read the MemRefs its tiles carry, as PyPTO does;
/// the user gets a warning naming how many and the first, and the output
/// is the one the same program gets without those MemRefs.
#[test]
fn discarded_memrefs_are_a_warning_not_a_change_of_output() {
    let with = two_tiles(SIG_BARE, 256, 0);
    let without = program(
        "InCore",
        SIG_BARE,
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    );
    for target in TARGETS {
        for planner in [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal] {
            let (out, notes) = run(&with, planner, target, None).unwrap();
            assert_eq!(
                notes,
                [
                    "[warning] line 10: function 'main': its tensor parameters carry no MemRef, \
                  so InitMemRef gives every tile new storage and the MemRefs of 2 tiles (first \
                  'a', in 'mem_vec_2') are not read, as in PyPTO; give the tensor parameters \
                  their MemRefs to plan the tiles where those MemRefs put them"
                ],
                "{planner:?} on {target}"
            );
            let (plain, plain_notes) = run(&without, planner, target, None).unwrap();
            assert!(plain_notes.is_empty(), "{plain_notes:?}");
            assert_eq!(out, plain, "{planner:?} on {target}");
            // Planned storage is read: no warning when planned again.
            let (_, again) = run(&out, planner, target, None).unwrap();
            assert!(again.is_empty(), "{planner:?} on {target}: {again:?}");
        }
    }
}

/// Another planner's layout puts buffers on shared bytes (`a` and `c`, never
/// live together, both at 0), which the PYPTO planner's address stage
/// cannot give separate buffers: it packs such a program again (here all
/// three tiles into `a`'s buffer, each reading the previous one for the
/// last time) instead of keeping every buffer and laying them out one
/// after another (`a`, `b`, `c` at 0, 256, 512), which needed more than
/// the bytes the layout used (on the shared cases, 22 of 183 DSA-RP
/// layouts then no longer fit). Planning its output again changes
/// nothing.
#[test]
fn the_pypto_planner_packs_another_planners_layout_again() {
    let src = program(
        "InCore",
        SIG_STORED,
        &[
            "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_3, pl.const(256, pl.INT64), 256), pl.Mem.Vec] = pl.tile.exp(a)",
            "c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.exp(b)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(c, [0, 0], y)",
            "return r",
        ],
    );
    for target in TARGETS {
        let (out, _) = run(&src, PlannerMode::Pypto, target, None).unwrap();
        assert_eq!(
            ["a", "b", "c"].map(|t| tile_offset(&out, t)),
            [0, 0, 0],
            "{target}\n{out}"
        );
        assert!(
            out.contains("c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, "),
            "{target}\n{out}"
        );
        let (again, _) = run(&out, PlannerMode::Pypto, target, None).unwrap();
        assert_eq!(again, out, "{target}: not a fixed point");
    }
}
