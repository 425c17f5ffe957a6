use std::os::fd::AsRawFd;

use super::*;

fn scratch(base: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix("zonekit-file-").tempdir_in(base).unwrap()
}

/// The open flags of a descriptor, from /proc/self/fdinfo.
fn fd_flags(fd: &OwnedFd) -> i32 {
    let info = fs::read_to_string(format!("/proc/self/fdinfo/{}", fd.as_raw_fd())).unwrap();
    let line = info.lines().find(|l| l.starts_with("flags:")).unwrap();
    i32::from_str_radix(line.trim_start_matches("flags:").trim(), 8).unwrap()
}

#[test]
fn opens_as_fio_does() {
    let d = scratch("/dev/shm");
    let p = d.path().join("f");
    // A read job does not create the file.
    assert_eq!(open_job_file(&p, &OpenSpec::new(true, false, false)).unwrap_err().kind(), io::ErrorKind::NotFound);
    // A write job creates it (0600), read-write, with O_DIRECT and O_SYNC when asked.
    let mut spec = OpenSpec::new(false, true, false);
    spec.direct = true;
    spec.sync = SyncMode::Sync;
    let fd = open_job_file(&p, &spec).unwrap();
    let flags = fd_flags(&fd);
    assert_eq!(flags & libc::O_ACCMODE, libc::O_RDWR);
    assert_ne!(flags & libc::O_DIRECT, 0);
    assert_eq!(flags & libc::O_SYNC, libc::O_SYNC);
    assert_eq!(fs::metadata(&p).unwrap().mode() & 0o777, 0o600);
    // Read-only for a job that only reads; dsync.
    let mut spec = OpenSpec::new(true, false, false);
    spec.sync = SyncMode::Dsync;
    let fd = open_job_file(&p, &spec).unwrap();
    assert_eq!(fd_flags(&fd) & libc::O_ACCMODE, libc::O_RDONLY);
    assert_eq!(fd_flags(&fd) & libc::O_SYNC, libc::O_DSYNC);
    // A trim-only job: read-write, without the data-path flags.
    let mut spec = OpenSpec::new(false, false, true);
    spec.direct = true;
    let fd = open_job_file(&p, &spec).unwrap();
    assert_eq!(fd_flags(&fd) & libc::O_ACCMODE, libc::O_RDWR);
    assert_eq!(fd_flags(&fd) & libc::O_DIRECT, 0);
    // allow_file_create=0: a missing file stays missing.
    let mut spec = OpenSpec::new(false, true, false);
    spec.allow_create = false;
    assert_eq!(open_job_file(&d.path().join("g"), &spec).unwrap_err().kind(), io::ErrorKind::NotFound);
    // create_on_open creates it for a read job.
    let mut spec = OpenSpec::new(true, false, false);
    spec.create_on_open = true;
    open_job_file(&d.path().join("h"), &spec).unwrap();
    assert!(d.path().join("h").exists());
    // A character device gets O_NOATIME (which root may set) and keeps its type.
    assert_eq!(file_type(Path::new("/dev/null")), FileType::Char);
    assert_eq!(file_type(Path::new("-")), FileType::Pipe);
    assert_eq!(file_type(&d.path().join("missing")), FileType::Regular);
    let fd = open_job_file(Path::new("/dev/null"), &OpenSpec::new(true, false, false)).unwrap();
    assert_eq!(fd_flags(&fd) & libc::O_ACCMODE, libc::O_RDWR, "fio opens character devices read-write");
}

#[test]
fn lays_out_files_as_fio_does() {
    let d = scratch("/dev/shm");
    let p = d.path().join("layout");
    assert!(needs_layout(&p, 1));
    // A read job: the file is written out whole, with the job's buffer contents.
    let mut calls = 0;
    let spec = LayoutSpec::for_job(true, false, false, false, 65536);
    assert!(spec.write_out && spec.unlink_first);
    lay_out_file(&p, 300_000, &spec, &mut |b| {
        calls += 1;
        b.fill(0x42);
        true
    })
    .unwrap();
    assert_eq!(calls, 5, "300000 bytes in 64 KiB writes");
    let data = fs::read(&p).unwrap();
    assert_eq!(data.len(), 300_000);
    assert!(data.iter().all(|&b| b == 0x42));
    assert!(!needs_layout(&p, 300_000));
    assert!(needs_layout(&p, 300_001));
    // A write-only job: the file is recreated at size by fallocate, not written.
    let spec = LayoutSpec::for_job(false, true, false, false, 4096);
    assert!(!spec.write_out && spec.unlink_first);
    lay_out_file(&p, 1 << 20, &spec, &mut |_| panic!("a write-only layout does not write")).unwrap();
    let m = fs::metadata(&p).unwrap();
    assert_eq!(m.len(), 1 << 20);
    assert!(fs::read(&p).unwrap().iter().all(|&b| b == 0), "recreated, so the old data is gone");
    // overwrite=1: written out again.
    assert!(LayoutSpec::for_job(false, true, true, false, 4096).write_out);
    // file_append: neither removed nor written.
    let spec = LayoutSpec::for_job(false, true, false, true, 4096);
    assert!(!spec.write_out && !spec.unlink_first);
    // A signal during layout removes the file.
    let spec = LayoutSpec::for_job(true, false, false, false, 4096);
    let mut n = 0;
    let e = lay_out_file(&p, 1 << 20, &spec, &mut |_| {
        n += 1;
        n < 3
    })
    .unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::Interrupted);
    assert!(!p.exists());
    // A file that cannot be created fails with the kernel's error.
    let e = lay_out_file(&d.path().join("no/such/dir"), 4096, &spec, &mut |_| true).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
}

#[test]
fn preallocation_modes() {
    let d = scratch("/dev/shm");
    for (mode, size_after) in
        [(Prealloc::None, 0), (Prealloc::Native, 8192), (Prealloc::Posix, 8192), (Prealloc::Truncate, 8192)]
    {
        let p = d.path().join(format!("{mode:?}"));
        let spec = LayoutSpec { prealloc: mode, ..LayoutSpec::for_job(false, true, false, false, 4096) };
        lay_out_file(&p, 8192, &spec, &mut |_| true).unwrap();
        assert_eq!(fs::metadata(&p).unwrap().len(), size_after, "{mode:?}");
    }
    let p = d.path().join("keep");
    let spec = LayoutSpec { prealloc: Prealloc::Keep, ..LayoutSpec::for_job(false, true, false, false, 4096) };
    assert!(lay_out_file(&p, 8192, &spec, &mut |_| true).unwrap().prealloc.is_ok());
    let m = fs::metadata(&p).unwrap();
    assert_eq!((m.len(), m.blocks() >= 16), (0, true), "KEEP_SIZE allocates without growing");
    // fio's names, its aliases included.
    for (v, m) in
        [("0", Prealloc::None), ("1", Prealloc::Posix), ("keep", Prealloc::Keep), ("truncate", Prealloc::Truncate)]
    {
        assert_eq!(Prealloc::from_fio(v), Some(m));
    }
    assert_eq!(Prealloc::from_fio("2"), None);
}

#[test]
fn a_failed_reservation_does_not_stop_the_layout() {
    // Past the largest file size of the file system (ext4: 16 TiB, tmpfs: i64::MAX bytes) or its
    // free space: the reservation fails, the layout goes on and reports it.
    let d = scratch(&std::env::temp_dir().to_string_lossy());
    for mode in [Prealloc::Native, Prealloc::Posix, Prealloc::Keep] {
        let p = d.path().join(format!("{mode:?}"));
        let spec = LayoutSpec { prealloc: mode, ..LayoutSpec::for_job(false, true, false, false, 4096) };
        let laid = lay_out_file(&p, 1 << 62, &spec, &mut |_| true).unwrap();
        let e = laid.prealloc.unwrap_err();
        assert!(matches!(e.raw_os_error(), Some(libc::EFBIG | libc::ENOSPC)), "{mode:?}: {e}");
        assert_eq!(fs::metadata(&p).unwrap().len(), 0, "{mode:?}: created, nothing reserved");
    }
}

#[test]
fn size_invalidate_fsync_unlink() {
    let d = scratch(&std::env::temp_dir().to_string_lossy());
    let p = d.path().join("s");
    let f = File::from(open_job_file(&p, &OpenSpec::new(false, true, false)).unwrap());
    f.set_len(123_456).unwrap();
    assert_eq!(file_size(&f).unwrap(), Some(123_456));
    assert_eq!(logical_block_size(&f).unwrap(), None);
    invalidate_cache(&f, 0, 0).unwrap();
    fsync_file(&f).unwrap();
    let null = File::open("/dev/null").unwrap();
    assert_eq!(file_size(&null).unwrap(), None);
    invalidate_cache(&null, 0, 0).unwrap();
    unlink_job_file(&p).unwrap();
    assert!(!p.exists());
    unlink_job_file(&p).unwrap();
    unlink_job_file(Path::new("/dev/null")).unwrap();
    assert!(Path::new("/dev/null").exists(), "devices are never removed");
}

#[test]
fn block_device_sizes_when_there_is_one() {
    // Any readable block device of this machine (the VM's disk): its size must match sysfs.
    let Some(dev) = fs::read_dir("/sys/block").ok().and_then(|rd| {
        rd.filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|n| !n.starts_with("loop") && !n.starts_with("ram") && Path::new("/dev").join(n).exists())
    }) else {
        return;
    };
    let Ok(f) = File::open(Path::new("/dev").join(&dev)) else { return };
    let sectors: u64 = fs::read_to_string(format!("/sys/block/{dev}/size")).unwrap().trim().parse().unwrap();
    assert_eq!(file_size(&f).unwrap(), Some(sectors * 512), "{dev}");
    let lbs: u32 =
        fs::read_to_string(format!("/sys/block/{dev}/queue/logical_block_size")).unwrap().trim().parse().unwrap();
    assert_eq!(logical_block_size(&f).unwrap(), Some(lbs));
    let bd = block_device_of(&Path::new("/dev").join(&dev)).unwrap().unwrap();
    assert_eq!(bd.name, dev);
}

#[test]
fn backing_device_of_files() {
    // tmpfs has no block device.
    assert_eq!(block_device_of(Path::new("/dev/shm")).unwrap(), None);
    assert_eq!(block_device_of(Path::new("/dev/null")).unwrap(), None);
    // A file (or a file to be created) on a disk file system: its disk, as /sys/block names it.
    let tmp = std::env::temp_dir();
    let m = fs::metadata(&tmp).unwrap();
    let has_sysfs = Path::new(&format!("/sys/dev/block/{}:{}", libc::major(m.dev()), libc::minor(m.dev()))).exists();
    let got = block_device_of(&tmp.join("not-created-yet")).unwrap();
    assert_eq!(got.is_some(), has_sysfs);
    if let Some(bd) = got {
        assert!(Path::new("/sys/block").join(&bd.name).exists(), "{bd:?}");
        assert!(bd.sysfs.join("stat").exists());
    }
}

#[test]
fn partitions_map_to_their_disk() {
    // A sysfs tree in miniature: 8:0 is a disk, 8:1 its partition, 253:0 a dm device over both.
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    fs::create_dir_all(root.join("devices/sda/queue")).unwrap();
    fs::create_dir_all(root.join("devices/sda/sda1")).unwrap();
    fs::write(root.join("devices/sda/sda1/partition"), "1\n").unwrap();
    fs::create_dir_all(root.join("devices/dm-0/queue")).unwrap();
    fs::create_dir_all(root.join("devices/dm-0/slaves/sdb")).unwrap();
    fs::create_dir_all(root.join("devices/dm-0/slaves/sda")).unwrap();
    fs::create_dir_all(root.join("dev/block")).unwrap();
    std::os::unix::fs::symlink("../../devices/sda", root.join("dev/block/8:0")).unwrap();
    std::os::unix::fs::symlink("../../devices/sda/sda1", root.join("dev/block/8:1")).unwrap();
    std::os::unix::fs::symlink("../../devices/dm-0", root.join("dev/block/253:0")).unwrap();
    let dev = root.join("dev/block");
    let sda = sysfs_block_device(&dev, 8, 1).unwrap().unwrap();
    assert_eq!((sda.name.as_str(), sda.major, sda.minor), ("sda", 8, 1));
    assert_eq!(sda.sysfs, fs::canonicalize(root.join("devices/sda")).unwrap());
    assert_eq!(sysfs_block_device(&dev, 8, 0).unwrap().unwrap().name, "sda");
    let dm = sysfs_block_device(&dev, 253, 0).unwrap().unwrap();
    assert_eq!((dm.name.as_str(), dm.slaves), ("dm-0", vec!["sda".to_string(), "sdb".to_string()]));
    assert_eq!(sysfs_block_device(&dev, 9, 9).unwrap(), None);
}

#[test]
fn advice_and_write_hints_on_open_files() {
    let d = scratch("/dev/shm");
    let f = File::options().read(true).write(true).create(true).truncate(true).open(d.path().join("h")).unwrap();
    advise(&f, 0, 0, FileAdvice::Random).unwrap();
    advise(&f, 4096, 8192, FileAdvice::Sequential).unwrap();
    // The inode's hint takes every value fio names (`F_SET_RW_HINT`, Linux 4.13 and later).
    for v in ["none", "short", "medium", "long", "extreme"] {
        set_write_hint(&f, WriteHint::from_fio(v).unwrap(), false).unwrap();
    }
    assert_eq!(WriteHint::from_fio("never"), None);
    assert_eq!(WriteHint::Extreme as u64, 5);
}
