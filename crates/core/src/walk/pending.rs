//! The work list of the plain walks (over F2 and over ZT): terms whose factors a move changed,
//! each with the positions whose groups to check for reductions.

use alloc::vec::Vec;

use crate::term::Position;

/// A work-list mask naming all three positions.
pub(crate) const ALL_GROUPS: u8 = 0b111;

/// Term slots to check, with a bit mask of positions each (bit `p` for position `p`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Pending(Vec<(u32, u8)>);

impl Pending {
    /// Queues the groups of slot `t` at the positions of `mask`.
    #[inline]
    pub(crate) fn push(&mut self, t: u32, mask: u8) {
        self.0.push((t, mask));
    }

    /// The next slot and position to check, skipping slots that `is_live` says a reduction
    /// removed since they were queued; last queued, first checked.
    #[inline]
    pub(crate) fn next(&mut self, is_live: impl Fn(u32) -> bool) -> Option<(u32, Position)> {
        loop {
            let (t, mask) = self.0.pop()?;
            if mask == 0 || !is_live(t) {
                continue;
            }
            let pos = mask.trailing_zeros() as usize;
            let rest = mask & (mask - 1);
            if rest != 0 {
                self.0.push((t, rest));
            }
            return Some((t, Position::from_index(pos)));
        }
    }
}
