//! `tilemem explain` and the explanation after an over-capacity error, on
//! programs whose peaks are known by construction: the exact live set, the
//! exact lower bound, and remedies that really fit when applied to the
//! program text and planned again.

mod common;

use std::process::{Command, Output};

/// Two co-live 64 KiB tiles and a 64 KiB reserved window (a pipe ring) on
/// 910B's 184 KiB Vec: 192 KiB at the peak (line 10), 8 KiB too many.
const RING: &str = r#"# pypto.program: Ring
import pypto.language as pl

@pl.program
class Ring:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kern(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32], output: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        _: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=65536, base=-1)
        ta: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        tb: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(ta, tb)
        stored: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], output)
        return stored

"#;

/// A 80 KiB FP16 tile widened to a 160 KiB FP32 tile: the lifetimes touch
/// only at the cast, so 160 KiB would do, but a widening cast may not write
/// over its input, so 240 KiB are needed on a 184 KiB space.
const CAST: &str = r#"# pypto.program: Widen
import pypto.language as pl

@pl.program
class Widen:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kern(a: pl.Tensor[[256, 160], pl.FP16], output: pl.Out[pl.Tensor[[256, 160], pl.FP32]]) -> pl.Tensor[[256, 160], pl.FP32]:
        x: pl.Tile[[256, 160], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [256, 160], [256, 160], target_memory=pl.Mem.Vec)
        y: pl.Tile[[256, 160], pl.FP32, pl.Mem.Vec] = pl.tile.cast(x, target_type=pl.FP32, mode='round')
        stored: pl.Tensor[[256, 160], pl.FP32] = pl.tile.store(y, [0, 0], output)
        return stored
"#;

fn scratch(name: &str) -> common::Scratch {
    common::scratch("explain", name)
}

fn tilemem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(args)
        .output()
        .unwrap()
}

fn write(d: &std::path::Path, name: &str, text: &str) -> String {
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

const EXPLANATION: &str = "kern/Vec: does not fit: planner pypto needs 196608 bytes, capacity 188416
  peak: line 10 (tb = tile.load)
  live at the peak: 2 tiles, 131072 bytes
    ta     65536 bytes  [128, 128] FP32  line 9
    tb     65536 bytes  [128, 128] FP32  line 10
  lower bound: 131072 co-live + 65536 reserved = 196608 bytes > capacity 188416: no placement of these lifetimes fits (8192 bytes short)
  remedies (each re-planned and checked; 16 re-plans of a budget of 400):
    - shrink reserve_buffer 'ring' (line 8) from 65536 to 57344 bytes: then 188416 bytes, saves 8192
    - use tiles of 120 instead of 128 in dimension 0 (every Vec tile with 128 there: c, ta, tb): then 188416 bytes, saves 8192
    - shrink tile 'ta' (line 9) from [128, 128] to [112, 128]: then 188416 bytes, saves 8192
    - shrink tile 'tb' (line 10) from [128, 128] to [112, 128]: then 188416 bytes, saves 8192
";

/// The short form `plan` prints after its error: three remedies, within a
/// budget of ten re-plans.
const SHORT_EXPLANATION: &str = "kern/Vec: does not fit: planner pypto needs 196608 bytes, capacity 188416
  peak: line 10 (tb = tile.load)
  live at the peak: 2 tiles, 131072 bytes
    ta     65536 bytes  [128, 128] FP32  line 9
    tb     65536 bytes  [128, 128] FP32  line 10
  lower bound: 131072 co-live + 65536 reserved = 196608 bytes > capacity 188416: no placement of these lifetimes fits (8192 bytes short)
  remedies (each re-planned and checked; 10 re-plans of a budget of 10):
    - shrink reserve_buffer 'ring' (line 8) from 65536 to 57344 bytes: then 188416 bytes, saves 8192
    - use tiles of 120 instead of 128 in dimension 0 (every Vec tile with 128 there: c, ta, tb): then 188416 bytes, saves 8192
    - shrink tile 'ta' (line 9) from [128, 128] to [112, 128]: then 188416 bytes, saves 8192
  (the re-planning budget ran out: `tilemem explain` tries more remedies)
";

#[test]
fn explain_names_the_peak_the_live_set_the_bound_and_remedies() {
    let d = scratch("golden");
    let input = write(&d, "ring.py", RING);
    let o = tilemem(&["explain", &input]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), EXPLANATION);
}

#[test]
fn a_failed_plan_ends_with_the_short_explanation() {
    let d = scratch("error");
    let input = write(&d, "ring.py", RING);
    let out = d.join("out.py");
    let o = tilemem(&["plan", &input, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!out.exists());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err,
        format!(
            "{input}:7:5: ValueError: Vec buffer usage (196608 bytes) exceeds platform limit \
             (188416 bytes). The first 65536 bytes of that space are reserved by \
             system.reserve_buffer, so tiles are allocated above them; in function 'kern': \
             shrink tiles, enable buffer reuse, or split the kernel\n{SHORT_EXPLANATION}"
        )
    );
    // --quiet keeps only the error.
    let o = tilemem(&["plan", &input, "--quiet"]);
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
}

/// The dsa-rp and optimal planners' capacity errors carry a position by
/// the pypto planner's rule: the largest allocation that alone exceeds the
/// capacity, at its line (for an InitMemRef-inserted one, its first
/// tile's); otherwise the function's line. Exit 1, nothing written.
#[test]
fn every_planners_capacity_error_names_line_and_column() {
    let d = scratch("positions");
    let ring = write(&d, "ring.py", RING);
    // Without the reserve window, `tb` widened to 128 x 512 FP32 (256 KiB)
    // alone exceeds the 184 KiB Vec space.
    let big = RING
        .replace(
            "        _: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=65536, base=-1)\n",
            "",
        )
        .replace("tb: pl.Tile[[128, 128]", "tb: pl.Tile[[128, 512]")
        .replace(
            "pl.tile.load(b, [0, 0], [128, 128], [128, 128]",
            "pl.tile.load(b, [0, 0], [128, 512], [128, 512]",
        );
    let big = write(&d, "big.py", &big);
    let out = d.join("out.py");
    let first_line = |input: &str, planner: &str| {
        let o = tilemem(&[
            "plan",
            input,
            "--planner",
            planner,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{planner}");
        assert!(!out.exists(), "{planner} wrote {}", out.display());
        let err = String::from_utf8_lossy(&o.stderr);
        err.lines().next().unwrap_or_default().to_string()
    };
    for planner in ["dsa-rp", "optimal"] {
        assert_eq!(
            first_line(&ring, planner),
            format!(
                "{ring}:7:5: ValueError: DSA-RP could not find a placement for 'kern' within \
                 the on-chip memory capacities: canonical greedy found no capacity-fitting \
                 placement (Vec space: 3 buffers, 196608 bytes requested, capacity 188416). \
                 The first 65536 bytes of that space are reserved by system.reserve_buffer, \
                 so tiles are allocated above them; in function 'kern': shrink tiles or split \
                 the kernel (`tilemem explain --planner {planner}` names the peak and what \
                 would fit)"
            ),
            "{planner}"
        );
        assert_eq!(
            first_line(&big, planner),
            format!(
                "{big}:9:9: ValueError: DSA-RP could not find a placement for 'kern' within \
                 the on-chip memory capacities: canonical greedy found no capacity-fitting \
                 placement (Vec space: 3 buffers, 393216 bytes requested, capacity 188416); \
                 in function 'kern': shrink tiles or split the kernel (`tilemem explain \
                 --planner {planner}` names the peak and what would fit); the allocation \
                 'mem_vec_4' alone needs 262144 bytes"
            ),
            "{planner}"
        );
    }
    // The pypto planner's error on the same inputs: same positions.
    assert!(first_line(&ring, "pypto").starts_with(&format!("{ring}:7:5: ValueError: Vec")));
    assert_eq!(
        first_line(&big, "pypto"),
        format!(
            "{big}:9:9: ValueError: Vec buffer usage (327680 bytes) exceeds platform limit \
             (188416 bytes); in function 'kern': shrink tiles, enable buffer reuse, or split \
             the kernel; the allocation 'mem_vec_4' alone needs 262144 bytes"
        )
    );
}

/// Each remedy, applied to the text, plans; one step further does not
/// (the remedy is the smallest change).
#[test]
fn remedies_fit_when_applied_and_are_the_smallest_change() {
    let d = scratch("remedies");
    let plans = |name: &str, text: &str| {
        let p = write(&d, name, text);
        tilemem(&["plan", &p, "--quiet"]).status.code()
    };
    assert_eq!(plans("r0.py", RING), Some(1));
    let ring = |size: &str| RING.replace("size=65536", &format!("size={size}"));
    assert_eq!(plans("r1.py", &ring("57344")), Some(0));
    assert_eq!(plans("r2.py", &ring("57376")), Some(1));
    let ta = |rows: &str| {
        RING.replacen(
            "ta: pl.Tile[[128, 128]",
            &format!("ta: pl.Tile[[{rows}, 128]"),
            1,
        )
    };
    assert_eq!(plans("t1.py", &ta("112")), Some(0));
    assert_eq!(plans("t2.py", &ta("113")), Some(1));
}

#[test]
fn the_report_carries_the_same_facts() {
    let d = scratch("json");
    let input = write(&d, "ring.py", RING);
    let rep = d.join("ex.json");
    let o = tilemem(&["explain", &input, "--report", rep.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    let s = &v["spaces"][0];
    assert_eq!(s["space"], "Vec");
    assert_eq!(s["lower_bound"], 196608);
    assert_eq!(s["reserved"], 65536);
    assert_eq!(s["proven_over_capacity"], true);
    assert_eq!(s["peak"]["line"], 10);
    let live: Vec<&str> = s["live"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(live, ["ta", "tb"]);
    assert_eq!(s["remedies"].as_array().unwrap().len(), 4);
    assert_eq!(s["remedies"][0]["saved"], 8192);
}

#[test]
fn a_fitting_program_is_explained_on_request() {
    let d = scratch("fits");
    let small = RING.replace("size=65536", "size=1024");
    let input = write(&d, "small.py", &small);
    let o = tilemem(&["explain", &input]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "every space fits its capacity (use --all to explain each)\n  \
         kern/Vec: planner pypto uses 132096 of 188416 bytes, lower bound 132096\n"
    );
    let o = tilemem(&["explain", &input, "--target", "none"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "every space fits its capacity (use --all to explain each)\n  \
         kern/Vec: planner pypto uses 132096 bytes (unlimited capacity), lower bound 132096\n"
    );
    let o = tilemem(&["explain", &input, "--all"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "kern/Vec: fits: planner pypto uses 132096 bytes, capacity 188416
  peak: line 10 (tb = tile.load)
  live at the peak: 2 tiles, 131072 bytes
    ta     65536 bytes  [128, 128] FP32  line 9
    tb     65536 bytes  [128, 128] FP32  line 10
  lower bound: 131072 co-live + 1024 reserved = 132096 bytes <= capacity 188416
  buffers: 2 for 3 tiles, each with its tiles in program order
    mem_vec_3  [1024, 66560)    ta, c
    mem_vec_4  [66560, 132096)  tb
"
    );
}

/// A tile name of 65,536 characters or more, live at the peak, once made
/// `explain --all` panic: the live list was padded with `{:<width$}`, and
/// a width past 65,535 is a formatting error. Names of any length are
/// padded like short ones.
#[test]
fn a_tile_name_of_any_length_is_listed() {
    let d = scratch("longname");
    let long = "t".repeat(70_000);
    let src = RING
        .replace("size=65536", "size=1024")
        .replace("ta: pl.Tile", &format!("{long}: pl.Tile"))
        .replace("add(ta, tb)", &format!("add({long}, tb)"));
    let input = write(&d, "long.py", &src);
    let o = tilemem(&["explain", &input, "--all"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!(
        "\n    {long}     65536 bytes  [128, 128] FP32  line 9\n"
    )));
    let pad = " ".repeat(70_000 - 2);
    assert!(out.contains(&format!(
        "\n    tb{pad}     65536 bytes  [128, 128] FP32  line 10\n"
    )));
}

#[test]
fn a_rule_that_refuses_a_sharing_is_named() {
    let d = scratch("cast");
    let input = write(&d, "cast.py", CAST);
    let o = tilemem(&["explain", &input]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "kern/Vec: does not fit: planner pypto needs 245760 bytes, capacity 188416
  peak: line 9 (y = tile.cast)
  live at the peak: 1 tile, 163840 bytes
    y    163840 bytes  [256, 160] FP32  line 9
  lower bound: 163840 co-live + 0 reserved = 163840 bytes <= capacity 188416: a placement could fit; planner pypto's rules (which tiles may share, address order) refused it
  sharings the lifetimes allow but a rule refuses:
    x and y (81920 bytes): no-alias rule of tile.cast at line 9 (its output may not share its input's bytes)
  remedies (each re-planned and checked; 27 re-plans of a budget of 400):
    - use tiles of 196 instead of 256 in dimension 0 (every Vec tile with 256 there: x, y): then 188160 bytes, saves 38400
    - shrink tile 'y' (line 9) from [256, 160] to [256, 104]: then 188416 bytes, saves 57344
    - shrink tile 'x' (line 8) from [256, 160] to [256, 48]: then 188416 bytes, saves 57344
"
    );
    // The remedies fit when applied to the text, one row more does not.
    let plans = |name: &str, text: String| {
        let p = write(&d, name, &text);
        tilemem(&["plan", &p, "--quiet"]).status.code()
    };
    let y = |rows: &str| {
        CAST.replacen(
            "y: pl.Tile[[256, 160]",
            &format!("y: pl.Tile[[{rows}, 160]"),
            1,
        )
    };
    let x = |rows: &str| {
        CAST.replacen(
            "x: pl.Tile[[256, 160]",
            &format!("x: pl.Tile[[{rows}, 160]"),
            1,
        )
    };
    assert_eq!(plans("y1.py", y("166")), Some(0));
    assert_eq!(plans("y2.py", y("167")), Some(1));
    assert_eq!(plans("x1.py", x("76")), Some(0));
    assert_eq!(plans("x2.py", x("77")), Some(1));
}

/// The HTML map's details say which rule kept two tiles apart.
#[test]
fn the_map_names_the_rule_that_kept_tiles_apart() {
    let d = scratch("map-rule");
    let input = write(&d, "small.py", &CAST.replace("256, 160", "128, 160"));
    let map = d.join("m.html");
    let o = tilemem(&["plan", &input, "--quiet", "--map", map.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let html = std::fs::read_to_string(&map).unwrap();
    assert!(html.contains(r#"["kept apart by a rule","y: no-alias rule of tile.cast at line 9 (its output may not share its input's bytes)"]"#), "{html}");
}

/// DSA-RP's error gives no byte count: the space still counts as not
/// fitting, and the default planner's usage sizes the shrink searches.
#[test]
fn explains_a_dsa_rp_failure() {
    let d = scratch("dsa");
    let input = write(&d, "cast.py", CAST);
    let o = tilemem(&["explain", &input, "--planner", "dsa-rp"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("kern/Vec: does not fit with planner dsa-rp, capacity 188416\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "  remedies (each re-planned and checked; 27 re-plans of a budget of 400):
    - use tiles of 196 instead of 256 in dimension 0 (every Vec tile with 256 there: x, y): then 188160 bytes, saves 38400
    - shrink tile 'y' (line 9) from [256, 160] to [256, 104]: then 188416 bytes, saves 57344
    - shrink tile 'x' (line 8) from [256, 160] to [256, 48]: then 188416 bytes, saves 57344
"
        ),
        "{text}"
    );
}

/// The reserved window of a cross-core pipe: the remedy is a lower
/// slot_num, which shrinks the window by whole slots.
#[test]
fn a_pipe_ring_is_shrunk_by_whole_slots() {
    let d = scratch("pipe");
    let pipe = r#"# pypto.program: Ring
import pypto.language as pl

@pl.program
class Ring:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kern(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32], output: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ring: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=65536, base=-1)
        pl.system.aiv_initialize_pipe(ring, pl.const(0, pl.INT32), dir_mask=1, slot_size=16384, slot_num=4)
        ta: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        tb: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(ta, tb)
        stored: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], output)
        return stored

"#;
    let input = write(&d, "pipe.py", pipe);
    let o = tilemem(&["explain", &input]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(
            "    - lower the cross-core pipe depth to slot_num=3 (optimizations=[pl.cross_core_slot(slot_num=3)]): \
             reserve_buffer 'ring' (line 8) shrinks from 65536 to 49152 bytes: then 180224 bytes, saves 16384\n"
        ),
        "{text}"
    );
    let plans = |name: &str, text: &str| {
        let p = write(&d, name, text);
        tilemem(&["plan", &p, "--quiet"]).status.code()
    };
    assert_eq!(plans("p0.py", pipe), Some(1));
    let three = pipe
        .replace("size=65536", "size=49152")
        .replace("slot_num=4", "slot_num=3");
    assert_eq!(plans("p3.py", &three), Some(0));
}

/// Largest-first first fit loses where another planner fits. Four tiles,
/// lifetimes in statement order (1 unit = 16 KiB):
///
/// | tile | size | live (lines) |
/// |---|---|---|
/// | t0 | 5 u | 8-10 |
/// | t2 | 3 u | 9-12 |
/// | t3 | 4 u | 11-15 |
/// | t1 | 6 u | 13-14 |
///
/// At most 10 u (t3 + t1) are ever live. PyPTO's MemoryReuse packs largest
/// first, each at the lowest free address: t1 at 0, t0 at 0 (disjoint
/// lifetimes), t3 above t1 at 6 u, and t2, live with t0 (0-5 u) and t3
/// (6-10 u), fits in neither the 1 u gap nor below, so it goes to 10 u:
/// 13 u = 212992 bytes > 188416 on 910B. DSA_RP's canonical greedy needs
/// 11 u (180224 bytes) and the exact search 10 u (163840), both within
/// the capacity.
const FIRST_FIT: &str = r#"# pypto.program: FirstFit
import pypto.language as pl

@pl.program
class FirstFit:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kern(i0: pl.Tensor[[160, 128], pl.FP32], i1: pl.Tensor[[192, 128], pl.FP32], i2: pl.Tensor[[96, 128], pl.FP32], i3: pl.Tensor[[128, 128], pl.FP32], o0: pl.Out[pl.Tensor[[160, 128], pl.FP32]], o1: pl.Out[pl.Tensor[[192, 128], pl.FP32]], o2: pl.Out[pl.Tensor[[96, 128], pl.FP32]], o3: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t0: pl.Tile[[160, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i0, [0, 0], [160, 128], [160, 128], target_memory=pl.Mem.Vec)
        t2: pl.Tile[[96, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i2, [0, 0], [96, 128], [96, 128], target_memory=pl.Mem.Vec)
        r0: pl.Tensor[[160, 128], pl.FP32] = pl.tile.store(t0, [0, 0], o0)
        t3: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i3, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        r2: pl.Tensor[[96, 128], pl.FP32] = pl.tile.store(t2, [0, 0], o2)
        t1: pl.Tile[[192, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(i1, [0, 0], [192, 128], [192, 128], target_memory=pl.Mem.Vec)
        r1: pl.Tensor[[192, 128], pl.FP32] = pl.tile.store(t1, [0, 0], o1)
        r3: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t3, [0, 0], o3)
        return r3
"#;

const FIRST_FIT_EXPLANATION: &str = "kern/Vec: does not fit: planner pypto needs 212992 bytes, capacity 188416
  peak: line 13 (t1 = tile.load)
  live at the peak: 2 tiles, 163840 bytes
    t1     98304 bytes  [192, 128] FP32  line 13
    t3     65536 bytes  [128, 128] FP32  line 11
  lower bound: 163840 co-live + 0 reserved = 163840 bytes <= capacity 188416: a placement could fit; planner pypto's rules (which tiles may share, address order) refused it
  remedies (each re-planned and checked; 28 re-plans of a budget of 400):
    - plan with --planner dsa-rp: then 180224 bytes, saves 32768
    - plan with --planner optimal: then 163840 bytes, saves 49152
    - use tiles of 113 instead of 128 in dimension 1 (every Vec tile with 128 there: t0, t1, t2, t3): then 188032 bytes, saves 19200
    - shrink tile 't1' (line 13) from [192, 128] to [128, 128]: then 147456 bytes, saves 32768
    - shrink tile 't3' (line 11) from [128, 128] to [80, 128]: then 188416 bytes, saves 24576
";

#[test]
fn explain_suggests_another_planner_that_fits_and_it_does() {
    let d = scratch("first-fit");
    let input = write(&d, "first_fit.py", FIRST_FIT);
    // The default planner fails on the capacity.
    let o = tilemem(&["plan", &input, "-o", d.join("out.py").to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!d.join("out.py").exists());
    let o = tilemem(&["explain", &input]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stdout), FIRST_FIT_EXPLANATION);
    // Each suggested planner really fits, with the bytes the remedy named.
    for (planner, bytes) in [("dsa-rp", "180224"), ("optimal", "163840")] {
        let out = d.join(format!("{planner}.py"));
        let o = tilemem(&[
            "plan",
            &input,
            "--planner",
            planner,
            "-o",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{planner}: {err}");
        assert!(
            err.contains(&format!("kern/Vec: {bytes} / 188416 bytes")),
            "{planner}: {err}"
        );
        assert!(out.exists(), "{planner}");
    }
}

/// `explain --map` draws the plan it explains; for a kernel that does not
/// fit, the plan without capacity limits with the overflow marked.
#[test]
fn explain_writes_a_map_of_what_it_explains() {
    let d = scratch("map");
    let map = d.join("over.svg");
    let over = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/pto/over_capacity.py"
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .args(["explain", over, "--map", map.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("does not fit"), "{text}");
    let svg = std::fs::read_to_string(&map).unwrap();
    assert!(svg.contains("softmax_rows / Vec (910b)"), "{svg}");
    assert!(svg.contains("does not fit, 8576 over"), "{svg}");
    assert!(
        svg.contains(r##"stroke="#c00" stroke-width="1.5""##),
        "{svg}"
    );
}

/// PyPTO's `test_different_if_branches_can_share` after its yield fix-up,
/// with its MemRefs as PyPTO prints them before AllocateMemoryAddr: the
/// then branch loads `b` into the phi's window, the else branch loads `c`
/// and moves it there (line 15). `b` and `c` are never live together, so
/// the optimal planner could share them, but the move's output may not
/// share its input's bytes; DSA_RP's lifetimes (hulls) keep them apart.
const BRANCHES: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)], k: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[8, 8], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 256)]]) -> pl.Tensor[[8, 8], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        if k < 2:
            b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
            r: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.yield_(b)
        else:
            c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)
            cm: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.move(c, target_memory=pl.Mem.Vec)
            r: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.yield_(cm)
        s: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(r, [0, 0], y)
        return s
"#;

/// The move's no-alias rule, as every output words it.
const MOVE_RULE: &str =
    "no-alias rule of tile.move at line 15 (its output may not share its input's bytes)";

/// `explain --all --report`'s refused sharings of the one space.
fn refused_in_report(d: &std::path::Path, planner: &str) -> serde_json::Value {
    let input = write(d, "branches.py", BRANCHES);
    let rep = d.join(format!("{planner}.json"));
    let o = tilemem(&[
        "explain",
        &input,
        "--all",
        "--planner",
        planner,
        "--report",
        rep.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let text = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    let spaces = v["spaces"].as_array().unwrap();
    assert_eq!(spaces.len(), 1, "{v}");
    assert_eq!(spaces[0]["planned_bytes"], 512);
    assert_eq!(spaces[0]["lower_bound"], 256);
    // The text lists exactly what the report does.
    let listed = text.contains("  sharings the lifetimes allow but a rule refuses:\n");
    assert_eq!(
        listed,
        !spaces[0]["refused_sharings"].as_array().unwrap().is_empty(),
        "{text}"
    );
    spaces[0]["refused_sharings"].clone()
}

/// The report of a space that fits above its bound names the refused
/// sharing `explain --all` prints, with whether the two tiles are never
/// live together (optimal), and none where the planner's lifetimes keep
/// them apart (dsa-rp), as the text does.
#[test]
fn the_report_lists_the_refused_sharings_the_text_lists() {
    let d = scratch("report-refused");
    assert_eq!(
        refused_in_report(&d, "optimal"),
        serde_json::json!([{
            "a": "b", "b": "c", "rule": MOVE_RULE, "line": 15, "bytes": 256,
            "never_together": true,
        }])
    );
    assert_eq!(refused_in_report(&d, "dsa-rp"), serde_json::json!([]));
    // A pair whose lifetimes do not overlap is not marked.
    let input = write(&d, "cast.py", CAST);
    let rep = d.join("cast.json");
    let o = tilemem(&["explain", &input, "--report", rep.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(
        v["spaces"][0]["refused_sharings"],
        serde_json::json!([{
            "a": "x", "b": "y", "line": 9, "bytes": 81920, "never_together": false,
            "rule": "no-alias rule of tile.cast at line 9 (its output may not share its input's bytes)",
        }])
    );
}

/// The model an HTML map draws (the JSON in its `data` script).
fn map_data(html: &str) -> serde_json::Value {
    let start = html
        .find(r#"<script id="data" type="application/json">"#)
        .unwrap();
    let data = &html[start..];
    let data = &data[data.find('>').unwrap() + 1..data.find("</script>").unwrap()];
    serde_json::from_str(data).unwrap()
}

/// Each view of the HTML map: planner -> (tile -> its "kept apart by a
/// rule" detail, tiles without one left out; once per tile, whatever the
/// number of its bars).
fn kept_apart(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let doc = map_data(html);
    let mut out = Vec::new();
    for view in doc["views"].as_array().unwrap() {
        let mut tiles = Vec::new();
        for lane in view["lanes"].as_array().unwrap() {
            for rect in lane["rects"].as_array().unwrap() {
                for kv in rect["details"].as_array().unwrap() {
                    if kv[0] == "kept apart by a rule" {
                        let name = rect["name"].as_str().unwrap().to_string();
                        let entry = (name, kv[1].as_str().unwrap().to_string());
                        // A tile drawn once per live stretch has one bar
                        // each, with the same details.
                        if tiles.last() != Some(&entry) {
                            tiles.push(entry);
                        }
                    }
                }
            }
        }
        out.push((view["planner"].as_str().unwrap().to_string(), tiles));
    }
    out
}

/// The HTML map names the rule that kept two tiles apart for exactly the
/// planners `explain --all` lists it for: the branches' tiles under the
/// optimal planner only, marked never live together.
#[test]
fn the_map_lists_the_refused_sharings_explain_lists_for_each_planner() {
    let d = scratch("map-refused");
    let input = write(&d, "branches.py", BRANCHES);
    let map = d.join("m.html");
    let o = tilemem(&[
        "plan",
        &input,
        "--quiet",
        "--planner",
        "all",
        "--map",
        map.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let apart = |y: &str| format!("{y} (never live together): {MOVE_RULE}");
    assert_eq!(
        kept_apart(&std::fs::read_to_string(&map).unwrap()),
        [
            ("pypto".to_string(), vec![]),
            ("dsa-rp".to_string(), vec![]),
            (
                "optimal".to_string(),
                vec![("b".to_string(), apart("c")), ("c".to_string(), apart("b"))]
            ),
        ]
    );
    // `explain --map` draws the map of the planner it explains.
    for (planner, tiles) in [("optimal", 2), ("dsa-rp", 0)] {
        let map = d.join(format!("{planner}.html"));
        let o = tilemem(&[
            "explain",
            &input,
            "--planner",
            planner,
            "--map",
            map.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let views = kept_apart(&std::fs::read_to_string(&map).unwrap());
        assert_eq!(views.len(), 1);
        assert_eq!((views[0].0.as_str(), views[0].1.len()), (planner, tiles));
    }
}

/// `a` is read only in the else branch, so the optimal planner puts the
/// then branch's `b` and `e` on its bytes (the branch rule); `e`'s family
/// (`e`, `d`, `p`) holds nothing needed between the then branch's yield and
/// `d`.
const SHARED_BRANCHES: &str =
    include_str!("../../pto/tests/data/branches/then_on_else_only_value.py");

/// One bar of a map: name, first and end byte, first and end instant,
/// lifetime detail.
type Bar = (String, u64, u64, u64, u64, String);

/// The map's one view: per lane its peak label and its bars.
fn bars(html: &str) -> Vec<(String, Vec<Bar>)> {
    let doc = map_data(html);
    let mut out = Vec::new();
    for lane in doc["views"][0]["lanes"].as_array().unwrap() {
        let mut rects = Vec::new();
        for r in lane["rects"].as_array().unwrap() {
            let lifetime = r["details"]
                .as_array()
                .unwrap()
                .iter()
                .find(|kv| kv[0] == "lifetime")
                .map(|kv| kv[1].as_str().unwrap().to_string())
                .unwrap();
            let n = |k: &str| r[k].as_u64().unwrap();
            rects.push((
                r["name"].as_str().unwrap().to_string(),
                n("start"),
                n("end"),
                n("t0"),
                n("t1"),
                lifetime,
            ));
        }
        out.push((lane["peak"]["label"].as_str().unwrap().to_string(), rects));
    }
    out
}

/// Under the optimal planner the map draws each buffer once per stretch in
/// which it holds something needed, so tiles of different branches on one
/// place never overlap, and its peak counts those bytes once (the hulls
/// drew `a` over the whole `if` and marked 512 bytes live at `b`'s load,
/// in a space of 256). The static picture draws the same bars.
#[test]
fn the_map_draws_each_buffer_once_per_live_stretch() {
    let d = scratch("map-spans");
    let input = write(&d, "branches.py", SHARED_BRANCHES);
    let map = d.join("m.html");
    let o = tilemem(&[
        "explain",
        &input,
        "--planner",
        "optimal",
        "--map",
        map.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let bar = |name: &str, t0, t1, lifetime: &str| {
        (name.to_string(), 0, 256, t0, t1, lifetime.to_string())
    };
    // The hover text says what the bars draw: statement `p` at `2p + 1`,
    // `after p` at `2p + 2`, and the stretches where the bytes are free
    // (`e` is free from statement 8's read until statement 9 writes; the
    // stretches alone, `7 .. 8, 9 .. 11`, read as one).
    const A: &str = "statements 4 .. 6, after 8 .. 9; free 6 .. after 8";
    const E: &str = "statements 7 .. 8, 9 .. 11; free 8 .. 9";
    assert_eq!(
        bars(&std::fs::read_to_string(&map).unwrap()),
        [(
            "a = tile.load (line 7), 256 bytes live".to_string(),
            vec![
                bar("a", 9, 13, A),
                bar("a", 18, 19, A),
                bar("b", 13, 15, "statements 6 .. 7"),
                bar("e", 15, 17, E),
                bar("e", 19, 23, E),
            ]
        )]
    );
    let svg = d.join("m.svg");
    let o = tilemem(&[
        "plan",
        &input,
        "--quiet",
        "--planner",
        "optimal",
        "-o",
        d.join("out.py").to_str().unwrap(),
        "--map",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    let titles: Vec<&str> = svg
        .split("<title>")
        .skip(1)
        .filter_map(|t| t.split("</title>").next())
        .filter(|t| t.contains(", live ["))
        .collect();
    assert_eq!(
        titles,
        [
            "a@mem_vec_2: 256 at [0, 256), live [9, 13)",
            "a@mem_vec_2: 256 at [0, 256), live [18, 19)",
            "b@mem_vec_3: 256 at [0, 256), live [13, 15)",
            "e@mem_vec_4: 256 at [0, 256), live [15, 17)",
            "e@mem_vec_4: 256 at [0, 256), live [19, 23)",
        ]
    );
}

/// After an over-capacity error under the optimal planner, each remedy
/// re-plan's exact search gets a tenth of the run's limits, and the text
/// says when that stopped re-plans without a fit. With a node limit the
/// whole text is reproducible. (It took 70-85 s when every re-plan searched
/// with the default 10 s, whatever --node-limit said.)
#[test]
fn remedies_of_an_optimal_run_search_a_tenth_of_its_budget() {
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "plan",
            "../pto/tests/data/input_sharing/staged_carry_family.py",
            "--target",
            "910b",
            "--planner",
            "optimal",
            "--node-limit",
            "20000",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "../pto/tests/data/input_sharing/staged_carry_family.py:7:5: ValueError: DSA-RP could \
         not find a placement for 'k' within the on-chip memory capacities: canonical greedy \
         found no capacity-fitting placement (Vec space: 39 buffers, 610304 bytes requested, \
         capacity 188416); in function 'k': shrink tiles or split the kernel (`tilemem \
         explain --planner optimal` names the peak and what would fit)
k/Vec: does not fit with planner optimal, capacity 188416
  peak: line 86 (w37 = tile.create)
  live at the peak: 8 tiles, 118784 bytes
    m36     16384 bytes  [64, 64] FP32  line 85
    t1      16384 bytes  [64, 64] FP32  line 53
    t19     16384 bytes  [64, 64] FP32  line 70
    t2      16384 bytes  [64, 64] FP32  line 54
    t26     16384 bytes  [64, 64] FP32  line 75
    ... 3 more
  lower bound: 118784 co-live + 0 reserved = 118784 bytes <= capacity 188416: a placement \
         could fit; planner optimal's rules (which tiles may share, address order) refused it
  sharings the lifetimes allow but a rule refuses:
    t10 and w16 (16384 bytes): written-workspace rule at line 67
    t13 and w16 (16384 bytes): written-workspace rule at line 67
    m15 and t17 (16384 bytes): no-alias rule of tile.sels at line 67 (its output may not share \
         its input's bytes)
    ... 148 more
  remedies: none found (10 re-plans of a budget of 10: planners, reserves and pipe depths, \
         tile sizes, every dimension of each live tile, one-statement moves); split the kernel
  (the re-planning budget ran out: `tilemem explain` tries more remedies)
  (the exact search of 8 re-plans stopped at the remedies' budget without a fit: each \
         re-plan gets 1/10 of the run's limits, 2000 nodes or 1.000 s per space; a larger \
         --node-limit or --time-limit may find more remedies)
"
    );
}

/// `explain` takes the same limits and gives its remedies the same share.
#[test]
fn explain_gives_its_remedies_a_tenth_of_its_limits() {
    let o = Command::new(env!("CARGO_BIN_EXE_tilemem"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "explain",
            "../pto/tests/data/input_sharing/staged_carry_family.py",
            "--target",
            "910b",
            "--planner",
            "optimal",
            "--node-limit",
            "20000",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    let tail: Vec<&str> = out.lines().rev().take(2).collect();
    assert_eq!(
        tail,
        [
            "  (the exact search of 12 re-plans stopped at the remedies' budget without a fit: \
             each re-plan gets 1/10 of the run's limits, 2000 nodes or 1.000 s per space; a \
             larger --node-limit or --time-limit may find more remedies)",
            "  remedies: none found (14 re-plans of a budget of 400: planners, reserves and pipe \
             depths, tile sizes, every dimension of each live tile, one-statement moves); split \
             the kernel",
        ]
    );
}

/// A view left naming another allocation than its source's: `s2` slices
/// `t1` (on `mem_vec_2`) but its MemRef names `mem_vec_3`, as a view's
/// MemRef can before MemoryReuse. DSA-RP and the optimal planner place it
/// on `t1`'s bytes at its own address.
const STALE_VIEW: &str = r#"# pypto.program: StaleView
import pypto.language as pl

@pl.program
class StaleView:
    @pl.function(type=pl.FunctionType.AIV)
    def k(x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        t1: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        s2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_3, 0, 8192), pl.Mem.Vec] = pl.tile.slice(t1, [32, 64], [0, 0])
        t3: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(s2)
        s4: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(t3, [0, 0], y)
        return s4
"#;

/// A view is its source's bytes (seed 001: a root and its views take one
/// slot), whatever allocation its MemRef names: `explain --all`, the HTML
/// map and the SVG map draw `s2` inside `t1`'s buffer, not as a second
/// buffer of `t1`'s family on `mem_vec_3`, which put 24 KiB at the map's
/// peak and its lower bound while 16 KiB were live (and the optimal
/// planner used 16 KiB).
#[test]
fn a_view_naming_another_allocation_is_drawn_in_its_sources_buffer() {
    let d = scratch("stale-view");
    let input = write(&d, "stale_view.py", STALE_VIEW);
    for (planner, used, t3, buffers) in [
        (
            "dsa-rp",
            "24 KiB used of 184 KiB (13.0 %)",
            (16384, 24576),
            "    mem_vec_2  [0, 16384)      t1\n    mem_vec_4  [16384, 24576)  t3\n",
        ),
        (
            "optimal",
            "16 KiB used of 184 KiB (8.7 %)",
            (0, 8192),
            "    mem_vec_2  [0, 16384)  t1\n    mem_vec_4  [0, 8192)   t3\n",
        ),
    ] {
        let html = d.join(format!("{planner}.html"));
        let o = tilemem(&[
            "explain",
            &input,
            "--all",
            "--planner",
            planner,
            "--map",
            html.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(
            text.ends_with(&format!(
                "  lower bound: 16384 co-live + 0 reserved = 16384 bytes <= capacity 188416\n  \
                 buffers: 2 for 2 tiles, each with its tiles in program order\n{buffers}"
            )),
            "{planner}: {text}"
        );
        let bar = |name: &str, (start, end), t0, t1, lifetime: &str| {
            (name.to_string(), start, end, t0, t1, lifetime.to_string())
        };
        assert_eq!(
            bars(&std::fs::read_to_string(&html).unwrap()),
            [(
                "t1 = tile.load (line 11), 16384 bytes live".to_string(),
                vec![
                    bar("t1", (0, 16384), 9, 13, "statements 4 .. 6"),
                    bar("t3", t3, 13, 15, "statements 6 .. 7"),
                ]
            )],
            "{planner}"
        );
        let svg = d.join(format!("{planner}.svg"));
        let o = tilemem(&[
            "explain",
            &input,
            "--planner",
            planner,
            "--map",
            svg.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let svg = std::fs::read_to_string(&svg).unwrap();
        assert!(
            svg.contains(&format!(">2 buffers, {used}, lower bound 16 KiB</text>")),
            "{planner}: {svg}"
        );
        let titles: Vec<&str> = svg
            .split("<title>")
            .skip(1)
            .filter_map(|t| t.split("</title>").next())
            .collect();
        assert_eq!(
            titles,
            [
                "t1@mem_vec_2: 16 KiB at [0, 16384), live [9, 13)".to_string(),
                format!("t3@mem_vec_4: 8 KiB at [{}, {}), live [13, 15)", t3.0, t3.1),
            ],
            "{planner}"
        );
    }
}

/// An FP32 tile narrowed to BF16 on 910B: the seed's narrowing-cast rule
/// keeps `y` off `x`'s bytes (24 KiB); PyPTO e2d0f78, without that rule,
/// writes `y` over `x` (16 KiB).
const NARROW: &str = r#"# pypto.program: Narrow
import pypto.language as pl

@pl.program
class Narrow:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.BF16]]) -> pl.Tensor[[64, 64], pl.BF16]:
        x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(x, target_type=pl.BF16, mode='round')
        stored: pl.Tensor[[64, 64], pl.BF16] = pl.tile.store(y, [0, 0], output)
        return stored
"#;

/// `explain --compat` holds for every part of the explanation: the plan
/// explained, the one line per fitting space, the sharings a rule
/// refused, the buffers of --all, the report and the HTML map (each of
/// which planned with every seed rule, whatever the flag said, or did not
/// take the flag at all).
#[test]
fn explain_follows_compat_in_every_part() {
    let d = scratch("compat");
    let input = write(&d, "narrow.py", NARROW);
    let head = "k/Vec: fits: planner pypto uses {used} bytes, capacity 188416
  peak: line 8 (x = tile.load)
  live at the peak: 1 tile, 16384 bytes
    x     16384 bytes  [64, 64] FP32  line 8
  lower bound: 16384 co-live + 0 reserved = 16384 bytes <= capacity 188416
";
    let refused = "  sharings the lifetimes allow but a rule refuses:
    x and y (8192 bytes): no-alias rule of tile.cast at line 9 (its output may not share its input's bytes)
";
    let rule = "no-alias rule of tile.cast at line 9 (its output may not share its input's bytes)";
    for (compat, used, all_tail, y_at, kept) in [
        (
            "seed",
            24576,
            format!(
                "{refused}  buffers: 2 for 2 tiles, each with its tiles in program order
    mem_vec_2  [0, 16384)      x
    mem_vec_3  [16384, 24576)  y
"
            ),
            (16384, 24576),
            vec![
                ("x".to_string(), format!("y: {rule}")),
                ("y".to_string(), format!("x: {rule}")),
            ],
        ),
        (
            "pypto-e2d0f78",
            16384,
            "  buffers: 1 for 2 tiles, each with its tiles in program order
    mem_vec_2  [0, 16384)  x, y
"
            .to_string(),
            // On `x`'s buffer, the whole of it (PyPTO's MemRef for a
            // smaller member of a buffer).
            (0, 16384),
            vec![],
        ),
    ] {
        let o = tilemem(&["explain", &input, "--compat", compat]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert_eq!(
            String::from_utf8(o.stdout).unwrap(),
            format!(
                "every space fits its capacity (use --all to explain each)
  k/Vec: planner pypto uses {used} of 188416 bytes, lower bound 16384
"
            ),
            "{compat}"
        );
        let (html, report) = (d.join(format!("{compat}.html")), d.join("r.json"));
        let o = tilemem(&[
            "explain",
            &input,
            "--all",
            "--compat",
            compat,
            "--map",
            html.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert_eq!(
            String::from_utf8(o.stdout).unwrap(),
            head.replace("{used}", &used.to_string()) + &all_tail,
            "{compat}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let space = &json["spaces"][0];
        assert_eq!(space["planned_bytes"], used, "{compat}: {json}");
        assert_eq!(
            space["refused_sharings"].as_array().unwrap().len(),
            kept.len() / 2,
            "{compat}: {json}"
        );
        let html = std::fs::read_to_string(&html).unwrap();
        assert_eq!(kept_apart(&html), [("pypto".to_string(), kept)], "{compat}");
        let tiles: Vec<(String, u64, u64)> = bars(&html)[0]
            .1
            .iter()
            .map(|b| (b.0.clone(), b.1, b.2))
            .collect();
        assert_eq!(
            tiles,
            [
                ("x".to_string(), 0, 16384),
                ("y".to_string(), y_at.0, y_at.1)
            ],
            "{compat}"
        );
    }
    let o = tilemem(&["explain", &input, "--compat", "pypto"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "error: unknown --compat 'pypto'; use seed or pypto-e2d0f78\n"
    );
    // HIVM MLIR is planned by PlanMemory's rules: a rule set of the PyPTO
    // planners is refused, not ignored.
    let mlir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/mlir/unaligned_rows.mlir"
    );
    let o = tilemem(&["explain", mlir, "--compat", "pypto-e2d0f78"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "error: --compat pypto-e2d0f78 does not apply to HIVM MLIR: it selects the rules of the \
         PyPTO planners\n"
    );
}

/// The narrowing cast after a row maximum whose rule keeps its result off
/// its scratch tile: the space stays 256 bytes above its lower bound
/// under both rule sets, so `--all` lists the sharings a rule refused, the
/// cast's only under the seed's rules.
const NARROW_AFTER_ROW_MAX: &str = r#"# pypto.program: Narrow
import pypto.language as pl

@pl.program
class Narrow:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.BF16]]) -> pl.Tensor[[64, 64], pl.BF16]:
        x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        m: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        r: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(x, m)
        d: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(x, r)
        y: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(d, target_type=pl.BF16, mode='round')
        stored: pl.Tensor[[64, 64], pl.BF16] = pl.tile.store(y, [0, 0], output)
        return stored
"#;

/// `explain --all --compat` lists the sharings the rules it names refuse,
/// not those of every seed rule.
#[test]
fn explain_lists_the_sharings_the_compat_rules_refuse() {
    let d = scratch("compat-refused");
    let input = write(&d, "narrow.py", NARROW_AFTER_ROW_MAX);
    let text = |cast: &str, buffers: &str| {
        format!(
            "k/Vec: fits: planner pypto uses 33024 bytes, capacity 188416
  peak: line 9 (m = tile.create)
  live at the peak: 2 tiles, 32768 bytes
    m     16384 bytes  [64, 64] FP32  line 9
    x     16384 bytes  [64, 64] FP32  line 8
  lower bound: 32768 co-live + 0 reserved = 32768 bytes <= capacity 188416
  sharings the lifetimes allow but a rule refuses:
{cast}    m and r (256 bytes): no-alias rule of tile.row_max at line 10 (its output may not share its input's bytes)
    r and d (256 bytes): no-alias rule of tile.row_expand_sub at line 11 (its output may not share its input's bytes)
  buffers: 3 for 5 tiles, each with its tiles in program order
{buffers}    mem_vec_4  [32768, 33024)  r
"
        )
    };
    let seed = text(
        "    d and y (8192 bytes): no-alias rule of tile.cast at line 12 (its output may not share its input's bytes)\n",
        "    mem_vec_2  [0, 16384)      x, d\n    mem_vec_3  [16384, 32768)  m, y\n",
    );
    let old = text(
        "",
        "    mem_vec_2  [0, 16384)      x, d, y\n    mem_vec_3  [16384, 32768)  m\n",
    );
    for (compat, want) in [("seed", seed), ("pypto-e2d0f78", old)] {
        let o = tilemem(&["explain", &input, "--all", "--compat", compat]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert_eq!(String::from_utf8(o.stdout).unwrap(), want, "{compat}");
    }
}

/// Two tiles and their results: the optimal planner's exact search puts
/// each result on its source (24 KiB); stopped at its first node it keeps
/// the canonical placement, every tile apart (48 KiB).
const LIMITS: &str = r#"# pypto.program: Limits
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
"#;

/// `explain --node-limit` holds for every part of the explanation: the
/// one line per fitting space, the buffers of --all and the map show the
/// plan the limit gave (they planned with the default limits before, so
/// `--all` said 49152 bytes above the buffers of a 24576-byte plan).
#[test]
fn explain_follows_the_node_limit_in_every_part() {
    let d = scratch("node-limit");
    let input = write(&d, "limits.py", LIMITS);
    for (limit, used, buffers) in [
        (
            "1",
            49152,
            "    mem_vec_2  [0, 16384)      t1
    mem_vec_4  [16384, 32768)  t3
    mem_vec_3  [32768, 40960)  t2
    mem_vec_5  [40960, 49152)  t4
",
        ),
        (
            "20000",
            24576,
            "    mem_vec_2  [0, 16384)      t1
    mem_vec_4  [0, 16384)      t3
    mem_vec_3  [16384, 24576)  t2
    mem_vec_5  [16384, 24576)  t4
",
        ),
    ] {
        let run = |extra: &[&str]| {
            let mut args = vec![
                "explain",
                &input,
                "--planner",
                "optimal",
                "--node-limit",
                limit,
            ];
            args.extend_from_slice(extra);
            let o = tilemem(&args);
            assert_eq!(o.status.code(), Some(0), "{o:?}");
            String::from_utf8(o.stdout).unwrap()
        };
        assert_eq!(
            run(&[]),
            format!(
                "every space fits its capacity (use --all to explain each)
  k/Vec: planner optimal uses {used} of 188416 bytes, lower bound 24576
"
            ),
            "{limit}"
        );
        let svg = d.join(format!("{limit}.svg"));
        assert_eq!(
            run(&["--all", "--map", svg.to_str().unwrap()]),
            format!(
                "k/Vec: fits: planner optimal uses {used} bytes, capacity 188416
  peak: line 9 (t2 = tile.load)
  live at the peak: 2 tiles, 24576 bytes
    t1     16384 bytes  [64, 64] FP32  line 8
    t2      8192 bytes  [32, 64] FP32  line 9
  lower bound: 24576 co-live + 0 reserved = 24576 bytes <= capacity 188416
  buffers: 4 for 4 tiles, each with its tiles in program order
{buffers}"
            ),
            "{limit}"
        );
        let svg = std::fs::read_to_string(&svg).unwrap();
        assert!(
            svg.contains(&format!(">4 buffers, {} KiB used of 184 KiB", used / 1024)),
            "{limit}: {svg}"
        );
    }
}
