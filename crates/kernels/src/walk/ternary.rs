//! The walk over the ternary ring ZT (the kernel `walk_zt`; core's `device::ternary` says how
//! a term lies in the words): one warp per scheme, the plain walk's sampling step with the
//! ring's moves.
//!
//! A step, as over F2 ([`super`]): the warp agrees on a position, each lane offers the match
//! key of a random slot of its own (the normal factor: A and B words as stored, C's
//! normalized, since C carries the sign), one match.any.sync on the keys' 32-bit folds pairs
//! the lanes, and the warp flips up to `flips` of the pairs (each confirmed on the full keys).
//! A flip over ZT has two signs: the walk draws one and takes the other where the first would
//! make a coefficient ±2; a pair refused both ways is no move. A flip that zeroes a term is a
//! merge found by the walk; the survivor is then checked against every term for another merge
//! (two factors shared up to sign), as the F2 walk's reductions do. After a plateau of steps
//! without a reduction (adaptive under Switch::Adaptive), a plus move. Every move is core's
//! (`ternary::flip`, `merge`, `plus`), computed by every lane alike; lane 0 writes. There are
//! no generalized flips, hints, scans or symmetric walks over ZT: the kernel ignores those
//! switches.

use flipgraph_core::device::ternary::{match_key, term_words, ternary_field, words_term};
use flipgraph_core::device::{factor_index, log, scheme_words, Switch, NO_LOAD};
use flipgraph_core::plateau::grown;
use flipgraph_core::rng::WyRand;
use flipgraph_core::ternary::{self, TernaryTerm};
use flipgraph_core::Position;

use super::{directed, walk_round, PairOrder, Params, Ranks, Tally, FLIPLESS_AFTER};
use crate::global::{SchemeSlots, WarpGlobal};
use crate::shared::{FactorStore, Shared128};
use crate::warp::{self, ballot, lanes_above, lanes_below, match_any_u32, nth_set_bit, shuffle, Word};

/// One warp's walk over ZT.
#[derive(Clone, Copy)]
pub(crate) struct TernaryWarp<'g> {
    lane: u32,
    /// Slots per lane.
    k: usize,
    smem: Shared128,
    global: &'g WarpGlobal<u128>,
    p: Params,
    st: Ranks,
    rng: WyRand,
    /// Steps in a row that found no flip partner.
    failed: u32,
    tally: Tally,
}

impl TernaryWarp<'_> {
    #[inline(always)]
    fn word(&self, pos: Position, slot: usize) -> u128 {
        // SAFETY: slot < cap and pos < 3: inside this warp's shared arrays.
        unsafe { self.smem.read(factor_index(self.p.cap, pos.index(), slot)) }
    }

    #[inline(always)]
    fn term(&self, slot: usize) -> TernaryTerm {
        words_term(Position::ALL.map(|pos| self.word(pos, slot)))
    }

    /// The key a match compares at `pos`: the normal factor (0 for an empty slot).
    #[inline(always)]
    fn key(&self, pos: Position, slot: usize) -> u128 {
        match pos {
            Position::C => match_key(self.word(pos, slot)),
            _ => self.word(pos, slot),
        }
    }

    #[inline(always)]
    fn live(&self, slot: usize) -> bool {
        self.word(Position::A, slot) != 0
    }

    /// Writes a term (lane 0; a zero term empties the slot) and orders the write before the
    /// warp's next reads.
    #[inline(always)]
    fn put(&mut self, slot: usize, t: &TernaryTerm) {
        let words = match t.is_zero() {
            true => [0; 3],
            false => term_words(t),
        };
        if self.lane == 0 {
            for (pos, w) in words.into_iter().enumerate() {
                // SAFETY: as in `word`.
                unsafe { self.smem.write(factor_index(self.p.cap, pos, slot), w) };
            }
        }
        warp::sync();
    }

    /// Logs a move (Switch::Log).
    fn log(&mut self, kind: u32, field: u32, t: usize, u: usize, v: usize) {
        if !self.p.policy.has(Switch::Log) {
            return;
        }
        if self.lane == 0 {
            self.global
                .log(self.st.logged, log::pack(kind, field, t as u32, u as u32, v as u32));
        }
        self.st.logged += 1;
    }

    /// This lane's slot to offer in match round `round`: a random live one of its own.
    #[inline(always)]
    fn own_slot(&self, r: u32, round: usize) -> usize {
        let mut h = r ^ self.lane.wrapping_mul(0x9e37_79b9) ^ (round as u32).wrapping_mul(0x85eb_ca6b);
        h ^= h >> 16;
        h = h.wrapping_mul(0x7feb_352d);
        h ^= h >> 15;
        let lane = self.lane as usize;
        let mut live = 0u32;
        for j in 0..self.k {
            live |= (self.live(j * 32 + lane) as u32) << j;
        }
        let row = match live {
            0 => 0,
            _ => nth_set_bit(live, ((h as u64 * live.count_ones() as u64) >> 32) as u32),
        };
        row as usize * 32 + lane
    }

    /// One step: a match and the flips it offers, or a plus move.
    fn step(&mut self) {
        self.tally.steps += 1;
        // A run of steps with no partner: likely a scheme without flips, which only a plus
        // move leaves.
        if self.plus_if_due(self.failed >= FLIPLESS_AFTER) {
            self.failed = 0;
            return;
        }
        let r = self.rng.bits();
        let pos = Position::from_index(((r as u32 as u64 * 3) >> 32) as usize);
        for round in 0..self.p.match_rounds.min(self.k) {
            let slot = self.own_slot((r >> 32) as u32, round);
            let key = self.key(pos, slot);
            let same = match_any_u32(key.fold32());
            let before = (same & lanes_below()).count_ones();
            // The 1st and 2nd lanes of a group pair up, the 3rd and 4th, ...: disjoint pairs.
            let keepers = ballot(key != 0 && before.is_multiple_of(2) && before + 1 < same.count_ones());
            if keepers == 0 {
                continue;
            }
            let partner = shuffle(slot as u32, (same & lanes_above()).trailing_zeros() & 31);
            self.failed += 1;
            self.flip_pairs(keepers, slot as u32 | partner << 16, pos);
            return;
        }
        self.failed += 1;
        self.st.since_reduction += 1;
    }

    /// Flips up to `flips` of the pairs that the lanes in `keepers` hold (`pair`: own slot,
    /// partner's slot << 16), from a random one on, each in a random direction and sign.
    fn flip_pairs(&mut self, keepers: u32, pair: u32, pos: Position) {
        let r = self.rng.bits();
        let signs = self.rng.bits() as u32;
        let mut order = PairOrder::new(keepers, r);
        for taken in 0..self.p.flips {
            let Some(lane) = order.next_lane().filter(|_| self.st.rank > self.p.target) else {
                return;
            };
            // Each pair after the first is an attempt of its own.
            self.tally.steps += (taken > 0) as u32;
            let (t, u) = directed(shuffle(pair, lane), r, lane);
            let (t, u) = (t as usize, u as usize);
            // An earlier flip may have changed the pair, and folds may match different keys.
            let key = self.key(pos, t);
            if key != 0 && key == self.key(pos, u) {
                self.flip(t, u, pos, signs >> lane & 1 != 0);
            }
        }
    }

    /// Flips `t` and `u` at `pos` with the sign `minus`, or the other where that one is
    /// refused; a flip that zeroes a term is a reduction.
    fn flip(&mut self, t: usize, u: usize, pos: Position, minus: bool) {
        self.st.since_reduction += 1;
        let (mut x, mut y) = (self.term(t), self.term(u));
        let minus = if ternary::flip(&mut x, &mut y, pos, minus) {
            minus
        } else if ternary::flip(&mut x, &mut y, pos, !minus) {
            !minus
        } else {
            // Refused both ways: the pair was there, so no guess of a flipless scheme.
            self.failed = 0;
            return;
        };
        self.put(t, &x);
        self.put(u, &y);
        self.log(log::FLIP, ternary_field(pos, minus), t, u, 0);
        self.tally.flips += 1;
        self.failed = 0;
        if x.is_zero() || y.is_zero() {
            self.outlined(|w| w.reduce_flipped(t, x, u, y));
        }
    }

    /// Runs `slow` on a copy (as the F2 walk does): the slow path keeps no registers of the
    /// step's hot loop.
    #[inline(always)]
    fn outlined(&mut self, slow: impl FnOnce(&mut Self)) {
        let mut copy = *self;
        slow(&mut copy);
        *self = copy;
    }

    /// After a flip that zeroed `x` (at `t`) or `y` (at `u`): clears it, merges the survivor
    /// with every term it now shares two factors with, and records the reduction.
    #[inline(never)]
    fn reduce_flipped(&mut self, t: usize, x: TernaryTerm, u: usize, y: TernaryTerm) {
        let before = self.st.rank;
        for (slot, z) in [(t, x), (u, y)] {
            if z.is_zero() {
                self.clear(slot);
            }
        }
        for slot in [t, u] {
            while self.live(slot) && self.merge_one(slot) {}
        }
        if self.st.reduced_from(before, &self.p) {
            self.save(self.global.best);
        }
    }

    /// Merges the term at `slot` with the first other term that shares two of its factors (up
    /// to sign) and sums with it to a ternary term; returns whether it did.
    fn merge_one(&mut self, slot: usize) -> bool {
        let x = self.term(slot);
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            let shared = Position::ALL
                .iter()
                .filter(|&&pos| self.key(pos, s) == self.key(pos, slot))
                .count();
            // Only a merge the ring takes (no coefficient leaves {-1,0,1}) is a hit, so that a
            // refused one does not hide the next.
            let hits = ballot(s != slot && self.live(s) && shared >= 2 && ternary::merge(&x, &self.term(s)).is_some());
            if hits == 0 {
                continue;
            }
            let other = j * 32 + hits.trailing_zeros() as usize;
            let Some(merged) = ternary::merge(&x, &self.term(other)) else {
                return false;
            };
            self.put(slot, &merged);
            self.put(other, &TernaryTerm::default());
            self.log(log::MERGE, 0, slot, other, 0);
            self.st.rank -= 1;
            self.tally.reductions += 1;
            if merged.is_zero() {
                // The two cancelled.
                self.clear(slot);
            }
            return true;
        }
        false
    }

    fn clear(&mut self, slot: usize) {
        self.put(slot, &TernaryTerm::default());
        self.log(log::CLEAR, 0, slot, 0, 0);
        self.st.rank -= 1;
        self.tally.reductions += 1;
    }

    /// Takes a plus move when the plateau is over or the scheme is `flipless`, and the walker
    /// may still climb; returns whether it did.
    fn plus_if_due(&mut self, flipless: bool) -> bool {
        let plateau = self.st.plateau > 0 && self.st.since_reduction >= self.st.plateau;
        if !(plateau || flipless) || self.st.rank + 1 > self.st.max_rank {
            return false;
        }
        if plateau && self.p.policy.has(Switch::Adaptive) {
            self.st.plateau = grown(self.st.plateau);
        }
        self.outlined(TernaryWarp::plus_move);
        true
    }

    /// A random live slot, or None after a few empty draws.
    fn random_live_slot(&mut self) -> Option<usize> {
        for _ in 0..4 {
            let j = self.rng.below(self.k);
            let live = ballot(self.live(j * 32 + self.lane as usize));
            if live != 0 {
                return Some(j * 32 + nth_set_bit(live, self.rng.below(live.count_ones() as usize) as u32) as usize);
            }
        }
        None
    }

    fn free_slot(&self) -> Option<usize> {
        (0..self.k).find_map(|j| {
            let free = ballot(!self.live(j * 32 + self.lane as usize));
            (free != 0).then(|| j * 32 + free.trailing_zeros() as usize)
        })
    }

    /// A plus move between two random terms at a random position where their factors differ,
    /// with a random sign (the other where that one is refused).
    #[inline(never)]
    fn plus_move(&mut self) {
        let (Some(t), Some(u)) = (self.random_live_slot(), self.random_live_slot()) else {
            return;
        };
        let pos = Position::from_index(self.rng.below(3));
        let minus = self.rng.bits() & 1 != 0;
        let Some(v) = self.free_slot() else { return };
        let (x, y) = (self.term(t), self.term(u));
        if t == u || x.get(pos) == y.get(pos) {
            return;
        }
        let (minus, (changed, added)) = match ternary::plus(&x, &y, pos, minus) {
            Some(moved) => (minus, moved),
            None => match ternary::plus(&x, &y, pos, !minus) {
                Some(moved) => (!minus, moved),
                None => return,
            },
        };
        self.put(u, &changed);
        self.put(v, &added);
        self.log(log::PLUS, ternary_field(pos, minus), t, u, v);
        self.st.rank += 1;
        self.tally.plus += 1;
        self.st.since_reduction = 0;
    }

    /// Copies the shared terms to `dst` (global, the layout of flipgraph_core::device).
    fn save(&self, dst: SchemeSlots<u128>) {
        for pos in Position::ALL {
            for j in 0..self.k {
                let s = j * 32 + self.lane as usize;
                dst.set(pos.index(), s, self.word(pos, s));
            }
        }
    }

    /// Copies `src` into shared memory; returns the number of live terms.
    fn fill(&self, src: SchemeSlots<u128>) -> u32 {
        let mut live = 0;
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            for pos in 0..3 {
                // SAFETY: slot s < cap, pos < 3: inside this warp's shared arrays.
                unsafe { self.smem.write(factor_index(self.p.cap, pos, s), src.get(pos, s)) };
            }
            live += ballot(self.live(s)).count_ones();
        }
        warp::sync();
        live
    }
}

impl<'g> TernaryWarp<'g> {
    /// Walks one warp for a launch, as the F2 walk's `Warp::run` does: loads its scheme (a
    /// staged one, or its own terms), takes up to `steps` steps (stopping at the target or
    /// after `round_us` microseconds when not zero), and writes its terms and state back.
    ///
    /// # Safety
    /// `warp_shared` points to this warp's `warp_shared_bytes(p.cap, 16, Partners::Sample)`
    /// bytes of the block's shared memory.
    #[inline(always)]
    pub(crate) unsafe fn run(global: &'g WarpGlobal<u128>, p: Params, warp_shared: *mut u8, steps: u32, round_us: u32) {
        let mut st = global.state();
        let mut w = TernaryWarp {
            lane: warp::lane_id(),
            k: p.cap / 32,
            // SAFETY: this warp's shared memory (the contract above): its factors first.
            smem: unsafe { Shared128::new(warp_shared) },
            global,
            p,
            st: Ranks::of(&st),
            rng: WyRand::new(st.rng),
            failed: 0,
            tally: Tally::default(),
        };
        debug_assert!(scheme_words(p.cap) == 3 * p.cap);
        match global.staged {
            Some(staged) => {
                let rank = w.fill(staged);
                w.st.loaded(rank);
                w.save(global.best);
                st.load = NO_LOAD;
            }
            None => {
                w.fill(global.terms);
            }
        }
        walk_round(&mut w, steps, round_us, |w| w.st.rank <= w.p.target, Self::step);
        w.save(global.terms);
        st.rng = w.rng.state();
        w.st.finish(&mut st, &w.tally, global);
        global.set_state(st, w.lane);
    }
}
