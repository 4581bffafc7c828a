//! The pool: the best schemes found, by rank, that walkers restart from.

use std::collections::{BTreeMap, HashSet};

use flipgraph_core::rng::WyRand;
use flipgraph_core::{Scheme, Term};

/// Verified schemes by rank, at most `per_rank` at each rank, only the lowest `levels` ranks.
pub struct Pool {
    per_rank: usize,
    levels: usize,
    by_rank: BTreeMap<usize, Vec<Scheme>>,
    seen: HashSet<Vec<Term>>,
}

/// A scheme's terms in order: equal for the same scheme whatever the order of its terms.
fn key(s: &Scheme) -> Vec<Term> {
    let mut terms = s.terms().to_vec();
    terms.sort_unstable();
    terms
}

impl Pool {
    pub fn new(per_rank: usize, levels: usize) -> Pool {
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
        self.by_rank.values().map(Vec::len).sum()
    }

    /// True when the pool has room at `rank` (so a scheme of that rank is worth fetching).
    pub fn wants(&self, rank: usize) -> bool {
        match self.best_rank() {
            None => true,
            Some(best) if rank < best => true,
            Some(_) => self.by_rank.get(&rank).is_some_and(|v| v.len() < self.per_rank),
        }
    }

    /// Adds a verified scheme; false when it was there already or the pool has no room for it.
    pub fn insert(&mut self, scheme: Scheme) -> bool {
        if !self.wants(scheme.rank()) {
            return false;
        }
        if !self.seen.insert(key(&scheme)) {
            return false;
        }
        self.by_rank.entry(scheme.rank()).or_default().push(scheme);
        while self.by_rank.len() > self.levels {
            let (_, dropped) = self.by_rank.pop_last().expect("non-empty");
            for s in dropped {
                self.seen.remove(&key(&s));
            }
        }
        true
    }

    /// A random scheme: of the lowest rank with probability 1/2, else of the next rank held
    /// (1/4) or the one after (1/4), where the pool has them.
    pub fn pick(&self, rng: &mut WyRand) -> &Scheme {
        let level = match rng.below(4) {
            0 | 1 => 0,
            2 => 1,
            _ => 2,
        };
        let schemes = self
            .by_rank
            .values()
            .nth(level)
            .or_else(|| self.by_rank.values().next());
        let schemes = schemes.expect("the pool is never empty during a search");
        &schemes[rng.below(schemes.len())]
    }

    /// The first scheme found at the lowest rank.
    pub fn best(&self) -> Option<&Scheme> {
        self.by_rank.values().next().and_then(|v| v.first())
    }

    /// All schemes, lowest rank first.
    pub fn iter(&self) -> impl Iterator<Item = &Scheme> {
        self.by_rank.values().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flipgraph_core::Shape;

    fn scheme(rank: usize) -> Scheme {
        let mut terms = Scheme::naive(Shape::square(3).unwrap()).into_terms();
        terms.truncate(rank);
        Scheme::new(Shape::square(3).unwrap(), terms).unwrap()
    }

    #[test]
    fn keeps_the_lowest_levels_and_no_duplicates() {
        let mut pool = Pool::new(2, 2);
        assert!(pool.insert(scheme(27)));
        assert!(!pool.insert(scheme(27)), "duplicate");
        assert!(pool.insert(scheme(26)));
        assert!(pool.insert(scheme(25)));
        assert_eq!(pool.best_rank(), Some(25));
        assert_eq!(pool.len(), 2, "rank 27 dropped: only two levels kept");
        assert!(!pool.wants(27));
        assert!(pool.wants(24));
    }
}
