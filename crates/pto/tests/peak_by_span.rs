//! The peak `explain::peak` finds (and the memory map marks) is computed
//! over each buffer's live stretches ([`report::BufferReport::spans`]),
//! not over its program-order hull: under the optimal planner two tiles
//! may take the same bytes at different times of one hull (an `if`'s
//! branches, a loop carry's gap), and a hull-based peak then counts bytes
//! no instant holds twice. Over every planner's output it lies between
//! the space's lower bound and the bytes it uses, and equals both where
//! the planner reached the bound. The repository's own programs always
//! run; PyPTO's shared reference data too when present (skipped visibly
//! otherwise).

#[allow(dead_code)] // the conformance helpers this test does not need
mod support;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use tilemem_pto::explain::{peak, PeakInstant};
use tilemem_pto::passes::{run_pipeline, PassContext, PassId, PlannerMode};
use tilemem_pto::{parse, report};
use tilemem_soc::Soc;

const PLANNERS: [PlannerMode; 3] = [PlannerMode::Pypto, PlannerMode::DsaRp, PlannerMode::Optimal];

/// `a` is read only in the else branch, so the optimal planner puts the
/// then branch's `b` and `e` on its bytes (the branch rule).
const BRANCHES: &str = include_str!("data/branches/then_on_else_only_value.py");

/// The addressed report of `src` planned with `mode` on `target`, or
/// `None` when the planner rejects it.
fn planned(src: &str, target: &str, mode: PlannerMode) -> Option<report::Report> {
    let mut p = parse(src).ok()?;
    let soc = Soc::from_name(target)?;
    let mut cx = PassContext::new(soc.clone(), mode);
    // A work budget, so the result is the same on every machine.
    cx.dsa.node_limit = Some(100_000);
    cx.dsa.time_limit = None;
    run_pipeline(&mut p, &mut cx, &PassId::default_pipeline(mode)).ok()?;
    Some(report::build(&p, &soc, true))
}

/// The first instant of the largest total over the buffers' hulls: what
/// the map marked before.
fn hull_peak(sr: &report::SpaceReport) -> u64 {
    tilemem_pto::explain::peak_of(&sr.placement().0).total
}

#[derive(Default, Debug)]
struct Tally {
    spaces: usize,
    at_bound: usize,
    lower_than_hulls: usize,
    /// (what, by span, hull) of the largest drop.
    worst: Option<(String, u64, u64)>,
}

/// Checks the peak of every space of `src` under every planner.
fn check(name: &str, src: &str, target: &str, tally: &mut Tally) {
    for mode in PLANNERS {
        let Some(r) = planned(src, target, mode) else {
            continue;
        };
        for f in &r.functions {
            for s in &f.spaces {
                let what = format!("{name} {mode:?} {}/{}", f.name, s.space);
                let pk = peak(s);
                tally.spaces += 1;
                assert!(
                    pk.total >= s.lower_bound,
                    "{what}: {pk:?} below {}",
                    s.lower_bound
                );
                assert!(
                    pk.total <= s.bytes_used,
                    "{what}: {pk:?} above {}",
                    s.bytes_used
                );
                if s.bytes_used == s.lower_bound {
                    tally.at_bound += 1;
                    assert_eq!(pk.total, s.bytes_used, "{what}");
                }
                // The live indices name the space's buffers, and add up.
                let sum: u64 = pk
                    .live
                    .iter()
                    .map(|&i| s.buffers[i].end - s.buffers[i].start)
                    .sum();
                assert_eq!(sum, pk.total, "{what}: {pk:?}");
                assert!(pk.live.windows(2).all(|w| w[0] < w[1]), "{what}: {pk:?}");
                let hull = hull_peak(s);
                assert!(pk.total <= hull, "{what}");
                if pk.total < hull {
                    tally.lower_than_hulls += 1;
                    let drop = hull - pk.total;
                    if tally.worst.as_ref().is_none_or(|w| w.2 - w.1 < drop) {
                        tally.worst = Some((what, pk.total, hull));
                    }
                }
            }
        }
    }
}

#[test]
fn the_peak_of_branches_sharing_one_place_counts_its_bytes_once() {
    let r = planned(BRANCHES, "910b", PlannerMode::Optimal).unwrap();
    let s = &r.functions[0].spaces[0];
    let names: Vec<_> = s
        .buffers
        .iter()
        .map(|b| (b.name.as_str(), b.start, b.spans()))
        .collect();
    // `a` holds nothing needed through the then branch, where `b` and `e`
    // take its bytes; `e`'s family (with `d` and `p`) holds nothing needed
    // between the then branch's yield and `d`.
    assert_eq!(
        names,
        [
            ("a", 0, vec![(9, 13), (18, 19)]),
            ("b", 0, vec![(13, 15)]),
            ("e", 0, vec![(15, 17), (19, 23)]),
        ]
    );
    assert_eq!((s.bytes_used, s.lower_bound), (256, 256));
    // Over the hulls `a` [9, 19) and `b` [13, 15) overlapped: 512 bytes at
    // `b`'s load, twice what the space holds.
    assert_eq!(hull_peak(s), 512);
    assert_eq!(
        peak(s),
        PeakInstant {
            instant: 9,
            statement: 4,
            total: 256,
            live: vec![0],
        }
    );
    // The placement drawn by span is the planner's, and valid.
    let (problem, solution) = s.placement_by_span();
    assert!(tilemem_plan::validate(&problem, &solution).is_ok());
    assert_eq!(s.span_owners(), [0, 0, 1, 2, 2]);
}

#[test]
fn the_peak_lies_between_the_bound_and_the_bytes_used_on_the_repositorys_programs() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["examples/pto", "crates/pto/tests/data"] {
        collect_py(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() >= 15, "{files:?}");
    let mut tally = Tally::default();
    check("branches", BRANCHES, "910b", &mut tally);
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        check(&f.display().to_string(), &src, "910b", &mut tally);
    }
    println!("peak by span: {tally:?}");
    assert!(
        tally.at_bound > 0 && tally.lower_than_hulls > 0,
        "{tally:?}"
    );
}

/// PyPTO's shared cases and kernels: the invariants on every planner's
/// output, and how often the hull peak overstated (printed with
/// `--nocapture`).
#[test]
fn the_peak_lies_between_the_bound_and_the_bytes_used_on_the_shared_programs() {
    let root = PathBuf::from(support::DATA);
    if !root.join("cases").is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): the_peak_lies_between_the_bound_and_the_bytes_used_on_the_shared_programs: {} not found",
            support::DATA
        );
        return;
    }
    let mut tally = Tally::default();
    for dir in ["cases", "kernels"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .map(|it| it.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for d in entries {
            let meta = std::fs::read_to_string(d.join("meta.json")).unwrap_or_default();
            let src = if dir == "cases" {
                Some(d.join("src.py"))
            } else {
                std::fs::read_dir(d.join("pypto")).ok().and_then(|it| {
                    let mut files: Vec<PathBuf> = it.flatten().map(|e| e.path()).collect();
                    files.sort();
                    files.into_iter().next()
                })
            };
            let Some(src) = src.filter(|p| p.exists()) else {
                continue;
            };
            let text = std::fs::read_to_string(&src).unwrap();
            let name = d.file_name().unwrap().to_string_lossy().to_string();
            check(&name, &text, &support::target_of(&meta), &mut tally);
        }
    }
    println!("peak by span: {tally:?}");
    assert!(tally.spaces > 0);
}

fn collect_py(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(it) = std::fs::read_dir(dir) else {
        return;
    };
    for e in it.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_py(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

/// The buffers' gaps are computed only where a placement is drawn by
/// span: the façade's report has them by default (the memory map's), a
/// report asked without them (the JSON of `--report`, the re-plans of
/// `explain`) has none and is otherwise the same.
#[test]
fn gaps_are_computed_only_when_asked_for() {
    let mut p = parse(BRANCHES).unwrap();
    let soc = Soc::from_name("910b").unwrap();
    let mut opts = tilemem_pto::PlanOptions::new(soc.clone(), PlannerMode::Optimal);
    opts.report = true;
    opts.dsa.node_limit = Some(100_000);
    opts.dsa.time_limit = None;
    let with = tilemem_pto::plan(&mut p, &opts).unwrap().report.unwrap();
    let gaps = |r: &report::Report| -> Vec<Vec<(u64, u64)>> {
        r.functions[0].spaces[0]
            .buffers
            .iter()
            .map(|b| b.gaps.clone())
            .collect()
    };
    assert_eq!(gaps(&with), [vec![(13, 18)], vec![], vec![(17, 19)]]);
    assert_eq!(with, report::build(&p, &soc, true));
    let mut without = report::build_with(&p, &soc, true, false);
    assert_eq!(gaps(&without), [vec![], vec![], vec![]]);
    for (b, w) in without.functions[0].spaces[0]
        .buffers
        .iter_mut()
        .zip(&with.functions[0].spaces[0].buffers)
    {
        b.gaps.clone_from(&w.gaps);
    }
    assert_eq!(without, with);
    let mut q = parse(BRANCHES).unwrap();
    opts.report_gaps = false;
    let lean = tilemem_pto::plan(&mut q, &opts).unwrap().report.unwrap();
    assert_eq!(gaps(&lean), [vec![], vec![], vec![]]);
}
