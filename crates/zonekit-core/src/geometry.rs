//! Device geometry (zone layout) and zone resource limits.

use crate::error::GeometryError;
use crate::units::SECTOR_SIZE;
use crate::zone::ZoneType;
use serde::Serialize;

/// The zone layout of a device; every size in 512-byte sectors.
///
/// Invariants (checked by [`Geometry::new`]): `zone_size > 0`; `0 < zone_capacity ≤ zone_size`;
/// sizes are multiples of the logical block size; `capacity ≥ zone_size`; at least one sequential
/// zone; a last zone smaller than `zone_size` only when `zone_capacity == zone_size` (null_blk's rule).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Geometry {
    /// Device capacity in sectors (the sum of all zone lengths).
    pub capacity: u64,
    /// Zone size in sectors (every zone but possibly the last, which may be shorter).
    pub zone_size: u64,
    /// Writable sectors of each sequential zone (≤ `zone_size`).
    pub zone_capacity: u64,
    /// Number of zones.
    pub nr_zones: u32,
    /// Number of conventional zones, at the start of the device.
    pub nr_conv_zones: u32,
    /// Logical block size in bytes (512 or 4096): the alignment of every I/O.
    pub logical_block_size: u32,
    /// Physical block size in bytes.
    pub physical_block_size: u32,
    /// Type of the non-conventional zones (sequential write required or preferred).
    pub seq_zone_type: ZoneType,
}

/// The most zones a device may have. Each zone's state is kept in memory (tens of bytes a zone,
/// allocated at open), so an absurd count (`--zones 1000000000`) would exhaust memory instead of
/// being refused; 16 Mi zones is 4 PiB of 256 MiB zones or 64 GiB of 4 KiB ones, where the largest
/// built-in drive has 111,760.
pub const MAX_ZONES: u32 = 1 << 24;

impl Geometry {
    /// Build and check a geometry from the device capacity; the zone count is
    /// `ceil(capacity / zone_size)`, so the last zone may be shorter.
    pub fn new(
        capacity: u64,
        zone_size: u64,
        zone_capacity: u64,
        nr_conv_zones: u32,
        logical_block_size: u32,
    ) -> Result<Geometry, GeometryError> {
        if logical_block_size != 512 && logical_block_size != 4096 {
            return Err(GeometryError::BlockSize(logical_block_size));
        }
        let lbs_sectors = u64::from(logical_block_size) / SECTOR_SIZE;
        if zone_size == 0 {
            return Err(GeometryError::ZoneSizeZero);
        }
        if !zone_size.is_multiple_of(lbs_sectors) {
            return Err(GeometryError::ZoneSizeUnaligned { zone_size, logical_block_size });
        }
        if zone_capacity == 0 || !zone_capacity.is_multiple_of(lbs_sectors) {
            return Err(GeometryError::ZoneCapacityUnaligned { zone_capacity, logical_block_size });
        }
        if zone_capacity > zone_size {
            return Err(GeometryError::CapacityLargerThanSize { zone_capacity, zone_size });
        }
        if capacity < zone_size {
            return Err(GeometryError::DeviceSmallerThanZone { capacity, zone_size });
        }
        let capacity = capacity - capacity % lbs_sectors;
        let nr_zones = capacity.div_ceil(zone_size);
        if nr_zones > u64::from(MAX_ZONES) {
            return Err(GeometryError::TooManyZones(nr_zones));
        }
        let nr_zones = nr_zones as u32;
        if !capacity.is_multiple_of(zone_size) && zone_capacity < zone_size {
            return Err(GeometryError::SmallerLastZoneWithCapacity);
        }
        if nr_conv_zones >= nr_zones {
            return Err(GeometryError::NoSequentialZones { nr_conv_zones, nr_zones });
        }
        Ok(Geometry {
            capacity,
            zone_size,
            zone_capacity,
            nr_zones,
            nr_conv_zones,
            logical_block_size,
            physical_block_size: logical_block_size,
            seq_zone_type: ZoneType::SeqWriteRequired,
        })
    }

    /// Build a geometry of `nr_zones` zones of `zone_size` sectors (no smaller last zone).
    pub fn with_zones(
        zone_size: u64,
        nr_zones: u32,
        zone_capacity: u64,
        nr_conv_zones: u32,
        logical_block_size: u32,
    ) -> Result<Geometry, GeometryError> {
        if nr_zones == 0 {
            return Err(GeometryError::NoZones);
        }
        let capacity =
            zone_size.checked_mul(u64::from(nr_zones)).ok_or(GeometryError::TooManyZones(u64::from(nr_zones)))?;
        Geometry::new(capacity, zone_size, zone_capacity, nr_conv_zones, logical_block_size)
    }

    /// Number of sequential zones.
    pub fn nr_seq_zones(&self) -> u32 {
        self.nr_zones - self.nr_conv_zones
    }

    /// Logical block size in sectors.
    pub fn lbs_sectors(&self) -> u64 {
        u64::from(self.logical_block_size) / SECTOR_SIZE
    }

    /// Index of the zone holding `sector`, or `None` past the end.
    #[inline]
    pub fn zone_index(&self, sector: u64) -> Option<u32> {
        (sector < self.capacity).then(|| (sector / self.zone_size) as u32)
    }

    /// First sector of zone `idx`.
    #[inline]
    pub fn zone_start(&self, idx: u32) -> u64 {
        u64::from(idx) * self.zone_size
    }

    /// Length of zone `idx` (the last zone may be shorter).
    #[inline]
    pub fn zone_len(&self, idx: u32) -> u64 {
        let start = self.zone_start(idx);
        self.zone_size.min(self.capacity - start)
    }

    /// Writable sectors of zone `idx`: its length for a conventional zone, else
    /// `min(zone_capacity, len)`.
    #[inline]
    pub fn zone_cap(&self, idx: u32) -> u64 {
        let len = self.zone_len(idx);
        if self.is_conventional(idx) { len } else { self.zone_capacity.min(len) }
    }

    /// Whether zone `idx` is conventional.
    #[inline]
    pub fn is_conventional(&self, idx: u32) -> bool {
        idx < self.nr_conv_zones
    }

    /// Type of zone `idx`.
    pub fn zone_type(&self, idx: u32) -> ZoneType {
        if self.is_conventional(idx) { ZoneType::Conventional } else { self.seq_zone_type }
    }

    /// Capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity * SECTOR_SIZE
    }
}

/// Zone resource limits, as `/sys/block/X/queue/{max_open_zones,max_active_zones,...}` state them.
/// Zero means no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Limits {
    /// Maximum number of open (implicitly or explicitly) sequential zones; 0 = no limit.
    pub max_open: u32,
    /// Maximum number of active (open or closed) sequential zones; 0 = no limit.
    pub max_active: u32,
    /// Largest zone append in sectors; 0 = zone append not supported.
    pub max_append_sectors: u64,
}

impl Limits {
    /// Check and normalise limits as null_blk does (`null_init_zoned_dev`): a limit at or above the
    /// number of sequential zones cannot be reached and is dropped (reported as 0). Unlike
    /// null_blk, which silently lowers it, `max_open > max_active` is an error.
    pub fn normalized(self, geometry: &Geometry) -> Result<Limits, GeometryError> {
        let nr_seq = geometry.nr_seq_zones();
        if self.max_active != 0 && self.max_open > self.max_active {
            return Err(GeometryError::OpenAboveActive { max_open: self.max_open, max_active: self.max_active });
        }
        let max_active = if self.max_active >= nr_seq { 0 } else { self.max_active };
        let max_open = if self.max_open >= nr_seq { 0 } else { self.max_open };
        let max_append_sectors = self.max_append_sectors.min(geometry.zone_capacity);
        let max_append_sectors = max_append_sectors - max_append_sectors % geometry.lbs_sectors();
        Ok(Limits { max_open, max_active, max_append_sectors })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smaller_last_zone() {
        let g = Geometry::new(1000, 256, 256, 1, 512).unwrap();
        assert_eq!(g.nr_zones, 4);
        assert_eq!(g.zone_len(3), 1000 - 768);
        assert_eq!(g.zone_cap(3), 1000 - 768);
        assert_eq!(g.zone_index(999), Some(3));
        assert_eq!(g.zone_index(1000), None);
        assert_eq!(g.zone_cap(0), 256);
    }

    #[test]
    fn rejects_bad_geometry() {
        assert!(matches!(Geometry::new(1024, 256, 512, 0, 512), Err(GeometryError::CapacityLargerThanSize { .. })));
        assert!(matches!(Geometry::new(1000, 256, 128, 0, 512), Err(GeometryError::SmallerLastZoneWithCapacity)));
        assert!(matches!(Geometry::new(100, 256, 256, 0, 512), Err(GeometryError::DeviceSmallerThanZone { .. })));
        assert!(matches!(Geometry::new(1024, 4, 4, 0, 4096), Err(GeometryError::ZoneSizeUnaligned { .. })));
        assert!(matches!(Geometry::new(1024, 256, 256, 4, 512), Err(GeometryError::NoSequentialZones { .. })));
        assert!(matches!(Geometry::new(1024, 256, 256, 0, 1024), Err(GeometryError::BlockSize(1024))));
        assert!(matches!(Geometry::with_zones(256, 0, 256, 0, 512), Err(GeometryError::NoZones)));
    }

    #[test]
    fn limits_normalisation() {
        let g = Geometry::with_zones(256, 10, 256, 2, 512).unwrap();
        let l = Limits { max_open: 8, max_active: 8, max_append_sectors: 1 << 20 }.normalized(&g).unwrap();
        assert_eq!((l.max_open, l.max_active, l.max_append_sectors), (0, 0, 256));
        let l = Limits { max_open: 2, max_active: 3, max_append_sectors: 0 }.normalized(&g).unwrap();
        assert_eq!((l.max_open, l.max_active), (2, 3));
        assert!(Limits { max_open: 4, max_active: 3, max_append_sectors: 0 }.normalized(&g).is_err());
    }
}
