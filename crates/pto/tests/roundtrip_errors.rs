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
            "        a = pl.range(k=1, 2)",
            (8, 27),
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
        "expected `@pl.program` (only comments, imports and `NAME = ...` assignments may precede it)"
    );
    let e = parse("N = pl.dynamic(\"N\"\n@pl.program\n").unwrap_err();
    assert_eq!(
        (e.line, e.col),
        (1, 1),
        "an unbalanced assignment is not a declaration"
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
    let e = err("        a: pl.Tile[[4], pl.FP32, pl.MemRef(\"m\", 0, -5), pl.Mem.Vec] = x");
    assert_eq!(
        e.message,
        "expected the byte size as a non-negative integer, found `-`"
    );
    let e = err("        a: pl.Tile[[4], pl.FP32, pl.MemRef(\"m\", 0, 16, foo=1), pl.Mem.Vec] = x");
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

/// An `if`/`elif` ladder of `n` branches, each assigning `a`.
fn elif_ladder(n: usize) -> String {
    let mut body = String::from("        if x == 0:\n            a = 0\n");
    for k in 1..n {
        body.push_str(&format!("        elif x == {k}:\n            a = {k}\n"));
    }
    body.push_str("        return x");
    body
}

#[test]
fn a_flat_elif_chain_is_one_nesting_level() {
    // 65 branches used to be rejected as 65 levels of nesting.
    let src = format!("{HEAD}{}\n", elif_ladder(65));
    let p = parse(&src).expect("a 65-branch ladder reads");
    assert_eq!(tilemem_pto::print(&p), src, "the ladder prints back flat");
    let src = format!("{HEAD}{}\n", elif_ladder(1024));
    assert!(parse(&src).is_ok(), "1024 branches are within the limit");
    let e = err(&elif_ladder(1025));
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (
            8 + 2 * 1024,
            9,
            "an `if`/`elif` chain longer than 1024 branches"
        )
    );
}

#[test]
fn with_blocks_pass_and_module_declarations_round_trip() {
    let src = "# pypto.program: P\nimport pypto.language as pl\n\nN = pl.dynamic(\"N\")\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)\n    def main(self, x: pl.Tensor[[N, 32], pl.FP32]) -> pl.Tensor[[N, 32], pl.FP32]:\n        with pl.scope(mode=pl.ScopeMode.MANUAL):\n            y: pl.Tensor[[N, 32], pl.FP32] = self.k(x)\n        if N > 0:\n            pass\n        else:\n            pass\n        return y\n";
    let p = parse(src).expect("reads");
    assert_eq!(tilemem_pto::print(&p), src);
    let e = err("        with pl.scope() as s:\n            pass");
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (8, 25, "`with ... as NAME` is not part of PyPTO's language")
    );
}

#[test]
fn invalid_utf8_is_reported_at_the_first_bad_byte() {
    let src = b"# x\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        a = \"h\xc3\xa9\xffllo\"\n";
    let e = tilemem_pto::decode(src).unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (8, 16, "invalid UTF-8 (byte 0xFF): a program is UTF-8 text")
    );
    assert_eq!(tilemem_pto::decode(b"ok\n").unwrap(), "ok\n");
}

#[test]
fn unknown_op_is_named_at_its_callee() {
    assert_eq!(
        rendered("        a = pl.tile.max(x, x)"),
        "error: unknown op 'tile.max': PyPTO e2d0f78 registers no op of this name (did you mean 'tile.maximum'?)\n --> k.py:8:13\n  |\n8 |         a = pl.tile.max(x, x)\n  |             ^^^^^^^^^^^ not a PyPTO op\n"
    );
    let e = err("        a = pl.system.nope()");
    assert_eq!((e.line, e.col), (8, 13));
    assert!(
        e.message.starts_with("unknown op 'system.nope'"),
        "{}",
        e.message
    );
    // Registered ops outside the table and non-op callees still read.
    let src = format!("{HEAD}        a = pl.tensor.add(x, x)\n        return x\n");
    assert!(parse(&src).is_ok());
}

#[test]
fn too_many_arguments_are_reported_with_the_registry_signature() {
    let e = err("        a = pl.tile.exp(x, x)");
    assert_eq!((e.line, e.col), (8, 13));
    assert_eq!(
        e.message,
        "'tile.exp' takes at most 1 positional argument (tile), found 2"
    );
}

/// A dtype is one of PyPTO's `DataType` names; any other (`pl.FP30`) is an
/// error at the name with the closest one, in a type (a distributed
/// tensor's too) and in `pl.const`.
#[test]
fn unknown_dtypes_name_the_closest_known_one() {
    let all = "PyPTO's dtypes are BOOL, INT4, INT8, INT16, INT32, INT64, INDEX, UINT4, UINT8, \
               UINT16, UINT32, UINT64, FP4, FP8E4M3FN, FP8E5M2, FP8E8M0, FP16, FP32, BF16, HF4, \
               HF8, TASK_ID";
    let cases = [
        (
            "        a: pl.Tile[[32, 32], pl.FP30, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32])",
            (8, 30, "unknown dtype `pl.FP30`"),
            format!("did you mean `pl.FP32`? {all}"),
        ),
        (
            "        s: pl.Scalar[pl.INT64] = pl.tensor.dim(x,\n            pl.const(0, pl.INT65))",
            (9, 25, "unknown dtype `pl.INT65`"),
            format!("did you mean `pl.INT64`? {all}"),
        ),
        (
            "        d: pld.DistributedTensor[[32, 32], pl.BF61] = pl.tensor.create([32, 32])",
            (8, 44, "unknown dtype `pl.BF61`"),
            format!("did you mean `pl.BF16`? {all}"),
        ),
        (
            "        a: pl.Tile[[32, 32], pl.QQQQQQQ] = pl.tile.load(x, [0, 0], [32, 32])",
            (8, 30, "unknown dtype `pl.QQQQQQQ`"),
            all.to_string(),
        ),
    ];
    for (body, at, label) in cases {
        let e = err(body);
        assert_eq!((e.line, e.col, e.message.as_str()), at, "{body}");
        assert_eq!(e.label, label, "{body}");
    }
    // Every name of the list reads, and prints back as written.
    for d in tilemem_pto::ir::PYPTO_DTYPES {
        let line = format!("s: pl.Scalar[pl.{d}] = pl.tensor.dim(x, pl.const(0, pl.{d}))");
        let src = format!("{HEAD}        {line}\n        return x\n");
        let p = parse(&src).unwrap_or_else(|e| panic!("{d}: {e}"));
        assert!(tilemem_pto::print::print(&p).contains(&line), "{d}");
    }
}
