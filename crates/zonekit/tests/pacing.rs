//! Pacing (`rate`, `rate_min`, `thinktime`, `max_latency`, `latency_target`, `flow`): a rated job
//! side by side with real fio 3.33 on the same job, and the same options in simulated time, where
//! the figures are exact and a run takes milliseconds.
//!
//! The side-by-side test needs `fio` and fails without it (a missing tool must not pass a check).

mod common;

use common::run;
use serde_json::Value;
use std::process::{Command, Output};

fn zonekit() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_zonekit"));
    c.arg("bench");
    c
}

fn write_bw(doc: &Value) -> f64 {
    doc["jobs"][0]["write"]["bw_bytes"].as_f64().expect("write bw_bytes")
}

/// `--rate=20m` for 3 s: both tools within 2 % of the target (run at the same time: 3 s in all).
#[test]
fn a_rated_job_meets_its_rate_as_fio_does() {
    let fio_ok = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(fio_ok, "fio 3.33 is needed for this comparison (apt install fio)");
    let args = [
        "--name=rated",
        "--filename=data",
        "--size=96m",
        "--rw=write",
        "--bs=4k",
        "--rate=20m",
        "--runtime=3",
        "--time_based",
    ];
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Lay the files out first, so that neither run spends its time on it.
    for d in [fdir.path(), zdir.path()] {
        std::fs::write(d.join("data"), vec![0u8; 96 << 20]).unwrap();
    }
    let fpath = fdir.path().to_path_buf();
    let fio = std::thread::spawn(move || run("fio", &args, &fpath));
    let (zdoc, zo) = run(common::zonekit(), &args, zdir.path());
    let (fdoc, fo) = fio.join().unwrap();
    assert!(fo.status.success(), "fio: {}", String::from_utf8_lossy(&fo.stderr));
    assert!(zo.status.success(), "zonekit: {}", String::from_utf8_lossy(&zo.stderr));
    let target = 20.0 * 1024.0 * 1024.0;
    let (f, z) = (write_bw(&fdoc) / target, write_bw(&zdoc) / target);
    eprintln!("rate=20m for 3 s: fio {f:.4} of the target, zonekit {z:.4}");
    assert!((f - 1.0).abs() < 0.02, "fio itself missed the rate ({f}): the machine is too busy");
    assert!((z - 1.0).abs() < 0.02, "zonekit at {z} of the rate (fio {f})");
}

fn sim(args: &[&str]) -> (Value, Output) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["--filename=@smr-hm-15tb", "--zonemode=zbd", "--direct=1"];
    all.extend_from_slice(args);
    run(common::zonekit(), &all, dir.path())
}

/// In simulated time the rate is met over 30 simulated seconds, linear or poisson, and a
/// think time of 10 ms after every 4 I/Os bounds the IOPS.
#[test]
fn pacing_in_simulated_time() {
    for process in ["linear", "poisson"] {
        let (doc, o) = sim(&[
            "--name=j",
            "--rw=write",
            "--bs=64k",
            "--size=4g",
            "--rate=10m",
            &format!("--rate_process={process}"),
            "--runtime=30",
            "--time_based",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r = write_bw(&doc) / (10.0 * 1024.0 * 1024.0);
        let tol = if process == "linear" { 0.002 } else { 0.05 };
        assert!((r - 1.0).abs() < tol, "{process}: {r}");
    }
    let (doc, o) = sim(&[
        "--name=j",
        "--rw=write",
        "--bs=4k",
        "--size=4g",
        "--thinktime=10ms",
        "--thinktime_blocks=4",
        "--runtime=10",
        "--time_based",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let iops = doc["jobs"][0]["write"]["iops"].as_f64().unwrap();
    // 4 I/Os per 10 ms of thinking plus the drive's time for them: a little under 400.
    assert!((300.0..=400.0).contains(&iops), "{iops}");
}

/// fio's lines and errors: `rate_min` not met (EIO, check_min_rate), `max_latency` exceeded
/// (ETIMEDOUT), a poisson rate below one block per second (refused: fio 3.33 dies of SIGFPE).
#[test]
fn pacing_failures_as_fio_reports_them() {
    let (doc, o) =
        sim(&["--name=slow", "--rw=write", "--bs=64k", "--size=4g", "--rate_min=1g", "--runtime=10", "--time_based"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("slow: rate_min=1073741824B/s not met, got "), "{err}");
    assert!(err.contains("err=5/file:backend.c:1131, func=check_min_rate, error=Input/output error"), "{err}");
    assert_eq!(doc["jobs"][0]["error"].as_u64(), Some(5));

    let (doc, o) = sim(&["--name=lat", "--rw=randread", "--bs=4k", "--size=4g", "--max_latency=1ms"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("exceeds specified max (1000000 nsec): @smr-hm-15tb read "), "{err}");
    assert!(err.contains("err=110/file:io_u.c:1432, func=max latency exceeded, error=Connection timed out"), "{err}");
    assert_eq!(doc["jobs"][0]["error"].as_u64(), Some(110));

    let o = zonekit()
        .args(["--name=p", "--filename=@nullb-small", "--size=1m", "--rw=write", "--bs=4k"])
        .args(["--rate=1k", "--rate_process=poisson"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("zonekit: job p: rate=1k: with rate_process=poisson"), "{err}");
}

/// `latency_target` finds a depth and reports it as fio does; `flow` shares I/Os by weight.
#[test]
fn latency_target_and_flow() {
    let (doc, o) = sim(&[
        "--name=t",
        "--rw=randread",
        "--bs=4k",
        "--size=4g",
        "--ioengine=libaio",
        "--iodepth=16",
        "--latency_target=40ms",
        "--latency_window=1s",
        "--runtime=60",
        "--time_based",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = &doc["jobs"][0];
    assert_eq!(j["latency_target"].as_u64(), Some(40_000_000));
    assert_eq!(j["latency_window"].as_u64(), Some(1_000_000));
    let depth = j["latency_depth"].as_u64().unwrap();
    assert!((2..16).contains(&depth), "{depth}");

    let (doc, o) = sim(&[
        "--rw=write",
        "--bs=64k",
        "--size=1g",
        "--runtime=5",
        "--time_based",
        "--name=a",
        "--flow=1",
        "--name=b",
        "--flow=3",
        "--offset=2g",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ios = |i: usize| doc["jobs"][i]["write"]["total_ios"].as_f64().unwrap();
    let share = ios(1) / (ios(0) + ios(1));
    assert!((share - 0.75).abs() < 0.01, "{share}");
}

/// `latency_target` with `verify`: the verify phase keeps the depth the write phase found (fio's
/// do_verify never runs lat_target_check), so it neither searches again (whose final window
/// would reset the write phase's statistics and end the verify phase early) nor reports a depth
/// of its own.
#[test]
fn latency_target_depth_survives_the_verify_phase() {
    let job = |do_verify: &str| {
        let (doc, o) = sim(&[
            "--name=t",
            "--rw=write",
            "--bs=64k",
            "--size=256m",
            "--ioengine=libaio",
            "--iodepth=16",
            "--latency_target=20ms",
            "--latency_window=100ms",
            "--latency_percentile=99",
            "--verify=null",
            do_verify,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        doc["jobs"][0].clone()
    };
    let (plain, verified) = (job("--do_verify=0"), job("--do_verify=1"));
    let n = |j: &Value, d: &str| j[d]["io_bytes"].as_u64().unwrap();
    assert!(n(&plain, "write") > 0);
    assert_eq!(n(&verified, "write"), n(&plain, "write"), "the write phase's numbers survive");
    assert_eq!(verified["latency_depth"], plain["latency_depth"], "the write phase's depth is reported");
    // Everything written (the search's windows included) is read back.
    assert!(n(&verified, "read") >= n(&verified, "write"), "{verified}");
}
