//! `mkfs`: format a zoned device as zonefs, as `mkzonefs` does: check the zones, reset every
//! sequential zone, write the 4 KiB superblock at the start of zone 0, and finish zone 0 if it
//! is sequential (so nothing else can be written there).
//!
//! [`MkfsPlan::new`] does every check and reads nothing but the zone report and zone 0; the
//! steps ([`MkfsPlan::reset_zones`], [`MkfsPlan::write_superblock`]) then change the device, so
//! a caller can print `mkzonefs`' summary and progress lines between them.

use crate::error::{FsError, FsResult};
use crate::superblock::{Features, SUPER_SIZE, Superblock};
use crate::volume::{is_sequential, report_all};
use std::fmt::Write as _;
use zonekit_blk::BlockDevice;
use zonekit_core::{Errno, SECTOR_SIZE, ZoneCond, ZoneOp, ZoneType};

/// What to format with (mkzonefs's `-o` features, `-L` and `-f`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MkfsOptions {
    /// `aggr_cnv`: each run of contiguous conventional zones becomes one file.
    pub aggr_cnv: bool,
    /// `uid=N`: owner of every file (sets the feature even for 0).
    pub uid: Option<u32>,
    /// `gid=N`: group of every file.
    pub gid: Option<u32>,
    /// `perm=MODE`: permission bits of every file (at most 0o777).
    pub perm: Option<u32>,
    /// Volume label (at most 63 bytes).
    pub label: Option<String>,
    /// Overwrite zone 0 even if it holds a superblock or other data.
    pub force: bool,
    /// The volume's UUID (default: a random version-4 UUID).
    pub uuid: Option<[u8; 16]>,
}

/// A checked format of one device: the superblock to write and what `mkzonefs` prints of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MkfsPlan {
    /// The superblock to write.
    pub superblock: Superblock,
    /// Device capacity in 512-byte sectors.
    pub capacity: u64,
    /// `host-managed` or `host-aware`.
    pub model: String,
    /// Number of zones.
    pub nr_zones: u32,
    /// Zone size in sectors.
    pub zone_sectors: u64,
    /// Sectors of a last zone smaller than the others, if there is one.
    pub runt_sectors: Option<u64>,
    /// Conventional zones.
    pub nr_cnv: u32,
    /// Sequential zones.
    pub nr_seq: u32,
    /// Read-only zones.
    pub nr_readonly: u32,
    /// Offline zones.
    pub nr_offline: u32,
    /// Whether zone 0 is sequential (it is finished after the superblock is written).
    pub zone0_sequential: bool,
}

/// A random version-4 UUID from the kernel's random source.
fn random_uuid() -> FsResult<[u8; 16]> {
    use std::io::Read;
    let mut u = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut u))
        .map_err(|e| FsError::Unsuitable { errno: Errno::EIO, message: format!("/dev/urandom: {e}") })?;
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    Ok(u)
}

fn unsuitable(errno: Errno, message: String) -> FsError {
    FsError::Unsuitable { errno, message }
}

impl MkfsPlan {
    /// Check `dev` and `opts` as `mkzonefs` does before it writes anything: a device that keeps
    /// data, zones of one size (but a smaller last one), usable zones, a zone 0 that can be
    /// written, and, without `force`, a zone 0 that holds neither a superblock nor other
    /// non-zero data (there is no libblkid to ask what it is).
    pub fn new(dev: &BlockDevice, opts: &MkfsOptions) -> FsResult<MkfsPlan> {
        let info = dev.info();
        if !info.keeps_data {
            return Err(unsuitable(
                Errno::EINVAL,
                "the device keeps no data (a @profile instance or a --data none device): the superblock would be lost"
                    .into(),
            ));
        }
        let mut sb = Superblock::new(match opts.uuid {
            Some(u) => u,
            None => random_uuid()?,
        });
        if let Some(l) = &opts.label {
            sb.set_label(l).map_err(|m| unsuitable(Errno::EINVAL, m))?;
        }
        if opts.aggr_cnv {
            sb.features |= Features::AGGR_CNV;
        }
        if let Some(uid) = opts.uid {
            sb.features |= Features::UID;
            sb.uid = uid;
        }
        if let Some(gid) = opts.gid {
            sb.features |= Features::GID;
            sb.gid = gid;
        }
        if let Some(perm) = opts.perm {
            if perm > 0o777 {
                return Err(unsuitable(Errno::EINVAL, format!("permissions {perm:o}: at most 777")));
            }
            sb.features |= Features::PERM;
            sb.perm = perm;
        }

        let zones = report_all(dev)?;
        let zone_sectors = info.geometry.zone_size;
        let mut runt_sectors = None;
        for (i, z) in zones.iter().enumerate() {
            if z.len != zone_sectors {
                if i + 1 == zones.len() && z.len < zone_sectors {
                    runt_sectors = Some(z.len);
                } else {
                    return Err(unsuitable(Errno::EINVAL, format!("invalid zone {i} size ({} sectors)", z.len)));
                }
            }
        }
        let count = |f: &dyn Fn(&zonekit_core::Zone) -> bool| zones.iter().filter(|z| f(z)).count() as u32;
        let nr_offline = count(&|z| z.cond == ZoneCond::Offline);
        let plan = MkfsPlan {
            capacity: info.geometry.capacity,
            model: info.model.clone(),
            nr_zones: zones.len() as u32,
            zone_sectors,
            runt_sectors,
            nr_cnv: count(&|z| z.zone_type == ZoneType::Conventional),
            nr_seq: count(&|z| z.zone_type != ZoneType::Conventional),
            nr_readonly: count(&|z| z.cond == ZoneCond::ReadOnly),
            nr_offline,
            zone0_sequential: is_sequential(&zones[0]),
            superblock: sb,
        };
        if plan.usable_zones() == 0 {
            return Err(unsuitable(Errno::EINVAL, "no usable zones".into()));
        }
        let z0 = zones[0];
        if matches!(z0.cond, ZoneCond::ReadOnly | ZoneCond::Offline) {
            return Err(unsuitable(
                Errno::EIO,
                format!("zone 0 is {}: the superblock cannot be written", z0.cond.long_name()),
            ));
        }
        if z0.capacity * SECTOR_SIZE < SUPER_SIZE as u64 {
            return Err(unsuitable(Errno::EINVAL, "zone 0 is smaller than the 4096-byte superblock".into()));
        }
        if !opts.force {
            check_zone0_unused(dev, &z0)?;
        }
        Ok(plan)
    }

    /// Zones a file can use: all but zone 0 and the offline ones (mkzonefs's "usable zones").
    pub fn usable_zones(&self) -> u32 {
        self.nr_zones.saturating_sub(self.nr_offline + 1)
    }

    /// `mkzonefs`' summary of the device and the format, one line each, for `spec`.
    pub fn summary(&self, spec: &str) -> String {
        let mut s = String::new();
        let sb = &self.superblock;
        let gib = (self.capacity * SECTOR_SIZE) >> 30;
        let _ = writeln!(s, "{spec}: {} 512-byte sectors ({gib} GiB)", self.capacity);
        let model = if self.model == "host-aware" { "Host-aware" } else { "Host-managed" };
        let _ = writeln!(s, "  {model} device");
        let full = self.nr_zones - u32::from(self.runt_sectors.is_some());
        let _ = writeln!(
            s,
            "  {full} zones of {} 512-byte sectors ({} MiB)",
            self.zone_sectors,
            (self.zone_sectors * SECTOR_SIZE) >> 20
        );
        if let Some(r) = self.runt_sectors {
            let _ = writeln!(s, "  1 runt zone of {r} 512-byte sectors ({} MiB)", (r * SECTOR_SIZE) >> 20);
        }
        let _ = writeln!(s, "  {} conventional zones, {} sequential zones", self.nr_cnv, self.nr_seq);
        let _ = writeln!(s, "  {} read-only zones, {} offline zones", self.nr_readonly, self.nr_offline);
        let _ = writeln!(s, "Format:");
        let _ = writeln!(s, "  {} usable zones", self.usable_zones());
        let aggr = if sb.features.contains(Features::AGGR_CNV) { "enabled" } else { "disabled" };
        let _ = writeln!(s, "  Aggregate conventional zones: {aggr}");
        if !sb.label().is_empty() {
            let _ = writeln!(s, "  FS label: {}", sb.label());
        }
        let _ = writeln!(s, "  File UID: {}", sb.file_uid());
        let _ = writeln!(s, "  File GID: {}", sb.file_gid());
        let _ = writeln!(s, "  File access permissions: {:o}", sb.file_perm());
        let _ = writeln!(s, "  FS UUID: {}", sb.uuid_string());
        s
    }

    /// Reset every sequential zone ("Resetting sequential zones"): one reset of the whole
    /// device, which skips conventional, empty, read-only and offline zones.
    pub fn reset_zones(&self, dev: &BlockDevice) -> FsResult<()> {
        dev.zone_mgmt(ZoneOp::Reset, 0, self.capacity).map_err(|e| FsError::device("resetting sequential zones", e))
    }

    /// Write the superblock at sector 0, finish zone 0 if it is sequential, and flush ("Writing
    /// super block").
    pub fn write_superblock(&self, dev: &BlockDevice) -> FsResult<()> {
        let block = self.superblock.encode();
        dev.write(0, &block).map_err(|e| FsError::device("writing the superblock", e))?;
        if self.zone0_sequential {
            dev.zone_mgmt(ZoneOp::Finish, 0, self.zone_sectors).map_err(|e| FsError::device("finishing zone 0", e))?;
        }
        dev.flush().map_err(|e| FsError::device("flush", e))
    }
}

/// Refuse to overwrite a zone 0 that holds a zonefs superblock or any non-zero byte below its
/// write pointer (`EEXIST`, asking for `--force`).
fn check_zone0_unused(dev: &BlockDevice, z0: &zonekit_core::Zone) -> FsResult<()> {
    // What lies past the zone capacity was never written (a read there returns the fill).
    let written = z0.written().min(z0.capacity) * SECTOR_SIZE;
    let mut buf = vec![0u8; (1 << 20).min(written as usize)];
    let mut at = 0u64;
    while at < written {
        let n = buf.len().min((written - at) as usize);
        dev.read(at, &mut buf[..n]).map_err(|e| FsError::device("reading zone 0", e))?;
        if at == 0 && Superblock::parse(&buf[..n]).is_ok() {
            return Err(unsuitable(
                Errno::EEXIST,
                "zone 0 already holds a zonefs superblock (use --force to format again)".into(),
            ));
        }
        if let Some(i) = buf[..n].iter().position(|&b| b != 0) {
            return Err(unsuitable(
                Errno::EEXIST,
                format!("zone 0 holds data (a non-zero byte at offset {}; use --force to overwrite it)", at + i as u64),
            ));
        }
        at += n as u64;
    }
    Ok(())
}

/// Format `dev`: [`MkfsPlan::new`], then reset the sequential zones and write the superblock.
pub fn mkfs(dev: &BlockDevice, opts: &MkfsOptions) -> FsResult<MkfsPlan> {
    let plan = MkfsPlan::new(dev, opts)?;
    plan.reset_zones(dev)?;
    plan.write_superblock(dev)?;
    Ok(plan)
}
