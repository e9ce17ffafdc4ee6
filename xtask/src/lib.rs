//! Repository tasks. `cargo xtask ods [ODS_DIR]` writes
//! `crates/mlir/src/ir/ods_table.rs`, the op-format table of every `hivm`
//! and `ave` op, and `crates/mlir/src/ir/ods_traits.rs`, the traits and
//! interfaces each of those ops declares, from the AscendNPU-IR ODS files
//! (`../shared/reference/ascendnpu-ir/ods` by default).
//! `cargo xtask pto-registry [CSV]` writes `crates/pto/src/ops/table.rs`
//! from PyPTO's op registry (see [`pto_registry`]).
//! `cargo xtask device-spec [TD]` writes `crates/soc/src/device_spec_table.rs`
//! from AscendNPU-IR's chip specifications (see [`device_spec`]).

pub mod device_spec;
pub mod pto_registry;
pub mod tablegen;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tablegen::{Instance, Records, Val};

/// The ODS folder next to the repository (`../shared/...`).
pub fn default_ods_dir() -> PathBuf {
    repo_root().join("../shared/reference/ascendnpu-ir/ods")
}

/// The repository root (the parent of this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where the generated table lives.
pub fn table_path() -> PathBuf {
    repo_root().join("crates/mlir/src/ir/ods_table.rs")
}

/// Where the generated traits table lives.
pub fn traits_path() -> PathBuf {
    repo_root().join("crates/mlir/src/ir/ods_traits.rs")
}

fn td_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            td_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "td") {
            out.push(p);
        }
    }
    Ok(())
}

/// One op of the table.
struct OpRow {
    name: String,
    operands: Vec<(String, &'static str)>,
    attrs: Vec<(String, String, &'static str, Option<String>)>,
    results: Vec<(String, &'static str)>,
    regions: usize,
    same_types: Vec<Vec<String>>,
    successors: Vec<String>,
    format: Option<String>,
}

/// The groups of operands/results whose types the op's traits make equal
/// (`AllTypesMatch<[..]>`, `SameOperandsAndResultType`): how a format
/// that omits a result type infers it.
fn same_types(traits: Option<&Val>, row: &OpRow) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let Some(Val::List(items)) = traits else {
        return out;
    };
    for t in items {
        match t {
            Val::Inst(n, args) if n == "AllTypesMatch" => {
                if let Some(Val::List(names)) = args.first() {
                    out.push(
                        names
                            .iter()
                            .filter_map(|v| match v {
                                Val::Str(s) => Some(s.clone()),
                                _ => None,
                            })
                            .collect(),
                    );
                }
            }
            Val::Id(n) if n == "SameOperandsAndResultType" => {
                out.push(
                    row.operands
                        .iter()
                        .map(|(n, _)| n.clone())
                        .chain(row.results.iter().map(|(n, _)| n.clone()))
                        .collect(),
                );
            }
            _ => {}
        }
    }
    out
}

/// `Arg<X, "doc">` / `Res<X, "doc">` stand for `X`.
fn unwrap_arg(v: Val) -> Val {
    match v {
        Val::Inst(n, mut args) if (n == "Arg" || n == "Res") && !args.is_empty() => {
            unwrap_arg(args.swap_remove(0))
        }
        other => other,
    }
}

fn arity(constraint: &str) -> &'static str {
    if constraint.starts_with("Variadic<") {
        "Variadic"
    } else if constraint.starts_with("Optional<") {
        "Optional"
    } else {
        "Single"
    }
}

/// The innermost attribute constraint of `OptionalAttr<X>`,
/// `DefaultValuedAttr<X, d>`, `ConfinedAttr<X, ...>`.
fn base_attr(v: &Val) -> (&Val, &'static str, Option<String>) {
    match v {
        Val::Inst(n, args) if n == "OptionalAttr" && !args.is_empty() => {
            (base_attr(&args[0]).0, "Optional", None)
        }
        Val::Inst(n, args)
            if (n == "DefaultValuedAttr" || n == "DefaultValuedOptionalAttr")
                && !args.is_empty() =>
        {
            let default = match args.get(1) {
                Some(Val::Str(s)) => Some(s.clone()),
                _ => None,
            };
            (base_attr(&args[0]).0, "Default", default)
        }
        Val::Inst(n, args) if n == "ConfinedAttr" && !args.is_empty() => base_attr(&args[0]),
        _ => (v, "Required", None),
    }
}

/// How an attribute is spelled inside an op format: `enum:hivm.pipe` for
/// dialect attributes printed stripped (`<PIPE_V>`), else the builtin
/// kind (`array:i64`, `int:i64`, `bool`, `unit`, `str`, `type`, `any`).
fn attr_kind(records: &Records, v: &Val) -> String {
    let name = match v {
        Val::Id(n) => n.clone(),
        Val::Inst(n, _) => n.clone(),
        _ => return "any".into(),
    };
    let builtin = |n: &str| -> Option<String> {
        Some(match n {
            "UnitAttr" => "unit".into(),
            "BoolAttr" => "bool".into(),
            "StrAttr" => "str".into(),
            "TypeAttr" | "TypeAttrOf" => "type".into(),
            "DenseI64ArrayAttr" => "array:i64".into(),
            "DenseI32ArrayAttr" => "array:i32".into(),
            "DenseI16ArrayAttr" => "array:i16".into(),
            "DenseI8ArrayAttr" => "array:i8".into(),
            "DenseBoolArrayAttr" => "array:i1".into(),
            "I64Attr" | "SI64Attr" | "UI64Attr" => "int:i64".into(),
            "I32Attr" | "SI32Attr" | "UI32Attr" => "int:i32".into(),
            "I16Attr" => "int:i16".into(),
            "I8Attr" => "int:i8".into(),
            "I1Attr" => "int:i1".into(),
            "IndexAttr" => "int:index".into(),
            "F32Attr" => "float:f32".into(),
            "F64Attr" => "float:f64".into(),
            "FlatSymbolRefAttr" | "SymbolRefAttr" => "symbol".into(),
            _ => return None,
        })
    };
    if let Some(k) = builtin(&name) {
        return k;
    }
    if let Some(def) = records.def(&name) {
        let inst = records.instantiate(def);
        for (anc, args) in &inst.ancestors {
            if anc == "EnumAttr" && args.len() >= 3 {
                if let (Val::Id(d), Val::Str(mn)) = (&args[0], &args[2]) {
                    return format!("enum:{}.{mn}", dialect_name(records, d));
                }
            }
            if anc == "AttrDef" && !args.is_empty() {
                if let (Val::Id(d), Some(Val::Str(mn))) =
                    (&args[0], records.field(&inst, "mnemonic").as_ref())
                {
                    return format!("enum:{}.{mn}", dialect_name(records, d));
                }
            }
        }
        for (anc, _) in inst.ancestors.iter().rev() {
            if let Some(k) = builtin(anc) {
                return k;
            }
        }
    }
    "any".into()
}

pub(crate) fn dialect_name(records: &Records, dialect_def: &str) -> String {
    records
        .def(dialect_def)
        .map(|d| records.instantiate(d))
        .and_then(|i| records.field(&i, "name"))
        .and_then(|v| match v {
            Val::Str(s) => Some(s),
            _ => None,
        })
        .unwrap_or_else(|| dialect_def.to_string())
}

fn is_attr(records: &Records, v: &Val) -> bool {
    let text = v.text();
    if text.contains("Attr") || text.starts_with("TypeAttr") {
        return true;
    }
    if let Val::Id(n) = v {
        if let Some(def) = records.def(n) {
            let inst = records.instantiate(def);
            return inst
                .ancestors
                .iter()
                .any(|(a, _)| a == "Attr" || a == "AttrDef" || a == "EnumAttr");
        }
    }
    false
}

/// Collapses the whitespace of a format (line breaks and indentation of
/// the `.td` text carry no meaning).
fn normalize(format: &str) -> String {
    format.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The name a trait list entry stands for: the trait's name, the
/// interface of `DeclareOpInterfaceMethods<Iface, [...]>`, or
/// `Name<args>` for traits parameterised by plain numbers or strings
/// (`ElementwiseNaryOpTrait<2>`, `VectorOnlyTrait<0>`,
/// `OpPipeTrait<"PIPE::PIPE_V">`).
fn trait_name(v: &Val) -> Option<String> {
    match v {
        Val::Id(n) => Some(n.clone()),
        Val::Inst(n, args) if n == "DeclareOpInterfaceMethods" => args.first().and_then(trait_name),
        Val::Inst(n, args) => {
            let plain: Option<Vec<String>> = args
                .iter()
                .map(|a| match a {
                    Val::Id(i) if i.parse::<i64>().is_ok() => Some(i.clone()),
                    Val::Str(s) => Some(format!("{s:?}")),
                    _ => None,
                })
                .collect();
            match plain {
                Some(p) if !p.is_empty() => Some(format!("{n}<{}>", p.join(", "))),
                _ => Some(n.clone()),
            }
        }
        _ => None,
    }
}

/// An op definition's dialect name, mnemonic and `Op<...>` arguments
/// (`Op<Dialect, "mnemonic", [traits]>`); `None` for records that are not
/// ops.
fn op_header<'i>(
    records: &Records,
    inst: &'i Instance<'_>,
) -> Option<(String, &'i str, &'i [Val])> {
    let (_, op_args) = inst.ancestors.iter().find(|(a, _)| a == "Op")?;
    let (Some(Val::Id(dialect)), Some(Val::Str(mnemonic))) = (op_args.first(), op_args.get(1))
    else {
        return None;
    };
    Some((
        dialect_name(records, dialect),
        mnemonic.as_str(),
        op_args.as_slice(),
    ))
}

/// Generates the traits table from the `.td` files under `ods_dir`: for
/// every `hivm` op, the `.td` file defining it, its ODS class chain and
/// the traits and interfaces it declares, in declaration order.
pub fn generate_traits(ods_dir: &Path) -> std::io::Result<String> {
    let mut files = Vec::new();
    td_files(ods_dir, &mut files)?;
    let mut records = Records::default();
    let mut file_of: Vec<(usize, String)> = Vec::new();
    for f in &files {
        tablegen::read_file(&std::fs::read_to_string(f)?, &mut records);
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        file_of.push((records.defs.len(), stem));
    }
    let file_at = |i: usize| {
        file_of
            .iter()
            .find(|(end, _)| i < *end)
            .map(|(_, f)| f.clone())
            .unwrap_or_default()
    };
    let mut rows: Vec<(String, String, Vec<String>, Vec<String>)> = Vec::new();
    for (i, (_, def)) in records.defs.iter().enumerate() {
        let inst = records.instantiate(def);
        let Some((dialect, mnemonic, op_args)) = op_header(&records, &inst) else {
            continue;
        };
        if dialect != "hivm" {
            continue;
        }
        let classes: Vec<String> = inst
            .ancestors
            .iter()
            .map(|(a, _)| a.clone())
            .filter(|a| a != "Op")
            .collect();
        let mut traits: Vec<String> = Vec::new();
        if let Some(Val::List(items)) = op_args.get(2) {
            for t in items {
                if let Some(n) = trait_name(t) {
                    if !traits.contains(&n) {
                        traits.push(n);
                    }
                }
            }
        }
        rows.push((format!("{dialect}.{mnemonic}"), file_at(i), classes, traits));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows.dedup_by(|a, b| a.0 == b.0);
    let mut s = String::new();
    s.push_str(
        "//! The traits and interfaces every `hivm` op declares, from the\n\
         //! dialect's ODS definitions (AscendNPU-IR `ods/HIVM/**/*.td`): what\n\
         //! the passes ask an op (is it structured, how it flattens, whether\n\
         //! it has extra buffers or may lower to scalar loops, ...).\n\
         //!\n\
         //! GENERATED by `cargo xtask ods`; do not edit. Each row gives the\n\
         //! op, the `.td` file defining it, its ODS class chain (nearest\n\
         //! last) and its traits in declaration order: a trait's name, the\n\
         //! interface of `DeclareOpInterfaceMethods<..>`, or `Name<args>`\n\
         //! for traits taking plain numbers or strings.\n\n\
         use crate::ir::ods::OdsTraits;\n\n",
    );
    let _ = writeln!(s, "/// Every `hivm` op, sorted by name.");
    let _ = writeln!(s, "pub static TRAITS: &[OdsTraits] = &[");
    for (name, file, classes, traits) in &rows {
        let _ = writeln!(s, "    OdsTraits {{");
        let _ = writeln!(s, "        name: {name:?},");
        let _ = writeln!(s, "        file: {file:?},");
        string_list(&mut s, "classes", classes);
        string_list(&mut s, "traits", traits);
        let _ = writeln!(s, "    }},");
    }
    s.push_str("];\n");
    Ok(s)
}

/// Writes the row field `key: &[..],` of string literals the way rustfmt
/// lays it out (so `cargo fmt` leaves the generated file alone): on one
/// line when the items fit rustfmt's `array_width` (60 columns) and the
/// line its `max_width` (100), else one literal per line.
fn string_list(s: &mut String, key: &str, items: &[String]) {
    let quoted: Vec<String> = items.iter().map(|n| format!("{n:?}")).collect();
    let items = quoted.join(", ");
    let line = format!("        {key}: &[{items}],");
    if items.len() <= 60 && line.len() <= 100 {
        let _ = writeln!(s, "{line}");
        return;
    }
    let _ = writeln!(s, "        {key}: &[");
    for q in &quoted {
        let _ = writeln!(s, "            {q},");
    }
    let _ = writeln!(s, "        ],");
}

/// Generates the table source from the `.td` files under `ods_dir`.
pub fn generate(ods_dir: &Path) -> std::io::Result<String> {
    let mut files = Vec::new();
    td_files(ods_dir, &mut files)?;
    let mut records = Records::default();
    for f in &files {
        tablegen::read_file(&std::fs::read_to_string(f)?, &mut records);
    }
    let mut rows = Vec::new();
    for (_, def) in &records.defs {
        let inst = records.instantiate(def);
        let Some((dialect, mnemonic, op_args)) = op_header(&records, &inst) else {
            continue;
        };
        let name = format!("{dialect}.{mnemonic}");
        let mut row = OpRow {
            name,
            operands: Vec::new(),
            attrs: Vec::new(),
            results: Vec::new(),
            regions: 0,
            same_types: Vec::new(),
            successors: Vec::new(),
            format: None,
        };
        let from_class = |class: &str| {
            inst.ancestors
                .iter()
                .find(|(a, _)| a == class)
                .and_then(|(_, args)| args.first().cloned())
        };
        let arguments = records
            .field(&inst, "arguments")
            .or_else(|| from_class("Arguments"));
        let results = records
            .field(&inst, "results")
            .or_else(|| from_class("Results"));
        if let Some(Val::Dag(_, args)) = arguments {
            for (v, n) in args {
                let (Some(v), Some(n)) = (v, n) else { continue };
                let v = unwrap_arg(v);
                if is_attr(&records, &v) {
                    let (base, presence, default) = base_attr(&v);
                    let presence = if base.text() == "UnitAttr" {
                        "Optional"
                    } else {
                        presence
                    };
                    row.attrs
                        .push((n, attr_kind(&records, base), presence, default));
                } else {
                    row.operands.push((n, arity(&v.text())));
                }
            }
        }
        if let Some(Val::Dag(_, args)) = results {
            for (v, n) in args {
                let (Some(v), Some(n)) = (v, n) else { continue };
                let v = unwrap_arg(v);
                row.results.push((n, arity(&v.text())));
            }
        }
        row.same_types = same_types(op_args.get(2), &row);
        if let Some(Val::Dag(_, args)) = records.field(&inst, "regions") {
            row.regions = args.len();
        }
        if let Some(Val::Dag(_, args)) = records.field(&inst, "successors") {
            row.successors = args.into_iter().filter_map(|(_, n)| n).collect();
        }
        let custom = matches!(records.field(&inst, "hasCustomAssemblyFormat"), Some(Val::Id(ref s)) if s == "1");
        if !custom {
            if let Some(Val::Str(f)) = records.field(&inst, "assemblyFormat") {
                row.format = Some(normalize(&f));
            }
        }
        rows.push(row);
    }
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    rows.dedup_by(|a, b| a.name == b.name);
    Ok(render(&rows))
}

fn render(rows: &[OpRow]) -> String {
    let mut s = String::new();
    s.push_str(
        "//! The textual formats of every `hivm` and `ave` op, from the dialects'\n\
         //! ODS definitions (AscendNPU-IR `ods/**/*.td`).\n\
         //!\n\
         //! GENERATED by `cargo xtask ods`; do not edit. Each row gives the op's\n\
         //! operands, attributes and results in ODS order and its declarative\n\
         //! `assemblyFormat` (`None`: the op has a custom parser and printer).\n\n\
         use crate::ir::ods::{Arity, OdsAttr, OdsOp, Presence};\n\n",
    );
    let _ = writeln!(s, "/// Every op, sorted by name.");
    let _ = writeln!(s, "pub static OPS: &[OdsOp] = &[");
    for r in rows {
        let _ = writeln!(s, "    OdsOp {{");
        let _ = writeln!(s, "        name: {:?},", r.name);
        let ops: Vec<String> = r
            .operands
            .iter()
            .map(|(n, a)| format!("({n:?}, Arity::{a})"))
            .collect();
        let _ = writeln!(s, "        operands: &[{}],", ops.join(", "));
        let attrs: Vec<String> = r
            .attrs
            .iter()
            .map(|(n, k, p, d)| {
                format!("OdsAttr {{ name: {n:?}, kind: {k:?}, presence: Presence::{p}, default: {d:?} }}")
            })
            .collect();
        if attrs.is_empty() {
            let _ = writeln!(s, "        attrs: &[],");
        } else {
            let _ = writeln!(s, "        attrs: &[");
            for a in attrs {
                let _ = writeln!(s, "            {a},");
            }
            let _ = writeln!(s, "        ],");
        }
        let res: Vec<String> = r
            .results
            .iter()
            .map(|(n, a)| format!("({n:?}, Arity::{a})"))
            .collect();
        let _ = writeln!(s, "        results: &[{}],", res.join(", "));
        let _ = writeln!(s, "        regions: {},", r.regions);
        let groups: Vec<String> = r
            .same_types
            .iter()
            .map(|g| {
                format!(
                    "&[{}]",
                    g.iter()
                        .map(|n| format!("{n:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        let _ = writeln!(s, "        same_types: &[{}],", groups.join(", "));
        let succ: Vec<String> = r.successors.iter().map(|n| format!("{n:?}")).collect();
        let _ = writeln!(s, "        successors: &[{}],", succ.join(", "));
        match &r.format {
            Some(f) => {
                let _ = writeln!(s, "        format: Some({f:?}),");
            }
            None => {
                let _ = writeln!(s, "        format: None,");
            }
        }
        let _ = writeln!(s, "    }},");
    }
    s.push_str("];\n");
    s
}
