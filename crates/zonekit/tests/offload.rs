//! `io_submit_mode=offload`: the job's thread makes the I/Os, a pool of `iodepth` submission
//! threads issues them. Beside fio 3.33 on the jobs fio 3.33 runs (`iodepth=1`; deeper pools
//! hang at start in 3.33, syncs every N writes never end, see docs/bench.md): the same I/O counts
//! and bytes, latencies counted as fio counts them in offload mode, a `rate_iops` job at its
//! rate; without fio, the jobs fio 3.33 cannot run and the refusals.
//!
//! The comparisons need `fio`: they are `#[ignore]`d for a plain `cargo test`; `scripts/test.sh`
//! runs them and they fail without fio.

mod common;

use common::{raw, run, text, zonekit};
use serde_json::Value;

fn job(doc: &Value) -> &Value {
    &doc["jobs"][0]
}

fn n(doc: &Value, dir: &str, key: &str) -> u64 {
    job(doc)[dir][key].as_u64().unwrap_or_else(|| panic!("{dir}.{key} in {doc}"))
}

fn lat(doc: &Value, dir: &str, kind: &str, key: &str) -> f64 {
    job(doc)[dir][kind][key].as_f64().unwrap_or_else(|| panic!("{dir}.{kind}.{key}"))
}

/// I/Os and bytes of reads, writes and trims.
fn counts(doc: &Value) -> [u64; 6] {
    [
        n(doc, "read", "total_ios"),
        n(doc, "read", "io_bytes"),
        n(doc, "write", "total_ios"),
        n(doc, "write", "io_bytes"),
        n(doc, "trim", "total_ios"),
        n(doc, "trim", "io_bytes"),
    ]
}

/// What every offloaded job reports, in both tools: each I/O at depth 1 (submitted and
/// completed alone by its thread), a total latency (`lat`) and a completion latency (`clat`) per
/// I/O, and a submission latency only for an asynchronous engine, which then adds up with
/// `clat` to `lat` (the thread's issue splits them); a synchronous engine's `lat` is its `clat`
/// plus the wait for its thread. `who` names the tool in messages.
fn offload_accounting(doc: &Value, asynchronous: bool, who: &str) {
    let j = job(doc);
    // Syncs are counted too, over the reads' and writes' total (as inline): past 100 % with them.
    let level = j["iodepth_level"].as_object().unwrap();
    assert!(level["1"].as_f64().unwrap() >= 100.0, "{who}: {}", j["iodepth_level"]);
    assert!(level.iter().all(|(k, v)| k == "1" || v.as_f64() == Some(0.0)), "{who}: {}", j["iodepth_level"]);
    // Submitted and completed one at a time (fio's null engine marks neither, inline too, where
    // zonekit's marks both: left out).
    if !who.contains("--ioengine=null") {
        assert!(j["iodepth_submit"]["4"].as_f64().unwrap() >= 100.0, "{who}: {}", j["iodepth_submit"]);
        assert!(j["iodepth_complete"]["4"].as_f64().unwrap() >= 100.0, "{who}: {}", j["iodepth_complete"]);
    }
    for dir in ["read", "write"] {
        let ios = n(doc, dir, "total_ios");
        if ios == 0 {
            continue;
        }
        let samples = |kind: &str| job(doc)[dir][kind]["N"].as_u64().unwrap_or(0);
        assert_eq!(samples("lat_ns"), ios, "{who} {dir}: lat samples");
        assert_eq!(samples("clat_ns"), ios, "{who} {dir}: clat samples");
        let (l, c) = (lat(doc, dir, "lat_ns", "mean"), lat(doc, dir, "clat_ns", "mean"));
        if asynchronous {
            assert_eq!(samples("slat_ns"), ios, "{who} {dir}: slat samples");
            let s = lat(doc, dir, "slat_ns", "mean");
            assert!((l - (s + c)).abs() <= 0.01 * l + 2.0, "{who} {dir}: lat {l} is not slat {s} + clat {c}");
        } else {
            assert_eq!(samples("slat_ns"), 0, "{who} {dir}: a synchronous engine has no slat");
            assert!(l > c, "{who} {dir}: lat {l} does not include the wait for the thread (clat {c})");
        }
    }
}

mod needs_tools {
    use super::*;

    /// Size-bounded jobs of the engines fio 3.33 offloads (at `iodepth=1`: deeper pools hang in
    /// 3.33): the same I/Os and bytes per direction, and the same accounting of depths and
    /// latencies.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn offloaded_jobs_count_as_fio_does() {
        common::require_fio();
        let jobs: [(&[&str], bool); 6] = [
            (&["--ioengine=psync", "--rw=randread", "--size=8m", "--bs=4k"], false),
            // Loops that end on their files being done are left out: fio 3.33's offload runs the
            // first only (each I/O leaks a reference to its file, which is then never reopened).
            (
                &["--ioengine=psync", "--rw=randrw", "--size=4m", "--bsrange=1k-16k", "--norandommap", "--loops=2"],
                false,
            ),
            (&["--ioengine=sync", "--rw=write", "--size=4m", "--bs=8k"], false),
            (&["--ioengine=null", "--rw=randread", "--size=64m", "--bs=4k"], false),
            (&["--ioengine=libaio", "--rw=randwrite", "--size=4m", "--bs=4k", "--direct=1"], true),
            (&["--ioengine=libaio", "--rw=rw", "--size=4m", "--bs=16k", "--rwmixread=30", "--direct=1"], true),
        ];
        for (args, asynchronous) in jobs {
            let mut all = vec!["--name=off", "--filename=data", "--io_submit_mode=offload"];
            all.extend_from_slice(args);
            let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            for d in [fdir.path(), zdir.path()] {
                std::fs::write(d.join("data"), vec![7u8; 8 << 20]).unwrap();
            }
            let (fdoc, fo) = run("fio", &all, fdir.path());
            let (zdoc, zo) = run(zonekit(), &all, zdir.path());
            assert!(fo.status.success(), "fio {all:?}: {}", text(&fo));
            assert!(zo.status.success(), "zonekit {all:?}: {}", text(&zo));
            assert_eq!(counts(&zdoc), counts(&fdoc), "{all:?}: zonekit vs fio");
            assert!(counts(&zdoc)[0] + counts(&zdoc)[2] > 0, "{all:?}: no I/O");
            offload_accounting(&fdoc, asynchronous, &format!("fio {all:?}"));
            offload_accounting(&zdoc, asynchronous, &format!("zonekit {all:?}"));
        }
    }

    /// `rate_iops=2000` for 3 s with offloaded submission (fio's `examples/fixed-rate-submission.fio`
    /// at the depth fio 3.33 runs): both tools within 2 % of the target, run at the same time.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn an_offloaded_rate_iops_job_meets_its_rate_as_fio_does() {
        common::require_fio();
        for engine in ["psync", "libaio"] {
            let e = format!("--ioengine={engine}");
            let args = [
                "--name=rated",
                "--filename=data",
                "--size=32m",
                "--rw=randread",
                "--bs=4k",
                &e,
                "--io_submit_mode=offload",
                "--rate_iops=2000",
                "--runtime=3",
                "--time_based",
            ];
            let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            for d in [fdir.path(), zdir.path()] {
                std::fs::write(d.join("data"), vec![1u8; 32 << 20]).unwrap();
            }
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            let fpath = fdir.path().to_path_buf();
            let fargs = args.clone();
            let fio = std::thread::spawn(move || {
                let a: Vec<&str> = fargs.iter().map(String::as_str).collect();
                run("fio", &a, &fpath)
            });
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let (zdoc, zo) = run(zonekit(), &a, zdir.path());
            let (fdoc, fo) = fio.join().unwrap();
            assert!(fo.status.success(), "fio: {}", text(&fo));
            assert!(zo.status.success(), "zonekit: {}", text(&zo));
            let iops = |d: &Value| job(d)["read"]["iops"].as_f64().unwrap() / 2000.0;
            let (f, z) = (iops(&fdoc), iops(&zdoc));
            eprintln!("{engine} offload rate_iops=2000 for 3 s: fio {f:.4} of the target, zonekit {z:.4}");
            assert!((f - 1.0).abs() < 0.02, "fio itself missed the rate ({f}): the machine is too busy");
            assert!((z - 1.0).abs() < 0.02, "zonekit at {z} of the rate (fio {f})");
            offload_accounting(&fdoc, engine == "libaio", "fio");
            offload_accounting(&zdoc, engine == "libaio", "zonekit");
        }
    }
}

/// What fio 3.33 cannot run: a pool deeper than 1 (fio hangs as its workers start), syncs every N
/// writes (fio's job thread never sees its worker's sync and syncs forever), zone mode (fio
/// fails an assertion). zonekit runs them, with the counts of the same job inline.
#[test]
fn offload_runs_what_fio_333_cannot() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data"), vec![0u8; 8 << 20]).unwrap();
    std::fs::write(dir.path().join("zoned"), vec![0u8; 16 << 20]).unwrap();
    let jobs: [&[&str]; 4] = [
        &["--ioengine=psync", "--rw=randrw", "--size=4m", "--bs=4k", "--iodepth=8"],
        &["--ioengine=libaio", "--rw=randread", "--size=4m", "--bs=4k", "--iodepth=16", "--direct=1"],
        &["--ioengine=psync", "--rw=write", "--size=1m", "--bs=4k", "--fsync=4", "--iodepth=2"],
        &[
            "--filename=zoned",
            "--ioengine=psync",
            "--rw=randwrite",
            "--size=16m",
            "--bs=64k",
            "--zonemode=zbd",
            "--zonesize=1m",
            "--max_open_zones=4",
            "--iodepth=4",
        ],
    ];
    for args in jobs {
        let mut inline = vec!["--name=j", "--filename=data"];
        inline.extend_from_slice(args);
        let mut offload = inline.clone();
        offload.push("--io_submit_mode=offload");
        let (idoc, io) = run(zonekit(), &inline, dir.path());
        let (odoc, oo) = run(zonekit(), &offload, dir.path());
        assert!(io.status.success() && oo.status.success(), "{args:?}: {}{}", text(&io), text(&oo));
        // zone mode writes as many blocks either way; its resets may differ by the order.
        assert_eq!(counts(&odoc), counts(&idoc), "{args:?}: offload vs inline");
        let syncs = |d: &Value| job(d)["sync"]["total_ios"].as_u64().unwrap();
        assert_eq!(syncs(&odoc), syncs(&idoc), "{args:?}: syncs");
        offload_accounting(&odoc, args.contains(&"--ioengine=libaio"), &format!("{args:?}"));
    }
    // The note about synchronous engines capping the depth is not printed: the pool is not capped.
    let o = raw(
        zonekit(),
        &["--name=j", "--filename=data", "--size=1m", "--iodepth=4", "--io_submit_mode=offload"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("queue depth will be capped"), "{}", text(&o));
}

/// The point of offloading: the job's pace does not wait on the device. Random 4 KiB reads of a
/// simulated drive paced in real time (each takes milliseconds) at `rate_iops=400`: a `psync` job
/// inline does one at a time and falls far behind; offloaded to 8 threads it keeps its rate, and
/// each I/O's `lat` includes its wait for a thread.
#[test]
fn offload_keeps_the_rate_a_slow_device_would_hold_back() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--name=r",
        "--filename=@smr-hm-15tb",
        "--rw=randread",
        "--bs=4k",
        "--size=4g",
        "--ioengine=psync",
        "--rate_iops=400",
        "--runtime=2",
        "--time_based",
        "--clock=real",
    ];
    let iops = |extra: &[&str]| {
        let (doc, o) = run(zonekit(), &[&args[..], extra].concat(), dir.path());
        assert!(o.status.success(), "{}", text(&o));
        job(&doc)["read"]["iops"].as_f64().unwrap()
    };
    let inline = iops(&[]);
    let offload = iops(&["--iodepth=8", "--io_submit_mode=offload"]);
    eprintln!("rate_iops=400 on @smr-hm-15tb: inline {inline:.1} IOPS, offloaded to 8 threads {offload:.1} IOPS");
    assert!(inline < 0.8 * 400.0, "inline psync kept up ({inline}): the device is not slow enough for this test");
    assert!((offload / 400.0 - 1.0).abs() < 0.05, "offloaded: {offload} IOPS for 400");
}

/// Bad combinations are one line and exit code 2: fio's own words for `io_uring` (which fio 3.33
/// refuses), zonekit's for the engines without transfers (fio 3.33 dies of SIGSEGV on them) and
/// for simulated time (a pool of threads runs in real time).
#[test]
fn offload_refusals_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &["--name=u", "--filename=f", "--size=1m", "--ioengine=io_uring", "--io_submit_mode=offload"],
            "zonekit: job u: ioengine=io_uring: can't be used with offloaded submit. Use a sync engine\n",
        ),
        (
            &["--name=c", "--ioengine=cpuio", "--cpuload=10", "--runtime=1", "--io_submit_mode=offload"],
            "zonekit: job c: io_submit_mode=offload: not with ioengine=cpuio (its I/Os are no transfers to hand over; fio 3.33 dies of SIGSEGV on such a job)\n",
        ),
        (
            &["--name=x", "--ioengine=exec", "--program=true", "--runtime=1", "--io_submit_mode=offload"],
            "zonekit: job x: io_submit_mode=offload: not with ioengine=exec (its I/Os are no transfers to hand over; fio 3.33 dies of SIGSEGV on such a job)\n",
        ),
        (
            &[
                "--name=s",
                "--filename=@smr-hm-15tb",
                "--zonemode=zbd",
                "--direct=1",
                "--size=64m",
                "--io_submit_mode=offload",
                "--clock=sim",
            ],
            "zonekit: --clock=sim: job s: io_submit_mode=offload issues its I/Os from threads of its own, in real time (use --clock=real)\n",
        ),
    ];
    for (args, want) in cases {
        let o = raw(zonekit(), args, dir.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert_eq!(String::from_utf8_lossy(&o.stderr), want, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // Without --clock, a run with an offloaded job on a timed device runs in real time.
    let (doc, o) = run(
        zonekit(),
        &[
            "--name=s",
            "--filename=@smr-hm-15tb",
            "--zonemode=zbd",
            "--direct=1",
            "--rw=write",
            "--bs=1m",
            "--size=16m",
            "--ioengine=libaio",
            "--iodepth=4",
            "--io_submit_mode=offload",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(doc["zonekit"]["clock"].as_str(), Some("real"));
    assert_eq!(n(&doc, "write", "io_bytes"), 16 << 20);
    assert_eq!(doc["disk_util"][0]["write_ios"].as_u64(), Some(16), "{}", doc["disk_util"]);
}
