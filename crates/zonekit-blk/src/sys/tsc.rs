//! The CPU's time-stamp counter (x86_64 `rdtsc`), fio's `clocksource=cpu`.

/// The time-stamp counter, or `None` on architectures without one here.
#[inline]
pub fn rdtsc() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc reads a register; it has no memory effects and is available on every
        // x86_64 CPU.
        Some(unsafe { core::arch::x86_64::_rdtsc() })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}
