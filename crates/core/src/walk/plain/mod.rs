//! The plain walk on the flip graph of one scheme, with factors of any width.
//!
//! Each step picks a random group of terms that share a factor, flips a random pair of it (a
//! sparse walker may turn a flip down: [`crate::sparsity`]), and takes every reduction the flip
//! allows at once: merges of terms that share two factors and,
//! when enabled, generalized flips of dependent groups of three or more. After a plateau of
//! steps without a reduction it takes a plus move (rank +1) to leave it; the plateau's limit is
//! fixed or adapts to the walker's reductions ([`crate::plateau`]).
//!
//! An index from factor value to the terms holding it (one table per position: the
//! `index` module, which the symmetric walk shares) makes a step O(1) expected, and its list of the
//! groups with two or more terms makes every picked flip a real one. The plateau clock
//! ([`crate::plateau`]) and the dependency checks (`bases`) are shared the same way.

use alloc::vec::Vec;

use super::index::{self, factor_of, slot_of, Group, Index, NONE};
use super::pending::{Pending, ALL_GROUPS};
use super::Bases;
use super::{three_are_dependent, walk_by_inherent_methods, Counters, Reductions, Sparsity, WalkConfig};
use crate::moves::{flip, generalized_flip_rank, group_is_reducible, merge, plus, Moves};
use crate::plateau::Clock;
use crate::rng::WyRand;
use crate::scheme::Scheme;
use crate::shape::Shape;
use crate::sparsity::{self, weight};
use crate::term::{FactorBits, Position, Term};

walk_by_inherent_methods!(@F, Walker<F>);

/// The index entry of factor `pos` of term slot `t`.
#[inline(always)]
const fn entry(t: u32, pos: Position) -> u32 {
    index::entry(t, pos.index())
}

/// The term slot and the position of an index entry.
#[inline(always)]
const fn slot_and_position(e: u32) -> (u32, Position) {
    let pos = match factor_of(e) {
        0 => Position::A,
        1 => Position::B,
        _ => Position::C,
    };
    (slot_of(e), pos)
}

/// A walker: one scheme of factors of `F`, its index, its random stream and its counters.
#[derive(Clone, Debug)]
pub struct Walker<F: FactorBits = u64> {
    shape: Shape,
    config: WalkConfig,
    rng: WyRand,
    counters: Counters,
    clock: Clock,
    /// Term slots (the index says which are live; dead slots are reused).
    terms: Vec<Term<F>>,
    /// A table per position: the entry of factor `pos` of slot `t` is `entry(t, pos)`.
    index: Index<3, F>,
    /// Terms whose factors changed, with a bit mask of the positions whose groups to check.
    work: Pending,
    scratch_ids: Vec<u32>,
    scratch_terms: Vec<Term<F>>,
    bases: Bases<F>,
    best: Vec<Term<F>>,
}

impl<F: Moves> Walker<F> {
    /// A walker on `scheme` (zero terms dropped; any reductions it allows are taken at once).
    pub fn new(scheme: &Scheme<F>, config: WalkConfig, seed: u64) -> Walker<F> {
        let shape = scheme.shape();
        let capacity = scheme.rank().max(config.max_rank.min(2 * shape.naive_rank())) + 2;
        let mut w = Walker {
            shape,
            config,
            rng: WyRand::new(seed),
            counters: Counters::default(),
            clock: Clock::new(config.plateau),
            terms: Vec::with_capacity(capacity),
            index: Index::new(capacity, capacity, Position::ALL.map(|pos| shape.factor_bits(pos))),
            work: Pending::default(),
            scratch_ids: Vec::new(),
            scratch_terms: Vec::new(),
            bases: Bases::new(),
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

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The current scheme.
    pub fn scheme(&self) -> Scheme<F> {
        Scheme::new(self.shape, self.current_terms()).expect("the walk keeps factors in range")
    }

    /// The current plateau limit: steps without a reduction before a plus move (0: never).
    pub fn plateau_limit(&self) -> u64 {
        self.clock.limit()
    }

    /// The lowest rank this walker has reached.
    pub fn best_rank(&self) -> usize {
        self.best.len()
    }

    /// The first scheme of the lowest rank this walker has reached.
    pub fn best(&self) -> Scheme<F> {
        Scheme::new(self.shape, self.best.clone()).expect("the walk keeps factors in range")
    }

    fn current_terms(&self) -> Vec<Term<F>> {
        self.index.live().iter().map(|&t| self.terms[t as usize]).collect()
    }

    /// One step: a flip (with the reductions it allows) or, on a plateau, a plus move.
    /// Returns true when it reached a new scheme.
    pub fn step(&mut self) -> bool {
        self.counters.steps += 1;
        // With no two terms sharing a factor only a plus move leaves the scheme, so it is taken
        // even at `max_rank`; on a plateau it is taken below `max_rank`.
        if !self.index.has_flips() {
            return self.plus_move();
        }
        if self.clock.ran_out() && self.rank() < self.config.max_rank {
            self.clock.plus_due();
            return self.plus_move();
        }
        let (e, f) = self.index.random_pair(&mut self.rng);
        let ((t, pos), (u, _)) = (slot_and_position(e), slot_and_position(f));
        let (mut x, mut y) = (self.terms[t as usize], self.terms[u as usize]);
        flip(&mut x, &mut y, pos);
        if self.config.sparsity == Sparsity::All {
            let before = weight(&self.terms[t as usize]) + weight(&self.terms[u as usize]);
            if !sparsity::takes(before, weight(&x) + weight(&y), self.rng.bits()) {
                self.clock.tick();
                return false;
            }
        }
        let (q, r) = (pos.next(), pos.prev());
        // The sizes of the four groups the flip changes: those t and u stay in (read first, so
        // the loads overlap the index updates; the updates leave them unchanged unless the flip
        // zeroes a term) and those they join. A term alone in a group needs no check there.
        let stay = [self.group_size(t, q), self.group_size(u, r)];
        let joined = [self.set_factor(t, r, x.get(r)), self.set_factor(u, q, y.get(q))];
        self.counters.flips += 1;
        self.counters.vertices += 1;
        self.clock.tick();
        let before = self.rank();
        // A flip between terms that share two factors (left by a plus move) zeroes one. The
        // flipped group itself stays reduced (the flip is invertible on it): check the others.
        let scan = self.config.reductions == Reductions::Scan;
        if x.is_zero() || y.is_zero() {
            let others = ALL_GROUPS & !(1 << pos.index());
            for (id, term) in [(t, x), (u, y)] {
                if term.is_zero() {
                    self.remove_term(id);
                } else if scan {
                    self.work.push(id, others);
                }
            }
        } else if scan {
            // The common case, without the work list: the four changed groups directly.
            for (id, pos, size) in [(t, q, stay[0]), (t, r, joined[0]), (u, q, joined[1]), (u, r, stay[1])] {
                if size > 1 && self.index.is_live(id) {
                    self.reduce_group_of(id, pos);
                }
            }
        }
        self.reduce_pending(before);
        true
    }

    /// The size of the group of term `t` at `pos`.
    #[inline]
    fn group_size(&self, t: u32, pos: Position) -> u32 {
        self.index.group_of(entry(t, pos)).count
    }

    /// `t + u` to `t + u' + v` at a random position where they differ (see [`plus`]).
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
        let (changed, added) = plus(&tt, &ut, pos);
        self.set_factor(u, pos, changed.get(pos));
        self.add_term(added);
        self.counters.plus += 1;
        self.counters.vertices += 1;
        self.clock.plus_taken();
        true
    }

    /// Checks every term in `work` for reductions, and the terms those change, until none is left.
    /// `before` is the rank before the move that queued them.
    fn reduce_pending(&mut self, before: usize) {
        while let Some((t, pos)) = self.work.next(|t| self.index.is_live(t)) {
            self.reduce_group_of(t, pos);
        }
        if self.rank() < before {
            self.clock.reduced();
            if self.rank() < self.best.len() {
                self.best = self.current_terms();
            }
        }
    }

    /// Reduces the group of `t` at `pos` if its terms allow it.
    fn reduce_group_of(&mut self, t: u32, pos: Position) {
        let e = entry(t, pos);
        let g = self.index.group_of(e);
        match g.count {
            1 => {}
            2 => {
                let other = if g.head == e { self.index.next(e) } else { g.head };
                self.try_merge(t, slot_of(other));
            }
            _ if self.config.generalized => self.generalized_flip(g, pos),
            _ => {
                let mut f = g.head;
                while f != NONE {
                    let next = self.index.next(f);
                    if f != e && self.try_merge(t, slot_of(f)) {
                        return;
                    }
                    f = next;
                }
            }
        }
    }

    /// Merges `u` into `t` when they share two factors.
    fn try_merge(&mut self, t: u32, u: u32) -> bool {
        let (tt, ut) = (self.terms[t as usize], self.terms[u as usize]);
        let Some(merged) = merge(&tt, &ut) else {
            return false;
        };
        self.remove_term(u);
        if merged.is_zero() {
            self.remove_term(t);
        } else {
            let pos = Position::ALL
                .into_iter()
                .find(|&p| merged.get(p) != tt.get(p))
                .expect("a merge changes a factor");
            self.set_factor(t, pos, merged.get(pos));
            self.work.push(t, ALL_GROUPS);
        }
        true
    }

    /// True when the factors at `Q` or at `R` of group `g` (at `pos`) are linearly dependent.
    fn group_is_dependent(&mut self, g: Group<F>, pos: Position) -> bool {
        let (q, r) = (pos.next(), pos.prev());
        let (terms, index) = (&self.terms, &self.index);
        let pair = |e: u32| {
            let t = terms[slot_of(e) as usize];
            (t.get(q), t.get(r))
        };
        if g.count == 3 {
            // The common case, in closed form.
            let e1 = index.next(g.head);
            return three_are_dependent([g.head, e1, index.next(e1)].map(pair));
        }
        self.bases.dependent(index.entries(g).map(pair))
    }

    /// Rewrites group `g` (three or more terms, at `pos`) to fewer terms when it is dependent.
    fn generalized_flip(&mut self, g: Group<F>, pos: Position) {
        if !self.group_is_dependent(g, pos) {
            return;
        }
        self.scratch_ids.clear();
        self.scratch_terms.clear();
        for e in self.index.entries(g) {
            self.scratch_ids.push(slot_of(e));
            self.scratch_terms.push(self.terms[slot_of(e) as usize]);
        }
        debug_assert!(group_is_reducible(&self.scratch_terms, pos));
        generalized_flip_rank(&mut self.scratch_terms, pos);
        self.counters.generalized += 1;
        for k in 0..self.scratch_ids.len() {
            let (id, new) = (self.scratch_ids[k], self.scratch_terms[k]);
            if new.is_zero() {
                self.remove_term(id);
                continue;
            }
            let old = self.terms[id as usize];
            if old != new {
                for other in [pos.next(), pos.prev()] {
                    if old.get(other) != new.get(other) {
                        self.set_factor(id, other, new.get(other));
                    }
                }
                self.work.push(id, ALL_GROUPS);
            }
        }
    }

    /// Sets factor `pos` of term `t` and moves it to its new group; returns the group's size.
    #[inline]
    fn set_factor(&mut self, t: u32, pos: Position, value: F) -> u32 {
        self.terms[t as usize].set(pos, value);
        self.index.rekey(entry(t, pos), value)
    }

    fn add_term(&mut self, term: Term<F>) -> u32 {
        let added = self.index.add(Position::ALL.map(|pos| term.get(pos)));
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
                let key = term.get(pos);
                let count = self.index.check_entry(entry(t, pos), key);
                let members = self
                    .index
                    .live()
                    .iter()
                    .filter(|&&u| self.terms[u as usize].get(pos) == key)
                    .count();
                assert_eq!(count as usize, members, "group count");
            }
        }
        let distinct: usize = Position::ALL
            .into_iter()
            .map(|pos| {
                let mut keys: Vec<F> = self
                    .index
                    .live()
                    .iter()
                    .map(|&t| self.terms[t as usize].get(pos))
                    .collect();
                keys.sort_unstable();
                keys.dedup();
                keys.len()
            })
            .sum();
        self.index.check_groups(distinct, self.index.live().len());
    }
}

#[cfg(test)]
mod tests;
