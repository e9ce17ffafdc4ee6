//! The one place where the op table knowingly differs from PyPTO's registry
//! (`op-registry.csv`, PyPTO e2d0f78). Each entry is a rule of the seeds
//! (`../shared/seeds/000_*.txt`, the specification of record) that is newer
//! than the registry, or a target rule the registry keeps outside the op's
//! registration. `cargo xtask pto-registry` applies these on top of the
//! registry's rows, and the comparison test allows exactly these
//! differences: the registry's own facts (in-place safety,
//! `forbid_output_alias`, reuse, inherit, effects, evidence) are never
//! changed, only the derived no-alias rule, the written-scratch operands, the
//! A2/A3 operand separations, and rows the registry does not have.

use tilemem_soc::MemSpace;

use super::{
    AliasRule, ArgEffects, CrossCoreRole, Evidence, OpClass, OpInfo, OutSpace, Pipe, ViewRule,
};

/// What a deviation changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The effective no-alias rule (instead of the one the registry's
    /// in-place / forbid facts give).
    Alias(AliasRule),
    /// Operands written as scratch (`set_workspace_arg`).
    Workspace(&'static [usize]),
    /// Operand pairs kept apart on A2/A3.
    A2a3Separations(&'static [(usize, usize)]),
    /// A whole row for an op the registry does not have.
    Row(OpInfo),
}

/// One deviation: the op, what changes, and where the rule comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deviation {
    /// The op.
    pub op: &'static str,
    /// The change.
    pub change: Change,
    /// Source of the rule (seed file and line, or the registry's note).
    pub source: &'static str,
    /// The rule in one line.
    pub why: &'static str,
}

/// Every difference between the table and the registry.
pub static DEVIATIONS: &[Deviation] = &[
    Deviation {
        op: "tile.cast",
        change: Change::Alias(AliasRule::Cast),
        source: "seeds/000_247137137f7d8b90.txt:77,94,264",
        why: "widening casts on every target and narrowing casts on A2/A3 must not overlap \
              their source (registry: in-place safe)",
    },
    Deviation {
        op: "tile.sels",
        change: Change::Workspace(&[2]),
        source: "seeds/000_247137137f7d8b90.txt:146-158",
        why: "tmp is a written workspace (set_workspace_arg(2))",
    },
    Deviation {
        op: "tile.sels",
        change: Change::A2a3Separations(&[(2, 0), (2, 1)]),
        source: "seeds/000_247137137f7d8b90.txt:91,261",
        why: "A2/A3 TSELS writes the scalar into tmp before reading mask and src",
    },
    Deviation {
        op: "tile.gather",
        change: Change::Workspace(&[2]),
        source: "seeds/000_247137137f7d8b90.txt:146",
        why: "tmp is a written workspace (set_workspace_arg(2))",
    },
    Deviation {
        op: "tile.prelu",
        change: Change::Alias(AliasRule::Prelu),
        source: "seeds/000_247137137f7d8b90.txt:92,262; registry target rule \
                 memory_reuse_pass.cpp:278-284",
        why: "A2/A3 forbids every input; A5 only src and slope (TPRELU does not read tmp)",
    },
    Deviation {
        op: "tile.rem",
        change: Change::Alias(AliasRule::NotInplaceSafe),
        source: "seeds/000_247137137f7d8b90.txt:88",
        why: "the remainder kernel writes a partial result into dst while it still reads the \
              dividend (registry: in-place safe)",
    },
    Deviation {
        op: "tile.rem",
        change: Change::A2a3Separations(&[(2, 0), (2, 1)]),
        source: "seeds/000_247137137f7d8b90.txt:88",
        why: "A2/A3 codegen rejects a scratch tmp overlapping the dividend or the divisor",
    },
    Deviation {
        op: "tile.rems",
        change: Change::Alias(AliasRule::NotInplaceSafe),
        source: "seeds/000_247137137f7d8b90.txt:88",
        why: "the remainder kernel writes a partial result into dst while it still reads the \
              dividend (registry: in-place safe)",
    },
    Deviation {
        op: "tile.rems",
        change: Change::A2a3Separations(&[(2, 0)]),
        source: "seeds/000_247137137f7d8b90.txt:88",
        why: "A2/A3 codegen rejects a scratch tmp overlapping the dividend",
    },
    Deviation {
        op: "tile.quant_mx",
        change: Change::Row(OpInfo {
            name: "tile.quant_mx",
            out_space: OutSpace::Fixed(MemSpace::Vec),
            view: ViewRule::NotView,
            alias: AliasRule::InplaceSafe,
            output_reuses_input: None,
            workspace_args: &[2],
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
        }),
        source: "seeds/000_247137137f7d8b90.txt:146",
        why: "declares a written workspace (arg 2); not registered at PyPTO e2d0f78",
    },
];
