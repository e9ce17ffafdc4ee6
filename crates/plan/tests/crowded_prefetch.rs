//! The crowded first-fit pass (128 buffers or more, 64 live at once on
//! average) asks the processor for the tree nodes of the buffers a few
//! places ahead in its order (an `unsafe` prefetch hint, which must
//! change no result). These tests hold it to the first fit computed
//! without any tree or look-ahead: the same offsets, buffer for buffer,
//! on random crowded problems whose order ends anywhere within the
//! look-ahead, zero-size buffers (last in the order, their lifetimes not
//! in the tree) included.

use tilemem_plan::{solve, validate, Budget, Buffer, Problem, SolverKind};

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `sized` buffers of sizes 1..=4096 (some aligned) over `span` instants,
/// long enough to be crowded, then `zero` zero-size buffers anywhere in
/// time, past the last end too.
fn crowded(seed: u64, sized: usize, zero: usize, span: u64) -> Problem {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut buffers = Vec::new();
    for _ in 0..sized {
        let lower = r.below(span / 2);
        let upper = (lower + span / 2 + r.below(span / 2)).min(span);
        buffers.push(Buffer {
            size: 1 + r.below(4096),
            align: [1, 1, 32, 512][r.below(4) as usize],
            lower,
            upper,
            fixed_offset: None,
            name: None,
        });
    }
    for _ in 0..zero {
        let lower = r.below(2 * span);
        buffers.push(Buffer {
            size: 0,
            align: 1,
            lower,
            upper: lower + 1 + r.below(4 * span),
            fixed_offset: None,
            name: None,
        });
    }
    Problem {
        buffers,
        ..Problem::default()
    }
}

/// First fit without a tree: in the greedy solvers' order (size
/// descending, earlier start, lower index), each buffer at the lowest
/// aligned offset clear of every placed buffer live with it.
fn first_fit(p: &Problem) -> Vec<u64> {
    let b = &p.buffers;
    let mut order: Vec<usize> = (0..b.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(b[i].size), b[i].lower, i));
    let mut offsets = vec![0u64; b.len()];
    let mut placed: Vec<usize> = Vec::new();
    for i in order {
        if b[i].size == 0 {
            continue;
        }
        let mut taken: Vec<(u64, u64)> = placed
            .iter()
            .filter(|&&j| b[j].lower < b[i].upper && b[i].lower < b[j].upper)
            .map(|&j| (offsets[j], offsets[j] + b[j].size))
            .collect();
        taken.sort_unstable();
        let align = |x: u64| x.div_ceil(b[i].align) * b[i].align;
        let mut at = 0;
        for (s, e) in taken {
            if align(at) + b[i].size <= s {
                break;
            }
            at = at.max(e);
        }
        offsets[i] = align(at);
        placed.push(i);
    }
    offsets
}

/// The offsets `first-fit` gives `p`, validated.
fn solved(p: &Problem) -> Vec<u64> {
    let out = solve(p, SolverKind::FirstFit, &Budget::default()).unwrap();
    let sol = out.solution.expect("no capacity: placed");
    assert!(validate(p, &sol).is_ok(), "{sol:?}");
    sol.offsets
}

/// Sized buffers only, the order's end at every place within the
/// look-ahead (128 to 140 buffers) and further.
#[test]
fn the_crowded_pass_gives_first_fit_offsets_up_to_the_end_of_its_order() {
    for sized in (128..=140).chain([200, 257, 600]) {
        for seed in 0..3 {
            let p = crowded(seed + 100 * sized as u64, sized, 0, 16);
            let want = first_fit(&p);
            let got = solved(&p);
            assert_eq!(got, want, "{sized} buffers, seed {seed}");
        }
    }
}

/// Zero-size buffers after the sized ones in the order, their lifetimes
/// outside the tree's (before, inside, past the last end): the sized
/// buffers keep the offsets they have alone, which are first fit's.
#[test]
fn zero_size_buffers_in_the_look_ahead_change_no_offset() {
    for sized in [128, 129, 135, 136, 137, 300] {
        for zero in [1, 3, 4, 8, 9, 20] {
            for seed in 0..3 {
                let p = crowded(seed + 7 * sized as u64, sized, zero, 8);
                let alone = Problem {
                    buffers: p.buffers[..sized].to_vec(),
                    ..Problem::default()
                };
                let got = solved(&p);
                assert_eq!(
                    got[..sized],
                    solved(&alone)[..],
                    "{sized}+{zero}, seed {seed}"
                );
                assert_eq!(got, first_fit(&p), "{sized}+{zero}, seed {seed}");
            }
        }
    }
}
