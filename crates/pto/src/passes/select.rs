//! What front ends (the `tilemem` CLI, the Python module) share when they
//! drive the pipeline: choosing passes by name, and telling a capacity
//! failure from other planning errors.

use super::context::{ErrorKind, PassError, PassId, PlannerMode};

/// The passes to run: `passes` verbatim (names in pipeline order, without
/// repeats), else the planner's pipeline cut after `stop_after` when given,
/// else the planner's whole pipeline. A `stop_after` pass the planner does
/// not run cuts its pipeline before where that pass would be.
pub fn select_passes(
    planner: PlannerMode,
    passes: Option<&[&str]>,
    stop_after: Option<&str>,
) -> Result<Vec<PassId>, String> {
    let names = PassId::ALL.map(PassId::name).join(", ");
    if let Some(list) = passes {
        let mut out: Vec<PassId> = Vec::new();
        for name in list.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            let p = PassId::from_name(name)
                .ok_or_else(|| format!("unknown pass '{name}' in --passes; passes: {names}"))?;
            if let Some(&prev) = out.last() {
                if p <= prev {
                    return Err(format!(
                        "--passes must list passes in pipeline order without repeats \
                         ({names}); '{}' cannot follow '{}'",
                        p.name(),
                        prev.name()
                    ));
                }
            }
            out.push(p);
        }
        return Ok(out);
    }
    let pipeline = PassId::default_pipeline(planner);
    if let Some(name) = stop_after {
        let p = PassId::from_name(name)
            .ok_or_else(|| format!("unknown pass '{name}' in --stop-after; passes: {names}"))?;
        let mut out: Vec<PassId> = pipeline.iter().copied().filter(|&q| q <= p).collect();
        if !pipeline.contains(&p) {
            out.retain(|&q| q < p);
        }
        return Ok(out);
    }
    Ok(pipeline)
}

impl PassError {
    /// Whether this planning error says the buffers do not fit the chip's
    /// on-chip memory: allocate_memory_addr's "buffer usage exceeds platform
    /// limit" and the DSA_RP/optimal planner's "could not find a placement
    /// within the on-chip memory capacities". Front ends raise these as a
    /// capacity error (Python's `tilemem.CapacityError`); a test pins both
    /// wordings so a rewording cannot silently change the class.
    pub fn is_capacity(&self) -> bool {
        self.kind == ErrorKind::Planning
            && (self.message.contains("exceeds platform limit")
                || self
                    .message
                    .contains("within the on-chip memory capacities"))
    }
}
