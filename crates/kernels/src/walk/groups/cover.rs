//! Covers of a group kernel's groups: slots such that every group at a position holds one.
//! Near a record most schemes are *sinks*, where no position has a pair, and a walk passes
//! from one to the next by a plus move and a few flips. While a cover is small, a burst's
//! start finds the groups at a position by searching the rows once per covering slot
//! (`Warp::search_cover`), where a pass inserts every slot into the table.
//!
//! A slot whose factor at a position changes joins the cover there, which keeps it a cover:
//! a group whose members have all kept their factor lies inside a group of the cover's
//! making. Two ways to keep them, one per kernel (measured: each loses where the other wins;
//! docs/BENCHMARKS-ARCHIVE.md, "Group kernels near records: a cover per position in the
//! 64-bit kernel"):
//! - [`SinkCover`] (32-bit factors, few rows: 4x4x4, 5x5x5): one cover for all three
//!   positions, empty at a sink and forgotten once it grows too large to search, until the
//!   next sink. It costs one register.
//! - [`PositionCovers`] (64-bit factors, many rows: 6x6x6 to 8x8x8, where a pass is dear): one
//!   cover per position, rebuilt by each pass or search there, so that a walk far from a sink
//!   searches too. The covers live in the warp's hint words, which group kernels do not use.

use flipgraph_core::device::HINT_BYTES;
use flipgraph_core::Position;

use super::GroupMemory;
use crate::shared::{FactorStore, Shared32};
use crate::walk::ALL;
use crate::warp::{self, ballot};

/// How a group kernel keeps covers of its groups. Every lane calls each method with its own
/// `lane`; those that answer for the warp answer alike in every lane.
pub(crate) trait Covers: Copy + Default {
    /// `slot`'s term changed other than by a burst's flip.
    fn changed(&mut self, memory: GroupMemory, slot: usize, lane: u32);

    /// `slot`'s term changed by a burst's flip.
    fn flipped(&mut self, slot: usize, lane: u32);

    /// A burst is about to flip at `pos` among this lane's `mated` rows.
    fn bursting(&mut self, memory: GroupMemory, pos: Position, lane: u32, mated: u32);

    /// Whether the walk is at the sink found last, unchanged since (its plus move refused).
    fn at_unchanged_sink(self) -> bool;

    /// A burst's start, before it looks for groups, in a scheme of `k` rows per lane.
    fn looking(&mut self, k: usize);

    /// This lane's rows of a cover of the groups at `pos`, if one is known and small enough
    /// to search; `None`: a pass.
    fn searchable(&mut self, memory: GroupMemory, pos: Position, lane: u32, k: usize) -> Option<u32>;

    /// The groups at `pos` were found; this lane's rows of `cover` hold all members of each
    /// group but its first.
    fn found(&mut self, memory: GroupMemory, pos: Position, lane: u32, cover: u32);

    /// No position has a pair: every cover is empty.
    fn sink(&mut self);
}

/// Whether the groups at a position are found from a cover of `slots` slots (of `k` rows per
/// lane) rather than by a pass. Per warp, measured (ncu, from 4x4x4 r47 with k = 2 and
/// 8x8x8 r329 with k = 11): a covering slot's search about `120 + 7 k` instructions, a pass
/// about `160 + 180 k`; in one unit, `k + 16` and `24 k + 24`.
#[inline(always)]
fn search_pays(slots: u32, k: usize) -> bool {
    slots as usize * (k + 16) <= 24 * k + 24
}

/// One cover for all three positions, known from a sink on: this lane's rows in it, and
/// [`SinkCover::KNOWN`].
#[derive(Clone, Copy, Default)]
pub(crate) struct SinkCover(u32);

impl SinkCover {
    /// The bit of a walk that keeps a cover: from a sink on, until it grows too large to
    /// search (none at a launch's start, whose load is not checked).
    const KNOWN: u32 = 1 << 31;

    fn known(self) -> bool {
        self.0 & SinkCover::KNOWN != 0
    }

    fn rows(self) -> u32 {
        self.0 & !SinkCover::KNOWN
    }
}

impl Covers for SinkCover {
    #[inline(always)]
    fn changed(&mut self, _: GroupMemory, slot: usize, lane: u32) {
        self.flipped(slot, lane);
    }

    #[inline(always)]
    fn flipped(&mut self, slot: usize, lane: u32) {
        // Only a known cover is kept up: most walks far from a sink never have one.
        if self.known() && slot % 32 == lane as usize {
            self.0 |= 1 << (slot / 32);
        }
    }

    #[inline(always)]
    fn bursting(&mut self, _: GroupMemory, _: Position, _: u32, _: u32) {}

    #[inline(always)]
    fn at_unchanged_sink(self) -> bool {
        self.known() && ballot(self.rows() != 0) == 0
    }

    #[inline(always)]
    fn looking(&mut self, k: usize) {
        if !self.known() || !search_pays(warp::sum(self.rows().count_ones()), k) {
            // Too large to search (or none): forgotten until the next sink. So a burst's
            // start searches where the cover is known.
            *self = SinkCover::default();
        }
    }

    #[inline(always)]
    fn searchable(&mut self, _: GroupMemory, _: Position, _: u32, _: usize) -> Option<u32> {
        self.known().then_some(self.rows())
    }

    #[inline(always)]
    fn found(&mut self, _: GroupMemory, _: Position, _: u32, _: u32) {}

    #[inline(always)]
    fn sink(&mut self) {
        *self = SinkCover(SinkCover::KNOWN);
    }
}

/// One cover per position, in the warp's hint words ([`GroupMemory::cover_rows`]); this
/// register says which are known (bit `p` for position `p`; none at a launch's start, whose
/// load is not checked) and [`PositionCovers::UNCHANGED`].
///
/// A pass or a search at a position leaves all members of each group it found but its first
/// (one member per group would not do: a group of three that loses its covering member to a
/// flip is a pair outside the cover), a sink the empty cover at all three. A burst's flips
/// change only its mated slots, and only at the other two positions: those join the covers
/// there when it starts, rather than at each flip.
#[derive(Clone, Copy, Default)]
pub(crate) struct PositionCovers(u32);

impl PositionCovers {
    /// At the sink found last, nothing has changed since.
    const UNCHANGED: u32 = 1 << 3;
    /// A sink: every cover known, and empty.
    const SINK: PositionCovers = PositionCovers(ALL as u32 | PositionCovers::UNCHANGED);

    fn known(self, pos: Position) -> bool {
        self.0 & (1 << pos.index()) != 0
    }
}

impl Covers for PositionCovers {
    #[inline(always)]
    fn changed(&mut self, memory: GroupMemory, slot: usize, lane: u32) {
        self.0 &= !PositionCovers::UNCHANGED;
        if slot % 32 == lane as usize {
            memory.join_covers(ALL, lane, 1 << (slot / 32));
        }
    }

    #[inline(always)]
    fn flipped(&mut self, _: usize, _: u32) {}

    #[inline(always)]
    fn bursting(&mut self, memory: GroupMemory, pos: Position, lane: u32, mated: u32) {
        memory.join_covers(ALL & !(1 << pos.index()), lane, mated);
    }

    #[inline(always)]
    fn at_unchanged_sink(self) -> bool {
        self.0 == PositionCovers::SINK.0
    }

    #[inline(always)]
    fn looking(&mut self, _: usize) {}

    #[inline(always)]
    fn searchable(&mut self, memory: GroupMemory, pos: Position, lane: u32, k: usize) -> Option<u32> {
        let rows = memory.cover_rows(pos, lane);
        (self.known(pos) && search_pays(warp::sum(rows.count_ones()), k)).then_some(rows)
    }

    #[inline(always)]
    fn found(&mut self, memory: GroupMemory, pos: Position, lane: u32, cover: u32) {
        memory.set_cover_rows(pos, lane, cover);
        self.0 |= 1 << pos.index();
    }

    #[inline(always)]
    fn sink(&mut self) {
        *self = PositionCovers::SINK;
    }
}

impl GroupMemory {
    /// This lane's rows of the cover at `pos` ([`PositionCovers`]): bit `j` for row `j`. Each
    /// lane reads and writes only its own word, so no synchronisation.
    #[inline(always)]
    fn cover_rows(self, pos: Position, lane: u32) -> u32 {
        // SAFETY: the hint words (core's `HINT_BYTES`: 3 * 32 words) lie just before the table.
        unsafe {
            self.table
                .before::<Shared32>(HINT_BYTES)
                .read(pos.index() * 32 + lane as usize) as u32
        }
    }

    #[inline(always)]
    fn set_cover_rows(self, pos: Position, lane: u32, rows: u32) {
        // SAFETY: as in `cover_rows`.
        unsafe {
            self.table
                .before::<Shared32>(HINT_BYTES)
                .write(pos.index() * 32 + lane as usize, rows as u64)
        };
    }

    /// Adds this lane's `rows` to the covers at the positions of the mask `at`; unknown ones
    /// too, whose words are rewritten when they become known.
    #[inline(always)]
    fn join_covers(self, at: u8, lane: u32, rows: u32) {
        // By index, not over `Position::ALL`: LLVM kept that array in local memory.
        for i in 0..3 {
            if at & (1 << i) != 0 {
                let pos = Position::from_index(i);
                self.set_cover_rows(pos, lane, self.cover_rows(pos, lane) | rows);
            }
        }
    }
}
