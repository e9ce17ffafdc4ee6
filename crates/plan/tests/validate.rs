//! The validator against a pairwise check of every rule, on random
//! placements (valid or not) of random problems.

use proptest::prelude::*;
use tilemem_plan::{validate, Buffer, BufferId, Problem, Separation, Solution, Violation};

/// A problem with every kind of rule, and offsets placed at random (most
/// placements break something, some do not).
fn placed() -> impl Strategy<Value = (Problem, Solution)> {
    let buffers = prop::collection::vec(
        (
            0u64..6,
            0u32..3,
            0u64..8,
            0u64..5,
            0u64..24,
            prop::bool::weighted(0.1),
        ),
        1..12,
    );
    let pairs = prop::collection::vec((0u32..12, 0u32..12, 0u8..2), 0..6);
    let extra = (
        prop::option::of(16u64..30),
        prop::option::of((0u64..20, 0u64..4)),
    );
    (buffers, pairs, extra, prop::bool::ANY).prop_map(|(v, pairs, (cap, res), wide)| {
        let mut p = Problem::new();
        let mut offsets = Vec::new();
        // Wide instants take the validator's other ordering (keys past
        // 32 bits).
        let shift = if wide { 40 } else { 0 };
        for (size, a, lo, len, o, pin) in v {
            let align = 1u64 << a;
            let o = if pin { o / align * align } else { o };
            let mut b = Buffer::new(size, lo << shift, (lo + len) << shift).with_align(align);
            if pin {
                b = b.with_fixed_offset(o / align * align + align * u64::from(o % 3 == 0));
            }
            p.push(b);
            offsets.push(o);
        }
        let n = p.len() as u32;
        for (a, b, kind) in pairs {
            let (a, b) = (BufferId(a % n), BufferId(b % n));
            if kind == 0 {
                p.conflicts.push((a, b));
            } else {
                p.allow_sharing(a, b);
            }
        }
        p.capacity = cap;
        if let Some((s, len)) = res {
            p.reserved.push((s, s + len));
        }
        (p, Solution { offsets })
    })
}

/// Every broken rule, found by looking at each buffer and each pair.
fn pairwise(p: &Problem, s: &Solution) -> (Vec<String>, Vec<(usize, usize, Separation)>) {
    let mut single = Vec::new();
    let n = p.len();
    let range = |i: usize| (s.offsets[i], s.offsets[i] + p.buffers[i].size);
    for (i, b) in p.buffers.iter().enumerate() {
        let (o, e) = range(i);
        if o % b.align != 0 {
            single.push(format!("misaligned {i}"));
        }
        if b.fixed_offset.is_some_and(|f| f != o) {
            single.push(format!("moved {i}"));
        }
        if p.capacity.is_some_and(|c| e > c) {
            single.push(format!("capacity {i}"));
        }
        for &(rs, re) in &p.reserved {
            if b.size > 0 && rs < re && rs < e && o < re {
                single.push(format!("reserved {i}"));
            }
        }
    }
    let listed = |list: &[(BufferId, BufferId)], i: usize, j: usize| {
        list.iter()
            .any(|&(a, b)| (a.index(), b.index()) == (i, j) || (a.index(), b.index()) == (j, i))
    };
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let (a, b) = (&p.buffers[i], &p.buffers[j]);
            let (ri, rj) = (range(i), range(j));
            if a.size == 0 || b.size == 0 || ri.0 >= rj.1 || rj.0 >= ri.1 {
                continue;
            }
            let conflict = listed(&p.conflicts, i, j);
            let shared = listed(&p.compatible, i, j) && !conflict;
            if a.lifetime_overlaps(b) && !shared {
                pairs.push((i, j, Separation::Lifetime));
            } else if conflict {
                pairs.push((i, j, Separation::Conflict));
            }
        }
    }
    (single, pairs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The validator accepts exactly the placements that break no rule;
    /// it names every broken single-buffer rule, and each overlap it
    /// names is one (with its reason). The height and penalty of an
    /// accepted placement are the highest end and zero.
    #[test]
    fn validator_agrees_with_a_pairwise_check((p, s) in placed()) {
        let (single, pairs) = pairwise(&p, &s);
        match validate(&p, &s) {
            Ok(stats) => {
                prop_assert!(single.is_empty() && pairs.is_empty(), "{single:?} {pairs:?}");
                prop_assert_eq!(stats.height, s.height(&p));
            }
            Err(v) => {
                prop_assert!(!single.is_empty() || !pairs.is_empty(), "{v:?}");
                let mut named = Vec::new();
                for v in &v {
                    match v {
                        Violation::Misaligned { buffer, .. } => named.push(format!("misaligned {}", buffer.id.index())),
                        Violation::FixedMoved { buffer, .. } => named.push(format!("moved {}", buffer.id.index())),
                        Violation::OverCapacity { buffer, .. } => named.push(format!("capacity {}", buffer.id.index())),
                        Violation::Reserved { buffer, .. } => named.push(format!("reserved {}", buffer.id.index())),
                        Violation::Overlap { a, b, why, .. } => {
                            let key = (a.id.index(), b.id.index(), *why);
                            prop_assert!(pairs.contains(&key), "{key:?} not in {pairs:?}");
                        }
                        other => prop_assert!(false, "{other:?}"),
                    }
                }
                prop_assert_eq!(named, single);
                // An overlap exists: at least one is named.
                let overlaps = v.iter().filter(|v| matches!(v, Violation::Overlap { .. })).count();
                prop_assert_eq!(overlaps == 0, pairs.is_empty(), "{:?} {:?}", v, pairs);
            }
        }
    }
}
