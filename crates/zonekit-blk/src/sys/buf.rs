//! Aligned, zeroed memory for I/O buffers.
//!
//! O_DIRECT needs buffers aligned to the logical block size of the device (the page size is always
//! enough); fio aligns its buffers to the page size too. [`AlignedBuf`] is one such allocation;
//! [`SlotBuffers`] is one allocation cut into equal, individually aligned slots, one per in-flight
//! I/O of an engine.

use std::alloc::{self, Layout};
use std::fmt;
use std::io;
use std::ptr::NonNull;

/// The system page size (`sysconf(_SC_PAGESIZE)`), 4096 if the call fails.
pub fn page_size() -> usize {
    // SAFETY: sysconf takes no pointers and has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 { n as usize } else { 4096 }
}

/// A zeroed heap buffer whose start is aligned to a power of two.
///
/// Dereferences to `[u8]` of the requested length. The memory is freed on drop.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
    layout: Layout,
}

// SAFETY: AlignedBuf owns its allocation exclusively (like Box<[u8]>); no interior mutability.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only hands out `&[u8]`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocate `len` zeroed bytes aligned to `align` (a power of two; 0 means the page size).
    ///
    /// Fails with `EINVAL` if `align` is not a power of two or the size overflows, and `ENOMEM` if
    /// the allocator has no memory.
    pub fn zeroed(len: usize, align: usize) -> io::Result<AlignedBuf> {
        let align = if align == 0 { page_size() } else { align };
        let layout =
            Layout::from_size_align(len.max(1), align).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))?;
        Ok(AlignedBuf { ptr, len, layout })
    }

    /// The alignment of the start of the buffer.
    pub fn align(&self) -> usize {
        self.layout.align()
    }

    /// Start of the buffer, for the kernel. Writing through it while a slice of the buffer is
    /// borrowed is the caller's (unsafe) business.
    pub(crate) fn as_mut_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr points to `len` initialised (zeroed at allocation) bytes that we own; the
        // returned borrow is tied to &self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this very layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

impl fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlignedBuf").field("len", &self.len).field("align", &self.align()).finish()
    }
}

/// `count` buffers of `size` bytes, each aligned to `align`, in one zeroed allocation.
///
/// Slot `i` starts at `i * stride`, where the stride is `size` rounded up to `align`. The kernel may
/// be writing into some slots while others are lent out, so the allocation is never borrowed as a
/// whole: each slice handed out is built from that slot's own pointer range, and slots never
/// overlap.
pub struct SlotBuffers {
    /// The allocation; only its start pointer is used (never its `Deref` over the whole buffer).
    mem: AlignedBuf,
    size: usize,
    stride: usize,
    count: usize,
}

impl SlotBuffers {
    /// Allocate `count` zeroed slots of `size` bytes aligned to `align` (0: the page size).
    pub fn new(count: usize, size: usize, align: usize) -> io::Result<SlotBuffers> {
        let align = if align == 0 { page_size() } else { align };
        if !align.is_power_of_two() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let stride =
            size.checked_next_multiple_of(align).ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?.max(align);
        let total = stride.checked_mul(count).ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        Ok(SlotBuffers { mem: AlignedBuf::zeroed(total, align)?, size, stride, count })
    }

    /// Number of slots.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Size of each slot in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Slot `i`, or `None` past the last one.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        // SAFETY: slot `i` exists, so its `size` bytes lie inside the allocation, initialised
        // (zeroed at allocation); the slice covers that slot only and borrows `self`.
        (i < self.count).then(|| unsafe { std::slice::from_raw_parts(self.slot_ptr(i), self.size) })
    }

    /// Slot `i` for writing, or `None` past the last one.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut [u8]> {
        if i >= self.count {
            return None;
        }
        // SAFETY: slot `i` exists, so `[slot_ptr(i), slot_ptr(i) + size)` lies inside the
        // allocation and is initialised. The slice covers that range only (no other slot, which
        // the kernel may be writing), and `&mut self` keeps every other borrow of it away for the
        // slice's life. Callers lend only slots with no I/O in flight (`free_slot_buffer`).
        Some(unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(i), self.size) })
    }

    /// Every slot, in order, each as its own mutable slice.
    pub fn slots_mut(&mut self) -> impl Iterator<Item = &mut [u8]> {
        let (base, size, stride) = (self.mem.as_mut_ptr(), self.size, self.stride);
        (0..self.count).map(move |i| {
            // SAFETY: `i < count`, so slot `i` (`size` bytes from `base + i * stride`) lies inside
            // the allocation and is initialised; slots are `stride >= size` apart, so the slices
            // never overlap, and the iterator holds `&mut self` for as long as any of them lives.
            unsafe { std::slice::from_raw_parts_mut(base.add(i * stride), size) }
        })
    }

    /// Start of slot `i` for the kernel (`i` must be in range; checked by the caller).
    #[inline]
    pub(crate) fn slot_ptr(&self, i: usize) -> *mut u8 {
        debug_assert!(i < self.count);
        self.mem.as_mut_ptr().wrapping_add(i * self.stride)
    }
}

impl fmt::Debug for SlotBuffers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlotBuffers").field("count", &self.count).field("size", &self.size).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zeroed() {
        for align in [512, 4096, 65536] {
            let mut b = AlignedBuf::zeroed(10_000, align).unwrap();
            assert_eq!(b.as_ptr() as usize % align, 0);
            assert_eq!(b.len(), 10_000);
            assert!(b.iter().all(|&x| x == 0));
            b[9_999] = 7;
            assert_eq!(b[9_999], 7);
        }
        assert_eq!(AlignedBuf::zeroed(1, 0).unwrap().align(), page_size());
        assert_eq!(AlignedBuf::zeroed(0, 4096).unwrap().len(), 0);
        assert_eq!(AlignedBuf::zeroed(16, 3).unwrap_err().raw_os_error(), Some(libc::EINVAL));
    }

    #[test]
    fn slots_are_separate_and_aligned() {
        let mut s = SlotBuffers::new(4, 1000, 4096).unwrap();
        for i in 0..4 {
            let b = s.get_mut(i).unwrap();
            assert_eq!(b.len(), 1000);
            assert_eq!(b.as_ptr() as usize % 4096, 0);
            b.fill(i as u8 + 1);
        }
        for i in 0..4 {
            assert!(s.get(i).unwrap().iter().all(|&x| x == i as u8 + 1));
        }
        assert!(s.get(4).is_none());
        assert_eq!(s.slot_ptr(1) as usize - s.slot_ptr(0) as usize, 4096);
        for (i, b) in s.slots_mut().enumerate() {
            assert_eq!(b.len(), 1000);
            assert!(b.iter().all(|&x| x == i as u8 + 1));
            b.fill(9);
        }
        assert!((0..4).all(|i| s.get(i).unwrap().iter().all(|&x| x == 9)));
        // The padding between slots is no slot's: the writes above never reached it.
        // SAFETY: byte 1000 of the allocation (after slot 0, before slot 1) is inside it.
        assert_eq!(unsafe { *s.slot_ptr(0).add(1000) }, 0);
    }
}
