//! Expressions: operands, call arguments, offsets, conditions.

use std::cell::RefCell;
use std::sync::Arc;

use tilemem_soc::MemSpace;

use super::dtype::DType;
use super::thin::{SharedStr, ThinSlice, ThinStr};
use super::var::VarId;

/// Most names [`shared`] keeps (passes build calls with a handful).
const SHARED_NAMES: usize = 64;

thread_local! {
    /// Keywords and paths passes have built, shared by every copy.
    static NAMES: RefCell<Vec<Arc<str>>> = const { RefCell::new(Vec::new()) };
    /// Callees passes have built, likewise.
    static CALLEES: RefCell<Vec<SharedStr>> = const { RefCell::new(Vec::new()) };
}

/// The copy of `text` in `names`, added when missing and there is room.
fn find_or_add<T>(names: &RefCell<Vec<T>>, text: &str) -> T
where
    T: Clone + std::ops::Deref<Target = str> + for<'a> From<&'a str>,
{
    let mut names = names.borrow_mut();
    if let Some(a) = names.iter().find(|a| &***a == text) {
        return a.clone();
    }
    let a = T::from(text);
    if names.len() < SHARED_NAMES {
        names.push(a.clone());
    }
    a
}

/// The shared text of a dotted name or keyword a pass builds (a pass that
/// adds an allocation per tile would otherwise allocate each name anew).
fn shared(text: &str) -> Arc<str> {
    NAMES.with(|names| find_or_add(names, text))
}

/// The shared text of a callee a pass builds.
fn shared_callee(text: &str) -> SharedStr {
    CALLEES.with(|names| find_or_add(names, text))
}

/// Quote character a string literal was written with (kept so the printer
/// reproduces PyPTO's mix: `name='ring'` but `attrs={"k": "v"}`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quote {
    /// `'...'`.
    Single,
    /// `"..."`.
    Double,
}

/// Binary operators, Python semantics and precedence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `and`
    And,
    /// `or`
    Or,
}

impl BinOp {
    /// Source spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }

    /// Binding strength (higher binds tighter), Python's table.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => 4,
            BinOp::BitOr => 5,
            BinOp::BitXor => 6,
            BinOp::BitAnd => 7,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => 10,
            BinOp::Pow => 12,
        }
    }

    /// True for comparisons (which do not chain in this language).
    pub fn is_comparison(self) -> bool {
        self.precedence() == 4
    }
}

/// Unary operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `~x`
    Invert,
    /// `not x`
    Not,
}

impl UnaryOp {
    /// Source spelling (with the space `not` needs).
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Pos => "+",
            UnaryOp::Invert => "~",
            UnaryOp::Not => "not ",
        }
    }

    /// Binding strength, on [`BinOp::precedence`]'s scale.
    pub fn precedence(self) -> u8 {
        match self {
            UnaryOp::Not => 3,
            _ => 11,
        }
    }
}

/// A keyword argument `name=value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Kwarg {
    /// Keyword (shared: the reader interns names).
    pub name: Arc<str>,
    /// Value.
    pub value: Expr,
}

/// A call `func(args..., kw=value...)`.
///
/// `func` is the dotted callee as written: `"pl.tile.add"` for ops,
/// `"self.kernel"` for calls between functions of the program.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// Dotted callee (shared: the reader interns names; one pointer wide,
    /// build with `"pl.tile.move".into()`).
    pub func: SharedStr,
    /// Positional arguments (exactly sized: a call is read once and
    /// rarely changed; build with `vec![..].into()`).
    pub args: Box<[Expr]>,
    /// Keyword arguments, in source order (the printer keeps the order);
    /// exactly sized like `args`, one pointer and no heap block when there
    /// are none (most calls). Build with `vec![..].into()`.
    pub kwargs: ThinSlice<Kwarg>,
}

impl Call {
    /// A call with positional arguments only.
    pub fn new(func: &str, args: Vec<Expr>) -> Call {
        Call {
            func: shared_callee(func),
            args: args.into(),
            kwargs: ThinSlice::default(),
        }
    }

    /// The op name without the `pl.` prefix (`"tile.add"`), or the callee
    /// as written when it has no such prefix (`"self.kernel"`).
    pub fn op_name(&self) -> &str {
        self.func.strip_prefix("pl.").unwrap_or(&self.func)
    }

    /// The value of keyword `name`.
    pub fn kwarg(&self, name: &str) -> Option<&Expr> {
        self.kwargs
            .iter()
            .find(|k| &*k.name == name)
            .map(|k| &k.value)
    }

    /// The value of keyword `name`, mutable.
    pub fn kwarg_mut(&mut self, name: &str) -> Option<&mut Expr> {
        self.kwargs
            .iter_mut()
            .find(|k| &*k.name == name)
            .map(|k| &mut k.value)
    }

    /// Sets keyword `name`: replaced in place when present (order kept),
    /// appended otherwise.
    pub fn set_kwarg(&mut self, name: &str, value: Expr) {
        match self.kwarg_mut(name) {
            Some(v) => *v = value,
            None => {
                let mut kwargs = std::mem::take(&mut self.kwargs).into_vec();
                kwargs.push(Kwarg {
                    name: shared(name),
                    value,
                });
                self.kwargs = kwargs.into();
            }
        }
    }

    /// Removes keyword `name`, returning its value.
    pub fn remove_kwarg(&mut self, name: &str) -> Option<Expr> {
        let i = self.kwargs.iter().position(|k| &*k.name == name)?;
        let mut kwargs = std::mem::take(&mut self.kwargs).into_vec();
        let value = kwargs.remove(i).value;
        self.kwargs = kwargs.into();
        Some(value)
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A variable of the enclosing function.
    Var(VarId),
    /// A dotted name that is not a variable: `pl.Mem.Vec`, `pl.FP32`,
    /// `pl.TileLayout.row_major`, `self`. Shared text: the reader interns
    /// paths, build new ones with `"pl.Mem.Vec".into()`.
    Path(Arc<str>),
    /// Integer literal (a leading `-` is folded in).
    Int(i64),
    /// Float literal, kept as written (`1.0000000000000001e-05`).
    Float(Box<str>),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// String literal (unescaped value).
    Str(Box<str>, Quote),
    /// `pl.const(value, pl.DTYPE)` with an integer value.
    Const(i64, DType),
    /// Call.
    Call(Box<Call>),
    /// `lhs op rhs`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `op operand`.
    Unary(UnaryOp, Box<Expr>),
    /// `base[index]` (e.g. reading a tuple element `t[0]`).
    Index(Box<Expr>, Box<Expr>),
    /// `base.name` on a non-path base.
    Attr(Box<Expr>, ThinStr),
    /// `(a, b)` (exactly sized, like every list below: an `Expr` is 24
    /// bytes, which a `Vec` here would make 32; build with `vec![..].into()`).
    Tuple(Box<[Expr]>),
    /// `[a, b]`.
    List(Box<[Expr]>),
    /// `{k: v}`.
    Dict(Box<[(Expr, Expr)]>),
}

/// The walk over the variables of an expression, written once for
/// [`Expr::for_each_var`] (`&`) and [`Expr::map_vars`] (`&mut`): `$rec` is
/// the method itself, `$iter` `iter` or `iter_mut`, and `$on_var` what to
/// do with the (borrowed) `VarId` `$v`.
macro_rules! visit_vars {
    ($e:expr, $rec:ident, $f:ident, $iter:ident, |$v:ident| $on_var:expr) => {
        match $e {
            Expr::Var($v) => $on_var,
            Expr::Path(_)
            | Expr::Int(_)
            | Expr::Float(_)
            | Expr::Bool(_)
            | Expr::None
            | Expr::Str(..)
            | Expr::Const(..) => {}
            Expr::Call(c) => {
                c.args.$iter().for_each(|a| a.$rec($f));
                c.kwargs.$iter().for_each(|k| k.value.$rec($f));
            }
            Expr::Binary(_, a, b) | Expr::Index(a, b) => {
                a.$rec($f);
                b.$rec($f);
            }
            Expr::Unary(_, a) | Expr::Attr(a, _) => a.$rec($f),
            Expr::Tuple(v) | Expr::List(v) => v.$iter().for_each(|a| a.$rec($f)),
            Expr::Dict(v) => v.$iter().for_each(|(k, x)| {
                k.$rec($f);
                x.$rec($f);
            }),
        }
    };
}

impl Expr {
    /// `pl.const(n, pl.INT64)`, PyPTO's spelling of byte offsets.
    pub fn const_i64(n: i64) -> Expr {
        Expr::Const(n, DType::Int64)
    }

    /// A string literal in double quotes.
    pub fn str(s: &str) -> Expr {
        Expr::Str(s.into(), Quote::Double)
    }

    /// `pl.Mem.<Name>`.
    pub fn mem_space(space: &MemSpace) -> Expr {
        Expr::Path(shared(&format!("pl.Mem.{}", space.name())))
    }

    /// A call expression.
    pub fn call(c: Call) -> Expr {
        Expr::Call(Box::new(c))
    }

    /// The integer value of `N`, `-N` or `pl.const(N, ..)`.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Expr::Int(n) | Expr::Const(n, _) => Some(*n),
            _ => None,
        }
    }

    /// The variable, if this is one.
    pub fn as_var(&self) -> Option<VarId> {
        match self {
            Expr::Var(v) => Some(*v),
            _ => None,
        }
    }

    /// The call, if this is one.
    pub fn as_call(&self) -> Option<&Call> {
        match self {
            Expr::Call(c) => Some(c),
            _ => None,
        }
    }

    /// The call, mutable.
    pub fn as_call_mut(&mut self) -> Option<&mut Call> {
        match self {
            Expr::Call(c) => Some(c),
            _ => None,
        }
    }

    /// The string value of a string literal.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Expr::Str(s, _) => Some(s),
            _ => None,
        }
    }

    /// The memory space named by a `pl.Mem.<Name>` path.
    pub fn as_mem_space(&self) -> Option<MemSpace> {
        match self {
            Expr::Path(p) => p.strip_prefix("pl.Mem.").map(MemSpace::parse),
            _ => None,
        }
    }

    /// Elements of a tuple or list.
    pub fn as_elems(&self) -> Option<&[Expr]> {
        match self {
            Expr::Tuple(v) | Expr::List(v) => Some(v),
            _ => None,
        }
    }

    /// Calls `f` on every variable this expression reads, left to right.
    pub fn for_each_var(&self, f: &mut impl FnMut(VarId)) {
        visit_vars!(self, for_each_var, f, iter, |v| f(*v));
    }

    /// Replaces every variable `v` by `map(v)` (retargeting uses).
    pub fn map_vars(&mut self, map: &mut impl FnMut(VarId) -> VarId) {
        visit_vars!(self, map_vars, map, iter_mut, |v| *v = map(*v));
    }
}
