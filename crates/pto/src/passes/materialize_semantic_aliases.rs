//! MaterializeSemanticAliases: loop carries live in one buffer.
//!
//! **Assumes** InitMemRef ran (tiles carry MemRefs, roots are `tile.alloc`s).
//!
//! **Guarantees**: a loop carry whose init value is read again after the
//! loop takes it starts from a copy of its own ([`carry_init`]; an
//! accumulator's is an input error). For every loop (outer loops first)
//! and every carried value, the storage of the loop's init value is pushed down the chain
//! that produces the yielded value (through in-place ops, both branches of
//! an `if`, nested loops), so init, iter arg, yielded value and loop result
//! share one MemRef whenever that is safe; the loop result always takes the
//! init's MemRef. Views of a retargeted tile follow it (same relative
//! offset). A push is declined, leaving the yield value in its own buffer
//! (MemoryReuse later inserts a `tile.move`), when the producer is a view,
//! lives in another memory space, is not in-place safe and reads the target
//! buffer, or when the target buffer is read or written after the producer
//! and before the yield, or read by the yield for another carry (a shift
//! register: `yield_(t, c)` would hand the next `c` the new `t`). An `if`
//! result is retargeted with its branches; without MemoryReuse (DSA_RP,
//! optimal, PTOAS) a non-Acc one only when its then value moved too, as the
//! yield fix-up puts it back on the then window otherwise, and a later loop
//! taking it as init must see that window. Running it twice changes nothing.
//!
//! **Planner-specific flow** (seed 000: `semantic_aliases.cpp` runs the
//! must-alias redirection and each planner's flow). In the PYPTO planner
//! the control-flow boundaries are settled later by MemoryReuse, after
//! packing; allocations are not removed here. In the DSA_RP, optimal and
//! PTOAS planners MemoryReuse does not run, so this pass finishes the job
//! itself with MemoryReuse's own stages, in MemoryReuse's order and
//! without packing: loop results realigned to their init
//! ([`yield_fixup::align_loop_carries`]), peeled accumulator if-phis
//! coalesced ([`yield_fixup::coalesce_acc_if_phis`]), identity copies
//! normalised ([`normalize`]) before and after the yield fix-up
//! ([`yield_fixup::fix_yields`]: retarget or `tile.move` before the yield,
//! ordered copies, swaps through scratch, Acc-to-Acc rejected; DSA_RP and
//! PTOAS always copy, the optimal planner retargets where MemoryReuse
//! would), then
//! allocations nobody names any more removed ([`cleanup`]). Every
//! allocation keeps its own identity: nothing is shared by lifetime.
//!
//! [`yield_fixup::align_loop_carries`]: super::rewrite::yield_fixup::align_loop_carries
//! [`yield_fixup::coalesce_acc_if_phis`]: super::rewrite::yield_fixup::coalesce_acc_if_phis
//! [`yield_fixup::fix_yields`]: super::rewrite::yield_fixup::fix_yields
//! [`normalize`]: super::rewrite::normalize
//! [`cleanup`]: super::rewrite::cleanup
//! [`carry_init`]: super::rewrite::carry_init

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{
    Block, EntityRef, Expr, ForStmt, Function, MemBase, MemRef, MemRefParts, MemSpace, Program,
    StmtId, StmtKind, Type, VarDef, VarId,
};
use crate::ops;

use super::context::{PassContext, PassError, PlannerMode};
use super::rewrite::{carry_init, normalize, yield_fixup};

/// Runs the pass on every function of `program`.
pub fn run(program: &mut Program, ctx: &mut PassContext) -> Result<(), PassError> {
    for f in &mut program.functions {
        carry_init::copy_reused_inits(f)?;
        run_function(f, ctx.planner == PlannerMode::Pypto);
        if ctx.planner != PlannerMode::Pypto {
            settle_boundaries(f, ctx)?;
        }
    }
    Ok(())
}

/// The control-flow boundary stages MemoryReuse runs after packing, for the
/// planners that skip MemoryReuse (see the module docs).
fn settle_boundaries(f: &mut Function, ctx: &PassContext) -> Result<(), PassError> {
    let snap = normalize::snapshot(f);
    yield_fixup::align_loop_carries(f);
    yield_fixup::coalesce_acc_if_phis(f);
    normalize::normalize(f, &snap);
    // The optimal planner lets a yielded value's producer write into the
    // carry's window when MemoryReuse would (no copy, one buffer fewer):
    // with branch exclusivity in its problem it then never needs more
    // bytes than the PYPTO planner's reuse. DSA_RP keeps PyPTO's copies.
    let retarget = ctx.planner == PlannerMode::Optimal;
    yield_fixup::fix_yields_with(f, ctx.soc.family(), retarget)?;
    normalize::normalize(f, &snap);
    Ok(())
}

struct Ctx {
    /// Root variable -> memory space (from the top-level `tile.alloc`s).
    spaces: Spaces,
    /// MemRefs of untyped carried values (iter args).
    carried: HashMap<VarId, MemRef>,
    /// Statement -> block containing it, packed ([`pack_block`]): 4 bytes
    /// a statement.
    parent: Vec<u32>,
    /// Root -> tiles whose MemRef names it, kept current by `retarget` and
    /// `rebase`: one intrusive list per root through two dense tables
    /// instead of a vector per root (tens of thousands of roots in a long
    /// kernel).
    members: Members,
    /// The PYPTO planner's flow: MemoryReuse settles the boundaries
    /// later, so an `if` result is retargeted as PyPTO does, whether or
    /// not its branch values moved.
    pypto_flow: bool,
}

/// Lists of variables, one per root, where each variable is on at most
/// one list: `head[root]` is a root's first member, `next[v]` the member
/// after `v` ([`NONE`] ends a list).
struct Members {
    head: Vec<u32>,
    next: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Members {
    fn new(vars: usize) -> Members {
        Members {
            head: vec![NONE; vars],
            next: vec![NONE; vars],
        }
    }

    /// Puts `v` (on no list) first on `root`'s list.
    fn add(&mut self, root: VarId, v: VarId) {
        self.next[v.index()] = self.head[root.index()];
        self.head[root.index()] = v.index() as u32;
    }

    /// Takes `v` off `root`'s list, if it is there.
    fn remove(&mut self, root: VarId, v: VarId) {
        let target = v.index() as u32;
        let mut cur = self.head[root.index()];
        if cur == target {
            self.head[root.index()] = self.next[v.index()];
            self.next[v.index()] = NONE;
            return;
        }
        while cur != NONE {
            let after = self.next[cur as usize];
            if after == target {
                self.next[cur as usize] = self.next[v.index()];
                self.next[v.index()] = NONE;
                return;
            }
            cur = after;
        }
    }

    /// The members of `root`, without changing the list.
    fn of(&self, root: VarId) -> impl Iterator<Item = VarId> + '_ {
        let mut cur = self.head[root.index()];
        std::iter::from_fn(move || {
            (cur != NONE).then(|| {
                let v = VarId::new(cur as usize);
                cur = self.next[cur as usize];
                v
            })
        })
    }

    /// Empties `root`'s list, returning its members.
    fn take(&mut self, root: VarId) -> Vec<VarId> {
        let mut out = Vec::new();
        let mut cur = std::mem::replace(&mut self.head[root.index()], NONE);
        while cur != NONE {
            out.push(VarId::new(cur as usize));
            cur = std::mem::replace(&mut self.next[cur as usize], NONE);
        }
        out
    }
}

fn run_function(f: &mut Function, pypto_flow: bool) {
    // Loops in pre-order and each statement's block, in one walk.
    let mut parent = vec![NO_BLOCK; f.stmts.len()];
    let mut loops = Vec::new();
    index_blocks(f, Block::Body, &mut parent, &mut loops);
    if loops.is_empty() {
        return;
    }
    let mut any_alloc = false;
    let spaces = Spaces::of(f, &mut any_alloc);
    if !any_alloc {
        return;
    }
    let mut cx = Ctx {
        spaces,
        carried: HashMap::default(),
        parent,
        members: Members::new(f.vars.len()),
        pypto_flow,
    };
    // Backwards, so each list holds its members in variable order.
    for (v, d) in f.vars.iter().rev() {
        if let Some(r) =
            d.ty.as_ref()
                .and_then(Type::memref)
                .and_then(MemRef::base_var)
        {
            cx.members.add(r, v);
        }
    }
    for s in loops {
        if let StmtKind::For(l) = &f.stmts[s].kind {
            let l = l.clone();
            align_loop(f, s, &l, &mut cx);
        }
    }
}

/// Records the block of every statement in `b` (nested blocks included)
/// and the `for` statements, in program order.
fn index_blocks(f: &Function, b: Block, parent: &mut [u32], loops: &mut Vec<StmtId>) {
    for &s in f.block(b) {
        parent[s.index()] = pack_block(b);
        if matches!(f.stmts[s].kind, StmtKind::For(_)) {
            loops.push(s);
        }
        for child in f.child_blocks(s) {
            index_blocks(f, child, parent, loops);
        }
    }
}

/// The space of each root variable, one byte a variable: 1 + an index
/// into the function's few spaces (0: not a root), or, should a function
/// name more than 255 spaces, the spaces themselves.
enum Spaces {
    Small(Vec<u8>),
    Full(Vec<Option<MemSpace>>),
}

impl Spaces {
    /// The spaces of `f`'s top-level allocations; sets `any` when there
    /// is one.
    fn of(f: &Function, any: &mut bool) -> Spaces {
        let mut small = vec![0u8; f.vars.len()];
        let mut seen: Vec<MemSpace> = Vec::new();
        for a in f.body.iter().filter_map(|&s| f.alloc_at(s)) {
            *any = true;
            let i = match seen.iter().position(|&x| x == a.space) {
                Some(i) => i,
                None => {
                    seen.push(a.space);
                    seen.len() - 1
                }
            };
            let Ok(code) = u8::try_from(i + 1) else {
                drop(small);
                let mut full = vec![None; f.vars.len()];
                for a in f.body.iter().filter_map(|&s| f.alloc_at(s)) {
                    full[a.var.index()] = Some(a.space);
                }
                return Spaces::Full(full);
            };
            small[a.var.index()] = code;
        }
        Spaces::Small(small)
    }

    /// Whether roots `a` and `b` are in the same space (or neither is a
    /// root).
    fn same(&self, a: VarId, b: VarId) -> bool {
        match self {
            Spaces::Small(t) => t[a.index()] == t[b.index()],
            Spaces::Full(t) => t[a.index()] == t[b.index()],
        }
    }
}

/// No block (a statement no block contains).
const NO_BLOCK: u32 = u32::MAX;

/// A block in 4 bytes: 0 for the body, else 1 + (owner statement << 2 |
/// kind). Owner indices stay below 2^29 (an arena of that many
/// statements would not fit in memory), so the code never reaches
/// [`NO_BLOCK`].
fn pack_block(b: Block) -> u32 {
    let (s, kind) = match b {
        Block::Body => return 0,
        Block::Loop(s) => (s, 0),
        Block::Then(s) => (s, 1),
        Block::Else(s) => (s, 2),
        Block::With(s) => (s, 3),
    };
    1 + ((s.index() as u32) << 2 | kind)
}

/// The block [`pack_block`] packed; `None` for [`NO_BLOCK`].
fn unpack_block(code: u32) -> Option<Block> {
    if code == NO_BLOCK {
        return None;
    }
    let Some(c) = code.checked_sub(1) else {
        return Some(Block::Body);
    };
    let s = StmtId::new((c >> 2) as usize);
    Some(match c & 3 {
        0 => Block::Loop(s),
        1 => Block::Then(s),
        2 => Block::Else(s),
        _ => Block::With(s),
    })
}

fn memref_of(f: &Function, cx: &Ctx, v: VarId) -> Option<MemRef> {
    f.ty(v)
        .and_then(Type::memref)
        .cloned()
        .or_else(|| cx.carried.get(&v).cloned())
}

/// Sets `v`'s MemRef; false when its type has no MemRef.
fn set_memref(f: &mut Function, v: VarId, m: MemRef) -> bool {
    match f.vars[v].ty.as_mut().and_then(Type::memref_mut) {
        Some(slot) => {
            *slot = Some(m);
            true
        }
        None => false,
    }
}

/// Sets `v`'s MemRef and keeps the root -> members index current.
fn retarget(f: &mut Function, cx: &mut Ctx, v: VarId, m: MemRef) {
    if let Some(old) = f.ty(v).and_then(Type::memref).and_then(MemRef::base_var) {
        cx.members.remove(old, v);
    }
    let r = m.base_var();
    // A variable without a MemRef slot is on no list (nothing to rebase).
    if set_memref(f, v, m) {
        if let Some(r) = r {
            cx.members.add(r, v);
        }
    }
}

fn root(m: &MemRef) -> Option<VarId> {
    m.base_var()
}

fn align_loop(f: &mut Function, s: StmtId, l: &ForStmt, cx: &mut Ctx) {
    let yielded: Vec<Expr> = f
        .yield_index(Block::Loop(s))
        .and_then(|i| match &f.stmts[f.block(Block::Loop(s))[i]].kind {
            StmtKind::Yield(v) => Some(v.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let yield_stmt = f
        .yield_index(Block::Loop(s))
        .map(|i| f.block(Block::Loop(s))[i]);
    for (k, &arg) in l.iter_args.iter().enumerate() {
        let Some(init) = l.init_values().get(k).and_then(Expr::as_var) else {
            continue;
        };
        let Some(target) = memref_of(f, cx, init) else {
            continue;
        };
        if root(&target).is_none() {
            continue;
        }
        cx.carried.insert(arg, target.clone());
        // A shift register (`yield_(t, c)` for carries `(c, d)`): the
        // yield hands the old value in this carry's buffer to another
        // carry, so the new value may not be written there first.
        let shifted = yielded.iter().enumerate().any(|(j, e)| {
            let Some(u) = e.as_var().filter(|_| j != k) else {
                return false;
            };
            let other = l.init_values().get(j).and_then(Expr::as_var);
            let from = memref_of(f, cx, u).and_then(|m| root(&m));
            let to = other
                .and_then(|x| memref_of(f, cx, x))
                .and_then(|m| root(&m));
            from == root(&target) && to != from
        });
        if let (Some(y), Some(ys), false) =
            (yielded.get(k).and_then(Expr::as_var), yield_stmt, shifted)
        {
            push(f, cx, y, &target, ys, 0);
        }
        if let Some(&r) = l.results.get(k) {
            if matches!(f.ty(r), Some(Type::Tile(_, _))) {
                retarget(f, cx, r, target.clone());
            } else {
                cx.carried.insert(r, target.clone());
            }
        }
    }
}

/// Tries to make `v` (the value yielded by `yield_stmt`) live in `target`.
fn push(f: &mut Function, cx: &mut Ctx, v: VarId, target: &MemRef, yield_stmt: StmtId, depth: u32) {
    if depth > 64 {
        return;
    }
    let Some(cur) = memref_of(f, cx, v) else {
        return;
    };
    if same_window(&cur, target) {
        return;
    }
    let (Some(cur_root), Some(target_root)) = (root(&cur), root(target)) else {
        return;
    };
    if !cx.spaces.same(cur_root, target_root) {
        return;
    }
    let VarDef::Stmt(s) = f.vars[v].def else {
        return;
    };
    match f.stmts[s].kind.clone() {
        StmtKind::Assign { value, .. } => {
            let Some(call) = value.as_call() else { return };
            let info = ops::lookup_or_default(call.op_name());
            if info.is_view() {
                return;
            }
            let reads_target = call
                .args
                .iter()
                .chain(call.kwargs.iter().map(|k| &k.value))
                .any(|a| {
                    let mut hit = false;
                    a.for_each_var(&mut |u| {
                        if memref_of(f, cx, u).and_then(|m| root(&m)) == Some(target_root) {
                            hit = true;
                        }
                    });
                    hit
                });
            if reads_target && !info.is_inplace_safe() {
                return;
            }
            if info.output_binds_input().is_some() {
                // The result is written into an input: that input must move.
                if let Some(i) = info.output_binds_input() {
                    if let Some(u) = call.args.get(i).and_then(Expr::as_var) {
                        push(f, cx, u, target, yield_stmt, depth + 1);
                    }
                }
                if memref_of(f, cx, v).is_some_and(|m| same_window(&m, target)) {
                    return;
                }
            }
            if target_touched_after(f, cx, s, yield_stmt, target_root, cur_root) {
                return;
            }
            let old_base_off = cur.const_offset().unwrap_or(0);
            if !fits(f, cx, cur_root, old_base_off, target) {
                return;
            }
            rebase(f, cx, cur_root, old_base_off, target);
        }
        StmtKind::If(i) => {
            let Some(k) = i.results.iter().position(|&r| r == v) else {
                return;
            };
            let mut then_moved = false;
            for b in [Block::Then(s), Block::Else(s)] {
                let yi = f.yield_index(b);
                if let Some(yi) = yi {
                    let ys = f.block(b)[yi];
                    if let StmtKind::Yield(vals) = &f.stmts[ys].kind {
                        if let Some(u) = vals.get(k).and_then(Expr::as_var) {
                            push(f, cx, u, target, yield_stmt, depth + 1);
                            if b == Block::Then(s) {
                                then_moved =
                                    memref_of(f, cx, u).is_some_and(|m| same_window(&m, target));
                            }
                        }
                    }
                }
            }
            // Without MemoryReuse (DSA_RP, optimal, PTOAS) a non-Acc `if`
            // result ends in the window its then branch yields (the yield
            // fix-up realigns it there; an Acc one is coalesced onto the
            // target or rejected). Retargeting it while the then value
            // stays put would show a later loop taking this result as its
            // init a window the result never holds: that loop's body
            // would be pushed onto bytes the target's own family (the
            // outer loop's carry and result) may still need.
            let acc = matches!(f.ty(v), Some(Type::Tile(t, _)) if t.space == Some(MemSpace::Acc));
            if then_moved || acc || cx.pypto_flow {
                retarget(f, cx, v, target.clone());
            }
        }
        StmtKind::For(l) => {
            let Some(k) = l.results.iter().position(|&r| r == v) else {
                return;
            };
            // A loop result lives where its init lives: it moves only when
            // the init did.
            let Some(init) = l.init_values().get(k).and_then(Expr::as_var) else {
                return;
            };
            push(f, cx, init, target, yield_stmt, depth + 1);
            if memref_of(f, cx, init).is_some_and(|m| same_window(&m, target)) {
                retarget(f, cx, v, target.clone());
            }
        }
        _ => {}
    }
}

fn same_window(a: &MemRef, b: &MemRef) -> bool {
    a.base() == b.base() && a.offset() == b.offset()
}

/// Whether the tiles rooted at `old_root`, moved as [`rebase`] moves them
/// (relative to `old_base_off`), fit in the allocation of `target`'s root.
/// A value larger than the carry's buffer (the reader compares the sizes
/// it knows; an untyped carry hides them) is left in its own buffer, where
/// the yield fix-up reports it, instead of overrunning the carry's
/// allocation. The target's own offset is not counted: a program another
/// planner laid out may carry absolute addresses, which the planners that
/// place by lifetime do not read.
fn fits(f: &Function, cx: &Ctx, old_root: VarId, old_base_off: i64, target: &MemRef) -> bool {
    let Some(troot) = root(target) else {
        return true;
    };
    let capacity = match f.vars[troot].def {
        VarDef::Stmt(s) => f.alloc_at(s).map(|a| a.size),
        _ => None,
    };
    let Some(capacity) = capacity else {
        return true;
    };
    cx.members.of(old_root).all(|v| {
        let Some(m) = f.ty(v).and_then(Type::memref) else {
            return true;
        };
        let (Some(o), Some(size)) = (m.const_offset(), m.size()) else {
            return true;
        };
        // A tile below the moved value keeps its place relative to it.
        let Ok(start) = u64::try_from(o - old_base_off) else {
            return true;
        };
        start.checked_add(size).is_some_and(|end| end <= capacity)
    })
}

/// Moves every tile rooted at `old_root` into `target`'s root, keeping each
/// one's offset relative to `old_base_off`.
fn rebase(f: &mut Function, cx: &mut Ctx, old_root: VarId, old_base_off: i64, target: &MemRef) {
    let Some(troot) = root(target) else { return };
    if troot == old_root {
        return;
    }
    let toff = target.const_offset().unwrap_or(0);
    let ids = cx.members.take(old_root);
    for &v in &ids {
        cx.members.add(troot, v);
    }
    for v in ids {
        let Some(m) = f.ty(v).and_then(Type::memref).cloned() else {
            continue;
        };
        if m.base() != MemBase::Var(old_root) {
            continue;
        }
        let offset = match m.const_offset() {
            Some(o) => {
                let new = toff + (o - old_base_off);
                // Keep PyPTO's spelling: roots print `pl.const`, views bare.
                Some(match m.offset() {
                    Some(Expr::Int(_)) => Expr::Int(new),
                    _ => Expr::const_i64(new),
                })
            }
            None => m.offset(),
        };
        let size = m.size();
        let _ = set_memref(
            f,
            v,
            MemRef::from(MemRefParts {
                base: MemBase::Var(troot),
                offset,
                size,
                slots: target.slots().or(m.slots()),
                slot_index: target.slot_index().or(m.slot_index()).cloned(),
            }),
        );
    }
}

/// Whether, after statement `s` and before `yield_stmt`, the target buffer
/// is read or written by anything that is not `s`'s own result family.
fn target_touched_after(
    f: &Function,
    cx: &Ctx,
    s: StmtId,
    yield_stmt: StmtId,
    target_root: VarId,
    own_root: VarId,
) -> bool {
    let hits =
        |u: VarId| -> bool { memref_of(f, cx, u).and_then(|m| root(&m)) == Some(target_root) };
    let mut cur = s;
    loop {
        let Some(b) = unpack_block(cx.parent[cur.index()]) else {
            return false;
        };
        let block = f.block(b);
        let Some(pos) = block.iter().position(|&x| x == cur) else {
            return false;
        };
        for &later in &block[pos + 1..] {
            if later == yield_stmt {
                return false;
            }
            if stmt_touches(f, later, &hits, own_root, cx) {
                return true;
            }
        }
        match b.owner() {
            Some(owner) => cur = owner,
            None => return false,
        }
    }
}

fn stmt_touches(
    f: &Function,
    s: StmtId,
    hits: &impl Fn(VarId) -> bool,
    own_root: VarId,
    cx: &Ctx,
) -> bool {
    let st = &f.stmts[s];
    let mut found = false;
    // A nested loop's or `if`'s yield reads what it yields like any
    // statement (an inner loop handing on the outer carry reads it).
    st.for_each_use(&mut |u| {
        if hits(u) {
            found = true;
        }
    });
    if let StmtKind::Assign { targets, .. } = &st.kind {
        for &t in targets {
            let r = memref_of(f, cx, t).and_then(|m| root(&m));
            if hits(t) && r != Some(own_root) {
                found = true;
            }
        }
    }
    if found {
        return true;
    }
    f.child_blocks(s).into_iter().any(|b| {
        f.block(b)
            .iter()
            .any(|&x| stmt_touches(f, x, hits, own_root, cx))
    })
}
