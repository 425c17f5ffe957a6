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

#[cfg(test)]
mod tests {
    use super::*;

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
