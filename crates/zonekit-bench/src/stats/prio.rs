//! Latency per I/O priority (fio's `struct clat_prio_stat`): kept by a job whose `cmdprio*`
//! options give some I/Os a priority of their own, and made up when reports are summed
//! (`sum_clat_prio_stats`) for jobs of one group that ran at different priorities. The
//! statistic is the completion latency, or the total latency with `lat_percentiles=1`, as in
//! fio; reports show it only when at least two priorities have samples.

use super::hist::PlatHistogram;
use super::iostat::IoStat;
use super::thread::JobStats;

/// One priority's latencies in one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct PrioStat {
    /// The priority (class << 13 | level).
    pub ioprio: u32,
    /// Latency, ns (clat, or lat with `lat_percentiles`).
    pub stat: IoStat,
    /// Its histogram (filled when percentiles are on).
    pub hist: PlatHistogram,
}

impl PrioStat {
    /// No samples yet.
    pub fn new(ioprio: u32) -> PrioStat {
        PrioStat { ioprio, stat: IoStat::new(), hist: PlatHistogram::new() }
    }

    /// The class (top 3 bits).
    pub fn class(&self) -> u32 {
        self.ioprio >> 13
    }

    /// The level (low 3 bits).
    pub fn level(&self) -> u32 {
        self.ioprio & 7
    }
}

/// The per-priority latencies of direction `d` of `js` as fio sums a thread's into a report: its
/// own when it kept some, else one entry of the job's priority holding the whole direction
/// (none when the direction has no samples).
pub fn view(js: &JobStats, d: usize) -> Vec<PrioStat> {
    if !js.clat_prio[d].is_empty() {
        return js.clat_prio[d].clone();
    }
    let (stat, kind) = if js.lat_percentiles { (&js.lat_stat[d], 2) } else { (&js.clat_stat[d], 1) };
    if stat.summary().is_none() {
        return Vec::new();
    }
    let hist = js.plat[kind][d].clone().unwrap_or_default();
    vec![PrioStat { ioprio: js.ioprio, stat: *stat, hist }]
}

/// Adds `src`'s entries into `dst` (fio's `sum_clat_prio_stats`): into an empty `dst` they are
/// copied as they are; otherwise each with samples goes to the entry of its priority, or a new
/// one at the end.
pub fn sum_into(dst: &mut Vec<PrioStat>, src: Vec<PrioStat>) {
    if dst.is_empty() {
        *dst = src;
        return;
    }
    for s in src {
        if s.stat.summary().is_none() {
            continue;
        }
        match dst.iter_mut().find(|e| e.ioprio == s.ioprio) {
            Some(e) => {
                e.stat.merge(&s.stat);
                e.hist.merge(&s.hist);
            }
            None => dst.push(s),
        }
    }
}

/// How many of `list`'s priorities have samples (reports show them from 2 on).
pub fn with_samples(list: &[PrioStat]) -> usize {
    list.iter().filter(|p| p.stat.summary().is_some()).count()
}
