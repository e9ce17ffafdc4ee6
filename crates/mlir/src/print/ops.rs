//! Printing operations: custom forms of the known ops, structured pieces,
//! and the generic form for everything else.

use std::fmt::Write;

use crate::dialect::shapes::Form::OperandList;
use crate::dialect::{custom_form, Form};
use crate::ir::ops::{ARG_ATTRS, CUSTOM_MACRO_OP, CUSTOM_OP};
use crate::ir::{
    Attribute, BlockId, Module, NamedAttrs, OpId, Piece, RegionId, Type, ValueId, DYNAMIC,
};
use crate::print::names::Names;
use crate::print::types::{
    write_attr, write_attr_name, write_function_type, write_string, write_type,
};

/// Prints ops with names assigned for the whole module.
pub struct OpPrinter<'a> {
    pub(crate) m: &'a Module,
    names: Names,
    pub(crate) out: String,
    indent: usize,
    pub(crate) default_dialect: Vec<&'static str>,
}

impl<'a> OpPrinter<'a> {
    /// A printer for the ops of `m`.
    pub fn new(m: &'a Module) -> OpPrinter<'a> {
        OpPrinter {
            m,
            names: Names::new(m, m.top()),
            out: String::new(),
            indent: 0,
            default_dialect: Vec::new(),
        }
    }

    /// Prints the module op and returns the text.
    pub fn print_module(mut self) -> String {
        self.print_op(self.m.top());
        self.out.push('\n');
        self.out
    }

    /// The text printed so far.
    pub fn into_text(self) -> String {
        self.out
    }

    /// The module being printed.
    pub(crate) fn module(&self) -> &'a Module {
        self.m
    }

    /// Appends text.
    pub(crate) fn push(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// Length of the text so far.
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    /// Drops the text after `len` (a form that turned out not to apply).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.out.truncate(len);
    }

    /// Prints a type (with aliases, as everywhere).
    pub(crate) fn print_type(&mut self, t: &Type) {
        self.ty(t);
    }

    /// Prints an attribute value.
    pub(crate) fn print_attr(&mut self, a: &Attribute) {
        write_attr(&mut self.out, a, false);
    }

    /// Prints values separated by `, `.
    pub(crate) fn print_values(&mut self, vs: &[ValueId]) {
        self.values(vs);
    }

    /// Prints ` {attrs}` without the `elided` names (nothing when empty).
    pub(crate) fn print_attr_dict(&mut self, op: OpId, elided: &[&str]) {
        self.attr_dict(op, elided);
    }

    /// One more level of indentation for the next lines.
    pub(crate) fn indent_in(&mut self) {
        self.indent += 1;
    }

    /// One level of indentation less.
    pub(crate) fn indent_out(&mut self) {
        self.indent -= 1;
    }

    /// A newline and the current indentation.
    pub(crate) fn print_newline(&mut self) {
        self.newline();
    }

    /// Prints the types of values separated by `, `.
    pub(crate) fn print_types_of(&mut self, vs: &[ValueId]) {
        self.types_of(vs);
    }

    /// Prints a region (see `region`).
    pub(crate) fn print_region(&mut self, r: RegionId, entry_args: bool, terminators: bool) {
        self.region(r, entry_args, terminators);
    }

    /// `^bbN`: the block's position in its region (MLIR numbers blocks per
    /// region).
    pub(crate) fn block_name(&self, b: BlockId) -> String {
        let r = self.m.block_region(b);
        let i = self
            .m
            .region_blocks(r)
            .iter()
            .position(|&x| x == b)
            .unwrap_or(0);
        format!("^bb{i}")
    }

    pub(crate) fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    pub(crate) fn value(&mut self, v: ValueId) {
        match self.names.name(v) {
            Some(n) => self.out.push_str(n),
            None => {
                let n = self.names.get(self.m, v);
                self.out.push_str(&n);
            }
        }
    }

    pub(crate) fn values(&mut self, vs: &[ValueId]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.value(v);
        }
    }

    pub(crate) fn ty(&mut self, t: &Type) {
        write_type(&mut self.out, t);
    }

    pub(crate) fn types_of(&mut self, vs: &[ValueId]) {
        let m = self.m;
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            write_type(&mut self.out, m.value_type(v));
        }
    }

    /// `T1 {attrs}, T2` for `vs`: each type followed by its non-empty
    /// dictionary from `dicts` (one per value).
    pub(crate) fn types_with_attrs(&mut self, vs: &[ValueId], dicts: &[Attribute]) {
        let m = self.m;
        for (i, (&v, a)) in vs.iter().zip(dicts).enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            write_type(&mut self.out, m.value_type(v));
            if a.as_dict().is_some_and(|d| !d.is_empty()) {
                self.out.push(' ');
                write_attr(&mut self.out, a, false);
            }
        }
    }

    pub(crate) fn attr_dict(&mut self, op: OpId, elided: &[&str]) {
        let d = &self.m.op(op).attrs;
        let shown: Vec<(&str, &Attribute)> =
            d.iter().filter(|(n, _)| !elided.contains(n)).collect();
        if shown.is_empty() {
            return;
        }
        self.out.push_str(" {");
        for (i, (n, a)) in shown.into_iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            write_attr_name(&mut self.out, n);
            if *a != Attribute::Unit {
                self.out.push_str(" = ");
                write_attr(&mut self.out, a, false);
            }
        }
        self.out.push('}');
    }

    /// The op name as printed: `func.` ops inside functions drop the prefix.
    pub(crate) fn op_name(&self, name: &str) -> String {
        // Only ops the reader knows by their short name lose the prefix.
        if custom_form(name).is_none() {
            return name.to_string();
        }
        if let Some(d) = self.default_dialect.last() {
            if let Some(rest) = name.strip_prefix(d).and_then(|r| r.strip_prefix('.')) {
                return rest.to_string();
            }
        }
        name.to_string()
    }

    /// Prints one op (no leading newline/indent).
    pub fn print_op(&mut self, op: OpId) {
        let d = self.m.op(op);
        if !d.results().is_empty() && op != self.m.top() {
            let defs = self.names.def_name(self.m, op);
            self.out.push_str(&defs.join(", "));
            self.out.push_str(" = ");
        }
        let mark = self.out.len();
        let ok = match custom_form(d.name()) {
            Some(f) => self.print_custom(op, f),
            // An op of an unregistered dialect has no custom form to
            // follow: as in MLIR, only its generic form reads back as the
            // same op (the lenient reader cannot tell where a custom form
            // ends: `a.b` would take the next line's `%0 = ...` as an
            // operand).
            // Likewise an unknown op of a registered dialect (read with
            // -allow-unregistered-dialect): only the ops the structured
            // reader is known to read back keep their custom form.
            None if d.syntax.is_some() && crate::parse::is_lenient_op(d.name()) => {
                self.print_structured(op)
            }
            None => match crate::print::segments::conforms(self.m, op) {
                Some((ods, elems)) => {
                    self.out.push_str(d.name());
                    self.print_ods(op, ods, elems)
                }
                None => false,
            },
        };
        if !ok {
            self.out.truncate(mark);
            self.print_generic(op);
        }
        self.trailing_loc(self.m.op(op).loc.src);
    }

    /// ` loc(...)` as the input wrote it, for a source location `src`
    /// ([`crate::ir::Location::src`]; 0: nothing printed).
    pub(crate) fn trailing_loc(&mut self, src: u32) {
        let loc = crate::ir::Location {
            src,
            ..Default::default()
        };
        if let Some(text) = self.m.src_loc(loc) {
            let _ = write!(self.out, " loc({text})");
        }
    }

    /// The ` loc(...)` of block argument `v`, when the input gave one.
    pub(crate) fn arg_loc(&mut self, v: ValueId) {
        if let Some(&src) = self.m.arg_locs.get(&v) {
            self.trailing_loc(src);
        }
    }

    fn print_generic(&mut self, op: OpId) {
        let d = self.m.op(op);
        write_string(&mut self.out, d.name());
        self.out.push('(');
        self.values(d.operands());
        self.out.push(')');
        if !d.successors().is_empty() {
            self.out.push('[');
            for (i, &b) in d.successors().iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let n = self.block_name(b);
                self.out.push_str(&n);
            }
            self.out.push(']');
        }
        if !d.regions().is_empty() {
            self.out.push_str(" (");
            for (i, &r) in d.regions().iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.region(r, true, true);
            }
            self.out.push(')');
        }
        let mut attrs = d.attrs.clone();
        if !d.segments.is_empty() {
            attrs.set(
                "operandSegmentSizes",
                Attribute::dense_i32(d.segments.iter().map(|&n| n as i64)),
            );
        }
        if !attrs.is_empty() {
            self.out.push(' ');
            crate::print::types::write_dict(&mut self.out, &attrs);
        }
        self.out.push_str(" : ");
        self.sig(op);
    }

    /// Prints a region `{ ... }`.
    pub(crate) fn region(&mut self, r: RegionId, print_entry_args: bool, print_terminators: bool) {
        self.out.push('{');
        self.indent += 1;
        let blocks = self.m.region_blocks(r).to_vec();
        for (i, &b) in blocks.iter().enumerate() {
            let args = self.m.block_args(b).to_vec();
            if i > 0 || (print_entry_args && !args.is_empty()) {
                self.indent -= 1;
                self.newline();
                let _ = write!(self.out, "^bb{i}");
                if !args.is_empty() {
                    self.out.push('(');
                    for (k, &a) in args.iter().enumerate() {
                        if k > 0 {
                            self.out.push_str(", ");
                        }
                        self.value(a);
                        self.out.push_str(": ");
                        let t = self.m.value_type(a).clone();
                        self.ty(&t);
                        self.arg_loc(a);
                    }
                    self.out.push(')');
                }
                self.out.push(':');
                if i > 0 {
                    self.pred_comment(r, b);
                }
                self.indent += 1;
            }
            self.block_ops(b, print_terminators);
        }
        self.indent -= 1;
        self.newline();
        self.out.push('}');
    }

    /// MLIR's `  // pred: ^bb0` / `  // 2 preds: ^bb0, ^bb2` /
    /// `  // no predecessors` after a non-entry block label.
    fn pred_comment(&mut self, r: RegionId, b: BlockId) {
        let blocks = self.m.region_blocks(r).to_vec();
        let mut preds: Vec<usize> = Vec::new();
        for (i, &p) in blocks.iter().enumerate() {
            if let Some(t) = self.m.last_op(p) {
                let n = self
                    .m
                    .op(t)
                    .successors()
                    .iter()
                    .filter(|&&s| s == b)
                    .count();
                preds.extend(std::iter::repeat_n(i, n));
            }
        }
        preds.dedup();
        match preds.as_slice() {
            [] => self.out.push_str("  // no predecessors"),
            [p] => {
                let _ = write!(self.out, "  // pred: ^bb{p}");
            }
            _ => {
                let names: Vec<String> = preds.iter().map(|p| format!("^bb{p}")).collect();
                let _ = write!(self.out, "  // {} preds: {}", preds.len(), names.join(", "));
            }
        }
    }

    fn block_ops(&mut self, b: BlockId, print_terminators: bool) {
        let ops: Vec<OpId> = self.m.block_ops(b).collect();
        let last = ops.last().copied();
        for o in ops {
            if !print_terminators && Some(o) == last && self.is_elidable_terminator(o) {
                continue;
            }
            self.newline();
            self.print_op(o);
        }
    }

    fn is_elidable_terminator(&self, op: OpId) -> bool {
        let d = self.m.op(op);
        let empty_in_parallel = d.is("scf.forall.in_parallel")
            && d.regions().iter().all(|&r| {
                self.m
                    .region_blocks(r)
                    .iter()
                    .all(|&b| self.m.first_op(b).is_none())
            });
        (matches!(d.name(), "scf.yield" | "scope.return") || empty_in_parallel)
            && d.operands().is_empty()
            && d.attrs.is_empty()
    }

    fn print_custom(&mut self, op: OpId, form: Form) -> bool {
        let d = self.m.op(op);
        if form == Form::Shape(OperandList) && !d.regions().is_empty() {
            return false;
        }
        let name = self.op_name(d.name());
        self.print_custom_form(op, form, &name)
    }

    /// Prints the op's `(operand types) -> (result types)`.
    /// `name %a, %b {attrs} : T, U`: the operand list, the attribute
    /// dictionary and the operand types (operands and types only when there
    /// are operands).
    pub(crate) fn operand_list_form(&mut self, op: OpId, name: &str, operands: &[ValueId]) {
        self.out.push_str(name);
        if !operands.is_empty() {
            self.out.push(' ');
            self.values(operands);
        }
        self.attr_dict(op, &[]);
        if !operands.is_empty() {
            self.out.push_str(" : ");
            self.types_of(operands);
        }
    }

    /// `%v` or, when `typed`, `%v : T` (the reader's `parse_opt_typed_operand`).
    pub(crate) fn opt_typed_value(&mut self, v: ValueId, typed: bool) {
        self.value(v);
        if typed {
            self.out.push_str(" : ");
            let m = self.m;
            self.ty(m.value_type(v));
        }
    }

    /// ` : SRC WORD RES` (`to` or `into`): the type trailer of view-like ops
    /// and copies (the reader's `parse_view_types`).
    pub(crate) fn view_types(&mut self, src: &Type, word: &str, res: &Type) {
        self.out.push_str(" : ");
        self.ty(src);
        self.out.push(' ');
        self.out.push_str(word);
        self.out.push(' ');
        self.ty(res);
    }

    /// A function argument or result type and, when it has any, its
    /// attribute dictionary: `T {name = value}`.
    pub(crate) fn ty_with_attrs(&mut self, t: &Type, attrs: Option<&NamedAttrs>) {
        self.ty(t);
        if let Some(a) = attrs {
            self.out.push(' ');
            crate::print::types::write_dict(&mut self.out, a);
        }
    }

    pub(crate) fn sig(&mut self, op: OpId) {
        let d = self.m.op(op);
        let inputs: Vec<Type> = d
            .operands()
            .iter()
            .map(|&v| self.m.value_type(v).clone())
            .collect();
        let results: Vec<Type> = d
            .results()
            .iter()
            .map(|&v| self.m.value_type(v).clone())
            .collect();
        write_function_type(&mut self.out, &crate::ir::FunctionType { inputs, results });
    }

    pub(crate) fn mixed(&mut self, list: &[crate::ir::Ofr]) {
        self.out.push('[');
        for (i, o) in list.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match *o {
                crate::ir::Ofr::Static(v) if v == DYNAMIC => self.out.push('?'),
                crate::ir::Ofr::Static(v) => {
                    let _ = write!(self.out, "{v}");
                }
                crate::ir::Ofr::Dynamic(v) => self.value(v),
            }
        }
        self.out.push(']');
    }

    pub(crate) fn print_structured(&mut self, op: OpId) -> bool {
        let m = self.m;
        let d = m.op(op);
        let Some(syntax) = d.syntax.as_deref() else {
            return false;
        };
        let name = self.op_name(d.name());
        self.out.push_str(&name);
        let mut clause_names: Vec<&str> = Vec::new();
        for p in &syntax.pieces {
            if let Piece::AttrClause { name } | Piece::AttrValue { name } = p {
                clause_names.push(name);
            }
        }
        // A custom op's per-input dictionaries print inside `ins(...)`.
        let arg_attrs = if matches!(d.name(), CUSTOM_OP | CUSTOM_MACRO_OP) {
            d.attr(ARG_ATTRS).and_then(Attribute::as_array)
        } else {
            None
        };
        if arg_attrs.is_some() {
            clause_names.push(ARG_ATTRS);
        }
        let has_dict_piece = syntax.pieces.contains(&Piece::AttrDict);
        if !has_dict_piece {
            // Attributes added after reading go where HIVM ops print them: first.
            self.attr_dict(op, &clause_names);
        }
        let mut glue = false;
        let results = d.results().to_vec();
        for p in &syntax.pieces {
            let sep = |s: &mut Self, glue: &mut bool| {
                if !*glue {
                    s.out.push(' ');
                }
                *glue = false;
            };
            match p {
                Piece::NoSpace => {
                    glue = true;
                    continue;
                }
                Piece::Text(t) => {
                    sep(self, &mut glue);
                    self.out.push_str(t);
                }
                Piece::AttrDict => {
                    let before = self.out.len();
                    self.attr_dict(op, &clause_names);
                    if glue && self.out.len() > before {
                        // attr_dict adds its own leading space.
                        self.out.remove(before);
                    }
                    glue = false;
                }
                Piece::Operands { segment } => {
                    sep(self, &mut glue);
                    self.values(d.segment(*segment));
                }
                Piece::OperandTypes => {
                    let seg = syntax.pieces.iter().find_map(|p| match p {
                        Piece::Operands { segment } => Some(*segment),
                        _ => None,
                    });
                    self.out.push_str(" : ");
                    glue = false;
                    if let Some(s) = seg {
                        self.types_of(d.segment(s));
                    }
                }
                Piece::Signature => {
                    self.out.push_str(" : ");
                    glue = false;
                    self.sig(op);
                }
                Piece::ToResults => {
                    self.out.push_str(" to ");
                    glue = false;
                    self.types_of(&results);
                }
                Piece::Group {
                    keyword,
                    segment,
                    typed,
                } => {
                    sep(self, &mut glue);
                    let vs = d.segment(*segment).to_vec();
                    let _ = write!(self.out, "{keyword}(");
                    self.values(&vs);
                    if *typed && !vs.is_empty() {
                        self.out.push_str(" : ");
                        match arg_attrs.filter(|a| keyword == "ins" && a.len() == vs.len()) {
                            Some(dicts) => self.types_with_attrs(&vs, dicts),
                            None => self.types_of(&vs),
                        }
                    }
                    self.out.push(')');
                }
                Piece::KeywordOperand {
                    name,
                    segment,
                    typed,
                } => {
                    let Some(&v) = d.segment(*segment).first() else {
                        continue;
                    };
                    sep(self, &mut glue);
                    let _ = write!(self.out, "{name} ");
                    self.opt_typed_value(v, *typed);
                }
                Piece::Brackets { segment } => {
                    sep(self, &mut glue);
                    self.out.push('[');
                    self.values(d.segment(*segment));
                    self.out.push(']');
                }
                Piece::AttrValue { name } => {
                    let Some(a) = d.attr(name) else { continue };
                    sep(self, &mut glue);
                    write_attr(&mut self.out, a, true);
                }
                Piece::AttrClause { name } => {
                    let Some(a) = d.attr(name) else { continue };
                    sep(self, &mut glue);
                    let _ = write!(self.out, "{name} = ");
                    write_attr(&mut self.out, a, true);
                }
                Piece::OperandClause {
                    name,
                    segment,
                    typed,
                } => {
                    let vs = d.segment(*segment).to_vec();
                    let Some(&v) = vs.first() else { continue };
                    sep(self, &mut glue);
                    let _ = write!(self.out, "{name} = ");
                    self.opt_typed_value(v, *typed);
                }
                Piece::Results { arrow, parens } => {
                    self.out.push_str(if *arrow { " -> " } else { " : " });
                    glue = false;
                    if *parens {
                        self.out.push('(');
                    }
                    self.types_of(&results);
                    if *parens {
                        self.out.push(')');
                    }
                }
                Piece::Region(i) => {
                    let Some(&r) = d.regions().get(*i) else {
                        continue;
                    };
                    sep(self, &mut glue);
                    self.region(r, true, true);
                }
            }
        }
        true
    }
}

pub(crate) fn mixed_of(statics: &[i64], dyns: &[ValueId]) -> Vec<crate::ir::Ofr> {
    let mut it = dyns.iter();
    statics
        .iter()
        .map(|&s| {
            if s == DYNAMIC {
                it.next()
                    .map(|&v| crate::ir::Ofr::Dynamic(v))
                    .unwrap_or(crate::ir::Ofr::Static(DYNAMIC))
            } else {
                crate::ir::Ofr::Static(s)
            }
        })
        .collect()
}
