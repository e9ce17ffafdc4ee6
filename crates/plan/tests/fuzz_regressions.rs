//! Inputs the fuzz target `solve` (fuzz/) found, reduced by hand. Ignored
//! ones are open findings; `cargo test -- --ignored` runs them.

use tilemem_plan::csv::parse;
use tilemem_plan::{solve, validate, Budget, SolverKind};

/// `# reserved=6-6` is an empty range: the reader accepts it and the
/// solvers treat it as reserving nothing (buffer `a` at [0, 8)), but the
/// validator reports "bytes [0, 8) use the reserved range [6, 6)", so every
/// solver except dsa-rp ends in "the solver produced an invalid
/// placement". The reader must reject an empty range or the validator
/// ignore it; solvers and validator must agree either way.
#[test]
#[ignore = "solvers and validator disagree on an empty reserved range (fuzz finding)"]
fn empty_reserved_range_reserves_nothing_for_solvers_and_validator_alike() {
    let Ok(file) = parse("# reserved=6-6\nid,lower,upper,size\na,0,1,8\n", "r.csv") else {
        return; // rejecting the empty range is a fine answer
    };
    for kind in SolverKind::ALL {
        let out = solve(&file.problem, kind, &Budget::default()).unwrap();
        if let Some(sol) = out.solution {
            assert!(validate(&file.problem, &sol).is_ok(), "{kind:?}: {sol:?}");
        }
    }
}
