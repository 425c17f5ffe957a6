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

fn resolve_size(spec: SizeSpec, of: u64) -> u64 {
    match spec {
        SizeSpec::Bytes(b) => b,
        SizeSpec::Percent(p) => of.saturating_mul(u64::from(p)) / 100,
        // Zones only mean something with a zone mode (a later issue); a zone is then resolved by
        // the zone layer. Without one, fio refuses `z` sizes before this point.
        SizeSpec::Zones(_) => 0,
    }
}

/// Size the job's files: the job's `size` (bytes or a percentage of the files), split over the
/// files unless `filesize` says; `offset` (+ `offset_increment` × clone number) into each.
/// Errors are one line for the user.
pub fn plan_files(
    opts: &JobOptions,
    jobnum: u32,
    paths: &[PathBuf],
    infos: &[FileInfo],
) -> Result<Vec<PlannedFile>, String> {
    let n = paths.len().max(1) as u64;
    let existing: u64 = infos.iter().filter(|i| i.exists).map(|i| i.size).sum();
    let all_exist = infos.iter().all(|i| i.exists);
    let total = match opts.size {
        Some(spec) if !spec.is_zero() => {
            if matches!(spec, SizeSpec::Percent(_)) && !all_exist {
                return Err(format!("job {}: size={spec:?} of a file that does not exist", opts.name));
            }
            resolve_size(spec, existing)
        }
        // fill_device without a size: until the device is full (fio's size of -1).
        _ if opts.fill_device => u64::MAX,
        // `filesize` alone: fio sizes each file by it and makes `size` their sum.
        _ if opts.filesize.is_some_and(|(lo, _)| lo > 0) => 0,
        _ => {
            if !all_exist || existing == 0 {
                return Err(format!("job {}: you need to specify size=", opts.name));
            }
            existing
        }
    };
    // fio's get_rand_file_size: a size in `filesize=low-high` per file, down to the block size.
    let mut draw = crate::rng::Rng::new(0xf11e_512e ^ u64::from(jobnum));
    let mut file_size = |info: &FileInfo| match opts.filesize {
        Some((lo, hi)) if lo > 0 => {
            if info.exists && (lo..=hi).contains(&info.size) {
                info.size
            } else if lo == hi {
                lo
            } else {
                let v = lo + ((hi - lo) as f64 * draw.unit()) as u64;
                let bs = opts.min_bs_used().max(1);
                (v - v % bs).max(lo.min(bs))
            }
        }
        _ => total / n,
    };
    let mut out = Vec::with_capacity(paths.len());
    for (path, info) in paths.iter().zip(infos) {
        let per_file = file_size(info);
        if per_file == 0 {
            return Err(format!("job {}: size {} is too small for {} files", opts.name, total, n));
        }
        let base = if info.exists { info.size } else { per_file };
        let offset = resolve_size(opts.offset, base)
            .saturating_add(resolve_size(opts.offset_increment, base).saturating_mul(u64::from(jobnum)));
        let offset = if opts.offset_align > 0 { offset - offset % opts.offset_align } else { offset };
        // `file_append`: a regular file's I/O starts at its end, whatever `offset` says (fio's
        // get_start_offset); a missing file starts empty.
        let offset = match (opts.file_append, info.is_block) {
            (true, false) => {
                if info.exists {
                    info.size
                } else {
                    0
                }
            }
            _ => offset,
        };
        let need = offset.saturating_add(per_file);
        let (size, layout) = if info.is_block {
            if offset >= info.size {
                return Err(format!(
                    "{}: offset {offset} is past the end of the device ({} bytes)",
                    path.display(),
                    info.size
                ));
            }
            (info.size, false)
        } else if info.exists && info.size >= need {
            (info.size, false)
        } else {
            (need, true)
        };
        let len = per_file.min(size - offset.min(size));
        out.push(PlannedFile {
            path: path.clone(),
            range: FileRange { size, offset, len },
            layout,
            is_block: info.is_block,
        });
    }
    Ok(out)
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
    let total: u64 = files.iter().map(|f| f.range.len).sum();
    let io_limit = match opts.io_size {
        Some(spec) if !spec.is_zero() => resolve_size(spec, total),
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
        let f = plan_files(&o, 0, &paths, &infos).unwrap();
        assert!(f.iter().all(|f| f.layout && f.range.len == 1 << 20 && f.range.size == 1 << 20));
        // An existing big file is not laid out; offset_increment spreads the clones.
        o.nrfiles = 1;
        o.offset_increment = SizeSpec::Bytes(1 << 20);
        let info = [FileInfo { exists: true, size: 64 << 20, is_block: false }];
        let f = plan_files(&o, 3, &paths[..1], &info).unwrap();
        assert_eq!((f[0].layout, f[0].range.offset, f[0].range.len), (false, 3 << 20, 4 << 20));
        // file_append: I/O from the file's end (offset ignored), the file extended to hold it; a
        // missing file starts empty.
        o.file_append = true;
        let f = plan_files(&o, 3, &paths[..1], &info).unwrap();
        assert_eq!(
            (f[0].layout, f[0].range.offset, f[0].range.len, f[0].range.size),
            (true, 64 << 20, 4 << 20, 68 << 20)
        );
        let f = plan_files(&o, 3, &paths[..1], &[FileInfo::default()]).unwrap();
        assert_eq!((f[0].layout, f[0].range.offset, f[0].range.size), (true, 0, 4 << 20));
        // No size and no file: fio's message.
        let o = opts();
        assert_eq!(
            plan_files(&o, 0, &paths[..1], &[FileInfo::default()]).unwrap_err(),
            "job job: you need to specify size="
        );
        // size=50% of an existing file.
        let mut o = opts();
        o.size = Some(SizeSpec::Percent(50));
        let f = plan_files(&o, 0, &paths[..1], &info).unwrap();
        assert_eq!(f[0].range.len, 32 << 20);
    }
}
