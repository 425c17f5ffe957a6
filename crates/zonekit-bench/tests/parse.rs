//! Table-driven parser tests: each `testdata/parse/*.txt` file holds cases of command lines and
//! job files (in memory, hermetic environment) and what they resolve to, or the one error line
//! they stop with.
//!
//! Case syntax:
//!
//! ```text
//! === title
//! args: --parse-only job.fio          (split on blanks)
//! env: NAME=value                     (repeatable)
//! file: job.fio                       (then the file's lines, each after "| ")
//! | [job]
//! | bs=4k
//! expect: #0 bs = [4096, 4096, 4096]  (job by index or name, a field, its Debug form)
//! error: zonekit: job.fio:2: …        (parse_args fails with exactly this line)
//! runnable: ok | zonekit: …           (what check_runnable says)
//! ```

use std::path::Path;

use zonekit_bench::cmdline::{Invocation, parse_args};
use zonekit_bench::job::JobSpec;
use zonekit_bench::jobfile::Env;

#[derive(Default, Debug)]
struct Case {
    title: String,
    line: usize,
    args: Vec<String>,
    env: Vec<(String, String)>,
    files: Vec<(String, String)>,
    expect: Vec<(String, String, String)>,
    error: Option<String>,
    runnable: Option<String>,
    invocation: Vec<(String, String)>,
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut cur: Option<Case> = None;
    for (n, line) in text.lines().enumerate() {
        if let Some(t) = line.strip_prefix("=== ") {
            if let Some(c) = cur.take() {
                cases.push(c);
            }
            cur = Some(Case { title: t.to_string(), line: n + 1, ..Default::default() });
            continue;
        }
        let Some(c) = cur.as_mut() else { continue };
        if let Some(rest) = line.strip_prefix("| ").or_else(|| (line == "|").then_some("")) {
            let f = c.files.last_mut().expect("file line before file:");
            f.1.push_str(rest);
            f.1.push('\n');
        } else if let Some(a) = line.strip_prefix("args:") {
            c.args = a.split_whitespace().map(str::to_string).collect();
        } else if let Some(e) = line.strip_prefix("env:") {
            let (k, v) = e.trim().split_once('=').expect("env: K=V");
            c.env.push((k.to_string(), v.to_string()));
        } else if let Some(f) = line.strip_prefix("file:") {
            c.files.push((f.trim().to_string(), String::new()));
        } else if let Some(x) = line.strip_prefix("expect:") {
            let x = x.trim();
            let (job, rest) = x.split_once(' ').expect("expect: JOB FIELD = VALUE");
            let (field, value) = rest.split_once(" = ").expect("expect: JOB FIELD = VALUE");
            c.expect.push((job.to_string(), field.trim().to_string(), value.to_string()));
        } else if let Some(x) = line.strip_prefix("invocation:") {
            let (field, value) = x.trim().split_once(" = ").expect("invocation: FIELD = VALUE");
            c.invocation.push((field.to_string(), value.to_string()));
        } else if let Some(e) = line.strip_prefix("error:") {
            c.error = Some(e.trim().to_string());
        } else if let Some(r) = line.strip_prefix("runnable:") {
            c.runnable = Some(r.trim().to_string());
        } else if !line.trim().is_empty() && !line.starts_with('#') {
            panic!("line {}: cannot read {line:?}", n + 1);
        }
    }
    cases.extend(cur);
    cases
}

macro_rules! fields {
    ($o:expr, $name:expr, $($f:ident),* $(,)?) => {
        match $name {
            $(stringify!($f) => Some(format!("{:?}", $o.$f)),)*
            _ => None,
        }
    };
}

fn field(j: &JobSpec, name: &str) -> String {
    let o = &j.options;
    match name {
        "name" => return format!("{:?}", j.name),
        "jobname" => return format!("{:?}", j.jobname),
        "groupid" => return j.groupid.to_string(),
        "job_file" => return format!("{:?}", j.job_file),
        "at" => return j.at.to_string(),
        "echo" => return format!("{:?}", j.json_job_options()),
        "echo_all" => return format!("{:?}", j.echo),
        "notes" => return format!("{:?}", j.notes),
        "refusals" => {
            return format!(
                "{:?}",
                j.refusals.iter().map(|r| format!("{}: {}: {}", r.at, r.what, r.why)).collect::<Vec<_>>()
            );
        }
        "conflicts" => {
            return format!("{:?}", j.conflicts.iter().map(|c| format!("{}: {}", c.at, c.why)).collect::<Vec<_>>());
        }
        "filenames" => return format!("{:?}", o.filenames()),
        "set" => return format!("{:?}", o.set),
        _ => {}
    }
    fields!(
        o,
        name,
        description,
        filename,
        directory,
        filename_format,
        nrfiles,
        openfiles,
        file_service_type,
        filesize,
        size,
        offset,
        offset_increment,
        offset_align,
        io_size,
        number_ios,
        loops,
        overwrite,
        fallocate,
        unlink,
        invalidate,
        rw,
        rw_modifier,
        rw_seq_add,
        rw_sequencer,
        rwmixread,
        rwmixwrite,
        percentage_random,
        bs,
        min_bs,
        max_bs,
        bsrange,
        bssplit,
        blockalign,
        randrepeat,
        randseed,
        norandommap,
        random_distribution,
        ioengine,
        iodepth,
        iodepth_batch_submit,
        iodepth_batch_complete_min,
        iodepth_batch_complete_max,
        iodepth_low,
        direct,
        buffered,
        sync,
        fsync,
        fdatasync,
        end_fsync,
        io_uring,
        libaio,
        numjobs,
        thread,
        group_reporting,
        new_group,
        stonewall,
        wait_for,
        runtime,
        time_based,
        ramp_time,
        startdelay,
        thinktime,
        rate,
        rate_iops,
        zero_buffers,
        refill_buffers,
        scramble_buffers,
        buffer_pattern,
        buffer_compress_chunk,
        dedupe_working_set,
        dedupe_working_set_percentage,
        number_ios,
        continue_on_error,
        percentile_list,
        percentile_precision,
        clat_percentiles,
        lat_percentiles,
        slat_percentiles,
        kb_base,
        unit_base,
        write_bw_log,
        write_lat_log,
        write_iops_log,
        log_avg_msec,
        bwavgtime,
        iopsavgtime,
        zonemode,
        zonesize,
        zonecapacity,
        zonerange,
        zoneskip,
        read_beyond_wp,
        max_open_zones,
        job_max_open_zones,
        ignore_zone_limits,
        zone_reset_threshold,
        zone_reset_frequency,
        gtod_reduce,
        disable_lat,
        disable_clat,
        disable_slat,
        disable_bw_measurement,
        clat_percentiles,
        lat_percentiles,
        clocksource,
        fallocate,
        fadvise_hint,
        write_hint,
        stats,
        disk_util,
        significant_figures,
    )
    .unwrap_or_else(|| panic!("unknown field {name}"))
}

fn invocation_field(inv: &Invocation, name: &str) -> String {
    match name {
        "action" => format!("{:?}", inv.action),
        "output_format" => format!("{:?}", inv.output_format),
        "output" => format!("{:?}", inv.output),
        "eta" => format!("{:?}", inv.eta),
        "eta_newline" => format!("{:?}", inv.eta_newline),
        "status_interval" => format!("{:?}", inv.status_interval),
        "terse_version" => format!("{:?}", inv.terse_version),
        "sections" => format!("{:?}", inv.sections),
        "job_files" => format!("{:?}", inv.job_files),
        "jobs" => format!("{:?}", inv.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>()),
        "groups" => format!("{:?}", inv.jobs.iter().map(|j| j.groupid).collect::<Vec<_>>()),
        "global_options" => format!("{:?}", inv.json_global_options()),
        "showcmd" => format!("{:?}", inv.showcmd),
        "notes" => format!("{:?}", inv.notes),
        "debug_info" => format!("{:?}", inv.debug_info),
        "readonly" => format!("{:?}", inv.readonly),
        _ => panic!("unknown invocation field {name}"),
    }
}

fn run_case(file: &str, c: &Case) -> Result<(), String> {
    let env = Env::hermetic(c.env.clone()).with_files(c.files.clone());
    let ctx = format!("{file}:{} ({})", c.line, c.title);
    match parse_args(&c.args, &env) {
        Err(e) => {
            let got = format!("zonekit: {e}");
            match &c.error {
                Some(want) if *want == got => Ok(()),
                Some(want) => Err(format!("{ctx}: error\n  want: {want}\n  got:  {got}")),
                None => Err(format!("{ctx}: unexpected error: {got}")),
            }
        }
        Ok(inv) => {
            if let Some(want) = &c.error {
                return Err(format!("{ctx}: expected error {want}, parsed fine"));
            }
            for (job, f, want) in &c.expect {
                let j = match job.strip_prefix('#') {
                    Some(i) => inv.jobs.get(i.parse::<usize>().map_err(|_| format!("{ctx}: bad job index"))?),
                    None => inv.jobs.iter().find(|j| j.name == *job),
                }
                .ok_or_else(|| format!("{ctx}: no job {job}"))?;
                let got = field(j, f);
                if got != *want {
                    return Err(format!("{ctx}: {job} {f}\n  want: {want}\n  got:  {got}"));
                }
            }
            for (f, want) in &c.invocation {
                let got = invocation_field(&inv, f);
                if got != *want {
                    return Err(format!("{ctx}: invocation {f}\n  want: {want}\n  got:  {got}"));
                }
            }
            if let Some(want) = &c.runnable {
                let got = match inv.check_runnable() {
                    Ok(()) => "ok".to_string(),
                    Err(e) => format!("zonekit: {e}"),
                };
                if got != *want {
                    return Err(format!("{ctx}: runnable\n  want: {want}\n  got:  {got}"));
                }
            }
            Ok(())
        }
    }
}

#[test]
fn parse_tables() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/parse");
    let mut names: Vec<_> = std::fs::read_dir(&dir).expect("testdata/parse").flatten().map(|e| e.path()).collect();
    names.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in names.iter().filter(|p| p.extension().is_some_and(|e| e == "txt")) {
        let text = std::fs::read_to_string(path).expect("read");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        for c in parse_cases(&text) {
            count += 1;
            if let Err(e) = run_case(name, &c) {
                failures.push(e);
            }
        }
    }
    assert!(count > 0, "no cases found");
    assert!(failures.is_empty(), "{} of {count} cases failed:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{count} parse cases passed");
}

/// `docs/bench-options.md` is generated from the option table; this fails when it is stale
/// (`ZONEKIT_BLESS=1` rewrites it).
#[test]
fn docs_are_fresh() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/bench-options.md");
    let want = zonekit_bench::options::docs::options_markdown();
    if std::env::var_os("ZONEKIT_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write docs/bench-options.md");
        return;
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/bench-options.md is stale: run `ZONEKIT_BLESS=1 cargo test -p zonekit-bench --test parse docs`"
    );
}
