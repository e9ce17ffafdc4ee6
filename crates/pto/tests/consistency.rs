//! The reader's consistency check of programs that carry MemRefs: each
//! contradiction the fuzz campaign found planned with exit 0 (and the
//! first kept moving a tile on every re-plan); now each is an error at the
//! defining statement, as PyPTO's verifier rejects it. Every case has a
//! consistent twin that reads, so the check cannot pass by rejecting all.

mod common;

use common::{program, HEAD};

const SIG: &str = "self, x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]";

/// A planned one-tile kernel: allocation line 8, tile line 9.
fn planned(alloc: &str, tile_ty: &str) -> String {
    program(
        "InCore",
        SIG,
        &[
            &format!("mem_0: pl.Ptr = {alloc}"),
            &format!(
                "a: {tile_ty} = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)"
            ),
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    )
}

fn read_error(src: &str) -> String {
    match tilemem_pto::parse(src) {
        Ok(_) => panic!("the reader accepts:\n{src}"),
        Err(e) => e.to_string(),
    }
}

fn reads(src: &str) {
    if let Err(e) = tilemem_pto::parse(src) {
        panic!("the reader rejects: {e}\n{src}");
    }
}

const VEC_TILE: &str =
    "pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_0, pl.const(0, pl.INT64), 256), pl.Mem.Vec]";

#[test]
fn a_tile_lives_in_its_allocations_space() {
    reads(&planned("pl.tile.alloc(pl.Mem.Vec, 256)", VEC_TILE));
    assert_eq!(
        read_error(&planned("pl.tile.alloc(pl.Mem.Acc, 256)", VEC_TILE)),
        "9:9: tile `a` is declared in pl.Mem.Vec but its MemRef names `mem_0`, an allocation \
         in pl.Mem.Acc (line 8): a tile lives in its allocation's space"
    );
}

#[test]
fn an_allocation_holds_its_tiles_bytes() {
    assert_eq!(
        read_error(&planned("pl.tile.alloc(pl.Mem.Vec, 0)", VEC_TILE)),
        "9:9: tile `a` needs 256 bytes (its MemRef's size) but its allocation `mem_0` \
         (line 8) holds 0: an allocation holds the bytes of its tiles"
    );
    // The MemRef's size agrees with the allocation, the shape does not.
    let small =
        "pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_0, pl.const(0, pl.INT64), 128), pl.Mem.Vec]";
    assert_eq!(
        read_error(&planned("pl.tile.alloc(pl.Mem.Vec, 128)", small)),
        "9:9: tile `a` needs 256 bytes (its shape) but its allocation `mem_0` (line 8) \
         holds 128: an allocation holds the bytes of its tiles"
    );
    // A negative size was read as some other call: its tiles had no
    // storage, and nothing was planned (exit 0).
    assert_eq!(
        read_error(&planned("pl.tile.alloc(pl.Mem.Vec, -16)", VEC_TILE)),
        "8:9: allocation `mem_0` has size -16: an allocation holds a non-negative number of \
         bytes"
    );
}

#[test]
fn the_shape_of_stored_data_is_positive() {
    let neg = "pl.Tile[[-1, 1], pl.FP32, pl.MemRef(mem_0, pl.const(0, pl.INT64), 256), pl.Mem.Vec]";
    assert_eq!(
        read_error(&planned("pl.tile.alloc(pl.Mem.Vec, 256)", neg)),
        "9:9: `a` has dimension -1 in its shape: the dimensions of stored data are positive"
    );
    let tensor =
        "x: pl.Tensor[[0, 8], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 256)]";
    let src = program(
        "InCore",
        &format!("self, {tensor}) -> pl.Tensor[[8, 8], pl.FP32]"),
        &["return x"],
    );
    assert_eq!(
        read_error(&src),
        "7:5: `x` has dimension 0 in its shape: the dimensions of stored data are positive"
    );
    // Without a MemRef too (found by the plan fuzz target: InitMemRef gave
    // the tile storage, and the planned program did not read back).
    assert_eq!(
        read_error(&program(
            "InCore",
            "self, x: pl.Tensor[[-2, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]",
            &["return x"],
        )),
        "7:5: `x` has dimension -2 in its shape: the dimensions of stored data are positive"
    );
}

#[test]
fn a_call_target_is_an_op_path() {
    assert_eq!(
        read_error(&planned("FP32.tile.alloc(pl.Mem.Vec, 256)", VEC_TILE)),
        "8:25: `FP32.tile.alloc` is not an op path: PyPTO's ops are called as `pl.tile.alloc`"
    );
}

#[test]
fn function_names_are_unique() {
    let f = |name: &str| {
        format!(
            "    @pl.function(type=pl.FunctionType.InCore)\n    def {name}(self, x: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:\n        return x\n"
        )
    };
    reads(&format!("{HEAD}{}{}", f("main"), f("other")));
    assert_eq!(
        read_error(&format!("{HEAD}{}{}", f("main"), f("main"))),
        "10:5: function `main` is defined twice (first at line 7): function names are unique \
         in a program"
    );
}

/// Found by the `plan` fuzz target: `d: pl.Tile[[96, 16], ...] = acc`
/// aliases a 1 KiB tile with 6 KiB; planned, `d` got `acc`'s 1 KiB slot
/// and the output contradicted itself (and did not read back).
#[test]
fn an_alias_holds_no_more_than_its_source() {
    let body = |shape: &str| {
        program(
            "InCore",
            SIG,
            &[
                "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
                &format!("d: pl.Tile[[{shape}], pl.FP32, pl.Mem.Vec] = a"),
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(d, [0, 0], y)",
                "return r",
            ],
        )
    };
    reads(&body("8, 8"));
    reads(&body("4, 8"));
    assert_eq!(
        read_error(&body("96, 8")),
        "9:9: tile `d` is an alias of `a` but declares 3072 bytes where `a` has 256: an alias \
         names its source's data"
    );
}

/// Found by the `plan` fuzz target: a loop with `init_values` whose body
/// ends without `pl.yield_` (here a misspelt `pO.yield_`). DSA-RP and the
/// report then disagreed on how long the carried tile lives, and the
/// report saw two co-live tiles at one address.
#[test]
fn a_carrying_loop_yields_one_value_per_carry() {
    let body = |last: &str| {
        program(
            "InCore",
            SIG,
            &[
                "init: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
                "for i, (acc,) in pl.range(0, 4, 1, init_values=(init,)):",
                "    t: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, acc)",
                last,
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(init, [0, 0], y)",
                "return r",
            ],
        )
    };
    let ok = body("    res: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(t)");
    reads(&ok);
    // A misspelt init value (found by the plan fuzz target: the carry had
    // no storage of its own, and the placement check caught two co-live
    // tiles at one address, an internal error).
    assert_eq!(
        read_error(&ok.replace("init_values=(init,)", "init_values=(ntx,)")),
        "9:57: undefined name `ntx`: no parameter, assignment, loop variable, loop or `if` \
         result before this use defines it"
    );
    // A module-level name reads as a free variable, but a carry still
    // needs a value of the function.
    let global = ok
        .replace("init_values=(init,)", "init_values=(ntx,)")
        .replacen("@pl.program", "ntx = 0\n@pl.program", 1);
    assert_eq!(
        read_error(&global),
        "10:9: the loop's init value `ntx` is defined nowhere in the function: a loop carries \
         a value the function defines or takes as a parameter"
    );
    // The misspelt `pO.yield_` is an undefined name; a body that ends
    // without any yield is the carry rule's.
    assert_eq!(
        read_error(&body(
            "    res: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pO.yield_(t)"
        )),
        "11:57: undefined name `pO`: no parameter, assignment, loop variable, loop or `if` \
         result before this use defines it"
    );
    assert_eq!(
        read_error(&body(
            "    u: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)"
        )),
        "9:9: the loop carries 1 value(s) but its body yields nothing: a loop with \
         `init_values` ends its body with `pl.yield_` of one value per carry"
    );
    assert_eq!(
        read_error(&body("    res, res2 = pl.yield_(t, t)")),
        "9:9: the loop carries 1 value(s) but its body yields 2: a loop with \
         `init_values` ends its body with `pl.yield_` of one value per carry"
    );
    // One value yielded per carry, but into two results: the second result
    // had no value, and the printed program did not read as PyPTO.
    assert_eq!(
        read_error(&body("    res, res2 = pl.yield_(t)")),
        "11:13: the loop carries 1 value(s) but its yield assigns 2 result(s): a loop's \
         results are its carries after the last iteration, one each"
    );
    // Results not taken at all are fine.
    reads(&body("    pl.yield_(t)"));
}

/// A branch of an `if` that yields gives one value per result: an else
/// branch yielding two values into one result once planned with exit 0
/// and printed the bad yield back.
#[test]
fn each_branch_yields_one_value_per_if_result() {
    let with_else = |last: &str| {
        program(
            "InCore",
            SIG,
            &[
                "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
                "if 1 < 2:",
                "    p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(a)",
                "else:",
                "    b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)",
                last,
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(p, [0, 0], y)",
                "return r",
            ],
        )
    };
    reads(&with_else(
        "    p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(b)",
    ));
    assert_eq!(
        read_error(&with_else(
            "    p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(b, a)"
        )),
        "13:13: the `if` has 1 result(s) but its else branch yields 2: a branch yields one \
         value per result"
    );
}

/// Found by the `plan` fuzz target: a loop result declared `[64, 32]`
/// for a `[32, 32]` carry; the planner gave it the carry's 4 KiB and
/// printed an 8 KiB tile in a 4 KiB allocation. The same holds for the
/// branches an `if` joins.
#[test]
fn carried_and_joined_values_have_one_size() {
    let lp = |result: &str| {
        program(
            "InCore",
            SIG,
            &[
                "init: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
                "for i, (acc,) in pl.range(0, 4, 1, init_values=(init,)):",
                "    t: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, acc)",
                &format!("    res: pl.Tile[[{result}], pl.FP32, pl.Mem.Vec] = pl.yield_(t)"),
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(res, [0, 0], y)",
                "return r",
            ],
        )
    };
    reads(&lp("8, 8"));
    assert_eq!(
        read_error(&lp("16, 8")),
        "9:9: `res` declares 512 bytes but `init` declares 256, and the loop joins them into \
         one buffer: the values a loop carries or an `if` joins have one size"
    );
    let branch = |other: &str| {
        program(
            "InCore",
            &SIG.replace(") ->", ", k: pl.Scalar[pl.INDEX]) ->"),
            &[
                "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
                "if k < 1:",
                "    p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)",
                "    phi: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(p)",
                "else:",
                &format!("    q: pl.Tile[[{other}], pl.FP32, pl.Mem.Vec] = pl.tile.muls(a, 2.0)"),
                "    phi: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(q)",
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(phi, [0, 0], y)",
                "return r",
            ],
        )
    };
    reads(&branch("8, 8"));
    assert_eq!(
        read_error(&branch("4, 8")),
        "9:9: `q` declares 128 bytes but `p` declares 256, and the `if` joins them into one \
         buffer: the values a loop carries or an `if` joins have one size"
    );
}

/// A MemRef's base is an allocation: one naming a tile (`pl.MemRef(a, ...)`
/// with `a` a tile) was read and planned with exit 0, InitMemRef dropping
/// it for storage of the tile's own.
#[test]
fn a_memref_base_is_an_allocation() {
    let src = |base: &str| {
        program(
            "InCore",
            SIG,
            &[
                "mem_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
                "a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_0, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
                &format!("b: pl.Tile[[8, 8], pl.FP32, pl.MemRef({base}, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.exp(a)"),
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)",
                "return r",
            ],
        )
    };
    reads(&src("mem_0"));
    assert_eq!(
        read_error(&src("a")),
        "10:9: the MemRef of tile `b` names `a`, which is not an allocation but data: a \
         MemRef's base is a `pl.tile.alloc` result"
    );
    assert_eq!(
        read_error(&src("x")),
        "10:9: the MemRef of tile `b` names `x`, which is not an allocation but data: a \
         MemRef's base is a `pl.tile.alloc` result"
    );
    // A scalar was kept as the base in the output, with nothing planned.
    let scalar = src("n").replace(
        SIG,
        &SIG.replace("y: pl.Out", "n: pl.Scalar[pl.INDEX], y: pl.Out"),
    );
    assert_eq!(
        read_error(&scalar),
        "10:9: the MemRef of tile `b` names `n`, which is not an allocation but data: a \
         MemRef's base is a `pl.tile.alloc` result"
    );
}
