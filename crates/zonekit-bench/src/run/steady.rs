//! Steady-state detection (`steadystate`, `ss_dur`, `ss_ramp`), as fio 3.33's steadystate.c
//! does it: once a second the monitor samples each job's IOPS and bandwidth (summed over its
//! reporting group under `group_reporting`) into a window of `ss_dur` samples; once the window
//! is full, a job whose criterion (the slope of the least-squares line through the window, or
//! the largest deviation from its mean; optionally in percent of the mean) is under the limit
//! is steady and ends (with its whole group under `group_reporting`). The window, the slope,
//! the deviation and the criterion go to the report (fio's `steadystate` JSON section and
//! normal-output line).

use crate::options::job::{JobOptions, SteadyOptions};

/// Judge IOPS (else bandwidth).
pub const SS_IOPS: u32 = 1 << 0;
/// Judge bandwidth.
pub const SS_BW: u32 = 1 << 1;
/// The slope criterion (else the deviation).
pub const SS_SLOPE: u32 = 1 << 2;
/// Steady.
pub const SS_ATTAINED: u32 = 1 << 3;
/// `ss_ramp` (plus a second) is over: samples count.
pub const SS_RAMP_OVER: u32 = 1 << 4;
/// This job holds its group's window.
pub const SS_DATA: u32 = 1 << 5;
/// The limit is a percentage.
pub const SS_PCT: u32 = 1 << 6;
/// The window has been full once.
pub const SS_BUFFER_FULL: u32 = 1 << 7;

/// How often the monitor samples (fio's `STEADYSTATE_MSEC`).
pub const SAMPLE_MS: u64 = 1000;

/// One job clone's steady-state data (fio's `struct steadystate_data`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SteadyData {
    /// The limit.
    pub limit: f64,
    /// The window, in samples (seconds); 0: off.
    pub dur: u32,
    /// `ss_ramp`, in µs.
    pub ramp_us: u64,
    /// `SS_*` flags.
    pub state: u32,
    /// Oldest sample of the window.
    pub head: u32,
    /// Where the next sample goes.
    pub tail: u32,
    /// IOPS samples (only on the job that holds the window).
    pub iops_data: Vec<u64>,
    /// Bandwidth samples, bytes/s.
    pub bw_data: Vec<u64>,
    /// The least-squares slope.
    pub slope: f64,
    /// The largest deviation from the mean.
    pub deviation: f64,
    /// The value compared with the limit.
    pub criterion: f64,
    sum_y: u64,
    sum_x: u64,
    sum_x_sq: u64,
    sum_xy: u64,
    oldest_y: u64,
    /// When the job's statistics began (its start, or the end of its `ramp_time`), in run ms.
    epoch_ms: Option<u64>,
    prev_ms: u64,
    prev_iops: u64,
    prev_bytes: u64,
}

impl SteadyData {
    /// The data of a clone with options `o` (off when `ss_dur` is 0), as fio's
    /// `td_steadystate_init`.
    pub fn new(o: &SteadyOptions) -> SteadyData {
        if o.dur_sec == 0 {
            return SteadyData::default();
        }
        let n = u64::from(o.dur_sec);
        let mut state = if o.iops { SS_IOPS } else { SS_BW };
        if o.slope {
            state |= SS_SLOPE;
        }
        if o.percent {
            state |= SS_PCT;
        }
        let ramp_us = o.ramp.as_micros() as u64;
        if ramp_us == 0 {
            state |= SS_RAMP_OVER;
        }
        SteadyData {
            limit: o.limit,
            dur: o.dur_sec,
            ramp_us,
            state,
            sum_x: n * (n - 1) / 2,
            sum_x_sq: (n - 1) * n * (2 * n - 1) / 6,
            ..SteadyData::default()
        }
    }

    /// Give this clone the window (fio's `steadystate_alloc`).
    pub fn alloc(&mut self) {
        self.bw_data = vec![0; self.dur as usize];
        self.iops_data = vec![0; self.dur as usize];
        self.state |= SS_DATA;
    }

    fn y(&self, i: usize) -> u64 {
        if self.state & SS_IOPS != 0 { self.iops_data[i] } else { self.bw_data[i] }
    }

    fn advance(&mut self) {
        self.tail = (self.tail + 1) % self.dur;
        if self.tail <= self.head {
            self.head = (self.head + 1) % self.dur;
        }
    }

    fn window_full(&self) -> bool {
        self.state & SS_BUFFER_FULL != 0 || self.tail.wrapping_sub(self.head) == self.dur - 1
    }

    /// fio's `steadystate_slope`: add a sample; whether the window is steady.
    fn slope_check(&mut self, iops: u64, bw: u64, trace: &mut Option<&mut Vec<String>>) -> bool {
        let t = self.tail as usize;
        self.bw_data[t] = bw;
        self.iops_data[t] = iops;
        let new_val = if self.state & SS_IOPS != 0 { iops } else { bw };
        if self.window_full() {
            let n = self.dur as usize;
            if self.state & SS_BUFFER_FULL == 0 {
                self.sum_y = 0;
                for i in 0..n {
                    self.sum_y = self.sum_y.wrapping_add(self.y(i));
                    let j = (self.head as usize + i) % n;
                    self.sum_xy = self.sum_xy.wrapping_add((i as u64).wrapping_mul(self.y(j)));
                }
                self.state |= SS_BUFFER_FULL;
            } else {
                self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(new_val);
                self.sum_xy =
                    self.sum_xy.wrapping_sub(self.sum_y).wrapping_add(u64::from(self.dur).wrapping_mul(new_val));
            }
            self.oldest_y = self.y(self.head as usize);
            let d = f64::from(self.dur);
            self.slope = (self.sum_xy as f64 - self.sum_x as f64 * self.sum_y as f64 / d)
                / (self.sum_x_sq as f64 - self.sum_x as f64 * self.sum_x as f64 / d);
            self.criterion = if self.state & SS_PCT != 0 {
                // fio divides the sum by the count in integers here.
                100.0 * self.slope / (self.sum_y / u64::from(self.dur)) as f64
            } else {
                self.slope
            };
            if let Some(t) = trace {
                t.push(format!(
                    "sum_y: {}, sum_xy: {}, slope: {:.6}, criterion: {:.6}, limit: {:.6}",
                    self.sum_y, self.sum_xy, self.slope, self.criterion, self.limit
                ));
            }
            if self.criterion.abs() < self.limit {
                return true;
            }
        }
        self.advance();
        false
    }

    /// fio's `steadystate_deviation`: add a sample; whether the window is steady.
    fn deviation_check(&mut self, iops: u64, bw: u64, trace: &mut Option<&mut Vec<String>>) -> bool {
        let t = self.tail as usize;
        self.bw_data[t] = bw;
        self.iops_data[t] = iops;
        if self.window_full() {
            let n = self.dur as usize;
            if self.state & SS_BUFFER_FULL == 0 {
                self.sum_y = (0..n).fold(0u64, |s, i| s.wrapping_add(self.y(i)));
                self.state |= SS_BUFFER_FULL;
            } else {
                self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(self.y(t));
            }
            self.oldest_y = self.y(self.head as usize);
            let mean = self.sum_y as f64 / f64::from(self.dur);
            self.deviation = 0.0;
            for i in 0..n {
                let diff = self.y(i) as f64 - mean;
                self.deviation = self.deviation.max(diff.abs());
            }
            self.criterion = if self.state & SS_PCT != 0 { 100.0 * self.deviation / mean } else { self.deviation };
            if let Some(t) = trace {
                t.push(format!(
                    "sum_y: {}, mean: {mean:.6}, max diff: {:.6}, objective: {:.6}, limit: {:.6}",
                    self.sum_y, self.deviation, self.criterion, self.limit
                ));
            }
            if self.criterion < self.limit {
                return true;
            }
        }
        self.advance();
        false
    }

    /// The mean of the window's bandwidth samples (fio's `steadystate_bw_mean`).
    pub fn bw_mean(&self) -> u64 {
        if self.dur == 0 || self.bw_data.is_empty() {
            return 0;
        }
        self.bw_data.iter().fold(0u64, |s, v| s.wrapping_add(*v)) / u64::from(self.dur)
    }

    /// The mean of the window's IOPS samples.
    pub fn iops_mean(&self) -> u64 {
        if self.dur == 0 || self.iops_data.is_empty() {
            return 0;
        }
        self.iops_data.iter().fold(0u64, |s, v| s.wrapping_add(*v)) / u64::from(self.dur)
    }

    /// The window's samples in time order, as fio's JSON lists them: (bw, iops).
    pub fn ordered(&self) -> Vec<(u64, u64)> {
        if self.dur == 0 || self.bw_data.is_empty() {
            return Vec::new();
        }
        let n = self.dur;
        let j = if self.state & SS_ATTAINED != 0 || self.state & SS_BUFFER_FULL == 0 {
            self.head
        } else if self.head == 0 {
            n - 1
        } else {
            self.head - 1
        };
        (0..n).map(|l| ((j + l) % n) as usize).map(|k| (self.bw_data[k], self.iops_data[k])).collect()
    }
}

/// Give the window to the clones that hold one (fio's `steadystate_setup`): each clone with
/// steady-state detection, or under `group_reporting` the last clone of each group.
pub fn setup(opts: &[(&JobOptions, u32)], data: &mut [SteadyData]) {
    let mut prev: Option<(usize, u32)> = None;
    for (i, (o, groupid)) in opts.iter().enumerate() {
        if data[i].dur == 0 {
            continue;
        }
        if !o.group_reporting {
            data[i].alloc();
            continue;
        }
        if let Some((p, g)) = prev
            && g != *groupid
        {
            data[p].alloc();
        }
        prev = Some((i, *groupid));
    }
    if let Some((p, _)) = prev {
        data[p].alloc();
    }
}

/// What the check sees of one clone.
pub struct Sample {
    /// Its reporting group.
    pub groupid: u32,
    /// `group_reporting`.
    pub group_reporting: bool,
    /// Past its ramp and not done (fio's `TD_SETTING_UP < runstate < TD_EXITED`).
    pub running: bool,
    /// I/Os completed, every direction.
    pub ios: u64,
    /// Bytes completed, every direction.
    pub bytes: u64,
}

/// One pass of fio's `steadystate_check` at `now_ms`: returns the clones found steady (to end).
pub fn check(data: &mut [SteadyData], samples: &[Sample], now_ms: u64) -> Vec<usize> {
    check_traced(data, samples, now_ms, None)
}

/// [`check`], with fio's `--debug=steadystate` lines added to `trace`.
pub fn check_traced(
    data: &mut [SteadyData],
    samples: &[Sample],
    now_ms: u64,
    mut trace: Option<&mut Vec<String>>,
) -> Vec<usize> {
    let mut ended = Vec::new();
    let mut prev_group: Option<u32> = None;
    let (mut group_bw, mut group_iops, mut group_ramp_over) = (0u64, 0u64, 0u32);
    for (i, s) in samples.iter().enumerate() {
        let ss = &mut data[i];
        if ss.dur == 0 || !s.running || ss.state == 0 || ss.state & SS_ATTAINED != 0 {
            continue;
        }
        let Some(epoch) = ss.epoch_ms else { continue };
        if !s.group_reporting || prev_group != Some(s.groupid) {
            group_bw = 0;
            group_iops = 0;
            group_ramp_over = 0;
        }
        prev_group = Some(s.groupid);
        // Samples count from one second after `ss_ramp`.
        if ss.ramp_us > 0
            && ss.state & SS_RAMP_OVER == 0
            && now_ms.saturating_sub(epoch) * 1000 >= ss.ramp_us + 1_000_000
        {
            ss.state |= SS_RAMP_OVER;
        }
        let rate_ms = now_ms.saturating_sub(ss.prev_ms).max(1);
        ss.prev_ms = now_ms;
        if ss.state & SS_RAMP_OVER != 0 {
            group_bw += 1000 * s.bytes.saturating_sub(ss.prev_bytes) / rate_ms;
            group_iops += 1000 * s.ios.saturating_sub(ss.prev_iops) / rate_ms;
            group_ramp_over += 1;
        }
        ss.prev_iops = s.ios;
        ss.prev_bytes = s.bytes;
        if s.group_reporting && ss.state & SS_DATA == 0 {
            continue;
        }
        if group_ramp_over == 0 {
            continue;
        }
        if let Some(t) = trace.as_mut() {
            t.push(format!(
                "steadystate_check() thread: {i}, groupid: {}, rate_msec: {rate_ms}, iops: {group_iops}, bw: {group_bw}, head: {}, tail: {}",
                s.groupid, ss.head, ss.tail
            ));
        }
        let steady = if ss.state & SS_SLOPE != 0 {
            ss.slope_check(group_iops, group_bw, &mut trace)
        } else {
            ss.deviation_check(group_iops, group_bw, &mut trace)
        };
        if steady {
            if s.group_reporting {
                for (k, o) in samples.iter().enumerate() {
                    if o.groupid == s.groupid {
                        data[k].state |= SS_ATTAINED;
                        ended.push(k);
                    }
                }
            } else {
                data[i].state |= SS_ATTAINED;
                ended.push(i);
            }
        }
    }
    ended
}

/// The clone's statistics began at `now_ms` (its start, or the end of its ramp): fio resets
/// `ss.prev_time` to the job's epoch then.
pub fn started(ss: &mut SteadyData, now_ms: u64) {
    if ss.epoch_ms.is_none() {
        ss.epoch_ms = Some(now_ms);
        ss.prev_ms = now_ms;
        ss.prev_iops = 0;
        ss.prev_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn opts(iops: bool, slope: bool, percent: bool, limit: f64, dur: u32) -> SteadyOptions {
        SteadyOptions { iops, slope, percent, limit, dur_sec: dur, ramp: Duration::ZERO }
    }

    fn run(o: SteadyOptions, iops: &[u64]) -> (SteadyData, Option<usize>) {
        let mut d = vec![SteadyData::new(&o)];
        setup(&[(&JobOptions::default(), 0)], &mut d);
        started(&mut d[0], 0);
        let mut total = 0;
        for (k, v) in iops.iter().enumerate() {
            total += v;
            let s = Sample { groupid: 0, group_reporting: false, running: true, ios: total, bytes: total * 4096 };
            if !check(&mut d, &[s], (k as u64 + 1) * 1000).is_empty() {
                return (d.pop().unwrap(), Some(k));
            }
        }
        (d.pop().unwrap(), None)
    }

    #[test]
    fn a_flat_series_is_steady_once_the_window_is_full() {
        let (d, at) = run(opts(true, true, true, 0.01, 3), &[100, 100, 100, 100]);
        assert_eq!(at, Some(2));
        assert_eq!(d.slope, 0.0);
        assert_eq!(d.ordered(), vec![(409600, 100); 3]);
        assert_eq!((d.iops_mean(), d.bw_mean()), (100, 409600));
    }

    #[test]
    fn a_rising_series_is_not_steady_until_it_levels_off() {
        let (d, at) = run(opts(true, true, false, 1.0, 3), &[100, 200, 300, 400, 400, 400]);
        assert_eq!(at, Some(5));
        assert_eq!(d.ordered().iter().map(|p| p.1).collect::<Vec<_>>(), vec![400, 400, 400]);
        let (d, at) = run(opts(true, true, false, 1.0, 3), &[100, 200, 300]);
        assert_eq!(at, None);
        assert_eq!(d.slope, 100.0);
    }

    #[test]
    fn deviation_in_percent_of_the_mean() {
        // Mean 100, largest deviation 10: 10%.
        let (d, at) = run(opts(true, false, true, 10.5, 2), &[90, 110]);
        assert_eq!(at, Some(1));
        assert!((d.criterion - 10.0).abs() < 1e-9);
        let (_, at) = run(opts(true, false, true, 9.5, 2), &[90, 110]);
        assert_eq!(at, None);
        // Bandwidth, absolute: 4096 bytes per I/O, deviation 40960 B/s.
        let (d, at) = run(opts(false, false, false, 50000.0, 2), &[90, 110]);
        assert_eq!(at, Some(1));
        assert_eq!(d.deviation, 40960.0);
    }

    #[test]
    fn group_reporting_keeps_one_window_per_group() {
        let o = JobOptions { group_reporting: true, ..JobOptions::default() };
        let so = opts(true, true, true, 0.01, 2);
        let mut d = vec![SteadyData::new(&so), SteadyData::new(&so), SteadyData::new(&so)];
        setup(&[(&o, 0), (&o, 0), (&o, 1)], &mut d);
        assert_eq!(d.iter().map(|d| d.state & SS_DATA != 0).collect::<Vec<_>>(), vec![false, true, true]);
        for s in d.iter_mut() {
            started(s, 0);
        }
        let mut ended = Vec::new();
        for k in 1..=2u64 {
            let s = |g| Sample { groupid: g, group_reporting: true, running: true, ios: 50 * k, bytes: 0 };
            ended = check(&mut d, &[s(0), s(0), s(1)], k * 1000);
        }
        assert_eq!(ended, vec![0, 1, 2]);
        // The group's window holds the sum of its clones.
        assert_eq!(d[1].ordered().iter().map(|p| p.1).collect::<Vec<_>>(), vec![100, 100]);
        assert_eq!(d[2].ordered().iter().map(|p| p.1).collect::<Vec<_>>(), vec![50, 50]);
    }
}
