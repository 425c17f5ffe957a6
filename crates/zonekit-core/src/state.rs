//! The zone state machine: the single source of truth for what an I/O or a zone management
//! operation does to a device's zones, and which kind of error it is when it is refused.
//!
//! [`ZoneTable`] holds every zone's condition and write pointer plus the open/active accounting of
//! the device. Each operation is computed as a [`Transition`], handed to an *effect* closure (the
//! device's data path: write the bytes, discard a zone's data, record a finished zone) and applied
//! only if the effect succeeds, so the table never claims data that the store did not take.
//!
//! The rules follow the Linux kernel's null_blk (`drivers/block/null_blk/zoned.c`) and the block
//! layer's checks; [`Personality`] selects the ZBC (scsi_debug / tcmu-runner) and ZNS (QEMU)
//! variations. `docs/devices.md` tabulates every transition.

use crate::error::{ZoneError, ZoneErrorKind};
use crate::geometry::{Geometry, Limits};
use crate::personality::{EvictionPolicy, Personality};
use crate::zone::{Zone, ZoneCond, ZoneType};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// The write pointer value of read-only and offline zones (`NULL_ZONE_INVALID_WP`).
pub const INVALID_WP: u64 = u64::MAX;

/// A zone management operation (`REQ_OP_ZONE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZoneOp {
    /// Explicitly open (`BLKOPENZONE`).
    Open,
    /// Close (`BLKCLOSEZONE`).
    Close,
    /// Finish: make the zone full (`BLKFINISHZONE`).
    Finish,
    /// Reset the write pointer (`BLKRESETZONE`).
    Reset,
}

impl ZoneOp {
    /// Every operation.
    pub const ALL: [ZoneOp; 4] = [ZoneOp::Open, ZoneOp::Close, ZoneOp::Finish, ZoneOp::Reset];

    /// Lower-case name (`reset`), as blkzone's commands are named.
    pub fn name(self) -> &'static str {
        match self {
            ZoneOp::Open => "open",
            ZoneOp::Close => "close",
            ZoneOp::Finish => "finish",
            ZoneOp::Reset => "reset",
        }
    }
}

/// What a transition does, for the device's data path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Write `nr` sectors at `sector` (for a zone append, `sector` is where the data lands).
    Write {
        /// First sector written.
        sector: u64,
        /// Sectors written.
        nr: u64,
        /// Whether this was a zone append.
        append: bool,
    },
    /// A zone management operation.
    Mgmt(ZoneOp),
    /// A condition injected by the device (read-only or offline), or a return to empty from it.
    SetCond(ZoneCond),
}

/// A computed change to one zone. Effects look at it before it is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    /// The zone changed (the first zone for a write spanning conventional zones).
    pub zone: u32,
    /// What is done.
    pub action: Action,
    /// Condition before.
    pub from: ZoneCond,
    /// Condition after.
    pub to: ZoneCond,
    /// Write pointer before.
    pub old_wp: u64,
    /// Write pointer after.
    pub new_wp: u64,
    /// An implicitly open zone closed first to make room under the open limit.
    pub evict: Option<u32>,
    /// Set when a host-aware zone is written away from its write pointer.
    pub non_seq: bool,
}

impl Transition {
    /// Whether the zone's data is discarded: a reset of a zone that held data, or a return to
    /// empty from read-only or offline.
    pub fn discards_data(&self) -> bool {
        match self.action {
            Action::Mgmt(ZoneOp::Reset) => self.from != ZoneCond::Empty,
            Action::SetCond(ZoneCond::Empty) => true,
            _ => false,
        }
    }
}

/// An operation refused: the error, and any implicitly open zone that the device closed before
/// refusing (QEMU's auto-transition closes first and checks the limits after).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rejection {
    error: ZoneError,
    evict: Option<u32>,
}

impl From<ZoneError> for Rejection {
    fn from(error: ZoneError) -> Self {
        Rejection { error, evict: None }
    }
}

/// Why an operation failed: a zone rule, or the device's effect (store I/O).
#[derive(Debug, PartialEq, Eq)]
pub enum Failed<E> {
    /// The state machine refused it.
    Zone(ZoneError),
    /// The effect failed; the table is unchanged.
    Effect(E),
}

/// One zone-sized piece of a read: sectors below the write pointer come from the store, the rest
/// is the personality's fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadSegment {
    /// Zone read.
    pub zone: u32,
    /// First sector of this piece.
    pub sector: u64,
    /// Sectors in this piece.
    pub nr: u64,
    /// Leading sectors of this piece that hold data (the rest read as fill).
    pub valid: u64,
}

/// Zones a management range covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MgmtTarget {
    /// These zones, in order; the operation stops at the first failure.
    Zones(Range<u32>),
    /// The whole device with [`ZoneOp::Reset`]: `REQ_OP_ZONE_RESET_ALL`, which skips conventional,
    /// empty, read-only and offline zones instead of failing on them.
    ResetAll,
}

/// Open/active accounting of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// Implicitly open zones.
    pub imp_open: u32,
    /// Explicitly open zones.
    pub exp_open: u32,
    /// Closed zones.
    pub closed: u32,
}

impl Counters {
    /// Open zones.
    pub fn open(&self) -> u32 {
        self.imp_open + self.exp_open
    }

    /// Active zones (open or closed).
    pub fn active(&self) -> u32 {
        self.open() + self.closed
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    wp: u64,
    cond: ZoneCond,
    non_seq: bool,
    /// When the zone last became implicitly open (ZNS eviction order).
    opened_at: u64,
}

/// Every zone of a device and the device's open/active accounting.
#[derive(Debug, Clone)]
pub struct ZoneTable {
    geometry: Geometry,
    limits: Limits,
    personality: Personality,
    slots: Vec<Slot>,
    counters: Counters,
    /// Implicitly open zones by number (round-robin and lowest-numbered eviction).
    imp_open: BTreeSet<u32>,
    /// Implicitly open zones by the time they opened (oldest-first eviction).
    imp_open_order: BTreeMap<u64, u32>,
    clock: u64,
    /// null_blk's `imp_close_zone_no`.
    rr_cursor: u32,
}

impl ZoneTable {
    /// A fresh device: conventional zones not-write-pointer, sequential zones empty.
    pub fn new(geometry: Geometry, limits: Limits, personality: Personality) -> ZoneTable {
        let slots = (0..geometry.nr_zones)
            .map(|i| {
                if geometry.is_conventional(i) {
                    let start = geometry.zone_start(i);
                    Slot { wp: start + geometry.zone_len(i), cond: ZoneCond::NotWp, non_seq: false, opened_at: 0 }
                } else {
                    Slot { wp: geometry.zone_start(i), cond: ZoneCond::Empty, non_seq: false, opened_at: 0 }
                }
            })
            .collect();
        let rr_cursor = geometry.nr_conv_zones;
        ZoneTable {
            geometry,
            limits,
            personality,
            slots,
            counters: Counters::default(),
            imp_open: BTreeSet::new(),
            imp_open_order: BTreeMap::new(),
            clock: 0,
            rr_cursor,
        }
    }

    /// The device geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The device limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The personality.
    pub fn personality(&self) -> Personality {
        self.personality
    }

    /// Current open/active accounting.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Zone `idx` as a report describes it. Panics if `idx` is out of range (a caller bug).
    ///
    /// A full zone of a SCSI or NVMe device reports its write pointer at the zone end, as the
    /// kernel's `sd_zbc` and `nvme` drivers present it; null_blk reports its own value. A SCSI
    /// conventional zone reports an all-ones write pointer (in sectors), as scsi_debug and drives
    /// do; null_blk's reports the zone end.
    pub fn zone(&self, idx: u32) -> Zone {
        let s = &self.slots[idx as usize];
        let g = &self.geometry;
        let start = g.zone_start(idx);
        let len = g.zone_len(idx);
        let wp = match s.cond {
            ZoneCond::Full if self.personality != Personality::NullBlk => start + len,
            // A SCSI drive's WRITE POINTER field is all ones in a conventional zone's descriptor; the
            // kernel's sd driver converts it from logical blocks to sectors like any other.
            ZoneCond::NotWp if self.personality == Personality::Zbc => u64::MAX << g.lbs_sectors().trailing_zeros(),
            _ => s.wp,
        };
        Zone {
            start,
            len,
            capacity: g.zone_cap(idx),
            wp,
            zone_type: g.zone_type(idx),
            cond: s.cond,
            non_seq: s.non_seq,
            reset: false,
        }
    }

    /// Zones from the one holding `sector`, at most `max` of them.
    pub fn report(&self, sector: u64, max: usize) -> impl Iterator<Item = Zone> + '_ {
        let first = self.geometry.zone_index(sector).unwrap_or(self.geometry.nr_zones);
        (first..self.geometry.nr_zones).take(max).map(|i| self.zone(i))
    }

    /// Restore a zone's state when reopening a persistent device. Open zones come back closed (as
    /// the kernel's zoned loop driver does); the caller checks `wp` against its data first.
    pub fn restore_zone(&mut self, idx: u32, cond: ZoneCond, wp: u64) -> Result<(), String> {
        let g = &self.geometry;
        if idx >= g.nr_zones {
            return Err(format!("zone {idx} is past the last zone"));
        }
        let (start, cap, len) = (g.zone_start(idx), g.zone_cap(idx), g.zone_len(idx));
        if g.is_conventional(idx) {
            return if cond == ZoneCond::NotWp {
                Ok(())
            } else {
                Err(format!("conventional zone {idx} cannot be {cond}"))
            };
        }
        let cond = match cond {
            ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen | ZoneCond::Closed | ZoneCond::Empty => {
                if wp < start || wp > start + cap {
                    return Err(format!("zone {idx}: write pointer {wp} outside [{start}, {}]", start + cap));
                }
                if wp == start {
                    ZoneCond::Empty
                } else if wp == start + cap {
                    ZoneCond::Full
                } else {
                    ZoneCond::Closed
                }
            }
            ZoneCond::Full => ZoneCond::Full,
            ZoneCond::ReadOnly | ZoneCond::Offline => cond,
            ZoneCond::NotWp => return Err(format!("sequential zone {idx} cannot be not-write-pointer")),
        };
        let wp = match cond {
            ZoneCond::Full if wp < start || wp > start + len => start + len,
            ZoneCond::ReadOnly | ZoneCond::Offline => INVALID_WP,
            _ => wp,
        };
        self.set_cond(idx, cond);
        self.slots[idx as usize].wp = wp;
        Ok(())
    }

    // ----- I/O -----

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

    fn check_io_range(&self, sector: u64, nr: u64) -> Result<u64, ZoneError> {
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

    fn plan_write(&self, sector: u64, nr: u64, append: bool) -> Result<Transition, Rejection> {
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
            // Which rule a bad write breaks first: scsi_debug (check_zbc_access_params) checks the
            // boundary, then FULL, then the write pointer; QEMU (nvme_check_zone_write) the zone
            // state, then the write pointer, then the boundary. null_blk fails all of them with
            // one IOERR, testing the write pointer first, and is classified as QEMU is.
            if self.personality == Personality::Zbc {
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

    // ----- zone management -----

    /// Check a management range as the block layer's `blkdev_zone_mgmt` does (zone-aligned start,
    /// non-empty, inside the device; the length may end at the device end instead of a zone
    /// boundary) and say which zones it covers. A reset of the whole device is a reset-all.
    pub fn mgmt_target(&self, op: ZoneOp, sector: u64, nr: u64) -> Result<MgmtTarget, ZoneError> {
        let g = &self.geometry;
        let zone = g.zone_index(sector);
        let end = sector.checked_add(nr).filter(|&e| e > sector && e <= g.capacity);
        let Some(end) = end else {
            return Err(ZoneError::new(ZoneErrorKind::OutOfRange, zone, sector));
        };
        if !sector.is_multiple_of(g.zone_size) || (!nr.is_multiple_of(g.zone_size) && end != g.capacity) {
            return Err(ZoneError::new(ZoneErrorKind::MgmtUnaligned, zone, sector));
        }
        if op == ZoneOp::Reset && sector == 0 && end == g.capacity {
            return Ok(MgmtTarget::ResetAll);
        }
        let first = (sector / g.zone_size) as u32;
        let last = end.div_ceil(g.zone_size) as u32;
        Ok(MgmtTarget::Zones(first..last))
    }

    /// Zones a reset-all acts on: sequential zones that are not empty, read-only or offline.
    pub fn reset_all_zones(&self) -> Vec<u32> {
        (self.geometry.nr_conv_zones..self.geometry.nr_zones)
            .filter(|&i| {
                !matches!(self.slots[i as usize].cond, ZoneCond::Empty | ZoneCond::ReadOnly | ZoneCond::Offline)
            })
            .collect()
    }

    /// Apply `op` to zone `idx`, running `effect` before the change is made.
    pub fn manage_zone<E>(
        &mut self,
        op: ZoneOp,
        idx: u32,
        effect: impl FnOnce(&Transition) -> Result<(), E>,
    ) -> Result<Transition, Failed<E>> {
        let plan = self.plan_mgmt(op, idx);
        self.apply(plan, effect)
    }

    /// Apply `op` over a range, zone by zone, stopping at the first failure (earlier zones keep
    /// their change). `effect` runs for each zone before its change.
    pub fn manage<E>(
        &mut self,
        op: ZoneOp,
        sector: u64,
        nr: u64,
        mut effect: impl FnMut(&Transition) -> Result<(), E>,
    ) -> Result<usize, Failed<E>> {
        let zones: Vec<u32> = match self.mgmt_target(op, sector, nr).map_err(Failed::Zone)? {
            MgmtTarget::ResetAll => self.reset_all_zones(),
            MgmtTarget::Zones(r) => r.collect(),
        };
        for &idx in &zones {
            self.manage_zone(op, idx, &mut effect)?;
        }
        Ok(zones.len())
    }

    fn plan_mgmt(&self, op: ZoneOp, idx: u32) -> Result<Transition, Rejection> {
        use ZoneErrorKind::*;
        let g = &self.geometry;
        let start = g.zone_start(idx);
        let err = |kind| ZoneError::new(kind, Some(idx), start);
        let slot = self.slots[idx as usize];
        let from = slot.cond;
        match from {
            ZoneCond::NotWp => return Err(err(Conventional).into()),
            ZoneCond::ReadOnly => return Err(err(ReadOnly).into()),
            ZoneCond::Offline => return Err(err(Offline).into()),
            _ => {}
        }
        let p = self.personality;
        let mut evict = None;
        let (to, new_wp) = match op {
            ZoneOp::Open => match from {
                ZoneCond::ExplicitOpen => (from, slot.wp),
                ZoneCond::Full => match p {
                    // scsi_debug: opening a full zone is a no-op.
                    Personality::Zbc => (from, slot.wp),
                    _ => return Err(err(InvalidTransition).into()),
                },
                ZoneCond::ImplicitOpen => (ZoneCond::ExplicitOpen, slot.wp),
                ZoneCond::Empty | ZoneCond::Closed => {
                    evict = self.check_resources(idx, from, start)?;
                    (ZoneCond::ExplicitOpen, slot.wp)
                }
                _ => unreachable!("filtered above"),
            },
            ZoneOp::Close => match from {
                ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen => (self.closed_cond(idx, slot.wp), slot.wp),
                ZoneCond::Closed => (from, slot.wp),
                ZoneCond::Empty | ZoneCond::Full => match p {
                    // scsi_debug: closing a zone that is not open is a no-op.
                    Personality::Zbc => (from, slot.wp),
                    _ => return Err(err(InvalidTransition).into()),
                },
                _ => unreachable!("filtered above"),
            },
            ZoneOp::Finish => {
                let full_wp = start + g.zone_len(idx);
                match from {
                    ZoneCond::Full => (from, slot.wp),
                    ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen => (ZoneCond::Full, full_wp),
                    ZoneCond::Empty | ZoneCond::Closed => {
                        // null_blk goes through the open resource check (ZNS: finish passes through
                        // an open state); scsi_debug and QEMU do not.
                        if p == Personality::NullBlk {
                            evict = self.check_resources(idx, from, start)?;
                        }
                        (ZoneCond::Full, full_wp)
                    }
                    _ => unreachable!("filtered above"),
                }
            }
            ZoneOp::Reset => (if from == ZoneCond::Empty { from } else { ZoneCond::Empty }, start),
        };
        Ok(Transition { zone: idx, action: Action::Mgmt(op), from, to, old_wp: slot.wp, new_wp, evict, non_seq: false })
    }

    /// Put a sequential zone in the read-only or offline condition, as null_blk's configfs
    /// `zone_readonly` / `zone_offline` do: the zone is finished first (freeing its resources),
    /// then marked, with an invalid write pointer. Asking again for the condition it already has
    /// returns it to empty, discarding its data.
    pub fn set_zone_cond<E>(
        &mut self,
        idx: u32,
        cond: ZoneCond,
        effect: impl FnOnce(&Transition) -> Result<(), E>,
    ) -> Result<Transition, Failed<E>> {
        let g = &self.geometry;
        let start = g.zone_start(idx);
        if !matches!(cond, ZoneCond::ReadOnly | ZoneCond::Offline) || g.is_conventional(idx) {
            return Err(Failed::Zone(ZoneError::new(ZoneErrorKind::Conventional, Some(idx), start)));
        }
        let slot = self.slots[idx as usize];
        let back_to_empty = slot.cond == cond;
        let t = Transition {
            zone: idx,
            action: Action::SetCond(if back_to_empty { ZoneCond::Empty } else { cond }),
            from: slot.cond,
            to: if back_to_empty { ZoneCond::Empty } else { cond },
            old_wp: slot.wp,
            new_wp: if back_to_empty { start } else { INVALID_WP },
            evict: None,
            non_seq: false,
        };
        effect(&t).map_err(Failed::Effect)?;
        if !back_to_empty && !matches!(slot.cond, ZoneCond::ReadOnly | ZoneCond::Offline) {
            // null_set_zone_cond finishes the zone first and ignores a failure: a closed zone whose
            // finish is refused for lack of open resources stays in the closed count (a null_blk
            // quirk, reproduced). A finish can only fail for empty and closed zones, which are not
            // in the implicitly-open sets, so only the counter is affected.
            if let Ok(fin) = self.plan_mgmt(ZoneOp::Finish, idx) {
                self.commit(&fin);
            }
        }
        // The condition changes without accounting: read-only and offline zones are never counted.
        self.slots[idx as usize].cond = t.to;
        self.slots[idx as usize].wp = t.new_wp;
        self.slots[idx as usize].non_seq = false;
        Ok(t)
    }

    // ----- resources -----

    /// Check the open/active limits for zone `idx` leaving `from` (empty or closed) towards an open
    /// state; returns the implicitly open zone to close first, if any.
    fn check_resources(&self, idx: u32, from: ZoneCond, sector: u64) -> Result<Option<u32>, Rejection> {
        let err = |kind| ZoneError::new(kind, Some(idx), sector);
        let l = self.limits;
        let c = self.counters;
        let active_ok = l.max_active == 0 || c.active() < l.max_active;
        match self.personality {
            Personality::NullBlk => {
                // null_check_zone_resources: empty zones need an active slot, then an open slot.
                if from == ZoneCond::Empty && !active_ok {
                    return Err(err(ZoneErrorKind::ActiveLimit).into());
                }
                if l.max_open == 0 || c.open() < l.max_open {
                    return Ok(None);
                }
                // null_check_open evaluates the active limit on the current counters even for a
                // closed zone (for which the move is neutral): with both limits saturated, a
                // closed zone cannot be reopened. Reproduced as is.
                if c.imp_open > 0 && active_ok {
                    return Ok(self.eviction_victim());
                }
                Err(err(ZoneErrorKind::OpenLimit).into())
            }
            Personality::Zbc => {
                if from == ZoneCond::Empty && !active_ok {
                    return Err(err(ZoneErrorKind::ActiveLimit).into());
                }
                if l.max_open == 0 || c.open() < l.max_open {
                    return Ok(None);
                }
                // scsi_debug / tcmu-runner: room is made by closing an implicitly open zone unless
                // every open zone is explicit (INSUFFICIENT ZONE RESOURCES), for implicit and
                // explicit opens alike.
                if c.imp_open > 0 {
                    return Ok(self.eviction_victim());
                }
                Err(err(ZoneErrorKind::OpenLimit).into())
            }
            Personality::Zns => {
                // QEMU nvme_zrm_open_flags: auto-transition first (close the oldest implicitly open
                // zone when the open count is at the limit), then the active check, then the open
                // check. The close stands even when a check then fails.
                let evict = if l.max_open != 0 && c.open() >= l.max_open { self.eviction_victim() } else { None };
                let open_after = c.open() - u32::from(evict.is_some());
                let act = u32::from(from == ZoneCond::Empty);
                if l.max_active != 0 && c.active() + act > l.max_active {
                    return Err(Rejection { error: err(ZoneErrorKind::ActiveLimit), evict });
                }
                if l.max_open != 0 && open_after + 1 > l.max_open {
                    return Err(Rejection { error: err(ZoneErrorKind::OpenLimit), evict });
                }
                Ok(evict)
            }
        }
    }

    fn eviction_victim(&self) -> Option<u32> {
        match self.personality.eviction() {
            EvictionPolicy::RoundRobin => {
                self.imp_open.range(self.rr_cursor..).next().or_else(|| self.imp_open.iter().next()).copied()
            }
            EvictionPolicy::LowestNumbered => self.imp_open.iter().next().copied(),
            EvictionPolicy::Oldest => self.imp_open_order.values().next().copied(),
        }
    }

    // ----- applying -----

    fn apply<E>(
        &mut self,
        plan: Result<Transition, Rejection>,
        effect: impl FnOnce(&Transition) -> Result<(), E>,
    ) -> Result<Transition, Failed<E>> {
        match plan {
            Err(rej) => {
                if let Some(v) = rej.evict {
                    self.close_victim(v);
                }
                Err(Failed::Zone(rej.error))
            }
            Ok(t) => {
                effect(&t).map_err(Failed::Effect)?;
                self.commit(&t);
                Ok(t)
            }
        }
    }

    fn commit(&mut self, t: &Transition) {
        if let Some(v) = t.evict {
            self.close_victim(v);
        }
        self.set_cond(t.zone, t.to);
        let slot = &mut self.slots[t.zone as usize];
        slot.wp = t.new_wp;
        slot.non_seq = if t.to == ZoneCond::Empty { false } else { t.non_seq };
    }

    /// The condition an open zone takes when closed: empty if nothing was written (null_blk, ZBC),
    /// but always closed on ZNS, where the zone keeps its active resource (QEMU `nvme_zrm_close`).
    fn closed_cond(&self, idx: u32, wp: u64) -> ZoneCond {
        if self.personality != Personality::Zns && wp == self.geometry.zone_start(idx) {
            ZoneCond::Empty
        } else {
            ZoneCond::Closed
        }
    }

    fn close_victim(&mut self, v: u32) {
        let cond = self.closed_cond(v, self.slots[v as usize].wp);
        self.set_cond(v, cond);
        if self.personality.eviction() == EvictionPolicy::RoundRobin {
            let next = v + 1;
            self.rr_cursor = if next >= self.geometry.nr_zones { self.geometry.nr_conv_zones } else { next };
        }
    }

    /// Change a zone's condition, keeping the counters and the implicitly-open sets in step.
    fn set_cond(&mut self, idx: u32, to: ZoneCond) {
        let from = self.slots[idx as usize].cond;
        if from == to {
            return;
        }
        self.leave_accounting(from, idx);
        match to {
            ZoneCond::ImplicitOpen => {
                self.counters.imp_open += 1;
                self.clock += 1;
                self.slots[idx as usize].opened_at = self.clock;
                self.imp_open.insert(idx);
                self.imp_open_order.insert(self.clock, idx);
            }
            ZoneCond::ExplicitOpen => self.counters.exp_open += 1,
            ZoneCond::Closed => self.counters.closed += 1,
            _ => {}
        }
        self.slots[idx as usize].cond = to;
    }

    fn leave_accounting(&mut self, from: ZoneCond, idx: u32) {
        match from {
            ZoneCond::ImplicitOpen => {
                self.counters.imp_open -= 1;
                self.imp_open.remove(&idx);
                self.imp_open_order.remove(&self.slots[idx as usize].opened_at);
            }
            ZoneCond::ExplicitOpen => self.counters.exp_open -= 1,
            ZoneCond::Closed => self.counters.closed -= 1,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    fn ok(_: &Transition) -> Result<(), Infallible> {
        Ok(())
    }

    fn table(p: Personality, max_open: u32, max_active: u32) -> ZoneTable {
        // 8 zones of 64 sectors, zone 0 conventional, capacity 48.
        let g = Geometry::with_zones(64, 8, 48, 1, 512).unwrap();
        let l = Limits { max_open, max_active, max_append_sectors: 64 }.normalized(&g).unwrap();
        ZoneTable::new(g, l, p)
    }

    fn kind<E: std::fmt::Debug>(r: Result<Transition, Failed<E>>) -> ZoneErrorKind {
        match r {
            Err(Failed::Zone(e)) => e.kind,
            other => panic!("expected a zone error, got {other:?}"),
        }
    }

    #[test]
    fn write_moves_wp_and_fills_zone() {
        let mut t = table(Personality::NullBlk, 0, 0);
        let tr = t.write(64, 8, ok).unwrap();
        assert_eq!((tr.from, tr.to, tr.new_wp), (ZoneCond::Empty, ZoneCond::ImplicitOpen, 72));
        assert_eq!(kind(t.write(64, 8, ok)), ZoneErrorKind::NotWritePointer);
        assert_eq!(kind(t.write(72, 48, ok)), ZoneErrorKind::PastCapacity);
        let tr = t.write(72, 40, ok).unwrap();
        assert_eq!(tr.to, ZoneCond::Full);
        assert_eq!(t.counters(), Counters::default());
        assert_eq!(kind(t.write(112, 8, ok)), ZoneErrorKind::ZoneFull);
    }

    #[test]
    fn failed_effect_changes_nothing() {
        let mut t = table(Personality::NullBlk, 0, 0);
        let r = t.write(64, 8, |_| Err("disk on fire"));
        assert_eq!(r, Err(Failed::Effect("disk on fire")));
        assert_eq!(t.zone(1).cond, ZoneCond::Empty);
        assert_eq!(t.zone(1).wp, 64);
    }

    #[test]
    fn nullblk_round_robin_eviction() {
        let mut t = table(Personality::NullBlk, 2, 0);
        t.write(64, 8, ok).unwrap();
        t.write(128, 8, ok).unwrap();
        let tr = t.write(192, 8, ok).unwrap();
        assert_eq!(tr.evict, Some(1));
        let tr = t.write(256, 8, ok).unwrap();
        assert_eq!(tr.evict, Some(2), "cursor moved past zone 1");
        assert_eq!(t.zone(1).cond, ZoneCond::Closed);
        assert_eq!(t.counters(), Counters { imp_open: 2, exp_open: 0, closed: 2 });
    }

    #[test]
    fn zns_oldest_and_zbc_lowest_eviction() {
        for (p, victim) in [(Personality::Zns, 3), (Personality::Zbc, 2)] {
            let mut t = table(p, 2, 0);
            t.write(192, 8, ok).unwrap(); // zone 3 opens first
            t.write(128, 8, ok).unwrap(); // zone 2
            let tr = t.write(256, 8, ok).unwrap();
            assert_eq!(tr.evict, Some(victim), "{p}");
        }
    }

    #[test]
    fn reset_all_skips_conventional_and_empty() {
        let mut t = table(Personality::NullBlk, 0, 0);
        t.write(0, 8, ok).unwrap();
        t.write(64, 8, ok).unwrap();
        assert_eq!(t.mgmt_target(ZoneOp::Reset, 0, 512).unwrap(), MgmtTarget::ResetAll);
        assert_eq!(t.manage(ZoneOp::Reset, 0, 512, ok).unwrap(), 1);
        assert_eq!(kind(t.manage_zone(ZoneOp::Reset, 0, ok)), ZoneErrorKind::Conventional);
    }

    #[test]
    fn range_stops_at_first_error() {
        let mut t = table(Personality::NullBlk, 0, 0);
        t.write(64, 8, ok).unwrap();
        t.write(192, 8, ok).unwrap();
        // close zones 1..4: zone 1 closes, zone 2 (empty) fails, zone 3 is untouched.
        let r = t.manage(ZoneOp::Close, 64, 192, ok);
        assert!(matches!(
            r,
            Err(Failed::Zone(ZoneError { kind: ZoneErrorKind::InvalidTransition, zone: Some(2), .. }))
        ));
        assert_eq!(t.zone(1).cond, ZoneCond::Closed);
        assert_eq!(t.zone(3).cond, ZoneCond::ImplicitOpen);
    }

    #[test]
    fn read_segments_split_at_wp_and_zones() {
        let mut t = table(Personality::NullBlk, 0, 0);
        t.write(64, 8, ok).unwrap();
        let segs = t.read(32, 64).unwrap();
        assert_eq!(
            segs,
            vec![
                ReadSegment { zone: 0, sector: 32, nr: 32, valid: 32 },
                ReadSegment { zone: 1, sector: 64, nr: 32, valid: 8 },
            ]
        );
    }

    #[test]
    fn append_lands_at_wp() {
        let mut t = table(Personality::Zns, 0, 0);
        t.write(64, 8, ok).unwrap();
        let tr = t.append(64, 8, ok).unwrap();
        assert_eq!(tr.action, Action::Write { sector: 72, nr: 8, append: true });
        assert_eq!(kind(t.append(72, 8, ok)), ZoneErrorKind::AppendNotZoneStart);
        assert_eq!(kind(t.append(0, 8, ok)), ZoneErrorKind::AppendNotZoneStart);
        assert_eq!(kind(t.append(128, 128, ok)), ZoneErrorKind::AppendTooLarge);
    }

    #[test]
    fn readonly_injection_finishes_first() {
        let mut t = table(Personality::NullBlk, 0, 0);
        t.write(64, 8, ok).unwrap();
        t.set_zone_cond(1, ZoneCond::ReadOnly, ok).unwrap();
        assert_eq!(t.zone(1).cond, ZoneCond::ReadOnly);
        assert_eq!(t.zone(1).wp, INVALID_WP);
        assert_eq!(t.counters(), Counters::default());
        assert_eq!(kind(t.write(64, 8, ok)), ZoneErrorKind::ReadOnly);
        assert_eq!(t.read(64, 8).unwrap()[0].valid, 8);
        t.set_zone_cond(1, ZoneCond::ReadOnly, ok).unwrap();
        assert_eq!((t.zone(1).cond, t.zone(1).wp), (ZoneCond::Empty, 64));
    }
}
