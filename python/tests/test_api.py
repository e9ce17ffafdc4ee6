"""The Python API as a new user meets it: paths or text, every command,
every option of the command line, and errors that read cleanly."""

import os
import pathlib

import pytest

import tilemem
import tilemem.pypto
from conftest import KERNEL, ROOT

CHAIN = ROOT / "examples/pto/vector_chain.py"
OVER = ROOT / "examples/pto/over_capacity.py"
MLIR = ROOT / "examples/mlir/unaligned_rows.mlir"


def test_plan_explain_fmt_and_opt_take_a_path_like_or_text():
    text = CHAIN.read_text()
    assert tilemem.plan(CHAIN).program == tilemem.plan(text).program
    assert tilemem.plan(str(CHAIN)).program == tilemem.plan(text).program
    assert tilemem.fmt(CHAIN) == text
    assert tilemem.fmt(text) == text
    passes = ["hivm-mark-stride-align", "hivm-enable-stride-align"]
    assert tilemem.opt(MLIR, passes) == tilemem.opt(MLIR.read_text(), passes)
    with pytest.raises(TypeError, match="expected program text or a path"):
        tilemem.plan(b"bytes")


def test_errors_of_a_path_name_the_file():
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.plan(ROOT / "examples/dsa/staircase.csv")
    assert info.value.file.endswith("staircase.csv")


def _raised(call, *args):
    with pytest.raises(tilemem.ParseError) as info:
        call(*args)
    return info.value


def test_a_file_of_another_kind_is_named_with_the_function_that_reads_it(tmp_path):
    # What the command line says for a file given to the wrong command,
    # naming the Python function instead of the command.
    csv, mlir, py = "staircase.csv", "unaligned_rows.mlir", "vector_chain.py"
    for name, folder in ((csv, "dsa"), (mlir, "mlir"), (py, "pto")):
        (tmp_path / name).write_bytes((ROOT / "examples" / folder / name).read_bytes())
    doc = ROOT / "crates/pto/tests/data/input_sharing/co_live.msgpack"
    (tmp_path / "k.msgpack").write_bytes(doc.read_bytes())
    is_csv = (
        'this is a placement problem (CSV), not a PyPTO program: use `tilemem.solve("staircase.csv")` '
        "(or `tilemem.validate` for a placed one)"
    )
    is_mlir = (
        'this is an MLIR file, not a PyPTO program: use `tilemem.opt("unaligned_rows.mlir", '
        '["hacc-append-device-spec=target=Ascend910B1", "hivm-plan-memory"])` (plan its local '
        'memory), `tilemem.explain("unaligned_rows.mlir")` (where the memory goes, what would '
        "make it fit); `tilemem.mlir_passes()` lists every pass"
    )
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        for call in (tilemem.plan, tilemem.fmt, tilemem.explain):
            e = _raised(call, pathlib.Path(csv))
            assert (e.file, e.line, e.col, e.message) == (csv, None, None, is_csv), call
        for call in (tilemem.plan, tilemem.fmt):
            e = _raised(call, pathlib.Path(mlir))
            assert (e.file, e.message) == (mlir, is_mlir), call
        assert str(_raised(tilemem.plan, mlir)) == f"{mlir}: {is_mlir}"
        assert _raised(tilemem.opt, pathlib.Path(py), ["hivm-plan-memory"]).message == (
            'this is a PyPTO program, not an MLIR file: use `tilemem.plan("vector_chain.py")` '
            "(or `tilemem.explain`, `tilemem.fmt`)"
        )
        assert _raised(tilemem.solve, py).message == (
            'this is a PyPTO program, not a placement problem (CSV): use `tilemem.plan("vector_chain.py")` '
            "(or `tilemem.explain`, `tilemem.fmt`)"
        )
        assert _raised(tilemem.validate, mlir, []).message.startswith(
            "this is an MLIR file, not a placement problem (CSV): use `tilemem.opt("
        )
        # A binary document is not text: named, not a UnicodeDecodeError.
        assert _raised(tilemem.plan, pathlib.Path("k.msgpack")).message == (
            "this is a PyPTO MessagePack document, not a PyPTO program: use "
            '`tilemem.pypto.plan_document(pathlib.Path("k.msgpack").read_bytes())`'
        )
    finally:
        os.chdir(cwd)
    # Text in a string has no path to name.
    e = _raised(tilemem.plan, (ROOT / "examples/dsa" / csv).read_text())
    assert str(e) == (
        "<string>: this is a placement problem (CSV), not a PyPTO program: use "
        "`tilemem.solve(path)` (or `tilemem.validate` for a placed one)"
    )


def test_a_program_pypto_rejects_with_internal_error_is_a_parse_error(kernel):
    # Overlapping reserve_buffer windows: PyPTO's InternalError, the
    # user's mistake (the command line's exit 2), with what to change.
    bad = kernel.replace(
        "        b: pl.Tile",
        "        _a: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='first', size=4096, base=-1)\n"
        "        _b: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='second', size=1024, base=2048)\n"
        "        b: pl.Tile",
    )
    e = _raised(tilemem.plan, bad)
    assert (e.line, e.col) == (10, 9)
    assert e.message == (
        "overlapping reserve_buffer ranges in function 'main': [2048, 3072) overlaps with "
        "[0, 4096); reserve_buffer 'second' (base=2048, size=1024) overlaps 'first': give "
        "'second' base=-1 (AUTO) to place it above the others, or a base of at least 4096"
    )


def test_explain_says_why_and_what_fits():
    ex = tilemem.explain(OVER)
    assert not ex.fits
    (space,) = ex.spaces
    assert (space["function"], space["space"], space["fits"]) == ("softmax_rows", "Vec", False)
    assert space["peak"]["line"] > 0 and space["remedies"]
    assert "remedies (each re-planned and checked" in ex.text
    assert str(ex) == ex.text
    assert tilemem.explain(CHAIN).fits
    assert tilemem.explain(CHAIN, all=True).spaces[0]["fits"]


def test_explain_all_shows_the_buffers_and_refused_sharings_as_the_cli_does():
    text = tilemem.explain(CHAIN, all=True).text
    assert "  buffers: 3 for 8 tiles, each with its tiles in program order\n" in text
    assert "    mem_vec_4  [32768, 33024)  row_max, row_sum\n" in text
    assert "max_tmp and row_max (256 bytes): no-alias rule of tile.row_max at line 10" in text
    assert "buffers:" not in tilemem.explain(CHAIN).text


def test_explain_says_what_the_command_line_says_when_all_fits_or_nothing_is_planned(kernel):
    # The one renderer of `tilemem explain`: Python lacked the line per
    # fitting space, and said "every space fits" where nothing is planned.
    assert tilemem.explain(CHAIN).text == (
        "every space fits its capacity (use --all to explain each)\n"
        "  softmax_rows/Vec: planner pypto uses 33024 of 188416 bytes, lower bound 32768\n"
    )
    opaque = kernel.replace("@pl.function(type=pl.FunctionType.InCore)", "@pl.function")
    want = (
        "nothing planned: k.py has no kernel function; the memory passes plan only "
        "`@pl.function(type=pl.FunctionType.InCore)` (or AIC, AIV), and it has main "
        "(Opaque, the default without type=)\n"
    )
    for all_ in (False, True):
        assert tilemem.explain(opaque, file="k.py", all=all_).text == want


def test_bench_solves_a_folder():
    rows, table = tilemem.bench(ROOT / "examples/dsa", time_limit=2.0)
    (row,) = rows
    assert row.instance == "staircase" and row.valid and row.height >= row.lower_bound
    assert table.startswith("| instance |")
    # The best bound and where it came from, as the table's column says.
    assert row.best_bound >= row.lower_bound
    assert f"| {row.best_bound} ({row.bound_source}) |" in table


def test_compat_is_a_keyword_of_plan_and_memory_passes():
    seed = tilemem.plan(KERNEL).program
    assert tilemem.plan(KERNEL, compat="pypto-e2d0f78").program == seed
    run = tilemem.pypto.memory_passes(compat="pypto-e2d0f78")
    assert run(KERNEL) == seed
    with pytest.raises(ValueError, match="unknown compat 'newest'"):
        tilemem.plan(KERNEL, compat="newest")


def test_a_capacity_error_sits_where_the_command_line_puts_it_and_names_no_python_class():
    # No allocation alone exceeds Vec: the overflow belongs to the whole
    # kernel, so the error sits at its `def` line (10:5), as
    # `tilemem plan examples/pto/over_capacity.py` reports it, and not at
    # the peak statement `explain` names.
    for planner in ("pypto", "dsa-rp"):
        with pytest.raises(tilemem.CapacityError) as info:
            tilemem.plan(OVER, planner=planner)
        e = info.value
        assert (e.file, e.line, e.col) == (str(OVER), 10, 5), (planner, e)
        assert "Error:" not in e.message, e.message
        assert str(e).count(f"{OVER}:") == 1
    ex = tilemem.explain(OVER)
    assert ex.spaces[0]["peak"]["line"] > 10


def test_an_undefined_name_is_a_parse_error_with_the_closest_name():
    bad = CHAIN.read_text().replace("exp_shifted, row_sum)", "exp_shifted, row_summ)")
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.plan(bad, file="k.py")
    e = info.value
    assert (e.line, e.col) == (15, 94)
    assert "undefined name `row_summ`" in e.message and "did you mean `row_sum`" in e.message


def test_an_opt_error_says_each_place_once():
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.opt("func.func @f( {\n", ["hivm-mark-stride-align"], file="x.mlir")
    assert str(info.value).count("x.mlir") == 1, str(info.value)
    text = (ROOT / "tests/lit/stride-align/mark-errors.mlir").read_text()
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.opt(text, ["hivm-mark-stride-align"], file="m.mlir", split_input_file=True)
    e = info.value
    first = f"m.mlir:{e.line}:{e.col}"
    assert str(e).count(first) == 1, str(e)


def _cli() -> "pathlib.Path | None":
    """The `tilemem` binary `.ci/run` builds before the Python tests."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "release" / "tilemem"
    return path if path.exists() else None


#: `a` is read only in the else branch: under the optimal planner the then
#: branch's tiles take its bytes, and `tile.move`'s no-alias rule refuses
#: a sharing of two tiles never live together (crates/cli/tests/explain.rs).
BRANCHES = """# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[8, 8], pl.FP32], k: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        if k < 2:
            b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
            r: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(b)
        else:
            c: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
            cm: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.move(c, target_memory=pl.Mem.Vec)
            r: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(cm)
        s: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(r, [0, 0], y)
        return s
"""


def test_explain_facts_have_the_keys_of_the_command_lines_report():
    # The docstring promised the report's keys; `refused_sharings`,
    # `live_total` and `proven_over_capacity` were missing, `peak` was
    # flattened and `live` and `remedies` were tuples.
    ex = tilemem.explain(OVER)
    (space,) = ex.spaces
    assert sorted(space) == [
        "capacity", "co_live", "fits", "function", "live", "live_total", "lower_bound",
        "peak", "planned_bytes", "proven_over_capacity", "refused_sharings", "remedies",
        "reserved", "space",
    ]
    assert space["proven_over_capacity"] is True
    assert space["live_total"] == 196608 == sum(t["bytes"] for t in space["live"])
    assert space["live"][0] == {
        "name": "max_tmp", "bytes": 98304, "shape": "[96, 256]", "dtype": "FP32",
        "line": 12, "def": 9, "last": 10,
    }
    assert space["peak"] == {"statement": 10, "line": 12, "op": "max_tmp = tile.create"}
    assert ex.report["planner"] == "pypto" and ex.report["spaces"] == ex.spaces
    assert ex.report["error"].startswith("ValueError: Vec buffer usage (196992 bytes) exceeds")
    with_all = tilemem.explain(BRANCHES, planner="optimal", all=True)
    assert with_all.spaces[0]["refused_sharings"] == [{
        "a": "b", "b": "c", "line": 13, "bytes": 256, "never_together": True,
        "rule": "no-alias rule of tile.move at line 13 (its output may not share its input's bytes)",
    }]


@pytest.mark.parametrize(
    "args",
    [
        (OVER, {}),
        (CHAIN, {"all": True}),
        ("branches.py", {"planner": "optimal", "all": True}),
        (ROOT / "examples/mlir/double_buffer_overflow.mlir", {"all": True}),
    ],
    ids=["over", "chain-all", "branches-optimal", "mlir"],
)
def test_explain_returns_what_explain_report_writes(args, tmp_path):
    import json
    import subprocess

    cli = _cli()
    if cli is None:
        pytest.skip("no target/release/tilemem: build it with `cargo build --release -p tilemem`")
    path, kw = args
    if path == "branches.py":
        path = tmp_path / "branches.py"
        path.write_text(BRANCHES)
    flags = ["--all"] if kw.get("all") else []
    flags += ["--planner", kw["planner"]] if "planner" in kw else []
    report = tmp_path / "r.json"
    done = subprocess.run(
        [str(cli), "explain", str(path), *flags, "--report", str(report)],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    ex = tilemem.explain(pathlib.Path(path), **kw)
    assert ex.report == json.loads(report.read_text())
    assert ex.text == done.stdout


def test_each_exit_code_of_the_command_line_has_its_exception():
    # exit 2 bad input, exit 1 cannot be met, exit 3 a failed check inside
    # tilemem (a bug): each its own class, none a subclass of another's.
    assert issubclass(tilemem.ParseError, ValueError)
    assert issubclass(tilemem.CapacityError, tilemem.PlanError)
    internal = tilemem.InternalError
    assert issubclass(internal, tilemem.Error) and "InternalError" in tilemem.__all__
    for other in (tilemem.ParseError, tilemem.PlanError, ValueError):
        assert not issubclass(internal, other) and not issubclass(other, internal)
    e = internal("check failed", file="k.py", line=3, col=1)
    assert str(e) == "k.py:3:1: check failed"


NARROW = """# pypto.program: Narrow
import pypto.language as pl

@pl.program
class Narrow:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.BF16]]) -> pl.Tensor[[64, 64], pl.BF16]:
        x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(x, target_type=pl.BF16, mode='round')
        stored: pl.Tensor[[64, 64], pl.BF16] = pl.tile.store(y, [0, 0], output)
        return stored
"""

LIMITS = """# pypto.program: Limits
import pypto.language as pl

@pl.program
class Limits:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        t2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t1)
        t4: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t2)
        s5: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t3, [0, 0], y)
        s6: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t4, [0, 0], y)
        return s6
"""


def test_explain_takes_compat_and_the_limits_of_the_command_line():
    # The narrowing cast's rule keeps y off x's bytes; PyPTO e2d0f78 had
    # no such rule, and every part of the explanation follows compat.
    seed = tilemem.explain(NARROW, all=True).text
    assert "planner pypto uses 24576 bytes" in seed
    assert "x and y (8192 bytes): no-alias rule of tile.cast at line 9" in seed
    assert seed.endswith("    mem_vec_2  [0, 16384)      x\n    mem_vec_3  [16384, 24576)  y\n")
    old = tilemem.explain(NARROW, all=True, compat="pypto-e2d0f78")
    assert "planner pypto uses 16384 bytes" in old.text
    assert "rule refuses" not in old.text and old.spaces[0]["refused_sharings"] == []
    assert old.text.endswith(
        "  buffers: 1 for 2 tiles, each with its tiles in program order\n"
        "    mem_vec_2  [0, 16384)  x, y\n"
    )
    assert tilemem.explain(NARROW, compat="pypto-e2d0f78").text.endswith(
        "  k/Vec: planner pypto uses 16384 of 188416 bytes, lower bound 16384\n"
    )
    # Stopped at its first node the exact search keeps every tile apart.
    for node_limit, used in ((1, 49152), (None, 24576)):
        text = tilemem.explain(LIMITS, planner="optimal", node_limit=node_limit).text
        assert text.endswith(
            f"  k/Vec: planner optimal uses {used} of 188416 bytes, lower bound 24576\n"
        ), text
    assert tilemem.explain(
        LIMITS, planner="optimal", all=True, node_limit=1
    ).text.endswith("    mem_vec_5  [40960, 49152)  t4\n")
    with pytest.raises(ValueError, match="unknown compat 'pypto'"):
        tilemem.explain(NARROW, compat="pypto")
    with pytest.raises(ValueError, match="time_limit must be a non-negative"):
        tilemem.explain(NARROW, time_limit=-1.0)
