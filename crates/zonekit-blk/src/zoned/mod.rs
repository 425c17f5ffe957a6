//! The block layer's view of a zoned device, as Linux's (6.12): queue limits ([`limits`]), reads
//! and writes cut at the device end and split at zone boundaries and the largest request
//! ([`split`]), management ranges issued zone by zone ([`mgmt`]), zone write plugging and the
//! single-context QD1 worker ([`plug`]), the device queue that carries them out for the engines
//! ([`dispatch`]), and [`BlockDevice`], which applies them to a device for synchronous callers.
//! `docs/blk.md` names the kernel function each rule follows.
//!
//! `limits`, `split`, `mgmt` and `plug` are pure: plain data and functions; the first three are
//! tested from text scripts (`testdata/*.txt`).

pub mod device;
pub mod dispatch;
pub mod limits;
pub mod mgmt;
pub mod plug;
mod small_list;
pub mod split;

pub use device::{BlkError, BlockDevice};
pub use limits::{AttrValue, LimitOverrides, LimitsError, QueueLimits, ZoneAppendMode};
pub use mgmt::{MgmtCommand, MgmtError, MgmtPlan};
pub use split::{Cut, Piece, SplitError};

/// Error recovery's read-back ([`plug::Event::Resync`]): report `zone` from the device and give
/// its write pointer to the plugs. Both drivers (`BlockDevice` and `DeviceQueue`) do it this way.
pub(crate) fn resync(
    device: &dyn zonekit_core::ZonedDevice,
    plugs: &mut plug::Plugs,
    zone: u32,
    out: &mut Vec<plug::Event>,
) {
    let mut zones = Vec::with_capacity(1);
    if device.report_zones(device.info().geometry.zone_start(zone), 1, &mut zones).is_ok()
        && let Some(z) = zones.first()
    {
        plugs.sync_wp(z, out);
    }
}
