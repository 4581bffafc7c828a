#![no_std]
#![feature(abi_ptx, link_llvm_intrinsics, asm_experimental_arch)]
#![allow(internal_features)]

use core::panic::PanicInfo;

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    loop {}
}

unsafe extern "C" {
    #[link_name = "llvm.nvvm.match.any.sync.i64"]
    fn match_any_i64(mask: u32, value: u64) -> u32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn ballot(mask: u32, pred: bool) -> u32;
}

#[inline(always)]
fn lane() -> u32 {
    let l: u32;
    unsafe { core::arch::asm!("mov.u32 {}, %laneid;", out(reg32) l) };
    l
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn probe(input: *const u64, out: *mut u32) {
    let l = lane();
    let v = unsafe { *input.add(l as usize) };
    let m = unsafe { match_any_i64(u32::MAX, v) };
    let b = unsafe { ballot(u32::MAX, v & 1 == 1) };
    unsafe { *out.add(l as usize) = m ^ b };
}
