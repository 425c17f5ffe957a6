//! fio's `mmap` engine: reads and writes copy between the slot's buffer and a memory map of the
//! file, one I/O at a time.
//!
//! As fio's engine: each file is mapped on its first I/O, whole (the file's size, or the block
//! device's), or if that cannot be mapped, a window of 1 GiB shared among the files from the
//! I/O's offset; an I/O outside the map maps again. The map is shared (private with `thp`, whose
//! writes never reach the file, as in fio) and read-only unless the job writes. After mapping:
//! the access-pattern advice ([`MmapOptions::access`]) and `POSIX_MADV_DONTNEED`. A sync is an
//! `msync(MS_SYNC)` of the file's map (0 if nothing is mapped yet); a trim is the usual one;
//! with [`MmapOptions::direct`], every transfer is followed by `msync(MS_SYNC)` and
//! `POSIX_MADV_DONTNEED` of its pages. Past the end of the file (where touching the map would
//! raise SIGBUS) a transfer fails with `-EINVAL`.

use std::io;

use super::{
    Common, Completion, Ddir, Engine, EngineConfig, EngineError, FileKind, Io, MmapAccess, MmapOptions, Queued, Target,
    check_len, inline_op,
};
use crate::sys;
use crate::sys::mmap::{MapAdvice, Mapping};

/// The bytes one mapping may span when the whole file cannot be mapped (fio's `MMAP_TOTAL_SZ`,
/// shared among the files).
const TOTAL_WINDOW: u64 = 1 << 30;

pub(crate) struct MmapEngine {
    o: MmapOptions,
    files: Vec<Target>,
    maps: Vec<Option<Mapping>>,
    bufs: sys::buf::SlotBuffers,
}

impl MmapEngine {
    pub fn new(o: MmapOptions, mut config: EngineConfig) -> Result<MmapEngine, EngineError> {
        let common = Common::new("mmap", &mut config)?;
        Ok(MmapEngine { o, maps: common.files.iter().map(|_| None).collect(), files: common.files, bufs: common.bufs })
    }

    /// The file's size now (a block device's capacity).
    fn file_size(t: &Target) -> io::Result<u64> {
        match t.kind {
            FileKind::Block => sys::io::blkgetsize64(t.fd()),
            _ => Ok(t.file.metadata()?.len()),
        }
    }

    /// Map file `f` so that `len` bytes at `offset` are inside the map.
    fn map(&mut self, f: usize, offset: u64, len: usize) -> io::Result<()> {
        let t = &self.files[f];
        self.maps[f] = None;
        let size = Self::file_size(t)?;
        if offset.saturating_add(len as u64) > size {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let (writable, private) = (self.o.writable, self.o.thp);
        let whole = usize::try_from(size).ok().filter(|&n| n > 0);
        let m = match whole.map(|n| Mapping::new(t.fd(), 0, n, writable, private)) {
            Some(Ok(m)) => m,
            _ => {
                let window = (TOTAL_WINDOW / self.files.len().max(1) as u64).max(len as u64);
                let page = sys::buf::page_size() as u64;
                let start = offset & !(page - 1);
                let n = (window + (offset - start)).min(size - start);
                Mapping::new(t.fd(), start, n as usize, writable, private)?
            }
        };
        let pattern = match self.o.access {
            MmapAccess::Normal => None,
            MmapAccess::Sequential => Some(MapAdvice::Sequential),
            MmapAccess::Random => Some(MapAdvice::Random),
        };
        m.advise(pattern, self.o.thp)?;
        self.maps[f] = Some(m);
        Ok(())
    }

    fn transfer(&mut self, io: &Io) -> io::Result<()> {
        let f = io.file as usize;
        let len = io.len as usize;
        if !self.maps[f].as_ref().is_some_and(|m| m.covers(io.offset, len)) {
            self.map(f, io.offset, len)?;
        }
        let Some(m) = self.maps[f].as_mut() else { return Err(io::Error::from_raw_os_error(libc::EINVAL)) };
        let buf = &mut self.bufs.get_mut(io.tag as usize).expect("slot checked")[..len];
        if io.ddir == Ddir::Read {
            m.read(io.offset, buf)?;
        } else {
            if !self.o.writable {
                return Err(io::Error::from_raw_os_error(libc::EBADF));
            }
            m.write(io.offset, buf)?;
        }
        if self.o.direct {
            m.msync(io.offset, len)?;
            m.dontneed(io.offset, len)?;
        }
        Ok(())
    }
}

impl Engine for MmapEngine {
    fn name(&self) -> &'static str {
        "mmap"
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        let files = super::targets("mmap", files)?;
        self.maps = files.iter().map(|_| None).collect();
        self.files = files;
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    fn queue(&mut self, io: &Io) -> Queued {
        let Some(t) = self.files.get(io.file as usize) else { return Queued::Completed(-libc::EBADF) };
        Queued::Completed(match io.ddir {
            Ddir::Read | Ddir::Write => match check_len(&self.bufs, io) {
                Err(e) => e,
                Ok(()) => match self.transfer(io) {
                    Ok(()) => io.len as i32,
                    Err(e) => sys::neg_errno(&e),
                },
            },
            Ddir::Sync | Ddir::DataSync => match self.maps[io.file as usize].as_ref().map(Mapping::msync_all) {
                Some(Err(e)) => sys::neg_errno(&e),
                _ => 0,
            },
            Ddir::Trim | Ddir::SyncFileRange(_) | Ddir::ZoneReset => inline_op(t, io),
        })
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }
}
