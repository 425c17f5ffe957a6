//! Every job file of `examples/` runs as it is (in a scratch directory), and SIGINT stops a run
//! with fio's message and a report of what ran.

use std::path::Path;
use std::process::{Command, Stdio};

fn zonekit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_zonekit"))
}

#[test]
fn every_example_runs() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut n = 0;
    for e in std::fs::read_dir(&examples).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "fio") {
            continue;
        }
        n += 1;
        let dir = tempfile::tempdir().unwrap();
        let o = zonekit().arg("bench").arg(&path).arg("--output-format=json").current_dir(dir.path()).output().unwrap();
        assert!(o.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&o.stderr));
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        for j in doc["jobs"].as_array().unwrap() {
            assert_eq!(j["error"], 0, "{}", path.display());
            let ios = j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap();
            assert!(ios > 0, "{}: job {} did I/O", path.display(), j["jobname"]);
        }
    }
    assert!(n >= 5, "examples found: {n}");
}

#[test]
fn sigint_stops_with_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let child = zonekit()
        .args([
            "bench",
            "--name=s",
            "--filename=sig.data",
            "--size=8m",
            "--rw=randread",
            "--time_based",
            "--runtime=60",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let it lay the file out and start.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(128), "fio's exit code after a signal");
    assert!(out.contains("zonekit: terminating on signal 2"), "{out}");
    assert!(out.contains("  read: IOPS="), "{out}");
    assert!(out.contains("Run status group 0 (all jobs):"), "{out}");
}
