//! One job clone from start to finish (fio's `setup_files` and `thread_main`): its setup, run
//! for every clone in run order before any job starts (file names and sizes, zone mode, laying
//! files out), then, on its own thread, opening its files or devices and its engine, waiting
//! `startdelay`, the I/O loop, `end_fsync`, cpu usage, its logs, `unlink`.

use crate::debug::{Class, Tracer, zk_ptr};
use crate::dprint;
use crate::options::engines;
use crate::options::job::{JobOptions, SizeSpec, ZoneMode};
use crate::run::io_loop::{JobLoop, LoopConfig, LoopEnd, Progress};
use crate::run::job_trace::JobTrace;
use crate::run::sizing::{self, FileInfo, PlannedFile};
use crate::run::tracing::runstate;
use crate::stats::{CpuTimes, JobStats, ThreadStats, log::LogKind, log::log_file_name};
use crate::sys::thread_rusage;
use crate::target::{Devices, device_engine_is_sync, is_device_spec};
use crate::verify::run::{JobVerify, VerifyPlan};
use crate::verify::state::{self as vstate, VerifyState};
use crate::verify::{VerifySpec, VerifyType};
use crate::workload::{Workload, ZoneModeSpec};
use crate::zbd::{SetupError, ZbdJob, ZbdRun, ZbdTarget, ZoneJob, ZoneSource};
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;
use zonekit_blk::file::{self, FileType, LayoutSpec, OpenSpec, SyncMode};
use zonekit_blk::{Clock, DeviceEngineConfig, DeviceQueue, DiskCounts, EngineConfig, QueueConfig, RealClock};
use zonekit_core::ZonedDevice;

/// One clone of a job, ready to run.
#[derive(Debug, Clone)]
pub struct JobRun {
    /// The job's options.
    pub opts: Arc<JobOptions>,
    /// Clone number within the job (fio's `subjob_number`: `$jobnum`, the `offset_increment`
    /// multiple), 0 for the job itself and N-1 down to 1 for its clones in thread order.
    pub jobnum: u32,
    /// Position of the clone in the whole run, 1-based (fio's `thread_number`).
    pub thread_number: u32,
    /// Reporting group.
    pub groupid: u32,
    /// The seed of every clone of the run, by `thread_number - 1` (empty: this clone computes its
    /// own): `dedupe_global` builds its working set from the other clones' buffer streams.
    pub seeds: Arc<Vec<u64>>,
}

/// What a finished clone reports.
#[derive(Debug, Clone)]
pub struct JobOutcome {
    /// The clone.
    pub run: JobRun,
    /// Its numbers.
    pub stats: JobStats,
    /// The error that ended it (errno, fio's message), if one did.
    pub error: Option<(i32, String)>,
    /// Thread id (fio prints it as `pid=`).
    pub pid: u32,
    /// When its I/O started.
    pub started: SystemTime,
    /// The files it used.
    pub files: Vec<PathBuf>,
    /// Messages for the normal output printed as they happen in fio (`Laying out IO file`).
    pub notes: Vec<String>,
    /// Lines fio prints on standard error while the job is set up or runs (`log_err`), as
    /// printed: `zonekit: ` where fio's start with `fio: `, no prefix where fio's have none.
    pub log: Vec<String>,
    /// The clone failed its setup and never ran: fio leaves it out of the report.
    pub setup_failed: bool,
    /// The clone ran to its end (its state traced up to EXITED).
    pub exited: bool,
    /// What each of zonekit's devices the clone used did, by the name the job gives it (the
    /// device's own disk statistics: the kernel counts none for them).
    pub device_io: Vec<(String, DiskCounts)>,
}

/// Messages that fio prints while jobs start (normal output only).
pub type NoteSink = Arc<dyn Fn(&str) + Send + Sync>;

/// What the setup of every clone of a run shares: the devices, and zone mode's state.
#[derive(Default)]
pub struct SetupCtx {
    /// zonekit's devices, opened once per run.
    pub devices: Devices,
    /// Zone mode.
    pub zbd: ZbdRun,
    /// The flow groups (`flow_id`) of the run's jobs.
    pub flows: crate::run::pacing::Flows,
    /// The locks of the run's files (`lockfile`).
    pub file_locks: crate::run::locks::FileLocks,
    /// The jobs doing I/O (every engine but cpuio and exec), for cpuio's `exit_on_io_done`.
    pub io_jobs: zonekit_blk::IoJobs,
    /// The run's trace (`--debug`).
    pub trace: Tracer,
    /// The files the run's jobs have open, as fio's file hash knows them (`--debug=file`).
    pub(crate) file_hash: crate::run::job_trace::FileHash,
}

/// A job doing I/O, counted in [`SetupCtx::io_jobs`] until it ends (or is dropped unrun).
struct IoJobGuard(zonekit_blk::IoJobs);

impl Drop for IoJobGuard {
    fn drop(&mut self) {
        self.0.left.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A clone after its setup, ready to run on its thread.
pub struct Prepared {
    run: JobRun,
    /// The options with zone counts (`8z`) resolved.
    opts: Arc<JobOptions>,
    seed: u64,
    files: Vec<PlannedFile>,
    /// The device behind each file, for zonekit's devices.
    devices: Vec<Option<Arc<dyn ZonedDevice>>>,
    /// The zone policy of each file (`zonemode=zbd`).
    zones: Vec<Option<ZoneJob>>,
    /// Zones reset at setup to keep the write set within its limit.
    setup_resets: u64,
    /// The request queue of each file's device (zonekit's devices only), shared by every job on
    /// the device.
    queues: Vec<Option<Arc<DeviceQueue>>>,
    /// The state a writing job saved (`verify_state_load`).
    vstate: Option<Arc<VerifyState>>,
    /// The clone's flow group (`flow`).
    flow: Option<Arc<crate::run::pacing::Flow>>,
    /// The lock of each file (`lockfile`).
    locks: Vec<Option<Arc<crate::run::locks::FileLock>>>,
    /// The run's jobs doing I/O, and this clone's place among them if it is one.
    io_jobs: zonekit_blk::IoJobs,
    io_job: Option<IoJobGuard>,
    /// The run's trace (`--debug`).
    trace: Tracer,
    /// Which files had a size before the setup laid them out (fio's `FIO_FILE_size_known`).
    known: Vec<bool>,
    file_hash: crate::run::job_trace::FileHash,
    /// Lines fio prints on standard error while it sets the job up (`log_err`).
    log: Vec<String>,
    /// An error the setup recorded without failing (fio's `td_verror` in `fallocate_file`): the
    /// job runs its first I/O, then ends with it.
    setup_error: Option<(i32, String)>,
    /// `create_serialize=0`: the job lays its files out itself, in its thread, as it starts.
    deferred_layout: bool,
}

impl Prepared {
    /// The clone.
    pub fn run(&self) -> &JobRun {
        &self.run
    }

    /// The devices the clone works on (one per file; `None` for a path).
    pub fn devices(&self) -> &[Option<Arc<dyn ZonedDevice>>] {
        &self.devices
    }

    /// The files fio would look up disks for (`init_disk_util`): none for an engine without
    /// files or with `disk_util=0`, and never zonekit's devices (no block device is under them).
    pub fn trace_files(&self) -> Vec<&std::path::Path> {
        if !self.opts.disk_util || sizing::diskless(&self.opts) {
            return Vec::new();
        }
        self.files.iter().map(|f| f.path.as_path()).filter(|p| !is_device_spec(&p.to_string_lossy())).collect()
    }

    /// Give the clone its devices' request queues: `queue` gives each device's shared queue by
    /// the name the job gives it.
    pub fn set_queues(&mut self, queue: impl Fn(&str) -> Option<Arc<DeviceQueue>>) {
        self.queues = device_names(&self.files, &self.devices).map(|n| queue(&n)).collect();
    }
}

/// The names the job gives its devices (zonekit's devices only, in the order of its files): the
/// engine's table of devices, and the keys of the run's shared queues and disk statistics.
fn device_names<'a>(
    files: &'a [PlannedFile],
    devices: &'a [Option<Arc<dyn ZonedDevice>>],
) -> impl Iterator<Item = String> + 'a {
    files.iter().zip(devices).filter(|(_, d)| d.is_some()).map(|(f, _)| f.path.display().to_string())
}

fn fail(run: &JobRun, started: SystemTime, errno: i32, msg: String) -> JobOutcome {
    let mut stats = ThreadStats::new(&sizing::stats_config(&run.opts)).finish(0, 0, CpuTimes::default());
    stats.error = errno;
    stats.first_error = errno;
    JobOutcome {
        run: run.clone(),
        stats,
        error: Some((errno, msg)),
        pid: crate::sys::gettid(),
        started,
        files: Vec::new(),
        notes: Vec::new(),
        log: Vec::new(),
        setup_failed: false,
        exited: false,
        device_io: Vec::new(),
    }
}

/// A clone whose placement (CPUs, NUMA, nice, I/O scheduler) failed as it started: fio's error,
/// after the lines printed so far.
fn placement_failed(
    run: &JobRun,
    started: SystemTime,
    f: crate::run::placement::JobFailure,
    mut log: Vec<String>,
) -> JobOutcome {
    let mut o = fail(run, started, f.errno, f.msg);
    log.extend(f.log);
    o.log = log;
    o
}

/// A clone that failed zone setup: fio's lines (those for standard output printed now, as fio
/// prints them), and the job error if fio records one.
fn setup_failed(run: &JobRun, e: SetupError, note: &NoteSink) -> JobOutcome {
    for line in &e.info {
        note(line);
    }
    let mut o = fail(run, SystemTime::now(), 0, String::new());
    o.error = e.verror;
    o.stats.error = o.error.as_ref().map_or(0, |e| e.0);
    o.log = e.lines;
    o.setup_failed = true;
    o
}

fn errno_of(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

/// An OS error as docs/architecture.md words it: `Not a directory (ENOTDIR)`.
fn os(e: &std::io::Error) -> String {
    match e.raw_os_error().map(zonekit_core::Errno) {
        Some(n) if n.name().is_some() => n.to_string(),
        _ => e.to_string(),
    }
}

/// fio's `exec_string`: run `cmd` with `sh -c`, its output (stdout and stderr of the command's
/// last part, as with fio's `system("cmd > file 2>&1")`) in `<job>.<mode>.txt` in the current
/// directory. True when the command exits 0.
fn exec_string(job: &str, cmd: &str, mode: &str, note: &NoteSink) -> bool {
    let out = format!("{job}.{mode}.txt");
    note(&format!("{job} : Saving output of {mode} in {out}"));
    // The file name is quoted (fio's is not): a job name with blanks still names one file.
    let quoted = format!("'{}'", out.replace('\'', "'\\''"));
    match std::process::Command::new("/bin/sh").arg("-c").arg(format!("{cmd} > {quoted} 2>&1")).status() {
        Ok(st) => st.success(),
        Err(e) => {
            note(&format!("zonekit: exec of cmd <{cmd}> failed: {}", zonekit_core::io_text(&e)));
            false
        }
    }
}

/// fio's `pre_read_file`: read `len` bytes from `offset` in reads of `bs` (at most `len`), so
/// that they are in the page cache when the job starts. A short read fails (fio: `EIO`).
fn pre_read(f: &File, offset: u64, len: u64, bs: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let bs = bs.clamp(1, len.max(1)) as usize;
    // Aligned for a file opened with O_DIRECT.
    let mut raw = vec![0u8; bs + 4096];
    let skip = raw.as_ptr().align_offset(4096);
    let buf = &mut raw[skip..skip + bs];
    let mut at = offset;
    let mut left = len;
    while left > 0 {
        let n = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        if f.read_at(&mut buf[..n], at)? != n {
            return Err(std::io::Error::from_raw_os_error(libc::EIO));
        }
        at += n as u64;
        left -= n as u64;
    }
    Ok(())
}

/// fio's layout line: `NAME: Laying out IO file (1 file / 64MiB)`, or with several files
/// `(3 files / total 12MiB)`; the size in whole MiB, rounded down (`0MiB` below one), as fio
/// 3.33 prints it.
fn layout_line(job: &str, files: usize, bytes: u64) -> String {
    let (s, total) = if files > 1 { ("s", "total ") } else { ("", "") };
    format!("{job}: Laying out IO file{s} ({files} file{s} / {total}{}MiB)", bytes >> 20)
}

/// fio's `zbd_recalc_options_with_zone_granularity`: sizes given in zones (`8z`) in bytes.
fn resolve_zone_counts(o: &mut JobOptions, zone_size: u64) {
    if zone_size == 0 {
        return;
    }
    let z = |s: &mut SizeSpec| {
        if let SizeSpec::Zones(n) = *s {
            *s = SizeSpec::Bytes(u64::from(n) * zone_size);
        }
    };
    if let Some(s) = o.size.as_mut() {
        z(s);
    }
    if let Some(s) = o.io_size.as_mut() {
        z(s);
    }
    z(&mut o.offset);
    z(&mut o.offset_increment);
    z(&mut o.zoneskip);
}

fn size_bytes(s: SizeSpec) -> u64 {
    match s {
        SizeSpec::Bytes(b) => b,
        _ => 0,
    }
}

/// A missing file of the job: nothing, or for the null engine, which never creates it, a file as
/// large as the job's share of `size` past its offset (fio gives a `FIO_FAKEIO` engine's file that
/// size), so that zone mode has zones to work with.
fn diskless_file(opts: &JobOptions, jobnum: u32, nr_files: usize) -> FileInfo {
    if matches!(opts.ioengine.as_str(), "cpuio" | "exec") {
        // fio's FIO_NOIO: no size ever ends the job (its I/Os count no bytes).
        return FileInfo { exists: true, size: u64::MAX >> 2, is_block: false };
    }
    let size = match opts.size.and_then(SizeSpec::bytes) {
        Some(b) if b > 0 && sizing::diskless(opts) => b / nr_files.max(1) as u64,
        _ => return FileInfo::default(),
    };
    let offset = opts
        .offset
        .bytes()
        .unwrap_or(0)
        .saturating_add(opts.offset_increment.bytes().unwrap_or(0).saturating_mul(u64::from(jobnum)));
    FileInfo { exists: true, size: offset.saturating_add(size), is_block: false }
}

/// Set one clone up (fio's `setup_files`), in run order: its files and their sizes, zone mode,
/// files laid out. A clone that cannot run comes back as its outcome.
pub fn prepare_job(run: JobRun, ctx: &mut SetupCtx, note: &NoteSink) -> Result<Prepared, Box<JobOutcome>> {
    let t = ctx.trace.clone();
    dprint!(t, Class::File, "setup files");
    crate::run::tracing::runstate(&t, 0, "NOT_CREATED", "SETTING_UP");
    let r = prepare(run, ctx, note);
    crate::run::tracing::runstate(&t, 0, "SETTING_UP", "NOT_CREATED");
    r
}

fn prepare(run: JobRun, ctx: &mut SetupCtx, note: &NoteSink) -> Result<Prepared, Box<JobOutcome>> {
    let started = SystemTime::now();
    let t = ctx.trace.clone();
    let seed = match run.seeds.get(run.thread_number as usize - 1) {
        Some(&s) => s,
        None => sizing::job_seed(&run.opts, run.thread_number),
    };
    let job_id = run.thread_number - 1;
    // fio loads a job's verify state before its files are set up; a job that cannot is dropped.
    let vstate = if run.opts.verify.state_load {
        match load_verify_state(&run.opts.name, u64::from(job_id)) {
            Ok(s) => Some(Arc::new(s)),
            Err(lines) => {
                let mut o = fail(&run, started, 0, String::new());
                o.error = None;
                o.log = lines;
                o.setup_failed = true;
                return Err(Box::new(o));
            }
        }
    } else {
        None
    };
    let paths = sizing::file_paths(&run.opts, run.jobnum);
    if t.on(Class::File) {
        for (i, p) in paths.iter().enumerate() {
            let ptr = zk_ptr(1, run.thread_number, i as u64);
            t.print(Class::File, &format!("get file size for {ptr}/{i}/{}", p.display()));
        }
    }
    let mut infos = Vec::with_capacity(paths.len());
    let mut devices = Vec::with_capacity(paths.len());
    let mut targets = Vec::with_capacity(paths.len());
    for p in &paths {
        let name = p.display().to_string();
        if is_device_spec(&name) {
            let dev = ctx.devices.get(&name).map_err(|e| Box::new(fail(&run, started, libc::EINVAL, e.message)))?;
            // Reading back what was written needs a store that keeps it: refuse before any I/O
            // rather than report every block as a bad header.
            let kind = run.opts.verify.kind;
            if !matches!(kind, VerifyType::None | VerifyType::Null) && !dev.info().keeps_data {
                let msg = format!(
                    "verify={}: {name} keeps no data (an @PROFILE instance or a --data none device), so there is nothing to read back; use verify=null, or a device that stores data",
                    kind.option_name()
                );
                return Err(Box::new(fail(&run, started, libc::EINVAL, msg)));
            }
            // The sg engine's VERIFY with BYTCHK 01 or 11 compares the device's data with the
            // host's: nothing to compare on a device that keeps none.
            if let Some(o) = engines::scsi_options(&run.opts)
                && o.write_mode.compares_host_data()
                && !dev.info().keeps_data
            {
                let msg = format!(
                    "sg_write_mode={}: {name} keeps no data (an @PROFILE instance or a --data none device), so a VERIFY has nothing to compare; use a device that stores data",
                    run.opts.sg.write_mode
                );
                return Err(Box::new(fail(&run, started, libc::EINVAL, msg)));
            }
            let size = dev.info().geometry.capacity_bytes();
            infos.push(FileInfo { exists: true, size, is_block: true });
            targets.push(ZbdTarget { name, size, is_block: true, source: ZoneSource::Device(dev.clone()) });
            devices.push(Some(dev));
            continue;
        }
        if run.opts.ioengine == "filecreate" {
            // fio's filecreate sizes every file at the smallest block size, whatever is there.
            let size = run.opts.min_bs[0].min(run.opts.min_bs[1]);
            let info = FileInfo { exists: true, size, is_block: false };
            targets.push(ZbdTarget { name, size, is_block: false, source: ZoneSource::Emulated });
            infos.push(info);
            devices.push(None);
            continue;
        }
        if sizing::fileless(&run.opts) {
            let info = diskless_file(&run.opts, run.jobnum, paths.len());
            targets.push(ZbdTarget { name, size: info.size, is_block: false, source: ZoneSource::Emulated });
            infos.push(info);
            devices.push(None);
            continue;
        }
        let (info, source) = match file::file_type(p) {
            FileType::Regular => match std::fs::metadata(p) {
                Ok(m) => (FileInfo { exists: true, size: m.len(), is_block: false }, ZoneSource::Emulated),
                Err(_) => (diskless_file(&run.opts, run.jobnum, paths.len()), ZoneSource::Emulated),
            },
            FileType::Block => {
                let size = File::open(p).and_then(|f| file::file_size(&f)).map(|s| s.unwrap_or(0));
                match size {
                    Ok(size) => {
                        let source =
                            if run.opts.zonemode == ZoneMode::Zbd && zonekit_dev::linux::is_zoned(p).unwrap_or(false) {
                                match ctx.devices.get(&name) {
                                    Ok(d) => ZoneSource::Device(d),
                                    Err(e) => return Err(Box::new(fail(&run, started, libc::EIO, e.message))),
                                }
                            } else {
                                ZoneSource::Emulated
                            };
                        (FileInfo { exists: true, size, is_block: true }, source)
                    }
                    Err(e) => {
                        return Err(Box::new(fail(
                            &run,
                            started,
                            errno_of(&e),
                            format!("{}: {}", p.display(), os(&e)),
                        )));
                    }
                }
            }
            FileType::Char | FileType::Pipe if run.opts.zonemode == ZoneMode::Zbd => {
                (FileInfo { exists: true, size: 0, is_block: false }, ZoneSource::Unsupported)
            }
            FileType::Char | FileType::Pipe => {
                return Err(Box::new(fail(
                    &run,
                    started,
                    libc::EINVAL,
                    format!("{}: pipes and character devices are not supported", p.display()),
                )));
            }
        };
        targets.push(ZbdTarget { name, size: info.size, is_block: info.is_block, source });
        infos.push(info);
        devices.push(None);
    }

    // Zone mode decides the zone size (a zoned device's own) before sizes given in zones are
    // resolved.
    let mut opts = (*run.opts).clone();
    if opts.atomic {
        // fio's fixup_options: O_ATOMIC implies O_DIRECT.
        opts.direct = true;
        opts.buffered = false;
    }
    if opts.pre_read {
        // fio's fixup_options: the pre-read data would be dropped again.
        opts.invalidate = false;
    }
    let mut zjob = None;
    let zone_size = match opts.zonemode {
        ZoneMode::Zbd => {
            let mut j = ZbdJob::from_options(&opts, job_id, 0);
            if let Err(e) = ctx.zbd.init_files(&mut j, &targets) {
                return Err(Box::new(setup_failed(&run, e, note)));
            }
            let zs = j.zone_size;
            zjob = Some(j);
            zs
        }
        ZoneMode::Strided => opts.zonesize,
        ZoneMode::None => 0,
    };
    resolve_zone_counts(&mut opts, zone_size);
    if zone_size > 0 && opts.zonemode == ZoneMode::Zbd {
        opts.zonesize = zone_size;
    }
    let mut files =
        match sizing::plan_files(&opts, run.jobnum, &sizing::rand_spec(&opts, run.thread_number).seeds, &paths, &infos)
        {
            Ok(f) => f,
            Err(msg) => return Err(Box::new(fail(&run, started, libc::EINVAL, msg))),
        };
    if sizing::diskless(&opts) {
        // Names only: nothing is created, laid out or opened (fio's FIO_DISKLESSIO).
        for f in &mut files {
            f.layout = false;
        }
    }
    if matches!(opts.ioengine.as_str(), "cpuio" | "exec") {
        // fio's FIO_NOIO: no I/O counts any bytes, so no size ever ends the job (only its
        // runtime, or a signal).
        for f in &mut files {
            f.range = crate::workload::FileRange { size: u64::MAX >> 2, offset: 0, len: u64::MAX >> 2 };
        }
    }
    if opts.create_on_open {
        // fio's setup_files extends no file with create_on_open: the job's open creates it
        // (O_CREAT, mode 0600) and the I/O sizes it.
        for f in &mut files {
            f.layout = false;
        }
    }
    // fio's setup_files: a block histogram of the job's one file needs 1 to 8192 trim blocks.
    if opts.block_error_hist
        && let Some(f) = files.first()
    {
        let n = f.range.len / opts.bs[2].max(1);
        if n == 0 || n > crate::stats::block::MAX_BLOCKS {
            let mut o = fail(&run, started, libc::EINVAL, "file:filesetup.c:1287, func=block_error_hist".into());
            o.log = vec![format!(
                "zonekit: cannot calculate block histogram with {n} trim blocks, maximum {}",
                crate::stats::block::MAX_BLOCKS
            )];
            o.setup_failed = true;
            return Err(Box::new(o));
        }
    }

    // fio knows a file's size when its engine could stat it at setup, before laying it out.
    let known: Vec<bool> = files
        .iter()
        .map(|f| !sizing::diskless(&opts) && (f.is_block || std::fs::metadata(&f.path).is_ok_and(|m| m.is_file())))
        .collect();
    // Lay out missing or short files (fio's extend_file): here, one job after the other, so that
    // clones sharing a file find it laid out by the first (fio's create_serialize); with
    // create_serialize=0 in the job's thread as it starts.
    let mut layout = Layout { setup_error: None, setup_log: Vec::new() };
    let deferred_layout = !opts.create_serialize;
    if !deferred_layout {
        layout = lay_out(&run, &opts, &mut files, seed, &t, note, started)?;
    }

    // fio's zbd_setup_files: the checks over every job set up so far, zone alignment, limits.
    let mut zones: Vec<Option<ZoneJob>> = vec![None; files.len()];
    let mut setup_resets = 0;
    if let Some(mut j) = zjob {
        j.zone_skip = size_bytes(opts.zoneskip);
        j.zone_size = zone_size;
        let idx = ctx.zbd.add_job(j);
        for (k, f) in files.iter().enumerate() {
            ctx.zbd.set_range(idx, k, f.range.offset, f.range.len);
        }
        let mut info = Vec::new();
        let r = ctx.zbd.setup_files(idx, &mut info, &mut setup_resets);
        for line in &info {
            note(line);
        }
        match r {
            Ok(z) => {
                for (f, (offset, len)) in files.iter_mut().zip(ctx.zbd.ranges(idx)) {
                    f.range.offset = offset;
                    f.range.len = len;
                }
                zones = z.into_iter().map(Some).collect();
            }
            Err(e) => return Err(Box::new(setup_failed(&run, e, note))),
        }
    }
    let flow = ctx.flows.join(opts.pacing.flow_id, opts.pacing.flow);
    let locks = files.iter().map(|f| ctx.file_locks.get(&f.path, &opts.lockfile)).collect();
    let io_job = (!matches!(opts.ioengine.as_str(), "cpuio" | "exec")).then(|| {
        ctx.io_jobs.total.fetch_add(1, Ordering::Relaxed);
        ctx.io_jobs.left.fetch_add(1, Ordering::Relaxed);
        IoJobGuard(ctx.io_jobs.clone())
    });
    Ok(Prepared {
        run,
        opts: Arc::new(opts),
        seed,
        files,
        devices,
        zones,
        setup_resets,
        queues: Vec::new(),
        vstate,
        flow,
        locks,
        io_jobs: ctx.io_jobs.clone(),
        io_job,
        trace: t,
        known,
        file_hash: ctx.file_hash.clone(),
        log: layout.setup_log,
        setup_error: layout.setup_error,
        deferred_layout,
    })
}

/// What laying out a job's files left for the job: an error recorded without failing the
/// setup, and lines to log (see [`Prepared`]).
struct Layout {
    setup_error: Option<(i32, String)>,
    setup_log: Vec<String>,
}

/// Lay out a job's missing or short files (fio's `setup_files` → `extend_file`), with fio's
/// `Laying out IO file` line. `started` is when the job's setup started (for a failure).
#[allow(clippy::too_many_arguments)]
fn lay_out(
    run: &JobRun,
    opts: &JobOptions,
    files: &mut [PlannedFile],
    seed: u64,
    t: &Tracer,
    note: &NoteSink,
    started: SystemTime,
) -> Result<Layout, Box<JobOutcome>> {
    let mut setup_error = None;
    let mut setup_log = Vec::new();
    let to_lay: Vec<&PlannedFile> = files
        .iter()
        .filter(|f| f.layout && std::fs::metadata(&f.path).map_or(true, |m| m.len() < f.range.size))
        .collect();
    if !to_lay.is_empty() && opts.readonly {
        // fio's extend_file under --readonly: the line, then nothing is created or extended (a
        // missing file fails the job when it is opened, a short one is read as it is).
        let total: u64 = to_lay.iter().map(|f| f.range.size).sum();
        note(&layout_line(&opts.name, to_lay.len(), total));
        setup_log.extend(to_lay.iter().map(|_| "zonekit: refusing extend of file due to read-only".to_string()));
    } else if !to_lay.is_empty() {
        let total: u64 = to_lay.iter().map(|f| f.range.size).sum();
        note(&layout_line(&opts.name, to_lay.len(), total));
        let mut spec = LayoutSpec::for_job(
            opts.rw.reads(),
            opts.rw.writes(),
            opts.overwrite,
            opts.file_append,
            sizing::max_block_size(opts) as usize,
        );
        spec.allow_create = opts.allow_file_create;
        spec.fsync = opts.create_fsync;
        spec.prealloc = file::Prealloc::from_fio(&opts.fallocate).unwrap_or_default();
        if opts.fill_device {
            // fio's fallocate_file does nothing for fill_device: the size is "until full".
            spec.prealloc = zonekit_blk::file::Prealloc::None;
        }
        // fio's extend_file fills each block as a write buffer (fill_io_buffer).
        let content = crate::run::buffers::BufferContent::of(opts, files.iter().map(|f| f.range.len).sum());
        let mut bufs = crate::run::buffers::BufferGen::new(&content, seed ^ 0x1a7);
        for f in to_lay {
            let old_len = std::fs::metadata(&f.path).map_or(0, |m| m.len());
            trace_layout_open(t, &spec, &f.path);
            let mut fill = |buf: &mut [u8]| {
                bufs.fill(buf, buf.len() as u64);
                crate::sys::received().is_none()
            };
            if let Some(parent) = f.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                // fio creates missing directories on the way (mode 0700).
                let _ = std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
                    .create(parent);
            }
            let laid = match file::lay_out_file(&f.path, f.range.size, &spec, &mut fill) {
                Ok(l) => l,
                Err(e) => {
                    if opts.fill_device && matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) {
                        // fio's extend_file: with fill_device a full device ends the layout.
                        continue;
                    }
                    if !spec.allow_create && e.kind() == std::io::ErrorKind::NotFound {
                        return Err(Box::new(fail(
                            run,
                            started,
                            errno_of(&e),
                            "file creation disallowed by allow_file_create=0".into(),
                        )));
                    }
                    return Err(Box::new(fail(
                        run,
                        started,
                        errno_of(&e),
                        format!("{}: laying out the file: {}", f.path.display(), os(&e)),
                    )));
                }
            };
            trace_layout_done(t, &spec, &f.path, f.range.size, opts.fill_device, &laid.prealloc);
            // fio's fallocate_file: a failed `native` reservation is ignored, a failed `posix`
            // one logged, a failed `keep` or `truncate` one recorded as the job's error (the
            // layout goes on; the job runs its first I/O, then ends with the error).
            if let Err(e) = &laid.prealloc {
                match spec.prealloc {
                    file::Prealloc::Posix => setup_log.push(format!("zonekit: posix_fallocate fails: {}", strerror(e))),
                    file::Prealloc::Keep => {
                        setup_error.get_or_insert((errno_of(e), "file:filesetup.c:93, func=fallocate".into()));
                    }
                    file::Prealloc::Truncate => {
                        setup_error.get_or_insert((errno_of(e), "file:filesetup.c:106, func=ftruncate".into()));
                    }
                    file::Prealloc::None | file::Prealloc::Native => {}
                }
            }
            // fio drops the laid-out range from the page cache (`__file_invalidate_cache`).
            let (off, len) =
                if opts.fill_device { (f.range.offset, f.range.len) } else { (old_len, f.range.size - old_len) };
            dprint!(t, Class::Io, "declare unneeded cache {}: {off}/{len}", f.path.display());
        }
    }

    if opts.fill_device && !opts.rw.writes() {
        // fio's extend_file: a job that only reads works on what the layout could write.
        for f in files.iter_mut().filter(|f| !f.is_block) {
            if let Ok(m) = std::fs::metadata(&f.path) {
                f.range.size = f.range.size.min(m.len());
                f.range.len = f.range.len.min(m.len().saturating_sub(f.range.offset));
            }
        }
    }
    Ok(Layout { setup_error, setup_log })
}

/// fio's `extend_file` lines for `path` before it is laid out: the unlink, the open (`O_WRONLY`,
/// `O_CREAT`, `O_TRUNC` for a new layout, in hex).
fn trace_layout_open(t: &Tracer, spec: &LayoutSpec, path: &std::path::Path) {
    if !t.on(Class::File) {
        return;
    }
    let name = path.display();
    if spec.unlink_first || spec.write_out {
        t.print(Class::File, &format!("layout unlink {name}"));
    }
    let flags = 0x1 | if spec.allow_create { 0x40 } else { 0 } | if spec.write_out { 0x200 } else { 0 };
    t.print(Class::File, &format!("open file {name}, flags {flags:x}"));
}

/// fio's `extend_file` lines for `path` once laid out to `size`: the space reservation
/// (`fallocate=`, with its outcome for `native`), the truncation of a new layout.
fn trace_layout_done(
    t: &Tracer,
    spec: &LayoutSpec,
    path: &std::path::Path,
    size: u64,
    fill_device: bool,
    prealloc: &std::io::Result<()>,
) {
    if !t.on(Class::File) {
        return;
    }
    let name = path.display();
    match spec.prealloc {
        file::Prealloc::None => {}
        file::Prealloc::Posix => t.print(Class::File, &format!("posix_fallocate file {name} size {size}")),
        file::Prealloc::Keep => {
            t.print(Class::File, &format!("fallocate(FALLOC_FL_KEEP_SIZE) file {name} size {size}"));
        }
        file::Prealloc::Truncate => t.print(Class::File, &format!("ftruncate file {name} size {size}")),
        file::Prealloc::Native => {
            let un = if prealloc.is_ok() { "" } else { "un" };
            t.print(Class::File, &format!("native fallocate of file {name} size {size} was {un}successful"));
            if prealloc.as_ref().is_err_and(|e| e.raw_os_error() == Some(libc::ENOSYS)) {
                t.print(Class::File, "native fallocate is not implemented");
            }
        }
    }
    // fill_device's size is "until full": fio truncates nothing then.
    if spec.write_out && !fill_device {
        t.print(Class::File, &format!("truncate file {name}, size {size}"));
    }
}

/// The C library's text of an OS error (`File too large`), as fio's `strerror` prints it.
fn strerror(e: &std::io::Error) -> String {
    match e.raw_os_error().and_then(|n| zonekit_core::Errno(n).description()) {
        Some(d) => d.to_string(),
        None => e.to_string(),
    }
}

/// What fio's `td_io_open_file` does once the engine opened file `f` (as `h`): drop its cached
/// pages over the job's range (`invalidate`), announce the job's access pattern over it
/// (`fadvise_hint`: `posix_fadvise`, a failure ignored), set the write-life hint
/// (`write_hint`: its failure fails the job with fio's `fcntl write hint`).
fn after_open(opts: &JobOptions, h: &File, f: &PlannedFile) -> Result<(), (i32, String)> {
    if opts.invalidate {
        let _ = file::invalidate_cache(h, f.range.offset, f.range.len);
    }
    let advice = match opts.fadvise_hint.as_str() {
        "0" => None,
        "random" => Some(file::FileAdvice::Random),
        "sequential" => Some(file::FileAdvice::Sequential),
        _ if opts.rw.is_random() => Some(file::FileAdvice::Random),
        _ => Some(file::FileAdvice::Sequential),
    };
    if let Some(a) = advice {
        // fio warns once ("fadvise hint failed") when the call returns -1, which glibc's
        // posix_fadvise never does (it returns the error): nothing is printed.
        let _ = file::advise(h, f.range.offset, f.range.len, a);
    }
    if let Some(hint) = opts.write_hint.as_deref().and_then(file::WriteHint::from_fio)
        && let Err(e) = file::set_write_hint(h, hint, opts.direct)
    {
        return Err((errno_of(&e), "file:ioengines.c:596, func=fcntl write hint".into()));
    }
    Ok(())
}

/// Where a job's I/O buffers live (fio's `mem=`, `hugepage-size`).
fn buffer_memory(opts: &JobOptions) -> zonekit_blk::BufferMemory {
    use zonekit_blk::BufferMemory;
    let huge = (opts.hugepage_size > 0).then_some(usize::try_from(opts.hugepage_size).unwrap_or(usize::MAX));
    let file = opts.mmapfile.as_ref().map(std::path::PathBuf::from);
    match opts.mem.as_str() {
        "shm" => BufferMemory::Shm { huge_page: None },
        "shmhuge" => BufferMemory::Shm { huge_page: huge },
        "mmap" => BufferMemory::Mmap { file, shared: false, huge_page: None },
        "mmapshared" => BufferMemory::Mmap { file, shared: true, huge_page: None },
        "mmaphuge" => BufferMemory::Mmap { shared: file.is_some(), file, huge_page: huge },
        _ => BufferMemory::Heap,
    }
}

/// fio's `td_verror` text of a failed buffer allocation (`memory.c`): the call that failed, or
/// `iomem allocation` for the heap.
fn buffer_verror(call: &str) -> String {
    let line = match call {
        "shmget" => 78,
        "shmat" => 101,
        "open mmap file" => 146,
        "truncate mmap file" => 153,
        "mmap" => 170,
        _ => return "file:memory.c:332, func=iomem allocation".into(),
    };
    format!("file:memory.c:{line}, func={call}")
}

/// fio's advice after `shmget` fails (`alloc_mem_shm`).
fn buffer_advice(opts: &JobOptions, call: &str, errno: i32) -> Vec<String> {
    let mut out = Vec::new();
    if call != "shmget" {
        return out;
    }
    if !crate::sys::is_root() && matches!(errno, libc::ENOMEM | libc::EPERM) {
        out.push("zonekit: you may need to run this job as root".into());
    }
    if opts.mem == "shmhuge" {
        match errno {
            libc::EINVAL => {
                out.push("zonekit: check that you have free huge pages and that hugepage-size is correct.".into());
            }
            libc::ENOSYS => out.push("zonekit: your system does not appear to support huge pages.".into()),
            libc::ENOMEM => {
                out.push("zonekit: no huge pages available, do you need to allocate some? See HOWTO.".into())
            }
            _ => {}
        }
    }
    out
}

/// How a job opens its files (fio's `generic_open_file`).
fn open_spec(opts: &JobOptions) -> OpenSpec {
    let sync = match opts.sync.as_str() {
        "sync" | "1" => SyncMode::Sync,
        "dsync" => SyncMode::Dsync,
        _ => SyncMode::None,
    };
    OpenSpec {
        reads: opts.rw.reads(),
        // fio's falloc opens its files read-write (and creates them) whatever the direction.
        writes: opts.rw.writes() || opts.ioengine == "falloc",
        trims: opts.rw.trims(),
        direct: opts.direct,
        sync,
        allow_create: opts.allow_file_create,
        create_on_open: opts.create_on_open,
    }
}

/// `unlink_each_loop` between two loops (fio's `clear_io_state` then `unlink_all_files`): the
/// regular files are unlinked, then opened again (a writing job creates them anew, empty; a
/// reading one fails to open them, as in fio) and handed to the same engine, which closes the
/// old ones. The error is the errno and the line the job ends with.
fn reopen_unlinked(
    opts: &JobOptions,
    files: &[PlannedFile],
    engine: &mut Box<dyn zonekit_blk::Engine>,
    handles: &mut Vec<File>,
    real: RealClock,
) -> Result<(), (i32, String)> {
    handles.clear();
    for f in files.iter().filter(|f| !f.is_block) {
        file::unlink_job_file(&f.path)
            .map_err(|e| (errno_of(&e), format!("{}: unlink_all_files: {}", f.path.display(), os(&e))))?;
    }
    let ospec = open_spec(opts);
    let mut fds = Vec::with_capacity(files.len());
    for f in files {
        let fd = file::open_job_file(&f.path, &ospec).map_err(|e| (errno_of(&e), open_verror(&f.path)))?;
        if let Ok(dup) = fd.try_clone() {
            let h = File::from(dup);
            after_open(opts, &h, f)?;
            handles.push(h);
        }
        fds.push(fd);
    }
    if opts.offload() {
        // The pool's threads hold descriptors of their own: a new pool over the new files.
        let kind = engines::blk_engine(opts)
            .ok_or_else(|| (libc::EINVAL, format!("ioengine {}: not run by zonekit on files", opts.ioengine)))?;
        *engine = file_engine(opts, files, kind, fds, real).map_err(|e| (e.errno(), e.to_string()))?;
        return Ok(());
    }
    // fio keeps its engine (its ring, its AIO context): only the files are new.
    engine.reopen_files(fds).map_err(|e| (e.errno(), e.to_string()))
}

/// The engine of a job over its files (`fds`, in the order of `files`; empty for engines that
/// open nothing): `kind` with `iodepth` slots, or with `io_submit_mode=offload` a pool of
/// `iodepth` submission threads with an engine of depth 1 each. Each thread's engine gets
/// descriptors of its own: duplicates, or for `sync` and `vsync`, which seek, the files opened
/// again (a duplicate shares its file position).
fn file_engine(
    opts: &JobOptions,
    files: &[PlannedFile],
    kind: zonekit_blk::EngineKind,
    fds: Vec<std::os::fd::OwnedFd>,
    real: RealClock,
) -> Result<Box<dyn zonekit_blk::Engine>, zonekit_blk::EngineError> {
    let config = |depth: u32, files: Vec<std::os::fd::OwnedFd>| EngineConfig {
        depth,
        buffer_size: sizing::max_block_size(opts) as usize,
        buffer_align: 4096,
        buffer_offset: opts.iomem_align as usize,
        buffer_memory: buffer_memory(opts),
        files,
        clock: real,
    };
    if !opts.offload() {
        return zonekit_blk::open_engine(kind, config(opts.iodepth.max(1), fds));
    }
    let name = kind.name();
    let setup = |source: std::io::Error| zonekit_blk::EngineError::Setup { engine: name, source };
    let seeks = matches!(kind, zonekit_blk::EngineKind::Sync | zonekit_blk::EngineKind::Vsync);
    let ospec = open_spec(opts);
    let mut tables = Vec::new();
    for _ in 1..opts.iodepth.max(1) {
        let table = if seeks && fds.len() == files.len() {
            files.iter().map(|f| file::open_job_file(&f.path, &ospec)).collect::<Result<Vec<_>, _>>()
        } else {
            fds.iter().map(|fd| fd.try_clone()).collect::<Result<Vec<_>, _>>()
        };
        tables.push(table.map_err(setup)?);
    }
    let engines = std::iter::once(fds)
        .chain(tables)
        .map(|t| zonekit_blk::open_engine(kind.clone(), config(1, t)))
        .collect::<Result<Vec<_>, _>>()?;
    offload_pool(engines, real)
}

/// fio's `io_submit_mode=offload` over `engines` (one per slot).
fn offload_pool(
    engines: Vec<Box<dyn zonekit_blk::Engine>>,
    real: RealClock,
) -> Result<Box<dyn zonekit_blk::Engine>, zonekit_blk::EngineError> {
    Ok(Box::new(zonekit_blk::OffloadEngine::new(engines, real)?))
}

/// The job error of a file that cannot be opened, as fio's `generic_open_file` records it
/// (`td_verror(td, errno, "open(FILE)")`).
fn open_verror(path: &std::path::Path) -> String {
    format!("file:filesetup.c:805, func=open({})", path.display())
}

/// The loop configuration of a phase of a job (a write pass, a verify pass) that goes on from
/// the epoch `epoch` (`None`: the job's first, which ramps): its deadline is the job's, as the
/// first phase's end of ramp moved it (`deadline_at`, a clock reading), counted from the epoch.
fn phase_config(cfg: &LoopConfig, epoch: Option<u64>, deadline_at: Option<u64>) -> LoopConfig {
    let mut c = cfg.clone();
    if let (Some(e), Some(at)) = (epoch, deadline_at) {
        c.deadline = Some(std::time::Duration::from_nanos(at.saturating_sub(e)));
    }
    c
}

/// Reads `local-<job>-<index>-verify.state`; the error is fio's lines.
fn load_verify_state(job: &str, index: u64) -> Result<VerifyState, Vec<String>> {
    let name = vstate::file_name(job, index);
    match std::fs::read(&name) {
        Ok(b) => VerifyState::decode(&b).map_err(|why| vec![format!("zonekit: {why}")]),
        Err(e) => Err(vec![
            format!("zonekit: open state file: {}", zonekit_core::io_text(&e)),
            format!("zonekit: state file: {name} (for_write=0)"),
        ]),
    }
}

/// The job's verification plan (`verify=`), if it verifies.
fn verify_plan(
    opts: &JobOptions,
    files: usize,
    seed: u64,
    thread: u32,
    sync: bool,
    state: Option<Arc<VerifyState>>,
) -> Option<Box<JobVerify>> {
    let v = &opts.verify;
    if v.kind == VerifyType::None {
        return None;
    }
    let (reads, writes) = (opts.rw.reads(), opts.rw.writes());
    let spec = VerifySpec {
        kind: v.kind,
        interval: v.interval,
        hdr_offset: v.offset,
        pattern: v.pattern.clone(),
        compress_percentage: opts.buffer_compress_percentage,
        buffer_pattern: opts
            .buffer_pattern
            .as_deref()
            .and_then(|p| crate::verify::Pattern::parse(p).ok())
            .map(|p| p.bytes)
            .unwrap_or_default(),
        fatal: v.fatal,
        dump: v.dump,
        thread: thread as u16,
        check_numberio: writes && opts.min_bs[1] == opts.max_bs[1] && !opts.time_based && !v.only,
    };
    let plan = VerifyPlan {
        spec: Arc::new(spec),
        log_writes: writes && opts.do_verify && !v.experimental,
        sorted: !opts.rw.is_random() || opts.norandommap,
        verify_reads: !(reads && writes),
        check_seed: reads && writes && v.backlog == 0,
        backlog: if writes { v.backlog } else { 0 },
        backlog_batch: v.backlog_batch,
        // fio's verify errors are EILSEQ: carried past when `ignore_error`'s verify list (EIO
        // and EILSEQ by default) has it.
        continue_on_error: opts.continue_on_error.verify
            && (opts.ignore_error[2].is_empty() || opts.ignore_error[2].contains(&libc::EILSEQ)),
        async_engine: !sync,
        state,
        seed,
        depth: opts.iodepth.max(1),
        fake_io: opts.ioengine == "null",
        trim_percentage: v.trim_percentage,
        trim_backlog: if writes { v.trim_backlog } else { 0 },
        trim_batch: v.trim_batch,
        trim_zero: v.trim_zero,
    };
    Some(Box::new(JobVerify::new(plan, files)))
}

/// The zone rules of a job's workload.
fn zone_mode_spec(opts: &JobOptions) -> ZoneModeSpec {
    match opts.zonemode {
        ZoneMode::None => ZoneModeSpec::None,
        ZoneMode::Strided => {
            ZoneModeSpec::Strided { size: opts.zonesize, range: opts.zonerange, skip: size_bytes(opts.zoneskip) }
        }
        ZoneMode::Zbd => ZoneModeSpec::Zbd {
            zone_size: opts.zonesize,
            skip: size_bytes(opts.zoneskip),
            read_beyond_wp: opts.read_beyond_wp,
        },
    }
}

/// The prefix of a clone's `kind` log file: the option's value, or the job's name when the
/// option is given bare.
fn log_prefix(opts: &JobOptions, kind: LogKind) -> String {
    let v = match kind {
        LogKind::Bw => &opts.write_bw_log,
        LogKind::Iops => &opts.write_iops_log,
        LogKind::ClatHist => &opts.write_hist_log,
        _ => &opts.write_lat_log,
    };
    match v.as_deref() {
        Some(s) if !s.is_empty() && s != "1" => s.to_string(),
        _ => opts.name.clone(),
    }
}

/// The log files a clone writes at its end, with the option that asks for each:
/// `(option, path)`. fio numbers them by the clone's `thread_number` (1-based, over the run).
pub fn log_paths(opts: &JobOptions, thread_number: u32) -> Vec<(&'static str, PathBuf)> {
    let stats = ThreadStats::new(&sizing::stats_config(opts));
    let store = opts.log_store_compressed;
    let hist = stats.hist_log().map(|_| LogKind::ClatHist);
    stats
        .logs()
        .map(|l| l.kind())
        .chain(hist)
        .map(|kind| {
            let option = match kind {
                LogKind::Bw => "write_bw_log",
                LogKind::Iops => "write_iops_log",
                LogKind::ClatHist => "write_hist_log",
                _ => "write_lat_log",
            };
            let name = log_file_name(&log_prefix(opts, kind), kind, thread_number, opts.per_job_logs, store);
            (option, PathBuf::from(name))
        })
        .collect()
}

/// Checks that `path` can be written, before a run that writes it at its end: opened to append
/// (creating it), then removed again if it did not exist, so that a run leaves no trace of the
/// check.
pub fn check_writable(path: &std::path::Path) -> std::io::Result<()> {
    let existed = std::fs::symlink_metadata(path).is_ok();
    std::fs::OpenOptions::new().append(true).create(true).open(path)?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Set a clone up and run it (a run of one clone; tests and simple callers).
pub fn run_job(run: JobRun, terminate: Arc<AtomicBool>, progress: Arc<Progress>, note: NoteSink) -> JobOutcome {
    zonekit_blk::clock::calibrate();
    let mut ctx = SetupCtx::default();
    let source = run.opts.clocksource.as_deref().and_then(zonekit_blk::clock::ClockSource::from_fio);
    let clock = RealClock::with_source(std::time::Instant::now(), source.unwrap_or_default());
    match prepare_job(run, &mut ctx, &note) {
        Ok(p) => crate::run::executor::block_on(run_prepared(p, clock, terminate, progress, note)),
        Err(o) => *o,
    }
}

/// Run a prepared clone to the end on `clock`: on its own thread in real time, as a task of the
/// event loop in simulated time. Never panics on bad input: problems end the clone with an error.
pub async fn run_prepared<C: Clock>(
    mut p: Prepared,
    clock: C,
    terminate: Arc<AtomicBool>,
    progress: Arc<Progress>,
    note: NoteSink,
) -> JobOutcome {
    let mut log = std::mem::take(&mut p.log);
    let mut o = run_clone(p, clock, terminate, progress, note).await;
    log.append(&mut o.log);
    o.log = log;
    o
}

/// [`run_prepared`], but for the lines of the setup.
async fn run_clone<C: Clock>(
    p: Prepared,
    clock: C,
    terminate: Arc<AtomicBool>,
    progress: Arc<Progress>,
    note: NoteSink,
) -> JobOutcome {
    let Prepared {
        run,
        opts,
        seed,
        files,
        devices,
        zones,
        setup_resets,
        queues,
        vstate,
        flow,
        locks,
        io_jobs,
        io_job,
        trace,
        known,
        file_hash,
        setup_error,
        deferred_layout,
        ..
    } = p;
    let (mut files, mut setup_error, mut setup_log) = (files, setup_error, Vec::new());
    let tid = crate::sys::gettid();
    let mut jt = trace
        .any()
        .then(|| Box::new(JobTrace::new(trace.clone(), &opts, run.thread_number, &files, &known, file_hash)));
    // Counted as running until this function returns.
    let _io_job = io_job;
    // The jobs' own time per I/O, spent in simulated time only (a real clock spends it for real).
    let host_io_ns = if clock.as_real().is_none() {
        queues.iter().flatten().map(|q| q.config().host_io_ns).max().unwrap_or(0)
    } else {
        0
    };
    let started = SystemTime::now();
    progress.pid.store(u64::from(crate::sys::gettid()), Ordering::Relaxed);
    // fio's setup_files marks a create_only job done once its files are laid out: no I/O, no
    // report block (the job's numbers stay zero).
    let created_only = |files: &[PlannedFile]| {
        let mut o = fail(&run, started, 0, String::new());
        o.error = None;
        o.files = files.iter().map(|f| f.path.clone()).collect();
        o
    };
    if opts.create_only && !deferred_layout {
        return created_only(&files);
    }
    let on_devices = devices.iter().any(Option::is_some);
    // Engines over the kernel stamp completions with the real clock, on `clock`'s time base (a
    // simulated run has none of them).
    let real = clock.as_real().unwrap_or_default();

    // fio starts a job's thread once its startdelay has passed: its files (a network engine's
    // connection) are opened after it.
    let delay = sizing::start_delay(&opts, seed);
    if !delay.is_zero() {
        let until = clock.now_ns() + delay.as_nanos() as u64;
        while clock.now_ns() < until && !terminate.load(Ordering::Relaxed) {
            clock.sleep_until(until.min(clock.now_ns() + 5_000_000)).await;
        }
    }

    // fio's thread_main places the job's thread first: its CPUs, then its NUMA nodes and memory
    // policy (not in simulated time, where jobs share a thread). Lines fio prints and goes on
    // after are kept for the end.
    let mut pre_log: Vec<String> = Vec::new();
    if clock.as_real().is_some() {
        match crate::run::placement::apply_cpus(&opts.placement, run.thread_number) {
            Ok(lines) => pre_log.extend(lines),
            Err(f) => return placement_failed(&run, started, f, pre_log),
        }
    }

    // fio's fio_pin_memory: lockmem bytes locked until the job's I/O ends, at most the RAM
    // less 128 MiB.
    let mut locked = None;
    if opts.lockmem > 0 {
        let mut len = opts.lockmem;
        let ram = crate::sys::phys_mem();
        if ram > 0 && len.saturating_add(128 << 20) > ram {
            len = ram.saturating_sub(128 << 20);
            note(&format!("zonekit: limiting mlocked memory to {}MiB", len >> 20));
        }
        dprint!(trace, Class::Mem, "pinning {len} bytes");
        match crate::sys::LockedMem::lock(usize::try_from(len).unwrap_or(usize::MAX)) {
            Ok(m) => locked = Some(m),
            Err((call, e)) => {
                return fail(&run, started, errno_of(&e), format!("lockmem={}: {call}: {}", opts.lockmem, os(&e)));
            }
        }
    }

    if let Some(j) = &jt {
        j.mem_init();
    }

    // fio's thread_main sets the job's nice value and switches its disks' I/O scheduler before
    // exec_prerun; a scheduler that does not take ends the job.
    if clock.as_real().is_some()
        && let Err(f) = crate::run::placement::apply_nice(&opts.placement)
    {
        return placement_failed(&run, started, f, pre_log);
    }
    if let Some(name) = &opts.placement.ioscheduler
        && opts.disk_util
        && !sizing::diskless(&opts)
        && !sizing::file_ops(&opts)
    {
        // fio's f->du: the disk under each file (none for zonekit's devices, tmpfs, or
        // disk_util=0, which fio skips).
        let disks: Vec<Option<PathBuf>> = files
            .iter()
            .zip(&devices)
            .map(|(f, d)| if d.is_some() { None } else { crate::output::disk::sysfs_disk_dir(&f.path) })
            .collect();
        match crate::run::placement::switch_ioscheduler(name, disks.iter().map(|d| d.as_deref())) {
            Ok(lines) => pre_log.extend(lines),
            Err(f) => return placement_failed(&run, started, f, pre_log),
        }
    }

    // create_serialize=0: the job's thread lays its files out once it is placed and its I/O
    // scheduler set (fio's thread_main calls setup_files there), while other jobs may be running.
    if deferred_layout {
        match lay_out(&run, &opts, &mut files, seed, &trace, &note, started) {
            Ok(l) => {
                setup_error = l.setup_error;
                setup_log = l.setup_log;
            }
            Err(o) => return *o,
        }
        if opts.create_only {
            return created_only(&files);
        }
    }

    // fio's thread_main runs exec_prerun once the files are laid out; when it fails the job
    // ends there: no I/O, no error, no exec_postrun.
    if let Some(cmd) = &opts.exec_prerun
        && !exec_string(&opts.name, cmd, "prerun", &note)
    {
        let mut o = fail(&run, started, 0, String::new());
        o.error = None;
        o.files = files.iter().map(|f| f.path.clone()).collect();
        return o;
    }

    // fio's thread_main: the job's I/O priority is set before its engine is set up (on this
    // thread, which issues the job's I/O; not in simulated time, where jobs share a thread).
    if let Some(p) = opts.job_ioprio()
        && clock.as_real().is_some()
        && let Err(e) = crate::sys::ioprio_set_thread(p)
    {
        return fail(&run, started, errno_of(&e), "ioprio_set".into());
    }

    // lockfile: the job has its locked files open with its mode until it ends; one that a
    // running job has open with the other mode fails it (fio 3.33 fails an assertion there).
    let mut open_locks = Vec::new();
    for l in locks.iter().flatten() {
        match l.open() {
            Ok(u) => open_locks.push(u),
            Err(other) => {
                let why = format!(
                    "job {}: lockfile={}: {} is open with lockfile={} by another job running now",
                    opts.name,
                    l.mode().name(),
                    l.path().display(),
                    other.name()
                );
                return fail(&run, started, libc::EINVAL, why);
            }
        }
    }

    // Open the files (or the devices) and the engine.
    let mut handles = Vec::new();
    let engine = if on_devices && opts.ioengine != "null" {
        let sync = device_engine_is_sync(&opts.ioengine);
        let config = DeviceEngineConfig {
            // One slot per iodepth even when synchronous: the job loop fills every slot's buffer
            // (fio allocates iodepth io_us whatever the engine).
            depth: opts.iodepth.max(1),
            buffer_size: sizing::max_block_size(&opts) as usize,
            sync,
            clock: clock.clone(),
            scsi: engines::scsi_options(&opts),
            buffer_offset: opts.iomem_align as usize,
            buffer_memory: buffer_memory(&opts),
        };
        // A clone outside a planned run (no shared queue) gets a queue of its own per device.
        let queues: Vec<Arc<DeviceQueue>> = devices
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, d)| {
                queues
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| Arc::new(DeviceQueue::new(d.clone(), QueueConfig::for_device(&**d), None)))
            })
            .collect();
        if opts.offload() {
            // One engine of depth 1 per submission thread, over the same device queues.
            match clock.as_real() {
                Some(real) => (0..config.depth)
                    .map(|_| {
                        zonekit_blk::open_device_engine(
                            queues.clone(),
                            DeviceEngineConfig { depth: 1, ..config.clone() },
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .and_then(|engines| offload_pool(engines, real)),
                None => {
                    // The clock plan runs offloaded jobs in real time.
                    return fail(&run, started, libc::EINVAL, "io_submit_mode=offload: needs real time".into());
                }
            }
        } else {
            zonekit_blk::open_device_engine(queues, config)
        }
    } else {
        let ospec = open_spec(&opts);
        let mut fds = Vec::with_capacity(files.len());
        if !on_devices && !sizing::diskless(&opts) && !sizing::file_ops(&opts) {
            for f in &files {
                match file::open_job_file(&f.path, &ospec) {
                    Ok(fd) => {
                        if let Ok(dup) = fd.try_clone() {
                            let h = File::from(dup);
                            if let Err((errno, msg)) = after_open(&opts, &h, f) {
                                // The job had its files (fio reports their disks).
                                let mut o = fail(&run, started, errno, msg);
                                o.files = files.iter().map(|f| f.path.clone()).collect();
                                return o;
                            }
                            handles.push(h);
                        }
                        fds.push(fd);
                    }
                    Err(e) => {
                        let mut o = fail(&run, started, errno_of(&e), open_verror(&f.path));
                        // The job's files were set up: fio reports their disks' statistics.
                        o.files = files.iter().map(|f| f.path.clone()).collect();
                        if opts.direct && e.raw_os_error() == Some(libc::EINVAL) {
                            o.log.push(
                                "zonekit: looks like your file system does not support direct=1/buffered=0".into(),
                            );
                        }
                        return o;
                    }
                }
            }
            if opts.pre_read {
                for (h, f) in handles.iter().zip(&files) {
                    if let Err(e) = pre_read(h, f.range.offset, f.range.len, opts.max_bs[0]) {
                        return fail(&run, started, libc::EIO, format!("{}: pre_read: {}", f.path.display(), os(&e)));
                    }
                }
            }
        }
        let Some(mut kind) = engines::blk_engine(&opts) else {
            // Refused before any job runs (see `job::refusals`, `Devices::check_job`).
            let why = format!("ioengine {}: not run by zonekit on files", opts.ioengine);
            return fail(&run, started, libc::EINVAL, why);
        };
        match &mut kind {
            zonekit_blk::EngineKind::FileOps(f) => f.paths = files.iter().map(|f| f.path.clone()).collect(),
            zonekit_blk::EngineKind::Cpu(c) => {
                if opts.noio.exit_on_io_done {
                    c.exit_on_io_done = Some(io_jobs.clone());
                }
                let mode = if c.qsort { "qsort" } else { "noop" };
                note(&format!("{} ({mode}): ioengine=cpuio, cpuload={}, cpucycle={}", opts.name, c.load, c.cycle_us));
            }
            zonekit_blk::EngineKind::Exec(x) => {
                // fio prints a missing value as the C library prints a null string.
                let raw = opts.noio.arguments.as_deref().unwrap_or("(null)");
                let args = x.arguments.as_deref().unwrap_or("(null)");
                note(&format!("{} : program={}, arguments={raw}", opts.name, x.program));
                match &x.redirect {
                    Some((out, err)) => note(&format!(
                        "{} : Saving output of {} {args} : stdout={} stderr={}",
                        opts.name,
                        x.program,
                        out.display(),
                        err.display()
                    )),
                    None => note(&format!("{} : Running {} {args}", opts.name, x.program)),
                }
            }
            _ => {}
        }
        if let zonekit_blk::EngineKind::Net(n) = &mut kind {
            // fio's fio_netio_init: each clone uses the next port.
            n.port = n.port.saturating_add(u16::try_from(run.jobnum).unwrap_or(u16::MAX));
            n.stop = zonekit_blk::StopFlag(terminate.clone());
            if n.listen && !n.proto.is_udp() {
                note("zonekit: waiting for connection");
            }
        }
        file_engine(&opts, &files, kind, fds, real)
    };
    let mut engine = match engine {
        Ok(e) => e,
        Err(zonekit_blk::EngineError::Buffers { source, .. }) => {
            // fio's allocate_io_mem failing: its td_verror, its advice for shared memory.
            let errno = errno_of(&source.source);
            let mut o = fail(&run, started, errno, buffer_verror(source.call));
            o.log = buffer_advice(&opts, source.call, errno);
            o.files = files.iter().map(|f| f.path.clone()).collect();
            return o;
        }
        Err(e) => return fail(&run, started, e.errno(), e.to_string()),
    };

    let mut wspec = sizing::workload_spec(&opts, &files, seed);
    wspec.rand = sizing::rand_spec(&opts, run.thread_number);
    wspec.zone_mode = zone_mode_spec(&opts);
    if engine.is_sync() || engine.offloads() {
        // fio counts a pass's bytes only for I/Os its engine queues on the job's thread
        // (io_queue_event): with a synchronous engine, or offloaded I/Os, a pass ends when its
        // files are done or the job's bytes are.
        wspec.pass_bytes = u64::MAX;
    }
    let mut workload = Workload::new(wspec.clone());
    let stats_cfg = sizing::stats_config(&opts);
    let mut stats = ThreadStats::new(&stats_cfg);
    if opts.block_error_hist
        && let Some(f) = files.first()
    {
        let bs = opts.bs[2].max(1);
        stats.set_block_infos(f.range.offset, bs, (f.range.len / bs) as usize);
    }
    if let Some(hooks) = opts.act {
        stats.set_act(hooks, 0);
    }
    for _ in 0..setup_resets {
        stats.zone_reset();
    }
    let mut loop_cfg = sizing::loop_config(&opts, &files, seed);
    let job_prio = opts.job_ioprio().unwrap_or(0);
    loop_cfg.cmdprio = crate::options::cmdprio::CmdPrio::new(
        &opts.cmdprio,
        job_prio,
        opts.rw.reads(),
        opts.rw.writes(),
        wspec.rand.seeds.rand(crate::rng::Purpose::Prio, false),
    );
    match &loop_cfg.cmdprio {
        Some(c) => stats.set_prios(job_prio, [c.prios(0), c.prios(1)]),
        None => stats.set_prios(job_prio, [&[], &[]]),
    }
    if opts.dedupe_global && !run.seeds.is_empty() {
        loop_cfg.content.peers = Some((run.seeds.clone(), run.thread_number - 1));
    }
    loop_cfg.job_id = run.thread_number - 1;
    loop_cfg.setup_error = setup_error;
    loop_cfg.host_io_ns = host_io_ns;
    loop_cfg.pacing.flow = flow.map(|f| (f, opts.pacing.flow));
    loop_cfg.file_locks = locks;
    if opts.offload() {
        // The job hands an I/O over whenever a slot is free: fio's offload loop has no
        // `iodepth_low` or batches (each thread submits its own I/O).
        loop_cfg.depth_low = loop_cfg.depth;
        loop_cfg.batch_submit = 1;
    }
    let ru0 = thread_rusage().unwrap_or_default();
    let t0 = clock.now_ns();
    let started = SystemTime::now();
    let nfiles = files.len();
    let mut jv = verify_plan(&opts, nfiles, seed, run.thread_number, engine.is_sync(), vstate);
    let verifying_writer = jv.is_some() && opts.rw.writes();
    // fio's thread_main with verification: each of the job's `loops` writes its bytes, then
    // reads them back (`randrepeat` repeats the offsets).
    // A time-based writer writes for all of its runtime, so its verify phase never starts (fio
    // warns so when the job starts).
    let per_loop = verifying_writer && opts.do_verify && !opts.verify.only && !opts.time_based;
    let mut wspec_loop = wspec.clone();
    if per_loop {
        wspec_loop.loops = 1;
        wspec_loop.time_based = false;
        workload = Workload::new(wspec_loop.clone());
    }
    // unlink_each_loop: fio's thread_main runs each of the `loops` on its own, closing and
    // unlinking the files in between (a time-based job runs one loop).
    let unlink_rounds = opts.unlink_each_loop
        && !opts.time_based
        && opts.loops > 1
        && !on_devices
        && !sizing::diskless(&opts)
        && (!verifying_writer || !opts.verify.only);
    if unlink_rounds {
        wspec_loop.loops = 1;
        workload = Workload::new(wspec_loop.clone());
    }
    let rounds = if per_loop || unlink_rounds { opts.loops.max(1) } else { 1 };
    let mut phase_runtime: Option<(u64, u64)> = None;
    let mut log: Vec<String> = setup_log;
    let mut epoch: Option<u64> = None;
    // When the job's runtime ends, once its first loop has run: the end of its ramp as noticed
    // plus `runtime` (fio's `runtime_exceeded` counts from the reset `td->epoch` in every phase).
    let mut deadline_at: Option<u64> = None;
    let mut end = LoopEnd {
        io_runtime_ns: 0,
        epoch_ns: t0,
        deadline_ns: None,
        error: None,
        log: Vec::new(),
        verify: jv.take(),
        latency_depth: 0,
        lat_search: None,
        trace: None,
    };
    let mut writes_before = 0;
    for round in 0..rounds {
        let phase_start = clock.now_ns();
        end = if verifying_writer && opts.verify.only {
            // fio's do_dry_run: the writes the job would issue, listed for the verify phase.
            let mut v = end.verify.take().expect("verifying");
            let mut dry = Workload::new(wspec.clone());
            while let Some(io) = dry.next() {
                if io.dir == crate::workload::Dir::Write {
                    v.dry_run_write(&io);
                    stats.issued(crate::stats::Ddir::Write);
                }
            }
            LoopEnd {
                io_runtime_ns: 0,
                epoch_ns: phase_start,
                deadline_ns: None,
                error: None,
                log: Vec::new(),
                verify: Some(v),
                latency_depth: 0,
                lat_search: None,
                trace: None,
            }
        } else {
            if round > 0 {
                workload = Workload::new(wspec_loop.clone());
            }
            if round > 0
                && unlink_rounds
                && let Err(e) = reopen_unlinked(&opts, &files, &mut engine, &mut handles, real)
            {
                end.error = Some(e);
                break;
            }
            let lp = JobLoop::new(
                engine.as_mut(),
                &mut workload,
                &mut stats,
                phase_config(&loop_cfg, epoch, deadline_at),
                terminate.clone(),
                progress.clone(),
                clock.clone(),
                zones.clone(),
            );
            // The setup's error ends the first loop (fio's thread ends with it).
            loop_cfg.setup_error = None;
            let lp = match epoch {
                Some(e) => lp.continue_from(e),
                None => lp,
            };
            let mut e = lp.with_verify(end.verify.take()).with_trace(jt.take()).run().await;
            jt = e.trace.take();
            e
        };
        let e0 = *epoch.get_or_insert(end.epoch_ns);
        deadline_at = deadline_at.or(end.deadline_ns);
        let write_ns =
            if round == 0 { end.io_runtime_ns } else { (e0 + end.io_runtime_ns).saturating_sub(phase_start) };
        log.append(&mut end.log);
        // A loop that wrote nothing ends the job (fio's thread_main), without a verify phase.
        let writes = end.verify.as_ref().map_or(0, |v| v.writes_issued());
        let wrote = writes > writes_before;
        writes_before = writes;
        // fio's do_verify: read back what the job wrote and check it.
        let verify_now =
            wrote && verifying_writer && opts.do_verify && end.error.is_none() && !terminate.load(Ordering::Relaxed);
        // A job that does not verify keeps its verification for its state file (fio saves it
        // whatever `do_verify` says).
        let Some(mut v) = (if verify_now { end.verify.take() } else { None }) else {
            let past_deadline = deadline_at.is_some_and(|at| clock.now_ns() >= at);
            if unlink_rounds
                && !verifying_writer
                && end.error.is_none()
                && !terminate.load(Ordering::Relaxed)
                && !past_deadline
            {
                continue;
            }
            break;
        };
        let pieces = if opts.verify.experimental {
            let mut replay = Workload::new(wspec_loop.clone());
            JobVerify::pieces_of(std::iter::from_fn(|| replay.next()))
        } else {
            v.take_log()
        };
        v.start_phase(pieces);
        // fio's clear_io_state closes the files, then do_verify starts.
        if let Some(j) = jt.as_mut() {
            j.close_files(false);
            dprint!(j.t, Class::Verify, "starting loop");
            if j.zbd {
                // fio opens the files again for the reads, and resets their zone accounting as
                // it does (its zones are not reset in the verify phase).
                for z in zones.iter().flatten() {
                    let swd = z.file_reset();
                    j.at_open(z.file_index, Class::Zbd, format!("zbd_file_reset({}): swd = {swd}", z.file.name));
                }
            }
        }
        runstate(&trace, tid, "RUNNING", "VERIFYING");
        if opts.invalidate {
            for (h, f) in handles.iter().zip(&files) {
                let _ = file::fsync_file(h);
                let _ = file::invalidate_cache(h, f.range.offset, f.range.len);
            }
        }
        let read_start = clock.now_ns();
        let lp = JobLoop::new(
            engine.as_mut(),
            &mut workload,
            &mut stats,
            phase_config(&loop_cfg, Some(e0), deadline_at),
            terminate.clone(),
            progress.clone(),
            clock.clone(),
            vec![None; nfiles],
        )
        .continue_from(e0)
        // fio's do_verify keeps the depth latency_target found while writing (and reports it).
        .resume_latency_search(end.lat_search)
        .with_verify(Some(v))
        .with_trace(jt.take());
        end = lp.run().await;
        jt = end.trace.take();
        runstate(&trace, tid, "VERIFYING", "RUNNING");
        if let Some(j) = &jt {
            dprint!(j.t, Class::Verify, "exiting loop");
        }
        if let Some(v) = end.verify.as_mut() {
            v.end_phase();
        }
        log.append(&mut end.log);
        let read_ns = (e0 + end.io_runtime_ns).saturating_sub(read_start);
        let (w, r) = phase_runtime.unwrap_or((0, 0));
        phase_runtime = Some((if opts.verify.only { 0 } else { w + write_ns }, r + read_ns));
        deadline_at = deadline_at.or(end.deadline_ns);
        let past_deadline = deadline_at.is_some_and(|at| clock.now_ns() >= at);
        if end.error.is_some() || terminate.load(Ordering::Relaxed) || past_deadline {
            break;
        }
    }
    pre_log.append(&mut log);
    end.log = pre_log;
    if verifying_writer && opts.verify.state_save {
        let issued = end.verify.as_ref().map_or(0, |v| v.writes_issued());
        if let Some(v) = &end.verify {
            let st = v.state(&opts.name, u64::from(run.thread_number - 1), issued);
            let name = vstate::file_name(&opts.name, u64::from(run.thread_number - 1));
            if let Err(e) = std::fs::write(&name, st.encode()) {
                end.log.push(format!("zonekit: open state file: {}", zonekit_core::io_text(&e)));
                end.log.push(format!("zonekit: state file: {name} (for_write=1)"));
            }
        }
    }
    let mut error = end.error;
    runstate(&trace, tid, "RUNNING", "FINISHING");
    // fsync_on_close: fio syncs each file as its I/O ends (as end_fsync), then finds nothing
    // left to sync when it closes them.
    if (opts.end_fsync || opts.fsync_on_close) && opts.rw.writes() {
        for (h, f) in handles.iter().zip(&files) {
            if let Err(e) = file::fsync_file(h) {
                error.get_or_insert((errno_of(&e), format!("{}: end_fsync: {}", f.path.display(), os(&e))));
            }
        }
        for (d, f) in devices.iter().zip(&files) {
            if let Some(d) = d
                && let Err(e) = d.flush()
            {
                error.get_or_insert((e.errno().0, format!("{}: end_fsync: {e}", f.path.display())));
            }
        }
    }
    for _ in 0..engine.dropped() {
        stats.dropped_io(crate::stats::Ddir::Read);
    }
    let device_io: Vec<(String, DiskCounts)> =
        device_names(&files, &devices).zip(engine.disk_counts().iter().copied()).collect();
    drop(engine);
    if locked.is_some() {
        dprint!(trace, Class::Mem, "unpinning {} bytes", opts.lockmem);
    }
    drop(locked);
    let elapsed_ns = clock.now_ns().saturating_sub(t0);
    let ru1 = thread_rusage().unwrap_or_default();
    let cpu = CpuTimes::between(&ru0, &ru1);
    let ramp = opts.ramp_time.as_nanos() as u64;
    let mut js = stats.finish(elapsed_ns.saturating_sub(ramp), end.io_runtime_ns, cpu);
    if let Some((write_ns, read_ns)) = phase_runtime {
        // fio times the write phase and the verify phase apart.
        js.runtime_ms[1] = if js.io_bytes[1] > 0 { (write_ns / 1000).div_ceil(1000) } else { 0 };
        js.runtime_ms[0] = if js.io_bytes[0] > 0 { (read_ns / 1000).div_ceil(1000) } else { 0 };
    }
    js.latency_depth = end.latency_depth;
    if let Some((errno, _)) = &error
        && js.error == 0
    {
        js.error = *errno;
    }

    // Logs, named after the option's value or the job.
    if stats.logs().next().is_some() || stats.hist_log().is_some() {
        let prefix = |kind: LogKind| log_prefix(&opts, kind);
        if let Err((path, e)) =
            stats.write_logs(std::path::Path::new("."), prefix, run.thread_number, opts.per_job_logs)
        {
            error.get_or_insert((errno_of(&e), format!("{}: writing the log: {}", path.display(), os(&e))));
        }
    }
    // fio runs exec_postrun once the logs are written, whatever the job's outcome and
    // ignoring the command's.
    if let Some(cmd) = &opts.exec_postrun {
        exec_string(&opts.name, cmd, "postrun", &note);
    }
    if opts.unlink && !on_devices && !sizing::diskless(&opts) {
        for f in &files {
            let _ = file::unlink_job_file(&f.path);
        }
    }
    if let Some(j) = jt.as_mut() {
        j.close_files(true);
        j.mem_free();
        j.close_engine();
    }
    runstate(&trace, tid, "FINISHING", "EXITED");
    JobOutcome {
        run,
        stats: js,
        error,
        pid: crate::sys::gettid(),
        started,
        files: files.iter().map(|f| f.path.clone()).collect(),
        notes: Vec::new(),
        log: end.log,
        setup_failed: false,
        exited: true,
        device_io,
    }
}
