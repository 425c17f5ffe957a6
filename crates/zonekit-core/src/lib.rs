//! zonekit-core: the zone model of zonekit.
//!
//! Units (512-byte sectors), zones with the kernel's numeric types and conditions, device geometry
//! and limits, **the zone state machine** ([`ZoneTable`]), device personalities (null_blk, ZBC,
//! ZNS: which errno each error kind becomes, which implicitly open zone is closed at the open
//! limit) and the [`ZonedDevice`] capability traits. No I/O, no clock, no `unsafe`.

pub mod device;
pub mod errno;
pub mod error;
pub mod geometry;
pub mod personality;
pub mod state;
pub mod timing;
pub mod units;
pub mod zone;

pub use device::{
    BlockIo, DeviceError, DeviceInfo, DeviceKind, DeviceResult, QueueSettings, ZoneManagement, ZoneReport, ZonedDevice,
};
pub use errno::{Errno, io_text};
pub use error::{GeometryError, ZoneError, ZoneErrorKind};
pub use geometry::{Geometry, Limits};
pub use personality::{ConventionalWp, EvictionPolicy, Personality, ResourceCheck, WriteCheckOrder, ZoneRules};
pub use state::{
    Action, Counters, EvictionState, Failed, INVALID_WP, MgmtTarget, ReadSegment, Transition, ZoneOp, ZoneTable,
};
pub use timing::{Command, CommandKind, Done, Param, TimingModel};
pub use units::{SECTOR_SHIFT, SECTOR_SIZE};
pub use zone::{Zone, ZoneCond, ZoneType};
