//! The row types of the op format tables: what an ODS definition says of
//! an op's operands, attributes, results, regions and format. The
//! generated `hivm`/`ave` table (`ods_table.rs`) and the upstream rows
//! (`upstream.rs`) are written in them; [`crate::ir::format`] interprets
//! them.

/// How many values an operand or result stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly one.
    Single,
    /// Zero or one.
    Optional,
    /// Any number.
    Variadic,
}

/// Whether an attribute must be present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Always present.
    Required,
    /// May be absent (`OptionalAttr`, `UnitAttr`).
    Optional,
    /// May be absent; absent means the default (`DefaultValuedAttr`).
    Default,
}

/// An attribute of an op's ODS arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OdsAttr {
    /// Attribute name.
    pub name: &'static str,
    /// How it is spelled in the format: `enum:DIALECT.MNEMONIC` (a dialect
    /// attribute printed without its `#dialect.mnemonic` prefix),
    /// `array:i64` (a dense array printed `[1, 2]`), `int:i64`, `float:f32`,
    /// `bool`, `unit`, `str`, `type`, `symbol`, or `any` (full syntax).
    pub kind: &'static str,
    /// Whether it may be absent.
    pub presence: Presence,
    /// The default of a `DefaultValuedAttr`, as the C++ spells it.
    pub default: Option<&'static str>,
}

/// One op of the table.
#[derive(Clone, Copy, Debug)]
pub struct OdsOp {
    /// Full name (`hivm.hir.vadd`).
    pub name: &'static str,
    /// Operands in ODS order (each is one operand segment).
    pub operands: &'static [(&'static str, Arity)],
    /// Attributes in ODS order.
    pub attrs: &'static [OdsAttr],
    /// Results in ODS order.
    pub results: &'static [(&'static str, Arity)],
    /// Number of regions.
    pub regions: usize,
    /// Operands and results whose types are equal (`AllTypesMatch`,
    /// `SameOperandsAndResultType`): a result type the format omits is
    /// the type of another member of its group.
    pub same_types: &'static [&'static [&'static str]],
    /// Successors in ODS order (each one block).
    pub successors: &'static [&'static str],
    /// The declarative format (`None`: custom parser and printer).
    pub format: Option<&'static str>,
}

impl OdsOp {
    /// The index of operand `name`.
    pub fn operand_index(&self, name: &str) -> Option<usize> {
        self.operands.iter().position(|(n, _)| *n == name)
    }

    /// The index of result `name`.
    pub fn result_index(&self, name: &str) -> Option<usize> {
        self.results.iter().position(|(n, _)| *n == name)
    }

    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&'static OdsAttr> {
        self.attrs.iter().find(|a| a.name == name)
    }
}

/// The traits and interfaces one op declares (the generated
/// `ods_traits.rs` table).
#[derive(Clone, Copy, Debug)]
pub struct OdsTraits {
    /// Full name (`hivm.hir.vadd`).
    pub name: &'static str,
    /// The `.td` file defining the op, without extension
    /// (`HIVMVectorOps`).
    pub file: &'static str,
    /// The ODS class chain below `Op`, nearest last (`HIVM_Op`,
    /// `HIVM_StructuredOp`, `HIVM_VectorOp`, ...).
    pub classes: &'static [&'static str],
    /// Traits and interfaces in declaration order (see the table's docs).
    pub traits: &'static [&'static str],
}

impl OdsTraits {
    /// Whether the op declares trait or interface `name` (exactly as the
    /// table spells it, e.g. `ElementwiseNaryOpTrait<2>`).
    pub fn has(&self, name: &str) -> bool {
        self.traits.contains(&name)
    }

    /// Whether `class` is in the op's ODS class chain.
    pub fn derives(&self, class: &str) -> bool {
        self.classes.contains(&class)
    }
}

/// The traits row of op `name`, if it is a `hivm` op.
pub fn traits_of(name: &str) -> Option<&'static OdsTraits> {
    let t = crate::ir::ods_traits::TRAITS;
    t.binary_search_by(|r| r.name.cmp(name)).ok().map(|i| &t[i])
}
