//! The program class and its `@pl.function`s: decorators, signatures.

use crate::ir::{Function, Param, ParamDir, Program, Trivia, VarDef};

use super::lexer::{Tok, Token};
use super::{Parser, R};

impl<'s> Parser<'s> {
    pub(super) fn program(&mut self, preamble: Vec<Box<str>>) -> R<Program> {
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
        self.expect_indent("an indented class body with `@pl.function` methods")?;
        self.bump()?;
        let mut functions = Vec::new();
        loop {
            self.trivia_into(&mut leading)?;
            let Some(t) = self.next_in_block()? else {
                break;
            };
            if !self.is_op(t, "@") {
                return Err(self.expected(t, "`@pl.function`"));
            }
            let f = self.function(std::mem::take(&mut leading))?;
            functions.push(f);
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
    pub(super) fn trivia_into(&mut self, out: &mut Vec<Trivia>) -> R<()> {
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
    pub(super) fn expect_path(&mut self, parts: &[&str], what: &str) -> R<()> {
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

    pub(super) fn function(&mut self, leading: Vec<Trivia>) -> R<Function> {
        self.bump()?; // `@`
        self.f = Function::new("");
        self.scope.clear();
        self.ty_cache.clear();
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
            self.f.ret = Some(self.ty_cached()?);
        }
        self.expect_op(":", "`:` after the signature")?;
        self.end_of_line()?;
        let body = self.suite()?;
        self.f.body = body;
        Ok(std::mem::replace(&mut self.f, Function::new("")))
    }

    /// Sizes the arenas from the number of lines up to the next decorator
    /// at class level, so large bodies do not regrow (and copy) them.
    pub(super) fn reserve_for_body(&mut self, def: Token) {
        let rest = self.src.get(def.start as usize..).unwrap_or("");
        // Up to the next function (each scan stops there: linear overall).
        // `@` is rare: jump between them with the byte search `find(char)`
        // uses, and stop at a class-level decorator or an `@pl.function`.
        let mut end = rest.len();
        let mut from = 1.min(rest.len());
        while let Some(k) = rest.get(from..).and_then(|r| r.find('@')) {
            let at = from + k;
            if rest[..at].ends_with("\n    ") {
                end = at - 5;
                break;
            }
            if rest[at..].starts_with("@pl.function") {
                end = at;
                break;
            }
            from = at + 1;
        }
        // Byte-wide sums over 255-byte chunks cannot overflow and compile
        // to vector compares (a plain filter-count does not).
        let lines = rest.as_bytes()[..end]
            .chunks(255)
            .map(|c| usize::from(c.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>()))
            .sum::<usize>()
            + 1;
        self.f.stmts.reserve(lines);
        self.f.reserve_positions(lines);
        self.f.vars.reserve(lines + 8);
        self.scope.reserve(lines + 8, &self.f.vars);
    }

    pub(super) fn params(&mut self) -> R<()> {
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
                    ty = Some(self.ty_cached()?);
                    if dir != ParamDir::In {
                        self.expect_op("]", "`]` to close the direction wrapper")?;
                    }
                }
                let v = self.bind(name, ty, VarDef::Param(index));
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
    pub(super) fn param_dir(&mut self) -> R<ParamDir> {
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
}
