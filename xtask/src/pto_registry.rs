//! `cargo xtask pto-registry [CSV]`: writes `crates/pto/src/ops/table.rs`,
//! the PyPTO op table, from PyPTO's op registry
//! (`../shared/reference/pypto/op-registry.csv` by default).
//!
//! The registry's facts are copied verbatim. What the registry does not say
//! and the planner needs (the executing pipe, the op class, the view's
//! offset operand, the result space of ops without a memory spec, how many
//! arguments a call must give) is filled in here by rules below; the seeds' differences come only from
//! `tilemem_pto::ops::DEVIATIONS`.

use std::fmt::Write as _;
use std::path::PathBuf;

use tilemem_pto::ops::registry::{self, Row};
use tilemem_pto::ops::{AliasRule, Change, DEVIATIONS};

/// The registry CSV next to the repository.
pub fn default_csv() -> PathBuf {
    super::repo_root().join("../shared/reference/pypto/op-registry.csv")
}

/// Where the generated table lives.
pub fn table_path() -> PathBuf {
    super::repo_root().join("crates/pto/src/ops/table.rs")
}

/// The pipe of ops whose operands do not all sit in one unit's memory (the
/// registry derives those per call); the others follow `pipe_derived`.
/// `Route` / `Insert`: the registry derives the pipe per call from the
/// spaces involved (`tilemem_pto::ops::route_pipe` / `insert_pipe`); a pipe
/// push has none.
fn pipe_of(name: &str, derived: &str) -> &'static str {
    match name {
        "tile.load" | "tile.store" | "tile.move" => "Route",
        "tile.assemble" => "Insert",
        "tile.tpush_to_aiv" | "tile.tpush_to_aic" => "Scalar",
        "tile.mgather" | "tile.gather_row" => "Mte2",
        "tile.mscatter" | "tile.aic_gather" => "Mte3",
        "tile.extract" => "Mte1",
        "tile.aiv_shard" => "Fixpipe",
        "tile.tget_scale_addr" => "Cube",
        "tile.create" | "tile.read" | "tile.transpose" => "Vector",
        _ if derived == "V" => "Vector",
        _ if derived.starts_with('M') => "Cube",
        _ => "Scalar",
    }
}

fn class_of(name: &str) -> &'static str {
    match name {
        "tile.load" => "Load",
        "tile.tpop_from_aic" | "tile.tpop_from_aiv" => "Tpop",
        "tile.store" => "Store",
        "tile.alloc" => "Alloc",
        "system.reserve_buffer" => "Reserve",
        _ => "Compute",
    }
}

fn out_space_of(name: &str, ns: &str, mem: &str) -> String {
    let space = |s: &str| format!("OutSpace::Fixed(MemSpace::{s})");
    match name {
        "tile.tpop_from_aic" | "tile.gather_row" => {
            return "OutSpace::TargetMemory(MemSpace::Vec)".into()
        }
        "tile.tpop_from_aiv" => return "OutSpace::TargetMemory(MemSpace::Mat)".into(),
        "tile.store" | "tile.mscatter" => return "OutSpace::Ddr".into(),
        _ => {}
    }
    match ns {
        "tensor" => return "OutSpace::Ddr".into(),
        "system" => return "OutSpace::NoTile".into(),
        _ => {}
    }
    if let Some(s) = mem.strip_prefix("fixed ") {
        space(s)
    } else if mem.starts_with("from kwarg") {
        "OutSpace::TargetMemory(MemSpace::Vec)".into()
    } else if mem.starts_with("inherit") {
        "OutSpace::SameAsArg(0)".into()
    } else {
        "OutSpace::NoTile".into()
    }
}

/// Whether the op is a view: it shares its source's bytes (output memory
/// inherited and no execution memory access; DDR tensors: inherited
/// memory alone).
fn is_view(row: &Row) -> bool {
    let inherit = row["output_memory_inherit_input"] == "yes";
    let no_access = row["memory_access"] == "no_execution_memory_access";
    inherit && (no_access || row["namespace"] == "tensor")
}

/// The position of a view's `offset` argument (a window of its source).
fn view_offsets(row: &Row) -> Option<usize> {
    if !is_view(row) {
        return None;
    }
    row["args"]
        .split(' ')
        .find_map(|a| a.split_once(':').filter(|(_, n)| *n == "offset"))
        .and_then(|(i, _)| i.parse().ok())
}

fn view_of(row: &Row) -> String {
    match view_offsets(row) {
        _ if !is_view(row) => "ViewRule::NotView".into(),
        Some(i) => format!("ViewRule::Window {{ offsets_arg: {i} }}"),
        None => "ViewRule::WholeSource".into(),
    }
}

/// Arguments a call may leave out although a memory fact names them:
/// (op, first optional position, evidence). PyPTO's deducers decide which
/// arguments are optional; the registry only documents them
/// (`add_argument`), so an exception needs a program PyPTO printed.
const OPTIONAL_FROM: &[(&str, usize, &str)] = &[(
    "tile.rsqrt",
    1,
    "PyPTO prints `tile.rsqrt(x)` without its tmp \
     (data/pto/kernels/qwen3_scope3__a5/pypto/32_after_InitMemRef.py)",
)];

/// How many leading arguments a call must give: every argument up to the
/// last one a registry memory fact names (an input memory constraint, the
/// reused input, a declared unconditional write effect, a view's offsets),
/// at least the first when the op has any; [`OPTIONAL_FROM`] lowers it.
fn min_args(row: &Row, n_args: usize) -> Result<usize, String> {
    if n_args == 0 {
        return Ok(0);
    }
    let mut need = 1;
    for (i, _) in registry::parse_input_memory(&row["input_memory"])? {
        need = need.max(i + 1);
    }
    if let Ok(i) = row["output_reuses_input"].parse::<usize>() {
        need = need.max(i + 1);
    }
    for (i, _, conditional) in registry::parse_effects(&row["arg_effects"])?.unwrap_or_default() {
        if !conditional {
            need = need.max(i + 1);
        }
    }
    if let Some(i) = view_offsets(row) {
        need = need.max(i + 1);
    }
    if let Some(&(_, from, _)) = OPTIONAL_FROM.iter().find(|o| o.0 == row["name"]) {
        need = need.min(from);
    }
    if need > n_args {
        return Err(format!(
            "{}: a memory fact names argument {need} of {n_args}",
            row["name"]
        ));
    }
    Ok(need)
}

fn input_memory_expr(s: &str) -> Result<String, String> {
    let parts: Vec<String> = registry::parse_input_memory(s)?
        .into_iter()
        .map(|(i, spaces)| {
            let list: Vec<String> = spaces.iter().map(|m| format!("MemSpace::{m}")).collect();
            format!("({i}, &[{}])", list.join(", "))
        })
        .collect();
    Ok(format!("&[{}]", parts.join(", ")))
}

fn attrs_expr(s: &str) -> Result<String, String> {
    let parts: Vec<String> = registry::parse_attrs(s)?
        .into_iter()
        .map(|(k, t)| format!("({k:?}, {t:?})"))
        .collect();
    Ok(format!("&[{}]", parts.join(", ")))
}

fn role_expr(s: &str) -> Result<String, String> {
    match s {
        "" => Ok("CrossCoreRole::None".into()),
        "TPush" | "TPop" | "TFree" | "InitializePipe" => Ok(format!("CrossCoreRole::{s}")),
        other => Err(format!("unknown cross-core role '{other}'")),
    }
}

fn indices(s: &str) -> Vec<usize> {
    s.split(',').filter_map(|x| x.trim().parse().ok()).collect()
}

fn alias_expr(a: &AliasRule) -> String {
    match a {
        AliasRule::InplaceSafe => "AliasRule::InplaceSafe".into(),
        AliasRule::NotInplaceSafe => "AliasRule::NotInplaceSafe".into(),
        AliasRule::Forbid(l) => format!("AliasRule::Forbid(&{l:?})"),
        AliasRule::Sels => "AliasRule::Sels".into(),
        AliasRule::Prelu => "AliasRule::Prelu".into(),
        AliasRule::Cast => "AliasRule::Cast".into(),
    }
}

fn effects_expr(s: &str) -> Result<String, String> {
    Ok(match registry::parse_effects(s)? {
        None => "ArgEffects::Undeclared".into(),
        Some(v) if v.is_empty() => "ArgEffects::NoArgWrites".into(),
        Some(v) => {
            let parts: Vec<String> = v
                .iter()
                .map(|(i, e, cond)| {
                    if *cond {
                        format!("({i}, ArgEffect::Conditional({e:?}))")
                    } else {
                        format!("({i}, ArgEffect::{e})")
                    }
                })
                .collect();
            format!("ArgEffects::Declared(&[{}])", parts.join(", "))
        }
    })
}

fn evidence_expr(s: &str) -> &'static str {
    match s {
        "no_execution_memory_access" => "Evidence::NoAccess",
        "functional_execution_memory_access" => "Evidence::Functional",
        _ => "Evidence::Unknown",
    }
}

/// The `args` column's names, in order (`0:lhs 1:rhs`; none for
/// `(none; no_argument)`).
fn arg_names(row: &Row) -> Vec<&str> {
    row["args"]
        .split_whitespace()
        .filter_map(|a| a.split_once(':').map(|(_, n)| n))
        .collect()
}

/// One op's call signature (every registered op, any namespace).
fn signature_text(row: &Row) -> Result<String, String> {
    let args = arg_names(row);
    Ok(format!(
        "    Signature {{ name: {:?}, args: &{args:?}, min_args: {}, attrs: {} }},\n",
        row["name"],
        min_args(row, args.len())?,
        attrs_expr(&row["attrs"])?,
    ))
}

fn row_text(row: &Row) -> Result<String, String> {
    let name = row["name"].as_str();
    let inplace_safe = row["inplace"] != "not_inplace_safe";
    let forbid = indices(&row["forbid_output_alias"]);
    let changes = DEVIATIONS.iter().filter(|d| d.op == name).map(|d| d.change);
    let mut alias = if !inplace_safe {
        "AliasRule::NotInplaceSafe".to_string()
    } else if !forbid.is_empty() {
        format!("AliasRule::Forbid(&{forbid:?})")
    } else {
        "AliasRule::InplaceSafe".to_string()
    };
    let mut workspace = "&[]".to_string();
    let mut separations = "&[]".to_string();
    for c in changes {
        match c {
            Change::Alias(a) => alias = alias_expr(&a),
            Change::Workspace(w) => workspace = format!("&{w:?}"),
            Change::A2a3Separations(s) => separations = format!("&{s:?}"),
            Change::Row(_) => return Err(format!("{name}: a Row deviation for a registered op")),
        }
    }
    let reuses = match row["output_reuses_input"].as_str() {
        "" => "None".to_string(),
        i => format!("Some({i})"),
    };
    let args = arg_names(row);
    let mut s = String::new();
    let _ = write!(
        s,
        "    OpInfo {{\n        name: {name:?},\n        out_space: {},\n        view: {},\n        \
         alias: {alias},\n        output_reuses_input: {reuses},\n        workspace_args: \
         {workspace},\n        class: OpClass::{},\n        pipe: Pipe::{},\n        \
         inplace_safe: {inplace_safe},\n        forbid_output_alias: &{forbid:?},\n        \
         output_memory_inherit_input: {},\n        arg_effects: {},\n        evidence: {},\n        \
         a2a3_separations: {separations},\n        args: &{args:?},\n        \
         input_memory: {},\n        cross_core_role: {},\n    }},\n",
        out_space_of(name, &row["namespace"], &row["output_memory"]),
        view_of(row),
        class_of(name),
        pipe_of(name, &row["pipe_derived"]),
        row["output_memory_inherit_input"] == "yes",
        effects_expr(&row["arg_effects"])?,
        evidence_expr(&row["memory_access"]),
        input_memory_expr(&row["input_memory"])?,
        role_expr(&row["cross_core_role"])?,
    );
    Ok(s)
}

/// The whole `table.rs` for the registry text `csv`.
pub fn generate(csv: &str) -> Result<String, String> {
    let rows = registry::parse_csv(csv)?;
    let mut all: Vec<&Row> = rows.iter().collect();
    all.sort_by(|a, b| a["name"].cmp(&b["name"]));
    let mut scoped: Vec<&Row> = rows
        .iter()
        .filter(|r| registry::in_scope(&r["name"]))
        .collect();
    scoped.sort_by(|a, b| a["name"].cmp(&b["name"]));
    let mut out = String::from(
        "//! Generated by `cargo xtask pto-registry` from PyPTO's op registry\n\
         //! (`op-registry.csv`, PyPTO e2d0f78) and `deviations.rs`. Do not edit:\n\
         //! change the generator or the deviations and regenerate.\n\n\
         use tilemem_soc::MemSpace;\n\n\
         use super::{AliasRule, ArgEffect, ArgEffects, CrossCoreRole, Evidence, OpClass, OpInfo, \
         OutSpace, Pipe, Signature, ViewRule};\n\n\
         /// Every registry op the planner models, sorted by name.\n\
         pub static TABLE: &[OpInfo] = &[\n",
    );
    for r in scoped {
        out.push_str(&row_text(r)?);
    }
    out.push_str(
        "];\n\n/// The call signature of every op PyPTO e2d0f78 registers, sorted by name.\n\
         pub static SIGNATURES: &[Signature] = &[\n",
    );
    for r in all {
        out.push_str(&signature_text(r)?);
    }
    out.push_str("];\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    // A skip is written to stderr directly, past the harness's output capture.
    use std::io::Write as _;

    /// The checked-in table is what the generator writes from the registry
    /// (after rustfmt): nobody edited it by hand.
    #[test]
    fn shared_table_is_up_to_date() {
        let Ok(csv) = std::fs::read_to_string(super::default_csv()) else {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED (no ../shared): shared_table_is_up_to_date: registry CSV not present"
            );
            return;
        };
        let generated = super::generate(&csv).unwrap();
        let out = std::process::Command::new("rustfmt")
            .args(["--edition", "2021", "--emit", "stdout"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                c.stdin.take().unwrap().write_all(generated.as_bytes())?;
                c.wait_with_output()
            });
        let Ok(out) = out.map_err(|e| {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED (no rustfmt): shared_table_is_up_to_date: rustfmt unavailable: {e}"
            );
        }) else {
            return;
        };
        let checked_in = std::fs::read_to_string(super::table_path()).unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout) == checked_in,
            "crates/pto/src/ops/table.rs is stale: run `cargo xtask pto-registry`"
        );
    }
}
