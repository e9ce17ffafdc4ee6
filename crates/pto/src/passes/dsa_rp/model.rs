//! Lowering of one (function, memory space) to a DSA_RP placement model.
//!
//! One [`DsaBuffer`] per allocation root of the space that some tile still
//! uses (roots nobody references are dropped, as PyPTO drops their allocs).
//! The model keeps what the canonical greedy needs beyond a plain
//! [`tilemem_plan::Problem`]: the statement-level lifetime `[s, e]`, the pipe
//! facts of the root's first write and of its accesses, and the three pair
//! kinds (hard separations, pipeline separations that may be relaxed, soft
//! penalties). [`DsaModel::to_problem`] gives the IR-free problem used by the
//! validator, the exact solver and the export files.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use tilemem_plan::{Buffer, BufferId, Problem};
use tilemem_soc::{Family, MemoryAllocatorPolicy, Soc};

use super::penalty::{self, Recog};
use crate::ir::{Block, EntityRef, Expr, Function, MemSpace, StmtKind, Type, VarId};
use crate::ops::{OpClass, Pipe};
use crate::passes::analysis::exclusive::Occupancy;
use crate::passes::analysis::facts::Facts;
use crate::passes::analysis::hazards::{
    forbidden_operands_with, is_split_aiv, pipeline_membership,
};
use crate::passes::analysis::order::Lifetime;
use crate::passes::analysis::order::ProgramOrder;
use crate::passes::analysis::reserve::{tiles_start, Reserve};
use crate::passes::SeedRules;

/// One allocation root to place.
#[derive(Clone, Debug)]
pub(crate) struct DsaBuffer {
    /// The alloc variable.
    pub root: VarId,
    /// Alloc name (`mem_vec_3`).
    pub name: String,
    /// Bytes of the alloc.
    pub size: u64,
    /// Statement-level lifetime `[start, end]` (union of its members).
    pub start: u32,
    pub end: u32,
    /// Author-declared allocation (`pinned=True`).
    pub pinned: bool,
    /// What the penalty recognizer found ([`super::penalty`]).
    pub recog: Recog,
    /// Pipeline memberships `(group, stage)` of the root's members.
    pub stages: BTreeSet<(u32, i64)>,
}

impl DsaBuffer {
    /// Half-open DSA lifetime `[2s+1, max(2s+2, 2e+1))`.
    pub fn lifetime(&self) -> (u64, u64) {
        Lifetime {
            def: self.start,
            last: self.end,
        }
        .half_open()
    }
}

/// A pipeline group two roots share: `(group, dense stage ordinal of the
/// first root, of the second)`.
pub(crate) type SharedStage = (u32, usize, usize);

/// Why two roots must not share bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum HardReason {
    /// Lifetimes overlap.
    Lifetime,
    /// A declared (pinned) allocation is kept apart from everything.
    Declared,
    /// An op's output may not alias this input.
    NoAlias,
    /// A target hazard (split-AIV load + tpop).
    Hazard,
}

/// The placement model of one (function, space).
#[derive(Clone, Debug)]
pub(crate) struct DsaModel {
    /// Function name.
    pub function: String,
    /// Space.
    pub space: MemSpace,
    /// Roots to place.
    pub buffers: Vec<DsaBuffer>,
    /// Hard pairs `(i, j)`, `i < j`.
    pub hard: BTreeMap<(usize, usize), HardReason>,
    /// Pairs of roots sharing a pipeline group: `(i, j) -> [(group, dense
    /// stage ordinal of i, of j)]`, one entry per shared group (nested
    /// pipelines tag a tile with several). Whether they must stay apart
    /// depends on the groups' depths (see [`DsaModel::pipeline_hard`]).
    pub pipeline: BTreeMap<(usize, usize), Vec<SharedStage>>,
    /// Per group: requested depth (number of stages) and slot size (largest
    /// aligned member).
    pub groups: BTreeMap<u32, (usize, u64)>,
    /// Soft pairs `(earlier, later)` of unit weight: a cross-pipe handoff;
    /// sorted, without duplicates. `u32` indices: long pipelines have
    /// millions of them.
    pub soft: Vec<(u32, u32)>,
    /// Pairs `(i, j)`, `i < j`, whose hulls overlap (a `Lifetime` hard
    /// pair) although they are never live together: exclusive branches of
    /// an `if` ([`crate::passes::analysis::exclusive`]), with no other hard
    /// reason, no declaration and no shared pipeline group. Only the
    /// optimal mode's problem lets them share.
    pub exclusive: BTreeSet<(usize, usize)>,
    /// Usable bytes, when known.
    pub capacity: Option<u64>,
    /// Tiles start at or above this (end of the reserved windows).
    pub reserved_end: u64,
    /// Address alignment in this space (the allocator policy's).
    pub align: u64,
}

impl DsaModel {
    /// Whether a pair sharing pipeline groups must stay apart at `depth`:
    /// when in some shared group their dense stage ordinals fall in
    /// different residues modulo that group's depth, so they hold
    /// concurrent copies (seed 000's stage guard, which DSA_RP keeps as
    /// hard separations). Two roots of one stage in every shared group are
    /// not concurrent copies of each other: only their lifetimes (and the
    /// other hard rules) separate them. Depth 1 lets every stage share.
    pub fn pipeline_hard(&self, pair: (usize, usize), depth: &BTreeMap<u32, usize>) -> bool {
        let Some(shared) = self.pipeline.get(&pair) else {
            return false;
        };
        shared.iter().any(|&(g, a, b)| {
            let f = depth.get(&g).copied().unwrap_or(1).max(1);
            a % f != b % f
        })
    }

    /// The affordable depth of every group: `min(stages, capacity / slot)`
    /// (at least 1), as MemoryReuse's pipeline guard computes it.
    pub fn affordable_depths(&self) -> BTreeMap<u32, usize> {
        self.groups
            .iter()
            .map(|(&g, &(stages, slot))| {
                let fit = match (self.capacity, slot) {
                    (Some(c), s) if s > 0 => usize::try_from(c / s).unwrap_or(usize::MAX),
                    _ => usize::MAX,
                };
                (g, stages.min(fit).max(1))
            })
            .collect()
    }

    /// The IR-free problem: buffers named after their allocs, 32-byte
    /// aligned; hard pairs and the pipeline pairs that `depth` keeps apart
    /// as conflicts; soft pairs as unit penalties. With `depth == None`
    /// every pipeline pair is a unit penalty instead (the optimal mode's
    /// bytes-first model).
    /// [`to_problem`](Self::to_problem) with the [`exclusive`](Self::exclusive)
    /// pairs as compatible pairs: they may share bytes although their
    /// lifetimes intersect.
    pub fn to_problem_sharing(&self, depth: Option<&BTreeMap<u32, usize>>) -> Problem {
        let mut p = self.to_problem(depth);
        if self.exclusive.is_empty() {
            return p;
        }
        let id = |i: usize| BufferId(i as u32);
        p.conflicts
            .retain(|&(a, b)| !self.exclusive.contains(&(a.index(), b.index())));
        for &(i, j) in &self.exclusive {
            p.allow_sharing(id(i), id(j));
        }
        p
    }

    pub fn to_problem(&self, depth: Option<&BTreeMap<u32, usize>>) -> Problem {
        let mut p = Problem::new();
        for b in &self.buffers {
            let (lo, hi) = b.lifetime();
            p.push(
                Buffer::new(b.size, lo, hi)
                    .with_align(self.align)
                    .with_name(b.name.clone()),
            );
        }
        p.capacity = self.capacity;
        if self.reserved_end > 0 {
            p.reserved.push((0, self.reserved_end));
        }
        let id = |i: usize| BufferId(i as u32);
        for &(i, j) in self.hard.keys() {
            p.conflicts.push((id(i), id(j)));
        }
        // Penalty pairs, one per occurrence, counted after sorting: the
        // same `(i, j)` order and weights as a map, without a tree node per
        // pair (long pipelines have millions of handoff pairs).
        let mut pen: Vec<(u32, u32)> = self
            .soft
            .iter()
            .map(|&(i, j)| (i.min(j), i.max(j)))
            .collect();
        for &pair in self.pipeline.keys() {
            if self.hard.contains_key(&pair) {
                continue;
            }
            match depth {
                Some(d) if self.pipeline_hard(pair, d) => {
                    p.conflicts.push((id(pair.0), id(pair.1)))
                }
                Some(_) => {}
                None => pen.push((pair.0 as u32, pair.1 as u32)),
            }
        }
        pen.sort_unstable();
        p.penalties.reserve(pen.len());
        for run in pen.chunk_by(|a, b| a == b) {
            let (i, j) = run[0];
            p.penalties
                .push((BufferId(i), BufferId(j), run.len() as u64));
        }
        p
    }
}

/// The alloc variable a tile variable's MemRef points into.
pub(crate) fn root_of(f: &Function, v: VarId) -> Option<VarId> {
    let ty = f.ty(v)?;
    let Type::Tile(_, m) = ty else { return None };
    m.as_ref()?.base_var()
}

fn has_partial_view(ty: &Type, root_size: u64, root_low: i64) -> bool {
    let Type::Tile(t, Some(m)) = ty else {
        return false;
    };
    // Relative to the root's lowest offset: an already planned program
    // carries absolute addresses.
    let off_nonzero = m.const_offset() != Some(root_low);
    let size_differs = m.size().is_some_and(|s| s != root_size);
    let valid_shape = t.extras.iter().any(|e| match e {
        Expr::Call(c) => c.kwarg("valid_shape").is_some(),
        _ => false,
    });
    off_nonzero || size_differs || valid_shape
}

/// Builds the models of every space of `f` that has roots in use, in space
/// order. Tiles of a space start above its `reserves`; alignment and
/// the reserved end come from `policy`. `rules` says which seed-only hard
/// rules apply (all of them by default; none under `--compat
/// pypto-e2d0f78`, which reproduces the reference exactly).
pub(crate) fn build(
    f: &Function,
    facts: &Facts,
    order: &ProgramOrder,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    reserves: &[Reserve],
    rules: SeedRules,
) -> Vec<DsaModel> {
    let allocs = f.allocs();
    let alloc_vars: HashSet<VarId> = allocs.iter().map(|a| a.var).collect();
    // Members of each root, by alloc variable.
    let mut members: BTreeMap<usize, Vec<VarId>> = BTreeMap::new();
    for v in f.vars.keys() {
        if let Some(r) = root_of(f, v) {
            if alloc_vars.contains(&r) {
                members.entry(r.index()).or_default().push(v);
            }
        }
    }
    // A loop or `if` result printed without a MemRef of its own lives in
    // the bytes of the value each branch (or the loop body) yields: it is
    // a member of that root, so reads after the loop keep the root alive.
    for (_, s) in f.walk() {
        let (results, blocks) = match &f.stmts[s].kind {
            StmtKind::For(l) => (&l.results, vec![crate::ir::Block::Loop(s)]),
            StmtKind::If(i) => {
                let mut b = vec![crate::ir::Block::Then(s)];
                if i.else_body.is_some() {
                    b.push(crate::ir::Block::Else(s));
                }
                (&i.results, b)
            }
            _ => continue,
        };
        for b in blocks {
            let Some(y) = f.yield_index(b) else { continue };
            let StmtKind::Yield(vals) = &f.stmts[f.block(b)[y]].kind else {
                continue;
            };
            for (&r, v) in results.iter().zip(vals) {
                if root_of(f, r).is_some() {
                    continue;
                }
                let Some(root) = v.as_var().and_then(|v| root_of(f, v)) else {
                    continue;
                };
                if let Some(m) = members.get_mut(&root.index()) {
                    if !m.contains(&r) {
                        m.push(r);
                    }
                }
            }
        }
    }
    let family = soc.family();
    let penalties_on = soc.has_backend();
    let mut by_space: BTreeMap<MemSpace, Vec<usize>> = BTreeMap::new();
    for (k, a) in allocs.iter().enumerate() {
        if matches!(a.space, MemSpace::Ddr) || !members.contains_key(&a.var.index()) {
            continue;
        }
        by_space.entry(a.space).or_default().push(k);
    }
    let mut out = Vec::new();
    for (space, ks) in by_space {
        // Spaces the SoC does not know get no capacity and no alignment.
        let tspace = Some(space).filter(|s| s.is_known());
        let mut buffers = Vec::new();
        let mut occupancy: Vec<Occupancy> = Vec::new();
        // Each member's root size and lowest offset (its partial-view test).
        let mut extent: BTreeMap<VarId, (u64, i64)> = BTreeMap::new();
        let mut index_of: BTreeMap<usize, usize> = BTreeMap::new();
        for &k in &ks {
            let a = &allocs[k];
            let mem = &members[&a.var.index()];
            let mut start = u32::MAX;
            let mut end = 0u32;
            let mut stages = BTreeSet::new();
            let low = mem
                .iter()
                .filter_map(|&v| {
                    f.ty(v)
                        .and_then(Type::memref)
                        .and_then(|m| m.const_offset())
                })
                .min()
                .unwrap_or(0);
            for &v in mem {
                let fx = facts.var(v);
                if let Some(d) = fx.def {
                    start = start.min(d);
                    end = end.max(d);
                }
                if let Some(l) = fx.last() {
                    end = end.max(l);
                    start = start.min(l);
                }
                if f.ty(v).is_some() {
                    extent.insert(v, (a.size, low));
                }
                // The defining statement, when an assignment with a real op.
                if let crate::ir::VarDef::Stmt(s) = f.vars[v].def {
                    if let Some(call) = f.stmts[s].call() {
                        for gs in pipeline_membership(call) {
                            stages.insert(gs);
                        }
                    }
                }
            }
            if start == u32::MAX {
                start = 0;
            }
            index_of.insert(a.var.index(), buffers.len());
            occupancy.push(Occupancy::of(facts, mem));
            buffers.push(DsaBuffer {
                root: a.var,
                name: f.vars[a.var].name.to_string(),
                size: a.size,
                start,
                end: end.max(start),
                pinned: a.pinned,
                recog: Recog::default(),
                stages,
            });
        }
        let n = buffers.len();
        let member_root: BTreeMap<VarId, usize> = buffers
            .iter()
            .enumerate()
            .flat_map(|(i, b)| members[&b.root.index()].iter().map(move |&v| (v, i)))
            .collect();
        let recogs = penalty::recognize(
            f,
            order,
            n,
            &|v| member_root.get(&v).copied(),
            &|v| match (f.ty(v), extent.get(&v)) {
                (Some(ty), Some(&(size, low))) => has_partial_view(ty, size, low),
                _ => true,
            },
            family,
        );
        for (b, r) in buffers.iter_mut().zip(recogs) {
            b.recog = r;
        }
        let mut hard = BTreeMap::new();
        let mut exclusive = BTreeSet::new();
        // Pipeline groups: dense stage ordinals and slot sizes.
        let mut group_stages: BTreeMap<u32, BTreeSet<i64>> = BTreeMap::new();
        let mut group_slot: BTreeMap<u32, u64> = BTreeMap::new();
        for b in &buffers {
            for &(g, st) in &b.stages {
                group_stages.entry(g).or_default().insert(st);
                let e = group_slot.entry(g).or_default();
                *e = (*e).max(tspace.map_or(b.size, |t| policy.align_address(b.size, t)));
            }
        }
        // Dense stage ordinals, looked up per pair (a scan per pair made
        // the pair loop cubic on long pipelines).
        let ordinals: BTreeMap<(u32, i64), usize> = group_stages
            .iter()
            .flat_map(|(&g, set)| set.iter().enumerate().map(move |(k, &st)| ((g, st), k)))
            .collect();
        let ordinal = |g: u32, st: i64| ordinals.get(&(g, st)).copied().unwrap_or(0);
        let lifetimes: Vec<(u64, u64)> = buffers.iter().map(DsaBuffer::lifetime).collect();
        // Overlapping lifetimes: a sweep in start order meets exactly the
        // overlapping pairs (work proportional to them, not to n^2).
        let mut by_start: Vec<usize> = (0..n).collect();
        by_start.sort_unstable_by_key(|&i| (lifetimes[i].0, i));
        for (p, &x) in by_start.iter().enumerate() {
            let hi = lifetimes[x].1;
            for &y in &by_start[p + 1..] {
                if lifetimes[y].0 >= hi {
                    break;
                }
                let (i, j) = (x.min(y), x.max(y));
                let (a, b) = (&buffers[i], &buffers[j]);
                hard.insert((i, j), HardReason::Lifetime);
                let grouped = a.stages.iter().any(|x| b.stages.iter().any(|y| x.0 == y.0));
                if !(a.pinned || b.pinned || grouped)
                    && (occupancy[i].has_gap() || occupancy[j].has_gap())
                    && occupancy[i].disjoint(&occupancy[j])
                {
                    exclusive.insert((i, j));
                }
            }
        }
        let mut pipeline = BTreeMap::new();
        let mut soft: Vec<(u32, u32)> = Vec::new();
        // The rules of a pair whose lifetimes do not overlap. Only pairs
        // some rule can apply to are visited (see `apart_candidates`);
        // visiting one twice changes nothing.
        let mut apart = |i: usize, j: usize| {
            let (i, j) = (i.min(j), i.max(j));
            let ((alo, ahi), (blo, bhi)) = (lifetimes[i], lifetimes[j]);
            if i == j || (alo < bhi && blo < ahi) {
                return;
            }
            let (a, b) = (&buffers[i], &buffers[j]);
            if a.pinned || b.pinned {
                hard.insert((i, j), HardReason::Declared);
                return;
            }
            // Every group the two roots share, with both dense stage
            // ordinals: whether they must stay apart depends on the
            // depths (see `DsaModel::pipeline_hard`).
            let shared: Vec<SharedStage> = a
                .stages
                .iter()
                .flat_map(|&(g, sa)| {
                    b.stages
                        .iter()
                        .filter(move |x| x.0 == g)
                        .map(move |&(_, sb)| (g, ordinal(g, sa), ordinal(g, sb)))
                })
                .collect();
            if shared.iter().any(|&(_, x, y)| x != y) {
                // Copies of different stages of one pipelined loop: their
                // handoffs are the pipeline's own, never a reuse penalty.
                pipeline.insert((i, j), shared);
                return;
            }
            if !penalties_on {
                return;
            }
            let (fi, si) = if ahi <= blo { (i, j) } else { (j, i) };
            let (first, second) = (&buffers[fi].recog, &buffers[si].recog);
            if penalty::handoff(first, second) {
                soft.push((fi as u32, si as u32));
            }
            if penalty::back_edge(first, second) {
                soft.push((si as u32, fi as u32));
            }
        };
        apart_candidates(&buffers, penalties_on, &mut apart);
        soft.sort_unstable();
        soft.dedup();
        // No-alias rules and hazards, from each defining statement.
        let split =
            rules.split_load_tpop && is_split_aiv(f) && soc.requires_split_load_tpop_workaround();
        let mut add_hard = |x: usize, y: usize, why: HardReason| {
            if x != y {
                let key = (x.min(y), x.max(y));
                hard.entry(key).or_insert(why);
                exclusive.remove(&key);
            }
        };
        for (_, s) in f.walk() {
            let st = &f.stmts[s];
            let StmtKind::Assign { targets, .. } = &st.kind else {
                continue;
            };
            let Some(call) = st.call() else { continue };
            let info = crate::ops::lookup_or_default(call.op_name());
            for &out_var in targets {
                let Some(ro) = root_of(f, out_var) else {
                    continue;
                };
                let Some(&oi) = index_of.get(&ro.index()) else {
                    continue;
                };
                let arg_var = |i: usize| call.args.get(i).and_then(Expr::as_var);
                for k in forbidden_operands_with(f, call, out_var, family, rules.narrowing_casts) {
                    if let Some(ri) = arg_var(k)
                        .and_then(|x| root_of(f, x))
                        .and_then(|r| index_of.get(&r.index()))
                    {
                        add_hard(oi, *ri, HardReason::NoAlias);
                    }
                }
                if split {
                    // The op class of the statement defining `x`.
                    let class_of = |x: VarId| match f.vars[x].def {
                        crate::ir::VarDef::Stmt(d) => f.stmts[d]
                            .call()
                            .map(|c| crate::ops::lookup_or_default(c.op_name()).class),
                        _ => None,
                    };
                    let reads_tpop = call
                        .args
                        .iter()
                        .filter_map(Expr::as_var)
                        .any(|x| class_of(x) == Some(OpClass::Tpop));
                    if reads_tpop {
                        for x in call.args.iter().filter_map(Expr::as_var) {
                            let is_load = class_of(x) == Some(OpClass::Load);
                            if let (true, Some(ri)) = (
                                is_load,
                                root_of(f, x).and_then(|r| index_of.get(&r.index())),
                            ) {
                                add_hard(oi, *ri, HardReason::Hazard);
                            }
                        }
                    }
                }
            }
            // The written workspace of `tile.sels` is a seed-only rule too.
            let separations = if rules.written_workspace {
                info.operand_separations(family, call.args.len())
            } else {
                Vec::new()
            };
            for (x, y) in separations {
                let r = |k: usize| {
                    call.args
                        .get(k)
                        .and_then(Expr::as_var)
                        .and_then(|v| root_of(f, v))
                        .and_then(|r| index_of.get(&r.index()).copied())
                };
                if let (Some(a), Some(b)) = (r(x), r(y)) {
                    add_hard(a, b, HardReason::NoAlias);
                }
            }
        }
        let _ = Family::A5;
        soft.retain(|&(x, y)| !hard.contains_key(&(x.min(y) as usize, x.max(y) as usize)));
        soft.shrink_to_fit();
        pipeline.retain(|key, _| !hard.contains_key(key));
        let groups = group_stages
            .iter()
            .map(|(&g, st)| (g, (st.len(), group_slot.get(&g).copied().unwrap_or(0))))
            .collect();
        out.push(DsaModel {
            function: f.name.to_string(),
            capacity: tspace.and_then(|s| soc.capacity(s)),
            reserved_end: tiles_start(reserves, &space, policy),
            align: tspace.map_or(1, |t| policy.alignment(t)),
            space,
            buffers,
            hard,
            pipeline,
            groups,
            soft,
            exclusive,
        });
    }
    out
}

/// Calls `apart(i, j)` for every pair of roots a rule other than the
/// lifetime overlap may apply to (pairs may repeat): a declared root with
/// every other, the roots sharing a pipeline group, and, with penalties on,
/// the qualifying roots of one structured path whose recognizer facts allow
/// a handoff or a back-edge penalty ([`penalty::may_pair`]). Every other
/// pair gets nothing from the rules, so the all-pairs scan is not needed.
fn apart_candidates(
    buffers: &[DsaBuffer],
    penalties_on: bool,
    apart: &mut dyn FnMut(usize, usize),
) {
    let n = buffers.len();
    for p in (0..n).filter(|&p| buffers[p].pinned) {
        for j in 0..n {
            apart(p, j);
        }
    }
    let mut group_members: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, b) in buffers.iter().enumerate() {
        for &(g, _) in &b.stages {
            let m = group_members.entry(g).or_default();
            if m.last() != Some(&i) {
                m.push(i);
            }
        }
    }
    for members in group_members.values() {
        for (x, &i) in members.iter().enumerate() {
            for &j in &members[x + 1..] {
                apart(i, j);
            }
        }
    }
    if !penalties_on {
        return;
    }
    // Qualifying roots by path, then by the facts `may_pair` reads.
    type Class = (Option<Pipe>, BTreeSet<Option<Pipe>>);
    let mut paths: BTreeMap<(u8, usize), BTreeMap<Class, Vec<usize>>> = BTreeMap::new();
    for (i, b) in buffers.iter().enumerate() {
        let r = &b.recog;
        if !r.qualifies {
            continue;
        }
        let path = match r.path {
            None => (0, 0),
            Some(Block::Body) => (1, 0),
            Some(Block::Loop(s)) => (2, s.index()),
            Some(Block::Then(s)) => (3, s.index()),
            Some(Block::Else(s)) => (4, s.index()),
            Some(Block::With(s)) => (5, s.index()),
        };
        let class = (r.head, r.terminal.clone());
        paths
            .entry(path)
            .or_default()
            .entry(class)
            .or_default()
            .push(i);
    }
    for classes in paths.values() {
        let classes: Vec<&Vec<usize>> = classes.values().collect();
        for (x, xs) in classes.iter().enumerate() {
            for (y, ys) in classes.iter().enumerate().skip(x) {
                let (a, b) = (&buffers[xs[0]].recog, &buffers[ys[0]].recog);
                if !(penalty::may_pair(a, b) || penalty::may_pair(b, a)) {
                    continue;
                }
                for (k, &i) in xs.iter().enumerate() {
                    let from = if x == y { k + 1 } else { 0 };
                    for &j in &ys[from..] {
                        apart(i, j);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::StmtId;
    use tilemem_plan::solve::mt::{uniform_u64, Mt19937_64};

    /// Random roots with few distinct facts, so that classes, groups and
    /// paths collide often.
    fn random_buffers(g: &mut Mt19937_64, n: usize) -> Vec<DsaBuffer> {
        let pipes = [None, Some(Pipe::Mte2), Some(Pipe::Vector), Some(Pipe::Mte3)];
        let mut pick = |k: u64| uniform_u64(g, 0, k - 1) as usize;
        (0..n)
            .map(|i| {
                let start = pick(40) as u32;
                let end = start + pick(6) as u32;
                let terminal: BTreeSet<Option<Pipe>> =
                    (0..=pick(2)).map(|_| pipes[pick(4)]).collect();
                let path = match pick(3) {
                    0 => Some(Block::Body),
                    1 => Some(Block::Loop(StmtId::new(pick(2)))),
                    _ => Some(Block::Then(StmtId::new(pick(2)))),
                };
                let first = pick(80) as u32;
                let recog = Recog {
                    qualifies: pick(5) != 0,
                    poisoned: false,
                    head: pipes[pick(4)],
                    first,
                    last: first + pick(4) as u32,
                    terminal,
                    path,
                    lp: (pick(2) == 0).then_some(0),
                };
                let stages = (0..pick(3))
                    .map(|_| (pick(3) as u32, pick(3) as i64))
                    .collect();
                DsaBuffer {
                    root: VarId::new(i),
                    name: format!("r{i}"),
                    size: 32,
                    start,
                    end,
                    pinned: pick(25) == 0,
                    recog,
                    stages,
                }
            })
            .collect()
    }

    /// Every pair some rule other than the lifetime overlap applies to is
    /// visited: a declared root, a shared group, or a handoff or back-edge
    /// penalty on one path (checked against the all-pairs definition).
    #[test]
    fn apart_candidates_cover_every_pair_a_rule_applies_to() {
        let mut g = Mt19937_64::new(7);
        let mut covered = 0;
        for round in 0..200 {
            let n = 2 + round % 30;
            let buffers = random_buffers(&mut g, n);
            let mut visited = BTreeSet::new();
            apart_candidates(&buffers, true, &mut |i, j| {
                visited.insert((i.min(j), i.max(j)));
            });
            for i in 0..n {
                for j in i + 1..n {
                    let (a, b) = (&buffers[i], &buffers[j]);
                    let (ra, rb) = (&a.recog, &b.recog);
                    let rule = a.pinned
                        || b.pinned
                        || a.stages.iter().any(|x| b.stages.iter().any(|y| x.0 == y.0))
                        || penalty::handoff(ra, rb)
                        || penalty::handoff(rb, ra)
                        || penalty::back_edge(ra, rb)
                        || penalty::back_edge(rb, ra);
                    if rule {
                        covered += 1;
                        assert!(
                            visited.contains(&(i, j)),
                            "round {round}: pair ({i}, {j}) not visited: {a:?} {b:?}"
                        );
                    }
                }
            }
        }
        // The rules applied to many pairs: the check was not vacuous.
        assert!(covered > 1000, "only {covered} pairs had a rule");
    }
}
