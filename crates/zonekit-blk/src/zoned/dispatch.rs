//! The request queue of one device during a run ([`DeviceQueue`]): what every engine that uses the
//! device submits goes through it, so that zone write plugging sees every writer of the device,
//! as the kernel's does.
//!
//! - Writes and zone appends go through the device's zone write plugs ([`super::plug`]): a write
//!   that must wait is held (with a copy of its data) and sent later, merged with the writes
//!   behind it, when the write in flight for its zone completes (or, with `zoned_qd1_writes`, when
//!   the device's one worker gets to it). Reads, flushes, resets and finishes are not plugged.
//! - The device carries out a request when it is sent (its zones change then), and the timing
//!   model, if the device has one, says when it completes. A request that a completion lets go is
//!   sent after the host's re-issue latency ([`QueueConfig::reissue_ns`]: the kernel sends it from
//!   a work item, or the qd1 worker wakes up), in the order of simulated or real time.
//! - Without a timing model, everything completes at once: a write is never held, and the plugs
//!   only check writes against their cached write pointers.
//! - A Linux zoned block device gets its requests straight through: the kernel plugs them itself.
//!
//! Completions go to the outbox of the engine that submitted the I/O ([`DeviceQueue::take`]).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use zonekit_core::{
    Command, CommandKind, DeviceError, DeviceKind, Done, Errno, QueueSettings, TimingModel, Zone, ZoneOp, ZonedDevice,
};

use super::limits::{LimitOverrides, QueueLimits};
use super::mgmt::{self, MgmtCommand};
use super::plug::{Bio, Event, PlugConfig, Plugs, Recovery, Request};
use super::small_list::SmallList;
use super::split;

/// How a device's queue is set up for a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueConfig {
    /// `max_sectors_kb` and `zoned_qd1_writes`.
    pub settings: QueueSettings,
    /// Error recovery after a failed write.
    pub recovery: Recovery,
    /// Nanoseconds between a completion and the sending of the write it lets go from a plug
    /// (the kernel's work item, or the qd1 worker's wake-up).
    pub reissue_ns: u64,
    /// The work item or the worker takes the next write from the plug's list when it runs,
    /// `reissue_ns` after the completion, so writes that arrived meanwhile are merged or sent
    /// next, as the kernel's `disk_zone_wplug_submit_bio` does (on by default); off, it is chosen
    /// at the completion.
    pub pop_when_run: bool,
    /// Nanoseconds of simulated time a program that submits to this queue spends per I/O before
    /// it reaches the queue (fio's reaping, next offset and `io_submit`); the benchmark's loop
    /// spends it, in simulated time only. 0 by default.
    pub host_io_ns: u64,
}

impl QueueConfig {
    /// The device's own settings, the recovery of Debian's 6.12 kernel, and a re-issue latency
    /// of 10 µs.
    pub fn for_device(device: &dyn ZonedDevice) -> QueueConfig {
        QueueConfig {
            settings: device.info().queue,
            recovery: Recovery::default(),
            reissue_ns: 10_000,
            pop_when_run: true,
            host_io_ns: 0,
        }
    }
}

/// What an engine submits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueOp {
    /// Read.
    Read,
    /// Write at `sector`.
    Write,
    /// Zone append to the zone starting at `sector`.
    Append,
    /// Flush the device's write cache.
    Flush,
    /// Reset the zones of the range.
    Reset,
    /// Finish the zones of the range (`BLKFINISHZONE`).
    Finish,
}

/// One I/O of an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueIo {
    /// The engine's number in the queue ([`DeviceQueue::register`]).
    pub engine: u32,
    /// The engine's slot.
    pub tag: u32,
    /// What to do.
    pub op: QueueOp,
    /// First sector.
    pub sector: u64,
    /// Sectors.
    pub sectors: u64,
}

/// A finished I/O, in its engine's outbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    /// The engine's slot.
    pub tag: u32,
    /// Bytes transferred (0 for flushes and resets) or `-errno`.
    pub result: i32,
    /// When it completed (the queue's clock).
    pub at_ns: u64,
    /// When the device got it (the sending of its request).
    pub sent_ns: u64,
    /// Where a zone append landed.
    pub append_sector: Option<u64>,
}

/// One bio inside a command at the device.
#[derive(Debug, Clone, Copy)]
struct Part {
    id: u64,
    result: i32,
    append_sector: Option<u64>,
}

/// What the plugs are told when a command completes.
#[derive(Debug, Clone)]
enum PlugNote {
    /// A request from this zone's plug completed ([`Plugs::complete`]).
    Request(u32),
    /// These zones were reset, each without error ([`Plugs::reset`]).
    Reset(std::ops::Range<u32>),
    /// These zones were finished, each without error ([`Plugs::finish`]).
    Finish(std::ops::Range<u32>),
    /// Every zone was reset, without error ([`Plugs::reset_all`]).
    ResetAll,
}

/// What a completion lets go, after the host's re-issue latency.
#[derive(Debug)]
enum Pending {
    /// Send this request (built at the completion).
    Send(Request),
    /// Wake the work item of a zone, or the qd1 worker ([`Plugs::wake`]).
    Wake(Option<u32>),
}

/// A command at the timing model: its I/Os, and what the plugs are told when it completes.
#[derive(Debug)]
struct AtModel {
    parts: SmallList<Part>,
    note: Option<PlugNote>,
    sent_ns: u64,
}

struct Timing {
    model: Box<dyn TimingModel>,
    /// The latest time the model was given.
    last: u64,
    outstanding: u32,
    busy_since: u64,
    busy_ns: u64,
}

impl State {
    /// An empty event list.
    fn event_list(&mut self) -> Vec<Event> {
        self.event_lists.pop().unwrap_or_default()
    }

    /// Keep `list` (emptied) for reuse.
    fn recycle(&mut self, mut list: Vec<Event>) {
        list.clear();
        self.event_lists.push(list);
    }
}

struct State {
    plugs: Option<Plugs>,
    timing: Option<Timing>,
    outboxes: Vec<VecDeque<Finished>>,
    at_model: HashMap<u64, AtModel>,
    next_cmd: u64,
    /// Requests let go by completions, to be sent at their due time (non-decreasing).
    pending: VecDeque<(u64, Pending)>,
    /// Data of held writes, by bio id.
    held: HashMap<u64, Vec<u8>>,
    /// I/Os split into several bios, by parent id.
    splits: HashMap<u64, SplitIo>,
    /// Empty event lists to reuse: handling events nests (a completion's events send the next
    /// request, whose completion has events of its own), and each level needs a list.
    event_lists: Vec<Vec<Event>>,
    /// The pieces of the I/O being submitted.
    pieces: Vec<(u64, u64)>,
    scratch: Vec<Done>,
    merge_buf: Vec<u8>,
    zeros: Vec<u8>,
}

/// The request queue of one device (see the module documentation).
pub struct DeviceQueue {
    device: Arc<dyn ZonedDevice>,
    config: QueueConfig,
    limits: QueueLimits,
    model_name: Option<String>,
    keeps_data: bool,
    state: Mutex<State>,
}

impl std::fmt::Debug for DeviceQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceQueue")
            .field("device", &self.device.info().spec)
            .field("config", &self.config)
            .field("model", &self.model_name)
            .finish_non_exhaustive()
    }
}

/// A bio's id: the engine (16 bits), the piece of a split I/O (16 bits), the slot (32 bits).
fn bio_id(engine: u32, piece: u32, tag: u32) -> u64 {
    (u64::from(engine & 0xffff) << 48) | (u64::from(piece & 0xffff) << 32) | u64::from(tag)
}

/// The I/O a bio belongs to (its id without the piece).
fn parent_of(id: u64) -> u64 {
    id & !(0xffff_u64 << 32)
}

/// An I/O split into pieces, until every piece has completed.
#[derive(Debug, Clone)]
struct SplitIo {
    pieces: u32,
    remaining: u32,
    bytes: i32,
    /// The pieces that failed (index, errno), for [`split::split_errno`].
    failed: Vec<(usize, Errno)>,
    sent_ns: u64,
    append_sector: Option<u64>,
}

fn neg(e: &DeviceError) -> i32 {
    -e.errno().0
}

impl DeviceQueue {
    /// The queue of `device`, timed by `model` if given (the drive at rest at time 0 of the clock
    /// that will drive it).
    pub fn new(device: Arc<dyn ZonedDevice>, config: QueueConfig, model: Option<Box<dyn TimingModel>>) -> DeviceQueue {
        let info = device.info();
        let overrides = LimitOverrides {
            max_sectors_kb: Some(config.settings.max_sectors_kb),
            zoned_qd1_writes: Some(config.settings.zoned_qd1_writes),
            ..LimitOverrides::default()
        };
        let limits = QueueLimits::with_overrides(info, &overrides).unwrap_or_else(|_| QueueLimits::from_info(info));
        let plugs = (info.kind != DeviceKind::Linux).then(|| {
            let mut p = Plugs::new(PlugConfig {
                geometry: info.geometry.clone(),
                max_sectors: limits.max_sectors(),
                qd1: config.settings.zoned_qd1_writes,
                native_append: limits.zone_append == super::limits::ZoneAppendMode::Native,
                recovery: config.recovery,
                pop_when_run: config.pop_when_run && model.is_some() && config.reissue_ns > 0,
            });
            Self::revalidate_plugs(&*device, &mut p);
            p
        });
        let model_name = model.as_ref().map(|m| m.name().to_string());
        let keeps_data = info.keeps_data;
        DeviceQueue {
            device,
            config,
            limits,
            model_name,
            keeps_data,
            state: Mutex::new(State {
                plugs,
                timing: model.map(|model| Timing { model, last: 0, outstanding: 0, busy_since: 0, busy_ns: 0 }),
                outboxes: Vec::new(),
                at_model: HashMap::new(),
                next_cmd: 0,
                pending: VecDeque::new(),
                held: HashMap::new(),
                splits: HashMap::new(),
                event_lists: Vec::new(),
                pieces: Vec::new(),
                scratch: Vec::new(),
                merge_buf: Vec::new(),
                zeros: Vec::new(),
            }),
        }
    }

    /// Plugs for the partially written zones, made when the queue takes the device: Linux 6.12
    /// makes them only where it emulates zone append (it needs their write pointers), as the VM
    /// lane shows; elsewhere a zone's first write makes its plug.
    fn revalidate_plugs(device: &dyn ZonedDevice, plugs: &mut Plugs) {
        if plugs.config().native_append {
            return;
        }
        let mut zones = Vec::new();
        if device.report_zones(0, usize::MAX, &mut zones).is_ok() {
            plugs.revalidate(&zones);
        }
    }

    /// Rebuild the plugs from a report of the device's zones, as the kernel revalidates a disk
    /// (for a device changed behind the queue's back while nothing was in flight).
    pub fn revalidate(&self) {
        let mut s = self.lock();
        if let Some(p) = s.plugs.as_mut() {
            let cfg = p.config().clone();
            *p = Plugs::new(cfg);
            Self::revalidate_plugs(&*self.device, p);
        }
    }

    /// The device.
    pub fn device(&self) -> &Arc<dyn ZonedDevice> {
        &self.device
    }

    /// The queue limits (the device's, with the run's settings).
    pub fn limits(&self) -> &QueueLimits {
        &self.limits
    }

    /// The queue's configuration.
    pub fn config(&self) -> &QueueConfig {
        &self.config
    }

    /// The timing model's name, if the device is timed.
    pub fn model_name(&self) -> Option<&str> {
        self.model_name.as_deref()
    }

    /// Whether completions follow a timing model.
    pub fn is_timed(&self) -> bool {
        self.model_name.is_some()
    }

    /// Nanoseconds during which the device had at least one command (up to the last completion
    /// handed out); 0 without a timing model.
    pub fn busy_ns(&self) -> u64 {
        self.lock().timing.as_ref().map_or(0, |t| t.busy_ns)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new engine's number: its completions go to its own outbox.
    pub fn register(&self) -> u32 {
        let mut s = self.lock();
        s.outboxes.push(VecDeque::new());
        (s.outboxes.len() - 1) as u32
    }

    /// The pieces of an I/O of `sectors` at `sector`: split at zone boundaries and at the request
    /// size cap, as the kernel splits a bio to its queue's limits ([`split::pieces`]).
    fn pieces(&self, sector: u64, sectors: u64, out: &mut Vec<(u64, u64)>) {
        out.extend(split::pieces(&self.limits, sector, sectors).map(|p| (p.sector, p.sectors)));
        if out.is_empty() {
            out.push((sector, 0));
        }
    }

    /// Submit `io` at `now`. `buf` holds a write's data, receives a read's; the queue copies a
    /// write's data if it must hold it. The completion goes to the engine's outbox (at once
    /// without a timing model).
    pub fn submit(&self, now: u64, io: QueueIo, buf: &mut [u8]) {
        let mut s = self.lock();
        self.submit_locked(&mut s, now, io, buf);
    }

    /// [`DeviceQueue::submit`] then [`DeviceQueue::take`] for `io`'s engine at `now`, under one
    /// lock: what an engine over an untimed device does for every I/O.
    pub fn submit_and_take(&self, now: u64, io: QueueIo, buf: &mut [u8], out: &mut Vec<Finished>) {
        let mut s = self.lock();
        self.submit_locked(&mut s, now, io, buf);
        self.take_locked(&mut s, io.engine, now, out);
    }

    /// [`DeviceQueue::submit`], the queue's state locked.
    fn submit_locked(&self, s: &mut State, now: u64, io: QueueIo, buf: &mut [u8]) {
        self.run_to(s, now);
        let now = s.timing.as_ref().map_or(now, |t| t.last.max(now));
        let single = |id, result| SmallList::One(Part { id, result, append_sector: None });
        let id0 = bio_id(io.engine, 0, io.tag);
        match io.op {
            QueueOp::Read => {
                let r = self.device.read_at(io.sector, buf);
                let mut pieces = std::mem::take(&mut s.pieces);
                pieces.clear();
                self.pieces(io.sector, io.sectors, &mut pieces);
                self.start_split(s, id0, pieces.len(), now);
                for (i, &(sector, n)) in pieces.iter().enumerate() {
                    let id = bio_id(io.engine, i as u32, io.tag);
                    let result = r.as_ref().map_or_else(neg, |()| (n * 512) as i32);
                    let media = if result >= 0 { self.device.media_sectors(sector, n) } else { n };
                    let part = SmallList::One(Part { id, result, append_sector: None });
                    self.send(s, now, CommandKind::Read, sector, n, media, part, None);
                }
                s.pieces = pieces;
            }
            QueueOp::Flush => {
                let parts = single(id0, self.device.flush().map_or_else(|e| neg(&e), |()| 0));
                self.send(s, now, CommandKind::Flush, 0, 0, 0, parts, None);
            }
            QueueOp::Reset | QueueOp::Finish => {
                let op = if io.op == QueueOp::Reset { ZoneOp::Reset } else { ZoneOp::Finish };
                let (result, note) = self.zone_mgmt(op, io.sector, io.sectors);
                let parts = single(id0, result);
                self.send(s, now, CommandKind::ZoneMgmt(op), io.sector, io.sectors, 0, parts, note);
            }
            QueueOp::Write | QueueOp::Append => {
                let append = io.op == QueueOp::Append;
                let mut pieces = std::mem::take(&mut s.pieces);
                pieces.clear();
                if append {
                    pieces.push((io.sector, io.sectors));
                } else {
                    self.pieces(io.sector, io.sectors, &mut pieces);
                }
                self.start_split(s, id0, pieces.len(), now);
                let mut off = 0;
                for (i, &(sector, n)) in pieces.iter().enumerate() {
                    let id = bio_id(io.engine, i as u32, io.tag);
                    let len = (n * 512) as usize;
                    let data = &buf[off.min(buf.len())..(off + len).min(buf.len())];
                    off += len;
                    let bio = Bio { id, sector, sectors: n, append };
                    let mut events = s.event_list();
                    match s.plugs.as_mut() {
                        Some(p) => p.submit(bio, &mut events),
                        None => events.push(Event::Direct(bio)),
                    }
                    let mut used = false;
                    self.handle(s, now, &mut events, Some((id, data)), &mut used);
                    if !used && self.keeps_data {
                        // Held in a plug: keep a copy of the data until it is sent.
                        s.held.insert(id, data.to_vec());
                    }
                    s.recycle(events);
                }
                s.pieces = pieces;
            }
        }
    }

    /// Note that the I/O `id` goes to the device in `n` pieces (nothing to note for one).
    fn start_split(&self, s: &mut State, id: u64, n: usize, now: u64) {
        if n > 1 {
            let split = SplitIo {
                pieces: n as u32,
                remaining: n as u32,
                bytes: 0,
                failed: Vec::new(),
                sent_ns: now,
                append_sector: None,
            };
            s.splits.insert(parent_of(id), split);
        }
    }

    /// Bio `id` finished: to its engine's outbox, once every piece of its I/O has.
    fn deliver(&self, s: &mut State, id: u64, result: i32, at: u64, sent: u64, append_sector: Option<u64>) {
        let parent = parent_of(id);
        let (engine, tag) = ((id >> 48) as usize, id as u32);
        let mut f = Finished { tag, result, at_ns: at, sent_ns: sent, append_sector };
        if let Some(sp) = s.splits.get_mut(&parent) {
            sp.remaining -= 1;
            if result < 0 {
                sp.failed.push((((id >> 32) & 0xffff) as usize, Errno(-result)));
            } else {
                sp.bytes += result;
            }
            sp.sent_ns = sp.sent_ns.min(sent);
            sp.append_sector = sp.append_sector.or(append_sector);
            if sp.remaining > 0 {
                return;
            }
            let mut sp = s.splits.remove(&parent).expect("split");
            sp.failed.sort_unstable();
            let errno = split::split_errno(&sp.failed, sp.pieces as usize);
            f = Finished {
                tag,
                result: errno.map_or(sp.bytes, |e| -e.0),
                at_ns: at,
                sent_ns: sp.sent_ns,
                append_sector: sp.append_sector,
            };
        }
        if let Some(o) = s.outboxes.get_mut(engine) {
            o.push_back(f);
        }
    }

    /// Carry out plug events at `now`. `caller` is the bio being submitted and its data (the
    /// others' data is held); `used` says whether the caller's bio was sent or failed.
    fn handle(&self, s: &mut State, now: u64, events: &mut Vec<Event>, caller: Option<(u64, &[u8])>, used: &mut bool) {
        if events.is_empty() {
            return;
        }
        let is_caller = |id: u64| caller.is_some_and(|(c, _)| c == id);
        let mut batch = s.event_list();
        while !events.is_empty() {
            std::mem::swap(events, &mut batch);
            for e in batch.drain(..) {
                match e {
                    Event::Dispatch(req) => {
                        // A request let go by a completion, or any request of the qd1 worker, is
                        // sent after the host's re-issue latency; the first write to an idle zone
                        // goes at once, from the submitter's context.
                        let defer = s.timing.is_some()
                            && self.config.reissue_ns > 0
                            && !s.plugs.as_ref().is_some_and(|p| p.config().pop_when_run)
                            && (caller.is_none() || self.config.settings.zoned_qd1_writes);
                        if defer {
                            s.pending.push_back((now + self.config.reissue_ns, Pending::Send(req)));
                        } else {
                            if req.bios().iter().any(|b| is_caller(b.id)) {
                                *used = true;
                            }
                            self.dispatch(s, now, req, caller);
                        }
                    }
                    Event::Direct(b) => {
                        if is_caller(b.id) {
                            *used = true;
                        }
                        let data = self.data_of(s, b.id, b.sectors, caller);
                        let (result, append_sector) = if b.append {
                            match self.device.zone_append(b.sector, &data) {
                                Ok(at) => (data.len() as i32, Some(at)),
                                Err(e) => (neg(&e), None),
                            }
                        } else {
                            let r = self.device.write_at(b.sector, &data);
                            (r.map_or_else(|e| neg(&e), |()| data.len() as i32), None)
                        };
                        let part = SmallList::One(Part { id: b.id, result, append_sector });
                        self.send(s, now, CommandKind::Write, b.sector, b.sectors, b.sectors, part, None);
                    }
                    Event::Fail(b, _) => {
                        if is_caller(b.id) {
                            *used = true;
                        }
                        s.held.remove(&b.id);
                        self.deliver(s, b.id, -libc::EIO, now, now, None);
                    }
                    Event::Wake(who) => {
                        if s.timing.is_some() && self.config.reissue_ns > 0 {
                            s.pending.push_back((now + self.config.reissue_ns, Pending::Wake(who)));
                        } else if let Some(p) = s.plugs.as_mut() {
                            p.wake(who, events);
                        }
                    }
                    Event::Resync(zone) => {
                        if let Some(p) = s.plugs.as_mut() {
                            super::resync(&*self.device, p, zone, events);
                        }
                    }
                }
            }
        }
        s.recycle(batch);
    }

    /// The data of bio `id` (`sectors` long): the caller's, a held copy, or zeros for a device
    /// that keeps no data.
    fn data_of<'a>(
        &self,
        s: &mut State,
        id: u64,
        sectors: u64,
        caller: Option<(u64, &'a [u8])>,
    ) -> std::borrow::Cow<'a, [u8]> {
        if let Some((cid, buf)) = caller
            && cid == id
        {
            return std::borrow::Cow::Borrowed(buf);
        }
        std::borrow::Cow::Owned(s.held.remove(&id).unwrap_or_else(|| vec![0; (sectors * 512) as usize]))
    }

    /// Send a request from the plugs to the device: one device write of its bios' data.
    fn dispatch(&self, s: &mut State, now: u64, req: Request, caller: Option<(u64, &[u8])>) {
        let len = (req.sectors * 512) as usize;
        let result = if req.bios().len() == 1 && caller.is_some_and(|(id, _)| id == req.bios()[0].id) {
            let (_, buf) = caller.expect("caller");
            self.device.write_at(req.sector, &buf[..len.min(buf.len())])
        } else if !self.keeps_data {
            if s.zeros.len() < len {
                s.zeros.resize(len, 0);
            }
            for b in req.bios() {
                s.held.remove(&b.id);
            }
            self.device.write_at(req.sector, &s.zeros[..len])
        } else {
            let mut buf = std::mem::take(&mut s.merge_buf);
            buf.clear();
            for b in req.bios() {
                match caller {
                    Some((id, data)) if id == b.id => buf.extend_from_slice(data),
                    _ => match s.held.remove(&b.id) {
                        Some(d) => buf.extend_from_slice(&d),
                        None => buf.resize(buf.len() + (b.sectors * 512) as usize, 0),
                    },
                }
            }
            let r = self.device.write_at(req.sector, &buf);
            s.merge_buf = buf;
            r
        };
        let part = |b: &Bio| Part {
            id: b.id,
            result: result.as_ref().map_or_else(neg, |()| (b.sectors * 512) as i32),
            append_sector: b.append.then_some(b.sector),
        };
        let (first, rest) = req.bios().split_first().expect("a request has a bio");
        let mut parts = SmallList::One(part(first));
        for b in rest {
            parts.push(part(b));
        }
        self.send(
            s,
            now,
            CommandKind::Write,
            req.sector,
            req.sectors,
            req.sectors,
            parts,
            Some(PlugNote::Request(req.zone)),
        );
    }

    /// Reset or finish (`op`) the zones of a range as `blkdev_zone_mgmt` does ([`mgmt::plan`]:
    /// `EINVAL` for a bad range, one reset-all for a reset of the whole device, else zone by zone
    /// carrying on after a failing zone): 0, or the errno [`mgmt::range_errno`] picks, and the
    /// plugs to reset or finish when the command completes. Linux 6.12.95 sets a plug's write
    /// pointer when its zone's reset or finish completes without error (`blk_zone_mgmt_bio_endio`:
    /// 0, or the zone's size), which fails what waits in the plug and drops the plug once nothing
    /// of the zone is in flight; the zones' bios are chained in ascending order, so a zone after a
    /// failing one completes with that error: only the zones before the first failing one have
    /// their plugs changed, as [`super::BlockDevice`] does. A conventional zone's reset or finish
    /// fails in the block layer (EIO).
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, sectors: u64) -> (i32, Option<PlugNote>) {
        let plan = match mgmt::plan(&self.limits, op, sector, sectors) {
            Ok(p) => p,
            Err(e) => return (-e.errno().0, None),
        };
        let plugged = self.device.info().kind != DeviceKind::Linux;
        let g = &self.device.info().geometry;
        let mut failed: Vec<(u64, Errno)> = Vec::new();
        let mut note = None;
        for cmd in plan.commands() {
            let r = match cmd {
                MgmtCommand::ResetAll => self.device.zone_mgmt(ZoneOp::Reset, 0, self.limits.capacity),
                MgmtCommand::Zone { op, sector, nr } => {
                    if plugged && g.zone_index(sector).is_some_and(|z| g.is_conventional(z)) {
                        failed.push((sector, Errno::EIO));
                        continue;
                    }
                    self.device.zone_mgmt(op, sector, nr)
                }
            };
            match r {
                Ok(()) if failed.is_empty() => {
                    note = Some(match (cmd, note) {
                        (MgmtCommand::ResetAll, _) => PlugNote::ResetAll,
                        (MgmtCommand::Zone { sector, .. }, note) => {
                            let zone = g.zone_index(sector).unwrap_or(0);
                            let from = match note {
                                Some(PlugNote::Reset(zones) | PlugNote::Finish(zones)) => zones.start,
                                _ => zone,
                            };
                            if op == ZoneOp::Finish {
                                PlugNote::Finish(from..zone + 1)
                            } else {
                                PlugNote::Reset(from..zone + 1)
                            }
                        }
                    });
                }
                Ok(()) => {}
                Err(e) => {
                    let at = match cmd {
                        MgmtCommand::Zone { sector, .. } => sector,
                        MgmtCommand::ResetAll => 0,
                    };
                    failed.push((at, e.errno()));
                }
            }
        }
        (mgmt::range_errno(&failed).map_or(0, |e| -e.0), note)
    }

    /// Give a command to the model (or complete it at once without one).
    #[allow(clippy::too_many_arguments)]
    fn send(
        &self,
        s: &mut State,
        now: u64,
        kind: CommandKind,
        sector: u64,
        sectors: u64,
        media_sectors: u64,
        parts: SmallList<Part>,
        note: Option<PlugNote>,
    ) {
        let failed = parts.iter().any(|p| p.result < 0);
        let Some(t) = s.timing.as_mut() else {
            self.finish(s, now, now, &parts, note, !failed);
            return;
        };
        let id = s.next_cmd;
        s.next_cmd += 1;
        let now = now.max(t.last);
        t.last = now;
        if t.outstanding == 0 {
            t.busy_since = now;
        }
        t.outstanding += 1;
        t.model.submit(now, Command { id, kind, sector, sectors, media_sectors, failed });
        s.at_model.insert(id, AtModel { parts, note, sent_ns: now });
    }

    /// A command completed at `at`: its I/Os to their outboxes, and the plugs told.
    fn finish(&self, s: &mut State, at: u64, sent: u64, parts: &[Part], note: Option<PlugNote>, ok: bool) {
        for p in parts {
            self.deliver(s, p.id, p.result, at, sent, p.append_sector);
        }
        if let Some(note) = note
            && s.plugs.is_some()
        {
            let mut events = s.event_list();
            let plugs = s.plugs.as_mut().expect("plugs");
            match note {
                PlugNote::Request(zone) => plugs.complete(zone, ok, &mut events),
                // Only the zones reset without error are noted, whatever the range's result.
                PlugNote::Reset(zones) => zones.for_each(|z| plugs.reset(z, &mut events)),
                PlugNote::Finish(zones) => zones.for_each(|z| plugs.finish(z, &mut events)),
                PlugNote::ResetAll => plugs.reset_all(&mut events),
            }
            let mut used = false;
            self.handle(s, at, &mut events, None, &mut used);
            s.recycle(events);
        }
    }

    /// Run the model (and the sending of what completions let go) up to `t`, in time order.
    #[inline]
    fn run_to(&self, s: &mut State, t: u64) {
        // Nothing to do without a model and nothing let go: every I/O to an untimed device.
        if s.timing.is_some() || !s.pending.is_empty() {
            self.run_events_to(s, t);
        }
    }

    /// [`DeviceQueue::run_to`]'s work.
    fn run_events_to(&self, s: &mut State, t: u64) {
        let mut stuck_at = None;
        loop {
            let due = s.pending.front().map(|(d, _)| *d);
            let Some(timing) = s.timing.as_mut() else {
                // Untimed: send what is pending now.
                let Some((_, what)) = s.pending.pop_front() else { return };
                self.let_go(s, t, what);
                continue;
            };
            let next = match (timing.model.next_event(), due) {
                (Some(n), Some(d)) => Some(n.min(d)),
                (n, d) => n.or(d),
            };
            let mut step = next.filter(|&n| n <= t).unwrap_or(t).max(timing.last);
            if stuck_at == Some(step) {
                // The model named an event that produced nothing: go on to `t`.
                step = t.max(timing.last);
            }
            let mut scratch = std::mem::take(&mut s.scratch);
            scratch.clear();
            timing.model.complete_until(step, &mut scratch);
            timing.last = step;
            let progress = !scratch.is_empty();
            for d in &scratch {
                let timing = s.timing.as_mut().expect("timed");
                timing.outstanding = timing.outstanding.saturating_sub(1);
                if timing.outstanding == 0 {
                    timing.busy_ns += d.at_ns.saturating_sub(timing.busy_since);
                }
                if let Some(c) = s.at_model.remove(&d.id) {
                    let ok = c.parts.iter().all(|p| p.result >= 0);
                    self.finish(s, d.at_ns, c.sent_ns, &c.parts, c.note, ok);
                }
            }
            s.scratch = scratch;
            let mut sent = false;
            while let Some(&(d, _)) = s.pending.front() {
                if d > step {
                    break;
                }
                let (_, what) = s.pending.pop_front().expect("pending");
                self.let_go(s, step, what);
                sent = true;
            }
            if !progress && !sent {
                if step >= t {
                    return;
                }
                stuck_at = Some(step);
            } else {
                stuck_at = None;
            }
        }
    }

    /// Carry out what a completion let go, now that the re-issue latency has passed.
    fn let_go(&self, s: &mut State, now: u64, what: Pending) {
        match what {
            Pending::Send(req) => self.dispatch(s, now, req, None),
            Pending::Wake(who) => {
                let mut events = s.event_list();
                if let Some(p) = s.plugs.as_mut() {
                    p.wake(who, &mut events);
                }
                let mut used = false;
                self.handle(s, now, &mut events, None, &mut used);
                s.recycle(events);
            }
        }
    }

    /// Run to `t` and move what completed for `engine` to `out`.
    pub fn take(&self, engine: u32, t: u64, out: &mut Vec<Finished>) {
        let mut s = self.lock();
        self.take_locked(&mut s, engine, t, out);
    }

    /// [`DeviceQueue::take`], the queue's state locked.
    fn take_locked(&self, s: &mut State, engine: u32, t: u64, out: &mut Vec<Finished>) {
        self.run_to(s, t);
        if let Some(o) = s.outboxes.get_mut(engine as usize) {
            // Usually one or none: a loop costs less than a drain or two slice copies.
            while let Some(f) = o.pop_front() {
                out.push(f);
            }
        }
    }

    /// When something may next complete: the model's next event or the next held request's due
    /// time; `None` without a model or when nothing is at the device.
    pub fn next_event(&self) -> Option<u64> {
        let s = self.lock();
        let model = s.timing.as_ref().and_then(|t| t.model.next_event());
        let due = s.pending.front().map(|(d, _)| *d);
        match (model, due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Tell the plugs what a zone report of the device said (a report refreshes the block
    /// layer's write pointers, as the kernel's does).
    pub fn reported(&self, now: u64, zones: &[Zone]) {
        let mut s = self.lock();
        let s = &mut *s;
        let mut events = s.event_list();
        if let Some(p) = s.plugs.as_mut() {
            for z in zones {
                p.sync_wp(z, &mut events);
            }
        }
        let mut used = false;
        self.handle(s, now, &mut events, None, &mut used);
        s.recycle(events);
    }
}

#[cfg(test)]
mod tests;
