//! The PyPTO program model.
//!
//! A [`Program`] holds [`Function`]s. Each function owns two arenas:
//!
//! - [`Function::vars`]: every variable (`VarId -> VarData { name, ty, def }`).
//!   Expressions refer to variables by [`VarId`] ([`Expr::Var`]), so the
//!   name and the type are stored once. A type annotation printed on an
//!   assignment, a parameter or a yield is the type of its variable.
//! - [`Function::stmts`]: every statement (`StmtId -> Stmt`). Blocks (the
//!   body, loop bodies, `if` branches) are `Vec<StmtId>` in program order.
//!
//! Passes attach their own facts with [`SecondaryMap`]s keyed by `VarId` or
//! `StmtId` instead of pointers.
//!
//! # How passes use the model
//!
//! - **Walk in program order**: [`Function::walk`] lists `(Block, StmtId)`
//!   pre-order through nested `for`/`if`. Match on [`Stmt::kind`].
//! - **Read a defining call**: [`Stmt::call`] gives the [`Call`] of
//!   `x: T = pl.tile.add(a, b)`: [`Call::op_name`] is `"tile.add"`,
//!   `args` the positional operands, `kwargs` the keywords in source order
//!   ([`Call::kwarg`]). [`Stmt::def`] is `x`.
//! - **Change a tile's storage**: set the MemRef of its variable's type:
//!   `*f.vars[x].ty.as_mut().unwrap().memref_mut().unwrap() = Some(m)`.
//!   A [`MemRef`]'s root is [`MemBase::Var`] (the alloc variable) or
//!   [`MemBase::Named`] (string roots in signatures / global memory).
//!   Offsets are [`Expr`]s; PyPTO prints them `pl.const(N, pl.INT64)`
//!   ([`Expr::const_i64`]); sizes are byte counts. Read a MemRef through
//!   its accessors (`base()`, `offset()`, `size()`, ...) and build a
//!   general one from [`MemRefParts`]: the common form takes 16 bytes.
//! - **Types are shared**: `Type::Tile(t, memref)`/`Type::Tensor(t, memref)`
//!   hold a [`Shared`] value (and shapes are `Shared<Vec<Expr>>`) and,
//!   beside it, the variable's own MemRef: variables read from the same
//!   annotation share one copy, changing one through `&mut` (`as_tile_mut`,
//!   a field assignment) copies it first, so the others keep theirs, and
//!   setting a MemRef copies nothing. Build one with
//!   `Type::Tile(TileType { .. }.into(), None)` and `vec![..].into()`; a
//!   tensor's MemRef slot is boxed (`Type::Tensor(t.into(), Box::new(None))`),
//!   and so are `Type::Other` and the `Type::Tuple` items, which keeps a
//!   type in 24 bytes and a variable ([`VarData`]) in 48. `for`/`if`/`with` statements are boxed likewise
//!   (`StmtKind::For(Box<ForStmt>)`): match them as before.
//! - **Allocations**: [`Function::allocs`] lists the top-level
//!   `pl.tile.alloc` statements ([`Function::alloc_at`] reads one);
//!   [`Function::insert_alloc`] adds one. PyPTO's exact form
//!   `v: pl.Ptr = pl.tile.alloc(pl.Mem.X, N[, pinned=True])` is held as a
//!   [`StmtKind::Alloc`] without a call (other spellings stay assignments);
//!   [`Stmt::def`] / [`Stmt::targets`] give its variable like an
//!   assignment's. [`Function::remove`] / [`Function::remove_where`] drop
//!   statements from their block and release what they held.
//! - **Loops and ifs**: [`ForStmt`] carries the iterator call (`pl.range(...,
//!   init_values=(x,))`, see [`ForStmt::init_values`]), the loop variable,
//!   the iter args and the `results` defined by the body's final
//!   `pl.yield_`. [`IfStmt::results`] likewise. A [`StmtKind::Yield`] holds
//!   only the yielded values; its printed left side is the enclosing
//!   statement's results. To insert `tile.move` before a yield:
//!   `f.insert(b, f.yield_index(b).unwrap(), kind)`.
//! - **reserve_buffer**: an ordinary call; rewrite its base with
//!   `stmt.call_mut().unwrap().set_kwarg("base", Expr::Int(0))`.
//! - **Rename**: `f.vars[v].name = "new".into()` renames every use;
//!   **retarget** uses with [`Expr::map_vars`].
//! - **Names**: a use refers to the latest definition before it in program
//!   order (parameters, assignments, loop variables, iter args, results)
//!   that is still in scope: a loop's variables and the names its body
//!   defines end with the loop, the names an `if` branch defines end with
//!   the branch; only their results (and names of `with` blocks) are seen
//!   after them. A name of the module becomes a [`VarDef::Free`] variable.
//!   A result of a `for`/`if` has [`VarDef::Stmt`] of that statement.
//! - **Trivia**: own-line comments and blank lines of hand-written
//!   programs are [`StmtKind::Comment`] / [`StmtKind::Blank`] statements
//!   in their block; passes skip them. [`Function::pos_of`] is the source position
//!   for diagnostics (`0:0` for statements a pass created). A trailing
//!   `# comment` is in the side table [`Function::comment`].
//! - **Text**: dotted names ([`Expr::Path`], [`Kwarg::name`]) are
//!   `Arc<str>` and callees ([`Call::func`]) [`SharedStr`]s, shared by the
//!   reader; make new ones with `"pl.tile.move".into()`.
//! - **Compact forms**: a read program costs a few times its text, so the
//!   per-statement parts are small and read like the wide forms: assignment
//!   [`Targets`] (one inline) and call arguments, keywords, tuples and
//!   lists (exactly sized boxed slices, [`ThinSlice`]) deref to slices and
//!   are built with `vec![..].into()`; [`VarData::name`] is an inline
//!   short string. A list that changes length is rebuilt
//!   (`into_vec`, change, `.into()`).
//!
//! ```
//! use tilemem_pto::ir::*;
//!
//! let mut f = Function::new("kernel");
//! let buf = f.insert_alloc(0, "mem_vec_0", &MemSpace::Vec, 4096, false);
//! let tile = TileType {
//!     shape: vec![Expr::Int(32), Expr::Int(32)].into(),
//!     dtype: DType::Fp32,
//!     space: Some(MemSpace::Vec),
//!     extras: vec![],
//! };
//! let a = f.new_var("a", Some(Type::Tile(tile.into(), None)), VarDef::Free);
//! let s = f.insert(
//!     Block::Body,
//!     1,
//!     StmtKind::Assign {
//!         targets: a.into(),
//!         value: Expr::call(Call::new("pl.tile.create", vec![])),
//!     },
//! );
//! f.vars[a].def = VarDef::Stmt(s);
//! // Give `a` storage at offset 0 of the alloc.
//! if let Some(slot) = f.vars[a].ty.as_mut().and_then(Type::memref_mut) {
//!     *slot = Some(MemRef::new(MemBase::Var(buf), 0, 4096));
//! }
//! assert_eq!(f.allocs().len(), 1);
//! assert_eq!(f.ty(a).unwrap().memref().unwrap().base_var(), Some(buf));
//! ```

mod dtype;
pub mod entity;
mod expr;
mod func;
mod stmt;
mod targets;
mod thin;
mod types;
mod var;

pub use dtype::{DTypeName, PYPTO_DTYPES};
pub use entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use expr::{BinOp, Call, Expr, Kwarg, Quote, UnaryOp};
pub use func::{
    Alloc, Block, Function, FunctionKind, ObjectSharing, Param, ParamDir, Program, Trivia, VarData,
    VarDef, VarId,
};
pub use stmt::{ForStmt, IfStmt, LoopKind, Pos, Stmt, StmtId, StmtKind, WithStmt};
pub use targets::Targets;
pub use thin::{SharedStr, ThinSlice, ThinStr};
pub use types::{
    DType, MemBase, MemRef, MemRefParts, MemSpace, Shared, TensorType, TileType, Type,
};

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// The model's footprint per statement and variable: a million-line
    /// kernel holds about two million of each at its peak, so a few bytes
    /// here are megabytes of peak memory.
    #[test]
    fn statements_and_variables_stay_small() {
        let sizes = [
            size_of::<Stmt>(),
            size_of::<StmtKind>(),
            size_of::<Expr>(),
            size_of::<Call>(),
            size_of::<VarData>(),
            size_of::<Type>(),
            size_of::<Option<Type>>(),
            size_of::<MemRef>(),
            size_of::<MemSpace>(),
        ];
        assert_eq!(sizes, [40, 40, 24, 32, 48, 24, 24, 16, 8]);
    }
}
