//! fio's per-job sample logs (`write_bw_log`, `write_lat_log`, `write_iops_log`), kept in memory
//! and written at the end of the job as fio 3.33 does: file `<prefix>_<type>.<jobnum>.log`, one
//! line per sample `time, value, ddir, bs, prio` (`time, value, ddir, bs, offset, prio` with
//! `log_offset=1`), times in ms since the job's epoch. With `log_avg_msec`, samples of a window
//! are averaged (rounded half up; the maximum with `log_max=1`) and logged with bs 0.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::iostat::IoStat;

/// `LOG_MSEC_SLACK` on Linux: a bw/iops window this close to full is closed early.
pub const LOG_MSEC_SLACK: u64 = 1;

/// Which log a file is (its name's `<type>` part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogKind {
    /// `_bw`: bandwidth in KiB/s.
    Bw,
    /// `_iops`: I/Os per second.
    Iops,
    /// `_slat`: submission latency, ns.
    Slat,
    /// `_clat`: completion latency, ns.
    Clat,
    /// `_lat`: total latency, ns.
    Lat,
}

impl LogKind {
    /// The `<type>` part of the file name.
    pub fn name(self) -> &'static str {
        match self {
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
            LogKind::Slat => "slat",
            LogKind::Clat => "clat",
            LogKind::Lat => "lat",
        }
    }

    /// Latency logs average "inline" (windows close only when full); bw/iops logs close a window
    /// within [`LOG_MSEC_SLACK`] of its end (fio's `inline_log`).
    fn inline(self) -> bool {
        matches!(self, LogKind::Slat | LogKind::Clat | LogKind::Lat)
    }
}

/// fio's log file name: `<prefix>_<type>.<jobnum>.log`, or `<prefix>_<type>.log` with
/// `per_job_logs=0`. `prefix` is the option's value (`write_bw_log=foo`) or the job name;
/// `jobnum` is the job's 1-based thread number over the whole run.
pub fn log_file_name(prefix: &str, kind: LogKind, jobnum: u32, per_job_logs: bool) -> String {
    if per_job_logs {
        format!("{prefix}_{}.{jobnum}.log", kind.name())
    } else {
        format!("{prefix}_{}.log", kind.name())
    }
}

/// One logged sample (`struct io_sample`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogSample {
    /// ms since the job's epoch.
    pub time_ms: u64,
    /// The value (KiB/s, IOPS or ns).
    pub value: u64,
    /// 0 read, 1 write, 2 trim.
    pub ddir: u8,
    /// Block size (0 for averaged entries, or for bw/iops with a block-size range).
    pub bs: u64,
    /// Offset of the I/O (0 for averaged entries); printed only with `log_offset=1`.
    pub offset: u64,
}

/// How a log averages and what it prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LogConfig {
    /// `log_avg_msec`: 0 logs every I/O.
    pub avg_msec: u64,
    /// `log_max_value`: log a window's maximum instead of its mean.
    pub log_max: bool,
    /// `log_offset`: add the offset column.
    pub log_offset: bool,
}

/// One log in memory (`struct io_log`).
#[derive(Debug, Clone)]
pub struct IoLog {
    kind: LogKind,
    cfg: LogConfig,
    avg_window: [IoStat; 3],
    avg_last: [u64; 3],
    samples: Vec<LogSample>,
}

impl IoLog {
    /// An empty log.
    pub fn new(kind: LogKind, cfg: LogConfig) -> IoLog {
        IoLog { kind, cfg, avg_window: [IoStat::new(); 3], avg_last: [0; 3], samples: Vec::new() }
    }

    /// The log's kind.
    pub fn kind(&self) -> LogKind {
        self.kind
    }

    /// The log's settings.
    pub fn config(&self) -> LogConfig {
        self.cfg
    }

    /// True when every I/O is logged (`per_unit_log`: no averaging).
    pub fn per_unit(&self) -> bool {
        self.cfg.avg_msec == 0
    }

    /// Samples so far.
    pub fn samples(&self) -> &[LogSample] {
        &self.samples
    }

    /// Adds a sample at `elapsed_ms` (fio's `add_log_sample`); returns ms until the current
    /// window closes (0 without averaging).
    pub fn add(&mut self, elapsed_ms: u64, value: u64, ddir: usize, bs: u64, offset: u64) -> u64 {
        if self.cfg.avg_msec == 0 {
            self.push(LogSample { time_ms: elapsed_ms, value, ddir: ddir as u8, bs, offset });
            return 0;
        }
        self.avg_window[ddir].add(value);
        if elapsed_ms < self.avg_last[ddir] {
            return self.avg_last[ddir] - elapsed_ms;
        }
        let this_window = elapsed_ms - self.avg_last[ddir];
        if this_window < self.cfg.avg_msec {
            let diff = self.cfg.avg_msec - this_window;
            if self.kind.inline() || diff > LOG_MSEC_SLACK {
                return diff;
            }
        }
        self.flush_window(ddir, elapsed_ms);
        self.avg_last[ddir] = elapsed_ms - (elapsed_ms % self.cfg.avg_msec);
        self.cfg.avg_msec
    }

    /// Logs every direction's partial window at `elapsed_ms` (fio's `finalize_logs`).
    pub fn finalize(&mut self, elapsed_ms: u64) {
        if self.cfg.avg_msec == 0 {
            return;
        }
        for ddir in 0..3 {
            self.flush_window(ddir, elapsed_ms);
        }
    }

    fn flush_window(&mut self, ddir: usize, elapsed_ms: u64) {
        let w = self.avg_window[ddir];
        if w.samples != 0 {
            let value = if self.cfg.log_max { w.max } else { (w.mean + 0.50) as u64 };
            self.push(LogSample { time_ms: elapsed_ms, value, ddir: ddir as u8, bs: 0, offset: 0 });
        }
        self.avg_window[ddir] = IoStat::new();
    }

    fn push(&mut self, s: LogSample) {
        self.samples.push(s);
    }

    /// The log's text, fio's `flush_samples` format.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.samples.len() * 24);
        for s in &self.samples {
            use std::fmt::Write as _;
            if self.cfg.log_offset {
                let _ = writeln!(out, "{}, {}, {}, {}, {}, 0", s.time_ms, s.value, s.ddir, s.bs, s.offset);
            } else {
                let _ = writeln!(out, "{}, {}, {}, {}, 0", s.time_ms, s.value, s.ddir, s.bs);
            }
        }
        out
    }

    /// Writes the log to `dir/<name>` (created or truncated); returns the path.
    pub fn write_to(&self, dir: &Path, name: &str) -> io::Result<PathBuf> {
        let path = dir.join(name);
        let mut f = io::BufWriter::new(std::fs::File::create(&path)?);
        f.write_all(self.render().as_bytes())?;
        f.flush()?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(log_file_name("job", LogKind::Bw, 1, true), "job_bw.1.log");
        assert_eq!(log_file_name("x", LogKind::Clat, 3, false), "x_clat.log");
    }

    #[test]
    fn unit_log_lines() {
        let mut l = IoLog::new(LogKind::Lat, LogConfig::default());
        l.add(3, 1500, 1, 4096, 8192);
        assert_eq!(l.render(), "3, 1500, 1, 4096, 0\n");
        let mut l = IoLog::new(LogKind::Lat, LogConfig { log_offset: true, ..LogConfig::default() });
        l.add(3, 1500, 0, 4096, 8192);
        assert_eq!(l.render(), "3, 1500, 0, 4096, 8192, 0\n");
    }

    #[test]
    fn averaged_windows() {
        let mut l = IoLog::new(LogKind::Clat, LogConfig { avg_msec: 100, ..LogConfig::default() });
        l.add(10, 1, 1, 4096, 0);
        l.add(50, 2, 1, 4096, 0);
        l.add(99, 4, 1, 4096, 0); // window not full: inline logs wait
        l.add(100, 4, 1, 4096, 0);
        l.add(150, 7, 1, 4096, 0);
        l.finalize(170);
        assert_eq!(l.render(), "100, 3, 1, 0, 0\n170, 7, 1, 0, 0\n");
    }
}
