//! fio's synchronous engines (`psync`, `sync`, `pvsync`, `pvsync2`) and `vsync`, which merges
//! contiguous I/Os into one vectored call.

use std::io::{self, IoSlice, IoSliceMut, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;

use rustix::io::ReadWriteFlags;

use super::{
    Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, Pvsync2Options, Queued, Target, check_len,
    hand_back, inline_op, io_result, stamp,
};
use crate::clock::RealClock;
use crate::sys;

/// Which system calls a synchronous engine makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `pread`/`pwrite`.
    Psync,
    /// `lseek` + `read`/`write`.
    Sync,
    /// `preadv`/`pwritev`.
    Pvsync,
    /// `preadv2`/`pwritev2`, with its flags.
    Pvsync2(Pvsync2Options),
}

/// A synchronous engine: every I/O completes inside `queue`.
pub(crate) struct SyncEngine {
    kind: Kind,
    name: &'static str,
    files: Vec<Target>,
    bufs: sys::buf::SlotBuffers,
    /// `sync`: where each file's position is (`u64::MAX`: unknown), to skip needless `lseek`s.
    last_pos: Vec<u64>,
    /// `pvsync2`: `RWF_*` flags for every I/O, and `RWF_HIPRI` for `hipri_percentage` % of them.
    rw_flags: ReadWriteFlags,
    hipri_percentage: u32,
    rng: u64,
}

impl SyncEngine {
    pub fn new(kind: Kind, mut config: EngineConfig) -> Result<SyncEngine, EngineError> {
        let name = match kind {
            Kind::Psync => "psync",
            Kind::Sync => "sync",
            Kind::Pvsync => "pvsync",
            Kind::Pvsync2(_) => "pvsync2",
        };
        let (mut rw_flags, mut hipri_percentage) = (ReadWriteFlags::empty(), 0);
        if let Kind::Pvsync2(o) = kind {
            if o.hipri_percentage > 100 {
                let why = format!("RWF_HIPRI share of {} % is over 100 %", o.hipri_percentage);
                return Err(EngineError::Option { engine: name, why });
            }
            hipri_percentage = o.hipri_percentage;
            if o.nowait {
                rw_flags |= ReadWriteFlags::NOWAIT;
            }
            if o.uncached {
                // fio 3.33's RWF_UNCACHED, passed on as its value, whatever the kernel calls it.
                rw_flags |= ReadWriteFlags::from_bits_retain(0x40);
            }
        }
        let common = Common::new(name, &mut config)?;
        Ok(SyncEngine {
            kind,
            name,
            last_pos: vec![u64::MAX; common.files.len()],
            files: common.files,
            bufs: common.bufs,
            rw_flags,
            hipri_percentage,
            rng: 0x9E37_79B9_7F4A_7C15,
        })
    }

    fn flags(&mut self) -> ReadWriteFlags {
        if self.hipri_percentage == 0 {
            return self.rw_flags;
        }
        // xorshift64: which I/Os get RWF_HIPRI only needs to be roughly uniform.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let roll = (self.rng % 100) as u32 + 1;
        if roll <= self.hipri_percentage { self.rw_flags | ReadWriteFlags::HIPRI } else { self.rw_flags }
    }

    #[inline]
    fn transfer(&mut self, io: &Io) -> i32 {
        if let Err(e) = check_len(&self.bufs, io) {
            return e;
        }
        let flags = if matches!(self.kind, Kind::Pvsync2(_)) { self.flags() } else { ReadWriteFlags::empty() };
        let Some(t) = self.files.get(io.file as usize) else { return -libc::EBADF };
        let Some(slot) = self.bufs.get_mut(io.tag as usize) else { return -libc::EINVAL };
        let buf = &mut slot[..io.len as usize];
        let read = io.ddir == Ddir::Read;
        let r = match self.kind {
            Kind::Psync if read => t.file.read_at(buf, io.offset),
            Kind::Psync => t.file.write_at(buf, io.offset),
            Kind::Pvsync if read => sys::io::preadv(t.fd(), buf, io.offset),
            Kind::Pvsync => sys::io::pwritev(t.fd(), buf, io.offset),
            Kind::Pvsync2(_) if read => sys::io::preadv2(t.fd(), buf, io.offset, flags),
            Kind::Pvsync2(_) => sys::io::pwritev2(t.fd(), buf, io.offset, flags),
            Kind::Sync => {
                let pos = &mut self.last_pos[io.file as usize];
                if *pos != io.offset
                    && let Err(e) = (&t.file).seek(SeekFrom::Start(io.offset))
                {
                    *pos = u64::MAX;
                    return sys::neg_errno(&e);
                }
                let r = if read { (&t.file).read(buf) } else { (&t.file).write(buf) };
                *pos = match r {
                    Ok(n) => io.offset + n as u64,
                    Err(_) => u64::MAX,
                };
                r
            }
        };
        io_result(r)
    }
}

impl Engine for SyncEngine {
    fn name(&self) -> &'static str {
        self.name
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        self.files = super::targets(self.name, files)?;
        self.last_pos = vec![u64::MAX; self.files.len()];
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    #[inline]
    fn queue(&mut self, io: &Io) -> Queued {
        Queued::Completed(match io.ddir {
            Ddir::Read | Ddir::Write => self.transfer(io),
            _ => match self.files.get(io.file as usize) {
                None => -libc::EBADF,
                Some(t) => inline_op(t, io),
            },
        })
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }
}

/// fio's `vsync`: I/Os that continue each other (same file and direction, each starting where the
/// previous one ended) are queued, and `commit` sends them as one `lseek` + `readv`/`writev`. The
/// bytes transferred are dealt out to the I/Os in order, so a short transfer shortens the last
/// ones; an error fails them all.
pub(crate) struct Vsync {
    files: Vec<Target>,
    bufs: sys::buf::SlotBuffers,
    depth: usize,
    /// Queued I/Os of the current run: (tag, len).
    run: Vec<(u32, u32)>,
    run_file: u32,
    run_ddir: Ddir,
    run_start: u64,
    /// Where the current run ends (fio keeps it after a commit too).
    next_offset: u64,
    in_flight: Vec<bool>,
    events: Vec<Completion>,
    clock: RealClock,
}

impl Vsync {
    pub fn new(mut config: EngineConfig) -> Result<Vsync, EngineError> {
        let common = Common::new("vsync", &mut config)?;
        Ok(Vsync {
            files: common.files,
            depth: config.depth as usize,
            in_flight: vec![false; config.depth as usize],
            bufs: common.bufs,
            run: Vec::new(),
            run_file: u32::MAX,
            run_ddir: Ddir::Read,
            run_start: 0,
            next_offset: u64::MAX,
            events: Vec::new(),
            clock: config.clock,
        })
    }
}

impl Engine for Vsync {
    fn name(&self) -> &'static str {
        "vsync"
    }

    fn is_sync(&self) -> bool {
        false
    }

    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        self.files = super::targets("vsync", files)?;
        self.run.clear();
        self.run_file = u32::MAX;
        self.next_offset = u64::MAX;
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        super::idle_slot_buffer(&mut self.bufs, &self.in_flight, tag)
    }

    fn queue(&mut self, io: &Io) -> Queued {
        if self.files.get(io.file as usize).is_none() {
            return Queued::Completed(-libc::EBADF);
        }
        let rw = matches!(io.ddir, Ddir::Read | Ddir::Write);
        let appends = rw && io.offset == self.next_offset && io.file == self.run_file && io.ddir == self.run_ddir;
        if !appends && !self.run.is_empty() {
            return Queued::Busy;
        }
        if !rw {
            return Queued::Completed(inline_op(&self.files[io.file as usize], io));
        }
        if let Err(e) = check_len(&self.bufs, io) {
            return Queued::Completed(e);
        }
        if self.run.len() == self.depth || self.in_flight[io.tag as usize] {
            return Queued::Busy;
        }
        if self.run.is_empty() {
            self.run_start = io.offset;
        }
        self.run.push((io.tag, io.len));
        self.in_flight[io.tag as usize] = true;
        self.run_file = io.file;
        self.run_ddir = io.ddir;
        self.next_offset = io.offset + u64::from(io.len);
        Queued::Queued
    }

    fn commit(&mut self) -> io::Result<usize> {
        if self.run.is_empty() {
            return Ok(0);
        }
        let file = &self.files[self.run_file as usize].file;
        let result = match (&*file).seek(SeekFrom::Start(self.run_start)) {
            Err(e) => Err(e),
            Ok(_) => {
                let mut slots: Vec<Option<&mut [u8]>> = self.bufs.slots_mut().map(Some).collect();
                let mut parts: Vec<&mut [u8]> = Vec::with_capacity(self.run.len());
                for &(tag, len) in &self.run {
                    // Each queued slot is distinct (a slot in flight cannot be queued again).
                    if let Some(s) = slots[tag as usize].take() {
                        parts.push(&mut s[..len as usize]);
                    }
                }
                if self.run_ddir == Ddir::Read {
                    let mut iov: Vec<IoSliceMut<'_>> = parts.into_iter().map(IoSliceMut::new).collect();
                    (&*file).read_vectored(&mut iov)
                } else {
                    let iov: Vec<IoSlice<'_>> = parts.iter().map(|b| IoSlice::new(b)).collect();
                    (&*file).write_vectored(&iov)
                }
            }
        };
        let n = self.run.len();
        let mut left = result.as_ref().map(|&n| n as u64).unwrap_or(0);
        for &(tag, len) in &self.run {
            let r = match &result {
                Err(e) => sys::neg_errno(e),
                Ok(_) => {
                    let this = left.min(u64::from(len));
                    left -= this;
                    this as i32
                }
            };
            self.events.push(Completion::new(tag, r));
        }
        self.run.clear();
        Ok(n)
    }

    fn getevents(&mut self, min: usize, _max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let from = out.len();
        let n = hand_back(min, &mut self.events, &mut self.in_flight, out);
        stamp(out, from, &self.clock);
        Ok(n)
    }
}
