//! Expressions: precedence climbing, calls, displays, literals, names.

use std::sync::Arc;

use crate::ir::{
    BinOp, Call, DType, Expr, Kwarg, MemSpace, Quote, UnaryOp, VarData, VarDef, VarId,
};

use super::lexer::{op_code, Tok, Token};
use super::{is_keyword, Parser, R};
use crate::diag::ParseError;
use crate::ir::EntityRef as _;

const OP_BITOR: u16 = op_code("|");
const OP_BITXOR: u16 = op_code("^");
const OP_BITAND: u16 = op_code("&");
const OP_SHL: u16 = op_code("<<");
const OP_SHR: u16 = op_code(">>");
const OP_ADD: u16 = op_code("+");
const OP_SUB: u16 = op_code("-");
const OP_MUL: u16 = op_code("*");
const OP_DIV: u16 = op_code("/");
const OP_FLOORDIV: u16 = op_code("//");
const OP_MOD: u16 = op_code("%");
const OP_LT: u16 = op_code("<");
const OP_LE: u16 = op_code("<=");
const OP_GT: u16 = op_code(">");
const OP_GE: u16 = op_code(">=");
const OP_EQ: u16 = op_code("==");
const OP_NE: u16 = op_code("!=");
const OP_LPAREN: u16 = op_code("(");
const OP_LBRACKET: u16 = op_code("[");
const OP_DOT: u16 = op_code(".");

impl<'s> Parser<'s> {
    /// Comma-separated expressions up to the end of the line (`return a, b`).
    pub(super) fn expr_list(&mut self) -> R<Vec<Expr>> {
        let mut v = vec![self.expr()?];
        loop {
            let t = self.peek()?;
            if !self.is_op(t, ",") {
                return Ok(v);
            }
            self.bump()?;
            let n = self.peek()?;
            if matches!(n.kind, Tok::Newline | Tok::EolComment | Tok::Eof) {
                return Ok(v);
            }
            v.push(self.expr()?);
        }
    }

    /// Expressions separated by commas up to `close` (consumed).
    pub(super) fn exprs_until(&mut self, close: &str, open: Token) -> R<Vec<Expr>> {
        let _ = open;
        let start = self.scratch.len();
        let r = self.exprs_until_inner(close);
        if r.is_err() {
            self.scratch.truncate(start);
        }
        r?;
        Ok(self.scratch.drain(start..).collect())
    }

    pub(super) fn exprs_until_inner(&mut self, close: &str) -> R<()> {
        loop {
            let t = self.peek()?;
            if self.is_op(t, close) {
                self.bump()?;
                return Ok(());
            }
            let e = self.expr()?;
            self.scratch.push(e);
            let c = self.peek()?;
            if self.is_op(c, ",") {
                self.bump()?;
            } else if !self.is_op(c, close) {
                return Err(self.expected(c, &format!("`,` or `{close}`")));
            }
        }
    }

    pub(super) fn expr(&mut self) -> R<Expr> {
        let t = self.peek()?;
        self.enter(t)?;
        let r = self.expr_bp(0);
        self.leave();
        r
    }

    /// Precedence climbing over every binary level of
    /// [`BinOp::precedence`] (`or` up to `*`); `**` and unary operators are
    /// handled below. Reads operators binding at least as tight as `min`.
    pub(super) fn expr_bp(&mut self, min: u8) -> R<Expr> {
        let t = self.peek()?;
        let mut lhs = if self.is_name(t, "not") {
            self.bump()?;
            self.enter(t)?;
            let operand = self.expr_bp(UnaryOp::Not.precedence() + 1);
            self.leave();
            Expr::Unary(UnaryOp::Not, Box::new(operand?))
        } else {
            self.unary()?
        };
        loop {
            let t = self.peek()?;
            let Some(op) = self.infix_op(t)? else {
                return Ok(lhs);
            };
            let p = op.precedence();
            if p < min {
                return Ok(lhs);
            }
            self.bump()?;
            self.enter(t)?;
            let rhs = self.expr_bp(p + 1);
            self.leave();
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs?));
            if op.is_comparison() {
                let n = self.peek()?;
                if self.infix_op(n)?.is_some_and(BinOp::is_comparison) {
                    return Err(self.err(
                        n,
                        "chained comparisons are not supported".into(),
                        "split with `and` or add parentheses",
                    ));
                }
            }
        }
    }

    /// The binary operator token `t` spells, if any.
    pub(super) fn infix_op(&self, t: Token) -> R<Option<BinOp>> {
        Ok(Some(match t.kind {
            Tok::Op => match t.op {
                OP_BITOR => BinOp::BitOr,
                OP_BITXOR => BinOp::BitXor,
                OP_BITAND => BinOp::BitAnd,
                OP_SHL => BinOp::Shl,
                OP_SHR => BinOp::Shr,
                OP_ADD => BinOp::Add,
                OP_SUB => BinOp::Sub,
                OP_MUL => BinOp::Mul,
                OP_DIV => BinOp::Div,
                OP_FLOORDIV => BinOp::FloorDiv,
                OP_MOD => BinOp::Mod,
                OP_LT => BinOp::Lt,
                OP_LE => BinOp::Le,
                OP_GT => BinOp::Gt,
                OP_GE => BinOp::Ge,
                OP_EQ => BinOp::Eq,
                OP_NE => BinOp::Ne,
                _ => return Ok(None),
            },
            Tok::Name => match self.text(t) {
                "and" => BinOp::And,
                "or" => BinOp::Or,
                "in" | "is" => {
                    return Err(self.err(
                        t,
                        format!("`{}` is not supported in expressions", self.text(t)),
                        "use `==` / `!=`",
                    ))
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        }))
    }

    pub(super) fn unary(&mut self) -> R<Expr> {
        let t = self.peek()?;
        let op = match (t.kind, t.op) {
            (Tok::Op, OP_SUB) => UnaryOp::Neg,
            (Tok::Op, OP_ADD) => UnaryOp::Pos,
            (Tok::Op, c) if c == op_code("~") => UnaryOp::Invert,
            _ => return self.power(),
        };
        self.bump()?;
        self.enter(t)?;
        let operand = self.unary();
        self.leave();
        let operand = operand?;
        Ok(match (op, operand) {
            (UnaryOp::Neg, Expr::Int(n)) if n >= 0 => Expr::Int(-n),
            (UnaryOp::Neg, Expr::Float(f)) if !f.starts_with('-') => {
                Expr::Float(format!("-{f}").into())
            }
            (op, e) => Expr::Unary(op, Box::new(e)),
        })
    }

    pub(super) fn power(&mut self) -> R<Expr> {
        let base = self.primary()?;
        let t = self.peek()?;
        if self.is_op(t, "**") {
            self.bump()?;
            self.enter(t)?;
            let exp = self.unary();
            self.leave();
            return Ok(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exp?)));
        }
        Ok(base)
    }

    pub(super) fn primary(&mut self) -> R<Expr> {
        let first = self.peek()?;
        let mut e = self.atom()?;
        loop {
            let t = self.peek()?;
            if t.kind != Tok::Op {
                return Ok(e);
            }
            match t.op {
                OP_LPAREN => {
                    let func =
                        match &e {
                            Expr::Path(p) => p.clone(),
                            _ => return Err(self.err(
                                t,
                                "only dotted names (`pl.tile.add`, `self.kernel`) can be called"
                                    .into(),
                                "not callable",
                            )),
                        };
                    // Underline the whole callee: `pl.tile.nope`.
                    let callee = Token {
                        end: t.start,
                        ..first
                    };
                    if let Err(why) = crate::ops::check_known(&func) {
                        return Err(self.err(callee, why, "not a PyPTO op"));
                    }
                    self.bump()?;
                    e = self.call_expr(func, t)?;
                    if let Expr::Call(c) = &e {
                        self.check_signature(c, callee)?;
                    }
                }
                OP_LBRACKET => {
                    self.bump()?;
                    let first = self.expr()?;
                    let c = self.peek()?;
                    let index = if self.is_op(c, ",") {
                        let mut items = vec![first];
                        while self.peek_is_op(",")? {
                            self.bump()?;
                            if self.peek_is_op("]")? {
                                break;
                            }
                            items.push(self.expr()?);
                        }
                        Expr::Tuple(items.into())
                    } else {
                        first
                    };
                    self.expect_op("]", "`]` to close the subscript")?;
                    e = Expr::Index(Box::new(e), Box::new(index));
                }
                OP_DOT => {
                    self.bump()?;
                    let n = self.peek()?;
                    if n.kind != Tok::Name {
                        return Err(self.expected(n, "an attribute name after `.`"));
                    }
                    self.bump()?;
                    let name = self.text(n);
                    e = match e {
                        Expr::Path(p) => Expr::Path(self.intern(&format!("{p}.{name}"))),
                        other => Expr::Attr(Box::new(other), name.into()),
                    };
                }
                _ => return Ok(e),
            }
        }
    }

    /// Checks a just-read call against its op's registry signature
    /// ([`crate::ops::check_call`]); the error points at the callee or at the
    /// offending keyword.
    fn check_signature(&self, c: &Call, callee: Token) -> R<()> {
        // Most callees are ops; the rest (`pl.range`, `self.f`) need no
        // keyword list.
        if crate::ops::signature(&c.func).is_none() {
            return Ok(());
        }
        let kws: Vec<&str> = c.kwargs.iter().map(|k| &*k.name).collect();
        let Err(e) = crate::ops::check_call(&c.func, c.args.len(), &kws) else {
            for (k, kw) in c.kwargs.iter().enumerate() {
                use crate::ops::validate::{check_attr_value, AttrValue};
                let value = match &kw.value {
                    Expr::Bool(_) => AttrValue::Bool,
                    v => match v.as_mem_space() {
                        Some(MemSpace::Other(_)) | None => AttrValue::Other,
                        Some(_) => AttrValue::KnownSpace,
                    },
                };
                if let Err(why) = check_attr_value(&c.func, &kw.name, value) {
                    let at = self.call_kw_toks.get(k).copied().unwrap_or(callee);
                    return Err(self.err(at, why, "wrong attribute type"));
                }
            }
            return Ok(());
        };
        let at = match e.at {
            crate::ops::At::Kwarg(k) => self.call_kw_toks.get(k).copied().unwrap_or(callee),
            crate::ops::At::Callee => callee,
        };
        Err(self.err(at, e.message, e.label))
    }

    /// Arguments after `(` up to `)` (consumed).
    ///
    /// Items collect on the shared scratch stacks and move into exactly
    /// sized vectors at the end (one allocation each, no regrowth).
    pub(super) fn call_args(&mut self, open: Token) -> R<(Vec<Expr>, Vec<Kwarg>)> {
        let _ = open;
        let a0 = self.scratch.len();
        let k0 = self.scratch_kw.len();
        let r = self.call_args_inner(k0);
        if r.is_err() {
            self.scratch.truncate(a0);
            self.scratch_kw.truncate(k0);
            self.kw_toks.truncate(k0);
        }
        r?;
        let args = self.scratch.drain(a0..).collect();
        let kwargs = self.scratch_kw.drain(k0..).collect();
        self.call_kw_toks.clear();
        self.call_kw_toks.extend(self.kw_toks.drain(k0..));
        Ok((args, kwargs))
    }

    /// A call after its `(`; `pl.const(N, pl.DTYPE)` becomes [`Expr::Const`].
    pub(super) fn call_expr(&mut self, func: Arc<str>, open: Token) -> R<Expr> {
        let func = self.intern_callee(&func);
        let a0 = self.scratch.len();
        let k0 = self.scratch_kw.len();
        if &*func == "pl.const" {
            let r = self.call_args_inner(k0);
            self.kw_toks.truncate(k0);
            if r.is_err() {
                self.scratch.truncate(a0);
                self.scratch_kw.truncate(k0);
            }
            r?;
            if self.scratch_kw.len() == k0 && self.scratch.len() == a0 + 2 {
                if let (Expr::Int(n), Expr::Path(p)) = (&self.scratch[a0], &self.scratch[a0 + 1]) {
                    if let Some(d) = p.strip_prefix("pl.").filter(|d| !d.contains('.')) {
                        if !DType::is_pypto_name(d) {
                            return Err(self.unknown_dtype(self.token_after(open, p), d));
                        }
                        let e = Expr::Const(*n, DType::from_name(d));
                        self.scratch.truncate(a0);
                        return Ok(e);
                    }
                }
            }
            let args = self.scratch.drain(a0..).collect();
            let kwargs = self.scratch_kw.drain(k0..).collect();
            return Ok(Expr::Call(Box::new(Call { func, args, kwargs })));
        }
        let (args, kwargs) = self.call_args(open)?;
        Ok(Expr::Call(Box::new(Call {
            func,
            args: args.into(),
            kwargs: kwargs.into(),
        })))
    }

    pub(super) fn call_args_inner(&mut self, k0: usize) -> R<()> {
        loop {
            let t = self.peek()?;
            if self.is_op(t, ")") {
                self.bump()?;
                return Ok(());
            }
            let eq = self.peek_n(1)?;
            if t.kind == Tok::Name && self.is_op(eq, "=") && !is_keyword(self.text(t)) {
                self.bump()?;
                self.bump()?;
                let value = self.expr()?;
                let name = self.intern(self.text(t));
                self.scratch_kw.push(Kwarg { name, value });
                self.kw_toks.push(t);
            } else {
                if self.scratch_kw.len() > k0 {
                    return Err(self.err(
                        t,
                        "positional argument after a keyword argument".into(),
                        "move it before the keywords",
                    ));
                }
                let e = self.expr()?;
                self.scratch.push(e);
            }
            let c = self.peek()?;
            if self.is_op(c, ",") {
                self.bump()?;
            } else if !self.is_op(c, ")") {
                return Err(self.expected(c, "`,` or `)` in the argument list"));
            }
        }
    }

    pub(super) fn atom(&mut self) -> R<Expr> {
        let t = self.peek()?;
        // `...`: the body of an abstract function (three dots, no space).
        if self.is_op(t, ".") {
            let (b, c) = (self.peek_n(1)?, self.peek_n(2)?);
            if self.is_op(b, ".") && self.is_op(c, ".") && b.start == t.end && c.start == b.end {
                for _ in 0..3 {
                    self.bump()?;
                }
                return Ok(Expr::Path(self.intern("...")));
            }
        }
        match t.kind {
            Tok::Name => {
                let s = self.text(t);
                match s {
                    "True" => {
                        self.bump()?;
                        return Ok(Expr::Bool(true));
                    }
                    "False" => {
                        self.bump()?;
                        return Ok(Expr::Bool(false));
                    }
                    "None" => {
                        self.bump()?;
                        return Ok(Expr::None);
                    }
                    _ if is_keyword(s) => return Err(self.expected(t, "an expression")),
                    _ => {}
                }
                self.bump()?;
                let next = self.peek()?;
                // Dotted roots that are not variables (`pl`, `self`, module
                // names) and called plain names are paths, not variables.
                let unbound_root =
                    self.is_op(next, ".") && self.scope.get(s, &self.f.vars).is_none();
                // `self.f(...)`: PyPTO prints calls of the program's
                // functions so, with or without a `self` parameter.
                let fixed_path = s == "pl" || s == "self" || self.is_op(next, "(");
                let undefined_root = unbound_root && !fixed_path && !self.is_global(s);
                if fixed_path || unbound_root {
                    if !fixed_path {
                        if let Some(rec) = &mut self.recording {
                            rec.scope_dependent = true;
                        }
                    }
                    // Take `a.b.c` written without spaces as one slice.
                    let mut end = t.end;
                    loop {
                        let (dot, name) = (self.peek_n(0)?, self.peek_n(1)?);
                        if self.is_op(dot, ".")
                            && dot.start == end
                            && name.kind == Tok::Name
                            && name.start == dot.end
                        {
                            self.bump()?;
                            self.bump()?;
                            end = name.end;
                        } else {
                            break;
                        }
                    }
                    let text = self.src.get(t.start as usize..end as usize).unwrap_or(s);
                    if undefined_root {
                        // `FP32.tile.alloc(...)`: an op path under the wrong
                        // module says so rather than that `FP32` is unbound.
                        if self.peek_is_op("(")? {
                            if let Err(why) = crate::ops::check_known(text) {
                                let callee = Token { end, ..t };
                                return Err(self.err(callee, why, "not a PyPTO op"));
                            }
                        }
                        return Err(self.undefined(t));
                    }
                    return Ok(Expr::Path(self.intern(text)));
                }
                Ok(Expr::Var(self.lookup(t)?))
            }
            Tok::Int => {
                self.bump()?;
                match self.int_value(t) {
                    Some(v) => Ok(Expr::Int(v)),
                    None => Err(self.err(
                        t,
                        "integer literal does not fit in 64 bits".into(),
                        "use a smaller value",
                    )),
                }
            }
            Tok::Float => {
                self.bump()?;
                Ok(Expr::Float(self.text(t).into()))
            }
            Tok::Str => {
                self.bump()?;
                let q = if self.text(t).starts_with('\'') {
                    Quote::Single
                } else {
                    Quote::Double
                };
                Ok(Expr::Str(self.unescape(t)?.into(), q))
            }
            Tok::Op => match self.text(t) {
                "(" => {
                    self.bump()?;
                    if self.peek_is_op(")")? {
                        self.bump()?;
                        return Ok(Expr::Tuple(Box::default()));
                    }
                    let first = self.expr()?;
                    if self.peek_is_op(")")? {
                        self.bump()?;
                        return Ok(first);
                    }
                    let mut items = vec![first];
                    loop {
                        let c = self.peek()?;
                        if self.is_op(c, ")") {
                            self.bump()?;
                            return Ok(Expr::Tuple(items.into()));
                        }
                        self.expect_op(",", "`,` or `)`")?;
                        if self.peek_is_op(")")? {
                            continue;
                        }
                        items.push(self.expr()?);
                    }
                }
                "[" => {
                    self.bump()?;
                    Ok(Expr::List(self.exprs_until("]", t)?.into()))
                }
                "{" => {
                    self.bump()?;
                    let mut items = Vec::new();
                    loop {
                        let c = self.peek()?;
                        if self.is_op(c, "}") {
                            self.bump()?;
                            return Ok(Expr::Dict(items.into()));
                        }
                        let k = self.expr()?;
                        self.expect_op(":", "`:` between a dict key and its value")?;
                        let v = self.expr()?;
                        items.push((k, v));
                        let c = self.peek()?;
                        if self.is_op(c, ",") {
                            self.bump()?;
                        } else if !self.is_op(c, "}") {
                            return Err(self.expected(c, "`,` or `}` in the dict"));
                        }
                    }
                }
                _ => Err(self.expected(t, "an expression")),
            },
            _ => Err(self.expected(t, "an expression")),
        }
    }

    /// The variable currently bound to the name of token `t`. A name no
    /// definition before it binds is a free variable when the module
    /// defines it (see [`Parser::is_global`]) or PyPTO printed it as one
    /// (`NAME__FREE_VAR`); any other is an error, as in PyPTO's parser.
    pub(super) fn lookup(&mut self, t: Token) -> R<VarId> {
        let name = self.text(t);
        let v = match self.scope.get(name, &self.f.vars) {
            Some(v) => v,
            None if name.ends_with(FREE_VAR_SUFFIX) || self.is_global(name) => {
                let v = self.f.vars.push(VarData {
                    name: name.into(),
                    ty: None,
                    def: VarDef::Free,
                });
                self.scope.bind_for_good(v, &self.f.vars);
                v
            }
            None => return Err(self.undefined(t)),
        };
        if let Some(rec) = &mut self.recording {
            rec.uses.push((name, v));
        }
        Ok(v)
    }

    /// Whether `name` is defined outside the functions: by the module
    /// (an import or a `NAME = ...` line before the class), as a namespace
    /// PyPTO's printer writes without importing it, or as a Python builtin.
    pub(super) fn is_global(&self, name: &str) -> bool {
        PRINTER_NAMESPACES.contains(&name)
            || BUILTINS.contains(&name)
            || self.globals.iter().any(|g| &**g == name)
    }

    /// A token spanning the first `text` of the source after token `t`
    /// (already read), for a diagnostic on a part of an expression; `t`
    /// itself when there is none.
    pub(super) fn token_after(&self, t: Token, text: &str) -> Token {
        let from = t.end as usize;
        let Some(at) = self.src.get(from..).and_then(|rest| rest.find(text)) else {
            return t;
        };
        let start = from + at;
        let skipped = &self.src[t.start as usize..start];
        let (line, line_start) = match skipped.rfind('\n') {
            Some(nl) => (
                t.line + skipped.matches('\n').count() as u32,
                (t.start as usize + nl + 1) as u32,
            ),
            None => (t.line, t.line_start),
        };
        Token {
            start: start as u32,
            end: (start + text.len()) as u32,
            line,
            line_start,
            ..t
        }
    }

    /// "undefined name" at token `t`, naming the closest defined name; or,
    /// when the name is defined in a loop body or `if` branch that has
    /// ended, that it is out of scope and what to read instead.
    fn undefined(&self, t: Token) -> Box<ParseError> {
        if let Some(e) = self.out_of_scope(t) {
            return e;
        }
        let name = self.text(t);
        let mut best: Option<(usize, String, Option<u32>)> = None;
        let mut consider = |cand: &str, line: Option<u32>| {
            if cand == name || cand.is_empty() {
                return;
            }
            let d = crate::diag::edit_distance(name, cand);
            if best
                .as_ref()
                .is_none_or(|(bd, bc, _)| (d, cand) < (*bd, bc.as_str()))
            {
                best = Some((d, cand.to_string(), line));
            }
        };
        for (_, v) in self.f.vars.iter() {
            if let Some(cur) = self.scope.get(&v.name, &self.f.vars) {
                consider(&self.f.vars[cur].name, self.def_line(cur));
            }
        }
        for g in self.globals.iter() {
            consider(g, None);
        }
        let label = match best {
            Some((d, cand, line)) => {
                let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
                if d * 2 <= name.chars().count().max(2) {
                    format!("did you mean `{cand}`{at}?")
                } else {
                    format!("define it before this use; the closest defined name is `{cand}`{at}")
                }
            }
            None => "define it before this use".to_string(),
        };
        self.err(
            t,
            format!(
                "undefined name `{name}`: no parameter, assignment, loop variable, \
                 loop or `if` result before this use defines it"
            ),
            &label,
        )
    }

    /// The line where variable `v` is defined, when known.
    pub(super) fn def_line(&self, v: VarId) -> Option<u32> {
        let stmt = match self.f.vars[v].def {
            VarDef::Param(_) => return Some(self.f.pos.line),
            VarDef::Stmt(s) | VarDef::LoopVar(s) | VarDef::IterArg(s) => s,
            VarDef::Free => return None,
        };
        (stmt.index() < self.f.stmts.len()).then(|| self.f.pos_of(stmt).line)
    }

    pub(super) fn int_value(&self, t: Token) -> Option<i64> {
        let text = self.text(t);
        if text.bytes().all(|b| b.is_ascii_digit()) {
            return text.parse().ok();
        }
        let s: String = self.text(t).chars().filter(|&c| c != '_').collect();
        let (digits, radix) = match s.get(..2) {
            Some("0x" | "0X") => (&s[2..], 16),
            Some("0o" | "0O") => (&s[2..], 8),
            Some("0b" | "0B") => (&s[2..], 2),
            _ => (&s[..], 10),
        };
        i64::from_str_radix(digits, radix).ok()
    }

    pub(super) fn unescape(&self, t: Token) -> R<String> {
        let raw = self.text(t);
        let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
        if !inner.contains('\\') {
            return Ok(inner.to_string());
        }
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('\\') => out.push('\\'),
                Some('\'') => out.push('\''),
                Some('"') => out.push('"'),
                Some('x') => {
                    let h: String = chars.by_ref().take(2).collect();
                    match u8::from_str_radix(&h, 16) {
                        Ok(b) if h.len() == 2 => out.push(b as char),
                        _ => {
                            return Err(self.err(
                                t,
                                "invalid `\\x` escape in string".into(),
                                "write `\\x` followed by two hex digits",
                            ))
                        }
                    }
                }
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            }
        }
        Ok(out)
    }
}

/// The suffix PyPTO's printer gives a variable used where it is not
/// defined (a free variable; `../shared/reference/pypto/behaviour.md`).
const FREE_VAR_SUFFIX: &str = "__FREE_VAR";

/// Namespaces PyPTO's printer writes without an import line: `pl` is
/// `pypto.language`, `pld` its `distributed` module (`pld.DistributedTensor`).
const PRINTER_NAMESPACES: &[&str] = &["pl", "pld"];

/// Python builtins a program may name (`-> tuple[...]` for several results).
const BUILTINS: &[&str] = &[
    "tuple", "list", "dict", "int", "float", "bool", "str", "range", "len", "min", "max", "abs",
];
