//! Inputs the fuzz target `solve` (fuzz/) found, reduced by hand. Ignored
//! ones are open findings; `cargo test -- --ignored` runs them.

use tilemem_plan::csv::parse;
use tilemem_plan::{solve, validate, Budget, SolverKind};

/// `# reserved=6-6` is an empty range: the reader accepts it and the
/// solvers treat it as reserving nothing (buffer `a` at [0, 8)); the
/// validator once reported "bytes [0, 8) use the reserved range [6, 6)".
/// Rule: an empty range reserves no byte, for reader, solvers and
/// validator alike.
#[test]
fn empty_reserved_range_reserves_nothing_for_solvers_and_validator_alike() {
    let file = parse("# reserved=6-6\nid,lower,upper,size\na,0,1,8\n", "r.csv").unwrap();
    assert_eq!(file.problem.reserved, vec![(6, 6)]);
    for kind in SolverKind::ALL {
        let out = solve(&file.problem, kind, &Budget::default()).unwrap();
        let sol = out
            .solution
            .unwrap_or_else(|| panic!("{kind:?} found no placement"));
        assert_eq!(sol.offsets, vec![0], "{kind:?}: `a` fits at 0");
        assert!(validate(&file.problem, &sol).is_ok(), "{kind:?}: {sol:?}");
    }
}
