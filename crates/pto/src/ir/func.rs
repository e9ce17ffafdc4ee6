//! Programs, functions, variables, blocks.

use ecow::EcoString;
use rustc_hash::FxHashMap;

use super::entity::{EntityRef, PrimaryMap};
use super::expr::{Expr, Kwarg};
use super::stmt::{Pos, Stmt, StmtId, StmtKind};
use super::types::{MemSpace, Type};

/// A variable of a function (defined below the expressions, statements
/// and types, which name variables too).
pub use super::var::VarId;

/// Where a variable gets its value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VarDef {
    /// The `n`th parameter (not counting `self`).
    Param(u32),
    /// A target of this assignment, or a result of this `for`/`if`.
    Stmt(StmtId),
    /// The induction variable of this loop.
    LoopVar(StmtId),
    /// A loop-carried variable of this loop.
    IterArg(StmtId),
    /// Read but never defined in the function (kept so such programs still
    /// round-trip; passes should treat it as opaque).
    Free,
}

/// A variable: its printed name, type and definition.
#[derive(Clone, Debug, PartialEq)]
pub struct VarData {
    /// Name as printed. Renaming a variable renames every use. Short
    /// names (up to 15 bytes, nearly all) are stored inline, without a
    /// heap block per variable, in 16 bytes (longer ones share one
    /// reference-counted block between copies); it reads as a `&str` and
    /// is built with `"x".into()`.
    pub name: EcoString,
    /// Declared type (`None` for loop variables, iter args, tuple targets
    /// and untyped assignments). The printer writes it in annotations, so
    /// changing it (e.g. its MemRef) changes the printed program.
    pub ty: Option<Type>,
    /// Definition site.
    pub def: VarDef,
}

/// Parameter direction: `pl.Out[...]` / `pl.InOut[...]` wrappers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamDir {
    /// Plain parameter.
    In,
    /// `pl.Out[T]`.
    Out,
    /// `pl.InOut[T]`.
    InOut,
}

/// A parameter (its name and type are in the variable table).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The variable.
    pub var: VarId,
    /// Direction wrapper.
    pub dir: ParamDir,
}

/// Function type from `@pl.function(type=pl.FunctionType.X)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// No `type=` (bare `@pl.function`) or `Opaque`.
    Opaque,
    /// Host-side orchestration.
    Orchestration,
    /// On-chip kernel, not yet split into cube/vector.
    InCore,
    /// Cube-core kernel.
    Aic,
    /// Vector-core kernel.
    Aiv,
    /// Any other type name.
    Other(Box<str>),
}

impl FunctionKind {
    /// True for the kinds whose memory the passes plan: InCore, AIC, AIV.
    pub fn is_kernel(&self) -> bool {
        matches!(
            self,
            FunctionKind::InCore | FunctionKind::Aic | FunctionKind::Aiv
        )
    }
}

/// Comment or blank line outside function bodies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trivia {
    /// `# text` (text after `#`).
    Comment(Box<str>),
    /// Empty line.
    Blank,
}

/// A block of statements: the function body or a body nested in a statement.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// The function body.
    Body,
    /// The body of this `for`.
    Loop(StmtId),
    /// The then branch of this `if`.
    Then(StmtId),
    /// The else branch of this `if`.
    Else(StmtId),
    /// The body of this `with`.
    With(StmtId),
}

/// A `pl.tile.alloc(space, size[, pinned=True])` statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Alloc {
    /// The statement.
    pub stmt: StmtId,
    /// The allocation variable (the MemRef root).
    pub var: VarId,
    /// Memory space.
    pub space: MemSpace,
    /// Byte size.
    pub size: u64,
    /// `pinned=True`: author-declared, not to be merged or resized.
    pub pinned: bool,
}

/// One `@pl.function` of a program.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Comments and blank lines before the decorator.
    pub leading: Vec<Trivia>,
    /// Decorator keywords: `None` for a bare `@pl.function`, `Some(kw)` for
    /// `@pl.function(kw...)` in source order.
    pub decorator: Option<Vec<Kwarg>>,
    /// Function name.
    pub name: Box<str>,
    /// Whether `self` is the first parameter.
    pub has_self: bool,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// `-> T`, when written.
    pub ret: Option<Type>,
    /// Top-level statements.
    pub body: Vec<StmtId>,
    /// Variable table.
    pub vars: PrimaryMap<VarId, VarData>,
    /// Statement arena (statements removed from every block stay here
    /// unreferenced, released to [`StmtKind::Blank`] by
    /// [`remove`](Self::remove); only blocks define the program, and
    /// [`shrink_arenas`](Self::shrink_arenas) drops an unreferenced tail).
    pub stmts: PrimaryMap<StmtId, Stmt>,
    /// Text of the trailing `# comment` of the statements that have one
    /// (without the `#`): a side table, as few statements carry one. Read
    /// and change it with [`comment`](Self::comment) /
    /// [`set_comment`](Self::set_comment).
    pub comments: FxHashMap<StmtId, Box<str>>,
    /// Source position of each statement read, by statement index
    /// (statements past its end, the ones passes add, have none: `0:0`).
    /// Read and set it with [`pos_of`](Self::pos_of) /
    /// [`set_pos`](Self::set_pos): kept beside the arena, not in every
    /// statement, as InitMemRef adds a statement per tile.
    positions: Vec<Pos>,
    /// Position of `def`.
    pub pos: Pos,
    /// The MemRefs of variables the text shows untyped (results of a
    /// multi-value `pl.yield_`) that a pass gave one of their own (InitMemRef
    /// gives each tensor result a new DDR MemRef). Printing never shows
    /// them; the MessagePack writer, whose documents type every variable,
    /// writes them.
    pub untyped_memrefs: FxHashMap<VarId, super::types::MemRef>,
    /// How the passes shared MemRef and type objects where the text cannot
    /// show it (see [`ObjectSharing`]).
    pub sharing: ObjectSharing,
}

/// Object sharing the passes decided that printing never shows: PyPTO's
/// MessagePack documents share objects by pointer, so the writer needs it
/// to write what PyPTO's passes build. A program read from text has none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjectSharing {
    /// Variables whose MemRef is an object made for them alone: MemoryReuse
    /// records the members it gives a MemRef of their own (rebased views,
    /// members of another size: a plain-integer offset), and
    /// AllocateMemoryAddr, whose addresses make every offset print alike,
    /// the other plain-integer ones a variable does not hold from another
    /// (InitMemRef's windows). PyPTO's address pass replaces each MemRef
    /// object by one new object, so these stay apart from equal MemRefs of
    /// other variables (see `passes::rewrite::storage::memref_owner`).
    pub own_memrefs: rustc_hash::FxHashSet<VarId>,
    /// Bare aliases `x = y` of an `if` result (directly or through other
    /// bare aliases) whose MemRef MemoryReuse moved: PyPTO's alias
    /// normalization carries the result's pending state along bare aliases
    /// and, once the yield fix-up settled it, a bare SSA rename follows its
    /// source's complete type (seed 000, step 6): `x`'s type is `y`'s type
    /// object.
    pub whole_type_aliases: rustc_hash::FxHashSet<VarId>,
}

impl Function {
    /// An empty function.
    pub fn new(name: &str) -> Function {
        Function {
            leading: Vec::new(),
            decorator: None,
            name: name.into(),
            has_self: false,
            params: Vec::new(),
            ret: None,
            body: Vec::new(),
            vars: PrimaryMap::new(),
            stmts: PrimaryMap::new(),
            comments: FxHashMap::default(),
            positions: Vec::new(),
            pos: Pos::default(),
            untyped_memrefs: FxHashMap::default(),
            sharing: ObjectSharing::default(),
        }
    }

    /// Whether this is a split-AIV function (`pl.func_attr({"split": X})` with X
    /// other than `None`), where the load + tpop hazard applies on targets that
    /// need the workaround.
    pub fn is_split_aiv(&self) -> bool {
        if self.kind() != FunctionKind::Aiv {
            return false;
        }
        self.body.iter().any(|&s| {
            let Some(call) = self.stmts[s].call() else {
                return false;
            };
            if call.op_name() != "func_attr" {
                return false;
            }
            call.args.iter().any(|a| match a {
                Expr::Dict(items) => items.iter().any(|(k, v)| {
                    k.as_str() == Some("split")
                        && match v {
                            Expr::Path(p) => !p.ends_with(".None") && &**p != "None",
                            Expr::None => false,
                            _ => true,
                        }
                }),
                _ => false,
            })
        })
    }

    /// Whether the body is a bare `...`: an abstract function (a SubWorker
    /// bound at run time), which the memory passes leave alone.
    pub fn is_abstract(&self) -> bool {
        let mut code = self
            .body
            .iter()
            .filter(|&&s| !matches!(self.stmts[s].kind, StmtKind::Comment(_) | StmtKind::Blank));
        let first = code.next();
        code.next().is_none()
            && first.is_some_and(
                |&s| matches!(&self.stmts[s].kind, StmtKind::Expr(Expr::Path(p)) if &**p == "..."),
            )
    }

    /// The function type named by the decorator.
    pub fn kind(&self) -> FunctionKind {
        let ty = self
            .decorator
            .as_deref()
            .and_then(|kw| kw.iter().find(|k| &*k.name == "type").map(|k| &k.value));
        match ty {
            Some(Expr::Path(p)) => match p.strip_prefix("pl.FunctionType.").unwrap_or(p) {
                "Opaque" => FunctionKind::Opaque,
                "Orchestration" => FunctionKind::Orchestration,
                "InCore" => FunctionKind::InCore,
                "AIC" => FunctionKind::Aic,
                "AIV" => FunctionKind::Aiv,
                other => FunctionKind::Other(other.into()),
            },
            _ => FunctionKind::Opaque,
        }
    }

    /// Adds a variable.
    pub fn new_var(&mut self, name: &str, ty: Option<Type>, def: VarDef) -> VarId {
        self.vars.push(VarData {
            name: name.into(),
            ty,
            def,
        })
    }

    /// Where statement `s` was read from (`0:0` for a statement a pass
    /// added).
    pub fn pos_of(&self, s: StmtId) -> Pos {
        self.positions.get(s.index()).copied().unwrap_or_default()
    }

    /// Records where statement `s` was read from.
    pub fn set_pos(&mut self, s: StmtId, pos: Pos) {
        let i = s.index();
        if i >= self.positions.len() {
            if pos == Pos::default() {
                return;
            }
            self.positions.resize(i + 1, Pos::default());
        }
        self.positions[i] = pos;
    }

    /// Makes room for the positions of `n` more statements read.
    pub fn reserve_positions(&mut self, n: usize) {
        self.positions.reserve(n);
    }

    /// Adds a statement to the arena (not yet to any block; see [`insert`](Self::insert)).
    pub fn new_stmt(&mut self, kind: StmtKind) -> StmtId {
        self.stmts.push(Stmt::new(kind))
    }

    /// The trailing comment of statement `s`, if it has one.
    pub fn comment(&self, s: StmtId) -> Option<&str> {
        self.comments.get(&s).map(|c| &**c)
    }

    /// Sets (or, with `None`, removes) the trailing comment of statement `s`.
    pub fn set_comment(&mut self, s: StmtId, text: Option<&str>) {
        match text {
            Some(t) => {
                self.comments.insert(s, t.into());
            }
            None => {
                self.comments.remove(&s);
            }
        }
    }

    /// The statements of `b` (empty if `b` does not name a block).
    pub fn block(&self, b: Block) -> &[StmtId] {
        match (b, b.owner().map(|s| &self.stmts[s].kind)) {
            (Block::Body, _) => &self.body,
            (Block::Loop(_), Some(StmtKind::For(l))) => &l.body,
            (Block::Then(_), Some(StmtKind::If(i))) => &i.then_body,
            (Block::Else(_), Some(StmtKind::If(i))) => i.else_body.as_deref().unwrap_or(&[]),
            (Block::With(_), Some(StmtKind::With(w))) => &w.body,
            _ => &[],
        }
    }

    /// The statements of `b`, mutable (`None` if `b` does not name a block;
    /// an absent else branch is created).
    pub fn block_mut(&mut self, b: Block) -> Option<&mut Vec<StmtId>> {
        if let Block::Body = b {
            return Some(&mut self.body);
        }
        match (b, &mut self.stmts[b.owner()?].kind) {
            (Block::Loop(_), StmtKind::For(l)) => Some(&mut l.body),
            (Block::Then(_), StmtKind::If(i)) => Some(&mut i.then_body),
            (Block::Else(_), StmtKind::If(i)) => Some(i.else_body.get_or_insert_with(Vec::new)),
            (Block::With(_), StmtKind::With(w)) => Some(&mut w.body),
            _ => None,
        }
    }

    /// Blocks nested directly in statement `s` (no allocation: this runs
    /// for every statement of every walk).
    pub fn child_blocks(&self, s: StmtId) -> ChildBlocks {
        let (blocks, len) = match &self.stmts[s].kind {
            StmtKind::For(_) => ([Block::Loop(s), Block::Body], 1),
            StmtKind::If(i) if i.else_body.is_some() => ([Block::Then(s), Block::Else(s)], 2),
            StmtKind::If(_) => ([Block::Then(s), Block::Body], 1),
            StmtKind::With(_) => ([Block::With(s), Block::Body], 1),
            _ => ([Block::Body, Block::Body], 0),
        };
        ChildBlocks { blocks, len }
    }

    /// Every statement in program order (pre-order: a `for`/`if` comes
    /// before the statements of its blocks), with its block.
    pub fn walk(&self) -> Vec<(Block, StmtId)> {
        let mut out = Vec::with_capacity(self.stmts.len());
        self.walk_block(Block::Body, &mut out);
        out
    }

    /// Every statement of block `b` and the blocks nested in it, in
    /// program order, with its block.
    pub fn walk_in(&self, b: Block) -> Vec<(Block, StmtId)> {
        let mut out = Vec::new();
        self.walk_block(b, &mut out);
        out
    }

    fn walk_block(&self, b: Block, out: &mut Vec<(Block, StmtId)>) {
        // The blocks of `child_blocks`, without a vector per statement (a
        // walk runs over every statement many times per pass).
        for &s in self.block(b) {
            out.push((b, s));
            match &self.stmts[s].kind {
                StmtKind::For(_) => self.walk_block(Block::Loop(s), out),
                StmtKind::With(_) => self.walk_block(Block::With(s), out),
                StmtKind::If(i) => {
                    self.walk_block(Block::Then(s), out);
                    if i.else_body.is_some() {
                        self.walk_block(Block::Else(s), out);
                    }
                }
                _ => {}
            }
        }
    }

    /// Adds a statement and inserts it into block `b` at `index` (clamped to
    /// the block length).
    pub fn insert(&mut self, b: Block, index: usize, kind: StmtKind) -> StmtId {
        let s = self.new_stmt(kind);
        if let Some(block) = self.block_mut(b) {
            let i = index.min(block.len());
            block.insert(i, s);
        }
        s
    }

    /// Removes statement `s` from block `b` and releases what it held (it
    /// stays in the arena as a [`StmtKind::Blank`] no block names); returns
    /// whether it was there.
    pub fn remove(&mut self, b: Block, s: StmtId) -> bool {
        let found = match self.block_mut(b) {
            Some(block) => match block.iter().position(|&x| x == s) {
                Some(i) => {
                    block.remove(i);
                    true
                }
                None => false,
            },
            None => false,
        };
        if found {
            self.release(s);
        }
        found
    }

    /// Removes from block `b` every statement `dead` names, releasing each
    /// (one pass over the block, for removing many at once).
    pub fn remove_where(&mut self, b: Block, dead: impl Fn(StmtId) -> bool) {
        let Some(block) = self.block_mut(b) else {
            return;
        };
        let mut removed = Vec::new();
        block.retain(|&s| {
            let d = dead(s);
            if d {
                removed.push(s);
            }
            !d
        });
        for s in removed {
            self.release(s);
        }
    }

    /// Drops the payload of a statement no block names any more (its call,
    /// argument lists, nested blocks and comment): the arena keeps only the
    /// slot, so removing statements gives their memory back.
    fn release(&mut self, s: StmtId) {
        self.stmts[s].kind = StmtKind::Blank;
        self.comments.remove(&s);
    }

    /// Index in `b` of its `pl.yield_` statement (the last one), if any.
    pub fn yield_index(&self, b: Block) -> Option<usize> {
        self.block(b)
            .iter()
            .rposition(|&s| matches!(self.stmts[s].kind, StmtKind::Yield(_)))
    }

    /// Drops the variables and statements at the end of the arenas that
    /// nothing refers to any more and gives their memory back.
    ///
    /// InitMemRef adds an allocation (a variable and a statement) per tile
    /// after everything read, and MemoryReuse removes nearly all of them
    /// again; without this they would stay in the arenas to the end of the
    /// run. A variable is kept when any statement of the arena (in a block
    /// or not), parameter, type or decorator names it, or a later one is
    /// kept; a statement when a block or a kept variable's definition names
    /// it, or a later one is kept. Ids that remain are unchanged, so side
    /// tables built before must not be used after (call it at the end of a
    /// pass).
    pub fn shrink_arenas(&mut self) {
        let mut vars = 0usize;
        let mut see = |v: VarId| vars = vars.max(v.index() + 1);
        for p in &self.params {
            see(p.var);
        }
        for e in self.decorator.iter().flatten() {
            e.value.for_each_var(&mut see);
        }
        for t in self
            .ret
            .iter()
            .chain(self.vars.values().filter_map(|d| d.ty.as_ref()))
        {
            type_vars(t, &mut see);
        }
        for st in self.stmts.values() {
            st.for_each_use(&mut see);
            st.targets().iter().for_each(|&v| see(v));
            match &st.kind {
                StmtKind::For(l) => {
                    l.loop_var.into_iter().for_each(&mut see);
                    l.iter_args.iter().chain(&l.results).for_each(|&v| see(v));
                }
                StmtKind::If(i) => i.results.iter().for_each(|&v| see(v)),
                _ => {}
            }
        }
        self.vars.truncate(vars);
        let mut stmts = 0usize;
        let mut see = |s: StmtId| stmts = stmts.max(s.index() + 1);
        for d in self.vars.values() {
            match d.def {
                VarDef::Stmt(s) | VarDef::LoopVar(s) | VarDef::IterArg(s) => see(s),
                VarDef::Param(_) | VarDef::Free => {}
            }
        }
        self.body.iter().for_each(|&s| see(s));
        for st in self.stmts.values() {
            match &st.kind {
                StmtKind::For(l) => l.body.iter().for_each(|&s| see(s)),
                StmtKind::With(w) => w.body.iter().for_each(|&s| see(s)),
                StmtKind::If(i) => i
                    .then_body
                    .iter()
                    .chain(i.else_body.iter().flatten())
                    .for_each(|&s| see(s)),
                _ => {}
            }
        }
        self.stmts.truncate(stmts);
        // A statement added later takes a dropped one's id: it must not
        // inherit its position or comment.
        self.positions.truncate(stmts);
        self.comments.retain(|s, _| s.index() < stmts);
    }

    /// The `pl.tile.alloc` statements of the top-level body, in order.
    pub fn allocs(&self) -> Vec<Alloc> {
        self.body.iter().filter_map(|&s| self.alloc_at(s)).collect()
    }

    /// Reads statement `s` as `v: pl.Ptr = pl.tile.alloc(space, size[, pinned=..])`,
    /// held as a [`StmtKind::Alloc`] or written as any other call.
    pub fn alloc_at(&self, s: StmtId) -> Option<Alloc> {
        let st = &self.stmts[s];
        if let StmtKind::Alloc {
            var,
            space,
            size,
            pinned,
        } = st.kind
        {
            return Some(Alloc {
                stmt: s,
                var,
                space,
                size,
                pinned,
            });
        }
        let var = st.def()?;
        let call = st.call()?;
        if !crate::ops::has_class(call.op_name(), crate::ops::OpClass::Alloc) {
            return None;
        }
        let space = call.args.first().and_then(Expr::as_mem_space)?;
        let size = u64::try_from(call.args.get(1)?.as_int()?).ok()?;
        let pinned = matches!(call.kwarg("pinned"), Some(Expr::Bool(true)));
        Some(Alloc {
            stmt: s,
            var,
            space,
            size,
            pinned,
        })
    }

    /// Builds `name: pl.Ptr = pl.tile.alloc(pl.Mem.X, size[, pinned=True])`
    /// and inserts it into the top-level body at `index`. Returns the new
    /// allocation variable, to be used as [`MemBase::Var`](super::MemBase::Var).
    pub fn insert_alloc(
        &mut self,
        index: usize,
        name: &str,
        space: &MemSpace,
        size: u64,
        pinned: bool,
    ) -> VarId {
        let v = self.new_var(name, Some(Type::Ptr), VarDef::Free);
        let s = self.insert(Block::Body, index, StmtKind::alloc(v, space, size, pinned));
        self.vars[v].def = VarDef::Stmt(s);
        v
    }

    /// Turns statement `s`, when it is written exactly as
    /// `v: pl.Ptr = pl.tile.alloc(pl.Mem.X, SIZE[, pinned=True])`, into a
    /// [`StmtKind::Alloc`], which prints the same text (the reader calls
    /// this on each typed assignment it reads).
    pub fn compact_alloc(&mut self, s: StmtId) {
        if let Some(kind) = self.alloc_form(s) {
            self.stmts[s].kind = kind;
        }
    }

    /// The [`StmtKind::Alloc`] statement `s` is written as, if it is one.
    fn alloc_form(&self, s: StmtId) -> Option<StmtKind> {
        let StmtKind::Assign {
            targets,
            value: Expr::Call(c),
        } = &self.stmts[s].kind
        else {
            return None;
        };
        let [var] = targets[..] else { return None };
        if &*c.func != "pl.tile.alloc" || !matches!(self.vars[var].ty, Some(Type::Ptr)) {
            return None;
        }
        let [Expr::Path(p), Expr::Int(n)] = &c.args[..] else {
            return None;
        };
        let name = p.strip_prefix("pl.Mem.")?;
        let space = MemSpace::parse(name);
        let size = u64::try_from(*n).ok()?;
        let pinned = match &c.kwargs[..] {
            [] => false,
            [k] if &*k.name == "pinned" && k.value == Expr::Bool(true) => true,
            _ => return None,
        };
        (space.name() == name).then(|| StmtKind::alloc(var, &space, size, pinned))
    }

    /// The variable with this name defined last in program order (params
    /// first), if any.
    pub fn var_by_name(&self, name: &str) -> Option<VarId> {
        self.vars
            .iter()
            .rev()
            .find(|(_, d)| &*d.name == name)
            .map(|(v, _)| v)
    }

    /// Type of variable `v`.
    pub fn ty(&self, v: VarId) -> Option<&Type> {
        self.vars[v].ty.as_ref()
    }
}

/// Calls `f` on every variable type `t` names (dimensions, extras,
/// MemRef roots and offsets, tuple elements).
fn type_vars(t: &Type, f: &mut impl FnMut(VarId)) {
    let (shape, extras, memref) = match t {
        Type::Tile(t, m) => (&t.shape[..], &t.extras[..], m),
        Type::Tensor(t, m) => (&t.shape[..], &t.extras[..], &**m),
        Type::Tuple(ts) => return ts.iter().for_each(|t| type_vars(t, f)),
        Type::Other(e) => return e.for_each_var(f),
        Type::Scalar(_) | Type::Ptr => return,
    };
    shape.iter().chain(extras).for_each(|e| e.for_each_var(f));
    if let Some(m) = memref {
        m.base_var().into_iter().for_each(&mut *f);
        m.offset()
            .iter()
            .chain(m.slot_index())
            .for_each(|e| e.for_each_var(f));
    }
}

impl Block {
    /// The statement owning this block (`None` for the function body).
    pub fn owner(self) -> Option<StmtId> {
        match self {
            Block::Body => None,
            Block::Loop(s) | Block::Then(s) | Block::Else(s) | Block::With(s) => Some(s),
        }
    }
}

/// A whole `@pl.program` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Lines before `@pl.program`, verbatim (the `# pypto.program: NAME`
    /// header, `import pypto.language as pl`, the blank line).
    pub preamble: Vec<Box<str>>,
    /// Class name.
    pub name: Box<str>,
    /// Functions, in order.
    pub functions: Vec<Function>,
    /// Comments and blank lines after the last function.
    pub trailing: Vec<Trivia>,
    /// Whether the file ends with a newline (PyPTO's dumps mostly do not).
    pub final_newline: bool,
}

impl Program {
    /// The function named `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| &*f.name == name)
    }

    /// The function named `name`, mutable.
    pub fn function_mut(&mut self, name: &str) -> Option<&mut Function> {
        self.functions.iter_mut().find(|f| &*f.name == name)
    }
}

/// The blocks nested directly in one statement (at most two: then and
/// else), as a slice or an iterator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChildBlocks {
    blocks: [Block; 2],
    len: usize,
}

impl std::ops::Deref for ChildBlocks {
    type Target = [Block];
    fn deref(&self) -> &[Block] {
        &self.blocks[..self.len]
    }
}

impl IntoIterator for ChildBlocks {
    type Item = Block;
    type IntoIter = std::iter::Take<std::array::IntoIter<Block, 2>>;
    fn into_iter(self) -> Self::IntoIter {
        self.blocks.into_iter().take(self.len)
    }
}
