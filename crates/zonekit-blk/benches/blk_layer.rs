//! What zonekit's block layer costs (a plain `harness = false` bench).
//!
//! `cargo bench -p zonekit-blk --bench blk_layer` runs the same sequence of 4 KiB writes over 64
//! sequential zones of an in-memory emulated device (round robin over the zones, each at its write
//! pointer; a zone that fills up is reset), for `ZONEKIT_BENCH_SECS` seconds (default 3) each:
//! - `device`: straight to the device (`write_at`, `zone_mgmt`);
//! - `blk-qd32`: through the block layer: the in-process engine at iodepth 32 over the device's
//!   request queue (split checks, zone write plugs with their cached write pointers, completion
//!   routing), refilling every free slot, one commit, then reaping what completed;
//! - `blk-qd32-qd1-writes`: the same with `zoned_qd1_writes` on.
//!
//! Each row prints ns per I/O and IOPS, and the block-layer rows their IOPS as a share of the
//! device's (the target: at least 90 %).

use std::sync::Arc;
use std::time::{Duration, Instant};

use zonekit_blk::engine::{Completion, Ddir, Io, Queued};
use zonekit_blk::{DeviceEngineConfig, DeviceQueue, QueueConfig, RealClock, open_device_engine};
use zonekit_core::{DeviceKind, Personality, ZoneOp, ZonedDevice};
use zonekit_dev::store::MemoryStore;
use zonekit_dev::{EmulatedDevice, GeometrySpec};

const BS: u64 = 4096;
const ZONES: u64 = 64;
/// 4 MiB zones: 1024 writes each before a reset.
const ZONE_BYTES: u64 = 4 << 20;

fn device() -> Arc<dyn ZonedDevice> {
    let spec = GeometrySpec {
        zone_size: ZONE_BYTES,
        nr_zones: ZONES as u32 + 1,
        nr_conv_zones: 1,
        zone_capacity: None,
        max_open: 0,
        max_active: 0,
        block_size: 512,
        personality: Personality::NullBlk,
    };
    let config = spec.into_config().expect("valid geometry");
    let kind = DeviceKind::Emulated { store: "memory".into(), profile: None };
    Arc::new(EmulatedDevice::new("bench", kind, &config, Box::new(MemoryStore::new())))
}

/// The sequence: the next write's byte offset, and whether its zone must be reset first.
struct Seq {
    next_zone: u64,
    wp: Vec<u64>,
}

impl Seq {
    fn new() -> Seq {
        Seq { next_zone: 0, wp: vec![0; ZONES as usize] }
    }

    fn next(&mut self) -> (u64, bool) {
        let z = self.next_zone;
        self.next_zone = (z + 1) % ZONES;
        let reset = self.wp[z as usize] == ZONE_BYTES;
        if reset {
            self.wp[z as usize] = 0;
        }
        let off = (z + 1) * ZONE_BYTES + self.wp[z as usize];
        self.wp[z as usize] += BS;
        (off, reset)
    }
}

fn secs() -> Duration {
    Duration::from_secs_f64(std::env::var("ZONEKIT_BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0))
}

fn direct() -> f64 {
    let dev = device();
    let buf = vec![0xa5u8; BS as usize];
    let mut seq = Seq::new();
    let (t0, limit) = (Instant::now(), secs());
    let mut n = 0u64;
    while t0.elapsed() < limit {
        for _ in 0..1024 {
            let (off, reset) = seq.next();
            if reset {
                let z = off / ZONE_BYTES;
                dev.zone_mgmt(ZoneOp::Reset, z * ZONE_BYTES / 512, ZONE_BYTES / 512).expect("reset");
            }
            dev.write_at(off / 512, &buf).expect("write");
        }
        n += 1024;
    }
    t0.elapsed().as_nanos() as f64 / n as f64
}

fn through_blk(qd1: bool) -> f64 {
    let dev = device();
    let mut config = QueueConfig::for_device(&*dev);
    config.settings.zoned_qd1_writes = qd1;
    let queue = Arc::new(DeviceQueue::new(dev, config, None));
    let ecfg = DeviceEngineConfig {
        depth: 32,
        buffer_size: BS as usize,
        sync: false,
        clock: RealClock::new(),
        scsi: None,
        buffer_offset: 0,
        buffer_memory: Default::default(),
    };
    let mut e = open_device_engine(vec![queue], ecfg).expect("engine");
    let mut free: Vec<u32> = (0..32).collect();
    for t in 0..32 {
        e.buffer(t).fill(0xa5);
    }
    let mut seq = Seq::new();
    let mut out: Vec<Completion> = Vec::with_capacity(32);
    let (t0, limit) = (Instant::now(), secs());
    let mut n = 0u64;
    while t0.elapsed() < limit {
        for _ in 0..1024 {
            while let Some(tag) = free.pop() {
                let (off, reset) = seq.next();
                if reset {
                    let z = off / ZONE_BYTES;
                    let r = Io { tag, ddir: Ddir::ZoneReset, file: 0, offset: z * ZONE_BYTES, len: ZONE_BYTES as u32 };
                    // Inline once nothing waits for a commit.
                    if e.queue(&r) == Queued::Busy {
                        e.commit().expect("commit");
                        assert_eq!(e.queue(&r), Queued::Completed(0));
                    }
                }
                let io = Io { tag, ddir: Ddir::Write, file: 0, offset: off, len: BS as u32 };
                assert_eq!(e.queue(&io), Queued::Queued);
                n += 1;
            }
            e.commit().expect("commit");
            out.clear();
            e.getevents(32, usize::MAX, &mut out).expect("getevents");
            for c in &out {
                assert_eq!(c.result, BS as i32);
                free.push(c.tag);
            }
        }
    }
    t0.elapsed().as_nanos() as f64 / n as f64
}

fn main() {
    let filter = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let want = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let mut base = None;
    for (name, run) in [
        ("device", direct as fn() -> f64),
        ("blk-qd32", || through_blk(false)),
        ("blk-qd32-qd1-writes", || through_blk(true)),
    ] {
        if !want(name) {
            continue;
        }
        let ns = run();
        let iops = 1e9 / ns;
        let share = match base {
            None => String::new(),
            Some(b) => format!("  {:5.1} % of the device's IOPS", 100.0 * iops / b),
        };
        if name == "device" {
            base = Some(iops);
        }
        println!("{name:<22} {ns:8.1} ns/IO  {:>10.0} IOPS{share}", iops);
    }
}
