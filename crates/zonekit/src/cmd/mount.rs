//! `zonekit mount DEV DIR`: mount a zonefs volume through FUSE (as root, without fusermount3),
//! and `zonekit fs stats|inject MNT`, which talk to a running mount through its control socket.

use super::DevArg;
use super::mkfs::fs_error;
use crate::error::{CliError, CliResult, output};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use zonekit_blk::BlockDevice;
use zonekit_core::ZonedDevice;
use zonekit_fs::fault::FaultDevice;
use zonekit_fs::mount::{ServeOptions, request, serve};
use zonekit_fs::{MountOptions, Volume};

/// Set in the daemon started by a background mount: it prints `ready` once mounted.
const NOTIFY_ENV: &str = "ZONEKIT_MOUNT_NOTIFY";

/// Arguments of `zonekit mount`.
#[derive(Debug, clap::Args)]
pub struct MountArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// The mount point (an existing directory).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Mount options, comma-separated: errors=remount-ro|zone-ro|zone-offline|repair,
    /// explicit-open, ro, rw.
    #[arg(short = 'o', value_name = "OPTIONS", default_value = "")]
    pub options: String,
    /// Stay in the foreground until unmounted (`umount DIR`, Ctrl-C or SIGTERM); without it the
    /// command returns once the volume is mounted and a daemon serves it.
    #[arg(short = 'f', long)]
    pub foreground: bool,
}

/// Arguments of `zonekit fs stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// A zonekit mount point (or any path inside it).
    #[arg(value_name = "MNT")]
    pub mnt: PathBuf,
}

/// Arguments of `zonekit fs inject`.
#[derive(Debug, clap::Args)]
pub struct InjectArgs {
    /// A zonekit mount point (or any path inside it).
    #[arg(value_name = "MNT")]
    pub mnt: PathBuf,
    /// The file whose zone gets the fault, relative to the volume's root (`seq/0`).
    #[arg(value_name = "FILE")]
    pub file: String,
    /// read-only | offline (the zone's condition changes on the emulated device), fail-write (the
    /// next write to the zone fails with EIO), move-wp BYTES (BYTES written at the zone's write
    /// pointer behind the file system's back).
    #[arg(value_name = "FAULT")]
    pub fault: String,
    /// The byte count of move-wp.
    #[arg(value_name = "BYTES")]
    pub bytes: Option<String>,
}

/// Open the device for a mount, keeping the emulated device (if it is one) for fault injection.
fn open_device(dev: &DevArg) -> CliResult<Arc<FaultDevice>> {
    let path = Path::new(&dev.dev);
    if dev.zone_size.is_none() && path.is_dir() {
        // The device keeps its directory's path: make it absolute, as the daemon leaves the
        // caller's working directory.
        let abs = path.canonicalize().map_err(|e| CliError::Failed(format!("{}: {e}", dev.dev)))?;
        let emu = zonekit_dev::persistent::open_dir(&abs, &dev.dev, true)
            .map_err(|e| CliError::open(zonekit_dev::OpenError::Device(e)))?;
        return Ok(Arc::new(FaultDevice::emulated(Arc::new(emu))));
    }
    let d: Arc<dyn ZonedDevice> = Arc::from(dev.open(true)?);
    Ok(Arc::new(FaultDevice::new(d)))
}

/// `zonekit mount`.
pub fn run(args: &MountArgs) -> CliResult {
    let opts = MountOptions::parse(&args.options).map_err(|e| CliError::Usage(format!("-o {}: {e}", args.options)))?;
    if !args.dir.is_dir() {
        return Err(CliError::Failed(format!("{}: not a directory (ENOTDIR)", args.dir.display())));
    }
    if !args.foreground {
        return daemonize();
    }
    let dir = args.dir.canonicalize().map_err(|e| CliError::Failed(format!("{}: {e}", args.dir.display())))?;
    let dev = open_device(&args.dev)?;
    let d: Arc<dyn ZonedDevice> = dev.clone();
    let vol = Volume::mount(BlockDevice::new(d), opts).map_err(|e| fs_error(&args.dev.dev, &e))?;
    // A daemon keeps no directory busy (a file system holding the caller's working directory
    // could not be unmounted while it runs).
    let _ = std::env::set_current_dir("/");
    let notify = std::env::var_os(NOTIFY_ENV).is_some();
    serve(vol, dev, &dir, &ServeOptions::default(), || {
        if notify {
            let mut o = std::io::stdout();
            let _ = writeln!(o, "ready");
            let _ = o.flush();
        }
    })
    .map_err(|e| fs_error(&args.dev.dev, &e))
}

/// Start this command again in the foreground as a daemon in its own process group, and return
/// once it has mounted (its `ready` line), or fail with its error line and exit code.
fn daemonize() -> CliResult {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().map_err(|e| CliError::Failed(format!("finding zonekit's executable: {e}")))?;
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    args.push("--foreground".into());
    let mut child = Command::new(exe)
        .args(args)
        .env(NOTIFY_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| CliError::Failed(format!("starting the mount daemon: {e}")))?;
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = BufReader::new(out).read_line(&mut line);
    }
    if line.trim() == "ready" {
        return Ok(());
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let code = child.wait().ok().and_then(|s| s.code()).unwrap_or(1);
    let first = err.lines().next().unwrap_or("zonekit: the mount daemon ended before mounting");
    let msg = first.strip_prefix("zonekit: ").unwrap_or(first).to_string();
    Err(if code == 2 { CliError::Usage(msg) } else { CliError::Failed(msg) })
}

/// `zonekit fs stats`: the running mount's `/sys/fs/zonefs/<dev>/` counters, one `name value`
/// per line, and `read_only 0|1` (whether errors=remount-ro made the volume read-only).
pub fn stats(args: &StatsArgs, w: &mut impl Write) -> CliResult {
    let lines = request(&args.mnt, "stats").map_err(|e| fs_error(&args.mnt.display().to_string(), &e))?;
    for l in lines {
        output(writeln!(w, "{l}"))?;
    }
    Ok(())
}

/// `zonekit fs inject`: a fault in a file's zone of a running mount.
pub fn inject(args: &InjectArgs) -> CliResult {
    let mut line = format!("inject {} {}", args.file, args.fault);
    if let Some(b) = &args.bytes {
        line.push(' ');
        line.push_str(b);
    }
    if line.lines().count() != 1 {
        return Err(CliError::Usage("inject: arguments must not hold a newline".into()));
    }
    let mnt = args.mnt.display().to_string();
    request(&args.mnt, &line).map(|_| ()).map_err(|e| match e.errno() {
        // A fault or a file the volume does not know is bad input.
        zonekit_core::Errno::EINVAL => CliError::Usage(format!("{mnt}: {e}")),
        _ => fs_error(&mnt, &e),
    })
}
