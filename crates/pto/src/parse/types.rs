//! Type annotations: `pl.Tensor`, `pl.Tile` with MemRef, space and view,
//! `pl.Scalar`, `pl.Ptr`, `pl.Tuple`.

use crate::diag::ParseError;
use crate::ir::{
    DType, Expr, MemBase, MemRef, MemRefParts, MemSpace, TensorType, TileType, Type, PYPTO_DTYPES,
};

use super::lexer::{Tok, Token};
use super::{is_keyword, Parser, R};

/// `pl.` types kept as written (their parts are not modelled); any other
/// `pl.` name in a type's place is a misspelling.
const OTHER_TYPES: &[&str] = &["Array", "UnknownType", "Out", "InOut"];

/// The `pl.` types, for the nearest name to a misspelt one.
const TYPES: &[&str] = &[
    "Tensor",
    "Tile",
    "Scalar",
    "Ptr",
    "Tuple",
    "Array",
    "UnknownType",
];

impl<'s> Parser<'s> {
    /// `pl.X` when the next tokens are `pl . X`.
    pub(super) fn peek_pl(&mut self) -> R<Option<&'s str>> {
        let (a, b, c) = (self.peek_n(0)?, self.peek_n(1)?, self.peek_n(2)?);
        if self.is_name(a, "pl") && self.is_op(b, ".") && c.kind == Tok::Name {
            Ok(Some(self.text(c)))
        } else {
            Ok(None)
        }
    }

    pub(super) fn ty(&mut self) -> R<Type> {
        let start = self.peek()?;
        self.enter(start)?;
        let r = self.ty_inner();
        self.leave();
        r
    }

    pub(super) fn ty_inner(&mut self) -> R<Type> {
        // `(T)` is `T`, as in Python.
        if self.peek_is_op("(")? {
            self.bump()?;
            let t = self.ty()?;
            self.expect_op(")", "`)` after the type")?;
            return Ok(t);
        }
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
                            let name = match &e {
                                Expr::Path(p) => p.strip_prefix("pl.Mem."),
                                _ => None,
                            };
                            // Checked before `as_mem_space`, which would
                            // intern the misspelt name for good.
                            match name.map(|n| (n, MemSpace::from_name(n))) {
                                // PyPTO's MemorySpace enum is closed: a name
                                // outside it (`pl.Mem.Vac`, `pl.Mem.A.B`)
                                // is a typo, not a new space to plan.
                                Some((name, None)) => {
                                    return Err(self.err(
                                        t,
                                        format!("unknown memory space `pl.Mem.{name}`"),
                                        "the spaces are pl.Mem.DDR, Vec, Mat, Left, Right, \
                                         Acc, Bias, LeftScale and RightScale",
                                    ));
                                }
                                Some((_, Some(s))) => space = Some(s),
                                // `pl.Mem` alone, or an expression on it:
                                // kept as an extra argument it printed
                                // after the space, where it does not read.
                                None => {
                                    return Err(self.err(
                                        t,
                                        "expected a memory space `pl.Mem.X` in a `pl.Tile` type"
                                            .to_string(),
                                        "the spaces are pl.Mem.DDR, Vec, Mat, Left, Right, \
                                         Acc, Bias, LeftScale and RightScale",
                                    ));
                                }
                            }
                        }
                        _ => {
                            let e = self.expr()?;
                            // PyPTO's types take a view after the shape,
                            // dtype, MemRef and space, nothing else: other
                            // text there (a stray name, a number) would be
                            // carried and printed, meaning nothing.
                            let view = if k == "Tile" {
                                "pl.TileView"
                            } else {
                                "pl.TensorView"
                            };
                            if !matches!(&e, Expr::Call(c) if &*c.func == view) {
                                return Err(self.err(
                                    t,
                                    format!("unexpected argument in a `pl.{k}` type"),
                                    &format!(
                                        "after the shape and dtype come pl.MemRef(...){} and {view}(...)",
                                        if k == "Tile" { ", the space pl.Mem.X" } else { "" }
                                    ),
                                ));
                            }
                            extras.push(e)
                        }
                    }
                }
                Ok(if k == "Tile" {
                    Type::Tile(
                        TileType {
                            shape: shape.into(),
                            dtype,
                            space,
                            extras,
                        }
                        .into(),
                        memref,
                    )
                } else {
                    Type::Tensor(
                        TensorType {
                            shape: shape.into(),
                            dtype,
                            extras,
                        }
                        .into(),
                        Box::new(memref),
                    )
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
                Ok(Type::Tuple(items.into()))
            }
            Some(name) if !OTHER_TYPES.contains(&name) => {
                // Underline `pl.NAME`.
                let t = Token {
                    end: self.peek_n(2)?.end,
                    ..self.peek()?
                };
                let hint = crate::diag::closest(name, TYPES.iter().copied())
                    .map_or(String::new(), |c| format!("did you mean `pl.{c}`? "));
                Err(self.err(
                    t,
                    format!("unknown type `pl.{name}`"),
                    &format!(
                        "{hint}PyPTO's types are pl.Tensor, pl.Tile, pl.Scalar, pl.Ptr, \
                         pl.Tuple, pl.Array and pl.UnknownType"
                    ),
                ))
            }
            _ => {
                let start = self.peek()?;
                let e = self.expr()?;
                if !is_type_shaped(&e) {
                    let t = Token {
                        end: self.last_end,
                        ..start
                    };
                    return Err(self.err(
                        t,
                        "an annotation is a type, not an expression".into(),
                        "write the type alone: `pl.Tile[...]`, `pl.Tensor[...]`, \
                         `pl.Scalar[...]`, `pl.Ptr`, `pl.Tuple[...]`, ...",
                    ));
                }
                // A distributed tensor's dtype is a dtype like any other.
                if let Some(d) = distributed_dtype(&e) {
                    if !DType::is_pypto_name(d) {
                        let t = self.token_after(start, &format!("pl.{d}"));
                        return Err(self.unknown_dtype(t, d));
                    }
                }
                Ok(Type::Other(Box::new(e)))
            }
        }
    }

    pub(super) fn dtype(&mut self) -> R<DType> {
        match self.peek_pl()? {
            Some(name) if name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) => {
                if !DType::is_pypto_name(name) {
                    // Underline `pl.NAME`.
                    let t = Token {
                        end: self.peek_n(2)?.end,
                        ..self.peek()?
                    };
                    return Err(self.unknown_dtype(t, name));
                }
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

    /// "unknown dtype `pl.NAME`" at `t`, with the closest of PyPTO's.
    pub(super) fn unknown_dtype(&self, t: Token, name: &str) -> Box<ParseError> {
        let hint = crate::diag::closest(name, PYPTO_DTYPES.iter().copied())
            .map_or(String::new(), |c| format!("did you mean `pl.{c}`? "));
        self.err(
            t,
            format!("unknown dtype `pl.{name}`"),
            &format!("{hint}PyPTO's dtypes are {}", PYPTO_DTYPES.join(", ")),
        )
    }

    /// `pl.MemRef(base[, offset[, size]][, slots=N])[k]`.
    pub(super) fn memref(&mut self) -> R<MemRef> {
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
                MemBase::Var(self.lookup(b)?)
            }
            _ => return Err(self.expected(b, "the allocation (a name or a string)")),
        };
        let mut m = MemRefParts {
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
        Ok(m.into())
    }

    pub(super) fn uint(&mut self, what: &str) -> R<u64> {
        let t = self.peek()?;
        if t.kind == Tok::Int {
            self.bump()?;
            if let Some(Ok(v)) = self.int_value(t).map(u64::try_from) {
                return Ok(v);
            }
        }
        Err(self.expected(t, &format!("{what} as a non-negative integer")))
    }
}

/// Whether an annotation kept as written has a type's shape, as PyPTO's
/// parser resolves annotations: a name, a dotted name, `None`, or one of
/// these subscripted (`pld.DistributedTensor[...]`, `tuple[...]`). An
/// operator, a call or a literal at the top (`-pl.Tile[...]`) makes an
/// expression; read as an opaque type, it would hide the tile it spells
/// and the allocation its MemRef names from the memory passes.
fn is_type_shaped(e: &Expr) -> bool {
    match e {
        Expr::Var(_) | Expr::Path(_) | Expr::Attr(..) | Expr::None => true,
        Expr::Index(base, _) => matches!(**base, Expr::Var(_) | Expr::Path(_) | Expr::Attr(..)),
        _ => false,
    }
}

/// The dtype name (without `pl.`) of `pld.DistributedTensor[[shape],
/// pl.DTYPE, ...]`.
fn distributed_dtype(e: &Expr) -> Option<&str> {
    let Expr::Index(base, items) = e else {
        return None;
    };
    if !matches!(&**base, Expr::Path(p) if p.rsplit('.').next() == Some("DistributedTensor")) {
        return None;
    }
    let Expr::Tuple(items) = &**items else {
        return None;
    };
    match items.get(1)? {
        Expr::Path(p) => p.strip_prefix("pl.").filter(|d| !d.contains('.')),
        _ => None,
    }
}
