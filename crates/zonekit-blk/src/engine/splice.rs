//! fio's `splice` engine, one I/O at a time through a pipe of its own: a read splices the file's
//! bytes into the pipe (64 KiB at a time) and reads them out into the slot's buffer; a write
//! `vmsplice`s the buffer into the pipe and splices it from there into the file. Syncs and trims
//! are the usual ones.
//!
//! fio's read path `vmsplice`s out of the pipe into a fresh anonymous map when it can (so the
//! bytes never reach its buffer) and loops forever at the end of a file; here the bytes land in
//! the slot's buffer, and a read at the end of the file is short, as with `pread`.

use std::io;
use std::os::fd::{AsFd, OwnedFd};

use super::{Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, Queued, Target, check_len, inline_op};
use crate::sys;
use crate::sys::pipe;

/// The most one splice moves (fio's `SPLICE_DEF_SIZE`, a pipe's default capacity).
const CHUNK: usize = 64 * 1024;

pub(crate) struct SpliceEngine {
    files: Vec<Target>,
    bufs: sys::buf::SlotBuffers,
    pipe_r: OwnedFd,
    pipe_w: OwnedFd,
}

impl SpliceEngine {
    pub fn new(mut config: EngineConfig) -> Result<SpliceEngine, EngineError> {
        let common = Common::new("splice", &mut config)?;
        let (pipe_r, pipe_w) = pipe::pipe().map_err(|source| EngineError::Setup { engine: "splice", source })?;
        Ok(SpliceEngine { files: common.files, bufs: common.bufs, pipe_r, pipe_w })
    }

    fn read(&mut self, io: &Io) -> io::Result<usize> {
        let t = &self.files[io.file as usize];
        let buf = &mut self.bufs.get_mut(io.tag as usize).expect("slot checked")[..io.len as usize];
        let mut offset = io.offset;
        let mut done = 0;
        while done < buf.len() {
            let want = (buf.len() - done).min(CHUNK);
            let n = match pipe::splice_from_file(t.fd(), &mut offset, self.pipe_w.as_fd(), want) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::ENODATA | libc::EINTR)) => continue,
                Err(e) => return Err(e),
            };
            let end = done + n;
            while done < end {
                match pipe::read(self.pipe_r.as_fd(), &mut buf[done..end]) {
                    Ok(0) => return Err(io::Error::from_raw_os_error(libc::ENODATA)),
                    Ok(k) => done += k,
                    Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(done)
    }

    fn write(&mut self, io: &Io) -> io::Result<usize> {
        let t = &self.files[io.file as usize];
        let buf = &self.bufs.get_mut(io.tag as usize).expect("slot checked")[..io.len as usize];
        let mut offset = io.offset;
        let mut done = 0;
        while done < buf.len() {
            let n = match pipe::vmsplice_in(self.pipe_w.as_fd(), &buf[done..]) {
                Ok(n) => n,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e),
            };
            let mut left = n;
            while left > 0 {
                match pipe::splice_to_file(self.pipe_r.as_fd(), t.fd(), &mut offset, left) {
                    Ok(0) => return Err(io::Error::from_raw_os_error(libc::EIO)),
                    Ok(k) => left -= k,
                    Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                    Err(e) => {
                        // Empty the pipe, so that the next I/O does not find these bytes.
                        self.drain();
                        return Err(e);
                    }
                }
            }
            done += n;
        }
        Ok(done)
    }

    fn drain(&mut self) {
        let mut scratch = [0u8; 4096];
        let _ = rustix::fs::fcntl_setfl(&self.pipe_r, rustix::fs::OFlags::NONBLOCK);
        while matches!(pipe::read(self.pipe_r.as_fd(), &mut scratch), Ok(n) if n > 0) {}
        let _ = rustix::fs::fcntl_setfl(&self.pipe_r, rustix::fs::OFlags::empty());
    }
}

impl Engine for SpliceEngine {
    fn name(&self) -> &'static str {
        "splice"
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn reopen_files(&mut self, files: Vec<OwnedFd>) -> Result<(), EngineError> {
        self.files = super::targets("splice", files)?;
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    fn queue(&mut self, io: &Io) -> Queued {
        let Some(t) = self.files.get(io.file as usize) else { return Queued::Completed(-libc::EBADF) };
        Queued::Completed(match io.ddir {
            Ddir::Read | Ddir::Write => {
                if let Err(e) = check_len(&self.bufs, io) {
                    return Queued::Completed(e);
                }
                let r = if io.ddir == Ddir::Read { self.read(io) } else { self.write(io) };
                super::io_result(r)
            }
            _ => inline_op(t, io),
        })
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }
}
