//! Execution-memory-access evidence of each op, as PyPTO registers it
//! (`op-registry.md`, column `memory_access`): whether the op's reads and
//! writes of tile storage are exactly its operands and results
//! (`functional`), whether it touches no storage at all when it executes
//! (`none`: views, `tile.create`, `tile.alloc`, block queries), or whether
//! its registration says neither (`unknown`).
//!
//! DSA_RP's penalty recognizer reads this: an access through an op without
//! functional evidence "poisons" the allocation (no reuse penalty is
//! derived for it), and ops with no execution access are not accesses.
//!
//! The op table (`crate::ops`) has no evidence column yet; until it does,
//! the registry's two explicit lists live here, and every op outside them
//! (registered or not) is `unknown`, the conservative answer.

/// What executing an op does to tile storage, as far as it is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryAccess {
    /// `no_execution_memory_access`: the op touches no storage.
    None,
    /// `functional_execution_memory_access`: it reads its operands and
    /// writes its results, nothing else.
    Functional,
    /// Neither is registered: its accesses are not known exactly.
    Unknown,
}

/// Ops registered with `no_execution_memory_access`.
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

/// Ops registered with `functional_execution_memory_access`.
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

/// The registered evidence of `op` (a leading `pl.` is ignored).
pub fn memory_access(op: &str) -> MemoryAccess {
    let op = op.strip_prefix("pl.").unwrap_or(op);
    if NO_ACCESS.contains(&op) {
        MemoryAccess::None
    } else if FUNCTIONAL.contains(&op) {
        MemoryAccess::Functional
    } else {
        MemoryAccess::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Views and allocations are no accesses, element-wise and transfer
    /// ops are functional, reductions, stores and cross-core ops are not
    /// known exactly (the registry's classes), unknown names neither.
    #[test]
    fn evidence_follows_the_registry() {
        assert_eq!(memory_access("tile.reshape"), MemoryAccess::None);
        assert_eq!(memory_access("pl.tile.create"), MemoryAccess::None);
        assert_eq!(memory_access("tile.add"), MemoryAccess::Functional);
        assert_eq!(memory_access("tile.load"), MemoryAccess::Functional);
        assert_eq!(memory_access("tile.row_sum"), MemoryAccess::Unknown);
        assert_eq!(memory_access("tile.store"), MemoryAccess::Unknown);
        assert_eq!(memory_access("tile.tpop_from_aic"), MemoryAccess::Unknown);
        assert_eq!(memory_access("tile.nonexistent"), MemoryAccess::Unknown);
    }
}
