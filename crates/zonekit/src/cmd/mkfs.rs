//! `zonekit mkfs`: format a device as zonefs, as mkzonefs does (its summary, then its steps).

use super::DevArg;
use crate::error::{CliError, CliResult, output};
use std::io::Write;
use zonekit_fs::{FsError, MkfsOptions, MkfsPlan};

/// Arguments of `zonekit mkfs`.
#[derive(Debug, clap::Args)]
pub struct MkfsArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// Make each run of contiguous conventional zones one file (mkzonefs -o aggr_cnv).
    #[arg(long)]
    pub aggr_cnv: bool,
    /// Owner of every file (mkzonefs -o uid=N).
    #[arg(long, value_name = "N")]
    pub uid: Option<u32>,
    /// Group of every file (mkzonefs -o gid=N).
    #[arg(long, value_name = "N")]
    pub gid: Option<u32>,
    /// Permission bits of every file, octal, at most 777 (mkzonefs -o perm=MODE) [default: 640].
    #[arg(long, value_name = "MODE", value_parser = perm_arg)]
    pub perm: Option<u32>,
    /// Volume label (at most 63 bytes; blkid shows only 32).
    #[arg(long, short = 'L', value_name = "LABEL", value_parser = label_arg)]
    pub label: Option<String>,
    /// Format even if zone 0 holds a zonefs superblock or other data.
    #[arg(long, short = 'f')]
    pub force: bool,
}

fn perm_arg(s: &str) -> Result<u32, String> {
    match u32::from_str_radix(s, 8) {
        Ok(p) if p <= 0o777 => Ok(p),
        _ => Err(format!("'{s}' is not an octal mode of at most 777")),
    }
}

fn label_arg(s: &str) -> Result<String, String> {
    let n = zonekit_fs::superblock::MAX_LABEL;
    if s.len() > n || s.contains('\0') {
        return Err(format!("a label has at most {n} bytes and no NUL"));
    }
    Ok(s.to_string())
}

/// A zonekit-fs error while doing `what` on device `spec`: `<spec>: <what>: <why> (<ERRNO>)`.
pub fn fs_error(spec: &str, e: &FsError) -> CliError {
    CliError::Failed(format!("{spec}: {e} ({})", e.errno().name().unwrap_or("errno")))
}

/// `zonekit mkfs`: check, print the summary, reset the sequential zones, write the superblock.
pub fn run(args: &MkfsArgs, w: &mut impl Write) -> CliResult {
    let dev = args.dev.open_blk(true)?;
    let spec = &args.dev.dev;
    let opts = MkfsOptions {
        aggr_cnv: args.aggr_cnv,
        uid: args.uid,
        gid: args.gid,
        perm: args.perm,
        label: args.label.clone(),
        force: args.force,
        uuid: None,
    };
    let plan = MkfsPlan::new(&dev, &opts).map_err(|e| fs_error(spec, &e))?;
    output(write!(w, "{}", plan.summary(spec)))?;
    output(writeln!(w, "Resetting sequential zones"))?;
    output(w.flush())?;
    let r = plan.reset_zones(&dev).and_then(|()| {
        let _ = writeln!(w, "Writing super block");
        plan.write_superblock(&dev)
    });
    let closed = dev.close().map_err(|e| CliError::blk(format!("{spec}: close"), &e));
    r.map_err(|e| fs_error(spec, &e))?;
    closed
}
