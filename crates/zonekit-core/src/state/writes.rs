//! I/O through the zone state machine: writes and zone appends (checked in the order the
//! personality's device checks them), and reads split at the write pointer.

use super::{Action, Failed, ReadSegment, Rejection, Transition, ZoneTable};
use crate::error::{ZoneError, ZoneErrorKind};
use crate::personality::WriteCheckOrder;
use crate::zone::{ZoneCond, ZoneType};

impl ZoneTable {
    /// Write `nr` sectors at `sector`: check it, run `effect` (the data transfer), then move the
    /// write pointer. Nothing changes if either fails (but see [`Failed`]).
    pub fn write<E>(
        &mut self,
        sector: u64,
        nr: u64,
        effect: impl FnOnce(&Transition) -> Result<(), E>,
    ) -> Result<Transition, Failed<E>> {
        let plan = self.plan_write(sector, nr, false);
        self.apply(plan, effect)
    }

    /// Zone append of `nr` sectors to the zone starting at `sector`: the data lands at the write
    /// pointer, returned in the transition's [`Action::Write`] `sector`.
    pub fn append<E>(
        &mut self,
        sector: u64,
        nr: u64,
        effect: impl FnOnce(&Transition) -> Result<(), E>,
    ) -> Result<Transition, Failed<E>> {
        let plan = self.plan_write(sector, nr, true);
        self.apply(plan, effect)
    }

    /// Check a read of `nr` sectors at `sector` and split it per zone into data and fill.
    pub fn read(&self, sector: u64, nr: u64) -> Result<Vec<ReadSegment>, ZoneError> {
        let g = &self.geometry;
        let end = self.check_io_range(sector, nr)?;
        let mut out = Vec::with_capacity(1);
        let mut s = sector;
        while s < end {
            let idx = (s / g.zone_size) as u32;
            let zend = (g.zone_start(idx) + g.zone_len(idx)).min(end);
            let slot = &self.slots[idx as usize];
            if slot.cond == ZoneCond::Offline {
                return Err(ZoneError::new(ZoneErrorKind::Offline, Some(idx), s));
            }
            let valid = if g.is_conventional(idx) { zend - s } else { slot.wp.clamp(s, zend) - s };
            out.push(ReadSegment { zone: idx, sector: s, nr: zend - s, valid });
            s = zend;
        }
        Ok(out)
    }

    /// Sectors of a read of `nr` sectors at `sector` that hold data (below a write pointer, or in
    /// a conventional, read-only or full zone): what a drive reads from its media. Without
    /// allocating, for timing models; 0 for a read the device refuses.
    pub fn media_sectors(&self, sector: u64, nr: u64) -> u64 {
        let g = &self.geometry;
        let Ok(end) = self.check_io_range(sector, nr) else { return 0 };
        let mut media = 0;
        let mut s = sector;
        while s < end {
            let idx = (s / g.zone_size) as u32;
            let zend = (g.zone_start(idx) + g.zone_len(idx)).min(end);
            let slot = &self.slots[idx as usize];
            if slot.cond == ZoneCond::Offline {
                return 0;
            }
            media += if g.is_conventional(idx) { zend - s } else { slot.wp.clamp(s, zend) - s };
            s = zend;
        }
        media
    }

    /// A read or write command must be non-empty, inside the device and in whole logical blocks:
    /// the device refuses any other (with its transport's errno). The block layer never sends one;
    /// its own checks (`EINVAL`, the cut at the device end) are `zonekit-blk`'s.
    pub(super) fn check_io_range(&self, sector: u64, nr: u64) -> Result<u64, ZoneError> {
        let g = &self.geometry;
        let zone = g.zone_index(sector);
        let end = sector.checked_add(nr).filter(|&e| nr > 0 && e <= g.capacity);
        let Some(end) = end else {
            return Err(ZoneError::new(ZoneErrorKind::OutOfRange, zone, sector));
        };
        let lbs = g.lbs_sectors();
        if !sector.is_multiple_of(lbs) || !nr.is_multiple_of(lbs) {
            return Err(ZoneError::new(ZoneErrorKind::Unaligned, zone, sector));
        }
        Ok(end)
    }

    pub(super) fn plan_write(&self, sector: u64, nr: u64, append: bool) -> Result<Transition, Rejection> {
        use ZoneErrorKind::*;
        let g = &self.geometry;
        let end = self.check_io_range(sector, nr)?;
        let idx = (sector / g.zone_size) as u32;
        let err = |kind| ZoneError::new(kind, Some(idx), sector);
        let start = g.zone_start(idx);
        let zone_end = start + g.zone_len(idx);
        let slot = self.slots[idx as usize];
        if append {
            // blk_check_zone_append: a sequential zone's start, no split.
            if g.is_conventional(idx) || sector != start {
                return Err(err(AppendNotZoneStart).into());
            }
            if nr > g.zone_size || nr > self.limits.max_append_sectors {
                return Err(err(AppendTooLarge).into());
            }
        }
        if g.is_conventional(idx) {
            // Conventional zones take random writes; a write may span several of them (the block
            // layer splits it), but not run into a sequential zone.
            if end > g.zone_start(g.nr_conv_zones) {
                return Err(err(BoundaryCrossing).into());
            }
            return Ok(Transition {
                zone: idx,
                action: Action::Write { sector, nr, append: false },
                from: slot.cond,
                to: slot.cond,
                old_wp: slot.wp,
                new_wp: slot.wp,
                evict: None,
                non_seq: false,
            });
        }
        let cap_end = start + g.zone_cap(idx);
        let check_cond = || match slot.cond {
            ZoneCond::Offline => Err(err(Offline)),
            ZoneCond::ReadOnly => Err(err(ReadOnly)),
            ZoneCond::Full => Err(err(ZoneFull)),
            _ => Ok(()),
        };
        // The write's own range: across the zone end, or past the capacity (into the gap zone
        // that scsi_debug places after the capacity).
        let check_boundary = || {
            if end > zone_end {
                Err(err(BoundaryCrossing))
            } else if end > cap_end {
                Err(err(PastCapacity))
            } else {
                Ok(())
            }
        };
        let mut non_seq = slot.non_seq;
        if append {
            // The data lands at the write pointer, which is only valid once the condition is.
            check_cond()?;
            if slot.wp + nr > cap_end {
                return Err(err(PastCapacity).into());
            }
        } else {
            if self.rules.write_check_order == WriteCheckOrder::RangeFirst {
                check_boundary()?;
            }
            check_cond()?;
            if sector != slot.wp {
                if g.zone_type(idx) == ZoneType::SeqWritePreferred {
                    non_seq = true;
                } else {
                    return Err(err(NotWritePointer).into());
                }
            }
            check_boundary()?;
        }
        let write_at = if append { slot.wp } else { sector };
        let evict = match slot.cond {
            ZoneCond::Empty | ZoneCond::Closed => self.check_resources(idx, slot.cond, sector)?,
            _ => None,
        };
        let new_wp = slot.wp.max(write_at + nr);
        let to = if new_wp == cap_end {
            ZoneCond::Full
        } else if slot.cond == ZoneCond::ExplicitOpen {
            ZoneCond::ExplicitOpen
        } else {
            ZoneCond::ImplicitOpen
        };
        Ok(Transition {
            zone: idx,
            action: Action::Write { sector: write_at, nr, append },
            from: slot.cond,
            to,
            old_wp: slot.wp,
            new_wp,
            evict,
            non_seq,
        })
    }
}
