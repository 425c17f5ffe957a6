//! File handling options (`file_append`, `create_only`, `pre_read`, `sync`, `atomic`,
//! `fsync_on_close`): what zonekit leaves on disk and reports, and the same jobs side by side with
//! real fio 3.33 (file sizes and untouched bytes after each tool, I/O counts).
//!
//! The side-by-side tests need `fio` and fail without it (a missing tool must not pass a check).

mod common;

use common::{ok, run, zonekit};

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn io(doc: &Value, dir: &str, key: &str) -> u64 {
    doc["jobs"][0][dir][key].as_u64().unwrap_or_else(|| panic!("{dir}.{key} in {doc}"))
}

/// A 64 KiB file of known bytes.
fn seed_file(path: &Path) -> Vec<u8> {
    let data: Vec<u8> = (0..65536u32).map(|i| (i * 7 + 3) as u8).collect();
    std::fs::write(path, &data).unwrap();
    data
}

const APPEND: [&str; 6] = ["--name=a", "--filename=f", "--size=32k", "--rw=write", "--bs=4k", "--file_append=1"];

/// `file_append`: the writes go after the file's end, `offset` or not.
fn append_in(program: &str, dir: &Path) {
    let data = seed_file(&dir.join("f"));
    let mut args = APPEND.to_vec();
    args.push("--offset=8k");
    let (doc, o) = run(program, &args, dir);
    ok(&o);
    assert_eq!(io(&doc, "write", "io_bytes"), 32768, "{program}");
    let after = std::fs::read(dir.join("f")).unwrap();
    assert_eq!(after.len(), 96 << 10, "{program}: file size");
    assert!(after[..65536] == data[..], "{program}: the first 64 KiB changed");
    // A missing file starts empty.
    let (_, o) =
        run(program, &["--name=a", "--filename=g", "--size=32k", "--rw=write", "--bs=4k", "--file_append=1"], dir);
    ok(&o);
    assert_eq!(std::fs::metadata(dir.join("g")).unwrap().len(), 32 << 10, "{program}");
}

/// `create_only`: the file is laid out, nothing is read or written.
fn create_only_in(program: &str, dir: &Path) {
    let (doc, o) =
        run(program, &["--name=c", "--filename=c", "--size=64k", "--rw=randrw", "--bs=4k", "--create_only=1"], dir);
    ok(&o);
    assert_eq!(std::fs::metadata(dir.join("c")).unwrap().len(), 64 << 10, "{program}");
    for d in ["read", "write"] {
        assert_eq!(io(&doc, d, "total_ios"), 0, "{program}: {d}");
    }
    let o = Command::new(program)
        .args(if program.ends_with("zonekit") { vec!["bench"] } else { vec![] })
        .args(["--name=c", "--filename=c", "--size=64k", "--rw=randrw", "--bs=4k", "--create_only=1"])
        .current_dir(dir)
        .output()
        .unwrap();
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("(groupid="), "{program}: a job block\n{text}");
    assert!(text.contains("Run status group 0 (all jobs):"), "{program}\n{text}");
}

/// `create_on_open`: no layout; the job's open creates the file (mode 0600), its writes size it.
fn create_on_open_in(program: &str, dir: &Path) {
    let mut cmd = Command::new(program);
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    let o = cmd
        .args(["--name=c", "--filename=n", "--size=64k", "--rw=write", "--bs=4k", "--create_on_open=1"])
        .current_dir(dir)
        .output()
        .unwrap();
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("Laying out"), "{program}: laid out\n{text}");
    assert!(text.contains("io=64.0KiB"), "{program}\n{text}");
    let m = std::fs::metadata(dir.join("n")).unwrap();
    assert_eq!(m.len(), 64 << 10, "{program}");
    assert_eq!(std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o777, 0o600, "{program}");
}

#[test]
fn create_on_open_creates_when_opening() {
    let dir = tempfile::tempdir().unwrap();
    create_on_open_in(zonekit(), dir.path());
}

#[test]
fn file_append_writes_after_the_end() {
    let dir = tempfile::tempdir().unwrap();
    append_in(zonekit(), dir.path());
}

#[test]
fn create_only_lays_out_and_does_no_io() {
    let dir = tempfile::tempdir().unwrap();
    create_only_in(zonekit(), dir.path());
}

/// pre_read, sync, dsync and fsync_on_close run the job's I/O as without them.
#[test]
fn pre_read_sync_and_fsync_on_close_run() {
    let dir = tempfile::tempdir().unwrap();
    for extra in ["--pre_read=1", "--sync=1", "--sync=dsync", "--fsync_on_close=1", "--write_barrier=2"] {
        let (doc, o) =
            run(zonekit(), &["--name=p", "--filename=p", "--size=64k", "--rw=randrw", "--bs=4k", extra], dir.path());
        ok(&o);
        assert_eq!(io(&doc, "read", "total_ios") + io(&doc, "write", "total_ios"), 16, "{extra}");
    }
}

/// A read job in 100-byte blocks: buffered it runs, O_DIRECT refuses it (EINVAL) on a file system
/// of 512-byte sectors.
const UNALIGNED: [&str; 5] = ["--name=x", "--filename=x", "--size=64k", "--rw=read", "--bs=100"];

fn job_error(program: &str, extra: &[&str], dir: &Path) -> i64 {
    let args: Vec<&str> = UNALIGNED.iter().chain(extra).copied().collect();
    let (doc, _) = run(program, &args, dir);
    doc["jobs"][0]["error"].as_i64().unwrap_or_else(|| panic!("{program} {args:?}: no error key in {doc}"))
}

/// `atomic=1` is O_DIRECT even with `direct=0` (and `buffered=1`).
fn atomic_in(program: &str, dir: &Path) {
    assert_eq!(job_error(program, &["--direct=0"], dir), 0, "{program}: buffered");
    assert_eq!(
        job_error(program, &["--direct=1"], dir),
        22,
        "{program}: O_DIRECT took 100-byte reads: the test cannot tell"
    );
    assert_eq!(job_error(program, &["--direct=0", "--atomic=1"], dir), 22, "{program}: atomic=1 direct=0");
    assert_eq!(job_error(program, &["--atomic=1", "--buffered=1"], dir), 22, "{program}: atomic=1 buffered=1");
}

#[test]
fn atomic_implies_direct() {
    let dir = tempfile::tempdir().unwrap();
    atomic_in(zonekit(), dir.path());
}

/// `opendir`: the files below the directory, subdirectories included, are the job's files.
fn opendir_in(program: &str, dir: &Path) {
    std::fs::create_dir_all(dir.join("od/sub")).unwrap();
    std::fs::write(dir.join("od/a"), vec![1u8; 8192]).unwrap();
    std::fs::write(dir.join("od/sub/b"), vec![2u8; 8192]).unwrap();
    let (doc, o) = run(program, &["--name=o", "--opendir=od", "--rw=read", "--bs=4k"], dir);
    ok(&o);
    assert_eq!(io(&doc, "read", "io_bytes"), 16384, "{program}");
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(text.contains(": opendir added 2 files"), "{program}: {text}");
}

#[test]
fn opendir_adds_the_files_below() {
    let dir = tempfile::tempdir().unwrap();
    opendir_in(zonekit(), dir.path());
    let o = Command::new(zonekit())
        .args(["bench", "--name=o", "--opendir=nodir", "--rw=read", "--bs=4k"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("opendir=nodir: No such file or directory"), "{err}");
}

#[test]
fn bad_values_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["--sync=maybe", "--file_append=yes", "--write_barrier=-1"] {
        let o = Command::new(zonekit())
            .args(["bench", "--name=b", "--filename=b", "--size=64k", bad])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert_eq!(err.lines().count(), 1, "{bad}: {err}");
    }
}

use crate::common::require_fio;

mod needs_tools {
    use super::*;

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn file_append_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            append_in(program, dir.path());
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn create_only_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            create_only_in(program, dir.path());
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn create_on_open_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            create_on_open_in(program, dir.path());
        }
    }

    /// `create_on_open` with a job that only reads: its open creates the file empty, and its
    /// first read (a synchronous engine's) moves nothing, which fails it (`func=full resid`),
    /// that read counted as issued.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn create_on_open_reader_fails_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            let args = ["--name=c", "--filename=n", "--size=64k", "--rw=read", "--bs=4k", "--create_on_open=1"];
            let o = common::raw(program, &args, dir.path());
            let text = common::text(&o);
            assert_eq!(o.status.code(), Some(1), "{program}\n{text}");
            assert!(
                text.contains("err= 5 (file:backend.c:471, func=full resid, error=Input/output error)"),
                "{program}\n{text}"
            );
            assert!(text.contains("issued rwts: total=1,0,0,0 short=0,0,0,0"), "{program}\n{text}");
            assert_eq!(std::fs::metadata(dir.path().join("n")).unwrap().len(), 0, "{program}");
        }
    }

    /// `--readonly`: the layout creates and extends nothing (fio's `refusing extend of file due
    /// to read-only`); a missing file then fails the job as it is opened, with fio's error
    /// line, and a short one is read as it is, to its end.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn readonly_creates_and_extends_nothing_as_fio() {
        require_fio();
        let mut disk_stats = Vec::new();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            let args = ["--name=r", "--filename=missing", "--size=1m", "--rw=read", "--readonly"];
            let o = common::raw(program, &args, dir.path());
            let text = common::text(&o);
            // The job's file was set up: its disk's statistics are reported (where it has one).
            disk_stats.push(text.contains("Disk stats (read/write):"));
            assert_eq!(o.status.code(), Some(1), "{program}\n{text}");
            assert!(text.contains("refusing extend of file due to read-only"), "{program}\n{text}");
            let line = "err=2/file:filesetup.c:805, func=open(missing), error=No such file or directory";
            assert!(text.contains(line), "{program}\n{text}");
            assert!(!dir.path().join("missing").exists(), "{program} created the file");
            std::fs::write(dir.path().join("short"), [7u8; 10000]).unwrap();
            let args = ["--name=r", "--filename=short", "--size=1m", "--rw=read", "--readonly"];
            let o = common::raw(program, &args, dir.path());
            let text = common::text(&o);
            assert!(text.contains("refusing extend of file due to read-only"), "{program}\n{text}");
            assert!(text.contains("func=full resid"), "{program}\n{text}");
            assert_eq!(std::fs::metadata(dir.path().join("short")).unwrap().len(), 10000, "{program}");
        }
        assert_eq!(disk_stats[0], disk_stats[1], "fio, zonekit: Disk stats");
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn opendir_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            opendir_in(program, dir.path());
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn atomic_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            atomic_in(program, dir.path());
        }
    }

    /// A 1 MiB tmpfs mounted for the test, unmounted when dropped.
    struct SmallFs(tempfile::TempDir);

    impl SmallFs {
        fn new() -> SmallFs {
            let d = tempfile::tempdir().unwrap();
            let o = Command::new("mount").args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"]).arg(d.path()).output();
            let ok = o.as_ref().is_ok_and(|o| o.status.success());
            assert!(ok, "mounting a 1 MiB tmpfs needs mount(8) and root: {o:?}");
            SmallFs(d)
        }
    }

    impl Drop for SmallFs {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0.path()).status();
        }
    }

    /// `fill_device` without a size writes until the file system is full, then ends without an
    /// error, fio's io_u error line logged.
    fn fill_in(program: &str) {
        let fs = SmallFs::new();
        let (doc, o) =
            run(program, &["--name=fill", "--filename=f", "--rw=write", "--bs=4k", "--fill_device=1"], fs.0.path());
        ok(&o);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("io_u error on file f: No space left on device: write offset=1048576, buflen=4096"),
            "{program}: {err}"
        );
        assert_eq!(doc["jobs"][0]["error"].as_i64(), Some(0), "{program}");
        assert_eq!(io(&doc, "write", "io_bytes"), 1 << 20, "{program}");
        // The write that found the device full was issued (fio counts it).
        assert_eq!(io(&doc, "write", "total_ios"), 257, "{program}");
        assert_eq!(std::fs::metadata(fs.0.path().join("f")).unwrap().len(), 1 << 20, "{program}");
    }

    #[test]
    #[ignore = "needs mount(8), root and fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn fill_device_stops_at_enospc() {
        fill_in(zonekit());
    }

    #[test]
    #[ignore = "needs mount(8), root and fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn fill_device_as_fio() {
        require_fio();
        fill_in("fio");
        fill_in(zonekit());
    }
}
