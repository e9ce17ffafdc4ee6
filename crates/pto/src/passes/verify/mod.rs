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

pub use families::{family_buffers, lifetimes, FamilyBuffer, Lifetimes};

use tilemem_soc::{MemoryAllocatorPolicy, Soc};

use crate::ir::Function;
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
