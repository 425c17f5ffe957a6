//! `write_iolog`: zonekit writes fio's iolog version 3, and real fio 3.33 replays it
//! (`read_iolog`) with the same I/Os by direction. Needs `fio` and fails without it.

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
