//! POSIX AIO as the C library has it (`aio_read`, `aio_write`, `aio_fsync`, `aio_error`,
//! `aio_return`, `aio_suspend`; glibc serves them with a pool of threads making ordinary system
//! calls): one control block per slot, owned here with the slot buffers, so that a buffer or
//! control block the library may still touch is never handed out or freed.

use std::io;
use std::os::fd::RawFd;

use super::buf::SlotBuffers;
use super::slots::{PushError, Rw, free_slot_buffer};
use crate::request::Completion;

/// How many unfinished requests one `aio_suspend` waits on (as fio's engine: a few are enough to
/// be woken by the first that ends).
const SUSPEND_ENTRIES: usize = 8;

/// POSIX AIO requests, one per slot.
pub struct PosixAio {
    bufs: SlotBuffers,
    /// One control block per slot, at a fixed address (the library keeps a pointer to it).
    cbs: Box<[libc::aiocb]>,
    busy: Vec<bool>,
    fds: Vec<RawFd>,
    /// Requests handed to the library and not yet reaped.
    in_flight: usize,
}

// SAFETY: the control blocks and buffers are reached only through `&mut self` (and by the C
// library's own threads, whatever thread owns this value); nothing here is tied to a thread.
unsafe impl Send for PosixAio {}

impl PosixAio {
    /// Slots over `bufs`, for the files `fds` (which must outlive this value).
    pub fn new(bufs: SlotBuffers, fds: Vec<RawFd>) -> PosixAio {
        let n = bufs.count();
        // SAFETY: `aiocb` is a plain C struct for which all-zero bytes are a valid (idle) value.
        let cbs = (0..n).map(|_| unsafe { std::mem::zeroed::<libc::aiocb>() }).collect();
        PosixAio { bufs, cbs, busy: vec![false; n], fds, in_flight: 0 }
    }

    /// Use the files `fds` (which must outlive this value, or be replaced again) in place of
    /// those given before, with nothing in flight.
    pub fn replace_fds(&mut self, fds: Vec<RawFd>) {
        self.fds = fds;
    }

    /// Requests handed to the library and not yet reaped.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// The buffer of slot `tag`, unless its request is in flight.
    pub fn buffer_mut(&mut self, tag: usize) -> Option<&mut [u8]> {
        free_slot_buffer(&self.busy, &mut self.bufs, tag)
    }

    /// Whether slot `tag` can take a request now.
    pub fn claim(&self, tag: usize) -> Result<(), PushError> {
        match self.busy.get(tag) {
            None => Err(PushError::BadSlot),
            Some(true) => Err(PushError::Busy),
            Some(false) => Ok(()),
        }
    }

    fn prepare(&mut self, tag: usize, file: usize) -> Result<&mut libc::aiocb, PushError> {
        self.claim(tag)?;
        let fd = *self.fds.get(file).ok_or(PushError::BadSlot)?;
        let cb = &mut self.cbs[tag];
        // SAFETY: all-zero bytes are a valid idle control block (see `new`); the slot is idle.
        *cb = unsafe { std::mem::zeroed() };
        cb.aio_fildes = fd;
        cb.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        Ok(cb)
    }

    /// Start a read or write of `len` bytes at `offset` of file `file` with slot `tag`'s buffer:
    /// `Ok(Ok(()))` when the library took it, `Ok(Err(errno))` when it refused it (`EAGAIN`: out
    /// of resources for now).
    pub fn start_rw(
        &mut self,
        tag: usize,
        rw: Rw,
        file: usize,
        offset: u64,
        len: u32,
    ) -> Result<Result<(), i32>, PushError> {
        if len as usize > self.bufs.size() {
            return Err(PushError::TooLong);
        }
        let Ok(offset) = libc::off_t::try_from(offset) else { return Ok(Err(libc::EINVAL)) };
        self.claim(tag)?;
        let buf = self.bufs.slot_ptr(tag);
        let cb = self.prepare(tag, file)?;
        cb.aio_buf = buf.cast();
        cb.aio_nbytes = len as usize;
        cb.aio_offset = offset;
        let cb: *mut libc::aiocb = cb;
        // SAFETY: `cb` is this slot's control block, at a fixed address for as long as `self`
        // lives (Drop waits for every request in flight); its buffer is slot `tag`'s, `len <=
        // size` bytes inside the allocation, lent to nobody while the slot is busy.
        let r = unsafe {
            match rw {
                Rw::Read => libc::aio_read(cb),
                Rw::Write => libc::aio_write(cb),
            }
        };
        Ok(self.started(tag, r))
    }

    /// Start an `aio_fsync(O_SYNC)` of file `file` with slot `tag`.
    pub fn start_fsync(&mut self, tag: usize, file: usize) -> Result<Result<(), i32>, PushError> {
        let cb: *mut libc::aiocb = self.prepare(tag, file)?;
        // SAFETY: as in `start_rw`; a sync uses no buffer.
        let r = unsafe { libc::aio_fsync(libc::O_SYNC, cb) };
        Ok(self.started(tag, r))
    }

    fn started(&mut self, tag: usize, r: libc::c_int) -> Result<(), i32> {
        if r != 0 {
            return Err(io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO));
        }
        self.busy[tag] = true;
        self.in_flight += 1;
        Ok(())
    }

    /// Append every finished request to `out` (all of them, as fio's engine takes them), waiting
    /// until at least `min` (at most those in flight) have finished; returns how many.
    pub fn getevents(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let min = min.min(self.in_flight);
        let mut n = 0;
        loop {
            let mut waiting: Vec<*const libc::aiocb> = Vec::with_capacity(SUSPEND_ENTRIES);
            for tag in 0..self.busy.len() {
                if !self.busy[tag] {
                    continue;
                }
                let cb: *mut libc::aiocb = &mut self.cbs[tag];
                // SAFETY: the slot's request was started and not yet reaped: `cb` is its block.
                let err = unsafe { libc::aio_error(cb) };
                if err == libc::EINPROGRESS {
                    if waiting.len() < SUSPEND_ENTRIES {
                        waiting.push(cb);
                    }
                    continue;
                }
                // SAFETY: the request has finished (aio_error said so); aio_return is called once.
                let ret = unsafe { libc::aio_return(cb) };
                let result = match err {
                    0 => i32::try_from(ret).unwrap_or(i32::MAX),
                    // A cancelled request moved nothing.
                    libc::ECANCELED => 0,
                    e if e > 0 => -e,
                    _ => -io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO),
                };
                self.busy[tag] = false;
                self.in_flight -= 1;
                out.push(Completion::new(tag as u32, result));
                n += 1;
            }
            if n >= min || waiting.is_empty() {
                return Ok(n);
            }
            // SAFETY: `waiting` holds blocks of requests in flight, alive while `self` is.
            let r = unsafe { libc::aio_suspend(waiting.as_ptr(), waiting.len() as libc::c_int, std::ptr::null()) };
            if r != 0 {
                let e = io::Error::last_os_error();
                if !matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN)) {
                    return Err(e);
                }
            }
        }
    }
}

impl Drop for PosixAio {
    fn drop(&mut self) {
        // Cancel what can be, then wait for the rest: the library may still write into the
        // buffers and control blocks about to be freed.
        for tag in 0..self.busy.len() {
            if self.busy[tag] {
                let cb: *mut libc::aiocb = &mut self.cbs[tag];
                // SAFETY: a request in flight on this block.
                unsafe { libc::aio_cancel(self.cbs[tag].aio_fildes, cb) };
            }
        }
        let mut out = Vec::new();
        while self.in_flight > 0 {
            out.clear();
            if self.getevents(1, &mut out).is_err() {
                // aio_suspend failed: poll until every request has ended.
                std::thread::sleep(std::time::Duration::from_micros(100));
            }
        }
    }
}
