//! Options that change the system calls a job makes on its files, which zonekit used to accept
//! and ignore (issue 9): `fallocate`, `fadvise_hint`, `write_hint`, `create_fsync`,
//! `create_serialize`. Each job runs under strace beside real fio 3.33, and the calls on the
//! job's files (preallocation, truncation, syncs, advice, hints) must be the same, with the
//! same errors and exit codes.
//!
//! The side-by-side tests need `fio` and `strace` and fail without them (a missing tool must not
//! pass a check).

mod common;

use common::{raw, run, text, zonekit};

use serde_json::Value;
use std::path::Path;

/// `fio ARGS` or `zonekit bench ARGS` under `strace -f -e trace=CALLS` in `dir`: the JSON report
/// and the calls made, each as `name(args) = result` with descriptors and addresses replaced
/// (`FD`, `PTR`) and `O_CLOEXEC` (which zonekit's opens add) left out.
fn traced(program: &str, args: &[&str], calls: &str, dir: &Path) -> (Value, Vec<String>) {
    let trace = dir.join("strace.out");
    let mut full = vec!["-f", "-qq", "-e", calls, "-o", trace.to_str().unwrap(), program];
    if program == zonekit() {
        full.push("bench");
    }
    full.extend_from_slice(args);
    let (doc, o) = run("strace", &full, dir);
    let t = std::fs::read_to_string(&trace)
        .unwrap_or_else(|e| panic!("strace wrote no trace ({e}): {}", String::from_utf8_lossy(&o.stderr)));
    std::fs::remove_file(&trace).unwrap();
    let lines = t
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(_, call)| call.trim()))
        // Signals and exits, not calls.
        .filter(|call| !call.starts_with("---") && !call.starts_with("+++"))
        .map(normalise)
        .collect();
    (doc, lines)
}

/// A call of strace's trace with its descriptor and addresses replaced: the first argument of
/// a call on a descriptor, the result of an `openat`, every user-space address (`0x7…`).
fn normalise(call: &str) -> String {
    let call = call.replace("|O_CLOEXEC", "").split_whitespace().collect::<Vec<_>>().join(" ");
    let Some((name, rest)) = call.split_once('(') else { return call };
    let first = rest.split([',', ')']).next().unwrap_or("");
    let rest = if name != "openat" && !first.is_empty() && first.chars().all(|c| c.is_ascii_digit()) {
        format!("FD{}", &rest[first.len()..])
    } else {
        rest.to_string()
    };
    let rest = match rest.rsplit_once(" = ") {
        Some((args, res)) if name == "openat" && res.chars().all(|c| c.is_ascii_digit()) => format!("{args} = FD"),
        _ => rest,
    };
    let words: Vec<String> = rest
        .split(' ')
        .map(|w| {
            let bare = w.trim_end_matches([',', ')']);
            if bare.starts_with("0x7") && bare.len() > 8 { w.replacen(bare, "PTR", 1) } else { w.to_string() }
        })
        .collect();
    format!("{name}({}", words.join(" "))
}

/// [`run`], reading the report past the lines fio logs into its output file before it.
/// Also the lines of both outputs and of the file before the report.
fn run_json(program: &str, args: &[&str], dir: &Path) -> (Value, std::process::Output, String) {
    let outdir = tempfile::tempdir().unwrap();
    let out = outdir.path().join("out.json");
    let output = format!("--output={}", out.display());
    let mut full = args.to_vec();
    full.extend(["--output-format=json", output.as_str()]);
    let o = raw(program, &full, dir);
    let t = std::fs::read_to_string(&out).unwrap_or_default();
    let at = t.find("\n{").map_or(0, |i| i + 1);
    let lines = format!("{}{}", text(&o), &t[..at]);
    (serde_json::from_str(&t[at..]).unwrap_or(Value::Null), o, lines)
}

/// The calls on file `name` and on descriptors (preallocation, truncation, syncs, advice,
/// hints), from a trace of `openat` and those calls.
fn file_calls(lines: &[String], name: &str) -> Vec<String> {
    let quoted = format!("\"{name}\"");
    lines.iter().filter(|l| !l.starts_with("openat") || l.contains(&quoted)).cloned().collect()
}

const FILE_CALLS: &str = "trace=openat,unlink,fallocate,ftruncate,fsync,fadvise64,fcntl";

/// Drop the `fcntl` calls that are not write hints (the C library's and Rust's own `F_GETFL`…).
fn hints_only(lines: Vec<String>) -> Vec<String> {
    lines.into_iter().filter(|l| !l.starts_with("fcntl") || l.contains("0x40")).collect()
}

mod needs_tools {
    use super::*;
    use common::require_fio;

    /// `fallocate=` for a job that writes (the file recreated at size by preallocation alone) and
    /// one that reads (preallocated, truncated, written out, synced): every value makes fio's
    /// calls: none, `fallocate(0)` for `native`, `posix` and `1`, `FALLOC_FL_KEEP_SIZE` for
    /// `keep`, `ftruncate` for `truncate`.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn fallocate_makes_fios_calls() {
        require_fio();
        for rw in ["write", "read"] {
            for mode in ["none", "native", "posix", "keep", "truncate", "0", "1"] {
                let mut calls = Vec::new();
                for program in ["fio", zonekit()] {
                    let dir = tempfile::tempdir().unwrap();
                    let (rw, fa) = (format!("--rw={rw}"), format!("--fallocate={mode}"));
                    let args = ["--name=j", "--filename=f", "--size=1m", "--bs=64k", "--ioengine=psync", &rw, &fa];
                    let (doc, lines) = traced(program, &args, FILE_CALLS, dir.path());
                    assert_eq!(doc["jobs"][0]["error"], 0, "{program} {args:?}: {doc}");
                    calls.push(hints_only(file_calls(&lines, "f")));
                }
                assert_eq!(calls[0], calls[1], "rw={rw} fallocate={mode}: fio's calls, then zonekit's");
                let alloc =
                    calls[0].iter().filter(|c| c.starts_with("fallocate") || c.starts_with("ftruncate")).count();
                let expect = match (mode, rw) {
                    ("none" | "0", "write") => 0,
                    ("none" | "0", _) | (_, "write") => 1,
                    _ => 2,
                };
                assert_eq!(alloc, expect, "rw={rw} fallocate={mode}: {:?}", calls[0]);
            }
        }
    }

    /// A reservation the file system refuses (a file past ext4's 16 TiB, or past tmpfs' free
    /// space): `native` goes on silently, `posix` logs `posix_fallocate fails: …`, `keep` and
    /// `truncate` record the job's error (`func=fallocate` / `func=ftruncate`), which ends the
    /// job after its first I/O. Both tools: the same errors, I/Os, lines and exit codes.
    /// (fio's `pid=…, err=…` line does not reach its `--output` file reliably: the job's error
    /// is compared in the report instead.)
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn a_failed_reservation_as_fio() {
        require_fio();
        for mode in ["native", "posix", "keep", "truncate"] {
            let mut seen = Vec::new();
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let fa = format!("--fallocate={mode}");
                let args = [
                    "--name=j",
                    "--filename=big",
                    "--size=20t",
                    "--rw=write",
                    "--number_ios=2",
                    "--ioengine=psync",
                    &fa,
                ];
                // fio logs its errors on standard error and in its output (here the JSON file),
                // zonekit on standard error.
                let (doc, o, all) = run_json(program, &args, dir.path());
                let err = all.replace("fio:", "zonekit:");
                let mut lines: Vec<String> =
                    err.lines().filter(|l| l.contains("posix_fallocate")).map(str::to_string).collect();
                // fio writes its error lines twice (standard error and its output) when given
                // `--output`.
                lines.dedup();
                let job = &doc["jobs"][0];
                let size = std::fs::metadata(dir.path().join("big")).map(|m| m.len()).unwrap_or(0);
                seen.push((o.status.code(), job["error"].clone(), job["write"]["total_ios"].clone(), lines, size));
            }
            assert_eq!(seen[0], seen[1], "fallocate={mode}: fio, then zonekit");
            if mode == "posix" {
                assert_eq!(seen[0].3.len(), 1, "{:?}", seen[0]);
            }
            if mode == "keep" || mode == "truncate" {
                assert_eq!(seen[0].2, 1, "fallocate={mode}: the job stops after its first I/O: {:?}", seen[0]);
                assert_ne!(seen[0].1, 0, "fallocate={mode}: {:?}", seen[0]);
            }
        }
    }

    /// `fadvise_hint`: the advice each tool gives as it opens the file, over the job's range,
    /// after dropping its cache (`invalidate`): by the job's pattern with `1` (the default),
    /// as told with `random` and `sequential`, none with `0`.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn fadvise_hint_advises_as_fio() {
        require_fio();
        let cases: &[&[&str]] = &[
            &["--rw=read"],
            &["--rw=randread"],
            &["--rw=read", "--fadvise_hint=0"],
            &["--rw=read", "--fadvise_hint=random"],
            &["--rw=randread", "--fadvise_hint=sequential"],
            &["--rw=randwrite", "--offset=64k", "--size=512k"],
            &["--rw=read", "--invalidate=0"],
            &["--rw=read", "--ioengine=mmap", "--fadvise_hint=0"],
            &["--rw=randread", "--ioengine=mmap"],
        ];
        for extra in cases {
            let mut calls = Vec::new();
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                std::fs::write(dir.path().join("f"), vec![7u8; 1 << 20]).unwrap();
                let mut args = vec!["--name=j", "--filename=f", "--size=1m", "--bs=64k", "--ioengine=psync"];
                args.extend_from_slice(extra);
                let (doc, lines) = traced(program, &args, "trace=fadvise64,madvise", dir.path());
                assert_eq!(doc["jobs"][0]["error"], 0, "{program} {args:?}: {doc}");
                // The mapping's advice, not the allocator's madvise calls.
                let advice = |l: &String| {
                    !l.starts_with("madvise") && !l.starts_with("<...")
                        || l.contains("MADV_SEQUENTIAL")
                        || l.contains("MADV_RANDOM")
                };
                calls.push(lines.into_iter().filter(advice).collect::<Vec<_>>());
            }
            assert_eq!(calls[0], calls[1], "{extra:?}: fio's calls, then zonekit's");
        }
    }

    /// `write_hint`: `F_SET_RW_HINT` on each file as it is opened (buffered), the open file's
    /// `F_SET_FILE_RW_HINT` with `direct=1`, which Linux 5.17 and later refuse: the job then
    /// fails with fio's `fcntl write hint` error, no I/O done, exit code 1.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn write_hint_sets_fios_hint() {
        require_fio();
        let cases: &[&[&str]] = &[
            &["--rw=write", "--write_hint=short"],
            &["--rw=read", "--write_hint=none"],
            &["--rw=randwrite", "--write_hint=extreme"],
            &["--rw=write", "--write_hint=long", "--direct=1"],
        ];
        for extra in cases {
            let mut seen = Vec::new();
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                std::fs::write(dir.path().join("f"), vec![7u8; 1 << 20]).unwrap();
                let mut args = vec!["--name=j", "--filename=f", "--size=1m", "--bs=64k", "--ioengine=psync"];
                args.extend_from_slice(extra);
                let (doc, lines) = traced(program, &args, "trace=fcntl", dir.path());
                let job = &doc["jobs"][0];
                let ios =
                    job["read"]["total_ios"].as_u64().unwrap_or(0) + job["write"]["total_ios"].as_u64().unwrap_or(0);
                let hints: Vec<String> = lines.into_iter().filter(|l| l.contains("0x40")).collect();
                seen.push((job["error"].clone(), ios, hints));
            }
            assert_eq!(seen[0], seen[1], "{extra:?}: fio, then zonekit");
            assert_eq!(seen[0].2.len(), 1, "{extra:?}: one hint per open: {:?}", seen[0]);
        }
        // The refused hint, as each tool reports it.
        let mut lines = Vec::new();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            let args = ["--name=j", "--filename=f", "--size=1m", "--rw=write", "--write_hint=short", "--direct=1"];
            let o = raw(program, &args, dir.path());
            let t = text(&o).replace("fio:", "zonekit:");
            let line =
                t.lines().find(|l| l.contains("write hint")).map(|l| l.split(", err=").last().unwrap().to_string());
            lines.push((o.status.code(), line));
        }
        assert_eq!(lines[0], lines[1], "fio, then zonekit");
    }

    /// `create_fsync`: a file written out (a job that reads) is synced once laid out, unless
    /// `create_fsync=0`; a file only preallocated (a job that writes) never is.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn create_fsync_syncs_as_fio() {
        require_fio();
        for (cf, rw, expect) in [("1", "read", 1), ("0", "read", 0), ("1", "write", 0), ("0", "write", 0)] {
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let (cf_a, rw_a) = (format!("--create_fsync={cf}"), format!("--rw={rw}"));
                let args = ["--name=j", "--filename=f", "--size=1m", &cf_a, &rw_a];
                let (_, lines) = traced(program, &args, "trace=fsync,fdatasync", dir.path());
                assert_eq!(lines.len(), expect, "{program} create_fsync={cf} rw={rw}: {lines:?}");
            }
        }
    }

    /// `create_serialize`: with `1` every job's file is laid out before any job does I/O; with
    /// `0` a job lays out its own as it starts, after its `startdelay`, while the other job is
    /// already writing. Where the second job's layout falls among the first job's writes, in
    /// both tools.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn create_serialize_lays_out_as_fio() {
        require_fio();
        for cs in ["1", "0"] {
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let cs_a = format!("--create_serialize={cs}");
                let args = [
                    cs_a.as_str(),
                    "--ioengine=psync",
                    "--bs=4k",
                    "--name=a",
                    "--filename=a",
                    "--rw=write",
                    "--size=4m",
                    "--name=b",
                    "--filename=b",
                    "--rw=read",
                    "--size=1m",
                    "--startdelay=300ms",
                ];
                let (doc, lines) = traced(program, &args, "trace=openat,pwrite64", dir.path());
                assert_eq!(doc["jobs"][1]["read"]["io_bytes"], 1 << 20, "{program}: {doc}");
                let at = |pred: &dyn Fn(&String) -> bool| lines.iter().position(pred);
                let b_layout = at(&|l| l.contains("\"b\", O_WRONLY")).expect("b is laid out");
                let a_write = at(&|l| l.starts_with("pwrite64")).expect("a writes");
                assert_eq!(
                    b_layout > a_write,
                    cs == "0",
                    "{program} create_serialize={cs}: b laid out at call {b_layout}, a's first write at {a_write}"
                );
            }
        }
    }
}
