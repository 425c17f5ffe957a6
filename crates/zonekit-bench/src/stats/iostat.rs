//! fio's running statistic (`struct io_stat`): min, max, and Welford's running mean and sum of
//! squared deviations, updated and merged with fio's exact floating-point steps so that means
//! and deviations match fio's to the last printed digit.

/// Running min/max/mean/variance of a stream of integer samples (`struct io_stat`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IoStat {
    /// Smallest sample (`u64::MAX` before the first).
    pub min: u64,
    /// Largest sample (0 before the first).
    pub max: u64,
    /// Number of samples.
    pub samples: u64,
    /// Running mean.
    pub mean: f64,
    /// Running sum of squared deviations from the mean (Welford's S).
    pub s: f64,
}

impl Default for IoStat {
    fn default() -> Self {
        IoStat::new()
    }
}

/// What a statistic reports: `calc_lat`'s min, max, mean and sample standard deviation.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StatSummary {
    /// Smallest sample.
    pub min: u64,
    /// Largest sample.
    pub max: u64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (`sqrt(S / (n - 1))`, 0 for one sample).
    pub stddev: f64,
    /// Number of samples.
    pub samples: u64,
}

impl IoStat {
    /// No samples yet (fio's `reset_io_stat`: min is all ones).
    pub const fn new() -> IoStat {
        IoStat { min: u64::MAX, max: 0, samples: 0, mean: 0.0, s: 0.0 }
    }

    /// Adds one sample (fio's `add_stat_sample`: the mean moves only when the sample differs from it).
    #[inline]
    pub fn add(&mut self, data: u64) {
        let val = data as f64;
        if data > self.max {
            self.max = data;
        }
        if data < self.min {
            self.min = data;
        }
        let delta = val - self.mean;
        if delta != 0.0 {
            self.mean += delta / (self.samples as f64 + 1.0);
            self.s += delta * (val - self.mean);
        }
        self.samples += 1;
    }

    /// Merges latency-like stats of two threads (fio's `sum_stat(.., pure_sum=false)`: Chan's
    /// parallel mean and variance).
    pub fn merge(&mut self, src: &IoStat) {
        if src.samples == 0 {
            return;
        }
        let first = self.samples == 0;
        self.min = self.min.min(src.min);
        self.max = self.max.max(src.max);
        let (mean, s) = if first {
            (src.mean, src.s)
        } else {
            let delta = src.mean - self.mean;
            let (ns, nd) = (src.samples as f64, self.samples as f64);
            let mean = (src.mean * ns + self.mean * nd) / (self.samples + src.samples) as f64;
            // fio: pow(delta, 2.0) * (dst->samples * src->samples) / (dst->samples + src->samples),
            // the product and sum in 64-bit integers.
            let s = src.s
                + self.s
                + delta.powi(2) * (self.samples.wrapping_mul(src.samples)) as f64 / (self.samples + src.samples) as f64;
            (mean, s)
        };
        self.samples += src.samples;
        self.mean = mean;
        self.s = s;
    }

    /// Merges bandwidth/IOPS stats of jobs in one group (fio's `sum_stat(.., pure_sum=true)`):
    /// min, max, mean and S add up, so a group's bandwidth is the sum of its jobs'.
    pub fn merge_sum(&mut self, src: &IoStat) {
        if src.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *src;
        } else {
            self.min += src.min;
            self.max += src.max;
            self.samples += src.samples;
            self.mean += src.mean;
            self.s += src.s;
        }
    }

    /// min, max, mean and stddev as fio's `calc_lat` derives them; `None` without samples.
    pub fn summary(&self) -> Option<StatSummary> {
        if self.samples == 0 {
            return None;
        }
        let n = self.samples as f64;
        let stddev = if n > 1.0 { (self.s / (n - 1.0)).sqrt() } else { 0.0 };
        Some(StatSummary { min: self.min, max: self.max, mean: self.mean, stddev, samples: self.samples })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_stddev() {
        let mut s = IoStat::new();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            s.add(v);
        }
        let m = s.summary().unwrap();
        assert_eq!((m.min, m.max, m.samples), (2, 9, 8));
        assert!((m.mean - 5.0).abs() < 1e-12);
        assert!((m.stddev - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn merge_equals_one_stream() {
        let (mut a, mut b, mut all) = (IoStat::new(), IoStat::new(), IoStat::new());
        for v in 0..100u64 {
            let x = v * v % 97;
            if v % 3 == 0 {
                a.add(x)
            } else {
                b.add(x)
            }
            all.add(x);
        }
        a.merge(&b);
        let (m, n) = (a.summary().unwrap(), all.summary().unwrap());
        assert_eq!((m.min, m.max, m.samples), (n.min, n.max, n.samples));
        assert!((m.mean - n.mean).abs() < 1e-9 && (m.stddev - n.stddev).abs() < 1e-9);
    }

    #[test]
    fn empty_has_no_summary() {
        assert!(IoStat::new().summary().is_none());
    }
}
