//! Loads a report from a JSON document that fio (or zonekit) printed, so that recorded fio runs can
//! be printed again in every format and compared with what fio printed. JSON does not carry the
//! pid, the report time of the normal output, `jobs=N`, the error text, or the zone-reset count;
//! those keep their defaults (the caller may fill them in). The terse output's sub-µs share comes
//! from the json+ clat bins, or else is the sum of the (floored) `latency_ns` percentages.

use super::json::Json;
use super::report::{
    DdirReport, DiskAggReport, DiskUtilReport, IdleReport, JobInfo, JobReport, LatReport, PrioReport, RunReport,
    SampleReport, SyncReport, UNIFIED_BOTH, UNIFIED_MIXED,
};
use crate::stats::hist::PercentileList;

fn u(j: &Json, k: &str) -> u64 {
    j.get(k).and_then(Json::as_u64).unwrap_or(0)
}

fn f(j: &Json, k: &str) -> f64 {
    j.get(k).and_then(Json::as_f64).unwrap_or(0.0)
}

fn opts(j: Option<&Json>) -> Vec<(String, String)> {
    j.map(|o| o.members().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default()
}

fn lat(j: Option<&Json>) -> LatReport {
    let Some(j) = j else { return LatReport::default() };
    let percentiles = j
        .get("percentile")
        .map(|p| p.members().iter().map(|(k, v)| (k.parse::<f64>().unwrap_or(0.0), v.as_u64().unwrap_or(0))).collect());
    let bins = j
        .get("bins")
        .map(|b| b.members().iter().map(|(k, v)| (k.parse::<u64>().unwrap_or(0), v.as_u64().unwrap_or(0))).collect());
    LatReport {
        min: u(j, "min"),
        max: u(j, "max"),
        mean: f(j, "mean"),
        stddev: f(j, "stddev"),
        samples: u(j, "N"),
        percentiles,
        bins,
    }
}

fn arr<const N: usize>(j: Option<&Json>) -> [f64; N] {
    let mut out = [0.0; N];
    if let Some(j) = j {
        for (o, (_, v)) in out.iter_mut().zip(j.members()) {
            *o = v.as_f64().unwrap_or(0.0);
        }
    }
    out
}

fn flag(opts: &[&[(String, String)]], key: &str) -> Option<bool> {
    opts.iter().flat_map(|o| o.iter()).find(|(k, _)| k == key).map(|(_, v)| !matches!(v.as_str(), "0" | "false"))
}

fn opt<'a>(opts: &[&'a [(String, String)]], key: &str) -> Option<&'a str> {
    opts.iter().flat_map(|o| o.iter()).find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

fn ddir_of(d: &Json) -> DdirReport {
    DdirReport {
        io_bytes: u(d, "io_bytes"),
        runtime_ms: u(d, "runtime"),
        total_ios: u(d, "total_ios"),
        short_ios: u(d, "short_ios"),
        drop_ios: u(d, "drop_ios"),
        slat: lat(d.get("slat_ns")),
        clat: lat(d.get("clat_ns")),
        lat: lat(d.get("lat_ns")),
        bw: SampleReport {
            min: u(d, "bw_min"),
            max: u(d, "bw_max"),
            mean: f(d, "bw_mean"),
            stddev: f(d, "bw_dev"),
            samples: u(d, "bw_samples"),
        },
        iops: SampleReport {
            min: u(d, "iops_min"),
            max: u(d, "iops_max"),
            mean: f(d, "iops_mean"),
            stddev: f(d, "iops_stddev"),
            samples: u(d, "iops_samples"),
        },
        prios: d
            .get("prios")
            .map(|a| {
                a.elements()
                    .iter()
                    .map(|p| PrioReport {
                        class: u(p, "prioclass") as u32,
                        level: u(p, "prio") as u32,
                        lat: lat(p.get("clat_ns").or_else(|| p.get("lat_ns"))),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn job(j: &Json, global: &[(String, String)]) -> JobReport {
    let job_options = opts(j.get("job options"));
    let all: [&[(String, String)]; 2] = [&job_options, global];
    let percentile_list =
        opt(&all, "percentile_list").and_then(PercentileList::parse).unwrap_or_else(PercentileList::fio_default);
    let info = JobInfo {
        name: j.get("jobname").and_then(Json::as_str).unwrap_or_default().to_string(),
        description: j.get("desc").and_then(Json::as_str).unwrap_or_default().to_string(),
        groupid: u(j, "groupid") as u32,
        error: u(j, "error") as i32,
        eta_sec: j.get("eta").and_then(Json::as_i64).unwrap_or(0),
        elapsed_sec: j.get("elapsed").and_then(Json::as_i64).unwrap_or(0),
        continue_on_error: j.get("total_err").is_some(),
        latency_depth: u(j, "latency_depth") as u32,
        latency_target: u(j, "latency_target"),
        latency_percentile: f(j, "latency_percentile"),
        latency_window: u(j, "latency_window"),
        kb_base: opt(&all, "kb_base").and_then(|v| v.parse().ok()).unwrap_or(1024),
        unit_bits: opt(&all, "unit_base") == Some("1"),
        sig_figs: opt(&all, "significant_figures").and_then(|v| v.parse().ok()).unwrap_or(4),
        job_options: job_options.clone(),
        unified_rw: if j.get("mixed").is_none() {
            0
        } else if j.get("read").is_none() {
            UNIFIED_MIXED
        } else {
            UNIFIED_BOTH
        },
        ..JobInfo::default()
    };
    // `unified_rw_reporting`: `mixed` prints only a "mixed" object (in the read slot), `both`
    // prints it after the others.
    let mixed_only = j.get("mixed").is_some() && j.get("read").is_none();
    let mixed = j.get("mixed").filter(|_| !mixed_only).map(ddir_of);
    let ddir = ["read", "write", "trim"].map(|name| {
        let name = if mixed_only && name == "read" { "mixed" } else { name };
        j.get(name).map(ddir_of).unwrap_or_default()
    });
    let sync = j
        .get("sync")
        .map(|s| SyncReport { total_ios: u(s, "total_ios"), lat: lat(s.get("lat_ns")) })
        .unwrap_or_default();
    let latency_ns: [f64; 10] = arr(j.get("latency_ns"));
    // fio's terse folds the exact share of I/Os under 1 µs into its first µs bucket. json+ clat
    // bins give it exactly (1000 ns is a bucket boundary); otherwise add up the (floored) shares.
    let total_rw: u64 = ddir.iter().map(|d| d.total_ios).sum();
    let clat_bins: Option<Vec<&Vec<(u64, u64)>>> =
        ddir.iter().filter(|d| d.clat.samples != 0).map(|d| d.clat.bins.as_ref()).collect();
    let latency_ns_total = match clat_bins {
        Some(bins) if total_rw != 0 => {
            let under: u64 = bins.iter().flat_map(|b| b.iter()).filter(|(v, _)| *v < 1000).map(|(_, c)| c).sum();
            100.0 * under as f64 / total_rw as f64
        }
        _ => latency_ns.iter().sum(),
    };
    JobReport {
        clat_percentiles: flag(&all, "clat_percentiles").unwrap_or(true),
        lat_percentiles: flag(&all, "lat_percentiles").unwrap_or(false),
        slat_percentiles: flag(&all, "slat_percentiles").unwrap_or(false),
        percentile_list,
        info,
        ddir,
        sync,
        job_runtime_ms: u(j, "job_runtime"),
        usr_cpu: f(j, "usr_cpu"),
        sys_cpu: f(j, "sys_cpu"),
        ctx: u(j, "ctx"),
        majf: u(j, "majf"),
        minf: u(j, "minf"),
        iodepth_level: arr(j.get("iodepth_level")),
        iodepth_submit: arr(j.get("iodepth_submit")),
        iodepth_complete: arr(j.get("iodepth_complete")),
        latency_ns,
        latency_us: arr(j.get("latency_us")),
        latency_ms: arr(j.get("latency_ms")),
        latency_ns_total,
        total_err_count: u(j, "total_err"),
        first_error: u(j, "first_error") as i32,
        nr_zone_resets: 0,
        mixed,
        block: j.get("block").map(block),
    }
}

/// fio's `block` object (`block_error_percentiles`, when some block has percentiles).
fn block(b: &Json) -> crate::stats::block::BlockReport {
    let percentiles = b
        .get("percentiles")
        .map(|p| p.members().iter().map(|(k, v)| (k.parse().unwrap_or(0.0), v.as_u64().unwrap_or(0) as u32)).collect())
        .unwrap_or_default();
    let states = crate::stats::block::BlockState::NAMES.map(|name| b.get("states").map_or(0, |s| u(s, name)));
    crate::stats::block::BlockReport { percentiles, states }
}

fn disk(d: &Json) -> DiskUtilReport {
    let slaves = d.get("aggr_read_ios").map(|_| DiskAggReport {
        ios: [u(d, "aggr_read_ios"), u(d, "aggr_write_ios")],
        merges: [u(d, "aggr_read_merges"), u(d, "aggr_write_merge")],
        ticks: [u(d, "aggr_read_ticks"), u(d, "aggr_write_ticks")],
        time_in_queue: u(d, "aggr_in_queue"),
        max_util: f(d, "aggr_util"),
    });
    DiskUtilReport {
        name: d.get("name").and_then(Json::as_str).unwrap_or_default().to_string(),
        ios: [u(d, "read_ios"), u(d, "write_ios")],
        merges: [u(d, "read_merges"), u(d, "write_merges")],
        ticks: [u(d, "read_ticks"), u(d, "write_ticks")],
        time_in_queue: u(d, "in_queue"),
        util: f(d, "util"),
        slaves,
    }
}

impl RunReport {
    /// A report from a fio JSON (or json+) document. Groups are recomputed from the jobs.
    pub fn from_fio_json(doc: &Json) -> Result<RunReport, String> {
        let jobs_json = doc.get("jobs").ok_or("no \"jobs\" in the document")?;
        let global_options = opts(doc.get("global options"));
        let jobs = jobs_json.elements().iter().map(|j| job(j, &global_options)).collect();
        let disks = doc.get("disk_util").map(|d| d.elements().iter().map(disk).collect()).unwrap_or_default();
        let mut r = RunReport::new(jobs, disks);
        r.version = doc.get("fio version").and_then(Json::as_str).unwrap_or_default().to_string();
        r.timestamp = u(doc, "timestamp");
        r.timestamp_ms = u(doc, "timestamp_ms");
        r.time = doc.get("time").and_then(Json::as_str).unwrap_or_default().to_string();
        r.global_options = global_options;
        r.idle = doc.get("cpu_idleness").map(|c| {
            let cpus: Vec<f64> = (0..).map_while(|i| c.get(&format!("cpu-{i}")).and_then(Json::as_f64)).collect();
            IdleReport {
                percpu: !cpus.is_empty(),
                system: f(c, "system"),
                cpus,
                unit_mean: f(c, "unit_mean"),
                unit_stddev: f(c, "unit_stddev"),
            }
        });
        Ok(r)
    }
}
