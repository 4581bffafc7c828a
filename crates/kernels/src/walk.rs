//! The walk kernels: one warp per scheme.
//!
//! The terms of a warp live in shared memory as three arrays of `cap` factors (A, B, C), as
//! 64-bit words (`walk`) or, for shapes whose factors have at most 32 bits, 32-bit words
//! (`walk32`: the same walk, with cheaper compares and half the shared memory); lane
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
//! Partner hints (FLAG_HINTS): a match sees only the 32 terms offered, and where a lane holds
//! many slots most factors of a scheme are unique (in the walk on 8x8x8, two in three), so
//! most matches find nothing. With hints a lane draws mostly among, per position, the slots
//! whose factor had a partner in the last match that offered it, or that a flip changed since
//! (a new factor may have one). A pair keeps its shared factor through its flips, so hints
//! stay good; a draw in four ignores them, to meet the partners no hint names. The price: a
//! new pair whose members are both unhinted meets only in those draws, so reductions are found
//! more slowly (BENCHMARKS.md).
//!
//! Reductions, two ways (FLAG_SCAN picks):
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
//! limit is the walker's own, and with FLAG_ADAPTIVE it follows core's `plateau` rule.
//! Every move is a function of flipgraph-core; with FLAG_LOG each elementary move is logged for
//! replay on the host.

use flipgraph_core::device::{
    factor_index, group_memory_at, log, scheme_words, FLAG_ADAPTIVE, FLAG_GENERALIZED, FLAG_HINTS, FLAG_LOG, FLAG_SCAN,
    FLAG_SPARSE, NO_LOAD,
};
use flipgraph_core::group::{Element, Group};
use flipgraph_core::moves::{self, MAX_SUBSET_GROUP};
use flipgraph_core::plateau::{after_wait, grown};
use flipgraph_core::rng::WyRand;
use flipgraph_core::sparsity::{self, weight};
use flipgraph_core::{Position, Term};

use crate::global::{SchemeSlots, WarpGlobal};
use crate::shared::{FactorStore, Shared32};
use crate::warp::{self, ballot, lanes_above, lanes_below, match_any_u32, nth_set_bit, shuffle, shuffle_u64};

mod groups;
pub(crate) use groups::{Grouped, Pairing, PositionCovers, Sampled, SinkCover};

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
    pub flags: u32,
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
    global: &'g WarpGlobal,
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
    /// The plateau limit (core's `plateau` module adapts it under FLAG_ADAPTIVE).
    plateau: u32,
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
struct Work {
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

impl<S: FactorStore, const G: u8, P: Pairing> Warp<'_, S, G, P> {
    #[inline(always)]
    fn factor(&self, pos: usize, slot: usize) -> u64 {
        // SAFETY: slot < cap and pos < 3: inside this warp's shared arrays.
        unsafe { self.smem.read(factor_index(self.p.cap, pos, slot)) }
    }

    #[inline(always)]
    fn term(&self, slot: usize) -> Term {
        Term::new(self.factor(0, slot), self.factor(1, slot), self.factor(2, slot))
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
    fn seen(&self, slot: usize, at: Position, reversed: bool) -> Term {
        let t = self.term_from(slot, self.rotation(at));
        if Self::GROUP.reverses() && reversed {
            self.reversed_from(t, at)
        } else {
            t
        }
    }

    /// `t`, seen from `at`, reversed (each factor by the width of the position it came from).
    #[inline(always)]
    fn reversed_from(&self, t: Term, at: Position) -> Term {
        let r = self.global.reversal;
        Term::new(r.factor(at, t.a), r.factor(at.next(), t.b), r.factor(at.prev(), t.c))
    }

    /// Whether the orbit of `t` (seen from `at`) cancels: the reversal fixes it, so the orbit
    /// is each of its terms twice.
    #[inline(always)]
    fn cancels(&self, t: Term, at: Position) -> bool {
        Self::GROUP.reverses() && !t.is_zero() && self.reversed_from(t, at) == t
    }

    /// Whether a move may leave `t` as a representative: a rotation of the group would fix
    /// it (`X (x) X (x) X`, a fixed term, and those are frozen).
    #[inline(always)]
    fn refused(t: Term) -> bool {
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
    fn term_from(&self, slot: usize, rotation: [usize; 3]) -> Term {
        // SAFETY: slot < cap, and the rotation's offsets are those of the three arrays.
        let read = |at: usize| unsafe { self.smem.read(at + slot) };
        Term::new(read(rotation[0]), read(rotation[1]), read(rotation[2]))
    }

    /// Writes a term (lane 0) and orders the write before the warp's next reads.
    #[inline(always)]
    fn put(&mut self, slot: usize, t: Term) {
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
    fn put2_from(&mut self, s: usize, x: Term, t: usize, y: Term, rotation: [usize; 3]) {
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

    /// Logs a move (FLAG_LOG); `pos` is the entry's position field (core's `log::pack`).
    fn log(&mut self, kind: u32, pos: u32, t: usize, u: usize, v: usize) {
        if self.p.flags & FLAG_LOG == 0 {
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

    /// A random slot of this lane's, the same draw on every lane but a different slot. With
    /// few slots a lane draws among its live ones (a draw of an empty slot finds no partner);
    /// with more, mostly among those its hints at `pos` name.
    #[inline(always)]
    fn own_slot(&self, r: u32, round: usize, pos: Position) -> usize {
        let mut h = r ^ self.lane.wrapping_mul(0x9e37_79b9) ^ (round as u32).wrapping_mul(0x85eb_ca6b);
        h ^= h >> 16;
        h = h.wrapping_mul(0x7feb_352d);
        h ^= h >> 15;
        let lane = self.lane as usize;
        let candidates = if self.k <= LIVE_DRAW_SLOTS {
            let mut live = 0u32;
            for j in 0..self.k {
                live |= ((self.factor(0, j * 32 + lane) != 0) as u32) << j;
            }
            live
        } else if self.hinted() && h & HINTED_DRAWS != 0 {
            self.hint(pos)
        } else {
            0
        };
        let row = if candidates != 0 {
            nth_set_bit(candidates, ((h as u64 * candidates.count_ones() as u64) >> 32) as u32) as usize
        } else {
            ((h as u64 * self.k as u64) >> 32) as usize
        };
        row * 32 + lane
    }

    /// Whether this walk draws by its partner hints (FLAG_HINTS, and more slots per lane than
    /// a live draw takes; a group kernel draws none).
    #[inline(always)]
    fn hinted(&self) -> bool {
        !P::GROUPS && self.p.flags & FLAG_HINTS != 0 && self.k > LIVE_DRAW_SLOTS
    }

    /// This lane's partner hints at `pos`: bit `j` for the slot of row `j`.
    #[inline(always)]
    fn hint(&self, pos: Position) -> u32 {
        // SAFETY: 3 * 32 words.
        unsafe { self.hints.read(pos.index() * 32 + self.lane as usize) as u32 }
    }

    /// Records whether this lane's `slot` has a partner at `pos` (its own lane's hints only,
    /// so no other lane reads the word: no synchronisation).
    #[inline(always)]
    fn set_hint(&self, pos: Position, slot: usize, partnered: bool) {
        let bit = 1 << (slot / 32);
        let word = (self.hint(pos) & !bit) | if partnered { bit } else { 0 };
        // SAFETY: as in `hint`.
        unsafe { self.hints.write(pos.index() * 32 + self.lane as usize, word as u64) };
    }

    /// Hints that the factor of `slot` at `pos` is new (a flip changed it), so that the lane
    /// holding it offers it soon: it may have found a partner.
    #[inline(always)]
    fn hint_new_factor(&self, pos: Position, slot: usize) {
        if slot % 32 == self.lane as usize {
            self.set_hint(pos, slot, true);
        }
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
            let same = match_any_u32(fold32(key));
            if self.hinted() {
                self.set_hint(at, slot, key != 0 && same.count_ones() >= 2);
            }
            let before = (same & lanes_below()).count_ones();
            // The 1st and 2nd lanes of a group pair up, the 3rd and 4th, ...: disjoint pairs.
            let keeper = key != 0 && before.is_multiple_of(2) && before + 1 < same.count_ones();
            if self.p.flags & (FLAG_GENERALIZED | FLAG_SCAN) == FLAG_GENERALIZED {
                // Without the scan, generalized flips take the groups of 3 to 5 a match samples.
                let n = same.count_ones() as usize;
                let leaders = ballot(key != 0 && before == 0 && (3..=MAX_SUBSET_GROUP).contains(&n));
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

    /// Takes a plus move when the plateau is over or the scheme is `flipless`, and the walker
    /// may still climb; returns whether it did.
    #[inline(always)]
    fn plus_if_due(&mut self, flipless: bool) -> bool {
        let plateau = self.st.plateau > 0 && self.st.since_reduction >= self.st.plateau;
        if !(plateau || flipless) || self.st.rank + Self::UNIT > self.st.max_rank {
            return false;
        }
        self.outlined(|w| {
            if plateau && w.p.flags & FLAG_ADAPTIVE != 0 {
                w.st.plateau = grown(w.st.plateau);
            }
            w.plus_move()
        });
        true
    }

    /// Flips up to `flips` of the pairs that the lanes in `keepers` hold (`pair`: own offer,
    /// partner's offer << 16; an offer is a slot and, in a symmetric walk, above [`SLOT_BITS`],
    /// the position it offered), from a random one on, each in a random direction; a sparse
    /// walker's, of those it takes ([`Warp::weigh_pairs`]).
    fn flip_pairs(&mut self, keepers: u32, pair: u32, pos: Position, work: &mut Work) {
        let r = self.rng.bits();
        let weighed = !Self::SYMMETRIC && self.p.flags & FLAG_SPARSE != 0;
        let keepers = if weighed {
            self.weigh_pairs(keepers, pair, pos, r)
        } else {
            keepers
        };
        if keepers == 0 {
            return;
        }
        let start = nth_set_bit(keepers, ((r as u32 as u64 * keepers.count_ones() as u64) >> 32) as u32);
        let mut rest = keepers.rotate_right(start);
        for taken in 0..self.p.flips {
            if rest == 0 || self.st.rank <= self.p.target {
                return;
            }
            // Each pair after the first is an attempt of its own.
            self.tally.steps += (taken > 0) as u32;
            let lane = (rest.trailing_zeros() + start) & 31;
            rest &= rest - 1;
            let (t, u) = directed(shuffle(pair, lane), r, lane);
            let (at_t, at_u) = if Self::SYMMETRIC {
                (offered_position(t), offered_position(u))
            } else {
                (pos, pos)
            };
            let (rev_t, rev_u) = (offered_reversal(t), offered_reversal(u));
            let (t, u) = ((t & SLOT_MASK) as usize, (u & SLOT_MASK) as usize);
            if Self::SYMMETRIC {
                let image = |slot, at, reversed| Image { slot, at, reversed };
                self.orbit_flip(image(t, at_t, rev_t), image(u, at_u, rev_u), pos, work);
            } else {
                // An earlier flip's reductions may have changed or cleared the pair.
                let key = self.factor(pos.index(), t);
                if key != 0 && key == self.factor(pos.index(), u) {
                    // Weighed above if sparse: `flip` weighs nothing more.
                    self.flip(t, u, pos, work);
                }
            }
        }
    }

    /// The pairs of `keepers` that a sparse walker takes ([`sparsity::takes`]), each weighed
    /// at once by the lane that holds it, in the direction [`Warp::flip_pairs`] flips it:
    /// one after another, the pairs turned down cost a sparse walker most of its time. Each
    /// pair turned down counts as a step without a reduction, as it did when weighed alone.
    #[inline(always)]
    fn weigh_pairs(&mut self, keepers: u32, pair: u32, pos: Position, r: u64) -> u32 {
        // This lane's draw of a stream seeded from the warp's.
        let bits = WyRand::nth(self.rng.bits(), self.lane as u64);
        let mut partnered = false;
        let mut takes = false;
        if keepers & (1 << self.lane) != 0 {
            let (t, u) = directed(pair, r, self.lane);
            let rotation = self.rotation(pos);
            let x = self.term_from((t & SLOT_MASK) as usize, rotation);
            let y = self.term_from((u & SLOT_MASK) as usize, rotation);
            // A match of folds may pair two different factors: no partner.
            partnered = x.a != 0 && x.a == y.a;
            let (mut fx, mut fy) = (x, y);
            moves::flip(&mut fx, &mut fy, Position::A);
            takes = partnered && sparsity::takes(weight(&x) + weight(&y), weight(&fx) + weight(&fy), bits);
        }
        let (partnered, taken) = (ballot(partnered), ballot(takes));
        if partnered != 0 {
            // Turned down, not missed: the pairs were there, so no guess of a flipless scheme.
            self.failed = 0;
        }
        let turned_down = (partnered & !taken).count_ones();
        // `step` counted one step, and `flip_pairs` counts each flip after the first.
        self.tally.steps += turned_down.saturating_sub((taken == 0) as u32);
        self.st.since_reduction += turned_down;
        taken
    }

    /// Flips `t` and `u` at `pos`: core's flip at A on the terms seen from `pos`. A sparse
    /// walker of a group kernel takes it by [`sparsity::takes`]; a sampling kernel's weighed
    /// its pairs beforehand ([`Warp::weigh_pairs`]).
    fn flip(&mut self, t: usize, u: usize, pos: Position, work: &mut Work) {
        let rotation = self.rotation(pos);
        let (mut x, mut y) = (self.term_from(t, rotation), self.term_from(u, rotation));
        let before = weight(&x) + weight(&y);
        moves::flip(&mut x, &mut y, Position::A);
        if P::GROUPS
            && self.p.flags & FLAG_SPARSE != 0
            && !sparsity::takes(before, weight(&x) + weight(&y), self.rng.bits())
        {
            // Turned down, not missed: the pair was there, so no guess of a flipless scheme.
            self.failed = 0;
            self.st.since_reduction += 1;
            return;
        }
        self.put2_from(t, x, u, y, rotation);
        if self.hinted() {
            // core's flip: `t` changes at R, `u` at Q.
            self.hint_new_factor(pos.prev(), t);
            self.hint_new_factor(pos.next(), u);
        }
        self.log(log::FLIP, pos as u32, t, u, 0);
        self.tally.flips += 1;
        self.failed = 0;
        self.st.since_reduction += 1;
        if self.p.flags & FLAG_SCAN != 0 {
            self.settle(t, x, u, y, pos, rotation, work);
        } else if x.is_zero() || y.is_zero() {
            self.reduce_flipped(t, u, ALL & !(1 << pos.index()), work);
        }
    }

    /// After a flip that zeroed `t` or `u` (they shared two factors: a merge), takes the
    /// reductions of both, checking the positions in `mask`.
    #[inline(always)]
    fn reduce_flipped(&mut self, t: usize, u: usize, mask: u8, work: &mut Work) {
        let before = self.st.rank;
        work.push(t, mask);
        work.push(u, mask);
        self.outlined(|w| w.reduce(work, before));
    }

    /// The orbit flip of a symmetric walk: core's flip at A between the images of `t` and `u`
    /// that met, when they still share that factor (an earlier flip of the match may have
    /// changed them); the two results are the new representatives. Not taken when one would
    /// be `X (x) X (x) X` under a rotating group: it would settle to a fixed term, and the
    /// fixed terms are frozen. A result that the reversal fixes is cleared: its orbit cancels.
    fn orbit_flip(&mut self, t: Image, u: Image, pos: Position, work: &mut Work) {
        let (mut x, mut y) = (self.seen(t.slot, t.at, t.reversed), self.seen(u.slot, u.at, u.reversed));
        if x.a == 0 || x.a != y.a {
            return;
        }
        moves::flip(&mut x, &mut y, Position::A);
        self.st.since_reduction += 1;
        if Self::refused(x) || Self::refused(y) {
            return;
        }
        let before = self.st.rank;
        // A rotating group keeps the images as its representatives; under the reversal alone
        // they are stored seen from the step's position again (the positions' layouts differ).
        let back = if Self::GROUP.rotates() { Position::A } else { pos };
        self.put2_from(t.slot, x, u.slot, y, self.rotation(back));
        if self.hinted() {
            // Both representatives are seen anew: every factor may have moved.
            for at in Position::ALL {
                self.hint_new_factor(at, t.slot);
                self.hint_new_factor(at, u.slot);
            }
        }
        if Self::GROUP.rotates() {
            let reversals = t.reversed as usize | (u.reversed as usize) << 1;
            let rotations = log::orbit_rotations(t.at as u32, u.at as u32);
            self.log(log::ORBIT_FLIP, rotations, t.slot, u.slot, reversals);
        } else {
            for image in [t, u] {
                if image.reversed {
                    self.log(log::REVERSE, 0, image.slot, 0, 0);
                }
            }
            self.log(log::FLIP, pos as u32, t.slot, u.slot, 0);
        }
        self.tally.flips += 1;
        self.failed = 0;
        let mut reduce = x.is_zero() || y.is_zero();
        for (slot, z) in [(t.slot, x), (u.slot, y)] {
            if self.cancels(z, back) {
                self.clear(slot);
                reduce = true;
            }
        }
        if reduce {
            // The images differ: a merge partner may share any two factors.
            work.push(t.slot, ALL);
            work.push(u.slot, ALL);
            self.outlined(|w| w.reduce(work, before));
        }
    }

    /// Takes the reductions a flip of `t` and `u` (now `x` and `y`, seen from `pos`) at `pos`
    /// allows. One pass
    /// over the terms finds a term sharing two factors with `x` or `y` (a merge) and sizes the
    /// four groups the flip changed: `x`'s at Q (a member changed) and R (joined), `y`'s at Q
    /// (joined) and R (a member changed); the flipped group stays reduced (the flip is
    /// invertible on it). Only a merge, a zero term or a group of three or more takes the
    /// slow path.
    fn settle(&mut self, t: usize, x: Term, u: usize, y: Term, pos: Position, rotation: [usize; 3], work: &mut Work) {
        let before = self.st.rank;
        // Seen from `pos`: A is the flipped factor, B the one at Q, C the one at R. The four
        // groups, in this order: x's at Q (joined), x's at R (stayed), y's at Q (stayed), y's
        // at R (joined).
        let (shared, keys) = (x.a, [x.b, x.c, y.b, y.c]);
        let mut merge = false;
        // Per lane, one byte per group: how many of its terms are in it (at most k <= 16).
        let mut sizes = 0u32;
        // 32-bit slot numbers: the loop's compares and counters in one instruction each.
        let (t_slot, u_slot) = (t as u32, u as u32);
        for j in 0..self.k as u32 {
            // An empty slot (all zero) hits no key unless x or y has a zero factor, which takes
            // the slow path whatever the pass finds: no test for it here.
            let (z, other, hits) = self.group_hits(j, rotation, keys, t_slot, u_slot);
            // Two factors shared with x or y: the flipped one and one more, or both others.
            let two =
                (z.a == shared && (hits[0] | hits[1] | hits[2] | hits[3])) | (hits[0] & hits[1]) | (hits[2] & hits[3]);
            merge |= other && two;
            let packed = hits[0] as u32 | (hits[1] as u32) << 8 | (hits[2] as u32) << 16 | (hits[3] as u32) << 24;
            sizes += if other { packed } else { 0 };
        }
        let others = ALL & !(1 << pos.index());
        if ballot(merge) != 0 || x.is_zero() || y.is_zero() {
            work.push(t, others);
            work.push(u, others);
            self.outlined(|w| w.reduce(work, before));
            return;
        }
        if self.p.flags & FLAG_GENERALIZED == 0 {
            return;
        }
        // Bytes capped at 7 so that the warp's sum stays in its byte (32 * 7 < 256).
        let big = ((sizes + 0x7878_7878) & 0x8080_8080) >> 7;
        let capped = (sizes & !(big * 0xff)) | (big * 7);
        let totals = warp::sum(capped);
        if totals & 0xfefe_fefe == 0 {
            return;
        }
        // Groups of four or more go to the slow path; groups of three only when dependent.
        let mut check = 0u32;
        let mut threes = 0u32;
        for group in 0..4 {
            match (totals >> (8 * group)) & 0xff {
                0 | 1 => {}
                2 => threes |= 1 << group,
                _ => check |= 1 << group,
            }
        }
        if threes != 0 {
            check |= self.dependent_threes(t, x, u, y, rotation, threes);
        }
        if check != 0 {
            self.outlined(|w| w.reduce_groups(t, u, pos, check, work, before));
        }
    }

    /// This lane's term in row `j` of a pass after a flip (seen from the flip's position),
    /// whether it is another than the flipped `t_slot` and `u_slot`, and which of the four
    /// changed groups (`keys`: x's factors at Q and R, then y's) it is in.
    #[inline(always)]
    fn group_hits(
        &self,
        j: u32,
        rotation: [usize; 3],
        keys: [u64; 4],
        t_slot: u32,
        u_slot: u32,
    ) -> (Term, bool, [bool; 4]) {
        let s = j * 32 + self.lane;
        let z = self.term_from(s as usize, rotation);
        let other = s != t_slot && s != u_slot;
        (
            z,
            other,
            [z.b == keys[0], z.c == keys[1], z.b == keys[2], z.c == keys[3]],
        )
    }

    /// Which of the groups of three in `threes` (bits in the order of [`Warp::settle`]) may be
    /// dependent. A second pass over the terms (groups of three are rarer than flips) sums each
    /// group's factors, folded to 32 bits, at each position where a dependency can be new:
    /// both for a group that x or y joined, only the changed one for a group where it stayed
    /// (its other factors were there before the flip). A group of three is dependent exactly
    /// when such a sum is zero (two equal factors would be a merge, found before); a fold can
    /// only add false alarms, which the slow path's exact check clears.
    #[inline(always)]
    fn dependent_threes(&self, t: usize, x: Term, u: usize, y: Term, rotation: [usize; 3], threes: u32) -> u32 {
        let keys = [x.b, x.c, y.b, y.c];
        let (t_slot, u_slot) = (t as u32, u as u32);
        let mut sums = [0u32; 6];
        for j in 0..self.k as u32 {
            let (z, other, hits) = self.group_hits(j, rotation, keys, t_slot, u_slot);
            let member = hits.map(|hit| if other && hit { u32::MAX } else { 0 });
            let (za, zb, zc) = (fold32(z.a), fold32(z.b), fold32(z.c));
            sums[0] ^= za & member[0];
            sums[1] ^= zc & member[0];
            sums[2] ^= zb & member[1];
            sums[3] ^= za & member[2];
            sums[4] ^= zc & member[2];
            sums[5] ^= zb & member[3];
        }
        // The others' sum equal to x's or y's own factor: the three sum to zero.
        let own = [x.a, x.c, x.b, y.a, y.c, y.b].map(fold32);
        let mut dependent = 0;
        for ((sum, own), group) in sums.into_iter().zip(own).zip([0, 0, 1, 2, 2, 3]) {
            if threes & (1 << group) != 0 && warp::xor(sum) == own {
                dependent |= 1 << group;
            }
        }
        dependent
    }

    /// The slow path of [`Warp::settle`] for groups: reduces each of the four changed groups
    /// whose bit `check` sets (in the order of `settle`).
    #[inline(never)]
    fn reduce_groups(&mut self, t: usize, u: usize, pos: Position, check: u32, work: &mut Work, before: u32) {
        let (q, r) = (pos.next(), pos.prev());
        for (i, (slot, at)) in [(t, q), (t, r), (u, q), (u, r)].into_iter().enumerate() {
            if check & (1 << i) != 0 && self.factor(0, slot) != 0 {
                self.reduce_group(slot, at, work);
            }
        }
        self.reduce(work, before);
    }

    /// Runs a slow path on a copy of the warp: only the copy's address is taken, so the hot
    /// loop keeps its own warp in registers rather than in local memory.
    #[inline(always)]
    fn outlined(&mut self, slow: impl FnOnce(&mut Self)) {
        let mut copy = *self;
        slow(&mut copy);
        *self = copy;
    }

    /// Takes every reduction the pending terms allow; `before` is the rank before the move.
    #[inline(never)]
    fn reduce(&mut self, work: &mut Work, before: u32) {
        while let Some((slot, mask)) = work.pop() {
            let x = self.term(slot);
            if x.a == 0 && x.b == 0 && x.c == 0 {
                continue;
            }
            if x.is_zero() {
                self.clear(slot);
                continue;
            }
            if Self::SYMMETRIC {
                if let Some((other, image)) = self.orbit_merge_partner(slot, x) {
                    self.merge(slot, other, image, x, work);
                }
                continue;
            }
            let scan = self.scan(slot, x);
            if let Some(other) = scan.merge {
                self.merge(slot, other, Element::IDENTITY, x, work);
                continue;
            }
            if self.p.flags & FLAG_GENERALIZED != 0 {
                for pos in Position::ALL {
                    // Two others sharing the factor make a group of three to check.
                    if mask & (1 << pos.index()) != 0 && scan.sharing[pos.index()] >= 2 && self.term(slot).a != 0 {
                        self.reduce_group(slot, pos, work);
                    }
                }
            }
        }
        if self.st.rank < before {
            if self.p.flags & FLAG_ADAPTIVE != 0 {
                self.st.plateau = after_wait(self.st.plateau, self.st.since_reduction, self.p.plateau_floor);
            }
            self.st.since_reduction = 0;
            if self.st.rank < self.st.best_rank {
                self.st.best_rank = self.st.rank;
                self.save(self.global.best);
            }
        }
    }

    /// One pass over the warp's terms against the term `x` at `slot`: a term sharing two
    /// factors with it (a merge), and how many others share each of its factors.
    fn scan(&self, slot: usize, x: Term) -> Scan {
        let mut out = Scan {
            merge: None,
            sharing: [0; 3],
        };
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            let y = self.term(s);
            let other = y.a != 0 && s != slot;
            let eq = [y.a == x.a, y.b == x.b, y.c == x.c];
            let shared = eq[0] as u32 + eq[1] as u32 + eq[2] as u32;
            let hit = ballot(other && shared >= 2);
            if hit != 0 {
                out.merge = Some(j * 32 + hit.trailing_zeros() as usize);
                return out;
            }
            for (p, &e) in eq.iter().enumerate() {
                out.sharing[p] += ballot(other && e).count_ones();
            }
        }
        out
    }

    /// A representative that shares two factors with the representative `x` at `slot` in one
    /// of its images (a symmetric walk's merge), with the element of that image.
    fn orbit_merge_partner(&self, slot: usize, x: Term) -> Option<(usize, Element)> {
        let two = |y: Term| (y.a == x.a) as u32 + (y.b == x.b) as u32 + (y.c == x.c) as u32 >= 2;
        let rotations = if Self::GROUP.rotates() { 3 } else { 1 };
        let reversals = if Self::GROUP.reverses() { 2 } else { 1 };
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            let y = self.term(s);
            let other = y.a != 0 && s != slot;
            let mut found = None;
            for image in 0..rotations * reversals {
                let g = Element::new((image % rotations) as u8, image >= rotations);
                if found.is_none() && two(self.global.reversal.act(g, y)) {
                    found = Some(g);
                }
            }
            let hit = ballot(other && found.is_some());
            if hit != 0 {
                let lane = hit.trailing_zeros();
                let g = shuffle(found.map_or(0, Element::bits), lane);
                return Some((j * 32 + lane as usize, Element::from_bits(g)));
            }
        }
        None
    }

    /// Merges the term at `other`, seen through `g` (the identity but in a symmetric walk),
    /// into `x` at `slot`. A symmetric walk refuses a merge that leaves `X (x) X (x) X` under a
    /// rotating group, and clears one whose orbit cancels.
    fn merge(&mut self, slot: usize, other: usize, g: Element, x: Term, work: &mut Work) {
        let seen = if Self::SYMMETRIC {
            self.global.reversal.act(g, self.term(other))
        } else {
            self.term(other)
        };
        let merged = moves::merge(&x, &seen).unwrap_or_default();
        if Self::refused(merged) {
            return;
        }
        self.put(slot, merged);
        self.put(other, Term::default());
        self.log(log::MERGE, g.rotation as u32, slot, other, g.reversed as usize);
        self.st.rank -= Self::UNIT;
        self.tally.reductions += Self::UNIT;
        if merged.is_zero() || self.cancels(merged, Position::A) {
            self.clear(slot);
        } else {
            work.push(slot, ALL);
        }
    }

    /// The group of the terms whose factor at `pos` is `key`, spread over the lanes: lane `i`
    /// gets the slot of member `i` (in slot order) when `i` is below the count, returned too.
    fn members(&self, pos: Position, key: u64) -> (u32, usize) {
        let (mut n, mut mine) = (0, 0);
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            let hit = ballot(self.factor(0, s) != 0 && self.factor(pos.index(), s) == key);
            if (n..n + hit.count_ones()).contains(&self.lane) {
                mine = j * 32 + nth_set_bit(hit, self.lane - n) as usize;
            }
            n += hit.count_ones();
        }
        (n, mine)
    }

    /// Reduces the group of `slot` at `pos` while it is dependent. Lane `i` holds member `i`;
    /// a dependent subset is found by subset XOR and a ballot for groups of up to
    /// [`MAX_SUBSET_GROUP`] terms (the preprint's method), by elimination across the lanes for
    /// larger ones (up to 32), and folded: repeated folds reach the rank optimum, since a group
    /// whose factors at Q and at R are both independent cannot lose a term.
    fn reduce_group(&mut self, slot: usize, pos: Position, work: &mut Work) {
        loop {
            let key = self.factor(pos.index(), slot);
            if key == 0 {
                return;
            }
            let (n, mine) = self.members(pos, key);
            if !(3..=32).contains(&n) {
                return;
            }
            let own = if self.lane < n {
                self.term(mine)
            } else {
                Term::default()
            };
            let found = if n as usize <= MAX_SUBSET_GROUP {
                subset_dependency(own, n, pos)
            } else {
                eliminated_dependency(own, n, pos)
            };
            let Some((subset, along)) = found else { return };
            self.fold(subset, along, own, mine, pos, work);
            self.tally.generalized += 1;
        }
    }

    /// Folds the last member of the dependent `subset` into the others by flips (as core's
    /// reference `generalized_flip_subsets` does, one flip per lane at once), which zeroes it;
    /// each lane changes its own member.
    fn fold(&mut self, subset: u32, along: Position, own: Term, mine: usize, pos: Position, work: &mut Work) {
        let last = 31 - subset.leading_zeros();
        let folded = shuffle(mine as u32, last) as usize;
        let gone = self.term(folded);
        let keeper = self.lane != last && subset & (1 << self.lane) != 0;
        // Along Q: flip(keep = member, other = last); along R the dual. Either way the
        // member's copy `x` holds its new value.
        let (mut x, mut y) = (own, gone);
        if along == pos.next() {
            moves::flip(&mut x, &mut y, pos);
        } else {
            moves::flip(&mut y, &mut x, pos);
        }
        if keeper {
            for (p, f) in x.factors().into_iter().enumerate() {
                // SAFETY: as in `factor`; each lane writes its own member's slot.
                unsafe { self.smem.write(factor_index(self.p.cap, p, mine), f) };
            }
        }
        warp::sync();
        let mut rest = subset & !(1 << last);
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            let member = shuffle(mine as u32, i) as usize;
            self.pairing.changed(member, self.lane);
            let (keep, other) = if along == pos.next() {
                (member, folded)
            } else {
                (folded, member)
            };
            self.log(log::FLIP, pos as u32, keep, other, 0);
            work.push(member, ALL);
        }
        self.clear(folded);
        // A member left zero (it shared two factors with the folded one) goes too.
        let mut zero = ballot(keeper && x.is_zero());
        while zero != 0 {
            let i = zero.trailing_zeros();
            zero &= zero - 1;
            self.clear(shuffle(mine as u32, i) as usize);
        }
    }

    /// A generalized flip on the group of lanes that the lowest lane of `leaders` leads in a
    /// match (`same`: each lane's match mask, `slot`: its sampled slot), when dependent: the
    /// preprint's subset XOR on the members the match sampled, which the fold's reductions then
    /// settle. The match compared 32-bit folds: members are confirmed on the full factor.
    #[inline(never)]
    fn reduce_sampled(&mut self, leaders: u32, same: u32, slot: usize, pos: Position, work: &mut Work) {
        let before = self.st.rank;
        let leader = leaders.trailing_zeros();
        let key = self.factor(pos.index(), shuffle(slot as u32, leader) as usize);
        let members = ballot(same & (1 << leader) != 0 && self.factor(pos.index(), slot) == key);
        let n = members.count_ones();
        if n < 3 {
            return;
        }
        let mine = shuffle(slot as u32, nth_set_bit(members, self.lane.min(n - 1))) as usize;
        let own = if self.lane < n {
            self.term(mine)
        } else {
            Term::default()
        };
        let Some((subset, along)) = subset_dependency(own, n, pos) else {
            return;
        };
        self.fold(subset, along, own, mine, pos, work);
        self.tally.generalized += 1;
        self.reduce(work, before);
    }

    /// A random live slot, or None after a few empty draws.
    fn random_live_slot(&mut self) -> Option<usize> {
        for _ in 0..4 {
            let j = self.rng.below(self.k);
            let live = ballot(self.factor(0, j * 32 + self.lane as usize) != 0);
            if live != 0 {
                return Some(j * 32 + nth_set_bit(live, self.rng.below(live.count_ones() as usize) as u32) as usize);
            }
        }
        None
    }

    fn free_slot(&self) -> Option<usize> {
        (0..self.k).find_map(|j| {
            let free = ballot(self.factor(0, j * 32 + self.lane as usize) == 0);
            (free != 0).then(|| j * 32 + free.trailing_zeros() as usize)
        })
    }

    /// A plus move between two random terms at a position where they differ.
    #[inline(never)]
    fn plus_move(&mut self) {
        let (Some(t), Some(u)) = (self.random_live_slot(), self.random_live_slot()) else {
            return;
        };
        let pos = Position::from_index(self.rng.below(3));
        let (x, y) = (self.term(t), self.term(u));
        let Some(v) = self.free_slot() else { return };
        if t == u || x.get(pos) == y.get(pos) {
            return;
        }
        let (changed, added) = moves::plus(&x, &y, pos);
        if Self::SYMMETRIC
            && (Self::refused(changed)
                || Self::refused(added)
                || self.cancels(changed, Position::A)
                || self.cancels(added, Position::A))
        {
            // It would make a fixed term (a symmetric walk's are frozen) or an orbit that
            // cancels.
            return;
        }
        self.put(u, changed);
        self.put(v, added);
        if self.hinted() {
            // The plus made pairs: `t` and `v` share x's factor at `pos`, `u` and `v` their
            // other two. Near a record they may be the only pairs of the scheme.
            for (at, slot) in [
                (pos, t),
                (pos, v),
                (pos.next(), u),
                (pos.next(), v),
                (pos.prev(), u),
                (pos.prev(), v),
            ] {
                self.hint_new_factor(at, slot);
            }
        }
        self.log(log::PLUS, pos as u32, t, u, v);
        self.pairing.plussed(pos);
        self.st.rank += Self::UNIT;
        self.tally.plus += 1;
        self.st.since_reduction = 0;
    }

    /// Copies the shared terms to `dst` (global, the layout of flipgraph_core::device).
    fn save(&self, dst: SchemeSlots) {
        for pos in 0..3 {
            for j in 0..self.k {
                let s = j * 32 + self.lane as usize;
                dst.set(pos, s, self.factor(pos, s));
            }
        }
    }

    /// Copies `src` into shared memory, with hints that every slot may have a partner (the
    /// first draws correct them); returns the number of live terms.
    fn fill(&self, src: SchemeSlots) -> u32 {
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
            live += ballot(self.factor(0, s) != 0).count_ones();
        }
        warp::sync();
        live
    }
}

impl<'g, S: FactorStore, const G: u8, P: Pairing> Warp<'g, S, G, P> {
    /// Walks one warp for a launch: loads its scheme (a staged one, or its own terms) into
    /// its shared memory at `warp_shared`, takes up to `steps` steps (stopping at the target
    /// or, when `round_us` is not zero, after that many microseconds), and writes its terms and
    /// state back.
    ///
    /// # Safety
    /// `warp_shared` points to this warp's `warp_shared_bytes(p.cap, S::BYTES, P::PARTNERS)`
    /// bytes of the block's shared memory.
    #[inline(always)]
    pub(crate) unsafe fn run(global: &'g WarpGlobal, p: Params, warp_shared: *mut u8, steps: u32, round_us: u32) {
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
            st: Ranks {
                rank: st.rank,
                best_rank: st.best_rank,
                since_reduction: st.since_reduction,
                max_rank: st.max_rank,
                logged: st.logged,
                plateau: st.plateau,
            },
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
                w.st.rank = st.fixed + Self::UNIT * live;
                w.st.best_rank = w.st.rank;
                // The start is the walker's best so far: where equal fixed terms cancelled, its
                // rank is below the loaded scheme's, and the host reads this copy as an
                // improvement.
                w.save(global.best);
                w.st.since_reduction = 0;
                w.st.logged = 0;
                st.load = NO_LOAD;
            }
            None => {
                w.fill(global.terms);
            }
        }
        // A round by time: every warp stops at the same moment, where a count of steps would
        // let the warps whose steps cost more (more flips per match, more reductions) hold the
        // multiprocessor while the others have left it.
        let deadline = (round_us != 0).then(|| warp::global_time_ns() + round_us as u64 * 1000);
        for i in 0..steps {
            if w.st.rank <= w.p.target {
                break;
            }
            if i % CLOCK_EVERY == 0 && deadline.is_some_and(|end| warp::global_time_ns() >= end) {
                break;
            }
            P::step(&mut w, &mut work);
        }
        w.save(global.terms);
        st.rng = w.rng.state();
        st.rank = w.st.rank;
        st.best_rank = w.st.best_rank;
        st.since_reduction = w.st.since_reduction;
        st.logged = w.st.logged;
        st.plateau = w.st.plateau;
        // Reread here: loaded at the start, the counters would hold 12 registers all launch.
        st.counters = global.counters();
        let c = &mut st.counters;
        c.steps += w.tally.steps as u64;
        c.flips += w.tally.flips as u64;
        c.plus += w.tally.plus as u64;
        c.vertices += (w.tally.flips + w.tally.plus) as u64;
        c.reductions += w.tally.reductions as u64;
        c.generalized += w.tally.generalized as u64;
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

/// A factor folded to 32 bits: a match key, or a term of a sum, whose equality is only a hint
/// (checked on the full factors after). Linear over F2 (the folds of a group sum to the fold
/// of its sum, which [`Warp::dependent_threes`] relies on). The high half is rotated before
/// the XOR: a plain `low ^ high` folds every 8x8 factor whose lower four rows repeat its upper
/// four to zero, the key of an empty slot, and Kronecker products are full of them (in
/// Strassen x Kauers-Moosbauer, 8x8x8 r329, such terms matched only empty slots). A rotation
/// by an odd amount folds to zero only the factors whose halves are a rotation of each other.
/// Factors of at most 32 bits fold to themselves, exactly.
#[inline(always)]
fn fold32(factor: u64) -> u32 {
    factor as u32 ^ ((factor >> 32) as u32).rotate_left(FOLD_ROTATION)
}

/// The rotation of [`fold32`]'s high half.
const FOLD_ROTATION: u32 = 13;

/// A dependent subset of the group (lane `i` holds member `i` of `n` <= 5) by the preprint's
/// method: lane `l` sums the factors of subset `l + 1` at Q and at R, and a ballot finds the
/// smallest subset that sums to zero. Returns it (a mask over members) and its position.
fn subset_dependency(own: Term, n: u32, pos: Position) -> Option<(u32, Position)> {
    let subset = warp::lane_id() + 1;
    let valid = subset < (1 << n);
    let (q, r) = (pos.next(), pos.prev());
    let (mut sq, mut sr) = (0u64, 0u64);
    for i in 0..n {
        let (fq, fr) = (shuffle_u64(own.get(q), i), shuffle_u64(own.get(r), i));
        if subset & (1 << i) != 0 {
            sq ^= fq;
            sr ^= fr;
        }
    }
    let dep_q = ballot(valid && sq == 0);
    let dep_r = ballot(valid && sr == 0);
    match (dep_q, dep_r) {
        (0, 0) => None,
        (0, hits) => Some((hits.trailing_zeros() + 1, r)),
        (hits, _) => Some((hits.trailing_zeros() + 1, q)),
    }
}

/// A dependent subset of a larger group (lane `i` holds member `i` of `n` <= 32) by Gaussian
/// elimination across the lanes: member `i` in turn is broadcast; zero, it closes a dependent
/// subset (tracked as a mask); else the later members clear its leading bit.
fn eliminated_dependency(own: Term, n: u32, pos: Position) -> Option<(u32, Position)> {
    let lane = warp::lane_id();
    for along in [pos.next(), pos.prev()] {
        let mut v = if lane < n { own.get(along) } else { 0 };
        let mut mask = 1u32 << lane;
        for i in 0..n {
            let (vi, mi) = (shuffle_u64(v, i), shuffle(mask, i));
            if vi == 0 {
                return Some((mi, along));
            }
            if lane > i && (v >> (63 - vi.leading_zeros())) & 1 != 0 {
                v ^= vi;
                mask ^= mi;
            }
        }
    }
    None
}
