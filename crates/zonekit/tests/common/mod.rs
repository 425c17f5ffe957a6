//! Helpers shared by the zonekit crate's end-to-end tests. Each test file includes this module and
//! uses only some of it, hence the `dead_code` allowance.
#![allow(dead_code)]

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// Fails the test when fio is missing: the tests that compare zonekit with fio 3.33 live in
/// `needs_tools` modules, which `scripts/test.sh` runs, and must never pass unseen without fio.
pub fn require_fio() {
    let ok = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(ok, "fio is not installed (apt-get install fio): this test compares zonekit with it");
}

/// The zonekit binary under test.
pub fn zonekit() -> &'static str {
    env!("CARGO_BIN_EXE_zonekit")
}

/// `fio ARGS` or `zonekit bench ARGS` in `dir`, its output as it is.
pub fn raw(program: &str, args: &[&str], dir: &Path) -> Output {
    let mut cmd = Command::new(program);
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    cmd.args(args).current_dir(dir).output().expect("run")
}

/// Standard output then standard error, as text.
pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Runs `program` (fio or zonekit, which gets `bench`) with `args` in `dir`; the JSON report
/// (`Value::Null` when there is none) and the process output.
pub fn run(program: &str, args: &[&str], dir: &Path) -> (Value, Output) {
    // Outside the job's directory: a file system the job fills has no room for the report.
    let outdir = tempfile::tempdir().unwrap();
    let out = outdir.path().join("out.json");
    let mut cmd = Command::new(program);
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    let o = cmd
        .args(args)
        .arg("--output-format=json")
        .arg(format!("--output={}", out.display()))
        .current_dir(dir)
        .output()
        .expect("run");
    let doc = std::fs::read_to_string(&out).ok().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or(Value::Null);
    (doc, o)
}

/// Asserts that the process succeeded, showing its stderr if not.
pub fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The CPUs configured, as glibc's `sysconf(_SC_NPROCESSORS_CONF)` counts them.
pub fn cpus() -> usize {
    std::fs::read_dir("/sys/devices/system/cpu")
        .unwrap()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_prefix("cpu").is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        })
        .count()
}

/// Files in `dir` (name, size), sorted by name.
pub fn listing(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().len()))
        .collect();
    v.sort();
    v
}
