//! `zonekit dev create|info`: make a persistent emulated device, describe any device.

use super::{DevArg, Size, check_zone_sizes, size_text_arg};
use crate::error::{CliError, CliResult, output};
use crate::report::{DeviceJson, for_each_zone};
use crate::units::human_bytes;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use zonekit_blk::BlockDevice;
use zonekit_blk::zoned::AttrValue;
use zonekit_core::{BlockIo, DeviceKind, Personality, ZoneCond};
use zonekit_dev::config::min_max_sectors_kb;
use zonekit_dev::{DataMode, GeometrySpec, profile};

/// Arguments of `zonekit dev create`.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("layout").required(true).args(["profile", "zone_size"]))]
pub struct CreateArgs {
    /// Directory to create (it holds the device's metadata and one file per written zone).
    pub path: PathBuf,
    /// Copy the geometry of a built-in profile (see `zonekit profiles`).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["zone_size", "zones", "conv_zones", "zone_capacity", "max_open", "max_active", "block_size", "personality"])]
    pub profile: Option<String>,
    /// Zone size (bytes, K/M/G suffixes; a power of two).
    #[arg(long, value_name = "SIZE", value_parser = size_text_arg, requires = "zones", allow_hyphen_values = true)]
    pub zone_size: Option<Size>,
    /// Number of zones.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub zones: Option<u32>,
    /// Conventional zones at the start of the device.
    #[arg(long, value_name = "N", default_value_t = 0, allow_hyphen_values = true)]
    pub conv_zones: u32,
    /// Writable part of each sequential zone (default: the zone size).
    #[arg(long, value_name = "SIZE", value_parser = size_text_arg, allow_hyphen_values = true)]
    pub zone_capacity: Option<Size>,
    /// Maximum open zones (0: no limit).
    #[arg(long, value_name = "N", default_value_t = 0, allow_hyphen_values = true)]
    pub max_open: u32,
    /// Maximum active (open or closed) zones (0: no limit).
    #[arg(long, value_name = "N", default_value_t = 0, allow_hyphen_values = true)]
    pub max_active: u32,
    /// Logical block size.
    #[arg(long, value_name = "BYTES", default_value_t = 512, value_parser = block_size_arg, allow_hyphen_values = true)]
    pub block_size: u32,
    /// Transport rules and errnos: nullblk (Linux null_blk), zbc (SCSI SMR disk) or zns (NVMe).
    #[arg(long, value_name = "NAME", default_value = "nullblk")]
    pub personality: Personality,
    /// What the device keeps of the data written to it.
    #[arg(long, value_name = "MODE", value_enum, default_value = "files")]
    pub data: DataArg,
    /// The block layer's largest request in KiB (`/sys/block/X/queue/max_sectors_kb`): reads and
    /// writes are split at it [default: the profile's, else 1280, Linux's default cap].
    #[arg(long, value_name = "KIB", allow_hyphen_values = true)]
    pub max_sectors_kb: Option<u32>,
    /// Issue every zone write from one worker, one at a time (`/sys/block/X/queue/zoned_qd1_writes`)
    /// [default: 1 for a spinning disk, else 0, as Linux does].
    #[arg(long, value_name = "0|1", value_parser = flag_arg)]
    pub zoned_qd1_writes: Option<bool>,
}

fn flag_arg(s: &str) -> Result<bool, String> {
    match s {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("expected 0 or 1, not '{s}'")),
    }
}

/// The values of `--data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DataArg {
    /// The data, one file per written zone: reads return what was written.
    Files,
    /// No data, only each zone's write pointer and condition: reads return zeros below the write
    /// pointer, as the @PROFILE devices do, so a huge drive can be written terabytes without
    /// storing them.
    None,
}

impl From<DataArg> for DataMode {
    fn from(d: DataArg) -> DataMode {
        match d {
            DataArg::Files => DataMode::Files,
            DataArg::None => DataMode::None,
        }
    }
}

fn block_size_arg(s: &str) -> Result<u32, String> {
    match s {
        "512" => Ok(512),
        "4096" => Ok(4096),
        _ => Err(format!("block size must be 512 or 4096, not '{s}'")),
    }
}

/// Arguments of `zonekit dev info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// Print JSON (the same as --format json).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format: the description, or a JSON object (the device as `zone report --format
    /// json` gives it, its timing model, zone conditions and queue attributes).
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::cmd::zone::ResultFormat,
}

/// `zonekit dev create`.
pub fn create(args: &CreateArgs, w: &mut impl Write) -> CliResult {
    let config = match &args.profile {
        Some(name) => profile(name)
            .ok_or_else(|| CliError::Usage(format!("unknown profile '{name}' (`zonekit profiles` lists them)")))?
            .config(),
        None => {
            let bad = |why: String| CliError::Usage(format!("{}: {why}", args.path.display()));
            let zone_size = args.zone_size.clone().unwrap_or(Size { bytes: 0, text: "0".into() });
            // Checked here, in bytes, to quote the options as given; the geometry checks the rest.
            check_zone_sizes(&zone_size, args.zone_capacity.as_ref(), args.block_size, true).map_err(bad)?;
            let spec = GeometrySpec {
                zone_size: zone_size.bytes,
                nr_zones: args.zones.unwrap_or(0),
                nr_conv_zones: args.conv_zones,
                zone_capacity: args.zone_capacity.as_ref().map(|c| c.bytes),
                max_open: args.max_open,
                max_active: args.max_active,
                block_size: args.block_size,
                personality: args.personality,
            };
            spec.into_config().map_err(|e| CliError::Usage(format!("{}: {e}", args.path.display())))?
        }
    };
    let mut config = config;
    if let Some(kb) = args.max_sectors_kb {
        let min = min_max_sectors_kb(config.geometry.logical_block_size);
        if kb < min {
            return Err(CliError::Usage(format!(
                "{}: --max-sectors-kb {kb} is below {min} (one page, and one logical block)",
                args.path.display()
            )));
        }
        config.queue.max_sectors_kb = kb;
    }
    if let Some(qd1) = args.zoned_qd1_writes {
        config.queue.zoned_qd1_writes = qd1;
    }
    let dev = zonekit_dev::persistent::create_dir(&args.path, &config, args.data.into())
        .map_err(|e| CliError::open(e.into()))?;
    dev.close().map_err(|e| CliError::device(format!("{}: close", args.path.display()), &e))?;
    print_info(&BlockDevice::new(Arc::new(dev)), w)
}

/// `zonekit dev info`.
pub fn info(args: &InfoArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk(false)?;
    if args.json || args.format == crate::cmd::zone::ResultFormat::Json {
        let conds = cond_counts(&dev)?;
        let queue: serde_json::Map<String, serde_json::Value> = dev
            .limits()
            .attributes()
            .into_iter()
            .map(|(name, v)| {
                let v = match v {
                    AttrValue::Num(n) => serde_json::Value::from(n),
                    AttrValue::Text(t) => serde_json::Value::from(t),
                };
                (name.to_string(), v)
            })
            .collect();
        let doc = serde_json::json!({
            "device": DeviceJson::new(dev.info()),
            "timing_model": dev.device().timing_model().map(|m| m.name().to_string()),
            "conditions": conds.iter().map(|(c, n)| (c.long_name(), *n)).collect::<BTreeMap<_, _>>(),
            "fail_next_write": dev.device().pending_write_faults(),
            "queue": queue,
        });
        return output(
            serde_json::to_writer_pretty(&mut *w, &doc).map_err(std::io::Error::from).and_then(|()| writeln!(w)),
        );
    }
    print_info(&dev, w)
}

fn cond_counts(dev: &BlockDevice) -> CliResult<BTreeMap<ZoneCond, u64>> {
    let mut counts = BTreeMap::new();
    let nr = dev.info().geometry.nr_zones;
    for_each_zone(dev, 0, nr, |z| {
        *counts.entry(z.cond).or_insert(0) += 1;
        Ok(())
    })
    .map_err(|e| CliError::blk(format!("{}: report zones", dev.info().spec), &e))?
    .map_err(|e| CliError::Failed(e.to_string()))?;
    Ok(counts)
}

fn print_info(dev: &BlockDevice, w: &mut impl Write) -> CliResult {
    let conds = cond_counts(dev)?;
    let i = dev.info();
    let g = &i.geometry;
    let l = &i.limits;
    let kind = match &i.kind {
        DeviceKind::Emulated { store, profile: Some(p) } => format!("emulated, {store} store, profile {p}"),
        DeviceKind::Emulated { store, profile: None } => format!("emulated, {store} store"),
        DeviceKind::File => "file with emulated zones".to_string(),
        DeviceKind::Linux => "Linux zoned block device".to_string(),
    };
    let limit = |n: u32| if n == 0 { "no limit".to_string() } else { n.to_string() };
    let cond_line = conds.iter().map(|(c, n)| format!("{} {n}", c.short_name())).collect::<Vec<_>>().join(", ");
    output((|| {
        writeln!(w, "device:        {}", i.spec)?;
        writeln!(w, "kind:          {kind}")?;
        if matches!(&i.kind, DeviceKind::Emulated { store, .. } if store == "dir") {
            let data = if i.keeps_data {
                "files (the data, one file per zone)"
            } else {
                "none (zone state only: reads return zeros)"
            };
            writeln!(w, "data:          {data}")?;
        }
        writeln!(w, "personality:   {} ({})", i.personality, i.personality.description())?;
        writeln!(w, "model:         {}{}", i.model, if i.rotational { ", rotational" } else { "" })?;
        writeln!(w, "vendor:        {}", i.vendor)?;
        writeln!(w, "description:   {}", i.description)?;
        match dev.device().timing_model() {
            Some(m) => writeln!(w, "timing:        model {} (zonekit bench runs in simulated time)", m.name())?,
            None => writeln!(w, "timing:        none (commands complete at once)")?,
        }
        writeln!(
            w,
            "capacity:      {} sectors ({}, {:.3} GB)",
            g.capacity,
            human_bytes(g.capacity * 512),
            (g.capacity * 512) as f64 / 1e9
        )?;
        writeln!(w, "block size:    {} logical, {} physical", g.logical_block_size, g.physical_block_size)?;
        writeln!(w, "zone size:     {} sectors ({})", g.zone_size, human_bytes(g.zone_size * 512))?;
        writeln!(w, "zone capacity: {} sectors ({})", g.zone_capacity, human_bytes(g.zone_capacity * 512))?;
        writeln!(
            w,
            "zones:         {} ({} conventional, {} sequential)",
            g.nr_zones,
            g.nr_conv_zones,
            g.nr_seq_zones()
        )?;
        writeln!(w, "max open:      {}", limit(l.max_open))?;
        writeln!(w, "max active:    {}", limit(l.max_active))?;
        writeln!(w, "max append:    {} sectors", l.max_append_sectors)?;
        writeln!(w, "conditions:    {cond_line}")?;
        let faults = dev.device().pending_write_faults();
        if !faults.is_empty() {
            let list = faults.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            writeln!(w, "faults:        next write fails in zone{} {list}", if faults.len() > 1 { "s" } else { "" })?;
        }
        writeln!(w, "queue:         as /sys/block/X/queue shows it")?;
        for (name, value) in dev.limits().attributes() {
            writeln!(w, "  {name:<23} {value}")?;
        }
        Ok(())
    })())
}
