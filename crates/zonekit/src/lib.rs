//! The `zonekit` command, as a library so that every piece of it is reachable from tests; the
//! binary (`main.rs`) only calls [`run`].

pub mod cmd;
pub mod error;
pub mod report;
pub mod units;

use clap::{Parser, Subcommand};
use error::{CliError, CliResult};
use std::ffi::OsString;
use std::io::Write;
use zonekit_core::ZoneOp;

/// The Linux zoned-storage stack in userspace: zoned devices, zone tools, zonefs and a
/// fio-compatible benchmark.
///
/// Emulated zoned devices (host-managed SMR disks, NVMe ZNS SSDs, null_blk) with the kernel's zone
/// state machine, Linux zoned block devices and regular files with emulated zones; zone tools in
/// blkzone's and zbc_report_zones' formats; zonefs volumes (mkfs, and fs to read them); a
/// fio-compatible benchmark with fio's zone mode. A
/// device is named by a spec: @PROFILE (`zonekit profiles`), a directory made by `zonekit dev
/// create`, /dev/sdX or /dev/nvmeXnY, or a regular file with --zone-size.
#[derive(Debug, Parser)]
#[command(name = "zonekit", version, disable_help_subcommand = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create and describe devices.
    #[command(subcommand)]
    Dev(DevCommand),
    /// Zone tools: report, capacity, reset, open, close, finish (blkzone's options), write, read,
    /// append, inject.
    #[command(subcommand)]
    Zone(ZoneCommand),
    /// List the built-in device profiles (use them as @NAME).
    Profiles(cmd::profiles::ProfilesArgs),
    /// Format a device as zonefs (the kernel's on-disk format), as mkzonefs does.
    Mkfs(cmd::mkfs::MkfsArgs),
    /// zonefs volumes: read one without mounting it (ls, stat, cat); a running mount's counters
    /// (stats) and fault injection (inject).
    #[command(subcommand)]
    Fs(FsCommand),
    /// Mount a zonefs volume through FUSE (as root): `umount DIR`, Ctrl-C or SIGTERM unmount it.
    Mount(cmd::mount::MountArgs),
    /// A fio-compatible benchmark: fio's job files, command line and output formats
    /// (`zonekit bench --help` for the options, `zonekit bench --cmdhelp=OPT` for one).
    /// With `--plot DIR` (zonekit's own option), the run's plots and the device's map are
    /// written to DIR at the end (docs/plots.md).
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Bench {
        /// fio's arguments: job files, `--name=JOB --rw=… --bs=…`, `--output-format=…`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to standard output.
    Completions(cmd::shell::CompletionsArgs),
    /// Write the manual pages (zonekit.1 and one per subcommand) into a directory.
    Man(cmd::shell::ManArgs),
    /// Plot a benchmark run: bandwidth, IOPS and latency over time, latency distribution (fio's
    /// JSON and log files); several results side by side.
    #[cfg(feature = "plot")]
    Plot(cmd::plot::PlotArgs),
    /// Draw a device's zones: one cell per zone, coloured by condition, filled to the write pointer.
    #[cfg(feature = "plot")]
    Map(cmd::plot::MapArgs),
}

#[derive(Debug, Subcommand)]
enum DevCommand {
    /// Create a persistent emulated device in a directory, from a profile or a geometry.
    Create(cmd::dev::CreateArgs),
    /// Describe a device: geometry, limits, zone conditions.
    Info(cmd::dev::InfoArgs),
}

#[derive(Debug, Subcommand)]
enum FsCommand {
    /// List a directory of the volume (inode, mode, links, uid, gid, size, name), or one file.
    Ls(cmd::fs::PathArgs),
    /// A file's or directory's attributes; for the root, the volume's too.
    Stat(cmd::fs::PathArgs),
    /// Write a file's contents to standard output.
    Cat(cmd::fs::CatArgs),
    /// The counters of a running mount (`/sys/fs/zonefs/<dev>/`'s attributes).
    Stats(cmd::mount::StatsArgs),
    /// Inject a fault into a file's zone under a running mount (emulated devices).
    Inject(cmd::mount::InjectArgs),
}

#[derive(Debug, Subcommand)]
enum ZoneCommand {
    /// Report zones (blkzone report's format by default).
    Report(cmd::zone::ReportArgs),
    /// Sum of the zone capacities of a range, in sectors (blkzone capacity: 0x%09x).
    Capacity(cmd::zone::CapacityArgs),
    /// Reset the write pointer of a range of zones.
    #[command(mut_arg("all", |a| a.help(RESET_ALL)))]
    Reset(cmd::zone::MgmtArgs),
    /// Explicitly open a range of zones.
    #[command(mut_arg("all", |a| a.help(OPEN_ALL)))]
    Open(cmd::zone::MgmtArgs),
    /// Close a range of zones.
    #[command(mut_arg("all", |a| a.help(CLOSE_ALL)))]
    Close(cmd::zone::MgmtArgs),
    /// Finish a range of zones (make them full).
    #[command(mut_arg("all", |a| a.help(FINISH_ALL)))]
    Finish(cmd::zone::MgmtArgs),
    /// Write at a sector (the write pointer, in a sequential zone): a fill byte, a file, or stdin.
    Write(cmd::zone::WriteArgs),
    /// Read raw bytes to standard output or a file.
    Read(cmd::zone::ReadArgs),
    /// Zone append: write to a zone at its write pointer and print the sector the data landed at
    /// (native on null_blk and NVMe, emulated on SCSI, as the kernel does).
    Append(cmd::zone::AppendArgs),
    /// Inject a fault (read-only, offline, fail-next-write, move-wp=N) into zones of a persistent
    /// emulated device, or clear it.
    Inject(cmd::zone::InjectArgs),
}

/// `--all` of `zone reset`.
const RESET_ALL: &str = "The whole device (the default when no range is given): one reset-all, as the kernel \
turns blkzone's whole-device BLKRESETZONE into, which skips conventional, empty, read-only and offline zones.";
/// `--all` of `zone open`.
const OPEN_ALL: &str = "The whole device (the default when no range is given), one zone at a time as the kernel \
does with blkzone's single BLKOPENZONE: nothing is skipped, so conventional zones and zones past the open limit \
fail (exit 1) while the others open. Use -o to start at the first sequential zone.";
/// `--all` of `zone close`.
const CLOSE_ALL: &str = "The whole device (the default when no range is given), one zone at a time as the kernel \
does with blkzone's single BLKCLOSEZONE: nothing is skipped, so conventional zones fail (exit 1), and so do empty \
and full zones on null_blk and ZNS devices (SCSI takes them), while open zones close.";
/// `--all` of `zone finish`.
const FINISH_ALL: &str = "The whole device (the default when no range is given), one zone at a time as the kernel \
does with blkzone's single BLKFINISHZONE: nothing is skipped, so conventional zones fail (exit 1) while every \
other zone becomes full (on null_blk, empty and closed zones within the open and active limits).";

fn dispatch(cli: Cli, out: &mut impl Write) -> CliResult {
    match cli.command {
        Command::Dev(DevCommand::Create(a)) => cmd::dev::create(&a, out),
        Command::Dev(DevCommand::Info(a)) => cmd::dev::info(&a, out),
        Command::Profiles(a) => cmd::profiles::run(&a, out),
        Command::Mkfs(a) => cmd::mkfs::run(&a, out),
        Command::Fs(FsCommand::Ls(a)) => cmd::fs::ls(&a, out),
        Command::Fs(FsCommand::Stat(a)) => cmd::fs::stat(&a, out),
        Command::Fs(FsCommand::Cat(a)) => cmd::fs::cat(&a, out),
        Command::Fs(FsCommand::Stats(a)) => cmd::mount::stats(&a, out),
        Command::Fs(FsCommand::Inject(a)) => cmd::mount::inject(&a),
        Command::Mount(a) => cmd::mount::run(&a),
        Command::Completions(a) => cmd::shell::completions(&a, out),
        Command::Man(a) => cmd::shell::man(&a, out),
        Command::Bench { args } => cmd::bench_plot::bench(args, out),
        #[cfg(feature = "plot")]
        Command::Plot(a) => cmd::plot::plot(&a, out),
        #[cfg(feature = "plot")]
        Command::Map(a) => cmd::plot::map(&a, out),
        Command::Zone(z) => match z {
            ZoneCommand::Report(a) => cmd::zone::report(&a, out),
            ZoneCommand::Reset(a) => cmd::zone::manage(ZoneOp::Reset, &a, out),
            ZoneCommand::Open(a) => cmd::zone::manage(ZoneOp::Open, &a, out),
            ZoneCommand::Close(a) => cmd::zone::manage(ZoneOp::Close, &a, out),
            ZoneCommand::Finish(a) => cmd::zone::manage(ZoneOp::Finish, &a, out),
            ZoneCommand::Capacity(a) => cmd::zone::capacity(&a, out),
            ZoneCommand::Write(a) => cmd::zone::write(&a, out),
            ZoneCommand::Read(a) => cmd::zone::read(&a, out),
            ZoneCommand::Append(a) => cmd::zone::append(&a, out),
            ZoneCommand::Inject(a) => cmd::zone::inject(&a, out),
        },
    }
}

/// The one line for a command given without its subcommand (`zonekit zone`): which ones it takes,
/// and where the help is, instead of the whole help on stderr.
fn missing_subcommand(args: &[OsString]) -> String {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut path = Vec::new();
    for a in args.iter().skip(1) {
        let Some(a) = a.to_str() else { break };
        match cmd.find_subcommand(a) {
            Some(sub) => {
                path.push(a.to_string());
                cmd = sub.clone();
            }
            None => break,
        }
    }
    let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
    let help = std::iter::once("zonekit").chain(path.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
    let what = if path.is_empty() { String::new() } else { format!("{}: ", path.join(" ")) };
    format!("{what}a subcommand is required: {} (`{help} --help` describes them)", names.join(", "))
}

/// Run the command line `args` (program name first), writing to stdout and stderr; returns the
/// exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> i32 {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let code = run_to(args, &mut out, &mut std::io::stderr());
    drop(out);
    code
}

/// Run the command line `args`, writing its output to `out` and its error line to `err`; returns
/// the exit code (docs/architecture.md, "Errors and exit codes").
pub fn run_to(args: impl IntoIterator<Item = OsString>, out: &mut impl Write, err: &mut impl Write) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    // Help that cannot be written (`> /dev/full`) is a failure, as any output is.
                    return match error::output(write!(out, "{text}").and_then(|()| out.flush())) {
                        Ok(()) => 0,
                        Err(CliError::Failed(m)) if m.is_empty() => 0,
                        Err(e) => {
                            let _ = writeln!(err, "{e}");
                            e.exit_code()
                        }
                    };
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = writeln!(err, "zonekit: {}", missing_subcommand(&args));
                    return 2;
                }
                _ => {}
            }
            // clap's first paragraph, on one line ("the following required arguments were not
            // provided: --zones <N>"); its tips and usage are left out.
            let para: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
            let line = para.join(" ");
            let line = line.strip_prefix("error: ").unwrap_or(&line);
            let _ = writeln!(err, "zonekit: {}", if line.is_empty() { "invalid command line" } else { line });
            return 2;
        }
    };
    let r = dispatch(cli, out).and_then(|()| error::output(out.flush()));
    match r {
        Ok(()) => 0,
        Err(CliError::Failed(m)) if m.is_empty() => 0,
        Err(CliError::Exit(code)) => code,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            e.exit_code()
        }
    }
}
