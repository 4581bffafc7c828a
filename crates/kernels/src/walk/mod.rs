//! The walk kernels: one warp per scheme.
//!
//! The terms of a warp live in shared memory as three arrays of `cap` factors (A, B, C), as
//! 64-bit words (`walk`) or, for shapes whose factors have at most 32 bits, 32-bit words
//! (`walk32`: the same walk, with cheaper compares and half the shared memory), or for those
//! past 64 bits two 64-bit words (`walk128`: the same walk on `u128` factors, their 32-bit fold
//! matched; the walk is generic over the store's factor type, `warp::Word`); lane
//! `l` owns the slots `l, l + 32, l + 64, ...`. Shared memory rather than registers: a lane
//! would need `cap / 32` terms of three 64-bit factors in registers, indexed by a random slot,
//! which spills to local memory for every shape above 3x3x3, while shared memory is indexed
//! at no cost and lets every lane read the two flipped terms directly.
//!
//! A step: the warp agrees on a position (its random stream is warp-uniform); each lane reads
//! the factor at that position of a random slot of its own, and one match.any.sync finds the
//! lanes holding equal factors. Inside each group of equal factors the lanes pair up in lane
//! order, so one match yields disjoint flip pairs; the warp flips up to `flips` of them (a
//! sparse walker: of those it takes, all weighed at once), one after another, starting at a
//! random one (each pair is confirmed first: an earlier flip's reductions may have changed it;
//! a sparse walker's weighing is not redone then).
//!
//! Partner hints (Switch::Hints): a match sees only the 32 terms offered, and where a lane holds
//! many slots most factors of a scheme are unique (in the walk on 8x8x8, two in three), so
//! most matches find nothing. With hints a lane draws mostly among, per position, the slots
//! whose factor had a partner in the last match that offered it, or that a flip changed since
//! (a new factor may have one). A pair keeps its shared factor through its flips, so hints
//! stay good; a draw in four ignores them, to meet the partners no hint names. The price: a
//! new pair whose members are both unhinted meets only in those draws, so reductions are found
//! more slowly (docs/BENCHMARKS-ARCHIVE.md, "Partner hints (this session)").
//!
//! Reductions, two ways (Switch::Scan picks):
//! - By the walk (the default): a flip of two terms that share two factors zeroes one of
//!   them, which is their merge; generalized flips take the groups of 3 to 5 terms that a
//!   match samples, by subset XOR and a ballot (the preprint's method). A step then costs the
//!   same at any rank.
//! - By a scan: after each flip one pass over the terms finds a term sharing two factors with
//!   a flipped term (a merge, by a ballot) and sizes the four groups the flip changed (one
//!   warp sum, redux.sync); for a group of three, warp XORs of its factors say whether it can
//!   be dependent. Only a merge, a group of four or more or a group of three that may be
//!   dependent takes the slow path: merges, and generalized flips of groups of 3 to 5 by subset
//!   XOR or of larger groups (up to 32) by Gaussian elimination across the lanes.
//!
//! Symmetric walks (the kernels `walk_c3`, `walk_z2`, `walk_c6` and their 32-bit twins,
//! `Warp<_, G, _>` with `G` the index of core's `group::Group`: a constant, so that the plain
//! kernels carry none of it): the slots hold one representative per free orbit of a scheme
//! invariant under the group (core's `group` module; the other orbits stay on the host). A
//! representative stands for its images under every element, so each lane offers the factor
//! of an image of its own drawing (a rotation of its own where the group rotates, else at the
//! step's position; reversed or not where it reverses), and two lanes that match hold images
//! that share that factor: the orbit flip is core's flip on those images, which become the two
//! representatives. A flip that zeroes one is a merge, as in the plain walk; merges look for
//! two shared factors in every image; no move leaves a representative that a rotation fixes
//! (`X (x) X (x) X`: the fixed terms are frozen), and a representative that the reversal
//! fixes is cleared (its orbit is each term twice: zero over F2); a removed or added
//! representative is as many terms of rank as the group has elements.
//!
//! Each generalized flip folds as core's reference `generalized_flip_subsets` does (so
//! repeated folds reach the rank method's optimum). After a plateau of steps without a reduction, a plus move; the plateau's
//! limit is the walker's own, and under Switch::Adaptive it follows core's `plateau` rule.
//! Every move is a function of flipgraph-core; with Switch::Log each elementary move is logged for
//! replay on the host.

use flipgraph_core::device::{
    factor_index, group_memory_at, log, scheme_words, Switch, WalkPolicy, WarpState, NO_LOAD,
};
use flipgraph_core::group::{Element, Group};
use flipgraph_core::moves::{self, MAX_SUBSET_GROUP};
use flipgraph_core::plateau::{after_wait, grown};
use flipgraph_core::rng::WyRand;
use flipgraph_core::sparsity::{self, weight};
use flipgraph_core::{Position, Term};

use crate::global::{SchemeSlots, WarpGlobal};
use crate::shared::{FactorStore, Shared32};
use crate::warp::{self, ballot, lanes_above, lanes_below, match_any_u32, nth_set_bit, shuffle, Word};

mod flips;
mod groups;
mod hints;
mod plus;
mod reduce;
mod ternary;
pub(crate) use groups::{Grouped, Pairing, PositionCovers, Sampled, SinkCover};
pub(crate) use ternary::TernaryWarp;

/// Failed steps in a row after which the warp takes a plus move.
const FLIPLESS_AFTER: u32 = 8;
/// Lanes with at most this many slots draw among their live slots only.
const LIVE_DRAW_SLOTS: usize = 4;
/// Draws of an own slot that take the hints: those whose random bits hit this mask (3 in 4;
/// the others draw among all slots, to find the partners that no hint names).
const HINTED_DRAWS: u32 = 0b11;
/// Steps between two looks at the clock in a round by time.
const CLOCK_EVERY: u32 = 64;
/// Pending terms to check for reductions after one move.
const WORK: usize = 16;

/// The settings of a launch that the walk reads (core's `Launch`, less its buffers).
#[derive(Clone, Copy)]
pub(crate) struct Params {
    pub cap: usize,
    /// Slots each lane samples per step before the step gives up.
    pub match_rounds: usize,
    /// Most flips taken from the pairs of one match.
    pub flips: u32,
    pub target: u32,
    /// This walker's own policy (core's `WalkPolicy::for_walker`).
    pub policy: WalkPolicy,
    /// The adaptive plateau's floor.
    pub plateau_floor: u32,
}

/// One warp's walk; `G`: the index of its group (core's `Group::index`; 0, the trivial group,
/// for a plain walk; else a symmetric walk on orbit representatives).
#[derive(Clone, Copy)]
pub(crate) struct Warp<'g, S: FactorStore, const G: u8, P: Pairing> {
    lane: u32,
    /// Slots per lane.
    k: usize,
    smem: S,
    /// The partner hints (core's `HINT_BYTES`): 3 positions x 32 lanes of 32-bit words.
    hints: Shared32,
    /// Its state, schemes and move log in global memory.
    global: &'g WarpGlobal<S::Factor>,
    p: Params,
    st: Ranks,
    rng: WyRand,
    /// Steps in a row that found no flip partner.
    failed: u32,
    tally: Tally,
    /// What it keeps to find partners: nothing when it samples them; a group kernel's burst
    /// and group memory.
    pairing: P,
}

/// The part of [`WarpState`] that the walk changes: what it carries in registers (the rest,
/// counters and all, would hold registers through the whole launch).
#[derive(Clone, Copy)]
struct Ranks {
    rank: u32,
    best_rank: u32,
    since_reduction: u32,
    max_rank: u32,
    logged: u32,
    /// The plateau limit (core's `plateau` module adapts it under Switch::Adaptive).
    plateau: u32,
}

impl Ranks {
    /// The ranks of a warp's state as loaded.
    fn of(st: &WarpState) -> Ranks {
        Ranks {
            rank: st.rank,
            best_rank: st.best_rank,
            since_reduction: st.since_reduction,
            max_rank: st.max_rank,
            logged: st.logged,
            plateau: st.plateau,
        }
    }

    /// Writes the ranks and the launch's `tally` back into the state `st` (the counters reread
    /// from `global`: loaded at the start, they would hold 12 registers all launch).
    fn finish<F>(&self, st: &mut WarpState, tally: &Tally, global: &WarpGlobal<F>) {
        st.rank = self.rank;
        st.best_rank = self.best_rank;
        st.since_reduction = self.since_reduction;
        st.logged = self.logged;
        st.plateau = self.plateau;
        st.counters = global.counters();
        let c = &mut st.counters;
        c.steps += tally.steps as u64;
        c.flips += tally.flips as u64;
        c.plus += tally.plus as u64;
        c.vertices += (tally.flips + tally.plus) as u64;
        c.reductions += tally.reductions as u64;
        c.generalized += tally.generalized as u64;
    }

    /// A staged scheme of `rank` was loaded: it is the walker's best so far, with no steps
    /// since a reduction and nothing logged.
    #[inline(always)]
    fn loaded(&mut self, rank: u32) {
        self.rank = rank;
        self.best_rank = rank;
        self.since_reduction = 0;
        self.logged = 0;
    }

    /// After reductions took the rank below `before` (if they did): the plateau adapts (where
    /// `p` says so) and the count of steps since a reduction restarts. Returns whether the rank
    /// is a new best, which the caller saves.
    #[inline(always)]
    fn reduced_from(&mut self, before: u32, p: &Params) -> bool {
        if self.rank >= before {
            return false;
        }
        if p.policy.has(Switch::Adaptive) {
            self.plateau = after_wait(self.plateau, self.since_reduction, p.plateau_floor);
        }
        self.since_reduction = 0;
        let best = self.rank < self.best_rank;
        if best {
            self.best_rank = self.rank;
        }
        best
    }
}

/// Steps a walker `w` (`step`) up to `steps` times, until it reaches its target (`reached`) or
/// the round's time (`round_us`; 0: none) is up. A round by time: every warp stops at the same
/// moment, where a count of steps would let the warps whose steps cost more (more flips per
/// match, more reductions) hold the multiprocessor while the others have left it.
#[inline(always)]
fn walk_round<W>(w: &mut W, steps: u32, round_us: u32, reached: impl Fn(&W) -> bool, mut step: impl FnMut(&mut W)) {
    let deadline = (round_us != 0).then(|| warp::global_time_ns() + round_us as u64 * 1000);
    for i in 0..steps {
        if reached(w) {
            break;
        }
        if i % CLOCK_EVERY == 0 && deadline.is_some_and(|end| warp::global_time_ns() >= end) {
            break;
        }
        step(w);
    }
}

/// The lanes of a warp's pairs in the order a step flips them: from a random one of `keepers`
/// on, around the warp.
struct PairOrder {
    start: u32,
    rest: u32,
}

impl PairOrder {
    /// The order of `keepers`' pairs from the one that the random `r` picks.
    #[inline(always)]
    fn new(keepers: u32, r: u64) -> PairOrder {
        let start = nth_set_bit(keepers, ((r as u32 as u64 * keepers.count_ones() as u64) >> 32) as u32);
        PairOrder {
            start,
            rest: keepers.rotate_right(start),
        }
    }

    /// The next pair's lane, if any is left.
    #[inline(always)]
    fn next_lane(&mut self) -> Option<u32> {
        if self.rest == 0 {
            return None;
        }
        let lane = (self.rest.trailing_zeros() + self.start) & 31;
        self.rest &= self.rest - 1;
        Some(lane)
    }
}

/// The counts of one launch in 32-bit registers (a launch takes fewer than 2^32 steps), added
/// to the warp's 64-bit counters at its end.
#[derive(Clone, Copy, Default)]
struct Tally {
    steps: u32,
    flips: u32,
    plus: u32,
    reductions: u32,
    generalized: u32,
}

/// Terms to check for reductions (slot, mask of positions): its own value, apart from
/// [`Warp`], because it is indexed at run time and so lives in local memory, where it must
/// not drag the warp's registers.
pub(crate) struct Work {
    items: [(u16, u8); WORK],
    len: usize,
}

impl Work {
    fn push(&mut self, slot: usize, mask: u8) {
        if self.len < WORK {
            self.items[self.len] = (slot as u16, mask);
            self.len += 1;
        }
    }

    fn pop(&mut self) -> Option<(usize, u8)> {
        self.len = self.len.checked_sub(1)?;
        let (slot, mask) = self.items[self.len];
        Some((slot as usize, mask))
    }
}

/// What [`Warp::scan`] found.
struct Scan {
    merge: Option<usize>,
    sharing: [u32; 3],
}

/// All three positions, as a work mask.
const ALL: u8 = 0b111;

impl<S: FactorStore<Factor = F>, F: Word, const G: u8, P: Pairing> Warp<'_, S, G, P> {
    #[inline(always)]
    fn factor(&self, pos: usize, slot: usize) -> F {
        // SAFETY: slot < cap and pos < 3: inside this warp's shared arrays.
        unsafe { self.smem.read(factor_index(self.p.cap, pos, slot)) }
    }

    #[inline(always)]
    fn term(&self, slot: usize) -> Term<F> {
        Term::from_factors(self.factor(0, slot), self.factor(1, slot), self.factor(2, slot))
    }

    /// The group the walk keeps.
    const GROUP: Group = Group::from_index(G);
    /// Whether the walk is symmetric (moves orbits).
    const SYMMETRIC: bool = G != Group::Trivial.index();
    /// Terms of rank per slot: a free orbit's, as many as the group has elements.
    const UNIT: u32 = Self::GROUP.order() as u32;

    /// The term at `slot` seen from `at`, reversed if `reversed` (the image a lane of a
    /// symmetric walk offers).
    #[inline(always)]
    fn seen(&self, slot: usize, at: Position, reversed: bool) -> Term<F> {
        let t = self.term_from(slot, self.rotation(at));
        if Self::GROUP.reverses() && reversed {
            self.reversed_from(t, at)
        } else {
            t
        }
    }

    /// `t`, seen from `at`, reversed (each factor by the width of the position it came from).
    #[inline(always)]
    fn reversed_from(&self, t: Term<F>, at: Position) -> Term<F> {
        let r = self.global.reversal;
        Term::from_factors(r.factor(at, t.a), r.factor(at.next(), t.b), r.factor(at.prev(), t.c))
    }

    /// Whether the orbit of `t` (seen from `at`) cancels: the reversal fixes it, so the orbit
    /// is each of its terms twice.
    #[inline(always)]
    fn cancels(&self, t: Term<F>, at: Position) -> bool {
        Self::GROUP.reverses() && !t.is_zero() && self.reversed_from(t, at) == t
    }

    /// Whether a move may leave `t` as a representative: a rotation of the group would fix
    /// it (`X (x) X (x) X`, a fixed term, and those are frozen).
    #[inline(always)]
    fn refused(t: Term<F>) -> bool {
        Self::GROUP.rotates() && t.is_cube()
    }

    /// Where the factors of a term seen from `pos` (core's [`Term::rotated`]) start: computed
    /// once per move, so that reading a term rotated costs no selects by position.
    #[inline(always)]
    fn rotation(&self, pos: Position) -> [usize; 3] {
        [pos, pos.next(), pos.prev()].map(|at| factor_index(self.p.cap, at.index(), 0))
    }

    /// The term at `slot` seen from the position of `rotation`.
    #[inline(always)]
    fn term_from(&self, slot: usize, rotation: [usize; 3]) -> Term<F> {
        // SAFETY: slot < cap, and the rotation's offsets are those of the three arrays.
        let read = |at: usize| unsafe { self.smem.read(at + slot) };
        Term::from_factors(read(rotation[0]), read(rotation[1]), read(rotation[2]))
    }

    /// Writes a term (lane 0) and orders the write before the warp's next reads.
    #[inline(always)]
    fn put(&mut self, slot: usize, t: Term<F>) {
        self.pairing.changed(slot, self.lane);
        if self.lane == 0 {
            for (pos, f) in t.factors().into_iter().enumerate() {
                // SAFETY: as in `factor`.
                unsafe { self.smem.write(factor_index(self.p.cap, pos, slot), f) };
            }
        }
        warp::sync();
    }

    /// Writes two terms seen from the position of `rotation` with one warp synchronisation:
    /// a flip's.
    #[inline(always)]
    fn put2_from(&mut self, s: usize, x: Term<F>, t: usize, y: Term<F>, rotation: [usize; 3]) {
        self.pairing.flipped(s, self.lane);
        self.pairing.flipped(t, self.lane);
        if self.lane == 0 {
            for (i, at) in rotation.into_iter().enumerate() {
                // SAFETY: as in `term_from`.
                unsafe {
                    self.smem.write(at + s, x.factors()[i]);
                    self.smem.write(at + t, y.factors()[i]);
                }
            }
        }
        warp::sync();
    }

    /// Logs a move (Switch::Log); `pos` is the entry's position field (core's `log::pack`).
    fn log(&mut self, kind: u32, pos: u32, t: usize, u: usize, v: usize) {
        if !self.p.policy.has(Switch::Log) {
            return;
        }
        if self.lane == 0 {
            let entry = log::pack(kind, pos, t as u32, u as u32, v as u32);
            self.global.log(self.st.logged, entry);
        }
        self.st.logged += 1;
    }

    fn clear(&mut self, slot: usize) {
        self.put(slot, Term::default());
        self.log(log::CLEAR, 0, slot, 0, 0);
        self.st.rank -= Self::UNIT;
        self.tally.reductions += Self::UNIT;
    }

    /// One step: a match and the flips it offers, or a plus move.
    pub(super) fn step(&mut self, work: &mut Work) {
        self.tally.steps += 1;
        // A run of steps with no partner in the sample: likely a scheme without flips, which
        // only a plus move leaves (the host walk knows it exactly; the warp guesses).
        if self.plus_if_due(self.failed >= FLIPLESS_AFTER) {
            self.failed = 0;
            return;
        }
        let r = self.rng.bits();
        let pos = Position::from_index(((r as u32 as u64 * 3) >> 32) as usize);
        for round in 0..self.p.match_rounds.min(self.k) {
            // A symmetric walk's lanes each offer an image of their own drawing.
            let (at, reversed) = if Self::SYMMETRIC {
                lane_image(r as u32, self.lane, round, pos, Self::GROUP)
            } else {
                (pos, false)
            };
            let slot = self.own_slot((r >> 32) as u32, round, at);
            let key = if Self::GROUP.reverses() && reversed {
                self.global.reversal.factor(at, self.factor(at.index(), slot))
            } else {
                self.factor(at.index(), slot)
            };
            // A 32-bit fold of the factor: match.any.sync.b32 runs at twice the rate of .b64;
            // each pair is confirmed on the full factors before its flip.
            let same = match_any_u32(key.fold32());
            if self.hinted() {
                self.set_hint(at, slot, key != F::ZERO && same.count_ones() >= 2);
            }
            let before = (same & lanes_below()).count_ones();
            // The 1st and 2nd lanes of a group pair up, the 3rd and 4th, ...: disjoint pairs.
            let keeper = key != F::ZERO && before.is_multiple_of(2) && before + 1 < same.count_ones();
            if self.p.policy.has(Switch::Generalized) && !self.p.policy.has(Switch::Scan) {
                // Without the scan, generalized flips take the groups of 3 to 5 a match samples.
                let n = same.count_ones() as usize;
                let leaders = ballot(key != F::ZERO && before == 0 && (3..=MAX_SUBSET_GROUP).contains(&n));
                if leaders != 0 {
                    self.outlined(|w| w.reduce_sampled(leaders, same, slot, pos, work));
                }
            }
            let keepers = ballot(keeper);
            if keepers == 0 {
                continue;
            }
            // A keeper's partner is the next lane of its group; each with the image it
            // offered in a symmetric walk.
            let offer = if Self::SYMMETRIC {
                slot as u32 | (at as u32 | (reversed as u32) << 2) << SLOT_BITS
            } else {
                slot as u32
            };
            let partner = shuffle(offer, (same & lanes_above()).trailing_zeros() & 31);
            // Only a flip ends the run of failed steps (`flip` resets it): a match of two
            // folds that differ on the full factors (or of a factor with an empty slot) is no
            // partner, and a scheme whose keys collide so must still reach its plus move.
            self.failed += 1;
            self.flip_pairs(keepers, offer | partner << 16, pos, work);
            return;
        }
        self.failed += 1;
        self.st.since_reduction += 1;
    }

    /// Copies the shared terms to `dst` (global, the layout of flipgraph_core::device).
    fn save(&self, dst: SchemeSlots<F>) {
        for pos in 0..3 {
            for j in 0..self.k {
                let s = j * 32 + self.lane as usize;
                dst.set(pos, s, self.factor(pos, s));
            }
        }
    }

    /// Copies `src` into shared memory, with hints that every slot may have a partner (the
    /// first draws correct them); returns the number of live terms.
    fn fill(&self, src: SchemeSlots<F>) -> u32 {
        let every_row = u32::MAX >> (32 - self.k);
        for pos in 0..3 {
            // SAFETY: as in `hint`.
            unsafe { self.hints.write(pos * 32 + self.lane as usize, every_row as u64) };
        }
        let mut live = 0;
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            for pos in 0..3 {
                // SAFETY: slot s < cap, pos < 3: inside this warp's shared arrays.
                unsafe { self.smem.write(factor_index(self.p.cap, pos, s), src.get(pos, s)) };
            }
            live += ballot(self.factor(0, s) != F::ZERO).count_ones();
        }
        warp::sync();
        live
    }
}

impl<'g, S: FactorStore<Factor = F>, F: Word, const G: u8, P: Pairing> Warp<'g, S, G, P> {
    /// Walks one warp for a launch: loads its scheme (a staged one, or its own terms) into
    /// its shared memory at `warp_shared`, takes up to `steps` steps (stopping at the target
    /// or, when `round_us` is not zero, after that many microseconds), and writes its terms and
    /// state back.
    ///
    /// # Safety
    /// `warp_shared` points to this warp's `warp_shared_bytes(p.cap, S::BYTES, P::PARTNERS)`
    /// bytes of the block's shared memory.
    #[inline(always)]
    pub(crate) unsafe fn run(global: &'g WarpGlobal<F>, p: Params, warp_shared: *mut u8, steps: u32, round_us: u32) {
        let mut st = global.state();
        let words = scheme_words(p.cap);
        let mut w = Warp::<S, G, P> {
            lane: warp::lane_id(),
            k: p.cap / 32,
            // SAFETY: this warp's shared memory (the contract above): its factors, then its hints.
            smem: unsafe { S::new(warp_shared) },
            hints: unsafe { Shared32::new(warp_shared.add(words * S::BYTES)) },
            global,
            p,
            st: Ranks::of(&st),
            rng: WyRand::new(st.rng),
            failed: 0,
            tally: Tally::default(),
            // SAFETY: this warp's shared memory: after its factors and hints, a group kernel's
            // table and mates.
            pairing: unsafe { P::new(warp_shared.wrapping_add(group_memory_at(p.cap, S::BYTES)), p.cap) },
        };
        let mut work = Work {
            items: [(0, 0); WORK],
            len: 0,
        };
        match global.staged {
            Some(staged) => {
                let live = w.fill(staged);
                w.st.loaded(st.fixed + Self::UNIT * live);
                // The start is the walker's best so far: where equal fixed terms cancelled, its
                // rank is below the loaded scheme's, and the host reads this copy as an
                // improvement.
                w.save(global.best);
                st.load = NO_LOAD;
            }
            None => {
                w.fill(global.terms);
            }
        }
        walk_round(
            &mut w,
            steps,
            round_us,
            |w| w.st.rank <= w.p.target,
            |w| P::step(w, &mut work),
        );
        w.save(global.terms);
        st.rng = w.rng.state();
        w.st.finish(&mut st, &w.tally, global);
        global.set_state(st, w.lane);
    }
}

/// Bits of a slot number in an offer to a match; the offered position is above them.
const SLOT_BITS: u32 = 12;
const SLOT_MASK: u32 = (1 << SLOT_BITS) - 1;

/// The two offers of a `pair` (own offer, partner's offer << 16) in the direction that bit
/// `32 + lane` of `r` draws for the pair of `lane`.
#[inline(always)]
fn directed(pair: u32, r: u64, lane: u32) -> (u32, u32) {
    let (t, u) = (pair & 0xffff, pair >> 16);
    if (r >> (32 + lane)) & 1 != 0 {
        (u, t)
    } else {
        (t, u)
    }
}

/// The position of an offer (see [`Warp::flip_pairs`]).
#[inline(always)]
fn offered_position(offer: u32) -> Position {
    Position::from_index((offer >> SLOT_BITS) as usize & 3)
}

/// Whether an offer's image is reversed (see [`Warp::flip_pairs`]).
#[inline(always)]
fn offered_reversal(offer: u32) -> bool {
    (offer >> SLOT_BITS) & 4 != 0
}

/// One image that a lane of a symmetric walk offered: its slot, the position it was seen
/// from, and whether it was reversed.
#[derive(Clone, Copy)]
struct Image {
    slot: usize,
    at: Position,
    reversed: bool,
}

/// The image a lane of a symmetric walk offers in match round `round`, a draw of its own
/// from the step's random bits `r`: the position it is seen from (its own rotation where the
/// group rotates, else the step's `pos`) and whether it is reversed (where the group reverses).
#[inline(always)]
fn lane_image(r: u32, lane: u32, round: usize, pos: Position, group: Group) -> (Position, bool) {
    let mut h = r ^ lane.wrapping_mul(0x27d4_eb2f) ^ (round as u32).wrapping_mul(0x1656_67b1);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    let at = if group.rotates() {
        Position::from_index(((h as u64 * 3) >> 32) as usize)
    } else {
        pos
    };
    (at, group.reverses() && h & 1 != 0)
}
