//! `zonemode=zbd` (and `strided`) side by side with real fio 3.33 on the same regular file with
//! emulated zones: the same size-bounded jobs with a fixed seed give the same I/O counts and bytes,
//! and the same zone-reset counts (zonekit draws fio's random offsets from fio's seeds), within
//! 10 % only where clones share zones and interleave by timing. The jobs are listed in
//! `testdata/zbd-vs-fio.txt`; `bench/zbd-vs-fio.sh` prints the same comparison as a table.
//!
//! Needs `fio`: the test is `#[ignore]`d for a plain `cargo test`; `scripts/test.sh` runs it and it
//! fails without fio.

mod common;

use std::path::Path;
use std::process::Command;

/// Panics unless fio runs: a comparison with fio must never pass without it.
use crate::common::require_fio;

/// What a run's normal output says: per job block, issued (read, write, trim) and zone resets.
#[derive(Debug, PartialEq)]
struct Outcome {
    issued: Vec<[u64; 3]>,
    resets: u64,
}

fn parse(text: &str) -> Outcome {
    let mut issued = Vec::new();
    let mut resets = 0;
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("issued rwts: total=") {
            let nums: Vec<u64> = rest.split(' ').next().unwrap().split(',').map(|n| n.parse().unwrap()).collect();
            issued.push([nums[0], nums[1], nums[2]]);
        }
        if let Some(i) = line.find(" zone resets") {
            let head = &line[..i];
            let n = head.rsplit(' ').next().unwrap();
            resets += n.parse::<u64>().unwrap();
        }
    }
    Outcome { issued, resets }
}

fn run(program: &str, args: &[String], file: &Path) -> Outcome {
    let mut cmd = Command::new(program);
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    // Global options first, so that they apply to every job of the case.
    let o = cmd.arg(format!("--filename={}", file.display())).arg("--randseed=42").args(args).output().expect("run");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{program} {args:?}: {}{out}", String::from_utf8_lossy(&o.stderr));
    parse(&out)
}

fn compare(file: &Path, args: &str) {
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let args: Vec<String> = args.split_whitespace().map(String::from).collect();
    let f = run("fio", &args, file);
    let z = run(zonekit, &args, file);
    eprintln!("{args:?}: fio {f:?} zonekit {z:?}");
    assert_eq!(f.issued, z.issued, "{args:?}: I/Os issued (read, write, trim)");
    // One job at a time: the same seeds give fio's offsets, so the same zone resets. Clones that
    // share zones (numjobs > 1) interleave as their threads are scheduled, in fio as in zonekit:
    // within 10 % there.
    if args.iter().any(|a| a.starts_with("--numjobs=") && a != "--numjobs=1") {
        let tolerance = (f.resets as f64 * 0.10).floor() as u64;
        assert!(
            f.resets.abs_diff(z.resets) <= tolerance,
            "{args:?}: zone resets fio {} zonekit {} (more than 10 % apart)",
            f.resets,
            z.resets
        );
    } else {
        assert_eq!(f.resets, z.resets, "{args:?}: zone resets");
    }
}

fn zoned_jobs_match_fio() {
    require_fio();
    let base = if Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" };
    let dir = tempfile::tempdir_in(base).unwrap();
    let file = dir.path().join("zoned.img");
    std::fs::File::create(&file).unwrap().set_len(1 << 30).unwrap();
    let cases = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/zbd-vs-fio.txt")).unwrap();
    let cases: Vec<&str> = cases.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert!(cases.len() >= 10, "cases read: {}", cases.len());
    for case in cases {
        compare(&file, case);
    }
}

/// The tests that need a tool besides Rust: ignored by a plain `cargo test`, run by
/// `scripts/test.sh`, and failing there when the tool is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn zoned_jobs_match_fio() {
        super::zoned_jobs_match_fio();
    }
}
