//! Independent check of a function's final placement, run after every
//! planner (regalloc2's checker is the model).
//!
//! It reads the planned program alone (the MemRefs with their absolute
//! addresses, the op table, the target and the rule switches) and shares
//! no code with the planners or with [`super::analysis`]: a rule a planner
//! forgets, or a model that misses a fact, shows up here as an error
//! instead of as a silently wrong address. A failure is an internal error
//! (a bug in the memory passes); no output is written.
//!
//! The checks:
//! - **bounds** (`windows`): every allocation's lowest byte is aligned
//!   as the address policy says and its tiles stay within the space's
//!   capacity;
//! - **data flow** (`flow`): the program run abstractly, every read finds
//!   the value it reads intact on every path (the lifetime rule, exact
//!   through loops and branches);
//! - **rules** (`rules`): reserved windows, declared allocations,
//!   no-alias, written workspaces, the split-AIV load + tpop hazard and the
//!   pipeline-stage separation the planner claims;
//! - **definitions** (`defs`): every allocation the program names is
//!   defined above the name.

mod defs;
mod families;
mod flow;
mod rules;
mod windows;

pub use families::{
    byte_sources, family_buffers, family_reps, lifetimes, order_to_index, FamilyBuffer, Lifetimes,
};

use tilemem_soc::{MemoryAllocatorPolicy, Soc};

use crate::ir::{Function, StmtId, StmtKind, Type, VarDef, VarId};
use crate::passes::context::{PassError, SeedRules, StageClaims};

/// Checks the placement of one planned function under the seed rules
/// `rules` (the planner's: a rule switched off was not applied) and the
/// planner's pipeline-stage decisions `claims`; an internal error on any
/// violation.
pub fn check_function(
    f: &Function,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    rules: SeedRules,
    claims: Option<&StageClaims>,
) -> Result<(), PassError> {
    let fail = |what: String| {
        PassError::internal(format!(
            "placement check failed in function '{}': {what}; this is a bug in the memory passes",
            f.name
        ))
    };
    if let Err((at, alloc)) = defs::check(f) {
        return Err(fail(format!(
            "allocation '{}' is named at line {} above its definition",
            f.vars[alloc].name,
            f.pos_of(at).line
        ))
        .at_pos(f.pos_of(at)));
    }
    let w = windows::Windows::of(f, policy).map_err(fail)?;
    w.check_bounds(f, soc, policy).map_err(fail)?;
    if let Err(c) = flow::check(f, &w) {
        let space = w.spaces[c.window.space as usize];
        let found = match c.found {
            Some(v) => format!("'{}'", f.vars[v].name),
            None => "other data on some path".to_string(),
        };
        return Err(fail(format!(
            "tile '{}' read at line {} finds its bytes [{}, {}) in {} holding {found}",
            f.vars[c.read].name,
            f.pos_of(c.at).line,
            c.window.start,
            c.window.end,
            space.name()
        ))
        .at_pos(f.pos_of(c.at)));
    }
    rules::Rules::new(f, soc, rules, &w)
        .check(claims)
        .map_err(fail)
}

/// A read that finds its bytes holding another value with every
/// allocation of the function in bytes of its own: the storage the MemRefs
/// declare is wrong whatever addresses a planner gives
/// ([`declared_clash`]).
#[derive(Clone, Debug)]
pub struct DeclaredClash {
    /// The tile read.
    pub read: VarId,
    /// The statement reading it.
    pub at: StmtId,
    /// The allocation whose bytes it reads.
    pub root: VarId,
    /// The bytes read, relative to the allocation's own MemRef offsets.
    pub window: (u64, u64),
    /// The value found there (`None`: nothing known on some path).
    pub found: Option<VarId>,
    /// The value the read expected (a view reads its source's).
    pub expected: VarId,
}

/// The first read of `f` that fails with every allocation in bytes of its
/// own and every tile, views included, where its MemRef says: the sharing
/// the MemRefs declare loses a value, whatever the addresses. `None` when
/// every read finds its value (or the MemRefs do not read as windows).
///
/// Unlike [`check_input_sharing`] nothing is excused: not a view left on
/// another root than its source's, not a clash on a loop's or `if`'s
/// value (the passes before AllocateMemoryAddr settle those; a program
/// that still has one after them is not a valid input of it).
pub fn declared_clash(f: &Function, policy: &dyn MemoryAllocatorPolicy) -> Option<DeclaredClash> {
    let w = windows::Windows::declared(f, policy).ok()?;
    let c = flow::check(f, &w).err()?;
    let (root, ..) = w.allocs[c.window.space as usize];
    Some(DeclaredClash {
        read: c.read,
        at: c.at,
        root,
        window: (c.window.start, c.window.end),
        found: c.found,
        expected: c.expected,
    })
}

/// Checks the sharing a function's input already declares, before any
/// planning: two tiles the program gives the same MemRef allocation must
/// not be live at once, by the same data-flow rule as the placement check
/// (views, bare aliases, in-place results and loop or `if` carries share
/// legally; reads come before the writes of their statement), and the
/// sharing rules of the op table and the seed (no-alias, written
/// workspaces, the split-AIV load + tpop hazard) hold. Each
/// allocation is checked on its own bytes, so what this finds is the
/// input's doing, whatever addresses a planner would give: an input error,
/// at the statement that writes the second tile, naming both tiles and the
/// MemRef. A MemRef offset that does not read as an address is left to the
/// window check ([`crate::passes::sequential::check_windows`]).
pub fn check_input_sharing(
    f: &Function,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    rules: SeedRules,
) -> Result<(), PassError> {
    let Ok(w) = windows::Windows::per_allocation(f, policy) else {
        return Ok(());
    };
    let Err(c) = flow::check(f, &w) else {
        // Live ranges apart; the rules that keep tiles apart whatever
        // their lifetimes still hold.
        let mut r = rules::Rules::new(f, soc, rules, &w);
        return r.check_sharing().map_err(|what| {
            PassError::input(format!(
                "the program's own MemRefs break a sharing rule: {what}; give the output a \
                 MemRef of its own, or drop the MemRefs and let the planner decide what shares"
            ))
            .at_pos(r.at.map_or(f.pos, |s| f.pos_of(s)))
        });
    };
    // The values of loop and `if` carries (iter args, results) are the
    // passes' to settle: MaterializeSemanticAliases and MemoryReuse give
    // a carry's init, yields and results the carry's buffer and copy into
    // it where they must (or refuse, as PyPTO does, two carries started
    // from one tile), so a clash on a carry's value before them is not a
    // sharing the input declares.
    let carry = |v: VarId| match f.vars[v].def {
        VarDef::IterArg(_) => true,
        VarDef::Stmt(s) => matches!(f.stmts[s].kind, StmtKind::For(_) | StmtKind::If(_)),
        _ => f.vars[v].ty.as_ref().and_then(Type::memref).is_none(),
    };
    if carry(c.read) || carry(c.expected) || c.found.is_some_and(carry) {
        return Ok(());
    }
    let (root, ..) = w.allocs[c.window.space as usize];
    let root = &f.vars[root].name;
    let space = w.spaces[c.window.space as usize].name();
    let read = &f.vars[c.read].name;
    let read_line = f.pos_of(c.at).line;
    let (start, end) = (c.window.start, c.window.end);
    // Bytes known to hold nothing on some path (written in a loop or a
    // branch): the writer is a tile of the same allocation written after
    // the one read and before the read.
    let found = c
        .found
        .or_else(|| writer_between(f, &w, c.read, c.at, c.window));
    let e = match found {
        Some(other) => {
            let o = &f.vars[other].name;
            PassError::input(format!(
                "tiles '{read}' and '{o}' share MemRef '{root}' (bytes [{start}, {end}) of its \
                 {space} allocation) while both are live: '{o}' is written here over '{read}', \
                 which is still read at line {read_line}; give '{o}' a MemRef of its own (its \
                 own allocation), or drop the MemRefs and let the planner decide what shares"
            ))
            .at_pos(def_pos(f, other, c.at))
        }
        None => PassError::input(format!(
            "tile '{read}' read here finds bytes [{start}, {end}) of MemRef '{root}' ({space}) \
             overwritten on some path by another tile sharing the MemRef; give the tiles \
             written into '{root}' while '{read}' is live MemRefs of their own, or drop the \
             MemRefs and let the planner decide what shares"
        ))
        .at_pos(f.pos_of(c.at)),
    };
    Err(e)
}

/// Where `v` is written: its defining statement (a loop's for a carried
/// value), else `fallback`.
fn def_pos(f: &Function, v: VarId, fallback: crate::ir::StmtId) -> crate::ir::Pos {
    match f.vars[v].def {
        VarDef::Stmt(s) | VarDef::IterArg(s) | VarDef::LoopVar(s) => f.pos_of(s),
        VarDef::Param(_) | VarDef::Free => f.pos_of(fallback),
    }
}

/// A tile that an op writes (not a view) into bytes overlapping `window`
/// of the same allocation, defined after `read` and no later than the
/// statement `at` in the text: the first such, when any.
fn writer_between(
    f: &Function,
    w: &windows::Windows,
    read: VarId,
    at: crate::ir::StmtId,
    window: windows::Window,
) -> Option<VarId> {
    use crate::ir::{EntityRef, Expr};
    let line = |v: VarId| match f.vars[v].def {
        VarDef::Stmt(s) => Some(f.pos_of(s).line),
        _ => None,
    };
    let from = line(read)?;
    let to = f.pos_of(at).line;
    f.vars
        .keys()
        .filter(|&v| v != read)
        .filter(|&v| {
            w.place[v.index()]
                .exact()
                .is_some_and(|x| x.overlaps(&window))
        })
        .filter(|&v| match f.vars[v].def {
            VarDef::Stmt(s) => match &f.stmts[s].kind {
                StmtKind::Assign {
                    value: Expr::Call(call),
                    ..
                } => !crate::ops::lookup_or_default(call.op_name()).is_view(),
                _ => false,
            },
            _ => false,
        })
        .filter_map(|v| line(v).map(|l| (l, v)))
        .filter(|&(l, _)| l > from && l <= to)
        .min_by_key(|&(l, v)| (l, v.index()))
        .map(|(_, v)| v)
}
