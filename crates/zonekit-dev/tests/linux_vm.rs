//! Tests against real Linux zoned block devices: null_blk and scsi_debug (`zbc=managed`).
//!
//! Ignored by default: they need a kernel with zoned devices and root. `scripts/vm/linux-tests.sh`
//! sets the devices up inside the VM of `scripts/vm/run.sh` and runs this binary with
//! `--ignored --test-threads=1`. Devices are named by environment variables; a test skips a device
//! whose variable is unset, unless `ZONEKIT_TEST_REQUIRE=1` (the VM script sets it):
//!
//! - `ZONEKIT_TEST_NULLB`: a null_blk device, 16 zones of 4 MiB, zone 0 conventional,
//!   max_open 4, max_active 8, `memory_backed=1`;
//! - `ZONEKIT_TEST_NULLB_ZCAP`: the same with a 3 MiB zone capacity;
//! - `ZONEKIT_TEST_NULLB_4K`: null_blk with 4 KiB logical blocks, 16 zones of 4 MiB, zone 0
//!   conventional, max_open 6, no active limit;
//! - `ZONEKIT_TEST_ZBC`: a scsi_debug disk, 16 zones of 4 MiB, zone 0 conventional, max_open 4.
//!
//! Every test resets all zones first; the devices are used by one test at a time.
//!
//! `differential` runs the same scenarios on each real device and on an [`EmulatedDevice`] with
//! its geometry, limits and personality, and compares results, errnos, zone reports and data.
//! Differences that are known are listed in [`KNOWN_DIFFERENCES`], each under one of the
//! [`FINDINGS`] that says what the kernel did; the test fails on any other difference, and on a
//! known one that no longer happens (the emulation was changed: remove it).
//!
//! `record` (with `ZONEKIT_RECORD_DIR`) saves raw `BLKREPORTZONE` replies and sysfs files for
//! `testdata/linux/` (see its README).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use zonekit_core::{
    BlockIo, DeviceError, DeviceKind, Errno, Personality, Zone, ZoneCond, ZoneManagement, ZoneOp, ZoneReport,
    ZonedDevice,
};
use zonekit_dev::linux::{self, LinuxDevice, sys};
use zonekit_dev::store::MemoryStore;
use zonekit_dev::{DeviceConfig, EmulatedDevice};

/// A device under test, with what `scripts/vm/linux-tests.sh` made it.
struct Dev {
    label: &'static str,
    path: PathBuf,
    personality: Personality,
    /// Logical block size.
    lbs: u32,
    /// Zone capacity in sectors.
    zone_capacity: u64,
}

/// Label, environment variable, personality, logical block size, zone capacity in sectors.
const DEVICES: [(&str, &str, Personality, u32, u64); 4] = [
    ("nullb", "ZONEKIT_TEST_NULLB", Personality::NullBlk, 512, 8192),
    ("nullb-zcap", "ZONEKIT_TEST_NULLB_ZCAP", Personality::NullBlk, 512, 6144),
    ("nullb-4k", "ZONEKIT_TEST_NULLB_4K", Personality::NullBlk, 4096, 8192),
    ("zbc", "ZONEKIT_TEST_ZBC", Personality::Zbc, 512, 8192),
];

/// The devices named in the environment.
fn devices() -> Vec<Dev> {
    let require = std::env::var("ZONEKIT_TEST_REQUIRE").is_ok_and(|v| v == "1");
    let mut out = Vec::new();
    for (label, var, personality, lbs, zone_capacity) in DEVICES {
        match std::env::var_os(var) {
            Some(p) => out.push(Dev { label, path: PathBuf::from(p), personality, lbs, zone_capacity }),
            None if require => panic!("{var} is not set"),
            None => eprintln!("skipping {label}: {var} is not set"),
        }
    }
    out
}

fn open(dev: &Dev, writable: bool) -> LinuxDevice {
    let spec = dev.path.to_string_lossy().into_owned();
    LinuxDevice::open(&dev.path, &spec, writable).unwrap_or_else(|e| panic!("{}: open: {e}", dev.label))
}

fn errno<T>(r: &Result<T, DeviceError>) -> Option<Errno> {
    r.as_ref().err().map(DeviceError::errno)
}

fn zones(d: &dyn ZonedDevice) -> Vec<Zone> {
    let mut out = Vec::new();
    d.report_zones(0, usize::MAX, &mut out).expect("report zones");
    out
}

fn zone_at(d: &dyn ZonedDevice, sector: u64) -> Zone {
    let mut out = Vec::new();
    d.report_zones(sector, 1, &mut out).expect("report zone");
    out[0]
}

fn reset_all(d: &dyn ZonedDevice) {
    let cap = d.info().geometry.capacity;
    d.zone_mgmt(ZoneOp::Reset, 0, cap).expect("reset all zones");
}

fn sysfs_num(dev: &Dev, file: &str) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(&dev.path).unwrap();
    let (major, minor) = linux::dev_major_minor(meta.rdev());
    let dir = linux::block_sysfs_dir(Path::new("/sys"), major, minor).unwrap();
    std::fs::read_to_string(dir.join("queue").join(file)).unwrap().trim().parse().unwrap()
}

/// The errno of a zone-rule violation on this transport, as the kernel reports it.
fn rule_errno(p: Personality) -> Errno {
    match p {
        Personality::Zbc => Errno::EREMOTEIO,
        _ => Errno::EIO,
    }
}

/// Data that differs from sector to sector and from seed to seed (cheap to make: the tests run
/// unoptimised under an emulated CPU).
fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    for (i, sector) in v.chunks_mut(512).enumerate() {
        sector.fill((seed * 31 + i as u64 * 7) as u8 | 1);
        sector[0] = seed as u8;
    }
    v
}

#[test]
#[ignore = "needs a zoned block device (scripts/vm/linux-tests.sh)"]
fn report_and_info() {
    for dev in devices() {
        assert!(linux::is_zoned(&dev.path).unwrap(), "{}: is_zoned", dev.label);
        let d = open(&dev, true);
        reset_all(&d);
        let info = d.info().clone();
        println!("{}: {info:?}", dev.label);
        let g = &info.geometry;
        assert_eq!(info.kind, DeviceKind::Linux);
        assert_eq!(info.personality, dev.personality, "{}", dev.label);
        assert_eq!(info.model, "host-managed");
        assert_eq!((g.zone_size, g.nr_zones, g.nr_conv_zones, g.logical_block_size), (8192, 16, 1, dev.lbs));
        assert_eq!(g.capacity, 16 * 8192);
        let cap = dev.zone_capacity;
        assert_eq!(g.zone_capacity, cap, "{}", dev.label);
        assert_eq!(u64::from(info.limits.max_open), sysfs_num(&dev, "max_open_zones"));
        assert_eq!(u64::from(info.limits.max_active), sysfs_num(&dev, "max_active_zones"));
        assert_eq!(info.limits.max_append_sectors * 512, sysfs_num(&dev, "zone_append_max_bytes"));
        assert_eq!(info.rotational, sysfs_num(&dev, "rotational") != 0);
        if dev.personality == Personality::Zbc {
            assert_eq!(info.vendor, "Linux");
            assert!(info.description.starts_with("scsi_debug"), "{}", info.description);
        }

        let all = zones(&d);
        assert_eq!(all.len(), 16);
        for (i, z) in all.iter().enumerate() {
            assert_eq!((z.start, z.len), (i as u64 * 8192, 8192));
            if i == 0 {
                // null_blk says start + len; sd_zbc passes on scsi_debug's all-ones write pointer.
                let wp = if dev.personality == Personality::Zbc { u64::MAX } else { 8192 };
                assert_eq!((z.cond, z.wp, z.capacity), (ZoneCond::NotWp, wp, 8192), "{}: conventional zone", dev.label);
            } else {
                assert_eq!((z.cond, z.wp, z.capacity), (ZoneCond::Empty, z.start, cap), "zone {i}");
            }
        }
        let mut out = Vec::new();
        d.report_zones(8192 + 100, 2, &mut out).unwrap();
        assert_eq!(out.iter().map(|z| z.start).collect::<Vec<_>>(), [8192, 16384], "from inside zone 1");
        out.clear();
        d.report_zones(15 * 8192, 10, &mut out).unwrap();
        assert_eq!(out.len(), 1, "from the last zone");
        out.clear();
        d.report_zones(16 * 8192, 10, &mut out).unwrap();
        assert!(out.is_empty(), "past the end");
        d.report_zones(0, 0, &mut out).unwrap();
        assert!(out.is_empty(), "max 0");
        drop(d);

        // Read-only: reports work; management and writes are refused by the kernel (EBADF).
        let ro = open(&dev, false);
        assert_eq!(zones(&ro), all);
        assert_eq!(errno(&ro.zone_mgmt(ZoneOp::Open, 8192, 8192)), Some(Errno::EBADF));
        assert_eq!(errno(&ro.write_at(8192, &[0u8; 4096])), Some(Errno::EBADF));
        let mut b = vec![0u8; 4096];
        ro.read_at(0, &mut b).unwrap();
        assert_eq!(errno(&ro.read_at(0, &mut b[..512 + 1])), Some(Errno::EINVAL), "buffered reads keep whole blocks");
        ro.read_at(16 * 8192 - 8, &mut b).expect("read up to the end");
        assert_eq!(errno(&ro.read_at(16 * 8192 - 4, &mut b)), Some(Errno::EINVAL), "read past the end");
    }
}

#[test]
#[ignore = "needs a zoned block device (scripts/vm/linux-tests.sh)"]
fn zone_ops_and_errnos() {
    for dev in devices() {
        let d = open(&dev, true);
        reset_all(&d);
        let zs = d.info().geometry.zone_size;
        let bad = rule_errno(dev.personality);
        let z1 = zs;
        let cond = |s| zone_at(&d, s).cond;

        d.zone_mgmt(ZoneOp::Open, z1, zs).unwrap();
        assert_eq!(cond(z1), ZoneCond::ExplicitOpen);
        d.zone_mgmt(ZoneOp::Close, z1, zs).unwrap();
        assert_eq!(cond(z1), ZoneCond::Empty, "closing an open zone with nothing written empties it");
        d.write_at(z1, &[1u8; 8192]).unwrap();
        assert_eq!((cond(z1), zone_at(&d, z1).wp), (ZoneCond::ImplicitOpen, z1 + 16));
        d.zone_mgmt(ZoneOp::Close, z1, zs).unwrap();
        assert_eq!(cond(z1), ZoneCond::Closed);
        d.zone_mgmt(ZoneOp::Open, z1, zs).unwrap();
        assert_eq!(cond(z1), ZoneCond::ExplicitOpen);
        d.zone_mgmt(ZoneOp::Finish, z1, zs).unwrap();
        assert_eq!((cond(z1), zone_at(&d, z1).wp), (ZoneCond::Full, z1 + zs));
        assert_eq!(errno(&d.write_at(z1, &[0u8; 4096])), Some(bad), "write to a full zone");
        d.zone_mgmt(ZoneOp::Reset, z1, zs).unwrap();
        assert_eq!((cond(z1), zone_at(&d, z1).wp), (ZoneCond::Empty, z1));

        d.write_at(z1, &[1u8; 8192]).unwrap();
        assert_eq!(errno(&d.write_at(z1, &[0u8; 4096])), Some(bad), "write behind the wp");
        assert_eq!(errno(&d.write_at(2 * zs + 64, &[0u8; 4096])), Some(bad), "write ahead of the wp");
        assert_eq!(errno(&d.zone_mgmt(ZoneOp::Reset, 0, zs)), Some(bad), "reset of a conventional zone");
        assert_eq!(errno(&d.write_at(z1 + 16, &[0u8; 1000])), Some(Errno::EINVAL), "length not in blocks");
        if dev.lbs == 4096 {
            assert_eq!(errno(&d.write_at(z1 + 16, &[0u8; 512])), Some(Errno::EINVAL), "512 B on a 4 KiB device");
            assert_eq!(errno(&d.write_at(z1 + 17, &[0u8; 4096])), Some(Errno::EINVAL), "sector not in blocks");
        }
        for (s, n) in [(z1 + 8, zs), (z1, zs - 8), (z1, 0), (15 * zs, 2 * zs), (16 * zs, zs)] {
            assert_eq!(errno(&d.zone_mgmt(ZoneOp::Reset, s, n)), Some(Errno::EINVAL), "reset of ({s}, {n})");
        }

        reset_all(&d);
        let max_open = u64::from(d.info().limits.max_open);
        if max_open > 0 {
            for i in 1..=max_open {
                d.zone_mgmt(ZoneOp::Open, i * zs, zs).unwrap();
            }
            let next = (max_open + 1) * zs;
            assert_eq!(errno(&d.zone_mgmt(ZoneOp::Open, next, zs)), Some(Errno::ETOOMANYREFS), "open limit");
            assert_eq!(errno(&d.write_at(next, &[0u8; 4096])), Some(Errno::ETOOMANYREFS), "implicit open at the limit");
        }
        reset_all(&d);
    }
}

#[test]
#[ignore = "needs a zoned block device (scripts/vm/linux-tests.sh)"]
fn data_round_trip() {
    for dev in devices() {
        let d = open(&dev, true);
        reset_all(&d);
        let zs = d.info().geometry.zone_size;
        // Aligned (Vec of 64 KiB: page-aligned by the allocator or bounced) and unaligned buffers.
        let data = pattern(1, 65536);
        d.write_at(zs, &data).unwrap();
        let mut back = vec![0u8; 65536];
        d.read_at(zs, &mut back).unwrap();
        assert_eq!(back, data);
        let mut unaligned = vec![0u8; 8192 + 1];
        unaligned[1..].copy_from_slice(&pattern(2, 8192));
        d.write_at(zs + 128, &unaligned[1..]).unwrap();
        let mut back = vec![0u8; 8192 + 1];
        d.read_at(zs + 128, &mut back[1..]).unwrap();
        assert_eq!(back[1..], unaligned[1..]);
        assert_eq!(zone_at(&d, zs).wp, zs + 144);
        // Conventional zone: random writes.
        let conv = pattern(3, 4096);
        d.write_at(4000, &conv).unwrap();
        d.write_at(800, &conv).unwrap();
        let mut back = vec![0u8; 4096];
        d.read_at(4000, &mut back).unwrap();
        assert_eq!(back, conv);
        d.flush().unwrap();
        assert_eq!(errno(&d.zone_append(zs, &conv)), Some(Errno::EOPNOTSUPP));
        // The data survives a reopen read-only (buffered reads of what O_DIRECT wrote).
        drop(d);
        let ro = open(&dev, false);
        let mut back = vec![0u8; 65536];
        ro.read_at(zs, &mut back).unwrap();
        assert_eq!(back[..128 * 512], data[..128 * 512]);
        drop(ro);
        reset_all(&open(&dev, true));
    }
}

// ---------------------------------------------------------------------------------------------
// Differential: the real device against an emulated one.

/// One operation of a scenario.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Write `bytes` at a sector.
    W(u64, usize),
    /// Read `bytes` at a sector.
    R(u64, usize),
    /// Zone management over `(sector, nr)`.
    M(ZoneOp, u64, u64),
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Step::W(s, n) => write!(f, "write {n} B at sector {s}"),
            Step::R(s, n) => write!(f, "read {n} B at sector {s}"),
            Step::M(op, s, n) => write!(f, "{} ({s}, {n})", op.name()),
        }
    }
}

/// The scenarios, for a device of `nr` zones of `zs` sectors with zone capacity `cap`. Each starts
/// with a reset of the whole device.
fn scenarios(zs: u64, cap: u64, nr: u64) -> Vec<(&'static str, Vec<Step>)> {
    use Step::*;
    use ZoneOp::*;
    let z = |i: u64| i * zs;
    let end = nr * zs;
    let k4 = 4096;
    vec![
        (
            "write-pointer",
            vec![
                W(z(1), 8192),
                R(z(1), 16384),
                W(z(1), k4),
                W(z(2) + 64, k4),
                W(z(0) + 64, k4),
                R(z(0) + 64, k4),
                W(z(1) + 16, 1000),
                R(z(1), 1000),
            ],
        ),
        (
            "boundaries",
            vec![
                W(z(1) - 8, 8192),
                R(z(1) - 8, 8192),
                W(z(2), ((cap - 8) * 512) as usize),
                W(z(2) + cap - 8, 8192),
                R(z(2) + cap - 8, 8192),
                W(z(4) - 8, 8192),
                W(z(6), ((cap - 8) * 512) as usize),
                W(z(7), k4),
                W(z(6) + cap - 8, 8192),
                R(z(6) + cap - 8, 8192),
            ],
        ),
        (
            "device-end",
            vec![
                W(z(nr - 1), k4),
                W(end - 8, 8192),
                R(end - 8, 8192),
                M(Open, z(nr - 1), 2 * zs),
                M(Reset, end, zs),
                M(Finish, z(nr - 1), zs),
                W(end - 8, k4),
                M(Reset, z(nr - 1), zs),
                W(z(nr - 1), ((cap - 8) * 512) as usize),
                W(z(nr - 1) + cap - 8, 8192),
                R(z(nr - 1) + cap - 8, k4),
            ],
        ),
        (
            "management",
            vec![
                M(Open, z(1), zs),
                M(Close, z(1), zs),
                M(Open, z(2), zs),
                W(z(2), k4),
                M(Close, z(2), zs),
                M(Close, z(2), zs),
                M(Finish, z(2), zs),
                M(Open, z(2), zs),
                M(Close, z(2), zs),
                M(Finish, z(2), zs),
                W(z(2), k4),
                M(Close, z(3), zs),
                M(Finish, z(3), zs),
                M(Reset, z(3), zs),
                M(Reset, z(3), zs),
                M(Reset, z(0), zs),
                M(Open, z(0), zs),
                M(Close, z(0), zs),
                M(Finish, z(0), zs),
                W(z(4), k4),
                M(Finish, z(4), zs),
                M(Open, z(5), zs),
                M(Finish, z(5), zs),
                W(z(6), k4),
                M(Open, z(6), zs),
                M(Close, z(6), zs),
                M(Open, z(6), zs),
                W(z(6) + 8, k4),
            ],
        ),
        (
            "ranges",
            vec![
                M(Reset, z(1) + 8, zs),
                M(Reset, z(1), zs - 8),
                M(Reset, z(1), 0),
                M(Open, z(1), 3 * zs),
                M(Close, z(1), 5 * zs),
                M(Open, z(5), zs),
                M(Close, z(4), 2 * zs),
                W(z(7), k4),
                W(z(8), k4),
                M(Reset, 0, 9 * zs),
                M(Finish, z(9), 3 * zs),
                M(Reset, z(9), end - z(9)),
                M(Finish, z(2), zs),
                M(Open, z(1), 3 * zs),
                W(z(1), k4),
                M(Reset, 0, end),
            ],
        ),
        (
            "open-limit",
            vec![
                M(Open, z(1), zs),
                M(Open, z(2), zs),
                M(Open, z(3), zs),
                M(Open, z(4), zs),
                M(Open, z(5), zs),
                W(z(5), k4),
                M(Finish, z(5), zs),
                M(Close, z(1), zs),
                W(z(5), k4),
                W(z(6), k4),
                M(Open, z(7), zs),
                M(Open, z(8), zs),
                W(z(6) + 8, k4),
                W(z(9), k4),
                M(Close, z(2), 3 * zs),
                M(Open, z(1), 9 * zs),
            ],
        ),
        (
            "implicit-open-churn",
            (1..=10).map(|i| W(z(i), k4)).chain([W(z(2) + 8, k4), W(z(9) + 8, k4), W(z(1) + 8, k4)]).collect(),
        ),
        (
            "active-limit",
            (1..=8)
                .flat_map(|i| [W(z(i), k4), M(Close, z(i), zs)])
                .chain([
                    W(z(9), k4),
                    M(Open, z(9), zs),
                    M(Finish, z(9), zs),
                    W(z(3) + 8, k4),
                    M(Open, z(4), zs),
                    M(Finish, z(5), zs),
                    W(z(9), k4),
                ])
                .collect(),
        ),
        (
            "reads",
            vec![
                W(z(1), 8192),
                R(z(1) + 16, k4),
                R(z(3), k4),
                M(Reset, z(1), zs),
                R(z(1), k4),
                W(z(0), 8192),
                R(z(0), 8192),
                M(Finish, z(2), zs),
                R(z(2), k4),
                R(z(2) + cap - 8, 8192),
            ],
        ),
    ]
}

/// What a step did.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Ok,
    Data(Vec<u8>),
    Err(Errno),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Ok => f.write_str("ok"),
            Outcome::Data(d) => {
                let distinct: BTreeSet<u8> = d.iter().copied().collect();
                if distinct.len() == 1 {
                    write!(f, "ok, {} B of {:#04x}", d.len(), d[0])
                } else {
                    write!(f, "ok, {} B of data", d.len())
                }
            }
            Outcome::Err(e) => write!(f, "{}", e.name().unwrap_or("errno?")),
        }
    }
}

fn run_step(d: &dyn ZonedDevice, step: Step, seed: u64) -> Outcome {
    let r = match step {
        Step::W(s, n) => d.write_at(s, &pattern(seed, n)).map(|_| Outcome::Ok),
        Step::R(s, n) => {
            let mut b = vec![0u8; n];
            d.read_at(s, &mut b).map(|_| Outcome::Data(b))
        }
        Step::M(op, s, n) => d.zone_mgmt(op, s, n).map(|_| Outcome::Ok),
    };
    r.unwrap_or_else(|e| Outcome::Err(e.errno()))
}

fn describe_data(kernel: &[u8], emulated: &[u8]) -> String {
    match kernel.iter().zip(emulated).position(|(a, b)| a != b) {
        Some(i) => format!(
            "data differs from byte {i} (sector +{}): kernel {:#04x}, emulated {:#04x}; kernel bytes {i}.. are {}",
            i / 512,
            kernel[i],
            emulated[i],
            Outcome::Data(kernel[i..].to_vec())
        ),
        None => format!("lengths differ: kernel {}, emulated {}", kernel.len(), emulated.len()),
    }
}

fn describe_zone(z: &Zone) -> String {
    format!(
        "{}/wp {}",
        z.cond.short_name(),
        if z.wp == u64::MAX { "-1".to_string() } else { (z.wp - z.start).to_string() }
    )
}

/// One difference between the kernel and the emulation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Difference {
    device: &'static str,
    scenario: &'static str,
    step: usize,
    /// `result`, `data` or `zones`.
    what: &'static str,
    detail: String,
}

/// What the kernel (Linux 6.1.192, Debian 12) does that the emulation does not, by name.
const FINDINGS: &[(&str, &str)] = &[
    (
        "split-write",
        "A write at the write pointer that runs into the next zone succeeds: the block layer splits \
         bios at zone boundaries (chunk_sectors), and each part is checked on its own (the part in a \
         conventional zone anywhere, the part in the next zone at that zone's write pointer, here an \
         empty zone's start). The emulation refuses the whole write as a boundary crossing (EIO on \
         null_blk, EREMOTEIO on ZBC); reads of what the kernel wrote then differ too.",
    ),
    (
        "split-write-partial",
        "A write across a zone boundary of which one part fails still writes the other part: a \
         first part not at its zone's write pointer fails while the second part, at the next \
         (empty) zone's start, is written (the next zone becomes implicitly open with 8 sectors); a \
         first part at the write pointer is written (its zone becomes full) while the second part, \
         not at the next zone's write pointer, fails. The kernel returns EIO / EREMOTEIO; the \
         emulation writes nothing.",
    ),
    (
        "write-past-end",
        "A write past the end of the device is cut at the device end (blkdev_write_iter): the part \
         inside is written if it is at the write pointer (pwrite returns a short count; writing the \
         rest then fails with ENOSPC, which is what LinuxDevice::write_at returns), and fails with \
         the zone-rule errno (EIO / EREMOTEIO) if it is not. The emulation refuses the whole write \
         with EINVAL (out of range) and writes nothing.",
    ),
    (
        "range-all-zones",
        "Zone management over a range acts on every zone of the range even after one fails \
         (blkdev_zone_mgmt submits one chained bio per zone and waits for all of them): closing \
         [empty zone 4, open zone 5] on null_blk fails with EIO yet closes zone 5; resetting \
         [conventional zone 0 .. zone 8] fails with EIO / EREMOTEIO yet resets zones 1-8; opening \
         [zone 1, full zone 2, empty zone 3] on null_blk fails with EIO yet opens zone 3. The \
         emulation stops at the first failing zone.",
    ),
    (
        "range-errno",
        "The errno of a failed range operation is not the first failing zone's: opening zones 1-9 of \
         the null_blk 4 KiB device (max_open 6), zone 5 (full) fails with EIO and zones 6 and 9 (no \
         open resources left) with ETOOMANYREFS; the ioctl returns ETOOMANYREFS (a later bio's \
         status wins). The emulation returns EIO, its first failure; the zones end up the same.",
    ),
];

/// A difference that is known: a finding, where it shows (devices, scenario, step) and what.
struct Known {
    finding: &'static str,
    devices: &'static [&'static str],
    scenario: &'static str,
    step: usize,
    what: &'static str,
}

const ALL: &[&str] = &["nullb", "nullb-zcap", "nullb-4k", "zbc"];
/// Devices whose zone capacity is the zone size (a write can reach the zone end).
const FULL_CAP: &[&str] = &["nullb", "nullb-4k", "zbc"];
const NULL_BLK: &[&str] = &["nullb", "nullb-zcap", "nullb-4k"];

const fn known(
    finding: &'static str,
    devices: &'static [&'static str],
    scenario: &'static str,
    step: usize,
    what: &'static str,
) -> Known {
    Known { finding, devices, scenario, step, what }
}

/// Every difference seen in the VM, by finding.
const KNOWN_DIFFERENCES: &[Known] = &[
    known("split-write", ALL, "boundaries", 1, "result"),
    known("split-write", ALL, "boundaries", 1, "zones"),
    known("split-write", ALL, "boundaries", 2, "data"),
    known("split-write", FULL_CAP, "boundaries", 4, "result"),
    known("split-write", FULL_CAP, "boundaries", 4, "zones"),
    known("split-write", FULL_CAP, "boundaries", 5, "data"),
    known("split-write-partial", ALL, "boundaries", 6, "zones"),
    // With zones 1, 3 and 4 implicitly open on the kernel's side only, opening zone 7 closes
    // zone 1 to stay under max_open 4 (the 4 KiB device allows 6).
    known("split-write", &["nullb", "nullb-zcap", "zbc"], "boundaries", 8, "zones"),
    known("split-write-partial", FULL_CAP, "boundaries", 9, "zones"),
    known("split-write-partial", FULL_CAP, "boundaries", 10, "data"),
    known("write-past-end", ALL, "device-end", 2, "result"),
    known("write-past-end", FULL_CAP, "device-end", 10, "result"),
    known("write-past-end", FULL_CAP, "device-end", 10, "zones"),
    known("write-past-end", FULL_CAP, "device-end", 11, "data"),
    known("range-all-zones", NULL_BLK, "ranges", 7, "zones"),
    known("range-all-zones", ALL, "ranges", 10, "zones"),
    known("range-all-zones", NULL_BLK, "ranges", 14, "zones"),
    known("range-errno", &["nullb-4k"], "open-limit", 16, "result"),
];

fn emulated_twin(info: &zonekit_core::DeviceInfo) -> EmulatedDevice {
    let config = DeviceConfig {
        personality: info.personality,
        geometry: info.geometry.clone(),
        limits: info.limits.normalized(&info.geometry).expect("kernel limits are consistent"),
        profile: None,
        rotational: info.rotational,
        vendor: info.vendor.clone(),
        description: info.description.clone(),
        model: None,
        queue: info.queue,
    };
    let kind = DeviceKind::Emulated { store: "memory".into(), profile: None };
    EmulatedDevice::new(&format!("emulated {}", info.spec), kind, &config, Box::new(MemoryStore::new()))
}

fn differences(dev: &Dev, log: &mut String) -> Vec<Difference> {
    let real = open(dev, true);
    let info = real.info().clone();
    let emu = emulated_twin(&info);
    let g = &info.geometry;
    let mut diffs = Vec::new();
    // Zones that differ after the last step: zone index to description.
    let mut zone_diffs: BTreeMap<usize, String> = BTreeMap::new();
    let _ =
        writeln!(log, "== {} ({}, {:?}, limits {:?})", dev.label, dev.path.display(), info.personality, info.limits);
    for (scenario, steps) in scenarios(g.zone_size, g.zone_capacity, u64::from(g.nr_zones)) {
        let reset = Step::M(ZoneOp::Reset, 0, g.capacity);
        for (i, step) in std::iter::once(reset).chain(steps).enumerate() {
            let seed = i as u64 + 1;
            let k = run_step(&real, step, seed);
            let e = run_step(&emu, step, seed);
            let _ = writeln!(log, "{scenario:>20} #{i:<2} {step:<40} kernel: {k:<22} emulated: {e}");
            let mut found: Vec<(&'static str, String)> = Vec::new();
            match (&k, &e) {
                (Outcome::Data(a), Outcome::Data(b)) if a != b => found.push(("data", describe_data(a, b))),
                _ if k != e => found.push(("result", format!("{step}: kernel {k}, emulated {e}"))),
                _ => {}
            }
            // Zones that differ, reported when they start to differ or differ anew (a difference
            // that carries on unchanged from step to step is reported once).
            let (kz, ez) = (zones(&real), zones(&emu));
            assert_eq!(kz.len(), ez.len(), "{}: zone counts", dev.label);
            let now: BTreeMap<usize, String> = kz
                .iter()
                .zip(&ez)
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .map(|(n, (a, b))| {
                    let (da, db) = (describe_zone(a), describe_zone(b));
                    let text = if da == db {
                        format!("kernel {a:?}, emulated {b:?}")
                    } else {
                        format!("kernel {da}, emulated {db}")
                    };
                    (n, text)
                })
                .collect();
            let fresh: Vec<String> = now
                .iter()
                .filter(|(n, t)| zone_diffs.get(n) != Some(t))
                .map(|(n, t)| format!("zone {n}: {t}"))
                .collect();
            if !fresh.is_empty() {
                found.push(("zones", format!("after {step}: {}", fresh.join("; "))));
            }
            zone_diffs = now;
            for (what, detail) in found {
                let _ = writeln!(log, "   DIFF {what}: {detail}");
                diffs.push(Difference { device: dev.label, scenario, step: i, what, detail });
            }
        }
    }
    reset_all(&real);
    diffs
}

#[test]
#[ignore = "needs a zoned block device (scripts/vm/linux-tests.sh)"]
fn differential() {
    let mut log = String::new();
    let mut all = Vec::new();
    for dev in devices() {
        all.extend(differences(&dev, &mut log));
    }
    println!("{log}");
    let known: BTreeMap<(&str, &str, usize, &str), &str> = KNOWN_DIFFERENCES
        .iter()
        .flat_map(|k| k.devices.iter().map(move |&d| ((d, k.scenario, k.step, k.what), k.finding)))
        .collect();
    for k in KNOWN_DIFFERENCES {
        assert!(FINDINGS.iter().any(|f| f.0 == k.finding), "unknown finding {}", k.finding);
    }
    let tested: BTreeSet<&str> = devices().iter().map(|d| d.label).collect();
    let seen: BTreeSet<(&str, &str, usize, &str)> =
        all.iter().map(|d| (d.device, d.scenario, d.step, d.what)).collect();
    let unexpected: Vec<&Difference> =
        all.iter().filter(|d| !known.contains_key(&(d.device, d.scenario, d.step, d.what))).collect();
    let gone: Vec<_> = known.keys().filter(|k| tested.contains(k.0) && !seen.contains(*k)).collect();
    println!(
        "differences between the kernel and the emulation: {} ({} known)",
        all.len(),
        all.len() - unexpected.len()
    );
    for d in &all {
        let finding = known.get(&(d.device, d.scenario, d.step, d.what)).copied().unwrap_or("UNEXPECTED");
        println!("  [{finding}] {} {} #{} {}: {}", d.device, d.scenario, d.step, d.what, d.detail);
    }
    println!("findings:");
    for (name, text) in FINDINGS {
        if all.iter().any(|d| known.get(&(d.device, d.scenario, d.step, d.what)) == Some(name)) {
            println!("  [{name}] {text}");
        }
    }
    for d in &unexpected {
        println!("unexpected: (\"{}\", \"{}\", {}, \"{}\")", d.device, d.scenario, d.step, d.what);
    }
    assert!(unexpected.is_empty(), "unexpected differences: {unexpected:#?}");
    assert!(gone.is_empty(), "known differences that no longer happen (remove them): {gone:?}");
}

// ---------------------------------------------------------------------------------------------
// Recording test data.

/// Copy the sysfs files the backend reads (and the rest of `queue/`) into `out/<name>/`, keeping
/// the `device/driver` link's target as a (dangling) symlink.
fn record_sysfs(dev: &Dev, out: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(&dev.path)?;
    let (major, minor) = linux::dev_major_minor(meta.rdev());
    let dir = linux::block_sysfs_dir(Path::new("/sys"), major, minor)?;
    let name = dir.file_name().unwrap();
    let dst = out.join(name);
    std::fs::create_dir_all(dst.join("queue"))?;
    for e in std::fs::read_dir(dir.join("queue"))? {
        let e = e?;
        if e.file_type()?.is_file()
            && let Ok(text) = std::fs::read_to_string(e.path())
        {
            std::fs::write(dst.join("queue").join(e.file_name()), text)?;
        }
    }
    for f in ["device/vendor", "device/model", "device/rev", "dev", "size", "uevent"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(f)) {
            std::fs::create_dir_all(dst.join(f).parent().unwrap())?;
            std::fs::write(dst.join(f), text)?;
        }
    }
    for l in ["device/driver", "device/device/driver"] {
        if let Ok(target) = std::fs::read_link(dir.join(l)) {
            std::fs::create_dir_all(dst.join(l).parent().unwrap())?;
            std::os::unix::fs::symlink(target, dst.join(l))?;
            break;
        }
    }
    std::fs::write(out.join("sysfs-path"), format!("{}\n", dir.display()))
}

#[test]
#[ignore = "needs a zoned block device and ZONEKIT_RECORD_DIR (scripts/vm/linux-tests.sh)"]
fn record() {
    let Some(root) = std::env::var_os("ZONEKIT_RECORD_DIR").map(PathBuf::from) else {
        eprintln!("skipping: ZONEKIT_RECORD_DIR is not set");
        return;
    };
    for dev in devices() {
        let out = root.join(dev.label);
        std::fs::create_dir_all(out.join("sysfs")).unwrap();
        record_sysfs(&dev, &out.join("sysfs")).unwrap();
        let d = open(&dev, true);
        reset_all(&d);
        let fd = d.file().as_fd();
        let nr = sys::blkgetnrzones(fd).unwrap();
        let ioctls = format!(
            "BLKGETZONESZ {}\nBLKGETNRZONES {nr}\nBLKGETSIZE64 {}\nBLKSSZGET {}\nBLKPBSZGET {}\n",
            sys::blkgetzonesz(fd).unwrap(),
            sys::blkgetsize64(fd).unwrap(),
            sys::blksszget(fd).unwrap(),
            sys::blkpbszget(fd).unwrap(),
        );
        std::fs::write(out.join("ioctls.txt"), ioctls).unwrap();
        std::fs::write(out.join("report-reset.bin"), sys::blkreportzone(fd, 0, nr).unwrap()).unwrap();
        // Every condition a host can make: 1 imp_open (8 KiB written), 2 exp_open, 3 closed
        // (8 KiB), 4 full (finished), 5 full (written to its capacity), 6 exp_open with 4 KiB.
        let g = d.info().geometry.clone();
        let zs = g.zone_size;
        d.write_at(zs, &pattern(1, 8192)).unwrap();
        d.zone_mgmt(ZoneOp::Open, 2 * zs, zs).unwrap();
        d.write_at(3 * zs, &pattern(3, 8192)).unwrap();
        d.zone_mgmt(ZoneOp::Close, 3 * zs, zs).unwrap();
        d.zone_mgmt(ZoneOp::Finish, 4 * zs, zs).unwrap();
        d.write_at(5 * zs, &pattern(5, (g.zone_capacity * 512) as usize)).unwrap();
        d.zone_mgmt(ZoneOp::Open, 6 * zs, zs).unwrap();
        d.write_at(6 * zs, &pattern(6, 4096)).unwrap();
        std::fs::write(out.join("report-states.bin"), sys::blkreportzone(fd, 0, nr).unwrap()).unwrap();
        // A report from inside zone 2, room for 3 zones.
        std::fs::write(out.join("report-from-zone2.bin"), sys::blkreportzone(fd, 2 * zs + 100, 3).unwrap()).unwrap();
        // Past the end: the kernel returns a header with no zones.
        std::fs::write(out.join("report-past-end.bin"), sys::blkreportzone(fd, g.capacity, 4).unwrap()).unwrap();
        reset_all(&d);
        println!("recorded {} into {}", dev.label, out.display());
    }
}
