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
