//! fio's `cpuio` engine: each I/O burns CPU for one cycle and moves no data (fio's `FIO_NOIO`).
//!
//! - `noop` mode spins on the clock for `cycle_us` microseconds (fio's `usec_spin`).
//! - `qsort` mode sorts 256 Ki 32-bit integers four times (ascending, descending, by byte,
//!   descending again), then sets the think time after the I/O from how long that took, so that
//!   the job keeps to its load as the machine's speed changes (fio's `do_qsort`).
//!
//! The think time that makes up the load (`cycle * (100 - load) / load` µs, after every I/O) is
//! the job loop's, as in fio, so an I/O's latency is the burn alone.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::{Common, Completion, Engine, EngineConfig, EngineError, Io, Queued};
use crate::sys::buf::SlotBuffers;

/// The count of a run's jobs that do I/O (`total`, set up so far) and of those not yet ended
/// (`left`), for `exit_on_io_done`. Two are equal when they are the same counters.
#[derive(Debug, Clone, Default)]
pub struct IoJobs {
    /// Jobs that do I/O in the run.
    pub total: Arc<AtomicUsize>,
    /// Those still to end.
    pub left: Arc<AtomicUsize>,
}

impl IoJobs {
    /// fio's `fio_running_or_pending_io_threads` is false: the run had jobs doing I/O, and
    /// every one has ended.
    pub fn all_done(&self) -> bool {
        self.total.load(Ordering::Relaxed) > 0 && self.left.load(Ordering::Relaxed) == 0
    }
}

impl PartialEq for IoJobs {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.left, &other.left)
    }
}

impl Eq for IoJobs {}

/// Settings of the `cpuio` engine.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuOptions {
    /// Share of one CPU to use, in percent (1 to 100).
    pub load: u32,
    /// Length of one burn in microseconds (`cpuchunks`).
    pub cycle_us: u32,
    /// Sort arrays rather than spin (`cpumode=qsort`).
    pub qsort: bool,
    /// `exit_on_io_done`: the engine is finished, before its next burn, once these jobs have all
    /// ended (never when the run has no job doing I/O, as in fio).
    pub exit_on_io_done: Option<IoJobs>,
}

impl CpuOptions {
    /// The think time after each burn of `cycle_us` (µs), as fio computes it.
    pub fn think_us(&self, cycle_us: u64) -> u64 {
        let load = u64::from(self.load.clamp(1, 100));
        cycle_us.saturating_mul(100 - load) / load
    }
}

/// Number of 32-bit integers the qsort mode sorts (fio's `qsort_size`).
const QSORT_LEN: usize = 256 << 10;

/// Marsaglia's multiply-with-carry generator, seeded as fio seeds it, so that both sort the
/// same data.
fn mwc_data() -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..QSORT_LEN)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
            (z << 16).wrapping_add(w) as i32
        })
        .collect()
}

pub(crate) struct CpuEngine {
    opts: CpuOptions,
    bufs: SlotBuffers,
    data: Vec<i32>,
    bytes: Vec<i8>,
    think_us: u64,
}

impl CpuEngine {
    pub fn new(opts: CpuOptions, mut config: EngineConfig) -> Result<CpuEngine, EngineError> {
        let common = Common::new("cpuio", &mut config)?;
        if opts.load == 0 || opts.load > 100 {
            return Err(EngineError::Option { engine: "cpuio", why: "cpuload must be 1 to 100".into() });
        }
        let data = if opts.qsort { mwc_data() } else { Vec::new() };
        let think_us = opts.think_us(u64::from(opts.cycle_us));
        Ok(CpuEngine { opts, bufs: common.bufs, data, bytes: Vec::new(), think_us })
    }

    fn spin(&self) {
        let until = Instant::now() + Duration::from_micros(u64::from(self.opts.cycle_us));
        while Instant::now() < until {
            std::hint::spin_loop();
        }
    }

    fn sort(&mut self) {
        let t0 = Instant::now();
        self.data.sort_unstable();
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        // Re-ordered byte by byte, each byte read as a signed 8-bit value.
        self.bytes.clear();
        self.bytes.extend(self.data.iter().flat_map(|v| v.to_ne_bytes()).map(|b| b as i8));
        self.bytes.sort_unstable();
        for (v, b) in self.data.iter_mut().zip(self.bytes.chunks_exact(4)) {
            *v = i32::from_ne_bytes([b[0] as u8, b[1] as u8, b[2] as u8, b[3] as u8]);
        }
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        let cycle = t0.elapsed().as_micros() as u64;
        self.think_us = self.opts.think_us(cycle);
    }
}

impl Engine for CpuEngine {
    fn name(&self) -> &'static str {
        "cpuio"
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    fn queue(&mut self, _io: &Io) -> Queued {
        if self.opts.qsort {
            self.sort();
        } else {
            self.spin();
        }
        Queued::Completed(0)
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }

    fn moves_no_data(&self) -> bool {
        true
    }

    fn think_time_us(&self) -> Option<u64> {
        self.opts.qsort.then_some(self.think_us)
    }

    fn finished(&self) -> bool {
        self.opts.exit_on_io_done.as_ref().is_some_and(IoJobs::all_done)
    }
}
