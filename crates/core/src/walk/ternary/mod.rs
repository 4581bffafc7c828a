//! The ternary walk: the plain walk's step over {-1,0,1} ([`crate::ternary`]).
//!
//! The same index (factor to terms, here keyed by a factor's normal form, so that terms which
//! share a factor up to sign are partners), plateau clock and counters as the plain walk. A
//! step picks a random pair of terms that share a factor and a random sign, and flips; where
//! that sign would make a coefficient ±2 it tries the other, and where both would, the step is
//! a rejected move (counted as a step, not a vertex). A flip of two terms that share two
//! factors is a merge, and with [`Reductions::Scan`] the groups a flip changes are checked for
//! merges at once. Not here yet: generalized flips (their elimination is over F2) and 128-entry
//! factors. The walk on schemes invariant under the cyclic rotation is [`TernaryC3Walker`].

mod cyclic;

use alloc::vec::Vec;

use super::index::{self, factor_of, slot_of, Index, NONE};
use super::pending::{Pending, ALL_GROUPS};
use super::{Counters, Reductions, Sparsity, WalkConfig};
use crate::plateau::Clock;
use crate::rng::WyRand;
use crate::shape::Shape;
use crate::sparsity;
use crate::term::Position;
use crate::ternary::{flip, merge, plus, TernaryScheme, TernaryTerm, Trits};

pub use cyclic::TernaryC3Walker;

/// The index entry of factor `pos` of term slot `t`.
#[inline(always)]
const fn entry(t: u32, pos: Position) -> u32 {
    index::entry(t, pos.index())
}

/// The term slot and the position of an index entry.
#[inline(always)]
fn slot_and_position(e: u32) -> (u32, Position) {
    (slot_of(e), Position::from_index(factor_of(e)))
}

/// A walker on one ternary scheme: its terms, its index, its random stream and its counters.
#[derive(Clone, Debug)]
pub struct TernaryWalker {
    shape: Shape,
    config: WalkConfig,
    rng: WyRand,
    counters: Counters,
    clock: Clock,
    /// Entries of a factor at each position: the width of its key's planes.
    entries: [usize; 3],
    /// Term slots (the index says which are live; dead slots are reused).
    terms: Vec<TernaryTerm>,
    index: Index<3, u128>,
    /// Terms whose factors changed, with a bit mask of the positions whose groups to check.
    work: Pending,
    best: Vec<TernaryTerm>,
}

impl TernaryWalker {
    /// A walker on `scheme` (zero terms dropped; the merges it allows are taken at once).
    /// `config.generalized` is not read: there are no ternary generalized flips yet.
    pub fn new(scheme: &TernaryScheme, config: WalkConfig, seed: u64) -> TernaryWalker {
        let shape = scheme.shape();
        let entries = Position::ALL.map(|p| shape.factor_bits(p));
        let capacity = scheme.rank().max(config.max_rank.min(2 * shape.naive_rank())) + 2;
        let mut w = TernaryWalker {
            shape,
            config,
            rng: WyRand::new(seed),
            counters: Counters::default(),
            clock: Clock::new(config.plateau),
            entries,
            terms: Vec::with_capacity(capacity),
            index: Index::new(capacity, capacity, entries.map(|e| 2 * e)),
            work: Pending::default(),
            best: Vec::new(),
        };
        for &t in scheme.terms().iter().filter(|t| !t.is_zero()) {
            let id = w.add_term(t);
            w.work.push(id, ALL_GROUPS);
        }
        w.best = w.current_terms();
        w.reduce_pending(w.rank());
        w
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The current rank.
    pub fn rank(&self) -> usize {
        self.index.live().len()
    }

    /// The lowest rank reached.
    pub fn best_rank(&self) -> usize {
        self.best.len()
    }

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The current plateau limit: steps without a reduction before a plus move (0: never).
    pub fn plateau_limit(&self) -> u64 {
        self.clock.limit()
    }

    /// The current scheme.
    pub fn scheme(&self) -> TernaryScheme {
        self.scheme_of(self.current_terms())
    }

    /// The first scheme of the lowest rank reached.
    pub fn best(&self) -> TernaryScheme {
        self.scheme_of(self.best.clone())
    }

    fn scheme_of(&self, terms: Vec<TernaryTerm>) -> TernaryScheme {
        TernaryScheme::new(self.shape, terms).expect("the walker's format fits a ternary factor")
    }

    fn current_terms(&self) -> Vec<TernaryTerm> {
        self.index.live().iter().map(|&t| self.terms[t as usize]).collect()
    }

    /// Takes `steps` steps, or fewer when the rank reaches `target`; returns the steps taken.
    pub fn walk(&mut self, steps: u64, target: usize) -> u64 {
        super::walk_until(self, steps, target, Self::rank, Self::step)
    }

    /// One step: a flip (with the merges it allows) or, on a plateau, a plus move. Returns true
    /// when it reached a new scheme.
    pub fn step(&mut self) -> bool {
        self.counters.steps += 1;
        if !self.index.has_flips() {
            return self.plus_move();
        }
        if self.clock.ran_out() && self.rank() < self.config.max_rank {
            self.clock.plus_due();
            return self.plus_move();
        }
        let (e, f) = self.index.random_pair(&mut self.rng);
        let ((t, pos), (u, _)) = (slot_and_position(e), slot_and_position(f));
        let (old_x, old_y) = (self.terms[t as usize], self.terms[u as usize]);
        let (mut x, mut y) = (old_x, old_y);
        let minus = self.rng.bits() & 1 == 1;
        if !flip(&mut x, &mut y, pos, minus) && !flip(&mut x, &mut y, pos, !minus) {
            self.clock.tick();
            return false;
        }
        if self.config.sparsity == Sparsity::All {
            let (before, after) = (old_x.weight() + old_y.weight(), x.weight() + y.weight());
            if !sparsity::takes(before, after, self.rng.bits()) {
                self.clock.tick();
                return false;
            }
        }
        self.set_term(t, x);
        self.set_term(u, y);
        self.counters.flips += 1;
        self.counters.vertices += 1;
        self.clock.tick();
        let before = self.rank();
        let scan = self.config.reductions == Reductions::Scan;
        for (id, term) in [(t, x), (u, y)] {
            if term.is_zero() {
                self.remove_term(id);
            } else if scan {
                // The flipped group stays reduced (the flip is invertible on it).
                self.work.push(id, ALL_GROUPS & !(1 << pos.index()));
            }
        }
        self.reduce_pending(before);
        true
    }

    /// `t + u` to `t + u' + v` at a random position where they differ, with a random sign (see
    /// [`plus`]); none where both signs leave {-1,0,1}.
    fn plus_move(&mut self) -> bool {
        let n = self.index.live().len();
        if n < 2 {
            return false;
        }
        let (i, j) = self.rng.distinct_pair(n);
        let (t, u) = (self.index.live()[i], self.index.live()[j]);
        let pos = Position::from_index(self.rng.below(3));
        let (tt, ut) = (self.terms[t as usize], self.terms[u as usize]);
        if tt.get(pos) == ut.get(pos) {
            return false;
        }
        let minus = self.rng.bits() & 1 == 1;
        let Some((changed, added)) = plus(&tt, &ut, pos, minus).or_else(|| plus(&tt, &ut, pos, !minus)) else {
            return false;
        };
        self.set_term(u, changed);
        self.add_term(added);
        self.counters.plus += 1;
        self.counters.vertices += 1;
        self.clock.plus_taken();
        true
    }

    /// Checks every term in `work` for merges, and the terms those change, until none is left.
    /// `before` is the rank before the move that queued them.
    fn reduce_pending(&mut self, before: usize) {
        while let Some((t, pos)) = self.work.next(|t| self.index.is_live(t)) {
            self.merge_group_of(t, pos);
        }
        if self.rank() < before {
            self.clock.reduced();
            if self.rank() < self.best.len() {
                self.best = self.current_terms();
            }
        }
    }

    /// Merges `t` with the first term of its group at `pos` that shares a second factor and
    /// whose sum is ternary.
    fn merge_group_of(&mut self, t: u32, pos: Position) {
        let e = entry(t, pos);
        let mut f = self.index.group_of(e).head;
        while f != NONE {
            let next = self.index.next(f);
            if f != e && self.try_merge(t, slot_of(f)) {
                return;
            }
            f = next;
        }
    }

    /// Merges `u` into `t` when they share two factors and their sum is a ternary term.
    fn try_merge(&mut self, t: u32, u: u32) -> bool {
        let Some(merged) = merge(&self.terms[t as usize], &self.terms[u as usize]) else {
            return false;
        };
        self.remove_term(u);
        if merged.is_zero() {
            self.remove_term(t);
        } else {
            self.set_term(t, merged);
            self.work.push(t, ALL_GROUPS);
        }
        true
    }

    /// The index key of factor `value` at `pos`.
    #[inline(always)]
    fn key(&self, pos: Position, value: Trits) -> u128 {
        value.key(self.entries[pos.index()])
    }

    /// Replaces term `t`, moving each factor that changed to its new group.
    #[inline]
    fn set_term(&mut self, t: u32, term: TernaryTerm) {
        let old = core::mem::replace(&mut self.terms[t as usize], term);
        for pos in Position::ALL.into_iter().filter(|&p| old.get(p) != term.get(p)) {
            let key = self.key(pos, term.get(pos));
            self.index.rekey(entry(t, pos), key);
        }
    }

    fn add_term(&mut self, term: TernaryTerm) -> u32 {
        let added = self.index.add(Position::ALL.map(|pos| self.key(pos, term.get(pos))));
        index::store(&mut self.terms, added, term)
    }

    fn remove_term(&mut self, t: u32) {
        self.index.remove(t);
        self.counters.reductions += 1;
    }

    /// Checks every invariant of the index against the terms; panics with the broken one.
    /// For tests: O(rank^2).
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        for &t in self.index.live() {
            let term = self.terms[t as usize];
            assert!(!term.is_zero(), "a live term is zero");
            for pos in Position::ALL {
                let count = self.index.check_entry(entry(t, pos), self.key(pos, term.get(pos)));
                let members = self
                    .index
                    .live()
                    .iter()
                    .filter(|&&u| self.terms[u as usize].get(pos) == term.get(pos))
                    .count();
                assert_eq!(count as usize, members, "group count");
            }
        }
    }
}

#[cfg(test)]
mod tests;
