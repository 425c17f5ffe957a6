//! fio options of issue 9 that zonekit used to refuse: `unlink_each_loop`, `lockfile`,
//! `sync_file_range`, `serialize_overlap`, `bs_unaligned` (and their bad values). That no two overlapping I/Os
//! are in flight with `serialize_overlap` is checked on the loop itself (`run::io_loop`'s unit
//! tests). Each job runs side by side with real fio 3.33, comparing what the job
//! fixes: counts, bytes, errors and the files it leaves.
//!
//! The side-by-side tests need `fio` and fail without it (a missing tool must not pass a check).

mod common;

use common::{run, zonekit};

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A direction's `(io_bytes, total_ios)` of job `i`.
fn counts(doc: &Value, i: usize, dir: &str) -> (u64, u64) {
    let d = &doc["jobs"][i][dir];
    (
        d["io_bytes"].as_u64().unwrap_or_else(|| panic!("{dir}.io_bytes in {doc}")),
        d["total_ios"].as_u64().unwrap_or_else(|| panic!("{dir}.total_ios in {doc}")),
    )
}

fn error(doc: &Value, i: usize) -> u64 {
    doc["jobs"][i]["error"].as_u64().unwrap_or_else(|| panic!("error in {doc}"))
}

/// The regular files left in `dir` with their sizes, sorted.
fn files_left(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().len()))
        .collect();
    v.sort();
    v
}

/// A bad value: one line on stderr naming the option, exit code 2, nothing on stdout.
fn bad_value(args: &[&str], option: &str) {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(zonekit()).arg("bench").args(args).current_dir(dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("zonekit: ") && err.contains(option), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}");
}

#[test]
fn a_bad_lockfile_mode_is_one_line_and_exit_2() {
    bad_value(&["--name=j", "--filename=f", "--size=64k", "--lockfile=shared"], "lockfile");
}

#[test]
fn bad_sync_file_range_values_are_one_line_and_exit_2() {
    for v in ["wait,write:4", "write:x", "write;wait_after"] {
        let opt = format!("--sync_file_range={v}");
        bad_value(&["--name=j", "--filename=f", "--size=64k", "--rw=write", &opt], "sync_file_range");
    }
}

#[test]
fn bs_unaligned_with_direct_is_one_line_and_exit_2() {
    let args = ["--name=j", "--filename=f", "--size=64k", "--rw=write", "--bsrange=1000-3000", "--bs_unaligned"];
    bad_value(&[args.as_slice(), &["--direct=1"]].concat(), "bs_unaligned");
}

#[test]
fn unlink_each_loop_without_loops_unlinks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--name=j", "--directory=.", "--rw=write", "--bs=4k", "--size=64k", "--unlink_each_loop=1"];
    let (doc, o) = run(zonekit(), &args, dir.path());
    common::ok(&o);
    assert_eq!(counts(&doc, 0, "write"), (65536, 16));
    assert_eq!(files_left(dir.path()), vec![("j.0.0".to_string(), 65536)]);
}

mod needs_tools {
    use super::*;
    use common::require_fio;

    /// A program's report, exit code and the files it left.
    type Outcome = (Value, Option<i32>, Vec<(String, u64)>);

    /// Runs `args` with fio and zonekit, each in a directory of its own; both reports and
    /// directories, and both exit codes.
    fn both(args: &[&str]) -> [Outcome; 2] {
        both_after(args, |_| {})
    }

    /// [`both`], each directory prepared by `setup` first.
    fn both_after(args: &[&str], setup: impl Fn(&Path)) -> [Outcome; 2] {
        require_fio();
        ["fio", zonekit()].map(|p| {
            let dir = tempfile::tempdir().unwrap();
            setup(dir.path());
            let (doc, o) = run(p, args, dir.path());
            assert!(doc.is_object(), "{p}: no report: {}", String::from_utf8_lossy(&o.stderr));
            (doc, o.status.code(), files_left(dir.path()))
        })
    }

    /// A writer with `loops=3`: every loop writes the whole file again into a file created
    /// anew, and the last loop's file is left. The file is there before the job, twice as
    /// large: only an unlink makes it 64 KiB.
    #[test]
    #[ignore]
    fn unlink_each_loop_writer_matches_fio() {
        let args =
            ["--name=j", "--directory=.", "--rw=write", "--bs=4k", "--size=64k", "--loops=3", "--unlink_each_loop=1"];
        let [(f, fc, ff), (z, zc, zf)] = both_after(&args, |d| std::fs::write(d.join("j.0.0"), [1u8; 131072]).unwrap());
        assert_eq!(counts(&f, 0, "write"), (196608, 48), "fio");
        assert_eq!(counts(&z, 0, "write"), counts(&f, 0, "write"));
        assert_eq!((error(&z, 0), zc), (error(&f, 0), fc));
        assert_eq!(ff, vec![("j.0.0".to_string(), 65536)], "fio");
        assert_eq!(zf, ff);
    }

    /// The system calls named in `calls` that `program` made with `args` under strace, one
    /// line each, and its report.
    fn traced(program: &str, args: &[&str], dir: &Path, calls: &str) -> (Value, Vec<String>) {
        let trace = dir.join("trace");
        let trace_s = trace.to_str().unwrap().to_string();
        let filter = format!("trace={calls}");
        let mut full = vec!["-f", "-qq", "-e", filter.as_str(), "-o", trace_s.as_str(), program];
        if program == zonekit() {
            full.push("bench");
        }
        let (doc, o) = run("strace", &[full.as_slice(), args].concat(), dir);
        assert!(o.status.success(), "strace {program}: {}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&trace).expect("strace is installed and wrote its trace");
        std::fs::remove_file(&trace).unwrap();
        (doc, text.lines().map(str::to_string).collect())
    }

    /// Between two loops fio closes and unlinks the files, then opens them again, keeping its
    /// engine: one `io_setup` (libaio) or `io_uring_setup` for the three loops. zonekit used to
    /// set a new engine up for each loop.
    #[test]
    #[ignore]
    fn unlink_each_loop_keeps_the_engine_as_fio() {
        require_fio();
        for (engine, call) in [("libaio", "io_setup"), ("io_uring", "io_uring_setup")] {
            let e = format!("--ioengine={engine}");
            let args = [
                "--name=j",
                "--directory=.",
                "--rw=write",
                "--bs=4k",
                "--size=64k",
                "--loops=3",
                "--unlink_each_loop=1",
                "--iodepth=4",
                e.as_str(),
            ];
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let (doc, lines) = traced(program, &args, dir.path(), call);
                assert_eq!(counts(&doc, 0, "write"), (196608, 48), "{program} {engine}");
                assert_eq!(error(&doc, 0), 0, "{program} {engine}");
                let setups = lines.iter().filter(|l| l.contains(&format!("{call}("))).count();
                assert_eq!(setups, 1, "{program} {engine}: {lines:?}");
                assert_eq!(files_left(dir.path()), vec![("j.0.0".to_string(), 65536)], "{program} {engine}");
            }
        }
    }

    /// A random writer over two files, with `unlink=1` too: nothing is left.
    #[test]
    #[ignore]
    fn unlink_each_loop_with_unlink_leaves_nothing_as_fio() {
        let args = [
            "--name=j",
            "--directory=.",
            "--rw=randwrite",
            "--bs=4k",
            "--size=64k",
            "--nrfiles=2",
            "--loops=2",
            "--unlink_each_loop=1",
            "--unlink=1",
        ];
        let [(f, _, ff), (z, _, zf)] = both(&args);
        assert_eq!(counts(&z, 0, "write"), counts(&f, 0, "write"));
        assert_eq!(counts(&f, 0, "write"), (131072, 32), "fio");
        assert!(ff.is_empty() && zf.is_empty(), "fio {ff:?}, zonekit {zf:?}");
    }

    /// A reader: the second loop cannot open the file the first unlinked (ENOENT), after the
    /// first loop's reads; exit code 1 for the failed job.
    #[test]
    #[ignore]
    fn unlink_each_loop_reader_fails_as_fio() {
        let args =
            ["--name=j", "--directory=.", "--rw=read", "--bs=4k", "--size=64k", "--loops=3", "--unlink_each_loop=1"];
        let [(f, fc, ff), (z, zc, zf)] = both(&args);
        assert_eq!((counts(&f, 0, "read"), error(&f, 0), fc), ((65536, 16), 2, Some(1)), "fio");
        assert_eq!((counts(&z, 0, "read"), error(&z, 0), zc), (counts(&f, 0, "read"), error(&f, 0), fc));
        assert!(ff.is_empty() && zf.is_empty(), "fio {ff:?}, zonekit {zf:?}");
    }

    /// A reader and writer: the second loop's file is new and empty, so its first read (with a
    /// synchronous engine) moves nothing, which fails the job as fio's `io_queue_event` does
    /// (`err=5 … func=full resid`), after the same I/Os: that read is counted as issued.
    #[test]
    #[ignore]
    fn unlink_each_loop_reader_writer_fails_at_the_end_of_the_file_as_fio() {
        require_fio();
        let args =
            ["--name=j", "--directory=.", "--rw=randrw", "--bs=4k", "--size=64k", "--loops=2", "--unlink_each_loop=1"];
        // fio prints its job error line in the report itself (a JSON report would not parse).
        let issued = |out: &str| out.lines().find(|l| l.contains("issued rwts")).map(str::to_string);
        let mut seen = Vec::new();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            let o = common::raw(program, &args, dir.path());
            let out = common::text(&o);
            assert_eq!(o.status.code(), Some(1), "{program}: {out}");
            assert!(
                out.contains("err= 5 (file:backend.c:471, func=full resid, error=Input/output error)"),
                "{program}: {out}"
            );
            seen.push(issued(&out).unwrap_or_else(|| panic!("{program}: {out}")));
        }
        assert_eq!(seen[1], seen[0]);
        assert!(seen[0].contains("total=11,6,0,0"), "fio: {}", seen[0]);
    }

    /// Two jobs on one file, each locking it: the same counts and bytes as fio for every mode.
    #[test]
    #[ignore]
    fn lockfile_jobs_sharing_a_file_match_fio() {
        for mode in ["exclusive", "readwrite"] {
            let lock = format!("--lockfile={mode}");
            let args = [
                "--filename=shared",
                "--size=128k",
                "--bs=4k",
                lock.as_str(),
                "--name=w",
                "--rw=randwrite",
                "--name=r",
                "--rw=randread",
                "--name=rw",
                "--rw=randrw",
                "--iodepth=4",
                "--ioengine=io_uring",
            ];
            let [(f, fc, ff), (z, zc, zf)] = both(&args);
            for (i, dir) in [(0, "write"), (1, "read"), (2, "read"), (2, "write")] {
                assert_eq!(counts(&z, i, dir), counts(&f, i, dir), "{mode}: job {i} {dir}");
            }
            assert_eq!(counts(&f, 0, "write"), (131072, 32), "fio");
            assert_eq!(counts(&f, 1, "read"), (131072, 32), "fio");
            assert_eq!((error(&z, 0), error(&z, 1), error(&z, 2), zc), (0, 0, 0, fc));
            assert_eq!(zf, ff);
        }
    }

    /// Two jobs locking one file with different modes. Running together, fio 3.33 hands the
    /// second to open it the first one's lock, takes it as a lock of its own kind and fails an
    /// assertion, which kills that job; zonekit fails the second job before its I/O, in one
    /// line, exit code 1. One after the other (`stonewall`), both run in both tools. (Paced at
    /// 50 IOPS, so that the two surely overlap.)
    #[test]
    #[ignore]
    fn lockfile_modes_differing_on_one_file_match_fio() {
        require_fio();
        let jobs = |wave: &str| {
            format!(
                "[global]\nsize=32k\nrw=randrw\nbs=4k\nrate_iops=50\n[a]\nfilename=f\nlockfile=exclusive\n[b]\n{wave}filename=f\nlockfile=readwrite\n"
            )
        };
        let ios = |doc: &Value, i: usize| counts(doc, i, "read").1 + counts(doc, i, "write").1;
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("j.fio"), jobs("")).unwrap();
            if program == "fio" {
                // fio's lines about the killed job land in its report: read the normal output.
                let o = common::raw(program, &["j.fio"], dir.path());
                let out = common::text(&o);
                assert!(out.contains("Assertion") && out.contains("magic"), "fio 3.33 fails an assertion: {out}");
                assert!(out.contains("got signal=6"), "{out}");
                assert_eq!(out.matches("(groupid=0, jobs=1): err= 0").count(), 1, "one job's report: {out}");
            } else {
                let (doc, o) = run(program, &["j.fio"], dir.path());
                let err = String::from_utf8_lossy(&o.stderr).to_string();
                let done: Vec<u64> = (0..2).map(|i| ios(&doc, i)).collect();
                assert!(done.contains(&8) && done.contains(&0), "one job runs, one does not: {done:?} {err}");
                assert_eq!(o.status.code(), Some(1), "{err}");
                assert_eq!(err.lines().count(), 1, "{err}");
                assert!(err.contains("lockfile=exclusive") && err.contains("lockfile=readwrite"), "{err}");
                let failed = (0..2).find(|&i| done[i] == 0).unwrap();
                assert_eq!(error(&doc, failed), 22);
            }
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("j.fio"), jobs("stonewall\n")).unwrap();
            let (doc, o) = run(program, &["j.fio"], dir.path());
            assert!(o.status.success(), "{program}: {}", String::from_utf8_lossy(&o.stderr));
            assert_eq!((ios(&doc, 0), ios(&doc, 1)), (8, 8), "{program}: one after the other");
        }
    }

    /// fio refuses the same bad mode (it cannot be a lock mode).
    #[test]
    #[ignore]
    fn fio_refuses_a_bad_lockfile_mode_too() {
        require_fio();
        let dir = tempfile::tempdir().unwrap();
        let o = Command::new("fio")
            .args(["--name=j", "--filename=f", "--size=64k", "--lockfile=shared"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(!o.status.success());
    }

    /// The `sync_file_range` calls a program made under strace, as `offset, nbytes, flags`.
    fn sfr_calls(program: &str, args: &[&str], dir: &Path) -> (Value, Vec<String>) {
        let trace = dir.join("trace");
        let mut full = vec!["-f", "-qq", "-e", "trace=sync_file_range", "-o"];
        let trace_s = trace.to_str().unwrap();
        full.push(trace_s);
        full.push(program);
        if program == zonekit() {
            full.push("bench");
        }
        let (doc, o) = run("strace", &[full.as_slice(), args].concat(), dir);
        assert!(o.status.success(), "strace {program}: {}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&trace).expect("strace is installed and wrote its trace");
        let calls = text
            .lines()
            .filter_map(|l| l.split_once("sync_file_range(").map(|(_, rest)| rest))
            .map(|rest| rest.split_once(", ").map_or(rest, |(_, r)| r).to_string())
            .collect();
        std::fs::remove_file(&trace).unwrap();
        (doc, calls)
    }

    /// `sync_file_range=wait_before,write:4` over 16 writes: three calls (the one due after the
    /// last write is never made), each over the range written since the last, with fio's flags;
    /// the report counts them as fio does (sync latencies, the writes' `short_ios`).
    #[test]
    #[ignore]
    fn sync_file_range_calls_match_fio() {
        require_fio();
        for engine in ["psync", "libaio"] {
            let e = format!("--ioengine={engine}");
            let args = [
                "--name=j",
                "--filename=f",
                "--rw=write",
                "--bs=4k",
                "--size=64k",
                "--iodepth=4",
                e.as_str(),
                "--sync_file_range=wait_before,write:4",
            ];
            let [(f, fc), (z, zc)] = ["fio", zonekit()].map(|p| {
                let dir = tempfile::tempdir().unwrap();
                let (doc, calls) = sfr_calls(p, &args, dir.path());
                (doc, calls)
            });
            assert_eq!(fc.len(), 3, "fio {engine}: {fc:?}");
            if engine == "psync" {
                assert_eq!(fc[0], "0, 16384, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE) = 0", "fio");
                assert_eq!(zc, fc, "{engine}");
            } else {
                // At depth 4 the range is what completed before the call: compare the count
                // and the flags (the timing of completions decides the ranges).
                assert_eq!(zc.len(), fc.len(), "{engine}: {zc:?} / {fc:?}");
                assert!(zc.iter().all(|c| c.contains("SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE)")));
            }
            let sync = |d: &Value| {
                let j = &d["jobs"][0];
                (j["sync"]["lat_ns"]["N"].as_u64(), j["sync"]["total_ios"].as_u64(), j["write"]["short_ios"].as_u64())
            };
            assert_eq!(sync(&f), (Some(3), Some(0), Some(3)), "fio {engine}");
            assert_eq!(sync(&z), sync(&f), "{engine}");
            assert_eq!(counts(&z, 0, "write"), counts(&f, 0, "write"), "{engine}");
        }
    }

    /// `serialize_overlap` with random writes that often land on a block in flight (no random
    /// map, 16 blocks, depth 8): every write is still done, as in fio.
    #[test]
    #[ignore]
    fn serialize_overlap_counts_match_fio() {
        for engine in ["io_uring", "libaio"] {
            let e = format!("--ioengine={engine}");
            let args = [
                "--name=j",
                "--filename=f",
                "--rw=randwrite",
                "--bs=4k",
                "--size=64k",
                "--norandommap",
                "--iodepth=8",
                "--loops=4",
                e.as_str(),
                "--serialize_overlap=1",
            ];
            let [(f, fc, ff), (z, zc, zf)] = both(&args);
            assert_eq!(counts(&f, 0, "write"), (262144, 64), "fio {engine}");
            assert_eq!(counts(&z, 0, "write"), counts(&f, 0, "write"), "{engine}");
            assert_eq!((error(&z, 0), zc), (error(&f, 0), fc), "{engine}");
            assert_eq!(zf, ff, "{engine}");
        }
    }

    /// `bs_unaligned` over `bsrange=1000-3000`: the same drawn lengths as fio (counts and bytes,
    /// which no rounding to 1000 would give), sequential and mixed random.
    #[test]
    #[ignore]
    fn bs_unaligned_counts_match_fio() {
        for rw in ["--rw=write", "--rw=randrw"] {
            let args = ["--name=j", "--filename=f", rw, "--bsrange=1000-3000", "--bs_unaligned", "--size=64k"];
            let [(f, fc, ff), (z, zc, zf)] = both(&args);
            for dir in ["read", "write"] {
                assert_eq!(counts(&z, 0, dir), counts(&f, 0, dir), "{rw} {dir}");
            }
            assert_eq!((error(&z, 0), zc), (error(&f, 0), fc), "{rw}");
            assert_eq!(zf, ff, "{rw}");
            // Lengths as drawn: 30 writes of 65395 bytes, not a multiple of 1000 or 512.
            if rw == "--rw=write" {
                assert_eq!(counts(&f, 0, "write"), (65395, 30), "fio");
            }
        }
    }
}
