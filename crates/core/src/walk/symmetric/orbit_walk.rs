//! The walk on the orbits of one group, generic over the number of index tables: one for the
//! groups with the rotation (every factor reaches position A), three for the others (a factor
//! moves at its own position).
//!
//! The walker keeps each free orbit as the three factors of its representative and the terms
//! of the other orbits in a list. Factor `k` of an orbit sits in the index under its key
//! ([`Action::key`]); two orbits in one group share a factor in some pair of their terms, and
//! the move between those terms ([`Action::element`], [`Action::position`]) with its images is
//! the orbit move. A moved term goes back to its representative by [`Action::representative`].
//!
//! After a flip the two changed orbits are reduced: a zero orbit goes; with free fixed terms
//! (C3 only) an orbit that became `X^3` is a fixed term (cancelling an equal one) and a triple
//! whose factors sum to zero becomes fixed terms when one of them cancels; orbits that share
//! two factors merge, and with generalized flips a dependent group of distinct orbits is
//! rewritten. After a plateau a plus move (rank + the group's order) reads any orbit and
//! splits a free one. With frozen fixed terms no move that would leave a representative fixed
//! by an element other than the identity is taken.

use alloc::vec::Vec;

use super::FixedTerms;
use crate::counters::Counters;
use crate::group::{Action, Element, Group as SymmetryGroup};
use crate::moves::{flip, generalized_flip_rank, merge, plus};
use crate::plateau::Clock;
use crate::rng::WyRand;
use crate::shape::Shape;
use crate::term::{Factor, Position, Term};
use crate::walk::index::{entry, factor_of, slot_of, Group, Index, NONE};
use crate::walk::{three_are_dependent, Bases, Reductions, WalkConfig};

/// A cube `X (x) X (x) X`.
#[inline(always)]
const fn cube(x: Factor) -> Term {
    Term::new(x, x, x)
}

/// A walker on the invariant schemes of the group of index `GROUP` ([`SymmetryGroup::index`];
/// a constant, so that the group's tests cost nothing on the hot path; see the module docs).
/// `TABLES` is 1 for groups with the rotation, 3 for the others.
#[derive(Clone, Debug)]
pub(super) struct OrbitWalk<const TABLES: usize, const GROUP: u8> {
    shape: Shape,
    action: Action,
    config: WalkConfig,
    fixed_terms: FixedTerms,
    rng: WyRand,
    counters: Counters,
    clock: Clock,
    /// The factors of each free orbit's representative, by orbit slot; dead slots are reused.
    factors: Vec<[Factor; 3]>,
    /// The terms of the orbits that are not free, distinct.
    fixed: Vec<Term>,
    /// Factor `k` of every orbit under its key: entry `entry(orbit, k)`.
    index: Index<TABLES>,
    /// Orbits to check for reductions.
    work: Vec<u32>,
    scratch_entries: Vec<u32>,
    scratch_elements: Vec<Element>,
    scratch_terms: Vec<Term>,
    bases: Bases,
    /// Per orbit slot: the stamp of the last gathering that took it.
    gathered: Vec<u64>,
    gather_stamp: u64,
    best_fixed: Vec<Term>,
    best_free: Vec<[Factor; 3]>,
}

impl<const TABLES: usize, const GROUP: u8> OrbitWalk<TABLES, GROUP> {
    /// A walker on the orbits `free` (representatives) and the terms `fixed` of `action`'s
    /// group (reductions they allow are taken at once; the best scheme starts as given).
    /// Fixed terms are frozen for every group but C3.
    pub(super) fn new(
        action: Action,
        shape: Shape,
        (free, fixed): (&[Term], &[Term]),
        config: WalkConfig,
        seed: u64,
        fixed_terms: FixedTerms,
    ) -> Self {
        const { assert!((TABLES == 1) == SymmetryGroup::from_index(GROUP).rotates()) };
        assert_eq!(action.group().index(), GROUP, "the walk's group");
        let order = action.group().order();
        let rank = fixed.len() + order * free.len();
        // Plus moves stop at twice the naive rank (or the start's rank, if higher): the tables
        // are sized for that, and a walk that climbs further would fill them.
        let config = WalkConfig {
            max_rank: config.max_rank.min(rank.max(2 * shape.naive_rank())),
            ..config
        };
        // Keys: at most three per orbit, one per table and orbit.
        let orbits = (rank.max(config.max_rank) + 2 * order) / order + 1;
        let keys = if TABLES == 1 { 3 * orbits } else { orbits };
        let bits = |k: usize| shape.factor_bits(action.position(k));
        let mut w = OrbitWalk {
            shape,
            action,
            config,
            fixed_terms: fixed_terms.for_group(action.group()),
            rng: WyRand::new(seed),
            counters: Counters::default(),
            clock: Clock::new(config.plateau),
            factors: Vec::with_capacity(orbits),
            fixed: Vec::new(),
            index: Index::new(orbits, keys, core::array::from_fn(bits)),
            work: Vec::new(),
            scratch_entries: Vec::new(),
            scratch_elements: Vec::new(),
            scratch_terms: Vec::new(),
            bases: Bases::new(),
            gathered: Vec::with_capacity(orbits),
            gather_stamp: 0,
            best_fixed: Vec::new(),
            best_free: Vec::new(),
        };
        for t in free {
            let id = w.add_orbit([t.a, t.b, t.c]);
            w.work.push(id);
        }
        w.best_fixed = fixed.to_vec();
        w.best_free = w.index.live().iter().map(|&o| w.factors[o as usize]).collect();
        let before = w.best_rank();
        for &t in fixed {
            // Equal fixed terms cancel in pairs (every free orbit is queued already).
            match w.fixed.iter().position(|&u| u == t) {
                Some(i) => {
                    w.fixed.swap_remove(i);
                    w.counters.reductions += 2;
                }
                None => w.fixed.push(t),
            }
        }
        w.reduce_pending(before);
        w
    }

    pub(super) fn shape(&self) -> Shape {
        self.shape
    }

    #[inline(always)]
    pub(super) fn group(&self) -> SymmetryGroup {
        SymmetryGroup::from_index(GROUP)
    }

    /// The action, its group a constant.
    #[inline(always)]
    fn action(&self) -> Action {
        self.action.with_group(self.group())
    }

    #[inline(always)]
    fn order(&self) -> usize {
        self.group().order()
    }

    pub(super) fn rank(&self) -> usize {
        self.fixed.len() + self.order() * self.index.live().len()
    }

    pub(super) fn counters(&self) -> Counters {
        self.counters
    }

    pub(super) fn plateau_limit(&self) -> u64 {
        self.clock.limit()
    }

    pub(super) fn best_rank(&self) -> usize {
        self.best_fixed.len() + self.order() * self.best_free.len()
    }

    /// The current orbits: the representatives, and the fixed terms.
    pub(super) fn orbits(&self) -> (Vec<Term>, Vec<Term>) {
        let reps = self.index.live().iter().map(|&o| self.rep_term(o)).collect();
        (reps, self.fixed.clone())
    }

    /// The best orbits, as [`OrbitWalk::orbits`].
    pub(super) fn best_orbits(&self) -> (Vec<Term>, Vec<Term>) {
        let reps = self.best_free.iter().map(|&[a, b, c]| Term::new(a, b, c)).collect();
        (reps, self.best_fixed.clone())
    }

    fn rep_term(&self, o: u32) -> Term {
        let [a, b, c] = self.factors[o as usize];
        Term::new(a, b, c)
    }

    /// [`crate::walk::Walk::walk`] without a dispatch per step.
    pub(super) fn walk(&mut self, steps: u64, target: usize) -> u64 {
        crate::walk::walk_until(self, steps, target, Self::rank, Self::step)
    }

    /// One step: an orbit flip (with the reductions it allows) or, on a plateau, an orbit plus
    /// move. Returns true when it reached a new scheme.
    pub(super) fn step(&mut self) -> bool {
        self.counters.steps += 1;
        if !self.index.has_flips() {
            return self.plus_move();
        }
        if self.clock.ran_out() && self.rank() + self.order() <= self.config.max_rank {
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
        let ((mut x, gx), (mut y, gy)) = (self.term_of(e), self.term_of(f));
        let pos = self.action().position(factor_of(e));
        flip(&mut x, &mut y, pos);
        // `x` changed after the next position, `y` at the next: one factor of each orbit.
        let (after, next) = (pos.prev(), pos.next());
        let (ko, vo) = self.action().factor_at(gx, after, x.get(after));
        let (kp, vp) = self.action().factor_at(gy, next, y.get(next));
        if self.frozen() && !(self.is_free_with(o, ko, vo) && self.is_free_with(p, kp, vp)) {
            // An orbit would settle to fixed terms.
            return false;
        }
        self.set_factor(o, ko, vo);
        self.set_factor(p, kp, vp);
        self.counters.flips += 1;
        self.counters.vertices += 1;
        let before = self.rank();
        // Settled at once, so that no orbit with a zero factor is seen by the reductions.
        let scan = self.config.reductions == Reductions::Scan;
        for q in [o, p] {
            if self.settle(q) && scan {
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

    #[inline]
    fn is_free(&self, [a, b, c]: [Factor; 3]) -> bool {
        self.action().is_free(Term::new(a, b, c))
    }

    /// Whether orbit `o` would be free with its factor `k` set to `value`.
    #[inline]
    fn is_free_with(&self, o: u32, k: usize, value: Factor) -> bool {
        let mut f = self.factors[o as usize];
        f[k] = value;
        self.is_free(f)
    }

    /// The term of entry `e`'s orbit that shows the entry's key at the move's position, and the
    /// element that gives it.
    #[inline(always)]
    fn term_of(&self, e: u32) -> (Term, Element) {
        let rep = self.factors[slot_of(e) as usize];
        let g = self.action().element(factor_of(e), rep);
        (self.action().term(g, rep), g)
    }

    /// A random element: index `i` of [`SymmetryGroup::elements`], `i` drawn below the order.
    #[inline]
    fn random_element(&mut self) -> Element {
        let i = self.rng.below(self.order());
        let rotations = if self.group().rotates() { 3 } else { 1 };
        Element::new((i % rotations) as u8, i >= rotations)
    }

    /// The orbit plus move: a term of a random orbit (fixed or free) read, a term of another,
    /// free, orbit split (see [`plus`]). Fails (returns false) when they share the factor.
    fn plus_move(&mut self) -> bool {
        let (nt, nf) = (self.index.live().len(), self.fixed.len());
        if nt == 0 || nt + nf < 2 {
            return false;
        }
        let target = self.index.live()[self.rng.below(nt)];
        // The reader: any orbit but the target, fixed terms first, then the free ones.
        let mut r = self.rng.below(nt + nf - 1);
        let reader = if r < nf {
            self.fixed[r]
        } else {
            r -= nf;
            if self.index.live()[r] == target {
                r = nt - 1;
            }
            let g = self.random_element();
            self.action().term(g, self.factors[self.index.live()[r] as usize])
        };
        let g = self.random_element();
        let pos = if self.group().rotates() {
            Position::A
        } else {
            Position::from_index(self.rng.below(3))
        };
        let u = self.action().term(g, self.factors[target as usize]);
        if reader.get(pos) == u.get(pos) {
            return false;
        }
        let (changed, added) = plus(&reader, &u, pos);
        if self.frozen() && !(self.action().is_free(changed) && self.action().is_free(added)) {
            return false;
        }
        let before = self.rank();
        self.set_rep(target, self.action().representative(g, changed));
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
                self.best_free.clear();
                let (alive, factors) = (self.index.live(), &self.factors);
                self.best_free.extend(alive.iter().map(|&o| factors[o as usize]));
            }
        }
    }

    /// Removes orbit `o`, counting its terms as reduced.
    fn drop_orbit(&mut self, o: u32) {
        self.index.remove(o);
        self.counters.reductions += self.order() as u64;
    }

    /// A zero orbit goes; with free fixed terms (C3) one whose factors are all equal becomes a
    /// fixed term. Returns false when the orbit is gone.
    fn settle(&mut self, o: u32) -> bool {
        let [a, b, c] = self.factors[o as usize];
        if a == 0 || b == 0 || c == 0 {
            self.drop_orbit(o);
            return false;
        }
        if a == b && b == c && self.group().rotates() {
            debug_assert!(!self.frozen(), "a walk with frozen fixed terms settled an orbit to one");
            // Three equal terms are one over F2.
            self.drop_orbit(o);
            self.toggle_fixed(a);
            return false;
        }
        true
    }

    /// Adds the fixed term `x^3` (counted as a term less removed: callers count the terms they
    /// remove first), or cancels it with an equal one. An added one may let triples whose
    /// factors sum to zero reduce: they are queued. C3 with free fixed terms only.
    fn toggle_fixed(&mut self, x: Factor) {
        if let Some(i) = self.fixed.iter().position(|&y| y == cube(x)) {
            self.fixed.swap_remove(i);
            self.counters.reductions += 1;
            return;
        }
        self.fixed.push(cube(x));
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
        if !self.frozen() && f[0] ^ f[1] ^ f[2] == 0 && f.iter().any(|&x| self.fixed.contains(&cube(x))) {
            // The triple is the three fixed terms f0^3 + f1^3 + f2^3; those present cancel.
            self.drop_orbit(o);
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
    /// flips, a dependent group of distinct orbits (which includes two terms that merge); else
    /// a merge of `o`'s term with a term of another orbit. Returns true when it changed
    /// something.
    fn reduce_group_of(&mut self, o: u32, k: usize) -> bool {
        let g = self.index.group_of(entry(o, k));
        if g.count < 2 {
            return false;
        }
        let pos = self.action().position(k);
        if g.count >= 3 && self.config.generalized {
            let repeats = self.gather(g);
            if self.scratch_terms.len() >= 3 {
                if self.scratch_is_dependent(pos) {
                    if self.generalized_flip(pos) {
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
        let (t, gt) = self.term_of(entry(o, k));
        let mut f = g.head;
        while f != NONE {
            let p = slot_of(f);
            if p != o {
                if let Some(merged) = merge(&t, &self.term_of(f).0) {
                    let rep = self.action().representative(gt, merged);
                    if merged.is_zero() {
                        // Two copies of one orbit cancel.
                        self.drop_orbit(p);
                        self.drop_orbit(o);
                        return true;
                    }
                    if !self.frozen() || self.is_free(rep) {
                        self.drop_orbit(p);
                        self.set_rep(o, rep);
                        self.work.push(o);
                        return true;
                    }
                }
            }
            f = self.index.next(f);
        }
        false
    }

    /// Collects the term of each distinct orbit of group `g` (the first in its list) into the
    /// scratch lists; returns true when some orbit is in the group twice or more.
    fn gather(&mut self, g: Group) -> bool {
        self.scratch_entries.clear();
        self.scratch_elements.clear();
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
                let (t, element) = self.term_of(e);
                self.scratch_entries.push(e);
                self.scratch_elements.push(element);
                self.scratch_terms.push(t);
            }
            e = self.index.next(e);
        }
        repeats
    }

    /// True when the gathered terms' factors at the two positions after `pos` are linearly
    /// dependent.
    fn scratch_is_dependent(&mut self, pos: Position) -> bool {
        let (p, q) = (pos.next(), pos.next().next());
        let pair = |t: &Term| (t.get(p), t.get(q));
        if let [x, y, z] = &self.scratch_terms[..] {
            return three_are_dependent([x, y, z].map(pair));
        }
        self.bases.dependent(self.scratch_terms.iter().map(pair))
    }

    /// Rewrites the gathered (dependent) terms to fewer by a generalized flip at `pos`, with
    /// their images. Returns false, changing nothing, when the fixed terms are frozen and an
    /// orbit would stop being free.
    fn generalized_flip(&mut self, pos: Position) -> bool {
        debug_assert!(crate::moves::group_is_reducible(&self.scratch_terms, pos));
        generalized_flip_rank(&mut self.scratch_terms, pos);
        let frozen = self.frozen();
        if frozen
            && self
                .scratch_terms
                .iter()
                .any(|&t| !t.is_zero() && !self.action().is_free(t))
        {
            return false;
        }
        self.counters.generalized += 1;
        for i in 0..self.scratch_entries.len() {
            let (o, new) = (slot_of(self.scratch_entries[i]), self.scratch_terms[i]);
            if new.is_zero() {
                self.drop_orbit(o);
                continue;
            }
            // The flip keeps the factor at `pos`; the two others change, each one factor of
            // the representative (set in this order, as the C3 walk always did).
            let g = self.scratch_elements[i];
            let old = self.action().term(g, self.factors[o as usize]);
            if old != new {
                for at in [pos.next(), pos.prev()] {
                    if old.get(at) != new.get(at) {
                        let (k, value) = self.action().factor_at(g, at, new.get(at));
                        self.set_factor(o, k, value);
                    }
                }
                self.work.push(o);
            }
        }
        true
    }

    /// Sets orbit `o`'s representative, moving each changed factor's entry to its new key.
    fn set_rep(&mut self, o: u32, rep: [Factor; 3]) {
        for (k, &value) in rep.iter().enumerate() {
            if value != self.factors[o as usize][k] {
                self.set_factor(o, k, value);
            }
        }
    }

    /// Sets factor `k` of orbit `o`, moving its entry to its new key.
    #[inline(always)]
    fn set_factor(&mut self, o: u32, k: usize, value: Factor) {
        let old = core::mem::replace(&mut self.factors[o as usize][k], value);
        let key = self.action().key(k, value);
        if key != self.action().key(k, old) {
            self.index.rekey(entry(o, k), key);
        }
    }

    fn add_orbit(&mut self, f: [Factor; 3]) -> u32 {
        let keys = core::array::from_fn(|k| self.action().key(k, f[k]));
        let (o, new) = self.index.add(keys);
        if new {
            self.factors.push(f);
            self.gathered.push(0);
        } else {
            self.factors[o as usize] = f;
        }
        o
    }

    /// Checks every invariant of the orbits and the index; panics with the broken one. For
    /// tests: quadratic in the rank.
    pub(super) fn check_invariants(&self) {
        for (i, &t) in self.fixed.iter().enumerate() {
            assert!(!t.is_zero(), "a zero fixed term");
            assert!(!self.fixed[..i].contains(&t), "two equal fixed terms");
        }
        let key = |o: u32, k: usize| self.action().key(k, self.factors[o as usize][k]);
        for &o in self.index.live() {
            let f = self.factors[o as usize];
            assert!(f.iter().all(|&x| x != 0), "a zero orbit");
            assert!(self.is_free(f), "an orbit that is not free");
            for k in 0..3 {
                let count = self.index.check_entry(entry(o, k), key(o, k));
                let table = |k: usize| if TABLES == 1 { 0 } else { k };
                let members = self
                    .index
                    .live()
                    .iter()
                    .map(|&p| {
                        (0..3)
                            .filter(|&j| table(j) == table(k) && key(p, j) == key(o, k))
                            .count()
                    })
                    .sum::<usize>();
                assert_eq!(count as usize, members, "group count");
            }
        }
        let mut keys: Vec<(usize, Factor)> = self
            .index
            .live()
            .iter()
            .flat_map(|&o| (0..3).map(move |k| (if TABLES == 1 { 0 } else { k }, key(o, k))))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let per_table = (0..TABLES).map(|t| keys.iter().filter(|k| k.0 == t).count()).max();
        self.index.check_groups(keys.len(), per_table.unwrap_or(0));
        assert!(self.best_rank() <= self.rank());
    }
}
