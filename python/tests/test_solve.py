"""tilemem.solve and tilemem.validate: the facts of crates/cli/tests/solve.rs."""

import pytest

import tilemem
from conftest import PROBLEM, ROOT

ROWS = [("a", 0, 2, 64), ("b", 1, 3, 64), ("c", 2, 4, 64)]


def test_places_a_problem_file(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(PROBLEM)
    placed = tilemem.solve(path, capacity=128)
    assert placed.height == 128
    assert placed.proven_optimal
    # a and c do not meet, so they share [0, 64); b sits above.
    assert placed.offsets == {"a": 0, "b": 64, "c": 0}
    assert placed.csv == "id,lower,upper,size,offset\na,0,2,64,0\nb,1,3,64,64\nc,2,4,64,0\n"
    out = tmp_path / "out.csv"
    out.write_text(placed.csv)
    checked = tilemem.validate(str(out))
    assert checked.ok and checked.height == 128 and checked.buffers == 3


def test_places_a_list_with_alignment():
    placed = tilemem.solve(ROWS + [("d", 0, 4, 8, 32)], capacity=256)
    assert placed.offsets["d"] % 32 == 0
    assert tilemem.validate(ROWS + [("d", 0, 4, 8, 32)], placed).ok
    assert placed.lower_bound <= placed.height <= 256


def test_over_capacity_is_a_capacity_error():
    with pytest.raises(tilemem.CapacityError, match=r"no placement exists \(proven\)"):
        tilemem.solve(ROWS, capacity=100)


def test_every_solver_gives_a_valid_placement():
    path = ROOT / "examples/dsa/staircase.csv"
    for solver in ["auto", "exact", "canonical", "handoff", "first-fit", "best-fit", "sequential"]:
        placed = tilemem.solve(path, solver=solver, node_limit=20000)
        assert tilemem.validate(path, list(placed.offsets.values())).ok, solver
    with pytest.raises(ValueError, match="unknown solver"):
        tilemem.solve(path, solver="magic")


def test_validate_names_each_violation():
    checked = tilemem.validate(ROWS, [0, 0, 0])
    assert not checked.ok and not checked
    # a and b are both live at 1, as are b and c.
    assert len(checked.violations) == 2, checked.violations
    assert all("overlap" in v for v in checked.violations), checked.violations
    assert tilemem.validate(ROWS, {"a": 0, "b": 64, "c": 0}).height == 128


def test_bad_problems_are_parse_errors_with_a_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,lower,upper,size\na,0,1,-4\n")
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.solve(path)
    assert (info.value.file, info.value.line) == (str(path), 2)
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.solve([("a", 0, 1, 4), ("a", 1, 2, 4)])
    assert info.value.line == 3  # row 1 of the list
    with pytest.raises(tilemem.ParseError, match="no offset"):
        tilemem.validate(ROWS)
    with pytest.raises(ValueError, match="problem\\[0\\]"):
        tilemem.solve([("a b", 0, 1, 4)])


def test_the_bound_says_where_it_comes_from():
    # What `tilemem solve` prints on its bound line (crates/cli/tests/
    # solve.rs): the co-live peak and its instant, the aligned stack, and
    # the exact search's proof of an optimum that every rule misses.
    placed = tilemem.solve(ROWS)
    assert placed.lower_bound == 128
    assert placed.bound_source == "co-live peak at t=1: 2 buffers live together"
    aligned = [("a", 0, 2, 2, 4), ("b", 0, 2, 2, 4), ("c", 1, 3, 3, 1)]
    placed = tilemem.solve(aligned)
    assert (placed.lower_bound, placed.height) == (9, 9)
    assert placed.bound_source == (
        "aligned stack at t=1: 3 buffers live, their alignments leave holes"
    )
    assert tilemem.validate(aligned, placed).bound_source == placed.bound_source
    chain = [("a", 3, 7, 15, 3), ("b", 0, 5, 15, 6), ("c", 2, 3, 9, 12)]
    placed = tilemem.solve(chain, node_limit=100000)
    assert (placed.lower_bound, placed.height, placed.proven_optimal) == (33, 33, True)
    assert placed.bound_source == "proven by the exact search: no lower height fits"
    # Validation knows only the rules: the co-live peak.
    assert tilemem.validate(chain, placed).lower_bound == 30
