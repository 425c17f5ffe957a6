use std::collections::VecDeque;

use super::*;
use zonekit_core::{Done, ZoneCond};
use zonekit_dev::{EmulatedDevice, profile, store::MemoryStore};

/// `zbc-small`: zone 0 conventional, SCSI ZBC (zone append emulated by the plugs).
fn device() -> Arc<dyn ZonedDevice> {
    let c = profile("zbc-small").unwrap().config();
    let kind = DeviceKind::Emulated { store: "memory".into(), profile: None };
    Arc::new(EmulatedDevice::new("zbc-small", kind, &c, Box::new(MemoryStore::new())))
}

fn queue(dev: &Arc<dyn ZonedDevice>, model: Option<Box<dyn TimingModel>>) -> (DeviceQueue, u32) {
    let mut config = QueueConfig::for_device(&**dev);
    config.reissue_ns = 0;
    let q = DeviceQueue::new(dev.clone(), config, model);
    let engine = q.register();
    (q, engine)
}

/// Submit `op` at `now` and return its result once it has completed, by `until`.
fn run(q: &DeviceQueue, engine: u32, now: u64, until: u64, op: QueueOp, sector: u64, sectors: u64) -> i32 {
    let mut buf = vec![0x5a; (sectors * 512) as usize];
    let len = if matches!(op, QueueOp::Write) { buf.len() } else { 0 };
    q.submit(now, QueueIo { engine, tag: 0, op, sector, sectors }, &mut buf[..len]);
    let mut out = Vec::new();
    q.take(engine, until, &mut out);
    assert_eq!(out.len(), 1, "{op:?} at {sector} completed by {until}");
    out[0].result
}

fn zone_cond(dev: &Arc<dyn ZonedDevice>, sector: u64) -> (ZoneCond, u64) {
    let mut zones = Vec::new();
    dev.report_zones(sector, 1, &mut zones).unwrap();
    (zones[0].cond, zones[0].wp)
}

/// Every command completes `delay` ns after it is sent.
#[derive(Debug)]
struct Delay {
    delay: u64,
    at_device: VecDeque<Done>,
}

impl TimingModel for Delay {
    fn name(&self) -> &str {
        "delay-test"
    }
    fn submit(&mut self, t: u64, cmd: Command) {
        self.at_device.push_back(Done { id: cmd.id, at_ns: t + self.delay });
    }
    fn next_event(&self) -> Option<u64> {
        self.at_device.front().map(|d| d.at_ns)
    }
    fn complete_until(&mut self, t: u64, out: &mut Vec<Done>) {
        while self.at_device.front().is_some_and(|d| d.at_ns <= t) {
            out.extend(self.at_device.pop_front());
        }
    }
    fn params(&self) -> Vec<zonekit_core::Param> {
        Vec::new()
    }
}

#[test]
fn a_range_failing_on_its_first_zone_leaves_the_later_zones_plugs_as_they_were() {
    let dev = device();
    let z = dev.info().geometry.zone_size;
    let (q, e) = queue(&dev, None);
    assert_eq!(run(&q, e, 0, 0, QueueOp::Write, z, 8), 4096);
    // Zones 0 (conventional: EIO from the block layer) and 1: the device resets zone 1, but its
    // bio carries zone 0's error, so zone 1's plug keeps its write pointer (Linux 6.12.95).
    assert_eq!(run(&q, e, 0, 0, QueueOp::Reset, 0, 2 * z), -libc::EIO);
    assert_eq!(zone_cond(&dev, z), (ZoneCond::Empty, z));
    assert_eq!(run(&q, e, 0, 0, QueueOp::Write, z, 8), -libc::EIO, "not at the plug's write pointer");
    // A reset of zone 1 alone completes without error and resets its plug.
    assert_eq!(run(&q, e, 0, 0, QueueOp::Reset, z, z), 0);
    assert_eq!(run(&q, e, 0, 0, QueueOp::Write, z, 8), 4096);
    assert_eq!(zone_cond(&dev, z), (ZoneCond::ImplicitOpen, z + 8));
}

#[test]
fn a_reset_resets_its_zones_plug_when_it_completes() {
    let dev = device();
    let z = dev.info().geometry.zone_size;
    let (q, e) = queue(&dev, Some(Box::new(Delay { delay: 1_000, at_device: VecDeque::new() })));
    assert_eq!(run(&q, e, 0, 1_000, QueueOp::Write, z, 8), 4096);
    // The reset is at the device from 2,000 to 3,000 ns: a write to the zone's start meanwhile
    // is checked against the plug's write pointer of before the reset, and fails in the block
    // layer at once.
    let mut none = [0u8; 0];
    q.submit(2_000, QueueIo { engine: e, tag: 1, op: QueueOp::Reset, sector: z, sectors: z }, &mut none);
    assert_eq!(run(&q, e, 2_500, 2_500, QueueOp::Write, z, 8), -libc::EIO);
    let mut out = Vec::new();
    q.take(e, 3_000, &mut out);
    assert_eq!(out.iter().map(|f| (f.tag, f.result, f.at_ns)).collect::<Vec<_>>(), [(1, 0, 3_000)]);
    // Once it has completed, the plug is at the zone's start (and no longer waits for a report
    // after the failed write).
    assert_eq!(run(&q, e, 3_000, 4_000, QueueOp::Write, z, 8), 4096);
}

/// The cached write-pointer offset of `zone`'s plug, if it has one.
fn plug_wp(q: &DeviceQueue, zone: u32) -> Option<u64> {
    q.lock().plugs.as_ref().and_then(|p| p.wp_offset(zone))
}

#[test]
fn a_finish_drops_its_zones_plug_when_it_completes() {
    let dev = device();
    let z = dev.info().geometry.zone_size;
    let (q, e) = queue(&dev, Some(Box::new(Delay { delay: 1_000, at_device: VecDeque::new() })));
    assert_eq!(run(&q, e, 0, 1_000, QueueOp::Write, z, 8), 4096);
    assert_eq!(plug_wp(&q, 1), Some(8));
    // The finish is at the device from 2,000 to 3,000 ns: the device's zone is full from its
    // sending, but the plug keeps its write pointer until the finish completes.
    let mut none = [0u8; 0];
    q.submit(2_000, QueueIo { engine: e, tag: 1, op: QueueOp::Finish, sector: z, sectors: z }, &mut none);
    let mut out = Vec::new();
    q.take(e, 2_500, &mut out);
    assert!(out.is_empty());
    assert_eq!(plug_wp(&q, 1), Some(8));
    assert_eq!(zone_cond(&dev, z).0, ZoneCond::Full);
    q.take(e, 3_000, &mut out);
    assert_eq!(out.iter().map(|f| (f.tag, f.result, f.at_ns)).collect::<Vec<_>>(), [(1, 0, 3_000)]);
    // Once it has completed, the zone is full and nothing of it is in flight: its plug is gone
    // (`disk_zone_wplug_set_wp_offset` then `disk_remove_zone_wplug` in Linux 6.12).
    assert_eq!(plug_wp(&q, 1), None);
    // A reset makes the zone writable again from its start.
    assert_eq!(run(&q, e, 3_000, 4_000, QueueOp::Reset, z, z), 0);
    assert_eq!(run(&q, e, 4_000, 5_000, QueueOp::Write, z, 8), 4096);
}

/// Writes complete `write` ns after they are sent, everything else `other` ns.
#[derive(Debug)]
struct KindDelay {
    write: u64,
    other: u64,
    at_device: Vec<Done>,
}

impl TimingModel for KindDelay {
    fn name(&self) -> &str {
        "kind-delay-test"
    }
    fn submit(&mut self, t: u64, cmd: Command) {
        let d = if cmd.kind == CommandKind::Write { self.write } else { self.other };
        self.at_device.push(Done { id: cmd.id, at_ns: t + d });
        self.at_device.sort_by_key(|d| std::cmp::Reverse(d.at_ns));
    }
    fn next_event(&self) -> Option<u64> {
        self.at_device.last().map(|d| d.at_ns)
    }
    fn complete_until(&mut self, t: u64, out: &mut Vec<Done>) {
        while self.at_device.last().is_some_and(|d| d.at_ns <= t) {
            out.extend(self.at_device.pop());
        }
    }
    fn params(&self) -> Vec<zonekit_core::Param> {
        Vec::new()
    }
}

#[test]
fn a_finish_fails_the_writes_waiting_in_its_zones_plug() {
    let dev = device();
    let z = dev.info().geometry.zone_size;
    let mut config = QueueConfig::for_device(&*dev);
    config.settings.zoned_qd1_writes = false;
    config.reissue_ns = 0;
    let model = KindDelay { write: 1_000, other: 100, at_device: Vec::new() };
    let q = DeviceQueue::new(dev.clone(), config, Some(Box::new(model)));
    let e = q.register();
    let mut buf = vec![0x5a; 4096];
    // Write 0 is at the device from 0 to 1,000 ns; write 1 waits in the plug behind it.
    q.submit(0, QueueIo { engine: e, tag: 0, op: QueueOp::Write, sector: z, sectors: 8 }, &mut buf);
    q.submit(10, QueueIo { engine: e, tag: 1, op: QueueOp::Write, sector: z + 8, sectors: 8 }, &mut buf);
    assert_eq!(q.lock().plugs.as_ref().unwrap().waiting(), 1);
    // The finish, sent at 20 ns, completes at 120 ns: write 1 fails with the plug (EIO) and never
    // reaches the device; write 0, carried out before the finish, completes as it was.
    let mut none = [0u8; 0];
    q.submit(20, QueueIo { engine: e, tag: 2, op: QueueOp::Finish, sector: z, sectors: z }, &mut none);
    let mut out = Vec::new();
    q.take(e, 10_000, &mut out);
    let got: Vec<(u32, i32, u64)> = out.iter().map(|f| (f.tag, f.result, f.at_ns)).collect();
    assert_eq!(got, [(2, 0, 120), (1, -libc::EIO, 120), (0, 4096, 1_000)]);
    // Once write 0 is done, nothing of the full zone is in flight: its plug is gone.
    assert_eq!(plug_wp(&q, 1), None);
    assert_eq!(zone_cond(&dev, z), (ZoneCond::Full, 2 * z));
}

#[test]
fn a_finish_of_a_range_failing_on_its_first_zone_leaves_the_later_zones_plugs_as_they_were() {
    let dev = device();
    let z = dev.info().geometry.zone_size;
    let (q, e) = queue(&dev, None);
    assert_eq!(run(&q, e, 0, 0, QueueOp::Write, z, 8), 4096);
    assert_eq!(run(&q, e, 0, 0, QueueOp::Write, 2 * z, 8), 4096);
    // Zone 0 is conventional (EIO from the block layer): the device finishes zones 1 and 2, but
    // their bios carry zone 0's error, so their plugs keep their write pointers.
    assert_eq!(run(&q, e, 0, 0, QueueOp::Finish, 0, 3 * z), -libc::EIO);
    assert_eq!(zone_cond(&dev, z).0, ZoneCond::Full);
    assert_eq!((plug_wp(&q, 1), plug_wp(&q, 2)), (Some(8), Some(8)));
    // A finish of zones 1 and 2 alone completes without error and drops both plugs.
    assert_eq!(run(&q, e, 0, 0, QueueOp::Finish, z, 2 * z), 0);
    assert_eq!((plug_wp(&q, 1), plug_wp(&q, 2)), (None, None));
    // Out of range or unaligned: EINVAL, nothing done.
    assert_eq!(run(&q, e, 0, 0, QueueOp::Finish, z + 8, z), -libc::EINVAL);
}

/// Per-zone plugs over a 1 µs device, a completion letting the next write go 500 ns later.
fn late_queue(dev: &Arc<dyn ZonedDevice>, pop_when_run: bool) -> (DeviceQueue, u32) {
    let mut config = QueueConfig::for_device(&**dev);
    config.settings.zoned_qd1_writes = false;
    config.reissue_ns = 500;
    config.pop_when_run = pop_when_run;
    let q = DeviceQueue::new(dev.clone(), config, Some(Box::new(Delay { delay: 1_000, at_device: VecDeque::new() })));
    let e = q.register();
    (q, e)
}

#[test]
fn the_work_item_takes_the_writes_that_wait_when_it_runs() {
    for pop_when_run in [true, false] {
        let dev = device();
        let z = dev.info().geometry.zone_size;
        let (q, e) = late_queue(&dev, pop_when_run);
        let mut buf = vec![0x5a; 4096];
        // Write 0 at the device from 0 to 1,000 ns; write 1 waits; the completion of write 0
        // wakes the zone's work item at 1,500 ns; write 2 arrives at 1,200 ns, meanwhile.
        q.submit(0, QueueIo { engine: e, tag: 0, op: QueueOp::Write, sector: z, sectors: 8 }, &mut buf);
        q.submit(10, QueueIo { engine: e, tag: 1, op: QueueOp::Write, sector: z + 8, sectors: 8 }, &mut buf);
        q.submit(1_200, QueueIo { engine: e, tag: 2, op: QueueOp::Write, sector: z + 16, sectors: 8 }, &mut buf);
        let mut out = Vec::new();
        q.take(e, 10_000, &mut out);
        let got: Vec<(u32, i32, u64)> = out.iter().map(|f| (f.tag, f.result, f.at_ns)).collect();
        if pop_when_run {
            // The work item pops the plug's list when it runs: writes 1 and 2 go as one request.
            assert_eq!(got, [(0, 4096, 1_000), (1, 4096, 2_500), (2, 4096, 2_500)]);
        } else {
            // Chosen at the completion: write 1 alone, then write 2 after its completion.
            assert_eq!(got, [(0, 4096, 1_000), (1, 4096, 2_500), (2, 4096, 4_000)]);
        }
        assert_eq!(zone_cond(&dev, z), (ZoneCond::ImplicitOpen, z + 24));
    }
}

#[test]
fn a_finish_before_the_work_item_runs_fails_the_write_it_would_have_sent() {
    let dev = device();
    let z = dev.info().geometry.zone_size;
    let (q, e) = late_queue(&dev, true);
    let mut buf = vec![0x5a; 4096];
    // Write 0 at the device from 0 to 1,000 ns, write 1 waiting; the finish, sent at 20 ns,
    // completes at 1,020 ns, between write 0's completion and the work item's run (1,500 ns):
    // write 1 is still in the plug's list, fails with it (EIO), and never reaches the device.
    q.submit(0, QueueIo { engine: e, tag: 0, op: QueueOp::Write, sector: z, sectors: 8 }, &mut buf);
    q.submit(10, QueueIo { engine: e, tag: 1, op: QueueOp::Write, sector: z + 8, sectors: 8 }, &mut buf);
    let mut none = [0u8; 0];
    q.submit(20, QueueIo { engine: e, tag: 2, op: QueueOp::Finish, sector: z, sectors: z }, &mut none);
    let mut out = Vec::new();
    q.take(e, 10_000, &mut out);
    let got: Vec<(u32, i32, u64)> = out.iter().map(|f| (f.tag, f.result, f.at_ns)).collect();
    assert_eq!(got, [(0, 4096, 1_000), (2, 0, 1_020), (1, -libc::EIO, 1_020)]);
    // The work item found nothing to send: the full zone's plug is gone.
    assert_eq!(plug_wp(&q, 1), None);
    assert_eq!(zone_cond(&dev, z), (ZoneCond::Full, 2 * z));
}
