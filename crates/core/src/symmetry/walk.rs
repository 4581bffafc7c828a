//! The random walk on the flip graph of invariant schemes: [`SymmetricWalker`], the counterpart
//! of [`crate::walk::Walker`] with the same methods and meanings.
//!
//! The walker keeps the fixed terms in a list and each triple orbit as the three factors
//! `[f0, f1, f2]` of its representative. Its terms are the three rotations
//! `(f_k, f_k+1, f_k+2)`, and term `k` is the one whose factor at A is `f_k`; so two terms of
//! two triples share a factor (at any position) exactly when the two orbits share a factor
//! value, and then the flip at A between their rotations is the orbit flip. One index from
//! factor value to the orbit factors holding it (a [`FactorTable`] and groups as linked lists,
//! as in the plain walk, but one for all three positions) finds every flip: each step picks a
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
use crate::rng::WyRand;
use crate::scheme::Scheme;
use crate::shape::Shape;
use crate::term::{Factor, Position, Term};
use crate::walk::table::FactorTable;
use crate::walk::WalkConfig;

/// No entry or group.
const NONE: u32 = u32::MAX;

/// The next factor index, mod 3.
const NEXT: [usize; 3] = [1, 2, 0];
/// The previous factor index, mod 3.
const PREV: [usize; 3] = [2, 0, 1];

/// An orbit factor's place in the group of its value: a doubly linked list of entries, entry
/// `3 * orbit + k` for factor `k`.
#[derive(Clone, Copy, Debug)]
struct Link {
    group: u32,
    prev: u32,
    next: u32,
}

/// The orbit factors that share one value.
#[derive(Clone, Copy, Debug)]
struct Group {
    key: Factor,
    /// Where the group's entry sits in the table.
    slot: u32,
    head: u32,
    count: u32,
    /// Index in `multi` while `count >= 2`.
    multi_slot: u32,
}

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
    since_reduction: u64,
    plateau_limit: u64,
    /// The factors of each triple orbit's representative, by orbit slot; dead slots are reused.
    factors: Vec<[Factor; 3]>,
    /// By entry (`3 * orbit + k`).
    links: Vec<Link>,
    /// Index of each orbit slot in `alive`, or NONE for a dead slot.
    alive_at: Vec<u32>,
    alive: Vec<u32>,
    free_slots: Vec<u32>,
    /// The fixed terms' factors, distinct.
    fixed: Vec<Factor>,
    table: FactorTable,
    groups: Vec<Group>,
    free_groups: Vec<u32>,
    /// Groups with two or more entries.
    multi: Vec<u32>,
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
            since_reduction: 0,
            plateau_limit: config.plateau.initial(),
            factors: Vec::with_capacity(orbits),
            links: Vec::with_capacity(3 * orbits),
            alive_at: Vec::with_capacity(orbits),
            alive: Vec::with_capacity(orbits),
            free_slots: Vec::new(),
            fixed: Vec::new(),
            table: FactorTable::with_capacity(capacity, shape.factor_bits(Position::A)),
            groups: Vec::with_capacity(capacity),
            free_groups: Vec::new(),
            multi: Vec::with_capacity(capacity),
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
        w.best_triples = w.alive.iter().map(|&o| w.factors[o as usize]).collect();
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
        self.fixed.len() + 3 * self.alive.len()
    }

    /// The counters so far (reductions count terms of the plain scheme, net).
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The current plateau limit: steps without a reduction before a plus move (0: never).
    pub fn plateau_limit(&self) -> u64 {
        self.plateau_limit
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
        let triples: Vec<[Factor; 3]> = self.alive.iter().map(|&o| self.factors[o as usize]).collect();
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
        if self.multi.is_empty() {
            return self.plus_move();
        }
        if self.plateau_limit > 0
            && self.since_reduction >= self.plateau_limit
            && self.rank() + 3 <= self.config.max_rank
        {
            self.plateau_limit = self.config.plateau.after_plus(self.plateau_limit);
            return self.plus_move();
        }
        let g = self.groups[self.multi[self.rng.below(self.multi.len())] as usize];
        let (e, f) = if g.count == 2 {
            let (head, next) = (g.head, self.links[g.head as usize].next);
            if self.rng.bits() & 1 == 0 {
                (head, next)
            } else {
                (next, head)
            }
        } else {
            let (i, j) = self.distinct_pair(g.count as usize);
            (self.member(g, i), self.member(g, j))
        };
        self.since_reduction += 1;
        let (o, p) = (e / 3, f / 3);
        if o == p {
            // Two factors of one orbit: no flip keeps invariance there.
            return false;
        }
        let (k, l) = ((e % 3) as usize, (f % 3) as usize);
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

    /// Two distinct random indices below `n` (at least 2), without a division.
    #[inline]
    fn distinct_pair(&mut self, n: usize) -> (usize, usize) {
        let bits = self.rng.bits();
        let i = ((bits as u32 as u64 * n as u64) >> 32) as usize;
        let mut j = i + 1 + (((bits >> 32) * (n as u64 - 1)) >> 32) as usize;
        if j >= n {
            j -= n;
        }
        (i, j)
    }

    /// The `k`-th entry of group `g`'s list.
    fn member(&self, g: Group, k: usize) -> u32 {
        let mut e = g.head;
        for _ in 0..k {
            e = self.links[e as usize].next;
        }
        e
    }

    /// The orbit plus move: a term of a random orbit (fixed or triple) read, a term of another,
    /// triple, orbit split (see [`plus`]). Fails (returns false) when they share the factor.
    fn plus_move(&mut self) -> bool {
        let (nt, nf) = (self.alive.len(), self.fixed.len());
        if nt == 0 || nt + nf < 2 {
            return false;
        }
        let target = self.alive[self.rng.below(nt)];
        // The reader: any orbit but the target, fixed terms first, then the triples.
        let mut r = self.rng.below(nt + nf - 1);
        let reader = if r < nf {
            let x = self.fixed[r];
            Term::new(x, x, x)
        } else {
            r -= nf;
            if self.alive[r] == target {
                r = nt - 1;
            }
            let k = self.rng.below(3);
            self.term(self.alive[r], k)
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
        self.since_reduction = 0;
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
            if self.alive_at[o as usize] != NONE {
                self.reduce_orbit(o);
            }
        }
        let rank = self.rank();
        if rank < before {
            self.plateau_limit = self
                .config
                .plateau
                .after_reduction(self.plateau_limit, self.since_reduction);
            self.since_reduction = 0;
            if rank < self.best_rank() {
                self.best_fixed.clone_from(&self.fixed);
                self.best_triples.clear();
                let (alive, factors) = (&self.alive, &self.factors);
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
        if let Ok(g) = self.table.find(x) {
            let mut e = self.groups[g as usize].head;
            while e != NONE {
                let [a, b, c] = self.factors[e as usize / 3];
                if a ^ b ^ c == 0 {
                    self.work.push(e / 3);
                }
                e = self.links[e as usize].next;
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
        let e = 3 * o + k as u32;
        let g = self.groups[self.links[e as usize].group as usize];
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
            let p = f / 3;
            if p != o {
                let merged = merge(&t, &self.term(p, (f % 3) as usize));
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
            f = self.links[f as usize].next;
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
            let o = e / 3;
            if self.gathered[o as usize] == self.gather_stamp {
                repeats = true;
            } else {
                self.gathered[o as usize] = self.gather_stamp;
                self.scratch_entries.push(e);
                self.scratch_terms.push(self.term(o, (e % 3) as usize));
            }
            e = self.links[e as usize].next;
        }
        repeats
    }

    /// True when the gathered terms' factors at B or at C are linearly dependent.
    fn scratch_is_dependent(&mut self) -> bool {
        if let [x, y, z] = self.scratch_terms[..] {
            // Three non-zero vectors are dependent when two are equal or all three sum to zero.
            let three = |a: Factor, b: Factor, c: Factor| a == b || a == c || b == c || a ^ b ^ c == 0;
            return three(x.b, y.b, z.b) || three(x.c, y.c, z.c);
        }
        self.bases.dependent(&self.scratch_terms)
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
            let (o, k) = (e / 3, (e % 3) as usize);
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
    fn set_factor(&mut self, o: u32, k: usize, value: Factor) {
        let e = 3 * o + k as u32;
        let g = self.links[e as usize].group;
        if self.groups[g as usize].count == 1 {
            // The common case of a flip: an entry alone with its old value gets a value no
            // other entry has. Its group is re-keyed in place (as in the plain walk).
            if let Err(free) = self.table.find(value) {
                let (table, groups) = (&mut self.table, &mut self.groups);
                table.insert_at(free, value, g);
                let old = groups[g as usize].slot as usize;
                groups[g as usize].slot = free as u32;
                table.remove_at(old, |id, to| groups[id as usize].slot = to as u32);
                groups[g as usize].key = value;
                self.factors[o as usize][k] = value;
                return;
            }
        }
        self.detach(e);
        self.factors[o as usize][k] = value;
        self.attach(e);
    }

    fn add_orbit(&mut self, f: [Factor; 3]) -> u32 {
        let link = Link {
            group: NONE,
            prev: NONE,
            next: NONE,
        };
        let o = match self.free_slots.pop() {
            Some(o) => {
                self.factors[o as usize] = f;
                o
            }
            None => {
                self.factors.push(f);
                self.links.extend([link; 3]);
                self.alive_at.push(NONE);
                self.gathered.push(0);
                (self.factors.len() - 1) as u32
            }
        };
        self.alive_at[o as usize] = self.alive.len() as u32;
        self.alive.push(o);
        for k in 0..3 {
            self.attach(3 * o + k);
        }
        o
    }

    fn remove_orbit(&mut self, o: u32) {
        for k in 0..3 {
            self.detach(3 * o + k);
        }
        let at = self.alive_at[o as usize] as usize;
        let last = self.alive.pop().expect("a live orbit");
        if last != o {
            self.alive[at] = last;
            self.alive_at[last as usize] = at as u32;
        }
        self.alive_at[o as usize] = NONE;
        self.free_slots.push(o);
    }

    /// Puts entry `e` into the group of its value.
    fn attach(&mut self, e: u32) {
        let key = self.factors[e as usize / 3][e as usize % 3];
        let g = match self.table.find(key) {
            Ok(g) => g,
            Err(free) => {
                let group = Group {
                    key,
                    slot: free as u32,
                    head: NONE,
                    count: 0,
                    multi_slot: NONE,
                };
                let g = match self.free_groups.pop() {
                    Some(g) => {
                        self.groups[g as usize] = group;
                        g
                    }
                    None => {
                        self.groups.push(group);
                        (self.groups.len() - 1) as u32
                    }
                };
                self.table.insert_at(free, key, g);
                g
            }
        };
        let group = &mut self.groups[g as usize];
        let head = group.head;
        group.head = e;
        group.count += 1;
        let count = group.count;
        self.links[e as usize] = Link {
            group: g,
            prev: NONE,
            next: head,
        };
        if head != NONE {
            self.links[head as usize].prev = e;
        }
        if count == 2 {
            self.groups[g as usize].multi_slot = self.multi.len() as u32;
            self.multi.push(g);
        }
    }

    fn detach(&mut self, e: u32) {
        let Link { group: g, prev, next } = self.links[e as usize];
        if prev != NONE {
            self.links[prev as usize].next = next;
        } else {
            self.groups[g as usize].head = next;
        }
        if next != NONE {
            self.links[next as usize].prev = prev;
        }
        let group = &mut self.groups[g as usize];
        group.count -= 1;
        match group.count {
            1 => {
                let slot = group.multi_slot as usize;
                let last = self.multi.pop().expect("a multi group");
                if last != g {
                    self.multi[slot] = last;
                    self.groups[last as usize].multi_slot = slot as u32;
                }
            }
            0 => {
                let slot = group.slot as usize;
                let groups = &mut self.groups;
                self.table
                    .remove_at(slot, |id, to| groups[id as usize].slot = to as u32);
                self.free_groups.push(g);
            }
            _ => {}
        }
    }

    /// Checks every invariant of the orbits and the index; panics with the broken one. For
    /// tests: quadratic in the rank.
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        for (i, &x) in self.fixed.iter().enumerate() {
            assert_ne!(x, 0, "a zero fixed term");
            assert!(!self.fixed[..i].contains(&x), "two equal fixed terms");
        }
        for &o in &self.alive {
            let [a, b, c] = self.factors[o as usize];
            assert!(a != 0 && b != 0 && c != 0, "a zero triple");
            assert!(!(a == b && b == c), "a triple whose terms are equal");
            for k in 0..3 {
                let e = 3 * o + k;
                let id = self.links[e as usize].group;
                let g = self.groups[id as usize];
                assert_eq!(
                    g.key, self.factors[o as usize][k as usize],
                    "entry {e} is in the wrong group"
                );
                assert_eq!(self.table.find(g.key), Ok(id));
                assert_eq!(self.table.slot_holds(g.slot as usize), Some((g.key, id)), "stale slot");
                let members = self
                    .alive
                    .iter()
                    .map(|&p| self.factors[p as usize].iter().filter(|&&f| f == g.key).count())
                    .sum::<usize>();
                assert_eq!(g.count as usize, members, "group count");
                assert_eq!(g.count >= 2, self.multi.contains(&id));
            }
        }
        let mut keys: Vec<Factor> = self.alive.iter().flat_map(|&o| self.factors[o as usize]).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(self.groups.len() - self.free_groups.len(), keys.len(), "groups");
        assert!(self.table.holds(keys.len()));
        assert!(self.best_rank() <= self.rank());
        let plain = self.scheme();
        assert_eq!(plain.rank(), self.rank());
        assert!(super::is_c3_invariant(&plain), "the expanded scheme is not invariant");
    }
}

/// Two F2 bases (for the factors at B and at C of a group) indexed by leading bit. An entry
/// is valid only when stamped with the current check, so a check clears nothing.
#[derive(Clone, Debug)]
struct Bases {
    values: [[Factor; 64]; 2],
    stamps: [[u64; 64]; 2],
    check: u64,
}

impl Bases {
    fn new() -> Bases {
        Bases {
            values: [[0; 64]; 2],
            stamps: [[0; 64]; 2],
            check: 0,
        }
    }

    /// True when the factors at B or at C of `terms` (non-zero terms) are linearly dependent.
    fn dependent(&mut self, terms: &[Term]) -> bool {
        self.check += 1;
        terms.iter().any(|t| !self.insert(0, t.b) || !self.insert(1, t.c))
    }

    /// Adds `v` to basis `which`; false when it was in the span already.
    #[inline]
    fn insert(&mut self, which: usize, mut v: Factor) -> bool {
        while v != 0 {
            let lead = 63 - v.leading_zeros() as usize;
            if self.stamps[which][lead] != self.check {
                self.stamps[which][lead] = self.check;
                self.values[which][lead] = v;
                return true;
            }
            v ^= self.values[which][lead];
        }
        false
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
    fn the_dependency_check_agrees_with_the_moves() {
        let mut rng = WyRand::new(5);
        let mut bases = Bases::new();
        let mut seen = [0; 2];
        for _ in 0..20_000 {
            let len = 2 + rng.below(6);
            let terms: Vec<Term> = (0..len)
                .map(|_| Term::new(7, 1 + rng.below(31) as u64, 1 + rng.below(31) as u64))
                .collect();
            let expected = crate::moves::group_is_reducible(&terms, Position::A);
            assert_eq!(bases.dependent(&terms), expected, "{terms:?}");
            seen[expected as usize] += 1;
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
    }

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
