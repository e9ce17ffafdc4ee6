//! The few `llvm` dialect ops the corpus writes in custom form around
//! HIVM code: `llvm.mlir.constant(1 : i64) : i64` (the value kept as
//! `value`), `llvm.alloca %n x T {attrs} : (i64) -> !llvm.ptr` (the
//! element type kept as `elem_type`), `llvm.load`/`llvm.store` (with
//! `volatile`), `llvm.mlir.global` and `llvm.func` (MLIR's `GlobalOp` and
//! `LLVMFuncOp` custom formats).
//! Other `llvm` ops read through the structured reader or in generic form.

use crate::ir::{Attribute, FunctionType, OpId, Type};
use crate::parse::cursor::PResult;
use crate::parse::ops::Built;
use crate::parse::Parser;
use crate::print::ops::OpPrinter;

/// The custom forms of the dialect's ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `llvm.mlir.constant(1 : i64) : i64`.
    Constant,
    /// `llvm.alloca %n x T : (i64) -> !llvm.ptr`.
    Alloca,
    /// `llvm.load volatile %p : !llvm.ptr -> i32`.
    Load,
    /// `llvm.store volatile %v, %p : i32, !llvm.ptr`.
    Store,
    /// `llvm.mlir.global private constant @x(42 : i64) {attrs} : i64 {init}`.
    Global,
    /// `llvm.func internal fastcc @f(%a: i32, ...) -> i32 attributes {..} {body}`.
    Func,
}

/// The form of `llvm.<op>` (`op` without the dialect prefix).
pub(super) fn form(op: &str) -> Option<super::Form> {
    Some(match op {
        "mlir.constant" => super::Form::Llvm(Form::Constant),
        "alloca" => super::Form::Llvm(Form::Alloca),
        "load" => super::Form::Llvm(Form::Load),
        "store" => super::Form::Llvm(Form::Store),
        "mlir.global" => super::Form::Llvm(Form::Global),
        "func" => super::Form::Llvm(Form::Func),
        _ => return None,
    })
}

impl Parser<'_> {
    /// Reads the rest of an `llvm` op in custom form (after its name).
    pub(crate) fn parse_llvm_op(&mut self, form: Form, b: &mut Built) -> PResult<()> {
        match form {
            Form::Constant => self.parse_llvm_constant(b),
            Form::Alloca => self.parse_llvm_alloca(b),
            Form::Load => self.parse_llvm_access(b, false),
            Form::Store => self.parse_llvm_access(b, true),
            Form::Global => self.parse_llvm_global(b),
            Form::Func => self.parse_llvm_func(b),
        }
    }
}

impl OpPrinter<'_> {
    /// Prints an `llvm` op in custom form (`name` as printed); `false` when the op
    /// does not fit the form (it is then printed in generic form).
    pub(crate) fn print_llvm_op(&mut self, op: OpId, form: Form, name: &str) -> bool {
        match form {
            Form::Constant => self.print_llvm_constant(op, name),
            Form::Alloca => self.print_llvm_alloca(op, name),
            Form::Load => self.print_llvm_access(op, name, false),
            Form::Store => self.print_llvm_access(op, name, true),
            Form::Global => self.print_llvm_global(op, name),
            Form::Func => self.print_llvm_func(op, name),
        }
    }
}

// `llvm.mlir.constant(attr) {attrs} : T`.

impl Parser<'_> {
    /// `llvm.mlir.constant(attr) {attrs} : T`.
    pub(crate) fn parse_llvm_constant(&mut self, b: &mut Built) -> PResult<()> {
        self.c.expect("(")?;
        let value = self.parse_attribute()?;
        self.c.expect(")")?;
        b.spec.attrs.set("value", value);
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        b.spec.result_types = vec![self.parse_type()?];
        Ok(())
    }
}

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
}

// `llvm.load volatile? %p : P -> T` and `llvm.store volatile? %v, %p : T, P`.

impl Parser<'_> {
    /// `llvm.load volatile? %p {attrs} : P -> T` and
    /// `llvm.store volatile? %v, %p {attrs} : T, P` (`volatile` kept as the
    /// unit attribute `volatile_`).
    pub(crate) fn parse_llvm_access(&mut self, b: &mut Built, store: bool) -> PResult<()> {
        if self.c.eat_keyword("volatile") {
            b.spec.attrs.set("volatile_", Attribute::Unit);
        }
        let first = self.parse_operand()?;
        let mut ops = vec![first];
        if store {
            self.c.expect(",")?;
            ops.push(self.parse_operand()?);
        }
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        if store {
            let types = self.parse_type_list()?;
            self.check_types(&ops, &types)?;
        } else {
            let pty = self.parse_type()?;
            self.check_types(&ops, &[pty])?;
            self.c.expect("->")?;
            b.spec.result_types = vec![self.parse_type()?];
        }
        b.operands(&ops);
        Ok(())
    }
}

impl OpPrinter<'_> {
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
}

// `llvm.alloca %n x T {attrs} : (i64) -> !llvm.ptr`.

impl Parser<'_> {
    /// `llvm.alloca %n x T {attrs} : (i64) -> !llvm.ptr`.
    pub(crate) fn parse_llvm_alloca(&mut self, b: &mut Built) -> PResult<()> {
        let n = self.parse_operand()?;
        if !self.c.eat_keyword("x") {
            return self.c.err("expected 'x' after the element count");
        }
        let elem = self.parse_type()?;
        b.spec.attrs.set("elem_type", Attribute::Type(elem));
        self.parse_opt_attr_dict(b)?;
        self.c.expect(":")?;
        let fty = self.parse_function_type()?;
        self.check_types(std::slice::from_ref(&n), &fty.inputs)?;
        if fty.results.len() != 1 {
            return self.c.err("llvm.alloca has one result");
        }
        b.operands(&[n]);
        b.spec.result_types = fty.results;
        Ok(())
    }
}

impl OpPrinter<'_> {
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

// `llvm.mlir.global linkage? visibility? unnamed_addr? thread_local?
// constant? @x ( value? ) comdat(@c::@s)? {attrs} (: T)? region?`, from
// MLIR's `LLVM::GlobalOp` parser and printer.

/// The `linkage` keywords (`LLVM::Linkage`); a global without one is `external`.
const LINKAGES: [&str; 11] = [
    "private",
    "internal",
    "available_externally",
    "linkonce",
    "weak",
    "common",
    "appending",
    "extern_weak",
    "linkonce_odr",
    "weak_odr",
    "external",
];

/// The `visibility_` keywords by value (`LLVM::Visibility`; `0`, default, has none).
const VISIBILITIES: [&str; 3] = ["", "hidden", "protected"];

/// The `unnamed_addr` keywords by value (`LLVM::UnnamedAddr`; `0`, none, has none).
const UNNAMED_ADDRS: [&str; 3] = ["", "local_unnamed_addr", "unnamed_addr"];

/// The attributes the custom form of `llvm.mlir.global` writes outside its dictionary.
const GLOBAL_ELIDED: [&str; 9] = [
    "sym_name",
    "global_type",
    "constant",
    "value",
    "linkage",
    "unnamed_addr",
    "thread_local_",
    "visibility_",
    "comdat",
];

/// `#llvm.<mnemonic><keyword>`.
fn llvm_enum_attr(mnemonic: &str, keyword: &str) -> Attribute {
    Attribute::Dialect {
        dialect: "llvm".into(),
        mnemonic: mnemonic.into(),
        params: Some(keyword.into()),
    }
}

/// The keyword of `#llvm.<mnemonic><keyword>`.
fn llvm_enum_param<'a>(a: Option<&'a Attribute>, mnemonic: &str) -> Option<&'a str> {
    match a {
        Some(Attribute::Dialect {
            dialect,
            mnemonic: m,
            params: Some(p),
        }) if dialect == "llvm" && m == mnemonic => Some(p),
        _ => None,
    }
}

/// The keyword of a `linkage` attribute (`None`: not a known linkage).
fn linkage_keyword(a: Option<&Attribute>) -> Option<&'static str> {
    let p = llvm_enum_param(a, "linkage")?;
    LINKAGES.iter().find(|k| **k == p).copied()
}

/// The keyword of an `i64` enum attribute by value (`""` when absent;
/// `None`: not a value of the enum).
fn enum_keyword(a: Option<&Attribute>, keywords: &[&'static str]) -> Option<&'static str> {
    match a {
        None => Some(""),
        Some(Attribute::Integer { value, ty }) if *ty == Type::i64() => usize::try_from(*value)
            .ok()
            .and_then(|i| keywords.get(i).copied()),
        Some(_) => None,
    }
}

/// The `!llvm.array<N x i8>` a string global without a type has.
fn string_global_type(s: &str) -> Type {
    Type::Opaque(format!("!llvm.array<{} x i8>", s.len()))
}

impl Parser<'_> {
    /// Reads the first of `keywords` (all non-empty ones) present, as its
    /// index (`0` when none).
    fn eat_llvm_enum_keyword(&mut self, keywords: &[&str]) -> i64 {
        // Longest first: `local_unnamed_addr` before `unnamed_addr`.
        let mut order: Vec<(usize, &str)> = keywords.iter().copied().enumerate().collect();
        order.sort_by_key(|(_, k)| std::cmp::Reverse(k.len()));
        order
            .into_iter()
            .find(|(_, k)| !k.is_empty() && self.c.eat_keyword(k))
            .map_or(0, |(i, _)| i as i64)
    }

    /// Reads an optional linkage keyword into `linkage` (`external` without one).
    fn parse_llvm_linkage(&mut self, b: &mut Built) {
        let linkage = LINKAGES
            .iter()
            .find(|k| self.c.eat_keyword(k))
            .copied()
            .unwrap_or("external");
        b.spec
            .attrs
            .set("linkage", llvm_enum_attr("linkage", linkage));
    }

    /// `llvm.mlir.global` (the attributes as MLIR's parser sets them:
    /// `linkage`, `visibility_` and `unnamed_addr` always, `global_type`
    /// inferred as `!llvm.array<N x i8>` for a string global without a type).
    pub(crate) fn parse_llvm_global(&mut self, b: &mut Built) -> PResult<()> {
        self.parse_llvm_linkage(b);
        let visibility = self.eat_llvm_enum_keyword(&VISIBILITIES);
        b.spec.attrs.set("visibility_", Attribute::i64(visibility));
        // MLIR prints `thread_local` before the unnamed_addr keyword and its
        // grammar reads it after: both orders are read.
        let mut thread_local = self.c.eat_keyword("thread_local");
        let unnamed = self.eat_llvm_enum_keyword(&UNNAMED_ADDRS);
        b.spec.attrs.set("unnamed_addr", Attribute::i64(unnamed));
        thread_local |= self.c.eat_keyword("thread_local");
        if thread_local {
            b.spec.attrs.set("thread_local_", Attribute::Unit);
        }
        if self.c.eat_keyword("constant") {
            b.spec.attrs.set("constant", Attribute::Unit);
        }
        self.c.skip_ws();
        let sym = self.parse_symbol_name()?;
        b.spec.attrs.set("sym_name", Attribute::String(sym));
        self.c.expect("(")?;
        let mut value = None;
        if !self.c.eat(")") {
            let v = self.parse_attribute()?;
            self.c.expect(")")?;
            b.spec.attrs.set("value", v.clone());
            value = Some(v);
        }
        // Where a missing type is reported: after the value (or comdat).
        let mut end = self.c.pos();
        if self.c.eat_keyword("comdat") {
            self.c.expect("(")?;
            self.c.skip_ws();
            let comdat = self.parse_symbol_ref()?;
            self.c.expect(")")?;
            b.spec.attrs.set("comdat", comdat);
            end = self.c.pos();
        }
        self.parse_opt_attr_dict(b)?;
        let r = self.m.new_detached_region();
        let ty = if self.c.eat(":") {
            let ty = self.parse_type()?;
            if self.c.peek() == Some(b'{') {
                // The initializer is isolated from above, like a function body.
                self.parse_isolated_region(r, &[])?;
            }
            ty
        } else if let Some(Attribute::String(s)) = &value {
            string_global_type(s)
        } else {
            return self.c.err_at(
                end,
                "expected ':' and the global's type (only a global with a string value may omit it)",
            );
        };
        b.spec.attrs.set("global_type", Attribute::Type(ty));
        b.regions.push(r);
        Ok(())
    }
}

impl OpPrinter<'_> {
    /// `llvm.mlir.global external @x() {addr_space = 3 : i32} : !llvm.array<0 x i8>`.
    pub(crate) fn print_llvm_global(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let keyword = |attr: &str, keywords: &[&'static str]| enum_keyword(d.attr(attr), keywords);
        let linkage = linkage_keyword(d.attr("linkage"));
        let (
            Some(linkage),
            Some(visibility),
            Some(unnamed),
            Some(Attribute::String(sym)),
            Some(Attribute::Type(ty)),
        ) = (
            linkage,
            keyword("visibility_", &VISIBILITIES),
            keyword("unnamed_addr", &UNNAMED_ADDRS),
            d.attr("sym_name"),
            d.attr("global_type"),
        )
        else {
            return false;
        };
        let unit = |attr: &str| matches!(d.attr(attr), None | Some(Attribute::Unit));
        let comdat = d.attr("comdat");
        if !unit("thread_local_")
            || !unit("constant")
            || comdat.is_some_and(|c| c.as_symbol().is_none())
            || d.regions().len() != 1
            || !d.operands().is_empty()
            || !d.results().is_empty()
        {
            return false;
        }
        self.push(&format!("{name} {linkage} "));
        for word in [
            visibility,
            if d.has_attr("thread_local_") {
                "thread_local"
            } else {
                ""
            },
            unnamed,
            if d.has_attr("constant") {
                "constant"
            } else {
                ""
            },
        ] {
            if !word.is_empty() {
                self.push(&format!("{word} "));
            }
        }
        let mut text = String::new();
        crate::print::types::write_symbol(&mut text, sym);
        self.push(&text);
        self.push("(");
        if let Some(v) = d.attr("value") {
            self.print_attr(v);
        }
        self.push(")");
        if let Some(c) = comdat {
            self.push(" comdat(");
            self.print_attr(c);
            self.push(")");
        }
        self.print_attr_dict(op, &GLOBAL_ELIDED);
        // A string global's type is implied by its value (MLIR omits it).
        let implied =
            matches!(d.attr("value"), Some(Attribute::String(s)) if string_global_type(s) == *ty);
        let region = d.regions()[0];
        if implied && m.region_blocks(region).is_empty() {
            return true;
        }
        self.push(" : ");
        self.print_type(ty);
        if !m.region_blocks(region).is_empty() {
            self.push(" ");
            self.print_region(region, false, true);
        }
        true
    }
}

// `llvm.func linkage? visibility? unnamed_addr? cconv? @f(args, ...?) -> R?
// attributes {..}? {body}?`, from MLIR's `LLVMFuncOp` parser and printer;
// `function_type` is kept as the `!llvm.func<R (A, ...)>` MLIR builds.

/// The mnemonics of the LLVM dialect's types: written without `!llvm.`
/// inside another LLVM type.
const LLVM_TYPE_MNEMONICS: [&str; 13] = [
    "void",
    "ppc_fp128",
    "x86_mmx",
    "x86_amx",
    "token",
    "label",
    "metadata",
    "func",
    "ptr",
    "vec",
    "array",
    "struct",
    "target",
];

/// The attributes the custom form of `llvm.func` writes outside its dictionary.
const FUNC_ELIDED: [&str; 9] = [
    "sym_name",
    "sym_visibility",
    "function_type",
    "arg_attrs",
    "res_attrs",
    "linkage",
    "CConv",
    "visibility_",
    "unnamed_addr",
];

/// A type as written inside an LLVM type (`!llvm.ptr<1>` as `ptr<1>`).
fn nested_llvm_type(t: &Type) -> String {
    let mut text = String::new();
    crate::print::types::write_type(&mut text, t);
    match text.strip_prefix("!llvm.") {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// `!llvm.func<R (A, B, ...)>` (`void` without a result).
fn llvm_func_type(fty: &FunctionType, variadic: bool) -> Type {
    let result = fty
        .results
        .first()
        .map_or("void".to_string(), nested_llvm_type);
    let mut params: Vec<String> = fty.inputs.iter().map(nested_llvm_type).collect();
    if variadic {
        params.push("...".into());
    }
    Type::Opaque(format!("!llvm.func<{result} ({})>", params.join(", ")))
}

/// A type written inside an LLVM type, as a type of its own.
fn unnested_llvm_type(text: &str) -> Type {
    let text = text.trim();
    let mnemonic = text.split(['<', ' ']).next().unwrap_or("");
    if LLVM_TYPE_MNEMONICS.contains(&mnemonic) {
        Type::Opaque(format!("!llvm.{text}"))
    } else {
        Type::Opaque(text.to_string())
    }
}

/// Splits `text` at the commas outside brackets.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, ch) in text.char_indices() {
        match ch {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        parts.push(&text[start..]);
    }
    parts
}

/// The signature of `!llvm.func<R (A, B, ...)>` and whether it is
/// variadic (`None`: not such a type).
fn llvm_func_signature(t: &Type) -> Option<(FunctionType, bool)> {
    let Type::Opaque(text) = t else { return None };
    let inner = text.strip_prefix("!llvm.func<")?.strip_suffix('>')?;
    // The parameter list opens at the first '(' outside brackets.
    let mut depth = 0i32;
    let mut open = None;
    for (i, ch) in inner.char_indices() {
        match ch {
            '(' if depth == 0 => {
                open = Some(i);
                break;
            }
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    let open = open?;
    let result = inner[..open].trim();
    let params = inner[open + 1..].strip_suffix(')')?;
    let mut inputs = Vec::new();
    let mut variadic = false;
    for p in split_top_level(params) {
        if variadic {
            return None;
        }
        if p.trim() == "..." {
            variadic = true;
        } else {
            inputs.push(unnested_llvm_type(p));
        }
    }
    let results = match result {
        "void" => vec![],
        r => vec![unnested_llvm_type(r)],
    };
    Some((FunctionType { inputs, results }, variadic))
}

impl Parser<'_> {
    /// `llvm.func` (the attributes as MLIR's parser sets them: `linkage`,
    /// `visibility_`, `unnamed_addr` and `CConv` always).
    pub(crate) fn parse_llvm_func(&mut self, b: &mut Built) -> PResult<()> {
        self.parse_llvm_linkage(b);
        let visibility = self.eat_llvm_enum_keyword(&VISIBILITIES);
        b.spec.attrs.set("visibility_", Attribute::i64(visibility));
        let unnamed = self.eat_llvm_enum_keyword(&UNNAMED_ADDRS);
        b.spec.attrs.set("unnamed_addr", Attribute::i64(unnamed));
        // A calling convention is the one bare keyword before the name.
        let cconv = self.c.ident().unwrap_or("ccc").to_string();
        b.spec.attrs.set("CConv", llvm_enum_attr("cconv", &cconv));
        self.c.skip_ws();
        let variadic = self.parse_func_after_keywords(b, true, None)?;
        let Some(Attribute::Type(Type::Function(fty))) = b.spec.attrs.get("function_type") else {
            return self.c.err("expected a function signature");
        };
        if fty.results.len() > 1 {
            return self.c.err("an llvm.func has at most one result");
        }
        let ty = llvm_func_type(fty, variadic);
        b.spec.attrs.set("function_type", Attribute::Type(ty));
        Ok(())
    }
}

impl OpPrinter<'_> {
    /// `llvm.func internal @f(%arg0: !llvm.ptr<1>, ...) -> i32 attributes {..} {body}`.
    pub(crate) fn print_llvm_func(&mut self, op: OpId, name: &str) -> bool {
        let m = self.module();
        let d = m.op(op);
        let (Some(linkage), Some(visibility), Some(unnamed), Some(Attribute::String(sym))) = (
            linkage_keyword(d.attr("linkage")),
            enum_keyword(d.attr("visibility_"), &VISIBILITIES),
            enum_keyword(d.attr("unnamed_addr"), &UNNAMED_ADDRS),
            d.attr("sym_name"),
        ) else {
            return false;
        };
        let cconv = match d.attr("CConv") {
            None => "ccc",
            Some(a) => match llvm_enum_param(Some(a), "cconv") {
                Some(c) if crate::print::types::is_bare_identifier(c) => c,
                _ => return false,
            },
        };
        let Some((mut fty, variadic)) = d
            .attr("function_type")
            .and_then(Attribute::as_type)
            .and_then(llvm_func_signature)
        else {
            return false;
        };
        if d.regions().len() != 1 || !d.operands().is_empty() || !d.results().is_empty() {
            return false;
        }
        if let Some(body) = m.func_body(op) {
            // The entry arguments hold the parameter types as read.
            let args = m.block_args(body);
            if args.len() != fty.inputs.len() {
                return false;
            }
            fty.inputs = args.iter().map(|&a| m.value_type(a).clone()).collect();
        }
        self.push(&format!("{name} "));
        for word in [
            if linkage == "external" { "" } else { linkage },
            visibility,
            unnamed,
            if cconv == "ccc" { "" } else { cconv },
        ] {
            if !word.is_empty() {
                self.push(&format!("{word} "));
            }
        }
        self.print_func_after_keywords(op, sym, &fty, variadic, &FUNC_ELIDED, None);
        true
    }
}
