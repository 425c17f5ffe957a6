//! `write_iolog`: the I/O pattern of a job in fio's iolog version 3 (`iolog.c`), so that fio's
//! `read_iolog` replays what zonekit ran.
//!
//! The format: a first line `fio version 3 iolog`, then one line per event, each starting with
//! the microseconds since the log was opened: `T FILE add` for every file of the job,
//! `T FILE open` before the first I/O to a file, `T FILE read|write|trim|sync|datasync OFFSET
//! LENGTH` for each I/O as it is queued, and `T FILE close` at the end.

use crate::workload::Dir;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;

/// An open iolog being written.
#[derive(Debug)]
pub struct IologWriter {
    out: BufWriter<File>,
    t0_ns: u64,
    names: Vec<String>,
    opened: Vec<bool>,
    failed: Option<std::io::Error>,
}

impl IologWriter {
    /// Open `path` for appending (as fio does) at clock time `now_ns`, and log the job's files.
    pub fn create(path: &Path, names: &[String], now_ns: u64) -> std::io::Result<IologWriter> {
        let f = OpenOptions::new().create(true).append(true).open(path)?;
        let mut w = IologWriter {
            out: BufWriter::with_capacity(8192, f),
            t0_ns: now_ns,
            names: names.to_vec(),
            opened: vec![false; names.len()],
            failed: None,
        };
        writeln!(w.out, "fio version 3 iolog")?;
        for n in names {
            writeln!(w.out, "0 {n} add")?;
        }
        Ok(w)
    }

    fn stamp(&self, now_ns: u64) -> u64 {
        now_ns.saturating_sub(self.t0_ns) / 1000
    }

    fn line(&mut self, text: std::fmt::Arguments<'_>) {
        if self.failed.is_none()
            && let Err(e) = self.out.write_fmt(text)
        {
            self.failed = Some(e);
        }
    }

    /// An I/O was queued: `T FILE DIR OFFSET LENGTH` (after the file's `open` the first time).
    pub fn io(&mut self, now_ns: u64, file: usize, dir: Dir, offset: u64, len: u64) {
        let t = self.stamp(now_ns);
        let Some(name) = self.names.get(file).cloned() else { return };
        if !self.opened[file] {
            self.opened[file] = true;
            self.line(format_args!("{t} {name} open\n"));
        }
        let what = match dir {
            Dir::Read => "read",
            Dir::Write => "write",
            Dir::Trim => "trim",
            Dir::Sync => "sync",
            Dir::DataSync => "datasync",
            Dir::SyncFileRange => "sync_file_range",
        };
        self.line(format_args!("{t} {name} {what} {offset} {len}\n"));
    }

    /// The job ended: `close` for every file it opened; the first write error, if any.
    pub fn finish(mut self, now_ns: u64) -> std::io::Result<()> {
        let t = self.stamp(now_ns);
        for i in 0..self.names.len() {
            if self.opened[i] {
                let name = self.names[i].clone();
                self.line(format_args!("{t} {name} close\n"));
            }
        }
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

/// One I/O of a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayIo {
    /// When it is due (µs since the replay started; 0: at once).
    pub due_us: u64,
    /// Index into [`Replay::files`].
    pub file: usize,
    /// Its direction.
    pub dir: Dir,
    /// Offset (after `replay_scale` and `replay_align`).
    pub offset: u64,
    /// Length.
    pub len: u64,
}

/// An iolog read for replay (`read_iolog`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Replay {
    /// The files it works on, in the order they were added (or the `replay_redirect` target).
    pub files: Vec<String>,
    /// Its I/Os in order.
    pub ios: Vec<ReplayIo>,
    /// The end of the furthest I/O per file.
    pub file_end: Vec<u64>,
    /// The largest I/O per direction (read, write, trim).
    pub max_len: [u64; 3],
}

/// How a log is replayed (`replay_*` options).
#[derive(Debug, Clone, Default)]
pub struct ReplayRules<'a> {
    /// `replay_no_stall`.
    pub no_stall: bool,
    /// `replay_redirect`.
    pub redirect: Option<&'a str>,
    /// `replay_scale` (0, 1: none).
    pub scale: u64,
    /// `replay_align` (0: none).
    pub align: u64,
    /// `replay_time_scale` (percent).
    pub time_scale: u64,
    /// `replay_skip`: read, write, trim, sync.
    pub skip: [bool; 4],
}

/// The largest I/O a replay takes (256 MiB).
pub const MAX_REPLAY_LEN: u64 = 256 << 20;

/// Whether `head` starts like a blktrace file (`blk_io_trace` magic, either byte order).
pub fn is_blktrace(head: &[u8]) -> bool {
    let Some(b) = head.get(..4) else { return false };
    let b = [b[0], b[1], b[2], b[3]];
    [u32::from_le_bytes(b), u32::from_be_bytes(b)].iter().any(|m| m & 0xffff_ff00 == 0x6561_7400)
}

/// Read an iolog of fio's version 2 or 3. Stricter than fio (which skips a line it cannot
/// read): the first bad line is the error, naming its number, so a corrupt or truncated log
/// never replays half.
pub fn parse_iolog(data: &[u8], rules: &ReplayRules<'_>) -> Result<Replay, String> {
    if is_blktrace(data) {
        return Err("a blktrace file: replaying blktrace is not supported by zonekit".into());
    }
    let text =
        std::str::from_utf8(data).map_err(|e| format!("not a fio iolog (not text at byte {})", e.valid_up_to()))?;
    if !text.is_empty() && !text.ends_with('\n') {
        // fio ends every line it writes: a last line without one was cut short.
        return Err(format!("line {}: truncated (the log ends inside it)", text.lines().count()));
    }
    let mut lines = text.lines();
    let version = match lines.next().map(str::trim_end) {
        Some("fio version 2 iolog") => 2,
        Some("fio version 3 iolog") => 3,
        Some(_) => {
            return Err("not a fio iolog (its first line is not `fio version 2 iolog` or `fio version 3 iolog`)".into());
        }
        None => return Err("empty: not a fio iolog".into()),
    };
    let mut r = Replay::default();
    let mut names: Vec<String> = Vec::new();
    let (mut last_t, mut due) = (None::<u64>, 0u64);
    let num = |s: &str, what: &str, n: usize| -> Result<u64, String> {
        s.parse::<u64>().map_err(|_| format!("line {n}: {what} `{s}` is not a number"))
    };
    for (i, line) in lines.enumerate() {
        let n = i + 2;
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            return Err(format!("line {n}: empty"));
        }
        let (t, f) = if version == 3 {
            let t = num(f[0], "time", n)?;
            (Some(t), &f[1..])
        } else {
            (None, &f[..])
        };
        if let Some(t) = t {
            let gap = match last_t {
                Some(l) if !rules.no_stall && t > l => t - l,
                _ => 0,
            };
            let scale = if rules.time_scale == 0 { 100 } else { rules.time_scale };
            due = due.saturating_add(gap.saturating_mul(100) / scale);
            last_t = Some(t);
        }
        let (name, act) = match f {
            [name, act, ..] => (*name, *act),
            _ => return Err(format!("line {n}: expected a file name and an action")),
        };
        let file_of = |names: &[String]| -> Result<usize, String> {
            match rules.redirect {
                Some(_) => Ok(0),
                None => names.iter().position(|x| x == name).ok_or_else(|| format!("line {n}: {name} was not added")),
            }
        };
        match act {
            "add" | "open" | "close" if f.len() == 2 => {
                if act == "add" && rules.redirect.is_none() && !names.iter().any(|x| x == name) {
                    names.push(name.to_string());
                }
                file_of(&names)?;
            }
            "wait" if version == 3 => {}
            "wait" if f.len() == 4 => {
                // Version 2: wait until this many ms since the start.
                if !rules.no_stall {
                    due = due.max(num(f[2], "delay", n)?.saturating_mul(1000));
                }
            }
            "read" | "write" | "trim" | "sync" | "datasync" if f.len() == 4 => {
                let offset = num(f[2], "offset", n)?;
                let len = num(f[3], "length", n)?;
                let dir = match act {
                    "read" => Dir::Read,
                    "write" => Dir::Write,
                    "trim" => Dir::Trim,
                    "sync" => Dir::Sync,
                    _ => Dir::DataSync,
                };
                let file = file_of(&names)?;
                let skip = match dir.index() {
                    Some(d) => rules.skip[d],
                    None => rules.skip[3],
                };
                if skip {
                    continue;
                }
                let mut offset = if rules.scale > 1 { offset / rules.scale } else { offset };
                if rules.align > 1 {
                    offset -= offset % rules.align;
                }
                if let Some(d) = dir.index() {
                    // Every slot gets a buffer of the largest I/O: keep it allocatable.
                    if len == 0 || len > MAX_REPLAY_LEN {
                        return Err(format!("line {n}: length {len} out of range (1 to {MAX_REPLAY_LEN})"));
                    }
                    r.max_len[d] = r.max_len[d].max(len);
                }
                r.ios.push(ReplayIo { due_us: due, file, dir, offset, len });
            }
            _ => return Err(format!("line {n}: `{}` is not an iolog entry", line.trim())),
        }
    }
    r.files = match rules.redirect {
        Some(t) => vec![t.to_string()],
        None => names,
    };
    if r.ios.iter().all(|io| io.dir.index().is_none()) {
        return Err("no read, write or trim to replay".into());
    }
    r.file_end = vec![0; r.files.len()];
    for io in &r.ios {
        if let Some(e) = r.file_end.get_mut(io.file) {
            *e = (*e).max(io.offset.saturating_add(io.len));
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> ReplayRules<'static> {
        ReplayRules { time_scale: 100, ..ReplayRules::default() }
    }

    #[test]
    fn reads_versions_2_and_3() {
        let v3 = b"fio version 3 iolog\n0 f add\n100 f open\n120 f write 4096 4096\n520 f read 0 8192\n600 f sync 0 0\n700 f close\n";
        let r = parse_iolog(v3, &rules()).unwrap();
        assert_eq!(r.files, ["f"]);
        assert_eq!(r.ios.len(), 3);
        assert_eq!(r.ios[0], ReplayIo { due_us: 120, file: 0, dir: Dir::Write, offset: 4096, len: 4096 });
        assert_eq!(r.ios[1].due_us, 520);
        assert_eq!(r.max_len, [8192, 4096, 0]);
        assert_eq!(r.file_end, [8192]);
        let fast = parse_iolog(v3, &ReplayRules { time_scale: 200, scale: 2, align: 4096, ..rules() }).unwrap();
        assert_eq!((fast.ios[1].due_us, fast.ios[0].offset), (260, 0));
        let r = parse_iolog(v3, &ReplayRules { no_stall: true, skip: [true, false, false, false], ..rules() }).unwrap();
        assert_eq!(r.ios.iter().map(|i| (i.due_us, i.dir)).collect::<Vec<_>>(), [(0, Dir::Write), (0, Dir::Sync)]);
        let v2 = b"fio version 2 iolog\nf add\nf open\nf write 0 4096\nf close\n";
        assert_eq!(parse_iolog(v2, &rules()).unwrap().ios.len(), 1);
        let r = parse_iolog(v2, &ReplayRules { redirect: Some("g"), ..rules() }).unwrap();
        assert_eq!(r.files, ["g"]);
    }

    #[test]
    fn refuses_corrupt_truncated_and_blktrace_logs() {
        let e = |d: &[u8]| parse_iolog(d, &rules()).unwrap_err();
        assert_eq!(e(b"fio version 3 iolog\n0 f add\n10 f write 0\n"), "line 3: `10 f write 0` is not an iolog entry");
        assert_eq!(e(b"fio version 3 iolog\n0 f add\n10 f write 0 40"), "line 3: truncated (the log ends inside it)");
        assert_eq!(e(b"fio version 3 iolog\n0 f add\n10 f write x 4096\n"), "line 3: offset `x` is not a number");
        assert_eq!(e(b"fio version 3 iolog\n10 g write 0 4096\n"), "line 2: g was not added");
        assert!(e(b"hello\n").starts_with("not a fio iolog"));
        assert!(e(b"").starts_with("empty"));
        assert_eq!(
            e(b"fio version 2 iolog\nf add\nf read 0 4294967295\n"),
            "line 3: length 4294967295 out of range (1 to 268435456)"
        );
        assert_eq!(e(b"fio version 3 iolog\n0 f add\n"), "no read, write or trim to replay");
        assert!(e(&[0x07, 0x74, 0x61, 0x65, 0, 0]).contains("blktrace"));
        assert!(e(&[0x65, 0x61, 0x74, 0x07, 0, 0]).contains("blktrace"));
    }

    #[test]
    fn writes_fios_version_3_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log");
        let mut w = IologWriter::create(&p, &["a".into(), "b".into()], 1_000).unwrap();
        w.io(124_000, 0, Dir::Read, 4096, 4096);
        w.io(125_000, 0, Dir::Sync, 0, 0);
        w.io(300_000, 1, Dir::Write, 0, 8192);
        w.finish(400_000).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text,
            "fio version 3 iolog\n0 a add\n0 b add\n123 a open\n123 a read 4096 4096\n124 a sync 0 0\n\
             299 b open\n299 b write 0 8192\n399 a close\n399 b close\n"
        );
    }
}
