//! Inputs the fuzz target `mlir_reader` (fuzz/) found, reduced by hand.
//! All are round-trip failures: print, read back, print again differs.
//!
//! With `-allow-unregistered-dialect`, an unregistered op in custom form is
//! read leniently, and printing such a module does not always give text
//! that reads back to the same module. Real MLIR accepts unregistered ops
//! only in generic form. The tests are ignored until the reader decides
//! (reject custom-form unregistered ops, or delimit and print them
//! faithfully); `cargo test -- --ignored` runs them.

use tilemem_mlir::parse::{parse_module, ParseOptions};
use tilemem_mlir::print::print_module;

/// Read, print, read the print, print again: both reads succeed and both
/// prints are equal.
fn assert_round_trip(text: &str) {
    let opts = ParseOptions {
        allow_unregistered_dialect: true,
        line_offset: 0,
    };
    let Ok(module) = parse_module(text, &opts) else {
        return; // rejecting the input is a fine answer too
    };
    let once = print_module(&module);
    let again = match parse_module(&once, &opts) {
        Ok(m) => m,
        Err(d) => panic!("print does not read back: {}\n{once}", d.render("printed")),
    };
    assert_eq!(print_module(&again), once, "print is not a fixed point");
}

/// `c.d : f16` (no result) prints as `%0 = c.d : f16`, and the custom op
/// `a.b` before it then takes `%0` as its operand: "use of undeclared SSA
/// value name '%0'" when the print is read back.
#[test]
#[ignore = "unregistered custom-form ops do not round-trip (fuzz finding, mlir reader)"]
fn unregistered_custom_op_gains_a_result_and_swallows_the_next_line() {
    assert_round_trip("a.b\nc.d : f16\n");
}

/// A region inside an unregistered custom op prints as `a.b {\n a.b\n } e`
/// the first time and `a.b {a.b} e` the second.
#[test]
#[ignore = "unregistered custom-form ops do not round-trip (fuzz finding, mlir reader)"]
fn unregistered_custom_op_region_print_is_not_a_fixed_point() {
    assert_round_trip("a.b {a.b {} } e\n");
}

/// Registered dialects too: an `affine_map<...>` body is kept as text
/// without being checked (`affine_map<a>` reads), the printer names such
/// maps `#map`, `#map1`, ..., and a body that itself contains `#map` gets
/// that alias expanded when the print is read back, so the second print
/// differs. Real MLIR rejects both bodies.
#[test]
#[ignore = "affine_map bodies are not checked and aliases expand inside them (fuzz finding, mlir reader)"]
fn affine_map_body_mentioning_an_alias_changes_on_reprint() {
    assert_round_trip(
        "func.func private @f() attributes {x = affine_map<(d0) -> (d0)>, \
         y = affine_map<(d0) -> (d0 #map)>}\n",
    );
}
