//! What kind of input a file is, told from its content, so that a file
//! given to the wrong reader gets an error naming the one that reads it
//! instead of a syntax error at 1:1. Every front end asks here: the
//! command line names its commands, Python its functions
//! ([`Front`]).
//!
//! Each kind is one entry of `KINDS`: a name, what reads it in each
//! front end and a test on the file's first bytes. A new input form
//! (another binary or text format) is one more entry. The front ends
//! consult the recogniser only when their own reader fails, so a valid
//! input never pays for it and never gets refused by a guess.

/// How many bytes of a file the tests look at.
const HEAD: usize = 64 * 1024;

/// A kind of input the commands read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// PyPTO program text (`@pl.program`): `plan`, `explain`, `fmt`.
    Pypto,
    /// A PyPTO MessagePack document (`pypto.ir.serialize`): `plan`, `fmt`.
    PtoMsgpack,
    /// MLIR text: `opt`.
    Mlir,
    /// A placement problem, MiniMalloc-style CSV: `solve`, `validate`.
    ProblemCsv,
}

/// Which front end an error is for: it names that front end's command or
/// function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    /// The `tilemem` command line.
    Cli,
    /// The `tilemem` Python module.
    Python,
}

/// What reads a kind in one front end.
struct Reader {
    /// The command line (or call) to use instead, with `FILE` for the file.
    usage: &'static str,
    /// Other commands (or functions) that read it, said after the usage.
    also: &'static str,
}

/// One recognisable kind.
struct Kind {
    kind: InputKind,
    /// What the file is, after "this is".
    what: &'static str,
    /// What reads it on the command line.
    cli: Reader,
    /// What reads it in Python.
    python: Reader,
    /// Whether the first bytes of a file are of this kind.
    test: fn(&[u8]) -> bool,
}

/// Every kind, most specific test first.
const KINDS: &[Kind] = &[
    Kind {
        kind: InputKind::Pypto,
        what: "a PyPTO program",
        cli: Reader {
            usage: "tilemem plan FILE",
            also: " (or `tilemem explain`, `tilemem fmt`)",
        },
        python: Reader {
            usage: "tilemem.plan(FILE)",
            also: " (or `tilemem.explain`, `tilemem.fmt`)",
        },
        test: is_pypto,
    },
    Kind {
        kind: InputKind::PtoMsgpack,
        what: "a PyPTO MessagePack document",
        cli: Reader {
            usage: "tilemem plan FILE",
            also: " (or `tilemem fmt` for its program text)",
        },
        python: Reader {
            usage: "tilemem.pypto.plan_document(pathlib.Path(FILE).read_bytes())",
            also: "",
        },
        test: crate::msgpack::looks_like_msgpack,
    },
    Kind {
        kind: InputKind::Mlir,
        what: "an MLIR file",
        cli: Reader {
            usage: "tilemem opt -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory FILE",
            also: " (plan its local memory), `tilemem explain FILE` (where the memory goes, what \
                   would make it fit), `tilemem opt -hivm-mark-stride-align \
                   -hivm-enable-stride-align FILE` (stride alignment); `tilemem opt --help` \
                   lists every pass",
        },
        python: Reader {
            usage: "tilemem.opt(FILE, [\"hacc-append-device-spec=target=Ascend910B1\", \
                    \"hivm-plan-memory\"])",
            also: " (plan its local memory), `tilemem.explain(FILE)` (where the memory goes, \
                   what would make it fit); `tilemem.mlir_passes()` lists every pass",
        },
        test: is_mlir,
    },
    Kind {
        kind: InputKind::ProblemCsv,
        what: "a placement problem (CSV)",
        cli: Reader {
            usage: "tilemem solve FILE",
            also: " (or `tilemem validate` for a placed one)",
        },
        python: Reader {
            usage: "tilemem.solve(FILE)",
            also: " (or `tilemem.validate` for a placed one)",
        },
        test: is_problem_csv,
    },
];

/// The kind of a file from its first bytes, when one test recognises it.
pub fn recognise(bytes: &[u8]) -> Option<InputKind> {
    let head = &bytes[..bytes.len().min(HEAD)];
    KINDS.iter().find(|k| (k.test)(head)).map(|k| k.kind)
}

/// When `bytes` are recognisably of another kind than `want`, the error
/// the command line prints instead of the reader's: what the file is and
/// the command that reads it.
pub fn mismatch(file: &str, bytes: &[u8], want: InputKind) -> Option<String> {
    mismatch_for(Front::Cli, file, bytes, want).map(|m| format!("{file}: error: {m}"))
}

/// What [`mismatch`] says, for front end `front` and without the file
/// name in front (Python's exceptions carry it apart): "this is X, not
/// Y: use ...", naming that front end's command or function.
pub fn mismatch_for(front: Front, file: &str, bytes: &[u8], want: InputKind) -> Option<String> {
    let got = recognise(bytes)?;
    if got == want {
        return None;
    }
    let k = KINDS.iter().find(|k| k.kind == got)?;
    let wanted = KINDS.iter().find(|k| k.kind == want)?;
    let (reader, file) = match front {
        Front::Cli => (&k.cli, file.to_string()),
        // A path as a Python literal; text given in a string has no path.
        Front::Python if file.starts_with('<') => (&k.python, "path".to_string()),
        Front::Python => (&k.python, format!("{file:?}")),
    };
    Some(format!(
        "this is {}, not {}: use `{}`{}",
        k.what,
        wanted.what,
        reader.usage.replace("FILE", &file),
        reader.also.replace("FILE", &file)
    ))
}

/// Lines of `head` that carry content: not blank, not a comment in `marker`.
fn significant<'a>(head: &'a [u8], marker: &'a str) -> impl Iterator<Item = &'a str> {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // Cut inside a character: the valid prefix.
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    text.lines()
        .map(str::trim)
        .filter(move |l| !l.is_empty() && !l.starts_with(marker))
}

/// PyPTO program text: PyPTO's header comment, its import or the class
/// decorator.
fn is_pypto(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    text.lines().map(str::trim_start).any(|l| {
        l.starts_with("@pl.program")
            || l.starts_with("# pypto.program:")
            || l.starts_with("import pypto")
            || l.starts_with("from pypto")
    })
}

/// MLIR text: the first line that is not a `//` comment opens a module, a
/// function or an operation, or declares an attribute or type alias.
fn is_mlir(head: &[u8]) -> bool {
    let Some(first) = significant(head, "//").next() else {
        return false;
    };
    let word: String = first
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '"'))
        .collect();
    first.starts_with("module")
        || first.starts_with("func.func")
        || first.starts_with("\"builtin.module\"")
        // `#map = affine_map<...>`, `!t = ...`
        || ((first.starts_with('#') || first.starts_with('!'))
            && first.split_once('=').is_some_and(|(lhs, _)| {
                !lhs.trim().contains(' ') && lhs.trim().len() > 1
            }))
        // `%0 = ...` or `dialect.op ...` at top level
        || first.starts_with('%')
        || (word.contains('.') && !word.starts_with('"') && first[word.len()..].starts_with([' ', '(', '{']))
}

/// A placement problem: the first line that is not a `#` comment is a
/// CSV header naming a buffer's lifetime and size.
fn is_problem_csv(head: &[u8]) -> bool {
    let Some(first) = significant(head, "#").next() else {
        return false;
    };
    let cols: Vec<String> = first
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    let has = |name: &str| cols.iter().any(|c| c == name);
    cols.len() >= 3 && has("size") && (has("lower") || has("start")) && (has("upper") || has("end"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTO: &str = include_str!("../../../examples/pto/vector_chain.py");
    const MLIR: &str = include_str!("../../../examples/mlir/unaligned_rows.mlir");
    const CSV: &str = include_str!("../../../examples/dsa/staircase.csv");

    #[test]
    fn the_examples_are_told_apart() {
        assert_eq!(recognise(PTO.as_bytes()), Some(InputKind::Pypto));
        assert_eq!(recognise(MLIR.as_bytes()), Some(InputKind::Mlir));
        assert_eq!(recognise(CSV.as_bytes()), Some(InputKind::ProblemCsv));
        assert_eq!(
            recognise(b"module attributes {hacc.target = \"Ascend910B\"} {\n}\n"),
            Some(InputKind::Mlir)
        );
        assert_eq!(
            recognise(b"#map = affine_map<(d0) -> (d0)>\nfunc.func @f() {\n  return\n}\n"),
            Some(InputKind::Mlir)
        );
        assert_eq!(recognise(b"hello\n"), None);
        assert_eq!(recognise(b""), None);
        assert_eq!(
            recognise(&[0x85, 0xa4, b'k', b'i', b'n', b'd']),
            Some(InputKind::PtoMsgpack)
        );
        assert_eq!(recognise(&[0x93, 0x01, 0x02, 0x03]), None);
    }

    #[test]
    fn a_mismatch_names_the_command_that_reads_the_file() {
        assert_eq!(
            mismatch("x.mlir", MLIR.as_bytes(), InputKind::Pypto).unwrap(),
            "x.mlir: error: this is an MLIR file, not a PyPTO program: use `tilemem opt \
             -hacc-append-device-spec=target=Ascend910B1 -hivm-plan-memory x.mlir` (plan its \
             local memory), `tilemem explain x.mlir` (where the memory goes, what would make it \
             fit), `tilemem opt -hivm-mark-stride-align -hivm-enable-stride-align x.mlir` \
             (stride alignment); `tilemem opt --help` lists every pass"
        );
        assert_eq!(
            mismatch("y.py", PTO.as_bytes(), InputKind::Mlir).unwrap(),
            "y.py: error: this is a PyPTO program, not an MLIR file: use `tilemem plan y.py` \
             (or `tilemem explain`, `tilemem fmt`)"
        );
        assert_eq!(
            mismatch("p.csv", CSV.as_bytes(), InputKind::Pypto).unwrap(),
            "p.csv: error: this is a placement problem (CSV), not a PyPTO program: use \
             `tilemem solve p.csv` (or `tilemem validate` for a placed one)"
        );
        assert_eq!(mismatch("y.py", PTO.as_bytes(), InputKind::Pypto), None);
        assert_eq!(
            mismatch("k.msgpack", &[0x81, 0xa1, b'a', 0x01], InputKind::Mlir).unwrap(),
            "k.msgpack: error: this is a PyPTO MessagePack document, not an MLIR file: use \
             `tilemem plan k.msgpack` (or `tilemem fmt` for its program text)"
        );
        assert_eq!(mismatch("z", b"garbage", InputKind::Pypto), None);
    }

    #[test]
    fn python_is_told_its_own_functions() {
        assert_eq!(
            mismatch_for(Front::Python, "p.csv", CSV.as_bytes(), InputKind::Pypto).unwrap(),
            "this is a placement problem (CSV), not a PyPTO program: use \
             `tilemem.solve(\"p.csv\")` (or `tilemem.validate` for a placed one)"
        );
        assert_eq!(
            mismatch_for(Front::Python, "<string>", MLIR.as_bytes(), InputKind::Pypto).unwrap(),
            "this is an MLIR file, not a PyPTO program: use `tilemem.opt(path, \
             [\"hacc-append-device-spec=target=Ascend910B1\", \"hivm-plan-memory\"])` (plan its \
             local memory), `tilemem.explain(path)` (where the memory goes, what would make it \
             fit); `tilemem.mlir_passes()` lists every pass"
        );
    }
}
