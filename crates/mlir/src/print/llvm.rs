//! Printing `llvm.mlir.constant` and `llvm.alloca` as MLIR's LLVM dialect
//! prints them (see `parse/llvm.rs`).

use crate::ir::{Attribute, OpId};
use crate::print::ops::OpPrinter;

impl OpPrinter<'_> {
    /// `llvm.mlir.constant(1 : i64) : i64`.
    pub(crate) fn print_llvm_constant(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(value), Some(r)) = (d.attr("value"), d.result(0)) else {
            return false;
        };
        self.push(&format!("{name}("));
        self.print_attr(value);
        self.push(")");
        self.print_attr_dict(op, &["value"]);
        self.push(" : ");
        self.print_type(m.value_type(r));
        true
    }

    /// `llvm.load volatile %p : P -> T` / `llvm.store volatile %v, %p : T, P`.
    pub(crate) fn print_llvm_access(&mut self, op: OpId, name: &str, store: bool) -> bool {
        let m = self.module();
        let d = m.op(op);
        let ops = d.operands().to_vec();
        if ops.len() != 1 + usize::from(store) || d.results().len() != usize::from(!store) {
            return false;
        }
        self.push(name);
        if d.has_attr("volatile_") {
            self.push(" volatile");
        }
        self.push(" ");
        self.print_values(&ops);
        self.print_attr_dict(op, &["volatile_"]);
        self.push(" : ");
        if store {
            self.print_types_of(&ops);
        } else {
            self.print_type(m.value_type(ops[0]));
            self.push(" -> ");
            self.print_type(m.value_type(d.results()[0]));
        }
        true
    }

    /// `llvm.alloca %n x T : (i64) -> !llvm.ptr`.
    pub(crate) fn print_llvm_alloca(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(Attribute::Type(elem)), Some(n), Some(r), 1) = (
            d.attr("elem_type"),
            d.operand(0),
            d.result(0),
            d.operands().len(),
        ) else {
            return false;
        };
        self.push(&format!("{name} "));
        self.print_values(&[n]);
        self.push(" x ");
        self.print_type(elem);
        self.print_attr_dict(op, &["elem_type"]);
        self.push(" : (");
        self.print_type(m.value_type(n));
        self.push(") -> ");
        self.print_type(m.value_type(r));
        true
    }
}
