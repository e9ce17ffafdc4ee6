//! The reorder remedy: one statement of a function body moved to another
//! place that keeps every dependency and lowers the space's peak.
//!
//! The body's statements are nodes of a dependency graph:
//! - data: a statement stays after the statements defining the names it
//!   reads, and before the statements that read or redefine the names it
//!   defines (by name, not only by variable, so the moved text means what
//!   it meant: a name bound again later is never read across the move);
//! - side effects: statements are *pure* (a `tile.*` computation on tiles,
//!   writing nothing but its result), *readers* (they read memory outside
//!   their tile operands: loads) or *ordered* (everything else: stores,
//!   cross-core pipe operations, syncs and other `system.*` calls, calls
//!   with declared argument writes, loops, `if`s, `with` blocks, yields and
//!   returns). Ordered statements keep their order among themselves and
//!   against readers; readers may pass readers and pure statements.
//!
//! A memory-aware list scheduler orders the graph greedily: of the
//! statements whose predecessors are placed, it places the one that adds
//! the fewest bytes of the space (its tiles' bytes minus the bytes of the
//! tiles it reads for the last time), ties in program order. Each
//! statement the schedule puts elsewhere gives a candidate move (next to
//! its schedule neighbour), as do each statement's earliest and latest
//! legal places; the candidates are ranked by the peak of a byte model of
//! the moved order (a tile is live from its definition to its last read,
//! as in [`crate::report`]). The caller re-plans the best of them: only a
//! move that the planner confirms is offered.
//!
//! Only bodies of at most [`MAX_BODY`] statements are searched (the graph
//! is quadratic in them).

use std::collections::HashSet;

use tilemem_soc::{MemSpace, Soc};

use crate::ir::{Block, Function, StmtId, StmtKind, Type, VarId};
use crate::ops::{self, ArgEffect, ArgEffects, CrossCoreRole, OpClass};

/// Largest function body the reorder remedy searches.
pub const MAX_BODY: usize = 2000;

/// How a statement may move past others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// Computes its result from its tile operands only.
    Pure,
    /// Also reads memory outside its operands (a load from GM).
    Reads,
    /// Keeps its place among every statement with an effect.
    Ordered,
}

/// One statement of the body.
struct Node {
    effect: Effect,
    /// A `return` or `yield`: everything stays before it.
    terminator: bool,
    /// Variables it reads (nested blocks included).
    uses: Vec<VarId>,
    /// Names it reads and names it binds (nested blocks included).
    read_names: HashSet<String>,
    bound_names: HashSet<String>,
    /// Variables it binds whose bytes count in the space, with the bytes.
    tiles: Vec<(VarId, u64)>,
}

/// A move of body statement `from` to index `to` of the body without it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// Index of the moved statement in the body.
    pub from: usize,
    /// Its index after the move.
    pub to: usize,
    /// The model's peak before and after, in bytes.
    pub peak_before: u64,
    /// See `peak_before`.
    pub peak_after: u64,
}

fn effect_of(f: &Function, s: StmtId) -> Effect {
    let st = &f.stmts[s];
    let call = match &st.kind {
        StmtKind::Assign { .. } => st.call(),
        StmtKind::Blank | StmtKind::Comment(_) => return Effect::Pure,
        _ => None,
    };
    let Some(c) = call else {
        return Effect::Ordered;
    };
    let name = c.op_name();
    if !name.starts_with("tile.") {
        return Effect::Ordered;
    }
    let Some(info) = ops::lookup(name) else {
        return Effect::Ordered;
    };
    let writes = match info.arg_effects {
        ArgEffects::Declared(effects) => effects.iter().any(|(_, e)| !matches!(e, ArgEffect::Read)),
        ArgEffects::Undeclared | ArgEffects::NoArgWrites => false,
    };
    if writes || info.cross_core_role != CrossCoreRole::None {
        return Effect::Ordered;
    }
    match info.class {
        OpClass::Load => Effect::Reads,
        OpClass::Compute => Effect::Pure,
        _ => Effect::Ordered,
    }
}

fn node(f: &Function, s: StmtId, space: MemSpace, soc: &Soc) -> Node {
    let mut uses = Vec::new();
    let mut bound = Vec::new();
    let mut stmts = vec![s];
    stmts.extend(
        f.child_blocks(s)
            .into_iter()
            .flat_map(|b| f.walk_in(b))
            .map(|(_, x)| x),
    );
    for &x in &stmts {
        f.stmts[x].for_each_use(&mut |v| uses.push(v));
        bound.extend_from_slice(f.stmts[x].targets());
        if let StmtKind::For(l) = &f.stmts[x].kind {
            bound.extend(l.loop_var);
            bound.extend_from_slice(&l.iter_args);
            bound.extend_from_slice(&l.results);
        }
        if let StmtKind::If(i) = &f.stmts[x].kind {
            bound.extend_from_slice(&i.results);
        }
    }
    // Only the statement's own results outlive it: nested definitions die
    // inside (their bytes are not this model's concern).
    let own: Vec<VarId> = match &f.stmts[s].kind {
        StmtKind::For(l) => l.results.clone(),
        StmtKind::If(i) => i.results.clone(),
        _ => f.stmts[s].targets().to_vec(),
    };
    let tiles = own
        .into_iter()
        .filter_map(|v| {
            let t = f.ty(v).and_then(Type::as_tile)?;
            // The bytes the planners give the tile (Acc rows padded).
            (t.space == Some(space)).then_some((v, t.storage_bytes(soc)?))
        })
        .collect();
    Node {
        effect: effect_of(f, s),
        terminator: matches!(f.stmts[s].kind, StmtKind::Return(_) | StmtKind::Yield(_)),
        read_names: uses.iter().map(|&v| f.vars[v].name.to_string()).collect(),
        bound_names: bound.iter().map(|&v| f.vars[v].name.to_string()).collect(),
        uses,
        tiles,
    }
}

/// Whether `a`, earlier in the body, must stay before `b`.
fn must_precede(a: &Node, b: &Node) -> bool {
    let effects = matches!(
        (a.effect, b.effect),
        (Effect::Ordered, Effect::Ordered | Effect::Reads) | (Effect::Reads, Effect::Ordered)
    );
    effects
        || b.terminator
        || a.bound_names
            .iter()
            .any(|n| b.read_names.contains(n) || b.bound_names.contains(n))
        || a.read_names.iter().any(|n| b.bound_names.contains(n))
}

/// The model's peak of the body in `order` (indices into `nodes`).
fn peak(nodes: &[Node], order: &[usize]) -> u64 {
    let mut pos = vec![0usize; nodes.len()];
    for (k, &i) in order.iter().enumerate() {
        pos[i] = k;
    }
    // Last read position of each variable.
    let mut last: std::collections::HashMap<VarId, usize> = std::collections::HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        for &v in &n.uses {
            let e = last.entry(v).or_insert(pos[i]);
            *e = (*e).max(pos[i]);
        }
    }
    // A tile defined at p and last read at q is live at k for p <= k <
    // max(p + 1, q) (the report's lifetimes: a statement's result may take
    // the place of a tile it reads for the last time).
    let mut delta = vec![0i128; order.len() + 1];
    for (i, n) in nodes.iter().enumerate() {
        for &(v, bytes) in &n.tiles {
            let p = pos[i];
            let q = last.get(&v).copied().unwrap_or(p);
            let end = (p + 1).max(q);
            delta[p] += i128::from(bytes);
            delta[end.min(order.len())] -= i128::from(bytes);
        }
    }
    let (mut live, mut best) = (0i128, 0i128);
    for d in &delta[..order.len()] {
        live += d;
        best = best.max(live);
    }
    best as u64
}

/// The memory-aware list schedule of the body (indices into `nodes`).
fn schedule(nodes: &[Node], preds: &[Vec<usize>]) -> Vec<usize> {
    let n = nodes.len();
    let mut waiting: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut succs = vec![Vec::new(); n];
    for (j, p) in preds.iter().enumerate() {
        for &i in p {
            succs[i].push(j);
        }
    }
    // Readers of each variable not placed yet.
    let mut readers: std::collections::HashMap<VarId, usize> = std::collections::HashMap::new();
    for nd in nodes {
        for &v in nd.uses.iter().collect::<HashSet<_>>() {
            *readers.entry(v).or_default() += 1;
        }
    }
    let bytes_of: std::collections::HashMap<VarId, u64> = nodes
        .iter()
        .flat_map(|nd| nd.tiles.iter().copied())
        .collect();
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let score = |i: usize| {
            let alloc: u64 = nodes[i].tiles.iter().map(|t| t.1).sum();
            let freed: u64 = nodes[i]
                .uses
                .iter()
                .collect::<HashSet<_>>()
                .into_iter()
                .filter(|v| readers.get(*v) == Some(&1))
                .filter_map(|v| bytes_of.get(v))
                .sum();
            (i128::from(alloc) - i128::from(freed), i)
        };
        let (k, _) = ready
            .iter()
            .enumerate()
            .min_by_key(|&(_, &i)| score(i))
            .map(|(k, &i)| (k, i))
            .unwrap_or((0, ready[0]));
        let i = ready.swap_remove(k);
        for &v in nodes[i].uses.iter().collect::<HashSet<_>>() {
            if let Some(c) = readers.get_mut(&v) {
                *c -= 1;
            }
        }
        order.push(i);
        for &j in &succs[i] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.push(j);
            }
        }
    }
    order
}

/// The body order with statement `from` moved to index `to`.
fn moved(n: usize, from: usize, to: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).filter(|&i| i != from).collect();
    order.insert(to, from);
    order
}

/// Candidate moves of single body statements that lower the model's peak
/// of `space` on `soc`, best first (at most `max`). Empty when the body is
/// longer than [`MAX_BODY`].
pub fn candidates(f: &Function, space: MemSpace, soc: &Soc, max: usize) -> Vec<Move> {
    let body = f.block(Block::Body);
    let n = body.len();
    if !(2..=MAX_BODY).contains(&n) {
        return Vec::new();
    }
    let nodes: Vec<Node> = body.iter().map(|&s| node(f, s, space, soc)).collect();
    let mut preds = vec![Vec::new(); n];
    for j in 0..n {
        for i in 0..j {
            if must_precede(&nodes[i], &nodes[j]) {
                preds[j].push(i);
            }
        }
    }
    let original: Vec<usize> = (0..n).collect();
    let before = peak(&nodes, &original);
    // Legal places of each statement: after its last predecessor, before
    // its first successor.
    let earliest: Vec<usize> = preds
        .iter()
        .map(|p| p.iter().max().map_or(0, |&i| i + 1))
        .collect();
    let mut latest = vec![n - 1; n];
    for (j, p) in preds.iter().enumerate() {
        for &i in p {
            latest[i] = latest[i].min(j - 1);
        }
    }
    let mut tried: HashSet<(usize, usize)> = HashSet::new();
    let mut out = Vec::new();
    let mut consider = |from: usize, to: usize| {
        // `to` indexes the body without `from`: legal when it lies in the
        // statement's legal range.
        // (Predecessors lie before `from` and successors after it, so the
        // range keeps its indices in the body without `from`.)
        let legal = earliest[from] <= to && to <= latest[from] && to != from;
        if !legal || !tried.insert((from, to)) {
            return;
        }
        let after = peak(&nodes, &moved(n, from, to));
        if after < before {
            out.push(Move {
                from,
                to,
                peak_before: before,
                peak_after: after,
            });
        }
    };
    let order = schedule(&nodes, &preds);
    for (k, &i) in order.iter().enumerate() {
        // Next to its neighbour in the schedule.
        if k > 0 {
            let prev = order[k - 1];
            let to = if prev < i { prev + 1 } else { prev };
            consider(i, to);
        }
    }
    for i in 0..n {
        consider(i, earliest[i]);
        consider(i, latest[i]);
    }
    out.sort_by_key(|m| (m.peak_after, m.from, m.to));
    out.truncate(max);
    out
}

/// Applies `m` to the body of `f`.
pub fn apply(f: &mut Function, m: &Move) {
    let body = &mut f.body;
    if m.from < body.len() {
        let s = body.remove(m.from);
        body.insert(m.to.min(body.len()), s);
    }
}
