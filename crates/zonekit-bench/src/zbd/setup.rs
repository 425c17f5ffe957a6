//! Setting zone mode up, job by job in run order, before any job starts (fio's `setup_files`
//! calling `zbd_init_files` and `zbd_setup_files`): the zone state of each file (shared by every
//! job naming the file), the options a zoned file decides (zone size, open-zone limit), and fio
//! 3.33's checks with its messages.
//!
//! Several of fio's checks look at every job already set up, not only the one being set up
//! (buffered writers, zone alignment, trim and verify block sizes): a job that breaks one makes
//! the jobs set up after it fail too, as in fio. A job that fails setup does not run and is left
//! out of the report; the others run.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use zonekit_core::{Zone, ZoneCond, ZoneOp, ZoneType, ZonedDevice};

use super::policy::ZoneJob;
use super::state::{MAX_OPEN_ZONES, Model, ZbdFile, ZoneInit};
use crate::options::job::JobOptions;

/// Why a job cannot run: fio's lines (`log_err` for standard error, `log_info` for standard
/// output), and the job error (`td_verror`) if any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetupError {
    /// Lines for standard error, in order.
    pub lines: Vec<String>,
    /// Lines for standard output (the normal output), in order.
    pub info: Vec<String>,
    /// errno and what failed (`file:…, func=…`), as fio's `td_verror` records them.
    pub verror: Option<(i32, String)>,
}

impl SetupError {
    /// A line fio prints with `log_err`.
    fn line(line: String) -> SetupError {
        SetupError { lines: vec![line], ..SetupError::default() }
    }

    /// A line fio prints with `log_info`.
    fn info(line: String) -> SetupError {
        SetupError { info: vec![line], ..SetupError::default() }
    }

    fn with_verror(mut self, errno: i32, func: &str) -> SetupError {
        self.verror.get_or_insert((errno, super::verror(func)));
        self
    }

    /// fio ends some of its messages with an empty line.
    fn with_blank_line(mut self) -> SetupError {
        self.lines.push(String::new());
        self
    }
}

/// Where a file's zones come from.
#[derive(Clone)]
pub enum ZoneSource {
    /// A regular file or a block device without zones: fio emulates zones of `zonesize`.
    Emulated,
    /// A zoned device (zonekit's emulated drive or a Linux zoned block device): its report.
    Device(Arc<dyn ZonedDevice>),
    /// A pipe or character device: no zone mode.
    Unsupported,
}

/// One file of a job, as zone mode sees it.
#[derive(Clone)]
pub struct ZbdTarget {
    /// The name the job gives it.
    pub name: String,
    /// Its size in bytes (fio's `real_file_size`).
    pub size: u64,
    /// A block device (buffered writes to a host-managed one are refused).
    pub is_block: bool,
    /// Where its zones come from.
    pub source: ZoneSource,
}

/// The part of a job's options and files that zone setup reads and changes.
#[derive(Debug, Clone)]
pub struct ZbdJob {
    /// Job name, for messages.
    pub name: String,
    /// The job's index in the run (0-based).
    pub job_id: u32,
    /// Writes (`td_write`).
    pub writes: bool,
    /// Trims (`td_trim`).
    pub trims: bool,
    /// Reads only (`td_ddir == TD_DDIR_READ`): its range is not aligned.
    pub read_only: bool,
    /// `direct`.
    pub direct: bool,
    /// `bs` per direction.
    pub bs: [u64; 3],
    /// Smallest and largest block sizes per direction.
    pub min_bs: [u64; 3],
    /// Largest block sizes per direction.
    pub max_bs: [u64; 3],
    /// `bssplit` given for trims.
    pub trim_bssplit: bool,
    /// Data verification.
    pub verify: bool,
    /// `zonesize` (0 until a zoned file sets it).
    pub zone_size: u64,
    /// `zonecapacity`.
    pub zone_capacity: u64,
    /// `zoneskip` in bytes.
    pub zone_skip: u64,
    /// `max_open_zones` as given, then as the file decides it.
    pub max_open_zones: u32,
    /// `job_max_open_zones`.
    pub job_max_open_zones: u32,
    /// `ignore_zone_limits`.
    pub ignore_zone_limits: bool,
    /// Random offsets.
    pub random: bool,
    /// Reads and writes mixed.
    pub rw_mixed: bool,
    /// `read_beyond_wp`.
    pub read_beyond_wp: bool,
    /// `zone_reset_threshold`, `zone_reset_frequency`.
    pub reset_threshold: f64,
    /// See `reset_threshold`.
    pub reset_frequency: f64,
    /// Its files: zone state, then the range (offset, length) once planned.
    pub files: Vec<ZbdJobFile>,
}

/// One file of a [`ZbdJob`].
#[derive(Debug, Clone)]
pub struct ZbdJobFile {
    /// The shared zone state.
    pub zbd: Arc<ZbdFile>,
    /// A block device.
    pub is_block: bool,
    /// Range start (fio's `file_offset`), aligned by [`ZbdRun::setup_files`].
    pub offset: u64,
    /// Range length (fio's `io_size`).
    pub len: u64,
}

impl ZbdJob {
    /// The zone part of a job's options (files come with [`ZbdRun::init_files`]).
    pub fn from_options(o: &JobOptions, job_id: u32, zone_skip: u64) -> ZbdJob {
        ZbdJob {
            name: o.name.clone(),
            job_id,
            writes: o.rw.writes(),
            trims: o.rw.trims(),
            read_only: o.rw.reads() && !o.rw.writes() && !o.rw.trims(),
            direct: o.direct,
            bs: o.bs,
            min_bs: o.min_bs,
            max_bs: o.max_bs,
            trim_bssplit: !o.bssplit[2].is_empty(),
            verify: o.verify.kind != crate::verify::VerifyType::None,
            zone_size: o.zonesize,
            zone_capacity: o.zonecapacity,
            zone_skip,
            max_open_zones: o.max_open_zones,
            job_max_open_zones: o.job_max_open_zones,
            ignore_zone_limits: o.ignore_zone_limits,
            random: o.rw.is_random(),
            rw_mixed: o.rw.reads() && o.rw.writes(),
            read_beyond_wp: o.read_beyond_wp,
            reset_threshold: o.zone_reset_threshold,
            reset_frequency: o.zone_reset_frequency,
            files: Vec::new(),
        }
    }
}

/// Zone mode of a whole run: the zone state of each file, and every job set up so far.
#[derive(Default)]
pub struct ZbdRun {
    /// The run's trace (`--debug=zbd`).
    pub trace: crate::debug::Tracer,
    files: Vec<Arc<ZbdFile>>,
    /// Jobs whose files have zone state (including jobs that failed later in their setup, which
    /// fio keeps checking).
    jobs: Vec<ZbdJob>,
    in_flight: Arc<AtomicUsize>,
}

/// fio's cap on reported zones per call (`ZBD_REPORT_MAX_ZONES`).
const REPORT_BATCH: usize = 8192;

impl ZbdRun {
    /// A run with no zoned file yet.
    pub fn new() -> ZbdRun {
        ZbdRun::default()
    }

    /// The zone state of every file set up, for reports after the run.
    pub fn files(&self) -> &[Arc<ZbdFile>] {
        &self.files
    }

    /// fio's `zbd_init_files` for a job: find the zone state of each of its files (made by an
    /// earlier job naming the same file) or build it, using this job's options.
    pub fn init_files(&mut self, job: &mut ZbdJob, targets: &[ZbdTarget]) -> Result<(), SetupError> {
        for t in targets {
            let zbd = match self.files.iter().find(|f| f.name == t.name) {
                Some(f) => f.clone(),
                None => {
                    let f = Arc::new(self.create(job, t)?);
                    self.files.push(f.clone());
                    f
                }
            };
            job.files.push(ZbdJobFile { zbd, is_block: t.is_block, offset: 0, len: 0 });
        }
        Ok(())
    }

    /// fio's `zbd_create_zone_info`.
    fn create(&self, job: &mut ZbdJob, t: &ZbdTarget) -> Result<ZbdFile, SetupError> {
        let failed = |e: SetupError| e.with_verror(libc::EINVAL, "zbd_create_zone_info() failed");
        let (model, zones, zone_size) = match &t.source {
            ZoneSource::Unsupported => return Err(SetupError::line("zonemode=zbd does not support pipes".into())),
            ZoneSource::Emulated => {
                let (zones, zone_size) = self.emulate(job, t)?;
                (Model::None, zones, zone_size)
            }
            ZoneSource::Device(dev) => {
                let info = dev.info();
                let model = if info.model == "host-aware" { Model::HostAware } else { Model::HostManaged };
                let name = if model == Model::HostAware { "host-aware" } else { "host-managed" };
                crate::dprint!(self.trace, crate::debug::Class::Zbd, "{}: zbd model string: {name}", t.name);
                let (zones, zone_size) = Self::parse_zone_info(t, dev.as_ref()).map_err(failed)?;
                crate::dprint!(
                    self.trace,
                    crate::debug::Class::Zbd,
                    "Device {} has {} zones of size {} KB",
                    t.name,
                    t.size.div_ceil(zone_size.max(1)),
                    zone_size / 1024
                );
                if job.zone_size == 0 {
                    job.zone_size = zone_size;
                } else if job.zone_size != zone_size {
                    return Err(failed(SetupError::line(format!(
                        "zonekit: {} job parameter zonesize {} does not match disk zone size {zone_size}.",
                        t.name, job.zone_size
                    ))));
                }
                (model, zones, zone_size)
            }
        };
        let max_open = self.max_open_zones(job, t, model).map_err(failed)?;
        crate::dprint!(self.trace, crate::debug::Class::Zbd, "{}: using max open zones limit: {max_open}", t.name);
        let mut f = ZbdFile::new(&t.name, model, zone_size, t.size, &zones, max_open, self.in_flight.clone());
        if let ZoneSource::Device(dev) = &t.source {
            f.device = Some(dev.clone());
        }
        Ok(f)
    }

    /// fio's `init_zone_info`: emulated zones, every one sequential and empty.
    fn emulate(&self, job: &ZbdJob, t: &ZbdTarget) -> Result<(Vec<ZoneInit>, u64), SetupError> {
        let zone_size = job.zone_size;
        if zone_size == 0 {
            return Err(SetupError::line(format!(
                "{}: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd",
                t.name
            ))
            .with_blank_line());
        }
        if zone_size < 512 {
            return Err(SetupError::line(format!(
                "{}: zone size must be at least 512 bytes for --zonemode=zbd",
                t.name
            ))
            .with_blank_line());
        }
        let capacity = if job.zone_capacity == 0 { zone_size } else { job.zone_capacity };
        if capacity > zone_size {
            return Err(SetupError::line(format!(
                "{}: job parameter zonecapacity {} is larger than zone size {}",
                t.name, job.zone_capacity, job.zone_size
            )));
        }
        if t.size < zone_size {
            return Err(SetupError::line(format!(
                "{}: file/device size {} is smaller than zone size {zone_size}",
                t.name, t.size
            ))
            .with_verror(libc::EINVAL, "zbd_create_zone_info() failed"));
        }
        let nr = t.size.div_ceil(zone_size);
        let zones = (0..nr)
            .map(|i| ZoneInit {
                start: i * zone_size,
                len: zone_size,
                capacity,
                wp: i * zone_size,
                zone_type: ZoneType::SeqWriteRequired,
                cond: ZoneCond::Empty,
            })
            .collect();
        Ok((zones, zone_size))
    }

    /// fio's `parse_zone_info`: the device's report, in batches.
    fn parse_zone_info(t: &ZbdTarget, dev: &dyn ZonedDevice) -> Result<(Vec<ZoneInit>, u64), SetupError> {
        let mut reported: Vec<Zone> = Vec::new();
        let mut batch = Vec::new();
        let mut sector = 0u64;
        loop {
            batch.clear();
            if let Err(e) = dev.report_zones(sector, REPORT_BATCH, &mut batch) {
                let errno = e.errno().0;
                let mut err =
                    SetupError::line(format!("{}: report zones from sector {sector} failed ({errno}).", t.name))
                        .with_verror(errno, "report zones failed");
                err.info.push(format!(
                    "zonekit: report zones (offset {}) failed for {} ({errno}).",
                    sector << 9,
                    t.name
                ));
                return Err(err);
            }
            let Some(last) = batch.last() else { break };
            sector = last.start + last.len;
            reported.append(&mut batch);
            if sector >= dev.info().geometry.capacity {
                break;
            }
        }
        let Some(first) = reported.first() else {
            return Err(SetupError::line(format!("{}: report zones from sector 0 is empty.", t.name))
                .with_verror(libc::EIO, "Empty zone report"));
        };
        let zone_size = first.len * 512;
        let mut zones = Vec::with_capacity(reported.len());
        for (i, z) in reported.iter().enumerate() {
            let (start, len, cap) = (z.start * 512, z.len * 512, z.capacity * 512);
            if i > 0 && start != zones.last().map_or(0, |p: &ZoneInit| p.start) + zone_size {
                return Err(SetupError::info(format!("{}: invalid zone data", t.name)));
            }
            // fio takes the write pointer of a conventional or full zone to be its capacity end;
            // read-only and offline zones report none.
            let wp = match z.cond {
                ZoneCond::NotWp | ZoneCond::Full | ZoneCond::ReadOnly => start + cap,
                ZoneCond::Offline => start,
                _ => (z.wp * 512).clamp(start, start + len),
            };
            zones.push(ZoneInit { start, len, capacity: cap, wp, zone_type: z.zone_type, cond: z.cond });
        }
        Ok((zones, zone_size))
    }

    /// fio's `zbd_set_max_open_zones`: the write-zone limit of the file.
    fn max_open_zones(&self, job: &ZbdJob, t: &ZbdTarget, model: Model) -> Result<u32, SetupError> {
        let limit = if model != Model::HostManaged || job.ignore_zone_limits {
            job.max_open_zones
        } else {
            let dev_max = match &t.source {
                ZoneSource::Device(d) => d.info().limits.max_open,
                _ => 0,
            };
            if matches!(t.source, ZoneSource::Device(_)) {
                crate::dprint!(
                    self.trace,
                    crate::debug::Class::Zbd,
                    "{}: max open zones supported by device: {dev_max}",
                    t.name
                );
            }
            if dev_max == 0 {
                job.max_open_zones
            } else if job.max_open_zones == 0 {
                dev_max
            } else if job.max_open_zones <= dev_max {
                job.max_open_zones
            } else {
                return Err(SetupError::line(format!(
                    "Specified --max_open_zones ({}) is larger than max ({dev_max})",
                    job.max_open_zones
                ))
                .with_verror(libc::EINVAL, "Specified --max_open_zones is too large"));
            }
        };
        if limit as usize > MAX_OPEN_ZONES {
            return Err(SetupError::line(format!("'max_open_zones' value is larger than {MAX_OPEN_ZONES}"))
                .with_verror(libc::EINVAL, "'max_open_zones' value is too large"));
        }
        Ok(limit)
    }

    /// Register `job` (its files initialised and its ranges planned): from now on its options
    /// take part in the checks of every later job.
    pub fn add_job(&mut self, job: ZbdJob) -> usize {
        self.jobs.push(job);
        self.jobs.len() - 1
    }

    /// fio's `zbd_setup_files` for job `idx`: the checks over every job set up so far (with their
    /// messages, `info` lines for the rounding notes), then the zone policy of each of the job's
    /// files. `resets` counts the zones reset to keep the write set within its limit.
    pub fn setup_files(
        &mut self,
        idx: usize,
        info: &mut Vec<String>,
        resets: &mut u64,
    ) -> Result<Vec<ZoneJob>, SetupError> {
        // Buffered writes to a host-managed block device (or zonekit device) are refused.
        let buffered = self
            .jobs
            .iter()
            .any(|j| !j.direct && j.writes && j.files.iter().any(|f| f.is_block && f.zbd.model == Model::HostManaged));
        if buffered {
            return Err(
                SetupError::line("Using direct I/O is mandatory for writing to ZBD drives".into()).with_blank_line()
            );
        }
        for j in 0..self.jobs.len() {
            for k in 0..self.jobs[j].files.len() {
                Self::align(&mut self.jobs[j], k, info)?;
            }
        }
        self.verify_bs()?;
        let job = self.jobs[idx].clone();
        let mut out = Vec::with_capacity(job.files.len());
        for f in &job.files {
            let zbd = &f.zbd;
            let min_zone = zbd.zone_idx(f.offset);
            let max_zone = zbd.zone_idx(f.offset + f.len);
            if job.max_open_zones > 0 && zbd.max_open_zones != job.max_open_zones {
                return Err(SetupError::line("Different 'max_open_zones' values".into()));
            }
            if job.job_max_open_zones > 0 && zbd.max_open_zones == 0 {
                return Err(SetupError::line(
                    "'job_max_open_zones' cannot be used without a global open zones limit".into(),
                ));
            }
            let zj = ZoneJob {
                file: zbd.clone(),
                file_index: out.len(),
                file_offset: f.offset,
                io_size: f.len,
                min_zone,
                max_zone,
                min_bs: job.min_bs,
                random: job.random,
                rw_mixed: job.rw_mixed,
                job_max_open_zones: job.job_max_open_zones,
                read_beyond_wp: job.read_beyond_wp,
                reset_threshold: job.reset_threshold,
                reset_frequency: job.reset_frequency,
                verify: job.verify,
            };
            zbd.add_job(job.job_id);
            // Zones of the range left open (implicitly or explicitly) before the run join the
            // write set; those beyond its limits are reset (fio 3.33; fio 3.36 refuses the job
            // instead). Closed zones are not counted (fio 3.36 counts them when the device has an
            // active limit).
            for z in min_zone..max_zone {
                if zj.preopen(z, job.job_id) {
                    continue;
                }
                match zj.setup_reset(z) {
                    Ok(true) => *resets += 1,
                    Ok(false) => {}
                    Err(mut e) => {
                        // fio's message, its spelling included.
                        e.lines.push(format!("Failed to reest zone {z}"));
                        return Err(e);
                    }
                }
            }
            out.push(zj);
        }
        // The job's own limit is the file's from now on.
        if let Some(f) = job.files.first() {
            self.jobs[idx].max_open_zones = f.zbd.max_open_zones;
        }
        Ok(out)
    }

    /// fio's `zbd_zone_align_file_sizes` for file `k` of `job`.
    fn align(job: &mut ZbdJob, k: usize, info: &mut Vec<String>) -> Result<(), SetupError> {
        let f = job.files[k].clone();
        let zbd = &f.zbd;
        if f.offset >= zbd.size {
            return Ok(());
        }
        // Only ranges holding a sequential zone are aligned.
        let (zb, ze) = (zbd.zone_idx(f.offset), zbd.zone_idx((f.offset + f.len).max(1) - 1));
        if f.len == 0 || !(zb..=ze).any(|z| zbd.has_wp(z)) {
            return Ok(());
        }
        if job.zone_size == 0 {
            job.zone_size = zbd.zone_size;
        } else if job.zone_size != zbd.zone_size {
            return Err(SetupError::line(format!(
                "{}: zonesize {} does not match the device zone size {}.",
                zbd.name, job.zone_size, zbd.zone_size
            )));
        }
        if !job.zone_skip.is_multiple_of(job.zone_size) {
            return Err(SetupError::line(format!(
                "{}: zoneskip {} is not a multiple of the device zone size {}.",
                zbd.name, job.zone_skip, job.zone_size
            )));
        }
        let (mut offset, mut len) = (f.offset, f.len);
        let z = zbd.zone_idx(offset);
        if offset != zbd.start(z) && !job.read_only {
            let new_offset = zbd.end(z);
            if new_offset >= offset + len {
                return Err(SetupError::info(format!("{}: io_size must be at least one zone", zbd.name)));
            }
            info.push(format!("{}: rounded up offset from {offset} to {new_offset}", zbd.name));
            len -= new_offset - offset;
            offset = new_offset;
        }
        let new_end = zbd.start(zbd.zone_idx(offset + len));
        if !job.read_only && offset + len != new_end {
            if new_end <= offset {
                return Err(SetupError::info(format!("{}: io_size must be at least one zone", zbd.name)));
            }
            info.push(format!("{}: rounded down io_size from {len} to {}", zbd.name, new_end - offset));
            len = new_end - offset;
        }
        job.files[k].offset = offset;
        job.files[k].len = len;
        Ok(())
    }

    /// fio's `zbd_verify_bs`, over every job set up so far.
    fn verify_bs(&self) -> Result<(), SetupError> {
        for j in &self.jobs {
            if j.trims && (j.min_bs[2] != j.max_bs[2] || j.trim_bssplit) {
                return Err(SetupError::info("bsrange and bssplit are not allowed for trim with zonemode=zbd".into()));
            }
            for f in &j.files {
                let zs = f.zbd.zone_size;
                if j.trims && j.bs[2] != zs {
                    return Err(SetupError::info(format!(
                        "{}: trim block size {} is not the zone size {zs}",
                        f.zbd.name, j.bs[2]
                    )));
                }
                if j.verify
                    && let Some(bs) = j.bs.iter().find(|&&b| b == 0 || !zs.is_multiple_of(b))
                {
                    return Err(SetupError::info(format!(
                        "{}: block size {bs} is not a divisor of the zone size {zs}",
                        f.zbd.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// The final range of job `idx`'s files after alignment: (offset, length) per file.
    pub fn ranges(&self, idx: usize) -> Vec<(u64, u64)> {
        self.jobs[idx].files.iter().map(|f| (f.offset, f.len)).collect()
    }

    /// Set the planned range of file `k` of job `idx` (before [`ZbdRun::setup_files`]).
    pub fn set_range(&mut self, idx: usize, k: usize, offset: u64, len: u64) {
        if let Some(f) = self.jobs[idx].files.get_mut(k) {
            f.offset = offset;
            f.len = len;
        }
    }

    /// The zone size job `idx` ended up with (for `Nz` sizes and `zoneskip`).
    pub fn zone_size(&self, idx: usize) -> u64 {
        self.jobs[idx].zone_size
    }
}

impl ZoneJob {
    /// At setup: zone `z`, if open on the device, joins the write set. False when it is open but
    /// the set has no room (it must be reset).
    fn preopen(&self, z: u32, job: u32) -> bool {
        let f = &self.file;
        let mut s = f.lock();
        if !matches!(s.zones[z as usize].cond, ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen) {
            return true;
        }
        self.open_zone(&mut s, z, job)
    }

    /// At setup: reset zone `z` on the device, synchronously (fio's `zbd_reset_zone` before the
    /// job's engine runs). True when the zone held data and was reset (a zone reset the job
    /// counts); an empty zone is left as it is. The zone keeps its condition in the benchmark's
    /// state, as in fio: a later job on the same file treats it as open again (it joins the write
    /// set if that job's limits leave room, else there is nothing left to reset).
    fn setup_reset(&self, z: u32) -> Result<bool, SetupError> {
        let f = &self.file;
        let (start, end) = (f.start(z), f.end(z));
        let data = f.lock().zones[z as usize].wp - start;
        if data == 0 {
            return Ok(false);
        }
        if let Some(dev) = &f.device
            && f.model != Model::None
        {
            let len = end - start;
            if let Err(e) = dev.zone_mgmt(ZoneOp::Reset, start >> 9, len >> 9) {
                let errno = e.errno().0;
                return Err(SetupError::line(format!(
                    "{}: resetting wp for {} sectors at sector {} failed ({errno}).",
                    f.name,
                    len >> 9,
                    start >> 9
                ))
                .with_verror(errno, "resetting wp failed"));
            }
        }
        let mut s = f.lock();
        // fio subtracts from counts it has not made yet (they wrap, and the job's first file
        // reset counts them again).
        s.sectors_with_data = s.sectors_with_data.wrapping_sub(data);
        s.wp_sectors_with_data = s.wp_sectors_with_data.wrapping_sub(data);
        s.zones[z as usize].wp = start;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonekit_core::ZoneCond::{Closed, Empty, ExplicitOpen, Full, ImplicitOpen};

    const ZONE: u64 = 1 << 20;

    /// Eight 1 MiB sequential zones in the given conditions, `wp` KiB written in each.
    fn zones(conds: &[(ZoneCond, u64)]) -> Vec<ZoneInit> {
        conds
            .iter()
            .enumerate()
            .map(|(i, &(cond, kib))| {
                let start = i as u64 * ZONE;
                let wp = if cond == Full { start + ZONE } else { start + (kib << 10) };
                ZoneInit { start, len: ZONE, capacity: ZONE, wp, zone_type: ZoneType::SeqWriteRequired, cond }
            })
            .collect()
    }

    /// A run whose file `dev` has `zones` (as a device reports them) and a write limit of
    /// `max_open` zones.
    fn run_with(zones: &[ZoneInit], max_open: u32) -> ZbdRun {
        let mut run = ZbdRun::new();
        let size = zones.len() as u64 * ZONE;
        let f = ZbdFile::new("dev", Model::HostManaged, ZONE, size, zones, max_open, run.in_flight.clone());
        run.files.push(Arc::new(f));
        run
    }

    fn write_job(job_id: u32, max_open: u32, job_max_open: u32) -> ZbdJob {
        ZbdJob {
            name: format!("j{job_id}"),
            job_id,
            writes: true,
            trims: false,
            read_only: false,
            direct: true,
            bs: [4096; 3],
            min_bs: [4096; 3],
            max_bs: [4096; 3],
            trim_bssplit: false,
            verify: false,
            zone_size: 0,
            zone_capacity: 0,
            zone_skip: 0,
            max_open_zones: max_open,
            job_max_open_zones: job_max_open,
            ignore_zone_limits: false,
            random: true,
            rw_mixed: false,
            read_beyond_wp: false,
            reset_threshold: 0.0,
            reset_frequency: 0.0,
            files: Vec::new(),
        }
    }

    /// Set `job` up over zones `[first, end)` of the file: (its zone policy, zones reset).
    fn set_up(run: &mut ZbdRun, mut job: ZbdJob, first: u64, end: u64) -> Result<(ZoneJob, u64), SetupError> {
        // The file's zone state exists already: a job finds it by name and never reads the source.
        let target = ZbdTarget { name: "dev".into(), size: 0, is_block: true, source: ZoneSource::Unsupported };
        run.init_files(&mut job, &[target])?;
        let idx = run.add_job(job);
        run.set_range(idx, 0, first * ZONE, (end - first) * ZONE);
        let (mut info, mut resets) = (Vec::new(), 0);
        let mut z = run.setup_files(idx, &mut info, &mut resets)?;
        Ok((z.remove(0), resets))
    }

    fn write_set(zj: &ZoneJob) -> Vec<u32> {
        let s = zj.file.lock();
        s.open_zones[..s.num_open as usize].to_vec()
    }

    fn wps(zj: &ZoneJob) -> Vec<u64> {
        zj.file.snapshot().iter().map(|&(start, wp, _, _)| (wp - start) >> 10).collect()
    }

    fn job_open(zj: &ZoneJob, job: u32) -> u32 {
        zj.file.lock().job_open[job as usize]
    }

    #[test]
    fn open_zones_join_the_write_set_and_the_extra_ones_are_reset() {
        // fio 3.33's zbd_setup_files: zones of the job's range that are implicitly or explicitly
        // open join the write set in zone order; past the limit they are reset (a reset the job
        // counts when the zone held data). Closed zones and zones outside the range are left.
        let conds = [
            (ImplicitOpen, 4),
            (Closed, 8),
            (ExplicitOpen, 0),
            (ImplicitOpen, 12),
            (Full, 0),
            (ExplicitOpen, 16),
            (Empty, 0),
            (ImplicitOpen, 20),
        ];
        let mut run = run_with(&zones(&conds), 2);
        let (zj, resets) = set_up(&mut run, write_job(0, 2, 0), 0, 7).unwrap();
        assert_eq!(write_set(&zj), [0, 2]);
        assert_eq!(job_open(&zj, 0), 2, "counted against the job that set them up");
        assert_eq!(resets, 2, "zones 3 and 5 held data");
        assert_eq!(wps(&zj), [4, 8, 0, 0, 1024, 0, 0, 20]);
        let s = zj.file.lock();
        assert!(s.zones[0].open && s.zones[2].open && !s.zones[1].open && !s.zones[3].open);
        assert_eq!(s.zones[3].cond, ImplicitOpen, "the benchmark's state keeps the condition, as fio's");
        drop(s);

        // A second job over the whole file: the zones already in the set stay; zones 3 and 5 are
        // open again but empty (nothing to reset); zone 7 is new to it and reset.
        let (zj, resets) = set_up(&mut run, write_job(1, 2, 0), 0, 8).unwrap();
        assert_eq!(write_set(&zj), [0, 2]);
        assert_eq!(resets, 1);
        assert_eq!(wps(&zj), [4, 8, 0, 0, 1024, 0, 0, 0]);
        assert_eq!(job_open(&zj, 1), 0);
    }

    #[test]
    fn the_per_job_limit_and_no_limit() {
        let conds = [(ImplicitOpen, 4), (ImplicitOpen, 8), (ImplicitOpen, 12), (Empty, 0)];
        // job_max_open_zones=1: the first open zone joins the set, the others are reset.
        let mut run = run_with(&zones(&conds), 4);
        let (zj, resets) = set_up(&mut run, write_job(0, 4, 1), 0, 4).unwrap();
        assert_eq!((write_set(&zj), resets), (vec![0], 2));
        // A job with room of its own picks up the reset zones: fio keeps them open in its state.
        let (zj, resets) = set_up(&mut run, write_job(1, 4, 0), 0, 4).unwrap();
        assert_eq!((write_set(&zj), resets), (vec![0, 1, 2], 0));
        assert_eq!((job_open(&zj, 0), job_open(&zj, 1)), (1, 2));
        // No limit: nothing is tracked and nothing reset.
        let mut run = run_with(&zones(&conds), 0);
        let (zj, resets) = set_up(&mut run, write_job(0, 0, 0), 0, 4).unwrap();
        assert_eq!((write_set(&zj), resets), (vec![], 0));
        assert_eq!(wps(&zj), [4, 8, 12, 0]);
    }

    #[test]
    fn open_zones_of_an_emulated_device_are_reset_on_it() {
        use zonekit_dev::{EmulatedDevice, profile, store::MemoryStore};
        // nullb-small: 16 zones of 4 MiB, one conventional, at most 4 open.
        let c = profile("nullb-small").unwrap().config();
        let kind = zonekit_core::DeviceKind::Emulated { store: "memory".into(), profile: None };
        let dev: Arc<dyn ZonedDevice> =
            Arc::new(EmulatedDevice::new("nullb-small", kind, &c, Box::new(MemoryStore::new())));
        let zs = dev.info().geometry.zone_size;
        for z in 1..=3u64 {
            dev.write_at(z * zs, &vec![0xa5; 4096 * z as usize]).unwrap();
        }
        dev.zone_mgmt(ZoneOp::Open, 4 * zs, zs).unwrap();
        let target =
            ZbdTarget { name: "@nullb-small".into(), size: 0, is_block: true, source: ZoneSource::Device(dev.clone()) };
        let mut run = ZbdRun::new();
        let mut job = write_job(0, 2, 0);
        run.init_files(&mut job, &[target]).unwrap();
        let zone = zs * 512;
        let idx = run.add_job(job);
        run.set_range(idx, 0, zone, 15 * zone);
        let (mut info, mut resets) = (Vec::new(), 0);
        let zj = run.setup_files(idx, &mut info, &mut resets).unwrap().remove(0);
        assert_eq!(write_set(&zj), [1, 2]);
        assert_eq!(resets, 1, "zone 3 held data; zone 4 was open but empty");
        let mut report = Vec::new();
        dev.report_zones(0, 16, &mut report).unwrap();
        let conds: Vec<ZoneCond> = report[1..5].iter().map(|z| z.cond).collect();
        assert_eq!(conds, [ImplicitOpen, ImplicitOpen, Empty, ExplicitOpen]);
    }
}
