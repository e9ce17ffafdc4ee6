//! Statements. Statements live in the function's statement arena
//! ([`Function::stmts`](super::Function::stmts)); blocks are ordered lists of
//! [`StmtId`]s, so passes can attach facts to statements in side tables and
//! reorder or insert without moving statement data.

use super::entity::entity;
use super::expr::{Call, Expr};
use super::targets::Targets;
use super::var::VarId;
use tilemem_soc::MemSpace;

entity!(
    /// A statement of one function (index into [`Function::stmts`](super::Function::stmts)).
    StmtId,
    "s"
);

/// Source position (1-based line and column); `0:0` for synthesized items.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column (in characters), from 1.
    pub col: u32,
}

/// A statement. Its end-of-line comment, which few statements have, and
/// its source position, which the statements passes add lack, are in the
/// function's side tables ([`Function::comment`](super::Function::comment),
/// [`Function::pos_of`](super::Function::pos_of)).
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What the statement does.
    pub kind: StmtKind,
}

impl Stmt {
    /// A statement (with no position until one is set).
    pub fn new(kind: StmtKind) -> Stmt {
        Stmt { kind }
    }

    /// The call on the right of an assignment or of an expression statement.
    pub fn call(&self) -> Option<&Call> {
        match &self.kind {
            StmtKind::Assign { value, .. } | StmtKind::Expr(value) => value.as_call(),
            _ => None,
        }
    }

    /// The call on the right of an assignment or expression statement, mutable.
    pub fn call_mut(&mut self) -> Option<&mut Call> {
        match &mut self.kind {
            StmtKind::Assign { value, .. } | StmtKind::Expr(value) => value.as_call_mut(),
            _ => None,
        }
    }

    /// The single variable an assignment (or an allocation) defines.
    pub fn def(&self) -> Option<VarId> {
        match &self.kind {
            StmtKind::Assign { targets, .. } if targets.len() == 1 => Some(targets[0]),
            StmtKind::Alloc { var, .. } => Some(*var),
            _ => None,
        }
    }

    /// The variables an assignment or an allocation defines (empty for
    /// other statements; results of `for`/`if` are theirs).
    pub fn targets(&self) -> &[VarId] {
        match &self.kind {
            StmtKind::Assign { targets, .. } => targets,
            StmtKind::Alloc { var, .. } => std::slice::from_ref(var),
            _ => &[],
        }
    }

    /// Calls `f` on every variable this statement itself defines: an
    /// assignment's targets, an allocation's variable, a loop's variable,
    /// iter args and results, an `if`'s results (not its blocks' names).
    pub fn for_each_def(&self, f: &mut impl FnMut(VarId)) {
        self.targets().iter().copied().for_each(&mut *f);
        match &self.kind {
            StmtKind::For(l) => {
                l.loop_var.into_iter().for_each(&mut *f);
                l.iter_args.iter().copied().for_each(&mut *f);
                l.results.iter().copied().for_each(&mut *f);
            }
            StmtKind::If(i) => i.results.iter().copied().for_each(&mut *f),
            _ => {}
        }
    }

    /// Calls `f` on every variable read by this statement itself (not by
    /// nested blocks): right-hand sides, loop bounds and `init_values`, `if`
    /// conditions, yielded and returned values.
    pub fn for_each_use(&self, f: &mut impl FnMut(VarId)) {
        match &self.kind {
            StmtKind::Assign { value, .. } | StmtKind::Expr(value) => value.for_each_var(f),
            StmtKind::For(l) => {
                l.iter.args.iter().for_each(|a| a.for_each_var(f));
                l.iter.kwargs.iter().for_each(|k| k.value.for_each_var(f));
            }
            StmtKind::If(i) => i.cond.for_each_var(f),
            StmtKind::With(w) => {
                w.ctx.args.iter().for_each(|a| a.for_each_var(f));
                w.ctx.kwargs.iter().for_each(|k| k.value.for_each_var(f));
            }
            StmtKind::Yield(v) | StmtKind::Return(v) => v.iter().for_each(|e| e.for_each_var(f)),
            StmtKind::Alloc { .. } | StmtKind::Comment(_) | StmtKind::Blank => {}
        }
    }
}

/// Statement kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `x: T = value` (one target with a type), `x = value` (one target
    /// without one) or `a, b = value`. Target types live in the variable
    /// table; the printer writes the annotation iff there is exactly one
    /// target and it has a type.
    Assign {
        /// Defined variables (one inline, derefs to `&[VarId]`).
        targets: Targets,
        /// Right-hand side (a call, or a variable for a bare alias).
        value: Expr,
    },
    /// `var: pl.Ptr = pl.tile.alloc(pl.Mem.SPACE, SIZE[, pinned=True])`,
    /// the allocation InitMemRef adds for every tile, held without a call
    /// (a few dozen bytes instead of a call with its argument list). The
    /// reader produces it for exactly this text; any other spelling of an
    /// allocation (`pinned=False`, a computed size) stays an `Assign`.
    /// Passes read both through [`Function::alloc_at`](super::Function::alloc_at)
    /// and [`Stmt::def`]; it reads no variable.
    Alloc {
        /// The allocation variable (typed `pl.Ptr`), the MemRef root.
        var: VarId,
        /// Memory space.
        space: MemSpace,
        /// Byte size.
        size: u64,
        /// `pinned=True`: author-declared, not to be merged or resized.
        pinned: bool,
    },
    /// An expression evaluated for effect (`pl.tile.store(...)`, `pl.cond(c)`,
    /// `pl.func_attr({...})`).
    Expr(Expr),
    /// A loop (`for ... in pl.range/parallel/unroll/pipeline/while_(...)`).
    /// Boxed, like `If` and `With`: they are rare, and inline they would
    /// triple the size of every statement.
    For(Box<ForStmt>),
    /// `if cond:` ... `else:` ...
    If(Box<IfStmt>),
    /// `with CTX:` BODY (PyPTO's `with pl.scope(mode=...):` blocks of
    /// orchestration code): the body runs once, in place; names it defines
    /// stay visible after the block, as in Python.
    With(Box<WithStmt>),
    /// `pl.yield_(values)`. Its left-hand side is not stored here: it is
    /// the `results` of the innermost enclosing loop or `if`.
    Yield(Vec<Expr>),
    /// `return a, b`.
    Return(Vec<Expr>),
    /// A comment on its own line (text after `#`).
    Comment(Box<str>),
    /// An empty line (kept in hand-written programs).
    Blank,
}

impl StmtKind {
    /// The statement `var: pl.Ptr = pl.tile.alloc(pl.Mem.SPACE, SIZE[, pinned=True])`
    /// (`var` is typed `pl.Ptr`). A size past `i64::MAX` is written as
    /// `i64::MAX`, like an integer literal.
    pub fn alloc(var: VarId, space: &MemSpace, size: u64, pinned: bool) -> StmtKind {
        StmtKind::Alloc {
            var,
            space: *space,
            size: size.min(i64::MAX as u64),
            pinned,
        }
    }
}

/// Iterator kinds of a `for` statement, from the callee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// `pl.range`.
    Range,
    /// `pl.parallel`.
    Parallel,
    /// `pl.unroll`.
    Unroll,
    /// `pl.pipeline`.
    Pipeline,
    /// `pl.while_`.
    While,
    /// Any other callee.
    Other,
}

/// `for LOOP_VAR, (ITER_ARGS,) in ITER:` BODY, whose final `pl.yield_`
/// defines `results`.
#[derive(Clone, Debug, PartialEq)]
pub struct ForStmt {
    /// The iterator call as written, including `init_values=(...)`, `stage=`,
    /// `attrs=` keywords, in source order.
    pub iter: Call,
    /// Induction variable (`None` for `pl.while_`).
    pub loop_var: Option<VarId>,
    /// Loop-carried variables (`(acc,)`), bound to `init_values` on entry
    /// and to the yielded values on each further iteration.
    pub iter_args: Vec<VarId>,
    /// Statements.
    pub body: Vec<StmtId>,
    /// Values after the loop (left side of the body's `pl.yield_`).
    pub results: Vec<VarId>,
}

impl ForStmt {
    /// The loop kind named by the iterator callee.
    pub fn kind(&self) -> LoopKind {
        match self.iter.op_name() {
            "range" => LoopKind::Range,
            "parallel" => LoopKind::Parallel,
            "unroll" => LoopKind::Unroll,
            "pipeline" => LoopKind::Pipeline,
            "while_" => LoopKind::While,
            _ => LoopKind::Other,
        }
    }

    /// The `init_values=(...)` operands (empty when absent).
    pub fn init_values(&self) -> &[Expr] {
        self.iter
            .kwarg("init_values")
            .and_then(Expr::as_elems)
            .unwrap_or(&[])
    }

    /// The `init_values` operands, mutable (`None` when absent).
    pub fn init_values_mut(&mut self) -> Option<&mut [Expr]> {
        match self.iter.kwarg_mut("init_values")? {
            Expr::Tuple(v) | Expr::List(v) => Some(v),
            _ => None,
        }
    }
}

/// `if cond:` THEN `else:` ELSE; each branch ends with a `pl.yield_` that
/// defines `results` when there are any.
#[derive(Clone, Debug, PartialEq)]
pub struct IfStmt {
    /// Condition.
    pub cond: Expr,
    /// Then branch.
    pub then_body: Vec<StmtId>,
    /// Else branch, when written.
    pub else_body: Option<Vec<StmtId>>,
    /// Values after the `if`.
    pub results: Vec<VarId>,
}

/// `with CTX:` BODY.
#[derive(Clone, Debug, PartialEq)]
pub struct WithStmt {
    /// The context call as written (`pl.scope(mode=pl.ScopeMode.MANUAL)`).
    pub ctx: Call,
    /// Statements.
    pub body: Vec<StmtId>,
}
