//! Tokens of the Python subset PyPTO prints, produced on demand.
//!
//! Indentation becomes `Indent`/`Dedent` tokens; newlines inside brackets
//! and after a `\` are continuations; own-line comments and blank lines
//! become `Comment`/`Blank` trivia tokens placed in the block their
//! indentation (or, for blank lines, the next line's) belongs to.

use std::collections::VecDeque;

use crate::diag::ParseError;

/// Token kinds. Text is recovered from the token's span.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// Identifier or keyword.
    Name,
    /// Integer literal.
    Int,
    /// Float literal.
    Float,
    /// String literal (span includes the quotes).
    Str,
    /// Punctuation or operator (span is its text).
    Op,
    /// End of a logical line.
    Newline,
    /// Deeper indentation starts a block.
    Indent,
    /// A block ends.
    Dedent,
    /// Own-line comment (span from `#` to end of line).
    Comment,
    /// Blank line.
    Blank,
    /// `# ...` after code on the same line (span from `#`).
    EolComment,
    /// End of input.
    Eof,
}

/// A token with its position.
#[derive(Copy, Clone, Debug)]
pub struct Token {
    /// Kind.
    pub kind: Tok,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset past the last byte.
    pub end: u32,
    /// Line, from 1.
    pub line: u32,
    /// Byte offset of the line's first byte.
    pub line_start: u32,
    /// For `Op` tokens, [`op_code`] of the text (0 otherwise), so the
    /// parser compares punctuation without touching the source.
    pub op: u16,
}

/// Packs the first two bytes of an operator (`"**"`, `"("`) into a code.
pub const fn op_code(s: &str) -> u16 {
    let b = s.as_bytes();
    let lo = if b.is_empty() { 0 } else { b[0] as u16 };
    let hi = if b.len() > 1 { b[1] as u16 } else { 0 };
    lo | (hi << 8)
}

struct Pending {
    kind: Tok,
    start: u32,
    end: u32,
    line: u32,
    line_start: u32,
    indent: Option<u32>,
}

/// On-demand tokenizer.
pub struct Lexer<'s> {
    src: &'s str,
    bytes: &'s [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    at_line_start: bool,
    indents: Vec<u32>,
    brackets: Vec<(u8, Token)>,
    queue: VecDeque<Token>,
    carried_comment: Option<Token>,
    done: bool,
}

/// Largest input the reader accepts (positions are 32-bit).
pub const MAX_INPUT: usize = u32::MAX as usize - 1;

impl<'s> Lexer<'s> {
    /// Lexes `src` starting at byte `pos`, which must begin line `line`.
    pub fn new(src: &'s str, pos: usize, line: u32) -> Lexer<'s> {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos,
            line,
            line_start: pos,
            at_line_start: true,
            indents: vec![0],
            brackets: Vec::new(),
            queue: VecDeque::new(),
            carried_comment: None,
            done: false,
        }
    }

    /// Moves to byte `pos` of the current line, past text the caller has
    /// already read, when nothing is pending (no queued tokens or carried
    /// comment, not at a line start). The skipped text must lie on the
    /// current line and have balanced brackets. Returns whether it moved.
    pub(crate) fn skip_to(&mut self, pos: usize) -> bool {
        if !self.queue.is_empty()
            || self.carried_comment.is_some()
            || self.at_line_start
            || self.done
            || pos < self.pos
            || pos > self.bytes.len()
        {
            return false;
        }
        self.pos = pos;
        true
    }

    /// The source text.
    pub fn src(&self) -> &'s str {
        self.src
    }

    fn tok(&self, kind: Tok, start: usize, end: usize) -> Token {
        Token {
            kind,
            start: start as u32,
            end: end as u32,
            line: self.line,
            line_start: self.line_start as u32,
            op: 0,
        }
    }

    fn err_at(&self, start: usize, len: usize, message: String, label: &str) -> Box<ParseError> {
        let prefix = self
            .src
            .get(self.line_start..start.min(self.src.len()))
            .unwrap_or("");
        Box::new(ParseError {
            line: self.line,
            col: prefix.chars().count() as u32 + 1,
            len: len.max(1) as u32,
            message,
            label: label.into(),
        })
    }

    /// The next token.
    pub fn next_token(&mut self) -> Result<Token, Box<ParseError>> {
        loop {
            if let Some(t) = self.queue.pop_front() {
                return Ok(t);
            }
            if self.done {
                return Ok(self.tok(Tok::Eof, self.pos, self.pos));
            }
            if self.at_line_start && self.brackets.is_empty() {
                self.line_starts()?;
                continue;
            }
            return self.lex_one();
        }
    }

    /// Consumes whole lines until a code line, queuing trivia, indentation
    /// changes, or the end-of-input dedents.
    fn line_starts(&mut self) -> Result<(), Box<ParseError>> {
        let mut pending: Vec<Pending> = Vec::new();
        loop {
            if self.pos >= self.bytes.len() {
                let _ = self.resolve(pending, 0);
                self.done = true;
                return Ok(());
            }
            let (width, after) = self.measure_indent();
            let c = self.bytes.get(after).copied();
            match c {
                None | Some(b'\n') | Some(b'\r') => {
                    let end = self.line_end(after);
                    pending.push(Pending {
                        kind: Tok::Blank,
                        start: after as u32,
                        end: after as u32,
                        line: self.line,
                        line_start: self.line_start as u32,
                        indent: None,
                    });
                    self.next_line(end);
                }
                Some(b'#') => {
                    let end = self.line_end(after);
                    let text_end = trim_cr(self.bytes, after, end);
                    pending.push(Pending {
                        kind: Tok::Comment,
                        start: after as u32,
                        end: text_end as u32,
                        line: self.line,
                        line_start: self.line_start as u32,
                        indent: Some(width),
                    });
                    self.next_line(end);
                }
                Some(_) => {
                    self.pos = after;
                    self.at_line_start = false;
                    let dedented = self.resolve(pending, width);
                    let top = self.top();
                    if width > top && !dedented {
                        self.indents.push(width);
                        self.queue.push_back(self.tok(Tok::Indent, after, after));
                    } else if width != top {
                        return Err(self.err_at(
                            after,
                            1,
                            "unindent does not match any outer indentation level".into(),
                            "align this line with an enclosing block",
                        ));
                    }
                    return Ok(());
                }
            }
        }
    }

    /// Queues trivia and dedents before a code line of indentation `width`;
    /// returns whether any block was closed.
    fn resolve(&mut self, mut pending: Vec<Pending>, width: u32) -> bool {
        let mut closed = false;
        let mut next = width;
        for p in pending.iter_mut().rev() {
            match p.indent {
                Some(i) => next = i,
                None => p.indent = Some(next),
            }
        }
        for p in pending {
            let ind = p.indent.unwrap_or(width);
            while self.indents.len() > 1 && self.top() > ind.max(width) {
                self.indents.pop();
                closed = true;
                self.queue
                    .push_back(self.dedent_at(p.start, p.line, p.line_start));
            }
            if width > self.top() && ind >= width {
                self.indents.push(width);
                let mut t = self.dedent_at(p.start, p.line, p.line_start);
                t.kind = Tok::Indent;
                self.queue.push_back(t);
            }
            self.queue.push_back(Token {
                kind: p.kind,
                start: p.start,
                end: p.end,
                line: p.line,
                line_start: p.line_start,
                op: 0,
            });
        }
        while self.indents.len() > 1 && self.top() > width {
            self.indents.pop();
            closed = true;
            let t = self.tok(Tok::Dedent, self.pos, self.pos);
            self.queue.push_back(t);
        }
        closed
    }

    fn dedent_at(&self, start: u32, line: u32, line_start: u32) -> Token {
        Token {
            kind: Tok::Dedent,
            start,
            end: start,
            line,
            line_start,
            op: 0,
        }
    }

    fn top(&self) -> u32 {
        self.indents.last().copied().unwrap_or(0)
    }

    /// Indentation width of the line at `self.pos` (tabs to multiples of 8)
    /// and the offset of its first non-blank byte.
    fn measure_indent(&self) -> (u32, usize) {
        let mut w: u32 = 0;
        let mut i = self.pos;
        while let Some(&c) = self.bytes.get(i) {
            match c {
                b' ' => w = w.saturating_add(1),
                b'\t' => w = (w / 8 + 1).saturating_mul(8),
                b'\x0c' => w = 0,
                _ => break,
            }
            i += 1;
        }
        (w, i)
    }

    /// Offset of the `\n` ending the line containing `from` (or the input end).
    fn line_end(&self, from: usize) -> usize {
        match self.bytes[from.min(self.bytes.len())..]
            .iter()
            .position(|&c| c == b'\n')
        {
            Some(k) => from + k,
            None => self.bytes.len(),
        }
    }

    /// Moves to the line after the `\n` at `nl` (or to the end).
    fn next_line(&mut self, nl: usize) {
        if nl >= self.bytes.len() {
            self.pos = self.bytes.len();
        } else {
            self.pos = nl + 1;
            self.line += 1;
            self.line_start = self.pos;
        }
    }

    fn lex_one(&mut self) -> Result<Token, Box<ParseError>> {
        // Skip spaces, continuation lines, and (inside brackets) newlines and comments.
        loop {
            let Some(&c) = self.bytes.get(self.pos) else {
                if let Some((open, t)) = self.brackets.last() {
                    let (open, t) = (*open, *t);
                    self.line = t.line;
                    self.line_start = t.line_start as usize;
                    return Err(self.err_at(
                        t.start as usize,
                        1,
                        format!("`{}` is never closed", open as char),
                        &format!("add the matching `{}`", closing(open) as char),
                    ));
                }
                let t = self.tok(Tok::Newline, self.pos, self.pos);
                self.at_line_start = true;
                return Ok(t);
            };
            match c {
                b' ' | b'\t' | b'\x0c' => self.pos += 1,
                b'\r' if self.bytes.get(self.pos + 1) == Some(&b'\n') => self.pos += 1,
                b'\\' => {
                    let mut k = self.pos + 1;
                    if self.bytes.get(k) == Some(&b'\r') {
                        k += 1;
                    }
                    if self.bytes.get(k) == Some(&b'\n') {
                        self.next_line(k);
                    } else {
                        return Err(self.err_at(
                            self.pos,
                            1,
                            "unexpected `\\` (a line continuation must end its line)".into(),
                            "remove it",
                        ));
                    }
                }
                b'\n' => {
                    if self.brackets.is_empty() {
                        let t = self.tok(Tok::Newline, self.pos, self.pos + 1);
                        self.next_line(self.pos);
                        self.at_line_start = true;
                        if let Some(mut c) = self.carried_comment.take() {
                            c.kind = Tok::EolComment;
                            self.queue.push_back(t);
                            return Ok(c);
                        }
                        return Ok(t);
                    }
                    self.next_line(self.pos);
                }
                b'#' => {
                    let end = self.line_end(self.pos);
                    let text_end = trim_cr(self.bytes, self.pos, end);
                    let t = self.tok(Tok::EolComment, self.pos, text_end);
                    self.pos = end;
                    if self.brackets.is_empty() {
                        self.carried_comment = None;
                        return Ok(t);
                    }
                    // A comment inside a bracketed continuation moves to the
                    // end of the logical line.
                    if self.carried_comment.is_none() {
                        self.carried_comment = Some(t);
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let c = self.bytes[start];
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            let mut i = start + 1;
            while self.bytes.get(i).is_some_and(|&d| IDENT[usize::from(d)]) {
                i += 1;
            }
            // Identifiers may contain non-ASCII letters; stop on a char boundary.
            while !self.src.is_char_boundary(i) {
                i += 1;
            }
            self.pos = i;
            return Ok(self.tok(Tok::Name, start, i));
        }
        if c.is_ascii_digit()
            || (c == b'.' && self.bytes.get(start + 1).is_some_and(u8::is_ascii_digit))
        {
            return self.number(start);
        }
        if c == b'"' || c == b'\'' {
            return self.string(start, c);
        }
        let two = self.bytes.get(start..start + 2).unwrap_or(&[]);
        let len = match two {
            b"**" | b"//" | b"<<" | b">>" | b"<=" | b">=" | b"==" | b"!=" | b"->" => 2,
            _ => match c {
                b'(' | b'[' | b'{' => {
                    let t = self.tok(Tok::Op, start, start + 1);
                    self.brackets.push((c, t));
                    1
                }
                b')' | b']' | b'}' => {
                    match self.brackets.last() {
                        Some(&(open, _)) if closing(open) == c => {
                            self.brackets.pop();
                        }
                        Some(&(open, _)) => {
                            return Err(self.err_at(
                                start,
                                1,
                                format!(
                                    "`{}` does not match the open `{}`",
                                    c as char, open as char
                                ),
                                &format!("expected `{}`", closing(open) as char),
                            ))
                        }
                        None => {
                            return Err(self.err_at(
                                start,
                                1,
                                format!("unmatched `{}`", c as char),
                                "nothing to close here",
                            ))
                        }
                    }
                    1
                }
                b',' | b':' | b'.' | b'=' | b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>'
                | b'&' | b'|' | b'^' | b'~' | b'@' | b';' => 1,
                _ => {
                    let ch = self.src[start..].chars().next().unwrap_or('?');
                    return Err(self.err_at(
                        start,
                        1,
                        format!("unexpected character `{}`", ch.escape_debug()),
                        "not part of the PyPTO program syntax",
                    ));
                }
            },
        };
        self.pos = start + len;
        let mut t = self.tok(Tok::Op, start, start + len);
        t.op = u16::from(c) | if len == 2 { u16::from(two[1]) << 8 } else { 0 };
        Ok(t)
    }

    fn number(&mut self, start: usize) -> Result<Token, Box<ParseError>> {
        let b = self.bytes;
        let mut i = start;
        let mut float = false;
        if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B')) {
            i += 2;
            while b
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            {
                i += 1;
            }
        } else {
            while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
                i += 1;
            }
            if b.get(i) == Some(&b'.') {
                float = true;
                i += 1;
                while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
                    i += 1;
                }
            }
            if matches!(b.get(i), Some(b'e' | b'E')) {
                let mut k = i + 1;
                if matches!(b.get(k), Some(b'+' | b'-')) {
                    k += 1;
                }
                if b.get(k).is_some_and(u8::is_ascii_digit) {
                    float = true;
                    i = k;
                    while b.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                }
            }
        }
        if b.get(i)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            return Err(self.err_at(
                start,
                i + 1 - start,
                "invalid number literal".into(),
                "write a decimal integer or a float",
            ));
        }
        self.pos = i;
        Ok(self.tok(if float { Tok::Float } else { Tok::Int }, start, i))
    }

    fn string(&mut self, start: usize, q: u8) -> Result<Token, Box<ParseError>> {
        if self.bytes.get(start + 1) == Some(&q) && self.bytes.get(start + 2) == Some(&q) {
            return Err(self.err_at(
                start,
                3,
                "triple-quoted strings are not supported".into(),
                "use a `#` comment or a one-line string",
            ));
        }
        let mut i = start + 1;
        loop {
            match self.bytes.get(i) {
                None | Some(b'\n') => {
                    return Err(self.err_at(
                        start,
                        1,
                        "string literal is not terminated".into(),
                        &format!("close it with `{}` on the same line", q as char),
                    ))
                }
                Some(b'\\') if self.bytes.get(i + 1).is_some_and(|&c| c != b'\n') => i += 2,
                Some(&c) if c == q => break,
                Some(_) => i += 1,
            }
        }
        self.pos = i + 1;
        Ok(self.tok(Tok::Str, start, i + 1))
    }
}

/// Bytes that continue an identifier: ASCII letters, digits, `_` and any
/// byte of a non-ASCII character.
static IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        b += 1;
    }
    t
};

fn closing(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        _ => b'}',
    }
}

/// The end of a comment's text without its trailing carriage returns:
/// all of them, not only a `\r\n`'s, since the printer ends the line with
/// `\n` alone and a second read must find the same text.
fn trim_cr(bytes: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && bytes.get(end - 1) == Some(&b'\r') {
        end -= 1;
    }
    end
}
