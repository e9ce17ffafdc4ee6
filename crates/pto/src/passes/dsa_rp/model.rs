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

use std::collections::{BTreeMap, BTreeSet};

use tilemem_plan::{Buffer, BufferId, Problem};
use tilemem_soc::{MemoryAllocatorPolicy, Soc};

use super::penalty::{self, Recog};
use crate::ir::{Block, EntityRef, Expr, Function, MemBase, MemRef, MemSpace, Type, VarId};
use crate::ops::Pipe;
use crate::passes::analysis::constraints::{SeparationReason, StageTag};
use crate::passes::analysis::facts::Facts;
use crate::passes::analysis::model::Model;
use crate::passes::analysis::order::ProgramOrder;
use crate::passes::analysis::reserve::{tiles_start, Reserve};
use crate::passes::analysis::roots::RootId;
use crate::passes::rewrite::storage::current_tile_type;

/// One allocation root to place.
#[derive(Clone, Debug)]
pub(crate) struct DsaBuffer {
    /// The alloc variable.
    pub root: VarId,
    /// Alloc name (`mem_vec_3`).
    pub name: String,
    /// Bytes of the alloc.
    pub size: u64,
    /// Half-open DSA lifetime `[2s+1, max(2s+2, 2e+1))` of the root's
    /// statement-level lifetime `[s, e]` ([`Model::half_open`]).
    pub life: (u64, u64),
    /// Author-declared allocation (`pinned=True`).
    pub pinned: bool,
    /// What the penalty recognizer found ([`super::penalty`]).
    pub recog: Recog,
    /// Pipeline memberships `(group, dense stage ordinal)` of the root.
    pub stages: Vec<StageTag>,
}

impl DsaBuffer {
    /// The statement-level lifetime `[start, end]` the half-open one
    /// stands for.
    pub fn statements(&self) -> (u64, u64) {
        let (lo, hi) = self.life;
        let start = lo.saturating_sub(1) / 2;
        (start, (hi.saturating_sub(1) / 2).max(start))
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
    /// A target hazard (split-AIV load + tpop, a written workspace).
    Hazard,
}

impl HardReason {
    /// The reason a separation of the model gives.
    fn of(r: SeparationReason) -> HardReason {
        match r {
            SeparationReason::NoAlias | SeparationReason::OperandOverlap => HardReason::NoAlias,
            SeparationReason::LoadTpopHazard | SeparationReason::WrittenWorkspace => {
                HardReason::Hazard
            }
            SeparationReason::Declared => HardReason::Declared,
        }
    }
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
            let (lo, hi) = b.life;
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
        // Penalty pairs, weight 1 each however many rules (a handoff, the
        // back edge, a relaxed stage separation) match the pair (PyPTO's
        // recognizer keeps one pair per (prior, current)); sorted and
        // deduplicated instead of a tree node per pair (long pipelines
        // have millions of handoff pairs).
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
        pen.dedup();
        p.penalties.reserve(pen.len());
        for (i, j) in pen {
            p.penalties.push((BufferId(i), BufferId(j), 1));
        }
        p
    }
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
/// order, from the planner-neutral `model` ([`Model`]): its roots,
/// lifetimes, hard separations, stage tags and branch exclusivity, with
/// DSA_RP's own reuse penalties added. Tiles of a space start above its
/// `reserves`; alignment, the spaces that get addresses and the reserved
/// end come from `policy`.
pub(crate) fn build(
    f: &Function,
    model: &Model,
    facts: &Facts,
    order: &ProgramOrder,
    soc: &Soc,
    policy: &dyn MemoryAllocatorPolicy,
    reserves: &[Reserve],
) -> Vec<DsaModel> {
    let lt = &model.lt;
    let family = soc.family();
    let penalties_on = soc.has_backend();
    let occ = model.occupancies(f, facts, order);
    let separations = model.separations();
    // The lowest constant offset of the tiles naming each root (the
    // partial-view test is relative to it).
    let mut low: Vec<Option<i64>> = vec![None; lt.roots.len()];
    for (v, d) in f.vars.iter() {
        let (Some(r), Some(o)) = (
            lt.root_of(v),
            d.ty.as_ref()
                .and_then(Type::memref)
                .and_then(MemRef::const_offset),
        ) else {
            continue;
        };
        let e = &mut low[r.index()];
        *e = Some(e.map_or(o, |x| x.min(o)));
    }
    let mut spaces: Vec<MemSpace> = lt.roots.keys().map(|r| lt.space(r)).collect();
    spaces.sort();
    spaces.dedup();
    let mut out = Vec::new();
    for space in spaces {
        if !space.is_known() || !policy.should_allocate(space) {
            continue;
        }
        // Roots with an allocation variable (the ones addresses are
        // written for) that some tile refers to.
        let roots: Vec<(RootId, VarId)> = model
            .placed_roots(space)
            .into_iter()
            .filter_map(|r| match lt.base(r) {
                MemBase::Var(v) => Some((r, v)),
                MemBase::Named(_) => None,
            })
            .collect();
        if roots.is_empty() {
            continue;
        }
        let n = roots.len();
        let mut index_of: Vec<u32> = vec![u32::MAX; lt.roots.len()];
        let mut buffers = Vec::with_capacity(n);
        for (i, &(r, var)) in roots.iter().enumerate() {
            index_of[r.index()] = i as u32;
            let root = &lt.roots[r];
            buffers.push(DsaBuffer {
                root: var,
                name: f.vars[var].name.to_string(),
                size: root.size,
                life: model.half_open(r, &occ[r.index()]),
                pinned: root.pinned,
                recog: Recog::default(),
                stages: model.cons.stages.get(&r).cloned().unwrap_or_default(),
            });
        }
        let index = |r: RootId| Some(index_of[r.index()] as usize).filter(|&i| i < n);
        let recogs = penalty::recognize(
            f,
            order,
            n,
            &|v| lt.storage_root(f, v).and_then(index),
            &|v| {
                let Some(r) = lt.storage_root(f, v) else {
                    return true;
                };
                match current_tile_type(f, v) {
                    Some(ty) => {
                        has_partial_view(&ty, lt.roots[r].size, low[r.index()].unwrap_or(0))
                    }
                    None => true,
                }
            },
            family,
        );
        for (b, r) in buffers.iter_mut().zip(recogs) {
            b.recog = r;
        }
        let mut hard = BTreeMap::new();
        let mut exclusive = BTreeSet::new();
        // Pipeline groups of this space: requested depth and slot size
        // (largest aligned copy).
        let mut groups: BTreeMap<u32, (usize, u64)> = BTreeMap::new();
        for b in &buffers {
            for &(g, _) in &b.stages {
                let stages = model.cons.group_depth.get(&g).copied().unwrap_or(1) as usize;
                let e = groups.entry(g).or_insert((stages, 0));
                e.1 = e.1.max(policy.align_address(b.size, space));
            }
        }
        // Overlapping lifetimes: a sweep in start order meets exactly the
        // overlapping pairs (work proportional to them, not to n^2).
        let mut by_start: Vec<usize> = (0..n).collect();
        by_start.sort_unstable_by_key(|&i| (buffers[i].life.0, i));
        for (p, &x) in by_start.iter().enumerate() {
            let hi = buffers[x].life.1;
            for &y in &by_start[p + 1..] {
                if buffers[y].life.0 >= hi {
                    break;
                }
                let (i, j) = (x.min(y), x.max(y));
                hard.insert((i, j), HardReason::Lifetime);
                if model.exclusive(&occ, roots[i].0, roots[j].0) {
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
            let ((alo, ahi), (blo, bhi)) = (buffers[i].life, buffers[j].life);
            if i == j || (alo < bhi && blo < ahi) {
                return;
            }
            let (a, b) = (&buffers[i], &buffers[j]);
            // A declared allocation is apart from everything (a hard
            // separation of the model).
            if a.pinned || b.pinned {
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
                        .map(move |&(_, sb)| (g, sa as usize, sb as usize))
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
        // The model's hard separations (no-alias, operand pairs, hazards,
        // written workspaces, declared allocations) of this space.
        for sep in &separations {
            let (Some(x), Some(y)) = (index(sep.a), index(sep.b)) else {
                continue;
            };
            let key = (x.min(y), x.max(y));
            hard.entry(key).or_insert(HardReason::of(sep.reason));
            exclusive.remove(&key);
        }
        // A pair may take one penalty however many rules match it.
        soft.retain(|&(x, y)| !hard.contains_key(&(x.min(y) as usize, x.max(y) as usize)));
        soft.sort_unstable();
        soft.dedup();
        soft.shrink_to_fit();
        pipeline.retain(|key, _| !hard.contains_key(key));
        out.push(DsaModel {
            function: f.name.to_string(),
            capacity: soc.capacity(space),
            reserved_end: tiles_start(reserves, &space, policy),
            align: policy.alignment(space),
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
                    .map(|_| (pick(3) as u32, pick(3) as u32))
                    .collect();
                DsaBuffer {
                    root: VarId::new(i),
                    name: format!("r{i}"),
                    size: 32,
                    life: (2 * u64::from(start) + 1, 2 * u64::from(end) + 2),
                    pinned: pick(25) == 0,
                    recog,
                    stages,
                }
            })
            .collect()
    }

    /// A pair weighs 1 however many rules give it a penalty (a handoff
    /// both ways, a relaxed stage separation), as PyPTO counts it; a
    /// relaxed stage separation is a penalty, a strict one a conflict.
    #[test]
    fn every_penalty_pair_weighs_one() {
        let mut g = Mt19937_64::new(1);
        let mut buffers = random_buffers(&mut g, 2);
        buffers[0].life = (1, 3);
        buffers[1].life = (5, 7);
        let m = DsaModel {
            function: "f".into(),
            space: MemSpace::Vec,
            buffers,
            hard: BTreeMap::new(),
            pipeline: [((0, 1), vec![(0, 0, 1)])].into_iter().collect(),
            groups: [(0, (2, 32))].into_iter().collect(),
            soft: vec![(0, 1), (1, 0)],
            exclusive: BTreeSet::new(),
            capacity: None,
            reserved_end: 0,
            align: 32,
        };
        let relaxed = m.to_problem(None);
        assert_eq!(relaxed.penalties, [(BufferId(0), BufferId(1), 1)]);
        assert!(relaxed.conflicts.is_empty());
        let strict = m.to_problem(Some(&[(0, 2)].into_iter().collect()));
        assert_eq!(strict.penalties, [(BufferId(0), BufferId(1), 1)]);
        assert_eq!(strict.conflicts, [(BufferId(0), BufferId(1))]);
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
