//! A running mount: the FUSE session, its control socket, and a clean end.
//!
//! [`serve`] mounts a volume at a directory and runs until the directory is unmounted (`umount
//! DIR`) or the process gets `SIGINT`, `SIGTERM` or `SIGHUP` (then it unmounts the directory
//! itself, lazily, so that files still open do not keep it mounted). Either way the volume is
//! then unmounted and the device closed, so a persistent device keeps its zones' state.
//!
//! While it runs, a control socket answers `zonekit fs stats` and `zonekit fs inject`: it lives
//! in the runtime directory ([`runtime_dir`]) and is named after the mount's device number
//! (`fs/MAJOR:MINOR.sock`), as the kernel names `/sys/fs/zonefs/<dev>/`, so any path inside the
//! mount finds it. One request per connection, one line each way and then the answer:
//! `stats` → `name value` lines; `inject PATH FAULT [BYTES]` → nothing; then `ok`, or
//! `error ERRNO message`.

use crate::error::{FsError, FsResult};
use crate::fault::{Fault, FaultDevice, inject};
use crate::fuse::ZonefsFuse;
use crate::volume::{Node, Volume};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use zonekit_core::Errno;

/// The directory of control sockets: `$ZONEKIT_RUNTIME_DIR`, else `/run/zonekit`.
pub fn runtime_dir() -> PathBuf {
    std::env::var_os("ZONEKIT_RUNTIME_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/run/zonekit"))
}

/// The control socket of the mount holding `path` (any path inside it).
pub fn control_socket(path: &Path) -> std::io::Result<PathBuf> {
    let dev = std::fs::metadata(path)?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    Ok(runtime_dir().join("fs").join(format!("{major}:{minor}.sock")))
}

fn io_err(what: &str, e: std::io::Error) -> FsError {
    let errno = Errno(e.raw_os_error().unwrap_or(libc::EIO));
    FsError::refused(errno, format!("{what}: {}", errno.description().unwrap_or("error")))
}

/// Send one request to the mount holding `path` and return the lines of its answer (`ok` and
/// `error` lines taken off; an `error` line becomes the error).
pub fn request(path: &Path, line: &str) -> FsResult<Vec<String>> {
    let sock = control_socket(path).map_err(|e| io_err("stat", e))?;
    let mut s = UnixStream::connect(&sock).map_err(|e| match e.raw_os_error() {
        Some(libc::ENOENT | libc::ECONNREFUSED) => {
            FsError::refused(Errno::ENOENT, format!("not a zonekit mount (no control socket {})", sock.display()))
        }
        _ => io_err(&sock.display().to_string(), e),
    })?;
    writeln!(s, "{line}").map_err(|e| io_err("control socket", e))?;
    let mut out = Vec::new();
    for l in BufReader::new(s).lines() {
        let l = l.map_err(|e| io_err("control socket", e))?;
        if l == "ok" {
            return Ok(out);
        }
        if let Some(rest) = l.strip_prefix("error ") {
            let (name, msg) = rest.split_once(' ').unwrap_or((rest, ""));
            return Err(FsError::refused(Errno::from_name(name).unwrap_or(Errno::EIO), msg.to_string()));
        }
        out.push(l);
    }
    Err(FsError::refused(Errno::EIO, "control socket: the mount ended the answer early"))
}

/// Answer one control request.
fn answer(vol: &Volume, dev: &FaultDevice, line: &str) -> FsResult<Vec<String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["stats"] => {
            let mut out: Vec<String> = vol.sysfs().attributes().iter().map(|(k, v)| format!("{k} {v}")).collect();
            out.push(format!("read_only {}", u8::from(vol.is_read_only())));
            Ok(out)
        }
        ["inject", path, action, rest @ ..] if rest.len() <= 1 => {
            let fault = Fault::parse(action, rest.first().copied())?;
            let Node::File(id) = vol.lookup_path(path)? else {
                return Err(FsError::refused(Errno::EISDIR, format!("{path}: not a file")));
            };
            inject(vol, dev, id, fault)?;
            Ok(Vec::new())
        }
        _ => Err(FsError::refused(Errno::EINVAL, format!("unknown request '{line}'"))),
    }
}

fn serve_control(listener: UnixListener, vol: Arc<Volume>, dev: Arc<FaultDevice>, stop: Arc<AtomicBool>) {
    loop {
        let accepted = listener.accept();
        // serve() wakes this thread with a connection of its own once the mount has ended.
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok((s, _)) = accepted else { continue };
        let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
        let mut line = String::new();
        let mut r = BufReader::new(&s);
        if r.read_line(&mut line).is_err() {
            continue;
        }
        let mut w = &s;
        let _ = match answer(&vol, &dev, line.trim()) {
            Ok(lines) => lines.iter().try_for_each(|l| writeln!(w, "{l}")).and_then(|_| writeln!(w, "ok")),
            Err(e) => writeln!(w, "error {} {}", e.errno().name().unwrap_or("EIO"), e.to_string().replace('\n', " ")),
        };
    }
}

/// How [`serve`] mounts.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// Worker threads of the FUSE session (default 1: requests run in the order the kernel
    /// queued them, which keeps concurrent sequential writes in order).
    pub threads: Option<usize>,
}

/// Mount `vol` (over `dev`, the device's fault-injection decorator) at `dir` and serve it until
/// it is unmounted or a signal asks to stop; `ready` is called once it is mounted. Then unmount
/// the volume and close the device. Call it before starting other threads: it blocks
/// `SIGINT`, `SIGTERM` and `SIGHUP` in the calling thread so that every thread started after
/// inherits the mask and one thread waits for them.
pub fn serve(
    vol: Volume,
    dev: Arc<FaultDevice>,
    dir: &Path,
    opts: &ServeOptions,
    ready: impl FnOnce(),
) -> FsResult<()> {
    use nix::sys::signal::{SigSet, Signal};
    let mut signals = SigSet::empty();
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        signals.add(s);
    }
    signals.thread_block().map_err(|e| FsError::refused(Errno(e as i32), "blocking signals"))?;

    let vol = Arc::new(vol);
    let session = spawn(vol.clone(), dir, opts)?;

    let stop = Arc::new(AtomicBool::new(false));
    let sock = control_socket(dir).map_err(|e| io_err(&dir.display().to_string(), e))?;
    let control = sock
        .parent()
        .map(std::fs::create_dir_all)
        .transpose()
        .and_then(|_| {
            let _ = std::fs::remove_file(&sock);
            UnixListener::bind(&sock)
        })
        .map_err(|e| io_err(&format!("control socket {}", sock.display()), e));
    let control = match control {
        Ok(l) => l,
        Err(e) => {
            let _ = session.umount_and_join();
            return Err(e);
        }
    };
    let ctl = {
        let (vol, dev, stop) = (vol.clone(), dev.clone(), stop.clone());
        std::thread::spawn(move || serve_control(control, vol, dev, stop))
    };

    {
        let dir = dir.to_path_buf();
        std::thread::spawn(move || {
            if signals.wait().is_ok() {
                // A lazy unmount: the kernel ends the session once no file is open any more.
                let _ = nix::mount::umount2(&dir, nix::mount::MntFlags::MNT_DETACH);
            }
        });
    }
    ready();
    let joined = session.join();
    stop.store(true, Ordering::SeqCst);
    if UnixStream::connect(&sock).is_ok() {
        let _ = ctl.join();
    }
    let _ = std::fs::remove_file(&sock);
    joined.map_err(|e| io_err("FUSE session", e))?;
    finish(vol)
}

/// Mount `vol` at `dir` in a background session (the library's tests use it directly).
pub fn spawn(vol: Arc<Volume>, dir: &Path, opts: &ServeOptions) -> FsResult<fuser::BackgroundSession> {
    let mut cfg = fuser::Config::default();
    cfg.mount_options = vec![
        fuser::MountOption::FSName(vol.device().info().spec.clone()),
        fuser::MountOption::Subtype("zonefs".into()),
        fuser::MountOption::DefaultPermissions,
        fuser::MountOption::NoSuid,
        fuser::MountOption::NoDev,
    ];
    if vol.options().read_only {
        cfg.mount_options.push(fuser::MountOption::RO);
    }
    cfg.acl = fuser::SessionACL::All;
    cfg.n_threads = Some(opts.threads.unwrap_or(1).max(1));
    fuser::spawn_mount(ZonefsFuse::new(vol), dir, &cfg).map_err(|e| io_err(&format!("mount on {}", dir.display()), e))
}

/// Unmount the volume and close its device, once the session has given its reference back.
pub fn finish(vol: Arc<Volume>) -> FsResult<()> {
    // The session's threads are joined; the control thread too: the last reference is ours.
    let vol = Arc::try_unwrap(vol).map_err(|_| FsError::refused(Errno::EBUSY, "the volume is still in use"))?;
    let dev = vol.unmount()?;
    dev.close().map_err(|e| FsError::device("close", e))
}
