//! `zonekit zone …`: report, reset, open, close, finish, write and read, with blkzone's arguments.

use super::{DevArg, sectors_arg};
use crate::error::{CliError, CliResult, output};
use crate::report::{self, Format, Selection};
use crate::units::parse_byte;
use std::io::Write;
use zonekit_core::{Geometry, SECTOR_SIZE, ZoneCond, ZoneOp, ZonedDevice};

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
    let dev = args.dev.open(false)?;
    let spec = &args.dev.dev;
    let sel = report_selection(spec, &dev.info().geometry, &args.range, args.cond.clone())?;
    if args.count_only {
        let n = report::count_matching(dev.as_ref(), &sel)
            .map_err(|e| CliError::device(format!("{spec}: report zones"), &e))?;
        return output(writeln!(w, "{n}"));
    }
    let r = report::write_report(w, dev.as_ref(), &sel, args.format)
        .map_err(|e| CliError::device(format!("{spec}: report zones"), &e))?;
    output(r.map(|_| ()))
}

/// `zonekit zone reset|open|close|finish`.
pub fn manage(op: ZoneOp, args: &MgmtArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open(true)?;
    let spec = &args.dev.dev;
    let g = dev.info().geometry.clone();
    let range = if args.all { RangeArgs::default() } else { args.range.clone() };
    let (sector, nr) = mgmt_range(spec, &g, &range)?;
    dev.zone_mgmt(op, sector, nr).map_err(|e| CliError::device(format!("{spec}: {} zones", op.name()), &e))?;
    close(dev.as_ref(), spec)?;
    if args.verbose {
        output(writeln!(w, "{spec}: successful {} of zones in range from {sector}, to {}", op.name(), sector + nr))?;
    }
    Ok(())
}

/// Close a device written to, reporting a failure to record its zones (a drop would ignore it).
fn close(dev: &dyn ZonedDevice, spec: &str) -> CliResult {
    dev.close().map_err(|e| CliError::device(format!("{spec}: close"), &e))
}

const CHUNK: usize = 1 << 20;

/// `zonekit zone write`.
pub fn write(args: &WriteArgs) -> CliResult {
    let dev = args.dev.open(true)?;
    let spec = &args.dev.dev;
    let total = args.length.checked_mul(SECTOR_SIZE).ok_or_else(|| CliError::Usage("--length is too large".into()))?;
    let buf = vec![args.pattern; CHUNK.min(total as usize)];
    let mut done = 0u64;
    while done < total {
        let n = ((total - done) as usize).min(CHUNK);
        let sector = args.offset + done / SECTOR_SIZE;
        dev.write_at(sector, &buf[..n]).map_err(|e| {
            let progress = if done > 0 { format!(" after {done} of {total} bytes") } else { String::new() };
            CliError::device(format!("{spec}: write at sector {sector}{progress}"), &e)
        })?;
        done += n as u64;
    }
    if args.sync {
        dev.flush().map_err(|e| CliError::device(format!("{spec}: flush"), &e))?;
    }
    close(dev.as_ref(), spec)
}

/// `zonekit zone read`: raw bytes to `w`.
pub fn read(args: &ReadArgs, w: &mut impl Write) -> CliResult {
    let dev: Box<dyn ZonedDevice> = args.dev.open(false)?;
    let spec = &args.dev.dev;
    let total = args.length.checked_mul(SECTOR_SIZE).ok_or_else(|| CliError::Usage("--length is too large".into()))?;
    let mut buf = vec![0u8; CHUNK.min(total as usize)];
    let mut done = 0u64;
    while done < total {
        let n = ((total - done) as usize).min(CHUNK);
        let sector = args.offset + done / SECTOR_SIZE;
        dev.read_at(sector, &mut buf[..n])
            .map_err(|e| CliError::device(format!("{spec}: read at sector {sector}"), &e))?;
        output(w.write_all(&buf[..n]))?;
        done += n as u64;
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
