//! The checked group kernels' checks (`walk32_groups_checked` and its twins, which the
//! self-test runs): each search against a pass, and each return to held groups against the
//! table's list and a pass. Out of line, so that the production kernels carry none of it.

use super::{Covers, Found, Grouped};
use crate::shared::FactorStore;
use crate::trap_unless;
use crate::walk::Warp;
use crate::warp::{ballot, Word};
use flipgraph_core::Position;

impl<S: FactorStore<Factor = F>, F: Word, const G: u8, C: Covers, const CHECKED: bool>
    Warp<'_, S, G, Grouped<C, CHECKED>>
{
    /// The checked kernels' search at `pos` of this lane's `rows` of a cover, checked against
    /// a pass there. Out of line, as it was while the production kernels carried it.
    #[inline(never)]
    pub(super) fn checked_search(&mut self, pos: Position, rows: u32) -> Found {
        // The rows held stay for the search, as in a production walk.
        let held = self.pairing.burst.mated;
        let pass = self.find_groups(pos);
        let expected = if pass.grouped != 0 {
            self.pairing.burst.mated
        } else {
            held
        };
        self.pairing.burst.mated = held;
        let found = self.search_cover(pos, rows);
        trap_unless(found.grouped == pass.grouped && ballot(self.pairing.burst.mated != expected) == 0);
        found
    }

    /// The checked kernels' check, where a burst starts with groups held, that the table's list
    /// still holds them: nothing writes the table from the list's writing at the held burst's
    /// start to the next burst's start, so a production walk that takes them again draws from
    /// this list. Here, before any search, so that every return is checked (a checked search's
    /// pass writes over the list).
    #[inline(never)]
    pub(super) fn check_listed(&mut self) {
        let mut listed = true;
        self.each_mated(|at, slot| listed &= self.pairing.memory.listed(at) == slot);
        trap_unless(ballot(!listed) == 0);
    }

    /// The checked kernels' check that the groups held at `pos` (`grouped` slots, this lane's rows
    /// of them in `mated`) stand where a walk takes them again: a pass at `pos` must find the
    /// same slots grouped; its mates and list replace those that checked searches may have
    /// rewritten.
    #[inline(never)]
    pub(super) fn check_held(&mut self, pos: Position, grouped: u32) {
        let mated = self.pairing.burst.mated;
        let pass = self.find_groups(pos);
        trap_unless(pass.grouped == grouped && ballot(self.pairing.burst.mated != mated) == 0);
        self.list_mated();
    }
}
