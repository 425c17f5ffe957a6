//! Persistent emulated devices: what survives a reopen, and how damaged directories are refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use zonekit_core::{
    BlockIo, DeviceError, DeviceKind, Personality, Zone, ZoneCond, ZoneManagement, ZoneOp, ZoneReport, ZoneType,
    ZonedDevice,
};
use zonekit_dev::persistent::{META_FILE, create_dir, open_dir};
use zonekit_dev::store::{MAX_OPEN_FILES, STATE_FILE};
use zonekit_dev::{DataMode, DeviceConfig, EmulatedDevice, GeometrySpec, OpenError, OpenOptions};

const KIB: u64 = 1024;
/// 64 KiB zones, 48 KiB capacity.
const ZONE: u64 = 64 * KIB;
const CAP: u64 = 48 * KIB;

fn config(personality: Personality, block_size: u32) -> DeviceConfig {
    GeometrySpec {
        zone_size: ZONE,
        nr_zones: 12,
        nr_conv_zones: 2,
        zone_capacity: Some(CAP),
        max_open: 4,
        max_active: 6,
        block_size,
        personality,
    }
    .into_config()
    .unwrap()
}

/// `len` bytes that differ with `seed`.
fn data(seed: u64, len: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn sector(zone: u32) -> u64 {
    u64::from(zone) * ZONE / 512
}

fn report(d: &dyn ZonedDevice) -> Vec<Zone> {
    let mut out = Vec::new();
    d.report_zones(0, usize::MAX, &mut out).unwrap();
    out
}

/// Every readable zone's full content (offline zones: `None`).
fn contents(d: &dyn ZonedDevice) -> Vec<Option<Vec<u8>>> {
    report(d)
        .iter()
        .map(|z| {
            let mut buf = vec![0u8; (z.len * 512) as usize];
            d.read_at(z.start, &mut buf).ok().map(|()| buf)
        })
        .collect()
}

fn file_len(dir: &Path, name: &str) -> Option<u64> {
    std::fs::metadata(dir.join(name)).ok().map(|m| m.len())
}

/// Every file of a directory and its content.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The running boot's id, as the device records it.
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap().trim().to_string()
}

fn open_spec(dir: &Path) -> Result<Box<dyn ZonedDevice>, OpenError> {
    zonekit_dev::open(dir.to_str().unwrap(), &OpenOptions { writable: true, ..OpenOptions::default() })
}

/// How a zone reports after a crash: open zones come back closed (empty if nothing was written),
/// as after a power cycle.
fn after_crash(z: &Zone) -> Zone {
    let cond = match z.cond {
        c if c.is_active() && z.wp == z.start => ZoneCond::Empty,
        c if c.is_active() => ZoneCond::Closed,
        c => c,
    };
    Zone { cond, ..*z }
}

/// Put zones in every condition, flushed; returns the device.
fn populate(dir: &Path, personality: Personality) -> EmulatedDevice {
    let d = create_dir(dir, &config(personality, 512), DataMode::Files).unwrap();
    put_every_condition(&d);
    d.flush().unwrap();
    d
}

/// The writes and zone commands of [`populate`], without its flush.
fn put_every_condition(d: &EmulatedDevice) {
    // Conventional: a write inside zone 0 and one spanning zones 0 and 1.
    d.write_at(8, &data(1, 8 * KIB)).unwrap();
    d.write_at(sector(1) - 2, &data(2, 4 * KIB)).unwrap();
    // 2: implicitly open; 3: closed; 4: finished; 5: full at its capacity.
    d.write_at(sector(2), &data(3, 16 * KIB)).unwrap();
    d.write_at(sector(3), &data(4, 8 * KIB)).unwrap();
    d.zone_mgmt(ZoneOp::Close, sector(3), ZONE / 512).unwrap();
    d.write_at(sector(4), &data(5, 8 * KIB)).unwrap();
    d.zone_mgmt(ZoneOp::Finish, sector(4), ZONE / 512).unwrap();
    d.write_at(sector(5), &data(6, CAP)).unwrap();
    // 6: read-only, 7: offline, both with data.
    d.write_at(sector(6), &data(7, 4 * KIB)).unwrap();
    d.set_zone_cond(6, ZoneCond::ReadOnly).unwrap();
    d.write_at(sector(7), &data(8, 4 * KIB)).unwrap();
    d.set_zone_cond(7, ZoneCond::Offline).unwrap();
    // 8: explicitly open, empty; 9: explicitly open with data; 10: finished while empty.
    d.zone_mgmt(ZoneOp::Open, sector(8), ZONE / 512).unwrap();
    d.zone_mgmt(ZoneOp::Open, sector(9), ZONE / 512).unwrap();
    d.write_at(sector(9), &data(9, 4 * KIB)).unwrap();
    d.zone_mgmt(ZoneOp::Finish, sector(10), ZONE / 512).unwrap();
}

#[test]
fn reopen_keeps_conditions_write_pointers_and_data() {
    for personality in [Personality::NullBlk, Personality::Zbc, Personality::Zns] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("dev");
        let d = populate(&dir, personality);
        assert_eq!(d.info().kind, DeviceKind::Emulated { store: "dir".into(), profile: None });
        let before = report(&d);
        assert_eq!(
            before.iter().map(|z| z.cond).collect::<Vec<_>>()[2..],
            [
                ZoneCond::ImplicitOpen,
                ZoneCond::Closed,
                ZoneCond::Full,
                ZoneCond::Full,
                ZoneCond::ReadOnly,
                ZoneCond::Offline,
                ZoneCond::ExplicitOpen,
                ZoneCond::ExplicitOpen,
                ZoneCond::Full,
                ZoneCond::Empty,
            ],
            "{personality}"
        );
        let data_before = contents(&d);
        drop(d);

        // The layout is zloop's: one file per written zone, sized at the write pointer.
        assert_eq!(file_len(&dir, "cnv-000000"), Some(ZONE), "{personality}: sparse, up to the last byte written");
        assert_eq!(file_len(&dir, "cnv-000001"), Some(3 * KIB));
        assert_eq!(file_len(&dir, "seq-000002"), Some(16 * KIB));
        assert_eq!(file_len(&dir, "seq-000004"), Some(8 * KIB), "a finished zone keeps its data only");
        assert_eq!(file_len(&dir, "seq-000005"), Some(CAP));
        assert_eq!(file_len(&dir, "seq-000008"), None, "zone files are created on first write");
        assert_eq!(file_len(&dir, "seq-000010"), None);
        // The flush recorded the synced lengths; the clean close lists the open and closed zones
        // and the eviction state.
        let synced = "synced 2 16384\nsynced 3 8192\nsynced 5 49152\nsynced 9 4096\n";
        assert_eq!(
            std::fs::read_to_string(dir.join(STATE_FILE)).unwrap(),
            format!(
                "boot {}\nfull 4\nread_only 6\noffline 7\nfull 10\n{synced}imp_open 2\nclosed 3\nexp_open 8\nexp_open 9\ncursor 2\nclean\n",
                boot_id()
            ),
            "{personality}"
        );

        let d = open_spec(&dir).unwrap();
        assert_eq!(d.info().kind, DeviceKind::Emulated { store: "dir".into(), profile: None });
        assert_eq!(d.info().spec, dir.to_str().unwrap());
        let after = report(d.as_ref());
        assert_eq!(after, before, "{personality}: a clean close keeps every condition");
        assert_eq!(after[2].cond, ZoneCond::ImplicitOpen);
        assert_eq!(after[8].cond, ZoneCond::ExplicitOpen);
        // The writable open dropped the clean-close section: a crash now is recognised as one.
        assert_eq!(
            std::fs::read_to_string(dir.join(STATE_FILE)).unwrap(),
            format!("boot {}\nfull 4\nread_only 6\noffline 7\nfull 10\n{synced}", boot_id())
        );
        assert_eq!(contents(d.as_ref()), data_before, "{personality}");
        assert!(data_before[7].is_none(), "offline zones cannot be read");

        // Beyond the write pointer, the personality's fill; below it, the data.
        let mut buf = vec![0u8; 17 * KIB as usize];
        d.read_at(sector(2), &mut buf).unwrap();
        assert_eq!(buf[..16 * KIB as usize], data(3, 16 * KIB)[..]);
        assert!(buf[16 * KIB as usize..].iter().all(|&b| b == personality.read_fill()), "{personality}");
        // A finished zone reads its data, then zeros up to the zone end.
        d.read_at(sector(4), &mut buf).unwrap();
        assert_eq!(buf[..8 * KIB as usize], data(5, 8 * KIB)[..]);
        assert!(buf[8 * KIB as usize..].iter().all(|&b| b == 0));

        // The device goes on where it stopped.
        d.write_at(sector(3) + 16, &data(10, 4 * KIB)).unwrap();
        let e = d.write_at(sector(4), &data(11, 512)).unwrap_err();
        assert!(matches!(e, DeviceError::Zone { .. }), "a finished zone stays full: {e}");
        assert!(d.write_at(sector(6), &data(11, 512)).is_err(), "a read-only zone stays read-only");
        d.zone_mgmt(ZoneOp::Reset, sector(2), 3 * ZONE / 512).unwrap();
        d.zone_mgmt(ZoneOp::Reset, sector(10), ZONE / 512).unwrap();
        // A reset zone is written afresh (not through a stale handle of its removed file).
        d.write_at(sector(2), &data(12, 4 * KIB)).unwrap();
        drop(d);
        let d = open_dir(&dir, "again", true).unwrap();
        d.set_zone_cond(6, ZoneCond::ReadOnly).unwrap(); // back to empty, discarding the data
        drop(d);
        assert_eq!(file_len(&dir, "seq-000002"), Some(4 * KIB));
        for name in ["seq-000003", "seq-000004", "seq-000006"] {
            assert_eq!(file_len(&dir, name), None, "{personality}: a reset removes {name}");
        }
        let state = std::fs::read_to_string(dir.join(STATE_FILE)).unwrap();
        // Zone 6 is no longer listed (its synced length stays until a flush or the next session
        // finds its file gone); zone 2 is open again.
        assert!(state.contains("\noffline 7\nsynced 5 49152\nsynced 6 4096\nsynced 9 4096\nimp_open 2\n"), "{state}");
        assert!(!state.contains("full") && !state.contains("read_only"), "{personality}: {state}");

        let d = open_dir(&dir, "again", true).unwrap();
        let z = report(&d);
        assert_eq!((z[2].cond, z[2].wp - z[2].start), (ZoneCond::ImplicitOpen, 8));
        let mut fresh = vec![0u8; 4 * KIB as usize];
        d.read_at(sector(2), &mut fresh).unwrap();
        assert_eq!(fresh, data(12, 4 * KIB));
        for i in [3, 4, 6, 10] {
            assert_eq!((z[i].cond, z[i].wp), (ZoneCond::Empty, z[i].start), "{personality}: zone {i}");
        }
        assert_eq!(z[5].cond, ZoneCond::Full);
        assert_eq!(z[7].cond, ZoneCond::Offline);
        let mut conv = vec![0u8; 8 * KIB as usize];
        d.read_at(8, &mut conv).unwrap();
        assert_eq!(conv, data(1, 8 * KIB), "conventional data survive resets of other zones");
    }
}

#[test]
fn create_refuses_an_existing_device_or_a_non_empty_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    drop(populate(&dir, Personality::NullBlk));
    let before = snapshot(&dir);
    let e = create_dir(&dir, &config(Personality::Zbc, 512), DataMode::Files).unwrap_err();
    assert!(e.to_string().contains(&dir.join(META_FILE).display().to_string()), "{e}");
    assert_eq!(e.errno().0, libc::EEXIST);
    assert_eq!(snapshot(&dir), before);

    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let e = create_dir(&other, &config(Personality::Zbc, 512), DataMode::Files).unwrap_err();
    assert_eq!(e.errno().0, libc::ENOTEMPTY, "{e}");
    assert_eq!(snapshot(&other).len(), 1);

    let e = create_dir(&other.join("notes.txt"), &config(Personality::Zbc, 512), DataMode::Files).unwrap_err();
    assert_eq!(e.errno().0, libc::ENOTDIR, "{e}");

    // An existing empty directory is fine.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    create_dir(&empty, &config(Personality::Zbc, 512), DataMode::Files).unwrap();
    assert!(empty.join(META_FILE).is_file());

    // What the metadata format cannot hold is refused rather than lost at the next open.
    let mut host_aware = config(Personality::Zbc, 512);
    host_aware.geometry.seq_zone_type = ZoneType::SeqWritePreferred;
    let e = create_dir(&tmp.path().join("ha"), &host_aware, DataMode::Files).unwrap_err();
    assert!(matches!(e, DeviceError::Unsupported(_)), "{e}");
}

#[test]
fn a_directory_that_is_not_a_device_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    for extra in [None, Some("README")] {
        if let Some(name) = extra {
            std::fs::write(tmp.path().join(name), "hello").unwrap();
        }
        let e = open_dir(tmp.path(), "x", true).unwrap_err();
        assert!(matches!(e, DeviceError::Unsupported(_)), "{e}");
        assert_eq!(
            e.to_string(),
            format!("{}: not a zonekit device directory (no zonekit.meta)", tmp.path().display())
        );
        let Err(e) = open_spec(tmp.path()) else { panic!("opened") };
        assert!(e.is_usage(), "{e}");
    }
}

#[test]
fn a_profile_device_keeps_its_profile_and_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("zns");
    let c = zonekit_dev::profile("zns-small").unwrap().config();
    let d = create_dir(&dir, &c, DataMode::Files).unwrap();
    let zs = d.info().geometry.zone_size;
    d.write_at(3 * zs, &data(1, 4096)).unwrap();
    let info = d.info().clone();
    drop(d);
    let d = open_dir(&dir, &info.spec, true).unwrap();
    assert_eq!(*d.info(), info);
    assert_eq!(d.info().kind, DeviceKind::Emulated { store: "dir".into(), profile: Some("zns-small".into()) });
    assert_eq!(d.counters().imp_open, 1);
}

#[test]
fn more_zones_than_open_file_handles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("many");
    let nr = MAX_OPEN_FILES as u32 + 60;
    let c = GeometrySpec {
        zone_size: 8 * KIB,
        nr_zones: nr,
        nr_conv_zones: 1,
        zone_capacity: None,
        max_open: 0,
        max_active: 0,
        block_size: 512,
        personality: Personality::NullBlk,
    }
    .into_config()
    .unwrap();
    let d = create_dir(&dir, &c, DataMode::Files).unwrap();
    for round in 0..3u64 {
        for z in 1..nr {
            let s = u64::from(z) * 16 + round;
            d.write_at(s, &data(u64::from(z) * 10 + round, 512)).unwrap();
        }
    }
    d.flush().unwrap();
    drop(d);
    let d = open_dir(&dir, "many", true).unwrap();
    for (z, zone) in report(&d).iter().enumerate().skip(1) {
        assert_eq!((zone.cond, zone.wp - zone.start), (ZoneCond::ImplicitOpen, 3), "zone {z}");
        let mut buf = vec![0u8; 1536];
        d.read_at(zone.start, &mut buf).unwrap();
        for round in 0..3 {
            assert_eq!(buf[round * 512..][..512], data(z as u64 * 10 + round as u64, 512)[..], "zone {z}");
        }
    }
}

#[test]
fn a_torn_tail_is_trimmed_to_the_last_whole_block() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let d = create_dir(&dir, &config(Personality::NullBlk, 4096), DataMode::Files).unwrap();
    d.write_at(sector(2), &data(1, 8 * KIB)).unwrap();
    d.write_at(sector(3), &data(2, 4 * KIB)).unwrap();
    d.write_at(0, &data(3, 4 * KIB)).unwrap();
    // Torn tails are what a crash leaves.
    let dir = tmp.path().join("crashed");
    copy_as_killed(&tmp.path().join("dev"), &dir);
    drop(d);
    let append = |name: &str, n: u64| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).create(true).open(dir.join(name)).unwrap();
        f.write_all(&data(9, n)).unwrap();
    };
    append("seq-000002", 1000);
    append("seq-000003", 4095);
    append("seq-000004", 100);
    append("cnv-000000", 512);

    let d = open_dir(&dir, "torn", true).unwrap();
    let z = report(&d);
    assert_eq!((z[2].cond, z[2].wp - z[2].start), (ZoneCond::Closed, 16));
    assert_eq!((z[3].cond, z[3].wp - z[3].start), (ZoneCond::Closed, 8));
    assert_eq!((z[4].cond, z[4].wp), (ZoneCond::Empty, z[4].start));
    assert_eq!(file_len(&dir, "seq-000002"), Some(8 * KIB));
    assert_eq!(file_len(&dir, "seq-000003"), Some(4 * KIB));
    assert_eq!(file_len(&dir, "seq-000004"), Some(0));
    assert_eq!(file_len(&dir, "cnv-000000"), Some(4 * KIB));
    let mut buf = vec![0u8; 8 * KIB as usize];
    d.read_at(sector(2), &mut buf).unwrap();
    assert_eq!(buf, data(1, 8 * KIB));
    d.read_at(0, &mut buf).unwrap();
    assert_eq!(buf[..4096], data(3, 4 * KIB)[..]);
    assert!(buf[4096..].iter().all(|&b| b == 0), "the torn block of a conventional zone is gone too");
    // Writing goes on at the trimmed write pointer.
    d.write_at(sector(2) + 16, &data(4, 4 * KIB)).unwrap();
}

/// What a killed process leaves of the device in `from`, copied to `to`: the files as they are
/// while the device is open (its writes are in the page cache, which the copy reads).
fn copy_as_killed(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for (name, content) in snapshot(from) {
        std::fs::write(to.join(name), content).unwrap();
    }
}

#[test]
fn a_crash_brings_open_zones_back_closed_as_a_power_cycle_does() {
    for personality in Personality::ALL {
        let tmp = tempfile::tempdir().unwrap();
        let d = populate(&tmp.path().join("dev"), personality);
        let before = report(&d);
        let data_before = contents(&d);
        let crashed = tmp.path().join("crashed");
        copy_as_killed(&tmp.path().join("dev"), &crashed);
        drop(d);
        let d = open_dir(&crashed, "crashed", true).unwrap();
        assert_eq!(report(&d), before.iter().map(after_crash).collect::<Vec<_>>(), "{personality}");
        assert_eq!(d.counters().open(), 0, "{personality}");
        assert_eq!(contents(&d), data_before, "{personality}");

        // A clean close in an earlier boot counts for nothing: the machine restarted, the device
        // was power cycled.
        let state = std::fs::read_to_string(tmp.path().join("dev").join(STATE_FILE)).unwrap();
        let other_boot = state.replace(&boot_id(), "00000000-0000-0000-0000-000000000000");
        assert!(other_boot.contains("\nclean\n"));
        std::fs::write(tmp.path().join("dev").join(STATE_FILE), other_boot).unwrap();
        let d = open_dir(&tmp.path().join("dev"), "rebooted", true).unwrap();
        assert_eq!(report(&d), before.iter().map(after_crash).collect::<Vec<_>>(), "{personality}");
    }
}

#[test]
fn zns_keeps_an_unwritten_closed_zone_across_a_clean_close() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("zns");
    let d = create_dir(&dir, &zonekit_dev::profile("zns-small").unwrap().config(), DataMode::Files).unwrap();
    let zs = d.info().geometry.zone_size;
    d.zone_mgmt(ZoneOp::Open, zs, zs).unwrap();
    d.zone_mgmt(ZoneOp::Close, zs, zs).unwrap();
    assert_eq!((report(&d)[1].cond, d.counters().closed), (ZoneCond::Closed, 1), "QEMU keeps it closed");
    copy_as_killed(&dir, &tmp.path().join("crashed"));
    drop(d);
    let d = open_dir(&dir, "zns", true).unwrap();
    assert_eq!((report(&d)[1].cond, d.counters().closed), (ZoneCond::Closed, 1));
    let d = open_dir(&tmp.path().join("crashed"), "crashed", true).unwrap();
    assert_eq!((report(&d)[1].cond, d.counters().closed), (ZoneCond::Empty, 0), "after a crash, empty");
}

#[test]
fn a_read_only_open_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let d = populate(&dir, Personality::NullBlk);
    let (before, data_before) = (report(&d), contents(&d));
    // A crash, leaving a torn tail: the read-only open neither trims it nor starts a session.
    let crashed = tmp.path().join("crashed");
    copy_as_killed(&dir, &crashed);
    drop(d);
    std::fs::OpenOptions::new()
        .append(true)
        .open(crashed.join("seq-000002"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, &[7u8; 100]))
        .unwrap();
    for (dir, expected) in [(&dir, before.clone()), (&crashed, before.iter().map(after_crash).collect())] {
        let files = snapshot(dir);
        let spec = dir.to_str().unwrap();
        let d = zonekit_dev::open(spec, &OpenOptions::default()).unwrap();
        assert_eq!(report(d.as_ref()), expected, "{spec}");
        assert_eq!(contents(d.as_ref()), data_before, "{spec}: the torn block is not read");
        for e in [
            d.write_at(sector(3) + 16, &data(1, 512)).unwrap_err(),
            d.zone_mgmt(ZoneOp::Reset, sector(2), ZONE / 512).unwrap_err(),
        ] {
            assert_eq!(e.errno(), zonekit_core::Errno::EBADF, "{e}");
        }
        d.flush().unwrap();
        d.close().unwrap();
        drop(d);
        assert_eq!(snapshot(dir), files, "{spec}: the directory is unchanged");
    }
}

/// A device with a torn tail (which a successful open would trim) for the corruption cases.
fn damaged_base(dir: &Path) {
    let d = populate(dir, Personality::NullBlk);
    drop(d);
    let mut f = std::fs::OpenOptions::new().append(true).open(dir.join("seq-000003")).unwrap();
    std::io::Write::write_all(&mut f, &[7u8; 100]).unwrap();
}

fn set_len(path: PathBuf, len: u64) {
    std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(path).unwrap().set_len(len).unwrap();
}

#[test]
fn corrupt_metadata_is_refused_naming_the_file_and_changing_nothing() {
    type Damage = Box<dyn Fn(&Path)>;
    let write = |name: &'static str, text: String| -> Damage {
        Box::new(move |d: &Path| std::fs::write(d.join(name), &text).unwrap())
    };
    let meta_with = |f: fn(&mut serde_json::Value)| -> Damage {
        Box::new(move |d: &Path| {
            let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(d.join(META_FILE)).unwrap()).unwrap();
            f(&mut v);
            std::fs::write(d.join(META_FILE), serde_json::to_vec(&v).unwrap()).unwrap();
        })
    };
    let cases: Vec<(&str, &str, Damage)> = vec![
        (
            META_FILE,
            "missing, but the directory holds zone files",
            Box::new(|d: &Path| std::fs::remove_file(d.join(META_FILE)).unwrap()),
        ),
        (META_FILE, "not device metadata", write(META_FILE, "{ \"format\": 1, ".into())),
        (META_FILE, "not device metadata", write(META_FILE, String::new())),
        (META_FILE, "unknown field", meta_with(|v| v["colour"] = "blue".into())),
        (META_FILE, "not device metadata", meta_with(|v| v["zone_size"] = "big".into())),
        (META_FILE, "unsupported metadata format 5", meta_with(|v| v["format"] = 5.into())),
        (META_FILE, "format 3 has no `queue` field", meta_with(|v| v["format"] = 3.into())),
        (
            META_FILE,
            "missing field `queue`",
            meta_with(|v| v.as_object_mut().unwrap().remove("queue").map(drop).unwrap()),
        ),
        (
            META_FILE,
            "missing field `data`",
            meta_with(|v| v.as_object_mut().unwrap().remove("data").map(drop).unwrap()),
        ),
        (META_FILE, "format 1 has no `data` field", meta_with(|v| v["format"] = 1.into())),
        (META_FILE, "unknown variant `tape`", meta_with(|v| v["data"] = "tape".into())),
        (META_FILE, "zone capacity", meta_with(|v| v["zone_capacity"] = 256.into())),
        (
            META_FILE,
            "not a power of two",
            meta_with(|v| {
                v["zone_size"] = 96.into();
                v["zone_capacity"] = 96.into();
                v["capacity"] = (96 * 12).into();
                v["max_append_sectors"] = 96.into();
            }),
        ),
        (META_FILE, "max open zones (7)", meta_with(|v| v["max_open"] = 7.into())),
        (META_FILE, "zone limits are inconsistent", meta_with(|v| v["max_active"] = 20.into())),
        (META_FILE, "floppy", meta_with(|v| v["personality"] = "floppy".into())),
        (
            "seq-000003",
            "larger than the zone capacity (49152 bytes)",
            Box::new(|d: &Path| set_len(d.join("seq-000003"), CAP + 512)),
        ),
        (
            "cnv-000001",
            "larger than the zone size (65536 bytes)",
            Box::new(|d: &Path| set_len(d.join("cnv-000001"), ZONE + 512)),
        ),
        ("seq-12", "not a zone number", write("seq-12", String::new())),
        ("seq-0000003", "not a zone number", write("seq-0000003", String::new())),
        ("seq-00000x", "not a zone number", write("seq-00000x", String::new())),
        ("cnv-", "not a zone number", write("cnv-", String::new())),
        ("seq-000012", "zone 12 is past the last zone (12 zones)", write("seq-000012", String::new())),
        ("cnv-000003", "zone 3 is sequential, not conventional", write("cnv-000003", String::new())),
        ("seq-000001", "zone 1 is conventional, not sequential", write("seq-000001", String::new())),
        (STATE_FILE, "line 1: 'garbage' is not", write(STATE_FILE, "garbage\n".into())),
        (STATE_FILE, "line 2: unknown condition 'empty'", write(STATE_FILE, "full 4\nempty 3\n".into())),
        (
            STATE_FILE,
            "line 2: open or closed zones listed without the `clean` marker",
            write(STATE_FILE, "full 4\nclosed 3\n".into()),
        ),
        (STATE_FILE, "line 1: zone 0 is conventional", write(STATE_FILE, "offline 0\n".into())),
        (STATE_FILE, "line 1: zone 40 is past the last zone", write(STATE_FILE, "read_only 40\n".into())),
        (STATE_FILE, "line 2: zone 4 is listed twice", write(STATE_FILE, "full 4\nread_only 4\n".into())),
        (STATE_FILE, "not UTF-8", Box::new(|d: &Path| std::fs::write(d.join(STATE_FILE), [0xffu8, 0xfe]).unwrap())),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    damaged_base(&base);
    for (i, (file, why, damage)) in cases.iter().enumerate() {
        let dir = tmp.path().join(format!("case{i}"));
        std::fs::create_dir(&dir).unwrap();
        for (name, content) in snapshot(&base) {
            std::fs::write(dir.join(name), content).unwrap();
        }
        damage(&dir);
        let before = snapshot(&dir);
        let e = open_dir(&dir, "x", true).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, DeviceError::Corrupt(_)), "case {i} ({file}): {e:?}");
        assert!(msg.starts_with(&format!("{}: ", dir.join(file).display())), "case {i}: names the file: {msg}");
        assert!(msg.contains(why), "case {i}: expected '{why}' in: {msg}");
        assert!(!msg.contains('\n'), "case {i}: one line: {msg}");
        assert_eq!(snapshot(&dir), before, "case {i}: {msg}: nothing changes on disk");
        // Through a spec, it is a device failure (exit 1), not a usage error.
        let Err(e) = open_spec(&dir) else { panic!("case {i}: opened") };
        assert!(!e.is_usage(), "case {i}: {e}");
    }
    // The undamaged base opens, trimming its torn tail.
    open_dir(&base, "base", true).unwrap();
    assert_eq!(file_len(&base, "seq-000003"), Some(8 * KIB));
}

#[test]
fn a_device_is_open_in_one_process_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("dev");
    let config = zonekit_dev::profile("nullb-small").unwrap().config();
    let first = zonekit_dev::persistent::create_dir(&path, &config, DataMode::Files).unwrap();
    let second = zonekit_dev::persistent::open_dir(&path, "dev", true).unwrap_err();
    assert_eq!(second.errno(), zonekit_core::Errno::EBUSY, "{second}");
    drop(first);
    zonekit_dev::persistent::open_dir(&path, "dev", true).expect("the lock goes with the device");
}

#[test]
fn data_none_keeps_zone_state_in_sparse_files_and_no_data() {
    for personality in Personality::ALL {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("dev");
        let with_data = populate(&tmp.path().join("files"), personality);
        let d = create_dir(&dir, &config(personality, 512), DataMode::None).unwrap();
        assert!(!d.info().keeps_data, "{personality}");
        put_every_condition(&d);
        let before = report(&d);
        assert_eq!(before, report(&with_data), "{personality}: the same zone state as with data");
        let crashed = tmp.path().join("crashed");
        copy_as_killed(&dir, &crashed);
        drop(d);

        // Zone files are sized at the write pointers and hold nothing; conventional zones have none.
        for (name, len) in [("seq-000002", 16 * KIB), ("seq-000004", 8 * KIB), ("seq-000005", CAP)] {
            assert_eq!(file_len(&dir, name), Some(len), "{personality}: {name}");
            let blocks = std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(dir.join(name)).unwrap());
            assert_eq!(blocks, 0, "{personality}: {name} is sparse");
        }
        assert_eq!(file_len(&dir, "cnv-000000"), None);
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join(META_FILE)).unwrap()).unwrap();
        assert_eq!((meta["format"].as_u64(), meta["data"].as_str()), (Some(4), Some("none")));

        for (d, expected) in [
            (open_dir(&dir, "again", true).unwrap(), before.clone()),
            (open_dir(&crashed, "crashed", true).unwrap(), before.iter().map(after_crash).collect()),
        ] {
            assert_eq!(report(&d), expected, "{personality}");
            assert!(!d.info().keeps_data);
            // Zeros below the write pointer, the personality's fill beyond it.
            let mut buf = vec![1u8; 17 * KIB as usize];
            d.read_at(sector(2), &mut buf).unwrap();
            assert!(buf[..16 * KIB as usize].iter().all(|&b| b == 0), "{personality}");
            assert!(buf[16 * KIB as usize..].iter().all(|&b| b == personality.read_fill()), "{personality}");
            d.read_at(0, &mut buf).unwrap();
            assert!(buf.iter().all(|&b| b == 0), "{personality}: conventional zones read zeros");
            // Writing goes on at the write pointer.
            let z3 = report(&d)[3];
            d.write_at(z3.wp, &data(10, 4 * KIB)).unwrap();
            assert_eq!(file_len(&dir, "seq-000003").max(file_len(&crashed, "seq-000003")), Some(12 * KIB));
        }
    }
}

/// Copy `tests/fixtures/NAME` to `to`.
fn fixture(name: &str, to: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    copy_as_killed(&from, to);
}

#[test]
fn a_format_1_directory_still_opens() {
    // Made by zonekit before the data mode existed (metadata format 1, no boot in zones.state):
    // zone 1 closed with 8 KiB, 2 finished with 4 KiB, 3 full, 4 with 512 bytes and a torn
    // tail of 100, 5 read-only, and 2 KiB in the conventional zone 0 at 1 KiB.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("old");
    fixture("format1", &dir);
    let meta = std::fs::read(dir.join(META_FILE)).unwrap();
    let files = snapshot(&dir);
    let conds = |d: &EmulatedDevice| report(d).iter().map(|z| (z.cond, z.wp.wrapping_sub(z.start))).collect::<Vec<_>>();
    let expected = vec![
        (ZoneCond::NotWp, 128),
        (ZoneCond::Closed, 16),
        (ZoneCond::Full, 128),
        (ZoneCond::Full, 96),
        (ZoneCond::Closed, 1),
        (ZoneCond::ReadOnly, u64::MAX - 5 * 128),
        (ZoneCond::Empty, 0),
        (ZoneCond::Empty, 0),
    ];
    let d = open_dir(&dir, "old", false).unwrap();
    assert_eq!(conds(&d), expected);
    assert!(d.info().keeps_data);
    drop(d);
    assert_eq!(snapshot(&dir), files, "a read-only open changes nothing");

    let d = open_dir(&dir, "old", true).unwrap();
    assert_eq!(conds(&d), expected);
    let read = |d: &EmulatedDevice, sector: u64, len: usize| {
        let mut buf = vec![0u8; len];
        d.read_at(sector, &mut buf).unwrap();
        buf
    };
    assert_eq!(read(&d, 128, 8192), vec![0x11; 8192]);
    assert_eq!(read(&d, 256, 4096), vec![0x22; 4096]);
    assert_eq!(read(&d, 384, 49152), vec![0x33; 49152]);
    assert_eq!(read(&d, 512, 1024), [vec![0x44; 512], vec![0xff; 512]].concat(), "the torn tail is gone");
    assert_eq!(read(&d, 640, 1024), vec![0x55; 1024]);
    assert_eq!(read(&d, 0, 4096), [vec![0; 1024], vec![0xc0; 2048], vec![0; 1024]].concat());
    assert_eq!(file_len(&dir, "seq-000004"), Some(512));
    // The first writable open synced every file and recorded the lengths: from here on a restart
    // of the machine can be told from a killed process.
    let state = std::fs::read_to_string(dir.join(STATE_FILE)).unwrap();
    assert!(state.contains("full 2\nread_only 5\nsynced 1 8192\nsynced 3 49152\nsynced 4 512\n"), "{state}");
    // It goes on, and keeps its open zones across a clean close like any device.
    d.write_at(128 + 16, &data(1, 512)).unwrap();
    drop(d);
    let d = open_dir(&dir, "old", true).unwrap();
    assert_eq!(report(&d)[1].cond, ZoneCond::ImplicitOpen);
    assert_eq!(std::fs::read(dir.join(META_FILE)).unwrap(), meta, "the metadata is written once");
}

#[test]
fn after_a_restart_zone_files_are_cut_back_to_what_was_flushed() {
    for data_mode in [DataMode::Files, DataMode::None] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("dev");
        let d = create_dir(&dir, &config(Personality::Zns, 512), data_mode).unwrap();
        d.write_at(sector(2), &data(1, 8 * KIB)).unwrap();
        d.write_at(sector(3), &data(2, 4 * KIB)).unwrap();
        d.write_at(0, &data(3, 4 * KIB)).unwrap();
        d.flush().unwrap();
        // Not flushed: more in zone 2, a new zone 4, a reset and rewrite of zone 3.
        d.write_at(sector(2) + 16, &data(4, 4 * KIB)).unwrap();
        d.write_at(sector(4), &data(5, 4 * KIB)).unwrap();
        d.zone_mgmt(ZoneOp::Reset, sector(3), ZONE / 512).unwrap();
        d.write_at(sector(3), &data(6, 2 * KIB)).unwrap();
        // A kill keeps everything; so would a clean close.
        let killed = tmp.path().join("killed");
        copy_as_killed(&dir, &killed);
        drop(d);
        let d = open_dir(&killed, "killed", true).unwrap();
        let wps = |d: &EmulatedDevice| report(d)[2..5].iter().map(|z| (z.cond, z.wp - z.start)).collect::<Vec<_>>();
        assert_eq!(wps(&d), [(ZoneCond::Closed, 24), (ZoneCond::Closed, 4), (ZoneCond::Closed, 8)]);
        drop(d);

        // The same directory after a restart of the machine (another boot in zones.state): each
        // file goes back to what the last flush made durable, which here is all that a power
        // loss could be trusted to keep.
        let state = std::fs::read_to_string(dir.join(STATE_FILE)).unwrap();
        assert!(state.contains("synced 2 8192\n"), "{state}");
        std::fs::write(dir.join(STATE_FILE), state.replace(&boot_id(), "another-boot")).unwrap();
        let files = snapshot(&dir);
        let d = open_dir(&dir, "rebooted", false).unwrap();
        assert_eq!(wps(&d), [(ZoneCond::Closed, 16), (ZoneCond::Empty, 0), (ZoneCond::Empty, 0)]);
        drop(d);
        assert_eq!(snapshot(&dir), files, "a read-only open cuts nothing");
        let d = open_dir(&dir, "rebooted", true).unwrap();
        assert_eq!(wps(&d), [(ZoneCond::Closed, 16), (ZoneCond::Empty, 0), (ZoneCond::Empty, 0)]);
        assert_eq!((file_len(&dir, "seq-000002"), file_len(&dir, "seq-000003")), (Some(8 * KIB), Some(0)));
        if data_mode == DataMode::Files {
            let mut buf = vec![0u8; 8 * KIB as usize];
            d.read_at(sector(2), &mut buf).unwrap();
            assert_eq!(buf, data(1, 8 * KIB));
            d.read_at(0, &mut buf[..4096]).unwrap();
            assert_eq!(buf[..4096], data(3, 4 * KIB)[..], "conventional zones keep what survived");
        }
        let state = std::fs::read_to_string(dir.join(STATE_FILE)).unwrap();
        assert!(state.starts_with(&format!("boot {}\nsynced 2 8192\n", boot_id())), "{state}");
    }
}

#[test]
fn injected_write_faults_and_moved_write_pointers_survive_a_reopen() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    let d = populate(&dir, Personality::NullBlk);
    // A write fault waits for the zone's next write; a refused write does not use it up.
    d.set_write_fault(3, true).unwrap();
    d.set_write_fault(11, true).unwrap();
    assert_eq!(d.pending_write_faults(), vec![3, 11]);
    assert!(matches!(d.write_at(sector(3), &data(10, 4 * KIB)), Err(DeviceError::Zone { .. })), "not at the wp");
    // Finished (zone 4): moved back into the zone, its file cut; zone 2 moved forward, zeros.
    d.move_write_pointer(4, sector(4) + 8).unwrap();
    d.move_write_pointer(2, sector(2) + 40).unwrap();
    let before = report(&d);
    assert_eq!((before[4].cond, before[4].wp), (ZoneCond::Closed, sector(4) + 8));
    assert_eq!((before[2].cond, before[2].wp), (ZoneCond::ImplicitOpen, sector(2) + 40));
    d.flush().unwrap();
    drop(d);
    assert_eq!(file_len(&dir, "seq-000004"), Some(4096));
    assert_eq!(file_len(&dir, "seq-000002"), Some(40 * 512));
    let state = std::fs::read_to_string(dir.join(STATE_FILE)).unwrap();
    assert!(state.contains("fail_next_write 3\nfail_next_write 11\n") && !state.contains("full 4"), "{state}");

    let d = open_dir(&dir, "d", true).unwrap();
    assert_eq!(report(&d), before, "a clean close keeps the moved write pointers");
    assert_eq!(d.pending_write_faults(), vec![3, 11]);
    let mut buf = vec![0xffu8; 40 * 512];
    d.read_at(sector(2), &mut buf).unwrap();
    assert_eq!(&buf[..16 * 1024], &data(3, 16 * KIB)[..]);
    assert!(buf[16 * 1024..].iter().all(|&b| b == 0), "moved forward over zeros");
    // The faulty write fails with EIO and changes nothing; the next one lands.
    let wp = sector(3) + 16;
    let e = d.write_at(wp, &data(11, 4 * KIB)).unwrap_err();
    assert_eq!(e.errno(), zonekit_core::Errno::EIO);
    assert!(e.to_string().contains("injected write fault"), "{e}");
    assert_eq!(report(&d)[3].wp, wp);
    d.write_at(wp, &data(11, 4 * KIB)).unwrap();
    assert_eq!(d.pending_write_faults(), vec![11]);
    assert!(d.zone_append(sector(11), &data(12, 4 * KIB)).is_err());
    assert_eq!(d.zone_append(sector(11), &data(12, 4 * KIB)).unwrap(), sector(11));
    drop(d);
    let d = open_dir(&dir, "d", false).unwrap();
    assert!(d.pending_write_faults().is_empty());
    drop(d);
    // Refused: conventional, read-only, offline zones, past the capacity, off a logical block.
    let d = open_dir(&dir, "d", true).unwrap();
    assert!(d.set_write_fault(1, true).is_err());
    assert!(d.move_write_pointer(1, sector(1) + 8).is_err());
    assert!(d.move_write_pointer(6, sector(6) + 8).is_err());
    assert!(d.move_write_pointer(7, sector(7) + 8).is_err());
    assert!(d.move_write_pointer(8, sector(8) + CAP / 512 + 1).is_err());
    assert!(d.move_write_pointer(12, 0).is_err());
}
