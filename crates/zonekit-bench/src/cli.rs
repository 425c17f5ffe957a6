//! `zonekit bench`: fio's command line in, fio's output out.

use crate::cmdline::{Action, Eta, Invocation, cmdhelp, enghelp, parse_process_args, usage, version_string};
use crate::output::OutputFormats;
use crate::run::{BenchJob, EtaMode, RunSettings, execute};
use std::io::{IsTerminal, Write};
use std::os::fd::AsFd;
use std::sync::Arc;

/// The run's jobs, as the runner takes them.
pub fn bench_jobs(inv: &Invocation) -> Vec<BenchJob> {
    inv.jobs
        .iter()
        .map(|spec| {
            let mut opts = spec.options.clone();
            opts.name = spec.jobname.clone();
            BenchJob {
                name: spec.name.clone(),
                opts: Arc::new(opts),
                groupid: spec.groupid,
                job_options: spec.json_job_options().into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            }
        })
        .collect()
}

/// Run `zonekit bench ARGS` (the arguments after `bench`); returns the exit code.
pub fn main(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let inv = match parse_process_args(args) {
        Ok(i) => i,
        Err(e) => {
            let _ = writeln!(err, "zonekit: {e}");
            return e.exit_code();
        }
    };
    let _ = out.write_all(inv.debug_info.as_bytes());
    let text = match &inv.action {
        Action::Help => Ok(usage()),
        Action::Version => Ok(format!("{}\n", version_string())),
        Action::DebugHelp => Ok(crate::cmdline::debug_help()),
        Action::CmdHelp(name) => cmdhelp(name.as_deref(), inv.profile),
        Action::EngHelp(name) => enghelp(name.as_deref()),
        Action::ShowCmd => {
            Ok(parse_trace_text(&inv, out, err) + &inv.showcmd.iter().map(|l| format!("{l}\n")).collect::<String>())
        }
        Action::ParseOnly => Ok(parse_trace_text(&inv, out, err)),
        Action::InflateLog(path) => return inflate(path, out, err),
        Action::IdleCalibrate => {
            let (mean, stddev, problems) =
                crate::run::idle::IdleProfiler::calibrate(crate::run::idle::IdleProf::Calibrate).calibration();
            for line in problems {
                let _ = writeln!(err, "{line}");
            }
            Ok(crate::run::idle::calibration_text(mean, stddev))
        }
        Action::Run => {
            if let Err(e) = inv.check_runnable() {
                let _ = writeln!(err, "zonekit: {e}");
                return e.exit_code();
            }
            return run(&inv, out, err);
        }
    };
    match text {
        Ok(t) => {
            let _ = out.write_all(t.as_bytes());
            0
        }
        Err(e) => {
            let _ = writeln!(err, "zonekit: {e}");
            e.exit_code()
        }
    }
}

/// `--debug=parse` without a run: the trace, for standard output (fio writes it to the
/// `--output` file when one is given, which this does and returns nothing).
fn parse_trace_text(inv: &Invocation, _out: &mut dyn Write, err: &mut dyn Write) -> String {
    // What fio prints without running: the parse, its clock's calibration, its exit.
    let pid = std::process::id();
    let source = crate::run::tracing::run_clock_source(inv.jobs.iter().map(|j| j.options.clocksource.as_deref()));
    let (early, late) = crate::run::tracing::calibration_lines(inv.debug, pid, source);
    let mut text = early;
    if let Some(t) = &inv.debug_trace {
        let mut before = t.clone();
        before.end.clear();
        text.push_str(&before.all());
    }
    text.push_str(&late);
    if let Some(t) = &inv.debug_trace {
        text.push_str(&t.end);
    }
    text.push_str(&crate::run::tracing::exit_lines(inv.debug, pid));
    if text.is_empty() {
        return text;
    }
    match &inv.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, text) {
                let errno = zonekit_core::Errno(e.raw_os_error().unwrap_or(libc::EIO));
                let _ = writeln!(err, "zonekit: {}: cannot create the output file: {errno}", path.display());
            }
            String::new()
        }
        None => text,
    }
}

/// `--inflate-log=FILE`, as fio runs it: the text on stdout, exit code 0; a file that cannot
/// be read or inflated is one line and exit code 1.
fn inflate(path: &std::path::Path, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            let errno = zonekit_core::Errno(e.raw_os_error().unwrap_or(libc::EIO));
            let _ = writeln!(err, "zonekit: {}: cannot read the log: {errno}", path.display());
            return 1;
        }
    };
    match crate::stats::log::inflate_log(&data) {
        Ok(text) => {
            let _ = out.write_all(text.as_bytes());
            0
        }
        Err(why) => {
            let _ = writeln!(err, "zonekit: {}: {why} (EILSEQ)", path.display());
            1
        }
    }
}

fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if inv.jobs.is_empty() {
        let _ = writeln!(err, "zonekit: no jobs to run (give a job file or --name=…)");
        return 2;
    }
    for note in inv.notes.iter().chain(inv.jobs.iter().flat_map(|j| j.notes.iter())) {
        let _ = writeln!(err, "zonekit: {note}");
    }
    let f = inv.output_format;
    let formats =
        OutputFormats { normal: f.normal, json: f.json || f.json_plus, json_plus: f.json_plus, terse: f.terse };
    let settings = RunSettings {
        formats,
        terse_version: Some(inv.terse_version),
        eta: match inv.eta {
            Eta::Auto => EtaMode::Auto,
            Eta::Always => EtaMode::Always,
            Eta::Never => EtaMode::Never,
        },
        eta_newline: inv.eta_newline,
        status_interval: inv.status_interval,
        global_options: inv.json_global_options().into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        stdout_is_tty: inv.output.is_none() && std::io::stdout().is_terminal(),
        zone_report_out: inv.zone_report_out.clone(),
        clock: inv.clock,
        queue: inv.queue,
        debug_trace: inv.debug_trace.clone(),
        profile: inv.profile.filter(|_| inv.profile_jobs > 0).map(|p| (p.name(), inv.profile_jobs)),
        debug: inv.debug,
        debug_jobno: inv.debug_jobno,
        idle_prof: inv.idle_prof,
        bandwidth_log: inv.bandwidth_log,
    };
    let sink: Box<dyn Write + Send> = match &inv.output {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => {
                let errno = zonekit_core::Errno(e.raw_os_error().unwrap_or(libc::EIO));
                let _ = writeln!(err, "zonekit: {}: cannot create the output file: {errno}", path.display());
                return 1;
            }
        },
        // A duplicate of descriptor 1: job threads and the status line write to it without the
        // process-wide lock on `Stdout`, which the caller may hold.
        None => match std::io::stdout().as_fd().try_clone_to_owned() {
            Ok(fd) => Box::new(std::fs::File::from(fd)),
            Err(e) => {
                let _ = writeln!(err, "zonekit: standard output: {e}");
                return 1;
            }
        },
    };
    let _ = out.flush();
    execute(&bench_jobs(inv), &settings, sink, err).exit_code
}
