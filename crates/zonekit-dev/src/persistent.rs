//! Persistent emulated devices (directory layout of the kernel's zoned loop driver).
//! PLACEHOLDER: being implemented; see the task of the persistence helper.

use crate::emulated::EmulatedDevice;
use std::path::Path;
use zonekit_core::DeviceError;

/// Open a persistent emulated device directory.
pub fn open_dir(_path: &Path, spec: &str) -> Result<EmulatedDevice, DeviceError> {
    Err(DeviceError::Unsupported(format!("{spec}: persistent devices are not implemented yet")))
}
