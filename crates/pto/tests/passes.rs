//! The memory passes on the repository's own small programs: one program
//! per rule of InitMemRef, MaterializeSemanticAliases and AllocateMemoryAddr
//! (seed 001's examples among them), with exact expected text, exact
//! addresses and exact error messages.

mod common;

use common::program;
use tilemem_pto::passes::{run_pipeline, ErrorKind, PassContext, PassError, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::{AllocEntry, MemSpace, MemoryAllocatorPolicy, Soc};

fn ctx(target: &str) -> PassContext {
    PassContext::new(Soc::from_name(target).unwrap(), PlannerMode::Pypto)
}

fn plan_with(src: &str, mut cx: PassContext, passes: &[PassId]) -> Result<String, PassError> {
    let mut p = parse(src).expect("test program parses");
    run_pipeline(&mut p, &mut cx, passes)?;
    Ok(print(&p))
}

fn plan(src: &str, target: &str, passes: &[PassId]) -> Result<String, PassError> {
    plan_with(src, ctx(target), passes)
}

/// Runs `passes` on `src` for `target`, checks the exact text against
/// `want`, and checks that running them again changes nothing.
fn assert_plans(src: &str, target: &str, passes: &[PassId], want: &str) {
    let got = plan(src, target, passes).unwrap();
    assert_eq!(got, want);
    let again = plan(&got, target, passes).unwrap();
    assert_eq!(again, got, "not idempotent");
}

#[test]
fn init_rejects_dynamic_tile_shapes_with_location() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "a: pl.Tile[[n, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
            "return x",
        ],
    );
    let e = plan(&src, "910b", &[PassId::InitMemref]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input);
    assert_eq!(e.loc.map(|l| (l.line, l.col)), Some((8, 9)));
    assert!(
        e.message
            .starts_with("InitMemRef: tile 'a' in Vec has a dynamic"),
        "{}",
        e.message
    );
}

#[test]
fn init_declared_allocation_is_one_pinned_alloc_of_all_slots() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[16, 16], pl.FP32], k: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"buf\", slots=2)[0], pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 16], pl.FP32, pl.MemRef(\"buf\", slots=2)[k], pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)",
            "return x",
        ],
    );
    let got = plan(
        &src,
        "910b",
        &[PassId::InitMemref, PassId::AllocateMemoryAddr],
    )
    .unwrap();
    assert!(
        got.contains("        buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, pinned=True)\n"),
        "{got}"
    );
    assert!(
        got.contains("pl.MemRef(buf, pl.const(0, pl.INT64), 1024, slots=2)[0]"),
        "{got}"
    );
    assert!(
        got.contains("pl.MemRef(buf, pl.const(0, pl.INT64), 1024, slots=2)[k]"),
        "{got}"
    );
}

#[test]
fn init_rejects_invalid_declarations() {
    let zero = program(
        "InCore",
        "x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"buf\", slots=0)[0], pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
            "return x",
        ],
    );
    let e = plan(&zero, "910b", &[PassId::InitMemref]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input);
    assert!(e.message.contains("slots=0"), "{}", e.message);
    let range = zero.replace("slots=0)[0]", "slots=2)[2]");
    let e = plan(&range, "910b", &[PassId::InitMemref]).unwrap_err();
    assert!(
        e.message.contains("slot index out of range"),
        "{}",
        e.message
    );
    let mixed = program(
        "InCore",
        "x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"buf\"), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"buf\"), pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)",
            "return x",
        ],
    );
    let e = plan(&mixed, "910b", &[PassId::InitMemref]).unwrap_err();
    assert!(
        e.message.contains("binds tiles in Vec and Mat"),
        "{}",
        e.message
    );
    assert_eq!(e.loc.map(|l| l.line), Some(9));
}

#[test]
fn alloc_rejects_overlapping_reserves_with_pypto_message() {
    let src = program(
        "AIV",
        ") -> None",
        &[
            "_a: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='first', size=4096, base=-1)",
            "_b: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='second', size=1024, base=2048)",
        ],
    );
    let e = plan(&src, "950", &[PassId::AllocateMemoryAddr]).unwrap_err();
    // PyPTO's class and words, with what to change; bad input (exit 2).
    assert_eq!(e.kind, ErrorKind::Input);
    assert_eq!(
        e.to_string(),
        "InternalError: overlapping reserve_buffer ranges in function 'main': [2048, 3072) overlaps with [0, 4096); reserve_buffer 'second' (base=2048, size=1024) overlaps 'first': give 'second' base=-1 (AUTO) to place it above the others, or a base of at least 4096"
    );
}

#[test]
fn alloc_capacity_error_names_space_usage_and_limit() {
    // 64 x 752 FP32 = 192512 bytes > 188416 usable UB bytes on 910B.
    let src = program(
        "InCore",
        "x: pl.Tensor[[64, 752], pl.FP32]) -> pl.Tensor[[64, 752], pl.FP32]",
        &[
            "a: pl.Tile[[64, 752], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 752], [64, 752], target_memory=pl.Mem.Vec)",
            "return x",
        ],
    );
    let passes = [PassId::InitMemref, PassId::AllocateMemoryAddr];
    let e = plan(&src, "910b", &passes).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Planning);
    assert!(
        e.to_string().starts_with(
            "ValueError: Vec buffer usage (192512 bytes) exceeds platform limit (188416 bytes)"
        ),
        "{e}"
    );
    // The one allocation that alone does not fit is named, at the line of
    // its tile (InitMemRef's allocation has no line of its own).
    assert!(
        e.message
            .ends_with("; the allocation 'mem_vec_1' alone needs 192512 bytes"),
        "{e}"
    );
    let p = tilemem_pto::parse(&src).unwrap();
    assert_eq!(
        e.loc.map(|l| (l.line, l.col)),
        Some((p.functions[0].pos.line + 1, 9))
    );
    // The same program fits the 950's 240 KiB UB, and any size fits "none".
    assert!(plan(&src, "950", &passes).is_ok());
    assert!(plan(&src, "none", &passes).is_ok());
}

/// The over-capacity message of a Vec tile that does not fit above a
/// 64 KiB reserve named `reserve` on the 910B; with `pipe`, the reserve's
/// variable is handed to `aiv_initialize_pipe` as its slot ring.
fn capacity_error_above(reserve: &str, pipe: bool) -> String {
    let reserve_line = format!(
        "_r: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='{reserve}', size=65536, base=-1)"
    );
    let mut body = vec![reserve_line.as_str()];
    if pipe {
        body.push(
            "pl.system.aiv_initialize_pipe(_r, pl.const(0, pl.INT32), dir_mask=1, slot_size=32768, slot_num=2)",
        );
    }
    body.extend([
        "a: pl.Tile[[32, 1024], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 1024], [32, 1024], target_memory=pl.Mem.Vec)",
        "return x",
    ]);
    let src = program(
        "AIV",
        "x: pl.Tensor[[32, 1024], pl.FP32]) -> pl.Tensor[[32, 1024], pl.FP32]",
        &body,
    );
    plan(
        &src,
        "910b",
        &[PassId::InitMemref, PassId::AllocateMemoryAddr],
    )
    .unwrap_err()
    .message
}

const PLAIN_RESERVE_ERROR: &str = "Vec buffer usage (196608 bytes) exceeds platform limit \
    (188416 bytes). The first 65536 bytes of that space are reserved by system.reserve_buffer, \
    so tiles are allocated above them; in function 'main': shrink tiles, enable buffer reuse, \
    or split the kernel";

#[test]
fn alloc_capacity_error_counts_reserved_bytes() {
    assert_eq!(capacity_error_above("ring", false), PLAIN_RESERVE_ERROR);
}

/// When the reserve is the kernel's cross-core pipe ring, PyPTO's message
/// adds the hint about lowering the pipe depth (behaviour.md, "Capacity
/// error wording"); an ordinary reserve does not get it (test above). What
/// makes a window the ring is its use by a `*_initialize_pipe` call, not
/// its name: a hand-named ring gets the hint, and a window named like
/// PyPTO's generated rings that no pipe uses does not.
#[test]
fn alloc_capacity_error_names_the_pipe_ring_depth() {
    let with_hint = "Vec buffer usage (196608 bytes) exceeds platform limit (188416 bytes). The \
         first 65536 bytes of that space are reserved by system.reserve_buffer, so tiles are \
         allocated above them. The reserve is the cross-core pipe ring: a lower pipe depth \
         (optimizations=[pl.cross_core_slot(slot_num=N)]) shrinks it; in function 'main': \
         shrink tiles, enable buffer reuse, or split the kernel";
    assert_eq!(capacity_error_above("k_c2v_slot_buffer", true), with_hint);
    assert_eq!(capacity_error_above("my_ring", true), with_hint);
    assert_eq!(
        capacity_error_above("k_c2v_slot_buffer", false),
        PLAIN_RESERVE_ERROR
    );
}

#[test]
fn alloc_leaves_opaque_functions_and_ddr_alone() {
    let src = program(
        "Opaque",
        "x: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, a)",
            "return x",
        ],
    );
    let init = plan(&src, "910b", &[PassId::InitMemref]).unwrap();
    let alloc = plan(&init, "910b", &[PassId::AllocateMemoryAddr]).unwrap();
    assert_eq!(alloc, init);
    let kernel = init.replace("FunctionType.Opaque", "FunctionType.InCore");
    let alloc = plan(&kernel, "910b", &[PassId::AllocateMemoryAddr]).unwrap();
    assert!(
        alloc.contains("pl.MemRef(mem_vec_2, pl.const(256, pl.INT64), 256)"),
        "{alloc}"
    );
    assert!(
        alloc.contains("pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 256)"),
        "{alloc}"
    );
}

/// A backend policy: 512-byte alignment, allocations in reverse name order.
struct Reverse512;

impl MemoryAllocatorPolicy for Reverse512 {
    fn should_allocate(&self, space: MemSpace) -> bool {
        space != MemSpace::Ddr
    }
    fn align_address(&self, addr: u64, _space: MemSpace) -> u64 {
        addr.div_ceil(512) * 512
    }
    fn order_memrefs(&self, refs: &mut [AllocEntry]) {
        refs.sort_by(|a, b| b.name.cmp(&a.name));
    }
}

#[test]
fn alloc_uses_a_custom_policy() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, a)",
            "c: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)",
            "return x",
        ],
    );
    let cx = ctx("910b").with_policy(Box::new(Reverse512));
    let got = plan_with(&src, cx, &[PassId::InitMemref, PassId::AllocateMemoryAddr]).unwrap();
    // mem_vec_3 (c) first at 0, then mem_vec_2 (b) at 512, mem_vec_1 (a) at 1024.
    assert!(
        got.contains(
            "c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 256)"
        ),
        "{got}"
    );
    assert!(
        got.contains(
            "b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(512, pl.INT64), 256)"
        ),
        "{got}"
    );
    assert!(
        got.contains(
            "a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, pl.const(1024, pl.INT64), 256)"
        ),
        "{got}"
    );
    // The default policy packs at 32-byte steps in name order.
    let got = plan(
        &src,
        "910b",
        &[PassId::InitMemref, PassId::AllocateMemoryAddr],
    )
    .unwrap();
    assert!(
        got.contains("MemRef(mem_vec_1, pl.const(0, pl.INT64), 256)"),
        "{got}"
    );
    assert!(
        got.contains("MemRef(mem_vec_2, pl.const(256, pl.INT64), 256)"),
        "{got}"
    );
    assert!(
        got.contains("MemRef(mem_vec_3, pl.const(512, pl.INT64), 256)"),
        "{got}"
    );
}

/// The lower bound counts a value as live only on the paths that still
/// read it: `a`, read in the else branch alone, holds nothing needed on
/// the path through the then branch, where `b` lives. The program-order
/// hull of `a` spans the then branch too, which counted `a` and `b` as
/// co-live (512 bytes, above what an optimal placement of this program
/// needs: 256).
#[test]
fn lower_bound_excludes_a_value_read_only_in_the_other_branch() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32], k: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "if k < 1:",
            "    b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "    c: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(b)",
            "    p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(c)",
            "else:",
            "    d: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)",
            "    p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(d)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(p, [0, 0], y)",
            "return r",
        ],
    );
    let mut p = parse(&src).unwrap();
    run_pipeline(&mut p, &mut ctx("910b"), &[PassId::InitMemref]).unwrap();
    let f = &p.functions[0];
    let values = tilemem_pto::report::live_values(f);
    let spans = |name: &str| -> Vec<(u64, u64)> {
        values
            .iter()
            .filter(|v| f.vars[v.var].name.as_str() == name)
            .map(|v| v.live)
            .collect()
    };
    // a: from its load to its read in the else branch, less the then
    // branch; b and c inside the then branch.
    let a = spans("a");
    let b = spans("b");
    assert_eq!(a.len(), 2, "{a:?}");
    assert!(
        b.iter()
            .all(|&(lo, hi)| a.iter().all(|&(x, y)| hi <= x || y <= lo)),
        "{a:?} {b:?}"
    );
    assert_eq!(
        tilemem_pto::report::lower_bound(&values, MemSpace::Vec),
        256
    );
}

#[test]
fn report_lists_buffers_usage_and_bound() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    );
    // Before allocation the report is root-relative: two 256-byte roots.
    let mut rel = parse(&src).unwrap();
    run_pipeline(&mut rel, &mut ctx("910b"), &[PassId::InitMemref]).unwrap();
    let r = tilemem_pto::report::build(&rel, &Soc::ascend910b(), false);
    assert!(!r.addressed);
    assert_eq!(r.functions[0].spaces[0].bytes_used, 512);
    assert!(r.to_json().contains("\"addressed\": false"));
    let mut p = parse(&src).unwrap();
    let mut cx = ctx("910b");
    run_pipeline(
        &mut p,
        &mut cx,
        &[PassId::InitMemref, PassId::AllocateMemoryAddr],
    )
    .unwrap();
    let r = tilemem_pto::report::build(&p, &cx.soc, true);
    let vec = &r.functions[0].spaces[0];
    assert_eq!(vec.space, "Vec");
    assert_eq!(vec.bytes_used, 512);
    assert_eq!(vec.capacity, Some(188_416));
    // Program order counts the two allocs first. a dies where b is
    // defined: never co-live, so one 256-byte buffer would suffice.
    assert_eq!(vec.lower_bound, 256);
    let spans: Vec<_> = vec
        .buffers
        .iter()
        .map(|b| (b.name.as_str(), b.start, b.end, b.def, b.last))
        .collect();
    assert_eq!(spans, [("a", 0, 256, 3, 4), ("b", 256, 512, 4, 5)]);
    assert!(r.to_json().contains("\"name\": \"a\", \"root\": \"mem_vec_2\", \"start\": 0, \"end\": 256, \"def\": 3, \"last\": 4"));
}

/// Input of `init_views_tpop_store`.
const INIT_VIEWS_TPOP_STORE_IN: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(a, [16, 8], [0, 8])
        r: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(s, [8, 16])
        p: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
        b: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(r, p)
        c: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(b, [16, 8])
        y: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(c, [0, 0], y)
        return y
"#;

#[test]
fn init_views_tpop_store() {
    assert_plans(
        INIT_VIEWS_TPOP_STORE_IN,
        "910b",
        &[PassId::InitMemref],
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[16, 8], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_2, 32, 992), pl.Mem.Vec] = pl.tile.slice(a, [16, 8], [0, 8])
        r: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_2, 32, 992), pl.Mem.Vec] = pl.tile.reshape(s, [8, 16])
        p: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
        b: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.add(r, p)
        c: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 512), pl.Mem.Vec] = pl.tile.reshape(b, [16, 8])
        y_1: pl.Tensor[[16, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)] = pl.tile.store(c, [0, 0], y)
        return y_1
"#,
    );
}

/// Input of `init_acc_padding_and_inplace`.
const INIT_ACC_PADDING_AND_INPLACE_IN: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def main(a: pl.Tensor[[8, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16], o: pl.Out[pl.Tensor[[8, 64], pl.INT32]]) -> pl.Tensor[[8, 64], pl.INT32]:
        am: pl.Tile[[8, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [8, 32], [8, 32], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat)
        al: pl.Tile[[8, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[32, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c0: pl.Tile[[8, 64], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(al, br)
        c1: pl.Tile[[8, 64], pl.INT32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, al, br)
        r: pl.Tensor[[8, 64], pl.INT32] = pl.tile.store(c1, [0, 0], o)
        return r
"#;

#[test]
fn init_acc_padding_and_inplace() {
    assert_plans(
        INIT_ACC_PADDING_AND_INPLACE_IN,
        "910b",
        &[PassId::InitMemref],
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def main(a: pl.Tensor[[8, 32], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 512)], b: pl.Tensor[[32, 64], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)], o: pl.Out[pl.Tensor[[8, 64], pl.INT32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2048)]]) -> pl.Tensor[[8, 64], pl.INT32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        mem_acc_7: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        am: pl.Tile[[8, 32], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 512), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [8, 32], [8, 32], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat)
        al: pl.Tile[[8, 32], pl.FP16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 512), pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[32, 64], pl.FP16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c0: pl.Tile[[8, 64], pl.INT32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(al, br)
        c1: pl.Tile[[8, 64], pl.INT32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c0, al, br)
        r: pl.Tensor[[8, 64], pl.INT32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2048)] = pl.tile.store(c1, [0, 0], o)
        return r
"#,
    );
}

/// Input of `init_and_msa_loop_if_carries`.
const INIT_AND_MSA_LOOP_IF_CARRIES_IN: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[16, 16], pl.FP32], c: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        init: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(init,)):
            if c < 2:
                t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, acc)
                ph: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(t)
            else:
                u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.mul(acc, acc)
                ph: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(u)
            out: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(ph)
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(out)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(z, [0, 0], y)
        return r
"#;

#[test]
fn init_and_msa_loop_if_carries() {
    assert_plans(
        INIT_AND_MSA_LOOP_IF_CARRIES_IN,
        "910b",
        &[PassId::InitMemref, PassId::MaterializeSemanticAliases],
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], c: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        init: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(init,)):
            if c < 2:
                t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(acc, acc)
                ph: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(t)
            else:
                u: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.mul(acc, acc)
                ph: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(u)
            out: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(ph)
        z: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_7, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.exp(out)
        r: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(z, [0, 0], y)
        return r
"#,
    );
}

/// Input of `msa_declines_unsafe_and_live_target`.
const MSA_DECLINES_UNSAFE_AND_LIVE_TARGET_IN: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        init: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (acc, acc2) in pl.range(4, init_values=(init, init)):
            t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.recip(acc)
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc2, acc2)
            w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc2, u)
            o1, o2 = pl.yield_(t, u)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(o1, [0, 0], y)
        return r
"#;

#[test]
fn msa_declines_unsafe_and_live_target() {
    assert_plans(
        MSA_DECLINES_UNSAFE_AND_LIVE_TARGET_IN,
        "910b",
        &[PassId::InitMemref, PassId::MaterializeSemanticAliases],
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], y: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        init: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (acc, acc2) in pl.range(4, init_values=(init, init)):
            t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.recip(acc)
            u: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(acc2, acc2)
            w: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(acc2, u)
            o1, o2 = pl.yield_(t, u)
        r: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(o1, [0, 0], y)
        return r
"#,
    );
}

/// Input of `alloc_seed_example_sequential`.
const ALLOC_SEED_EXAMPLE_SEQUENTIAL_IN: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        tile_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        tile_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(tile_a, tile_a)
        return x
"#;

#[test]
fn alloc_seed_example_sequential() {
    assert_plans(
        ALLOC_SEED_EXAMPLE_SEQUENTIAL_IN,
        "910b",
        &[PassId::AllocateMemoryAddr],
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        tile_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        tile_b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(tile_a, tile_a)
        return x
"#,
    );
}

/// Input of `alloc_seed_example_spaces_start_at_zero`.
const ALLOC_SEED_EXAMPLE_SPACES_START_AT_ZERO_IN: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def main(x: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 2048)]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_left_1: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_2: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 2048)
        mem_acc_3: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 2048)
        v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        l: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_left_1, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.load(x, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Left)
        r: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_right_2, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.load(x, [0, 0], [32, 16], [32, 16], target_memory=pl.Mem.Right)
        a: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.tile.matmul(l, r)
        return x
"#;

#[test]
fn alloc_seed_example_spaces_start_at_zero() {
    assert_plans(
        ALLOC_SEED_EXAMPLE_SPACES_START_AT_ZERO_IN,
        "910b",
        &[PassId::AllocateMemoryAddr],
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def main(x: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_4", pl.const(0, pl.INT64), 2048)]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_left_1: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_2: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 2048)
        mem_acc_3: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 2048)
        v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        l: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_left_1, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.load(x, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Left)
        r: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_right_2, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.load(x, [0, 0], [32, 16], [32, 16], target_memory=pl.Mem.Right)
        a: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.tile.matmul(l, r)
        return x
"#,
    );
}

/// Input of `alloc_name_order_reserve_and_views`.
const ALLOC_NAME_ORDER_RESERVE_AND_VIEWS_IN: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def main(x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[8, 8], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 100)
        _: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=1000, base=-1)
        _b: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='fixed', size=64, base=4096)
        a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 8], pl.FP32, pl.MemRef(mem_vec_2, 96, 32), pl.Mem.Vec] = pl.tile.slice(a, [1, 8], [3, 0])
        b: pl.Tile[[5, 5], pl.FP32, pl.MemRef(mem_vec_10, pl.const(0, pl.INT64), 100), pl.Mem.Vec] = pl.tile.create([5, 5], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        return x
"#;

#[test]
fn alloc_name_order_reserve_and_views() {
    assert_plans(
        ALLOC_NAME_ORDER_RESERVE_AND_VIEWS_IN,
        "910b",
        &[PassId::AllocateMemoryAddr],
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def main(x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[8, 8], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 100)
        _: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=1000, base=0)
        _b: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='fixed', size=64, base=4096)
        a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(4288, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(4384, pl.INT64), 32), pl.Mem.Vec] = pl.tile.slice(a, [1, 8], [3, 0])
        b: pl.Tile[[5, 5], pl.FP32, pl.MemRef(mem_vec_10, pl.const(4160, pl.INT64), 100), pl.Mem.Vec] = pl.tile.create([5, 5], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        return x
"#,
    );
}

#[test]
fn co_live_tiles_on_one_buffer_in_the_input_are_an_input_error() {
    // b is read after c is written, but the input put both on mem_vec_1:
    // the input's own sharing, refused before planning (the placement
    // check after it would blame the passes).
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "d: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.add(b, c)",
            "return x",
        ],
    );
    let e = plan(&src, "910b", &[PassId::AllocateMemoryAddr]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input);
    assert_eq!(
        e.message,
        "tiles 'b' and 'c' share MemRef 'mem_vec_1' (bytes [0, 256) of its Vec allocation) \
         while both are live: 'c' is written here over 'b', which is still read at line 11; \
         give 'c' a MemRef of its own (its own allocation), or drop the MemRefs and let the \
         planner decide what shares"
    );
    assert_eq!(e.loc.map(|l| (l.line, l.col)), Some((10, 9)));
    // Sequential reuse of the same buffer (b dies where c is written) passes.
    let ok = src.replace("pl.tile.add(b, c)", "pl.tile.add(c, c)");
    assert!(plan(&ok, "910b", &[PassId::AllocateMemoryAddr]).is_ok());
}

#[test]
fn input_sharing_keeps_the_no_alias_rules() {
    // recip may not write over its input, even though the input dies there:
    // the input's own sharing breaks the op's rule, an input error at it.
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.recip(b)",
            "return x",
        ],
    );
    let e = plan(&src, "910b", &[PassId::AllocateMemoryAddr]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input);
    assert_eq!(
        e.message,
        "the program's own MemRefs break a sharing rule: output 'c' of tile.recip at line 10 \
         shares bytes with its input 'b', which the op's no-alias rule forbids; give the output \
         a MemRef of its own, or drop the MemRefs and let the planner decide what shares"
    );
    assert_eq!(e.loc.map(|l| (l.line, l.col)), Some((10, 9)));
    let ok = src.replace("pl.tile.recip(b)", "pl.tile.exp(b)");
    assert!(plan(&ok, "910b", &[PassId::AllocateMemoryAddr]).is_ok());
}

#[test]
fn ssa_names_and_comments_follow_pypto() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "# a comment PyPTO's reader drops",
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "y: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "y: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return y",
        ],
    );
    let got = plan(&src, "910b", &[PassId::InitMemref]).unwrap();
    // Only the `# pypto.program` header line keeps a `#`.
    assert_eq!(got.matches('#').count(), 1, "{got}");
    assert!(got.contains("        y_1: pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_1\", pl.const(0, pl.INT64), 256)] = pl.tile.store(a, [0, 0], y)\n"), "{got}");
    assert!(got.contains("        y_2: pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_1\", pl.const(0, pl.INT64), 256)] = pl.tile.store(a, [0, 0], y_1)\n"), "{got}");
    assert!(got.ends_with("        return y_2\n"), "{got}");
}

#[test]
fn whole_pipeline_on_its_own_output_changes_nothing() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "c: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)",
            "s: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(c, [1, 8], [2, 0])",
            "d: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(b, s)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(d, [0, 0], y)",
            "return r",
        ],
    );
    let once = plan(&src, "910b", &PassId::ALL).unwrap();
    // Addresses are absolute now: b's root sits after a's.
    assert!(
        once.contains(
            "b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_3, pl.const(256, pl.INT64), 256)"
        ),
        "{once}"
    );
    let twice = plan(&once, "910b", &PassId::ALL).unwrap();
    assert_eq!(twice, once);
}

#[test]
fn init_rejects_single_slot_declarations_under_ptoas() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(\"buf\"), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
            "return x",
        ],
    );
    let cx = PassContext::new(Soc::ascend950(), PlannerMode::Ptoas);
    let e = plan_with(&src, cx, &[PassId::InitMemref]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input);
    assert!(
        e.message
            .starts_with("pl.MemRef(\"buf\") binds 'a' under memory_planner=PTOAS"),
        "{}",
        e.message
    );
    assert_eq!(e.loc.map(|l| l.line), Some(8));
    // The same binding is fine for the default planner.
    let got = plan(&src, "950", &[PassId::InitMemref]).unwrap();
    assert!(
        got.contains("buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024, pinned=True)"),
        "{got}"
    );
}

/// Input of `msa_pushes_through_nested_loops`.
const NESTED_IN: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        init: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(init,)):
            for j, (inner,) in pl.range(2, init_values=(acc,)):
                t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
                u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(inner, t)
                io: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(u)
            w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(io)
            oo: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(w)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(oo, [0, 0], y)
        return r
"#;

#[test]
fn msa_pushes_through_nested_loops() {
    // The inner loop's carry starts from the outer iter arg, so the load
    // `init`, both carries and both yielded values end up in mem_vec_2; the
    // inner reload `t` keeps its own buffer.
    let passes = [PassId::InitMemref, PassId::MaterializeSemanticAliases];
    let got = plan(NESTED_IN, "910b", &passes).unwrap();
    assert_eq!(
        got,
        r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)], y: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
        init: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(init,)):
            for j, (inner,) in pl.range(2, init_values=(acc,)):
                t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
                u: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(inner, t)
                io: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(u)
            w: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.exp(io)
            oo: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.yield_(w)
        r: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(oo, [0, 0], y)
        return r
"#
    );
    assert_eq!(plan(&got, "910b", &passes).unwrap(), got);
}

#[test]
fn init_gives_ddr_views_their_source_and_tensor_results_their_own_memref() {
    // PyPTO's InitMemRef (hello_rank, window_program, qwen3 kernels): a
    // tensor.slice is a window of its source at `offset * stride * bytes`,
    // a typed tensor loop result gets a fresh DDR MemRef after the body, a
    // comment before an assignment is dropped and one before a loop kept.
    let src = program(
        "Orchestration",
        "self, x: pl.Tensor[[2, 8, 8], pl.FP32], y: pl.Out[pl.Tensor[[2, 8, 8], pl.FP32]]) -> pl.Tensor[[2, 8, 8], pl.FP32]",
        &[
            "# dropped: it leads an assignment",
            "n: pl.Scalar[pl.INDEX] = 2",
            "# kept: it leads a loop",
            "for r, (acc,) in pl.range(n, init_values=(y,)):",
            "    t: pl.Tensor[[8, 8], pl.FP32] = pl.tensor.slice(x, [1, 8, 8], [r, 0, 0], [], [0])",
            "    acc2: pl.Tensor[[2, 8, 8], pl.FP32] = self.k(t, acc)",
            "    out: pl.Tensor[[2, 8, 8], pl.FP32] = pl.yield_(acc2)",
            "return out",
        ],
    );
    let got = plan(&src, "910b", &[PassId::InitMemref]).unwrap();
    let lines: Vec<&str> = got.lines().skip(7).collect();
    assert_eq!(
        lines,
        [
            "        n: pl.Scalar[pl.INDEX] = 2",
            "        # kept: it leads a loop",
            "        for r, (acc,) in pl.range(n, init_values=(y,)):",
            "            t: pl.Tensor[[8, 8], pl.FP32, pl.MemRef(\"mem_ddr_0\", r * 64 * 4, 256)] = pl.tensor.slice(x, [1, 8, 8], [r, 0, 0], [], [0])",
            "            acc2: pl.Tensor[[2, 8, 8], pl.FP32, pl.MemRef(\"mem_ddr_2\", pl.const(0, pl.INT64), 512)] = self.k(t, acc)",
            "            out: pl.Tensor[[2, 8, 8], pl.FP32, pl.MemRef(\"mem_ddr_3\", pl.const(0, pl.INT64), 512)] = pl.yield_(acc2)",
            "        return out",
        ]
    );
}
