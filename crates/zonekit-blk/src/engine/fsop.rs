//! fio's `filecreate`, `filestat` and `filedelete` engines: the measured work is one call per
//! file, made when the job first uses the file (where fio opens it); the I/Os themselves do
//! nothing and complete with their whole length (fio's `FIO_FAKEIO`).
//!
//! - `filecreate`: `open(O_CREAT | O_RDWR, 0600)` (the file is closed again at once);
//! - `filestat`: `stat`, `lstat`, or `statx(STATX_ALL)` of the file's absolute path;
//! - `filedelete`: `unlink`.
//!
//! The latency of each call is the engine's own sample ([`Engine::take_latencies`]); the I/Os'
//! latencies are not recorded (fio's `FIO_NOSTATS`). A failed call fails the I/O that found it,
//! with fio's name of the call ([`Engine::failure`]).

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::{Common, Completion, Engine, EngineConfig, EngineError, Io, Queued};
use crate::sys::buf::SlotBuffers;

/// Which call each file gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    /// `open(O_CREAT | O_RDWR, 0600)` (`filecreate`).
    Create,
    /// `stat` (`filestat`, `stat_type=stat`).
    Stat,
    /// `lstat` (`stat_type=lstat`).
    Lstat,
    /// `statx` of the absolute path (`stat_type=statx`).
    Statx,
    /// `unlink` (`filedelete`).
    Delete,
}

impl FileOp {
    /// fio's engine name.
    pub fn engine(self) -> &'static str {
        match self {
            FileOp::Create => "filecreate",
            FileOp::Stat | FileOp::Lstat | FileOp::Statx => "filestat",
            FileOp::Delete => "filedelete",
        }
    }
}

/// Settings of the file-operation engines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOpsOptions {
    /// The call.
    pub op: FileOp,
    /// The job's files, in its order (`Io::file` indexes them).
    pub paths: Vec<PathBuf>,
    /// Which files have had their call, shared by every engine built from these options (and
    /// their clones): an offloaded job's submission threads each have an engine, and each file
    /// still gets its call once.
    pub calls: CallsMade,
}

/// The files whose call was made, by index, shared between the engines of one job
/// ([`FileOpsOptions::calls`]). Two are equal when they are the same record.
#[derive(Debug, Clone, Default)]
pub struct CallsMade(Arc<Mutex<Vec<bool>>>);

impl CallsMade {
    /// Marks file `f` as called; whether it was not yet.
    fn first(&self, f: usize) -> bool {
        let mut done = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if done.len() <= f {
            done.resize(f + 1, false);
        }
        !std::mem::replace(&mut done[f], true)
    }

    /// Every file not yet called again (the job closed its files between two loops).
    fn reset(&self) {
        let mut done = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        done.iter_mut().for_each(|d| *d = false);
    }
}

impl PartialEq for CallsMade {
    fn eq(&self, other: &CallsMade) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CallsMade {}

pub(crate) struct FsOpEngine {
    op: FileOp,
    paths: Vec<PathBuf>,
    calls: CallsMade,
    bufs: SlotBuffers,
    latencies: Vec<u64>,
    failure: Option<(i32, String)>,
}

impl FsOpEngine {
    pub fn new(o: FileOpsOptions, mut config: EngineConfig) -> Result<FsOpEngine, EngineError> {
        let common = Common::new(o.op.engine(), &mut config)?;
        Ok(FsOpEngine {
            op: o.op,
            calls: o.calls,
            paths: o.paths,
            bufs: common.bufs,
            latencies: Vec::new(),
            failure: None,
        })
    }

    fn call(&self, path: &PathBuf) -> io::Result<()> {
        use rustix::fs::{AtFlags, CWD, Mode, OFlags, StatxFlags};
        match self.op {
            FileOp::Create => {
                rustix::fs::open(path, OFlags::CREATE | OFlags::RDWR | OFlags::CLOEXEC, Mode::from_raw_mode(0o600))?;
            }
            FileOp::Stat => {
                rustix::fs::stat(path)?;
            }
            FileOp::Lstat => {
                rustix::fs::lstat(path)?;
            }
            FileOp::Statx => {
                let abs = std::fs::canonicalize(path)?;
                rustix::fs::statx(CWD, &abs, AtFlags::empty(), StatxFlags::ALL)?;
            }
            FileOp::Delete => rustix::fs::unlink(path)?,
        }
        Ok(())
    }

    /// fio's name of the failed call.
    fn what(&self, path: &std::path::Path) -> String {
        let p = path.display();
        match self.op {
            FileOp::Create => format!("open({p})"),
            FileOp::Stat => format!("stat({p}) type=1"),
            FileOp::Lstat => format!("stat({p}) type=2"),
            FileOp::Statx => format!("stat({p}) type=3"),
            FileOp::Delete => format!("delete({p})"),
        }
    }
}

impl Engine for FsOpEngine {
    fn name(&self) -> &'static str {
        self.op.engine()
    }

    fn is_sync(&self) -> bool {
        true
    }

    /// The engine has names, not files: each file's call is made again at its next use, as
    /// fio makes it each time it opens the file.
    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        drop(files);
        self.files_closed();
        Ok(())
    }

    fn files_closed(&mut self) {
        self.calls.reset();
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    fn queue(&mut self, io: &Io) -> Queued {
        let f = io.file as usize;
        let Some(path) = self.paths.get(f) else { return Queued::Completed(-libc::EBADF) };
        if self.calls.first(f) {
            let t0 = Instant::now();
            let r = self.call(path);
            let ns = t0.elapsed().as_nanos() as u64;
            if let Err(e) = r {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                self.failure = Some((errno, self.what(path)));
                return Queued::Completed(-errno);
            }
            self.latencies.push(ns);
        }
        Queued::Completed(io.len as i32)
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }

    fn own_latencies(&self) -> bool {
        true
    }

    fn take_latencies(&mut self, out: &mut Vec<u64>) {
        out.append(&mut self.latencies);
    }

    fn failure(&mut self) -> Option<(i32, String)> {
        self.failure.take()
    }
}
