//! `exec_prerun` / `exec_postrun` (shell commands around a job, their output in
//! `<job>.prerun.txt` / `<job>.postrun.txt`) and `lockmem` (memory locked for the run): what
//! zonekit does, and the same jobs side by side with real fio 3.33.
//!
//! The side-by-side tests need `fio` and fail without it (a missing tool must not pass a check).

mod common;

use common::{ok, run, zonekit};

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn written(doc: &Value) -> u64 {
    doc["jobs"][0]["write"]["io_bytes"].as_u64().unwrap_or_else(|| panic!("write.io_bytes in {doc}"))
}

const JOB: [&str; 5] = ["--name=j", "--filename=f", "--size=64k", "--rw=write", "--bs=4k"];

/// The prerun command runs before the job's I/O (its files already laid out), the postrun
/// after it; their output lands in `j.prerun.txt` and `j.postrun.txt`.
fn pre_and_post_in(program: &str, dir: &Path) {
    let mut args = JOB.to_vec();
    args.push("--exec_prerun=echo pre; wc -c < f");
    args.push("--exec_postrun=echo post; wc -c < f");
    let (doc, o) = run(program, &args, dir);
    ok(&o);
    assert_eq!(written(&doc), 65536, "{program}");
    let pre = std::fs::read_to_string(dir.join("j.prerun.txt")).unwrap();
    let post = std::fs::read_to_string(dir.join("j.postrun.txt")).unwrap();
    // As fio's system("cmd > file 2>&1"): only the last command's output is in the file.
    assert_eq!(pre.trim(), "65536", "{program}: {pre:?}");
    assert_eq!(post.trim(), "65536", "{program}: {post:?}");
}

/// A failing prerun ends the job before any I/O, with no error and no postrun; a failing postrun
/// changes nothing.
fn failing_in(program: &str, dir: &Path) {
    let mut args = JOB.to_vec();
    args.push("--exec_prerun=exit 3");
    args.push("--exec_postrun=touch ran");
    let (doc, o) = run(program, &args, dir);
    ok(&o);
    assert_eq!(written(&doc), 0, "{program}");
    assert_eq!(doc["jobs"][0]["error"].as_u64(), Some(0), "{program}");
    assert!(!dir.join("ran").exists(), "{program}: postrun ran after a failed prerun");

    let mut args = JOB.to_vec();
    args.push("--exec_postrun=exit 3");
    let (doc, o) = run(program, &args, dir);
    ok(&o);
    assert_eq!(written(&doc), 65536, "{program}");
}

/// `lockmem`: the job runs with the memory locked (root may always lock), and does its I/O. The
/// prerun's shell reads the locked size of the process that started it (the job).
fn lockmem_in(program: &str, dir: &Path) {
    let mut args = JOB.to_vec();
    args.push("--lockmem=8m");
    args.push("--exec_prerun=grep VmLck /proc/$PPID/status");
    let (doc, o) = run(program, &args, dir);
    ok(&o);
    assert_eq!(written(&doc), 65536, "{program}");
    let pre = std::fs::read_to_string(dir.join("j.prerun.txt")).unwrap();
    let kb: u64 = pre.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0);
    assert!(kb >= 8192, "{program}: {pre:?}");
}

#[test]
fn prerun_and_postrun_run_around_the_job() {
    let dir = tempfile::tempdir().unwrap();
    pre_and_post_in(zonekit(), dir.path());
}

#[test]
fn a_failing_prerun_skips_the_job() {
    let dir = tempfile::tempdir().unwrap();
    failing_in(zonekit(), dir.path());
}

#[test]
fn normal_output_names_the_saved_output() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(zonekit())
        .arg("bench")
        .args(JOB)
        .arg("--exec_prerun=true")
        .current_dir(dir.path())
        .output()
        .unwrap();
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("j : Saving output of prerun in j.prerun.txt"), "{text}");
}

#[test]
fn lockmem_locks_for_the_run() {
    let dir = tempfile::tempdir().unwrap();
    lockmem_in(zonekit(), dir.path());
}

#[test]
fn bad_lockmem_is_one_line_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o =
        Command::new(zonekit()).arg("bench").args(JOB).arg("--lockmem=lots").current_dir(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("lockmem"), "{err}");
}

use crate::common::require_fio;

mod needs_tools {
    use super::*;

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn exec_prerun_postrun_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            pre_and_post_in(program, dir.path());
            let dir = tempfile::tempdir().unwrap();
            failing_in(program, dir.path());
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn lockmem_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            lockmem_in(program, dir.path());
        }
    }
}
