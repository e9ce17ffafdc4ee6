//! The DSA_RP planner mode on the repository's own small programs: exact
//! addresses for each rule of the model (penalty-driven placement, no
//! penalties without a backend, partial views, control flow, no-alias,
//! pipeline stages with the relaxed fallback and `PH-DSA-001`, reserved
//! windows), exact error messages, problem export and replay, and the
//! optimal mode never using more bytes than the greedy.

mod common;

use common::program;
use tilemem_plan::csv;
use tilemem_plan::solve::handoff;
use tilemem_pto::passes::dsa_rp::{self, DsaOptions};
use tilemem_pto::passes::{run_pipeline, ErrorKind, PassContext, PassError, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

fn plan_mode(
    src: &str,
    target: &str,
    mode: PlannerMode,
) -> Result<(String, Vec<String>), PassError> {
    let mut p = parse(src).expect("test program parses");
    let mut cx = PassContext::new(Soc::from_name(target).unwrap(), mode);
    run_pipeline(&mut p, &mut cx, &[PassId::AllocateMemoryAddr])?;
    let diags = cx.diagnostics.iter().map(|d| d.to_string()).collect();
    Ok((print(&p), diags))
}

fn plan(src: &str, target: &str) -> Result<(String, Vec<String>), PassError> {
    plan_mode(src, target, PlannerMode::DsaRp)
}

/// The offset of every tile MemRef in printed order, as `name=offset`.
fn offsets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let Some((name, rest)) = t.split_once(": pl.Tile[") else {
            continue;
        };
        let Some(i) = rest.find("pl.MemRef(") else {
            continue;
        };
        let r = &rest[i + "pl.MemRef(".len()..];
        let off = r
            .split_once("pl.const(")
            .and_then(|(_, x)| x.split_once(','))
            .map(|(n, _)| n.to_string())
            .unwrap_or_else(|| "?".into());
        out.push(format!("{name}={off}"));
    }
    out
}

fn tile(name: &str, root: &str, size: u64, rhs: &str) -> String {
    format!(
        "{name}: pl.Tile[[64, 64], pl.FP32, pl.MemRef({root}, pl.const(0, pl.INT64), {size}), pl.Mem.Vec] = {rhs}"
    )
}

fn alloc(root: &str, size: u64) -> String {
    format!("{root}: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, {size})")
}

const SIG: &str = "x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]";

/// a, b loaded (MTE2); c = add(a, b) could take a's bytes but that would be
/// a cross-pipe write-after-write handoff; d and e follow c on the vector
/// pipe and reuse c's bytes freely.
fn chain() -> String {
    let body: Vec<String> = vec![
        alloc("mem_vec_0", 16384),
        alloc("mem_vec_1", 16384),
        alloc("mem_vec_2", 16384),
        alloc("mem_vec_3", 16384),
        tile(
            "a",
            "mem_vec_0",
            16384,
            "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
        ),
        tile(
            "b",
            "mem_vec_1",
            16384,
            "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
        ),
        tile("c", "mem_vec_2", 16384, "pl.tile.add(a, b)"),
        tile("d", "mem_vec_3", 16384, "pl.tile.mul(c, c)"),
        "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(d, [0, 0], y)".into(),
        "return r".into(),
    ];
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    program("InCore", SIG, &refs)
}

#[test]
fn cross_pipe_handoff_moves_a_tile_to_fresh_bytes() {
    let (out, diags) = plan(&chain(), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=16384", "c=32768", "d=32768"]);
    assert!(diags.is_empty());
}

#[test]
fn without_a_backend_there_are_no_penalties() {
    let (out, _) = plan(&chain(), "none").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=16384", "c=0", "d=0"]);
}

#[test]
fn partial_views_carry_no_penalty() {
    // The loaded tile has a valid_shape smaller than its shape: reusing its
    // bytes is not penalized, so the next tile takes offset 0.
    let src = program(
        "InCore",
        SIG,
        &[
            &alloc("mem_vec_0", 16384),
            &alloc("mem_vec_1", 16384),
            "a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec, pl.TileView(valid_shape=[48, 64])] = pl.tile.load(x, [0, 0], [64, 64], [48, 64], target_memory=pl.Mem.Vec)",
            &tile("b", "mem_vec_1", 16384, "pl.tile.fillpad(a, pad_value=pl.PadValue.max)"),
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    );
    let (out, _) = plan(&src, "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=0"]);
}

#[test]
fn no_alias_rule_is_a_hard_separation() {
    // recip may not write over its input even with a backend-free target
    // (no penalties at all there).
    let src = program(
        "InCore",
        SIG,
        &[
            &alloc("mem_vec_0", 16384),
            &alloc("mem_vec_1", 16384),
            &tile(
                "a",
                "mem_vec_0",
                16384,
                "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
            ),
            &tile("b", "mem_vec_1", 16384, "pl.tile.recip(a)"),
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    );
    let (out, _) = plan(&src, "none").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=16384"]);
}

#[test]
fn unused_allocs_are_removed_and_memrefs_printed_as_constants() {
    let src = program(
        "InCore",
        SIG,
        &[
            &alloc("mem_vec_0", 16384),
            &alloc("mem_vec_9", 512),
            "a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    );
    let (out, _) = plan(&src, "950").unwrap();
    assert!(!out.contains("mem_vec_9"), "{out}");
    assert!(
        out.contains("pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384)"),
        "{out}"
    );
}

fn staged(size: u64) -> String {
    // Three stage copies of one pipeline group in Right.
    let mut body = Vec::new();
    for k in 0..3 {
        body.push(format!(
            "mem_mat_{k}: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, {size})"
        ));
        body.push(format!(
            "mem_right_{k}: pl.Ptr = pl.tile.alloc(pl.Mem.Right, {size})"
        ));
    }
    for k in 0..3 {
        // [rows, 128] BF16 tiles of `size` bytes: an allocation holds
        // its tiles' bytes (the reader checks it).
        let rows = size / 256;
        body.push(format!("bm{k}: pl.Tile[[{rows}, 128], pl.BF16, pl.MemRef(mem_mat_{k}, pl.const(0, pl.INT64), {size}), pl.Mem.Mat] = pl.tile.load(x, [0, 0], [{rows}, 128], [128, 128], target_memory=pl.Mem.Mat)"));
        body.push(format!("r{k}: pl.Tile[[{rows}, 128], pl.BF16, pl.MemRef(mem_right_{k}, pl.const(0, pl.INT64), {size}), pl.Mem.Right] = pl.tile.move(bm{k}, target_memory=pl.Mem.Right, attrs={{\"pipeline_membership\": \"0:{k}\"}})"));
    }
    body.push("return x".into());
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    program(
        "InCore",
        "x: pl.Tensor[[128, 128], pl.BF16]) -> pl.Tensor[[128, 128], pl.BF16]",
        &refs,
    )
}

#[test]
fn pipeline_stages_stay_apart_when_they_fit() {
    let (out, diags) = plan(&staged(16384), "910b").unwrap();
    let right: Vec<String> = offsets(&out)
        .into_iter()
        .filter(|o| o.starts_with('r'))
        .collect();
    assert_eq!(right, ["r0=0", "r1=16384", "r2=32768"]);
    assert!(diags.is_empty());
    assert!(
        !out.contains("pipeline_membership"),
        "attribute is consumed"
    );
}

#[test]
fn pipeline_depth_is_capped_to_what_fits_with_a_perf_hint() {
    // Three 32 KiB stage copies in a 64 KiB space: depth 2, so stage 0 and
    // stage 2 share (same residue), stage 1 stays apart.
    let (out, diags) = plan(&staged(32768), "910b").unwrap();
    let right: Vec<String> = offsets(&out)
        .into_iter()
        .filter(|o| o.starts_with('r'))
        .collect();
    assert_eq!(right, ["r0=0", "r1=32768", "r2=0"]);
    assert_eq!(diags.len(), 1);
    assert!(
        diags[0].starts_with("[perf_hint PH-DSA-001] DSA-RP could not keep the requested pipeline stages of 'main' apart in Right (capacity 65536; group 0: 2 of 3 stages): mem_right_0/mem_right_2 now share storage"),
        "{}",
        diags[0]
    );
}

#[test]
fn no_placement_is_a_planning_error() {
    let src = program(
        "InCore",
        SIG,
        &[
            &alloc("mem_vec_0", 200000),
            "a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 200000), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    );
    let e = plan(&src, "910b").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Planning);
    assert_eq!(
        e.to_string(),
        "ValueError: DSA-RP could not find a placement for 'main' within the on-chip memory \
         capacities: canonical greedy found no capacity-fitting placement (Vec space: 1 \
         buffers, 200000 bytes requested, capacity 188416); in function 'main': shrink \
         tiles or split the kernel (`tilemem explain --planner dsa-rp` names the peak and \
         what would fit); the allocation 'mem_vec_0' alone needs 200000 bytes"
    );
    // At the allocation's own line (the pypto planner's rule).
    let line = src
        .lines()
        .position(|l| l.trim_start().starts_with("mem_vec_0: pl.Ptr"))
        .unwrap()
        + 1;
    assert_eq!(e.loc.map(|l| (l.line as usize, l.col)), Some((line, 9)));
}

#[test]
fn reserve_buffer_windows_come_first_and_overlaps_are_rejected() {
    let src = program(
        "AIV",
        SIG,
        &[
            &alloc("mem_vec_0", 1024),
            "_: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=100, base=-1)",
            "a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    );
    let (out, _) = plan(&src, "910b").unwrap();
    assert!(
        out.contains("reserve_buffer(name='ring', size=100, base=0)"),
        "{out}"
    );
    assert_eq!(offsets(&out), ["a=128"]);

    let bad = program(
        "AIV",
        "",
        &[
            "_a: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='one', size=4096, base=-1)",
            "_b: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='two', size=1024, base=2048)",
        ],
    );
    let bad = bad.replace("def main(:", "def main():");
    let e = plan(&bad, "910b").unwrap_err();
    assert_eq!(
        e.to_string(),
        "InternalError: overlapping reserve_buffer ranges in function 'main': [2048, 3072) overlaps with [0, 4096); reserve_buffer 'two' (base=2048, size=1024) overlaps 'one': give 'two' base=-1 (AUTO) to place it above the others, or a base of at least 4096"
    );
}

#[test]
fn opaque_functions_are_left_alone() {
    let src = chain().replace("FunctionType.InCore", "FunctionType.Opaque");
    let (out, _) = plan(&src, "950").unwrap();
    assert_eq!(out, print(&parse(&src).unwrap()));
}

#[test]
fn planning_twice_gives_the_same_program() {
    let (once, _) = plan(&chain(), "950").unwrap();
    let (twice, _) = plan(&once, "950").unwrap();
    assert_eq!(offsets(&once), offsets(&twice));
}

#[test]
fn exported_problems_replay_to_the_same_placement() {
    let dir = std::env::temp_dir().join(format!("tilemem-dsarp-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut p = parse(&chain()).unwrap();
    let mut cx = PassContext::new(Soc::from_name("950").unwrap(), PlannerMode::DsaRp);
    let opts = DsaOptions {
        export_dir: Some(dir.clone()),
        ..DsaOptions::default()
    };
    cx.dsa = opts;
    tilemem_pto::passes::run_pass(
        tilemem_pto::passes::PassId::AllocateMemoryAddr,
        &mut p,
        &mut cx,
    )
    .unwrap();
    let reports = std::mem::take(&mut cx.dsa_reports);
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].bytes, 49152);
    let file = csv::read(&dir.join("main.Vec.csv")).unwrap();
    let want: Vec<u64> = file.offsets.iter().map(|o| o.unwrap()).collect();
    assert_eq!(want, [0, 16384, 32768, 32768]);
    let replay = tilemem_plan::solve(
        &file.problem,
        tilemem_plan::SolverKind::Canonical,
        &dsa_rp::greedy_budget(),
    )
    .unwrap();
    assert_eq!(replay.solution.unwrap().offsets, want);
    let side = std::fs::read_to_string(dir.join("main.Vec.dsa.txt")).unwrap();
    assert!(
        side.contains("mem_vec_0,4,6,true,false,MTE2,4,6,MTE2 V,false,"),
        "{side}"
    );
    assert!(side.contains("soft,mem_vec_0,mem_vec_2"), "{side}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn optimal_mode_never_uses_more_bytes_than_the_greedy() {
    for target in ["950", "none"] {
        let mut p = parse(&chain()).unwrap();
        let mut cx = PassContext::new(Soc::from_name(target).unwrap(), PlannerMode::Optimal);
        let opts = DsaOptions {
            optimal: true,
            ..DsaOptions::default()
        };
        cx.dsa = opts;
        tilemem_pto::passes::run_pass(
            tilemem_pto::passes::PassId::AllocateMemoryAddr,
            &mut p,
            &mut cx,
        )
        .unwrap();
        let reports = std::mem::take(&mut cx.dsa_reports);
        for r in reports {
            assert!(r.greedy_bytes.is_none_or(|g| r.bytes <= g), "{r:?}");
        }
    }
    // Bytes first: the exact answer packs the chain into two slots.
    let (out, _) = plan_mode(&chain(), "950", PlannerMode::Optimal).unwrap();
    let used = offsets(&out)
        .iter()
        .map(|o| o.split('=').nth(1).unwrap().parse::<u64>().unwrap() + 16384)
        .max()
        .unwrap();
    assert_eq!(used, 32768);
}

#[test]
fn huge_allocations_are_placed_or_rejected_without_overflow() {
    // Without a backend there is no capacity; sizes up to 2^60 are placed,
    // larger ones cannot be placed: an error at the allocation.
    let src = |big: u64| {
        program(
            "InCore",
            SIG,
            &[
                &alloc("mem_vec_0", big),
                &alloc("mem_vec_1", big),
                &tile(
                    "a",
                    "mem_vec_0",
                    big,
                    "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
                ),
                &tile(
                    "b",
                    "mem_vec_1",
                    big,
                    "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
                ),
                "c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)",
                "return c",
            ],
        )
    };
    let big: u64 = 1 << 59;
    let (out, _) = plan(&src(big), "none").unwrap();
    assert_eq!(offsets(&out), ["a=0", format!("b={big}").as_str()]);
    // No chip holds it: cannot be met (exit 1, as the PYPTO planner's
    // over-capacity error), at the allocation's statement.
    let e = plan(&src(1 << 62), "none").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Planning);
    assert_eq!(e.loc.map(|l| (l.line, l.col)), Some((8, 9)));
    assert_eq!(
        e.message,
        "allocation mem_vec_0 of 'main' has 4611686018427387904 bytes, more than the \
         1152921504606846976 bytes tilemem can place; split the tile"
    );
}

#[test]
fn pipeline_intent_is_dropped_when_a_coresident_tile_leaves_no_room() {
    // A 32 KiB Right tile lives across two 32 KiB stage copies: depth 2
    // would need 96 KiB of 64, so both copies share one slot.
    let mut body: Vec<String> = vec![
        "mem_mat_9: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)".into(),
        "mem_right_9: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)".into(),
        "mem_left_9: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)".into(),
        "mem_acc_9: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 512)".into(),
    ];
    for k in 0..2 {
        body.push(format!(
            "mem_mat_{k}: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)"
        ));
        body.push(format!(
            "mem_right_{k}: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)"
        ));
    }
    body.push("bm9: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_9, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(x, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)".into());
    body.push("np: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(bm9, target_memory=pl.Mem.Right)".into());
    for k in 0..2 {
        body.push(format!("bm{k}: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_{k}, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(x, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)"));
        body.push(format!("r{k}: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_{k}, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(bm{k}, target_memory=pl.Mem.Right, attrs={{\"pipeline_membership\": \"0:{k}\"}})"));
    }
    body.push("l: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_left_9, pl.const(0, pl.INT64), 512), pl.Mem.Left] = pl.tile.create([16, 16], dtype=pl.BF16, target_memory=pl.Mem.Left)".into());
    body.push("m: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 512), pl.Mem.Acc] = pl.tile.matmul(l, np)".into());
    body.push("return x".into());
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    let src = program(
        "InCore",
        "x: pl.Tensor[[128, 128], pl.BF16]) -> pl.Tensor[[128, 128], pl.BF16]",
        &refs,
    );
    let (out, diags) = plan(&src, "910b").unwrap();
    let right: Vec<String> = offsets(&out)
        .into_iter()
        .filter(|o| o.starts_with('r') || o.starts_with("np"))
        .collect();
    assert_eq!(right, ["np=0", "r0=32768", "r1=32768"]);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(
        diags[0].contains(
            "(capacity 65536; group 0: 1 of 2 stages): mem_right_0/mem_right_1 now share storage"
        ),
        "{}",
        diags[0]
    );
}

#[test]
fn only_the_handoff_neighbours_cost_a_penalty() {
    // A, B, C occupy one slot one after the other; only A -> C is a
    // cross-pipe pair. C takes over from B, not from A, so offset 0 is free
    // of penalty (a pairwise model would move C to 32).
    use tilemem_plan::{Buffer, BufferId, Problem};
    let mut p = Problem::new();
    let a = p.push(Buffer::new(32, 0, 2).with_align(32));
    p.push(Buffer::new(32, 2, 4).with_align(32));
    let c = p.push(Buffer::new(32, 4, 6).with_align(32));
    p.penalties.push((a, c, 1));
    p.capacity = Some(64);
    let out = handoff::canonical(&p).unwrap();
    assert_eq!(out.offsets, [0, 0, 0]);
    assert_eq!(out.penalty, 0);
    // A hard pair instead forces C to the top of A.
    p.penalties.clear();
    p.conflicts.push((a, BufferId(2)));
    let out = handoff::canonical(&p).unwrap();
    assert_eq!(out.offsets, [0, 0, 32]);
    // And with no room left there is no placement.
    p.capacity = Some(32);
    assert!(handoff::canonical(&p).is_none());
}

/// Two Vec roots written by `first` and `second` (each `a`/`b` on
/// `mem_vec_0`/`mem_vec_1`), with `rest` after them; every statement
/// comes with its own indentation relative to the body.
fn two_roots(lines: &[String]) -> String {
    let mut body = vec![alloc("mem_vec_0", 16384), alloc("mem_vec_1", 16384)];
    body.extend(lines.iter().cloned());
    body.push("return y".into());
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    program("InCore", SIG, &refs)
}

const LOAD: &str = "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)";
const FULL: &str = "pl.tile.full([64, 64], dtype=pl.FP32, value=0.0)";

/// An op without functional memory-access evidence (`tile.fillpad`)
/// poisons every root it touches: `b` may take `a`'s bytes although `a`
/// was written by MTE2 and `b` is written by the vector pipe. The same
/// program with a functional op (`tile.neg`) keeps them apart.
#[test]
fn recognizer_unknown_evidence_poisons_the_roots_it_touches() {
    let with = |op: &str| {
        two_roots(&[
            tile("a", "mem_vec_0", 16384, LOAD),
            tile("b", "mem_vec_1", 16384, &format!("pl.tile.{op}")),
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)".into(),
        ])
    };
    let (out, _) = plan(&with("fillpad(a, pad_value=pl.PadValue.max)"), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=0"]);
    let (out, _) = plan(&with("neg(a)"), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=16384"]);
}

/// A `tile.store` of the whole root is the exception to poisoning: `a`
/// keeps its MTE2 and MTE3 accesses, so `b` (an MTE2 write) stays off its
/// bytes. Storing through a window of `a` poisons it, and `b` reuses.
#[test]
fn recognizer_whole_store_does_not_poison() {
    let with = |stored: &str, view: Option<&str>| {
        let mut lines = vec![tile("a", "mem_vec_0", 16384, LOAD)];
        if let Some(v) = view {
            lines.push(v.to_string());
        }
        lines.extend([
            format!("r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({stored}, [0, 0], y)"),
            tile("b", "mem_vec_1", 16384, LOAD),
            "s: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)".into(),
        ]);
        two_roots(&lines)
    };
    let (out, _) = plan(&with("a", None), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=16384"]);
    let half = "h: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.slice(a, [32, 64], [0, 0])";
    let (out, _) = plan(&with("h", Some(half)), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "h=0", "b=0"]);
}

/// Only a three-argument store is promoted (`op-registry.md` section 9,
/// "3 args, fully-valid tile"): a store that names its `shapes` may write
/// part of the tile, so it poisons `a` and `b` takes `a`'s bytes.
#[test]
fn recognizer_store_with_shapes_poisons() {
    let with = |store: &str| {
        two_roots(&[
            tile("a", "mem_vec_0", 16384, LOAD),
            format!("r: pl.Tensor[[64, 64], pl.FP32] = {store}"),
            tile("b", "mem_vec_1", 16384, LOAD),
            "s: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)".into(),
        ])
    };
    let (out, _) = plan(&with("pl.tile.store(a, [0, 0], y)"), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=16384"]);
    let (out, _) = plan(&with("pl.tile.store(a, [0, 0], y, [64, 64])"), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=0"]);
}

/// A functional access needs a pipe: a `tile.move` Vec -> Mat is an MTE3
/// transfer on Ascend950, but 910B has no such route, so there the move
/// poisons `a` (no penalty) and `b`, written by the vector unit after
/// `a` died, takes its bytes; on 950 that handoff (MTE3 -> V) costs 1.
#[test]
fn recognizer_functional_access_without_a_route_poisons() {
    let src = program(
        "InCore",
        SIG,
        &[
            &alloc("mem_vec_0", 16384),
            &alloc("mem_vec_1", 16384),
            "mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)",
            &tile("a", "mem_vec_0", 16384, LOAD),
            "m: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_0, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.move(a, target_memory=pl.Mem.Mat)",
            &tile("b", "mem_vec_1", 16384, FULL),
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    );
    let vec = |out: &str| {
        offsets(out)
            .into_iter()
            .filter(|o| o != "m=0")
            .collect::<Vec<_>>()
    };
    let (out, _) = plan(&src, "950").unwrap();
    assert_eq!(vec(&out), ["a=0", "b=16384"]);
    let (out, _) = plan(&src, "910b").unwrap();
    assert_eq!(vec(&out), ["a=0", "b=0"]);
}

/// A root whose accesses lie on two structured paths (defined at the top,
/// read inside a loop body) does not qualify; nor are roots of different
/// paths paired: `b`, loaded inside the loop after `a` died at the top,
/// reuses `a`'s bytes although both hand over across MTE2/V.
#[test]
fn recognizer_pairs_need_one_structured_path() {
    let top = two_roots(&[
        tile("a", "mem_vec_0", 16384, LOAD),
        tile("c", "mem_vec_0", 16384, "pl.tile.neg(a)"),
        "for i in pl.range(2):".into(),
        format!("    {}", tile("b", "mem_vec_1", 16384, LOAD)),
        "    r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)".into(),
    ]);
    let (out, _) = plan(&top, "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "c=0", "b=0"]);
    // The same two roots on one path: the MTE2 load of `b` after the
    // vector access of `a` is a penalized handoff.
    let flat = two_roots(&[
        tile("a", "mem_vec_0", 16384, LOAD),
        tile("c", "mem_vec_0", 16384, "pl.tile.neg(a)"),
        tile("b", "mem_vec_1", 16384, LOAD),
        "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)".into(),
    ]);
    let (out, _) = plan(&flat, "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "c=0", "b=16384"]);
}

/// The loop back edge: inside a loop, `b`'s last access of an iteration
/// (the MTE3 store) precedes `a`'s first write (vector) of the next, so
/// sharing bytes costs a penalty although the forward handoff `a` -> `b`
/// stays on the vector pipe. Outside a loop they share.
#[test]
fn recognizer_loop_back_edge_pairs_the_last_access_with_the_next_write() {
    let lines = |pre: &str| {
        vec![
            format!("{pre}{}", tile("a", "mem_vec_0", 16384, FULL)),
            format!("{pre}{}", tile("b", "mem_vec_1", 16384, "pl.tile.neg(a)")),
            format!("{pre}r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)"),
        ]
    };
    let (out, _) = plan(&two_roots(&lines("")), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=0"]);
    let mut looped = vec!["for i in pl.range(2):".to_string()];
    looped.extend(lines("    "));
    let (out, _) = plan(&two_roots(&looped), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=16384"]);
}

/// Only a write on one pipe can open a qualifying root, and
/// `tile.create` is no access: `a`'s first access is the store's read, so
/// `a` takes part in no pair and the MTE2 load of `b` reuses its bytes
/// (were the create a vector write, `a`'s MTE3/vector accesses would keep
/// `b` apart).
#[test]
fn recognizer_root_must_start_with_a_write() {
    let src = two_roots(&[
        tile(
            "a",
            "mem_vec_0",
            16384,
            "pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
        ),
        "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(a, [0, 0], y)".into(),
        tile("b", "mem_vec_1", 16384, LOAD),
        "s: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, [0, 0], y)".into(),
    ]);
    let (out, _) = plan(&src, "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=0"]);
}

/// A loop result printed without a MemRef lives in the bytes the loop body
/// yields: `out` is read after the loop, so `b` (defined while `out` is
/// still needed by `c`) may not take `mem_vec_0`'s bytes.
#[test]
fn loop_results_without_a_memref_keep_their_root_alive() {
    let src = program(
        "InCore",
        SIG,
        &[
            &alloc("mem_vec_0", 16384),
            &alloc("mem_vec_1", 16384),
            &alloc("mem_vec_2", 16384),
            &tile("a", "mem_vec_0", 16384, FULL),
            "for i, (acc,) in pl.range(2, init_values=(a,)):",
            &format!(
                "    {}",
                tile("nxt", "mem_vec_0", 16384, "pl.tile.adds(acc, 1.0)")
            ),
            "    out = pl.yield_(nxt)",
            &tile("b", "mem_vec_1", 16384, "pl.tile.neg(out)"),
            &tile("c", "mem_vec_2", 16384, "pl.tile.add(out, b)"),
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], y)",
            "return r",
        ],
    );
    let (out, _) = plan(&src, "none").unwrap();
    assert_eq!(offsets(&out), ["a=0", "nxt=0", "b=16384", "c=0"]);
}

/// Two roots of one pipeline stage are not concurrent stage copies (seed
/// 000: only copies of different stages run concurrently): their lifetimes
/// and the reuse penalty decide, as for any pair. Without a backend there
/// are no penalties, so `b` takes `a`'s bytes on one path as well as in
/// the opposite branch of an `if`. With a backend, `a` (loaded by MTE2,
/// read last by the MTE3 store) handing its bytes to `b` (loaded by MTE2)
/// on one path costs 1, so `b` moves to fresh bytes; across opposite
/// branches there is no handoff and they share. (PyPTO kernel
/// `ddr_split_k`: two L0C tiles of stage 0 in consecutive loops share.)
#[test]
fn roots_of_one_stage_share_unless_a_handoff_costs() {
    let staged = |name: &str, root: &str| {
        tile(
            name,
            root,
            16384,
            "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec, attrs={\"pipeline_membership\": \"0:0\"})",
        )
    };
    let store =
        |t: &str| format!("r_{t}: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store({t}, [0, 0], y)");
    let with = |split: bool| {
        let mut lines = vec![
            "for i in pl.range(2):".to_string(),
            "    if i == 0:".into(),
            format!("        {}", staged("a", "mem_vec_0")),
            format!("        {}", store("a")),
        ];
        if split {
            lines.push("    else:".into());
        }
        lines.push(format!("        {}", staged("b", "mem_vec_1")));
        lines.push(format!("        {}", store("b")));
        two_roots(&lines)
    };
    for target in ["none", "950"] {
        let (out, _) = plan(&with(true), target).unwrap();
        assert_eq!(offsets(&out), ["a=0", "b=0"], "{target}");
    }
    let (out, _) = plan(&with(false), "none").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=0"]);
    let (out, _) = plan(&with(false), "950").unwrap();
    assert_eq!(offsets(&out), ["a=0", "b=16384"]);
}

/// Nested pipelines tag a tile with one stage per group (`"0:1;1:0"`:
/// stage 1 of the inner group 0, stage 0 of the outer group 1). Two roots
/// stay apart when some shared group holds them in different stages. Four
/// 32 KiB Right tiles (inner stages 0/1 of outer stages 0/1) need four
/// slots of a 64 KiB space at full depth, so every group drops to depth 1
/// and only lifetimes separate: each inner pair is live together and
/// takes both slots, and the second pair reuses the first's (PyPTO kernel
/// `ddr_split_k`, and `batch_matmul_pipeline_repro` where the outer stages
/// also fork into `if` branches).
#[test]
fn nested_pipeline_groups_separate_by_any_differing_stage() {
    let mut body: Vec<String> = vec![
        "mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)".into(),
        "mem_left_0: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)".into(),
    ];
    for k in 0..4 {
        body.push(format!(
            "mem_right_{k}: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 32768)"
        ));
        body.push(format!(
            "mem_acc_{k}: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)"
        ));
    }
    body.push("bm: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_0, pl.const(0, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(x, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)".into());
    body.push("l: pl.Tile[[16, 16], pl.BF16, pl.MemRef(mem_left_0, pl.const(0, pl.INT64), 512), pl.Mem.Left] = pl.tile.create([16, 16], dtype=pl.BF16, target_memory=pl.Mem.Left)".into());
    body.push("for o in pl.range(2):".into());
    for outer in 0..2 {
        body.push("    for i in pl.range(2):".into());
        for inner in 0..2 {
            let k = outer * 2 + inner;
            body.push(format!("        r{k}: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_right_{k}, pl.const(0, pl.INT64), 32768), pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right, attrs={{\"pipeline_membership\": \"0:{inner};1:{outer}\"}})"));
        }
        for inner in 0..2 {
            let k = outer * 2 + inner;
            body.push(format!("        c{k}: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_{k}, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(l, r{k}, attrs={{\"pipeline_membership\": \"0:{inner}\"}})"));
        }
        for inner in 0..2 {
            let k = outer * 2 + inner;
            body.push(format!(
                "        s{k}: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(c{k}, [0, 0], y)"
            ));
        }
    }
    body.push("return y".into());
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    let src = program(
        "InCore",
        "x: pl.Tensor[[128, 128], pl.BF16], y: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]",
        &refs,
    );
    let (out, diags) = plan(&src, "910b").unwrap();
    let got: Vec<String> = offsets(&out)
        .into_iter()
        .filter(|o| o.starts_with('r') || o.starts_with('c'))
        .collect();
    // Right: both groups relaxed. Acc fits at full depth: stage copies of
    // group 0 stay apart, the two stage-0 (and stage-1) tiles of the two
    // inner loops share.
    assert_eq!(
        got,
        ["r0=0", "r1=32768", "c0=0", "c1=4096", "r2=0", "r3=32768", "c2=0", "c3=4096"]
    );
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(
        diags[0].starts_with(
            "[perf_hint PH-DSA-001] DSA-RP could not keep the requested pipeline stages of 'main' apart in Right (capacity 65536; group 0: 1 of 2 stages, group 1: 1 of 2 stages): mem_right_0/mem_right_2, mem_right_1/mem_right_3 now share storage"
        ),
        "{}",
        diags[0]
    );
}

/// `--compat pypto-e2d0f78` reaches DSA_RP: the seed's A2/A3 rule that a
/// narrowing cast may not write over its source keeps `b` off `a`'s
/// bytes by default, and is off under the compat rules (PyPTO e2d0f78).
#[test]
fn compat_rules_switch_off_the_narrowing_cast_separation() {
    let src = two_roots(&[
        tile("a", "mem_vec_0", 16384, FULL),
        "b: pl.Tile[[64, 64], pl.FP16, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.cast(a, target_type=pl.FP16, mode='round')".into(),
        "r: pl.Tensor[[64, 64], pl.FP16] = pl.tile.store(b, [0, 0], y)".into(),
    ]);
    let run = |rules: tilemem_pto::passes::SeedRules| {
        let mut p = parse(&src).unwrap();
        let mut cx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::DsaRp);
        cx.seed_rules = rules;
        run_pipeline(&mut p, &mut cx, &[PassId::AllocateMemoryAddr]).unwrap();
        offsets(&print(&p))
    };
    use tilemem_pto::passes::SeedRules;
    assert_eq!(run(SeedRules::ALL), ["a=0", "b=16384"]);
    assert_eq!(run(SeedRules::pypto_e2d0f78()), ["a=0", "b=0"]);
}

/// A view with a dynamic offset (a `tile.slice` at a loop index) gets its
/// root's base address as its MemRef offset; the dynamic element offset
/// stays in the slice's own arguments (seed 001, AllocateMemoryAddr).
#[test]
fn dynamic_view_offsets_print_the_slot_base_only() {
    let src = program(
        "InCore",
        SIG,
        &[
            &alloc("mem_vec_0", 16384),
            &alloc("mem_vec_1", 16384),
            &tile("a", "mem_vec_0", 16384, "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)"),
            &tile("b", "mem_vec_1", 16384, "pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)"),
            "for i in pl.range(4):",
            "    s: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_1, i * 64 * 4, 256), pl.Mem.Vec] = pl.tile.slice(b, [1, 64], [i, 0])",
            "    t: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(s, [i, 0], y)",
            &tile("c", "mem_vec_0", 16384, "pl.tile.add(a, b)"),
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], y)",
            "return r",
        ],
    );
    let (out, _) = plan(&src, "none").unwrap();
    let offs = offsets(&out);
    let b = offs
        .iter()
        .find(|o| o.starts_with("b="))
        .expect(&out)
        .clone();
    assert_eq!(b, "b=16384", "{out}");
    assert!(
        out.contains("pl.MemRef(mem_vec_1, pl.const(16384, pl.INT64), 256)"),
        "{out}"
    );
    assert!(out.contains("pl.tile.slice(b, [1, 64], [i, 0])"), "{out}");
    assert!(!out.contains("i * 64 * 4"), "{out}");
}
