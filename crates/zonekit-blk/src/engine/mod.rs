//! I/O engines, as fio's `ioengine_ops`: queue an I/O, commit what was queued, reap completions.
//!
//! An engine owns one aligned buffer per in-flight slot (`tag`), so that no caller hands it raw
//! pointers: the caller fills `buffer(tag)` before queueing a write and reads it after a read
//! completes. A slot's buffer is not touched by the caller while its I/O is in flight.

use std::io;
use std::os::fd::OwnedFd;

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

/// A finished I/O: the slot and the result (bytes transferred, or `-errno`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The slot of the I/O.
    pub tag: u32,
    /// Bytes transferred, or a negative errno.
    pub result: i32,
}

/// What `queue` did with an I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Done already (synchronous engines): the result, as in [`Completion::result`].
    Completed(i32),
    /// Queued; it is sent by the next `commit` and reaped by `getevents`.
    Queued,
    /// No room (the queue is full): reap completions first.
    Busy,
}

/// How to build an engine.
#[derive(Debug)]
pub struct EngineConfig {
    /// Slots: the most I/Os in flight at once (`iodepth`).
    pub depth: u32,
    /// Size of each slot's buffer (the largest block size of the job).
    pub buffer_size: usize,
    /// Buffer alignment (the page size; at least the logical block size for O_DIRECT).
    pub buffer_align: usize,
    /// The files, in the job's order; `Io::file` indexes this table.
    pub files: Vec<OwnedFd>,
    /// Engine options by name (fio's engine-specific options such as `hipri`, `fixedbufs`).
    pub options: Vec<(String, Option<String>)>,
}

/// Why an engine could not be set up or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// No engine of that name.
    #[error("unknown ioengine '{0}'")]
    Unknown(String),
    /// fio has this engine, zonekit does not.
    #[error("ioengine '{0}' is not supported by zonekit (supported: sync, psync, io_uring, libaio, null)")]
    Unsupported(String),
    /// An engine option that this engine does not take or cannot honour.
    #[error("ioengine {engine}: {why}")]
    Option {
        /// The engine.
        engine: &'static str,
        /// What is wrong.
        why: String,
    },
    /// Setting the engine up failed (io_uring_setup, memory).
    #[error("ioengine {engine}: {source}")]
    Setup {
        /// The engine.
        engine: &'static str,
        /// The OS error.
        #[source]
        source: io::Error,
    },
}

/// An I/O engine.
pub trait Engine: Send {
    /// fio's name of the engine (`psync`, `io_uring`…).
    fn name(&self) -> &'static str;

    /// Whether `queue` completes every I/O itself (sync engines: no submission latency).
    fn is_sync(&self) -> bool;

    /// The buffer of slot `tag`.
    fn buffer(&mut self, tag: u32) -> &mut [u8];

    /// Queue an I/O on slot `tag`.
    fn queue(&mut self, io: &Io) -> Queued;

    /// Send every queued I/O to the kernel; returns how many were sent.
    fn commit(&mut self) -> io::Result<usize>;

    /// Wait for at least `min` completions (0: take what is ready), append them to `out`; returns
    /// how many were appended.
    fn getevents(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize>;
}
