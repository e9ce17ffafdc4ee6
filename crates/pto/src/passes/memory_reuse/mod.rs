//! MemoryReuse: shares buffers between tiles whose lifetimes do not overlap
//! (seed 000). Placeholder until the pass lands: changes nothing.

use super::{PassContext, PassError};

/// Runs the pass on every InCore/AIC/AIV function of `program`.
pub fn run<P>(_program: &mut P, _ctx: &mut PassContext) -> Result<(), PassError> {
    Ok(())
}
