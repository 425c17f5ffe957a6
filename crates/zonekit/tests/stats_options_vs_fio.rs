//! Statistics options zonekit used to accept and ignore (issue 9): `gtod_reduce`,
//! `disable_lat`, `disable_clat`, `disable_slat`, `disable_bw_measurement`, `clocksource`. Each
//! job runs beside real fio 3.33 and the reports must have the same lines and keys (the figures
//! are measured, so they differ); `clocksource=gettimeofday` must make every latency a whole
//! number of microseconds in both, and `--debug=time` name the source where fio does.
//!
//! The side-by-side tests need `fio` and fail without it (a missing tool must not pass a check).

mod common;

use common::{raw, run, text, zonekit};

use serde_json::Value;

/// The kinds of line of the first job's block of a normal report, in order, repeats merged:
/// `read`, `slat`, `clat`, `lat`, `clat percentiles`, `bw`, `iops`, `lat buckets`, `cpu`…
fn line_kinds(report: &str) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    let block = report.lines().skip_while(|l| !l.contains("(groupid=")).skip(1);
    for l in block.take_while(|l| !l.trim().is_empty()) {
        let t = l.trim();
        if t.starts_with('|') {
            continue;
        }
        let label = t.split(['(', ':', '=']).next().unwrap_or("").trim().to_string();
        // `lat (nsec): min=…` is a statistic; `lat (nsec)   : 20=…` a bucket line.
        let after = t.split_once(')').map_or("", |(_, a)| a);
        let kind = if label == "lat" && !after.starts_with(':') { "lat buckets".to_string() } else { label };
        if kinds.last() != Some(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

/// The first job's direction `dir` of a JSON report: which latency kinds have samples and
/// percentiles, and whether bandwidth and IOPS were sampled.
fn json_shape(doc: &Value, dir: &str) -> Vec<(String, bool)> {
    let d = &doc["jobs"][0][dir];
    let mut v = Vec::new();
    for k in ["slat_ns", "clat_ns", "lat_ns"] {
        v.push((format!("{k} samples"), d[k]["N"].as_u64().unwrap_or(0) > 0));
        v.push((format!("{k} percentiles"), d[k].get("percentile").is_some()));
    }
    v.push(("bw samples".into(), d["bw_samples"].as_u64().unwrap_or(0) > 0));
    v.push(("iops samples".into(), d["iops_samples"].as_u64().unwrap_or(0) > 0));
    v
}

/// A job long enough for two bandwidth samples (`bwavgtime` 250 ms), with submission latency
/// (an asynchronous engine).
const JOB: &[&str] = &[
    "--name=j",
    "--filename=f",
    "--size=16m",
    "--bs=4k",
    "--rw=randread",
    "--ioengine=libaio",
    "--iodepth=4",
    "--time_based",
    "--bwavgtime=250",
    "--iopsavgtime=250",
    "--runtime=600ms",
];

mod needs_tools {
    use super::*;
    use common::require_fio;

    /// Each option, and `gtod_reduce=1` with one measurement turned on again after it: the
    /// normal report's lines and the JSON report's latencies, percentiles and samples are
    /// fio's. (With `disable_clat`, `disable_slat` and `disable_bw` together and `lat` on, fio
    /// 3.33 prints a total latency from a clock it did not read (`lat (msec): min=24386`);
    /// zonekit's is measured. Only the lines' kinds are compared.)
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn reports_as_fio() {
        require_fio();
        let cases: &[&[&str]] = &[
            &[],
            &["--gtod_reduce=1"],
            &["--disable_lat=1"],
            &["--disable_clat=1"],
            &["--disable_slat=1"],
            &["--disable_bw_measurement=1"],
            &["--disable_lat=1", "--disable_clat=1"],
            &["--disable_clat=1", "--disable_slat=1", "--disable_bw=1"],
            &["--gtod_reduce=1", "--disable_clat=0"],
            &["--gtod_reduce=1", "--lat_percentiles=1"],
            &["--gtod_reduce=0", "--disable_slat=1"],
        ];
        for extra in cases {
            let mut normal = Vec::new();
            let mut json = Vec::new();
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let mut args = JOB.to_vec();
                args.extend_from_slice(extra);
                let o = raw(program, &args, dir.path());
                assert!(o.status.success(), "{program} {args:?}: {}", text(&o));
                normal.push(line_kinds(&String::from_utf8_lossy(&o.stdout)));
                let (doc, o) = run(program, &args, dir.path());
                assert!(o.status.success(), "{program} {args:?}: {}", text(&o));
                json.push(json_shape(&doc, "read"));
            }
            assert_eq!(normal[0], normal[1], "{extra:?}: fio's lines, then zonekit's");
            assert_eq!(json[0], json[1], "{extra:?}: fio's JSON, then zonekit's");
        }
        // What the options change, so that the comparison above cannot pass on two reports
        // that both ignore them.
        let dir = tempfile::tempdir().unwrap();
        let kinds = |extra: &[&str]| {
            let mut args = JOB.to_vec();
            args.extend_from_slice(extra);
            line_kinds(&String::from_utf8_lossy(&raw(zonekit(), &args, dir.path()).stdout))
        };
        let all = kinds(&[]);
        for k in ["slat", "clat", "lat", "clat percentiles", "bw", "iops", "lat buckets"] {
            assert!(all.iter().any(|x| x == k), "{k} in {all:?}");
        }
        let reduced = kinds(&["--gtod_reduce=1"]);
        for k in ["slat", "clat", "lat", "clat percentiles", "lat buckets"] {
            assert!(!reduced.iter().any(|x| x == k), "{k} in {reduced:?}");
        }
        assert!(reduced.iter().any(|x| x == "bw"), "{reduced:?}");
    }

    /// `clocksource=gettimeofday` times with microseconds: every latency fio and zonekit report
    /// is a whole number of them; `clock_gettime` and `cpu` are finer. `--debug=time` names the
    /// source (`gettime: clocksource=1`, `2`, `3`) before the job's header line, in both, as
    /// fio calibrates its clock when it parses the option.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn clocksource_as_fio() {
        require_fio();
        let job = ["--name=j", "--size=64m", "--ioengine=null"];
        for (source, number) in [("gettimeofday", 1), ("clock_gettime", 2), ("cpu", 3)] {
            let cs = format!("--clocksource={source}");
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let mut args = job.to_vec();
                args.push(&cs);
                let (doc, o) = run(program, &args, dir.path());
                assert!(o.status.success(), "{program}: {}", text(&o));
                // The extremes are times measured (percentiles are histogram bucket values).
                let read = &doc["jobs"][0]["read"];
                let figures: Vec<u64> = [("clat_ns", "min"), ("clat_ns", "max"), ("lat_ns", "min"), ("lat_ns", "max")]
                    .iter()
                    .map(|(l, k)| read[l][k].as_u64().unwrap())
                    .collect();
                let whole = figures.iter().all(|ns| ns.is_multiple_of(1000));
                assert_eq!(whole, source == "gettimeofday", "{program} {source}: {figures:?}");

                let mut args = vec!["--debug=time"];
                args.extend_from_slice(&job);
                args.push(&cs);
                let o = raw(program, &args, dir.path());
                let t = String::from_utf8_lossy(&o.stdout);
                let lines: Vec<&str> = t.lines().collect();
                let at = |pat: &str| lines.iter().position(|l| l.contains(pat));
                let named: Vec<&&str> = lines.iter().filter(|l| l.contains("gettime: clocksource=")).collect();
                assert_eq!(named.len(), 1, "{program} {source}: {named:?}");
                assert!(named[0].ends_with(&format!("clocksource={number}")), "{program} {source}: {named:?}");
                assert!(at("gettime:") < at("j: (g=0)"), "{program} {source}: calibrated as the option is parsed");
            }
        }
    }
}
