//! Independent validator: checks a [`Solution`] against a [`Problem`].
//!
//! Shares no code with the solvers on purpose (only the data types): a bug in
//! a solver's geometry cannot hide itself here. Co-live overlaps are found
//! with a sweep over time that keeps the live buffers ordered by offset, so a
//! placement of a million buffers checks in well under a second.

use std::collections::BTreeMap;
use std::fmt;

use crate::problem::{BufferId, Problem, Solution};

/// Figures of a valid placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Highest `offset + size`.
    pub height: u64,
    /// Summed weight of the penalty pairs that share a byte.
    pub penalty: u64,
}

/// A buffer as named in a violation: its id and its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    /// The buffer.
    pub id: BufferId,
    /// Its name (or `#index`).
    pub label: String,
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

/// Why two buffers must not overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Separation {
    /// Their lifetimes intersect (and they are not a compatible pair).
    Lifetime,
    /// They form a hard conflict pair.
    Conflict,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The solution does not have one offset per buffer.
    WrongLength {
        /// Buffers in the problem.
        expected: usize,
        /// Offsets in the solution.
        got: usize,
    },
    /// The problem itself is malformed.
    BadProblem(String),
    /// Offset not a multiple of the alignment.
    Misaligned {
        /// The buffer.
        buffer: Named,
        /// Its offset.
        offset: u64,
        /// Its alignment.
        align: u64,
    },
    /// A pinned buffer moved.
    FixedMoved {
        /// The buffer.
        buffer: Named,
        /// Where it had to be.
        fixed: u64,
        /// Where it is.
        offset: u64,
    },
    /// Ends above the capacity.
    OverCapacity {
        /// The buffer.
        buffer: Named,
        /// Its end (`offset + size`).
        end: u64,
        /// The capacity.
        capacity: u64,
    },
    /// Uses a reserved range.
    Reserved {
        /// The buffer.
        buffer: Named,
        /// Its byte range.
        range: (u64, u64),
        /// The reserved range it touches.
        reserved: (u64, u64),
    },
    /// Two buffers that must stay apart share bytes.
    Overlap {
        /// First buffer and its byte range.
        a: Named,
        /// Byte range of `a`.
        a_range: (u64, u64),
        /// Second buffer.
        b: Named,
        /// Byte range of `b`.
        b_range: (u64, u64),
        /// Why they must stay apart.
        why: Separation,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::WrongLength { expected, got } => {
                write!(f, "solution has {got} offsets for {expected} buffers")
            }
            Violation::BadProblem(m) => write!(f, "malformed problem: {m}"),
            Violation::Misaligned {
                buffer,
                offset,
                align,
            } => write!(
                f,
                "buffer {buffer}: offset {offset} is not a multiple of its alignment {align}"
            ),
            Violation::FixedMoved {
                buffer,
                fixed,
                offset,
            } => write!(
                f,
                "buffer {buffer}: pinned at {fixed} but placed at {offset}"
            ),
            Violation::OverCapacity {
                buffer,
                end,
                capacity,
            } => write!(
                f,
                "buffer {buffer}: ends at {end}, above the capacity {capacity}"
            ),
            Violation::Reserved {
                buffer,
                range,
                reserved,
            } => write!(
                f,
                "buffer {buffer}: bytes [{}, {}) use the reserved range [{}, {})",
                range.0, range.1, reserved.0, reserved.1
            ),
            Violation::Overlap {
                a,
                a_range,
                b,
                b_range,
                why,
            } => {
                let why = match why {
                    Separation::Lifetime => "are live at the same time",
                    Separation::Conflict => "form a hard conflict pair",
                };
                write!(
                    f,
                    "buffers {a} [{}, {}) and {b} [{}, {}) overlap but {why}",
                    a_range.0, a_range.1, b_range.0, b_range.1
                )
            }
        }
    }
}

/// At most this many violations are reported (the rest are implied).
const MAX_REPORTED: usize = 100;

/// Checks every rule of the problem; returns the figures of a valid placement
/// or the violations found (at most 100), each naming its buffers.
pub fn validate(problem: &Problem, solution: &Solution) -> Result<Stats, Vec<Violation>> {
    let n = problem.buffers.len();
    if solution.offsets.len() != n {
        return Err(vec![Violation::WrongLength {
            expected: n,
            got: solution.offsets.len(),
        }]);
    }
    if let Err(e) = problem.check() {
        return Err(vec![Violation::BadProblem(e.to_string())]);
    }
    let named = |i: usize| Named {
        id: BufferId(i as u32),
        label: problem.label(BufferId(i as u32)),
    };
    let range = |i: usize| {
        let o = solution.offsets[i];
        (o, o.saturating_add(problem.buffers[i].size))
    };
    let ranges: Vec<(u64, u64)> = (0..n).map(range).collect();
    let mut out = Vec::new();
    let mut height = 0u64;
    for (i, b) in problem.buffers.iter().enumerate() {
        let (o, e) = ranges[i];
        height = height.max(e);
        if o % b.align != 0 {
            out.push(Violation::Misaligned {
                buffer: named(i),
                offset: o,
                align: b.align,
            });
        }
        if let Some(fixed) = b.fixed_offset {
            if fixed != o {
                out.push(Violation::FixedMoved {
                    buffer: named(i),
                    fixed,
                    offset: o,
                });
            }
        }
        if let Some(cap) = problem.capacity {
            if e > cap {
                out.push(Violation::OverCapacity {
                    buffer: named(i),
                    end: e,
                    capacity: cap,
                });
            }
        }
        if b.size > 0 {
            // An empty range (`rs == re`) reserves no byte, as for the
            // solvers (`geom::sorted_reserved`) and `Problem::is_plain`.
            for &(rs, re) in &problem.reserved {
                if rs < re && rs < e && o < re {
                    out.push(Violation::Reserved {
                        buffer: named(i),
                        range: (o, e),
                        reserved: (rs, re),
                    });
                }
            }
        }
    }
    // Sweep over time: deaths at t come before births at t (half-open
    // lifetimes), births in buffer order among equals. The live set is
    // keyed by (offset, id); a new buffer only needs to be compared with
    // its neighbours in offset order, plus every earlier-starting live
    // buffer that reaches past its start. Births and deaths are two
    // orders of buffer ids merged on the fly (16 or 8 bytes a key rather
    // than one 24-byte event each), and the byte ranges sit in one dense
    // table: at a million buffers the sweep was bound by memory.
    let timed: Vec<u32> = (0..n as u32)
        .filter(|&i| {
            let b = &problem.buffers[i as usize];
            b.size > 0 && b.lower < b.upper
        })
        .collect();
    let births = order_by(&timed, |i| problem.buffers[i].lower);
    let deaths = order_by(&timed, |i| problem.buffers[i].upper);
    // Compatible pairs (minus hard conflicts, which win), normalised.
    let mut compatible: Vec<(usize, usize)> = problem
        .compatible
        .iter()
        .map(|&(a, b)| (a.index().min(b.index()), a.index().max(b.index())))
        .collect();
    compatible.sort_unstable();
    compatible.dedup();
    if !compatible.is_empty() {
        let mut hard: Vec<(usize, usize)> = problem
            .conflicts
            .iter()
            .map(|&(a, b)| (a.index().min(b.index()), a.index().max(b.index())))
            .collect();
        hard.sort_unstable();
        compatible.retain(|p| hard.binary_search(p).is_err());
    }
    let is_compatible =
        |i: usize, j: usize| compatible.binary_search(&(i.min(j), i.max(j))).is_ok();
    let mut live: BTreeMap<(u64, u32), u64> = BTreeMap::new();
    let mut dead = deaths.iter().peekable();
    for &b in &births {
        let i = b as usize;
        let t = problem.buffers[i].lower;
        while let Some(&&d) = dead.peek() {
            if problem.buffers[d as usize].upper > t {
                break;
            }
            live.remove(&(ranges[d as usize].0, d));
            dead.next();
        }
        let (o, e) = ranges[i];
        if !compatible.is_empty() {
            // Compatible buffers may overlap inside the live set, so the
            // neighbours in offset order do not tell the whole story:
            // compare with every live buffer starting below the new end.
            for (&(lo, j), &le) in live.range(..(e, 0)) {
                let j = j as usize;
                if le > o && !is_compatible(i, j) {
                    out.push(overlap(
                        &named,
                        i,
                        (o, e),
                        j,
                        (lo, le),
                        Separation::Lifetime,
                    ));
                    if out.len() >= MAX_REPORTED {
                        return Err(out);
                    }
                }
            }
            live.insert((o, b), e);
            continue;
        }
        // While nothing is reported the live buffers are disjoint (each
        // overlap is reported as it enters), so the one starting last
        // below e is the only one that can reach into [o, e): one look-up
        // per birth. When it does, or once anything is reported, the
        // overlaps are listed as below.
        let clear = out.is_empty()
            && live
                .range(..(e, 0))
                .next_back()
                .is_none_or(|(_, &le)| le <= o);
        if clear {
            live.insert((o, b), e);
            continue;
        }
        // Buffers starting at or above o but below e overlap.
        for (&(lo, j), &le) in live.range((o, 0)..(e, 0)) {
            out.push(overlap(
                &named,
                i,
                (o, e),
                j as usize,
                (lo, le),
                Separation::Lifetime,
            ));
            if out.len() >= MAX_REPORTED {
                return Err(out);
            }
        }
        // The closest buffer starting below o overlaps when it reaches past o.
        if let Some((&(lo, j), &le)) = live.range(..(o, 0)).next_back() {
            if le > o {
                out.push(overlap(
                    &named,
                    i,
                    (o, e),
                    j as usize,
                    (lo, le),
                    Separation::Lifetime,
                ));
            }
        }
        live.insert((o, b), e);
        if out.len() >= MAX_REPORTED {
            return Err(out);
        }
    }
    for &(a, b) in &problem.conflicts {
        let (ai, bi) = (a.index(), b.index());
        if ai == bi || problem.buffers[ai].size == 0 || problem.buffers[bi].size == 0 {
            continue;
        }
        let (ra, rb) = (range(ai), range(bi));
        // Co-live pairs were reported by the sweep, unless compatible.
        let co_live = problem.buffers[ai].lifetime_overlaps(&problem.buffers[bi]);
        let swept = co_live && !is_compatible(ai, bi);
        if ra.0 < rb.1 && rb.0 < ra.1 && !swept {
            out.push(overlap(&named, ai, ra, bi, rb, Separation::Conflict));
        }
    }
    if !out.is_empty() {
        out.truncate(MAX_REPORTED);
        return Err(out);
    }
    let mut penalty = 0u64;
    for &(a, b, w) in &problem.penalties {
        let (ai, bi) = (a.index(), b.index());
        if ai == bi || problem.buffers[ai].size == 0 || problem.buffers[bi].size == 0 {
            continue;
        }
        let (ra, rb) = (range(ai), range(bi));
        if ra.0 < rb.1 && rb.0 < ra.1 {
            penalty = penalty.saturating_add(w);
        }
    }
    Ok(Stats { height, penalty })
}

/// `ids` ordered by `key`, ties by id. Keys and ids are packed into one
/// integer when the keys fit in 32 bits (instants of real traces do), so
/// the sort compares plain integers.
fn order_by(ids: &[u32], key: impl Fn(usize) -> u64) -> Vec<u32> {
    let narrow = ids.iter().all(|&i| key(i as usize) <= u64::from(u32::MAX));
    if narrow {
        let mut packed: Vec<u64> = ids
            .iter()
            .map(|&i| key(i as usize) << 32 | u64::from(i))
            .collect();
        packed.sort_unstable();
        packed.into_iter().map(|k| k as u32).collect()
    } else {
        let mut pairs: Vec<(u64, u32)> = ids.iter().map(|&i| (key(i as usize), i)).collect();
        pairs.sort_unstable();
        pairs.into_iter().map(|(_, i)| i).collect()
    }
}

fn overlap(
    named: &impl Fn(usize) -> Named,
    i: usize,
    ri: (u64, u64),
    j: usize,
    rj: (u64, u64),
    why: Separation,
) -> Violation {
    let (a, a_range, b, b_range) = if j < i {
        (j, rj, i, ri)
    } else {
        (i, ri, j, rj)
    };
    Violation::Overlap {
        a: named(a),
        a_range,
        b: named(b),
        b_range,
        why,
    }
}
