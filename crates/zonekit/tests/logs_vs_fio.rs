//! Statistics logs side by side with real fio 3.33 (Debian's package) on the same jobs: the same
//! file names, the same columns, the same number of rows where the job fixes it; compressed logs
//! written by each tool read back by both tools' `--inflate-log`; and fio's own consumers
//! (`fio2gnuplot`, `fio_generate_plots`, `fio_jsonplus_clat2csv`) reading zonekit's logs and
//! json+ output. Also, without fio: logs of a run in simulated time carry simulated time stamps.
//!
//! The comparisons need `fio`, its consumers and gnuplot: they are `#[ignore]`d for a plain
//! `cargo test`; `scripts/test.sh` runs them, and they fail when a tool is missing.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

const ZONEKIT: &str = env!("CARGO_BIN_EXE_zonekit");

/// Runs `fio ARGS` or `zonekit bench ARGS` in `dir`; panics unless it succeeds.
fn run_tool(fio: bool, args: &[&str], dir: &Path) -> Output {
    let mut cmd = if fio { Command::new("fio") } else { Command::new(ZONEKIT) };
    if !fio {
        cmd.arg("bench");
    }
    let o = cmd.args(args).current_dir(dir).output().unwrap_or_else(|e| panic!("cannot run fio or zonekit: {e}"));
    assert!(
        o.status.success(),
        "{} {args:?}: {}",
        if fio { "fio" } else { "zonekit" },
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Log files by name: each row's fields.
type Logs = BTreeMap<String, Vec<Vec<String>>>;

/// The log files of a directory: name → rows, each row's fields.
fn logs(dir: &Path) -> Logs {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".log") {
            let text = std::fs::read_to_string(dir.join(&name)).unwrap();
            let rows = text.lines().map(|l| l.split(", ").map(str::to_string).collect()).collect();
            out.insert(name, rows);
        }
    }
    out
}

/// Both tools run `args` in fresh directories; returns (fio's logs, zonekit's logs) after
/// checking the same files were written.
fn side_by_side(args: &[&str]) -> (Logs, Logs) {
    let (fd, zd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run_tool(true, args, fd.path());
    run_tool(false, args, zd.path());
    let (f, z) = (logs(fd.path()), logs(zd.path()));
    assert_eq!(f.keys().collect::<Vec<_>>(), z.keys().collect::<Vec<_>>(), "log file names");
    (f, z)
}

/// Panics unless `tool` can be started: a check with a tool must never pass without it.
fn require(tool: &str, arg: &str) {
    let ok = Command::new(tool).arg(arg).output().is_ok();
    assert!(ok, "{tool} is not installed (Debian: apt-get install fio gnuplot-nox): this test runs it");
}

fn ms_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

mod needs_tools {
    use super::*;

    /// `--bandwidth-log`: fio's aggregate logs `agg-{read,write,trim}_bw.log` (no per-job log),
    /// a row `time, KiB/s, direction, 0, 0` each time the status line is computed after
    /// `bwavgtime` (so none with `--eta=never`), for every direction.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn aggregate_bandwidth_logs_as_fio() {
        require("fio", "--version");
        let args = [
            "--name=b",
            "--filename=f",
            "--size=16m",
            "--rw=write",
            "--bs=64k",
            "--time_based",
            "--runtime=2",
            "--rate=10m",
        ];
        let names = ["agg-read_bw.log", "agg-trim_bw.log", "agg-write_bw.log"];
        let (f, z) = side_by_side(&[&args[..], &["--bandwidth-log", "--eta=always"]].concat());
        assert_eq!(f.keys().map(String::as_str).collect::<Vec<_>>(), names, "fio");
        for (tool, logs) in [("fio", &f), ("zonekit", &z)] {
            let write = &logs["agg-write_bw.log"];
            assert!((2..=5).contains(&write.len()), "{tool}: {write:?}");
            for row in write {
                assert_eq!(row[2..], ["1", "0", "0"], "{tool}: {row:?}");
            }
            // After the first window, about the rate (10 MiB/s).
            let kib: u64 = write[write.len() - 1][1].parse().unwrap();
            assert!((8000..12500).contains(&kib), "{tool}: {write:?}");
            assert!(logs["agg-read_bw.log"].iter().all(|r| r[1] == "0" && r[2] == "0"), "{tool}");
        }
        let (f, z) = side_by_side(&[&args[..], &["--bandwidth-log", "--eta=never"]].concat());
        for logs in [&f, &z] {
            assert_eq!(logs.keys().map(String::as_str).collect::<Vec<_>>(), names);
            assert!(logs.values().all(Vec::is_empty), "{logs:?}");
        }
    }

    /// A job that fixes its I/O (256 sequential 4 KiB writes per clone, two clones): every log
    /// has fio's name, 256 rows, the same columns; with `log_offset` and `log_prio` the offset
    /// column matches row by row and the priority column is fio's hex; `per_job_logs=0`
    /// puts both clones in one file, as fio does.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn per_io_logs_match_fio() {
        require("fio", "--version");
        let job = [
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--bs=4k",
            "--rw=write",
            "--numjobs=2",
            "--write_lat_log=l",
            "--write_bw_log=b",
            "--write_iops_log=i",
            "--log_offset=1",
            "--log_prio=1",
            "--output=/dev/null",
        ];
        let (f, z) = side_by_side(&job);
        assert_eq!(f.len(), 10, "{:?}", f.keys());
        for (name, frows) in &f {
            let zrows = &z[name];
            assert_eq!(frows.len(), zrows.len(), "{name}: rows");
            if name.contains("slat") {
                continue; // synchronous engine: no slat samples in either
            }
            assert_eq!(frows.len(), 256, "{name}");
            for (a, b) in frows.iter().zip(zrows) {
                assert_eq!(a.len(), 6, "{name}: {a:?}");
                assert_eq!(a.len(), b.len(), "{name}: {a:?} {b:?}");
                // direction, block size, offset, priority
                assert_eq!(a[2..], b[2..], "{name}");
            }
        }
        let mut shared = job.to_vec();
        shared.push("--per_job_logs=0");
        shared.retain(|a| !a.starts_with("--log_"));
        let (f, z) = side_by_side(&shared);
        assert!(f.contains_key("l_clat.log"), "{:?}", f.keys());
        for (name, frows) in &f {
            assert_eq!(frows.len(), z[name].len(), "{name}");
            assert_eq!(z[name].first().map(Vec::len), frows.first().map(Vec::len), "{name}: columns");
        }
        assert_eq!(z["i_iops.log"].len(), 512);
    }

    /// `log_unix_epoch` and `log_alternate_epoch` (clock 0 is real time): time stamps are the
    /// wall clock's ms, in both tools.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn unix_epoch_time_stamps() {
        require("fio", "--version");
        for epoch in ["--log_unix_epoch=1", "--log_alternate_epoch=1"] {
            let before = ms_now();
            let (f, z) = side_by_side(&[
                "--name=e",
                "--ioengine=null",
                "--size=256k",
                "--bs=4k",
                "--rw=read",
                "--write_lat_log=e",
                epoch,
                "--output=/dev/null",
            ]);
            let after = ms_now();
            for (tool, logs) in [("fio", &f), ("zonekit", &z)] {
                let rows = &logs["e_clat.1.log"];
                assert_eq!(rows.len(), 64, "{tool}");
                for r in rows {
                    let t: u64 = r[0].parse().unwrap();
                    assert!((before..=after).contains(&t), "{tool} {epoch}: {t} not in {before}..{after}");
                }
            }
        }
    }

    /// `write_hist_log`: the same columns (time, direction, block size, then 1856 bins summed
    /// in groups of 2^coarseness), and about as many rows over the same run time.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn histogram_logs_match_fio() {
        require("fio", "--version");
        for coarse in ["0", "3"] {
            let c = format!("--log_hist_coarseness={coarse}");
            let (f, z) = side_by_side(&[
                "--name=h",
                "--ioengine=null",
                "--size=1g",
                "--bs=4k",
                "--rw=randrw",
                "--time_based",
                "--runtime=1",
                "--write_hist_log=h",
                "--log_hist_msec=200",
                &c,
                "--output=/dev/null",
            ]);
            let (fr, zr) = (&f["h_clat_hist.1.log"], &z["h_clat_hist.1.log"]);
            let cols = 3 + 1856 / (1 << coarse.parse::<u32>().unwrap());
            assert!(!fr.is_empty() && !zr.is_empty());
            assert!(fr.iter().chain(zr).all(|r| r.len() == cols), "{cols} columns");
            assert!(fr.len().abs_diff(zr.len()) <= 2, "rows: fio {} zonekit {}", fr.len(), zr.len());
            assert!(zr.iter().all(|r| r[1] == "0" || r[1] == "1"));
        }
    }

    /// `log_store_compressed` (with and without `log_compression` chunks): both tools name the
    /// files `.log.fz`, and each tool's `--inflate-log` prints the other's files as it prints
    /// its own: 256 rows of the job's writes.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn compressed_logs_read_by_both_tools() {
        require("fio", "--version");
        for chunk in [None, Some("--log_compression=2048")] {
            let (fd, zd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let mut job = vec![
                "--name=c",
                "--ioengine=null",
                "--size=1m",
                "--bs=4k",
                "--rw=write",
                "--write_lat_log=c",
                "--log_store_compressed=1",
                "--log_offset=1",
                "--output=/dev/null",
            ];
            job.extend(chunk);
            run_tool(true, &job, fd.path());
            run_tool(false, &job, zd.path());
            let names = |d: &Path| {
                let mut v: Vec<String> = std::fs::read_dir(d)
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect();
                v.sort();
                v
            };
            assert_eq!(names(fd.path()), names(zd.path()));
            assert!(names(zd.path()).contains(&"c_clat.1.log.fz".to_string()));
            for dir in [fd.path(), zd.path()] {
                let file = dir.join("c_clat.1.log.fz");
                let arg = format!("--inflate-log={}", file.display());
                let by_fio = run_tool(true, &[&arg], dir).stdout;
                let by_zonekit = run_tool(false, &[&arg], dir).stdout;
                assert_eq!(String::from_utf8_lossy(&by_fio), String::from_utf8_lossy(&by_zonekit), "{chunk:?}");
                let text = String::from_utf8(by_zonekit).unwrap();
                assert_eq!(text.lines().count(), 256, "{chunk:?}");
                let offsets: Vec<u64> = text.lines().map(|l| l.split(", ").nth(4).unwrap().parse().unwrap()).collect();
                assert_eq!(offsets, (0..256).map(|i| i * 4096).collect::<Vec<_>>());
            }
        }
    }

    /// `stats=0`: the job runs but both tools leave it out of the report (its group keeps the
    /// other job's numbers only).
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn stats_zero_leaves_the_job_out() {
        require("fio", "--version");
        let job = [
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--rw=randrw",
            "--name=b",
            "--stats=0",
            "--ioengine=null",
            "--size=1m",
            "--rw=write",
            "--output-format=json",
        ];
        for fio in [true, false] {
            let d = tempfile::tempdir().unwrap();
            let out = String::from_utf8(run_tool(fio, &job, d.path()).stdout).unwrap();
            assert_eq!(out.matches("\"jobname\" : ").count(), 1, "fio={fio}: {out}");
            assert!(out.contains("\"jobname\" : \"a\""), "fio={fio}");
        }
    }

    /// fio's consumers on zonekit's output: `fio_jsonplus_clat2csv` turns the json+ report into
    /// its CSV, `fio2gnuplot` and `fio_generate_plots` draw the bandwidth, IOPS and latency logs
    /// (gnuplot renders them: PNG and SVG files appear).
    #[test]
    #[ignore = "needs fio and gnuplot: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn fio_consumers_read_zonekit_logs() {
        require("fio", "--version");
        require("gnuplot", "--version");
        require("fio2gnuplot", "-h");
        require("fio_jsonplus_clat2csv", "-h");
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        run_tool(
            false,
            &[
                "--name=p",
                "--ioengine=null",
                "--size=1g",
                "--bs=4k",
                "--rw=randrw",
                "--time_based",
                "--runtime=1",
                "--write_bw_log=p",
                "--write_iops_log=p",
                "--write_lat_log=p",
                "--log_avg_msec=100",
                "--output-format=json+",
                "--output=out.json",
            ],
            dir,
        );
        let ok = |o: std::io::Result<Output>, what: &str| {
            let o = o.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                o.status.success(),
                "{what}: {}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
        };
        ok(Command::new("fio_jsonplus_clat2csv").args(["out.json", "clat.csv"]).current_dir(dir).output(), "clat2csv");
        let csv =
            std::fs::read_to_string(dir.join("clat_job0.csv")).expect("fio_jsonplus_clat2csv wrote clat_job0.csv");
        assert!(csv.starts_with("nsec, read_slat_ns_count"), "{}", &csv[..80.min(csv.len())]);
        assert!(csv.lines().count() > 2);

        ok(Command::new("fio2gnuplot").args(["-b", "-g", "-t", "zk"]).current_dir(dir).output(), "fio2gnuplot");
        for png in ["p_bw.1-2Draw.png", "result.average.png"] {
            assert!(std::fs::metadata(dir.join(png)).is_ok_and(|m| m.len() > 0), "fio2gnuplot made no {png}");
        }

        ok(Command::new("fio_generate_plots").arg("zk").current_dir(dir).output(), "fio_generate_plots");
        for kind in ["bw", "iops", "lat", "clat"] {
            let svg = std::fs::read_to_string(dir.join(format!("zk-{kind}.svg"))).unwrap_or_default();
            assert!(svg.contains("<svg"), "fio_generate_plots made no zk-{kind}.svg");
        }
    }
}

/// A run in simulated time (a timed zonekit device): every log's time stamps are simulated ms
/// since the job's epoch, the last one within the job's simulated run time, and with
/// `log_unix_epoch` the same time line starts at the run's start on the wall clock.
#[test]
fn simulated_time_logs() {
    let d = tempfile::tempdir().unwrap();
    let job = [
        "--name=s",
        "--filename=@smr-hm-15tb",
        "--rw=write",
        "--bs=1m",
        "--size=256m",
        "--write_lat_log=s",
        "--write_bw_log=s",
        "--log_avg_msec=100",
        "--output-format=json",
    ];
    let o = run_tool(false, &job, d.path());
    let report = String::from_utf8_lossy(&o.stdout);
    let runtime: u64 = report
        .split("\"job_runtime\" : ")
        .nth(1)
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|s| s.parse().ok())
        .expect("job_runtime in the JSON");
    assert!(runtime > 500, "a 256 MiB write on the SMR model takes simulated seconds: {runtime} ms");
    let rel = logs(d.path());
    let clat = &rel["s_clat.1.log"];
    let last: u64 = clat.last().unwrap()[0].parse().unwrap();
    assert!(last <= runtime && last + 200 >= runtime, "last clat entry {last} ms, run time {runtime} ms");

    let d2 = tempfile::tempdir().unwrap();
    let mut with_epoch = job.to_vec();
    with_epoch.push("--log_unix_epoch=1");
    let before = ms_now();
    run_tool(false, &with_epoch, d2.path());
    let abs = logs(d2.path());
    let first: u64 = abs["s_bw.1.log"][0][0].parse().unwrap();
    let rel_first: u64 = rel["s_bw.1.log"][0][0].parse().unwrap();
    // The simulated run is deterministic: the same entries, shifted by the run's start.
    assert_eq!(abs["s_bw.1.log"].len(), rel["s_bw.1.log"].len());
    let base = first - rel_first;
    assert!(base >= before && base <= ms_now(), "epoch {base} not within the run");
    for (a, r) in abs["s_clat.1.log"].iter().zip(clat) {
        assert_eq!(a[0].parse::<u64>().unwrap(), base + r[0].parse::<u64>().unwrap());
    }
}

/// `--inflate-log` on a file that is missing or not compressed: one line, exit code 1.
#[test]
fn inflate_log_bad_input() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("plain.log"), "0, 1, 1, 4096, 0\n").unwrap();
    for (file, what) in [("missing.log.fz", "cannot read the log"), ("plain.log", "failed inflating log")] {
        let o = Command::new(ZONEKIT)
            .args(["bench", &format!("--inflate-log={file}")])
            .current_dir(d.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("zonekit: ") && err.contains(what), "{err}");
    }
}
