//! Zone write plugging, as Linux's block layer does it (`block/blk-zoned.c`, 6.10 and later), and
//! the single-context QD1 worker of Linux 7.1 (`zoned_qd1_writes`).
//!
//! A pure state machine: writes (and zone appends) come in with [`Plugs::submit`], completions
//! with [`Plugs::complete`], zone management with [`Plugs::reset`] / [`Plugs::finish`] /
//! [`Plugs::reset_all`], zone reports with [`Plugs::sync_wp`]; each call appends [`Event`]s that say
//! what to send to the device now and what fails without reaching it. The driver (the device
//! queue of this crate) carries the events out, on a clock or not.
//!
//! The rules, each with the kernel function it follows:
//! - Plugs exist only for zones being written or partially written: a queue starts with one for
//!   each partially written zone ([`Plugs::revalidate`], `blk_revalidate_seq_zone`); a plug made
//!   for a write to a zone without one starts its write-pointer offset at the write's own offset
//!   (`disk_get_and_lock_zone_wplug`); a plug goes away when its zone becomes empty or full
//!   (`disk_zone_wplug_unplug_bio`, `disk_zone_wplug_set_wp_offset`).
//! - At most one write in flight per zone: a write to a zone whose plug is busy waits in the
//!   plug's list, in submission order (`blk_zone_wplug_handle_write`). With `qd1`, every write
//!   waits in a list and one worker per device sends them one at a time: it drains one zone's list
//!   (writes that arrive meanwhile included) before it takes the next zone, in the order zones got
//!   writes (`disk_zone_wplugs_worker`).
//! - Before a write goes to the device it is checked against the cached write-pointer offset: a
//!   write to a full zone, or not at the write pointer, fails with EIO there
//!   (`blk_zone_wplug_prepare_bio`). An emulated zone append becomes a write at the cached write
//!   pointer; the completion carries the sector.
//! - A request sent from a plug back-merges the contiguous writes waiting behind it, up to the
//!   request size cap (`blk_zone_write_plug_init_request`); zone appends are not merged.
//! - Writes to conventional zones are not plugged; zone appends to them fail. A native zone append
//!   is not plugged either; writes still waiting in its zone's plug fail ("invalid mix of zone
//!   append and regular writes", `blk_zone_wplug_handle_native_zone_append`).
//! - Reset and finish set the plug's offset (0, the zone size) and fail what waits in it; reset-all
//!   does it for every plug. Linux 6.12.95 does it when the command completes without error
//!   (`blk_zone_mgmt_bio_endio`), earlier 6.12 releases at submission
//!   (`blk_zone_wplug_handle_reset_or_finish`): the caller says when.
//! - After a failed write, the plug's write pointer is unknown: with [`Recovery::NeedWpUpdate`]
//!   (the default: 6.13 and later, and Debian's 6.12.95, which has the fix backported) every
//!   waiting write fails and later writes fail until a zone report that covers the zone, a reset
//!   or a finish (`BLK_ZONE_WPLUG_NEED_WP_UPDATE`); a plug that did not lose it keeps its own
//!   write pointer whatever a report says; a plug at a zone's start or capacity goes away when
//!   its last request completes, even a failed one (`disk_zone_wplug_unplug_bio`), but not after a
//!   write that failed its checks at submission; with [`Recovery::Resync`] (6.10 to 6.12 before the
//!   backport) the block layer reads it back from the device at once ([`Event::Resync`],
//!   `disk_zone_wplug_handle_error`) and fails the waiting writes that no longer line up with it
//!   (`disk_zone_wplug_abort_unaligned`).

use std::collections::VecDeque;

use zonekit_core::{Geometry, Zone, ZoneCond};

use super::small_list::SmallList;

/// A write or zone append handed to the plugs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bio {
    /// The caller's name for it, handed back in its events.
    pub id: u64,
    /// First sector (for a zone append: the zone's start).
    pub sector: u64,
    /// Length in sectors.
    pub sectors: u64,
    /// A zone append rather than a write.
    pub append: bool,
}

/// One request for the device: one or more contiguous writes of one zone, merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The zone.
    pub zone: u32,
    /// First sector.
    pub sector: u64,
    /// Length in sectors (the sum of the writes').
    pub sectors: u64,
    /// The writes, in order (see [`Request::bios`]).
    bios: SmallList<Bio>,
}

impl Request {
    /// The writes, in order, with the sectors they go to (an emulated zone append's sector is the
    /// write pointer it was given).
    pub fn bios(&self) -> &[Bio] {
        &self.bios
    }
}

/// Why a write failed without reaching the device (the kernel fails each with EIO).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailReason {
    /// It crosses a zone boundary.
    Straddles,
    /// A zone append to a conventional zone.
    AppendConventional,
    /// The zone is full (by the cached write pointer).
    ZoneFull,
    /// Not at the cached write pointer.
    Unaligned,
    /// The zone's write pointer is unknown since a failed write (6.13's rule).
    NeedWpUpdate,
    /// It waited in the plug and the plug was aborted: a failed write before it, a reset or
    /// finish of its zone, or a native zone append to it.
    Aborted,
}

impl std::fmt::Display for FailReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FailReason::Straddles => "crosses a zone boundary",
            FailReason::AppendConventional => "zone append to a conventional zone",
            FailReason::ZoneFull => "the zone is full",
            FailReason::Unaligned => "not at the zone's write pointer",
            FailReason::NeedWpUpdate => {
                "the zone's write pointer is unknown since a failed write (report the zone, or reset or finish it)"
            }
            FailReason::Aborted => "aborted with its zone's plug",
        })
    }
}

/// What to do now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Send this request to the device. Its completion comes back with [`Plugs::complete`].
    Dispatch(Request),
    /// Send this write to the device outside the plugs (a conventional zone, a native zone
    /// append); nothing comes back to the plugs.
    Direct(Bio),
    /// This write fails (EIO) without reaching the device.
    Fail(Bio, FailReason),
    /// Read the zone's write pointer from the device and give it to [`Plugs::sync_wp`] (error
    /// recovery, [`Recovery::Resync`]).
    Resync(u32),
    /// Call [`Plugs::wake`] with this after the host's re-issue latency ([`PlugConfig::pop_when_run`]):
    /// a zone's work item (`Some(zone)`) or the qd1 worker (`None`) runs.
    Wake(Option<u32>),
}

/// What the block layer does after a failed write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Recovery {
    /// Linux 6.10 to 6.12 before the stable backport of the 6.13 fix: read the write pointer back
    /// from the device at once.
    Resync,
    /// Linux 6.13 and later, and Debian's 6.12.95 (the VM lane shows it): writes fail until a
    /// zone report that covers the zone, a reset or a finish.
    #[default]
    NeedWpUpdate,
}

/// How the plugs are set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlugConfig {
    /// Zone layout.
    pub geometry: Geometry,
    /// Largest request, in sectors (`max_sectors_kb` × 2).
    pub max_sectors: u64,
    /// `zoned_qd1_writes`: one worker sends every write, one at a time.
    pub qd1: bool,
    /// The device has zone append (null_blk, NVMe); otherwise the plugs emulate it (SCSI ZBC).
    pub native_append: bool,
    /// Error recovery.
    pub recovery: Recovery,
    /// The sender takes the next write from a list when it runs, not at the completion that
    /// lets it go: a completion asks for a [`Event::Wake`], and [`Plugs::wake`] builds the request
    /// then, with whatever waits in the list by that time (`blk_zone_wplug_bio_work` and
    /// `disk_zone_wplugs_worker` pop the plug's list when the work item or the worker runs). Off,
    /// the request is built at the completion (a driver that sends it at once).
    pub pop_when_run: bool,
}

#[derive(Debug, Default)]
struct Plug {
    /// Sectors from the zone start to the cached write pointer.
    wp_offset: u64,
    /// Writes waiting, in submission order.
    list: VecDeque<Bio>,
    /// A request of this zone is at the device (or, with qd1, the zone is on the worker's list
    /// or being drained).
    plugged: bool,
    /// On the qd1 worker's list.
    listed: bool,
    /// The write pointer is unknown (6.13's rule).
    need_wp_update: bool,
    /// Requests of this zone at the device.
    in_flight: u32,
}

impl Plug {
    /// `blk_zone_wplug_prepare_bio`: check `bio` against this plug, of zone `zone` (its first
    /// sector `start`, its capacity `cap`), and advance its offset; an emulated append gets its
    /// sector. `None` (and a `Fail` event) if it cannot go.
    fn prepare(
        &mut self,
        zone: u32,
        start: u64,
        cap: u64,
        recovery: Recovery,
        mut bio: Bio,
        out: &mut Vec<Event>,
    ) -> Option<Bio> {
        let why = if self.need_wp_update {
            Some(FailReason::NeedWpUpdate)
        } else if self.wp_offset >= cap {
            Some(FailReason::ZoneFull)
        } else if !bio.append && bio.sector - start != self.wp_offset {
            Some(FailReason::Unaligned)
        } else {
            None
        };
        if let Some(why) = why {
            out.push(Event::Fail(bio, why));
            if why != FailReason::NeedWpUpdate {
                // The failed write ends as any failed plugged write does.
                write_failed(self, zone, recovery, out);
            }
            return None;
        }
        if bio.append {
            bio.sector = start + self.wp_offset;
        }
        self.wp_offset += bio.sectors;
        Some(bio)
    }
}

/// The plugs of a device, found by zone number (the kernel hashes them; a table indexed by zone
/// costs 4 bytes a zone and no hashing on every write): a plug's place in a slab whose freed
/// places, and the memory of their lists, serve the next plugs made.
#[derive(Debug, Default)]
struct PlugTable {
    /// By zone number: the place of the zone's plug in `slab`, or [`PlugTable::NONE`]. Grows to
    /// the highest zone that had a plug.
    index: Vec<u32>,
    /// Plugs, each with its zone (`NONE` for a free place).
    slab: Vec<(u32, Plug)>,
    /// Free places of `slab`.
    free: Vec<u32>,
}

impl PlugTable {
    const NONE: u32 = u32::MAX;

    fn place(&self, zone: u32) -> Option<usize> {
        match self.index.get(zone as usize) {
            Some(&i) if i != Self::NONE => Some(i as usize),
            _ => None,
        }
    }

    fn get(&self, zone: u32) -> Option<&Plug> {
        self.place(zone).map(|i| &self.slab[i].1)
    }

    fn get_mut(&mut self, zone: u32) -> Option<&mut Plug> {
        self.place(zone).map(|i| &mut self.slab[i].1)
    }

    /// `zone`'s plug, made with `wp_offset` if it has none.
    fn get_or_insert(&mut self, zone: u32, wp_offset: u64) -> &mut Plug {
        if let Some(i) = self.place(zone) {
            return &mut self.slab[i].1;
        }
        if self.index.len() <= zone as usize {
            self.index.resize(zone as usize + 1, Self::NONE);
        }
        let fresh = Plug { wp_offset, ..Plug::default() };
        let i = match self.free.pop() {
            Some(i) => {
                let (z, p) = &mut self.slab[i as usize];
                *z = zone;
                // Keep the list's memory.
                let list = std::mem::take(&mut p.list);
                *p = Plug { list, ..fresh };
                i
            }
            None => {
                self.slab.push((zone, fresh));
                (self.slab.len() - 1) as u32
            }
        };
        self.index[zone as usize] = i;
        &mut self.slab[i as usize].1
    }

    fn remove(&mut self, zone: u32) {
        let Some(i) = self.place(zone) else { return };
        self.index[zone as usize] = Self::NONE;
        let (z, p) = &mut self.slab[i];
        *z = Self::NONE;
        p.list.clear();
        self.free.push(i as u32);
    }

    fn len(&self) -> usize {
        self.slab.len() - self.free.len()
    }

    /// The plugs, with their zones, in no particular order.
    fn iter(&self) -> impl Iterator<Item = (u32, &Plug)> {
        self.slab.iter().filter(|(z, _)| *z != Self::NONE).map(|(z, p)| (*z, p))
    }
}

/// The zone write plugs of one device (see the module documentation).
#[derive(Debug)]
pub struct Plugs {
    cfg: PlugConfig,
    plugs: PlugTable,
    /// qd1: zones with writes, in the order they got them.
    fifo: VecDeque<u32>,
    /// qd1: the zone the worker drains, and whether its request is at the device.
    worker: Option<(u32, bool)>,
    /// qd1 with [`PlugConfig::pop_when_run`]: the worker has been woken and has not run yet.
    waking: bool,
}

impl Plugs {
    /// Plugs of a device: none yet (see [`Plugs::revalidate`]).
    pub fn new(cfg: PlugConfig) -> Plugs {
        Plugs { cfg, plugs: PlugTable::default(), fifo: VecDeque::new(), worker: None, waking: false }
    }

    /// The configuration.
    pub fn config(&self) -> &PlugConfig {
        &self.cfg
    }

    /// Turn the qd1 worker on or off (only while nothing is plugged, as the kernel freezes the
    /// queue to do it). Returns false when writes are in flight or waiting.
    pub fn set_qd1(&mut self, on: bool) -> bool {
        if self.plugs.iter().any(|(_, p)| p.plugged || !p.list.is_empty()) {
            return false;
        }
        self.cfg.qd1 = on;
        true
    }

    /// Number of plugs (zones being written or partially written).
    pub fn len(&self) -> usize {
        self.plugs.len()
    }

    /// Whether there is no plug.
    pub fn is_empty(&self) -> bool {
        self.plugs.len() == 0
    }

    /// Writes waiting in plugs (not at the device).
    pub fn waiting(&self) -> usize {
        self.plugs.iter().map(|(_, p)| p.list.len()).sum()
    }

    /// The cached write-pointer offset of `zone`, if it has a plug.
    pub fn wp_offset(&self, zone: u32) -> Option<u64> {
        self.plugs.get(zone).map(|p| p.wp_offset)
    }

    /// Make a plug for each partially written sequential zone of `zones` (a zone report of the
    /// device), as the kernel does when it revalidates a disk's zones.
    pub fn revalidate(&mut self, zones: &[Zone]) {
        for z in zones {
            let Some(idx) = self.cfg.geometry.zone_index(z.start) else { continue };
            if self.cfg.geometry.is_conventional(idx) {
                continue;
            }
            let off = z.wp.saturating_sub(z.start);
            let partial = off > 0
                && off < z.capacity
                && !matches!(z.cond, ZoneCond::Full | ZoneCond::ReadOnly | ZoneCond::Offline);
            if partial {
                self.plugs.get_or_insert(idx, off).wp_offset = off;
            }
        }
    }

    fn zone_of(&self, sector: u64) -> Option<u32> {
        self.cfg.geometry.zone_index(sector)
    }

    fn zone_start(&self, zone: u32) -> u64 {
        self.cfg.geometry.zone_start(zone)
    }

    fn zone_cap(&self, zone: u32) -> u64 {
        self.cfg.geometry.zone_cap(zone)
    }

    /// A write or zone append arrives (already split to zone boundaries and to the request size
    /// cap by the caller).
    pub fn submit(&mut self, bio: Bio, out: &mut Vec<Event>) {
        let Some(zone) = self.zone_of(bio.sector) else {
            out.push(Event::Fail(bio, FailReason::Straddles));
            return;
        };
        let start = self.zone_start(zone);
        if bio.sector + bio.sectors > start + self.cfg.geometry.zone_len(zone) {
            out.push(Event::Fail(bio, FailReason::Straddles));
            return;
        }
        if self.cfg.geometry.is_conventional(zone) {
            if bio.append {
                out.push(Event::Fail(bio, FailReason::AppendConventional));
            } else {
                out.push(Event::Direct(bio));
            }
            return;
        }
        if bio.append && self.cfg.native_append {
            if let Some(p) = self.plugs.get_mut(zone) {
                for b in p.list.drain(..) {
                    out.push(Event::Fail(b, FailReason::Aborted));
                }
                if p.in_flight == 0 {
                    self.plugs.remove(zone);
                    self.fifo.retain(|&z| z != zone);
                }
            }
            out.push(Event::Direct(bio));
            return;
        }
        let offset = if bio.append { 0 } else { bio.sector - start };
        let (cap, recovery) = (self.zone_cap(zone), self.cfg.recovery);
        let plug = self.plugs.get_or_insert(zone, offset);
        if self.cfg.qd1 {
            plug.list.push_back(bio);
            if !plug.listed {
                plug.listed = true;
                self.fifo.push_back(zone);
            }
            plug.plugged = true;
            self.run_worker(out);
            return;
        }
        if plug.plugged {
            plug.list.push_back(bio);
            return;
        }
        match plug.prepare(zone, start, cap, recovery, bio, out) {
            Some(b) => {
                plug.plugged = true;
                plug.in_flight += 1;
                let req = Request { zone, sector: b.sector, sectors: b.sectors, bios: SmallList::One(b) };
                out.push(Event::Dispatch(req));
            }
            None => self.drop_if_idle(zone),
        }
    }

    /// Take the next request from `zone`'s list: the first write that passes its checks, with
    /// the contiguous writes behind it merged in. Failing writes are failed on the way.
    fn next_request(&mut self, zone: u32, out: &mut Vec<Event>) -> Option<Request> {
        if self.plugs.get(zone).is_none_or(|p| p.list.is_empty()) {
            // The qd1 worker asks once more after the last write of a zone.
            return None;
        }
        let (start, cap, recovery) = (self.zone_start(zone), self.zone_cap(zone), self.cfg.recovery);
        let max = self.cfg.max_sectors;
        let p = self.plugs.get_mut(zone)?;
        loop {
            let b = p.list.pop_front()?;
            let Some(b) = p.prepare(zone, start, cap, recovery, b, out) else { continue };
            let mut req = Request { zone, sector: b.sector, sectors: b.sectors, bios: SmallList::One(b) };
            if !b.append {
                while let Some(&n) = p.list.front() {
                    let end = req.sector + req.sectors;
                    if n.append || n.sector != end || req.sectors + n.sectors > max || p.wp_offset >= cap {
                        break;
                    }
                    p.list.pop_front();
                    p.wp_offset += n.sectors;
                    req.sectors += n.sectors;
                    req.bios.push(n);
                }
            }
            return Some(req);
        }
    }

    /// The qd1 worker: if it is idle, send the next request (from the zone it drains, else from
    /// the next zone on its list); with [`PlugConfig::pop_when_run`], wake it up to do so.
    fn run_worker(&mut self, out: &mut Vec<Event>) {
        if self.cfg.pop_when_run {
            let idle = match self.worker {
                Some((_, busy)) => !busy,
                None => !self.fifo.is_empty(),
            };
            if idle && !self.waking {
                self.waking = true;
                out.push(Event::Wake(None));
            }
            return;
        }
        self.worker_step(out);
    }

    /// The woken sender runs ([`Event::Wake`]): the qd1 worker (`None`) sends its next request;
    /// a zone's work item sends the zone's next request, merged with what waits behind it now.
    pub fn wake(&mut self, who: Option<u32>, out: &mut Vec<Event>) {
        match who {
            None => {
                self.waking = false;
                self.worker_step(out);
            }
            Some(zone) => {
                let Some(p) = self.plugs.get_mut(zone) else { return };
                // The work item held the zone's slot since the completion.
                p.in_flight = p.in_flight.saturating_sub(1);
                self.send_next(zone, out);
            }
        }
    }

    /// [`Plugs::run_worker`]'s work: the worker takes the next request.
    fn worker_step(&mut self, out: &mut Vec<Event>) {
        loop {
            match self.worker {
                Some((_, true)) => return,
                Some((zone, false)) => {
                    if let Some(req) = self.next_request(zone, out) {
                        self.plugs.get_mut(zone).expect("plug exists").in_flight += 1;
                        self.worker = Some((zone, true));
                        out.push(Event::Dispatch(req));
                        return;
                    }
                    // Drained: done with this zone.
                    self.worker = None;
                    if let Some(p) = self.plugs.get_mut(zone) {
                        p.plugged = p.listed;
                    }
                    self.drop_if_idle(zone);
                }
                None => {
                    let Some(zone) = self.fifo.pop_front() else { return };
                    let Some(p) = self.plugs.get_mut(zone) else { continue };
                    p.listed = false;
                    self.worker = Some((zone, false));
                }
            }
        }
    }

    /// Drop `zone`'s plug when nothing uses it, its zone is empty or full, and it knows its write
    /// pointer (or has nothing to remember). A plug whose write failed its checks at submission
    /// stays with its write pointer lost, whatever its offset: no request ended, so nothing
    /// unplugged it.
    fn drop_if_idle(&mut self, zone: u32) {
        let cap = self.zone_cap(zone);
        let Some(p) = self.plugs.get(zone) else { return };
        let busy = p.plugged || p.listed || p.in_flight > 0 || !p.list.is_empty();
        if !busy && !p.need_wp_update && (p.wp_offset == 0 || p.wp_offset >= cap) {
            self.plugs.remove(zone);
        }
    }

    /// The last request of `zone` completed and nothing waits (`disk_zone_wplug_unplug_bio`):
    /// the plug goes away if its offset is the zone's start or capacity, even after a failed
    /// write (`disk_mark_zone_wplug_dead`); the next write makes a new plug at its own offset.
    fn unplug(&mut self, zone: u32) {
        let cap = self.zone_cap(zone);
        let Some(p) = self.plugs.get_mut(zone) else { return };
        p.plugged = false;
        if !p.listed && p.in_flight == 0 && p.list.is_empty() && (p.wp_offset == 0 || p.wp_offset >= cap) {
            self.plugs.remove(zone);
        }
    }

    /// The request sent for `zone` completed, successfully or not.
    pub fn complete(&mut self, zone: u32, ok: bool, out: &mut Vec<Event>) {
        let recovery = self.cfg.recovery;
        if let Some(p) = self.plugs.get_mut(zone) {
            p.in_flight = p.in_flight.saturating_sub(1);
            if !ok {
                write_failed(p, zone, recovery, out);
            }
        }
        if self.cfg.qd1 {
            if let Some((z, true)) = self.worker
                && z == zone
            {
                self.worker = Some((zone, false));
            }
            self.run_worker(out);
            return;
        }
        let Some(p) = self.plugs.get_mut(zone) else { return };
        if self.cfg.pop_when_run && !p.list.is_empty() {
            // The zone's work item is scheduled; it holds the zone's slot until it runs.
            p.in_flight += 1;
            out.push(Event::Wake(Some(zone)));
            return;
        }
        self.send_next(zone, out);
    }

    /// Per-zone plugs: send `zone`'s next request, or unplug it if nothing waits.
    fn send_next(&mut self, zone: u32, out: &mut Vec<Event>) {
        let Some(p) = self.plugs.get_mut(zone) else { return };
        if p.list.is_empty() {
            self.unplug(zone);
            return;
        }
        match self.next_request(zone, out) {
            Some(req) => {
                self.plugs.get_mut(zone).expect("plug exists").in_flight += 1;
                out.push(Event::Dispatch(req));
            }
            None => {
                if let Some(p) = self.plugs.get_mut(zone) {
                    p.plugged = false;
                }
                self.drop_if_idle(zone);
            }
        }
    }

    /// The device reported `zone`'s write pointer (a zone report, or the read-back of error
    /// recovery).
    ///
    /// With [`Recovery::NeedWpUpdate`], only a plug that lost its write pointer takes it
    /// (`disk_zone_wplug_sync_wp_offset`): its offset becomes the zone's as the kernel reads it
    /// from a report (`blk_zone_wp_offset`: the zone size for a full zone, none for a read-only or
    /// offline one), what waits in it fails, and the plug goes away if the zone is empty or full.
    /// A plug that did not lose it keeps its own, even where the device's differs (after a range
    /// operation that failed on an earlier zone, see [`Plugs::reset`]).
    ///
    /// With [`Recovery::Resync`] (6.12's recovery before the backport), the plug takes the write
    /// pointer and fails the waiting writes that no longer line up with it.
    pub fn sync_wp(&mut self, zone: &Zone, out: &mut Vec<Event>) {
        let Some(idx) = self.zone_of(zone.start) else { return };
        let Some(p) = self.plugs.get_mut(idx) else { return };
        if self.cfg.recovery == Recovery::NeedWpUpdate {
            if p.need_wp_update {
                let offset = match zone.cond {
                    ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen | ZoneCond::Closed => {
                        zone.wp.saturating_sub(zone.start)
                    }
                    ZoneCond::Full => zone.len,
                    ZoneCond::Empty => 0,
                    _ => u64::MAX,
                };
                self.set_wp_offset(idx, offset, out);
            }
            return;
        }
        let unusable = matches!(zone.cond, ZoneCond::ReadOnly | ZoneCond::Offline);
        p.wp_offset = if unusable { u64::MAX } else { zone.wp.saturating_sub(zone.start) };
        p.need_wp_update = false;
        let start = zone.start;
        let mut expect = p.wp_offset;
        let list = std::mem::take(&mut p.list);
        for b in list {
            if !unusable && (b.append || b.sector - start == expect) {
                expect = expect.saturating_add(b.sectors);
                p.list.push_back(b);
            } else {
                out.push(Event::Fail(b, FailReason::Aborted));
            }
        }
        if unusable {
            p.wp_offset = zone.capacity;
        }
        self.kick(idx, out);
    }

    /// Set `zone`'s plug to `wp_offset` and fail what waits in it (reset: 0; finish: the zone's
    /// size), at submission as Linux 6.12 does.
    fn set_wp_offset(&mut self, zone: u32, wp_offset: u64, out: &mut Vec<Event>) {
        let Some(p) = self.plugs.get_mut(zone) else { return };
        p.wp_offset = wp_offset;
        p.need_wp_update = false;
        for b in p.list.drain(..) {
            out.push(Event::Fail(b, FailReason::Aborted));
        }
        if p.in_flight == 0 {
            p.plugged = false;
        }
        self.drop_if_idle(zone);
    }

    /// If `zone` has writes waiting and nothing at the device, send the next.
    fn kick(&mut self, zone: u32, out: &mut Vec<Event>) {
        if self.cfg.qd1 {
            self.run_worker(out);
            return;
        }
        let Some(p) = self.plugs.get(zone) else { return };
        if p.in_flight > 0 {
            return;
        }
        if let Some(req) = self.next_request(zone, out) {
            let p = self.plugs.get_mut(zone).expect("plug exists");
            p.in_flight += 1;
            p.plugged = true;
            out.push(Event::Dispatch(req));
        } else {
            if let Some(p) = self.plugs.get_mut(zone) {
                p.plugged = false;
            }
            self.drop_if_idle(zone);
        }
    }

    /// A zone reset of `zone` completed without error (`blk_zone_reset_bio_endio`; Linux 6.12
    /// before the 6.12.95 backport did it at submission). A bio of a range whose earlier zone
    /// failed carries that error (its chained child's), so the plugs of the zones after a failing
    /// one are not told.
    pub fn reset(&mut self, zone: u32, out: &mut Vec<Event>) {
        self.set_wp_offset(zone, 0, out);
    }

    /// A zone finish of `zone` completed without error (`blk_zone_finish_bio_endio`; see
    /// [`Plugs::reset`]).
    pub fn finish(&mut self, zone: u32, out: &mut Vec<Event>) {
        let len = self.cfg.geometry.zone_len(zone);
        self.set_wp_offset(zone, len, out);
    }

    /// A reset of every zone completed without error (`blk_zone_reset_all_bio_endio`).
    pub fn reset_all(&mut self, out: &mut Vec<Event>) {
        let mut zones: Vec<u32> = self.plugs.iter().map(|(z, _)| z).collect();
        zones.sort_unstable();
        for z in zones {
            self.set_wp_offset(z, 0, out);
        }
    }
}

/// A write of `zone` failed (on the device, or in the plug's checks): the plug's write pointer is
/// unknown. 6.13's rule fails what waits and every later write until the pointer is known again;
/// 6.12's asks for the device's pointer at once.
fn write_failed(p: &mut Plug, zone: u32, recovery: Recovery, out: &mut Vec<Event>) {
    match recovery {
        Recovery::Resync => out.push(Event::Resync(zone)),
        Recovery::NeedWpUpdate => {
            p.need_wp_update = true;
            for b in p.list.drain(..) {
                out.push(Event::Fail(b, FailReason::Aborted));
            }
        }
    }
}

#[cfg(test)]
mod tests;
