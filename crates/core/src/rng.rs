//! The walk's random number generator: wyrand, one `u64` of state.
//!
//! Small enough for a GPU warp to keep in a register, fast on both sides, and
//! deterministic: the same seed gives the same stream on the host and on the device.

use rand_core::{RngCore, SeedableRng};

/// The wyrand generator (Wang Yi), implementing [`RngCore`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WyRand {
    state: u64,
}

impl WyRand {
    /// A generator whose stream is fixed by `seed`.
    pub const fn new(seed: u64) -> WyRand {
        WyRand { state: seed }
    }

    /// The state, from which [`WyRand::new`] continues the same stream.
    pub const fn state(&self) -> u64 {
        self.state
    }

    /// What each draw adds to the state.
    const INCREMENT: u64 = 0xa076_1d64_78bd_642f;

    /// Draw `k` (from 0) of the stream that `seed` starts, without drawing the ones before:
    /// the lanes of a warp each take their own draw of one warp-uniform seed. (Seeds `k` apart
    /// instead would give correlated draws: wyrand's one multiply does not part close states.)
    #[inline(always)]
    pub const fn nth(seed: u64, k: u64) -> u64 {
        Self::mix(seed.wrapping_add(k.wrapping_add(1).wrapping_mul(Self::INCREMENT)))
    }

    /// The next 64 random bits.
    #[inline(always)]
    pub fn bits(&mut self) -> u64 {
        self.state = self.state.wrapping_add(Self::INCREMENT);
        Self::mix(self.state)
    }

    /// The output of a state.
    #[inline(always)]
    const fn mix(state: u64) -> u64 {
        let t = (state as u128).wrapping_mul((state ^ 0xe703_7ed1_a0b4_28db) as u128);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// A uniform integer in `0..bound` (`bound` >= 1, at most 2^32), by multiply-shift.
    #[inline(always)]
    pub fn below(&mut self, bound: usize) -> usize {
        (((self.bits() as u32) as u64 * bound as u64) >> 32) as usize
    }

    /// Two distinct uniform indices below `n` (at least 2, at most 2^32), from one draw: its
    /// low and high 32 bits, each by multiply-shift (no division).
    #[inline]
    pub fn distinct_pair(&mut self, n: usize) -> (usize, usize) {
        let bits = self.bits();
        let i = ((bits as u32 as u64 * n as u64) >> 32) as usize;
        let mut j = i + 1 + (((bits >> 32) * (n as u64 - 1)) >> 32) as usize;
        if j >= n {
            j -= n;
        }
        (i, j)
    }
}

impl RngCore for WyRand {
    fn next_u32(&mut self) -> u32 {
        self.bits() as u32
    }

    fn next_u64(&mut self) -> u64 {
        self.bits()
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let bytes = self.bits().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

impl SeedableRng for WyRand {
    type Seed = [u8; 8];

    fn from_seed(seed: [u8; 8]) -> WyRand {
        WyRand::new(u64::from_le_bytes(seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = WyRand::new(7);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let x = rng.below(5);
            assert!(x < 5);
            seen[x] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn same_seed_same_stream() {
        let (mut a, mut b) = (WyRand::new(3), WyRand::new(3));
        assert!((0..100).all(|_| a.bits() == b.bits()));
        assert_ne!(WyRand::new(3).bits(), WyRand::new(4).bits());
    }

    #[test]
    fn nth_is_the_streams_draw() {
        let mut rng = WyRand::new(11);
        for k in 0..40 {
            assert_eq!(WyRand::nth(11, k), rng.bits(), "draw {k}");
        }
    }

    /// Over many warp-uniform seeds, how often lanes `i` and `j` both draw below half.
    fn both_below_half(i: u64, j: u64) -> f64 {
        let mut seeds = WyRand::new(5);
        let draws = 40_000;
        let both = (0..draws)
            .map(|_| seeds.bits())
            .filter(|&s| WyRand::nth(s, i) < 1 << 63 && WyRand::nth(s, j) < 1 << 63)
            .count();
        both as f64 / draws as f64
    }

    #[test]
    fn the_lanes_draws_are_independent() {
        // Seeds one apart gave lanes 8 apart 0.34 here.
        for (i, j) in [(0, 1), (0, 8), (3, 5), (7, 31)] {
            let p = both_below_half(i, j);
            assert!((p - 0.25).abs() < 0.015, "lanes {i} and {j}: {p}");
        }
    }
}
