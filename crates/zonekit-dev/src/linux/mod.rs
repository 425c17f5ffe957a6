//! Linux zoned block devices. PLACEHOLDER: being implemented by the Linux-backend helper.

use std::path::Path;
use zonekit_core::DeviceError;

/// Whether the block device at `path` is zoned (sysfs `queue/zoned` is not `none`).
pub fn is_zoned(_path: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// A Linux zoned block device.
pub struct LinuxDevice;

impl LinuxDevice {
    /// Open a zoned block device.
    pub fn open(_path: &Path, spec: &str, _writable: bool) -> Result<crate::emulated::EmulatedDevice, DeviceError> {
        Err(DeviceError::Unsupported(format!("{spec}: Linux zoned block devices are not implemented yet")))
    }
}
