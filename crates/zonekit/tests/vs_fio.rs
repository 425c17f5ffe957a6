//! The same size-bounded jobs through real fio (3.33, Debian's package) and `zonekit bench`: I/O
//! counts and bytes per direction identical (mixed jobs too: the same seeds draw fio's read/write
//! split), the same files created, every key of fio's JSON present in zonekit's, and the same I/Os
//! in the same order in `write_iolog` for every random generator and seed rule.
//!
//! Needs `fio`: the tests are `#[ignore]`d for a plain `cargo test`; `scripts/test.sh` runs them and
//! they fail without fio.

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Panics unless fio runs: a comparison with fio must never pass without it.
use crate::common::{listing, raw, require_fio};

fn run(program: &str, args: &[String], dir: &Path) -> Value {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (doc, o) = crate::common::run(program, &args, dir);
    assert!(o.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    assert!(!doc.is_null(), "{program} {args:?}: no JSON report");
    doc
}

/// Every key path of a document (array elements share one path).
fn keys(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let p = format!("{prefix}/{k}");
                out.insert(p.clone());
                keys(v, &p, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| keys(v, &format!("{prefix}[]"), out)),
        _ => {}
    }
}

fn counts(doc: &Value) -> Vec<(String, [u64; 4])> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
            (
                j["jobname"].as_str().unwrap().to_string(),
                [n("read", "total_ios"), n("write", "total_ios"), n("read", "io_bytes"), n("write", "io_bytes")],
            )
        })
        .collect()
}

fn compare(args: &str) {
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args: Vec<String> = args.split_whitespace().map(String::from).collect();
    let f = run("fio", &args, fdir.path());
    let z = run(zonekit, &args, zdir.path());
    let (fc, zc) = (counts(&f), counts(&z));
    assert_eq!(fc.len(), zc.len(), "{args:?}: jobs");
    for ((fname, fv), (zname, zv)) in fc.iter().zip(&zc) {
        assert_eq!(fname, zname);
        assert_eq!(fv, zv, "{args:?}: ios and bytes (read, write)");
    }
    let (mut fk, mut zk) = (BTreeSet::new(), BTreeSet::new());
    keys(&f, "", &mut fk);
    keys(&z, "", &mut zk);
    let missing: Vec<&String> = fk.difference(&zk).collect();
    assert!(missing.is_empty(), "{args:?}: keys fio prints and zonekit does not: {missing:?}");
    assert_eq!(
        listing(fdir.path()).into_iter().filter(|(n, _)| !n.ends_with(".json")).collect::<Vec<_>>(),
        listing(zdir.path()).into_iter().filter(|(n, _)| !n.ends_with(".json")).collect::<Vec<_>>(),
        "{args:?}: the same files"
    );
    assert!(z["fio version"].as_str().unwrap().starts_with("zonekit-"));
}

fn same_jobs_same_counts_as_fio() {
    require_fio();
    compare("--name=seq --filename=data --size=32M --rw=write --bs=64k");
    compare("--name=rr --filename=data --size=32M --rw=randread --bs=4k");
    compare("--name=rw --filename=data --size=64M --rw=randrw --rwmixread=70 --bs=4k");
    compare("--name=nj --filename=data --size=16M --rw=randwrite --bs=4k --numjobs=4 --group_reporting");
    compare("--name=files --directory=. --nrfiles=3 --size=12M --rw=write --bs=4k --numjobs=2");
    compare(
        "--name=mixed --filename=data --size=16M --rw=rw --bs=8k --name=second --filename=data --size=16M --rw=randread --bs=16k --stonewall",
    );
}

/// The I/Os of an iolog, per file in log order: (direction, offset, length).
fn iolog(path: &Path) -> BTreeMap<String, Vec<(String, u64, u64)>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out: BTreeMap<String, Vec<(String, u64, u64)>> = BTreeMap::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if let [_, file, dir @ ("read" | "write" | "trim"), off, len] = w[..] {
            out.entry(file.to_string()).or_default().push((
                dir.to_string(),
                off.parse().unwrap(),
                len.parse().unwrap(),
            ));
        }
    }
    out
}

type Ios = BTreeMap<String, Vec<(String, u64, u64)>>;

/// Run `jobs` (each `--name=NAME …`) as one command line through fio and zonekit, each job with
/// `--write_iolog=NAME.log` (and `--filename=NAME.dat` unless it names a directory): each job's log
/// from either tool.
fn both_iologs(jobs: &[&str]) -> Vec<(String, Ios, Ios)> {
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut args: Vec<String> = Vec::new();
    let mut names = Vec::new();
    for job in jobs {
        let name = job.split_whitespace().next().and_then(|a| a.strip_prefix("--name=")).expect("--name= first");
        args.extend(job.split_whitespace().map(String::from));
        args.push(format!("--write_iolog={name}.log"));
        if !job.contains("--directory=") {
            args.push(format!("--filename={name}.dat"));
        }
        names.push(name.to_string());
    }
    run("fio", &args, fdir.path());
    run(zonekit, &args, zdir.path());
    let log = |dir: &Path, n: &str| iolog(&dir.join(format!("{n}.log")));
    names.into_iter().map(|n| (n.clone(), log(fdir.path(), &n), log(zdir.path(), &n))).collect()
}

/// The same job and seed: the same I/Os, in the same order, as fio's `write_iolog` shows them
/// (offsets, lengths and directions), for each generator, seed rule and random stream. The jobs
/// run together, so each is also a later thread number than the one before (per-thread seeds).
fn same_seed_same_ios_as_fio() {
    require_fio();
    let jobs = [
        // The random map (each block once), fio's default generator and seeds.
        "--name=map --size=2M --rw=randread --bs=4k",
        // No random map: repeated blocks, as fio draws them.
        "--name=nomap --size=2M --rw=randwrite --bs=4k --norandommap",
        // The read/write mix.
        "--name=mix --size=4M --rw=randrw --rwmixread=70 --bs=4k",
        "--name=seqmix --size=2M --rw=rw --bs=8k",
        // Block sizes: a split (with the random map shortening I/Os) and a range.
        "--name=split --size=4M --rw=randwrite --bssplit=4k/50:16k/30:64k/20",
        "--name=range --size=4M --rw=randread --bsrange=4k-64k --norandommap",
        // Each generator.
        "--name=t32 --size=2M --rw=randread --bs=4k --random_generator=tausworthe",
        "--name=t64 --size=2M --rw=randrw --bs=4k --random_generator=tausworthe64",
        "--name=lfsr --size=2M --rw=randread --bs=4k --random_generator=lfsr",
        // Seeds: randseed alone (the mix moves, offsets do not), with randrepeat=0 (both move),
        // allrandrepeat.
        "--name=seed --size=2M --rw=randrw --bs=4k --randseed=1234",
        "--name=seed0 --size=2M --rw=randrw --bs=4k --randseed=1234 --randrepeat=0",
        "--name=all --size=2M --rw=randrw --bs=4k --randseed=99 --allrandrepeat=1",
        // Passes: randrepeat starts every generator over each loop.
        "--name=loops --size=1M --rw=randrw --bs=4k --norandommap --loops=2",
        // Clones: each its own thread number, so its own seeds (files nj.0.0 and nj.1.0).
        "--name=nj --directory=. --size=512k --rw=randrw --bs=4k --numjobs=2",
        // Sequential gaps (fio's get_next_seq_offset): past the end a positive gap starts over
        // from the start, a negative one reads backwards from the end (fio's
        // examples/backwards-read.fio), also from an offset and for a mix.
        "--name=gap --size=1M --rw=read:4k --bs=4k",
        "--name=back --size=1M --rw=read:-8k --bs=4k",
        "--name=backoff --size=512k --offset=256k --rw=read:-8k --bs=4k",
        "--name=gapmix --size=1M --rw=rw:8k --bs=4k",
        // Zoned distributions (fio's zone_state draws the part, then the offset as usual): the
        // random map, a mix, sizes in bytes (fio's examples/rand-zones.fio, jesd219.fio).
        "--name=zoned --size=4M --rw=randread --bs=4k --random_distribution=zoned:50/5:30/15:20/",
        "--name=zonedmix --size=4M --rw=randrw --bs=4k --norandommap --random_distribution=zoned:60/10:40/90",
        "--name=zabs --size=4M --rw=randread --bs=8k --norandommap --random_distribution=zoned_abs:60/1m:40/3m",
        // filesize with size: the range is the file, the bytes are size's (fio's setup_files);
        // size=N% takes that share of each file.
        "--name=fsz --size=256k --filesize=1m --rw=randread --bs=4k",
        "--name=fszp --size=50% --filesize=1m --rw=read --bs=4k",
    ];
    for (job, f, z) in both_iologs(&jobs) {
        assert!(!f.is_empty() && f.values().all(|v| !v.is_empty()), "{job}: fio logged no I/O");
        assert_eq!(f.keys().collect::<Vec<_>>(), z.keys().collect::<Vec<_>>(), "{job}: files");
        for (file, fios) in &f {
            let zios = &z[file];
            let diff = fios.iter().zip(zios).position(|(a, b)| a != b);
            assert!(
                diff.is_none() && fios.len() == zios.len(),
                "{job}: {file}: fio logged {} I/Os, zonekit {}; first difference at #{diff:?}: fio {:?} zonekit {:?}",
                fios.len(),
                zios.len(),
                diff.map(|i| &fios[i]),
                diff.and_then(|i| zios.get(i))
            );
        }
    }
}

/// `randrepeat=0`: seeds from the OS, so no sequence to compare; each run's I/Os are valid (each
/// block once with the random map, in the file, aligned) and two runs differ.
fn randrepeat_off_is_valid_and_varies() {
    require_fio();
    let job = ["--name=r --size=1M --rw=randread --bs=4k --randrepeat=0"];
    let check = |ios: &Ios| -> Vec<u64> {
        let offs: Vec<u64> = ios["r.dat"].iter().map(|x| x.1).collect();
        assert_eq!(offs.len(), 256, "{ios:?}");
        assert!(offs.iter().all(|o| o % 4096 == 0 && *o < 1 << 20));
        assert_eq!(offs.iter().collect::<BTreeSet<_>>().len(), 256, "each block once");
        offs
    };
    let (_, f1, z1) = both_iologs(&job).remove(0);
    let (_, _, z2) = both_iologs(&job).remove(0);
    check(&f1);
    assert_ne!(check(&z1), check(&z2), "two runs, two sequences");
}

/// issue 9's "found trying zonekit as a new user would", each beside fio 3.33 on the same
/// command line.
fn new_user_defects_as_fio() {
    require_fio();
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let both = |args: &[&str]| {
        let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let f = raw("fio", args, fdir.path());
        let z = raw(zonekit, args, zdir.path());
        (f, z, listing(fdir.path()), listing(zdir.path()))
    };
    let text = |o: &std::process::Output| {
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    };

    // Too many jobs: refused at once, exit code 1.
    let (f, z, _, _) = both(&["--name=x", "--ioengine=null", "--size=64k", "--numjobs=100000"]);
    assert_eq!((f.status.code(), z.status.code()), (Some(1), Some(1)), "{}\n{}", text(&f), text(&z));
    for o in [&f, &z] {
        assert!(String::from_utf8_lossy(&o.stderr).contains("error: maximum number of jobs reached."), "{}", text(o));
    }

    // The layout line of several files.
    let (f, z, fl, zl) = both(&["--name=w", "--directory=.", "--nrfiles=3", "--size=12m", "--rw=read"]);
    let line = "w: Laying out IO files (3 files / total 12MiB)\n";
    assert!(text(&f).contains(line) && text(&z).contains(line), "{}\n{}", text(&f), text(&z));
    assert_eq!(fl, zl, "the same files");

    // --status-interval: every report, those while the job runs included, ends with the disk
    // statistics so far (where the files' file system has a device); and a job's line says when
    // the report was made (fio's time(NULL)), not when the job started.
    let local_secs = || {
        let out = Command::new("date").arg("+%H:%M:%S").output().expect("date");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let secs = |hms: &str| -> i64 {
        let v: Vec<i64> = hms.split(':').map(|x| x.parse().unwrap()).collect();
        v[0] * 3600 + v[1] * 60 + v[2]
    };
    let start = secs(&local_secs());
    let args = [
        "--name=s",
        "--filename=data",
        "--size=16m",
        "--rw=randread",
        "--time_based",
        "--runtime=3",
        "--rate_iops=500",
        "--status-interval=1",
    ];
    let (f, z, _, _) = both(&args);
    for o in [&f, &z] {
        let t = text(o);
        let reports = t.matches("Run status group 0 (all jobs):").count();
        assert!(reports >= 2, "{t}");
        let disks = t.matches("Disk stats (read/write):").count();
        assert!(disks == reports || disks == 0, "{t}");
        let last = t.lines().rfind(|l| l.starts_with("s: (groupid=0")).expect("a job line");
        let hms = last.split_whitespace().rev().nth(1).unwrap();
        let after = (secs(hms) - start).rem_euclid(86400);
        assert!((3..60).contains(&after), "{hms} is {after} s after the start: {t}");
    }
    assert_eq!(
        text(&f).contains("Disk stats (read/write):"),
        text(&z).contains("Disk stats (read/write):"),
        "{}\n{}",
        text(&f),
        text(&z)
    );

    // The null engine leaves no file behind, whatever the size.
    let (f, z, fl, zl) = both(&["--name=n", "--ioengine=null", "--size=100g", "--io_size=1m", "--rw=write"]);
    assert!(f.status.success() && z.status.success(), "{}\n{}", text(&f), text(&z));
    assert!(fl.is_empty() && zl.is_empty(), "fio left {fl:?}, zonekit {zl:?}");

    // Zone mode on the null engine's file, which neither tool creates.
    let args = ["--name=z", "--ioengine=null", "--filename=zf", "--size=64m", "--zonemode=zbd", "--zonesize=4m"];
    let (f, z, fl, zl) = both(&[&args[..], &["--rw=write"]].concat());
    assert!(f.status.success() && z.status.success(), "{}\n{}", text(&f), text(&z));
    let line = "  write: IOPS=";
    let io = |o: &std::process::Output| text(o).lines().find(|l| l.starts_with(line)).map(|l| l.contains("(64.0MiB/"));
    assert_eq!((io(&f), io(&z)), (Some(true), Some(true)), "{}\n{}", text(&f), text(&z));
    assert!(fl.is_empty() && zl.is_empty(), "fio left {fl:?}, zonekit {zl:?}");

    // Terse versions: the same fields; only the values and the version string differ.
    for v in ["2", "3", "4", "5"] {
        let tv = format!("--terse-version={v}");
        let args = ["--name=t", "--filename=data", "--size=1m", "--rw=randrw", "--disk_util=0", "--minimal", &tv];
        let (f, z, _, _) = both(&args);
        // Each field with its numbers as `N` (and the version string as `VERSION`).
        let shape = |o: &std::process::Output| -> Vec<String> {
            let out = String::from_utf8_lossy(&o.stdout).into_owned();
            out.trim_end()
                .split(';')
                .map(|x| {
                    if x.starts_with("fio-") || x.starts_with("zonekit-") {
                        return "VERSION".to_string();
                    }
                    let mut s = String::new();
                    for c in x.chars() {
                        if !c.is_ascii_digit() {
                            s.push(c);
                        } else if !s.ends_with('N') {
                            s.push('N');
                        }
                    }
                    s
                })
                .collect()
        };
        assert_eq!(shape(&f), shape(&z), "terse version {v}:\n{}\n{}", text(&f), text(&z));
    }

    // IO depths at iodepth=32 with the asynchronous engines: fio's maps exactly.
    for engine in ["io_uring", "libaio"] {
        let e = format!("--ioengine={engine}");
        let args =
            ["--name=q", "--filename=data", "--size=16m", "--rw=randread", "--iodepth=32", &e, "--output-format=json"];
        let (f, z, _, _) = both(&args);
        let doc = |o: &std::process::Output| -> Value { serde_json::from_slice(&o.stdout).expect("JSON") };
        let (fd, zd) = (doc(&f), doc(&z));
        for key in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
            assert_eq!(fd["jobs"][0][key], zd["jobs"][0][key], "{engine}: {key}");
        }
        assert!(zd["jobs"][0]["iodepth_level"]["32"].as_f64().unwrap() > 99.0);
    }
}

/// Two different jobs in one reporting group: fio's JSON "job options" of the group are its
/// last job's (the name is the first's).
fn group_report_shows_the_last_jobs_options() {
    require_fio();
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let args: Vec<String> =
        "--group_reporting --ioengine=null --name=a --rw=read --size=4k --name=b --rw=write --size=8k"
            .split_whitespace()
            .map(String::from)
            .collect();
    let docs = ["fio", zonekit].map(|p| {
        let d = tempfile::tempdir().unwrap();
        run(p, &args, d.path())
    });
    for doc in &docs {
        assert_eq!(doc["jobs"].as_array().unwrap().len(), 1);
        assert_eq!(doc["jobs"][0]["jobname"], "a");
        assert_eq!(doc["jobs"][0]["job options"]["name"], "b", "{doc}");
    }
    assert_eq!(docs[1]["jobs"][0]["job options"], docs[0]["jobs"][0]["job options"]);
}

/// The tests that need a tool besides Rust: ignored by a plain `cargo test`, run by
/// `scripts/test.sh`, and failing there when the tool is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn same_jobs_same_counts_as_fio() {
        super::same_jobs_same_counts_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn same_seed_same_ios_as_fio() {
        super::same_seed_same_ios_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn randrepeat_off_is_valid_and_varies() {
        super::randrepeat_off_is_valid_and_varies();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn new_user_defects_as_fio() {
        super::new_user_defects_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn group_report_shows_the_last_jobs_options() {
        super::group_report_shows_the_last_jobs_options();
    }
}
