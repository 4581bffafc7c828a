//! GPU kernels of flipgraph, written in Rust and built to PTX for `nvptx64-nvidia-cuda`
//! (crates/search/build.rs builds them; docs/ARCHITECTURE.md has the recipe).
//!
//! - [`warp`]: the warp instructions (match.any.sync, ballot, redux.sync, shuffle, lane id and
//!   masks) as small safe wrappers.
//! - [`shared`]: a warp's factor arrays in shared memory, addressed as shared memory.
//! - [`global`]: a warp's state, schemes and move log in global memory, bounds-checked.
//! - [`launch`]: the kernels' entry points (`walk`, `walk32` for factors of up to 32 bits and
//!   `walk128` for up to 128, each with a `_groups` twin that finds partners by groups;
//!   `walk_c3`, `walk_z2`, `walk_c6` and their 32-bit twins for schemes invariant under a
//!   group of core's `group` module):
//!   one `Launch` in, each warp's share of its memory out.
//! - [`walk`]: one warp's walk on one scheme, built on the moves of flipgraph-core.
#![no_std]
#![feature(
    abi_ptx,
    link_llvm_intrinsics,
    asm_experimental_arch,
    stdarch_nvptx,
    core_intrinsics,
    gpu_intrinsics,
    gpu_launch_sized_workgroup_mem
)]
#![allow(internal_features)]

pub mod global;
pub mod launch;
pub mod shared;
pub mod walk;
pub mod warp;

/// Aborts the launch (a broken contract, a failed check, a panic, or the host's Switch::Trap); the
/// host reports it with the kernel's name. Every kernel's trap is this one.
#[inline(always)]
pub(crate) fn trap() {
    // SAFETY: `trap` ends the launch and touches no memory.
    unsafe { core::arch::asm!("trap;") };
}

/// [`trap`] unless `ok`: the self-test's checks.
#[inline(always)]
pub(crate) fn trap_unless(ok: bool) {
    if !ok {
        trap();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    trap();
    loop {}
}
