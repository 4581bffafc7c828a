//! The warp instructions the walk needs, as safe wrappers. Every function here must be called
//! by all 32 lanes of the warp together (the full mask): the walk keeps its control flow
//! warp-uniform around them.
//!
//! core::arch::nvptx has no warp intrinsics, so these declare LLVM's NVVM intrinsics, which
//! LLVM marks convergent (inline asm would not be). Reads of special registers use inline PTX.

/// All 32 lanes.
pub const FULL: u32 = u32::MAX;

#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.match.any.sync.i64"]
    fn match_any_sync_i64(mask: u32, value: u64) -> u32;
    #[link_name = "llvm.nvvm.match.any.sync.i32"]
    fn match_any_sync_i32(mask: u32, value: u32) -> u32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn vote_ballot_sync(mask: u32, pred: bool) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn shfl_sync_idx_i32(mask: u32, value: u32, lane: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.add"]
    fn redux_sync_add(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.or"]
    fn redux_sync_or(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.xor"]
    fn redux_sync_xor(value: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
}

/// This thread's lane, 0..32.
#[inline(always)]
pub fn lane_id() -> u32 {
    let lane: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {}, %laneid;", out(reg32) lane) };
    lane
}

/// The lanes below this one (`%lanemask_lt`).
#[inline(always)]
pub fn lanes_below() -> u32 {
    let mask: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {}, %lanemask_lt;", out(reg32) mask) };
    mask
}

/// The lanes above this one (`%lanemask_gt`).
#[inline(always)]
pub fn lanes_above() -> u32 {
    let mask: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {}, %lanemask_gt;", out(reg32) mask) };
    mask
}

/// The GPU's global nanosecond clock (`%globaltimer`), as lane 0 read it: the same value on
/// every lane, so that a decision on it keeps the warp together.
#[inline(always)]
pub fn global_time_ns() -> u64 {
    let ns: u64;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u64 {}, %globaltimer;", out(reg64) ns) };
    shuffle_u64(ns, 0)
}

/// The lanes currently executing.
#[inline(always)]
pub fn active_mask() -> u32 {
    let mask: u32;
    // SAFETY: reads the active mask.
    unsafe { core::arch::asm!("activemask.b32 {};", out(reg32) mask) };
    mask
}

/// The lanes whose `value` equals this lane's (match.any.sync.b64).
#[inline(always)]
pub fn match_any(value: u64) -> u32 {
    // SAFETY: called by the full warp.
    unsafe { match_any_sync_i64(FULL, value) }
}

/// The lanes whose `value` equals this lane's (match.any.sync.b32: twice the rate of .b64).
#[inline(always)]
pub fn match_any_u32(value: u32) -> u32 {
    // SAFETY: called by the full warp.
    unsafe { match_any_sync_i32(FULL, value) }
}

/// The lanes whose `pred` holds (vote.sync.ballot.b32).
#[inline(always)]
pub fn ballot(pred: bool) -> u32 {
    // SAFETY: called by the full warp.
    unsafe { vote_ballot_sync(FULL, pred) }
}

/// The sum of `value` over the warp (redux.sync.add: one instruction where a ballot per
/// counted predicate would take several).
#[inline(always)]
pub fn sum(value: u32) -> u32 {
    // SAFETY: called by the full warp.
    unsafe { redux_sync_add(value, FULL) }
}

/// The OR of `value` over the warp (redux.sync.or).
#[inline(always)]
pub fn or(value: u32) -> u32 {
    // SAFETY: called by the full warp.
    unsafe { redux_sync_or(value, FULL) }
}

/// The XOR of `value` over the warp (redux.sync.xor).
#[inline(always)]
pub fn xor(value: u32) -> u32 {
    // SAFETY: called by the full warp.
    unsafe { redux_sync_xor(value, FULL) }
}

/// `value` of lane `src` (shfl.sync.idx.b32).
#[inline(always)]
pub fn shuffle(value: u32, src: u32) -> u32 {
    // SAFETY: called by the full warp.
    unsafe { shfl_sync_idx_i32(FULL, value, src, 0x1f) }
}

/// `value` of lane `src`, 64 bits (two shuffles).
#[inline(always)]
pub fn shuffle_u64(value: u64, src: u32) -> u64 {
    shuffle(value as u32, src) as u64 | (shuffle((value >> 32) as u32, src) as u64) << 32
}

/// Orders the shared-memory writes of the warp's lanes before its later reads.
#[inline(always)]
pub fn sync() {
    // SAFETY: called by the full warp.
    unsafe { bar_warp_sync(FULL) }
}

/// The index of the `n`-th set bit of `mask` (n < popcount), by a binary search on bit
/// counts: a fixed 5 rounds, where clearing bits one by one would run the warp as many times
/// as its slowest lane needs.
#[inline(always)]
pub fn nth_set_bit(mask: u32, mut n: u32) -> u32 {
    let mut at = 0;
    // Five calls rather than a loop over an array, which LLVM left as an array in local memory.
    let mut halve = |width: u32| {
        let count = ((mask >> at) & ((1u32 << width) - 1)).count_ones();
        if n >= count {
            n -= count;
            at += width;
        }
    };
    halve(16);
    halve(8);
    halve(4);
    halve(2);
    halve(1);
    at
}

/// A factor as the warp instructions move it: `u64` or `u128`, folded to 32 bits for a match
/// (a hint, confirmed on the full factors) and shuffled between lanes.
pub trait Word: flipgraph_core::moves::Moves {
    /// The factor folded to 32 bits, linearly over F2 (the folds of a sum are the sum of the
    /// folds); factors of at most 32 bits fold to themselves.
    fn fold32(self) -> u32;
    /// `self` of lane `src`.
    fn shuffle(self, src: u32) -> Self;
}

/// The rotation of a folded high half: a plain `low ^ high` folds every 8x8 factor whose lower
/// four rows repeat its upper four to zero (the key of an empty slot), and Kronecker products
/// are full of them (in Strassen x Kauers-Moosbauer, 8x8x8 r329, such terms matched only empty
/// slots). A rotation by an odd amount folds to zero only the factors whose halves are a
/// rotation of each other.
const FOLD_ROTATION: u32 = 13;

impl Word for u64 {
    #[inline(always)]
    fn fold32(self) -> u32 {
        self as u32 ^ ((self >> 32) as u32).rotate_left(FOLD_ROTATION)
    }

    #[inline(always)]
    fn shuffle(self, src: u32) -> u64 {
        shuffle_u64(self, src)
    }
}

impl Word for u128 {
    #[inline(always)]
    fn fold32(self) -> u32 {
        // The high 64 bits folded as a u64 and rotated once more: a factor whose halves are
        // equal does not fold to zero.
        (self as u64).fold32() ^ ((self >> 64) as u64).fold32().rotate_left(7)
    }

    #[inline(always)]
    fn shuffle(self, src: u32) -> u128 {
        shuffle_u64(self as u64, src) as u128 | (shuffle_u64((self >> 64) as u64, src) as u128) << 64
    }
}
