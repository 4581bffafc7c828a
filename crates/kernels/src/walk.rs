//! The walk kernel: one warp per scheme.
//!
//! The terms of a warp live in shared memory as three arrays of `cap` factors (A, B, C); lane
//! `l` owns the slots `l, l + 32, l + 64, ...`. Shared memory rather than registers: a lane
//! would need `cap / 32` terms of three 64-bit factors in registers, indexed by a random slot,
//! which spills to local memory for every shape above 3x3x3, while shared memory is indexed
//! at no cost and lets every lane read the two flipped terms directly.
//!
//! A step: the warp agrees on a position (its random stream is warp-uniform); each lane reads
//! the factor at that position of a random slot of its own, and one match.any.sync finds the
//! lanes holding equal factors. A random lane with a partner and a random partner flip. Then the
//! changed terms are checked for reductions: merges (a ballot scan for a term sharing two
//! factors), and generalized flips of groups of 3 to 5 terms by subset XOR and a ballot (the
//! preprint's method) or of larger groups by Gaussian elimination (core's rank method). After a
//! plateau of `plateau` steps without a reduction, a plus move. Every move is a function of
//! flipgraph-core; with FLAG_LOG each elementary move is logged for replay on the host.

use core::arch::nvptx;

use flipgraph_core::device::{log, WarpState, FLAG_GENERALIZED, FLAG_LOG, FLAG_TRAP, NO_LOAD};
use flipgraph_core::moves::{self, fold_subset, generalized_flip_rank_traced, group_is_reducible, MAX_SUBSET_GROUP};
use flipgraph_core::rng::WyRand;
use flipgraph_core::{Position, Term};

use crate::warp::{self, ballot, match_any_u32, nth_set_bit, shuffle};

/// The largest group the kernel reduces by the rank method (a local array per lane).
const MAX_RANK_GROUP: usize = 16;
/// Failed steps in a row after which the warp takes a plus move.
const FLIPLESS_AFTER: u32 = 8;
/// Lanes with at most this many slots draw among their live slots only.
const LIVE_DRAW_SLOTS: usize = 4;
/// Pending terms to check for reductions after one move.
const WORK: usize = 16;

/// Launch parameters that are not pointers.
#[derive(Clone, Copy)]
struct Params {
    cap: usize,
    /// Slots each lane samples per step before the step gives up.
    rounds: usize,
    target: u32,
    plateau: u32,
    flags: u32,
    log_cap: u32,
}

/// One warp's walk.
struct Warp {
    lane: u32,
    /// Slots per lane.
    k: usize,
    smem: *mut u64,
    best: *mut u64,
    log: *mut u32,
    p: Params,
    st: WarpState,
    rng: WyRand,
    /// Steps in a row that found no flip partner.
    failed: u32,
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

impl Warp {
    #[inline(always)]
    fn factor(&self, pos: usize, slot: usize) -> u64 {
        // SAFETY: slot < cap and pos < 3: inside this warp's shared arrays.
        unsafe { *self.smem.add(pos * self.p.cap + slot) }
    }

    #[inline(always)]
    fn term(&self, slot: usize) -> Term {
        Term::new(self.factor(0, slot), self.factor(1, slot), self.factor(2, slot))
    }

    /// Writes a term (lane 0) and orders the write before the warp's next reads.
    #[inline(always)]
    fn put(&self, slot: usize, t: Term) {
        if self.lane == 0 {
            for (pos, f) in t.factors().into_iter().enumerate() {
                // SAFETY: as in `factor`.
                unsafe { *self.smem.add(pos * self.p.cap + slot) = f };
            }
        }
        warp::sync();
    }

    /// Writes two terms with one warp synchronisation.
    #[inline(always)]
    fn put2(&self, s: usize, x: Term, t: usize, y: Term) {
        if self.lane == 0 {
            for pos in 0..3 {
                // SAFETY: as in `factor`.
                unsafe {
                    *self.smem.add(pos * self.p.cap + s) = x.factors()[pos];
                    *self.smem.add(pos * self.p.cap + t) = y.factors()[pos];
                }
            }
        }
        warp::sync();
    }

    fn log(&mut self, kind: u32, pos: Position, t: usize, u: usize, v: usize) {
        if self.p.flags & FLAG_LOG == 0 {
            return;
        }
        if self.st.logged < self.p.log_cap && self.lane == 0 {
            let [x, y] = log::pack(kind, pos as u32, t as u32, u as u32, v as u32);
            // SAFETY: logged < log_cap entries of two words.
            unsafe {
                *self.log.add(2 * self.st.logged as usize) = x;
                *self.log.add(2 * self.st.logged as usize + 1) = y;
            }
        }
        self.st.logged += 1;
    }

    fn clear(&mut self, slot: usize) {
        self.put(slot, Term::default());
        self.log(log::CLEAR, Position::A, slot, 0, 0);
        self.st.rank -= 1;
        self.st.counters.reductions += 1;
    }

    /// A random slot of this lane's, the same draw on every lane but a different slot. With
    /// few slots a lane draws among its live ones (a draw of an empty slot finds no partner).
    #[inline(always)]
    fn own_slot(&self, r: u64, round: usize) -> usize {
        let mut h = (r as u32) ^ (r >> 32) as u32 ^ self.lane.wrapping_mul(0x9e37_79b9) ^ (round as u32).wrapping_mul(0x85eb_ca6b);
        h ^= h >> 16;
        h = h.wrapping_mul(0x7feb_352d);
        h ^= h >> 15;
        let lane = self.lane as usize;
        if self.k <= LIVE_DRAW_SLOTS {
            let mut live = 0u32;
            for j in 0..self.k {
                live |= ((self.factor(0, j * 32 + lane) != 0) as u32) << j;
            }
            if live != 0 {
                let n = ((h as u64 * live.count_ones() as u64) >> 32) as u32;
                return nth_set_bit(live, n) as usize * 32 + lane;
            }
        }
        let j = ((h as u64 * self.k as u64) >> 32) as usize;
        j * 32 + lane
    }

    /// One step; true when it reached a new scheme.
    fn step(&mut self, work: &mut Work) -> bool {
        self.st.counters.steps += 1;
        let plateau = self.p.plateau > 0 && self.st.since_reduction >= self.p.plateau;
        // A run of steps with no partner in the sample: likely a scheme without flips, which
        // only a plus move leaves (the host walk knows it exactly; the warp guesses).
        let flipless = self.failed >= FLIPLESS_AFTER;
        if (plateau || flipless) && self.st.rank < self.st.max_rank {
            self.failed = 0;
            return self.plus_move();
        }
        let pos = Position::from_index(self.rng.below(3));
        let r = self.rng.bits();
        for round in 0..self.p.rounds.min(self.k) {
            let slot = self.own_slot(r, round);
            let key = self.factor(pos.index(), slot);
            // A 32-bit fold of the factor: match.any.sync.b32 runs at twice the rate of .b64;
            // the chosen pair is confirmed on the full factor below.
            let same = match_any_u32(key as u32 ^ (key >> 32) as u32);
            let candidates = ballot(key != 0 && same.count_ones() > 1);
            if candidates == 0 {
                continue;
            }
            let leader = nth_set_bit(candidates, self.rng.below(candidates.count_ones() as usize) as u32);
            let partners = shuffle(same, leader) & !(1 << leader);
            let partner = nth_set_bit(partners, self.rng.below(partners.count_ones() as usize) as u32);
            let t = shuffle(slot as u32, leader) as usize;
            let u = shuffle(slot as u32, partner) as usize;
            if self.factor(pos.index(), t) != self.factor(pos.index(), u) {
                break;
            }
            self.failed = 0;
            self.flip(t, u, pos, work);
            return true;
        }
        self.failed += 1;
        self.st.since_reduction += 1;
        false
    }

    fn flip(&mut self, t: usize, u: usize, pos: Position, work: &mut Work) {
        let (mut x, mut y) = (self.term(t), self.term(u));
        moves::flip(&mut x, &mut y, pos);
        self.put2(t, x, u, y);
        self.log(log::FLIP, pos, t, u, 0);
        self.st.counters.flips += 1;
        self.st.counters.vertices += 1;
        self.st.since_reduction += 1;
        // The flipped group stays reduced; the terms' other groups may not.
        let others = ALL & !(1 << pos.index());
        work.push(t, others);
        work.push(u, others);
        self.reduce(work);
    }

    /// Takes every reduction the pending terms allow.
    fn reduce(&mut self, work: &mut Work) {
        let before = self.st.rank;
        while let Some((slot, mask)) = work.pop() {
            let x = self.term(slot);
            if x.a == 0 && x.b == 0 && x.c == 0 {
                continue;
            }
            if x.is_zero() {
                self.clear(slot);
                continue;
            }
            let scan = self.scan(slot, x);
            if let Some(other) = scan.merge {
                self.merge(slot, other, x, work);
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
            self.st.since_reduction = 0;
            if self.st.rank < self.st.best_rank {
                self.st.best_rank = self.st.rank;
                self.save(self.best);
            }
        }
    }

    /// One pass over the warp's terms against the term `x` at `slot`: a term sharing two
    /// factors with it (a merge), and how many others share each of its factors.
    fn scan(&self, slot: usize, x: Term) -> Scan {
        let mut out = Scan { merge: None, sharing: [0; 3] };
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

    fn merge(&mut self, slot: usize, other: usize, x: Term, work: &mut Work) {
        let merged = moves::merge(&x, &self.term(other)).unwrap_or_default();
        self.put(slot, merged);
        self.put(other, Term::default());
        self.log(log::MERGE, Position::A, slot, other, 0);
        self.st.rank -= 1;
        self.st.counters.reductions += 1;
        if merged.is_zero() {
            self.clear(slot);
        } else {
            work.push(slot, ALL);
        }
    }

    /// The slots (in slot order) of the terms whose factor at `pos` is `key`; their count.
    fn group(&self, pos: Position, key: u64, members: &mut [u16; MAX_RANK_GROUP]) -> usize {
        let mut n = 0;
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            let mut hit = ballot(self.factor(0, s) != 0 && self.factor(pos.index(), s) == key);
            while hit != 0 {
                if n < MAX_RANK_GROUP {
                    members[n] = (j * 32 + hit.trailing_zeros() as usize) as u16;
                }
                n += 1;
                hit &= hit - 1;
            }
        }
        n
    }

    /// Reduces the group of `slot` at `pos` while it is dependent.
    fn reduce_group(&mut self, slot: usize, pos: Position, work: &mut Work) {
        let mut members = [0u16; MAX_RANK_GROUP];
        loop {
            let key = self.factor(pos.index(), slot);
            let n = self.group(pos, key, &mut members);
            if !(3..=MAX_RANK_GROUP).contains(&n) {
                return;
            }
            let mut g = [Term::default(); MAX_RANK_GROUP];
            for i in 0..n {
                g[i] = self.term(members[i] as usize);
            }
            let folded = if n <= MAX_SUBSET_GROUP { self.subset_fold(&mut g[..n], &members, pos) } else { self.rank_fold(&mut g[..n], &members, pos) };
            if !folded {
                return;
            }
            self.st.counters.generalized += 1;
            for i in 0..n {
                let s = members[i] as usize;
                if g[i].is_zero() {
                    self.put(s, g[i]);
                    self.clear(s);
                } else if g[i] != self.term(s) {
                    self.put(s, g[i]);
                    work.push(s, ALL);
                }
            }
            if self.term(slot).a == 0 {
                return;
            }
        }
    }

    /// The preprint's method: lane `l` sums the factors of subset `l + 1` at Q and at R; a
    /// ballot finds a dependent subset, whose last term is folded into the others.
    fn subset_fold(&mut self, g: &mut [Term], members: &[u16; MAX_RANK_GROUP], pos: Position) -> bool {
        let n = g.len();
        let subset = self.lane + 1;
        let valid = subset < (1 << n);
        let (mut sq, mut sr) = (0u64, 0u64);
        for (i, t) in g.iter().enumerate() {
            if subset & (1 << i) != 0 {
                sq ^= t.get(pos.next());
                sr ^= t.get(pos.prev());
            }
        }
        let dep_q = ballot(valid && sq == 0);
        let dep_r = ballot(valid && sr == 0);
        let (along, hits) = if dep_q != 0 { (pos.next(), dep_q) } else { (pos.prev(), dep_r) };
        if hits == 0 {
            return false;
        }
        let subset = hits.trailing_zeros() + 1;
        let mut flips = [(0u8, 0u8); MAX_SUBSET_GROUP];
        let mut count = 0;
        fold_subset(g, pos, along, subset, |keep, other| {
            flips[count] = (keep as u8, other as u8);
            count += 1;
        });
        for &(keep, other) in &flips[..count] {
            self.log(log::FLIP, pos, members[keep as usize] as usize, members[other as usize] as usize, 0);
        }
        true
    }

    /// Core's rank method on a larger group, the same computation on every lane.
    fn rank_fold(&mut self, g: &mut [Term], members: &[u16; MAX_RANK_GROUP], pos: Position) -> bool {
        let mut pairs = [(0u8, 0u8); RANK_FLIPS];
        let Some(count) = rank_fold(g, pos, &mut pairs) else { return false };
        for &(keep, other) in &pairs[..count] {
            self.log(log::FLIP, pos, members[keep as usize] as usize, members[other as usize] as usize, 0);
        }
        true
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
    fn plus_move(&mut self) -> bool {
        let (Some(t), Some(u)) = (self.random_live_slot(), self.random_live_slot()) else { return false };
        let pos = Position::from_index(self.rng.below(3));
        let (x, y) = (self.term(t), self.term(u));
        let Some(v) = self.free_slot() else { return false };
        if t == u || x.get(pos) == y.get(pos) {
            return false;
        }
        let (changed, added) = moves::plus(&x, &y, pos);
        self.put(u, changed);
        self.put(v, added);
        self.log(log::PLUS, pos, t, u, v);
        self.st.rank += 1;
        self.st.counters.plus += 1;
        self.st.counters.vertices += 1;
        self.st.since_reduction = 0;
        true
    }

    /// Copies the shared terms to `dst` (global, the layout of flipgraph_core::device).
    fn save(&self, dst: *mut u64) {
        for pos in 0..3 {
            for j in 0..self.k {
                let s = j * 32 + self.lane as usize;
                // SAFETY: dst holds 3 * cap factors for this warp.
                unsafe { *dst.add(pos * self.p.cap + s) = self.factor(pos, s) };
            }
        }
    }

    /// Copies `src` into shared memory; returns the number of live terms.
    fn fill(&self, src: *const u64) -> u32 {
        let mut live = 0;
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            for pos in 0..3 {
                // SAFETY: src holds 3 * cap factors, smem this warp's arrays.
                unsafe { *self.smem.add(pos * self.p.cap + s) = *src.add(pos * self.p.cap + s) };
            }
            live += ballot(self.factor(0, s) != 0).count_ones();
        }
        warp::sync();
        live
    }
}

/// Flips of one rank-method fold kept for the move log.
const RANK_FLIPS: usize = 64;

/// Core's rank method, out of line: it is rare, and inlined its local arrays and loops would
/// raise the register count of the whole walk (fewer warps per SM). Returns the flips it made
/// (the first [`RANK_FLIPS`]), or None when the group is independent.
#[inline(never)]
fn rank_fold(g: &mut [Term], pos: Position, pairs: &mut [(u8, u8); RANK_FLIPS]) -> Option<usize> {
    if !group_is_reducible(g, pos) {
        return None;
    }
    let mut count = 0;
    generalized_flip_rank_traced(g, pos, |keep, other| {
        if count < RANK_FLIPS {
            pairs[count] = (keep as u8, other as u8);
            count += 1;
        }
    });
    Some(count)
}

/// The walk kernel. One warp per walker; `steps` steps each, stopping at rank `target`.
///
/// # Safety
/// Pointers as laid out by flipgraph_core::device for `warps` walkers of capacity `cap` (a
/// multiple of 32), `log` with `log_cap` entries of two words per warp, and dynamic shared
/// memory of `3 * cap * 8` bytes per warp of the block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn walk(
    terms: *mut u64,
    best: *mut u64,
    states: *mut WarpState,
    staging: *const u64,
    log: *mut u32,
    warps: u32,
    cap: u32,
    steps: u32,
    target: u32,
    plateau: u32,
    flags: u32,
    log_cap: u32,
    rounds: u32,
) {
    if flags & FLAG_TRAP != 0 {
        // SAFETY: aborts the launch; the host reports the fault.
        unsafe { core::arch::asm!("trap;") };
    }
    let tid = nvptx::_thread_idx_x() as usize;
    let warp_id = (nvptx::_block_idx_x() as usize * nvptx::_block_dim_x() as usize + tid) / 32;
    if warp_id >= warps as usize {
        return;
    }
    let cap_us = cap as usize;
    let shared: *mut u64 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u64>();
    let p = Params { cap: cap_us, rounds: rounds.max(1) as usize, target, plateau, flags, log_cap };
    // SAFETY: per the contract above.
    let st = unsafe { *states.add(warp_id) };
    let mine = unsafe { terms.add(warp_id * 3 * cap_us) };
    let mut w = Warp {
        lane: warp::lane_id(),
        k: cap_us / 32,
        smem: unsafe { shared.add((tid / 32) * 3 * cap_us) },
        best: unsafe { best.add(warp_id * 3 * cap_us) },
        log: unsafe { log.add(warp_id * 2 * log_cap as usize) },
        p,
        st,
        rng: WyRand::new(st.rng),
        failed: 0,
    };
    let mut work = Work { items: [(0, 0); WORK], len: 0 };
    if w.st.load != NO_LOAD {
        let live = w.fill(unsafe { staging.add(w.st.load as usize * 3 * cap_us) });
        w.st.rank = live;
        w.st.best_rank = live;
        w.st.since_reduction = 0;
        w.st.load = NO_LOAD;
        w.st.logged = 0;
    } else {
        w.fill(mine);
    }
    for _ in 0..steps {
        if w.st.rank <= w.p.target {
            break;
        }
        w.step(&mut work);
    }
    w.save(mine);
    w.st.rng = w.rng_state();
    if w.lane == 0 {
        unsafe { *states.add(warp_id) = w.st };
    }
}

impl Warp {
    fn rng_state(&self) -> u64 {
        self.rng.state()
    }
}
