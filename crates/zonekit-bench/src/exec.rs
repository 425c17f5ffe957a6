//! One job's I/O loop (fio's `do_io`): take the workload's next I/O, hand it to the engine, keep up
//! to `iodepth` in flight, reap completions, and record each one in the job's statistics.
//!
//! Times are nanoseconds of the real clock since the job's epoch (its start, then the end of
//! `ramp_time`). For synchronous engines an I/O's issue is its start and there is no submission
//! latency; for asynchronous ones `slat` runs from the I/O's preparation to the end of the
//! `commit` that sent it, `clat` from there to its reaping, `lat` from preparation to reaping.

use crate::rng::Rng;
use crate::stats::{Ddir as StatDdir, ThreadStats};
use crate::workload::{Dir, NextIo, Workload};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use zonekit_blk::clock::RealClock;
use zonekit_blk::{Completion, Ddir, Engine, Io, Queued};

/// How a job fills its write buffers (`zero_buffers`, `refill_buffers`, `scramble_buffers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferFill {
    /// Zeros, written once.
    Zero,
    /// Random data written once, then a few bytes changed before each write (fio's default).
    Scramble,
    /// Random data written once and reused as is.
    Once,
    /// New random data before every write.
    Refill,
}

/// What stops a job early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// The first error ends the job.
    Stop,
    /// Keep going after errors of these directions (`continue_on_error=read|write|io|all`).
    Continue {
        /// Read errors are counted, not fatal.
        read: bool,
        /// Write errors are counted, not fatal.
        write: bool,
    },
}

/// Live progress of a job, read by the ETA line and the signal handler's report.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bytes completed per direction.
    pub bytes: [AtomicU64; 3],
    /// I/Os completed per direction.
    pub ios: [AtomicU64; 3],
    /// 0 = setting up, 1 = ramping, 2 = running, 3 = done.
    pub state: AtomicU64,
    /// The job thread's id, once it runs.
    pub pid: AtomicU64,
    /// Set by the monitor (`--status-interval`): the job puts a copy of its numbers so far in
    /// [`Progress::snapshot`] and clears it.
    pub snapshot_wanted: AtomicBool,
    /// The job's numbers so far, when asked for.
    pub snapshot: std::sync::Mutex<Option<crate::stats::JobStats>>,
}

/// Everything the loop needs besides the engine, the workload and the statistics.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    /// In-flight limit (`iodepth`).
    pub depth: u32,
    /// Queue this many before a commit (`iodepth_batch_submit`; 0 or 1: commit each).
    pub batch_submit: u32,
    /// Reap at least this many when waiting (`iodepth_batch_complete_min`).
    pub batch_complete_min: u32,
    /// Once the queue is full, refill it only when this few are left in flight (`iodepth_low`).
    pub depth_low: u32,
    /// Stop issuing after this long (`runtime`, plus `ramp_time`).
    pub deadline: Option<Duration>,
    /// Record nothing before this (`ramp_time`).
    pub ramp: Duration,
    /// Write buffer contents.
    pub fill: BufferFill,
    /// Errors that do not end the job.
    pub errors: ErrorPolicy,
    /// Seed of the buffer contents.
    pub seed: u64,
    /// Name of each file, for error messages.
    pub file_names: Vec<String>,
}

/// How the loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopEnd {
    /// Nanoseconds from the epoch (after ramp) to the end of the last I/O.
    pub io_runtime_ns: u64,
    /// The first fatal error, as fio reports it (`io_u error on file …`), with its errno.
    pub error: Option<(i32, String)>,
}

fn engine_ddir(d: Dir) -> Ddir {
    match d {
        Dir::Read => Ddir::Read,
        Dir::Write => Ddir::Write,
        Dir::Trim => Ddir::Trim,
        Dir::Sync => Ddir::Sync,
        Dir::DataSync => Ddir::DataSync,
    }
}

fn stat_ddir(d: Dir) -> Option<StatDdir> {
    match d {
        Dir::Read => Some(StatDdir::Read),
        Dir::Write => Some(StatDdir::Write),
        Dir::Trim => Some(StatDdir::Trim),
        Dir::Sync | Dir::DataSync => None,
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    io: Option<NextIo>,
    start: u64,
    issue: u64,
}

/// The state of one running job.
pub struct JobLoop<'a> {
    engine: &'a mut dyn Engine,
    workload: &'a mut Workload,
    stats: &'a mut ThreadStats,
    cfg: LoopConfig,
    terminate: Arc<AtomicBool>,
    progress: Arc<Progress>,
    clock: RealClock,
    /// Offset of the statistics epoch from `begun` (moves at the end of the ramp).
    epoch_ns: u64,
    ramping: bool,
    rng: Rng,
    scramble: u64,
    slots: Vec<Slot>,
    free: Vec<u32>,
    pending: Vec<u32>,
    inflight: u32,
    exhausted: bool,
    /// Filling the queue (cleared when it is full, set again at `depth_low`).
    filling: bool,
    next_tick: u64,
    last_done: u64,
    error: Option<(i32, String)>,
    reaped: Vec<Completion>,
    /// An I/O the engine answered `Busy` to: it goes again after a commit and a reap.
    retry: Option<NextIo>,
    progress_every: u32,
    since_progress: u32,
}

impl<'a> JobLoop<'a> {
    /// A job loop that starts now.
    pub fn new(
        engine: &'a mut dyn Engine,
        workload: &'a mut Workload,
        stats: &'a mut ThreadStats,
        cfg: LoopConfig,
        terminate: Arc<AtomicBool>,
        progress: Arc<Progress>,
    ) -> JobLoop<'a> {
        let depth = cfg.depth.max(1);
        let ramping = !cfg.ramp.is_zero();
        progress.state.store(if ramping { 1 } else { 2 }, Ordering::Relaxed);
        let mut rng = Rng::new(cfg.seed ^ 0xb0ff);
        for tag in 0..depth {
            let buf = engine.buffer(tag);
            match cfg.fill {
                BufferFill::Zero => buf.fill(0),
                _ => fill_random(&mut rng, buf),
            }
        }
        JobLoop {
            engine,
            workload,
            stats,
            terminate,
            progress,
            clock: RealClock::new(),
            epoch_ns: 0,
            ramping,
            rng,
            scramble: 0,
            slots: vec![Slot::default(); depth as usize],
            free: (0..depth).rev().collect(),
            pending: Vec::with_capacity(depth as usize),
            inflight: 0,
            exhausted: false,
            filling: true,
            next_tick: 0,
            last_done: 0,
            error: None,
            reaped: Vec::with_capacity(depth as usize),
            retry: None,
            progress_every: 64,
            since_progress: 0,
            cfg,
        }
    }

    #[inline]
    fn now(&self) -> u64 {
        self.clock.now_ns()
    }

    /// Run until the workload is done, the deadline passes, an error stops the job, or the run
    /// is terminated; every in-flight I/O is reaped before returning.
    pub fn run(mut self) -> LoopEnd {
        if self.engine.is_sync() {
            let now = self.now();
            self.housekeeping(now);
            while !(self.exhausted || self.error.is_some() || self.terminate.load(Ordering::Relaxed)) {
                // The completion time of one I/O is the clock reading of the next housekeeping.
                let done = self.step_sync();
                self.housekeeping(done);
            }
        } else {
            loop {
                let now = self.now();
                self.housekeeping(now);
                let stop = self.exhausted || self.error.is_some() || self.terminate.load(Ordering::Relaxed);
                if !self.filling && self.inflight <= self.cfg.depth_low {
                    self.filling = true;
                }
                if !stop && self.filling {
                    self.fill_queue();
                    if self.free.is_empty() {
                        self.filling = false;
                    }
                }
                if !self.pending.is_empty() {
                    self.commit();
                }
                if self.inflight == 0 {
                    if stop || self.exhausted {
                        break;
                    }
                    continue;
                }
                let must_wait = self.free.is_empty() || !self.filling || self.exhausted || stop || self.retry.is_some();
                let min = if must_wait { self.cfg.batch_complete_min.max(1) as usize } else { 0 };
                self.reap(min);
            }
        }
        self.flush_progress();
        self.progress.state.store(3, Ordering::Relaxed);
        LoopEnd { io_runtime_ns: self.last_done.saturating_sub(self.epoch_ns), error: self.error.take() }
    }

    fn housekeeping(&mut self, now: u64) {
        if let Some(dl) = self.cfg.deadline
            && now >= dl.as_nanos() as u64
        {
            self.exhausted = true;
        }
        if self.ramping && now >= self.cfg.ramp.as_nanos() as u64 {
            // fio resets every statistic at the end of the ramp: the epoch starts again.
            self.ramping = false;
            self.epoch_ns = now;
            *self.stats = ThreadStats::new(self.stats.config());
            self.next_tick = 0;
            self.progress.state.store(2, Ordering::Relaxed);
        }
        let rel = now.saturating_sub(self.epoch_ns);
        if self.progress.snapshot_wanted.load(Ordering::Relaxed) {
            self.progress.snapshot_wanted.store(false, Ordering::Relaxed);
            let mut copy = self.stats.clone();
            let js = copy.finish(rel, rel, crate::stats::CpuTimes::default());
            if let Ok(mut slot) = self.progress.snapshot.lock() {
                *slot = Some(js);
            }
        }
        if !self.ramping && rel >= self.next_tick {
            let ms = self.stats.tick(rel);
            self.next_tick = rel + ms.clamp(1, 100) * 1_000_000;
            self.flush_progress();
        }
    }

    fn flush_progress(&mut self) {
        let bytes = self.stats.io_bytes();
        let ios = self.stats.io_blocks();
        for d in 0..3 {
            self.progress.bytes[d].store(bytes[d], Ordering::Relaxed);
            self.progress.ios[d].store(ios[d], Ordering::Relaxed);
        }
        self.since_progress = 0;
    }

    fn prepare(&mut self, tag: u32, io: &NextIo) {
        if io.dir != Dir::Write {
            return;
        }
        let len = io.len as usize;
        let fill = self.cfg.fill;
        let buf = &mut self.engine.buffer(tag)[..len];
        match fill {
            BufferFill::Refill => fill_random(&mut self.rng, buf),
            BufferFill::Scramble => {
                // fio's scramble: stamp the offset and a counter into each 512-byte block.
                self.scramble = self.scramble.wrapping_add(1);
                let stamp = io.offset ^ self.scramble.rotate_left(32);
                for block in buf.chunks_exact_mut(512) {
                    block[..8].copy_from_slice(&stamp.to_le_bytes());
                }
            }
            BufferFill::Zero | BufferFill::Once => {}
        }
    }

    /// One synchronous I/O: issue, complete, record. Returns the clock at completion.
    fn step_sync(&mut self) -> u64 {
        let Some(io) = self.workload.next() else {
            self.exhausted = true;
            return self.now();
        };
        self.prepare(0, &io);
        let eio = Io { tag: 0, ddir: engine_ddir(io.dir), file: io.file as u32, offset: io.offset, len: io.len as u32 };
        let start = self.now();
        let res = match self.engine.queue(&eio) {
            Queued::Completed(r) => r,
            Queued::Queued | Queued::Busy => {
                // An engine that is not really synchronous: commit and wait for it.
                let _ = self.engine.commit();
                self.reaped.clear();
                let _ = self.engine.getevents(1, &mut self.reaped);
                self.reaped.first().map_or(-libc::EIO, |c| c.result)
            }
        };
        let done = self.now();
        if !self.ramping {
            match stat_ddir(io.dir) {
                Some(d) => self.stats.issued(d),
                None => self.stats.sync_issued(),
            }
            self.stats.queued(1, 1);
            self.stats.submitted(1);
            self.stats.completed(1);
        }
        self.complete(io, res, start, start, done);
        done
    }

    fn fill_queue(&mut self) {
        let batch = self.cfg.batch_submit.max(1) as usize;
        while let Some(&tag) = self.free.last() {
            let Some(io) = self.retry.take().or_else(|| self.workload.next()) else {
                self.exhausted = true;
                return;
            };
            self.prepare(tag, &io);
            let eio =
                Io { tag, ddir: engine_ddir(io.dir), file: io.file as u32, offset: io.offset, len: io.len as u32 };
            let start = self.now();
            match self.engine.queue(&eio) {
                Queued::Queued => {
                    self.free.pop();
                    self.slots[tag as usize] = Slot { io: Some(io), start, issue: start };
                    self.pending.push(tag);
                    self.inflight += 1;
                    if !self.ramping {
                        match stat_ddir(io.dir) {
                            Some(d) => self.stats.issued(d),
                            None => self.stats.sync_issued(),
                        }
                    }
                    if self.pending.len() >= batch {
                        self.commit();
                    }
                }
                Queued::Completed(res) => {
                    let done = self.now();
                    if !self.ramping {
                        match stat_ddir(io.dir) {
                            Some(d) => self.stats.issued(d),
                            None => self.stats.sync_issued(),
                        }
                        self.stats.queued(self.inflight + 1, 1);
                    }
                    self.complete(io, res, start, start, done);
                }
                Queued::Busy => {
                    // Not now (the engine waits for its queued I/Os to be committed, or its queue
                    // is full): commit, reap, and queue this I/O again.
                    self.retry = Some(io);
                    if self.pending.is_empty() && self.inflight == 0 {
                        // Nothing to wait for: the engine cannot take this I/O at all.
                        self.retry = None;
                        if let Some(d) = stat_ddir(io.dir)
                            && !self.ramping
                        {
                            self.stats.dropped_io(d);
                        }
                    }
                    return;
                }
            }
            if self.error.is_some() {
                return;
            }
        }
    }

    fn commit(&mut self) {
        let n = self.pending.len() as u32;
        if let Err(e) = self.engine.commit() {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            self.error.get_or_insert((errno, format!("io_u commit error: {e}")));
        }
        let t = self.now();
        for &tag in &self.pending {
            let slot = &mut self.slots[tag as usize];
            slot.issue = t;
            if let (Some(io), false) = (slot.io, self.ramping)
                && let Some(d) = stat_ddir(io.dir)
            {
                self.stats.slat_done(d, io.len, t - slot.start, t.saturating_sub(self.epoch_ns));
            }
        }
        if !self.ramping {
            self.stats.queued(self.inflight, n);
            self.stats.submitted(n);
        }
        self.pending.clear();
    }

    fn reap(&mut self, min: usize) {
        self.reaped.clear();
        let mut reaped = std::mem::take(&mut self.reaped);
        match self.engine.getevents(min, &mut reaped) {
            Ok(_) => {}
            Err(e) => {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                self.error.get_or_insert((errno, format!("io_u getevents error: {e}")));
                // Nothing more can be reaped reliably: give up on what is in flight.
                self.inflight = 0;
                self.reaped = reaped;
                return;
            }
        }
        if reaped.is_empty() {
            self.reaped = reaped;
            return;
        }
        let done = self.now();
        if !self.ramping {
            self.stats.completed(reaped.len() as u32);
        }
        for c in reaped.drain(..) {
            let slot = std::mem::take(&mut self.slots[c.tag as usize]);
            self.inflight -= 1;
            self.free.push(c.tag);
            if let Some(io) = slot.io {
                self.complete(io, c.result, slot.start, slot.issue, done);
            }
        }
        self.reaped = reaped;
    }

    fn complete(&mut self, io: NextIo, res: i32, start: u64, issue: u64, done: u64) {
        self.last_done = done;
        if self.ramping {
            return;
        }
        let now = done.saturating_sub(self.epoch_ns);
        let start = start.max(self.epoch_ns);
        let issue = issue.max(start);
        match stat_ddir(io.dir) {
            None => {
                if res < 0 {
                    self.fail(io, res);
                } else {
                    self.stats.sync_done(done - issue);
                }
            }
            Some(d) => {
                if res < 0 {
                    self.stats.io_error(d, -res);
                    self.fail(io, res);
                    return;
                }
                let bytes = res as u64;
                if bytes < io.len {
                    self.stats.short_io(d);
                }
                // The submission latency was recorded at commit.
                self.stats.io_done_at(d, bytes, io.offset, None, done - issue, done - start, now);
            }
        }
        self.since_progress += 1;
        if self.since_progress >= self.progress_every {
            self.flush_progress();
        }
    }

    fn fail(&mut self, io: NextIo, res: i32) {
        let errno = -res;
        let fatal = match self.cfg.errors {
            ErrorPolicy::Stop => true,
            ErrorPolicy::Continue { read, write } => match io.dir {
                Dir::Read => !read,
                Dir::Write => !write,
                _ => !(read && write),
            },
        };
        if fatal && self.error.is_none() {
            let what = match io.dir {
                Dir::Read => "read",
                Dir::Write => "write",
                Dir::Trim => "trim",
                Dir::Sync => "sync",
                Dir::DataSync => "datasync",
            };
            let file = self.cfg.file_names.get(io.file).cloned().unwrap_or_default();
            let text = zonekit_core::Errno(errno).description().unwrap_or("I/O error").to_string();
            self.error = Some((
                errno,
                format!("io_u error on file {file}: {text}: {what} offset={}, buflen={}", io.offset, io.len),
            ));
        }
    }
}

/// Fill `buf` with random bytes.
pub(crate) fn fill_random(rng: &mut Rng, buf: &mut [u8]) {
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let last = rng.next_u64().to_le_bytes();
    rest.copy_from_slice(&last[..rest.len()]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::StatsConfig;
    use crate::workload::WorkloadSpec;
    use std::collections::VecDeque;

    /// An in-memory engine: synchronous, or asynchronous with completions in order.
    struct MemEngine {
        sync: bool,
        bufs: Vec<Vec<u8>>,
        data: Vec<u8>,
        queued: VecDeque<Io>,
        submitted: VecDeque<Io>,
        fail_at: Option<u64>,
    }

    impl MemEngine {
        fn new(sync: bool, depth: u32, size: usize) -> MemEngine {
            MemEngine {
                sync,
                bufs: vec![vec![0; 65536]; depth as usize],
                data: vec![0; size],
                queued: VecDeque::new(),
                submitted: VecDeque::new(),
                fail_at: None,
            }
        }

        fn exec(&mut self, io: &Io) -> i32 {
            if Some(io.offset) == self.fail_at {
                return -libc::EIO;
            }
            let (o, l) = (io.offset as usize, io.len as usize);
            match io.ddir {
                Ddir::Write => self.data[o..o + l].copy_from_slice(&self.bufs[io.tag as usize][..l]),
                Ddir::Read => {
                    let src = self.data[o..o + l].to_vec();
                    self.bufs[io.tag as usize][..l].copy_from_slice(&src);
                }
                _ => {}
            }
            io.len as i32
        }
    }

    impl Engine for MemEngine {
        fn name(&self) -> &'static str {
            "mem"
        }
        fn is_sync(&self) -> bool {
            self.sync
        }
        fn buffer(&mut self, tag: u32) -> &mut [u8] {
            &mut self.bufs[tag as usize]
        }
        fn queue(&mut self, io: &Io) -> Queued {
            if self.sync {
                Queued::Completed(self.exec(io))
            } else {
                self.queued.push_back(*io);
                Queued::Queued
            }
        }
        fn commit(&mut self) -> std::io::Result<usize> {
            let n = self.queued.len();
            self.submitted.extend(self.queued.drain(..));
            Ok(n)
        }
        fn getevents(&mut self, min: usize, out: &mut Vec<Completion>) -> std::io::Result<usize> {
            let n = self.submitted.len().max(min.min(self.submitted.len()));
            for _ in 0..n {
                let io = self.submitted.pop_front().unwrap();
                let result = self.exec(&io);
                out.push(Completion { tag: io.tag, result, at_ns: 0 });
            }
            Ok(n)
        }
    }

    fn spec(random: bool, size: u64) -> WorkloadSpec {
        WorkloadSpec::simple(false, true, random, size, 4096, 9)
    }

    fn cfg(depth: u32) -> LoopConfig {
        LoopConfig {
            depth,
            batch_submit: 1,
            batch_complete_min: 1,
            depth_low: depth,
            deadline: None,
            ramp: Duration::ZERO,
            fill: BufferFill::Scramble,
            errors: ErrorPolicy::Stop,
            seed: 1,
            file_names: vec!["f".into()],
        }
    }

    fn run(engine: &mut MemEngine, depth: u32, random: bool) -> (crate::stats::JobStats, LoopEnd) {
        let mut w = Workload::new(spec(random, 1 << 20));
        let mut st = ThreadStats::new(&StatsConfig::default());
        let end = JobLoop::new(engine, &mut w, &mut st, cfg(depth), Arc::default(), Arc::default()).run();
        let js = st.finish(end.io_runtime_ns, end.io_runtime_ns, Default::default());
        (js, end)
    }

    #[test]
    fn sync_and_async_loops_do_every_io() {
        for (sync, depth) in [(true, 1), (false, 1), (false, 8), (false, 32)] {
            let mut e = MemEngine::new(sync, depth, 1 << 20);
            let (js, end) = run(&mut e, depth, true);
            assert_eq!(end.error, None);
            assert_eq!(js.io_bytes[1], 1 << 20, "sync={sync} depth={depth}");
            assert_eq!(js.total_io_u[1], 256);
            assert_eq!(js.clat_stat[1].summary().unwrap().samples, 256);
            assert_eq!(js.slat_stat[1].summary().map(|s| s.samples).unwrap_or(0), if sync { 0 } else { 256 });
            assert!(e.data.chunks(512).all(|b| b.iter().any(|&x| x != 0)), "every block written");
            assert!(e.queued.is_empty() && e.submitted.is_empty(), "nothing left in flight");
        }
    }

    #[test]
    fn an_error_stops_the_job_with_fios_message() {
        let mut e = MemEngine::new(false, 4, 1 << 20);
        e.fail_at = Some(8192);
        let (js, end) = run(&mut e, 4, false);
        let (errno, msg) = end.error.unwrap();
        assert_eq!(errno, libc::EIO);
        assert_eq!(msg, "io_u error on file f: Input/output error: write offset=8192, buflen=4096");
        assert!(js.io_bytes[1] < 1 << 20);
        assert_eq!(js.error, libc::EIO);
    }
}
