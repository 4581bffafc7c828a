//! Flips: the pairs of a match, their weighing in a sparse walk, the flip itself (plain and
//! orbit), and the plus move a long plateau ends in.

use super::*;

impl<S: FactorStore<Factor = F>, F: Word, const G: u8, P: Pairing> Warp<'_, S, G, P> {
    /// Takes a plus move when the plateau is over or the scheme is `flipless`, and the walker
    /// may still climb; returns whether it did.
    #[inline(always)]
    pub(super) fn plus_if_due(&mut self, flipless: bool) -> bool {
        let plateau = self.st.plateau > 0 && self.st.since_reduction >= self.st.plateau;
        if !(plateau || flipless) || self.st.rank + Self::UNIT > self.st.max_rank {
            return false;
        }
        self.outlined(|w| {
            if plateau && w.p.policy.has(Switch::Adaptive) {
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
    pub(super) fn flip_pairs(&mut self, keepers: u32, pair: u32, pos: Position, work: &mut Work) {
        let r = self.rng.bits();
        let weighed = !Self::SYMMETRIC && self.p.policy.sparse();
        let keepers = if weighed {
            self.weigh_pairs(keepers, pair, pos, r)
        } else {
            keepers
        };
        if keepers == 0 {
            return;
        }
        let mut order = PairOrder::new(keepers, r);
        for taken in 0..self.p.flips {
            let Some(lane) = order.next_lane().filter(|_| self.st.rank > self.p.target) else {
                return;
            };
            // Each pair after the first is an attempt of its own.
            self.tally.steps += (taken > 0) as u32;
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
                if key != F::ZERO && key == self.factor(pos.index(), u) {
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
    pub(super) fn weigh_pairs(&mut self, keepers: u32, pair: u32, pos: Position, r: u64) -> u32 {
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
            partnered = x.a != F::ZERO && x.a == y.a;
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
    pub(super) fn flip(&mut self, t: usize, u: usize, pos: Position, work: &mut Work) {
        let rotation = self.rotation(pos);
        let (mut x, mut y) = (self.term_from(t, rotation), self.term_from(u, rotation));
        let before = weight(&x) + weight(&y);
        moves::flip(&mut x, &mut y, Position::A);
        if P::GROUPS && self.p.policy.sparse() && !sparsity::takes(before, weight(&x) + weight(&y), self.rng.bits()) {
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
        if self.p.policy.has(Switch::Scan) {
            self.settle(t, x, u, y, pos, rotation, work);
        } else if x.is_zero() || y.is_zero() {
            self.reduce_flipped(t, u, ALL & !(1 << pos.index()), work);
        }
    }

    /// After a flip that zeroed `t` or `u` (they shared two factors: a merge), takes the
    /// reductions of both, checking the positions in `mask`.
    #[inline(always)]
    pub(super) fn reduce_flipped(&mut self, t: usize, u: usize, mask: u8, work: &mut Work) {
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
    pub(super) fn orbit_flip(&mut self, t: Image, u: Image, pos: Position, work: &mut Work) {
        let (mut x, mut y) = (self.seen(t.slot, t.at, t.reversed), self.seen(u.slot, u.at, u.reversed));
        if x.a == F::ZERO || x.a != y.a {
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
    #[allow(
        clippy::too_many_arguments,
        reason = "the two flipped terms, their images and the work list, all of the hot path"
    )]
    pub(super) fn settle(
        &mut self,
        t: usize,
        x: Term<F>,
        u: usize,
        y: Term<F>,
        pos: Position,
        rotation: [usize; 3],
        work: &mut Work,
    ) {
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
        if !self.p.policy.has(Switch::Generalized) {
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
}
