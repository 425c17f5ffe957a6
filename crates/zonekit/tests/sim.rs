//! `zonekit bench` in simulated time on the profiles with a timing model: the clock line and
//! JSON object, determinism, `--clock=real` pacing, `--clock=sim` refusals.

use std::process::{Command, Output};
use std::time::Instant;

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).arg("bench").args(args).output().expect("run zonekit")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The keys of fio's JSON that may differ between two runs of the same job: the wall clock and
/// what the process cost.
const VARYING: &[&str] = &["time", "timestamp", "timestamp_ms", "usr_cpu", "sys_cpu", "ctx", "majf", "minf"];

/// fio's JSON (one key per line) without the lines of the keys that may vary.
fn stable_json(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| {
            let key = l.trim_start().strip_prefix('"').and_then(|k| k.split_once('"')).map(|(k, _)| k);
            !key.is_some_and(|k| VARYING.contains(&k))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Scenario 7 of the guide (4 jobs × QD4 random writes in zone mode) for 30 simulated seconds.
const RANDWRITE: &[&str] = &[
    "--name=zbc",
    "--direct=1",
    "--zonemode=zbd",
    "--offset=140660178944",
    "--numjobs=4",
    "--group_reporting=1",
    "--runtime=30",
    "--ioengine=libaio",
    "--iodepth=4",
    "--rw=randwrite",
    "--bs=256K",
    "--output-format=json",
];

#[test]
fn the_same_seed_gives_the_same_report() {
    for (target, extra) in [
        ("--filename=@smr-hm-15tb", vec![]),
        ("--filename=@zns-zn540", vec!["--offset=0", "--runtime=2", "--max_open_zones=8"]),
    ] {
        let mut args = RANDWRITE.to_vec();
        args.push(target);
        args.extend(extra);
        let wall = Instant::now();
        let a = bench(&args);
        let took = wall.elapsed();
        assert!(a.status.success(), "{}", text(&a));
        let b = bench(&args);
        assert!(b.status.success(), "{}", text(&b));
        let (ja, jb) = (stable_json(&a), stable_json(&b));
        assert!(ja.contains("\"clock\" : \"sim\""), "{ja}");
        assert!(ja.contains("\"write\" : {"), "{ja}");
        if ja != jb {
            let diff: Vec<String> = ja
                .lines()
                .zip(jb.lines())
                .filter(|(x, y)| x != y)
                .take(10)
                .map(|(x, y)| format!("- {x}\n+ {y}"))
                .collect();
            panic!("{target}: two runs differ:\n{}", diff.join("\n"));
        }
        // Simulated time: the job ran its runtime on the simulated clock (fio's runtime in ms).
        assert!(ja.contains("\"job_runtime\" : "), "{ja}");
        eprintln!("{target}: 2 identical runs, {took:?} of wall time each");
    }
}

#[test]
fn normal_output_names_the_clock_and_model() {
    let o = bench(&[
        "--name=s",
        "--filename=@smr-hm-15tb",
        "--zonemode=zbd",
        "--offset=140660178944",
        "--size=512M",
        "--rw=write",
        "--bs=1M",
        "--direct=1",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Starting 1 process\nzonekit: simulated clock, model smr-hdd\n"), "{out}");
    // 512 MiB at the outer diameter of a 7200 rpm disk, at its ≈ 254 MB/s: about two seconds, not
    // the milliseconds of memory.
    let run_ms: u64 = out
        .lines()
        .find(|l| l.trim_start().starts_with("WRITE:"))
        .and_then(|l| l.split("run=").nth(1))
        .and_then(|r| r.split('-').next())
        .and_then(|r| r.trim_end_matches("msec").parse().ok())
        .expect("run= in the group line");
    assert!((1000..=2500).contains(&run_ms), "512 MiB took {run_ms} simulated ms\n{out}");
}

#[test]
fn clock_sim_needs_a_timed_device_and_real_paces() {
    let o = bench(&["--name=j", "--filename=@nullb-small", "--rw=write", "--size=1M", "--clock=sim"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--clock=sim: job j: @nullb-small has no timing model"), "{err}");
    let o = bench(&["--name=j", "--filename=@smr-hm-15tb", "--rw=write", "--size=1M", "--clock=fast"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));

    // Without a model the clock is real and nothing is said about it.
    let o = bench(&["--name=j", "--filename=@nullb-small", "--zonemode=zbd", "--direct=1", "--rw=write", "--size=1M"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("zonekit: "), "{}", text(&o));

    // Real-time pacing: 300 ms of random reads of the conventional zones take 300 ms of wall time.
    let wall = Instant::now();
    let o = bench(&[
        "--name=j",
        "--filename=@smr-hm-15tb",
        "--rw=randread",
        "--bs=4k",
        "--size=1G",
        "--runtime=300ms",
        "--clock=real",
        "--output-format=json",
    ]);
    let took = wall.elapsed();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("\"clock\" : \"real\""), "{out}");
    assert!(took.as_millis() >= 300, "a paced 300 ms run took {took:?}");
}

/// The write section's `runtime` (ms) of fio's JSON.
fn write_runtime_ms(o: &Output) -> u64 {
    let out = String::from_utf8_lossy(&o.stdout);
    let w = out.split("\"write\" : {").nth(1).expect("a write section");
    w.split("\"runtime\" : ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .expect("runtime")
}

#[test]
fn host_io_ns_spends_simulated_time_per_io() {
    // 1024 writes of 4 KiB at queue depth 1 (the conventional zones): each one waits for the
    // last, so 200 µs of the job's own time per I/O adds 1024 × 200 µs ≈ 205 ms to the run.
    let run = |host: &str| {
        let o = bench(&[
            "--name=j",
            "--filename=@smr-hm-15tb",
            "--direct=1",
            "--ioengine=libaio",
            "--iodepth=1",
            "--rw=write",
            "--bs=4k",
            "--size=4M",
            "--output-format=json",
            host,
        ]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("\"clock\" : \"sim\""), "{}", text(&o));
        write_runtime_ms(&o)
    };
    let (none, spent) = (run("--host-io-ns=0"), run("--host-io-ns=200000"));
    assert!(spent >= none + 204 && spent <= none + 215, "without: {none} ms, with 200 µs per I/O: {spent} ms");

    let o = bench(&["--name=j", "--filename=@smr-hm-15tb", "--rw=write", "--size=1M", "--host-io-ns=fast"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--host-io-ns"), "{err}");
}
