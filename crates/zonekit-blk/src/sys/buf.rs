//! Aligned, zeroed memory for I/O buffers.
//!
//! O_DIRECT needs buffers aligned to the logical block size of the device (the page size is always
//! enough); fio aligns its buffers to the page size too. [`AlignedBuf`] is one such allocation;
//! [`SlotBuffers`] is one allocation cut into equal, individually aligned slots, one per in-flight
//! I/O of an engine, taken from the heap, a System V shared memory segment or a memory map
//! ([`BufferMemory`], fio's `mem=`), optionally starting some bytes past the alignment (fio's
//! `iomem_align`).

use std::alloc::{self, Layout};
use std::fmt;
use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
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

/// Where an engine's I/O buffers live (fio's `mem=`, alias `iomem=`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum BufferMemory {
    /// The heap (fio's `malloc`, its default).
    #[default]
    Heap,
    /// A System V shared memory segment (`shmget(IPC_PRIVATE)` then `shmat`; fio's `shm`), of
    /// huge pages of the given size (`SHM_HUGETLB`, the size rounded up to it; fio's `shmhuge`).
    Shm {
        /// The huge page size (`hugepage-size`), for `shmhuge`.
        huge_page: Option<usize>,
    },
    /// A private anonymous memory map (fio's `mmap` and `mmapshared`), of huge pages
    /// (`MAP_HUGETLB`, fio's `mmaphuge`); or a map of `file` (`mmap:FILE`): created if missing
    /// (mode 0644, removed again at the end), `MAP_PRIVATE` and sized with `ftruncate` for
    /// `mmap`, `MAP_SHARED` as it is for `mmapshared` and `mmaphuge` (a file on hugetlbfs).
    Mmap {
        /// The file to map (the `:FILE` part).
        file: Option<PathBuf>,
        /// `MAP_SHARED` (`mmapshared`, `mmaphuge` with a file).
        shared: bool,
        /// The huge page size (`hugepage-size`), for `mmaphuge`.
        huge_page: Option<usize>,
    },
}

/// Why I/O buffers could not be set up: the call that failed, as fio names it (`shmget`,
/// `shmat`, `open mmap file`, `truncate mmap file`, `mmap`), and the OS error.
#[derive(Debug, thiserror::Error)]
#[error("{call}: {}", zonekit_core::io_text(source))]
pub struct BufferError {
    /// The call, in fio's words.
    pub call: &'static str,
    /// The OS error.
    #[source]
    pub source: io::Error,
}

/// The memory behind a [`SlotBuffers`]: where it starts (aligned to the slots' alignment) and
/// how to give it back.
enum Backing {
    Heap(AlignedBuf),
    /// A map of `len` bytes (`munmap` on drop), and the file it maps, removed on drop when the
    /// map created it.
    Mapped {
        ptr: NonNull<u8>,
        len: usize,
        file: Option<(std::fs::File, Option<PathBuf>)>,
    },
    /// An attached shared memory segment (`shmdt` on drop; it was marked for removal once
    /// attached, so detaching frees it).
    Shm {
        ptr: NonNull<u8>,
    },
}

// SAFETY: a Backing owns its memory exclusively (like Box<[u8]>), whatever kind it is.
unsafe impl Send for Backing {}
// SAFETY: shared access only reads the start pointer.
unsafe impl Sync for Backing {}

impl Backing {
    fn start(&self) -> *mut u8 {
        match self {
            Backing::Heap(b) => b.as_mut_ptr(),
            Backing::Mapped { ptr, .. } | Backing::Shm { ptr } => ptr.as_ptr(),
        }
    }

    /// `len` zeroed bytes of `memory`, starting at a multiple of `align` (a power of two, at
    /// most the page size unless on the heap).
    fn new(memory: &BufferMemory, len: usize, align: usize) -> Result<Backing, BufferError> {
        let os = |call: &'static str| move |source: io::Error| BufferError { call, source };
        let round = |huge: Option<usize>| match huge {
            Some(h) if h > 1 => len.checked_next_multiple_of(h).unwrap_or(len),
            _ => len,
        };
        match memory {
            BufferMemory::Heap => AlignedBuf::zeroed(len, align).map(Backing::Heap).map_err(os("malloc")),
            BufferMemory::Shm { huge_page } => {
                let len = round(*huge_page).max(1);
                let mut flags = libc::IPC_CREAT | 0o600;
                if huge_page.is_some() {
                    flags |= libc::SHM_HUGETLB;
                }
                // SAFETY: shmget takes plain integers.
                let id = unsafe { libc::shmget(libc::IPC_PRIVATE, len, flags) };
                if id < 0 {
                    return Err(os("shmget")(io::Error::last_os_error()));
                }
                // SAFETY: attaches segment `id` where the kernel chooses; the result is checked.
                let p = unsafe { libc::shmat(id, std::ptr::null(), 0) };
                let attached = (p as isize != -1).then_some(p.cast::<u8>()).and_then(NonNull::new);
                let err = io::Error::last_os_error();
                // Marked for removal now: the segment goes when the last process detaches, even
                // if this one is killed (fio removes it at the end, and leaks it if killed).
                // SAFETY: IPC_RMID takes no buffer.
                unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
                let ptr = attached.ok_or_else(|| os("shmat")(err))?;
                Ok(Backing::Shm { ptr })
            }
            BufferMemory::Mmap { file, shared, huge_page } => {
                let len = round(*huge_page).max(1);
                let mut flags = if *shared && file.is_some() { libc::MAP_SHARED } else { libc::MAP_PRIVATE };
                let mut opened = None;
                if let Some(path) = file {
                    let existed = path.exists();
                    let f = std::os::unix::fs::OpenOptionsExt::mode(
                        std::fs::OpenOptions::new().read(true).write(true).create(true),
                        0o644,
                    )
                    .open(path)
                    .map_err(os("open mmap file"))?;
                    let remove = (!existed).then(|| path.clone());
                    if !*shared && huge_page.is_none() {
                        if let Err(e) = f.set_len(len as u64) {
                            if let Some(p) = &remove {
                                let _ = std::fs::remove_file(p);
                            }
                            return Err(os("truncate mmap file")(e));
                        }
                    } else if f.metadata().map(|m| m.len()).unwrap_or(0) < len as u64 {
                        // fio maps it as it is, and dies of SIGBUS at the first byte past its
                        // end: refuse a file shorter than the buffers.
                        if let Some(p) = &remove {
                            let _ = std::fs::remove_file(p);
                        }
                        return Err(os("mmap")(io::Error::from_raw_os_error(libc::EINVAL)));
                    }
                    opened = Some((f, remove));
                } else {
                    flags |= libc::MAP_ANONYMOUS;
                    if huge_page.is_some() {
                        flags |= libc::MAP_HUGETLB;
                    }
                }
                let fd = opened.as_ref().map_or(-1, |(f, _)| f.as_raw_fd());
                // SAFETY: a new mapping where the kernel chooses, of `len` bytes of `fd` (open
                // for the call and kept open while mapped) or anonymous; the result is checked.
                let p =
                    unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, flags, fd, 0) };
                if p == libc::MAP_FAILED {
                    let e = io::Error::last_os_error();
                    if let Some((_, Some(path))) = &opened {
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(os("mmap")(e));
                }
                let ptr = NonNull::new(p.cast::<u8>())
                    .ok_or_else(|| os("mmap")(io::Error::from_raw_os_error(libc::ENOMEM)))?;
                if opened.is_some() && !*shared {
                    // A private map of a file shows the file's data: zero it, as fresh memory is
                    // (copy-on-write: the file is untouched). A shared map is the file's, left as
                    // it is (fio's `mmapshared`: the job's writes of its buffers reach it).
                    // SAFETY: the map is `len` bytes, writable, and not used by anything yet.
                    unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, len) };
                }
                Ok(Backing::Mapped { ptr, len, file: opened })
            }
        }
    }
}

impl Drop for Backing {
    fn drop(&mut self) {
        match self {
            Backing::Heap(_) => {}
            Backing::Mapped { ptr, len, file } => {
                // SAFETY: the map made in `new`, of this length; no slice of it outlives the
                // SlotBuffers that owns it.
                unsafe { libc::munmap(ptr.as_ptr().cast(), *len) };
                if let Some((_, Some(path))) = file.take() {
                    let _ = std::fs::remove_file(path);
                }
            }
            Backing::Shm { ptr } => {
                // SAFETY: the segment attached in `new`; nothing borrows it any more.
                unsafe { libc::shmdt(ptr.as_ptr().cast()) };
            }
        }
    }
}

/// `count` buffers of `size` bytes, each aligned to `align`, in one zeroed allocation.
///
/// Slot `i` starts at `offset + i * stride`, where the stride is `size` rounded up to `align`. The
/// kernel may be writing into some slots while others are lent out, so the allocation is never
/// borrowed as a whole: each slice handed out is built from that slot's own pointer range, and
/// slots never overlap.
pub struct SlotBuffers {
    /// The allocation; only its start pointer is used (never a view of the whole buffer).
    mem: Backing,
    /// Where slot 0 starts past the allocation's (aligned) start (fio's `iomem_align`).
    offset: usize,
    size: usize,
    stride: usize,
    count: usize,
}

impl SlotBuffers {
    /// Allocate `count` zeroed slots of `size` bytes aligned to `align` (0: the page size).
    pub fn new(count: usize, size: usize, align: usize) -> io::Result<SlotBuffers> {
        SlotBuffers::with(count, size, align, 0, &BufferMemory::Heap).map_err(|e| e.source)
    }

    /// [`SlotBuffers::new`] in `memory`, every slot starting `offset` bytes past the alignment
    /// (fio's `iomem_align`: with O_DIRECT, an offset the device cannot take fails each I/O with
    /// `EINVAL`).
    pub fn with(
        count: usize,
        size: usize,
        align: usize,
        offset: usize,
        memory: &BufferMemory,
    ) -> Result<SlotBuffers, BufferError> {
        let align = if align == 0 { page_size() } else { align };
        let bad = || BufferError { call: "malloc", source: io::Error::from_raw_os_error(libc::EINVAL) };
        if !align.is_power_of_two() || (*memory != BufferMemory::Heap && align > page_size()) {
            return Err(bad());
        }
        let stride = size.checked_next_multiple_of(align).ok_or_else(bad)?.max(align);
        let total = stride.checked_mul(count).and_then(|t| t.checked_add(offset)).ok_or_else(bad)?;
        Ok(SlotBuffers { mem: Backing::new(memory, total, align)?, offset, size, stride, count })
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
        let (base, size, stride) = (self.mem.start().wrapping_add(self.offset), self.size, self.stride);
        (0..self.count).map(move |i| {
            // SAFETY: `i < count`, so slot `i` (`size` bytes from `base + i * stride`, `base`
            // being the allocation's start plus the offset) lies inside
            // the allocation and is initialised; slots are `stride >= size` apart, so the slices
            // never overlap, and the iterator holds `&mut self` for as long as any of them lives.
            unsafe { std::slice::from_raw_parts_mut(base.add(i * stride), size) }
        })
    }

    /// Start of slot `i` for the kernel (`i` must be in range; checked by the caller).
    #[inline]
    pub(crate) fn slot_ptr(&self, i: usize) -> *mut u8 {
        debug_assert!(i < self.count);
        self.mem.start().wrapping_add(self.offset + i * self.stride)
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
    /// Every kind of memory fio's `mem=` names gives usable, zeroed slots, `offset` bytes past
    /// the page; a map of a file creates it and removes it again, or leaves one that was there.
    #[test]
    fn memory_kinds_and_offsets() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("mmfile");
        let kinds = [
            BufferMemory::Heap,
            BufferMemory::Shm { huge_page: None },
            BufferMemory::Mmap { file: None, shared: false, huge_page: None },
            BufferMemory::Mmap { file: Some(file.clone()), shared: false, huge_page: None },
        ];
        for memory in &kinds {
            for offset in [0, 256, 4096 + 512] {
                let mut s = SlotBuffers::with(3, 8192, 4096, offset, memory).unwrap();
                for i in 0..3 {
                    let b = s.get_mut(i).unwrap();
                    assert_eq!(b.as_ptr() as usize % 4096, offset % 4096, "{memory:?} offset {offset}");
                    assert!(b.iter().all(|&x| x == 0));
                    b.fill(i as u8 + 1);
                }
                assert!((0..3).all(|i| s.get(i).unwrap().iter().all(|&x| x == i as u8 + 1)));
                if matches!(memory, BufferMemory::Mmap { file: Some(_), .. }) {
                    assert!(file.exists(), "the map's file exists while mapped");
                }
            }
            assert!(!file.exists(), "{memory:?}: a file the map created is removed");
        }
        // A file that was there stays, and a private map does not write to it.
        std::fs::write(&file, vec![7u8; 100]).unwrap();
        let memory = BufferMemory::Mmap { file: Some(file.clone()), shared: false, huge_page: None };
        let mut s = SlotBuffers::with(1, 4096, 4096, 0, &memory).unwrap();
        s.get_mut(0).unwrap().fill(9);
        drop(s);
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 4096, "sized to the buffers, as fio's ftruncate");
        assert!(std::fs::read(&file).unwrap()[..100].iter().all(|&x| x == 7));
        // A shared map of a file shorter than the buffers would fault past its end: refused.
        let memory = BufferMemory::Mmap { file: Some(d.path().join("short")), shared: true, huge_page: None };
        let e = SlotBuffers::with(1, 4096, 4096, 0, &memory).unwrap_err();
        assert_eq!((e.call, e.source.raw_os_error()), ("mmap", Some(libc::EINVAL)));
        assert!(!d.path().join("short").exists());
        // A file that cannot be opened: fio's call name.
        let memory = BufferMemory::Mmap { file: Some(d.path().join("no/dir/f")), shared: false, huge_page: None };
        let e = SlotBuffers::with(1, 4096, 4096, 0, &memory).unwrap_err();
        assert_eq!((e.call, e.source.raw_os_error()), ("open mmap file", Some(libc::ENOENT)));
    }

    /// Huge pages: the size is rounded up to the huge page size; where the system has none
    /// free, the allocation fails with the kernel's error and fio's call name.
    #[test]
    fn huge_pages_or_their_absence() {
        let free = std::fs::read_to_string("/proc/meminfo")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("HugePages_Free:").map(|v| v.trim().parse::<u64>().unwrap()))
            .unwrap_or(0);
        for (memory, call) in [
            (BufferMemory::Shm { huge_page: Some(2 << 20) }, "shmget"),
            (BufferMemory::Mmap { file: None, shared: false, huge_page: Some(2 << 20) }, "mmap"),
        ] {
            match SlotBuffers::with(2, 65536, 4096, 0, &memory) {
                Ok(mut s) => {
                    assert!(free > 0, "{memory:?}: no huge page is free, yet it worked");
                    s.get_mut(1).unwrap().fill(1);
                }
                Err(e) => {
                    assert_eq!(e.call, call);
                    assert!(matches!(e.source.raw_os_error(), Some(libc::ENOMEM | libc::EINVAL | libc::EPERM)), "{e}");
                }
            }
        }
    }
}
