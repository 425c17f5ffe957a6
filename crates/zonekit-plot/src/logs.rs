//! fio's log files as fio writes them: `<prefix>_<type>.<jobnum>.log` (or `<prefix>_<type>.log`),
//! one sample a line, `time, value, ddir, bs[, offset][, prio]`; times in ms. Columns past the
//! fourth are accepted whatever their number, so logs with `log_offset`, `log_prio` or later
//! additions read the same.

use crate::{PlotError, Result};
use std::path::Path;

/// Which log a file holds (its name's `<type>` part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LogKind {
    /// `_bw`: bandwidth, KiB/s.
    Bw,
    /// `_iops`: I/Os per second.
    Iops,
    /// `_lat`: total latency, ns.
    Lat,
    /// `_clat`: completion latency, ns.
    Clat,
    /// `_slat`: submission latency, ns.
    Slat,
}

impl LogKind {
    /// The `<type>` part of a file name.
    pub fn name(self) -> &'static str {
        match self {
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
            LogKind::Lat => "lat",
            LogKind::Clat => "clat",
            LogKind::Slat => "slat",
        }
    }
}

/// One line of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// ms since the job started.
    pub time_ms: u64,
    /// KiB/s, IOPS or ns, by the log's kind.
    pub value: u64,
    /// 0 read, 1 write, 2 trim.
    pub ddir: u8,
    /// Block size; 0 in averaged entries (`log_avg_msec`).
    pub bs: u64,
}

/// One log file read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Log {
    /// The file's kind.
    pub kind: LogKind,
    /// The job number from the name (1-based), `None` with `per_job_logs=0`.
    pub jobnum: Option<u32>,
    /// The file name (without directories), for labels.
    pub file: String,
    /// The samples, in file order.
    pub samples: Vec<Sample>,
}

impl Log {
    /// True when every I/O has its own line (no `log_avg_msec`): only such latency logs give
    /// percentiles over time. fio writes averaged entries with a block size of 0.
    pub fn per_io(&self) -> bool {
        !self.samples.is_empty() && self.samples.iter().all(|s| s.bs != 0)
    }
}

/// The kind and job number of a log file from its name: `x_bw.3.log` is job 3's bandwidth log.
pub fn classify(name: &str) -> Option<(LogKind, Option<u32>)> {
    let stem = name.strip_suffix(".log")?;
    let (stem, jobnum) = match stem.rsplit_once('.') {
        Some((s, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => (s, n.parse().ok()),
        _ => (stem, None),
    };
    // The longest suffix first: `_clat` also ends in `lat`.
    for kind in [LogKind::Clat, LogKind::Slat, LogKind::Iops, LogKind::Lat, LogKind::Bw] {
        if stem.ends_with(&format!("_{}", kind.name())) {
            return Some((kind, jobnum));
        }
    }
    None
}

/// Parse a log's text; `what` names it in errors (`FILE:LINE: why`).
pub fn parse(what: &str, kind: LogKind, jobnum: Option<u32>, text: &str) -> Result<Log> {
    let mut samples = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| PlotError::Input(format!("{what}:{}: {why}", i + 1));
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if cols.len() < 4 {
            return Err(bad("a log line has at least 4 columns: time, value, ddir, bs"));
        }
        let num = |j: usize, name: &str| -> Result<u64> {
            cols[j].parse::<u64>().map_err(|_| bad(&format!("{name} is not a number: {:?}", cols[j])))
        };
        let ddir = num(2, "ddir")?;
        if ddir > 2 {
            return Err(bad(&format!("ddir must be 0, 1 or 2, not {ddir}")));
        }
        samples.push(Sample { time_ms: num(0, "time")?, value: num(1, "value")?, ddir: ddir as u8, bs: num(3, "bs")? });
    }
    let file = what.rsplit('/').next().unwrap_or(what).to_string();
    Ok(Log { kind, jobnum, file, samples })
}

/// Read a log file, its kind from its name.
pub fn read(path: &Path) -> Result<Log> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let Some((kind, jobnum)) = classify(name) else {
        return Err(PlotError::Input(format!(
            "{}: not a fio log name (PREFIX_bw|iops|lat|clat|slat[.N].log)",
            path.display()
        )));
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| PlotError::Input(format!("{}: {}", path.display(), zonekit_core::io_text(&e))))?;
    parse(&path.display().to_string(), kind, jobnum, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_kind_and_job() {
        assert_eq!(classify("a_bw.1.log"), Some((LogKind::Bw, Some(1))));
        assert_eq!(classify("dir.x_clat.12.log"), Some((LogKind::Clat, Some(12))));
        assert_eq!(classify("seq_lat.log"), Some((LogKind::Lat, None)));
        assert_eq!(classify("seq_iops.2.log"), Some((LogKind::Iops, Some(2))));
        assert_eq!(classify("notes.txt"), None);
        assert_eq!(classify("x.log"), None);
    }

    #[test]
    fn four_to_seven_columns_read_alike() {
        let t = "10, 100, 1, 4096\n20, 200, 1, 4096, 0\n30, 300, 1, 4096, 8192, 0\n40, 400, 0, 4096, 8192, 0, 7\n";
        let l = parse("x", LogKind::Lat, Some(1), t).unwrap();
        let got: Vec<(u64, u64, u8)> = l.samples.iter().map(|s| (s.time_ms, s.value, s.ddir)).collect();
        assert_eq!(got, [(10, 100, 1), (20, 200, 1), (30, 300, 1), (40, 400, 0)]);
        assert!(l.per_io());
    }

    #[test]
    fn averaged_logs_are_not_per_io() {
        let l = parse("x", LogKind::Lat, Some(1), "100, 5000, 1, 0, 0\n").unwrap();
        assert!(!l.per_io());
    }

    #[test]
    fn bad_lines_say_where() {
        let e = parse("f.log", LogKind::Bw, None, "1, 2, 1, 4096\n1, x, 1, 4096\n").unwrap_err();
        assert_eq!(e, PlotError::Input("f.log:2: value is not a number: \"x\"".into()));
        let e = parse("f.log", LogKind::Bw, None, "1, 2\n").unwrap_err();
        assert!(e.to_string().starts_with("f.log:1: a log line has at least 4 columns"));
        assert!(parse("f.log", LogKind::Bw, None, "1, 2, 9, 0\n").is_err());
    }
}
