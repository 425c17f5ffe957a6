//! I/O engines, as fio's `ioengine_ops`: queue an I/O, commit what was queued, reap completions.
//!
//! An engine owns one aligned buffer per in-flight slot (`tag`), so that no caller hands it raw
//! pointers: the caller fills `buffer(tag)` before queueing a write and reads it after a read
//! completes. A slot's buffer cannot be borrowed while its I/O is in flight.
//!
//! Engines are built from an [`EngineKind`], which carries the engine's own typed settings, with
//! [`open_engine`] (reading fio's engine names and options into an `EngineKind` is the
//! benchmark's business). Each engine is named as fio names it ([`EngineKind::name`]):
//!
//! | kind | name | what it does | `is_sync` |
//! |---|---|---|---|
//! | [`EngineKind::Psync`] | `psync` | `pread`/`pwrite` | yes |
//! | [`EngineKind::Sync`] | `sync` | `lseek` (when the offset is not the file position) + `read`/`write` | yes |
//! | [`EngineKind::Pvsync`] | `pvsync` | `preadv`/`pwritev` with one iovec | yes |
//! | [`EngineKind::Pvsync2`] | `pvsync2` | `preadv2`/`pwritev2` with `RWF_*` flags ([`Pvsync2Options`]) | yes |
//! | [`EngineKind::Vsync`] | `vsync` | queues I/Os that continue each other (same file, direction, next offset) and commits them as one `readv`/`writev` after an `lseek` | no |
//! | [`EngineKind::IoUring`] | `io_uring` | io_uring with `depth` slots, batched submission ([`UringOptions`]) | no |
//! | [`EngineKind::Libaio`] | `libaio` | Linux native AIO through its system calls, no C library ([`LibaioOptions`]) | no |
//! | [`EngineKind::Posixaio`] | `posixaio` | POSIX AIO of the C library (`aio_read`/`aio_write`/`aio_fsync`), handed over as queued | no |
//! | [`EngineKind::Mmap`] | `mmap` | copies to and from a memory map of the file ([`MmapOptions`]) | yes |
//! | [`EngineKind::Splice`] | `splice` | `splice` through a pipe (`vmsplice` for writes) | yes |
//! | [`EngineKind::Falloc`] | `falloc` | one `fallocate` per I/O: reads keep the size, writes allocate, trims punch holes | yes |
//! | [`EngineKind::Ftruncate`] | `ftruncate` | one `ftruncate` to the offset per write; anything else `-EINVAL` | yes |
//! | [`EngineKind::E4defrag`] | `e4defrag` | one `EXT4_IOC_MOVE_EXT` per write, swapping the range's blocks with a donor file's ([`E4defragOptions`]); anything else `-EINVAL` | yes |
//! | [`EngineKind::Net`] | `net`, `netsplice` | `send`/`recv` (or `splice` through a pipe) over one TCP, UDP or Unix socket ([`NetOptions`]) | yes |
//! | [`EngineKind::Cpu`] | `cpuio` | burns CPU for one cycle per I/O, no data ([`CpuOptions`]) | yes |
//! | [`EngineKind::Exec`] | `exec` | runs a program beside the job, no data ([`ExecOptions`]) | yes |
//! | [`EngineKind::FileOps`] | `filecreate`, `filestat`, `filedelete` | one `open(O_CREAT)`, `stat` or `unlink` per file, timed; the I/Os do nothing ([`FileOpsOptions`]) | yes |
//! | [`EngineKind::Null`] | `null` | completes every I/O at once without a system call; synchronous at depth 1, asynchronous above (as fio) | depth 1 |
//!
//! and, built with [`open_device_engine`] rather than by a fio name, the in-process engine of
//! zonekit's own devices ([`DeviceEngine`]), synchronous or asynchronous as the job's engine is.
//! [`OffloadEngine`] runs engines of any of these kinds but `io_uring` on submission threads of
//! its own (fio's `io_submit_mode=offload`).
//!
//! Common rules, as fio's engines have them:
//! - Results are bytes transferred or `-errno`, as the kernel returned them: a short transfer is
//!   reported short, an unaligned O_DIRECT transfer fails with the kernel's `-EINVAL`.
//! - A zone reset (`Ddir::ZoneReset`) is `BLKRESETZONE` on a block device (0 or `-errno`) and
//!   `-EOPNOTSUPP` on anything else; the asynchronous engines run it inline, as trims.
//! - Completions carry the time the engine handed them back ([`Completion::at_ns`], on
//!   [`EngineConfig::clock`]).
//! - A trim (`Ddir::Trim`) punches a hole in a regular file (`fallocate(PUNCH_HOLE | KEEP_SIZE)`)
//!   and discards the range of anything else (`BLKDISCARD`); its result is the length. (fio 3.33
//!   issues `BLKDISCARD` on regular files too, which fails with `ENOTTY`.) Syncs result in 0.
//! - The asynchronous engines run trims (and `libaio` also syncs) synchronously inside `queue`,
//!   answering [`Queued::Busy`] while queued I/Os wait for a `commit`, as fio does.
//! - An I/O whose slot does not exist or whose length exceeds the slot's buffer completes with
//!   `-EINVAL`; one naming a file past the table completes with `-EBADF`.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;

mod cpu;
mod device;
mod e4defrag;
mod exec;
mod fileop;
mod fsop;
mod libaio;
mod mmap;
mod net;
mod null;
mod offload;
mod posixaio;
mod splice;
mod sync;
mod uring;

pub use crate::request::{Completion, Ddir, Io};
pub use cpu::{CpuOptions, IoJobs};
pub use device::{DeviceEngine, DeviceEngineConfig, ScsiOptions, ScsiWriteMode, open_device_engine};
pub use e4defrag::E4defragOptions;
pub use exec::ExecOptions;
pub use fsop::{CallsMade, FileOp, FileOpsOptions};
pub use net::{NetOptions, NetProto, StopFlag};
pub use offload::{HandOff, OffloadEngine};

use crate::clock::RealClock;
use crate::sys;
use crate::sys::buf::SlotBuffers;
pub use crate::sys::buf::{BufferError, BufferMemory};

/// fio 3.33's `RWF_UNCACHED`, passed on as its value, whatever the running kernel calls it.
pub(crate) const RWF_UNCACHED: i32 = 0x40;

/// `getevents` of the engines that complete I/Os at commit (`null` above depth 1, `vsync`): as
/// fio, the completed I/Os are handed back, and their slots freed, only when the caller waits
/// for some (`min > 0`). Returns how many were appended to `out`.
fn hand_back(min: usize, events: &mut Vec<Completion>, in_flight: &mut [bool], out: &mut Vec<Completion>) -> usize {
    if min == 0 {
        return 0;
    }
    let n = events.len();
    for c in events.drain(..) {
        in_flight[c.tag as usize] = false;
        out.push(c);
    }
    n
}

/// [`Engine::buffer`] of the engines that complete I/Os themselves and keep one in-flight flag
/// per slot (`null`, `vsync`, the in-process device engine).
///
/// # Panics
/// If the slot does not exist or its I/O is in flight.
fn idle_slot_buffer<'a>(bufs: &'a mut SlotBuffers, in_flight: &[bool], tag: u32) -> &'a mut [u8] {
    assert!(!in_flight.get(tag as usize).copied().unwrap_or(false), "slot {tag} is in flight");
    bufs.get_mut(tag as usize).expect("slot out of range")
}

/// Stamp the completions appended to `out` since it held `from` entries with `clock`'s time.
pub(crate) fn stamp(out: &mut [Completion], from: usize, clock: &RealClock) {
    if out.len() > from {
        let now = clock.now_ns();
        for c in &mut out[from..] {
            c.at_ns = now;
        }
    }
}

/// What `queue` did with an I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Done already, the result as in [`Completion::result`]: every I/O of a synchronous engine,
    /// and the I/Os that an asynchronous engine runs inline (trims; syncs for `libaio`) or rejects
    /// before queueing (bad slot, file or length).
    Completed(i32),
    /// Queued; it is sent by the next `commit` and reaped by `getevents`.
    Queued,
    /// Not now: all slots are queued or in flight, this slot still is, or the I/O must wait until
    /// the queued ones are committed (`vsync`'s non-contiguous I/O, an inline trim). Commit, reap
    /// completions, then queue it again.
    Busy,
}

/// How to build an engine.
#[derive(Debug)]
pub struct EngineConfig {
    /// Slots: the most I/Os in flight at once (`iodepth`), at least 1.
    pub depth: u32,
    /// Size of each slot's buffer (the largest block size of the job), at most `i32::MAX`.
    pub buffer_size: usize,
    /// Buffer alignment, a power of two (the page size; at least the logical block size for
    /// O_DIRECT); 0 means the page size.
    pub buffer_align: usize,
    /// Where each slot's buffer starts past its alignment (fio's `iomem_align`; 0 for aligned
    /// buffers).
    pub buffer_offset: usize,
    /// Where the buffers live (fio's `mem=`).
    pub buffer_memory: BufferMemory,
    /// The files, in the job's order; `Io::file` indexes this table.
    pub files: Vec<OwnedFd>,
    /// The clock completions are stamped with (the job's clock, so both share one time base).
    pub clock: RealClock,
}

/// Why an engine could not be set up or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// A bad configuration (a depth of 0, an alignment that is not a power of two, a setting out
    /// of range).
    #[error("ioengine {engine}: {why}")]
    Option {
        /// The engine.
        engine: &'static str,
        /// What is wrong.
        why: String,
    },
    /// A network engine's setup call failed (`connect`, `bind`, `accept`…), named as fio names
    /// it.
    #[error("ioengine {engine}: {what}: {}", zonekit_core::io_text(source))]
    Net {
        /// The engine.
        engine: &'static str,
        /// The call.
        what: &'static str,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The `e4defrag` engine's donor file could not be opened, preallocated or read (fio's
    /// `io_queue_init` failing).
    #[error("ioengine e4defrag: donor file {}: {what}: {}", donor.display(), zonekit_core::io_text(source))]
    Donor {
        /// The donor file.
        donor: std::path::PathBuf,
        /// The call that failed, with its arguments (`fallocate(offset 0, length 0)`).
        what: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The I/O buffers could not be set up in the memory asked for (fio's `mem=`): the call that
    /// failed, in fio's words.
    #[error("ioengine {engine}: I/O buffers: {source}")]
    Buffers {
        /// The engine.
        engine: &'static str,
        /// The call and the OS error.
        #[source]
        source: BufferError,
    },
    /// Setting the engine up failed (io_uring_setup, io_setup, memory).
    #[error("ioengine {engine}: {source}")]
    Setup {
        /// The engine.
        engine: &'static str,
        /// The OS error.
        #[source]
        source: io::Error,
    },
}

impl EngineError {
    /// The errno the job fails with: the OS error's, `EINVAL` for a bad setting.
    pub fn errno(&self) -> i32 {
        match self {
            EngineError::Option { .. } => libc::EINVAL,
            EngineError::Buffers { source, .. } => source.source.raw_os_error().unwrap_or(libc::ENOMEM),
            EngineError::Net { source, .. } | EngineError::Setup { source, .. } | EngineError::Donor { source, .. } => {
                source.raw_os_error().unwrap_or(libc::EIO)
            }
        }
    }
}

/// An I/O engine.
///
/// An engine is `Send`: build it anywhere, but use it from one thread once its first I/O is
/// committed (`io_uring` binds its ring to that thread, as fio's single-issuer rings are).
pub trait Engine: Send {
    /// fio's name of the engine (`psync`, `io_uring`…).
    fn name(&self) -> &'static str;

    /// Whether `queue` completes every I/O itself (sync engines: no submission latency).
    fn is_sync(&self) -> bool;

    /// The buffer of slot `tag` (`buffer_size` bytes).
    ///
    /// # Panics
    /// If the slot does not exist, or its I/O is queued or in flight (the kernel may be using it).
    fn buffer(&mut self, tag: u32) -> &mut [u8];

    /// Queue an I/O on slot `tag`.
    fn queue(&mut self, io: &Io) -> Queued;

    /// Queue a read or write on slot `tag` with an I/O priority of its own (`ioprio`: the
    /// kernel's class << 13 | level), as fio's `cmdprio*` options give one: `io_uring` puts it in
    /// the SQE, `libaio` in the iocb (`IOCB_FLAG_IOPRIO`). Engines without a per-I/O priority
    /// queue the I/O as [`Engine::queue`] does.
    fn queue_prio(&mut self, io: &Io, ioprio: u16) -> Queued {
        let _ = ioprio;
        self.queue(io)
    }

    /// Send every queued I/O to the kernel; returns how many were sent.
    fn commit(&mut self) -> io::Result<usize>;

    /// Wait for at least `min` completions (0: take what is ready) and take at most `max` of
    /// them (fio's `iodepth_batch_complete_max`; a `max` below `min` counts as `min`), append them
    /// to `out`; returns how many were appended. `min` is capped at the number of I/Os committed
    /// and not yet reaped, so this never waits for an I/O that was not committed. Completions
    /// beyond `max` stay with the engine for a later call, except in the engines that complete
    /// I/Os at commit (`null`, `vsync`), which hand back all of them, and `posixaio`, which hands
    /// back every request that has finished, as fio's do.
    fn getevents(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize>;

    /// What the devices this engine serves in process did, per file of its table, as the
    /// kernel counts it in `/sys/block/<dev>/stat` (empty for engines over the kernel, whose
    /// devices the kernel counts itself).
    fn disk_counts(&self) -> &[DiskCounts] {
        &[]
    }

    /// When a completion may next be ready, for engines whose devices complete commands at
    /// times a timing model gives (the in-process engine of a timed device): `getevents` hands
    /// back only what has completed by the clock's time, so a caller that needs completions
    /// sleeps on its clock until then and asks again. `None` for every other engine (their
    /// `getevents` waits by itself), and when nothing is in flight.
    fn next_event(&self) -> Option<u64> {
        None
    }

    /// Whether the engine has nothing more to do: the peer of a network engine ended the
    /// stream or sent fio's link-close message (the I/O that found it out completed with 0
    /// bytes and is not an I/O of the job). Always `false` for engines over files.
    fn finished(&self) -> bool {
        false
    }

    /// Datagrams a UDP receiver found missing from the sender's sequence (fio's `dropped=`).
    fn dropped(&self) -> u64 {
        0
    }

    /// fio's `FIO_NOIO`: the engine moves no data (`cpuio`, `exec`), so each I/O counts as one
    /// I/O of the job with no bytes, never as a short one.
    fn moves_no_data(&self) -> bool {
        false
    }

    /// fio's `FIO_NOSTATS`: the I/Os count (number and bytes) but their latencies are not
    /// recorded; the latencies of the calls the engine times itself are
    /// ([`Engine::take_latencies`]: `filecreate`, `filestat`, `filedelete`).
    fn own_latencies(&self) -> bool {
        false
    }

    /// Moves the latencies (ns) the engine measured since the last call into `out`.
    fn take_latencies(&mut self, _out: &mut Vec<u64>) {}

    /// The think time (µs) after the last I/O, for an engine that sets it itself (`cpuio`'s
    /// `qsort` mode, from how long its last sort took); `None`: the job's own.
    fn think_time_us(&self) -> Option<u64> {
        None
    }

    /// Take `files` as the engine's file table in place of the one it has, whose files it
    /// closes, and keep everything else (its ring or AIO context, its slots and their buffers):
    /// fio closes a job's files between two `loops` and opens them again (new files, with
    /// `unlink_each_loop`), keeping its engine. Nothing may be queued or in flight. Engines
    /// with no file table of their own refuse.
    fn reopen_files(&mut self, files: Vec<OwnedFd>) -> Result<(), EngineError> {
        drop(files);
        Err(EngineError::Option { engine: self.name(), why: "cannot open its files again".into() })
    }

    /// The job closed its files and will open them again at their next use (fio's
    /// `close_files` between two `loops`): an engine whose work is opening a file
    /// (`filecreate`, `filestat`, `filedelete`) makes its call again then. Other engines keep
    /// their files open and do nothing.
    fn files_closed(&mut self) {}

    /// Why the last failed I/O failed, when the engine's own call failed rather than an I/O:
    /// the errno and fio's name of the call (`stat(FILE) type=1`, `open(FILE)`), taken once.
    fn failure(&mut self) -> Option<(i32, String)> {
        None
    }

    /// Whether the engine hands its I/Os to submission threads of its own (fio's
    /// `io_submit_mode=offload`, [`OffloadEngine`]): each I/O is then issued, and its times
    /// taken, on such a thread ([`Engine::hand_off`]), one at a time per thread.
    fn offloads(&self) -> bool {
        false
    }

    /// For an engine that [`offloads`](Engine::offloads): how the I/O of slot `tag` that
    /// completed last was issued. `None` for every other engine.
    fn hand_off(&self, _tag: u32) -> Option<HandOff> {
        None
    }
}

/// One device's counters, as the kernel keeps them for a block device (`/sys/block/<dev>/stat`):
/// commands completed and sectors moved per direction (read, write), time spent on them, and
/// time busy. A device without a timing model spends no time: its times stay 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiskCounts {
    /// Reads and writes completed.
    pub ios: [u64; 2],
    /// Sectors read and written.
    pub sectors: [u64; 2],
    /// Nanoseconds spent reading and writing (summed over commands).
    pub ticks_ns: [u64; 2],
    /// Nanoseconds with at least one command in progress.
    pub busy_ns: u64,
}

impl DiskCounts {
    /// Add `other`'s counts (the same device, seen by another engine).
    pub fn add(&mut self, other: &DiskCounts) {
        for d in 0..2 {
            self.ios[d] += other.ios[d];
            self.sectors[d] += other.sectors[d];
            self.ticks_ns[d] += other.ticks_ns[d];
        }
        self.busy_ns += other.busy_ns;
    }
}

/// Which engine to build, with the settings of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineKind {
    /// `pread`/`pwrite`, one I/O at a time.
    Psync,
    /// `lseek` (when the offset is not the file position) + `read`/`write`, one I/O at a time.
    Sync,
    /// `preadv`/`pwritev` with one iovec, one I/O at a time.
    Pvsync,
    /// `preadv2`/`pwritev2` with `RWF_*` flags, one I/O at a time.
    Pvsync2(Pvsync2Options),
    /// Contiguous I/Os merged into one `lseek` + `readv`/`writev` at commit.
    Vsync,
    /// io_uring with one slot per in-flight I/O and batched submission.
    IoUring(UringOptions),
    /// Linux native AIO (`io_setup`/`io_submit`/`io_getevents`), called directly.
    Libaio(LibaioOptions),
    /// POSIX AIO of the C library, each I/O handed over as it is queued.
    Posixaio,
    /// Copies to and from a memory map of each file.
    Mmap(MmapOptions),
    /// `splice`/`vmsplice` through a pipe, one I/O at a time.
    Splice,
    /// One `fallocate` per I/O, one at a time.
    Falloc,
    /// One `ftruncate` per write, one at a time.
    Ftruncate,
    /// One `EXT4_IOC_MOVE_EXT` per write with a donor file, one at a time (`e4defrag`).
    E4defrag(E4defragOptions),
    /// No I/O: every request succeeds at once.
    Null,
    /// Sends or receives over one socket (`net`, or `netsplice` with [`NetOptions::splice`]).
    Net(NetOptions),
    /// Burns CPU, one cycle per I/O (`cpuio`).
    Cpu(CpuOptions),
    /// Runs a program beside the job (`exec`).
    Exec(ExecOptions),
    /// One timed file-system call per file (`filecreate`, `filestat`, `filedelete`).
    FileOps(FileOpsOptions),
}

impl EngineKind {
    /// The engine's name, as fio names it and [`Engine::name`] returns it.
    pub fn name(&self) -> &'static str {
        match self {
            EngineKind::Psync => "psync",
            EngineKind::Sync => "sync",
            EngineKind::Pvsync => "pvsync",
            EngineKind::Pvsync2(_) => "pvsync2",
            EngineKind::Vsync => "vsync",
            EngineKind::IoUring(_) => "io_uring",
            EngineKind::Libaio(_) => "libaio",
            EngineKind::Posixaio => "posixaio",
            EngineKind::Mmap(_) => "mmap",
            EngineKind::Splice => "splice",
            EngineKind::Falloc => "falloc",
            EngineKind::Ftruncate => "ftruncate",
            EngineKind::E4defrag(_) => "e4defrag",
            EngineKind::Null => "null",
            EngineKind::Net(o) if o.splice => "netsplice",
            EngineKind::Net(_) => "net",
            EngineKind::Cpu(_) => "cpuio",
            EngineKind::Exec(_) => "exec",
            EngineKind::FileOps(o) => o.op.engine(),
        }
    }
}

/// Settings of the `preadv2`/`pwritev2` engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pvsync2Options {
    /// Share of I/Os, in percent (0 to 100), sent with `RWF_HIPRI` (polled completion); picked
    /// at random, roughly uniformly.
    pub hipri_percentage: u32,
    /// `RWF_NOWAIT` on every I/O: fail with `EAGAIN` rather than block.
    pub nowait: bool,
    /// fio's `RWF_UNCACHED` (`0x40`, the value fio 3.33 defines) on every I/O; the kernel
    /// decides what it means (6.11 and later read it as `RWF_ATOMIC`, which a buffered I/O
    /// fails with `EOPNOTSUPP`, as fio's do).
    pub uncached: bool,
}

/// Settings of the io_uring engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UringOptions {
    /// `IORING_SETUP_IOPOLL`: completions are polled, not interrupt driven (direct I/O on a
    /// polled queue; anything else fails each I/O as the kernel says).
    pub iopoll: bool,
    /// Register the slot buffers (`IORING_REGISTER_BUFFERS`) and use `READ_FIXED`/`WRITE_FIXED`.
    pub fixed_buffers: bool,
    /// Register the files (`IORING_REGISTER_FILES`) and address them by index.
    pub fixed_files: bool,
    /// `IORING_SETUP_SQPOLL`: a kernel thread submits. Implies `fixed_files`.
    pub sqpoll: bool,
    /// `IORING_SETUP_SQ_AFF`: the CPU of the submission thread (with `sqpoll` only).
    pub sqpoll_cpu: Option<u32>,
    /// `Some(true)`: `READV`/`WRITEV` with one iovec; `Some(false)`: `READ`/`WRITE`; `None`: the
    /// non-vectored ops when the kernel has them.
    pub vectored: Option<bool>,
    /// `RWF_NOWAIT` on every transfer: fail with `EAGAIN` rather than block.
    pub nowait: bool,
    /// `IOSQE_ASYNC` (straight to a kernel worker) on every N-th I/O; 0: never.
    pub force_async: u32,
    /// fio's `RWF_UNCACHED` (`0x40`) on every transfer (fio sets it only on buffered I/O); the
    /// kernel decides what it means, as for [`Pvsync2Options::uncached`].
    pub uncached: bool,
    /// The I/O priority of every read and write (the SQE's `ioprio`: class << 13 | level), as fio
    /// sets the job's priority (`prioclass`, `prio`) on each, since a submission thread does not
    /// inherit the issuer's; [`Engine::queue_prio`] gives one I/O another.
    pub ioprio: u16,
}

/// Settings of the native AIO engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LibaioOptions {
    /// Take completions from the kernel's ring in user space, without `io_getevents`, when not
    /// waiting for any.
    pub userspace_reap: bool,
    /// `RWF_NOWAIT` on every transfer: fail with `EAGAIN` rather than block.
    pub nowait: bool,
}

/// Settings of the memory-map engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MmapOptions {
    /// Map writable (the job writes); otherwise read-only.
    pub writable: bool,
    /// `MADV_HUGEPAGE` on each map, which is then private: writes never reach the file (fio's
    /// `thp=1`).
    pub thp: bool,
    /// After each transfer, `msync(MS_SYNC)` and `POSIX_MADV_DONTNEED` of its pages (fio's
    /// `direct=1` for this engine: not direct, but the pages leave the cache).
    pub direct: bool,
    /// Access-pattern advice for each map (fio's `fadvise_hint`).
    pub access: MmapAccess,
}

/// Access-pattern advice (`posix_madvise`) for a memory map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MmapAccess {
    /// No advice.
    #[default]
    Normal,
    /// `POSIX_MADV_SEQUENTIAL`.
    Sequential,
    /// `POSIX_MADV_RANDOM`.
    Random,
}

/// Build the engine `kind` describes over `config`'s files and slots.
pub fn open_engine(kind: EngineKind, config: EngineConfig) -> Result<Box<dyn Engine>, EngineError> {
    Ok(match kind {
        EngineKind::Psync => Box::new(sync::SyncEngine::new(sync::Kind::Psync, config)?),
        EngineKind::Sync => Box::new(sync::SyncEngine::new(sync::Kind::Sync, config)?),
        EngineKind::Pvsync => Box::new(sync::SyncEngine::new(sync::Kind::Pvsync, config)?),
        EngineKind::Pvsync2(o) => Box::new(sync::SyncEngine::new(sync::Kind::Pvsync2(o), config)?),
        EngineKind::Vsync => Box::new(sync::Vsync::new(config)?),
        EngineKind::IoUring(o) => Box::new(uring::UringEngine::new(o, config)?),
        EngineKind::Libaio(o) => Box::new(libaio::LibaioEngine::new(o, config)?),
        EngineKind::Posixaio => Box::new(posixaio::PosixAioEngine::new(config)?),
        EngineKind::Mmap(o) => Box::new(mmap::MmapEngine::new(o, config)?),
        EngineKind::Splice => Box::new(splice::SpliceEngine::new(config)?),
        EngineKind::Falloc => Box::new(fileop::FileOpEngine::new(fileop::Op::Falloc, config)?),
        EngineKind::Ftruncate => Box::new(fileop::FileOpEngine::new(fileop::Op::Ftruncate, config)?),
        EngineKind::E4defrag(o) => Box::new(e4defrag::E4defragEngine::new(o, config)?),
        EngineKind::Null => Box::new(null::NullEngine::new(config)?),
        EngineKind::Net(o) => Box::new(net::NetEngine::new(o, config)?),
        EngineKind::Cpu(o) => Box::new(cpu::CpuEngine::new(o, config)?),
        EngineKind::Exec(o) => Box::new(exec::ExecEngine::new(o, config)?),
        EngineKind::FileOps(o) => Box::new(fsop::FsOpEngine::new(o, config)?),
    })
}

/// What a file of the table is, which decides how a trim is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Regular,
    Block,
    Other,
}

/// One file of an engine's table.
#[derive(Debug)]
pub(crate) struct Target {
    pub file: File,
    pub kind: FileKind,
}

impl Target {
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
}

/// Checked configuration shared by every engine: the file table and the slot buffers.
pub(crate) struct Common {
    pub files: Vec<Target>,
    pub bufs: SlotBuffers,
}

impl Common {
    pub fn new(engine: &'static str, config: &mut EngineConfig) -> Result<Common, EngineError> {
        let bad = |why: &str| EngineError::Option { engine, why: why.to_string() };
        if config.depth == 0 {
            return Err(bad("iodepth must be at least 1"));
        }
        if config.buffer_size > i32::MAX as usize {
            return Err(bad("block size too large (at most 2 GiB - 1)"));
        }
        if config.buffer_align != 0 && !config.buffer_align.is_power_of_two() {
            return Err(bad("buffer alignment must be a power of two"));
        }
        let files = targets(engine, std::mem::take(&mut config.files))?;
        let bufs = SlotBuffers::with(
            config.depth as usize,
            config.buffer_size,
            config.buffer_align,
            config.buffer_offset,
            &config.buffer_memory,
        )
        .map_err(|source| EngineError::Buffers { engine, source })?;
        Ok(Common { files, bufs })
    }

    pub fn raw_fds(&self) -> Vec<std::os::fd::RawFd> {
        raw_fds(&self.files)
    }
}

/// The file table of `fds`, each file's kind read from the file itself.
pub(crate) fn targets(engine: &'static str, fds: Vec<OwnedFd>) -> Result<Vec<Target>, EngineError> {
    fds.into_iter()
        .map(|fd| {
            let file = File::from(fd);
            let ft = file.metadata().map_err(|source| EngineError::Setup { engine, source })?.file_type();
            let kind = if ft.is_file() {
                FileKind::Regular
            } else if ft.is_block_device() {
                FileKind::Block
            } else {
                FileKind::Other
            };
            Ok(Target { file, kind })
        })
        .collect()
}

/// The raw descriptors of a file table, in its order.
pub(crate) fn raw_fds(files: &[Target]) -> Vec<std::os::fd::RawFd> {
    use std::os::fd::AsRawFd;
    files.iter().map(|t| t.file.as_raw_fd()).collect()
}

/// Result of a transfer as the engine reports it: bytes, or `-errno`.
#[inline]
pub(crate) fn io_result(r: io::Result<usize>) -> i32 {
    match r {
        Ok(n) => n as i32,
        Err(e) => sys::neg_errno(&e),
    }
}

/// Trim `len` bytes at `offset`: punch a hole in a regular file, `BLKDISCARD` anything else.
pub(crate) fn trim(t: &Target, offset: u64, len: u32) -> i32 {
    let r = match t.kind {
        FileKind::Regular => {
            let mode = rustix::fs::FallocateFlags::PUNCH_HOLE | rustix::fs::FallocateFlags::KEEP_SIZE;
            sys::io::fallocate(t.fd(), mode, offset, u64::from(len))
        }
        FileKind::Block | FileKind::Other => sys::io::blkdiscard(t.fd(), offset, u64::from(len)),
    };
    match r {
        Ok(()) => len as i32,
        Err(e) => sys::neg_errno(&e),
    }
}

/// Reset the zones of `len` bytes at `offset` of a zoned block device (`BLKRESETZONE`): 0 or
/// `-errno`. Anything but a block device has no zones to reset: `-EOPNOTSUPP`.
pub(crate) fn reset_zones(t: &Target, offset: u64, len: u32) -> i32 {
    if t.kind != FileKind::Block {
        return -libc::EOPNOTSUPP;
    }
    match zonekit_dev::linux::sys::blkresetzone(t.fd(), offset >> 9, u64::from(len) >> 9) {
        Ok(()) => 0,
        Err(e) => sys::neg_errno(&e),
    }
}

/// The operations every engine runs inline, whatever its queue: trims, syncs and zone resets.
pub(crate) fn inline_op(t: &Target, io: &Io) -> i32 {
    match io.ddir {
        Ddir::Trim => trim(t, io.offset, io.len),
        Ddir::ZoneReset => reset_zones(t, io.offset, io.len),
        Ddir::Sync | Ddir::DataSync => sync_file(t, io.ddir == Ddir::DataSync),
        Ddir::SyncFileRange(flags) => sync_range(t, io.offset, io.len, flags),
        Ddir::Read | Ddir::Write => -libc::EINVAL,
    }
}

/// `sync_file_range` of `len` bytes at `offset` (fio's `do_sync_file_range`: nothing written,
/// nothing to do): 0 or `-errno`.
pub(crate) fn sync_range(t: &Target, offset: u64, len: u32, flags: u32) -> i32 {
    if len == 0 {
        return 0;
    }
    match sys::io::sync_file_range(t.fd(), offset, u64::from(len), flags) {
        Ok(()) => 0,
        Err(e) => sys::neg_errno(&e),
    }
}

/// `fsync` or `fdatasync`: 0 or `-errno`.
pub(crate) fn sync_file(t: &Target, datasync: bool) -> i32 {
    let r = if datasync { t.file.sync_data() } else { t.file.sync_all() };
    match r {
        Ok(()) => 0,
        Err(e) => sys::neg_errno(&e),
    }
}

/// Check the slot and length of a transfer; `-EINVAL` if the slot does not exist or is too small.
#[inline]
pub(crate) fn check_len(bufs: &SlotBuffers, io: &Io) -> Result<(), i32> {
    if (io.tag as usize) < bufs.count() && io.len as usize <= bufs.size() { Ok(()) } else { Err(-libc::EINVAL) }
}

#[cfg(test)]
pub(crate) mod tests;
