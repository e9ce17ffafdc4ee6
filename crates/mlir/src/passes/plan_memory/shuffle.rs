//! The reference's operation-order shuffle, reproduced bit for bit.
//!
//! PlanMemory shuffles the values live at a loop or at a killing op with
//! `std::shuffle(begin, end, std::mt19937(seed))` before collecting gens and
//! kills (`getShuffledRange`), and retries a failed plan with seeds 1, 2,
//! ... The order reaches the plan: it decides which dead buffer an output
//! reuses in place and in which order loop-carried buffers are laid out.
//! This is `std::mt19937` and libstdc++'s `std::shuffle` (which draws two
//! swap positions per number when the range allows it) over
//! `std::uniform_int_distribution<unsigned long>` (Lemire's nearly
//! divisionless reduction for a 32-bit generator).

/// `std::mt19937`.
pub struct Mt19937 {
    state: [u32; 624],
    index: usize,
}

impl Mt19937 {
    /// `std::mt19937(seed)`.
    pub fn new(seed: u32) -> Mt19937 {
        let mut state = [0u32; 624];
        state[0] = seed;
        for i in 1..624 {
            state[i] = 1_812_433_253u32
                .wrapping_mul(state[i - 1] ^ (state[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 { state, index: 624 }
    }

    fn twist(&mut self) {
        for i in 0..624 {
            let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
            let mut v = self.state[(i + 397) % 624] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0x9908_b0df;
            }
            self.state[i] = v;
        }
        self.index = 0;
    }

    /// The next 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `uniform_int_distribution<unsigned long>{a, b}(*this)` with
    /// `b - a < 2^32 - 1`: Lemire's reduction of one 32-bit draw.
    fn uniform(&mut self, a: u64, b: u64) -> u64 {
        let range = b - a;
        debug_assert!(range < u64::from(u32::MAX));
        let erange = (range + 1) as u32;
        let mut product = u64::from(self.next_u32()) * u64::from(erange);
        let mut low = product as u32;
        if low < erange {
            let threshold = erange.wrapping_neg() % erange;
            while low < threshold {
                product = u64::from(self.next_u32()) * u64::from(erange);
                low = product as u32;
            }
        }
        (product >> 32) + a
    }

    /// `std::shuffle(v.begin(), v.end(), *this)` as libstdc++ does it.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        let n = v.len() as u64;
        if n == 0 {
            return;
        }
        let urng_range = u64::from(u32::MAX);
        if urng_range / n >= n {
            // Two swap positions per draw.
            let mut i = 1u64;
            if n.is_multiple_of(2) {
                let j = self.uniform(0, 1);
                v.swap(i as usize, j as usize);
                i += 1;
            }
            while i != n {
                let swap_range = i + 1;
                let x = self.uniform(0, swap_range * (swap_range + 1) - 1);
                let (p1, p2) = (x / (swap_range + 1), x % (swap_range + 1));
                v.swap(i as usize, p1 as usize);
                i += 1;
                v.swap(i as usize, p2 as usize);
                i += 1;
            }
            return;
        }
        for i in 1..n {
            let j = self.uniform(0, i);
            v.swap(i as usize, j as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_matches_the_standard() {
        // The C++ standard: the 10000th output of a default-constructed
        // std::mt19937 (seed 5489) is 4123659995.
        let mut g = Mt19937::new(5489);
        let mut last = 0;
        for _ in 0..10000 {
            last = g.next_u32();
        }
        assert_eq!(last, 4_123_659_995);
        let mut z = Mt19937::new(0);
        assert_eq!(z.next_u32(), 2_357_136_044);
    }

    #[test]
    fn shuffles_are_permutations() {
        let mut g = Mt19937::new(0);
        for n in 0..40usize {
            let mut v: Vec<usize> = (0..n).collect();
            g.shuffle(&mut v);
            let mut s = v.clone();
            s.sort_unstable();
            assert_eq!(s, (0..n).collect::<Vec<_>>());
        }
    }
}
