//! fio 3.33's `posixaio`, `mmap`, `splice`, `falloc` and `ftruncate` engines beside `zonekit
//! bench` on the same jobs: the same I/O counts and bytes per direction (syncs included), the
//! same error, the same files left with the same sizes, and for the asynchronous engine the same
//! IO depths; on zonekit's emulated devices, the engines that need a file are refused in one line
//! (exit 2) and the others run in process.
//!
//! Needs `fio`: the comparisons are `#[ignore]`d for a plain `cargo test`; `scripts/test.sh` runs
//! them and they fail without fio.

mod common;

use common::{raw, text, zonekit};

use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// Files left in `dir` (name, size), the JSON reports aside.
fn listing(dir: &Path) -> Vec<(String, u64)> {
    common::listing(dir).into_iter().filter(|(n, _)| !n.ends_with(".json")).collect()
}

// Like fio 3.33, zonekit issues no sync after the job's last write (see sync_every_vs_fio.rs).

/// Per job: its error, then I/Os and bytes of reads, writes and trims, and syncs.
fn counts(doc: &Value) -> Vec<(String, i64, [u64; 7])> {
    doc["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or_else(|| panic!("{d}.{k} in {j}"));
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["error"].as_i64().unwrap(),
                [
                    n("read", "total_ios"),
                    n("read", "io_bytes"),
                    n("write", "total_ios"),
                    n("write", "io_bytes"),
                    n("trim", "total_ios"),
                    n("trim", "io_bytes"),
                    // fio 3.33 counts only fsyncs in sync.total_ios (fdatasyncs go to the reads'
                    // short_ios, as in zonekit); the latency samples count every sync.
                    j["sync"]["lat_ns"]["N"].as_u64().unwrap_or(0),
                ],
            )
        })
        .collect()
}

/// Runs `args` (a job on files in the current directory) through both, after `setup` made the
/// same files in each directory; compares counts, errors and the files left. Returns both
/// reports.
fn compare(args: &str, setup: &dyn Fn(&Path)) -> (Value, Value) {
    let args: Vec<&str> = args.split_whitespace().chain(["--output-format=json"]).collect();
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    setup(fdir.path());
    setup(zdir.path());
    let f = raw("fio", &args, fdir.path());
    let z = raw(zonekit(), &args, zdir.path());
    assert_eq!(f.status.code(), z.status.code(), "{args:?}: exit\nfio: {}\nzonekit: {}", text(&f), text(&z));
    let doc = |o: &Output| -> Value {
        let s = String::from_utf8_lossy(&o.stdout);
        // fio prints its error lines before the JSON document.
        let start = s.find("{\n").unwrap_or_else(|| panic!("{args:?}: no JSON in\n{}", text(o)));
        serde_json::from_str(&s[start..]).unwrap_or_else(|e| panic!("{args:?}: {e}\n{}", text(o)))
    };
    let (fd, zd) = (doc(&f), doc(&z));
    let (fc, mut zc) = (counts(&fd), counts(&zd));
    if args.iter().any(|a| a.strip_prefix("--rw=").is_some_and(|rw| rw.contains("rw"))) {
        // A mixed job: the read/write split is random (its share is compared in vs_fio.rs); the
        // totals are fixed.
        let total = |v: &mut Vec<(String, i64, [u64; 7])>| {
            for (_, _, c) in v.iter_mut() {
                (c[0], c[1], c[2], c[3]) = (c[0] + c[2], c[1] + c[3], 0, 0);
            }
        };
        let mut fc = fc;
        total(&mut fc);
        total(&mut zc);
        assert_eq!(fc, zc, "{args:?}: error, (ios, bytes) of reads and writes together, trims, syncs");
    } else {
        assert_eq!(fc, zc, "{args:?}: error, (ios, bytes) of reads, writes, trims, syncs");
    }
    assert_eq!(listing(fdir.path()), listing(zdir.path()), "{args:?}: the files left");
    (fd, zd)
}

fn no_setup(_: &Path) {}

/// A file of `len` bytes called `name`, written with a pattern.
fn file(name: &'static str, len: usize) -> impl Fn(&Path) {
    move |d: &Path| std::fs::write(d.join(name), (0..len).map(|i| (i % 251) as u8).collect::<Vec<u8>>()).unwrap()
}

use crate::common::require_fio;

fn posixaio_as_fio() {
    require_fio();
    let e = "--ioengine=posixaio --filename=data --bs=4k";
    compare(&format!("--name=m {e} --size=512k --rw=randrw --iodepth=16 --offset=256k --direct=1"), &no_setup);
    // Syncs are aio_fsync requests; at iodepth 1 each completes before the next I/O (deeper, fio
    // issues more syncs while one is in flight: it notes a sync only when it completes).
    compare(&format!("--name=s {e} --size=256k --rw=randwrite --iodepth=1 --fsync=15"), &no_setup);
    // At iodepth 1 the depth counts are exact: a queue of one, submitted and reaped one by one.
    let (f, z) =
        compare(&format!("--name=d {e} --size=256k --rw=read --iodepth=1 --fdatasync=7"), &file("data", 1 << 18));
    for key in ["iodepth_level", "iodepth_submit"] {
        assert_eq!(f["jobs"][0][key], z["jobs"][0][key], "posixaio: {key}");
    }
}

fn mmap_as_fio() {
    require_fio();
    let e = "--ioengine=mmap --filename=data";
    compare(&format!("--name=w {e} --size=512k --rw=randwrite --bs=4k --fsync=10 --thp=1"), &no_setup);
    compare(&format!("--name=m {e} --size=512k --rw=randrw --bs=8k --direct=1"), &no_setup);
    compare("--name=f --ioengine=mmap --directory=. --nrfiles=3 --size=768k --rw=read --bs=64k", &no_setup);
}

fn splice_as_fio() {
    require_fio();
    let e = "--ioengine=splice --filename=data";
    compare(&format!("--name=w {e} --size=1m --rw=write --bs=128k --fsync=3"), &no_setup);
    compare(&format!("--name=m {e} --size=512k --rw=randrw --bs=16k"), &no_setup);
}

fn falloc_as_fio() {
    require_fio();
    // Writes allocate (and grow the file past its end), trims punch holes.
    let e = "--ioengine=falloc --filename=data";
    compare(&format!("--name=x {e} --size=256k --rw=randwrite --bs=4k --offset=1m"), &file("data", 1 << 20));
    compare(&format!("--name=t {e} --size=1m --rw=randtrim --bs=64k"), &file("data", 1 << 20));
    // A sync through falloc is an fallocate of nothing: EINVAL ends the job, in both.
    let (f, _) = compare(&format!("--name=s {e} --size=64k --rw=write --bs=4k --fsync=2"), &no_setup);
    assert_eq!(f["jobs"][0]["error"], 22);
}

fn ftruncate_as_fio() {
    require_fio();
    // Each write truncates to its offset, whatever the block size.
    let e = "--ioengine=ftruncate --filename=data";
    compare(&format!("--name=d {e} --size=512k --rw=write --bs=4k --direct=1"), &file("data", 2 << 20));
    // Anything but a write is EINVAL.
    let (f, _) = compare(&format!("--name=r {e} --size=64k --rw=read --bs=4k"), &no_setup);
    assert_eq!(f["jobs"][0]["error"], 22);
}

/// On zonekit's emulated devices: posixaio and splice run in process; the engines that need a
/// file are refused in one line, exit 2.
#[test]
fn engines_on_emulated_devices() {
    let dir = tempfile::tempdir().unwrap();
    for engine in ["posixaio", "splice"] {
        let e = format!("--ioengine={engine}");
        let args = ["--name=d", "--filename=@nullb-small", "--size=1m", "--rw=write", "--bs=64k", &e, "--iodepth=4"];
        let o = raw(zonekit(), &args, dir.path());
        assert!(o.status.success(), "{engine}: {}", text(&o));
        assert!(text(&o).contains("io=1024KiB"), "{engine}: {}", text(&o));
    }
    for (engine, why) in [("mmap", "maps the file's pages"), ("falloc", "fallocate(2)"), ("ftruncate", "ftruncate(2)")]
    {
        let e = format!("--ioengine={engine}");
        let o = raw(zonekit(), &["--name=d", "--filename=@nullb-small", "--size=1m", "--rw=write", &e], dir.path());
        assert_eq!(o.status.code(), Some(2), "{engine}: {}", text(&o));
        assert!(o.stdout.is_empty(), "{engine}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{engine}: one line: {err}");
        assert!(err.contains(&format!("ioengine={engine}: not available on zonekit's emulated devices")), "{err}");
        assert!(err.contains(why), "{err}");
    }
    // A bad value of an engine option: one line, exit 2.
    let o = raw(zonekit(), &["--name=d", "--filename=f", "--size=1m", "--ioengine=mmap", "--thp=2"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1, "{}", text(&o));
    assert!(!dir.path().join("f").exists(), "no file made for a refused job");
    // mmap with direct=1 (or fsync) msyncs whole pages: fio refuses smaller blocks, and so does
    // zonekit, in one line (exit 2).
    let args = ["--name=d", "--filename=f", "--size=64k", "--ioengine=mmap", "--bs=512", "--direct=1"];
    let o = raw(zonekit(), &args, dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("multiple of the page size"), "{err}");
}

/// The tests that need a tool besides Rust: ignored by a plain `cargo test`, run by
/// `scripts/test.sh`, and failing there when the tool is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn posixaio_as_fio() {
        super::posixaio_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn mmap_as_fio() {
        super::mmap_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn splice_as_fio() {
        super::splice_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn falloc_as_fio() {
        super::falloc_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn ftruncate_as_fio() {
        super::ftruncate_as_fio();
    }
}
