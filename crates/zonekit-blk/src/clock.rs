//! The real clock: monotonic nanoseconds since a starting instant.
//!
//! Two sources, as fio has (`clocksource=cpu` and `clock_gettime`):
//! - the CPU's time-stamp counter (`rdtsc`), scaled to nanoseconds by a factor calibrated once per
//!   process against `CLOCK_MONOTONIC` (20 ms). Used by [`RealClock::new`] when the kernel itself
//!   trusts the TSC: its clocksource is `tsc` (so the counters of all CPUs are in step) and the CPU
//!   has `constant_tsc` and `nonstop_tsc`. Measured here (2-vCPU KVM guest): ≈ 17 ns per read.
//! - `CLOCK_MONOTONIC` through `std::time::Instant` (the vDSO; no system call while the
//!   clocksource is `tsc`): ≈ 45–55 ns per read here. Used otherwise, or with
//!   [`RealClock::monotonic`]. On `kvm-clock` or `hpet` each read costs more (MMIO or a system
//!   call); check `/sys/devices/system/clocksource/clocksource0/current_clocksource`.
//!
//! Three reads per I/O (issue, submit, complete, as fio's latency accounting needs) thus cost about
//! 50 ns with the TSC and 150 ns without — next to ≈ 2.5–3 µs for a 4 KiB `pwrite` on tmpfs here.
//! Figures from `cargo bench -p zonekit-blk -- clock`.
//!
//! The simulated clock of emulated devices with a timing model is [`crate::sim::SimClock`]; both
//! implement [`Clock`], and code that runs on either is generic over it (statically dispatched,
//! so a read of the real clock stays one `rdtsc`).

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::sys::tsc::rdtsc;

/// A source of monotonic time in nanoseconds, and a way to wait for a moment of it.
pub trait Clock: Clone + Send + Sync + 'static {
    /// Nanoseconds since this clock's origin; never decreases.
    fn now_ns(&self) -> u64;

    /// A future that is ready once the clock reads `t_ns` or later: the real clock sleeps the
    /// thread (pacing), the simulated one lets its scheduler run other work and jump to `t_ns`.
    fn sleep_until(&self, t_ns: u64) -> impl Future<Output = ()> + Send + '_;

    /// This clock as a [`RealClock`] (the same time base), when it is one: engines over the kernel
    /// stamp their completions with it.
    fn as_real(&self) -> Option<RealClock> {
        None
    }
}

/// [`RealClock::sleep_until`]: the thread sleeps (the last 100 µs spinning) when first polled.
#[derive(Debug)]
pub struct RealSleep<'a> {
    clock: &'a RealClock,
    until: u64,
}

impl Future for RealSleep<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        loop {
            let now = self.clock.now_ns();
            if now >= self.until {
                return Poll::Ready(());
            }
            let left = self.until - now;
            if left > 150_000 {
                std::thread::sleep(Duration::from_nanos(left - 100_000));
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// The TSC's rate, measured once: nanoseconds per tick as a 32.32 fixed-point factor.
#[derive(Debug, Clone, Copy)]
struct TscScale {
    mult: u64,
}

impl TscScale {
    #[inline]
    fn ns(self, ticks: u64) -> u64 {
        ((u128::from(ticks) * u128::from(self.mult)) >> 32) as u64
    }

    fn ticks(self, ns: u64) -> u64 {
        ((u128::from(ns) << 32) / u128::from(self.mult.max(1))) as u64
    }
}

/// Whether the kernel trusts the TSC (clocksource `tsc`, invariant counter), and if so its scale.
fn tsc_scale() -> Option<TscScale> {
    static SCALE: OnceLock<Option<TscScale>> = OnceLock::new();
    *SCALE.get_or_init(|| {
        rdtsc()?;
        let source =
            std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource").ok()?;
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok()?;
        let flags = cpuinfo.lines().find(|l| l.starts_with("flags"))?;
        let has = |f: &str| flags.split_whitespace().any(|x| x == f);
        if source.trim() != "tsc" || !has("constant_tsc") || !has("nonstop_tsc") {
            return None;
        }
        let (t0, c0) = (Instant::now(), rdtsc()?);
        std::thread::sleep(Duration::from_millis(20));
        let (c1, t1) = (rdtsc()?, Instant::now());
        let ns = (t1 - t0).as_nanos();
        let ticks = u128::from(c1.checked_sub(c0)?);
        if ticks == 0 {
            return None;
        }
        Some(TscScale { mult: u64::try_from((ns << 32) / ticks).ok()? })
    })
}

/// The CPU's time-stamp counter now (`rdtsc`), where the CPU has one: fio's `get_cpu_clock`,
/// which its clock calibration reads (`--debug=time`).
pub fn cpu_cycles() -> Option<u64> {
    rdtsc()
}

/// Whether [`RealClock::new`] reads the TSC: the kernel trusts it (fio's `tsc_reliable`).
pub fn tsc_reliable() -> bool {
    tsc_scale().is_some()
}

/// Measure the TSC's rate now, if the clock will use it (20 ms, once per process): call it before
/// timing anything, so that the first [`RealClock`] made inside a measured span does not pay for
/// the calibration there.
pub fn calibrate() {
    let _ = tsc_scale();
}

#[derive(Debug, Clone, Copy)]
enum Source {
    Tsc {
        origin: u64,
        scale: TscScale,
    },
    Monotonic,
    /// `CLOCK_MONOTONIC` cut to whole microseconds (fio's `gettimeofday` source).
    Micros,
}

/// Which clock a run times its I/O with (fio's `clocksource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClockSource {
    /// The CPU's time-stamp counter where it is reliable (constant, non-stop, the kernel's own
    /// clock source), else `CLOCK_MONOTONIC` (fio's `cpu`, which fio also picks when none is
    /// set and the counter is reliable).
    #[default]
    Cpu,
    /// `CLOCK_MONOTONIC` (fio's `clock_gettime`).
    ClockGettime,
    /// Microsecond resolution, as `gettimeofday(2)` has (fio's `gettimeofday`): every time,
    /// hence every latency, is a whole number of microseconds.
    Gettimeofday,
}

impl ClockSource {
    /// fio's value of `clocksource=` (`gettimeofday`, `clock_gettime`, `cpu`).
    pub fn from_fio(value: &str) -> Option<ClockSource> {
        Some(match value {
            "gettimeofday" => ClockSource::Gettimeofday,
            "clock_gettime" => ClockSource::ClockGettime,
            "cpu" => ClockSource::Cpu,
            _ => return None,
        })
    }

    /// fio's number of the source (`enum fio_cs`: 1 `gettimeofday`, 2 `clock_gettime`, 3 `cpu`),
    /// as its `--debug=time` prints it.
    pub fn fio_number(self) -> u32 {
        match self {
            ClockSource::Gettimeofday => 1,
            ClockSource::ClockGettime => 2,
            ClockSource::Cpu => 3,
        }
    }
}

/// Real time in nanoseconds, counted from the moment the clock was made (or a given origin).
#[derive(Debug, Clone, Copy)]
pub struct RealClock {
    origin: Instant,
    source: Source,
}

impl RealClock {
    /// A clock whose origin is now: the TSC when the kernel trusts it, `CLOCK_MONOTONIC`
    /// otherwise. The first clock of a process calibrates the TSC (20 ms) unless [`calibrate`]
    /// did already.
    pub fn new() -> RealClock {
        RealClock::with_origin(Instant::now())
    }

    /// A clock counting from `origin` (so that several job threads share one time base).
    pub fn with_origin(origin: Instant) -> RealClock {
        RealClock::with_source(origin, ClockSource::Cpu)
    }

    /// A clock counting from `origin` that reads `source`.
    pub fn with_source(origin: Instant, source: ClockSource) -> RealClock {
        match source {
            ClockSource::Cpu => {}
            ClockSource::ClockGettime => return RealClock { origin, source: Source::Monotonic },
            ClockSource::Gettimeofday => return RealClock { origin, source: Source::Micros },
        }
        let source = match tsc_scale() {
            Some(scale) => {
                // The counter value at `origin`: now, less the time elapsed since then.
                let (now_tsc, since) = (rdtsc().unwrap_or(0), origin.elapsed());
                let back = scale.ticks(u64::try_from(since.as_nanos()).unwrap_or(u64::MAX));
                Source::Tsc { origin: now_tsc.saturating_sub(back), scale }
            }
            None => Source::Monotonic,
        };
        RealClock { origin, source }
    }

    /// A clock on `CLOCK_MONOTONIC` only (`std::time::Instant`), whatever the TSC.
    pub fn monotonic() -> RealClock {
        RealClock { origin: Instant::now(), source: Source::Monotonic }
    }

    /// Whether this clock reads the TSC.
    pub fn uses_tsc(&self) -> bool {
        matches!(self.source, Source::Tsc { .. })
    }

    /// The instant this clock counts from.
    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// Nanoseconds since the origin (0 if the counter reads earlier than the origin).
    #[inline]
    pub fn now_ns(&self) -> u64 {
        match self.source {
            Source::Tsc { origin, scale } => scale.ns(rdtsc().unwrap_or(origin).saturating_sub(origin)),
            Source::Monotonic => u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX),
            Source::Micros => u64::try_from(self.origin.elapsed().as_micros() * 1000).unwrap_or(u64::MAX),
        }
    }
}

impl Default for RealClock {
    fn default() -> RealClock {
        RealClock::new()
    }
}

impl Clock for RealClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        RealClock::now_ns(self)
    }

    fn sleep_until(&self, t_ns: u64) -> impl Future<Output = ()> + Send + '_ {
        RealSleep { clock: self, until: t_ns }
    }

    fn as_real(&self) -> Option<RealClock> {
        Some(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts_real_time(c: RealClock) {
        let a = c.now_ns();
        let t = Instant::now();
        std::thread::sleep(Duration::from_millis(50));
        let b = Clock::now_ns(&c);
        let real = t.elapsed().as_nanos() as u64;
        // Within 2 % (+0.2 ms for the reads themselves) of CLOCK_MONOTONIC.
        let d = b - a;
        assert!(d.abs_diff(real) < real / 50 + 200_000, "clock {d} ns vs monotonic {real} ns (tsc {})", c.uses_tsc());
        let mut last = c.now_ns();
        for _ in 0..100_000 {
            let n = c.now_ns();
            assert!(n >= last);
            last = n;
        }
    }

    #[test]
    fn monotonic_and_counts_real_time() {
        counts_real_time(RealClock::new());
        counts_real_time(RealClock::monotonic());
        assert!(!RealClock::monotonic().uses_tsc());
    }

    #[test]
    fn shared_origin_is_one_time_base() {
        let a = RealClock::new();
        std::thread::sleep(Duration::from_millis(10));
        let b = RealClock::with_origin(a.origin());
        let (x, y) = (a.now_ns(), b.now_ns());
        assert!(x.abs_diff(y) < 1_000_000, "{x} vs {y}");
        assert!(y >= 10_000_000);
    }

    #[test]
    fn sources_as_fio_names_them() {
        let origin = Instant::now();
        let gtod = RealClock::with_source(origin, ClockSource::Gettimeofday);
        counts_real_time(gtod);
        assert!((0..1000).all(|_| gtod.now_ns().is_multiple_of(1000)), "whole microseconds");
        let mono = RealClock::with_source(origin, ClockSource::ClockGettime);
        counts_real_time(mono);
        assert!(!mono.uses_tsc() && !gtod.uses_tsc());
        assert_eq!(RealClock::with_source(origin, ClockSource::Cpu).uses_tsc(), tsc_reliable());
        for (v, n) in [("gettimeofday", 1), ("clock_gettime", 2), ("cpu", 3)] {
            assert_eq!(ClockSource::from_fio(v).map(ClockSource::fio_number), Some(n));
        }
        assert_eq!(ClockSource::from_fio("tsc"), None);
    }

    #[test]
    fn tsc_scale_round_trips() {
        let s = TscScale { mult: (1u64 << 32) / 3 };
        assert_eq!(s.ns(3_000_000_000), 999_999_999);
        assert!(s.ticks(1_000_000).abs_diff(3_000_000) <= 1);
    }
}
