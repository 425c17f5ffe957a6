//! The OS boundary of the runner's process facilities: signal handlers that set a flag, the
//! calling thread's id, and whether a file descriptor is a terminal.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicI32, Ordering};

/// The last terminating signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    SIGNAL.store(sig, Ordering::SeqCst);
}

/// Catch SIGINT and SIGTERM: instead of dying, the process records the signal (read with
/// [`received`]) so that the run can stop its jobs and print what they did, as fio does.
pub fn catch_terminating_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: `sigaction` with a zeroed struct whose handler is an `extern "C"` function that
        // only stores to an atomic (async-signal-safe); the mask is emptied by `sigemptyset` on a
        // valid pointer; the old action is not needed (null).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            sa.sa_flags = libc::SA_RESTART;
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// The terminating signal received so far, if any.
pub fn received() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The calling thread's kernel id (what fio prints as `pid=` for `thread` jobs).
pub fn gettid() -> u32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() as u32 }
}

/// Whether `fd` is a terminal.
pub fn isatty(fd: i32) -> bool {
    // SAFETY: isatty only inspects the descriptor number; an invalid one returns 0.
    unsafe { libc::isatty(fd) == 1 }
}

/// Ask the kernel to back `buf` with transparent huge pages where it can (`madvise(MADV_HUGEPAGE)`
/// on the 2 MiB-aligned part): a large table read at random (the random map of a 1 TiB job is
/// 32 MiB) then costs one TLB miss per 2 MiB instead of per 4 KiB. Failure changes nothing.
pub fn advise_huge_pages<T>(buf: &mut [T]) {
    const HUGE: usize = 2 << 20;
    let start = buf.as_mut_ptr() as usize;
    let end = start + std::mem::size_of_val(buf);
    let (a, b) = (start.next_multiple_of(HUGE), end & !(HUGE - 1));
    if b > a {
        // SAFETY: [a, b) lies inside `buf`, which this process owns for the call; MADV_HUGEPAGE
        // only changes how the kernel backs the pages, never their contents.
        unsafe { libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_HUGEPAGE) };
    }
}

/// Hint the CPU to bring the cache line holding `p` in (`prefetcht0`); no effect on other
/// architectures. Any address is allowed: a prefetch never faults.
#[inline]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` reads nothing the program sees and never faults, whatever the
    // address; SSE is part of the x86_64 baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
