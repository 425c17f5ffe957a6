//! fio's built-in profiles (`--profile=tiobench|act`, `profile=` in a job file): the jobs a
//! profile generates, its `--cmdhelp` and act's table, side by side with real fio 3.33.
//!
//! The side-by-side tests need `fio` and fail without it (a missing tool must not pass a check).

mod common;

use common::{raw, run, text, zonekit};

use serde_json::Value;
use std::path::Path;

/// `(name, value)` pairs of a JSON object of strings (sorted by name, as serde_json keeps them).
fn pairs(v: &Value) -> Vec<(String, String)> {
    v.as_object()
        .map(|o| o.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default()
}

/// The lines of the "global options" object of a JSON report as printed: names and values in
/// the report's order, repeated names included.
fn global_lines(report: &str) -> Vec<String> {
    report
        .lines()
        .skip_while(|l| !l.contains("\"global options\" : {"))
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('}'))
        .map(|l| l.trim().trim_end_matches(',').to_string())
        .collect()
}

/// A job of a report: its name, group, options, and (I/Os, bytes) per direction.
type JobSummary = (String, u64, Vec<(String, String)>, [(u64, u64); 3]);

/// The regular files a run left, with their sizes.
type Files = Vec<(String, u64)>;

/// Every job's name, group, options, and (I/Os, bytes) per direction.
fn jobs(doc: &Value) -> Vec<JobSummary> {
    doc["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("no jobs in {doc}"))
        .iter()
        .map(|j| {
            let d = |k: &str| (j[k]["total_ios"].as_u64().unwrap(), j[k]["io_bytes"].as_u64().unwrap());
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
                pairs(&j["job options"]),
                [d("read"), d("write"), d("trim")],
            )
        })
        .collect()
}

/// The regular files under `dir` (one level of subdirectories too), with their sizes.
fn files_left(dir: &Path) -> Files {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            for f in std::fs::read_dir(e.path()).unwrap().map(Result::unwrap) {
                v.push((format!("{name}/{}", f.file_name().to_string_lossy()), f.metadata().unwrap().len()));
            }
        } else {
            v.push((name, e.metadata().unwrap().len()));
        }
    }
    v.sort();
    v
}

fn bench(args: &[&str], dir: &Path) -> std::process::Output {
    raw(zonekit(), args, dir)
}

/// One line on stderr containing `what`, exit code 2, nothing on stdout.
fn one_line_exit_2(args: &[&str], what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let o = bench(args, dir.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("zonekit: ") && err.contains(what), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}");
}

#[test]
fn an_unknown_profile_is_fios_line_and_exit_2() {
    one_line_exit_2(&["--profile=tiotest"], "zonekit: profile 'tiotest' not found");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.fio"), "[global]\nprofile=tiotest\n[j]\nsize=4k\n").unwrap();
    let o = bench(&["p.fio"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("p.fio:2: profile=tiotest: expected one of tiobench, act"));
}

#[test]
fn act_without_devices_and_act_values_fio_divides_by_are_one_line() {
    one_line_exit_2(&["--profile=act"], "act: you need to set IO target(s) with the device-names option");
    one_line_exit_2(&["--profile=act", "--device-names=f", "--threads-per-queue=0"], "threads-per-queue=0");
    one_line_exit_2(&["--profile=act", "--device-names=f", "--large-block-op-kbytes=512"], "large-block-op-kbytes=512");
    // One profile per run.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.fio"), "[global]\nprofile=act\n").unwrap();
    let o = bench(&["--profile=tiobench", "p.fio"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("a run has one profile"), "{}", text(&o));
}

#[test]
fn a_job_file_profile_runs_the_profile_with_its_options() {
    let dir = tempfile::tempdir().unwrap();
    let job = "[global]\nprofile=tiobench\nsize=1\nblock=65536\nnumruns=2\ndir=tio\nthreads=2\n";
    std::fs::write(dir.path().join("t.fio"), job).unwrap();
    let (doc, o) = run(zonekit(), &["t.fio"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let j = jobs(&doc);
    let names: Vec<(&str, u64)> = j.iter().map(|(n, g, _, _)| (n.as_str(), *g)).collect();
    assert_eq!(names, [("seqwrite", 0), ("randwrite", 1), ("seqread", 2), ("randread", 3)]);
    // 1 MiB in 64 KiB blocks, twice, by two threads: 64 I/Os per group.
    assert_eq!(j[0].3, [(0, 0), (64, 4 << 20), (0, 0)]);
    assert_eq!(j[3].3, [(64, 4 << 20), (0, 0), (0, 0)]);
    let tio: Vec<(String, u64)> = files_left(dir.path()).into_iter().filter(|(n, _)| n.starts_with("tio/")).collect();
    assert_eq!(tio.len(), 4, "{tio:?}");
    assert!(tio.iter().all(|(_, s)| *s == 256 << 10), "{tio:?}");
}

#[test]
fn profile_cmdhelp_lists_the_profiles_options() {
    let dir = tempfile::tempdir().unwrap();
    let o = bench(&["--profile=act", "--cmdhelp"], dir.path());
    assert!(o.status.success());
    let s = String::from_utf8_lossy(&o.stdout);
    assert_eq!(s.lines().count(), 7, "{s}");
    assert!(s.starts_with("device-names            : Devices to use\n"), "{s}");
    // Without a profile, fio's general list leaves the profiles' options out.
    let o = bench(&["--cmdhelp"], dir.path());
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(!s.lines().any(|l| l.starts_with("device-names ") || l.starts_with("numruns ")), "{s}");
    assert!(s.lines().any(|l| l.starts_with("block_error_percentiles ")));
}

mod needs_tools {
    use super::*;
    use common::require_fio;

    /// Runs `args` with fio and zonekit, each in a fresh directory prepared by `setup`: both
    /// JSON reports (parsed, and their "global options" lines as printed) and the files each
    /// left.
    fn both(args: &[&str], setup: impl Fn(&Path)) -> [(Value, Vec<String>, Files); 2] {
        require_fio();
        ["fio", zonekit()].map(|p| {
            let dir = tempfile::tempdir().unwrap();
            setup(dir.path());
            let mut a = args.to_vec();
            a.push("--output-format=json");
            let o = raw(p, &a, dir.path());
            let out = String::from_utf8_lossy(&o.stdout).into_owned();
            let doc: Value = out.find('{').and_then(|i| serde_json::from_str(&out[i..]).ok()).unwrap_or(Value::Null);
            assert!(o.status.success() && doc.is_object(), "{p}: {}", text(&o));
            let global = global_lines(&out);
            assert!(!global.is_empty(), "{p}: {out}");
            (doc, global, files_left(dir.path()))
        })
    }

    /// fio's tiobench at its defaults (its size is 4 KiB per MiB of memory; `filesize` and
    /// `io_size` from the command line keep the run small, as they reach the profile's jobs in
    /// both): the same global options, jobs, groups, job options, I/O counts and files.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn tiobench_runs_the_jobs_fio_runs() {
        let [(f, fg, ff), (z, zg, zf)] = both(&["--profile=tiobench", "--filesize=64k", "--io_size=256k"], |_| {});
        assert_eq!(zg, fg);
        assert_eq!(jobs(&z), jobs(&f));
        assert_eq!(jobs(&z)[1].3[1], (64, 256 << 10));
        assert_eq!(zf, ff);
    }

    /// tiobench's own options: fio 3.33 ignores them (its job builder reads other variables), so
    /// zonekit's run is compared with fio running the jobs fio's tiobench writes from them.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn tiobench_options_give_the_jobs_fios_profile_writes() {
        require_fio();
        let spelled = [
            "--buffered=0",
            "--size=1048576",
            "--bs=16384",
            "--loops=2",
            "--directory=tio",
            "--numjobs=2",
            "--timeout=600",
            "--group_reporting",
            "--thread",
            "--overwrite=1",
            "--filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4",
            "--ioengine=sync",
            "--name=seqwrite",
            "--rw=write",
            "--end_fsync=1",
            "--name=randwrite",
            "--stonewall",
            "--rw=randwrite",
            "--end_fsync=1",
            "--name=seqread",
            "--stonewall",
            "--rw=read",
            "--name=randread",
            "--stonewall",
            "--rw=randread",
        ];
        let mk = |d: &Path| std::fs::create_dir(d.join("tio")).unwrap();
        let fd = tempfile::tempdir().unwrap();
        mk(fd.path());
        let (f, o) = run("fio", &spelled, fd.path());
        assert!(o.status.success(), "{}", text(&o));
        let zd = tempfile::tempdir().unwrap();
        mk(zd.path());
        let profile = ["--profile=tiobench", "--size=1", "--block=16384", "--numruns=2", "--dir=tio", "--threads=2"];
        let (z, o) = run(zonekit(), &profile, zd.path());
        assert!(o.status.success(), "{}", text(&o));
        let counts = |d: &Value| jobs(d).into_iter().map(|(n, g, _, c)| (n, g, c)).collect::<Vec<_>>();
        assert_eq!(counts(&z), counts(&f));
        assert_eq!(counts(&z)[0].2[1], (256, 4 << 20), "64 writes per loop, 2 loops, 2 threads: 4 MiB");
        assert_eq!(files_left(zd.path()), files_left(fd.path()));
    }

    /// act's prep phase writes a fixed amount: the same jobs, groups and counts as fio, and the
    /// act table (fio prints it in prep runs too, every slice 0).
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn act_prep_writes_what_fio_writes() {
        let setup = |d: &Path| std::fs::write(d.join("dev"), vec![0u8; 4 << 20]).unwrap();
        let [(f, fg, ff), (z, zg, zf)] =
            both(&["--profile=act", "--device-names=dev", "--prep", "--test-duration=1"], setup);
        assert_eq!(zg, fg);
        assert_eq!(jobs(&z), jobs(&f));
        assert_eq!(jobs(&z)[1].3[1], (1024, 4 << 20));
        assert_eq!(zf, ff);
    }

    /// act's run: the same job headers and options; its table with fio's lines (the numbers are
    /// latencies, so only their shape is compared); the rated I/O counts within 1 %.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn act_prints_fios_table_and_runs_fios_jobs() {
        require_fio();
        let args = ["--profile=act", "--device-names=dev", "--test-duration=1", "--threads-per-queue=2"];
        let outs = ["fio", zonekit()].map(|p| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("dev"), vec![0u8; 16 << 20]).unwrap();
            let o = raw(p, &args, dir.path());
            assert!(o.status.success(), "{p}: {}", text(&o));
            String::from_utf8_lossy(&o.stdout).into_owned()
        });
        // Job headers, then the table (fio's own lines; one slice for one second).
        let shape = |s: &str| -> Vec<String> {
            s.lines()
                .take_while(|l| !l.starts_with("act-read-dev: (groupid"))
                .filter(|l| !l.starts_with("fio-") && !l.starts_with("zonekit-"))
                .map(|l| {
                    if l.starts_with("    1\t") {
                        l.split('\t').map(|c| if c.contains('.') { "N.NN" } else { c }).collect::<Vec<_>>().join("\t")
                    } else {
                        l.replace("FAILED", "PASSED")
                    }
                })
                .collect()
        };
        assert_eq!(shape(&outs[1]), shape(&outs[0]), "zonekit:\n{}\nfio:\n{}", outs[1], outs[0]);
        assert!(shape(&outs[1]).contains(&"    1\tN.NN\tN.NN\tN.NN\tN.NN\tN.NN\tN.NN".to_string()));
        let [(f, fg, _), (z, zg, _)] = both(&args, |d| std::fs::write(d.join("dev"), vec![0u8; 16 << 20]).unwrap());
        assert_eq!(zg, fg);
        let (fj, zj) = (jobs(&f), jobs(&z));
        assert_eq!(zj.len(), 1, "group_reporting: one report");
        assert_eq!((&zj[0].0, zj[0].1, &zj[0].2), (&fj[0].0, fj[0].1, &fj[0].2));
        // 2000 reads and 12 writes a second (within 5 %: a loaded host delays some).
        for (d, want) in [(0, 2000.0), (1, 12.0)] {
            for (who, n) in [("fio", fj[0].3[d].0), ("zonekit", zj[0].3[d].0)] {
                assert!((n as f64 - want).abs() <= want * 0.05 + 1.0, "{who}: {n} I/Os, {want} expected");
            }
        }
    }

    /// Where a profile's jobs sit among the header lines: fio loads the profile once the other
    /// jobs are parsed, so its jobs' lines come after the version line (which fio leaves out when
    /// the profile's are the only jobs), after `--debug=profile`'s `loading profile` line.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn profile_jobs_come_where_fio_prints_them() {
        require_fio();
        let cases: [&[&str]; 3] = [
            &["--profile=tiobench", "--filesize=64k", "--io_size=64k", "--debug=profile"],
            &[
                "--profile=tiobench",
                "--filesize=64k",
                "--io_size=64k",
                "--name=a",
                "--rw=read",
                "--size=8k",
                "--debug=profile",
            ],
            &["--profile=tiobench", "--filesize=64k", "--io_size=64k", "--name=a", "--rw=read", "--size=8k"],
        ];
        for args in cases {
            let [f, z] = ["fio", zonekit()].map(|p| {
                let dir = tempfile::tempdir().unwrap();
                let o = raw(p, args, dir.path());
                assert!(o.status.success(), "{p} {args:?}: {}", text(&o));
                // Up to the `Starting` line, with the tool's name, version and pid made alike.
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .take_while(|l| !l.starts_with("Starting"))
                    .map(|l| {
                        let l = l
                            .replace("fio-3.33", "VERSION")
                            .replace(&format!("zonekit-{}", env!("CARGO_PKG_VERSION")), "VERSION");
                        let l = l.replacen("fio: ", "TOOL: ", 1).replacen("zonekit: ", "TOOL: ", 1);
                        match l.strip_prefix("profile  ") {
                            Some(rest) => format!("profile  PID {}", rest.split_once(' ').map_or("", |(_, m)| m)),
                            None => l,
                        }
                    })
                    .collect::<Vec<_>>()
            });
            assert_eq!(z, f, "{args:?}");
            assert!(z.iter().any(|l| l.starts_with("seqwrite: (g=")), "{z:?}");
        }
    }

    /// `--cmdhelp` after a profile, listed and option by option: fio's text exactly.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn profile_cmdhelp_is_fios() {
        require_fio();
        let dir = tempfile::tempdir().unwrap();
        let opts = [
            ("tiobench", &["size", "block", "numruns", "dir", "threads"][..]),
            (
                "act",
                &[
                    "device-names",
                    "load",
                    "test-duration",
                    "threads-per-queue",
                    "read-req-num-512-blocks",
                    "large-block-op-kbytes",
                    "prep",
                ][..],
            ),
        ];
        for (p, names) in opts {
            let profile = format!("--profile={p}");
            let mut asks = vec!["--cmdhelp".to_string(), "--cmdhelp=all".to_string()];
            asks.extend(names.iter().map(|n| format!("--cmdhelp={n}")));
            for ask in asks {
                let a = [profile.as_str(), ask.as_str()];
                let f = raw("fio", &a, dir.path());
                let z = raw(zonekit(), &a, dir.path());
                assert!(z.status.success(), "{a:?}: {}", text(&z));
                assert_eq!(String::from_utf8_lossy(&z.stdout), String::from_utf8_lossy(&f.stdout), "{a:?}");
            }
        }
    }
}
