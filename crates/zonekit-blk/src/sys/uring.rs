//! An io_uring submission/completion queue that owns the buffers its I/Os use.
//!
//! Soundness rests on three rules kept here: a slot's buffer goes to the kernel only through
//! [`Ring::push_rw`], which marks the slot busy until its completion is reaped; a busy slot's buffer
//! is never lent out ([`Ring::buffer_mut`] returns `None`); and the ring is drained (every submitted
//! I/O reaped) before the buffers are freed — if draining fails, the buffers are leaked instead.

use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::RawFd;

use io_uring::{IoUring, Probe, opcode, squeue, types};

use super::buf::SlotBuffers;
use super::slots::{PushError, Rw, claim_slot, free_slot_buffer};
use crate::request::Completion;

/// How to set a ring up.
#[derive(Debug, Clone, Default)]
pub struct RingSetup {
    /// `IORING_SETUP_IOPOLL`: completions are polled, not interrupt driven.
    pub iopoll: bool,
    /// `IORING_SETUP_SQPOLL`: a kernel thread submits.
    pub sqpoll: bool,
    /// `IORING_SETUP_SQ_AFF`: the CPU of the submission thread.
    pub sqpoll_cpu: Option<u32>,
    /// Register the slot buffers (`IORING_REGISTER_BUFFERS`) and use `READ_FIXED`/`WRITE_FIXED`.
    pub fixed_bufs: bool,
    /// Register the files (`IORING_REGISTER_FILES`) and address them by index.
    pub fixed_files: bool,
    /// `Some(true)`: `READV`/`WRITEV` with one iovec; `Some(false)`: `READ`/`WRITE`; `None`: the
    /// non-vectored ops when the kernel has them.
    pub vectored: Option<bool>,
}

/// A read or write of `len` bytes of a slot at `offset` of file `file` (an index in the file
/// table; checked by the caller).
#[derive(Debug, Clone, Copy)]
pub struct Xfer {
    /// Direction.
    pub rw: Rw,
    /// File index.
    pub file: usize,
    /// Byte offset.
    pub offset: u64,
    /// Byte length.
    pub len: u32,
    /// `RWF_*` flags.
    pub rw_flags: i32,
    /// Set `IOSQE_ASYNC` (go straight to a kernel worker).
    pub force_async: bool,
    /// The SQE's `ioprio` (class << 13 | level).
    pub ioprio: u16,
}

/// An io_uring instance with `depth` slots, each owning one buffer.
pub struct Ring {
    ring: ManuallyDrop<IoUring>,
    bufs: ManuallyDrop<SlotBuffers>,
    /// One iovec per slot, for the vectored ops (must stay put while submitted).
    iovecs: ManuallyDrop<Box<[libc::iovec]>>,
    busy: Box<[bool]>,
    fds: Box<[RawFd]>,
    depth: u32,
    /// Pushed, not yet submitted.
    pending: u32,
    /// Submitted, not yet reaped.
    in_kernel: u32,
    /// SQPOLL: pushed since the last `submit` (which reports them as sent).
    unannounced: u32,
    enabled: bool,
    setup: RingSetup,
    vectored: bool,
}

// SAFETY: the raw pointers inside (iovecs, buffers) point into memory owned by the Ring itself;
// moving it to another thread moves that ownership along. The kernel side is bound to a thread only
// after `enable` (single issuer), which the engine documents.
unsafe impl Send for Ring {}

impl Ring {
    /// Set up a ring for `bufs.count()` slots and the files `fds` (kept open by the caller for the
    /// life of the ring).
    pub fn new(setup: RingSetup, bufs: SlotBuffers, fds: Vec<RawFd>) -> io::Result<Ring> {
        let depth = u32::try_from(bufs.count()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        if depth == 0 || (setup.fixed_bufs && depth > u32::from(u16::MAX) + 1) {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let entries = depth.next_power_of_two();
        let (ring, enabled) = build(&setup, entries)?;
        let iovecs: Box<[libc::iovec]> = (0..bufs.count())
            .map(|i| libc::iovec { iov_base: bufs.slot_ptr(i).cast(), iov_len: bufs.size() })
            .collect();
        let vectored = match setup.vectored {
            Some(v) => v,
            None => {
                let mut probe = Probe::new();
                let have = ring.submitter().register_probe(&mut probe).is_ok()
                    && probe.is_supported(opcode::Read::CODE)
                    && probe.is_supported(opcode::Write::CODE);
                !have
            }
        };
        if setup.fixed_bufs {
            // SAFETY: each iovec covers one slot of `bufs`, which this Ring owns and frees only
            // after the ring itself is closed (see Drop), so the registration never outlives it.
            unsafe { ring.submitter().register_buffers(&iovecs)? };
        }
        if setup.fixed_files {
            ring.submitter().register_files(&fds)?;
        }
        Ok(Ring {
            ring: ManuallyDrop::new(ring),
            bufs: ManuallyDrop::new(bufs),
            iovecs: ManuallyDrop::new(iovecs),
            busy: vec![false; depth as usize].into_boxed_slice(),
            fds: fds.into_boxed_slice(),
            depth,
            pending: 0,
            in_kernel: 0,
            unannounced: 0,
            enabled,
            setup,
            vectored,
        })
    }

    /// Pushed and not yet submitted.
    pub fn pending(&self) -> u32 {
        self.pending
    }

    /// Use the files `fds` (kept open by the caller for the life of the ring, or until replaced
    /// again) in place of those given before, with nothing pushed or in flight: registered
    /// files are updated in the kernel's table.
    pub fn replace_files(&mut self, fds: Vec<RawFd>) -> io::Result<()> {
        if self.setup.fixed_files {
            if fds.len() == self.fds.len() {
                self.ring.submitter().register_files_update(0, &fds)?;
            } else {
                self.ring.submitter().unregister_files()?;
                self.ring.submitter().register_files(&fds)?;
            }
        }
        self.fds = fds.into_boxed_slice();
        Ok(())
    }

    /// The buffer of slot `tag`, unless the slot is busy (or does not exist).
    #[inline]
    pub fn buffer_mut(&mut self, tag: usize) -> Option<&mut [u8]> {
        free_slot_buffer(&self.busy, &mut self.bufs, tag)
    }

    /// Whether slot `tag` can take an I/O now.
    #[inline]
    pub fn claim(&self, tag: usize) -> Result<(), PushError> {
        claim_slot(&self.busy, tag, self.pending + self.in_kernel, self.depth)
    }

    #[inline]
    fn target(&self, file: usize) -> (types::Fd, squeue::Flags) {
        if self.setup.fixed_files {
            (types::Fd(file as RawFd), squeue::Flags::FIXED_FILE)
        } else {
            (types::Fd(self.fds[file]), squeue::Flags::empty())
        }
    }

    #[inline]
    fn push(&mut self, tag: usize, entry: squeue::Entry) -> Result<(), PushError> {
        // SAFETY: the entry's buffer (if any) is slot `tag` of self.bufs, or its iovec in
        // self.iovecs; both live until the ring is drained (Drop), and the slot is marked busy so
        // it is not lent out before its completion is reaped.
        unsafe { self.ring.submission().push(&entry) }.map_err(|_| PushError::Busy)?;
        self.busy[tag] = true;
        if self.setup.sqpoll {
            // The kernel thread may take (and complete) it at once: it is in the kernel already.
            self.in_kernel += 1;
            self.unannounced += 1;
        } else {
            self.pending += 1;
        }
        Ok(())
    }

    /// Queue the transfer `x` on slot `tag`.
    #[inline]
    pub fn push_rw(&mut self, tag: usize, x: &Xfer) -> Result<(), PushError> {
        let Xfer { rw, file, offset, len, rw_flags, force_async, ioprio } = *x;
        self.claim(tag)?;
        if len as usize > self.bufs.size() {
            return Err(PushError::TooLong);
        }
        let (fd, mut flags) = self.target(file);
        if force_async {
            flags |= squeue::Flags::ASYNC;
        }
        let buf = self.bufs.slot_ptr(tag);
        let entry = if self.setup.fixed_bufs {
            match rw {
                Rw::Read => opcode::ReadFixed::new(fd, buf, len, tag as u16)
                    .offset(offset)
                    .rw_flags(rw_flags)
                    .ioprio(ioprio)
                    .build(),
                Rw::Write => opcode::WriteFixed::new(fd, buf, len, tag as u16)
                    .offset(offset)
                    .rw_flags(rw_flags)
                    .ioprio(ioprio)
                    .build(),
            }
        } else if self.vectored {
            self.iovecs[tag].iov_len = len as usize;
            let iov: *const libc::iovec = &self.iovecs[tag];
            match rw {
                Rw::Read => opcode::Readv::new(fd, iov, 1).offset(offset).rw_flags(rw_flags).ioprio(ioprio).build(),
                Rw::Write => opcode::Writev::new(fd, iov, 1).offset(offset).rw_flags(rw_flags).ioprio(ioprio).build(),
            }
        } else {
            match rw {
                Rw::Read => opcode::Read::new(fd, buf, len).offset(offset).rw_flags(rw_flags).ioprio(ioprio).build(),
                Rw::Write => opcode::Write::new(fd, buf, len).offset(offset).rw_flags(rw_flags).ioprio(ioprio).build(),
            }
        };
        self.push(tag, entry.flags(flags).user_data(tag as u64))
    }

    /// Queue an `fsync` (or `fdatasync`) of file `file` on slot `tag`.
    pub fn push_fsync(&mut self, tag: usize, file: usize, datasync: bool) -> Result<(), PushError> {
        self.claim(tag)?;
        let (fd, flags) = self.target(file);
        let fsync_flags = if datasync { types::FsyncFlags::DATASYNC } else { types::FsyncFlags::empty() };
        let entry = opcode::Fsync::new(fd).flags(fsync_flags).build();
        self.push(tag, entry.flags(flags).user_data(tag as u64))
    }

    fn enable(&mut self) -> io::Result<()> {
        if !self.enabled {
            // Bind the ring (single issuer) to the thread that first submits.
            self.ring.submitter().register_enable_rings()?;
            self.enabled = true;
        }
        Ok(())
    }

    fn enter(&mut self, to_submit: u32, min_complete: u32, mut flags: u32) -> io::Result<usize> {
        self.enable()?;
        if self.setup.sqpoll && min_complete == 0 {
            // The kernel thread posts completions itself; there is nothing to run here.
            flags &= !io_uring::EnterFlags::GETEVENTS.bits();
        }
        // SAFETY: no argument pointer is passed; the SQEs being submitted were all built by
        // push_rw/push_fsync, whose buffers this Ring keeps alive until they complete.
        unsafe { self.ring.submitter().enter::<libc::sigset_t>(to_submit, min_complete, flags, None) }
    }

    /// Submit every pushed I/O (`io_uring_enter`, which also runs deferred completions); returns
    /// how many went to the kernel. `EAGAIN`/`EBUSY` stop early without error (reap, then submit
    /// again), `EINTR` is retried.
    pub fn submit(&mut self) -> io::Result<usize> {
        let mut sent = 0usize;
        if self.setup.sqpoll {
            self.enable()?;
            // The kernel thread consumes the ring on its own; wake it if it sleeps.
            let wake = self.ring.submission().need_wakeup();
            if wake {
                self.enter(0, 0, io_uring::EnterFlags::SQ_WAKEUP.bits())?;
            }
            sent = self.unannounced as usize;
            self.unannounced = 0;
            return Ok(sent);
        }
        let mut retries = 0;
        while self.pending > 0 {
            match self.enter(self.pending, 0, io_uring::EnterFlags::GETEVENTS.bits()) {
                Ok(n) => {
                    let n = (n as u32).min(self.pending);
                    self.pending -= n;
                    self.in_kernel += n;
                    sent += n as usize;
                    if n == 0 {
                        break;
                    }
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EBUSY)) => {
                    // Short of kernel resources: let completions free some (the caller reaps), or,
                    // with nothing in flight, retry a while as fio does.
                    if sent > 0 || self.in_kernel > 0 {
                        break;
                    }
                    retries += 1;
                    if retries > 10_000 {
                        return Err(e);
                    }
                    std::thread::sleep(std::time::Duration::from_micros(1));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(sent)
    }

    /// Move the completions in the CQ ring to `out`, at most `max` (the others stay in the ring);
    /// returns how many.
    #[inline]
    pub fn reap(&mut self, max: usize, out: &mut Vec<Completion>) -> usize {
        let mut n = 0;
        for cqe in self.ring.completion().take(max) {
            let tag = cqe.user_data() as usize;
            if let Some(b) = self.busy.get_mut(tag) {
                *b = false;
            }
            out.push(Completion::new(tag as u32, cqe.result()));
            n += 1;
        }
        self.in_kernel = self.in_kernel.saturating_sub(n as u32);
        n
    }

    /// Reap completions into `out` until at least `min` were taken (at most the number in the
    /// kernel), and at most `max` (at least `min`), waiting in `io_uring_enter` as needed; returns
    /// how many were taken.
    pub fn getevents(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let min = min.min(self.in_kernel as usize);
        let max = max.max(min).max(1);
        let mut got = self.reap(max, out);
        if got == 0 && min == 0 && self.in_kernel > 0 {
            // Nothing visible: completions may still wait as deferred task work (or need polling).
            let deferred = self.setup.iopoll || self.ring.submission().taskrun();
            if deferred {
                match self.enter(0, 0, io_uring::EnterFlags::GETEVENTS.bits()) {
                    Ok(_) => {}
                    Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)) => {}
                    Err(e) => return Err(e),
                }
                got += self.reap(max, out);
            }
        }
        while got < min {
            match self.enter(0, (min - got) as u32, io_uring::EnterFlags::GETEVENTS.bits()) {
                Ok(_) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)) => {}
                Err(e) => return Err(e),
            }
            got += self.reap(max - got, out);
        }
        Ok(got)
    }

    /// Submit what is pending and wait until nothing is in the kernel; false if that failed.
    fn drain(&mut self) -> bool {
        if !self.enabled {
            // A disabled ring (and its SQ thread, if any) never looked at its SQ: nothing can be
            // in flight.
            return true;
        }
        let mut sink = Vec::new();
        while self.pending + self.in_kernel > 0 {
            if self.pending > 0 && self.submit().is_err() {
                return false;
            }
            let want = self.in_kernel as usize;
            if self.getevents(want, want, &mut sink).is_err() {
                return false;
            }
            sink.clear();
        }
        true
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        let drained = self.drain();
        // SAFETY: each field is dropped exactly once, here, and never used again. The ring goes
        // first (closing it unregisters buffers and files); the buffers are freed only if nothing
        // the kernel was given can still be in flight, and leaked otherwise.
        unsafe {
            ManuallyDrop::drop(&mut self.ring);
            if drained {
                ManuallyDrop::drop(&mut self.bufs);
                ManuallyDrop::drop(&mut self.iovecs);
            }
        }
    }
}

/// Build the ring with fio's flags, dropping the newer ones that the kernel refuses; also says
/// whether the ring is enabled already (no `IORING_SETUP_R_DISABLED`).
fn build(setup: &RingSetup, entries: u32) -> io::Result<(IoUring, bool)> {
    // Each level drops a feature newer than the one before, as fio does on EINVAL.
    let mut level = 0;
    loop {
        let mut b = IoUring::builder();
        b.setup_cqsize(entries);
        if setup.iopoll {
            b.setup_iopoll();
        }
        if setup.sqpoll {
            b.setup_sqpoll(0);
            if let Some(cpu) = setup.sqpoll_cpu {
                b.setup_sqpoll_cpu(cpu);
            }
        }
        if level < 4 {
            b.setup_r_disabled();
        }
        if level < 3 {
            b.setup_coop_taskrun();
            b.setup_taskrun_flag();
        }
        if level < 2 && !setup.sqpoll {
            b.setup_single_issuer();
        }
        if level < 1 && !setup.sqpoll {
            b.setup_defer_taskrun();
        }
        match b.build(entries) {
            Ok(r) => return Ok((r, level >= 4)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) && level < 4 => level += 1,
            Err(e) => return Err(e),
        }
    }
}
