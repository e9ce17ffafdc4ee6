//! The sharings a planner rule refuses although the lifetimes allow them.

use std::collections::BTreeMap;

use tilemem_soc::{MemSpace, Soc};

use super::{def_line, RefusedSharing};
use crate::ir::Function;
use crate::passes::SeedRules;

/// The pairs of buffers whose lifetimes allow sharing but which a hard
/// rule keeps apart (the rules every planner obeys: no-alias outputs, the
/// split-AIV load + tpop hazard, written workspaces, declared allocations),
/// per memory space, largest first. `f` is the function before any sharing;
/// `rules` are the run's seed rules (a rule switched off refuses nothing).
/// The lifetimes allow it when they do not overlap, or when the two are
/// never live together although their hulls overlap (different branches
/// of an `if`, a carry's window between its last read and its next write:
/// the exclusivity the optimal planner shares by,
/// [`never_live_together`](crate::passes::analysis::model::Model::never_live_together)).
///
/// One call analyses the function once for all its spaces.
pub fn refused_sharings(
    f: &Function,
    soc: &Soc,
    rules: SeedRules,
) -> BTreeMap<MemSpace, Vec<RefusedSharing>> {
    use crate::passes::analysis::constraints::SeparationReason;
    use crate::passes::analysis::model::Model;
    use crate::passes::analysis::{facts, order::ProgramOrder};
    let Ok(model) = Model::build(f, soc, rules) else {
        return BTreeMap::new();
    };
    let lt = &model.lt;
    let order = ProgramOrder::build(f);
    let occ = model.occupancies(f, &facts::analyze_with(f, &order), &order);
    let mut out: BTreeMap<MemSpace, Vec<RefusedSharing>> = BTreeMap::new();
    for sep in model.separations() {
        let (ra, rb) = (&lt.roots[sep.a], &lt.roots[sep.b]);
        let (Some(la), Some(lb)) = (ra.lifetime(), rb.lifetime()) else {
            continue;
        };
        let never_together = la.overlaps(&lb);
        if never_together && !model.never_live_together(&occ, sep.a, sep.b) {
            continue;
        }
        let (Some(&ma), Some(&mb)) = (lt.members(sep.a).first(), lt.members(sep.b).first()) else {
            continue;
        };
        // The rule is about the statement the model names; without one
        // (a declared allocation), the statement writing the later buffer.
        let later = if la.def >= lb.def { ma } else { mb };
        let at = sep.at.or(match f.vars[later].def {
            crate::ir::VarDef::Stmt(s) => Some(s),
            _ => None,
        });
        let line = at
            .map(|s| f.pos_of(s).line)
            .filter(|&l| l > 0)
            .or_else(|| def_line(f, later))
            .unwrap_or(0);
        let writer = at
            .and_then(|s| f.stmts[s].call())
            .map(|c| c.op_name().to_string())
            .unwrap_or_else(|| "its writer".into());
        let rule = match sep.reason {
            SeparationReason::NoAlias => {
                format!("no-alias rule of {writer} at line {line} (its output may not share its input's bytes)")
            }
            SeparationReason::OperandOverlap => {
                format!("operands of {writer} at line {line} may not overlap")
            }
            SeparationReason::LoadTpopHazard => {
                format!("split-AIV load+tpop hazard at line {line} (a writer fed by tile.tpop_from_aic may not take over a loaded tile's buffer)")
            }
            SeparationReason::WrittenWorkspace => {
                format!("written-workspace rule at line {line}")
            }
            SeparationReason::Declared => "a declared (pinned) allocation never shares".to_string(),
        };
        out.entry(lt.space(sep.a))
            .or_default()
            .push(RefusedSharing {
                a: f.vars[ma].name.to_string(),
                b: f.vars[mb].name.to_string(),
                rule,
                line,
                bytes: ra.size.min(rb.size),
                never_together,
            });
    }
    for refused in out.values_mut() {
        refused.sort_by(|x, y| y.bytes.cmp(&x.bytes).then(x.line.cmp(&y.line)));
    }
    out
}
