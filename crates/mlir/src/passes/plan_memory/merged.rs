//! The input contract behind PlanMemory's merge of carried buffers.
//!
//! PlanMemory gives one address to the allocations an `scf.for` or
//! `scf.while` carries (init, iteration argument, yielded value, result)
//! and to those `scf.if` / `scope.scope` regions yield: they alias without
//! a condition (`UpdateForOpInitArgsAlias`, `UpdateForOpBufferAlias`,
//! `UpdateWhileOp*Alias`, `UpdateIfOpBufferAlias`,
//! `UpdateScopeOpBufferAlias`), so `InitializeInplacePairList` pairs them
//! and `MergeInplaceSE` folds them into one storage entry. The reference
//! assumes in-place bufferized input, where that is the same memory
//! anyway, and checks nothing.
//!
//! Two ways an input breaks the assumption ([`crate::analysis::merged_reads`]
//! finds both):
//! - one merged buffer is read after another may have written the shared
//!   bytes (a loop's init read after the loop that yields a buffer of its
//!   own; a buffer one branch yields read after the branch that yields
//!   another). One address would change what the program reads, so those
//!   buffers are planned apart: the in-place pairs whose merge would be
//!   wrong are dropped, greedily in the reference's pair order (a pair is
//!   kept when the buffers it joins stay right together), and the aliases
//!   keep living together (their gens and kills are shared), so they take
//!   distinct addresses. This differs from the reference's placement only
//!   where the reference's would be wrong, and the summary says so. (The
//!   reference's own lit test `test_dead_after_op_nested_if_in_for` is such
//!   a program.)
//! - a loop carries a buffer allocated in its body to the next iteration,
//!   which reads it after the body wrote the buffer's new instance. An
//!   allocation has one address, so no planner keeps both instances: the
//!   function is refused (bad input, exit 2) at the read, with the buffer
//!   and the loop as notes.
//!
//! Where the check gives up at its bounds, nothing is merged unproven: a
//! group whose run gave up is joined pair by pair only where a run proves
//! the join, the rest planned apart, with a warning naming the function
//! and the bound (a run for previous-instance reads that gives up is only
//! warned of: no placement would change what such a read finds).

use std::collections::HashMap;

use crate::analysis::merged_reads::{bad_reads, BadRead, GaveUp};
use crate::ir::{Diagnostic, Module, OpId, ValueId};

use super::gen_kill::Lifetimes;

/// The groups of buffers the in-place pairs of `lt` merge (two or more
/// each), in allocation order.
fn merged_groups(lt: &Lifetimes) -> Vec<Vec<ValueId>> {
    let mut parent: HashMap<ValueId, ValueId> = HashMap::new();
    fn find(p: &HashMap<ValueId, ValueId>, v: ValueId) -> ValueId {
        let mut cur = v;
        while let Some(&n) = p.get(&cur) {
            if n == cur {
                break;
            }
            cur = n;
        }
        cur
    }
    for &(a, b) in &lt.inplace_pairs {
        let (ra, rb) = (find(&parent, a), find(&parent, b));
        if ra != rb {
            parent.insert(ra, rb);
        }
    }
    let mut groups: Vec<(ValueId, Vec<ValueId>)> = Vec::new();
    for (v, _) in &lt.infos {
        if !lt.inplace_pairs.iter().any(|&(a, b)| a == *v || b == *v) {
            continue;
        }
        let r = find(&parent, *v);
        match groups.iter_mut().find(|(root, _)| *root == r) {
            Some((_, g)) => g.push(*v),
            None => groups.push((r, vec![*v])),
        }
    }
    groups
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| g.len() > 1)
        .collect()
}

/// What the carrier op makes one buffer, in words.
fn carrier_words(name: &str) -> &'static str {
    match name {
        "scf.for" => "an scf.for carries (its iter_args init, iteration argument, yielded value and result)",
        "scf.while" => "an scf.while carries (its inits, region arguments, condition operands, yields and results)",
        "scf.if" => "the regions of an scf.if yield (and its result)",
        "scope.scope" => "a scope.scope returns (and its result)",
        _ => "a loop carries or a branch yields",
    }
}

/// What [`settle`] decided for a function.
#[derive(Debug, Default)]
pub struct Settled {
    /// One summary line per group of buffers split.
    pub lines: Vec<String>,
    /// The in-place pairs dropped (the same on every shuffle attempt: the
    /// pairs do not depend on the seed).
    pub dropped: Vec<(ValueId, ValueId)>,
    /// Where the check gave up (at its bounds): nothing merged there is
    /// kept unproven.
    pub warnings: Vec<Diagnostic>,
}

/// Applies the rule (see the module docs) to the in-place pairs of `lt`:
/// drops the pairs whose merge would change what `func` reads; refuses
/// `func` when a loop reads an earlier instance of a buffer it allocates.
pub fn settle(m: &Module, func: OpId, lt: &mut Lifetimes) -> Result<Settled, Diagnostic> {
    let mut out = Settled::default();
    let loc = |v: ValueId| {
        let l = m.defining_op(v).map_or(m.op(func).loc, |o| m.op(o).loc);
        format!("{}:{}", l.line, l.col)
    };
    let name = m.func_name(func).unwrap_or("").to_string();
    let gave_up = |g: GaveUp, what: String| {
        Diagnostic::warning(
            m.op(func).loc,
            format!(
                "@{name}: the check that merged buffers keep every read gave up on {what}: \
                 {g}; they are planned apart instead of at one address as PlanMemory merges \
                 them (more bytes, no read unproven)"
            ),
        )
    };
    for group in merged_groups(lt) {
        for &v in &group {
            let f = bad_reads(m, func, &[v]);
            if let Some(bad) = f.instance {
                return Err(instance_error(m, func, &bad));
            }
            if let Some(g) = f.gave_up {
                // The previous-instance reads of one buffer are the
                // program's, whatever is merged: not judged past the
                // bound, as the reference judges none.
                out.warnings.push(Diagnostic::warning(
                    m.op(func).loc,
                    format!(
                        "@{name}: the check for reads of a loop buffer's previous instance gave \
                         up on the buffer allocated at {}: {g}; not judged",
                        loc(v)
                    ),
                ));
            }
        }
        let f = bad_reads(m, func, &group);
        let bad = match (f.across, f.gave_up) {
            (Some(bad), _) => Some(bad),
            (None, Some(g)) => {
                let at: Vec<String> = group.iter().map(|&v| loc(v)).collect();
                out.warnings.push(gave_up(
                    g,
                    format!("the buffers allocated at {}", at.join(", ")),
                ));
                None
            }
            (None, None) => continue,
        };
        // Greedy: join the buffers pair by pair while they stay right (a
        // run that gave up proves nothing: not joined).
        let mut class: HashMap<ValueId, usize> =
            group.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let mut kept = Vec::new();
        let pairs: Vec<(ValueId, ValueId)> = lt
            .inplace_pairs
            .iter()
            .copied()
            .filter(|(a, _)| class.contains_key(a))
            .collect();
        for (a, b) in pairs {
            let (ca, cb) = (class[&a], class[&b]);
            if ca == cb {
                kept.push((a, b));
                continue;
            }
            let joined: Vec<ValueId> = group
                .iter()
                .copied()
                .filter(|v| class[v] == ca || class[v] == cb)
                .collect();
            let f = bad_reads(m, func, &joined);
            if f.across.is_none() && f.gave_up.is_none() {
                for v in &joined {
                    class.insert(*v, ca);
                }
                kept.push((a, b));
            }
        }
        out.dropped.extend(
            lt.inplace_pairs
                .iter()
                .filter(|p| group.contains(&p.0) && !kept.contains(p))
                .copied(),
        );
        lt.inplace_pairs
            .retain(|p| !group.contains(&p.0) || kept.contains(p));
        let Some(bad) = bad else { continue };
        let carrier = bad.carriers.first().map_or(String::new(), |&c| {
            let l = m.op(c).loc;
            format!(" ({} at {}:{})", m.op(c).name(), l.line, l.col)
        });
        out.lines.push(format!(
            "@{name}: buffers allocated at {} and {} planned apart: PlanMemory gives one \
             address to the buffers {}{carrier}, but the op at {}:{} reads the first after \
             the second may have written it",
            loc(bad.wanted),
            loc(bad.found),
            carrier_words(bad.carriers.first().map_or("", |&c| m.op(c).name())),
            m.op(bad.op).loc.line,
            m.op(bad.op).loc.col,
        ));
    }
    Ok(out)
}

/// The refusal of a loop that reads an earlier instance of a buffer it
/// allocates.
fn instance_error(m: &Module, func: OpId, bad: &BadRead) -> Diagnostic {
    let alloc = m
        .defining_op(bad.wanted)
        .map_or(m.op(func).loc, |o| m.op(o).loc);
    let mut d = Diagnostic::error(
        m.op(bad.op).loc,
        "this op reads the buffer a loop carries from its previous iteration after the \
         iteration wrote the buffer's new instance: an allocation has one address, so both \
         instances are the same bytes; read the carried value before the new instance is \
         written, or allocate the new instance before the loop and alternate two buffers",
    )
    .with_note(alloc, "the buffer, allocated inside the loop");
    if let Some(&c) = bad.carriers.first() {
        d = d.with_note(
            m.op(c).loc,
            "the loop that carries it to the next iteration",
        );
    }
    d
}
