//! A clean close keeps everything a powered device keeps: random operation sequences run on a
//! persistent device that is closed cleanly and reopened at random points, and on a device that
//! is never reopened; after every operation both give the same result (success, or the same
//! errno), the same zone report (conditions, write pointers) and the same counters. Zones closed
//! to make room under the open limit show in the reports, so the eviction choices are compared
//! too. All three personalities, always with an open limit, often with an active one.
//!
//! `PROPTEST_CASES` sets the number of cases per personality (default 200).

mod disk;

use disk::LossyDir;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use zonekit_core::{BlockIo, DeviceKind, Personality, Zone, ZoneCond, ZoneManagement, ZoneOp, ZoneReport};
use zonekit_dev::persistent::{create_in, open_in};
use zonekit_dev::store::MemoryStore;
use zonekit_dev::{DataMode, DeviceConfig, EmulatedDevice, GeometrySpec};

#[derive(Debug, Clone)]
enum Op {
    /// A write at the zone's write pointer (or just past it), of 1 to 4 blocks.
    Write {
        zone: u8,
        blocks: u8,
        off_wp: bool,
    },
    Append {
        zone: u8,
        blocks: u8,
    },
    Mgmt {
        op: u8,
        zone: u8,
    },
    ResetAll,
    SetCond {
        zone: u8,
        offline: bool,
    },
    Flush,
    /// Close the persistent device cleanly and open it again.
    Reopen,
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (any::<u8>(), 1u8..=4, prop::bool::weighted(0.1))
            .prop_map(|(zone, blocks, off_wp)| Op::Write { zone, blocks, off_wp }),
        1 => (any::<u8>(), 1u8..=4).prop_map(|(zone, blocks)| Op::Append { zone, blocks }),
        6 => (any::<u8>(), any::<u8>()).prop_map(|(op, zone)| Op::Mgmt { op, zone }),
        1 => Just(Op::ResetAll),
        1 => (any::<u8>(), any::<bool>()).prop_map(|(zone, offline)| Op::SetCond { zone, offline }),
        1 => Just(Op::Flush),
        3 => Just(Op::Reopen),
    ]
}

fn config_strategy(personality: Personality) -> impl Strategy<Value = DeviceConfig> {
    (4u32..=9, 0u32..=2, any::<bool>(), any::<bool>(), 1u32..=3, 0u32..=2).prop_map(
        move |(nr_zones, nr_conv, small_cap, big_blocks, max_open, extra_active)| {
            let nr_conv = nr_conv.min(nr_zones - 2);
            let max_active = if extra_active == 0 { 0 } else { max_open + extra_active - 1 };
            GeometrySpec {
                zone_size: 32 * 1024,
                nr_zones,
                nr_conv_zones: nr_conv,
                zone_capacity: Some(if small_cap { 24 * 1024 } else { 32 * 1024 }),
                max_open,
                max_active,
                block_size: if big_blocks { 4096 } else { 512 },
                personality,
            }
            .into_config()
            .expect("a valid configuration")
        },
    )
}

fn report(d: &dyn ZoneReport) -> Vec<Zone> {
    let mut out = Vec::new();
    d.report_zones(0, usize::MAX, &mut out).unwrap();
    out
}

/// Run `op` on `d`; the outcome as the user sees it: success, or the errno.
fn run(d: &EmulatedDevice, op: &Op) -> Result<(), String> {
    let g = &d.info().geometry;
    let lbs = u64::from(g.logical_block_size);
    let zone = |z: u8| u32::from(z) % g.nr_zones;
    let r = match *op {
        Op::Write { zone: z, blocks, off_wp } => {
            let z = report(d)[zone(z) as usize];
            let wp = if z.cond.is_active() || z.cond == ZoneCond::Empty { z.wp } else { z.start };
            let at = wp + u64::from(off_wp) * g.lbs_sectors();
            let buf = vec![0x5a; (u64::from(blocks) * lbs) as usize];
            d.write_at(at, &buf)
        }
        Op::Append { zone: z, blocks } => {
            let start = g.zone_start(zone(z));
            d.zone_append(start, &vec![0xa5; (u64::from(blocks) * lbs) as usize]).map(|_| ())
        }
        Op::Mgmt { op, zone: z } => {
            let z = zone(z);
            d.zone_mgmt(ZoneOp::ALL[usize::from(op % 4)], g.zone_start(z), g.zone_len(z))
        }
        Op::ResetAll => d.zone_mgmt(ZoneOp::Reset, 0, g.capacity),
        Op::SetCond { zone: z, offline } => {
            d.set_zone_cond(zone(z), if offline { ZoneCond::Offline } else { ZoneCond::ReadOnly })
        }
        Op::Flush => d.flush(),
        Op::Reopen => Ok(()),
    };
    r.map_err(|e| format!("{:?}", e.errno()))
}

fn check(config: &DeviceConfig, ops: &[Op]) -> Result<(), TestCaseError> {
    let dir = LossyDir::new();
    let mut persistent = Some(create_in(Box::new(dir.clone()), "persistent", config, DataMode::Files).unwrap());
    let powered = EmulatedDevice::new(
        "powered",
        DeviceKind::Emulated { store: "memory".into(), profile: None },
        config,
        Box::new(MemoryStore::new()),
    );
    let mut log = Vec::new();
    for op in ops {
        log.push(format!("{op:?}"));
        let fail = |why: String| TestCaseError::fail(format!("{why}\nafter:\n  {}", log.join("\n  ")));
        if let Op::Reopen = op {
            let d = persistent.take().unwrap();
            d.close().map_err(|e| fail(format!("close: {e}")))?;
            drop(d);
            persistent = Some(open_in(Box::new(dir.clone()), "persistent", true).map_err(|e| fail(format!("{e}")))?);
        }
        let p = persistent.as_ref().unwrap();
        let (a, b) = (run(p, op), run(&powered, op));
        if a != b {
            return Err(fail(format!("reopened: {a:?}, powered: {b:?}")));
        }
        let (ra, rb) = (report(p), report(&powered));
        if ra != rb {
            return Err(fail(format!("reopened:\n  {ra:?}\npowered:\n  {rb:?}")));
        }
        if p.counters() != powered.counters() {
            return Err(fail(format!("counters: reopened {:?}, powered {:?}", p.counters(), powered.counters())));
        }
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
}

fn check_personality(p: Personality) {
    let mut runner = TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
    let strategy = (config_strategy(p), prop::collection::vec(op_strategy(), 1..120));
    if let Err(e) = runner.run(&strategy, |(config, ops)| check(&config, &ops)) {
        panic!("{p}: {e}");
    }
}

#[test]
fn nullblk_reopened_cleanly_is_the_powered_device() {
    check_personality(Personality::NullBlk);
}

#[test]
fn zbc_reopened_cleanly_is_the_powered_device() {
    check_personality(Personality::Zbc);
}

#[test]
fn zns_reopened_cleanly_is_the_powered_device() {
    check_personality(Personality::Zns);
}
