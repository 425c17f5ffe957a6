//! Table-driven text tests of the block layer's request rules (`zonekit_blk::zoned`), in the style
//! of `zonekit-core`'s datadriven tests.
//!
//! Each `testdata/*.txt` file is a script: a command line, a `----` line, then the expected output
//! up to the next blank line. Lines starting with `#` are comments. Positions and lengths are
//! 512-byte sectors, or bytes with a `B` suffix (`100B`). The commands:
//!
//! | command | does | prints |
//! |---|---|---|
//! | `device personality=P zones=N zone-size=S [conv=N] [cap=C] [max-open=N] [max-active=N] [lbs=B] [max-append=S] [capacity=S] [max-sectors-kb=N] [qd1=0\|1] [rotational=0\|1]` | a fresh in-memory emulated device behind a `BlockDevice` | `ok` |
//! | `override KEY=VALUE…` | the same device with changed queue limits (`lbs`, `chunk-sectors`, `nr-zones`, `max-open`, `max-active`, `append-max-bytes`, `write-granularity`, `max-sectors-kb`, `max-sectors`, `qd1`, `append=native\|emulated`) | `ok`, or the error |
//! | `limits` | the queue attributes, as `/sys/block/X/queue` names them | `name value` lines, then `capacity=… lbs=… pbs=… append=… max_sectors=…` |
//! | `split-write OFFSET LEN`, `split-read OFFSET LEN` | the cut and split alone (no device command) | `cut sector=S bytes=B`, then one `piece sector=S nr=N buf=OFF` line per command, or the error |
//! | `plan OP SECTOR NR` | a management range's plan alone | `reset-all`, or one `OP sector=S nr=N` line per zone (at most 8, then `… N zones`), or the error |
//! | `write OFFSET LEN`, `read OFFSET LEN` | `pwrite` / `pread` on the block device | each device command (`dev write S+N ok`, or with the device's error), then `ok BYTES` or `ERRNO message` |
//! | `open\|close\|finish\|reset SECTOR [NR]` | the zone management ioctl (NR defaults to a zone) | each device command, then `ok` or `ERRNO message` |
//! | `append SECTOR LEN` | a zone append to the zone starting at SECTOR | each device command, then `ok sector=S` or `ERRNO message` |
//! | `report-zones SECTOR MAX` | `BLKREPORTZONE` | `zones=N` (how many came back) or the error |
//! | `set-cond SECTOR ro\|offline` | null_blk's `zone_readonly` / `zone_offline`, on the device | `ok` |
//! | `report` | every zone not in its initial condition, then the counters | `zone Z: cl wp=+8` … `open=1 closed=1` |
//!
//! A device command's error prints as `ERRNO kind zone=Z`; a `BlockDevice` call's as its errno's
//! name and its message.
//!
//! `ZONEKIT_REWRITE=1 cargo test -p zonekit-blk --test datadriven` rewrites the expected outputs;
//! check every rewritten expectation by hand against the kernel functions `docs/blk.md` names.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use zonekit_blk::zoned::{LimitOverrides, MgmtPlan, mgmt, split};
use zonekit_blk::{BlkError, BlockDevice};
use zonekit_core::{
    BlockIo, DeviceError, DeviceInfo, DeviceKind, DeviceResult, Geometry, INVALID_WP, Limits, Personality,
    QueueSettings, SECTOR_SIZE, Zone, ZoneCond, ZoneManagement, ZoneOp, ZoneReport,
};
use zonekit_dev::store::MemoryStore;
use zonekit_dev::{DeviceConfig, EmulatedDevice};

/// `InvalidTransition` → `invalid_transition`.
fn snake(kind: &impl std::fmt::Debug) -> String {
    let name = format!("{kind:?}");
    let mut s = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

fn dev_error(e: &DeviceError) -> String {
    let errno = e.errno().name().unwrap_or("?");
    match e {
        DeviceError::Zone { error, .. } => {
            let zone = error.zone.map_or("none".to_string(), |z| z.to_string());
            format!("{errno} {} zone={zone}", snake(&error.kind))
        }
        other => format!("{errno} {other}"),
    }
}

/// The device under test, logging every command it is given.
struct Recorder {
    dev: Arc<EmulatedDevice>,
    log: Mutex<Vec<String>>,
}

impl Recorder {
    fn note<T>(&self, what: String, r: DeviceResult<T>, ok: impl FnOnce(&T) -> String) -> DeviceResult<T> {
        let line = match &r {
            Ok(v) => format!("dev {what} {}", ok(v)),
            Err(e) => format!("dev {what} {}", dev_error(e)),
        };
        self.log.lock().unwrap().push(line);
        r
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }
}

impl ZoneReport for Recorder {
    fn info(&self) -> &DeviceInfo {
        self.dev.info()
    }

    fn report_zones(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> DeviceResult<()> {
        let before = out.len();
        let r = self.dev.report_zones(sector, max, out);
        let n = out.len() - before;
        self.note(format!("report {sector} max={max}"), r, |_| format!("zones={n}"))
    }
}

impl ZoneManagement for Recorder {
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> DeviceResult<()> {
        let r = self.dev.zone_mgmt(op, sector, nr);
        self.note(format!("{} {sector}+{nr}", op.name()), r, |_| "ok".into())
    }
}

impl BlockIo for Recorder {
    fn read_at(&self, sector: u64, buf: &mut [u8]) -> DeviceResult<()> {
        let r = self.dev.read_at(sector, buf);
        self.note(format!("read {sector}+{}", buf.len() as u64 / SECTOR_SIZE), r, |_| "ok".into())
    }

    fn write_at(&self, sector: u64, buf: &[u8]) -> DeviceResult<()> {
        let r = self.dev.write_at(sector, buf);
        self.note(format!("write {sector}+{}", buf.len() as u64 / SECTOR_SIZE), r, |_| "ok".into())
    }

    fn zone_append(&self, zone_start: u64, buf: &[u8]) -> DeviceResult<u64> {
        let r = self.dev.zone_append(zone_start, buf);
        self.note(format!("append {zone_start}+{}", buf.len() as u64 / SECTOR_SIZE), r, |s| format!("sector={s}"))
    }

    fn flush(&self) -> DeviceResult<()> {
        self.dev.flush()
    }
}

#[derive(Default)]
struct Runner {
    rec: Option<Arc<Recorder>>,
    bdev: Option<BlockDevice>,
}

fn num(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("bad number '{s}'"))
}

/// A position or length: sectors, or bytes with a `B` suffix; in bytes.
fn bytes(s: &str) -> Result<u64, String> {
    match s.strip_suffix('B') {
        Some(b) => num(b),
        None => num(s)?.checked_mul(SECTOR_SIZE).ok_or_else(|| format!("'{s}' sectors overflow")),
    }
}

fn blk_line(e: &BlkError) -> String {
    format!("{} {}", e.errno.name().unwrap_or("?"), e.message)
}

impl Runner {
    fn bdev(&self) -> Result<&BlockDevice, String> {
        self.bdev.as_ref().ok_or_else(|| "no device: use `device` first".to_string())
    }

    fn rec(&self) -> Result<&Arc<Recorder>, String> {
        self.rec.as_ref().ok_or_else(|| "no device: use `device` first".to_string())
    }

    /// The device commands issued since the last call, then `last`.
    fn with_log(&self, last: String) -> Result<String, String> {
        let mut lines = self.rec()?.take();
        lines.push(last);
        Ok(lines.join("\n"))
    }

    fn run(&mut self, command: &str) -> Result<String, String> {
        let mut words = command.split_whitespace();
        let verb = words.next().unwrap_or_default();
        let args: Vec<&str> = words.collect();
        let arg = |i: usize| -> Result<&str, String> {
            args.get(i).copied().ok_or_else(|| format!("`{verb}` needs argument {}", i + 1))
        };
        match verb {
            "device" => self.device(&args),
            "override" => self.override_limits(&args),
            "limits" => {
                let l = self.bdev()?.limits();
                let mut lines: Vec<String> = l.attributes().iter().map(|(n, v)| format!("{n} {v}")).collect();
                lines.push(format!(
                    "capacity={} lbs={} pbs={} append={:?} max_sectors={}",
                    l.capacity, l.logical_block_size, l.physical_block_size, l.zone_append, l.max_sectors
                ));
                Ok(lines.join("\n"))
            }
            "split-write" | "split-read" => {
                let (offset, len) = (bytes(arg(0)?)?, bytes(arg(1)?)?);
                let l = self.bdev()?.limits();
                let cut = if verb == "split-write" {
                    split::cut_write(l, offset, len)
                } else {
                    split::cut_read(l, offset, len)
                };
                let cut = match cut {
                    Ok(c) => c,
                    Err(e) => return Ok(format!("{} {e}", e.errno().name().unwrap_or("?"))),
                };
                let mut lines = vec![format!("cut sector={} bytes={}", cut.sector, cut.bytes)];
                for p in split::pieces(l, cut.sector, cut.sectors()) {
                    lines.push(format!("piece sector={} nr={} buf={}", p.sector, p.sectors, p.buf_offset));
                }
                Ok(lines.join("\n"))
            }
            "plan" => {
                let op =
                    ZoneOp::ALL.into_iter().find(|o| o.name() == arg(0).unwrap_or("")).ok_or("`plan` needs an op")?;
                let (sector, nr) = (num(arg(1)?)?, num(arg(2)?)?);
                match mgmt::plan(self.bdev()?.limits(), op, sector, nr) {
                    Ok(MgmtPlan::ResetAll) => Ok("reset-all".into()),
                    Ok(p) => {
                        let mut lines: Vec<String> = p
                            .commands()
                            .take(8)
                            .map(|c| match c {
                                mgmt::MgmtCommand::Zone { op, sector, nr } => {
                                    format!("{} sector={sector} nr={nr}", op.name())
                                }
                                mgmt::MgmtCommand::ResetAll => "reset-all".into(),
                            })
                            .collect();
                        if p.len() > 8 {
                            lines.push(format!("… {} zones", p.len()));
                        }
                        Ok(lines.join("\n"))
                    }
                    Err(e) => Ok(format!("{} {e}", e.errno().name().unwrap_or("?"))),
                }
            }
            "write" => {
                let (offset, len) = (bytes(arg(0)?)?, bytes(arg(1)?)?);
                let buf = vec![0x5a; usize::try_from(len).map_err(|_| "too long")?];
                let r = self.bdev()?.write(offset, &buf);
                self.with_log(r.map_or_else(|e| blk_line(&e), |n| format!("ok {n}")))
            }
            "read" => {
                let (offset, len) = (bytes(arg(0)?)?, bytes(arg(1)?)?);
                let mut buf = vec![0; usize::try_from(len).map_err(|_| "too long")?];
                let r = self.bdev()?.read(offset, &mut buf);
                self.with_log(r.map_or_else(|e| blk_line(&e), |n| format!("ok {n}")))
            }
            "open" | "close" | "finish" | "reset" => {
                let op = ZoneOp::ALL.into_iter().find(|o| o.name() == verb).expect("listed");
                let sector = num(arg(0)?)?;
                let nr = match args.get(1) {
                    Some(n) => num(n)?,
                    None => self.bdev()?.limits().chunk_sectors,
                };
                let r = self.bdev()?.zone_mgmt(op, sector, nr);
                self.with_log(r.map_or_else(|e| blk_line(&e), |()| "ok".into()))
            }
            "append" => {
                let (sector, len) = (num(arg(0)?)?, bytes(arg(1)?)?);
                let buf = vec![0xa5; usize::try_from(len).map_err(|_| "too long")?];
                let r = self.bdev()?.zone_append(sector, &buf);
                self.with_log(r.map_or_else(|e| blk_line(&e), |s| format!("ok sector={s}")))
            }
            "report-zones" => {
                let (sector, max) = (num(arg(0)?)?, num(arg(1)?)? as usize);
                let mut out = Vec::new();
                let r = self.bdev()?.report_zones(sector, max, &mut out);
                self.rec()?.take();
                Ok(r.map_or_else(|e| blk_line(&e), |()| format!("zones={}", out.len())))
            }
            "set-cond" => {
                let sector = num(arg(0)?)?;
                let cond: ZoneCond = arg(1)?.parse().map_err(|e| format!("{e}"))?;
                let rec = self.rec()?;
                let idx = (sector / rec.info().geometry.zone_size) as u32;
                rec.dev.set_zone_cond(idx, cond).map_err(|e| e.to_string())?;
                Ok("ok".into())
            }
            "report" => self.report(),
            _ => Err(format!("unknown command `{verb}`")),
        }
    }

    fn device(&mut self, args: &[&str]) -> Result<String, String> {
        let mut personality = None;
        let (mut zones, mut capacity, mut conv, mut zone_size, mut cap) = (None, None, 0u32, None, None);
        let (mut max_open, mut max_active, mut lbs, mut max_append) = (0u32, 0u32, 512u32, None);
        let (mut max_sectors_kb, mut qd1, mut rotational) = (None, None, false);
        for a in args {
            let (k, v) = a.split_once('=').ok_or_else(|| format!("`{a}` is not key=value"))?;
            let n = || num(v);
            match k {
                "personality" => personality = Some(v.parse::<Personality>().map_err(|e| e.to_string())?),
                "zones" => zones = Some(n()? as u32),
                "capacity" => capacity = Some(n()?),
                "conv" => conv = n()? as u32,
                "zone-size" => zone_size = Some(n()?),
                "cap" => cap = Some(n()?),
                "max-open" => max_open = n()? as u32,
                "max-active" => max_active = n()? as u32,
                "lbs" => lbs = n()? as u32,
                "max-append" => max_append = Some(n()?),
                "max-sectors-kb" => max_sectors_kb = Some(n()? as u32),
                "qd1" => qd1 = Some(n()? != 0),
                "rotational" => rotational = n()? != 0,
                _ => return Err(format!("unknown device key `{k}`")),
            }
        }
        let personality = personality.ok_or("`device` needs personality=")?;
        let zone_size = zone_size.ok_or("`device` needs zone-size=")?;
        let cap = cap.unwrap_or(zone_size);
        let geometry = match (zones, capacity) {
            (Some(z), None) => Geometry::with_zones(zone_size, z, cap, conv, lbs),
            (None, Some(c)) => Geometry::new(c, zone_size, cap, conv, lbs),
            _ => return Err("`device` needs exactly one of zones= and capacity=".into()),
        }
        .map_err(|e| e.to_string())?;
        let limits = Limits { max_open, max_active, max_append_sectors: max_append.unwrap_or(zone_size) }
            .normalized(&geometry)
            .map_err(|e| e.to_string())?;
        let defaults = QueueSettings::defaults(rotational);
        let queue = QueueSettings {
            max_sectors_kb: max_sectors_kb.unwrap_or(defaults.max_sectors_kb),
            zoned_qd1_writes: qd1.unwrap_or(defaults.zoned_qd1_writes),
        };
        let config = DeviceConfig {
            personality,
            geometry,
            limits,
            profile: None,
            rotational,
            vendor: "test".into(),
            description: "datadriven test device".into(),
            model: None,
            queue,
        };
        let kind = DeviceKind::Emulated { store: "memory".into(), profile: None };
        let dev = Arc::new(EmulatedDevice::new("test", kind, &config, Box::new(MemoryStore::new())));
        let rec = Arc::new(Recorder { dev, log: Mutex::new(Vec::new()) });
        self.bdev = Some(BlockDevice::new(rec.clone()));
        // The block layer reads the zones once when it takes the device (its plugs); not a case's.
        rec.take();
        self.rec = Some(rec);
        Ok("ok".into())
    }

    fn override_limits(&mut self, args: &[&str]) -> Result<String, String> {
        let mut o = LimitOverrides::default();
        for a in args {
            let (k, v) = a.split_once('=').ok_or_else(|| format!("`{a}` is not key=value"))?;
            match k {
                "lbs" => o.logical_block_size = Some(num(v)? as u32),
                "chunk-sectors" => o.chunk_sectors = Some(num(v)?),
                "nr-zones" => o.nr_zones = Some(num(v)? as u32),
                "max-open" => o.max_open_zones = Some(num(v)? as u32),
                "max-active" => o.max_active_zones = Some(num(v)? as u32),
                "append-max-bytes" => o.zone_append_max_bytes = Some(num(v)?),
                "write-granularity" => o.zone_write_granularity = Some(num(v)? as u32),
                "max-sectors-kb" => o.max_sectors_kb = Some(num(v)? as u32),
                "max-sectors" => o.max_sectors = Some(num(v)?),
                "qd1" => o.zoned_qd1_writes = Some(num(v)? != 0),
                "append" => o.zone_append_native = Some(v == "native"),
                _ => return Err(format!("unknown override `{k}`")),
            }
        }
        let rec = self.rec()?.clone();
        match BlockDevice::with_overrides(rec.clone(), &o) {
            Ok(b) => {
                rec.take();
                self.bdev = Some(b);
                Ok("ok".into())
            }
            Err(e) => Ok(blk_line(&e)),
        }
    }

    fn report(&mut self) -> Result<String, String> {
        let rec = self.rec()?;
        let g = rec.info().geometry.clone();
        let mut zones = Vec::new();
        rec.dev.report_zones(0, g.nr_zones as usize, &mut zones).map_err(|e| e.to_string())?;
        let mut lines = Vec::new();
        for (i, z) in zones.iter().enumerate() {
            let initial = if g.is_conventional(i as u32) {
                z.cond == ZoneCond::NotWp
            } else {
                z.cond == ZoneCond::Empty && z.wp == z.start
            };
            if !initial {
                let wp = if z.wp == INVALID_WP { "invalid".to_string() } else { format!("+{}", z.wp - z.start) };
                lines.push(format!("zone {i}: {} wp={wp}", z.cond.short_name()));
            }
        }
        let c = rec.dev.counters();
        let mut last = String::new();
        write!(last, "open={} closed={}", c.open(), c.closed).unwrap();
        lines.push(last);
        Ok(lines.join("\n"))
    }
}

#[test]
fn datadriven() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    zonekit_testkit::run(&dir, Runner::default, |r, cmd| r.run(cmd));
}
