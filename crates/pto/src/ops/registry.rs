//! Reading PyPTO's op registry (`op-registry.csv`) and writing the table's
//! registry facts back in its notation, so that the generator
//! (`cargo xtask pto-registry`) and the comparison test agree on one
//! spelling of every fact.

use std::collections::BTreeMap;

use tilemem_soc::MemSpace;

use super::{ArgEffect, ArgEffects, CrossCoreRole, Evidence, OpInfo, Signature};

/// One registry row: column name -> value.
pub type Row = BTreeMap<String, String>;

/// The `tensor.*` ops the table holds: the ones with a non-default memory
/// fact or an on-chip role (registry section 5), plus the DDR ops the
/// planner's input programs use (`tensor.create`, `tensor.read`).
pub const TENSOR_SCOPE: &[&str] = &[
    "tensor.aic_gather",
    "tensor.aiv_shard",
    "tensor.alloc",
    "tensor.assemble",
    "tensor.create",
    "tensor.create_l1",
    "tensor.gather",
    "tensor.gather_row",
    "tensor.get_block_idx",
    "tensor.get_block_num",
    "tensor.get_subblock_idx",
    "tensor.read",
    "tensor.reinterpret_view",
    "tensor.reshape",
    "tensor.set_validshape",
    "tensor.slice",
    "tensor.view",
    "tensor.write",
];

/// Whether the table holds registry op `name`: every `tile.*` and
/// `system.*` op, and the `tensor.*` ops of [`TENSOR_SCOPE`].
pub fn in_scope(name: &str) -> bool {
    name.starts_with("tile.") || name.starts_with("system.") || TENSOR_SCOPE.contains(&name)
}

/// Whether PyPTO e2d0f78 registers an op of this name (any namespace).
pub fn is_registered(name: &str) -> bool {
    super::signature(name).is_some()
}

/// Parses the registry CSV (RFC 4180 quoting) into rows keyed by header.
pub fn parse_csv(text: &str) -> Result<Vec<Row>, String> {
    let mut records: Vec<Vec<String>> = Vec::new();
    let mut field = String::new();
    let mut record = Vec::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err("unterminated quoted field".into());
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    let mut it = records.into_iter();
    let header = it.next().ok_or("empty file")?;
    it.enumerate()
        .map(|(i, r)| {
            if r.len() != header.len() {
                return Err(format!(
                    "row {}: {} fields, header has {}",
                    i + 2,
                    r.len(),
                    header.len()
                ));
            }
            Ok(header.iter().cloned().zip(r).collect())
        })
        .collect()
}

const UNDECLARED: &str = "undeclared (every arg reads as Read; unclassified)";
const NO_ARG_WRITES: &str = "no_arg_writes (every arg Read, declared)";
const OTHERS_READ: &str = " (other args Read)";
const CONDITIONAL: &str = " [conditional]";

/// One argument effect as parsed from the registry: index, effect or
/// condition text, and whether it is conditional.
pub type ParsedEffect = (usize, String, bool);

/// Parses the `arg_effects` column: `None` = undeclared, `Some(vec![])` =
/// `no_arg_writes`, otherwise the declared effects.
pub fn parse_effects(s: &str) -> Result<Option<Vec<ParsedEffect>>, String> {
    if s == UNDECLARED {
        return Ok(None);
    }
    if s == NO_ARG_WRITES {
        return Ok(Some(Vec::new()));
    }
    let body = s
        .strip_suffix(OTHERS_READ)
        .ok_or_else(|| format!("unknown effect spelling '{s}'"))?;
    body.split("; ")
        .map(|part| {
            let (i, e) = part
                .split_once(':')
                .ok_or_else(|| format!("effect without index '{part}'"))?;
            let i: usize = i.parse().map_err(|_| format!("bad index in '{part}'"))?;
            match e.strip_suffix(CONDITIONAL) {
                Some(cond) => Ok((i, cond.to_string(), true)),
                None if matches!(e, "Read" | "Write" | "ReadWrite") => {
                    Ok((i, e.to_string(), false))
                }
                None => Err(format!("unknown effect '{e}'")),
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Writes effects back in the registry's notation.
pub fn render_effects(e: &ArgEffects) -> String {
    match e {
        ArgEffects::Undeclared => UNDECLARED.to_string(),
        ArgEffects::NoArgWrites => NO_ARG_WRITES.to_string(),
        ArgEffects::Declared(list) => {
            let parts: Vec<String> = list
                .iter()
                .map(|(i, e)| match e {
                    ArgEffect::Read => format!("{i}:Read"),
                    ArgEffect::Write => format!("{i}:Write"),
                    ArgEffect::ReadWrite => format!("{i}:ReadWrite"),
                    ArgEffect::Conditional(c) => format!("{i}:{c}{CONDITIONAL}"),
                })
                .collect();
            format!("{}{OTHERS_READ}", parts.join("; "))
        }
    }
}

/// The registry's spelling of an evidence value (`memory_access` column).
pub fn render_evidence(e: Evidence) -> &'static str {
    match e {
        Evidence::NoAccess => "no_execution_memory_access",
        Evidence::Functional => "functional_execution_memory_access",
        Evidence::Unknown => "neither",
    }
}

/// The `args` column: `0:lhs 1:rhs`, or the registry's marker for none.
fn render_args(args: &[&str]) -> String {
    if args.is_empty() {
        return "(none; no_argument)".to_string();
    }
    args.iter()
        .enumerate()
        .map(|(i, a)| format!("{i}:{a}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses the `input_memory` column (`0:Left; 1:Right`, `0:{Vec, Acc}`)
/// into (argument, allowed space names).
pub fn parse_input_memory(s: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    s.split("; ")
        .map(|part| {
            let (i, spaces) = part
                .split_once(':')
                .ok_or_else(|| format!("input memory without index '{part}'"))?;
            let i: usize = i.parse().map_err(|_| format!("bad index in '{part}'"))?;
            let spaces = spaces.trim_start_matches('{').trim_end_matches('}');
            Ok((i, spaces.split(", ").map(str::to_string).collect()))
        })
        .collect()
}

/// Parses the `attrs` column (`target_memory:MemorySpace clamp:bool`) into
/// (key, type) pairs.
pub fn parse_attrs(s: &str) -> Result<Vec<(String, String)>, String> {
    s.split_whitespace()
        .map(|a| {
            a.split_once(':')
                .map(|(k, t)| (k.to_string(), t.to_string()))
                .ok_or_else(|| format!("attribute without a type '{a}'"))
        })
        .collect()
}

/// The `input_memory` column in the registry's notation.
fn render_input_memory(list: &[(usize, &[MemSpace])]) -> String {
    list.iter()
        .map(|(i, spaces)| match spaces {
            [one] => format!("{i}:{}", one.name()),
            _ => {
                let names: Vec<&str> = spaces.iter().map(|m| m.name()).collect();
                format!("{i}:{{{}}}", names.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The registry's spelling of a cross-core role (empty for none).
fn render_role(r: CrossCoreRole) -> &'static str {
    match r {
        CrossCoreRole::None => "",
        CrossCoreRole::TPush => "TPush",
        CrossCoreRole::TPop => "TPop",
        CrossCoreRole::TFree => "TFree",
        CrossCoreRole::InitializePipe => "InitializePipe",
    }
}

/// The registry columns a [`Signature`] reproduces, in the registry's
/// notation.
pub fn signature_facts(sig: &Signature) -> Vec<(&'static str, String)> {
    let attrs: Vec<String> = sig.attrs.iter().map(|(k, t)| format!("{k}:{t}")).collect();
    vec![("args", render_args(sig.args)), ("attrs", attrs.join(" "))]
}

/// The registry columns the table reproduces, with the table's value for
/// each, in the registry's notation.
pub fn registry_facts(info: &OpInfo) -> Vec<(&'static str, String)> {
    let list = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    vec![
        (
            "inplace",
            if info.inplace_safe {
                "safe"
            } else {
                "not_inplace_safe"
            }
            .to_string(),
        ),
        ("forbid_output_alias", list(info.forbid_output_alias)),
        (
            "output_reuses_input",
            info.output_reuses_input
                .map_or(String::new(), |i| i.to_string()),
        ),
        (
            "output_memory_inherit_input",
            yes_no(info.output_memory_inherit_input),
        ),
        ("arg_effects", render_effects(&info.arg_effects)),
        ("memory_access", render_evidence(info.evidence).to_string()),
        ("args", render_args(info.args)),
        ("input_memory", render_input_memory(info.input_memory)),
        (
            "cross_core_role",
            render_role(info.cross_core_role).to_string(),
        ),
        (
            "is_view",
            yes_no(info.output_memory_inherit_input && info.evidence == Evidence::NoAccess),
        ),
    ]
}
