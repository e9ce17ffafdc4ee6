//! The checked-in op trait table is what `cargo xtask op-traits` writes
//! from the ODS files in `../shared` (skips visibly when they are absent).

#[test]
fn shared_op_traits_table_is_current() {
    let dir = xtask::default_ods_dir();
    if !dir.is_dir() {
        eprintln!(
            "SKIPPED: shared_op_traits_table_is_current: {} is absent",
            dir.display()
        );
        return;
    }
    let generated = xtask::op_traits::generate(&dir).expect("ODS files read");
    let checked_in =
        std::fs::read_to_string(xtask::op_traits::table_path()).expect("table present");
    assert!(
        generated == checked_in,
        "crates/mlir/src/ir/ods_traits.rs is stale: run `cargo xtask op-traits`"
    );
    assert_eq!(
        generated.matches("    OdsTraits {").count(),
        207,
        "hivm + ave ops"
    );
}
