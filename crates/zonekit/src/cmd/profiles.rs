//! `zonekit profiles`: the built-in device profiles.

use crate::error::{CliResult, output};
use crate::units::human_bytes;
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
}

/// List the profiles.
pub fn run(args: &ProfilesArgs, w: &mut impl Write) -> CliResult {
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
