//! Statements and blocks: assignments, yields, loops, ifs, returns, comments.

use crate::ir::{
    Call, EntityRef, Expr, ForStmt, IfStmt, Pos, Stmt, StmtId, StmtKind, Type, VarData, VarDef,
    VarId, WithStmt,
};

use super::lexer::{Tok, Token};
use super::Construct;
use super::{is_keyword, Parser, MAX_ELIF, R};

impl<'s> Parser<'s> {
    /// An indented block after a header line (whose end was consumed).
    pub(super) fn suite(&mut self) -> R<Vec<StmtId>> {
        let mut stmts = Vec::new();
        self.trivia_stmts(&mut stmts)?;
        let t = self.expect_indent("an indented block")?;
        self.enter(t)?;
        self.bump()?;
        while let Some(t) = self.next_in_block()? {
            // `pass` (PyPTO's empty branch) is kept as an expression
            // statement that reads nothing, so it prints back as written.
            if self.is_name(t, "pass") {
                let pos = self.pos(t);
                self.bump()?;
                let comment = self.end_of_line()?;
                let path = self.intern("pass");
                stmts.push(self.push_stmt(StmtKind::Expr(Expr::Path(path)), comment, pos));
                continue;
            }
            let s = self.stmt()?;
            stmts.push(s);
        }
        self.leave();
        Ok(stmts)
    }

    /// An `if` branch: a block whose names end with it.
    fn scoped_suite(&mut self) -> R<Vec<StmtId>> {
        self.scope.open();
        let body = self.suite()?;
        self.scope.close(&self.f.vars);
        Ok(body)
    }

    /// The indent token that opens a block, left unread; an error naming
    /// the block (`what`) when the next token is anything else.
    pub(super) fn expect_indent(&mut self, what: &str) -> R<Token> {
        let t = self.peek()?;
        if t.kind != Tok::Indent {
            return Err(self.expected(t, what));
        }
        Ok(t)
    }

    /// The next token of the current block, left unread; `None` at the
    /// block's end (its dedent is read, an end of file is not).
    pub(super) fn next_in_block(&mut self) -> R<Option<Token>> {
        let t = self.peek()?;
        match t.kind {
            Tok::Dedent => {
                self.bump()?;
                Ok(None)
            }
            Tok::Eof => Ok(None),
            _ => Ok(Some(t)),
        }
    }

    pub(super) fn trivia_stmts(&mut self, out: &mut Vec<StmtId>) -> R<()> {
        loop {
            let t = self.peek()?;
            let kind = match t.kind {
                Tok::Comment => StmtKind::Comment(self.text(t).get(1..).unwrap_or("").into()),
                Tok::Blank => StmtKind::Blank,
                _ => return Ok(()),
            };
            self.bump()?;
            let pos = self.pos(t);
            let s = self.f.stmts.push(Stmt::new(kind));
            self.f.set_pos(s, pos);
            out.push(s);
        }
    }

    pub(super) fn push_stmt(
        &mut self,
        kind: StmtKind,
        comment: Option<Box<str>>,
        pos: Pos,
    ) -> StmtId {
        let s = self.f.stmts.push(Stmt::new(kind));
        self.f.set_pos(s, pos);
        if let Some(c) = comment {
            self.f.comments.insert(s, c);
        }
        s
    }

    pub(super) fn stmt(&mut self) -> R<StmtId> {
        let t = self.peek()?;
        let pos = self.pos(t);
        match t.kind {
            Tok::Comment | Tok::Blank => {
                let mut v = Vec::new();
                self.trivia_stmts_one(&mut v)?;
                return Ok(v[0]);
            }
            Tok::Indent => {
                return Err(self.err(
                    t,
                    "unexpected indentation".into(),
                    "remove the extra indent",
                ))
            }
            Tok::Name => match self.text(t) {
                "for" => return self.for_stmt(),
                "with" => return self.with_stmt(),
                "if" => {
                    self.bump()?;
                    return self.if_stmt(pos);
                }
                "return" => {
                    self.bump()?;
                    let n = self.peek()?;
                    let vals = if matches!(n.kind, Tok::Newline | Tok::EolComment | Tok::Eof) {
                        Vec::new()
                    } else {
                        self.expr_list()?
                    };
                    let comment = self.end_of_line()?;
                    return Ok(self.push_stmt(StmtKind::Return(vals), comment, pos));
                }
                "else" | "elif" => {
                    return Err(self.err(
                        t,
                        format!("`{}` without a matching `if`", self.text(t)),
                        "align it with its `if`",
                    ))
                }
                _ => {}
            },
            _ => {}
        }
        self.simple_stmt(t, pos)
    }

    pub(super) fn trivia_stmts_one(&mut self, out: &mut Vec<StmtId>) -> R<()> {
        let t = self.bump()?;
        let kind = match t.kind {
            Tok::Comment => StmtKind::Comment(self.text(t).get(1..).unwrap_or("").into()),
            _ => StmtKind::Blank,
        };
        let pos = self.pos(t);
        out.push(self.push_stmt(kind, None, pos));
        Ok(())
    }

    /// Assignment forms or an expression statement.
    pub(super) fn simple_stmt(&mut self, t: Token, pos: Pos) -> R<StmtId> {
        let plain_name = t.kind == Tok::Name && !is_keyword(self.text(t));
        if plain_name {
            let n1 = self.peek_n(1)?;
            if self.is_op(n1, ":") {
                self.bump()?;
                self.bump()?;
                let ty = self.ty_cached()?;
                self.expect_op("=", "`=` after the type annotation")?;
                let value = self.expr()?;
                let comment = self.end_of_line()?;
                return match value {
                    Expr::Call(c) if &*c.func == "pl.yield_" => {
                        self.yield_stmt(vec![(t, Some(ty))], *c, comment, pos, t)
                    }
                    value => Ok(self.assign_one(t, ty, value, comment, pos)),
                };
            }
            if self.is_op(n1, "=") || self.is_op(n1, ",") {
                // `a = v` or `a, b = v`: scan names separated by commas.
                let mut k = 1;
                let mut names = vec![t];
                loop {
                    let sep = self.peek_n(k)?;
                    if self.is_op(sep, "=") {
                        break;
                    }
                    let nm = self.peek_n(k + 1)?;
                    if self.is_op(sep, ",") && nm.kind == Tok::Name && !is_keyword(self.text(nm)) {
                        names.push(nm);
                        k += 2;
                    } else {
                        names.clear();
                        break;
                    }
                }
                if !names.is_empty() {
                    for _ in 0..=k {
                        self.bump()?;
                    }
                    let value = self.expr()?;
                    let comment = self.end_of_line()?;
                    let targets = names.into_iter().map(|n| (n, None)).collect();
                    return self.assign(targets, value, comment, pos);
                }
            }
        }
        let value = self.expr()?;
        let n = self.peek()?;
        if self.is_op(n, "=") {
            return Err(self.err(
                n,
                "only plain names can be assigned to".into(),
                "assign to a name (`x: T = ...`)",
            ));
        }
        let comment = self.end_of_line()?;
        match value {
            Expr::Call(c) if &*c.func == "pl.yield_" => {
                self.yield_stmt(Vec::new(), *c, comment, pos, t)
            }
            v => Ok(self.push_stmt(StmtKind::Expr(v), comment, pos)),
        }
    }

    pub(super) fn assign(
        &mut self,
        targets: Vec<(Token, Option<Type>)>,
        value: Expr,
        comment: Option<Box<str>>,
        pos: Pos,
    ) -> R<StmtId> {
        let value = match value {
            Expr::Call(c) if &*c.func == "pl.yield_" => {
                let first = targets[0].0;
                return self.yield_stmt(targets, *c, comment, pos, first);
            }
            v => v,
        };
        let id = self.push_stmt(StmtKind::Blank, comment, pos);
        let mut vars = Vec::with_capacity(targets.len());
        for (tok, ty) in targets {
            // Bound after the right-hand side was read: `x = f(x)` reads the old `x`.
            vars.push(self.bind(tok, ty, VarDef::Stmt(id)));
        }
        self.f.stmts[id].kind = StmtKind::Assign {
            targets: vars.into(),
            value,
        };
        self.f.compact_alloc(id);
        Ok(id)
    }

    /// `name: ty = value` (the common case, without intermediate vectors).
    fn assign_one(
        &mut self,
        tok: Token,
        ty: Type,
        value: Expr,
        comment: Option<Box<str>>,
        pos: Pos,
    ) -> StmtId {
        let id = self.f.stmts.len();
        let v = self.bind(tok, Some(ty), VarDef::Stmt(StmtId::new(id)));
        let s = self.push_stmt(
            StmtKind::Assign {
                targets: v.into(),
                value,
            },
            comment,
            pos,
        );
        // Allocations written in PyPTO's form are held without their call.
        self.f.compact_alloc(s);
        s
    }

    pub(super) fn yield_stmt(
        &mut self,
        targets: Vec<(Token, Option<Type>)>,
        call: Call,
        comment: Option<Box<str>>,
        pos: Pos,
        at: Token,
    ) -> R<StmtId> {
        if let Some(k) = call.kwargs.first() {
            return Err(self.err(
                at,
                format!(
                    "`pl.yield_` takes positional values only (found `{}=`)",
                    k.name
                ),
                "pass the yielded values positionally",
            ));
        }
        let Some(ctx) = self.constructs.len().checked_sub(1) else {
            return Err(self.err(
                at,
                "`pl.yield_` outside a loop or `if`".into(),
                "yield only at the end of a loop body or an `if` branch",
            ));
        };
        if !targets.is_empty() {
            self.constructs[ctx].yields += 1;
            match &self.constructs[ctx].results {
                None => {
                    let owner = self.constructs[ctx].stmt;
                    let mut vars = Vec::new();
                    for (tok, ty) in targets {
                        let name = self.text(tok);
                        let v = self.f.vars.push(VarData {
                            name: name.into(),
                            ty,
                            def: VarDef::Stmt(owner),
                        });
                        vars.push((v, name));
                    }
                    self.constructs[ctx].results = Some(vars);
                }
                Some(prev) => {
                    let same = prev.len() == targets.len()
                        && prev.iter().zip(&targets).all(|(&(v, name), (tok, ty))| {
                            name == self.text(*tok) && self.f.vars[v].ty == *ty
                        });
                    if !same {
                        return Err(self.err(
                            at,
                            "this branch yields into different variables (or types) than the other branch".into(),
                            "both branches of an `if` must yield into the same `name: type`",
                        ));
                    }
                }
            }
        }
        Ok(self.push_stmt(StmtKind::Yield(call.args.into_vec()), comment, pos))
    }

    pub(super) fn for_stmt(&mut self) -> R<StmtId> {
        let kw = self.bump()?;
        let pos = self.pos(kw);
        let mut loop_var = None;
        let mut iter_names = Vec::new();
        let t = self.peek()?;
        if t.kind == Tok::Name && !is_keyword(self.text(t)) {
            loop_var = Some(self.bump()?);
            let c = self.peek()?;
            if self.is_op(c, ",") {
                self.bump()?;
                let open = self.expect_op("(", "`(` before the loop-carried variables")?;
                iter_names = self.name_tuple(open)?;
            }
        } else if self.is_op(t, "(") {
            self.bump()?;
            iter_names = self.name_tuple(t)?;
        } else {
            return Err(self.expected(t, "a loop variable or `(iter_args,)`"));
        }
        self.expect_keyword("in")?;
        let it = self.peek()?;
        let iter = match self.expr()? {
            Expr::Call(c) => *c,
            _ => {
                return Err(self.err(
                    it,
                    "a loop iterates over a call such as `pl.range(...)`".into(),
                    "expected `pl.range(...)`, `pl.pipeline(...)`, `pl.while_(...)`...",
                ))
            }
        };
        self.expect_op(":", "`:` after the loop header")?;
        let comment = self.end_of_line()?;
        let id = self.push_stmt(StmtKind::Blank, comment, pos);
        // The induction and loop-carried variables belong to the loop.
        self.scope.open();
        let loop_var = loop_var.map(|t| self.bind(t, None, VarDef::LoopVar(id)));
        let iter_args: Vec<VarId> = iter_names
            .into_iter()
            .map(|t| self.bind(t, None, VarDef::IterArg(id)))
            .collect();
        self.open_construct(id);
        let body = self.suite()?;
        self.scope.close(&self.f.vars);
        let results = self.close_construct();
        self.f.stmts[id].kind = StmtKind::For(Box::new(ForStmt {
            iter,
            loop_var,
            iter_args,
            body,
            results,
        }));
        Ok(id)
    }

    /// `with CTX:` BODY (`with pl.scope(mode=pl.ScopeMode.MANUAL):`).
    pub(super) fn with_stmt(&mut self) -> R<StmtId> {
        let kw = self.bump()?;
        let pos = self.pos(kw);
        let at = self.peek()?;
        let ctx = match self.expr()? {
            Expr::Call(c) => *c,
            _ => {
                return Err(self.err(
                    at,
                    "a `with` block opens a call such as `pl.scope(...)`".into(),
                    "expected `pl.scope(mode=...)`",
                ))
            }
        };
        let t = self.peek()?;
        if self.is_name(t, "as") {
            return Err(self.err(
                t,
                "`with ... as NAME` is not part of PyPTO's language".into(),
                "remove `as NAME`",
            ));
        }
        self.expect_op(":", "`:` after the `with` header")?;
        let comment = self.end_of_line()?;
        let id = self.push_stmt(StmtKind::Blank, comment, pos);
        let body = self.suite()?;
        self.f.stmts[id].kind = StmtKind::With(Box::new(WithStmt { ctx, body }));
        Ok(id)
    }

    /// `(a, b)` / `(a,)` after its `(`.
    pub(super) fn name_tuple(&mut self, open: Token) -> R<Vec<Token>> {
        let mut names = Vec::new();
        loop {
            let t = self.peek()?;
            if self.is_op(t, ")") {
                self.bump()?;
                break;
            }
            names.push(self.expect_name("a loop-carried variable name")?);
            let c = self.peek()?;
            if self.is_op(c, ",") {
                self.bump()?;
            } else if !self.is_op(c, ")") {
                return Err(self.expected(c, "`,` or `)`"));
            }
        }
        if names.is_empty() {
            return Err(self.err(
                open,
                "empty loop-carried variable list".into(),
                "name at least one",
            ));
        }
        Ok(names)
    }

    /// Creates a variable named by token `t` and makes it visible: later
    /// uses of the name read it.
    pub(super) fn bind(&mut self, t: Token, ty: Option<Type>, def: VarDef) -> VarId {
        let name = self.text(t);
        let v = self.f.vars.push(VarData {
            name: name.into(),
            ty,
            def,
        });
        self.scope.bind(v, &self.f.vars);
        v
    }

    /// Starts the body of loop or `if` statement `id`: a `pl.yield_` inside
    /// now names its results.
    fn open_construct(&mut self, id: StmtId) {
        self.constructs.push(Construct {
            stmt: id,
            results: None,
            yields: 0,
        });
    }

    /// Ends the innermost construct's body: makes the results its
    /// `pl.yield_` named visible after it and returns their ids (none when
    /// nothing was yielded).
    fn close_construct(&mut self) -> Vec<VarId> {
        let results = self
            .constructs
            .pop()
            .and_then(|c| c.results)
            .unwrap_or_default();
        results
            .into_iter()
            .map(|(v, _)| {
                self.scope.bind(v, &self.f.vars);
                v
            })
            .collect()
    }

    /// After `if` (consumed): the `if` and its whole `elif` chain. The
    /// chain is read iteratively and counts as one nesting level (a flat
    /// `if`/`elif` ladder is not nesting for its author); its length is
    /// bounded by [`MAX_ELIF`] because each `elif` is an `if` nested in the
    /// previous `else` for the passes that walk it.
    pub(super) fn if_stmt(&mut self, pos: Pos) -> R<StmtId> {
        // (statement, condition, then branch) of each `if` of the chain.
        let mut chain: Vec<(StmtId, Expr, Vec<StmtId>)> = Vec::new();
        // The `else`/`elif` keyword after each `if`'s then branch, if any.
        let mut else_kws: Vec<Token> = Vec::new();
        // Trivia read before each `elif`.
        let mut pending: Vec<Vec<StmtId>> = Vec::new();
        let mut pos = pos;
        let else_body = loop {
            let cond = self.expr()?;
            self.expect_op(":", "`:` after the condition")?;
            let comment = self.end_of_line()?;
            let id = self.push_stmt(StmtKind::Blank, comment, pos);
            self.open_construct(id);
            let then_body = self.scoped_suite()?;
            chain.push((id, cond, then_body));
            // Trivia between the branches belongs to the else branch.
            let mut k = 0;
            while matches!(self.peek_n(k)?.kind, Tok::Comment | Tok::Blank) {
                k += 1;
            }
            let next = self.peek_n(k)?;
            if !(self.is_name(next, "else") || self.is_name(next, "elif")) {
                break None;
            }
            let mut body = Vec::new();
            for _ in 0..k {
                self.trivia_stmts_one(&mut body)?;
            }
            let kw = self.bump()?;
            else_kws.push(kw);
            if self.text(kw) == "else" {
                self.expect_op(":", "`:` after `else`")?;
                self.end_of_line()?;
                body.extend(self.scoped_suite()?);
                break Some(body);
            }
            if chain.len() >= MAX_ELIF {
                return Err(self.err(
                    kw,
                    format!("an `if`/`elif` chain longer than {MAX_ELIF} branches"),
                    "split the chain (nest an `if` in the `else`)",
                ));
            }
            // The trivia precedes the nested `if` in the previous else branch.
            pending.push(body);
            pos = self.pos(kw);
        };
        // Build from the innermost `if` outwards.
        let mut else_body = else_body;
        let mut inner = None;
        while let Some((id, cond, then_body)) = chain.pop() {
            let mut else_b = else_body.take();
            if let Some(nested) = inner {
                let mut body = pending.pop().unwrap_or_default();
                body.push(nested);
                else_b = Some(body);
            }
            // An `elif` is an `if` in the previous `else` branch: its
            // results end with that branch, so after the chain only the
            // outermost `if`'s results are visible (a read of an inner
            // one there is an out-of-scope error, not a tile whose bytes
            // the passes free with the chain).
            let in_else_branch = !chain.is_empty();
            // The else branch of an `if` followed by `elif` is the nested
            // `if`, which yields into its own results, never into this
            // one's: with results of its own, this `if`'s would hold
            // nothing on the `elif` paths (read as a chain, a user's
            // `r = pl.yield_(..)` in the `elif` branch would be lost).
            let yields = self.constructs.last().map_or(0, |c| c.yields);
            if let Some(&kw) = else_kws.get(chain.len()) {
                if yields > 0 && self.text(kw) == "elif" {
                    return Err(self.err(
                        kw,
                        "an `elif` branch cannot yield into the results of the `if` before it: the `elif` is an `if` of its own, nested in that `if`'s else branch".into(),
                        "write `else:`, put the `if` inside it, and end the `else` with `pl.yield_` of that `if`'s results",
                    ));
                }
            }
            if in_else_branch {
                self.scope.open();
            }
            let results = self.close_construct();
            if in_else_branch {
                self.scope.close(&self.f.vars);
            }
            self.f.stmts[id].kind = StmtKind::If(Box::new(IfStmt {
                cond,
                then_body,
                else_body: else_b,
                results,
            }));
            inner = Some(id);
        }
        Ok(inner.unwrap_or(StmtId::new(0)))
    }
}
