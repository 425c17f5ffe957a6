//! Table-driven text tests of the zone state machine, in the style of raft-rs's datadriven tests.
//!
//! Each `testdata/*.txt` file is a script: a command line, a `----` line, then the expected output
//! up to the next blank line. Lines starting with `#` are comments. The commands:
//!
//! | command | does | prints |
//! |---|---|---|
//! | `device personality=P zones=N [conv=N] zone-size=S [cap=C] [max-open=N] [max-active=N] [lbs=B] [max-append=S] [capacity=S]` | a fresh device (`capacity=` instead of `zones=` allows a smaller last zone) | `ok` |
//! | `write SECTOR NR` | a write | `ok zone=Z COND wp=+OFF [evict=V]` |
//! | `append SECTOR NR` | a zone append to the zone starting at SECTOR | `ok zone=Z sector=S COND wp=+OFF [evict=V]` |
//! | `read SECTOR NR` | a read | one `zone=Z sector=S nr=N valid=V fill=F` line per zone |
//! | `open/close/finish/reset SECTOR [NR]` | a management range (NR defaults to the zone's length) | one `ok zone=Z …` line per zone done, then the error if any |
//! | `reset-all` | a reset of the whole device (`REQ_OP_ZONE_RESET_ALL`; so is `reset 0 CAPACITY`) | `ok reset=Z,Z…` (the zones reset) |
//! | `set-cond SECTOR ro|offline` | null_blk's configfs `zone_readonly` / `zone_offline` | `ok zone=Z COND wp=…` |
//! | `move-wp SECTOR WP` | the zone holding SECTOR's write pointer moved to WP (fault injection) | `ok zone=Z COND wp=…` |
//! | `report` | every zone not in its initial condition, then the counters | `zone Z: cl wp=+8` … `open=1 (imp=1 exp=0) closed=1 active=2` |
//! | `zone SECTOR` | one zone as a zone report describes it | `zone Z: start=… len=… cap=… wp=… type=… cond=…` |
//!
//! An error prints as `ERRNO kind zone=Z`: the errno the personality gives the kind
//! ([`Personality::errno`]) and the kind's name. When the counters disagree with a scan of the zone
//! conditions, `report` adds a `scan:` line (null_blk's read-only injection quirk).
//!
//! `ZONEKIT_REWRITE=1 cargo test -p zonekit-core --test datadriven` rewrites the expected outputs;
//! every rewritten expectation must then be checked by hand against the sources each file's
//! header names (null_blk's `zoned.c`, scsi_debug, QEMU's `hw/nvme`, the block layer) and the
//! rules of `docs/devices.md`.

use std::convert::Infallible;
use std::fmt::Write as _;
use zonekit_core::{
    Action, Counters, Failed, Geometry, INVALID_WP, Limits, MgmtTarget, Personality, ZoneCond, ZoneError, ZoneOp,
    ZoneTable,
};

/// The interpreter's state: the device under test, if one was created.
#[derive(Default)]
struct Runner {
    table: Option<ZoneTable>,
}

fn ok(_: &zonekit_core::Transition) -> Result<(), Infallible> {
    Ok(())
}

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

fn num(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("bad number '{s}'"))
}

impl Runner {
    fn table(&mut self) -> Result<&mut ZoneTable, String> {
        self.table.as_mut().ok_or_else(|| "no device: use `device` first".to_string())
    }

    fn err_line(&self, e: &ZoneError) -> String {
        let p = self.table.as_ref().expect("an error needs a device").personality();
        let errno = p.errno(e.kind);
        let zone = e.zone.map_or("none".to_string(), |z| z.to_string());
        format!("{} {} zone={zone}", errno.name().unwrap_or("?"), snake(&e.kind))
    }

    /// `imp_open wp=+8`, `read_only wp=invalid`, `not_wp`.
    fn zone_state(&self, idx: u32) -> String {
        let t = self.table.as_ref().expect("device");
        let z = t.zone(idx);
        if z.cond == ZoneCond::NotWp {
            return "not_wp".to_string();
        }
        if z.wp == INVALID_WP { format!("{} wp=invalid", z.cond) } else { format!("{} wp=+{}", z.cond, z.wp - z.start) }
    }

    fn run(&mut self, command: &str) -> Result<String, String> {
        let mut words = command.split_whitespace();
        let verb = words.next().unwrap_or_default();
        let args: Vec<&str> = words.collect();
        let pos = |i: usize| -> Result<u64, String> {
            args.get(i).ok_or_else(|| format!("`{verb}` needs argument {}", i + 1)).and_then(|s| num(s))
        };
        match verb {
            "device" => self.device(&args),
            "write" | "append" => {
                let (sector, nr) = (pos(0)?, pos(1)?);
                let t = self.table()?;
                let r = if verb == "write" { t.write(sector, nr, ok) } else { t.append(sector, nr, ok) };
                match r {
                    Ok(tr) => {
                        let Action::Write { sector: at, .. } = tr.action else { unreachable!("a write's action") };
                        let mut s = format!("ok zone={}", tr.zone);
                        if verb == "append" {
                            write!(s, " sector={at}").unwrap();
                        }
                        write!(s, " {}", self.zone_state(tr.zone)).unwrap();
                        if let Some(v) = tr.evict {
                            write!(s, " evict={v}").unwrap();
                        }
                        Ok(s)
                    }
                    Err(Failed::Zone(e)) => Ok(self.err_line(&e)),
                    Err(Failed::Effect(never)) => match never {},
                }
            }
            "read" => {
                let (sector, nr) = (pos(0)?, pos(1)?);
                match self.table()?.read(sector, nr) {
                    Ok(segs) => Ok(segs
                        .iter()
                        .map(|s| {
                            format!(
                                "zone={} sector={} nr={} valid={} fill={}",
                                s.zone,
                                s.sector,
                                s.nr,
                                s.valid,
                                s.nr - s.valid
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")),
                    Err(e) => Ok(self.err_line(&e)),
                }
            }
            "open" | "close" | "finish" | "reset" => {
                let op = ZoneOp::ALL.into_iter().find(|o| o.name() == verb).expect("listed");
                let sector = pos(0)?;
                let t = self.table()?;
                let g = t.geometry();
                let nr = match args.get(1) {
                    Some(n) => num(n)?,
                    None => g.zone_index(sector).map_or(g.zone_size, |i| g.zone_len(i)),
                };
                self.manage(op, sector, nr)
            }
            "reset-all" => {
                let cap = self.table()?.geometry().capacity;
                self.manage(ZoneOp::Reset, 0, cap)
            }
            "set-cond" => {
                let sector = pos(0)?;
                let cond: ZoneCond =
                    args.get(1).ok_or("`set-cond` needs a condition")?.parse().map_err(|e| format!("{e}"))?;
                let t = self.table()?;
                let idx = t.geometry().zone_index(sector).ok_or_else(|| format!("sector {sector} is past the end"))?;
                match t.set_zone_cond(idx, cond, ok) {
                    Ok(tr) => Ok(format!("ok zone={} {}", tr.zone, self.zone_state(tr.zone))),
                    Err(Failed::Zone(e)) => Ok(self.err_line(&e)),
                    Err(Failed::Effect(never)) => match never {},
                }
            }
            "move-wp" => {
                let (sector, wp) = (pos(0)?, pos(1)?);
                let t = self.table()?;
                let idx = t.geometry().zone_index(sector).ok_or_else(|| format!("sector {sector} is past the end"))?;
                match t.move_write_pointer(idx, wp, ok) {
                    Ok(tr) => Ok(format!("ok zone={} {}", tr.zone, self.zone_state(tr.zone))),
                    Err(Failed::Zone(e)) => Ok(self.err_line(&e)),
                    Err(Failed::Effect(never)) => match never {},
                }
            }
            "report" => Ok(self.report()?),
            "zone" => {
                let sector = pos(0)?;
                let t = self.table()?;
                let idx = t.geometry().zone_index(sector).ok_or_else(|| format!("sector {sector} is past the end"))?;
                let z = t.zone(idx);
                let wp = if z.wp == INVALID_WP { "invalid".to_string() } else { z.wp.to_string() };
                Ok(format!(
                    "zone {idx}: start={} len={} cap={} wp={wp} type={} cond={}",
                    z.start,
                    z.len,
                    z.capacity,
                    z.zone_type.blkzone_name(),
                    z.cond
                ))
            }
            _ => Err(format!("unknown command `{verb}`")),
        }
    }

    fn device(&mut self, args: &[&str]) -> Result<String, String> {
        let mut personality = None;
        let (mut zones, mut capacity, mut conv, mut zone_size, mut cap) = (None, None, 0u32, None, None);
        let (mut max_open, mut max_active, mut lbs, mut max_append) = (0u32, 0u32, 512u32, None);
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
        };
        let geometry = match geometry {
            Ok(g) => g,
            Err(e) => return Ok(format!("error: {e}")),
        };
        let limits = Limits { max_open, max_active, max_append_sectors: max_append.unwrap_or(zone_size) };
        let limits = match limits.normalized(&geometry) {
            Ok(l) => l,
            Err(e) => return Ok(format!("error: {e}")),
        };
        self.table = Some(ZoneTable::new(geometry, limits, personality));
        Ok("ok".into())
    }

    fn manage(&mut self, op: ZoneOp, sector: u64, nr: u64) -> Result<String, String> {
        let all = self.table()?.mgmt_target(op, sector, nr) == Ok(MgmtTarget::ResetAll);
        let mut done = Vec::new();
        let r = self.table()?.manage(op, sector, nr, |t| {
            done.push((t.zone, t.evict));
            Ok::<(), Infallible>(())
        });
        let mut lines = Vec::new();
        if all {
            let zones: Vec<String> = done.iter().map(|(z, _)| z.to_string()).collect();
            lines.push(format!("ok reset={}", if zones.is_empty() { "none".to_string() } else { zones.join(",") }));
        } else {
            for (z, evict) in &done {
                let mut s = format!("ok zone={z} {}", self.zone_state(*z));
                if let Some(v) = evict {
                    write!(s, " evict={v}").unwrap();
                }
                lines.push(s);
            }
        }
        match r {
            Ok(_) => {}
            Err(Failed::Zone(e)) => lines.push(self.err_line(&e)),
            Err(Failed::Effect(never)) => match never {},
        }
        Ok(lines.join("\n"))
    }

    fn report(&mut self) -> Result<String, String> {
        let t = self.table()?;
        let g = t.geometry().clone();
        let mut lines = Vec::new();
        let mut scan = Counters::default();
        for i in 0..g.nr_zones {
            let z = t.zone(i);
            match z.cond {
                ZoneCond::ImplicitOpen => scan.imp_open += 1,
                ZoneCond::ExplicitOpen => scan.exp_open += 1,
                ZoneCond::Closed => scan.closed += 1,
                _ => {}
            }
            let initial = if g.is_conventional(i) {
                z.cond == ZoneCond::NotWp
            } else {
                z.cond == ZoneCond::Empty && z.wp == z.start
            };
            if !initial {
                let wp = if z.wp == INVALID_WP { "invalid".to_string() } else { format!("+{}", z.wp - z.start) };
                lines.push(format!("zone {i}: {} wp={wp}", z.cond.short_name()));
            }
        }
        let line = |c: Counters| {
            format!(
                "open={} (imp={} exp={}) closed={} active={}",
                c.open(),
                c.imp_open,
                c.exp_open,
                c.closed,
                c.active()
            )
        };
        let c = t.counters();
        lines.push(line(c));
        if c != scan {
            lines.push(format!("scan: {}", line(scan)));
        }
        Ok(lines.join("\n"))
    }
}

#[test]
fn datadriven() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    zonekit_testkit::run(&dir, Runner::default, |r, cmd| r.run(cmd));
}
