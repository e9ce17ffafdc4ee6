//! PyPTO e2d0f78's behaviour where the seeds are silent, one rule each
//! (the rules of PyPTO's behaviour notes, `reference/pypto/behaviour.md`
//! in the shared folder, that the passes gained last), on the repository's own programs.

mod common;

use common::{program, HEAD};
use tilemem_pto::ir::{MemRef, Type};
use tilemem_pto::passes::{ErrorKind, PassId, PlannerMode};
use tilemem_pto::{parse, plan, print, PlanOptions};
use tilemem_soc::Soc;

fn opts(target: &str, planner: PlannerMode) -> PlanOptions {
    PlanOptions::new(Soc::from_name(target).unwrap(), planner)
}

/// A function whose body is a bare `...` (an abstract SubWorker bound at
/// run time) is read, left alone by every pass of every planner, and
/// printed back as `...`; the functions beside it are planned.
#[test]
fn an_abstract_function_is_left_alone() {
    let abstract_fn = "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n    def worker(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n        ...\n";
    let concrete = "    @pl.function(type=pl.FunctionType.InCore)\n    def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)\n        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(a, [0, 0], y)\n        return r\n";
    for src in [
        format!("{HEAD}{abstract_fn}{concrete}"),
        format!("{HEAD}{concrete}{abstract_fn}"),
    ] {
        let p = parse(&src).expect("an abstract function reads");
        assert_eq!(print(&p), src, "prints back as read");
        for planner in [
            PlannerMode::Pypto,
            PlannerMode::DsaRp,
            PlannerMode::Optimal,
            PlannerMode::Ptoas,
        ] {
            let mut q = p.clone();
            plan(&mut q, &opts("910b", planner)).unwrap();
            let out = print(&q);
            assert!(out.contains(abstract_fn), "{}: {out}", planner.name());
            assert!(out.contains("pl.MemRef(mem_vec_"), "{out}");
        }
    }
}

/// DSA_RP's recognizer: a `tile.assemble` that provably writes its whole
/// target (the source has the target's shape, every offset is 0, the
/// result is on the target's allocation) does not read the target, so
/// the target's first access is that write: the root qualifies for
/// penalties with the assemble's pipe as its head. With a non-zero offset
/// the assemble reads the target first and the root does not qualify.
#[test]
fn a_whole_assemble_writes_its_target_without_reading_it() {
    let run = |offset: &str| -> String {
        let src = program(
            "InCore",
            "self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]",
            &[
                "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)",
                "mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)",
                "s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)",
                "t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)",
                &format!("r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.assemble(t, s, [{offset}, 0])"),
                "o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(r, [0, 0], y)",
                "return o",
            ],
        );
        let dir =
            std::env::temp_dir().join(format!("tilemem-assemble-{}-{offset}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut p = parse(&src).unwrap();
        let mut o = opts("910b", PlannerMode::DsaRp);
        o.passes = Some(vec![PassId::AllocateMemoryAddr]);
        o.dsa.export_dir = Some(dir.clone());
        plan(&mut p, &o).unwrap();
        let side = std::fs::read_to_string(dir.join("main.Vec.dsa.txt")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        side.lines()
            .find(|l| l.starts_with("mem_vec_0,"))
            .unwrap_or_default()
            .to_string()
    };
    // id,start,end,qualifies,poisoned,head,...
    let whole = run("0");
    assert!(whole.contains(",true,false,V,"), "{whole}");
    let partial = run("8");
    assert!(!partial.contains(",true,"), "{partial}");
}

/// An allocation a free variable (PyPTO prints one as `NAME__FREE_VAR`)
/// names in its type, and nothing else names, is kept by MemoryReuse and
/// AllocateMemoryAddr (the variable still refers to it) and given an
/// address, under every planner.
#[test]
fn an_allocation_named_only_by_a_free_variable_is_kept() {
    let src = program(
        "InCore",
        "self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)",
            "mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)",
            "a: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(a, t__FREE_VAR)",
            "r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    );
    for planner in [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal] {
        let mut p = parse(&src).unwrap();
        // The type a reader of PyPTO's MessagePack form gives the free
        // variable (the text form prints none).
        let f = &mut p.functions[0];
        let free = f.var_by_name("t__FREE_VAR").expect("a free variable");
        let mut ty = f.ty(f.var_by_name("a").unwrap()).cloned().unwrap();
        let root = f.var_by_name("mem_vec_1").unwrap();
        if let Some(m) = ty.memref_mut() {
            *m = Some(MemRef::new(tilemem_pto::ir::MemBase::Var(root), 0, 1024));
        }
        f.vars[free].ty = Some(ty);
        let mut o = opts("910b", planner);
        o.passes = Some(
            PassId::default_pipeline(planner)
                .into_iter()
                .filter(|&q| q != PassId::InitMemref)
                .collect(),
        );
        plan(&mut p, &o).unwrap_or_else(|e| panic!("{}: {}", planner.name(), e.error));
        let f = &p.functions[0];
        assert!(
            print(&p).contains("mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)"),
            "{}: {}",
            planner.name(),
            print(&p)
        );
        let free = f.var_by_name("t__FREE_VAR").unwrap();
        let at = f.vars[free]
            .ty
            .as_ref()
            .and_then(Type::memref)
            .and_then(MemRef::const_offset);
        let a = f.var_by_name("a").unwrap();
        let a_at = f.vars[a]
            .ty
            .as_ref()
            .and_then(Type::memref)
            .and_then(MemRef::const_offset);
        assert!(
            at.is_some() && at != a_at,
            "{}: {at:?} {a_at:?}",
            planner.name()
        );
    }
}

/// A yield fix-up copy is named from its source's name hint (the name
/// without the printer's de-duplication suffix) plus `_mv`, then made
/// unique like any name: `x_1` copied gives `x_mv`, and a second copy
/// `x_mv_1`, never `x_1_mv`.
#[test]
fn a_yield_copy_is_named_from_the_name_hint() {
    let tile = |root: &str| {
        format!("pl.Tile[[16, 16], pl.FP32, pl.MemRef({root}, pl.const(0, pl.INT64), 1024), pl.Mem.Vec]")
    };
    let src = program(
        "InCore",
        "self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)",
            "mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)",
            "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)",
            "mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)",
            "mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)",
            &format!("v: {} = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)", tile("mem_vec_0")),
            &format!("w: {} = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)", tile("mem_vec_1")),
            "for i, (p, q) in pl.range(2, init_values=(v, w)):",
            &format!("    v_1: {} = pl.tile.recip(p)", tile("mem_vec_2")),
            &format!("    v_2: {} = pl.tile.recip(q)", tile("mem_vec_3")),
            &format!("    o: {} = pl.tile.add(p, q)", tile("mem_vec_4")),
            "    r, s = pl.yield_(v_1, v_2)",
            "t: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(r, [0, 0], y)",
            "return t",
        ],
    );
    let mut p = parse(&src).unwrap();
    let mut o = opts("910b", PlannerMode::DsaRp);
    o.passes = Some(vec![PassId::MaterializeSemanticAliases]);
    plan(&mut p, &o).unwrap();
    let out = print(&p);
    assert!(out.contains("v_mv: "), "{out}");
    assert!(out.contains("v_mv_1: "), "{out}");
    assert!(!out.contains("v_1_mv") && !out.contains("v_2_mv"), "{out}");
}

/// Under DSA_RP, AllocateMemoryAddr does no yield fix-up and no
/// accumulator if-phi check of its own (MaterializeSemanticAliases runs
/// them earlier): a divergent accumulator phi handed to it is placed like
/// any other allocations.
#[test]
fn dsa_rp_addresses_a_divergent_accumulator_phi_as_it_is() {
    let acc = |root: &str| {
        format!("pl.Tile[[16, 16], pl.FP32, pl.MemRef({root}, pl.const(0, pl.INT64), 1024), pl.Mem.Acc]")
    };
    let src = program(
        "InCore",
        "self, x: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], k: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "mem_left_0: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)",
            "mem_right_1: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512)",
            "mem_acc_2: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)",
            "mem_acc_3: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)",
            "l: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_left_0, pl.const(0, pl.INT64), 512), pl.Mem.Left] = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Left)",
            "r: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_right_1, pl.const(0, pl.INT64), 512), pl.Mem.Right] = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Right)",
            "if k < 1:",
            &format!("    a: {} = pl.tile.matmul(l, r)", acc("mem_acc_2")),
            &format!("    c: {} = pl.yield_(a)", acc("mem_acc_2")),
            "else:",
            &format!("    b: {} = pl.tile.matmul(l, r)", acc("mem_acc_3")),
            &format!("    c: {} = pl.yield_(b)", acc("mem_acc_2")),
            "o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], y)",
            "return o",
        ],
    );
    let mut p = parse(&src).unwrap();
    let mut o = opts("950", PlannerMode::DsaRp);
    o.passes = Some(vec![PassId::AllocateMemoryAddr]);
    plan(&mut p, &o).expect("placed as it is");
    // Both accumulators keep their own allocation (no copy, no retarget).
    let out = print(&p);
    assert!(out.contains("mem_acc_3: pl.Ptr"), "{out}");
    assert!(!out.contains("pl.tile.move("), "{out}");
}

/// A capacity error that a reserved window larger than its space causes
/// says so, under both planners.
#[test]
fn a_reserve_larger_than_its_space_says_so() {
    let src = program(
        "InCore",
        "self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]",
        &[
            "_r: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='ring', size=200000, base=-1)",
            "a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    );
    for planner in [PlannerMode::Pypto, PlannerMode::DsaRp] {
        let mut p = parse(&src).unwrap();
        let e = plan(&mut p, &opts("910b", planner)).unwrap_err().error;
        assert_eq!(e.kind, ErrorKind::Planning);
        assert!(e.is_capacity(), "{e}");
        assert!(
            e.message.contains(
                "The reserved windows alone end at byte 200000, beyond the 188416 bytes of the \
                 space: shrink them (size=) so that they fit"
            ),
            "{}: {e}",
            planner.name()
        );
    }
}
