//! `zonekit plot` and `zonekit map`: pictures of a benchmark run and of a device's zones.

use crate::cmd::DevArg;
use crate::error::{CliError, CliResult, output};
use std::io::Write;
use std::path::{Path, PathBuf};
use zonekit_plot::{PlotError, logs, result, run};

/// Arguments of `zonekit plot`.
#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// fio JSON result files, each followed by its log files (PREFIX_bw.N.log, _iops, _lat,
    /// _clat, _slat): several results are drawn side by side.
    #[arg(value_name = "RESULT.json [LOGS...]", required_unless_present = "table")]
    pub files: Vec<PathBuf>,
    /// Output picture: .png or .svg.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: PathBuf,
    /// Draw a table instead: CSV with header table,x_name,x,SERIES... (series named commit…
    /// dashed), y values in MB/s.
    #[arg(long, value_name = "CSV", conflicts_with = "files")]
    pub table: Option<PathBuf>,
    /// Title of a --table picture.
    #[arg(long, value_name = "TEXT", default_value = "zonekit vs the commit's figures")]
    pub title: String,
}

/// Arguments of `zonekit map`.
#[derive(Debug, clap::Args)]
pub struct MapArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// Output picture: .png or .svg.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: PathBuf,
}

fn plot_err(e: PlotError) -> CliError {
    match e {
        PlotError::Input(m) => CliError::Usage(m),
        PlotError::Output(m) => CliError::Failed(m),
        other => CliError::Failed(other.to_string()),
    }
}

/// Group the files: each `.json` starts a run, the logs after it are its logs.
pub fn runs_of(files: &[PathBuf]) -> CliResult<Vec<run::RunInput>> {
    let mut runs: Vec<run::RunInput> = Vec::new();
    for f in files {
        if f.extension().is_some_and(|e| e == "json") {
            let name = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            runs.push(run::RunInput { name, result: result::read(f).map_err(plot_err)?, logs: Vec::new() });
        } else {
            let Some(r) = runs.last_mut() else {
                return Err(CliError::Usage(format!("{}: a result file (.json) comes before its logs", f.display())));
            };
            r.logs.push(logs::read(f).map_err(plot_err)?);
        }
    }
    if runs.is_empty() {
        return Err(CliError::Usage("plot: no result file (.json) given".into()));
    }
    Ok(runs)
}

/// Draw the run figure of `files` into `out_path`; the notes of what is missing go to `notes`.
pub fn plot_files(files: &[PathBuf], out_path: &Path, notes: &mut impl Write) -> CliResult {
    zonekit_plot::ImageFormat::of(out_path).map_err(plot_err)?;
    let runs = runs_of(files)?;
    let f = run::figure(&runs);
    zonekit_plot::draw::write_figure(&f.figure, out_path).map_err(plot_err)?;
    for n in &f.notes {
        let _ = writeln!(notes, "zonekit: plot: {n}");
    }
    Ok(())
}

/// `zonekit plot`.
pub fn plot(args: &PlotArgs, out: &mut impl Write) -> CliResult {
    if let Some(t) = &args.table {
        zonekit_plot::ImageFormat::of(&args.output).map_err(plot_err)?;
        let text = std::fs::read_to_string(t)
            .map_err(|e| CliError::Usage(format!("{}: {}", t.display(), zonekit_core::io_text(&e))))?;
        let fig = zonekit_plot::table::figure(&t.display().to_string(), &text, &args.title, "write bandwidth (MB/s)")
            .map_err(plot_err)?;
        zonekit_plot::draw::write_figure(&fig, &args.output).map_err(plot_err)?;
        return output(writeln!(out, "{}", args.output.display()));
    }
    plot_files(&args.files, &args.output, &mut std::io::stderr())?;
    output(writeln!(out, "{}", args.output.display()))
}

/// Draw the map of `dev` into `path`.
pub fn map_device(dev: &DevArg, path: &Path) -> CliResult {
    zonekit_plot::ImageFormat::of(path).map_err(plot_err)?;
    let blk = dev.open_blk(false)?;
    let n = blk.info().geometry.nr_zones;
    let mut zones = Vec::new();
    crate::report::for_each_batch(&blk, 0, n, |b| {
        zones.extend_from_slice(b);
        Ok(())
    })
    .map_err(|e| CliError::blk(format!("{}: report zones", dev.dev), &e))?
    .map_err(|e| CliError::Failed(format!("{}: report zones: {e}", dev.dev)))?;
    let m = zonekit_plot::map::layout(&format!("zones of {}", dev.dev), &zones);
    zonekit_plot::map::write_map(&m, path).map_err(plot_err)
}

/// `zonekit map`.
pub fn map(args: &MapArgs, out: &mut impl Write) -> CliResult {
    map_device(&args.dev, &args.output)?;
    output(writeln!(out, "{}", args.output.display()))
}
