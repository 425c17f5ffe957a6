//! fio's terse output (`--output-format=terse`, `terse_version` 2 to 5; 3 is the default): one
//! semicolon-separated line per job report, fields as listed in fio's HOWTO ("Terse output") and
//! printed by `show_thread_status_terse_all`.

use std::fmt::Write as _;

use super::num::{cf, cfmt};
use super::report::{DdirReport, DiskUtilReport, GroupReport, JobReport, RunReport, UNIFIED_MIXED};
use crate::stats::hist::PERCENTILE_LIST_MAX;

/// The terse lines of every job report.
pub fn render(report: &RunReport) -> String {
    let mut out = String::new();
    for job in &report.jobs {
        job_line(report, job, &mut out);
    }
    out
}

fn job_line(report: &RunReport, ts: &JobReport, out: &mut String) {
    let ver = report.terse_version;
    let rs = report.group_of(ts);
    let info = &ts.info;
    if ver == 2 {
        let _ = write!(out, "2;{};{};{}", info.name, info.groupid, info.error);
    } else {
        let _ = write!(out, "{ver};{};{};{};{}", report.version, info.name, info.groupid, info.error);
    }
    // `unified_rw_reporting=mixed`: the read slot holds every direction and nothing follows
    // it; `both`: the directions as one after the others.
    ddir(ts, rs, 0, &ts.ddir[0], ver, out);
    if info.unified_rw != UNIFIED_MIXED {
        ddir(ts, rs, 1, &ts.ddir[1], ver, out);
        if matches!(ver, 2 | 4 | 5) {
            ddir(ts, rs, 2, &ts.ddir[2], ver, out);
        }
    }
    if let Some(m) = &ts.mixed {
        ddir(ts, rs, 0, m, ver, out);
    }
    let _ = write!(out, ";{}%;{}%;{};{};{}", cf(ts.usr_cpu), cf(ts.sys_cpu), ts.ctx, ts.majf, ts.minf);
    for v in ts.iodepth_level {
        let _ = write!(out, ";{}%", cfmt(v, 3, 1));
    }
    let mut lat_u = ts.latency_us;
    lat_u[0] += ts.latency_ns_total;
    for v in lat_u {
        let _ = write!(out, ";{}%", cfmt(v, 3, 2));
    }
    for v in ts.latency_ms {
        let _ = write!(out, ";{}%", cfmt(v, 3, 2));
    }
    if ver >= 3 {
        disk_util(&report.disk_util, out);
    }
    if info.continue_on_error {
        let _ = write!(out, ";{};{}", ts.total_err_count, ts.first_error);
    }
    if !info.description.is_empty() {
        if ver == 2 {
            out.push('\n');
        }
        let _ = write!(out, ";{}", info.description);
    }
    out.push('\n');
}

fn lat4(min: u64, max: u64, mean: f64, dev: f64, samples: u64, out: &mut String) {
    if samples != 0 {
        let _ = write!(out, ";{};{};{};{}", min / 1000, max / 1000, cf(mean / 1000.0), cf(dev / 1000.0));
    } else {
        let _ = write!(out, ";0;0;{};{}", cf(0.0), cf(0.0));
    }
}

fn ddir(ts: &JobReport, rs: Option<&GroupReport>, i: usize, d: &DdirReport, ver: u32, out: &mut String) {
    let (bw, iops) = if d.runtime_ms != 0 { (d.bw_bytes() / 1024, d.iops_int()) } else { (0, 0) };
    let _ = write!(out, ";{};{};{};{}", d.io_bytes >> 10, bw, iops, d.runtime_ms);
    lat4(d.slat.min, d.slat.max, d.slat.mean, d.slat.stddev, d.slat.samples, out);
    lat4(d.clat.min, d.clat.max, d.clat.mean, d.clat.stddev, d.clat.samples, out);
    // Percentiles of lat with lat_percentiles, else of clat with clat_percentiles; an enabled
    // list over no samples prints its entries with 0 (fio computes them over an empty histogram).
    let (on, l) = if ts.lat_percentiles {
        (true, &d.lat)
    } else if ts.clat_percentiles {
        (true, &d.clat)
    } else {
        (false, &d.clat)
    };
    let list = ts.percentile_list.values();
    for k in 0..PERCENTILE_LIST_MAX {
        if !on || k >= list.len() {
            out.push_str(";0%=0");
            continue;
        }
        let v = l.percentiles.as_ref().and_then(|p| p.get(k)).map_or(0, |p| p.1);
        let _ = write!(out, ";{}%={}", cf(list[k]), v / 1000);
    }
    lat4(d.lat.min, d.lat.max, d.lat.mean, d.lat.stddev, d.lat.samples, out);
    if d.bw.samples != 0 {
        let mut p = 100.0;
        if let Some(rs) = rs
            && rs.agg[i] != 0
        {
            p = d.bw.mean * 100.0 / (rs.agg[i] / 1024) as f64;
            if p > 100.0 {
                p = 100.0;
            }
        }
        let _ = write!(out, ";{};{};{}%;{};{}", d.bw.min, d.bw.max, cf(p), cf(d.bw.mean), cf(d.bw.stddev));
    } else {
        let _ = write!(out, ";0;0;{}%;{};{}", cf(0.0), cf(0.0), cf(0.0));
    }
    if ver == 5 {
        let _ = write!(out, ";{}", d.bw.samples);
        let s = &d.iops;
        if s.samples != 0 {
            let _ = write!(out, ";{};{};{};{};{}", s.min, s.max, cf(s.mean), cf(s.stddev), s.samples);
        } else {
            let _ = write!(out, ";0;0;{};{};0", cf(0.0), cf(0.0));
        }
    }
}

/// The disk fields terse appends: `;name;rios;wios;rmerge;wmerge;rticks;wticks;in_queue;util%`.
fn disk_util(disks: &[DiskUtilReport], out: &mut String) {
    for d in disks {
        let _ = write!(
            out,
            ";{};{};{};{};{};{};{};{};{}%",
            d.name,
            d.ios[0],
            d.ios[1],
            d.merges[0],
            d.merges[1],
            d.ticks[0],
            d.ticks[1],
            d.time_in_queue,
            cfmt(d.util, 3, 2)
        );
        if let Some(a) = &d.slaves {
            let _ = write!(
                out,
                ";slaves;{};{};{};{};{};{};{};{}%",
                a.ios[0],
                a.ios[1],
                a.merges[0],
                a.merges[1],
                a.ticks[0],
                a.ticks[1],
                a.time_in_queue,
                cfmt(a.max_util, 3, 2)
            );
        }
    }
}
