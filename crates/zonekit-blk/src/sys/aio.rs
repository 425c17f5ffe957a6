//! Linux native AIO (what libaio wraps) through its system calls: `io_setup`, `io_submit`,
//! `io_getevents`, `io_destroy`, and optionally reaping completions from the kernel's ring in user
//! space (fio's `userspace_reap`), with no C library.
//!
//! Like [`super::uring::Ring`], an [`Aio`] owns the buffers its I/Os use: a slot is busy from
//! [`Aio::push_rw`] until its event is reaped, busy slots are never lent out, and `io_destroy`
//! (which waits for every outstanding I/O) runs before the buffers are freed.

use std::io;
use std::mem::{ManuallyDrop, offset_of, size_of};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

use super::buf::SlotBuffers;
use super::slots::{PushError, Rw, claim_slot, free_slot_buffer};
use crate::request::Completion;

// `struct iocb` swaps `aio_key` and `aio_rw_flags` on big-endian targets (`PADDED` in aio_abi.h);
// `Iocb` below has the little-endian order only. Every other type here is independent of the
// architecture: fixed-size fields, and system call numbers from libc.
#[cfg(not(all(target_os = "linux", target_endian = "little")))]
compile_error!("sys/aio.rs lays struct iocb out for little-endian Linux only");

/// `struct iocb` (`include/uapi/linux/aio_abi.h`, little-endian field order).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    aio_key: u32,
    aio_rw_flags: i32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `IOCB_FLAG_IOPRIO`: the iocb's `aio_reqprio` is its I/O priority.
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// `struct io_event`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

/// `struct aio_ring` (`fs/aio.c`): the header of the completion ring the kernel maps at the
/// context's address; `io_event`s follow it.
#[repr(C)]
struct AioRing {
    id: u32,
    nr: u32,
    head: u32,
    tail: u32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

const _: () = assert!(size_of::<Iocb>() == 64);
const _: () = assert!(offset_of!(Iocb, aio_key) == 8 && offset_of!(Iocb, aio_rw_flags) == 12);
const _: () = assert!(offset_of!(Iocb, aio_lio_opcode) == 16 && offset_of!(Iocb, aio_fildes) == 20);
const _: () = assert!(offset_of!(Iocb, aio_buf) == 24 && offset_of!(Iocb, aio_offset) == 40);
const _: () = assert!(offset_of!(Iocb, aio_flags) == 56 && offset_of!(Iocb, aio_resfd) == 60);
const _: () = assert!(size_of::<IoEvent>() == 32);
const _: () = assert!(size_of::<AioRing>() == 32);

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

/// A native AIO context with `depth` slots, each owning one buffer.
pub struct Aio {
    ctx: libc::c_ulong,
    bufs: ManuallyDrop<SlotBuffers>,
    iocbs: Box<[Iocb]>,
    /// Slots pushed, not yet submitted, in order (from `queue_start`).
    queue: Vec<u32>,
    queue_start: usize,
    /// The iocb pointers handed to io_submit, built from `queue` at each submission.
    ptrs: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    /// Submissions the kernel refused (`io_submit` error on that iocb), delivered as completions.
    refused: Vec<Completion>,
    busy: Box<[bool]>,
    fds: Box<[RawFd]>,
    depth: u32,
    /// Submitted (or refused) and not yet reaped.
    in_kernel: u32,
    userspace_reap: bool,
}

// SAFETY: the raw pointers (iocbs in `queue`, buffers, the context's ring) point into memory this
// value owns or that the kernel keeps mapped until io_destroy in Drop; AIO contexts are not bound to
// a thread.
unsafe impl Send for Aio {}

impl Aio {
    /// `io_setup(depth)` for `bufs.count()` slots and the files `fds` (kept open by the caller).
    pub fn new(bufs: SlotBuffers, fds: Vec<RawFd>, userspace_reap: bool) -> io::Result<Aio> {
        let depth = u32::try_from(bufs.count()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        if depth == 0 {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the context id through the pointer, valid for the call.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx as *mut libc::c_ulong) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Aio {
            ctx,
            iocbs: vec![Iocb::default(); depth as usize].into_boxed_slice(),
            queue: Vec::with_capacity(depth as usize),
            queue_start: 0,
            ptrs: Vec::with_capacity(depth as usize),
            events: vec![IoEvent::default(); depth as usize],
            refused: Vec::new(),
            busy: vec![false; depth as usize].into_boxed_slice(),
            bufs: ManuallyDrop::new(bufs),
            fds: fds.into_boxed_slice(),
            depth,
            in_kernel: 0,
            userspace_reap,
        })
    }

    /// Use the files `fds` (kept open by the caller) in place of those given before, with
    /// nothing pushed or in flight.
    pub fn replace_fds(&mut self, fds: Vec<RawFd>) {
        self.fds = fds.into_boxed_slice();
    }

    /// Pushed and not yet submitted.
    pub fn pending(&self) -> u32 {
        (self.queue.len() - self.queue_start) as u32
    }

    /// The buffer of slot `tag`, unless the slot is busy (or does not exist).
    #[inline]
    pub fn buffer_mut(&mut self, tag: usize) -> Option<&mut [u8]> {
        free_slot_buffer(&self.busy, &mut self.bufs, tag)
    }

    /// Whether slot `tag` can take an I/O now.
    #[inline]
    pub fn claim(&self, tag: usize) -> Result<(), PushError> {
        claim_slot(&self.busy, tag, self.pending() + self.in_kernel, self.depth)
    }

    /// Queue a read or write of `len` bytes of slot `tag` at `offset` of file `file` (an index in
    /// the file table; checked by the caller), with `RWF_*` flags.
    #[inline]
    pub fn push_rw(
        &mut self,
        tag: usize,
        rw: Rw,
        file: usize,
        offset: u64,
        len: u32,
        rw_flags: i32,
    ) -> Result<(), PushError> {
        self.claim(tag)?;
        if len as usize > self.bufs.size() {
            return Err(PushError::TooLong);
        }
        let Ok(offset) = i64::try_from(offset) else { return Err(PushError::TooLong) };
        self.iocbs[tag] = Iocb {
            aio_data: tag as u64,
            aio_rw_flags: rw_flags,
            aio_lio_opcode: match rw {
                Rw::Read => IOCB_CMD_PREAD,
                Rw::Write => IOCB_CMD_PWRITE,
            },
            aio_fildes: self.fds[file] as u32,
            aio_buf: self.bufs.slot_ptr(tag) as u64,
            aio_nbytes: u64::from(len),
            aio_offset: offset,
            ..Iocb::default()
        };
        if self.queue_start == self.queue.len() {
            self.queue.clear();
            self.queue_start = 0;
        }
        self.queue.push(tag as u32);
        self.busy[tag] = true;
        Ok(())
    }

    /// Give the I/O just pushed on slot `tag` the priority `ioprio` (class << 13 | level):
    /// `aio_reqprio` with `IOCB_FLAG_IOPRIO`, as fio's `cmdprio*` options set it.
    pub fn set_ioprio(&mut self, tag: usize, ioprio: u16) {
        if let Some(cb) = self.iocbs.get_mut(tag) {
            cb.aio_reqprio = ioprio as i16;
            cb.aio_flags |= IOCB_FLAG_IOPRIO;
        }
    }

    /// `io_submit` every pushed I/O; returns how many the kernel took. An iocb the kernel refuses
    /// completes with its `-errno`; `EAGAIN` stops early (reap, then submit again); `EINTR` is
    /// retried.
    pub fn submit(&mut self) -> io::Result<usize> {
        let mut sent = 0;
        while self.queue_start < self.queue.len() {
            let base = self.iocbs.as_mut_ptr();
            self.ptrs.clear();
            self.ptrs.extend(self.queue[self.queue_start..].iter().map(|&t| base.wrapping_add(t as usize)));
            // SAFETY: every pointer points to the iocb of a busy slot (in self.iocbs) describing
            // that slot's buffer; the iocbs and buffers stay alive and untouched until the event is
            // reaped or io_destroy has run.
            let r = unsafe {
                libc::syscall(libc::SYS_io_submit, self.ctx, self.ptrs.len() as libc::c_long, self.ptrs.as_ptr())
            };
            if r > 0 {
                self.queue_start += r as usize;
                self.in_kernel += r as u32;
                sent += r as usize;
                continue;
            }
            let err = if r == 0 { io::Error::from_raw_os_error(libc::EAGAIN) } else { io::Error::last_os_error() };
            match err.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) => break,
                errno => {
                    // The first iocb is bad (EBADF, EINVAL…): it completes with that error.
                    let tag = self.queue[self.queue_start];
                    self.queue_start += 1;
                    self.in_kernel += 1;
                    self.refused.push(Completion::new(tag, -errno.unwrap_or(libc::EIO)));
                }
            }
        }
        Ok(sent)
    }

    fn complete(&mut self, ev: IoEvent, out: &mut Vec<Completion>) {
        let tag = ev.data as usize;
        if let Some(b) = self.busy.get_mut(tag) {
            *b = false;
        }
        self.in_kernel -= 1;
        out.push(Completion::new(tag as u32, ev.res as i32));
    }

    /// Take completions from the ring mapped at the context address, without a system call, at
    /// most `max`.
    fn user_reap(&mut self, max: usize, out: &mut Vec<Completion>) -> Option<usize> {
        let ring = self.ctx as *mut AioRing;
        // SAFETY: the kernel maps a struct aio_ring at the context address for the life of the
        // context; the header fields read here are only written by io_setup.
        let (magic, incompat, nr, hdr) =
            unsafe { ((*ring).magic, (*ring).incompat_features, (*ring).nr, (*ring).header_length) };
        if magic != AIO_RING_MAGIC || incompat != 0 || nr == 0 || hdr as usize != size_of::<AioRing>() {
            return None;
        }
        // SAFETY: head and tail are naturally aligned u32 in that mapping, shared with the kernel,
        // which publishes tail after writing the event (Release) and reads head (Acquire) to
        // reuse slots; we mirror that with atomics.
        let (head, tail) =
            unsafe { (AtomicU32::from_ptr(&raw mut (*ring).head), AtomicU32::from_ptr(&raw mut (*ring).tail)) };
        let mut n = 0;
        let mut h = head.load(Ordering::Relaxed);
        while n < max && h != tail.load(Ordering::Acquire) && h < nr {
            // SAFETY: events[0..nr] follow the header in the mapping; h < nr.
            let ev = unsafe { ring.cast::<u8>().add(hdr as usize).cast::<IoEvent>().add(h as usize).read_volatile() };
            h = (h + 1) % nr;
            head.store(h, Ordering::Release);
            self.complete(ev, out);
            n += 1;
        }
        Some(n)
    }

    /// Reap completions into `out` until at least `min` were taken (at most the number
    /// outstanding), and at most `max` (at least `min`); with `min == 0` takes what is ready.
    /// Returns how many were taken.
    pub fn getevents(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let min = min.min(self.in_kernel as usize);
        let limit = max.max(min).max(1);
        let mut got = 0;
        let k = self.refused.len().min(limit);
        let refused: Vec<Completion> = self.refused.drain(..k).collect();
        for c in refused {
            if let Some(b) = self.busy.get_mut(c.tag as usize) {
                *b = false;
            }
            self.in_kernel -= 1;
            out.push(c);
            got += 1;
        }
        if min == 0
            && self.userspace_reap
            && let Some(n) = self.user_reap(limit - got, out)
        {
            return Ok(got + n);
        }
        loop {
            let want = min.saturating_sub(got);
            let max = (self.in_kernel as usize).min(limit - got);
            if max == 0 || (want == 0 && got > 0) {
                return Ok(got);
            }
            // SAFETY: events has room for `depth` >= in_kernel io_event; a NULL timeout waits for
            // `want` events (none when want is 0).
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    want as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            for i in 0..r as usize {
                let ev = self.events[i];
                self.complete(ev, out);
            }
            got += r as usize;
            if got >= min {
                return Ok(got);
            }
        }
    }
}

impl Drop for Aio {
    fn drop(&mut self) {
        // SAFETY: io_destroy cancels or waits for every outstanding iocb of the context, then unmaps
        // its ring; the context is not used afterwards.
        let r = unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
        if r == 0 {
            // SAFETY: nothing the kernel was given is in flight any more; dropped once.
            unsafe { ManuallyDrop::drop(&mut self.bufs) };
        }
        // Otherwise the buffers are leaked: the kernel might still write into them.
    }
}
