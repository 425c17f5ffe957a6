//! fio 3.33's normal (human-readable) output, field for field (`stat.c`:
//! `show_thread_status_normal`, `show_ddir_status`, `show_clat_percentiles`, `show_latencies`,
//! `show_group_stats`, `print_disk_util`; `init.c` and `backend.c` for the header lines).

use std::fmt::Write as _;

use super::num::{N2sUnit, c32, cfmt, num2str};
use super::report::{
    DdirReport, DiskUtilReport, GroupReport, IdleReport, JobReport, RunReport, UNIFIED_BOTH, UNIFIED_MIXED,
};

/// The header line fio prints for a job before the run:
/// `name: (g=0): rw=randwrite, bs=(R) 4096B-4096B, (W) …, (T) …, ioengine=psync, iodepth=1`.
#[derive(Debug, Clone, PartialEq)]
pub struct JobHeader {
    /// Job name.
    pub name: String,
    /// Group id.
    pub groupid: u32,
    /// `rw` as fio names the mode (`read`, `write`, `rw`, `randread`, `randwrite`, `randrw`,
    /// `trim`, `randtrim`, `trimwrite`, `randtrimwrite`), without a `:N` suffix.
    pub rw: String,
    /// Smallest and largest block size per direction (read, write, trim).
    pub bs: [(u64, u64); 3],
    /// `bs_is_seq_rand`: the sizes are (R)andom and (W)… sequential; no trim pair.
    pub bs_is_seq_rand: bool,
    /// Engine name.
    pub ioengine: String,
    /// `iodepth`.
    pub iodepth: u32,
    /// `kb_base`.
    pub kb_base: u32,
    /// `significant_figures`.
    pub sig_figs: u32,
}

impl JobHeader {
    /// The line, with its newline. Jobs cloned by `numjobs` print `...` instead (see
    /// [`numjobs_continuation`]).
    pub fn line(&self) -> String {
        let i2p = self.kb_base.is_power_of_two();
        let n = |v: u64| num2str(v, self.sig_figs as usize, 1, i2p, N2sUnit::Byte);
        let mut s = format!("{}: (g={}): rw={}, ", self.name, self.groupid, self.rw);
        if self.bs_is_seq_rand {
            let _ = write!(
                s,
                "bs=(R) {}-{}, (W) {}-{}, bs_is_seq_rand, ",
                n(self.bs[0].0),
                n(self.bs[0].1),
                n(self.bs[1].0),
                n(self.bs[1].1)
            );
        } else {
            let _ = write!(
                s,
                "bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ",
                n(self.bs[0].0),
                n(self.bs[0].1),
                n(self.bs[1].0),
                n(self.bs[1].1),
                n(self.bs[2].0),
                n(self.bs[2].1)
            );
        }
        let _ = writeln!(s, "ioengine={}, iodepth={}", self.ioengine, self.iodepth);
        s
    }
}

/// What fio prints after the first header of a job with `numjobs > 1` (once per job section).
pub fn numjobs_continuation() -> &'static str {
    "...\n"
}

/// The version line (`fio-3.33` in fio): `zonekit-<version>` and a newline.
pub fn version_line(version: &str) -> String {
    format!("{version}\n")
}

/// `Starting 1 process`, `Starting 4 threads`, `Starting 1 thread and 2 processes`.
pub fn starting_line(threads: u32, processes: u32) -> String {
    let mut s = String::from("Starting ");
    if threads != 0 {
        let _ = write!(s, "{} thread{}", threads, if threads > 1 { "s" } else { "" });
    }
    if processes != 0 {
        if threads != 0 {
            s.push_str(" and ");
        }
        let _ = write!(s, "{} process{}", processes, if processes > 1 { "es" } else { "" });
    }
    s.push('\n');
    s
}

/// The report part of the normal output (after the run): a blank line, each job's block, the
/// run status of each group, disk stats, and with `--idle-prof` the CPU idleness.
pub fn render(report: &RunReport) -> String {
    let mut out = String::from("\n");
    for job in &report.jobs {
        let g = report.group_of(job);
        job_block(job, g, &mut out);
    }
    for g in &report.groups {
        group_block(g, &mut out);
    }
    disk_block(&report.disk_util, &mut out);
    if let Some(idle) = &report.idle {
        idle_block(idle, &mut out);
    }
    out
}

/// `CPU idleness:` (fio's `show_idle_prof_stats`): the system's figure, each CPU's with
/// `percpu`, and the unit of work.
pub fn idle_block(idle: &IdleReport, out: &mut String) {
    let _ = writeln!(out, "\nCPU idleness:\n  system: {}%", c32(idle.system));
    if idle.percpu {
        let cpus: Vec<String> = idle.cpus.iter().map(|c| format!("{}%", c32(*c))).collect();
        let _ = writeln!(out, "  percpu: {}", cpus.join(", "));
    }
    let _ = writeln!(out, "  unit work: mean={}us, stddev={}", c32(idle.unit_mean), c32(idle.unit_stddev));
}

fn unit(bits: bool) -> N2sUnit {
    if bits { N2sUnit::BitPerSec } else { N2sUnit::BytePerSec }
}

/// One job's block (`show_thread_status_normal`).
pub fn job_block(ts: &JobReport, rs: Option<&GroupReport>, out: &mut String) {
    if !ts.has_io() {
        return;
    }
    let info = &ts.info;
    if info.error == 0 {
        let _ = writeln!(
            out,
            "{}: (groupid={}, jobs={}): err={:2}: pid={}: {}",
            info.name, info.groupid, info.members, info.error, info.pid, info.time
        );
    } else {
        let _ = writeln!(
            out,
            "{}: (groupid={}, jobs={}): err={:2} ({}): pid={}: {}",
            info.name, info.groupid, info.members, info.error, info.verror, info.pid, info.time
        );
    }
    if !info.description.is_empty() {
        let _ = writeln!(out, "  Description  : [{}]", info.description);
    }
    for (i, d) in ts.ddir.iter().enumerate() {
        if d.io_bytes != 0 {
            ddir_block(ts, rs, i, d, false, out);
        }
    }
    if let Some(m) = &ts.mixed {
        ddir_block(ts, rs, 0, m, true, out);
    }
    latencies(ts, out);
    if ts.sync.lat.samples != 0 {
        out.push_str("  fsync/fdatasync/sync_file_range:\n");
        let l = &ts.sync.lat;
        display_lat("sync", l.min, l.max, l.mean, l.stddev, out);
        if let Some(p) = &l.percentiles {
            percentiles(p, ts.percentile_list.precision(), "sync", out);
        }
    }
    let _ = writeln!(
        out,
        "  cpu          : usr={}%, sys={}%, ctx={}, majf={}, minf={}",
        c32(ts.usr_cpu),
        c32(ts.sys_cpu),
        ts.ctx,
        ts.majf,
        ts.minf
    );
    let d = |v: &[f64; 7]| v.map(|x| cfmt(x, 3, 1));
    let l = d(&ts.iodepth_level);
    let _ = writeln!(
        out,
        "  IO depths    : 1={}%, 2={}%, 4={}%, 8={}%, 16={}%, 32={}%, >=64={}%",
        l[0], l[1], l[2], l[3], l[4], l[5], l[6]
    );
    for (name, v) in [("submit  ", &ts.iodepth_submit), ("complete", &ts.iodepth_complete)] {
        let l = d(v);
        let _ = writeln!(
            out,
            "     {name}  : 0={}%, 4={}%, 8={}%, 16={}%, 32={}%, 64={}%, >=64={}%",
            l[0], l[1], l[2], l[3], l[4], l[5], l[6]
        );
    }
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped={},{},{},0",
        ts.ddir[0].total_ios,
        ts.ddir[1].total_ios,
        ts.ddir[2].total_ios,
        ts.sync.total_ios,
        ts.ddir[0].short_ios,
        ts.ddir[1].short_ios,
        ts.ddir[2].short_ios,
        ts.ddir[0].drop_ios,
        ts.ddir[1].drop_ios,
        ts.ddir[2].drop_ios
    );
    if info.continue_on_error {
        let _ = writeln!(
            out,
            "     errors    : total={}, first_error={}/<{}>",
            ts.total_err_count,
            ts.first_error,
            strerror(ts.first_error)
        );
    }
    if info.latency_depth != 0 {
        let _ = writeln!(
            out,
            "     latency   : target={}, window={}, percentile={}%, depth={}",
            info.latency_target,
            info.latency_window,
            cfmt(info.latency_percentile, 0, 2),
            info.latency_depth
        );
    }
    if let Some(b) = &ts.block {
        out.push_str(&b.normal());
    }
    if let Some(ss) = &info.steadystate {
        // fio's show_ss_normal: the alternative unit keeps the number and swaps the prefix.
        let kb = u64::from(info.kb_base.max(1));
        let i2p = info.kb_base.is_power_of_two();
        let sig = info.sig_figs as usize;
        let _ = writeln!(
            out,
            "  steadystate  : attained={}, bw={} ({}), iops={}, {}{}={}{}",
            if ss.attained { "yes" } else { "no" },
            num2str(ss.bw_mean / kb, sig, kb, i2p, unit(info.unit_bits)),
            num2str(ss.bw_mean / kb, sig, kb, !i2p, unit(info.unit_bits)),
            num2str(ss.iops_mean, sig, 1, false, N2sUnit::None),
            if ss.iops { "iops" } else { "bw" },
            if ss.slope_crit { " slope" } else { " mean dev" },
            cfmt(ss.criterion, 0, 3),
            if ss.percent { "%" } else { "" }
        );
    }
}

/// The C library's message for an errno (`strerror`), e.g. `Remote I/O error`.
pub fn strerror(errno: i32) -> String {
    let s = std::io::Error::from_raw_os_error(errno).to_string();
    // std appends " (os error N)".
    match s.rfind(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// fio's `convert_agg_kbytes_percent`: the job's mean bandwidth (truncated to an int, as fio's
/// prototype does) as a percent of the group's aggregate, at most 100.
pub(crate) fn agg_percent(rs: Option<&GroupReport>, ddir: usize, mean: f64) -> f64 {
    let mut p = 100.0;
    if let Some(rs) = rs
        && rs.agg[ddir] > 1024
    {
        let mean = mean as i32;
        p = f64::from(mean) * 100.0 / (rs.agg[ddir] as f64 / 1024.0);
        if p > 100.0 {
            p = 100.0;
        }
    }
    p
}

/// One direction's lines (`show_ddir_status`). `both_mixed`: the `mixed` block that
/// `unified_rw_reporting=both` adds; fio prints it from a thread_stat whose significant figures
/// and unit are 0, so its IOPS, BW and io print as `0`, `0 (0)` and `0B`.
fn ddir_block(ts: &JobReport, rs: Option<&GroupReport>, i: usize, d: &DdirReport, both_mixed: bool, out: &mut String) {
    if d.runtime_ms == 0 {
        return;
    }
    let info = &ts.info;
    let kb_base = rs.map_or(info.kb_base, |g| g.kb_base);
    let i2p = kb_base.is_power_of_two();
    let (sig, bw_unit) = if both_mixed { (0, N2sUnit::None) } else { (info.sig_figs as usize, unit(info.unit_bits)) };
    let bw = d.bw_bytes();
    let io_p = num2str(d.io_bytes, sig, 1, i2p, N2sUnit::Byte);
    let bw_p = num2str(bw, sig, 1, i2p, bw_unit);
    let bw_alt = num2str(bw, sig, 1, !i2p, bw_unit);
    let iops_p = num2str(d.iops_int(), sig, 1, false, N2sUnit::None);
    let post = if i == 1 { format!("; {} zone resets", ts.nr_zone_resets) } else { String::new() };
    let name = if both_mixed || info.unified_rw == UNIFIED_MIXED { "mixed" } else { ["read", "write", "trim"][i] };
    let _ = writeln!(out, "  {name}: IOPS={iops_p}, BW={bw_p} ({bw_alt})({io_p}/{}msec){post}", d.runtime_ms);
    for (label, l) in [("slat", &d.slat), ("clat", &d.clat), (" lat", &d.lat)] {
        if l.samples != 0 {
            display_lat(label, l.min, l.max, l.mean, l.stddev, out);
        }
    }
    // fio's per-priority lines (there only when two or more priorities have samples).
    let clat_type = if ts.lat_percentiles { "lat" } else { "clat" };
    for p in &d.prios {
        let l = &p.lat;
        display_lat(&format!("{clat_type} prio {}/{}", p.class, p.level), l.min, l.max, l.mean, l.stddev, out);
    }
    let prec = ts.percentile_list.precision();
    for (on, label, l) in [
        (ts.slat_percentiles, "slat", &d.slat),
        (ts.clat_percentiles, "clat", &d.clat),
        (ts.lat_percentiles, "lat", &d.lat),
    ] {
        if on
            && l.samples > 0
            && let Some(p) = &l.percentiles
        {
            percentiles(p, prec, label, out);
        }
    }
    if ts.clat_percentiles || ts.lat_percentiles {
        let all = if ts.lat_percentiles { d.lat.samples } else { d.clat.samples };
        for p in &d.prios {
            if let Some(vals) = &p.lat.percentiles {
                let share = 100.0 * p.lat.samples as f64 / all as f64;
                let name = format!("{clat_type} prio {}/{} ({share:.2}% of IOs)", p.class, p.level);
                percentiles(vals, prec, &name, out);
            }
        }
    }
    if d.bw.samples != 0 {
        let b = &d.bw;
        let fkb = f64::from(kb_base);
        let mut bw_str = if i2p { "KiB" } else { "kB" };
        let p_of_agg = agg_percent(rs, i, b.mean);
        let (mut min, mut max, mut mean, mut dev) = (b.min, b.max, b.mean, b.stddev);
        if mean > fkb * fkb {
            min = (min as f64 / fkb) as u64;
            max = (max as f64 / fkb) as u64;
            mean /= fkb;
            dev /= fkb;
            bw_str = "MiB";
        }
        let _ = writeln!(
            out,
            "   bw ({bw_str:>5}/s): min={min:5}, max={max:5}, per={}%, avg={}, stdev={}, samples={}",
            c32(p_of_agg),
            cfmt(mean, 5, 2),
            cfmt(dev, 5, 2),
            b.samples
        );
    }
    if d.iops.samples != 0 {
        let b = &d.iops;
        let _ = writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={}, stdev={}, samples={}",
            b.min,
            b.max,
            cfmt(b.mean, 5, 2),
            cfmt(b.stddev, 5, 2),
            b.samples
        );
    }
}

/// fio's `display_lat`: `    clat (usec): min=44, max=4678, avg=63.14, stdev=74.10`, the unit
/// switching to µs / ms when min, max and stdev are all large enough.
fn display_lat(name: &str, min: u64, max: u64, mean: f64, dev: f64, out: &mut String) {
    let (mut min, mut max, mut mean, mut dev) = (min, max, mean, dev);
    let base = if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        min /= 1_000_000;
        max /= 1_000_000;
        mean /= 1_000_000.0;
        dev /= 1_000_000.0;
        "(msec)"
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        min /= 1000;
        max /= 1000;
        mean /= 1000.0;
        dev /= 1000.0;
        "(usec)"
    } else {
        "(nsec)"
    };
    let _ = writeln!(
        out,
        "    {name} {base}: min={}, max={}, avg={}, stdev={}",
        num2str(min, 6, 1, false, N2sUnit::None),
        num2str(max, 6, 1, false, N2sUnit::None),
        cfmt(mean, 5, 2),
        cfmt(dev, 5, 2)
    );
}

/// fio's `show_clat_percentiles`: the unit from the smallest and largest value, values rounded up
/// to it, as many per line as fit in 80 columns.
fn percentiles(vals: &[(f64, u64)], precision: u32, pre: &str, out: &mut String) {
    if vals.is_empty() {
        return;
    }
    let minv = vals.iter().map(|v| v.1).min().unwrap_or(0);
    let maxv = vals.iter().map(|v| v.1).max().unwrap_or(0);
    let (scale_down, divisor, unit) = if minv > 2_000_000 && maxv > 99_999_999 {
        (2, 1_000_000u64, "msec")
    } else if minv > 2000 && maxv > 99_999 {
        (1, 1000, "usec")
    } else {
        (0, 1, "nsec")
    };
    let _ = write!(out, "    {pre} percentiles ({unit}):\n     |");
    let q = maxv / divisor;
    let time_width = if q == 0 { 5 } else { 5.max((q as f64).log10() as i64 + 1) as usize };
    let precision = precision as usize;
    let per_line = (80 - 7) / (precision + 10 + time_width);
    let len = vals.len();
    for (j, &(p, v)) in vals.iter().enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let is_last = j == len - 1;
        let mut v = v;
        for _ in 0..scale_down {
            v = v.div_ceil(1000);
        }
        let _ = write!(
            out,
            " {}th=[{v:>time_width$}]{}",
            cfmt(p, precision + 3, precision),
            if is_last { '\n' } else { ',' }
        );
        if is_last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

/// `lat (nsec)`, `lat (usec)`, `lat (msec)` lines: buckets above 0, five per line.
fn latencies(ts: &JobReport, out: &mut String) {
    const R: [&str; 12] =
        ["2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000=", "2000=", ">=2000="];
    lat_lines(&ts.latency_ns, &R[..10], "nsec", out);
    lat_lines(&ts.latency_us, &R[..10], "usec", out);
    lat_lines(&ts.latency_ms, &R, "msec", out);
}

fn lat_lines(vals: &[f64], ranges: &[&str], msg: &str, out: &mut String) {
    let mut new_line = true;
    let mut shown = false;
    let mut line = 0;
    for (v, r) in vals.iter().zip(ranges) {
        if *v <= 0.0 {
            continue;
        }
        shown = true;
        if new_line {
            if line != 0 {
                out.push('\n');
            }
            let _ = write!(out, "  lat ({msg})   : ");
            new_line = false;
            line = 0;
        }
        if line != 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{r}{}%", c32(*v));
        line += 1;
        if line == 5 {
            new_line = true;
        }
    }
    if shown {
        out.push('\n');
    }
}

/// `Run status group N (all jobs):` and a line per direction that ran.
pub fn group_block(rs: &GroupReport, out: &mut String) {
    let _ = writeln!(out, "\nRun status group {} (all jobs):", rs.groupid);
    let i2p = rs.kb_base.is_power_of_two();
    let sig = rs.sig_figs as usize;
    let u = unit(rs.unit_bits);
    for (i, name) in ["   READ", "  WRITE", "   TRIM"].iter().enumerate() {
        if rs.max_run[i] == 0 {
            continue;
        }
        let name = if rs.unified_rw == UNIFIED_MIXED { "  MIXED" } else { name };
        let _ = writeln!(
            out,
            "{name}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            num2str(rs.agg[i], sig, 1, i2p, u),
            num2str(rs.agg[i], sig, 1, !i2p, u),
            num2str(rs.min_bw[i], sig, 1, i2p, u),
            num2str(rs.max_bw[i], sig, 1, i2p, u),
            num2str(rs.min_bw[i], sig, 1, !i2p, u),
            num2str(rs.max_bw[i], sig, 1, !i2p, u),
            num2str(rs.iobytes[i], sig, 1, i2p, N2sUnit::Byte),
            num2str(rs.iobytes[i], sig, 1, !i2p, N2sUnit::Byte),
            rs.min_run[i],
            rs.max_run[i]
        );
    }
    if rs.unified_rw == UNIFIED_BOTH {
        mixed_group_line(rs, out);
    }
}

/// `unified_rw_reporting=both`: the group's directions as one line (`show_mixed_group_stats`):
/// bytes and aggregate bandwidths add up, the bandwidth and run-time ranges span them all.
fn mixed_group_line(rs: &GroupReport, out: &mut String) {
    let i2p = rs.kb_base.is_power_of_two();
    let sig = rs.sig_figs as usize;
    let u = unit(rs.unit_bits);
    let (mut io, mut agg, mut min_bw, mut max_bw, mut min_run, mut max_run) = (0u64, 0u64, u64::MAX, 0, u64::MAX, 0);
    for i in 0..3 {
        if rs.max_run[i] == 0 {
            continue;
        }
        io = io.wrapping_add(rs.iobytes[i]);
        agg = agg.wrapping_add(rs.agg[i]);
        min_bw = min_bw.min(rs.min_bw[i]);
        max_bw = max_bw.max(rs.max_bw[i]);
        min_run = min_run.min(rs.min_run[i]);
        max_run = max_run.max(rs.max_run[i]);
    }
    let _ = writeln!(
        out,
        "  MIXED: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
        num2str(agg, sig, 1, i2p, u),
        num2str(agg, sig, 1, !i2p, u),
        num2str(min_bw, sig, 1, i2p, u),
        num2str(max_bw, sig, 1, i2p, u),
        num2str(min_bw, sig, 1, !i2p, u),
        num2str(max_bw, sig, 1, !i2p, u),
        num2str(io, sig, 1, i2p, N2sUnit::Byte),
        num2str(io, sig, 1, !i2p, N2sUnit::Byte),
        min_run,
        max_run
    );
}

/// `Disk stats (read/write):` and a line per device; nothing without devices.
pub fn disk_block(disks: &[DiskUtilReport], out: &mut String) {
    if disks.is_empty() {
        return;
    }
    out.push_str("\nDisk stats (read/write):\n");
    for d in disks {
        if d.slaves.is_some() {
            out.push_str("  ");
        }
        let _ = write!(
            out,
            "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={}%",
            d.name,
            d.ios[0],
            d.ios[1],
            d.merges[0],
            d.merges[1],
            d.ticks[0],
            d.ticks[1],
            d.time_in_queue,
            c32(d.util)
        );
        if let Some(a) = &d.slaves {
            let _ = write!(
                out,
                ", aggrios={}/{}, aggrmerge={}/{}, aggrticks={}/{}, aggrin_queue={}, aggrutil={}%",
                a.ios[0],
                a.ios[1],
                a.merges[0],
                a.merges[1],
                a.ticks[0],
                a.ticks[1],
                a.time_in_queue,
                c32(a.max_util)
            );
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting() {
        assert_eq!(starting_line(0, 1), "Starting 1 process\n");
        assert_eq!(starting_line(0, 3), "Starting 3 processes\n");
        assert_eq!(starting_line(2, 0), "Starting 2 threads\n");
        assert_eq!(starting_line(1, 1), "Starting 1 thread and 1 process\n");
    }

    #[test]
    fn header() {
        let h = JobHeader {
            name: "z".into(),
            groupid: 0,
            rw: "randwrite".into(),
            bs: [(65536, 65536); 3],
            bs_is_seq_rand: false,
            ioengine: "psync".into(),
            iodepth: 1,
            kb_base: 1024,
            sig_figs: 4,
        };
        assert_eq!(
            h.line(),
            "z: (g=0): rw=randwrite, bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB, ioengine=psync, iodepth=1\n"
        );
    }

    #[test]
    fn percentile_precision_as_fio_prints_it() {
        // fio 3.33 --ioengine=null --percentile_list=1:50, then =25.125:1.
        let mut out = String::new();
        percentiles(&[(1.0, 20), (50.0, 30)], 0, "clat", &mut out);
        assert_eq!(out, "    clat percentiles (nsec):\n     |   1th=[   20],  50th=[   30]\n");
        out.clear();
        percentiles(&[(1.0, 50), (25.125, 50)], 3, "clat", &mut out);
        assert_eq!(out, "    clat percentiles (nsec):\n     |  1.000th=[   50], 25.125th=[   50]\n");
    }

    #[test]
    fn errno_text() {
        assert_eq!(strerror(121), "Remote I/O error");
    }
}
