//! Typed job options: what one job asks for once the option table has parsed its text and
//! `job.rs` has applied fio's cross-option fixups (`init.c:fixup_options`).
//!
//! Field names are fio's option names in snake_case; they stay stable. Per-direction arrays are
//! indexed read 0, write 1, trim 2, as fio's `DDIR_*` and the workload's arrays are.

use crate::verify::{Pattern, VerifyType};
use std::collections::BTreeSet;
use std::time::Duration;

/// Index of the read direction in per-direction arrays.
pub const READ: usize = 0;
/// Index of the write direction in per-direction arrays.
pub const WRITE: usize = 1;
/// Index of the trim direction in per-direction arrays.
pub const TRIM: usize = 2;

/// A size that fio lets the user give as bytes, as a percentage of the file or device, or as a
/// number of zones (`size`, `offset`, `io_size`, `offset_increment`, `zoneskip`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeSpec {
    /// An absolute number of bytes.
    Bytes(u64),
    /// A percentage (0–100) of the file or device size (`size=50%`).
    Percent(u32),
    /// A number of zones (`size=8z`), resolved against the zone size when files are set up.
    Zones(u32),
}

impl SizeSpec {
    /// The byte count if the value is absolute.
    pub fn bytes(self) -> Option<u64> {
        match self {
            SizeSpec::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// True for `Bytes(0)`, fio's "not set" for `size`, `offset` and `io_size`.
    pub fn is_zero(self) -> bool {
        matches!(self, SizeSpec::Bytes(0) | SizeSpec::Percent(0) | SizeSpec::Zones(0))
    }
}

/// The I/O pattern of `rw=` (fio's `td_ddir`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RwMode {
    /// `read`: sequential reads.
    Read,
    /// `write`: sequential writes.
    Write,
    /// `trim`: sequential trims.
    Trim,
    /// `randread`: random reads.
    RandRead,
    /// `randwrite`: random writes.
    RandWrite,
    /// `randtrim`: random trims.
    RandTrim,
    /// `rw` / `readwrite`: sequential mixed reads and writes.
    ReadWrite,
    /// `randrw`: random mixed reads and writes.
    RandRw,
    /// `trimwrite`: sequential trim then write of each block.
    TrimWrite,
    /// `randtrimwrite`: random trim then write of each block.
    RandTrimWrite,
}

impl RwMode {
    /// fio's name of the mode, as `rw=` takes it (`readwrite` is reported as `rw`).
    pub fn name(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::Trim => "trim",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::RandTrim => "randtrim",
            RwMode::ReadWrite => "rw",
            RwMode::RandRw => "randrw",
            RwMode::TrimWrite => "trimwrite",
            RwMode::RandTrimWrite => "randtrimwrite",
        }
    }

    /// True when offsets are random.
    pub fn is_random(self) -> bool {
        matches!(self, RwMode::RandRead | RwMode::RandWrite | RwMode::RandTrim | RwMode::RandRw | RwMode::RandTrimWrite)
    }

    /// True when the job reads.
    pub fn reads(self) -> bool {
        matches!(self, RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRw)
    }

    /// True when the job writes.
    pub fn writes(self) -> bool {
        matches!(
            self,
            RwMode::Write
                | RwMode::RandWrite
                | RwMode::ReadWrite
                | RwMode::RandRw
                | RwMode::TrimWrite
                | RwMode::RandTrimWrite
        )
    }

    /// True when the job trims.
    pub fn trims(self) -> bool {
        matches!(self, RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite | RwMode::RandTrimWrite)
    }

    /// True for the mixed read/write modes where `rwmixread` applies.
    pub fn is_mixed(self) -> bool {
        matches!(self, RwMode::ReadWrite | RwMode::RandRw)
    }
}

/// How offsets follow the random one chosen every `N` I/Os of `rw=randX:N` (`rw_sequencer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RwSequencer {
    /// `sequential`: the next `N - 1` offsets follow on sequentially.
    Sequential,
    /// `identical`: the same offset is used `N` times.
    Identical,
}

/// One entry of `bssplit`: a block size and the percentage of I/Os that use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BsSplit {
    /// Block size in bytes.
    pub bs: u64,
    /// Percentage of I/Os (0–100) of that size; the entries of one direction add up to 100.
    pub perc: u32,
}

/// One entry of `random_distribution=zoned:` / `zoned_abs:`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoneSplit {
    /// Percentage of accesses that go to this part of the range.
    pub access_perc: u32,
    /// Size of the part: percent of the range (`zoned`) or bytes (`zoned_abs`).
    pub size: u64,
}

/// How random offsets are distributed (`random_distribution`).
#[derive(Debug, Clone, PartialEq)]
pub enum RandomDistribution {
    /// `random`: uniform.
    Random,
    /// `zipf[:θ[:center]]`; θ defaults to 1.1 and must not be 1.0.
    Zipf {
        /// The exponent θ.
        theta: f64,
        /// Where the hot spot sits in the range, 0.0–1.0 (`None`: fio's default).
        center: Option<f64>,
    },
    /// `pareto[:h[:center]]`; 0 < h < 1, default 0.2.
    Pareto {
        /// The shape h.
        h: f64,
        /// Where the hot spot sits in the range, 0.0–1.0.
        center: Option<f64>,
    },
    /// `normal[:σ[:center]]`: Gaussian with deviation σ in percent of the range (0 ≤ σ < 100).
    Normal {
        /// The deviation in percent of the range.
        sigma: f64,
        /// Where the mean sits in the range, 0.0–1.0.
        center: Option<f64>,
    },
    /// `zoned:a/s:…` per direction: `a`% of accesses to `s`% of the range.
    Zoned([Vec<ZoneSplit>; 3]),
    /// `zoned_abs:a/s:…` per direction: `a`% of accesses to `s` bytes.
    ZonedAbs([Vec<ZoneSplit>; 3]),
}

/// `zonemode`: how the zone options are interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneMode {
    /// `none`: no zones.
    None,
    /// `strided`: `zonesize` bytes of each `zonerange`, then skip `zoneskip`.
    Strided,
    /// `zbd`: zoned block device rules (writes at write pointers).
    Zbd,
}

/// fio's steady-state detection (`steadystate=iops_slope:0.01%`, `ss_dur`, `ss_ramp`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyOptions {
    /// Judge IOPS (else bandwidth in bytes/s).
    pub iops: bool,
    /// Judge the slope of a least-squares line (else the largest deviation from the mean).
    pub slope: bool,
    /// The limit is a percentage of the mean.
    pub percent: bool,
    /// The limit: below it, the job is steady.
    pub limit: f64,
    /// `steadystate_duration`: the window, in whole seconds (0: off).
    pub dur_sec: u32,
    /// `steadystate_ramp_time`: no data before this long (plus one second) into the job.
    pub ramp: Duration,
}

impl Default for SteadyOptions {
    fn default() -> Self {
        SteadyOptions { iops: true, slope: true, percent: true, limit: 0.01, dur_sec: 0, ramp: Duration::ZERO }
    }
}

/// Which errors `continue_on_error` lets a job continue past (fio's bit mask).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContinueOnError {
    /// Continue on read errors.
    pub read: bool,
    /// Continue on write errors.
    pub write: bool,
    /// Continue on verify errors.
    pub verify: bool,
}

/// Engine options of `io_uring` (and `io_uring_cmd`) that zonekit understands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IoUringOptions {
    /// `hipri`: polled completions (IORING_SETUP_IOPOLL).
    pub hipri: bool,
    /// `fixedbufs`: register the I/O buffers with the ring.
    pub fixedbufs: bool,
    /// `registerfiles`: register the files with the ring.
    pub registerfiles: bool,
    /// `sqthread_poll`: a kernel thread polls the submission queue.
    pub sqthread_poll: bool,
    /// `sqthread_poll_cpu`: CPU of the polling thread.
    pub sqthread_poll_cpu: Option<u32>,
    /// `nonvectored`: plain READ/WRITE opcodes instead of READV/WRITEV (fio 3.33 default: -1, i.e. on
    /// when the kernel supports it; `None` keeps that default).
    pub nonvectored: Option<bool>,
    /// `uncached`: RWF_UNCACHED for buffered I/O.
    pub uncached: bool,
    /// `nowait`: RWF_NOWAIT.
    pub nowait: bool,
    /// `force_async`: set IOSQE_ASYNC on every N-th request (0: never).
    pub force_async: u32,
}

/// Engine options of `libaio` that zonekit understands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LibaioOptions {
    /// `userspace_reap`: reap completions from the ring in user space.
    pub userspace_reap: bool,
    /// `nowait`: RWF_NOWAIT.
    pub nowait: bool,
}

/// Engine options of `cpuio`, `exec` and `filestat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoIoOptions {
    /// `cpuload`: percentage of a CPU to use (0: unset, which `cpuio` refuses).
    pub cpuload: u32,
    /// `cpumode=qsort` (else `noop`).
    pub cpumode_qsort: bool,
    /// `cpuchunks`: microseconds of one burn cycle (fio's default 50000).
    pub cpuchunks: u32,
    /// `exit_on_io_done`: stop when the other jobs' I/O is done.
    pub exit_on_io_done: bool,
    /// `program`: what `exec` runs.
    pub program: Option<String>,
    /// `arguments`: its arguments (`%r`, `%n` not yet replaced).
    pub arguments: Option<String>,
    /// `grace_time`: seconds between SIGTERM and the job's end (fio's default 1).
    pub grace_time: u32,
    /// `std_redirect`: the program's output to `<job>.stdout` / `<job>.stderr` (default on).
    pub std_redirect: bool,
    /// `stat_type`: `stat`, `lstat` or `statx`.
    pub stat_type: String,
}

impl Default for NoIoOptions {
    fn default() -> Self {
        NoIoOptions {
            cpuload: 0,
            cpumode_qsort: false,
            cpuchunks: 50000,
            exit_on_io_done: false,
            program: None,
            arguments: None,
            grace_time: 1,
            std_redirect: true,
            stat_type: "stat".into(),
        }
    }
}

/// Engine options of `pvsync2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pvsync2Options {
    /// `hipri`: RWF_HIPRI on every I/O.
    pub hipri: bool,
    /// `hipri_percentage`: RWF_HIPRI on this percentage of I/Os (with `hipri`; fio's default 100).
    pub hipri_percentage: u32,
    /// `uncached`: RWF_UNCACHED.
    pub uncached: bool,
    /// `nowait`: RWF_NOWAIT.
    pub nowait: bool,
}

impl Default for Pvsync2Options {
    fn default() -> Self {
        Pvsync2Options { hipri: false, hipri_percentage: 100, uncached: false, nowait: false }
    }
}

/// Engine options of `sg` (zonekit runs it on its emulated devices only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SgJobOptions {
    /// `hipri`: polled completion (no effect in process).
    pub hipri: bool,
    /// `readfua`: FUA on reads.
    pub readfua: bool,
    /// `writefua`: FUA on writes (`write` and `write_stream` modes, as fio).
    pub writefua: bool,
    /// `sg_write_mode`, canonical (`write`, `write_and_verify`, `write_same`, `write_same_ndob`,
    /// `write_stream`, `verify_bytchk_00`, `verify_bytchk_01`, `verify_bytchk_11`).
    pub write_mode: String,
    /// `stream_id`: the WRITE STREAM(16) stream (0: fio opens one).
    pub stream_id: u32,
}

impl Default for SgJobOptions {
    fn default() -> Self {
        SgJobOptions { hipri: false, readfua: false, writefua: false, write_mode: "write".into(), stream_id: 0 }
    }
}

/// Engine options of `e4defrag`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct E4defragJobOptions {
    /// `donorname`: the donor file, in `directory` (required).
    pub donorname: Option<String>,
    /// `inplace`: allocate the donor's blocks for each I/O and free them after it.
    pub inplace: bool,
}

/// Engine options of `net` and `netsplice` (`hostname` is the job's `filename`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NetJobOptions {
    /// `port`: TCP or UDP port (0: not given).
    pub port: u32,
    /// `protocol`: `tcp`, `tcpv6`, `udp`, `udpv6` or `unix`.
    pub protocol: String,
    /// `listen`: wait for the connection instead of connecting.
    pub listen: bool,
    /// `pingpong`: echo each message.
    pub pingpong: bool,
    /// `nodelay`: TCP_NODELAY.
    pub nodelay: bool,
    /// `window_size`: socket buffer size (0: the system's).
    pub window_size: u32,
    /// `mss`: TCP maximum segment size (0: the system's).
    pub mss: u32,
    /// `interface`: multicast interface address.
    pub interface: Option<String>,
    /// `ttl`: multicast time to live.
    pub ttl: u32,
}

/// The options of one job after parsing and fio's fixups.
///
/// Invariants after `job::resolve`: `bs`, `min_bs`, `max_bs` are ≥ 1 and `min_bs ≤ bs ≤ max_bs`
/// per direction; `rwmixread + rwmixwrite == 100`; `direct == !buffered`;
/// `iodepth_batch_submit ≤ iodepth` and non-zero; `iodepth_batch_complete_min ≤
/// iodepth_batch_complete_max`; `time_based` implies `runtime.is_some()`; `blockalign` is non-zero.
#[derive(Debug, Clone, PartialEq)]
pub struct JobOptions {
    // ---- description ----
    /// `name`: the job's name (the section name or `--name`).
    pub name: String,
    /// `description`: free text, echoed in the JSON output.
    pub description: Option<String>,

    // ---- files ----
    /// `filename`: the raw `:`-separated list; see [`JobOptions::filenames`].
    pub filename: Option<String>,
    /// `directory`: directory (or `:`-separated directories) for generated file names.
    pub directory: Option<String>,
    /// `opendir`: every regular file below this directory is one of the job's files.
    pub opendir: Option<String>,
    /// `filename_format`: template for generated names (`$jobname.$jobnum.$filenum`).
    pub filename_format: String,
    /// `unique_filename`: prefix file names with the client address (client/server mode only).
    pub unique_filename: bool,
    /// `nrfiles`: number of files per job.
    pub nrfiles: u32,
    /// `openfiles`: files kept open at once (0: all).
    pub openfiles: u32,
    /// `file_service_type`: how the next file is chosen (fio's value, as written, e.g.
    /// `roundrobin`, `random`, `sequential`, `zipf:1.2`).
    pub file_service_type: String,
    /// `filesize`: size of each file, as a range `(low, high)` (equal when not a range); `None`:
    /// `size / nrfiles`.
    pub filesize: Option<(u64, u64)>,
    /// `size`: total size of the job's I/O region; `None`: the size of the files.
    pub size: Option<SizeSpec>,
    /// `fill_device` / `fill_fs`: write until the device is full.
    pub fill_device: bool,
    /// `file_append`: start I/O at the end of the file.
    pub file_append: bool,
    /// `offset`: where I/O starts in each file.
    pub offset: SizeSpec,
    /// `offset_increment`: added to `offset` for each clone of `numjobs`.
    pub offset_increment: SizeSpec,
    /// `offset_align`: alignment of a percentage `offset` (0: the minimum block size).
    pub offset_align: u64,
    /// `io_size` / `io_limit`: bytes to transfer; `None`: `size`.
    pub io_size: Option<SizeSpec>,
    /// `number_ios`: stop after this many I/Os (0: no limit).
    pub number_ios: u64,
    /// `loops`: repeat the job this many times.
    pub loops: u32,
    /// `create_serialize`, `create_fsync`, `create_on_open`, `create_only`, `allow_file_create`,
    /// `pre_read`, `overwrite`: file layout controls.
    pub create_serialize: bool,
    /// `create_fsync`: fsync a file after laying it out.
    pub create_fsync: bool,
    /// `create_on_open`: create files when they are opened for I/O.
    pub create_on_open: bool,
    /// `--readonly` (a switch of the command line, fio's global `read_only`): besides refusing
    /// jobs that write or trim, no file is created or extended by the layout.
    pub readonly: bool,
    /// `create_only`: only lay out the files.
    pub create_only: bool,
    /// `allow_file_create`: may create files that do not exist.
    pub allow_file_create: bool,
    /// `pre_read`: read the files into the page cache before the job.
    pub pre_read: bool,
    /// `overwrite`: lay the file out first, so writes overwrite data (forced on when reading).
    pub overwrite: bool,
    /// `fallocate`: `none`, `native`, `posix`, `keep`, `truncate` (`0` = none, `1` = posix).
    pub fallocate: String,
    /// `mem` / `iomem`: where the I/O buffers live (`malloc`, `shm`, `shmhuge`, `mmap`,
    /// `mmapshared`, `mmaphuge`).
    pub mem: String,
    /// The file after `mem=mmap…:` (fio's `mmapfile`).
    pub mmapfile: Option<String>,
    /// `iomem_align` / `mem_align`: the buffers start this many bytes past the page.
    pub iomem_align: u32,
    /// `hugepage-size`: the huge page size the buffers are rounded up to with `shmhuge` and
    /// `mmaphuge`.
    pub hugepage_size: u64,
    /// `fadvise_hint`: `0` (none), `1` (the job's pattern), `random`, `sequential`.
    pub fadvise_hint: String,
    /// `write_hint`: the write-life hint set on each file as it is opened (`None`: not set).
    pub write_hint: Option<String>,
    /// `unlink`: delete the files when the job ends.
    pub unlink: bool,
    /// `unlink_each_loop`: delete the files after each loop.
    pub unlink_each_loop: bool,
    /// `serialize_overlap`: hold back an I/O that overlaps one in flight.
    pub serialize_overlap: bool,
    /// `sync_file_range`: its `SYNC_FILE_RANGE_*` flags, and every how many writes (0: never).
    pub sync_file_range: (u32, u64),
    /// `lockfile`: `none`, `exclusive` or `readwrite`.
    pub lockfile: String,
    /// `exec_prerun`: a shell command run before the job's I/O (its output to `<name>.prerun.txt`).
    pub exec_prerun: Option<String>,
    /// `exec_postrun`: a shell command run after the job (its output to `<name>.postrun.txt`).
    pub exec_postrun: Option<String>,
    /// `lockmem`: bytes to mlock for the job's run (0: none).
    pub lockmem: u64,
    /// `invalidate`: drop the page cache of the files before the job.
    pub invalidate: bool,

    // ---- the I/O pattern ----
    /// `rw` / `readwrite`: the pattern.
    pub rw: RwMode,
    /// The `:N` suffix of `rw`: for random modes a new random offset every N I/Os (default 1);
    /// for sequential modes a gap of N bytes added after each I/O (default 0; a negative gap, as
    /// in fio's `rw=read:-8k`, shows here as 0 and in [`JobOptions::rw_seq_add`]).
    pub rw_modifier: u64,
    /// The signed gap of a sequential `rw=…:N` in bytes (fio's `ddir_seq_add`); negative values
    /// read backwards. 0 for random modes.
    pub rw_seq_add: i64,
    /// `rw_sequencer`.
    pub rw_sequencer: RwSequencer,
    /// `rwmixread`: percent of reads in mixed modes.
    pub rwmixread: u32,
    /// `rwmixwrite`: percent of writes in mixed modes (always `100 - rwmixread`).
    pub rwmixwrite: u32,
    /// `percentage_random`: percent of random I/Os per direction in random modes.
    pub percentage_random: [u32; 3],
    /// `bs` / `blocksize` per direction (`bs=r,w,t`).
    pub bs: [u64; 3],
    /// Smallest block size per direction (`bsrange`, `bssplit`; else `bs`).
    pub min_bs: [u64; 3],
    /// Largest block size per direction.
    pub max_bs: [u64; 3],
    /// `bsrange` / `blocksize_range` as given, per direction.
    pub bsrange: Option<[(u64, u64); 3]>,
    /// `bssplit` per direction (empty: not used), sorted by percentage as fio sorts it.
    pub bssplit: [Vec<BsSplit>; 3],
    /// `blockalign` / `ba` per direction (resolved: the minimum block size unless given for a
    /// random job).
    pub blockalign: [u64; 3],
    /// `bs_unaligned`: block sizes need not be multiples of 512.
    pub bs_unaligned: bool,
    /// `bs_is_seq_rand`: `bs=a,b` means sequential,random instead of read,write.
    pub bs_is_seq_rand: bool,
    /// `randrepeat`: seed the generators the same way every run (off when `randseed` is set).
    pub randrepeat: bool,
    /// `randrepeat` as given, before a `randseed` turns it off: what fio seeds the generators
    /// with (it seeds them in between).
    pub randrepeat_seeding: bool,
    /// `allrandrepeat`: `randrepeat` for every generator.
    pub allrandrepeat: bool,
    /// `randseed`: the seed (fio's default 0x89).
    pub randseed: u64,
    /// `norandommap`: do not track which blocks were done (forced on by a non-uniform
    /// distribution or `blockalign`).
    pub norandommap: bool,
    /// `softrandommap`: carry on without the map if it cannot be allocated.
    pub softrandommap: bool,
    /// `random_generator`: `tausworthe`, `lfsr` or `tausworthe64`.
    pub random_generator: String,
    /// `random_distribution`.
    pub random_distribution: RandomDistribution,

    // ---- engine and queue ----
    /// `ioengine`: the engine name as written (e.g. `psync`, `io_uring`, `libaio`, `null`).
    pub ioengine: String,
    /// `iodepth`: I/Os kept in flight.
    pub iodepth: u32,
    /// `iodepth_batch` / `iodepth_batch_submit`: I/Os submitted at once (resolved: ≤ iodepth,
    /// 0 becomes iodepth).
    pub iodepth_batch_submit: u32,
    /// `iodepth_batch_complete_min` / `iodepth_batch_complete`: least completions to wait for.
    pub iodepth_batch_complete_min: u32,
    /// `iodepth_batch_complete_max`: most completions to reap at once (fio's default 0; resolved:
    /// raised to `iodepth_batch_complete_min` when below it).
    pub iodepth_batch_complete_max: u32,
    /// `iodepth_low`: refill the queue when it drains to this (fio's default 0; resolved: 0 or
    /// above `iodepth` becomes `iodepth`).
    pub iodepth_low: u32,
    /// `io_submit_mode`: `inline` or `offload`.
    pub io_submit_mode: String,
    /// `direct`: O_DIRECT (the negation of `buffered`).
    pub direct: bool,
    /// `buffered`: always `!direct`.
    pub buffered: bool,
    /// `sync`: `none`, `sync` (O_SYNC) or `dsync` (O_DSYNC).
    pub sync: String,
    /// `fsync`: fsync after this many writes (0: never).
    pub fsync: u32,
    /// `fdatasync`: fdatasync after this many writes (0: never).
    pub fdatasync: u32,
    /// `end_fsync`: fsync the files when the job ends.
    pub end_fsync: bool,
    /// `fsync_on_close`: fsync each file when it is closed.
    pub fsync_on_close: bool,
    /// `atomic`: O_ATOMIC writes, which imply `direct` (fio 3.33's Linux flag has no effect).
    pub atomic: bool,
    /// `io_uring` / `io_uring_cmd` engine options.
    pub io_uring: IoUringOptions,
    /// `libaio` engine options.
    pub libaio: LibaioOptions,
    /// `cmdprio*` options of `io_uring` and `libaio`: per-I/O priorities.
    pub cmdprio: super::cmdprio::CmdprioOptions,
    /// `prio`: the job's I/O priority level.
    pub prio: u32,
    /// `prioclass`: the job's I/O priority class.
    pub prioclass: u32,
    /// `pvsync2` engine options.
    pub pvsync2: Pvsync2Options,
    /// `mmap` engine option `thp`: transparent huge pages (a private map).
    pub mmap_thp: bool,
    /// `cpuio`, `exec` and `filestat` engine options.
    pub noio: NoIoOptions,
    /// `net` / `netsplice` engine options.
    pub net: NetJobOptions,
    /// `sg` engine options.
    pub sg: SgJobOptions,
    /// `e4defrag` engine options.
    pub e4defrag: E4defragJobOptions,

    // ---- jobs, threads, groups ----
    /// `numjobs`: clones of this job.
    pub numjobs: u32,
    /// `thread`: run jobs as threads (zonekit always uses threads).
    pub thread: bool,
    /// `group_reporting`: report the group as one.
    pub group_reporting: bool,
    /// `new_group`: this job starts a new reporting group.
    pub new_group: bool,
    /// `stonewall` / `wait_for_previous`: wait for earlier jobs, start a new group.
    pub stonewall: bool,
    /// `wait_for`: name of a job this one waits for.
    pub wait_for: Option<String>,
    /// `exitall`: when this job ends, end the others.
    pub exitall: bool,
    /// `exit_what`: what `exitall` ends: `group`, `stonewall` or `all`.
    pub exit_what: String,
    /// `exitall_on_error`: end all jobs when this one fails.
    pub exitall_on_error: bool,
    /// `steadystate`, `steadystate_duration`, `steadystate_ramp_time`.
    pub steadystate: SteadyOptions,
    /// CPUs, nice value, NUMA placement, I/O scheduler and mounted-device writes
    /// (`cpumask`, `cpus_allowed`, `cpus_allowed_policy`, `gtod_cpu`, `nice`, `numa_cpu_nodes`,
    /// `numa_mem_policy`, `ioscheduler`, `allow_mounted_write`).
    pub placement: super::placement::Placement,

    // ---- time ----
    /// `runtime` / `timeout`: stop after this long (`None`: no limit).
    pub runtime: Option<Duration>,
    /// `time_based`: loop over the region until `runtime` is up.
    pub time_based: bool,
    /// `ramp_time`: run this long before measuring.
    pub ramp_time: Duration,
    /// `startdelay`: wait this long before starting; a range `(low, high)` picks a random delay.
    pub startdelay: (Duration, Duration),
    /// `thinktime`: pause between I/Os.
    pub thinktime: Duration,
    /// `thinktime_spin`: spin (busy) this part of `thinktime`.
    pub thinktime_spin: Duration,
    /// `thinktime_blocks`: I/Os between think times.
    pub thinktime_blocks: u32,

    // ---- rate ----
    /// `rate`: bandwidth cap per direction in bytes/s (0: none).
    pub rate: [u64; 3],
    /// `rate_min` / `ratemin`: least bandwidth per direction.
    pub rate_min: [u64; 3],
    /// `rate_iops`: IOPS cap per direction (0: none).
    pub rate_iops: [u32; 3],
    /// `rate_iops_min`: least IOPS per direction.
    pub rate_iops_min: [u32; 3],
    /// Pacing beyond the rate caps (`rate_process`, `thinktime_*`, `max_latency`,
    /// `latency_target`, `flow`): see [`Pacing`].
    pub pacing: Pacing,
    /// `write_iolog`: write the job's I/O pattern to this file (fio's iolog version 3).
    pub write_iolog: Option<String>,
    /// `read_iolog` and the `replay_*` options: see [`Replay`].
    pub replay: Replay,

    // ---- buffers ----
    /// `zero_buffers`: fill buffers with zeros.
    pub zero_buffers: bool,
    /// `refill_buffers`: refill buffers before every write.
    pub refill_buffers: bool,
    /// `scramble_buffers`: lightly scramble buffers before every write.
    pub scramble_buffers: bool,
    /// `buffer_pattern`: fill pattern as written.
    pub buffer_pattern: Option<String>,
    /// `buffer_compress_percentage`.
    pub buffer_compress_percentage: u32,
    /// `buffer_compress_chunk`.
    pub buffer_compress_chunk: u32,
    /// `dedupe_percentage`.
    pub dedupe_percentage: u32,
    /// `dedupe_mode=working_set` (else `repeat`).
    pub dedupe_working_set: bool,
    /// `dedupe_working_set_percentage`.
    pub dedupe_working_set_percentage: u32,
    /// `dedupe_global`: the working set spreads over every job's data.
    pub dedupe_global: bool,

    // ---- errors ----
    /// `continue_on_error`.
    pub continue_on_error: ContinueOnError,
    /// `ignore_error`: the errnos carried past, per kind (read, write, verify), when
    /// `continue_on_error` covers the kind; empty: fio's default, EIO and EILSEQ.
    pub ignore_error: [Vec<i32>; 3],
    /// `error_dump`: print every I/O error, those carried past too.
    pub error_dump: bool,

    // ---- statistics and output ----
    /// `percentile_list`: the percentiles reported (at most 20).
    pub percentile_list: Vec<f64>,
    /// Digits after the decimal point of the longest percentile written (fio's
    /// `percentile_precision`).
    pub percentile_precision: u32,
    /// `clat_percentiles`.
    pub clat_percentiles: bool,
    /// `lat_percentiles`.
    pub lat_percentiles: bool,
    /// `slat_percentiles`.
    pub slat_percentiles: bool,
    /// `significant_figures`: digits for normal output (1–10).
    pub significant_figures: u32,
    /// `gtod_reduce`.
    pub gtod_reduce: bool,
    /// `clocksource` (`gettimeofday`, `clock_gettime`, `cpu`), when set: the run's clock (the
    /// last job that sets it decides, as fio's global clock source).
    pub clocksource: Option<String>,
    /// `disable_lat`.
    pub disable_lat: bool,
    /// `disable_clat`.
    pub disable_clat: bool,
    /// `disable_slat`.
    pub disable_slat: bool,
    /// `disable_bw_measurement` / `disable_bw`.
    pub disable_bw_measurement: bool,
    /// `stats`: collect statistics at all.
    pub stats: bool,
    /// `block_error_percentiles`: keep the state of every trim-sized block of the job's file
    /// (trimmed how often, or failed) and report its histogram.
    pub block_error_hist: bool,
    /// The `act` profile's accounting, on every job of a run with `--profile=act`.
    pub act: Option<crate::profile::ActHooks>,
    /// `unified_rw_reporting`: `none`, `mixed` or `both`.
    pub unified_rw_reporting: String,
    /// `kb_base`: 1024 (default; input prefixes inverted) or 1000.
    pub kb_base: u32,
    /// `unit_base`: 0 (auto), 8 (bytes) or 1 (bits).
    pub unit_base: u32,
    /// `disk_util`: report disk utilisation.
    pub disk_util: bool,
    /// `bwavgtime`: bandwidth sample window in ms.
    pub bwavgtime: u32,
    /// `iopsavgtime`: IOPS sample window in ms.
    pub iopsavgtime: u32,
    /// `write_bw_log`: log file prefix (the job name when given without a value).
    pub write_bw_log: Option<String>,
    /// `write_lat_log`: log file prefix.
    pub write_lat_log: Option<String>,
    /// `write_iops_log`: log file prefix.
    pub write_iops_log: Option<String>,
    /// `write_hist_log`: log file prefix.
    pub write_hist_log: Option<String>,
    /// `log_avg_msec`: average log entries over this many ms (0: one entry per I/O).
    pub log_avg_msec: u32,
    /// `log_hist_msec`: histogram log interval in ms.
    pub log_hist_msec: u32,
    /// `log_max_value`: log the window's maximum instead of its average.
    pub log_max_value: bool,
    /// `log_offset`: add the I/O offset to each log entry.
    pub log_offset: bool,
    /// `log_prio`: add the I/O priority to each log entry.
    pub log_prio: bool,
    /// `per_job_logs`: include the job number in log file names.
    pub per_job_logs: bool,
    /// `log_unix_epoch`: time stamps since the Unix epoch.
    pub log_unix_epoch: bool,
    /// `log_alternate_epoch`: time stamps on the clock `log_alternate_epoch_clock_id`.
    pub log_alternate_epoch: bool,
    /// `log_alternate_epoch_clock_id`: the clock of `log_unix_epoch`/`log_alternate_epoch`
    /// (a `clock_gettime` id; 0, `CLOCK_REALTIME`, by default).
    pub log_alternate_epoch_clock_id: u32,
    /// `log_hist_coarseness`: histogram log bins summed in groups of `2^N`.
    pub log_hist_coarseness: u32,
    /// `log_compression`: keep logs deflated in memory in chunks of this many bytes (0: not).
    pub log_compression: u64,
    /// `log_store_compressed`: write logs deflated (`.log.fz`).
    pub log_store_compressed: bool,

    // ---- zones (zonemode itself comes later) ----
    /// `zonemode`.
    pub zonemode: ZoneMode,
    /// `zonesize` in bytes (0: not set).
    pub zonesize: u64,
    /// `zonecapacity` in bytes (0: the zone size).
    pub zonecapacity: u64,
    /// `zonerange` in bytes (strided mode; 0: `zonesize`).
    pub zonerange: u64,
    /// `zoneskip`.
    pub zoneskip: SizeSpec,
    /// `read_beyond_wp`.
    pub read_beyond_wp: bool,
    /// `do_verify` (default on, verify or not: fio then starts every pass with all files).
    pub do_verify: bool,
    /// `verify` and the options that go with it.
    pub verify: VerifyOptions,
    /// `max_open_zones` (0: the device limit).
    pub max_open_zones: u32,
    /// `job_max_open_zones` (0: no per-job limit).
    pub job_max_open_zones: u32,
    /// `ignore_zone_limits`.
    pub ignore_zone_limits: bool,
    /// `zone_reset_threshold`, 0.0–1.0.
    pub zone_reset_threshold: f64,
    /// `zone_reset_frequency`, 0.0–1.0.
    pub zone_reset_frequency: f64,

    // ---- bookkeeping ----
    /// Canonical names of the options set explicitly (in a section, a global section or on the
    /// command line), as fio's `fio_option_is_set`.
    pub set: BTreeSet<&'static str>,
}

/// Data verification options (`verify=` and the options that refine it).
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyOptions {
    /// `verify` (`verify_pattern` alone selects [`VerifyType::Pattern`]).
    pub kind: VerifyType,
    /// `verify_interval` in bytes (0: fio's default, resolved when the job is checked).
    pub interval: u32,
    /// `verify_offset`: where the header is swapped to in each interval.
    pub offset: u32,
    /// `verify_pattern`.
    pub pattern: Option<Pattern>,
    /// `verify_fatal`.
    pub fatal: bool,
    /// `verify_dump`.
    pub dump: bool,
    /// `verify_async` (zonekit verifies inline: the number is accepted).
    pub async_threads: u32,
    /// `verify_backlog`: verify after this many writes (0: after the write phase).
    pub backlog: u64,
    /// `verify_backlog_batch` (0: `verify_backlog`).
    pub backlog_batch: u32,
    /// `experimental_verify`: verify by replaying the workload instead of a list of writes.
    pub experimental: bool,
    /// `verify_state_save` (default on).
    pub state_save: bool,
    /// `verify_state_load`.
    pub state_load: bool,
    /// `verify_only`: a writing job only reads back what it would have written.
    pub only: bool,
    /// `trim_percentage`: share of logged writes that `trim_backlog` trims.
    pub trim_percentage: u32,
    /// `trim_verify_zero` (default on): trimmed blocks must read back as zeros.
    pub trim_zero: bool,
    /// `trim_backlog`: trim after this many writes (0: never).
    pub trim_backlog: u64,
    /// `trim_backlog_batch` (0: `trim_backlog`).
    pub trim_batch: u32,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            kind: VerifyType::None,
            interval: 0,
            offset: 0,
            pattern: None,
            fatal: false,
            dump: false,
            async_threads: 0,
            backlog: 0,
            backlog_batch: 0,
            experimental: false,
            state_save: true,
            state_load: false,
            only: false,
            trim_percentage: 0,
            trim_zero: true,
            trim_backlog: 0,
            trim_batch: 0,
        }
    }
}

impl JobOptions {
    /// The files named by `filename`, split on `:` with `\:` kept as a literal colon (fio's
    /// `get_next_str`: empty names are skipped).
    pub fn filenames(&self) -> Vec<String> {
        self.filename.as_deref().map(split_colon_list).unwrap_or_default()
    }

    /// The directories named by `directory` (`:`-separated, as `filename`).
    pub fn directories(&self) -> Vec<String> {
        self.directory.as_deref().map(split_colon_list).unwrap_or_default()
    }

    /// True when the option (canonical name) was set explicitly.
    pub fn is_set(&self, name: &str) -> bool {
        self.set.contains(name)
    }

    /// `io_submit_mode=offload`: the job's I/Os are issued by a pool of submission threads.
    pub fn offload(&self) -> bool {
        self.io_submit_mode == "offload"
    }

    /// The job's I/O priority (fio's `td->ioprio`: `prioclass << 13 | prio` when either is set,
    /// else 0), or `None` when neither is set (the thread keeps the process's).
    pub fn job_ioprio(&self) -> Option<u32> {
        (self.is_set("prio") || self.is_set("prioclass"))
            .then(|| super::cmdprio::ioprio_value(self.prioclass, self.prio))
    }

    /// The smallest block size over the directions the job uses (fio's `td_min_bs`).
    pub fn min_bs_used(&self) -> u64 {
        let mut m = u64::MAX;
        if self.rw.reads() {
            m = m.min(self.min_bs[READ]);
        }
        if self.rw.writes() {
            m = m.min(self.min_bs[WRITE]);
        }
        if self.rw.trims() {
            m = m.min(self.min_bs[TRIM]);
        }
        if m == u64::MAX { self.min_bs[READ] } else { m }
    }
}

/// The defaults of fio 3.33 for every option (`fill_default_options`).
impl Default for JobOptions {
    fn default() -> Self {
        JobOptions {
            name: String::new(),
            description: None,
            filename: None,
            directory: None,
            opendir: None,
            filename_format: "$jobname.$jobnum.$filenum".to_string(),
            unique_filename: true,
            nrfiles: 1,
            openfiles: 0,
            file_service_type: "roundrobin".to_string(),
            filesize: None,
            size: None,
            fill_device: false,
            file_append: false,
            offset: SizeSpec::Bytes(0),
            offset_increment: SizeSpec::Bytes(0),
            offset_align: 0,
            io_size: None,
            number_ios: 0,
            loops: 1,
            create_serialize: true,
            create_fsync: true,
            create_on_open: false,
            readonly: false,
            create_only: false,
            allow_file_create: true,
            pre_read: false,
            overwrite: false,
            fallocate: "native".to_string(),
            mem: "malloc".to_string(),
            mmapfile: None,
            iomem_align: 0,
            hugepage_size: 2 << 20,
            fadvise_hint: "1".to_string(),
            write_hint: None,
            unlink: false,
            unlink_each_loop: false,
            serialize_overlap: false,
            sync_file_range: (0, 0),
            lockfile: "none".to_string(),
            exec_prerun: None,
            exec_postrun: None,
            lockmem: 0,
            invalidate: true,
            rw: RwMode::Read,
            rw_modifier: 0,
            rw_seq_add: 0,
            rw_sequencer: RwSequencer::Sequential,
            rwmixread: 50,
            rwmixwrite: 50,
            percentage_random: [100; 3],
            bs: [4096; 3],
            min_bs: [4096; 3],
            max_bs: [4096; 3],
            bsrange: None,
            bssplit: [Vec::new(), Vec::new(), Vec::new()],
            blockalign: [4096; 3],
            bs_unaligned: false,
            bs_is_seq_rand: false,
            randrepeat: true,
            randrepeat_seeding: true,
            allrandrepeat: false,
            randseed: 0x89,
            norandommap: false,
            softrandommap: false,
            random_generator: "tausworthe".to_string(),
            random_distribution: RandomDistribution::Random,
            ioengine: "psync".to_string(),
            iodepth: 1,
            iodepth_batch_submit: 1,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: 0,
            iodepth_low: 0,
            io_submit_mode: "inline".to_string(),
            direct: false,
            buffered: true,
            sync: "none".to_string(),
            fsync: 0,
            fdatasync: 0,
            end_fsync: false,
            fsync_on_close: false,
            atomic: false,
            io_uring: IoUringOptions::default(),
            libaio: LibaioOptions::default(),
            cmdprio: Default::default(),
            prio: 0,
            prioclass: 0,
            pvsync2: Pvsync2Options::default(),
            mmap_thp: false,
            noio: NoIoOptions::default(),
            net: NetJobOptions { protocol: "tcp".into(), ttl: 1, ..NetJobOptions::default() },
            sg: SgJobOptions::default(),
            e4defrag: E4defragJobOptions::default(),
            numjobs: 1,
            thread: false,
            group_reporting: false,
            new_group: false,
            stonewall: false,
            wait_for: None,
            exitall: false,
            exit_what: "group".to_string(),
            exitall_on_error: false,
            steadystate: SteadyOptions::default(),
            placement: Default::default(),
            runtime: None,
            time_based: false,
            ramp_time: Duration::ZERO,
            startdelay: (Duration::ZERO, Duration::ZERO),
            thinktime: Duration::ZERO,
            thinktime_spin: Duration::ZERO,
            thinktime_blocks: 1,
            rate: [0; 3],
            rate_min: [0; 3],
            rate_iops: [0; 3],
            rate_iops_min: [0; 3],
            pacing: Pacing::default(),
            write_iolog: None,
            replay: Replay::default(),
            zero_buffers: false,
            refill_buffers: false,
            scramble_buffers: true,
            buffer_pattern: None,
            buffer_compress_percentage: 0,
            buffer_compress_chunk: 512,
            dedupe_percentage: 0,
            dedupe_working_set: false,
            dedupe_working_set_percentage: 5,
            dedupe_global: false,
            continue_on_error: ContinueOnError::default(),
            ignore_error: [Vec::new(), Vec::new(), Vec::new()],
            error_dump: false,
            percentile_list: vec![
                1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
            ],
            percentile_precision: 2,
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            significant_figures: 4,
            gtod_reduce: false,
            clocksource: None,
            disable_lat: false,
            disable_clat: false,
            disable_slat: false,
            disable_bw_measurement: false,
            stats: true,
            block_error_hist: false,
            act: None,
            unified_rw_reporting: "none".to_string(),
            kb_base: 1024,
            unit_base: 0,
            disk_util: true,
            bwavgtime: 500,
            iopsavgtime: 500,
            write_bw_log: None,
            write_lat_log: None,
            write_iops_log: None,
            write_hist_log: None,
            log_avg_msec: 0,
            log_hist_msec: 0,
            log_max_value: false,
            log_offset: false,
            log_prio: false,
            per_job_logs: true,
            log_unix_epoch: false,
            log_alternate_epoch: false,
            log_alternate_epoch_clock_id: 0,
            log_hist_coarseness: 0,
            log_compression: 0,
            log_store_compressed: false,
            zonemode: ZoneMode::None,
            zonesize: 0,
            zonecapacity: 0,
            zonerange: 0,
            zoneskip: SizeSpec::Bytes(0),
            read_beyond_wp: false,
            do_verify: true,
            verify: VerifyOptions::default(),
            max_open_zones: 0,
            job_max_open_zones: 0,
            ignore_zone_limits: false,
            zone_reset_threshold: 0.0,
            zone_reset_frequency: 0.0,
            set: BTreeSet::new(),
        }
    }
}

/// Splits a `:`-separated list as fio's `get_next_str` does: `\:` is a literal colon, empty
/// entries are skipped.
pub fn split_colon_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                cur.push(':');
                chars.next();
            }
            ':' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colon_lists_keep_escaped_colons() {
        assert_eq!(split_colon_list("a:b\\:c::d"), vec!["a", "b:c", "d"]);
        assert_eq!(split_colon_list(":x"), vec!["x"]);
        assert!(split_colon_list("").is_empty());
    }

    #[test]
    fn defaults_follow_fio() {
        let o = JobOptions::default();
        assert_eq!(o.bs, [4096; 3]);
        assert_eq!(o.randseed, 0x89);
        assert!(o.invalidate && o.clat_percentiles && o.buffered && !o.direct);
        assert_eq!(o.percentile_list.len(), 17);
    }
}

/// The pacing options besides the rate caps, as fio 3.33 reads them (`backend.c`, `io_u.c`,
/// `flow.c`); times in microseconds as fio keeps them.
#[derive(Debug, Clone, PartialEq)]
pub struct Pacing {
    /// `rate_process=poisson`: exponential gaps between rated I/Os (else `linear`).
    pub poisson: bool,
    /// `rate_cycle`: the window of the `rate_min` / `rate_iops_min` check (ms).
    pub rate_cycle_ms: u64,
    /// `rate_ignore_thinktime`: the rate catches up on the time spent thinking.
    pub rate_ignore_thinktime: bool,
    /// `thinktime_blocks` was given (with `thinktime_iotime`, its default does not apply).
    pub thinktime_blocks_set: bool,
    /// `thinktime_blocks_type=issue` (else `complete`).
    pub thinktime_blocks_issue: bool,
    /// `thinktime_iotime`: think after this much I/O time (µs; 0: off).
    pub thinktime_iotime_us: u64,
    /// `max_latency` per direction (µs; 0: none).
    pub max_latency_us: [u64; 3],
    /// `latency_target` (µs; 0: off).
    pub latency_target_us: u64,
    /// `latency_window` (µs).
    pub latency_window_us: u64,
    /// `latency_percentile`.
    pub latency_percentile: f64,
    /// `latency_run`: keep searching the depth for the whole run.
    pub latency_run: bool,
    /// `flow`: the job's weight in its flow group (0: no flow control).
    pub flow: u32,
    /// `flow_id`: the flow group.
    pub flow_id: u32,
    /// `flow_sleep`: µs to sleep when held back.
    pub flow_sleep_us: u64,
}

impl Default for Pacing {
    fn default() -> Pacing {
        Pacing {
            poisson: false,
            rate_cycle_ms: 1000,
            rate_ignore_thinktime: false,
            thinktime_blocks_set: false,
            thinktime_blocks_issue: false,
            thinktime_iotime_us: 0,
            max_latency_us: [0; 3],
            latency_target_us: 0,
            latency_window_us: 0,
            latency_percentile: 100.0,
            latency_run: false,
            flow: 0,
            flow_id: 0,
            flow_sleep_us: 0,
        }
    }
}

/// `read_iolog` and how the log is replayed (`replay_*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// `read_iolog`: the log to replay.
    pub read_iolog: Option<String>,
    /// `replay_no_stall`: replay without the recorded delays.
    pub no_stall: bool,
    /// `replay_redirect`: replay every file's I/O onto this one.
    pub redirect: Option<String>,
    /// `replay_scale`: divide offsets by this (0 or 1: as logged).
    pub scale: u64,
    /// `replay_align`: align offsets down to this (0: as logged).
    pub align: u64,
    /// `replay_time_scale`: percent of the logged pace (100: as logged).
    pub time_scale: u64,
    /// `replay_skip`: read, write, trim, sync left out.
    pub skip: [bool; 4],
    /// The log, read before the run (the job's files, sizes and directions follow from it).
    pub parsed: Option<std::sync::Arc<crate::run::iolog::Replay>>,
}

impl Default for Replay {
    fn default() -> Replay {
        Replay {
            read_iolog: None,
            no_stall: false,
            redirect: None,
            scale: 1,
            align: 0,
            time_scale: 100,
            skip: [false; 4],
            parsed: None,
        }
    }
}
