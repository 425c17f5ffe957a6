//! fio's JSON and json+ output (`show_thread_status_json`, `add_ddir_status_json`,
//! `add_ddir_lat_json`, `json_array_add_disk_util`): the same keys in the same order, `%f` floats.

use super::json::Json;
use super::normal::agg_percent;
use super::num::cfmt;
use super::report::{
    DdirReport, DiskUtilReport, GroupReport, JobReport, LatReport, RunReport, SteadyReport, UNIFIED_MIXED,
};

/// The whole JSON document as fio prints it, with its trailing newline.
pub fn render(report: &RunReport, plus: bool) -> String {
    let mut s = document(report, plus).to_fio_string();
    s.push('\n');
    s
}

/// The JSON document of a run.
pub fn document(report: &RunReport, plus: bool) -> Json {
    let mut root = Json::object();
    root.add_s("fio version", report.version.as_str());
    root.add_u("timestamp", report.timestamp);
    root.add_u("timestamp_ms", report.timestamp_ms);
    root.add_s("time", report.time.as_str());
    if let Some(c) = &report.clock {
        let mut z = Json::object();
        z.add_s("clock", c.clock);
        z.add_s("model", c.model.as_str());
        root.add("zonekit", z);
    }
    if !report.global_options.is_empty() {
        root.add("global options", options(&report.global_options));
    }
    let jobs = report.jobs.iter().map(|j| job(j, report.group_of(j), plus)).collect();
    root.add("jobs", Json::Array(jobs));
    if !report.disk_util.is_empty() {
        root.add("disk_util", Json::Array(report.disk_util.iter().map(disk).collect()));
    }
    if let Some(idle) = &report.idle {
        let mut o = Json::object();
        o.add_f("system", idle.system);
        if idle.percpu {
            for (i, c) in idle.cpus.iter().enumerate() {
                o.add_f(format!("cpu-{i}"), *c);
            }
        }
        o.add_f("unit_mean", idle.unit_mean);
        o.add_f("unit_stddev", idle.unit_stddev);
        root.add("cpu_idleness", o);
    }
    root
}

fn options(opts: &[(String, String)]) -> Json {
    let mut o = Json::object();
    for (k, v) in opts {
        o.add_s(k.as_str(), v.as_str());
    }
    o
}

fn lat_json(l: &LatReport, percentiles: bool, plus: bool) -> Json {
    let mut o = Json::object();
    o.add_u("min", l.min);
    o.add_u("max", l.max);
    o.add_f("mean", l.mean);
    o.add_f("stddev", l.stddev);
    o.add_u("N", l.samples);
    if percentiles
        && l.samples != 0
        && let Some(p) = &l.percentiles
    {
        let mut po = Json::object();
        for (pct, v) in p {
            po.add_u(super::num::cf(*pct), *v);
        }
        o.add("percentile", po);
        if plus {
            let mut b = Json::object();
            for (v, c) in l.bins.iter().flatten() {
                b.add_u(v.to_string(), *c);
            }
            o.add("bins", b);
        }
    }
    o
}

/// One direction's object (`add_ddir_status_json`); `i` is its slot in the group's numbers.
fn ddir_json(ts: &JobReport, rs: Option<&GroupReport>, i: usize, d: &DdirReport, plus: bool) -> Json {
    let mut o = Json::object();
    o.add_u("io_bytes", d.io_bytes);
    o.add_u("io_kbytes", d.io_bytes >> 10);
    let bw_bytes = d.bw_bytes();
    o.add_u("bw_bytes", bw_bytes);
    o.add_u("bw", bw_bytes / 1024);
    let iops = if d.runtime_ms != 0 { 1000.0 * d.total_ios as f64 / d.runtime_ms as f64 } else { 0.0 };
    o.add_f("iops", iops);
    o.add_u("runtime", d.runtime_ms);
    o.add_u("total_ios", d.total_ios);
    o.add_u("short_ios", d.short_ios);
    o.add_u("drop_ios", d.drop_ios);
    o.add("slat_ns", lat_json(&d.slat, ts.slat_percentiles, plus));
    o.add("clat_ns", lat_json(&d.clat, ts.clat_percentiles, plus));
    o.add("lat_ns", lat_json(&d.lat, ts.lat_percentiles, plus));
    if !d.prios.is_empty() {
        // fio's per-priority objects: total latency under lat_percentiles, else completion.
        let key = if ts.lat_percentiles { "lat_ns" } else { "clat_ns" };
        let on = ts.clat_percentiles || ts.lat_percentiles;
        let prios = d
            .prios
            .iter()
            .map(|p| {
                let mut po = Json::object();
                po.add_u("prioclass", u64::from(p.class));
                po.add_u("prio", u64::from(p.level));
                po.add(key, lat_json(&p.lat, on, plus));
                po
            })
            .collect();
        o.add("prios", Json::Array(prios));
    }
    let b = &d.bw;
    let (min, max, agg, mean, dev) = if b.samples != 0 {
        (b.min, b.max, agg_percent(rs, i, b.mean), b.mean, b.stddev)
    } else {
        (0, 0, 0.0, 0.0, 0.0)
    };
    o.add_u("bw_min", min);
    o.add_u("bw_max", max);
    o.add_f("bw_agg", agg);
    o.add_f("bw_mean", mean);
    o.add_f("bw_dev", dev);
    o.add_u("bw_samples", b.samples);
    let s = &d.iops;
    let (min, max, mean, dev) = if s.samples != 0 { (s.min, s.max, s.mean, s.stddev) } else { (0, 0, 0.0, 0.0) };
    o.add_u("iops_min", min);
    o.add_u("iops_max", max);
    o.add_f("iops_mean", mean);
    o.add_f("iops_stddev", dev);
    o.add_u("iops_samples", s.samples);
    o
}

/// One job's object.
pub fn job(ts: &JobReport, rs: Option<&GroupReport>, plus: bool) -> Json {
    let info = &ts.info;
    let mut root = Json::object();
    root.add_s("jobname", info.name.as_str());
    root.add_u("groupid", u64::from(info.groupid));
    root.add("error", Json::Int(i64::from(info.error)));
    root.add("eta", Json::Int(info.eta_sec));
    root.add("elapsed", Json::Int(info.elapsed_sec));
    if !info.job_options.is_empty() {
        root.add("job options", options(&info.job_options));
    }
    // `unified_rw_reporting=mixed`: one "mixed" object in the read slot and nothing else (not
    // even "sync", as fio 3.33 prints it); `both`: "mixed" after "sync".
    let mixed_only = info.unified_rw == UNIFIED_MIXED;
    for (i, name) in ["read", "write", "trim"].iter().enumerate() {
        if mixed_only && i != 0 {
            continue;
        }
        let name = if mixed_only { "mixed" } else { name };
        root.add(name, ddir_json(ts, rs, i, &ts.ddir[i], plus));
    }
    if !mixed_only {
        let mut sync = Json::object();
        sync.add_u("total_ios", ts.sync.total_ios);
        sync.add("lat_ns", lat_json(&ts.sync.lat, ts.lat_percentiles || ts.clat_percentiles, plus));
        root.add("sync", sync);
    }
    if let Some(m) = &ts.mixed {
        root.add("mixed", ddir_json(ts, rs, 0, m, plus));
    }
    root.add_u("job_runtime", ts.job_runtime_ms);
    root.add_f("usr_cpu", ts.usr_cpu);
    root.add_f("sys_cpu", ts.sys_cpu);
    root.add_u("ctx", ts.ctx);
    root.add_u("majf", ts.majf);
    root.add_u("minf", ts.minf);
    let dist = |keys: [&str; 7], v: &[f64; 7]| {
        let mut o = Json::object();
        for (k, x) in keys.iter().zip(v) {
            o.add_f(*k, *x);
        }
        o
    };
    root.add("iodepth_level", dist(["1", "2", "4", "8", "16", "32", ">=64"], &ts.iodepth_level));
    root.add("iodepth_submit", dist(["0", "4", "8", "16", "32", "64", ">=64"], &ts.iodepth_submit));
    root.add("iodepth_complete", dist(["0", "4", "8", "16", "32", "64", ">=64"], &ts.iodepth_complete));
    const R: [&str; 12] = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"];
    for (key, vals) in
        [("latency_ns", &ts.latency_ns[..]), ("latency_us", &ts.latency_us[..]), ("latency_ms", &ts.latency_ms[..])]
    {
        let mut o = Json::object();
        for (k, x) in R.iter().zip(vals) {
            o.add_f(*k, *x);
        }
        root.add(key, o);
    }
    if info.continue_on_error {
        root.add_u("total_err", ts.total_err_count);
        root.add("first_error", Json::Int(i64::from(ts.first_error)));
    }
    if info.latency_depth != 0 {
        root.add_u("latency_depth", u64::from(info.latency_depth));
        root.add_u("latency_target", info.latency_target);
        root.add_f("latency_percentile", info.latency_percentile);
        root.add_u("latency_window", info.latency_window);
    }
    if !info.description.is_empty() {
        root.add_s("desc", info.description.as_str());
    }
    // fio writes the block object only when some block has percentiles.
    if let Some(b) = ts.block.as_ref().filter(|b| !b.percentiles.is_empty()) {
        let mut pct = Json::object();
        for (p, trims) in &b.percentiles {
            pct.add_u(format!("{p:.6}"), u64::from(*trims));
        }
        let mut states = Json::object();
        for (name, n) in crate::stats::block::BlockState::NAMES.iter().zip(b.states) {
            states.add_u(*name, n);
        }
        let mut block = Json::object();
        block.add("percentiles", pct);
        block.add("states", states);
        root.add("block", block);
    }
    if info.count_zone_resets {
        root.add_u("zone_resets", ts.nr_zone_resets);
    }
    if let Some(ss) = &info.steadystate {
        root.add("steadystate", steadystate(ss));
    }
    root
}

/// fio's `steadystate` section. The limit and criterion are printed as C floats (`%f` of a
/// `float`), as fio does.
fn steadystate(ss: &SteadyReport) -> Json {
    let pct = if ss.percent { "%" } else { "" };
    let mut o = Json::object();
    let what = format!("{}{}", if ss.iops { "iops" } else { "bw" }, if ss.slope_crit { "_slope" } else { "" });
    o.add_s("ss", format!("{what}:{}{pct}", cfmt(f64::from(ss.limit as f32), 0, 6)));
    o.add_u("duration", u64::from(ss.dur));
    o.add_u("attained", u64::from(ss.attained));
    o.add_s("criterion", format!("{}{pct}", cfmt(f64::from(ss.criterion as f32), 0, 6)));
    o.add_f("max_deviation", ss.deviation);
    o.add_f("slope", ss.slope);
    let mut data = Json::object();
    data.add_u("bw_mean", ss.bw_mean);
    data.add_u("iops_mean", ss.iops_mean);
    data.add("iops", Json::Array(ss.data.iter().map(|p| Json::Int(p.1 as i64)).collect()));
    data.add("bw", Json::Array(ss.data.iter().map(|p| Json::Int(p.0 as i64)).collect()));
    o.add("data", data);
    o
}

fn disk(d: &DiskUtilReport) -> Json {
    let mut o = Json::object();
    o.add_s("name", d.name.as_str());
    o.add_u("read_ios", d.ios[0]);
    o.add_u("write_ios", d.ios[1]);
    o.add_u("read_merges", d.merges[0]);
    o.add_u("write_merges", d.merges[1]);
    o.add_u("read_ticks", d.ticks[0]);
    o.add_u("write_ticks", d.ticks[1]);
    o.add_u("in_queue", d.time_in_queue);
    o.add_f("util", d.util);
    if let Some(a) = &d.slaves {
        o.add_u("aggr_read_ios", a.ios[0]);
        o.add_u("aggr_write_ios", a.ios[1]);
        o.add_u("aggr_read_merges", a.merges[0]);
        o.add_u("aggr_write_merge", a.merges[1]);
        o.add_u("aggr_read_ticks", a.ticks[0]);
        o.add_u("aggr_write_ticks", a.ticks[1]);
        o.add_u("aggr_in_queue", a.time_in_queue);
        o.add_f("aggr_util", a.max_util);
    }
    o
}
