//! Reads and writes as a block device file takes them: cut at the device end (`blkdev_write_iter`,
//! `blkdev_read_iter` in `block/fops.c`), checked for alignment (`blkdev_dio_invalid`: direct I/O
//! in whole logical blocks), then split into device commands at zone boundaries (`chunk_sectors`)
//! and at `max_sectors` (`bio_split_to_limits` and `get_max_io_size` in `block/blk-merge.c`).
//! Each piece reaches the device on its own, so a write that crosses into the next zone is two
//! writes, each checked by the device against its own zone.

use super::limits::QueueLimits;
use zonekit_core::{Errno, SECTOR_SIZE};

/// Why a read or write is refused before any command is issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// A write at or past the device end (`ENOSPC`).
    #[error("at or past the end of the device ({capacity} bytes)")]
    NoSpace {
        /// Byte offset of the write.
        offset: u64,
        /// Device capacity in bytes.
        capacity: u64,
    },
    /// Offset or length not a multiple of the logical block size (`EINVAL`).
    #[error("{len} bytes at byte {offset}: not aligned to the {lbs}-byte logical block size")]
    Unaligned {
        /// Byte offset.
        offset: u64,
        /// Byte length (after the cut at the device end).
        len: u64,
        /// Logical block size in bytes.
        lbs: u32,
    },
    /// An offset whose end does not fit a file offset (`EINVAL`, as for a negative `loff_t`).
    #[error("{len} bytes at byte {offset}: beyond any file offset")]
    Overflow {
        /// Byte offset.
        offset: u64,
        /// Byte length.
        len: u64,
    },
}

impl SplitError {
    /// The errno the system call returns.
    pub fn errno(&self) -> Errno {
        match self {
            SplitError::NoSpace { .. } => Errno::ENOSPC,
            SplitError::Unaligned { .. } | SplitError::Overflow { .. } => Errno::EINVAL,
        }
    }
}

/// What is left of a read or write after the cut at the device end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    /// First sector.
    pub sector: u64,
    /// Bytes transferred (0 for a read at or past the end, or an empty request).
    pub bytes: u64,
}

impl Cut {
    /// Sectors transferred.
    pub fn sectors(&self) -> u64 {
        self.bytes / SECTOR_SIZE
    }
}

/// One device command of a split request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// First sector.
    pub sector: u64,
    /// Sectors.
    pub sectors: u64,
    /// Where its data starts in the request's buffer, in bytes.
    pub buf_offset: usize,
}

impl Piece {
    /// Its data's byte range in the request's buffer.
    pub fn buf_range(&self) -> std::ops::Range<usize> {
        self.buf_offset..self.buf_offset + (self.sectors * SECTOR_SIZE) as usize
    }
}

fn check(limits: &QueueLimits, offset: u64, len: u64) -> Result<(), SplitError> {
    let lbs = u64::from(limits.logical_block_size);
    if !offset.is_multiple_of(lbs) || !len.is_multiple_of(lbs) {
        return Err(SplitError::Unaligned { offset, len, lbs: limits.logical_block_size });
    }
    Ok(())
}

fn end_fits(offset: u64, len: u64) -> Result<(), SplitError> {
    match offset.checked_add(len) {
        Some(end) if end <= i64::MAX as u64 => Ok(()),
        _ => Err(SplitError::Overflow { offset, len }),
    }
}

/// A write of `len` bytes at byte `offset`, as `blkdev_write_iter` takes it: an empty write is
/// 0 bytes; one at or past the end is `ENOSPC`; one running past the end is cut there (a short
/// write); then the rest must be in whole logical blocks (`EINVAL`).
pub fn cut_write(limits: &QueueLimits, offset: u64, len: u64) -> Result<Cut, SplitError> {
    end_fits(offset, len)?;
    if len == 0 {
        return Ok(Cut { sector: offset / SECTOR_SIZE, bytes: 0 });
    }
    let size = limits.capacity * SECTOR_SIZE;
    if offset >= size {
        return Err(SplitError::NoSpace { offset, capacity: size });
    }
    let bytes = len.min(size - offset);
    check(limits, offset, bytes)?;
    Ok(Cut { sector: offset / SECTOR_SIZE, bytes })
}

/// A read of `len` bytes at byte `offset`, as `blkdev_read_iter` takes it: at or past the end it
/// reads nothing (0 bytes, no error); running past the end it is cut there (a short read); what
/// is left must be in whole logical blocks (`EINVAL`).
pub fn cut_read(limits: &QueueLimits, offset: u64, len: u64) -> Result<Cut, SplitError> {
    end_fits(offset, len)?;
    let size = limits.capacity * SECTOR_SIZE;
    let bytes = if offset >= size { 0 } else { len.min(size - offset) };
    if bytes == 0 {
        return Ok(Cut { sector: offset / SECTOR_SIZE, bytes: 0 });
    }
    check(limits, offset, bytes)?;
    Ok(Cut { sector: offset / SECTOR_SIZE, bytes })
}

/// The largest command that may start at `sector` (`get_max_io_size`): `max_sectors`, no further
/// than the next multiple of `chunk_sectors`, and ending on a physical block boundary when that
/// leaves something (else on a logical one).
pub fn max_io_sectors(limits: &QueueLimits, sector: u64) -> u64 {
    let (pbs, lbs) = (limits.pbs_sectors().max(1), limits.lbs_sectors().max(1));
    let mut max = limits.max_sectors();
    if limits.chunk_sectors > 0 {
        max = max.min(limits.chunk_sectors - sector % limits.chunk_sectors);
    }
    let start = sector & (pbs - 1);
    let end = (start + max) & !(pbs - 1);
    let n = if end > start { end - start } else { max & !(lbs - 1) };
    // Only reachable with limits that break their invariants; never loop forever.
    n.max(lbs)
}

/// The device commands of a request of `sectors` at `sector`, in order (`bio_split_to_limits`).
pub fn pieces(limits: &QueueLimits, sector: u64, sectors: u64) -> Pieces<'_> {
    Pieces { limits, sector, left: sectors, buf_offset: 0 }
}

/// Iterator over the pieces of a request; see [`pieces`].
#[derive(Debug, Clone)]
pub struct Pieces<'a> {
    limits: &'a QueueLimits,
    sector: u64,
    left: u64,
    buf_offset: usize,
}

impl Iterator for Pieces<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        if self.left == 0 {
            return None;
        }
        let n = max_io_sectors(self.limits, self.sector).min(self.left);
        let p = Piece { sector: self.sector, sectors: n, buf_offset: self.buf_offset };
        self.sector += n;
        self.left -= n;
        self.buf_offset += (n * SECTOR_SIZE) as usize;
        Some(p)
    }
}

/// The errno of a split request some of whose pieces failed (`failed`: piece index and errno, in
/// the order the pieces completed; `nr_pieces`: how many there were), or `None` if none failed.
///
/// Each piece split off a bio is chained to what remains of it (`bio_chain` in `bio_split`), and
/// the last piece is the original bio: a chained piece's error is kept by its parent only when the
/// parent has none yet (`__bio_chain_endio`), while the parent's own failure, whenever it comes,
/// overwrites it (`blk_update_request`, `bio_io_error`). The request fails with the last piece's
/// errno if that piece failed, else with the errno of the piece that failed first. Pieces that
/// complete in order (reads, or writes of one zone) give the first failing piece's.
pub fn split_errno(failed: &[(usize, Errno)], nr_pieces: usize) -> Option<Errno> {
    match failed.iter().find(|&&(i, _)| i + 1 == nr_pieces) {
        Some(&(_, e)) => Some(e),
        None => failed.first().map(|&(_, e)| e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zoned::limits::ZoneAppendMode;

    fn limits(lbs: u32, pbs: u32, chunk: u64, max_kb: u32) -> QueueLimits {
        QueueLimits {
            zoned: "host-managed".into(),
            capacity: chunk * 4,
            logical_block_size: lbs,
            physical_block_size: pbs,
            chunk_sectors: chunk,
            nr_zones: 4,
            max_open_zones: 0,
            max_active_zones: 0,
            zone_append: ZoneAppendMode::Native,
            zone_append_max_bytes: 0,
            zone_write_granularity: lbs,
            max_sectors_kb: max_kb,
            max_sectors: u64::from(max_kb) * 2,
            zoned_qd1_writes: false,
        }
    }

    #[test]
    fn pieces_cover_the_request_in_order() {
        let l = limits(512, 4096, 2048, 64);
        for (sector, n) in [(0, 8192), (1, 3000), (2040, 17), (7, 1)] {
            let ps: Vec<Piece> = pieces(&l, sector, n).collect();
            assert_eq!(ps.iter().map(|p| p.sectors).sum::<u64>(), n);
            let mut s = sector;
            for p in &ps {
                assert_eq!(p.sector, s);
                assert_eq!(p.buf_offset as u64, (s - sector) * 512);
                assert!(p.sectors <= 128, "max_sectors");
                assert_eq!(p.sector / 2048, (p.sector + p.sectors - 1) / 2048, "no zone crossing");
                s += p.sectors;
            }
        }
        // Starting off a physical block, a piece ends on one.
        assert_eq!(max_io_sectors(&l, 1), 127);
        assert_eq!(max_io_sectors(&l, 2047), 1);
    }

    #[test]
    fn errno_of_split_failures() {
        let (a, b) = (Errno::EIO, Errno::EREMOTEIO);
        assert_eq!(split_errno(&[], 3), None);
        assert_eq!(split_errno(&[(0, a), (1, b)], 3), Some(a));
        assert_eq!(split_errno(&[(0, a), (2, b)], 3), Some(b));
        assert_eq!(split_errno(&[(1, b)], 2), Some(b));
        // In completion order: the last piece failed first, a piece before it later.
        assert_eq!(split_errno(&[(2, b), (0, a)], 3), Some(b));
        assert_eq!(split_errno(&[(1, b), (0, a)], 3), Some(b));
    }
}
