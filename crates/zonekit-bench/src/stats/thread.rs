//! The recording side: one [`ThreadStats`] per job thread, fed by the runner, finished into a
//! [`JobStats`] (fio's `struct thread_stat`), which merges for `group_reporting`.

use std::io;
use std::path::{Path, PathBuf};

use super::hist::{PercentileList, PlatHistogram};
use super::iostat::IoStat;
use super::log::{HistLog, IoLog, LogConfig, LogKind, log_file_name};
use crate::sys::Rusage;

/// Data direction of a statistic (fio's `DDIR_READ`, `DDIR_WRITE`, `DDIR_TRIM`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ddir {
    /// Reads.
    Read = 0,
    /// Writes.
    Write = 1,
    /// Trims.
    Trim = 2,
}

impl Ddir {
    /// The three directions in fio's order.
    pub const ALL: [Ddir; 3] = [Ddir::Read, Ddir::Write, Ddir::Trim];

    /// Index in per-direction arrays (read 0, write 1, trim 2).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The direction of an index (0..3).
    pub fn from_index(i: usize) -> Option<Ddir> {
        Ddir::ALL.get(i).copied()
    }

    /// fio's lower-case name (`read`, `write`, `trim`), as JSON keys and the normal output use.
    pub fn name(self) -> &'static str {
        match self {
            Ddir::Read => "read",
            Ddir::Write => "write",
            Ddir::Trim => "trim",
        }
    }
}

/// Which latency a histogram or stat measures (fio's `FIO_SLAT`, `FIO_CLAT`, `FIO_LAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LatKind {
    /// Submission latency: start to issue.
    Slat = 0,
    /// Completion latency: issue to completion.
    Clat = 1,
    /// Total latency: start to completion.
    Lat = 2,
}

/// How a job records statistics (the stat options of the job).
#[derive(Debug, Clone, PartialEq)]
pub struct StatsConfig {
    /// `clat_percentiles` (default on): keep the clat histogram.
    pub clat_percentiles: bool,
    /// `lat_percentiles` (default off): keep the total-latency histogram.
    pub lat_percentiles: bool,
    /// `slat_percentiles` (default off): keep the slat histogram.
    pub slat_percentiles: bool,
    /// `percentile_list`.
    pub percentile_list: PercentileList,
    /// `bwavgtime`, ms (default 500); see [`StatsConfig::resolve_log_avg`].
    pub bw_avg_msec: u64,
    /// `iopsavgtime`, ms (default 500).
    pub iops_avg_msec: u64,
    /// `disable_lat`.
    pub disable_lat: bool,
    /// `disable_clat`.
    pub disable_clat: bool,
    /// `disable_slat`.
    pub disable_slat: bool,
    /// `disable_bw_measurement`: no per-I/O bandwidth samples (the periodic ones are taken
    /// all the same, as in fio 3.33).
    pub disable_bw: bool,
    /// fio's `gtod_reduce()`: `disable_clat`, `disable_slat` and `disable_bw_measurement`
    /// together (as `gtod_reduce=1` sets them): no per-I/O IOPS samples.
    pub gtod_reduce: bool,
    /// `write_bw_log`: keep a bandwidth log.
    pub bw_log: Option<LogConfig>,
    /// `write_iops_log`: keep an IOPS log.
    pub iops_log: Option<LogConfig>,
    /// `write_lat_log`: keep slat, clat and lat logs.
    pub lat_log: Option<LogConfig>,
    /// `write_hist_log`: keep a clat histogram log, `(log_hist_msec, log_hist_coarseness,
    /// log_store_compressed)`.
    pub hist_log: Option<(u64, u32, bool)>,
    /// `log_unix_epoch`/`log_alternate_epoch`: log times start at this clock's reading at the
    /// epoch (a `clock_gettime` id).
    pub log_alt_clock: Option<i32>,
    /// Smallest block size per direction (bw/iops log entries carry it when it equals the largest).
    pub min_bs: [u64; 3],
    /// Largest block size per direction.
    pub max_bs: [u64; 3],
}

impl Default for StatsConfig {
    fn default() -> Self {
        StatsConfig {
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            percentile_list: PercentileList::fio_default(),
            bw_avg_msec: 500,
            iops_avg_msec: 500,
            disable_lat: false,
            disable_clat: false,
            disable_slat: false,
            disable_bw: false,
            gtod_reduce: false,
            bw_log: None,
            iops_log: None,
            lat_log: None,
            hist_log: None,
            log_alt_clock: None,
            min_bs: [4096; 3],
            max_bs: [4096; 3],
        }
    }
}

impl StatsConfig {
    /// fio's `add_job` rule tying `log_avg_msec` to the sampling intervals: with a bw (iops) log,
    /// the log averages over `min(log_avg_msec, bwavgtime)` when `bwavgtime` was set, else
    /// `bwavgtime` becomes `log_avg_msec` (so `log_avg_msec=0`, the default, samples every I/O).
    pub fn resolve_log_avg(&mut self, bw_avg_set: bool, iops_avg_set: bool) {
        if let Some(l) = &mut self.bw_log {
            if bw_avg_set {
                l.avg_msec = l.avg_msec.min(self.bw_avg_msec);
            } else {
                self.bw_avg_msec = l.avg_msec;
            }
        }
        if let Some(l) = &mut self.iops_log {
            if iops_avg_set {
                l.avg_msec = l.avg_msec.min(self.iops_avg_msec);
            } else {
                self.iops_avg_msec = l.avg_msec;
            }
        }
    }
}

/// CPU usage of a job thread over its run, as fio's `update_rusage_stat` accumulates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    /// User time, ms.
    pub usr_ms: u64,
    /// System time, ms.
    pub sys_ms: u64,
    /// Context switches, voluntary and involuntary.
    pub ctx: u64,
    /// Major faults.
    pub majf: u64,
    /// Minor faults.
    pub minf: u64,
}

fn mtime_since_tv(s: (i64, i64), e: (i64, i64)) -> u64 {
    let mut sec = e.0 - s.0;
    let mut usec = e.1 - s.1;
    if sec > 0 && usec < 0 {
        sec -= 1;
        usec += 1_000_000;
    }
    (sec * 1000 + usec / 1000).max(0) as u64
}

impl CpuTimes {
    /// Usage between two `getrusage(RUSAGE_THREAD)` readings (times truncated to ms as fio does).
    pub fn between(start: &Rusage, end: &Rusage) -> CpuTimes {
        CpuTimes {
            usr_ms: mtime_since_tv(start.utime, end.utime),
            sys_ms: mtime_since_tv(start.stime, end.stime),
            ctx: (end.nvcsw + end.nivcsw).saturating_sub(start.nvcsw + start.nivcsw),
            majf: end.majflt.saturating_sub(start.majflt),
            minf: end.minflt.saturating_sub(start.minflt),
        }
    }

    /// Adds another period (fio adds each loop's usage; `group_reporting` sums jobs).
    pub fn add(&mut self, o: &CpuTimes) {
        self.usr_ms += o.usr_ms;
        self.sys_ms += o.sys_ms;
        self.ctx += o.ctx;
        self.majf += o.majf;
        self.minf += o.minf;
    }
}

/// What a finished job measured (fio's `struct thread_stat` without names and options):
/// mergeable for `group_reporting`, turned into a report by the output module.
#[derive(Debug, Clone, PartialEq)]
pub struct JobStats {
    /// Completion latency per direction, ns.
    pub clat_stat: [IoStat; 3],
    /// Submission latency per direction, ns (no samples with synchronous engines).
    pub slat_stat: [IoStat; 3],
    /// Total latency per direction, ns.
    pub lat_stat: [IoStat; 3],
    /// Bandwidth samples per direction, KiB/s.
    pub bw_stat: [IoStat; 3],
    /// IOPS samples per direction.
    pub iops_stat: [IoStat; 3],
    /// Latency of syncs (`fsync`, `fdatasync`), ns.
    pub sync_stat: IoStat,
    /// Latency histograms `[slat, clat, lat][ddir]`, present when that kind is enabled.
    pub plat: [[Option<PlatHistogram>; 3]; 3],
    /// Histogram of sync latencies.
    pub sync_plat: PlatHistogram,
    /// Bytes done per direction.
    pub io_bytes: [u64; 3],
    /// Run time per direction, ms (0 for directions that did nothing).
    pub runtime_ms: [u64; 3],
    /// I/Os issued: read, write, trim, sync (`issued rwts: total=`).
    pub total_io_u: [u64; 4],
    /// Short I/Os per direction.
    pub short_io_u: [u64; 3],
    /// Dropped I/Os per direction.
    pub drop_io_u: [u64; 3],
    /// I/O depth distribution: 1, 2, 4, 8, 16, 32, >=64.
    pub io_u_map: [u64; 7],
    /// I/Os submitted per submit call: 0, 4, 8, 16, 32, 64, >=64.
    pub io_u_submit: [u64; 7],
    /// I/Os reaped per completion call: 0, 4, 8, 16, 32, 64, >=64.
    pub io_u_complete: [u64; 7],
    /// Completion latency buckets below 1 µs: 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 ns.
    pub io_u_lat_n: [u64; 10],
    /// … below 1 ms, in µs.
    pub io_u_lat_u: [u64; 10],
    /// … from 1 ms: 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000, >=2000 ms.
    pub io_u_lat_m: [u64; 12],
    /// Submit calls.
    pub total_submit: u64,
    /// Completion calls.
    pub total_complete: u64,
    /// CPU usage of the job thread(s).
    pub cpu: CpuTimes,
    /// Elapsed time of the job, ms (the base of the usr/sys percentages).
    pub total_run_time_ms: u64,
    /// The job's error (errno), 0 when it succeeded.
    pub error: i32,
    /// Errors counted with `continue_on_error`.
    pub total_err_count: u64,
    /// The first of those errors.
    pub first_error: i32,
    /// Zone resets done for the job.
    pub nr_zone_resets: u64,
    /// `clat_percentiles` of the job.
    pub clat_percentiles: bool,
    /// `lat_percentiles` of the job.
    pub lat_percentiles: bool,
    /// `slat_percentiles` of the job.
    pub slat_percentiles: bool,
    /// The job's percentile list.
    pub percentile_list: PercentileList,
    /// The queue depth `latency_target` settled on (0: the job had no target; fio reports
    /// `iodepth` then).
    pub latency_depth: u32,
    /// The job's I/O priority (fio's `ts->ioprio`: `prioclass`/`prio`, 0 when not set).
    pub ioprio: u32,
    /// Latency per I/O priority and direction (fio's `clat_prio`), the job's priority first: kept
    /// for the directions where `cmdprio*` gives some I/Os another priority, filled by summing
    /// ([`super::prio`]) when a group's jobs ran at different priorities.
    pub clat_prio: [Vec<super::prio::PrioStat>; 3],
    /// `block_error_percentiles`: the state of every trim-sized block of the job's file.
    pub block_infos: Option<super::block::BlockInfos>,
    /// The `act` profile's slices of this job thread.
    pub act: Option<crate::profile::ActLat>,
}

impl JobStats {
    /// Nothing recorded yet, with the percentile settings of `cfg`.
    pub fn new(cfg: &StatsConfig) -> JobStats {
        let h = |on: bool| if on { Some(PlatHistogram::new()) } else { None };
        JobStats {
            clat_stat: [IoStat::new(); 3],
            slat_stat: [IoStat::new(); 3],
            lat_stat: [IoStat::new(); 3],
            bw_stat: [IoStat::new(); 3],
            iops_stat: [IoStat::new(); 3],
            sync_stat: IoStat::new(),
            plat: [
                [h(cfg.slat_percentiles), h(cfg.slat_percentiles), h(cfg.slat_percentiles)],
                [h(cfg.clat_percentiles), h(cfg.clat_percentiles), h(cfg.clat_percentiles)],
                [h(cfg.lat_percentiles), h(cfg.lat_percentiles), h(cfg.lat_percentiles)],
            ],
            sync_plat: PlatHistogram::new(),
            io_bytes: [0; 3],
            runtime_ms: [0; 3],
            total_io_u: [0; 4],
            short_io_u: [0; 3],
            drop_io_u: [0; 3],
            io_u_map: [0; 7],
            io_u_submit: [0; 7],
            io_u_complete: [0; 7],
            io_u_lat_n: [0; 10],
            io_u_lat_u: [0; 10],
            io_u_lat_m: [0; 12],
            total_submit: 0,
            total_complete: 0,
            cpu: CpuTimes::default(),
            total_run_time_ms: 0,
            error: 0,
            total_err_count: 0,
            first_error: 0,
            nr_zone_resets: 0,
            clat_percentiles: cfg.clat_percentiles,
            lat_percentiles: cfg.lat_percentiles,
            slat_percentiles: cfg.slat_percentiles,
            percentile_list: cfg.percentile_list.clone(),
            latency_depth: 0,
            ioprio: 0,
            clat_prio: Default::default(),
            block_infos: None,
            act: None,
        }
    }

    /// The histogram of one latency kind and direction, if kept.
    pub fn hist(&self, kind: LatKind, ddir: Ddir) -> Option<&PlatHistogram> {
        self.plat[kind as usize][ddir.index()].as_ref()
    }

    /// Adds another job's numbers (fio's `sum_thread_stats`): latencies merge as one stream,
    /// bandwidth and IOPS samples add up (a group's bandwidth is the sum of its jobs'), runtime is
    /// the longest, counters and cpu add up.
    pub fn merge(&mut self, src: &JobStats) {
        for l in 0..3 {
            let mut prios = super::prio::view(self, l);
            super::prio::sum_into(&mut prios, super::prio::view(src, l));
            self.clat_prio[l] = prios;
        }
        for l in 0..3 {
            self.clat_stat[l].merge(&src.clat_stat[l]);
            self.slat_stat[l].merge(&src.slat_stat[l]);
            self.lat_stat[l].merge(&src.lat_stat[l]);
            self.bw_stat[l].merge_sum(&src.bw_stat[l]);
            self.iops_stat[l].merge_sum(&src.iops_stat[l]);
            self.io_bytes[l] += src.io_bytes[l];
            self.runtime_ms[l] = self.runtime_ms[l].max(src.runtime_ms[l]);
            self.short_io_u[l] += src.short_io_u[l];
            self.drop_io_u[l] += src.drop_io_u[l];
        }
        self.sync_stat.merge(&src.sync_stat);
        self.cpu.add(&src.cpu);
        for k in 0..7 {
            self.io_u_map[k] += src.io_u_map[k];
            self.io_u_submit[k] += src.io_u_submit[k];
            self.io_u_complete[k] += src.io_u_complete[k];
        }
        add_arrays(&mut self.io_u_lat_n, &src.io_u_lat_n);
        add_arrays(&mut self.io_u_lat_u, &src.io_u_lat_u);
        add_arrays(&mut self.io_u_lat_m, &src.io_u_lat_m);
        add_arrays(&mut self.total_io_u, &src.total_io_u);
        for k in 0..3 {
            for l in 0..3 {
                match (&mut self.plat[k][l], &src.plat[k][l]) {
                    (Some(d), Some(s)) => d.merge(s),
                    (d @ None, Some(s)) => *d = Some(s.clone()),
                    _ => {}
                }
            }
        }
        self.sync_plat.merge(&src.sync_plat);
        self.total_run_time_ms += src.total_run_time_ms;
        self.total_submit += src.total_submit;
        self.total_complete += src.total_complete;
        self.nr_zone_resets += src.nr_zone_resets;
        self.total_err_count += src.total_err_count;
        if self.error == 0 {
            self.error = src.error;
        }
        if self.first_error == 0 {
            self.first_error = src.first_error;
        }
        // fio's group report keeps the block states of the group's last job.
        self.block_infos = src.block_infos.clone();
    }
}

impl JobStats {
    /// The job's numbers with reads, writes and trims as one direction in the read slot (fio's
    /// `sum_thread_stats` into a `unified_rw_reporting=mixed` thread_stat): latencies merge as
    /// one stream, bandwidth and IOPS samples add up, run time is the longest, bytes and I/Os add
    /// up; syncs and everything not per direction stay as they are.
    pub fn mixed(&self) -> JobStats {
        let mut m = self.clone();
        let empty = IoStat::new();
        m.clat_stat = [empty; 3];
        m.slat_stat = [empty; 3];
        m.lat_stat = [empty; 3];
        m.bw_stat = [empty; 3];
        m.iops_stat = [empty; 3];
        m.io_bytes = [0; 3];
        m.runtime_ms = [0; 3];
        m.short_io_u = [0; 3];
        m.drop_io_u = [0; 3];
        m.total_io_u = [0, 0, 0, self.total_io_u[3]];
        m.plat = Default::default();
        m.clat_prio = Default::default();
        for l in 0..3 {
            super::prio::sum_into(&mut m.clat_prio[0], super::prio::view(self, l));
        }
        for l in 0..3 {
            m.clat_stat[0].merge(&self.clat_stat[l]);
            m.slat_stat[0].merge(&self.slat_stat[l]);
            m.lat_stat[0].merge(&self.lat_stat[l]);
            m.bw_stat[0].merge_sum(&self.bw_stat[l]);
            m.iops_stat[0].merge_sum(&self.iops_stat[l]);
            m.io_bytes[0] += self.io_bytes[l];
            m.runtime_ms[0] = m.runtime_ms[0].max(self.runtime_ms[l]);
            m.short_io_u[0] += self.short_io_u[l];
            m.drop_io_u[0] += self.drop_io_u[l];
            m.total_io_u[0] += self.total_io_u[l];
            for k in 0..3 {
                match (&mut m.plat[k][0], &self.plat[k][l]) {
                    (Some(d), Some(s)) => d.merge(s),
                    (d @ None, Some(s)) => *d = Some(s.clone()),
                    _ => {}
                }
            }
        }
        m
    }
}

fn add_arrays<const N: usize>(d: &mut [u64; N], s: &[u64; N]) {
    for (a, b) in d.iter_mut().zip(s) {
        *a += *b;
    }
}

/// fio's `__io_u_mark_map` buckets for submit/complete counts: 0, 1–4, 5–8, 9–16, 17–32, 33–64, more.
fn map_bucket(nr: u32) -> usize {
    match nr {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// fio's `io_u_mark_depth` buckets: 1, 2–3, 4–7, 8–15, 16–31, 32–63, more (0 counts as 1).
fn depth_bucket(depth: u32) -> usize {
    match depth {
        0 | 1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// Bucket of a value below 1000 in the lat_n / lat_u tables.
fn lat_bucket_below_1000(v: u64) -> usize {
    match v {
        0..=1 => 0,
        2..=3 => 1,
        4..=9 => 2,
        10..=19 => 3,
        20..=49 => 4,
        50..=99 => 5,
        100..=249 => 6,
        250..=499 => 7,
        500..=749 => 8,
        _ => 9,
    }
}

/// The priority an I/O was sent with: its value (class << 13 | level) and the index of its
/// latencies in the job's per-priority statistics ([`ThreadStats::set_prios`]; 0 is the job's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IoPrio {
    /// The priority value.
    pub ioprio: u16,
    /// Index of its statistics.
    pub index: usize,
}

/// What a sample-interval check did; see [`ThreadStats::tick`].
const NS_PER_MS: u64 = 1_000_000;

/// The statistics of one running job thread: the runner calls the recording methods as events
/// happen (all times in ns since the job's epoch, which is its start or the end of `ramp_time`),
/// and [`ThreadStats::finish`] at the end.
#[derive(Debug, Clone)]
pub struct ThreadStats {
    cfg: StatsConfig,
    js: JobStats,
    this_io_bytes: [u64; 3],
    stat_io_bytes: [u64; 3],
    this_io_blocks: [u64; 3],
    stat_io_blocks: [u64; 3],
    bw_sample_ns: u64,
    iops_sample_ns: u64,
    bw_log: Option<IoLog>,
    iops_log: Option<IoLog>,
    slat_log: Option<IoLog>,
    clat_log: Option<IoLog>,
    lat_log: Option<IoLog>,
    hist_log: Option<HistLog>,
}

impl ThreadStats {
    /// Fresh statistics; the epoch (time 0) is now.
    pub fn new(cfg: &StatsConfig) -> ThreadStats {
        let lat_log = |on: bool| match (&cfg.lat_log, on) {
            (Some(c), true) => Some(*c),
            _ => None,
        };
        ThreadStats {
            js: JobStats::new(cfg),
            this_io_bytes: [0; 3],
            stat_io_bytes: [0; 3],
            this_io_blocks: [0; 3],
            stat_io_blocks: [0; 3],
            bw_sample_ns: 0,
            iops_sample_ns: 0,
            bw_log: cfg.bw_log.map(|c| IoLog::new(LogKind::Bw, c)),
            iops_log: cfg.iops_log.map(|c| IoLog::new(LogKind::Iops, c)),
            slat_log: lat_log(!cfg.disable_slat).map(|c| IoLog::new(LogKind::Slat, c)),
            clat_log: lat_log(!cfg.disable_clat).map(|c| IoLog::new(LogKind::Clat, c)),
            lat_log: lat_log(!cfg.disable_lat).map(|c| IoLog::new(LogKind::Lat, c)),
            hist_log: cfg.hist_log.map(|(msec, coarse, store)| HistLog::new(msec, coarse, store)),
            cfg: cfg.clone(),
        }
    }

    /// Every statistic starts again, as at the end of `ramp_time` (fio's `reset_all_stats` and
    /// `reset_io_stats`): counts, latencies, samples and logs are emptied; the configuration,
    /// the job's priority and the priorities kept apart (`cmdprio*`, now with no samples) stay.
    pub fn restart(&mut self) {
        let mut fresh = ThreadStats::new(&self.cfg);
        fresh.js.ioprio = self.js.ioprio;
        for (d, list) in self.js.clat_prio.iter().enumerate() {
            fresh.js.clat_prio[d] = list.iter().map(|p| super::prio::PrioStat::new(p.ioprio)).collect();
        }
        *self = fresh;
    }

    /// Sets the time stamp of the epoch in the logs (ms; `log_unix_epoch`,
    /// `log_alternate_epoch`): every logged time is this plus the ms since the epoch.
    pub fn set_log_time_base(&mut self, ms: u64) {
        for l in [&mut self.bw_log, &mut self.iops_log, &mut self.slat_log, &mut self.clat_log, &mut self.lat_log]
            .into_iter()
            .flatten()
        {
            l.set_time_base(ms);
        }
        if let Some(h) = &mut self.hist_log {
            h.set_time_base(ms);
        }
    }

    /// The configuration.
    pub fn config(&self) -> &StatsConfig {
        &self.cfg
    }

    /// The numbers so far (for live status and tests).
    pub fn stats(&self) -> &JobStats {
        &self.js
    }

    /// Bytes completed per direction so far (fio's `io_bytes`; the ETA line's rates come from it).
    pub fn io_bytes(&self) -> [u64; 3] {
        self.js.io_bytes
    }

    /// I/Os completed per direction so far.
    pub fn io_blocks(&self) -> [u64; 3] {
        self.this_io_blocks
    }

    /// An I/O (read, write or trim) was handed to the engine: counts it in `issued rwts`.
    pub fn issued(&mut self, ddir: Ddir) {
        self.js.total_io_u[ddir.index()] += 1;
    }

    /// An `fsync` was handed to the engine: counts it in `issued rwts`. fio does
    /// not count the `end_fsync` at the end of a job (it runs in the FSYNCING state).
    pub fn sync_issued(&mut self) {
        self.js.total_io_u[3] += 1;
    }

    /// An `fdatasync` was handed to the engine. fio 3.33 counts it at index 4 of its four-entry
    /// `total_io_u`, which is `short_io_u[0]`: it shows as the reads' `short=` (and JSON
    /// `short_ios`), not in `issued rwts`' sync column.
    pub fn datasync_issued(&mut self) {
        self.js.short_io_u[0] += 1;
    }

    /// A `sync_file_range` was handed to the engine. fio 3.33 counts it at index 5 of its
    /// four-entry `total_io_u`, which is `short_io_u[1]`: it shows as the writes' `short=` (and
    /// JSON `short_ios`), not in `issued rwts`' sync column.
    pub fn sync_file_range_issued(&mut self) {
        self.js.short_io_u[1] += 1;
    }

    /// `nr` I/Os went to the device with `depth_now` I/Os in flight (fio's `io_u_mark_depth`:
    /// synchronous engines call it with 1 per I/O, async engines at each commit with the number
    /// committed). Syncs count too, which is why fio can print `IO depths: 1=103.1%` (the
    /// percentages are of reads, writes and trims only).
    pub fn queued(&mut self, depth_now: u32, nr: u32) {
        self.js.io_u_map[depth_bucket(depth_now)] += u64::from(nr);
    }

    /// One submit call sent `n` I/Os (synchronous engines: `submitted(1)` per I/O).
    pub fn submitted(&mut self, n: u32) {
        self.js.io_u_submit[map_bucket(n)] += 1;
        self.js.total_submit += 1;
    }

    /// One reap call returned `n` completions (synchronous engines: `completed(1)` per I/O).
    pub fn completed(&mut self, n: u32) {
        self.js.io_u_complete[map_bucket(n)] += 1;
        self.js.total_complete += 1;
    }

    /// Records the submission latency of an I/O of `bytes` at `now_ns` (async engines, when the
    /// I/O was queued: fio's `add_slat_sample`).
    pub fn slat_done(&mut self, ddir: Ddir, bytes: u64, slat_ns: u64, now_ns: u64) {
        let prio = self.js.ioprio as u16;
        self.slat_done_prio(ddir, bytes, slat_ns, now_ns, prio);
    }

    /// [`ThreadStats::slat_done`] of an I/O sent with priority `ioprio` (its slat log entry
    /// carries it).
    pub fn slat_done_prio(&mut self, ddir: Ddir, bytes: u64, slat_ns: u64, now_ns: u64, ioprio: u16) {
        if self.cfg.disable_slat {
            return;
        }
        let d = ddir.index();
        self.js.slat_stat[d].add(slat_ns);
        if let Some(l) = &mut self.slat_log {
            l.add_prio(now_ns / NS_PER_MS, slat_ns, d, bytes, 0, ioprio);
        }
        if let Some(h) = &mut self.js.plat[LatKind::Slat as usize][d] {
            h.add(slat_ns);
        }
    }

    /// An I/O of `bytes` completed at `now_ns` with the given latencies (ns): `slat_ns` when
    /// the engine is asynchronous (recorded as by [`ThreadStats::slat_done`]), `clat_ns` from
    /// issue to completion, `lat_ns` from start to completion. Updates bytes, latency stats and
    /// histograms, the `lat (usec)` buckets, per-I/O bw/iops samples when those logs log every
    /// I/O, and the logs.
    pub fn io_done(&mut self, ddir: Ddir, bytes: u64, slat_ns: Option<u64>, clat_ns: u64, lat_ns: u64, now_ns: u64) {
        self.io_done_at(ddir, bytes, 0, slat_ns, clat_ns, lat_ns, now_ns);
    }

    /// [`ThreadStats::io_done`] with the I/O's offset, for logs with `log_offset=1`.
    #[allow(clippy::too_many_arguments)]
    pub fn io_done_at(
        &mut self,
        ddir: Ddir,
        bytes: u64,
        offset: u64,
        slat_ns: Option<u64>,
        clat_ns: u64,
        lat_ns: u64,
        now_ns: u64,
    ) {
        let prio = IoPrio { ioprio: self.js.ioprio as u16, index: 0 };
        self.io_done_prio(ddir, bytes, offset, slat_ns, clat_ns, lat_ns, now_ns, prio);
    }

    /// The job's priority and the priorities its `cmdprio*` options give some I/Os, per
    /// direction (read, write), the job's first ([`crate::options::cmdprio::CmdPrio::prios`]):
    /// latencies are then kept per priority in those directions too.
    pub fn set_prios(&mut self, ioprio: u32, prios: [&[u32]; 2]) {
        self.js.ioprio = ioprio;
        for (d, list) in prios.iter().enumerate() {
            self.js.clat_prio[d] = list.iter().map(|&p| super::prio::PrioStat::new(p)).collect();
        }
    }

    /// [`ThreadStats::io_done_at`] of an I/O sent with priority `prio` (fio's `add_clat_sample`
    /// and `add_lat_sample` with the io_u's `ioprio` and `clat_prio_index`).
    #[allow(clippy::too_many_arguments)]
    pub fn io_done_prio(
        &mut self,
        ddir: Ddir,
        bytes: u64,
        offset: u64,
        slat_ns: Option<u64>,
        clat_ns: u64,
        lat_ns: u64,
        now_ns: u64,
        prio: IoPrio,
    ) {
        let d = ddir.index();
        if ddir == Ddir::Trim
            && let Some(b) = &mut self.js.block_infos
        {
            b.trimmed(offset);
        }
        if let Some(s) = slat_ns {
            self.slat_done_prio(ddir, bytes, s, now_ns, prio.ioprio);
        }
        self.js.io_bytes[d] += bytes;
        self.this_io_bytes[d] += bytes;
        self.this_io_blocks[d] += 1;
        let now_ms = now_ns / NS_PER_MS;
        if !self.cfg.disable_lat {
            self.js.lat_stat[d].add(lat_ns);
            if let Some(l) = &mut self.lat_log {
                l.add_prio(now_ms, lat_ns, d, bytes, offset, prio.ioprio);
            }
            if let Some(h) = &mut self.js.plat[LatKind::Lat as usize][d] {
                h.add(lat_ns);
            }
            if self.cfg.lat_percentiles
                && let Some(p) = self.js.clat_prio[d].get_mut(prio.index)
            {
                p.stat.add(lat_ns);
                p.hist.add(lat_ns);
            }
        }
        if !self.cfg.disable_clat {
            self.js.clat_stat[d].add(clat_ns);
            if !self.cfg.lat_percentiles
                && let Some(p) = self.js.clat_prio[d].get_mut(prio.index)
            {
                p.stat.add(clat_ns);
                if self.cfg.clat_percentiles {
                    p.hist.add(clat_ns);
                }
            }
            if let Some(l) = &mut self.clat_log {
                l.add_prio(now_ms, clat_ns, d, bytes, offset, prio.ioprio);
            }
            if let Some(h) = &mut self.js.plat[LatKind::Clat as usize][d] {
                h.add(clat_ns);
                if let Some(hl) = &mut self.hist_log {
                    hl.add(now_ms, d, bytes, h.buckets());
                }
            }
            self.mark_latency(clat_ns);
        }
        if !self.cfg.disable_bw
            && let Some(l) = &mut self.bw_log
            && l.per_unit()
        {
            let rate = (bytes * 1_000_000).checked_div(clat_ns).unwrap_or(0);
            self.js.bw_stat[d].add(rate);
            l.add_prio(now_ms, rate, d, bytes, offset, prio.ioprio);
            self.stat_io_bytes[d] = self.this_io_bytes[d];
        }
        if !self.cfg.gtod_reduce
            && let Some(l) = &mut self.iops_log
            && l.per_unit()
        {
            self.js.iops_stat[d].add(1);
            l.add_prio(now_ms, 1, d, bytes, offset, prio.ioprio);
            self.stat_io_blocks[d] = self.this_io_blocks[d];
        }
    }

    /// An I/O of an engine whose I/Os record no latency (fio's `FIO_NOSTATS`: `filecreate`,
    /// `filestat`, `filedelete`): its bytes count, nothing else.
    pub fn io_done_unmeasured(&mut self, ddir: Ddir, bytes: u64) {
        let d = ddir.index();
        self.js.io_bytes[d] += bytes;
        self.this_io_bytes[d] += bytes;
        self.this_io_blocks[d] += 1;
    }

    /// A latency the engine measured itself (fio's `add_clat_sample` of a file operation): the
    /// completion latency's statistics, log and percentiles, not the latency buckets (`lat
    /// (usec)`), which only I/Os fill. fio's engines skip it with `disable_lat`.
    pub fn engine_clat_sample(&mut self, ddir: Ddir, clat_ns: u64, now_ns: u64) {
        if self.cfg.disable_lat {
            return;
        }
        let d = ddir.index();
        let now_ms = now_ns / NS_PER_MS;
        self.js.clat_stat[d].add(clat_ns);
        if let Some(l) = &mut self.clat_log {
            l.add(now_ms, clat_ns, d, 0, 0);
        }
        if let Some(h) = &mut self.js.plat[LatKind::Clat as usize][d] {
            h.add(clat_ns);
            if let Some(hl) = &mut self.hist_log {
                hl.add(now_ms, d, 0, h.buckets());
            }
        }
    }

    fn mark_latency(&mut self, nsec: u64) {
        if nsec < 1000 {
            self.js.io_u_lat_n[lat_bucket_below_1000(nsec)] += 1;
        } else if nsec < 1_000_000 {
            self.js.io_u_lat_u[lat_bucket_below_1000(nsec / 1000)] += 1;
        } else {
            let msec = nsec / 1_000_000;
            let idx = match msec {
                0..=999 => lat_bucket_below_1000(msec),
                1000..=1999 => 10,
                _ => 11,
            };
            self.js.io_u_lat_m[idx] += 1;
        }
    }

    /// A sync completed after `clat_ns` (fio's `add_sync_clat_sample`).
    pub fn sync_done(&mut self, clat_ns: u64) {
        if self.cfg.disable_clat {
            return;
        }
        self.js.sync_stat.add(clat_ns);
        self.js.sync_plat.add(clat_ns);
    }

    /// An I/O returned less than asked: counts it in `short=` (the runner re-issues the rest).
    pub fn short_io(&mut self, ddir: Ddir) {
        self.js.short_io_u[ddir.index()] += 1;
    }

    /// An I/O was dropped (`dropped=`).
    pub fn dropped_io(&mut self, ddir: Ddir) {
        self.js.drop_io_u[ddir.index()] += 1;
    }

    /// An I/O failed with `errno`: the first error becomes the job's error (`err=`); later ones
    /// only count (`continue_on_error`).
    pub fn io_error(&mut self, ddir: Ddir, errno: i32) {
        let _ = ddir;
        self.js.total_err_count += 1;
        if self.js.first_error == 0 {
            self.js.first_error = errno;
        }
        if self.js.error == 0 {
            self.js.error = errno;
        }
    }

    /// An I/O failed with `errno` of a kind `continue_on_error` does not cover: the job's error
    /// (`err=`), not counted in `total_err` (fio counts only the kinds it covers).
    pub fn uncounted_error(&mut self, errno: i32) {
        if self.js.error == 0 {
            self.js.error = errno;
        }
    }

    /// `block_error_percentiles`: `n` blocks of `bs` bytes from `base` (the job's file range).
    pub fn set_block_infos(&mut self, base: u64, bs: u64, n: usize) {
        self.js.block_infos = Some(super::block::BlockInfos::new(base, bs, n));
    }

    /// A trim or write at `offset` failed (fio's `unlog_io_piece`): its block's state, with
    /// `block_error_percentiles`.
    pub fn block_failed(&mut self, ddir: Ddir, offset: u64) {
        if let Some(b) = &mut self.js.block_infos {
            b.failed(ddir == Ddir::Trim, offset);
        }
    }

    /// The `act` profile's accounting, its first slice starting at `now_ns`.
    pub fn set_act(&mut self, hooks: crate::profile::ActHooks, now_ns: u64) {
        self.js.act = Some(crate::profile::ActLat::new(hooks, now_ns));
    }

    /// Whether the job has the `act` profile's accounting.
    pub fn has_act(&self) -> bool {
        self.js.act.is_some()
    }

    /// An I/O completed at `now_ns` after `lat_ns` in total, for `act` (see
    /// [`crate::profile::ActLat::record`]): fio's line when an hour's slice fails ACT's criteria.
    pub fn act_lat(&mut self, lat_ns: u64, now_ns: u64) -> Option<String> {
        self.js.act.as_mut()?.record(lat_ns, now_ns)
    }

    /// The job reset a zone (`; N zone resets`).
    pub fn zone_reset(&mut self) {
        self.js.nr_zone_resets += 1;
    }

    /// Closes bandwidth and IOPS sample intervals that are due at `now_ns` (fio's
    /// `calc_log_samples`, which its helper thread runs; call it at least every few ms while
    /// the job runs). Returns ms until the next interval is due.
    pub fn tick(&mut self, now_ns: u64) -> u64 {
        let mut next = u64::MAX;
        let bw_unit = self.bw_log.as_ref().is_some_and(IoLog::per_unit);
        let iops_unit = self.iops_log.as_ref().is_some_and(IoLog::per_unit);
        if !bw_unit {
            next = next.min(self.add_samples(now_ns, true));
        }
        if !iops_unit {
            next = next.min(self.add_samples(now_ns, false));
        }
        if next == u64::MAX { 0 } else { next }
    }

    /// fio's `__add_samples`: one rate sample per direction that did I/O in the interval.
    fn add_samples(&mut self, now_ns: u64, bw: bool) -> u64 {
        let (parent, avg_time) =
            if bw { (self.bw_sample_ns, self.cfg.bw_avg_msec) } else { (self.iops_sample_ns, self.cfg.iops_avg_msec) };
        let spent = now_ns.saturating_sub(parent) / NS_PER_MS;
        if spent < avg_time && avg_time - spent > super::log::LOG_MSEC_SLACK {
            return avg_time - spent;
        }
        let mut next_log = avg_time;
        for d in 0..3 {
            let (this, stat) = if bw {
                (self.this_io_bytes[d], &mut self.stat_io_bytes[d])
            } else {
                (self.this_io_blocks[d], &mut self.stat_io_blocks[d])
            };
            let delta = this - *stat;
            if delta == 0 {
                continue;
            }
            let rate = if bw {
                (delta * 1000).checked_div(spent).map_or(0, |r| r / 1024)
            } else {
                (delta * 1000).checked_div(spent).unwrap_or(0)
            };
            *stat = this;
            let (stat, log) = if bw {
                (&mut self.js.bw_stat[d], &mut self.bw_log)
            } else {
                (&mut self.js.iops_stat[d], &mut self.iops_log)
            };
            stat.add(rate);
            if let Some(l) = log {
                let bs = if self.cfg.min_bs[d] == self.cfg.max_bs[d] { self.cfg.min_bs[d] } else { 0 };
                let n = l.add(now_ns / NS_PER_MS, rate, d, bs, 0);
                next_log = next_log.min(n);
            }
        }
        if bw {
            self.bw_sample_ns = now_ns;
        } else {
            self.iops_sample_ns = now_ns;
        }
        let next = if spent <= avg_time { avg_time } else { avg_time.saturating_sub(1 + spent - avg_time) };
        next.min(next_log)
    }

    /// Ends the job at `now_ns`: `io_runtime_ns` is the time spent doing I/O (fio's per-loop
    /// elapsed time, summed; each direction that moved bytes gets it, rounded up to ms), `cpu`
    /// the thread's usage. Closes partial log windows. Returns the job's numbers; the logs stay
    /// here for [`ThreadStats::write_logs`].
    pub fn finish(&mut self, now_ns: u64, io_runtime_ns: u64, cpu: CpuTimes) -> JobStats {
        let runtime_ms = (io_runtime_ns / 1000).div_ceil(1000);
        for d in 0..3 {
            if self.js.io_bytes[d] != 0 {
                self.js.runtime_ms[d] = runtime_ms;
            }
        }
        self.js.total_run_time_ms = now_ns / NS_PER_MS;
        self.js.cpu = cpu;
        let now_ms = now_ns / NS_PER_MS;
        for l in [&mut self.bw_log, &mut self.iops_log, &mut self.slat_log, &mut self.clat_log, &mut self.lat_log]
            .into_iter()
            .flatten()
        {
            l.finalize(now_ms);
        }
        self.js.clone()
    }

    /// The job's logs (bw, iops, slat, clat, lat; those configured).
    pub fn logs(&self) -> impl Iterator<Item = &IoLog> {
        [&self.bw_log, &self.iops_log, &self.slat_log, &self.clat_log, &self.lat_log].into_iter().flatten()
    }

    /// The clat histogram log, when `write_hist_log` asks for one.
    pub fn hist_log(&self) -> Option<&HistLog> {
        self.hist_log.as_ref()
    }

    /// Writes the logs as fio names them (`<prefix>_<type>.<jobnum>.log`, `.log.fz` when
    /// stored compressed) into `dir`; with `per_job_logs=0` every job appends to one file per
    /// log, as fio does. `prefix` gives each log kind's prefix (the option value, or the job
    /// name when it is empty). A log that cannot be written comes back with its path.
    pub fn write_logs(
        &self,
        dir: &Path,
        prefix: impl Fn(LogKind) -> String,
        jobnum: u32,
        per_job_logs: bool,
    ) -> Result<Vec<PathBuf>, (PathBuf, io::Error)> {
        let mut out = Vec::new();
        for l in self.logs() {
            let name = log_file_name(&prefix(l.kind()), l.kind(), jobnum, per_job_logs, l.config().store_compressed);
            out.push(l.write_to(dir, &name, !per_job_logs).map_err(|e| (dir.join(&name), e))?);
        }
        if let Some((h, (_, _, store))) = self.hist_log.as_ref().zip(self.cfg.hist_log) {
            let kind = LogKind::ClatHist;
            let name = log_file_name(&prefix(kind), kind, jobnum, per_job_logs, store);
            out.push(h.write_to(dir, &name, !per_job_logs).map_err(|e| (dir.join(&name), e))?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end of `ramp_time` empties every statistic but keeps the priorities the job keeps
    /// apart (fio's `reset_io_stats` zeroes its `clat_prio` entries, it does not drop them), so
    /// a `cmdprio` job with a ramp still reports its latencies per priority.
    #[test]
    fn a_restart_keeps_the_priorities_kept_apart() {
        let mut st = ThreadStats::new(&StatsConfig::default());
        st.set_prios(2 << 13, [&[], &[2 << 13, 1 << 13]]);
        let p = IoPrio { ioprio: 1 << 13, index: 1 };
        st.io_done_prio(Ddir::Write, 4096, 0, None, 1000, 1000, 5, p);
        st.issued(Ddir::Write);
        st.restart();
        assert_eq!(st.stats().io_bytes, [0; 3]);
        assert_eq!(st.stats().total_io_u[1], 0);
        assert_eq!(st.stats().ioprio, 2 << 13);
        let kept: Vec<u32> = st.stats().clat_prio[1].iter().map(|p| p.ioprio).collect();
        assert_eq!(kept, [2 << 13, 1 << 13]);
        assert!(st.stats().clat_prio[1].iter().all(|p| p.stat.summary().is_none()), "no samples left");
        st.io_done_prio(Ddir::Write, 4096, 0, None, 1000, 1000, 5, p);
        assert_eq!(st.stats().clat_prio[1][1].stat.summary().unwrap().samples, 1);
    }

    #[test]
    fn buckets() {
        assert_eq!(map_bucket(0), 0);
        assert_eq!(map_bucket(4), 1);
        assert_eq!(map_bucket(65), 6);
        assert_eq!(depth_bucket(1), 0);
        assert_eq!(depth_bucket(8), 3);
        assert_eq!(depth_bucket(64), 6);
    }

    #[test]
    fn bw_samples_per_interval() {
        let mut t = ThreadStats::new(&StatsConfig::default());
        let ms = 1_000_000u64;
        // 1 MiB every ms for 1.2 s: samples at 500 and 1000 ms.
        for i in 1..=1200u64 {
            t.io_done(Ddir::Write, 1 << 20, None, 900, 1000, i * ms);
            t.tick(i * ms);
        }
        let js = t.finish(1200 * ms, 1200 * ms, CpuTimes::default());
        let bw = js.bw_stat[1].summary().unwrap();
        assert_eq!(bw.samples, 2);
        assert_eq!(bw.min, 1000 * 1024);
        assert_eq!(js.iops_stat[1].summary().unwrap().max, 1000);
        assert_eq!(js.runtime_ms, [0, 1200, 0]);
        assert_eq!(js.io_u_lat_n[9], 1200);
    }

    /// fio 3.33's `disable_bw_measurement` only stops per-I/O bandwidth samples: the periodic
    /// ones (the report's `bw` line) are taken all the same. With `disable_clat` and
    /// `disable_slat` too (fio's `gtod_reduce()`), per-I/O IOPS samples stop as well.
    #[test]
    fn disable_bw_stops_per_io_samples_only() {
        let ms = 1_000_000u64;
        let per_io = Some(LogConfig::default());
        for reduce in [false, true] {
            let cfg = StatsConfig {
                disable_bw: true,
                disable_clat: reduce,
                disable_slat: reduce,
                gtod_reduce: reduce,
                bw_log: per_io,
                iops_log: per_io,
                ..StatsConfig::default()
            };
            let mut t = ThreadStats::new(&cfg);
            for i in 1..=1200u64 {
                t.io_done(Ddir::Write, 1 << 20, None, 900, 1000, i * ms);
                t.tick(i * ms);
            }
            let count = |k: LogKind| t.logs().find(|l| l.kind() == k).map_or(0, |l| l.samples().len());
            assert_eq!(count(LogKind::Bw), 0, "reduce={reduce}");
            assert_eq!(count(LogKind::Iops), if reduce { 0 } else { 1200 }, "reduce={reduce}");
            let js = t.finish(1200 * ms, 1200 * ms, CpuTimes::default());
            assert!(js.bw_stat[1].summary().is_none(), "per-I/O bw logs replace the periodic samples");
        }
        // Without per-I/O logs the periodic samples stay.
        let mut t = ThreadStats::new(&StatsConfig { disable_bw: true, ..StatsConfig::default() });
        for i in 1..=1200u64 {
            t.io_done(Ddir::Write, 1 << 20, None, 900, 1000, i * ms);
            t.tick(i * ms);
        }
        let js = t.finish(1200 * ms, 1200 * ms, CpuTimes::default());
        assert_eq!(js.bw_stat[1].summary().unwrap().samples, 2);
    }
}
