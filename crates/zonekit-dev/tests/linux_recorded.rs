//! The Linux backend's decoding, fed with data recorded on a real kernel (`testdata/linux/`, see its
//! README): raw `BLKREPORTZONE` replies, sysfs files and ioctl values of null_blk and scsi_debug
//! devices. No zoned kernel is needed; fake sysfs trees cover what the recordings cannot
//! (partitions, NVMe).

use std::path::{Path, PathBuf};
use zonekit_core::{DeviceError, DeviceKind, Personality, Zone, ZoneCond, ZoneType};
use zonekit_dev::linux::{self, KernelGeometry, Report, Sysfs, device_info, parse_report};

fn dir(label: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/linux").join(label)
}

fn report(label: &str, file: &str) -> Report {
    let buf = std::fs::read(dir(label).join(file)).unwrap();
    parse_report(&buf).unwrap_or_else(|e| panic!("{label}/{file}: {e}"))
}

/// `ioctls.txt`: one `NAME value` per line.
fn ioctls(label: &str) -> KernelGeometry {
    let text = std::fs::read_to_string(dir(label).join("ioctls.txt")).unwrap();
    let get = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
            .unwrap_or_else(|| panic!("{label}: no {name}"))
    };
    KernelGeometry {
        zone_size: get("BLKGETZONESZ") as u32,
        nr_zones: get("BLKGETNRZONES") as u32,
        size_bytes: get("BLKGETSIZE64"),
        logical_block_size: get("BLKSSZGET") as u32,
        physical_block_size: get("BLKPBSZGET") as u32,
    }
}

/// The recorded disk's sysfs directory (`sysfs/<name>`).
fn sysfs_dir(label: &str) -> PathBuf {
    let root = dir(label).join("sysfs");
    std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).find(|p| p.is_dir()).unwrap()
}

/// A recorded device and what `scripts/vm/linux-tests.sh` made it.
struct Recorded {
    label: &'static str,
    disk: &'static str,
    personality: Personality,
    lbs: u32,
    /// Zone capacity in sectors.
    zone_capacity: u64,
    max_open: u32,
    max_active: u32,
    /// `zone_append_max_bytes`.
    append: u64,
}

const fn rec(
    label: &'static str,
    disk: &'static str,
    personality: Personality,
    lbs: u32,
    zone_capacity: u64,
    (max_open, max_active, append): (u32, u32, u64),
) -> Recorded {
    Recorded { label, disk, personality, lbs, zone_capacity, max_open, max_active, append }
}

const RECORDED: [Recorded; 4] = [
    rec("nullb", "zk0", Personality::NullBlk, 512, 8192, (4, 8, 130_560)),
    rec("nullb-zcap", "zkcap", Personality::NullBlk, 512, 6144, (4, 8, 130_560)),
    rec("nullb-4k", "zk4k", Personality::NullBlk, 4096, 8192, (6, 0, 126_976)),
    rec("zbc", "sda", Personality::Zbc, 512, 8192, (4, 0, 4_194_304)),
];

#[test]
fn reports_after_a_reset() {
    for &Recorded { label, personality, zone_capacity: cap, .. } in &RECORDED {
        let r = report(label, "report-reset.bin");
        assert!(r.has_capacity(), "{label}: 6.1 always sets BLK_ZONE_REP_CAPACITY");
        assert_eq!(r.zones.len(), 16, "{label}");
        for (i, z) in r.zones.iter().enumerate() {
            let start = i as u64 * 8192;
            assert_eq!((z.start, z.len, z.non_seq, z.reset), (start, 8192, false, false), "{label} zone {i}");
            if i == 0 {
                // null_blk reports a conventional zone's wp at its end; sd_zbc passes on the
                // all-ones write pointer scsi_debug gives it.
                let wp = if personality == Personality::Zbc { u64::MAX } else { 8192 };
                let expect = (ZoneType::Conventional, ZoneCond::NotWp, wp, 8192);
                assert_eq!((z.zone_type, z.cond, z.wp, z.capacity), expect, "{label}");
            } else {
                let expect = (ZoneType::SeqWriteRequired, ZoneCond::Empty, start, cap);
                assert_eq!((z.zone_type, z.cond, z.wp, z.capacity), expect, "{label} zone {i}");
            }
        }
    }
}

#[test]
fn reports_of_every_condition() {
    // What `record` did (tests/linux_vm.rs): zone 1 written 8 KiB, 2 opened, 3 written 8 KiB and
    // closed, 4 finished, 5 written to its capacity, 6 opened and written 4 KiB.
    for &Recorded { label, zone_capacity: cap, .. } in &RECORDED {
        let r = report(label, "report-states.bin");
        let got: Vec<(ZoneCond, u64)> = r.zones[1..8].iter().map(|z| (z.cond, z.wp - z.start)).collect();
        let expect = [
            (ZoneCond::ImplicitOpen, 16),
            (ZoneCond::ExplicitOpen, 0),
            (ZoneCond::Closed, 16),
            (ZoneCond::Full, 8192), // finished: wp at the zone end, even when capacity < size
            (ZoneCond::Full, cap),  // written to its capacity: wp at the capacity
            (ZoneCond::ExplicitOpen, 8),
            (ZoneCond::Empty, 0),
        ];
        assert_eq!(got, expect, "{label}");
    }
}

#[test]
fn partial_reports_and_past_the_end() {
    for &Recorded { label, .. } in &RECORDED {
        let buf = std::fs::read(dir(label).join("report-from-zone2.bin")).unwrap();
        assert_eq!(u64::from_ne_bytes(buf[..8].try_into().unwrap()), 2 * 8192 + 100, "header sector kept");
        let r = parse_report(&buf).unwrap();
        let starts: Vec<u64> = r.zones.iter().map(|z| z.start).collect();
        assert_eq!(starts, [16384, 24576, 32768], "{label}: from inside zone 2, room for 3");
        let r = report(label, "report-past-end.bin");
        assert!(r.zones.is_empty(), "{label}: past the end, no zones and no error");
        assert!(r.has_capacity());
    }
}

#[test]
fn sysfs_of_recorded_devices() {
    for &Recorded { label, disk: name, personality, lbs, max_open, max_active, append, .. } in &RECORDED {
        let s = Sysfs::read(&sysfs_dir(label)).unwrap();
        assert_eq!(s.name, name);
        assert_eq!(s.zoned, "host-managed");
        assert!(linux::is_zoned_model(&s.zoned));
        assert_eq!((s.max_open_zones, s.max_active_zones, s.zone_append_max_bytes), (max_open, max_active, append));
        assert!(!s.rotational, "{label}: neither null_blk nor scsi_debug is rotational");
        assert_eq!(s.personality(), personality, "{label}");
        if personality == Personality::Zbc {
            assert_eq!(s.driver.as_deref(), Some("sd"));
            assert_eq!((s.vendor.as_deref(), s.model.as_deref()), (Some("Linux"), Some("scsi_debug")));
            assert_eq!(s.dma_alignment, Some(3));
        } else {
            assert_eq!((s.driver.as_deref(), s.vendor.as_deref(), s.model.as_deref()), (None, None, None));
            assert_eq!(s.dma_alignment, Some(511));
        }
        let k = ioctls(label);
        assert_eq!((k.zone_size, k.nr_zones, k.size_bytes), (8192, 16, 64 << 20));
        assert_eq!((k.logical_block_size, k.physical_block_size), (lbs, lbs));
    }
}

#[test]
fn device_info_of_recorded_devices() {
    for &Recorded { label, disk: name, personality, lbs, zone_capacity: cap, max_open, max_active, append } in &RECORDED
    {
        let s = Sysfs::read(&sysfs_dir(label)).unwrap();
        let spec = format!("/dev/{name}");
        let info = device_info(&spec, &s, &ioctls(label), &report(label, "report-states.bin")).unwrap();
        let g = &info.geometry;
        assert_eq!(
            (info.spec.as_str(), &info.kind, info.personality),
            (spec.as_str(), &DeviceKind::Linux, personality)
        );
        assert_eq!(
            (g.capacity, g.zone_size, g.zone_capacity, g.nr_zones, g.nr_conv_zones),
            (131_072, 8192, cap, 16, 1)
        );
        assert_eq!(
            (g.logical_block_size, g.physical_block_size, g.seq_zone_type),
            (lbs, lbs, ZoneType::SeqWriteRequired)
        );
        assert_eq!((info.limits.max_open, info.limits.max_active), (max_open, max_active));
        assert_eq!(info.limits.max_append_sectors, append / 512);
        assert_eq!((info.model.as_str(), info.rotational), ("host-managed", false));
        match personality {
            Personality::Zbc => {
                assert_eq!(info.vendor, "Linux");
                assert_eq!(info.description, "scsi_debug (sda, SCSI ZBC host-managed disk)");
            }
            _ => {
                assert_eq!(info.vendor, "null_blk");
                assert_eq!(info.description, format!("{name} (Linux null_blk zoned device)"));
            }
        }
        // The first zones alone give the same description.
        let mut first = report(label, "report-states.bin");
        first.zones.truncate(3);
        assert_eq!(device_info(&spec, &s, &ioctls(label), &first).unwrap(), info);
        // The limits are usable for an emulated twin.
        assert_eq!(info.limits.normalized(g).unwrap().max_open, max_open);
    }
}

/// Encode zones as the kernel lays out a `BLKREPORTZONE` reply.
fn encode(flags: u32, zones: &[Zone]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(0u64.to_ne_bytes());
    b.extend((zones.len() as u32).to_ne_bytes());
    b.extend(flags.to_ne_bytes());
    for z in zones {
        b.extend(z.start.to_ne_bytes());
        b.extend(z.len.to_ne_bytes());
        b.extend(z.wp.to_ne_bytes());
        b.extend([z.zone_type.code(), z.cond.code(), u8::from(z.non_seq), u8::from(z.reset), 0, 0, 0, 0]);
        b.extend(z.capacity.to_ne_bytes());
        b.extend([0u8; 24]);
    }
    b
}

#[test]
fn encode_matches_the_recording() {
    for &Recorded { label, .. } in &RECORDED {
        let raw = std::fs::read(dir(label).join("report-states.bin")).unwrap();
        let mut again = encode(1, &parse_report(&raw).unwrap().zones);
        again[..8].copy_from_slice(&raw[..8]);
        assert_eq!(again, raw, "{label}: decoding keeps every field");
    }
}

fn layout(types: &[ZoneType], caps: &[u64]) -> Report {
    let zones: Vec<Zone> = types
        .iter()
        .zip(caps)
        .enumerate()
        .map(|(i, (&t, &capacity))| {
            let start = i as u64 * 256;
            let (cond, wp) =
                if t == ZoneType::Conventional { (ZoneCond::NotWp, start + 256) } else { (ZoneCond::Empty, start) };
            Zone { start, len: 256, capacity, wp, zone_type: t, cond, non_seq: false, reset: false }
        })
        .collect();
    parse_report(&encode(1, &zones)).unwrap()
}

fn geometry(nr_zones: u32) -> KernelGeometry {
    KernelGeometry {
        zone_size: 256,
        nr_zones,
        size_bytes: u64::from(nr_zones) * 256 * 512,
        logical_block_size: 512,
        physical_block_size: 4096,
    }
}

fn unsupported(r: Result<zonekit_core::DeviceInfo, DeviceError>) -> String {
    match r {
        Err(DeviceError::Unsupported(m)) => m,
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn layouts_geometry_cannot_state_are_refused() {
    use ZoneType::*;
    let s = Sysfs { name: "sdz".into(), zoned: "host-managed".into(), ..Sysfs::default() };
    let ok = device_info(
        "/dev/sdz",
        &s,
        &geometry(4),
        &layout(&[Conventional, SeqWriteRequired, SeqWriteRequired, SeqWriteRequired], &[256; 4]),
    );
    let info = ok.unwrap();
    assert_eq!(
        (info.geometry.nr_conv_zones, info.geometry.physical_block_size, info.personality),
        (1, 4096, Personality::Zbc)
    );

    let m = unsupported(device_info(
        "/dev/sdz",
        &s,
        &geometry(4),
        &layout(&[Conventional, SeqWriteRequired, Conventional, SeqWriteRequired], &[256; 4]),
    ));
    assert!(m.contains("conventional zone 2 follows sequential zones"), "{m}");
    assert!(m.starts_with("/dev/sdz: "), "{m}");
    let m = unsupported(device_info(
        "/dev/sdz",
        &s,
        &geometry(3),
        &layout(&[SeqWriteRequired, SeqWritePreferred, SeqWriteRequired], &[256; 3]),
    ));
    assert!(m.contains("mixed sequential zone types"), "{m}");
    let m = unsupported(device_info("/dev/sdz", &s, &geometry(3), &layout(&[SeqWriteRequired; 3], &[256, 128, 256])));
    assert!(m.contains("different capacities"), "{m}");
    let m = unsupported(device_info("/dev/sdz", &s, &geometry(2), &layout(&[Conventional; 2], &[256; 2])));
    assert!(m.contains("zone layout not supported"), "{m}");
    let mut k = geometry(3);
    k.nr_zones = 5;
    let m = unsupported(device_info("/dev/sdz", &s, &k, &layout(&[SeqWriteRequired; 3], &[256; 3])));
    assert!(m.contains("the kernel reports 5"), "{m}");
    let m = unsupported(device_info("/dev/sdz", &s, &KernelGeometry::default(), &layout(&[], &[])));
    assert!(m.contains("not a zoned block device"), "{m}");

    // Host-aware: sequential-write-preferred zones; no capacity flag: capacity = length.
    let mut r = layout(&[SeqWritePreferred; 3], &[100; 3]);
    r.flags = 0;
    let r = parse_report(&encode(0, &r.zones)).unwrap();
    assert!(r.zones.iter().all(|z| z.capacity == 256));
    let s = Sysfs { zoned: "host-aware".into(), ..s };
    let info = device_info("/dev/sdz", &s, &geometry(3), &r).unwrap();
    assert_eq!(
        (info.geometry.seq_zone_type, info.geometry.zone_capacity, info.model.as_str()),
        (SeqWritePreferred, 256, "host-aware")
    );
}

#[test]
fn malformed_replies_are_errors() {
    assert!(parse_report(&[0u8; 15]).unwrap_err().contains("shorter than its 16-byte header"));
    let zones = layout(&[ZoneType::SeqWriteRequired; 2], &[256; 2]).zones;
    let mut b = encode(1, &zones);
    b.truncate(16 + 64 + 10);
    assert!(parse_report(&b).unwrap_err().contains("claims 2 zones"));
    let mut b = encode(1, &zones);
    b[16 + 24] = 9;
    assert!(parse_report(&b).unwrap_err().contains("unknown zone type 9"));
    let mut b = encode(1, &zones);
    b[16 + 64 + 25] = 7;
    assert!(parse_report(&b).unwrap_err().contains("unknown zone condition 0x7"));
}

/// A fake `/sys` with `dev/block/MAJ:MIN` links to `devices/…/block/<disk>[/<part>]`.
fn fake_sys(root: &Path, disk_rel: &str, major_minor: &str, files: &[(&str, &str)]) -> PathBuf {
    let disk = root.join(disk_rel);
    std::fs::create_dir_all(disk.join("queue")).unwrap();
    for (f, text) in files {
        let p = disk.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::create_dir_all(root.join("dev/block")).unwrap();
    let depth = "../../";
    std::os::unix::fs::symlink(format!("{depth}{disk_rel}"), root.join("dev/block").join(major_minor)).unwrap();
    disk
}

#[test]
fn fake_sysfs_trees() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // A SCSI disk and its partition (whose directory has no queue/).
    let sda = fake_sys(
        root,
        "devices/pci0000:00/host0/target0:0:0/0:0:0:0/block/sda",
        "8:0",
        &[("queue/zoned", "host-aware\n"), ("queue/rotational", "1\n"), ("queue/max_open_zones", "128\n")],
    );
    std::fs::create_dir_all(sda.join("sda1")).unwrap();
    std::fs::write(sda.join("sda1/partition"), "1\n").unwrap();
    std::os::unix::fs::symlink("../block/sda/sda1", sda.parent().unwrap().join("sda1")).unwrap();
    std::os::unix::fs::symlink(
        "../../devices/pci0000:00/host0/target0:0:0/0:0:0:0/block/sda/sda1",
        root.join("dev/block/8:1"),
    )
    .unwrap();
    let canon_sda = std::fs::canonicalize(&sda).unwrap();
    assert_eq!(linux::block_sysfs_dir(root, 8, 0).unwrap(), canon_sda);
    assert_eq!(linux::block_sysfs_dir(root, 8, 1).unwrap(), canon_sda, "a partition answers for its disk");
    assert_eq!(linux::zoned_model(root, 8, 1).unwrap(), "host-aware");
    assert!(linux::zoned_model(root, 8, 2).is_err(), "no such device");
    let s = Sysfs::read(&sda).unwrap();
    assert_eq!((s.rotational, s.max_open_zones, s.max_active_zones, s.zone_append_max_bytes), (true, 128, 0, 0));
    assert_eq!((s.dma_alignment, s.driver.clone(), s.personality()), (None, None, Personality::Zbc), "named sd*");

    // An NVMe namespace: its driver is the controller's (device/device/driver).
    let ns = fake_sys(
        root,
        "devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1",
        "259:0",
        &[
            ("queue/zoned", "host-managed\n"),
            ("queue/max_active_zones", "14\n"),
            ("device/model", "QEMU NVMe Ctrl   \n"),
        ],
    );
    std::fs::create_dir_all(ns.join("device/device")).unwrap();
    std::os::unix::fs::symlink("../../../../../bus/pci/drivers/nvme", ns.join("device/device/driver")).unwrap();
    let s = Sysfs::read(&ns).unwrap();
    assert_eq!(
        (s.driver.as_deref(), s.model.as_deref(), s.vendor.as_deref()),
        (Some("nvme"), Some("QEMU NVMe Ctrl"), None)
    );
    assert_eq!((s.personality(), s.max_active_zones), (Personality::Zns, 14));

    // Not zoned; and a directory without queue/zoned is an error.
    let vda = fake_sys(root, "devices/virtual/block/vda", "254:0", &[("queue/zoned", "none\n")]);
    assert!(!linux::is_zoned_model(&Sysfs::read(&vda).unwrap().zoned));
    let empty = fake_sys(root, "devices/virtual/block/loop9", "7:9", &[]);
    assert!(Sysfs::read(&empty).is_err());
    let bad = fake_sys(
        root,
        "devices/virtual/block/bad0",
        "7:10",
        &[("queue/zoned", "host-managed\n"), ("queue/max_open_zones", "lots\n")],
    );
    assert!(Sysfs::read(&bad).unwrap_err().to_string().contains("not a number"));
}

#[test]
fn is_zoned_on_files_that_are_not_block_devices() {
    let f = tempfile::NamedTempFile::new().unwrap();
    assert!(!linux::is_zoned(f.path()).unwrap());
    assert!(!linux::is_zoned(Path::new("/dev/null")).unwrap());
    assert!(linux::is_zoned(Path::new("/nonexistent/zonekit")).is_err());
}
