//! The `ZonedDevice` interface: small capability traits (report, management, block I/O) that every
//! device (emulated, Linux zoned block device, plain file with emulated zones) implements.

use crate::errno::Errno;
use crate::error::ZoneError;
use crate::geometry::{Geometry, Limits};
use crate::personality::Personality;
use crate::state::ZoneOp;
use crate::zone::Zone;
use serde::Serialize;

/// Where a device's zones come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DeviceKind {
    /// An emulated device: zonekit's state machine over a store.
    Emulated {
        /// `none`, `memory` or `dir`.
        store: String,
        /// The built-in profile it was made from, if any.
        profile: Option<String>,
    },
    /// A regular file or a non-zoned block device with emulated zones (fio's emulation).
    File,
    /// A Linux zoned block device, through the kernel's ioctls.
    Linux,
}

/// What a device is: geometry, limits, personality and description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// The spec the device was opened from (`@smr-hm-15tb`, `/dev/nullb0`, a path).
    pub spec: String,
    /// Device kind.
    pub kind: DeviceKind,
    /// Personality (transport rules); for a Linux device, the one its driver behaves like.
    pub personality: Personality,
    /// Zone layout.
    pub geometry: Geometry,
    /// Zone resource limits.
    pub limits: Limits,
    /// Zoned model as sysfs names it (`host-managed`, `host-aware`).
    pub model: String,
    /// Vendor or emulator name.
    pub vendor: String,
    /// One-line description (profile source, device model).
    pub description: String,
    /// Whether the device is a spinning disk.
    pub rotational: bool,
    /// The block layer's queue settings for the device (`/sys/block/X/queue`'s `max_sectors_kb` and
    /// `zoned_qd1_writes`): its defaults, which a run may override.
    pub queue: QueueSettings,
    /// Whether written data can be read back: false for a device that keeps only its zone state
    /// (the `none` store: reads below a write pointer return zeros). A file system cannot live on
    /// such a device.
    pub keeps_data: bool,
}

/// The block layer's tunable queue settings of a device, as `/sys/block/X/queue` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QueueSettings {
    /// Largest request the block layer builds, in KiB (`max_sectors_kb`): reads and writes are
    /// split at it and plugged writes are merged up to it.
    pub max_sectors_kb: u32,
    /// Issue every zone write from one per-device worker at queue depth 1 (`zoned_qd1_writes`).
    pub zoned_qd1_writes: bool,
}

impl QueueSettings {
    /// Linux's default request size cap (`BLK_DEF_MAX_SECTORS_CAP`, 2560 sectors).
    pub const DEFAULT_MAX_SECTORS_KB: u32 = 1280;

    /// The kernel's defaults for a device: 1280 KiB requests, and QD1 zone writes on a rotational
    /// device (Linux 7.1 turns `zoned_qd1_writes` on for rotational zoned disks).
    pub fn defaults(rotational: bool) -> QueueSettings {
        QueueSettings { max_sectors_kb: Self::DEFAULT_MAX_SECTORS_KB, zoned_qd1_writes: rotational }
    }
}

impl Default for QueueSettings {
    fn default() -> QueueSettings {
        QueueSettings::defaults(false)
    }
}

/// Errors of device operations.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceError {
    /// A zone rule refused the operation; `errno` is what the personality reports for it.
    #[error("{error}")]
    Zone {
        /// The rule broken.
        error: ZoneError,
        /// The errno userspace sees.
        errno: Errno,
    },
    /// An operating-system call failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The device cannot do this.
    #[error("{0}")]
    Unsupported(String),
    /// Stored device metadata is missing, corrupt or inconsistent with the data.
    #[error("{0}")]
    Corrupt(String),
}

impl DeviceError {
    /// A zone-rule error, with the errno `personality` gives it.
    pub fn zone(error: ZoneError, personality: Personality) -> DeviceError {
        DeviceError::Zone { errno: personality.errno(error.kind), error }
    }

    /// An I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> DeviceError {
        DeviceError::Io { context: context.into(), source }
    }

    /// What went wrong, in words, for a message that ends with the errno's name: an OS error as
    /// `strerror` says it, without the `(os error N)` that Rust's own text appends.
    pub fn message(&self) -> String {
        match self {
            DeviceError::Io { context, source } => format!("{context}: {}", crate::errno::io_text(source)),
            other => other.to_string(),
        }
    }

    /// The name of [`DeviceError::errno`] (`EIO`), or `errno N` for one outside the table: the
    /// tag that ends a failure's message.
    pub fn errno_tag(&self) -> String {
        let e = self.errno();
        e.name().map_or_else(|| format!("errno {}", e.0), str::to_string)
    }

    /// The errno a system call would have returned.
    pub fn errno(&self) -> Errno {
        match self {
            DeviceError::Zone { errno, .. } => *errno,
            DeviceError::Io { source, .. } => Errno::of_io(source),
            DeviceError::Unsupported(_) => Errno::EOPNOTSUPP,
            DeviceError::Corrupt(_) => Errno::EIO,
        }
    }
}

/// Result of device operations.
pub type DeviceResult<T> = Result<T, DeviceError>;

/// Describe a device and report its zones.
pub trait ZoneReport {
    /// What the device is.
    fn info(&self) -> &DeviceInfo;

    /// Append to `out` up to `max` zones, from the zone holding `sector`. Fewer (none past the end)
    /// is not an error.
    fn report_zones(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> DeviceResult<()>;

    /// Sequential zones whose next write fails by an injected fault, in ascending order: none
    /// for a device that takes no injected faults (only emulated devices do).
    fn pending_write_faults(&self) -> Vec<u32> {
        Vec::new()
    }
}

/// Zone management: open, close, finish, reset, as a device takes the commands.
pub trait ZoneManagement {
    /// Apply `op` to the zones of `[sector, sector + nr)`, one zone after the other, as a device
    /// given one command per zone would, **stopping at the first zone that fails** (earlier zones
    /// keep their change). A reset of the whole device (`sector` 0, `nr` the capacity) is the
    /// device's reset-all command, which skips the zones it cannot reset (conventional, empty,
    /// read-only, offline). A range that is empty, past the end, or not on whole zones (it may end
    /// at the device end) is refused with the transport's errno, changing nothing.
    ///
    /// This is the hardware's rule. What a program sees through a block device file
    /// (`BLKRESETZONE` and the like: `EINVAL` for a bad range, a range issued zone by zone that
    /// carries on after a failing zone) is the block layer's, `zonekit_blk::BlockDevice`.
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> DeviceResult<()>;
}

/// Block I/O in sectors, as a device takes read and write commands: buffers are whole logical
/// blocks and a command lies inside the device (else the transport's errno); the block layer cuts
/// and splits a program's I/O into such commands.
pub trait BlockIo {
    /// Read `buf.len()` bytes at `sector`; beyond a zone's write pointer the personality's fill.
    fn read_at(&self, sector: u64, buf: &mut [u8]) -> DeviceResult<()>;

    /// Write `buf` at `sector` (at the write pointer in a sequential zone). A write that runs from
    /// a sequential zone into the next zone is refused (a device takes one zone per command).
    fn write_at(&self, sector: u64, buf: &[u8]) -> DeviceResult<()>;

    /// Zone append to the zone starting at `zone_start`; returns the sector the data landed at.
    fn zone_append(&self, zone_start: u64, buf: &[u8]) -> DeviceResult<u64>;

    /// Make every acknowledged write durable.
    fn flush(&self) -> DeviceResult<()>;

    /// Close the device, reporting what a drop would have to ignore: a persistent emulated
    /// device records its zones' conditions for the next open. Later writes and zone changes
    /// fail. Devices with nothing to record need not implement it.
    fn close(&self) -> DeviceResult<()> {
        Ok(())
    }

    /// A fresh instance of the device's timing model (the drive at rest), if it has one.
    fn timing_model(&self) -> Option<Box<dyn crate::timing::TimingModel>> {
        None
    }

    /// Sectors of `sectors` from `sector` that a read takes from the media: those below the write
    /// pointers, and all of them in conventional zones (what a timing model charges for).
    fn media_sectors(&self, sector: u64, sectors: u64) -> u64 {
        let _ = sector;
        sectors
    }
}

/// A zoned device: every capability, usable from several threads.
pub trait ZonedDevice: ZoneReport + ZoneManagement + BlockIo + Send + Sync {}

impl<T: ZoneReport + ZoneManagement + BlockIo + Send + Sync> ZonedDevice for T {}
