//! The custom assembly forms of the upstream dialects, one module per
//! dialect: each holds the table of its ops' forms and, for each form, its
//! reader (`impl Parser`) and its printer (`impl OpPrinter`) side by side,
//! so an op's syntax is defined in one place. Shapes several dialects
//! share (operand lists, same-type arithmetic, casts) are in [`shapes`].
//!
//! Ops with a declarative ODS format (every `hivm`/`ave` op and the
//! upstream ops of [`crate::ir::upstream`]) are read and printed from
//! their format instead (`parse/ods.rs`, `print/ods.rs`); the remaining
//! custom parsers (`hivm.hir.fixpipe`, `hivm.hir.custom`, `scope.scope`,
//! ...) use the structured piece reader ([`Form::Structured`]).

use crate::ir::OpId;
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;

pub(crate) mod affine;
pub(crate) mod arith;
pub(crate) mod builtin;
pub(crate) mod func;
pub(crate) mod linalg;
pub(crate) mod llvm;
pub(crate) mod memref;
pub(crate) mod scf;
pub(crate) mod shapes;
pub(crate) mod symbol;
pub(crate) mod vector;

/// The textual form of an op the reader and printer know, by dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// A shape several dialects share.
    Shape(shapes::Form),
    /// `builtin.module`.
    Builtin(builtin::Form),
    /// `func.func`, `func.call`.
    Func(func::Form),
    /// `arith` constants, comparisons, select.
    Arith(arith::Form),
    /// `affine` maps and accesses.
    Affine(affine::Form),
    /// `memref` allocations, views, accesses, globals.
    Memref(memref::Form),
    /// `scf` loops and branches.
    Scf(scf::Form),
    /// `vector` transfers, masks, transposes, reductions.
    Vector(vector::Form),
    /// `linalg.reduce`.
    Linalg(linalg::Form),
    /// `llvm` constants, allocas, loads and stores.
    Llvm(llvm::Form),
    /// `symbol` ints and shape bindings.
    Symbol(symbol::Form),
    /// Everything else written in custom form: a sequence of pieces
    /// ([`crate::ir::Syntax`]), e.g. `hivm.hir.fixpipe ins(..) outs(..)` and
    /// `scope.scope { ... }`.
    Structured,
}

/// The custom form of a known op name (`None`: printed in generic form, or
/// from its ODS format).
pub(crate) fn custom_form(name: &str) -> Option<Form> {
    use shapes::Form::{OperandList, SameType};
    let (dialect, op) = name.split_once('.')?;
    match dialect {
        "builtin" => builtin::form(op),
        "func" => func::form(op),
        "arith" => arith::form(op),
        "affine" => affine::form(op),
        "memref" => memref::form(op),
        "scf" => scf::form(op),
        "vector" => vector::form(op),
        "linalg" => linalg::form(op),
        "llvm" => llvm::form(op),
        "symbol" => symbol::form(op),
        // Dialects whose custom ops here all have a shared shape.
        "math" => matches!(
            op,
            "exp"
                | "log"
                | "sqrt"
                | "rsqrt"
                | "absf"
                | "absi"
                | "tanh"
                | "sin"
                | "cos"
                | "floor"
                | "ceil"
                | "powf"
                | "exp2"
                | "erf"
        )
        .then_some(Form::Shape(SameType)),
        "scope" => (op == "return").then_some(Form::Shape(OperandList)),
        "transform" => match op {
            "named_sequence" => Some(Form::Func(func::Form::Func)),
            "yield" => Some(Form::Shape(OperandList)),
            _ => None,
        },
        _ => None,
    }
}

impl Parser<'_> {
    /// Reads the rest of an op in custom form `form` (after its name).
    pub(crate) fn parse_custom_form(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::Shape(f) => self.parse_shape_op(f, b),
            Form::Builtin(f) => self.parse_builtin_op(f, b),
            Form::Func(f) => self.parse_func_op(f, b),
            Form::Arith(f) => self.parse_arith_op(f, b),
            Form::Affine(f) => self.parse_affine_op(f, b),
            Form::Memref(f) => self.parse_memref_op(f, b),
            Form::Scf(f) => self.parse_scf_op(f, b),
            Form::Vector(f) => self.parse_vector_op(f, b),
            Form::Linalg(f) => self.parse_linalg_op(f, b),
            Form::Llvm(f) => self.parse_llvm_op(f, b),
            Form::Symbol(f) => self.parse_symbol_op(f, b),
            Form::Structured => self.parse_structured(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints `op` in custom form `form` (`name` as printed); `false` when
    /// the op does not fit the form (it is then printed in generic form).
    pub(crate) fn print_custom_form(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::Shape(f) => self.print_shape_op(op, f, name),
            Form::Builtin(f) => self.print_builtin_op(op, f, name),
            Form::Func(f) => self.print_func_op(op, f, name),
            Form::Arith(f) => self.print_arith_op(op, f, name),
            Form::Affine(f) => self.print_affine_op(op, f, name),
            Form::Memref(f) => self.print_memref_op(op, f, name),
            Form::Scf(f) => self.print_scf_op(op, f, name),
            Form::Vector(f) => self.print_vector_op(op, f, name),
            Form::Linalg(f) => self.print_linalg_op(op, f, name),
            Form::Llvm(f) => self.print_llvm_op(op, f, name),
            Form::Symbol(f) => self.print_symbol_op(op, f, name),
            Form::Structured => self.print_structured(op),
        }
    }
}
