//! The random walk on the flip graph of invariant schemes: [`SymmetricWalker`], the counterpart
//! of [`crate::walk::Walker`] with the same methods and meanings.
//!
//! The walker keeps the fixed terms in a list and each triple orbit as the three factors
//! `[f0, f1, f2]` of its representative. Its terms are the three rotations
//! `(f_k, f_k+1, f_k+2)`, and term `k` is the one whose factor at A is `f_k`; so two terms of
//! two triples share a factor (at any position) exactly when the two orbits share a factor
//! value, and then the flip at A between their rotations is the orbit flip. One index from
//! factor value to the orbit factors holding it (the plain walk's index, with one table for all
//! three positions instead of one per position) finds every flip: each step picks a
//! group of two or more, a pair in it, and flips the two rotations when they are of distinct
//! orbits (a pair within one orbit is a step that moves nothing; see the module docs of
//! [`crate::symmetry`]). Fixed terms take no flips.
//!
//! After a flip the two changed orbits are reduced: a zero orbit goes, an orbit that became
//! `X^3` is a fixed term (cancelling an equal one), a triple whose factors sum to zero becomes
//! fixed terms when one of them cancels, triples that share two factors merge, and with
//! generalized flips a dependent group of distinct triples is rewritten. After a plateau a
//! plus move (rank + 3) reads any orbit and splits a triple. Ranks are those of the plain scheme.
//!
//! With [`FixedTerms::Frozen`] the fixed terms of the start stay as they are (Moosbauer and
//! Poole's search keeps the cubes it starts from): only the triples move. No cube reduction is
//! taken, and a move that would leave a triple of the form `X (x) X (x) X` (which settles to a
//! fixed term) is not taken either; plus moves still read the fixed terms.

use alloc::vec::Vec;

use super::{is_fixed, Orbit, OrbitKind, SymmetricScheme, SymmetryError};
use crate::counters::Counters;
use crate::moves::{flip, generalized_flip_rank, merge, plus};
use crate::plateau::Clock;
use crate::rng::WyRand;
use crate::scheme::Scheme;
use crate::shape::Shape;
use crate::term::{Factor, Position, Term};
use crate::walk::index::{entry, factor_of, slot_of, Group, Index, NONE};
use crate::walk::{three_are_dependent, Bases, WalkConfig};

/// The next factor index, mod 3.
const NEXT: [usize; 3] = [1, 2, 0];
/// The previous factor index, mod 3.
const PREV: [usize; 3] = [2, 0, 1];

/// Whether a [`SymmetricWalker`] may change its fixed terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FixedTerms {
    /// The walk changes them: triples settle to fixed terms, equal ones cancel, and cube
    /// reductions turn triples into fixed terms.
    #[default]
    Free,
    /// The fixed terms of the start never change; the walk moves the triples only.
    Frozen,
}

/// A walker on invariant schemes: fixed terms, triple orbits, their index, a random stream and
/// counters. [`SymmetricWalker::scheme`] and [`SymmetricWalker::best`] give plain schemes.
#[derive(Clone, Debug)]
pub struct SymmetricWalker {
    shape: Shape,
    config: WalkConfig,
    fixed_terms: FixedTerms,
    rng: WyRand,
    counters: Counters,
    clock: Clock,
    /// The factors of each triple orbit's representative, by orbit slot; dead slots are reused.
    factors: Vec<[Factor; 3]>,
    /// The fixed terms' factors, distinct.
    fixed: Vec<Factor>,
    /// One table for the three factors of every orbit: entry `entry(orbit, k)`.
    index: Index<1>,
    /// Orbits to check for reductions.
    work: Vec<u32>,
    scratch_entries: Vec<u32>,
    scratch_terms: Vec<Term>,
    bases: Bases,
    /// Per orbit slot: the stamp of the last gathering that took it.
    gathered: Vec<u64>,
    gather_stamp: u64,
    best_fixed: Vec<Factor>,
    best_triples: Vec<[Factor; 3]>,
}

impl SymmetricWalker {
    /// A walker on `scheme` (reductions it allows are taken at once; the best scheme starts as
    /// `scheme`).
    pub fn new(scheme: &SymmetricScheme, config: WalkConfig, seed: u64) -> SymmetricWalker {
        SymmetricWalker::with_fixed_terms(scheme, config, seed, FixedTerms::Free)
    }

    /// A walker on `scheme` that changes its fixed terms or not, as `fixed_terms` says. Equal
    /// fixed terms of `scheme` cancel at once either way; the others are those kept frozen.
    pub fn with_fixed_terms(
        scheme: &SymmetricScheme,
        config: WalkConfig,
        seed: u64,
        fixed_terms: FixedTerms,
    ) -> SymmetricWalker {
        let shape = scheme.shape();
        // Plus moves stop at twice the naive rank (or the start's rank, if higher): the tables
        // are sized for that, and a walk that climbs further would fill them.
        let config = WalkConfig {
            max_rank: config.max_rank.min(scheme.rank().max(2 * shape.naive_rank())),
            ..config
        };
        // Keys: at most three per triple, at most one per term of the plain scheme.
        let capacity = scheme.rank().max(config.max_rank) + 6;
        let orbits = capacity / 3 + 1;
        let mut w = SymmetricWalker {
            shape,
            config,
            fixed_terms,
            rng: WyRand::new(seed),
            counters: Counters::default(),
            clock: Clock::new(config.plateau),
            factors: Vec::with_capacity(orbits),
            fixed: Vec::new(),
            index: Index::new(orbits, capacity, [shape.factor_bits(Position::A)]),
            work: Vec::new(),
            scratch_entries: Vec::new(),
            scratch_terms: Vec::new(),
            bases: Bases::new(),
            gathered: Vec::with_capacity(orbits),
            gather_stamp: 0,
            best_fixed: Vec::new(),
            best_triples: Vec::new(),
        };
        let mut fixed = Vec::new();
        for o in scheme.orbits().iter().filter(|o| !o.is_zero()) {
            let t = o.representative();
            match o.kind() {
                OrbitKind::Fixed => fixed.push(t.a),
                OrbitKind::Triple => {
                    let id = w.add_orbit([t.a, t.b, t.c]);
                    w.work.push(id);
                }
            }
        }
        w.best_fixed = fixed.clone();
        w.best_triples = w.index.live().iter().map(|&o| w.factors[o as usize]).collect();
        let before = w.best_rank();
        for x in fixed {
            // Equal fixed terms cancel in pairs (every triple is queued already).
            match w.fixed.iter().position(|&y| y == x) {
                Some(i) => {
                    w.fixed.swap_remove(i);
                    w.counters.reductions += 2;
                }
                None => w.fixed.push(x),
            }
        }
        w.reduce_pending(before);
        w
    }

    /// A walker on the invariant scheme of `scheme` ([`SymmetricScheme::from_scheme`]).
    pub fn from_scheme(scheme: &Scheme, config: WalkConfig, seed: u64) -> Result<SymmetricWalker, SymmetryError> {
        Ok(SymmetricWalker::new(
            &SymmetricScheme::from_scheme(scheme)?,
            config,
            seed,
        ))
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The current rank of the plain scheme: `#fixed + 3 * #triples`.
    pub fn rank(&self) -> usize {
        self.fixed.len() + 3 * self.index.live().len()
    }

    /// The counters so far (reductions count terms of the plain scheme, net).
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The current plateau limit: steps without a reduction before a plus move (0: never).
    pub fn plateau_limit(&self) -> u64 {
        self.clock.limit()
    }

    /// The lowest rank this walker has reached.
    pub fn best_rank(&self) -> usize {
        self.best_fixed.len() + 3 * self.best_triples.len()
    }

    /// The current scheme, expanded to a plain scheme (fixed terms, then each triple's three
    /// terms).
    pub fn scheme(&self) -> Scheme {
        self.symmetric_scheme().to_scheme()
    }

    /// The first scheme of the lowest rank this walker has reached, expanded.
    pub fn best(&self) -> Scheme {
        self.best_symmetric().to_scheme()
    }

    /// The current scheme as orbits.
    pub fn symmetric_scheme(&self) -> SymmetricScheme {
        let triples: Vec<[Factor; 3]> = self.index.live().iter().map(|&o| self.factors[o as usize]).collect();
        self.orbits_of(&self.fixed, &triples)
    }

    /// The best scheme as orbits.
    pub fn best_symmetric(&self) -> SymmetricScheme {
        self.orbits_of(&self.best_fixed, &self.best_triples)
    }

    fn orbits_of(&self, fixed: &[Factor], triples: &[[Factor; 3]]) -> SymmetricScheme {
        let orbits = fixed
            .iter()
            .map(|&x| Orbit::fixed(x))
            .chain(triples.iter().map(|&[a, b, c]| Orbit::new(Term::new(a, b, c))))
            .collect();
        SymmetricScheme::new(self.shape, orbits).expect("the walk keeps orbits valid")
    }

    /// One step: an orbit flip (with the reductions it allows) or, on a plateau, an orbit plus
    /// move. Returns true when it reached a new scheme.
    pub fn step(&mut self) -> bool {
        self.counters.steps += 1;
        if !self.index.has_flips() {
            return self.plus_move();
        }
        if self.clock.ran_out() && self.rank() + 3 <= self.config.max_rank {
            self.clock.plus_due();
            return self.plus_move();
        }
        let (e, f) = self.index.random_pair(&mut self.rng);
        self.clock.tick();
        let (o, p) = (slot_of(e), slot_of(f));
        if o == p {
            // Two factors of one orbit: no flip keeps invariance there.
            return false;
        }
        let (k, l) = (factor_of(e), factor_of(f));
        let (mut x, mut y) = (self.term(o, k), self.term(p, l));
        flip(&mut x, &mut y, Position::A);
        if self.frozen() && (self.becomes_fixed(o, PREV[k], x.c) || self.becomes_fixed(p, NEXT[l], y.b)) {
            // The triple would settle to a fixed term.
            return false;
        }
        // `x` changed at C (its factor k + 2), `y` at B (its factor l + 1).
        self.set_factor(o, PREV[k], x.c);
        self.set_factor(p, NEXT[l], y.b);
        self.counters.flips += 1;
        self.counters.vertices += 1;
        let before = self.rank();
        // Settled at once, so that no orbit with a zero factor is seen by the reductions.
        for q in [o, p] {
            if self.settle(q) {
                self.work.push(q);
            }
        }
        self.reduce_pending(before);
        true
    }

    /// True when the fixed terms may not change.
    #[inline]
    fn frozen(&self) -> bool {
        self.fixed_terms == FixedTerms::Frozen
    }

    /// True when triple `o` with its factor `k` set to `value` has three equal factors.
    #[inline]
    fn becomes_fixed(&self, o: u32, k: usize, value: Factor) -> bool {
        let mut f = self.factors[o as usize];
        f[k] = value;
        f[0] == f[1] && f[1] == f[2]
    }

    /// Term `k` of triple `o`: its factors from `k` on.
    #[inline]
    fn term(&self, o: u32, k: usize) -> Term {
        let f = self.factors[o as usize];
        Term::new(f[k], f[NEXT[k]], f[PREV[k]])
    }

    /// The orbit plus move: a term of a random orbit (fixed or triple) read, a term of another,
    /// triple, orbit split (see [`plus`]). Fails (returns false) when they share the factor.
    fn plus_move(&mut self) -> bool {
        let (nt, nf) = (self.index.live().len(), self.fixed.len());
        if nt == 0 || nt + nf < 2 {
            return false;
        }
        let target = self.index.live()[self.rng.below(nt)];
        // The reader: any orbit but the target, fixed terms first, then the triples.
        let mut r = self.rng.below(nt + nf - 1);
        let reader = if r < nf {
            let x = self.fixed[r];
            Term::new(x, x, x)
        } else {
            r -= nf;
            if self.index.live()[r] == target {
                r = nt - 1;
            }
            let k = self.rng.below(3);
            self.term(self.index.live()[r], k)
        };
        let k = self.rng.below(3);
        let u = self.term(target, k);
        if reader.a == u.a {
            return false;
        }
        let (changed, added) = plus(&reader, &u, Position::A);
        if self.frozen() && (is_fixed(&changed) || is_fixed(&added)) {
            return false;
        }
        let before = self.rank();
        self.set_factor(target, k, changed.a);
        let new = self.add_orbit([added.a, added.b, added.c]);
        self.counters.plus += 1;
        self.counters.vertices += 1;
        self.clock.plus_taken();
        // Only what the orbit structure needs: `u'` and `v` share two factors, and merging
        // them would undo the move.
        self.settle(target);
        self.settle(new);
        self.reduce_pending(before);
        true
    }

    /// Checks every orbit in `work` for reductions, and the orbits those change, until none is
    /// left. `before` is the rank before the move that queued them.
    fn reduce_pending(&mut self, before: usize) {
        while let Some(o) = self.work.pop() {
            if self.index.is_live(o) {
                self.reduce_orbit(o);
            }
        }
        let rank = self.rank();
        if rank < before {
            self.clock.reduced();
            if rank < self.best_rank() {
                self.best_fixed.clone_from(&self.fixed);
                self.best_triples.clear();
                let (alive, factors) = (self.index.live(), &self.factors);
                self.best_triples.extend(alive.iter().map(|&o| factors[o as usize]));
            }
        }
    }

    /// A zero orbit goes; one whose factors are all equal becomes a fixed term. Returns false
    /// when the orbit is gone.
    fn settle(&mut self, o: u32) -> bool {
        let [a, b, c] = self.factors[o as usize];
        if a == 0 || b == 0 || c == 0 {
            self.remove_orbit(o);
            self.counters.reductions += 3;
            return false;
        }
        if a == b && b == c {
            debug_assert!(!self.frozen(), "a walk with frozen fixed terms settled a triple to one");
            // Three equal terms are one over F2.
            self.remove_orbit(o);
            self.counters.reductions += 3;
            self.toggle_fixed(a);
            return false;
        }
        true
    }

    /// Adds the fixed term `x^3` (counted as a term less removed: callers count the terms they
    /// remove first), or cancels it with an equal one. An added one may let triples whose
    /// factors sum to zero reduce: they are queued.
    fn toggle_fixed(&mut self, x: Factor) {
        if let Some(i) = self.fixed.iter().position(|&y| y == x) {
            self.fixed.swap_remove(i);
            self.counters.reductions += 1;
            return;
        }
        self.fixed.push(x);
        self.counters.reductions -= 1;
        if let Some(g) = self.index.find(0, x) {
            let (index, factors, work) = (&self.index, &self.factors, &mut self.work);
            for e in index.entries(g) {
                let [a, b, c] = factors[slot_of(e) as usize];
                if a ^ b ^ c == 0 {
                    work.push(slot_of(e));
                }
            }
        }
    }

    /// Takes a reduction of orbit `o` if one is there (queuing the orbits it changes).
    fn reduce_orbit(&mut self, o: u32) {
        if !self.settle(o) {
            return;
        }
        let f = self.factors[o as usize];
        if !self.frozen() && f[0] ^ f[1] ^ f[2] == 0 && f.iter().any(|x| self.fixed.contains(x)) {
            // The triple is the three fixed terms f0^3 + f1^3 + f2^3; those present cancel.
            self.remove_orbit(o);
            self.counters.reductions += 3;
            for x in f {
                self.toggle_fixed(x);
            }
            return;
        }
        for k in 0..3 {
            if self.reduce_group_of(o, k) {
                return;
            }
        }
    }

    /// Reduces the group of factor `k` of orbit `o` if its orbits allow it: with generalized
    /// flips, a dependent group of distinct triples (which includes two terms that merge); else
    /// a merge of `o`'s term `k` with a term of another triple. Returns true when it changed
    /// something.
    fn reduce_group_of(&mut self, o: u32, k: usize) -> bool {
        let g = self.index.group_of(entry(o, k));
        if g.count < 2 {
            return false;
        }
        if g.count >= 3 && self.config.generalized {
            let repeats = self.gather(g);
            if self.scratch_terms.len() >= 3 {
                if self.scratch_is_dependent() {
                    if self.generalized_flip() {
                        return true;
                    }
                    // Refused (frozen fixed terms): a merge of two of the terms may still do.
                } else if !repeats {
                    // Independent, so no two of these terms merge; another term of an orbit
                    // that is twice in the group still might.
                    return false;
                }
            }
        }
        let t = self.term(o, k);
        let mut f = g.head;
        while f != NONE {
            let p = slot_of(f);
            if p != o {
                let merged = merge(&t, &self.term(p, factor_of(f)));
                if let Some(merged) = merged.filter(|m| !(self.frozen() && is_fixed(m))) {
                    self.remove_orbit(p);
                    self.counters.reductions += 3;
                    if merged.is_zero() {
                        // Two copies of one triple cancel.
                        self.remove_orbit(o);
                        self.counters.reductions += 3;
                        return true;
                    }
                    for (i, pos) in Position::ALL.into_iter().enumerate() {
                        if merged.get(pos) != t.get(pos) {
                            self.set_factor(o, (k + i) % 3, merged.get(pos));
                        }
                    }
                    self.work.push(o);
                    return true;
                }
            }
            f = self.index.next(f);
        }
        false
    }

    /// Collects one term of each distinct triple of group `g` (the first in its list) into the
    /// scratch lists; returns true when some orbit is in the group twice or more.
    fn gather(&mut self, g: Group) -> bool {
        self.scratch_entries.clear();
        self.scratch_terms.clear();
        self.gather_stamp += 1;
        let mut repeats = false;
        let mut e = g.head;
        while e != NONE {
            let o = slot_of(e);
            if self.gathered[o as usize] == self.gather_stamp {
                repeats = true;
            } else {
                self.gathered[o as usize] = self.gather_stamp;
                self.scratch_entries.push(e);
                self.scratch_terms.push(self.term(o, factor_of(e)));
            }
            e = self.index.next(e);
        }
        repeats
    }

    /// True when the gathered terms' factors at B or at C are linearly dependent.
    fn scratch_is_dependent(&mut self) -> bool {
        let pair = |t: &Term| (t.b, t.c);
        if let [x, y, z] = &self.scratch_terms[..] {
            return three_are_dependent([x, y, z].map(pair));
        }
        self.bases.dependent(self.scratch_terms.iter().map(pair))
    }

    /// Rewrites the gathered (dependent) terms to fewer by a generalized flip, with their images.
    /// Returns false, changing nothing, when the fixed terms are frozen and a term would become
    /// `X (x) X (x) X`.
    fn generalized_flip(&mut self) -> bool {
        debug_assert!(crate::moves::group_is_reducible(&self.scratch_terms, Position::A));
        generalized_flip_rank(&mut self.scratch_terms, Position::A);
        if self.frozen() && self.scratch_terms.iter().any(|t| !t.is_zero() && is_fixed(t)) {
            return false;
        }
        self.counters.generalized += 1;
        for i in 0..self.scratch_entries.len() {
            let (e, new) = (self.scratch_entries[i], self.scratch_terms[i]);
            let (o, k) = (slot_of(e), factor_of(e));
            if new.is_zero() {
                self.remove_orbit(o);
                self.counters.reductions += 3;
                continue;
            }
            let old = self.term(o, k);
            if old != new {
                if old.b != new.b {
                    self.set_factor(o, NEXT[k], new.b);
                }
                if old.c != new.c {
                    self.set_factor(o, PREV[k], new.c);
                }
                self.work.push(o);
            }
        }
        true
    }

    /// Sets factor `k` of orbit `o` and moves the entry to the group of its new value.
    #[inline]
    fn set_factor(&mut self, o: u32, k: usize, value: Factor) {
        self.factors[o as usize][k] = value;
        self.index.rekey(entry(o, k), value);
    }

    fn add_orbit(&mut self, f: [Factor; 3]) -> u32 {
        let (o, new) = self.index.add(f);
        if new {
            self.factors.push(f);
            self.gathered.push(0);
        } else {
            self.factors[o as usize] = f;
        }
        o
    }

    fn remove_orbit(&mut self, o: u32) {
        self.index.remove(o);
    }

    /// Checks every invariant of the orbits and the index; panics with the broken one. For
    /// tests: quadratic in the rank.
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        for (i, &x) in self.fixed.iter().enumerate() {
            assert_ne!(x, 0, "a zero fixed term");
            assert!(!self.fixed[..i].contains(&x), "two equal fixed terms");
        }
        for &o in self.index.live() {
            let [a, b, c] = self.factors[o as usize];
            assert!(a != 0 && b != 0 && c != 0, "a zero triple");
            assert!(!(a == b && b == c), "a triple whose terms are equal");
            for (k, &key) in self.factors[o as usize].iter().enumerate() {
                let count = self.index.check_entry(entry(o, k), key);
                let members = self
                    .index
                    .live()
                    .iter()
                    .map(|&p| self.factors[p as usize].iter().filter(|&&f| f == key).count())
                    .sum::<usize>();
                assert_eq!(count as usize, members, "group count");
            }
        }
        let mut keys: Vec<Factor> = self
            .index
            .live()
            .iter()
            .flat_map(|&o| self.factors[o as usize])
            .collect();
        keys.sort_unstable();
        keys.dedup();
        self.index.check_groups(keys.len(), keys.len());
        assert!(self.best_rank() <= self.rank());
        let plain = self.scheme();
        assert_eq!(plain.rank(), self.rank());
        assert!(super::is_c3_invariant(&plain), "the expanded scheme is not invariant");
    }
}

crate::walk::walk_by_inherent_methods!(SymmetricWalker);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plateau::Plateau;
    use crate::verify::verify;
    use crate::walk::Walk;

    #[test]
    fn the_tensor_is_preserved_and_the_index_consistent_after_many_steps() {
        for n in 2..=5 {
            let shape = Shape::square(n).unwrap();
            for generalized in [false, true] {
                let config = WalkConfig {
                    plateau: Plateau::Fixed(300),
                    generalized,
                    max_rank: shape.naive_rank() + 6,
                    ..WalkConfig::default()
                };
                let mut w = SymmetricWalker::new(&SymmetricScheme::naive(shape).unwrap(), config, 42);
                for _ in 0..10 {
                    w.walk(500, 0);
                    w.check_invariants();
                    assert_eq!(verify(&w.scheme()), Ok(()), "{shape}");
                }
                assert_eq!(verify(&w.best()), Ok(()), "{shape}");
                assert!(w.best_rank() <= w.rank());
            }
        }
    }
}
