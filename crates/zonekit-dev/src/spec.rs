//! Device specs: what a user types to name a device, and `open` which turns one into a device.
//!
//! - `@PROFILE`: a fresh instance of a built-in profile with the `none` store, for one command;
//! - a directory made by `zonekit dev create`: a persistent emulated device;
//! - a regular file or a non-zoned block device, with a zone size: fio's zone emulation;
//! - a zoned block device (`/dev/nullb0`, `/dev/sdX`, `/dev/nvmeXnY`): the kernel's zones.

use crate::emulated::EmulatedDevice;
use crate::profiles::profile;
use crate::store::NoneStore;
use std::fs::OpenOptions as FsOpenOptions;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use zonekit_core::{DeviceError, DeviceKind, ZonedDevice};

/// How to open a device spec.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// Zone size in bytes, for regular files and non-zoned block devices.
    pub zone_size: Option<u64>,
    /// Zone capacity in bytes, with `zone_size`.
    pub zone_capacity: Option<u64>,
    /// Open for writing (zone management and writes need it).
    pub writable: bool,
    /// Open a Linux zoned block device for writing without `O_EXCL`, so that a device the system
    /// uses (a mounted file system) can be changed, as blkzone's `--force` does. Emulated devices
    /// ignore it: their lock is always taken.
    pub shared: bool,
}

/// Why a spec could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// `@NAME` with no such profile.
    #[error("unknown profile '{0}' (`zonekit profiles` lists them)")]
    UnknownProfile(String),
    /// The path does not exist.
    #[error("{0}: no such file or directory")]
    Missing(String),
    /// A file or block device that is not zoned, and no zone size given.
    #[error("{0}: not a zoned block device (give a zone size to emulate zones on it)")]
    NotZoned(String),
    /// An option that does not fit the spec (e.g. a zone size for an emulated device).
    #[error("{0}")]
    BadOption(String),
    /// Opening the device failed (I/O, corrupt metadata).
    #[error(transparent)]
    Device(#[from] DeviceError),
}

impl OpenError {
    /// Whether the user named the device wrongly (exit code 2) rather than the device failing (1).
    pub fn is_usage(&self) -> bool {
        !matches!(self, OpenError::Device(DeviceError::Io { .. } | DeviceError::Corrupt(_)))
    }
}

/// Open a device spec.
pub fn open(spec: &str, opts: &OpenOptions) -> Result<Box<dyn ZonedDevice>, OpenError> {
    if let Some(name) = spec.strip_prefix('@') {
        let p = profile(name).ok_or_else(|| OpenError::UnknownProfile(name.to_string()))?;
        if opts.zone_size.is_some() {
            return Err(OpenError::BadOption(format!(
                "{spec}: a profile has its own zone size; --zone-size is for files and block devices"
            )));
        }
        let kind = DeviceKind::Emulated { store: "none".into(), profile: Some(p.name.to_string()) };
        return Ok(Box::new(EmulatedDevice::new(spec, kind, &p.config(), Box::new(NoneStore))));
    }
    let path = Path::new(spec);
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(OpenError::Missing(spec.to_string())),
        // Paths that cannot name anything: the spec is wrong, nothing failed.
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            return Err(OpenError::BadOption(format!(
                "{spec}: no such file or directory (a part of the path is not a directory)"
            )));
        }
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(OpenError::BadOption(format!("{spec}: too many levels of symbolic links")));
        }
        Err(e) if e.raw_os_error() == Some(libc::ENAMETOOLONG) => {
            return Err(OpenError::BadOption(format!("{spec}: file name too long")));
        }
        Err(e) => return Err(DeviceError::io(spec, e).into()),
    };
    if meta.is_dir() {
        if opts.zone_size.is_some() {
            return Err(OpenError::BadOption(format!(
                "{spec}: an emulated device has its own zone size; --zone-size is for files and block devices"
            )));
        }
        return Ok(Box::new(crate::persistent::open_dir(path, spec, opts.writable)?));
    }
    let is_blk = meta.file_type().is_block_device();
    if meta.is_file() {
        // A zone file or the metadata of a device directory, opened as a plain file, would be
        // written behind the device's back (and its lock).
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if dir.join(crate::persistent::META_FILE).is_file() {
            return Err(OpenError::BadOption(format!(
                "{spec}: a file of the zonekit device {}: name the device directory instead",
                dir.display()
            )));
        }
    }
    if !is_blk && !meta.is_file() {
        let what = special_file_kind(&meta.file_type());
        return Err(OpenError::BadOption(match opts.zone_size {
            Some(_) => format!("{spec}: {what}: zones are emulated on regular files and block devices only"),
            None => format!("{spec}: {what}, not a zoned block device, a device directory or a regular file"),
        }));
    }
    if is_blk && opts.zone_size.is_none() {
        if crate::linux::is_zoned(path).map_err(|e| DeviceError::io(spec, e))? {
            return Ok(Box::new(crate::linux::LinuxDevice::open_with(path, spec, opts.writable, !opts.shared)?));
        }
        return Err(OpenError::NotZoned(spec.to_string()));
    }
    let Some(zone_size) = opts.zone_size else {
        return Err(OpenError::NotZoned(spec.to_string()));
    };
    let mut file =
        FsOpenOptions::new().read(true).write(opts.writable).open(path).map_err(|e| DeviceError::io(spec, e))?;
    let size = if is_blk { file.seek(SeekFrom::End(0)).map_err(|e| DeviceError::io(spec, e))? } else { meta.len() };
    let dev = crate::file::open_file_zoned(spec, file, size, zone_size, opts.zone_capacity).map_err(|e| match e {
        DeviceError::Unsupported(m) => OpenError::BadOption(m),
        other => OpenError::Device(other),
    })?;
    Ok(Box::new(dev))
}

/// What a path that is neither a regular file, a directory nor a block device is.
fn special_file_kind(t: &std::fs::FileType) -> &'static str {
    if t.is_char_device() {
        "a character device"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}
