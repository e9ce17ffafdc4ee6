//! `builtin.module` in custom form.

use crate::ir::{Attribute, OpId};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;
use crate::print::types::write_symbol;

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `module @name attributes {..} { .. }`.
    Module,
}

/// The form of `builtin.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "module" => super::Form::Builtin(Form::Module),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of a `builtin` op in custom form (after its name).
    pub(crate) fn parse_builtin_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::Module => self.parse_module_op(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints a `builtin` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_builtin_op(&mut self, op: OpId, form: Form, _name: &str) -> bool {
        match form {
            Form::Module => self.print_module_op(op),
        }
    }
}

// `module @name attributes {..} { .. }`.

impl Parser<'_> {
    fn parse_module_op(&mut self, b: &mut Built) -> PResult<()> {
        if self.c.peek() == Some(b'@') {
            let n = self.parse_symbol_name()?;
            b.spec.attrs.set("sym_name", Attribute::String(n));
        }
        if self.c.eat_keyword("attributes") {
            self.parse_opt_attr_dict(b)?;
        }
        let r = self.m.new_detached_region();
        self.default_dialect.push("builtin");
        // A module is isolated from above: a name scope of its own.
        let res = self.parse_isolated_region(r, &[]);
        self.default_dialect.pop();
        res?;
        if self.m.region_blocks(r).is_empty() {
            self.m.add_block(r, &[]);
        }
        b.regions.push(r);
        Ok(())
    }
}

impl OpPrinter<'_> {
    pub(crate) fn print_module_op(&mut self, op: OpId) -> bool {
        let m = self.m;
        let d = m.op(op);
        self.out.push_str("module");
        if let Some(n) = d.attr("sym_name").and_then(Attribute::as_str) {
            self.out.push(' ');
            write_symbol(&mut self.out, n);
        }
        let has_attrs = d.attrs.iter().any(|(n, _)| n != "sym_name");
        if has_attrs {
            self.out.push_str(" attributes");
            self.attr_dict(op, &["sym_name"]);
        }
        let Some(&r) = d.regions().first() else {
            return false;
        };
        self.out.push(' ');
        self.default_dialect.push("builtin");
        self.region(r, false, true);
        self.default_dialect.pop();
        true
    }
}
