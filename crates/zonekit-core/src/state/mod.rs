//! The zone state machine: the single source of truth for what an I/O or a zone management
//! operation does to a device's zones, and which kind of error it is when it is refused.
//!
//! [`ZoneTable`] holds every zone's condition and write pointer plus the open/active accounting of
//! the device. Each operation is computed as a [`Transition`], handed to an *effect* closure (the
//! device's data path: write the bytes, discard a zone's data, record a finished zone) and applied
//! only if the effect succeeds, so the table never claims data that the store did not take.
//!
//! The rules follow the Linux kernel's null_blk (`drivers/block/null_blk/zoned.c`); the
//! [`Personality`]'s [`ZoneRules`] give the ZBC (scsi_debug / tcmu-runner) and ZNS (QEMU)
//! variations as named values. `docs/devices.md` tabulates every transition. The table models a
//! device (hardware): it refuses commands it cannot take, and a write crossing a zone boundary;
//! what the kernel's block layer does before a device sees anything (cut, split, `EINVAL`
//! checks, management ranges carrying on after a failure) is `zonekit-blk`'s.
//!
//! By concern: this module holds the table, its report and its restoration; `writes` the I/O
//! checks, `mgmt` the zone management operations, `resources` the open/active accounting and
//! the eviction at the open limit.

mod mgmt;
mod resources;
mod writes;

use crate::error::ZoneError;
use crate::geometry::{Geometry, Limits};
use crate::personality::{ConventionalWp, Personality, ZoneRules};
use crate::zone::{Zone, ZoneCond};
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
    /// A write pointer moved by the device behind the host's back (fault injection): the zone's
    /// data ends at the new write pointer, cut or extended with zeros.
    MoveWp,
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

/// What a device that stays powered remembers beyond each zone's condition and write pointer:
/// how it chooses the zone to close at the open limit, and null_blk's counting quirk. A
/// persistent device saves it at a clean close ([`ZoneTable::eviction_state`]) and gives it back
/// at the next open ([`ZoneTable::resume_eviction`]), so that the reopened device closes the zone
/// a powered one would.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EvictionState {
    /// The implicitly open zones in the order they became implicitly open, oldest first (ZNS
    /// closes the first).
    pub imp_open_order: Vec<u32>,
    /// null_blk's round-robin cursor (`imp_close_zone_no`): where its scan for a zone to close
    /// starts.
    pub rr_cursor: u32,
    /// Zones counted as closed beyond those in the CLOSED condition: null_blk's quirk of a closed
    /// zone made read-only or offline whose finish was refused (it stays counted).
    pub stale_closed: u32,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    wp: u64,
    cond: ZoneCond,
    non_seq: bool,
    /// The table's `open_seq` when the zone last became implicitly open (ZNS eviction order).
    opened_at: u64,
}

/// Every zone of a device and the device's open/active accounting.
#[derive(Debug, Clone)]
pub struct ZoneTable {
    geometry: Geometry,
    limits: Limits,
    personality: Personality,
    /// The personality's rules, looked up once.
    rules: &'static ZoneRules,
    slots: Vec<Slot>,
    counters: Counters,
    /// Implicitly open zones by number (round-robin and lowest-numbered eviction).
    imp_open: BTreeSet<u32>,
    /// Implicitly open zones by their `opened_at` (oldest-first eviction).
    imp_open_order: BTreeMap<u64, u32>,
    /// A logical counter, not a time: bumped each time a zone becomes implicitly open, so that
    /// `opened_at` orders the implicitly open zones.
    open_seq: u64,
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
            rules: personality.rules(),
            slots,
            counters: Counters::default(),
            imp_open: BTreeSet::new(),
            imp_open_order: BTreeMap::new(),
            open_seq: 0,
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
    /// The write pointer of a full zone and of a conventional zone is reported as the
    /// personality's rules say ([`ZoneRules::full_wp_at_zone_end`],
    /// [`ZoneRules::conventional_wp`]).
    pub fn zone(&self, idx: u32) -> Zone {
        let s = &self.slots[idx as usize];
        let g = &self.geometry;
        let start = g.zone_start(idx);
        let len = g.zone_len(idx);
        let wp = match s.cond {
            ZoneCond::Full if self.rules.full_wp_at_zone_end => start + len,
            // The all-ones field is in logical blocks; the kernel's sd driver converts it to
            // sectors like any other.
            ZoneCond::NotWp if self.rules.conventional_wp == ConventionalWp::AllOnes => {
                u64::MAX << g.lbs_sectors().trailing_zeros()
            }
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

    /// Restore a zone's state when reopening a persistent device after a crash: as after a power
    /// cycle, open zones come back closed, or empty when nothing was written (as the kernel's
    /// zoned loop driver does at every start); a write pointer at the capacity makes the zone
    /// full. The caller checks `wp` against its data first.
    pub fn restore_zone(&mut self, idx: u32, cond: ZoneCond, wp: u64) -> Result<(), String> {
        let g = &self.geometry;
        if idx >= g.nr_zones {
            return Err(format!("zone {idx} is past the last zone"));
        }
        let (start, cap) = (g.zone_start(idx), g.zone_cap(idx));
        let cond = match cond {
            ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen | ZoneCond::Closed | ZoneCond::Empty
                if !g.is_conventional(idx) =>
            {
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
            other => other,
        };
        self.resume_zone(idx, cond, wp)
    }

    /// Restore a zone's state exactly, open conditions included, when reopening a persistent
    /// device that was closed cleanly (a device that stayed powered keeps them). Implicitly open
    /// zones take the eviction order of the calls until [`ZoneTable::resume_eviction`] gives the
    /// saved one. Refuses a condition and write pointer that no sequence of operations leaves: an
    /// empty zone's write pointer is its start; an open or closed zone's is below the capacity,
    /// and past the start for implicitly open zones and for closed ones unless the rules keep an
    /// unwritten zone closed ([`ZoneRules::close_unwritten_to_empty`]). A full zone's write pointer
    /// outside the zone becomes the zone end; read-only and offline zones get [`INVALID_WP`].
    pub fn resume_zone(&mut self, idx: u32, cond: ZoneCond, wp: u64) -> Result<(), String> {
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
        let written = wp > start && wp < start + cap;
        let at_start = wp == start;
        let ok = match cond {
            ZoneCond::Empty => at_start,
            ZoneCond::ImplicitOpen => written,
            ZoneCond::ExplicitOpen => written || at_start,
            ZoneCond::Closed => written || (at_start && !self.rules.close_unwritten_to_empty),
            ZoneCond::Full | ZoneCond::ReadOnly | ZoneCond::Offline => true,
            ZoneCond::NotWp => return Err(format!("sequential zone {idx} cannot be not-write-pointer")),
        };
        if !ok {
            let at = wp.wrapping_sub(start);
            return Err(format!("zone {idx} cannot be {cond} with its write pointer at +{at} sectors"));
        }
        let wp = match cond {
            ZoneCond::Full if wp < start || wp > start + len => start + len,
            ZoneCond::ReadOnly | ZoneCond::Offline => INVALID_WP,
            _ => wp,
        };
        self.set_cond(idx, cond);
        self.slots[idx as usize].wp = wp;
        Ok(())
    }

    /// What the table remembers beyond each zone's condition and write pointer, for a clean close
    /// of a persistent device.
    pub fn eviction_state(&self) -> EvictionState {
        let in_closed = self.slots.iter().filter(|s| s.cond == ZoneCond::Closed).count() as u32;
        EvictionState {
            imp_open_order: self.imp_open_order.values().copied().collect(),
            rr_cursor: self.rr_cursor,
            stale_closed: self.counters.closed - in_closed,
        }
    }

    /// Give back the eviction state saved at a clean close, once every zone is resumed
    /// ([`ZoneTable::resume_zone`]). Refuses an order that is not exactly the implicitly open
    /// zones, and a cursor outside the sequential zones.
    pub fn resume_eviction(&mut self, state: &EvictionState) -> Result<(), String> {
        let g = &self.geometry;
        if !(g.nr_conv_zones..g.nr_zones).contains(&state.rr_cursor) {
            return Err(format!("eviction cursor {} is not a sequential zone", state.rr_cursor));
        }
        let listed: BTreeSet<u32> = state.imp_open_order.iter().copied().collect();
        if listed.len() != state.imp_open_order.len() || listed != self.imp_open {
            return Err(format!(
                "the implicit-open order {:?} does not list the implicitly open zones {:?}",
                state.imp_open_order, self.imp_open
            ));
        }
        // Re-stamp in the saved order, so that the oldest is evicted first as before.
        for &idx in &state.imp_open_order {
            let slot = &mut self.slots[idx as usize];
            self.imp_open_order.remove(&slot.opened_at);
            self.open_seq += 1;
            slot.opened_at = self.open_seq;
            self.imp_open_order.insert(self.open_seq, idx);
        }
        self.rr_cursor = state.rr_cursor;
        self.counters.closed += state.stale_closed;
        Ok(())
    }

    /// Run `effect` on a planned transition and commit it if the effect succeeds; a refused plan
    /// still closes the zone that QEMU's auto-transition closed before refusing.
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

    /// Make a transition the table's state.
    fn commit(&mut self, t: &Transition) {
        if let Some(v) = t.evict {
            self.close_victim(v);
        }
        self.set_cond(t.zone, t.to);
        let slot = &mut self.slots[t.zone as usize];
        slot.wp = t.new_wp;
        slot.non_seq = if t.to == ZoneCond::Empty { false } else { t.non_seq };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ZoneErrorKind;
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

    /// A table rebuilt zone by zone with `resume_zone` and `resume_eviction` behaves as the
    /// original: same reports, counters and choices of the zone to close.
    #[test]
    fn resumed_table_evicts_as_the_original() {
        for p in Personality::ALL {
            let mut t = table(p, 2, 4);
            t.write(192, 8, ok).unwrap(); // zone 3 opens first
            t.write(128, 8, ok).unwrap(); // zone 2
            t.write(256, 8, ok).unwrap(); // zone 4: one of them closed
            t.manage_zone(ZoneOp::Open, 5, ok).unwrap_or_else(|_| panic!("{p}"));
            let mut r = table(p, 2, 4);
            for i in 0..8 {
                let s = t.slots[i as usize];
                r.resume_zone(i, s.cond, s.wp).unwrap();
            }
            r.resume_eviction(&t.eviction_state()).unwrap();
            assert_eq!(r.eviction_state(), t.eviction_state(), "{p}");
            // Writes to zones 1, 6 and 7 each need a zone closed first.
            for zone in [1, 6, 7] {
                let (a, b) = (t.write(t.zone(zone).wp, 8, ok), r.write(r.zone(zone).wp, 8, ok));
                assert_eq!(a.map(|x| x.evict).map_err(|_| ()), b.map(|x| x.evict).map_err(|_| ()), "{p} zone {zone}");
                assert_eq!(t.counters(), r.counters(), "{p}");
                assert_eq!(t.report(0, 8).collect::<Vec<_>>(), r.report(0, 8).collect::<Vec<_>>(), "{p}");
            }
        }
    }

    #[test]
    fn resume_refuses_impossible_states() {
        let mut t = table(Personality::NullBlk, 0, 0);
        assert!(t.resume_zone(1, ZoneCond::ImplicitOpen, 64).is_err(), "implicitly open with nothing written");
        assert!(t.resume_zone(1, ZoneCond::Closed, 64).is_err(), "null_blk empties an unwritten closed zone");
        assert!(t.resume_zone(1, ZoneCond::Closed, 64 + 48).is_err(), "at the capacity");
        assert!(t.resume_zone(0, ZoneCond::Empty, 0).is_err(), "conventional");
        t.resume_zone(1, ZoneCond::ImplicitOpen, 72).unwrap();
        let bad = EvictionState { imp_open_order: vec![1, 1], rr_cursor: 1, stale_closed: 0 };
        assert!(t.resume_eviction(&bad).is_err());
        let bad = EvictionState { imp_open_order: vec![1], rr_cursor: 0, stale_closed: 0 };
        assert!(t.resume_eviction(&bad).is_err(), "the cursor is a sequential zone");
        let mut z = table(Personality::Zns, 0, 0);
        z.resume_zone(1, ZoneCond::Closed, 64).unwrap();
        assert_eq!(z.counters().closed, 1, "ZNS keeps an unwritten zone closed");
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
    fn commands_a_device_cannot_take_change_nothing() {
        for p in Personality::ALL {
            let mut t = table(p, 0, 0);
            t.write(64, 8, ok).unwrap();
            let before: Vec<Zone> = t.report(0, 8).collect();
            let refused = |r: Result<usize, Failed<Infallible>>| match r {
                Err(Failed::Zone(e)) => e.kind,
                other => panic!("{p}: {other:?}"),
            };
            use ZoneErrorKind::*;
            assert_eq!(refused(t.manage(ZoneOp::Close, 65, 64, ok)), MgmtUnaligned);
            assert_eq!(refused(t.manage(ZoneOp::Close, 64, 32, ok)), MgmtUnaligned);
            assert_eq!(refused(t.manage(ZoneOp::Reset, 64, 0, ok)), OutOfRange);
            assert_eq!(refused(t.manage(ZoneOp::Reset, u64::MAX - 10, 64, ok)), OutOfRange);
            assert_eq!(refused(t.manage(ZoneOp::Finish, 448, 128, ok)), OutOfRange);
            assert_eq!(kind(t.write(72, 0, ok)), OutOfRange);
            assert_eq!(kind(t.write(u64::MAX - 4, 8, ok)), OutOfRange);
            assert_eq!(t.read(504, 16).map(|_| ()).map_err(|e| e.kind), Err(OutOfRange));
            assert_eq!(t.report(0, 8).collect::<Vec<_>>(), before, "{p}");
            // The device's own errno, not the block layer's EINVAL.
            assert_eq!(p.errno(OutOfRange), p.rules().zone_rule_errno);
        }
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

    #[test]
    fn a_moved_write_pointer_keeps_the_accounting() {
        // Zones of 64 sectors, capacity 48, zone 0 conventional; at most 2 active zones.
        let mut t = table(Personality::NullBlk, 0, 2);
        t.write(64, 16, ok).unwrap();
        // Back within an implicitly open zone: it stays open, the write pointer is the new one.
        let tr = t.move_write_pointer(1, 72, ok).unwrap();
        assert_eq!(
            (tr.action, tr.from, tr.to, tr.old_wp, tr.new_wp),
            (Action::MoveWp, ZoneCond::ImplicitOpen, ZoneCond::ImplicitOpen, 80, 72)
        );
        assert_eq!(kind(t.write(80, 8, ok)), ZoneErrorKind::NotWritePointer);
        t.write(72, 8, ok).unwrap();
        // To the start: empty, its open slot freed; to the capacity: full.
        t.move_write_pointer(1, 64, ok).unwrap();
        assert_eq!((t.zone(1).cond, t.counters().active()), (ZoneCond::Empty, 0));
        t.move_write_pointer(2, 128 + 48, ok).unwrap();
        assert_eq!(t.zone(2).cond, ZoneCond::Full);
        // Into an empty or full zone: closed, which takes an active zone.
        t.move_write_pointer(2, 130, ok).unwrap();
        t.move_write_pointer(3, 200, ok).unwrap();
        assert_eq!((t.zone(2).cond, t.zone(3).cond, t.counters().closed), (ZoneCond::Closed, ZoneCond::Closed, 2));
        assert_eq!(kind(t.move_write_pointer(4, 260, ok)), ZoneErrorKind::ActiveLimit);
        assert_eq!(kind(t.move_write_pointer(1, 64 + 49, ok)), ZoneErrorKind::OutOfRange);
        assert_eq!(kind(t.move_write_pointer(0, 8, ok)), ZoneErrorKind::Conventional);
        t.set_zone_cond(5, ZoneCond::Offline, ok).unwrap();
        assert_eq!(kind(t.move_write_pointer(5, 330, ok)), ZoneErrorKind::Offline);
        // A refused effect changes nothing.
        assert!(t.move_write_pointer(2, 128, |_| Err("no")).is_err());
        assert_eq!((t.zone(2).cond, t.zone(2).wp), (ZoneCond::Closed, 130));
    }
}
