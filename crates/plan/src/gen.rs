//! Problem generators for tests and benchmarks (deterministic, seeded).

use crate::problem::{Buffer, Problem};

/// Small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`n >= 1`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// A perfect packing: buffers that tile the rectangle `[0, time) x [0,
/// height)` exactly, cut the way a skyline fills up (lowest, leftmost gap
/// first, random widths, positions and heights), so the lower bound equals `height` and
/// a placement at exactly `height` exists. Sizes and heights are multiples of
/// `unit`. The capacity is set to `height`. Greedy placement typically misses
/// it by tens of percent: the family of the challenging MiniMalloc instances.
pub fn perfect_packing(
    seed: u64,
    time: u64,
    height_units: u64,
    unit: u64,
    max_units: u64,
) -> Problem {
    let mut rng = Rng(seed);
    let time = time.max(1) as usize;
    let mut floor = vec![0u64; time];
    let mut p = Problem::new();
    loop {
        // Lowest, leftmost valley.
        let (mut lo, mut level) = (0usize, u64::MAX);
        for (t, &f) in floor.iter().enumerate() {
            if f < level {
                level = f;
                lo = t;
            }
        }
        if level >= height_units {
            break;
        }
        let mut hi = lo + 1;
        while hi < time && floor[hi] == level {
            hi += 1;
        }
        // A random sub-interval of the valley, anywhere inside it (slivers
        // left beside it are filled by later, narrower buffers).
        let width = 1 + rng.below((hi - lo) as u64) as usize;
        let at = lo + rng.below((hi - lo - width + 1) as u64) as usize;
        let h = (1 + rng.below(max_units)).min(height_units - level);
        for f in &mut floor[at..at + width] {
            *f = level + h;
        }
        p.push(Buffer::new(h * unit, at as u64, (at + width) as u64));
    }
    p.capacity = Some(height_units * unit);
    // Shuffle so the file order carries no hint.
    for i in (1..p.buffers.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        p.buffers.swap(i, j);
    }
    for (i, b) in p.buffers.iter_mut().enumerate() {
        b.name = Some(i.to_string());
    }
    p
}

/// A cut packing with slack: the rectangle `[0, time) x [0, height)` cut
/// into `n` pieces by random guillotine cuts (either axis, anywhere), then
/// about `drop_percent` % of the pieces removed, except those alive at one
/// random instant. That instant stays full, so the lower bound equals the
/// capacity (`height`) and the original positions fit exactly, while the
/// rest of the timeline has slack in which greedy placement and naive search
/// get lost: the shape of the challenging MiniMalloc instances E and F.
/// Lifetimes and sizes are multiples of `unit`.
pub fn cut_packing(
    seed: u64,
    n: usize,
    drop_percent: u64,
    time: u64,
    height: u64,
    unit: u64,
) -> Problem {
    let mut rng = Rng(seed);
    // (lower, upper, offset, top) in units.
    let mut rects = vec![(0u64, time.max(1), 0u64, height.max(1))];
    let mut tries = 0;
    while rects.len() < n && tries < 64 * n {
        tries += 1;
        let i = rng.below(rects.len() as u64) as usize;
        let (l, u, o, t) = rects[i];
        if rng.below(2) == 0 && u - l > 1 {
            let c = l + 1 + rng.below(u - l - 1);
            rects[i] = (l, c, o, t);
            rects.push((c, u, o, t));
        } else if t - o > 1 {
            let c = o + 1 + rng.below(t - o - 1);
            rects[i] = (l, u, o, c);
            rects.push((l, u, c, t));
        }
    }
    let full = rng.below(time.max(1));
    let mut p = Problem::new();
    for (l, u, o, t) in rects {
        if (l <= full && full < u) || rng.below(100) >= drop_percent {
            p.push(Buffer::new((t - o) * unit, l * unit, u * unit));
        }
    }
    p.capacity = Some(height.max(1) * unit);
    for i in (1..p.buffers.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        p.buffers.swap(i, j);
    }
    for (i, b) in p.buffers.iter_mut().enumerate() {
        b.name = Some(i.to_string());
    }
    p
}

/// A large trace-like problem for greedy throughput: `n` buffers, one new
/// buffer per instant (jittered), lifetimes mostly short (70% under 8
/// instants, 25% under 64, 5% under 512: about 25 buffers live at a time, as
/// in compiler traces), sizes multiples of 32 bytes, one in eight large.
pub fn large_trace(seed: u64, n: usize) -> Problem {
    let mut rng = Rng(seed);
    let mut p = Problem::new();
    for i in 0..n {
        let lower = i as u64 + rng.below(16);
        let kind = rng.below(20);
        let len = 1 + match kind {
            0 => rng.below(512),
            1..=5 => rng.below(64),
            _ => rng.below(8),
        };
        let big = rng.below(8) == 0;
        let size = 32 * (1 + rng.below(if big { 4096 } else { 64 }));
        p.push(Buffer::new(size, lower, lower + len).with_align(32));
    }
    p
}
