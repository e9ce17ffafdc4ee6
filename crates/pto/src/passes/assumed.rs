//! Entry checks: the properties a pass assumes of its input that an earlier
//! pass establishes. A pass list that skips that pass (`--passes`) hands the
//! later pass a program without them; planned anyway, the placement check
//! after it fails and reports the input's inconsistency as a planner bug.
//! These checks refuse such a program first, as an input error naming the
//! first statement that breaks the property and the pass to run before.
//!
//! Each check reads only the program and costs one walk over it; a program
//! the earlier pass produced always passes (that pass guarantees the
//! property), so nothing the full pipeline plans is refused.

use crate::ir::Function;

use super::context::PassError;
use super::rewrite::carry_init;

/// MaterializeSemanticAliases's carry-init guarantee: no loop starts a carry
/// from a value whose bytes are read again after the loop takes it (the
/// loop writes its carries into its init's buffer). `pass` names the pass
/// that checks, for the message.
pub fn no_reused_carry_init(f: &Function, pass: &str, passes: &str) -> Result<(), PassError> {
    let Some((lp, x, reader)) = carry_init::first_reused_init(f) else {
        return Ok(());
    };
    let line = f.pos_of(lp).line;
    let name = &f.vars[x].name;
    Err(PassError::input(format!(
        "{pass} assumes every loop carry starts from a buffer of its own, but '{name}' starts \
         the loop carry at line {line} and is read here, after the loop took it (the loop \
         writes its carries into '{name}''s buffer): run materialize_semantic_aliases before \
         {pass} (it starts such a carry from a copy), e.g. `--passes {}`",
        passes
    ))
    .at_pos(f.pos_of(reader)))
}
