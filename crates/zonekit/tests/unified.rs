//! `unified_rw_reporting` end to end: zonekit alone (what the job fixes: bytes, I/Os, which
//! objects, lines and fields are printed), and side by side with real fio 3.33 on the same jobs
//! (JSON key sets, the numbers the job fixes, the normal output's direction and group lines, the
//! terse field count).
//!
//! The side-by-side tests need `fio` and fail without it (a missing tool must not pass a check).

mod common;

use common::zonekit;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

/// A 1 MiB randrw job in 4 KiB blocks: 256 I/Os, 1 MiB in all, whatever the split.
fn job(mode: &str) -> Vec<String> {
    ["--name=u", "--filename=data", "--size=1m", "--rw=randrw", "--bs=4k", "--ioengine=psync"]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("--unified_rw_reporting={mode}")])
        .collect()
}

fn run(program: &str, args: &[String], format: &str, dir: &Path) -> (String, Output) {
    let out = dir.join(format!("{}.{format}", program.rsplit('/').next().unwrap()));
    let mut cmd = Command::new(program);
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    let o = cmd
        .args(args)
        .arg(format!("--output-format={format}"))
        .arg(format!("--output={}", out.display()))
        .current_dir(dir)
        .output()
        .expect("run");
    assert!(o.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    (std::fs::read_to_string(&out).unwrap(), o)
}

/// The JSON document and its text.
fn json(program: &str, mode: &str, dir: &Path) -> (Value, String) {
    let text = run(program, &job(mode), "json", dir).0;
    (serde_json::from_str(&text).expect("JSON"), text)
}

/// The keys of the (first) job object, in the order printed (fio's layout: six spaces in).
fn job_keys(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("      \""))
        .filter_map(|l| l.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The direction and group lines of the normal output (`  read: IOPS=…` → `  read:`).
fn direction_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            ["read:", "write:", "trim:", "mixed:", "READ:", "WRITE:", "TRIM:", "MIXED:"]
                .iter()
                .any(|p| t.starts_with(p))
        })
        .map(|l| l[..l.find(':').unwrap() + 1].to_string())
        .collect()
}

fn terse_fields(text: &str) -> usize {
    text.lines().next().unwrap().split(';').count()
}

#[test]
fn mixed_and_both_as_fio_prints_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (doc, _) = json(zonekit(), "mixed", d);
    let j = &doc["jobs"][0];
    assert_eq!(j["mixed"]["io_bytes"].as_u64(), Some(1 << 20), "{j}");
    assert_eq!(j["mixed"]["total_ios"].as_u64(), Some(256));
    assert_eq!(j["mixed"]["clat_ns"]["N"].as_u64(), Some(256));
    for gone in ["read", "write", "trim", "sync"] {
        assert!(j.get(gone).is_none(), "{gone} in {j}");
    }
    let (doc, text) = json(zonekit(), "both", d);
    let j = &doc["jobs"][0];
    let keys = job_keys(&text);
    let at = |k: &str| keys.iter().position(|x| x == k).unwrap();
    assert_eq!(at("mixed"), at("sync") + 1, "{keys:?}");
    let (r, w) = (j["read"]["total_ios"].as_u64().unwrap(), j["write"]["total_ios"].as_u64().unwrap());
    assert_eq!(r + w, 256);
    assert_eq!(j["mixed"]["total_ios"].as_u64(), Some(256));
    assert_eq!(j["mixed"]["io_bytes"].as_u64(), Some(1 << 20));
    let rt = |d: &str| j[d]["runtime"].as_u64().unwrap();
    assert_eq!(rt("mixed"), rt("read").max(rt("write")));

    // Numbers spelled as the mode's numbers (0/1/2) mean the same.
    let (text, _) = run(zonekit(), &job("1"), "normal", d);
    assert_eq!(direction_lines(&text), ["  mixed:", "  MIXED:"], "{text}");
    let (text, _) = run(zonekit(), &job("2"), "normal", d);
    assert_eq!(
        direction_lines(&text),
        ["  read:", "  write:", "  mixed:", "   READ:", "  WRITE:", "  MIXED:"],
        "{text}"
    );
    assert!(text.contains("  mixed: IOPS=0, BW=0 (0)(0B/"), "{text}");
    // Terse (version 3): the write fields (41) go with `mixed`, the mixed ones come with `both`
    // (the disk fields at the end depend on the file system the test runs on).
    let fields = |mode: &str| terse_fields(&run(zonekit(), &job(mode), "terse", d).0);
    let none = fields("0");
    assert_eq!(fields("mixed"), none - 41);
    assert_eq!(fields("both"), none + 41);
}

#[test]
fn a_bad_value_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(zonekit()).arg("bench").args(job("all")).current_dir(dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("unified_rw_reporting=all"), "{err}");
}

fn all_keys(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    if let Value::Object(m) = v {
        for (k, v) in m {
            let p = format!("{prefix}/{k}");
            out.insert(p.clone());
            all_keys(v, &p, out);
        }
    }
}

use crate::common::require_fio;

fn same_as_fio() {
    require_fio();
    for mode in ["none", "mixed", "both", "1", "2"] {
        let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let ((fdoc, ftext), (zdoc, ztext)) = (json("fio", mode, fdir.path()), json(zonekit(), mode, zdir.path()));
        assert_eq!(job_keys(&ftext), job_keys(&ztext), "{mode}: the job object's keys, in order");
        let (mut fk, mut zk) = (BTreeSet::new(), BTreeSet::new());
        all_keys(&fdoc["jobs"][0], "", &mut fk);
        all_keys(&zdoc["jobs"][0], "", &mut zk);
        // Percentile and json bins keys follow the latencies measured; "job options" echo as given.
        let fixed = |s: &BTreeSet<String>| -> BTreeSet<String> {
            s.iter().filter(|k| !k.contains("/percentile/") && !k.contains("/bins/")).cloned().collect()
        };
        let missing: Vec<_> = fixed(&fk).difference(&fixed(&zk)).cloned().collect();
        assert!(missing.is_empty(), "{mode}: keys fio prints and zonekit does not: {missing:?}");
        let (fj, zj) = (&fdoc["jobs"][0], &zdoc["jobs"][0]);
        for d in ["mixed", "read", "write"] {
            for k in ["io_bytes", "total_ios"] {
                if d == "mixed" {
                    assert_eq!(fj[d][k], zj[d][k], "{mode}: {d}.{k}");
                } else {
                    // The randrw split is drawn at random: the sum is what the job fixes.
                    assert_eq!(fj[d].is_null(), zj[d].is_null(), "{mode}: {d}");
                }
            }
        }
        let ftext = run("fio", &job(mode), "normal", fdir.path()).0;
        let ztext = run(zonekit(), &job(mode), "normal", zdir.path()).0;
        assert_eq!(direction_lines(&ftext), direction_lines(&ztext), "{mode}:\n{ftext}\n{ztext}");
        let both_line = |t: &str| t.lines().find(|l| l.starts_with("  mixed: IOPS=0, BW=0 (0)(0B/")).is_some();
        assert_eq!(both_line(&ftext), both_line(&ztext), "{mode}");
        let ft = run("fio", &job(mode), "terse", fdir.path()).0;
        let zt = run(zonekit(), &job(mode), "terse", zdir.path()).0;
        assert_eq!(terse_fields(&ft), terse_fields(&zt), "{mode}: terse fields\n{ft}\n{zt}");
    }
}

mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn unified_rw_reporting_as_fio() {
        super::same_as_fio();
    }
}
