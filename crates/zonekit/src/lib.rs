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

/// zonekit: the Linux zoned-storage stack in userspace. Emulated zoned devices (SMR disks, ZNS
/// SSDs, null_blk) with the kernel's zone state machine, and zone tools in blkzone's and
/// zbc_report_zones' formats.
#[derive(Debug, Parser)]
#[command(name = "zonekit", version, about, long_about = None, disable_help_subcommand = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create and describe devices.
    #[command(subcommand)]
    Dev(DevCommand),
    /// Zone tools: report, reset, open, close, finish (blkzone's options), write, read.
    #[command(subcommand)]
    Zone(ZoneCommand),
    /// List the built-in device profiles (use them as @NAME).
    Profiles(cmd::profiles::ProfilesArgs),
    /// Format a device as zonefs (the kernel's on-disk format), as mkzonefs does.
    Mkfs(cmd::mkfs::MkfsArgs),
    /// Read a zonefs volume without mounting it: ls, stat, cat.
    #[command(subcommand)]
    Fs(FsCommand),
    /// A fio-compatible benchmark: fio's job files, command line and output formats
    /// (`zonekit bench --help` for the options, `zonekit bench --cmdhelp=OPT` for one).
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Bench {
        /// fio's arguments: job files, `--name=JOB --rw=… --bs=…`, `--output-format=…`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
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
}

#[derive(Debug, Subcommand)]
enum ZoneCommand {
    /// Report zones (blkzone report's format by default).
    Report(cmd::zone::ReportArgs),
    /// Reset the write pointer of a range of zones.
    Reset(cmd::zone::MgmtArgs),
    /// Explicitly open a range of zones.
    Open(cmd::zone::MgmtArgs),
    /// Close a range of zones.
    Close(cmd::zone::MgmtArgs),
    /// Finish a range of zones (make them full).
    Finish(cmd::zone::MgmtArgs),
    /// Write a byte pattern (at the write pointer, in a sequential zone).
    Write(cmd::zone::WriteArgs),
    /// Read raw bytes to standard output.
    Read(cmd::zone::ReadArgs),
}

fn dispatch(cli: Cli, out: &mut impl Write) -> CliResult {
    match cli.command {
        Command::Dev(DevCommand::Create(a)) => cmd::dev::create(&a, out),
        Command::Dev(DevCommand::Info(a)) => cmd::dev::info(&a, out),
        Command::Profiles(a) => cmd::profiles::run(&a, out),
        Command::Mkfs(a) => cmd::mkfs::run(&a, out),
        Command::Fs(FsCommand::Ls(a)) => cmd::fs::ls(&a, out),
        Command::Fs(FsCommand::Stat(a)) => cmd::fs::stat(&a, out),
        Command::Fs(FsCommand::Cat(a)) => cmd::fs::cat(&a, out),
        Command::Bench { args } => {
            let mut err = std::io::stderr();
            match zonekit_bench::cli::main(&args, out, &mut err) {
                0 => Ok(()),
                code => Err(CliError::Exit(code)),
            }
        }
        Command::Zone(z) => match z {
            ZoneCommand::Report(a) => cmd::zone::report(&a, out),
            ZoneCommand::Reset(a) => cmd::zone::manage(ZoneOp::Reset, &a, out),
            ZoneCommand::Open(a) => cmd::zone::manage(ZoneOp::Open, &a, out),
            ZoneCommand::Close(a) => cmd::zone::manage(ZoneOp::Close, &a, out),
            ZoneCommand::Finish(a) => cmd::zone::manage(ZoneOp::Finish, &a, out),
            ZoneCommand::Write(a) => cmd::zone::write(&a),
            ZoneCommand::Read(a) => cmd::zone::read(&a, out),
        },
    }
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
/// the exit code (DESIGN.md §2).
pub fn run_to(args: impl IntoIterator<Item = OsString>, out: &mut impl Write, err: &mut impl Write) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = write!(out, "{text}");
                    return 0;
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = write!(err, "{text}");
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
