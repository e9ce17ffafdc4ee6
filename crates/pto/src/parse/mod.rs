//! The reader: PyPTO program text to [`Program`].
//!
//! A hand-written recursive-descent parser over an on-demand tokenizer
//! ([`lexer`]). It accepts what PyPTO prints and what people write by hand
//! (plain tiles without MemRefs, comments, blank lines, bracketed or `\`
//! line continuations, `elif`), resolves every name to a [`VarId`] of its
//! function (a use refers to the latest definition before it in program
//! order that is still in scope: module `scope`; a name the module
//! defines, or that PyPTO printed as a free variable, becomes a
//! [`VarDef::Free`](crate::ir::VarDef::Free) variable; a name whose loop
//! body or `if` branch has ended is an error naming the block's result to
//! read instead; any other undefined name is an error naming the closest
//! defined one), and reports the first error with its line, column and
//! what was expected. A program read whole is then checked for consistency
//! (module `consistency`: unique function names; MemRefs that agree with
//! their allocations). It never
//! panics: deep nesting and oversized input are errors too.

mod consistency;
mod expr;
mod items;
pub mod lexer;
mod out_of_scope;
mod scope;
mod stmt;
mod type_cache;
mod types;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use crate::diag::ParseError;
use crate::ir::{Expr, Function, Kwarg, Pos, Program, SharedStr, StmtId, VarId};
use lexer::{Lexer, Tok, Token, MAX_INPUT};

/// Deepest nesting of expressions or blocks the reader accepts.
const MAX_DEPTH: u32 = 64;

/// Longest `if`/`elif` chain the reader accepts. A chain is one nesting
/// level for its author but an `if` nested in each `else` for the passes
/// that walk it recursively; this bound keeps their stack use safe.
const MAX_ELIF: usize = 1024;

/// Decodes program bytes as UTF-8; an invalid byte is an error at its
/// line and column (columns count the characters before it, from 1).
pub fn decode(bytes: &[u8]) -> Result<&str, ParseError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            // The prefix is valid UTF-8 by construction.
            let col = std::str::from_utf8(&good[line_start..]).map_or(0, |s| s.chars().count()) + 1;
            Err(ParseError {
                line: u32::try_from(line).unwrap_or(u32::MAX),
                col: u32::try_from(col).unwrap_or(u32::MAX),
                len: 1,
                message: format!(
                    "invalid UTF-8 (byte 0x{:02X}): a program is UTF-8 text",
                    bytes[e.valid_up_to()]
                ),
                label: "re-encode the file as UTF-8".into(),
            })
        }
    }
}

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
    let globals = module_names(&preamble);
    let mut p = Parser {
        globals,
        lex: Lexer::new(src, start, line),
        src,
        look: VecDeque::new(),
        depth: 0,
        f: Function::new(""),
        scope: scope::Scope::default(),
        constructs: Vec::new(),
        names: HashSet::default(),
        callees: HashSet::default(),
        scratch: Vec::new(),
        scratch_kw: Vec::new(),
        kw_toks: Vec::new(),
        call_kw_toks: Vec::new(),
        ty_cache: HashMap::default(),
        recording: None,
        last_end: 0,
    };
    let program = p.program(preamble).map_err(|e| *e)?;
    consistency::check(&program)?;
    Ok(program)
}

/// Splits off the lines before `@pl.program`: comments, blank lines,
/// imports and module-level assignments (`N = pl.dynamic("N")`, the
/// dynamic dimensions PyPTO declares before the class; later uses of the
/// name inside functions read as free variables). Returns them, the byte offset and the line number where the
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
            || t.starts_with("from ")
            || (text.len() == t.len() && is_module_assignment(t)))
        {
            let col = (text.len() - t.len()) as u32 + 1;
            return Err(ParseError {
                line,
                col,
                len: t.chars().count().clamp(1, 40) as u32,
                message: "expected `@pl.program` (only comments, imports and `NAME = ...` \
                          assignments may precede it)"
                    .into(),
                label: "not a comment, import, assignment or `@pl.program`".into(),
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

/// The names the lines before `@pl.program` define: imported modules
/// (`import a.b as c` defines `c`, `import a.b` defines `a`), imported
/// names (`from m import x, y as z`) and assigned names (`N = ...`).
fn module_names(preamble: &[Box<str>]) -> Vec<Box<str>> {
    let mut out: Vec<Box<str>> = Vec::new();
    for line in preamble {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("import ") {
            for item in rest.split(',') {
                let item = item.trim();
                let name = match item.split_once(" as ") {
                    Some((_, alias)) => alias.trim(),
                    None => item.split('.').next().unwrap_or(item),
                };
                out.push(name.into());
            }
        } else if let Some(rest) = t.strip_prefix("from ") {
            if let Some((_, names)) = rest.split_once(" import ") {
                for item in names.trim_matches(|c| c == '(' || c == ')').split(',') {
                    let item = item.trim();
                    let name = item.split_once(" as ").map_or(item, |(_, a)| a.trim());
                    if !name.is_empty() {
                        out.push(name.into());
                    }
                }
            }
        } else if line.len() == line.trim_start().len() && is_module_assignment(t) {
            if let Some((lhs, _)) = t.split_once('=') {
                out.push(lhs.trim().into());
            }
        }
    }
    out
}

/// A one-line module-level assignment `NAME = EXPR` at column 1 whose
/// brackets balance (PyPTO prints its `pl.dynamic` declarations so).
fn is_module_assignment(t: &str) -> bool {
    let Some((lhs, rhs)) = t.split_once('=') else {
        return false;
    };
    let lhs = lhs.trim_end();
    let ident = !lhs.is_empty()
        && !lhs.starts_with(|c: char| c.is_ascii_digit())
        && lhs.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !is_keyword(lhs);
    let rhs = rhs.trim();
    if !ident || rhs.is_empty() || rhs.starts_with('=') {
        return false;
    }
    let mut depth = 0i64;
    for c in rhs.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// rustc's FxHash (the rustc-hash crate's, whose final rotation spreads
/// short identifiers over the low bits the tables index with).
type FxBuild = rustc_hash::FxBuildHasher;

/// The copy of `text` in `set`, added on first use.
fn intern_in<T>(set: &mut HashSet<T, FxBuild>, text: &str) -> T
where
    T: Clone + Eq + std::hash::Hash + std::borrow::Borrow<str> + for<'a> From<&'a str>,
{
    if let Some(a) = set.get(text) {
        return a.clone();
    }
    let a = T::from(text);
    set.insert(a.clone());
    a
}

struct Construct<'s> {
    stmt: StmtId,
    /// Results with their names, once a yield with targets was read.
    results: Option<Vec<(VarId, &'s str)>>,
    /// Yields with targets read into it: one per branch that yields.
    yields: u32,
}

struct Parser<'s> {
    lex: Lexer<'s>,
    /// Names defined before `@pl.program` ([`module_names`]).
    globals: Vec<Box<str>>,
    src: &'s str,
    look: VecDeque<Token>,
    depth: u32,
    f: Function,
    scope: scope::Scope,
    constructs: Vec<Construct<'s>>,
    /// Interned dotted names and keywords, shared by every occurrence.
    names: HashSet<Arc<str>, FxBuild>,
    /// Interned callees, likewise.
    callees: HashSet<SharedStr, FxBuild>,
    /// Stack of list items and arguments being read (see [`Parser::call_args`]).
    scratch: Vec<Expr>,
    /// Stack of keyword arguments being read.
    scratch_kw: Vec<Kwarg>,
    /// The keyword tokens of `scratch_kw`, for diagnostics.
    kw_toks: Vec<Token>,
    /// The keyword tokens of the call [`Parser::call_args`] read last.
    call_kw_toks: Vec<Token>,
    /// Types already read in this function, by annotation text.
    ty_cache: type_cache::TypeCache<'s>,
    /// Scope queries of the annotation being read for the cache.
    recording: Option<type_cache::Recording<'s>>,
    /// End offset of the last consumed token.
    last_end: u32,
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
        if let Some(&t) = self.look.get(n) {
            return Ok(t);
        }
        while self.look.len() <= n {
            let t = self.lex.next_token()?;
            self.look.push_back(t);
        }
        Ok(self.look[n])
    }

    #[inline]
    fn peek(&mut self) -> R<Token> {
        match self.look.front() {
            Some(&t) => Ok(t),
            None => self.peek_n(0),
        }
    }

    fn bump(&mut self) -> R<Token> {
        let t = match self.look.pop_front() {
            Some(t) => t,
            None => self.lex.next_token()?,
        };
        self.last_end = t.end;
        Ok(t)
    }

    /// The shared copy of `text`.
    fn intern(&mut self, text: &str) -> Arc<str> {
        intern_in(&mut self.names, text)
    }

    /// The shared copy of callee `text`.
    fn intern_callee(&mut self, text: &str) -> SharedStr {
        intern_in(&mut self.callees, text)
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

    #[inline]
    fn is_op(&self, t: Token, s: &str) -> bool {
        t.kind == Tok::Op && t.op == lexer::op_code(s)
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
}
