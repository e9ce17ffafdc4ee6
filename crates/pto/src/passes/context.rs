//! What every pass shares: the planner mode, the pass context (target,
//! address policy, diagnostics, seed rules), the error type and the names
//! of the passes. The passes import this module; only the driver
//! ([`super::pipeline`]) imports the passes.

use std::fmt;
use std::sync::Arc;

use tilemem_soc::{DefaultPolicy, MemoryAllocatorPolicy, Soc};

use std::path::PathBuf;
use std::time::Duration;

use tilemem_plan::Objective;

use rustc_hash::FxHashMap;

use crate::ir::{MemSpace, Pos, VarId};

/// Who decides buffer sharing and addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlannerMode {
    /// PyPTO's default: memory_reuse packs buffers, allocate_memory_addr
    /// lays them out sequentially.
    Pypto,
    /// memory_reuse is skipped; allocate_memory_addr solves placement
    /// jointly per space.
    DsaRp,
    /// Both are skipped; an external assembler assigns addresses.
    Ptoas,
    /// Like `DsaRp`, with each space's problem solved by the exact solver.
    Optimal,
}

impl PlannerMode {
    /// The command-line spelling (`pypto`, `dsa-rp`, `ptoas`, `optimal`).
    pub fn name(self) -> &'static str {
        match self {
            PlannerMode::Pypto => "pypto",
            PlannerMode::DsaRp => "dsa-rp",
            PlannerMode::Ptoas => "ptoas",
            PlannerMode::Optimal => "optimal",
        }
    }

    /// Parses the command-line spelling (`pypto`, `dsa-rp`, `ptoas`).
    pub fn from_name(s: &str) -> Option<PlannerMode> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "pypto" => Some(PlannerMode::Pypto),
            "dsa-rp" | "dsarp" => Some(PlannerMode::DsaRp),
            "ptoas" => Some(PlannerMode::Ptoas),
            "optimal" => Some(PlannerMode::Optimal),
            _ => None,
        }
    }
}

/// Severity of a diagnostic; the rendering follows PyPTO's unified channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiagKind {
    /// `[perf_hint CODE] ...`: the program is correct but slower than asked.
    PerfHint(&'static str),
    /// `[warning] ...`.
    Warning,
}

/// One diagnostic emitted by a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Kind and code.
    pub kind: DiagKind,
    /// The message (function, space, numbers and a concrete fix).
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            DiagKind::PerfHint(code) => write!(f, "[perf_hint {code}] {}", self.message),
            DiagKind::Warning => write!(f, "[warning] {}", self.message),
        }
    }
}

/// A source position (1-based line and column) in the input program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Loc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// What kind of failure a [`PassError`] is; decides the exit code and the
/// PyPTO-style prefix of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The program is valid but cannot be planned (over capacity, conflicting
    /// declarations): `ValueError: ...`, exit 1.
    Planning,
    /// The program violates a rule of the input language (dynamic shape where
    /// storage is needed, invalid declaration): `ValueError: ...`, exit 2.
    /// Where PyPTO rejects the same program through one of its own internal
    /// checks ([`PassError::input_pypto_internal`]), the message keeps
    /// PyPTO's class, `InternalError: ...`; it is still the program that
    /// is wrong, so still exit 2.
    Input,
    /// A guarantee of tilemem's pipeline was broken (the independent
    /// placement check rejected a planner's output): `InternalError: ...`,
    /// exit 3.
    Internal,
}

/// A pass failure, with the position of the offending statement when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassError {
    /// Failure class.
    pub kind: ErrorKind,
    /// The message, worded as PyPTO words it where PyPTO has the same check.
    pub message: String,
    /// Where in the input, when the error belongs to a statement.
    pub loc: Option<Loc>,
    /// PyPTO raises `InternalError` for this input error (its own internal
    /// check fires on a property of the program): the message keeps that
    /// class name, so it reads as PyPTO's does. Only with
    /// [`ErrorKind::Input`].
    pub pypto_internal: bool,
    /// The optimal planner's exact search ended at its time or node limit
    /// without a placement within the capacity (not a proof that none
    /// exists: a larger budget may find one). Only with
    /// [`ErrorKind::Planning`].
    pub search_cut_short: bool,
}

impl PassError {
    /// A planning error (exit 1).
    pub fn planning(message: impl Into<String>) -> PassError {
        PassError {
            kind: ErrorKind::Planning,
            message: message.into(),
            loc: None,
            pypto_internal: false,
            search_cut_short: false,
        }
    }

    /// An input error (exit 2).
    pub fn input(message: impl Into<String>) -> PassError {
        PassError {
            kind: ErrorKind::Input,
            message: message.into(),
            loc: None,
            pypto_internal: false,
            search_cut_short: false,
        }
    }

    /// An input error (exit 2) that PyPTO raises as `InternalError`: the
    /// program is wrong (overlapping `reserve_buffer` windows, a divergent
    /// accumulator phi), but PyPTO finds it in an internal check. The
    /// message keeps PyPTO's class and wording; it should end with what to
    /// change.
    pub fn input_pypto_internal(message: impl Into<String>) -> PassError {
        PassError {
            pypto_internal: true,
            ..PassError::input(message)
        }
    }

    /// An internal error (exit 3): a check inside tilemem failed, whatever
    /// the input. An error that a property of the input causes is
    /// [`PassError::input`] or [`PassError::input_pypto_internal`].
    pub fn internal(message: impl Into<String>) -> PassError {
        PassError {
            kind: ErrorKind::Internal,
            message: message.into(),
            loc: None,
            pypto_internal: false,
            search_cut_short: false,
        }
    }

    /// Attaches a location.
    pub fn at(mut self, loc: Loc) -> PassError {
        self.loc = Some(loc);
        self
    }

    /// Attaches the position of a statement (ignored for synthesized ones).
    pub fn at_pos(self, pos: Pos) -> PassError {
        if pos.line == 0 {
            self
        } else {
            self.at(Loc {
                line: pos.line,
                col: pos.col,
            })
        }
    }

    /// The PyPTO exception name that prefixes the message.
    pub fn prefix(&self) -> &'static str {
        match self.kind {
            ErrorKind::Input if self.pypto_internal => "InternalError",
            ErrorKind::Planning | ErrorKind::Input => "ValueError",
            ErrorKind::Internal => "InternalError",
        }
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.prefix(), self.message)
    }
}

impl std::error::Error for PassError {}

/// The seed rules that are newer than the PyPTO build that printed the
/// reference data (behaviour.md, "seed-only rules"). All are on by default;
/// [`SeedRules::pypto_e2d0f78`] turns them off to reproduce PyPTO e2d0f78
/// exactly (`tilemem plan --compat pypto-e2d0f78`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeedRules {
    /// Split-AIV load + tpop hazard on Ascend910 (seed 000).
    pub split_load_tpop: bool,
    /// The written workspace of `tile.sels` / `tile.gather` (seed 000).
    pub written_workspace: bool,
    /// A2/A3 narrowing `tile.cast` may not reuse its source (seed 000).
    pub narrowing_casts: bool,
    /// The if-phi branch match through `AsVarLike`: a branch yielding a
    /// loop iter arg gets its copy too (seed 000, #2481).
    pub as_var_like: bool,
    /// The aligned sub-range fallback after a measured overflow (seed 000).
    pub sub_range: bool,
}

impl SeedRules {
    /// Every seed rule (the default).
    pub const ALL: SeedRules = SeedRules {
        split_load_tpop: true,
        written_workspace: true,
        narrowing_casts: true,
        as_var_like: true,
        sub_range: true,
    };

    /// PyPTO at commit e2d0f78: none of the newer seed rules.
    pub fn pypto_e2d0f78() -> SeedRules {
        SeedRules {
            split_load_tpop: false,
            written_workspace: false,
            narrowing_casts: false,
            as_var_like: false,
            sub_range: false,
        }
    }

    /// Each rule by its field name, as the rule set with only that rule off
    /// (the others on): what tells which single rule explains a difference
    /// from the reference.
    pub fn each_off_alone() -> [(&'static str, SeedRules); 5] {
        let all = SeedRules::ALL;
        [
            (
                "split_load_tpop",
                SeedRules {
                    split_load_tpop: false,
                    ..all
                },
            ),
            (
                "written_workspace",
                SeedRules {
                    written_workspace: false,
                    ..all
                },
            ),
            (
                "narrowing_casts",
                SeedRules {
                    narrowing_casts: false,
                    ..all
                },
            ),
            (
                "as_var_like",
                SeedRules {
                    as_var_like: false,
                    ..all
                },
            ),
            (
                "sub_range",
                SeedRules {
                    sub_range: false,
                    ..all
                },
            ),
        ]
    }

    /// Parses a `--compat` name: `seed` (the default) or `pypto-e2d0f78`.
    pub fn from_compat(name: &str) -> Option<SeedRules> {
        match name {
            "seed" => Some(SeedRules::ALL),
            "pypto-e2d0f78" => Some(SeedRules::pypto_e2d0f78()),
            _ => None,
        }
    }
}

impl Default for SeedRules {
    fn default() -> SeedRules {
        SeedRules::ALL
    }
}

/// Everything a pass needs besides the program: the target, the planner
/// mode, the address policy and the diagnostics sink.
pub struct PassContext {
    /// The chip being planned for.
    pub soc: Soc,
    /// Who decides sharing and addresses.
    pub planner: PlannerMode,
    /// The address policy used by allocate_memory_addr (shared by the
    /// threads that plan the functions of one program).
    pub policy: Arc<dyn MemoryAllocatorPolicy>,
    /// Diagnostics emitted so far, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// Options of the DSA_RP / optimal planner (exact-solver budget,
    /// objective, problem export).
    pub dsa: DsaOptions,
    /// What the DSA_RP / optimal planner decided per (function, space).
    pub dsa_reports: Vec<SpaceReport>,
    /// Which seed rules newer than the reference PyPTO apply.
    pub seed_rules: SeedRules,
    /// The pipeline-stage decisions of the planner, per function name, for
    /// the check after allocate_memory_addr (the tags themselves are
    /// stripped from the program when they are consumed).
    pub stage_claims: FxHashMap<String, StageClaims>,
    /// The placement each kernel function of the input already carried,
    /// per function name (recorded by the pipeline driver before the
    /// offsets are made relative; see [`InputPlacement`]).
    pub placed: FxHashMap<String, InputPlacement>,
}

/// The placement a kernel function of the input carries when the input is
/// a planned program (printed after allocate_memory_addr).
///
/// Planning decides sharing from facts the printed program no longer
/// holds: the `pipeline_membership` tags are consumed (seed 000 strips
/// them after MemoryReuse, and PyPTO's printed text has no place for
/// them), and with them the stage separation and the capacity-gated depth
/// each group was kept apart at. Planned again from its text alone, a
/// program would share the stage copies the first plan kept apart. So a
/// planned program's placement is itself the decision: the PYPTO planner
/// keeps the buffers of a layout it made (MemoryReuse merges nothing) and
/// DSA-RP and the optimal planner keep its addresses when they are a valid
/// placement of the function's problem. Re-planning a planned program is
/// then a fixed point for every planner. Every planner reads a planned
/// program the same way (its offsets are made relative to each
/// allocation's address before any pass runs), whichever planner laid it
/// out; the PYPTO planner packs another planner's layout again (its
/// buffers share bytes the sequential layout cannot give them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputPlacement {
    /// The offsets were the layout the PYPTO planner's address stage
    /// makes (recognised, and made relative, by
    /// [`crate::passes::sequential::make_relative`]).
    pub laid_out: bool,
    /// The address of each allocation root, by the root's name: the
    /// lowest constant offset among its tiles (how DSA-RP reads an
    /// allocation's address).
    pub addresses: FxHashMap<Box<str>, u64>,
}

/// The pipeline-stage decisions a planner made for one function: the
/// `pipeline_membership` tags it consumed and the depth at which it kept
/// each group's copies apart, per space. `verify` checks the placement
/// against them: copies whose dense stage ordinals differ modulo the
/// depth never share a byte.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageClaims {
    /// `(tile, group, stage)` for every tile whose defining call carried
    /// a `pipeline_membership` tag.
    pub tags: Vec<(VarId, u32, i64)>,
    /// `(space, group, depth)`: the depth each group was planned at.
    pub depths: Vec<(MemSpace, u32, u32)>,
}

impl PassContext {
    /// A context with PyPTO's default policy.
    pub fn new(soc: Soc, planner: PlannerMode) -> PassContext {
        PassContext {
            soc,
            planner,
            policy: Arc::new(DefaultPolicy),
            diagnostics: Vec::new(),
            dsa: DsaOptions::default(),
            dsa_reports: Vec::new(),
            seed_rules: SeedRules::ALL,
            stage_claims: FxHashMap::default(),
            placed: FxHashMap::default(),
        }
    }

    /// Replaces the address policy (a backend's own).
    pub fn with_policy(mut self, policy: Box<dyn MemoryAllocatorPolicy>) -> PassContext {
        self.policy = Arc::from(policy);
        self
    }

    /// Records a `[perf_hint CODE]` diagnostic.
    pub fn perf_hint(&mut self, code: &'static str, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            kind: DiagKind::PerfHint(code),
            message: message.into(),
        });
    }

    /// Records a `[warning]` diagnostic.
    pub fn warning(&mut self, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            kind: DiagKind::Warning,
            message: message.into(),
        });
    }
}

/// The passes of the pipeline, in pipeline order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PassId {
    /// Allocation roots and MemRefs for every tile.
    InitMemref,
    /// Loop-carry must-aliases (and, without MemoryReuse, the yield
    /// fix-up).
    MaterializeSemanticAliases,
    /// Buffer sharing (PYPTO planner only).
    MemoryReuse,
    /// Addresses.
    AllocateMemoryAddr,
}

impl PassId {
    /// Every pass in pipeline order.
    pub const ALL: [PassId; 4] = [
        PassId::InitMemref,
        PassId::MaterializeSemanticAliases,
        PassId::MemoryReuse,
        PassId::AllocateMemoryAddr,
    ];

    /// The pass's name (`init_memref`, ...).
    pub fn name(self) -> &'static str {
        match self {
            PassId::InitMemref => "init_memref",
            PassId::MaterializeSemanticAliases => "materialize_semantic_aliases",
            PassId::MemoryReuse => "memory_reuse",
            PassId::AllocateMemoryAddr => "allocate_memory_addr",
        }
    }

    /// Parses a pass name.
    pub fn from_name(s: &str) -> Option<PassId> {
        PassId::ALL.into_iter().find(|p| p.name() == s.trim())
    }

    /// The passes the planner mode runs by default.
    pub fn default_pipeline(planner: PlannerMode) -> Vec<PassId> {
        match planner {
            PlannerMode::Pypto => PassId::ALL.to_vec(),
            PlannerMode::DsaRp | PlannerMode::Optimal => vec![
                PassId::InitMemref,
                PassId::MaterializeSemanticAliases,
                PassId::AllocateMemoryAddr,
            ],
            PlannerMode::Ptoas => vec![PassId::InitMemref, PassId::MaterializeSemanticAliases],
        }
    }
}

/// Default work budget of the optimal mode per (function, space): a few
/// seconds of search.
pub const DEFAULT_NODE_LIMIT: u64 = 4_000_000;

/// How the pass chooses addresses.
#[derive(Clone, Debug)]
pub struct DsaOptions {
    /// Use the exact solver (optimal mode) instead of the canonical greedy
    /// alone.
    pub optimal: bool,
    /// Objective of the optimal mode.
    pub objective: Objective,
    /// Time budget per (function, space) of the optimal mode.
    pub time_limit: Option<Duration>,
    /// Work budget per (function, space) of the optimal mode, in search
    /// nodes: it cuts an unfinished search at the same point on every
    /// machine, so the planned program is reproducible (the time limit only
    /// guards slow machines).
    pub node_limit: Option<u64>,
    /// Write every (function, space) problem here (`FUNC.SPACE.csv` plus a
    /// `FUNC.SPACE.dsa.txt` side file).
    pub export_dir: Option<PathBuf>,
}

impl Default for DsaOptions {
    fn default() -> DsaOptions {
        DsaOptions {
            optimal: false,
            objective: Objective::PeakThenPenalty,
            time_limit: Some(Duration::from_secs(10)),
            node_limit: Some(DEFAULT_NODE_LIMIT),
            export_dir: None,
        }
    }
}

/// What the pass decided for one (function, space).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceReport {
    /// Function name.
    pub function: String,
    /// Space name (`Vec`, ...).
    pub space: String,
    /// Number of roots placed.
    pub buffers: usize,
    /// Bytes used (highest end, reserved windows included).
    pub bytes: u64,
    /// Bytes of the canonical greedy's placement; `None` when it found no
    /// placement within the capacity (the optimal mode's exact search did).
    pub greedy_bytes: Option<u64>,
    /// Summed penalty weight of the final placement (pairwise count).
    pub penalty: u64,
    /// Some pipeline group runs below its requested depth.
    pub relaxed: bool,
    /// Which placement was kept (`first-fit`, `penalty-aware`, `exact`,
    /// or `input`: the planned input's own, see [`InputPlacement`]).
    pub chosen: String,
    /// The exact solver proved the kept placement optimal.
    pub proven_optimal: bool,
}
