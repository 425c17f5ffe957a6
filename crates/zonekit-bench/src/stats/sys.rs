//! The OS boundary of the statistics: `getrusage(RUSAGE_THREAD)`, as fio's `fio_getrusage`
//! measures each job thread.
#![allow(unsafe_code)]

use std::io;

/// Resource usage of a thread at one moment (the fields of `struct rusage` fio reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rusage {
    /// User CPU time: (seconds, microseconds).
    pub utime: (i64, i64),
    /// System CPU time: (seconds, microseconds).
    pub stime: (i64, i64),
    /// Voluntary context switches.
    pub nvcsw: u64,
    /// Involuntary context switches.
    pub nivcsw: u64,
    /// Minor page faults.
    pub minflt: u64,
    /// Major page faults.
    pub majflt: u64,
}

/// `getrusage(RUSAGE_THREAD)`: the calling thread's usage.
pub fn thread_rusage() -> io::Result<Rusage> {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` points to writable memory of the size and alignment of `struct rusage`, which
    // the kernel fills; RUSAGE_THREAD is valid on Linux. The zeroed value is a valid rusage.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, ru.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: zero-initialised and, on success, filled by the kernel: every field is initialised.
    let ru = unsafe { ru.assume_init() };
    Ok(Rusage {
        utime: (ru.ru_utime.tv_sec, ru.ru_utime.tv_usec),
        stime: (ru.ru_stime.tv_sec, ru.ru_stime.tv_usec),
        nvcsw: ru.ru_nvcsw as u64,
        nivcsw: ru.ru_nivcsw as u64,
        minflt: ru.ru_minflt as u64,
        majflt: ru.ru_majflt as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_usage_grows_with_work() {
        let a = thread_rusage().unwrap();
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(30) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            std::hint::black_box(x);
        }
        let b = thread_rusage().unwrap();
        let us = |t: (i64, i64)| t.0 * 1_000_000 + t.1;
        assert!(us(b.utime) + us(b.stime) > us(a.utime) + us(a.stime));
        // Another thread's usage is its own: a fresh thread has used (almost) nothing.
        let other = std::thread::spawn(|| thread_rusage().unwrap()).join().unwrap();
        assert!(us(other.utime) < us(b.utime) + 1);
    }
}
