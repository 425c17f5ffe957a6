//! One job clone from start to finish, on its own thread (fio's `thread_main`): plan and lay out
//! its files, open them and the engine, wait `startdelay`, run the I/O loop, `end_fsync`,
//! collect cpu usage, write its logs, `unlink`.

use crate::exec::{JobLoop, Progress};
use crate::options::job::JobOptions;
use crate::plan::{self, FileInfo, PlannedFile};
use crate::stats::{CpuTimes, JobStats, ThreadStats, log::LogKind, sys::thread_rusage};
use crate::workload::Workload;
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime};
use zonekit_blk::EngineConfig;
use zonekit_blk::file::{self, FileType, LayoutSpec, OpenSpec, SyncMode};

/// One clone of a job, ready to run.
#[derive(Debug, Clone)]
pub struct JobRun {
    /// The job's options.
    pub opts: Arc<JobOptions>,
    /// Clone number within the job (`$jobnum`), 0-based.
    pub jobnum: u32,
    /// Position of the clone in the whole run, 1-based (fio's `thread_number`).
    pub thread_number: u32,
    /// Reporting group.
    pub groupid: u32,
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
}

/// Held while a job lays out its files.
static LAYOUT: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Messages that fio prints while jobs start (normal output only).
pub type NoteSink = Arc<dyn Fn(&str) + Send + Sync>;

fn fail(run: &JobRun, started: SystemTime, errno: i32, msg: String) -> JobOutcome {
    let mut stats = ThreadStats::new(&plan::stats_config(&run.opts)).finish(0, 0, CpuTimes::default());
    stats.error = errno;
    stats.first_error = errno;
    JobOutcome {
        run: run.clone(),
        stats,
        error: Some((errno, msg)),
        pid: crate::process::gettid(),
        started,
        files: Vec::new(),
        notes: Vec::new(),
    }
}

fn errno_of(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

/// An OS error as DESIGN.md §2 words it: `Not a directory (ENOTDIR)`.
fn os(e: &std::io::Error) -> String {
    match e.raw_os_error().map(zonekit_core::Errno) {
        Some(n) if n.name().is_some() => n.to_string(),
        _ => e.to_string(),
    }
}

fn human_mib(bytes: u64) -> String {
    // fio's layout message: whole MiB, or KiB below one MiB.
    if bytes >= 1 << 20 { format!("{}MiB", bytes >> 20) } else { format!("{}KiB", bytes >> 10) }
}

/// Run one clone to the end. Never panics on bad input: problems end the clone with an error.
pub fn run_job(run: JobRun, terminate: Arc<AtomicBool>, progress: Arc<Progress>, note: NoteSink) -> JobOutcome {
    let opts = run.opts.clone();
    let started = SystemTime::now();
    progress.pid.store(u64::from(crate::process::gettid()), Ordering::Relaxed);
    let seed = plan::job_seed(&opts, run.thread_number);
    let paths = plan::file_paths(&opts, run.jobnum);
    let mut infos = Vec::with_capacity(paths.len());
    for p in &paths {
        let kind = file::file_type(p);
        let info = match kind {
            FileType::Regular => match std::fs::metadata(p) {
                Ok(m) => FileInfo { exists: true, size: m.len(), is_block: false },
                Err(_) => FileInfo::default(),
            },
            FileType::Block => {
                let size = File::open(p).and_then(|f| file::file_size(&f)).map(|s| s.unwrap_or(0));
                match size {
                    Ok(size) => FileInfo { exists: true, size, is_block: true },
                    Err(e) => return fail(&run, started, errno_of(&e), format!("{}: {}", p.display(), os(&e))),
                }
            }
            FileType::Char | FileType::Pipe => {
                return fail(
                    &run,
                    started,
                    libc::EINVAL,
                    format!("{}: pipes and character devices are not supported", p.display()),
                );
            }
        };
        infos.push(info);
    }
    let files = match plan::plan_files(&opts, run.jobnum, &paths, &infos) {
        Ok(f) => f,
        Err(msg) => return fail(&run, started, libc::EINVAL, msg),
    };

    // Lay out missing or short files (fio's extend_file), one job at a time (fio's
    // create_serialize): clones sharing a file find it laid out by the first.
    let _serial = LAYOUT.lock().unwrap_or_else(|e| e.into_inner());
    let to_lay: Vec<&PlannedFile> = files
        .iter()
        .filter(|f| f.layout && std::fs::metadata(&f.path).map_or(true, |m| m.len() < f.range.size))
        .collect();
    if !to_lay.is_empty() {
        let total: u64 = to_lay.iter().map(|f| f.range.size).sum();
        note(&format!(
            "{}: Laying out IO file{} ({} file{} / {})",
            opts.name,
            if to_lay.len() > 1 { "s" } else { "" },
            to_lay.len(),
            if to_lay.len() > 1 { "s" } else { "" },
            human_mib(total)
        ));
        let mut spec = LayoutSpec::for_job(
            opts.rw.reads(),
            opts.rw.writes(),
            opts.overwrite,
            opts.file_append,
            plan::max_block_size(&opts) as usize,
        );
        spec.allow_create = opts.allow_file_create;
        spec.fsync = opts.create_fsync;
        let mut rng = crate::rng::Rng::new(seed ^ 0x1a7);
        for f in to_lay {
            let zero = opts.zero_buffers;
            let stop = terminate.clone();
            let mut fill = |buf: &mut [u8]| {
                if zero {
                    buf.fill(0);
                } else {
                    crate::exec::fill_random(&mut rng, buf);
                }
                !stop.load(Ordering::Relaxed)
            };
            if let Some(parent) = f.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                // fio creates missing directories on the way (mode 0700).
                let _ = std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
                    .create(parent);
            }
            if let Err(e) = file::lay_out_file(&f.path, f.range.size, &spec, &mut fill) {
                return fail(
                    &run,
                    started,
                    errno_of(&e),
                    format!("{}: laying out the file: {}", f.path.display(), os(&e)),
                );
            }
        }
    }

    drop(_serial);

    // Open the files and the engine.
    let sync = match opts.sync.as_str() {
        "sync" | "1" => SyncMode::Sync,
        "dsync" => SyncMode::Dsync,
        _ => SyncMode::None,
    };
    let ospec = OpenSpec {
        reads: opts.rw.reads(),
        writes: opts.rw.writes(),
        trims: opts.rw.trims(),
        direct: opts.direct,
        sync,
        allow_create: opts.allow_file_create,
        create_on_open: opts.create_on_open,
    };
    let mut fds = Vec::with_capacity(files.len());
    let mut handles = Vec::with_capacity(files.len());
    for f in &files {
        match file::open_job_file(&f.path, &ospec) {
            Ok(fd) => {
                if let Ok(dup) = fd.try_clone() {
                    handles.push(File::from(dup));
                }
                fds.push(fd);
            }
            Err(e) => {
                let extra = if opts.direct && e.raw_os_error() == Some(libc::EINVAL) {
                    " (looks like your file system does not support direct=1/buffered=0)"
                } else {
                    ""
                };
                return fail(&run, started, errno_of(&e), format!("{}: open: {}{extra}", f.path.display(), os(&e)));
            }
        }
    }
    if opts.invalidate {
        for (h, f) in handles.iter().zip(&files) {
            let _ = file::invalidate_cache(h, f.range.offset, f.range.len);
        }
    }
    let config = EngineConfig {
        depth: opts.iodepth.max(1),
        buffer_size: plan::max_block_size(&opts) as usize,
        buffer_align: 4096,
        files: fds,
        options: opts.engine_options.clone(),
        clock: zonekit_blk::RealClock::new(),
    };
    let mut engine = match zonekit_blk::open_engine(&opts.ioengine, config) {
        Ok(e) => e,
        Err(e) => return fail(&run, started, libc::EINVAL, e.to_string()),
    };

    let delay = plan::start_delay(&opts, seed);
    if !delay.is_zero() {
        let until = Instant::now() + delay;
        while Instant::now() < until && !terminate.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(5).min(until - Instant::now()));
        }
    }

    let mut workload = Workload::new(plan::workload_spec(&opts, &files, seed));
    let stats_cfg = plan::stats_config(&opts);
    let mut stats = ThreadStats::new(&stats_cfg);
    let loop_cfg = plan::loop_config(&opts, &files, seed);
    let ru0 = thread_rusage().unwrap_or_default();
    let t0 = Instant::now();
    let started = SystemTime::now();
    let end = JobLoop::new(engine.as_mut(), &mut workload, &mut stats, loop_cfg, terminate.clone(), progress).run();
    let mut error = end.error;
    if opts.end_fsync && opts.rw.writes() {
        for (h, f) in handles.iter().zip(&files) {
            if let Err(e) = file::fsync_file(h) {
                error.get_or_insert((errno_of(&e), format!("{}: end_fsync: {}", f.path.display(), os(&e))));
            }
        }
    }
    drop(engine);
    let elapsed_ns = t0.elapsed().as_nanos() as u64;
    let ru1 = thread_rusage().unwrap_or_default();
    let cpu = CpuTimes::between(&ru0, &ru1);
    let ramp = opts.ramp_time.as_nanos() as u64;
    let mut js = stats.finish(elapsed_ns.saturating_sub(ramp), end.io_runtime_ns, cpu);
    if let Some((errno, _)) = &error
        && js.error == 0
    {
        js.error = *errno;
    }

    // Logs, named after the option's value or the job.
    if stats.logs().next().is_some() {
        let prefix = |kind: LogKind| {
            let v = match kind {
                LogKind::Bw => &opts.write_bw_log,
                LogKind::Iops => &opts.write_iops_log,
                _ => &opts.write_lat_log,
            };
            match v.as_deref() {
                Some(s) if !s.is_empty() && s != "1" => s.to_string(),
                _ => opts.name.clone(),
            }
        };
        if let Err(e) = stats.write_logs(std::path::Path::new("."), prefix, run.jobnum + 1, opts.per_job_logs) {
            error.get_or_insert((errno_of(&e), format!("writing logs: {}", os(&e))));
        }
    }
    if opts.unlink {
        for f in &files {
            let _ = file::unlink_job_file(&f.path);
        }
    }
    JobOutcome {
        run,
        stats: js,
        error,
        pid: crate::process::gettid(),
        started,
        files: files.iter().map(|f| f.path.clone()).collect(),
        notes: Vec::new(),
    }
}
