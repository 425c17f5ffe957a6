//! The benchmark's OS boundary, the one module where `unsafe` is allowed (docs/architecture.md),
//! each block with its `SAFETY` note: signal handlers that set a flag, the calling thread's id and
//! resource usage (`getrusage(RUSAGE_THREAD)`, as fio's `fio_getrusage` measures each job thread),
//! local time as C's `ctime` prints it (fio prints report times with `ctime_r`), memory hints
//! for large tables, the CPU placement and idle scheduling of `--idle-prof`'s threads, and a
//! job thread's CPUs, nice value and NUMA memory policy.
#![allow(unsafe_code)]

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

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

/// The clock `id`'s reading (`clock_gettime`) in ms; None when the system has no such clock.
pub fn clock_ms(id: i32) -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call; an unknown id fails with EINVAL
    // and writes nothing.
    let r = unsafe { libc::clock_gettime(id as libc::clockid_t, &mut ts) };
    (r == 0).then(|| ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000)
}

/// `ioprio_set(IOPRIO_WHO_PROCESS, 0, ioprio)`: the I/O priority (class << 13 | level) of the
/// calling thread, as fio sets a job's (`prioclass`, `prio`); the kernel's refusal as its error.
pub fn ioprio_set_thread(ioprio: u32) -> io::Result<()> {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    // SAFETY: a system call on plain integers; it reads and writes no memory of ours.
    let r =
        unsafe { libc::syscall(libc::SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0 as libc::c_long, ioprio as libc::c_long) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// The calling thread's kernel id (what fio prints as `pid=` for `thread` jobs).
pub fn gettid() -> u32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() as u32 }
}

/// Whether the process runs as root (effective user id 0), as fio's `geteuid() != 0` checks.
pub fn is_root() -> bool {
    // SAFETY: geteuid takes nothing and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The clock ticks per second (`sysconf(_SC_CLK_TCK)`, what fio's helper thread traces as
/// `clk_tck`).
pub fn clk_tck() -> i64 {
    // SAFETY: sysconf reads a system constant; it takes an integer and touches no memory of ours.
    i64::from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as i32)
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

/// `lockmem`'s memory (fio's `fio_pin_memory`): an anonymous mapping locked in RAM with mlock(2)
/// for as long as the value lives, so that the page cache has that much less room.
pub struct LockedMem {
    addr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is only unlocked and unmapped (in `drop`), never read or written.
unsafe impl Send for LockedMem {}

impl LockedMem {
    /// Map `len` bytes and lock them; the error says which call failed.
    pub fn lock(len: usize) -> Result<LockedMem, (&'static str, io::Error)> {
        // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(("mmap", io::Error::last_os_error()));
        }
        // SAFETY: [addr, addr + len) is the mapping just made.
        if unsafe { libc::mlock(addr, len) } < 0 {
            let e = io::Error::last_os_error();
            // SAFETY: unmaps the mapping made above, which nothing else refers to.
            unsafe { libc::munmap(addr, len) };
            return Err(("mlock", e));
        }
        Ok(LockedMem { addr, len })
    }

    /// The bytes locked.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: a lock of 0 bytes is not made.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for LockedMem {
    fn drop(&mut self) {
        // SAFETY: the mapping made by `lock`, owned by this value alone.
        unsafe {
            libc::munlock(self.addr, self.len);
            libc::munmap(self.addr, self.len);
        }
    }
}

/// The CPUs the system has configured, online or not (`sysconf(_SC_NPROCESSORS_CONF)`, fio's
/// `cpus_configured`), at least 1.
pub fn cpus_configured() -> usize {
    // SAFETY: sysconf has no memory effects.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// Pin the calling thread to CPU `cpu` (`sched_setaffinity` of the thread with a one-CPU set, as
/// fio's `fio_setaffinity(gettid(), mask)`); the kernel's refusal (a CPU offline or outside the
/// process's cpuset) as the error.
pub fn pin_thread_to_cpu(cpu: usize) -> io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: a zeroed `cpu_set_t` is the empty set; `CPU_SET` writes the bit of `cpu`, checked
    // below `CPU_SETSIZE`, inside it; `sched_setaffinity` reads `size_of::<cpu_set_t>()` bytes of
    // the set, which lives on this stack for the call; pid 0 is the calling thread.
    let r = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// Set the calling thread's CPUs to `cpus` (`sched_setaffinity(0, sizeof(cpu_set_t), …)`, as
/// fio's `fio_setaffinity(td->pid, mask)` sets a `thread` job's); the kernel's refusal (`EINVAL`
/// for a set of no CPU it can use) as the error. Threads the caller starts later inherit it.
pub fn set_thread_affinity(cpus: &crate::options::placement::CpuSet) -> io::Result<()> {
    // SAFETY: a zeroed `cpu_set_t` is the empty set; `CPU_SET` writes bits below `CPU_SETSIZE`
    // (1024, the size of `CpuSet`) inside it; `sched_setaffinity` reads
    // `size_of::<cpu_set_t>()` bytes of the set, which lives on this stack for the call; pid 0
    // is the calling thread.
    let r = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for cpu in cpus.iter().filter(|&c| c < libc::CPU_SETSIZE as usize) {
            libc::CPU_SET(cpu, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// The CPUs the calling thread may run on (`sched_getaffinity`).
pub fn thread_affinity() -> io::Result<crate::options::placement::CpuSet> {
    // SAFETY: `set` is a writable `cpu_set_t` of the size passed; pid 0 is the calling thread;
    // `CPU_ISSET` reads bits below `CPU_SETSIZE` inside it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut out = crate::options::placement::CpuSet::new();
        for cpu in 0..libc::CPU_SETSIZE as usize {
            if libc::CPU_ISSET(cpu, &set) {
                out.set(cpu);
            }
        }
        Ok(out)
    }
}

/// The calling thread's nice value (`getpriority(PRIO_PROCESS, tid)`).
pub fn thread_nice() -> io::Result<i32> {
    let tid = gettid();
    // SAFETY: errno is this thread's own; getpriority takes integers and touches no memory of
    // ours. A return of -1 is a nice value or an error, told apart by errno, cleared first.
    unsafe {
        *libc::__errno_location() = 0;
        let v = libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t);
        if v == -1 && *libc::__errno_location() != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(v)
    }
}

/// Add `inc` to the calling thread's nice value, as glibc's `nice(inc)` does (on Linux the
/// nice value is the thread's own): the kernel keeps it within -20 to 19; lowering it without
/// the privilege is `EPERM`, as `nice` reports it.
pub fn add_thread_nice(inc: i32) -> io::Result<()> {
    let cur = thread_nice()?;
    let tid = gettid();
    // SAFETY: setpriority takes integers and touches no memory of ours.
    let r = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, cur.saturating_add(inc)) };
    if r < 0 {
        let e = io::Error::last_os_error();
        return Err(if e.raw_os_error() == Some(libc::EACCES) { io::Error::from_raw_os_error(libc::EPERM) } else { e });
    }
    Ok(())
}

/// `MPOL_*` modes of `set_mempolicy(2)`.
pub mod mpol {
    /// The system's default policy.
    pub const DEFAULT: i32 = 0;
    /// Allocate on the given node first.
    pub const PREFERRED: i32 = 1;
    /// Allocate only on the given nodes.
    pub const BIND: i32 = 2;
    /// Spread allocations over the given nodes.
    pub const INTERLEAVE: i32 = 3;
    /// Allocate on the node of the CPU that allocates.
    pub const LOCAL: i32 = 4;
}

/// Whether the kernel has the NUMA memory policy calls (libnuma's `numa_available`:
/// `get_mempolicy` does not fail with `ENOSYS`).
pub fn numa_available() -> bool {
    // SAFETY: get_mempolicy with null pointers and no node mask reads and writes no memory.
    let r = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            std::ptr::null_mut::<libc::c_int>(),
            std::ptr::null_mut::<libc::c_ulong>(),
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    !(r < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS))
}

/// `set_mempolicy(mode, nodes, 1025)`: the calling thread's memory policy (`mpol::*`), with the
/// 1024-node mask libnuma passes.
pub fn set_mempolicy(mode: i32, nodes: &crate::options::placement::NodeSet) -> io::Result<()> {
    let mask: [libc::c_ulong; 16] = nodes.0.map(|w| w as libc::c_ulong);
    // SAFETY: the kernel reads at most `maxnode - 1` = 1024 bits of `mask`, which holds 16
    // 64-bit words and lives on this stack for the call.
    let r = unsafe {
        libc::syscall(libc::SYS_set_mempolicy, mode as libc::c_long, mask.as_ptr(), (16 * 64 + 1) as libc::c_ulong)
    };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// The calling thread's memory policy: its mode and nodes (`get_mempolicy`).
pub fn thread_mempolicy() -> io::Result<(i32, crate::options::placement::NodeSet)> {
    let mut mode: libc::c_int = 0;
    let mut mask: [libc::c_ulong; 16] = [0; 16];
    // SAFETY: `mode` and the 1024-bit `mask` are writable for the call, and `maxnode` (1025)
    // tells the kernel the mask's size; no address is given (flags 0: the thread's policy).
    let r = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &mut mode as *mut libc::c_int,
            mask.as_mut_ptr(),
            (16 * 64 + 1) as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((mode, crate::options::placement::Bits1024(mask.map(u64::from))))
}

/// Move the calling thread to the `SCHED_IDLE` policy (`sched_setscheduler`, fio's
/// `fio_set_sched_idle`): it then runs only when nothing else wants its CPU.
pub fn set_sched_idle() -> io::Result<()> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid sched_param for the call, which only reads it; pid 0 is the
    // calling thread.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// The machine's RAM in bytes (0 when unknown).
pub fn phys_mem() -> u64 {
    // SAFETY: sysconf has no memory effects.
    let (pages, size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    if pages <= 0 || size <= 0 { 0 } else { pages as u64 * size as u64 }
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

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// `ctime(&secs)` without its trailing newline, e.g. `Sun Nov 22 04:37:48 2026` (local time;
/// UTC if the conversion fails).
pub fn ctime(secs: i64) -> String {
    let t: libc::time_t = secs as libc::time_t;
    let mut tm = std::mem::MaybeUninit::<libc::tm>::zeroed();
    // SAFETY: `t` and `tm` are valid for reads and writes of their types for the whole call;
    // localtime_r is the thread-safe variant and writes only to `tm`.
    let res = unsafe { libc::localtime_r(&t, tm.as_mut_ptr()) };
    let tm = if res.is_null() {
        None
    } else {
        // SAFETY: localtime_r succeeded, so it filled every field of `tm` (zeroed before anyway).
        Some(unsafe { tm.assume_init() })
    };
    match tm {
        Some(tm) => format!(
            "{} {} {:2} {:02}:{:02}:{:02} {}",
            DAYS[tm.tm_wday.rem_euclid(7) as usize],
            MONTHS[tm.tm_mon.rem_euclid(12) as usize],
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec,
            i64::from(tm.tm_year) + 1900
        ),
        None => utc_ctime(secs),
    }
}

/// `ctime` in UTC, computed without the C library.
pub fn utc_ctime(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let wday = (days + 4).rem_euclid(7) as usize; // 1970-01-01 was a Thursday
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mon = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mon <= 2);
    format!("{} {} {:2} {:02}:{:02}:{:02} {}", DAYS[wday], MONTHS[(mon - 1) as usize], d, h, m, s, y)
}

/// Now as (seconds, milliseconds) since the epoch: JSON's `timestamp` and `timestamp_ms`.
pub fn now_timestamp() -> (u64, u64) {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    (d.as_secs(), d.as_secs() * 1000 + u64::from(d.subsec_millis()))
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

    #[test]
    fn utc_dates() {
        assert_eq!(utc_ctime(0), "Thu Jan  1 00:00:00 1970");
        // The timestamp of a recorded fio run (this machine's zone is UTC).
        assert_eq!(utc_ctime(1_795_331_658), "Sun Nov 22 07:14:18 2026");
        assert_eq!(utc_ctime(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn local_ctime_has_ctimes_shape() {
        let s = ctime(1_795_331_658);
        assert_eq!(s.len(), 24, "{s}");
        assert!(s.ends_with(" 2026"), "{s}");
    }
}
