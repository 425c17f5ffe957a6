//! Stand-in for `zonekit_blk::zoned::BlockDevice` (branch `h2-blk-requests`) with the planned
//! API, until it lands: requests go to the device as they are, with the device's rules, NOT the
//! block layer's (no splitting, no cut at the device end, ranges stop at the first failing zone).
//! The differential runs against it only to show what the block layer has to do.

use std::sync::Arc;
use zonekit_core::{Errno, SECTOR_SIZE, Zone, ZoneOp, ZonedDevice};

/// A failed request, with the errno a program would see.
#[derive(Debug)]
pub struct BlkError {
    /// The errno.
    pub errno: Errno,
}

fn err(e: zonekit_core::DeviceError) -> BlkError {
    BlkError { errno: e.errno() }
}

/// The planned block device.
pub struct BlockDevice(Arc<dyn ZonedDevice>);

impl BlockDevice {
    /// The block layer over `dev`.
    pub fn new(dev: Arc<dyn ZonedDevice>) -> BlockDevice {
        BlockDevice(dev)
    }

    /// Write `buf` at byte `offset`.
    pub fn write(&self, offset: u64, buf: &[u8]) -> Result<usize, BlkError> {
        if !offset.is_multiple_of(SECTOR_SIZE) {
            return Err(BlkError { errno: Errno::EINVAL });
        }
        self.0.write_at(offset / SECTOR_SIZE, buf).map(|()| buf.len()).map_err(err)
    }

    /// Read into `buf` from byte `offset`.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<usize, BlkError> {
        if !offset.is_multiple_of(SECTOR_SIZE) {
            return Err(BlkError { errno: Errno::EINVAL });
        }
        self.0.read_at(offset / SECTOR_SIZE, buf).map(|()| buf.len()).map_err(err)
    }

    /// Zone management over `(sector, nr)`.
    pub fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> Result<(), BlkError> {
        self.0.zone_mgmt(op, sector, nr).map_err(err)
    }

    /// Report up to `max` zones from the one holding `sector`.
    pub fn report_zones(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> Result<(), BlkError> {
        self.0.report_zones(sector, max, out).map_err(err)
    }
}
