//! `zonekit profiles`: the built-in device profiles.

use crate::error::{CliResult, output};
use crate::units::human_bytes;
use serde::Serialize;
use std::io::Write;
use zonekit_dev::PROFILES;

/// Arguments of `zonekit profiles`.
#[derive(Debug, clap::Args)]
pub struct ProfilesArgs {
    /// Also print where each profile's figures come from.
    #[arg(short, long)]
    pub verbose: bool,
    /// Also print each profile's source, its timing model, and every model parameter with its
    /// value and source.
    #[arg(long)]
    pub details: bool,
    /// Output format: the table, or a JSON array with every profile's geometry, limits, source
    /// and timing model (sizes in bytes and sectors).
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::cmd::zone::ResultFormat,
}

/// A profile's timing-model parameter in JSON.
#[derive(Debug, Serialize)]
struct ParamJson {
    name: &'static str,
    value: String,
    source: &'static str,
}

/// A profile in JSON: sizes in bytes, and the device geometry in 512-byte sectors as
/// `zone report --format json` gives it.
#[derive(Debug, Serialize)]
struct ProfileJson {
    name: &'static str,
    personality: &'static str,
    capacity_bytes: u64,
    capacity: u64,
    nr_zones: u32,
    nr_conv_zones: u32,
    zone_size_bytes: u64,
    zone_size: u64,
    zone_capacity_bytes: u64,
    zone_capacity: u64,
    block_size: u32,
    max_open_zones: u32,
    max_active_zones: u32,
    max_append_sectors: u64,
    rotational: bool,
    max_sectors_kb: u32,
    vendor: &'static str,
    description: &'static str,
    source: &'static str,
    timing_model: Option<String>,
    model_params: Vec<ParamJson>,
}

/// List the profiles.
pub fn run(args: &ProfilesArgs, w: &mut impl Write) -> CliResult {
    if args.format == crate::cmd::zone::ResultFormat::Json {
        let list: Vec<ProfileJson> = PROFILES
            .iter()
            .map(|p| ProfileJson {
                name: p.name,
                personality: p.personality.name(),
                capacity_bytes: p.capacity_bytes(),
                capacity: p.capacity_bytes() / 512,
                nr_zones: p.nr_zones,
                nr_conv_zones: p.nr_conv_zones,
                zone_size_bytes: p.zone_size_mib << 20,
                zone_size: (p.zone_size_mib << 20) / 512,
                zone_capacity_bytes: p.zone_capacity_mib << 20,
                zone_capacity: (p.zone_capacity_mib << 20) / 512,
                block_size: p.block_size,
                max_open_zones: p.max_open,
                max_active_zones: p.max_active,
                max_append_sectors: p.max_append_sectors,
                rotational: p.rotational,
                max_sectors_kb: p.max_sectors_kb,
                vendor: p.vendor,
                description: p.description,
                source: p.source,
                timing_model: p.model.as_ref().map(|m| m.name().to_string()),
                model_params: p
                    .model
                    .as_ref()
                    .map(|m| {
                        m.params()
                            .into_iter()
                            .map(|q| ParamJson { name: q.name, value: q.value, source: q.source })
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect();
        return output(
            serde_json::to_writer_pretty(&mut *w, &list).map_err(std::io::Error::from).and_then(|()| writeln!(w)),
        );
    }
    let limit = |n: u32| if n == 0 { "-".to_string() } else { n.to_string() };
    output((|| {
        writeln!(
            w,
            "{:<13} {:<7} {:>10} {:>7} {:>9} {:>9} {:>5} {:>4} {:>6} {:>5}  DESCRIPTION",
            "NAME", "TYPE", "CAPACITY", "ZONES", "ZONE", "ZONE CAP", "CONV", "OPEN", "ACTIVE", "BLOCK"
        )?;
        for p in PROFILES {
            writeln!(
                w,
                "{:<13} {:<7} {:>10} {:>7} {:>9} {:>9} {:>5} {:>4} {:>6} {:>5}  {}",
                p.name,
                p.personality.name(),
                human_bytes(p.capacity_bytes()).replace(".00", ""),
                p.nr_zones,
                human_bytes(p.zone_size_mib << 20),
                human_bytes(p.zone_capacity_mib << 20),
                p.nr_conv_zones,
                limit(p.max_open),
                limit(p.max_active),
                p.block_size,
                p.description
            )?;
            if args.verbose || args.details {
                writeln!(w, "{:<13} source: {}", "", p.source)?;
            }
            if args.details {
                match &p.model {
                    None => writeln!(w, "{:<13} model: none (no timing: commands complete at once)", "")?,
                    Some(m) => {
                        writeln!(w, "{:<13} model: {}", "", m.name())?;
                        for param in m.params() {
                            writeln!(w, "{:<15} {:<20} {:>12}  {}", "", param.name, param.value, param.source)?;
                        }
                    }
                }
            }
        }
        Ok(())
    })())
}
