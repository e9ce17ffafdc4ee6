//! Reading errors: exact `file:line:col: error: message` texts.

use tilemem_mlir::parse::{parse_module, ParseOptions};

fn error(text: &str, allow_unregistered: bool) -> String {
    let opts = ParseOptions {
        allow_unregistered_dialect: allow_unregistered,
        line_offset: 0,
    };
    match parse_module(text, &opts) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(d) => d.render("t.mlir"),
    }
}

#[test]
fn undeclared_value() {
    assert_eq!(
        error(
            "func.func @f() {\n  memref.dealloc %x : memref<4xf32>\n  return\n}\n",
            false
        ),
        "t.mlir:2:18: error: use of undeclared SSA value name '%x'"
    );
}

#[test]
fn type_mismatch_names_both_types() {
    let text =
        "func.func @f(%a: memref<4xf32>) {\n  memref.dealloc %a : memref<8xf32>\n  return\n}\n";
    assert_eq!(
        error(text, false),
        "t.mlir:2:18: error: use of value '%a' expects different type than prior uses: 'memref<8xf32>' vs 'memref<4xf32>'"
    );
}

#[test]
fn unregistered_dialect_needs_the_flag() {
    let text = "func.func @f() {\n  \"some_use\"() : () -> ()\n  return\n}\n";
    assert_eq!(
        error(text, false),
        "t.mlir:2:3: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used"
    );
    let ok = parse_module(
        text,
        &ParseOptions {
            allow_unregistered_dialect: true,
            line_offset: 0,
        },
    );
    assert!(ok.is_ok());
}

#[test]
fn result_count_mismatch() {
    let text = "func.func @f() {\n  %a, %b = memref.alloc() : memref<4xf32>\n  return\n}\n";
    assert_eq!(
        error(text, false),
        "t.mlir:2:3: error: operation defines 1 results but was provided 2 to bind"
    );
}

#[test]
fn dynamic_alloc_needs_operands() {
    let text = "func.func @f() {\n  %a = memref.alloc() : memref<?xf32>\n  return\n}\n";
    assert_eq!(
        error(text, false),
        "t.mlir:2:25: error: dimension operand count does not equal memref dynamic dimension count"
    );
}

#[test]
fn strided_layout_rank_must_match() {
    let text = "func.func @f(%a: memref<4x4xf32, strided<[4]>>) {\n  return\n}\n";
    assert_eq!(
        error(text, false),
        "t.mlir:1:34: error: expected 2 strides in strided layout, found 1"
    );
}

#[test]
fn redefinition() {
    let text = "func.func @f() {\n  %a = memref.alloc() : memref<4xf32>\n  %a = memref.alloc() : memref<4xf32>\n  return\n}\n";
    assert_eq!(
        error(text, false),
        "t.mlir:3:3: error: redefinition of SSA value '%a'"
    );
}

#[test]
fn unknown_type_and_missing_brace() {
    assert_eq!(
        error("func.func @f(%a: foo) {\n  return\n}\n", false),
        "t.mlir:1:18: error: unknown type 'foo'"
    );
    assert_eq!(
        error("func.func @f() {\n  return\n", false),
        "t.mlir:3:1: error: expected '}' to end the region, found end of input"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!(
        "func.func @f() attributes {{a = {}{}}} {{\n  return\n}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(error(&text, false).contains("error: nesting too deep"));
}

/// An op read by its ODS format names the token the format wanted.
#[test]
fn format_names_the_missing_clause() {
    let text = "func.func @f(%a: memref<4xf32>) {\n  hivm.hir.vsort ins(%a : memref<4xf32>) outs(%a : memref<4xf32>)\n  return\n}\n";
    assert_eq!(
        error(text, false),
        "t.mlir:3:3: error: expected 'descending', found 'return'"
    );
}

/// A format's enum attribute must be `<value>` or the full `#dialect.x<..>`.
#[test]
fn format_enum_attribute_needs_angle_brackets() {
    let text = "func.func @f(%a: memref<4xf16>, %m: memref<4xi1>) {\n  hivm.hir.vcmp ins(%a, %a : memref<4xf16>, memref<4xf16>) outs(%m : memref<4xi1>) compare_mode = ne\n  return\n}\n";
    assert_eq!(
        error(text, false),
        "t.mlir:2:99: error: expected '<' to start the hivm.compare_mode attribute 'compare_mode', found 'ne'"
    );
}

/// A value never defined is reported at its first use, after the whole
/// input was read (it could have been defined further down).
#[test]
fn forward_reference_never_defined() {
    let text = "func.func @f() {\n  \"t.use\"(%later) : (i32) -> ()\n  return\n}\n";
    assert_eq!(
        error(text, true),
        "t.mlir:2:11: error: use of undeclared SSA value name '%later'"
    );
}

/// A forward reference used with one type and defined with another.
#[test]
fn forward_reference_with_another_type() {
    let text = "func.func @f() {\n  \"t.use\"(%v) : (i32) -> ()\n  %v = \"t.def\"() : () -> i64\n  return\n}\n";
    assert_eq!(
        error(text, true),
        "t.mlir:2:11: error: use of value '%v' expects different type than prior uses: 'i32' vs 'i64'"
    );
}

/// Branches name blocks of their region; every named block must be defined
/// once.
#[test]
fn undefined_and_redefined_blocks() {
    let undefined = "func.func @f() {\n  cf.br ^bb9\n}\n";
    assert_eq!(
        error(undefined, false),
        "t.mlir:2:9: error: reference to an undefined block '^bb9'"
    );
    let twice = "func.func @f() {\n  cf.br ^bb1\n^bb1:\n  return\n^bb1:\n  return\n}\n";
    assert_eq!(
        error(twice, false),
        "t.mlir:5:1: error: redefinition of block '^bb1'"
    );
}

/// Functions are isolated from above: a name used in one function is not
/// resolved by a definition in a later one.
#[test]
fn forward_reference_does_not_cross_functions() {
    let text = "func.func @a() {\n  \"t.use\"(%x) : (i32) -> ()\n  return\n}\nfunc.func @b() {\n  %x = \"t.def\"() : () -> i32\n  return\n}\n";
    assert_eq!(
        error(text, true),
        "t.mlir:2:11: error: use of undeclared SSA value name '%x'"
    );
}

/// An `scf.for` or `scf.if` yields one value per result: a yield of
/// another count once read, planned and printed with exit 0.
#[test]
fn a_yield_gives_one_value_per_result() {
    let ty = "memref<4xf32>";
    let for_loop = |yielded: &str, results: &str| {
        format!(
            "func.func @f(%a: {ty}) {{\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  \
             {results} = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a) -> ({ty}) {{\n    \
             scf.yield {yielded}\n  }}\n  return\n}}\n"
        )
    };
    assert_eq!(
        error(&for_loop(&format!("%x, %x : {ty}, {ty}"), "%r"), false),
        "t.mlir:5:5: error: 'scf.yield' op yields 2 value(s), but the enclosing 'scf.for' has 1 \
         result(s): yield one value per result"
    );
    assert!(parse_module(
        &for_loop(&format!("%x : {ty}"), "%r"),
        &ParseOptions {
            allow_unregistered_dialect: false,
            line_offset: 0,
        }
    )
    .is_ok());
    let branches = format!(
        "func.func @f(%a: {ty}, %t: i1) {{\n  %r = scf.if %t -> ({ty}) {{\n    scf.yield %a : {ty}\n  }} \
         else {{\n    scf.yield %a, %a : {ty}, {ty}\n  }}\n  return\n}}\n"
    );
    assert_eq!(
        error(&branches, false),
        "t.mlir:5:5: error: 'scf.yield' op yields 2 value(s), but the enclosing 'scf.if' has 1 \
         result(s): yield one value per result"
    );
}
