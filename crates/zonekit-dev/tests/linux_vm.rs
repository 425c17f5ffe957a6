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
//! The differential of the kernel against the emulation is zonekit-blk's
//! (`crates/zonekit-blk/tests/linux_vm.rs`): what users see goes through the block layer.
//!
//! `record` (with `ZONEKIT_RECORD_DIR`) saves raw `BLKREPORTZONE` replies and sysfs files for
//! `testdata/linux/` (see its README).

use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use zonekit_core::{
    BlockIo, DeviceError, DeviceKind, Errno, Personality, Zone, ZoneCond, ZoneManagement, ZoneOp, ZoneReport,
    ZonedDevice,
};
use zonekit_dev::linux::{self, LinuxDevice, sys};

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

/// Whether the running kernel is at least `major.minor`.
fn kernel_at_least(major: u32, minor: u32) -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut parts = release.trim().split(['.', '-', '+']).map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (major, minor)
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
        // From 6.10 the block layer checks writes to a partly written zone against its write
        // plug, and resets of conventional zones itself: EIO before the device sees them.
        let plugged = if kernel_at_least(6, 10) { Errno::EIO } else { bad };
        assert_eq!(errno(&d.write_at(z1, &[0u8; 4096])), Some(plugged), "write behind the wp");
        assert_eq!(errno(&d.write_at(2 * zs + 64, &[0u8; 4096])), Some(bad), "write ahead of the wp");
        assert_eq!(errno(&d.zone_mgmt(ZoneOp::Reset, 0, zs)), Some(plugged), "reset of a conventional zone");
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
