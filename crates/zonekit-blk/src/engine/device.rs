//! The in-process engine of zonekit's own devices: every I/O goes straight to a [`ZonedDevice`]
//! (an emulated drive, `@profile` or a device directory) in this process, with no system call.
//!
//! It behaves as fio's asynchronous engines do (queue, commit, reap, `depth` slots), or as a
//! synchronous one (every I/O done inside `queue`) when the job's fio engine is synchronous, so
//! that job files written for real disks (`ioengine=libaio`, `io_uring`, `psync`, `sg`, `libzbc`)
//! run unchanged against an emulated drive.
//!
//! A device without a timing model serves its commands in submission order, at commit, and hands
//! them back one by one: `getevents(min)` returns the `min` oldest completions (none when `min`
//! is 0), as a device whose completions arrive one after the other. A job at `iodepth=N` thus
//! keeps N commands in flight, as it does on a real disk (fio's `IO depths 8=99.8%` at N = 8).
//! Each completion is stamped with the engine's clock when it is handed back. Zone resets run
//! inline (`queue` completes them once nothing waits for a commit), as trims do on fio's
//! asynchronous engines.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use zonekit_core::{DeviceError, ZoneOp, ZonedDevice};

use super::{Completion, Ddir, DiskCounts, Engine, EngineError, Io, Queued, check_len};
use crate::clock::RealClock;
use crate::sys::buf::SlotBuffers;

/// How to build a [`DeviceEngine`].
#[derive(Debug, Clone, Copy)]
pub struct DeviceEngineConfig {
    /// Slots: the most I/Os in flight at once (`iodepth`), at least 1.
    pub depth: u32,
    /// Size of each slot's buffer (the largest block size of the job).
    pub buffer_size: usize,
    /// Complete every I/O inside `queue` (the job's fio engine is synchronous).
    pub sync: bool,
    /// The clock completions are stamped with.
    pub clock: RealClock,
}

/// Build the in-process engine over `devices` (the job's files, in order).
pub fn open_device_engine(
    devices: Vec<Arc<dyn ZonedDevice>>,
    config: DeviceEngineConfig,
) -> Result<Box<dyn Engine>, EngineError> {
    Ok(Box::new(DeviceEngine::new(devices, config)?))
}

/// The in-process engine (see the module documentation).
pub struct DeviceEngine {
    devices: Vec<Arc<dyn ZonedDevice>>,
    bufs: SlotBuffers,
    sync: bool,
    depth: usize,
    in_flight: Vec<bool>,
    /// Queued, not yet committed.
    queued: Vec<Io>,
    /// Served by the device, not yet reaped.
    done: VecDeque<Completion>,
    clock: RealClock,
    /// What each device did (reads and writes that succeeded).
    counts: Vec<DiskCounts>,
}

impl DeviceEngine {
    /// An engine over `devices`.
    pub fn new(devices: Vec<Arc<dyn ZonedDevice>>, config: DeviceEngineConfig) -> Result<DeviceEngine, EngineError> {
        let bad = |why: &str| EngineError::Option { engine: "device", why: why.to_string() };
        if config.depth == 0 {
            return Err(bad("iodepth must be at least 1"));
        }
        if config.buffer_size > i32::MAX as usize {
            return Err(bad("block size too large (at most 2 GiB - 1)"));
        }
        let depth = config.depth as usize;
        let bufs = SlotBuffers::new(depth, config.buffer_size, 4096)
            .map_err(|source| EngineError::Setup { engine: "device", source })?;
        Ok(DeviceEngine {
            bufs,
            sync: config.sync,
            depth,
            in_flight: vec![false; depth],
            queued: Vec::with_capacity(depth),
            done: VecDeque::with_capacity(depth),
            clock: config.clock,
            counts: vec![DiskCounts::default(); devices.len()],
            devices,
        })
    }

    /// Run one command against its device: bytes transferred (0 for syncs and resets) or
    /// `-errno`, the errno the device's personality gives.
    fn execute(&mut self, io: &Io) -> i32 {
        let Some(dev) = self.devices.get(io.file as usize) else { return -libc::EBADF };
        let neg = |e: DeviceError| -e.errno().0;
        let (sector, len) = (io.offset >> 9, io.len as usize);
        let sector_aligned = io.offset.is_multiple_of(512) && (io.len as u64).is_multiple_of(512);
        match io.ddir {
            Ddir::Read | Ddir::Write => {
                if check_len(&self.bufs, io).is_err() || !sector_aligned {
                    return -libc::EINVAL;
                }
                let Some(slot) = self.bufs.get_mut(io.tag as usize) else { return -libc::EINVAL };
                let buf = &mut slot[..len];
                let r = if io.ddir == Ddir::Read { dev.read_at(sector, buf) } else { dev.write_at(sector, buf) };
                match r {
                    Ok(()) => {
                        let d = usize::from(io.ddir == Ddir::Write);
                        let c = &mut self.counts[io.file as usize];
                        c.ios[d] += 1;
                        c.sectors[d] += u64::from(io.len) >> 9;
                        io.len as i32
                    }
                    Err(e) => neg(e),
                }
            }
            // A discard has no meaning for an emulated zoned device (zonemode=zbd turns trims
            // into zone resets before they get here).
            Ddir::Trim => -libc::EOPNOTSUPP,
            Ddir::Sync | Ddir::DataSync => dev.flush().map_or_else(neg, |()| 0),
            Ddir::ZoneReset => {
                if !sector_aligned {
                    return -libc::EINVAL;
                }
                dev.zone_mgmt(ZoneOp::Reset, sector, u64::from(io.len) >> 9).map_or_else(neg, |()| 0)
            }
        }
    }
}

impl Engine for DeviceEngine {
    fn name(&self) -> &'static str {
        "device"
    }

    fn is_sync(&self) -> bool {
        self.sync
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        super::idle_slot_buffer(&mut self.bufs, &self.in_flight, tag)
    }

    #[inline]
    fn queue(&mut self, io: &Io) -> Queued {
        let tag = io.tag as usize;
        if tag >= self.depth {
            return Queued::Completed(-libc::EINVAL);
        }
        if self.sync {
            return Queued::Completed(self.execute(io));
        }
        if io.ddir == Ddir::ZoneReset {
            // As the kernel engines do with trims: inline, once what is queued is sent.
            return if self.queued.is_empty() { Queued::Completed(self.execute(io)) } else { Queued::Busy };
        }
        if self.in_flight[tag] || self.queued.len() == self.depth {
            return Queued::Busy;
        }
        self.in_flight[tag] = true;
        self.queued.push(*io);
        Queued::Queued
    }

    fn commit(&mut self) -> io::Result<usize> {
        let queued = std::mem::take(&mut self.queued);
        for io in &queued {
            let result = self.execute(io);
            self.done.push_back(Completion::new(io.tag, result));
        }
        let n = queued.len();
        self.queued = queued;
        self.queued.clear();
        Ok(n)
    }

    fn disk_counts(&self) -> &[DiskCounts] {
        &self.counts
    }

    fn getevents(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let n = min.min(self.done.len());
        if n == 0 {
            return Ok(0);
        }
        let now = self.clock.now_ns();
        for mut c in self.done.drain(..n) {
            self.in_flight[c.tag as usize] = false;
            c.at_ns = now;
            out.push(c);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonekit_core::{Errno, ZoneCond};
    use zonekit_dev::{EmulatedDevice, profile, store::MemoryStore};

    fn device(name: &str) -> Arc<dyn ZonedDevice> {
        let c = profile(name).unwrap().config();
        let kind = zonekit_core::DeviceKind::Emulated { store: "memory".into(), profile: None };
        Arc::new(EmulatedDevice::new(name, kind, &c, Box::new(MemoryStore::new())))
    }

    fn engine(dev: &Arc<dyn ZonedDevice>, depth: u32, sync: bool) -> DeviceEngine {
        let cfg = DeviceEngineConfig { depth, buffer_size: 65536, sync, clock: RealClock::new() };
        DeviceEngine::new(vec![dev.clone()], cfg).unwrap()
    }

    fn io(tag: u32, ddir: Ddir, offset: u64, len: u32) -> Io {
        Io { tag, ddir, file: 0, offset, len }
    }

    #[test]
    fn async_completions_come_back_one_by_one_in_order() {
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        let mut e = engine(&dev, 4, false);
        for t in 0..4 {
            e.buffer(t).fill(t as u8 + 1);
            assert_eq!(e.queue(&io(t, Ddir::Write, zone + u64::from(t) * 4096, 4096)), Queued::Queued);
        }
        assert_eq!(e.queue(&io(0, Ddir::Write, 0, 4096)), Queued::Busy, "slot 0 is in flight");
        assert_eq!(e.commit().unwrap(), 4);
        let mut out = Vec::new();
        assert_eq!(e.getevents(0, &mut out).unwrap(), 0, "nothing without waiting");
        assert_eq!(e.getevents(1, &mut out).unwrap(), 1);
        assert_eq!(e.getevents(2, &mut out).unwrap(), 2);
        assert_eq!(e.getevents(8, &mut out).unwrap(), 1, "capped at what was committed");
        assert_eq!(
            out.iter().map(|c| (c.tag, c.result)).collect::<Vec<_>>(),
            [(0, 4096), (1, 4096), (2, 4096), (3, 4096)]
        );
        assert!(out.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
        let mut zones = Vec::new();
        dev.report_zones(zone >> 9, 1, &mut zones).unwrap();
        assert_eq!(zones[0].wp, (zone + 16384) >> 9);
        assert_eq!(e.disk_counts(), &[DiskCounts { ios: [0, 4], sectors: [0, 32], ..DiskCounts::default() }]);
        // Read back what slot 2 wrote.
        assert_eq!(e.queue(&io(2, Ddir::Read, zone + 8192, 4096)), Queued::Queued);
        e.commit().unwrap();
        e.getevents(1, &mut out).unwrap();
        assert!(e.buffer(2)[..4096].iter().all(|&b| b == 3));
        assert_eq!(e.disk_counts()[0].ios, [1, 4], "the read counts");
    }

    #[test]
    fn errors_are_the_personalitys_errno_and_resets_work() {
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        let mut e = engine(&dev, 1, true);
        assert_eq!(e.queue(&io(0, Ddir::Write, zone + 4096, 4096)), Queued::Completed(-Errno::EREMOTEIO.0));
        assert_eq!(e.queue(&io(0, Ddir::Write, zone, 4096)), Queued::Completed(4096));
        assert_eq!(e.queue(&io(0, Ddir::Write, zone + 4096, 100)), Queued::Completed(-libc::EINVAL));
        assert_eq!(e.queue(&io(0, Ddir::Trim, zone, 4096)), Queued::Completed(-libc::EOPNOTSUPP));
        assert_eq!(e.queue(&io(0, Ddir::ZoneReset, zone, zone as u32)), Queued::Completed(0));
        let mut zones = Vec::new();
        dev.report_zones(zone >> 9, 1, &mut zones).unwrap();
        assert_eq!(zones[0].cond, ZoneCond::Empty);
        assert_eq!(e.queue(&io(0, Ddir::ZoneReset, 0, zone as u32)), Queued::Completed(-Errno::EREMOTEIO.0));
        assert_eq!(e.queue(&io(0, Ddir::Sync, 0, 0)), Queued::Completed(0));
        assert_eq!(e.queue(&Io { file: 3, ..io(0, Ddir::Read, 0, 512) }), Queued::Completed(-libc::EBADF));
        assert_eq!(e.disk_counts()[0].ios, [0, 1], "only the write that succeeded counts");
    }
}
