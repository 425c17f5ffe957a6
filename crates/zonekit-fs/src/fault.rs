//! Fault injection under a mounted volume, so its error paths can be exercised while it runs:
//! [`FaultDevice`] sits between the block layer and the device and fails the next write to a
//! chosen zone; zone conditions (read-only, offline) change on the emulated device itself, as
//! null_blk's configfs `zone_readonly` / `zone_offline` do; a write pointer moves behind the
//! volume's back through the block layer, as `dd` to the raw device does in zonefs-tools' 0600.

use crate::error::{FsError, FsResult};
use crate::layout::FileId;
use crate::volume::Volume;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use zonekit_core::{
    BlockIo, DeviceError, DeviceInfo, DeviceResult, Errno, SECTOR_SIZE, Zone, ZoneCond, ZoneManagement, ZoneOp,
    ZoneReport, ZonedDevice,
};
use zonekit_dev::EmulatedDevice;

/// A device decorator that fails chosen writes, and reaches the emulated device (if it is one)
/// to change zone conditions. Everything else is forwarded unchanged.
pub struct FaultDevice {
    inner: Arc<dyn ZonedDevice>,
    emulated: Option<Arc<EmulatedDevice>>,
    /// Zones whose next write fails with `EIO`.
    fail_next_write: Mutex<BTreeSet<u32>>,
}

impl std::fmt::Debug for FaultDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultDevice").field("spec", &self.inner.info().spec).finish_non_exhaustive()
    }
}

impl FaultDevice {
    /// Wrap any device: writes can be failed, zone conditions cannot be changed.
    pub fn new(inner: Arc<dyn ZonedDevice>) -> FaultDevice {
        FaultDevice { inner, emulated: None, fail_next_write: Mutex::new(BTreeSet::new()) }
    }

    /// Wrap an emulated device: every fault can be injected.
    pub fn emulated(dev: Arc<EmulatedDevice>) -> FaultDevice {
        let inner: Arc<dyn ZonedDevice> = dev.clone();
        FaultDevice { inner, emulated: Some(dev), fail_next_write: Mutex::new(BTreeSet::new()) }
    }

    /// Fail the next write command touching `zone` with `EIO`; the zone is left unchanged.
    pub fn fail_next_write(&self, zone: u32) {
        self.fail_next_write.lock().unwrap_or_else(|e| e.into_inner()).insert(zone);
    }

    /// Put `zone` in the read-only or offline condition (emulated devices only: `EOPNOTSUPP`
    /// otherwise).
    pub fn set_zone_cond(&self, zone: u32, cond: ZoneCond) -> FsResult<()> {
        let Some(emu) = &self.emulated else {
            return Err(FsError::refused(
                Errno::EOPNOTSUPP,
                format!("{}: zone conditions can be changed on emulated devices only", self.inner.info().spec),
            ));
        };
        emu.set_zone_cond(zone, cond).map_err(|e| {
            let errno = e.errno();
            FsError::refused(errno, format!("set zone {zone} {cond:?}: {e}"))
        })
    }

    fn check_write(&self, sector: u64) -> DeviceResult<()> {
        let Some(zone) = self.inner.info().geometry.zone_index(sector) else { return Ok(()) };
        if self.fail_next_write.lock().unwrap_or_else(|e| e.into_inner()).remove(&zone) {
            let e = std::io::Error::from_raw_os_error(libc::EIO);
            return Err(DeviceError::io(format!("{}: injected write error in zone {zone}", self.inner.info().spec), e));
        }
        Ok(())
    }
}

impl ZoneReport for FaultDevice {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }

    fn report_zones(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> DeviceResult<()> {
        self.inner.report_zones(sector, max, out)
    }
}

impl ZoneManagement for FaultDevice {
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> DeviceResult<()> {
        self.inner.zone_mgmt(op, sector, nr)
    }
}

impl BlockIo for FaultDevice {
    fn read_at(&self, sector: u64, buf: &mut [u8]) -> DeviceResult<()> {
        self.inner.read_at(sector, buf)
    }

    fn write_at(&self, sector: u64, buf: &[u8]) -> DeviceResult<()> {
        self.check_write(sector)?;
        self.inner.write_at(sector, buf)
    }

    fn zone_append(&self, zone_start: u64, buf: &[u8]) -> DeviceResult<u64> {
        self.check_write(zone_start)?;
        self.inner.zone_append(zone_start, buf)
    }

    fn flush(&self) -> DeviceResult<()> {
        self.inner.flush()
    }

    fn close(&self) -> DeviceResult<()> {
        self.inner.close()
    }

    fn timing_model(&self) -> Option<Box<dyn zonekit_core::TimingModel>> {
        self.inner.timing_model()
    }

    fn media_sectors(&self, sector: u64, sectors: u64) -> u64 {
        self.inner.media_sectors(sector, sectors)
    }
}

/// A fault to inject into a file's zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The zone becomes read-only (null_blk's `zone_readonly`).
    ReadOnly,
    /// The zone goes offline (null_blk's `zone_offline`).
    Offline,
    /// The next write to the zone fails with `EIO`, changing nothing.
    FailWrite,
    /// This many bytes are written at the zone's write pointer behind the volume's back.
    MoveWp(u64),
}

impl Fault {
    /// Parse `read-only`, `offline`, `fail-write`, `move-wp BYTES` (the words of `zonekit fs
    /// inject`); `EINVAL` otherwise.
    pub fn parse(action: &str, arg: Option<&str>) -> FsResult<Fault> {
        let bad = |m: String| FsError::refused(Errno::EINVAL, m);
        match (action, arg) {
            ("read-only", None) => Ok(Fault::ReadOnly),
            ("offline", None) => Ok(Fault::Offline),
            ("fail-write", None) => Ok(Fault::FailWrite),
            ("move-wp", Some(n)) => n
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .map(Fault::MoveWp)
                .ok_or_else(|| bad(format!("move-wp: '{n}' is not a positive number of bytes"))),
            ("move-wp", None) => Err(bad("move-wp needs a number of bytes".into())),
            (a, Some(x)) if a != "move-wp" => Err(bad(format!("{a}: unexpected argument '{x}'"))),
            (a, _) => Err(bad(format!("unknown fault '{a}' (read-only, offline, fail-write, move-wp BYTES)"))),
        }
    }
}

/// Inject `fault` into the (first) zone of file `id` of `vol`, mounted over `dev`.
pub fn inject(vol: &Volume, dev: &FaultDevice, id: FileId, fault: Fault) -> FsResult<()> {
    let f = vol.layout().file(id);
    match fault {
        Fault::ReadOnly => dev.set_zone_cond(f.first_zone, ZoneCond::ReadOnly),
        Fault::Offline => dev.set_zone_cond(f.first_zone, ZoneCond::Offline),
        Fault::FailWrite => {
            dev.fail_next_write(f.first_zone);
            Ok(())
        }
        Fault::MoveWp(n) => {
            let mut zones = Vec::new();
            vol.device().report_zones(f.start, 1, &mut zones).map_err(|e| FsError::device("report zones", e))?;
            let z = zones.first().ok_or_else(|| FsError::refused(Errno::EIO, "no zone reported"))?;
            if f.group != crate::layout::Group::Seq {
                return Err(FsError::refused(Errno::EINVAL, "move-wp: a conventional zone has no write pointer"));
            }
            // A full zone's write pointer is its end: writing there would land in the next zone.
            let room = if z.cond == ZoneCond::Full { 0 } else { (z.start + z.capacity - z.wp) * SECTOR_SIZE };
            if n > room {
                return Err(FsError::refused(
                    Errno::EINVAL,
                    format!("move-wp {n}: only {room} bytes left between the write pointer and the zone's capacity"),
                ));
            }
            let data = vec![0x5au8; n as usize];
            vol.device()
                .write(z.wp * SECTOR_SIZE, &data)
                .map_err(|e| FsError::device(format!("write of {n} bytes at sector {}", z.wp), e))?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_or_are_einval() {
        assert_eq!(Fault::parse("read-only", None).unwrap(), Fault::ReadOnly);
        assert_eq!(Fault::parse("offline", None).unwrap(), Fault::Offline);
        assert_eq!(Fault::parse("fail-write", None).unwrap(), Fault::FailWrite);
        assert_eq!(Fault::parse("move-wp", Some("4096")).unwrap(), Fault::MoveWp(4096));
        for (a, x) in
            [("move-wp", None), ("move-wp", Some("0")), ("move-wp", Some("-1")), ("offline", Some("1")), ("x", None)]
        {
            assert_eq!(Fault::parse(a, x).unwrap_err().errno(), Errno::EINVAL, "{a} {x:?}");
        }
    }
}
