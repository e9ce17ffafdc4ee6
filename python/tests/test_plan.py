"""tilemem.plan: the facts crates/cli/tests/plan.rs checks, from Python."""

import threading

import pytest

import tilemem
import tilemem.pypto
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


SHARING = ROOT / "crates" / "pto" / "tests" / "data" / "input_sharing"


def test_co_live_tiles_sharing_a_memref_are_an_input_error():
    # The input's own sharing is checked before planning: a ParseError (an
    # input error) at the second tile, naming both tiles and the MemRef,
    # from every planner, from text and from a MessagePack document.
    text = (SHARING / "co_live.py").read_text()
    for planner in ["pypto", "dsa-rp", "optimal", "ptoas"]:
        with pytest.raises(tilemem.ParseError) as info:
            tilemem.plan(text, planner=planner, file="co_live.py")
        e = info.value
        assert (e.file, e.line, e.col) == ("co_live.py", 11, 9)
        assert e.message == (
            "tiles 'tile_a' and 'tile_b' share MemRef 'mem_vec_3' (bytes [0, 16384) of its Vec "
            "allocation) while both are live: 'tile_b' is written here over 'tile_a', which is "
            "still read at line 12; give 'tile_b' a MemRef of its own (its own allocation), or "
            "drop the MemRefs and let the planner decide what shares"
        ), e.message
    document = (SHARING / "co_live.msgpack").read_bytes()
    with pytest.raises(tilemem.ParseError) as info:
        tilemem.pypto.plan_document(document, file="co_live.msgpack")
    e = info.value
    assert (e.file, e.line, e.col) == ("co_live.msgpack", 14, 9)
    assert e.message.startswith(
        "tiles 'tile_x__ssa_v0' and 'tile_gamma__ssa_v0' share MemRef 'mem_vec_3'"
    ), e.message
    # The legal sharing of the same kernel (views, in-place results) plans.
    legal = ROOT / "crates/pto/tests/data/msgpack/rms_norm/34_after_MemoryReuse.msgpack"
    assert tilemem.pypto.plan_document(legal.read_bytes())[0]
