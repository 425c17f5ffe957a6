//! Requests and completions: what every part of the block layer speaks (engines, the system-call
//! wrappers of `sys`, zone write plugging). A leaf module: it imports nothing of the crate.

/// Data direction of an I/O (fio's `ddir`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ddir {
    /// Read `len` bytes at `offset`.
    Read,
    /// Write `len` bytes at `offset`.
    Write,
    /// Discard `len` bytes at `offset` (punch a hole in a file, `BLKDISCARD` on a block device).
    Trim,
    /// `fsync` the file.
    Sync,
    /// `fdatasync` the file.
    DataSync,
    /// `sync_file_range` of `len` bytes at `offset` with these `SYNC_FILE_RANGE_*` flags (fio's
    /// `sync_file_range`); a length of 0 is nothing to sync (result 0, no system call).
    SyncFileRange(u32),
    /// Reset the write pointers of the zones of `len` bytes at `offset` (`BLKRESETZONE` on a
    /// zoned block device, a zone reset on an emulated device). Result 0 or `-errno`.
    ZoneReset,
}

/// One I/O handed to an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    /// The slot: its buffer holds the data, and its completion carries the same tag.
    pub tag: u32,
    /// Direction.
    pub ddir: Ddir,
    /// Index of the file in the engine's file table.
    pub file: u32,
    /// Byte offset.
    pub offset: u64,
    /// Byte length (0 for syncs).
    pub len: u32,
}

/// A finished I/O: the slot, the result (bytes transferred, or `-errno`) and when it completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The slot of the I/O.
    pub tag: u32,
    /// Bytes transferred (the length for a trim, 0 for a sync), or a negative errno.
    pub result: i32,
    /// When it completed, in nanoseconds of the engine's clock (`EngineConfig::clock` of [`crate::engine`]): for an
    /// engine over the kernel, the moment `getevents` saw it; for an in-process device, the
    /// device's own completion time.
    pub at_ns: u64,
}

impl Completion {
    /// A completion whose time the engine stamps when it hands it back.
    pub(crate) fn new(tag: u32, result: i32) -> Completion {
        Completion { tag, result, at_ns: 0 }
    }
}
