//! System calls that std does not wrap, one safe function each, named after the call.
//!
//! Each returns what the kernel says: a count, or the OS error (`io::Error::raw_os_error` is the
//! errno). Nothing is retried, split or hidden (an unaligned O_DIRECT transfer fails as it does).
//! They forward to `rustix`; the block-device ioctls that rustix has no wrapper for go through its
//! typed `ioctl` patterns, the only `unsafe` here.

use std::io::{self, IoSlice, IoSliceMut};
use std::num::NonZeroU64;
use std::os::fd::BorrowedFd;

use linux_raw_sys::ioctl::{BLKDISCARD, BLKFLSBUF, BLKGETSIZE64};
use rustix::fs::{Advice, FallocateFlags};
use rustix::io::ReadWriteFlags;
use rustix::ioctl::{Getter, NoArg, Opcode, Setter, ioctl};

/// A file offset or length as the kernel's signed `loff_t`: past its range is `EINVAL` (rustix
/// would pass it on as a negative number, which `preadv2` reads as "the file position").
fn off(offset: u64) -> io::Result<u64> {
    if i64::try_from(offset).is_ok() { Ok(offset) } else { Err(io::Error::from_raw_os_error(libc::EINVAL)) }
}

/// `preadv(fd, [buf], 1, offset)`.
pub fn preadv(fd: BorrowedFd<'_>, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    Ok(rustix::io::preadv(fd, &mut [IoSliceMut::new(buf)], off(offset)?)?)
}

/// `pwritev(fd, [buf], 1, offset)`.
pub fn pwritev(fd: BorrowedFd<'_>, buf: &[u8], offset: u64) -> io::Result<usize> {
    Ok(rustix::io::pwritev(fd, &[IoSlice::new(buf)], off(offset)?)?)
}

/// `preadv2(fd, [buf], 1, offset, flags)`.
pub fn preadv2(fd: BorrowedFd<'_>, buf: &mut [u8], offset: u64, flags: ReadWriteFlags) -> io::Result<usize> {
    Ok(rustix::io::preadv2(fd, &mut [IoSliceMut::new(buf)], off(offset)?, flags)?)
}

/// `pwritev2(fd, [buf], 1, offset, flags)`.
pub fn pwritev2(fd: BorrowedFd<'_>, buf: &[u8], offset: u64, flags: ReadWriteFlags) -> io::Result<usize> {
    Ok(rustix::io::pwritev2(fd, &[IoSlice::new(buf)], off(offset)?, flags)?)
}

/// `fallocate(fd, mode, offset, len)`.
pub fn fallocate(fd: BorrowedFd<'_>, mode: FallocateFlags, offset: u64, len: u64) -> io::Result<()> {
    Ok(rustix::fs::fallocate(fd, mode, off(offset)?, off(len)?)?)
}

/// `ftruncate(fd, len)`.
pub fn ftruncate(fd: BorrowedFd<'_>, len: u64) -> io::Result<()> {
    Ok(rustix::fs::ftruncate(fd, off(len)?)?)
}

/// `sync_file_range(fd, offset, nbytes, flags)` (`SYNC_FILE_RANGE_*` bits; 0 bytes reach the end
/// of the file).
pub fn sync_file_range(fd: BorrowedFd<'_>, offset: u64, nbytes: u64, flags: u32) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let (offset, nbytes) = (off(offset)? as i64, off(nbytes)? as i64);
    // SAFETY: the call takes plain integers; `fd` is a descriptor borrowed for the call.
    let r = unsafe { libc::sync_file_range(fd.as_raw_fd(), offset, nbytes, flags) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// `posix_fadvise(fd, offset, len, advice)` (a length of 0 reaches the end of the file).
pub fn posix_fadvise(fd: BorrowedFd<'_>, offset: u64, len: u64, advice: Advice) -> io::Result<()> {
    Ok(rustix::fs::fadvise(fd, off(offset)?, NonZeroU64::new(off(len)?), advice)?)
}

/// `fcntl(fd, F_SET_RW_HINT, &hint)` (`whole_file`: `F_SET_FILE_RW_HINT`, which Linux 5.17 and
/// later refuse with `EINVAL`): the write-life hint of the inode (or of the open file).
pub fn set_rw_hint(fd: BorrowedFd<'_>, hint: u64, whole_file: bool) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // <linux/fcntl.h>: F_LINUX_SPECIFIC_BASE + 12 and + 14.
    const F_SET_RW_HINT: libc::c_int = 1024 + 12;
    const F_SET_FILE_RW_HINT: libc::c_int = 1024 + 14;
    let cmd = if whole_file { F_SET_FILE_RW_HINT } else { F_SET_RW_HINT };
    // SAFETY: both commands read one `u64` through the pointer, which points at `hint` for the
    // call; `fd` is a descriptor borrowed for the call.
    let r = unsafe { libc::fcntl(fd.as_raw_fd(), cmd, &hint as *const u64) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// `ioctl(fd, BLKDISCARD, [offset, len])`: discard a byte range of a block device.
pub fn blkdiscard(fd: BorrowedFd<'_>, offset: u64, len: u64) -> io::Result<()> {
    // SAFETY: BLKDISCARD reads a `uint64_t[2]` (start, length) through its pointer argument,
    // which is what this Setter passes; the array lives for the call.
    let op = unsafe { Setter::<{ BLKDISCARD as Opcode }, [u64; 2]>::new([offset, len]) };
    // SAFETY: `op` pairs the request with the argument the kernel expects (above); `fd` is
    // borrowed for the call.
    Ok(unsafe { ioctl(fd, op) }?)
}

/// `ioctl(fd, BLKGETSIZE64)`: size of a block device in bytes.
pub fn blkgetsize64(fd: BorrowedFd<'_>) -> io::Result<u64> {
    // SAFETY: BLKGETSIZE64 writes one `u64` through its pointer argument, the Getter's output.
    let op = unsafe { Getter::<{ BLKGETSIZE64 as Opcode }, u64>::new() };
    // SAFETY: as above; `fd` is borrowed for the call.
    Ok(unsafe { ioctl(fd, op) }?)
}

/// `ioctl(fd, BLKSSZGET)`: logical block size of a block device.
pub fn blksszget(fd: BorrowedFd<'_>) -> io::Result<u32> {
    Ok(rustix::fs::ioctl_blksszget(fd)?)
}

/// `ioctl(fd, BLKFLSBUF)`: flush and drop a block device's buffer cache.
pub fn blkflsbuf(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: BLKFLSBUF takes no argument.
    let op = unsafe { NoArg::<{ BLKFLSBUF as Opcode }>::new() };
    // SAFETY: as above; `fd` is borrowed for the call.
    Ok(unsafe { ioctl(fd, op) }?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn calls_return_what_the_kernel_says() {
        // tmpfs, as the engine tests: it punches holes.
        let f = tempfile::tempfile_in("/dev/shm").unwrap();
        let fd = f.as_fd();
        assert_eq!(pwritev(fd, b"zonekit", 4096).unwrap(), 7);
        let mut buf = [0u8; 16];
        assert_eq!(preadv2(fd, &mut buf, 4096, ReadWriteFlags::empty()).unwrap(), 7);
        assert_eq!(&buf[..7], b"zonekit");
        assert_eq!(preadv(fd, &mut buf, 1 << 20).unwrap(), 0, "past the end: nothing");
        fallocate(fd, FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE, 4096, 4096).unwrap();
        assert_eq!(preadv(fd, &mut buf, 4096).unwrap(), 7);
        assert_eq!(&buf[..7], &[0; 7], "the hole reads as zeros");
        posix_fadvise(fd, 0, 0, Advice::DontNeed).unwrap();
        // Offsets past loff_t are refused, never read as "the file position".
        assert_eq!(
            preadv2(fd, &mut buf, u64::MAX, ReadWriteFlags::empty()).unwrap_err().raw_os_error(),
            Some(libc::EINVAL)
        );
        // A regular file is no block device.
        let enotty = Some(libc::ENOTTY);
        assert_eq!(blkgetsize64(fd).unwrap_err().raw_os_error(), enotty);
        assert_eq!(blksszget(fd).unwrap_err().raw_os_error(), enotty);
        assert_eq!(blkdiscard(fd, 0, 4096).unwrap_err().raw_os_error(), enotty);
        assert_eq!(blkflsbuf(fd).unwrap_err().raw_os_error(), enotty);
    }
}
