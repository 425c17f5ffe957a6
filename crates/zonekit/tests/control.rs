//! `zonekit bench`'s job control: `exitall` / `exit_what` / `exitall_on_error`, `wait_for`,
//! stonewall waves and groups, steady-state detection, `ignore_error` / `error_dump`. The tests
//! without fio run the null engine or zonekit's devices; `needs_tools` runs the same job files
//! through fio 3.33 and zonekit and compares what each did.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn zonekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).args(args).output().expect("run zonekit")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A job file in `dir`, run by `program` (`fio`, or zonekit's `bench`) with `extra` arguments:
/// the output, as run from `dir`.
fn run_file(program: &str, dir: &Path, job: &str, extra: &[&str]) -> Output {
    let file = dir.join("job.fio");
    std::fs::write(&file, job).unwrap();
    let mut cmd = if program == "fio" {
        Command::new("fio")
    } else {
        let mut c = Command::new(env!("CARGO_BIN_EXE_zonekit"));
        c.arg("bench");
        c
    };
    cmd.args(extra).arg(&file).current_dir(dir).output().expect("run")
}

/// The JSON report of `job` run by `program`, with the exit code.
fn json_of(program: &str, dir: &Path, job: &str) -> (Value, i32) {
    let o = run_file(program, dir, job, &["--output-format=json"]);
    // fio prints a failed job's `fio: pid=…` line on standard output, before the document.
    let out = String::from_utf8_lossy(&o.stdout);
    let doc = if out.starts_with('{') { &out[..] } else { out.find("\n{").map_or(&out[..], |i| &out[i + 1..]) };
    let v = serde_json::from_str(doc).unwrap_or_else(|e| panic!("{program}: {e}: {}", text(&o)));
    (v, o.status.code().unwrap_or(-1))
}

/// Each job's name and `job_runtime` (ms), in report order.
fn runtimes(v: &Value) -> Vec<(String, u64)> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["jobname"].as_str().unwrap().to_string(), j["job_runtime"].as_u64().unwrap()))
        .collect()
}

fn runtime_of(v: &Value, name: &str) -> u64 {
    runtimes(v).into_iter().find(|(n, _)| n == name).map(|(_, r)| r).unwrap_or_else(|| panic!("no job {name}"))
}

const NULL_GLOBAL: &str = "[global]\nioengine=null\nsize=1g\ntime_based\nrw=read\nbs=4k\nthread\n";

#[test]
fn exitall_ends_the_group_when_the_first_job_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let job = format!(
        "{NULL_GLOBAL}[short]\nruntime=200ms\nexitall\n[long]\nruntime=20s\n[later]\nstonewall\nruntime=100ms\n"
    );
    let (v, code) = json_of("zonekit", tmp.path(), &job);
    assert_eq!(code, 0);
    let long = runtime_of(&v, "long");
    assert!((150..1500).contains(&long), "{:?}", runtimes(&v));
    // The next stonewall wave still runs (exit_what=group).
    assert!(runtime_of(&v, "later") >= 80, "{:?}", runtimes(&v));
    // exit_what=all: the later wave never starts; JSON keeps it with zeros, normal output not.
    let all = job.replace("exitall\n", "exitall\nexit_what=all\n");
    let (v, _) = json_of("zonekit", tmp.path(), &all);
    assert_eq!(runtime_of(&v, "later"), 0);
    assert_eq!(v["jobs"][2]["read"]["io_bytes"], 0);
    let o = run_file("zonekit", tmp.path(), &all, &[]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("later: (groupid=1"), "{}", text(&o));
}

#[test]
fn exit_what_stonewall_ends_the_running_jobs_of_other_groups() {
    let tmp = tempfile::tempdir().unwrap();
    let job = format!(
        "{NULL_GLOBAL}[a]\nruntime=200ms\nexitall\nexit_what=stonewall\n[b]\nnew_group\nruntime=1200ms\n[c]\nstonewall\nruntime=100ms\n"
    );
    let (v, _) = json_of("zonekit", tmp.path(), &job);
    // b runs beside a (new_group does not wait) and ends with it.
    assert_eq!(v["jobs"][1]["groupid"], 1);
    assert!(runtime_of(&v, "b") < 900, "{:?}", runtimes(&v));
    assert!(runtime_of(&v, "c") >= 80, "{:?}", runtimes(&v));
    // exit_what=group: b is in another group and runs its whole runtime.
    let (v, _) = json_of("zonekit", tmp.path(), &job.replace("exit_what=stonewall", "exit_what=group"));
    assert!(runtime_of(&v, "b") >= 1100, "{:?}", runtimes(&v));
}

#[test]
fn bad_control_values_are_one_line() {
    for (args, want) in [
        (vec!["--name=x", "--ioengine=null", "--size=1m", "--exitall=0"], "exitall=0"),
        (vec!["--name=x", "--ioengine=null", "--size=1m", "--ss=iops"], "limit is required"),
        (vec!["--name=x", "--ioengine=null", "--size=1m", "--ss_dur=1500ms"], "whole seconds"),
        (vec!["--name=x", "--ioengine=null", "--size=1m", "--ignore_error=,EILSEQ"], "unknown error EILSEQ"),
        (vec!["--name=x", "--ioengine=null", "--size=1m", "--ignore_error=1,2,3,4"], "at most three"),
        (vec!["--name=x", "--ioengine=null", "--size=1m", "--ss_dur=2", "--name=y", "--ioengine=null"], "steadystate"),
    ] {
        let mut a = vec!["bench"];
        a.extend(args.iter().copied());
        let o = zonekit(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn steady_iops_end_the_job_in_simulated_time() {
    let tmp = tempfile::tempdir().unwrap();
    // A drive with a timing model runs in simulated time: 3 s windows cost no wall time.
    let job = "[steady]\nfilename=@smr-hm-15tb\nioengine=psync\nrw=randread\nbs=4k\nsize=1g\ntime_based\nruntime=60s\nss=iops:5%\nss_dur=3\n";
    let (v, code) = json_of("zonekit", tmp.path(), job);
    assert_eq!(code, 0, "{v}");
    let j = &v["jobs"][0];
    let ss = &j["steadystate"];
    assert_eq!(ss["ss"], "iops:5.000000%");
    assert_eq!((ss["duration"].as_u64(), ss["attained"].as_u64()), (Some(3), Some(1)), "{ss}");
    assert_eq!(ss["data"]["iops"].as_array().unwrap().len(), 3);
    // Steady at the first full window: three seconds, well before the 60 s runtime.
    let rt = j["job_runtime"].as_u64().unwrap();
    assert!((2500..5000).contains(&rt), "{rt}");
    let crit: f64 = ss["criterion"].as_str().unwrap().trim_end_matches('%').parse().unwrap();
    assert!(crit < 5.0, "{ss}");
    let o = run_file("zonekit", tmp.path(), job, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("  steadystate  : attained=yes, bw=") && out.contains(", iops mean dev="), "{out}");
}

/// A device of zonekit's with a write error injected into its first sequential zone (at 4 MiB).
fn faulty_device(tmp: &Path) -> String {
    let d = tmp.join("dev").display().to_string();
    let o = zonekit(&["dev", "create", &d, "--profile", "nullb-small"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "1", "fail-next-write"]);
    assert!(o.status.success(), "{}", text(&o));
    d
}

/// Writes to the faulty zone: the injected error fails the first, and the zone's write pointer
/// stays put, so every later write of the zone fails too.
fn faulty_job(d: &str) -> String {
    format!("[w]\nfilename={d}\nzonemode=zbd\ndirect=1\noffset=4m\nioengine=psync\nrw=write\nbs=64k\nsize=4m\n")
}

#[test]
fn ignore_error_carries_a_job_past_an_injected_write_error() {
    // (options, exit code, total_err, first_error, writes issued)
    for (extra, code, total_err, writes) in [
        ("ignore_error=,EIO\nerror_dump=1\n", 0, Some(64), 64),
        ("continue_on_error=none\n", 1, None, 1),
        // A list without EIO: fatal, but counted as fio counts errors of a covered kind.
        ("ignore_error=,ENOSPC:EBUSY\n", 1, Some(1), 1),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let d = faulty_device(tmp.path());
        let o = run_file("zonekit", tmp.path(), &format!("{}{extra}", faulty_job(&d)), &["--output-format=json"]);
        assert_eq!(o.status.code(), Some(code), "{extra}: {}", text(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let j = &v["jobs"][0];
        assert_eq!(j["error"], 5, "{extra}: {j}");
        assert_eq!(j["total_err"].as_u64(), total_err, "{extra}: {j}");
        assert_eq!(j["write"]["total_ios"], writes, "{extra}: {j}");
        // error_dump prints every error's line; otherwise only the fatal one is printed.
        let err = String::from_utf8_lossy(&o.stderr);
        let lines = err.lines().filter(|l| l.contains("io_u error on file")).count();
        assert_eq!(lines, if code == 0 { 64 } else { 1 }, "{extra}: {err}");
        assert!(err.contains("Input/output error: write offset=4194304, buflen=65536"), "{err}");
    }
}

#[test]
fn exitall_on_error_ends_the_others_when_a_job_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let d = faulty_device(tmp.path());
    let job = format!("[long]\nioengine=null\nsize=1g\ntime_based\nruntime=20s\n{}exitall_on_error\n", faulty_job(&d));
    let (v, code) = json_of("zonekit", tmp.path(), &job);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["jobs"][1]["error"], 5);
    assert!(runtime_of(&v, "long") < 1500, "{:?}", runtimes(&v));
}

/// The share (percent) of a version-3 I/O log's reads and writes that start where the previous
/// one ended, and how many there are.
fn sequential_share(log: &Path) -> (f64, usize) {
    let text = std::fs::read_to_string(log).unwrap();
    let (mut prev, mut seq, mut n) = (None, 0usize, 0usize);
    for l in text.lines() {
        let p: Vec<&str> = l.split_whitespace().collect();
        if p.len() == 5 && (p[2] == "read" || p[2] == "write") {
            let (off, len): (u64, u64) = (p[3].parse().unwrap(), p[4].parse().unwrap());
            n += 1;
            if prev == Some(off) {
                seq += 1;
            }
            prev = Some(off + len);
        }
    }
    (100.0 * seq as f64 / n.max(1) as f64, n)
}

const PERC_RANDOM: &str =
    "[pr]\nioengine=null\nrw=randread\nbs=4k\nsize=16m\npercentage_random=30\nwrite_iolog=log.txt\n";

#[test]
fn percentage_random_continues_the_rest_sequentially() {
    for (perc, lo, hi) in [("30", 65.0, 74.0), ("0", 99.9, 100.0), ("100", 0.0, 2.0)] {
        let tmp = tempfile::tempdir().unwrap();
        let job = PERC_RANDOM.replace("percentage_random=30", &format!("percentage_random={perc}"));
        let (_, code) = json_of("zonekit", tmp.path(), &job);
        assert_eq!(code, 0);
        let (share, n) = sequential_share(&tmp.path().join("log.txt"));
        assert_eq!(n, 4096);
        assert!((lo..=hi).contains(&share), "percentage_random={perc}: {share}% sequential");
    }
}

/// The lengths of a version-3 I/O log's sequential continuations and of its other I/Os.
fn lengths(log: &Path) -> (Vec<u64>, Vec<u64>) {
    let text = std::fs::read_to_string(log).unwrap();
    let (mut prev, mut seq, mut rand) = (None, Vec::new(), Vec::new());
    for l in text.lines() {
        let p: Vec<&str> = l.split_whitespace().collect();
        if p.len() == 5 && (p[2] == "read" || p[2] == "write") {
            let (off, len): (u64, u64) = (p[3].parse().unwrap(), p[4].parse().unwrap());
            if prev == Some(off) {
                seq.push(len)
            } else {
                rand.push(len)
            }
            prev = Some(off + len);
        }
    }
    (seq, rand)
}

const SEQ_RAND: &str = "[sr]\nioengine=null\nrw=randread\nbs=4k,64k\nbs_is_seq_rand=1\nsize=16m\npercentage_random=50\nwrite_iolog=log.txt\n";

#[test]
fn bs_is_seq_rand_sizes_sequential_and_random_ios_apart() {
    // A sequential job's I/Os are sequential: the first size; norandommap keeps random sizes whole.
    for (job, seq_len, rand_len) in [
        (SEQ_RAND.replace("rw=randread", "rw=read"), Some(4096), None),
        (SEQ_RAND.replace("percentage_random=50", "norandommap=1"), None, Some(65536)),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(json_of("zonekit", tmp.path(), &job).1, 0);
        let (seq, rand) = lengths(&tmp.path().join("log.txt"));
        if let Some(l) = seq_len {
            assert!(seq.iter().all(|&x| x == l) && seq.len() > 4000, "{seq:?}");
        }
        if let Some(l) = rand_len {
            // A random draw may land where the last I/O ended: it is still 64 KiB.
            assert!(seq.iter().chain(&rand).all(|&x| x == l), "{rand:?}");
        }
    }
}

mod needs_tools {
    use super::*;

    /// Panics unless fio runs: a comparison with fio must never pass without it.
    use crate::common::require_fio;

    /// The same job through both tools: (fio's report, zonekit's report).
    fn both(job: &str) -> (Value, Value) {
        require_fio();
        let (f, z) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (fv, fc) = json_of("fio", f.path(), job);
        let (zv, zc) = json_of("zonekit", z.path(), job);
        assert_eq!(fc, zc, "exit codes differ:\nfio {fv}\nzonekit {zv}");
        (fv, zv)
    }

    #[test]
    #[ignore]
    fn exitall_and_exit_what_as_fio() {
        let job = format!(
            "{NULL_GLOBAL}[short]\nruntime=300ms\nexitall\n[long]\nruntime=3s\n[later]\nstonewall\nruntime=200ms\n"
        );
        let (f, z) = both(&job);
        for v in [&f, &z] {
            // The short job ends the long one (about 300 ms each), the next wave runs.
            let long = runtime_of(v, "long");
            assert!((250..1500).contains(&long), "{:?}", runtimes(v));
            assert!(runtime_of(v, "later") >= 150, "{:?}", runtimes(v));
        }
        let (f, z) = both(&job.replace("exitall\n", "exitall\nexit_what=all\n"));
        for v in [&f, &z] {
            assert_eq!(runtime_of(v, "later"), 0, "{:?}", runtimes(v));
            assert_eq!(v["jobs"][2]["read"]["total_ios"], 0);
        }
        let job = format!(
            "{NULL_GLOBAL}[a]\nruntime=300ms\nexitall\nexit_what=stonewall\n[b]\nnew_group\nruntime=1500ms\n[c]\nstonewall\nruntime=200ms\n"
        );
        let (f, z) = both(&job);
        for v in [&f, &z] {
            assert!(runtime_of(v, "b") < 1000, "{:?}", runtimes(v));
        }
        let (f, z) = both(&job.replace("exit_what=stonewall", "exit_what=group"));
        for v in [&f, &z] {
            assert!(runtime_of(v, "b") >= 1400, "{:?}", runtimes(v));
            assert_eq!(v["jobs"][1]["groupid"], 1);
        }
    }

    /// First and last time stamps (ms since the Unix epoch) of a bandwidth log.
    fn span(dir: &Path, name: &str, thread_number: u32) -> (u64, u64) {
        let log = std::fs::read_to_string(dir.join(format!("{name}_bw.{thread_number}.log"))).unwrap();
        let ts: Vec<u64> = log.lines().map(|l| l.split(',').next().unwrap().trim().parse().unwrap()).collect();
        (*ts.first().unwrap(), *ts.last().unwrap())
    }

    #[test]
    #[ignore]
    fn wait_for_order_in_time_stamps_as_fio() {
        require_fio();
        let job = format!(
            "{NULL_GLOBAL}log_unix_epoch=1\nlog_avg_msec=50\n[a]\nruntime=400ms\nwrite_bw_log=a\n[b]\nwait_for=a\nruntime=300ms\nwrite_bw_log=b\n[c]\nruntime=300ms\nwrite_bw_log=c\n"
        );
        for program in ["fio", "zonekit"] {
            let tmp = tempfile::tempdir().unwrap();
            let (_, code) = json_of(program, tmp.path(), &job);
            assert_eq!(code, 0, "{program}");
            let (a, b, c) = (span(tmp.path(), "a", 1), span(tmp.path(), "b", 2), span(tmp.path(), "c", 3));
            // b starts once a has ended; c runs beside a.
            assert!(b.0 + 60 >= a.1, "{program}: a {a:?} b {b:?}");
            assert!(c.0 < a.1 && c.0 + 200 < b.0, "{program}: a {a:?} b {b:?} c {c:?}");
        }
    }

    /// Every key path of a JSON value.
    fn keys(v: &Value, prefix: &str, out: &mut std::collections::BTreeSet<String>) {
        if let Value::Object(m) = v {
            for (k, v) in m {
                let p = format!("{prefix}/{k}");
                out.insert(p.clone());
                keys(v, &p, out);
            }
        }
    }

    #[test]
    #[ignore]
    fn steadystate_section_as_fio() {
        let job = format!("{NULL_GLOBAL}runtime=4s\nrate_iops=1000\n[steady]\nss=iops:20%\nss_dur=2\n");
        let (f, z) = both(&job);
        let (fs, zs) = (&f["jobs"][0]["steadystate"], &z["jobs"][0]["steadystate"]);
        let (mut fk, mut zk) = (Default::default(), Default::default());
        keys(fs, "", &mut fk);
        keys(zs, "", &mut zk);
        assert_eq!(fk, zk, "fio {fs}\nzonekit {zs}");
        for k in ["ss", "duration", "attained"] {
            assert_eq!(fs[k], zs[k], "{k}: fio {fs}\nzonekit {zs}");
        }
        assert_eq!(zs["attained"], 1);
        for v in [&f, &z] {
            let j = &v["jobs"][0];
            // Steady after two one-second samples, long before the 4 s runtime.
            let rt = j["job_runtime"].as_u64().unwrap();
            assert!((1500..3200).contains(&rt), "{rt}");
            let iops = j["steadystate"]["data"]["iops_mean"].as_u64().unwrap();
            assert!((900..1100).contains(&iops), "{iops}");
            assert_eq!(j["steadystate"]["data"]["bw"].as_array().unwrap().len(), 2);
        }
        // The normal output's line, in the same shape.
        for program in ["fio", "zonekit"] {
            let tmp = tempfile::tempdir().unwrap();
            let o = run_file(program, tmp.path(), &job.replace("ss=iops:20%", "ss=bw_slope:10%"), &[]);
            let out = String::from_utf8_lossy(&o.stdout);
            let line = out.lines().find(|l| l.starts_with("  steadystate  : ")).unwrap_or_else(|| panic!("{out}"));
            assert!(line.starts_with("  steadystate  : attained=yes, bw="), "{program}: {line}");
            assert!(
                line.contains("KiB/s (") && line.contains(", bw slope=") && line.ends_with('%'),
                "{program}: {line}"
            );
        }
    }

    /// `job` run by `program` in `dir` with a file size limit of 32 KiB and SIGXFSZ ignored (both
    /// inherited across exec), so that every write at or past 32 KiB fails with EFBIG.
    fn run_limited(program: &str, dir: &Path, job: &str) -> (Value, i32, String) {
        std::fs::write(dir.join("job.fio"), job).unwrap();
        // The file exists at its full size: no layout, only the job's writes meet the limit.
        std::fs::write(dir.join("data"), vec![0u8; 64 << 10]).unwrap();
        let tool =
            if program == "fio" { "fio".to_string() } else { format!("{} bench", env!("CARGO_BIN_EXE_zonekit")) };
        let script = format!("trap '' XFSZ; ulimit -f 32; exec {tool} --output-format=json job.fio");
        let o = Command::new("bash").arg("-c").arg(&script).current_dir(dir).output().expect("bash");
        let out = String::from_utf8_lossy(&o.stdout);
        let doc = &out[out.find('{').unwrap_or_else(|| panic!("{program}: {}", text(&o)))..];
        let v = serde_json::from_str(doc).unwrap_or_else(|e| panic!("{program}: {e}: {}", text(&o)));
        (v, o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
    }

    #[test]
    #[ignore]
    fn ignore_error_as_fio() {
        require_fio();
        let base = "[w]\nfilename=data\nioengine=psync\nrw=write\nbs=4k\nsize=64k\n";
        // (options, exit code, total_err): 8 writes succeed, 8 meet EFBIG (27).
        for (extra, code, total_err) in [
            ("ignore_error=,EFBIG\n", 0, Some(8)),
            ("ignore_error=,27:5\nerror_dump=1\n", 0, Some(8)),
            // EFBIG is not in continue_on_error's default list (EIO, EILSEQ): fatal, counted.
            ("continue_on_error=write\n", 1, Some(1)),
            ("continue_on_error=write\nignore_error=,EIO\n", 1, Some(1)),
            // A read list: continue_on_error covers reads only, the write error is fatal.
            ("ignore_error=EFBIG\n", 1, Some(0)),
            ("", 1, None),
        ] {
            let job = format!("{base}{extra}");
            let (f, z) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let (fv, fc, ferr) = run_limited("fio", f.path(), &job);
            let (zv, zc, zerr) = run_limited("zonekit", z.path(), &job);
            assert_eq!((fc, zc), (code, code), "{extra}: fio {ferr}\nzonekit {zerr}");
            let pick = |v: &Value| {
                let j = &v["jobs"][0];
                (j["error"].clone(), j["total_err"].clone(), j["first_error"].clone(), j["write"]["total_ios"].clone())
            };
            assert_eq!(pick(&fv), pick(&zv), "{extra}");
            assert_eq!(zv["jobs"][0]["error"], 27, "{extra}");
            assert_eq!(zv["jobs"][0]["total_err"].as_u64(), total_err, "{extra}");
            // The io_u error lines: every error's with error_dump, the fatal one's otherwise.
            let lines = |e: &str| e.lines().filter(|l| l.contains(": io_u error on file data: File too large")).count();
            assert_eq!(lines(&ferr), lines(&zerr), "{extra}: fio {ferr}\nzonekit {zerr}");
        }
    }

    #[test]
    #[ignore]
    fn percentage_random_share_as_fio() {
        require_fio();
        for perc in ["30", "75"] {
            let job = PERC_RANDOM.replace("percentage_random=30", &format!("percentage_random={perc}"));
            let mut shares = Vec::new();
            for program in ["fio", "zonekit"] {
                let tmp = tempfile::tempdir().unwrap();
                let (_, code) = json_of(program, tmp.path(), &job);
                assert_eq!(code, 0, "{program}");
                let (share, n) = sequential_share(&tmp.path().join("log.txt"));
                assert_eq!(n, 4096, "{program}");
                shares.push(share);
            }
            // 4096 draws: the shares agree within 4 points (about 5 standard deviations).
            assert!((shares[0] - shares[1]).abs() < 4.0, "percentage_random={perc}: fio {shares:?} zonekit");
        }
    }

    #[test]
    #[ignore]
    fn bs_is_seq_rand_as_fio() {
        require_fio();
        for program in ["fio", "zonekit"] {
            let tmp = tempfile::tempdir().unwrap();
            assert_eq!(json_of(program, tmp.path(), SEQ_RAND).1, 0, "{program}");
            let (seq, rand) = lengths(&tmp.path().join("log.txt"));
            // Sequential continuations take the first size; most random I/Os the second (the
            // random map cuts some short where blocks are already done), in both tools.
            let full = rand.iter().filter(|&&l| l == 65536).count();
            assert!(seq.iter().filter(|&&l| l == 4096).count() + 1 >= seq.len(), "{program}: {seq:?}");
            assert!(full * 10 >= rand.len() * 6, "{program}: {full} of {}", rand.len());
        }
    }
}
