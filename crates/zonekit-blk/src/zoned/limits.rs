//! The queue limits of a zoned block device: what `/sys/block/X/queue` shows, and what the block
//! layer splits requests and checks zone appends by.
//!
//! [`QueueLimits::from_info`] derives them from a device's [`DeviceInfo`] as Linux 6.12 would set
//! them up for the driver the device's personality stands for; [`LimitOverrides`] changes any of
//! them for a run or a test.

use std::fmt;
use zonekit_core::{DeviceInfo, DeviceKind, Errno, Personality, QueueSettings, SECTOR_SIZE};

/// Where a zone append is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZoneAppendMode {
    /// The device has a zone append command (null_blk, NVMe ZNS).
    Native,
    /// The block layer turns a zone append into a write at the zone's write pointer (SCSI ZBC and
    /// ATA ZAC disks have no zone append: `queue_emulates_zone_append`).
    Emulated,
}

/// The write-plug pool size Linux uses when a device states no open or active limit
/// (`BLK_ZONE_WPLUG_DEFAULT_POOL_SIZE`).
pub const WPLUG_DEFAULT_POOL_SIZE: u32 = 128;

/// A zoned block device's queue limits, in the kernel's units and names.
///
/// Invariants (checked by [`QueueLimits::with_overrides`]): the logical block size is 512 or
/// 4096 and the physical block size a power of two no smaller; the capacity and `chunk_sectors`
/// are non-zero multiples of the logical block size; `max_sectors` holds at least one logical
/// block and one page (4 KiB, as `queue_max_sectors_store` requires), is a multiple of the logical
/// block size (`blk_validate_limits`), and `max_sectors_kb` is half of it, rounded down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueLimits {
    /// `zoned`: the zoned model (`host-managed`).
    pub zoned: String,
    /// Device capacity in 512-byte sectors (`/sys/block/X/size`): where reads and writes are cut.
    pub capacity: u64,
    /// `logical_block_size` in bytes: the alignment of every read and write.
    pub logical_block_size: u32,
    /// `physical_block_size` in bytes: split requests end on it when they can.
    pub physical_block_size: u32,
    /// `chunk_sectors`: the zone size in sectors; no request crosses a multiple of it.
    pub chunk_sectors: u64,
    /// `nr_zones`.
    pub nr_zones: u32,
    /// `max_open_zones` (0: no limit).
    pub max_open_zones: u32,
    /// `max_active_zones` (0: no limit).
    pub max_active_zones: u32,
    /// Whether zone appends go to the device or are emulated.
    pub zone_append: ZoneAppendMode,
    /// `zone_append_max_bytes`: the largest zone append (0: none).
    pub zone_append_max_bytes: u64,
    /// `zone_write_granularity` in bytes: the smallest write unit of a sequential zone.
    pub zone_write_granularity: u32,
    /// `max_sectors_kb`: the largest request, in KiB (as sysfs shows it: [`QueueLimits::max_sectors`]
    /// halved, rounded down).
    pub max_sectors_kb: u32,
    /// The largest request in 512-byte sectors (`max_sectors`); reads and writes are split at it.
    /// Usually twice `max_sectors_kb`, but a driver may set an odd limit that KiB cannot show:
    /// null_blk sets none by default, and the block layer's default is then
    /// `BLK_SAFE_MAX_SECTORS`, 255 sectors (`max_sectors_kb` 127).
    pub max_sectors: u64,
    /// `zoned_qd1_writes`: issue every zone write from one per-device worker, one at a time.
    pub zoned_qd1_writes: bool,
}

/// Changes to a device's queue limits; `None` keeps what the device gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LimitOverrides {
    /// Logical block size in bytes (512 or 4096).
    pub logical_block_size: Option<u32>,
    /// `chunk_sectors` (the zone size the block layer splits at).
    pub chunk_sectors: Option<u64>,
    /// `nr_zones`.
    pub nr_zones: Option<u32>,
    /// `max_open_zones`.
    pub max_open_zones: Option<u32>,
    /// `max_active_zones`.
    pub max_active_zones: Option<u32>,
    /// `zone_append_max_bytes`.
    pub zone_append_max_bytes: Option<u64>,
    /// `zone_write_granularity` in bytes.
    pub zone_write_granularity: Option<u32>,
    /// `max_sectors_kb`.
    pub max_sectors_kb: Option<u32>,
    /// `max_sectors` in 512-byte sectors (rounded down to the logical block size), for a limit
    /// that is not a whole number of KiB; it wins over `max_sectors_kb`.
    pub max_sectors: Option<u64>,
    /// `zoned_qd1_writes`.
    pub zoned_qd1_writes: Option<bool>,
    /// Whether zone append is native (true) or emulated (false).
    pub zone_append_native: Option<bool>,
}

/// A queue limit no device can have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LimitsError(pub String);

impl LimitsError {
    /// The errno writing the value to sysfs gives: `EINVAL`.
    pub fn errno(&self) -> Errno {
        Errno::EINVAL
    }
}

/// The value of one queue attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrValue {
    /// A word (`host-managed`).
    Text(String),
    /// A number.
    Num(u64),
}

impl fmt::Display for AttrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Text(t) => f.write_str(t),
            AttrValue::Num(n) => write!(f, "{n}"),
        }
    }
}

impl QueueLimits {
    /// The limits Linux sets up for `info`'s device.
    ///
    /// - Zone append is native for the null_blk and ZNS personalities, with the device's limit;
    ///   emulated for ZBC, whose `zone_append_max_bytes` is then the zone size: Linux 6.12 takes
    ///   `min(zone size, max_hw_sectors)`, and zonekit's devices have no hardware limit below a
    ///   zone (the 6.12 lane's scsi_debug shows its 4 MiB zone size).
    /// - `max_open_zones`: a device with neither an open nor an active limit, and more sequential
    ///   zones than the write-plug pool ([`WPLUG_DEFAULT_POOL_SIZE`]), shows the pool size, as
    ///   `disk_update_zone_resources` (Linux 6.10 and later) advertises it.
    /// - `zone_write_granularity`: the physical block size for a ZBC disk (`sd_zbc` sets it so),
    ///   the logical block size otherwise (the default of `blk_validate_zoned_limits`).
    ///
    /// A Linux device's limits are the kernel's own (read from sysfs when it was opened).
    pub fn from_info(info: &DeviceInfo) -> QueueLimits {
        let g = &info.geometry;
        let l = &info.limits;
        let linux = info.kind == DeviceKind::Linux;
        let zone_append =
            if info.personality == Personality::Zbc { ZoneAppendMode::Emulated } else { ZoneAppendMode::Native };
        let mut max_open_zones = l.max_open;
        if !linux && l.max_open == 0 && l.max_active == 0 && g.nr_seq_zones() > WPLUG_DEFAULT_POOL_SIZE {
            max_open_zones = WPLUG_DEFAULT_POOL_SIZE;
        }
        let zone_write_granularity =
            if info.personality == Personality::Zbc { g.physical_block_size } else { g.logical_block_size };
        let lbs_sectors = (u64::from(g.logical_block_size) / SECTOR_SIZE).max(1);
        let mut limits = QueueLimits {
            zoned: info.model.clone(),
            capacity: g.capacity,
            logical_block_size: g.logical_block_size,
            physical_block_size: g.physical_block_size.max(g.logical_block_size),
            chunk_sectors: g.zone_size,
            nr_zones: g.nr_zones,
            max_open_zones,
            max_active_zones: l.max_active,
            zone_append,
            zone_append_max_bytes: l.max_append_sectors * SECTOR_SIZE,
            zone_write_granularity,
            max_sectors_kb: info.queue.max_sectors_kb,
            max_sectors: u64::from(info.queue.max_sectors_kb) * 2 / lbs_sectors * lbs_sectors,
            zoned_qd1_writes: info.queue.zoned_qd1_writes,
        };
        if !linux {
            limits.zone_append_max_bytes = limits.derived_append_max_bytes(l.max_append_sectors * SECTOR_SIZE);
        }
        limits
    }

    /// The limits of `info`'s device with `overrides` applied, checked as the kernel checks them.
    /// A changed zone append mode or `chunk_sectors` changes an emulated zone append's limit
    /// unless `zone_append_max_bytes` is given too; `max_sectors_kb` does not (the kernel bounds
    /// it by `max_hw_sectors`).
    pub fn with_overrides(info: &DeviceInfo, o: &LimitOverrides) -> Result<QueueLimits, LimitsError> {
        let mut q = QueueLimits::from_info(info);
        let bad = |m: String| Err(LimitsError(m));
        if let Some(lbs) = o.logical_block_size {
            if lbs != 512 && lbs != 4096 {
                return bad(format!("logical block size {lbs} is not 512 or 4096"));
            }
            q.logical_block_size = lbs;
            q.physical_block_size = q.physical_block_size.max(lbs);
            // blk_validate_limits raises the granularity to the logical block size.
            q.zone_write_granularity = q.zone_write_granularity.max(lbs);
        }
        if let Some(c) = o.chunk_sectors {
            q.chunk_sectors = c;
        }
        if let Some(n) = o.nr_zones {
            q.nr_zones = n;
        }
        if let Some(n) = o.max_open_zones {
            q.max_open_zones = n;
        }
        if let Some(n) = o.max_active_zones {
            q.max_active_zones = n;
        }
        if let Some(kb) = o.max_sectors_kb {
            q.max_sectors_kb = kb;
            q.max_sectors = u64::from(kb) * 2;
        }
        if let Some(n) = o.max_sectors {
            q.max_sectors = n;
        }
        if let Some(b) = o.zoned_qd1_writes {
            q.zoned_qd1_writes = b;
        }
        if let Some(native) = o.zone_append_native {
            q.zone_append = if native { ZoneAppendMode::Native } else { ZoneAppendMode::Emulated };
        }
        if let Some(g) = o.zone_write_granularity {
            q.zone_write_granularity = g;
        }
        let lbs = u64::from(q.logical_block_size);
        let lbs_sectors = lbs / SECTOR_SIZE;
        if q.chunk_sectors == 0 || !q.chunk_sectors.is_multiple_of(lbs_sectors) {
            return bad(format!(
                "chunk_sectors {} is not a non-zero multiple of the {lbs}-byte logical block",
                q.chunk_sectors
            ));
        }
        if !q.capacity.is_multiple_of(lbs_sectors) {
            return bad(format!(
                "capacity of {} sectors is not a multiple of the {lbs}-byte logical block",
                q.capacity
            ));
        }
        let min_kb = (lbs / 1024).max(4) as u32;
        q.max_sectors = q.max_sectors / lbs_sectors * lbs_sectors;
        if q.max_sectors < u64::from(min_kb) * 2 || q.max_sectors > u64::from(u32::MAX) {
            return bad(match o.max_sectors {
                Some(n) => format!("max_sectors {n} is out of range (at least {} sectors)", min_kb * 2),
                None => format!("max_sectors_kb {} is out of range (at least {min_kb})", q.max_sectors / 2),
            });
        }
        q.max_sectors_kb = (q.max_sectors / 2) as u32;
        if q.zone_write_granularity == 0 || !u64::from(q.zone_write_granularity).is_multiple_of(lbs) {
            return bad(format!(
                "zone_write_granularity {} is not a non-zero multiple of the {lbs}-byte logical block",
                q.zone_write_granularity
            ));
        }
        q.zone_append_max_bytes = match o.zone_append_max_bytes {
            Some(b) if !b.is_multiple_of(lbs) => {
                return bad(format!("zone_append_max_bytes {b} is not a multiple of the {lbs}-byte logical block"));
            }
            Some(b) => b,
            None if info.kind == DeviceKind::Linux => q.zone_append_max_bytes,
            None => q.derived_append_max_bytes(info.limits.max_append_sectors * SECTOR_SIZE),
        };
        Ok(q)
    }

    /// `zone_append_max_bytes` from the device's own limit (`native`, bytes) and the mode.
    fn derived_append_max_bytes(&self, native: u64) -> u64 {
        match self.zone_append {
            ZoneAppendMode::Native => native,
            ZoneAppendMode::Emulated => self.chunk_sectors * SECTOR_SIZE,
        }
    }

    /// The largest request in sectors (`max_sectors`).
    pub fn max_sectors(&self) -> u64 {
        self.max_sectors
    }

    /// The logical block size in sectors.
    pub fn lbs_sectors(&self) -> u64 {
        u64::from(self.logical_block_size) / SECTOR_SIZE
    }

    /// The physical block size in sectors.
    pub fn pbs_sectors(&self) -> u64 {
        u64::from(self.physical_block_size) / SECTOR_SIZE
    }

    /// The largest zone append in sectors.
    pub fn zone_append_max_sectors(&self) -> u64 {
        self.zone_append_max_bytes / SECTOR_SIZE
    }

    /// The queue settings part of the limits (what `zonekit dev create` stores).
    pub fn settings(&self) -> QueueSettings {
        QueueSettings { max_sectors_kb: self.max_sectors_kb, zoned_qd1_writes: self.zoned_qd1_writes }
    }

    /// The zoned attributes as `/sys/block/X/queue` names and shows them, in this order: `zoned`,
    /// `chunk_sectors`, `nr_zones`, `max_open_zones`, `max_active_zones`, `zone_append_max_bytes`,
    /// `zone_write_granularity`, `max_sectors_kb`, `zoned_qd1_writes`.
    pub fn attributes(&self) -> Vec<(&'static str, AttrValue)> {
        vec![
            ("zoned", AttrValue::Text(self.zoned.clone())),
            ("chunk_sectors", AttrValue::Num(self.chunk_sectors)),
            ("nr_zones", AttrValue::Num(u64::from(self.nr_zones))),
            ("max_open_zones", AttrValue::Num(u64::from(self.max_open_zones))),
            ("max_active_zones", AttrValue::Num(u64::from(self.max_active_zones))),
            ("zone_append_max_bytes", AttrValue::Num(self.zone_append_max_bytes)),
            ("zone_write_granularity", AttrValue::Num(u64::from(self.zone_write_granularity))),
            ("max_sectors_kb", AttrValue::Num(u64::from(self.max_sectors_kb))),
            ("zoned_qd1_writes", AttrValue::Num(u64::from(self.zoned_qd1_writes))),
        ]
    }
}
