//! fio's `io_uring` engine: `depth` slots on one ring, I/Os batched into one `io_uring_enter` per
//! `commit`, completions reaped from the CQ ring without a system call when they are there.
//!
//! The ring is set up as fio 3.33 sets it up (`CQSIZE`, `COOP_TASKRUN`, `SINGLE_ISSUER`,
//! `DEFER_TASKRUN`, falling back on older kernels), disabled until the first `commit`, so that the
//! thread that runs the job is the ring's single issuer wherever the engine was built.

use std::io;

use super::{
    Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, Queued, Target, UringOptions, inline_op, stamp,
};
use crate::clock::RealClock;
use crate::sys::slots::{PushError, Rw};
use crate::sys::uring::{Ring, RingSetup, Xfer};

pub(crate) struct UringEngine {
    ring: Ring,
    files: Vec<Target>,
    rw_flags: i32,
    /// The priority of every read and write (the job's).
    ioprio: u16,
    /// `force_async=N`: every Nth I/O gets `IOSQE_ASYNC`.
    force_async: u32,
    prepped: u32,
    clock: RealClock,
}

impl UringEngine {
    pub fn new(o: UringOptions, mut config: EngineConfig) -> Result<UringEngine, EngineError> {
        const NAME: &str = "io_uring";
        let setup = RingSetup {
            iopoll: o.iopoll,
            fixed_bufs: o.fixed_buffers,
            // As fio: submission by a kernel thread works on registered files.
            fixed_files: o.fixed_files || o.sqpoll,
            sqpoll: o.sqpoll,
            sqpoll_cpu: o.sqpoll_cpu.filter(|_| o.sqpoll),
            vectored: o.vectored,
        };
        let mut rw_flags = if o.nowait { libc::RWF_NOWAIT } else { 0 };
        if o.uncached {
            rw_flags |= super::RWF_UNCACHED;
        }
        let common = Common::new(NAME, &mut config)?;
        let fds = common.raw_fds();
        let ring = Ring::new(setup, common.bufs, fds).map_err(|source| EngineError::Setup { engine: NAME, source })?;
        Ok(UringEngine {
            ring,
            files: common.files,
            rw_flags,
            ioprio: o.ioprio,
            force_async: o.force_async,
            prepped: 0,
            clock: config.clock,
        })
    }

    #[inline]
    fn force(&mut self) -> bool {
        if self.force_async == 0 {
            return false;
        }
        self.prepped += 1;
        if self.prepped == self.force_async {
            self.prepped = 0;
            true
        } else {
            false
        }
    }
}

impl Engine for UringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn is_sync(&self) -> bool {
        false
    }

    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        let files = super::targets("io_uring", files)?;
        self.ring
            .replace_files(super::raw_fds(&files))
            .map_err(|source| EngineError::Setup { engine: "io_uring", source })?;
        self.files = files;
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.ring.buffer_mut(tag as usize).expect("slot out of range or in flight")
    }

    #[inline]
    fn queue(&mut self, io: &Io) -> Queued {
        self.queue_with(io, self.ioprio)
    }

    fn queue_prio(&mut self, io: &Io, ioprio: u16) -> Queued {
        self.queue_with(io, ioprio)
    }

    #[inline]
    fn commit(&mut self) -> io::Result<usize> {
        self.ring.submit()
    }

    #[inline]
    fn getevents(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let from = out.len();
        let n = self.ring.getevents(min, max, out)?;
        stamp(out, from, &self.clock);
        Ok(n)
    }
}

impl UringEngine {
    /// `queue` with the priority of a read or write.
    #[inline]
    fn queue_with(&mut self, io: &Io, ioprio: u16) -> Queued {
        let file = io.file as usize;
        if file >= self.files.len() {
            return Queued::Completed(-libc::EBADF);
        }
        let r = match io.ddir {
            Ddir::Read | Ddir::Write => {
                let rw = if io.ddir == Ddir::Read { Rw::Read } else { Rw::Write };
                let force_async = self.force();
                let x = Xfer { rw, file, offset: io.offset, len: io.len, rw_flags: self.rw_flags, force_async, ioprio };
                self.ring.push_rw(io.tag as usize, &x)
            }
            Ddir::Sync | Ddir::DataSync => self.ring.push_fsync(io.tag as usize, file, io.ddir == Ddir::DataSync),
            Ddir::Trim | Ddir::SyncFileRange(_) | Ddir::ZoneReset => {
                // As fio: trims (and zone resets) run inline (zonekit runs sync_file_range inline
                // too, where fio sends IORING_OP_SYNC_FILE_RANGE), once the queued I/Os are committed.
                match self.ring.claim(io.tag as usize) {
                    Ok(()) if self.ring.pending() == 0 => {
                        return Queued::Completed(inline_op(&self.files[file], io));
                    }
                    Ok(()) => Err(PushError::Busy),
                    Err(e) => Err(e),
                }
            }
        };
        match r {
            Ok(()) => Queued::Queued,
            Err(PushError::Busy) => Queued::Busy,
            Err(PushError::BadSlot | PushError::TooLong) => Queued::Completed(-libc::EINVAL),
        }
    }
}
