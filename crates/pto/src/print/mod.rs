//! The printer: [`Program`] to PyPTO program text.
//!
//! The output is the exact text PyPTO's own printer produces for the same
//! program: four-space indentation, one statement per line, `, ` between
//! arguments, minimal parentheses by Python precedence, string literals in
//! the quotes they were read with, `pl.const(N, pl.INT64)` where the
//! program has a `pl.const`. Printing what [`parse`](crate::parse::parse)
//! read reproduces the file byte for byte when it was already in this form;
//! otherwise the output is its canonical form (what `tilemem fmt` writes).

use std::fmt::Write as _;
use std::io;

use crate::ir::{
    BinOp, Expr, ForStmt, Function, IfStmt, MemRef, ParamDir, Program, Quote, StmtId, StmtKind,
    Trivia, Type, UnaryOp, VarId,
};

const INDENT: &str = "    ";

/// Bytes of text gathered before [`print_to`] hands them to its writer:
/// large enough that a file or pipe sees few writes, small against any
/// program worth streaming.
const CHUNK: usize = 64 * 1024;

/// Prints a whole program.
pub fn print(p: &Program) -> String {
    let mut out = String::with_capacity(estimate(p));
    print_program(p, &mut out, None);
    out
}

/// Prints a whole program into `w`, the same bytes [`print()`] returns,
/// without ever holding the whole text: the text is gathered in chunks of
/// about 64 KiB and written at statement boundaries. Stops writing at the
/// first error and returns it; what was written before it is the start of
/// the text (the caller decides what a partial output means: `tilemem`
/// writes into a temporary file it removes on failure). `w` is flushed at
/// the end.
pub fn print_to<W: io::Write + ?Sized>(p: &Program, w: &mut W) -> io::Result<()> {
    let mut out = String::with_capacity(CHUNK + 1024);
    let mut sink = Sink { w, error: None };
    print_program(p, &mut out, Some(&mut sink));
    sink.write(out.as_bytes());
    match sink.error {
        Some(e) => Err(e),
        None => sink.w.flush(),
    }
}

/// Where [`print_to`] sends full chunks; remembers the first write error.
struct Sink<'w, W: ?Sized> {
    w: &'w mut W,
    error: Option<io::Error>,
}

/// What the printer sees of a [`Sink`] (one printer for every writer).
trait Drain {
    /// Writes out a full chunk of `out`, keeping a final newline back: a
    /// program without a final newline drops the last one at the very end.
    fn drain(&mut self, out: &mut String);
}

impl<W: io::Write + ?Sized> Sink<'_, W> {
    fn write(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.w.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }
}

impl<W: io::Write + ?Sized> Drain for Sink<'_, W> {
    fn drain(&mut self, out: &mut String) {
        if out.len() < CHUNK {
            return;
        }
        let keep = usize::from(out.ends_with('\n'));
        self.write(&out.as_bytes()[..out.len() - keep]);
        out.drain(..out.len() - keep);
    }
}

/// The whole program into `out`, handing full chunks to `sink` when there
/// is one (at function and statement boundaries).
fn print_program(p: &Program, out: &mut String, mut sink: Option<&mut (dyn Drain + '_)>) {
    for line in &p.preamble {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("@pl.program\nclass ");
    out.push_str(&p.name);
    out.push_str(":\n");
    for f in &p.functions {
        print_function_into(f, out, sink.as_deref_mut());
    }
    print_trivia(&p.trailing, 1, out);
    if !p.final_newline && out.ends_with('\n') {
        out.pop();
    }
}

/// Prints one function (decorator, signature, body), each line ending in `\n`.
pub fn print_function(f: &Function) -> String {
    let mut out = String::new();
    print_function_into(f, &mut out, None);
    out
}

/// Prints one expression of function `f`.
pub fn print_expr(f: &Function, e: &Expr) -> String {
    let mut out = String::new();
    Printer::new(f, &mut out).expr(e, 0);
    out
}

/// Prints one type of function `f`.
pub fn print_type(f: &Function, t: &Type) -> String {
    let mut out = String::new();
    Printer::new(f, &mut out).ty(t);
    out
}

/// Prints one statement of `f` (and its nested blocks) at indentation level 0.
pub fn print_stmt(f: &Function, s: StmtId) -> String {
    let mut out = String::new();
    Printer::new(f, &mut out).stmt(s, 0, &[]);
    out
}

fn estimate(p: &Program) -> usize {
    p.functions
        .iter()
        .map(|f| 128 + f.stmts.len() * 120)
        .sum::<usize>()
        + 256
}

fn print_trivia(t: &[Trivia], level: usize, out: &mut String) {
    for item in t {
        match item {
            Trivia::Blank => out.push('\n'),
            Trivia::Comment(c) => {
                indent(level, out);
                out.push('#');
                out.push_str(c);
                out.push('\n');
            }
        }
    }
}

fn indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str(INDENT);
    }
}

fn print_function_into(f: &Function, out: &mut String, sink: Option<&mut (dyn Drain + '_)>) {
    print_trivia(&f.leading, 1, out);
    let mut p = Printer { f, out, sink };
    indent(1, p.out);
    p.out.push_str("@pl.function");
    if let Some(kw) = &f.decorator {
        p.out.push('(');
        for (i, k) in kw.iter().enumerate() {
            if i > 0 {
                p.out.push_str(", ");
            }
            p.out.push_str(&k.name);
            p.out.push('=');
            p.expr(&k.value, 0);
        }
        p.out.push(')');
    }
    p.out.push('\n');
    indent(1, p.out);
    p.out.push_str("def ");
    p.out.push_str(&f.name);
    p.out.push('(');
    let mut first = true;
    if f.has_self {
        p.out.push_str("self");
        first = false;
    }
    for param in &f.params {
        if !first {
            p.out.push_str(", ");
        }
        first = false;
        let v = &f.vars[param.var];
        p.out.push_str(&v.name);
        if let Some(t) = &v.ty {
            p.out.push_str(": ");
            match param.dir {
                ParamDir::In => p.ty(t),
                ParamDir::Out => {
                    p.out.push_str("pl.Out[");
                    p.ty(t);
                    p.out.push(']');
                }
                ParamDir::InOut => {
                    p.out.push_str("pl.InOut[");
                    p.ty(t);
                    p.out.push(']');
                }
            }
        }
    }
    p.out.push(')');
    if let Some(r) = &f.ret {
        p.out.push_str(" -> ");
        p.ty(r);
    }
    p.out.push_str(":\n");
    p.block(&f.body, 2, &[]);
}

struct Printer<'a, 's> {
    f: &'a Function,
    out: &'a mut String,
    /// Where full chunks go while printing (none: all stays in `out`).
    sink: Option<&'a mut (dyn Drain + 's)>,
}

impl<'a> Printer<'a, '_> {
    fn new(f: &'a Function, out: &'a mut String) -> Self {
        Printer { f, out, sink: None }
    }

    fn block(&mut self, stmts: &[StmtId], level: usize, results: &[VarId]) {
        for &s in stmts {
            self.stmt(s, level, results);
            if let Some(sink) = self.sink.as_deref_mut() {
                sink.drain(self.out);
            }
        }
        // A block without a statement (a pass removed its only one, say an
        // unused allocation) prints as `pass`, as PyPTO prints an empty
        // body: a header line with nothing indented under it would not
        // read back.
        let empty = stmts
            .iter()
            .all(|&s| matches!(self.f.stmts[s].kind, StmtKind::Blank | StmtKind::Comment(_)));
        if empty {
            indent(level, self.out);
            self.out.push_str("pass\n");
        }
    }

    fn stmt(&mut self, s: StmtId, level: usize, results: &[VarId]) {
        let st = &self.f.stmts[s];
        if let StmtKind::Blank = st.kind {
            self.out.push('\n');
            return;
        }
        indent(level, self.out);
        match &st.kind {
            StmtKind::Assign { targets, value } => {
                self.targets(targets);
                self.expr(value, 0);
            }
            StmtKind::Alloc {
                var,
                space,
                size,
                pinned,
            } => {
                // Byte-identical to the `Assign` the reader turned into it.
                self.targets(std::slice::from_ref(var));
                self.out.push_str("pl.tile.alloc(pl.Mem.");
                self.out.push_str(space.name());
                self.out.push_str(", ");
                push_u64(self.out, *size);
                if *pinned {
                    self.out.push_str(", pinned=True");
                }
                self.out.push(')');
            }
            StmtKind::Expr(e) => self.expr(e, 0),
            StmtKind::Yield(vals) => {
                self.targets(results);
                self.out.push_str("pl.yield_(");
                self.list(vals);
                self.out.push(')');
            }
            StmtKind::Return(vals) => {
                self.out.push_str("return");
                if !vals.is_empty() {
                    self.out.push(' ');
                    self.list(vals);
                }
            }
            StmtKind::Comment(c) => {
                self.out.push('#');
                self.out.push_str(c);
            }
            StmtKind::Blank => {}
            StmtKind::For(l) => {
                self.for_header(l);
                self.eol(self.f.comment(s));
                self.block(&l.body, level + 1, &l.results);
                return;
            }
            StmtKind::If(i) => {
                self.if_stmt(i, self.f.comment(s), level);
                return;
            }
            StmtKind::With(w) => {
                self.out.push_str("with ");
                self.call(&w.ctx.func, &w.ctx.args, &w.ctx.kwargs);
                self.out.push(':');
                self.eol(self.f.comment(s));
                self.block(&w.body, level + 1, &[]);
                return;
            }
        }
        self.eol(self.f.comment(s));
    }

    fn eol(&mut self, comment: Option<&str>) {
        if let Some(c) = comment {
            self.out.push_str("  #");
            self.out.push_str(c);
        }
        self.out.push('\n');
    }

    /// `x: T = `, `x = `, `a, b = ` or nothing.
    fn targets(&mut self, targets: &[VarId]) {
        match targets {
            [] => {}
            [v] => {
                let d = &self.f.vars[*v];
                self.out.push_str(&d.name);
                if let Some(t) = &d.ty {
                    self.out.push_str(": ");
                    self.ty(t);
                }
                self.out.push_str(" = ");
            }
            vs => {
                for (i, v) in vs.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push_str(&self.f.vars[*v].name);
                }
                self.out.push_str(" = ");
            }
        }
    }

    fn for_header(&mut self, l: &ForStmt) {
        self.out.push_str("for ");
        if let Some(v) = l.loop_var {
            self.out.push_str(&self.f.vars[v].name);
            if !l.iter_args.is_empty() {
                self.out.push_str(", ");
            }
        }
        if !l.iter_args.is_empty() {
            self.out.push('(');
            for (i, v) in l.iter_args.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(&self.f.vars[*v].name);
            }
            if l.iter_args.len() == 1 {
                self.out.push(',');
            }
            self.out.push(')');
        } else if l.loop_var.is_none() {
            self.out.push('_');
        }
        self.out.push_str(" in ");
        self.call(&l.iter.func, &l.iter.args, &l.iter.kwargs);
        self.out.push(':');
    }

    /// An `if` and, iteratively, its `elif` chain: an else branch holding
    /// only another `if` prints as `elif` (PyPTO never prints that shape;
    /// users write it), so a ladder reads back as the flat chain it was.
    fn if_stmt(&mut self, i: &IfStmt, comment: Option<&str>, level: usize) {
        let f = self.f;
        let (mut i, mut comment) = (i, comment);
        self.out.push_str("if ");
        loop {
            self.expr(&i.cond, 0);
            self.out.push(':');
            self.eol(comment);
            self.block(&i.then_body, level + 1, &i.results);
            // An empty else branch (a pass may leave one) is not printed:
            // `else:` without a body would not read back.
            let Some(e) = i.else_body.as_ref().filter(|e| !e.is_empty()) else {
                return;
            };
            indent(level, self.out);
            if let [s] = e[..] {
                if let StmtKind::If(inner) = &f.stmts[s].kind {
                    self.out.push_str("elif ");
                    (i, comment) = (inner, f.comment(s));
                    continue;
                }
            }
            self.out.push_str("else:\n");
            self.block(e, level + 1, &i.results);
            return;
        }
    }

    fn ty(&mut self, t: &Type) {
        match t {
            Type::Tensor(t, memref) => {
                // PyPTO prints a tensor's view before its MemRef.
                self.shaped_head("Tensor", &t.shape, t.dtype.name(), None);
                for e in &t.extras {
                    self.out.push_str(", ");
                    self.expr(e, 0);
                }
                if let Some(m) = &**memref {
                    self.out.push_str(", ");
                    self.memref(m);
                }
                self.out.push(']');
            }
            Type::Tile(t, memref) => {
                self.shaped_head("Tile", &t.shape, t.dtype.name(), memref.as_ref());
                if let Some(s) = &t.space {
                    self.out.push_str(", pl.Mem.");
                    self.out.push_str(s.name());
                }
                self.shaped_tail(&t.extras);
            }
            Type::Scalar(d) => {
                self.out.push_str("pl.Scalar[pl.");
                self.out.push_str(d.name());
                self.out.push(']');
            }
            Type::Ptr => self.out.push_str("pl.Ptr"),
            Type::Tuple(ts) => {
                self.out.push_str("pl.Tuple[");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.ty(t);
                }
                self.out.push(']');
            }
            Type::Other(e) => self.expr(e, 0),
        }
    }

    /// `pl.KIND[[dims], pl.DTYPE` and `, pl.MemRef(...)` when there is one:
    /// the start tensor and tile types share.
    fn shaped_head(&mut self, kind: &str, shape: &[Expr], dtype: &str, memref: Option<&MemRef>) {
        self.out.push_str("pl.");
        self.out.push_str(kind);
        self.out.push_str("[[");
        self.list(shape);
        self.out.push_str("], pl.");
        self.out.push_str(dtype);
        if let Some(m) = memref {
            self.out.push_str(", ");
            self.memref(m);
        }
    }

    /// `, EXTRA...]`: the end tensor and tile types share.
    fn shaped_tail(&mut self, extras: &[Expr]) {
        for e in extras {
            self.out.push_str(", ");
            self.expr(e, 0);
        }
        self.out.push(']');
    }

    fn memref(&mut self, m: &MemRef) {
        self.out.push_str("pl.MemRef(");
        match (m.base_var(), m.base_name()) {
            (Some(v), _) => self.out.push_str(&self.f.vars[v].name),
            (None, name) => self.string(name.unwrap_or_default(), Quote::Double),
        }
        if let Some(o) = &m.offset() {
            self.out.push_str(", ");
            self.expr(o, 0);
            if let Some(s) = m.size() {
                self.out.push_str(", ");
                push_u64(self.out, s);
            }
        }
        if let Some(n) = m.slots() {
            self.out.push_str(", slots=");
            push_u64(self.out, n);
        }
        self.out.push(')');
        if let Some(k) = m.slot_index() {
            self.out.push('[');
            self.expr(k, 0);
            self.out.push(']');
        }
    }

    fn list(&mut self, es: &[Expr]) {
        for (i, e) in es.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(e, 0);
        }
    }

    fn call(&mut self, func: &str, args: &[Expr], kwargs: &[crate::ir::Kwarg]) {
        self.out.push_str(func);
        self.out.push('(');
        self.list(args);
        for (i, k) in kwargs.iter().enumerate() {
            if i > 0 || !args.is_empty() {
                self.out.push_str(", ");
            }
            self.out.push_str(&k.name);
            self.out.push('=');
            self.expr(&k.value, 0);
        }
        self.out.push(')');
    }

    fn string(&mut self, s: &str, q: Quote) {
        let qc = match q {
            Quote::Single => '\'',
            Quote::Double => '"',
        };
        self.out.push(qc);
        for c in s.chars() {
            match c {
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\t' => self.out.push_str("\\t"),
                '\r' => self.out.push_str("\\r"),
                c if c == qc => {
                    self.out.push('\\');
                    self.out.push(c);
                }
                c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                    let _ = write!(self.out, "\\x{:02x}", c as u32);
                }
                c => self.out.push(c),
            }
        }
        self.out.push(qc);
    }

    /// Prints `e`, parenthesized when it binds looser than `min`.
    fn expr(&mut self, e: &Expr, min: u8) {
        let p = precedence(e);
        if p < min {
            self.out.push('(');
            self.expr_inner(e);
            self.out.push(')');
        } else {
            self.expr_inner(e);
        }
    }

    fn expr_inner(&mut self, e: &Expr) {
        match e {
            Expr::Var(v) => self.out.push_str(&self.f.vars[*v].name),
            Expr::Path(p) => self.out.push_str(p),
            Expr::Int(n) => {
                push_i64(self.out, *n);
            }
            Expr::Float(t) => self.out.push_str(t),
            Expr::Bool(true) => self.out.push_str("True"),
            Expr::Bool(false) => self.out.push_str("False"),
            Expr::None => self.out.push_str("None"),
            Expr::Str(s, q) => self.string(s, *q),
            Expr::Const(n, d) => {
                self.out.push_str("pl.const(");
                push_i64(self.out, *n);
                self.out.push_str(", pl.");
                self.out.push_str(d.name());
                self.out.push(')');
            }
            Expr::Call(c) => self.call(&c.func, &c.args, &c.kwargs),
            Expr::Binary(op, a, b) => {
                let p = op.precedence();
                let (lmin, rmin) = match op {
                    BinOp::Pow => (p + 1, UnaryOp::Neg.precedence()),
                    _ if op.is_comparison() => (p + 1, p + 1),
                    _ => (p, p + 1),
                };
                self.expr(a, lmin);
                self.out.push(' ');
                self.out.push_str(op.symbol());
                self.out.push(' ');
                self.expr(b, rmin);
            }
            Expr::Unary(op, a) => {
                self.out.push_str(op.symbol());
                self.expr(a, op.precedence());
            }
            Expr::Index(base, idx) => {
                self.expr(base, ATOM);
                self.out.push('[');
                match &**idx {
                    Expr::Tuple(v) if !v.is_empty() => self.list(v),
                    other => self.expr(other, 0),
                }
                self.out.push(']');
            }
            Expr::Attr(base, name) => {
                // `1.x` would read back as the float `1.`.
                let min = if matches!(**base, Expr::Int(_) | Expr::Float(_)) {
                    ATOM + 1
                } else {
                    ATOM
                };
                self.expr(base, min);
                self.out.push('.');
                self.out.push_str(name);
            }
            Expr::Tuple(v) => {
                self.out.push('(');
                self.list(v);
                if v.len() == 1 {
                    self.out.push(',');
                }
                self.out.push(')');
            }
            Expr::List(v) => {
                self.out.push('[');
                self.list(v);
                self.out.push(']');
            }
            Expr::Dict(v) => {
                self.out.push('{');
                for (i, (k, x)) in v.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(k, 0);
                    self.out.push_str(": ");
                    self.expr(x, 0);
                }
                self.out.push('}');
            }
        }
    }
}

/// Precedence of atoms (names, literals, calls, displays).
const ATOM: u8 = 100;

fn precedence(e: &Expr) -> u8 {
    match e {
        Expr::Binary(op, ..) => op.precedence(),
        Expr::Unary(op, _) => op.precedence(),
        Expr::Int(n) if *n < 0 => UnaryOp::Neg.precedence(),
        Expr::Float(t) if t.starts_with('-') => UnaryOp::Neg.precedence(),
        _ => ATOM,
    }
}

/// Appends `n` in decimal (without the formatting machinery: integers are
/// the most frequent tokens of a dump).
fn push_u64(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(buf[i..].iter().map(|&b| b as char));
}

/// Appends `n` in decimal, with a leading `-` when negative.
fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_u64(out, n.unsigned_abs());
}
