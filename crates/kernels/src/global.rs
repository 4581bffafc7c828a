//! A warp's part of the launch's global memory, behind safe accessors, as [`crate::shared`] is
//! for shared memory: the one unsafe step is [`WarpGlobal::new`], whose contract is the
//! launch's (core's `device` module: the layout both sides index by). Every access after it is
//! bounds-checked against the capacities of the [`Launch`]; an access out of bounds traps (the
//! host reports a failed launch) rather than touch another warp's memory.

use flipgraph_core::counters::Counters;
use flipgraph_core::device::{factor_index, log_words, scheme_words, Launch, WarpState, NO_LOAD};
use flipgraph_core::group::Reversal;

/// Aborts the launch: an index broke the contract.
#[cold]
#[allow(
    clippy::empty_loop,
    reason = "trap ends the launch; the loop only gives the function its type"
)]
fn out_of_bounds() -> ! {
    crate::trap();
    loop {}
}

/// A scheme of `cap` slots in global memory: a walker's current terms, its best terms, or a
/// staged scheme (core's `scheme_words(cap)` factors of `F`: one 64-bit word each, or two).
pub struct SchemeSlots<F> {
    base: *mut F,
    cap: usize,
}

impl<F> Clone for SchemeSlots<F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for SchemeSlots<F> {}

impl<F: Copy> SchemeSlots<F> {
    /// Where the factor at `pos` of `slot` lies, or a trap.
    #[inline(always)]
    fn index(self, pos: usize, slot: usize) -> usize {
        if pos >= 3 || slot >= self.cap {
            out_of_bounds();
        }
        factor_index(self.cap, pos, slot)
    }

    /// The factor at `pos` (0, 1, 2 for A, B, C) of `slot`.
    #[inline(always)]
    pub fn get(self, pos: usize, slot: usize) -> F {
        // SAFETY: inside the scheme's words (checked), which the constructor's contract makes
        // this warp's.
        unsafe { *self.base.add(self.index(pos, slot)) }
    }

    /// Writes the factor at `pos` of `slot`.
    #[inline(always)]
    pub fn set(self, pos: usize, slot: usize, factor: F) {
        // SAFETY: as in `get`.
        unsafe { *self.base.add(self.index(pos, slot)) = factor };
    }
}

/// A warp's state, schemes (of factors of `F`) and move log in global memory.
pub struct WarpGlobal<F = u64> {
    state: *mut WarpState,
    /// The walker's current terms (read at the start of a launch, written at its end).
    pub terms: SchemeSlots<F>,
    /// The first scheme of its lowest rank since its last load.
    pub best: SchemeSlots<F>,
    /// The scheme the host staged for it to load, if any.
    pub staged: Option<SchemeSlots<F>>,
    log: *mut u32,
    log_cap: u32,
    /// The shape's reversal (core's `group::Reversal`), for the walks whose group has it: here
    /// rather than in the walk's parameters, which the slow paths copy (a plain walk's copies
    /// grew by its size and its group kernels slowed down).
    pub reversal: Reversal,
}

impl<F> WarpGlobal<F> {
    /// The global memory of warp `warp` of the launch, or None for a warp beyond its walkers.
    ///
    /// # Safety
    /// `launch` holds device addresses laid out as flipgraph_core::device says for
    /// `launch.warps` walkers of `launch.cap` slots (factors of `F`) and move logs of
    /// `launch.log_cap` entries, and every walker's `load` is `NO_LOAD` or the index of a
    /// scheme staged in `launch.staging`.
    pub unsafe fn new(launch: &Launch, warp: usize) -> Option<WarpGlobal<F>> {
        if warp >= launch.warps as usize {
            return None;
        }
        let cap = launch.cap as usize;
        let words = scheme_words(cap);
        let slots = |base: u64, index: usize| SchemeSlots {
            // SAFETY (of the `add`): inside the buffer, per the contract.
            base: unsafe { (base as *mut F).add(index * words) },
            cap,
        };
        // SAFETY: the warp's state, per the contract.
        let state = unsafe { (launch.states as *mut WarpState).add(warp) };
        let load = unsafe { (*state).load };
        Some(WarpGlobal {
            state,
            terms: slots(launch.terms, warp),
            best: slots(launch.best, warp),
            staged: (load != NO_LOAD).then(|| slots(launch.staging, load as usize)),
            // SAFETY (of the `add`): this warp's log, per the contract.
            log: unsafe { (launch.log as *mut u32).add(warp * log_words(launch.log_cap as usize)) },
            log_cap: launch.log_cap,
            reversal: Reversal::from_widths(launch.widths),
        })
    }

    /// The warp's state as the host left it.
    #[inline(always)]
    pub fn state(&self) -> WarpState {
        // SAFETY: the warp's own state (constructor).
        unsafe { *self.state }
    }

    /// The counters of the warp's state (read apart, so that they need no registers while the
    /// warp walks).
    #[inline(always)]
    pub fn counters(&self) -> Counters {
        // SAFETY: as in `state`.
        unsafe { (*self.state).counters }
    }

    /// Writes the warp's state back (from lane 0: every lane holds the same).
    #[inline(always)]
    pub fn set_state(&self, state: WarpState, lane: u32) {
        if lane == 0 {
            // SAFETY: as in `state`.
            unsafe { *self.state = state };
        }
    }

    /// Writes entry `entry` of the move log; entries beyond its capacity are dropped (the host
    /// reads how many moves were made from the state's `logged`).
    #[inline(always)]
    pub fn log(&self, entry: u32, packed: [u32; 2]) {
        if entry < self.log_cap {
            // SAFETY: inside this warp's log (checked).
            unsafe {
                *self.log.add(2 * entry as usize) = packed[0];
                *self.log.add(2 * entry as usize + 1) = packed[1];
            }
        }
    }
}
