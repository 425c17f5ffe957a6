//! What a job's file names point at: a path (a regular file or a block device, which fio's
//! engines serve through file descriptors) or one of zonekit's own devices (`@PROFILE`, or a
//! directory made by `zonekit dev create`), which the in-process engine serves.
//!
//! A device is opened once per run and shared by every job that names it, as one disk is shared
//! by fio's jobs (a device directory is locked while it is open: a second open would fail).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use zonekit_core::ZonedDevice;
use zonekit_dev::{OpenError, OpenOptions};

use crate::options::job::JobOptions;

/// Whether `name` names one of zonekit's devices: `@PROFILE`, or a directory holding a
/// device's metadata.
pub fn is_device_spec(name: &str) -> bool {
    name.starts_with('@') || is_device_dir(Path::new(name))
}

/// Whether `path` is a directory holding a zonekit device.
pub fn is_device_dir(path: &Path) -> bool {
    path.is_dir() && path.join(zonekit_dev::persistent::META_FILE).exists()
}

/// fio engines that the in-process engine stands in for on zonekit's devices, and whether each
/// is synchronous there (`null` does no I/O at all, as in fio).
pub const DEVICE_ENGINES: &[(&str, bool)] = &[
    ("libaio", false),
    ("io_uring", false),
    ("psync", true),
    ("sync", true),
    ("sg", true),
    ("libzbc", true),
    ("posixaio", false),
    ("splice", true),
    ("null", false),
];

/// fio engines that work on what an emulated device does not have, and why each is refused on
/// one: they call into a file's metadata or map its pages, and a zoned device in process has
/// neither a page cache nor a file system.
pub const FILE_ONLY_ENGINES: &[(&str, &str)] = &[
    ("mmap", "maps the file's pages (write-back would write a zoned device's sequential zones out of order)"),
    ("falloc", "calls fallocate(2) on a file"),
    ("ftruncate", "calls ftruncate(2) on a file"),
    ("e4defrag", "moves a file's blocks with ext4's EXT4_IOC_MOVE_EXT"),
    ("filecreate", "creates files"),
    ("filestat", "calls stat(2) on files"),
    ("filedelete", "deletes files"),
];

/// Engines that only make sense on zonekit's devices (SCSI passthrough and libzbc have no meaning
/// for a regular file).
pub const DEVICE_ONLY_ENGINES: &[&str] = &["sg", "libzbc"];

/// Why a job's targets cannot be used: one line, and whether it is bad input (exit 2) or a
/// device that failed to open (exit 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetError {
    /// The message.
    pub message: String,
    /// Bad input (exit 2) rather than a failure (exit 1).
    pub usage: bool,
}

/// The devices of a run, by the name jobs give them.
#[derive(Default)]
pub struct Devices {
    open: HashMap<String, Arc<dyn ZonedDevice>>,
}

impl Devices {
    /// No device yet.
    pub fn new() -> Devices {
        Devices::default()
    }

    /// The device `name` names, opened on first use.
    pub fn get(&mut self, name: &str) -> Result<Arc<dyn ZonedDevice>, TargetError> {
        if let Some(d) = self.open.get(name) {
            return Ok(d.clone());
        }
        let opts = OpenOptions { writable: true, ..OpenOptions::default() };
        let dev: Arc<dyn ZonedDevice> = zonekit_dev::open(name, &opts)
            .map_err(|e: OpenError| TargetError { usage: e.is_usage(), message: open_error(name, &e) })?
            .into();
        self.open.insert(name.to_string(), dev.clone());
        Ok(dev)
    }

    /// The device `name` names, if it is open.
    pub fn opened(&self, name: &str) -> Option<&Arc<dyn ZonedDevice>> {
        self.open.get(name)
    }

    /// Every device opened, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Arc<dyn ZonedDevice>)> {
        self.open.iter()
    }

    /// Check a job's files and engine against what they name, and open its devices: a job works
    /// either on zonekit's devices or on paths, with an engine that suits them.
    pub fn check_job(&mut self, o: &JobOptions, names: &[String]) -> Result<(), TargetError> {
        let usage = |message: String| TargetError { message, usage: true };
        if let Some(why) = crate::options::engines::net_job_problem(o) {
            return Err(usage(format!("job {}: ioengine={}: {why}", o.name, o.ioengine)));
        }
        for d in o.directories() {
            if is_device_dir(Path::new(&d)) {
                return Err(usage(format!(
                    "job {}: directory={d}: this is a zonekit device (the benchmark would create its files inside it); name it with filename= instead",
                    o.name
                )));
            }
        }
        // A file inside a device directory (its metadata, a zone file) would be laid out and
        // written over behind the device's back.
        let dirs: Vec<String> = o.directories();
        for n in names.iter().filter(|n| !is_device_spec(n)) {
            let paths = std::iter::once(Path::new(n).to_path_buf()).chain(dirs.iter().map(|d| Path::new(d).join(n)));
            for p in paths {
                let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
                if is_device_dir(parent) {
                    return Err(usage(format!(
                        "job {}: filename={n}: a file of the zonekit device {}; name the device (filename={}) instead",
                        o.name,
                        parent.display(),
                        parent.display()
                    )));
                }
            }
        }
        let devices = names.iter().filter(|n| is_device_spec(n)).count();
        if devices == 0 {
            if DEVICE_ONLY_ENGINES.contains(&o.ioengine.as_str()) {
                return Err(usage(format!(
                    "job {}: ioengine={}: runs only on zonekit's emulated devices (@PROFILE or a device directory), not on {}",
                    o.name,
                    o.ioengine,
                    names.first().map_or("a file", String::as_str)
                )));
            }
            return Ok(());
        }
        if devices != names.len() {
            return Err(usage(format!(
                "job {}: filename={}: a job cannot mix zonekit devices and files",
                o.name,
                names.join(":")
            )));
        }
        if let Some((_, why)) = FILE_ONLY_ENGINES.iter().find(|(e, _)| *e == o.ioengine) {
            return Err(usage(format!(
                "job {}: ioengine={}: not available on zonekit's emulated devices: it {why}; use it on a file",
                o.name, o.ioengine
            )));
        }
        if !DEVICE_ENGINES.iter().any(|(e, _)| *e == o.ioengine) {
            let list: Vec<&str> = DEVICE_ENGINES.iter().map(|(e, _)| *e).collect();
            return Err(usage(format!(
                "job {}: ioengine={}: not available on zonekit's emulated devices (their I/O runs in process for {})",
                o.name,
                o.ioengine,
                list.join(", ")
            )));
        }
        for n in names {
            self.get(n)?;
        }
        Ok(())
    }
}

/// Whether the in-process engine runs synchronously for fio engine `name`.
pub fn device_engine_is_sync(name: &str) -> bool {
    DEVICE_ENGINES.iter().find(|(e, _)| *e == name).is_some_and(|(_, sync)| *sync)
}

/// The line for a device spec that did not open: named once (most errors name the path
/// themselves), and a device that failed ends with its errno's name, as the zone tools say it.
fn open_error(name: &str, e: &OpenError) -> String {
    let text = match e {
        OpenError::Device(d) if !e.is_usage() => format!("{} ({})", d.message(), d.errno_tag()),
        other => other.to_string(),
    };
    if text.starts_with(name) { text } else { format!("{name}: {text}") }
}
