//! Partner hints: which of its slots a lane offers to a match (module docs of `walk`).

use super::*;

impl<S: FactorStore<Factor = F>, F: Word, const G: u8, P: Pairing> Warp<'_, S, G, P> {
    /// A random slot of this lane's, the same draw on every lane but a different slot. With
    /// few slots a lane draws among its live ones (a draw of an empty slot finds no partner);
    /// with more, mostly among those its hints at `pos` name.
    #[inline(always)]
    pub(super) fn own_slot(&self, r: u32, round: usize, pos: Position) -> usize {
        let mut h = r ^ self.lane.wrapping_mul(0x9e37_79b9) ^ (round as u32).wrapping_mul(0x85eb_ca6b);
        h ^= h >> 16;
        h = h.wrapping_mul(0x7feb_352d);
        h ^= h >> 15;
        let lane = self.lane as usize;
        let candidates = if self.k <= LIVE_DRAW_SLOTS {
            let mut live = 0u32;
            for j in 0..self.k {
                live |= ((self.factor(0, j * 32 + lane) != F::ZERO) as u32) << j;
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

    /// Whether this walk draws by its partner hints (Switch::Hints, and more slots per lane than
    /// a live draw takes; a group kernel draws none).
    #[inline(always)]
    pub(super) fn hinted(&self) -> bool {
        !P::GROUPS && self.p.policy.has(Switch::Hints) && self.k > LIVE_DRAW_SLOTS
    }

    /// This lane's partner hints at `pos`: bit `j` for the slot of row `j`.
    #[inline(always)]
    pub(super) fn hint(&self, pos: Position) -> u32 {
        // SAFETY: 3 * 32 words.
        unsafe { self.hints.read(pos.index() * 32 + self.lane as usize) as u32 }
    }

    /// Records whether this lane's `slot` has a partner at `pos` (its own lane's hints only,
    /// so no other lane reads the word: no synchronisation).
    #[inline(always)]
    pub(super) fn set_hint(&self, pos: Position, slot: usize, partnered: bool) {
        let bit = 1 << (slot / 32);
        let word = (self.hint(pos) & !bit) | if partnered { bit } else { 0 };
        // SAFETY: as in `hint`.
        unsafe { self.hints.write(pos.index() * 32 + self.lane as usize, word as u64) };
    }

    /// Hints that the factor of `slot` at `pos` is new (a flip changed it), so that the lane
    /// holding it offers it soon: it may have found a partner.
    #[inline(always)]
    pub(super) fn hint_new_factor(&self, pos: Position, slot: usize) {
        if slot % 32 == self.lane as usize {
            self.set_hint(pos, slot, true);
        }
    }
}
