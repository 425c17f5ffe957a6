//! From a job's options to what its thread runs: file names (fio's `filename_format`), file
//! sizes and ranges (`size`, `filesize`, `offset`, `offset_increment`, `nrfiles`), the
//! workload, the statistics configuration and the loop configuration. Pure, given what the file
//! system says about each file.

use crate::options::job::{JobOptions, RandomDistribution, RwMode, RwSequencer, SizeSpec};
use crate::rng::{Generator, Seeds};
use crate::run::io_loop::{BufferFill, ErrorPolicy, LoopConfig};
use crate::stats::{PercentileList, StatsConfig, log::LogConfig};
use crate::workload::{BlockSizes, Distribution, FileRange, RandSpec, WorkloadSpec, ZoneModeSpec};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the file system says about a job file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FileInfo {
    /// It exists.
    pub exists: bool,
    /// Its size (a block device's capacity).
    pub size: u64,
    /// It is a block device (never laid out, never unlinked).
    pub is_block: bool,
}

/// A job file after sizing: where the job works, and whether it must be laid out first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// Path.
    pub path: PathBuf,
    /// The range of the workload.
    pub range: FileRange,
    /// Create or extend the file to `range.size` before the job (fio's "Laying out IO file").
    pub layout: bool,
    /// Block device.
    pub is_block: bool,
}

/// The paths of a job's files: `filename` (a `:`-separated list, shared by every clone of the
/// job), else `nrfiles` names from `filename_format` in `directory` (round-robin over a
/// `:`-separated list of directories).
pub fn file_paths(opts: &JobOptions, jobnum: u32) -> Vec<PathBuf> {
    let dirs = opts.directories();
    let names = opts.filenames();
    if let Some(dir) = &opts.opendir {
        // fio adds the directory's files to those `filename` names (checked when the job was
        // read: a directory that cannot be listed stops the run).
        let mut out = file_paths(&JobOptions { opendir: None, ..opts.clone() }, jobnum);
        if names.is_empty() {
            out.clear();
        }
        out.extend(opendir_files(Path::new(dir)).unwrap_or_default());
        return out;
    }
    if !names.is_empty() {
        return names
            .iter()
            .map(|n| match dirs.first() {
                // `@PROFILE` names a device, not a file in the directory.
                Some(d) if !n.starts_with('/') && !n.starts_with('@') => PathBuf::from(d).join(n),
                _ => PathBuf::from(n),
            })
            .collect();
    }
    (0..opts.nrfiles.max(1))
        .map(|filenum| {
            let name = opts
                .filename_format
                .replace("$jobname", &opts.name)
                .replace("$jobnum", &jobnum.to_string())
                .replace("$filenum", &filenum.to_string())
                .replace("$clientuid", "0");
            match dirs.get(filenum as usize % dirs.len().max(1)) {
                Some(d) => PathBuf::from(d).join(name),
                None => PathBuf::from(name),
            }
        })
        .collect()
}

/// fio's `recurse_dir` for `opendir`: the regular files below `dir`, in directory order,
/// descending into each subdirectory where it is met (symbolic links are neither followed nor
/// added).
pub fn opendir_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = dir.join(entry?.file_name());
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if meta.is_file() {
            out.push(path);
        } else if meta.is_dir() {
            out.extend(opendir_files(&path)?);
        }
    }
    Ok(out)
}

/// fio's `td_min_bs` (and `rw_min_bs`): the smallest block size of the three directions, whether
/// the job uses them or not.
fn td_min_bs(opts: &JobOptions) -> u64 {
    opts.min_bs.iter().copied().min().unwrap_or(4096).max(1)
}

/// fio's `get_start_offset`: where a job's I/O starts in a file of `real` bytes (0 for a file
/// that does not exist yet). A percentage is of the file as it is, and rounds the offset up to
/// `offset_align` (else the smallest block size); an offset in bytes is used as given.
fn start_offset(opts: &JobOptions, jobnum: u32, real: u64, regular: bool) -> u64 {
    if opts.file_append && regular {
        return real;
    }
    let mut align = false;
    let increment = match opts.offset_increment {
        SizeSpec::Percent(p) if p > 0 => {
            align = true;
            u64::from(p).wrapping_mul(real) / 100
        }
        SizeSpec::Bytes(b) => b,
        _ => 0,
    };
    let step = u64::from(jobnum).wrapping_mul(increment);
    let offset = match opts.offset {
        SizeSpec::Percent(p) if p > 0 => {
            align = true;
            (real.wrapping_mul(u64::from(p)) / 100).wrapping_add(step)
        }
        SizeSpec::Bytes(b) => b.wrapping_add(step),
        _ => step,
    };
    if !align {
        return offset;
    }
    let bs = if opts.is_set("offset_align") && opts.offset_align > 0 { opts.offset_align } else { td_min_bs(opts) };
    offset.div_ceil(bs).wrapping_mul(bs)
}

/// Size the job's files as fio 3.33's `setup_files` does: each file's range starts at `offset`
/// (+ `offset_increment` × clone number; see [`start_offset`]) and runs for `size / nrfiles`
/// bytes (the first files a block longer when that does not divide), or without `size` to the
/// file's end; `filesize` (fixed, or a range drawn per file with fio's generator) is where a
/// file that is not of that size ends, the range stopping there; `size=P%` takes P % of each file
/// from its start (capped at the range). A regular file shorter than its range's end is laid out
/// to it. `seeds` are the clone's (the `filesize` range draws). Errors are one line for the user.
pub fn plan_files(
    opts: &JobOptions,
    jobnum: u32,
    seeds: &crate::rng::Seeds,
    paths: &[PathBuf],
    infos: &[FileInfo],
) -> Result<Vec<PlannedFile>, String> {
    let n = paths.len().max(1) as u64;
    let bs = td_min_bs(opts);
    let real_of = |i: &FileInfo| if i.exists { i.size } else { 0 };
    let total_real = infos.iter().fold(0u64, |a, i| a.saturating_add(real_of(i)));
    let (size, size_pct) = match opts.size {
        Some(SizeSpec::Bytes(b)) => (b, 0),
        Some(SizeSpec::Percent(p)) => (0, u64::from(p)),
        _ => (0, 0),
    };
    // fill_device without a size: until the device is full (fio's size of -1).
    let size = if size == 0 && opts.fill_device { u64::MAX } else { size };
    let filesize = opts.filesize.filter(|&(lo, _)| lo > 0);
    if total_real == 0 && size == 0 && filesize.is_none() {
        return Err(format!("job {}: you need to specify size=", opts.name));
    }
    // Without `filesize`, `size` is shared out: the first files take a block more each when the
    // share leaves blocks over.
    let (share, mut extra) = match filesize {
        None => {
            let share = size / n;
            (share, (size - share * n) / bs)
        }
        Some(_) => (0, 0),
    };
    let use64 = crate::rng::Generator::parse(&opts.random_generator).unwrap_or_default().use64();
    let mut draw = seeds.rand(crate::rng::Purpose::FileSize, use64);
    let mut rand_file_size = |lo: u64, hi: u64| {
        // fio's get_rand_file_size: low + (high - low) × r / (max + 1), down to the block size.
        let r = draw.next_u64();
        let v = ((hi - lo) as f64 * (r as f64 / (draw.max() as f64 + 1.0))) as u64 + lo;
        v - v % bs
    };
    let io_size_pct = match opts.io_size {
        Some(SizeSpec::Percent(p)) if p > 0 && p != 100 => u64::from(p),
        _ => 0,
    };
    let invalid_offset = || format!("job {}: you need to specify valid offset=", opts.name);
    let mut total = 0u64;
    let mut out = Vec::with_capacity(paths.len());
    for (path, info) in paths.iter().zip(infos) {
        let real = real_of(info);
        let offset = start_offset(opts, jobnum, real, !info.is_block);
        let mut io = match filesize {
            None => {
                let mut io = share;
                if extra > 0 {
                    extra -= 1;
                    io += bs;
                }
                if io == 0 {
                    if offset > real {
                        return Err(invalid_offset());
                    }
                    io = real - offset;
                }
                io
            }
            Some((lo, hi)) if real < lo || real > hi => {
                if offset > lo {
                    return Err(invalid_offset());
                }
                let end = if lo == hi { lo } else { rand_file_size(lo, hi) };
                end.saturating_sub(offset)
            }
            // A file already of a size in the range keeps it; an offset past its end leaves
            // nothing to do (fio's unsigned difference wraps round to a range that is never
            // reached).
            Some(_) => real.checked_sub(offset).unwrap_or(u64::MAX),
        };
        if size_pct > 0 && size_pct != 100 && io != u64::MAX {
            let file_size = io.saturating_add(offset);
            io = ((u128::from(file_size) * u128::from(size_pct) / 100) as u64).min(file_size - offset);
            io -= io % bs;
        }
        total = total.saturating_add(if io_size_pct > 0 {
            (u128::from(io) * u128::from(io_size_pct) / 100).min(u128::from(u64::MAX)) as u64
        } else {
            io
        });
        // The wrapped range of a file already in the `filesize` range ends where the file does.
        let end = if io == u64::MAX && offset > real { real } else { offset.saturating_add(io) };
        let (size, layout) = if info.is_block {
            if offset >= info.size {
                return Err(format!(
                    "{}: offset {offset} is past the end of the device ({} bytes)",
                    path.display(),
                    info.size
                ));
            }
            (info.size, false)
        } else if end > real {
            (end, true)
        } else {
            (real, false)
        };
        let len = io.min(size.saturating_sub(offset));
        out.push(PlannedFile {
            path: path.clone(),
            range: FileRange { size, offset, len },
            layout,
            is_block: info.is_block,
        });
    }
    // fio's setup_files: the job's size is at most its files' ranges (as `io_size=P%` takes of
    // them), and must hold a block.
    let job_size = if size == 0 || (total > 0 && size > total) { total } else { size };
    if job_size < bs {
        return Err(format!("job {}: blocksize is larger than data set range", opts.name));
    }
    Ok(out)
}

/// fio's `size` once the files are set up (`setup_files`): the `size` given, at most the sum of
/// the files' ranges (each taken at `io_size=P%`), else that sum. The job's I/O stops there, or
/// at `io_size` in bytes when given.
pub fn job_size(opts: &JobOptions, files: &[PlannedFile]) -> u64 {
    let pct = match opts.io_size {
        Some(SizeSpec::Percent(p)) if p > 0 && p != 100 => u64::from(p),
        _ => 100,
    };
    let total = files.iter().fold(0u64, |a, f| {
        let len = if pct == 100 { f.range.len } else { (u128::from(f.range.len) * u128::from(pct) / 100) as u64 };
        a.saturating_add(len)
    });
    match opts.size {
        Some(SizeSpec::Bytes(b)) if b > 0 && (total == 0 || b <= total) => b,
        _ => total,
    }
}

/// Whether a job's engine does no I/O on its files (`null`, `filecreate`, fio's
/// `FIO_DISKLESSIO`): they are names only, never laid out, opened for I/O or counted in the disk
/// statistics.
pub fn diskless(opts: &JobOptions) -> bool {
    matches!(opts.ioengine.as_str(), "null" | "filecreate") || fileless(opts)
}

/// Whether a job's engine never opens its files for I/O: its one call per file is the work it
/// measures (`filecreate`, `filestat`, `filedelete`).
pub fn file_ops(opts: &JobOptions) -> bool {
    matches!(opts.ioengine.as_str(), "filecreate" | "filestat" | "filedelete")
}

/// Whether a job's engine has no files at all, only names (`net` and `netsplice`: a host or a
/// socket's path; `cpuio`, `exec`): whatever a name points at is never looked at.
pub fn fileless(opts: &JobOptions) -> bool {
    matches!(opts.ioengine.as_str(), "net" | "netsplice" | "cpuio" | "exec")
}

/// fio's seed of clone `thread_number` (1-based): the same every run with `randrepeat` or a
/// `randseed` given (fio's setup_random_seeds: setting `randseed` turns `randrepeat` off, yet
/// the seed is then the one given), from the clock otherwise.
pub fn job_seed(opts: &JobOptions, thread_number: u32) -> u64 {
    if opts.randrepeat || opts.is_set("randseed") {
        opts.randseed.wrapping_mul(0x9E37_79B9).wrapping_add(u64::from(thread_number))
    } else {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        (t.as_nanos() as u64) ^ (u64::from(std::process::id()) << 32) ^ u64::from(thread_number)
    }
}

/// fio's generators and seeds of clone `thread_number` (1-based, across the run).
pub fn rand_spec(opts: &JobOptions, thread_number: u32) -> RandSpec {
    RandSpec {
        generator: Generator::parse(&opts.random_generator).unwrap_or_default(),
        generator_set: opts.is_set("random_generator"),
        seeds: Seeds::fio(
            opts.randseed,
            opts.is_set("randseed"),
            opts.randrepeat_seeding,
            opts.allrandrepeat,
            thread_number,
        ),
        bs_write_as_read: opts.verify.kind != crate::verify::VerifyType::None,
        bs_trim_as_write: matches!(opts.rw, RwMode::TrimWrite | RwMode::RandTrimWrite),
    }
}

/// The workload of a job over its planned files (with the seeds of thread 1: set `rand` from
/// [`rand_spec`] for another clone).
pub fn workload_spec(opts: &JobOptions, files: &[PlannedFile], seed: u64) -> WorkloadSpec {
    let bs = |d: usize| BlockSizes {
        min: opts.min_bs[d],
        max: opts.max_bs[d],
        split: opts.bssplit[d].iter().map(|s| (s.bs, s.perc)).collect(),
        align: opts.blockalign[d].max(1),
    };
    // fio's do_io: a pass issues the job's `size` (as its files' setup left it), the job stops
    // at `io_size` bytes when given (times `loops`).
    let total = job_size(opts, files);
    let io_limit = match opts.io_size {
        Some(SizeSpec::Bytes(b)) if b > 0 => b,
        _ => total,
    };
    let distribution = match &opts.random_distribution {
        RandomDistribution::Random | RandomDistribution::Zoned(_) | RandomDistribution::ZonedAbs(_) => {
            Distribution::Uniform
        }
        RandomDistribution::Zipf { theta, .. } => Distribution::Zipf(*theta),
        RandomDistribution::Pareto { h, .. } => Distribution::Pareto(*h),
        RandomDistribution::Normal { sigma, .. } => Distribution::Normal(*sigma),
    };
    let trimwrite = opts.rw.trims() && opts.rw.writes();
    WorkloadSpec {
        read: opts.rw.reads(),
        write: opts.rw.writes(),
        trim: opts.rw.trims(),
        random: opts.rw.is_random(),
        rw_modifier: opts.rw_modifier,
        seq_add: if opts.rw.is_random() { 0 } else { opts.rw_seq_add },
        sequencer_identical: opts.rw_sequencer == RwSequencer::Identical,
        perc_rand: opts.percentage_random,
        bs_is_seq_rand: opts.bs_is_seq_rand,
        bs_unaligned: opts.bs_unaligned,
        rwmix_read: opts.rwmixread,
        bs: [bs(0), bs(1), bs(2)],
        files: files.iter().map(|f| f.range).collect(),
        io_limit,
        loops: opts.loops.max(1),
        time_based: opts.time_based,
        norandommap: opts.norandommap,
        distribution,
        zoned: match &opts.random_distribution {
            RandomDistribution::Zoned(l) | RandomDistribution::ZonedAbs(l) => {
                let lists = l.clone().map(|v| v.iter().map(|z| (z.access_perc, z.size)).collect::<Vec<_>>());
                let absolute = matches!(opts.random_distribution, RandomDistribution::ZonedAbs(_));
                Some(crate::workload::Zoned::new(absolute, [&lists[0], &lists[1], &lists[2]]))
            }
            _ => None,
        },
        seed,
        rand: rand_spec(opts, 1),
        fsync_every: u64::from(opts.fsync),
        fdatasync_every: u64::from(opts.fdatasync),
        sfr_every: opts.sync_file_range.1,
        zone_mode: ZoneModeSpec::None,
        io_size_given: opts.io_size.is_some_and(|s| !s.is_zero()),
        // fio's do_io lets trim-then-write issue twice the bytes (each is trimmed and written).
        pass_bytes: (if opts.rw.writes() && opts.rw.is_random() && opts.norandommap {
            total.max(io_limit)
        } else {
            total
        })
        .saturating_mul(if trimwrite { 2 } else { 1 }),
        keep_done_files: !opts.time_based && opts.loops <= 1 && !opts.do_verify,
        replay: opts.replay.parsed.clone(),
        number_ios: opts.number_ios.saturating_mul(u64::from(opts.loops.max(1))).saturating_mul(if trimwrite {
            2
        } else {
            1
        }),
        trimwrite,
    }
}

/// The statistics a job keeps.
pub fn stats_config(opts: &JobOptions) -> StatsConfig {
    let log = |set: &Option<String>| {
        set.as_ref().map(|_| LogConfig {
            avg_msec: u64::from(opts.log_avg_msec),
            log_max: opts.log_max_value,
            log_offset: opts.log_offset,
            log_prio: opts.log_prio,
            compress_chunk: opts.log_compression,
            store_compressed: opts.log_store_compressed,
        })
    };
    let mut cfg = StatsConfig {
        clat_percentiles: opts.clat_percentiles,
        lat_percentiles: opts.lat_percentiles,
        slat_percentiles: opts.slat_percentiles,
        percentile_list: PercentileList::new(&opts.percentile_list, opts.percentile_precision),
        bw_avg_msec: u64::from(opts.bwavgtime),
        iops_avg_msec: u64::from(opts.iopsavgtime),
        // `stats=0` records no latency at all (fio's `account_io_completion` returns at once).
        disable_lat: opts.disable_lat || !opts.stats,
        disable_clat: opts.disable_clat || !opts.stats,
        disable_slat: opts.disable_slat || !opts.stats,
        disable_bw: opts.disable_bw_measurement,
        // fio's gtod_reduce(): its `o.gtod_reduce` is never set (the option only has a
        // callback, which sets these three), so this is what decides.
        gtod_reduce: opts.disable_clat && opts.disable_slat && opts.disable_bw_measurement,
        bw_log: log(&opts.write_bw_log),
        iops_log: log(&opts.write_iops_log),
        lat_log: log(&opts.write_lat_log),
        hist_log: opts
            .write_hist_log
            .as_ref()
            .map(|_| (u64::from(opts.log_hist_msec), opts.log_hist_coarseness, opts.log_store_compressed)),
        log_alt_clock: (opts.log_unix_epoch || opts.log_alternate_epoch)
            .then_some(opts.log_alternate_epoch_clock_id as i32),
        min_bs: opts.min_bs,
        max_bs: opts.max_bs,
    };
    cfg.resolve_log_avg(opts.is_set("bwavgtime"), opts.is_set("iopsavgtime"));
    cfg
}

/// The loop configuration of a job.
pub fn loop_config(opts: &JobOptions, files: &[PlannedFile], seed: u64) -> LoopConfig {
    // fio's flags (init.c:setup_random_seeds' neighbours): scramble when asked to, or by default
    // unless zero_buffers was set; never with compressible or deduplicated data, nor verify.
    let scramble = opts.scramble_buffers
        && (opts.is_set("scramble_buffers") || !(opts.zero_buffers && opts.is_set("zero_buffers")))
        && opts.buffer_compress_percentage == 0
        && opts.dedupe_percentage == 0
        && opts.verify.kind == crate::verify::VerifyType::None;
    let fill = if opts.refill_buffers {
        BufferFill::Refill
    } else if scramble {
        BufferFill::Scramble
    } else {
        BufferFill::Once
    };
    let total: u64 = files.iter().map(|f| f.range.len).sum();
    let content = crate::run::buffers::BufferContent::of(opts, total);
    let c = opts.continue_on_error;
    let errors =
        ErrorPolicy { cover: [c.read, c.write, c.verify], lists: opts.ignore_error.clone(), dump: opts.error_dump };
    let deadline = match (opts.runtime, opts.time_based) {
        (Some(r), _) if !r.is_zero() => Some(r + opts.ramp_time),
        _ => None,
    };
    LoopConfig {
        depth: opts.iodepth.max(1),
        batch_submit: opts.iodepth_batch_submit.max(1),
        batch_complete_min: opts.iodepth_batch_complete_min.max(1),
        batch_complete_max: opts.iodepth_batch_complete_max.max(opts.iodepth_batch_complete_min).max(1),
        // fio: iodepth_low defaults to iodepth (0 means the same).
        depth_low: if opts.iodepth_low == 0 { opts.iodepth.max(1) } else { opts.iodepth_low.min(opts.iodepth.max(1)) },
        deadline,
        ramp: opts.ramp_time,
        fill,
        content,
        errors,
        fill_device: opts.fill_device,
        seed,
        file_names: files.iter().map(|f| f.path.display().to_string()).collect(),
        job_id: 0,
        direct: opts.direct,
        zbd: opts.zonemode == crate::options::job::ZoneMode::Zbd,
        pacing: crate::run::pacing::PaceConfig::new(opts, seed, None),
        write_iolog: opts.write_iolog.as_ref().map(PathBuf::from),
        cmdprio: None,
        host_io_ns: 0,
        // Set by the job's setup, which shares each file's lock with the run's other jobs.
        file_locks: Vec::new(),
        sync_file_range_flags: opts.sync_file_range.0,
        // fio's fixup_options keeps it for jobs that write or trim at a depth above 1.
        serialize_overlap: opts.serialize_overlap && (opts.rw.writes() || opts.rw.trims()) && opts.iodepth > 1,
        setup_error: None,
    }
}

/// The largest block size a job uses (its buffers' size).
pub fn max_block_size(opts: &JobOptions) -> u64 {
    opts.max_bs.iter().copied().max().unwrap_or(4096)
}

/// `startdelay` (a fixed delay, or a random one in a range).
pub fn start_delay(opts: &JobOptions, seed: u64) -> Duration {
    let (lo, hi) = opts.startdelay;
    if hi <= lo {
        return lo;
    }
    let span = (hi - lo).as_nanos() as u64;
    lo + Duration::from_nanos(crate::rng::Rng::new(seed ^ 0x57a7).next_u64() % span.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> JobOptions {
        JobOptions { name: "job".into(), ..JobOptions::default() }
    }

    fn seeds() -> crate::rng::Seeds {
        crate::rng::Seeds::default_job()
    }

    #[test]
    fn seeds_repeat_with_randrepeat_or_a_given_randseed() {
        let mut o = opts();
        assert_eq!(job_seed(&o, 1), job_seed(&o, 1), "randrepeat=1 by default");
        assert_ne!(job_seed(&o, 1), job_seed(&o, 2), "clones differ");
        // randseed=N turns randrepeat off, and the seed is N's, every run.
        o.randseed = 12345;
        o.randrepeat = false;
        o.set.insert("randseed");
        let s = job_seed(&o, 1);
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert_eq!(job_seed(&o, 1), s);
        assert_ne!(s, job_seed(&opts(), 1));
        // randrepeat=0 alone: a seed from the clock.
        let mut o = opts();
        o.randrepeat = false;
        let s = job_seed(&o, 1);
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert_ne!(job_seed(&o, 1), s);
    }

    #[test]
    fn fio_file_names() {
        let mut o = opts();
        o.nrfiles = 3;
        o.directory = Some("/tmp/d".into());
        let p = file_paths(&o, 2);
        assert_eq!(
            p,
            vec![PathBuf::from("/tmp/d/job.2.0"), PathBuf::from("/tmp/d/job.2.1"), PathBuf::from("/tmp/d/job.2.2")]
        );
        o.filename = Some("/dev/shm/a:/dev/shm/b".into());
        assert_eq!(file_paths(&o, 2), vec![PathBuf::from("/dev/shm/a"), PathBuf::from("/dev/shm/b")]);
    }

    #[test]
    fn sizes_split_over_files_and_lay_out_missing_ones() {
        let mut o = opts();
        o.size = Some(SizeSpec::Bytes(4 << 20));
        o.nrfiles = 4;
        let paths = file_paths(&o, 0);
        let infos = vec![FileInfo::default(); 4];
        let f = plan_files(&o, 0, &seeds(), &paths, &infos).unwrap();
        assert!(f.iter().all(|f| f.layout && f.range.len == 1 << 20 && f.range.size == 1 << 20));
        // An existing big file is not laid out; offset_increment spreads the clones.
        o.nrfiles = 1;
        o.offset_increment = SizeSpec::Bytes(1 << 20);
        let info = [FileInfo { exists: true, size: 64 << 20, is_block: false }];
        let f = plan_files(&o, 3, &seeds(), &paths[..1], &info).unwrap();
        assert_eq!((f[0].layout, f[0].range.offset, f[0].range.len), (false, 3 << 20, 4 << 20));
        // file_append: I/O from the file's end (offset ignored), the file extended to hold it; a
        // missing file starts empty.
        o.file_append = true;
        let f = plan_files(&o, 3, &seeds(), &paths[..1], &info).unwrap();
        assert_eq!(
            (f[0].layout, f[0].range.offset, f[0].range.len, f[0].range.size),
            (true, 64 << 20, 4 << 20, 68 << 20)
        );
        let f = plan_files(&o, 3, &seeds(), &paths[..1], &[FileInfo::default()]).unwrap();
        assert_eq!((f[0].layout, f[0].range.offset, f[0].range.size), (true, 0, 4 << 20));
        // No size and no file: fio's message.
        let o = opts();
        assert_eq!(
            plan_files(&o, 0, &seeds(), &paths[..1], &[FileInfo::default()]).unwrap_err(),
            "job job: you need to specify size="
        );
        // size=50% of an existing file.
        let mut o = opts();
        o.size = Some(SizeSpec::Percent(50));
        let f = plan_files(&o, 0, &seeds(), &paths[..1], &info).unwrap();
        assert_eq!(f[0].range.len, 32 << 20);
        // With filesize, size=N% is N % of each file, which is what is laid out (fio 3.33:
        // size=50% filesize=1m lays out and reads 512 KiB); of a missing file without filesize,
        // fio asks for a size (its total_file_size finds none).
        o.filesize = Some((1 << 20, 1 << 20));
        let f = plan_files(&o, 0, &seeds(), &paths[..1], &[FileInfo::default()]).unwrap();
        assert_eq!((f[0].range.len, f[0].range.size), (512 << 10, 512 << 10));
        o.filesize = None;
        assert_eq!(
            plan_files(&o, 0, &seeds(), &paths[..1], &[FileInfo::default()]).unwrap_err(),
            "job job: you need to specify size="
        );
        // With filesize, a smaller size bounds the bytes, not the range (fio: size=256k
        // filesize=1m reads 256 KiB over the whole 1 MiB file).
        let mut o = opts();
        o.size = Some(SizeSpec::Bytes(256 << 10));
        o.filesize = Some((1 << 20, 1 << 20));
        o.rw = RwMode::RandRead;
        let f = plan_files(&o, 0, &seeds(), &paths[..1], &[FileInfo::default()]).unwrap();
        assert_eq!(f[0].range.len, 1 << 20);
        let w = workload_spec(&o, &f, 1);
        assert_eq!((w.io_limit, w.pass_bytes), (256 << 10, 256 << 10));
    }

    fn plan(o: &JobOptions, jobnum: u32, infos: &[FileInfo]) -> Result<Vec<(u64, u64, u64, bool)>, String> {
        let paths: Vec<PathBuf> = (0..infos.len()).map(|i| PathBuf::from(format!("f.{i}"))).collect();
        let f = plan_files(o, jobnum, &seeds(), &paths, infos)?;
        Ok(f.iter().map(|f| (f.range.size, f.range.offset, f.range.len, f.layout)).collect())
    }

    fn existing(size: u64) -> FileInfo {
        FileInfo { exists: true, size, is_block: false }
    }

    /// fio 3.33's `setup_files` and `get_start_offset`, rule by rule (the figures are what fio
    /// lays out and does on the same options).
    #[test]
    fn ranges_follow_fios_setup_files() {
        let none = [FileInfo::default()];
        let mut o = opts();
        o.min_bs = [65536; 3];
        // filesize is where the file ends: offset=1M works on its second MiB.
        o.filesize = Some((2 << 20, 2 << 20));
        o.offset = SizeSpec::Bytes(1 << 20);
        assert_eq!(plan(&o, 0, &none), Ok(vec![(2 << 20, 1 << 20, 1 << 20, true)]));
        let p = plan_files(&o, 0, &seeds(), &[PathBuf::from("f")], &none).unwrap();
        assert_eq!(job_size(&o, &p), 1 << 20);
        // size is at most the files' ranges, and may be less.
        o.size = Some(SizeSpec::Bytes(512 << 10));
        assert_eq!(job_size(&o, &p), 512 << 10);
        o.size = Some(SizeSpec::Bytes(8 << 20));
        assert_eq!(job_size(&o, &p), 1 << 20);
        // An offset past filesize, and a range of nothing.
        o.size = None;
        o.offset = SizeSpec::Bytes(3 << 20);
        assert_eq!(plan(&o, 0, &none), Err("job job: you need to specify valid offset=".into()));
        o.offset = SizeSpec::Bytes(2 << 20);
        assert_eq!(plan(&o, 0, &none), Err("job job: blocksize is larger than data set range".into()));
        // A file already of a size in the filesize range keeps it.
        o.filesize = Some((512 << 10, 2 << 20));
        o.offset = SizeSpec::Bytes(512 << 10);
        assert_eq!(plan(&o, 0, &[existing(1 << 20)]), Ok(vec![(1 << 20, 512 << 10, 512 << 10, false)]));
        // ... and an offset past its end leaves nothing to do, without an error.
        o.offset = SizeSpec::Bytes(1536 << 10);
        assert_eq!(plan(&o, 0, &[existing(1 << 20)]), Ok(vec![(1 << 20, 1536 << 10, 0, false)]));
        // A range is drawn per file with fio's generator, down to the block size.
        o.offset = SizeSpec::Bytes(0);
        o.filesize = Some((256 << 10, 1 << 20));
        let sizes: Vec<u64> = plan(&o, 0, &[FileInfo::default(); 3]).unwrap().iter().map(|f| f.0).collect();
        assert_eq!(sizes, [327_680, 458_752, 458_752]);

        // A percentage offset is of the file as it is (nothing for a new one), rounded up to
        // offset_align, else the smallest block size; an offset in bytes is used as given.
        let mut o = opts();
        o.min_bs = [65536; 3];
        o.size = Some(SizeSpec::Bytes(1 << 20));
        o.offset = SizeSpec::Percent(10);
        assert_eq!(plan(&o, 0, &none).unwrap()[0].1, 0);
        assert_eq!(plan(&o, 0, &[existing(1 << 20)]).unwrap()[0].1, 131_072);
        o.offset_align = 4096;
        o.set.insert("offset_align");
        assert_eq!(plan(&o, 0, &[existing(1 << 20)]).unwrap()[0].1, 106_496);
        o.offset = SizeSpec::Bytes(1000);
        assert_eq!(plan(&o, 0, &none), Ok(vec![(1_049_576, 1000, 1 << 20, true)]));
        // offset_increment by clone number, a percentage of the file too.
        let mut o = opts();
        o.min_bs = [4096; 3];
        o.offset = SizeSpec::Percent(50);
        o.offset_increment = SizeSpec::Percent(10);
        assert_eq!(plan(&o, 1, &[existing(1 << 20)]), Ok(vec![(1 << 20, 630_784, 417_792, false)]));

        // size=P% takes P % of each file from its start, at most to its end; io_size=P% takes
        // P % of the ranges.
        let mut o = opts();
        o.min_bs = [65536; 3];
        o.size = Some(SizeSpec::Percent(20));
        o.offset = SizeSpec::Percent(90);
        assert_eq!(plan(&o, 0, &[existing(1 << 20)]), Ok(vec![(1 << 20, 983_040, 65536, false)]));
        let mut o = opts();
        o.io_size = Some(SizeSpec::Percent(50));
        o.offset = SizeSpec::Bytes(256 << 10);
        let p = plan_files(&o, 0, &seeds(), &[PathBuf::from("f")], &[existing(1 << 20)]).unwrap();
        assert_eq!((p[0].range.len, job_size(&o, &p)), (768 << 10, 384 << 10));

        // size shared out over the files: the first ones take a block more while blocks are over.
        let mut o = opts();
        o.min_bs = [1; 3];
        o.size = Some(SizeSpec::Bytes(11));
        let lens: Vec<u64> = plan(&o, 0, &[FileInfo::default(); 3]).unwrap().iter().map(|f| f.2).collect();
        assert_eq!(lens, [4, 4, 3]);
    }
}
