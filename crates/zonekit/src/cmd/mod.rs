//! One module per subcommand.

pub mod bench_plot;
pub mod dev;
pub mod fs;
pub mod mkfs;
pub mod mount;
#[cfg(feature = "plot")]
pub mod plot;
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

/// A size in bytes together with the text the user wrote for it, so that a message can quote
/// both (`--zone-size 3M (6144 sectors)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Size {
    /// The value in bytes.
    pub bytes: u64,
    /// What the user typed.
    pub text: String,
}

impl Size {
    /// `OPTION TEXT (N sectors)`, or `(N bytes)` when the value is not whole sectors.
    pub fn quoted(&self, option: &str) -> String {
        if self.bytes.is_multiple_of(512) {
            format!("{option} {} ({})", self.text, units::sectors_word(self.bytes / 512))
        } else {
            format!("{option} {} ({} bytes)", self.text, self.bytes)
        }
    }
}

/// Parse a fio-style byte size for clap, keeping the text.
///
/// Options that take a number also take values starting with '-' (`allow_hyphen_values`), so that
/// `-o -1` or `--zone-size -4M` is refused as a bad value of its option, not as an unknown
/// argument `-1`.
pub fn size_text_arg(s: &str) -> Result<Size, String> {
    units::parse_bytes(s).map(|bytes| Size { bytes, text: s.to_string() }).map_err(|e| e.0)
}

/// Check a zone size and capacity as given on the command line, against `block_size`-byte
/// logical blocks (and, for emulated devices, the kernel's power-of-two rule), quoting the
/// options as the user wrote them.
pub fn check_zone_sizes(
    zone_size: &Size,
    capacity: Option<&Size>,
    block_size: u32,
    power_of_two: bool,
) -> Result<(), String> {
    let block = u64::from(block_size);
    let zs = zone_size.quoted("--zone-size");
    if zone_size.bytes == 0 {
        return Err(format!("{zs}: a zone size must not be zero"));
    }
    if !zone_size.bytes.is_multiple_of(block) {
        return Err(format!("{zs} is not a multiple of the {block_size}-byte logical block size"));
    }
    if power_of_two && !zone_size.bytes.is_power_of_two() {
        return Err(format!("{zs} is not a power of two (the kernel requires it of zoned devices)"));
    }
    if let Some(cap) = capacity {
        let zc = cap.quoted("--zone-capacity");
        if cap.bytes == 0 {
            return Err(format!("{zc}: a zone capacity must not be zero"));
        }
        if !cap.bytes.is_multiple_of(block) {
            return Err(format!("{zc} is not a multiple of the {block_size}-byte logical block size"));
        }
        if cap.bytes > zone_size.bytes {
            return Err(format!("{zc} is larger than {zs}"));
        }
    }
    Ok(())
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
    #[arg(long, value_name = "SIZE", value_parser = size_text_arg, allow_hyphen_values = true)]
    pub zone_size: Option<Size>,
    /// Zone capacity with --zone-size (default: the zone size).
    #[arg(long, value_name = "SIZE", value_parser = size_text_arg, requires = "zone_size", allow_hyphen_values = true)]
    pub zone_capacity: Option<Size>,
}

impl DevArg {
    /// Open the device, for writing when `writable`.
    pub fn open(&self, writable: bool) -> CliResult<Box<dyn ZonedDevice>> {
        self.open_with(writable, false)
    }

    /// Open the device, for writing when `writable`; a Linux device opened for writing is opened
    /// without `O_EXCL` when `shared` (blkzone's `--force`).
    pub fn open_with(&self, writable: bool, shared: bool) -> CliResult<Box<dyn ZonedDevice>> {
        if let Some(zs) = &self.zone_size {
            // fio's emulation takes any whole number of sectors.
            check_zone_sizes(zs, self.zone_capacity.as_ref(), 512, false)
                .map_err(|why| CliError::Usage(format!("{}: {why}", self.dev)))?;
            // A regular file's size is known here: quote the option as written (the device layer
            // says the same of a block device, in bytes).
            // (A file of a device directory is refused as such by the device layer.)
            let path = std::path::Path::new(&self.dev);
            let in_device = path.parent().is_some_and(|d| {
                let d = if d.as_os_str().is_empty() { std::path::Path::new(".") } else { d };
                d.join(zonekit_dev::persistent::META_FILE).is_file()
            });
            if let Ok(m) = std::fs::metadata(path).map(|m| (m.is_file(), m.len()))
                && m.0
                && !in_device
                && m.1 < zs.bytes
            {
                return Err(CliError::Usage(format!(
                    "{}: the file's {} bytes ({}) are fewer than {}",
                    self.dev,
                    m.1,
                    units::sectors_word(m.1 / 512),
                    zs.quoted("--zone-size")
                )));
            }
        }
        let opts = OpenOptions {
            zone_size: self.zone_size.as_ref().map(|s| s.bytes),
            zone_capacity: self.zone_capacity.as_ref().map(|s| s.bytes),
            writable,
            shared,
        };
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
