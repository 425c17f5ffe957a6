//! Memory maps of a file (`mmap`, `munmap`, `msync`, `posix_madvise`, `madvise`), for the `mmap`
//! engine: a [`Mapping`] copies to and from the mapped bytes through raw pointers (another
//! process may change the file under the map) and unmaps itself when dropped.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

/// A shared (or, for transparent huge pages, private) memory map of `len` bytes of a file from
/// byte `offset`.
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
    offset: u64,
}

// SAFETY: the map is reached only through `&self`/`&mut self` of its owner; nothing in it is tied
// to a thread.
unsafe impl Send for Mapping {}

/// Access pattern advice for a whole map (`posix_madvise`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapAdvice {
    /// `POSIX_MADV_SEQUENTIAL`.
    Sequential,
    /// `POSIX_MADV_RANDOM`.
    Random,
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// `posix_madvise` returns the error number instead of setting errno.
fn check_posix(r: libc::c_int) -> io::Result<()> {
    if r == 0 { Ok(()) } else { Err(io::Error::from_raw_os_error(r)) }
}

impl Mapping {
    /// `mmap(NULL, len, PROT_READ[|PROT_WRITE], MAP_SHARED or MAP_PRIVATE, fd, offset)`.
    /// `offset` must be a multiple of the page size and `len` above 0.
    pub fn new(fd: BorrowedFd<'_>, offset: u64, len: usize, writable: bool, private: bool) -> io::Result<Mapping> {
        let off = libc::off_t::try_from(offset).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        let prot = if writable { libc::PROT_READ | libc::PROT_WRITE } else { libc::PROT_READ };
        let flags = if private { libc::MAP_PRIVATE } else { libc::MAP_SHARED };
        // SAFETY: a new map at an address the kernel picks: no existing memory is touched.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, fd.as_raw_fd(), off) };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping { ptr: p.cast(), len, offset })
    }

    /// Whether `len` bytes at file offset `at` lie inside the map.
    pub fn covers(&self, at: u64, len: usize) -> bool {
        at >= self.offset && at.saturating_sub(self.offset).saturating_add(len as u64) <= self.len as u64
    }

    fn at(&self, at: u64, len: usize) -> io::Result<*mut u8> {
        if !self.covers(at, len) {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        Ok(self.ptr.wrapping_add((at - self.offset) as usize))
    }

    /// Copy `buf.len()` bytes of the file at `at` (inside the map) into `buf`.
    pub fn read(&self, at: u64, buf: &mut [u8]) -> io::Result<()> {
        let src = self.at(at, buf.len())?;
        // SAFETY: `[src, src + len)` lies inside the live map (checked by `at`) and `buf` is a
        // distinct allocation of that length.
        unsafe { std::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    /// Copy `buf` into the file at `at` (inside a writable map).
    pub fn write(&mut self, at: u64, buf: &[u8]) -> io::Result<()> {
        let dst = self.at(at, buf.len())?;
        // SAFETY: as in `read`; the map was made writable by its owner for writing jobs (a
        // read-only map faults, which the owner never asks for).
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), dst, buf.len()) };
        Ok(())
    }

    /// The page-aligned span holding `len` bytes at file offset `at` (inside the map).
    fn span(&self, at: u64, len: usize) -> io::Result<(*mut libc::c_void, usize)> {
        let p = self.at(at, len)? as usize;
        let page = super::buf::page_size();
        let start = p & !(page - 1);
        let start = start.max(self.ptr as usize);
        Ok((start as *mut libc::c_void, p + len - start))
    }

    /// `msync(MS_SYNC)` of the pages holding `len` bytes at `at`.
    pub fn msync(&self, at: u64, len: usize) -> io::Result<()> {
        let (p, n) = self.span(at, len)?;
        // SAFETY: `[p, p + n)` lies inside the live map (page-aligned, at most its start).
        check(unsafe { libc::msync(p, n, libc::MS_SYNC) })
    }

    /// `msync(MS_SYNC)` of the whole map.
    pub fn msync_all(&self) -> io::Result<()> {
        // SAFETY: the whole live map.
        check(unsafe { libc::msync(self.ptr.cast(), self.len, libc::MS_SYNC) })
    }

    /// `posix_madvise(POSIX_MADV_DONTNEED)` of the pages holding `len` bytes at `at`.
    pub fn dontneed(&self, at: u64, len: usize) -> io::Result<()> {
        let (p, n) = self.span(at, len)?;
        // SAFETY: advice on pages of the live map; a shared file map loses no data by it.
        check_posix(unsafe { libc::posix_madvise(p, n, libc::POSIX_MADV_DONTNEED) })
    }

    /// Advice for the whole map: the access pattern, if any, then `POSIX_MADV_DONTNEED` (drop
    /// what the map has cached), and `MADV_HUGEPAGE` first when `huge` (its error ignored).
    pub fn advise(&self, pattern: Option<MapAdvice>, huge: bool) -> io::Result<()> {
        let (p, n) = (self.ptr.cast::<libc::c_void>(), self.len);
        if huge {
            // SAFETY: advice on the whole live map.
            let _ = unsafe { libc::madvise(p, n, libc::MADV_HUGEPAGE) };
        }
        if let Some(a) = pattern {
            let advice = match a {
                MapAdvice::Sequential => libc::POSIX_MADV_SEQUENTIAL,
                MapAdvice::Random => libc::POSIX_MADV_RANDOM,
            };
            // SAFETY: advice on the whole live map.
            check_posix(unsafe { libc::posix_madvise(p, n, advice) })?;
        }
        // SAFETY: as above.
        check_posix(unsafe { libc::posix_madvise(p, n, libc::POSIX_MADV_DONTNEED) })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the map this value made, unmapped once; no slice of it outlives a call.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}
