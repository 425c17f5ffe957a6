//! Zone report output: blkzone's line format, libzbc's `zbc_report_zones` format, and JSON.

use serde::Serialize;
use std::io::{self, Write};
use zonekit_blk::{BlkError, BlockDevice};
use zonekit_core::{DeviceInfo, DeviceKind, Personality, Zone, ZoneCond, ZoneType};

/// Zones fetched from the device per call, as blkzone batches BLKREPORTZONE.
const BATCH: usize = 4096;

/// Report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// util-linux blkzone's `report` lines.
    Blkzone,
    /// libzbc's `zbc_report_zones` output.
    Zbc,
    /// A JSON document: the device and a `zones` array, positions in sectors.
    Json,
}

/// Which zones a report covers: `count` zones from `first`, filtered by condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// First zone.
    pub first: u32,
    /// Number of zones in range.
    pub count: u32,
    /// Only zones in one of these conditions (all when empty).
    pub conds: Vec<ZoneCond>,
}

impl Selection {
    fn matches(&self, z: &Zone) -> bool {
        self.conds.is_empty() || self.conds.contains(&z.cond)
    }
}

/// Visit the zones of `[first, first + count)` in batches, as `BLKREPORTZONE` calls.
pub fn for_each_zone(
    dev: &BlockDevice,
    first: u32,
    count: u32,
    mut f: impl FnMut(&Zone) -> io::Result<()>,
) -> Result<io::Result<()>, BlkError> {
    for_each_batch(dev, first, count, |zones| zones.iter().try_for_each(&mut f))
}

/// Visit the zones of `[first, first + count)` one batch at a time: each batch is what one
/// `BLKREPORTZONE` call returns (at most 4096 zones, as blkzone asks for them).
pub fn for_each_batch(
    dev: &BlockDevice,
    first: u32,
    count: u32,
    mut f: impl FnMut(&[Zone]) -> io::Result<()>,
) -> Result<io::Result<()>, BlkError> {
    let g = &dev.info().geometry;
    let end = first.saturating_add(count).min(g.nr_zones);
    let mut next = first;
    let mut buf = Vec::with_capacity(BATCH);
    while next < end {
        buf.clear();
        let want = ((end - next) as usize).min(BATCH);
        dev.report_zones(g.zone_start(next), want, &mut buf)?;
        if buf.is_empty() {
            break;
        }
        if let Err(e) = f(&buf) {
            return Ok(Err(e));
        }
        next += buf.len() as u32;
    }
    Ok(Ok(()))
}

/// Count zones of a selection that match its condition filter.
pub fn count_matching(dev: &BlockDevice, sel: &Selection) -> Result<u64, BlkError> {
    let mut n = 0u64;
    for_each_zone(dev, sel.first, sel.count, |z| {
        n += u64::from(sel.matches(z));
        Ok(())
    })?
    .expect("counting does not write");
    Ok(n)
}

/// One zone in blkzone 2.38's `report` format (with zone capacity), newline included.
pub fn write_blkzone_line(w: &mut impl Write, z: &Zone) -> io::Result<()> {
    writeln!(w, "{}", z.blkzone_line())
}

/// One zone in `zbc_report_zones`' format; `n` is its index within the report.
pub fn write_zbc_line(w: &mut impl Write, n: u64, z: &Zone) -> io::Result<()> {
    if z.zone_type == ZoneType::Conventional {
        writeln!(
            w,
            "Zone {:05}: type 0x{:x} ({}), cond 0x{:x} ({}), sector {}, {} sectors",
            n,
            z.zone_type.code(),
            z.zone_type.zbc_name(),
            z.cond.code(),
            z.cond.zbc_name(),
            z.start,
            z.len
        )
    } else {
        writeln!(
            w,
            "Zone {:05}: type 0x{:x} ({}), cond 0x{:x} ({}), reset recommended {}, non_seq {}, sector {}, {} sectors, wp {}",
            n,
            z.zone_type.code(),
            z.zone_type.zbc_name(),
            z.cond.code(),
            z.cond.zbc_name(),
            u8::from(z.reset),
            u8::from(z.non_seq),
            z.start,
            z.len,
            z.wp
        )
    }
}

/// The interface name of the device block of the zbc format: libzbc's for SCSI, zonekit's own
/// description for other transports.
fn zbc_interface(info: &DeviceInfo) -> String {
    let base = match info.personality {
        Personality::Zbc => "SCSI",
        Personality::Zns => "NVMe ZNS",
        Personality::NullBlk => "null_blk",
    };
    match &info.kind {
        DeviceKind::Linux => base.to_string(),
        DeviceKind::Emulated { .. } => format!("{base} (zonekit emulation)"),
        DeviceKind::File => "file (zonekit zone emulation)".to_string(),
    }
}

/// libzbc's `zbc_print_device_info` block.
pub fn write_zbc_device_block(w: &mut impl Write, info: &DeviceInfo) -> io::Result<()> {
    let g = &info.geometry;
    let model = if info.model == "host-aware" { "Host-aware" } else { "Host-managed" };
    writeln!(w, "Device {}:", info.spec)?;
    writeln!(w, "    Vendor ID: {}", info.vendor)?;
    writeln!(w, "    {} interface, {} zone model", zbc_interface(info), model)?;
    writeln!(w, "    {} 512-bytes sectors", g.capacity)?;
    let lbs = u64::from(g.logical_block_size);
    let pbs = u64::from(g.physical_block_size);
    writeln!(w, "    {} logical blocks of {} B", g.capacity * 512 / lbs, lbs)?;
    writeln!(w, "    {} physical blocks of {} B", g.capacity * 512 / pbs, pbs)?;
    writeln!(w, "    {:.3} GB capacity", (g.capacity * 512) as f64 / 1e9)?;
    writeln!(w, "    Read commands are unrestricted")?;
    writeln!(w, "    {} KiB max R/W size", MAX_RW_KIB)?;
    if model == "Host-managed" {
        match info.limits.max_open {
            0 => writeln!(w, "    Maximum number of open sequential write required zones: unlimited")?,
            n => writeln!(w, "    Maximum number of open sequential write required zones: {n}")?,
        }
    }
    writeln!(w, "    Zone Domains command set is NOT supported")?;
    writeln!(w, "    Zone Realms command set is NOT supported")?;
    writeln!(w, "    Zone operation counts are NOT supported")
}

/// The largest I/O zonekit reports for its devices in the zbc device block.
const MAX_RW_KIB: u64 = 1024;

/// libzbc's reporting-option code for a condition filter (`0x00` = all zones).
fn zbc_reporting_option(conds: &[ZoneCond]) -> u8 {
    match conds {
        [] => 0x00,
        [c] => match c {
            ZoneCond::Empty => 0x01,
            ZoneCond::ImplicitOpen => 0x02,
            ZoneCond::ExplicitOpen => 0x03,
            ZoneCond::Closed => 0x04,
            ZoneCond::Full => 0x05,
            ZoneCond::ReadOnly => 0x06,
            ZoneCond::Offline => 0x07,
            ZoneCond::NotWp => 0x3f,
        },
        _ => 0x00,
    }
}

/// The device as JSON reports describe it. Positions and sizes in 512-byte sectors.
#[derive(Debug, Serialize)]
pub struct DeviceJson<'a> {
    spec: &'a str,
    kind: &'a DeviceKind,
    personality: Personality,
    model: &'a str,
    vendor: &'a str,
    description: &'a str,
    rotational: bool,
    keeps_data: bool,
    capacity: u64,
    logical_block_size: u32,
    physical_block_size: u32,
    zone_size: u64,
    zone_capacity: u64,
    nr_zones: u32,
    nr_conv_zones: u32,
    max_open_zones: u32,
    max_active_zones: u32,
    max_append_sectors: u64,
}

impl<'a> DeviceJson<'a> {
    /// Describe `info`.
    pub fn new(info: &'a DeviceInfo) -> DeviceJson<'a> {
        let g = &info.geometry;
        DeviceJson {
            spec: &info.spec,
            kind: &info.kind,
            personality: info.personality,
            model: &info.model,
            vendor: &info.vendor,
            description: &info.description,
            rotational: info.rotational,
            keeps_data: info.keeps_data,
            capacity: g.capacity,
            logical_block_size: g.logical_block_size,
            physical_block_size: g.physical_block_size,
            zone_size: g.zone_size,
            zone_capacity: g.zone_capacity,
            nr_zones: g.nr_zones,
            nr_conv_zones: g.nr_conv_zones,
            max_open_zones: info.limits.max_open,
            max_active_zones: info.limits.max_active,
            max_append_sectors: info.limits.max_append_sectors,
        }
    }
}

/// A zone in JSON: names and the kernel's codes; a write pointer outside the zone (read-only,
/// offline, a SCSI conventional zone's all-ones value) is `null`.
#[derive(Debug, Serialize)]
struct ZoneJson {
    start: u64,
    len: u64,
    capacity: u64,
    wp: Option<u64>,
    #[serde(rename = "type")]
    zone_type: ZoneType,
    type_code: u8,
    cond: &'static str,
    cond_code: u8,
    non_seq: bool,
    reset: bool,
    /// An injected fault fails the zone's next write (emulated devices, `zone inject`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    fail_next_write: bool,
}

impl From<&Zone> for ZoneJson {
    fn from(z: &Zone) -> Self {
        ZoneJson {
            start: z.start,
            len: z.len,
            capacity: z.capacity,
            wp: (z.wp <= z.start + z.len).then_some(z.wp),
            zone_type: z.zone_type,
            type_code: z.zone_type.code(),
            cond: z.cond.long_name(),
            cond_code: z.cond.code(),
            non_seq: z.non_seq,
            reset: z.reset,
            fail_next_write: false,
        }
    }
}

/// Write a report of the selection in `format`. Returns the number of zones listed.
pub fn write_report(
    w: &mut impl Write,
    dev: &BlockDevice,
    sel: &Selection,
    format: Format,
) -> Result<io::Result<u64>, BlkError> {
    let info = dev.info();
    let mut listed = 0u64;
    let res = match format {
        Format::Blkzone => for_each_zone(dev, sel.first, sel.count, |z| {
            if sel.matches(z) {
                listed += 1;
                write_blkzone_line(w, z)?;
            }
            Ok(())
        })?,
        Format::Zbc => {
            let all_from_start = Selection { first: sel.first, count: u32::MAX, conds: sel.conds.clone() };
            let nr_zones = count_matching(dev, &all_from_start)?;
            let nz = count_matching(dev, sel)?;
            let head = (|| {
                write_zbc_device_block(w, info)?;
                writeln!(
                    w,
                    "    {} zone{} from {}, reporting option 0x{:02x}",
                    nr_zones,
                    if nr_zones > 1 { "s" } else { "" },
                    info.geometry.zone_start(sel.first),
                    zbc_reporting_option(&sel.conds)
                )?;
                if nz > 0 {
                    writeln!(w, "{} / {} zone{}:", nz, nr_zones, if nz > 1 { "s" } else { "" })?;
                }
                Ok(())
            })();
            if let Err(e) = head {
                return Ok(Err(e));
            }
            for_each_zone(dev, sel.first, sel.count, |z| {
                if sel.matches(z) {
                    write_zbc_line(w, listed, z)?;
                    listed += 1;
                }
                Ok(())
            })?
        }
        Format::Json => {
            let head = (|| {
                w.write_all(b"{\"device\":")?;
                serde_json::to_writer(&mut *w, &DeviceJson::new(info))?;
                w.write_all(b",\n\"zones\":[")?;
                Ok::<(), io::Error>(())
            })();
            if let Err(e) = head {
                return Ok(Err(e));
            }
            let faults = dev.device().pending_write_faults();
            let g = &info.geometry;
            let r = for_each_zone(dev, sel.first, sel.count, |z| {
                if sel.matches(z) {
                    w.write_all(if listed == 0 { b"\n" } else { b",\n" })?;
                    let mut zj = ZoneJson::from(z);
                    zj.fail_next_write = g.zone_index(z.start).is_some_and(|i| faults.binary_search(&i).is_ok());
                    serde_json::to_writer(&mut *w, &zj)?;
                    listed += 1;
                }
                Ok(())
            })?;
            r.and_then(|()| w.write_all(b"\n]}\n"))
        }
    };
    Ok(res.map(|()| listed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(start: u64, len: u64, cap: u64, wp: u64, t: ZoneType, c: ZoneCond) -> Zone {
        Zone { start, len, capacity: cap, wp, zone_type: t, cond: c, non_seq: false, reset: false }
    }

    #[test]
    fn blkzone_lines_match_util_linux() {
        // The two lines of the kernel's zoned_loop.rst example (64 MiB zones, 63 MiB capacity).
        let mut out = Vec::new();
        write_blkzone_line(&mut out, &zone(0, 0x20000, 0x20000, 0x20000, ZoneType::Conventional, ZoneCond::NotWp))
            .unwrap();
        write_blkzone_line(
            &mut out,
            &zone(0x100000, 0x20000, 0x1f800, 0x100000, ZoneType::SeqWriteRequired, ZoneCond::Empty),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  start: 0x000000000, len 0x020000, cap 0x020000, wptr 0x000000 reset:0 non-seq:0, zcond: 0(nw) [type: 1(CONVENTIONAL)]\n  start: 0x000100000, len 0x020000, cap 0x01f800, wptr 0x000000 reset:0 non-seq:0, zcond: 1(em) [type: 2(SEQ_WRITE_REQUIRED)]\n"
        );
        let mut out = Vec::new();
        write_blkzone_line(
            &mut out,
            &zone(0x80000, 0x80000, 0x80000, 0x100000, ZoneType::SeqWriteRequired, ZoneCond::Full),
        )
        .unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .ends_with("wptr 0x080000 reset:0 non-seq:0, zcond:14(fu) [type: 2(SEQ_WRITE_REQUIRED)]\n")
        );
    }

    #[test]
    fn zbc_lines_match_libzbc() {
        let mut out = Vec::new();
        write_zbc_line(
            &mut out,
            524,
            &zone(274726912, 524288, 524288, 275251200, ZoneType::SeqWriteRequired, ZoneCond::Full),
        )
        .unwrap();
        write_zbc_line(&mut out, 0, &zone(0, 524288, 524288, 524288, ZoneType::Conventional, ZoneCond::NotWp)).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "Zone 00524: type 0x2 (Sequential-write-required), cond 0xe (Full), reset recommended 0, non_seq 0, sector 274726912, 524288 sectors, wp 275251200\nZone 00000: type 0x1 (Conventional), cond 0x0 (Not-write-pointer), sector 0, 524288 sectors\n"
        );
    }
}
