//! A warp's factor arrays in shared memory, read and written through 32-bit shared-window
//! addresses (`ld.shared` / `st.shared`), as 64-bit words or, for shapes whose factors fit,
//! as 32-bit words; factors of up to 128 bits as two 64-bit words.
//!
//! Why not plain pointers: the dynamic shared memory reaches Rust as a generic pointer, and
//! once it is kept in a struct that a non-inlined function borrows, LLVM can no longer prove
//! it points to shared memory. Every factor read then became a generic load (`LD.E.64`, with
//! its 64-bit address arithmetic and the generic path's extra latency) instead of `LDS.64`.
//!
//! Why 32-bit words: a factor of at most 32 bits read as a zero-extended word lets LLVM narrow
//! the walk's compares and XORs to one instruction each (a 64-bit compare takes two), and
//! halves the shared memory of a warp.

/// `cap`-sized arrays of factors in shared memory. Every factor passes through as a
/// [`FactorStore::Factor`]: a `u64` (a narrower word zero-extended), or a `u128`.
pub trait FactorStore: Copy {
    /// The integer a factor passes through as.
    type Factor: Word;
    /// Bytes per stored factor.
    const BYTES: usize;

    /// The arrays that the generic pointer `ptr` points to.
    ///
    /// # Safety
    /// `ptr` points into this block's shared memory.
    unsafe fn new(ptr: *mut u8) -> Self;

    /// The factor at `index`.
    ///
    /// # Safety
    /// `index` lies inside the arrays.
    unsafe fn read(self, index: usize) -> Self::Factor;

    /// Writes the factor at `index` (of at most `8 * BYTES` bits).
    ///
    /// # Safety
    /// `index` lies inside the arrays.
    unsafe fn write(self, index: usize, value: Self::Factor);

    /// The words of another store that lie `bytes` bytes before these: their address is
    /// computed where they are used, so that a warp keeps no register for it.
    ///
    /// # Safety
    /// Those words lie in this block's shared memory.
    #[inline(always)]
    unsafe fn before<T: FactorStore>(self, bytes: usize) -> T {
        // SAFETY: per the contract.
        unsafe { T::at_address(self.address() - bytes as u32) }
    }

    /// The 32-bit shared-window address of the first word.
    fn address(self) -> u32;

    /// The words at the shared-window `address`.
    ///
    /// # Safety
    /// `address` lies in this block's shared memory.
    unsafe fn at_address(address: u32) -> Self;
}

use crate::warp::Word;

/// The 32-bit shared-window address of a generic pointer into shared memory.
#[inline(always)]
#[allow(
    clippy::pointers_in_nomem_asm_block,
    reason = "cvta converts the address only; it reads and writes no memory"
)]
fn shared_address(ptr: *mut u8) -> u32 {
    let base: u64;
    // SAFETY: a conversion of an address, no memory access.
    unsafe {
        core::arch::asm!("cvta.to.shared.u64 {}, {};", out(reg64) base, in(reg64) ptr, options(pure, nomem, nostack))
    };
    // The shared window is far below 4 GiB.
    base as u32
}

/// A [`FactorStore`] of one `$word` per factor, `$ptx` its PTX type and `$reg` its register class.
macro_rules! factor_store {
    ($(#[$doc:meta])* $name:ident, $word:ty, $ptx:literal, $reg:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name {
            base: u32,
        }

        impl FactorStore for $name {
            type Factor = u64;
            const BYTES: usize = core::mem::size_of::<$word>();

            #[inline(always)]
            unsafe fn new(ptr: *mut u8) -> $name {
                $name { base: shared_address(ptr) }
            }

            #[inline(always)]
            fn address(self) -> u32 {
                self.base
            }

            #[inline(always)]
            unsafe fn at_address(address: u32) -> $name {
                $name { base: address }
            }

            #[inline(always)]
            unsafe fn read(self, index: usize) -> u64 {
                let value: $word;
                // SAFETY: per the contract; `readonly` orders it after earlier writes and syncs
                // (which LLVM treats as touching memory).
                unsafe {
                    core::arch::asm!(
                        concat!("ld.shared.", $ptx, " {}, [{}];"),
                        out($reg) value,
                        in(reg32) self.base + (index * Self::BYTES) as u32,
                        options(pure, readonly, nostack)
                    )
                };
                value as u64
            }

            #[inline(always)]
            unsafe fn write(self, index: usize, value: u64) {
                // SAFETY: per the contract.
                unsafe {
                    core::arch::asm!(
                        concat!("st.shared.", $ptx, " [{}], {};"),
                        in(reg32) self.base + (index * Self::BYTES) as u32,
                        in($reg) value as $word,
                        options(nostack)
                    )
                };
            }
        }
    };
}

factor_store!(
    /// Factors of up to 64 bits, one 64-bit word each.
    Shared64, u64, "u64", reg64
);
factor_store!(
    /// Factors of up to 32 bits, one 32-bit word each.
    Shared32, u32, "u32", reg32
);
factor_store!(
    /// 16-bit words: slot numbers (the group kernels' table and mates).
    Shared16, u16, "u16", reg16
);

/// Factors of up to 128 bits, two 64-bit words each (low, then high).
#[derive(Clone, Copy)]
pub struct Shared128 {
    low: Shared64,
}

impl FactorStore for Shared128 {
    type Factor = u128;
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn new(ptr: *mut u8) -> Shared128 {
        // SAFETY: per the contract.
        Shared128 {
            low: unsafe { Shared64::new(ptr) },
        }
    }

    #[inline(always)]
    fn address(self) -> u32 {
        self.low.address()
    }

    #[inline(always)]
    unsafe fn at_address(address: u32) -> Shared128 {
        // SAFETY: per the contract.
        Shared128 {
            low: unsafe { Shared64::at_address(address) },
        }
    }

    #[inline(always)]
    unsafe fn read(self, index: usize) -> u128 {
        // SAFETY: the two words of factor `index`, inside the arrays per the contract.
        unsafe { self.low.read(2 * index) as u128 | (self.low.read(2 * index + 1) as u128) << 64 }
    }

    #[inline(always)]
    unsafe fn write(self, index: usize, value: u128) {
        // SAFETY: as in `read`.
        unsafe {
            self.low.write(2 * index, value as u64);
            self.low.write(2 * index + 1, (value >> 64) as u64);
        }
    }
}
