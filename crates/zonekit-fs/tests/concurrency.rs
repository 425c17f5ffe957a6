//! Concurrent writes to one file are serialised by the volume (the kernel's inode lock): appends
//! from many threads land whole, one after the other, and the size is their sum.

mod common;

use common::{Shape, blk, device};
use std::sync::Arc;
use zonekit_fs::{MkfsOptions, MountOptions, Node, OpenFlags, Volume, mkfs::mkfs};

#[test]
fn concurrent_appends_are_serialised() {
    const THREADS: u8 = 8;
    const WRITES: usize = 16;
    const LEN: usize = 4096;
    let dev = device(Shape { zones: 4, conv: 1, zone_kib: 1024, cap_kib: 1024, ..Shape::default() });
    mkfs(&blk(&dev), &MkfsOptions { uuid: Some([2; 16]), ..Default::default() }).unwrap();
    let vol = Arc::new(Volume::mount(blk(&dev), MountOptions::default()).unwrap());
    let Node::File(id) = vol.lookup_path("seq/0").unwrap() else { unreachable!() };
    let threads: Vec<_> = (1..=THREADS)
        .map(|t| {
            let vol = vol.clone();
            std::thread::spawn(move || {
                let f = vol.open(id, OpenFlags { write: true, direct: true, append: true }).unwrap();
                for _ in 0..WRITES {
                    assert_eq!(vol.write(&f, 0, &[t; LEN]).unwrap(), LEN);
                }
                vol.release(f);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let total = usize::from(THREADS) * WRITES * LEN;
    assert_eq!(vol.stat(Node::File(id)).size, total as u64);
    assert_eq!(vol.sysfs().nr_wro_seq_files, 0);
    let f = vol.open(id, OpenFlags::default()).unwrap();
    let mut data = vec![0u8; total];
    assert_eq!(vol.read(&f, 0, &mut data).unwrap(), total);
    let mut per_thread = [0usize; 256];
    for block in data.chunks(LEN) {
        assert!(block.iter().all(|&b| b == block[0]), "a write was interleaved with another");
        per_thread[usize::from(block[0])] += 1;
    }
    assert!((1..=THREADS).all(|t| per_thread[usize::from(t)] == WRITES), "{:?}", &per_thread[..=8]);
}

#[test]
fn racing_writers_at_the_write_pointer_never_overlap() {
    // Writers that each read the size and then write there: the losers get EINVAL, and what was
    // written is exactly what succeeded.
    let dev = device(Shape { zones: 4, conv: 1, zone_kib: 256, cap_kib: 256, ..Shape::default() });
    mkfs(&blk(&dev), &MkfsOptions { uuid: Some([3; 16]), ..Default::default() }).unwrap();
    let vol = Arc::new(Volume::mount(blk(&dev), MountOptions::default()).unwrap());
    let Node::File(id) = vol.lookup_path("seq/0").unwrap() else { unreachable!() };
    let threads: Vec<_> = (1..=4u8)
        .map(|t| {
            let vol = vol.clone();
            std::thread::spawn(move || {
                let f = vol.open(id, OpenFlags { write: true, direct: true, append: false }).unwrap();
                let mut ok = 0u64;
                for _ in 0..64 {
                    let at = vol.stat(Node::File(id)).size;
                    match vol.write(&f, at, &[t; 1024]) {
                        Ok(n) => ok += n as u64,
                        Err(e) => assert!(
                            matches!(e.errno(), zonekit_core::Errno::EINVAL | zonekit_core::Errno::EFBIG),
                            "{e}"
                        ),
                    }
                }
                vol.release(f);
                ok
            })
        })
        .collect();
    let written: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(vol.stat(Node::File(id)).size, written);
}
