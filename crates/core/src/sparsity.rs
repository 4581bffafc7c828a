//! Sparse walks: walkers that prefer flips which keep their factors sparse.
//!
//! Why: a reduction needs two terms that share two factors (or a zero factor), and a walk from
//! the naive scheme, whose factors have one bit each, drifts to dense factors where such
//! coincidences are rare: on 7x7x7 and 8x8x8 a free walk finds a reduction every few million
//! steps. A sparse walker takes a flip that adds `g` bits to its factors (their Hamming weight)
//! only with chance `2^-(g-1)` (always when it adds at most one bit or removes bits), a
//! Metropolis walk on the weight. It stays where factors coincide, and descends much faster on
//! large shapes (CPU, 2 threads, 30 s, seed 1: 7x7x7 to 310 against 341, 6x6x6 to 189 against
//! 211). Near the lowest ranks of small shapes the same bias walls it in (4x4x4 stalls at 52,
//! far above 49, whose schemes have denser factors), so by default the walkers that hold their
//! plateaus walk sparse ([`crate::plateau::Style::Hold`]), the escaping ones free, and restarts
//! from the pool carry either style's progress to the other (docs/BENCHMARKS-ARCHIVE.md,
//! "Sparse walkers"). The CPU walk and the GPU kernels share these functions; the symmetric
//! walks do not use them.

use crate::plateau::Style;
use crate::term::{FactorBits, Term};

/// Which walkers walk sparse. Engines default to [`Sparsity::Half`]; the `flipgraph` binary
/// walks free ([`Sparsity::Off`]) from a given scheme, where sparse walkers turn down about
/// a third of their flips and descend no further (docs/BENCHMARKS-ARCHIVE.md, "A given start
/// walks free").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sparsity {
    /// None: every flip is taken.
    Off,
    /// The walkers that hold their plateaus ([`Style::Hold`]; the default): the descent of
    /// large shapes, and free walkers for the lowest ranks of small ones.
    #[default]
    Half,
    /// Every walker: the fastest descent on large shapes, but small shapes stall above their
    /// lowest ranks.
    All,
}

impl Sparsity {
    /// The sparsity of a walker of `style`: [`Sparsity::All`] when it walks sparse, else
    /// [`Sparsity::Off`].
    pub const fn for_style(self, style: Style) -> Sparsity {
        if self.walks_sparse(style) {
            Sparsity::All
        } else {
            Sparsity::Off
        }
    }

    /// Its name on the command line and in checkpoints: `off`, `half` or `all`.
    pub const fn name(self) -> &'static str {
        match self {
            Sparsity::Off => "off",
            Sparsity::Half => "half",
            Sparsity::All => "all",
        }
    }

    /// The sparsity named `name` ([`Sparsity::name`]), if any.
    pub fn from_name(name: &str) -> Option<Sparsity> {
        [Sparsity::Off, Sparsity::Half, Sparsity::All]
            .into_iter()
            .find(|s| s.name() == name)
    }

    /// Whether a walker of `style` walks sparse.
    #[inline(always)]
    pub const fn walks_sparse(self, style: Style) -> bool {
        match self {
            Sparsity::Off => false,
            Sparsity::Half => matches!(style, Style::Hold),
            Sparsity::All => true,
        }
    }
}

/// The Hamming weight of a term: the bits set in its three factors.
#[inline(always)]
pub fn weight<F: FactorBits>(t: &Term<F>) -> u32 {
    t.a.count_ones() + t.b.count_ones() + t.c.count_ones()
}

/// Whether a sparse walker takes a flip that takes the weight of its two terms from `before`
/// to `after`, given 64 random bits: always when it adds at most one bit, else with chance
/// `2^-(gain-1)`.
#[inline(always)]
pub const fn takes(before: u32, after: u32, bits: u64) -> bool {
    let gain = after as i64 - before as i64;
    gain <= 1 || (gain <= 64 && bits <= u64::MAX >> (gain - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ones(n: u32) -> u64 {
        (1u64 << n) - 1
    }

    #[test]
    fn names_round_trip() {
        for s in [Sparsity::Off, Sparsity::Half, Sparsity::All] {
            assert_eq!(Sparsity::from_name(s.name()), Some(s));
        }
        assert_eq!(Sparsity::from_name("most"), None);
    }

    /// Of `draws` evenly spread draws of 64 bits, how many take a flip that gains `gain` bits.
    fn taken(gain: u32, draws: u64) -> u64 {
        let before = 2 * weight(&Term::new(1, 1, 1));
        let after = weight(&Term::new(1, 1, ones(1 + gain))) + weight(&Term::new(1, 1, 1));
        let step = u64::MAX / draws;
        (0..draws).filter(|i| takes(before, after, i * step + step / 2)).count() as u64
    }

    #[test]
    fn a_flip_gaining_g_bits_is_taken_with_chance_two_to_the_one_minus_g() {
        assert_eq!(taken(0, 1024), 1024);
        assert_eq!(taken(1, 1024), 1024);
        assert_eq!(taken(2, 1024), 512);
        assert_eq!(taken(3, 1024), 256);
        assert_eq!(taken(6, 1024), 32);
        assert_eq!(taken(62, 1024), 0, "below the lowest draw");
        assert!(takes(0, 62, 0), "but not impossible");
    }

    #[test]
    fn a_flip_that_loses_weight_is_always_taken() {
        let before = weight(&Term::new(ones(9), ones(9), 1)) + weight(&Term::new(1, 1, 1));
        assert_eq!(before, 22);
        assert!(takes(before, 6, u64::MAX));
        assert!(takes(before, before, u64::MAX));
    }

    #[test]
    fn the_holding_walkers_walk_sparse_by_default() {
        assert!(Sparsity::default().walks_sparse(Style::Hold) && !Sparsity::default().walks_sparse(Style::Escape));
        assert!(Style::ALL
            .iter()
            .all(|&s| Sparsity::All.walks_sparse(s) && !Sparsity::Off.walks_sparse(s)));
        assert_eq!(Sparsity::Half.for_style(Style::Hold), Sparsity::All);
        assert_eq!(Sparsity::Half.for_style(Style::Escape), Sparsity::Off);
    }
}
