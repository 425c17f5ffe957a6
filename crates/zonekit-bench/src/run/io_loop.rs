//! One job's I/O loop (fio's `do_io`): take the workload's next I/O, let the zone policy place it
//! (`zonemode=zbd`), hand it to the engine, keep up to `iodepth` in flight, reap completions, and
//! record each one in the job's statistics.
//!
//! Times are nanoseconds of the job's clock since the job's epoch (its start, then the end of
//! `ramp_time`). For synchronous engines an I/O's issue is its start and there is no submission
//! latency; for asynchronous ones `slat` runs from the I/O's preparation to the end of the
//! `commit` that sent it, `clat` from there to its completion (the time the engine stamps on it),
//! `lat` from preparation to completion. With `io_submit_mode=offload` ([`Engine::offloads`])
//! an I/O is issued by a submission thread of the engine: `clat` runs from that thread's issue,
//! `lat` still from the job's preparation (so the time an I/O waits to be issued counts, as in
//! fio), `slat` only when the thread's engine queued it asynchronously.
//!
//! The loop is an `async` function, generic over the clock: it waits where the zone policy waits
//! (for a zone another job holds) and, on a device with a timing model, for the completions the
//! model gives ([`Engine::next_event`]: the clock sleeps until then). On a thread
//! ([`crate::run::executor::block_on`]) a wait parks the thread or sleeps in real time (pacing);
//! in the simulated-time driver ([`crate::run::sim`]) it yields to the event loop, which moves
//! the simulated clock.

use crate::debug::Class;
use crate::options::cmdprio::CmdPrio;
use crate::run::buffers::{BufferContent, BufferGen};
use crate::run::iolog::IologWriter;
use crate::run::job_trace::JobTrace;
use crate::run::pacing::{LatSearch, LatencyVerdict, PaceConfig, Pacer, TargetStep};
use crate::stats::{Ddir as StatDdir, IoPrio, ThreadStats};
use crate::verify::run::{JobVerify, ReadCheck};
use crate::workload::{Dir, NextIo, Proposal, Workload, ZoneHooks};
use crate::zbd::{Decision, JobIo, ZoneIo, ZoneJob};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use zonekit_blk::clock::Clock;
use zonekit_blk::{Completion, Ddir, Engine, Io, Queued};

/// When a job's write buffers change between writes (`refill_buffers`, `scramble_buffers`); what
/// they hold (`zero_buffers`, patterns, compressible or duplicate data) is the job's
/// [`BufferContent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferFill {
    /// Filled once, then a few bytes changed before each write (fio's default).
    Scramble,
    /// Filled once and reused as is.
    Once,
    /// Filled anew before every write.
    Refill,
}

/// Which I/O errors do not end the job (fio's `continue_on_error`, `ignore_error`,
/// `error_dump`); the default ends it at the first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ErrorPolicy {
    /// `continue_on_error` covers read errors, write errors (every direction but reads) and
    /// verify errors (EILSEQ).
    pub cover: [bool; 3],
    /// `ignore_error`'s errnos per kind; empty: fio's default, EIO and EILSEQ.
    pub lists: [Vec<i32>; 3],
    /// `error_dump`: print the line of every error, those carried past too.
    pub dump: bool,
}

impl ErrorPolicy {
    /// fio's `td_error_type`: verify (EILSEQ), read, or write (every other direction).
    fn kind(dir: Dir, errno: i32) -> usize {
        if errno == libc::EILSEQ {
            2
        } else if dir == Dir::Read {
            0
        } else {
            1
        }
    }

    /// Whether `continue_on_error` covers an error `errno` of an I/O in `dir`: fio then counts
    /// it (`total_err`, `first_error`), carried past or not.
    pub fn covers(&self, dir: Dir, errno: i32) -> bool {
        self.cover[Self::kind(dir, errno)]
    }

    /// Whether an error `errno` of an I/O in `dir` is carried past (fio's `td_error_type` and
    /// `td_non_fatal_error`).
    pub fn non_fatal(&self, dir: Dir, errno: i32) -> bool {
        if !self.covers(dir, errno) {
            return false;
        }
        let kind = Self::kind(dir, errno);
        let list = &self.lists[kind];
        if list.is_empty() { errno == libc::EIO || errno == libc::EILSEQ } else { list.contains(&errno) }
    }
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
    /// The job's thread has ended (or the job never started): jobs that `wait_for` it may go.
    pub finished: AtomicBool,
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
    /// Reap at most this many at once (`iodepth_batch_complete_max`, at least
    /// `batch_complete_min`), except when draining the queue at the end, as fio does.
    pub batch_complete_max: u32,
    /// Once the queue is full, refill it only when this few are left in flight (`iodepth_low`).
    pub depth_low: u32,
    /// Stop issuing after this long (`runtime`, plus `ramp_time`).
    pub deadline: Option<Duration>,
    /// Record nothing before this (`ramp_time`).
    pub ramp: Duration,
    /// When write buffers are filled.
    pub fill: BufferFill,
    /// What fills them (`buffer_pattern`, `buffer_compress_percentage`, `dedupe_percentage`,
    /// `zero_buffers`, else random bytes).
    pub content: BufferContent,
    /// Errors that do not end the job.
    pub errors: ErrorPolicy,
    /// `fill_device`: a write that finds the device full (`ENOSPC`, `EDQUOT`) ends the job
    /// without an error, as fio's does.
    pub fill_device: bool,
    /// Seed of the buffer contents.
    pub seed: u64,
    /// Name of each file, for error messages.
    pub file_names: Vec<String>,
    /// The job's index in the run (0-based), for the zone policy's locks.
    pub job_id: u32,
    /// `direct=1` (fio's hint when the first direct I/O fails with EINVAL).
    pub direct: bool,
    /// `zonemode=zbd` (fio's hint when the first write fails as a zoned device fails it).
    pub zbd: bool,
    /// Rate caps, think time, latency limits and flows.
    pub pacing: PaceConfig,
    /// `write_iolog`: log every I/O as it is queued (fio's iolog version 3).
    pub write_iolog: Option<std::path::PathBuf>,
    /// `cmdprio*`: the priority of each read and write, when some take one of their own.
    pub cmdprio: Option<CmdPrio>,
    /// Nanoseconds of simulated time the job spends on each I/O it queues, between placing it
    /// (its zone locked) and handing it to the engine: fio's own turnaround (reaping, `get_io_u`,
    /// `io_submit`), which a real clock spends for real (`--host-io-ns`; 0 in real time).
    pub host_io_ns: u64,
    /// `lockfile`: the lock of each file (by the workload's file index), held while an I/O is
    /// handed to the engine; empty or `None`: no lock.
    pub file_locks: Vec<Option<std::sync::Arc<crate::run::locks::FileLock>>>,
    /// `sync_file_range`'s `SYNC_FILE_RANGE_*` flags.
    pub sync_file_range_flags: u32,
    /// `serialize_overlap`: an I/O that overlaps one in flight waits until that completes.
    pub serialize_overlap: bool,
    /// An error the job's setup recorded without failing (fio's `td_verror` in
    /// `fallocate_file`): as in fio's `do_io`, which checks the job's error once an I/O is
    /// queued, the job issues one I/O and then ends with this error.
    pub setup_error: Option<(i32, String)>,
}

/// How the loop ended.
#[derive(Debug, Clone)]
pub struct LoopEnd {
    /// Nanoseconds from the epoch (after ramp) to the end of the last I/O.
    pub io_runtime_ns: u64,
    /// The epoch: the clock reading the statistics count from (the end of `ramp_time`).
    pub epoch_ns: u64,
    /// The clock reading at which the job's runtime ends (`runtime`, from the end of the ramp
    /// as noticed), if it has one: what later phases of the job (verify, the next of `loops`)
    /// stop at.
    pub deadline_ns: Option<u64>,
    /// The first fatal error, as fio reports it (`io_u error on file …`), with its errno.
    pub error: Option<(i32, String)>,
    /// Lines fio would print with `log_err` while the job ran (zone policy messages), as
    /// printed (`zonekit: ` only where fio's start with `fio: `).
    pub log: Vec<String>,
    /// The job's verification, handed back for its verify phase.
    pub verify: Option<Box<JobVerify>>,
    /// The queue depth `latency_target` settled on (0: no target).
    pub latency_depth: u32,
    /// Where `latency_target`'s depth search stands, for a verify phase to go on from.
    pub lat_search: Option<LatSearch>,
    /// The job's trace, handed back for its next loop.
    pub(crate) trace: Option<Box<JobTrace>>,
}

/// Starts the logs' time line at the epoch `epoch_ns` with `log_unix_epoch` or
/// `log_alternate_epoch` (the clock's id was checked when the job was resolved).
fn set_log_epoch<C: Clock>(stats: &mut ThreadStats, clock: &C, epoch_ns: u64) {
    if let Some(id) = stats.config().log_alt_clock {
        let sim = clock.as_real().is_none().then_some(epoch_ns);
        stats.set_log_time_base(crate::stats::log::log_epoch_ms(id, sim).unwrap_or(0));
    }
}

/// Where fio 3.33's file operation engines record the failure of their call `func` (its
/// `td_verror`: `open(F)`, `stat(F) type=N`, `delete(F)`).
fn file_op_location(func: &str) -> Option<&'static str> {
    if func.starts_with("open(") {
        Some("engines/fileoperations.c:91")
    } else if func.starts_with("stat(") {
        Some("engines/fileoperations.c:162")
    } else if func.starts_with("delete(") {
        Some("engines/fileoperations.c:205")
    } else {
        None
    }
}
/// fio's `td_verror` of a synchronous I/O that moved nothing (backend.c, `io_queue_event`).
const FULL_RESID: &str = "file:backend.c:471, func=full resid";

fn engine_ddir(d: Dir) -> Ddir {
    match d {
        Dir::Read => Ddir::Read,
        Dir::Write => Ddir::Write,
        Dir::Trim => Ddir::Trim,
        Dir::Sync => Ddir::Sync,
        Dir::DataSync => Ddir::DataSync,
        // Its flags come from the job (`Core::submit` sets them).
        Dir::SyncFileRange => Ddir::SyncFileRange(0),
    }
}

fn stat_ddir(d: Dir) -> Option<StatDdir> {
    match d {
        Dir::Read => Some(StatDdir::Read),
        Dir::Write => Some(StatDdir::Write),
        Dir::Trim => Some(StatDdir::Trim),
        Dir::Sync | Dir::DataSync | Dir::SyncFileRange => None,
    }
}

/// One slot: the I/O in it, when it was prepared and committed, and the zone it holds locked.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    io: Option<NextIo>,
    start: u64,
    issue: u64,
    zone: Option<u32>,
    /// Holds a zone reset that the engine queued.
    reset: bool,
    /// The priority `cmdprio*` gave the I/O (`None`: the job's).
    prio: Option<IoPrio>,
    /// The length of the I/O it is the rest of (a short I/O issued again; 0: none).
    rest_of: u64,
}

/// The rest of a short I/O, to be issued again on the slot it holds.
#[derive(Debug, Clone, Copy)]
struct Requeue {
    tag: u32,
    io: NextIo,
    /// The engine completed the short I/O as it was queued (fio takes that issue back when it
    /// requeues it; one reaped later stays counted).
    sync: bool,
    /// The length of the I/O it is the rest of, which fio's `write_iolog` line keeps.
    buflen: u64,
}

/// An I/O ready to be issued: where it goes, the zone it holds locked (`zonemode=zbd`), and
/// for a read of the verify list what it is checked against.
#[derive(Debug, Clone, Copy)]
struct Issue {
    io: NextIo,
    zone: Option<u32>,
    check: Option<ReadCheck>,
}

/// The zone policies of a job's files, as the workload asks them, and (traced) the bytes with
/// data each pass start found, by file (fio's `swd`).
struct Hooks<'z>(&'z [Option<ZoneJob>], Option<&'z std::cell::RefCell<Vec<(usize, u64)>>>);

impl ZoneHooks for Hooks<'_> {
    fn adjust_dir(&self, file: usize, dir: Dir) -> Dir {
        match self.0.get(file) {
            Some(Some(z)) => z.adjust_dir(dir),
            _ => dir,
        }
    }

    fn capacity_jump(&self, file: usize, dir: Dir, pos: u64) -> Option<u64> {
        self.0.get(file)?.as_ref()?.capacity_jump(dir, pos)
    }

    fn zone_end_and_wp(&self, file: usize, pos: u64) -> (u64, u64) {
        match self.0.get(file) {
            Some(Some(z)) => z.zone_end_and_wp(pos),
            _ => (u64::MAX, u64::MAX),
        }
    }

    fn file_reset(&self, file: usize) {
        if let Some(Some(z)) = self.0.get(file) {
            let swd = z.file_reset();
            if let Some(log) = self.1 {
                log.borrow_mut().push((file, swd));
            }
        }
    }
}

/// The engine side of a job: slots, in-flight accounting, completion and statistics. The zone
/// policy drives it through [`JobIo`] (draining it, resetting zones).
struct Core<'a, C: Clock> {
    engine: &'a mut dyn Engine,
    stats: &'a mut ThreadStats,
    cfg: LoopConfig,
    progress: Arc<Progress>,
    clock: C,
    /// Offset of the statistics epoch from the clock's origin (moves at the end of the ramp).
    epoch_ns: u64,
    /// Nothing counts yet (fio's `!ramp_time_over`), or the ramp ended at a completion or a
    /// submission not long ago and the job has not moved on to its next I/O (`ramp_tail`).
    ramping: bool,
    /// The ramp is over and every statistic started again, but fio's runstate is still
    /// `TD_RAMP` until its next I/O: the completions reaped meanwhile count their bytes, not
    /// their latencies (`should_account`).
    ramp_tail: bool,
    /// Completions count their bytes only: the engine times its own calls (`own_latencies`), or
    /// the ramp's tail.
    bytes_only: bool,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Queued and not yet sent to the engine.
    pending: Vec<u32>,
    /// Queued since the last [`Core::commit`] (fio's `io_u_queued`): at least `pending.len()`,
    /// more when a wait sent some without counting them.
    batch_queued: u32,
    inflight: u32,
    /// By file: the range writes completed over since its last sync, `(first, end)`
    /// (`sync_file_range`'s range).
    written: Vec<Option<(u64, u64)>>,
    last_done: u64,
    error: Option<(i32, String)>,
    log: Vec<String>,
    reaped: Vec<Completion>,
    zones: Arc<[Option<ZoneJob>]>,
    /// Some file has a zone policy (`zones` is not all `None`).
    has_zones: bool,
    progress_every: u32,
    since_progress: u32,
    /// The result of a zone reset an engine queued (a timed device), once it completed.
    reset_result: Option<i32>,
    /// Data verification (`verify=`).
    verify: Option<Box<JobVerify>>,
    /// The job's pacing, and whether it paces anything at all.
    pacer: Pacer,
    paced: bool,
    /// The engine's `moves_no_data` and `own_latencies`, constant for the job: read once, not
    /// through a `dyn` call per I/O.
    moves_no_data: bool,
    own_latencies: bool,
    /// The `act` profile times every I/O (constant for the job).
    act: bool,
    /// The engine hands its I/Os to submission threads (`io_submit_mode=offload`), constant for
    /// the job: each I/O is counted at depth 1 with the thread's issue time, and pacing does not
    /// drain what is in flight (fio's `io_u_quiesce` has nothing in flight on the job's thread).
    offload: bool,
    /// Where an engine's own latencies are filed (`own_latencies`): reads if the job reads, else
    /// writes, as fio files them.
    own_lat_dir: StatDdir,
    /// Every read and write of a synchronous job goes through `submit` (it may take a priority
    /// of its own, `cmdprio`, or its file's lock, `lockfile`: the same mode for every file of
    /// the job), constant for the job.
    submit_all: bool,
    /// The clock at the start of the loop: pacing counts from there (fio's `td->start`).
    start_ns: u64,
    /// Reads, writes and trims completed, ramp included (think time and the latency target
    /// count them).
    completed_rw: u64,
    /// A completion over `latency_target` lowered the depth: drain before issuing more.
    drain: bool,
    /// `write_iolog`'s file, while the job runs.
    iolog: Option<IologWriter>,
    /// `fill_device`: the device is full, the job is done.
    full: bool,
    /// The priority of the I/O being submitted or completed (`None`: the job's).
    io_prio: Option<IoPrio>,
    /// The job's trace (`--debug`), and whether it traces every I/O: read once per loop, so
    /// that an untraced I/O pays one predictable branch at most.
    trace: Option<Box<JobTrace>>,
    traced: bool,
    /// The next commit's line is already traced (a rate wait's quiesce).
    commit_traced: bool,
    /// Zone lines go to this file's opening (fio resets a file's zones as it opens it).
    trace_open: Option<usize>,
    /// The zone policy is placing an I/O: a drain (a zone reset) holds the unit being filled,
    /// which fio's commit counts in its depth.
    placing: bool,
    /// The size of each file as the job's setup left it (fio's `real_file_size`): a short I/O
    /// that reaches it is not continued.
    file_sizes: Vec<u64>,
    /// The rest of short I/Os to issue again before anything new, each on the slot it came
    /// from (fio's requeue list, last in first out).
    requeue: Vec<Requeue>,
    /// The length of the I/O whose rest is completing now (0: none).
    rest_of: u64,
    /// Completions are being reaped (fio's `io_completed`), not returned as they were queued.
    reaping: bool,
}

impl<C: Clock> Core<'_, C> {
    #[inline]
    fn now(&self) -> u64 {
        self.clock.now_ns()
    }

    /// The most completions one reap takes while the job runs.
    fn reap_max(&self) -> usize {
        self.cfg.batch_complete_max.max(self.cfg.batch_complete_min).max(1) as usize
    }

    /// Microseconds since the loop started (the pacing's time base).
    fn now_us(&self) -> u64 {
        self.now().saturating_sub(self.start_ns) / 1000
    }

    /// What a completion's latency means under `max_latency` / `latency_target`: fio's line and
    /// `ETIMEDOUT` when over the limit.
    fn check_latency(&mut self, io: &NextIo, lat_ns: u64) {
        match self.pacer.latency(io.dir, lat_ns) {
            LatencyVerdict::Fine => {}
            LatencyVerdict::Quiesce => self.drain = true,
            LatencyVerdict::Fatal(max) => {
                if self.error.is_none() {
                    let what = match io.dir {
                        Dir::Read => "read",
                        Dir::Write => "write",
                        _ => "trim",
                    };
                    let file = self.cfg.file_names.get(io.file).cloned().unwrap_or_default();
                    self.log.push(format!(
                        "zonekit: latency of {lat_ns} nsec exceeds specified max ({max} nsec): {file} {what} {} {}",
                        io.offset, io.len
                    ));
                    self.error = Some((libc::ETIMEDOUT, "file:io_u.c:1432, func=max latency exceeded".into()));
                }
            }
        }
    }

    /// fio's `ramp_time_over`, asked at `now` as each I/O completes and (with submission
    /// latencies on) as each is sent: once the ramp's time has passed, every statistic starts
    /// again (`reset_all_stats`), the epoch is now, and the runtime counts from it
    /// (`runtime_exceeded` reads the reset `td->epoch`), so an end of ramp noticed late moves the
    /// deadline with it. The ramp's tail starts ([`Core::ramp_tail`]). Whether it ended now.
    #[cold]
    #[inline(never)]
    fn end_ramp_if_over(&mut self, now: u64) -> bool {
        let ramp = self.cfg.ramp.as_nanos() as u64;
        let since = now.saturating_sub(self.start_ns);
        if since < ramp {
            return false;
        }
        if let Some(dl) = self.cfg.deadline.as_mut() {
            *dl += Duration::from_nanos(since - ramp);
        }
        self.epoch_ns = now;
        self.stats.restart();
        set_log_epoch(self.stats, &self.clock, now);
        self.progress.state.store(2, Ordering::Relaxed);
        self.ramp_tail = true;
        self.bytes_only = true;
        true
    }

    /// fio asks whether the ramp is over at each completion (`should_account`): the one that
    /// finds it over adds its bytes before every statistic starts again, so only its error
    /// would count, as during the ramp. Whether the completion (of result `res`) counts nothing.
    #[cold]
    #[inline(never)]
    fn ramp_completion(&mut self, res: i64) -> bool {
        let now = self.now();
        self.end_ramp_if_over(now);
        res >= 0
    }

    /// The job moves on to its next I/O after the end of its ramp (fio's `TD_RUNNING`): from
    /// now on everything counts.
    #[cold]
    #[inline(never)]
    fn leave_ramp(&mut self) {
        if self.ramp_tail {
            self.ramping = false;
            self.ramp_tail = false;
            self.bytes_only = self.own_latencies;
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

    fn zone_of(&self, io: &NextIo) -> Option<&ZoneJob> {
        self.zones.get(io.file).and_then(Option::as_ref)
    }

    fn zone_io(io: &NextIo) -> ZoneIo {
        ZoneIo { dir: io.dir, offset: io.offset, len: io.len }
    }

    /// fio's `td_io_commit`: count the I/Os queued since the last such commit at the depth now
    /// (`io_u_mark_depth`), then send what is pending.
    fn commit(&mut self) {
        if self.traced
            && !self.commit_traced
            && (self.batch_queued > 0 || self.inflight > 0)
            && let Some(jt) = &self.trace
            && jt.io
        {
            jt.t.print(Class::Io, &format!("calling ->commit(), depth {}", self.inflight));
        }
        if self.batch_queued > 0 && self.inflight > 0 && !self.ramping && !self.offload {
            self.stats.queued(self.inflight, self.batch_queued);
        }
        self.batch_queued = 0;
        self.send();
    }

    /// Send what is pending to the engine. Before a wait this alone is what fio does (its
    /// `td_io_getevents` calls the engine's commit): those I/Os are not counted in the depth
    /// distribution until the next [`Core::commit`] counts them, if one comes.
    fn send(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let n = self.pending.len() as u32;
        if let Err(e) = self.engine.commit() {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            self.error.get_or_insert((errno, format!("io_u commit error: {e}")));
        }
        let t = self.now();
        if self.ramping && !self.ramp_tail && !self.stats.config().disable_slat {
            // fio's io_u_queued asks whether the ramp is over as it records each submission
            // latency: the I/Os sent now count those and their bytes, not their I/Os.
            self.end_ramp_if_over(t);
        }
        let counting = !self.ramping || self.ramp_tail;
        for &tag in &self.pending {
            let slot = &mut self.slots[tag as usize];
            slot.issue = t;
            // An offloaded I/O's submission is its thread's, accounted at its completion.
            if let (Some(io), true) = (slot.io, counting && !self.offload)
                && let Some(d) = stat_ddir(io.dir)
            {
                let now = t.saturating_sub(self.epoch_ns);
                match slot.prio {
                    Some(p) => self.stats.slat_done_prio(d, io.len, t - slot.start, now, p.ioprio),
                    None => self.stats.slat_done(d, io.len, t - slot.start, now),
                }
            }
        }
        if counting && !self.offload {
            self.stats.submitted(n);
        }
        self.pending.clear();
    }

    /// Wait for at least `min` completions (0: take what is ready), take at most `max` (at least
    /// `min`), and complete them.
    async fn reap(&mut self, min: usize, max: usize) {
        let fetched = self.fetch(min, max).await;
        if self.traced
            && let Some(jt) = &self.trace
            && jt.io
            && (min > 0 || !self.reaped.is_empty())
        {
            // fio reaps only when it must wait (its lines of a reap that takes nothing ready
            // would not be printed).
            jt.t.print(Class::Io, &format!("io_u_queued_complete: min={min}"));
            jt.t.print(Class::Io, &format!("getevents: {}", self.reaped.len()));
        }
        self.complete_reaped();
        if let Err(e) = fetched {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            self.error.get_or_insert((errno, format!("io_u getevents error: {e}")));
            // Nothing more can be reaped reliably: give up on what is in flight.
            self.inflight = 0;
        }
    }

    /// Put at least `min` and at most `max` completions in `reaped` (fewer when the engine has
    /// no more to give): `getevents`, and for an engine whose completions follow a timing model,
    /// which hands back only what is done by now, sleep on the clock until its next event and
    /// ask again.
    async fn fetch(&mut self, min: usize, max: usize) -> std::io::Result<()> {
        self.reaped.clear();
        let max = max.max(min);
        loop {
            let have = self.reaped.len();
            self.engine.getevents(min - have, max - have, &mut self.reaped)?;
            if self.reaped.len() >= min {
                return Ok(());
            }
            let Some(t) = self.engine.next_event() else { return Ok(()) };
            let t = t.max(self.now() + 1);
            self.clock.sleep_until(t).await;
        }
    }

    /// Complete what [`Core::fetch`] put in `reaped`.
    fn complete_reaped(&mut self) {
        let mut reaped = std::mem::take(&mut self.reaped);
        if reaped.is_empty() {
            self.reaped = reaped;
            return;
        }
        if (!self.ramping || self.ramp_tail) && !self.offload {
            self.stats.completed(reaped.len() as u32);
        }
        for c in reaped.drain(..) {
            let slot = std::mem::take(&mut self.slots[c.tag as usize]);
            self.inflight -= 1;
            if slot.reset {
                self.reset_result = Some(c.result);
            }
            if let Some(io) = slot.io {
                if let Some(z) = slot.zone
                    && let Some(zj) = self.zone_of(&io)
                {
                    let traced = self.traced && self.trace.as_ref().is_some_and(|jt| jt.zbd);
                    let name = &zj.file.name;
                    if traced && let Some(jt) = &self.trace {
                        jt.t.print(
                            Class::Zbd,
                            &format!("{name}: terminate I/O ({}, {}) for zone {z}", io.offset, io.len),
                        );
                    }
                    let closed = zj.completed(&Self::zone_io(&io), z, self.cfg.job_id);
                    if closed
                        && traced
                        && let Some(jt) = &self.trace
                    {
                        jt.t.print(Class::Zbd, &format!("{name}: closing zone {z}"));
                    }
                }
                self.io_prio = slot.prio;
                let mut issue = slot.issue;
                if self.offload {
                    issue = self.offloaded(c.tag, &io, &slot);
                    if c.result < 0
                        && let Some((errno, func)) = self.engine.failure()
                    {
                        // The engine's own call failed (a file operation): the job ends with
                        // it, and the I/O is not one of the job's (as in `step_sync`).
                        self.error.get_or_insert((errno, format!("func={func}")));
                        self.free.push(c.tag);
                        continue;
                    }
                }
                self.rest_of = slot.rest_of;
                self.reaping = true;
                if self.traced {
                    self.complete_traced(c.tag, io, i64::from(c.result), slot.start, issue, c.at_ns);
                } else {
                    self.complete(c.tag, io, i64::from(c.result), slot.start, issue, c.at_ns);
                }
                self.reaping = false;
                self.rest_of = 0;
                if self.requeued(c.tag) {
                    // The slot keeps the rest of a short I/O until it goes out again.
                    continue;
                }
            }
            self.free.push(c.tag);
        }
        self.reaped = reaped;
    }

    /// The pacing's `--debug=rate` lines so far, printed.
    fn flush_rate_trace(&mut self) {
        let lines = self.pacer.take_log();
        if let Some(jt) = &self.trace {
            for l in lines {
                jt.t.print(Class::Rate, &l);
            }
        }
    }

    /// [`Core::complete`] with fio's lines: `complete:`, the checks of a verifying read, the
    /// file's reference dropped.
    fn complete_traced(&mut self, tag: u32, io: NextIo, res: i64, start: u64, issue: u64, done: u64) {
        if let Some(jt) = &self.trace {
            jt.io_line("complete", tag, &io);
            if jt.verify
                && res > 0
                && let Some(v) = &self.verify
                && io.dir == Dir::Read
                && v.checks(tag)
            {
                jt.verify_check(&v.plan().spec, tag, res as u64);
            }
        }
        self.complete(tag, io, res, start, issue, done);
        if let Some(jt) = self.trace.as_mut() {
            jt.done(io.file);
        }
    }

    /// What fio's submission workers account for an offloaded I/O (`rate-submit.c`): each I/O
    /// at depth 1 (submitted and completed alone), a submission latency from the job's
    /// preparation to the thread's issue when the thread's engine queued it, and the latencies
    /// an engine measures itself. Returns the thread's issue time.
    fn offloaded(&mut self, tag: u32, io: &NextIo, slot: &Slot) -> u64 {
        let h = self.engine.hand_off(tag).unwrap_or_default();
        let issue = h.issue_ns.max(slot.start);
        if self.ramping {
            return issue;
        }
        self.stats.queued(1, 1);
        self.stats.submitted(1);
        self.stats.completed(1);
        let now = issue.saturating_sub(self.epoch_ns);
        if h.submitted
            && let Some(d) = stat_ddir(io.dir)
        {
            match slot.prio {
                Some(p) => self.stats.slat_done_prio(d, io.len, issue - slot.start, now, p.ioprio),
                None => self.stats.slat_done(d, io.len, issue - slot.start, now),
            }
        }
        if self.own_latencies {
            let mut lats = Vec::new();
            self.engine.take_latencies(&mut lats);
            for ns in lats {
                self.stats.engine_clat_sample(self.own_lat_dir, ns, now);
            }
        }
        issue
    }

    /// A drain before pacing waits (fio's `io_u_quiesce` in `rate_ddir`, `handle_thinktime`,
    /// the flows and the latency target): with `io_submit_mode=offload` fio's job thread has
    /// nothing in flight of its own, so nothing is drained and the job keeps its pace.
    async fn pace_quiesce(&mut self) {
        if !self.offload {
            self.quiesce().await;
        }
    }

    /// fio's handling of a short I/O (`resid`), on either of its paths: an I/O the engine
    /// completed as it was queued (`sync`: backend.c's `io_queue_event`) or one reaped later
    /// (io_u.c's `io_completed`). `Ok(Some(rest))`: the rest is to be issued again, this I/O is
    /// not complete; `Ok(None)`: complete it as it is (`res` may have become 0 bytes);
    /// `Err(())`: it moved nothing on the synchronous path, fio's "full resid" error, handled.
    fn short(&mut self, tag: u32, io: &NextIo, res: &mut i64, sync: bool, buflen: u64) -> Result<Option<NextIo>, ()> {
        let bytes = *res as u64;
        let Some(d) = stat_ddir(io.dir) else { return Ok(None) };
        if sync && bytes == 0 {
            self.full_resid(io, d);
            return Err(());
        }
        if bytes == 0 {
            // Reaped with nothing moved: a completion of no bytes, neither short nor an error.
            return Ok(None);
        }
        if !self.ramping {
            self.stats.short_io(d);
        }
        let rest = NextIo { offset: io.offset + bytes, len: io.len - bytes, ..*io };
        let file_end = self.file_sizes.get(io.file).copied().unwrap_or(u64::MAX);
        if sync && rest.offset == file_end {
            // fio completes it where the file ends, with the rest as its length and as its
            // residue: no bytes counted.
            *res = 0;
            return Ok(None);
        }
        if !sync && rest.offset >= file_end {
            return Ok(None);
        }
        // The rest goes from (or lands at) the start of the slot's buffer where fio moves
        // `xfer_buf` on: the whole I/O's buffer turns round so that the rest's part comes first,
        // and turns back once the rest is done, leaving the buffer whole (the next write's data;
        // the read a verify checks).
        let buf = self.engine.buffer(tag);
        let end = (buflen as usize).min(buf.len());
        buf[..end].rotate_left((bytes as usize).min(end));
        Ok(Some(rest))
    }

    /// A short I/O, or the rest of one, completed (kept out of [`Core::complete`]'s way): true
    /// when it is done with (its rest on the requeue list, or failed as fio's "full resid"); else
    /// it completes with `res`, its buffer turned back.
    #[cold]
    #[inline(never)]
    fn short_or_rest(&mut self, tag: u32, io: &NextIo, res: &mut i64, sync: bool, buflen: u64, done: u64) -> bool {
        if *res >= 0 && (*res as u64) < io.len && !self.moves_no_data {
            match self.short(tag, io, res, sync, buflen) {
                Ok(Some(rest)) => {
                    self.io_prio = None;
                    self.last_done = done;
                    self.requeue.push(Requeue { tag, io: rest, sync, buflen });
                    return true;
                }
                Ok(None) => {}
                Err(()) => {
                    self.io_prio = None;
                    self.last_done = done;
                    self.unturn(tag, io, buflen);
                    return true;
                }
            }
        }
        self.unturn(tag, io, buflen);
        false
    }

    /// Whether the I/O just completed on slot `tag` left its rest on the requeue list (which
    /// then holds the slot).
    fn requeued(&self, tag: u32) -> bool {
        self.requeue.last().is_some_and(|r| r.tag == tag)
    }

    /// The rest of a short I/O is done: its buffer turns back (see [`Core::short`]).
    fn unturn(&mut self, tag: u32, io: &NextIo, buflen: u64) {
        if buflen > io.len {
            let buf = self.engine.buffer(tag);
            let end = (buflen as usize).min(buf.len());
            buf[..end].rotate_right(((buflen - io.len) as usize).min(end));
        }
    }

    /// fio's "full resid": a synchronous read or write that moved nothing fails with `EIO`
    /// (no `io_u error` line); `continue_on_error` may carry past it, as past any error.
    fn full_resid(&mut self, io: &NextIo, d: StatDdir) {
        let covered = self.cfg.errors.covers(io.dir, libc::EIO);
        if !self.ramping {
            if covered {
                self.stats.io_error(d, libc::EIO);
            } else {
                self.stats.uncounted_error(libc::EIO);
            }
        }
        if !(covered && self.cfg.errors.non_fatal(io.dir, libc::EIO)) {
            self.error.get_or_insert((libc::EIO, FULL_RESID.into()));
        }
    }

    /// Complete `io` with `res` (bytes or `-errno`), an I/O the engine completed as it was
    /// queued unless `reaping`, the rest of a short one if `rest_of` is set. A short one's rest
    /// goes on the requeue list, holding the slot.
    fn complete(&mut self, tag: u32, io: NextIo, res: i64, start: u64, issue: u64, done: u64) {
        let mut res = res;
        if ((res as u64) < io.len && res >= 0 && !self.moves_no_data) || self.rest_of != 0 {
            let (sync, buflen) = (!self.reaping, self.rest_of.max(io.len));
            if self.short_or_rest(tag, &io, &mut res, sync, buflen, done) {
                return;
            }
        }
        let prio = self.io_prio.take();
        self.last_done = done;
        if let Some(v) = self.verify.as_mut() {
            let name = self.cfg.file_names.get(io.file).map_or("", String::as_str);
            let buf = self.engine.buffer(tag);
            // The rest of a short I/O: verify sees the whole I/O, its buffer whole again.
            let before = self.rest_of.saturating_sub(io.len);
            let (whole, wres) = if before > 0 && res >= 0 {
                (NextIo { offset: io.offset - before, len: self.rest_of, ..io }, res + before as i64)
            } else {
                (io, res)
            };
            if let Err(e) = v.completed(tag, &whole, wres, buf, name) {
                self.log.extend(e.lines.into_iter().map(|l| match l.strip_prefix("fio: ") {
                    Some(rest) => format!("zonekit: {rest}"),
                    None => l,
                }));
                if e.fatal {
                    self.error.get_or_insert((libc::EILSEQ, e.verror.to_string()));
                } else if !self.ramping {
                    self.stats.io_error(StatDdir::Read, libc::EILSEQ);
                }
            }
        }
        // fio's unlog_io_piece, ramp or not: a failed write the verify list logged marks its
        // block (`block_error_percentiles`).
        if res < 0 && io.dir == Dir::Write && self.verify.as_ref().is_some_and(|v| v.plan().log_writes) {
            self.stats.block_failed(StatDdir::Write, io.offset);
        }
        if self.paced && io.dir.index().is_some() {
            self.completed_rw += 1;
            if res >= 0 {
                self.check_latency(&io, done.saturating_sub(start));
                if self.traced {
                    self.flush_rate_trace();
                }
            }
        }
        if self.ramping && !self.ramp_tail && self.ramp_completion(res) {
            return;
        }
        let now = done.saturating_sub(self.epoch_ns);
        let start = start.max(self.epoch_ns);
        let issue = issue.max(start);
        let done = done.max(issue);
        if io.dir == Dir::Write && res >= 0 {
            // fio's file_log_write_comp: the range written since the file's last sync.
            if self.written.len() <= io.file {
                self.written.resize(io.file + 1, None);
            }
            let end = io.offset + io.len;
            let w = self.written[io.file].get_or_insert((io.offset, end));
            *w = (w.0.min(io.offset), w.1.max(end));
        } else if stat_ddir(io.dir).is_none()
            && let Some(w) = self.written.get_mut(io.file)
        {
            *w = None;
        }
        match stat_ddir(io.dir) {
            None => {
                if res < 0 {
                    self.fail(io, res);
                } else if !self.ramp_tail {
                    self.stats.sync_done(done - issue);
                }
            }
            Some(d) => {
                if res < 0 && self.device_full(&io, res) {
                    return;
                }
                if res < 0 {
                    // fio counts (`total_err`, `first_error`) the errors of the kinds
                    // `continue_on_error` covers, whether it carries past them or not.
                    if self.cfg.errors.covers(io.dir, (-res) as i32) {
                        self.stats.io_error(d, (-res) as i32);
                    } else {
                        self.stats.uncounted_error((-res) as i32);
                    }
                    self.fail(io, res);
                    return;
                }
                let bytes = res as u64;
                if self.bytes_only {
                    self.stats.io_done_unmeasured(d, bytes);
                } else {
                    // The submission latency was recorded at commit.
                    match prio {
                        Some(p) => {
                            self.stats.io_done_prio(d, bytes, io.offset, None, done - issue, done - start, now, p)
                        }
                        None => self.stats.io_done_at(d, bytes, io.offset, None, done - issue, done - start, now),
                    }
                    if self.act
                        && let Some(line) = self.stats.act_lat(done - start, now)
                    {
                        // fio's act_io_u_lat fails the I/O with 1 (EPERM) when an hour's slice
                        // misses ACT's criteria.
                        self.log.push(line);
                        let func = if self.engine.is_sync() {
                            "file:io_u.c:2152, func=io_u_sync_complete"
                        } else {
                            "file:io_u.c:2190, func=io_u_queued_complete"
                        };
                        self.error.get_or_insert((libc::EPERM, func.into()));
                    }
                }
            }
        }
        self.since_progress += 1;
        if self.since_progress >= self.progress_every {
            self.flush_progress();
        }
    }

    /// `fill_device`: a write that finds no space left ends the job, fio's line logged and its
    /// error cleared (backend.c's io_u error handling).
    fn device_full(&mut self, io: &NextIo, res: i64) -> bool {
        let errno = (-res) as i32;
        if !self.cfg.fill_device || io.dir != Dir::Write || !matches!(errno, libc::ENOSPC | libc::EDQUOT) {
            return false;
        }
        if !self.full {
            let file = self.cfg.file_names.get(io.file).cloned().unwrap_or_default();
            let text = zonekit_core::Errno(errno).description().unwrap_or("I/O error");
            self.log.push(format!(
                "zonekit: io_u error on file {file}: {text}: write offset={}, buflen={}",
                io.offset, io.len
            ));
        }
        self.full = true;
        true
    }

    fn fail(&mut self, io: NextIo, res: i64) {
        let errno = (-res) as i32;
        let fatal = !self.cfg.errors.non_fatal(io.dir, errno);
        if (fatal && self.error.is_none()) || (!fatal && self.cfg.errors.dump) {
            let what = match io.dir {
                Dir::Read => "read",
                Dir::Write => "write",
                Dir::Trim => "trim",
                Dir::Sync => "sync",
                Dir::DataSync => "datasync",
                Dir::SyncFileRange => "sync_file_range",
            };
            let file = self.cfg.file_names.get(io.file).cloned().unwrap_or_default();
            let text = zonekit_core::Errno(errno).description().unwrap_or("I/O error").to_string();
            let line = format!("io_u error on file {file}: {text}: {what} offset={}, buflen={}", io.offset, io.len);
            if fatal {
                self.error = Some((errno, line));
            } else {
                // `error_dump`: fio logs the line of an error it carries past as it happens.
                self.log.push(format!("zonekit: {line}"));
            }
        }
    }
}

impl<C: Clock> Core<'_, C> {
    /// `serialize_overlap`: whether `io`'s byte range overlaps that of an I/O in flight (queued
    /// or sent). As fio's `in_flight_overlap`, offsets are compared whatever the file.
    fn overlaps_in_flight(&self, io: &NextIo) -> bool {
        let (a, b) = (io.offset, io.offset + io.len);
        self.slots.iter().filter_map(|s| s.io).any(|x| a < x.offset + x.len && x.offset < b)
    }
}

impl<C: Clock> JobIo for Core<'_, C> {
    fn job_id(&self) -> u32 {
        self.cfg.job_id
    }

    fn sync_engine(&self) -> bool {
        self.engine.is_sync()
    }

    async fn quiesce(&mut self) {
        let traced_here = self.placing && self.traced && !self.commit_traced;
        if traced_here
            && let Some(jt) = self.trace.as_mut()
            && jt.io
        {
            // fio quiesces holding the unit it is filling: its commit counts it in the depth.
            jt.later(Class::Io, format!("calling ->commit(), depth {}", self.inflight + 1));
            self.commit_traced = true;
        }
        self.commit();
        while self.inflight > 0 {
            let before = self.inflight;
            self.reap(1, self.reap_max()).await;
            if self.inflight == before {
                if self.error.is_none() {
                    self.error = Some((libc::EIO, "io_u error: an in-flight I/O never completed".into()));
                }
                break;
            }
        }
        if traced_here {
            self.commit_traced = false;
        }
    }

    async fn reset_zones(&mut self, file: usize, offset: u64, len: u64) -> i32 {
        let Ok(len) = u32::try_from(len) else { return -libc::EINVAL };
        loop {
            // Any slot will do: a reset carries no data, and engines run it inline.
            let tag = self.free.last().copied().unwrap_or(0);
            let io = Io { tag, ddir: Ddir::ZoneReset, file: file as u32, offset, len };
            match self.engine.queue(&io) {
                Queued::Completed(r) => return r,
                Queued::Busy => {
                    // The engine runs it once what is queued is sent: send it, and make room.
                    if !self.pending.is_empty() {
                        self.commit();
                    } else if self.inflight > 0 {
                        let before = self.inflight;
                        self.reap(1, self.reap_max()).await;
                        if self.inflight == before {
                            return -libc::EIO;
                        }
                    } else {
                        return -libc::EBUSY;
                    }
                }
                Queued::Queued => {
                    // An engine that queues resets (a timed device): the reset holds its slot
                    // until it completes, and what else completes meanwhile completes as usual.
                    self.free.retain(|&f| f != tag);
                    self.slots[tag as usize] = Slot { reset: true, ..Slot::default() };
                    self.inflight += 1;
                    self.reset_result = None;
                    let _ = self.engine.commit();
                    while self.reset_result.is_none() {
                        let before = self.inflight;
                        self.reap(1, self.reap_max()).await;
                        if self.inflight == before {
                            return -libc::EIO;
                        }
                    }
                    return self.reset_result.take().unwrap_or(-libc::EIO);
                }
            }
        }
    }

    fn zone_reset_done(&mut self) {
        self.stats.zone_reset();
    }

    fn verror(&mut self, errno: i32, func: &str) {
        self.error.get_or_insert((errno, crate::zbd::verror(func)));
    }

    fn log_err(&mut self, line: String) {
        self.log.push(line);
    }

    fn trace_on(&self, class: Class) -> bool {
        self.traced && self.trace.as_ref().is_some_and(|jt| jt.t.on(class))
    }

    fn trace_line(&mut self, class: Class, line: String) {
        if let Some(jt) = self.trace.as_mut() {
            match self.trace_open {
                Some(k) => jt.at_open(k, class, line),
                None => jt.later(class, line),
            }
        }
    }
}

/// The state of one running job.
pub struct JobLoop<'a, C: Clock> {
    core: Core<'a, C>,
    workload: &'a mut Workload,
    terminate: Arc<AtomicBool>,
    buffers: BufferGen,
    scramble: u64,
    exhausted: bool,
    /// Filling the queue (cleared when it is full, set again at `depth_low`).
    filling: bool,
    next_tick: u64,
    /// An I/O the engine answered `Busy` to: it goes again after a commit and a reap.
    retry: Option<Issue>,
    /// The priority `retry` drew (`cmdprio`; `Some(None)`: the job's), when the engine answered
    /// it busy: it keeps it when queued again.
    busy_prio: Option<Option<IoPrio>>,
    /// The workload's pass the engine last saw (`files_closed` between two).
    pass_seen: u32,
    /// Nothing to wait for or place before an I/O (no zones, pacing, verify or replay): the next
    /// I/O is the workload's, taken without the general path's futures (set by `run`).
    plain: bool,
    /// The workload's pass the trace last saw.
    pass: u32,
    /// [`LoopConfig::setup_error`], until the first I/O is taken.
    setup_error: Option<(i32, String)>,
    /// Whether an I/O was taken (for `setup_error`).
    took_one: bool,
}

impl<'a, C: Clock> JobLoop<'a, C> {
    /// A job loop over `engine`, timed by `clock` (the clock the engine stamps completions with),
    /// with the zone policy of each file (`None` for a file without zones).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        engine: &'a mut dyn Engine,
        workload: &'a mut Workload,
        stats: &'a mut ThreadStats,
        cfg: LoopConfig,
        terminate: Arc<AtomicBool>,
        progress: Arc<Progress>,
        clock: C,
        zones: Vec<Option<ZoneJob>>,
    ) -> JobLoop<'a, C> {
        let depth = cfg.depth.max(1);
        let ramping = !cfg.ramp.is_zero();
        progress.state.store(if ramping { 1 } else { 2 }, Ordering::Relaxed);
        let mut buffers = BufferGen::new(&cfg.content, cfg.seed ^ crate::run::buffers::LOOP_SEED);
        // fio's init_io_u: each buffer filled once for a job that writes.
        for tag in 0..depth {
            buffers.fill(engine.buffer(tag), cfg.content.min_write);
        }
        for z in zones.iter().flatten() {
            z.file.add_job(cfg.job_id);
        }
        let epoch_ns = clock.now_ns();
        let pacer = Pacer::new(cfg.pacing.clone());
        set_log_epoch(stats, &clock, epoch_ns);
        let (moves_no_data, own_latencies) = (engine.moves_no_data(), engine.own_latencies());
        let offload = engine.offloads();
        let own_lat_dir = if workload.spec().read { StatDdir::Read } else { StatDdir::Write };
        let submit_all = cfg.cmdprio.is_some() || cfg.file_locks.first().is_some_and(Option::is_some);
        // fio's act profile reads each I/O's total latency, which disable_lat leaves out.
        let act = stats.has_act() && !stats.config().disable_lat;
        JobLoop {
            core: Core {
                moves_no_data,
                own_latencies,
                act,
                offload,
                own_lat_dir,
                bytes_only: own_latencies,
                submit_all,
                engine,
                stats,
                progress,
                clock,
                epoch_ns,
                ramping,
                ramp_tail: false,
                slots: vec![Slot::default(); depth as usize],
                free: (0..depth).rev().collect(),
                pending: Vec::with_capacity(depth as usize),
                batch_queued: 0,
                inflight: 0,
                written: Vec::new(),
                last_done: epoch_ns,
                error: None,
                log: Vec::new(),
                reaped: Vec::with_capacity(depth as usize),
                has_zones: zones.iter().any(Option::is_some),
                zones: zones.into(),
                progress_every: 64,
                since_progress: 0,
                reset_result: None,
                verify: None,
                paced: pacer.active(),
                pacer,
                start_ns: epoch_ns,
                completed_rw: 0,
                drain: false,
                iolog: None,
                full: false,
                io_prio: None,
                trace: None,
                traced: false,
                commit_traced: false,
                trace_open: None,
                placing: false,
                file_sizes: workload.spec().files.iter().map(|f| f.size).collect(),
                requeue: Vec::new(),
                rest_of: 0,
                reaping: false,
                cfg,
            },
            workload,
            terminate,
            buffers,
            scramble: 0,
            exhausted: false,
            filling: true,
            next_tick: 0,
            retry: None,
            busy_prio: None,
            pass_seen: 0,
            plain: false,
            setup_error: None,
            took_one: false,
            pass: 0,
        }
    }

    fn stopped(&self) -> bool {
        self.exhausted || self.core.full || self.core.error.is_some() || self.terminate.load(Ordering::Relaxed)
    }

    /// Run until the workload is done, the deadline passes, an error stops the job, or the run
    /// is terminated; every in-flight I/O is reaped before returning.
    pub async fn run(mut self) -> LoopEnd {
        let start = self.core.epoch_ns;
        if let Some(path) = self.core.cfg.write_iolog.clone() {
            match IologWriter::create(&path, &self.core.cfg.file_names, start) {
                Ok(w) => self.core.iolog = Some(w),
                Err(e) => {
                    // fio's perror line, then its job error.
                    self.core.log.push(format!("fopen write iolog: {}", zonekit_core::io_text(&e)));
                    self.core.error = Some((libc::EINVAL, "file:iolog.c:795, func=failed initializing iolog".into()));
                }
            }
        }
        // Opening the files starts the first pass (fio's fio_file_reset at td_io_open_file).
        if self.workload.spec().write {
            let zones = self.core.zones.clone();
            for z in zones.iter().flatten() {
                let swd = z.file_reset();
                // fio prints these lines as it opens the file, at its first I/O.
                self.core.trace_open = Some(z.file_index);
                if self.core.traced
                    && let Some(jt) = self.core.trace.as_mut()
                    && jt.zbd
                {
                    jt.at_open(z.file_index, Class::Zbd, format!("zbd_file_reset({}): swd = {swd}", z.file.name));
                }
                z.reset_for_verify(&mut self.core).await;
                self.core.trace_open = None;
            }
        }
        self.setup_error = self.core.cfg.setup_error.take();
        self.plain = !self.core.has_zones
            && self.setup_error.is_none()
            && !self.core.paced
            && self.core.verify.is_none()
            && self.workload.spec().replay.is_none()
            && !self.core.traced;
        if self.core.engine.is_sync() {
            let now = self.core.now();
            self.housekeeping(now, start);
            while !self.stopped() {
                // The completion time of one I/O is the clock reading of the next housekeeping.
                let done = self.step_sync().await;
                self.housekeeping(done, start);
                if self.core.paced {
                    self.pace_checks().await;
                }
            }
        } else {
            loop {
                let now = self.core.now();
                self.housekeeping(now, start);
                let stop = self.stopped();
                if !self.filling && self.core.inflight <= self.core.cfg.depth_low {
                    self.filling = true;
                }
                if !stop && self.filling {
                    self.fill_queue().await;
                    if self.core.free.is_empty() {
                        self.filling = false;
                    }
                }
                self.core.send();
                if self.core.inflight == 0 {
                    if stop || self.exhausted {
                        break;
                    }
                    continue;
                }
                if self.core.paced {
                    self.pace_checks().await;
                }
                let must_wait = self.core.free.is_empty()
                    || self.at_depth_limit()
                    || !self.filling
                    || self.exhausted
                    || stop
                    || self.retry.is_some()
                    || self.core.error.is_some();
                // fio's do_io: wait for iodepth_batch_complete_min when the queue is full, taking at
                // most iodepth_batch_complete_max; at the end, wait for everything at once.
                let (min, max) = if stop || self.exhausted {
                    let all = self.core.inflight as usize;
                    (all, all)
                } else if must_wait {
                    (self.core.cfg.batch_complete_min.max(1) as usize, self.core.reap_max())
                } else {
                    (0, self.core.reap_max())
                };
                self.core.reap(min, max).await;
            }
        }
        if let Some(r) = self.retry.take() {
            // Never issued: release what it holds.
            if let (Some(z), Some(zj)) = (r.zone, self.core.zone_of(&r.io)) {
                zj.file.unlock(z);
            }
        }
        self.core.flush_progress();
        if let Some(w) = self.core.iolog.take() {
            let now = self.core.now();
            if let Err(e) = w.finish(now) {
                let path = self.core.cfg.write_iolog.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
                self.core.log.push(format!("zonekit: write_iolog {path}: {e}"));
                self.core.error.get_or_insert((e.raw_os_error().unwrap_or(libc::EIO), "func=iolog write".into()));
            }
        }
        self.core.progress.state.store(3, Ordering::Relaxed);
        // fio's runtime[ddir] runs from the end of the ramp to the end of do_io, not to the
        // last completion: a job left idle (a clone waiting on a zone) keeps its runtime.
        let end = self.core.now().max(self.core.last_done);
        let c = &mut self.core;
        LoopEnd {
            io_runtime_ns: end.saturating_sub(c.epoch_ns),
            epoch_ns: c.epoch_ns,
            deadline_ns: c.cfg.deadline.map(|d| start.saturating_add(d.as_nanos() as u64)),
            error: c.error.take(),
            log: std::mem::take(&mut c.log),
            verify: c.verify.take(),
            latency_depth: if c.pacer.config().latency_target_ns > 0 { c.pacer.depth_limit() } else { 0 },
            lat_search: c.pacer.lat_search(),
            trace: c.trace.take(),
        }
    }

    /// Go on from an earlier loop of the same job (its verify phase): the statistics keep
    /// counting from its epoch, the deadline stays the job's.
    pub fn continue_from(mut self, epoch_ns: u64) -> Self {
        self.core.epoch_ns = epoch_ns;
        self.core.ramping = false;
        self.core.ramp_tail = false;
        self.core.bytes_only = self.core.own_latencies;
        self.core.progress.state.store(2, Ordering::Relaxed);
        self
    }

    /// A verify phase: `latency_target`'s depth stays where the write phase left it (`None`:
    /// no target), with no window checks, as in fio's `do_verify`.
    pub fn resume_latency_search(mut self, s: Option<LatSearch>) -> Self {
        if let Some(s) = s {
            self.core.pacer.resume_search(s);
        }
        self
    }

    /// Verify data as fio's `verify=` does: fill writes with headers, check reads.
    pub fn with_verify(mut self, v: Option<Box<JobVerify>>) -> Self {
        self.core.verify = v;
        self
    }

    /// Trace the loop (`--debug`): every I/O's lines when a class of them is on.
    pub(crate) fn with_trace(mut self, jt: Option<Box<JobTrace>>) -> Self {
        self.core.traced = jt.as_ref().is_some_and(|t| t.per_io());
        self.workload.trace_random(self.core.traced);
        self.core.pacer.trace(self.core.traced && jt.as_ref().is_some_and(|t| t.rate));
        self.core.trace = jt;
        self
    }

    /// fio's lines of an I/O the job is about to issue on unit `tag`: its file picked (or, for a
    /// read of the verify list, taken), the lines of its placing, `fill:`, `prep:`, a verified
    /// write's headers, `queue:`.
    fn trace_issue(&mut self, tag: u32, issue: &Issue) {
        let Some(jt) = self.core.trace.as_mut() else { return };
        let io = &issue.io;
        if issue.check.is_some() {
            jt.verify_read(io.file, tag);
        } else {
            jt.select(io.file);
            jt.io_line("fill", tag, io);
        }
        jt.prep(tag, io);
        if io.dir == Dir::Write
            && let Some(v) = &self.core.verify
        {
            jt.verify_fill(&v.plan().spec, tag, io.len);
        }
        jt.io_line("queue", tag, io);
    }

    fn housekeeping(&mut self, now: u64, start: u64) {
        let c = &mut self.core;
        if let Some(dl) = c.cfg.deadline
            && now.saturating_sub(start) >= dl.as_nanos() as u64
        {
            self.exhausted = true;
        }
        if c.ramp_tail {
            // The end of the ramp was noticed at a completion or a submission (fio asks
            // nowhere else): the job moves on.
            c.leave_ramp();
            self.next_tick = 0;
        }
        let rel = now.saturating_sub(c.epoch_ns);
        if c.progress.snapshot_wanted.load(Ordering::Relaxed) {
            c.progress.snapshot_wanted.store(false, Ordering::Relaxed);
            let mut copy = c.stats.clone();
            let js = copy.finish(rel, rel, crate::stats::CpuTimes::default());
            if let Ok(mut slot) = c.progress.snapshot.lock() {
                *slot = Some(js);
            }
        }
        if !c.ramping && rel >= self.next_tick {
            let ms = c.stats.tick(rel);
            self.next_tick = rel + ms.clamp(1, 100) * 1_000_000;
            c.flush_progress();
        }
    }

    fn prepare(&mut self, tag: u32, issue: &Issue) {
        let io = &issue.io;
        if let Some(v) = self.core.verify.as_mut() {
            match io.dir {
                Dir::Write => {
                    let now = self.core.clock.now_ns();
                    let buf = &mut self.core.engine.buffer(tag)[..io.len as usize];
                    v.prepare_write(tag, io, buf, now);
                    return;
                }
                Dir::Read => v.prepare_read(tag, issue.check),
                _ => {}
            }
        }
        if io.dir != Dir::Write {
            return;
        }
        let len = io.len as usize;
        let fill = self.core.cfg.fill;
        let buf = &mut self.core.engine.buffer(tag)[..len];
        match fill {
            BufferFill::Refill => {
                let min_write = self.buffers.content().min_write;
                self.buffers.fill(buf, min_write);
            }
            BufferFill::Scramble => {
                // fio's scramble: stamp the offset and a counter into each 512-byte block.
                self.scramble = self.scramble.wrapping_add(1);
                let stamp = io.offset ^ self.scramble.rotate_left(32);
                for block in buf.chunks_exact_mut(512) {
                    block[..8].copy_from_slice(&stamp.to_le_bytes());
                }
            }
            BufferFill::Once => {}
        }
    }

    /// The job's next I/O, placed by the zone policy of its file; `None` when the job is done
    /// (or its runtime ran out while it waited for its rate or its flow).
    async fn next_io(&mut self) -> Option<Issue> {
        if self.plain {
            return self.next_io_plain();
        }
        if self.setup_error.is_some() {
            if self.took_one {
                self.core.error = self.setup_error.take();
                return None;
            }
            self.took_one = true;
        }
        let issue = self.next_io_inner().await?;
        match &self.core.verify {
            Some(v) if v.should_stop(&issue.io, issue.check.as_ref()) => {
                if let (Some(z), Some(zj)) = (issue.zone, self.core.zone_of(&issue.io)) {
                    zj.file.unlock(z);
                }
                None
            }
            _ => Some(issue),
        }
    }

    /// [`JobLoop::next_io`] of a job with nothing to wait for or place: no zones, no pacing, no
    /// verify list, no replay (`plain`). What `next_io_inner` does then, without its futures.
    #[inline]
    fn next_io_plain(&mut self) -> Option<Issue> {
        let p = self.workload.propose_steered(None, &mut |d| d)?;
        Some(Issue { io: self.workload.accept(&p, p.offset, p.len), zone: None, check: None })
    }

    async fn next_io_inner(&mut self) -> Option<Issue> {
        if let Some(v) = self.core.verify.as_mut()
            && let Some(next) = v.next_read()
        {
            // Reads of the verify list are not the workload's: its byte budget is the writes'.
            let Some((io, check)) = next else {
                if self.core.traced
                    && let Some(jt) = &self.core.trace
                {
                    crate::dprint!(jt.t, Class::Verify, "get_next_verify: empty");
                }
                return None;
            };
            return Some(Issue { io, zone: None, check: Some(check) });
        }
        if let Some(v) = self.core.verify.as_mut()
            && let Some(io) = v.next_trim()
        {
            return Some(Issue { io, zone: None, check: None });
        }
        // Only a job with zones pays for sharing them (an atomic increment and decrement per I/O).
        let zones = self.core.has_zones.then(|| self.core.zones.clone());
        if self.core.paced && !self.flow_wait().await {
            return None;
        }
        loop {
            let rated = self.core.paced && self.core.pacer.checks_rate();
            let now_us = if rated { self.core.now_us() } else { 0 };
            let mut until_us = 0;
            let pacer = &self.core.pacer;
            let mut steer = |d: Dir| {
                if !rated {
                    return d;
                }
                let w = pacer.rate_dir(d, now_us);
                until_us = w.until_us;
                w.dir
            };
            let swd_log = std::cell::RefCell::new(Vec::new());
            let p: Proposal = match &zones {
                Some(zones) => {
                    let log = self.core.traced.then_some(&swd_log);
                    self.workload.propose_steered(Some(&Hooks(zones, log)), &mut steer)?
                }
                None => self.workload.propose_steered(None, &mut steer)?,
            };
            if until_us > now_us && !self.rate_wait(until_us).await {
                return None;
            }
            // fio waits for its rate while it picks the direction, before it draws the offset.
            if self.core.traced
                && let Some(jt) = self.core.trace.as_mut()
            {
                // A new pass: fio ends its loop of do_io (the file done, when `io_size` goes
                // past it) and opens the file again, resetting its zone accounting as it does.
                let pass = self.workload.pass();
                let time_based = self.workload.spec().time_based;
                let new_pass = pass != self.pass && !time_based;
                let mut log = self.workload.take_random_log();
                let old: Vec<String> = match log.iter().position(|l| l == crate::workload::PASS_MARK) {
                    Some(i) => {
                        let rest = log.split_off(i + 1);
                        log.pop();
                        std::mem::replace(&mut log, rest)
                    }
                    None => Vec::new(),
                };
                if new_pass {
                    self.pass = pass;
                    // A synchronous job's pass ends when its file has no more room, which fio
                    // finds as it tries once more; an asynchronous one's when its bytes are done.
                    let file_done = self.core.engine.is_sync() || pass >= self.workload.spec().loops.max(1);
                    let tag = self.core.free.last().copied().unwrap_or(0);
                    jt.end_pass(p.file, tag, file_done, &old);
                }
                if jt.zbd && self.workload.spec().write {
                    for (file, swd) in swd_log.take() {
                        if let Some(Some(z)) = zones.as_deref().and_then(|z| z.get(file)) {
                            let line = format!("zbd_file_reset({}): swd = {swd}", z.file.name);
                            if new_pass {
                                jt.at_open(file, Class::Zbd, line);
                            } else {
                                jt.later(Class::Zbd, line);
                            }
                        }
                    }
                }
                for e in log {
                    if e == crate::workload::WRAP_MARK {
                        // A time-based job starts over in the same loop: fio drops the file's
                        // cache again (a buffered job that invalidates, on one file).
                        jt.loop_invalidate(p.file);
                    } else if e.starts_with(crate::workload::RAND_FAILED) {
                        // fio's time-based job draws again at once, without a line.
                    } else if jt.random {
                        jt.later(Class::Random, e);
                    }
                }
            }
            let due = self.workload.replay_due_us();
            if due > 0 && due > self.core.now_us() {
                // The log's pace (fio's iolog_delay), not past the runtime.
                let end = self.deadline_us().map_or(due, |d| due.min(d));
                self.pause_until(end, false).await;
                if self.terminate.load(Ordering::Relaxed) || self.deadline_us().is_some_and(|d| self.core.now_us() >= d)
                {
                    return None;
                }
            }
            let zj = match zones.as_deref().and_then(|z| z.get(p.file)) {
                Some(Some(zj)) if p.dir.index().is_some() => zj,
                _ => return Some(Issue { io: self.workload.accept(&p, p.offset, p.len), zone: None, check: None }),
            };
            let mut zio = ZoneIo { dir: p.dir, offset: p.offset, len: p.len };
            self.core.placing = true;
            let decision = zj.adjust(&mut zio, &mut self.core).await;
            self.core.placing = false;
            match decision {
                Decision::Accept { zone } => {
                    let io = self.workload.accept(&p, zio.offset, zio.len);
                    if io.len == 0 {
                        // Nothing left of it: let go of the zone and move on.
                        if let Some(z) = zone {
                            zj.file.unlock(z);
                        }
                        continue;
                    }
                    return Some(Issue { io, zone, check: None });
                }
                Decision::Eof => {
                    if self.core.traced
                        && let Some(jt) = self.core.trace.as_mut()
                    {
                        jt.file_eof(p.file, self.core.free.last().copied().unwrap_or(0));
                    }
                    if self.core.error.is_some() {
                        return None;
                    }
                    self.workload.file_done(p.file);
                }
            }
        }
    }

    /// Hand `issue` to the engine on slot `tag`: the queue answer, or the result of a trim the
    /// zone policy turned into a zone reset.
    async fn submit(&mut self, tag: u32, issue: &Issue) -> Queued {
        let io = issue.io;
        if io.dir == Dir::Trim
            && let Some(zj) = self.core.zone_of(&io).cloned()
            && let Some(r) = zj.trim(&Core::<C>::zone_io(&io), &mut self.core).await
        {
            return Queued::Completed(r.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32);
        }
        let mut eio =
            Io { tag, ddir: engine_ddir(io.dir), file: io.file as u32, offset: io.offset, len: io.len as u32 };
        if io.dir == Dir::SyncFileRange {
            // fio's do_sync_file_range: the range its writes completed over since the file's last
            // sync (nothing written: no call).
            let (first, last) = self.core.written.get(io.file).copied().flatten().unwrap_or((0, 0));
            eio.ddir = Ddir::SyncFileRange(self.core.cfg.sync_file_range_flags);
            eio.offset = first;
            eio.len = u32::try_from(last - first).unwrap_or(u32::MAX);
        }
        self.queue_io(&eio, io.file, io.dir)
    }

    /// Hand a read or write of the job to the engine as it is (the rest of a short I/O).
    fn queue_plain(&mut self, tag: u32, io: &NextIo) -> Queued {
        let eio = Io { tag, ddir: engine_ddir(io.dir), file: io.file as u32, offset: io.offset, len: io.len as u32 };
        self.queue_io(&eio, io.file, io.dir)
    }

    /// Hand `eio` to the engine under its file's lock (`lockfile`), with the priority `cmdprio`
    /// gives it.
    fn queue_io(&mut self, eio: &Io, file: usize, dir: Dir) -> Queued {
        let lock = self.core.cfg.file_locks.get(file).cloned().flatten();
        let _held = lock.as_ref().map(|l| l.hold(dir == Dir::Read));
        // fio's cmdprio: a read or write may take a priority of its own. fio's engines answer
        // busy before they draw it, so an I/O queued again keeps the one it drew.
        let prio = match self.core.cfg.cmdprio.as_mut() {
            None => None,
            Some(c) => match (self.busy_prio.take(), dir) {
                (Some(p), _) => p,
                (None, Dir::Read) => c.pick(0, u64::from(eio.len)).map(|p| IoPrio { ioprio: p.prio, index: p.index }),
                (None, Dir::Write) => c.pick(1, u64::from(eio.len)).map(|p| IoPrio { ioprio: p.prio, index: p.index }),
                _ => None,
            },
        };
        self.core.io_prio = prio;
        match prio {
            Some(p) => self.core.engine.queue_prio(eio, p.ioprio),
            None => self.core.engine.queue(eio),
        }
    }

    /// What submission does to the zone the I/O holds (fio's `zbd_queue_io`).
    fn zone_queued(&self, issue: &Issue, queued: bool, res: i32) {
        if let (Some(z), Some(zj)) = (issue.zone, self.core.zone_of(&issue.io)) {
            if self.core.traced
                && res >= 0
                && let Some(jt) = &self.core.trace
                && jt.zbd
            {
                let io = &issue.io;
                jt.t.print(
                    Class::Zbd,
                    &format!("{}: queued I/O ({}, {}) for zone {z}", zj.file.name, io.offset, io.len),
                );
            }
            let closed = zj.queued(&Core::<C>::zone_io(&issue.io), z, queued, res < 0, self.core.cfg.job_id);
            if closed
                && self.core.traced
                && let Some(jt) = &self.core.trace
                && jt.zbd
            {
                jt.t.print(Class::Zbd, &format!("{}: closing zone {z}", zj.file.name));
            }
        }
    }

    /// fio's hints when the first I/O of a direction fails as it is queued (`td_io_queue`).
    fn first_io_hints(&mut self, io: &NextIo, res: i32) {
        let Some(d) = io.dir.index() else { return };
        if res >= 0 || self.workload.issued()[d & 1] != 1 {
            return;
        }
        let c = &mut self.core;
        if res == -libc::EINVAL && c.cfg.direct {
            c.log.push(
                "zonekit: first direct IO errored. File system may not support direct IO, or iomem_align= is bad, or invalid block size. Try setting direct=0.".into(),
            );
        }
        if (res == -libc::EIO || res == -libc::EREMOTEIO) && !c.cfg.zbd {
            let file = c.cfg.file_names.get(io.file).cloned().unwrap_or_default();
            c.log
                .push(format!("zonekit: first I/O failed. If {file} is a zoned block device, consider --zonemode=zbd"));
        }
    }

    /// Count an I/O handed to the engine; `rest_of`: the length of the I/O it is the rest of (0:
    /// none), which fio's `write_iolog` line gives it.
    fn count_issue(&mut self, io: &NextIo, rest_of: u64) {
        let (dir, len) = (io.dir, io.len);
        if let Some(v) = self.core.verify.as_mut() {
            v.issued(dir);
        }
        if let Some(w) = &mut self.core.iolog {
            let now = self.core.clock.now_ns();
            w.io(now, io.file, dir, io.offset, if rest_of == 0 { len } else { rest_of });
        }
        if self.core.paced {
            self.core.pacer.issued(dir, len);
            if self.core.traced {
                self.core.flush_rate_trace();
            }
        }
        if self.core.ramping && self.core.ramp_tail {
            self.core.leave_ramp();
        }
        if !self.core.ramping {
            match stat_ddir(dir) {
                Some(d) => self.core.stats.issued(d),
                None if dir == Dir::SyncFileRange => self.core.stats.sync_file_range_issued(),
                None if dir == Dir::DataSync => self.core.stats.datasync_issued(),
                None => self.core.stats.sync_issued(),
            }
        }
    }

    /// One synchronous I/O: issue, complete, record. Returns the clock at completion.
    async fn step_sync(&mut self) -> u64 {
        if self.core.engine.finished() {
            // A network peer ended the stream: nothing more to read or write.
            self.exhausted = true;
            return self.core.now();
        }
        if !self.core.requeue.is_empty()
            && let Some(r) = self.take_requeue()
        {
            return self.step_sync_rest(r).await;
        }
        let Some(issue) = self.next_io().await else {
            self.exhausted = true;
            return self.core.now();
        };
        let io = issue.io;
        if self.core.own_latencies && self.workload.pass() != self.pass_seen {
            // fio closes the files between two loops and opens them again: a file operation
            // engine makes its call again (the engines that time their calls are synchronous).
            self.pass_seen = self.workload.pass();
            self.core.engine.files_closed();
        }
        if self.core.traced {
            self.trace_issue(0, &issue);
        }
        self.prepare(0, &issue);
        let start = self.core.now();
        // `submit` when the job's I/Os need it (`submit_all`), or the I/O may become a zone reset
        // (a trim of a file with zones) or needs its range (`sync_file_range`); else straight to
        // the engine, without its future.
        let queued = if self.core.submit_all
            || (io.dir == Dir::Trim && self.core.has_zones)
            || io.dir == Dir::SyncFileRange
        {
            self.submit(0, &issue).await
        } else {
            let eio =
                Io { tag: 0, ddir: engine_ddir(io.dir), file: io.file as u32, offset: io.offset, len: io.len as u32 };
            self.core.engine.queue(&eio)
        };
        let (res, at) = match queued {
            Queued::Completed(r) => (r, None),
            Queued::Queued | Queued::Busy => {
                // An engine that is not really synchronous (a timed device): commit and wait.
                let _ = self.core.engine.commit();
                let _ = self.core.fetch(1, 1).await;
                self.core.reaped.first().map_or((-libc::EIO, None), |c| (c.result, Some(c.at_ns)))
            }
        };
        self.zone_queued(&issue, false, res);
        if res < 0
            && let Some((errno, func)) = self.core.engine.failure()
        {
            // The engine's own call failed (fio's td_verror in the engine's file open): the job
            // ends with it, and the I/O is not one of the job's.
            let text = match file_op_location(&func) {
                Some(at) if self.core.own_latencies => format!("file:{at}, func={func}"),
                _ => format!("func={func}"),
            };
            self.core.error.get_or_insert((errno, text));
            return self.core.now();
        }
        if self.core.own_latencies && !self.core.ramping {
            let mut lats = Vec::new();
            self.core.engine.take_latencies(&mut lats);
            // fio files them under the job's direction: reads if it reads, else writes.
            let d = if self.workload.spec().read { StatDdir::Read } else { StatDdir::Write };
            let now = self.core.now().saturating_sub(self.core.epoch_ns);
            for ns in lats {
                self.core.stats.engine_clat_sample(d, ns, now);
            }
        }
        if let Some(us) = self.core.engine.think_time_us() {
            self.core.pacer.set_think_us(us);
        }
        if res == 0 && self.core.engine.finished() {
            // What found the end is no I/O of the job (fio's net engine answers FIO_Q_BUSY).
            self.exhausted = true;
            return self.core.now();
        }
        let done = at.unwrap_or_else(|| self.core.now());
        self.first_io_hints(&io, res);
        self.count_issue(&io, 0);
        if !self.core.ramping {
            self.core.stats.queued(1, 1);
            self.core.stats.submitted(1);
            self.core.stats.completed(1);
        }
        if self.core.traced {
            self.core.complete_traced(0, io, i64::from(res), start, start, done);
        } else {
            self.core.complete(0, io, i64::from(res), start, start, done);
        }
        if self.core.paced {
            self.think(io.dir).await;
            return self.core.now();
        }
        done
    }

    /// The rest of a short I/O on a synchronous engine (see [`JobLoop::step_sync`]): issued on
    /// slot 0, whose buffer holds its data, and completed. Returns the clock at completion.
    async fn step_sync_rest(&mut self, r: Requeue) -> u64 {
        let io = r.io;
        self.workload.reissued(io.dir, io.len, !r.sync);
        let start = self.core.now();
        let (res, at) = match self.queue_plain(0, &io) {
            Queued::Completed(res) => (res, None),
            Queued::Queued | Queued::Busy => {
                let _ = self.core.engine.commit();
                let _ = self.core.fetch(1, 1).await;
                self.core.reaped.first().map_or((-libc::EIO, None), |c| (c.result, Some(c.at_ns)))
            }
        };
        let done = at.unwrap_or_else(|| self.core.now());
        self.count_issue(&io, r.buflen);
        if !self.core.ramping {
            self.core.stats.queued(1, 1);
            self.core.stats.submitted(1);
            self.core.stats.completed(1);
        }
        self.core.rest_of = r.buflen;
        self.core.complete(0, io, i64::from(res), start, start, done);
        self.core.rest_of = 0;
        if self.core.paced {
            self.think(io.dir).await;
            return self.core.now();
        }
        done
    }

    /// The rests of short I/Os on an asynchronous engine, each queued on the slot it holds
    /// before anything new (fio's `get_io_u` takes its requeue list first). False when the
    /// queue cannot take more now (the engine is busy, the job is stopping).
    #[cold]
    #[inline(never)]
    fn queue_rests(&mut self, batch: usize) -> bool {
        while !self.core.requeue.is_empty() {
            if self.terminate.load(Ordering::Relaxed) || self.at_depth_limit() {
                return false;
            }
            let Some(r) = self.take_requeue() else { return true };
            let (tag, io) = (r.tag, r.io);
            self.workload.reissued(io.dir, io.len, !r.sync);
            let start = self.core.now();
            match self.queue_plain(tag, &io) {
                Queued::Queued => {
                    let c = &mut self.core;
                    c.slots[tag as usize] = Slot {
                        io: Some(io),
                        start,
                        issue: start,
                        zone: None,
                        reset: false,
                        prio: c.io_prio.take(),
                        rest_of: r.buflen,
                    };
                    c.pending.push(tag);
                    c.batch_queued += 1;
                    c.inflight += 1;
                    self.count_issue(&io, r.buflen);
                    if self.core.batch_queued as usize >= batch {
                        self.core.commit();
                    }
                }
                Queued::Completed(res) => {
                    let done = self.core.now();
                    self.count_issue(&io, r.buflen);
                    if !self.core.ramping {
                        self.core.stats.queued(self.core.inflight + 1, 1);
                    }
                    self.core.rest_of = r.buflen;
                    self.core.complete(tag, io, i64::from(res), start, start, done);
                    self.core.rest_of = 0;
                    if !self.core.requeued(tag) {
                        self.core.free.push(tag);
                    }
                }
                Queued::Busy => {
                    self.workload.reissued_undo(io.dir, io.len, !r.sync);
                    if self.core.pending.is_empty() && self.core.inflight == 0 {
                        // Nothing to wait for: the engine cannot take it at all.
                        if let Some(d) = stat_ddir(io.dir)
                            && !self.core.ramping
                        {
                            self.core.stats.dropped_io(d);
                        }
                        self.core.unturn(tag, &io, r.buflen);
                        self.core.free.push(tag);
                    } else {
                        // It keeps its slot and goes first again once the queue moves.
                        self.core.requeue.push(r);
                        self.core.commit();
                    }
                    return false;
                }
            }
            if self.core.error.is_some() {
                return false;
            }
        }
        true
    }

    async fn fill_queue(&mut self) {
        let batch = self.core.cfg.batch_submit.max(1) as usize;
        // The rest of short I/Os goes out first, each on the slot it holds.
        if !self.core.requeue.is_empty() && !self.queue_rests(batch) {
            return;
        }
        // At most as many I/Os as there were free slots: the zone policy may drain the queue
        // while it places an I/O (which frees every slot again), and the caller must get to its
        // housekeeping (deadline, ramp, samples, termination) between rounds.
        let mut budget = self.core.free.len();
        while let Some(&tag) = self.core.free.last() {
            if budget == 0 || self.terminate.load(Ordering::Relaxed) || self.at_depth_limit() {
                return;
            }
            budget -= 1;
            let issue = match self.retry.take() {
                Some(r) => r,
                None => match self.next_io().await {
                    Some(i) => i,
                    None => {
                        self.exhausted = true;
                        return;
                    }
                },
            };
            // The zone policy may have drained the queue: take a slot now.
            let _ = tag;
            let Some(&tag) = self.core.free.last() else { return };
            let io = issue.io;
            if self.core.cfg.serialize_overlap && self.core.overlaps_in_flight(&io) {
                // fio's io_u_submit answers FIO_Q_BUSY: wait for completions, then try again.
                self.retry = Some(issue);
                self.core.commit();
                return;
            }
            if self.core.traced {
                self.trace_issue(tag, &issue);
            }
            self.prepare(tag, &issue);
            if self.core.cfg.host_io_ns > 0 {
                let t = self.core.now() + self.core.cfg.host_io_ns;
                self.core.clock.sleep_until(t).await;
            }
            let start = self.core.now();
            match self.submit(tag, &issue).await {
                Queued::Queued => {
                    self.zone_queued(&issue, true, 0);
                    let c = &mut self.core;
                    c.free.pop();
                    c.slots[tag as usize] = Slot {
                        io: Some(io),
                        start,
                        issue: start,
                        zone: issue.zone,
                        reset: false,
                        prio: c.io_prio.take(),
                        rest_of: 0,
                    };
                    c.pending.push(tag);
                    c.batch_queued += 1;
                    c.inflight += 1;
                    self.count_issue(&io, 0);
                    if self.core.batch_queued as usize >= batch {
                        self.core.commit();
                    }
                }
                Queued::Completed(res) => {
                    self.zone_queued(&issue, false, res);
                    let done = self.core.now();
                    self.first_io_hints(&io, res);
                    self.count_issue(&io, 0);
                    if !self.core.ramping {
                        self.core.stats.queued(self.core.inflight + 1, 1);
                    }
                    if self.core.traced {
                        self.core.complete_traced(tag, io, i64::from(res), start, start, done);
                    } else {
                        self.core.complete(tag, io, i64::from(res), start, start, done);
                    }
                    if self.core.requeued(tag) {
                        // Its rest holds the slot.
                        self.core.free.pop();
                    }
                }
                Queued::Busy => {
                    // Not now (the engine waits for its queued I/Os to be committed, or its queue
                    // is full): commit, reap, and queue this I/O again.
                    if self.core.pending.is_empty() && self.core.inflight == 0 {
                        // Nothing to wait for: the engine cannot take this I/O at all.
                        self.zone_queued(&issue, false, -libc::EBUSY);
                        if let Some(d) = stat_ddir(io.dir)
                            && !self.core.ramping
                        {
                            self.core.stats.dropped_io(d);
                        }
                    } else {
                        // fio requeues it and commits what is queued.
                        self.retry = Some(issue);
                        if self.core.cfg.cmdprio.is_some() {
                            self.busy_prio = Some(self.core.io_prio.take());
                        }
                        self.core.commit();
                    }
                    return;
                }
            }
            if self.core.paced {
                self.think(io.dir).await;
            }
            if self.core.error.is_some() || self.at_depth_limit() {
                return;
            }
        }
    }

    /// The rest of a short I/O to issue again, with its slot and whether the engine completed
    /// it as it was queued, while the job may still issue (fio's `do_io` takes it off its
    /// requeue list before anything new); once the job's bytes are issued they are dropped, as
    /// fio's loop ends with them on its list.
    #[inline]
    fn take_requeue(&mut self) -> Option<Requeue> {
        if self.core.requeue.is_empty() {
            return None;
        }
        self.take_requeue_slow()
    }

    #[cold]
    #[inline(never)]
    fn take_requeue_slow(&mut self) -> Option<Requeue> {
        if self.stopped() || !self.workload.has_budget() {
            let slots = !self.core.engine.is_sync();
            for r in std::mem::take(&mut self.core.requeue) {
                self.core.unturn(r.tag, &r.io, r.buflen);
                if slots {
                    self.core.free.push(r.tag);
                }
            }
            return None;
        }
        self.core.requeue.pop()
    }

    /// The latency target holds the queue at a lower depth than `iodepth` (fio's `queue_full`).
    fn at_depth_limit(&self) -> bool {
        self.core.paced && self.core.inflight >= self.core.pacer.depth_limit()
    }

    /// Sleep on the job's clock until `until_us` (µs since the loop started), in steps that
    /// notice a termination; the busy part of a think time spins on a real clock.
    /// The time paused counts in the job's runtime, as fio's does (a rated job that waits out
    /// its runtime reports the whole runtime).
    async fn pause_until(&mut self, until_us: u64, spin: bool) {
        self.pause(until_us, spin).await;
        let now = self.core.now();
        self.core.last_done = self.core.last_done.max(now);
    }

    async fn pause(&mut self, until_us: u64, spin: bool) {
        let until = self.core.start_ns.saturating_add(until_us.saturating_mul(1000));
        if spin && self.core.clock.as_real().is_some() {
            while self.core.now() < until && !self.terminate.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
            return;
        }
        loop {
            let now = self.core.now();
            if now >= until || self.terminate.load(Ordering::Relaxed) {
                return;
            }
            self.core.clock.sleep_until(until.min(now + 100_000_000)).await;
        }
    }

    /// The deadline (`runtime`) in µs since the loop started, if any.
    fn deadline_us(&self) -> Option<u64> {
        self.core.cfg.deadline.map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
    }

    /// fio's `rate_ddir` wait: drain what is in flight (not with `io_submit_mode=offload`), then
    /// sleep until the rate allows the next I/O, but not past the runtime. False when the job must end (runtime over, terminated).
    async fn rate_wait(&mut self, until_us: u64) -> bool {
        if self.core.traced
            && let Some(jt) = self.core.trace.as_mut()
            && jt.io
        {
            // fio quiesces holding the unit it is filling: its commit counts it in the depth.
            jt.later(Class::Io, format!("calling ->commit(), depth {}", self.core.inflight + 1));
            self.core.commit_traced = true;
        }
        self.core.pace_quiesce().await;
        self.core.commit_traced = false;
        let deadline = self.deadline_us();
        self.pause_until(deadline.map_or(until_us, |d| until_us.min(d)), false).await;
        let now = self.core.now_us();
        !(self.terminate.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d))
    }

    /// fio's `flow_threshold_exceeded` before each I/O: while the job is ahead of its share of
    /// its flow group, wait `flow_sleep` (draining first, as fio does when it sleeps or in zone
    /// mode). False when the job must end meanwhile.
    async fn flow_wait(&mut self) -> bool {
        while self.core.pacer.flow_held() {
            let sleep = self.core.pacer.flow_sleep_us();
            if sleep > 0 || self.core.cfg.zbd {
                self.core.pace_quiesce().await;
            }
            // Even without flow_sleep, let time pass (the other jobs of a simulated run move on).
            let now = self.core.now_us();
            self.pause_until(now.saturating_add(sleep.max(1)), false).await;
            let now = self.core.now_us();
            if self.terminate.load(Ordering::Relaxed) || self.deadline_us().is_some_and(|d| now >= d) {
                return false;
            }
        }
        true
    }

    /// fio's `handle_thinktime` after an I/O in `dir`: when due, drain, spin `thinktime_spin`,
    /// sleep the rest of `thinktime` (not past the runtime).
    async fn think(&mut self, dir: Dir) {
        if dir.index().is_none() || self.core.pacer.think_us() == 0 {
            return;
        }
        let issued: u64 = self.workload.issued().iter().sum();
        let completed = self.core.completed_rw;
        let t0 = self.core.now_us();
        if !self.core.pacer.think_due(issued, completed, t0) {
            return;
        }
        self.core.pace_quiesce().await;
        let start = self.core.now_us();
        let spin = self.core.pacer.think_spin_us();
        let end = start.saturating_add(self.core.pacer.think_us());
        let end = self.deadline_us().map_or(end, |d| end.min(d.max(start)));
        self.pause_until(start.saturating_add(spin).min(end), true).await;
        self.pause_until(end, false).await;
        let total = self.core.now_us().saturating_sub(start);
        self.core.pacer.thought(dir, total, issued, completed, t0);
    }

    /// After each round of I/O: fio's `check_min_rate` (a shortfall ends the job with `EIO`
    /// and fio's line), then the latency target's window check.
    async fn pace_checks(&mut self) {
        if !self.core.paced || self.core.ramping {
            return;
        }
        if self.core.drain {
            self.core.drain = false;
            self.core.pace_quiesce().await;
            let (now, ios) = (self.core.now_us(), self.core.completed_rw);
            self.core.pacer.new_window(now, ios);
        }
        let c = &mut self.core;
        if c.pacer.checks_rate() {
            let bytes = c.stats.io_bytes();
            if bytes.iter().any(|&b| b > 0) {
                let now = c.now_us();
                if let Some(line) = c.pacer.check_min_rate(now, bytes, c.stats.io_blocks()) {
                    c.log.push(line);
                    c.error.get_or_insert((libc::EIO, "file:backend.c:1131, func=check_min_rate".into()));
                }
            }
        }
        if c.pacer.config().latency_target_ns > 0 {
            let (now, ios) = (c.now_us(), c.completed_rw);
            let step = c.pacer.target_check(now, ios);
            if c.traced {
                c.flush_rate_trace();
            }
            match step {
                TargetStep::None => {}
                TargetStep::Quiesce => self.core.pace_quiesce().await,
                TargetStep::FinalRun => {
                    // fio resets every statistic and runs one more window at the depth found.
                    self.core.quiesce().await;
                    let c = &mut self.core;
                    c.epoch_ns = c.now();
                    c.stats.restart();
                    self.next_tick = 0;
                    let (now, ios) = (self.core.now_us(), self.core.completed_rw);
                    self.core.pacer.new_window(now, ios);
                }
                TargetStep::Done => self.exhausted = true,
            }
        }
    }
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
        /// I/Os queued while one overlapping them was in flight.
        overlaps: u32,
        /// Answer every Nth `queue` busy (while something is queued or in flight), as fio's
        /// engines do when their ring is full (0: never).
        busy_every: u32,
        queue_calls: u32,
        /// Each read and write queued: its offset and the priority it was given.
        prios: Vec<(u64, Option<u16>)>,
        /// The clock of [`TickClock`]: each I/O sent takes this many ns of it.
        clock: Option<(Arc<AtomicU64>, u64)>,
        /// Where the file really ends: a read stops there, a write past it fails with EFBIG
        /// once nothing of it fits (a file size limit).
        eof: Option<u64>,
        /// The I/O at this offset moves only this many bytes, once.
        short_once: Option<(u64, u32)>,
    }

    /// A clock that only moves when the engine sends I/Os (or the job sleeps): the loop's
    /// decisions in time are then the same at each run.
    #[derive(Clone, Default)]
    struct TickClock(Arc<AtomicU64>);

    impl Clock for TickClock {
        fn now_ns(&self) -> u64 {
            self.0.load(Ordering::Relaxed)
        }
        fn sleep_until(&self, t_ns: u64) -> impl Future<Output = ()> + Send + '_ {
            self.0.fetch_max(t_ns, Ordering::Relaxed);
            std::future::ready(())
        }
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
                overlaps: 0,
                busy_every: 0,
                queue_calls: 0,
                prios: Vec::new(),
                clock: None,
                eof: None,
                short_once: None,
            }
        }

        fn exec(&mut self, io: &Io) -> i32 {
            if Some(io.offset) == self.fail_at {
                return -libc::EIO;
            }
            let mut len = io.len;
            if let Some(eof) = self.eof {
                len = len.min(eof.saturating_sub(io.offset) as u32);
                if len == 0 && io.ddir == Ddir::Write {
                    return -libc::EFBIG;
                }
            }
            if let Some((at, n)) = self.short_once
                && at == io.offset
            {
                self.short_once = None;
                len = len.min(n);
            }
            let (o, l) = (io.offset as usize, len as usize);
            match io.ddir {
                Ddir::Write => self.data[o..o + l].copy_from_slice(&self.bufs[io.tag as usize][..l]),
                Ddir::Read => {
                    let src = self.data[o..o + l].to_vec();
                    self.bufs[io.tag as usize][..l].copy_from_slice(&src);
                }
                _ => {}
            }
            len as i32
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
            self.queue_prio(io, u16::MAX)
        }
        fn queue_prio(&mut self, io: &Io, ioprio: u16) -> Queued {
            self.queue_calls += 1;
            let busy = !self.queued.is_empty() || !self.submitted.is_empty();
            if self.busy_every > 0 && self.queue_calls.is_multiple_of(self.busy_every) && busy {
                return Queued::Busy;
            }
            if matches!(io.ddir, Ddir::Read | Ddir::Write) {
                self.prios.push((io.offset, (ioprio != u16::MAX).then_some(ioprio)));
            }
            if self.sync {
                Queued::Completed(self.exec(io))
            } else {
                let (a, b) = (io.offset, io.offset + u64::from(io.len));
                if self.queued.iter().chain(&self.submitted).any(|x| a < x.offset + u64::from(x.len) && x.offset < b) {
                    self.overlaps += 1;
                }
                self.queued.push_back(*io);
                Queued::Queued
            }
        }
        fn commit(&mut self) -> std::io::Result<usize> {
            let n = self.queued.len();
            if let Some((t, ns)) = &self.clock {
                t.fetch_add(n as u64 * ns, Ordering::Relaxed);
            }
            self.submitted.extend(self.queued.drain(..));
            Ok(n)
        }
        fn getevents(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> std::io::Result<usize> {
            let n = self.submitted.len().min(max.max(min));
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
            batch_complete_max: 1,
            depth_low: depth,
            deadline: None,
            ramp: Duration::ZERO,
            fill: BufferFill::Scramble,
            content: BufferContent::default(),
            errors: ErrorPolicy::default(),
            fill_device: false,
            seed: 1,
            file_names: vec!["f".into()],
            job_id: 0,
            direct: false,
            zbd: false,
            pacing: PaceConfig::default(),
            write_iolog: None,
            cmdprio: None,
            host_io_ns: 0,
            file_locks: Vec::new(),
            sync_file_range_flags: 0,
            serialize_overlap: false,
            setup_error: None,
        }
    }

    fn run(engine: &mut MemEngine, depth: u32, random: bool) -> (crate::stats::JobStats, LoopEnd) {
        run_with(engine, cfg(depth), random)
    }

    fn run_with(engine: &mut MemEngine, cfg: LoopConfig, random: bool) -> (crate::stats::JobStats, LoopEnd) {
        run_spec(engine, spec(random, 1 << 20), cfg)
    }

    /// Run `spec`'s workload on `engine` with `cfg`, on the real clock, to its end.
    fn run_spec(engine: &mut MemEngine, spec: WorkloadSpec, cfg: LoopConfig) -> (crate::stats::JobStats, LoopEnd) {
        let mut w = Workload::new(spec);
        let mut st = ThreadStats::new(&StatsConfig::default());
        let lp = JobLoop::new(
            engine,
            &mut w,
            &mut st,
            cfg,
            Arc::default(),
            Arc::default(),
            zonekit_blk::RealClock::new(),
            vec![None],
        );
        let end = crate::run::executor::block_on(lp.run());
        let js = st.finish(end.io_runtime_ns, end.io_runtime_ns, Default::default());
        (js, end)
    }

    /// A job over 1 MiB of a file that really ends at 1000000 bytes (fio: a file truncated after
    /// its setup): `(reads?, sync, depth)` run to the end.
    fn run_past_eof(read: bool, sync: bool, depth: u32) -> (crate::stats::JobStats, LoopEnd, MemEngine) {
        let mut e = MemEngine::new(sync, depth, 1 << 20);
        e.eof = Some(1_000_000);
        let (js, end) = run_spec(&mut e, WorkloadSpec::simple(read, !read, false, 1 << 20, 4096, 9), cfg(depth));
        (js, end, e)
    }

    /// fio's `io_queue_event` for a synchronous engine: the read across the end is short
    /// (counted, its bytes not), its rest is issued again, moves nothing and fails the job with
    /// "full resid"; a write's rest meets the size limit and fails with its errno.
    #[test]
    fn a_short_synchronous_io_is_continued_and_nothing_moved_is_eio() {
        let (js, end, _) = run_past_eof(true, true, 1);
        assert_eq!((js.total_io_u[0], js.short_io_u[0], js.io_bytes[0]), (246, 1, 999_424));
        assert_eq!(end.error, Some((libc::EIO, FULL_RESID.to_string())));
        let (js, end, e) = run_past_eof(false, true, 1);
        assert_eq!((js.total_io_u[1], js.short_io_u[1], js.io_bytes[1]), (246, 1, 999_424));
        let (errno, line) = end.error.unwrap();
        assert_eq!(errno, libc::EFBIG);
        assert!(line.ends_with("write offset=1000000, buflen=3520"), "{line}");
        assert!(e.data[999_424..1_000_000].iter().any(|&b| b != 0), "the short write's part landed");
    }

    /// fio's `io_completed` for a reaped I/O: the short read's rest goes out again (one more
    /// issue), moves nothing and completes with no bytes and no error, as every later read past
    /// the end.
    #[test]
    fn a_short_reaped_io_is_continued_and_nothing_moved_completes_empty() {
        let (js, end, _) = run_past_eof(true, false, 4);
        assert_eq!(end.error, None);
        assert_eq!((js.total_io_u[0], js.short_io_u[0], js.io_bytes[0]), (257, 1, 999_424));
        assert_eq!(js.clat_stat[0].summary().unwrap().samples, 256, "the short read's part is no completion");
    }

    /// The rest of a short write carries the rest of its data: with the buffers filled once, every
    /// block ends up as one of them, the one written in two parts too; only the rest's bytes count.
    #[test]
    fn the_rest_of_a_short_write_writes_the_rest_of_its_buffer() {
        for (sync, depth) in [(true, 1), (false, 4)] {
            let mut e = MemEngine::new(sync, depth, 1 << 20);
            e.short_once = Some((8192, 1000));
            let (js, end) = run_with(&mut e, LoopConfig { fill: BufferFill::Once, ..cfg(depth) }, false);
            assert_eq!(end.error, None);
            assert_eq!(js.total_io_u[1], 257, "sync={sync}");
            assert_eq!(js.short_io_u[1], 1);
            assert_eq!(js.io_bytes[1], (1 << 20) - 1000);
            // Each slot's buffer was filled once (and is back as it was): every block is one of them.
            let bufs: Vec<&[u8]> = e.bufs.iter().map(|b| &b[..4096]).collect();
            assert!(bufs.iter().all(|b| b.iter().any(|&x| x != 0)));
            for (i, block) in e.data.chunks(4096).enumerate() {
                assert!(bufs.contains(&block), "sync={sync}: block {i} is no buffer's");
            }
        }
    }

    /// The rest of a short read lands after its first part: the buffer holds the whole block
    /// once the rest is done (what a verify checks), as fio's `xfer_buf` moved on.
    #[test]
    fn the_rest_of_a_short_read_completes_its_buffer() {
        for sync in [true, false] {
            let mut e = MemEngine::new(sync, 1, 1 << 20);
            for (i, b) in e.data.iter_mut().enumerate() {
                *b = (i % 251) as u8;
            }
            let last = (1 << 20) - 4096;
            e.short_once = Some((last as u64, 1000));
            // Bytes left for the rest to go out (once every block is issued, it would be dropped).
            let mut sp = WorkloadSpec::simple(true, false, false, 1 << 20, 4096, 9);
            sp.io_limit += 3096;
            let (js, end) = run_spec(&mut e, sp, cfg(1));
            assert_eq!(end.error, None);
            assert_eq!((js.total_io_u[0], js.short_io_u[0], js.io_bytes[0]), (257, 1, (1 << 20) - 1000));
            assert!(e.bufs[0][..4096] == e.data[last..], "sync={sync}: the last block's buffer is not whole");
        }
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

    /// `serialize_overlap`: random writes without a random map over 64 KiB at depth 8 often
    /// land on a block in flight; held back, none does, and every write still happens.
    #[test]
    fn serialize_overlap_never_queues_over_an_io_in_flight() {
        for seed in 1..20 {
            let mut found = [0; 2];
            for (i, serialize) in [false, true].into_iter().enumerate() {
                let mut e = MemEngine::new(false, 8, 1 << 16);
                let mut sp = WorkloadSpec::simple(false, true, true, 1 << 16, 4096, seed);
                sp.norandommap = true;
                sp.loops = 4;
                let (js, end) = run_spec(&mut e, sp, LoopConfig { serialize_overlap: serialize, ..cfg(8) });
                assert_eq!(end.error, None);
                assert_eq!(js.total_io_u[1], 64, "seed {seed} serialize={serialize}");
                assert_eq!(js.io_bytes[1], 4 << 16);
                found[i] = e.overlaps;
            }
            assert!(found[0] > 0, "seed {seed}: the workload overlaps without serialize_overlap");
            assert_eq!(found[1], 0, "seed {seed}: an I/O was queued over one in flight");
        }
    }

    #[test]
    fn depths_are_counted_as_fio_counts_them() {
        // fio at iodepth=32 with its defaults (iodepth_batch 1, iodepth_batch_complete_max 1 as
        // the minimum): the first 31 I/Os go at depths 1..31, every later one at 32, each reap
        // takes one, and the last 31 are reaped together: `IO depths: 32=99.8%`,
        // `complete: 4=100.0%, 32=0.1%` (fio 3.33, io_uring and libaio alike).
        let mut e = MemEngine::new(false, 32, 1 << 20);
        let (js, _) = run(&mut e, 32, true);
        assert_eq!(js.io_u_map, [1, 2, 4, 8, 16, 256 - 31, 0]);
        assert_eq!(js.io_u_submit, [0, 256, 0, 0, 0, 0, 0]);
        assert_eq!(js.io_u_complete, [0, 256 - 31, 0, 0, 1, 0, 0]);
        // iodepth_batch_complete_max bounds each reap; the queue refills to 32 after each.
        let mut e = MemEngine::new(false, 32, 1 << 20);
        let (js, _) = run_with(&mut e, LoopConfig { batch_complete_max: 8, ..cfg(32) }, true);
        // 28 refills of 8 after the first 32; a 29th reap of 8 finds the workload done, and the
        // last 24 are reaped together.
        assert_eq!(js.io_u_complete, [0, 0, 29, 0, 1, 0, 0]);
        assert_eq!(js.io_u_map, [1, 2, 4, 8, 16 + 7 * 28, 1 + 28, 0]);
        // Batched submission: each batch is counted at the depth it brings the queue to.
        let mut e = MemEngine::new(false, 32, 1 << 20);
        let (js, _) = run_with(&mut e, LoopConfig { batch_submit: 8, batch_complete_max: 8, ..cfg(32) }, true);
        assert_eq!(js.io_u_map, [0, 0, 0, 8, 16, 256 - 24, 0], "batches at depths 8, 16, 24, then 32");
        assert_eq!(js.io_u_submit[2], 256 / 8);
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

    /// fio asks whether `ramp_time` is over as each I/O is sent (`io_u_queued`, when it records
    /// submission latencies) and as each completes (`should_account`). Found at a submission,
    /// the I/O just sent and those in flight (`iodepth` in all) count their bytes and not their
    /// I/Os; found at a completion, that one's bytes go with the reset, and the others reaped
    /// with it count their bytes but no latency (fio's runstate is still `TD_RAMP`). 256 I/Os
    /// at depth 8, each taking 1 µs of the clock as it is sent; the ramp ends during the 51st.
    #[test]
    fn the_end_of_the_ramp_is_noticed_where_fio_notices_it() {
        // (disable_slat, iodepth_batch_complete_max, bytes without I/Os, completions without latency)
        for (disable_slat, reap_max, extra, tail) in [(false, 1, 8, 1), (true, 1, 7, 0), (true, 8, 7, 7)] {
            let clock = TickClock::default();
            let mut e = MemEngine::new(false, 8, 1 << 20);
            e.clock = Some((clock.0.clone(), 1000));
            let mut w = Workload::new(spec(true, 1 << 20));
            let mut st = ThreadStats::new(&StatsConfig { disable_slat, ..Default::default() });
            let c = LoopConfig { ramp: Duration::from_nanos(50_500), batch_complete_max: reap_max, ..cfg(8) };
            let lp = JobLoop::new(&mut e, &mut w, &mut st, c, Arc::default(), Arc::default(), clock, vec![None]);
            let end = crate::run::executor::block_on(lp.run());
            assert_eq!(end.error, None);
            let js = st.finish(end.io_runtime_ns, end.io_runtime_ns, Default::default());
            let (ios, blocks) = (js.total_io_u[1], js.io_bytes[1] / 4096);
            let what = format!("disable_slat={disable_slat} reap_max={reap_max}");
            assert!(ios < 210, "{what}: {ios} I/Os after the ramp");
            assert_eq!(blocks - ios, extra, "{what}");
            assert_eq!(js.clat_stat[1].summary().unwrap().samples, blocks - tail, "{what}");
            let slat = js.slat_stat[1].summary().map_or(0, |s| s.samples);
            assert_eq!(slat, if disable_slat { 0 } else { ios + 1 }, "{what}: the I/O that found the ramp over");
        }
    }

    /// An I/O that fails during `ramp_time` fails the job, as in fio (its completion handling
    /// does not depend on the ramp): the ramp only keeps the statistics from counting.
    #[test]
    fn an_error_during_the_ramp_stops_the_job() {
        let clock = TickClock::default();
        let mut e = MemEngine::new(false, 4, 1 << 20);
        e.clock = Some((clock.0.clone(), 1000));
        e.fail_at = Some(8192);
        let mut w = Workload::new(spec(false, 1 << 20));
        let mut st = ThreadStats::new(&StatsConfig::default());
        let c = LoopConfig { ramp: Duration::from_millis(10), ..cfg(4) };
        let lp = JobLoop::new(&mut e, &mut w, &mut st, c, Arc::default(), Arc::default(), clock, vec![None]);
        let end = crate::run::executor::block_on(lp.run());
        let (errno, msg) = end.error.expect("the failed write ends the job");
        assert_eq!(errno, libc::EIO);
        assert!(msg.contains("write offset=8192"), "{msg}");
    }

    /// When the engine answers busy, fio requeues the I/O, which draws no new priority: its
    /// engines answer busy before `cmdprio` picks one. The same job gives each I/O the same
    /// priority whether or not some were answered busy.
    #[test]
    fn an_io_answered_busy_keeps_the_priority_it_drew() {
        let prios = |busy_every: u32| {
            let mut e = MemEngine::new(false, 8, 1 << 20);
            e.busy_every = busy_every;
            let o = crate::options::cmdprio::CmdprioOptions { percentage: [0, 30], ..Default::default() };
            let rng = crate::rng::FioRand::new(7, false);
            let c = LoopConfig { cmdprio: CmdPrio::new(&o, 0, false, true, rng), ..cfg(8) };
            let (js, end) = run_with(&mut e, c, true);
            assert_eq!(end.error, None);
            assert_eq!(js.total_io_u[1], 256);
            (e.prios, e.queue_calls)
        };
        let (plain, calls) = prios(0);
        let (busy, busy_calls) = prios(3);
        assert_eq!(calls, 256);
        assert!(busy_calls > 300, "{busy_calls} queue calls: some were answered busy");
        let given = plain.iter().filter(|(_, p)| p.is_some()).count();
        assert!((40..120).contains(&given), "{given} of 256 with a priority of their own");
        assert_eq!(plain, busy);
    }
}
