//! The checked-in op-format and op-traits tables are what `cargo xtask ods`
//! writes from the ODS files in `../shared` (skips visibly when they are
//! absent).

// A skip is written to stderr directly, past the harness's output capture.
use std::io::Write as _;

#[test]
fn shared_ods_table_is_current() {
    let dir = xtask::default_ods_dir();
    if !dir.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_ods_table_is_current: {} is absent",
            dir.display()
        );
        return;
    }
    let generated = xtask::generate(&dir).expect("ODS files read");
    let checked_in = std::fs::read_to_string(xtask::table_path()).expect("table present");
    assert!(
        generated == checked_in,
        "crates/mlir/src/ir/ods_table.rs is stale: run `cargo xtask ods`"
    );
    assert_eq!(
        generated.matches("    OdsOp {").count(),
        207,
        "hivm + ave ops"
    );
}

#[test]
fn shared_ods_traits_table_is_current() {
    let dir = xtask::default_ods_dir();
    if !dir.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_ods_traits_table_is_current: {} is absent",
            dir.display()
        );
        return;
    }
    let generated = xtask::generate_traits(&dir).expect("ODS files read");
    let checked_in = std::fs::read_to_string(xtask::traits_path()).expect("table present");
    assert!(
        generated == checked_in,
        "crates/mlir/src/ir/ods_traits.rs is stale: run `cargo xtask ods`"
    );
}
