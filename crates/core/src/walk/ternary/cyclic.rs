//! The ternary walk on schemes invariant under the cyclic rotation of square shapes (C3):
//! [`crate::walk::SymmetricWalker`]'s orbit moves over {-1,0,1}, with the fixed cubes frozen
//! (see [`crate::ternary::CyclicOrbits`] for why).
//!
//! Each free orbit is kept as its representative `t`; its terms are `t`, `sigma t` and
//! `sigma^2 t` ([`TernaryTerm::rotated`]), and the term that shows factor `k` first is
//! `t.rotated(k)`. All three factors of every representative sit in one index (a square
//! shape's factors have one layout), keyed by their normal form, so two orbits in one group
//! have terms that share the factor at A up to sign, and the ternary move between those terms,
//! with its images under the rotation (six distinct terms, or a read orbit), is the orbit
//! move. A move whose result would be a cube is not taken: a triple of equal terms is no
//! triple, and the cubes stay as they started.

use alloc::vec::Vec;

use super::super::index::{self, factor_of, slot_of, Index, NONE};
use super::super::WalkConfig;
use crate::counters::Counters;
use crate::plateau::Clock;
use crate::rng::WyRand;
use crate::shape::Shape;
use crate::term::Position;
use crate::ternary::{flip, merge, plus, CyclicOrbits, TernaryError, TernaryScheme, TernaryTerm};

/// A walker on the ternary schemes of a square shape that the rotation keeps: the cubes
/// (frozen), the free orbits' representatives, their index, a random stream and counters.
#[derive(Clone, Debug)]
pub struct TernaryC3Walker {
    shape: Shape,
    config: WalkConfig,
    rng: WyRand,
    counters: Counters,
    clock: Clock,
    entries: usize,
    fixed: Vec<TernaryTerm>,
    /// Representatives by orbit slot (the index says which are live; dead slots are reused).
    orbits: Vec<TernaryTerm>,
    index: Index<1, u128>,
    /// Orbits to check for merges.
    work: Vec<u32>,
    best: CyclicOrbits,
}

impl TernaryC3Walker {
    /// A walker on `scheme`, which must be invariant under the rotation (its orbits are found
    /// by [`CyclicOrbits::of`]; the merges they allow are taken at once).
    /// `config.generalized` is not read.
    pub fn new(scheme: &TernaryScheme, config: WalkConfig, seed: u64) -> Result<TernaryC3Walker, TernaryError> {
        let shape = scheme.shape();
        let orbits = CyclicOrbits::of(scheme)?;
        let entries = shape.n() * shape.n();
        let slots = (orbits.rank().max(config.max_rank.min(2 * shape.naive_rank())) + 6) / 3 + 1;
        let mut w = TernaryC3Walker {
            shape,
            config,
            rng: WyRand::new(seed),
            counters: Counters::default(),
            clock: Clock::new(config.plateau),
            entries,
            fixed: orbits.fixed.clone(),
            orbits: Vec::with_capacity(slots),
            index: Index::new(slots, 3 * slots, [2 * entries]),
            work: Vec::new(),
            best: orbits.clone(),
        };
        for &t in &orbits.free {
            let o = w.add_orbit(t);
            w.work.push(o);
        }
        w.reduce_pending(w.rank());
        Ok(w)
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The current rank of the plain scheme.
    pub fn rank(&self) -> usize {
        self.fixed.len() + 3 * self.index.live().len()
    }

    /// The lowest rank reached.
    pub fn best_rank(&self) -> usize {
        self.best.rank()
    }

    /// The counters so far (a move on an orbit counts once).
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The current plateau limit: steps without a reduction before a plus move (0: never).
    pub fn plateau_limit(&self) -> u64 {
        self.clock.limit()
    }

    /// The current scheme, plain.
    pub fn scheme(&self) -> TernaryScheme {
        self.plain(&self.current())
    }

    /// The first scheme of the lowest rank reached, plain.
    pub fn best(&self) -> TernaryScheme {
        self.plain(&self.best)
    }

    fn plain(&self, orbits: &CyclicOrbits) -> TernaryScheme {
        orbits
            .to_scheme(self.shape)
            .expect("the walker's format fits a ternary factor")
    }

    fn current(&self) -> CyclicOrbits {
        CyclicOrbits {
            fixed: self.fixed.clone(),
            free: self.index.live().iter().map(|&o| self.orbits[o as usize]).collect(),
        }
    }

    /// Takes `steps` steps, or fewer when the rank reaches `target`; returns the steps taken.
    pub fn walk(&mut self, steps: u64, target: usize) -> u64 {
        super::super::walk_until(self, steps, target, Self::rank, Self::step)
    }

    /// One step: an orbit flip (with the merges it allows) or, on a plateau, a plus move.
    /// Returns true when it reached a new scheme.
    pub fn step(&mut self) -> bool {
        self.counters.steps += 1;
        if !self.index.has_flips() || (self.clock.ran_out() && self.rank() < self.config.max_rank) {
            if self.index.has_flips() {
                self.clock.plus_due();
            }
            return self.plus_move();
        }
        let (e, f) = self.index.random_pair(&mut self.rng);
        let ((o, k), (p, l)) = ((slot_of(e), factor_of(e)), (slot_of(f), factor_of(f)));
        self.clock.tick();
        if o == p {
            // Two terms of one orbit: their flip has no invariant image (the symmetry module).
            return false;
        }
        let (mut x, mut y) = (self.orbits[o as usize].rotated(k), self.orbits[p as usize].rotated(l));
        let minus = self.rng.bits() & 1 == 1;
        if !flip(&mut x, &mut y, Position::A, minus) && !flip(&mut x, &mut y, Position::A, !minus) {
            return false;
        }
        // Back to the representatives by the inverse rotation (any rotation is the same orbit;
        // this one leaves the unchanged factors in their index entries).
        let (x, y) = (x.rotated(3 - k), y.rotated(3 - l));
        if x.is_cube() || y.is_cube() {
            return false;
        }
        let before = self.rank();
        self.counters.flips += 1;
        self.counters.vertices += 1;
        for (orbit, rep) in [(o, x), (p, y)] {
            if rep.is_zero() {
                self.remove_orbit(orbit);
            } else {
                self.set_orbit(orbit, rep);
                self.work.push(orbit);
            }
        }
        self.reduce_pending(before);
        true
    }

    /// `t + u` to `t + u' + v` and its images, `u` the representative of a random free orbit
    /// and `t` a random term of another orbit or a cube, at a random position where they
    /// differ, with a random sign: three terms more.
    fn plus_move(&mut self) -> bool {
        let live = self.index.live().len();
        if live == 0 || live + self.fixed.len() < 2 {
            return false;
        }
        let at = self.rng.below(live);
        let u_slot = self.index.live()[at];
        // Any cube, or any live orbit but `u`'s.
        let pick = self.rng.below(live - 1 + self.fixed.len());
        let t = match pick.checked_sub(self.fixed.len()) {
            None => self.fixed[pick],
            Some(i) => {
                let slot = self.index.live()[if i < at { i } else { i + 1 }];
                self.orbits[slot as usize].rotated(self.rng.below(3))
            }
        };
        let u = self.orbits[u_slot as usize];
        let pos = Position::from_index(self.rng.below(3));
        if t.get(pos) == u.get(pos) {
            return false;
        }
        let minus = self.rng.bits() & 1 == 1;
        let Some((changed, added)) = plus(&t, &u, pos, minus).or_else(|| plus(&t, &u, pos, !minus)) else {
            return false;
        };
        if changed.is_cube() || added.is_cube() {
            return false;
        }
        self.set_orbit(u_slot, changed);
        self.add_orbit(added);
        self.counters.plus += 1;
        self.counters.vertices += 1;
        self.clock.plus_taken();
        true
    }

    /// Checks the orbits in `work` for merges, and the orbits those change, until none is
    /// left. `before` is the rank before the move that queued them.
    fn reduce_pending(&mut self, before: usize) {
        while let Some(o) = self.work.pop() {
            if self.index.is_live(o) {
                self.merge_orbit(o);
            }
        }
        if self.rank() < before {
            self.clock.reduced();
            if self.rank() < self.best.rank() {
                self.best = self.current();
            }
        }
    }

    /// Merges orbit `o` with the first other orbit that has a term sharing two factors with
    /// one of `o`'s whose sum is a ternary term other than a cube (three terms fewer, six
    /// where they cancel).
    fn merge_orbit(&mut self, o: u32) {
        for k in 0..3 {
            let e = index::entry(o, k);
            let mut f = self.index.group_of(e).head;
            while f != NONE {
                let next = self.index.next(f);
                let p = slot_of(f);
                if p != o && self.try_merge((o, k), (p, factor_of(f))) {
                    return;
                }
                f = next;
            }
        }
    }

    /// Merges orbit `p`'s term showing its factor `l` first into orbit `o`'s showing factor
    /// `k` first, where they share a second factor and their sum is ternary and no cube.
    fn try_merge(&mut self, (o, k): (u32, usize), (p, l): (u32, usize)) -> bool {
        let t = self.orbits[o as usize].rotated(k);
        let u = self.orbits[p as usize].rotated(l);
        let Some(merged) = merge(&t, &u) else {
            return false;
        };
        let rep = merged.rotated(3 - k);
        if !merged.is_zero() && rep.is_cube() {
            return false;
        }
        self.remove_orbit(p);
        if merged.is_zero() {
            self.remove_orbit(o);
        } else {
            self.set_orbit(o, rep);
            self.work.push(o);
        }
        true
    }

    /// The index keys of a representative's three factors.
    #[inline(always)]
    fn keys(&self, rep: TernaryTerm) -> [u128; 3] {
        rep.factors().map(|f| f.key(self.entries))
    }

    /// Replaces orbit `o`'s representative, moving each factor that changed to its new group.
    fn set_orbit(&mut self, o: u32, rep: TernaryTerm) {
        let old = core::mem::replace(&mut self.orbits[o as usize], rep);
        let (old, new) = (self.keys(old), self.keys(rep));
        for k in (0..3).filter(|&k| old[k] != new[k]) {
            self.index.rekey(index::entry(o, k), new[k]);
        }
    }

    fn add_orbit(&mut self, rep: TernaryTerm) -> u32 {
        let added = self.index.add(self.keys(rep));
        index::store(&mut self.orbits, added, rep)
    }

    fn remove_orbit(&mut self, o: u32) {
        self.index.remove(o);
        self.counters.reductions += 3;
    }

    /// Checks every invariant of the index against the representatives; panics with the
    /// broken one. For tests: O(orbits^2).
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        let live = self.index.live();
        for &o in live {
            let rep = self.orbits[o as usize];
            assert!(!rep.is_zero() && !rep.is_cube(), "a live orbit is zero or a cube");
            for k in 0..3 {
                let count = self
                    .index
                    .check_entry(index::entry(o, k), rep.get(Position::from_index(k)).key(self.entries));
                let members: usize = live
                    .iter()
                    .map(|&p| {
                        self.orbits[p as usize]
                            .factors()
                            .iter()
                            .filter(|&&f| f == rep.factors()[k])
                            .count()
                    })
                    .sum();
                assert_eq!(count as usize, members, "group count");
            }
        }
    }
}
