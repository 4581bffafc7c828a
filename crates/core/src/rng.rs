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

    /// The next 64 random bits.
    #[inline(always)]
    pub fn bits(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.state as u128).wrapping_mul((self.state ^ 0xe703_7ed1_a0b4_28db) as u128);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// A uniform integer in `0..bound` (`bound` >= 1, at most 2^32), by multiply-shift.
    #[inline(always)]
    pub fn below(&mut self, bound: usize) -> usize {
        (((self.bits() as u32) as u64 * bound as u64) >> 32) as usize
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
}
