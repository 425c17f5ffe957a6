//! fio's `e4defrag` engine: each write is one `EXT4_IOC_MOVE_EXT` call that swaps the blocks
//! under the I/O's range of the job's file with those of a donor file, as ext4's online
//! defragmentation does; no data is read or written by the engine itself. One I/O at a time.
//!
//! As fio 3.33's `engines/e4defrag.c`:
//! - setup opens (creating, mode 0644) the donor file write-only; without `inplace` it
//!   preallocates the donor (`fallocate` mode 0) over the range it was given, and a failure there
//!   fails the engine's setup; the file-system block size is the donor's `st_blksize`;
//! - a write moves the blocks from `offset / bs` to `ceil((offset + len) / bs)`, the donor's
//!   blocks at the same place; with `inplace` the donor's range is allocated just before
//!   (`fallocate`) and the donor truncated to nothing just after;
//! - the I/O counts the bytes moved (at most its length): fewer is a short I/O, none `-EINVAL`
//!   (fio's "access beyond i_size"); a failed call is its errno (`ENOTTY` off ext4);
//! - anything but a write (reads, trims, syncs) fails with `-EINVAL`, since moving blocks changes
//!   the file's layout, which fio counts as writing.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::PathBuf;

use rustix::fs::FallocateFlags;

use super::{Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, Queued, Target, reset_zones};
use crate::sys;
use crate::sys::ext4::MoveExtent;

/// Settings of the `e4defrag` engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct E4defragOptions {
    /// The donor file (fio: `directory` + `/` + `donorname`), created if missing.
    pub donor: PathBuf,
    /// `inplace=1`: allocate the donor's blocks for each I/O and free them after it; else the
    /// donor is preallocated once over `prealloc`.
    pub inplace: bool,
    /// Without `inplace`: the donor's byte range preallocated at setup, `(offset, length)` (fio:
    /// from the job's `offset` to the upper bound of its `filesize`). A length of 0 or less fails
    /// the setup as the kernel fails it (`EINVAL`), as in fio.
    pub prealloc: (u64, i64),
}

pub(crate) struct E4defragEngine {
    files: Vec<Target>,
    bufs: sys::buf::SlotBuffers,
    donor: File,
    /// The file-system block size (the donor's `st_blksize`).
    block: u64,
    inplace: bool,
}

impl E4defragEngine {
    pub fn new(o: E4defragOptions, mut config: EngineConfig) -> Result<E4defragEngine, EngineError> {
        const NAME: &str = "e4defrag";
        let common = Common::new(NAME, &mut config)?;
        let setup = |what: String| {
            let donor = o.donor.clone();
            move |source: io::Error| EngineError::Donor { donor, what, source }
        };
        let donor = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .mode(0o644)
            .custom_flags(libc::O_CLOEXEC)
            .open(&o.donor)
            .map_err(setup("open".into()))?;
        if !o.inplace {
            let (offset, len) = o.prealloc;
            let what = format!("fallocate(offset {offset}, length {len})");
            // A negative length is past `loff_t`'s range: the kernel's EINVAL.
            let len = u64::try_from(len).unwrap_or(u64::MAX);
            sys::io::fallocate(donor.as_fd(), FallocateFlags::empty(), offset, len).map_err(setup(what))?;
        }
        let block = donor.metadata().map_err(setup("fstat".into()))?.blksize().max(1);
        Ok(E4defragEngine { files: common.files, bufs: common.bufs, donor, block, inplace: o.inplace })
    }

    /// One write: the blocks under `[offset, offset + len)` moved; bytes moved or `-errno`.
    fn defrag(&self, t: &Target, offset: u64, len: u32) -> i32 {
        let len64 = u64::from(len);
        if self.inplace
            && let Err(e) = sys::io::fallocate(self.donor.as_fd(), FallocateFlags::empty(), offset, len64)
        {
            return sys::neg_errno(&e);
        }
        let first = offset / self.block;
        let end = (offset + len64).div_ceil(self.block);
        let mut me = MoveExtent {
            donor_fd: self.donor.as_raw_fd() as u32,
            orig_start: first,
            donor_start: first,
            len: end - first,
            ..MoveExtent::default()
        };
        let r = sys::ext4::move_ext(t.fd(), &mut me);
        let moved = me.moved_len.saturating_mul(self.block).min(len64);
        let mut result = if moved == len64 || moved > 0 { moved as i32 } else { -libc::EINVAL };
        if let Err(e) = r {
            result = sys::neg_errno(&e);
        }
        if self.inplace
            && let Err(e) = sys::io::ftruncate(self.donor.as_fd(), 0)
            && result >= 0
        {
            result = sys::neg_errno(&e);
        }
        result
    }
}

impl Engine for E4defragEngine {
    fn name(&self) -> &'static str {
        "e4defrag"
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    fn queue(&mut self, io: &Io) -> Queued {
        let Some(t) = self.files.get(io.file as usize) else { return Queued::Completed(-libc::EBADF) };
        Queued::Completed(match io.ddir {
            Ddir::ZoneReset => reset_zones(t, io.offset, io.len),
            Ddir::Write => self.defrag(t, io.offset, io.len),
            _ => -libc::EINVAL,
        })
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }
}
