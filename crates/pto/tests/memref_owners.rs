//! `MemrefOwners`, the table of MemRef owners the address pass and the
//! MessagePack writer ask about every variable: the same owners as
//! `memref_owner` walking from each variable, at one step per variable
//! (a chain of `n` views was `n²/2` steps: a 40,000-view chain took 20 s
//! in AllocateMemoryAddr).

mod common;

use common::program;
use tilemem_pto::ir::{EntityRef, Function, VarId};
use tilemem_pto::passes::rewrite::storage::{memref_owner, MemrefOwners};
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, print};
use tilemem_soc::Soc;

/// A window `r0` of a loaded tile, then `n` whole-source views of it,
/// each of the one before (`r{i} = tile.reshape(r{i-1})`), and bare
/// aliases and a loop carry at the end: every view holds `r0`'s MemRef.
fn chain(n: usize) -> String {
    let mut body = vec![
        "a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)".to_string(),
        "r0: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(a, [16, 8], [0, 8])".to_string(),
    ];
    for i in 1..=n {
        let shape = if i % 2 == 1 { "[8, 16]" } else { "[16, 8]" };
        body.push(format!(
            "r{i}: pl.Tile[{shape}, pl.FP32, pl.Mem.Vec] = pl.tile.reshape(r{}, {shape})",
            i - 1
        ));
    }
    let last = if n % 2 == 1 {
        body.push(format!(
            "r{}: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(r{n}, [16, 8])",
            n + 1
        ));
        n + 1
    } else {
        n
    };
    body.push(format!(
        "b1: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = r{last}"
    ));
    body.push("b2: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = b1".to_string());
    body.push("for i, (acc,) in pl.range(4, init_values=(b2,)):".to_string());
    body.push("    t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, acc)".to_string());
    body.push("    out: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(t)".to_string());
    body.push("s: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(out, [0, 0], y)".to_string());
    body.push("return s".to_string());
    let body: Vec<&str> = body.iter().map(String::as_str).collect();
    program(
        "InCore",
        "x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]",
        &body,
    )
}

/// The function of `chain(n)` after InitMemRef (the views take their
/// MemRefs).
fn init(n: usize) -> tilemem_pto::ir::Program {
    let mut p = parse(&chain(n)).expect("the chain reads");
    let mut cx = PassContext::new(Soc::ascend910b(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut cx, &[PassId::InitMemref]).expect("InitMemRef");
    p
}

fn var(f: &Function, name: &str) -> VarId {
    f.var_by_name(name)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

#[test]
fn the_table_gives_memref_owner_of_every_variable() {
    let p = init(300);
    let f = &p.functions[0];
    let mut owners = MemrefOwners::new(f);
    // In an order that meets chains from both ends.
    let mut vars: Vec<VarId> = f.vars.keys().collect();
    vars.sort_by_key(|v| (v.index() % 7, v.index()));
    for &v in &vars {
        assert_eq!(
            owners.get(f, v, |_, _| false),
            memref_owner(f, v, |_, _| false)
        );
    }
    // Every view and alias holds the window's object; the loop's own
    // tiles hold their own.
    let r0 = var(f, "r0");
    for name in ["r1", "r150", "r300", "b1", "b2"] {
        assert_eq!(owners.get(f, var(f, name), |_, _| false), r0, "{name}");
    }
    assert_eq!(owners.get(f, var(f, "t"), |_, _| false), var(f, "t"));
    // A pair kept apart cuts the chain there, in both.
    let (r100, r101) = (var(f, "r100"), var(f, "r101"));
    let apart = |x: VarId, y: VarId| (x, y) == (r101, r100);
    let mut cut = MemrefOwners::new(f);
    for &v in &vars {
        assert_eq!(cut.get(f, v, apart), memref_owner(f, v, apart));
    }
    assert_eq!(cut.get(f, var(f, "r250"), apart), r101);
    assert_eq!(cut.get(f, var(f, "r100"), apart), r0);
}

/// The work of the whole table is one step per variable whatever the
/// order of the questions (a walk per variable: n²/2 on this chain).
#[test]
fn every_owner_of_a_chain_of_ten_thousand_views_costs_one_step_each() {
    let p = init(10_000);
    let f = &p.functions[0];
    let n = f.vars.len();
    assert!(n > 10_000, "{n} variables");
    for order in [false, true] {
        let mut owners = MemrefOwners::new(f);
        let mut vars: Vec<VarId> = f.vars.keys().collect();
        if order {
            vars.reverse();
        }
        for v in vars {
            owners.get(f, v, |_, _| false);
        }
        assert!(
            owners.steps() <= n,
            "{} steps for {n} variables (reversed: {order})",
            owners.steps()
        );
    }
    // One walk from the chain's end, for scale: 10,000 steps alone.
    let mut one = MemrefOwners::new(f);
    assert_eq!(one.get(f, var(f, "r10000"), |_, _| false), var(f, "r0"));
    assert!(one.steps() > 10_000 && one.steps() <= n, "{}", one.steps());
}

/// The planner, which asks for every owner, plans the 10,000-view chain:
/// the views keep the window's bytes and the output plans to itself again.
#[test]
fn the_pypto_planner_plans_a_chain_of_ten_thousand_views() {
    let src = chain(10_000);
    let mut p = parse(&src).expect("reads");
    let soc = Soc::ascend910b();
    let opts = tilemem_pto::PlanOptions::new(soc, PlannerMode::Pypto);
    tilemem_pto::plan(&mut p, &opts).expect("plans");
    let once = print(&p);
    assert!(once.contains(
        "r10000: pl.Tile[[16, 8], pl.FP32, pl.MemRef(mem_vec_2, pl.const(32, pl.INT64), 992), pl.Mem.Vec] = pl.tile.reshape(r9999, [16, 8])"
    ), "{}", &once[..once.len().min(3000)]);
    let mut again = parse(&once).expect("the output reads");
    let opts = tilemem_pto::PlanOptions::new(Soc::ascend910b(), PlannerMode::Pypto);
    tilemem_pto::plan(&mut again, &opts).expect("plans again");
    assert_eq!(print(&again), once);
}
