//! `zonekit zone …`: report, reset, open, close, finish, write and read, with blkzone's arguments.

use super::{DevArg, sectors_arg};
use crate::error::{CliError, CliResult, output};
use crate::report::{self, Format, Selection};
use crate::units::parse_byte;
use std::io::Write;
use zonekit_blk::BlockDevice;
use zonekit_core::{Geometry, SECTOR_SIZE, ZoneCond, ZoneOp};

/// blkzone's range options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RangeArgs {
    /// Start sector of the range (512-byte sectors; a value with a size suffix is bytes: -o 1M).
    #[arg(short, long, value_name = "SECTOR", value_parser = sectors_arg)]
    pub offset: Option<u64>,
    /// Length of the range (512-byte sectors; a size suffix means bytes: -l 256M. blkzone would
    /// read 256M as 256 Mi sectors).
    #[arg(short, long, value_name = "SECTORS", value_parser = sectors_arg, conflicts_with = "count")]
    pub length: Option<u64>,
    /// Number of zones.
    #[arg(short, long, value_name = "NUMBER")]
    pub count: Option<u64>,
}

/// Arguments of `zonekit zone report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// The zone range.
    #[command(flatten)]
    pub range: RangeArgs,
    /// Only zones in these conditions (comma-separated: nw/not_wp, em/empty, oi/imp_open,
    /// oe/exp_open, cl/closed, ro/read_only, fu/full, of/offline).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub cond: Vec<ZoneCond>,
    /// Print only the number of matching zones.
    #[arg(long)]
    pub count_only: bool,
    /// Output format: blkzone's report lines, zbc_report_zones' output, or JSON.
    #[arg(long, value_enum, default_value = "blkzone")]
    pub format: Format,
}

/// Arguments of `zonekit zone reset|open|close|finish`.
#[derive(Debug, clap::Args)]
pub struct MgmtArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// The zone range.
    #[command(flatten)]
    pub range: RangeArgs,
    /// The whole device (the default when no range is given); a reset of the whole device skips
    /// conventional, empty, read-only and offline zones, as the kernel's reset-all does.
    #[arg(long, conflicts_with_all = ["offset", "length", "count"])]
    pub all: bool,
    /// Print the range acted on.
    #[arg(short, long)]
    pub verbose: bool,
}

/// Arguments of `zonekit zone write`.
#[derive(Debug, clap::Args)]
pub struct WriteArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// Sector to write at (the write pointer, in a sequential zone).
    #[arg(short, long, value_name = "SECTOR", value_parser = sectors_arg)]
    pub offset: u64,
    /// Length (sectors, or bytes with a size suffix).
    #[arg(short, long, value_name = "SECTORS", value_parser = sectors_arg)]
    pub length: u64,
    /// Byte to fill the data with (decimal or 0x hex).
    #[arg(long, value_name = "BYTE", value_parser = |s: &str| parse_byte(s).map_err(|e| e.0), default_value = "0xa5")]
    pub pattern: u8,
    /// Flush the device after writing (fsync).
    #[arg(long)]
    pub sync: bool,
}

/// Arguments of `zonekit zone read`.
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// Sector to read from.
    #[arg(short, long, value_name = "SECTOR", value_parser = sectors_arg)]
    pub offset: u64,
    /// Length (sectors, or bytes with a size suffix).
    #[arg(short, long, value_name = "SECTORS", value_parser = sectors_arg)]
    pub length: u64,
}

/// The zones a report covers: from the zone holding `-o`, `-c` zones or `ceil(-l / zone size)`
/// zones, or every zone to the end (blkzone's rules).
pub fn report_selection(spec: &str, g: &Geometry, r: &RangeArgs, conds: Vec<ZoneCond>) -> CliResult<Selection> {
    let offset = r.offset.unwrap_or(0);
    let first = g.zone_index(offset).ok_or_else(|| {
        CliError::Usage(format!("{spec}: offset {offset} is past the end of the device ({} sectors)", g.capacity))
    })?;
    let count = match (r.count, r.length) {
        (Some(0), _) => return Err(CliError::Usage("--count must be at least 1".into())),
        (Some(c), _) => c,
        (None, Some(0)) => return Err(CliError::Usage("--length must not be zero".into())),
        (None, Some(l)) => l.div_ceil(g.zone_size),
        (None, None) => u64::from(g.nr_zones),
    };
    let count = count.min(u64::from(g.nr_zones - first)) as u32;
    Ok(Selection { first, count, conds })
}

/// The sector range a management command acts on, checked as blkzone checks it: a zone-aligned
/// start inside the device; `-c` zones, or `-l` sectors ending on a zone boundary or at the device
/// end, or everything from the start; clamped to the device end.
pub fn mgmt_range(spec: &str, g: &Geometry, r: &RangeArgs) -> CliResult<(u64, u64)> {
    let offset = r.offset.unwrap_or(0);
    if offset >= g.capacity {
        return Err(CliError::Usage(format!(
            "{spec}: offset {offset} is past the end of the device ({} sectors)",
            g.capacity
        )));
    }
    if !offset.is_multiple_of(g.zone_size) {
        return Err(CliError::Usage(format!("{spec}: offset {offset} is not aligned to zone size {}", g.zone_size)));
    }
    let end = match (r.count, r.length) {
        (Some(0), _) => return Err(CliError::Usage("--count must be at least 1".into())),
        (Some(c), _) => offset.saturating_add(c.saturating_mul(g.zone_size)).min(g.capacity),
        (None, Some(0)) => return Err(CliError::Usage("--length must not be zero".into())),
        (None, Some(l)) => {
            let end = offset.saturating_add(l).min(g.capacity);
            if !(end - offset).is_multiple_of(g.zone_size) && end != g.capacity {
                return Err(CliError::Usage(format!(
                    "{spec}: number of sectors {l} is not aligned to zone size {}",
                    g.zone_size
                )));
            }
            end
        }
        (None, None) => g.capacity,
    };
    Ok((offset, end - offset))
}

/// `zonekit zone report`.
pub fn report(args: &ReportArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk(false)?;
    let spec = &args.dev.dev;
    let sel = report_selection(spec, &dev.info().geometry, &args.range, args.cond.clone())?;
    if args.count_only {
        let n = report::count_matching(&dev, &sel).map_err(|e| CliError::blk(format!("{spec}: report zones"), &e))?;
        return output(writeln!(w, "{n}"));
    }
    let r = report::write_report(w, &dev, &sel, args.format)
        .map_err(|e| CliError::blk(format!("{spec}: report zones"), &e))?;
    output(r.map(|_| ()))
}

/// `zonekit zone reset|open|close|finish`: the range goes to the block layer as blkzone's ioctl
/// does, which issues it zone by zone (or as one reset-all) and carries on after a failing zone.
pub fn manage(op: ZoneOp, args: &MgmtArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk(true)?;
    let spec = &args.dev.dev;
    let g = dev.info().geometry.clone();
    let range = if args.all { RangeArgs::default() } else { args.range.clone() };
    let (sector, nr) = mgmt_range(spec, &g, &range)?;
    let r = dev.zone_mgmt(op, sector, nr).map_err(|e| CliError::blk(format!("{spec}: {} zones", op.name()), &e));
    // Zones changed before or after a failing one stay changed: record them either way.
    let closed = close(&dev, spec);
    r.and(closed)?;
    if args.verbose {
        output(writeln!(w, "{spec}: successful {} of zones in range from {sector}, to {}", op.name(), sector + nr))?;
    }
    Ok(())
}

/// Close a device written to, reporting a failure to record its zones (a drop would ignore it).
fn close(dev: &BlockDevice, spec: &str) -> CliResult {
    dev.close().map_err(|e| CliError::blk(format!("{spec}: close"), &e))
}

/// The size of each `pwrite` / `pread` the zone tools issue, as `dd bs=1M` would.
const CHUNK: usize = 1 << 20;

/// The byte offset and length of `-o`/`-l` in sectors.
fn byte_range(offset: u64, length: u64) -> CliResult<(u64, u64)> {
    let too_large = |what: &str| CliError::Usage(format!("{what} is too large"));
    let total = length.checked_mul(SECTOR_SIZE).ok_or_else(|| too_large("--length"))?;
    let start = offset.checked_mul(SECTOR_SIZE).ok_or_else(|| too_large("--offset"))?;
    start.checked_add(total).ok_or_else(|| too_large("--offset + --length"))?;
    Ok((start, total))
}

/// `zonekit zone write`: `pwrite` calls of up to 1 MiB through the block layer, which splits each
/// at zone boundaries and at `max_sectors_kb`, as the kernel does. A write that runs past the
/// device end writes what fits, then fails with `ENOSPC`, saying how much was written.
pub fn write(args: &WriteArgs) -> CliResult {
    let dev = args.dev.open_blk(true)?;
    let spec = &args.dev.dev;
    let (start, total) = byte_range(args.offset, args.length)?;
    let buf = vec![args.pattern; CHUNK.min(total as usize)];
    let mut done = 0u64;
    let mut r = Ok(());
    while done < total {
        let n = ((total - done) as usize).min(CHUNK);
        match dev.write(start + done, &buf[..n]) {
            Ok(0) => {
                let e = zonekit_blk::BlkError::new(zonekit_core::Errno::ENOSPC, "nothing written");
                r = Err(write_error(spec, args.offset, done, total, &e));
                break;
            }
            Ok(w) => done += w as u64,
            Err(e) => {
                r = Err(write_error(spec, args.offset, done, total, &e));
                break;
            }
        }
    }
    if r.is_ok() && args.sync {
        r = dev.flush().map_err(|e| CliError::blk(format!("{spec}: flush"), &e));
    }
    let closed = close(&dev, spec);
    r.and(closed)
}

/// A failed write, with what was written before it.
fn write_error(spec: &str, offset: u64, done: u64, total: u64, e: &zonekit_blk::BlkError) -> CliError {
    let at = offset + done / SECTOR_SIZE;
    if done == 0 {
        CliError::blk(format!("{spec}: write at sector {at}"), e)
    } else {
        CliError::blk(
            format!("{spec}: write from sector {offset}: {done} of {total} bytes written, then at sector {at}"),
            e,
        )
    }
}

/// `zonekit zone read`: raw bytes to `w`, `pread` calls of up to 1 MiB through the block layer. A
/// read that runs past the device end stops there, as a block device file's read does.
pub fn read(args: &ReadArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk(false)?;
    let spec = &args.dev.dev;
    let (start, total) = byte_range(args.offset, args.length)?;
    let mut buf = vec![0u8; CHUNK.min(total as usize)];
    let mut done = 0u64;
    while done < total {
        let n = ((total - done) as usize).min(CHUNK);
        let got = dev
            .read(start + done, &mut buf[..n])
            .map_err(|e| CliError::blk(format!("{spec}: read at sector {}", args.offset + done / SECTOR_SIZE), &e))?;
        output(w.write_all(&buf[..got]))?;
        done += got as u64;
        if got < n {
            break;
        }
    }
    output(w.flush())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry::with_zones(2048, 8, 2048, 1, 512).unwrap()
    }

    fn r(o: Option<u64>, l: Option<u64>, c: Option<u64>) -> RangeArgs {
        RangeArgs { offset: o, length: l, count: c }
    }

    #[test]
    fn mgmt_ranges_follow_blkzone() {
        let g = geo();
        assert_eq!(mgmt_range("d", &g, &r(None, None, None)), Ok((0, 16384)));
        assert_eq!(mgmt_range("d", &g, &r(Some(2048), None, Some(2))), Ok((2048, 4096)));
        assert_eq!(mgmt_range("d", &g, &r(Some(2048), None, Some(100))), Ok((2048, 14336)));
        assert_eq!(mgmt_range("d", &g, &r(Some(4096), Some(4096), None)), Ok((4096, 4096)));
        assert!(matches!(mgmt_range("d", &g, &r(Some(100), None, None)), Err(CliError::Usage(_))));
        assert!(matches!(mgmt_range("d", &g, &r(Some(16384), None, None)), Err(CliError::Usage(_))));
        assert!(matches!(mgmt_range("d", &g, &r(Some(0), Some(100), None)), Err(CliError::Usage(_))));
        assert!(matches!(mgmt_range("d", &g, &r(None, None, Some(0))), Err(CliError::Usage(_))));
    }

    #[test]
    fn report_selections_follow_blkzone() {
        let g = geo();
        let s = report_selection("d", &g, &r(Some(3000), Some(2049), None), vec![]).unwrap();
        assert_eq!((s.first, s.count), (1, 2));
        let s = report_selection("d", &g, &r(Some(14336), None, Some(5)), vec![]).unwrap();
        assert_eq!((s.first, s.count), (7, 1));
        assert!(report_selection("d", &g, &r(Some(16384), None, None), vec![]).is_err());
    }
}
