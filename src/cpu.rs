//! Hints to the processor that change no result, only how long memory takes.

/// Asks the processor to bring the cache line at `address` in; no effect on results.
#[inline(always)]
pub(crate) fn prefetch(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is only a hint: it never faults, whatever the address, and reads
        // nothing the program sees.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
