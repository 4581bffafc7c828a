//! Partners by groups (core's `device::Partners::Groups`, the kernels `walk_groups` and
//! `walk32_groups`): where most factors are unique, a match of 32 sampled slots seldom finds a
//! pair, so the warp finds every pair at one position exactly and flips among them for a burst.
//!
//! A burst starts with a pass that inserts every live slot's factor at the burst's position
//! into a hash table in shared memory (open addressing; lanes insert a row at a time, and a
//! write that lost a race to a lane of the same row is read back and resolved like any other
//! occupied entry). A slot whose factor is already there joins that group: it and the group's
//! first slot become each other's mates. A flip at a position keeps the factors at that position,
//! so the mates stay pairs for the whole burst, however the flips change the other factors;
//! only a reduction or a plus move ends it early. For the same reason a burst that ran out of
//! flips leaves its groups standing: when the next burst's start comes to that position (first,
//! or after looks at the others that found nothing, which a search does without touching the
//! mates), it flips among them again without a look, and its slots join the covers of the
//! other two positions again. Near a record, where a burst lasts about two flips, the looks
//! took about 40% of a walk's instructions (measured with ncu).
//!
//! Reductions: a flip of two mates that share a second factor zeroes one (a merge), as in the
//! sampling kernels; the pass that starts a burst also merges each slot with its mate when
//! they share one. A group's dependency at its position cannot change by flips at that
//! position (a flip adds one member's factor to another's, which keeps their span), so with
//! generalized flips the groups of three or more are checked once, when the burst finds them.
//!
//! Near a record (see [`cover`]): the walk keeps a few slots that every group holds one of,
//! and while they are few a burst's start searches the rows for their factors instead of a
//! pass. The burst after a plus move starts at its position: at the other two the plus move's
//! two terms share both other factors, and the merge that a burst there takes first would
//! undo it.

mod checked;
mod cover;

use flipgraph_core::device::{group_table_entries, Partners, Switch, MAX_BURST, NO_MATE};
use flipgraph_core::group::Element;
use flipgraph_core::{moves, Position};

pub(crate) use self::cover::{Covers, PositionCovers, SinkCover};
use super::{Warp, Work};
use crate::shared::{FactorStore, Shared16};
use crate::warp::Word;
use crate::warp::{self, ballot, lanes_below, shuffle};

/// What a warp keeps to find its flip partners, by the way it finds them (core's `Partners`):
/// a type, so that a sampling kernel carries no group state at all.
pub(crate) trait Pairing: Copy {
    /// The way, as core names it (it sizes the shared memory).
    const PARTNERS: Partners;
    /// Whether partners come from groups.
    const GROUPS: bool = matches!(Self::PARTNERS, Partners::Groups);

    /// The state of a warp whose group memory (if it has any) is at `ptr`.
    ///
    /// # Safety
    /// As for [`GroupMemory::new`].
    unsafe fn new(ptr: *mut u8, cap: usize) -> Self;

    /// One step of the warp's walk.
    fn step<S: FactorStore, const G: u8>(w: &mut Warp<'_, S, G, Self>, work: &mut Work);

    /// Notes that the term at `slot` changed other than by a flip; every lane calls it, with
    /// its own `lane`.
    #[inline(always)]
    fn changed(&mut self, _slot: usize, _lane: u32) {}

    /// Notes that the term at `slot` changed by a flip; as [`Pairing::changed`].
    #[inline(always)]
    fn flipped(&mut self, _slot: usize, _lane: u32) {}

    /// Notes that the walk took a plus move at `pos`.
    #[inline(always)]
    fn plussed(&mut self, _pos: Position) {}
}

/// Partners found by matches of sampled slots: nothing to keep.
#[derive(Clone, Copy)]
pub(crate) struct Sampled;

impl Pairing for Sampled {
    const PARTNERS: Partners = Partners::Sample;

    unsafe fn new(_: *mut u8, _: usize) -> Sampled {
        Sampled
    }

    #[inline(always)]
    fn step<S: FactorStore, const G: u8>(w: &mut Warp<'_, S, G, Sampled>, work: &mut Work) {
        w.step(work);
    }
}

/// Partners found by groups: the burst, where the groups are kept, and the covers of the
/// groups, kept as `C` keeps them. `CHECKED`: the self-test's kernels, which check each search
/// and each return to held groups against a pass and the list ([`Warp::checked_search`],
/// [`Warp::check_listed`], [`Warp::check_held`]); the production kernels carry none of that
/// code, whose mere presence, out of line, cost `walk32_groups` 3% at 4x4x4 r47
/// (docs/BENCHMARKS-ARCHIVE.md, "Sparse pairs weighed at once; checked twins for the self-test").
#[derive(Clone, Copy)]
pub(crate) struct Grouped<C: Covers, const CHECKED: bool> {
    burst: Burst,
    memory: GroupMemory,
    cover: C,
}

impl<C: Covers, const CHECKED: bool> Pairing for Grouped<C, CHECKED> {
    const PARTNERS: Partners = Partners::Groups;

    #[inline(always)]
    unsafe fn new(ptr: *mut u8, cap: usize) -> Grouped<C, CHECKED> {
        Grouped {
            burst: Burst::default(),
            // SAFETY: the caller's contract.
            memory: unsafe { GroupMemory::new(ptr, cap) },
            cover: C::default(),
        }
    }

    #[inline(always)]
    fn step<S: FactorStore, const G: u8>(w: &mut Warp<'_, S, G, Grouped<C, CHECKED>>, work: &mut Work) {
        w.group_step(work);
    }

    #[inline(always)]
    fn changed(&mut self, slot: usize, lane: u32) {
        self.cover.changed(self.memory, slot, lane);
    }

    #[inline(always)]
    fn flipped(&mut self, slot: usize, lane: u32) {
        self.cover.flipped(slot, lane);
    }

    #[inline(always)]
    fn plussed(&mut self, pos: Position) {
        self.burst.resume = AFTER_PLUS | pos.index() as u32;
    }
}

/// A mate's flag on a group's first slot: the group has three members or more.
const BIG: usize = 0x8000;
/// A mate's flag on a slot that shares a second factor with its mate: a merge.
const MERGE: usize = 0x4000;
/// A mate's flag on a group's first slot (left out of the cover that the group gives).
const FIRST: usize = 0x2000;
/// The flags of a mate word.
const FLAGS: usize = BIG | MERGE | FIRST;

/// A group kernel's burst: where it flips, how many flips it has left, and this lane's rows
/// whose slot has a mate there.
#[derive(Clone, Copy, Default)]
struct Burst {
    /// The position's index, and above it (`<< 2`) how many slots of the warp have a mate
    /// there: the burst's flips keep them, so a step draws among them without counting. In
    /// one word, to keep the warp's state small; measured, a field of its own walked as fast
    /// (within the 5% by which `walk32_groups` moves with unrelated changes;
    /// docs/BENCHMARKS-ARCHIVE.md, "Group kernels near records: >= 1G from all six starts").
    at: u32,
    left: u32,
    mated: u32,
    /// What the next burst's start knows: a position's index, flagged [`AFTER_PLUS`] (the
    /// plus move just taken was there) or [`HELD`] (the mates, `mated` and the table's list
    /// still hold its groups: a burst there ran out of flips, and no pass, reduction or plus
    /// move came since; in the self-test's walks a checked search's pass may have rewritten the
    /// mates and the list, which [`Warp::check_held`] mends); 0: nothing.
    resume: u32,
}

/// [`Burst::resume`]'s flag: a plus move was taken at its position.
const AFTER_PLUS: u32 = 4;
/// [`Burst::resume`]'s flag: the groups at its position are held.
const HELD: u32 = 8;

impl Burst {
    #[inline(always)]
    fn pos(self) -> Position {
        Position::from_index((self.at & 3) as usize)
    }

    #[inline(always)]
    fn grouped(self) -> u32 {
        self.at >> 2
    }

    /// The walk changed other than by the burst's flips (a reduction, a plus move, a pair
    /// found changed), or no slot is left to flip: the groups held no longer count.
    #[inline(always)]
    fn drop_held(&mut self) {
        self.resume &= !HELD;
    }
}

/// A warp's group table (during a pass, a slot plus one per entry, 0 empty; once a burst has
/// found its groups, by a pass or a search, the list of its mated slots) and its slots' mates
/// ([`NO_MATE`]: none), in shared memory; with [`PositionCovers`], its covers too.
#[derive(Clone, Copy)]
pub(crate) struct GroupMemory {
    table: Shared16,
    mates: Shared16,
    /// The table holds `1 << bits` entries.
    bits: u32,
}

impl GroupMemory {
    /// The group memory of walkers of `cap` slots at `ptr`.
    ///
    /// # Safety
    /// A group kernel's `ptr` points into this block's shared memory, at this warp's
    /// `group_table_entries(cap) + cap` 16-bit words; the other kernels never touch them.
    #[inline(always)]
    unsafe fn new(ptr: *mut u8, cap: usize) -> GroupMemory {
        let entries = group_table_entries(cap);
        // SAFETY: addresses only; per the contract above.
        unsafe {
            GroupMemory {
                table: Shared16::new(ptr),
                mates: Shared16::new(ptr.wrapping_add(2 * entries)),
                bits: entries.trailing_zeros(),
            }
        }
    }

    #[inline(always)]
    fn entry(self, at: u32) -> usize {
        // SAFETY: at < 1 << bits, inside the table.
        unsafe { self.table.read(at as usize) as usize }
    }

    #[inline(always)]
    fn set_entry(self, at: u32, value: usize) {
        // SAFETY: as in `entry`.
        unsafe { self.table.write(at as usize, value as u64) }
    }

    /// The `at`-th slot that the burst's list holds ([`Warp::list_mated`]).
    #[inline(always)]
    fn listed(self, at: u32) -> usize {
        self.entry(at)
    }

    /// The mate word of `slot` (< cap): a slot, perhaps flagged ([`FLAGS`]), or [`NO_MATE`].
    #[inline(always)]
    fn mate_word(self, slot: usize) -> usize {
        // SAFETY: slot < cap, inside the mates.
        unsafe { self.mates.read(slot) as usize }
    }

    #[inline(always)]
    fn set_mate(self, slot: usize, word: usize) {
        // SAFETY: as in `mate_word`.
        unsafe { self.mates.write(slot, word as u64) }
    }

    /// The first entry that `key` probes.
    #[inline(always)]
    fn home<F: Word>(self, key: F) -> u32 {
        key.fold32().wrapping_mul(0x9e37_79b1) >> (32 - self.bits)
    }
}

impl<S: FactorStore<Factor = F>, F: Word, const G: u8, C: Covers, const CHECKED: bool>
    Warp<'_, S, G, Grouped<C, CHECKED>>
{
    /// One step of a group kernel: a flip between two mates of the burst, or a plus move.
    fn group_step(&mut self, work: &mut Work) {
        self.tally.steps += 1;
        if self.pairing.burst.left == 0 {
            self.outlined(|w| w.start_burst(work));
        }
        // No burst: no position has a pair, and only a plus move leaves the scheme.
        if self.plus_if_due(self.pairing.burst.left == 0) {
            self.pairing.burst.left = 0;
            self.pairing.burst.drop_held();
            return;
        }
        if self.pairing.burst.left == 0 {
            self.pairing.burst.drop_held();
            self.st.since_reduction += 1;
            return;
        }
        self.pairing.burst.left -= 1;
        let grouped = self.pairing.burst.grouped();
        let r = self.rng.bits();
        let (low, high) = (r as u32, (r >> 32) as u32);
        let t = self.pairing.memory.listed(draw(low, grouped));
        let u = self.pairing.memory.mate_word(t) & !FLAGS;
        let pos = self.pairing.burst.pos();
        let key = self.factor(pos.index(), t);
        if u >= self.p.cap || key == F::ZERO || key != self.factor(pos.index(), u) {
            // Changed by a reduction since the burst began; a reduction ends a burst, so this
            // only guards the walk.
            self.pairing.burst.left = 0;
            self.pairing.burst.drop_held();
            self.st.since_reduction += 1;
            return;
        }
        let (t, u) = if high & 1 != 0 { (u, t) } else { (t, u) };
        let before = self.st.rank;
        self.flip(t, u, pos, work);
        if self.st.rank != before {
            self.pairing.burst.left = 0;
            self.pairing.burst.drop_held();
        }
    }

    /// Starts a burst at a position that has a pair (trying all three, from the last plus
    /// move's or a random one), with as many flips as slots have a mate there (at most
    /// [`MAX_BURST`]; half as many, measured, cost a third of the throughput for a descent no
    /// faster), after the reductions that its groups show; none if no position has a pair:
    /// then the walk is at a sink. At the position of held groups ([`HELD`]) it takes them
    /// without a look.
    fn start_burst(&mut self, work: &mut Work) {
        // After a plus move, at its position: at the other two its two changed terms share
        // both other factors, and the merge that a burst there takes first would undo it.
        let resume = self.pairing.burst.resume;
        self.pairing.burst.resume = 0;
        if CHECKED && resume & HELD != 0 {
            self.outlined(|w| w.check_listed());
        }
        let first = if resume & AFTER_PLUS != 0 {
            (resume & 3) as usize
        } else {
            self.rng.below(3)
        };
        // Where the last burst ran out of flips, its groups stand (its flips kept the factors
        // there), and they are taken again without a look, unless a pass, a reduction or a
        // plus move came first. Their slots stay in `mated` while searches elsewhere find
        // nothing.
        let mut held = if resume & HELD != 0 {
            Some((resume & 3) as usize)
        } else {
            None
        };
        self.pairing.burst.left = 0;
        // At the sink found last, unchanged (its plus move was refused): nothing to find. The
        // self-test's walks look again, to check that.
        if self.pairing.cover.at_unchanged_sink() && !CHECKED {
            self.pairing.burst.mated = 0;
            return;
        }
        self.pairing.cover.looking(self.k);
        // Positions looked at in a row with no reduction since: three make a sink. A reduction
        // may make a pair at a position looked at before it, which is then looked at again.
        let (mut at, mut clean) = (first as u32, 0);
        while clean < 3 {
            let pos = Position::from_index(at as usize);
            // The next position, without a remainder.
            at = if at == 2 { 0 } else { at + 1 };
            if held == Some(pos.index()) {
                let grouped = self.pairing.burst.grouped();
                if CHECKED {
                    self.outlined(|w| w.check_held(pos, grouped));
                }
                self.burst_at(pos, grouped);
                return;
            }
            let mut found = self.groups_at(pos);
            if found.passed {
                // A pass rewrites every mate.
                held = None;
            }
            if found.grouped != 0 && self.reduce_found(pos, found, work) {
                held = None;
                clean = 0;
                found = self.groups_at(pos);
            }
            if found.grouped != 0 {
                self.burst_at(pos, found.grouped);
                self.list_mated();
                return;
            }
            clean += 1;
        }
        self.pairing.burst.mated = 0;
        self.pairing.cover.sink();
    }

    /// Sets up a burst at `pos` among `grouped` slots with a mate there (this lane's rows of
    /// them in `mated`), whose groups the mates hold. Its flips change those slots at the other
    /// two positions, so they join the covers there; again when it takes held groups, for a
    /// search at another position since may have rewritten the cover there.
    #[inline(always)]
    fn burst_at(&mut self, pos: Position, grouped: u32) {
        let burst = &mut self.pairing.burst;
        burst.at = grouped << 2 | pos.index() as u32;
        burst.left = grouped.min(MAX_BURST);
        burst.resume = HELD | pos.index() as u32;
        let (memory, mated) = (self.pairing.memory, self.pairing.burst.mated);
        self.pairing.cover.bursting(memory, pos, self.lane, mated);
    }

    /// Lists the slots of this lane's `mated` rows, of all lanes, in the table, which only a
    /// pass uses (a pass of the walk drops the groups held; the self-test's passes are mended
    /// by [`Warp::check_held`]): a step draws its slot from the list.
    fn list_mated(&mut self) {
        self.each_mated(|at, slot| self.pairing.memory.set_entry(at, slot));
        warp::sync();
    }

    /// Calls `f` with the place in the list that [`Warp::list_mated`] writes and the slot, for
    /// each of this lane's mated slots.
    #[inline(always)]
    fn each_mated(&self, mut f: impl FnMut(u32, usize)) {
        let mated = self.pairing.burst.mated;
        let mut listed = 0;
        // Only the rows that hold a mated slot in some lane: near a record a burst has a few
        // pairs among many rows.
        let mut rows = warp::or(mated);
        while rows != 0 {
            let j = rows.trailing_zeros();
            rows &= rows - 1;
            let mine = mated & (1 << j) != 0;
            let row = ballot(mine);
            if mine {
                f(
                    listed + (row & lanes_below()).count_ones(),
                    (j * 32 + self.lane) as usize,
                );
            }
            listed += row.count_ones();
        }
    }

    /// The groups at `pos`, from a cover when a small one is known, else by a pass. The
    /// checked kernels (the self-test's) check each search against a pass, and trap where they
    /// differ; the search's result stands, so that held groups survive it as in a production
    /// walk (and are checked where a burst starts, [`Warp::check_listed`], and where they are
    /// taken, [`Warp::check_held`]).
    fn groups_at(&mut self, pos: Position) -> Found {
        let (memory, lane) = (self.pairing.memory, self.lane);
        let covering = self.pairing.cover.searchable(memory, pos, lane, self.k);
        let found = match covering {
            None => self.find_groups(pos),
            Some(rows) if !CHECKED => self.search_cover(pos, rows),
            Some(rows) => {
                let mut found = Found::default();
                self.outlined(|w| found = w.checked_search(pos, rows));
                found
            }
        };
        self.pairing.cover.found(memory, pos, lane, found.cover);
        found
    }

    /// Finds the groups at `pos` from a cover of them alone (this lane's rows of it,
    /// `covering`): for each covering slot, the rows holding its factor there. Each group's
    /// first slot is a covering one, mate of every other member; its own mate is the lowest
    /// other member. Sets the mates and this lane's mated rows as [`Warp::find_groups`] does,
    /// and returns the same, with the cover that the groups give.
    fn search_cover(&mut self, pos: Position, covering: u32) -> Found {
        let lane = self.lane as usize;
        let (q, r) = (pos.next().index(), pos.prev().index());
        let (mut mated, mut merges, mut big, mut cover) = (0u32, 0u32, 0u32, 0u32);
        let mut rest = covering;
        loop {
            let holders = ballot(rest != 0);
            if holders == 0 {
                break;
            }
            let holder = holders.trailing_zeros();
            let row = shuffle(rest.trailing_zeros(), holder);
            if self.lane == holder {
                rest &= rest - 1;
            }
            let first = row as usize * 32 + holder as usize;
            let key = self.factor(pos.index(), first);
            // A cleared slot, or one in the group of a covering slot searched before.
            if key == F::ZERO || shuffle(mated, holder) & (1 << row) != 0 {
                continue;
            }
            let mut members = 0u32;
            // 32-bit rows: the loop's counter and compares in one instruction each.
            for j in 0..self.k as u32 {
                members |= ((self.factor(pos.index(), (j * 32 + self.lane) as usize) == key) as u32) << j;
            }
            let others = members & !(((self.lane == holder) as u32) << row);
            let count = warp::sum(members.count_ones());
            if count < 2 {
                continue;
            }
            let (first_q, first_r) = (self.factor(q, first), self.factor(r, first));
            let mut rows = others;
            while rows != 0 {
                let j = rows.trailing_zeros() as usize;
                rows &= rows - 1;
                let s = j * 32 + lane;
                let merge = self.factor(q, s) == first_q || self.factor(r, s) == first_r;
                self.pairing.memory.set_mate(s, first | if merge { MERGE } else { 0 });
                merges |= (merge as u32) << j;
            }
            let lowest = ballot(others != 0).trailing_zeros();
            let partner = shuffle(others.trailing_zeros(), lowest) as usize * 32 + lowest as usize;
            if self.lane == holder {
                let flag = if count >= 3 { BIG } else { 0 };
                self.pairing.memory.set_mate(first, partner | flag | FIRST);
                big |= ((count >= 3) as u32) << row;
            }
            cover |= others;
            mated |= members;
        }
        warp::sync();
        self.groups_found(false, mated, merges, big, cover)
    }

    /// Finds the groups of equal factors at `pos`: sets every grouped slot's mate and this
    /// lane's mated rows; returns how many slots have a mate and this lane's flagged rows. The
    /// rows go in from a random one, so that each group's first slot, every other member's mate,
    /// varies from burst to burst.
    fn find_groups(&mut self, pos: Position) -> Found {
        let lane = self.lane as usize;
        let entries = 1u32 << self.pairing.memory.bits;
        let mut at = self.lane;
        while at < entries {
            self.pairing.memory.set_entry(at, 0);
            at += 32;
        }
        for j in 0..self.k as u32 {
            self.pairing
                .memory
                .set_mate((j * 32 + self.lane) as usize, NO_MATE as usize);
        }
        warp::sync();
        let first_row = self.rng.below(self.k);
        for i in 0..self.k {
            // (first_row + i) % k, without a division.
            let j = if first_row + i >= self.k {
                first_row + i - self.k
            } else {
                first_row + i
            };
            let s = j * 32 + lane;
            let key = self.factor(pos.index(), s);
            let mut at = self.pairing.memory.home(key);
            let mut pending = key != F::ZERO;
            while ballot(pending) != 0 {
                if pending && self.pairing.memory.entry(at) == 0 {
                    self.pairing.memory.set_entry(at, s + 1);
                }
                warp::sync();
                if pending {
                    let first = self.pairing.memory.entry(at);
                    if first == s + 1 {
                        pending = false;
                    } else if self.factor(pos.index(), first - 1) == key {
                        // A group of two has a mate at its first slot already: now three.
                        let big = if self.pairing.memory.mate_word(first - 1) == NO_MATE as usize {
                            0
                        } else {
                            BIG
                        };
                        let (q, r) = (pos.next().index(), pos.prev().index());
                        let merge = if self.factor(q, s) == self.factor(q, first - 1)
                            || self.factor(r, s) == self.factor(r, first - 1)
                        {
                            MERGE
                        } else {
                            0
                        };
                        self.pairing.memory.set_mate(s, (first - 1) | merge);
                        self.pairing.memory.set_mate(first - 1, s | big | FIRST);
                        pending = false;
                    } else {
                        at = (at + 1) & (entries - 1);
                    }
                }
                warp::sync();
            }
        }
        // One read of each mate word gives the burst's rows, the reductions' flags and the
        // cover: every grouped slot but each group's first.
        let (mut mated, mut merges, mut big, mut cover) = (0u32, 0u32, 0u32, 0u32);
        for j in 0..self.k as u32 {
            let word = self.pairing.memory.mate_word((j * 32 + self.lane) as usize);
            if word != NO_MATE as usize {
                mated |= 1 << j;
                merges |= ((word & MERGE != 0) as u32) << j;
                big |= ((word & BIG != 0) as u32) << j;
                cover |= ((word & FIRST == 0) as u32) << j;
            }
        }
        self.groups_found(true, mated, merges, big, cover)
    }

    /// What a pass or a search found, from this lane's rows: it keeps the `mated` ones for the
    /// burst, unless a search found nothing (then `mated` keeps what it held: the rows of the
    /// held groups, if any).
    #[inline(always)]
    fn groups_found(&mut self, passed: bool, mated: u32, merges: u32, big: u32, cover: u32) -> Found {
        let grouped = warp::sum(mated.count_ones());
        // A search that finds nothing leaves the rows of groups held elsewhere.
        if passed || grouped != 0 {
            self.pairing.burst.mated = mated;
        }
        Found {
            grouped,
            passed,
            merges,
            big,
            cover,
        }
    }

    /// Takes the reductions that the groups at `pos` show (`found`, from [`Warp::groups_at`]):
    /// the merges of a slot with its mate, and, with generalized flips, each group of three
    /// or more that is dependent. Returns whether the rank fell.
    fn reduce_found(&mut self, pos: Position, found: Found, work: &mut Work) -> bool {
        let before = self.st.rank;
        let (merges, mut big) = (found.merges, found.big);
        if !self.p.policy.has(Switch::Generalized) {
            big = 0;
        }
        let mut lanes = ballot(merges | big != 0);
        if lanes == 0 {
            // Nothing to reduce: no call of the slow path.
            return false;
        }
        while lanes != 0 {
            let holder = lanes.trailing_zeros();
            lanes &= lanes - 1;
            let (mut merging, mut rows) = (shuffle(merges, holder), shuffle(big, holder));
            while merging != 0 {
                let slot = merging.trailing_zeros() as usize * 32 + holder as usize;
                merging &= merging - 1;
                let mate = self.pairing.memory.mate_word(slot) & !FLAGS;
                // An earlier merge of this pass may have taken either.
                let (x, y) = (self.term(slot), self.term(mate));
                if x.a != F::ZERO && y.a != F::ZERO && moves::merge(&x, &y).is_some() {
                    self.merge(slot, mate, Element::IDENTITY, x, work);
                }
            }
            while rows != 0 {
                let slot = rows.trailing_zeros() as usize * 32 + holder as usize;
                rows &= rows - 1;
                self.reduce_group(slot, pos, work);
            }
        }
        self.reduce(work, before);
        self.st.rank != before
    }
}

/// What a pass of [`Warp::find_groups`] or a search of [`Warp::search_cover`] found: how many
/// slots of the warp have a mate, and this lane's rows whose slot merges with its mate or is
/// the first of a group of three or more, and this lane's rows of the cover that the groups
/// give.
#[derive(Clone, Copy, Default)]
struct Found {
    grouped: u32,
    /// Whether a pass found them, which rewrote every slot's mate (a search writes only the
    /// mates of the groups it finds). False after the self-test's checked search, whose pass
    /// rewrote them too, for the walk must go on as a production one would.
    passed: bool,
    merges: u32,
    big: u32,
    cover: u32,
}

/// A uniform draw below `n` (>= 1) from 32 random bits, by multiply-shift (0 when `n` is 0).
#[inline(always)]
fn draw(bits: u32, n: u32) -> u32 {
    ((bits as u64 * n as u64) >> 32) as u32
}
