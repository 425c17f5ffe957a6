//! A whole run (fio's `run_threads`): the header lines, the stonewall waves in order (every clone
//! of a wave on its own thread; a `stonewall` job starts a new wave), SIGINT/SIGTERM, the live
//! status line, and the report in each requested format.
//!
//! - [`sizing`]: from a job's options to its files, sizes, workload and loop configuration;
//! - [`job_thread`]: one job clone, from its setup to its outcome;
//! - [`io_loop`]: a job's I/O loop (fio's `do_io`);
//! - [`executor`]: running a job's `async` loop on its own thread;
//! - [`sim`]: the run's clock, and the simulated-time driver (every clone of a group in one event
//!   loop);
//! - [`idle`]: `--idle-prof`, how idle the CPUs were while the jobs ran.

pub mod buffers;
pub mod executor;
pub mod host;
pub mod idle;
pub mod io_loop;
pub mod iolog;
pub mod job_thread;
pub mod job_trace;
pub mod locks;
pub mod pacing;
pub mod placement;
pub mod sim;
pub mod sizing;
pub mod steady;
pub mod tracing;

use crate::debug::{Class, Tracer};
use crate::dprint;
use crate::options::job::JobOptions;
use crate::output::disk::DiskUtilTracker;
use crate::output::eta::{EtaLine, EtaStatus, JobState};
use crate::output::normal::{JobHeader, numjobs_continuation, starting_line, version_line};
use crate::output::report::DiskUtilReport;
use crate::output::report::SteadyReport;
use crate::output::{JobInfo, JobReport, OutputFormats, RunReport, version_string};
use crate::run::io_loop::Progress;
use crate::run::job_thread::{JobOutcome, JobRun, NoteSink, Prepared, SetupCtx, prepare_job, run_prepared};
use crate::run::sim::{ClockPlan, run_groups_sim};
use crate::run::steady::SteadyData;
use crate::run::tracing::{DiskTrace, Helper, runstate};
use crate::stats::JobStats;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use zonekit_blk::{Clock, RealClock};

/// One job as given (before `numjobs` cloning).
#[derive(Debug, Clone)]
pub struct BenchJob {
    /// The name in reports (`name=` may differ from the section name, which `opts.name` holds for
    /// file names).
    pub name: String,
    /// Its options, resolved.
    pub opts: Arc<JobOptions>,
    /// Its reporting group.
    pub groupid: u32,
    /// The options as written in its own section (JSON `"job options"`).
    pub job_options: Vec<(String, String)>,
}

/// When to print the live status line (`--eta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EtaMode {
    /// When standard output is a terminal (fio's default).
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Run-wide settings (fio's command-line options).
#[derive(Debug, Clone, Default)]
pub struct RunSettings {
    /// `--output-format`.
    pub formats: OutputFormats,
    /// `--terse-version` (2 to 5; `None`: fio's default, 3).
    pub terse_version: Option<u32>,
    /// `--eta`.
    pub eta: EtaMode,
    /// `--eta-newline`: start a new status line this often.
    pub eta_newline: Option<Duration>,
    /// `--status-interval`: print the full report this often while running.
    pub status_interval: Option<Duration>,
    /// The `[global]` options as written (JSON `"global options"`).
    pub global_options: Vec<(String, String)>,
    /// Standard output is a terminal (decides `--eta=auto`).
    pub stdout_is_tty: bool,
    /// `--zone-report-out=FILE`: the zones of every zoned target after the run, in blkzone's
    /// format.
    pub zone_report_out: Option<PathBuf>,
    /// `--clock`: simulated or real time for devices with a timing model.
    pub clock: ClockChoice,
    /// `--zoned-qd1-writes`, `--max-sectors-kb`: the block layer's settings for zonekit's devices.
    pub queue: QueueOverrides,
    /// `--debug=parse` (`file`, `io`): fio's trace of the parse, printed around the header
    /// lines and after the report.
    pub debug_trace: Option<crate::debug::RunTrace>,
    /// `--debug=CLASS`: the classes whose lines the run prints as it goes.
    pub debug: crate::debug::DebugMask,
    /// `--debug=job:N`: only job N's lines once it has started (fio's `fio_debug_jobno`).
    pub debug_jobno: Option<u32>,
    /// `--idle-prof=system|percpu`: profile the CPUs' idleness over the run ([`idle`]).
    pub idle_prof: Option<idle::IdleProf>,
    /// `--profile`: the profile's name and how many of the run's jobs, at their end, it made
    /// (fio adds them after its version line, with `--debug=profile`'s `loading profile` line).
    pub profile: Option<(&'static str, usize)>,
    /// `--bandwidth-log`: the run's aggregate bandwidth logs, `agg-read_bw.log`,
    /// `agg-write_bw.log` and `agg-trim_bw.log` in the current directory.
    pub bandwidth_log: bool,
}

/// fio's aggregate bandwidth logs (`--bandwidth-log`, `agg_io_log`): sampled where fio samples
/// them, as the status line is computed (`calc_thread_status`: so never with `--eta=never`, or
/// with `--eta=auto` when standard output is no terminal), once more than the jobs' smallest
/// `bwavgtime` has passed: the KiB/s of every job together since the last sample.
#[derive(Debug, Default)]
pub struct AggBwLog {
    avg_ms: u64,
    mixed: bool,
    prev_ms: u64,
    prev_bytes: [u64; 3],
    /// Per direction: `(ms since the run began, KiB/s)`.
    samples: [Vec<(u64, u64)>; 3],
}

impl AggBwLog {
    /// The log of a run whose jobs' smallest `bwavgtime` is `avg_ms` (`mixed`: fio's
    /// `unified_rw_reporting=mixed` in some job, everything in the reads' log).
    pub fn new(avg_ms: u64, mixed: bool) -> AggBwLog {
        AggBwLog { avg_ms, mixed, ..AggBwLog::default() }
    }

    /// At `now_ms`, the jobs have moved `bytes` per direction in all.
    pub fn sample(&mut self, now_ms: u64, bytes: [u64; 3]) {
        let dt = now_ms.saturating_sub(self.prev_ms);
        if dt <= self.avg_ms {
            return;
        }
        let mut rate = [0u64; 3];
        for d in 0..3 {
            let r = (1000 * bytes[d].saturating_sub(self.prev_bytes[d]) / dt) / 1024;
            if self.mixed {
                rate[0] += r;
            } else {
                rate[d] = r;
            }
        }
        for (d, r) in rate.into_iter().enumerate() {
            self.samples[d].push((now_ms, r));
        }
        self.prev_ms = now_ms;
        self.prev_bytes = bytes;
    }

    /// The three files' text, in fio's log format (`time, KiB/s, direction, 0, 0`).
    pub fn texts(&self) -> [(&'static str, String); 3] {
        let text = |d: usize| self.samples[d].iter().map(|(t, v)| format!("{t}, {v}, {d}, 0, 0\n")).collect::<String>();
        [("agg-read_bw.log", text(0)), ("agg-write_bw.log", text(1)), ("agg-trim_bw.log", text(2))]
    }
}

/// The block layer's queue settings a run gives zonekit's devices, over their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueOverrides {
    /// `zoned_qd1_writes`.
    pub zoned_qd1_writes: Option<bool>,
    /// `max_sectors_kb`.
    pub max_sectors_kb: Option<u32>,
    /// `--host-io-ns`: the jobs' own time per I/O, in simulated time ([`QueueConfig::host_io_ns`]).
    ///
    /// [`QueueConfig::host_io_ns`]: zonekit_blk::QueueConfig::host_io_ns
    pub host_io_ns: Option<u64>,
}

/// `--clock=sim|real`: which clock times a run on zonekit's devices with a timing model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClockChoice {
    /// Simulated when every job runs on devices with a timing model (and none offloads its
    /// submissions: `io_submit_mode=offload`), real otherwise.
    #[default]
    Auto,
    /// Simulated: every job must run on devices with a timing model.
    Sim,
    /// Real time: a device with a timing model completes each command no earlier than its model
    /// says (the job feels the drive's latencies).
    Real,
}

/// What a run produced: the text of the report, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// fio's exit code: 128 after SIGINT/SIGTERM, else the number of jobs that failed (at most
    /// 255; fio's count wraps at 256), 0 when none did.
    pub exit_code: i32,
}

fn header(name: &str, o: &JobOptions, groupid: u32) -> JobHeader {
    JobHeader {
        name: name.to_string(),
        groupid,
        rw: o.rw.name().to_string(),
        bs: [(o.min_bs[0], o.max_bs[0]), (o.min_bs[1], o.max_bs[1]), (o.min_bs[2], o.max_bs[2])],
        bs_is_seq_rand: o.bs_is_seq_rand,
        ioengine: o.ioengine.clone(),
        iodepth: o.iodepth,
        kb_base: o.kb_base,
        sig_figs: o.significant_figures,
    }
}

/// The header lines fio prints before a run (normal output only): one per job, `...` after a
/// job with `numjobs > 1`, the version, and `Starting N processes/threads`.
pub fn header_text(jobs: &[BenchJob]) -> String {
    header_text_traced(jobs, None)
}

/// [`header_text`] with `--debug=parse`'s lines where fio prints them: before each job's line,
/// between it and its `...` line (the clones), before the version line and after `Starting`.
pub fn header_text_traced(jobs: &[BenchJob], trace: Option<&crate::debug::RunTrace>) -> String {
    let (a, b) = header_parts(jobs, trace, None);
    a + &b
}

/// [`header_text_traced`] in two: up to the version line, and from `Starting` on (fio starts
/// its helper thread in between).
pub fn header_parts(
    jobs: &[BenchJob],
    trace: Option<&crate::debug::RunTrace>,
    profile: Option<&ProfileHeader>,
) -> (String, String) {
    let mut s = String::new();
    let (mut threads, mut procs) = (0, 0);
    // fio loads a profile once the other jobs are parsed (`fio_backend`): the profile's jobs come
    // after the version line, which fio leaves out when the profile's are the only jobs.
    let first_profile_job = profile.map_or(jobs.len(), |p| jobs.len().saturating_sub(p.jobs));
    for (i, j) in jobs.iter().enumerate() {
        if i == first_profile_job {
            if let Some(t) = trace {
                s.push_str(&t.after_jobs);
            }
            if i > 0 {
                s.push_str(&version_line(&version_string()));
            }
            if let Some(line) = profile.and_then(|p| p.trace_line.as_deref()) {
                s.push_str(line);
            }
        }
        if let Some(b) = trace.and_then(|t| t.before_job.get(i)) {
            s.push_str(b);
        }
        // fio prints no such line for its FIO_NOIO engines (the `...` of clones it does).
        if !matches!(j.opts.ioengine.as_str(), "cpuio" | "exec") {
            s.push_str(&header(&j.name, &j.opts, j.groupid).line());
        }
        if let Some(c) = trace.and_then(|t| t.clones.get(i)) {
            s.push_str(c);
        }
        if j.opts.numjobs > 1 {
            s.push_str(numjobs_continuation());
        }
        if j.opts.thread {
            threads += j.opts.numjobs;
        } else {
            procs += j.opts.numjobs;
        }
    }
    if first_profile_job >= jobs.len() {
        if let Some(t) = trace {
            s.push_str(&t.after_jobs);
        }
        s.push_str(&version_line(&version_string()));
    }
    let mut rest = starting_line(threads, procs);
    if let Some(t) = trace {
        rest.push_str(&t.started);
    }
    (s, rest)
}

/// Where a run's built-in profile (`--profile`) sits among the header lines.
pub struct ProfileHeader {
    /// How many of the run's jobs, at their end, the profile made.
    pub jobs: usize,
    /// `--debug=profile`'s `loading profile 'NAME'` line, when that class is traced.
    pub trace_line: Option<String>,
}

pub(crate) struct Clone_ {
    name: String,
    run: JobRun,
    progress: Arc<Progress>,
    job_options: Vec<(String, String)>,
    /// This clone must end (fio's `td->terminate`): a signal, or another job's end under
    /// `exitall`/`exitall_on_error`. Set before it starts, it never does I/O.
    stop: Arc<AtomicBool>,
    /// Which stonewall wave it runs in: waves run one after the other (a `stonewall` job waits
    /// for every job before it), the groups within a wave together (`new_group` only starts a
    /// new reporting group).
    wave: u32,
    /// The run's trace (`--debug`).
    trace: Tracer,
}

/// What ends when a clone ends (fio's `fio_terminate_threads` at the end of `thread_main`):
/// with `exitall` set anywhere in the run (fio keeps it in one global) every job's end, with
/// `exitall_on_error` a failed job's end, terminates the jobs its `exit_what` names: `group`,
/// those of its reporting group; `stonewall`, those running now; `all`, every job, including
/// those not started yet (they never start).
fn end_others(clones: &[Clone_], me: usize, failed: bool) {
    let c = &clones[me];
    let o = &c.run.opts;
    let exitall = clones.iter().any(|c| c.run.opts.exitall);
    if !(exitall || (o.exitall_on_error && failed)) {
        return;
    }
    let t = &c.trace;
    if t.on(Class::Process) {
        // fio prints TERMINATE_ALL (-1) as the group of `exit_what=all`.
        let group = if o.exit_what == "all" { -1 } else { c.run.groupid as i64 };
        t.print(Class::Process, &format!("terminate group_id={group}"));
    }
    for other in clones {
        let hit = match o.exit_what.as_str() {
            "all" => true,
            // fio's `runstate >= TD_RUNNING`: past its ramp (and those done).
            "stonewall" => other.progress.state.load(Ordering::Relaxed) >= 2,
            _ => other.run.groupid == c.run.groupid,
        };
        if hit {
            dprint!(
                t,
                Class::Process,
                "setting terminate on {}/{}",
                other.name,
                other.progress.pid.load(Ordering::Relaxed)
            );
            other.stop.store(true, Ordering::Relaxed);
        }
    }
}

fn running_state(o: &JobOptions, p: &Progress) -> JobState {
    match p.state.load(Ordering::Relaxed) {
        0 => JobState::Initialized,
        1 => JobState::Ramp,
        2 => JobState::Running {
            read: o.rw.reads(),
            write: o.rw.writes(),
            random: o.rw.is_random(),
            rwmix_read: o.rwmixread,
        },
        _ => JobState::Exited,
    }
}

/// The monitor: SIGINT/SIGTERM, `--status-interval` reports and the ETA line. On its own thread
/// in real time ([`monitor_thread`]); called by the event loop each time simulated time moves.
pub(crate) struct Monitor {
    clones: Arc<Vec<Clone_>>,
    terminate: Arc<AtomicBool>,
    out: Arc<Mutex<Box<dyn Write + Send>>>,
    eta: bool,
    status_interval: Option<Duration>,
    formats: OutputFormats,
    terse_version: u32,
    line: EtaLine,
    last_status_ms: u64,
    last_eta_ms: u64,
    last_bytes: [u64; 3],
    last_ios: [u64; 3],
    announced: bool,
    /// Snapshots were asked for and are collected at the next tick (simulated time: the jobs
    /// run on the monitor's thread, so it cannot wait for them).
    status_pending: bool,
    /// Every clone's steady-state data (fio's helper thread checks it once a second).
    steady: Arc<Mutex<Vec<SteadyData>>>,
    /// Some clone has `ss_dur`.
    steady_on: bool,
    /// When the next steady-state check is due, ms into the run.
    next_steady_ms: u64,
    /// The run's trace, the disks each clone's files are on, and when fio's helper next reads
    /// them (every 250 ms, in real time).
    trace: Tracer,
    disk_users: crate::run::tracing::DiskUsers,
    next_du_ms: u64,
    /// The devices under the run's files, from the run's start (`--status-interval` reports
    /// show their statistics so far, as fio's do); `None`: no `Disk stats` section.
    disks: Option<DiskUtilTracker>,
    /// `--bandwidth-log`.
    agg_bw: Option<Arc<Mutex<AggBwLog>>>,
    /// Where a real-time monitor's time counts from: the run's start, before the jobs are set
    /// up (fio's helper thread, which times `--status-interval`, starts before the layout).
    begun: Instant,
}

/// The clones that are running (past their ramp).
fn running_clones(clones: &[Clone_]) -> Vec<usize> {
    (0..clones.len()).filter(|&i| clones[i].progress.state.load(Ordering::Relaxed) == 2).collect()
}

/// Ask every running clone for a snapshot of its numbers.
fn ask_snapshots(clones: &[Clone_]) {
    for i in running_clones(clones) {
        clones[i].progress.snapshot_wanted.store(true, Ordering::Relaxed);
    }
}

/// `--status-interval`: print a full report of the running jobs' numbers so far: asked for now
/// and waited for (`wait`, jobs on their threads), or asked for at the previous tick.
fn status_report(m: &Monitor, elapsed_sec: u64, wait: bool) {
    let running = running_clones(&m.clones);
    if wait {
        ask_snapshots(&m.clones);
    }
    let deadline = Instant::now() + Duration::from_millis(500);
    let mut entries = Vec::new();
    for &i in &running {
        let p = &m.clones[i].progress;
        loop {
            if let Some(stats) = p.snapshot.lock().ok().and_then(|mut s| s.take()) {
                entries.push(Entry { clone: i, stats, error: None, pid: p.pid.load(Ordering::Relaxed) as u32 });
                break;
            }
            if !wait || Instant::now() >= deadline || p.state.load(Ordering::Relaxed) != 2 {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    if entries.is_empty() {
        return;
    }
    let steady = m.steady.lock().map(|s| s.clone()).unwrap_or_default();
    let disks = m.disks.as_ref().map_or_else(Vec::new, |d| {
        let mut d = d.clone();
        d.update();
        d.report()
    });
    let mut report = RunReport::new(build_reports(&m.clones, &entries, &steady, elapsed_sec as i64), disks);
    report.terse_version = m.terse_version;
    report.stamp_now();
    let text = crate::output::render(&report, m.formats);
    if let Ok(mut w) = m.out.lock() {
        let _ = w.write_all(text.as_bytes());
        let _ = w.flush();
    }
}

impl Monitor {
    fn new(
        clones: Arc<Vec<Clone_>>,
        terminate: Arc<AtomicBool>,
        out: Arc<Mutex<Box<dyn Write + Send>>>,
        eta: bool,
        settings: &RunSettings,
        steady: Arc<Mutex<Vec<SteadyData>>>,
    ) -> Monitor {
        let steady_on = steady.lock().map(|s| s.iter().any(|d| d.dur > 0)).unwrap_or(false);
        Monitor {
            disks: None,
            agg_bw: None,
            begun: Instant::now(),
            steady,
            steady_on,
            next_steady_ms: steady::SAMPLE_MS,
            trace: Tracer::default(),
            disk_users: Default::default(),
            next_du_ms: crate::run::tracing::DISK_UTIL_MSEC,
            clones,
            terminate,
            out,
            eta,
            status_interval: settings.status_interval,
            formats: settings.formats,
            terse_version: settings.terse_version.unwrap_or(3),
            line: EtaLine::new(settings.eta_newline.map(|d| d.as_millis() as u64)),
            last_status_ms: 0,
            last_eta_ms: 0,
            last_bytes: [0; 3],
            last_ios: [0; 3],
            announced: false,
            status_pending: false,
        }
    }

    /// Steady-state detection: note when each clone's statistics begin; once a second, sample
    /// and end the clones found steady (fio's `steadystate_check` on its helper thread).
    fn steady_tick(&mut self, now_ms: u64) {
        let Ok(mut data) = self.steady.lock() else { return };
        for (c, d) in self.clones.iter().zip(data.iter_mut()) {
            if d.dur > 0 && c.progress.state.load(Ordering::Relaxed) == 2 {
                steady::started(d, now_ms);
            }
        }
        if now_ms < self.next_steady_ms {
            return;
        }
        while self.next_steady_ms <= now_ms {
            self.next_steady_ms += steady::SAMPLE_MS;
        }
        let samples: Vec<steady::Sample> = self
            .clones
            .iter()
            .map(|c| steady::Sample {
                groupid: c.run.groupid,
                group_reporting: c.run.opts.group_reporting,
                running: c.progress.state.load(Ordering::Relaxed) == 2,
                ios: c.progress.ios.iter().map(|v| v.load(Ordering::Relaxed)).sum(),
                bytes: c.progress.bytes.iter().map(|v| v.load(Ordering::Relaxed)).sum(),
            })
            .collect();
        let mut lines = Vec::new();
        let traced = self.trace.on(Class::Steadystate).then_some(&mut lines);
        let ended = steady::check_traced(&mut data, &samples, now_ms, traced);
        for l in lines {
            self.trace.print(Class::Steadystate, &l);
        }
        for i in ended {
            self.clones[i].stop.store(true, Ordering::Relaxed);
        }
    }

    /// Another look at the jobs at `now_ms` since the run began. `wait`: the jobs run on other
    /// threads, and a status report may wait for their snapshots.
    fn tick(&mut self, now_ms: u64, wait: bool) {
        if wait && now_ms >= self.next_du_ms && self.trace.any() {
            // fio's helper thread: the disks under running jobs' files read, then its wait.
            while self.next_du_ms <= now_ms {
                self.next_du_ms += crate::run::tracing::DISK_UTIL_MSEC;
            }
            let running: Vec<bool> =
                self.clones.iter().map(|c| matches!(c.progress.state.load(Ordering::Relaxed), 1 | 2)).collect();
            crate::run::tracing::helper_tick(&self.trace, &self.disk_users, &running, now_ms);
        }
        if let Some(sig) = crate::sys::received()
            && !self.announced
        {
            self.announced = true;
            self.terminate.store(true, Ordering::Relaxed);
            for c in self.clones.iter() {
                c.stop.store(true, Ordering::Relaxed);
            }
            if let Ok(mut w) = self.out.lock() {
                let _ = writeln!(w, "\nzonekit: terminating on signal {sig}");
                let _ = w.flush();
            }
        }
        if self.steady_on {
            self.steady_tick(now_ms);
        }
        if self.status_pending {
            self.status_pending = false;
            status_report(self, now_ms / 1000, false);
        }
        if let Some(iv) = self.status_interval
            && now_ms.saturating_sub(self.last_status_ms) >= iv.as_millis() as u64
        {
            self.last_status_ms = now_ms;
            if wait {
                status_report(self, now_ms / 1000, true);
            } else {
                ask_snapshots(&self.clones);
                self.status_pending = true;
            }
        }
        if self.eta
            && let Some(agg) = &self.agg_bw
            && let Ok(mut agg) = agg.lock()
        {
            let mut bytes = [0u64; 3];
            for c in self.clones.iter() {
                for (d, b) in bytes.iter_mut().enumerate() {
                    *b += c.progress.bytes[d].load(Ordering::Relaxed);
                }
            }
            agg.sample(now_ms, bytes);
        }
        if !self.eta || now_ms.saturating_sub(self.last_eta_ms) < 1000 {
            return;
        }
        let dt = (now_ms - self.last_eta_ms) as f64 / 1000.0;
        self.last_eta_ms = now_ms;
        let elapsed_sec = now_ms / 1000;
        let mut st = EtaStatus::default();
        let mut letters = String::new();
        let mut bytes = [0u64; 3];
        let mut ios = [0u64; 3];
        let mut eta_sec: Option<u64> = Some(0);
        for c in self.clones.iter() {
            let state = running_state(&c.run.opts, &c.progress);
            letters.push(state.letter());
            if matches!(state, JobState::Running { .. } | JobState::Ramp) {
                st.nr_running += 1;
                st.files_open += c.run.opts.nrfiles.max(1);
                if matches!(state, JobState::Ramp) {
                    st.nr_ramp += 1;
                }
                let o = &c.run.opts;
                let left = match o.runtime {
                    Some(r) if o.time_based || !r.is_zero() => {
                        Some((r + o.ramp_time).as_secs().saturating_sub(elapsed_sec))
                    }
                    _ => None,
                };
                eta_sec = match (eta_sec, left) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    _ => None,
                };
            }
            for d in 0..3 {
                bytes[d] += c.progress.bytes[d].load(Ordering::Relaxed);
                ios[d] += c.progress.ios[d].load(Ordering::Relaxed);
            }
        }
        for d in 0..3 {
            st.rate_kib[d] = ((bytes[d] - self.last_bytes[d].min(bytes[d])) as f64 / dt / 1024.0) as u64;
            st.iops[d] = ((ios[d] - self.last_ios[d].min(ios[d])) as f64 / dt) as u64;
        }
        self.last_bytes = bytes;
        self.last_ios = ios;
        st.run_str = letters;
        st.eta_sec = eta_sec;
        st.elapsed_sec = elapsed_sec;
        let text = self.line.format(&st, now_ms);
        if let Ok(mut w) = self.out.lock() {
            let _ = w.write_all(text.as_bytes());
            let _ = w.flush();
        }
    }
}

/// The monitor on its own thread, every 10 ms of real time, until `done`.
pub(crate) fn monitor_thread(mut m: Monitor, done: Arc<AtomicBool>) {
    let begun = m.begun;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(10));
        m.tick(begun.elapsed().as_millis() as u64, true);
    }
}

/// `wait_for`: the clones of the job that `c` starts after.
fn waitees(clones: &[Clone_], c: &Clone_) -> Vec<Arc<Progress>> {
    match &c.run.opts.wait_for {
        Some(w) => {
            clones.iter().filter(|o| &o.name == w || &o.run.opts.name == w).map(|o| o.progress.clone()).collect()
        }
        None => Vec::new(),
    }
}

/// A clone's life on `clock`, on its thread or as a task of the event loop: wait (1 ms at a time)
/// until every one of `waitees` has finished or the clone is terminated, run, end the others
/// `exitall` ends, then say it has finished.
async fn clone_life<C: Clock>(
    clock: C,
    clones: Arc<Vec<Clone_>>,
    me: usize,
    p: Prepared,
    note: NoteSink,
) -> JobOutcome {
    let c = &clones[me];
    let waitees = waitees(&clones, c);
    let (stop, progress) = (c.stop.clone(), c.progress.clone());
    while !waitees.iter().all(|w| w.finished.load(Ordering::Relaxed)) && !stop.load(Ordering::Relaxed) {
        clock.sleep_until(clock.now_ns() + 1_000_000).await;
    }
    let trace = c.trace.clone();
    let o = run_prepared(p, clock, stop, progress.clone(), note).await;
    if !o.exited {
        // The job ended before its I/O could (fio's thread_main going to its error exit).
        runstate(&trace, o.pid, "RUNNING", "EXITED");
    }
    end_others(&clones, me, o.error.is_some());
    progress.finished.store(true, Ordering::Relaxed);
    o
}

/// What a run traces as its jobs start (`--debug`): the trace, the disks found so far, and
/// `job:N`.
pub(crate) struct StartTrace {
    trace: Tracer,
    disks: DiskTrace,
    jobno: Option<u32>,
}

impl StartTrace {
    /// Whether a job's start is traced: its thread and the run's wait for each other as fio's
    /// do on their semaphores, so that the lines come in fio's order.
    fn handshake(&self) -> bool {
        self.trace.on(Class::Process) || self.trace.on(Class::Mutex) || self.jobno.is_some()
    }

    /// fio's run_threads creating one job (`i` in run order): its disks, its state, the fork.
    fn create(&mut self, i: usize, p: &Prepared) {
        let t = &self.trace;
        self.disks.init(t, i, &p.trace_files());
        runstate(t, 0, "NOT_CREATED", "CREATED");
        if p.run().opts.thread {
            dprint!(t, Class::Process, "will pthread_create");
        } else {
            dprint!(t, Class::Process, "will fork");
        }
        let _ = i;
    }
}

/// fio's thread_main as a job starts, on the job's thread: it says it has started, lets the run
/// go on (`up`), and waits to be let run (`go`).
fn job_started(t: &Tracer, only: bool, up: impl FnOnce(u32), go: impl FnOnce()) {
    let tid = job_up(t, only);
    up(tid);
    dprint!(t, Class::Mutex, "wait on td->sem");
    go();
    dprint!(t, Class::Mutex, "done waiting on td->sem");
}

/// The first half of [`job_started`], up to the job's `up`: its thread id.
pub(crate) fn job_up(t: &Tracer, only: bool) -> u32 {
    let tid = crate::sys::gettid();
    if only {
        // job:N: fio keeps the lines of that job's process only, from its fork on.
        t.only_thread(tid);
    }
    dprint!(t, Class::Process, "jobs pid={tid} started");
    runstate(t, tid, "CREATED", "INITIALIZED");
    dprint!(t, Class::Mutex, "up startup_sem");
    tid
}

/// Run the stonewall waves in order, every clone of a wave on its own thread in real time. Returns the
/// outcomes (by clone index), how many threads failed, and the nanoseconds the run took.
#[allow(clippy::too_many_arguments)]
fn run_groups_threads(
    clones: &Arc<Vec<Clone_>>,
    prepared: &mut [Option<Prepared>],
    monitor: Monitor,
    terminate: &Arc<AtomicBool>,
    note: &NoteSink,
    err: &mut dyn Write,
    helper: &Helper,
    st: &mut StartTrace,
    source: zonekit_blk::clock::ClockSource,
) -> (Vec<(usize, JobOutcome)>, u32, u64) {
    let done = Arc::new(AtomicBool::new(false));
    helper.run_monitor(monitor, done.clone());
    let begun = Instant::now();
    let mut outcomes = Vec::new();
    let mut thread_failures = 0u32;
    let last_wave = clones.iter().map(|c| c.wave).max().unwrap_or(0);
    let handshake = st.handshake();
    for w in 0..=last_wave {
        if terminate.load(Ordering::Relaxed) {
            break;
        }
        let mut handles = Vec::new();
        let mut starts = Vec::new();
        for (i, c) in clones.iter().enumerate().filter(|(_, c)| c.wave == w) {
            let Some(p) = prepared[i].take() else { continue };
            st.create(i, &p);
            let (all, n) = (clones.clone(), note.clone());
            let name = format!("{}-{}", c.run.opts.name, c.run.jobnum);
            let (up_tx, up_rx) = std::sync::mpsc::channel::<u32>();
            let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
            let tr = st.trace.clone();
            let only = st.jobno == Some(i as u32) && !c.run.opts.thread;
            let body = move || {
                if handshake {
                    job_started(
                        &tr,
                        only,
                        |tid| {
                            let _ = up_tx.send(tid);
                        },
                        || {
                            let _ = go_rx.recv();
                        },
                    );
                }
                // One time base for every job: devices with a timing model are shared.
                let clock = RealClock::with_source(begun, source);
                crate::run::executor::block_on(clone_life(clock, all, i, p, n))
            };
            match std::thread::Builder::new().name(name).spawn(body) {
                Ok(h) => {
                    handles.push((i, h));
                    if handshake {
                        dprint!(st.trace, Class::Mutex, "wait on startup_sem");
                        let tid = up_rx.recv().unwrap_or(0);
                        dprint!(st.trace, Class::Mutex, "done waiting on startup_sem");
                        starts.push((tid, !c.run.opts.ramp_time.is_zero(), go_tx));
                    }
                }
                Err(e) => {
                    let _ = writeln!(err, "zonekit: cannot start a job thread: {e}");
                }
            }
        }
        // fio's run_threads lets the jobs it started run, each in its ramp if it has one.
        for (tid, ramp, go) in starts {
            runstate(&st.trace, tid, "INITIALIZED", if ramp { "RAMP" } else { "RUNNING" });
            let _ = go.send(());
        }
        for (i, h) in handles {
            match h.join() {
                Ok(o) => {
                    runstate(&st.trace, o.pid, "EXITED", "REAPED");
                    outcomes.push((i, o));
                }
                Err(_) => {
                    thread_failures += 1;
                    let _ = writeln!(err, "zonekit: a job thread failed");
                }
            }
        }
    }
    done.store(true, Ordering::Relaxed);
    helper.wait_monitor();
    (outcomes, thread_failures, begun.elapsed().as_nanos() as u64)
}

/// Whether a job's error message was recorded as fio's `td_verror` records one (`file:…, func=…`
/// or `func=…`), rather than being a whole line already (`io_u error on file …`).
fn is_td_verror(msg: &str) -> bool {
    msg.starts_with("func=") || msg.starts_with("file:")
}

fn verror(errno: i32, msg: &str) -> String {
    let text = zonekit_core::Errno(errno).description().map(str::to_string).unwrap_or_else(|| format!("errno {errno}"));
    if msg.starts_with("io_u error") {
        format!("file:io_u.c:1876, func=io_u error, error={text}")
    } else if is_td_verror(msg) {
        format!("{msg}, error={text}")
    } else {
        format!("func={msg}, error={text}")
    }
}

/// A job's numbers for a report: at the end of the run, or a snapshot while it runs.
struct Entry {
    clone: usize,
    stats: JobStats,
    error: Option<(i32, String)>,
    pid: u32,
}

/// The job reports of `entries` (in clone order), merged per group under `group_reporting`.
fn build_reports(clones: &[Clone_], entries: &[Entry], steady: &[SteadyData], elapsed_sec: i64) -> Vec<JobReport> {
    let mut reports: Vec<JobReport> = Vec::new();
    let mut merged: Option<(u32, String, JobStats, JobInfo)> = None;
    // fio's show_thread_status_normal prints the time of the report (`time(NULL)`), whatever
    // the job's start.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    let flush = |m: &mut Option<(u32, String, JobStats, JobInfo)>, reports: &mut Vec<JobReport>| {
        if let Some((_, _, st, info)) = m.take() {
            reports.push(JobReport::from_stats(&st, info));
        }
    };
    for e in entries {
        let c = &clones[e.clone];
        let opts = &c.run.opts;
        if !opts.stats {
            // `stats=0`: the job runs but is left out of the report and the group's numbers.
            continue;
        }
        let (errno, vmsg) = match &e.error {
            Some((e, m)) => (*e, verror(*e, m)),
            // An error the job carried on past (`continue_on_error`): fio shows `err=N ()`.
            None => (e.stats.error, String::new()),
        };
        let info = JobInfo {
            name: c.name.clone(),
            description: opts.description.clone().unwrap_or_default(),
            groupid: c.run.groupid,
            members: 1,
            pid: e.pid as i32,
            error: errno,
            verror: vmsg,
            time: crate::sys::ctime(now),
            elapsed_sec,
            job_options: c.job_options.clone(),
            continue_on_error: opts.continue_on_error.read
                || opts.continue_on_error.write
                || opts.continue_on_error.verify,
            latency_depth: if e.stats.latency_depth > 0 { e.stats.latency_depth } else { opts.iodepth },
            latency_target: opts.pacing.latency_target_us.saturating_mul(1000),
            latency_window: opts.pacing.latency_window_us,
            latency_percentile: opts.pacing.latency_percentile,
            kb_base: opts.kb_base,
            unit_bits: opts.unit_base == 1,
            sig_figs: opts.significant_figures,
            count_zone_resets: opts.zonemode == crate::options::job::ZoneMode::Zbd
                && (opts.rw.writes() || opts.rw.trims()),
            unified_rw: match opts.unified_rw_reporting.as_str() {
                "mixed" => crate::output::report::UNIFIED_MIXED,
                "both" => crate::output::report::UNIFIED_BOTH,
                _ => 0,
            },
            steadystate: steady.get(e.clone).filter(|d| d.dur > 0).map(steady_report),
            ..JobInfo::default()
        };
        if opts.group_reporting {
            match &mut merged {
                Some((g, _, st, mi)) if *g == c.run.groupid => {
                    st.merge(&e.stats);
                    mi.members += 1;
                    // fio's JSON "job options" of a group are its last job's (`opt_lists[j]`).
                    mi.job_options = info.job_options.clone();
                    mi.count_zone_resets |= info.count_zone_resets;
                    // fio keeps the last clone's (the one holding the group's window).
                    if info.steadystate.is_some() {
                        mi.steadystate = info.steadystate.clone();
                    }
                    if mi.error == 0 && errno != 0 {
                        mi.error = errno;
                        mi.verror = info.verror.clone();
                    }
                }
                _ => {
                    flush(&mut merged, &mut reports);
                    merged = Some((c.run.groupid, c.name.clone(), e.stats.clone(), info));
                }
            }
        } else {
            flush(&mut merged, &mut reports);
            reports.push(JobReport::from_stats(&e.stats, info));
        }
    }
    flush(&mut merged, &mut reports);
    reports
}

/// A clone's steady-state data as the report shows it.
fn steady_report(d: &SteadyData) -> SteadyReport {
    SteadyReport {
        iops: d.state & steady::SS_IOPS != 0,
        slope_crit: d.state & steady::SS_SLOPE != 0,
        percent: d.state & steady::SS_PCT != 0,
        attained: d.state & steady::SS_ATTAINED != 0,
        limit: d.limit,
        dur: d.dur,
        criterion: d.criterion,
        deviation: d.deviation,
        slope: d.slope,
        bw_mean: d.bw_mean(),
        iops_mean: d.iops_mean(),
        data: d.ordered(),
    }
}

/// Read the log of every job with `read_iolog` before anything runs: the job then works on the
/// log's files (or `replay_redirect`), in the log's directions, with buffers for its largest
/// I/O, and replays its I/Os in order. A log that cannot be read, is corrupt or truncated, or is
/// a blktrace file is one line (exit code 2).
fn read_iologs(jobs: &[BenchJob]) -> Result<Vec<BenchJob>, String> {
    use crate::options::job::{RwMode, SizeSpec};
    let mut out = Vec::with_capacity(jobs.len());
    for j in jobs {
        let Some(path) = j.opts.replay.read_iolog.clone() else {
            out.push(j.clone());
            continue;
        };
        let what = format!("job {}: read_iolog={}", j.name, crate::error::one_line(&path));
        let data = std::fs::read(&path).map_err(|e| format!("{what}: {}", zonekit_core::io_text(&e)))?;
        let r = &j.opts.replay;
        let rules = crate::run::iolog::ReplayRules {
            no_stall: r.no_stall,
            redirect: r.redirect.as_deref(),
            scale: r.scale,
            align: r.align,
            time_scale: r.time_scale,
            skip: r.skip,
        };
        let log = crate::run::iolog::parse_iolog(&data, &rules).map_err(|why| format!("{what}: {why}"))?;
        let mut o = (*j.opts).clone();
        let has = |d: Dir| log.ios.iter().any(|io| io.dir == d);
        use crate::workload::Dir;
        o.rw = match (has(Dir::Read), has(Dir::Write), has(Dir::Trim)) {
            (true, true, _) => RwMode::RandRw,
            (true, false, false) => RwMode::RandRead,
            (false, true, false) => RwMode::RandWrite,
            (false, false, true) => RwMode::RandTrim,
            (true, false, true) | (false, true, true) => RwMode::RandRw,
            (false, false, false) => RwMode::RandRead,
        };
        for d in 0..3 {
            if log.max_len[d] > 0 {
                o.bs[d] = log.max_len[d];
                o.min_bs[d] = log.max_len[d];
                o.max_bs[d] = log.max_len[d];
                o.blockalign[d] = 1;
            }
        }
        let end = log.file_end.iter().copied().max().unwrap_or(0).max(1);
        o.filename = Some(log.files.iter().map(|f| f.replace(':', "\\:")).collect::<Vec<_>>().join(":"));
        o.directory = None;
        o.nrfiles = u32::try_from(log.files.len()).unwrap_or(u32::MAX);
        o.openfiles = o.nrfiles;
        o.filesize = Some((end, end));
        o.size = Some(SizeSpec::Bytes(end.saturating_mul(u64::from(o.nrfiles))));
        o.offset = SizeSpec::Bytes(0);
        o.io_size = None;
        o.time_based = false;
        o.loops = 1;
        o.fsync = 0;
        o.fdatasync = 0;
        o.norandommap = true;
        o.replay.parsed = Some(Arc::new(log));
        out.push(BenchJob { opts: Arc::new(o), ..j.clone() });
    }
    Ok(out)
}

/// The files each job names, opening zonekit's devices (once each); the first job whose targets
/// cannot be used, as one line and its exit code.
fn check_targets(jobs: &[BenchJob], devices: &mut crate::target::Devices) -> Result<(), (String, i32)> {
    for j in jobs {
        let names: Vec<String> =
            crate::run::sizing::file_paths(&j.opts, 0).iter().map(|p| p.display().to_string()).collect();
        devices.check_job(&j.opts, &names).map_err(|e| (e.message, if e.usage { 2 } else { 1 }))?;
    }
    Ok(())
}

/// Checks that the files the run writes at its end (every clone's logs, `--zone-report-out`) can
/// be written, so that a bad path stops the run before it starts rather than after (fio finds
/// out at the end, prints `fopen log: …` without the path, and exits 0). The first that cannot,
/// as one line naming it.
fn check_outputs(jobs: &[BenchJob], settings: &RunSettings) -> Result<(), String> {
    let why = |e: std::io::Error| zonekit_core::Errno(e.raw_os_error().unwrap_or(libc::EIO)).to_string();
    let mut thread_number = 0;
    for j in jobs {
        for _ in 0..j.opts.numjobs.max(1) {
            thread_number += 1;
            for (option, path) in crate::run::job_thread::log_paths(&j.opts, thread_number) {
                crate::run::job_thread::check_writable(&path).map_err(|e| {
                    format!("job {}: {option}: {}: cannot write the log: {}", j.name, path.display(), why(e))
                })?;
            }
        }
    }
    if let Some(path) = &settings.zone_report_out {
        crate::run::job_thread::check_writable(path)
            .map_err(|e| format!("{}: cannot write the zone report: {}", path.display(), why(e)))?;
    }
    Ok(())
}

/// fio's `check_mount_writes` over every clone of the run: the line for the first block device
/// a job that writes or trims names while a mounted file system sits on it (unless the job sets
/// `allow_mounted_write`).
fn mounted_write(jobs: &[BenchJob]) -> Option<String> {
    let clones = jobs.iter().filter(|j| !crate::run::sizing::diskless(&j.opts)).flat_map(|j| {
        let o = &j.opts;
        (0..o.numjobs.max(1)).map(move |jobnum| {
            let files = crate::run::sizing::file_paths(o, jobnum)
                .into_iter()
                .filter(|p| !crate::target::is_device_spec(&p.to_string_lossy()))
                .collect();
            (o.rw.writes() || o.rw.trims(), o.placement.allow_mounted_write, files)
        })
    });
    host::mounted_write(clones)
}

/// The line for a job's error: fio's `pid=…, err=…/file:…, func=…` for an error recorded as
/// fio's `td_verror` does (`file:` and `func=` messages), the message itself otherwise.
fn verror_line(pid: u32, errno: i32, msg: &str) -> String {
    if is_td_verror(msg) { format!("pid={pid}, err={errno}/{}", verror(errno, msg)) } else { msg.to_string() }
}

/// The zones of every zoned target of the run, in blkzone's format (`--zone-report-out`): a
/// target's own report for zonekit's devices and zoned block devices, the benchmark's emulated
/// zones for files. Several targets are each headed by a `# NAME` line.
fn zone_report(ctx: &SetupCtx) -> String {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let mut devices: Vec<_> = ctx.devices.iter().collect();
    devices.sort_by(|a, b| a.0.cmp(b.0));
    for (name, dev) in devices {
        let g = &dev.info().geometry;
        let mut lines = Vec::with_capacity(g.nr_zones as usize);
        let mut zones = Vec::new();
        let mut sector = 0;
        while sector < g.capacity {
            zones.clear();
            if dev.report_zones(sector, 4096, &mut zones).is_err() || zones.is_empty() {
                break;
            }
            for z in &zones {
                lines.push(z.blkzone_line());
            }
            sector = zones.last().map_or(g.capacity, |z| z.start + z.len);
        }
        sections.push((name.clone(), lines));
    }
    for f in ctx.zbd.files() {
        if f.model != crate::zbd::Model::None {
            continue;
        }
        let lines = f
            .snapshot()
            .iter()
            .map(|&(start, wp, cap, len)| {
                let cond = if wp == start {
                    zonekit_core::ZoneCond::Empty
                } else if wp >= start + cap {
                    zonekit_core::ZoneCond::Full
                } else {
                    zonekit_core::ZoneCond::ImplicitOpen
                };
                zonekit_core::Zone {
                    start: start >> 9,
                    len: len >> 9,
                    capacity: cap >> 9,
                    wp: wp >> 9,
                    zone_type: zonekit_core::ZoneType::SeqWriteRequired,
                    cond,
                    non_seq: false,
                    reset: false,
                }
                .blkzone_line()
            })
            .collect();
        sections.push((f.name.clone(), lines));
    }
    let mut out = String::new();
    let several = sections.len() > 1;
    for (name, lines) in sections {
        if several {
            out.push_str(&format!("# {name}\n"));
        }
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

/// Run `jobs`: print headers to `out` (normal output), set every clone up in order, run the
/// groups in order, print the report to `out` and errors to `err`. Returns fio's exit code.
pub fn execute(
    jobs: &[BenchJob],
    settings: &RunSettings,
    out: Box<dyn Write + Send>,
    err: &mut dyn Write,
) -> RunResult {
    let begun = Instant::now();
    // The real clock's calibration (20 ms on the TSC) happens here, before any job's time starts.
    zonekit_blk::clock::calibrate();
    let replayed = match read_iologs(jobs) {
        Ok(v) => v,
        Err(msg) => {
            let _ = writeln!(err, "zonekit: {msg}");
            return RunResult { exit_code: 2 };
        }
    };
    let jobs = &replayed[..];
    let mut ctx = SetupCtx::default();
    if let Err((msg, code)) = check_targets(jobs, &mut ctx.devices) {
        let _ = writeln!(err, "zonekit: {msg}");
        return RunResult { exit_code: code };
    }
    if let Err(msg) = check_outputs(jobs, settings) {
        let _ = writeln!(err, "zonekit: {msg}");
        return RunResult { exit_code: 1 };
    }
    let clock_plan = match ClockPlan::new(jobs, &ctx.devices, settings.clock, settings.queue) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(err, "zonekit: {msg}");
            return RunResult { exit_code: 2 };
        }
    };
    let out = Arc::new(Mutex::new(out));
    let tracer = Tracer::new(settings.debug, out.clone());
    ctx.trace = tracer.clone();
    ctx.zbd.trace = tracer.clone();
    let main_pid = std::process::id();
    let write = |text: &str| {
        if let Ok(mut w) = out.lock() {
            let _ = w.write_all(text.as_bytes());
            let _ = w.flush();
        }
    };
    // fio's `load_profile`, once the other jobs are parsed.
    let profile_header = settings.profile.map(|(name, jobs)| ProfileHeader {
        jobs,
        trace_line: tracer
            .on(Class::Profile)
            .then(|| format!("{}\n", crate::debug::line("profile", main_pid, &format!("loading profile '{name}'")))),
    });
    // The header lines (or, without normal output, the parse trace alone) up to `Starting`:
    // fio calibrates its clock and starts its helper thread in between.
    let (before, after) = if settings.formats.normal {
        let (a, mut b) = header_parts(jobs, settings.debug_trace.as_ref(), profile_header.as_ref());
        if let Some(line) = clock_plan.line() {
            b.push_str(&format!("{line}\n"));
        }
        (a, b)
    } else if let Some(t) = &settings.debug_trace {
        let mut early = t.clone();
        early.end.clear();
        early.started.clear();
        let mut a = early.all();
        a.extend(profile_header.iter().filter_map(|p| p.trace_line.clone()));
        (a, t.started.clone())
    } else {
        (profile_header.iter().filter_map(|p| p.trace_line.clone()).collect(), String::new())
    };
    let clock_source = crate::run::tracing::run_clock_source(jobs.iter().map(|j| j.opts.clocksource.as_deref()));
    let (early, late) = crate::run::tracing::calibration_lines(settings.debug, main_pid, clock_source);
    if let Some(line) = crate::run::tracing::clock_note(clock_source) {
        write(&format!("{line}\n"));
    }
    write(&early);
    write(&before);
    write(&late);
    // fio's run_threads: no job starts while one that writes names a block device with a mounted
    // file system on it (fio prints an empty report and exits 0; the run has failed here).
    if let Some(line) = mounted_write(jobs) {
        let _ = writeln!(err, "zonekit: {line}");
        return RunResult { exit_code: 1 };
    }
    let helper = Helper::start(&tracer);
    write(&after);
    crate::sys::catch_terminating_signals();
    // --idle-prof: fio's run_threads calibrates the idle threads first, before any job is set up.
    let mut idle = settings.idle_prof.map(idle::IdleProfiler::calibrate);
    for line in idle.iter_mut().flat_map(|p| std::mem::take(&mut p.problems)) {
        let _ = writeln!(err, "{line}");
    }

    // Every clone, in the order fio numbers them.
    let mut clones = Vec::new();
    let mut thread_number = 0;
    let mut wave = 0;
    for j in jobs {
        // fio's run_threads: a stonewall job waits for every job started before it.
        if j.opts.stonewall && thread_number > 0 {
            wave += 1;
        }
        let n = j.opts.numjobs.max(1);
        for k in 0..n {
            // fio's add_job numbers the job itself 0 and its clones N-1 down to 1, in the order
            // they start (`subjob_number`: the `offset_increment` multiple, `$jobnum`, the port of
            // a network job), so the second thread of `numjobs=3` is clone 2.
            let jobnum = if k == 0 { 0 } else { n - k };
            thread_number += 1;
            clones.push(Clone_ {
                name: j.name.clone(),
                run: JobRun { opts: j.opts.clone(), jobnum, thread_number, groupid: j.groupid, seeds: Arc::default() },
                progress: Arc::new(Progress::default()),
                job_options: j.job_options.clone(),
                stop: Arc::new(AtomicBool::new(false)),
                wave,
                trace: tracer.clone(),
            });
        }
    }
    // Every clone's seed, drawn now so that dedupe_global's working sets can use the others'.
    let seeds: Arc<Vec<u64>> =
        Arc::new(clones.iter().map(|c| crate::run::sizing::job_seed(&c.run.opts, c.run.thread_number)).collect());
    for c in &mut clones {
        c.run.seeds = seeds.clone();
    }
    // zonekit's own devices are not block devices: they report their own statistics below.
    let files: Vec<PathBuf> = clones
        .iter()
        .filter(|c| !crate::run::sizing::diskless(&c.run.opts))
        .flat_map(|c| crate::run::sizing::file_paths(&c.run.opts, c.run.jobnum))
        .filter(|p| !crate::target::is_device_spec(&p.to_string_lossy()))
        .collect();
    let mut disks = DiskUtilTracker::new(&files);
    disks.update();

    let note: NoteSink = if settings.formats.normal {
        let o = out.clone();
        Arc::new(move |s: &str| {
            if let Ok(mut w) = o.lock() {
                let _ = writeln!(w, "{s}");
                let _ = w.flush();
            }
        })
    } else {
        Arc::new(|_: &str| {})
    };

    // Set every clone up before any runs, in order (fio's setup_files in run_threads).
    let mut outcomes: Vec<(usize, JobOutcome)> = Vec::new();
    let mut prepared: Vec<Option<Prepared>> = Vec::with_capacity(clones.len());
    for (i, c) in clones.iter().enumerate() {
        match prepare_job(c.run.clone(), &mut ctx, &note) {
            Ok(p) => prepared.push(Some(p)),
            Err(o) => {
                runstate(&tracer, 0, "NOT_CREATED", "REAPED");
                c.progress.finished.store(true, Ordering::Relaxed);
                // fio's lines as fio prints them: those it starts with `fio: ` start with
                // `zonekit: `, the others (most of zbd.c's) have no prefix.
                for line in &o.log {
                    let _ = writeln!(err, "{line}");
                }
                if o.setup_failed
                    && let Some((errno, msg)) = &o.error
                {
                    let _ = writeln!(err, "zonekit: {}", verror_line(0, *errno, msg));
                }
                outcomes.push((i, *o));
                prepared.push(None);
            }
        }
    }

    // Setup reset zones on the devices directly: the queues' plugs learn the write pointers
    // again, as the kernel revalidates a disk.
    for q in clock_plan.queues.values() {
        q.revalidate();
    }
    for p in prepared.iter_mut().flatten() {
        p.set_queues(|name| clock_plan.queues.get(name).cloned());
    }
    let clones = Arc::new(clones);
    let terminate = Arc::new(AtomicBool::new(false));
    let eta = match settings.eta {
        EtaMode::Always => true,
        EtaMode::Never => false,
        EtaMode::Auto => settings.stdout_is_tty && settings.formats.normal,
    };
    let mut steady_data: Vec<SteadyData> = clones.iter().map(|c| SteadyData::new(&c.run.opts.steadystate)).collect();
    let ids: Vec<(&JobOptions, u32)> = clones.iter().map(|c| (&*c.run.opts, c.run.groupid)).collect();
    steady::setup(&ids, &mut steady_data);
    let steady_data = Arc::new(Mutex::new(steady_data));
    let disk_util = clones.iter().any(|c| c.run.opts.disk_util && !crate::run::sizing::diskless(&c.run.opts));
    let monitor_disks = (disk_util && !disks.is_empty()).then(|| disks.clone());
    let agg_bw = settings.bandwidth_log.then(|| {
        let avg_ms = clones.iter().map(|c| u64::from(c.run.opts.bwavgtime)).min().unwrap_or(500);
        let mixed = clones.iter().any(|c| matches!(c.run.opts.unified_rw_reporting.as_str(), "mixed" | "1"));
        Arc::new(Mutex::new(AggBwLog::new(avg_ms, mixed)))
    });
    let mut monitor = Monitor::new(clones.clone(), terminate.clone(), out.clone(), eta, settings, steady_data.clone());
    monitor.disks = monitor_disks;
    monitor.agg_bw = agg_bw.clone();
    monitor.begun = begun;
    let mut st = StartTrace { trace: tracer.clone(), disks: DiskTrace::default(), jobno: settings.debug_jobno };
    monitor.trace = tracer.clone();
    monitor.disk_users = st.disks.users.clone();
    // The idle threads start before the jobs do and stop once every job has ended.
    if let Some(p) = idle.as_mut() {
        p.start();
    }
    let (mut run_outcomes, thread_failures, elapsed_ns) = if clock_plan.sim {
        run_groups_sim(&clones, &mut prepared, monitor, &terminate, &note, err, &mut st)
    } else {
        let source = clock_source.unwrap_or_default();
        run_groups_threads(&clones, &mut prepared, monitor, &terminate, &note, err, &helper, &mut st, source)
    };
    let idle_report = idle.map(idle::IdleProfiler::stop);
    // fio's reap_threads ends every job once the last one doing I/O is reaped (none while a job
    // never started: one that failed its setup keeps it from happening).
    let pids: Vec<u32> = clones.iter().map(|c| c.progress.pid.load(Ordering::Relaxed) as u32).collect();
    let io_jobs = clones.iter().any(|c| c.run.opts.ioengine != "cpuio");
    if tracer.on(Class::Process) && io_jobs && pids.iter().all(|&p| p != 0) {
        tracer.print(Class::Process, "terminate group_id=-1");
        for (c, pid) in clones.iter().zip(&pids) {
            tracer.print(Class::Process, &format!("setting terminate on {}/{pid}", c.name));
        }
    }
    dprint!(tracer, Class::Diskutil, "update io ticks");
    helper.exit(pids);
    outcomes.append(&mut run_outcomes);
    disks.update();
    let elapsed_sec = (elapsed_ns as f64 / 1e9).ceil() as i64;

    // Errors as fio logs them, then the report.
    // fio counts the jobs that failed, in their setup or as they ran.
    let mut failed: u32 = thread_failures;
    outcomes.sort_by_key(|(i, _)| *i);
    for (_, o) in &outcomes {
        if o.setup_failed {
            failed += 1;
            continue;
        }
        for line in &o.log {
            let _ = writeln!(err, "{line}");
        }
        if let Some((errno, msg)) = &o.error {
            failed += 1;
            let _ = writeln!(err, "zonekit: {}", verror_line(o.pid, *errno, msg));
        }
    }
    let entries: Vec<Entry> = outcomes
        .iter()
        .filter(|(_, o)| !o.setup_failed)
        .map(|(i, o)| Entry { clone: *i, stats: o.stats.clone(), error: o.error.clone(), pid: o.pid })
        .collect();
    let steady_data = steady_data.lock().map(|s| s.clone()).unwrap_or_default();
    let reports = build_reports(&clones, &entries, &steady_data, elapsed_sec);
    // Disk stats are of the devices under files the jobs used (none when every job failed to set
    // up, as in fio).
    let used_files = outcomes
        .iter()
        .any(|(_, o)| !o.files.is_empty() && o.run.opts.disk_util && !crate::run::sizing::diskless(&o.run.opts));
    let mut disk_reports = if used_files { disks.report() } else { Vec::new() };
    if used_files {
        disk_reports.extend(device_disk_reports(
            outcomes.iter().map(|(_, o)| o),
            Duration::from_nanos(elapsed_ns),
            |name| clock_plan.queues.get(name).filter(|q| q.is_timed()).map(|q| q.busy_ns()),
        ));
    }
    let mut report = RunReport::new(reports, disk_reports);
    report.terse_version = settings.terse_version.unwrap_or(3);
    report.clock = clock_plan.report();
    report.idle = idle_report;
    report.stamp_now();
    report.global_options = settings.global_options.clone();
    let text = crate::output::render(&report, settings.formats);
    // fio's act profile prints its table once its last job has ended, before the report,
    // whatever the output format.
    let act: Vec<&[crate::profile::ActSlice]> =
        outcomes.iter().filter_map(|(_, o)| o.stats.act.as_ref().map(|a| a.slices())).collect();
    if let Ok(mut w) = out.lock() {
        if !act.is_empty() {
            let _ = w.write_all(crate::profile::act_report(act).as_bytes());
        }
        let _ = w.write_all(text.as_bytes());
        if let Some(t) = &settings.debug_trace {
            let _ = w.write_all(t.end.as_bytes());
        }
        let _ = w.write_all(crate::run::tracing::exit_lines(settings.debug, main_pid).as_bytes());
        let _ = w.flush();
    }
    // fio writes the aggregate logs after its report (empty when nothing was sampled).
    if let Some(agg) = &agg_bw
        && let Ok(agg) = agg.lock()
    {
        for (name, text) in agg.texts() {
            if let Err(e) = std::fs::write(name, text) {
                let _ = writeln!(err, "zonekit: {name}: {}", zonekit_core::io_text(&e));
            }
        }
    }
    if let Some(path) = &settings.zone_report_out
        && let Err(e) = std::fs::write(path, zone_report(&ctx))
    {
        failed = failed.max(1);
        let errno = zonekit_core::Errno(e.raw_os_error().unwrap_or(libc::EIO));
        let _ = writeln!(err, "zonekit: {}: cannot write the zone report: {errno}", path.display());
    }
    // Devices close here: a persistent device keeps its zones' conditions for the next command.
    drop(ctx);
    // fio exits with 128 after a terminating signal, else with the number of jobs that failed.
    let exit_code = if crate::sys::received().is_some() { 128 } else { failed.min(255) as i32 };
    RunResult { exit_code }
}

/// The `Disk stats` of zonekit's own devices: what the in-process engine counted for each device
/// over every job that used it, named as the kernel would name a disk (the profile, or the
/// device directory's name), its utilisation the share of the run's `elapsed` time it was busy.
/// A device without a timing model spends no time, so its ticks, queue time and utilisation
/// are 0.
fn device_disk_reports<'a>(
    outcomes: impl Iterator<Item = &'a JobOutcome>,
    elapsed: Duration,
    busy_ns: impl Fn(&str) -> Option<u64>,
) -> Vec<DiskUtilReport> {
    let mut by_name: Vec<(String, zonekit_blk::DiskCounts)> = Vec::new();
    for (name, c) in outcomes.flat_map(|o| o.device_io.iter()) {
        match by_name.iter_mut().find(|(n, _)| n == name) {
            Some((_, sum)) => sum.add(c),
            None => by_name.push((name.clone(), *c)),
        }
    }
    by_name
        .into_iter()
        .map(|(name, mut c)| {
            if let Some(b) = busy_ns(&name) {
                c.busy_ns = b;
            }
            let shown = match name.strip_prefix('@') {
                Some(profile) => profile.to_string(),
                None => {
                    std::path::Path::new(&name).file_name().map_or(name.clone(), |n| n.to_string_lossy().into_owned())
                }
            };
            let ms = |ns: u64| ns / 1_000_000;
            DiskUtilReport {
                name: shown,
                ios: c.ios,
                merges: [0, 0],
                ticks: [ms(c.ticks_ns[0]), ms(c.ticks_ns[1])],
                time_in_queue: ms(c.ticks_ns[0] + c.ticks_ns[1]),
                util: (100.0 * c.busy_ns as f64 / elapsed.as_nanos().max(1) as f64).min(100.0),
                slaves: None,
            }
        })
        .collect()
}
