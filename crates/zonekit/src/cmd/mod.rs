//! One module per subcommand.

pub mod dev;
pub mod fs;
pub mod mkfs;
pub mod mount;
pub mod profiles;
pub mod shell;
pub mod zone;

use crate::error::{CliError, CliResult};
use crate::units;
use std::sync::Arc;
use zonekit_blk::BlockDevice;
use zonekit_core::ZonedDevice;
use zonekit_dev::OpenOptions;

/// Parse a fio-style byte size for clap.
pub fn size_arg(s: &str) -> Result<u64, String> {
    units::parse_bytes(s).map_err(|e| e.0)
}

/// Parse a blkzone-style sector count or suffixed byte size for clap.
pub fn sectors_arg(s: &str) -> Result<u64, String> {
    units::parse_sectors(s).map_err(|e| e.0)
}

/// The device argument shared by every command that takes one.
#[derive(Debug, clap::Args)]
pub struct DevArg {
    /// Device: @PROFILE (e.g. @smr-hm-15tb), an emulated device directory, a zoned block device,
    /// or a regular file / non-zoned block device with --zone-size.
    #[arg(value_name = "DEV")]
    pub dev: String,
    /// Emulate zones of this size (bytes, K/M/G suffixes) on a regular file or non-zoned block
    /// device, as fio's zonemode=zbd does: all zones sequential and empty at each open.
    #[arg(long, value_name = "SIZE", value_parser = size_arg)]
    pub zone_size: Option<u64>,
    /// Zone capacity with --zone-size (default: the zone size).
    #[arg(long, value_name = "SIZE", value_parser = size_arg, requires = "zone_size")]
    pub zone_capacity: Option<u64>,
}

impl DevArg {
    /// Open the device, for writing when `writable`.
    pub fn open(&self, writable: bool) -> CliResult<Box<dyn ZonedDevice>> {
        self.open_with(writable, false)
    }

    /// Open the device, for writing when `writable`; a Linux device opened for writing is opened
    /// without `O_EXCL` when `shared` (blkzone's `--force`).
    pub fn open_with(&self, writable: bool, shared: bool) -> CliResult<Box<dyn ZonedDevice>> {
        let opts = OpenOptions { zone_size: self.zone_size, zone_capacity: self.zone_capacity, writable, shared };
        zonekit_dev::open(&self.dev, &opts).map_err(CliError::open)
    }

    /// [`DevArg::open_blk`], without `O_EXCL` on a Linux device when `shared`.
    pub fn open_blk_with(&self, writable: bool, shared: bool) -> CliResult<BlockDevice> {
        Ok(BlockDevice::new(Arc::from(self.open_with(writable, shared)?)))
    }

    /// Open the device behind the block layer, as a program opens a block device file: every
    /// zone command goes through it.
    pub fn open_blk(&self, writable: bool) -> CliResult<BlockDevice> {
        Ok(BlockDevice::new(Arc::from(self.open(writable)?)))
    }
}
