//! A value defined before a loop and read in it lives to the loop's end
//! (seed 000, MemoryReuse step 1), past the writes of the loop's last
//! statement: the next iteration reads it again after that statement, so
//! a tile the statement writes may not take its bytes, under any planner.
//! The PYPTO planner shared them (`a = load; for: { e = exp(a); t = load }`
//! put `t` on `a`), which the independent placement check rejected
//! (exit 3 on a valid program). Exact addresses of the shape and its
//! variants under the PYPTO planner, and a generated family of nested
//! loops and branches whose bodies may end in a tile write, planned by
//! every planner on every target.

mod common;

use common::{branchy, check_alone, program, tile_offset, Rng};
use tilemem_pto::passes::PlannerMode;
use tilemem_pto::{parse, plan, print, PlanOptions};
use tilemem_soc::Soc;

const SIG: &str = "x: pl.Tensor[[8, 8], pl.FP32], y: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]";

/// A 256-byte Vec tile `name = rhs`.
fn vt(name: &str, rhs: &str) -> String {
    format!("{name}: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = {rhs}")
}

const LOAD: &str = "pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)";

/// Plans `body` (one InCore function) with `planner` on 910B; the
/// planned text, after the independent check on it alone.
fn planned(body: &[String], planner: PlannerMode) -> String {
    let lines: Vec<&str> = body.iter().map(String::as_str).collect();
    let src = program("InCore", SIG, &lines);
    let mut p = parse(&src).unwrap();
    let opts = PlanOptions::new(Soc::from_name("910b").unwrap(), planner);
    if let Err(e) = plan(&mut p, &opts) {
        panic!("{planner:?}: {}\n{src}", e.error);
    }
    let out = print(&p);
    check_alone(&out).unwrap_or_else(|e| panic!("{planner:?}: {e}\n{out}"));
    out
}

/// The addresses of `names` in a planned program.
fn offsets(out: &str, names: &[&str]) -> Vec<u64> {
    names.iter().map(|n| tile_offset(out, n)).collect()
}

/// The shape of the defect: `t`, written by the loop's last statement,
/// takes the bytes `e` has (both are dead by then within the iteration),
/// not `a`'s, which the next iteration's `exp` reads.
#[test]
fn the_loop_last_statement_does_not_take_the_bytes_the_next_iteration_reads() {
    let body = [
        vt("a", LOAD),
        "for i in pl.range(2):".into(),
        format!("    {}", vt("e", "pl.tile.exp(a)")),
        format!("    {}", vt("t", LOAD)),
        "return y".into(),
    ];
    let out = planned(&body, PlannerMode::Pypto);
    assert_eq!(offsets(&out, &["a", "e", "t"]), [0, 256, 256], "{out}");
}

/// The reading op itself ends the body: `e = exp(a)` reads `a` for the
/// last time in this iteration, not for the last time (the seed's
/// producer-consumer sharing is for a last read), so `e` gets bytes of
/// its own.
#[test]
fn a_loop_body_of_one_reading_op_does_not_write_over_its_operand() {
    let body = [
        vt("a", LOAD),
        "for i in pl.range(2):".into(),
        format!("    {}", vt("e", "pl.tile.exp(a)")),
        "return y".into(),
    ];
    let out = planned(&body, PlannerMode::Pypto);
    assert_eq!(offsets(&out, &["a", "e"]), [0, 256], "{out}");
}

/// Nested loops: `a` is read in the inner loop, so it lives to the end of
/// the outer one, the first loop that started after it; `t`, the outer
/// body's last statement, stays off it. What the extension does not
/// reach keeps sharing: `b`, defined in the outer body and read for the
/// last time by the statement writing `c`, gives `c` its bytes (producer
/// and consumer), and `u`, loaded after the loops, takes `a`'s bytes.
#[test]
fn the_outermost_loop_after_the_definition_decides_where_the_value_ends() {
    let body = [
        vt("a", LOAD),
        "for i in pl.range(2):".into(),
        format!("    {}", vt("b", LOAD)),
        "    for j in pl.range(2):".into(),
        format!("        {}", vt("e", "pl.tile.exp(a)")),
        format!("    {}", vt("c", "pl.tile.exp(b)")),
        format!("    {}", vt("t", LOAD)),
        vt("u", LOAD),
        "r: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(u, [0, 0], y)".into(),
        "return r".into(),
    ];
    let out = planned(&body, PlannerMode::Pypto);
    // a | b, c, t (b and c are dead when t is written; the first buffer
    // open to t after a's) | e | u on a's bytes.
    assert_eq!(
        offsets(&out, &["a", "b", "e", "c", "t", "u"]),
        [0, 256, 512, 256, 256, 0],
        "{out}"
    );
    // The other planners keep `t` off `a` too.
    for planner in [PlannerMode::DsaRp, PlannerMode::Optimal] {
        let out = planned(&body, planner);
        assert_ne!(
            tile_offset(&out, "t"),
            tile_offset(&out, "a"),
            "{planner:?}\n{out}"
        );
    }
}

/// Programs in the family whose loop bodies end with a tile write.
fn ends_with_a_tile_write(src: &str) -> bool {
    let lines: Vec<&str> = src.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    lines.iter().enumerate().any(|(i, l)| {
        if !l.trim_start().starts_with("for ") {
            return false;
        }
        let body = lines[i + 1..]
            .iter()
            .take_while(|b| indent(b) > indent(l))
            .last();
        body.is_some_and(|b| b.contains(": pl.Tile["))
    })
}

/// A generated family of nested loops and `if`s (loads, element-wise ops,
/// stores; loop bodies that may end in a tile write): every planner on
/// every target plans every program, and the placement check accepts
/// each placement. Before the rule the PYPTO planner failed the check on
/// programs of this family (exit 3). `LOOP_END_FAMILY=N` runs N programs
/// (default 60).
#[test]
fn every_planner_plans_loops_ending_in_a_tile_write_on_every_target() {
    let n: usize = std::env::var("LOOP_END_FAMILY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let planners = [
        PlannerMode::Pypto,
        PlannerMode::DsaRp,
        PlannerMode::Optimal,
        PlannerMode::Ptoas,
    ];
    let mut rng = Rng(0x100e_e2d5);
    let mut with_pattern = 0;
    let mut failures = Vec::new();
    for k in 0..n {
        let src = branchy(&mut rng, false);
        with_pattern += usize::from(ends_with_a_tile_write(&src));
        for target in ["910b", "950", "310b", "none"] {
            for planner in planners {
                let mut p = parse(&src).unwrap();
                let soc = Soc::from_name(target).unwrap();
                let opts = PlanOptions::new(soc.clone(), planner);
                match plan(&mut p, &opts) {
                    Err(e) => failures.push(format!(
                        "program {k}, {planner:?} on {target}: {:?} {}",
                        e.error.kind, e.error
                    )),
                    Ok(_) if opts.addressed() => {
                        let out = parse(&print(&p)).unwrap();
                        let cx = tilemem_pto::passes::PassContext::new(soc, planner);
                        if let Err(e) = tilemem_pto::report::check_placement(
                            &out,
                            &cx.soc,
                            cx.policy.as_ref(),
                            cx.seed_rules,
                        ) {
                            failures
                                .push(format!("program {k}, {planner:?} on {target}: check: {e}"));
                        }
                    }
                    Ok(_) => {}
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // About a fifth of them do.
    assert!(
        with_pattern * 8 >= n,
        "only {with_pattern} of {n} programs end a loop body in a tile write"
    );
}
