//! `zonekit zone …`: report, capacity, reset, open, close, finish, write, read, append and
//! inject, with blkzone's arguments.

use super::{DevArg, sectors_arg};
use crate::error::{CliError, CliResult, output};
use crate::report::{self, Format, Selection};
use crate::units::{human_bytes, parse_byte, sectors_word};
use serde::Serialize;
use std::io::{Read, Write};
use std::path::PathBuf;
use zonekit_blk::{BlkError, BlockDevice};
use zonekit_core::{Errno, Geometry, SECTOR_SIZE, Zone, ZoneCond, ZoneOp};

/// blkzone's range options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RangeArgs {
    /// Start sector of the range (512-byte sectors; a value with a size suffix is bytes: -o 1M).
    #[arg(short, long, value_name = "SECTOR", value_parser = sectors_arg, allow_hyphen_values = true)]
    pub offset: Option<u64>,
    /// Length of the range (512-byte sectors; a size suffix means bytes: -l 256M. blkzone would
    /// read 256M as 256 Mi sectors).
    #[arg(short, long, value_name = "SECTORS", value_parser = sectors_arg, conflicts_with = "count", allow_hyphen_values = true)]
    pub length: Option<u64>,
    /// Number of zones.
    #[arg(short, long, value_name = "NUMBER", allow_hyphen_values = true)]
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
    #[arg(long, conflicts_with = "verbose")]
    pub count_only: bool,
    /// Output format: blkzone's report lines, zbc_report_zones' output, or JSON.
    #[arg(long, value_enum, default_value = "blkzone")]
    pub format: Format,
    /// Before each batch of zones (4096 at most, as blkzone asks the kernel for them), print
    /// blkzone's "Found N zones from 0xSECTOR" line (blkzone format only).
    #[arg(short, long)]
    pub verbose: bool,
    /// Accepted as blkzone accepts it; a report opens the device read-only, which no user of the
    /// device prevents.
    #[arg(short, long)]
    pub force: bool,
}

/// Arguments of `zonekit zone capacity`.
#[derive(Debug, clap::Args)]
pub struct CapacityArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// The zone range (as `report` takes it).
    #[command(flatten)]
    pub range: RangeArgs,
    /// Before each batch of zones, print blkzone's "Found N zones from 0xSECTOR" line.
    #[arg(short, long)]
    pub verbose: bool,
    /// Accepted as blkzone accepts it; the device is opened read-only, which no user of the
    /// device prevents.
    #[arg(short, long)]
    pub force: bool,
    /// Output format: blkzone's (the sum in hex, 0x%09x) or JSON.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ResultFormat,
}

/// How a command that changes zones prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ResultFormat {
    /// blkzone's output (nothing, or the `-v` line); failures as one line on stderr.
    #[default]
    Text,
    /// One JSON object on stdout, failed or not (zones touched, bytes written, errno); a failure
    /// still prints its line on stderr and exits 1.
    Json,
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
    /// The whole device (the default when no range is given).
    #[arg(long, conflicts_with_all = ["offset", "length", "count"])]
    pub all: bool,
    /// Print the range acted on.
    #[arg(short, long)]
    pub verbose: bool,
    /// Act on a Linux zoned block device that the system uses (mounted, or open exclusively
    /// elsewhere): open it without O_EXCL, as blkzone -f does. Emulated devices are always locked
    /// against a second process (EBUSY).
    #[arg(short, long)]
    pub force: bool,
    /// Print the result as text (blkzone's) or JSON.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ResultFormat,
}

/// Arguments of `zonekit zone write`.
#[derive(Debug, clap::Args)]
pub struct WriteArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// Sector to write at (the write pointer, in a sequential zone).
    #[arg(short, long, value_name = "SECTOR", value_parser = sectors_arg, allow_hyphen_values = true)]
    pub offset: u64,
    /// Length (sectors, or bytes with a size suffix); with --input, the input's length when left
    /// out, and refused when it differs from it.
    #[arg(short, long, value_name = "SECTORS", value_parser = sectors_arg, required_unless_present = "input", allow_hyphen_values = true)]
    pub length: Option<u64>,
    /// Byte to fill the data with (decimal or 0x hex).
    #[arg(long, value_name = "BYTE", value_parser = |s: &str| parse_byte(s).map_err(|e| e.0), default_value = "0xa5", conflicts_with = "input", allow_hyphen_values = true)]
    pub pattern: u8,
    /// Write the data of this file (`-` for standard input) instead of a pattern; its length must
    /// be whole 512-byte sectors.
    #[arg(short, long, value_name = "FILE|-")]
    pub input: Option<PathBuf>,
    /// Flush the device after writing (fsync).
    #[arg(long)]
    pub sync: bool,
    /// Open a Linux device without O_EXCL (see `zone reset --help`).
    #[arg(short, long)]
    pub force: bool,
    /// Print the result as text (nothing) or JSON.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ResultFormat,
}

/// Arguments of `zonekit zone append`.
#[derive(Debug, clap::Args)]
pub struct AppendArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// Start sector of the zone to append to.
    #[arg(short, long, value_name = "ZONE", value_parser = sectors_arg, allow_hyphen_values = true)]
    pub offset: u64,
    /// Length (sectors, or bytes with a size suffix); with --input, the input's length when left
    /// out, and refused when it differs from it. At most the device's zone_append_max_bytes.
    #[arg(short, long, value_name = "SECTORS", value_parser = sectors_arg, required_unless_present = "input", allow_hyphen_values = true)]
    pub length: Option<u64>,
    /// Byte to fill the data with (decimal or 0x hex).
    #[arg(long, value_name = "BYTE", value_parser = |s: &str| parse_byte(s).map_err(|e| e.0), default_value = "0xa5", conflicts_with = "input", allow_hyphen_values = true)]
    pub pattern: u8,
    /// Append the data of this file (`-` for standard input) instead of a pattern.
    #[arg(short, long, value_name = "FILE|-")]
    pub input: Option<PathBuf>,
    /// Flush the device after the append (fsync).
    #[arg(long)]
    pub sync: bool,
    /// Open a Linux device without O_EXCL (see `zone reset --help`).
    #[arg(short, long)]
    pub force: bool,
    /// Print the sector written as a plain number (text) or in a JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ResultFormat,
}

/// Arguments of `zonekit zone read`.
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// Sector to read from.
    #[arg(short, long, value_name = "SECTOR", value_parser = sectors_arg, allow_hyphen_values = true)]
    pub offset: u64,
    /// Length (sectors, or bytes with a size suffix).
    #[arg(short, long, value_name = "SECTORS", value_parser = sectors_arg, allow_hyphen_values = true)]
    pub length: u64,
    /// Write the data to this file (created or truncated) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// A sector count as range messages give it, in sectors and in bytes (`200 sectors (100 KiB)`):
/// plain numbers are sectors here, suffixed ones bytes, so a message names both.
fn sectors(n: u64) -> String {
    match n.checked_mul(SECTOR_SIZE) {
        Some(b) => format!("{} ({})", sectors_word(n), human_bytes(b)),
        None => sectors_word(n),
    }
}

/// The zones a report covers: from the zone holding `-o`, `-c` zones or `ceil(-l / zone size)`
/// zones, or every zone to the end (blkzone's rules).
pub fn report_selection(spec: &str, g: &Geometry, r: &RangeArgs, conds: Vec<ZoneCond>) -> CliResult<Selection> {
    let offset = r.offset.unwrap_or(0);
    let first = g.zone_index(offset).ok_or_else(|| {
        CliError::Usage(format!(
            "{spec}: offset {} is past the end of the device, which has {}",
            sectors(offset),
            sectors(g.capacity)
        ))
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
            "{spec}: offset {} is past the end of the device, which has {}",
            sectors(offset),
            sectors(g.capacity)
        )));
    }
    if !offset.is_multiple_of(g.zone_size) {
        return Err(CliError::Usage(format!(
            "{spec}: offset {} is not aligned to zone size {}",
            sectors(offset),
            sectors(g.zone_size)
        )));
    }
    let end = match (r.count, r.length) {
        (Some(0), _) => return Err(CliError::Usage("--count must be at least 1".into())),
        (Some(c), _) => offset.saturating_add(c.saturating_mul(g.zone_size)).min(g.capacity),
        (None, Some(0)) => return Err(CliError::Usage("--length must not be zero".into())),
        (None, Some(l)) => {
            let end = offset.saturating_add(l).min(g.capacity);
            if !(end - offset).is_multiple_of(g.zone_size) && end != g.capacity {
                return Err(CliError::Usage(format!(
                    "{spec}: length {} is not aligned to zone size {}",
                    sectors(l),
                    sectors(g.zone_size)
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
    if args.verbose && args.format != Format::Blkzone {
        return Err(CliError::Usage("--verbose prints blkzone's lines: it needs --format blkzone".into()));
    }
    let dev = args.dev.open_blk(false)?;
    let spec = &args.dev.dev;
    let sel = report_selection(spec, &dev.info().geometry, &args.range, args.cond.clone())?;
    if args.count_only {
        let n = report::count_matching(&dev, &sel).map_err(|e| CliError::blk(format!("{spec}: report zones"), &e))?;
        return output(writeln!(w, "{n}"));
    }
    if args.verbose {
        let mut from = args.range.offset.unwrap_or(0);
        let r = report::for_each_batch(&dev, sel.first, sel.count, |zones| {
            writeln!(w, "Found {} zones from 0x{from:x}", zones.len())?;
            for z in zones.iter().filter(|z| sel.conds.is_empty() || sel.conds.contains(&z.cond)) {
                report::write_blkzone_line(w, z)?;
            }
            from = zones.last().map_or(from, |z| z.start + z.len);
            Ok(())
        })
        .map_err(|e| CliError::blk(format!("{spec}: report zones"), &e))?;
        return output(r);
    }
    let r = report::write_report(w, &dev, &sel, args.format)
        .map_err(|e| CliError::blk(format!("{spec}: report zones"), &e))?;
    output(r.map(|_| ()))
}

/// `zonekit zone capacity`: the sum of the zone capacities of the range (every zone, conventional
/// ones by their length), as blkzone prints it: `0x%09x` sectors.
pub fn capacity(args: &CapacityArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk(false)?;
    let spec = &args.dev.dev;
    let sel = report_selection(spec, &dev.info().geometry, &args.range, Vec::new())?;
    let (mut sum, mut zones) = (0u64, 0u64);
    let mut from = args.range.offset.unwrap_or(0);
    let verbose = args.verbose && args.format == ResultFormat::Text;
    let r = report::for_each_batch(&dev, sel.first, sel.count, |batch| {
        if verbose {
            writeln!(w, "Found {} zones from 0x{from:x}", batch.len())?;
        }
        sum += batch.iter().map(|z| z.capacity).sum::<u64>();
        zones += batch.len() as u64;
        from = batch.last().map_or(from, |z| z.start + z.len);
        Ok(())
    })
    .map_err(|e| CliError::blk(format!("{spec}: report zones"), &e))?;
    output(r)?;
    match args.format {
        ResultFormat::Text => output(writeln!(w, "0x{sum:09x}")),
        ResultFormat::Json => {
            let first = dev.info().geometry.zone_start(sel.first);
            json_line(w, &serde_json::json!({"device": spec, "sector": first, "zones": zones, "capacity": sum}))
        }
    }
}

fn json_line(w: &mut impl Write, v: &impl Serialize) -> CliResult {
    output(serde_json::to_writer(&mut *w, v).map_err(std::io::Error::from).and_then(|()| writeln!(w)))
}

/// The result of a command that changes zones, as `--format json` prints it. Positions in
/// 512-byte sectors.
#[derive(Debug, Default, Serialize)]
pub struct OpResult {
    /// `reset`, `open`, `close`, `finish`, `write`, `append`, `inject`.
    pub command: &'static str,
    /// The device spec.
    pub device: String,
    /// First sector of the range.
    pub sector: u64,
    /// Sectors in the range.
    pub sectors: u64,
    /// Zones the range covers.
    pub zones: u64,
    /// Zones whose condition or write pointer the command changed (management and inject).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zones_changed: Option<u64>,
    /// Bytes written (write and append), also when the command failed part way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<u64>,
    /// Where a zone append landed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_sector: Option<u64>,
    /// The command succeeded.
    pub ok: bool,
    /// The errno name of a failure (`EIO`).
    pub errno: Option<&'static str>,
    /// The errno value of a failure (5).
    pub errno_code: Option<i32>,
    /// The failure's message, as the stderr line gives it without `zonekit: `.
    pub error: Option<String>,
}

impl OpResult {
    /// Record the failure `e` (a block-device error) described as `err`.
    fn fail(&mut self, e: &BlkError, err: &CliError) {
        self.ok = false;
        self.errno = e.errno.name();
        self.errno_code = Some(e.errno.0);
        self.error = Some(match err {
            CliError::Usage(m) | CliError::Failed(m) => m.clone(),
            CliError::Exit(c) => format!("exit code {c}"),
        });
    }
}

/// Print `res` when JSON was asked for, then return `r`.
fn finish_result(w: &mut impl Write, format: ResultFormat, res: &OpResult, r: CliResult) -> CliResult {
    if format == ResultFormat::Json {
        json_line(w, res)?;
    }
    r
}

/// The zones of `[sector, sector + nr)`, as reported.
fn zones_of(dev: &BlockDevice, spec: &str, sector: u64, nr: u64) -> CliResult<Vec<Zone>> {
    let g = &dev.info().geometry;
    let Some(first) = g.zone_index(sector) else { return Ok(Vec::new()) };
    let count = nr.div_ceil(g.zone_size).min(u64::from(g.nr_zones - first)) as u32;
    let mut zones = Vec::with_capacity(count as usize);
    report::for_each_zone(dev, first, count, |z| {
        zones.push(*z);
        Ok(())
    })
    .map_err(|e| CliError::blk(format!("{spec}: report zones"), &e))?
    .map_err(|e| CliError::Failed(e.to_string()))?;
    Ok(zones)
}

fn changed(before: &[Zone], after: &[Zone]) -> u64 {
    before.iter().zip(after).filter(|(a, b)| a.cond != b.cond || a.wp != b.wp).count() as u64
}

/// `zonekit zone reset|open|close|finish`: the range goes to the block layer as blkzone's ioctl
/// does, which issues it zone by zone (or as one reset-all) and carries on after a failing zone.
pub fn manage(op: ZoneOp, args: &MgmtArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk_with(true, args.force)?;
    let spec = &args.dev.dev;
    let g = dev.info().geometry.clone();
    let range = if args.all { RangeArgs::default() } else { args.range.clone() };
    let (sector, nr) = mgmt_range(spec, &g, &range)?;
    let json = args.format == ResultFormat::Json;
    let before = if json { zones_of(&dev, spec, sector, nr)? } else { Vec::new() };
    let what = format!("{spec}: {} zones", op.name());
    let r = dev.zone_mgmt(op, sector, nr);
    let mut res = OpResult {
        command: op.name(),
        device: spec.clone(),
        sector,
        sectors: nr,
        zones: nr.div_ceil(g.zone_size),
        ok: true,
        ..OpResult::default()
    };
    if json {
        res.zones_changed = Some(changed(&before, &zones_of(&dev, spec, sector, nr)?));
    }
    let r = r.map_err(|e| {
        let err = CliError::blk(&what, &e);
        res.fail(&e, &err);
        err
    });
    // Zones changed before or after a failing one stay changed: record them either way.
    let closed = close(&dev, spec);
    let r = r.and(closed);
    if r.is_ok() && args.verbose && !json {
        output(writeln!(w, "{spec}: successful {} of zones in range from {sector}, to {}", op.name(), sector + nr))?;
    }
    finish_result(w, args.format, &res, r)
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

/// Where the data of a write or an append comes from.
enum Source {
    /// A fill byte.
    Pattern(u8),
    /// A regular file, read as the write goes.
    File(std::fs::File, PathBuf),
    /// Standard input or a file that is not regular, read whole before anything is written.
    Bytes(Vec<u8>),
}

impl Source {
    /// Fill `buf` with the next bytes of the data.
    fn fill(&mut self, buf: &mut [u8], at: u64) -> CliResult {
        match self {
            Source::Pattern(b) => buf.fill(*b),
            Source::File(f, p) => f.read_exact(buf).map_err(|e| input_error(p, "read", &e))?,
            Source::Bytes(v) => buf.copy_from_slice(&v[at as usize..at as usize + buf.len()]),
        }
        Ok(())
    }
}

fn input_error(path: &std::path::Path, what: &str, e: &std::io::Error) -> CliError {
    let errno = Errno(e.raw_os_error().unwrap_or(Errno::EIO.0));
    let why = errno.description().map_or_else(|| e.to_string(), str::to_string);
    CliError::Failed(format!("--input {}: {what}: {why} ({})", path.display(), errno.name().unwrap_or("EIO")))
}

/// The data source of `--input`/`--pattern` and the length in bytes to write, checked before
/// anything is written: `-l 0` refused; an input that is empty, not whole 512-byte sectors,
/// longer than `limit` bytes, or of another length than `-l` refused (exit 2).
fn source(input: Option<&PathBuf>, pattern: u8, length: Option<u64>, limit: u64) -> CliResult<(Source, u64)> {
    if length == Some(0) {
        return Err(CliError::Usage("--length must not be zero".into()));
    }
    let want = match length {
        Some(l) => Some(l.checked_mul(SECTOR_SIZE).ok_or_else(|| CliError::Usage("--length is too large".into()))?),
        None => None,
    };
    let Some(path) = input else {
        // clap requires --length without --input.
        return Ok((Source::Pattern(pattern), want.unwrap_or(0)));
    };
    let name = path.display().to_string();
    let (src, len) = if path.as_os_str() == "-" {
        let cap = want.unwrap_or(limit).saturating_add(1);
        let mut v = Vec::new();
        std::io::stdin().lock().take(cap).read_to_end(&mut v).map_err(|e| input_error(path, "read", &e))?;
        let n = v.len() as u64;
        (Source::Bytes(v), n)
    } else {
        let f = std::fs::File::open(path).map_err(|e| input_error(path, "open", &e))?;
        let meta = f.metadata().map_err(|e| input_error(path, "stat", &e))?;
        if meta.is_file() {
            (Source::File(f, path.clone()), meta.len())
        } else if meta.is_dir() {
            return Err(CliError::Usage(format!("--input {name}: is a directory")));
        } else {
            let cap = want.unwrap_or(limit).saturating_add(1);
            let mut v = Vec::new();
            f.take(cap).read_to_end(&mut v).map_err(|e| input_error(path, "read", &e))?;
            let n = v.len() as u64;
            (Source::Bytes(v), n)
        }
    };
    let bad = |why: String| Err(CliError::Usage(format!("--input {name}: {why}; nothing written")));
    match want {
        Some(w) if w != len => {
            let got =
                if len > w && matches!(src, Source::Bytes(_)) { "longer".to_string() } else { format!("{len} bytes") };
            bad(format!("{got}, but --length asks for {w} bytes ({} sectors)", w / SECTOR_SIZE))
        }
        _ if len == 0 => bad("is empty".into()),
        // Standard input is read up to one byte past the limit: its length beyond is unknown.
        _ if len > limit && matches!(src, Source::Bytes(_)) => {
            bad(format!("longer than the {limit} bytes the command can take"))
        }
        _ if len > limit => bad(format!("{len} bytes is more than the {limit} bytes the command can take")),
        _ if !len.is_multiple_of(SECTOR_SIZE) => bad(format!("{len} bytes is not a whole number of 512-byte sectors")),
        _ => Ok((src, len)),
    }
}

/// `zonekit zone write`: `pwrite` calls of up to 1 MiB through the block layer, which splits each
/// at zone boundaries and at `max_sectors_kb`, as the kernel does. A write that runs past the
/// device end writes what fits, then fails with `ENOSPC`, saying how much was written. The data
/// is a pattern, or a file or standard input whose length was checked before anything is written.
pub fn write(args: &WriteArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk_with(true, args.force)?;
    let spec = &args.dev.dev;
    let cap_bytes = dev.info().geometry.capacity.saturating_mul(SECTOR_SIZE);
    let (mut src, total) = source(args.input.as_ref(), args.pattern, args.length, cap_bytes.max(1))?;
    let (start, total) = byte_range(args.offset, total / SECTOR_SIZE)?;
    let g = &dev.info().geometry;
    let zones = g.zone_index(args.offset).map_or(0, |first| {
        let last = g.zone_index((start + total).div_ceil(SECTOR_SIZE).saturating_sub(1)).unwrap_or(g.nr_zones - 1);
        u64::from(last - first + 1)
    });
    let mut res = OpResult {
        command: "write",
        device: spec.clone(),
        sector: args.offset,
        sectors: total / SECTOR_SIZE,
        zones,
        bytes_written: Some(0),
        ok: true,
        ..OpResult::default()
    };
    let mut buf = vec![0u8; CHUNK.min(total as usize)];
    let mut done = 0u64;
    let mut r = Ok(());
    while done < total {
        let n = ((total - done) as usize).min(CHUNK);
        if let Err(e) = src.fill(&mut buf[..n], done) {
            r = Err(e);
            break;
        }
        let e = match dev.write(start + done, &buf[..n]) {
            Ok(0) => BlkError::new(Errno::ENOSPC, "nothing written"),
            Ok(k) => {
                done += k as u64;
                continue;
            }
            Err(e) => e,
        };
        let err = write_error(spec, args.offset, done, total, &e);
        res.fail(&e, &err);
        r = Err(err);
        break;
    }
    res.bytes_written = Some(done);
    if r.is_ok() && args.sync {
        r = dev.flush().map_err(|e| {
            let err = CliError::blk(format!("{spec}: flush"), &e);
            res.fail(&e, &err);
            err
        });
    }
    let closed = close(&dev, spec);
    finish_result(w, args.format, &res, r.and(closed))
}

/// A failed write, with what was written before it.
fn write_error(spec: &str, offset: u64, done: u64, total: u64, e: &BlkError) -> CliError {
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

/// `zonekit zone append`: one zone append through the block layer (native on null_blk and NVMe
/// devices, emulated as a write at the write pointer on SCSI ones); prints the sector the data
/// landed at. `-o` must start a zone (exit 2 otherwise, as for management ranges); data larger
/// than `zone_append_max_bytes` fails as the kernel fails it (`EIO`).
pub fn append(args: &AppendArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk_with(true, args.force)?;
    let spec = &args.dev.dev;
    let g = dev.info().geometry.clone();
    if args.offset >= g.capacity {
        return Err(CliError::Usage(format!(
            "{spec}: offset {} is past the end of the device ({} sectors)",
            args.offset, g.capacity
        )));
    }
    if !args.offset.is_multiple_of(g.zone_size) {
        return Err(CliError::Usage(format!(
            "{spec}: offset {} is not the start of a zone (zone size {})",
            sectors(args.offset),
            sectors(g.zone_size)
        )));
    }
    let limit = dev.limits().zone_append_max_bytes;
    let zone_bytes = g.zone_size * SECTOR_SIZE;
    let what = format!("{spec}: zone append at sector {}", args.offset);
    let mut res = OpResult {
        command: "append",
        device: spec.clone(),
        sector: args.offset,
        zones: 1,
        bytes_written: Some(0),
        ok: true,
        ..OpResult::default()
    };
    // Refused before any data is read or allocated: the kernel's blk_check_zone_append does it
    // on the bio's size.
    let too_long = |sectors: u64| {
        // A length past u64 bytes is named in sectors, as given (not as a saturated byte count).
        let size = sectors.checked_mul(SECTOR_SIZE).map_or_else(|| sectors_word(sectors), |b| format!("{b} bytes"));
        BlkError::new(
            Errno::EIO,
            format!("{size}: larger than the zone append limit ({} bytes)", limit.min(zone_bytes)),
        )
    };
    if let Some(l) = args.length.filter(|&l| l.saturating_mul(SECTOR_SIZE) > limit.min(zone_bytes)) {
        let e = too_long(l);
        let err = CliError::blk(&what, &e);
        res.sectors = l;
        res.fail(&e, &err);
        return finish_result(w, args.format, &res, Err(err));
    }
    let (mut src, total) = source(args.input.as_ref(), args.pattern, args.length, zone_bytes)?;
    res.sectors = total / SECTOR_SIZE;
    let mut buf = vec![0u8; total as usize];
    src.fill(&mut buf, 0)?;
    let r = match dev.zone_append(args.offset, &buf) {
        Ok(at) => {
            res.written_sector = Some(at);
            res.bytes_written = Some(total);
            if args.sync { dev.flush().map_err(|e| (format!("{spec}: flush"), e)) } else { Ok(()) }
        }
        Err(e) => Err((what, e)),
    };
    let r = r.map_err(|(what, e)| {
        let err = CliError::blk(what, &e);
        res.fail(&e, &err);
        err
    });
    let closed = close(&dev, spec);
    let r = r.and(closed);
    match (args.format, res.written_sector) {
        (ResultFormat::Text, Some(at)) if r.is_ok() => output(writeln!(w, "{at}")),
        _ => finish_result(w, args.format, &res, r),
    }
}

/// `zonekit zone read`: raw bytes to standard output or `--output FILE`, `pread` calls of up to
/// 1 MiB through the block layer. A read that runs past the device end stops there, as a block
/// device file's read does. The output file is created only once the device is open and the
/// range checked.
pub fn read(args: &ReadArgs, w: &mut impl Write) -> CliResult {
    if args.length == 0 {
        return Err(CliError::Usage("--length must not be zero".into()));
    }
    let dev = args.dev.open_blk(false)?;
    let spec = &args.dev.dev;
    let (start, total) = byte_range(args.offset, args.length)?;
    match &args.output {
        None => read_to(&dev, spec, args.offset, start, total, w),
        Some(path) => {
            let f = std::fs::File::create(path).map_err(|e| {
                let errno = Errno(e.raw_os_error().unwrap_or(Errno::EIO.0));
                let why = errno.description().map_or_else(|| e.to_string(), str::to_string);
                CliError::Failed(format!(
                    "--output {}: cannot create: {why} ({})",
                    path.display(),
                    errno.name().unwrap_or("EIO")
                ))
            })?;
            let mut out = std::io::BufWriter::with_capacity(CHUNK, f);
            read_to(&dev, spec, args.offset, start, total, &mut out).map_err(|e| match e {
                // `output` speaks of standard output; here the writer is the file.
                CliError::Failed(m) if m.starts_with(crate::error::WRITING_STDOUT) => CliError::Failed(format!(
                    "--output {}: writing{}",
                    path.display(),
                    &m[crate::error::WRITING_STDOUT.len()..]
                )),
                other => other,
            })
        }
    }
}

fn read_to(dev: &BlockDevice, spec: &str, offset: u64, start: u64, total: u64, w: &mut impl Write) -> CliResult {
    let mut buf = vec![0u8; CHUNK.min(total as usize)];
    let mut done = 0u64;
    while done < total {
        let n = ((total - done) as usize).min(CHUNK);
        let got = dev
            .read(start + done, &mut buf[..n])
            .map_err(|e| CliError::blk(format!("{spec}: read at sector {}", offset + done / SECTOR_SIZE), &e))?;
        output(w.write_all(&buf[..got]))?;
        done += got as u64;
        if got < n {
            break;
        }
    }
    output(w.flush())
}

/// A fault `zonekit zone inject` puts in zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The zone becomes read-only (`ro`), as null_blk's configfs `zone_readonly`: finished first,
    /// its data kept for reads, every write and zone command refused.
    ReadOnly,
    /// The zone becomes offline (`of`), as null_blk's `zone_offline`: reads fail too.
    Offline,
    /// The zone's next write or zone append fails with `EIO` and changes nothing, as a media
    /// error would; the fault is then gone.
    FailNextWrite,
    /// The zone's write pointer moves to this many sectors from the zone start, behind the
    /// host's back (a lost write, or data the host did not write): empty at 0, full at the zone
    /// capacity, else open or closed; its data ends there (cut, or extended with zeros).
    MoveWp(u64),
    /// Read-only and offline zones return to empty (their data discarded), as writing null_blk's
    /// attribute again does, and pending write faults go; other zones are left as they are.
    Clear,
}

impl Fault {
    /// The name the command line takes.
    pub fn name(self) -> String {
        match self {
            Fault::ReadOnly => "read-only".into(),
            Fault::Offline => "offline".into(),
            Fault::FailNextWrite => "fail-next-write".into(),
            Fault::MoveWp(n) => format!("move-wp={n}"),
            Fault::Clear => "clear".into(),
        }
    }
}

fn fault_arg(s: &str) -> Result<Fault, String> {
    if let Some(n) = s.strip_prefix("move-wp=") {
        return sectors_arg(n).map(Fault::MoveWp).map_err(|e| format!("move-wp: {e}"));
    }
    match s {
        "read-only" | "read_only" | "ro" => Ok(Fault::ReadOnly),
        "offline" | "of" => Ok(Fault::Offline),
        "fail-next-write" => Ok(Fault::FailNextWrite),
        "clear" => Ok(Fault::Clear),
        _ => Err(format!("unknown fault '{s}' (read-only, offline, fail-next-write, move-wp=N or clear)")),
    }
}

/// Arguments of `zonekit zone inject`.
#[derive(Debug, clap::Args)]
pub struct InjectArgs {
    /// The device: a persistent emulated device directory (`zonekit dev create`).
    #[arg(value_name = "DEV")]
    pub dev: String,
    /// The zone range (as `reset` takes it; sequential zones only).
    #[command(flatten)]
    pub range: RangeArgs,
    /// The fault: read-only, offline (null_blk's zone_readonly / zone_offline), fail-next-write
    /// (the next write or append fails with EIO), move-wp=N (the write pointer moves to N sectors
    /// from the zone start; a suffix means bytes), or clear (read-only and offline zones back to
    /// empty, write faults gone).
    #[arg(value_name = "FAULT", value_parser = fault_arg)]
    pub fault: Fault,
    /// Print the result as text (nothing) or JSON.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ResultFormat,
}

/// `zonekit zone inject`: put a fault in each zone of the range of a persistent emulated device,
/// where the device's state keeps it (`zones.state`) and reports show it. Refused (exit 2) on
/// devices that could not keep it: `@PROFILE` devices live for one command, files with
/// `--zone-size` start empty at each open, and Linux devices have their own means (null_blk's
/// configfs `zone_readonly` / `zone_offline`).
pub fn inject(args: &InjectArgs, w: &mut impl Write) -> CliResult {
    let spec = &args.dev;
    let refuse = |why: &str| Err(CliError::Usage(format!("{spec}: cannot inject faults: {why}")));
    if spec.starts_with('@') {
        return refuse(
            "an @PROFILE device lives for one command, so nothing would keep the fault (make a persistent one: zonekit dev create DIR --profile NAME)",
        );
    }
    let path = std::path::Path::new(spec);
    if !path.is_dir() {
        // The usual message for a missing or unusable spec, else the reason this kind cannot.
        let dev = DevArg { dev: spec.clone(), zone_size: None, zone_capacity: None }.open(false)?;
        return match dev.info().kind {
            zonekit_core::DeviceKind::Linux => {
                refuse("a Linux device's faults are its driver's (null_blk: configfs zone_readonly, zone_offline)")
            }
            _ => refuse("not a persistent emulated device (zonekit dev create)"),
        };
    }
    let dev = zonekit_dev::persistent::open_dir(path, spec, true)
        .map_err(|e| CliError::open(zonekit_dev::OpenError::Device(e)))?;
    let g = zonekit_core::ZoneReport::info(&dev).geometry.clone();
    let (sector, nr) = mgmt_range(spec, &g, &args.range)?;
    let first = (sector / g.zone_size) as u32;
    let last = (sector + nr).div_ceil(g.zone_size) as u32;
    if g.is_conventional(first) {
        return Err(CliError::Usage(format!(
            "{spec}: zone {first} (sector {sector}) is conventional: faults go into sequential zones (the first is at sector {})",
            g.zone_start(g.nr_conv_zones)
        )));
    }
    let mut res = OpResult {
        command: "inject",
        device: spec.clone(),
        sector,
        sectors: nr,
        zones: u64::from(last - first),
        zones_changed: Some(0),
        ok: true,
        ..OpResult::default()
    };
    let mut r = Ok(());
    let what = |idx: u32| format!("{spec}: inject {} into zone {idx}", args.fault.name());
    if let Fault::MoveWp(n) = args.fault {
        let cap = g.zone_capacity;
        // Both units: the value may have been typed in bytes (move-wp=5M).
        let size = |s: u64| format!("{s} sectors, {}", human_bytes(s.saturating_mul(SECTOR_SIZE)));
        if n > cap {
            return Err(CliError::Usage(format!(
                "{spec}: move-wp ({}) is past the zone capacity ({})",
                size(n),
                size(cap)
            )));
        }
        let lbs = u64::from(g.logical_block_size) / SECTOR_SIZE;
        if !n.is_multiple_of(lbs) {
            return Err(CliError::Usage(format!(
                "{spec}: move-wp ({}) is not a whole number of {}-byte logical blocks",
                size(n),
                g.logical_block_size
            )));
        }
    }
    for idx in first..last {
        let zone = dev.with_table(|t| t.zone(idx));
        let pending = dev.write_faults().contains(&idx);
        let result = match (args.fault, zone.cond) {
            (Fault::ReadOnly, ZoneCond::ReadOnly) | (Fault::Offline, ZoneCond::Offline) => continue,
            (Fault::ReadOnly, _) => dev.set_zone_cond(idx, ZoneCond::ReadOnly),
            (Fault::Offline, _) => dev.set_zone_cond(idx, ZoneCond::Offline),
            (Fault::FailNextWrite, _) if pending => continue,
            (Fault::FailNextWrite, _) => dev.set_write_fault(idx, true),
            (Fault::MoveWp(n), _) if zone.wp == zone.start + n => continue,
            (Fault::MoveWp(n), _) => dev.move_write_pointer(idx, zone.start + n),
            // Asking again for the condition a zone has returns it to empty.
            (Fault::Clear, c @ (ZoneCond::ReadOnly | ZoneCond::Offline)) => {
                dev.set_zone_cond(idx, c).and_then(|()| if pending { dev.set_write_fault(idx, false) } else { Ok(()) })
            }
            (Fault::Clear, _) if pending => dev.set_write_fault(idx, false),
            (Fault::Clear, _) => continue,
        };
        if let Err(e) = result {
            let e = BlkError::from_device(&e);
            let err = CliError::blk(what(idx), &e);
            res.fail(&e, &err);
            r = Err(err);
            break;
        }
        res.zones_changed = res.zones_changed.map(|n| n + 1);
    }
    // A moved write pointer is durable once flushed, as a write is: make the fault stay.
    if r.is_ok() {
        r = zonekit_core::BlockIo::flush(&dev).map_err(|e| CliError::device(format!("{spec}: flush"), &e));
    }
    let closed = zonekit_core::BlockIo::close(&dev).map_err(|e| CliError::device(format!("{spec}: close"), &e));
    finish_result(w, args.format, &res, r.and(closed))
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
