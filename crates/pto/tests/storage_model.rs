//! How the model holds storage: MemRefs beside the shared tile type (in
//! their compact form when they can be) and allocation statements without
//! a call, each read and printed exactly as written.

use tilemem_pto::ir::*;
use tilemem_pto::{parse, print};

const ALLOCS: &str = "\
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 16384)]):
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512, pinned=True)  # declared
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64, pinned=False)
        mem_vec_4 = pl.tile.alloc(pl.Mem.Vec, 64)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32 * 2)
        a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.slice(a, [8, 64], [8, 0])
        c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_mat_2, pl.const(0, pl.INT64), 256, slots=2)[1], pl.Mem.Mat] = pl.tile.create([8, 8], dtype=pl.FP32, target_memory=pl.Mem.Mat)
        return x
";

fn var(f: &Function, name: &str) -> VarId {
    f.var_by_name(name)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

fn kinds(f: &Function) -> Vec<&'static str> {
    f.body
        .iter()
        .map(|&s| match f.stmts[s].kind {
            StmtKind::Alloc { .. } => "alloc",
            StmtKind::Assign { .. } => "assign",
            _ => "other",
        })
        .collect()
}

#[test]
fn the_exact_alloc_form_is_held_without_a_call_and_prints_the_same() {
    let p = parse(ALLOCS).unwrap();
    assert_eq!(print(&p), ALLOCS);
    let f = &p.functions[0];
    // `pinned=False`, an untyped target and a computed size stay calls.
    assert_eq!(
        kinds(f)[..5],
        ["alloc", "alloc", "assign", "assign", "assign"]
    );
    let allocs = f.allocs();
    let got: Vec<(&str, MemSpace, u64, bool)> = allocs
        .iter()
        .map(|a| (&*f.vars[a.var].name, a.space, a.size, a.pinned))
        .collect();
    // A computed size is not an allocation `allocs` can size.
    assert_eq!(
        got,
        [
            ("mem_vec_1", MemSpace::Vec, 16384, false),
            ("mem_mat_2", MemSpace::Mat, 512, true),
            ("mem_vec_3", MemSpace::Vec, 64, false),
            ("mem_vec_4", MemSpace::Vec, 64, false),
        ]
    );
    let s = allocs[1].stmt;
    assert_eq!(f.stmts[s].def(), Some(var(f, "mem_mat_2")));
    assert_eq!(f.stmts[s].targets(), &[var(f, "mem_mat_2")]);
    assert_eq!(f.comment(s), Some(" declared"));
    assert!(f.stmts[s].call().is_none());
    let mut uses = 0;
    f.stmts[s].for_each_use(&mut |_| uses += 1);
    assert_eq!(uses, 0);
}

#[test]
fn inserted_allocs_print_as_pypto_writes_them_and_removal_releases() {
    let mut p = parse(ALLOCS).unwrap();
    let f = &mut p.functions[0];
    let v = f.insert_alloc(0, "mem_left_9", &MemSpace::Left, 4096, true);
    let s = f.body[0];
    assert_eq!(
        f.stmts[s].kind,
        StmtKind::Alloc {
            var: v,
            space: MemSpace::Left,
            size: 4096,
            pinned: true
        }
    );
    let text = print(&p);
    assert!(text.contains(
        "\n        mem_left_9: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096, pinned=True)\n        mem_vec_1:"
    ));
    // Removing a statement unlinks it and drops what it held.
    let f = &mut p.functions[0];
    let store = f.body[8];
    assert!(f.stmts[store].call().is_some());
    assert!(f.remove(Block::Body, store));
    assert_eq!(f.stmts[store].kind, StmtKind::Blank);
    assert!(!f.remove(Block::Body, store));
    let second = f.body[2];
    f.remove_where(Block::Body, |x| x == s || x == second);
    assert_eq!(f.comment(second), None);
    assert_eq!(f.allocs().len(), 3);
    assert!(!print(&p).contains("mem_left_9: pl.Ptr"));
}

#[test]
fn memrefs_keep_every_part_in_either_form() {
    let p = parse(ALLOCS).unwrap();
    let f = &p.functions[0];
    let memref = |name: &str| f.ty(var(f, name)).and_then(Type::memref).unwrap().clone();
    let root = var(f, "mem_vec_1");
    let a = memref("a");
    assert_eq!(a, MemRef::new(MemBase::Var(root), 0, 16384));
    assert_eq!(
        (a.base(), a.base_var(), a.base_name()),
        (MemBase::Var(root), Some(root), None)
    );
    assert_eq!(
        (a.offset(), a.size()),
        (Some(Expr::const_i64(0)), Some(16384))
    );
    // A bare integer offset is kept as written, not as `pl.const`.
    let b = memref("b");
    assert_eq!(
        (b.offset(), b.const_offset()),
        (Some(Expr::Int(2048)), Some(2048))
    );
    assert!(b.same_base(&a));
    let c = memref("c");
    assert_eq!((c.slots(), c.slot_index()), (Some(2), Some(&Expr::Int(1))));
    assert!(!c.same_base(&a));
    let x = f.ty(f.params[0].var).and_then(Type::memref).unwrap();
    assert_eq!(x.base_name(), Some("mem_ddr_0"));
    assert_eq!(x.base_var(), None);
    // The parts rebuild the same MemRef, whichever form it is held in.
    for m in [&a, &b, &c, x] {
        assert_eq!(&MemRef::from(m.parts()), m);
    }
    // Values past 32 bits are kept too.
    let big = MemRef::new(MemBase::Var(root), 1 << 40, 1 << 33);
    assert_eq!(
        (big.const_offset(), big.size(), big.offset()),
        (Some(1 << 40), Some(1 << 33), Some(Expr::const_i64(1 << 40)))
    );
    // Changing the offset keeps the rest; back to a constant, the MemRef
    // equals one built directly.
    let mut m = a.clone();
    m.set_offset(Some(Expr::Var(root)));
    assert_eq!((m.const_offset(), m.size()), (None, Some(16384)));
    assert_ne!(m, a);
    m.set_offset(Some(Expr::const_i64(0)));
    assert_eq!(m, a);
}

#[test]
fn setting_storage_copies_no_shared_tile_type() {
    let src = "\
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32]):
        a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
        b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        return x
";
    let mut p = parse(src).unwrap();
    let f = &mut p.functions[0];
    let (a, b) = (var(f, "a"), var(f, "b"));
    let root = f.insert_alloc(0, "mem_vec_0", &MemSpace::Vec, 16384, false);
    for (v, off) in [(a, 0), (b, 64)] {
        *f.vars[v].ty.as_mut().and_then(Type::memref_mut).unwrap() =
            Some(MemRef::new(MemBase::Var(root), off, 256));
    }
    let tile = |f: &Function, v| f.ty(v).and_then(Type::as_tile).unwrap() as *const TileType;
    assert!(std::ptr::eq(tile(f, a), tile(f, b)));
    let text = print(&p);
    assert!(text.contains("b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(64, pl.INT64), 256), pl.Mem.Vec] = pl.tile.exp(a)"));
}

#[test]
fn shrinking_drops_only_the_unreferenced_tail_of_the_arenas() {
    let mut p = parse(ALLOCS).unwrap();
    let f = &mut p.functions[0];
    let (vars, stmts) = (f.vars.len(), f.stmts.len());
    let a = var(f, "a");
    let roots: Vec<VarId> = (0..3)
        .map(|k| f.insert_alloc(0, &format!("mem_acc_{k}"), &MemSpace::Acc, 512, false))
        .collect();
    *f.vars[a].ty.as_mut().and_then(Type::memref_mut).unwrap() =
        Some(MemRef::new(MemBase::Var(roots[1]), 0, 512));
    let dead: Vec<StmtId> = [roots[0], roots[2]]
        .iter()
        .map(|&r| match f.vars[r].def {
            VarDef::Stmt(s) => s,
            _ => panic!("an alloc defines its variable"),
        })
        .collect();
    f.remove_where(Block::Body, |s| dead.contains(&s));
    let before = print(&p);
    let f = &mut p.functions[0];
    f.shrink_arenas();
    // `mem_acc_2` and its statement were last and unused: gone. `mem_acc_0`
    // is unused too but lies below `mem_acc_1`, which `a` names.
    assert_eq!((f.vars.len(), f.stmts.len()), (vars + 2, stmts + 2));
    assert_eq!(f.vars.get(roots[2]), None);
    assert_eq!(&*f.vars[roots[0]].name, "mem_acc_0");
    assert_eq!(print(&p), before);
    // Nothing left to drop: a second call changes nothing.
    let f = &mut p.functions[0];
    f.shrink_arenas();
    assert_eq!((f.vars.len(), f.stmts.len()), (vars + 2, stmts + 2));
}

#[test]
fn a_statement_added_after_shrinking_inherits_no_comment_or_position() {
    let mut p = parse(ALLOCS).unwrap();
    let f = &mut p.functions[0];
    let n = f.stmts.len();
    // A statement no block names, with a comment and a position.
    let orphan = f.new_stmt(StmtKind::Blank);
    f.set_comment(orphan, Some(" stale"));
    f.set_pos(orphan, Pos { line: 7, col: 3 });
    assert_eq!(f.comment(orphan), Some(" stale"));
    f.shrink_arenas();
    assert_eq!(f.stmts.len(), n);
    let fresh = f.new_stmt(StmtKind::Blank);
    assert_eq!(fresh, orphan, "the dropped id is handed out again");
    assert_eq!(f.comment(fresh), None);
    assert_eq!(f.pos_of(fresh), Pos::default());
}

#[test]
fn memory_reuse_gives_the_merged_allocations_back() {
    use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
    let src = "\
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
        b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(b)
        d: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(c)
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(d)
        out: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(e, [0, 0], y)
        return out
";
    let mut p = parse(src).unwrap();
    let mut cx = PassContext::new(tilemem_soc::Soc::ascend950(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut cx, &[PassId::InitMemref]).unwrap();
    let (vars, stmts) = (p.functions[0].vars.len(), p.functions[0].stmts.len());
    assert_eq!(p.functions[0].allocs().len(), 5);
    run_pipeline(&mut p, &mut cx, &[PassId::MemoryReuse]).unwrap();
    let f = &p.functions[0];
    let kept = f.allocs();
    assert!(kept.len() < 5, "{kept:?}");
    // The merged roots were the last variables and statements.
    let last = kept.iter().map(|a| a.var.index()).max().unwrap();
    assert_eq!(f.vars.len(), last + 1);
    assert!(f.vars.len() < vars && f.stmts.len() < stmts);
    // What remains prints and plans as a fresh read of its text does.
    let text = print(&p);
    let mut again = parse(&text).unwrap();
    run_pipeline(&mut again, &mut cx, &[PassId::MemoryReuse]).unwrap();
    run_pipeline(&mut p, &mut cx, &[PassId::MemoryReuse]).unwrap();
    assert_eq!(print(&p), print(&again));
    assert_eq!(print(&p), text);
}
