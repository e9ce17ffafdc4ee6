//! Execution-memory-access evidence of each op, as PyPTO registers it
//! (`op-registry.md`, column `memory_access`; the op table's `evidence`):
//! whether the op's reads and writes of tile storage are exactly its
//! operands and results (`functional`), whether it touches no storage at
//! all when it executes (`none`: views, `tile.create`, `tile.alloc`, block
//! queries), or whether its registration says neither (`unknown`).
//!
//! DSA_RP's penalty recognizer reads this: an access through an op without
//! functional evidence "poisons" the allocation (no reuse penalty is
//! derived for it), and ops with no execution access are not accesses.
//! Ops outside the table (registered elsewhere or not at all) are
//! `unknown`, the conservative answer.

pub use crate::ops::Evidence;

/// The registered evidence of `op` (a leading `pl.` is ignored).
pub fn memory_access(op: &str) -> Evidence {
    crate::ops::lookup(op).map_or(Evidence::Unknown, |o| o.evidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Views and allocations are no accesses, element-wise and transfer
    /// ops are functional, reductions, stores and cross-core ops are not
    /// known exactly (the registry's classes), unknown names neither.
    #[test]
    fn evidence_follows_the_registry() {
        assert_eq!(memory_access("tile.reshape"), Evidence::NoAccess);
        assert_eq!(memory_access("pl.tile.create"), Evidence::NoAccess);
        assert_eq!(memory_access("tile.add"), Evidence::Functional);
        assert_eq!(memory_access("tile.load"), Evidence::Functional);
        assert_eq!(memory_access("tile.row_sum"), Evidence::Unknown);
        assert_eq!(memory_access("tile.store"), Evidence::Unknown);
        assert_eq!(memory_access("tile.tpop_from_aic"), Evidence::Unknown);
        assert_eq!(memory_access("tile.nonexistent"), Evidence::Unknown);
    }

    /// The registry's two explicit lists (PyPTO e2d0f78), as this module
    /// held them before the op table had an `evidence` column.
    const NO_ACCESS: &[&str] = &[
        "tile.get_block_idx",
        "tile.get_subblock_idx",
        "tile.get_block_num",
        "tile.create",
        "tile.alloc",
        "tile.slice",
        "tile.reshape",
        "tile.reinterpret_view",
        "tile.transpose_view",
        "tile.set_validshape",
    ];
    const FUNCTIONAL: &[&str] = &[
        "tile.batch_matmul",
        "tile.batch_matmul_acc",
        "tile.row_expand_sub",
        "tile.row_expand_div",
        "tile.row_expand_mul",
        "tile.row_expand_max",
        "tile.row_expand_min",
        "tile.row_expand_expdif",
        "tile.col_expand_mul",
        "tile.col_expand_add",
        "tile.col_expand_div",
        "tile.col_expand_sub",
        "tile.col_expand_max",
        "tile.col_expand_min",
        "tile.col_expand_expdif",
        "tile.mul",
        "tile.add",
        "tile.div",
        "tile.sub",
        "tile.maximum",
        "tile.minimum",
        "tile.fmod",
        "tile.muls",
        "tile.adds",
        "tile.divs",
        "tile.subs",
        "tile.fmods",
        "tile.shl",
        "tile.shls",
        "tile.shr",
        "tile.shrs",
        "tile.maximums",
        "tile.minimums",
        "tile.and",
        "tile.ands",
        "tile.or",
        "tile.ors",
        "tile.addc",
        "tile.subc",
        "tile.addsc",
        "tile.subsc",
        "tile.lrelu",
        "tile.sels",
        "tile.cmp",
        "tile.cmps",
        "tile.fillpad_expand",
        "tile.matmul",
        "tile.matmul_acc",
        "tile.matmul_bias",
        "tile.gemv",
        "tile.gemv_acc",
        "tile.gemv_bias",
        "tile.load",
        "tile.move",
        "tile.full",
        "tile.ci",
        "tile.random",
        "tile.col_max",
        "tile.col_min",
        "tile.col_prod",
        "tile.sort32",
        "tile.mrgsort_format1",
        "tile.concat",
        "tile.neg",
        "tile.exp",
        "tile.sin",
        "tile.cos",
        "tile.recip",
        "tile.sqrt",
        "tile.cast",
        "tile.log",
        "tile.abs",
        "tile.relu",
        "tile.not",
    ];

    /// Reading the table gives exactly what the two lists gave, for every
    /// op the table, the deviations or the registry name, and for the
    /// listed names themselves.
    #[test]
    fn table_evidence_equals_the_former_lists() {
        let list = |op: &str| {
            if NO_ACCESS.contains(&op) {
                Evidence::NoAccess
            } else if FUNCTIONAL.contains(&op) {
                Evidence::Functional
            } else {
                Evidence::Unknown
            }
        };
        let names = crate::ops::TABLE
            .iter()
            .map(|o| o.name)
            .chain(crate::ops::DEVIATIONS.iter().map(|d| d.op))
            .chain(crate::ops::SIGNATURES.iter().map(|s| s.name))
            .chain(NO_ACCESS.iter().copied())
            .chain(FUNCTIONAL.iter().copied());
        let mut checked = 0;
        for op in names {
            assert_eq!(memory_access(op), list(op), "{op}");
            assert_eq!(memory_access(&format!("pl.{op}")), list(op), "pl.{op}");
            checked += 1;
        }
        assert!(checked > NO_ACCESS.len() + FUNCTIONAL.len());
    }
}
