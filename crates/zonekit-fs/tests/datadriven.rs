//! Text-driven tests (`testdata/*.txt`): a device, mkfs, mount, then file calls and what they
//! return, with the device's zones and the volume's counters.
//!
//! Commands:
//! - `device zones=N conv=N zone=KiB cap=KiB [max-open=N] [max-active=N] [lbs=N] [personality=P]`
//! - `mkfs [aggr_cnv] [uid=N] [gid=N] [perm=OCTAL] [label=L] [force]`: mkzonefs's summary
//! - `mount [OPTIONS]`, `remount [OPTIONS]`, `unmount`
//! - `ls PATH`, `stat PATH`, `statfs`, `sysfs`
//! - `open FD PATH [w] [direct] [append]`, `close FD`, `write FD OFFSET LEN [BYTE]`,
//!   `read FD OFFSET LEN`, `fsync FD`, `truncate PATH SIZE`, `chmod PATH OCTAL`
//! - `zone N`: the device's report of zone N; `inject N ro|offline`: the zone's condition changes
//!   behind the volume; `devwrite SECTOR BYTES`, `devopen N`: a write or an explicit open straight
//!   to the device; `poke OFFSET BYTE`: one byte of the superblock changed (zone 0 conventional)

mod common;

use common::{Shape, UUID, blk, device};
use std::collections::HashMap;
use std::sync::Arc;
use zonekit_core::{Personality, ZoneCond, ZoneReport};
use zonekit_dev::EmulatedDevice;
use zonekit_fs::{FsError, MkfsOptions, MountOptions, Node, OpenFile, OpenFlags, Volume, mkfs::mkfs};

#[derive(Default)]
struct Runner {
    dev: Option<Arc<EmulatedDevice>>,
    vol: Option<Volume>,
    fds: HashMap<String, OpenFile>,
}

fn err(e: &FsError) -> String {
    format!("{} {e}", e.errno().name().unwrap_or("errno"))
}

fn num(s: &str) -> Result<u64, String> {
    if let Some(h) = s.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).map_err(|e| format!("{s}: {e}"));
    }
    let (v, mul) = if let Some(k) = s.strip_suffix('K') { (k, 1024) } else { (s, 1) };
    v.parse::<u64>().map(|n| n * mul).map_err(|e| format!("{s}: {e}"))
}

impl Runner {
    fn dev(&self) -> Result<&Arc<EmulatedDevice>, String> {
        self.dev.as_ref().ok_or_else(|| "no device".to_string())
    }

    fn vol(&self) -> Result<&Volume, String> {
        self.vol.as_ref().ok_or_else(|| "not mounted".to_string())
    }

    fn node(&self, path: &str) -> Result<Node, String> {
        self.vol()?.lookup_path(path).map_err(|e| err(&e))
    }

    fn step(&mut self, line: &str) -> Result<String, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let arg = |i: usize| words.get(i).copied().ok_or_else(|| format!("{line}: argument {i} missing"));
        Ok(match words[0] {
            "device" => {
                let mut s = Shape::default();
                for w in &words[1..] {
                    let (k, v) = w.split_once('=').ok_or_else(|| format!("{w}: key=value"))?;
                    match k {
                        "zones" => s.zones = num(v)? as u32,
                        "conv" => s.conv = num(v)? as u32,
                        "zone" => s.zone_kib = num(v)?,
                        "cap" => s.cap_kib = num(v)?,
                        "max-open" => s.max_open = num(v)? as u32,
                        "max-active" => s.max_active = num(v)? as u32,
                        "lbs" => s.lbs = num(v)? as u32,
                        "store" => s.no_data = v == "none",
                        "personality" => s.personality = v.parse::<Personality>().map_err(|e| e.to_string())?,
                        _ => return Err(format!("{k}: unknown")),
                    }
                }
                self.dev = Some(device(s));
                "ok".into()
            }
            "mkfs" => {
                let mut o = MkfsOptions { uuid: Some(UUID), ..Default::default() };
                for w in &words[1..] {
                    match w.split_once('=') {
                        None if *w == "aggr_cnv" => o.aggr_cnv = true,
                        None if *w == "force" => o.force = true,
                        Some(("uid", v)) => o.uid = Some(num(v)? as u32),
                        Some(("gid", v)) => o.gid = Some(num(v)? as u32),
                        Some(("perm", v)) => o.perm = Some(u32::from_str_radix(v, 8).map_err(|e| e.to_string())?),
                        Some(("label", v)) => o.label = Some(v.to_string()),
                        _ => return Err(format!("{w}: unknown")),
                    }
                }
                match mkfs(&blk(self.dev()?), &o) {
                    Ok(plan) => plan.summary("testdev").trim_end().to_string(),
                    Err(e) => err(&e),
                }
            }
            "mount" | "remount" => {
                if words[0] == "remount" {
                    self.fds.clear();
                    self.vol.take().ok_or("not mounted")?.unmount().map_err(|e| err(&e))?;
                }
                let opts = match MountOptions::parse(words.get(1).copied().unwrap_or("")) {
                    Ok(o) => o,
                    Err(e) => return Ok(err(&e)),
                };
                match Volume::mount(blk(self.dev()?), opts) {
                    Ok(v) => {
                        self.vol = Some(v);
                        "ok".into()
                    }
                    Err(e) => err(&e),
                }
            }
            "unmount" => {
                self.fds.clear();
                self.vol.take().ok_or("not mounted")?.unmount().map_err(|e| err(&e))?;
                "ok".into()
            }
            "ls" => {
                let v = self.vol()?;
                match self.node(arg(1)?).and_then(|n| v.readdir(n).map_err(|e| err(&e))) {
                    Ok(es) if es.is_empty() => "(empty)".into(),
                    Ok(es) => es.iter().map(|e| format!("{} ino={}", e.name, e.ino)).collect::<Vec<_>>().join("\n"),
                    Err(e) => e,
                }
            }
            "stat" => match self.node(arg(1)?) {
                Ok(n) => {
                    let s = self.vol()?.stat(n);
                    format!(
                        "ino={} mode={:o} nlink={} uid={} gid={} size={} blocks={} blksize={}",
                        s.ino, s.mode, s.nlink, s.uid, s.gid, s.size, s.blocks, s.blksize
                    )
                }
                Err(e) => e,
            },
            "statfs" => {
                let s = self.vol()?.statfs();
                format!(
                    "type=0x{:x} bsize={} blocks={} bfree={} bavail={} files={} ffree={} namelen={} fsid={:08x}:{:08x}",
                    s.f_type, s.bsize, s.blocks, s.bfree, s.bavail, s.files, s.ffree, s.namelen, s.fsid[0], s.fsid[1]
                )
            }
            "sysfs" => {
                let c = self.vol()?.sysfs();
                let ro = if self.vol()?.is_read_only() { " (read-only)" } else { "" };
                let a: Vec<String> = c.attributes().iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{}{ro}", a.join(" "))
            }
            "open" => {
                let mut f = OpenFlags::default();
                for w in &words[3..] {
                    match *w {
                        "w" => f.write = true,
                        "direct" => f.direct = true,
                        "append" => f.append = true,
                        _ => return Err(format!("{w}: unknown flag")),
                    }
                }
                let id = match self.node(arg(2)?)? {
                    Node::File(id) => id,
                    _ => return Err("not a file".into()),
                };
                match self.vol()?.open(id, f) {
                    Ok(h) => {
                        self.fds.insert(arg(1)?.to_string(), h);
                        "ok".into()
                    }
                    Err(e) => err(&e),
                }
            }
            "close" => {
                let h = self.fds.remove(arg(1)?).ok_or("no such fd")?;
                self.vol()?.release(h);
                "ok".into()
            }
            "write" => {
                let h = self.fds.get(arg(1)?).ok_or("no such fd")?;
                let byte = words.get(4).map(|b| num(b)).transpose()?.unwrap_or(0xa5) as u8;
                let data = vec![byte; num(arg(3)?)? as usize];
                match self.vol()?.write(h, num(arg(2)?)?, &data) {
                    Ok(n) => format!("wrote {n}"),
                    Err(e) => err(&e),
                }
            }
            "read" => {
                let h = self.fds.get(arg(1)?).ok_or("no such fd")?;
                let mut buf = vec![0u8; num(arg(3)?)? as usize];
                match self.vol()?.read(h, num(arg(2)?)?, &mut buf) {
                    Ok(n) => {
                        let mut runs: Vec<(u8, usize)> = Vec::new();
                        for &b in &buf[..n] {
                            match runs.last_mut() {
                                Some((x, c)) if *x == b => *c += 1,
                                _ => runs.push((b, 1)),
                            }
                        }
                        let r: Vec<String> = runs.iter().map(|(b, c)| format!("{c}x{b:02x}")).collect();
                        format!("read {n}{}{}", if n > 0 { ": " } else { "" }, r.join(" "))
                    }
                    Err(e) => err(&e),
                }
            }
            "fsync" => {
                let h = self.fds.get(arg(1)?).ok_or("no such fd")?;
                match self.vol()?.fsync(h) {
                    Ok(()) => "ok".into(),
                    Err(e) => err(&e),
                }
            }
            "truncate" => {
                let Node::File(id) = self.node(arg(1)?)? else { return Err("not a file".into()) };
                match self.vol()?.truncate(id, num(arg(2)?)?) {
                    Ok(()) => "ok".into(),
                    Err(e) => err(&e),
                }
            }
            "chmod" => {
                let Node::File(id) = self.node(arg(1)?)? else { return Err("not a file".into()) };
                let perm = u32::from_str_radix(arg(2)?, 8).map_err(|e| e.to_string())?;
                match self.vol()?.set_perm(id, perm) {
                    Ok(()) => "ok".into(),
                    Err(e) => err(&e),
                }
            }
            "zone" => {
                let dev = self.dev()?;
                let i: u32 = arg(1)?.parse().map_err(|e| format!("{e}"))?;
                let mut z = Vec::new();
                dev.report_zones(dev.info().geometry.zone_start(i), 1, &mut z).map_err(|e| e.to_string())?;
                let z = z[0];
                let wp = if z.wp == u64::MAX { "invalid".to_string() } else { (z.wp - z.start).to_string() };
                format!("zone {i}: {} wp+{wp}", z.cond.long_name())
            }
            "inject" => {
                let dev = self.dev()?;
                let cond = match arg(2)? {
                    "ro" => ZoneCond::ReadOnly,
                    "offline" => ZoneCond::Offline,
                    c => return Err(format!("{c}: ro or offline")),
                };
                dev.set_zone_cond(arg(1)?.parse().map_err(|e| format!("{e}"))?, cond).map_err(|e| e.to_string())?;
                "ok".into()
            }
            "poke" => {
                // Change one byte of the first block (zone 0 conventional), as a corruption.
                let dev = self.dev()?;
                let (at, byte) = (num(arg(1)?)? as usize, num(arg(2)?)? as u8);
                let mut b = vec![0u8; 4096];
                zonekit_core::BlockIo::read_at(&**dev, 0, &mut b).map_err(|e| e.to_string())?;
                b[at] = byte;
                zonekit_core::BlockIo::write_at(&**dev, 0, &b).map_err(|e| e.to_string())?;
                "ok".into()
            }
            "devopen" => {
                let dev = self.dev()?;
                let g = &dev.info().geometry;
                let i: u32 = arg(1)?.parse().map_err(|e| format!("{e}"))?;
                match zonekit_core::ZoneManagement::zone_mgmt(
                    &**dev,
                    zonekit_core::ZoneOp::Open,
                    g.zone_start(i),
                    g.zone_len(i),
                ) {
                    Ok(()) => "ok".into(),
                    Err(e) => format!("{} {e}", e.errno().name().unwrap_or("errno")),
                }
            }
            "devwrite" => {
                let data = vec![0x5a; num(arg(2)?)? as usize];
                zonekit_core::BlockIo::write_at(&**self.dev()?, num(arg(1)?)?, &data).map_err(|e| e.to_string())?;
                "ok".into()
            }
            c => return Err(format!("{c}: unknown command")),
        })
    }
}

#[test]
fn datadriven() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    zonekit_testkit::run(&dir, Runner::default, |r, line| r.step(line));
}
