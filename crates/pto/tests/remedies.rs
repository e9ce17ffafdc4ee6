//! Remedies that find something: a kernel's shared tile size, and a move
//! of one statement that keeps every dependency, each confirmed by
//! re-planning (`tilemem explain`).

use tilemem_pto::explain::{explain, reorder};
use tilemem_pto::ir::Block;
use tilemem_pto::passes::PlannerMode;
use tilemem_soc::{MemSpace, Soc};

const OVER: &str = include_str!("../../../examples/pto/over_capacity.py");

/// 128 x 128 FP32 tiles (64 KiB): `b` is loaded early but read last, so
/// `a`, `b` and the scratch `t` are live together at the row_max (192 KiB
/// and more, over the 184 KiB of a 910B vector buffer).
const EARLY_LOAD: &str = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[128, 128], pl.FP32], y: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        a: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        b: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        m: pl.Tile[[128, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(a, t)
        s: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(a, m)
        r: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(s, b)
        st: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(r, [0, 0], out)
        return st
"#;

#[test]
fn the_list_scheduler_moves_the_early_load_and_replanning_confirms_it() {
    let program = tilemem_pto::parse(EARLY_LOAD).unwrap();
    let f = &program.functions[0];
    let moves = reorder::candidates(f, MemSpace::Vec, &Soc::ascend910b(), 4);
    let first = moves.first().expect("a move lowers the model's peak");
    // `b`'s load (body index 1) goes after the row_max, before its use.
    assert_eq!(first.from, 1);
    assert!(first.to >= 2, "{first:?}");
    assert!(first.peak_after < first.peak_before, "{first:?}");
    // Nothing moves past the store or the return.
    let body = f.block(Block::Body);
    for m in &moves {
        assert!(m.to < body.len() - 2, "{m:?}");
    }
    let soc = Soc::ascend910b();
    let ex = explain(&program, &soc, PlannerMode::Pypto, false, Some(400)).unwrap();
    let s = &ex.spaces[0];
    assert!(!s.fits);
    let r = s
        .remedies
        .iter()
        .find(|r| {
            r.change
                .starts_with("move line 9 (`b = tile.load`) after line")
        })
        .unwrap_or_else(|| panic!("{:#?}", s.remedies));
    assert!(r.bytes_after <= 188_416, "{r:?}");
    // A change of order comes before any change of size.
    let first_size = s
        .remedies
        .iter()
        .position(|r| r.change.starts_with("use tiles") || r.change.starts_with("shrink"));
    let mv = s
        .remedies
        .iter()
        .position(|r| r.change.starts_with("move line 9"));
    assert!(mv < first_size, "{:#?}", s.remedies);
    assert!(
        r.change
            .contains("it keeps every data and side-effect dependency"),
        "{}",
        r.change
    );
}

#[test]
fn a_store_or_a_pipe_never_moves_and_loads_stay_after_stores() {
    // A load after a store of the same tensor reads what it wrote: the
    // graph keeps it there, so the only moves are of the pure statements.
    let src = EARLY_LOAD.replace(
        "        b: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(y,",
        "        w: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(a, [0, 0], out)\n        b: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(out,",
    );
    let program = tilemem_pto::parse(&src).unwrap();
    let f = &program.functions[0];
    let body = f.block(Block::Body).to_vec();
    // The stores, the load of the stored tensor and the return, in order.
    let ordered = [body[1], body[2], body[7], body[8]];
    let moves = reorder::candidates(f, MemSpace::Vec, &Soc::ascend910b(), 64);
    for m in &moves {
        let mut g = f.clone();
        reorder::apply(&mut g, m);
        let after: Vec<_> = g
            .block(Block::Body)
            .iter()
            .copied()
            .filter(|x| ordered.contains(x))
            .collect();
        assert_eq!(after, ordered, "{m:?}");
    }
}

#[test]
fn the_over_capacity_example_gets_a_tile_size_and_other_remedies() {
    let program = tilemem_pto::parse(OVER).unwrap();
    let soc = Soc::ascend910b();
    let ex = explain(&program, &soc, PlannerMode::Pypto, false, Some(400)).unwrap();
    let s = &ex.spaces[0];
    assert!(!s.fits);
    let tile_size = s
        .remedies
        .iter()
        .find(|r| r.change.starts_with("use tiles of "))
        .unwrap_or_else(|| panic!("{:#?}", s.remedies));
    // The smaller change of the two tile dimensions (96 rows, 256 columns).
    assert!(
        tile_size
            .change
            .starts_with("use tiles of 244 instead of 256 in dimension 1"),
        "{}",
        tile_size.change
    );
    assert!(tile_size.bytes_after <= 188_416);
    assert!(ex.replans > 0 && ex.replans <= 400);
    assert_eq!(ex.budget, Some(400));
}

/// The reorder model sizes a tile as the planners store it: an Acc tile's
/// rows are padded to the target's fractal height (8 FP32 rows take 16 on
/// 910B, 1 KiB instead of 512 bytes), so the peaks it ranks moves by are
/// the bytes planning will find.
#[test]
fn the_reorder_model_pads_acc_rows_as_the_planners_do() {
    let src = r#"# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.Tensor[[8, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], o1: pl.Out[pl.Tensor[[8, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        a: pl.Tile[[8, 16], pl.FP16, pl.Mem.Left] = pl.tile.load(x, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Left)
        b: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.load(w, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Right)
        c: pl.Tile[[8, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        d: pl.Tile[[8, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        s1: pl.Tensor[[8, 16], pl.FP32] = pl.tile.store(c, [0, 0], o1)
        s2: pl.Tensor[[8, 16], pl.FP32] = pl.tile.store(d, [0, 0], o2)
        return s2
"#;
    let program = tilemem_pto::parse(src).unwrap();
    let f = &program.functions[0];
    let moves = reorder::candidates(f, MemSpace::Acc, &Soc::ascend910b(), 4);
    let first = moves
        .first()
        .expect("moving `d` past the first store halves the peak");
    assert_eq!((first.from, first.to), (3, 4));
    assert_eq!((first.peak_before, first.peak_after), (2048, 1024));
}
