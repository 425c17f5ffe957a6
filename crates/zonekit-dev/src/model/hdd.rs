//! A host-managed SMR hard disk ("SMR-HM v1": docs/models.md gives its sources).
//!
//! - **Mapping** (zoned bit recording): LBA 0 at the outer diameter (OD); a sector at capacity
//!   fraction `f` lies at radius `r(f) = √(1 − f(1 − k²))` (radii relative to the OD, `k = ri/ro =
//!   rate_id/rate_od`), and the sustained media rate there is `rate_od · r`. Tracks are evenly
//!   spaced in radius, so the (fractional) number of tracks between the OD and a sector is linear
//!   in `1 − r`. Conventional zones, the first ones, are therefore at the OD.
//! - **Rotation**: the head's angle follows time (one revolution per `60/rpm` s). A sector's angle
//!   is its fraction of the way through its track plus a skew of `track_skew` revolutions per
//!   track (the time a head or track switch takes while streaming), so streaming through a track
//!   boundary costs the skew and nothing more, and the sustained rate `rate_od · r` already
//!   includes it.
//! - **Seek** (Ruemmler & Wilkes): `a + b√d` below `d0`, `c + e·d` above, `d` the radial distance as
//!   a fraction of the full stroke, `b` from continuity at `d0`; zero within one cylinder
//!   (`surfaces` tracks); writes add `write_settle`.
//! - **Queue**: commands become eligible `cmd_overhead` after they arrive; the drive holds
//!   `ncq_depth` of them (more wait on the host side) and serves them FIFO or by shortest
//!   positioning time first (SATF), never reordering writes or zone commands to one zone.
//! - **Streaming**: a command that starts where the previous media transfer ended and is ready
//!   within `seq_slack` of its end starts without positioning (the track buffer keeps the stream;
//!   the gap itself is lost time). Later, it waits for its sector to come round again.
//! - **Write cache** (`wce` on): a write completes once transferred over the interface
//!   (`interface_rate`) into a cache of `cache_size` while there is room (else it waits, in
//!   order, for destaging to free room). The cache is indexed by LBA: a write that continues any
//!   cached extent joins it, so each zone's writes gather into one extent however they
//!   interleave with other zones'. Extents are destaged oldest first, in chunks of at most
//!   `destage_chunk`; a write does not join the extent being destaged (it starts a new one at the
//!   back, so a stream that keeps coming cannot starve the others). How much the cache gathers is
//!   set by its size: the profiles' 4 MiB is fitted on the sequential table of Linux commit
//!   1365b6904f (a larger cache would absorb the interleaving of two zones at a zone boundary
//!   that the commit measured as a loss). Host reads go before destaging unless a write waits
//!   for room. A flush completes when everything cached before it is on the media. A zone reset
//!   drops the zone's cached data.
//! - **Zone management** (reset, open, close, finish): `zone_mgmt` of drive time, no media
//!   transfer, no head movement.
//! - Reads above a write pointer take the media only for the sectors below it; the rest is fill
//!   sent over the interface. Failed commands complete `cmd_overhead` after they arrive.

use super::{ParamDef, Unit, xfer_ns};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, VecDeque};
use zonekit_core::timing::{Command, CommandKind, Done, Param, TimingModel};
use zonekit_core::{Geometry, SECTOR_SIZE, ZoneOp};

/// The model's name.
pub const NAME: &str = "smr-hdd";

/// How the drive picks its next command among the queued ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sched {
    /// In arrival order.
    Fifo = 0,
    /// Shortest access (seek + rotation) time first.
    Satf = 1,
}

impl Sched {
    /// `fifo` or `satf`.
    pub fn name(self) -> &'static str {
        match self {
            Sched::Fifo => "fifo",
            Sched::Satf => "satf",
        }
    }

    pub(crate) fn from_raw(v: u64) -> Sched {
        if v == 1 { Sched::Satf } else { Sched::Fifo }
    }

    pub(crate) fn parse(s: &str) -> Option<Sched> {
        match s {
            "fifo" => Some(Sched::Fifo),
            "satf" => Some(Sched::Satf),
            _ => None,
        }
    }
}

/// The parameters of an SMR disk (see the module documentation for their roles; `docs/models.md`
/// for their sources).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HddParams {
    /// Spindle speed, revolutions per minute.
    pub rpm: u32,
    /// Sustained media rate at the outer diameter, bytes/s.
    pub rate_od_bps: u64,
    /// Sustained media rate at the inner diameter, bytes/s (sets `ri/ro`).
    pub rate_id_bps: u64,
    /// Recording surfaces (heads): the tracks of one cylinder.
    pub surfaces: u32,
    /// Angular skew between consecutive tracks, parts per million of a revolution.
    pub track_skew_ppm: u32,
    /// Seek curve: `a` (ns), the time of the shortest seek.
    pub seek_a_ns: u64,
    /// Seek curve: `c` (ns), the constant of the linear part.
    pub seek_c_ns: u64,
    /// Seek curve: `e` (ns per full stroke), the slope of the linear part.
    pub seek_e_ns: u64,
    /// Seek curve: `d0`, where the square-root part meets the linear part, ppm of the stroke.
    pub seek_d0_ppm: u32,
    /// Extra settling time of a write after a seek, ns.
    pub write_settle_ns: u64,
    /// Command processing before a command can be scheduled, ns.
    pub cmd_overhead_ns: u64,
    /// How late a sequential command may be ready and still stream, ns.
    pub seq_slack_ns: u64,
    /// Commands the drive queues (NCQ).
    pub ncq_depth: u32,
    /// Scheduling of queued commands.
    pub sched: Sched,
    /// Volatile write cache enabled.
    pub wce: bool,
    /// Write cache size, bytes.
    pub cache_bytes: u64,
    /// Largest single destage transfer, bytes.
    pub destage_chunk_bytes: u64,
    /// Interface (SATA/SAS link) rate, bytes/s.
    pub interface_bps: u64,
    /// Time of a zone management command, ns.
    pub zone_mgmt_ns: u64,
    /// Sources that differ from each parameter's general one, by parameter name.
    pub sources: &'static [(&'static str, &'static str)],
}

impl HddParams {
    /// All zeros (a base for loading stored parameters).
    pub(crate) const EMPTY: HddParams = HddParams {
        rpm: 0,
        rate_od_bps: 0,
        rate_id_bps: 0,
        surfaces: 0,
        track_skew_ppm: 0,
        seek_a_ns: 0,
        seek_c_ns: 0,
        seek_e_ns: 0,
        seek_d0_ppm: 0,
        write_settle_ns: 0,
        cmd_overhead_ns: 0,
        seq_slack_ns: 0,
        ncq_depth: 0,
        sched: Sched::Fifo,
        wce: false,
        cache_bytes: 0,
        destage_chunk_bytes: 0,
        interface_bps: 0,
        zone_mgmt_ns: 0,
        sources: &[],
    };

    /// A 3.5" 7200 rpm enterprise SMR drive with the mechanics of the WD HC310 specification and
    /// §3.4's defaults; profiles set the media rates and geometry-related values.
    pub const ENTERPRISE_7200: HddParams = HddParams {
        rpm: 7200,
        rate_od_bps: 255_000_000,
        rate_id_bps: 120_000_000,
        surfaces: 16,
        track_skew_ppm: 40_000,
        seek_a_ns: 210_000,
        seek_c_ns: 4_400_000,
        seek_e_ns: 10_500_000,
        seek_d0_ppm: 300_000,
        write_settle_ns: 300_000,
        cmd_overhead_ns: 100_000,
        seq_slack_ns: 300_000,
        ncq_depth: 32,
        sched: Sched::Satf,
        wce: true,
        cache_bytes: 4 << 20,
        destage_chunk_bytes: 1 << 20,
        interface_bps: 550_000_000,
        zone_mgmt_ns: 1_000_000,
        sources: &[],
    };

    /// Check that the parameters make a working model.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(bool, &str); 9] = [
            (self.rpm > 0, "rpm must be positive"),
            (self.rate_od_bps > 0 && self.rate_id_bps > 0, "media rates must be positive"),
            (self.rate_id_bps <= self.rate_od_bps, "the ID rate cannot exceed the OD rate"),
            (self.surfaces > 0, "surfaces must be positive"),
            (self.track_skew_ppm < 1_000_000, "track skew must be less than one revolution"),
            (self.seek_d0_ppm > 0 && self.seek_d0_ppm <= 1_000_000, "seek d0 must be within the stroke"),
            (self.ncq_depth > 0, "the queue depth must be positive"),
            (self.cache_bytes >= SECTOR_SIZE && self.destage_chunk_bytes >= SECTOR_SIZE, "cache sizes too small"),
            (self.interface_bps > 0, "the interface rate must be positive"),
        ];
        checks.iter().find(|(ok, _)| !ok).map_or(Ok(()), |(_, why)| Err((*why).to_string()))
    }
}

/// Every parameter: name (with unit), general source, accessors.
pub(crate) const PARAMS: &[ParamDef<HddParams>] = &[
    ParamDef {
        name: "rpm",
        unit: Unit::Count("rpm"),
        source: "WD HC310 specification: 7200 rpm, 8.33 ms per revolution (reference §3.1)",
        get: |p| u64::from(p.rpm),
        set: |p, v| p.rpm = v as u32,
    },
    ParamDef {
        name: "rate_od_bps",
        unit: Unit::BytesPerSec,
        source: "sustained media rate at the OD; reference §3.4 (270 MB/s class for 7200 rpm 20-30 TB) [M]",
        get: |p| p.rate_od_bps,
        set: |p, v| p.rate_od_bps = v,
    },
    ParamDef {
        name: "rate_id_bps",
        unit: Unit::BytesPerSec,
        source: "ri/ro ≈ 0.47 of a 3.5\" platter: rate_id = 0.47 × rate_od (reference §3.2) [M]",
        get: |p| p.rate_id_bps,
        set: |p, v| p.rate_id_bps = v,
    },
    ParamDef {
        name: "surfaces",
        unit: Unit::Count("heads"),
        source: "zonekit's choice: two surfaces per platter (8 platters for the HC620 class, reference §3.1); only sets the width of a cylinder",
        get: |p| u64::from(p.surfaces),
        set: |p, v| p.surfaces = v as u32,
    },
    ParamDef {
        name: "track_skew_ppm",
        unit: Unit::Ppm("rev"),
        source: "zonekit's choice: 0.04 rev ≈ 0.33 ms, a track-to-track switch (HC310 single-track seek 0.23 R / 0.32 W ms)",
        get: |p| u64::from(p.track_skew_ppm),
        set: |p, v| p.track_skew_ppm = v as u32,
    },
    ParamDef {
        name: "seek_a_ns",
        unit: Unit::Ns,
        source: "Ruemmler-Wilkes fit of reference §3.2 with a lowered so that one cylinder takes the HC310 single-track read seek (0.23 ms)",
        get: |p| p.seek_a_ns,
        set: |p, v| p.seek_a_ns = v,
    },
    ParamDef {
        name: "seek_c_ns",
        unit: Unit::Ns,
        source: "fit of reference §3.2 (c = 4.55 ms) lowered with e so that the mean over random cylinder pairs is the HC310 average read seek, 7.4 ms",
        get: |p| p.seek_c_ns,
        set: |p, v| p.seek_c_ns = v,
    },
    ParamDef {
        name: "seek_e_ns",
        unit: Unit::Ns,
        source: "fit of reference §3.2 (e = 10.95 ms/stroke) lowered with c: mean 7.4 ms, full stroke 14.9 ms (≈ 2 × average, as 5K320's 20/12)",
        get: |p| p.seek_e_ns,
        set: |p, v| p.seek_e_ns = v,
    },
    ParamDef {
        name: "seek_d0_ppm",
        unit: Unit::Ppm("stroke"),
        source: "reference §3.2: d0 = 0.3 stroke; b follows from continuity, b = (c + e·d0 − a)/√d0",
        get: |p| u64::from(p.seek_d0_ppm),
        set: |p, v| p.seek_d0_ppm = v as u32,
    },
    ParamDef {
        name: "write_settle_ns",
        unit: Unit::Ns,
        source: "reference §3.4 (0.3 ms), between the HC310 write-read differences of 0.09 ms (single track) and 0.8 ms (average)",
        get: |p| p.write_settle_ns,
        set: |p, v| p.write_settle_ns = v,
    },
    ParamDef {
        name: "cmd_overhead_ns",
        unit: Unit::Ns,
        source: "reference §3.4 (0.1 ms; §3.2 gives 0.05-0.3 ms) [M]",
        get: |p| p.cmd_overhead_ns,
        set: |p, v| p.cmd_overhead_ns = v,
    },
    ParamDef {
        name: "seq_slack_ns",
        unit: Unit::Ns,
        source: "reference §3.3 toy model (a sequential command streams when within 0.3 ms); covers a host turnaround plus the command overhead",
        get: |p| p.seq_slack_ns,
        set: |p, v| p.seq_slack_ns = v,
    },
    ParamDef {
        name: "ncq_depth",
        unit: Unit::Count("commands"),
        source: "SATA NCQ depth 32 (reference §3.2)",
        get: |p| u64::from(p.ncq_depth),
        set: |p, v| p.ncq_depth = v as u32,
    },
    ParamDef {
        name: "sched",
        unit: Unit::Sched,
        source: "reference §3.2: drives schedule their queue by shortest access time first (SATF/RPO)",
        get: |p| p.sched as u64,
        set: |p, v| p.sched = Sched::from_raw(v),
    },
    ParamDef {
        name: "wce",
        unit: Unit::OnOff,
        source: "zonekit's choice: on, as SMR host-managed SATA drives ship (reference §3.2 item 6, §3.4 wce=on)",
        get: |p| u64::from(p.wce),
        set: |p, v| p.wce = v != 0,
    },
    ParamDef {
        name: "cache_bytes",
        unit: Unit::Bytes,
        source: "fitted on the sequential table of Linux commit 1365b6904f (30 TB SMR, docs/models.md): 4 MiB of write-back, which gathers at most a few MiB of two zones written in turn; the drive's DRAM (256-512 MiB for this class, reference §3.2) is larger, but its write-back share is a drive-specific unknown",
        get: |p| p.cache_bytes,
        set: |p, v| p.cache_bytes = v,
    },
    ParamDef {
        name: "destage_chunk_bytes",
        unit: Unit::Bytes,
        source: "zonekit's choice: 1 MiB, how often destaging frees cache room; contiguous chunks stream, so it does not change throughput",
        get: |p| p.destage_chunk_bytes,
        set: |p, v| p.destage_chunk_bytes = v,
    },
    ParamDef {
        name: "interface_bps",
        unit: Unit::BytesPerSec,
        source: "SATA 6 Gb/s ≈ 550 MB/s of data (reference §3.2 item 6); the commit's drive is SATA behind AHCI",
        get: |p| p.interface_bps,
        set: |p, v| p.interface_bps = v,
    },
    ParamDef {
        name: "zone_mgmt_ns",
        unit: Unit::Ns,
        source: "reference §3.4: zone management op latency 1 ms, metadata only [M]",
        get: |p| p.zone_mgmt_ns,
        set: |p, v| p.zone_mgmt_ns = v,
    },
];

/// The disk's geometry, precomputed for cheap per-command mapping.
#[derive(Debug, Clone)]
struct Disk {
    capacity: f64,
    /// `1 − k²`.
    k2c: f64,
    /// Tracks per unit of `1 − r`.
    tracks_per_r: f64,
    skew: f64,
    /// Stroke fractions per unit of radius: `1/(1 − k)`.
    stroke_per_r: f64,
    /// Half a cylinder, in stroke fractions (shorter moves are no seek).
    half_cyl: f64,
    rev_ns: f64,
    a: f64,
    b: f64,
    c: f64,
    e: f64,
    d0: f64,
}

/// Where a sector is: radius (relative to the OD) and streaming phase (revolutions from LBA 0
/// when streaming; its fractional part is the sector's angle).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pos {
    r: f64,
    phase: f64,
}

impl Disk {
    fn new(p: &HddParams, g: &Geometry) -> Disk {
        let k = p.rate_id_bps as f64 / p.rate_od_bps as f64;
        let k2c = (1.0 - k * k).max(1e-9);
        let skew = f64::from(p.track_skew_ppm) / 1e6;
        let rev_ns = 60e9 / f64::from(p.rpm);
        let raw_od = p.rate_od_bps as f64 * (1.0 + skew);
        let track_od_bytes = raw_od * rev_ns / 1e9;
        let cap_bytes = (g.capacity * SECTOR_SIZE) as f64;
        let tracks_per_r = 2.0 * cap_bytes / (k2c * track_od_bytes);
        let stroke = (1.0 - k).max(1e-9);
        let tracks = tracks_per_r * stroke;
        let cylinders = (tracks / f64::from(p.surfaces)).max(1.0);
        let (a, c, e) = (p.seek_a_ns as f64, p.seek_c_ns as f64, p.seek_e_ns as f64);
        let d0 = f64::from(p.seek_d0_ppm) / 1e6;
        let b = ((c + e * d0 - a) / d0.sqrt()).max(0.0);
        Disk {
            capacity: g.capacity as f64,
            k2c,
            tracks_per_r,
            skew,
            stroke_per_r: 1.0 / stroke,
            half_cyl: 0.5 / cylinders,
            rev_ns,
            a,
            b,
            c,
            e,
            d0,
        }
    }

    fn pos(&self, sector: u64) -> Pos {
        let f = (sector as f64 / self.capacity).min(1.0);
        let r = (1.0 - f * self.k2c).sqrt();
        // 1 − r without cancellation.
        let n = self.tracks_per_r * (f * self.k2c / (1.0 + r));
        Pos { r, phase: n + n.floor() * self.skew }
    }

    /// Seek time (ns, unrounded) over a radial distance `dr` (relative radius).
    fn seek(&self, dr: f64) -> f64 {
        let d = dr.abs() * self.stroke_per_r;
        if d < self.half_cyl {
            0.0
        } else if d < self.d0 {
            self.a + self.b * d.sqrt()
        } else {
            self.c + self.e * d
        }
    }
}

/// What the head is doing or did last.
#[derive(Debug, Clone, Copy)]
struct Head {
    /// The head is at angle `angle` (revolutions) at `t_ref`, at radius `r`.
    t_ref: u64,
    angle: f64,
    r: f64,
    /// End sector and time of the last media transfer (streaming).
    last_end: u64,
    last_end_t: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpKind {
    Read,
    Write,
    Mgmt(ZoneOp),
}

/// A command queued for the head (reads; writes without cache; zone management).
#[derive(Debug, Clone, Copy)]
struct Op {
    id: u64,
    seq: u64,
    kind: OpKind,
    sector: u64,
    /// Sectors transferred to or from the media.
    media: u64,
    /// Sectors of fill sent after the media part (reads above a write pointer).
    fill: u64,
    ready: u64,
    zones: (u64, u64),
}

/// A command waiting for the write cache (cache on): a write, or a flush.
#[derive(Debug, Clone, Copy)]
struct Adm {
    id: u64,
    seq: u64,
    flush: bool,
    sector: u64,
    sectors: u64,
    ready: u64,
    zones: (u64, u64),
}

#[derive(Debug, Clone, Copy)]
enum Busy {
    Host,
    Mgmt,
    Destage { sectors: u64 },
}

/// A run of cached sectors.
#[derive(Debug, Clone, Copy)]
struct Extent {
    start: u64,
    len: u64,
}

/// The write cache, indexed by LBA: a write that continues any cached extent joins it, so the
/// writes of one zone gather into one extent however they interleave with other zones' writes.
/// Extents keep the order in which their first data arrived (their id); destaging takes the
/// oldest, chunk by chunk, and a write does not join the extent being destaged (it starts a new
/// one, at the back), so a stream that keeps coming cannot starve the others.
#[derive(Debug, Default)]
struct Cache {
    /// Extents by id (arrival order of their first data).
    exts: BTreeMap<u64, Extent>,
    /// Extent ids by end sector: the extent a write continues.
    by_end: HashMap<u64, u64>,
    /// (start sector, id) of every extent: the extents of a zone.
    by_start: BTreeSet<(u64, u64)>,
    next_id: u64,
    /// The extent destaging has started on.
    active: Option<u64>,
    /// Sectors held or reserved by a transfer in progress.
    used: u64,
    cap: u64,
}

impl Cache {
    /// The id the next new extent gets.
    fn next_id(&self) -> u64 {
        self.next_id
    }

    fn insert(&mut self, start: u64, len: u64) {
        if let Some(&id) = self.by_end.get(&start)
            && self.active != Some(id)
            && let Some(e) = self.exts.get_mut(&id)
        {
            e.len += len;
            self.by_end.remove(&start);
            self.by_end.insert(start + len, id);
            return;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.exts.insert(id, Extent { start, len });
        self.by_end.insert(start + len, id);
        self.by_start.insert((start, id));
    }

    /// Remove extent `id` from the indexes; returns it.
    fn remove(&mut self, id: u64) -> Option<Extent> {
        let e = self.exts.remove(&id)?;
        if self.by_end.get(&(e.start + e.len)) == Some(&id) {
            self.by_end.remove(&(e.start + e.len));
        }
        self.by_start.remove(&(e.start, id));
        if self.active == Some(id) {
            self.active = None;
        }
        Some(e)
    }

    /// Take the next destage chunk of at most `max` sectors: from the extent being destaged,
    /// else from the oldest.
    fn take(&mut self, max: u64) -> Option<(u64, u64)> {
        let id = match self.active {
            Some(id) => id,
            None => *self.exts.keys().next()?,
        };
        let e = self.exts.get_mut(&id)?;
        let (start, n) = (e.start, e.len.min(max));
        if n == e.len {
            self.remove(id);
        } else {
            e.start += n;
            e.len -= n;
            self.by_start.remove(&(start, id));
            self.by_start.insert((start + n, id));
            self.active = Some(id);
        }
        Some((start, n))
    }

    /// Drop the cached data of zones `zones` (a reset), freeing its room.
    fn drop_zones(&mut self, zones: (u64, u64), zone_size: u64) {
        let from = (zones.0 * zone_size, 0);
        let to = ((zones.1 + 1).saturating_mul(zone_size), 0);
        while let Some(&(_, id)) = self.by_start.range(from..to).next() {
            if let Some(e) = self.remove(id) {
                self.used = self.used.saturating_sub(e.len);
            }
        }
    }

    /// The id of the oldest extent holding data, if any.
    fn first_live(&self) -> Option<u64> {
        self.exts.keys().next().copied()
    }
}

/// The SMR disk model (see the module documentation).
#[derive(Debug)]
pub struct HddModel {
    p: HddParams,
    disk: Disk,
    zone_size: u64,
    now: u64,
    seq: u64,
    done: BinaryHeap<Reverse<(u64, u64, u64)>>,
    /// Commands waiting for a queue slot (time they were submitted).
    overflow: VecDeque<(u64, Command)>,
    in_drive: u32,
    queue: Vec<Op>,
    head: Head,
    busy: Option<(u64, Busy)>,
    cache: Cache,
    adm: VecDeque<Adm>,
    /// The write being transferred into the cache: (end, id, sector, sectors).
    link: Option<(u64, u64, u64, u64)>,
    /// When the link is free of the fill data of reads above write pointers.
    link_free: u64,
    /// Flushes waiting for the extents up to an id to reach the media: (id, command id).
    flushes: Vec<(u64, u64)>,
    /// A submission that may let something start: settle at this time.
    kick: Option<u64>,
}

impl HddModel {
    /// A drive at rest at time 0, head at the OD.
    pub fn new(p: HddParams, g: &Geometry) -> HddModel {
        let cache_sectors = (p.cache_bytes / SECTOR_SIZE).max(1);
        HddModel {
            disk: Disk::new(&p, g),
            p,
            zone_size: g.zone_size.max(1),
            now: 0,
            seq: 0,
            done: BinaryHeap::new(),
            overflow: VecDeque::new(),
            in_drive: 0,
            queue: Vec::with_capacity(p.ncq_depth as usize),
            head: Head { t_ref: 0, angle: 0.0, r: 1.0, last_end: u64::MAX, last_end_t: 0 },
            busy: None,
            cache: Cache { cap: cache_sectors, ..Cache::default() },
            adm: VecDeque::new(),
            link: None,
            link_free: 0,
            flushes: Vec::new(),
            kick: None,
        }
    }

    fn ns(x: f64) -> u64 {
        x.round() as u64
    }

    fn iface_ns(&self, sectors: u64) -> u64 {
        Self::ns(xfer_ns(sectors * SECTOR_SIZE, self.p.interface_bps))
    }

    fn zones_of(&self, sector: u64, sectors: u64) -> (u64, u64) {
        (sector / self.zone_size, (sector + sectors.max(1) - 1) / self.zone_size)
    }

    /// Complete `id` at `at`; its queue slot goes to the next waiting command.
    fn finish(&mut self, id: u64, at: u64, holds_slot: bool) {
        self.seq += 1;
        self.done.push(Reverse((at, self.seq, id)));
        if holds_slot {
            if let Some((t, cmd)) = self.overflow.pop_front() {
                self.enter(at.max(t), cmd, true);
            } else {
                self.in_drive -= 1;
            }
        }
    }

    /// Command `cmd` reaches the drive at `t` (`slotted`: it already has a queue slot).
    fn enter(&mut self, t: u64, cmd: Command, slotted: bool) {
        let ready = t + self.p.cmd_overhead_ns;
        let wce = self.p.wce;
        let no_media_read = cmd.kind == CommandKind::Read && cmd.media_sectors.min(cmd.sectors) == 0;
        let trivial = cmd.failed
            || no_media_read
            || (cmd.kind == CommandKind::Flush && !wce)
            || (cmd.kind == CommandKind::Write && cmd.sectors == 0);
        if trivial {
            let mut at = ready;
            if no_media_read && !cmd.failed {
                // Fill data over the one link, after what it carries already.
                let busy = self.link.map_or(0, |l| l.0);
                at = ready.max(self.link_free).max(busy) + self.iface_ns(cmd.sectors);
                self.link_free = at;
            }
            self.finish(cmd.id, at, slotted);
            return;
        }
        if !slotted {
            if !self.overflow.is_empty() || self.in_drive >= self.p.ncq_depth {
                self.overflow.push_back((t, cmd));
                return;
            }
            self.in_drive += 1;
        }
        self.seq += 1;
        let seq = self.seq;
        let zones = self.zones_of(cmd.sector, cmd.sectors);
        match cmd.kind {
            CommandKind::Write | CommandKind::Flush if wce => self.adm.push_back(Adm {
                id: cmd.id,
                seq,
                flush: cmd.kind == CommandKind::Flush,
                sector: cmd.sector,
                sectors: cmd.sectors,
                ready,
                zones,
            }),
            CommandKind::Flush => unreachable!("a flush without cache is trivial"),
            kind => {
                let media = if kind == CommandKind::Read { cmd.media_sectors.min(cmd.sectors) } else { cmd.sectors };
                let kind = match kind {
                    CommandKind::Read => OpKind::Read,
                    CommandKind::ZoneMgmt(op) => OpKind::Mgmt(op),
                    _ => OpKind::Write,
                };
                self.queue.push(Op {
                    id: cmd.id,
                    seq,
                    kind,
                    sector: cmd.sector,
                    media,
                    fill: cmd.sectors - media,
                    ready,
                    zones,
                });
            }
        }
    }

    /// Positioning time (ns) to start a transfer at `sector` at time `now`; writes settle.
    fn positioning(&self, now: u64, sector: u64, write: bool) -> u64 {
        let h = &self.head;
        if sector == h.last_end && now <= h.last_end_t + self.p.seq_slack_ns {
            return 0;
        }
        let target = self.disk.pos(sector);
        let mut seek = self.disk.seek(target.r - h.r);
        if write && seek > 0.0 {
            seek += self.p.write_settle_ns as f64;
        }
        let rev = self.disk.rev_ns;
        let at = now as f64 + seek;
        let angle = h.angle + (at - h.t_ref as f64) / rev;
        let mut wait = (target.phase - angle).rem_euclid(1.0) * rev;
        // The head is on the sector already (rounding of earlier times): no extra turn.
        if rev - wait < 10.0 {
            wait = 0.0;
        }
        Self::ns(seek + wait)
    }

    /// Start a media transfer of `sectors` at `sector` now; returns its end time.
    fn transfer(&mut self, sector: u64, sectors: u64, write: bool) -> u64 {
        let start = self.now + self.positioning(self.now, sector, write);
        let from = self.disk.pos(sector);
        let to = self.disk.pos(sector + sectors);
        let end = start + Self::ns((to.phase - from.phase) * self.disk.rev_ns);
        self.head = Head { t_ref: end, angle: to.phase.fract(), r: to.r, last_end: sector + sectors, last_end_t: end };
        end
    }

    /// Whether queued op `i` may run now: ready, and no earlier write or zone command to one of
    /// its zones waits before it (in the queue, or for the cache).
    fn eligible(&self, i: usize) -> bool {
        let op = &self.queue[i];
        if op.ready > self.now {
            return false;
        }
        if op.kind == OpKind::Read {
            return true;
        }
        let overlaps = |z: (u64, u64)| z.0 <= op.zones.1 && op.zones.0 <= z.1;
        let earlier_q = self.queue[..i].iter().any(|o| o.kind != OpKind::Read && overlaps(o.zones));
        let earlier_adm = self.adm.iter().any(|a| !a.flush && a.seq < op.seq && overlaps(a.zones));
        !earlier_q && !earlier_adm
    }

    /// Start the head's next operation if it is idle.
    fn dispatch(&mut self) {
        if self.busy.is_some() {
            return;
        }
        let pressure = self.p.wce
            && self.link.is_none()
            && self.adm.front().is_some_and(|a| {
                !a.flush && a.ready <= self.now && self.cache.used > 0 && self.cache.used + a.sectors > self.cache.cap
            });
        if !pressure {
            let mut best: Option<(u64, usize)> = None;
            for i in 0..self.queue.len() {
                if !self.eligible(i) {
                    continue;
                }
                if self.p.sched == Sched::Fifo {
                    best = Some((0, i));
                    break;
                }
                let op = &self.queue[i];
                let cost = match op.kind {
                    OpKind::Mgmt(_) => 0,
                    k => self.positioning(self.now, op.sector, k == OpKind::Write),
                };
                if best.is_none_or(|(c, _)| cost < c) {
                    best = Some((cost, i));
                }
            }
            if let Some((_, i)) = best {
                let op = self.queue.remove(i);
                match op.kind {
                    OpKind::Mgmt(zop) => {
                        if zop == ZoneOp::Reset {
                            self.cache.drop_zones(op.zones, self.zone_size);
                            self.check_flushes();
                        }
                        let end = self.now + self.p.zone_mgmt_ns;
                        self.busy = Some((end, Busy::Mgmt));
                        self.finish(op.id, end, true);
                    }
                    k => {
                        let end = self.transfer(op.sector, op.media, k == OpKind::Write);
                        self.busy = Some((end, Busy::Host));
                        let fill = self.iface_ns(op.fill);
                        self.finish(op.id, end + fill, true);
                    }
                }
                return;
            }
        }
        if let Some((sector, n)) = self.cache.take((self.p.destage_chunk_bytes / SECTOR_SIZE).max(1)) {
            let end = self.transfer(sector, n, true);
            self.busy = Some((end, Busy::Destage { sectors: n }));
        }
    }

    /// Move waiting writes into the cache over the link, and flushes to their wait.
    fn admit(&mut self) {
        while self.link.is_none() {
            let Some(a) = self.adm.front().copied() else { break };
            if a.ready > self.now {
                break;
            }
            if a.flush {
                self.adm.pop_front();
                match self.cache.first_live() {
                    Some(_) => self.flushes.push((self.cache.next_id() - 1, a.id)),
                    None => self.finish(a.id, self.now, true),
                }
                continue;
            }
            let overlaps = |z: (u64, u64)| z.0 <= a.zones.1 && a.zones.0 <= z.1;
            if self.queue.iter().any(|o| matches!(o.kind, OpKind::Mgmt(_)) && o.seq < a.seq && overlaps(o.zones)) {
                break;
            }
            if self.cache.used > 0 && self.cache.used + a.sectors > self.cache.cap {
                break;
            }
            self.adm.pop_front();
            self.cache.used += a.sectors;
            let end = self.now.max(self.link_free) + self.iface_ns(a.sectors);
            self.link = Some((end, a.id, a.sector, a.sectors));
        }
    }

    fn check_flushes(&mut self) {
        let live = self.cache.first_live();
        let mut i = 0;
        while i < self.flushes.len() {
            let (target, id) = self.flushes[i];
            if live.is_none_or(|l| l > target) {
                self.flushes.swap_remove(i);
                self.finish(id, self.now, true);
            } else {
                i += 1;
            }
        }
    }

    fn settle(&mut self) {
        self.admit();
        self.dispatch();
        self.admit();
    }

    /// The next internal event (not counting completions already decided).
    fn next_internal(&self) -> Option<u64> {
        let mut e: Option<u64> = self.kick;
        let mut at = |t: u64| e = Some(e.map_or(t, |x| x.min(t)));
        match self.busy {
            Some((end, _)) => at(end),
            None => {
                for op in &self.queue {
                    if op.ready > self.now {
                        at(op.ready);
                    }
                }
            }
        }
        match self.link {
            Some((end, ..)) => at(end),
            None => {
                if let Some(a) = self.adm.front()
                    && a.ready > self.now
                {
                    at(a.ready);
                }
            }
        }
        e
    }

    /// Run internal events before `t` (or up to it, `inclusive`).
    fn run(&mut self, t: u64, inclusive: bool) {
        while let Some(e) = self.next_internal() {
            if e > t || (e == t && !inclusive) {
                break;
            }
            self.now = self.now.max(e);
            self.kick = None;
            if let Some((end, what)) = self.busy
                && end <= self.now
            {
                self.busy = None;
                if let Busy::Destage { sectors } = what {
                    self.cache.used = self.cache.used.saturating_sub(sectors);
                    self.check_flushes();
                }
            }
            if let Some((end, id, sector, sectors)) = self.link
                && end <= self.now
            {
                self.link = None;
                self.cache.insert(sector, sectors);
                self.finish(id, end, true);
            }
            self.settle();
        }
    }
}

impl TimingModel for HddModel {
    fn name(&self) -> &str {
        NAME
    }

    fn submit(&mut self, t_ns: u64, cmd: Command) {
        self.run(t_ns, false);
        self.enter(t_ns, cmd, false);
        let at = t_ns.max(self.now);
        self.kick = Some(self.kick.map_or(at, |k| k.min(at)));
    }

    fn next_event(&self) -> Option<u64> {
        let done = self.done.peek().map(|Reverse((t, ..))| *t);
        match (done, self.next_internal()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn complete_until(&mut self, t_ns: u64, out: &mut Vec<Done>) {
        self.run(t_ns, true);
        while let Some(&Reverse((at, _, id))) = self.done.peek() {
            if at > t_ns {
                break;
            }
            self.done.pop();
            out.push(Done { id, at_ns: at });
        }
    }

    fn params(&self) -> Vec<Param> {
        super::ModelSpec::Hdd(self.p).params()
    }
}

#[cfg(test)]
mod tests;
