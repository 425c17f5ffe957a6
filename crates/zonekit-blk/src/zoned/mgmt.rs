//! Zone management ranges as `blkdev_zone_mgmt` (`block/blk-zoned.c`) issues them: the range is
//! checked (`EINVAL`), a reset of the whole device becomes one `REQ_OP_ZONE_RESET_ALL`, and any
//! other range one command per zone, in ascending order, each carried out whatever happened to the
//! ones before (the bios are chained, not stopped). The range fails with the errno [`range_errno`]
//! picks from the zones that failed.

use super::limits::QueueLimits;
use zonekit_core::{Errno, ZoneOp};

/// Why a management range is refused before any command is issued (`EINVAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MgmtError {
    /// Empty, wrapping, or ending past the device end.
    #[error("range of {nr} sectors at sector {sector}: empty or past the end of the device ({capacity} sectors)")]
    OutOfRange {
        /// Start sector.
        sector: u64,
        /// Sectors.
        nr: u64,
        /// Device capacity in sectors.
        capacity: u64,
    },
    /// Not starting on a zone, or its length not whole zones and not ending at the device end.
    #[error("range of {nr} sectors at sector {sector}: not aligned to the zone size ({zone_size} sectors)")]
    Unaligned {
        /// Start sector.
        sector: u64,
        /// Sectors.
        nr: u64,
        /// Zone size in sectors.
        zone_size: u64,
    },
}

impl MgmtError {
    /// The errno the ioctl returns: `EINVAL`.
    pub fn errno(&self) -> Errno {
        Errno::EINVAL
    }
}

/// One command a management range is issued as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MgmtCommand {
    /// `op` on the zone of `nr` sectors starting at `sector` (the last zone may be shorter).
    Zone {
        /// The operation.
        op: ZoneOp,
        /// The zone's first sector.
        sector: u64,
        /// The zone's length in sectors.
        nr: u64,
    },
    /// `REQ_OP_ZONE_RESET_ALL`: reset every sequential zone that can be reset, skipping the
    /// others. A device takes it as a reset of its whole capacity.
    ResetAll,
}

/// The commands of a checked management range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MgmtPlan {
    /// A reset of the whole device: one reset-all.
    ResetAll,
    /// One command per zone of `[sector, end)`.
    Zones {
        /// The operation.
        op: ZoneOp,
        /// First sector (a zone start).
        sector: u64,
        /// End sector (a zone boundary, or the device end).
        end: u64,
        /// Zone size in sectors.
        zone_size: u64,
    },
}

impl MgmtPlan {
    /// The commands, in the order they are issued.
    pub fn commands(&self) -> impl Iterator<Item = MgmtCommand> + '_ {
        let (all, zones) = match *self {
            MgmtPlan::ResetAll => (true, None),
            MgmtPlan::Zones { op, sector, end, zone_size } => (false, Some((op, sector, end, zone_size))),
        };
        let all = all.then_some(MgmtCommand::ResetAll).into_iter();
        let per_zone = zones.into_iter().flat_map(|(op, sector, end, zone_size)| {
            (sector..end).step_by(zone_size.max(1) as usize).map(move |s| MgmtCommand::Zone {
                op,
                sector: s,
                nr: zone_size.min(end - s),
            })
        });
        all.chain(per_zone)
    }

    /// How many commands it issues.
    pub fn len(&self) -> u64 {
        match *self {
            MgmtPlan::ResetAll => 1,
            MgmtPlan::Zones { sector, end, zone_size, .. } => (end - sector).div_ceil(zone_size.max(1)),
        }
    }

    /// Whether it issues no command (never true for a checked range).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Check `op` over `[sector, sector + nr)` as `blkdev_zone_mgmt` does and plan its commands: the
/// range must be non-empty and inside the device, start on a zone, and be whole zones or end at
/// the device end (a smaller last zone); a reset from sector 0 over the whole capacity is one
/// reset-all.
pub fn plan(limits: &QueueLimits, op: ZoneOp, sector: u64, nr: u64) -> Result<MgmtPlan, MgmtError> {
    let capacity = limits.capacity;
    let zone_size = limits.chunk_sectors.max(1);
    let end = sector.checked_add(nr).filter(|&e| e > sector && e <= capacity);
    let Some(end) = end else {
        return Err(MgmtError::OutOfRange { sector, nr, capacity });
    };
    if !sector.is_multiple_of(zone_size) || (!nr.is_multiple_of(zone_size) && end != capacity) {
        return Err(MgmtError::Unaligned { sector, nr, zone_size });
    }
    if op == ZoneOp::Reset && sector == 0 && end == capacity {
        return Ok(MgmtPlan::ResetAll);
    }
    Ok(MgmtPlan::Zones { op, sector, end, zone_size })
}

/// The errno of a management range some of whose zones failed (`failed`: each failing zone's
/// first sector and errno, in ascending order), or `None` if none failed.
///
/// `blkdev_zone_mgmt` chains each zone's bio to the next one's (`blk_next_bio`) and waits for the
/// last: an earlier zone's error reaches the next bio only when it has none of its own, and a
/// zone's own failure overwrites it, so the range returns the errno of the last zone that failed.
/// Linux 6.1 shows this; the rule lives here alone so that a kernel that differs changes one line.
pub fn range_errno(failed: &[(u64, Errno)]) -> Option<Errno> {
    failed.last().map(|&(_, e)| e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zoned::limits::ZoneAppendMode;

    fn limits(capacity: u64, zone: u64) -> QueueLimits {
        QueueLimits {
            zoned: "host-managed".into(),
            capacity,
            logical_block_size: 512,
            physical_block_size: 512,
            chunk_sectors: zone,
            nr_zones: capacity.div_ceil(zone) as u32,
            max_open_zones: 0,
            max_active_zones: 0,
            zone_append: ZoneAppendMode::Native,
            zone_append_max_bytes: 0,
            zone_write_granularity: 512,
            max_sectors_kb: 1280,
            max_sectors: 2560,
            zoned_qd1_writes: false,
        }
    }

    #[test]
    fn a_smaller_last_zone_ends_the_range() {
        let l = limits(480, 64);
        let p = plan(&l, ZoneOp::Close, 384, 96).unwrap();
        let cmds: Vec<MgmtCommand> = p.commands().collect();
        assert_eq!(
            cmds,
            [
                MgmtCommand::Zone { op: ZoneOp::Close, sector: 384, nr: 64 },
                MgmtCommand::Zone { op: ZoneOp::Close, sector: 448, nr: 32 }
            ]
        );
        assert_eq!(p.len(), 2);
        assert_eq!(plan(&l, ZoneOp::Reset, 0, 480), Ok(MgmtPlan::ResetAll));
        assert!(matches!(plan(&l, ZoneOp::Reset, 448, 64), Err(MgmtError::OutOfRange { .. })));
        assert!(matches!(plan(&l, ZoneOp::Reset, u64::MAX - 10, 64), Err(MgmtError::OutOfRange { .. })));
        assert!(matches!(plan(&l, ZoneOp::Reset, 64, 32), Err(MgmtError::Unaligned { .. })));
    }

    #[test]
    fn the_last_failing_zone_gives_the_errno() {
        assert_eq!(range_errno(&[]), None);
        assert_eq!(range_errno(&[(64, Errno::EIO), (128, Errno::ETOOMANYREFS)]), Some(Errno::ETOOMANYREFS));
    }
}
