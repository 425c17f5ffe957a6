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
//!
//! A device with a timing model ([`DeviceTiming`], one per device per run, shared by every engine
//! that uses the device) takes each command at commit on the engine's clock and completes it when
//! its model says: `getevents` hands back what has completed by the clock's time, and
//! [`Engine::next_event`] says when to look again (the caller sleeps until then: in simulated
//! time the scheduler jumps there; in real time the thread sleeps, which paces the job at the
//! drive's speed). Synchronous jobs queue every command and wait for it the same way; zone
//! resets are commands too (queued when nothing else waits for a commit).

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex};

use zonekit_core::{Command, CommandKind, DeviceError, Done, TimingModel, ZoneOp, ZonedDevice};

use super::{Completion, Ddir, DiskCounts, Engine, EngineError, Io, Queued, check_len};
use crate::clock::{Clock, RealClock};
use crate::sys::buf::SlotBuffers;

/// How to build a [`DeviceEngine`].
#[derive(Debug, Clone)]
pub struct DeviceEngineConfig<C: Clock = RealClock> {
    /// Slots: the most I/Os in flight at once (`iodepth`), at least 1.
    pub depth: u32,
    /// Size of each slot's buffer (the largest block size of the job).
    pub buffer_size: usize,
    /// Complete every I/O inside `queue` (the job's fio engine is synchronous).
    pub sync: bool,
    /// The clock completions are stamped with.
    pub clock: C,
    /// The timing of each device (in the order of the devices), `None` for a device served
    /// without one.
    pub timing: Vec<Option<Arc<DeviceTiming>>>,
}

/// Build the in-process engine over `devices` (the job's files, in order).
pub fn open_device_engine<C: Clock>(
    devices: Vec<Arc<dyn ZonedDevice>>,
    config: DeviceEngineConfig<C>,
) -> Result<Box<dyn Engine>, EngineError> {
    Ok(Box::new(DeviceEngine::new(devices, config)?))
}

/// A device's timing model during a run, shared by every engine that uses the device: what the
/// model completed for each engine, and the device's own counters (commands, sectors, time spent,
/// time busy).
pub struct DeviceTiming {
    state: Mutex<TimingState>,
    model_name: String,
}

impl std::fmt::Debug for DeviceTiming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceTiming").field("model", &self.model_name).finish()
    }
}

struct TimingState {
    model: Box<dyn TimingModel>,
    /// The latest time the model was given (submissions never go back in time).
    last: u64,
    scratch: Vec<Done>,
    /// Per engine: commands completed, not yet reaped (tag, time).
    outboxes: Vec<VecDeque<(u32, u64)>>,
    outstanding: u32,
    busy_since: u64,
    busy_ns: u64,
}

impl TimingState {
    /// Run the model to `t` and sort what completed into the engines' outboxes.
    fn run_to(&mut self, t: u64) {
        let t = t.max(self.last);
        self.last = t;
        self.scratch.clear();
        self.model.complete_until(t, &mut self.scratch);
        for d in &self.scratch {
            let (engine, tag) = ((d.id >> 32) as usize, d.id as u32);
            if let Some(o) = self.outboxes.get_mut(engine) {
                o.push_back((tag, d.at_ns));
            }
            self.outstanding = self.outstanding.saturating_sub(1);
            if self.outstanding == 0 {
                self.busy_ns += d.at_ns.saturating_sub(self.busy_since);
            }
        }
    }
}

impl DeviceTiming {
    /// The timing of a device whose model is `model` (fresh: the drive at rest at time 0 of the
    /// clock that will drive it).
    pub fn new(model: Box<dyn TimingModel>) -> DeviceTiming {
        DeviceTiming {
            model_name: model.name().to_string(),
            state: Mutex::new(TimingState {
                model,
                last: 0,
                scratch: Vec::new(),
                outboxes: Vec::new(),
                outstanding: 0,
                busy_since: 0,
                busy_ns: 0,
            }),
        }
    }

    /// The model's name.
    pub fn model_name(&self) -> &str {
        &self.model_name
    }

    /// Nanoseconds during which the device had at least one command (up to the last completion
    /// handed out).
    pub fn busy_ns(&self) -> u64 {
        self.lock().busy_ns
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TimingState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn register(&self) -> u32 {
        let mut s = self.lock();
        s.outboxes.push(VecDeque::new());
        (s.outboxes.len() - 1) as u32
    }

    fn submit(&self, t: u64, cmd: Command) {
        let mut s = self.lock();
        s.run_to(t);
        let t = s.last;
        if s.outstanding == 0 {
            s.busy_since = t;
        }
        s.outstanding += 1;
        s.model.submit(t, cmd);
    }

    /// Run to `t` and move what completed for `engine` to `out` (tag, time).
    fn take(&self, engine: u32, t: u64, out: &mut Vec<(u32, u64)>) {
        let mut s = self.lock();
        s.run_to(t);
        if let Some(o) = s.outboxes.get_mut(engine as usize) {
            out.extend(o.drain(..));
        }
    }

    fn next_event(&self) -> Option<u64> {
        self.lock().model.next_event()
    }
}

/// One queued command of a timed device: the slot, the device, and what the model is told.
#[derive(Debug, Clone, Copy)]
struct Pending {
    tag: u32,
    file: u32,
    cmd: Command,
}

/// A slot's command on a timed device, from queue to reap.
#[derive(Debug, Clone, Copy, Default)]
struct TimedSlot {
    /// The device ran the command when it was queued: its result.
    result: i32,
    /// Index of [`DiskCounts`]' directions (read 0, write 1) for reads and writes.
    dir: Option<usize>,
    file: u32,
    /// When it went to the model (commit).
    submitted: u64,
}

/// The in-process engine (see the module documentation).
pub struct DeviceEngine<C: Clock = RealClock> {
    devices: Vec<Arc<dyn ZonedDevice>>,
    bufs: SlotBuffers,
    sync: bool,
    depth: usize,
    in_flight: Vec<bool>,
    /// Queued, not yet committed (devices without timing).
    queued: Vec<Io>,
    /// Served by the device, not yet reaped (devices without timing).
    done: VecDeque<Completion>,
    clock: C,
    /// What each device did (reads and writes that succeeded).
    counts: Vec<DiskCounts>,
    /// Per device: its timing and this engine's number in it.
    timing: Vec<Option<(Arc<DeviceTiming>, u32)>>,
    /// Queued for timed devices, not yet committed.
    timed_queued: Vec<Pending>,
    /// Per slot, for timed devices.
    slot_info: Vec<TimedSlot>,
    /// Timed commands committed and not yet reaped.
    timed_in_flight: usize,
    scratch: Vec<(u32, u64)>,
}

impl<C: Clock> DeviceEngine<C> {
    /// An engine over `devices`.
    pub fn new(
        devices: Vec<Arc<dyn ZonedDevice>>,
        config: DeviceEngineConfig<C>,
    ) -> Result<DeviceEngine<C>, EngineError> {
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
        let timing = (0..devices.len())
            .map(|i| {
                config.timing.get(i).cloned().flatten().map(|t| {
                    let id = t.register();
                    (t, id)
                })
            })
            .collect();
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
            timing,
            timed_queued: Vec::with_capacity(depth),
            slot_info: vec![TimedSlot::default(); depth],
            timed_in_flight: 0,
            scratch: Vec::with_capacity(depth),
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

    /// What the model is told of `io`, run with `result`.
    fn command(&self, io: &Io, engine: u32, result: i32) -> Option<Command> {
        let (sector, sectors) = (io.offset >> 9, u64::from(io.len) >> 9);
        let kind = match io.ddir {
            Ddir::Read => CommandKind::Read,
            Ddir::Write => CommandKind::Write,
            Ddir::Sync | Ddir::DataSync => CommandKind::Flush,
            Ddir::ZoneReset => CommandKind::ZoneMgmt(ZoneOp::Reset),
            Ddir::Trim => return None,
        };
        let media_sectors = match io.ddir {
            Ddir::Read if result >= 0 => self.devices[io.file as usize].media_sectors(sector, sectors),
            Ddir::Read | Ddir::Write => sectors,
            _ => 0,
        };
        let sectors = if kind == CommandKind::Flush { 0 } else { sectors };
        Some(Command {
            id: (u64::from(engine) << 32) | u64::from(io.tag),
            kind,
            sector,
            sectors,
            media_sectors,
            failed: result < 0,
        })
    }

    /// Queue `io` for its timed device: run it on the device now, tell the model at commit.
    fn queue_timed(&mut self, io: &Io, engine: u32) -> Queued {
        let tag = io.tag as usize;
        if io.ddir == Ddir::ZoneReset && !self.timed_queued.is_empty() {
            return Queued::Busy;
        }
        if self.in_flight[tag] || self.timed_queued.len() == self.depth {
            return Queued::Busy;
        }
        let result = self.execute(io);
        let Some(cmd) = self.command(io, engine, result) else { return Queued::Completed(result) };
        self.in_flight[tag] = true;
        let dir = match io.ddir {
            Ddir::Read => Some(0),
            Ddir::Write => Some(1),
            _ => None,
        };
        self.slot_info[tag] = TimedSlot { result, dir, file: io.file, submitted: 0 };
        self.timed_queued.push(Pending { tag: io.tag, file: io.file, cmd });
        Queued::Queued
    }
}

impl<C: Clock> Engine for DeviceEngine<C> {
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
        if let Some(Some((_, engine))) = self.timing.get(io.file as usize) {
            let engine = *engine;
            return self.queue_timed(io, engine);
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
        let mut n = 0;
        if !self.timed_queued.is_empty() {
            let now = self.clock.now_ns();
            let pending = std::mem::take(&mut self.timed_queued);
            for p in &pending {
                if let Some(Some((t, _))) = self.timing.get(p.file as usize) {
                    t.submit(now, p.cmd);
                    self.slot_info[p.tag as usize].submitted = now;
                    self.timed_in_flight += 1;
                }
            }
            n += pending.len();
            self.timed_queued = pending;
            self.timed_queued.clear();
        }
        let queued = std::mem::take(&mut self.queued);
        for io in &queued {
            let result = self.execute(io);
            self.done.push_back(Completion::new(io.tag, result));
        }
        n += queued.len();
        self.queued = queued;
        self.queued.clear();
        Ok(n)
    }

    fn disk_counts(&self) -> &[DiskCounts] {
        &self.counts
    }

    fn next_event(&self) -> Option<u64> {
        if self.timed_in_flight == 0 {
            return None;
        }
        self.timing.iter().flatten().filter_map(|(t, _)| t.next_event()).min()
    }

    fn getevents(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let mut got = 0;
        if self.timed_in_flight > 0 {
            let now = self.clock.now_ns();
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            for (t, engine) in self.timing.iter().flatten() {
                t.take(*engine, now, &mut scratch);
            }
            for &(tag, at) in &scratch {
                let slot = self.slot_info[tag as usize];
                self.in_flight[tag as usize] = false;
                if let Some(d) = slot.dir
                    && slot.result >= 0
                {
                    self.counts[slot.file as usize].ticks_ns[d] += at.saturating_sub(slot.submitted);
                }
                out.push(Completion { tag, result: slot.result, at_ns: at });
            }
            got += scratch.len();
            self.timed_in_flight -= scratch.len();
            self.scratch = scratch;
        }
        let n = min.saturating_sub(got).min(self.done.len());
        if n == 0 {
            return Ok(got);
        }
        let now = self.clock.now_ns();
        for mut c in self.done.drain(..n) {
            self.in_flight[c.tag as usize] = false;
            c.at_ns = now;
            out.push(c);
        }
        Ok(got + n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonekit_core::{Command, Done, TimingModel};
    use zonekit_core::{Errno, ZoneCond};
    use zonekit_dev::{EmulatedDevice, profile, store::MemoryStore};

    fn device(name: &str) -> Arc<dyn ZonedDevice> {
        let c = profile(name).unwrap().config();
        let kind = zonekit_core::DeviceKind::Emulated { store: "memory".into(), profile: None };
        Arc::new(EmulatedDevice::new(name, kind, &c, Box::new(MemoryStore::new())))
    }

    fn engine(dev: &Arc<dyn ZonedDevice>, depth: u32, sync: bool) -> DeviceEngine {
        let cfg = DeviceEngineConfig { depth, buffer_size: 65536, sync, clock: RealClock::new(), timing: Vec::new() };
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

    /// A drive that serves one command at a time, in arrival order: `per_cmd` ns each, plus
    /// `per_sector` ns per media sector.
    #[derive(Debug)]
    struct Fifo {
        per_cmd: u64,
        per_sector: u64,
        queue: VecDeque<(u64, Command)>,
        /// The command in service and when it ends.
        busy: Option<(Command, u64)>,
        done: VecDeque<Done>,
    }

    impl Fifo {
        fn new(per_cmd: u64, per_sector: u64) -> Fifo {
            Fifo { per_cmd, per_sector, queue: VecDeque::new(), busy: None, done: VecDeque::new() }
        }

        fn run(&mut self, t: u64) {
            loop {
                match self.busy {
                    Some((c, end)) if end <= t => {
                        self.done.push_back(Done { id: c.id, at_ns: end });
                        self.busy = None;
                        if let Some((arr, next)) = self.queue.pop_front() {
                            let start = end.max(arr);
                            self.busy = Some((next, start + self.per_cmd + self.per_sector * next.media_sectors));
                        }
                    }
                    _ => return,
                }
            }
        }
    }

    impl TimingModel for Fifo {
        fn name(&self) -> &str {
            "fifo-test"
        }
        fn submit(&mut self, t: u64, cmd: Command) {
            self.run(t);
            if self.busy.is_none() {
                self.busy = Some((cmd, t + self.per_cmd + self.per_sector * cmd.media_sectors));
            } else {
                self.queue.push_back((t, cmd));
            }
        }
        fn next_event(&self) -> Option<u64> {
            self.busy.map(|(_, end)| end)
        }
        fn complete_until(&mut self, t: u64, out: &mut Vec<Done>) {
            self.run(t);
            out.extend(self.done.drain(..));
        }
        fn params(&self) -> Vec<zonekit_core::Param> {
            Vec::new()
        }
    }

    #[test]
    fn a_timed_device_completes_at_its_models_times_in_simulated_time() {
        use crate::sim::{Scheduler, SimClock};
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        let timing = Arc::new(DeviceTiming::new(Box::new(Fifo::new(1_000, 10))));
        let clock = SimClock::new();
        let cfg = DeviceEngineConfig {
            depth: 4,
            buffer_size: 65536,
            sync: false,
            clock: clock.clone(),
            timing: vec![Some(timing.clone())],
        };
        let mut e = DeviceEngine::new(vec![dev.clone()], cfg).unwrap();
        let c2 = clock.clone();
        let task = Box::pin(async move {
            for t in 0..4 {
                assert_eq!(e.queue(&io(t, Ddir::Write, zone + u64::from(t) * 4096, 4096)), Queued::Queued);
            }
            e.commit().unwrap();
            let mut out = Vec::new();
            assert_eq!(e.getevents(1, &mut out).unwrap(), 0, "nothing is done at time 0");
            while out.len() < 4 {
                let t = e.next_event().expect("in flight");
                c2.sleep_until(t).await;
                e.getevents(1, &mut out).unwrap();
            }
            assert_eq!(e.next_event(), None);
            // A reset is a command too, queued when nothing else waits for a commit.
            assert_eq!(e.queue(&io(0, Ddir::ZoneReset, zone, zone as u32)), Queued::Queued);
            e.commit().unwrap();
            c2.sleep_until(e.next_event().unwrap()).await;
            e.getevents(1, &mut out).unwrap();
            (out, e.disk_counts()[0])
        }) as crate::sim::Task<'static, (Vec<Completion>, DiskCounts)>;
        let (out, counts) = Scheduler::new(clock.clone()).run(vec![task], |_| {}).pop().flatten().unwrap();
        // 1 µs + 8 sectors × 10 ns each, one after the other; then the reset (1 µs).
        let times: Vec<u64> = out.iter().map(|c| c.at_ns).collect();
        assert_eq!(times, [1_080, 2_160, 3_240, 4_320, 5_320]);
        assert!(out.iter().all(|c| c.result >= 0));
        assert_eq!(clock.now_ns(), 5_320);
        assert_eq!(counts.ios, [0, 4]);
        assert_eq!(counts.ticks_ns[1], 1_080 + 2_160 + 3_240 + 4_320, "each from submission (0) to completion");
        assert_eq!(timing.busy_ns(), 5_320);
    }

    /// Real-time pacing: each completion is handed back no earlier than its model time, and
    /// soon after it (the bound is 5 ms so that a loaded 2-core CI machine passes; typical figures
    /// are in docs/models.md).
    #[test]
    fn a_timed_device_on_the_real_clock_paces_completions() {
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        // 2 ms per command.
        let timing = Arc::new(DeviceTiming::new(Box::new(Fifo::new(2_000_000, 0))));
        let clock = RealClock::new();
        let cfg = DeviceEngineConfig { depth: 2, buffer_size: 65536, sync: true, clock, timing: vec![Some(timing)] };
        let mut e = DeviceEngine::new(vec![dev.clone()], cfg).unwrap();
        let mut lateness = Vec::new();
        let t0 = clock.now_ns();
        for i in 0..10u64 {
            assert_eq!(e.queue(&io(0, Ddir::Write, zone + i * 4096, 4096)), Queued::Queued);
            e.commit().unwrap();
            let mut out = Vec::new();
            loop {
                e.getevents(1, &mut out).unwrap();
                if let Some(c) = out.first() {
                    let now = clock.now_ns();
                    assert!(now >= c.at_ns, "handed back at {now} before its time {}", c.at_ns);
                    lateness.push(now - c.at_ns);
                    break;
                }
                crate::run_to_completion(clock.sleep_until(e.next_event().unwrap()));
            }
        }
        let total = clock.now_ns() - t0;
        assert!(total >= 20_000_000, "10 commands of 2 ms took {total} ns");
        let worst = lateness.iter().max().copied().unwrap_or(0);
        eprintln!("pacing: worst lateness {worst} ns over {} completions", lateness.len());
        assert!(worst < 5_000_000, "a completion came {worst} ns after its model time");
    }
}
