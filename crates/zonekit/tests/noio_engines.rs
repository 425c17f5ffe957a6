//! fio 3.33's engines that do no data I/O: `cpuio` (CPU burnt, usr/sys reported), `exec` (a
//! program run beside the job, its output redirected), and `filecreate`, `filestat`,
//! `filedelete` (one timed call per file, reported as its completion latency). Their bad input is
//! one line, exit 2; beside fio 3.33 on the same job, the same I/O counts, bytes, latency samples
//! and files made or removed, and for cpuio the same shape of report and a CPU use near the load
//! asked for.
//!
//! The comparisons need `fio`: they are `#[ignore]`d for a plain `cargo test`;
//! `scripts/test.sh` runs them and they fail without fio.

mod common;

use common::{raw, text, zonekit};

use serde_json::Value;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// The JSON report on standard output (after the lines these engines print as they start).
fn json(o: &Output) -> Value {
    let s = String::from_utf8_lossy(&o.stdout);
    let start = s.find("{\n").unwrap_or_else(|| panic!("no JSON in\n{}", text(o)));
    serde_json::from_str(&s[start..]).unwrap_or_else(|e| panic!("{e}\n{}", text(o)))
}

/// `program ARGS --output-format=json` in `dir`: its report, its output.
fn run_json(program: &str, args: &str, dir: &Path) -> (Value, Output) {
    let args: Vec<&str> = args.split_whitespace().chain(["--output-format=json"]).collect();
    let o = raw(program, &args, dir);
    assert!(o.status.success(), "{program} {args:?}: {}", text(&o));
    (json(&o), o)
}

fn n(job: &Value, path: &[&str]) -> u64 {
    let mut v = job;
    for k in path {
        v = &v[*k];
    }
    v.as_u64().unwrap_or_else(|| panic!("{path:?} in {job}"))
}

/// Per direction (read, write): I/Os, bytes, completion-latency samples, total-latency samples,
/// and the job's error.
fn counts(doc: &Value) -> (Vec<[u64; 4]>, i64) {
    let j = &doc["jobs"][0];
    let dirs = ["read", "write"]
        .iter()
        .map(|d| {
            [n(j, &[d, "total_ios"]), n(j, &[d, "io_bytes"]), n(j, &[d, "clat_ns", "N"]), n(j, &[d, "lat_ns", "N"])]
        })
        .collect();
    (dirs, j["error"].as_i64().unwrap())
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// The I/Os of the first job of a normal report (`issued rwts: total=N,…`).
fn issued(o: &Output) -> u64 {
    let s = String::from_utf8_lossy(&o.stdout);
    let l = s.lines().find(|l| l.contains("issued rwts: total=")).unwrap_or_else(|| panic!("{s}"));
    l.split("total=").nth(1).unwrap().split(',').next().unwrap().parse().unwrap()
}

/// Exit 2 and one line on stderr containing `want`, nothing on stdout.
fn refused(args: &[&str], want: &str) {
    let dir = tempfile::tempdir().unwrap();
    let o = raw(zonekit(), args, dir.path());
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with("zonekit: ") && err.contains(want), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o));
}

#[test]
fn bad_input_is_one_line_exit_2() {
    refused(&["--name=c", "--ioengine=cpuio", "--runtime=1"], "ioengine=cpuio: cpu thread needs rate (cpuload=)");
    refused(&["--name=c", "--ioengine=cpuio", "--cpuload=0", "--runtime=1"], "cpu thread needs rate");
    refused(&["--name=c", "--ioengine=cpuio", "--cpuload=101", "--runtime=1"], "cpuload");
    refused(&["--name=c", "--ioengine=cpuio", "--cpuload=50", "--cpumode=heat"], "cpumode");
    refused(&["--name=e", "--ioengine=exec", "--runtime=1"], "no program is defined, it is mandatory to define one");
    refused(&["--name=e", "--ioengine=exec", "--program=/bin/true", "--grace_time=-1"], "grace_time");
    refused(&["--name=s", "--ioengine=filestat", "--stat_type=fstat", "--nrfiles=2"], "stat_type");
    // The file engines need files: not on zonekit's emulated devices.
    refused(&["--name=f", "--ioengine=filecreate", "--filename=@nullb-small"], "ioengine=filecreate");
    // --parse-only reads the job (fio checks the engine's settings when it starts).
    let dir = tempfile::tempdir().unwrap();
    let o = raw(zonekit(), &["--parse-only", "--name=c", "--ioengine=cpuio"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
}

/// filecreate makes each file (one I/O of the smallest block size per file, none laid out
/// before), filestat stats them, filedelete removes them: one latency sample per file, the I/Os
/// counted with their bytes and no latency of their own.
#[test]
fn file_engines_time_one_call_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (doc, _) = run_json(zonekit(), "--name=c --ioengine=filecreate --nrfiles=6 --directory=.", d);
    assert_eq!(counts(&doc), (vec![[6, 6 * 4096, 6, 0], [0, 0, 0, 0]], 0));
    let made: Vec<String> = (0..6).map(|i| format!("c.0.{i}")).collect();
    assert_eq!(names(d), made);
    assert!(made.iter().all(|f| std::fs::metadata(d.join(f)).unwrap().len() == 0), "created empty");
    // Files are written as the direction says: a writing job files its samples as writes.
    for t in ["stat", "lstat", "statx"] {
        let args =
            format!("--name=c --ioengine=filestat --stat_type={t} --nrfiles=6 --filesize=4k --rw=write --directory=.");
        let (doc, _) = run_json(zonekit(), &args, d);
        assert_eq!(counts(&doc), (vec![[0, 0, 0, 0], [6, 6 * 4096, 6, 0]], 0), "stat_type={t}");
    }
    // filesize=8k at bs=4k: two I/Os per file, one call each (filestat lays the files out).
    let (doc, _) =
        run_json(zonekit(), "--name=c --ioengine=filedelete --nrfiles=6 --filesize=8k --unlink=0 --directory=.", d);
    assert_eq!(counts(&doc), (vec![[12, 12 * 4096, 6, 0], [0, 0, 0, 0]], 0));
    assert!(names(d).is_empty(), "{:?}", names(d));
    // Nothing left to delete: the call's error ends the job, worded as fio's td_verror.
    let args =
        ["--name=c", "--ioengine=filedelete", "--nrfiles=2", "--filesize=4k", "--create_on_open=1", "--directory=."];
    let o = raw(zonekit(), &args, d);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o)
            .contains("err=2/file:engines/fileoperations.c:205, func=delete(./c.0.0), error=No such file or directory"),
        "{}",
        text(&o)
    );
}

/// exec runs the program once with its arguments expanded (%n, %r), its output in JOB.stdout and
/// JOB.stderr, and ends at the job's runtime; each I/O after the first is a 50 ms poll (then 50 ms
/// of think time), and none moves data.
#[test]
fn exec_runs_the_program_until_the_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("prog.sh"), "#!/bin/sh\necho \"out $*\"\necho err >&2\nexec sleep 30\n").unwrap();
    let t0 = Instant::now();
    let args = "--name=ex --ioengine=exec --program=/bin/sh --arguments=prog.sh__%n__%r --runtime=1 --grace_time=0";
    // The arguments are split at spaces: a test cannot pass one through split_whitespace.
    let args: Vec<String> = args.split(' ').map(|a| a.replace("__", " ")).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = raw(zonekit(), &args, d);
    let took = t0.elapsed();
    assert!(o.status.success(), "{}", text(&o));
    // The 30 s sleep was killed at the runtime.
    assert!(took < Duration::from_millis(1900), "took {took:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("ex : program=/bin/sh, arguments=prog.sh %n %r\nex : Saving output of /bin/sh prog.sh ex 1 : stdout=ex.stdout stderr=ex.stderr\n"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(d.join("ex.stdout")).unwrap(), "out ex 1\n");
    assert_eq!(std::fs::read_to_string(d.join("ex.stderr")).unwrap(), "err\n");
    // One start, then a poll every 100 ms or so until 1 s; no bytes, so no direction block.
    let ios = issued(&o);
    assert!((5..=12).contains(&ios), "{ios}: {out}");
    assert!(out.contains(&format!("issued rwts: total={ios},0,0,0 short=0,0,0,0")), "{out}");
    assert!(!out.contains("read: IOPS"), "{out}");
    // std_redirect=0: the program writes where zonekit does.
    let o = raw(
        zonekit(),
        &[
            "--name=ex",
            "--ioengine=exec",
            "--program=echo",
            "--arguments=hi %n",
            "--std_redirect=0",
            "--runtime=200ms",
            "--grace_time=0",
        ],
        d,
    );
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("ex : Running echo hi ex\n"), "{out}");
    assert!(out.contains("\nhi ex\n"), "{out}");
}

/// cpuio: no bytes, one latency per burn, the normal report's latency buckets and CPU line
/// without a direction block; exit_on_io_done ends it with the last job doing I/O.
#[test]
fn cpuio_burns_and_ends_with_the_io_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o =
        raw(zonekit(), &["--name=c", "--ioengine=cpuio", "--cpuload=50", "--cpuchunks=20000", "--runtime=400ms"], d);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("c (noop): ioengine=cpuio, cpuload=50, cpucycle=20000\n"), "{out}");
    assert!(out.contains("  lat (msec)   : ") && out.contains("  cpu          : usr="), "{out}");
    assert!(!out.contains("  read: IOPS") && !out.contains("   READ: bw"), "{out}");
    // exit_on_io_done: the 20 s cpuio job ends once the rated writer has written 256 KiB.
    let t0 = Instant::now();
    let (doc, _) = run_json(
        zonekit(),
        "--name=c --ioengine=cpuio --cpuload=10 --cpuchunks=2000 --exit_on_io_done=1 --runtime=20 --time_based \
         --name=w --ioengine=psync --rw=write --filename=data --size=256k --rate=1m",
        d,
    );
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    assert!(n(&doc["jobs"][0], &["read", "total_ios"]) > 0);
    assert_eq!(n(&doc["jobs"][1], &["write", "io_bytes"]), 256 << 10);
}

fn file_engines_as_fio() {
    common::require_fio();
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let both = |args: &str| {
        let (f, _) = run_json("fio", args, fdir.path());
        let (z, _) = run_json(zonekit(), args, zdir.path());
        assert_eq!(counts(&f), counts(&z), "{args}: (ios, bytes, clat samples, lat samples) per direction, error");
        assert_eq!(names(fdir.path()), names(zdir.path()), "{args}: files");
    };
    both("--name=c --ioengine=filecreate --nrfiles=20 --directory=. --create_on_open=1 --openfiles=1");
    both("--name=d --ioengine=filecreate --nrfiles=5 --filesize=8k --rw=write --directory=.");
    for t in ["stat", "lstat", "statx"] {
        both(&format!("--name=s --ioengine=filestat --stat_type={t} --nrfiles=10 --filesize=4k --directory=."));
    }
    both("--name=x --ioengine=filedelete --nrfiles=10 --filesize=4k --unlink=0 --directory=.");
    both("--name=y --ioengine=filedelete --nrfiles=3 --size=48k --unlink=0 --directory=.");
    // fio closes the files between two loops and opens them again: each loop makes the calls
    // again (6 latency samples, not 2) ...
    both("--name=l --ioengine=filestat --nrfiles=2 --filesize=4k --loops=3 --directory=.");
    both("--name=m --ioengine=filecreate --nrfiles=2 --loops=3 --directory=.");
    // ... and the second loop of filedelete finds nothing to delete. (fio prints its job error
    // line inside a JSON report: compare the normal output.)
    let args = ["--name=z", "--ioengine=filedelete", "--nrfiles=2", "--filesize=4k", "--loops=2", "--directory=."];
    for (program, dir) in [("fio", fdir.path()), (zonekit(), zdir.path())] {
        let o = raw(program, &args, dir);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{program}: {t}");
        let line = "err=2/file:engines/fileoperations.c:205, func=delete(./z.0.0), error=No such file or directory";
        assert!(t.contains(line), "{program}: {t}");
        assert!(t.contains("issued rwts: total=2,0,0,0"), "{program}: {t}");
    }
}

fn cpuio_as_fio() {
    common::require_fio();
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args = "--name=c --ioengine=cpuio --cpuload=50 --cpuchunks=10000 --runtime=600ms --time_based";
    // Side by side, so that both see the same load on the machine.
    let (f, z) = std::thread::scope(|s| {
        let f = s.spawn(|| run_json("fio", args, fdir.path()));
        let z = s.spawn(|| run_json(zonekit(), args, zdir.path()));
        (f.join().unwrap(), z.join().unwrap())
    });
    let (fc, zc) = (counts(&f.0), counts(&z.0));
    // No bytes, a latency sample per burn, reads only.
    for (c, who) in [(&fc, "fio"), (&zc, "zonekit")] {
        let r = c.0[0];
        assert!(r[1] == 0 && r[2] == r[0] && r[3] == r[0] && c.0[1] == [0, 0, 0, 0], "{who}: {c:?}");
        // A 10 ms burn and 10 ms of think time: about 30 in 600 ms, fewer on a busy machine.
        assert!((3..=55).contains(&r[0]), "{who}: {c:?}");
    }
    let (fi, zi) = (fc.0[0][0], zc.0[0][0]);
    assert!(fi.max(zi) <= 4 * fi.min(zi), "I/Os: fio {fi}, zonekit {zi}");
    // The load: the burns take half the runtime or more (a burn is 10 ms of the clock, longer
    // when the machine takes the CPU away), the rest is think time; the CPU used is about half a
    // CPU on an idle machine, less on a busy one (loose bounds: a burn spins on the clock).
    let duty = |d: &Value| {
        let r = &d["jobs"][0]["read"];
        r["clat_ns"]["mean"].as_f64().unwrap() * r["total_ios"].as_f64().unwrap() / 6e8
    };
    let cpu = |d: &Value| d["jobs"][0]["usr_cpu"].as_f64().unwrap() + d["jobs"][0]["sys_cpu"].as_f64().unwrap();
    for (d, who) in [(&f.0, "fio"), (&z.0, "zonekit")] {
        assert!((0.4..=1.0).contains(&duty(d)), "{who}: burn share {}", duty(d));
        assert!(cpu(d) > 1.0 && cpu(d) <= 75.0, "{who}: cpu {}%", cpu(d));
    }
    // The normal report has the same lines (the engine's, no direction block, no run status
    // line).
    let shape = |prog: &str, dir: &Path| -> Vec<String> {
        let o =
            raw(prog, &["--name=c", "--ioengine=cpuio", "--cpuload=100", "--cpuchunks=20000", "--runtime=100ms"], dir);
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with("fio-") && !l.starts_with("zonekit-"))
            .map(|l| l.split(':').next().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(shape("fio", fdir.path()), shape(zonekit(), zdir.path()));
}

fn exec_as_fio() {
    common::require_fio();
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args =
        ["--name=e", "--ioengine=exec", "--program=/bin/echo", "--arguments=a %n %r", "--runtime=1", "--grace_time=0"];
    let (f, z) = std::thread::scope(|s| {
        let f = s.spawn(|| raw("fio", &args, fdir.path()));
        let z = s.spawn(|| raw(zonekit(), &args, zdir.path()));
        (f.join().unwrap(), z.join().unwrap())
    });
    assert!(f.status.success() && z.status.success(), "{}\n{}", text(&f), text(&z));
    let file = |d: &Path, n: &str| std::fs::read_to_string(d.join(n)).unwrap();
    for name in ["e.stdout", "e.stderr"] {
        assert_eq!(file(fdir.path(), name), file(zdir.path(), name), "{name}");
    }
    assert_eq!(file(zdir.path(), "e.stdout"), "a e 1\n");
    let lines = |o: &Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stdout).lines().filter(|l| l.starts_with("e : ")).map(str::to_string).collect()
    };
    assert_eq!(lines(&f), lines(&z));
    let (fi, zi) = (issued(&f), issued(&z));
    assert!(fi.abs_diff(zi) <= 2, "I/Os: fio {fi}, zonekit {zi}");
}

/// The tests that need a tool besides Rust: ignored by a plain `cargo test`, run by
/// `scripts/test.sh`, and failing there when the tool is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn file_engines_as_fio() {
        super::file_engines_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn cpuio_as_fio() {
        super::cpuio_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn exec_as_fio() {
        super::exec_as_fio();
    }
}
