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
