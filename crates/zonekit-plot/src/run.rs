//! The figure of `zonekit plot`: for each run (a result file and its logs), a column of four
//! panels: bandwidth over time, IOPS over time, latency over time with percentile bands, and the
//! latency distribution (CDF) from json+ bins.

use crate::figure::{Axis, Band, Figure, Panel, Series, share_rows};
use crate::logs::{Log, LogKind};
use crate::result::{DIRS, RunResult};
use std::collections::BTreeMap;

/// More lines than this in a panel and the jobs are summed (bandwidth, IOPS) or pooled
/// (latency) into one line per direction.
pub const MAX_JOB_LINES: usize = 8;
/// Windows of the latency-over-time panel.
pub const LAT_WINDOWS: usize = 60;

/// A line before it is a [`Series`]: job label, direction, points.
type JobLine = (String, u8, Vec<(f64, f64)>);
/// One latency window: mid time (s), p10, p50, p90, p99 (ns).
pub type LatWindow = (f64, f64, f64, f64, f64);
/// Builds one panel of a run, noting what is missing.
type PanelFn<'a> = &'a dyn Fn(&RunInput, &mut Vec<String>) -> Panel;

/// One run to plot.
#[derive(Debug, Clone)]
pub struct RunInput {
    /// Column heading (the result file's name).
    pub name: String,
    /// The parsed result.
    pub result: RunResult,
    /// Its log files.
    pub logs: Vec<Log>,
}

/// The figure and the one-line notes of what is missing (also shown in the panels).
#[derive(Debug, Clone)]
pub struct RunFigure {
    /// The figure.
    pub figure: Figure,
    /// `RUN: what is missing: the option that adds it`, one per missing piece.
    pub notes: Vec<String>,
}

fn dir_name(d: u8) -> &'static str {
    DIRS.get(d as usize).copied().unwrap_or("?")
}

/// A job's name for a legend: the JSON's name for job N when the result lists every job,
/// else `job N` (group reporting folds jobs together).
fn job_label(run: &RunInput, log: &Log) -> String {
    match log.jobnum {
        Some(n) => match run.result.jobs.get(n as usize - 1).filter(|_| n >= 1) {
            Some(j) => format!("{} (job {n})", j.name),
            None => format!("job {n}"),
        },
        None => "all jobs".into(),
    }
}

fn lat_title(kind: &str) -> &'static str {
    match kind {
        "clat" => "completion latency (clat)",
        "slat" => "submission latency (slat)",
        _ => "total latency (lat)",
    }
}

/// Latency unit for values in ns: (divisor, name).
pub fn lat_unit(max_ns: f64) -> (f64, &'static str) {
    if max_ns >= 10_000_000.0 {
        (1e6, "ms")
    } else if max_ns >= 10_000.0 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

/// The value at fraction `q` of sorted `v` (nearest rank).
fn pct(v: &[u64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[i] as f64
}

/// Lines of a bandwidth or IOPS log kind: one per job and direction, or the sum over jobs per
/// direction when there are many (per time step of the first job's samples).
fn rate_series(run: &RunInput, kind: LogKind, scale: f64) -> Vec<Series> {
    let logs: Vec<&Log> = run.logs.iter().filter(|l| l.kind == kind).collect();
    let mut lines: Vec<JobLine> = Vec::new();
    for l in &logs {
        let mut by_dir: BTreeMap<u8, Vec<(f64, f64)>> = BTreeMap::new();
        if l.per_io() {
            for (d, pts) in per_io_rates(l, kind) {
                lines.push((job_label(run, l), d, pts));
            }
            continue;
        }
        for s in &l.samples {
            by_dir.entry(s.ddir).or_default().push((s.time_ms as f64 / 1000.0, s.value as f64 / scale));
        }
        for (d, pts) in by_dir {
            lines.push((job_label(run, l), d, pts));
        }
    }
    let dirs: std::collections::BTreeSet<u8> = lines.iter().map(|l| l.1).collect();
    if lines.len() > MAX_JOB_LINES {
        // Sum per direction over jobs, in 1-second-or-finer steps: each job's mean in a step.
        let span = lines.iter().flat_map(|l| l.2.iter().map(|p| p.0)).fold(0.0, f64::max);
        let step = (span / 200.0).max(0.001);
        let mut out = Vec::new();
        for (ci, d) in dirs.iter().enumerate() {
            let mut sum: BTreeMap<u64, f64> = BTreeMap::new();
            let mut n = 0;
            for (_, _, pts) in lines.iter().filter(|l| l.1 == *d) {
                n += 1;
                let mut per: BTreeMap<u64, (f64, u32)> = BTreeMap::new();
                for &(t, v) in pts {
                    let e = per.entry((t / step).floor() as u64).or_default();
                    e.0 += v;
                    e.1 += 1;
                }
                for (k, (v, c)) in per {
                    *sum.entry(k).or_default() += v / c as f64;
                }
            }
            let points = sum.into_iter().map(|(k, v)| (k as f64 * step, v)).collect();
            out.push(Series { label: format!("sum of {n} jobs ({})", dir_name(*d)), points, color: ci, dashed: false });
        }
        return out;
    }
    lines
        .into_iter()
        .enumerate()
        .map(|(i, (job, d, points))| {
            let label = if dirs.len() > 1 { format!("{job} {}", dir_name(d)) } else { job };
            Series { label, points, color: i, dashed: false }
        })
        .collect()
}

/// Rates from a per-I/O log (`log_avg_msec=0`: one line per I/O, whose value is that I/O's
/// own rate): bytes (MiB/s) or I/Os (IOPS) completed in each of [`LAT_WINDOWS`] windows, per
/// direction, at the window's middle.
pub fn per_io_rates(l: &Log, kind: LogKind) -> Vec<(u8, Vec<(f64, f64)>)> {
    let t_end = l.samples.iter().map(|s| s.time_ms).max().unwrap_or(0);
    let width = (t_end as f64 / LAT_WINDOWS as f64).max(1.0);
    let mut by: BTreeMap<u8, Vec<f64>> = BTreeMap::new();
    for s in &l.samples {
        let w = ((s.time_ms as f64 / width) as usize).min(LAT_WINDOWS - 1);
        let v = by.entry(s.ddir).or_insert_with(|| vec![0.0; LAT_WINDOWS]);
        v[w] += if kind == LogKind::Bw { s.bs as f64 / 1_048_576.0 } else { 1.0 };
    }
    by.into_iter()
        .map(|(d, v)| {
            let n = ((t_end as f64 / width).ceil() as usize).clamp(1, LAT_WINDOWS);
            let pts = v
                .iter()
                .take(n)
                .enumerate()
                .map(|(i, x)| ((i as f64 + 0.5) * width / 1000.0, x * 1000.0 / width))
                .collect();
            (d, pts)
        })
        .collect()
}

/// The latency logs to use: total latency if present, else completion, else submission.
fn lat_logs(run: &RunInput) -> Vec<&Log> {
    for k in [LogKind::Lat, LogKind::Clat, LogKind::Slat] {
        let v: Vec<&Log> = run.logs.iter().filter(|l| l.kind == k && !l.samples.is_empty()).collect();
        if !v.is_empty() {
            return v;
        }
    }
    Vec::new()
}

/// Percentile bands of per-I/O latency in [`LAT_WINDOWS`] windows of the run, pooled over jobs,
/// per direction: (direction, windows of (mid time s, p10, p50, p90, p99) in ns).
pub fn lat_windows(logs: &[&Log]) -> Vec<(u8, Vec<LatWindow>)> {
    let t_end = logs.iter().flat_map(|l| l.samples.iter().map(|s| s.time_ms)).max().unwrap_or(0);
    let width = (t_end as f64 / LAT_WINDOWS as f64).max(1.0);
    let mut by: BTreeMap<u8, BTreeMap<u64, Vec<u64>>> = BTreeMap::new();
    for l in logs {
        for s in &l.samples {
            let w = ((s.time_ms as f64 / width) as u64).min(LAT_WINDOWS as u64 - 1);
            by.entry(s.ddir).or_default().entry(w).or_default().push(s.value);
        }
    }
    by.into_iter()
        .map(|(d, ws)| {
            let rows = ws
                .into_iter()
                .map(|(w, mut v)| {
                    v.sort_unstable();
                    let mid = (w as f64 + 0.5) * width / 1000.0;
                    (mid, pct(&v, 0.10), pct(&v, 0.50), pct(&v, 0.90), pct(&v, 0.99))
                })
                .collect();
            (d, rows)
        })
        .collect()
}

fn latency_panel(run: &RunInput, notes: &mut Vec<String>, unit: (f64, &str)) -> Panel {
    let logs = lat_logs(run);
    let kind = logs.first().map_or("lat", |l| l.kind.name());
    let mut p = Panel {
        title: format!("{} over time", lat_title(kind)),
        x_label: "time (s)".into(),
        y_label: format!("{kind} ({})", unit.1),
        ..Panel::default()
    };
    if logs.is_empty() {
        let n = "latency over time needs a latency log: add write_lat_log=PREFIX (with log_avg_msec=0 for percentile bands)";
        notes.push(format!("{}: {n}", run.name));
        p.note = Some(n.into());
        return p;
    }
    if logs.iter().all(|l| l.per_io()) {
        let many = lat_windows(&logs);
        for (i, (d, rows)) in many.into_iter().enumerate() {
            let dn = dir_name(d);
            let u = unit.0;
            p.bands.push(Band {
                label: format!("{dn} p10–p90"),
                points: rows.iter().map(|r| (r.0, r.1 / u, r.3 / u)).collect(),
                color: i,
            });
            p.series.push(Series {
                label: format!("{dn} median"),
                points: rows.iter().map(|r| (r.0, r.2 / u)).collect(),
                color: i,
                dashed: false,
            });
            p.series.push(Series {
                label: format!("{dn} p99"),
                points: rows.iter().map(|r| (r.0, r.4 / u)).collect(),
                color: i,
                dashed: true,
            });
        }
        return p;
    }
    // Averaged logs: one mean line per job and direction.
    let n = "percentile bands need per-I/O latency logs: set log_avg_msec=0 with write_lat_log";
    notes.push(format!("{}: {n}", run.name));
    p.note = Some(n.into());
    let mut i = 0;
    for l in logs.iter().take(MAX_JOB_LINES) {
        let mut by_dir: BTreeMap<u8, Vec<(f64, f64)>> = BTreeMap::new();
        for s in &l.samples {
            by_dir.entry(s.ddir).or_default().push((s.time_ms as f64 / 1000.0, s.value as f64 / unit.0));
        }
        for (d, points) in by_dir {
            p.series.push(Series {
                label: format!("{} {} mean", job_label(run, l), dir_name(d)),
                points,
                color: i,
                dashed: false,
            });
            i += 1;
        }
    }
    p
}

/// The CDF of json+ bins: (log10 of latency in the unit, cumulative %).
pub fn cdf(bins: &[(u64, u64)], unit: f64) -> Vec<(f64, f64)> {
    let total: u64 = bins.iter().map(|b| b.1).sum();
    let mut acc = 0u64;
    bins.iter()
        .filter(|b| b.0 > 0)
        .map(|&(ns, c)| {
            acc += c;
            ((ns as f64 / unit).log10(), 100.0 * acc as f64 / total.max(1) as f64)
        })
        .collect()
}

fn cdf_panel(run: &RunInput, notes: &mut Vec<String>, unit: (f64, &str)) -> Panel {
    let jobs = &run.result.jobs;
    let of = jobs.iter().flat_map(|j| &j.dirs).find(|d| !d.bins.is_empty()).map_or("clat", |d| d.bins_of);
    let mut p = Panel {
        title: format!("{} distribution", lat_title(of)),
        x_label: format!("{of} ({}, log scale)", unit.1),
        y_label: "I/Os at or below (%)".into(),
        x_axis: Axis::Log10,
        ..Panel::default()
    };
    let with_bins: Vec<_> =
        jobs.iter().flat_map(|j| j.dirs.iter().map(move |d| (j, d))).filter(|(_, d)| !d.bins.is_empty()).collect();
    if with_bins.is_empty() {
        let n = "the latency distribution needs json+ bins: add --output-format=json+";
        notes.push(format!("{}: {n}", run.name));
        p.note = Some(n.into());
        return p;
    }
    let dirs: std::collections::BTreeSet<u8> = with_bins.iter().map(|(_, d)| d.ddir).collect();
    if with_bins.len() > MAX_JOB_LINES {
        for (i, d) in dirs.iter().enumerate() {
            let mut merged: BTreeMap<u64, u64> = BTreeMap::new();
            let mut n = 0;
            for (_, dr) in with_bins.iter().filter(|(_, dr)| dr.ddir == *d) {
                n += 1;
                for &(ns, c) in &dr.bins {
                    *merged.entry(ns).or_default() += c;
                }
            }
            let bins: Vec<(u64, u64)> = merged.into_iter().collect();
            p.series.push(Series {
                label: format!("{n} jobs ({})", dir_name(*d)),
                points: cdf(&bins, unit.0),
                color: i,
                dashed: false,
            });
        }
        return p;
    }
    for (i, (j, d)) in with_bins.iter().enumerate() {
        let label = if dirs.len() > 1 { format!("{} {}", j.name, dir_name(d.ddir)) } else { j.name.clone() };
        p.series.push(Series { label, points: cdf(&d.bins, unit.0), color: i, dashed: false });
    }
    p
}

/// The figure for `runs` side by side (one column each).
pub fn figure(runs: &[RunInput]) -> RunFigure {
    let mut notes = Vec::new();
    let mut panels = Vec::new();
    // One latency unit for the whole picture, from the largest value shown.
    let max_lat = runs
        .iter()
        .flat_map(|r| {
            let logs = lat_logs(r);
            let m = logs.iter().flat_map(|l| l.samples.iter().map(|s| s.value)).max().unwrap_or(0);
            let b =
                r.result.jobs.iter().flat_map(|j| &j.dirs).flat_map(|d| d.bins.last().map(|b| b.0)).max().unwrap_or(0);
            [m, b]
        })
        .max()
        .unwrap_or(0);
    let unit = lat_unit(max_lat as f64);
    let rows: [PanelFn; 4] = [
        &|r, notes| rate_panel(r, notes, LogKind::Bw),
        &|r, notes| rate_panel(r, notes, LogKind::Iops),
        &|r, notes| latency_panel(r, notes, unit),
        &|r, notes| cdf_panel(r, notes, unit),
    ];
    for row in rows {
        for r in runs {
            let mut p = row(r, &mut notes);
            if runs.len() > 1 {
                p.title = format!("{}: {}", r.name, p.title);
            }
            panels.push(p);
        }
    }
    let title = match runs {
        [one] => format!("zonekit bench: {}", one.name),
        _ => format!("zonekit bench: {}", runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(" vs ")),
    };
    let mut figure = Figure { title, columns: runs.len().max(1), panels };
    share_rows(&mut figure);
    RunFigure { figure, notes }
}

fn rate_panel(run: &RunInput, notes: &mut Vec<String>, kind: LogKind) -> Panel {
    let (title, y, scale, opt) = match kind {
        LogKind::Bw => ("bandwidth over time", "bandwidth (MiB/s)", 1024.0, "write_bw_log"),
        _ => ("IOPS over time", "IOPS (I/Os per second)", 1.0, "write_iops_log"),
    };
    let mut p = Panel { title: title.into(), x_label: "time (s)".into(), y_label: y.into(), ..Panel::default() };
    p.series = rate_series(run, kind, scale);
    if p.series.is_empty() {
        let n = format!("{title} needs the {} log: add {opt}=PREFIX", kind.name());
        notes.push(format!("{}: {n}", run.name));
        p.note = Some(n);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::parse;
    use crate::result;

    fn run(logs: Vec<Log>, json: &str) -> RunInput {
        RunInput { name: "r".into(), result: result::parse("r", json).unwrap(), logs }
    }

    const JSON: &str =
        r#"{"jobs":[{"jobname":"w","groupid":0,"write":{"io_bytes":1,"total_ios":1,"bw_bytes":1,"iops":1}}]}"#;

    #[test]
    fn bandwidth_points_are_the_log_in_mib_per_s_and_seconds() {
        let bw = parse("a_bw.1.log", LogKind::Bw, Some(1), "500, 2048, 1, 0\n1000, 4096, 1, 0, 0\n").unwrap();
        let f = figure(&[run(vec![bw], JSON)]);
        let p = &f.figure.panels[0];
        assert_eq!(p.series.len(), 1);
        assert_eq!(p.series[0].label, "w (job 1)");
        assert_eq!(p.series[0].points, [(0.5, 2.0), (1.0, 4.0)]);
        assert_eq!(p.y_label, "bandwidth (MiB/s)");
        // Missing pieces are one note each, naming the option.
        assert_eq!(f.notes.len(), 3, "{:?}", f.notes);
        assert!(f.notes[0].contains("write_iops_log"));
        assert!(f.notes[1].contains("write_lat_log"));
        assert!(f.notes[2].contains("--output-format=json+"));
    }

    #[test]
    fn latency_bands_are_percentiles_of_each_window() {
        // 100 I/Os in [0, 600) ms: window 0 holds ms 0..10, values 1..=10 µs.
        let mut t = String::new();
        for i in 0..600 {
            t += &format!("{i}, {}, 1, 4096, 0\n", 1000 * (i % 10 + 1));
        }
        let lat = parse("a_lat.1.log", LogKind::Lat, Some(1), &t).unwrap();
        let w = lat_windows(&[&lat]);
        assert_eq!(w.len(), 1);
        let (d, rows) = &w[0];
        assert_eq!(*d, 1);
        assert!(rows.len() >= LAT_WINDOWS - 1);
        let r0 = rows[0];
        assert_eq!((r0.1, r0.2, r0.3, r0.4), (1000.0, 5000.0, 9000.0, 10000.0));
        let f = figure(&[run(vec![lat], JSON)]);
        let p = &f.figure.panels[2];
        assert_eq!(p.bands.len(), 1);
        assert_eq!(p.y_label, "lat (µs)");
        assert_eq!(p.bands[0].points[0].1, 1.0);
        assert!(p.note.is_none());
    }

    #[test]
    fn averaged_latency_says_to_log_every_io() {
        let lat = parse("a_lat.1.log", LogKind::Lat, Some(1), "100, 50000, 1, 0\n200, 60000, 1, 0\n").unwrap();
        let f = figure(&[run(vec![lat], JSON)]);
        assert!(f.notes.iter().any(|n| n.contains("log_avg_msec=0")));
        assert_eq!(f.figure.panels[2].series[0].points, [(0.1, 50.0), (0.2, 60.0)]);
    }

    #[test]
    fn per_io_logs_give_rates_per_window() {
        // 600 I/Os of 1 MiB, one per ms, for 600 ms: 1000 IOPS, 1000 MiB/s in every window.
        let mut t = String::new();
        for i in 1..=600 {
            t += &format!("{i}, 7, 1, 1048576\n");
        }
        let bw = parse("a_bw.1.log", LogKind::Bw, Some(1), &t).unwrap();
        let r = per_io_rates(&bw, LogKind::Bw);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].1.len(), LAT_WINDOWS);
        assert!(r[0].1[1..LAT_WINDOWS - 1].iter().all(|p| (p.1 - 1000.0).abs() < 1e-9), "{:?}", r[0].1);
        let io = per_io_rates(&bw, LogKind::Iops);
        assert!((io[0].1[5].1 - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn cdf_of_bins_ends_at_100() {
        let c = cdf(&[(1000, 1), (10_000, 3)], 1000.0);
        assert_eq!(c, [(0.0, 25.0), (1.0, 100.0)]);
    }

    #[test]
    fn many_jobs_are_summed() {
        let logs: Vec<Log> = (1..=10)
            .map(|n| parse("x", LogKind::Bw, Some(n), "1000, 1024, 1, 0\n2000, 2048, 1, 0\n").unwrap())
            .collect();
        let f = figure(&[run(logs, JSON)]);
        let s = &f.figure.panels[0].series;
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].label, "sum of 10 jobs (write)");
        assert_eq!(s[0].points.iter().map(|p| p.1).collect::<Vec<_>>(), [10.0, 20.0]);
    }
}
