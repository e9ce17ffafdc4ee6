//! The checked-in chip specification table is what `cargo xtask
//! device-spec` writes from `NPUTargetSpec.td` in `../shared` (skips
//! visibly when it is absent).

use std::io::Write as _;

#[test]
fn shared_device_spec_table_is_current() {
    let td = xtask::device_spec::default_td();
    if !td.is_file() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_device_spec_table_is_current: {} is absent",
            td.display()
        );
        return;
    }
    let generated = xtask::device_spec::generate(&td).expect("NPUTargetSpec.td read");
    let checked_in =
        std::fs::read_to_string(xtask::device_spec::table_path()).expect("table present");
    assert!(
        generated == checked_in,
        "crates/soc/src/device_spec_table.rs is stale: run `cargo xtask device-spec`"
    );
    assert_eq!(
        generated.matches("    DeviceSpec {").count(),
        64,
        "chips in NPUTargetSpec.td"
    );
}
