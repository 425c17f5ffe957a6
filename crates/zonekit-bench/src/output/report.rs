//! The data of a finished run, as fio's printers see it: per-job reports (a `thread_stat` after
//! `group_reporting`, with means, deviations, percentiles and distributions already derived),
//! per-group run status, disk utilisation and the echoed options. Every printer (normal, JSON,
//! json+, terse) reads only these types, so a report rebuilt from a recorded fio JSON document
//! ([`RunReport::from_fio_json`]) prints what fio printed for that run.

use crate::stats::hist::PercentileList;
use crate::stats::{Ddir, IoStat, JobStats, LatKind, PlatHistogram};

/// `--output-format`: which reports to print (several may be given, `normal,json+`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutputFormats {
    /// `normal`: the human-readable report (and the job header lines before the run).
    pub normal: bool,
    /// `json` or `json+`.
    pub json: bool,
    /// `json+`: JSON with latency histogram bins.
    pub json_plus: bool,
    /// `terse`: semicolon-separated lines.
    pub terse: bool,
}

impl OutputFormats {
    /// Parses fio's comma-separated `--output-format` value; `Err` names the bad entry.
    pub fn parse(s: &str) -> Result<OutputFormats, String> {
        let mut f = OutputFormats::default();
        for part in s.split(',') {
            match part.trim() {
                "normal" => f.normal = true,
                "json" => f.json = true,
                "json+" => {
                    f.json = true;
                    f.json_plus = true;
                }
                "terse" => f.terse = true,
                other => return Err(format!("invalid output format '{other}'")),
            }
        }
        Ok(f)
    }
}

/// One latency statistic of one direction (`slat_ns`, `clat_ns`, `lat_ns`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LatReport {
    /// Smallest value, ns (0 without samples).
    pub min: u64,
    /// Largest value, ns.
    pub max: u64,
    /// Mean, ns.
    pub mean: f64,
    /// Sample standard deviation, ns.
    pub stddev: f64,
    /// Number of samples.
    pub samples: u64,
    /// (percentile, value in ns), ascending: present when this latency's percentiles are enabled
    /// and it has samples.
    pub percentiles: Option<Vec<(f64, u64)>>,
    /// json+ bins: (bucket value in ns, count) of the non-empty buckets, with the percentiles.
    pub bins: Option<Vec<(u64, u64)>>,
}

impl LatReport {
    fn from_stat(stat: &IoStat) -> LatReport {
        match stat.summary() {
            Some(s) => LatReport {
                min: s.min,
                max: s.max,
                mean: s.mean,
                stddev: s.stddev,
                samples: s.samples,
                percentiles: None,
                bins: None,
            },
            None => LatReport::default(),
        }
    }

    fn with_hist(mut self, hist: Option<&PlatHistogram>, list: &PercentileList, on: bool) -> LatReport {
        if on
            && self.samples > 0
            && let Some(h) = hist
        {
            let vals = h.percentiles(list, self.samples);
            self.percentiles = Some(list.values().iter().copied().zip(vals).collect());
            self.bins = Some(h.bins());
        }
        self
    }
}

/// Bandwidth or IOPS samples of one direction (`bw_min` … `bw_samples`, `iops_min` …).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SampleReport {
    /// Smallest sample.
    pub min: u64,
    /// Largest sample.
    pub max: u64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// Number of samples (0: the lines are not printed).
    pub samples: u64,
}

impl SampleReport {
    fn from_stat(stat: &IoStat) -> SampleReport {
        match stat.summary() {
            Some(s) => SampleReport { min: s.min, max: s.max, mean: s.mean, stddev: s.stddev, samples: s.samples },
            None => SampleReport::default(),
        }
    }
}

/// One direction of a job (`read`, `write`, `trim`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DdirReport {
    /// Bytes done.
    pub io_bytes: u64,
    /// Run time, ms (0: the direction is not reported in the normal output).
    pub runtime_ms: u64,
    /// I/Os issued (`total_ios`).
    pub total_ios: u64,
    /// Short I/Os.
    pub short_ios: u64,
    /// Dropped I/Os.
    pub drop_ios: u64,
    /// Submission latency.
    pub slat: LatReport,
    /// Completion latency.
    pub clat: LatReport,
    /// Total latency.
    pub lat: LatReport,
    /// Bandwidth samples, KiB/s.
    pub bw: SampleReport,
    /// IOPS samples.
    pub iops: SampleReport,
    /// Latency per I/O priority (fio's `prios`: clat, or lat with `lat_percentiles`), the
    /// priorities with samples in fio's order; empty unless at least two have samples.
    pub prios: Vec<PrioReport>,
}

/// One I/O priority's latencies in a direction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PrioReport {
    /// Priority class.
    pub class: u32,
    /// Priority level.
    pub level: u32,
    /// The latencies (percentiles when `clat_percentiles` or `lat_percentiles` is on).
    pub lat: LatReport,
}

impl DdirReport {
    /// Bytes per second over the run time (fio's `bw_bytes`: `1000 * io_bytes / runtime`).
    pub fn bw_bytes(&self) -> u64 {
        self.io_bytes.wrapping_mul(1000).checked_div(self.runtime_ms).unwrap_or(0)
    }

    /// I/Os per second, integer (the normal output's `IOPS=`).
    pub fn iops_int(&self) -> u64 {
        self.total_ios.wrapping_mul(1000).checked_div(self.runtime_ms).unwrap_or(0)
    }
}

/// Syncs of a job (`fsync`/`fdatasync`): JSON's `"sync"`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SyncReport {
    /// Syncs issued.
    pub total_ios: u64,
    /// Their latency; percentiles are always computed (the normal output prints them whatever
    /// the percentile options; JSON only with `clat_percentiles` or `lat_percentiles`).
    pub lat: LatReport,
}

/// The non-statistical facts of a job report, supplied by the runner.
#[derive(Debug, Clone, PartialEq)]
pub struct JobInfo {
    /// Job name (the first job's name under `group_reporting`).
    pub name: String,
    /// `description`.
    pub description: String,
    /// Group id (`g=` / `groupid=`).
    pub groupid: u32,
    /// Jobs merged into this report (`jobs=`).
    pub members: u32,
    /// pid (or thread id) of the (first) job.
    pub pid: i32,
    /// The job's error (errno), 0 on success.
    pub error: i32,
    /// fio's error text (`file:ioengines.c:399, func=td_io_queue, error=…`), shown with `err=`.
    pub verror: String,
    /// When the report was made, as `ctime` prints it without the newline (`Sun Nov 22 04:37:48 2026`).
    pub time: String,
    /// JSON `eta` (fio prints `INT_MAX` once all jobs are done).
    pub eta_sec: i64,
    /// JSON `elapsed`: seconds since the run started, rounded up.
    pub elapsed_sec: i64,
    /// The job's options as given (`"job options"`), in order.
    pub job_options: Vec<(String, String)>,
    /// `continue_on_error` is set: print the error count lines.
    pub continue_on_error: bool,
    /// `latency_target`'s queue depth (fio prints the latency line when non-zero; it is the
    /// job's `iodepth` without a latency target).
    pub latency_depth: u32,
    /// `latency_target`, ns.
    pub latency_target: u64,
    /// `latency_percentile`.
    pub latency_percentile: f64,
    /// `latency_window`, µs (as fio keeps it).
    pub latency_window: u64,
    /// `kb_base` (1024 or 1000): IEC or SI units first.
    pub kb_base: u32,
    /// `unit_base=1`: bandwidth in bits.
    pub unit_bits: bool,
    /// `significant_figures` (default 4).
    pub sig_figs: u32,
    /// A `zonemode=zbd` job that writes or trims: JSON gets `"zone_resets"` (as fio 3.42 prints
    /// it; fio 3.33 has no such key).
    pub count_zone_resets: bool,
    /// `unified_rw_reporting`: 0 (`none`), 1 (`mixed`) or 2 (`both`), fio's `UNIFIED_*`.
    pub unified_rw: u8,
    /// Steady-state detection's outcome (`ss_dur`): fio's `steadystate` section and line.
    pub steadystate: Option<SteadyReport>,
}

/// What steady-state detection found (fio's `ss_*` members of a thread_stat).
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyReport {
    /// Judged IOPS (else bandwidth).
    pub iops: bool,
    /// The slope criterion (else the deviation).
    pub slope_crit: bool,
    /// The limit is a percentage.
    pub percent: bool,
    /// Steady.
    pub attained: bool,
    /// The limit.
    pub limit: f64,
    /// The window, in seconds.
    pub dur: u32,
    /// The last criterion computed.
    pub criterion: f64,
    /// The largest deviation from the mean.
    pub deviation: f64,
    /// The least-squares slope.
    pub slope: f64,
    /// The window's mean bandwidth, bytes/s.
    pub bw_mean: u64,
    /// The window's mean IOPS.
    pub iops_mean: u64,
    /// The window, oldest first: (bandwidth, IOPS).
    pub data: Vec<(u64, u64)>,
}

/// fio's `UNIFIED_MIXED`: directions reported as one, named `mixed`.
pub const UNIFIED_MIXED: u8 = 1;
/// fio's `UNIFIED_BOTH`: directions reported apart, then as one.
pub const UNIFIED_BOTH: u8 = 2;

impl Default for JobInfo {
    fn default() -> Self {
        JobInfo {
            name: String::new(),
            description: String::new(),
            groupid: 0,
            members: 1,
            pid: 0,
            error: 0,
            verror: String::new(),
            time: String::new(),
            eta_sec: i64::from(i32::MAX),
            elapsed_sec: 0,
            job_options: Vec::new(),
            continue_on_error: false,
            latency_depth: 1,
            latency_target: 0,
            latency_percentile: 100.0,
            latency_window: 0,
            kb_base: 1024,
            unit_bits: false,
            sig_figs: 4,
            count_zone_resets: false,
            unified_rw: 0,
            steadystate: None,
        }
    }
}

/// One job's report (one per job, or one per group with `group_reporting`).
#[derive(Debug, Clone, PartialEq)]
pub struct JobReport {
    /// Names, ids and options.
    pub info: JobInfo,
    /// read, write, trim.
    pub ddir: [DdirReport; 3],
    /// Syncs.
    pub sync: SyncReport,
    /// `clat_percentiles`.
    pub clat_percentiles: bool,
    /// `lat_percentiles`.
    pub lat_percentiles: bool,
    /// `slat_percentiles`.
    pub slat_percentiles: bool,
    /// The percentile list and its print precision.
    pub percentile_list: PercentileList,
    /// Elapsed time of the job, ms (`job_runtime`).
    pub job_runtime_ms: u64,
    /// User CPU, percent of `job_runtime`.
    pub usr_cpu: f64,
    /// System CPU, percent.
    pub sys_cpu: f64,
    /// Context switches.
    pub ctx: u64,
    /// Major faults.
    pub majf: u64,
    /// Minor faults.
    pub minf: u64,
    /// `IO depths`, percent: 1, 2, 4, 8, 16, 32, >=64.
    pub iodepth_level: [f64; 7],
    /// `submit`, percent: 0, 4, 8, 16, 32, 64, >=64.
    pub iodepth_submit: [f64; 7],
    /// `complete`, percent.
    pub iodepth_complete: [f64; 7],
    /// `lat (nsec)` buckets, percent of all I/Os.
    pub latency_ns: [f64; 10],
    /// `lat (usec)` buckets.
    pub latency_us: [f64; 10],
    /// `lat (msec)` buckets.
    pub latency_ms: [f64; 12],
    /// Percent of I/Os below 1 µs, unfloored (terse adds it to its first µs bucket).
    pub latency_ns_total: f64,
    /// Errors counted under `continue_on_error`.
    pub total_err_count: u64,
    /// The first of them.
    pub first_error: i32,
    /// Zone resets (`; N zone resets`).
    pub nr_zone_resets: u64,
    /// `unified_rw_reporting=both`: the directions as one (fio's `gen_mixed_ddir_stats_from_ts`),
    /// printed after them as `mixed`.
    pub mixed: Option<DdirReport>,
    /// `block_error_percentiles`: the blocks' trim percentiles and states.
    pub block: Option<crate::stats::block::BlockReport>,
}

/// fio's `stat_calc_dist`: percent of `total`, at least 0.1 for a non-empty bucket.
fn calc_dist<const N: usize>(map: &[u64; N], total: u64) -> [f64; N] {
    let mut out = [0.0; N];
    for (o, &m) in out.iter_mut().zip(map) {
        if total != 0 {
            *o = m as f64 / total as f64 * 100.0;
            if *o < 0.1 && m != 0 {
                *o = 0.1;
            }
        }
    }
    out
}

/// fio's `stat_calc_lat`: percent of all issued I/Os, at least 0.01 for a non-empty bucket.
fn calc_lat<const N: usize>(src: &[u64; N], total: u64) -> [f64; N] {
    let mut out = [0.0; N];
    for (o, &m) in out.iter_mut().zip(src) {
        if total != 0 {
            *o = m as f64 / total as f64 * 100.0;
            if *o < 0.01 && m != 0 {
                *o = 0.01;
            }
        }
    }
    out
}

/// One direction's report from a job's numbers.
fn ddir_report(stats: &JobStats, d: Ddir) -> DdirReport {
    let list = &stats.percentile_list;
    let i = d.index();
    DdirReport {
        io_bytes: stats.io_bytes[i],
        runtime_ms: stats.runtime_ms[i],
        total_ios: stats.total_io_u[i],
        short_ios: stats.short_io_u[i],
        drop_ios: stats.drop_io_u[i],
        slat: LatReport::from_stat(&stats.slat_stat[i]).with_hist(
            stats.hist(LatKind::Slat, d),
            list,
            stats.slat_percentiles,
        ),
        clat: LatReport::from_stat(&stats.clat_stat[i]).with_hist(
            stats.hist(LatKind::Clat, d),
            list,
            stats.clat_percentiles,
        ),
        lat: LatReport::from_stat(&stats.lat_stat[i]).with_hist(
            stats.hist(LatKind::Lat, d),
            list,
            stats.lat_percentiles,
        ),
        bw: SampleReport::from_stat(&stats.bw_stat[i]),
        iops: SampleReport::from_stat(&stats.iops_stat[i]),
        prios: prio_reports(stats, i),
    }
}

/// fio's per-priority numbers of direction `i`, shown when two or more priorities have samples.
fn prio_reports(stats: &JobStats, i: usize) -> Vec<PrioReport> {
    let list = crate::stats::prio::view(stats, i);
    if crate::stats::prio::with_samples(&list) < 2 {
        return Vec::new();
    }
    let on = stats.clat_percentiles || stats.lat_percentiles;
    list.iter()
        .filter(|p| p.stat.summary().is_some())
        .map(|p| PrioReport {
            class: p.class(),
            level: p.level(),
            lat: LatReport::from_stat(&p.stat).with_hist(Some(&p.hist), &stats.percentile_list, on),
        })
        .collect()
}

impl JobReport {
    /// Derives a job's report from its (merged) numbers, as fio's printers do.
    pub fn from_stats(stats: &JobStats, info: JobInfo) -> JobReport {
        // `mixed`: fio sums the job into a thread_stat that keeps every direction in the read slot.
        let folded;
        let stats = if info.unified_rw == UNIFIED_MIXED {
            folded = stats.mixed();
            &folded
        } else {
            stats
        };
        let mixed = (info.unified_rw == UNIFIED_BOTH).then(|| ddir_report(&stats.mixed(), Ddir::Read));
        let ddir = Ddir::ALL.map(|d| ddir_report(stats, d));
        let list = &stats.percentile_list;
        let sync = SyncReport {
            total_ios: stats.total_io_u[3],
            lat: LatReport::from_stat(&stats.sync_stat).with_hist(Some(&stats.sync_plat), list, true),
        };
        let runt = stats.total_run_time_ms;
        let (usr_cpu, sys_cpu) = if runt != 0 {
            (stats.cpu.usr_ms as f64 * 100.0 / runt as f64, stats.cpu.sys_ms as f64 * 100.0 / runt as f64)
        } else {
            (0.0, 0.0)
        };
        let total_rw = stats.total_io_u[0] + stats.total_io_u[1] + stats.total_io_u[2];
        let ntotal: u64 = stats.io_u_lat_n.iter().sum();
        JobReport {
            info,
            ddir,
            sync,
            clat_percentiles: stats.clat_percentiles,
            lat_percentiles: stats.lat_percentiles,
            slat_percentiles: stats.slat_percentiles,
            percentile_list: list.clone(),
            job_runtime_ms: runt,
            usr_cpu,
            sys_cpu,
            ctx: stats.cpu.ctx,
            majf: stats.cpu.majf,
            minf: stats.cpu.minf,
            iodepth_level: calc_dist(&stats.io_u_map, total_rw),
            iodepth_submit: calc_dist(&stats.io_u_submit, stats.total_submit),
            iodepth_complete: calc_dist(&stats.io_u_complete, stats.total_complete),
            latency_ns: calc_lat(&stats.io_u_lat_n, total_rw),
            latency_us: calc_lat(&stats.io_u_lat_u, total_rw),
            latency_ms: calc_lat(&stats.io_u_lat_m, total_rw),
            // 0/0 is a (negative) NaN in C, and fio prints it as such.
            latency_ns_total: if total_rw == 0 { -f64::NAN } else { 100.0 * ntotal as f64 / total_rw as f64 },
            total_err_count: stats.total_err_count,
            first_error: stats.first_error,
            nr_zone_resets: stats.nr_zone_resets,
            mixed,
            block: stats.block_infos.as_ref().map(|b| b.report(list)),
        }
    }

    /// True when fio prints this job's block in the normal output (it did I/O or issued some).
    pub fn has_io(&self) -> bool {
        self.ddir.iter().any(|d| d.io_bytes != 0 || d.total_ios != 0)
    }
}

/// `Run status group N`: aggregate bandwidth and run-time range of the jobs in a group
/// (fio's `struct group_run_stats`).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupReport {
    /// Group id.
    pub groupid: u32,
    /// `kb_base` of the group's (last) job.
    pub kb_base: u32,
    /// Bandwidth in bits.
    pub unit_bits: bool,
    /// Significant figures.
    pub sig_figs: u32,
    /// Shortest run time per direction, ms.
    pub min_run: [u64; 3],
    /// Longest run time per direction, ms (0: the direction is not printed).
    pub max_run: [u64; 3],
    /// Lowest job bandwidth per direction, B/s.
    pub min_bw: [u64; 3],
    /// Highest job bandwidth per direction, B/s.
    pub max_bw: [u64; 3],
    /// Bytes per direction.
    pub iobytes: [u64; 3],
    /// Aggregate bandwidth per direction, B/s (`iobytes * 1000 / max_run`).
    pub agg: [u64; 3],
    /// The jobs' `unified_rw_reporting` values or-ed together, as fio does (so `mixed` and
    /// `both` in one group is neither).
    pub unified_rw: u8,
}

impl GroupReport {
    /// The run status of group `groupid` from its job reports (fio's loop in `__show_run_stats`).
    pub fn from_jobs<'a>(groupid: u32, jobs: impl IntoIterator<Item = &'a JobReport>) -> GroupReport {
        let mut g = GroupReport {
            groupid,
            kb_base: 1024,
            unit_bits: false,
            sig_figs: 4,
            min_run: [u64::MAX; 3],
            max_run: [0; 3],
            min_bw: [u64::MAX; 3],
            max_bw: [0; 3],
            iobytes: [0; 3],
            agg: [0; 3],
            unified_rw: 0,
        };
        for ts in jobs {
            g.unified_rw |= ts.info.unified_rw;
            g.kb_base = ts.info.kb_base;
            g.unit_bits = ts.info.unit_bits;
            g.sig_figs = ts.info.sig_figs;
            for j in 0..3 {
                let d = &ts.ddir[j];
                if d.runtime_ms == 0 {
                    continue;
                }
                if d.runtime_ms < g.min_run[j] || g.min_run[j] == 0 {
                    g.min_run[j] = d.runtime_ms;
                }
                g.max_run[j] = g.max_run[j].max(d.runtime_ms);
                let bw = d.io_bytes.wrapping_mul(1000) / d.runtime_ms;
                g.min_bw[j] = g.min_bw[j].min(bw);
                g.max_bw[j] = g.max_bw[j].max(bw);
                g.iobytes[j] += d.io_bytes;
            }
        }
        for j in 0..3 {
            g.agg[j] = g.iobytes[j].wrapping_mul(1000).checked_div(g.max_run[j]).unwrap_or(0);
        }
        g
    }
}

/// Utilisation of one block device over the run (`Disk stats`, JSON `disk_util`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DiskUtilReport {
    /// Device name (`vda`).
    pub name: String,
    /// Reads and writes completed.
    pub ios: [u64; 2],
    /// Merged reads and writes.
    pub merges: [u64; 2],
    /// Time spent reading and writing, ms.
    pub ticks: [u64; 2],
    /// Weighted time in queue, ms.
    pub time_in_queue: u64,
    /// Busy percent of the elapsed time (at most 100).
    pub util: f64,
    /// Averages over the devices below (dm, md), when there are some.
    pub slaves: Option<DiskAggReport>,
}

/// The averages over a device's slaves (`aggrios=…`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DiskAggReport {
    /// Reads and writes, averaged.
    pub ios: [u64; 2],
    /// Merges, averaged.
    pub merges: [u64; 2],
    /// Ticks, averaged.
    pub ticks: [u64; 2],
    /// Time in queue, averaged.
    pub time_in_queue: u64,
    /// Highest utilisation of a slave.
    pub max_util: f64,
}

/// A whole run's report.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// `"fio version"`, the version line and terse's version field: `zonekit-<version>`.
    pub version: String,
    /// Seconds since the epoch when the report was made (JSON `timestamp`).
    pub timestamp: u64,
    /// Milliseconds since the epoch (`timestamp_ms`).
    pub timestamp_ms: u64,
    /// `ctime` of `timestamp` without the newline (JSON `time`).
    pub time: String,
    /// Options of `[global]` sections (`"global options"`), in order.
    pub global_options: Vec<(String, String)>,
    /// Job reports in job order.
    pub jobs: Vec<JobReport>,
    /// Group run status, by group id.
    pub groups: Vec<GroupReport>,
    /// Disk utilisation of the devices under the job files (empty on tmpfs).
    pub disk_util: Vec<DiskUtilReport>,
    /// `terse_version` (3 by default; 2, 4 and 5 are also printed as fio does).
    pub terse_version: u32,
    /// What timed the run when a drive model did (JSON's top-level `"zonekit"` object; fio has
    /// none): the clock (`sim` or `real`) and the model's name.
    pub clock: Option<ClockReport>,
    /// `--idle-prof=system|percpu`: how idle the CPUs were (normal output's `CPU idleness`
    /// block after the disk stats, JSON's `"cpu_idleness"` after `"disk_util"`; terse has none).
    pub idle: Option<IdleReport>,
}

/// fio's `--idle-prof` figures (`idletime.c`'s `show_idle_prof_stats`).
#[derive(Debug, Clone, PartialEq)]
pub struct IdleReport {
    /// `percpu`: each CPU's figure is printed too (`system`: only the system's).
    pub percpu: bool,
    /// The system's idleness in percent: the mean of the CPUs'.
    pub system: f64,
    /// Each configured CPU's idleness in percent, by CPU number.
    pub cpus: Vec<f64>,
    /// The unit of work's time in µs, the mean over the CPUs.
    pub unit_mean: f64,
    /// Its standard deviation over the CPUs (n - 1).
    pub unit_stddev: f64,
}

/// The clock of a run on devices with a timing model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockReport {
    /// `sim` (simulated time) or `real` (real time, paced at the model's speed).
    pub clock: &'static str,
    /// The timing models, by name (several when jobs use different drives), joined with `, `.
    pub model: String,
}

/// This crate's version string as the reports print it: `zonekit-<version>`.
pub fn version_string() -> String {
    format!("zonekit-{}", env!("CARGO_PKG_VERSION"))
}

impl RunReport {
    /// A report of `jobs`, with groups computed from them (ids 0..=max group id, as fio prints
    /// every group up to the last).
    pub fn new(jobs: Vec<JobReport>, disk_util: Vec<DiskUtilReport>) -> RunReport {
        let last = jobs.iter().map(|j| j.info.groupid).max().unwrap_or(0);
        let groups =
            (0..=last).map(|g| GroupReport::from_jobs(g, jobs.iter().filter(|j| j.info.groupid == g))).collect();
        RunReport {
            version: version_string(),
            timestamp: 0,
            timestamp_ms: 0,
            time: String::new(),
            global_options: Vec::new(),
            jobs,
            groups,
            disk_util,
            terse_version: 3,
            clock: None,
            idle: None,
        }
    }

    /// Sets `timestamp`, `timestamp_ms` and `time` to now, as fio does when it prints the report.
    pub fn stamp_now(&mut self) {
        let (secs, ms) = crate::sys::now_timestamp();
        self.timestamp = secs;
        self.timestamp_ms = ms;
        self.time = crate::sys::ctime(secs as i64);
    }

    /// The group report of a job.
    pub fn group_of(&self, job: &JobReport) -> Option<&GroupReport> {
        self.groups.iter().find(|g| g.groupid == job.info.groupid)
    }
}
