//! The reader: PyPTO program text to [`Program`].
//!
//! A hand-written recursive-descent parser over an on-demand tokenizer
//! ([`lexer`]). It accepts what PyPTO prints and what people write by hand
//! (plain tiles without MemRefs, comments, blank lines, bracketed or `\`
//! line continuations, `elif`), resolves every name to a [`VarId`] of its
//! function (a use refers to the latest definition before it in program
//! order; unknown names become [`VarDef::Free`] variables), and reports the
//! first error with its line, column and what was expected. It never
//! panics: deep nesting and oversized input are errors too.

pub mod lexer;

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::diag::ParseError;
use crate::ir::{
    BinOp, Call, DType, Expr, ForStmt, Function, IfStmt, Kwarg, MemBase, MemRef, Param, ParamDir,
    Pos, Program, Quote, Stmt, StmtId, StmtKind, TensorType, TileType, Trivia, Type, UnaryOp,
    VarData, VarDef, VarId,
};
use lexer::{Lexer, Tok, Token, MAX_INPUT};

/// Deepest nesting of expressions or blocks the reader accepts.
const MAX_DEPTH: u32 = 64;

/// Reads a whole program.
pub fn parse(src: &str) -> Result<Program, ParseError> {
    if src.len() > MAX_INPUT {
        return Err(ParseError {
            line: 1,
            col: 1,
            len: 1,
            message: "input is larger than 4 GiB".into(),
            label: "split the program".into(),
        });
    }
    let (preamble, start, line) = preamble(src)?;
    let mut p = Parser {
        lex: Lexer::new(src, start, line),
        src,
        look: VecDeque::new(),
        depth: 0,
        f: Function::new(""),
        scope: HashMap::default(),
        constructs: Vec::new(),
        names: HashSet::default(),
        scratch: Vec::new(),
        scratch_kw: Vec::new(),
    };
    p.program(preamble).map_err(|e| *e)
}

/// Splits off the lines before `@pl.program`: comments, blank lines and
/// imports. Returns them, the byte offset and the line number where the
/// decorator line starts.
fn preamble(src: &str) -> Result<(Vec<Box<str>>, usize, u32), ParseError> {
    let mut lines = Vec::new();
    let mut off = 0;
    let mut line = 1u32;
    while off < src.len() {
        let end = src[off..].find('\n').map_or(src.len(), |k| off + k);
        let text = src[off..end].trim_end_matches('\r');
        let t = text.trim_start();
        if t.starts_with('@') {
            return Ok((lines, off, line));
        }
        if !(t.is_empty()
            || t.starts_with('#')
            || t.starts_with("import ")
            || t.starts_with("from "))
        {
            let col = (text.len() - t.len()) as u32 + 1;
            return Err(ParseError {
                line,
                col,
                len: t.chars().count().clamp(1, 40) as u32,
                message: "expected `@pl.program` (only comments and imports may precede it)".into(),
                label: "not a comment, import or `@pl.program`".into(),
            });
        }
        lines.push(text.into());
        off = end + 1;
        line += 1;
    }
    Err(ParseError {
        line,
        col: 1,
        len: 1,
        message: "expected `@pl.program`, found end of file".into(),
        label: "a program is an `@pl.program` class".into(),
    })
}

/// rustc's FxHash: fast on the short identifiers the reader hashes.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.add(w);
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Fx {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type FxBuild = BuildHasherDefault<Fx>;

struct Construct<'s> {
    stmt: StmtId,
    /// Results with their names, once a yield with targets was read.
    results: Option<Vec<(VarId, &'s str)>>,
}

struct Parser<'s> {
    lex: Lexer<'s>,
    src: &'s str,
    look: VecDeque<Token>,
    depth: u32,
    f: Function,
    scope: HashMap<&'s str, VarId, FxBuild>,
    constructs: Vec<Construct<'s>>,
    /// Interned dotted names and keywords, shared by every occurrence.
    names: HashSet<Arc<str>, FxBuild>,
    /// Stack of list items and arguments being read (see [`Parser::call_args`]).
    scratch: Vec<Expr>,
    /// Stack of keyword arguments being read.
    scratch_kw: Vec<Kwarg>,
}

type R<T> = Result<T, Box<ParseError>>;

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "def"
            | "class"
            | "for"
            | "in"
            | "if"
            | "else"
            | "elif"
            | "return"
            | "and"
            | "or"
            | "not"
            | "is"
            | "while"
            | "with"
            | "pass"
            | "lambda"
            | "import"
            | "from"
            | "as"
            | "yield"
            | "break"
            | "continue"
            | "del"
            | "global"
            | "nonlocal"
            | "try"
            | "except"
            | "finally"
            | "raise"
            | "assert"
            | "async"
            | "await"
            | "True"
            | "False"
            | "None"
    )
}

impl<'s> Parser<'s> {
    // ---- token plumbing -------------------------------------------------

    fn peek_n(&mut self, n: usize) -> R<Token> {
        while self.look.len() <= n {
            let t = self.lex.next_token()?;
            self.look.push_back(t);
        }
        Ok(self.look[n])
    }

    fn peek(&mut self) -> R<Token> {
        self.peek_n(0)
    }

    fn bump(&mut self) -> R<Token> {
        match self.look.pop_front() {
            Some(t) => Ok(t),
            None => self.lex.next_token(),
        }
    }

    /// The shared copy of `text`.
    fn intern(&mut self, text: &str) -> Arc<str> {
        if let Some(a) = self.names.get(text) {
            return a.clone();
        }
        let a: Arc<str> = text.into();
        self.names.insert(a.clone());
        a
    }

    fn peek_is_op(&mut self, s: &str) -> R<bool> {
        self.peek_n_is_op(0, s)
    }

    fn peek_n_is_op(&mut self, n: usize, s: &str) -> R<bool> {
        let t = self.peek_n(n)?;
        Ok(self.is_op(t, s))
    }

    fn text(&self, t: Token) -> &'s str {
        self.src.get(t.start as usize..t.end as usize).unwrap_or("")
    }

    fn is_op(&self, t: Token, s: &str) -> bool {
        t.kind == Tok::Op && self.text(t) == s
    }

    fn is_name(&self, t: Token, s: &str) -> bool {
        t.kind == Tok::Name && self.text(t) == s
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            Tok::Newline | Tok::EolComment => "end of line".into(),
            Tok::Indent => "an indented block".into(),
            Tok::Dedent => "the end of the block".into(),
            Tok::Comment => "a comment line".into(),
            Tok::Blank => "a blank line".into(),
            Tok::Eof => "end of file".into(),
            _ => {
                let s = self.text(t);
                let short: String = s.chars().take(30).collect();
                format!("`{short}`")
            }
        }
    }

    fn pos(&self, t: Token) -> Pos {
        let col = self
            .src
            .get(t.line_start as usize..t.start as usize)
            .map_or(0, |s| s.chars().count()) as u32
            + 1;
        Pos { line: t.line, col }
    }

    fn err(&self, t: Token, message: String, label: &str) -> Box<ParseError> {
        let p = self.pos(t);
        let len = self.text(t).chars().count().clamp(1, 80) as u32;
        Box::new(ParseError {
            line: p.line,
            col: p.col,
            len,
            message,
            label: label.into(),
        })
    }

    /// "expected WHAT, found X" at token `t`.
    fn expected(&self, t: Token, what: &str) -> Box<ParseError> {
        let found = self.describe(t);
        self.err(
            t,
            format!("expected {what}, found {found}"),
            &format!("expected {what}"),
        )
    }

    fn expect_op(&mut self, s: &str, what: &str) -> R<Token> {
        let t = self.peek()?;
        if self.is_op(t, s) {
            self.bump()
        } else {
            Err(self.expected(t, what))
        }
    }

    fn expect_name(&mut self, what: &str) -> R<Token> {
        let t = self.peek()?;
        if t.kind == Tok::Name && !is_keyword(self.text(t)) {
            self.bump()
        } else {
            Err(self.expected(t, what))
        }
    }

    fn expect_keyword(&mut self, kw: &str) -> R<Token> {
        let t = self.peek()?;
        if self.is_name(t, kw) {
            self.bump()
        } else {
            Err(self.expected(t, &format!("`{kw}`")))
        }
    }

    /// An optional end-of-line comment, then the end of the line.
    fn end_of_line(&mut self) -> R<Option<Box<str>>> {
        let mut comment = None;
        let t = self.peek()?;
        if t.kind == Tok::EolComment {
            self.bump()?;
            comment = Some(self.text(t).get(1..).unwrap_or("").into());
        }
        let t = self.peek()?;
        match t.kind {
            Tok::Newline => {
                self.bump()?;
                Ok(comment)
            }
            Tok::Eof => Ok(comment),
            _ => Err(self.expected(t, "end of line")),
        }
    }

    fn enter(&mut self, t: Token) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(
                t,
                format!("nesting deeper than {MAX_DEPTH} levels"),
                "simplify this expression or block",
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ---- program and functions -------------------------------------------

    fn program(&mut self, preamble: Vec<Box<str>>) -> R<Program> {
        let at = self.peek()?;
        if !self.is_op(at, "@") {
            return Err(self.expected(at, "`@pl.program`"));
        }
        self.bump()?;
        self.expect_path(&["pl", "program"], "`@pl.program`")?;
        self.end_of_line()?;
        self.expect_keyword("class")?;
        let name = self.expect_name("the program class name")?;
        self.expect_op(":", "`:` after the class name")?;
        self.end_of_line()?;
        let mut leading = Vec::new();
        self.trivia_into(&mut leading)?;
        let t = self.peek()?;
        if t.kind != Tok::Indent {
            return Err(self.expected(t, "an indented class body with `@pl.function` methods"));
        }
        self.bump()?;
        let mut functions = Vec::new();
        loop {
            self.trivia_into(&mut leading)?;
            let t = self.peek()?;
            match t.kind {
                Tok::Dedent => {
                    self.bump()?;
                    break;
                }
                Tok::Eof => break,
                _ if self.is_op(t, "@") => {
                    let f = self.function(std::mem::take(&mut leading))?;
                    functions.push(f);
                }
                _ => return Err(self.expected(t, "`@pl.function`")),
            }
        }
        let mut trailing = leading;
        self.trivia_into(&mut trailing)?;
        let t = self.peek()?;
        if t.kind != Tok::Eof {
            return Err(self.expected(t, "end of file (one `@pl.program` class per file)"));
        }
        Ok(Program {
            preamble,
            name: self.text(name).into(),
            functions,
            trailing,
            final_newline: self.src.ends_with('\n'),
        })
    }

    /// Collects comment and blank-line tokens.
    fn trivia_into(&mut self, out: &mut Vec<Trivia>) -> R<()> {
        loop {
            let t = self.peek()?;
            match t.kind {
                Tok::Comment => {
                    self.bump()?;
                    out.push(Trivia::Comment(self.text(t).get(1..).unwrap_or("").into()));
                }
                Tok::Blank => {
                    self.bump()?;
                    out.push(Trivia::Blank);
                }
                _ => return Ok(()),
            }
        }
    }

    /// Expects the dotted name `parts` (e.g. `pl.function`).
    fn expect_path(&mut self, parts: &[&str], what: &str) -> R<()> {
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                self.expect_op(".", what)?;
            }
            let t = self.peek()?;
            if !self.is_name(t, part) {
                return Err(self.expected(t, what));
            }
            self.bump()?;
        }
        Ok(())
    }

    fn function(&mut self, leading: Vec<Trivia>) -> R<Function> {
        self.bump()?; // `@`
        self.f = Function::new("");
        self.scope.clear();
        self.constructs.clear();
        self.f.leading = leading;
        self.expect_path(&["pl", "function"], "`@pl.function`")?;
        let t = self.peek()?;
        if self.is_op(t, "(") {
            self.bump()?;
            let (args, kwargs) = self.call_args(t)?;
            if let Some(a) = args.first() {
                let _ = a;
                return Err(self.err(
                    t,
                    "`@pl.function` takes keyword arguments only".into(),
                    "write `type=...`, `level=...`, `role=...`",
                ));
            }
            self.f.decorator = Some(kwargs);
        }
        self.end_of_line()?;
        let mut extra = Vec::new();
        self.trivia_into(&mut extra)?;
        self.f.leading.extend(extra);
        let def = self.expect_keyword("def")?;
        self.f.pos = self.pos(def);
        self.reserve_for_body(def);
        let name = self.expect_name("the function name")?;
        self.f.name = self.text(name).into();
        self.expect_op("(", "`(` to open the parameter list")?;
        self.params()?;
        let t = self.peek()?;
        if self.is_op(t, "->") {
            self.bump()?;
            self.f.ret = Some(self.ty()?);
        }
        self.expect_op(":", "`:` after the signature")?;
        self.end_of_line()?;
        let body = self.suite()?;
        self.f.body = body;
        Ok(std::mem::replace(&mut self.f, Function::new("")))
    }

    /// Sizes the arenas from the number of lines up to the next decorator
    /// at class level, so large bodies do not regrow (and copy) them.
    fn reserve_for_body(&mut self, def: Token) {
        let rest = self.src.get(def.start as usize..).unwrap_or("");
        let (body, bounded) = match rest.find("\n    @") {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        let mut lines = body.bytes().filter(|&b| b == b'\n').count() + 1;
        if !bounded {
            lines = lines.min(1 << 20);
        }
        self.f.stmts.reserve(lines);
        self.f.vars.reserve(lines + 8);
        self.scope.reserve(lines + 8);
    }

    fn params(&mut self) -> R<()> {
        let mut index = 0;
        loop {
            let t = self.peek()?;
            if self.is_op(t, ")") {
                self.bump()?;
                return Ok(());
            }
            let name = self.expect_name("a parameter name or `)`")?;
            let text = self.text(name);
            let colon = self.peek()?;
            if text == "self" && index == 0 && !self.f.has_self && !self.is_op(colon, ":") {
                self.f.has_self = true;
            } else {
                let mut dir = ParamDir::In;
                let mut ty = None;
                if self.is_op(colon, ":") {
                    self.bump()?;
                    dir = self.param_dir()?;
                    ty = Some(self.ty()?);
                    if dir != ParamDir::In {
                        self.expect_op("]", "`]` to close the direction wrapper")?;
                    }
                }
                let v = self.f.vars.push(VarData {
                    name: text.into(),
                    ty,
                    def: VarDef::Param(index),
                });
                self.scope.insert(text, v);
                self.f.params.push(Param { var: v, dir });
                index += 1;
            }
            let t = self.peek()?;
            if self.is_op(t, ",") {
                self.bump()?;
            } else if !self.is_op(t, ")") {
                return Err(self.expected(t, "`,` or `)` in the parameter list"));
            }
        }
    }

    /// Consumes `pl.Out[` / `pl.InOut[` when present.
    fn param_dir(&mut self) -> R<ParamDir> {
        let (a, b, c, d) = (
            self.peek_n(0)?,
            self.peek_n(1)?,
            self.peek_n(2)?,
            self.peek_n(3)?,
        );
        if self.is_name(a, "pl") && self.is_op(b, ".") && self.is_op(d, "[") {
            let dir = match self.text(c) {
                "Out" => ParamDir::Out,
                "InOut" => ParamDir::InOut,
                _ => return Ok(ParamDir::In),
            };
            for _ in 0..4 {
                self.bump()?;
            }
            return Ok(dir);
        }
        Ok(ParamDir::In)
    }

    // ---- blocks and statements ---------------------------------------------

    /// An indented block after a header line (whose end was consumed).
    fn suite(&mut self) -> R<Vec<StmtId>> {
        let mut stmts = Vec::new();
        self.trivia_stmts(&mut stmts)?;
        let t = self.peek()?;
        if t.kind != Tok::Indent {
            return Err(self.expected(t, "an indented block"));
        }
        self.enter(t)?;
        self.bump()?;
        loop {
            let t = self.peek()?;
            match t.kind {
                Tok::Dedent => {
                    self.bump()?;
                    break;
                }
                Tok::Eof => break,
                _ => {
                    let s = self.stmt()?;
                    stmts.push(s);
                }
            }
        }
        self.leave();
        Ok(stmts)
    }

    fn trivia_stmts(&mut self, out: &mut Vec<StmtId>) -> R<()> {
        loop {
            let t = self.peek()?;
            let kind = match t.kind {
                Tok::Comment => StmtKind::Comment(self.text(t).get(1..).unwrap_or("").into()),
                Tok::Blank => StmtKind::Blank,
                _ => return Ok(()),
            };
            self.bump()?;
            let pos = self.pos(t);
            out.push(self.f.stmts.push(Stmt {
                kind,
                comment: None,
                pos,
            }));
        }
    }

    fn push_stmt(&mut self, kind: StmtKind, comment: Option<Box<str>>, pos: Pos) -> StmtId {
        self.f.stmts.push(Stmt { kind, comment, pos })
    }

    fn stmt(&mut self) -> R<StmtId> {
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

    fn trivia_stmts_one(&mut self, out: &mut Vec<StmtId>) -> R<()> {
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
    fn simple_stmt(&mut self, t: Token, pos: Pos) -> R<StmtId> {
        let plain_name = t.kind == Tok::Name && !is_keyword(self.text(t));
        if plain_name {
            let n1 = self.peek_n(1)?;
            if self.is_op(n1, ":") {
                self.bump()?;
                self.bump()?;
                let ty = self.ty()?;
                self.expect_op("=", "`=` after the type annotation")?;
                let value = self.expr()?;
                let comment = self.end_of_line()?;
                return self.assign(vec![(t, Some(ty))], value, comment, pos);
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

    fn assign(
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
        let mut names = Vec::with_capacity(targets.len());
        for (tok, ty) in targets {
            let name = self.text(tok);
            names.push(name);
            let v = self.f.vars.push(VarData {
                name: name.into(),
                ty,
                def: VarDef::Stmt(id),
            });
            vars.push(v);
        }
        // Bound after the right-hand side was read: `x = f(x)` reads the old `x`.
        for (&v, name) in vars.iter().zip(names) {
            self.scope.insert(name, v);
        }
        self.f.stmts[id].kind = StmtKind::Assign {
            targets: vars,
            value,
        };
        Ok(id)
    }

    fn yield_stmt(
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
        Ok(self.push_stmt(StmtKind::Yield(call.args), comment, pos))
    }

    fn for_stmt(&mut self) -> R<StmtId> {
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
        let loop_var = loop_var.map(|t| self.bind(t, VarDef::LoopVar(id)));
        let iter_args: Vec<VarId> = iter_names
            .into_iter()
            .map(|t| self.bind(t, VarDef::IterArg(id)))
            .collect();
        self.constructs.push(Construct {
            stmt: id,
            results: None,
        });
        let body = self.suite()?;
        let results = self
            .constructs
            .pop()
            .and_then(|c| c.results)
            .unwrap_or_default();
        let results = self.bind_results(results);
        self.f.stmts[id].kind = StmtKind::For(ForStmt {
            iter,
            loop_var,
            iter_args,
            body,
            results,
        });
        Ok(id)
    }

    /// `(a, b)` / `(a,)` after its `(`.
    fn name_tuple(&mut self, open: Token) -> R<Vec<Token>> {
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

    /// Creates a variable named by token `t` and makes it visible.
    fn bind(&mut self, t: Token, def: VarDef) -> VarId {
        let name = self.text(t);
        let v = self.f.vars.push(VarData {
            name: name.into(),
            ty: None,
            def,
        });
        self.scope.insert(name, v);
        v
    }

    /// Makes a construct's results visible after it; returns their ids.
    fn bind_results(&mut self, results: Vec<(VarId, &'s str)>) -> Vec<VarId> {
        results
            .into_iter()
            .map(|(v, name)| {
                self.scope.insert(name, v);
                v
            })
            .collect()
    }

    /// After `if`/`elif` (consumed).
    fn if_stmt(&mut self, pos: Pos) -> R<StmtId> {
        let cond = self.expr()?;
        self.expect_op(":", "`:` after the condition")?;
        let comment = self.end_of_line()?;
        let id = self.push_stmt(StmtKind::Blank, comment, pos);
        self.constructs.push(Construct {
            stmt: id,
            results: None,
        });
        let then_body = self.suite()?;
        // Trivia between the branches belongs to the else branch.
        let mut k = 0;
        while matches!(self.peek_n(k)?.kind, Tok::Comment | Tok::Blank) {
            k += 1;
        }
        let next = self.peek_n(k)?;
        let else_body = if self.is_name(next, "else") || self.is_name(next, "elif") {
            let mut body = Vec::new();
            for _ in 0..k {
                self.trivia_stmts_one(&mut body)?;
            }
            let kw = self.bump()?;
            if self.text(kw) == "else" {
                self.expect_op(":", "`:` after `else`")?;
                self.end_of_line()?;
                body.extend(self.suite()?);
            } else {
                let p = self.pos(kw);
                self.enter(kw)?;
                let nested = self.if_stmt(p)?;
                self.leave();
                body.push(nested);
            }
            Some(body)
        } else {
            None
        };
        let results = self
            .constructs
            .pop()
            .and_then(|c| c.results)
            .unwrap_or_default();
        let results = self.bind_results(results);
        self.f.stmts[id].kind = StmtKind::If(IfStmt {
            cond,
            then_body,
            else_body,
            results,
        });
        Ok(id)
    }

    // ---- types ------------------------------------------------------------

    /// `pl.X` when the next tokens are `pl . X`.
    fn peek_pl(&mut self) -> R<Option<&'s str>> {
        let (a, b, c) = (self.peek_n(0)?, self.peek_n(1)?, self.peek_n(2)?);
        if self.is_name(a, "pl") && self.is_op(b, ".") && c.kind == Tok::Name {
            Ok(Some(self.text(c)))
        } else {
            Ok(None)
        }
    }

    fn ty(&mut self) -> R<Type> {
        let start = self.peek()?;
        self.enter(start)?;
        let r = self.ty_inner();
        self.leave();
        r
    }

    fn ty_inner(&mut self) -> R<Type> {
        let head = self.peek_pl()?;
        match head {
            Some(k @ ("Tensor" | "Tile")) => {
                for _ in 0..3 {
                    self.bump()?;
                }
                let what = if k == "Tile" {
                    "`[` after `pl.Tile`"
                } else {
                    "`[` after `pl.Tensor`"
                };
                self.expect_op("[", what)?;
                let open = self.expect_op("[", "the shape list `[d0, d1, ...]`")?;
                let shape = self.exprs_until("]", open)?;
                self.expect_op(",", "`,` and the dtype after the shape")?;
                let dtype = self.dtype()?;
                let mut memref = None;
                let mut space = None;
                let mut extras = Vec::new();
                loop {
                    let t = self.peek()?;
                    if self.is_op(t, "]") {
                        self.bump()?;
                        break;
                    }
                    self.expect_op(",", "`,` or `]` in the type")?;
                    let t = self.peek()?;
                    if self.is_op(t, "]") {
                        self.bump()?;
                        break;
                    }
                    match self.peek_pl()? {
                        Some("MemRef") if memref.is_none() => memref = Some(self.memref()?),
                        Some("Mem") if k == "Tile" && space.is_none() => {
                            let e = self.expr()?;
                            match e.as_mem_space() {
                                Some(s) => space = Some(s),
                                None => extras.push(e),
                            }
                        }
                        _ => extras.push(self.expr()?),
                    }
                }
                Ok(if k == "Tile" {
                    Type::Tile(TileType {
                        shape,
                        dtype,
                        memref,
                        space,
                        extras,
                    })
                } else {
                    Type::Tensor(TensorType {
                        shape,
                        dtype,
                        memref,
                        extras,
                    })
                })
            }
            Some("Scalar") => {
                for _ in 0..3 {
                    self.bump()?;
                }
                self.expect_op("[", "`[` after `pl.Scalar`")?;
                let d = self.dtype()?;
                self.expect_op("]", "`]` to close `pl.Scalar[`")?;
                Ok(Type::Scalar(d))
            }
            Some("Ptr") if !self.peek_n_is_op(3, "[")? && !self.peek_n_is_op(3, ".")? => {
                for _ in 0..3 {
                    self.bump()?;
                }
                Ok(Type::Ptr)
            }
            Some("Tuple") if self.peek_n_is_op(3, "[")? => {
                for _ in 0..4 {
                    self.bump()?;
                }
                let mut items = Vec::new();
                loop {
                    let t = self.peek()?;
                    if self.is_op(t, "]") {
                        self.bump()?;
                        break;
                    }
                    items.push(self.ty()?);
                    let c = self.peek()?;
                    if self.is_op(c, ",") {
                        self.bump()?;
                    } else if !self.is_op(c, "]") {
                        return Err(self.expected(c, "`,` or `]` in `pl.Tuple[...]`"));
                    }
                }
                Ok(Type::Tuple(items))
            }
            _ => Ok(Type::Other(self.expr()?)),
        }
    }

    fn dtype(&mut self) -> R<DType> {
        match self.peek_pl()? {
            Some(name) if name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) => {
                for _ in 0..3 {
                    self.bump()?;
                }
                Ok(DType::from_name(name))
            }
            _ => {
                let t = self.peek()?;
                Err(self.expected(t, "a dtype such as `pl.FP32`"))
            }
        }
    }

    /// `pl.MemRef(base[, offset[, size]][, slots=N])[k]`.
    fn memref(&mut self) -> R<MemRef> {
        for _ in 0..3 {
            self.bump()?;
        }
        let open = self.expect_op("(", "`(` after `pl.MemRef`")?;
        let b = self.peek()?;
        let base = match b.kind {
            Tok::Str => {
                self.bump()?;
                MemBase::Named(self.unescape(b)?.into())
            }
            Tok::Name if !is_keyword(self.text(b)) => {
                self.bump()?;
                MemBase::Var(self.lookup(b))
            }
            _ => return Err(self.expected(b, "the allocation (a name or a string)")),
        };
        let mut m = MemRef {
            base,
            offset: None,
            size: None,
            slots: None,
            slot_index: None,
        };
        let mut positional = 1;
        loop {
            let t = self.peek()?;
            if self.is_op(t, ")") {
                self.bump()?;
                break;
            }
            self.expect_op(",", "`,` or `)` in `pl.MemRef(...)`")?;
            let t = self.peek()?;
            if self.is_op(t, ")") {
                self.bump()?;
                break;
            }
            let eq = self.peek_n(1)?;
            if t.kind == Tok::Name && self.is_op(eq, "=") {
                if self.text(t) != "slots" {
                    return Err(self.err(
                        t,
                        format!("unknown `pl.MemRef` keyword `{}`", self.text(t)),
                        "only `slots=N` is allowed",
                    ));
                }
                self.bump()?;
                self.bump()?;
                m.slots = Some(self.uint("the slot count")?);
                continue;
            }
            match positional {
                1 => m.offset = Some(self.expr()?),
                2 => m.size = Some(self.uint("the byte size")?),
                _ => {
                    return Err(self.err(
                        t,
                        "too many `pl.MemRef` arguments".into(),
                        "expected `pl.MemRef(base, offset, size)`",
                    ))
                }
            }
            positional += 1;
        }
        let _ = open;
        let t = self.peek()?;
        if self.is_op(t, "[") {
            self.bump()?;
            m.slot_index = Some(self.expr()?);
            self.expect_op("]", "`]` after the slot index")?;
        }
        Ok(m)
    }

    fn uint(&mut self, what: &str) -> R<u64> {
        let t = self.peek()?;
        if t.kind == Tok::Int {
            self.bump()?;
            if let Some(Ok(v)) = self.int_value(t).map(u64::try_from) {
                return Ok(v);
            }
        }
        Err(self.expected(t, &format!("{what} as a non-negative integer")))
    }

    // ---- expressions ------------------------------------------------------

    /// Comma-separated expressions up to the end of the line (`return a, b`).
    fn expr_list(&mut self) -> R<Vec<Expr>> {
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
    fn exprs_until(&mut self, close: &str, open: Token) -> R<Vec<Expr>> {
        let _ = open;
        let start = self.scratch.len();
        let r = self.exprs_until_inner(close);
        if r.is_err() {
            self.scratch.truncate(start);
        }
        r?;
        Ok(self.scratch.drain(start..).collect())
    }

    fn exprs_until_inner(&mut self, close: &str) -> R<()> {
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

    fn expr(&mut self) -> R<Expr> {
        let t = self.peek()?;
        self.enter(t)?;
        let r = self.expr_bp(0);
        self.leave();
        r
    }

    /// Precedence climbing over every binary level of
    /// [`BinOp::precedence`] (`or` up to `*`); `**` and unary operators are
    /// handled below. Reads operators binding at least as tight as `min`.
    fn expr_bp(&mut self, min: u8) -> R<Expr> {
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
    fn infix_op(&self, t: Token) -> R<Option<BinOp>> {
        Ok(Some(match t.kind {
            Tok::Op => match self.text(t) {
                "|" => BinOp::BitOr,
                "^" => BinOp::BitXor,
                "&" => BinOp::BitAnd,
                "<<" => BinOp::Shl,
                ">>" => BinOp::Shr,
                "+" => BinOp::Add,
                "-" => BinOp::Sub,
                "*" => BinOp::Mul,
                "/" => BinOp::Div,
                "//" => BinOp::FloorDiv,
                "%" => BinOp::Mod,
                "<" => BinOp::Lt,
                "<=" => BinOp::Le,
                ">" => BinOp::Gt,
                ">=" => BinOp::Ge,
                "==" => BinOp::Eq,
                "!=" => BinOp::Ne,
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

    fn unary(&mut self) -> R<Expr> {
        let t = self.peek()?;
        let op = match (t.kind, self.text(t)) {
            (Tok::Op, "-") => UnaryOp::Neg,
            (Tok::Op, "+") => UnaryOp::Pos,
            (Tok::Op, "~") => UnaryOp::Invert,
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

    fn power(&mut self) -> R<Expr> {
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

    fn primary(&mut self) -> R<Expr> {
        let mut e = self.atom()?;
        loop {
            let t = self.peek()?;
            if t.kind != Tok::Op {
                return Ok(e);
            }
            match self.text(t) {
                "(" => {
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
                    self.bump()?;
                    e = self.call_expr(func, t)?;
                }
                "[" => {
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
                        Expr::Tuple(items)
                    } else {
                        first
                    };
                    self.expect_op("]", "`]` to close the subscript")?;
                    e = Expr::Index(Box::new(e), Box::new(index));
                }
                "." => {
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

    /// Arguments after `(` up to `)` (consumed).
    ///
    /// Items collect on the shared scratch stacks and move into exactly
    /// sized vectors at the end (one allocation each, no regrowth).
    fn call_args(&mut self, open: Token) -> R<(Vec<Expr>, Vec<Kwarg>)> {
        let _ = open;
        let a0 = self.scratch.len();
        let k0 = self.scratch_kw.len();
        let r = self.call_args_inner(k0);
        if r.is_err() {
            self.scratch.truncate(a0);
            self.scratch_kw.truncate(k0);
        }
        r?;
        let args = self.scratch.drain(a0..).collect();
        let kwargs = self.scratch_kw.drain(k0..).collect();
        Ok((args, kwargs))
    }

    /// A call after its `(`; `pl.const(N, pl.DTYPE)` becomes [`Expr::Const`].
    fn call_expr(&mut self, func: Arc<str>, open: Token) -> R<Expr> {
        let a0 = self.scratch.len();
        let k0 = self.scratch_kw.len();
        if &*func == "pl.const" {
            let r = self.call_args_inner(k0);
            if r.is_err() {
                self.scratch.truncate(a0);
                self.scratch_kw.truncate(k0);
            }
            r?;
            if self.scratch_kw.len() == k0 && self.scratch.len() == a0 + 2 {
                if let (Expr::Int(n), Expr::Path(p)) = (&self.scratch[a0], &self.scratch[a0 + 1]) {
                    if let Some(d) = p.strip_prefix("pl.").filter(|d| !d.contains('.')) {
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
        Ok(Expr::Call(Box::new(Call { func, args, kwargs })))
    }

    fn call_args_inner(&mut self, k0: usize) -> R<()> {
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

    fn atom(&mut self) -> R<Expr> {
        let t = self.peek()?;
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
                let unbound_root = self.is_op(next, ".") && !self.scope.contains_key(s);
                if s == "pl"
                    || (s == "self" && self.f.has_self)
                    || unbound_root
                    || self.is_op(next, "(")
                {
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
                    return Ok(Expr::Path(self.intern(text)));
                }
                Ok(Expr::Var(self.lookup(t)))
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
                        return Ok(Expr::Tuple(Vec::new()));
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
                            return Ok(Expr::Tuple(items));
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
                    Ok(Expr::List(self.exprs_until("]", t)?))
                }
                "{" => {
                    self.bump()?;
                    let mut items = Vec::new();
                    loop {
                        let c = self.peek()?;
                        if self.is_op(c, "}") {
                            self.bump()?;
                            return Ok(Expr::Dict(items));
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

    /// The variable currently bound to the name of token `t` (a new free
    /// variable when there is none).
    fn lookup(&mut self, t: Token) -> VarId {
        let name = self.text(t);
        if let Some(&v) = self.scope.get(name) {
            return v;
        }
        let v = self.f.vars.push(VarData {
            name: name.into(),
            ty: None,
            def: VarDef::Free,
        });
        self.scope.insert(name, v);
        v
    }

    fn int_value(&self, t: Token) -> Option<i64> {
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

    fn unescape(&self, t: Token) -> R<String> {
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
