//! `--idle-prof=system|percpu|calibrate` (fio's `idletime.c`): the `CPU idleness` block and JSON
//! `cpu_idleness` object laid out as fio 3.33 lays them out, with figures that say what the CPUs
//! did: a CPU kept busy by the job is not idle.
//!
//! The side-by-side tests need `fio` and `taskset`: they are `#[ignore]`d for a plain `cargo
//! test`; `scripts/test.sh` runs them and they fail without the tools.

mod common;

use common::{cpus, raw, text, zonekit};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// `fio ARGS` or `zonekit bench ARGS` in `dir`, pinned to CPU 0 with `taskset` when `pin`.
fn run_on(program: &str, args: &[&str], dir: &Path, pin: bool) -> Output {
    let mut cmd = if pin {
        let mut c = Command::new("taskset");
        c.args(["-c", "0", program]);
        c
    } else {
        Command::new(program)
    };
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    cmd.args(args).current_dir(dir).output().expect("run")
}

/// The `CPU idleness` block of a normal report, its figures replaced by `N` (the layout only).
fn idle_shape(normal: &str) -> Vec<String> {
    let at = normal.find("\nCPU idleness:\n").unwrap_or_else(|| panic!("no CPU idleness block:\n{normal}"));
    normal[at..]
        .lines()
        .map(|l| {
            let mut s = String::new();
            let mut in_num = false;
            for c in l.chars() {
                if c.is_ascii_digit() || (in_num && c == '.') {
                    if !in_num {
                        s.push('N');
                    }
                    in_num = true;
                } else {
                    in_num = false;
                    s.push(c);
                }
            }
            s
        })
        .collect()
}

/// The figures of a JSON report's `cpu_idleness`, in order, with their keys.
fn idle_json(doc: &Value) -> Vec<(String, f64)> {
    doc["cpu_idleness"]
        .as_object()
        .unwrap_or_else(|| panic!("no cpu_idleness in {doc}"))
        .iter()
        .map(|(k, v)| (k.clone(), v.as_f64().unwrap()))
        .collect()
}

/// The JSON document of an output (fio prints `cpuio`'s start line before it).
fn json_of(o: &Output) -> Value {
    let t = String::from_utf8_lossy(&o.stdout);
    let at = t.find('{').unwrap_or_else(|| panic!("no JSON in {t}"));
    serde_json::from_str(&t[at..]).unwrap_or_else(|e| panic!("{e}: {t}"))
}

/// The figures make sense: percentages, the system's the mean of the CPUs', a unit of work of a
/// few µs to a few ms (fio's is some 15 µs here).
fn plausible(fig: &[(String, f64)], percpu: bool, who: &str) {
    let get = |k: &str| fig.iter().find(|(n, _)| n == k).map(|x| x.1).unwrap_or_else(|| panic!("{who}: no {k}"));
    let mean = get("unit_mean");
    assert!(mean > 0.0 && mean < 10_000.0, "{who}: unit_mean {mean}");
    assert!(get("unit_stddev") >= 0.0, "{who}");
    for (k, v) in fig {
        assert!(v.is_finite() && *v >= 0.0, "{who}: {k}={v}");
    }
    if percpu {
        let cpus: Vec<f64> = fig.iter().filter(|(k, _)| k.starts_with("cpu-")).map(|x| x.1).collect();
        let avg = cpus.iter().sum::<f64>() / cpus.len() as f64;
        assert!((get("system") - avg).abs() < 1e-3, "{who}: system {} is not the CPUs' mean {avg}", get("system"));
    }
}

/// `--idle-prof=nope` is fio's line, exit code 2; `calibrate` prints the unit of work and runs
/// no job, exit code 0.
#[test]
fn idle_prof_values_are_fios() {
    let dir = tempfile::tempdir().unwrap();
    let o = raw(zonekit(), &["--idle-prof=nope", "--name=j", "--size=1m"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "zonekit: incorrect idle-prof option: nope\n");
    assert!(o.stdout.is_empty());
    let o = raw(zonekit(), &["--idle-prof=calibrate", "--name=j", "--size=1m", "--filename=f"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(idle_shape(&format!("\n{out}")), ["", "CPU idleness:", "  unit work: mean=Nus, stddev=N"]);
    assert!(!dir.path().join("f").exists(), "calibrate runs no job");
}

/// A run without `--idle-prof` has no idleness anywhere; terse never has it.
#[test]
fn no_idleness_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let o = raw(zonekit(), &["--name=n", "--ioengine=null", "--size=1m", "--output-format=normal,json"], dir.path());
    assert!(o.status.success());
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(!t.contains("CPU idleness") && !t.contains("cpu_idleness"), "{t}");
    let args = ["--name=n", "--ioengine=null", "--size=1m", "--output-format=terse"];
    let plain = raw(zonekit(), &args, dir.path());
    let idle = raw(zonekit(), &[&args[..], &["--idle-prof=percpu"]].concat(), dir.path());
    let fields = |o: &Output| String::from_utf8_lossy(&o.stdout).trim_end().split(';').count();
    assert_eq!(fields(&idle), fields(&plain));
}

mod needs_tools {
    use super::*;

    /// The same jobs through fio 3.33 and zonekit: the block and the JSON object laid out alike
    /// (after the disk stats, and last in the document), for `system` and `percpu`; the figures
    /// plausible in both; a job pinned to CPU 0 that keeps it busy (null engine, 2 s) leaves it
    /// next to no idleness in both. fio runs its jobs as threads here (`--thread`): as processes
    /// they call setsid(), which puts them in another autogroup of the scheduler, where fio's
    /// SCHED_IDLE threads take a share of the CPU as any group would (see docs/bench.md).
    #[test]
    #[ignore = "needs fio and taskset: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn idleness_laid_out_and_measured_as_fio_does() {
        common::require_fio();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data"), vec![0u8; 4 << 20]).unwrap();
        let file_job = ["--name=f", "--filename=data", "--size=4m", "--rw=read", "--bs=64k"];
        for mode in ["system", "percpu"] {
            let percpu = mode == "percpu";
            let flag = format!("--idle-prof={mode}");
            let args = [&file_job[..], &[&flag, "--output-format=normal"]].concat();
            let (f, z) = (run_on("fio", &args, dir.path(), false), run_on(zonekit(), &args, dir.path(), false));
            assert!(f.status.success() && z.status.success(), "{}{}", text(&f), text(&z));
            let (ft, zt) = (String::from_utf8_lossy(&f.stdout), String::from_utf8_lossy(&z.stdout));
            assert_eq!(idle_shape(&zt), idle_shape(&ft), "{mode}: the block's layout");
            let shape = idle_shape(&zt);
            assert_eq!(shape.len(), if percpu { 5 } else { 4 }, "{shape:?}");
            if percpu {
                let n = cpus();
                assert_eq!(shape[3], format!("  percpu: {}", vec!["N%"; n].join(", ")), "one figure per CPU ({n})");
            }
            // After the disk stats, where there are some.
            for t in [&ft, &zt] {
                if let Some(d) = t.find("\nDisk stats") {
                    assert!(t.find("\nCPU idleness:").unwrap() > d, "{t}");
                }
            }
            let args = [&file_job[..], &[&flag, "--output-format=json"]].concat();
            let (f, z) = (run_on("fio", &args, dir.path(), false), run_on(zonekit(), &args, dir.path(), false));
            let (fd, zd) = (json_of(&f), json_of(&z));
            // Keys in order, and the object last in the document, from the text (serde_json
            // sorts keys).
            let keys = |o: &Output| {
                let t = String::from_utf8_lossy(&o.stdout).into_owned();
                let at = t.find("\"cpu_idleness\" : {").unwrap_or_else(|| panic!("{t}"));
                let end = at + t[at..].find('}').unwrap();
                assert_eq!(t[end..].trim(), "}\n}".trim(), "cpu_idleness is the document's last key");
                t[at..end].lines().skip(1).filter_map(|l| l.split('"').nth(1)).map(str::to_string).collect::<Vec<_>>()
            };
            assert_eq!(keys(&z), keys(&f), "{mode}: cpu_idleness keys in order");
            let mut want = vec!["system".to_string()];
            if percpu {
                want.extend((0..cpus()).map(|i| format!("cpu-{i}")));
            }
            want.extend(["unit_mean".to_string(), "unit_stddev".to_string()]);
            assert_eq!(keys(&z), want);
            plausible(&idle_json(&fd), percpu, &format!("fio {mode}"));
            plausible(&idle_json(&zd), percpu, &format!("zonekit {mode}"));
        }
        // A null job pinned to CPU 0 keeps it busy for 2 s: next to no idleness there.
        let busy = [
            "--name=busy",
            "--ioengine=null",
            "--size=100g",
            "--runtime=2",
            "--time_based",
            "--thread",
            "--idle-prof=percpu",
            "--output-format=json",
        ];
        for program in ["fio", zonekit()] {
            let o = run_on(program, &busy, dir.path(), true);
            assert!(o.status.success(), "{}", text(&o));
            let doc = json_of(&o);
            let fig = idle_json(&doc);
            eprintln!("{program}: null job on CPU 0 for 2 s: {fig:?}");
            plausible(&fig, true, program);
            let cpu0 = fig.iter().find(|x| x.0 == "cpu-0").unwrap().1;
            assert!(cpu0 < 20.0, "{program}: CPU 0 was busy with the job, yet {cpu0} % idle");
        }
        // cpuio at cpuload=50 on CPU 0 (printed, not asserted: on a machine shared with other
        // work the CPU's other half is theirs, not idle).
        let half = [
            "--name=half",
            "--ioengine=cpuio",
            "--cpuload=50",
            "--runtime=3",
            "--time_based",
            "--thread",
            "--idle-prof=percpu",
            "--output-format=json",
        ];
        for program in ["fio", zonekit()] {
            let o = run_on(program, &half, dir.path(), true);
            assert!(o.status.success(), "{}", text(&o));
            let doc = json_of(&o);
            let fig = idle_json(&doc);
            eprintln!("{program}: cpuio at 50 % on CPU 0 for 3 s: {fig:?}");
            plausible(&fig, true, program);
        }
    }
}
