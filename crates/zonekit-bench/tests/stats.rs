//! The recording side against fio itself: fio's per-I/O logs (`write_lat_log`, `log_avg_msec=0`)
//! hold every slat, clat and lat value of a run in the order fio recorded them. Replaying them
//! through [`ThreadStats`] must give the numbers fio printed in that run's JSON (min, max, `%f`
//! mean and stddev from fio's running mean/variance, percentiles and json+ bins, the `lat (usec)`
//! buckets, per-I/O bandwidth and IOPS samples), and the logs zonekit writes must equal fio's
//! files byte for byte. Plus the recording rules that logs cannot show: interval samples,
//! `group_reporting` merges, depth buckets.

mod common;
use common::parse_json;
use std::path::{Path, PathBuf};

use zonekit_bench::output::json::Json;
use zonekit_bench::output::num::cf;
use zonekit_bench::output::{JobInfo, JobReport, LatReport};
use zonekit_bench::stats::log::{LogConfig, LogKind};
use zonekit_bench::stats::{CpuTimes, Ddir, IoStat, JobStats, StatsConfig, ThreadStats};

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/fio")
}

#[derive(Debug, Clone, Copy)]
struct Line {
    time: u64,
    value: u64,
    ddir: usize,
    bs: u64,
    offset: u64,
}

fn read_log(path: &Path) -> Vec<Line> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<u64> = l.split(", ").map(|t| t.parse().unwrap()).collect();
            let offset = if f.len() == 6 { f[4] } else { 0 };
            Line { time: f[0], value: f[1], ddir: f[2] as usize, bs: f[3], offset }
        })
        .collect()
}

fn json_of(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find("\n{\n").unwrap() + 1;
    let end = text[start..].find("\n}\n").unwrap() + start + 2;
    parse_json(&text[start..end]).unwrap()
}

const MS: u64 = 1_000_000;

fn check_lat(case: &str, what: &str, mine: &LatReport, fio: &Json) {
    let u = |k: &str| fio.get(k).unwrap().as_u64().unwrap();
    let f = |k: &str| cf(fio.get(k).unwrap().as_f64().unwrap());
    assert_eq!((mine.min, mine.max, mine.samples), (u("min"), u("max"), u("N")), "{case} {what}");
    assert_eq!(cf(mine.mean), f("mean"), "{case} {what} mean");
    assert_eq!(cf(mine.stddev), f("stddev"), "{case} {what} stddev");
    if let Some(p) = fio.get("percentile") {
        let want: Vec<(String, u64)> = p.members().iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap())).collect();
        let got: Vec<(String, u64)> = mine.percentiles.as_ref().unwrap().iter().map(|(k, v)| (cf(*k), *v)).collect();
        assert_eq!(got, want, "{case} {what} percentiles");
        let bins: Vec<(u64, u64)> =
            fio.get("bins").unwrap().members().iter().map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap())).collect();
        assert_eq!(mine.bins.as_ref().unwrap(), &bins, "{case} {what} bins");
    }
}

#[test]
fn replaying_fios_per_io_logs_gives_fios_numbers() {
    for (case, prefix, log_offset) in [("logs-unit", "lu", true), ("logs-uring", "lq", false)] {
        let dir = testdata().join(case);
        let log = |kind: &str| read_log(&dir.join(format!("{prefix}_{kind}.1.log")));
        let (slat, clat, lat) = (log("slat"), log("clat"), log("lat"));
        assert_eq!(clat.len(), lat.len());
        assert!(clat.len() >= 500, "{case}: {} I/Os", clat.len());
        let lc = LogConfig { avg_msec: 0, log_max: false, log_offset, ..LogConfig::default() };
        let cfg = StatsConfig {
            bw_log: Some(lc),
            iops_log: Some(lc),
            lat_log: Some(lc),
            min_bs: [4096; 3],
            max_bs: [4096; 3],
            ..StatsConfig::default()
        };
        let mut st = ThreadStats::new(&cfg);
        for s in &slat {
            st.slat_done(Ddir::from_index(s.ddir).unwrap(), s.bs, s.value, s.time * MS);
        }
        for (l, c) in lat.iter().zip(&clat) {
            assert_eq!((l.ddir, l.offset), (c.ddir, c.offset));
            let d = Ddir::from_index(c.ddir).unwrap();
            st.issued(d);
            st.io_done_at(d, c.bs, c.offset, None, c.value, l.value, c.time * MS);
        }
        let end = clat.last().unwrap().time * MS;
        let js = st.finish(end, end, CpuTimes::default());
        let report = JobReport::from_stats(&js, JobInfo::default());
        let doc = json_of(&testdata().join(format!("{case}.out")));
        let job = &doc.get("jobs").unwrap().elements()[0];
        for (i, name) in ["read", "write", "trim"].iter().enumerate() {
            let fio = job.get(name).unwrap();
            let d = &report.ddir[i];
            check_lat(case, &format!("{name} slat"), &d.slat, fio.get("slat_ns").unwrap());
            check_lat(case, &format!("{name} clat"), &d.clat, fio.get("clat_ns").unwrap());
            check_lat(case, &format!("{name} lat"), &d.lat, fio.get("lat_ns").unwrap());
            let u = |k: &str| fio.get(k).unwrap().as_u64().unwrap();
            let f = |k: &str| cf(fio.get(k).unwrap().as_f64().unwrap());
            assert_eq!(
                (d.bw.min, d.bw.max, d.bw.samples),
                (u("bw_min"), u("bw_max"), u("bw_samples")),
                "{case} {name}"
            );
            assert_eq!((cf(d.bw.mean), cf(d.bw.stddev)), (f("bw_mean"), f("bw_dev")), "{case} {name} bw");
            assert_eq!((d.iops.min, d.iops.max, d.iops.samples), (u("iops_min"), u("iops_max"), u("iops_samples")));
            assert_eq!(d.io_bytes, u("io_bytes"), "{case} {name} bytes");
            assert_eq!(d.total_ios, u("total_ios"), "{case} {name} ios");
        }
        for (key, mine) in [
            ("latency_ns", &report.latency_ns[..]),
            ("latency_us", &report.latency_us[..]),
            ("latency_ms", &report.latency_ms[..]),
        ] {
            let want: Vec<String> =
                job.get(key).unwrap().members().iter().map(|(_, v)| cf(v.as_f64().unwrap())).collect();
            let got: Vec<String> = mine.iter().map(|v| cf(*v)).collect();
            assert_eq!(got, want, "{case} {key}");
        }
        // The logs zonekit writes are fio's files, name for name and byte for byte (the bw log's
        // per-I/O rate is bytes * 10^6 / clat, as fio computes it).
        let out = tempfile::tempdir().unwrap();
        let written = st.write_logs(out.path(), |_| prefix.to_string(), 1, true).unwrap();
        let mut names: Vec<String> =
            written.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        names.sort();
        let mut want: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        want.sort();
        assert_eq!(names, want, "{case} log names");
        for n in &names {
            let mine = std::fs::read_to_string(out.path().join(n)).unwrap();
            let fio = std::fs::read_to_string(dir.join(n)).unwrap();
            assert_eq!(mine.lines().count(), fio.lines().count(), "{case} {n}");
            for (i, (m, f)) in mine.lines().zip(fio.lines()).enumerate() {
                // fio stamps each log when it adds to it; the replay gives one time per I/O (the
                // clat log's), so the lat log's time column may differ by a ms.
                let skip_time = n.ends_with("_lat.1.log");
                let cut = |l: &str| if skip_time { l.split_once(", ").unwrap().1.to_string() } else { l.to_string() };
                assert_eq!(cut(m), cut(f), "{case} {n} line {}", i + 1);
            }
        }
    }
}

#[test]
fn averaged_logs_have_fios_shape() {
    // fio 3.33 with log_avg_msec=100 (testdata/fio/logs-avg): latency logs close a window only
    // when it is full, so their times are multiples of 100; bw/iops logs take the interval
    // samples (every bwavgtime = log_avg_msec) and log bs 0; a direction's lines follow each other.
    let dir = testdata().join("logs-avg");
    for kind in ["clat", "lat"] {
        let lines = read_log(&dir.join(format!("la_{kind}.1.log")));
        assert!(lines.len() >= 18);
        assert!(lines.iter().all(|l| l.time % 100 == 0 && l.bs == 0 && l.offset == 0));
    }
    // The same shape from zonekit: 2 I/Os per ms for 1 s, both directions. The first clat window
    // holds 3001..=3100 ns (mean 3050.5, logged rounded half up).
    let lc = LogConfig { avg_msec: 100, log_max: false, log_offset: false, ..LogConfig::default() };
    let mut cfg = StatsConfig { bw_log: Some(lc), iops_log: Some(lc), lat_log: Some(lc), ..StatsConfig::default() };
    cfg.resolve_log_avg(false, false);
    assert_eq!((cfg.bw_avg_msec, cfg.iops_avg_msec), (100, 100));
    let mut st = ThreadStats::new(&cfg);
    for ms in 1..=1000u64 {
        for d in [Ddir::Read, Ddir::Write] {
            st.issued(d);
            st.io_done(d, 4096, None, 3000 + ms, 3200 + ms, ms * MS);
        }
        st.tick(ms * MS);
    }
    st.finish(1000 * MS, 1000 * MS, CpuTimes::default());
    for log in st.logs() {
        let text = log.render();
        let lines: Vec<&str> = text.lines().collect();
        match log.kind() {
            LogKind::Clat | LogKind::Lat => {
                assert_eq!(lines.len(), 20, "{:?}: {text}", log.kind());
                assert_eq!(
                    lines[0],
                    if log.kind() == LogKind::Clat { "100, 3051, 0, 0, 0" } else { "100, 3251, 0, 0, 0" }
                );
            }
            LogKind::Bw => {
                // 4096 B per ms = 4000 KiB/s; interval samples every 100 ms, closed within the
                // 1 ms slack (so at 99 ms first, as fio's bw logs show uneven times).
                assert_eq!(lines[0], "99, 4000, 0, 0, 0");
                assert_eq!(lines[1], "99, 4000, 1, 0, 0");
            }
            LogKind::Iops => assert_eq!(lines[0], "99, 1000, 0, 0, 0"),
            LogKind::Slat => assert!(lines.is_empty()),
            LogKind::ClatHist => unreachable!("no histogram log is configured"),
        }
    }
}

#[test]
fn interval_samples_need_io_in_the_interval() {
    // fio's __add_samples: a direction gets a sample only for intervals in which it moved bytes.
    let mut st = ThreadStats::new(&StatsConfig::default());
    let mut t = 0;
    for ms in 1..=2000u64 {
        t = ms * MS;
        if ms <= 990 {
            st.io_done(Ddir::Read, 8192, None, 1000, 1100, t);
        }
        st.tick(t);
    }
    let js = st.finish(t, t, CpuTimes::default());
    let bw = js.bw_stat[0].summary().unwrap();
    // Intervals close within LOG_MSEC_SLACK (1 ms) of bwavgtime: at 499 and 998 ms; the idle
    // second adds nothing.
    assert_eq!(bw.samples, 2);
    assert_eq!(bw.max, 499 * 8192 * 1000 / 499 / 1024);
    assert_eq!(bw.min, 491 * 8192 * 1000 / 499 / 1024);
    assert!(js.bw_stat[1].summary().is_none());
}

#[test]
fn group_reporting_sums_rates_and_merges_latencies() {
    let cfg = StatsConfig::default();
    let run = |lat: u64| {
        let mut st = ThreadStats::new(&cfg);
        for ms in 1..=1000u64 {
            st.issued(Ddir::Write);
            st.queued(1, 1);
            st.submitted(1);
            st.completed(1);
            st.io_done(Ddir::Write, 4096, None, lat + ms, lat + ms + 50, ms * MS);
            st.tick(ms * MS);
        }
        st.finish(1000 * MS, 1000 * MS, CpuTimes { usr_ms: 100, sys_ms: 300, ctx: 5, majf: 0, minf: 7 })
    };
    let (a, b) = (run(1000), run(5000));
    let mut g = a.clone();
    g.merge(&b);
    // Bandwidth and IOPS samples add up: the group did twice the rate.
    let (bw_a, bw_g) = (a.bw_stat[1].summary().unwrap(), g.bw_stat[1].summary().unwrap());
    assert_eq!(bw_g.min, 2 * bw_a.min);
    assert_eq!(bw_g.samples, 2 * bw_a.samples);
    assert!((bw_g.mean - 2.0 * bw_a.mean).abs() < 1e-9);
    // Latencies merge as one stream.
    let mut one = IoStat::new();
    for lat in [1000u64, 5000] {
        for ms in 1..=1000 {
            one.add(lat + ms);
        }
    }
    let (m, o) = (g.clat_stat[1].summary().unwrap(), one.summary().unwrap());
    assert_eq!((m.min, m.max, m.samples), (o.min, o.max, o.samples));
    assert_eq!(cf(m.mean), cf(o.mean));
    assert_eq!(cfmt2(m.stddev), cfmt2(o.stddev));
    assert_eq!(g.io_bytes[1], 2 * 4096 * 1000);
    assert_eq!(g.runtime_ms[1], 1000);
    assert_eq!(g.cpu.ctx, 10);
    assert_eq!(g.total_run_time_ms, 2000);
    // cpu percentages average over the jobs: (200 ms usr) / (2000 ms) = 10 %.
    let r = JobReport::from_stats(&g, JobInfo { members: 2, ..JobInfo::default() });
    assert_eq!(cf(r.usr_cpu), "10.000000");
    assert_eq!(cf(r.sys_cpu), "30.000000");
    let h = g.hist(zonekit_bench::stats::LatKind::Clat, Ddir::Write).unwrap();
    assert_eq!(h.count(), 2000);
}

fn cfmt2(v: f64) -> String {
    format!("{v:.4}")
}

#[test]
fn depth_submit_complete_and_latency_buckets() {
    let mut st = ThreadStats::new(&StatsConfig::default());
    // 8 I/Os committed at once at depth 8, reaped 4 and 4.
    for _ in 0..8 {
        st.issued(Ddir::Read);
    }
    st.queued(8, 8);
    st.submitted(8);
    st.completed(4);
    st.completed(4);
    for (i, clat) in [500u64, 1500, 25_000, 999_999, 1_000_000, 2_500_000_000, 3_000, 40].iter().enumerate() {
        st.io_done(Ddir::Read, 4096, Some(100), *clat, clat + 100, i as u64 * MS);
    }
    let js = st.finish(10 * MS, 10 * MS, CpuTimes::default());
    assert_eq!(js.io_u_map, [0, 0, 0, 8, 0, 0, 0]);
    assert_eq!(js.io_u_submit, [0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(js.io_u_complete, [0, 2, 0, 0, 0, 0, 0]);
    assert_eq!(js.io_u_lat_n, [0, 0, 0, 0, 1, 0, 0, 0, 1, 0]);
    assert_eq!(js.io_u_lat_u, [1, 1, 0, 0, 1, 0, 0, 0, 0, 1]);
    assert_eq!(js.io_u_lat_m, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert_eq!(js.slat_stat[0].samples, 8);
    let r = JobReport::from_stats(&js, JobInfo::default());
    assert_eq!(r.iodepth_level[3], 100.0);
    assert_eq!(r.latency_ms[11], 12.5);
}

#[test]
fn jobstats_without_io_report_zeros() {
    let js = JobStats::new(&StatsConfig::default());
    let r = JobReport::from_stats(&js, JobInfo::default());
    assert!(!r.has_io());
    assert_eq!(r.ddir[0].clat, LatReport::default());
    assert!(r.latency_ns_total.is_nan());
}
