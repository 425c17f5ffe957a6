//! The same size-bounded jobs through real fio (3.33, Debian's package) and `zonekit bench`: I/O
//! counts and bytes per direction identical where the job fixes them, the randrw split within 2 %
//! of fio's, the same files created, and every key of fio's JSON present in zonekit's.
//!
//! Needs `fio`; without it the test says so and passes, unless `ZONEKIT_REQUIRE_FIO=1` (CI sets it).

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn have_fio() -> bool {
    let ok = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var("ZONEKIT_REQUIRE_FIO").is_err(), "fio is required (ZONEKIT_REQUIRE_FIO is set)");
        eprintln!("fio not installed: skipping the comparison");
    }
    ok
}

fn run(program: &str, args: &[String], dir: &Path) -> Value {
    let out = dir.join(format!("{}.json", program.rsplit('/').next().unwrap()));
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
    assert!(o.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).expect("JSON")
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

fn listing(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().len()))
        .collect();
    v.sort();
    v
}

fn compare(args: &str, exact: bool) {
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args: Vec<String> = args.split_whitespace().map(String::from).collect();
    let f = run("fio", &args, fdir.path());
    let z = run(zonekit, &args, zdir.path());
    let (fc, zc) = (counts(&f), counts(&z));
    assert_eq!(fc.len(), zc.len(), "{args:?}: jobs");
    for ((fname, fv), (zname, zv)) in fc.iter().zip(&zc) {
        assert_eq!(fname, zname);
        if exact {
            assert_eq!(fv, zv, "{args:?}: ios and bytes (read, write)");
        } else {
            assert_eq!(fv[0] + fv[1], zv[0] + zv[1], "{args:?}: total I/Os");
            let share = |v: &[u64; 4]| v[2] as f64 / (v[2] + v[3]) as f64;
            assert!(
                (share(fv) - share(zv)).abs() < 0.02,
                "{args:?}: read share fio {} zonekit {}",
                share(fv),
                share(zv)
            );
        }
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

#[test]
fn same_jobs_same_counts_as_fio() {
    if !have_fio() {
        return;
    }
    compare("--name=seq --filename=data --size=32M --rw=write --bs=64k", true);
    compare("--name=rr --filename=data --size=32M --rw=randread --bs=4k", true);
    compare("--name=rw --filename=data --size=64M --rw=randrw --rwmixread=70 --bs=4k", false);
    compare("--name=nj --filename=data --size=16M --rw=randwrite --bs=4k --numjobs=4 --group_reporting", true);
    compare("--name=files --directory=. --nrfiles=3 --size=12M --rw=write --bs=4k --numjobs=2", true);
    compare(
        "--name=mixed --filename=data --size=16M --rw=rw --bs=8k --name=second --filename=data --size=16M --rw=randread --bs=16k --stonewall",
        false,
    );
}
