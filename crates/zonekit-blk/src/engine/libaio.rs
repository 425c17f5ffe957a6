//! fio's `libaio` engine, on Linux native AIO itself: `io_setup`, `io_submit` and `io_getevents`
//! are called directly (no libaio library), one `io_submit` per `commit` for everything queued.
//!
//! As fio's engine: syncs and trims run inline once the queued I/Os are committed; `userspace_reap`
//! takes completions from the kernel's ring without a system call when not waiting; `nowait` sets
//! `RWF_NOWAIT`. Native AIO is only asynchronous for O_DIRECT on file systems and devices that
//! support it; buffered I/O (and tmpfs) completes inside `io_submit`.

use std::io;

use super::{
    Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, LibaioOptions, Queued, Target, inline_op, stamp,
};
use crate::clock::RealClock;
use crate::sys::aio::Aio;
use crate::sys::slots::{PushError, Rw};

pub(crate) struct LibaioEngine {
    aio: Aio,
    files: Vec<Target>,
    rw_flags: i32,
    clock: RealClock,
}

impl LibaioEngine {
    pub fn new(o: LibaioOptions, mut config: EngineConfig) -> Result<LibaioEngine, EngineError> {
        const NAME: &str = "libaio";
        let rw_flags = if o.nowait { libc::RWF_NOWAIT } else { 0 };
        let common = Common::new(NAME, &mut config)?;
        let fds = common.raw_fds();
        let aio = Aio::new(common.bufs, fds, o.userspace_reap)
            .map_err(|source| EngineError::Setup { engine: NAME, source })?;
        Ok(LibaioEngine { aio, files: common.files, rw_flags, clock: config.clock })
    }
}

impl Engine for LibaioEngine {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn is_sync(&self) -> bool {
        false
    }

    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        let files = super::targets("libaio", files)?;
        self.aio.replace_fds(super::raw_fds(&files));
        self.files = files;
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.aio.buffer_mut(tag as usize).expect("slot out of range or in flight")
    }

    #[inline]
    fn queue(&mut self, io: &Io) -> Queued {
        self.queue_with(io, None)
    }

    fn queue_prio(&mut self, io: &Io, ioprio: u16) -> Queued {
        self.queue_with(io, Some(ioprio))
    }

    #[inline]
    fn commit(&mut self) -> io::Result<usize> {
        self.aio.submit()
    }

    #[inline]
    fn getevents(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let from = out.len();
        let n = self.aio.getevents(min, max, out)?;
        stamp(out, from, &self.clock);
        Ok(n)
    }
}

impl LibaioEngine {
    /// `queue`, with the priority of a read or write of its own when `ioprio` is given.
    #[inline]
    fn queue_with(&mut self, io: &Io, ioprio: Option<u16>) -> Queued {
        let file = io.file as usize;
        let Some(t) = self.files.get(file) else { return Queued::Completed(-libc::EBADF) };
        let rw = match io.ddir {
            Ddir::Read => Rw::Read,
            Ddir::Write => Rw::Write,
            Ddir::Trim | Ddir::Sync | Ddir::DataSync | Ddir::SyncFileRange(_) | Ddir::ZoneReset => {
                // As fio: run inline, once the queued I/Os are committed.
                return match self.aio.claim(io.tag as usize) {
                    Ok(()) if self.aio.pending() == 0 => Queued::Completed(inline_op(t, io)),
                    Ok(()) | Err(PushError::Busy) => Queued::Busy,
                    Err(PushError::BadSlot | PushError::TooLong) => Queued::Completed(-libc::EINVAL),
                };
            }
        };
        match self.aio.push_rw(io.tag as usize, rw, file, io.offset, io.len, self.rw_flags) {
            Ok(()) => {
                if let Some(p) = ioprio {
                    self.aio.set_ioprio(io.tag as usize, p);
                }
                Queued::Queued
            }
            Err(PushError::Busy) => Queued::Busy,
            Err(PushError::BadSlot | PushError::TooLong) => Queued::Completed(-libc::EINVAL),
        }
    }
}
