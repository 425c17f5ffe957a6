//! Job files as fio handles them: what a path is, opening it with the job's flags, laying a file out
//! to size before a job, dropping its cache, its size, the block device under it (for disk stats),
//! syncing and removing it.
//!
//! The rules follow fio 3.33's `filesetup.c` and `diskutil.c`; each function says which part.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{Advice, FallocateFlags};

use crate::sys;

/// What a job's file is (fio's `filetype`), from `stat` (symlinks followed); a missing path is a
/// regular file to be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    /// A regular file (or a path that does not exist yet).
    Regular,
    /// A block device.
    Block,
    /// A character device.
    Char,
    /// A pipe (or `-`, standard input/output).
    Pipe,
}

/// fio's `get_file_type`: `-` is a pipe; otherwise `stat` decides, and anything that is not a block
/// device, character device or FIFO is a regular file.
pub fn file_type(path: &Path) -> FileType {
    if path.as_os_str() == "-" {
        return FileType::Pipe;
    }
    match fs::metadata(path) {
        Ok(m) if m.file_type().is_block_device() => FileType::Block,
        Ok(m) if m.file_type().is_char_device() => FileType::Char,
        Ok(m) if m.file_type().is_fifo() => FileType::Pipe,
        _ => FileType::Regular,
    }
}

/// Synchronous writes requested by the job (fio's `sync=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncMode {
    /// No flag (`sync=none` / `0`).
    #[default]
    None,
    /// `O_SYNC` (`sync=sync` / `1`).
    Sync,
    /// `O_DSYNC` (`sync=dsync`).
    Dsync,
}

/// How a job uses its file, which decides the flags it is opened with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenSpec {
    /// The job reads.
    pub reads: bool,
    /// The job writes.
    pub writes: bool,
    /// The job trims.
    pub trims: bool,
    /// `O_DIRECT` (fio's `direct=1` / `buffered=0`).
    pub direct: bool,
    /// `O_SYNC` / `O_DSYNC`.
    pub sync: SyncMode,
    /// Create a missing regular file (fio's `allow_file_create`, on by default).
    pub allow_create: bool,
    /// Create the file on open even for a job that only reads (fio's `create_on_open`).
    pub create_on_open: bool,
}

impl OpenSpec {
    /// A buffered, non-synchronous job with fio's defaults for everything else.
    pub fn new(reads: bool, writes: bool, trims: bool) -> OpenSpec {
        OpenSpec {
            reads,
            writes,
            trims,
            direct: false,
            sync: SyncMode::None,
            allow_create: true,
            create_on_open: false,
        }
    }

    /// The `open(2)` flags beyond the access mode: fio's `generic_open_file`.
    fn custom_flags(&self, kind: FileType) -> i32 {
        let mut flags = 0;
        // fio opens trim-only jobs without the data-path flags.
        let trim_only = self.trims && !self.reads && !self.writes;
        if !trim_only {
            if self.direct {
                flags |= libc::O_DIRECT;
            }
            flags |= match self.sync {
                SyncMode::None => 0,
                SyncMode::Sync => libc::O_SYNC,
                SyncMode::Dsync => libc::O_DSYNC,
            };
        }
        if kind != FileType::Regular {
            flags |= libc::O_NOATIME;
        }
        flags
    }
}

/// Open a job's file as fio's `generic_open_file` does: `O_RDWR` (and `O_CREAT`, mode 0600, for a
/// regular file) when the job writes, `O_RDONLY` when it only reads (`O_RDWR` for a character
/// device), `O_RDWR` for trims; `O_DIRECT` and `O_SYNC`/`O_DSYNC` as asked (not for trim-only
/// jobs); `O_NOATIME` on devices, dropped if the kernel answers `EPERM`.
///
/// Errors are the kernel's: `EINVAL` for `O_DIRECT` on a file system without direct I/O (fio adds
/// "looks like your file system does not support direct=1/buffered=0"), `ENOENT` for a missing file
/// that may not be created, and so on.
pub fn open_job_file(path: &Path, spec: &OpenSpec) -> io::Result<OwnedFd> {
    let kind = file_type(path);
    let mut flags = spec.custom_flags(kind);
    loop {
        let mut o = OpenOptions::new();
        o.mode(0o600);
        if spec.writes {
            o.read(true).write(true);
            if kind == FileType::Regular && spec.allow_create {
                o.create(true);
            }
        } else if spec.reads {
            o.read(true);
            if kind == FileType::Char {
                o.write(true);
            }
        } else {
            o.read(true).write(true);
        }
        if spec.create_on_open && spec.allow_create && kind == FileType::Regular {
            o.write(true).create(true);
        }
        o.custom_flags(flags);
        match o.open(path) {
            Ok(f) => return Ok(f.into()),
            Err(e) if e.raw_os_error() == Some(libc::EPERM) && flags & libc::O_NOATIME != 0 => {
                flags &= !libc::O_NOATIME;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Size of an open file: the length of a regular file, `BLKGETSIZE64` of a block device, `None`
/// for anything else (fio: size unknown).
pub fn file_size(file: &File) -> io::Result<Option<u64>> {
    let m = file.metadata()?;
    if m.file_type().is_block_device() {
        sys::io::blkgetsize64(file.as_fd()).map(Some)
    } else if m.is_file() {
        Ok(Some(m.len()))
    } else {
        Ok(None)
    }
}

/// Logical block size of the device under an open file (`BLKSSZGET` for a block device); `None`
/// for files (the file system's O_DIRECT rules apply).
pub fn logical_block_size(file: &File) -> io::Result<Option<u32>> {
    if file.metadata()?.file_type().is_block_device() { sys::io::blksszget(file.as_fd()).map(Some) } else { Ok(None) }
}

/// Whether a job needing `needed` bytes of `path` (its `offset` + `size`) must lay it out first:
/// a regular file that is missing or smaller (fio's `need_extend`).
pub fn needs_layout(path: &Path, needed: u64) -> bool {
    match fs::metadata(path) {
        Ok(m) => m.is_file() && m.len() < needed,
        Err(_) => file_type(path) == FileType::Regular,
    }
}

/// How space is reserved when a file is laid out (fio's `fallocate=`; Linux default `native`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Prealloc {
    /// Nothing (`none`, `0`).
    None,
    /// `fallocate(fd, 0, 0, size)` (`native`); fio ignores a failure.
    #[default]
    Native,
    /// `posix_fallocate(fd, 0, size)` as glibc does it (`posix`, `1`): `fallocate(fd, 0, 0, size)`,
    /// and where the file system has no `fallocate`, a zero byte written in every block past
    /// the end of the file; fio logs a failure and goes on.
    Posix,
    /// `fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, size)` (`keep`); a failure fails the job.
    Keep,
    /// `ftruncate(fd, size)` (`truncate`); a failure fails the job.
    Truncate,
}

impl Prealloc {
    /// fio's value of `fallocate=` (`none`, `native`, `posix`, `keep`, `truncate`, `0`, `1`);
    /// `None` for anything else.
    pub fn from_fio(value: &str) -> Option<Prealloc> {
        Some(match value {
            "none" | "0" => Prealloc::None,
            "native" => Prealloc::Native,
            "posix" | "1" => Prealloc::Posix,
            "keep" => Prealloc::Keep,
            "truncate" => Prealloc::Truncate,
            _ => return None,
        })
    }
}

/// What a layout did beside writing the file (fio's `extend_file`).
#[derive(Debug)]
pub struct LaidOut {
    /// What the space reservation returned (`Ok` when there was none to make). A failure does
    /// not stop the layout, as in fio: the caller decides (fio ignores a `native` failure,
    /// logs a `posix` one, and fails the job for `keep` and `truncate`).
    pub prealloc: io::Result<()>,
}

/// Reserve `size` bytes of `file` as `mode` says (fio's `fallocate_file`).
fn preallocate(file: &mut File, mode: Prealloc, size: u64) -> io::Result<()> {
    let fd = file.as_fd();
    match mode {
        Prealloc::None => Ok(()),
        Prealloc::Native => sys::io::fallocate(fd, FallocateFlags::empty(), 0, size),
        Prealloc::Posix => match sys::io::fallocate(fd, FallocateFlags::empty(), 0, size) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::ENOSYS)) => {
                // glibc's fallback: a zero byte in each block past the end, then the last byte.
                let block = file.metadata()?.blksize().max(512);
                let mut at = file.metadata()?.len().next_multiple_of(block);
                while at < size {
                    sys::io::pwritev(file.as_fd(), &[0], at)?;
                    at += block;
                }
                if size > file.metadata()?.len() {
                    sys::io::pwritev(file.as_fd(), &[0], size - 1)?;
                }
                Ok(())
            }
            r => r,
        },
        Prealloc::Keep => sys::io::fallocate(fd, FallocateFlags::KEEP_SIZE, 0, size),
        Prealloc::Truncate => sys::io::ftruncate(fd, size),
    }
}

/// How to lay a file out before a job (fio's `extend_file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutSpec {
    /// Remove the file first.
    pub unlink_first: bool,
    /// Truncate it and write it out whole (fio's "new layout").
    pub write_out: bool,
    /// Space reservation after (re)creating it.
    pub prealloc: Prealloc,
    /// Size of each write when writing it out (the job's largest write block size).
    pub block_size: usize,
    /// Create a missing file (`allow_file_create`).
    pub allow_create: bool,
    /// `fsync` after writing it out (fio's `create_fsync`, on by default).
    pub fsync: bool,
}

impl LayoutSpec {
    /// fio's choice for a job: a job that reads, or writes with `overwrite`, or whose engine needs
    /// existing data, gets its file removed and written out whole; a job that only writes (without
    /// `overwrite` or `file_append`) gets it removed and recreated at size by preallocation.
    pub fn for_job(reads: bool, writes: bool, overwrite: bool, file_append: bool, block_size: usize) -> LayoutSpec {
        let write_out = reads || (writes && overwrite && !file_append);
        LayoutSpec {
            unlink_first: write_out || (writes && !overwrite && !file_append),
            write_out,
            prealloc: Prealloc::Native,
            block_size: block_size.max(1),
            allow_create: true,
            fsync: true,
        }
    }
}

/// Lay out `path` to `size` bytes as fio's `extend_file` does (the caller prints fio's `Laying out
/// IO file` line): remove it if asked, (re)create it (`O_WRONLY`, `O_CREAT`, `O_TRUNC` for a full
/// layout, mode 0644), reserve space ([`LaidOut::prealloc`] says how that went; a failure does
/// not stop the layout), then for a full layout `ftruncate` it and write it out in
/// `block_size` writes, each buffer filled by `fill` (the job's buffer contents: zeros, random
/// data…), and `fsync` it. Finally the page cache of the new part is dropped
/// (`POSIX_FADV_DONTNEED`, failures ignored, as fio only warns).
///
/// `fill` returning false stops the layout (a signal): the file is removed and `Interrupted` is
/// returned. A short or failed write is an error (`EIO` for a write of 0 bytes).
pub fn lay_out_file(
    path: &Path,
    size: u64,
    spec: &LayoutSpec,
    fill: &mut dyn FnMut(&mut [u8]) -> bool,
) -> io::Result<LaidOut> {
    let old_size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if spec.unlink_first || spec.write_out {
        match fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    let mut o = OpenOptions::new();
    o.write(true).mode(0o644).create(spec.allow_create).truncate(spec.write_out);
    let mut file = o.open(path)?;
    let prealloc = preallocate(&mut file, spec.prealloc, size);
    if spec.write_out {
        match file.set_len(size) {
            Err(e) if e.raw_os_error() != Some(libc::EFBIG) => return Err(e),
            _ => {}
        }
        let mut buf = vec![0u8; spec.block_size.min(usize::try_from(size).unwrap_or(usize::MAX)).max(1)];
        let mut left = size;
        while left > 0 {
            let n = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            if !fill(&mut buf[..n]) {
                drop(file);
                let _ = fs::remove_file(path);
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            match file.write(&buf[..n]) {
                Ok(0) => return Err(io::Error::from_raw_os_error(libc::EIO)),
                Ok(w) => left -= w as u64,
                Err(e) => return Err(e),
            }
        }
        if spec.fsync {
            file.sync_all()?;
        }
    }
    if size > old_size {
        let _ = sys::io::posix_fadvise(file.as_fd(), old_size, size - old_size, Advice::DontNeed);
    }
    Ok(LaidOut { prealloc })
}

/// Drop the cached pages of a file before a job (fio's `invalidate=1`): `POSIX_FADV_DONTNEED` over
/// `offset..offset+len` of a regular file (`len` 0: to the end), `BLKFLSBUF` on a block device,
/// nothing for anything else.
pub fn invalidate_cache(file: &File, offset: u64, len: u64) -> io::Result<()> {
    let ft = file.metadata()?.file_type();
    if ft.is_file() {
        sys::io::posix_fadvise(file.as_fd(), offset, len, Advice::DontNeed)
    } else if ft.is_block_device() {
        sys::io::blkflsbuf(file.as_fd())
    } else {
        Ok(())
    }
}

/// The access pattern a job announces for its file (fio's `fadvise_hint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAdvice {
    /// `POSIX_FADV_SEQUENTIAL`.
    Sequential,
    /// `POSIX_FADV_RANDOM`.
    Random,
}

/// `posix_fadvise(fd, offset, len, advice)` over the range a job works on (fio's
/// `td_io_open_file`, for regular files and block devices; `len` 0 reaches the end).
pub fn advise(file: &File, offset: u64, len: u64, advice: FileAdvice) -> io::Result<()> {
    let advice = match advice {
        FileAdvice::Sequential => Advice::Sequential,
        FileAdvice::Random => Advice::Random,
    };
    sys::io::posix_fadvise(file.as_fd(), offset, len, advice)
}

/// The expected life of the data a job writes (fio's `write_hint`; the kernel's
/// `RWH_WRITE_LIFE_*` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteHint {
    /// `RWH_WRITE_LIFE_NONE` (1).
    None = 1,
    /// `RWH_WRITE_LIFE_SHORT` (2).
    Short = 2,
    /// `RWH_WRITE_LIFE_MEDIUM` (3).
    Medium = 3,
    /// `RWH_WRITE_LIFE_LONG` (4).
    Long = 4,
    /// `RWH_WRITE_LIFE_EXTREME` (5).
    Extreme = 5,
}

impl WriteHint {
    /// fio's value of `write_hint=` (`none`, `short`, `medium`, `long`, `extreme`).
    pub fn from_fio(value: &str) -> Option<WriteHint> {
        Some(match value {
            "none" => WriteHint::None,
            "short" => WriteHint::Short,
            "medium" => WriteHint::Medium,
            "long" => WriteHint::Long,
            "extreme" => WriteHint::Extreme,
            _ => return None,
        })
    }
}

/// Set the write-life hint of a job's file as fio's `td_io_open_file` does: on the inode
/// (`F_SET_RW_HINT`) for buffered I/O, on the open file (`F_SET_FILE_RW_HINT`) with `direct`.
/// Linux 5.17 and later refuse the second with `EINVAL`, as they do with fio.
pub fn set_write_hint(file: &File, hint: WriteHint, direct: bool) -> io::Result<()> {
    sys::io::set_rw_hint(file.as_fd(), hint as u64, direct)
}

/// `fsync` a job's file (fio's `end_fsync`, `fsync_on_close`).
pub fn fsync_file(file: &File) -> io::Result<()> {
    file.sync_all()
}

/// Remove a job's file after the job (fio's `unlink=1`): regular files only; a file that is
/// already gone is not an error.
pub fn unlink_job_file(path: &Path) -> io::Result<()> {
    if file_type(path) != FileType::Regular {
        return Ok(());
    }
    match fs::remove_file(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        r => r,
    }
}

/// The block device that holds a path, for disk statistics (fio's `diskutil.c`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDevice {
    /// Name as in `/sys/block` (`vda`, `nvme0n1`, `dm-0`); a partition maps to its disk.
    pub name: String,
    /// Its sysfs directory (holding `stat`, `queue/`, `slaves/`).
    pub sysfs: PathBuf,
    /// Major number (of the path's device: the partition's, if it is on one).
    pub major: u32,
    /// Minor number.
    pub minor: u32,
    /// Devices under it (`slaves/`: the disks of a dm or md device), by name.
    pub slaves: Vec<String>,
}

/// The block device under `path`: the device itself for a block device node, the device of its
/// file system otherwise (of its directory if the file does not exist yet). `None` for character
/// devices, pipes, and file systems without a block device (tmpfs, overlay…).
pub fn block_device_of(path: &Path) -> io::Result<Option<BlockDevice>> {
    let (major, minor) = match fs::symlink_metadata(path) {
        Ok(m) => {
            let ft = m.file_type();
            if ft.is_block_device() {
                (libc::major(m.rdev()), libc::minor(m.rdev()))
            } else if ft.is_char_device() || ft.is_fifo() {
                return Ok(None);
            } else {
                (libc::major(m.dev()), libc::minor(m.dev()))
            }
        }
        Err(_) => {
            let dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let m = fs::metadata(dir)?;
            (libc::major(m.dev()), libc::minor(m.dev()))
        }
    };
    sysfs_block_device(Path::new("/sys/dev/block"), major, minor)
}

/// Resolve `major:minor` under `root` (`/sys/dev/block`); a partition maps to its disk.
fn sysfs_block_device(root: &Path, major: u32, minor: u32) -> io::Result<Option<BlockDevice>> {
    let link = root.join(format!("{major}:{minor}"));
    let mut dir = match fs::canonicalize(&link) {
        Ok(d) => d,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // fio: a `../queue` directory means we are inside a partition; the disk is the parent.
    if !dir.join("queue").exists()
        && let Some(parent) = dir.parent().filter(|p| p.join("queue").exists())
    {
        dir = parent.to_path_buf();
    }
    let Some(name) = dir.file_name().and_then(|n| n.to_str()).map(str::to_string) else { return Ok(None) };
    let mut slaves: Vec<String> = match fs::read_dir(dir.join("slaves")) {
        Ok(rd) => rd.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect(),
        Err(_) => Vec::new(),
    };
    slaves.sort();
    Ok(Some(BlockDevice { name, sysfs: dir, major, minor, slaves }))
}

#[cfg(test)]
mod tests;
