//! Property tests: the zone state machine against an independent reference model.
//!
//! The model below is written from the drivers, not from `state.rs`: null_blk from its `zoned.c`
//! (`null_zone_write`, `null_open_zone`, `null_close_zone`, `null_finish_zone`, `null_reset_zone`,
//! `null_check_zone_resources`, `null_close_imp_open_zone`, `null_set_zone_cond`), ZBC from
//! scsi_debug (`check_zbc_access_params`, `zbc_open_zone`, `resp_*_zone`) and ZNS from QEMU's
//! `hw/nvme` (`nvme_check_zone_write`, `nvme_zrm_open_flags`, `nvme_zrm_*`), plus the block layer's
//! checks (`blk_check_zone_append`, RESET ALL) and the device rule of `docs/architecture.md` that a
//! management range stops at its first error.
//!
//! It is deliberately plain: a `Vec` of (condition, write pointer), counters computed by scanning,
//! victims found by scanning, one `match` per personality. Random operation sequences on small
//! random geometries run through both; after every step the results (success or error kind and
//! zone, appended sector, evicted zones, read splits) and the whole zone report and counters must
//! agree, and the invariants must hold.
//!
//! `PROPTEST_CASES` sets the number of cases per personality (default 1000).

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::convert::Infallible;
use zonekit_core::{
    Action, Counters, Failed, Geometry, INVALID_WP, Limits, Personality, ZoneCond, ZoneError, ZoneErrorKind, ZoneOp,
    ZoneTable,
};

use ZoneCond::{Closed, Empty, ExplicitOpen as Exp, Full, ImplicitOpen as Imp, NotWp, Offline, ReadOnly};
use ZoneErrorKind as K;

// ---------------------------------------------------------------------------------------------
// The reference model
// ---------------------------------------------------------------------------------------------

/// A rule broken: kind, zone, sector.
type MErr = (ZoneErrorKind, Option<u32>, u64);

/// The zones a management range acted on, each with the zone closed to make room for it.
type MgmtDone = Vec<(u32, Option<u32>)>;

#[derive(Debug, Clone, Copy)]
struct MZone {
    cond: ZoneCond,
    wp: u64,
    /// ZNS: when the zone last became implicitly open (QEMU's imp_open list is FIFO).
    opened: u64,
}

#[derive(Debug, Clone)]
struct Model {
    p: Personality,
    capacity: u64,
    zone_size: u64,
    zone_cap: u64,
    nr_zones: u32,
    nr_conv: u32,
    lbs: u64,
    max_open: u32,
    max_active: u32,
    max_append: u64,
    zones: Vec<MZone>,
    /// null_blk: zones still counted as closed after a read-only/offline injection whose finish
    /// failed (null_set_zone_cond ignores the error).
    stale_closed: u32,
    /// null_blk's `imp_close_zone_no`.
    cursor: u32,
    tick: u64,
}

/// What a successful write or append did.
#[derive(Debug, PartialEq, Eq)]
struct WriteOut {
    sector: u64,
    evict: Option<u32>,
}

impl Model {
    fn new(cfg: &Cfg) -> Model {
        let nr_zones = cfg.capacity.div_ceil(cfg.zone_size) as u32;
        let zones = (0..nr_zones)
            .map(|i| {
                let start = u64::from(i) * cfg.zone_size;
                if i < cfg.nr_conv {
                    MZone { cond: NotWp, wp: start + cfg.zone_size.min(cfg.capacity - start), opened: 0 }
                } else {
                    MZone { cond: Empty, wp: start, opened: 0 }
                }
            })
            .collect();
        Model {
            p: cfg.personality,
            capacity: cfg.capacity,
            zone_size: cfg.zone_size,
            zone_cap: cfg.zone_cap,
            nr_zones,
            nr_conv: cfg.nr_conv,
            lbs: u64::from(cfg.lbs) / 512,
            max_open: cfg.max_open,
            max_active: cfg.max_active,
            max_append: cfg.max_append,
            zones,
            stale_closed: 0,
            cursor: cfg.nr_conv,
            tick: 0,
        }
    }

    fn start(&self, z: u32) -> u64 {
        u64::from(z) * self.zone_size
    }

    fn len(&self, z: u32) -> u64 {
        self.zone_size.min(self.capacity - self.start(z))
    }

    /// End of the writable part of a sequential zone.
    fn cap_end(&self, z: u32) -> u64 {
        self.start(z) + self.zone_cap.min(self.len(z))
    }

    fn zone_of(&self, sector: u64) -> Option<u32> {
        (sector < self.capacity).then(|| (sector / self.zone_size) as u32)
    }

    fn conv(&self, z: u32) -> bool {
        z < self.nr_conv
    }

    /// (implicitly open, explicitly open, closed), as the device counts them.
    fn counts(&self) -> (u32, u32, u32) {
        let n = |c| self.zones.iter().filter(|z| z.cond == c).count() as u32;
        (n(Imp), n(Exp), n(Closed) + self.stale_closed)
    }

    /// The write pointer a zone report shows.
    fn reported_wp(&self, z: u32) -> u64 {
        let zone = self.zones[z as usize];
        match zone.cond {
            ReadOnly | Offline => INVALID_WP,
            // sd_zbc_parse_report and nvme_zone_parse_entry report FULL zones at start + len.
            Full if self.p != Personality::NullBlk => self.start(z) + self.len(z),
            // scsi_debug's conventional zones carry an all-ones WRITE POINTER, which sd converts
            // from logical blocks to sectors (observed on Linux 6.1: u64::MAX with 512 B blocks).
            NotWp if self.p == Personality::Zbc => u64::MAX << self.lbs.trailing_zeros(),
            _ => zone.wp,
        }
    }

    fn set(&mut self, z: u32, cond: ZoneCond) {
        if cond == Imp && self.zones[z as usize].cond != Imp {
            self.tick += 1;
            self.zones[z as usize].opened = self.tick;
        }
        self.zones[z as usize].cond = cond;
    }

    /// Close an open zone (by command or to make room): null_blk and scsi_debug return a zone with
    /// nothing written to EMPTY; QEMU's nvme_zrm_close always makes it CLOSED.
    fn close_open_zone(&mut self, z: u32) {
        let empty = self.zones[z as usize].wp == self.start(z);
        let to = if empty && self.p != Personality::Zns { Empty } else { Closed };
        self.set(z, to);
    }

    /// Room for zone `z` (EMPTY or CLOSED) to become open: the implicitly open zone closed to make
    /// it, if any. A ZNS failure may have closed a zone already (quirk Q8).
    fn open_resources(&mut self, z: u32, sector: u64) -> Result<Option<u32>, MErr> {
        let cond = self.zones[z as usize].cond;
        let (imp, exp, closed) = self.counts();
        let (open, active) = (imp + exp, imp + exp + closed);
        let err = |k| (k, Some(z), sector);
        match self.p {
            Personality::NullBlk => {
                // null_check_zone_resources: EMPTY -> null_check_active, then null_check_open.
                let active_ok = self.max_active == 0 || active < self.max_active;
                if cond == Empty && !active_ok {
                    return Err(err(K::ActiveLimit));
                }
                if self.max_open == 0 || open < self.max_open {
                    return Ok(None);
                }
                if imp > 0 && active_ok {
                    // null_close_imp_open_zone, transcribed.
                    let mut zno = self.cursor;
                    if zno >= self.nr_zones {
                        zno = self.nr_conv;
                    }
                    for _ in self.nr_conv..self.nr_zones {
                        let i = zno;
                        zno += 1;
                        if zno >= self.nr_zones {
                            zno = self.nr_conv;
                        }
                        if self.zones[i as usize].cond == Imp {
                            self.close_open_zone(i);
                            self.cursor = zno;
                            return Ok(Some(i));
                        }
                    }
                    unreachable!("imp > 0");
                }
                Err(err(K::OpenLimit))
            }
            Personality::Zbc => {
                // Not in scsi_debug: an active limit, checked as null_blk and QEMU check it.
                if cond == Empty && self.max_active != 0 && active >= self.max_active {
                    return Err(err(K::ActiveLimit));
                }
                // check_zbc_access_params / resp_open_zone: exp >= max -> INSUFFICIENT ZONE RESOURCES.
                if self.max_open != 0 && exp >= self.max_open {
                    return Err(err(K::OpenLimit));
                }
                // zbc_open_zone -> zbc_close_imp_open_zone: the lowest-numbered IMP_OPEN zone.
                if self.max_open != 0 && open >= self.max_open {
                    let v = (0..self.nr_zones).find(|&i| self.zones[i as usize].cond == Imp).expect("imp > 0");
                    self.close_open_zone(v);
                    return Ok(Some(v));
                }
                Ok(None)
            }
            Personality::Zns => {
                // nvme_zrm_open_flags: auto transition, then nvme_zns_check_resources.
                let mut victim = None;
                if self.max_open != 0 && open == self.max_open {
                    let oldest = (0..self.nr_zones)
                        .filter(|&i| self.zones[i as usize].cond == Imp)
                        .min_by_key(|&i| self.zones[i as usize].opened);
                    if let Some(v) = oldest {
                        self.close_open_zone(v);
                        victim = Some(v);
                    }
                }
                let (imp, exp, closed) = self.counts();
                let act = u32::from(cond == Empty);
                if self.max_active != 0 && imp + exp + closed + act > self.max_active {
                    return Err(err(K::ActiveLimit));
                }
                if self.max_open != 0 && imp + exp + 1 > self.max_open {
                    return Err(err(K::OpenLimit));
                }
                Ok(victim)
            }
        }
    }

    fn io_range(&self, sector: u64, nr: u64) -> Result<u64, MErr> {
        let z = self.zone_of(sector);
        let end = match sector.checked_add(nr) {
            Some(e) if nr > 0 && e <= self.capacity => e,
            _ => return Err((K::OutOfRange, z, sector)),
        };
        if !sector.is_multiple_of(self.lbs) || !nr.is_multiple_of(self.lbs) {
            return Err((K::Unaligned, z, sector));
        }
        Ok(end)
    }

    fn write(&mut self, sector: u64, nr: u64, append: bool) -> Result<WriteOut, MErr> {
        let end = self.io_range(sector, nr)?;
        let z = self.zone_of(sector).expect("in range");
        let err = |k| (k, Some(z), sector);
        let (start, zend, cend) = (self.start(z), self.start(z) + self.len(z), self.cap_end(z));
        if append {
            // blk_check_zone_append.
            if self.conv(z) || sector != start {
                return Err(err(K::AppendNotZoneStart));
            }
            if nr > self.zone_size || nr > self.max_append {
                return Err(err(K::AppendTooLarge));
            }
        }
        if self.conv(z) {
            // A write may run on through conventional zones, not into a sequential one.
            return if end > self.start(self.nr_conv) {
                Err(err(K::BoundaryCrossing))
            } else {
                Ok(WriteOut { sector, evict: None })
            };
        }
        let zone = self.zones[z as usize];
        let cond_rule = match zone.cond {
            Full => Some(K::ZoneFull),
            ReadOnly => Some(K::ReadOnly),
            Offline => Some(K::Offline),
            _ => None,
        };
        let at = if append {
            if let Some(k) = cond_rule {
                return Err(err(k));
            }
            if zone.wp + nr > cend {
                return Err(err(K::PastCapacity));
            }
            zone.wp
        } else {
            let boundary_rule = if end > zend {
                Some(K::BoundaryCrossing)
            } else if end > cend {
                Some(K::PastCapacity)
            } else {
                None
            };
            let wp_rule = (sector != zone.wp).then_some(K::NotWritePointer);
            let order = match self.p {
                // scsi_debug: boundary (incl. the gap past the capacity), FULL, write pointer.
                Personality::Zbc => [boundary_rule, cond_rule, wp_rule],
                // QEMU: state, write pointer, boundary; null_blk: the wp test fails first.
                Personality::NullBlk | Personality::Zns => [cond_rule, wp_rule, boundary_rule],
            };
            if let Some(k) = order.into_iter().flatten().next() {
                return Err(err(k));
            }
            sector
        };
        let mut evict = None;
        if matches!(zone.cond, Empty | Closed) {
            evict = self.open_resources(z, sector)?;
            self.set(z, Imp);
        }
        let wp = at + nr;
        self.zones[z as usize].wp = wp;
        if wp == cend {
            self.set(z, Full);
        }
        Ok(WriteOut { sector: at, evict })
    }

    /// One zone management operation on zone `z`: the zone closed to make room, if any.
    fn mgmt_zone(&mut self, op: ZoneOp, z: u32) -> Result<Option<u32>, MErr> {
        let start = self.start(z);
        let err = |k| (k, Some(z), start);
        if self.conv(z) {
            return Err(err(K::Conventional));
        }
        let cond = self.zones[z as usize].cond;
        match cond {
            ReadOnly => return Err(err(K::ReadOnly)),
            Offline => return Err(err(K::Offline)),
            _ => {}
        }
        let p = self.p;
        let full_wp = start + self.len(z);
        let mut evict = None;
        match (op, cond) {
            (ZoneOp::Open, Exp) => {}
            (ZoneOp::Open, Full) if p == Personality::Zbc => {}
            (ZoneOp::Open, Full) => return Err(err(K::InvalidTransition)),
            (ZoneOp::Open, Imp) => self.set(z, Exp),
            (ZoneOp::Open, Empty | Closed) => {
                evict = self.open_resources(z, start)?;
                self.set(z, Exp);
            }
            (ZoneOp::Close, Imp | Exp) => self.close_open_zone(z),
            (ZoneOp::Close, Closed) => {}
            (ZoneOp::Close, Empty | Full) if p == Personality::Zbc => {}
            (ZoneOp::Close, Empty | Full) => return Err(err(K::InvalidTransition)),
            (ZoneOp::Finish, Full) => {}
            (ZoneOp::Finish, Empty | Closed) => {
                // Only null_blk goes through the resource check.
                if p == Personality::NullBlk {
                    evict = self.open_resources(z, start)?;
                }
                self.set(z, Full);
                self.zones[z as usize].wp = full_wp;
            }
            (ZoneOp::Finish, Imp | Exp) => {
                self.set(z, Full);
                self.zones[z as usize].wp = full_wp;
            }
            (ZoneOp::Reset, _) => {
                self.set(z, Empty);
                self.zones[z as usize].wp = start;
            }
            (_, c) => unreachable!("{op:?} from {c:?}"),
        }
        Ok(evict)
    }

    /// A management range: the zones done, with their victims, then the first error.
    fn mgmt(&mut self, op: ZoneOp, sector: u64, nr: u64) -> (MgmtDone, Result<usize, MErr>) {
        let z = self.zone_of(sector);
        let end = match sector.checked_add(nr) {
            Some(e) if nr > 0 && e <= self.capacity => e,
            _ => return (vec![], Err((K::OutOfRange, z, sector))),
        };
        if !sector.is_multiple_of(self.zone_size) || (!nr.is_multiple_of(self.zone_size) && end != self.capacity) {
            return (vec![], Err((K::MgmtUnaligned, z, sector)));
        }
        let mut done = Vec::new();
        if op == ZoneOp::Reset && sector == 0 && end == self.capacity {
            for i in self.nr_conv..self.nr_zones {
                if !matches!(self.zones[i as usize].cond, Empty | ReadOnly | Offline) {
                    let r = self.mgmt_zone(ZoneOp::Reset, i);
                    done.push((i, r.expect("a reset of a writable zone cannot fail")));
                }
            }
            let n = done.len();
            return (done, Ok(n));
        }
        let (first, last) = ((sector / self.zone_size) as u32, end.div_ceil(self.zone_size) as u32);
        for i in first..last {
            match self.mgmt_zone(op, i) {
                Ok(v) => done.push((i, v)),
                Err(e) => return (done, Err(e)),
            }
        }
        let n = done.len();
        (done, Ok(n))
    }

    /// (zone, sector, nr, valid) per zone piece.
    fn read(&self, sector: u64, nr: u64) -> Result<Vec<(u32, u64, u64, u64)>, MErr> {
        let end = self.io_range(sector, nr)?;
        let mut out = Vec::new();
        let mut s = sector;
        while s < end {
            let z = self.zone_of(s).expect("in range");
            let e = end.min(self.start(z) + self.len(z));
            let zone = self.zones[z as usize];
            if zone.cond == Offline {
                return Err((K::Offline, Some(z), s));
            }
            // null_zone_valid_read_len: all of it below the wp, none of it past, else up to the wp.
            let valid = if self.conv(z) || zone.wp >= e { e - s } else { zone.wp.saturating_sub(s) };
            out.push((z, s, e - s, valid));
            s = e;
        }
        Ok(out)
    }

    /// null_set_zone_cond (configfs zone_readonly / zone_offline).
    fn set_cond(&mut self, z: u32, cond: ZoneCond) -> Result<ZoneCond, MErr> {
        let start = self.start(z);
        if self.conv(z) {
            return Err((K::Conventional, Some(z), start));
        }
        let cur = self.zones[z as usize].cond;
        if cur == cond {
            self.zones[z as usize] = MZone { cond: Empty, wp: start, opened: 0 };
            return Ok(Empty);
        }
        if !matches!(cur, ReadOnly | Offline) {
            // Finish first, ignoring a failure. A CLOSED zone whose finish fails stays counted.
            if self.mgmt_zone(ZoneOp::Finish, z).is_err() && cur == Closed {
                self.stale_closed += 1;
            }
        }
        self.zones[z as usize].cond = cond;
        self.zones[z as usize].wp = INVALID_WP;
        Ok(cond)
    }
}

// ---------------------------------------------------------------------------------------------
// Random devices and operations
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Cfg {
    personality: Personality,
    capacity: u64,
    zone_size: u64,
    zone_cap: u64,
    nr_conv: u32,
    lbs: u32,
    max_open: u32,
    max_active: u32,
    max_append: u64,
}

fn cfg_strategy(p: Personality) -> impl Strategy<Value = Cfg> {
    (
        prop_oneof![3 => Just(512u32), 1 => Just(4096u32)],
        prop_oneof![Just(16u64), Just(32u64), Just(64u64)],
        2u32..=8,
        0u32..=2,
        any::<(u8, u8, u8, u8, bool)>(),
    )
        .prop_map(move |(lbs, zone_size, nr_zones, nr_conv, (c, s, o, a, smaller_last))| {
            let blk = u64::from(lbs) / 512;
            let blocks = zone_size / blk;
            let nr_conv = nr_conv.min(nr_zones - 1);
            let nr_seq = nr_zones - nr_conv;
            // Capacity below the zone size half of the time.
            let zone_cap = if c % 2 == 0 { zone_size } else { blk * (1 + u64::from(c / 2) % blocks) };
            // A smaller last zone needs capacity == zone size (null_blk's rule, kept by Geometry).
            let mut capacity = zone_size * u64::from(nr_zones);
            if smaller_last && zone_cap == zone_size && nr_zones - nr_conv >= 2 {
                capacity -= blk * (1 + u64::from(s) % (blocks - 1).max(1)).min(blocks - 1).max(1);
            }
            // Limits: 0 (none) or 1..=nr_seq; open <= active when both are set.
            let max_active = if a % 3 == 0 { 0 } else { 1 + u32::from(a) % nr_seq };
            let max_open = match o % 4 {
                0 => 0,
                _ if max_active != 0 => 1 + u32::from(o) % max_active,
                _ => 1 + u32::from(o) % nr_seq,
            };
            let max_append = match s % 4 {
                0 => 0,
                1 => zone_size,
                _ => blk * (1 + u64::from(s) % blocks),
            };
            Cfg { personality: p, capacity, zone_size, zone_cap, nr_conv, lbs, max_open, max_active, max_append }
        })
}

/// An operation, with its targets chosen relative to the device state when it runs.
#[derive(Debug, Clone)]
enum OpSpec {
    Write { zone: u8, pos: u8, len: u8, r: u16 },
    Append { zone: u8, pos: u8, len: u8, r: u16 },
    Read { zone: u8, pos: u8, len: u8, r: u16 },
    Mgmt { op: u8, zone: u8, count: u8, shape: u8 },
    SetCond { zone: u8, offline: bool },
}

fn op_strategy() -> impl Strategy<Value = OpSpec> {
    prop_oneof![
        8 => (any::<u8>(), any::<u8>(), any::<u8>(), any::<u16>())
            .prop_map(|(zone, pos, len, r)| OpSpec::Write { zone, pos, len, r }),
        2 => (any::<u8>(), any::<u8>(), any::<u8>(), any::<u16>())
            .prop_map(|(zone, pos, len, r)| OpSpec::Append { zone, pos, len, r }),
        2 => (any::<u8>(), any::<u8>(), any::<u8>(), any::<u16>())
            .prop_map(|(zone, pos, len, r)| OpSpec::Read { zone, pos, len, r }),
        6 => (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>())
            .prop_map(|(op, zone, count, shape)| OpSpec::Mgmt { op, zone, count, shape }),
        1 => (any::<u8>(), any::<bool>()).prop_map(|(zone, offline)| OpSpec::SetCond { zone, offline }),
    ]
}

/// A concrete operation.
#[derive(Debug, Clone, Copy)]
enum Op {
    Write(u64, u64),
    Append(u64, u64),
    Read(u64, u64),
    Mgmt(ZoneOp, u64, u64),
    SetCond(u32, ZoneCond),
}

impl Model {
    /// A sector near zone `z`'s write pointer (or elsewhere), and a length, from the selectors.
    fn place(&self, z: u32, pos: u8, len: u8, r: u16) -> (u64, u64) {
        let b = self.lbs;
        let start = self.start(z);
        let r = u64::from(r);
        let wp = match self.zones[z as usize].wp {
            INVALID_WP => start,
            _ if self.conv(z) => start + (r % (self.len(z) / b)) * b,
            wp => wp,
        };
        let sector = match pos % 12 {
            0..=6 => wp,
            7 => wp.saturating_sub(b),
            8 => wp + b * (1 + r % 2),
            9 => start + (r % (self.len(z) / b).max(1)) * b,
            10 => (r % (self.capacity / b + 2)) * b,
            _ => wp + 1, // unaligned when the block is larger than a sector
        };
        let sector = if b == 1 && pos % 12 == 11 { wp } else { sector };
        let cend = self.cap_end(z);
        let zend = start + self.len(z);
        let nr = match len % 12 {
            0..=4 => b * (1 + r % 4),
            5 | 6 => cend.saturating_sub(sector).max(b),
            7 => (cend + b).saturating_sub(sector).max(b),
            8 => (zend + b).saturating_sub(sector).max(b),
            9 => 0,
            10 => b * (1 + r % (self.zone_size / b + 2)),
            _ => b + 1,
        };
        let nr = if b == 1 && len % 12 == 11 { b } else { nr };
        (sector, nr)
    }

    fn resolve(&self, spec: &OpSpec) -> Op {
        let zone = |z: u8| u32::from(z) % self.nr_zones;
        match *spec {
            OpSpec::Write { zone: z, pos, len, r } => {
                let (s, n) = self.place(zone(z), pos, len, r);
                Op::Write(s, n)
            }
            OpSpec::Append { zone: z, pos, len, r } => {
                let z = zone(z);
                let (s, n) = self.place(z, pos, len, r);
                // Mostly at the zone start, as zone append must be.
                let s = if pos % 4 != 0 { self.start(z) } else { s };
                Op::Append(s, n)
            }
            OpSpec::Read { zone: z, pos, len, r } => {
                let (s, n) = self.place(zone(z), pos, len, r);
                Op::Read(s, n)
            }
            OpSpec::Mgmt { op, zone: z, count, shape } => {
                let op = ZoneOp::ALL[usize::from(op % 4)];
                let z = zone(z);
                let start = self.start(z);
                let last = (z + 1 + u32::from(count % 3).min(1 + u32::from(count % 7 == 0))).min(self.nr_zones);
                let end = if last == self.nr_zones { self.capacity } else { self.start(last) };
                match shape % 16 {
                    0..=10 => Op::Mgmt(op, start, self.len(z)),
                    11 | 12 => Op::Mgmt(op, start, end - start),
                    13 => Op::Mgmt(op, 0, self.capacity),
                    14 => Op::Mgmt(op, start + u64::from(count % 2) * self.lbs, self.zone_size - self.lbs),
                    _ => Op::Mgmt(op, start, self.capacity + self.zone_size * u64::from(count % 2)),
                }
            }
            OpSpec::SetCond { zone: z, offline } => Op::SetCond(zone(z), if offline { Offline } else { ReadOnly }),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Running both and comparing
// ---------------------------------------------------------------------------------------------

fn ok(_: &zonekit_core::Transition) -> Result<(), Infallible> {
    Ok(())
}

fn zerr(e: ZoneError) -> MErr {
    (e.kind, e.zone, e.sector)
}

fn table_for(cfg: &Cfg) -> ZoneTable {
    let g = Geometry::new(cfg.capacity, cfg.zone_size, cfg.zone_cap, cfg.nr_conv, cfg.lbs).expect("valid geometry");
    let l = Limits { max_open: cfg.max_open, max_active: cfg.max_active, max_append_sectors: cfg.max_append };
    ZoneTable::new(g, l, cfg.personality)
}

/// Run one operation on both; describe any disagreement.
fn step(t: &mut ZoneTable, m: &mut Model, op: Op) -> Result<(), String> {
    match op {
        Op::Write(s, n) | Op::Append(s, n) => {
            let append = matches!(op, Op::Append(..));
            let got = if append { t.append(s, n, ok) } else { t.write(s, n, ok) };
            let got = match got {
                Ok(tr) => {
                    let Action::Write { sector, .. } = tr.action else { return Err("not a write".into()) };
                    Ok(WriteOut { sector, evict: tr.evict })
                }
                Err(Failed::Zone(e)) => Err(zerr(e)),
                Err(Failed::Effect(never)) => match never {},
            };
            let want = m.write(s, n, append);
            if got != want {
                return Err(format!("state.rs {got:?}, model {want:?}"));
            }
        }
        Op::Read(s, n) => {
            let got = t
                .read(s, n)
                .map(|segs| segs.iter().map(|g| (g.zone, g.sector, g.nr, g.valid)).collect::<Vec<_>>())
                .map_err(zerr);
            let want = m.read(s, n);
            if got != want {
                return Err(format!("state.rs {got:?}, model {want:?}"));
            }
        }
        Op::Mgmt(o, s, n) => {
            let mut done = Vec::new();
            let got = t.manage(o, s, n, |tr| {
                done.push((tr.zone, tr.evict));
                Ok::<(), Infallible>(())
            });
            let got = match got {
                Ok(n) => Ok(n),
                Err(Failed::Zone(e)) => Err(zerr(e)),
                Err(Failed::Effect(never)) => match never {},
            };
            let (want_done, want) = m.mgmt(o, s, n);
            if (&done, &got) != (&want_done, &want) {
                return Err(format!("state.rs {done:?} {got:?}, model {want_done:?} {want:?}"));
            }
        }
        Op::SetCond(z, c) => {
            let got = match t.set_zone_cond(z, c, ok) {
                Ok(tr) => Ok(tr.to),
                Err(Failed::Zone(e)) => Err(zerr(e)),
                Err(Failed::Effect(never)) => match never {},
            };
            let want = m.set_cond(z, c);
            if got != want {
                return Err(format!("state.rs {got:?}, model {want:?}"));
            }
        }
    }
    Ok(())
}

/// The full zone report and the counters agree, and the invariants hold.
fn compare_state(t: &ZoneTable, m: &Model) -> Result<(), String> {
    let g = t.geometry();
    for i in 0..g.nr_zones {
        let z = t.zone(i);
        let (mc, mwp) = (m.zones[i as usize].cond, m.reported_wp(i));
        if (z.cond, z.wp) != (mc, mwp) {
            return Err(format!("zone {i}: state.rs {:?} wp {}, model {mc:?} wp {mwp}", z.cond, z.wp));
        }
        // Invariants on the state machine's own report.
        let cap_end = z.start + z.capacity;
        match z.cond {
            Empty if z.wp != z.start => return Err(format!("zone {i}: empty with wp {}", z.wp)),
            Imp if z.wp <= z.start || z.wp >= cap_end => return Err(format!("zone {i}: imp_open with wp {}", z.wp)),
            Exp | Closed if z.wp < z.start || z.wp >= cap_end => {
                return Err(format!("zone {i}: {:?} with wp {}", z.cond, z.wp));
            }
            Closed if z.wp == z.start && t.personality() != Personality::Zns => {
                return Err(format!("zone {i}: closed with nothing written"));
            }
            NotWp if !g.is_conventional(i) => return Err(format!("zone {i}: sequential zone not_wp")),
            _ => {}
        }
        if g.is_conventional(i) != (z.cond == NotWp) {
            return Err(format!("zone {i}: conventional {} but {:?}", g.is_conventional(i), z.cond));
        }
    }
    let c = t.counters();
    let (imp, exp, closed) = m.counts();
    let want = Counters { imp_open: imp, exp_open: exp, closed };
    if c != want {
        return Err(format!("counters: state.rs {c:?}, model {want:?}"));
    }
    let scan = |cond| (0..g.nr_zones).filter(|&i| t.zone(i).cond == cond).count() as u32;
    if (c.imp_open, c.exp_open) != (scan(Imp), scan(Exp)) {
        return Err(format!("open counters {c:?} differ from the zones"));
    }
    // Closed counts differ only after null_blk's read-only/offline injection quirk.
    if c.closed != scan(Closed) + m.stale_closed || (m.stale_closed > 0 && t.personality() != Personality::NullBlk) {
        return Err(format!("closed counter {} for {} closed zones", c.closed, scan(Closed)));
    }
    let l = t.limits();
    if l.max_open != 0 && c.open() > l.max_open {
        return Err(format!("{} open zones over the limit {}", c.open(), l.max_open));
    }
    if l.max_active != 0 && c.active() > l.max_active {
        return Err(format!("{} active zones over the limit {}", c.active(), l.max_active));
    }
    Ok(())
}

fn run_sequence(cfg: &Cfg, specs: &[OpSpec]) -> Result<(), TestCaseError> {
    let mut t = table_for(cfg);
    let mut m = Model::new(cfg);
    compare_state(&t, &m).map_err(TestCaseError::fail)?;
    let mut log = Vec::new();
    for spec in specs {
        let op = m.resolve(spec);
        log.push(format!("{op:?}"));
        let r = step(&mut t, &mut m, op).and_then(|()| compare_state(&t, &m));
        if let Err(e) = r {
            return Err(TestCaseError::fail(format!("{cfg:?}\nafter {}:\n{e}", log.join("\n  "))));
        }
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

fn check_personality(p: Personality) {
    let config = Config { cases: cases(), failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let strategy = (cfg_strategy(p), prop::collection::vec(op_strategy(), 1..80));
    let result = runner.run(&strategy, |(cfg, specs)| run_sequence(&cfg, &specs));
    if let Err(e) = result {
        panic!("{p}: {e}");
    }
}

#[test]
fn nullblk_matches_model() {
    check_personality(Personality::NullBlk);
}

#[test]
fn zbc_matches_model() {
    check_personality(Personality::Zbc);
}

#[test]
fn zns_matches_model() {
    check_personality(Personality::Zns);
}

/// The strategies reach the states, rules and quirks the model distinguishes (a guard against a
/// generator that silently stops exercising them).
#[test]
fn generator_reaches_every_rule() {
    use std::collections::BTreeSet;
    // A fixed seed: which rules a random sample reaches must not change from run to run (a fresh
    // seed missed a rare one now and then).
    let config = Config { cases: 300, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let mut seen = BTreeSet::new();
    let mut evictions = 0u32;
    for p in Personality::ALL {
        let strategy = (cfg_strategy(p), prop::collection::vec(op_strategy(), 1..80));
        for _ in 0..400 {
            let (cfg, specs) = strategy.new_tree(&mut runner).expect("generate").current();
            let mut m = Model::new(&cfg);
            if cfg.capacity % cfg.zone_size != 0 {
                seen.insert("smaller last zone".to_string());
            }
            for spec in &specs {
                let op = m.resolve(spec);
                let (cursor, imp_before) = (m.cursor, m.counts().0);
                let r: Result<Vec<u32>, MErr> = match op {
                    Op::Write(s, n) => m.write(s, n, false).map(|o| o.evict.into_iter().collect()),
                    Op::Append(s, n) => m.write(s, n, true).map(|o| o.evict.into_iter().collect()),
                    Op::Read(s, n) => m.read(s, n).map(|_| vec![]),
                    Op::Mgmt(o, s, n) => {
                        let (done, r) = m.mgmt(o, s, n);
                        if o == ZoneOp::Reset && s == 0 && n == m.capacity && done.len() > 1 {
                            seen.insert("reset all".to_string());
                        }
                        r.map(|_| done.iter().filter_map(|d| d.1).collect())
                    }
                    Op::SetCond(z, c) => m.set_cond(z, c).map(|_| vec![]),
                };
                match r {
                    Ok(victims) => {
                        evictions += victims.len() as u32;
                        for v in victims {
                            if p == Personality::NullBlk && v < cursor {
                                seen.insert("round-robin scan wraps".to_string());
                            }
                            if p == Personality::NullBlk && v == m.nr_zones - 1 {
                                seen.insert("round-robin cursor wraps".to_string());
                            }
                        }
                    }
                    Err((k, _, _)) => {
                        seen.insert(format!("{k:?}"));
                        if p == Personality::Zns && m.counts().0 < imp_before {
                            seen.insert(format!("auto transition then {k:?}"));
                        }
                    }
                }
                if m.stale_closed > 0 {
                    seen.insert("stale closed count".to_string());
                }
                for (i, z) in m.zones.iter().enumerate() {
                    seen.insert(format!("{:?}", z.cond));
                    let i = i as u32;
                    if z.cond == Full && z.wp == m.cap_end(i) && m.cap_end(i) < m.start(i) + m.len(i) {
                        seen.insert("full below the zone size".to_string());
                    }
                }
            }
        }
    }
    let wanted = [
        "Unaligned",
        "OutOfRange",
        "MgmtUnaligned",
        "NotWritePointer",
        "PastCapacity",
        "ZoneFull",
        "BoundaryCrossing",
        "OpenLimit",
        "ActiveLimit",
        "InvalidTransition",
        "Conventional",
        "ReadOnly",
        "Offline",
        "AppendNotZoneStart",
        "AppendTooLarge",
        "NotWp",
        "Empty",
        "ImplicitOpen",
        "ExplicitOpen",
        "Closed",
        "Full",
        "smaller last zone",
        "reset all",
        "round-robin scan wraps",
        "round-robin cursor wraps",
        "auto transition then ActiveLimit",
        "stale closed count",
        "full below the zone size",
    ];
    for w in wanted {
        assert!(seen.contains(w), "the generator never reached '{w}': {seen:?}");
    }
    assert!(evictions > 100, "only {evictions} evictions");
}
