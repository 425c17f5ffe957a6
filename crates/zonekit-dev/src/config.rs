//! What an emulated device is made of: personality, geometry, limits and description. It is what a
//! profile produces, what `zonekit dev create` takes, and what a persistent device's metadata file
//! holds.

use crate::model::{ModelSpec, StoredModel};
use serde::{Deserialize, Serialize};
use zonekit_core::{Geometry, GeometryError, Limits, Personality, QueueSettings};

/// Everything needed to build an emulated device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceConfig {
    /// Transport rules.
    pub personality: Personality,
    /// Zone layout.
    pub geometry: Geometry,
    /// Resource limits (already normalised).
    pub limits: Limits,
    /// The built-in profile this came from.
    pub profile: Option<String>,
    /// Spinning disk.
    pub rotational: bool,
    /// Vendor or emulator name, for reports.
    pub vendor: String,
    /// One-line description.
    pub description: String,
    /// The drive's timing model, if it has one.
    pub model: Option<ModelSpec>,
    /// The block layer's queue settings (defaults from the drive).
    pub queue: QueueSettings,
}

/// Explicit geometry for a new emulated device, as `zonekit dev create` takes it (sizes in bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeometrySpec {
    /// Zone size in bytes (a power of two, as the kernel requires of zoned devices).
    pub zone_size: u64,
    /// Number of zones.
    pub nr_zones: u32,
    /// Conventional zones at the start.
    pub nr_conv_zones: u32,
    /// Zone capacity in bytes (defaults to the zone size).
    pub zone_capacity: Option<u64>,
    /// Open limit (0 = none).
    pub max_open: u32,
    /// Active limit (0 = none).
    pub max_active: u32,
    /// Logical block size: 512 or 4096.
    pub block_size: u32,
    /// Personality (null_blk by default).
    pub personality: Personality,
}

impl GeometrySpec {
    /// Check and turn into a device configuration.
    pub fn into_config(self) -> Result<DeviceConfig, GeometryError> {
        let to_sectors = |b: u64| b / 512;
        // In bytes: the sector count would round a partial sector away ("0 sectors" for 256 bytes).
        if !self.zone_size.is_multiple_of(512) {
            return Err(GeometryError::ZoneSizeNotSectors(self.zone_size));
        }
        let zone_size = to_sectors(self.zone_size);
        if zone_size != 0 && !zone_size.is_power_of_two() {
            return Err(GeometryError::ZoneSizeNotPowerOfTwo(zone_size));
        }
        let zone_capacity = match self.zone_capacity {
            Some(c) if c % 512 != 0 => return Err(GeometryError::ZoneCapacityNotSectors(c)),
            Some(c) => to_sectors(c),
            None => zone_size,
        };
        let geometry =
            Geometry::with_zones(zone_size, self.nr_zones, zone_capacity, self.nr_conv_zones, self.block_size)?;
        // QEMU's nvme_ns_check_constraints: a ZNS namespace with only an active limit gets the same
        // open limit.
        let max_open =
            if self.personality == Personality::Zns && self.max_open == 0 { self.max_active } else { self.max_open };
        let limits =
            Limits { max_open, max_active: self.max_active, max_append_sectors: zone_size }.normalized(&geometry)?;
        Ok(DeviceConfig {
            personality: self.personality,
            description: format!("emulated {}", self.personality.description()),
            vendor: "zonekit".into(),
            geometry,
            limits,
            profile: None,
            rotational: self.personality == Personality::Zbc,
            model: None,
            queue: QueueSettings::defaults(self.personality == Personality::Zbc),
        })
    }
}

/// What a persistent device keeps of the data written to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DataMode {
    /// The data, in one file per zone (the zone files' sizes are the write pointers).
    #[default]
    Files,
    /// No data: the zone files are empty and sparse, their sizes still the write pointers, so
    /// the zone state persists while reads return zeros below a write pointer (beyond it, the
    /// personality's fill), as the `none` store does. A huge drive can be written terabytes
    /// without storing them.
    None,
}

impl DataMode {
    /// The name used on the command line and in metadata (`files`, `none`).
    pub fn name(self) -> &'static str {
        match self {
            DataMode::Files => "files",
            DataMode::None => "none",
        }
    }
}

/// The metadata file's contents (JSON), format 4 (format 1, written before the data mode
/// existed, has no `data` and keeps its data in files; format 2, written before timing models,
/// has no `model`, and opens without one; format 3, written before queue settings were stored,
/// has no `queue`, and opens with the kernel's defaults). Sizes in sectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Format version: 4 (1, 2 and 3 are still read).
    pub format: u32,
    /// What the device keeps of the data; formats 2 and 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataMode>,
    /// `nullblk`, `zbc` or `zns`.
    pub personality: String,
    /// Zone size in sectors.
    pub zone_size: u64,
    /// Zone capacity in sectors.
    pub zone_capacity: u64,
    /// Device capacity in sectors.
    pub capacity: u64,
    /// Conventional zones.
    pub nr_conv_zones: u32,
    /// Logical block size in bytes.
    pub logical_block_size: u32,
    /// Open limit.
    pub max_open: u32,
    /// Active limit.
    pub max_active: u32,
    /// Zone append limit in sectors.
    pub max_append_sectors: u64,
    /// Spinning disk.
    pub rotational: bool,
    /// Profile name.
    pub profile: Option<String>,
    /// Vendor.
    pub vendor: String,
    /// Description.
    pub description: String,
    /// The timing model: its name and every parameter's value; formats 3 and 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<StoredModel>,
    /// The block layer's queue settings; format 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<StoredQueue>,
}

/// The queue settings as metadata stores them (`/sys/block/X/queue` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredQueue {
    /// `max_sectors_kb`.
    pub max_sectors_kb: u32,
    /// `zoned_qd1_writes`.
    pub zoned_qd1_writes: bool,
}

impl From<QueueSettings> for StoredQueue {
    fn from(q: QueueSettings) -> StoredQueue {
        StoredQueue { max_sectors_kb: q.max_sectors_kb, zoned_qd1_writes: q.zoned_qd1_writes }
    }
}

/// The smallest `max_sectors_kb` a device with `logical_block_size`-byte blocks can have: one
/// page (4 KiB), as `queue_max_sectors_store` requires, and one logical block.
pub fn min_max_sectors_kb(logical_block_size: u32) -> u32 {
    (logical_block_size / 1024).max(4)
}

/// Current metadata format.
pub const META_FORMAT: u32 = 4;

impl Meta {
    /// The data mode the metadata states: `files` for format 1, the `data` field for formats 2
    /// and 3.
    pub fn data_mode(&self) -> Result<DataMode, String> {
        match (self.format, self.data) {
            (1, None) => Ok(DataMode::Files),
            (1, Some(_)) => Err("format 1 has no `data` field".into()),
            (2..=4, Some(d)) => Ok(d),
            (2..=4, None) => Err("missing field `data`".into()),
            (f, _) => Err(format!("unsupported metadata format {f}")),
        }
    }

    /// The queue settings the metadata states: the kernel's defaults for the drive before
    /// format 4; checked as `zonekit dev create` checks them.
    pub fn queue(&self) -> Result<QueueSettings, String> {
        match (self.queue, self.format) {
            (None, f) if f < 4 => Ok(QueueSettings::defaults(self.rotational)),
            (None, _) => Err("missing field `queue`".into()),
            (Some(_), f) if f < 4 => Err(format!("format {f} has no `queue` field")),
            (Some(q), _) => {
                let min = min_max_sectors_kb(self.logical_block_size);
                if q.max_sectors_kb < min {
                    return Err(format!("max_sectors_kb {} is below {min}", q.max_sectors_kb));
                }
                Ok(QueueSettings { max_sectors_kb: q.max_sectors_kb, zoned_qd1_writes: q.zoned_qd1_writes })
            }
        }
    }

    /// The timing model the metadata states: none before format 3.
    pub fn model(&self) -> Result<Option<ModelSpec>, String> {
        match (&self.model, self.format) {
            (None, _) => Ok(None),
            (Some(_), f) if f < 3 => Err(format!("format {f} has no `model` field")),
            (Some(m), _) => ModelSpec::from_stored(m, self.profile.as_deref()).map(Some),
        }
    }
}

impl DeviceConfig {
    /// The metadata to store for a device keeping `data`.
    pub fn to_meta(&self, data: DataMode) -> Meta {
        let g = &self.geometry;
        Meta {
            format: META_FORMAT,
            data: Some(data),
            personality: self.personality.name().into(),
            zone_size: g.zone_size,
            zone_capacity: g.zone_capacity,
            capacity: g.capacity,
            nr_conv_zones: g.nr_conv_zones,
            logical_block_size: g.logical_block_size,
            max_open: self.limits.max_open,
            max_active: self.limits.max_active,
            max_append_sectors: self.limits.max_append_sectors,
            rotational: self.rotational,
            profile: self.profile.clone(),
            vendor: self.vendor.clone(),
            description: self.description.clone(),
            model: self.model.map(|m| m.to_stored()),
            queue: Some(self.queue.into()),
        }
    }

    /// Rebuild from stored metadata, checking it as a new device would be checked.
    pub fn from_meta(m: &Meta) -> Result<DeviceConfig, String> {
        m.data_mode()?;
        let model = m.model()?;
        let queue = m.queue()?;
        let personality: Personality = m.personality.parse().map_err(|e| format!("{e}"))?;
        let geometry = Geometry::new(m.capacity, m.zone_size, m.zone_capacity, m.nr_conv_zones, m.logical_block_size)
            .map_err(|e| e.to_string())?;
        if geometry.capacity != m.capacity {
            return Err(format!("capacity {} is not a multiple of the logical block size", m.capacity));
        }
        let limits =
            Limits { max_open: m.max_open, max_active: m.max_active, max_append_sectors: m.max_append_sectors };
        if limits.normalized(&geometry).map_err(|e| e.to_string())? != limits {
            return Err("zone limits are inconsistent with the geometry".into());
        }
        Ok(DeviceConfig {
            personality,
            geometry,
            limits,
            profile: m.profile.clone(),
            rotational: m.rotational,
            vendor: m.vendor.clone(),
            description: m.description.clone(),
            model,
            queue,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> GeometrySpec {
        GeometrySpec {
            zone_size: 4 << 20,
            nr_zones: 16,
            nr_conv_zones: 1,
            zone_capacity: None,
            max_open: 4,
            max_active: 8,
            block_size: 512,
            personality: Personality::NullBlk,
        }
    }

    #[test]
    fn meta_round_trip() {
        let c = spec().into_config().unwrap();
        for data in [DataMode::Files, DataMode::None] {
            let m = c.to_meta(data);
            let json = serde_json::to_string(&m).unwrap();
            assert!(json.contains(&format!("\"format\":4,\"data\":\"{}\"", data.name())), "{json}");
            assert!(json.contains("\"queue\":{\"max_sectors_kb\":1280,\"zoned_qd1_writes\":false}"), "{json}");
            let back: Meta = serde_json::from_str(&json).unwrap();
            assert_eq!(DeviceConfig::from_meta(&back).unwrap(), c);
            assert_eq!(back.data_mode(), Ok(data));
        }
        // Format 1: no data mode, the data in files.
        let m = Meta { format: 1, data: None, queue: None, ..c.to_meta(DataMode::None) };
        assert_eq!(m.data_mode(), Ok(DataMode::Files));
        assert_eq!(DeviceConfig::from_meta(&m).unwrap(), c);
        for (format, data) in [(1, Some(DataMode::None)), (2, None), (3, None), (5, Some(DataMode::Files))] {
            assert!(DeviceConfig::from_meta(&Meta { format, data, ..m.clone() }).is_err(), "{format} {data:?}");
        }
    }

    #[test]
    fn queue_settings_are_stored_from_format_4() {
        let mut c = spec().into_config().unwrap();
        c.queue = QueueSettings { max_sectors_kb: 64, zoned_qd1_writes: true };
        let m = c.to_meta(DataMode::Files);
        assert_eq!(DeviceConfig::from_meta(&m).unwrap().queue, c.queue);
        // Format 3 has none: the kernel's defaults for the drive.
        let old = Meta { format: 3, queue: None, rotational: true, ..m.clone() };
        assert_eq!(DeviceConfig::from_meta(&old).unwrap().queue, QueueSettings::defaults(true));
        for (format, queue) in [(3, m.queue), (4, None)] {
            assert!(DeviceConfig::from_meta(&Meta { format, queue, ..m.clone() }).is_err(), "{format} {queue:?}");
        }
        let tiny = Meta { queue: Some(StoredQueue { max_sectors_kb: 2, zoned_qd1_writes: false }), ..m };
        assert!(DeviceConfig::from_meta(&tiny).unwrap_err().contains("max_sectors_kb 2"));
    }

    #[test]
    fn rejects_bad_specs() {
        assert!(matches!(
            GeometrySpec { zone_size: 3 << 20, ..spec() }.into_config(),
            Err(GeometryError::ZoneSizeNotPowerOfTwo(_))
        ));
        assert!(matches!(
            GeometrySpec { zone_capacity: Some(8 << 20), ..spec() }.into_config(),
            Err(GeometryError::CapacityLargerThanSize { .. })
        ));
        assert!(GeometrySpec { max_open: 9, ..spec() }.into_config().is_err());
        // Bytes that are not whole sectors are named in bytes ("0 sectors" was the rounded count).
        let e = GeometrySpec { zone_size: 256, ..spec() }.into_config().unwrap_err();
        assert_eq!(e.to_string(), "zone size of 256 bytes is not a whole number of 512-byte sectors");
        let e = GeometrySpec { zone_capacity: Some(1000), ..spec() }.into_config().unwrap_err();
        assert_eq!(e.to_string(), "zone capacity of 1000 bytes is not a whole number of 512-byte sectors");
        let zns = GeometrySpec { max_open: 0, max_active: 3, personality: Personality::Zns, ..spec() };
        assert_eq!(zns.into_config().unwrap().limits.max_open, 3, "QEMU: open limit = active limit");
        let mut m = spec().into_config().unwrap().to_meta(DataMode::Files);
        m.max_open = 100;
        assert!(DeviceConfig::from_meta(&m).is_err());
    }
}
