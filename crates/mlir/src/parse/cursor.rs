//! Character-level scanning with positions: whitespace and comments,
//! identifiers, numbers, punctuation, and balanced bracket text.

use crate::ir::{Diagnostic, Location};

/// Nesting deeper than this is rejected (protects the stack).
pub const MAX_DEPTH: usize = 200;

/// A read error.
pub type PResult<T> = Result<T, Diagnostic>;

/// A cursor over the source bytes.
pub struct Cursor<'a> {
    src: &'a str,
    pos: usize,
    line_starts: Vec<usize>,
    line_offset: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `src`; locations add `line_offset` lines.
    pub fn new(src: &'a str, line_offset: u32) -> Cursor<'a> {
        let mut line_starts = vec![0];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Cursor {
            src,
            pos: 0,
            line_starts,
            line_offset,
        }
    }

    /// Current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to a byte offset obtained from [`Cursor::pos`].
    pub fn reset(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// The location of a byte offset.
    pub fn loc_at(&self, pos: usize) -> Location {
        let line = match self.line_starts.binary_search(&pos) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let col = self.src[self.line_starts[line]..pos.min(self.src.len())]
            .chars()
            .count();
        Location::new(line as u32 + 1 + self.line_offset, col as u32 + 1)
    }

    /// The location of the next token (after whitespace).
    pub fn loc(&mut self) -> Location {
        self.skip_ws();
        self.loc_at(self.pos)
    }

    /// An error at the next token.
    pub fn err<T>(&mut self, message: impl Into<String>) -> PResult<T> {
        let loc = self.loc();
        Err(Diagnostic::error(loc, message))
    }

    /// An error at a byte offset.
    pub fn err_at<T>(&self, pos: usize, message: impl Into<String>) -> PResult<T> {
        Err(Diagnostic::error(self.loc_at(pos), message))
    }

    /// The rest of the input.
    pub fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    /// Text between two offsets.
    pub fn slice(&self, from: usize, to: usize) -> &'a str {
        &self.src[from..to]
    }

    /// Skips whitespace and `//` comments.
    pub fn skip_ws(&mut self) {
        let bytes = self.src.as_bytes();
        while self.pos < bytes.len() {
            let b = bytes[self.pos];
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else if b == b'/' && bytes.get(self.pos + 1) == Some(&b'/') {
                while self.pos < bytes.len() && bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// Whether the input is exhausted (after whitespace).
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.src.len()
    }

    /// The next byte after whitespace.
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.src.as_bytes().get(self.pos).copied()
    }

    /// The byte at `pos + k` without skipping whitespace.
    pub fn peek_raw(&self, k: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + k).copied()
    }

    /// The byte just before the cursor.
    pub fn prev_raw(&self) -> Option<u8> {
        self.pos
            .checked_sub(1)
            .and_then(|p| self.src.as_bytes().get(p).copied())
    }

    /// Whether the next token starts with `s`.
    pub fn looking_at(&mut self, s: &str) -> bool {
        self.skip_ws();
        self.rest().starts_with(s)
    }

    /// Consumes `s` if the next token starts with it.
    pub fn eat(&mut self, s: &str) -> bool {
        if self.looking_at(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes `s` or fails with "expected `s`".
    pub fn expect(&mut self, s: &str) -> PResult<()> {
        if self.eat(s) {
            Ok(())
        } else {
            let found = self.describe_next();
            self.err(format!("expected '{s}', found {found}"))
        }
    }

    /// A short description of the next token for error messages.
    pub fn describe_next(&mut self) -> String {
        self.skip_ws();
        let rest = self.rest();
        if rest.is_empty() {
            return "end of input".to_string();
        }
        let tok: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace())
            .take(20)
            .collect();
        format!("'{tok}'")
    }

    /// Consumes a keyword (a bare identifier equal to `kw`, not followed by
    /// identifier characters).
    pub fn eat_keyword(&mut self, kw: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(kw) {
            let after = self.src.as_bytes().get(self.pos + kw.len()).copied();
            if !after.is_some_and(is_ident_char) {
                self.pos += kw.len();
                return true;
            }
        }
        false
    }

    /// Whether the next token, whitespace and comments skipped, is `<` (MLIR's
    /// lexer allows `strided <[1]>`, `memref <4xf32>`, `#a.b <x>`): if so
    /// the cursor is left on it.
    pub fn at_lt(&mut self) -> bool {
        let p = self.pos;
        self.skip_ws();
        if self.peek_raw(0) == Some(b'<') {
            return true;
        }
        self.pos = p;
        false
    }

    /// Whether the next token is the keyword `kw`.
    pub fn looking_at_keyword(&mut self, kw: &str) -> bool {
        let p = self.pos;
        let r = self.eat_keyword(kw);
        self.pos = p;
        r
    }

    /// Reads a bare identifier `[a-zA-Z_][a-zA-Z0-9_$.]*`.
    pub fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let bytes = self.src.as_bytes();
        let start = self.pos;
        match bytes.get(start) {
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {}
            _ => return None,
        }
        let mut end = start + 1;
        while end < bytes.len() && is_ident_char(bytes[end]) {
            end += 1;
        }
        self.pos = end;
        Some(&self.src[start..end])
    }

    /// Reads a bare identifier or fails.
    pub fn expect_ident(&mut self, what: &str) -> PResult<&'a str> {
        match self.ident() {
            Some(s) => Ok(s),
            None => {
                let found = self.describe_next();
                self.err(format!("expected {what}, found {found}"))
            }
        }
    }

    /// Reads the suffix of `%name`, `^bb`, `@sym` (after the sigil):
    /// `[a-zA-Z0-9_$.-]+`.
    pub fn suffix_id(&mut self) -> Option<&'a str> {
        let bytes = self.src.as_bytes();
        let start = self.pos;
        let mut end = start;
        while end < bytes.len() && (is_ident_char(bytes[end]) || bytes[end] == b'-') {
            end += 1;
        }
        if end == start {
            return None;
        }
        self.pos = end;
        Some(&self.src[start..end])
    }

    /// Reads a string literal and unescapes it.
    pub fn string(&mut self) -> PResult<String> {
        self.skip_ws();
        let start = self.pos;
        if self.peek_raw(0) != Some(b'"') {
            return self.err("expected string literal");
        }
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        let bytes = self.src.as_bytes();
        loop {
            match bytes.get(self.pos) {
                None | Some(b'\n') => return self.err_at(start, "unterminated string literal"),
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    let next = bytes.get(self.pos + 1).copied();
                    match next {
                        Some(b'"') => out.push(b'"'),
                        Some(b'\\') => out.push(b'\\'),
                        Some(b'n') => out.push(b'\n'),
                        Some(b't') => out.push(b'\t'),
                        Some(h) if h.is_ascii_hexdigit() => {
                            let l = bytes
                                .get(self.pos + 2)
                                .copied()
                                .filter(u8::is_ascii_hexdigit);
                            match l {
                                Some(l) => {
                                    let v = (hex(h) << 4) | hex(l);
                                    out.push(v);
                                    self.pos += 1;
                                }
                                None => return self.err_at(self.pos, "invalid escape in string"),
                            }
                        }
                        _ => return self.err_at(self.pos, "invalid escape in string"),
                    }
                    self.pos += 2;
                }
                Some(&b) => {
                    out.push(b);
                    self.pos += 1;
                }
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Reads text up to and including the bracket matching the opening
    /// bracket at the cursor (`<`, `(`, `[`, `{`), skipping over string
    /// literals. `->` inside does not count as a closing `>`.
    pub fn balanced(&mut self) -> PResult<&'a str> {
        self.skip_ws();
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let mut stack: Vec<u8> = Vec::new();
        let mut i = self.pos;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b'<' | b'(' | b'[' | b'{' => {
                    stack.push(b);
                    if stack.len() > MAX_DEPTH {
                        return self.err_at(i, "nesting too deep");
                    }
                }
                // `->` is an arrow, never a closing bracket.
                b'>' if i > 0 && bytes[i - 1] == b'-' => {}
                b'>' | b')' | b']' | b'}' => {
                    let open = match b {
                        b'>' => b'<',
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if stack.last() != Some(&open) {
                        return self.err_at(i, format!("unbalanced '{}'", b as char));
                    }
                    stack.pop();
                    if stack.is_empty() {
                        self.pos = i + 1;
                        return Ok(&self.src[start..i + 1]);
                    }
                }
                b'"' => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        if bytes[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                _ => {}
            }
            if stack.is_empty() {
                return self.err_at(start, "expected an opening bracket");
            }
            i += 1;
        }
        self.err_at(start, "unbalanced brackets: missing closing bracket")
    }

    /// Reads an integer literal (decimal or `0x` hex, optional `-`).
    pub fn integer(&mut self) -> Option<i128> {
        self.skip_ws();
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let mut i = start;
        let neg = bytes.get(i) == Some(&b'-');
        if neg {
            i += 1;
        }
        if bytes.get(i) == Some(&b'0') && bytes.get(i + 1) == Some(&b'x') {
            let hs = i + 2;
            let mut j = hs;
            while j < bytes.len() && bytes[j].is_ascii_hexdigit() {
                j += 1;
            }
            if j == hs {
                return None;
            }
            let v = u128::from_str_radix(&self.src[hs..j], 16).ok()? as i128;
            self.pos = j;
            return Some(if neg { -v } else { v });
        }
        let ds = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == ds {
            return None;
        }
        // A float is not an integer.
        if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: i128 = self.src[ds..i].parse().ok()?;
        self.pos = i;
        Some(if neg { -v } else { v })
    }

    /// Reads a float literal `[-]d+.d*([eE][+-]?d+)?` (also accepts plain
    /// integers when `allow_int`). Returns its value and text.
    pub fn float(&mut self, allow_int: bool) -> Option<(f64, &'a str)> {
        self.skip_ws();
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let mut i = start;
        if matches!(bytes.get(i), Some(b'-') | Some(b'+')) {
            i += 1;
        }
        let ds = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == ds {
            return None;
        }
        let mut is_float = false;
        if bytes.get(i) == Some(&b'.') {
            is_float = true;
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
        if matches!(bytes.get(i), Some(b'e') | Some(b'E')) {
            let mut j = i + 1;
            if matches!(bytes.get(j), Some(b'-') | Some(b'+')) {
                j += 1;
            }
            let es = j;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            if j > es {
                is_float = true;
                i = j;
            }
        }
        if !is_float && !allow_int {
            return None;
        }
        let text = &self.src[start..i];
        let v: f64 = text.parse().ok()?;
        self.pos = i;
        Some((v, text))
    }
}

fn hex(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

/// Whether `b` may continue a bare identifier.
pub fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')
}
