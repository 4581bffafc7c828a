//! A warp's factor arrays in shared memory, read and written through 32-bit shared-window
//! addresses (`ld.shared` / `st.shared`).
//!
//! Why not plain pointers: the dynamic shared memory reaches Rust as a generic pointer, and
//! once it is kept in a struct that a non-inlined function borrows, LLVM can no longer prove
//! it points to shared memory. Every factor read then became a generic load (`LD.E.64`, with
//! its 64-bit address arithmetic and the generic path's extra latency) instead of `LDS.64`.

/// `cap`-sized arrays of factors in shared memory, from a 32-bit shared address.
#[derive(Clone, Copy)]
pub struct SharedFactors {
    base: u32,
}

impl SharedFactors {
    /// The shared arrays that the generic pointer `ptr` points into.
    ///
    /// # Safety
    /// `ptr` points into this block's shared memory.
    #[inline(always)]
    pub unsafe fn new(ptr: *mut u64) -> SharedFactors {
        let base: u64;
        // SAFETY: a conversion of an address, no memory access.
        unsafe {
            core::arch::asm!("cvta.to.shared.u64 {}, {};", out(reg64) base, in(reg64) ptr, options(pure, nomem, nostack))
        };
        // The shared window is far below 4 GiB.
        SharedFactors { base: base as u32 }
    }

    #[inline(always)]
    fn address(self, index: usize) -> u32 {
        self.base + (index as u32) * 8
    }

    /// The factor at `index`.
    ///
    /// # Safety
    /// `index` lies inside the arrays.
    #[inline(always)]
    pub unsafe fn read(self, index: usize) -> u64 {
        let value: u64;
        // SAFETY: per the contract; `readonly` orders it after earlier writes and syncs (which
        // LLVM treats as touching memory).
        unsafe {
            core::arch::asm!(
                "ld.shared.u64 {}, [{}];",
                out(reg64) value,
                in(reg32) self.address(index),
                options(pure, readonly, nostack)
            )
        };
        value
    }

    /// Writes the factor at `index`.
    ///
    /// # Safety
    /// `index` lies inside the arrays.
    #[inline(always)]
    pub unsafe fn write(self, index: usize, value: u64) {
        // SAFETY: per the contract.
        unsafe {
            core::arch::asm!(
                "st.shared.u64 [{}], {};",
                in(reg32) self.address(index),
                in(reg64) value,
                options(nostack)
            )
        };
    }
}
