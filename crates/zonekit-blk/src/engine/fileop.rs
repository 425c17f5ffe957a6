//! fio's `falloc` and `ftruncate` engines: each I/O is one `fallocate(2)` or `ftruncate(2)` call
//! on the file, one at a time; no data moves, and a successful call counts the I/O's length, as
//! fio counts it.
//!
//! - `falloc`: a read is `fallocate(FALLOC_FL_KEEP_SIZE)` of its range, a write `fallocate(0)`
//!   (which may grow the file), a trim `fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)`. A
//!   sync is, as in fio, an `fallocate(0)` of the sync's own (empty) range, which the kernel fails
//!   with `-EINVAL`.
//! - `ftruncate`: a write truncates the file to its offset; anything else fails with `-EINVAL`.
//!
//! Zone resets are the usual ones.

use std::io;

use rustix::fs::FallocateFlags;

use super::{Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, Queued, Target, reset_zones};
use crate::sys;

/// Which call each I/O makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Falloc,
    Ftruncate,
}

pub(crate) struct FileOpEngine {
    op: Op,
    files: Vec<Target>,
    bufs: sys::buf::SlotBuffers,
}

impl FileOpEngine {
    pub fn new(op: Op, mut config: EngineConfig) -> Result<FileOpEngine, EngineError> {
        let name = match op {
            Op::Falloc => "falloc",
            Op::Ftruncate => "ftruncate",
        };
        let common = Common::new(name, &mut config)?;
        Ok(FileOpEngine { op, files: common.files, bufs: common.bufs })
    }
}

fn done(r: io::Result<()>, len: u32) -> i32 {
    match r {
        Ok(()) => len as i32,
        Err(e) => sys::neg_errno(&e),
    }
}

impl Engine for FileOpEngine {
    fn name(&self) -> &'static str {
        match self.op {
            Op::Falloc => "falloc",
            Op::Ftruncate => "ftruncate",
        }
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        self.files = super::targets(self.name(), files)?;
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    fn queue(&mut self, io: &Io) -> Queued {
        let Some(t) = self.files.get(io.file as usize) else { return Queued::Completed(-libc::EBADF) };
        if io.ddir == Ddir::ZoneReset {
            return Queued::Completed(reset_zones(t, io.offset, io.len));
        }
        let (off, len) = (io.offset, u64::from(io.len));
        Queued::Completed(match self.op {
            Op::Falloc => {
                let mode = match io.ddir {
                    Ddir::Read => FallocateFlags::KEEP_SIZE,
                    Ddir::Trim => FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE,
                    _ => FallocateFlags::empty(),
                };
                done(sys::io::fallocate(t.fd(), mode, off, len), io.len)
            }
            Op::Ftruncate if io.ddir == Ddir::Write => done(sys::io::ftruncate(t.fd(), off), io.len),
            Op::Ftruncate => -libc::EINVAL,
        })
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }
}
