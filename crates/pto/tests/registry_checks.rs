//! Calls checked against PyPTO's op registry: exact diagnostics for
//! keywords, argument counts and input spaces (issue 15), and the wording
//! of the over-capacity error (PyPTO's text, then tilemem's explanation).

mod common;

// A skip is written to stderr directly, past the harness's output capture.
use common::program;
use std::io::Write as _;
use tilemem_pto::passes::{run_pipeline, ErrorKind, PassContext, PassError, PassId, PlannerMode};
use tilemem_pto::{parse, ParseError};
use tilemem_soc::Soc;

const SIG: &str = "x: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]";
/// [`SIG`] with a tile parameter `a`, for calls checked before planning.
const SIG_A: &str = "x: pl.Tensor[[16, 16], pl.BF16], a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]";

/// The reader's error for a one-function program with `body`, rendered as
/// the CLI prints it (file `k.py`).
fn rendered(body: &[&str]) -> String {
    let src = program("InCore", SIG, body);
    let e: ParseError = parse(&src).expect_err("the reader rejects it");
    e.render("k.py", &src)
}

fn plan(body: &[&str]) -> (Result<(), PassError>, Vec<String>) {
    let src = program("InCore", SIG, body);
    let mut p = parse(&src).expect("reads");
    let mut cx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    let r = run_pipeline(&mut p, &mut cx, &PassId::ALL);
    let warnings = cx.diagnostics.iter().map(|d| d.to_string()).collect();
    (r, warnings)
}

const LOAD: &str = "a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)";

#[test]
fn unknown_keyword_is_named_at_the_keyword_with_what_is_accepted() {
    let got = rendered(&[
        "a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, clamp=True, pad=0)",
        "return out",
    ]);
    let line = "        a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, clamp=True, pad=0)";
    assert_eq!(
        got,
        format!(
            "error: 'tile.load' has no keyword argument 'pad': PyPTO e2d0f78 accepts the \
             attributes target_memory (MemorySpace), clamp (bool), the arguments tensor, offsets, \
             shapes, valid_shape by name, `attrs=`\n --> k.py:8:135\n  |\n8 | {line}\n  | {}^^^ \
             unknown keyword\n",
            " ".repeat(134)
        )
    );
}

#[test]
fn arguments_by_name_and_call_attrs_are_accepted() {
    // PyPTO prints `tile.full`'s value and a call's attribute dictionary as
    // keywords; the seed writes `init_cond=` by name.
    let src = program(
        "InCore",
        SIG,
        &[
            "f: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)",
            "g: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(f, attrs={\"k\": \"v\"})",
            "return out",
        ],
    );
    assert!(parse(&src).is_ok());
    // An op that declares no attribute validates no keyword (PyPTO's
    // CreateImpl): `system.task_dummy(deps=...)` as PyPTO prints it.
    let src = program(
        "InCore",
        SIG,
        &["t = pl.system.task_dummy(deps=[])", "return out"],
    );
    assert!(parse(&src).is_ok());
}

#[test]
fn an_argument_given_twice_is_an_error_at_its_keyword() {
    let e = parse(&program(
        "InCore",
        SIG,
        &[
            "f: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 16], 0.0, value=1.0)",
            "return out",
        ],
    ))
    .unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str(), e.label.as_str()),
        (
            8,
            81,
            "'tile.full' gets argument 'value' twice: as positional argument 1 and as `value=`; \
             drop one of them",
            "given twice"
        )
    );
}

#[test]
fn a_repeated_keyword_is_an_error() {
    let e = parse(&program(
        "InCore",
        SIG_A,
        &[
            "b = pl.tile.cast(a, target_type=pl.FP32, target_type=pl.FP16)",
            "return out",
        ],
    ))
    .unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (
            8,
            50,
            "keyword argument 'target_type' repeated in a call of 'tile.cast'"
        )
    );
}

#[test]
fn a_missing_argument_names_the_op_the_argument_and_the_fix() {
    let e = parse(&program(
        "InCore",
        SIG_A,
        &[
            "c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a)",
            "return out",
        ],
    ))
    .unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str(), e.label.as_str()),
        (
            8,
            53,
            "'tile.matmul' needs argument 'rhs' (position 1 of lhs, rhs), found 1 positional \
             argument: pass it positionally or as `rhs=`",
            "missing argument"
        )
    );
    // By name it is there.
    let src = program(
        "InCore",
        SIG_A,
        &[
            "c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, rhs=a)",
            "return out",
        ],
    );
    assert!(parse(&src).is_ok());
    // The accumulator's reused input and the slice's offsets are required
    // too; trailing arguments no memory fact names may be left out.
    let e = parse(&program(
        "InCore",
        SIG_A,
        &["s = pl.tile.slice(a, [8, 8])", "return out"],
    ))
    .unwrap_err();
    assert!(
        e.message
            .starts_with("'tile.slice' needs argument 'offset' (position 2"),
        "{}",
        e.message
    );
    let src = program(
        "InCore",
        SIG_A,
        &[
            "s = pl.tile.slice(a, [8, 8], [0, 0])",
            "r = pl.tile.rsqrt(a)",
            "return out",
        ],
    );
    assert!(parse(&src).is_ok());
}

#[test]
fn too_many_arguments_keep_their_wording() {
    let e = parse(&program(
        "InCore",
        SIG_A,
        &["b = pl.tile.exp(a, a)", "return out"],
    ))
    .unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (
            8,
            13,
            "'tile.exp' takes at most 1 positional argument (tile), found 2"
        )
    );
}

#[test]
fn a_constrained_operand_without_a_space_is_bad_input() {
    let (r, _) = plan(&[
        "a: pl.Tile[[16, 16], pl.BF16] = pl.tile.load(x, [0, 0], [16, 16], [16, 16])",
        "b: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Right)",
        "c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)",
        "r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)",
        "return r",
    ]);
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input);
    assert_eq!(e.loc.map(|l| (l.line, l.col)), Some((10, 9)));
    assert_eq!(
        e.to_string(),
        "ValueError: 'tile.matmul' argument 0 (lhs) 'a' is a tile without a memory space, so it \
         gets no storage; PyPTO e2d0f78 registers the argument for Left (set_input_memory): \
         declare the space in its type (`pl.Mem.Left`)"
    );
}

#[test]
fn a_declared_space_the_registry_does_not_allow_is_planned_with_a_warning() {
    // PyPTO's memory passes plan such a program as written
    // (cases/mr__TestYieldFixup__*: a matmul reading Mat tiles).
    let (r, warnings) = plan(&[
        "a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)",
        "b: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Right)",
        "c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)",
        "r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)",
        "return r",
    ]);
    r.unwrap();
    assert_eq!(
        warnings,
        [
            "[warning] line 10: 'tile.matmul' argument 0 (lhs) 'a' is in Mat, but PyPTO e2d0f78 \
          registers the argument for Left only (set_input_memory); planned as declared: move it \
          first (`pl.tile.move(a, target_memory=pl.Mem.Left)`) unless the target reads it there"
        ]
    );
    // A store may read Vec or Acc: both are fine, Mat is not.
    let (r, warnings) = plan(&[
        LOAD,
        "r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(a, [0, 0], out)",
        "return r",
    ]);
    r.unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn capacity_error_is_pyptos_text_then_tilemems_explanation() {
    // 64 x 752 FP32 = 192512 bytes > 188416 usable UB bytes on 910B: the
    // first sentence is PyPTO's (cases/aa__*_exceeds_safe_cap__incore), the
    // rest tilemem's.
    let src = program(
        "InCore",
        "x: pl.Tensor[[64, 752], pl.FP32]) -> pl.Tensor[[64, 752], pl.FP32]",
        &[
            "a: pl.Tile[[64, 752], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 752], [64, 752], target_memory=pl.Mem.Vec)",
            "return x",
        ],
    );
    let mut p = parse(&src).unwrap();
    let mut cx = PassContext::new(Soc::from_name("910b").unwrap(), PlannerMode::Pypto);
    let e = run_pipeline(&mut p, &mut cx, &PassId::ALL).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Planning);
    assert_eq!(
        e.to_string(),
        "ValueError: Vec buffer usage (192512 bytes) exceeds platform limit (188416 bytes); in \
         function 'main': shrink tiles, enable buffer reuse, or split the kernel; the allocation \
         'mem_vec_1' alone needs 192512 bytes"
    );
}

/// Every over-capacity error PyPTO raised on the shared cases is, verbatim,
/// the start of tilemem's message for the same input, and tilemem's own
/// explanation follows after `; `.
#[test]
fn shared_capacity_errors_start_with_pyptos_text() {
    let root = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/pto/cases"
    );
    let Ok(dir) = std::fs::read_dir(root) else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (no ../shared): shared_capacity_errors_start_with_pyptos_text: {root} not present"
        );
        return;
    };
    let mut seen = 0;
    let mut cases: Vec<_> = dir.flatten().map(|e| e.path()).collect();
    cases.sort();
    for d in cases {
        let Ok(want) = std::fs::read_to_string(d.join("after_alloc.error.txt")) else {
            continue;
        };
        let want = want.trim();
        if !want.contains("exceeds platform limit") {
            continue;
        }
        let meta = std::fs::read_to_string(d.join("meta.json")).unwrap();
        let target = if meta.contains("\"950\"") {
            "950"
        } else {
            "910b"
        };
        let src = std::fs::read_to_string(d.join("before.py")).unwrap();
        let mut p = parse(&src).unwrap();
        let mut cx = PassContext::new(Soc::from_name(target).unwrap(), PlannerMode::Pypto);
        let passes = [PassId::MemoryReuse, PassId::AllocateMemoryAddr];
        let got = run_pipeline(&mut p, &mut cx, &passes)
            .unwrap_err()
            .to_string();
        let rest = got
            .strip_prefix(want)
            .unwrap_or_else(|| panic!("{}: {got}\ndoes not start with {want}", d.display()));
        assert!(
            rest.starts_with("; in function '"),
            "{}: {rest}",
            d.display()
        );
        seen += 1;
    }
    assert!(seen >= 2, "only {seen} capacity cases found");
}

#[test]
fn a_memory_space_attribute_takes_a_known_space() {
    let e = parse(&program(
        "InCore",
        SIG,
        &[
            "a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.UB)",
            "return out",
        ],
    ))
    .unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str(), e.label.as_str()),
        (
            8,
            97,
            "'tile.load' keyword 'target_memory' is registered as MemorySpace \
             (set_attr<MemorySpace>): write a memory space (`pl.Mem.Vec`, `pl.Mem.Mat`, \
             `pl.Mem.Left`, `pl.Mem.Right`, `pl.Mem.Acc`, `pl.Mem.Bias`, ...)",
            "wrong attribute type"
        )
    );
    let e = parse(&program(
        "InCore",
        SIG,
        &[
            "a = pl.tile.load(x, [0, 0], [16, 16], [16, 16], clamp=1)",
            "return out",
        ],
    ))
    .unwrap_err();
    assert_eq!(
        e.message,
        "'tile.load' keyword 'clamp' is registered as bool (set_attr<bool>): write `True` or \
         `False`"
    );
    // Integer attributes are printed as numbers, strings or enums: not
    // checked (`tile.cast(..., mode='round')`).
    let src = program(
        "InCore",
        SIG,
        &[
            "b = pl.tile.cast(x, target_type=pl.FP32, mode='round')",
            "return out",
        ],
    );
    assert!(parse(&src).is_ok());
}
