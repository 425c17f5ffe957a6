//! The FUSE adapter in process: a memory-store device mounted with `mount::spawn`, used through
//! the kernel with ordinary file calls, faults injected through the `FaultDevice` under it.
//! Needs root and `/dev/fuse`; fails without them unless `ZONEKIT_SKIP_FUSE` is set (the full
//! suite of zonefs-tools' cases is `crates/zonekit/tests/zonefs_mount.rs`).

mod common;

use common::{Shape, device};
use std::fs::OpenOptions;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::sync::Arc;
use zonekit_blk::BlockDevice;
use zonekit_core::ZonedDevice;
use zonekit_fs::fault::{Fault, FaultDevice, inject};
use zonekit_fs::mount::{ServeOptions, finish, spawn};
use zonekit_fs::{MkfsOptions, MountOptions, Node, Volume, mkfs::mkfs};

fn fuse_ready() -> bool {
    let root = std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false);
    if root && std::path::Path::new("/dev/fuse").exists() {
        return true;
    }
    if std::env::var_os("ZONEKIT_SKIP_FUSE").is_some() {
        eprintln!("skipped: ZONEKIT_SKIP_FUSE is set and FUSE is not usable here");
        return false;
    }
    panic!("the FUSE tests need root and /dev/fuse; set ZONEKIT_SKIP_FUSE=1 to skip them");
}

/// 4 KiB aligned for direct I/O.
fn aligned(len: usize, byte: u8) -> (Vec<u8>, usize) {
    let mut v = vec![byte; len + 4096];
    let off = v.as_ptr().align_offset(4096);
    v[..off].fill(0);
    (v, off)
}

#[test]
fn memory_store_volume_through_fuse() {
    if !fuse_ready() {
        return;
    }
    let emu = device(Shape { zones: 6, conv: 2, zone_kib: 1024, cap_kib: 1024, max_open: 2, ..Shape::default() });
    let fault = Arc::new(FaultDevice::emulated(emu.clone()));
    let d: Arc<dyn ZonedDevice> = fault.clone();
    mkfs(&BlockDevice::new(d.clone()), &MkfsOptions { uuid: Some(common::UUID), ..Default::default() }).unwrap();
    let opts = MountOptions { errors: zonekit_fs::ErrorsPolicy::ZoneRo, ..Default::default() };
    let vol = Arc::new(Volume::mount(BlockDevice::new(d), opts).unwrap());
    let mnt = tempfile::tempdir().unwrap();
    let session = spawn(vol.clone(), mnt.path(), &ServeOptions::default()).unwrap();

    let seq0 = mnt.path().join("seq/0");
    assert_eq!(std::fs::metadata(&seq0).unwrap().ino(), 2, "inode number = zone index");
    assert_eq!(std::fs::metadata(mnt.path().join("cnv/0")).unwrap().ino(), 1);
    let f = OpenOptions::new().append(true).custom_flags(libc::O_DIRECT).open(&seq0).unwrap();
    let (buf, off) = aligned(8192, 0x11);
    assert_eq!(f.write_at(&buf[off..off + 8192], 0).unwrap(), 8192);
    assert_eq!(std::fs::metadata(&seq0).unwrap().len(), 8192);
    assert_eq!(vol.sysfs().nr_active_seq_files, 1);

    // A failed write, injected under the volume: errors=zone-ro makes the file read-only.
    let Node::File(id) = vol.lookup_path("seq/0").unwrap() else { unreachable!() };
    inject(&vol, &fault, id, Fault::FailWrite).unwrap();
    let e = f.write_at(&buf[off..off + 4096], 0).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EIO));
    drop(f);
    let m = std::fs::metadata(&seq0).unwrap();
    assert_eq!((m.len(), m.mode() & 0o777), (8192, 0o440));
    assert_eq!(std::fs::read(&seq0).unwrap(), vec![0x11; 8192]);

    session.umount_and_join().unwrap();
    finish(vol).unwrap();
}
