//! Inputs the fuzz target `plan` (fuzz/) found, reduced by hand. Each
//! plans a program the reader accepts and reads the planned output back.
//! Ignored ones are open findings; `cargo test -- --ignored` runs them.

mod common;

use common::{program, TARGETS};
use tilemem_pto::passes::{run_pipeline, ErrorKind, PassContext, PassId, PlannerMode};
use tilemem_soc::Soc;

/// Plans `src` with the PYPTO planner on 910B and reads the output back.
fn plan_and_reread(src: &str) {
    let mut p = tilemem_pto::parse::parse(src).expect("the input reads");
    let mut ctx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut ctx, &PassId::ALL).expect("plans");
    let out = tilemem_pto::print::print(&p);
    if let Err(e) = tilemem_pto::parse::parse(&out) {
        panic!("planned output does not read back: {e}\n{out}");
    }
}

/// Reads `src` and returns the reader's error, rendered `line:col: message`.
fn read_error(src: &str) -> String {
    match tilemem_pto::parse::parse(src) {
        Ok(_) => panic!("the reader accepts:\n{src}"),
        Err(e) => e.to_string(),
    }
}

/// A dotted memory space (`pl.Mem.A.B`) once read, and init_memref named
/// its allocation `mem_a.b_2`, which is not an identifier, so the planned
/// program did not read back. PyPTO's MemorySpace enum is closed; the
/// reader rejects any other space at the annotation.
#[test]
fn dotted_memory_space_is_rejected_by_the_reader() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.A.B] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    );
    assert_eq!(read_error(&src), "8:37: unknown memory space `pl.Mem.A.B`");
}

/// The same program with a space PyPTO has plans and reads back.
#[test]
fn known_memory_space_plans_and_reads_back() {
    plan_and_reread(&program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    ));
}

/// `tile.store` returns the tensor it wrote; annotated as a Vec tile
/// instead, the program reads, the store's result gets the tensor's DDR
/// MemRef, and the placement check then sees the Vec tile `t` and the
/// output tensor's family at the same Vec bytes: "InternalError: placement
/// check failed ... this is a bug in the memory passes". Rule: a result
/// living in an argument's storage (views, `output_reuses_input`) lives in
/// that argument's space; InitMemRef reports the mismatch at the statement.
#[test]
fn store_result_typed_as_a_tile_is_not_an_internal_error() {
    let src = program(
        "AIV",
        "a: pl.Tensor[[64, 64], pl.FP32], output: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]",
        &[
            "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
            "e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.store(t, [0, 0], output)",
            "return e",
        ],
    );
    let mut p = tilemem_pto::parse::parse(&src).expect("the input reads");
    let mut ctx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    let e = run_pipeline(&mut p, &mut ctx, &PassId::ALL).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input, "{e}");
    assert_eq!(e.loc.map(|l| l.line), Some(9), "{e}");
    assert!(
        e.message.contains("'e' is annotated in Vec, but tile.store returns the storage of its argument 'output', which is in DDR"),
        "{e}"
    );
}

/// A memory space PyPTO does not have (`pl.Mem.Vac`) once read; the
/// address pass gave its roots no addresses, yet the report listed the
/// space as addressed with three live tiles at bytes [0, 256). The reader
/// now rejects the space, naming the valid ones.
#[test]
fn unknown_memory_space_is_rejected_by_the_reader() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
        &[
            "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vac] = pl.tile.exp(a)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    );
    assert_eq!(read_error(&src), "9:37: unknown memory space `pl.Mem.Vac`");
    let e = tilemem_pto::parse::parse(&src).unwrap_err();
    assert!(e.label.contains("Vec, Mat, Left, Right"), "{}", e.label);
}

/// A function whose only statement is an unused allocation: the passes
/// remove it, and the printer wrote `def main(self):` with nothing under
/// it, which the reader rejects (`expected an indented block`). An empty
/// body prints as `pass`, as PyPTO prints one, and planning it again
/// changes nothing.
#[test]
fn emptied_body_prints_as_pass_and_reads_back() {
    let src = program(
        "InCore",
        "self)",
        &["mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)"],
    );
    let plan = |src: &str| {
        let mut p = tilemem_pto::parse::parse(src).expect("the input reads");
        let mut ctx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
        run_pipeline(&mut p, &mut ctx, &PassId::ALL).expect("plans");
        tilemem_pto::print::print(&p)
    };
    let once = plan(&src);
    assert!(
        once.ends_with("    def main(self):\n        pass\n"),
        "empty body not printed as `pass`:\n{once}"
    );
    assert_eq!(plan(&once), once, "planning the output again changed it");
}

/// Found by the `plan` fuzz target's plan-twice oracle: a program with
/// addresses no layout gives (allocation `mem_vec_2` of 16385 bytes at 0,
/// `b` at 16384: the two allocations overlap) was taken as relative, `b`'s
/// window [16384, 32768) lay past its 16384-byte allocation, and `b` moved
/// on every re-plan (16384 -> 32800 -> 49216). The PYPTO planner then
/// refused such a window while DSA-RP and the optimal planner read `b` as
/// `mem_vec_3`'s lowest tile, its allocation's address. Every planner now
/// reads a planned program that way (tests/old_memrefs.rs): the PYPTO
/// planner plans it again from those offsets (`b` at 16416, after
/// `mem_vec_2`), and planning the output again changes nothing. A
/// window past its allocation from there is still refused
/// (`every_planner_rejects_a_window_past_its_allocation`). The program
/// reads as one after InitMemRef (its input tensor has storage), so the
/// planners read its MemRefs; without that, InitMemRef gives its tiles new
/// storage and no planner reads them
/// (`init_memref_replaces_a_window_past_its_allocation_under_every_planner`).
#[test]
fn a_planned_program_with_overlapping_allocations_is_a_fixed_point() {
    let src = |b_offset: u64| {
        program(
            "AIV",
            "x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]",
            &[
                "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16385)",
                "mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)",
                "a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
                &format!("b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const({b_offset}, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.muls(a, -1.0)"),
                "c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.adds(b, 1.0)",
                "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], y)",
                "return r",
            ],
        )
    };
    let planner = PlannerMode::Pypto;
    for (b_offset, b_planned) in [(16384, 16416), (0, 16416)] {
        let mut p = tilemem_pto::parse::parse(&src(b_offset)).unwrap();
        let mut ctx = PassContext::new(Soc::from_name("310b").unwrap(), planner);
        run_pipeline(&mut p, &mut ctx, &PassId::default_pipeline(planner)).unwrap();
        let once = tilemem_pto::print::print(&p);
        assert_eq!(common::tile_offset(&once, "b"), b_planned, "{once}");
        let mut again = tilemem_pto::parse::parse(&once).unwrap();
        let mut ctx = PassContext::new(Soc::from_name("310b").unwrap(), planner);
        run_pipeline(&mut again, &mut ctx, &PassId::default_pipeline(planner)).unwrap();
        assert_eq!(tilemem_pto::print::print(&again), once, "{planner:?}");
    }
}

const SIG: &str = "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]";
const LOAD: &str = "a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)";

/// `src` with its line `at` (1-based) replaced by `line`.
fn with_line(src: &str, at: usize, line: &str) -> String {
    let mut lines: Vec<&str> = src.lines().collect();
    lines[at - 1] = line;
    lines.join("\n") + "\n"
}

/// Found as `plan-unknown-pl-callee-not-idempotent`: calls of `pl.` names
/// PyPTO does not have (`pl.tiile.load`, `pl.MemR(...)` and `pl.eMeRmf(...)`
/// in a type) were read as opaque calls; planned, the output planned again
/// to another program (an allocation only such a call named was dropped).
/// A `pl.` callee is an op PyPTO registers or a call of its language; any
/// other is an error at the callee, with the closest name.
#[test]
fn unknown_pl_calls_are_reader_errors_with_the_closest_name() {
    let ok = program(
        "InCore",
        SIG,
        &[
            LOAD,
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    );
    plan_and_reread(&ok);
    let cases = [
        (
            LOAD.replace("pl.tile.load", "pl.tiile.load"),
            "8:51: unknown op 'tiile.load': PyPTO e2d0f78 registers no op of this name \
             (did you mean 'tile.load'?)",
        ),
        (
            LOAD.replace("pl.Mem.Vec]", "pl.MemR(mem_vec_2, 0, 256), pl.Mem.Vec]"),
            "8:37: unknown call 'pl.MemR': neither a call of PyPTO's language nor an op PyPTO \
             e2d0f78 registers (did you mean 'pl.MemRef'?)",
        ),
        (
            "pl.yeld_(a)".to_string(),
            "8:9: unknown call 'pl.yeld_': neither a call of PyPTO's language nor an op PyPTO \
             e2d0f78 registers (did you mean 'pl.yield_'?)",
        ),
        (
            LOAD.replace("pl.Mem.Vec]", "pl.eMeRmf(a), pl.Mem.Vec]"),
            "8:37: unknown call 'pl.eMeRmf': neither a call of PyPTO's language nor an op PyPTO \
             e2d0f78 registers (did you mean 'pl.MemRef'?)",
        ),
    ];
    for (line, want) in cases {
        let src = with_line(&ok, 8, &format!("        {line}"));
        assert_eq!(read_error(&src), want, "{line}");
    }
}

/// Found as `plan-garbage-type-extras-cannot-replan` and
/// `plan-print-not-fixed-point`: a type PyPTO does not have (`pl.Til[...]`,
/// `pl.Tenso + [...]`) was read as an opaque annotation, so the tile and the
/// allocation its MemRef names went unseen (DSA-RP dropped the allocation,
/// and the output named an undefined `mem_vec_2`); text after a tile's
/// dtype other than its MemRef, space and view (`pl.MFP64`, a second
/// MemRef) was carried along and printed. Both are reader errors.
#[test]
fn unknown_types_and_type_arguments_are_reader_errors() {
    let ok = program(
        "InCore",
        SIG,
        &[
            LOAD,
            "b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.exp(a)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)",
            "return r",
        ],
    );
    plan_and_reread(&ok);
    let b = "b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.exp(a)";
    let cases = [
        (
            b.replace("pl.Tile[", "pl.Til["),
            "9:12: unknown type `pl.Til`",
            "did you mean `pl.Tile`? PyPTO's types are",
        ),
        (
            b.replace("pl.Mem.Vec,", "pl.Mem.Vec, pl.MFP64,"),
            "9:49: unexpected argument in a `pl.Tile` type",
            "after the shape and dtype come pl.MemRef(...), the space pl.Mem.X and pl.TileView(...)",
        ),
        (
            b.replace("pl.Mem.Vec,", "pl.Mem.Vec, 7,"),
            "9:49: unexpected argument in a `pl.Tile` type",
            "",
        ),
    ];
    for (line, want, label) in cases {
        let src = with_line(&ok, 9, &format!("        {line}"));
        assert_eq!(read_error(&src), want, "{line}");
        let e = tilemem_pto::parse::parse(&src).unwrap_err();
        assert!(e.label.starts_with(label), "{}", e.label);
    }
    // A parameter's type too.
    let src = ok.replace("x: pl.Tensor[[8, 8]", "x: pl.Tenso + [[8, 8]");
    assert_eq!(read_error(&src), "7:17: unknown type `pl.Tenso`");
}

/// Found as `plan-undefined-yield-internal-error`: a loop yielded a name
/// defined nowhere (`pl.yield_(w2)`); the carry got no storage of its own
/// and the placement check reported two co-live tiles at one address (an
/// internal error, exit 3). An undefined name is a reader error at the
/// name, with the closest defined one.
#[test]
fn an_undefined_yield_value_is_a_reader_error() {
    let body = |yielded: &str| {
        program(
            "InCore",
            SIG,
            &[
                LOAD,
                "for i, (acc,) in pl.range(0, 4, 1, init_values=(a,)):",
                "    w: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(acc)",
                &format!("    w_out: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_({yielded})"),
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(w_out, [0, 0], y)",
                "return r",
            ],
        )
    };
    plan_and_reread(&body("w"));
    let src = body("w2");
    assert_eq!(
        read_error(&src),
        "11:69: undefined name `w2`: no parameter, assignment, loop variable, loop or `if` \
         result before this use defines it"
    );
    let e = tilemem_pto::parse::parse(&src).unwrap_err();
    assert_eq!(e.label, "did you mean `w` (line 10)?");
}

/// Plans `src` with `planner` on `target` through the façade, with the
/// report; a planning error is a fine answer, an internal error is not.
/// A plan's report placements pass the validator and the planned program
/// passes the independent placement check.
fn plan_checked(src: &str, planner: PlannerMode, target: &str) -> Option<String> {
    let mut p = tilemem_pto::parse::parse(src).expect("the input reads");
    let soc = Soc::from_name(target).unwrap();
    let mut opts = tilemem_pto::PlanOptions::new(soc.clone(), planner);
    opts.dsa.node_limit = Some(10_000);
    opts.dsa.time_limit = None;
    opts.report = true;
    let done = match tilemem_pto::plan(&mut p, &opts) {
        Ok(done) => done,
        Err(failed) => {
            assert_ne!(
                failed.error.kind,
                ErrorKind::Internal,
                "{planner:?} on {target}: {}",
                failed.error
            );
            return None;
        }
    };
    let report = done.report.expect("asked for");
    for f in &report.functions {
        for s in &f.spaces {
            let (problem, solution) = s.placement_by_span();
            let checked = tilemem_plan::validate(&problem, &solution);
            assert!(
                checked.is_ok(),
                "{planner:?} on {target}: {}/{}: {checked:?}",
                f.name,
                s.space
            );
        }
    }
    let checked = tilemem_pto::report::check_placement(
        &p,
        &soc,
        &tilemem_soc::DefaultPolicy,
        opts.seed_rules,
    );
    assert!(checked.is_ok(), "{planner:?} on {target}: {checked:?}");
    Some(tilemem_pto::print::print(&p))
}

const PLANNERS: [PlannerMode; 3] = [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal];

/// Plans `src` under every planner and target with [`plan_checked`];
/// how many of them planned it.
fn plan_everywhere(src: &str) -> usize {
    let mut planned = 0;
    for target in TARGETS {
        for planner in PLANNERS {
            planned += usize::from(plan_checked(src, planner, target).is_some());
        }
    }
    planned
}

/// fuzz finding `plan-optimal-report-overlap`: a loop carrying a value
/// through an `if` (one branch yields, the other does not): the optimal
/// planner's report placed two co-live tiles at one address (its model and
/// the independent check disagreed). The input read `w`, defined nowhere,
/// which the reader now rejects; it reads the carry `acc` instead (and
/// `pl.FP32` where it had the unknown dtype `pl.FA32`, also rejected now).
/// Every planner now takes its separations from the one model
/// and every output is checked.
#[test]
fn optimal_report_keeps_co_live_tiles_apart() {
    let src = include_str!("data/fuzz/optimal_report_overlap.py");
    let mut planned = 0;
    for target in TARGETS {
        for planner in PLANNERS {
            planned += usize::from(plan_checked(src, planner, target).is_some());
        }
    }
    // The property is not vacuous: the program plans.
    assert!(planned > 0);
}

/// fuzz finding `plan-memref-larger-than-alloc-after-plan`: a `while`
/// carries a value started from an untyped loop result (the tuple form
/// `p_out, q_out = pl.yield_(...)`), so the reader cannot compare the
/// sizes the carry joins; the yielded `w2` ([64, 65], 16640 bytes) was put
/// on the carry's 16384-byte allocation and the output did not read back.
/// A yielded value larger than its carry's allocation is now the input
/// error the reader gives for typed carries, under every planner.
#[test]
fn a_yielded_value_larger_than_its_carry_is_an_input_error() {
    let src = program(
        "InCore",
        "x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.InOut[pl.Tensor[[64, 65], pl.FP32]]) -> pl.Tensor[[64, 65], pl.FP32]",
        &[
            "a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
            "for k, (p, q) in pl.range(3, init_values=(a, b)):",
            "    p2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(p, q)",
            "    p_out, q_out = pl.yield_(p2, q)",
            "for (w,) in pl.while_(init_values=(p_out,)):",
            "    pl.cond(n > 0)",
            "    w2: pl.Tile[[64, 65], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w)",
            "    w_out: pl.Tile[[64, 65], pl.FP32, pl.Mem.Vec] = pl.yield_(w2)",
            "res: pl.Tensor[[64, 65], pl.FP32] = pl.tile.store(w_out, [0, 0], out)",
            "return res",
        ],
    );
    for target in TARGETS {
        for planner in [
            PlannerMode::Pypto,
            PlannerMode::DsaRp,
            PlannerMode::Optimal,
            PlannerMode::Ptoas,
        ] {
            let mut p = tilemem_pto::parse::parse(&src).unwrap();
            let opts = tilemem_pto::PlanOptions::new(Soc::from_name(target).unwrap(), planner);
            let e = tilemem_pto::plan(&mut p, &opts).unwrap_err().error;
            assert_eq!(e.kind, ErrorKind::Input, "{planner:?} on {target}: {e}");
            assert_eq!(
                e.message,
                "`w2` takes 16640 bytes but the buffer `mem_vec_2` it is yielded into holds \
                 16384: the values a loop carries or an `if` joins have one size",
                "{planner:?} on {target}"
            );
            assert_eq!(e.loc.map(|l| l.line), Some(15), "{planner:?} on {target}");
        }
    }
}

const T8: &str = "pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec]";

/// Reads `src` and returns the reader's error and its help label.
fn read_error_and_help(src: &str) -> (String, String) {
    match tilemem_pto::parse::parse(src) {
        Ok(_) => panic!("the reader accepts:\n{src}"),
        Err(e) => (e.to_string(), e.label.clone()),
    }
}

/// The reader's message for `name` (defined at `line`, in the body of the
/// loop at `loop_line`) read after the loop at `at` (`line:col`).
fn after_loop(at: &str, name: &str, line: u32, loop_line: u32) -> String {
    format!(
        "{at}: `{name}` is not visible after its loop: it is defined at line {line}, in the \
         body of the loop at line {loop_line}, and a name a loop body defines ends with the loop"
    )
}

/// The reader's help for `name` read after a loop whose first result is
/// `nxt` and which does not yield `name`.
fn carry_out(name: &str) -> String {
    format!(
        "only the loop's results (`nxt`...) are visible after it: carry `{name}` out as one \
         more loop-carried value yielded by `pl.yield_`"
    )
}

/// A loop carrying `acc` from `a`, whose body defines `t` and `u` and
/// yields `u` into `nxt`; then `after` (line 13), a store of `z` and the
/// return.
fn loop_then(after: &str) -> String {
    let t = |l: &str| l.replace("T8", T8);
    program(
        "InCore",
        SIG,
        &[
            LOAD,
            "for i, (acc,) in pl.range(0, 4, 1, init_values=(a,)):",
            &t("    t: T8 = pl.tile.exp(acc)"),
            &t("    u: T8 = pl.tile.add(acc, t)"),
            &t("    nxt: T8 = pl.yield_(u)"),
            &t(after),
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(z, [0, 0], y)",
            "return r",
        ],
    )
}

/// fuzz finding `plan-loop-body-tile-read-after-its-loop`: a tile defined
/// in a loop body and read after the loop was read as in Python (names
/// resolved flat), but the memory passes end its lifetime with the loop,
/// so another tile took its bytes and the independent placement check
/// stopped every planner with an internal error. PyPTO's IR scopes a
/// loop's variables and its body's names to the loop (only the return
/// variables of its `pl.yield_` are visible after it): the read is a
/// reader error at the name, saying where it is defined and what to read
/// instead.
#[test]
fn a_loop_body_name_read_after_the_loop_is_a_reader_error() {
    let src = include_str!("data/fuzz/loop_body_tile_read_after_its_loop.py");
    assert_eq!(
        read_error_and_help(src),
        (after_loop("14:68", "t", 10, 9), carry_out("t"))
    );
    // Read through its result instead, the program plans under every
    // planner and target.
    let fixed = src.replace("pl.tile.add(w, t)", "pl.tile.add(w, nxt)");
    assert!(plan_everywhere(&fixed) > 0);
}

/// Finding `plan-elif-inner-result-read-after-its-chain` (found by
/// review): an `elif` is an `if` nested in the previous `else` branch, so
/// the results its branches yield are that nested `if`'s, never the outer
/// one's. Read as a chain, the outer `if`'s result held nothing on the
/// `elif` paths: with other names the read after the chain stopped every
/// planner at the placement check, and with the same name (`r` in every
/// branch) every planner wrote a read of bytes the `elif` branch never
/// wrote, without an error. An `elif` after an `if` whose branch yields is
/// a reader error; the nested form plans under every planner and target.
#[test]
fn an_elif_after_a_yielding_if_branch_is_a_reader_error() {
    let src = include_str!("data/fuzz/elif_inner_result_read_after_its_chain.py");
    let elif = (
        "12:9: an `elif` branch cannot yield into the results of the `if` before it: the \
         `elif` is an `if` of its own, nested in that `if`'s else branch"
            .to_string(),
        "write `else:`, put the `if` inside it, and end the `else` with `pl.yield_` of that \
         `if`'s results"
            .to_string(),
    );
    assert_eq!(read_error_and_help(src), elif);
    // Every branch yielding the same name: the silent case, now the same error.
    assert_eq!(read_error_and_help(&src.replace("r2", "r")), elif);
    // The nested form: the outer `else` yields the inner `if`'s result.
    let nested = src.replace(
        "        elif n == 1:\n            c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, a)\n            r2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(c)\n        else:\n            d: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(a, a)\n            r2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(d)\n",
        "        else:\n            if n == 1:\n                c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, a)\n                q: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(c)\n            else:\n                d: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(a, a)\n                q: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(d)\n            r: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(q)\n",
    );
    assert_ne!(nested, src);
    assert!(plan_everywhere(&nested.replace("add(e, r2)", "add(e, r)")) > 0);
}

/// What to read instead is the block's result when the name is yielded
/// (a loop-carried variable: its own result); the loop variable ends with
/// the loop too.
#[test]
fn out_of_scope_reads_name_the_result_to_read_instead() {
    let cases = [
        (
            "z: T8 = pl.tile.exp(u)",
            "13:63: `u` is not visible after its loop: it is defined at line 11, in the body \
             of the loop at line 9, and a name a loop body defines ends with the loop",
            "read the loop's result `nxt` (line 12) instead, which holds `u`'s last value",
        ),
        (
            "z: T8 = pl.tile.exp(acc)",
            "13:63: `acc` is not visible after its loop: it is the loop-carried variable of \
             the loop at line 9, and ends with the loop",
            "read the loop's result `nxt` (line 12) instead, which holds `acc`'s last value",
        ),
        (
            "z: T8 = pl.tile.load(x, [i, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "13:68: `i` is not visible after its loop: it is the loop variable of the loop \
             at line 9, and ends with the loop",
            "compute the value from the loop's bounds after the loop",
        ),
    ];
    for (after, message, help) in cases {
        let (m, h) = read_error_and_help(&loop_then(after));
        assert_eq!((m.as_str(), h.as_str()), (message, help), "{after}");
    }
    // The result itself is visible after the loop.
    plan_and_reread(&loop_then("z: T8 = pl.tile.exp(nxt)"));
}

/// An `if` branch's names end with the branch; its results (the targets of
/// each branch's `pl.yield_`) are what is visible after the `if`.
#[test]
fn an_if_branch_name_read_after_the_if_is_a_reader_error() {
    let t = |l: &str| l.replace("T8", T8);
    let src = |after: &str| {
        program(
            "InCore",
            "x: pl.Tensor[[8, 8], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
            &[
                LOAD,
                "if n > 0:",
                &t("    b: T8 = pl.tile.exp(a)"),
                &t("    c: T8 = pl.tile.add(a, b)"),
                &t("    r: T8 = pl.yield_(c)"),
                "else:",
                &t("    d: T8 = pl.tile.add(a, a)"),
                &t("    r: T8 = pl.yield_(d)"),
                &t(after),
                "s: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(z, [0, 0], y)",
                "return s",
            ],
        )
    };
    let cases = [
        (
            "z: T8 = pl.tile.exp(c)",
            "16:63: `c` is not visible after its `if`: it is defined at line 11, in a branch \
             of the `if` at line 9, and a name a branch defines ends with the branch",
            "read the `if`'s result `r` (line 12) instead, which holds `c`'s last value",
        ),
        (
            "z: T8 = pl.tile.exp(d)",
            "16:63: `d` is not visible after its `if`: it is defined at line 14, in a branch \
             of the `if` at line 9, and a name a branch defines ends with the branch",
            "read the `if`'s result `r` (line 15) instead, which holds `d`'s last value",
        ),
        (
            "z: T8 = pl.tile.exp(b)",
            "16:63: `b` is not visible after its `if`: it is defined at line 10, in a branch \
             of the `if` at line 9, and a name a branch defines ends with the branch",
            "yield it from every branch (`r: T = pl.yield_(b)`) and read the `if`'s result `r`",
        ),
    ];
    for (after, message, help) in cases {
        let (m, h) = read_error_and_help(&src(after));
        assert_eq!((m.as_str(), h.as_str()), (message, help), "{after}");
    }
    let ok = src("z: T8 = pl.tile.exp(r)");
    assert!(plan_everywhere(&ok) > 0);
    // A name of the then branch is not visible in the else branch either.
    let sibling = src("z: T8 = pl.tile.exp(r)").replace("pl.tile.add(a, a)", "pl.tile.add(a, b)");
    assert_eq!(
        read_error_and_help(&sibling),
        (
            "14:70: `b` (defined at line 10) is not visible here: a name a loop body or an \
             `if` branch defines ends with that block"
                .to_string(),
            "read `b` inside its block, or yield it out of the block".to_string()
        )
    );
}

/// A name of an inner loop's body read after the outer loop is out of the
/// outer loop's scope (the block whose end took it away); a name the
/// outer body defines before the inner loop is visible inside it. An
/// inner loop-carried variable is named with its own loop.
#[test]
fn a_nested_loop_name_is_out_of_scope_after_the_outer_loop() {
    let t = |l: &str| l.replace("T8", T8);
    let src = program(
        "InCore",
        SIG,
        &[
            LOAD,
            "for i, (acc,) in pl.range(0, 4, 1, init_values=(a,)):",
            &t("    e: T8 = pl.tile.exp(acc)"),
            "    for j, (acc2,) in pl.range(0, 2, 1, init_values=(e,)):",
            &t("        f: T8 = pl.tile.add(acc2, e)"),
            &t("        g: T8 = pl.yield_(f)"),
            &t("    nxt: T8 = pl.yield_(g)"),
            &t("z: T8 = pl.tile.add(nxt, f)"),
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(z, [0, 0], y)",
            "return r",
        ],
    );
    assert_eq!(
        read_error_and_help(&src),
        (after_loop("15:68", "f", 12, 9), carry_out("f"))
    );
    // The inner loop's carry is named with its own loop (line 11), and no
    // result is offered: the inner loop's ended with the outer loop too.
    assert_eq!(
        read_error_and_help(&src.replace("pl.tile.add(nxt, f)", "pl.tile.add(nxt, acc2)")),
        (
            "15:68: `acc2` is not visible after its loop: it is the loop-carried variable of \
             the loop at line 11, and ends with the loop"
                .to_string(),
            carry_out("acc2")
        )
    );
    let ok = src.replace("pl.tile.add(nxt, f)", "pl.tile.add(nxt, a)");
    assert!(plan_everywhere(&ok) > 0);
}

/// A body name that shadows an outer one ends with the body: after the
/// loop the name refers to the outer definition again (as in PyPTO's
/// scoped IR), so the read is not an error and plans safely.
#[test]
fn a_shadowing_body_name_gives_way_to_the_outer_one_after_the_loop() {
    let t = |l: &str| l.replace("T8", T8);
    let src = program(
        "InCore",
        SIG,
        &[
            LOAD,
            &t("b: T8 = pl.tile.exp(a)"),
            "for i, (acc,) in pl.range(0, 4, 1, init_values=(a,)):",
            &t("    b: T8 = pl.tile.add(acc, acc)"),
            &t("    nxt: T8 = pl.yield_(b)"),
            &t("z: T8 = pl.tile.add(nxt, b)"),
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(z, [0, 0], y)",
            "return r",
        ],
    );
    let p = tilemem_pto::parse::parse(&src).unwrap();
    let f = &p.functions[0];
    // `b` after the loop is the one defined before it, on line 9.
    let read = f
        .stmts
        .iter()
        .find_map(|(s, st)| match &st.kind {
            tilemem_pto::ir::StmtKind::Assign { targets, value }
                if &*f.vars[targets[0]].name == "z" =>
            {
                Some((s, value.clone()))
            }
            _ => None,
        })
        .unwrap()
        .1;
    let tilemem_pto::ir::Expr::Call(c) = read else {
        panic!("a call")
    };
    let b = c.args[1].as_var().unwrap();
    let tilemem_pto::ir::VarDef::Stmt(def) = f.vars[b].def else {
        panic!("an assignment")
    };
    assert_eq!(f.pos_of(def).line, 9);
    assert!(plan_everywhere(&src) > 0);
}

/// A `with` block is no scope: its names stay visible after it.
#[test]
fn a_with_block_name_stays_visible_after_the_block() {
    let src = program(
        "Orchestration",
        SIG,
        &[
            "with pl.scope(mode=pl.ScopeMode.MANUAL):",
            "    r: pl.Tensor[[8, 8], pl.FP32] = self.k(x, y)",
            "return r",
        ],
    );
    tilemem_pto::parse::parse(&src).expect("reads");
}

/// Found as `plan-expression-as-type-drops-alloc` (the `plan` run after
/// the scope fix): an annotation that is an expression (`-pl.Tile[...]`)
/// was read as an opaque type, so the tile it spells and the allocation its
/// MemRef names went unseen; the alloc clean-up dropped the allocation and
/// the planned output named an undefined `mem_vec_1`. An annotation is a
/// name, a dotted name or one subscripted, as PyPTO's parser resolves
/// them: anything else is a reader error at the annotation.
#[test]
fn an_expression_as_a_type_is_a_reader_error() {
    let tile = "pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, 0, 256), pl.Mem.Vec]";
    let src = |annotation: &str| {
        program(
            "InCore",
            SIG,
            &[
                "mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
                &format!("b: {annotation} = pl.tile.create([8, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)"),
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(b, [0, 0], y)",
                "return r",
            ],
        )
    };
    plan_and_reread(&src(tile));
    // In parentheses it is the same type, as in Python.
    let mut p = tilemem_pto::parse::parse(&src(&format!("({tile})"))).unwrap();
    let q = tilemem_pto::parse::parse(&src(tile)).unwrap();
    assert_eq!(p.functions[0].vars, q.functions[0].vars);
    let mut ctx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut ctx, &PassId::ALL).expect("plans");
    let help = "write the type alone: `pl.Tile[...]`, `pl.Tensor[...]`, `pl.Scalar[...]`, \
                `pl.Ptr`, `pl.Tuple[...]`, ...";
    for (annotation, col) in [
        (format!("-{tile}"), 12),
        (format!("(-{tile})"), 13),
        ("tuple(x)".to_string(), 12),
        ("7".to_string(), 12),
    ] {
        let (m, h) = read_error_and_help(&src(&annotation));
        assert_eq!(
            (m.as_str(), h.as_str()),
            (
                format!("9:{col}: an annotation is a type, not an expression").as_str(),
                help
            ),
            "{annotation}"
        );
    }
}

/// Seed 001 places the allocations InitMemRef made, and InitMemRef gives
/// a function whose tensor parameters have no storage new storage,
/// whatever MemRefs its tiles carried (as PyPTO does: its reference case
/// `test_dsa_rp_ascend910b_split_aiv_physically_separates_load_buffer`
/// starts from such tiles). A window past its allocation there, or two
/// live tiles in one allocation, are MemRefs no planner reads: the PYPTO
/// planner refused the first (exit 2) while DSA-RP, the optimal planner
/// and PTOAS planned it, and every planner refused the second. Now every
/// planner on every target plans both, with the tiles in new
/// allocations, and planning the output again changes nothing.
#[test]
fn init_memref_replaces_a_window_past_its_allocation_under_every_planner() {
    let past = program(
        "InCore",
        SIG,
        &[
            "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_0, pl.const(512, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(a, [0, 0], y)",
            "return r",
        ],
    );
    let live_together = program(
        "InCore",
        SIG,
        &[
            "mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)",
            "a: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "b: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)",
            "c: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.add(a, b)",
            "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(c, [0, 0], y)",
            "return r",
        ],
    );
    let planners = [
        PlannerMode::Pypto,
        PlannerMode::DsaRp,
        PlannerMode::Optimal,
        PlannerMode::Ptoas,
    ];
    for (src, tiles) in [(&past, &["a"][..]), (&live_together, &["a", "b", "c"][..])] {
        for target in TARGETS {
            for planner in planners {
                let plan = |src: &str| {
                    let mut p = tilemem_pto::parse::parse(src).unwrap();
                    let opts =
                        tilemem_pto::PlanOptions::new(Soc::from_name(target).unwrap(), planner);
                    tilemem_pto::plan(&mut p, &opts)
                        .unwrap_or_else(|e| panic!("{planner:?} on {target}: {}", e.error));
                    tilemem_pto::print::print(&p)
                };
                let out = plan(src);
                for t in tiles {
                    let line = out
                        .lines()
                        .find(|l| l.trim_start().starts_with(&format!("{t}: ")))
                        .unwrap();
                    assert!(
                        !line.contains("MemRef(mem_vec_0,"),
                        "{planner:?} on {target}: {t} kept the input's allocation\n{out}"
                    );
                }
                // Alone in its new allocation, `a` sits at its start.
                if tiles.len() == 1 {
                    assert!(
                        out.contains("pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load"),
                        "{planner:?} on {target}\n{out}"
                    );
                }
                assert_eq!(
                    plan(&out),
                    out,
                    "{planner:?} on {target}: not a fixed point"
                );
            }
        }
    }
}

/// Found as `plan-dsa-rp-window-past-its-allocation`: a program after
/// InitMemRef (its parameters carry MemRefs, so its tiles keep theirs)
/// with a tile at offset 1 of an allocation of the tile's own size. The
/// PYPTO planner rejected it as an input error; DSA-RP and the optimal
/// planner keep each tile's offset from its allocation's lowest tile (`c`,
/// at 0), so `a` spanned one byte past the bytes placed for the allocation
/// and the placement check stopped them (exit 3). They now check the
/// windows as they read them, and reject it too.
#[test]
fn every_planner_rejects_a_window_past_its_allocation() {
    let src = program(
        "AIV",
        "x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 16384)], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]",
        &[
            "mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)",
            "a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(1, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)",
            "c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.adds(a, 1.0)",
            "r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], y)",
            "return r",
        ],
    );
    for target in TARGETS {
        for planner in PLANNERS {
            let mut p = tilemem_pto::parse::parse(&src).unwrap();
            let opts = tilemem_pto::PlanOptions::new(Soc::from_name(target).unwrap(), planner);
            let e = tilemem_pto::plan(&mut p, &opts).unwrap_err().error;
            assert_eq!(e.kind, ErrorKind::Input, "{planner:?} on {target}: {e}");
            assert_eq!(
                e.message,
                "tile 'a' has the window [1, 1 + 16384) of allocation 'mem_vec_2', which holds \
                 16384 bytes: MemRef offsets are relative to their allocation, or the addresses \
                 allocate_memory_addr gave; write the offset within the allocation",
                "{planner:?} on {target}"
            );
        }
    }
    // At offset 0 it plans under every planner and target.
    assert_eq!(
        plan_everywhere(&src.replace("pl.const(1, pl.INT64)", "pl.const(0, pl.INT64)")),
        PLANNERS.len() * TARGETS.len()
    );
}

/// Found as `plan-carry-without-init-values` (the `plan` run after the
/// window fix): a loop with carried variables whose `init_values=` keyword
/// was misspelt (`inituav_les=`) carried values that started from nothing,
/// and the report's placement put a carry and a later tile on the same
/// bytes. Each carry starts from one init value (PyPTO's ForStmt): a count
/// that differs is a reader error at the loop.
#[test]
fn a_loop_carry_without_its_init_value_is_a_reader_error() {
    let t = |l: &str| l.replace("T8", T8);
    let src = |iter: &str| {
        program(
            "InCore",
            SIG,
            &[
                LOAD,
                &t("b: T8 = pl.tile.exp(a)"),
                &format!("for k, (p, q) in pl.range(4, {iter}):"),
                &t("    p2: T8 = pl.tile.mul(p, q)"),
                "    p_out, q_out = pl.yield_(p2, q)",
                "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(p_out, [0, 0], y)",
                "return r",
            ],
        )
    };
    plan_and_reread(&src("init_values=(a, b)"));
    for (iter, n) in [("inituav_les=(a, b)", 0), ("init_values=(a,)", 1)] {
        assert_eq!(
            read_error_and_help(&src(iter)),
            (
                format!(
                    "10:9: the loop carries 2 value(s) but `init_values` gives {n}: each \
                     loop-carried variable starts from one init value"
                ),
                "give `init_values=(...)` one value per loop-carried variable".to_string()
            ),
            "{iter}"
        );
    }
}

/// Finding `plan-alloc-read-by-a-statement-removed` (a long run of the
/// target, reduced): an allocation whose variable a statement reads
/// (`[mem_vec_2]`, an expression statement) but no tile's MemRef names was
/// removed by the clean-up after sharing, leaving a read of an undefined
/// name: `[mem_vec_2]` alone in the body, "undefined name `mem_vec_2`"
/// when the planned program was read back. Rule: an allocation a statement
/// reads is used, and stays.
#[test]
fn an_allocation_a_statement_reads_stays() {
    let src = "@pl.program\nclass r:\n    @pl.function\n    def l():\n      \
               mem_vec_2=pl.tile.alloc(pl.Mem.c,4)\n      [(mem_vec_2)]\n";
    let mut p = tilemem_pto::parse::parse(src).expect("the input reads");
    let mut ctx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut ctx, &PassId::ALL).expect("plans");
    let out = tilemem_pto::print::print(&p);
    assert_eq!(
        out,
        "@pl.program\nclass r:\n    @pl.function\n    def l():\n        \
         mem_vec_2 = pl.tile.alloc(pl.Mem.c, 4)\n        [mem_vec_2]\n"
    );
    plan_and_reread(src);
}

/// Finding `plan-tile-type-arguments-reordered` (a long run of the target,
/// reduced): `pl.Mem` alone in a tile type was kept as an extra argument,
/// printed after the space: `pl.Tile[[], pl.FP32, pl.Mem, pl.Mem.Vec]`
/// printed `pl.Tile[[], pl.FP32, pl.Mem.Vec, pl.Mem]`, which does not
/// read ("unexpected argument in a `pl.Tile` type"). Rule: an argument on
/// `pl.Mem` is a memory space `pl.Mem.X`, anything else there is an error.
#[test]
fn a_tile_type_argument_on_pl_mem_is_a_memory_space() {
    let src = "@pl.program\nclass o:\n    @pl.function\n    def l():\n     \
               a:pl.Tile[[],pl.FP32,pl.Mem,pl.Mem.Vec]=pl\n";
    assert_eq!(
        read_error(src),
        "5:27: expected a memory space `pl.Mem.X` in a `pl.Tile` type"
    );
}

/// Finding `plan-duplicate-alloc-name-read-before-definition` (a long run
/// of the target, reduced by hand): sharing made the larger allocation,
/// written after the first tile, the storage of both tiles, and the
/// clean-up removed the first allocation, so the planned program named
/// `mem_vec_4` above its definition and did not read back. Rule: an
/// allocation moves above the first statement that names it.
#[test]
fn a_shared_allocation_is_defined_before_its_first_tile() {
    let src = "@pl.program\nclass c:\n    @pl.function\n    def k(x: pl.Tensor[[64, 64], pl.FP32]):\n        \
               mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)\n        \
               a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])\n        \
               mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)\n        \
               b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])\n";
    let mut p = tilemem_pto::parse::parse(src).expect("the input reads");
    let mut ctx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut ctx, &[PassId::MemoryReuse]).expect("plans");
    let out = tilemem_pto::print::print(&p);
    let body: Vec<&str> = out.lines().skip(4).map(str::trim).collect();
    assert_eq!(
        body,
        [
            "mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768)",
            "a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])",
            "b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])",
        ],
        "{out}"
    );
    plan_and_reread(src);
}

/// The placement checker's side of the finding above: a planned program
/// naming an allocation above its definition is an internal error, not
/// output (the allocation is moved below the tile by hand here, as the
/// clean-up once left it).
#[test]
fn the_placement_check_rejects_an_allocation_named_above_its_definition() {
    let src = "@pl.program\nclass c:\n    @pl.function\n    def k(x: pl.Tensor[[64, 64], pl.FP32]):\n        \
               mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)\n        \
               a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])\n";
    let mut p = tilemem_pto::parse::parse(src).expect("the input reads");
    let mut ctx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    run_pipeline(&mut p, &mut ctx, &PassId::ALL).expect("plans");
    let f = &mut p.functions[0];
    let check = |f: &tilemem_pto::ir::Function| {
        tilemem_pto::passes::verify::check_function(
            f,
            &ctx.soc,
            ctx.policy.as_ref(),
            ctx.seed_rules,
            None,
        )
    };
    check(f).expect("the planned program passes");
    f.body.swap(0, 1);
    let e = check(f).expect_err("the allocation is below its tile");
    assert!(
        e.to_string().contains(
            "placement check failed in function 'k': allocation 'mem_vec_1' is named at line 6 above its definition"
        ),
        "{e}"
    );
}

/// fuzz smoke `plan` on `input_sharing/staged_view_of_a_carry.py`: the
/// optimal planner put a body tile (`t12 = exp(s11)`, in place over a view
/// of the carry) on the carry's window after the iter arg's last read,
/// legal since the body writes the next value there later. The program
/// passed the independent check, but the report drew each buffer over its
/// hull, so its own placement overlapped; drawn between its gaps it
/// validates.
#[test]
fn a_carry_window_shared_between_its_last_read_and_its_rewrite_passes_the_check() {
    let src = include_str!("data/input_sharing/staged_view_of_a_carry.py");
    assert!(plan_everywhere(src) > 0);
}

/// The branch rule's counterpart: a value read only in an `if`'s else
/// branch holds nothing during the then branch, so the optimal planner
/// puts then-branch tiles on its bytes; the independent check and the
/// report's placement drawn between gaps accept it.
#[test]
fn a_then_branch_tile_on_a_value_read_only_in_the_else_branch_passes_the_check() {
    let src = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, x: pl.Tensor[[8, 8], pl.FP32], c: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:\n        a: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)\n        if c < 1:\n            b: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)\n            e: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(b)\n            p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(e)\n        else:\n            d: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)\n            p: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.yield_(d)\n        r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(p, [0, 0], y)\n        return r\n";
    assert!(plan_everywhere(src) > 0);
}
