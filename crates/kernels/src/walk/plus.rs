//! The plus move, and the slots it draws from and fills.

use super::*;

impl<S: FactorStore<Factor = F>, F: Word, const G: u8, P: Pairing> Warp<'_, S, G, P> {
    /// A random live slot, or None after a few empty draws.
    pub(super) fn random_live_slot(&mut self) -> Option<usize> {
        for _ in 0..4 {
            let j = self.rng.below(self.k);
            let live = ballot(self.factor(0, j * 32 + self.lane as usize) != F::ZERO);
            if live != 0 {
                return Some(j * 32 + nth_set_bit(live, self.rng.below(live.count_ones() as usize) as u32) as usize);
            }
        }
        None
    }

    pub(super) fn free_slot(&self) -> Option<usize> {
        (0..self.k).find_map(|j| {
            let free = ballot(self.factor(0, j * 32 + self.lane as usize) == F::ZERO);
            (free != 0).then(|| j * 32 + free.trailing_zeros() as usize)
        })
    }

    /// A plus move between two random terms at a position where they differ.
    #[inline(never)]
    pub(super) fn plus_move(&mut self) {
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
}
