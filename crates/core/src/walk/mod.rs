//! The random walk on the flip graph of one scheme (the host reference walk).
//!
//! Each step picks a random group of terms that share a factor, flips a random pair of it (a
//! sparse walker may turn a flip down: [`crate::sparsity`]), and takes every reduction the flip
//! allows at once: merges of terms that share two factors and,
//! when enabled, generalized flips of dependent groups of three or more. After a plateau of
//! steps without a reduction it takes a plus move (rank +1) to leave it; the plateau's limit is
//! fixed or adapts to the walker's reductions ([`crate::plateau`]).
//!
//! An index from factor value to the terms holding it (one `FactorTable` per
//! position, groups as linked lists through the terms) makes a step O(1) expected, and a
//! list of the groups with two or more terms makes every picked flip a real one.

pub(crate) mod table;

use alloc::vec::Vec;

use crate::moves::{flip, generalized_flip_rank, group_is_reducible, merge, plus};
pub use crate::plateau::Plateau;
use crate::rng::WyRand;
use crate::scheme::Scheme;
use crate::shape::Shape;
pub use crate::sparsity::Sparsity;
use crate::sparsity::{self, weight};
use crate::term::{Factor, Position, Term};
use table::FactorTable;

pub use crate::counters::Counters;

/// Settings of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkConfig {
    /// Steps without a reduction after which a plus move is taken: fixed (0: never) or adaptive.
    pub plateau: Plateau,
    /// Reduce dependent groups of three or more terms by generalized flips.
    pub generalized: bool,
    /// No plus move is taken at this rank or above.
    pub max_rank: usize,
    /// Which walkers walk sparse ([`crate::sparsity`]). An engine resolves it for each walk's
    /// style ([`Sparsity::for_style`]); a lone walker walks sparse only with [`Sparsity::All`].
    pub sparsity: Sparsity,
}

impl Default for WalkConfig {
    fn default() -> WalkConfig {
        WalkConfig {
            plateau: Plateau::Adaptive {
                floor: crate::plateau::CPU_FLOOR,
            },
            generalized: true,
            max_rank: usize::MAX,
            sparsity: Sparsity::Off,
        }
    }
}

/// A random walk on the flip graph as the engines drive it: the plain [`Walker`] or the
/// symmetric one ([`crate::symmetry::SymmetricWalker`]). Ranks are those of the plain schemes.
pub trait Walk: Send {
    /// One step: a move (with the reductions it allows) or, on a plateau, a plus move.
    /// Returns true when it reached a new scheme.
    fn step(&mut self) -> bool;
    /// Takes `steps` steps, or fewer when the rank reaches `target`; returns the steps taken.
    fn walk(&mut self, steps: u64, target: usize) -> u64 {
        for done in 0..steps {
            if self.rank() <= target {
                return done;
            }
            self.step();
        }
        steps
    }
    /// The rank of the scheme the walker holds now.
    fn rank(&self) -> usize;
    /// The lowest rank reached.
    fn best_rank(&self) -> usize;
    /// The scheme of the lowest rank reached.
    fn best(&self) -> Scheme;
    /// The scheme the walker holds now.
    fn scheme(&self) -> Scheme;
    /// What the walk has done so far.
    fn counters(&self) -> Counters;
    /// The plateau limit in force (steps without a reduction before a plus move).
    fn plateau_limit(&self) -> u64;
}

/// Implements [`Walk`] for a walker type by its inherent methods of the same names.
macro_rules! walk_by_inherent_methods {
    ($walker:ty) => {
        impl $crate::walk::Walk for $walker {
            fn step(&mut self) -> bool {
                <$walker>::step(self)
            }
            fn rank(&self) -> usize {
                <$walker>::rank(self)
            }
            fn best_rank(&self) -> usize {
                <$walker>::best_rank(self)
            }
            fn best(&self) -> Scheme {
                <$walker>::best(self)
            }
            fn scheme(&self) -> Scheme {
                <$walker>::scheme(self)
            }
            fn counters(&self) -> Counters {
                <$walker>::counters(self)
            }
            fn plateau_limit(&self) -> u64 {
                <$walker>::plateau_limit(self)
            }
        }
    };
}
pub(crate) use walk_by_inherent_methods;

walk_by_inherent_methods!(Walker);

/// No term or group.
const NONE: u32 = u32::MAX;

/// A work-list mask naming all three positions.
const ALL_GROUPS: u8 = 0b111;

/// A term's place in the group of one position: a doubly linked list.
#[derive(Clone, Copy, Debug)]
struct Link {
    group: u32,
    prev: u32,
    next: u32,
}

/// The terms that share one factor value at one position.
#[derive(Clone, Copy, Debug)]
struct Group {
    key: Factor,
    /// Where the group's entry sits in its position's table.
    slot: u32,
    pos: Position,
    head: u32,
    count: u32,
    /// Index in `Walker::multi` while `count >= 2`.
    multi_slot: u32,
}

/// A walker: one scheme, its index, its random stream and its counters.
#[derive(Clone, Debug)]
pub struct Walker {
    shape: Shape,
    config: WalkConfig,
    rng: WyRand,
    counters: Counters,
    since_reduction: u64,
    /// The current plateau limit (steps without a reduction before a plus move; 0: never).
    plateau_limit: u64,
    /// Term slots; dead slots are reused.
    terms: Vec<Term>,
    links: Vec<[Link; 3]>,
    /// Index of each slot in `alive`, or NONE for a dead slot.
    alive_at: Vec<u32>,
    alive: Vec<u32>,
    free_slots: Vec<u32>,
    tables: [FactorTable; 3],
    groups: Vec<Group>,
    free_groups: Vec<u32>,
    /// Groups with two or more terms: where flips are.
    multi: Vec<u32>,
    /// Terms whose factors changed, with a bit mask of the positions whose groups to check.
    work: Vec<(u32, u8)>,
    scratch_ids: Vec<u32>,
    scratch_terms: Vec<Term>,
    bases: Bases,
    best: Vec<Term>,
}

/// Two F2 bases indexed by leading bit, for dependency checks of a group's factors. Entries
/// are valid only when stamped with the current check, so no check clears 1 KiB of memory.
#[derive(Clone, Debug)]
struct Bases {
    values: [[u64; 64]; 2],
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

    fn next_check(&mut self) {
        self.check += 1;
    }

    /// Adds `v` to basis `which`; false when it was in the span already (a dependency).
    #[inline]
    fn insert(&mut self, which: usize, mut v: u64) -> bool {
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

impl Walker {
    /// A walker on `scheme` (zero terms dropped; any reductions it allows are taken at once).
    pub fn new(scheme: &Scheme, config: WalkConfig, seed: u64) -> Walker {
        let capacity = scheme.rank().max(config.max_rank.min(2 * scheme.shape().naive_rank())) + 2;
        let mut w = Walker {
            shape: scheme.shape(),
            config,
            rng: WyRand::new(seed),
            counters: Counters::default(),
            since_reduction: 0,
            plateau_limit: config.plateau.initial(),
            terms: Vec::with_capacity(capacity),
            links: Vec::with_capacity(capacity),
            alive_at: Vec::with_capacity(capacity),
            alive: Vec::with_capacity(capacity),
            free_slots: Vec::new(),
            tables: Position::ALL.map(|pos| FactorTable::with_capacity(capacity, scheme.shape().factor_bits(pos))),
            groups: Vec::with_capacity(3 * capacity),
            free_groups: Vec::new(),
            multi: Vec::with_capacity(3 * capacity),
            work: Vec::new(),
            scratch_ids: Vec::new(),
            scratch_terms: Vec::new(),
            bases: Bases::new(),
            best: Vec::new(),
        };
        for &t in scheme.terms().iter().filter(|t| !t.is_zero()) {
            let id = w.add_term(t);
            w.work.push((id, ALL_GROUPS));
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
        self.alive.len()
    }

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The current scheme.
    pub fn scheme(&self) -> Scheme {
        Scheme::new(self.shape, self.current_terms()).expect("the walk keeps factors in range")
    }

    /// The current plateau limit: steps without a reduction before a plus move (0: never).
    pub fn plateau_limit(&self) -> u64 {
        self.plateau_limit
    }

    /// The lowest rank this walker has reached.
    pub fn best_rank(&self) -> usize {
        self.best.len()
    }

    /// The first scheme of the lowest rank this walker has reached.
    pub fn best(&self) -> Scheme {
        Scheme::new(self.shape, self.best.clone()).expect("the walk keeps factors in range")
    }

    fn current_terms(&self) -> Vec<Term> {
        self.alive.iter().map(|&t| self.terms[t as usize]).collect()
    }

    /// One step: a flip (with the reductions it allows) or, on a plateau, a plus move.
    /// Returns true when it reached a new scheme.
    pub fn step(&mut self) -> bool {
        self.counters.steps += 1;
        // With no two terms sharing a factor only a plus move leaves the scheme, so it is taken
        // even at `max_rank`; on a plateau it is taken below `max_rank`.
        if self.multi.is_empty() {
            return self.plus_move();
        }
        if self.plateau_limit > 0 && self.since_reduction >= self.plateau_limit && self.rank() < self.config.max_rank {
            self.plateau_limit = self.config.plateau.after_plus(self.plateau_limit);
            return self.plus_move();
        }
        let g = self.groups[self.multi[self.rng.below(self.multi.len())] as usize];
        let (t, u) = if g.count == 2 {
            // The common case: the pair is the group, in a random order.
            let (head, next) = (g.head, self.links[g.head as usize][g.pos.index()].next);
            if self.rng.bits() & 1 == 0 {
                (head, next)
            } else {
                (next, head)
            }
        } else {
            let (i, j) = self.distinct_pair(g.count as usize);
            (self.member(g, i), self.member(g, j))
        };
        let (mut x, mut y) = (self.terms[t as usize], self.terms[u as usize]);
        flip(&mut x, &mut y, g.pos);
        if self.config.sparsity == Sparsity::All {
            let before = weight(&self.terms[t as usize]) + weight(&self.terms[u as usize]);
            if !sparsity::takes(before, weight(&x) + weight(&y), self.rng.bits()) {
                self.since_reduction += 1;
                return false;
            }
        }
        let (q, r) = (g.pos.next(), g.pos.prev());
        // The sizes of the four groups the flip changes: those t and u stay in (read first, so
        // the loads overlap the index updates; the updates leave them unchanged unless the flip
        // zeroes a term) and those they join. A term alone in a group needs no check there.
        let stay = [self.group_size(t, q), self.group_size(u, r)];
        let joined = [self.set_factor(t, r, x.get(r)), self.set_factor(u, q, y.get(q))];
        self.counters.flips += 1;
        self.counters.vertices += 1;
        self.since_reduction += 1;
        let before = self.rank();
        // A flip between terms that share two factors (left by a plus move) zeroes one. The
        // flipped group itself stays reduced (the flip is invertible on it): check the others.
        if x.is_zero() || y.is_zero() {
            let others = ALL_GROUPS & !(1 << g.pos.index());
            for (id, term) in [(t, x), (u, y)] {
                if term.is_zero() {
                    self.remove_term(id);
                } else {
                    self.work.push((id, others));
                }
            }
        } else {
            // The common case, without the work list: the four changed groups directly.
            for (id, pos, size) in [(t, q, stay[0]), (t, r, joined[0]), (u, q, joined[1]), (u, r, stay[1])] {
                if size > 1 && self.alive_at[id as usize] != NONE {
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
        self.groups[self.links[t as usize][pos.index()].group as usize].count
    }

    /// Two distinct random indices below `n` (at least 2), without a division.
    #[inline]
    fn distinct_pair(&mut self, n: usize) -> (usize, usize) {
        // Both from one draw: its low and high 32 bits, each by multiply-shift.
        let bits = self.rng.bits();
        let i = ((bits as u32 as u64 * n as u64) >> 32) as usize;
        let mut j = i + 1 + (((bits >> 32) * (n as u64 - 1)) >> 32) as usize;
        if j >= n {
            j -= n;
        }
        (i, j)
    }

    /// The `k`-th term of group `g`'s list.
    fn member(&self, g: Group, k: usize) -> u32 {
        let mut t = g.head;
        for _ in 0..k {
            t = self.links[t as usize][g.pos.index()].next;
        }
        t
    }

    /// `t + u` to `t + u' + v` at a random position where they differ (see [`plus`]).
    fn plus_move(&mut self) -> bool {
        let n = self.alive.len();
        if n < 2 {
            return false;
        }
        let (i, j) = self.distinct_pair(n);
        let (t, u) = (self.alive[i], self.alive[j]);
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
        self.since_reduction = 0;
        true
    }

    /// Checks every term in `work` for reductions, and the terms those change, until none is left.
    /// `before` is the rank before the move that queued them.
    fn reduce_pending(&mut self, before: usize) {
        while let Some((t, mask)) = self.work.pop() {
            for pos in Position::ALL.into_iter().filter(|p| mask & 1 << p.index() != 0) {
                if self.alive_at[t as usize] == NONE {
                    break;
                }
                self.reduce_group_of(t, pos);
            }
        }
        if self.rank() < before {
            self.plateau_limit = self
                .config
                .plateau
                .after_reduction(self.plateau_limit, self.since_reduction);
            self.since_reduction = 0;
            if self.rank() < self.best.len() {
                self.best = self.current_terms();
            }
        }
    }

    /// Reduces the group of `t` at `pos` if its terms allow it.
    fn reduce_group_of(&mut self, t: u32, pos: Position) {
        let g = self.groups[self.links[t as usize][pos.index()].group as usize];
        match g.count {
            1 => {}
            2 => {
                let link = self.links[t as usize][pos.index()];
                let other = if g.head == t { link.next } else { g.head };
                self.try_merge(t, other);
            }
            _ if self.config.generalized => self.generalized_flip(g),
            _ => {
                let mut u = g.head;
                while u != NONE {
                    let next = self.links[u as usize][pos.index()].next;
                    if u != t && self.try_merge(t, u) {
                        return;
                    }
                    u = next;
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
            self.work.push((t, ALL_GROUPS));
        }
        true
    }

    /// True when the factors at `Q` or at `R` of group `g` are linearly dependent.
    fn group_is_dependent(&mut self, g: Group) -> bool {
        let (q, r) = (g.pos.next(), g.pos.prev());
        if g.count == 3 {
            // The common case, in closed form.
            let t0 = g.head;
            let t1 = self.links[t0 as usize][g.pos.index()].next;
            let t2 = self.links[t1 as usize][g.pos.index()].next;
            return three_are_dependent([t0, t1, t2].map(|t| self.terms[t as usize]), g.pos);
        }
        self.bases.next_check();
        let mut t = g.head;
        while t != NONE {
            let term = self.terms[t as usize];
            if !self.bases.insert(0, term.get(q)) || !self.bases.insert(1, term.get(r)) {
                return true;
            }
            t = self.links[t as usize][g.pos.index()].next;
        }
        false
    }

    /// Rewrites group `g` (three or more terms) to fewer terms when it is dependent.
    fn generalized_flip(&mut self, g: Group) {
        if !self.group_is_dependent(g) {
            return;
        }
        self.scratch_ids.clear();
        self.scratch_terms.clear();
        let mut t = g.head;
        while t != NONE {
            self.scratch_ids.push(t);
            self.scratch_terms.push(self.terms[t as usize]);
            t = self.links[t as usize][g.pos.index()].next;
        }
        debug_assert!(group_is_reducible(&self.scratch_terms, g.pos));
        generalized_flip_rank(&mut self.scratch_terms, g.pos);
        self.counters.generalized += 1;
        for k in 0..self.scratch_ids.len() {
            let (id, new) = (self.scratch_ids[k], self.scratch_terms[k]);
            if new.is_zero() {
                self.remove_term(id);
                continue;
            }
            let old = self.terms[id as usize];
            if old != new {
                for pos in [g.pos.next(), g.pos.prev()] {
                    if old.get(pos) != new.get(pos) {
                        self.set_factor(id, pos, new.get(pos));
                    }
                }
                self.work.push((id, ALL_GROUPS));
            }
        }
    }

    /// Sets factor `pos` of term `t` and moves it to its new group; returns the group's size.
    fn set_factor(&mut self, t: u32, pos: Position, value: Factor) -> u32 {
        let p = pos.index();
        let g = self.links[t as usize][p].group;
        if self.groups[g as usize].count == 1 {
            // The common case of a flip: a term alone with its old factor gets a new factor
            // that no other term has. Its group is re-keyed in place: one probe, no relinking.
            if let Err(free) = self.tables[p].find(value) {
                let (tables, groups) = (&mut self.tables, &mut self.groups);
                tables[p].insert_at(free, value, g);
                let old = groups[g as usize].slot as usize;
                groups[g as usize].slot = free as u32;
                tables[p].remove_at(old, |id, to| groups[id as usize].slot = to as u32);
                groups[g as usize].key = value;
                self.terms[t as usize].set(pos, value);
                return 1;
            }
        }
        self.detach(t, pos);
        self.terms[t as usize].set(pos, value);
        self.attach(t, pos)
    }

    fn add_term(&mut self, term: Term) -> u32 {
        let link = Link {
            group: NONE,
            prev: NONE,
            next: NONE,
        };
        let t = match self.free_slots.pop() {
            Some(t) => {
                self.terms[t as usize] = term;
                t
            }
            None => {
                self.terms.push(term);
                self.links.push([link; 3]);
                self.alive_at.push(NONE);
                (self.terms.len() - 1) as u32
            }
        };
        self.alive_at[t as usize] = self.alive.len() as u32;
        self.alive.push(t);
        for pos in Position::ALL {
            self.attach(t, pos);
        }
        t
    }

    fn remove_term(&mut self, t: u32) {
        for pos in Position::ALL {
            self.detach(t, pos);
        }
        let at = self.alive_at[t as usize] as usize;
        let last = self.alive.pop().expect("a live term");
        if last != t {
            self.alive[at] = last;
            self.alive_at[last as usize] = at as u32;
        }
        self.alive_at[t as usize] = NONE;
        self.free_slots.push(t);
        self.counters.reductions += 1;
    }

    /// Puts term `t` into the group of its factor at `pos`; returns the group's size.
    fn attach(&mut self, t: u32, pos: Position) -> u32 {
        let key = self.terms[t as usize].get(pos);
        let p = pos.index();
        let g = match self.tables[p].find(key) {
            Ok(g) => g,
            Err(free) => {
                let group = Group {
                    key,
                    slot: free as u32,
                    pos,
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
                self.tables[p].insert_at(free, key, g);
                g
            }
        };
        let group = &mut self.groups[g as usize];
        let head = group.head;
        group.head = t;
        group.count += 1;
        let count = group.count;
        self.links[t as usize][p] = Link {
            group: g,
            prev: NONE,
            next: head,
        };
        if head != NONE {
            self.links[head as usize][p].prev = t;
        }
        if count == 2 {
            self.groups[g as usize].multi_slot = self.multi.len() as u32;
            self.multi.push(g);
        }
        count
    }

    fn detach(&mut self, t: u32, pos: Position) {
        let p = pos.index();
        let Link { group: g, prev, next } = self.links[t as usize][p];
        if prev != NONE {
            self.links[prev as usize][p].next = next;
        } else {
            self.groups[g as usize].head = next;
        }
        if next != NONE {
            self.links[next as usize][p].prev = prev;
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
                self.tables[p].remove_at(slot, |id, to| groups[id as usize].slot = to as u32);
                self.free_groups.push(g);
            }
            _ => {}
        }
    }

    /// Checks every invariant of the index against the terms; panics with the broken one.
    /// For tests: O(rank^2).
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        for &t in &self.alive {
            let term = self.terms[t as usize];
            assert!(!term.is_zero(), "a live term is zero");
            for pos in Position::ALL {
                let g = self.groups[self.links[t as usize][pos.index()].group as usize];
                assert_eq!(g.key, term.get(pos), "term {t} is in the wrong group");
                let id = self.links[t as usize][pos.index()].group;
                assert_eq!(self.tables[pos.index()].find(g.key), Ok(id));
                assert_eq!(
                    self.tables[pos.index()].slot_holds(g.slot as usize),
                    Some((g.key, id)),
                    "stale slot"
                );
                let members = self
                    .alive
                    .iter()
                    .filter(|&&u| self.terms[u as usize].get(pos) == g.key)
                    .count();
                assert_eq!(g.count as usize, members, "group count");
                assert_eq!(
                    g.count >= 2,
                    self.multi.contains(&self.links[t as usize][pos.index()].group)
                );
            }
        }
        let live_groups = self.groups.len() - self.free_groups.len();
        let distinct: usize = Position::ALL
            .into_iter()
            .map(|pos| {
                let mut keys: Vec<Factor> = self.alive.iter().map(|&t| self.terms[t as usize].get(pos)).collect();
                keys.sort_unstable();
                keys.dedup();
                keys.len()
            })
            .sum();
        assert_eq!(live_groups, distinct, "groups");
        assert!(self.tables.iter().all(|t| t.holds(self.alive.len())));
    }
}

/// Whether three terms sharing the factor at `pos` are linearly dependent at `Q` or at `R`:
/// three vectors are when one is zero, two are equal or all three sum to zero.
fn three_are_dependent([x, y, z]: [Term; 3], pos: Position) -> bool {
    [pos.next(), pos.prev()].into_iter().any(|p| {
        let (a, b, c) = (x.get(p), y.get(p), z.get(p));
        a == 0 || b == 0 || c == 0 || a == b || a == c || b == c || a ^ b ^ c == 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::verify;

    fn shapes() -> [Shape; 5] {
        [(2, 2, 2), (3, 3, 3), (2, 3, 4), (4, 4, 4), (5, 5, 5)].map(|(n, m, p)| Shape::new(n, m, p).unwrap())
    }

    #[test]
    fn the_tensor_is_preserved_and_the_index_consistent_after_many_steps() {
        for shape in shapes() {
            for (generalized, sparsity) in [(false, Sparsity::Off), (true, Sparsity::Off), (true, Sparsity::All)] {
                let config = WalkConfig {
                    plateau: Plateau::Fixed(300),
                    generalized,
                    max_rank: shape.naive_rank() + 4,
                    sparsity,
                };
                let mut w = Walker::new(&Scheme::naive(shape), config, 42);
                for _ in 0..20 {
                    w.walk(500, 0);
                    w.check_invariants();
                    assert_eq!(verify(&w.scheme()), Ok(()), "{shape}");
                }
                assert_eq!(verify(&w.best()), Ok(()), "{shape}");
                assert!(w.best_rank() <= w.rank());
            }
        }
    }

    #[test]
    fn the_closed_form_for_three_terms_agrees_with_elimination() {
        let mut rng = WyRand::new(11);
        let mut dependent = 0;
        for _ in 0..20_000 {
            // Three-bit factors: small enough that dependent triples are common.
            let pos = Position::from_index(rng.below(3));
            let mut factor = || rng.below(8) as u64;
            let shared = factor() | 1;
            let terms = [(); 3].map(|_| {
                let mut t = Term::new(factor() | 1, factor() | 1, factor() | 1);
                t.set(pos.next(), factor());
                t.set(pos.prev(), factor());
                t.set(pos, shared);
                t
            });
            let expected = crate::moves::group_is_reducible(&terms, pos) || terms.iter().any(|t| t.is_zero());
            assert_eq!(three_are_dependent(terms, pos), expected, "{terms:?} at {pos:?}");
            dependent += expected as u32;
        }
        assert!(dependent > 1000 && dependent < 19_000, "{dependent}");
    }

    #[test]
    fn counters_are_consistent() {
        let shape = Shape::square(4).unwrap();
        let mut w = Walker::new(
            &Scheme::naive(shape),
            WalkConfig {
                plateau: Plateau::Fixed(200),
                ..WalkConfig::default()
            },
            7,
        );
        let taken = w.walk(50_000, 0);
        let c = w.counters();
        assert_eq!(c.steps, taken);
        assert_eq!(c.vertices, c.flips + c.plus);
        assert!(c.vertices <= c.steps);
        // Every removed term came from the naive terms or from a plus move.
        assert_eq!(w.rank() as u64, shape.naive_rank() as u64 + c.plus - c.reductions);
        assert!(c.reductions > 0 && c.plus > 0, "{c:?}");
    }

    #[test]
    fn the_same_seed_gives_the_same_walk() {
        let s = Scheme::naive(Shape::square(3).unwrap());
        let run = |seed| {
            let mut w = Walker::new(&s, WalkConfig::default(), seed);
            w.walk(20_000, 0);
            (w.scheme(), w.counters())
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5).0, run(6).0);
    }

    #[test]
    fn a_sparse_walk_keeps_its_factors_lighter_and_turns_flips_down() {
        let s = Scheme::naive(Shape::square(6).unwrap());
        let walk = |sparsity| {
            let config = WalkConfig {
                plateau: Plateau::Fixed(0),
                sparsity,
                ..WalkConfig::default()
            };
            let mut w = Walker::new(&s, config, 9);
            w.walk(100_000, 0);
            assert_eq!(verify(&w.scheme()), Ok(()));
            let weight: u32 = w.scheme().terms().iter().map(crate::sparsity::weight).sum();
            (weight, w.counters())
        };
        let (free, free_counters) = walk(Sparsity::Off);
        let (sparse, sparse_counters) = walk(Sparsity::All);
        assert_eq!(
            free_counters.flips, free_counters.steps,
            "a free walk takes every flip it draws"
        );
        assert!(sparse_counters.flips < sparse_counters.steps, "{sparse_counters:?}");
        assert!(2 * sparse < free, "sparse {sparse}, free {free}");
    }

    #[test]
    fn a_walk_from_naive_3x3x3_descends() {
        let s = Scheme::naive(Shape::square(3).unwrap());
        let mut w = Walker::new(&s, WalkConfig::default(), 1);
        w.walk(2_000_000, 23);
        assert!(w.best_rank() <= 25, "reached only {}", w.best_rank());
        assert_eq!(verify(&w.best()), Ok(()));
    }

    #[test]
    fn the_walk_stops_at_the_target() {
        let s = Scheme::naive(Shape::square(3).unwrap());
        let mut w = Walker::new(&s, WalkConfig::default(), 3);
        let taken = w.walk(10_000_000, 26);
        assert!(taken < 10_000_000);
        assert!(w.rank() <= 26);
    }

    #[test]
    fn reducible_start_schemes_are_reduced() {
        let shape = Shape::square(2).unwrap();
        let mut terms = Scheme::naive(shape).into_terms();
        let t = terms.pop().unwrap();
        // Split one term into two that share two factors: the walker must merge them back.
        terms.push(Term::new(t.a, t.b, t.c ^ 1));
        terms.push(Term::new(t.a, t.b, 1));
        let w = Walker::new(&Scheme::new(shape, terms).unwrap(), WalkConfig::default(), 0);
        assert_eq!(w.rank(), 8);
        w.check_invariants();
    }
}
