//! Linux zoned block devices (`/dev/nullbN`, `/dev/sdX`, `/dev/nvmeXnY`): the kernel's zones through
//! the blkzoned ioctls, its limits from sysfs.
//!
//! The kernel decides every rule: [`LinuxDevice`] issues one ioctl or one `pread`/`pwrite` per
//! call and hands back the kernel's errno. What the kernel hands back is decoded by plain functions
//! — [`parse_report`], [`Sysfs::read`], [`device_info`] — that the tests feed with data recorded on
//! real kernels (`testdata/linux/`). The ioctls themselves are in [`sys`], the only module with
//! `unsafe`.

pub mod sys;

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use zonekit_core::{
    BlockIo, DeviceError, DeviceInfo, DeviceKind, DeviceResult, Geometry, Limits, Personality, SECTOR_SIZE, Zone,
    ZoneCond, ZoneManagement, ZoneOp, ZoneReport, ZoneType,
};

/// Zones asked for per `BLKREPORTZONE` call (256 KiB of `struct blk_zone`).
const REPORT_BATCH: u32 = 4096;

/// Whether the block device at `path` is zoned: its sysfs `queue/zoned` is `host-managed` or
/// `host-aware` (a partition answers for its disk). Anything but a block device is not zoned.
///
/// Without sysfs, the kernel is asked directly (`BLKGETZONESZ` is non-zero on a zoned device).
pub fn is_zoned(path: &Path) -> io::Result<bool> {
    let meta = std::fs::metadata(path)?;
    if !meta.file_type().is_block_device() {
        return Ok(false);
    }
    let (major, minor) = dev_major_minor(meta.rdev());
    match zoned_model(Path::new("/sys"), major, minor) {
        Ok(model) => Ok(is_zoned_model(&model)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let f = File::open(path)?;
            Ok(sys::blkgetzonesz(f.as_fd())? != 0)
        }
        Err(e) => Err(e),
    }
}

/// Whether a sysfs `queue/zoned` value names a zoned model.
pub fn is_zoned_model(model: &str) -> bool {
    matches!(model.trim(), "host-managed" | "host-aware")
}

/// Split a `dev_t` as glibc's `major()` / `minor()` do.
pub fn dev_major_minor(rdev: u64) -> (u32, u32) {
    let major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & !0xfff);
    let minor = (rdev & 0xff) | ((rdev >> 12) & !0xff);
    (major as u32, minor as u32)
}

/// The sysfs directory of the disk that holds block device `major:minor`, under `sys_root`
/// (`/sys`): `dev/block/MAJ:MIN` resolved, or its parent disk for a partition (whose own
/// directory has no `queue/`).
pub fn block_sysfs_dir(sys_root: &Path, major: u32, minor: u32) -> io::Result<PathBuf> {
    let dir = std::fs::canonicalize(sys_root.join("dev/block").join(format!("{major}:{minor}")))?;
    if !dir.join("queue").is_dir()
        && dir.join("partition").is_file()
        && let Some(parent) = dir.parent()
    {
        return Ok(parent.to_path_buf());
    }
    Ok(dir)
}

/// The `queue/zoned` value of block device `major:minor` under `sys_root`.
pub fn zoned_model(sys_root: &Path, major: u32, minor: u32) -> io::Result<String> {
    let dir = block_sysfs_dir(sys_root, major, minor)?;
    Ok(std::fs::read_to_string(dir.join("queue/zoned"))?.trim().to_string())
}

/// A decoded `BLKREPORTZONE` reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The header's `BLK_ZONE_REP_*` flags.
    pub flags: u32,
    /// The zones, in the kernel's order.
    pub zones: Vec<Zone>,
}

impl Report {
    /// Whether the zones' `capacity` fields are valid (`BLK_ZONE_REP_CAPACITY`); without it each
    /// zone's capacity is taken to be its length.
    pub fn has_capacity(&self) -> bool {
        self.flags & sys::BLK_ZONE_REP_CAPACITY != 0
    }
}

/// Decode a `BLKREPORTZONE` reply: the 16-byte `struct blk_zone_report` header, then `nr_zones`
/// 64-byte `struct blk_zone`, in native byte order. A zone's `capacity` is its length when the
/// header lacks `BLK_ZONE_REP_CAPACITY`; write pointers are kept as the kernel gave them.
pub fn parse_report(buf: &[u8]) -> Result<Report, String> {
    let u64_at = |b: &[u8], at: usize| u64::from_ne_bytes(b[at..at + 8].try_into().expect("8 bytes"));
    let u32_at = |b: &[u8], at: usize| u32::from_ne_bytes(b[at..at + 4].try_into().expect("4 bytes"));
    if buf.len() < sys::BLK_ZONE_REPORT_HEADER_SIZE {
        return Err(format!("zone report of {} bytes is shorter than its 16-byte header", buf.len()));
    }
    let nr = u32_at(buf, 8) as usize;
    let flags = u32_at(buf, 12);
    let need = sys::BLK_ZONE_REPORT_HEADER_SIZE + nr * sys::BLK_ZONE_SIZE;
    if buf.len() < need {
        return Err(format!("zone report claims {nr} zones but holds {} bytes ({need} needed)", buf.len()));
    }
    let has_capacity = flags & sys::BLK_ZONE_REP_CAPACITY != 0;
    let zones = buf[sys::BLK_ZONE_REPORT_HEADER_SIZE..need]
        .chunks_exact(sys::BLK_ZONE_SIZE)
        .map(|z| {
            let (start, len, wp) = (u64_at(z, 0), u64_at(z, 8), u64_at(z, 16));
            let zone_type = ZoneType::from_code(z[24])
                .ok_or_else(|| format!("zone at sector {start}: unknown zone type {}", z[24]))?;
            let cond = ZoneCond::from_code(z[25])
                .ok_or_else(|| format!("zone at sector {start}: unknown zone condition {:#x}", z[25]))?;
            let capacity = if has_capacity { u64_at(z, 32) } else { len };
            Ok(Zone { start, len, capacity, wp, zone_type, cond, non_seq: z[26] != 0, reset: z[27] != 0 })
        })
        .collect::<Result<Vec<Zone>, String>>()?;
    Ok(Report { flags, zones })
}

/// What sysfs says about a zoned disk (`/sys/dev/block/MAJ:MIN`, or its disk for a partition).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sysfs {
    /// The disk's name (the directory's name: `nullb0`, `sda`, `nvme0n1`).
    pub name: String,
    /// `queue/zoned`: `host-managed`, `host-aware` or `none`.
    pub zoned: String,
    /// `queue/max_open_zones` (0 = no limit).
    pub max_open_zones: u32,
    /// `queue/max_active_zones` (0 = no limit).
    pub max_active_zones: u32,
    /// `queue/zone_append_max_bytes` (0 = no zone append).
    pub zone_append_max_bytes: u64,
    /// `queue/rotational`.
    pub rotational: bool,
    /// `queue/max_sectors_kb` and `queue/zoned_qd1_writes` (absent before Linux 7.1: off).
    pub queue: zonekit_core::QueueSettings,
    /// `queue/dma_alignment` (a mask: buffers must be aligned to `dma_alignment + 1`), if present.
    pub dma_alignment: Option<u32>,
    /// `device/vendor`, trimmed, if present.
    pub vendor: Option<String>,
    /// `device/model`, trimmed, if present.
    pub model: Option<String>,
    /// The driver: the name `device/driver` (or `device/device/driver`) links to, if any.
    pub driver: Option<String>,
}

impl Sysfs {
    /// Read a disk's sysfs directory. `queue/zoned` is required; the zone limits default to 0 and
    /// the description fields to none when a kernel does not have them.
    pub fn read(dir: &Path) -> io::Result<Sysfs> {
        let text = |rel: &str| -> io::Result<Option<String>> {
            match std::fs::read_to_string(dir.join(rel)) {
                Ok(s) => Ok(Some(s.trim().to_string())),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", dir.join(rel).display()))),
            }
        };
        let num = |rel: &str| -> io::Result<Option<u64>> {
            text(rel)?
                .map(|s| {
                    s.parse::<u64>().map_err(|_| {
                        io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("{}: not a number: {s:?}", dir.join(rel).display()),
                        )
                    })
                })
                .transpose()
        };
        let zoned = text("queue/zoned")?
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{}: no queue/zoned", dir.display())))?;
        let small = |v: Option<u64>| v.map_or(0, |v| u32::try_from(v).unwrap_or(u32::MAX));
        let driver = ["device/driver", "device/device/driver"]
            .iter()
            .find_map(|rel| std::fs::read_link(dir.join(rel)).ok())
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
        Ok(Sysfs {
            name: dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            zoned,
            max_open_zones: small(num("queue/max_open_zones")?),
            max_active_zones: small(num("queue/max_active_zones")?),
            zone_append_max_bytes: num("queue/zone_append_max_bytes")?.unwrap_or(0),
            rotational: num("queue/rotational")?.unwrap_or(0) != 0,
            queue: zonekit_core::QueueSettings {
                max_sectors_kb: num("queue/max_sectors_kb")?
                    .map_or(zonekit_core::QueueSettings::DEFAULT_MAX_SECTORS_KB, |v| small(Some(v)).max(1)),
                zoned_qd1_writes: num("queue/zoned_qd1_writes")?.unwrap_or(0) != 0,
            },
            dma_alignment: num("queue/dma_alignment")?.map(|v| u32::try_from(v).unwrap_or(u32::MAX)),
            vendor: text("device/vendor")?.filter(|s| !s.is_empty()),
            model: text("device/model")?.filter(|s| !s.is_empty()),
            driver,
        })
    }

    /// The personality the device's driver behaves like: NVMe → ZNS, SCSI disk (`sd`) → ZBC,
    /// anything else (null_blk, which has no driver link) → null_blk.
    pub fn personality(&self) -> Personality {
        let driver = self.driver.as_deref().unwrap_or("");
        if driver.starts_with("nvme") || self.name.starts_with("nvme") {
            Personality::Zns
        } else if driver == "sd" || driver.contains("scsi") || self.name.starts_with("sd") {
            Personality::Zbc
        } else {
            Personality::NullBlk
        }
    }
}

/// What the block-device ioctls say about a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelGeometry {
    /// `BLKGETZONESZ`: zone size in sectors (0 if not zoned).
    pub zone_size: u32,
    /// `BLKGETNRZONES`: number of zones.
    pub nr_zones: u32,
    /// `BLKGETSIZE64`: size in bytes.
    pub size_bytes: u64,
    /// `BLKSSZGET`: logical block size in bytes.
    pub logical_block_size: u32,
    /// `BLKPBSZGET`: physical block size in bytes.
    pub physical_block_size: u32,
}

/// Describe a Linux zoned device from sysfs, the ioctls and a zone report of its zones (all of
/// them, or the first ones: the checks cover the zones given).
///
/// The layout must be one [`Geometry`] can state — conventional zones only at the start, one
/// sequential zone type, one zone capacity, equal zone lengths but for a shorter last zone —
/// else [`DeviceError::Unsupported`] says what differs. Limits are sysfs's values as they are.
pub fn device_info(spec: &str, sysfs: &Sysfs, k: &KernelGeometry, report: &Report) -> DeviceResult<DeviceInfo> {
    let unsupported = |why: String| DeviceError::Unsupported(format!("{spec}: {why}"));
    if k.zone_size == 0 || k.nr_zones == 0 {
        return Err(unsupported("not a zoned block device (the kernel reports no zones)".into()));
    }
    let zone_size = u64::from(k.zone_size);
    let zones = &report.zones;
    let nr_conv = zones.iter().take_while(|z| z.zone_type == ZoneType::Conventional).count();
    let first_seq = zones.get(nr_conv);
    let seq_zone_type = first_seq.map_or(ZoneType::SeqWriteRequired, |z| z.zone_type);
    let zone_capacity = match first_seq {
        Some(z) if report.has_capacity() => z.capacity,
        _ => zone_size,
    };
    for (i, z) in zones.iter().enumerate() {
        let last = i as u64 + 1 == u64::from(k.nr_zones);
        if z.start != i as u64 * zone_size || (z.len != zone_size && !last) || z.len > zone_size {
            return Err(unsupported(format!(
                "zone {i} (start {}, length {}) is not at a multiple of the {zone_size}-sector zone size",
                z.start, z.len
            )));
        }
        if i >= nr_conv {
            if z.zone_type == ZoneType::Conventional {
                return Err(unsupported(format!(
                    "conventional zone {i} follows sequential zones; zonekit needs every conventional zone \
                     at the start of the device (the first {nr_conv} are)"
                )));
            }
            if z.zone_type != seq_zone_type {
                return Err(unsupported(format!(
                    "zone {i} is {} but zone {nr_conv} is {}: mixed sequential zone types are not supported",
                    z.zone_type.blkzone_name(),
                    seq_zone_type.blkzone_name()
                )));
            }
            if z.capacity != zone_capacity.min(z.len) {
                return Err(unsupported(format!(
                    "zone {i} has a capacity of {} sectors, zone {nr_conv} of {zone_capacity}: \
                     zones of different capacities are not supported",
                    z.capacity
                )));
            }
        }
    }
    let nr_conv = u32::try_from(nr_conv).map_err(|_| unsupported("too many zones".into()))?;
    let capacity = k.size_bytes / SECTOR_SIZE;
    let mut geometry = Geometry::new(capacity, zone_size, zone_capacity, nr_conv, k.logical_block_size)
        .map_err(|e| unsupported(format!("zone layout not supported: {e}")))?;
    if geometry.nr_zones != k.nr_zones {
        return Err(unsupported(format!(
            "{} sectors in zones of {zone_size} make {} zones, but the kernel reports {}",
            capacity, geometry.nr_zones, k.nr_zones
        )));
    }
    geometry.physical_block_size = k.physical_block_size.max(k.logical_block_size);
    geometry.seq_zone_type = seq_zone_type;
    let personality = sysfs.personality();
    let limits = Limits {
        max_open: sysfs.max_open_zones,
        max_active: sysfs.max_active_zones,
        max_append_sectors: sysfs.zone_append_max_bytes / SECTOR_SIZE,
    };
    let vendor = match (&sysfs.vendor, personality) {
        (Some(v), _) => v.clone(),
        (None, Personality::NullBlk) => "null_blk".into(),
        (None, _) => String::new(),
    };
    let description = match &sysfs.model {
        Some(m) => format!("{m} ({}, {})", sysfs.name, personality.description()),
        None => format!("{} ({})", sysfs.name, personality.description()),
    };
    Ok(DeviceInfo {
        spec: spec.to_string(),
        kind: DeviceKind::Linux,
        personality,
        geometry,
        limits,
        model: sysfs.zoned.clone(),
        vendor,
        description,
        rotational: sysfs.rotational,
        queue: sysfs.queue,
        keeps_data: true,
    })
}

/// A Linux zoned block device, used through the kernel's ioctls and `pread`/`pwrite`.
///
/// Opened read-only (`O_RDONLY`), or for writing with `O_RDWR | O_DIRECT | O_EXCL` (zone
/// management needs a writable descriptor; `O_EXCL` keeps file systems and other exclusive users
/// away, as blkzone's management commands do unless given `-f`: [`LinuxDevice::open_with`]).
#[derive(Debug)]
pub struct LinuxDevice {
    info: DeviceInfo,
    file: File,
    direct: bool,
    /// Memory alignment `O_DIRECT` buffers need.
    mem_align: usize,
}

impl LinuxDevice {
    /// Open the zoned block device at `path`, named `spec` in messages (exclusively when
    /// `writable`).
    pub fn open(path: &Path, spec: &str, writable: bool) -> DeviceResult<LinuxDevice> {
        LinuxDevice::open_with(path, spec, writable, true)
    }

    /// Open the zoned block device at `path`, named `spec` in messages; opened for writing, it
    /// takes `O_EXCL` only when `exclusive` (blkzone's management commands drop it with `-f`).
    pub fn open_with(path: &Path, spec: &str, writable: bool, exclusive: bool) -> DeviceResult<LinuxDevice> {
        let io_err = |what: &str, e: io::Error| DeviceError::io(format!("{spec}: {what}"), e);
        let meta = std::fs::metadata(path).map_err(|e| io_err("stat", e))?;
        if !meta.file_type().is_block_device() {
            return Err(DeviceError::Unsupported(format!("{spec}: not a block device")));
        }
        let (major, minor) = dev_major_minor(meta.rdev());
        let dir = block_sysfs_dir(Path::new("/sys"), major, minor).map_err(|e| io_err("sysfs", e))?;
        let sysfs = Sysfs::read(&dir).map_err(|e| io_err("sysfs", e))?;
        let mut opts = OpenOptions::new();
        opts.read(true);
        if writable {
            let excl = if exclusive { libc::O_EXCL } else { 0 };
            opts.write(true).custom_flags(libc::O_DIRECT | excl);
        }
        let file = opts.open(path).map_err(|e| io_err("open", e))?;
        let fd = file.as_fd();
        let k = KernelGeometry {
            zone_size: sys::blkgetzonesz(fd).map_err(|e| io_err("BLKGETZONESZ", e))?,
            nr_zones: sys::blkgetnrzones(fd).map_err(|e| io_err("BLKGETNRZONES", e))?,
            size_bytes: sys::blkgetsize64(fd).map_err(|e| io_err("BLKGETSIZE64", e))?,
            logical_block_size: sys::blksszget(fd).map_err(|e| io_err("BLKSSZGET", e))?,
            physical_block_size: sys::blkpbszget(fd).map_err(|e| io_err("BLKPBSZGET", e))?,
        };
        if k.zone_size == 0 {
            return Err(DeviceError::Unsupported(format!("{spec}: not a zoned block device")));
        }
        let mut report = Report { flags: 0, zones: Vec::new() };
        let mut sector = 0;
        while report.zones.len() < k.nr_zones as usize {
            let r = report_batch(&file, spec, sector, REPORT_BATCH)?;
            let Some(last) = r.zones.last() else { break };
            sector = last.start + last.len;
            report.flags = r.flags;
            report.zones.extend(r.zones);
        }
        let info = device_info(spec, &sysfs, &k, &report)?;
        let lbs = k.logical_block_size as usize;
        let dma = sysfs.dma_alignment.map_or(SECTOR_SIZE as usize, |m| m as usize + 1);
        Ok(LinuxDevice { info, file, direct: writable, mem_align: dma.max(lbs).max(SECTOR_SIZE as usize) })
    }

    /// The open file (for callers that issue their own I/O, e.g. an io_uring engine).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Whether I/O goes through `O_DIRECT` (the device was opened for writing).
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    fn io_error(&self, what: &str, e: io::Error) -> DeviceError {
        DeviceError::io(format!("{}: {what}", self.info.spec), e)
    }

    fn needs_bounce(&self, ptr: *const u8) -> bool {
        self.direct && !(ptr as usize).is_multiple_of(self.mem_align)
    }

    /// Check what the kernel would not: without `O_DIRECT` it takes any length, and a read past
    /// the end of the device is short rather than an error. Keep the interface's rules — I/O in
    /// whole logical blocks (the kernel's `EINVAL` for direct I/O), reads inside the device
    /// (`EINVAL`, as the emulated devices say) — and leave everything else to the kernel.
    fn check(&self, sector: u64, len: usize, read: bool) -> DeviceResult<()> {
        let g = &self.info.geometry;
        let einval = |what: &str| self.io_error(what, io::Error::from_raw_os_error(libc::EINVAL));
        let aligned =
            (len as u64).is_multiple_of(u64::from(g.logical_block_size)) && sector.is_multiple_of(g.lbs_sectors());
        if !self.direct && !aligned {
            return Err(einval("not aligned to the logical block size"));
        }
        let end = sector.checked_add((len as u64).div_ceil(SECTOR_SIZE));
        if read && end.is_none_or(|end| end > g.capacity) {
            return Err(einval(&format!("read of {len} bytes at sector {sector}: beyond the end of the device")));
        }
        Ok(())
    }
}

/// One `BLKREPORTZONE` call, decoded.
fn report_batch(file: &File, spec: &str, sector: u64, nr: u32) -> DeviceResult<Report> {
    let buf = sys::blkreportzone(file.as_fd(), sector, nr)
        .map_err(|e| DeviceError::io(format!("{spec}: BLKREPORTZONE"), e))?;
    parse_report(&buf).map_err(|e| DeviceError::Corrupt(format!("{spec}: BLKREPORTZONE: {e}")))
}

/// A heap buffer whose usable part starts at an `align`-byte boundary, for `O_DIRECT`.
struct Bounce {
    mem: Vec<u8>,
    off: usize,
    len: usize,
}

impl Bounce {
    fn new(len: usize, align: usize) -> Bounce {
        let mem = vec![0u8; len + align];
        let off = mem.as_ptr().align_offset(align);
        Bounce { mem, off, len }
    }

    fn as_slice(&self) -> &[u8] {
        &self.mem[self.off..self.off + self.len]
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.mem[self.off..self.off + self.len]
    }
}

impl ZoneReport for LinuxDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn report_zones(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> DeviceResult<()> {
        let mut sector = sector;
        let mut left = max;
        while left > 0 {
            let batch = u32::try_from(left).unwrap_or(u32::MAX).min(REPORT_BATCH);
            let r = report_batch(&self.file, &self.info.spec, sector, batch)?;
            let Some(last) = r.zones.last() else { break };
            sector = last.start + last.len;
            left -= r.zones.len().min(left);
            out.extend(r.zones);
        }
        Ok(())
    }
}

impl ZoneManagement for LinuxDevice {
    /// One ioctl over the whole range, as blkzone issues it: the kernel checks the range and acts.
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> DeviceResult<()> {
        let fd = self.file.as_fd();
        let (name, r) = match op {
            ZoneOp::Open => ("BLKOPENZONE", sys::blkopenzone(fd, sector, nr)),
            ZoneOp::Close => ("BLKCLOSEZONE", sys::blkclosezone(fd, sector, nr)),
            ZoneOp::Finish => ("BLKFINISHZONE", sys::blkfinishzone(fd, sector, nr)),
            ZoneOp::Reset => ("BLKRESETZONE", sys::blkresetzone(fd, sector, nr)),
        };
        r.map_err(|e| self.io_error(&format!("{name} (sector {sector}, {nr} sectors)"), e))
    }
}

impl BlockIo for LinuxDevice {
    fn read_at(&self, sector: u64, buf: &mut [u8]) -> DeviceResult<()> {
        if buf.is_empty() {
            return Ok(());
        }
        self.check(sector, buf.len(), true)?;
        let pos = sector.saturating_mul(SECTOR_SIZE);
        let len = buf.len();
        let r = if self.needs_bounce(buf.as_ptr()) {
            let mut b = Bounce::new(buf.len(), self.mem_align);
            let r = self.file.read_exact_at(b.as_mut_slice(), pos);
            if r.is_ok() {
                buf.copy_from_slice(b.as_slice());
            }
            r
        } else {
            self.file.read_exact_at(buf, pos)
        };
        r.map_err(|e| self.io_error(&format!("read of {len} bytes at sector {sector}"), e))
    }

    fn write_at(&self, sector: u64, buf: &[u8]) -> DeviceResult<()> {
        if buf.is_empty() {
            return Ok(());
        }
        self.check(sector, buf.len(), false)?;
        let pos = sector.saturating_mul(SECTOR_SIZE);
        let r = if self.needs_bounce(buf.as_ptr()) {
            let mut b = Bounce::new(buf.len(), self.mem_align);
            b.as_mut_slice().copy_from_slice(buf);
            self.file.write_all_at(b.as_slice(), pos)
        } else {
            self.file.write_all_at(buf, pos)
        };
        r.map_err(|e| self.io_error(&format!("write of {} bytes at sector {sector}", buf.len()), e))
    }

    /// Userspace has no zone append through a block device file (only through NVMe passthrough).
    fn zone_append(&self, _zone_start: u64, _buf: &[u8]) -> DeviceResult<u64> {
        Err(DeviceError::Unsupported(format!(
            "{}: zone append is not available through a Linux block device file",
            self.info.spec
        )))
    }

    fn flush(&self) -> DeviceResult<()> {
        self.file.sync_all().map_err(|e| self.io_error("fsync", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn major_minor_as_glibc() {
        // glibc's makedev()
        let makedev = |maj: u64, min: u64| {
            ((maj & 0xffff_f000) << 32) | ((maj & 0xfff) << 8) | ((min & 0xffff_ff00) << 12) | (min & 0xff)
        };
        assert_eq!(dev_major_minor(0x0801), (8, 1));
        assert_eq!(dev_major_minor(makedev(259, 0x1234)), (259, 0x1234));
        assert_eq!(dev_major_minor(makedev(0x12345, 0x0abc_def0)), (0x12345, 0x0abc_def0));
    }

    #[test]
    fn bounce_is_aligned() {
        for align in [512, 4096] {
            let b = Bounce::new(8192, align);
            assert_eq!(b.as_slice().as_ptr() as usize % align, 0);
            assert_eq!(b.as_slice().len(), 8192);
        }
    }
}
