//! MemoryReuse on small programs, one rule each (seed 000 and its
//! examples), with the exact program text before and after.

mod common;

use common::HEAD;
use tilemem_pto::passes::analysis::{order::Lifetime, roots};
use tilemem_pto::passes::memory_reuse;
use tilemem_pto::passes::{DiagKind, PassContext, PlannerMode, SeedRules};
use tilemem_soc::Soc;

/// A program with one function `k` of the given decorator, parameters and
/// body (body lines already indented by 8 spaces).
fn prog(decorator: &str, params: &str, body: &str) -> String {
    format!("{HEAD}    @pl.function{decorator}\n    def k({params}):\n{body}")
}

fn incore(params: &str, body: &str) -> String {
    prog("(type=pl.FunctionType.InCore)", params, body)
}

/// A `[64, 64]` FP32 Vec tile on `base` (16 KiB).
fn t(base: &str) -> String {
    format!(
        "pl.Tile[[64, 64], pl.FP32, pl.MemRef({base}, pl.const(0, pl.INT64), 16384), pl.Mem.Vec]"
    )
}

/// A Vec tile of `rows x 64` FP32 on `base` with byte size `size`.
fn tv(rows: u64, base: &str, size: u64) -> String {
    format!("pl.Tile[[{rows}, 64], pl.FP32, pl.MemRef({base}, pl.const(0, pl.INT64), {size}), pl.Mem.Vec]")
}

fn alloc(name: &str, space: &str, size: u64) -> String {
    format!("        {name}: pl.Ptr = pl.tile.alloc(pl.Mem.{space}, {size})\n")
}

const X: &str = "x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]";

fn run_on(src: &str, soc: Soc, opts: SeedRules) -> Result<(String, PassContext), String> {
    let mut p = tilemem_pto::parse(src).map_err(|e| e.message.to_string())?;
    let mut ctx = PassContext::new(soc, PlannerMode::Pypto);
    memory_reuse::run_with(&mut p, &mut ctx, opts).map_err(|e| e.to_string())?;
    Ok((tilemem_pto::print(&p), ctx))
}

/// Runs the pass (910B unless said otherwise) and checks idempotence.
fn reuse(src: &str) -> String {
    reuse_on(src, Soc::ascend910b())
}

fn reuse_on(src: &str, soc: Soc) -> String {
    let (out, _) = run_on(src, soc.clone(), SeedRules::ALL).expect("pass succeeds");
    let (again, _) = run_on(&out, soc, SeedRules::ALL).expect("second run succeeds");
    assert_eq!(again, out, "a second run changed the program");
    out
}

fn load(name: &str, base: &str) -> String {
    format!(
        "        {name}: {} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n",
        t(base)
    )
}

fn op(name: &str, base: &str, call: &str) -> String {
    format!("        {name}: {} = pl.tile.{call}\n", t(base))
}

fn store(v: &str) -> String {
    format!("        r_{v}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({v}, [0, 0], y)\n")
}

// ---------------------------------------------------------------- seed examples

#[test]
fn seed_example_sharing_and_alloc_cleanup() {
    // The seed's first example: tile_c reuses tile_a's mem_vec_0 and the
    // alloc of mem_vec_2 is removed. (The seed writes tile_b's op as
    // `tile.add(tile_a, ...)`; under the producer-consumer rule of the same
    // seed tile_b would then take mem_vec_0 itself, so an op whose output
    // may not alias its input keeps tile_b in mem_vec_1 as the example
    // shows.)
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            alloc("mem_vec_2", "Vec", 16384),
            load("tile_a", "mem_vec_0"),
            op("tile_b", "mem_vec_1", "recip(tile_a)"),
            load("tile_c", "mem_vec_2"),
            store("tile_b"),
            store("tile_c"),
        ]
        .concat(),
    );
    let after = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            load("tile_a", "mem_vec_0"),
            op("tile_b", "mem_vec_1", "recip(tile_a)"),
            load("tile_c", "mem_vec_0"),
            store("tile_b"),
            store("tile_c"),
        ]
        .concat(),
    );
    assert_eq!(reuse(&before), after);
    // With an in-place safe op the producer takes its input's buffer.
    let add = before.replace("recip(tile_a)", "add(tile_a, tile_a)");
    let out = reuse(&add);
    assert!(
        out.contains(&op("tile_b", "mem_vec_0", "add(tile_a, tile_a)")),
        "{out}"
    );
    assert!(out.contains(&load("tile_c", "mem_vec_2")), "{out}");
}

#[test]
fn seed_example_producer_consumer_reuse() {
    // tile_a's last use is tile_b's definition: inputs are read first.
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            op(
                "tile_a",
                "mem_vec_0",
                "create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
            ),
            op("tile_b", "mem_vec_1", "muls(tile_a, 0.0)"),
            store("tile_b"),
        ]
        .concat(),
    );
    let after = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            op(
                "tile_a",
                "mem_vec_0",
                "create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
            ),
            op("tile_b", "mem_vec_0", "muls(tile_a, 0.0)"),
            store("tile_b"),
        ]
        .concat(),
    );
    assert_eq!(reuse(&before), after);
}

#[test]
fn seed_example_overlapping_lifetimes_keep_their_buffers() {
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            alloc("mem_vec_2", "Vec", 16384),
            load("tile_a", "mem_vec_0"),
            load("tile_b", "mem_vec_1"),
            op("tile_c", "mem_vec_0", "add(tile_a, tile_b)"),
            store("tile_c"),
        ]
        .concat(),
    )
    .replace(
        "tile_c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0",
        "tile_c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2",
    );
    // tile_c may take tile_a's bytes (its last use), never tile_b's while
    // tile_a is live; tile_a and tile_b stay apart.
    let after = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            load("tile_a", "mem_vec_0"),
            load("tile_b", "mem_vec_1"),
            op("tile_c", "mem_vec_0", "add(tile_a, tile_b)"),
            store("tile_c"),
        ]
        .concat(),
    );
    assert_eq!(reuse(&before), after);
}

// ---------------------------------------------------------------- packing

#[test]
fn spaces_never_share() {
    let mat = "pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_1, pl.const(0, pl.INT64), 16384), pl.Mem.Mat]";
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_mat_1", "Mat", 16384),
            load("a", "mem_vec_0"),
            store("a"),
            format!("        b: {mat} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)\n"),
            "        r_b: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)\n".to_string(),
        ]
        .concat(),
    );
    assert_eq!(reuse(&before), before);
}

#[test]
fn largest_first_lets_a_later_larger_buffer_host_an_earlier_smaller_tile() {
    // small (8 KiB) dies before big (16 KiB) is defined: big opens the
    // buffer (largest first) and small joins it, printing big's MemRef.
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 8192),
            alloc("mem_vec_1", "Vec", 16384),
            format!("        small: {} = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)\n", tv(32, "mem_vec_0", 8192)),
            store("small"),
            load("big", "mem_vec_1"),
            store("big"),
        ]
        .concat(),
    );
    let after = incore(
        X,
        &[
            alloc("mem_vec_1", "Vec", 16384),
            format!("        small: {} = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)\n", tv(32, "mem_vec_1", 16384)),
            store("small"),
            load("big", "mem_vec_1"),
            store("big"),
        ]
        .concat(),
    );
    assert_eq!(reuse(&before), after);
}

#[test]
fn views_keep_their_window_when_their_root_moves() {
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            load("a", "mem_vec_0"),
            store("a"),
            load("b", "mem_vec_1"),
            "        s: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(256, pl.INT64), 256), pl.Mem.Vec] = pl.tile.slice(b, [1, 64], [1, 0])\n".into(),
            "        r_s: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(s, [0, 0], y)\n".into(),
        ]
        .concat(),
    );
    let after = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            load("a", "mem_vec_0"),
            store("a"),
            load("b", "mem_vec_0"),
            "        s: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_0, 256, 256), pl.Mem.Vec] = pl.tile.slice(b, [1, 64], [1, 0])\n".into(),
            "        r_s: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(s, [0, 0], y)\n".into(),
        ]
        .concat(),
    );
    assert_eq!(reuse(&before), after);
}

#[test]
fn unreferenced_allocs_are_removed_even_without_sharing() {
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_9", "Vec", 64),
            load("a", "mem_vec_0"),
            store("a"),
        ]
        .concat(),
    );
    let after = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            load("a", "mem_vec_0"),
            store("a"),
        ]
        .concat(),
    );
    assert_eq!(reuse(&before), after);
}

// ---------------------------------------------------------------- no-alias

/// `op_name` is an op applied to `a` alone, or a whole call on `a`
/// (`sort32(a, a)`) when the registry asks for more arguments.
fn chain(op_name: &str) -> (String, String) {
    let call = if op_name.contains('(') {
        op_name.to_string()
    } else {
        format!("{op_name}(a)")
    };
    let body = |b: &str| {
        [
            alloc("mem_vec_0", "Vec", 16384),
            if b == "mem_vec_1" {
                alloc("mem_vec_1", "Vec", 16384)
            } else {
                String::new()
            },
            load("a", "mem_vec_0"),
            op("b", b, &call),
            store("b"),
        ]
        .concat()
    };
    (incore(X, &body("mem_vec_1")), incore(X, &body("mem_vec_0")))
}

#[test]
fn not_inplace_safe_outputs_never_take_their_input() {
    for name in ["recip", "rsqrt", "transpose", "move", "sort32(a, a)"] {
        let (before, _) = chain(name);
        assert_eq!(reuse(&before), before, "{name}");
    }
    // An in-place safe op does.
    let (before, after) = chain("exp");
    assert_eq!(reuse(&before), after);
}

#[test]
fn broadcast_vector_of_col_expand_is_protected() {
    let row =
        "pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec]";
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 256),
            alloc("mem_vec_2", "Vec", 16384),
            load("a", "mem_vec_0"),
            format!("        v: {row} = pl.tile.load(x, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)\n"),
            op("c", "mem_vec_2", "col_expand_mul(a, v)"),
            store("c"),
        ]
        .concat(),
    );
    // c may take a's buffer (operand 0), not v's (operand 1).
    let after = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 256),
            load("a", "mem_vec_0"),
            format!("        v: {row} = pl.tile.load(x, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)\n"),
            op("c", "mem_vec_0", "col_expand_mul(a, v)"),
            store("c"),
        ]
        .concat(),
    );
    assert_eq!(reuse(&before), after);
}

#[test]
fn widening_cast_is_checked_in_both_directions() {
    // bf (2 KiB) dies exactly where r (4 KiB) is defined. r is packed first
    // (larger); bf may not join r's buffer although the lifetimes touch.
    let bf =
        "pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 2048), pl.Mem.Vec]";
    let body = |rb: &str| {
        [
            alloc("mem_vec_0", "Vec", 4096),
            alloc("mem_vec_1", "Vec", 2048),
            if rb == "mem_vec_2" { alloc("mem_vec_2", "Vec", 4096) } else { String::new() },
            format!("        a: {} = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)\n", tv(16, "mem_vec_0", 4096)),
            "        r_a: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(a, [0, 0], y)\n".into(),
            format!("        bf: {bf} = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)\n"),
            format!("        r: {} = pl.tile.cast(bf, target_type=pl.FP32, mode='round')\n", tv(16, rb, 4096)),
            "        r_r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(r, [0, 0], y)\n".into(),
        ]
        .concat()
    };
    let before = incore(X, &body("mem_vec_2"));
    assert_eq!(reuse(&before), incore(X, &body("mem_vec_0")));
}

#[test]
fn prelu_and_sels_are_target_aware() {
    let src = |out: &str, extra: bool| {
        [
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            alloc("mem_vec_2", "Vec", 16384),
            if extra {
                alloc("mem_vec_3", "Vec", 16384)
            } else {
                String::new()
            },
            load("s", "mem_vec_0"),
            load("sl", "mem_vec_1"),
            load("tmp", "mem_vec_2"),
            op("d", out, "prelu(s, sl, tmp)"),
            op("e", "mem_vec_0", "add(s, d)"),
            op("f", "mem_vec_0", "add(e, sl)"),
            store("f"),
        ]
        .concat()
    };
    let before = incore(X, &src("mem_vec_3", true));
    // A5: the unused tmp may be the output.
    assert_eq!(
        reuse_on(&before, Soc::ascend950()),
        incore(X, &src("mem_vec_2", false))
    );
    // A2/A3: tmp is read while dst is written.
    assert_eq!(reuse_on(&before, Soc::ascend910b()), before);
}

// ---------------------------------------------------------------- control flow

#[test]
fn a_value_read_inside_a_loop_lives_until_the_loop_ends() {
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            load("a", "mem_vec_0"),
            "        for i in pl.range(4):\n".into(),
            op("    b", "mem_vec_1", "add(a, a)"),
            "            r_b: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)\n".into(),
        ]
        .concat(),
    );
    // b's statement is a's last textual read, but the next iteration reads
    // a again: b keeps its own buffer.
    assert_eq!(reuse(&before), before);
}

#[test]
fn if_branches_share_through_the_phi_and_the_else_value_is_retargeted() {
    let before = incore(
        &format!("{X}, c: pl.Scalar[pl.INDEX]"),
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            "        if c < 2:\n".into(),
            load("    p", "mem_vec_0"),
            format!("            phi: {} = pl.yield_(p)\n", t("mem_vec_0")),
            "        else:\n".into(),
            load("    q", "mem_vec_1"),
            format!("            phi: {} = pl.yield_(q)\n", t("mem_vec_0")),
            store("phi"),
        ]
        .concat(),
    );
    let after = before
        .replace(&alloc("mem_vec_1", "Vec", 16384), "")
        .replace(&load("    q", "mem_vec_1"), &load("    q", "mem_vec_0"));
    assert_eq!(reuse(&before), after);
}

#[test]
fn loop_yield_gets_a_move_when_the_carry_is_still_read() {
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            alloc("mem_vec_2", "Vec", 16384),
            load("init", "mem_vec_0"),
            "        for i, (acc,) in pl.range(4, init_values=(init,)):\n".into(),
            op("    nxt", "mem_vec_1", "add(acc, acc)"),
            op("    other", "mem_vec_2", "mul(nxt, acc)"),
            "            r_o: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(other, [0, 0], y)\n"
                .into(),
            format!("            out: {} = pl.yield_(nxt)\n", t("mem_vec_0")),
            store("out"),
        ]
        .concat(),
    );
    let after = before.replace(
        &format!("            out: {} = pl.yield_(nxt)\n", t("mem_vec_0")),
        &format!(
            "            nxt_mv: {} = pl.tile.move(nxt, target_memory=pl.Mem.Vec)\n            out: {} = pl.yield_(nxt_mv)\n",
            t("mem_vec_0"),
            t("mem_vec_0")
        ),
    );
    assert_eq!(reuse(&before), after);
}

#[test]
fn loop_yield_producer_is_retargeted_when_the_carry_is_dead() {
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            load("init", "mem_vec_0"),
            "        for i, (acc,) in pl.range(4, init_values=(init,)):\n".into(),
            op("    nxt", "mem_vec_1", "add(acc, acc)"),
            format!("            out: {} = pl.yield_(nxt)\n", t("mem_vec_0")),
            store("out"),
        ]
        .concat(),
    );
    let after = before
        .replace(&alloc("mem_vec_1", "Vec", 16384), "")
        .replace(
            &op("    nxt", "mem_vec_1", "add(acc, acc)"),
            &op("    nxt", "mem_vec_0", "add(acc, acc)"),
        );
    assert_eq!(reuse(&before), after);
}

/// Two carries `(a, b)` on buffers 0 and 1 whose yields are the given
/// values, on a body that keeps `v` in buffer 2.
fn two_carries(yields: &str) -> String {
    incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            alloc("mem_vec_2", "Vec", 16384),
            load("a0", "mem_vec_0"),
            load("b0", "mem_vec_1"),
            "        for i, (a, b) in pl.range(4, init_values=(a0, b0)):\n".into(),
            load("    v", "mem_vec_2"),
            op("    w", "mem_vec_2", "add(v, a)"),
            op("    u", "mem_vec_2", "add(w, b)"),
            format!("            ra, rb = pl.yield_({yields})\n"),
        ]
        .concat(),
    )
}

#[test]
fn shift_register_copies_are_ordered_reader_first() {
    // lag2 <- lag1 must read buffer 0 before lag1 <- u overwrites it.
    let out = reuse(&two_carries("u, a"));
    let tail = format!(
        "            a_mv: {} = pl.tile.move(a, target_memory=pl.Mem.Vec)\n            u_mv: {} = pl.tile.move(u, target_memory=pl.Mem.Vec)\n            ra, rb = pl.yield_(u_mv, a_mv)",
        t("mem_vec_1"),
        t("mem_vec_0")
    );
    assert!(out.trim_end().ends_with(&tail), "{out}");
}

#[test]
fn swapped_carries_go_through_a_scratch_buffer() {
    let out = reuse(&two_carries("b, a"));
    // The scratch buffer is packed like any root: the body's temporaries
    // are dead when the swap runs, so it lands in their buffer.
    assert!(!out.contains("mem_vec_3"), "{out}");
    let tail = format!(
        "            b_swap: {} = pl.tile.move(b, target_memory=pl.Mem.Vec)\n            a_mv: {} = pl.tile.move(a, target_memory=pl.Mem.Vec)\n            b_mv: {} = pl.tile.move(b_swap, target_memory=pl.Mem.Vec)\n            ra, rb = pl.yield_(b_mv, a_mv)",
        t("mem_vec_2"),
        t("mem_vec_1"),
        t("mem_vec_0")
    );
    assert!(out.trim_end().ends_with(&tail), "{out}");
}

#[test]
fn two_carries_on_one_buffer_are_an_error() {
    let src = two_carries("u, w").replace("init_values=(a0, b0)", "init_values=(a0, a0)");
    let err = run_on(&src, Soc::ascend910b(), SeedRules::ALL)
        .err()
        .expect("the pass fails");
    assert_eq!(
        err,
        "InternalError: MemoryReuse: loop carries 'a' and 'b' of function 'k' share one buffer, \
         so no order of yield copies can give each its own value (both start from 'a0'); \
         initialise them from different tiles"
    );
}

fn acc(base: &str) -> String {
    format!(
        "pl.Tile[[16, 64], pl.FP32, pl.MemRef({base}, pl.const(0, pl.INT64), 4096), pl.Mem.Acc]"
    )
}

fn split_k(then_value: &str) -> String {
    let l = "pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_left_0, pl.const(0, pl.INT64), 2048), pl.Mem.Left]";
    let r = "pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_right_1, pl.const(0, pl.INT64), 8192), pl.Mem.Right]";
    let seed_line = if then_value == "seed" {
        format!(
            "            seed: {} = pl.tile.matmul(sa, sb)\n",
            acc("mem_acc_3")
        )
    } else {
        String::new()
    };
    incore(
        "x: pl.Tensor[[16, 64], pl.BF16], w: pl.Tensor[[64, 64], pl.BF16], c: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        &[
            alloc("mem_left_0", "Left", 2048),
            alloc("mem_right_1", "Right", 8192),
            alloc("mem_acc_2", "Acc", 4096),
            alloc("mem_acc_3", "Acc", 4096),
            format!("        sa: {l} = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Left)\n"),
            format!("        sb: {r} = pl.tile.load(w, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Right)\n"),
            format!("        prev: {} = pl.tile.matmul(sa, sb)\n", acc("mem_acc_2")),
            format!("        pre: {} = pl.tile.matmul(sa, sb)\n", acc("mem_acc_3")),
            "        if c < 1:\n".into(),
            seed_line,
            format!("            phi: {} = pl.yield_({then_value})\n", acc("mem_acc_3")),
            "        else:\n".into(),
            format!("            acc: {} = pl.tile.matmul_acc(prev, sa, sb)\n", acc("mem_acc_2")),
            format!("            phi: {} = pl.yield_(acc)\n", acc("mem_acc_3")),
            "        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(phi, [0, 0], y)\n".into(),
            "        r2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(pre, [0, 0], y)\n".into(),
        ]
        .concat(),
    )
}

#[test]
fn accumulator_if_phi_seed_is_coalesced_onto_the_accumulator() {
    let out = reuse_on(&split_k("seed"), Soc::ascend950());
    assert!(
        out.contains(&format!(
            "            seed: {} = pl.tile.matmul(sa, sb)\n",
            acc("mem_acc_2")
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "            phi: {} = pl.yield_(seed)\n",
            acc("mem_acc_2")
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "            phi: {} = pl.yield_(acc)\n",
            acc("mem_acc_2")
        )),
        "{out}"
    );
}

#[test]
fn divergent_accumulator_phi_is_pyptos_internal_error_not_a_move() {
    let err = run_on(&split_k("pre"), Soc::ascend950(), SeedRules::ALL)
        .err()
        .expect("the pass fails");
    assert_eq!(
        err,
        "InternalError: Internal error: MemoryReuse cannot reconcile divergent L0C accumulator \
         buffers with tile.move; accumulator control-flow values must be coalesced before \
         YieldFixup. The accumulator 'acc' yielded here is in another Acc buffer than the result \
         it becomes, and no pipe moves one L0C buffer to another: make every branch (or the \
         loop's init and body) yield an accumulator in one buffer, e.g. give 'acc' and the tiles \
         it accumulates in place the result's MemRef"
    );
}

// ---------------------------------------------------------------- pipeline stages

/// Three stage copies of group 0 (`r0..r2`, 32 KiB each in Right), plus an
/// optional co-resident Right tile `np` live across all of them.
fn stages(with_np: bool) -> String {
    let rt = |b: &str| {
        format!("pl.Tile[[128, 128], pl.BF16, pl.MemRef({b}, pl.const(0, pl.INT64), 32768), pl.Mem.Right]")
    };
    let mut body = vec![
        alloc("mem_right_0", "Right", 32768),
        alloc("mem_right_1", "Right", 32768),
        alloc("mem_right_2", "Right", 32768),
        alloc("mem_right_3", "Right", 32768),
    ];
    if with_np {
        body.push(format!("        np: {} = pl.tile.load(w, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Right)\n", rt("mem_right_3")));
    }
    for k in 0..3 {
        body.push(format!(
            "        r{k}: {} = pl.tile.load(w, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Right, attrs={{\"pipeline_membership\": \"0:{k}\"}})\n",
            rt(&format!("mem_right_{k}"))
        ));
        body.push(format!(
            "        o{k}: pl.Tensor[[128, 128], pl.BF16] = pl.tile.store(r{k}, [0, 0], w)\n"
        ));
    }
    if with_np {
        body.push(
            "        onp: pl.Tensor[[128, 128], pl.BF16] = pl.tile.store(np, [0, 0], w)\n".into(),
        );
    }
    incore(
        "w: pl.InOut[pl.Tensor[[128, 128], pl.BF16]]",
        &body.concat(),
    )
}

fn bases_of(out: &str) -> Vec<String> {
    (0..3)
        .map(|k| {
            let line = out
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("r{k}:")))
                .unwrap_or("");
            line.split("pl.MemRef(")
                .nth(1)
                .and_then(|r| r.split(',').next())
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

#[test]
fn stage_copies_get_the_affordable_depth_and_a_perf_hint() {
    let (out, ctx) = run_on(&stages(false), Soc::ascend910b(), SeedRules::ALL).unwrap();
    // 64 KiB / 32 KiB = 2 buffers for 3 stages: residues 0, 1, 0.
    assert_eq!(
        bases_of(&out),
        ["mem_right_0", "mem_right_1", "mem_right_0"]
    );
    assert!(!out.contains("pipeline_membership"));
    assert_eq!(ctx.diagnostics.len(), 1);
    assert_eq!(ctx.diagnostics[0].kind, DiagKind::PerfHint("PH-MR-001"));
    assert!(ctx.diagnostics[0]
        .message
        .contains("requested 3 concurrent stage buffers but only 2 fit"));
}

#[test]
fn unknown_capacity_keeps_every_stage_apart() {
    let (out, ctx) = run_on(&stages(false), Soc::no_backend(), SeedRules::ALL).unwrap();
    assert_eq!(
        bases_of(&out),
        ["mem_right_0", "mem_right_1", "mem_right_2"]
    );
    assert!(ctx.diagnostics.is_empty());
}

#[test]
fn depth_is_shed_when_a_coresident_tile_would_overflow() {
    let (out, ctx) = run_on(&stages(true), Soc::ascend910b(), SeedRules::ALL).unwrap();
    assert_eq!(
        bases_of(&out),
        ["mem_right_0", "mem_right_0", "mem_right_0"]
    );
    assert!(
        ctx.diagnostics[0].message.contains("only 1 fit"),
        "{:?}",
        ctx.diagnostics
    );
}

// ---------------------------------------------------------------- sub-range fallback

#[test]
fn sub_range_fallback_packs_two_colive_roots_into_a_dead_arena() {
    // Vec holds 188416 bytes on 910B. Whole-buffer packing needs
    // 98304 (A, then B) + 90112 (E) + 49152 (C) = 237568; C fits in the
    // upper half of A's dead arena instead.
    let tile = |rows: u64, b: &str, size: u64| {
        format!("pl.Tile[[{rows}, 64], pl.FP32, pl.MemRef({b}, pl.const(0, pl.INT64), {size}), pl.Mem.Vec]")
    };
    let ld = |n: &str, rows: u64, b: &str, size: u64| {
        format!("        {n}: {} = pl.tile.load(x, [0, 0], [{rows}, 64], [{rows}, 64], target_memory=pl.Mem.Vec)\n", tile(rows, b, size))
    };
    let st = |n: &str| {
        format!("        s_{n}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({n}, [0, 0], y)\n")
    };
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 98304),
            alloc("mem_vec_1", "Vec", 90112),
            alloc("mem_vec_2", "Vec", 49152),
            alloc("mem_vec_3", "Vec", 49152),
            ld("e", 352, "mem_vec_1", 90112),
            ld("a", 384, "mem_vec_0", 98304),
            st("a"),
            ld("b", 192, "mem_vec_2", 49152),
            ld("c", 192, "mem_vec_3", 49152),
            st("b"),
            st("c"),
            st("e"),
        ]
        .concat(),
    );
    let out = reuse(&before);
    // Members placed by the fallback keep their own extent in the arena.
    assert!(out.contains(&ld("b", 192, "mem_vec_0", 49152)), "{out}");
    let c = "        c: pl.Tile[[192, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(49152, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [192, 64], [192, 64], target_memory=pl.Mem.Vec)\n";
    assert!(out.contains(c), "{out}");
    assert!(
        !out.contains("mem_vec_2: pl.Ptr") && !out.contains("mem_vec_3: pl.Ptr"),
        "{out}"
    );
    // Without the fallback the space stays over capacity.
    let (legacy, _) = run_on(
        &before,
        Soc::ascend910b(),
        SeedRules {
            sub_range: false,
            ..SeedRules::ALL
        },
    )
    .unwrap();
    assert!(
        legacy.contains(&ld("c", 192, "mem_vec_3", 49152)),
        "{legacy}"
    );
}

// ---------------------------------------------------------------- hazards

fn sels_program(tmp: &str, dst: &str) -> String {
    let mask = "pl.Tile[[64, 64], pl.UINT8, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec]";
    let mut allocs = vec![
        alloc("mem_vec_0", "Vec", 16384),
        alloc("mem_vec_1", "Vec", 16384),
        alloc("mem_vec_2", "Vec", 4096),
    ];
    for b in ["mem_vec_3", "mem_vec_4", "mem_vec_5"] {
        if [tmp, dst].contains(&b) || (dst == "mem_vec_4" && b == "mem_vec_5") {
            allocs.push(alloc(b, "Vec", 16384));
        }
    }
    let keep = if dst == "mem_vec_4" { "mem_vec_5" } else { dst };
    incore(
        X,
        &[
            allocs.concat(),
            load("t0", "mem_vec_0"),
            load("src", "mem_vec_1"),
            format!("        mask: {mask} = pl.tile.cmps(t0, 0.0, cmp_type=4)\n"),
            load("tmp", tmp),
            op("dst", dst, "sels(mask, src, tmp, -1.0)"),
            op("keep", keep, "add(src, dst)"),
            store("keep"),
        ]
        .concat(),
    )
}

#[test]
fn written_workspace_does_not_take_a_buffer_that_died_before_it() {
    let before = sels_program("mem_vec_3", "mem_vec_4");
    // t0 dies at mask, before tmp is defined: tmp keeps its own buffer;
    // dst (later) may still take t0's.
    assert_eq!(reuse(&before), sels_program("mem_vec_3", "mem_vec_0"));
    let older = SeedRules {
        written_workspace: false,
        ..SeedRules::ALL
    };
    let (out, _) = run_on(&before, Soc::ascend910b(), older).unwrap();
    assert_eq!(out, sels_program("mem_vec_0", "mem_vec_0"));
}

fn tpop_program(decorator: &str, out_base: &str, with_alloc: bool) -> String {
    let tile = |b: &str| {
        format!(
            "pl.Tile[[8, 128], pl.FP32, pl.MemRef({b}, pl.const(0, pl.INT64), 4096), pl.Mem.Vec]"
        )
    };
    prog(
        decorator,
        "d: pl.InOut[pl.Tensor[[16, 128], pl.FP32]]",
        &[
            "        pl.func_attr({\"split\": pl.SplitMode.UP_DOWN})\n".to_string(),
            alloc("mem_vec_0", "Vec", 4096),
            if with_alloc { alloc("mem_vec_1", "Vec", 4096) } else { String::new() },
            format!("        prev: {} = pl.tile.load(d, [0, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)\n", tile("mem_vec_0")),
            "        chunk: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)\n".into(),
            format!("        nxt: {} = pl.tile.add(prev, chunk)\n", tile(out_base)),
            "        r: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(nxt, [0, 0], d)\n".into(),
        ]
        .concat(),
    )
}

#[test]
fn split_aiv_load_tpop_writer_keeps_off_the_load_buffer_on_910b_only() {
    let aiv = "(type=pl.FunctionType.AIV)";
    let before = tpop_program(aiv, "mem_vec_1", true);
    assert_eq!(reuse_on(&before, Soc::ascend910b()), before);
    assert_eq!(
        reuse_on(&before, Soc::ascend950()),
        tpop_program(aiv, "mem_vec_0", false)
    );
    // Not a split AIV function: no hazard.
    let incore_fn = tpop_program("(type=pl.FunctionType.InCore)", "mem_vec_1", true);
    assert_eq!(
        reuse_on(&incore_fn, Soc::ascend910b()),
        tpop_program("(type=pl.FunctionType.InCore)", "mem_vec_0", false)
    );
}

// ---------------------------------------------------------------- declared allocations

fn pinned(slot_b: &str, b_reads_a: bool) -> String {
    let tile = |s: &str| {
        format!("pl.Tile[[64, 64], pl.FP32, pl.MemRef(buf, pl.const(0, pl.INT64), 16384, slots=2)[{s}], pl.Mem.Vec]")
    };
    incore(
        X,
        &[
            "        buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)\n".to_string(),
            alloc("mem_vec_1", "Vec", 16384),
            format!("        a: {} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n", tile("0")),
            format!("        b: {} = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)\n", tile(slot_b)),
            if b_reads_a { store("a") } else { String::new() },
            store("b"),
            load("c", "mem_vec_1"),
            store("c"),
        ]
        .concat(),
    )
}

#[test]
fn declared_allocations_are_closed_and_same_slot_overlap_is_an_error() {
    // c is dead-disjoint from a and b but never joins the declared buffer.
    let ok = pinned("1", true);
    assert_eq!(reuse(&ok), ok);
    let err = run_on(&pinned("0", true), Soc::ascend910b(), SeedRules::ALL)
        .err()
        .expect("the pass fails");
    assert!(
        err.contains("tiles 'a' and 'b'")
            && err.contains("slot 0 of the declared allocation 'buf'"),
        "{err}"
    );
    // A runtime slot index skips the check.
    let dynamic = pinned("i % 2", true).replace(X, &format!("{X}, i: pl.Scalar[pl.INDEX]"));
    assert!(run_on(&dynamic, Soc::ascend910b(), SeedRules::ALL).is_ok());
}

// ---------------------------------------------------------------- modes and analysis API

#[test]
fn other_planner_modes_leave_the_program_alone() {
    let (before, _) = chain("exp");
    let mut p = tilemem_pto::parse(&before).unwrap();
    let mut ctx = PassContext::new(Soc::ascend910b(), PlannerMode::DsaRp);
    memory_reuse::run(&mut p, &mut ctx).unwrap();
    assert_eq!(tilemem_pto::print(&p), before);
}

#[test]
fn lifetime_analysis_exposes_roots_and_half_open_intervals() {
    let (before, _) = chain("exp");
    let p = tilemem_pto::parse(&before).unwrap();
    let f = &p.functions[0];
    let lt = roots::analyze(f);
    let lives: Vec<_> = lt
        .roots
        .values()
        .map(|r| (r.size, r.lifetime().unwrap()))
        .collect();
    // Indices: allocs 0, 1; a = load 2; b = exp 3; store 4.
    assert_eq!(lives[0], (16384, Lifetime { def: 2, last: 3 }));
    assert_eq!(lives[1], (16384, Lifetime { def: 3, last: 4 }));
    assert_eq!(lives[0].1.half_open(), (5, 7));
    assert_eq!(lives[1].1.half_open(), (7, 9));
    assert!(!lives[0].1.overlaps(&lives[1].1));
}

// ---------------------------------------------------------------- more packing rules

#[test]
fn legacy_fallback_warns_but_an_oversized_buffer_does_not() {
    // Right holds 65536 bytes on 910B. Two stage copies of 48 KiB never fit
    // side by side, so depth 1 is tried; with a co-resident 32 KiB tile
    // even that overflows and the legacy packing is kept with a warning.
    let rt = |b: &str, size: u64, rows: u64| {
        format!("pl.Tile[[{rows}, 128], pl.BF16, pl.MemRef({b}, pl.const(0, pl.INT64), {size}), pl.Mem.Right]")
    };
    let body = [
        alloc("mem_right_0", "Right", 49152),
        alloc("mem_right_1", "Right", 49152),
        alloc("mem_right_2", "Right", 32768),
        format!("        np: {} = pl.tile.load(w, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Right)\n", rt("mem_right_2", 32768, 128)),
        format!("        r0: {} = pl.tile.load(w, [0, 0], [192, 128], [192, 128], target_memory=pl.Mem.Right, attrs={{\"pipeline_membership\": \"0:0\"}})\n", rt("mem_right_0", 49152, 192)),
        "        o0: pl.Tensor[[128, 128], pl.BF16] = pl.tile.store(r0, [0, 0], w)\n".into(),
        format!("        r1: {} = pl.tile.load(w, [0, 0], [192, 128], [192, 128], target_memory=pl.Mem.Right, attrs={{\"pipeline_membership\": \"0:1\"}})\n", rt("mem_right_1", 49152, 192)),
        "        o1: pl.Tensor[[128, 128], pl.BF16] = pl.tile.store(r1, [0, 0], w)\n".into(),
        "        onp: pl.Tensor[[128, 128], pl.BF16] = pl.tile.store(np, [0, 0], w)\n".into(),
    ]
    .concat();
    let src = incore("w: pl.InOut[pl.Tensor[[128, 128], pl.BF16]]", &body);
    let (out, ctx) = run_on(&src, Soc::ascend910b(), SeedRules::ALL).unwrap();
    assert!(
        out.contains("r1: pl.Tile[[192, 128], pl.BF16, pl.MemRef(mem_right_1,"),
        "{out}"
    );
    assert_eq!(ctx.diagnostics.len(), 1, "{:?}", ctx.diagnostics);
    assert_eq!(ctx.diagnostics[0].kind, DiagKind::Warning);
    assert!(ctx.diagnostics[0]
        .message
        .contains("Right space needs 131072 bytes but has 65536"));
    // One buffer larger than the whole space: no reuse warning (the
    // allocator reports the hard error).
    let big = src
        .replace("49152", "98304")
        .replace("[192, 128]", "[384, 128]");
    let (_, ctx) = run_on(&big, Soc::ascend910b(), SeedRules::ALL).unwrap();
    assert!(ctx.diagnostics.is_empty(), "{:?}", ctx.diagnostics);
}

#[test]
fn shedding_prefers_the_group_with_the_largest_slot() {
    // Group 0 (24 KiB copies) and group 1 (16 KiB copies) next to a long
    // lived 24 KiB tile: 3 x 24 KiB overflows 64 KiB, so group 0 sheds and
    // group 1 keeps its two buffers.
    let rt = |b: &str, size: u64| {
        format!("pl.Tile[[{}, 128], pl.BF16, pl.MemRef({b}, pl.const(0, pl.INT64), {size}), pl.Mem.Right]", size / 256)
    };
    let ld = |n: &str, b: &str, size: u64, tag: &str| {
        let attrs = if tag.is_empty() {
            String::new()
        } else {
            format!(", attrs={{\"pipeline_membership\": \"{tag}\"}}")
        };
        format!("        {n}: {} = pl.tile.load(w, [0, 0], [{r}, 128], [{r}, 128], target_memory=pl.Mem.Right{attrs})\n        s_{n}: pl.Tensor[[128, 128], pl.BF16] = pl.tile.store({n}, [0, 0], w)\n", rt(b, size), r = size / 256)
    };
    let mut body = vec![
        alloc("mem_right_0", "Right", 24576),
        alloc("mem_right_1", "Right", 24576),
        alloc("mem_right_2", "Right", 24576),
        alloc("mem_right_3", "Right", 16384),
        alloc("mem_right_4", "Right", 16384),
        format!("        np: {} = pl.tile.load(w, [0, 0], [96, 128], [96, 128], target_memory=pl.Mem.Right)\n", rt("mem_right_0", 24576)),
    ];
    body.push(ld("a0", "mem_right_1", 24576, "0:0"));
    body.push(ld("a1", "mem_right_2", 24576, "0:1"));
    body.push(ld("b0", "mem_right_3", 16384, "1:0"));
    body.push(ld("b1", "mem_right_4", 16384, "1:1"));
    body.push(
        "        onp: pl.Tensor[[128, 128], pl.BF16] = pl.tile.store(np, [0, 0], w)\n".into(),
    );
    let src = incore(
        "w: pl.InOut[pl.Tensor[[128, 128], pl.BF16]]",
        &body.concat(),
    );
    let (out, ctx) = run_on(&src, Soc::ascend910b(), SeedRules::ALL).unwrap();
    let base = |n: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(&format!("{n}:")))
            .and_then(|l| l.split("pl.MemRef(").nth(1))
            .and_then(|r| r.split(',').next())
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(base("a0"), "mem_right_1");
    assert_eq!(base("a1"), "mem_right_1");
    assert_eq!(base("b0"), "mem_right_1");
    assert_eq!(base("b1"), "mem_right_4");
    assert_eq!(ctx.diagnostics.len(), 1);
    assert!(ctx.diagnostics[0]
        .message
        .contains("pipeline group 0 requested 2"));
}

#[test]
fn nested_loop_carries_follow_their_reused_init() {
    // init z dies into init2 (in-place safe), so the outer carry root moves
    // onto z's buffer; the inner loop, initialised by the outer iter arg,
    // follows.
    let before = incore(
        X,
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            load("z", "mem_vec_0"),
            op("init", "mem_vec_1", "exp(z)"),
            "        for i, (acc,) in pl.range(2, init_values=(init,)):\n".into(),
            "            for j, (acc2,) in pl.range(2, init_values=(acc,)):\n".into(),
            op("        nxt", "mem_vec_1", "add(acc2, acc2)"),
            format!(
                "                inner: {} = pl.yield_(nxt)\n",
                t("mem_vec_1")
            ),
            format!("            outer: {} = pl.yield_(inner)\n", t("mem_vec_1")),
            store("outer"),
        ]
        .concat(),
    );
    let after = before
        .replace(&alloc("mem_vec_1", "Vec", 16384), "")
        .replace("mem_vec_1", "mem_vec_0");
    assert_eq!(reuse(&before), after);
}

#[test]
fn load_tpop_hazard_follows_a_carry_tainted_later_in_the_body() {
    // w reads the carry c, which the tpop result p feeds from the second
    // iteration on (p comes after w in the body): on 910B w may not take
    // the load buffer of l.
    let tile = |b: &str| {
        format!(
            "pl.Tile[[8, 128], pl.FP32, pl.MemRef({b}, pl.const(0, pl.INT64), 4096), pl.Mem.Vec]"
        )
    };
    let src = |w_base: &str, with_alloc: bool| {
        prog(
            "(type=pl.FunctionType.AIV)",
            "d: pl.InOut[pl.Tensor[[16, 128], pl.FP32]]",
            &[
                "        pl.func_attr({\"split\": pl.SplitMode.UP_DOWN})\n".to_string(),
                alloc("mem_vec_0", "Vec", 4096),
                alloc("mem_vec_1", "Vec", 4096),
                if with_alloc { alloc("mem_vec_2", "Vec", 4096) } else { String::new() },
                format!("        c0: {} = pl.tile.load(d, [0, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)\n", tile("mem_vec_0")),
                "        for i, (c,) in pl.range(4, init_values=(c0,)):\n".into(),
                format!("            l: {} = pl.tile.load(d, [0, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)\n", tile("mem_vec_1")),
                format!("            w: {} = pl.tile.add(l, c)\n", tile(w_base)),
                "            r: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(w, [0, 0], d)\n".into(),
                format!("            p: {} = pl.tile.tpop_from_aic(split=1)\n", tile("mem_vec_0")),
                format!("            out: {} = pl.yield_(p)\n", tile("mem_vec_0")),
            ]
            .concat(),
        )
    };
    let before = src("mem_vec_2", true);
    assert_eq!(reuse_on(&before, Soc::ascend910b()), before);
    assert_eq!(reuse_on(&before, Soc::ascend950()), src("mem_vec_1", false));
}

#[test]
fn if_without_else_has_no_phi_and_shares_like_straight_code() {
    let before = incore(
        &format!("{X}, c: pl.Scalar[pl.INDEX]"),
        &[
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            alloc("mem_vec_2", "Vec", 16384),
            load("a", "mem_vec_0"),
            "        if c < 2:\n".into(),
            op("    b", "mem_vec_1", "add(a, a)"),
            "            r_b: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)\n".into(),
            "            pl.yield_()\n".into(),
            op("d", "mem_vec_2", "add(a, a)"),
            store("d"),
        ]
        .concat(),
    );
    // a is read after the if, so b (inside) keeps its own buffer; d takes a's.
    let after = before
        .replace(&alloc("mem_vec_2", "Vec", 16384), "")
        .replace(
            &op("d", "mem_vec_2", "add(a, a)"),
            &op("d", "mem_vec_0", "add(a, a)"),
        );
    assert_eq!(reuse(&before), after);
}

#[test]
fn sub_range_placement_rebases_views_of_the_moved_root() {
    let src = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 98304)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 90112)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 49152)
        e: pl.Tile[[352, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 90112), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [352, 64], [352, 64], target_memory=pl.Mem.Vec)
        a: pl.Tile[[384, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 98304), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [384, 64], [384, 64], target_memory=pl.Mem.Vec)
        s_a: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(a, [0, 0], y)
        b: pl.Tile[[192, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [192, 64], [192, 64], target_memory=pl.Mem.Vec)
        c: pl.Tile[[192, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 49152), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [192, 64], [192, 64], target_memory=pl.Mem.Vec)
        cs: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_3, 256, 256), pl.Mem.Vec] = pl.tile.slice(c, [1, 64], [1, 0])
        s_b: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)
        s_c: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(cs, [0, 0], y)
        s_e: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(e, [0, 0], y)
"#;
    let out = reuse(src);
    assert!(
        out.contains("        cs: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_0, 49408, 256), pl.Mem.Vec] = pl.tile.slice(c, [1, 64], [1, 0])\n"),
        "{out}"
    );
}

#[test]
fn tensor_loop_carries_keep_their_own_memref_without_copies() {
    // behaviour.md (yield fix-up): only tile results are patched; PyPTO
    // leaves a tensor (DDR) result's MemRef as it was (every reference
    // kernel with a tensor carry shows it unchanged).
    let ten = |n: &str| {
        format!("pl.Tensor[[64, 64], pl.FP32, pl.MemRef(\"{n}\", pl.const(0, pl.INT64), 16384)]")
    };
    let src = |res: &str| {
        incore(
            &format!(
                "x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[{}]",
                ten("mem_ddr_0")
            ),
            &[
                alloc("mem_vec_1", "Vec", 16384),
                "        for i, (out,) in pl.range(2, init_values=(y,)):\n".to_string(),
                load("    a", "mem_vec_1"),
                format!(
                    "            o2: {} = pl.tile.store(a, [0, 0], out)\n",
                    ten("mem_ddr_5")
                ),
                format!("            res: {} = pl.yield_(o2)\n", ten(res)),
                "        return res\n".into(),
            ]
            .concat(),
        )
    };
    assert_eq!(reuse(&src("mem_ddr_5")), src("mem_ddr_5"));
}

#[test]
fn constraints_list_every_hard_separation_for_dsa_rp() {
    use tilemem_pto::passes::analysis::constraints::{self, SeparationReason};
    // recip forbids b on a's buffer; the pinned buffer is apart from both.
    let src = incore(
        X,
        &[
            "        buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)\n".to_string(),
            alloc("mem_vec_0", "Vec", 16384),
            alloc("mem_vec_1", "Vec", 16384),
            load("a", "mem_vec_0"),
            op("b", "mem_vec_1", "recip(a)"),
            store("b"),
            load("p", "buf"),
            store("p"),
        ]
        .concat(),
    );
    let p = tilemem_pto::parse(&src).unwrap();
    let f = &p.functions[0];
    let lt = roots::analyze(f);
    let c = constraints::collect(f, &lt, &Soc::ascend910b(), SeedRules::ALL);
    let seps: Vec<_> = c
        .all_separations(&lt)
        .into_iter()
        .map(|s| (lt.roots[s.a].size, s.a, s.b, s.reason))
        .map(|(_, a, b, r)| (format!("{a}"), format!("{b}"), r))
        .collect();
    // Roots in order: buf (r0), mem_vec_0 (r1), mem_vec_1 (r2).
    assert_eq!(
        seps,
        [
            (
                "r0".to_string(),
                "r1".to_string(),
                SeparationReason::Declared
            ),
            (
                "r0".to_string(),
                "r2".to_string(),
                SeparationReason::Declared
            ),
            (
                "r1".to_string(),
                "r2".to_string(),
                SeparationReason::NoAlias
            ),
        ]
    );
    assert!(c.stage_pairs(&lt).is_empty());
}

#[test]
fn stage_pairs_keep_every_copy_apart_at_full_depth() {
    use tilemem_pto::passes::analysis::constraints;
    let src = stages(false);
    let p = tilemem_pto::parse(&src).unwrap();
    let f = &p.functions[0];
    let lt = roots::analyze(f);
    let c = constraints::collect(f, &lt, &Soc::ascend910b(), SeedRules::ALL);
    let pairs: Vec<String> = c
        .stage_pairs(&lt)
        .into_iter()
        .map(|(a, b)| format!("{a}-{b}"))
        .collect();
    assert_eq!(pairs, ["r0-r1", "r0-r2", "r1-r2"]);
    assert_eq!(c.group_depth.get(&0), Some(&3));
}

#[test]
fn tuple_results_inherit_the_ops_no_alias_rule() {
    // m is read out of row_max's tuple one statement after a's last use;
    // row_max may not write over its inputs, so neither may m.
    let m_tile = |b: &str, size: u64| {
        format!(
            "pl.Tile[[64, 1], pl.FP32, pl.MemRef({b}, pl.const(0, pl.INT64), {size}), pl.Mem.Vec]"
        )
    };
    let src = |m: &str, size: u64, extra: bool| {
        incore(
            X,
            &[
                alloc("mem_vec_0", "Vec", 16384),
                alloc("mem_vec_1", "Vec", 16384),
                if extra { alloc("mem_vec_2", "Vec", 256) } else { String::new() },
                load("a", "mem_vec_0"),
                op("tmp", "mem_vec_1", "create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)"),
                "        t: pl.Tuple[pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec]] = pl.tile.row_max(a, tmp)\n".into(),
                format!("        m: {} = t[0]\n", m_tile(m, size)),
                store("m"),
            ]
            .concat(),
        )
    };
    let before = src("mem_vec_2", 256, true);
    assert_eq!(reuse(&before), before);
    // With an in-place safe op in its place (the registry's tile.maximum),
    // m may take a's buffer.
    let add = before.replace("pl.tile.row_max(a, tmp)", "pl.tile.maximum(a, tmp)");
    let out = reuse(&add);
    assert!(
        out.contains(&format!(
            "        m: {} = t[0]\n",
            m_tile("mem_vec_0", 16384)
        )),
        "{out}"
    );
}

/// An Acc tile of `rows x 64` FP32 on `base` (offset written `off`).
fn acc_tile(rows: u64, base: &str, off: &str, size: u64) -> String {
    format!("pl.Tile[[{rows}, 64], pl.FP32, pl.MemRef({base}, {off}, {size}), pl.Mem.Acc]")
}

#[test]
fn split_k_accumulators_move_as_one_group_without_a_copy() {
    // behaviour.md: a moved sharing group's first-defined member takes the
    // target's MemRef whole; every other member (the `if` results included)
    // keeps its own size at a bare relative offset, and the yields need no
    // Acc-to-Acc move (PyPTO's mat_split_k / ddr_split_k).
    let c = "pl.const(0, pl.INT64)";
    let (big, small) = (
        acc_tile(128, "mem_acc_1", c, 32768),
        acc_tile(64, "mem_acc_2", c, 16384),
    );
    let l = "pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_left_3, pl.const(0, pl.INT64), 8192), pl.Mem.Left]";
    let r = "pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_right_4, pl.const(0, pl.INT64), 8192), pl.Mem.Right]";
    let lines = [
        format!("a: {l} = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Left)"),
        format!("b: {r} = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Right)"),
        format!("w: {big} = pl.tile.create([128, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)"),
        "y1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(w, [0, 0], y)".into(),
        format!(
            "init: {small} = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)"
        ),
        "for ko, (cc,) in pl.range(0, 128, 64, init_values=(init,)):".into(),
        "    if ko == 0:".into(),
        format!("        first: {small} = pl.tile.matmul(a, b)"),
        format!("        phi: {small} = pl.yield_(first)"),
        "    else:".into(),
        format!("        accd: {small} = pl.tile.matmul_acc(cc, a, b)"),
        format!("        phi: {small} = pl.yield_(accd)"),
        format!("    res: {small} = pl.yield_(phi)"),
        "y2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(res, [0, 0], y1)".into(),
        "return y2".into(),
    ];
    let mut body = alloc("mem_acc_1", "Acc", 32768)
        + &alloc("mem_acc_2", "Acc", 16384)
        + &alloc("mem_left_3", "Left", 8192)
        + &alloc("mem_right_4", "Right", 8192);
    for line in lines {
        body.push_str(&format!("        {line}\n"));
    }
    let out = reuse(&incore(X, &body));
    let whole = acc_tile(64, "mem_acc_1", c, 32768);
    let own = acc_tile(64, "mem_acc_1", "0", 16384);
    for line in [
        format!("        init: {whole} = pl.tile.create("),
        format!("                first: {own} = pl.tile.matmul(a, b)"),
        format!("                phi: {own} = pl.yield_(first)"),
        format!("                accd: {own} = pl.tile.matmul_acc(cc, a, b)"),
        format!("            res: {whole} = pl.yield_(phi)"),
    ] {
        assert!(out.contains(&line), "missing `{line}` in\n{out}");
    }
    assert!(!out.contains("mem_acc_2"), "{out}");
    assert!(!out.contains("pl.tile.move"), "{out}");
}
