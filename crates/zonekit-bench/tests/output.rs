//! zonekit's printers against real fio 3.33 output, byte for byte. Each recorded run
//! (`testdata/fio/<case>.out`, from `testdata/fio/record.sh`) was printed by fio with
//! `--output-format=json+,normal,terse`, so one run gives all three texts. The report is rebuilt
//! from the run's JSON (which carries every number), the values JSON lacks and that differ from
//! run to run anyway (pid, the report time of each job block, `jobs=N`, the error text) are taken
//! from fio's normal text, and zonekit's terse, JSON and normal texts must equal fio's.

mod common;
use common::parse_json;
use std::path::PathBuf;

use zonekit_bench::output::json::Json;
use zonekit_bench::output::normal::{JobHeader, numjobs_continuation, starting_line, version_line};
use zonekit_bench::output::{OutputFormats, RunReport, json_out, normal, render, terse};

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/fio")
}

/// A recorded run split into what fio printed before the run, the terse lines, the JSON
/// document (with its newline) and the normal report.
struct Recorded {
    name: String,
    header: String,
    terse: String,
    json: String,
    normal: String,
}

fn recorded() -> Vec<Recorded> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(testdata()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "out") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(terse_at) = text.find("\n3;").map(|i| i + 1) else { continue };
        let json_at = text.find("\n{\n").unwrap() + 1;
        let json_end = text[json_at..].find("\n}\n").unwrap() + json_at + 3;
        out.push(Recorded {
            name: path.file_stem().unwrap().to_string_lossy().into_owned(),
            header: text[..terse_at].to_string(),
            terse: text[terse_at..json_at].to_string(),
            json: text[json_at..json_end].to_string(),
            normal: text[json_end..].to_string(),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(out.len() >= 12, "recorded runs: {}", out.len());
    out
}

/// The report of a recorded run, with pid, time, `jobs=` and error text from fio's normal text.
fn report_of(r: &Recorded) -> RunReport {
    let doc = parse_json(r.json.trim_end()).unwrap();
    let mut report = RunReport::from_fio_json(&doc).unwrap();
    assert_eq!(report.version, "fio-3.33");
    let mut blocks = r.normal.lines().filter(|l| l.contains(": (groupid=") && l.contains(", jobs="));
    for job in report.jobs.iter_mut().filter(|j| j.has_io()) {
        let line = blocks.next().unwrap_or_else(|| panic!("{}: no block for job {}", r.name, job.info.name));
        let rest = line.strip_prefix(&format!("{}: (groupid=", job.info.name)).unwrap();
        let jobs = rest.split(", jobs=").nth(1).unwrap();
        let (members, rest) = jobs.split_once("): err=").unwrap();
        job.info.members = members.parse().unwrap();
        let (err_part, rest) = rest.split_once(": pid=").unwrap();
        if let Some((_, verror)) = err_part.split_once(" (") {
            job.info.verror = verror.strip_suffix(')').unwrap().to_string();
        }
        let (pid, time) = rest.split_once(": ").unwrap();
        job.info.pid = pid.parse().unwrap();
        job.info.time = time.to_string();
    }
    report
}

#[test]
fn normal_output_equals_fio() {
    for r in recorded() {
        let report = report_of(&r);
        assert_eq!(normal::render(&report), r.normal, "normal output of {}", r.name);
    }
}

#[test]
fn terse_output_equals_fio() {
    for r in recorded() {
        let report = report_of(&r);
        assert_eq!(terse::render(&report), r.terse, "terse output of {}", r.name);
    }
}

#[test]
fn json_plus_output_equals_fio() {
    for r in recorded() {
        let report = report_of(&r);
        assert_eq!(json_out::render(&report, true), r.json, "json+ output of {}", r.name);
    }
}

#[test]
fn plain_json_drops_only_the_bins() {
    for r in recorded() {
        let report = report_of(&r);
        let plus = parse_json(&json_out::render(&report, true)).unwrap();
        let plain = parse_json(&json_out::render(&report, false)).unwrap();
        assert_eq!(strip_bins(plus), plain, "{}", r.name);
    }
}

fn strip_bins(j: Json) -> Json {
    match j {
        Json::Object(m) => {
            Json::Object(m.into_iter().filter(|(k, _)| k != "bins").map(|(k, v)| (k, strip_bins(v))).collect())
        }
        Json::Array(a) => Json::Array(a.into_iter().map(strip_bins).collect()),
        other => other,
    }
}

#[test]
fn all_formats_in_fios_order() {
    // fio prints terse, then JSON, then normal, whatever order --output-format lists them in.
    for r in recorded() {
        let report = report_of(&r);
        let formats = OutputFormats::parse("normal,terse,json+").unwrap();
        let want = format!("{}{}{}", r.terse, r.json, r.normal);
        assert_eq!(render(&report, formats), want, "{}", r.name);
    }
}

#[test]
fn zonekit_version_in_every_format() {
    let r = &recorded()[0];
    let mut report = report_of(r);
    report.version = zonekit_bench::output::version_string();
    let v = format!("zonekit-{}", env!("CARGO_PKG_VERSION"));
    assert!(terse::render(&report).starts_with(&format!("3;{v};")));
    assert!(json_out::render(&report, false).contains(&format!("\"fio version\" : \"{v}\"")));
    assert_eq!(version_line(&report.version), format!("{v}\n"));
}

#[test]
fn header_lines_equal_fio() {
    let runs = recorded();
    // "Laying out IO file" lines come from the runner (and only when it creates the file).
    let header = |name: &str| -> String {
        let h = &runs.iter().find(|r| r.name == name).unwrap().header;
        h.lines().filter(|l| !l.contains(": Laying out IO file")).map(|l| format!("{l}\n")).collect()
    };
    let job = |name: &str, rw: &str, bs: (u64, u64), engine: &str, depth: u32, g: u32| JobHeader {
        name: name.into(),
        groupid: g,
        rw: rw.into(),
        bs: [bs; 3],
        bs_is_seq_rand: false,
        ioengine: engine.into(),
        iodepth: depth,
        kb_base: 1024,
        sig_figs: 4,
    };
    let v = version_line("fio-3.33");
    let want = format!("{}{v}{}", job("pw", "randwrite", (4096, 4096), "psync", 1, 0).line(), starting_line(0, 1));
    assert_eq!(&header("psync-randwrite"), &want);
    let want = format!(
        "{}{}{v}{}",
        job("sep", "read", (4096, 65536), "psync", 1, 0).line(),
        numjobs_continuation(),
        starting_line(0, 2)
    );
    assert_eq!(&header("numjobs-separate"), &want);
    let want =
        format!("{}{v}{}", job("huge", "write", (8 << 20, 8 << 20), "io_uring", 64, 0).line(), starting_line(0, 1));
    assert_eq!(&header("huge-lat"), &want);
    let want = format!(
        "{}{}{}{v}{}",
        job("seqread", "read", (4096, 4096), "psync", 1, 0).line(),
        job("seqwrite", "write", (4096, 4096), "psync", 1, 0).line(),
        job("rand", "randrw", (4096, 4096), "psync", 1, 1).line(),
        starting_line(0, 3)
    );
    assert_eq!(&header("jobfile"), &want);
}

#[test]
fn output_formats_parse() {
    let f = OutputFormats::parse("json+,normal").unwrap();
    assert!(f.json && f.json_plus && f.normal && !f.terse);
    assert!(OutputFormats::parse("xml").is_err());
}

/// Runs `scripts/json-keys.py`: its exit code and output. Panics when python3 cannot run it.
fn json_keys(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/json-keys.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 is not installed (apt-get install python3): this test runs scripts/json-keys.py");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The tests that need a tool besides Rust: ignored by a plain `cargo test`, run by
/// `scripts/test.sh`, and failing there when the tool is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs python3: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn json_keys_script_compares_key_sets() {
        super::json_keys_script_compares_key_sets();
    }
}

fn json_keys_script_compares_key_sets() {
    let d = testdata();
    let (same, _) = json_keys(&[d.join("psync-randwrite.out").as_os_str(), d.join("psync-randwrite.out").as_os_str()]);
    assert_eq!(same, 0);
    // lat_percentiles=1 prints lat_ns percentiles and bins; a run without them lacks those keys,
    // and a tmpfs run has no disk_util.
    let (rc, text) = json_keys(&[d.join("large-lat.out").as_os_str(), d.join("psync-randwrite.out").as_os_str()]);
    assert_eq!(rc, 1);
    assert!(text.contains("missing: jobs[0].write.lat_ns.percentile.99.990000\n"), "{text}");
    assert!(text.contains("missing: disk_util[0].util\n"), "{text}");
    assert!(!text.contains("clat_ns.percentile"), "{text}");
    // The other way round only the echoed options differ (--runtime): large-lat has every other
    // key psync-randwrite has.
    let (rc, text) = json_keys(&[
        "--ignore".as_ref(),
        "job options".as_ref(),
        d.join("psync-randwrite.out").as_os_str(),
        d.join("large-lat.out").as_os_str(),
    ]);
    assert_eq!((rc, text.as_str()), (0, ""));
    // zonekit's JSON of a recorded run has every key fio printed for it (runs with global options
    // and a description, lat/slat percentiles, syncs, disk stats, an error).
    let dir = tempfile::tempdir().unwrap();
    let cases = ["jobfile", "large-lat", "slat-pct", "fsync", "randrw-group", "trim"];
    for r in recorded().into_iter().filter(|r| cases.contains(&r.name.as_str())) {
        let report = report_of(&r);
        let mine = dir.path().join(format!("{}.json", r.name));
        std::fs::write(&mine, json_out::render(&report, true)).unwrap();
        let (rc, text) = json_keys(&[d.join(format!("{}.out", r.name)).as_os_str(), mine.as_os_str()]);
        assert_eq!((rc, text.as_str()), (0, ""), "{}", r.name);
    }
}
