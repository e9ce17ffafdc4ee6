//! The MessagePack route loses nothing and decides nothing the text route
//! does not, on every document of our own (`tests/data/msgpack`,
//! `tests/data/input_sharing`) and, when `../shared` is beside the
//! checkout, every shared one (skipped visibly otherwise):
//! - a document read into a program and written back unplanned is the
//!   same bytes (the route PyPTO's documents take through the planners);
//! - planning the document and printing the result gives exactly what
//!   planning the document's text gives, or both fail with the same error,
//!   for the pypto and dsa-rp planners.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use common::documents;

use tilemem_pto::msgpack;
use tilemem_pto::passes::{PlannerMode, SeedRules};
use tilemem_pto::plan::{plan, PlanOptions};
use tilemem_soc::Soc;

fn own() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut v = documents(&here.join("msgpack"));
    v.extend(documents(&here.join("input_sharing")));
    v
}

/// Read and written unplanned: the same bytes. `None` when it holds.
fn round_trip(f: &Path) -> Option<String> {
    let bytes = std::fs::read(f).unwrap();
    let (p, origin) = match msgpack::read_with_origin(&bytes) {
        Ok(x) => x,
        Err(e) => return Some(format!("{}: does not read: {e}", f.display())),
    };
    let out = msgpack::write_program(&p, &origin).expect("writes");
    if out == bytes {
        return None;
    }
    let at = out.iter().zip(&bytes).position(|(a, b)| a != b);
    Some(format!("{}: differs from byte {at:?}", f.display()))
}

/// The planned program's text, or the error, with the chip of the
/// document's kernel (`__a5`: 950).
fn planned(mut p: tilemem_pto::ir::Program, soc: &Soc, planner: PlannerMode) -> String {
    let mut opts = PlanOptions::new(soc.clone(), planner);
    opts.dsa.node_limit = Some(20_000);
    opts.dsa.time_limit = None;
    opts.seed_rules = SeedRules::ALL;
    match plan(&mut p, &opts) {
        Ok(_) => tilemem_pto::print(&p),
        Err(f) => format!("error: {:?} {:?} {}", f.error.kind, f.error.loc, f.error),
    }
}

/// Plan(document) printed equals plan(text of it). `None` when it holds.
fn same_plan(f: &Path) -> Option<String> {
    let bytes = std::fs::read(f).unwrap();
    let text = msgpack::to_text(&msgpack::read(&bytes).ok()?).ok()?;
    let name = f.to_string_lossy();
    let soc = Soc::from_name(if name.contains("__a5") { "950" } else { "910b" }).unwrap();
    for planner in [PlannerMode::Pypto, PlannerMode::DsaRp] {
        let (doc, _) = msgpack::read_with_origin(&bytes).ok()?;
        let from_doc = planned(doc, &soc, planner);
        let from_text = match tilemem_pto::parse(&text) {
            Ok(p) => planned(p, &soc, planner),
            Err(e) => return Some(format!("{name}: its text does not read: {e}")),
        };
        if from_doc != from_text {
            return Some(format!("{name}, {planner:?}: the routes differ"));
        }
    }
    None
}

#[test]
fn our_documents_round_trip_and_plan_as_their_text() {
    let files = own();
    assert!(files.len() >= 18, "{files:?}");
    let bad: Vec<String> = files
        .iter()
        .filter_map(|f| round_trip(f).or_else(|| same_plan(f)))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn shared_documents_round_trip_through_the_program() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pto/msgpack");
    let files = documents(&dir);
    if files.is_empty() {
        // Past the test harness's capture, so a run shows the skip.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_documents_round_trip_through_the_program: {} not found",
            dir.display()
        );
        return;
    }
    let bad: Vec<String> = files.iter().filter_map(|f| round_trip(f)).collect();
    eprintln!(
        "msgpack round trip through the program: {} passed, {} failed",
        files.len() - bad.len(),
        bad.len()
    );
    assert!(bad.is_empty(), "{bad:#?}");
}
