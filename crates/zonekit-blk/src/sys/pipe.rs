//! A pipe and the calls that move data through it without copying it in user space (`splice`,
//! `vmsplice`), for the `splice` engine.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

fn count(r: isize) -> io::Result<usize> {
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(r as usize) }
}

/// `pipe2(O_CLOEXEC)`: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded: both descriptors are new and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `splice(file, &offset, pipe, NULL, len, flags)`: file bytes at `*offset` into the pipe;
/// `offset` advances by the count.
pub fn splice_from_file(file: BorrowedFd<'_>, offset: &mut u64, pipe: BorrowedFd<'_>, len: usize) -> io::Result<usize> {
    let mut off = libc::loff_t::try_from(*offset).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: plain descriptors and a pointer to a local offset the call updates.
    let n = count(unsafe { libc::splice(file.as_raw_fd(), &mut off, pipe.as_raw_fd(), std::ptr::null_mut(), len, 0) })?;
    *offset = off as u64;
    Ok(n)
}

/// `splice(pipe, NULL, file, &offset, len, 0)`: pipe bytes into the file at `*offset`.
pub fn splice_to_file(pipe: BorrowedFd<'_>, file: BorrowedFd<'_>, offset: &mut u64, len: usize) -> io::Result<usize> {
    let mut off = libc::loff_t::try_from(*offset).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: as in `splice_from_file`.
    let n = count(unsafe { libc::splice(pipe.as_raw_fd(), std::ptr::null_mut(), file.as_raw_fd(), &mut off, len, 0) })?;
    *offset = off as u64;
    Ok(n)
}

/// `vmsplice(pipe, [buf], 1, SPLICE_F_NONBLOCK)`: as much of `buf` as the pipe takes now.
pub fn vmsplice_in(pipe: BorrowedFd<'_>, buf: &[u8]) -> io::Result<usize> {
    let iov = libc::iovec { iov_base: buf.as_ptr() as *mut libc::c_void, iov_len: buf.len() };
    // SAFETY: one iovec over `buf`, which outlives the call; without SPLICE_F_GIFT the kernel
    // copies (or references until read) the bytes, and the caller drains the pipe before `buf`
    // is reused.
    count(unsafe { libc::vmsplice(pipe.as_raw_fd(), &iov, 1, libc::SPLICE_F_NONBLOCK) })
}

/// `read(pipe, buf)`.
pub fn read(pipe: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: `buf` is valid for `len` bytes of writing.
    count(unsafe { libc::read(pipe.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) })
}
