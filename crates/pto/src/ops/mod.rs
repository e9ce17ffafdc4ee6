//! The op semantics table of the PyPTO front end: one declarative row per op.
//!
//! Every memory pass asks this table instead of matching op names itself:
//! where an op's result lives, whether it is a view or an in-place update of
//! an input, which inputs its output must never share bytes with (per
//! target family), which operands are written scratch, whether it is a load
//! or a pipe pop, and which hardware pipe executes it. The table is keyed by
//! the op's full name (`tile.add`), so it needs no program model.
//!
//! The rows are generated from PyPTO's op registry
//! (`cargo xtask pto-registry`, from `op-registry.csv`): every registered
//! `tile.*` op plus the `system.*` / `tensor.*` ops that touch on-chip
//! memory, with the registry's facts verbatim (in-place safety,
//! `forbid_output_alias`, `set_output_reuses_input`,
//! `set_output_memory_inherit_input`, argument effects, execution-memory-access
//! evidence). The seeds' rules that are newer than the registry are listed in
//! [`DEVIATIONS`], the one place where the table differs from it.
//!
//! An op in none of the registry's namespaces the table covers is rejected by
//! [`check_known`], and a call that breaks its op's registered signature
//! (arguments, keyword attributes) by [`check_call`]; registered ops
//! outside the table's scope (distributed, prefetch, the pre-lowering tensor
//! ops) read as [`DEFAULT_OP`]. The registry's input-space constraints are
//! checked on typed programs by [`crate::passes::input_spaces`].

mod deviations;
pub mod registry;
mod table;
pub mod validate;

use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use tilemem_soc::{Family, MemSpace};

pub use deviations::{Change, Deviation, DEVIATIONS};
pub use table::{SIGNATURES, TABLE};
pub use validate::{check_call, At, CallError};

/// Hardware pipe that executes an op (needed for cross-pipe reuse penalties).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pipe {
    /// GM -> L1/UB transfers.
    Mte2,
    /// UB/L1 -> GM transfers.
    Mte3,
    /// L1 -> L0A/L0B transfers.
    Mte1,
    /// The vector unit.
    Vector,
    /// The cube (matmul) unit.
    Cube,
    /// L0C -> L1/UB/GM transfers.
    Fixpipe,
    /// Scalar unit / no data movement (views, allocations, control).
    Scalar,
    /// Per call: the SoC memory-graph edge the op moves data along, from
    /// the source's space to the result's (`tile.load` from DDR,
    /// `tile.store` to DDR, `tile.move` between on-chip spaces); see
    /// [`route_pipe`].
    Route,
    /// Per call: an in-place window write of a source tile into a target
    /// (`tile.assemble`); see [`insert_pipe`].
    Insert,
}

impl Pipe {
    /// Short name used in exported side files.
    pub fn name(self) -> &'static str {
        match self {
            Pipe::Mte2 => "MTE2",
            Pipe::Mte3 => "MTE3",
            Pipe::Mte1 => "MTE1",
            Pipe::Vector => "V",
            Pipe::Cube => "M",
            Pipe::Fixpipe => "FIX",
            Pipe::Scalar => "S",
            Pipe::Route => "route",
            Pipe::Insert => "insert",
        }
    }
}

/// Where an op's tile result lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutSpace {
    /// The op produces no tile (an expression statement or a scalar).
    NoTile,
    /// A tensor in global memory (`tile.store`, `tensor.create`).
    Ddr,
    /// Taken from the `target_memory=` keyword, else `default`.
    TargetMemory(MemSpace),
    /// The same space as positional argument `i`.
    SameAsArg(usize),
    /// Always this space (`tile.matmul` -> Acc).
    Fixed(MemSpace),
}

/// How a view op's byte offset inside its source is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewRule {
    /// Not a view: the result needs (or shares, see `output_reuses_input`)
    /// storage of its own.
    NotView,
    /// Same bytes as the source at offset 0 (`tile.reshape`).
    WholeSource,
    /// A window of the source: offsets are positional argument `offsets_arg`
    /// (a list of per-dimension element offsets); byte offset =
    /// `(row * cols + col) * elem_bytes` over the source's shape.
    Window {
        /// Position of the offsets list.
        offsets_arg: usize,
    },
}

/// Which inputs an op's output may not share a physical buffer with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AliasRule {
    /// In-place safe: the output may reuse any input.
    InplaceSafe,
    /// `not_inplace_safe`: the output must not alias any tile input.
    NotInplaceSafe,
    /// `forbid_output_alias(i)` for each listed operand.
    Forbid(&'static [usize]),
    /// `tile.sels` (mask, src, tmp, scalar): the output never aliases the
    /// mask; src and tmp may be reused. On A2/A3 the tmp operand must in
    /// addition stay apart from mask and src (see
    /// [`OpInfo::operand_separations`]); A5 never reads tmp.
    Sels,
    /// `tile.prelu` (src, slope, tmp): A2/A3 every input; A5 src and slope
    /// (the unused tmp may be shared).
    Prelu,
    /// `tile.cast`: widening on every target, narrowing on A2/A3 forbids the
    /// source; A5 narrowing and same-width casts may reuse.
    Cast,
}

/// What an op declares it does through one argument (`set_arg_effect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgEffect {
    /// Read only.
    Read,
    /// Overwritten without being read.
    Write,
    /// Read and written (an accumulator, an in-place update).
    ReadWrite,
    /// Computed from the call's keywords; the text is the registry's
    /// condition (`Write if kwarg atomic is absent/None(0), ReadWrite if ...`).
    Conditional(&'static str),
}

/// An op's argument-effect declaration as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgEffects {
    /// No effect spec: every argument reads as `Read`, unclassified.
    Undeclared,
    /// `no_arg_writes`: every argument is a declared read.
    NoArgWrites,
    /// These arguments have these effects; the others are reads.
    Declared(&'static [(usize, ArgEffect)]),
}

/// Execution-memory-access evidence of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// `no_execution_memory_access`: the op touches no tile bytes when it runs.
    NoAccess,
    /// `functional_execution_memory_access`: it reads/writes exactly its
    /// operands' and result's bytes.
    Functional,
    /// Neither was declared (the registry's default).
    Unknown,
}

/// Classification used by the load + tpop hazard and by reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    /// Moves data from GM into an on-chip buffer (`tile.load`).
    Load,
    /// Pops a value from a cross-core pipe (`tile.tpop_from_aic`); no
    /// general-pool storage.
    Tpop,
    /// Writes a tile back to GM (`tile.store`).
    Store,
    /// `tile.alloc`: declares an allocation root.
    Alloc,
    /// `system.reserve_buffer`: reserves a fixed window of the space (the
    /// cross-core pipe ring, a kernel's own scratch) that tiles avoid.
    Reserve,
    /// Anything else.
    Compute,
}

/// Registry: the op's part in a cross-core pipe (`set_cross_core_role`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrossCoreRole {
    /// No cross-core role.
    None,
    /// Pushes a tile into the pipe (`tile.tpush_to_*`).
    TPush,
    /// Pops a tile from the pipe (`tile.tpop_from_*`).
    TPop,
    /// Releases a popped tile's slot (`system.tfree_to_*`).
    TFree,
    /// Sets up the pipe's slot ring (`system.*_initialize_pipe`).
    InitializePipe,
}

/// One row of the op table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// Full op name without the `pl.` prefix (`tile.add`).
    pub name: &'static str,
    /// Where the result lives.
    pub out_space: OutSpace,
    /// Whether (and how) the result is a view of argument 0.
    pub view: ViewRule,
    /// Which inputs the output may not alias.
    pub alias: AliasRule,
    /// The result is written into this input's storage (`matmul_acc` -> 0,
    /// `store` -> the output tensor).
    pub output_reuses_input: Option<usize>,
    /// Operands the op writes as scratch (`set_workspace_arg`).
    pub workspace_args: &'static [usize],
    /// Load / tpop / store / alloc / compute.
    pub class: OpClass,
    /// Executing pipe.
    pub pipe: Pipe,
    /// Registry: not declared `not_inplace_safe`.
    pub inplace_safe: bool,
    /// Registry: the `forbid_output_alias(i)` indices.
    pub forbid_output_alias: &'static [usize],
    /// Registry: `set_output_memory_inherit_input`.
    pub output_memory_inherit_input: bool,
    /// Registry: argument effects.
    pub arg_effects: ArgEffects,
    /// Registry: execution-memory-access evidence.
    pub evidence: Evidence,
    /// Operand pairs that must not share bytes on A2/A3 (a scratch operand
    /// written before sources are read: `tile.sels`, `tile.rem`).
    pub a2a3_separations: &'static [(usize, usize)],
    /// Registry: the names of the positional arguments, in order (a call
    /// may omit the ones after its [`Signature::min_args`], never pass more).
    pub args: &'static [&'static str],
    /// Registry: the memory spaces each constrained input may be in
    /// (`set_input_memory`); inputs not listed may be anywhere.
    pub input_memory: &'static [(usize, &'static [MemSpace])],
    /// Registry: the op's cross-core pipe role.
    pub cross_core_role: CrossCoreRole,
}

/// How a registered op is called (every namespace, not only the ops the
/// table models): PyPTO's `add_argument` list and `set_attr` keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// Full op name (`tile.add`).
    pub name: &'static str,
    /// Registry: the positional arguments' names, in order.
    pub args: &'static [&'static str],
    /// How many of `args` a call must give (positionally or by name): the
    /// ones a registry memory fact names (see `cargo xtask pto-registry`).
    pub min_args: usize,
    /// Registry: the declared keyword attributes (`set_attr<T>(key)`), as
    /// (key, type). Empty: the op declares none and PyPTO validates no
    /// keyword of its calls.
    pub attrs: &'static [(&'static str, &'static str)],
}

/// The signature of registered op `name` (a leading `pl.` is ignored).
pub fn signature(name: &str) -> Option<&'static Signature> {
    let name = name.strip_prefix("pl.").unwrap_or(name);
    SIGNATURES
        .binary_search_by(|s| s.name.cmp(name))
        .ok()
        .map(|i| &SIGNATURES[i])
}

/// Whether argument `index` of op `op` is a memory space: the registry
/// names it `memory_space` (`tile.alloc`, `tensor.alloc`). The IR holds
/// such an argument as an integer constant (PyPTO's `MemorySpace` code);
/// PyPTO's printer writes it by name (`pl.Mem.Vec`).
pub fn arg_is_memory_space(op: &str, index: usize) -> bool {
    signature(op).and_then(|s| s.args.get(index)) == Some(&"memory_space")
}

/// Arguments PyPTO's printer writes by name, after the call's keywords
/// (`pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)`), as (op, index):
/// the op's Python function takes them after its attributes. The registry
/// gives their names ([`Signature::args`]) but not this order, so it is
/// listed here, one row per op.
const PRINTED_BY_NAME: &[(&str, usize)] = &[
    ("tensor.full", 1),
    ("tensor.matmul_acc", 3),
    ("tile.full", 1),
    ("tile.matmul_acc", 3),
];

/// The registry name under which PyPTO's printer writes argument `index`
/// of op `op` as a keyword, if it does (see `PRINTED_BY_NAME`).
pub fn printed_by_name(op: &str, index: usize) -> Option<&'static str> {
    let op = op.strip_prefix("pl.").unwrap_or(op);
    PRINTED_BY_NAME
        .iter()
        .find(|&&(o, i)| o == op && i == index)
        .and_then(|_| signature(op)?.args.get(index).copied())
}

/// Element width facts for the target-aware cast rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastWidths {
    /// Bits per element of the source.
    pub src_bits: u32,
    /// Bits per element of the result.
    pub dst_bits: u32,
}

impl OpInfo {
    /// Whether the op may run with `src == dst` at all.
    pub fn is_inplace_safe(&self) -> bool {
        self.alias != AliasRule::NotInplaceSafe
    }

    /// Whether the result is a view sharing argument 0's storage.
    pub fn is_view(&self) -> bool {
        self.view != ViewRule::NotView
    }

    /// Positional operands the output must not share a physical buffer with,
    /// for `n_args` positional arguments on `family`. `cast` gives element
    /// widths for `tile.cast` (ignored by other ops; when unknown for a cast,
    /// the conservative answer "forbid the source" is returned).
    pub fn forbidden_alias_args(
        &self,
        family: Family,
        n_args: usize,
        cast: Option<CastWidths>,
    ) -> Vec<usize> {
        self.forbidden_alias_args_with(family, n_args, cast, true)
    }

    /// [`forbidden_alias_args`](Self::forbidden_alias_args), choosing
    /// whether an A2/A3 narrowing cast forbids its source (the seed's rule;
    /// PyPTO e2d0f78 let it reuse, like A5).
    pub fn forbidden_alias_args_with(
        &self,
        family: Family,
        n_args: usize,
        cast: Option<CastWidths>,
        narrowing_casts: bool,
    ) -> Vec<usize> {
        let a2a3 = family == Family::A2A3;
        let keep = |v: &[usize]| v.iter().copied().filter(|&i| i < n_args).collect();
        match self.alias {
            AliasRule::InplaceSafe => Vec::new(),
            AliasRule::NotInplaceSafe => (0..n_args).collect(),
            AliasRule::Forbid(list) => keep(list),
            AliasRule::Sels => keep(&[0]),
            AliasRule::Prelu => {
                if a2a3 {
                    (0..n_args).collect()
                } else {
                    keep(&[0, 1])
                }
            }
            AliasRule::Cast => {
                let forbid = match cast {
                    Some(w) if w.dst_bits > w.src_bits => true,
                    Some(w) if w.dst_bits < w.src_bits => a2a3 && narrowing_casts,
                    Some(_) => false,
                    None => true,
                };
                if forbid {
                    keep(&[0])
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// Pairs of operands that must not share bytes with each other (beyond
    /// the output rules): on A2/A3 `tile.sels` writes its scalar into tmp
    /// before reading mask and src.
    pub fn operand_separations(&self, family: Family, n_args: usize) -> Vec<(usize, usize)> {
        if family != Family::A2A3 {
            return Vec::new();
        }
        self.a2a3_separations
            .iter()
            .copied()
            .filter(|&(a, b)| a < n_args && b < n_args)
            .collect()
    }

    /// The input whose storage the result is bound to, when it is not a
    /// view: `set_output_reuses_input(i)`, or argument 0 for an in-place
    /// safe op whose output memory inherits its input's
    /// (`tile.assemble`; PyPTO's `IsBufferAliasingViewOp`).
    pub fn output_binds_input(&self) -> Option<usize> {
        self.output_reuses_input
            .or(
                (self.output_memory_inherit_input && self.inplace_safe && !self.is_view())
                    .then_some(0),
            )
    }

    /// Whether the output inherits its first input's buffer when the op is
    /// an identity-like update (PyPTO: `OutputMemoryInheritsInput` and in-place
    /// safe): views and registered write-back results.
    pub fn aliases_first_input(&self) -> bool {
        self.is_view() || self.output_binds_input() == Some(0)
    }
}

/// The pipe that moves data from space `from` to space `to` on `family`
/// (PyPTO's SoC memory graph, `op-registry.md` section 10, as its
/// `TryInferPipe` derives it for [`Pipe::Route`] ops); `None` when the SoC
/// has no such route. Within one space the vector unit copies. Ascend950
/// adds the Vec -> Mat (MTE3), Acc -> Vec (FIX) and Mat -> Left/Right
/// scale (MTE1) routes; with no backend every route of either family is
/// taken.
pub fn route_pipe(from: MemSpace, to: MemSpace, family: Family) -> Option<Pipe> {
    use MemSpace::*;
    let a5 = matches!(family, Family::A5 | Family::NoBackend);
    match (from, to) {
        (f, t) if f == t => Some(Pipe::Vector),
        (Ddr, Vec | Mat) => Some(Pipe::Mte2),
        (Vec, Ddr) => Some(Pipe::Mte3),
        (Acc, Ddr | Mat) => Some(Pipe::Fixpipe),
        (Mat, Left | Right | Bias) => Some(Pipe::Mte1),
        (Mat, LeftScale | RightScale) if a5 => Some(Pipe::Mte1),
        (Acc, Vec) if a5 => Some(Pipe::Fixpipe),
        (Vec, Mat) if a5 => Some(Pipe::Mte3),
        _ => None,
    }
}

/// The pipe that writes a tile of space `from` into a window of a target
/// in space `to` on `family` (PyPTO derives it per call for
/// `tile.assemble`, `op-registry.md`): within one space the vector unit in
/// Vec, the cube unit in the L0 spaces and none in Mat; Acc -> Mat is a
/// fixpipe write, Vec -> Mat an MTE3 one where the SoC has that route
/// (Ascend950); anything else has none.
pub fn insert_pipe(from: MemSpace, to: MemSpace, family: Family) -> Option<Pipe> {
    use MemSpace::*;
    match (from, to) {
        (Vec, Vec) => Some(Pipe::Vector),
        (f, t) if f == t && matches!(f, Acc | Left | Right | Bias | LeftScale | RightScale) => {
            Some(Pipe::Cube)
        }
        (Acc, Mat) => Some(Pipe::Fixpipe),
        (Vec, Mat) => route_pipe(Vec, Mat, family),
        _ => None,
    }
}

impl OpInfo {
    /// Writes a window of its first argument in place and returns it
    /// (inherited output memory, argument 0 read and written, not a view):
    /// `tile.assemble`. DSA_RP's recognizer treats such a write that
    /// provably covers the whole target as a functional access.
    pub fn writes_window_of_first_arg(&self) -> bool {
        self.output_memory_inherit_input
            && !self.is_view()
            && matches!(self.arg_effects, ArgEffects::Declared(e) if e.contains(&(0, ArgEffect::ReadWrite)))
    }
}

/// Looks an op up by full name (`tile.add`; a leading `pl.` is ignored).
pub fn lookup(name: &str) -> Option<&'static OpInfo> {
    static INDEX: OnceLock<HashMap<&'static str, &'static OpInfo>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let extra = DEVIATIONS.iter().filter_map(|d| match &d.change {
            Change::Row(info) => Some(info),
            _ => None,
        });
        TABLE.iter().chain(extra).map(|o| (o.name, o)).collect()
    });
    let name = name.strip_prefix("pl.").unwrap_or(name);
    index.get(name).copied()
}

/// The conservative row used for ops missing from the table.
pub const DEFAULT_OP: OpInfo = OpInfo {
    name: "",
    out_space: OutSpace::TargetMemory(MemSpace::Vec),
    view: ViewRule::NotView,
    alias: AliasRule::InplaceSafe,
    output_reuses_input: None,
    workspace_args: &[],
    class: OpClass::Compute,
    pipe: Pipe::Vector,
    inplace_safe: true,
    forbid_output_alias: &[],
    output_memory_inherit_input: false,
    arg_effects: ArgEffects::Undeclared,
    evidence: Evidence::Unknown,
    a2a3_separations: &[],
    args: &[],
    input_memory: &[],
    cross_core_role: CrossCoreRole::None,
};

/// The calls of PyPTO's language that are no op (`pl.NAME(...)` with one
/// name after `pl.`): loops and their yields, constants, the MemRef and
/// view constructors of types, function attributes, scalar helpers and
/// submits, as PyPTO's printer writes them.
pub const LANGUAGE_CALLS: &[&str] = &[
    "MemRef",
    "TensorView",
    "TileView",
    "abs",
    "cast",
    "cond",
    "const",
    "cross_core_slot",
    "dynamic",
    "func_attr",
    "function",
    "jit",
    "max",
    "min",
    "parallel",
    "pipeline",
    "program",
    "range",
    "scope",
    "submit",
    "while_",
    "yield_",
];

/// Op namespaces PyPTO calls under `pl.`; under another module they are
/// no op path.
const OP_NAMESPACES: &[&str] = &["tile.", "system.", "tensor."];

/// Whether `name`, a callee, is something PyPTO can call: a `pl.` op it
/// registers (or a listed deviation), a call of its language
/// ([`LANGUAGE_CALLS`]), or a callee outside `pl.` (`self.kernel`,
/// `pld.*`), which is not checked here. `Err` names the callee and the
/// closest name PyPTO has.
pub fn check_known(name: &str) -> Result<(), String> {
    // `X.tile.alloc`: an op namespace under a module other than PyPTO's
    // two (`pl`, `pld` for the distributed ops) is no op path, though it
    // would otherwise pass as an unknown callee.
    if let Some((module, rest)) = name.split_once('.') {
        if module != "pl" && module != "pld" && OP_NAMESPACES.iter().any(|p| rest.starts_with(p)) {
            return Err(format!(
                "`{name}` is not an op path: PyPTO's ops are called as `pl.{rest}`"
            ));
        }
    }
    let Some(bare) = name.strip_prefix("pl.") else {
        return if OP_NAMESPACES.iter().any(|p| name.starts_with(p)) {
            check_op(name)
        } else {
            Ok(())
        };
    };
    if bare.contains('.') {
        return check_op(bare);
    }
    if LANGUAGE_CALLS.contains(&bare) {
        return Ok(());
    }
    let hint = crate::diag::closest(bare, LANGUAGE_CALLS.iter().copied())
        .map_or(String::new(), |c| format!(" (did you mean 'pl.{c}'?)"));
    Err(format!(
        "unknown call 'pl.{bare}': neither a call of PyPTO's language nor an op \
         PyPTO e2d0f78 registers{hint}"
    ))
}

/// `Ok` when PyPTO registers the op `bare` (or it is a listed deviation);
/// else the error, with the closest registered name.
fn check_op(bare: &str) -> Result<(), String> {
    if lookup(bare).is_some() || registry::is_registered(bare) {
        return Ok(());
    }
    // The registered op whose name extends (or is extended by) the
    // unknown one, the shortest first (`tile.max` -> `tile.maximum`); else
    // the nearest by spelling (`tiile.load` -> `tile.load`).
    let extension = SIGNATURES
        .iter()
        .map(|s| s.name)
        .filter(|r| r.starts_with(bare) || (bare.starts_with(*r) && r.contains('.')))
        .min_by_key(|r| (r.len(), *r));
    let hint = extension
        .or_else(|| crate::diag::closest(bare, SIGNATURES.iter().map(|s| s.name)))
        .map_or(String::new(), |r| format!(" (did you mean '{r}'?)"));
    Err(format!(
        "unknown op '{bare}': PyPTO e2d0f78 registers no op of this name{hint}"
    ))
}

/// Whether `name` is an op of this class (`OpClass::Alloc` for
/// `tile.alloc`): passes identify structural ops by the table, never by
/// spelling their names.
pub fn has_class(name: &str, class: OpClass) -> bool {
    lookup(name).is_some_and(|i| i.class == class)
}

/// Whether `name` is an op with this cross-core role.
pub fn has_role(name: &str, role: CrossCoreRole) -> bool {
    lookup(name).is_some_and(|i| i.cross_core_role == role)
}

/// [`lookup`], falling back to [`DEFAULT_OP`].
pub fn lookup_or_default(name: &str) -> &'static OpInfo {
    lookup(name).unwrap_or(&DEFAULT_OP)
}

#[cfg(test)]
mod tests;
