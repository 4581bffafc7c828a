//! The pool: the best schemes found, by rank, that walkers restart from.

use std::collections::{BTreeMap, HashSet};

use flipgraph_core::rng::WyRand;
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::Verified;
use flipgraph_core::Term;

/// Verified schemes by rank, at most `per_rank` at each rank, only the lowest `levels` ranks.
/// A full rank takes new schemes in place of its oldest, so that the walkers keep restarting
/// from fresh ones: a rank frozen at its first schemes can hold the search in one dead end.
pub struct Pool<F: FactorBits = u64> {
    per_rank: usize,
    levels: usize,
    by_rank: BTreeMap<usize, Level<F>>,
    seen: HashSet<Vec<Term<F>>>,
}

/// The schemes of one rank, and which one is the oldest once the rank is full.
struct Level<F: FactorBits> {
    schemes: Vec<Verified<F>>,
    /// Whether each scheme offers a flip ([`Scheme::flip_pairs`]): a restart from a sink can
    /// only take plus moves, and on 4x4x4 none led anywhere (below).
    open: Vec<bool>,
    oldest: usize,
}

impl<F: FactorBits> Default for Level<F> {
    fn default() -> Self {
        Level {
            schemes: Vec::new(),
            open: Vec::new(),
            oldest: 0,
        }
    }
}

impl<F: FactorBits> Level<F> {
    fn opens(&self) -> usize {
        self.open.iter().filter(|&&o| o).count()
    }

    /// A random scheme that offers a flip, if the level has one.
    fn pick_open(&self, rng: &mut WyRand) -> Option<&Verified<F>> {
        let n = self.opens();
        (n > 0).then(|| {
            let nth = rng.below(n);
            let (scheme, _) = self
                .schemes
                .iter()
                .zip(&self.open)
                .filter(|(_, &o)| o)
                .nth(nth)
                .expect("n open");
            scheme
        })
    }
}

impl<F: FactorBits> Pool<F> {
    pub fn new(per_rank: usize, levels: usize) -> Pool<F> {
        Pool {
            per_rank: per_rank.max(1),
            levels: levels.max(1),
            by_rank: BTreeMap::new(),
            seen: HashSet::new(),
        }
    }

    /// The lowest rank held.
    pub fn best_rank(&self) -> Option<usize> {
        self.by_rank.keys().next().copied()
    }

    /// Number of schemes held.
    pub fn len(&self) -> usize {
        self.by_rank.values().map(|l| l.schemes.len()).sum()
    }

    /// True when the pool has room at `rank` (so a scheme of that rank is worth fetching).
    pub fn wants(&self, rank: usize) -> bool {
        match self.best_rank() {
            None => true,
            Some(best) if rank < best => true,
            Some(_) => self.by_rank.contains_key(&rank),
        }
    }

    /// Adds a verified scheme; false when it was there already or the pool has no room for it.
    pub fn insert(&mut self, scheme: Verified<F>) -> bool {
        if !self.wants(scheme.rank()) {
            return false;
        }
        if !self.seen.insert(scheme.sorted_terms()) {
            return false;
        }
        let open = scheme.flip_pairs() > 0;
        let level = self.by_rank.entry(scheme.rank()).or_default();
        if level.schemes.len() < self.per_rank {
            level.schemes.push(scheme);
            level.open.push(open);
        } else {
            let old = std::mem::replace(&mut level.schemes[level.oldest], scheme);
            level.open[level.oldest] = open;
            level.oldest = (level.oldest + 1) % self.per_rank;
            self.seen.remove(&old.sorted_terms());
        }
        while self.by_rank.len() > self.levels {
            let (_, dropped) = self.by_rank.pop_last().expect("non-empty");
            for s in dropped.schemes {
                self.seen.remove(&s.sorted_terms());
            }
        }
        true
    }

    /// A random scheme: of the lowest rank with probability 1/2, else of one of the next ranks,
    /// evenly (1/8 each of the next four of five, [`super::POOL_RANKS`]); a rank the pool does
    /// not hold (yet) gives its share to the lowest. Only schemes that offer a flip are drawn
    /// while the pool holds one: a rank that holds only sinks gives its share to the ranks that
    /// hold schemes with flips, in proportion to theirs. A sink (of the lowest rank) is drawn
    /// only when the pool holds nothing else (a start such as KM's 4x4x4 rank 47, which offers
    /// no flip).
    ///
    /// Why: 4x4x4 descends from naive to a level of 49s that offer no flip (Strassen's square
    /// and its kin: 64 of 64 pooled in every run of 10 on an H200), and all seven 47s in those
    /// runs came from walks restarted at ranks 51 to 54, none from the half of the restarts
    /// that went to the sinks. Given to the next rank up, that half made 50 the rank of 5
    /// restarts in 8; spread, each of the four open ranks takes a quarter
    /// (docs/BENCHMARKS-ARCHIVE.md, "Restarts pass over sinks" and "Restarts spread over the
    /// ranks with flips").
    pub fn pick(&self, rng: &mut WyRand) -> &Verified<F> {
        let levels: Vec<&Level<F>> = self.by_rank.values().collect();
        assert!(!levels.is_empty(), "the pool is never empty during a search");
        // Shares in units of 1 / (2 * above): the lowest rank `above` of them and those of the
        // ranks not held, each other rank one.
        let above = (self.levels - 1).max(1);
        let missing = (above + 1).saturating_sub(levels.len());
        let open: Vec<(&Level<F>, usize)> = levels
            .iter()
            .enumerate()
            .filter(|(_, level)| level.opens() > 0)
            .map(|(i, &level)| (level, if i == 0 { above + missing } else { 1 }))
            .collect();
        let total: usize = open.iter().map(|&(_, share)| share).sum();
        if total == 0 {
            let schemes = &levels[0].schemes;
            return &schemes[rng.below(schemes.len())];
        }
        let mut draw = rng.below(total);
        for (level, share) in open {
            if draw < share {
                return level.pick_open(rng).expect("an open level");
            }
            draw -= share;
        }
        unreachable!("the draw is below the total of the shares")
    }

    /// A scheme of the lowest rank.
    pub fn best(&self) -> Option<&Verified<F>> {
        self.lowest().first()
    }

    /// The schemes of the lowest rank.
    pub fn lowest(&self) -> &[Verified<F>] {
        self.by_rank.values().next().map_or(&[], |l| &l.schemes)
    }

    /// All schemes, lowest rank first.
    pub fn iter(&self) -> impl Iterator<Item = &Verified<F>> {
        self.by_rank.values().flat_map(|l| &l.schemes)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::driver::POOL_RANKS as LEVELS;
    use flipgraph_core::{Scheme, Shape};

    /// The naive scheme of `shape` with its first `split` terms each split in two (its rank
    /// the naive one plus `split`), on the `bit`-th bit of factor C other than the term's own
    /// one-hot bit, so that neither half is zero and distinct `bit`s give distinct schemes.
    pub(in crate::driver) fn split_naive(shape: Shape, split: usize, bit: u32) -> Verified {
        let mut terms = Scheme::naive(shape).into_terms();
        for _ in 0..split {
            let t = terms.remove(0);
            let bit = if bit >= t.c.trailing_zeros() { bit + 1 } else { bit };
            terms.push(Term::new(t.a, t.b, t.c ^ (1 << bit)));
            terms.push(Term::new(t.a, t.b, 1 << bit));
        }
        Verified::new(Scheme::new(shape, terms).unwrap()).unwrap()
    }

    /// Valid 3x3x3 schemes of rank 27 + `split` ([`split_naive`]).
    fn scheme(split: usize, bit: u32) -> Verified {
        split_naive(Shape::square(3).unwrap(), split, bit)
    }

    #[test]
    fn keeps_the_lowest_levels_and_no_duplicates() {
        let mut pool = Pool::new(2, 2);
        assert!(pool.insert(scheme(2, 0)));
        assert!(!pool.insert(scheme(2, 0)), "duplicate");
        assert!(pool.insert(scheme(1, 0)));
        assert!(pool.insert(scheme(0, 0)));
        assert_eq!(pool.best_rank(), Some(27));
        assert_eq!(pool.len(), 2, "rank 29 dropped: only two levels kept");
        assert!(!pool.wants(29));
        assert!(pool.wants(26));
    }

    /// Strassen's 2x2x2 rank 7, which offers no flip.
    fn strassen() -> Verified {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/2x2x2-r7-strassen.m");
        let file = flipgraph_core::formats::read_path(std::path::Path::new(path)).unwrap();
        Verified::new(file.f2().unwrap()).unwrap()
    }

    #[test]
    fn restarts_come_from_schemes_with_flips_while_the_pool_has_one() {
        let sink = strassen();
        assert_eq!(sink.flip_pairs(), 0);
        let naive = Verified::new(Scheme::naive(sink.shape())).unwrap();
        let mut rng = WyRand::new(1);
        let mut pool = Pool::new(4, 3);
        assert!(pool.insert(sink.clone()));
        for _ in 0..100 {
            assert_eq!(pool.pick(&mut rng), &sink, "nothing else to draw");
        }
        let mut pool = Pool::new(4, 3);
        assert!(pool.insert(naive.clone()));
        assert!(pool.insert(sink.clone()));
        assert_eq!(pool.best_rank(), Some(7));
        for _ in 0..100 {
            assert_eq!(pool.pick(&mut rng), &naive, "the sink of rank 7 is passed over");
        }
    }

    #[test]
    fn a_rank_of_sinks_gives_its_share_to_the_open_ranks_in_proportion() {
        // A pool of 2x2x2 schemes whose best rank (7) holds only Strassen's, a sink.
        let sink = strassen();
        let mut pool = Pool::new(4, LEVELS);
        // Ranks 11 down to 8 (the pool takes no rank above its best): the naive rank 8 with
        // three, two, one and none of its terms split in two.
        for split in (0..LEVELS - 1).rev() {
            let scheme = split_naive(sink.shape(), split, 0);
            assert!(scheme.flip_pairs() > 0);
            assert!(pool.insert(scheme), "split {split}");
        }
        assert!(pool.insert(sink.clone()));
        assert_eq!(pool.len(), LEVELS);
        let mut rng = WyRand::new(5);
        let draws = 16_000;
        let mut by_rank = BTreeMap::new();
        for _ in 0..draws {
            *by_rank.entry(pool.pick(&mut rng).rank()).or_insert(0usize) += 1;
        }
        assert!(!by_rank.contains_key(&7), "the sinks are passed over");
        for rank in 8..7 + LEVELS {
            let share = by_rank.get(&rank).copied().unwrap_or(0) as f64 / draws as f64;
            let expected = 1.0 / (LEVELS - 1) as f64;
            assert!((share - expected).abs() < 0.02, "rank {rank}: {share}");
        }
    }

    #[test]
    fn restarts_take_the_best_rank_half_the_time_and_the_ranks_above_evenly() {
        let mut pool = Pool::new(4, LEVELS);
        for split in (0..=LEVELS).rev() {
            assert!(pool.insert(scheme(split, 0)));
        }
        assert_eq!(pool.len(), LEVELS, "the sixth rank dropped");
        let mut rng = WyRand::new(7);
        let draws = 16_000;
        let mut by_rank = BTreeMap::new();
        for _ in 0..draws {
            *by_rank.entry(pool.pick(&mut rng).rank()).or_insert(0usize) += 1;
        }
        let share = |rank: usize| by_rank.get(&rank).copied().unwrap_or(0) as f64 / draws as f64;
        assert!((share(27) - 0.5).abs() < 0.02, "best rank: {}", share(27));
        for rank in 28..27 + LEVELS {
            let expected = 0.5 / (LEVELS - 1) as f64;
            assert!((share(rank) - expected).abs() < 0.02, "rank {rank}: {}", share(rank));
        }
    }

    #[test]
    fn a_rank_the_pool_does_not_hold_gives_its_restarts_to_the_best() {
        let shares = |pool: &Pool| {
            let mut rng = WyRand::new(9);
            let best = (0..8000).filter(|_| pool.pick(&mut rng).rank() == 27).count();
            best as f64 / 8000.0
        };
        let mut two = Pool::new(4, LEVELS);
        assert!(two.insert(scheme(1, 0)) && two.insert(scheme(0, 0)));
        let best = shares(&two);
        assert!((best - 7.0 / 8.0).abs() < 0.02, "two ranks held: {best}");
        let mut one_level = Pool::new(4, 1);
        assert!(one_level.insert(scheme(0, 0)));
        assert_eq!(shares(&one_level), 1.0);
    }

    #[test]
    fn a_full_rank_takes_new_schemes_in_place_of_its_oldest() {
        // Distinct schemes of one rank: the naive scheme with one term split in three ways.
        let variant = |i: u32| scheme(1, i);
        let mut pool = Pool::new(2, 1);
        for i in 0..3 {
            assert!(pool.insert(variant(i)), "scheme {i}");
        }
        let held: Vec<Verified> = pool.iter().cloned().collect();
        assert_eq!(held, [variant(2), variant(1)], "the oldest (0) was replaced");
        assert!(pool.insert(variant(0)), "a replaced scheme may come back");
        assert!(!pool.insert(variant(0)), "but not twice");
    }
}
