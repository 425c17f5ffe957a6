//! System calls that std does not wrap, one safe function each, named after the call.
//!
//! Each returns what the kernel says: a count, or the OS error (`io::Error::raw_os_error` is the
//! errno). Nothing is retried, split or hidden (an unaligned O_DIRECT transfer fails as it does).

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

fn cvt(r: libc::ssize_t) -> io::Result<usize> {
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(r as usize) }
}

fn cvt_zero(r: libc::c_int) -> io::Result<()> {
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

fn off(offset: u64) -> io::Result<libc::off_t> {
    libc::off_t::try_from(offset).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

/// `preadv(fd, [buf], 1, offset)`.
pub fn preadv(fd: BorrowedFd<'_>, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    // SAFETY: one iovec describing `buf`, which is exclusively borrowed for the call.
    cvt(unsafe { libc::preadv(fd.as_raw_fd(), &iov, 1, off(offset)?) })
}

/// `pwritev(fd, [buf], 1, offset)`.
pub fn pwritev(fd: BorrowedFd<'_>, buf: &[u8], offset: u64) -> io::Result<usize> {
    let iov = libc::iovec { iov_base: buf.as_ptr() as *mut _, iov_len: buf.len() };
    // SAFETY: one iovec describing `buf`, borrowed for the call; the kernel only reads it.
    cvt(unsafe { libc::pwritev(fd.as_raw_fd(), &iov, 1, off(offset)?) })
}

/// `preadv2(fd, [buf], 1, offset, flags)` (`RWF_*` flags).
pub fn preadv2(fd: BorrowedFd<'_>, buf: &mut [u8], offset: u64, flags: i32) -> io::Result<usize> {
    let iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    // SAFETY: one iovec describing `buf`, which is exclusively borrowed for the call.
    cvt(unsafe { libc::preadv2(fd.as_raw_fd(), &iov, 1, off(offset)?, flags) })
}

/// `pwritev2(fd, [buf], 1, offset, flags)` (`RWF_*` flags).
pub fn pwritev2(fd: BorrowedFd<'_>, buf: &[u8], offset: u64, flags: i32) -> io::Result<usize> {
    let iov = libc::iovec { iov_base: buf.as_ptr() as *mut _, iov_len: buf.len() };
    // SAFETY: one iovec describing `buf`, borrowed for the call; the kernel only reads it.
    cvt(unsafe { libc::pwritev2(fd.as_raw_fd(), &iov, 1, off(offset)?, flags) })
}

/// `fallocate(fd, mode, offset, len)`.
pub fn fallocate(fd: BorrowedFd<'_>, mode: i32, offset: u64, len: u64) -> io::Result<()> {
    // SAFETY: no pointers; the fd is borrowed for the call.
    cvt_zero(unsafe { libc::fallocate(fd.as_raw_fd(), mode, off(offset)?, off(len)?) })
}

/// `posix_fadvise(fd, offset, len, advice)` (returns the error number instead of setting errno).
pub fn posix_fadvise(fd: BorrowedFd<'_>, offset: u64, len: u64, advice: i32) -> io::Result<()> {
    // SAFETY: no pointers; the fd is borrowed for the call.
    let r = unsafe { libc::posix_fadvise(fd.as_raw_fd(), off(offset)?, off(len)?, advice) };
    if r != 0 { Err(io::Error::from_raw_os_error(r)) } else { Ok(()) }
}

/// `ioctl(fd, BLKDISCARD, [offset, len])`: discard a byte range of a block device.
pub fn blkdiscard(fd: BorrowedFd<'_>, offset: u64, len: u64) -> io::Result<()> {
    let range: [u64; 2] = [offset, len];
    // SAFETY: BLKDISCARD reads two u64 (start, length) from the pointer, which is valid for the call.
    cvt_zero(unsafe { libc::ioctl(fd.as_raw_fd(), linux_raw_sys::ioctl::BLKDISCARD as _, range.as_ptr()) })
}

/// `ioctl(fd, BLKGETSIZE64)`: size of a block device in bytes.
pub fn blkgetsize64(fd: BorrowedFd<'_>) -> io::Result<u64> {
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which is valid for the call.
    cvt_zero(unsafe { libc::ioctl(fd.as_raw_fd(), linux_raw_sys::ioctl::BLKGETSIZE64 as _, &mut size) })?;
    Ok(size)
}

/// `ioctl(fd, BLKSSZGET)`: logical block size of a block device.
pub fn blksszget(fd: BorrowedFd<'_>) -> io::Result<u32> {
    let mut size: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer, which is valid for the call.
    cvt_zero(unsafe { libc::ioctl(fd.as_raw_fd(), linux_raw_sys::ioctl::BLKSSZGET as _, &mut size) })?;
    Ok(size as u32)
}

/// `ioctl(fd, BLKFLSBUF)`: flush and drop a block device's buffer cache.
pub fn blkflsbuf(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: BLKFLSBUF takes no argument.
    cvt_zero(unsafe { libc::ioctl(fd.as_raw_fd(), linux_raw_sys::ioctl::BLKFLSBUF as _, 0) })
}
