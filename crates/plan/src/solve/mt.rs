//! The random orders of PyPTO's DSA_RP greedy, drawn exactly as PyPTO's
//! C++ draws them: `std::mt19937_64` and libstdc++'s `std::shuffle` with its
//! `uniform_int_distribution` (behaviour.md: four successive shuffles of the
//! last deterministic order with one generator seeded 0).
//!
//! Only bit-exact reproduction matters here, so each function follows the
//! library's algorithm step by step (the pairwise swap of `std::shuffle`,
//! Lemire's nearly-divisionless downscaling for a 64-bit generator); the
//! tests pin outputs printed by a g++/libstdc++ build.

/// `std::mt19937_64`: the 64-bit Mersenne Twister with the standard's
/// parameters.
#[derive(Clone)]
pub struct Mt19937_64 {
    state: [u64; Self::N],
    index: usize,
}

impl Mt19937_64 {
    const N: usize = 312;
    const M: usize = 156;
    const MATRIX_A: u64 = 0xB502_6F5A_A966_19E9;
    const UPPER: u64 = !0u64 << 31;
    const LOWER: u64 = !Self::UPPER;

    /// `std::mt19937_64 g(seed)`; the default constructor uses 5489.
    pub fn new(seed: u64) -> Mt19937_64 {
        let mut state = [0u64; Self::N];
        state[0] = seed;
        for i in 1..Self::N {
            let prev = state[i - 1];
            state[i] = 6_364_136_223_846_793_005u64
                .wrapping_mul(prev ^ (prev >> 62))
                .wrapping_add(i as u64);
        }
        Mt19937_64 {
            state,
            index: Self::N,
        }
    }

    fn twist(&mut self) {
        for i in 0..Self::N {
            let y = (self.state[i] & Self::UPPER) | (self.state[(i + 1) % Self::N] & Self::LOWER);
            let mag = if y & 1 == 1 { Self::MATRIX_A } else { 0 };
            self.state[i] = self.state[(i + Self::M) % Self::N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// The next output (`g()`), in `[0, 2^64)`.
    pub fn next_u64(&mut self) -> u64 {
        if self.index >= Self::N {
            self.twist();
        }
        let mut z = self.state[self.index];
        self.index += 1;
        z ^= (z >> 29) & 0x5555_5555_5555_5555;
        z ^= (z << 17) & 0x71D6_7FFF_EDA6_0000;
        z ^= (z << 37) & 0xFFF7_EEE0_0000_0000;
        z ^= z >> 43;
        z
    }
}

/// `std::uniform_int_distribution<uint64_t>{a, b}(g)` as libstdc++ draws it
/// from a generator whose range is all 64 bits: Lemire's multiply-and-shift
/// with rejection below `-range % range`.
pub fn uniform_u64(g: &mut Mt19937_64, a: u64, b: u64) -> u64 {
    let urange = b.wrapping_sub(a);
    if urange == u64::MAX {
        return g.next_u64().wrapping_add(a);
    }
    let range = urange + 1;
    let mut product = u128::from(g.next_u64()) * u128::from(range);
    let mut low = product as u64;
    if low < range {
        let threshold = range.wrapping_neg() % range;
        while low < threshold {
            product = u128::from(g.next_u64()) * u128::from(range);
            low = product as u64;
        }
    }
    (product >> 64) as u64 + a
}

/// libstdc++'s `std::shuffle(v.begin(), v.end(), g)`.
///
/// When the generator's range covers the square of the length (always, for
/// a 64-bit generator and any slice that fits in memory below 2^32
/// elements) it swaps two positions per draw: `x` uniform in
/// `[0, r * (r + 1))` gives `x / (r + 1)` and `x % (r + 1)`, after one
/// single draw in `[0, 1]` when the length is even. Otherwise one draw per
/// position.
pub fn shuffle<T>(v: &mut [T], g: &mut Mt19937_64) {
    let n = v.len() as u64;
    if n == 0 {
        return;
    }
    if u64::MAX / n >= n {
        let mut i = 1usize;
        if n.is_multiple_of(2) {
            let j = uniform_u64(g, 0, 1) as usize;
            v.swap(i, j);
            i += 1;
        }
        while i < v.len() {
            let swap_range = i as u64 + 1;
            let x = uniform_u64(g, 0, swap_range * (swap_range + 1) - 1);
            let (p1, p2) = (x / (swap_range + 1), x % (swap_range + 1));
            v.swap(i, p1 as usize);
            i += 1;
            v.swap(i, p2 as usize);
            i += 1;
        }
        return;
    }
    for i in 1..v.len() {
        let j = uniform_u64(g, 0, i as u64) as usize;
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_64_matches_the_standard() {
        // The C++ standard: the 10000th output of a default-constructed
        // mt19937_64 is 9981545732273789042.
        let mut g = Mt19937_64::new(5489);
        assert_eq!(g.next_u64(), 14_514_284_786_278_117_030);
        for _ in 1..9999 {
            g.next_u64();
        }
        assert_eq!(g.next_u64(), 9_981_545_732_273_789_042);
        let mut g = Mt19937_64::new(0);
        assert_eq!([g.next_u64(), g.next_u64(), g.next_u64()], GXX_SEED0_FIRST3);
    }

    #[test]
    fn shuffles_match_libstdcxx() {
        // Four successive shuffles of 0..n with one generator seeded 0,
        // printed by a g++/libstdc++ program.
        for (n, rounds) in GXX_SHUFFLES {
            let mut g = Mt19937_64::new(0);
            let mut v: Vec<u32> = (0..*n).collect();
            for want in rounds.iter() {
                shuffle(&mut v, &mut g);
                assert_eq!(&v[..], &want[..], "n = {n}");
            }
        }
    }

    #[test]
    fn uniform_draws_match_libstdcxx() {
        let mut g = Mt19937_64::new(0);
        let got: Vec<u64> = [(0, 1), (0, 9), (5, 1000), (0, u64::MAX - 1), (0, u64::MAX)]
            .iter()
            .map(|&(a, b)| uniform_u64(&mut g, a, b))
            .collect();
        assert_eq!(got, GXX_UNIFORM);
    }

    // Printed by `mt_gxx.cpp` (g++ 12.2, libstdc++):
    // `g++ -std=c++17 mt_gxx.cpp -o gen && ./gen > mt_gxx.rs`.
    include!("mt_gxx.rs");
}
