//! Per-I/O priorities (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`, `cmdprio_bssplit` of
//! `io_uring` and `libaio`) and the job's own (`prio`, `prioclass`): fio 3.33 and `zonekit
//! bench` on the same jobs give each priority about the same share of the I/Os, and the JSON
//! report's per-priority part (`prios`) has fio's keys in fio's order. Bad values stop the run
//! in one line with exit code 2. Also io_uring's `uncached` (an `rw_flags` bit of the same SQE),
//! which ends as fio's does.
//!
//! The comparisons need `fio`: they are `#[ignore]`d for a plain `cargo test`; `scripts/test.sh`
//! runs them and they fail without fio.

mod common;

use common::{ok, run, zonekit};

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The keys of a JSON value, depth first, with arrays' elements numbered: its shape.
fn shape(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{path}.{k}");
                out.push(p.clone());
                shape(x, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                shape(x, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Per priority of a direction: (class, level, samples).
fn prios(job: &Value, dir: &str) -> Vec<(u64, u64, u64)> {
    let key = if job["job options"]["lat_percentiles"].as_str() == Some("1") { "lat_ns" } else { "clat_ns" };
    job[dir]["prios"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| (p["prioclass"].as_u64().unwrap(), p["prio"].as_u64().unwrap(), p[key]["N"].as_u64().unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

fn setup(dir: &Path) {
    std::fs::write(dir.join("f"), vec![0u8; 4 << 20]).unwrap();
}

/// Runs `args` through fio and zonekit in fresh directories holding the 4 MiB file `f`.
fn both(args: &[&str]) -> (Value, Value) {
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    setup(fdir.path());
    setup(zdir.path());
    let (f, fo) = run("fio", args, fdir.path());
    ok(&fo);
    let (z, zo) = run(zonekit(), args, zdir.path());
    ok(&zo);
    (f, z)
}

fn share(p: &[(u64, u64, u64)], class: u64, level: u64) -> f64 {
    let all: u64 = p.iter().map(|x| x.2).sum();
    let n = p.iter().find(|x| x.0 == class && x.1 == level).map_or(0, |x| x.2);
    100.0 * n as f64 / all as f64
}

mod needs_tools {
    use super::*;

    /// `cmdprio_percentage=30`: about 30 % of the reads and writes at real-time priority 0 (the
    /// class fio picks when `cmdprio_class` is not set), the rest at the job's priority 0/0, in
    /// both tools; the directions' JSON has fio's keys in fio's order, `prios` included.
    #[test]
    #[ignore]
    fn percentage_splits_ios_and_reports_them_as_fio() {
        common::require_fio();
        for engine in ["io_uring", "libaio"] {
            let args = [
                "--name=cp",
                "--filename=f",
                "--size=2M",
                "--bs=4k",
                "--rw=randrw",
                &format!("--ioengine={engine}"),
                "--iodepth=4",
                "--cmdprio_percentage=30",
            ];
            let (f, z) = both(&args);
            let (fj, zj) = (&f["jobs"][0], &z["jobs"][0]);
            for dir in ["read", "write"] {
                let (fp, zp) = (prios(fj, dir), prios(zj, dir));
                assert_eq!(fp.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(), [(0, 0), (1, 0)], "fio {engine} {dir}");
                assert_eq!(
                    zp.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
                    [(0, 0), (1, 0)],
                    "zonekit {engine} {dir}"
                );
                let total = zj[dir]["total_ios"].as_u64().unwrap();
                assert_eq!(zp.iter().map(|p| p.2).sum::<u64>(), total, "every I/O in one priority");
                for (who, p) in [("fio", &fp), ("zonekit", &zp)] {
                    let s = share(p, 1, 0);
                    assert!((22.0..38.0).contains(&s), "{who} {engine} {dir}: {s:.1}% at 1/0");
                }
                let (mut fs, mut zs) = (Vec::new(), Vec::new());
                shape(&fj[dir], dir, &mut fs);
                shape(&zj[dir], dir, &mut zs);
                assert_eq!(zs, fs, "{engine} {dir}: the keys of zonekit's JSON against fio's");
            }
        }
    }

    /// `cmdprio_bssplit` with explicit priorities, the job's own (`prioclass=2`, `prio=4`) and
    /// `lat_percentiles=1`: the same priorities, in the same order, keyed `lat_ns`, with
    /// about the same shares.
    #[test]
    #[ignore]
    fn bssplit_and_job_priority_as_fio() {
        common::require_fio();
        let args = [
            "--name=cb",
            "--filename=f",
            "--size=2M",
            "--rw=randread",
            "--bssplit=4k/50:8k/50",
            "--ioengine=io_uring",
            "--iodepth=4",
            "--prioclass=2",
            "--prio=4",
            "--lat_percentiles=1",
            "--cmdprio_bssplit=4k/60/1/3:8k/40/3/0",
        ];
        let (f, z) = both(&args);
        let (fp, zp) = (prios(&f["jobs"][0], "read"), prios(&z["jobs"][0], "read"));
        let order = |p: &[(u64, u64, u64)]| p.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>();
        assert_eq!(order(&fp), [(2, 4), (1, 3), (3, 0)]);
        assert_eq!(order(&zp), order(&fp));
        // Each priority's share as fio's (which draws block sizes and priorities from the same
        // seeds), and every priority has a fair part of the I/Os.
        for (class, level) in [(1, 3), (3, 0), (2, 4)] {
            let (fs, zs) = (share(&fp, class, level), share(&zp, class, level));
            assert!((fs - zs).abs() < 8.0, "{class}/{level}: fio {fs:.1}%, zonekit {zs:.1}%");
            assert!(zs > 10.0, "{class}/{level}: zonekit {zs:.1}%");
        }
        let (mut fs, mut zs) = (Vec::new(), Vec::new());
        shape(&f["jobs"][0]["read"], "read", &mut fs);
        shape(&z["jobs"][0]["read"], "read", &mut zs);
        assert_eq!(zs, fs);
    }

    /// Two jobs of one group at different priorities (`prio`, no `cmdprio`): as fio, the group's
    /// report splits its latencies per priority.
    #[test]
    #[ignore]
    fn a_group_of_jobs_at_different_priorities_reports_each() {
        common::require_fio();
        let common_args =
            "--filename=f --size=2M --bs=4k --rw=randread --ioengine=psync --group_reporting --prioclass=2";
        let args: Vec<&str> =
            format!("--name=a --prio=1 {common_args} --name=b --prio=6 {common_args}").leak().split(' ').collect();
        let (f, z) = both(&args);
        let (fp, zp) = (prios(&f["jobs"][0], "read"), prios(&z["jobs"][0], "read"));
        assert_eq!(fp, [(2, 1, 512), (2, 6, 512)]);
        assert_eq!(zp, fp);
    }

    /// `io_uring` with `uncached=1` on a buffered file: the kernel's answer to fio's
    /// `RWF_UNCACHED` bit (EOPNOTSUPP since Linux 6.11, which reads it as `RWF_ATOMIC`; a plain
    /// write before) is the job's in both tools.
    #[test]
    #[ignore]
    fn uring_uncached_ends_as_fio() {
        common::require_fio();
        let args = ["--name=u", "--filename=f", "--size=64k", "--rw=write", "--ioengine=io_uring", "--uncached=1"];
        let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        setup(fdir.path());
        setup(zdir.path());
        let (f, _) = run("fio", &args, fdir.path());
        let (z, _) = run(zonekit(), &args, zdir.path());
        let (fj, zj) = (&f["jobs"][0], &z["jobs"][0]);
        assert_eq!(zj["error"], fj["error"]);
        assert_eq!(zj["write"]["io_bytes"], fj["write"]["io_bytes"]);
    }

    /// `log_prio=1`: each latency log entry carries its I/O's priority, as fio's (the same
    /// number of entries at 0x0000 and at 0x2000, real-time level 0).
    #[test]
    #[ignore]
    fn log_prio_carries_each_ios_priority_as_fio() {
        common::require_fio();
        let args = [
            "--name=l",
            "--filename=f",
            "--size=64k",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=io_uring",
            "--cmdprio_percentage=50",
            "--write_lat_log=l",
            "--log_prio=1",
        ];
        let mut counts = Vec::new();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            setup(dir.path());
            let (_, o) = run(program, &args, dir.path());
            ok(&o);
            let log = std::fs::read_to_string(dir.path().join("l_clat.1.log")).unwrap();
            let mut by_prio = std::collections::BTreeMap::new();
            for line in log.lines() {
                *by_prio.entry(line.rsplit(", ").next().unwrap().to_string()).or_insert(0) += 1;
            }
            counts.push(by_prio);
        }
        assert_eq!(counts[0].keys().collect::<Vec<_>>(), ["0x0000", "0x2000"], "fio: {:?}", counts[0]);
        assert_eq!(counts[1], counts[0]);
    }
}

/// A share above 100 %, a malformed `cmdprio_bssplit` and both ways of choosing at once: one
/// line each, exit code 2.
#[test]
fn bad_cmdprio_values_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    for (opt, want) in [
        ("--cmdprio_percentage=101", "cmdprio_percentage"),
        ("--cmdprio_bssplit=4k/10/1", "cmdprio_bssplit"),
        ("--cmdprio_bssplit=4k/60:4k/50/1/1", "more than 100%"),
        ("--cmdprio_bssplit=4k/x", "cmdprio_bssplit"),
        ("--cmdprio_class=4", "cmdprio_class"),
    ] {
        let o = Command::new(zonekit())
            .args(["bench", "--name=b", "--filename=f", "--size=64k", "--rw=read", "--ioengine=io_uring", opt])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{opt}: {err}");
        assert_eq!(err.lines().count(), 1, "{opt}: {err}");
        assert!(err.starts_with("zonekit: ") && err.contains(want), "{opt}: {err}");
    }
    let o = Command::new(zonekit())
        .args([
            "bench",
            "--name=b",
            "--filename=f",
            "--size=64k",
            "--rw=read",
            "--ioengine=libaio",
            "--cmdprio_percentage=10",
            "--cmdprio_bssplit=4k/10",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("mutually exclusive"), "{err}");
}
