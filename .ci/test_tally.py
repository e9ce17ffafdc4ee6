"""Tests of .ci/tally.py, the total line of `.ci/run` (run by `.ci/run` with pytest)."""

import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "tally", os.path.join(os.path.dirname(__file__), "tally.py"))
tally = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tally)

CARGO = """\
running 3 tests
SKIPPED (no ../shared): shared_problems: ../shared/data/dsa not found
test shared_problems ... ok
test a ... ok
test b ... ok

test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s

running 2 tests
test c ... SKIPPED (no ../shared): shared_table_matches_registry_csv: ../shared/reference/pypto/op-registry.csv not present
ok
test d ... FAILED

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s
"""

LIT = """\
PASS: tilemem :: pto/input-space.py (1 of 50)
Testing Time: 2.10s

Total Discovered Tests: 50
  Unsupported: 2 (4.00%)
  Passed     : 47 (94.00%)
  Failed     : 1 (2.00%)
"""

PYTEST = """\
SKIPPED [1] python/tests/test_pypto.py:10: PyPTO is not installed
========== 40 passed, 3 skipped in 1.52s ==========
"""


def test_cargo_skip_lines_move_tests_from_passed_to_skipped():
    assert tally.count(CARGO) == (2, 1, 3)


def test_lit_summary():
    assert tally.count(LIT) == (47, 1, 2)


def test_pytest_skips_are_not_counted_twice():
    assert tally.count(PYTEST) == (40, 0, 3)


def test_browser_lines():
    assert tally.count("browser test: plan.html ok (lanes=1)\nbrowser test: solve.html FAILED: no bars\n") == (1, 1, 0)


def test_fuzz_smoke_lines():
    text = ("fuzz smoke: pto_reader ok (100000 runs after the seeds, 21 s)\n"
            "fuzz smoke: plan FAILED (fuzz/logs/plan.smoke.log):\n")
    assert tally.count(text) == (1, 1, 0)


def test_total_line_and_exit_status(tmp_path, capsys):
    a = tmp_path / "cargo.log"
    a.write_text(CARGO)
    b = tmp_path / "py.log"
    b.write_text(PYTEST)
    c = tmp_path / "broken.log"
    c.write_text("error[E0425]: cannot find value `x`\n")
    assert tally.main(["--installed", "chromium (apt-get)", str(a), str(b) + ":0", str(c) + ":101"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["installed: chromium (apt-get)", "tests: 42 passed, 2 failed, 6 skipped"]


def test_all_green(tmp_path, capsys):
    b = tmp_path / "py.log"
    b.write_text(PYTEST)
    assert tally.main(["--installed", "", str(b) + ":0"]) == 0
    assert capsys.readouterr().out.splitlines() == ["installed: nothing", "tests: 40 passed, 0 failed, 3 skipped"]
