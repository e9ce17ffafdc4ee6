//! Reader diagnostics: exact positions, messages and rendered snippets.

use tilemem_pto::parse;

const HEAD: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def main(self, x: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:\n";

fn err(body: &str) -> tilemem_pto::ParseError {
    let src = format!("{HEAD}{body}\n");
    match parse(&src) {
        Ok(_) => panic!("accepted:\n{body}"),
        Err(e) => e,
    }
}

fn rendered(body: &str) -> String {
    let src = format!("{HEAD}{body}\n");
    parse(&src).unwrap_err().render("k.py", &src)
}

#[test]
fn missing_bracket_in_type_is_reported_at_the_token() {
    assert_eq!(
        rendered("        a: pl.Tile[[32, 32], pl.FP32 = pl.tile.load(x)"),
        "error: expected `,` or `]` in the type, found `=`\n --> k.py:8:38\n  |\n8 |         a: pl.Tile[[32, 32], pl.FP32 = pl.tile.load(x)\n  |                                      ^ expected `,` or `]` in the type\n"
    );
}

#[test]
fn unclosed_bracket_points_at_the_opening() {
    let e = err("        a = pl.tile.load(x, [0, 0]");
    assert_eq!((e.line, e.col), (8, 25));
    assert_eq!(e.message, "`(` is never closed");
}

#[test]
fn mismatched_bracket() {
    let e = err("        a = pl.tile.load(x, [0, 0)");
    assert_eq!((e.line, e.col), (8, 34));
    assert_eq!(e.message, "`)` does not match the open `[`");
}

#[test]
fn unexpected_indentation() {
    let e = err("        a = x\n          b = a");
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (9, 11, "unexpected indentation")
    );
}

#[test]
fn inconsistent_dedent() {
    let e = err("        for i in pl.range(2):\n            a = x\n          b = a");
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (
            10,
            11,
            "unindent does not match any outer indentation level"
        )
    );
}

#[test]
fn yield_outside_a_loop() {
    let e = err("        a: pl.Tile[[32, 32], pl.FP32] = pl.yield_(x)");
    assert_eq!((e.line, e.col), (8, 9));
    assert_eq!(e.message, "`pl.yield_` outside a loop or `if`");
}

#[test]
fn branches_must_yield_into_the_same_variables() {
    let e = err(
        "        if x:\n            a = pl.yield_(x)\n        else:\n            b = pl.yield_(x)",
    );
    assert_eq!((e.line, e.col), (11, 13));
    assert!(e.message.contains("different variables"), "{}", e.message);
}

#[test]
fn literal_and_expression_errors() {
    let cases: [(&str, (u32, u32), &str); 9] = [
        (
            "        a = 99999999999999999999999",
            (8, 13),
            "integer literal does not fit in 64 bits",
        ),
        (
            "        a = 1 < 2 < 3",
            (8, 19),
            "chained comparisons are not supported",
        ),
        (
            "        a = x +",
            (8, 16),
            "expected an expression, found end of line",
        ),
        (
            "        a = 'abc",
            (8, 13),
            "string literal is not terminated",
        ),
        ("        a = 12abc", (8, 13), "invalid number literal"),
        ("        a = x $ 2", (8, 15), "unexpected character `$`"),
        (
            "        a = x.f(1)",
            (8, 16),
            "only dotted names (`pl.tile.add`, `self.kernel`) can be called",
        ),
        (
            "        a = pl.f(k=1, 2)",
            (8, 23),
            "positional argument after a keyword argument",
        ),
        (
            "        for i in x:\n            a = x",
            (8, 18),
            "a loop iterates over a call such as `pl.range(...)`",
        ),
    ];
    for (body, pos, msg) in cases {
        let e = err(body);
        assert_eq!(((e.line, e.col), e.message.as_str()), (pos, msg), "{body}");
    }
}

#[test]
fn structure_errors() {
    let e = parse("hello\n@pl.program\n").unwrap_err();
    assert_eq!((e.line, e.col), (1, 1));
    assert_eq!(
        e.message,
        "expected `@pl.program` (only comments and imports may precede it)"
    );
    let e = parse("# only a comment\n").unwrap_err();
    assert_eq!(e.message, "expected `@pl.program`, found end of file");
    let e = parse("@pl.program\nclass P:\n    x = 1\n").unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (3, 5, "expected `@pl.function`, found `x`")
    );
    let e =
        parse("@pl.program\nclass P:\n    @pl.function\n    def f():\n    return 1\n").unwrap_err();
    assert_eq!(e.message, "expected an indented block, found `return`");
    let e =
        parse("@pl.program\nclass P:\n    @pl.function\n    def f():\n        return 1\nx = 2\n")
            .unwrap_err();
    assert_eq!(
        (e.line, e.message.as_str()),
        (
            6,
            "expected end of file (one `@pl.program` class per file), found `x`"
        )
    );
}

#[test]
fn memref_errors_name_the_expected_form() {
    let e = err("        a: pl.Tile[[4], pl.FP32, pl.MemRef(m, 0, -5), pl.Mem.Vec] = x");
    assert_eq!(
        e.message,
        "expected the byte size as a non-negative integer, found `-`"
    );
    let e = err("        a: pl.Tile[[4], pl.FP32, pl.MemRef(m, 0, 16, foo=1), pl.Mem.Vec] = x");
    assert_eq!(e.message, "unknown `pl.MemRef` keyword `foo`");
    let e = err("        a: pl.Tile[[4], 32] = x");
    assert_eq!(e.message, "expected a dtype such as `pl.FP32`, found `32`");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("        a = {}1{}", "(".repeat(5000), ")".repeat(5000));
    let e = err(&deep);
    assert!(
        e.message.starts_with("nesting deeper than"),
        "{}",
        e.message
    );
    let neg = format!("        a = {}1", "-".repeat(5000));
    assert!(err(&neg).message.starts_with("nesting deeper than"));
}
