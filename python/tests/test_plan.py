"""tilemem.plan: the facts crates/cli/tests/plan.rs checks, from Python."""

import threading

import pytest

import tilemem
from conftest import KERNEL, ROOT


def test_plans_a_kernel_with_report_and_is_idempotent():
    planned = tilemem.plan(KERNEL, target="910b")
    text = planned.program
    assert "        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)\n" in text
    assert (
        "a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec]"
        in text
    )
    assert planned.report["target"] == "910b"
    (function,) = planned.report["functions"]
    assert function["name"] == "main"
    (space,) = function["spaces"]
    assert space["space"] == "Vec"
    assert space["capacity"] == 188416
    # Planning the output again gives the same text.
    assert tilemem.plan(text, target="910b").program == text
    assert str(planned) == text


def test_stop_after_runs_a_prefix():
    text = tilemem.plan(KERNEL, stop_after="init_memref").program
    # Two roots, not yet shared or addressed.
    assert "mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)" in text
    assert "pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 256)" in text
    assert tilemem.plan(KERNEL, passes=["init_memref"]).program == text
    full = tilemem.plan(KERNEL).program
    every = "init_memref,materialize_semantic_aliases,memory_reuse,allocate_memory_addr"
    assert tilemem.plan(KERNEL, passes=every).program == full


def test_over_capacity_is_a_capacity_error_with_place():
    big = KERNEL.replace("[8, 8]", "[64, 752]")
    with pytest.raises(tilemem.CapacityError) as info:
        tilemem.plan(big, passes=["init_memref", "allocate_memory_addr"], file="k.py")
    e = info.value
    # PyPTO's words, without its exception class.
    assert e.message.startswith(
        "Vec buffer usage (385024 bytes) exceeds platform limit (188416 bytes)"
    ), e.message
    assert e.file == "k.py"
    # The tile that alone does not fit: its statement (a capacity error at
    # the function points at the peak: test_api.py).
    assert e.line == 9 and e.col == 9
    assert e.message.endswith("the allocation 'mem_vec_3' alone needs 192512 bytes"), e.message
    assert isinstance(e, tilemem.PlanError)
    # The dsa-rp planner's failure is a capacity error too; "none" has no
    # capacity.
    with pytest.raises(tilemem.CapacityError):
        tilemem.plan(big, planner="dsa-rp")
    assert tilemem.plan(big, target="none", passes=["init_memref", "allocate_memory_addr"])


def test_syntax_error_names_file_line_and_column():
    bad = KERNEL.replace("pl.tile.exp(a)", "pl.tile.exp(a")
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.plan(bad, file="k.py")
    e = info.value
    assert (e.file, e.line, e.col) == ("k.py", 10, 9)
    assert str(e).startswith("k.py:10:9: ")
    assert isinstance(e, ValueError)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="unknown target 'h100'"):
        tilemem.plan(KERNEL, target="h100")
    with pytest.raises(ValueError, match="unknown planner"):
        tilemem.plan(KERNEL, planner="best")
    with pytest.raises(ValueError, match="pipeline order"):
        tilemem.plan(KERNEL, passes=["memory_reuse", "init_memref"])
    with pytest.raises(ValueError, match="time_limit"):
        tilemem.plan(KERNEL, planner="optimal", time_limit=-1)


def test_every_planner_and_target_plans_the_bundled_example():
    text = (ROOT / "examples/pto/vector_chain.py").read_text()
    for planner in ["pypto", "dsa-rp", "ptoas", "optimal"]:
        for target in ["910b", "950", "310b", "none"]:
            planned = tilemem.plan(text, target=target, planner=planner, node_limit=10000)
            assert planned.report["target"] == target
            assert planned.report["addressed"] == (planner != "ptoas")


def test_optimal_planner_node_limit_is_reproducible():
    text = (ROOT / "examples/pto/vector_chain.py").read_text()
    a = tilemem.plan(text, planner="optimal", node_limit=1).program
    b = tilemem.plan(text, planner="optimal", node_limit=1).program
    assert a == b
    assert tilemem.plan(text, planner="optimal", node_limit=0).program == tilemem.plan(
        text, planner="optimal", node_limit=4_000_000
    ).program


def test_planning_runs_in_parallel_threads():
    # The GIL is released while planning: threads finish with the same text.
    results = [None] * 4

    def work(i):
        results[i] = tilemem.plan(KERNEL).program

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and results[0]
