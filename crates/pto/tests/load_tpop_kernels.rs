//! The split-AIV load + `tpop_from_aic` hazard (seed 000: "Ascend910 load +
//! tpop_from_aic 危害") in the two shapes PyPTO's cross-core kernels take,
//! planned end to end (MemoryReuse, AllocateMemoryAddr; DSA_RP) with exact
//! addresses:
//!
//! - a writer `nxt = tile.add(prev, t)` in a loop, `prev` loaded from the
//!   loop-carried tensor, `t` popped from the cube core with no MemRef of
//!   its own (pipe storage): on 910B `nxt` may not take `prev`'s buffer but
//!   may take any other dead one (here the pushed tile's);
//! - the same writer next to a 128 KiB cross-core pipe ring, where keeping
//!   the two 32 KiB tiles apart needs 196608 of the 188416 Vec bytes: on
//!   910B both planners refuse the program instead of sharing.
//!
//! On 950 the hazard does not apply, and under `--compat pypto-e2d0f78`
//! (PyPTO at that commit classified neither case as hazardous) the writer
//! shares the load buffer: that is the output PyPTO's reference dumps of
//! such kernels show, and why tilemem differs from them by design.

use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode, SeedRules};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

/// A Vec tile of `shape` FP32 in `base` at `offset` of `size` bytes.
fn vec_tile(shape: &str, base: &str, offset: u64, size: u64) -> String {
    format!(
        "pl.Tile[{shape}, pl.FP32, pl.MemRef({base}, pl.const({offset}, pl.INT64), {size}), pl.Mem.Vec]"
    )
}

fn program(sig: &str, body: &[String]) -> String {
    let mut s = String::from(
        "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n",
    );
    s.push_str(&format!("    def k({sig}:\n"));
    for line in body {
        s.push_str("        ");
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// Plans `src` for `target` under `planner` (running `passes`) with
/// `rules`: the printed program, or the error.
fn plan(
    src: &str,
    target: &str,
    planner: PlannerMode,
    passes: &[PassId],
    rules: SeedRules,
) -> Result<String, String> {
    let mut p = parse(src).map_err(|e| e.message.clone())?;
    let mut cx = PassContext::new(Soc::from_name(target).unwrap(), planner);
    cx.seed_rules = rules;
    run_pipeline(&mut p, &mut cx, passes).map_err(|e| e.to_string())?;
    Ok(print(&p))
}

const PYPTO: &[PassId] = &[PassId::MemoryReuse, PassId::AllocateMemoryAddr];
const DSA: &[PassId] = &[PassId::AllocateMemoryAddr];

const FUNC_ATTR: &str = "pl.func_attr({\"split_aiv\": True, \"split\": pl.SplitMode.UP_DOWN, \"dual_aiv_dispatch\": True})";

/// The loop kernel. `planned` is `None` for the input (four 4 KiB roots,
/// ring base AUTO), else the name of the buffer `nxt` ends in and its
/// address (the ring takes [0, 16384), `x`, `prev`, `y` follow in order).
fn loop_kernel(planned: Option<(&str, u64)>) -> String {
    let sh = "[16, 64]";
    let at = |base: &str, n: u64| match planned {
        None => vec_tile(sh, base, 0, 4096),
        Some(_) => vec_tile(sh, base, 16384 + 4096 * n, 4096),
    };
    let nxt = match planned {
        None => vec_tile(sh, "mem_vec_3", 0, 4096),
        Some((base, addr)) => vec_tile(sh, base, addr, 4096),
    };
    let mut body = vec![
        FUNC_ATTR.to_string(),
        "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)".into(),
        "mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)".into(),
        "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)".into(),
    ];
    if planned.is_none() {
        body.push("mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)".into());
    }
    let base = if planned.is_some() { 0 } else { -1 };
    body.extend([
        format!("k_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_c2v_slot_buffer', size=16384, base={base})"),
        format!("x: {} = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)", at("mem_vec_0", 0)),
        "for i, (c_it,) in pl.range(8, init_values=(c,)):".into(),
        format!("    prev: {} = pl.tile.load(c_it, [0, i * 64], [16, 64], [16, 64], target_memory=pl.Mem.Vec)", at("mem_vec_1", 1)),
        format!("    y: {} = pl.tile.adds(x, 1.0)", at("mem_vec_2", 2)),
        "    pl.tile.tpush_to_aic(y, split=1)".into(),
        "    t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)".into(),
        format!("    nxt: {nxt} = pl.tile.add(prev, t)"),
        "    pl.system.tfree_to_aic(t, split=1)".into(),
        "    c_st: pl.Tensor[[16, 512], pl.FP32] = pl.tile.store(nxt, [0, i * 64], c_it)".into(),
        "    c_rv: pl.Tensor[[16, 512], pl.FP32] = pl.yield_(c_st)".into(),
        "return c_rv".into(),
    ]);
    program(
        "c: pl.InOut[pl.Tensor[[16, 512], pl.FP32]], a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 512], pl.FP32]",
        &body,
    )
}

#[test]
fn popped_writer_in_a_loop_takes_a_dead_non_load_buffer_on_910b() {
    let src = loop_kernel(None);
    // 910B: prev (loaded) dies into nxt, but nxt reads the popped t, so it
    // takes y's buffer (dead since the push) instead.
    assert_eq!(
        plan(&src, "910b", PlannerMode::Pypto, PYPTO, SeedRules::ALL).unwrap(),
        loop_kernel(Some(("mem_vec_2", 24576)))
    );
    // 950 has no such hazard, and PyPTO e2d0f78 had none: nxt takes prev's
    // buffer, the first one it can share (largest first, then definition
    // order).
    assert_eq!(
        plan(&src, "950", PlannerMode::Pypto, PYPTO, SeedRules::ALL).unwrap(),
        loop_kernel(Some(("mem_vec_1", 20480)))
    );
    assert_eq!(
        plan(
            &src,
            "910b",
            PlannerMode::Pypto,
            PYPTO,
            SeedRules::pypto_e2d0f78()
        )
        .unwrap(),
        loop_kernel(Some(("mem_vec_1", 20480)))
    );
    // Not a split function: no hazard either.
    let unsplit = src.replace(FUNC_ATTR, "pl.func_attr({\"dual_aiv_dispatch\": True})");
    assert_eq!(
        plan(&unsplit, "910b", PlannerMode::Pypto, PYPTO, SeedRules::ALL).unwrap(),
        loop_kernel(Some(("mem_vec_1", 20480)))
            .replace(FUNC_ATTR, "pl.func_attr({\"dual_aiv_dispatch\": True})")
    );
}

/// The ring kernel: a 131072-byte pipe ring, `b` loaded (32 KiB), `acc`
/// popped, `t = add(acc, b)`. `planned`: `None` for the input, else the
/// addresses of `b` and `t` (and `t`'s root) after planning.
fn ring_kernel(planned: Option<(u64, &str, u64)>) -> String {
    let sh = "[128, 64]";
    let (b, t) = match planned {
        None => (
            vec_tile(sh, "mem_vec_0", 0, 32768),
            vec_tile(sh, "mem_vec_1", 0, 32768),
        ),
        Some((b, t_base, t)) => (
            vec_tile(sh, "mem_vec_0", b, 32768),
            vec_tile(sh, t_base, t, 32768),
        ),
    };
    let mut body = vec![
        FUNC_ATTR.replace("UP_DOWN", "LEFT_RIGHT"),
        "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)".to_string(),
    ];
    if planned.is_none_or(|(_, t_base, _)| t_base == "mem_vec_1") {
        body.push("mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)".into());
    }
    let base = if planned.is_some() { 0 } else { -1 };
    body.extend([
        format!("k_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_c2v_slot_buffer', size=131072, base={base})"),
        "pl.system.aiv_initialize_pipe(k_c2v_slot_buffer, pl.const(0, pl.INT32), dir_mask=1, slot_size=65536, slot_num=2)".into(),
        format!("b: {b} = pl.tile.load(bias, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Vec)"),
        "acc: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=2)".into(),
        format!("t: {t} = pl.tile.add(acc, b)"),
        "pl.system.tfree_to_aic(acc, split=2)".into(),
        "o: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], out)".into(),
        "return o".into(),
    ]);
    program(
        "bias: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]",
        &body,
    )
}

#[test]
fn hazard_next_to_a_pipe_ring_is_refused_on_910b_not_shared() {
    let src = ring_kernel(None);
    // PYPTO: b and t stay apart, 131072 + 2 * 32768 = 196608 > 188416.
    let err = plan(&src, "910b", PlannerMode::Pypto, PYPTO, SeedRules::ALL).unwrap_err();
    assert!(
        err.contains(
            "Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes). The first 131072 bytes of that space are reserved by system.reserve_buffer, so tiles are allocated above them. The reserve is the cross-core pipe ring"
        ),
        "{err}"
    );
    // DSA_RP keeps the hazard as a hard separation, not a penalty it may
    // pay: no placement.
    let err = plan(&src, "910b", PlannerMode::DsaRp, DSA, SeedRules::ALL).unwrap_err();
    assert!(
        err.contains("DSA-RP could not find a placement for 'k'")
            && err.contains("Vec space: 2 buffers, 65536 bytes requested, capacity 188416"),
        "{err}"
    );
    // PyPTO e2d0f78's rules share b's buffer in both planners (what its
    // dumps of such kernels show).
    let shared = ring_kernel(Some((131072, "mem_vec_0", 131072)));
    assert_eq!(
        plan(
            &src,
            "910b",
            PlannerMode::Pypto,
            PYPTO,
            SeedRules::pypto_e2d0f78()
        )
        .unwrap(),
        shared
    );
    assert_eq!(
        plan(
            &src,
            "910b",
            PlannerMode::DsaRp,
            DSA,
            SeedRules::pypto_e2d0f78()
        )
        .unwrap(),
        ring_kernel(Some((131072, "mem_vec_1", 131072)))
    );
    // 950: no hazard; PYPTO shares, DSA_RP has room to keep them apart.
    assert_eq!(
        plan(&src, "950", PlannerMode::Pypto, PYPTO, SeedRules::ALL).unwrap(),
        shared
    );
    assert_eq!(
        plan(&src, "950", PlannerMode::DsaRp, DSA, SeedRules::ALL).unwrap(),
        ring_kernel(Some((131072, "mem_vec_1", 163840)))
    );
}
