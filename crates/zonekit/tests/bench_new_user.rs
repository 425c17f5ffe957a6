//! `zonekit bench` tried as a new user would (issue 9's list): each test is a defect that was
//! found that way, checked as the user saw it, from the command line.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn bench_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).arg("bench").args(args).current_dir(dir).output().expect("run zonekit")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn numjobs_beyond_fios_limit_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let o = bench_in(dir.path(), &["--name=x", "--ioengine=null", "--size=64k", "--numjobs=100000"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("zonekit: error: maximum number of jobs reached."), "{err}");
    assert!(!stdout(&o).contains("Starting"), "{}", stdout(&o));
    assert!(t.elapsed() < Duration::from_secs(10), "took {:?}", t.elapsed());
    // fio's limit counts every clone of every job: 4088 in all.
    let o = bench_in(
        dir.path(),
        &["--name=a", "--ioengine=null", "--size=64k", "--numjobs=4000", "--name=b", "--numjobs=89"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("maximum number of jobs reached"), "{}", stderr(&o));
    // Parsing alone does not make the jobs, as in fio.
    let o = bench_in(dir.path(), &["--parse-only", "--name=x", "--ioengine=null", "--size=64k", "--numjobs=100000"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(listing(dir.path()).is_empty());
}

#[test]
fn null_engine_touches_no_file() {
    let dir = tempfile::tempdir().unwrap();
    // 100 GiB of job, 1 MiB of it done: nothing may be laid out (it once filled the disk).
    let o = bench_in(dir.path(), &["--name=x", "--ioengine=null", "--size=100g", "--io_size=1m", "--rw=write"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("(1024KiB/"), "{out}");
    assert!(!out.contains("Laying out"), "{out}");
    assert!(!out.contains("Disk stats"), "{out}");
    // Neither files nor the directories on the way to them.
    let o = bench_in(dir.path(), &["--name=d", "--ioengine=null", "--directory=a/b", "--nrfiles=3", "--size=3m"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("(3072KiB/"), "{}", stdout(&o));
    assert_eq!(listing(dir.path()), Vec::<String>::new());
    // Zone mode on a file the null engine never creates: its zones span the job's size, as fio's.
    let o = bench_in(
        dir.path(),
        &[
            "--name=z",
            "--ioengine=null",
            "--filename=zf",
            "--size=64m",
            "--zonemode=zbd",
            "--zonesize=4m",
            "--rw=write",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("(64.0MiB/"), "{}", stdout(&o));
    assert_eq!(listing(dir.path()), Vec::<String>::new());
    // A file that exists is not opened, so one that cannot be is no obstacle.
    let o = bench_in(dir.path(), &["--name=p", "--ioengine=null", "--filename=/proc/nope/x", "--size=1m"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn layout_line_says_total_for_several_files() {
    let dir = tempfile::tempdir().unwrap();
    let o = bench_in(dir.path(), &["--name=w", "--directory=.", "--nrfiles=3", "--size=12m", "--rw=read"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\nw: Laying out IO files (3 files / total 12MiB)\n"), "{}", stdout(&o));
    // One file: no `total`; below one MiB fio prints 0MiB.
    let o = bench_in(dir.path(), &["--name=s", "--filename=small", "--size=64k", "--rw=read"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\ns: Laying out IO file (1 file / 0MiB)\n"), "{}", stdout(&o));
}

/// A job's runtime from zonekit's JSON, in ms.
fn runtime_ms(o: &Output, dir: &str) -> u64 {
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    doc["jobs"][0][dir]["runtime"].as_u64().unwrap()
}

#[test]
fn short_jobs_pay_no_clock_calibration() {
    // A 64 KiB null read takes microseconds; fio reports 1 msec. The clock's calibration (20 ms)
    // once fell inside the job's time. The best of three runs, against a busy machine.
    let dir = tempfile::tempdir().unwrap();
    let best = (0..3)
        .map(|_| {
            let o = bench_in(
                dir.path(),
                &["--name=x", "--ioengine=null", "--size=64k", "--rw=read", "--output-format=json"],
            );
            assert!(o.status.success(), "{}", stderr(&o));
            runtime_ms(&o, "read")
        })
        .min()
        .unwrap();
    assert!(best <= 5, "a 64 KiB null read took {best} ms");
}

#[test]
fn unwritable_logs_and_output_stop_the_run_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let o = bench_in(dir.path(), &["--name=x", "--ioengine=null", "--size=64k", "--write_bw_log=/proc/nope/log"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(
        err,
        "zonekit: job x: write_bw_log: /proc/nope/log_bw.1.log: cannot write the log: No such file or directory (ENOENT)\n"
    );
    assert!(!stdout(&o).contains("Starting"), "{}", stdout(&o));
    // Every clone's logs are checked (the second clone's name here), and a check leaves no file.
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    std::fs::create_dir(dir.path().join("logs/lat_clat.2.log")).unwrap();
    let o = bench_in(
        dir.path(),
        &["--name=x", "--ioengine=null", "--size=64k", "--numjobs=2", "--write_lat_log=logs/lat", "--disable_slat=1"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("write_lat_log: logs/lat_clat.2.log: cannot write the log:"), "{}", stderr(&o));
    assert_eq!(listing(&dir.path().join("logs")), ["lat_clat.2.log"]);
    let o = bench_in(dir.path(), &["--name=x", "--ioengine=null", "--size=64k", "--zone-report-out=/proc/nope/z"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("zonekit: /proc/nope/z: cannot write the zone report:"), "{}", stderr(&o));
    // --output is opened before the run, as fio opens it.
    let o = bench_in(dir.path(), &["--name=x", "--ioengine=null", "--size=64k", "--output=/proc/nope/out"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("zonekit: /proc/nope/out: cannot create the output file:"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

#[test]
fn terse_versions_print_their_own_fields() {
    // fio 3.33 on the same job (a read job, no disk statistics): 161 fields in version 2
    // (no fio version, trims), 121 in 3, 162 in 4 (trims), 180 in 5 (bw samples and IOPS).
    let dir = tempfile::tempdir().unwrap();
    for (v, fields) in [(2, 161), (3, 121), (4, 162), (5, 180)] {
        let o = bench_in(
            dir.path(),
            &[
                "--name=t",
                "--filename=data",
                "--size=1m",
                "--rw=randread",
                "--disk_util=0",
                "--minimal",
                &format!("--terse-version={v}"),
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let line = stdout(&o);
        let f: Vec<&str> = line.trim_end().split(';').collect();
        assert_eq!((f[0], f.len()), (v.to_string().as_str(), fields), "version {v}: {line}");
        assert_eq!(f[1] == "t", v == 2, "only version 2 has no fio version field: {line}");
    }
}
