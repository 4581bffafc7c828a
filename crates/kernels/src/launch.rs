//! The kernels' entry points: one `Launch` in, each warp's share of it out. A warp finds its
//! global memory ([`WarpGlobal`], the one unsafe step over the launch's buffers) and its shared
//! memory, and walks ([`crate::walk`]).

use core::arch::nvptx;

use flipgraph_core::device::kernels;
use flipgraph_core::device::{warp_shared_bytes, Launch, Partners, Switch};
use flipgraph_core::group::Group;
use flipgraph_core::plateau::walker_floor;

use crate::global::WarpGlobal;
use crate::shared::{FactorStore, Shared128, Shared32, Shared64};
use crate::walk::{Grouped, Pairing, Params, PositionCovers, Sampled, SinkCover, TernaryWarp, Warp};

/// Defines a walk kernel that keeps its factors in shared memory as `$store`, walking the
/// schemes invariant under its group (core's `Group`; the trivial group's are all schemes),
/// finding partners as `$pairing` does (by sampling or by groups, core's `Partners`).
macro_rules! walk_kernel {
    ($(#[$doc:meta])* $name:ident = $kernel:path, $store:ty, $pairing:ty) => {
        $(#[$doc])*
        ///
        /// `launch.round_us`, when not zero, ends the walk of every warp after that many
        /// microseconds (or `launch.steps` steps, if sooner).
        ///
        /// # Safety
        /// `launch` holds device addresses laid out as flipgraph_core::device says for
        /// `launch.warps` walkers of capacity `launch.cap` (a multiple of 32) and move logs of
        /// `launch.log_cap` entries, every walker's `load` names a staged scheme or none, and
        /// the block has dynamic shared memory of core's `warp_shared_bytes` per warp.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(launch: Launch) {
            // The entry point is the one core names: the host launches it by that name and sizes
            // its shared memory by that store and way of finding partners.
            const _: () = {
                assert!($kernel.is_named(stringify!($name)));
                assert!($kernel.factor_bytes == <$store as FactorStore>::BYTES);
                assert!($kernel.partners as u8 == <$pairing as Pairing>::PARTNERS as u8);
            };
            // SAFETY: the contract above.
            unsafe { run::<$store, { $kernel.group.index() }, $pairing>(&launch) }
        }
    };
}

walk_kernel!(
    /// The walk kernel. One warp per walker; `steps` steps each, stopping at rank `target`.
    /// Factors of up to 64 bits, 8 bytes of shared memory each.
    walk = kernels::WALK,
    Shared64,
    Sampled
);
walk_kernel!(
    /// The walk kernel for shapes whose factors have at most 32 bits (4 bytes of shared memory
    /// each, and 32-bit compares).
    walk32 = kernels::WALK32,
    Shared32,
    Sampled
);
walk_kernel!(
    /// The walk kernel for shapes whose factors have more than 64 bits (up to 128: 9x9x9,
    /// 4x5x13, 8x8x16; two 64-bit words of shared and global memory each).
    walk128 = kernels::WALK128,
    Shared128,
    Sampled
);
walk_kernel!(
    /// The walk kernel of C3-invariant schemes (flipgraph_core::device, "Symmetric walks"):
    /// each walker's slots hold its triple orbits' representatives. 64-bit factors.
    walk_c3 = kernels::WALK_C3,
    Shared64,
    Sampled
);
walk_kernel!(
    /// `walk_c3` for shapes whose factors have at most 32 bits.
    walk32_c3 = kernels::WALK32_C3,
    Shared32,
    Sampled
);
walk_kernel!(
    /// The walk kernel of schemes invariant under the reversal of every index (core's
    /// `Group::Z2`; any shape): each walker's slots hold its free orbits' representatives.
    /// 64-bit factors.
    walk_z2 = kernels::WALK_Z2,
    Shared64,
    Sampled
);
walk_kernel!(
    /// `walk_z2` for shapes whose factors have at most 32 bits.
    walk32_z2 = kernels::WALK32_Z2,
    Shared32,
    Sampled
);
walk_kernel!(
    /// The walk kernel of schemes invariant under rotation and reversal (core's `Group::C6`;
    /// square shapes): each walker's slots hold its free orbits' representatives. 64-bit
    /// factors.
    walk_c6 = kernels::WALK_C6,
    Shared64,
    Sampled
);
walk_kernel!(
    /// `walk_c6` for shapes whose factors have at most 32 bits.
    walk32_c6 = kernels::WALK32_C6,
    Shared32,
    Sampled
);
walk_kernel!(
    /// `walk` with partners found by groups (flipgraph_core::device::Partners::Groups): for
    /// walks where flip partners are scarce (near the records).
    walk_groups = kernels::WALK_GROUPS,
    Shared64,
    Grouped<PositionCovers, false>
);
walk_kernel!(
    /// `walk_groups` for factors of more than 64 bits (up to 128).
    walk128_groups = kernels::WALK128_GROUPS,
    Shared128,
    Grouped<PositionCovers, false>
);
walk_kernel!(
    /// `walk128_groups` for the self-test, checked as `walk_groups_checked` is.
    walk128_groups_checked = kernels::WALK128_GROUPS_CHECKED,
    Shared128,
    Grouped<PositionCovers, true>
);
walk_kernel!(
    /// `walk_groups` for shapes whose factors have at most 32 bits.
    walk32_groups = kernels::WALK32_GROUPS,
    Shared32,
    Grouped<SinkCover, false>
);
walk_kernel!(
    /// `walk_groups` for the self-test (the host takes it for logged walks): each search of
    /// the groups and each return to held groups is checked against a pass, the held list where
    /// a burst starts, and a difference traps.
    walk_groups_checked = kernels::WALK_GROUPS_CHECKED,
    Shared64,
    Grouped<PositionCovers, true>
);
walk_kernel!(
    /// `walk32_groups` for the self-test, checked as `walk_groups_checked` is.
    walk32_groups_checked = kernels::WALK32_GROUPS_CHECKED,
    Shared32,
    Grouped<SinkCover, true>
);

/// The walk kernel over the ternary ring ZT (flipgraph_core::device::ternary): one warp per
/// walker, factors as 128-bit words of two planes, sampled partners; `steps` steps each,
/// stopping at rank `target` or after `launch.round_us` microseconds when not zero.
///
/// # Safety
/// As for [`walk`], with ternary terms in the words (core's `device::ternary`) and
/// `warp_shared_bytes(cap, 16, Partners::Sample)` bytes of shared memory per warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn walk_zt(launch: Launch) {
    const _: () = {
        assert!(kernels::WALK_ZT.is_named("walk_zt"));
        assert!(kernels::WALK_ZT.factor_bytes == <Shared128 as FactorStore>::BYTES);
        assert!(kernels::WALK_ZT.ternary);
    };
    // SAFETY: the contract above.
    let Some((global, params, warp_shared)) =
        (unsafe { enter::<u128>(&launch, <Shared128 as FactorStore>::BYTES, Partners::Sample) })
    else {
        return;
    };
    // SAFETY: this warp's part of the block's shared memory, per the contract.
    unsafe { TernaryWarp::run(&global, params, warp_shared, launch.steps, launch.round_us) }
}

/// The body of the F2 walk kernels.
///
/// # Safety
/// As for [`walk`], with `warp_shared_bytes(cap, S::BYTES, P::PARTNERS)` bytes of shared
/// memory per warp.
#[inline(always)]
unsafe fn run<S: FactorStore, const G: u8, P: Pairing>(launch: &Launch) {
    // SAFETY: the launch's contract (above).
    let Some((global, mut params, warp_shared)) = (unsafe { enter::<S::Factor>(launch, S::BYTES, P::PARTNERS) }) else {
        return;
    };
    // A symmetric walk reduces by merges only (the contract of the symmetric kernels).
    if G != Group::Trivial.index() {
        params.policy = params.policy.with(Switch::Scan, false).with(Switch::Generalized, false);
    }
    // SAFETY: this warp's part of the block's shared memory, per the contract.
    unsafe { Warp::<S, G, P>::run(&global, params, warp_shared, launch.steps, launch.round_us) }
}

/// What every walk kernel's warp starts from: its global memory (None for a warp past the
/// launch's walkers), its settings, and its part of the block's shared memory (factors of
/// `factor_bytes`, partners found as `partners` says). Traps under the host's Switch::Trap.
///
/// # Safety
/// The launch's contract (as for [`walk`]), with `warp_shared_bytes(cap, factor_bytes,
/// partners)` bytes of shared memory per warp.
#[inline(always)]
unsafe fn enter<F>(
    launch: &Launch,
    factor_bytes: usize,
    partners: Partners,
) -> Option<(WarpGlobal<F>, Params, *mut u8)> {
    if launch.policy.has(Switch::Trap) {
        crate::trap();
    }
    let tid = nvptx::_thread_idx_x() as usize;
    let warp = (nvptx::_block_idx_x() as usize * nvptx::_block_dim_x() as usize + tid) / 32;
    // SAFETY: the launch's contract (above).
    let global = unsafe { WarpGlobal::<F>::new(launch, warp) }?;
    let cap = launch.cap as usize;
    let style = global.state().style();
    let params = Params {
        cap,
        match_rounds: launch.match_rounds.max(1) as usize,
        flips: launch.flips.max(1),
        target: launch.target,
        // The walkers that hold walk sparse by default (core's `WalkPolicy::for_walker`).
        policy: launch.policy.for_walker(style),
        // The host chose each walk's style when it loaded it (core's `plateau::walker_floor`).
        plateau_floor: walker_floor(launch.plateau_floor, style),
    };
    let shared: *mut u8 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u8>();
    // SAFETY: this warp's part of the block's shared memory, per the contract.
    let warp_shared = unsafe { shared.add((tid / 32) * warp_shared_bytes(cap, factor_bytes, partners)) };
    Some((global, params, warp_shared))
}
