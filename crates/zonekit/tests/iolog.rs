//! I/O logs both ways with real fio 3.33: zonekit's `write_iolog` replays in fio, fio's replays
//! in zonekit (`read_iolog`, versions 2 and 3, the `replay_*` options), and a bad log is one line
//! with exit code 2. Needs `fio` and fails without it.

use serde_json::Value;
use std::process::Command;

#[test]
fn fio_replays_an_iolog_written_by_zonekit() {
    let fio_ok = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(fio_ok, "fio 3.33 is needed for this comparison (apt install fio)");
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zonekit"))
        .args(["bench", "--name=j", "--filename=data", "--size=256k", "--rw=randrw", "--bs=4k", "--fsync=3"])
        .args(["--write_iolog=j.iolog", "--output-format=json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let z: Value = serde_json::from_slice(&o.stdout).unwrap();
    let log = std::fs::read_to_string(dir.path().join("j.iolog")).unwrap();
    let mut lines = log.lines();
    assert_eq!(lines.next(), Some("fio version 3 iolog"));
    assert_eq!(lines.next(), Some("0 data add"));
    assert!(log.ends_with(" data close\n"), "{log}");

    let o = Command::new("fio")
        .args(["--name=replay", "--read_iolog=j.iolog", "--output-format=json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let f: Value = serde_json::from_slice(&o.stdout).unwrap();
    let n = |d: &Value, k: &str| d["jobs"][0][k]["total_ios"].as_u64().unwrap();
    for k in ["read", "write", "sync"] {
        assert_eq!(n(&f, k), n(&z, k), "{k}: fio replayed {} of zonekit's {}", n(&f, k), n(&z, k));
    }
    assert_eq!(n(&z, "read") + n(&z, "write"), 64);
}

#[test]
fn an_iolog_that_cannot_be_created_fails_the_job_as_in_fio() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zonekit"))
        .args(["bench", "--name=j", "--filename=data", "--size=64k", "--rw=write"])
        .args(["--write_iolog=no/such/dir/log"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("fopen write iolog: No such file or directory"), "{err}");
    assert!(err.contains("err=22/file:iolog.c:795, func=failed initializing iolog, error=Invalid argument"), "{err}");
}

fn zonekit(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).arg("bench").args(args).current_dir(dir).output().unwrap()
}

fn ios(doc: &Value) -> [u64; 4] {
    let n = |k: &str| doc["jobs"][0][k]["total_ios"].as_u64().unwrap();
    [n("read"), n("write"), n("sync"), doc["jobs"][0]["read"]["io_bytes"].as_u64().unwrap()]
}

#[test]
fn zonekit_replays_an_iolog_written_by_fio() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new("fio")
        .args(["--name=j", "--filename=data", "--size=256k", "--rw=randrw", "--bs=4k", "--fsync=3"])
        .args(["--write_iolog=f.iolog", "--output-format=json"])
        .current_dir(dir.path())
        .output()
        .expect("fio 3.33 is needed for this comparison (apt install fio)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let f: Value = serde_json::from_slice(&o.stdout).unwrap();
    let o = zonekit(dir.path(), &["--name=r", "--read_iolog=f.iolog", "--output-format=json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let z: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(ios(&z), ios(&f), "reads, writes, syncs, read bytes");

    // Version 2 (no times), redirected, without its writes.
    let v2: String = std::fs::read_to_string(dir.path().join("f.iolog"))
        .unwrap()
        .lines()
        .map(|l| {
            if l.starts_with("fio version") {
                "fio version 2 iolog".to_string()
            } else {
                l.split_once(' ').unwrap().1.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect();
    std::fs::write(dir.path().join("v2.iolog"), v2).unwrap();
    let o = zonekit(
        dir.path(),
        &[
            "--name=r",
            "--read_iolog=v2.iolog",
            "--replay_redirect=other",
            "--replay_skip=write",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let z2: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(ios(&z2), [ios(&f)[0], 0, ios(&f)[2], ios(&f)[3]]);
    assert!(dir.path().join("other").exists());
}

#[test]
fn replay_keeps_the_logs_pace_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let log = "fio version 3 iolog\n0 @smr-hm-15tb add\n0 @smr-hm-15tb write 0 65536\n\
               20000000 @smr-hm-15tb write 65536 65536\n20000000 @smr-hm-15tb close\n";
    std::fs::write(dir.path().join("t.iolog"), log).unwrap();
    // On a simulated drive: 20 s of the log's time take no wall time.
    let run = |extra: &[&str]| {
        let mut a = vec!["--name=r", "--read_iolog=t.iolog", "--direct=1", "--zonemode=zbd", "--output-format=json"];
        a.extend_from_slice(extra);
        let o = zonekit(dir.path(), &a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let d: Value = serde_json::from_slice(&o.stdout).unwrap();
        d["jobs"][0]["write"]["runtime"].as_u64().unwrap()
    };
    let paced = run(&[]);
    assert!((20_000..20_100).contains(&paced), "{paced}");
    let half = run(&["--replay_time_scale=200"]);
    assert!((10_000..10_100).contains(&half), "{half}");
    assert!(run(&["--replay_no_stall=1"]) < 1000);
}

#[test]
fn a_bad_iolog_is_one_line_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[u8], &str)] = &[
        (b"fio version 3 iolog\n0 d add\n10 d write 0 40", "line 3: truncated"),
        (b"fio version 3 iolog\n0 d add\n10 d write zero 4096\n", "line 3: offset `zero` is not a number"),
        (b"fio version 3 iolog\n10 d read 0 4096\n", "line 2: d was not added"),
        (b"not a log\n", "not a fio iolog"),
        (&[0x07, 0x74, 0x61, 0x65, 1, 2, 3, 4], "a blktrace file: replaying blktrace is not supported by zonekit"),
    ];
    for (i, (content, want)) in cases.iter().enumerate() {
        let name = format!("bad{i}");
        std::fs::write(dir.path().join(&name), content).unwrap();
        let o = zonekit(dir.path(), &["--name=r", &format!("--read_iolog={name}")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("zonekit: job r: read_iolog={name}: {want}")), "{err}");
    }
    let o = zonekit(dir.path(), &["--name=r", "--read_iolog=missing"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "zonekit: job r: read_iolog=missing: No such file or directory\n");
}
