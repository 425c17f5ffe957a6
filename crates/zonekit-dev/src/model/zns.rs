//! An NVMe ZNS SSD in the manner of NVMeVirt (reference §2.5): flash dies behind channels, each
//! with its busy-until time, a PCIe link, and a per-zone write buffer that completes writes early.
//!
//! - **Striping**: a zone is cut into units of one program operation (`oneshot_bytes`, 96 KiB:
//!   three 32 KiB pages of TLC); unit `u` of zone `z` lives on die `(z + u) mod dies`, and die `d`
//!   hangs on channel `d mod channels`, so consecutive units of a zone go to consecutive dies on
//!   consecutive channels (every zone is spread over every die, as NVMeVirt's ZN540 profile does;
//!   the rotation by zone number is zonekit's choice, so that zones written together do not all
//!   start on die 0).
//! - **Reads**: after the firmware overhead (`fw_read_4k` for reads of 4 KiB or less, else
//!   `fw_read`), each flash page touched is read on its die (`read_4k` when 4 KiB or less of it is
//!   wanted, else `read_page`), moved over its channel (`channel_bps`) and then over PCIe
//!   (`pcie_bps`); each resource serves in arrival order. The command completes with its last
//!   byte. Sectors above a write pointer take the PCIe link only.
//! - **Writes**: the data moves over PCIe into the zone's write buffer (`zone_wbuf_bytes`), waiting
//!   for room when it is full; the command completes `wbuf_base + wbuf_per_4k × 4 KiB blocks` after
//!   its last byte is in (early completion). Each unit, once complete in the buffer, goes over its
//!   channel to its die and is programmed (`program_ns`) in the background; its room is freed when
//!   the program ends. A partial unit waits in the buffer for the rest of its data.
//! - **Zone management**: a reset takes `reset_ns` and drops the zone's buffered data; a finish takes
//!   `finish_ns` and programs a partial unit; open, close and flush take `mgmt_ns`, as does a
//!   failed command. None of them occupies a die (no erase interference is modelled).
//!
//! Every completion time is decided when the command is submitted, so the model has no events
//! but completions.

use super::{ParamDef, Unit};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use zonekit_core::timing::{Command, CommandKind, Done, Param, TimingModel};
use zonekit_core::{Geometry, SECTOR_SIZE, ZoneOp};

/// The model's name.
pub const NAME: &str = "zns-ssd";

/// The parameters of a ZNS SSD (see the module documentation for their roles; `docs/models.md`
/// for their sources).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZnsParams {
    /// Flash channels.
    pub channels: u32,
    /// Dies (LUNs) on each channel.
    pub dies_per_channel: u32,
    /// Flash page, bytes (the read unit).
    pub page_bytes: u64,
    /// One program operation, bytes (the stripe and program unit).
    pub oneshot_bytes: u64,
    /// Die time to read 4 KiB or less of a page, ns.
    pub read_4k_ns: u64,
    /// Die time to read more of a page, ns.
    pub read_page_ns: u64,
    /// Die time to program one unit, ns.
    pub program_ns: u64,
    /// Firmware overhead of a read of 4 KiB or less, ns.
    pub fw_read_4k_ns: u64,
    /// Firmware overhead of a larger read, ns.
    pub fw_read_ns: u64,
    /// Write buffer latency per command, ns.
    pub wbuf_base_ns: u64,
    /// Write buffer latency per 4 KiB, ns.
    pub wbuf_per_4k_ns: u64,
    /// Write buffer of each zone, bytes.
    pub zone_wbuf_bytes: u64,
    /// Channel rate, bytes/s.
    pub channel_bps: u64,
    /// PCIe rate, bytes/s.
    pub pcie_bps: u64,
    /// Zone reset, ns.
    pub reset_ns: u64,
    /// Zone finish, ns.
    pub finish_ns: u64,
    /// Open, close, flush and failed commands, ns.
    pub mgmt_ns: u64,
    /// Sources that differ from each parameter's general one, by parameter name.
    pub sources: &'static [(&'static str, &'static str)],
}

impl ZnsParams {
    /// All zeros (a base for loading stored parameters).
    pub(crate) const EMPTY: ZnsParams = ZnsParams {
        channels: 0,
        dies_per_channel: 0,
        page_bytes: 0,
        oneshot_bytes: 0,
        read_4k_ns: 0,
        read_page_ns: 0,
        program_ns: 0,
        fw_read_4k_ns: 0,
        fw_read_ns: 0,
        wbuf_base_ns: 0,
        wbuf_per_4k_ns: 0,
        zone_wbuf_bytes: 0,
        channel_bps: 0,
        pcie_bps: 0,
        reset_ns: 0,
        finish_ns: 0,
        mgmt_ns: 0,
        sources: &[],
    };

    /// NVMeVirt's WD ZN540 profile, with ConfZNS's reset and ConfZNS++'s finish.
    pub const ZN540: ZnsParams = ZnsParams {
        channels: 8,
        dies_per_channel: 4,
        page_bytes: 32 << 10,
        oneshot_bytes: 96 << 10,
        read_4k_ns: 50_000,
        read_page_ns: 58_000,
        program_ns: 561_000,
        fw_read_4k_ns: 20_000,
        fw_read_ns: 13_000,
        wbuf_base_ns: 5_600,
        wbuf_per_4k_ns: 600,
        zone_wbuf_bytes: 10 * (96 << 10),
        channel_bps: 450_000_000,
        pcie_bps: 3_050_000_000,
        reset_ns: 200_000,
        finish_ns: 1_000_000_000,
        mgmt_ns: 13_000,
        sources: &[],
    };

    /// Check that the parameters make a working model.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(bool, &str); 5] = [
            (self.channels > 0 && self.dies_per_channel > 0, "channels and dies must be positive"),
            (self.page_bytes >= SECTOR_SIZE, "the flash page must be at least a sector"),
            (
                self.oneshot_bytes >= self.page_bytes && self.oneshot_bytes.is_multiple_of(self.page_bytes),
                "the program unit must be a whole number of pages",
            ),
            (self.zone_wbuf_bytes >= self.oneshot_bytes, "the zone write buffer must hold a program unit"),
            (self.channel_bps > 0 && self.pcie_bps > 0, "rates must be positive"),
        ];
        checks.iter().find(|(ok, _)| !ok).map_or(Ok(()), |(_, why)| Err((*why).to_string()))
    }
}

const NVV: &str = "NVMeVirt ssd_config.h, WD_ZN540 profile (reference §2.5)";

/// Every parameter: name (with unit), general source, accessors.
pub(crate) const PARAMS: &[ParamDef<ZnsParams>] = &[
    ParamDef {
        name: "channels",
        unit: Unit::Count("channels"),
        source: NVV,
        get: |p| u64::from(p.channels),
        set: |p, v| p.channels = v as u32,
    },
    ParamDef {
        name: "dies_per_channel",
        unit: Unit::Count("dies"),
        source: NVV,
        get: |p| u64::from(p.dies_per_channel),
        set: |p, v| p.dies_per_channel = v as u32,
    },
    ParamDef {
        name: "page_bytes",
        unit: Unit::Bytes,
        source: NVV,
        get: |p| p.page_bytes,
        set: |p, v| p.page_bytes = v,
    },
    ParamDef {
        name: "oneshot_bytes",
        unit: Unit::Bytes,
        source: "NVMeVirt WD_ZN540: oneshot program of 3 pages (TLC); zonekit stripes zones in these units (reference §2.5)",
        get: |p| p.oneshot_bytes,
        set: |p, v| p.oneshot_bytes = v,
    },
    ParamDef {
        name: "read_4k_ns",
        unit: Unit::Ns,
        source: "NVMeVirt WD_ZN540: 4 KiB read latency 50 µs (reference §2.5)",
        get: |p| p.read_4k_ns,
        set: |p, v| p.read_4k_ns = v,
    },
    ParamDef {
        name: "read_page_ns",
        unit: Unit::Ns,
        source: "NVMeVirt WD_ZN540: page read latency 58 µs (reference §2.5)",
        get: |p| p.read_page_ns,
        set: |p, v| p.read_page_ns = v,
    },
    ParamDef {
        name: "program_ns",
        unit: Unit::Ns,
        source: "NVMeVirt WD_ZN540: program latency 561 µs (reference §2.5)",
        get: |p| p.program_ns,
        set: |p, v| p.program_ns = v,
    },
    ParamDef {
        name: "fw_read_4k_ns",
        unit: Unit::Ns,
        source: "NVMeVirt WD_ZN540: firmware 4 KiB read overhead 20 µs (reference §2.5)",
        get: |p| p.fw_read_4k_ns,
        set: |p, v| p.fw_read_4k_ns = v,
    },
    ParamDef {
        name: "fw_read_ns",
        unit: Unit::Ns,
        source: "NVMeVirt WD_ZN540: firmware read overhead 13 µs for reads over 4 KiB",
        get: |p| p.fw_read_ns,
        set: |p, v| p.fw_read_ns = v,
    },
    ParamDef {
        name: "wbuf_base_ns",
        unit: Unit::Ns,
        source: "NVMeVirt WD_ZN540: write buffer latency 5.6 µs per command (reference §2.5)",
        get: |p| p.wbuf_base_ns,
        set: |p, v| p.wbuf_base_ns = v,
    },
    ParamDef {
        name: "wbuf_per_4k_ns",
        unit: Unit::Ns,
        source: "NVMeVirt WD_ZN540: write buffer latency 0.6 µs per 4 KiB (reference §2.5)",
        get: |p| p.wbuf_per_4k_ns,
        set: |p, v| p.wbuf_per_4k_ns = v,
    },
    ParamDef {
        name: "zone_wbuf_bytes",
        unit: Unit::Bytes,
        source: "NVMeVirt WD_ZN540: zone write buffer = 10 × oneshot (reference §2.5)",
        get: |p| p.zone_wbuf_bytes,
        set: |p, v| p.zone_wbuf_bytes = v,
    },
    ParamDef {
        name: "channel_bps",
        unit: Unit::BytesPerSec,
        source: "NVMeVirt WD_ZN540: channel bandwidth 450 MB/s (reference §2.5)",
        get: |p| p.channel_bps,
        set: |p, v| p.channel_bps = v,
    },
    ParamDef {
        name: "pcie_bps",
        unit: Unit::BytesPerSec,
        source: "NVMeVirt WD_ZN540: PCIe bandwidth 3050 MB/s (reference §2.5)",
        get: |p| p.pcie_bps,
        set: |p, v| p.pcie_bps = v,
    },
    ParamDef {
        name: "reset_ns",
        unit: Unit::Ns,
        source: "ConfZNS (SYSTOR'23): zone reset 200 µs (reference §2.5); no erase interference modelled",
        get: |p| p.reset_ns,
        set: |p, v| p.reset_ns = v,
    },
    ParamDef {
        name: "finish_ns",
        unit: Unit::Ns,
        source: "ConfZNS++ (SYSTOR'24): finish ≈ 1 zone/s observed on the evaluated SSD (reference §2.5); not scaled by the zone's fill",
        get: |p| p.finish_ns,
        set: |p, v| p.finish_ns = v,
    },
    ParamDef {
        name: "mgmt_ns",
        unit: Unit::Ns,
        source: "zonekit's choice: open/close/flush/failed commands cost the firmware overhead of a command (NVMeVirt's 13 µs read overhead)",
        get: |p| p.mgmt_ns,
        set: |p, v| p.mgmt_ns = v,
    },
];

/// A zone's write buffer.
#[derive(Debug, Default)]
struct ZoneBuf {
    /// Bytes held (complete units not yet programmed, and the partial unit).
    used: u64,
    /// Units being programmed: (time the room is freed, bytes).
    releases: Vec<(u64, u64)>,
    /// The unit being filled and the bytes in it.
    partial: Option<(u64, u64)>,
}

/// The busy intervals of a shared link, so that a transfer that must wait (a write waiting for
/// buffer room) does not hold up the ones that can go before it.
#[derive(Debug, Default)]
struct Calendar {
    /// Sorted, disjoint, not touching.
    busy: Vec<(u64, u64)>,
}

impl Calendar {
    /// Forget what ended by `t` (submissions come in time order).
    fn prune(&mut self, t: u64) {
        let n = self.busy.iter().take_while(|b| b.1 <= t).count();
        if n > 0 {
            self.busy.drain(..n);
        }
    }

    /// Book `len` ns at the earliest free time from `from`; returns the end.
    fn book(&mut self, from: u64, len: u64) -> u64 {
        let mut start = from;
        let mut i = 0;
        while i < self.busy.len() {
            let (a, b) = self.busy[i];
            if b < start {
                i += 1;
                continue;
            }
            if start + len <= a {
                break;
            }
            start = start.max(b);
            i += 1;
        }
        let end = start + len;
        // Insert at i, merging with touching neighbours.
        let touches_prev = i > 0 && self.busy[i - 1].1 == start;
        let touches_next = i < self.busy.len() && self.busy[i].0 == end;
        match (touches_prev, touches_next) {
            (true, true) => {
                self.busy[i - 1].1 = self.busy[i].1;
                self.busy.remove(i);
            }
            (true, false) => self.busy[i - 1].1 = end,
            (false, true) => self.busy[i].0 = start,
            (false, false) => self.busy.insert(i, (start, end)),
        }
        end
    }
}

/// The ZNS SSD model (see the module documentation).
#[derive(Debug)]
pub struct ZnsModel {
    p: ZnsParams,
    zone_size: u64,
    ndies: u64,
    dies: Vec<u64>,
    chans: Vec<u64>,
    pcie: Calendar,
    bufs: HashMap<u64, ZoneBuf>,
    seq: u64,
    done: BinaryHeap<Reverse<(u64, u64, u64)>>,
}

fn xfer(bytes: u64, bps: u64) -> u64 {
    ((u128::from(bytes) * 1_000_000_000 + u128::from(bps) / 2) / u128::from(bps)) as u64
}

impl ZnsModel {
    /// An idle drive at time 0.
    pub fn new(p: ZnsParams, g: &Geometry) -> ZnsModel {
        let ndies = u64::from(p.channels) * u64::from(p.dies_per_channel);
        ZnsModel {
            p,
            zone_size: g.zone_size.max(1),
            ndies,
            dies: vec![0; ndies as usize],
            chans: vec![0; p.channels as usize],
            pcie: Calendar::default(),
            bufs: HashMap::new(),
            seq: 0,
            done: BinaryHeap::new(),
        }
    }

    /// Die of the unit holding byte `off` of zone `zone`.
    fn die(&self, zone: u64, off: u64) -> usize {
        ((zone + off / self.p.oneshot_bytes) % self.ndies) as usize
    }

    fn pcie_xfer(&mut self, from: u64, bytes: u64) -> u64 {
        self.pcie.book(from, xfer(bytes, self.p.pcie_bps))
    }

    /// Program unit `unit` of `zone` (its data in the buffer from `t`); returns when it ends.
    fn program(&mut self, zone: u64, unit: u64, t: u64) -> u64 {
        let d = self.die(zone, unit * self.p.oneshot_bytes);
        let c = d % self.p.channels as usize;
        let cs = t.max(self.chans[c]);
        self.chans[c] = cs + xfer(self.p.oneshot_bytes, self.p.channel_bps);
        let ps = self.chans[c].max(self.dies[d]);
        self.dies[d] = ps + self.p.program_ns;
        self.dies[d]
    }

    fn read(&mut self, t: u64, cmd: &Command) -> u64 {
        let bytes = cmd.sectors * SECTOR_SIZE;
        let t0 = t + if bytes <= 4096 { self.p.fw_read_4k_ns } else { self.p.fw_read_ns };
        let mut last = t0;
        let mut pos = cmd.sector * SECTOR_SIZE;
        let end = pos + cmd.media_sectors.min(cmd.sectors) * SECTOR_SIZE;
        let zone_bytes = self.zone_size * SECTOR_SIZE;
        while pos < end {
            let zone = pos / zone_bytes;
            let off = pos % zone_bytes;
            let n = (self.p.page_bytes - off % self.p.page_bytes).min(end - pos);
            let d = self.die(zone, off);
            let c = d % self.p.channels as usize;
            let lat = if n <= 4096 { self.p.read_4k_ns } else { self.p.read_page_ns };
            let ds = t0.max(self.dies[d]);
            self.dies[d] = ds + lat;
            let cs = self.dies[d].max(self.chans[c]);
            self.chans[c] = cs + xfer(n, self.p.channel_bps);
            last = last.max(self.pcie_xfer(self.chans[c], n));
            pos += n;
        }
        let fill = (cmd.sectors - cmd.media_sectors.min(cmd.sectors)) * SECTOR_SIZE;
        if fill > 0 {
            last = last.max(self.pcie_xfer(t0, fill));
        }
        last
    }

    fn write(&mut self, t: u64, cmd: &Command) -> u64 {
        let bytes = cmd.sectors * SECTOR_SIZE;
        let zone_bytes = self.zone_size * SECTOR_SIZE;
        let unit = self.p.oneshot_bytes;
        let cap = self.p.zone_wbuf_bytes;
        let mut pos = cmd.sector * SECTOR_SIZE;
        let end = pos + bytes;
        let mut t_in = t;
        while pos < end {
            let zone = pos / zone_bytes;
            let off = pos % zone_bytes;
            let n = (unit - off % unit).min(end - pos);
            // Room in the zone's buffer.
            let buf = self.bufs.entry(zone).or_default();
            let mut tau = t_in;
            loop {
                let mut used = buf.used;
                buf.releases.retain(|&(rt, b)| {
                    if rt <= tau {
                        used = used.saturating_sub(b);
                        false
                    } else {
                        true
                    }
                });
                buf.used = used;
                if buf.used == 0 || buf.used + n <= cap {
                    break;
                }
                match buf.releases.iter().map(|r| r.0).min() {
                    Some(next) => tau = next,
                    None => break,
                }
            }
            buf.used += n;
            let u = off / unit;
            let filled = match buf.partial {
                Some((pu, b)) if pu == u => b + n,
                _ => off % unit + n,
            };
            let complete = filled >= unit;
            buf.partial = if complete { None } else { Some((u, filled)) };
            t_in = self.pcie_xfer(tau, n);
            if complete {
                let freed = self.program(zone, u, t_in);
                self.bufs.entry(zone).or_default().releases.push((freed, unit));
            }
            pos += n;
        }
        t_in + self.p.wbuf_base_ns + self.p.wbuf_per_4k_ns * bytes.div_ceil(4096)
    }

    fn zone_mgmt(&mut self, t: u64, op: ZoneOp, cmd: &Command) -> u64 {
        let first = cmd.sector / self.zone_size;
        let last = (cmd.sector + cmd.sectors.max(1) - 1) / self.zone_size;
        match op {
            ZoneOp::Reset => {
                if last - first > self.bufs.len() as u64 {
                    self.bufs.retain(|z, _| *z < first || *z > last);
                } else {
                    for z in first..=last {
                        self.bufs.remove(&z);
                    }
                }
                t + self.p.reset_ns
            }
            ZoneOp::Finish => {
                for z in first..=last {
                    let partial = self.bufs.get_mut(&z).and_then(|b| b.partial.take());
                    if let Some((u, held)) = partial {
                        let freed = self.program(z, u, t);
                        self.bufs.entry(z).or_default().releases.push((freed, held));
                    }
                }
                t + self.p.finish_ns
            }
            ZoneOp::Open | ZoneOp::Close => t + self.p.mgmt_ns,
        }
    }
}

impl TimingModel for ZnsModel {
    fn name(&self) -> &str {
        NAME
    }

    fn submit(&mut self, t_ns: u64, cmd: Command) {
        self.pcie.prune(t_ns);
        let at = if cmd.failed {
            t_ns + self.p.mgmt_ns
        } else {
            match cmd.kind {
                CommandKind::Read => self.read(t_ns, &cmd),
                CommandKind::Write if cmd.sectors > 0 => self.write(t_ns, &cmd),
                CommandKind::Write | CommandKind::Flush => t_ns + self.p.mgmt_ns,
                CommandKind::ZoneMgmt(op) => self.zone_mgmt(t_ns, op, &cmd),
            }
        };
        self.seq += 1;
        self.done.push(Reverse((at, self.seq, cmd.id)));
    }

    fn next_event(&self) -> Option<u64> {
        self.done.peek().map(|Reverse((t, ..))| *t)
    }

    fn complete_until(&mut self, t_ns: u64, out: &mut Vec<Done>) {
        while let Some(&Reverse((at, _, id))) = self.done.peek() {
            if at > t_ns {
                break;
            }
            self.done.pop();
            out.push(Done { id, at_ns: at });
        }
    }

    fn params(&self) -> Vec<Param> {
        super::ModelSpec::Zns(self.p).params()
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod calendar_tests {
    use super::Calendar;

    #[test]
    fn bookings_fill_gaps_and_merge() {
        let mut c = Calendar::default();
        assert_eq!(c.book(100, 10), 110);
        assert_eq!(c.book(0, 10), 10);
        assert_eq!(c.book(0, 50), 60, "after [0, 10)");
        assert_eq!(c.book(0, 50), 160, "no room before 100: after [100, 110)");
        assert_eq!(c.busy, vec![(0, 60), (100, 160)]);
        assert_eq!(c.book(60, 40), 100);
        assert_eq!(c.busy, vec![(0, 160)]);
        c.prune(160);
        assert!(c.busy.is_empty());
    }
}
