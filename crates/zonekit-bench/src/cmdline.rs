//! `zonekit bench`'s command line, in fio's form: `--name=X` starts a job and the options after
//! it apply to that job; options before the first `--name` are global defaults; `--opt=value`
//! and `--opt value` both work (a switch takes its value only as `--opt=value`); one dash works
//! as well as two, and an unambiguous prefix of a long option is accepted (getopt_long_only);
//! other arguments are job files, read after the command-line jobs, with an implicit stonewall
//! between files. As in fio 3.33, options given before the first `--name` reach the jobs of the
//! command line and of the first job file only.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::{BenchError, Origin, one_line};
use crate::job::{JobSpec, Resolver, distance};
use crate::jobfile::{self, Entry, Env, JobFile};
use crate::options::engines::{self, EngineSupport};
use crate::options::table::{self, Kind, OptionDef};
use crate::options::value;
use crate::profile::{self, Profile};

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Run the jobs.
    Run,
    /// `--parse-only`: parse and check, run nothing.
    ParseOnly,
    /// `--showcmd`: print the job files as command lines ([`Invocation::showcmd`]).
    ShowCmd,
    /// `--help`: print [`usage`].
    Help,
    /// `--version`: print [`version_string`].
    Version,
    /// `--cmdhelp[=OPT|all]`: print [`cmdhelp`].
    CmdHelp(Option<String>),
    /// `--enghelp[=ENGINE[,OPT]]`: print [`enghelp`].
    EngHelp(Option<String>),
    /// `--debug=help` (or `?`): list fio's debug classes as fio does ([`debug_help`]).
    DebugHelp,
    /// `--inflate-log=FILE`: print a `log_store_compressed` log as text
    /// ([`crate::stats::log::inflate_log`]).
    InflateLog(PathBuf),
    /// `--idle-prof=calibrate`: time `--idle-prof`'s unit of work on every CPU, print it, run
    /// nothing ([`crate::run::idle`]).
    IdleCalibrate,
}

/// The output formats of `--output-format` (several may be combined).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputFormat {
    /// fio's normal (human) output.
    pub normal: bool,
    /// Terse (`--minimal`, `terse`, `csv`).
    pub terse: bool,
    /// JSON.
    pub json: bool,
    /// JSON with latency bins (implies `json`).
    pub json_plus: bool,
}

impl Default for OutputFormat {
    fn default() -> Self {
        OutputFormat { normal: true, terse: false, json: false, json_plus: false }
    }
}

/// `--eta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Eta {
    /// On a terminal only.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// A parsed command line: run-level options and the resolved jobs.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// What to do.
    pub action: Action,
    /// `--output-format`.
    pub output_format: OutputFormat,
    /// `--output=FILE`: write the report there instead of standard output.
    pub output: Option<PathBuf>,
    /// `--eta`.
    pub eta: Eta,
    /// `--eta-newline=TIME`: start a new ETA line this often.
    pub eta_newline: Option<Duration>,
    /// `--eta-interval=TIME`: update the ETA this often (at least 250 ms, as fio).
    pub eta_interval: Option<Duration>,
    /// `--status-interval=TIME`: print the full report this often (at least 1 s).
    pub status_interval: Option<Duration>,
    /// `--terse-version` (2–5; default 3).
    pub terse_version: u32,
    /// `--section=NAME` (repeatable): run only these job sections.
    pub sections: Vec<String>,
    /// `--readonly`: refuse jobs that write or trim.
    pub readonly: bool,
    /// `--warnings-fatal`.
    pub warnings_fatal: bool,
    /// `--bandwidth-log`: the run's aggregate bandwidth logs (`agg-read_bw.log`, …).
    pub bandwidth_log: bool,
    /// `--aux-path=DIR`: where fio puts its auxiliary files.
    pub aux_path: Option<PathBuf>,
    /// The job files, in order.
    pub job_files: Vec<PathBuf>,
    /// The jobs: command-line jobs first, then those of each job file.
    pub jobs: Vec<JobSpec>,
    /// fio's JSON "global options": the options of the global sections (and, with at most one job
    /// file, the command-line options before the first `--name`), as written.
    pub global_options: Vec<(String, Option<String>)>,
    /// `--showcmd`'s lines, one per job file.
    pub showcmd: Vec<String>,
    /// Notes for stderr (accepted-and-ignored command-line options such as `--debug`).
    pub notes: Vec<String>,
    /// `--zone-report-out=FILE` (zonekit's own): write the zones of every zoned target after the
    /// run, in blkzone's format.
    pub zone_report_out: Option<PathBuf>,
    /// `--clock=sim|real` (zonekit's own): the clock of a run on devices with a timing model.
    pub clock: crate::run::ClockChoice,
    /// `--zoned-qd1-writes=0|1` and `--max-sectors-kb=N` (zonekit's own): the block layer's queue
    /// settings of zonekit's devices for this run.
    pub queue: crate::run::QueueOverrides,
    /// `--debug=CLASS,…`: the classes turned on.
    pub debug: crate::debug::DebugMask,
    /// What `--debug` prints on standard output as it is read (`zonekit: set debug option parse`).
    pub debug_info: String,
    /// `--debug=parse` (or `file`, `io`): fio's trace of this command line and its job files.
    pub debug_trace: Option<crate::debug::RunTrace>,
    /// `--profile=NAME` (or a job file's `profile=NAME`): the built-in profile whose jobs run
    /// after the others.
    pub profile: Option<Profile>,
    /// How many of [`Invocation::jobs`], at their end, the profile made: fio loads a profile
    /// once the other jobs are parsed, so their header lines and its version line come first.
    pub profile_jobs: usize,
    /// `--debug=job:N`: only the lines of the N-th job (0-based) once it starts.
    pub debug_jobno: Option<u32>,
    /// `--idle-prof=system|percpu`: report how idle the CPUs were during the run.
    pub idle_prof: Option<crate::run::idle::IdleProf>,
}

impl Invocation {
    /// fio's JSON "global options" object: the global echo without bare flags.
    pub fn json_global_options(&self) -> Vec<(&str, &str)> {
        self.global_options.iter().filter_map(|(k, v)| v.as_deref().map(|v| (k.as_str(), v))).collect()
    }

    /// Checks that every job can run (engines and options zonekit implements), stopping at the
    /// first that cannot, with one line naming it. `--parse-only` does not call this.
    pub fn check_runnable(&self) -> Result<(), BenchError> {
        let clones: u64 = self.jobs.iter().map(|j| u64::from(j.options.numjobs.max(1))).sum();
        if clones > MAX_JOBS {
            // fio refuses the run while it adds the jobs, before any starts (exit code 1).
            return Err(BenchError::Refused(format!(
                "error: maximum number of jobs reached. ({clones} jobs with numjobs, at most {MAX_JOBS} as in fio)"
            )));
        }
        self.jobs.iter().try_for_each(JobSpec::check_runnable)
    }
}

/// The most jobs (clones included) a run may have: fio 3.33 keeps its jobs in shared-memory
/// segments of 8 and makes at most 511 of them (`REAL_MAX_JOBS` 4096 / 8, less one).
pub const MAX_JOBS: u64 = 4088;

/// How a command-line option takes its argument (getopt's `has_arg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// No argument.
    None,
    /// `--opt=value` or `--opt value`.
    Required,
    /// Only `--opt=value`.
    Optional,
}

/// fio 3.33's run-level options: name, argument, what zonekit does with it.
pub const RUN_OPTIONS: &[(&str, Arg, &str)] = &[
    ("output", Arg::Required, "write the report to this file"),
    ("latency-log", Arg::Required, "rejected, as fio rejects it (deprecated; use write_lat_log)"),
    ("bandwidth-log", Arg::None, "write the aggregate bandwidth logs agg-{read,write,trim}_bw.log"),
    ("minimal", Arg::None, "terse output"),
    ("output-format", Arg::Required, "comma list of normal, json, json+, terse (minimal, csv)"),
    ("append-terse", Arg::Optional, "add terse output"),
    ("version", Arg::None, "print zonekit-<version>"),
    ("help", Arg::None, "print the usage"),
    ("cmdhelp", Arg::Optional, "help on an option, or all options"),
    ("enghelp", Arg::Optional, "list engines, or an engine's options"),
    ("showcmd", Arg::None, "print the job files as command lines"),
    ("readonly", Arg::None, "refuse jobs that write or trim; create and extend no file"),
    ("eta", Arg::Required, "always, never or auto"),
    ("eta-interval", Arg::Required, "ETA update interval (at least 250ms)"),
    ("eta-newline", Arg::Required, "start a new ETA line this often"),
    (
        "debug",
        Arg::Required,
        "fio's debug classes: `help` lists them; each prints fio's trace lines of that class (`blktrace`'s only during blktrace replay, which is refused)",
    ),
    ("parse-only", Arg::None, "parse and check, run nothing"),
    ("section", Arg::Required, "run only this job section (repeatable)"),
    ("inflate-log", Arg::Required, "print a compressed log (`log_store_compressed`, `.log.fz`) as text"),
    ("alloc-size", Arg::Required, "accepted and ignored (fio's shared-memory pool size)"),
    (
        "profile",
        Arg::Required,
        "run a built-in profile's jobs after the others: tiobench or act (--cmdhelp after it lists the profile's options)",
    ),
    ("warnings-fatal", Arg::None, "accepted"),
    ("max-jobs", Arg::Required, "accepted and ignored (fio ignores it too)"),
    ("terse-version", Arg::Required, "terse format version 2–5"),
    ("server", Arg::Optional, "refused (client/server mode)"),
    ("daemonize", Arg::Required, "refused (client/server mode)"),
    ("client", Arg::Required, "refused (client/server mode)"),
    ("remote-config", Arg::Required, "refused (client/server mode)"),
    ("cpuclock-test", Arg::None, "refused (fio's self-test)"),
    ("crctest", Arg::Optional, "refused (fio's self-test)"),
    ("memcpytest", Arg::Optional, "refused (fio's self-test)"),
    (
        "idle-prof",
        Arg::Required,
        "report how idle the CPUs were during the run: system, percpu (each CPU too), or calibrate (time the unit of work, print it and exit)",
    ),
    ("status-interval", Arg::Required, "print the full report this often (at least 1s)"),
    ("trigger-file", Arg::Required, "refused (triggers)"),
    ("trigger-timeout", Arg::Required, "refused (triggers)"),
    ("trigger", Arg::Required, "refused (triggers)"),
    ("trigger-remote", Arg::Required, "refused (triggers)"),
    ("aux-path", Arg::Required, "accepted (where fio puts auxiliary files)"),
    ("merge-blktrace-only", Arg::None, "refused (blktrace merging)"),
    (
        "zone-report-out",
        Arg::Required,
        "zonekit: write every zoned target's zones after the run to this file, in blkzone's format",
    ),
    (
        "clock",
        Arg::Required,
        "zonekit: sim or real, the clock of a run on devices with a timing model (default: sim when every job runs on one and none offloads its submissions; real paces each completion at the model's time)",
    ),
    (
        "zoned-qd1-writes",
        Arg::Required,
        "zonekit: 0 or 1, send every zone write of zonekit's devices from one worker at queue depth 1 (Linux's /sys/block/X/queue/zoned_qd1_writes; default: the device's, on for rotational drives)",
    ),
    (
        "max-sectors-kb",
        Arg::Required,
        "zonekit: the largest request zonekit's block layer builds for zonekit's devices, in KiB (Linux's max_sectors_kb; default: the device's)",
    ),
    (
        "host-io-ns",
        Arg::Required,
        "zonekit: nanoseconds of simulated time each job spends per I/O it queues (fio's reaping, next offset and io_submit; simulated clock only; default 0)",
    ),
];

/// A long option the command line can name.
#[derive(Clone, Copy)]
enum Long {
    Run(&'static str, Arg),
    Job(&'static OptionDef),
}

impl Long {
    fn arg(&self) -> Arg {
        match self {
            Long::Run(_, a) => *a,
            // getopt: fio's switches (FIO_OPT_STR_SET) take an optional argument, every other
            // option a required one.
            Long::Job(d) => {
                if matches!(d.kind, Kind::Flag) {
                    Arg::Optional
                } else {
                    Arg::Required
                }
            }
        }
    }
}

/// Every long name: run-level options, then fio's options and aliases in table order, then
/// engine options (which fio makes known once an engine is chosen; zonekit checks them against
/// the job's engine when the job is complete).
fn long_names() -> Vec<(&'static str, Long)> {
    let mut v: Vec<(&'static str, Long)> = RUN_OPTIONS.iter().map(|(n, a, _)| (*n, Long::Run(n, *a))).collect();
    for d in table::OPTIONS {
        v.push((d.name, Long::Job(d)));
        for a in d.aliases {
            v.push((a, Long::Job(d)));
        }
    }
    for e in engines::ENGINES {
        for d in e.options {
            if !v.iter().any(|(n, _)| *n == d.name) {
                v.push((d.name, Long::Job(d)));
            }
            for a in d.aliases {
                if !v.iter().any(|(n, _)| n == a) {
                    v.push((a, Long::Job(d)));
                }
            }
        }
    }
    v
}

fn lookup_long(name: &str, all: &[(&'static str, Long)]) -> Result<(&'static str, Long), BenchError> {
    if let Some((n, l)) = all.iter().find(|(n, _)| *n == name) {
        return Ok((n, *l));
    }
    let cands: Vec<&(&'static str, Long)> = all.iter().filter(|(n, _)| n.starts_with(name)).collect();
    match cands.as_slice() {
        [] => {
            let best = all.iter().map(|(n, _)| (distance(name, n), *n)).min_by_key(|x| x.0);
            let hint = match best {
                Some((d, n)) if d <= name.chars().count().div_ceil(2) => format!(" (did you mean --{n}?)"),
                _ => String::new(),
            };
            Err(BenchError::Usage(format!("unrecognized option '--{}'{hint}", one_line(name))))
        }
        [one] => Ok((one.0, one.1)),
        many => {
            // getopt_long_only (glibc) calls any abbreviation with several matches ambiguous,
            // even between fio's alike job options.
            let names: Vec<String> = many.iter().take(8).map(|(n, _)| format!("--{n}")).collect();
            Err(BenchError::Usage(format!(
                "option '--{}' is ambiguous; possibilities: {}{}",
                one_line(name),
                names.join(" "),
                if many.len() > 8 { " …" } else { "" }
            )))
        }
    }
}

/// A section of command-line options: global (`job` None) or a job.
struct CmdSection {
    job: Option<String>,
    entries: Vec<Entry>,
}

/// Parses `zonekit bench`'s arguments (without the program and subcommand names), reads the
/// job files through `env`, and resolves the jobs.
pub fn parse_args(args: &[String], env: &Env) -> Result<Invocation, BenchError> {
    let all = long_names();
    let mut inv = Invocation {
        action: Action::Run,
        output_format: OutputFormat::default(),
        output: None,
        eta: Eta::Auto,
        eta_newline: None,
        eta_interval: None,
        status_interval: None,
        terse_version: 3,
        sections: Vec::new(),
        readonly: false,
        warnings_fatal: false,
        bandwidth_log: false,
        aux_path: None,
        job_files: Vec::new(),
        jobs: Vec::new(),
        global_options: Vec::new(),
        showcmd: Vec::new(),
        notes: Vec::new(),
        zone_report_out: None,
        clock: crate::run::ClockChoice::Auto,
        queue: crate::run::QueueOverrides::default(),
        debug: crate::debug::DebugMask::default(),
        debug_info: String::new(),
        debug_trace: None,
        profile: None,
        profile_jobs: 0,
        debug_jobno: None,
        idle_prof: None,
    };
    let mut cmd_sections: Vec<CmdSection> = vec![CmdSection { job: None, entries: Vec::new() }];
    let mut skipping = false;
    let mut parse_only = false;
    let mut showcmd = false;
    let mut i = 0;
    let mut only_files = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if only_files || arg == "-" || !arg.starts_with('-') {
            inv.job_files.push(PathBuf::from(arg));
            continue;
        }
        if arg == "--" {
            only_files = true;
            continue;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let (canon, long) = lookup_long(name, &all)?;
        let value = match long.arg() {
            Arg::None => {
                if inline.is_some() {
                    return Err(BenchError::Usage(format!("option '--{canon}' doesn't allow an argument")));
                }
                None
            }
            Arg::Optional => inline,
            Arg::Required => match inline {
                Some(v) if !v.is_empty() => Some(v),
                Some(_) => return Err(BenchError::Usage(format!("option '--{canon}' requires an argument"))),
                None => match args.get(i) {
                    Some(next) if !next.starts_with("--") => {
                        i += 1;
                        Some(next.clone())
                    }
                    _ => return Err(BenchError::Usage(format!("option '--{canon}' requires an argument"))),
                },
            },
        };
        match long {
            Long::Job(def) => {
                if def.name == "name" {
                    let v = value.clone().unwrap_or_default();
                    let global = v.starts_with("global");
                    skipping = !global && !inv.sections.is_empty() && !inv.sections.contains(&v);
                    if skipping {
                        continue;
                    }
                    cmd_sections.push(CmdSection { job: if global { None } else { Some(v) }, entries: Vec::new() });
                }
                if skipping {
                    continue;
                }
                let Some(sec) = cmd_sections.last_mut() else { continue };
                let at = Origin::CommandLine { job: sec.job.clone() };
                let value = match value {
                    Some(v) => Some(jobfile::expand_value(canon, &v, &env_without_vars(env), &at)?),
                    None => None,
                };
                sec.entries.push(Entry { key: canon.to_string(), value, at });
            }
            Long::Run(n, _) => {
                if let Some(done) = run_option(&mut inv, n, value.as_deref(), &mut parse_only, &mut showcmd)? {
                    inv.action = done;
                    return Ok(inv);
                }
            }
        }
    }
    if showcmd {
        inv.action = Action::ShowCmd;
    } else if parse_only {
        inv.action = Action::ParseOnly;
    }

    let mut resolver = Resolver::new(inv.readonly, inv.sections.clone());
    for s in &cmd_sections {
        // fio loads an engine as soon as the command line names it, so an engine it does not
        // know fails there (in a job file it fails only when the job runs).
        for e in &s.entries {
            if e.key == "ioengine"
                && let Some(v) = &e.value
                && engines::find(v.trim()).is_none()
                && !v.trim().starts_with("external:")
            {
                return Err(BenchError::BadValue {
                    at: e.at.clone(),
                    option: "ioengine".into(),
                    value: one_line(v),
                    why: "not an I/O engine zonekit or fio 3.33 knows (see --enghelp)".into(),
                });
            }
        }
        match &s.job {
            None => resolver.add_global(&s.entries, false)?,
            Some(name) => {
                resolver.add_job(
                    name,
                    Origin::CommandLine { job: Some(name.clone()) },
                    &s.entries,
                    false,
                    false,
                    None,
                )?;
            }
        }
    }
    let mut files: Vec<JobFile> = Vec::new();
    for (idx, path) in inv.job_files.iter().enumerate() {
        if idx > 0 {
            resolver.reset_defaults();
        }
        let file = jobfile::parse_job_file(path, env)?;
        resolver.add_job_file(&file, idx)?;
        files.push(file);
    }
    let (act, profile_jobs) = add_profile_jobs(&mut inv, &mut resolver, &cmd_sections, &files, env)?;
    inv.global_options = resolver.global_echo();
    inv.jobs = resolver.finish()?;
    inv.profile_jobs = profile_jobs;
    if let Some(hooks) = act {
        // fio hooks every job of an act run, the profile's own and the others.
        for j in &mut inv.jobs {
            j.options.act = Some(hooks);
        }
    }
    if ["parse", "file", "io"].iter().any(|c| inv.debug.has(c)) {
        inv.debug_trace = Some(parse_trace(&inv, &cmd_sections, &files, env));
    }
    if showcmd {
        inv.showcmd = files.iter().map(showcmd_line).collect();
    }
    if inv.jobs.is_empty() && matches!(inv.action, Action::Run) {
        let why = match inv.job_files.as_slice() {
            [] => "no jobs defined (give job files or --name=…; see --help)".to_string(),
            files => format!(
                "no jobs defined ({} {} no job sections{})",
                files.iter().map(|p| one_line(&p.display().to_string())).collect::<Vec<_>>().join(", "),
                if files.len() == 1 { "has" } else { "have" },
                if inv.sections.is_empty() { "" } else { " matching --section" }
            ),
        };
        return Err(BenchError::Usage(why));
    }
    Ok(inv)
}

/// The profile of the run (`--profile`, or `profile=` in the job files; one per run), and its
/// jobs added after the others, from the profile's options given anywhere in the run, as fio's
/// `load_profile` adds them: its global options onto the current defaults (they show in JSON's
/// "global options"), then its jobs. Returns `act`'s hooks for every job.
fn add_profile_jobs(
    inv: &mut Invocation,
    resolver: &mut Resolver,
    cmd: &[CmdSection],
    files: &[JobFile],
    env: &Env,
) -> Result<(Option<profile::ActHooks>, usize), BenchError> {
    let mut given: Vec<profile::Given> = Vec::new();
    for s in cmd {
        for entry in &s.entries {
            given.push(profile::Given { entry, global: s.job.is_none() });
        }
    }
    for f in files {
        for s in f.sections.iter().filter(|s| s.global || !resolver.skips(&s.name)) {
            for entry in &s.entries {
                given.push(profile::Given { entry, global: s.global });
            }
        }
    }
    let mut chosen: Option<(Profile, Origin)> = inv.profile.map(|p| (p, Origin::CommandLine { job: None }));
    for g in given.iter().filter(|g| g.entry.key == "profile") {
        let name = g.entry.value.as_deref().unwrap_or("").trim();
        // The option table has checked the name.
        let Some(p) = Profile::find(name) else { continue };
        match &chosen {
            Some((q, at)) if *q != p => {
                return Err(BenchError::Conflict {
                    at: g.entry.at.clone(),
                    why: format!(
                        "profile={name}: the run already has profile {} ({at}); a run has one profile",
                        q.name()
                    ),
                });
            }
            Some(_) => {}
            None => chosen = Some((p, g.entry.at.clone())),
        }
    }
    let Some((p, _)) = chosen else { return Ok((None, 0)) };
    inv.profile = Some(p);
    let generated = profile::generate(p, &given)?;
    let plain = env_without_vars(env);
    let expand = |es: Vec<Entry>| -> Result<Vec<Entry>, BenchError> {
        es.into_iter()
            .map(|mut e| {
                if let Some(v) = &e.value {
                    e.value = Some(jobfile::expand_value(&e.key, v, &plain, &e.at)?);
                }
                Ok(e)
            })
            .collect()
    };
    let (global, jobs) = generated.sections();
    let added = jobs.len();
    resolver.add_global(&expand(global)?, false)?;
    for (name, entries) in jobs {
        resolver.add_job(
            &name,
            Origin::CommandLine { job: Some(name.clone()) },
            &expand(entries)?,
            false,
            false,
            None,
        )?;
    }
    Ok((generated.act, added))
}

/// Command-line values get keyword arithmetic (`--numjobs='$ncpus*2'`) but no `${VAR}`: the shell
/// expands variables there, and fio leaves a quoted `${VAR}` as it is.
fn env_without_vars(env: &Env) -> Env {
    env.clone().with_vars(|_| None)
}

/// Applies a run-level option; returns an action that ends parsing (help, version, …).
fn run_option(
    inv: &mut Invocation,
    name: &str,
    v: Option<&str>,
    parse_only: &mut bool,
    showcmd: &mut bool,
) -> Result<Option<Action>, BenchError> {
    let arg = v.unwrap_or("");
    let bad = |why: &str| BenchError::Usage(format!("--{name}={}: {why}", one_line(arg)));
    match name {
        "output" => inv.output = Some(PathBuf::from(arg)),
        "latency-log" => {
            return Err(BenchError::Usage("--latency-log is deprecated; use the per-job write_lat_log option".into()));
        }
        "bandwidth-log" => inv.bandwidth_log = true,
        "minimal" => inv.output_format = OutputFormat { normal: false, terse: true, json: false, json_plus: false },
        "output-format" => {
            let mut f = OutputFormat { normal: false, terse: false, json: false, json_plus: false };
            for part in arg.split(',') {
                match part {
                    "minimal" | "terse" | "csv" => f.terse = true,
                    "json" => f.json = true,
                    "json+" => {
                        f.json = true;
                        f.json_plus = true;
                    }
                    "normal" => f.normal = true,
                    _ => return Err(bad("expected a comma list of normal, json, json+, terse")),
                }
            }
            inv.output_format = f;
        }
        "append-terse" => inv.output_format.terse = true,
        "version" => return Ok(Some(Action::Version)),
        "help" => return Ok(Some(Action::Help)),
        "cmdhelp" => return Ok(Some(Action::CmdHelp(v.map(str::to_string)))),
        "enghelp" => return Ok(Some(Action::EngHelp(v.map(str::to_string)))),
        "showcmd" => *showcmd = true,
        "readonly" => inv.readonly = true,
        "eta" => {
            inv.eta = match arg {
                "always" => Eta::Always,
                "never" => Eta::Never,
                "auto" => Eta::Auto,
                _ => return Err(bad("expected always, never or auto")),
            }
        }
        "eta-interval" => {
            let t = value::parse_time(arg, true).map_err(|e| bad(&e))?;
            if t < Duration::from_millis(250) {
                return Err(bad("the ETA interval must be at least 250ms"));
            }
            inv.eta_interval = Some(t);
        }
        "eta-newline" => {
            let t = value::parse_time(arg, true).map_err(|e| bad(&e))?;
            if t < Duration::from_millis(1) {
                return Err(bad("too short (at least 1ms)"));
            }
            inv.eta_newline = Some(t);
        }
        "status-interval" => {
            let t = value::parse_time(arg, true).map_err(|e| bad(&e))?;
            if t < Duration::from_secs(1) {
                return Err(bad("too short (at least 1s)"));
            }
            inv.status_interval = Some(t);
        }
        "debug" => {
            if arg == "help" || arg == "?" {
                return Ok(Some(Action::DebugHelp));
            }
            set_debug(inv, arg)?;
        }
        "parse-only" => *parse_only = true,
        "section" => {
            if arg == "global" {
                return Err(bad("global cannot be the only section"));
            }
            inv.sections.push(arg.to_string());
        }
        "alloc-size" | "max-jobs" => {
            value::parse_int(arg, 1024).map_err(|e| bad(&e))?;
        }
        "warnings-fatal" => inv.warnings_fatal = true,
        "terse-version" => match arg.trim().parse::<u32>() {
            Ok(n @ 2..=5) => inv.terse_version = n,
            _ => return Err(bad("expected a terse version from 2 to 5")),
        },
        "aux-path" => inv.aux_path = Some(PathBuf::from(arg)),
        "zone-report-out" => {
            if arg.is_empty() {
                return Err(bad("needs a file name"));
            }
            inv.zone_report_out = Some(PathBuf::from(arg));
        }
        "clock" => {
            inv.clock = match arg {
                "sim" => crate::run::ClockChoice::Sim,
                "real" => crate::run::ClockChoice::Real,
                _ => return Err(bad("expected sim or real")),
            }
        }
        "zoned-qd1-writes" => {
            inv.queue.zoned_qd1_writes = Some(match arg {
                "0" => false,
                "1" => true,
                _ => return Err(bad("expected 0 or 1")),
            })
        }
        "max-sectors-kb" => {
            let kb: u32 = arg.parse().map_err(|_| bad("expected a number of KiB"))?;
            if !(4..=1_048_576).contains(&kb) {
                return Err(bad("expected 4 to 1048576 KiB"));
            }
            inv.queue.max_sectors_kb = Some(kb);
        }
        "host-io-ns" => {
            let ns: u64 = arg.parse().map_err(|_| bad("expected a number of nanoseconds"))?;
            if ns > 1_000_000_000 {
                return Err(bad("expected 0 to 1000000000 nanoseconds"));
            }
            inv.queue.host_io_ns = Some(ns);
        }
        "server" | "daemonize" | "client" | "remote-config" => {
            return Err(BenchError::Usage(format!("--{name}: fio's client/server mode is not supported by zonekit")));
        }
        "profile" => match Profile::find(arg) {
            Some(p) => inv.profile = Some(p),
            // fio's words (fio checks when the run starts, and exits with 1).
            None => return Err(BenchError::Usage(format!("profile '{}' not found", one_line(arg)))),
        },
        "inflate-log" => return Ok(Some(Action::InflateLog(PathBuf::from(arg)))),
        "idle-prof" => match crate::run::idle::IdleProf::parse(arg) {
            // fio calibrates as it reads the option, and exits.
            Some(crate::run::idle::IdleProf::Calibrate) => return Ok(Some(Action::IdleCalibrate)),
            Some(p) => inv.idle_prof = Some(p),
            None => return Err(BenchError::Usage(format!("incorrect idle-prof option: {}", one_line(arg)))),
        },
        "cpuclock-test"
        | "crctest"
        | "memcpytest"
        | "merge-blktrace-only"
        | "trigger-file"
        | "trigger-timeout"
        | "trigger"
        | "trigger-remote" => {
            return Err(BenchError::Usage(format!("--{name}: not supported by zonekit")));
        }
        _ => return Err(BenchError::Usage(format!("--{name}: not supported by zonekit"))),
    }
    Ok(None)
}

/// One job file as a command line, as fio's `--showcmd` prints it: each section's options with
/// their canonical names (after `${VAR}` and keyword substitution), `--name=` before each job,
/// `description` quoted.
pub fn showcmd_line(file: &JobFile) -> String {
    let mut s = String::from("zonekit bench ");
    let mut engine = "psync".to_string();
    for sec in &file.sections {
        if !sec.global {
            s.push_str(&format!("--name={} ", sec.name));
        }
        let mut general: Vec<(&'static OptionDef, &Entry)> = Vec::new();
        let mut rest: Vec<(String, &Entry)> = Vec::new();
        for e in &sec.entries {
            match table::find(&e.key) {
                Some(d) => general.push((d, e)),
                None => rest.push((e.key.clone(), e)),
            }
        }
        general.sort_by_key(|(d, _)| std::cmp::Reverse(d.prio));
        for (d, e) in &general {
            if d.name == "ioengine"
                && let Some(v) = &e.value
            {
                engine = v.clone();
            }
        }
        let mut items: Vec<(String, Option<String>)> =
            general.iter().map(|(d, e)| (d.name.to_string(), e.value.clone())).collect();
        for (k, e) in rest {
            let name = engines::find(&engine)
                .and_then(|eng| engines::find_option(eng, &k))
                .map(|d| d.name.to_string())
                .unwrap_or(k);
            items.push((name, e.value.clone()));
        }
        for (k, v) in items {
            match v {
                Some(v) if k == "description" => s.push_str(&format!("--{k}=\"{v}\" ")),
                Some(v) => s.push_str(&format!("--{k}={v} ")),
                None => s.push_str(&format!("--{k} ")),
            }
        }
    }
    s
}

/// The version string (`zonekit-<version>`, where fio prints `fio-3.33`).
pub fn version_string() -> String {
    format!("zonekit-{}", env!("CARGO_PKG_VERSION"))
}

/// `zonekit bench --help`.
pub fn usage() -> String {
    let implemented: Vec<&str> =
        engines::ENGINES.iter().filter(|e| e.support == EngineSupport::Implemented).map(|e| e.name).collect();
    format!(
        "\
{ver}
Usage: zonekit bench [options] [job options] <job file(s)>
  --output=FILE         Write the report to FILE
  --output-format=X     normal, terse, json or json+ (a comma list prints several)
  --minimal             Terse output (same as --output-format=terse)
  --terse-version=N     Terse version: 2, 3 (default), 4 or 5
  --append-terse        Add terse output to the chosen format
  --bandwidth-log       Write the aggregate bandwidth logs agg-{{read,write,trim}}_bw.log
  --parse-only          Parse and check the options, run nothing
  --showcmd             Print the job files as command lines
  --section=NAME        Run only job section NAME (repeatable)
  --readonly            Refuse jobs that write or trim; create and extend no file
  --eta=when            always, never or auto: when to print the ETA line
  --eta-newline=TIME    Start a new ETA line every TIME
  --eta-interval=TIME   Update the ETA every TIME (at least 250ms)
  --status-interval=T   Print the full report every T
  --cmdhelp[=OPT|all]   Help on a job option, or list them all
  --enghelp[=ENG[,OPT]] List the I/O engines, or an engine's options
  --debug=X             Debug classes: help lists fio's
  --profile=NAME        Run fio's built-in profile tiobench or act (after it, --cmdhelp
                        lists the profile's options)
  --idle-prof=X         Report CPU idleness: system, or percpu (each CPU too), or
                        calibrate (time the unit of work only, and exit)
  --version             Print the version
  --help                Print this help

zonekit's own options (not fio's; job files stay fio's):
  --clock=sim|real      The clock of a run on devices with a timing model (default: sim
                        when every job runs on one and none has io_submit_mode=offload)
  --zoned-qd1-writes=0|1  Send every zone write of zonekit's devices from one worker at
                        queue depth 1 (Linux's queue/zoned_qd1_writes; default: the device's,
                        on for spinning disks)
  --max-sectors-kb=N    Largest request zonekit's block layer builds for zonekit's devices
                        (Linux's queue/max_sectors_kb; default: the device's)
  --host-io-ns=N        Simulated time each job spends per I/O it queues (fio's reaping,
                        next offset and io_submit; simulated clock only; default 0)
  --zone-report-out=FILE  Write every zoned target's zones after the run (blkzone's format)

Job options are fio 3.33's: --name=X starts a job and the options after it apply to it
(--opt=value or --opt value); options before the first --name apply to every job of the
command line and of the first job file. Job files use fio's syntax.

Engines: {engines}. libaio is Linux native asynchronous I/O (io_setup/io_submit/
io_getevents) called directly, without the libaio library: asynchronous only with direct=1
where the file system or device supports it, as with fio. fio's other engines and options are recognised by name:
--parse-only accepts them and a run refuses them with one line naming them.
Sizes take fio's suffixes (k, m, g, t, p; with the default kb_base=1024 'kib' means 1000 as in fio),
times d, h, m, s, ms, us.
",
        ver = version_string(),
        engines = implemented.join(", ")
    )
}

/// fio 3.33's debug classes (`--debug=`), in its order.
pub const DEBUG_CLASSES: [&str; 19] = [
    "process",
    "file",
    "io",
    "mem",
    "blktrace",
    "verify",
    "random",
    "parse",
    "diskutil",
    "job",
    "mutex",
    "profile",
    "time",
    "net",
    "rate",
    "compress",
    "steadystate",
    "helperthread",
    "zbd",
];

/// `--debug=help`: fio's list of its debug classes, on one line.
pub fn debug_help() -> String {
    format!("zonekit: dumping debug options:{},all\n", DEBUG_CLASSES.join(","))
}

/// The classes whose trace lines zonekit does not print: `blktrace`, whose lines fio prints only
/// while it replays a blktrace file, which zonekit refuses. (`job` selects jobs; it has no lines.)
pub const UNTRACED_CLASSES: &[&str] = &["blktrace"];

/// `--debug=CLASS[,CLASS…]`, read as fio's set_debug reads it (classes matched by prefix, `all`,
/// `job:N`): fio's line for each on standard output (`set debug option parse`, `set all debug
/// options`, `set debug jobno N`). A class fio does not know, or `job` without its number, stops
/// with fio's words (fio only complains and runs on). Classes zonekit prints no trace for get a
/// note on standard error.
fn set_debug(inv: &mut Invocation, arg: &str) -> Result<(), BenchError> {
    let mut untraced: Vec<&'static str> = Vec::new();
    for opt in arg.split(',') {
        if opt.starts_with("all") {
            inv.debug_info.push_str("zonekit: set all debug options\n");
            for c in DEBUG_CLASSES {
                inv.debug.set(c);
            }
            untraced.extend(UNTRACED_CLASSES);
            continue;
        }
        match DEBUG_CLASSES.iter().find(|c| opt.starts_with(*c)) {
            Some(&"job") => match opt.split_once(':') {
                Some((_, n)) => {
                    let n = n.trim().parse::<i64>().unwrap_or(0);
                    inv.debug_info.push_str(&format!("zonekit: set debug jobno {n}\n"));
                    inv.debug_jobno = u32::try_from(n).ok();
                }
                None => return Err(BenchError::Usage(format!("--debug={}: missing job number", one_line(arg)))),
            },
            Some(c) => {
                inv.debug_info.push_str(&format!("zonekit: set debug option {}\n", one_line(opt)));
                inv.debug.set(c);
                if UNTRACED_CLASSES.contains(c) {
                    untraced.push(*c);
                }
            }
            None => return Err(BenchError::Usage(format!("debug mask {} not found", one_line(opt)))),
        }
    }
    let untraced: Vec<&str> = DEBUG_CLASSES.iter().copied().filter(|c| untraced.contains(c)).collect();
    if !untraced.is_empty() {
        inv.notes.push(format!(
            "--debug: zonekit prints no trace lines of class {}: fio prints them only while it replays a blktrace file, which zonekit refuses",
            untraced.join(",")
        ));
    }
    Ok(())
}

/// `--debug=parse`: fio's trace of what was parsed (see [`crate::debug::ParseTrace`]).
fn parse_trace(inv: &Invocation, cmd: &[CmdSection], files: &[JobFile], env: &Env) -> crate::debug::RunTrace {
    let dry = !matches!(inv.action, Action::Run);
    let jobs = inv
        .jobs
        .iter()
        .map(|j| {
            let n = j.options.numjobs.max(1);
            let mut o = j.options.clone();
            o.name = j.jobname.clone();
            // fio names a job's files after it when no `filename` (nor `read_iolog`) does.
            let alloc = if o.filename.is_none() && o.replay.read_iolog.is_none() {
                (0..n)
                    .map(|k| crate::run::sizing::file_paths(&o, k).iter().map(|p| p.display().to_string()).collect())
                    .collect()
            } else {
                Vec::new()
            };
            crate::debug::JobFiles { numjobs: n, alloc }
        })
        .collect();
    let mut t = crate::debug::ParseTrace::new(std::process::id(), dry, inv.debug, jobs);
    let kv = |es: &[Entry]| es.iter().map(|e| (e.key.clone(), e.value.clone())).collect::<Vec<_>>();
    let secs: Vec<(bool, crate::debug::Options)> =
        cmd.iter().filter(|s| !s.entries.is_empty()).map(|s| (s.job.is_some(), kv(&s.entries))).collect();
    t.command_line(&secs);
    for (i, f) in files.iter().enumerate() {
        if i > 0 {
            t.next_file();
        }
        let text = if f.path.as_os_str() == "-" {
            None
        } else {
            env.read(&f.path).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let secs: Vec<(bool, bool, crate::debug::Options)> = f
            .sections
            .iter()
            .map(|s| {
                let run = s.global || inv.sections.is_empty() || inv.sections.contains(&s.name);
                (s.global, run, kv(&s.entries))
            })
            .collect();
        t.job_file(&f.path.display().to_string(), text.as_deref(), &secs);
    }
    t.finish()
}

/// `--cmdhelp`: `None` or `all` lists every option as a tree (children under their parent);
/// a name shows that option in detail. After `--profile=NAME`, the profile's options instead,
/// as fio prints them. As in fio, the profiles' own options are left out of the general list.
pub fn cmdhelp(name: Option<&str>, profile: Option<Profile>) -> Result<String, BenchError> {
    if let Some(p) = profile {
        return profile::cmdhelp(p, name);
    }
    match name {
        None | Some("all") => {
            let general: Vec<OptionDef> =
                table::OPTIONS.iter().filter(|o| !profile::is_profile_option(o.name)).cloned().collect();
            Ok(option_tree(&general))
        }
        Some(n) => {
            if let Some(d) = table::find(n) {
                return Ok(option_detail(d, None));
            }
            for e in engines::ENGINES {
                if let Some(d) = engines::find_option(e, n) {
                    return Ok(option_detail(d, Some(e.name)));
                }
            }
            let best = table::OPTIONS
                .iter()
                .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
                .map(|name| (distance(n, name), name))
                .min_by_key(|x| x.0);
            let hint = match best {
                Some((d, b)) if d < 3 => format!(" (did you mean {b}?)"),
                _ => String::new(),
            };
            Err(BenchError::Usage(format!("--cmdhelp={}: no such option{hint}", one_line(n))))
        }
    }
}

fn option_tree(opts: &[OptionDef]) -> String {
    let mut out = String::new();
    fn walk(out: &mut String, opts: &[OptionDef], o: &OptionDef, depth: usize) {
        let name = format!("{}{}", "  ".repeat(depth), o.name);
        out.push_str(&format!("{name:<24}: {}\n", o.help));
        if depth < 4 {
            for c in opts.iter().filter(|c| c.parent == Some(o.name) || o.aliases.iter().any(|a| c.parent == Some(*a)))
            {
                walk(out, opts, c, depth + 1);
            }
        }
    }
    for o in opts.iter().filter(|o| !matches!(o.kind, Kind::Removed | Kind::Deprecated)) {
        let parent_known = o.parent.is_some_and(|p| opts.iter().any(|x| x.matches(p)));
        if !parent_known {
            walk(&mut out, opts, o, 0);
        }
    }
    out
}

fn option_detail(d: &OptionDef, engine: Option<&str>) -> String {
    let mut s = format!("{:>20}: {}\n", d.name, d.help);
    if !d.aliases.is_empty() {
        s.push_str(&format!("{:>20}: {}\n", "alias", d.aliases.join(", ")));
    }
    s.push_str(&format!("{:>20}: {}\n", "type", d.kind.describe()));
    s.push_str(&format!("{:>20}: {}\n", "default", d.default.unwrap_or("no default")));
    if let Some(e) = engine {
        s.push_str(&format!("{:>20}: option of the {e} engine\n", "engine"));
    }
    s.push_str(&format!("{:>20}: {}\n", "zonekit", d.support.label()));
    if let Kind::Choice { choices, .. } | Kind::Choices(choices) = d.kind {
        for (i, c) in choices.iter().enumerate() {
            let label = if i == 0 { "valid values" } else { "" };
            s.push_str(format!("{label:>20}: {:<10} {}", c.name, c.help).trim_end());
            s.push('\n');
        }
    }
    s
}

/// `--enghelp`: no argument lists the engines; `ENGINE` lists its options; `ENGINE,OPT` shows one.
pub fn enghelp(arg: Option<&str>) -> Result<String, BenchError> {
    let arg = arg.unwrap_or("");
    if arg.is_empty() {
        let mut s = String::from("Available IO engines:\n");
        for e in engines::ENGINES {
            let tag = if e.support == EngineSupport::Implemented { "" } else { " (known, not run by zonekit)" };
            s.push_str(&format!("\t{}{tag}\n", e.name));
        }
        return Ok(s);
    }
    let (name, opt) = match arg.split_once(',') {
        Some((n, o)) => (n, Some(o)),
        None => (arg, None),
    };
    let Some(e) = engines::find(name) else {
        return Err(BenchError::Usage(format!("--enghelp={}: IO engine not found", one_line(name))));
    };
    if e.options.is_empty() {
        return Ok(format!("IO engine {} has no options\n", e.name));
    }
    match opt {
        None | Some("all") => Ok(option_tree(e.options)),
        Some(o) => match engines::find_option(e, o) {
            Some(d) => Ok(option_detail(d, Some(e.name))),
            None => Err(BenchError::Usage(format!("--enghelp={}: no such option of {}", one_line(arg), e.name))),
        },
    }
}

/// Parses the arguments with the process environment (a convenience for the `zonekit` binary).
pub fn parse_process_args(args: &[String]) -> Result<Invocation, BenchError> {
    parse_args(args, &Env::process())
}
