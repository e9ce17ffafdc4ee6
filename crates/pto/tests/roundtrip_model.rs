//! The program model as the reader builds it (name resolution, loop and
//! if results, allocations) and as passes edit it (the printed text shows
//! every edit).

use tilemem_pto::ir::*;
use tilemem_pto::{parse, print};

const CONTROL: &str = include_str!("data/canonical/control_flow.py");
const CHAIN: &str = include_str!("data/canonical/vector_chain.py");
const MISC: &str = include_str!("data/canonical/misc.py");

fn var(f: &Function, name: &str) -> VarId {
    f.var_by_name(name)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

#[test]
fn names_resolve_to_their_latest_definition() {
    let src = "@pl.program\nclass P:\n    @pl.function\n    def f(x):\n        x = pl.tile.add(x, x)\n        y = pl.tile.exp(x)\n        return y\n";
    let p = parse(src).unwrap();
    let f = &p.functions[0];
    let [param, redef] = [0, 1].map(VarId::new);
    assert_eq!(f.vars[param].def, VarDef::Param(0));
    assert_eq!(&*f.vars[redef].name, "x");
    let s0 = f.body[0];
    let StmtKind::Assign { targets, value } = &f.stmts[s0].kind else {
        panic!()
    };
    assert_eq!(targets, &vec![redef]);
    // The right-hand side reads the parameter, not the new `x`.
    assert_eq!(
        *value.as_call().unwrap().args,
        [Expr::Var(param), Expr::Var(param)]
    );
    let s1 = f.body[1];
    assert_eq!(*f.stmts[s1].call().unwrap().args, [Expr::Var(redef)]);
}

#[test]
fn loops_and_ifs_carry_their_results() {
    let p = parse(CONTROL).unwrap();
    let f = &p.functions[0];
    assert_eq!(f.kind(), FunctionKind::InCore);
    assert!(f.kind().is_kernel());
    assert_eq!(
        f.params.iter().map(|p| p.dir).collect::<Vec<_>>(),
        [ParamDir::In, ParamDir::In, ParamDir::InOut]
    );
    let for_id = f.body[1];
    let StmtKind::For(l) = &f.stmts[for_id].kind else {
        panic!("not a loop")
    };
    assert_eq!(l.kind(), LoopKind::Range);
    assert_eq!(l.init_values(), &[Expr::Var(var(f, "init"))]);
    let acc = l.iter_args[0];
    assert_eq!(f.vars[acc].def, VarDef::IterArg(for_id));
    assert_eq!(f.vars[l.loop_var.unwrap()].def, VarDef::LoopVar(for_id));
    let nxt = var(f, "nxt");
    assert_eq!(l.results, vec![nxt]);
    assert_eq!(f.vars[nxt].def, VarDef::Stmt(for_id));
    // The if inside the loop: both branches yield into the same `r`.
    let if_id = l.body[1];
    let StmtKind::If(i) = &f.stmts[if_id].kind else {
        panic!("not an if")
    };
    let r = var(f, "r");
    assert_eq!(i.results, vec![r]);
    assert_eq!(f.vars.iter().filter(|(_, d)| &*d.name == "r").count(), 1);
    assert_eq!(f.yield_index(Block::Then(if_id)), Some(1));
    assert_eq!(f.yield_index(Block::Else(if_id)), Some(1));
    // `u` reads the iter arg.
    let u_stmt = i.then_body[0];
    assert_eq!(f.stmts[u_stmt].call().unwrap().args[0], Expr::Var(acc));
    // Multi-result loops, while loops.
    let two = &f.stmts[f.body[2]].kind;
    let StmtKind::For(l2) = two else { panic!() };
    assert_eq!(
        l2.results
            .iter()
            .map(|&v| &*f.vars[v].name)
            .collect::<Vec<_>>(),
        ["p_out", "q_out"]
    );
    let StmtKind::For(w) = &f.stmts[f.body[4]].kind else {
        panic!()
    };
    assert_eq!(w.kind(), LoopKind::While);
    assert_eq!(w.loop_var, None);
    assert_eq!(w.init_values(), &[Expr::Var(var(f, "p_out"))]);
}

#[test]
fn walk_is_pre_order_through_nested_blocks() {
    let p = parse(CONTROL).unwrap();
    let f = &p.functions[0];
    let order: Vec<String> = f
        .walk()
        .iter()
        .take(9)
        .map(|&(_, s)| match &f.stmts[s].kind {
            StmtKind::Assign { targets, .. } => f.vars[targets[0]].name.to_string(),
            StmtKind::For(_) => "for".into(),
            StmtKind::If(_) => "if".into(),
            StmtKind::Yield(_) => "yield".into(),
            _ => "other".into(),
        })
        .collect();
    assert_eq!(
        order,
        ["init", "for", "t", "if", "u", "yield", "v", "yield", "yield"]
    );
}

#[test]
fn memrefs_resolve_to_alloc_variables() {
    let p = parse(CHAIN).unwrap();
    let f = &p.functions[0];
    let allocs = f.allocs();
    assert_eq!(allocs.len(), 2);
    assert_eq!(
        (allocs[0].space, allocs[0].size, allocs[0].pinned),
        (MemSpace::Vec, 16384, false)
    );
    let b = f.ty(var(f, "b")).unwrap();
    let m = b.memref().unwrap();
    assert_eq!(m.base_var(), Some(allocs[1].var));
    assert_eq!(m.const_offset(), Some(16384));
    assert_eq!(m.size(), Some(16384));
    assert_eq!(b.as_tile().unwrap().static_bytes(), Some(16384));
    assert_eq!(b.as_tile().unwrap().extras.len(), 1);
    let x = f.ty(f.params[0].var).unwrap().memref().unwrap();
    assert_eq!(x.base(), MemBase::Named("mem_ddr_0".into()));
    assert_eq!(x.base_name(), Some("mem_ddr_0"));
    assert_eq!(p.functions[1].kind(), FunctionKind::Orchestration);
    assert!(p.functions[1].has_self);
    assert_eq!(
        p.functions[1].stmts[p.functions[1].body[1]]
            .call()
            .unwrap()
            .func
            .as_ref(),
        "self.kernel"
    );
}

#[test]
fn slotted_memrefs_and_reserved_buffers() {
    let p = parse(MISC).unwrap();
    let f = &p.functions[0];
    let allocs = f.allocs();
    assert!(allocs[0].pinned);
    let acc = f.ty(var(f, "acc")).unwrap().memref().unwrap();
    assert_eq!(acc.slots(), Some(2));
    assert!(matches!(
        acc.slot_index(),
        Some(Expr::Binary(BinOp::Mod, _, _))
    ));
    let d = f.ty(var(f, "d")).unwrap().memref().unwrap();
    assert_eq!((d.offset(), d.size(), d.slots()), (None, None, Some(2)));
    let s = f.ty(var(f, "s")).unwrap().memref().unwrap();
    assert_eq!(s.const_offset(), None);
    let reserve = f.walk().into_iter().find_map(|(_, s)| {
        f.stmts[s]
            .call()
            .filter(|c| c.op_name() == "system.reserve_buffer")
            .map(|_| s)
    });
    let c = f.stmts[reserve.unwrap()].call().unwrap();
    assert_eq!(c.kwarg("name").and_then(Expr::as_str), Some("ring"));
    assert_eq!(c.kwarg("base").and_then(Expr::as_int), Some(-1));
}

#[test]
fn edits_show_in_the_printed_program() {
    let mut p = parse(CHAIN).unwrap();
    let f = &mut p.functions[0];
    // Share one buffer: retarget `b` onto the first alloc, drop the second.
    let allocs = f.allocs();
    let b = var(f, "b");
    if let Some(slot) = f.vars[b].ty.as_mut().and_then(Type::memref_mut) {
        *slot = Some(MemRef::new(MemBase::Var(allocs[0].var), 0, 16384));
    }
    assert!(f.remove(Block::Body, allocs[1].stmt));
    // Rename a variable everywhere.
    let a = var(f, "a");
    f.vars[a].name = "a_renamed".into();
    // A new pinned alloc at the top.
    f.insert_alloc(0, "mem_vec_9", &MemSpace::Vec, 512, true);
    let out = print(&p);
    assert!(out.contains("        mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512, pinned=True)\n        mem_vec_2: pl.Ptr"));
    assert!(!out.contains("mem_vec_3"));
    assert!(out.contains("b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec, pl.TileView("));
    assert!(out.contains("= pl.tile.muls(a_renamed, -1.0)"));
    assert_eq!(print(&parse(&out).unwrap()), out);
}

#[test]
fn moves_inserted_before_a_yield_and_rewritten_kwargs() {
    let mut p = parse(CONTROL).unwrap();
    let f = &mut p.functions[0];
    let for_id = f.body[1];
    let b = Block::Loop(for_id);
    let at = f.yield_index(b).unwrap();
    let r = var(f, "r");
    let ty = f.vars[r].ty.clone();
    let mv = f.new_var("r_mv", ty, VarDef::Free);
    let mut call = Call::new("pl.tile.move", vec![Expr::Var(r)]);
    call.set_kwarg("target_memory", Expr::mem_space(&MemSpace::Vec));
    let s = f.insert(
        b,
        at,
        StmtKind::Assign {
            targets: mv.into(),
            value: Expr::call(call),
        },
    );
    f.vars[mv].def = VarDef::Stmt(s);
    let y = f.block(b)[at + 1];
    let StmtKind::Yield(vals) = &mut f.stmts[y].kind else {
        panic!()
    };
    vals[0] = Expr::Var(mv);
    let out = print(&p);
    assert!(out.contains(
        "            r_mv: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(r, target_memory=pl.Mem.Vec)\n            nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(r_mv)\n"
    ), "{out}");

    let mut p = parse(MISC).unwrap();
    let f = &mut p.functions[0];
    for (_, s) in f.walk() {
        if let Some(c) = f.stmts[s]
            .call_mut()
            .filter(|c| c.op_name() == "system.reserve_buffer")
        {
            c.set_kwarg("base", Expr::Int(8192));
        }
    }
    assert!(print(&p).contains("pl.system.reserve_buffer(name='ring', size=4096, base=8192)"));
}

#[test]
fn side_tables_default_and_grow() {
    let p = parse(CHAIN).unwrap();
    let f = &p.functions[0];
    let mut live: SecondaryMap<VarId, u32> = SecondaryMap::new();
    let last = f.vars.keys().last().unwrap();
    assert_eq!(live[last], 0);
    live[last] = 7;
    assert_eq!(live[last], 7);
    assert_eq!(live[VarId::new(0)], 0);
}

#[test]
fn an_empty_else_branch_is_not_printed() {
    let mut p = parse(CONTROL).unwrap();
    let f = &mut p.functions[0];
    let if_id = f
        .walk()
        .into_iter()
        .map(|(_, s)| s)
        .find(|&s| matches!(&f.stmts[s].kind, StmtKind::If(i) if i.else_body.is_none()))
        .unwrap();
    assert_eq!(f.block_mut(Block::Else(if_id)).map(|b| b.len()), Some(0));
    assert_eq!(print(&p), CONTROL);
}
