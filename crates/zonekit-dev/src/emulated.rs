//! Emulated zoned devices: zonekit's zone state machine over a [`Store`].

use crate::config::DeviceConfig;
use crate::store::Store;
use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};
use zonekit_core::{
    BlockIo, Counters, DeviceError, DeviceInfo, DeviceKind, DeviceResult, Failed, SECTOR_SIZE, Transition, Zone,
    ZoneCond, ZoneError, ZoneErrorKind, ZoneManagement, ZoneOp, ZoneReport, ZoneTable,
};

/// A zoned device emulated in userspace: every operation goes through the [`ZoneTable`] and the
/// data through the store, under one lock.
///
/// Closing it ([`BlockIo::close`], or dropping it) hands the zone table to the store, which for a
/// persistent device records every zone's condition for the next open.
pub struct EmulatedDevice {
    info: DeviceInfo,
    /// The drive's timing model, if it has one.
    model: Option<crate::model::ModelSpec>,
    inner: Mutex<Inner>,
}

struct Inner {
    table: ZoneTable,
    store: Box<dyn Store>,
    /// Closed: nothing may change any more.
    closed: bool,
    /// Sequential zones whose next write or zone append fails (fault injection).
    write_faults: BTreeSet<u32>,
}

impl std::fmt::Debug for EmulatedDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmulatedDevice").field("info", &self.info).finish_non_exhaustive()
    }
}

/// The message of a write that failed by an injected fault.
const INJECTED: &str = "injected write fault";

/// Build the description of a device from its configuration.
pub fn device_info(spec: &str, kind: DeviceKind, config: &DeviceConfig) -> DeviceInfo {
    let keeps_data = !matches!(&kind, DeviceKind::Emulated { store, .. } if store == "none");
    DeviceInfo {
        keeps_data,
        spec: spec.to_string(),
        kind,
        personality: config.personality,
        geometry: config.geometry.clone(),
        limits: config.limits,
        model: if config.geometry.seq_zone_type == zonekit_core::ZoneType::SeqWritePreferred {
            "host-aware".into()
        } else {
            "host-managed".into()
        },
        vendor: config.vendor.clone(),
        description: config.description.clone(),
        rotational: config.rotational,
        queue: config.queue,
    }
}

impl EmulatedDevice {
    /// A fresh device (every sequential zone empty) over `store`.
    pub fn new(spec: &str, kind: DeviceKind, config: &DeviceConfig, store: Box<dyn Store>) -> EmulatedDevice {
        let table = ZoneTable::new(config.geometry.clone(), config.limits, config.personality);
        EmulatedDevice::from_table(device_info(spec, kind, config), table, store).with_model(config.model)
    }

    /// The same device with timing model `model` (none: no model).
    pub fn with_model(mut self, model: Option<crate::model::ModelSpec>) -> EmulatedDevice {
        self.model = model;
        self
    }

    /// The device's timing model specification.
    pub fn model_spec(&self) -> Option<crate::model::ModelSpec> {
        self.model
    }

    /// A device whose zone table was restored by the caller (persistent stores). `keeps_data` is
    /// false if the store keeps none.
    pub fn from_table(mut info: DeviceInfo, table: ZoneTable, store: Box<dyn Store>) -> EmulatedDevice {
        info.keeps_data &= store.keeps_data();
        let write_faults = store.write_faults();
        EmulatedDevice { info, model: None, inner: Mutex::new(Inner { table, store, closed: false, write_faults }) }
    }

    /// Writes and zone changes are refused (`EBADF`, as for a block device opened read-only)
    /// before the table sees them when the store takes no change: a read-only persistent device,
    /// or a closed one.
    fn check_writable(&self, inner: &Inner, what: &str) -> DeviceResult<()> {
        if inner.closed || !inner.store.writable() {
            let why = if inner.closed { "the device is closed" } else { "the device is open read-only" };
            let e = std::io::Error::from_raw_os_error(libc::EBADF);
            return Err(DeviceError::io(format!("{}: {what}: {why}", self.info.spec), e));
        }
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere leaves the table consistent (changes apply after effects succeed).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fail(&self, f: Failed<std::io::Error>, what: &str) -> DeviceError {
        match f {
            Failed::Zone(e) => DeviceError::zone(e, self.info.personality),
            Failed::Effect(e) => DeviceError::io(format!("{}: {what}", self.info.spec), e),
        }
    }

    fn unaligned(&self, sector: u64) -> DeviceError {
        let zone = self.info.geometry.zone_index(sector);
        DeviceError::zone(ZoneError::new(ZoneErrorKind::Unaligned, zone, sector), self.info.personality)
    }

    /// Open/active accounting.
    pub fn counters(&self) -> Counters {
        self.lock().table.counters()
    }

    /// Put a zone in the read-only or offline condition (fault injection, as null_blk's configfs
    /// `zone_readonly` / `zone_offline`); asking again returns it to empty.
    pub fn set_zone_cond(&self, zone: u32, cond: ZoneCond) -> DeviceResult<()> {
        if zone >= self.info.geometry.nr_zones {
            let s = u64::from(zone).saturating_mul(self.info.geometry.zone_size);
            return Err(DeviceError::zone(ZoneError::new(ZoneErrorKind::OutOfRange, None, s), self.info.personality));
        }
        let mut g = self.lock();
        self.check_writable(&g, "set zone condition")?;
        let Inner { table, store, .. } = &mut *g;
        table
            .set_zone_cond(zone, cond, |t| store.zone_changed(t))
            .map(|_| ())
            .map_err(|f| self.fail(f, "set zone condition"))
    }

    /// Move a sequential zone's write pointer to sector `wp` behind the host's back (fault
    /// injection: a write lost after it was acknowledged, or data the host did not write), as
    /// [`ZoneTable::move_write_pointer`] states; the store's data then ends there (a persistent
    /// device cuts or extends the zone's file). `wp` must be on a logical block.
    pub fn move_write_pointer(&self, zone: u32, wp: u64) -> DeviceResult<()> {
        let g = &self.info.geometry;
        if zone >= g.nr_zones {
            let s = u64::from(zone).saturating_mul(g.zone_size);
            return Err(DeviceError::zone(ZoneError::new(ZoneErrorKind::OutOfRange, None, s), self.info.personality));
        }
        let lbs = u64::from(g.logical_block_size) / SECTOR_SIZE;
        if !wp.wrapping_sub(g.zone_start(zone)).is_multiple_of(lbs.max(1)) {
            return Err(self.unaligned(wp));
        }
        let mut guard = self.lock();
        self.check_writable(&guard, "move write pointer")?;
        let Inner { table, store, .. } = &mut *guard;
        table
            .move_write_pointer(zone, wp, |t| store.zone_changed(t))
            .map(|_| ())
            .map_err(|f| self.fail(f, "move write pointer"))
    }

    /// Make the next write or zone append to sequential zone `zone` fail with `EIO`, changing
    /// nothing (fault injection, as a media error would; null_blk's `badblocks` fail so); `false`
    /// takes the fault away. A persistent device keeps it in `zones.state` until that write.
    pub fn set_write_fault(&self, zone: u32, fail: bool) -> DeviceResult<()> {
        let g = &self.info.geometry;
        if zone >= g.nr_zones || g.is_conventional(zone) {
            let kind = if zone >= g.nr_zones { ZoneErrorKind::OutOfRange } else { ZoneErrorKind::Conventional };
            let s = u64::from(zone).saturating_mul(g.zone_size);
            return Err(DeviceError::zone(
                ZoneError::new(kind, Some(zone).filter(|&z| z < g.nr_zones), s),
                self.info.personality,
            ));
        }
        let mut guard = self.lock();
        self.check_writable(&guard, "set write fault")?;
        let Inner { store, write_faults, .. } = &mut *guard;
        let mut next = write_faults.clone();
        if fail {
            next.insert(zone)
        } else {
            next.remove(&zone)
        };
        store
            .set_write_faults(&next)
            .map_err(|e| DeviceError::io(format!("{}: set write fault", self.info.spec), e))?;
        *write_faults = next;
        Ok(())
    }

    /// Sequential zones whose next write fails (fault injection).
    pub fn write_faults(&self) -> BTreeSet<u32> {
        self.lock().write_faults.clone()
    }

    /// The effect of a write or zone append the zone rules accept, before its data reaches the
    /// store: if its zone has a write fault, take the fault away (durably for a persistent
    /// device) and fail with [`INJECTED`], so that nothing changes.
    fn fault_effect(store: &mut dyn Store, faults: &mut BTreeSet<u32>, t: &Transition) -> std::io::Result<()> {
        if !faults.contains(&t.zone) {
            return Ok(());
        }
        let mut next = faults.clone();
        next.remove(&t.zone);
        store.set_write_faults(&next)?;
        *faults = next;
        Err(std::io::Error::other(INJECTED))
    }

    /// A failed write or zone append: an injected fault says so, with `EIO`.
    fn write_failed(&self, f: Failed<std::io::Error>, what: &str) -> DeviceError {
        match f {
            Failed::Effect(e) if e.kind() == std::io::ErrorKind::Other && e.to_string() == INJECTED => {
                DeviceError::io(INJECTED, std::io::Error::from_raw_os_error(libc::EIO))
            }
            f => self.fail(f, what),
        }
    }

    /// Run `f` on the zone table (tests, reports of counters).
    pub fn with_table<R>(&self, f: impl FnOnce(&ZoneTable) -> R) -> R {
        f(&self.lock().table)
    }

    fn write_effect(store: &mut dyn Store, info: &DeviceInfo, t: &Transition, buf: &[u8]) -> std::io::Result<()> {
        let zonekit_core::Action::Write { sector, .. } = t.action else { return Ok(()) };
        let g = &info.geometry;
        let mut done = 0usize;
        let mut s = sector;
        while done < buf.len() {
            let idx = (s / g.zone_size) as u32;
            let start = g.zone_start(idx);
            let room = ((start + g.zone_len(idx) - s) * SECTOR_SIZE) as usize;
            let n = room.min(buf.len() - done);
            store.write(idx, (s - start) * SECTOR_SIZE, &buf[done..done + n])?;
            done += n;
            s += (n as u64) / SECTOR_SIZE;
        }
        store.zone_changed(t)
    }
}

impl ZoneReport for EmulatedDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn report_zones(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> DeviceResult<()> {
        let g = self.lock();
        out.extend(g.table.report(sector, max));
        Ok(())
    }

    fn pending_write_faults(&self) -> Vec<u32> {
        self.lock().write_faults.iter().copied().collect()
    }
}

impl ZoneManagement for EmulatedDevice {
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> DeviceResult<()> {
        let mut g = self.lock();
        self.check_writable(&g, op.name())?;
        let Inner { table, store, .. } = &mut *g;
        table.manage(op, sector, nr, |t| store.zone_changed(t)).map(|_| ()).map_err(|f| self.fail(f, op.name()))
    }
}

impl BlockIo for EmulatedDevice {
    fn read_at(&self, sector: u64, buf: &mut [u8]) -> DeviceResult<()> {
        if !(buf.len() as u64).is_multiple_of(SECTOR_SIZE) {
            return Err(self.unaligned(sector));
        }
        if buf.is_empty() {
            return Ok(());
        }
        let mut g = self.lock();
        let Inner { table, store, .. } = &mut *g;
        let segs = table
            .read(sector, buf.len() as u64 / SECTOR_SIZE)
            .map_err(|e| DeviceError::zone(e, self.info.personality))?;
        let fill = self.info.personality.read_fill();
        let geo = &self.info.geometry;
        // A file with emulated zones reads the file itself, as fio does: its zones restart empty at
        // each open while its data stays.
        let whole = self.info.kind == DeviceKind::File;
        let mut pos = 0usize;
        for seg in segs {
            let valid = (if whole { seg.nr } else { seg.valid } * SECTOR_SIZE) as usize;
            let total = (seg.nr * SECTOR_SIZE) as usize;
            let off = (seg.sector - geo.zone_start(seg.zone)) * SECTOR_SIZE;
            store
                .read(seg.zone, off, &mut buf[pos..pos + valid])
                .map_err(|e| DeviceError::io(format!("{}: read", self.info.spec), e))?;
            buf[pos + valid..pos + total].fill(fill);
            pos += total;
        }
        Ok(())
    }

    fn write_at(&self, sector: u64, buf: &[u8]) -> DeviceResult<()> {
        if !(buf.len() as u64).is_multiple_of(SECTOR_SIZE) {
            return Err(self.unaligned(sector));
        }
        if buf.is_empty() {
            return Ok(());
        }
        let mut g = self.lock();
        self.check_writable(&g, "write")?;
        let Inner { table, store, write_faults, .. } = &mut *g;
        let info = &self.info;
        table
            .write(sector, buf.len() as u64 / SECTOR_SIZE, |t| {
                Self::fault_effect(store.as_mut(), write_faults, t)?;
                Self::write_effect(store.as_mut(), info, t, buf)
            })
            .map(|_| ())
            .map_err(|f| self.write_failed(f, "write"))
    }

    fn zone_append(&self, zone_start: u64, buf: &[u8]) -> DeviceResult<u64> {
        if !(buf.len() as u64).is_multiple_of(SECTOR_SIZE) || buf.is_empty() {
            return Err(self.unaligned(zone_start));
        }
        let mut g = self.lock();
        self.check_writable(&g, "zone append")?;
        let Inner { table, store, write_faults, .. } = &mut *g;
        let info = &self.info;
        let t = table
            .append(zone_start, buf.len() as u64 / SECTOR_SIZE, |t| {
                Self::fault_effect(store.as_mut(), write_faults, t)?;
                Self::write_effect(store.as_mut(), info, t, buf)
            })
            .map_err(|f| self.write_failed(f, "zone append"))?;
        match t.action {
            zonekit_core::Action::Write { sector, .. } => Ok(sector),
            _ => unreachable!("an append transition is a write"),
        }
    }

    fn flush(&self) -> DeviceResult<()> {
        self.lock().store.flush().map_err(|e| DeviceError::io(format!("{}: flush", self.info.spec), e))
    }

    fn timing_model(&self) -> Option<Box<dyn zonekit_core::timing::TimingModel>> {
        self.model.map(|m| m.build(&self.info.geometry))
    }

    fn media_sectors(&self, sector: u64, sectors: u64) -> u64 {
        // A file with emulated zones reads the file itself, whatever the write pointers say.
        if self.info.kind == DeviceKind::File {
            return sectors;
        }
        self.lock().table.media_sectors(sector, sectors)
    }

    fn close(&self) -> DeviceResult<()> {
        let mut g = self.lock();
        if std::mem::replace(&mut g.closed, true) {
            return Ok(());
        }
        let Inner { table, store, .. } = &mut *g;
        store.close(table).map_err(|e| DeviceError::io(format!("{}: close", self.info.spec), e))
    }
}

impl Drop for EmulatedDevice {
    /// A drop closes the device: a persistent one records its zones' conditions. Errors cannot be
    /// reported here; the next open then finds the device as after a crash (open zones closed).
    fn drop(&mut self) {
        let _ = BlockIo::close(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::profile;
    use crate::store::{MemoryStore, NoneStore};
    use zonekit_core::Errno;

    fn mem(name: &str) -> EmulatedDevice {
        let c = profile(name).unwrap().config();
        EmulatedDevice::new(
            name,
            DeviceKind::Emulated { store: "memory".into(), profile: None },
            &c,
            Box::new(MemoryStore::new()),
        )
    }

    #[test]
    fn data_round_trip_and_fill() {
        let d = mem("nullb-small");
        let zs = d.info().geometry.zone_size;
        let data = vec![0x5au8; 8192];
        d.write_at(zs, &data).unwrap();
        let mut back = vec![0u8; 16384];
        d.read_at(zs, &mut back).unwrap();
        assert_eq!(&back[..8192], &data[..]);
        assert!(back[8192..].iter().all(|&b| b == 0xff), "null_blk fills beyond the wp with 0xff");
        let err = d.write_at(zs, &data).unwrap_err();
        assert_eq!(err.errno(), Errno::EIO);
        d.zone_mgmt(ZoneOp::Reset, zs, zs).unwrap();
        d.read_at(zs, &mut back[..512]).unwrap();
        assert!(back[..512].iter().all(|&b| b == 0xff));
    }

    #[test]
    fn zbc_errnos_and_zero_fill() {
        let d = mem("zbc-small");
        let zs = d.info().geometry.zone_size;
        let e = d.write_at(zs + 8, &[0u8; 512]).unwrap_err();
        assert_eq!(e.errno(), Errno::EREMOTEIO);
        let e = d.zone_mgmt(ZoneOp::Reset, 0, zs).unwrap_err();
        assert_eq!(e.errno(), Errno::EREMOTEIO);
        // A partial block is a command the device cannot take: refused as any bad SCSI command
        // (the block layer never sends one; it refuses the call with EINVAL).
        let e = d.write_at(zs, &[0u8; 100]).unwrap_err();
        assert_eq!(e.errno(), Errno::EREMOTEIO);
        let mut b = [1u8; 512];
        d.read_at(zs, &mut b).unwrap();
        assert_eq!(b, [0u8; 512]);
    }

    #[test]
    fn append_returns_sector() {
        let d = mem("zns-small");
        let zs = d.info().geometry.zone_size;
        assert_eq!(d.zone_append(zs, &[1u8; 4096]).unwrap(), zs);
        assert_eq!(d.zone_append(zs, &[2u8; 4096]).unwrap(), zs + 8);
        let mut b = [0u8; 8192];
        d.read_at(zs, &mut b).unwrap();
        assert!(b[..4096].iter().all(|&x| x == 1) && b[4096..].iter().all(|&x| x == 2));
    }

    #[test]
    fn conventional_write_spanning_zones() {
        let c = crate::config::GeometrySpec {
            zone_size: 1 << 20,
            nr_zones: 8,
            nr_conv_zones: 3,
            zone_capacity: None,
            max_open: 0,
            max_active: 0,
            block_size: 512,
            personality: zonekit_core::Personality::NullBlk,
        }
        .into_config()
        .unwrap();
        let d = EmulatedDevice::new("t", DeviceKind::File, &c, Box::new(MemoryStore::new()));
        let data: Vec<u8> = (0..4096u32).map(|i| i as u8).collect();
        d.write_at(2048 - 4, &data).unwrap();
        let mut back = vec![0u8; 4096];
        d.read_at(2048 - 4, &mut back).unwrap();
        assert_eq!(back, data);
        // into the first sequential zone: refused
        assert!(d.write_at(3 * 2048 - 4, &data).is_err());
    }

    #[test]
    fn none_store_reads_zeros_below_wp() {
        let c = profile("smr-hm-15tb").unwrap().config();
        let d = EmulatedDevice::new("@smr-hm-15tb", DeviceKind::File, &c, Box::new(NoneStore));
        let zs = d.info().geometry.zone_size;
        d.write_at(524 * zs, &[7u8; 4096]).unwrap();
        let mut b = [9u8; 4096];
        d.read_at(524 * zs, &mut b).unwrap();
        assert_eq!(b, [0u8; 4096]);
    }
}
