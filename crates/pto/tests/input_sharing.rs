//! The sharing an input program declares is checked before planning: two
//! tiles the input puts in one MemRef allocation while both are live are an
//! input error at the second tile's statement (the planners keep the
//! input's sharing, so the placement check after them used to report it as
//! a bug of the memory passes), for every planner and from text or
//! MessagePack. Sharing the op table allows (views, in-place results, loop
//! carries, reuse after the last read) still plans.

use std::path::PathBuf;

use tilemem_pto::ir::Program;
use tilemem_pto::passes::{ErrorKind, PassError, PlannerMode};
use tilemem_pto::plan::{plan, PlanOptions};
use tilemem_soc::Soc;

const PLANNERS: [PlannerMode; 4] = [
    PlannerMode::Pypto,
    PlannerMode::DsaRp,
    PlannerMode::Optimal,
    PlannerMode::Ptoas,
];

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/input_sharing")
        .join(name)
}

fn read(name: &str) -> Program {
    let bytes = std::fs::read(data(name)).unwrap();
    if name.ends_with(".msgpack") {
        tilemem_pto::msgpack::read_program(&bytes).expect("the document reads")
    } else {
        tilemem_pto::parse::parse(std::str::from_utf8(&bytes).unwrap()).expect("the program reads")
    }
}

fn plan_with(name: &str, planner: PlannerMode) -> Result<Program, PassError> {
    let mut p = read(name);
    let opts = PlanOptions::new(Soc::from_name("910b").unwrap(), planner);
    plan(&mut p, &opts).map(|_| p).map_err(|f| f.error)
}

/// `(line, col, message)` of the input error every planner gives.
fn input_error(name: &str) -> (u32, u32, String) {
    let mut seen = None;
    for planner in PLANNERS {
        let e = match plan_with(name, planner) {
            Ok(_) => panic!("{name} plans with {planner:?}"),
            Err(e) => e,
        };
        assert_eq!(e.kind, ErrorKind::Input, "{name}, {planner:?}: {e}");
        let loc = e.loc.expect("the error has a position");
        let got = (loc.line, loc.col, e.to_string());
        if let Some(first) = &seen {
            assert_eq!(&got, first, "{name}: {planner:?} differs");
        }
        seen = Some(got);
    }
    seen.unwrap()
}

#[test]
fn co_live_tiles_in_one_memref_are_an_input_error_at_the_second() {
    assert_eq!(
        input_error("co_live.py"),
        (
            11,
            9,
            "ValueError: tiles 'tile_a' and 'tile_b' share MemRef 'mem_vec_3' (bytes [0, 16384) \
             of its Vec allocation) while both are live: 'tile_b' is written here over 'tile_a', \
             which is still read at line 12; give 'tile_b' a MemRef of its own (its own \
             allocation), or drop the MemRefs and let the planner decide what shares"
                .to_string()
        )
    );
}

/// A tile written in a loop body over a tile from before the loop that is
/// read after it: the read finds its bytes cleared by the loop, and the
/// error names the writer in the body.
#[test]
fn a_loop_body_tile_over_a_tile_read_after_the_loop_is_named() {
    assert_eq!(
        input_error("co_live_loop.py"),
        (
            14,
            13,
            "ValueError: tiles 'scale' and 't' share MemRef 'mem_vec_3' (bytes [0, 16384) of its \
             Vec allocation) while both are live: 't' is written here over 'scale', which is \
             still read at line 17; give 't' a MemRef of its own (its own allocation), or drop \
             the MemRefs and let the planner decide what shares"
                .to_string()
        )
    );
}

/// The same program with its loop body tile in an allocation of its own:
/// the in-place add over the carry and the carry sharing its init plan
/// with every planner.
#[test]
fn carries_and_in_place_results_in_one_memref_plan() {
    for planner in PLANNERS {
        if let Err(e) = plan_with("legal_loop.py", planner) {
            panic!("{planner:?}: {e}");
        }
    }
}

/// PyPTO's `rms_norm` after MemoryReuse (views and in-place results share
/// allocations) plans; with `tile_gamma` moved into `tile_x`'s allocation
/// (the document re-encoded) it is the same input error as from text, at
/// the line of the program's text form.
#[test]
fn messagepack_input_is_checked_the_same() {
    let legal = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/msgpack/rms_norm/34_after_MemoryReuse.msgpack");
    for planner in PLANNERS {
        let mut p = tilemem_pto::msgpack::read_program(&std::fs::read(&legal).unwrap()).unwrap();
        let opts = PlanOptions::new(Soc::from_name("910b").unwrap(), planner);
        if let Err(f) = plan(&mut p, &opts) {
            panic!("{planner:?}: {}", f.error);
        }
    }
    let (line, col, msg) = input_error("co_live.msgpack");
    assert_eq!((line, col), (14, 9));
    assert!(
        msg.starts_with(
            "ValueError: tiles 'tile_x__ssa_v0' and 'tile_gamma__ssa_v0' share MemRef \
             'mem_vec_3' (bytes [0, 8192) of its Vec allocation) while both are live: \
             'tile_gamma__ssa_v0' is written here over 'tile_x__ssa_v0', which is still read at \
             line 15;"
        ),
        "{msg}"
    );
}

/// Programs our own first two passes (InitMemRef, MaterializeSemanticAliases)
/// printed for generated kernels (`planners_property.rs`), planned again:
/// before MemoryReuse a view's MemRef may still name its source's old root
/// (`staged_stale_view.py`), a slice of a loop carry names the carry's
/// buffer (`staged_view_of_a_carry.py`), and a carry's init, yields and
/// results share the carry's buffer before the copies MemoryReuse adds
/// (`staged_carry_family.py`, which then does not fit). None is a sharing
/// the input declares: no input error.
#[test]
fn staged_programs_of_our_own_passes_are_not_input_errors() {
    for name in [
        "staged_view_of_a_carry.py",
        "staged_stale_view.py",
        "staged_carry_family.py",
    ] {
        for planner in [PlannerMode::Pypto, PlannerMode::DsaRp] {
            if let Err(e) = plan_with(name, planner) {
                assert_eq!(e.kind, ErrorKind::Planning, "{name}, {planner:?}: {e}");
            }
        }
    }
}
