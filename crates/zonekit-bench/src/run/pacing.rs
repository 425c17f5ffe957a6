//! A job's pacing, as fio 3.33 paces a job (`backend.c`, `io_u.c`, `flow.c`): the rate caps
//! (`rate`, `rate_iops`, `rate_process`), the least rates (`rate_min`, `rate_iops_min`,
//! `rate_cycle`), think time (`thinktime*`), the latency limits (`max_latency`,
//! `latency_target` and its queue-depth search) and flows between jobs (`flow`, `flow_id`,
//! `flow_sleep`).
//!
//! [`Pacer`] is plain state: the job loop tells it what it issued, completed and measured, with
//! times in microseconds since the job started (fio's unit), and it answers with how long to
//! wait and what failed. The loop does the waiting on its clock, so pacing runs the same way in
//! real and in simulated time.

use crate::options::job::JobOptions;
use crate::rng::Rng;
use crate::workload::Dir;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One flow group (`flow_id`): the I/Os its jobs were let through, and their total weight.
#[derive(Debug, Default)]
pub struct Flow {
    counter: AtomicU64,
    total_weight: AtomicU64,
}

/// The flow groups of a run, shared by its jobs.
#[derive(Debug, Default, Clone)]
pub struct Flows(Arc<Mutex<HashMap<u32, Arc<Flow>>>>);

impl Flows {
    /// Join group `id` with `weight` (fio's `flow_init_job`): a job with weight 0 takes no part.
    pub fn join(&self, id: u32, weight: u32) -> Option<Arc<Flow>> {
        if weight == 0 {
            return None;
        }
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let flow = map.entry(id).or_default().clone();
        flow.total_weight.fetch_add(u64::from(weight), Ordering::Relaxed);
        Some(flow)
    }
}

/// What the loop needs to pace a job (from its options).
#[derive(Debug, Clone, Default)]
pub struct PaceConfig {
    /// The job's name, for fio's `rate_min` lines.
    pub name: String,
    /// Bytes per second per direction (`rate`, or `rate_iops` × the smallest block size; 0: no cap).
    pub rate_bps: [u64; 3],
    /// The smallest block size per direction (`rate_process=poisson` spaces I/Os by it).
    pub min_bs: [u64; 3],
    /// `rate_process=poisson`.
    pub poisson: bool,
    /// Both directions of a mixed job may be issued (the rate may switch between them).
    pub mixed: bool,
    /// `rate_min` per direction (bytes/s).
    pub rate_min: [u64; 3],
    /// `rate_iops_min` per direction.
    pub rate_iops_min: [u32; 3],
    /// `rate_cycle` (ms).
    pub rate_cycle_ms: u64,
    /// `rate_ignore_thinktime`.
    pub rate_ignore_thinktime: bool,
    /// `thinktime` (µs; 0: none).
    pub thinktime_us: u64,
    /// `thinktime_spin` (µs).
    pub thinktime_spin_us: u64,
    /// `thinktime_blocks`.
    pub thinktime_blocks: u64,
    /// `thinktime_blocks` was given.
    pub thinktime_blocks_set: bool,
    /// `thinktime_blocks_type=issue`.
    pub thinktime_issue: bool,
    /// `thinktime_iotime` (µs).
    pub thinktime_iotime_us: u64,
    /// `max_latency` per direction (ns; 0: none).
    pub max_latency_ns: [u64; 3],
    /// `latency_target` (ns; 0: off).
    pub latency_target_ns: u64,
    /// `latency_window` (µs).
    pub latency_window_us: u64,
    /// `latency_percentile`.
    pub latency_percentile: f64,
    /// `latency_run`.
    pub latency_run: bool,
    /// `iodepth`: where the latency target's depth search starts from.
    pub iodepth: u32,
    /// The job's flow group and weight.
    pub flow: Option<(Arc<Flow>, u32)>,
    /// `flow_sleep` (µs).
    pub flow_sleep_us: u64,
    /// Seed of the `rate_process=poisson` gaps.
    pub seed: u64,
}

impl PaceConfig {
    /// The pacing of a job with options `o` (after fio's fixups), in flow group `flow`.
    pub fn new(o: &JobOptions, seed: u64, flow: Option<Arc<Flow>>) -> PaceConfig {
        let p = &o.pacing;
        let mut rate_bps = [0; 3];
        for (d, r) in rate_bps.iter_mut().enumerate() {
            *r = if o.rate[d] > 0 { o.rate[d] } else { u64::from(o.rate_iops[d]).saturating_mul(o.min_bs[d]) };
        }
        PaceConfig {
            name: o.name.clone(),
            rate_bps,
            min_bs: o.min_bs,
            poisson: p.poisson,
            mixed: o.rw.reads() && o.rw.writes(),
            rate_min: o.rate_min,
            rate_iops_min: o.rate_iops_min,
            rate_cycle_ms: p.rate_cycle_ms,
            rate_ignore_thinktime: p.rate_ignore_thinktime,
            thinktime_us: micros(o.thinktime),
            thinktime_spin_us: micros(o.thinktime_spin),
            thinktime_blocks: u64::from(o.thinktime_blocks),
            thinktime_blocks_set: p.thinktime_blocks_set,
            thinktime_issue: p.thinktime_blocks_issue,
            thinktime_iotime_us: p.thinktime_iotime_us,
            max_latency_ns: p.max_latency_us.map(|u| u.saturating_mul(1000)),
            latency_target_ns: p.latency_target_us.saturating_mul(1000),
            latency_window_us: p.latency_window_us,
            latency_percentile: p.latency_percentile,
            latency_run: p.latency_run,
            iodepth: o.iodepth.max(1),
            flow: flow.map(|f| (f, p.flow)),
            flow_sleep_us: p.flow_sleep_us,
            seed,
        }
    }

    /// fio's `should_check_rate`: a cap or a least rate is set.
    pub fn checks_rate(&self) -> bool {
        self.rate_bps.iter().any(|&r| r > 0)
            || self.rate_min.iter().any(|&r| r > 0)
            || self.rate_iops_min.iter().any(|&r| r > 0)
    }
}

fn micros(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// The rate direction and the time (µs since the start) to wait for before issuing in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateWait {
    /// The direction to issue in (a mixed job ahead of its rate in one direction may switch).
    pub dir: Dir,
    /// Wait until then (µs since the start); 0 or a past time: issue now.
    pub until_us: u64,
}

/// What a completion's latency means for the job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LatencyVerdict {
    /// Nothing.
    Fine,
    /// Over `max_latency` (or over `latency_target` at depth 1): the job fails with fio's line;
    /// the limit it broke (ns).
    Fatal(u64),
    /// Over `latency_target`: the depth was lowered; what is in flight must drain first.
    Quiesce,
}

/// What the latency target's periodic check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetStep {
    /// Nothing (the window is not over).
    None,
    /// The depth changed: drain what is in flight.
    Quiesce,
    /// The depth is found: drain, reset the statistics and run one more window at it.
    FinalRun,
    /// The final window is over: the job is done.
    Done,
}

/// The state of a job's pacing.
#[derive(Debug)]
pub struct Pacer {
    cfg: PaceConfig,
    check_rate: bool,
    next_io_us: [u64; 3],
    issue_bytes: [u64; 3],
    last_usec: [u64; 3],
    poisson: [Rng; 3],
    last_check_us: [u64; 3],
    last_check_bytes: [u64; 3],
    last_check_blocks: [u64; 3],
    last_think_blocks: u64,
    last_think_us: u64,
    flow_counter: u64,
    // latency_target's depth search (fio's latency_qd, _low, _high, …).
    qd: u32,
    qd_low: u32,
    qd_high: u32,
    lat_cycle_us: u64,
    lat_cycle_ios: u64,
    lat_failed: u64,
    stable: u32,
    end_run: bool,
    // A verify phase: the depth search stays where the write phase left it (fio calls
    // lat_target_check from do_io only); completions over the target still step it down.
    windows_off: bool,
    /// `--debug=rate`: fio's lines of the pacing decisions, kept for the job's trace.
    trace: bool,
    log: Vec<String>,
}

/// Where `latency_target`'s depth search stands (fio's `latency_qd`, `_low`, `_high`), handed
/// from a job's write phase to its verify phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatSearch {
    qd: u32,
    qd_low: u32,
    qd_high: u32,
    stable: u32,
}

impl LatSearch {
    /// The queue depth the search is at.
    pub fn depth(&self) -> u32 {
        self.qd
    }
}

impl Pacer {
    /// A job's pacing at its start.
    pub fn new(cfg: PaceConfig) -> Pacer {
        let seed = cfg.seed;
        let target = cfg.latency_target_ns > 0;
        Pacer {
            check_rate: cfg.checks_rate(),
            next_io_us: [0; 3],
            issue_bytes: [0; 3],
            last_usec: [0; 3],
            poisson: [Rng::new(seed ^ 0x9015), Rng::new(seed ^ 0x9016), Rng::new(seed ^ 0x9017)],
            last_check_us: [0; 3],
            last_check_bytes: [0; 3],
            last_check_blocks: [0; 3],
            last_think_blocks: 0,
            last_think_us: 0,
            flow_counter: 0,
            qd: if target { 1 } else { cfg.iodepth },
            qd_low: 1,
            qd_high: cfg.iodepth,
            lat_cycle_us: 0,
            lat_cycle_ios: 0,
            lat_failed: 0,
            stable: 0,
            end_run: false,
            windows_off: false,
            trace: false,
            log: Vec::new(),
            cfg,
        }
    }

    /// Whether anything is paced at all (the loop skips every call otherwise).
    pub fn active(&self) -> bool {
        self.check_rate
            || self.cfg.thinktime_us > 0
            || self.cfg.max_latency_ns.iter().any(|&l| l > 0)
            || self.cfg.latency_target_ns > 0
            || self.cfg.flow.is_some()
    }

    /// The configuration.
    pub fn config(&self) -> &PaceConfig {
        &self.cfg
    }

    /// fio's `rate_ddir`: the direction to issue in next (`dir` drawn by the workload) and
    /// when. A direction behind its rate goes at once; a mixed job ahead in `dir` switches to
    /// the other direction when that one is behind, else waits for the earlier of the two.
    pub fn rate_dir(&self, dir: Dir, now_us: u64) -> RateWait {
        let Some(d) = dir.index() else { return RateWait { dir, until_us: 0 } };
        if !self.check_rate || self.next_io_us[d] <= now_us {
            return RateWait { dir, until_us: 0 };
        }
        if self.cfg.mixed && d < 2 {
            let o = d ^ 1;
            let other = if o == 0 { Dir::Read } else { Dir::Write };
            if self.next_io_us[o] <= now_us {
                return RateWait { dir: other, until_us: 0 };
            }
            if self.next_io_us[o] < self.next_io_us[d] {
                return RateWait { dir: other, until_us: self.next_io_us[o] };
            }
        }
        RateWait { dir, until_us: self.next_io_us[d] }
    }

    /// `--debug=rate`: keep fio's lines of the pacing decisions from now on (the latency
    /// target's, first).
    pub fn trace(&mut self, on: bool) {
        self.trace = on;
        if on && self.cfg.latency_target_ns > 0 {
            self.log.push(format!("Latency target={}", self.cfg.latency_target_ns / 1000));
        }
    }

    /// The lines kept since the last call.
    pub fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }

    fn ramp_line(&mut self, what: &str) {
        if self.trace {
            self.log.push(format!("Ramped {what}: {} {} {}", self.qd_low, self.qd, self.qd_high));
        }
    }

    /// An I/O of `len` bytes in `dir` was handed to the engine: the next one in that direction
    /// is due when the bytes issued so far are on rate (fio's `usec_for_io`), or after an
    /// exponential gap of mean `min_bs / rate` with `rate_process=poisson`.
    pub fn issued(&mut self, dir: Dir, len: u64) {
        let Some(d) = dir.index() else { return };
        if !self.check_rate {
            return;
        }
        self.issue_bytes[d] += len;
        let bps = self.cfg.rate_bps[d];
        if self.cfg.poisson {
            // A rate below one block per second is refused before the job runs.
            if let Some(gap) = bps.checked_div(self.cfg.min_bs[d]).and_then(|iops| 1_000_000u64.checked_div(iops)) {
                // A draw in (0, 1]: -ln of it is finite.
                let u = 1.0 - self.poisson[d].unit();
                let val = (gap as f64 * -u.ln()) as u64;
                if self.trace && val > 0 {
                    self.log.push(format!("poisson rate iops={}, ddir={d}", 1_000_000 / val));
                }
                self.last_usec[d] += val;
            }
            self.next_io_us[d] = self.last_usec[d];
        } else if let (Some(secs), Some(rest)) =
            (self.issue_bytes[d].checked_div(bps), self.issue_bytes[d].checked_rem(bps))
        {
            self.next_io_us[d] =
                secs.saturating_mul(1_000_000) + (u128::from(rest) * 1_000_000 / u128::from(bps)) as u64;
        }
    }

    /// fio's `handle_thinktime`, first half: whether the job thinks now, given the I/Os issued
    /// and completed so far. When it does, the loop drains what is in flight, spins
    /// [`Pacer::think_spin_us`], sleeps the rest of `thinktime`, then calls [`Pacer::thought`].
    pub fn think_due(&self, issued: u64, completed: u64, now_us: u64) -> bool {
        let c = &self.cfg;
        if c.thinktime_us == 0 {
            return false;
        }
        if c.thinktime_iotime_us > 0 {
            if now_us.saturating_sub(self.last_think_us) >= c.thinktime_iotime_us.saturating_add(c.thinktime_us) {
                return true;
            }
            if !c.thinktime_blocks_set {
                return false;
            }
        }
        let b = if c.thinktime_issue { issued } else { completed };
        b >= self.last_think_blocks.saturating_add(c.thinktime_blocks)
    }

    /// The busy part of the think time (µs).
    pub fn think_spin_us(&self) -> u64 {
        self.cfg.thinktime_spin_us.min(self.cfg.thinktime_us)
    }

    /// The whole think time (µs).
    pub fn think_us(&self) -> u64 {
        self.cfg.thinktime_us
    }

    /// Sets the think time (µs) from now on: an engine that paces itself (fio's `cpuio` in
    /// `qsort` mode sets its think time from each sort's length).
    pub fn set_think_us(&mut self, us: u64) {
        self.cfg.thinktime_us = us;
    }

    /// The job thought for `total_us` in direction `dir` (the direction of its last I/O), with
    /// `issued` / `completed` I/Os at that point: with `rate_ignore_thinktime` the rate lets
    /// the job make up for the time, less one block so that it issues at once after.
    pub fn thought(&mut self, dir: Dir, total_us: u64, issued: u64, completed: u64, now_us: u64) {
        if let Some(d) = dir.index()
            && total_us > 0
            && self.cfg.rate_bps[d] > 0
            && self.cfg.rate_ignore_thinktime
        {
            let bps = self.cfg.rate_bps[d];
            let missed = bps.saturating_mul(total_us) / 1_000_000;
            let bs = self.cfg.min_bs[d];
            let per_op = bs.saturating_mul(1_000_000) / bps;
            let over = if per_op <= total_us { bs } else { 0 };
            self.issue_bytes[d] = self.issue_bytes[d].saturating_add(missed.saturating_sub(over));
            self.last_usec[d] += total_us;
        }
        self.last_think_blocks = if self.cfg.thinktime_issue { issued } else { completed };
        if self.cfg.thinktime_iotime_us > 0 {
            self.last_think_us = now_us;
        }
    }

    /// fio's `check_min_rate` after an I/O: `bytes` and `blocks` completed per direction since
    /// the statistics began. After a 2 s settle, each `rate_cycle` compares the rate of the last
    /// cycle with `rate_min` / `rate_iops_min`; the first shortfall is fio's line (the job then
    /// fails with `EIO`).
    pub fn check_min_rate(&mut self, now_us: u64, bytes: [u64; 3], blocks: [u64; 3]) -> Option<String> {
        if now_us < 2_000_000 {
            return None;
        }
        for d in 0..3 {
            if bytes[d] == 0 || (self.cfg.rate_min[d] == 0 && self.cfg.rate_iops_min[d] == 0) {
                continue;
            }
            if self.last_check_bytes[d] > 0 || self.last_check_blocks[d] > 0 {
                let spent_ms = now_us.saturating_sub(self.last_check_us[d]) / 1000;
                if spent_ms < self.cfg.rate_cycle_ms || spent_ms == 0 {
                    continue;
                }
                if self.cfg.rate_min[d] > 0 {
                    let got = (bytes[d] - self.last_check_bytes[d].min(bytes[d])) * 1000 / spent_ms;
                    if got < self.cfg.rate_min[d] {
                        return Some(format!(
                            "{}: rate_min={}B/s not met, got {got}B/s",
                            self.cfg.name, self.cfg.rate_min[d]
                        ));
                    }
                } else {
                    let got = (blocks[d] - self.last_check_blocks[d].min(blocks[d])) * 1000 / spent_ms;
                    if got < u64::from(self.cfg.rate_iops_min[d]) {
                        return Some(format!(
                            "{}: rate_iops_min={} not met, got {got} IOPS",
                            self.cfg.name, self.cfg.rate_iops_min[d]
                        ));
                    }
                }
            }
            self.last_check_bytes[d] = bytes[d];
            self.last_check_blocks[d] = blocks[d];
            self.last_check_us[d] = now_us;
        }
        None
    }

    /// Whether the rate checks run at all (`rate_min` is checked only then).
    pub fn checks_rate(&self) -> bool {
        self.check_rate
    }

    /// A completion in `dir` took `lat_ns` from preparation to completion: over `max_latency`
    /// the job fails; over `latency_target` the depth search steps down (at depth 1 the job
    /// fails, as in fio).
    pub fn latency(&mut self, dir: Dir, lat_ns: u64) -> LatencyVerdict {
        let Some(d) = dir.index() else { return LatencyVerdict::Fine };
        let max = self.cfg.max_latency_ns[d];
        if max > 0 && lat_ns > max {
            return LatencyVerdict::Fatal(max);
        }
        let target = self.cfg.latency_target_ns;
        if target > 0 && lat_ns > target {
            if self.cfg.latency_percentile < 100.0 {
                self.lat_failed += 1;
                return LatencyVerdict::Fine;
            }
            return match self.step_down() {
                true => LatencyVerdict::Fatal(target),
                false => LatencyVerdict::Quiesce,
            };
        }
        LatencyVerdict::Fine
    }

    /// fio's `__lat_target_failed`: halve towards the low end; true at depth 1 (nothing left).
    fn step_down(&mut self) -> bool {
        if self.qd == 1 {
            return true;
        }
        self.qd_high = self.qd;
        if self.qd == self.qd_low {
            self.qd_low -= 1;
        }
        self.qd = ((self.qd + self.qd_low) / 2).max(1);
        self.stable = 0;
        self.ramp_line("down");
        false
    }

    /// Start a new window of the latency target at `now_us` with `ios` I/Os completed.
    pub fn new_window(&mut self, now_us: u64, ios: u64) {
        self.lat_cycle_us = now_us;
        self.lat_cycle_ios = ios;
        self.lat_failed = 0;
    }

    /// Where the depth search stands (`None` without a latency target).
    pub fn lat_search(&self) -> Option<LatSearch> {
        (self.cfg.latency_target_ns > 0).then_some(LatSearch {
            qd: self.qd,
            qd_low: self.qd_low,
            qd_high: self.qd_high,
            stable: self.stable,
        })
    }

    /// Go on from `s` without the periodic window checks: fio's verify phase (`do_verify`) keeps
    /// the depth its write phase found and never calls `lat_target_check`.
    pub fn resume_search(&mut self, s: LatSearch) {
        if self.cfg.latency_target_ns == 0 {
            return;
        }
        self.qd = s.qd.clamp(1, self.cfg.iodepth.max(1));
        self.qd_low = s.qd_low;
        self.qd_high = s.qd_high;
        self.stable = s.stable;
        self.windows_off = true;
    }

    /// fio's `lat_target_check`: at the end of each `latency_window`, step the depth up when
    /// enough I/Os met the target, down otherwise.
    pub fn target_check(&mut self, now_us: u64, ios: u64) -> TargetStep {
        if self.cfg.latency_target_ns == 0
            || self.windows_off
            || now_us.saturating_sub(self.lat_cycle_us) < self.cfg.latency_window_us
        {
            return TargetStep::None;
        }
        let n = ios.saturating_sub(self.lat_cycle_ios);
        let ok = if n == 0 { 100.0 } else { (n.saturating_sub(self.lat_failed)) as f64 / n as f64 * 100.0 };
        if self.trace {
            self.log.push(format!("Success rate: {ok:.2}% (target {:.2}%)", self.cfg.latency_percentile));
        }
        let step = if ok >= self.cfg.latency_percentile {
            self.step_up()
        } else if self.step_down() {
            // At depth 1 and still over: fio keeps going at depth 1.
            TargetStep::Quiesce
        } else {
            TargetStep::Quiesce
        };
        if step != TargetStep::Done {
            self.new_window(now_us, ios);
        }
        step
    }

    /// fio's `lat_target_success`.
    fn step_up(&mut self) -> TargetStep {
        let before = self.qd;
        let depth = self.cfg.iodepth;
        self.qd_low = self.qd;
        if self.qd + 1 == self.qd_high {
            self.stable += 1;
            if self.stable >= 3 {
                self.qd_high += 1;
                self.stable = 0;
            }
        }
        if self.qd_high != depth {
            self.qd = (self.qd + self.qd_high) / 2;
        } else {
            self.qd = self.qd.saturating_mul(2);
        }
        self.qd = self.qd.clamp(1, depth);
        self.ramp_line("up");
        if !self.cfg.latency_run && self.qd == before {
            if self.end_run {
                if self.trace {
                    self.log.push("We are done".into());
                }
                return TargetStep::Done;
            }
            if self.trace {
                self.log.push("Quiesce and final run".into());
            }
            self.end_run = true;
            return TargetStep::FinalRun;
        }
        TargetStep::None
    }

    /// The most I/Os in flight the latency target allows now (`iodepth` without one).
    pub fn depth_limit(&self) -> u32 {
        self.qd
    }

    /// fio's `flow_threshold_exceeded`: whether this job is ahead of its share of its flow
    /// group (then it waits `flow_sleep` and asks again); otherwise the I/O is counted.
    pub fn flow_held(&mut self) -> bool {
        let Some((flow, weight)) = &self.cfg.flow else { return false };
        let total = flow.counter.load(Ordering::Relaxed).max(1) as f64;
        let weights = flow.total_weight.load(Ordering::Relaxed).max(1) as f64;
        if self.flow_counter as f64 / total > f64::from(*weight) / weights {
            return true;
        }
        flow.counter.fetch_add(1, Ordering::Relaxed);
        self.flow_counter += 1;
        false
    }

    /// `flow_sleep` (µs).
    pub fn flow_sleep_us(&self) -> u64 {
        self.cfg.flow_sleep_us
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> PaceConfig {
        PaceConfig {
            name: "j".into(),
            min_bs: [4096; 3],
            rate_cycle_ms: 1000,
            latency_percentile: 100.0,
            iodepth: 1,
            thinktime_blocks: 1,
            ..PaceConfig::default()
        }
    }

    #[test]
    fn linear_rate_spaces_ios_by_bytes_issued() {
        let mut p = Pacer::new(PaceConfig { rate_bps: [0, 1 << 20, 0], ..cfg() });
        assert_eq!(p.rate_dir(Dir::Write, 0).until_us, 0, "the first I/O goes at once");
        p.issued(Dir::Write, 4096);
        // 4 KiB at 1 MiB/s: 3906 µs.
        assert_eq!(p.rate_dir(Dir::Write, 10).until_us, 3906);
        for _ in 0..255 {
            p.issued(Dir::Write, 4096);
        }
        assert_eq!(p.rate_dir(Dir::Write, 10).until_us, 1_000_000);
        assert_eq!(p.rate_dir(Dir::Write, 1_000_000).until_us, 0);
    }

    #[test]
    fn a_mixed_job_switches_to_the_direction_behind_its_rate() {
        let mut p = Pacer::new(PaceConfig { rate_bps: [1 << 20, 1 << 19, 0], mixed: true, ..cfg() });
        p.issued(Dir::Read, 4096);
        p.issued(Dir::Write, 4096);
        let w = p.rate_dir(Dir::Write, 100);
        assert_eq!(w, RateWait { dir: Dir::Read, until_us: 3906 });
        let w = p.rate_dir(Dir::Write, 8000);
        assert_eq!(w, RateWait { dir: Dir::Write, until_us: 0 });
    }

    #[test]
    fn poisson_gaps_average_to_the_rate() {
        let mut p = Pacer::new(PaceConfig { rate_bps: [0, 4096 * 1000, 0], poisson: true, seed: 3, ..cfg() });
        for _ in 0..20_000 {
            p.issued(Dir::Write, 4096);
        }
        // 20,000 I/Os at 1000 IOPS: 20 s, within a few percent.
        let t = p.rate_dir(Dir::Write, 0).until_us as f64;
        assert!((t / 20e6 - 1.0).abs() < 0.03, "{t}");
    }

    #[test]
    fn min_rate_is_checked_per_cycle_after_two_seconds() {
        let mut p = Pacer::new(PaceConfig { rate_min: [0, 1_000_000, 0], ..cfg() });
        assert_eq!(p.check_min_rate(1_000_000, [0, 10, 0], [0; 3]), None, "settling");
        assert_eq!(p.check_min_rate(2_000_000, [0, 2_000_000, 0], [0, 1, 0]), None, "first check records");
        assert_eq!(p.check_min_rate(2_500_000, [0, 2_000_000, 0], [0, 1, 0]), None, "cycle not over");
        assert_eq!(
            p.check_min_rate(3_000_000, [0, 2_500_000, 0], [0, 2, 0]),
            Some("j: rate_min=1000000B/s not met, got 500000B/s".into())
        );
        let mut p = Pacer::new(PaceConfig { rate_iops_min: [10, 0, 0], ..cfg() });
        p.check_min_rate(2_000_000, [4096, 0, 0], [1, 0, 0]);
        assert_eq!(
            p.check_min_rate(4_000_000, [8192, 0, 0], [2, 0, 0]),
            Some("j: rate_iops_min=10 not met, got 0 IOPS".into())
        );
    }

    #[test]
    fn thinktime_every_n_blocks_and_iotime() {
        let mut p = Pacer::new(PaceConfig { thinktime_us: 100, thinktime_blocks: 4, ..cfg() });
        assert!(!p.think_due(3, 3, 0));
        assert!(p.think_due(4, 4, 0));
        p.thought(Dir::Write, 100, 4, 4, 0);
        assert!(!p.think_due(7, 7, 0));
        assert!(p.think_due(8, 8, 0));
        let p = Pacer::new(PaceConfig { thinktime_us: 100, thinktime_iotime_us: 1000, ..cfg() });
        assert!(!p.think_due(50, 50, 1000), "blocks not given: only the I/O time counts");
        assert!(p.think_due(50, 50, 1100));
    }

    #[test]
    fn latency_limits() {
        let mut p = Pacer::new(PaceConfig { max_latency_ns: [0, 1000, 0], ..cfg() });
        assert_eq!(p.latency(Dir::Write, 1000), LatencyVerdict::Fine);
        assert_eq!(p.latency(Dir::Write, 1001), LatencyVerdict::Fatal(1000));
        assert_eq!(p.latency(Dir::Read, 1_000_000), LatencyVerdict::Fine);
        let mut p = Pacer::new(PaceConfig { latency_target_ns: 50_000, latency_window_us: 1000, iodepth: 16, ..cfg() });
        assert_eq!(p.depth_limit(), 1);
        assert_eq!(p.target_check(1000, 10), TargetStep::None);
        assert_eq!(p.depth_limit(), 2);
        p.target_check(2000, 20);
        assert_eq!(p.depth_limit(), 4);
        assert_eq!(p.latency(Dir::Read, 60_000), LatencyVerdict::Quiesce);
        assert_eq!(p.depth_limit(), 3, "halfway between the failing depth and the last good one");
        let mut p = Pacer::new(PaceConfig { latency_target_ns: 50_000, iodepth: 16, ..cfg() });
        assert_eq!(p.latency(Dir::Read, 60_000), LatencyVerdict::Fatal(50_000), "at depth 1");
    }

    #[test]
    fn flows_share_by_weight() {
        let flows = Flows::default();
        let a = flows.join(1, 1);
        let b = flows.join(1, 3);
        assert!(flows.join(1, 0).is_none());
        let mut pa = Pacer::new(PaceConfig { flow: a.map(|f| (f, 1)), ..cfg() });
        let mut pb = Pacer::new(PaceConfig { flow: b.map(|f| (f, 3)), ..cfg() });
        let (mut na, mut nb) = (0, 0);
        for _ in 0..4000 {
            if !pa.flow_held() {
                na += 1;
            }
            if !pb.flow_held() {
                nb += 1;
            }
        }
        let share = f64::from(nb) / f64::from(na + nb);
        assert!((share - 0.75).abs() < 0.01, "{na} {nb}");
    }
}
