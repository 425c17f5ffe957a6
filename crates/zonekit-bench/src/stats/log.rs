//! fio's per-job sample logs (`write_bw_log`, `write_lat_log`, `write_iops_log`,
//! `write_hist_log`), kept in memory and written at the end of the job as fio 3.33 does: file
//! `<prefix>_<type>.<jobnum>.log`, one line per sample `time, value, ddir, bs, prio`
//! (`time, value, ddir, bs, offset, prio` with `log_offset=1`; `prio` is fio's real-time flag, or
//! the priority in hex with `log_prio=1`), times in ms since the job's epoch, plus the epoch's
//! reading of another clock with `log_unix_epoch`/`log_alternate_epoch`. With `log_avg_msec`,
//! samples of a window are averaged (rounded half up; the maximum with `log_max=1`) and logged
//! with bs 0.
//!
//! Compression follows fio's format: samples are kept as fio's binary `struct io_sample` records
//! (32 bytes, 40 with the offset, little-endian), deflated in chunks of `log_compression` bytes,
//! each chunk one zlib stream; `log_store_compressed=1` writes the streams one after the other
//! (`.log.fz`), which [`inflate_log`] (and `fio --inflate-log`) turns back into text.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::hist::PLAT_NR;
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
    /// `_clat_hist`: completion latency histograms per `log_hist_msec` window.
    ClatHist,
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
            LogKind::ClatHist => "clat_hist",
        }
    }

    /// Latency logs average "inline" (windows close only when full); bw/iops logs close a window
    /// within [`LOG_MSEC_SLACK`] of its end (fio's `inline_log`).
    fn inline(self) -> bool {
        matches!(self, LogKind::Slat | LogKind::Clat | LogKind::Lat)
    }
}

/// fio's log file name: `<prefix>_<type>.<jobnum>.log`, or `<prefix>_<type>.log` with
/// `per_job_logs=0` (`.log.fz` instead of `.log` when `compressed`, for
/// `log_store_compressed=1`). `prefix` is the option's value (`write_bw_log=foo`) or the job
/// name; `jobnum` is the job's 1-based thread number over the whole run.
pub fn log_file_name(prefix: &str, kind: LogKind, jobnum: u32, per_job_logs: bool, compressed: bool) -> String {
    let suffix = if compressed { "log.fz" } else { "log" };
    if per_job_logs {
        format!("{prefix}_{}.{jobnum}.{suffix}", kind.name())
    } else {
        format!("{prefix}_{}.{suffix}", kind.name())
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
    /// The I/O's priority (class << 13 | level; 0 for averaged entries).
    pub prio: u16,
}

/// fio's flag in a binary sample's direction word: the record carries an offset.
const OFFSET_BIT: u32 = 0x8000_0000;
/// fio's flag in a binary sample's direction word: the priority column is the priority itself.
const PRIO_BIT: u32 = 0x4000_0000;

impl LogSample {
    /// fio's binary record (`struct io_sample`, then `offset` with `log_offset`), little-endian.
    fn encode(&self, log_offset: bool, log_prio: bool, out: &mut Vec<u8>) {
        let mut ddir = u32::from(self.ddir);
        if log_offset {
            ddir |= OFFSET_BIT;
        }
        if log_prio {
            ddir |= PRIO_BIT;
        }
        out.extend_from_slice(&self.time_ms.to_le_bytes());
        out.extend_from_slice(&self.value.to_le_bytes());
        out.extend_from_slice(&ddir.to_le_bytes());
        out.extend_from_slice(&self.prio.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&self.bs.to_le_bytes());
        if log_offset {
            out.extend_from_slice(&self.offset.to_le_bytes());
        }
    }
}

/// Size of a binary record: 32 bytes, 40 with the offset (x86-64 `struct io_sample`).
fn record_len(log_offset: bool) -> usize {
    if log_offset { 40 } else { 32 }
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Text of the binary records of one stream (fio's `flush_samples`): the first record's flags
/// say whether every record carries an offset and which priority column is printed; a partial
/// record at the end is left out.
fn render_records(buf: &[u8], out: &mut String) {
    use std::fmt::Write as _;
    if buf.len() < 32 {
        return;
    }
    let flags = u32::from_le_bytes([buf[16], buf[17], buf[18], buf[19]]);
    let log_offset = flags & OFFSET_BIT != 0;
    let log_prio = flags & PRIO_BIT != 0;
    for r in buf.chunks_exact(record_len(log_offset)) {
        let time = le_u64(r, 0);
        let value = le_u64(r, 8) as i64;
        let ddir = u32::from_le_bytes([r[16], r[17], r[18], r[19]]) & !(OFFSET_BIT | PRIO_BIT);
        let prio = u16::from_le_bytes([r[20], r[21]]);
        let bs = le_u64(r, 24);
        let _ = write!(out, "{time}, {value}, {ddir}, {bs}, ");
        if log_offset {
            let _ = write!(out, "{}, ", le_u64(r, 32));
        }
        if log_prio {
            let _ = writeln!(out, "0x{prio:04x}");
        } else {
            // fio prints whether the priority's class is real-time (class 1 in the top 3 bits).
            let _ = writeln!(out, "{}", u8::from(prio >> 13 == 1));
        }
    }
}

/// One zlib stream of `data` (fio's `gz_work`: default compression level).
fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::with_capacity(data.len() / 4), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

/// fio's `--inflate-log`: the text of a `log_store_compressed` file (zlib or gzip streams, one
/// after the other, each holding binary samples). An error names what is wrong with the data.
pub fn inflate_log(data: &[u8]) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = data;
    while !rest.is_empty() {
        let mut dec = flate2::bufread::MultiGzDecoder::new(rest);
        let mut buf = Vec::new();
        // A gzip member and a zlib stream differ by their first bytes (0x1f 0x8b for gzip).
        let used = if rest.len() >= 2 && rest[0] == 0x1f && rest[1] == 0x8b {
            dec.read_to_end(&mut buf).map_err(|e| format!("failed inflating log: {e}"))?;
            rest.len()
        } else {
            let mut z = flate2::bufread::ZlibDecoder::new(rest);
            z.read_to_end(&mut buf).map_err(|e| format!("failed inflating log: {e}"))?;
            let used = z.total_in() as usize;
            if used == 0 {
                return Err("failed inflating log: no data".into());
            }
            used
        };
        render_records(&buf, &mut out);
        rest = &rest[used.min(rest.len())..];
    }
    Ok(out)
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
    /// `log_prio`: the last column is the I/O priority in hex (else its real-time flag).
    pub log_prio: bool,
    /// `log_compression`: keep samples deflated in memory, in chunks of this many bytes (0: not).
    pub compress_chunk: u64,
    /// `log_store_compressed`: write the deflated chunks (`.log.fz`) instead of text.
    pub store_compressed: bool,
}

/// One log in memory (`struct io_log`).
#[derive(Debug, Clone)]
pub struct IoLog {
    kind: LogKind,
    cfg: LogConfig,
    avg_window: [IoStat; 3],
    avg_last: [u64; 3],
    samples: Vec<LogSample>,
    /// Deflated chunks of earlier samples (with `log_compression`), oldest first.
    chunks: Vec<Vec<u8>>,
    /// Added to every time stamp: the epoch's reading of `log_alternate_epoch`'s clock, in ms.
    time_base_ms: u64,
}

impl IoLog {
    /// An empty log.
    pub fn new(kind: LogKind, cfg: LogConfig) -> IoLog {
        IoLog {
            kind,
            cfg,
            avg_window: [IoStat::new(); 3],
            avg_last: [0; 3],
            samples: Vec::new(),
            chunks: Vec::new(),
            time_base_ms: 0,
        }
    }

    /// Sets the epoch's time on the alternate clock (ms), added to every time stamp.
    pub fn set_time_base(&mut self, ms: u64) {
        self.time_base_ms = ms;
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
        self.add_prio(elapsed_ms, value, ddir, bs, offset, 0)
    }

    /// [`IoLog::add`] of an I/O sent with priority `prio` (logged as is when every I/O is).
    pub fn add_prio(&mut self, elapsed_ms: u64, value: u64, ddir: usize, bs: u64, offset: u64, prio: u16) -> u64 {
        if self.cfg.avg_msec == 0 {
            self.push(LogSample { time_ms: elapsed_ms, value, ddir: ddir as u8, bs, offset, prio });
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
            self.push(LogSample { time_ms: elapsed_ms, value, ddir: ddir as u8, bs: 0, offset: 0, prio: 0 });
        }
        self.avg_window[ddir] = IoStat::new();
    }

    fn push(&mut self, mut s: LogSample) {
        s.time_ms += self.time_base_ms;
        self.samples.push(s);
        let chunk = self.cfg.compress_chunk;
        if chunk != 0 && (self.samples.len() * record_len(self.cfg.log_offset)) as u64 >= chunk {
            let c = deflate(&self.records());
            self.chunks.push(c);
            self.samples.clear();
        }
    }

    /// The samples not yet deflated, as fio's binary records.
    fn records(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.samples.len() * record_len(self.cfg.log_offset));
        for s in &self.samples {
            s.encode(self.cfg.log_offset, self.cfg.log_prio, &mut buf);
        }
        buf
    }

    /// The log's text, fio's `flush_samples` format.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.samples.len() * 24);
        for c in &self.chunks {
            let mut buf = Vec::new();
            // Chunks are this log's own zlib streams.
            let _ = flate2::read::ZlibDecoder::new(&c[..]).read_to_end(&mut buf);
            render_records(&buf, &mut out);
        }
        render_records(&self.records(), &mut out);
        out
    }

    /// The file's bytes: the text, or with `log_store_compressed` the zlib streams.
    pub fn file_bytes(&self) -> Vec<u8> {
        if !self.cfg.store_compressed {
            return self.render().into_bytes();
        }
        let mut out: Vec<u8> = self.chunks.concat();
        if !self.samples.is_empty() {
            out.extend_from_slice(&deflate(&self.records()));
        }
        out
    }

    /// Writes the log to `dir/<name>` (created or truncated; appended to with `append`, as fio
    /// does with `per_job_logs=0` so that every job's samples land in the one file); returns
    /// the path.
    pub fn write_to(&self, dir: &Path, name: &str, append: bool) -> io::Result<PathBuf> {
        write_log_file(&dir.join(name), &self.file_bytes(), append)
    }
}

/// The time stamp of a job's epoch in its logs with `log_unix_epoch`/`log_alternate_epoch`:
/// clock `clock_id`'s reading in ms. In real time that is the clock now (`sim_epoch_ns` None),
/// as fio reads it when the job (or its ramp) starts; in simulated time it is the clock's
/// reading when the run first asked, plus the epoch's simulated time, so that every job's log
/// of a simulated run counts on one time line. None when the system has no such clock.
pub fn log_epoch_ms(clock_id: i32, sim_epoch_ns: Option<u64>) -> Option<u64> {
    use std::sync::Mutex;
    static ORIGINS: Mutex<Vec<(i32, u64)>> = Mutex::new(Vec::new());
    let Some(sim_ns) = sim_epoch_ns else { return crate::sys::clock_ms(clock_id) };
    let mut origins = ORIGINS.lock().unwrap_or_else(|e| e.into_inner());
    let origin = match origins.iter().find(|(id, _)| *id == clock_id) {
        Some((_, ms)) => *ms,
        None => {
            let ms = crate::sys::clock_ms(clock_id)?;
            origins.push((clock_id, ms));
            ms
        }
    };
    Some(origin + sim_ns / 1_000_000)
}

fn write_log_file(path: &Path, bytes: &[u8], append: bool) -> io::Result<PathBuf> {
    let f = if append {
        std::fs::OpenOptions::new().append(true).create(true).open(path)?
    } else {
        std::fs::File::create(path)?
    };
    let mut f = io::BufWriter::new(f);
    f.write_all(bytes)?;
    f.flush()?;
    Ok(path.to_path_buf())
}

/// fio's completion-latency histogram log (`write_hist_log`): every `log_hist_msec`, per
/// direction, the clat histogram's counts added since the last entry, its 1856 bins summed in
/// groups of `2^log_hist_coarseness`. A line is `time, ddir, bs, n0, n1, …`; there is no entry
/// for the partial last window, as in fio.
#[derive(Debug, Clone)]
pub struct HistLog {
    hist_msec: u64,
    coarseness: u32,
    last: [Option<u64>; 3],
    prev: [Vec<u64>; 3],
    lines: String,
    time_base_ms: u64,
    store_compressed: bool,
}

impl HistLog {
    /// An empty histogram log; `hist_msec` 0 logs nothing (fio's default).
    pub fn new(hist_msec: u64, coarseness: u32, store_compressed: bool) -> HistLog {
        HistLog {
            hist_msec,
            coarseness: coarseness.min(10),
            last: [None; 3],
            prev: [vec![0; PLAT_NR], vec![0; PLAT_NR], vec![0; PLAT_NR]],
            lines: String::new(),
            time_base_ms: 0,
            store_compressed,
        }
    }

    /// Sets the epoch's time on the alternate clock (ms), added to every time stamp.
    pub fn set_time_base(&mut self, ms: u64) {
        self.time_base_ms = ms;
    }

    /// A completion in `ddir` at `elapsed_ms`, after which the cumulative clat histogram is
    /// `plat` (fio's check in `add_clat_sample`).
    pub fn add(&mut self, elapsed_ms: u64, ddir: usize, bs: u64, plat: &[u64; PLAT_NR]) {
        use std::fmt::Write as _;
        if self.hist_msec == 0 {
            return;
        }
        // fio starts the first window at the first completion (a 0 there counts as unset).
        let last = match self.last[ddir] {
            Some(l) if l != 0 => l,
            _ => elapsed_ms,
        };
        self.last[ddir] = Some(last);
        let this_window = elapsed_ms - last.min(elapsed_ms);
        if this_window < self.hist_msec {
            return;
        }
        let _ = write!(self.lines, "{}, {ddir}, {bs}, ", elapsed_ms + self.time_base_ms);
        let stride = 1usize << self.coarseness;
        let prev = &mut self.prev[ddir];
        let sum = |j: usize| -> u64 { (j..j + stride).map(|k| plat[k] - prev[k].min(plat[k])).sum() };
        // As fio: groups from 0 while a whole group fits before the last one, then the last
        // `stride` bins (which overlap the group before when `stride` does not divide 1856).
        for j in (0..PLAT_NR - stride).step_by(stride) {
            let _ = write!(self.lines, "{}, ", sum(j));
        }
        let _ = writeln!(self.lines, "{}", sum(PLAT_NR - stride));
        prev.copy_from_slice(plat);
        self.last[ddir] = Some(elapsed_ms - (this_window - self.hist_msec));
    }

    /// The log's text.
    pub fn render(&self) -> &str {
        &self.lines
    }

    /// Writes the log to `dir/<name>` (appended to with `append`); with
    /// `log_store_compressed` the text is stored as one zlib stream, which fio cannot read
    /// back either (its compressed histogram logs hold pointers).
    pub fn write_to(&self, dir: &Path, name: &str, append: bool) -> io::Result<PathBuf> {
        let bytes =
            if self.store_compressed { deflate(self.lines.as_bytes()) } else { self.lines.clone().into_bytes() };
        write_log_file(&dir.join(name), &bytes, append)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(log_file_name("job", LogKind::Bw, 1, true, false), "job_bw.1.log");
        assert_eq!(log_file_name("x", LogKind::Clat, 3, false, false), "x_clat.log");
        assert_eq!(log_file_name("x", LogKind::ClatHist, 2, true, true), "x_clat_hist.2.log.fz");
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

    #[test]
    fn prio_and_time_base() {
        let cfg = LogConfig { log_prio: true, log_offset: true, ..LogConfig::default() };
        let mut l = IoLog::new(LogKind::Clat, cfg);
        l.set_time_base(1_700_000_000_000);
        l.add(3, 1500, 0, 4096, 8192);
        assert_eq!(l.render(), "1700000000003, 1500, 0, 4096, 8192, 0x0000\n");
    }

    #[test]
    fn compressed_chunks_read_back() {
        let cfg = LogConfig { compress_chunk: 100, store_compressed: true, ..LogConfig::default() };
        let mut l = IoLog::new(LogKind::Lat, cfg);
        let mut plain = IoLog::new(LogKind::Lat, LogConfig::default());
        for i in 0..10 {
            l.add(i, 1000 + i, 1, 4096, 0);
            plain.add(i, 1000 + i, 1, 4096, 0);
        }
        assert_eq!(l.chunks.len(), 2, "a chunk per 4 records of 32 bytes");
        assert_eq!(l.render(), plain.render());
        assert_eq!(inflate_log(&l.file_bytes()).unwrap(), plain.render());
        assert!(inflate_log(b"not zlib").is_err());
    }

    #[test]
    fn hist_windows() {
        let mut h = HistLog::new(100, 10, false);
        let mut plat = [0u64; PLAT_NR];
        plat[5] = 1;
        h.add(10, 1, 4096, &plat);
        assert_eq!(h.render(), "");
        plat[5] = 3;
        plat[1000] = 2;
        h.add(110, 1, 4096, &plat);
        // 1856 bins: the first 1024, then the last 1024 (fio's overlapping last group).
        assert_eq!(h.render(), "110, 1, 4096, 5, 2\n");
        let mut h = HistLog::new(100, 6, false);
        h.add(1, 0, 0, &plat);
        h.add(101, 0, 0, &plat);
        assert_eq!(h.render().split(", ").count(), 3 + 29);
    }
}
