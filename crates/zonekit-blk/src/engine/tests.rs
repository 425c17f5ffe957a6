//! Tests of every engine against real files on tmpfs (/dev/shm) and ext4 (/tmp, when it is).

use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::*;
use crate::file::{OpenSpec, open_job_file};

/// Every engine zonekit has, with settings that change its code path.
fn variants() -> Vec<EngineKind> {
    use EngineKind as K;
    vec![
        K::Psync,
        K::Sync,
        K::Pvsync,
        K::Pvsync2(Pvsync2Options::default()),
        K::Pvsync2(Pvsync2Options { hipri_percentage: 50, ..Pvsync2Options::default() }),
        K::Vsync,
        K::IoUring(UringOptions::default()),
        K::IoUring(UringOptions { vectored: Some(true), ..UringOptions::default() }),
        K::IoUring(UringOptions {
            vectored: Some(false),
            fixed_buffers: true,
            fixed_files: true,
            ..UringOptions::default()
        }),
        K::IoUring(UringOptions { force_async: 2, ..UringOptions::default() }),
        K::IoUring(UringOptions { sqpoll: true, ..UringOptions::default() }),
        K::Libaio(LibaioOptions::default()),
        K::Libaio(LibaioOptions { userspace_reap: true, ..LibaioOptions::default() }),
        K::Posixaio,
        K::Splice,
    ]
}

struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new(base: &str) -> Option<Scratch> {
        tempfile::Builder::new().prefix("zonekit-blk-").tempdir_in(base).ok().map(|dir| Scratch { dir })
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// Whether `dir` is on ext4 (where O_DIRECT has alignment rules).
fn is_ext4(dir: &Path) -> bool {
    let Ok(mounts) = std::fs::read_to_string("/proc/self/mounts") else { return false };
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut best: Option<(usize, String)> = None;
    for line in mounts.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() > 2 && dir.starts_with(f[1]) && best.as_ref().is_none_or(|(n, _)| f[1].len() > *n) {
            best = Some((f[1].len(), f[2].to_string()));
        }
    }
    best.is_some_and(|(_, fs)| fs == "ext4")
}

fn open_rw(path: &Path, size: u64, direct: bool) -> OwnedFd {
    let mut spec = OpenSpec::new(true, true, false);
    spec.direct = direct;
    let fd = open_job_file(path, &spec).unwrap();
    std::fs::File::from(fd.try_clone().unwrap()).set_len(size).unwrap();
    fd
}

fn make(kind: EngineKind, depth: u32, files: Vec<OwnedFd>) -> Box<dyn Engine> {
    let config = EngineConfig {
        depth,
        buffer_size: 16384,
        buffer_align: 4096,
        files,
        clock: RealClock::new(),
        buffer_offset: 0,
        buffer_memory: Default::default(),
    };
    open_engine(kind.clone(), config).unwrap_or_else(|e| panic!("{kind:?}: {e}"))
}

/// A configuration of depth 1 with no files and unaligned buffers of `buffer_size` bytes.
fn bare_config(buffer_size: usize) -> EngineConfig {
    EngineConfig {
        depth: 1,
        buffer_size,
        buffer_align: 0,
        files: vec![],
        clock: RealClock::new(),
        buffer_offset: 0,
        buffer_memory: Default::default(),
    }
}

/// Run one I/O to completion, whatever the engine's kind; returns its result.
fn run(e: &mut dyn Engine, io: Io) -> i32 {
    loop {
        match e.queue(&io) {
            Queued::Completed(r) => return r,
            Queued::Queued => break,
            Queued::Busy => {
                e.commit().unwrap();
                let mut out = Vec::new();
                e.getevents(1, usize::MAX, &mut out).unwrap();
            }
        }
    }
    e.commit().unwrap();
    let mut out = Vec::new();
    loop {
        e.getevents(1, usize::MAX, &mut out).unwrap();
        if let Some(c) = out.iter().find(|c| c.tag == io.tag) {
            return c.result;
        }
    }
}

fn io(tag: u32, ddir: Ddir, offset: u64, len: u32) -> Io {
    Io { tag, ddir, file: 0, offset, len }
}

fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

fn round_trip(base: &str, direct: bool) {
    let s = Scratch::new(base).expect("scratch directory");
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("{name}-{v}"));
        let mut e = make(kind.clone(), 4, vec![open_rw(&path, 1 << 20, direct)]);
        // Writes at distinct offsets from distinct slots, then reads into other slots.
        for (i, off) in [0u64, 8192, 65536, 4096].into_iter().enumerate() {
            let data = pattern(i as u8 + 1, 4096);
            e.buffer(i as u32)[..4096].copy_from_slice(&data);
            assert_eq!(run(e.as_mut(), io(i as u32, Ddir::Write, off, 4096)), 4096, "{kind:?} write");
        }
        for (i, off) in [0u64, 8192, 65536, 4096].into_iter().enumerate() {
            let tag = 3 - i as u32;
            e.buffer(tag).fill(0);
            assert_eq!(run(e.as_mut(), io(tag, Ddir::Read, off, 4096)), 4096, "{kind:?} read");
            assert_eq!(&e.buffer(tag)[..4096], &pattern(i as u8 + 1, 4096)[..], "{kind:?} data at {off}");
        }
        // What the file holds is what was written.
        let f = std::fs::File::open(&path).unwrap();
        let mut b = vec![0u8; 4096];
        f.read_exact_at(&mut b, 65536).unwrap();
        assert_eq!(b, pattern(3, 4096));
        // A read past the end is short: 0 bytes, reported as is.
        assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 1 << 20, 4096)), 0, "{name} read at EOF");
        assert_eq!(run(e.as_mut(), io(1, Ddir::Read, (1 << 20) - 2048, 4096)), 2048, "{name} short read");
    }
}

#[test]
fn round_trip_tmpfs_buffered() {
    round_trip("/dev/shm", false);
}

#[test]
fn round_trip_tmpfs_direct() {
    round_trip("/dev/shm", true);
}

#[test]
fn round_trip_tmp_direct() {
    round_trip(&std::env::temp_dir().to_string_lossy(), true);
}

#[test]
fn short_read_is_reported_as_is() {
    let s = Scratch::new("/dev/shm").unwrap();
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("short-{name}-{v}"));
        let mut e = make(kind.clone(), 2, vec![open_rw(&path, 10_000, false)]);
        assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 8192, 4096)), 10_000 - 8192, "{kind:?}");
    }
}

#[test]
fn direct_io_alignment_is_the_kernels() {
    for base in ["/dev/shm".to_string(), std::env::temp_dir().to_string_lossy().into_owned()] {
        let Some(s) = Scratch::new(&base) else { continue };
        let ext4 = is_ext4(s.dir.path());
        for (v, kind) in variants().into_iter().enumerate() {
            let name = kind.name();
            let path = s.path(&format!("odirect-{name}-{v}"));
            let fd = open_rw(&path, 1 << 20, true);
            let probe = std::fs::File::from(fd.try_clone().unwrap());
            let mut e = make(kind.clone(), 2, vec![fd]);
            for (off, len) in [(100u64, 4096u32), (0, 100), (512, 512)] {
                // The engine reports exactly what a plain pwrite on the same descriptor does.
                let buf = crate::sys::buf::AlignedBuf::zeroed(4096, 4096).unwrap();
                let want = match probe.write_at(&buf[..len as usize], off) {
                    Ok(n) => n as i32,
                    Err(e) => -e.raw_os_error().unwrap(),
                };
                let got = run(e.as_mut(), io(0, Ddir::Write, off, len));
                assert_eq!(got, want, "{kind:?} on {base}: write {len} at {off}");
                if ext4 && (off % 512 != 0 || len % 512 != 0) {
                    assert_eq!(got, -libc::EINVAL, "{kind:?}: ext4 refuses unaligned O_DIRECT");
                }
            }
        }
    }
}

#[test]
fn errors_are_negative_errno() {
    let s = Scratch::new("/dev/shm").unwrap();
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("err-{name}-{v}"));
        open_rw(&path, 1 << 16, false);
        // A read-only descriptor: writes fail with EBADF, from the kernel.
        let ro = open_job_file(&path, &OpenSpec::new(true, false, false)).unwrap();
        let mut e = make(kind.clone(), 2, vec![ro]);
        assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 0, 4096)), -libc::EBADF, "{kind:?}");
        // Checked before the kernel: file index, slot, length.
        assert_eq!(e.queue(&Io { file: 1, ..io(0, Ddir::Read, 0, 4096) }), Queued::Completed(-libc::EBADF));
        assert_eq!(e.queue(&io(2, Ddir::Read, 0, 4096)), Queued::Completed(-libc::EINVAL), "{name}: no slot 2");
        assert_eq!(e.queue(&io(0, Ddir::Read, 0, 16385)), Queued::Completed(-libc::EINVAL), "{name}: too long");
        // The engine still works afterwards.
        assert_eq!(run(e.as_mut(), io(1, Ddir::Read, 0, 4096)), 4096, "{kind:?}");
    }
}

#[test]
fn trim_punches_a_hole_and_sync_succeeds() {
    let s = Scratch::new("/dev/shm").unwrap();
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("trim-{name}-{v}"));
        let mut e = make(kind.clone(), 2, vec![open_rw(&path, 1 << 20, false)]);
        e.buffer(0).fill(0xee);
        for off in (0..1 << 20).step_by(16384) {
            assert_eq!(run(e.as_mut(), io(0, Ddir::Write, off, 16384)), 16384);
        }
        let before = std::fs::metadata(&path).unwrap().blocks();
        assert_eq!(run(e.as_mut(), io(1, Ddir::Trim, 65536, 262144)), 262144, "{kind:?} trim");
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!(after.len(), 1 << 20, "KEEP_SIZE");
        assert!(after.blocks() + 262144 / 512 <= before, "{name}: hole punched ({before} -> {})", after.blocks());
        assert_eq!(run(e.as_mut(), io(1, Ddir::Read, 65536, 4096)), 4096);
        assert!(e.buffer(1)[..4096].iter().all(|&b| b == 0), "{name}: trimmed range reads zeros");
        assert_eq!(run(e.as_mut(), io(1, Ddir::Read, 65536 + 262144, 4096)), 4096);
        assert!(e.buffer(1)[..4096].iter().all(|&b| b == 0xee), "{name}: data after the hole kept");
        assert_eq!(run(e.as_mut(), io(0, Ddir::Sync, 0, 0)), 0, "{name} fsync");
        assert_eq!(run(e.as_mut(), io(0, Ddir::DataSync, 0, 0)), 0, "{name} fdatasync");
        let sfr = Ddir::SyncFileRange(libc::SYNC_FILE_RANGE_WAIT_BEFORE | libc::SYNC_FILE_RANGE_WRITE);
        assert_eq!(run(e.as_mut(), io(0, sfr, 0, 65536)), 0, "{name} sync_file_range");
        assert_eq!(run(e.as_mut(), io(0, Ddir::SyncFileRange(0xff), 0, 65536)), -libc::EINVAL, "{name} bad flags");
    }
}

#[test]
fn trim_of_a_device_that_cannot_discard_fails_with_the_kernels_errno() {
    for kind in variants() {
        let null = std::fs::OpenOptions::new().read(true).write(true).open("/dev/null").unwrap();
        if let EngineKind::IoUring(o) = kind
            && (o.fixed_files || o.sqpoll)
        {
            continue;
        }
        let mut e = make(kind.clone(), 1, vec![null.into()]);
        assert_eq!(run(e.as_mut(), io(0, Ddir::Trim, 0, 4096)), -libc::ENOTTY, "{kind:?}");
    }
}

#[test]
fn async_engines_answer_busy_when_full() {
    let s = Scratch::new("/dev/shm").unwrap();
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("busy-{name}-{v}"));
        let mut e = make(kind.clone(), 4, vec![open_rw(&path, 1 << 20, false)]);
        if e.is_sync() {
            continue;
        }
        for tag in 0..4 {
            assert_eq!(e.queue(&io(tag, Ddir::Write, u64::from(tag) * 4096, 4096)), Queued::Queued, "{name} {tag}");
        }
        // Every slot is taken: the same slot again is Busy, and so is an inline trim.
        assert_eq!(e.queue(&io(0, Ddir::Write, 65536, 4096)), Queued::Busy, "{kind:?}");
        assert_eq!(e.queue(&io(0, Ddir::Trim, 0, 4096)), Queued::Busy, "{kind:?} trim");
        assert_eq!(e.commit().unwrap(), 4, "{name}");
        let mut out = Vec::new();
        let mut n = 0;
        while n < 4 {
            n += e.getevents(4 - n, usize::MAX, &mut out).unwrap();
        }
        assert_eq!(n, 4);
        let mut tags: Vec<u32> = out.iter().map(|c| c.tag).collect();
        tags.sort();
        assert_eq!(tags, [0, 1, 2, 3]);
        assert!(out.iter().all(|c| c.result == 4096), "{name} {out:?}");
        assert_eq!(e.queue(&io(0, Ddir::Write, 65536, 4096)), Queued::Queued, "{name}: room again");
        e.commit().unwrap();
        out.clear();
        assert_eq!(e.getevents(1, usize::MAX, &mut out).unwrap(), 1);
    }
}

#[test]
fn vsync_merges_contiguous_ios_and_is_busy_otherwise() {
    let s = Scratch::new("/dev/shm").unwrap();
    let path = s.path("vsync");
    let mut e = make(EngineKind::Vsync, 8, vec![open_rw(&path, 1 << 20, false)]);
    for tag in 0..3u32 {
        e.buffer(tag)[..4096].copy_from_slice(&pattern(tag as u8, 4096));
        assert_eq!(e.queue(&io(tag, Ddir::Write, 8192 + u64::from(tag) * 4096, 4096)), Queued::Queued);
    }
    // Not contiguous, another direction, a sync: all wait for the commit.
    assert_eq!(e.queue(&io(3, Ddir::Write, 0, 4096)), Queued::Busy);
    assert_eq!(e.queue(&io(3, Ddir::Read, 20480, 4096)), Queued::Busy);
    assert_eq!(e.queue(&io(3, Ddir::Sync, 0, 0)), Queued::Busy);
    assert_eq!(e.commit().unwrap(), 3);
    let mut out = Vec::new();
    assert_eq!(e.getevents(0, usize::MAX, &mut out).unwrap(), 0, "as fio: nothing when not waiting");
    assert_eq!(e.getevents(1, usize::MAX, &mut out).unwrap(), 3);
    let f = std::fs::File::open(&path).unwrap();
    let mut b = vec![0u8; 12288];
    f.read_exact_at(&mut b, 8192).unwrap();
    assert_eq!(&b[4096..8192], &pattern(1, 4096)[..]);
    // A short merged read deals the bytes out in order.
    drop(e);
    let mut e = make(EngineKind::Vsync, 8, vec![open_rw(&path, 16384 + 6000, false)]);
    for tag in 0..3u32 {
        assert_eq!(e.queue(&io(tag, Ddir::Read, 16384 + u64::from(tag) * 4096, 4096)), Queued::Queued);
    }
    e.commit().unwrap();
    out.clear();
    e.getevents(3, usize::MAX, &mut out).unwrap();
    let results: Vec<i32> = out.iter().map(|c| c.result).collect();
    assert_eq!(results, [4096, 6000 - 4096, 0]);
}

#[test]
fn getevents_waits_for_min_and_caps_it() {
    let s = Scratch::new("/dev/shm").unwrap();
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("min-{name}-{v}"));
        let mut e = make(kind.clone(), 8, vec![open_rw(&path, 1 << 20, false)]);
        if e.is_sync() {
            continue;
        }
        for tag in 0..8 {
            assert_eq!(e.queue(&io(tag, Ddir::Write, u64::from(tag) * 4096, 4096)), Queued::Queued);
        }
        assert_eq!(e.commit().unwrap(), 8);
        let mut out = Vec::new();
        let got = e.getevents(6, usize::MAX, &mut out).unwrap();
        assert!(got >= 6 && got == out.len(), "{kind:?}: {got}");
        // Asking for more than are in flight returns the rest instead of waiting forever.
        let got2 = e.getevents(100, usize::MAX, &mut out).unwrap();
        assert_eq!(got + got2, 8, "{kind:?}");
        assert_eq!(e.getevents(5, usize::MAX, &mut out).unwrap(), 0, "{name}: nothing in flight");
    }
}

#[test]
fn getevents_takes_at_most_max() {
    // fio's iodepth_batch_complete_max: the kernel engines leave what is beyond `max` for the
    // next call; `vsync` (and `null`) hand back everything they completed at commit, and
    // `posixaio` everything finished, as fio's.
    let s = Scratch::new("/dev/shm").unwrap();
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("max-{name}-{v}"));
        let mut e = make(kind.clone(), 8, vec![open_rw(&path, 1 << 20, false)]);
        if e.is_sync() || name == "vsync" || name == "posixaio" {
            continue;
        }
        for tag in 0..8 {
            assert_eq!(e.queue(&io(tag, Ddir::Write, u64::from(tag) * 4096, 4096)), Queued::Queued);
        }
        assert_eq!(e.commit().unwrap(), 8);
        let mut out = Vec::new();
        assert_eq!(e.getevents(1, 1, &mut out).unwrap(), 1, "{kind:?}");
        assert_eq!(e.getevents(2, 2, &mut out).unwrap(), 2, "{kind:?}");
        // A max below min counts as min.
        assert_eq!(e.getevents(3, 1, &mut out).unwrap(), 3, "{kind:?}");
        assert_eq!(e.getevents(2, 8, &mut out).unwrap(), 2, "{kind:?}: what is left");
        let mut tags: Vec<u32> = out.iter().map(|c| c.tag).collect();
        tags.sort_unstable();
        assert_eq!(tags, (0..8).collect::<Vec<_>>(), "{kind:?}: each completion once");
    }
}

#[test]
fn null_engine_follows_fio() {
    let mut e = make(EngineKind::Null, 1, vec![]);
    assert!(e.is_sync());
    assert_eq!(e.queue(&io(0, Ddir::Write, 0, 4096)), Queued::Completed(4096));
    assert_eq!(e.queue(&io(0, Ddir::Sync, 0, 0)), Queued::Completed(0));
    let mut e = make(EngineKind::Null, 4, vec![]);
    assert!(!e.is_sync());
    for tag in 0..4 {
        assert_eq!(e.queue(&io(tag, Ddir::Read, 0, 512)), Queued::Queued);
    }
    assert_eq!(e.queue(&io(0, Ddir::Read, 0, 512)), Queued::Busy);
    assert_eq!(e.commit().unwrap(), 4);
    // Completions not reaped yet: fio's null answers Busy.
    assert_eq!(e.queue(&io(0, Ddir::Read, 0, 512)), Queued::Busy);
    let mut out = Vec::new();
    assert_eq!(e.getevents(0, usize::MAX, &mut out).unwrap(), 0);
    assert_eq!(e.getevents(1, usize::MAX, &mut out).unwrap(), 4);
    assert!(out.iter().all(|c| c.result == 512));
    assert_eq!(e.queue(&io(0, Ddir::Read, 0, 512)), Queued::Queued);
}

#[test]
#[should_panic(expected = "in flight")]
fn buffer_of_a_slot_in_flight_panics() {
    let s = Scratch::new("/dev/shm").unwrap();
    let mut e = make(EngineKind::IoUring(UringOptions::default()), 2, vec![open_rw(&s.path("f"), 1 << 20, false)]);
    assert_eq!(e.queue(&io(0, Ddir::Read, 0, 4096)), Queued::Queued);
    e.commit().unwrap();
    let _ = e.buffer(0);
}

#[test]
fn dropping_engines_with_ios_in_flight_is_safe() {
    let s = Scratch::new("/dev/shm").unwrap();
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("drop-{name}-{v}"));
        for commit in [false, true] {
            let mut e = make(kind.clone(), 8, vec![open_rw(&path, 1 << 20, false)]);
            for tag in 0..8 {
                let _ = e.queue(&io(tag, Ddir::Read, u64::from(tag) * 16384, 16384));
            }
            if commit {
                e.commit().unwrap();
            }
            drop(e);
        }
    }
}

#[test]
fn engines_built_on_one_thread_run_on_another() {
    let s = Scratch::new("/dev/shm").unwrap();
    for (v, kind) in variants().into_iter().enumerate() {
        let name = kind.name();
        let path = s.path(&format!("thread-{name}-{v}"));
        let mut e = make(kind.clone(), 4, vec![open_rw(&path, 1 << 20, false)]);
        let r = std::thread::spawn(move || {
            e.buffer(0).fill(1);
            run(e.as_mut(), io(0, Ddir::Write, 0, 4096))
        })
        .join()
        .unwrap();
        assert_eq!(r, 4096, "{kind:?}");
    }
}

#[test]
fn bad_configurations_are_refused() {
    let cfg = || bare_config(4096);
    let err = |kind: EngineKind, config: EngineConfig| {
        open_engine(kind, config).err().map(|e| e.to_string()).unwrap_or_default()
    };
    assert_eq!(
        err(EngineKind::Psync, EngineConfig { depth: 0, ..cfg() }),
        "ioengine psync: iodepth must be at least 1"
    );
    assert_eq!(
        err(EngineKind::Null, EngineConfig { buffer_align: 3000, ..cfg() }),
        "ioengine null: buffer alignment must be a power of two"
    );
    let hipri = EngineKind::Pvsync2(Pvsync2Options { hipri_percentage: 101, ..Pvsync2Options::default() });
    assert_eq!(err(hipri, cfg()), "ioengine pvsync2: RWF_HIPRI share of 101 % is over 100 %");
    // Every engine, with its default settings, builds without files.
    for kind in [
        EngineKind::Psync,
        EngineKind::Sync,
        EngineKind::Pvsync,
        EngineKind::Pvsync2(Pvsync2Options::default()),
        EngineKind::Vsync,
        EngineKind::IoUring(UringOptions::default()),
        EngineKind::Libaio(LibaioOptions::default()),
        EngineKind::Null,
    ] {
        assert_eq!(err(kind.clone(), cfg()), "", "{kind:?}");
    }
}

#[test]
fn sync_engine_seeks_only_when_needed() {
    let s = Scratch::new("/dev/shm").unwrap();
    let path = s.path("seq");
    let fd = open_rw(&path, 1 << 20, false);
    let probe = std::fs::File::from(fd.try_clone().unwrap());
    let mut e = make(EngineKind::Sync, 1, vec![fd]);
    for i in 0..4u64 {
        e.buffer(0).fill(i as u8 + 1);
        assert_eq!(run(e.as_mut(), io(0, Ddir::Write, i * 4096, 4096)), 4096);
    }
    use std::io::Seek;
    assert_eq!((&probe).stream_position().unwrap(), 16384, "the file position follows the I/O");
    e.buffer(0).fill(0);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 4096, 4096)), 4096);
    assert!(e.buffer(0)[..4096].iter().all(|&b| b == 2));
}

#[test]
fn io_uring_hipri_polls_or_fails_as_the_kernel_says() {
    // IOPOLL: tmpfs cannot poll and fails each I/O with EOPNOTSUPP; an O_DIRECT write on ext4 is
    // polled on the block device (completing even without poll queues).
    for base in ["/dev/shm".to_string(), std::env::temp_dir().to_string_lossy().into_owned()] {
        let s = Scratch::new(&base).unwrap();
        let kind = EngineKind::IoUring(UringOptions { iopoll: true, ..UringOptions::default() });
        let mut e = make(kind.clone(), 2, vec![open_rw(&s.path("hipri"), 1 << 20, true)]);
        e.buffer(0)[..4096].copy_from_slice(&pattern(9, 4096));
        let r = run(e.as_mut(), io(0, Ddir::Write, 0, 4096));
        if base == "/dev/shm" {
            assert_eq!(r, -libc::EOPNOTSUPP);
        } else if is_ext4(s.dir.path()) {
            assert_eq!(r, 4096);
            // Reads of that block are refused here (EOPNOTSUPP) on this kernel; when one passes,
            // it must carry the data.
            let r = run(e.as_mut(), io(1, Ddir::Read, 0, 4096));
            assert!(r == 4096 || r == -libc::EOPNOTSUPP, "{r}");
            if r == 4096 {
                assert_eq!(&e.buffer(1)[..4096], &pattern(9, 4096)[..]);
            }
        }
    }
}

#[test]
fn mmap_engine_copies_through_the_map() {
    let s = Scratch::new("/dev/shm").unwrap();
    for direct in [false, true] {
        let path = s.path(&format!("mmap-{direct}"));
        let o = MmapOptions { writable: true, direct, access: MmapAccess::Random, thp: false };
        let mut e = make(EngineKind::Mmap(o), 2, vec![open_rw(&path, 1 << 20, false)]);
        assert!(e.is_sync());
        // A sync before anything is mapped has nothing to flush.
        assert_eq!(run(e.as_mut(), io(0, Ddir::Sync, 0, 0)), 0);
        for (i, off) in [0u64, 4096, 65536 + 100].into_iter().enumerate() {
            e.buffer(0)[..4000].copy_from_slice(&pattern(i as u8, 4000));
            assert_eq!(run(e.as_mut(), io(0, Ddir::Write, off, 4000)), 4000);
        }
        assert_eq!(run(e.as_mut(), io(1, Ddir::Sync, 0, 0)), 0);
        let f = std::fs::File::open(&path).unwrap();
        let mut b = vec![0u8; 4000];
        f.read_exact_at(&mut b, 65536 + 100).unwrap();
        assert_eq!(b, pattern(2, 4000), "the file holds what went through the map");
        e.buffer(1).fill(0);
        assert_eq!(run(e.as_mut(), io(1, Ddir::Read, 4096, 4000)), 4000);
        assert_eq!(&e.buffer(1)[..4000], &pattern(1, 4000)[..]);
        // Past the end of the file the map cannot reach: EINVAL, not SIGBUS.
        assert_eq!(run(e.as_mut(), io(0, Ddir::Read, (1 << 20) - 2048, 4096)), -libc::EINVAL);
        // A file grown since its map was made is mapped again.
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(2 << 20).unwrap();
        assert_eq!(run(e.as_mut(), io(0, Ddir::Write, (2 << 20) - 4096, 4096)), 4096);
    }
    // A read-only map refuses writes.
    let path = s.path("mmap-ro");
    let mut e = make(EngineKind::Mmap(MmapOptions::default()), 1, vec![open_rw(&path, 1 << 16, false)]);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 0, 4096)), -libc::EBADF);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 0, 4096)), 4096);
}

#[test]
fn falloc_and_ftruncate_engines_follow_fio() {
    let s = Scratch::new(&std::env::temp_dir().to_string_lossy()).unwrap();
    let path = s.path("falloc");
    let mut e = make(EngineKind::Falloc, 1, vec![open_rw(&path, 0, false)]);
    let len = |p: &Path| std::fs::metadata(p).unwrap().len();
    let blocks = |p: &Path| std::fs::metadata(p).unwrap().blocks();
    // A read allocates within the size it keeps, a write grows the file.
    assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 0, 65536)), 65536);
    assert_eq!((len(&path), blocks(&path) >= 128), (0, true));
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 65536, 65536)), 65536);
    assert_eq!(len(&path), 131072);
    // A trim punches a hole; a sync is an fallocate of nothing.
    let before = blocks(&path);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Trim, 0, 65536)), 65536);
    assert!(blocks(&path) < before);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Sync, 0, 0)), -libc::EINVAL);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 0, 0)), -libc::EINVAL, "fallocate of 0 bytes");

    let path = s.path("ftruncate");
    let mut e = make(EngineKind::Ftruncate, 1, vec![open_rw(&path, 1 << 20, false)]);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 4096, 8192)), 8192, "the block size is what is counted");
    assert_eq!(len(&path), 4096, "truncated to the offset");
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 1 << 21, 4096)), 4096);
    assert_eq!(len(&path), 1 << 21);
    for d in [Ddir::Read, Ddir::Trim, Ddir::Sync, Ddir::DataSync] {
        assert_eq!(run(e.as_mut(), io(0, d, 0, 4096)), -libc::EINVAL, "{d:?}");
    }
    // falloc on a read-only descriptor: the kernel's EBADF.
    let ro = open_job_file(&path, &OpenSpec::new(true, false, false)).unwrap();
    let mut e = make(EngineKind::Falloc, 1, vec![ro]);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 0, 4096)), -libc::EBADF);
}

#[test]
fn pvsync2_passes_fios_uncached_flag_to_the_kernel() {
    // Whatever the kernel makes of 0x40 (fio 3.33's RWF_UNCACHED; RWF_ATOMIC since Linux
    // 6.11), the engine's write ends as the same call made by hand does.
    let s = Scratch::new("/dev/shm").unwrap();
    let path = s.path("uncached");
    let fd = open_rw(&path, 1 << 20, false);
    let by_hand = {
        let f = std::fs::File::from(fd.try_clone().unwrap());
        let flags = rustix::io::ReadWriteFlags::from_bits_retain(0x40);
        crate::engine::io_result(crate::sys::io::pwritev2(std::os::fd::AsFd::as_fd(&f), &[0u8; 4096], 0, flags))
    };
    let kind = EngineKind::Pvsync2(Pvsync2Options { uncached: true, ..Pvsync2Options::default() });
    let mut e = make(kind.clone(), 1, vec![fd]);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 4096, 4096)), by_hand);
    let plain = make(EngineKind::Pvsync2(Pvsync2Options::default()), 1, vec![open_rw(&path, 1 << 20, false)]);
    let mut plain = plain;
    assert_eq!(run(plain.as_mut(), io(0, Ddir::Write, 4096, 4096)), 4096, "without the flag it writes");
}

#[test]
fn io_uring_passes_fios_uncached_flag_in_the_sqe() {
    // The same write through pwritev2 with 0x40 by hand and through the ring's rw_flags ends
    // the same (EOPNOTSUPP on kernels that read 0x40 as RWF_ATOMIC, a write on older ones).
    let s = Scratch::new("/dev/shm").unwrap();
    let path = s.path("uncached");
    let fd = open_rw(&path, 1 << 20, false);
    let by_hand = {
        let f = std::fs::File::from(fd.try_clone().unwrap());
        let flags = rustix::io::ReadWriteFlags::from_bits_retain(0x40);
        crate::engine::io_result(crate::sys::io::pwritev2(std::os::fd::AsFd::as_fd(&f), &[0u8; 4096], 0, flags))
    };
    let kind = EngineKind::IoUring(UringOptions { uncached: true, ..UringOptions::default() });
    let mut e = make(kind, 1, vec![fd]);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 4096, 4096)), by_hand);
    let mut plain = make(EngineKind::IoUring(UringOptions::default()), 1, vec![open_rw(&path, 1 << 20, false)]);
    assert_eq!(run(plain.as_mut(), io(0, Ddir::Write, 4096, 4096)), 4096, "without the flag it writes");
}

/// Queue `io` with its own priority, commit, and wait for its completion.
fn run_prio(e: &mut dyn Engine, io: Io, ioprio: u16) -> i32 {
    assert_eq!(e.queue_prio(&io, ioprio), Queued::Queued);
    e.commit().unwrap();
    let mut out = Vec::new();
    loop {
        e.getevents(1, usize::MAX, &mut out).unwrap();
        if let Some(c) = out.iter().find(|c| c.tag == io.tag) {
            return c.result;
        }
    }
}

#[test]
fn io_uring_and_libaio_hand_each_ios_priority_to_the_kernel() {
    // The kernel checks a request's priority: a best-effort one is taken, class 7 does not
    // exist and fails the I/O with EINVAL, which shows that the priority reached it.
    let s = Scratch::new("/dev/shm").unwrap();
    let path = s.path("prio");
    for kind in [EngineKind::IoUring(UringOptions::default()), EngineKind::Libaio(LibaioOptions::default())] {
        let mut e = make(kind.clone(), 2, vec![open_rw(&path, 1 << 20, false)]);
        assert_eq!(run_prio(e.as_mut(), io(0, Ddir::Write, 0, 4096), (2 << 13) | 5), 4096, "{kind:?}");
        assert_eq!(run_prio(e.as_mut(), io(1, Ddir::Read, 0, 4096), 7 << 13), -libc::EINVAL, "{kind:?}");
        assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 0, 4096)), 4096, "{kind:?}: the next I/O has none");
    }
    // The job's priority on every io_uring read and write.
    let kind = EngineKind::IoUring(UringOptions { ioprio: 7 << 13, ..UringOptions::default() });
    let mut e = make(kind, 1, vec![open_rw(&path, 1 << 20, false)]);
    assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 0, 4096)), -libc::EINVAL);
}

#[test]
fn net_engines_move_blocks_between_a_listener_and_a_sender() {
    use crate::engine::{NetOptions, NetProto};
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let cfg = || bare_config(8192);
    let listener = std::thread::spawn(move || {
        let o = NetOptions { port, listen: true, total_bytes: 3 * 8192, ..NetOptions::default() };
        let mut e = open_engine(EngineKind::Net(o), cfg()).unwrap();
        let mut got = Vec::new();
        for _ in 0..3 {
            assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 0, 8192)), 8192);
            got.extend_from_slice(&e.buffer(0)[..8192]);
        }
        assert!(!e.finished());
        // The sender's link-close message ends the stream: no I/O of the job.
        assert_eq!(run(e.as_mut(), io(0, Ddir::Read, 0, 8192)), 0);
        assert!(e.finished());
        got
    });
    let o = NetOptions {
        proto: NetProto::Tcp,
        host: Some("127.0.0.1".into()),
        port,
        writes: true,
        nodelay: true,
        total_bytes: 3 * 8192,
        ..NetOptions::default()
    };
    let mut sent = Vec::new();
    let mut e = loop {
        match open_engine(EngineKind::Net(o.clone()), cfg()) {
            Ok(e) => break e,
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    };
    assert_eq!(e.name(), "net");
    for i in 0..3u8 {
        let p = pattern(i, 8192);
        e.buffer(0)[..8192].copy_from_slice(&p);
        sent.extend_from_slice(&p);
        assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 0, 8192)), 8192);
    }
    drop(e);
    assert_eq!(listener.join().unwrap(), sent);

    // A sender with nobody to talk to fails as fio words it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = open_engine(EngineKind::Net(NetOptions { port, ..o }), cfg()).err().unwrap();
    assert_eq!(err.to_string(), "ioengine net: connect: Connection refused");
    assert_eq!(err.errno(), libc::ECONNREFUSED);
}

/// The engines without data: one timed call per file for the file operations (its failure named
/// as fio names it), no bytes for cpuio and exec, and their settings as fio reads them.
#[test]
fn engines_without_data() {
    use super::{CpuOptions, ExecOptions, FileOp, FileOpsOptions};
    let cfg = || bare_config(4096);
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = (0..3).map(|i| dir.path().join(format!("f{i}"))).collect();
    let io = |file: u32| Io { tag: 0, ddir: Ddir::Read, file, offset: 0, len: 4096 };
    let ops = |op| FileOpsOptions { op, paths: paths.clone(), calls: CallsMade::default() };
    let mut create = open_engine(EngineKind::FileOps(ops(FileOp::Create)), cfg()).unwrap();
    assert!(create.own_latencies() && !create.moves_no_data());
    // Two I/Os on the first file, one on the others: one call per file, each I/O its length.
    for f in [0, 0, 1, 2] {
        assert_eq!(create.queue(&io(f)), Queued::Completed(4096));
    }
    let mut lats = Vec::new();
    create.take_latencies(&mut lats);
    assert_eq!(lats.len(), 3);
    assert!(paths.iter().all(|p| p.exists()));
    for op in [FileOp::Stat, FileOp::Lstat, FileOp::Statx] {
        let mut e = open_engine(EngineKind::FileOps(ops(op)), cfg()).unwrap();
        assert_eq!(e.queue(&io(2)), Queued::Completed(4096), "{op:?}");
    }
    let mut delete = open_engine(EngineKind::FileOps(ops(FileOp::Delete)), cfg()).unwrap();
    assert_eq!(delete.queue(&io(1)), Queued::Completed(4096));
    assert!(!paths[1].exists());
    let mut stat = open_engine(EngineKind::FileOps(ops(FileOp::Stat)), cfg()).unwrap();
    assert_eq!(stat.queue(&io(1)), Queued::Completed(-libc::ENOENT));
    assert_eq!(stat.failure(), Some((libc::ENOENT, format!("stat({}) type=1", paths[1].display()))));
    // cpuio: a burn of the cycle, no bytes; the think time makes up the load.
    let cpu = CpuOptions { load: 25, cycle_us: 2000, qsort: false, exit_on_io_done: None };
    assert_eq!(cpu.think_us(2000), 6000);
    let mut e = open_engine(EngineKind::Cpu(cpu.clone()), cfg()).unwrap();
    let t0 = std::time::Instant::now();
    assert_eq!(e.queue(&io(0)), Queued::Completed(0));
    assert!(t0.elapsed() >= std::time::Duration::from_micros(2000));
    assert!(e.moves_no_data() && e.think_time_us().is_none() && !e.finished());
    let qsort = CpuOptions { load: 50, cycle_us: 1, qsort: true, exit_on_io_done: None };
    let mut e = open_engine(EngineKind::Cpu(qsort), cfg()).unwrap();
    assert_eq!(e.queue(&io(0)), Queued::Completed(0));
    assert!(e.think_time_us().is_some_and(|t| t > 1), "the think time follows the sort");
    assert!(open_engine(EngineKind::Cpu(CpuOptions { load: 0, ..cpu }), cfg()).is_err());
    // exec: fio splits the command line at spaces.
    let x = ExecOptions { program: "echo".into(), arguments: Some(" a  b ".into()), ..ExecOptions::default() };
    assert_eq!(x.argv(), ["echo", "a", "b"]);
    assert!(open_engine(EngineKind::Exec(ExecOptions::default()), cfg()).is_err());
}

fn e4defrag(
    donor: &Path,
    inplace: bool,
    prealloc: (u64, i64),
    files: Vec<OwnedFd>,
) -> Result<Box<dyn Engine>, EngineError> {
    let config = EngineConfig {
        depth: 1,
        buffer_size: 65536,
        buffer_align: 4096,
        files,
        clock: RealClock::new(),
        buffer_offset: 0,
        buffer_memory: Default::default(),
    };
    open_engine(EngineKind::E4defrag(E4defragOptions { donor: donor.to_path_buf(), inplace, prealloc }), config)
}

#[test]
fn e4defrag_off_ext4_fails_as_fio_does() {
    let s = Scratch::new("/dev/shm").unwrap();
    let path = s.path("orig");
    let donor = s.path("donor");
    // Setup: the donor is created (0644) and preallocated over the range it is given.
    let mut e = e4defrag(&donor, false, (4096, 65536), vec![open_rw(&path, 1 << 20, false)]).unwrap();
    let meta = std::fs::metadata(&donor).unwrap();
    assert_eq!((meta.len(), meta.mode() & 0o777), (4096 + 65536, 0o644));
    // tmpfs has no EXT4_IOC_MOVE_EXT; anything but a write is refused before any call.
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 0, 32768)), -libc::ENOTTY);
    for d in [Ddir::Read, Ddir::Trim, Ddir::Sync, Ddir::DataSync] {
        assert_eq!(run(e.as_mut(), io(0, d, 0, 4096)), -libc::EINVAL, "{d:?}");
    }
    assert_eq!(e.queue(&Io { file: 1, ..io(0, Ddir::Write, 0, 4096) }), Queued::Completed(-libc::EBADF));
    // inplace: the donor's range is allocated for the call and the donor emptied after it,
    // whatever the call did.
    let mut e = e4defrag(&donor, true, (0, 0), vec![open_rw(&path, 1 << 20, false)]).unwrap();
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 8192, 4096)), -libc::ENOTTY);
    assert_eq!(std::fs::metadata(&donor).unwrap().len(), 0);
    // Without inplace, an empty preallocation range fails the setup as fio's does (EINVAL).
    let err = e4defrag(&s.path("d2"), false, (0, 0), vec![open_rw(&path, 1 << 20, false)]).err().unwrap();
    assert_eq!(err.errno(), libc::EINVAL, "{err}");
    assert!(err.to_string().contains("fallocate(offset 0, length 0)"), "{err}");
    let err = e4defrag(&s.path("no/such/dir"), true, (0, 0), vec![open_rw(&path, 1 << 20, false)]).err().unwrap();
    assert_eq!(err.errno(), libc::ENOENT, "{err}");
}

#[test]
fn e4defrag_on_ext4_moves_blocks_and_keeps_the_data() {
    let base = std::env::temp_dir();
    let s = Scratch::new(&base.to_string_lossy()).unwrap();
    if !is_ext4(s.dir.path()) {
        eprintln!(
            "skipped: {} is not on ext4 (crates/zonekit/tests run e4defrag on a loop-mounted ext4)",
            base.display()
        );
        return;
    }
    let path = s.path("orig");
    let data = pattern(7, 1 << 20);
    std::fs::write(&path, &data).unwrap();
    // Blocks to move: delayed allocation gives written pages none until they are written back
    // (the kernel says ENODATA for a range without extents); and Linux 6.18 moves no block
    // whose page is still cached (EBUSY after one block), so the pages go too.
    let f = std::fs::File::open(&path).unwrap();
    f.sync_all().unwrap();
    crate::sys::io::posix_fadvise(f.as_fd(), 0, 0, rustix::fs::Advice::DontNeed).unwrap();
    let fd = open_job_file(&path, &OpenSpec::new(true, true, false)).unwrap();
    let mut e = e4defrag(&s.path("donor"), false, (0, 1 << 20), vec![fd.try_clone().unwrap()]).unwrap();
    for off in (0..1 << 20).step_by(65536) {
        assert_eq!(run(e.as_mut(), io(0, Ddir::Write, off, 65536)), 65536, "at {off}");
    }
    crate::sys::io::posix_fadvise(f.as_fd(), 0, 0, rustix::fs::Advice::DontNeed).unwrap();
    let mut e = e4defrag(&s.path("donor2"), true, (0, 0), vec![fd]).unwrap();
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 4096, 8192)), 8192);
    assert_eq!(std::fs::metadata(s.path("donor2")).unwrap().len(), 0, "inplace empties the donor");
    // Moving blocks changes where the data is, not what it is.
    assert!(std::fs::read(&path).unwrap() == data, "the file's data survived the moves");
    // Past the end of the file nothing moves: the kernel's error (or fio's EINVAL for none moved).
    let r = run(e.as_mut(), io(0, Ddir::Write, 2 << 20, 4096));
    assert!(r < 0, "{r}");
}

/// An offload pool over `kind`: one engine of depth 1 per slot, each over its own descriptor of
/// `path`.
fn offload(kind: &EngineKind, slots: u32, path: &Path) -> OffloadEngine {
    let engines = (0..slots).map(|_| make(kind.clone(), 1, vec![open_rw(path, 1 << 20, false)])).collect();
    OffloadEngine::new(engines, RealClock::new()).unwrap()
}

/// fio's `io_submit_mode=offload`: each slot's I/O runs on its own thread with its own engine;
/// the data goes through the slot's buffer as with any engine, and the thread's issue time is
/// handed back (a submission latency for the asynchronous engines only).
#[test]
fn offload_runs_each_slot_on_its_thread() {
    let s = Scratch::new("/dev/shm").expect("scratch directory");
    for kind in
        [EngineKind::Psync, EngineKind::Sync, EngineKind::Libaio(LibaioOptions::default()), EngineKind::Posixaio]
    {
        let path = s.path(kind.name());
        let mut e = offload(&kind, 4, &path);
        assert!(e.offloads() && !e.is_sync());
        assert_eq!(e.name(), kind.name());
        let clock = RealClock::new();
        for tag in 0..4u32 {
            e.buffer(tag)[..4096].copy_from_slice(&pattern(tag as u8, 4096));
        }
        let before = clock.now_ns();
        for tag in 0..4u32 {
            assert_eq!(e.queue(&io(tag, Ddir::Write, u64::from(tag) * 8192, 4096)), Queued::Queued);
        }
        // A slot whose I/O is with its thread is busy.
        assert_eq!(e.queue(&io(0, Ddir::Write, 0, 4096)), Queued::Busy);
        let mut out = Vec::new();
        assert_eq!(e.getevents(4, 4, &mut out).unwrap(), 4);
        let mut tags: Vec<u32> = out.iter().map(|c| c.tag).collect();
        tags.sort_unstable();
        assert_eq!(tags, [0, 1, 2, 3]);
        for c in &out {
            assert_eq!(c.result, 4096, "{kind:?}");
            let h = e.hand_off(c.tag).unwrap();
            assert!(before <= h.issue_ns && h.issue_ns <= c.at_ns, "{kind:?}: issued {h:?}, done {}", c.at_ns);
            assert_eq!(h.submitted, !matches!(kind, EngineKind::Psync | EngineKind::Sync), "{kind:?}");
        }
        // Nothing in flight: getevents does not wait.
        assert_eq!(e.getevents(1, 4, &mut out).unwrap(), 0);
        // Read back through other slots.
        for tag in 0..4u32 {
            let slot = 3 - tag;
            e.buffer(slot).fill(0);
            assert_eq!(run(&mut e, io(slot, Ddir::Read, u64::from(tag) * 8192, 4096)), 4096);
            assert_eq!(&e.buffer(slot)[..4096], &pattern(tag as u8, 4096)[..], "{kind:?}");
        }
    }
}

/// An engine whose every I/O takes 100 ms.
struct Slow {
    buf: Vec<u8>,
}

impl Engine for Slow {
    fn name(&self) -> &'static str {
        "slow"
    }
    fn is_sync(&self) -> bool {
        true
    }
    fn buffer(&mut self, _tag: u32) -> &mut [u8] {
        &mut self.buf
    }
    fn queue(&mut self, io: &Io) -> Queued {
        std::thread::sleep(std::time::Duration::from_millis(100));
        Queued::Completed(io.len as i32)
    }
    fn commit(&mut self) -> std::io::Result<usize> {
        Ok(0)
    }
    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> std::io::Result<usize> {
        Ok(0)
    }
}

/// The pool's threads run their I/Os at the same time (the point of one thread per slot), and
/// a pool dropped with I/Os in flight waits for them.
#[test]
fn offload_threads_run_at_once() {
    let engines: Vec<Box<dyn Engine>> =
        (0..8).map(|_| Box::new(Slow { buf: vec![0; 512] }) as Box<dyn Engine>).collect();
    let mut e = OffloadEngine::new(engines, RealClock::new()).unwrap();
    let t0 = std::time::Instant::now();
    for tag in 0..8 {
        assert_eq!(e.queue(&io(tag, Ddir::Read, 0, 512)), Queued::Queued);
    }
    let mut out = Vec::new();
    // Nothing is done yet: a reap that does not wait takes nothing.
    assert_eq!(e.getevents(0, 8, &mut out).unwrap(), 0);
    assert_eq!(e.getevents(8, 8, &mut out).unwrap(), 8);
    let took = t0.elapsed();
    assert!(took < std::time::Duration::from_millis(500), "8 I/Os of 100 ms took {took:?}");
    assert!(out.iter().all(|c| c.result == 512));
    e.queue(&io(0, Ddir::Read, 0, 512));
    drop(e);
}

/// io_uring cannot be offloaded (fio's words); neither can a pool be empty or mixed.
#[test]
fn offload_refuses_what_fio_refuses() {
    let s = Scratch::new("/dev/shm").expect("scratch directory");
    let path = s.path("u");
    let uring = vec![make(EngineKind::IoUring(UringOptions::default()), 1, vec![open_rw(&path, 4096, false)])];
    let err = OffloadEngine::new(uring, RealClock::new()).err().unwrap();
    assert_eq!(err.to_string(), "ioengine io_uring: can't be used with offloaded submit. Use a sync engine");
    assert!(OffloadEngine::new(Vec::new(), RealClock::new()).is_err());
    let mixed = vec![
        make(EngineKind::Psync, 1, vec![open_rw(&path, 4096, false)]),
        make(EngineKind::Null, 1, vec![open_rw(&path, 4096, false)]),
    ];
    assert!(OffloadEngine::new(mixed, RealClock::new()).is_err());
}

/// The file operations of an offloaded job make each file's call once, whichever thread's
/// engine first uses the file; the latencies and failures come back with the completions.
#[test]
fn offloaded_file_operations_call_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = (0..4).map(|i| dir.path().join(format!("f{i}"))).collect();
    let opts = FileOpsOptions { op: FileOp::Create, paths: paths.clone(), calls: CallsMade::default() };
    let engines = (0..3)
        .map(|_| {
            let cfg = EngineConfig {
                depth: 1,
                buffer_size: 4096,
                buffer_align: 0,
                files: vec![],
                clock: RealClock::new(),
                buffer_offset: 0,
                buffer_memory: Default::default(),
            };
            open_engine(EngineKind::FileOps(opts.clone()), cfg).unwrap()
        })
        .collect();
    let mut e = OffloadEngine::new(engines, RealClock::new()).unwrap();
    assert!(e.own_latencies());
    let mut out = Vec::new();
    let mut free = vec![0u32, 1, 2];
    for i in 0..8u32 {
        if free.is_empty() {
            let from = out.len();
            e.getevents(1, 3, &mut out).unwrap();
            free.extend(out[from..].iter().map(|c| c.tag));
        }
        let tag = free.pop().unwrap();
        assert_eq!(e.queue(&Io { tag, ddir: Ddir::Write, file: i % 4, offset: 0, len: 4096 }), Queued::Queued);
    }
    while e.getevents(1, 3, &mut out).unwrap() > 0 {}
    assert_eq!(out.len(), 8);
    let mut lats = Vec::new();
    e.take_latencies(&mut lats);
    assert_eq!(lats.len(), 4, "one call per file");
    assert!(paths.iter().all(|p| p.exists()));
}

/// `reopen_files` hands an engine new files (fio's files closed and opened again between two
/// loops): the same engine writes into the new files from then on, and leaves the old ones
/// alone, whatever its kind (mmap and the falloc engine included).
#[test]
fn an_engine_keeps_working_on_files_it_is_given_again() {
    let s = Scratch::new("/dev/shm").expect("scratch directory");
    let mut kinds = variants();
    kinds.push(EngineKind::Mmap(MmapOptions { writable: true, ..MmapOptions::default() }));
    for (v, kind) in kinds.into_iter().enumerate() {
        let (old, new) = (s.path(&format!("old-{v}")), s.path(&format!("new-{v}")));
        let mut e = make(kind.clone(), 4, vec![open_rw(&old, 1 << 16, false)]);
        e.buffer(0)[..4096].copy_from_slice(&pattern(1, 4096));
        assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 0, 4096)), 4096, "{kind:?} first write");
        e.reopen_files(vec![open_rw(&new, 1 << 16, false)]).unwrap_or_else(|err| panic!("{kind:?}: {err}"));
        e.buffer(1)[..4096].copy_from_slice(&pattern(2, 4096));
        assert_eq!(run(e.as_mut(), io(1, Ddir::Write, 8192, 4096)), 4096, "{kind:?} write after reopening");
        assert_eq!(run(e.as_mut(), io(2, Ddir::Sync, 0, 0)), 0, "{kind:?} sync");
        let read = |p: &Path, off: u64| {
            let mut b = vec![0u8; 4096];
            std::fs::File::open(p).unwrap().read_exact_at(&mut b, off).unwrap();
            b
        };
        assert_eq!(read(&new, 8192), pattern(2, 4096), "{kind:?}: the new file has the write");
        assert_eq!(read(&old, 8192), vec![0; 4096], "{kind:?}: the old file does not");
        assert_eq!(read(&old, 0), pattern(1, 4096), "{kind:?}: the first write stays in the old file");
    }
    let mut e = make(EngineKind::Falloc, 1, vec![open_rw(&s.path("fa-old"), 0, false)]);
    e.reopen_files(vec![open_rw(&s.path("fa-new"), 0, false)]).unwrap();
    assert_eq!(run(e.as_mut(), io(0, Ddir::Write, 0, 8192)), 8192);
    assert_eq!(std::fs::metadata(s.path("fa-new")).unwrap().len(), 8192, "falloc allocates in the new file");
    assert_eq!(std::fs::metadata(s.path("fa-old")).unwrap().len(), 0);
}
