//! zonekit-dev: zonekit's zoned devices.
//!
//! - [`EmulatedDevice`]: the zone state machine of `zonekit-core` over a store — `none` (no data),
//!   [`store::MemoryStore`], or a persistent directory laid out like the kernel's zoned loop driver;
//! - built-in drive [`profiles`], with timing [`model`]s of the drives;
//! - regular files and non-zoned block devices with emulated zones ([`file`]), as fio does;
//! - Linux zoned block devices ([`linux`]);
//! - [`open`]: a device spec (`@profile`, a directory, a file, `/dev/...`) to a device.

pub mod config;
pub mod emulated;
pub mod file;
pub mod linux;
pub mod model;
pub mod persistent;
pub mod profiles;
pub mod spec;
pub mod store;

pub use config::{DataMode, DeviceConfig, GeometrySpec};
pub use emulated::EmulatedDevice;
pub use model::ModelSpec;
pub use profiles::{PROFILES, Profile, profile};
pub use spec::{OpenError, OpenOptions, open};
