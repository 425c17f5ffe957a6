//! fio's `posixaio` engine: POSIX AIO from the C library (`aio_read`, `aio_write`,
//! `aio_fsync(O_SYNC)`), which glibc serves with threads of its own making ordinary system calls.
//!
//! As fio's engine: an I/O is handed to the library as it is queued (`commit` only reports how
//! many were); syncs (and datasyncs) are `aio_fsync(O_SYNC)` requests like the transfers; trims
//! and zone resets run inline once nothing is in flight ([`Queued::Busy`] until then); an
//! `EAGAIN` from the library is [`Queued::Busy`]; `getevents` hands back every request that has
//! finished, waiting in `aio_suspend` until at least `min` have.

use std::io;

use super::{Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, Queued, Target, inline_op, stamp};
use crate::clock::RealClock;
use crate::sys::paio::PosixAio;
use crate::sys::slots::{PushError, Rw};

pub(crate) struct PosixAioEngine {
    aio: PosixAio,
    files: Vec<Target>,
    /// Handed to the library since the last `commit`.
    started: usize,
    clock: RealClock,
}

impl PosixAioEngine {
    pub fn new(mut config: EngineConfig) -> Result<PosixAioEngine, EngineError> {
        let common = Common::new("posixaio", &mut config)?;
        let fds = common.raw_fds();
        Ok(PosixAioEngine {
            aio: PosixAio::new(common.bufs, fds),
            files: common.files,
            started: 0,
            clock: config.clock,
        })
    }
}

impl Engine for PosixAioEngine {
    fn name(&self) -> &'static str {
        "posixaio"
    }

    fn is_sync(&self) -> bool {
        false
    }

    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        let files = super::targets("posixaio", files)?;
        self.aio.replace_fds(super::raw_fds(&files));
        self.files = files;
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.aio.buffer_mut(tag as usize).expect("slot out of range or in flight")
    }

    fn queue(&mut self, io: &Io) -> Queued {
        let (tag, file) = (io.tag as usize, io.file as usize);
        let Some(t) = self.files.get(file) else { return Queued::Completed(-libc::EBADF) };
        let r = match io.ddir {
            Ddir::Read => self.aio.start_rw(tag, Rw::Read, file, io.offset, io.len),
            Ddir::Write => self.aio.start_rw(tag, Rw::Write, file, io.offset, io.len),
            Ddir::Sync | Ddir::DataSync => self.aio.start_fsync(tag, file),
            Ddir::Trim | Ddir::SyncFileRange(_) | Ddir::ZoneReset => {
                return match self.aio.claim(tag) {
                    Ok(()) if self.aio.in_flight() == 0 => Queued::Completed(inline_op(t, io)),
                    Ok(()) | Err(PushError::Busy) => Queued::Busy,
                    Err(PushError::BadSlot | PushError::TooLong) => Queued::Completed(-libc::EINVAL),
                };
            }
        };
        match r {
            Ok(Ok(())) => {
                self.started += 1;
                Queued::Queued
            }
            Ok(Err(libc::EAGAIN)) | Err(PushError::Busy) => Queued::Busy,
            Ok(Err(errno)) => Queued::Completed(-errno),
            Err(PushError::BadSlot | PushError::TooLong) => Queued::Completed(-libc::EINVAL),
        }
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(std::mem::take(&mut self.started))
    }

    fn getevents(&mut self, min: usize, _max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let from = out.len();
        let n = self.aio.getevents(min, out)?;
        stamp(out, from, &self.clock);
        Ok(n)
    }
}
