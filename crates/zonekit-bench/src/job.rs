//! From lexed sections to resolved jobs: global sections set the defaults of the jobs after
//! them, each job section starts from those defaults, options are parsed through the option
//! table (in fio's priority order within a section), engine options are looked up in the job's
//! engine, then fio's cross-option fixups and checks (`init.c:fixup_options`) run and each job
//! gets its reporting group (`stonewall`, `new_group`, and the implicit stonewall between job
//! files).

use std::collections::BTreeMap;

use crate::error::{BenchError, Origin, one_line};
use crate::jobfile::{Entry, JobFile};
use crate::options::engines::{self, EngineSupport};
use crate::options::job::{JobOptions, RandomDistribution, ZoneMode};
use crate::options::table::{self, Kind, OptionDef, Support};
use crate::options::value::Value;

/// A job, resolved: its options after fixups, its group, and what a run would refuse.
///
/// `numjobs` clones are not expanded: a runner starts `options.numjobs` copies, all in
/// `groupid`, as fio's `add_job` does.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// The name reported in the output (`name=` can change it).
    pub name: String,
    /// The section name (or `--name` value): `$jobname` for generated file names.
    pub jobname: String,
    /// The typed options.
    pub options: JobOptions,
    /// fio's reporting group.
    pub groupid: u32,
    /// Where the job was defined (its section header or the command line).
    pub at: Origin,
    /// Index of the job file among [`crate::cmdline::Invocation::job_files`] (None: command line).
    pub job_file: Option<usize>,
    /// The job's own options as written (canonical names; None for a bare flag), as fio echoes
    /// them in JSON "job options" (which leaves out bare flags) and in `--showcmd`.
    pub echo: Vec<(String, Option<String>)>,
    /// Options that do not go together (fio's `fixup_options` checks, and the warnings of fio
    /// that zonekit makes errors). fio's `--parse-only` does not run these checks, so they are
    /// reported when the job would run ([`JobSpec::check_runnable`]).
    pub conflicts: Vec<Conflict>,
    /// What zonekit would refuse when running the job (empty: it can run).
    pub refusals: Vec<Refusal>,
    /// fio's notes for this job (printed by a run, not by `--parse-only`).
    pub notes: Vec<String>,
}

impl JobSpec {
    /// The options of the JSON "job options" object: the echo without bare flags.
    pub fn json_job_options(&self) -> Vec<(&str, &str)> {
        self.echo.iter().filter_map(|(k, v)| v.as_deref().map(|v| (k.as_str(), v))).collect()
    }

    /// The first conflict or refusal as an error, if the job cannot run.
    pub fn check_runnable(&self) -> Result<(), BenchError> {
        if let Some(c) = self.conflicts.first() {
            if c.as_fio {
                return Err(BenchError::Refused(c.why.clone()));
            }
            return Err(BenchError::Conflict { at: c.at.clone(), why: c.why.clone() });
        }
        match self.refusals.first() {
            None => Ok(()),
            Some(r) => Err(BenchError::Unsupported { at: r.at.clone(), what: r.what.clone(), why: r.why.clone() }),
        }
    }
}

/// Options of a job that do not go together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// Where the option that triggers it was set (or the job).
    pub at: Origin,
    /// What is wrong, naming the options.
    pub why: String,
    /// `why` is fio's own line (after its `fio: `), reported as fio reports it, exit code 1
    /// included ([`BenchError::Refused`]).
    pub as_fio: bool,
}

/// Something a job asks for that zonekit recognises but does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Where it was set.
    pub at: Origin,
    /// `option=value` or `ioengine=name`.
    pub what: String,
    /// Why.
    pub why: String,
}

/// Last value, origin and raw text of every option set, by canonical name.
type Values = BTreeMap<&'static str, (Value, Origin, Option<String>)>;

/// The options of one scope (the defaults, or one job) while it is being parsed.
#[derive(Debug, Clone)]
struct Scope {
    opts: JobOptions,
    values: Values,
    echo: Vec<(String, Option<String>)>,
    notes: Vec<String>,
}

impl Scope {
    fn new() -> Scope {
        Scope { opts: JobOptions::default(), values: BTreeMap::new(), echo: Vec::new(), notes: Vec::new() }
    }
}

/// Builds jobs in fio's order from global sections, job sections and command-line jobs.
#[derive(Debug)]
pub struct Resolver {
    defaults: Scope,
    jobs: Vec<JobSpec>,
    groupid: u32,
    prev_group_jobs: u32,
    readonly: bool,
    sections: Vec<String>,
}

impl Resolver {
    /// A resolver; `readonly` is `--readonly`, `sections` the `--section` names (empty: all).
    pub fn new(readonly: bool, sections: Vec<String>) -> Resolver {
        Resolver { defaults: Scope::new(), jobs: Vec::new(), groupid: 0, prev_group_jobs: 0, readonly, sections }
    }

    /// Forgets the global options, as fio does before each job file after the first.
    pub fn reset_defaults(&mut self) {
        self.defaults = Scope::new();
    }

    /// Whether `--section` leaves out the job `name`.
    pub fn skips(&self, name: &str) -> bool {
        !self.sections.is_empty() && !name.starts_with("global") && !self.sections.iter().any(|s| s == name)
    }

    /// Applies options to the defaults (a global section, or command-line options before any
    /// `--name`). `sort` applies fio's option priorities (job files; not the command line).
    pub fn add_global(&mut self, entries: &[Entry], sort: bool) -> Result<(), BenchError> {
        let mut scope = std::mem::replace(&mut self.defaults, Scope::new());
        let r = apply_entries(&mut scope, entries, sort, None);
        self.defaults = scope;
        r
    }

    /// Adds a job: the defaults, then `entries`. `stonewall` is the implicit barrier of a job
    /// file after the first.
    pub fn add_job(
        &mut self,
        jobname: &str,
        at: Origin,
        entries: &[Entry],
        sort: bool,
        stonewall: bool,
        job_file: Option<usize>,
    ) -> Result<(), BenchError> {
        let mut scope = self.defaults.clone();
        scope.echo.clear();
        scope.notes.clear();
        scope.opts.name = jobname.to_string();
        apply_entries(&mut scope, entries, sort, Some(&at))?;
        if stonewall {
            scope.opts.stonewall = true;
        }
        let mut spec = finalize(scope, jobname, at, job_file, self.readonly)?;
        if (spec.options.stonewall || spec.options.new_group) && self.prev_group_jobs > 0 {
            self.prev_group_jobs = 0;
            self.groupid += 1;
        }
        spec.groupid = self.groupid;
        self.prev_group_jobs += 1;
        self.jobs.push(spec);
        Ok(())
    }

    /// The echo of the current global options (fio's JSON "global options").
    pub fn global_echo(&self) -> Vec<(String, Option<String>)> {
        self.defaults.echo.clone()
    }

    /// Adds every section of a lexed job file (index `index` among the job files), with fio's
    /// implicit stonewall before the first job of every file but the first.
    pub fn add_job_file(&mut self, file: &JobFile, index: usize) -> Result<(), BenchError> {
        let mut stonewall = index > 0;
        for s in &file.sections {
            if s.global {
                self.add_global(&s.entries, true)?;
                continue;
            }
            if self.skips(&s.name) {
                continue;
            }
            self.add_job(&s.name, s.at.clone(), &s.entries, true, stonewall, Some(index))?;
            stonewall = false;
        }
        Ok(())
    }

    /// Checks that need every job (`wait_for` targets, per-group consistency) and returns the
    /// jobs.
    pub fn finish(self) -> Result<Vec<JobSpec>, BenchError> {
        for j in &self.jobs {
            if let Some(w) = &j.options.wait_for {
                let at = j.at.clone();
                if *w == j.name {
                    return Err(BenchError::Conflict {
                        at,
                        why: format!("wait_for={}: a job cannot wait for itself", one_line(w)),
                    });
                }
                match self.jobs.iter().filter(|k| k.name == *w).count() {
                    0 => {
                        return Err(BenchError::Conflict {
                            at,
                            why: format!("wait_for={}: no job has that name", one_line(w)),
                        });
                    }
                    1 => {}
                    _ => {
                        return Err(BenchError::Conflict {
                            at,
                            why: format!("wait_for={}: several jobs have that name", one_line(w)),
                        });
                    }
                }
            }
        }
        // fio's td_steadystate_init: a reporting group judges steadiness one way.
        let steady = |o: &JobOptions| (o.steadystate.dur_sec > 0).then_some(o.steadystate);
        for (i, j) in self.jobs.iter().enumerate() {
            if let Some(k) =
                self.jobs[..i].iter().find(|k| k.groupid == j.groupid && steady(&k.options) != steady(&j.options))
            {
                return Err(BenchError::Conflict {
                    at: j.at.clone(),
                    why: format!(
                        "steadystate options differ from job {} of the same reporting group (fio rejects the job: they must be the same within a group)",
                        one_line(&k.name)
                    ),
                });
            }
        }
        for (i, j) in self.jobs.iter().enumerate() {
            if !j.options.group_reporting || !j.options.stats {
                continue;
            }
            if let Some(k) = self.jobs[..i]
                .iter()
                .find(|k| k.groupid == j.groupid && k.options.lat_percentiles != j.options.lat_percentiles)
            {
                return Err(BenchError::Conflict {
                    at: j.at.clone(),
                    why: format!(
                        "lat_percentiles differs from job {} of the same reporting group (group_reporting needs them equal)",
                        one_line(&k.name)
                    ),
                });
            }
        }
        Ok(self.jobs)
    }
}

/// fio's parse priority of an option (`kb_base` first, `filename` last).
fn prio_of(key: &str) -> i8 {
    table::find(key).map(|d| d.prio).unwrap_or(0)
}

fn apply_entries(scope: &mut Scope, entries: &[Entry], sort: bool, job_at: Option<&Origin>) -> Result<(), BenchError> {
    let mut order: Vec<&Entry> = entries.iter().collect();
    if sort {
        order.sort_by_key(|e| std::cmp::Reverse(prio_of(&e.key)));
    }
    let mut deferred = Vec::new();
    for e in order {
        match table::find(&e.key) {
            Some(def) => apply_one(scope, def, e)?,
            None => deferred.push(e),
        }
    }
    for e in deferred {
        let engine_name = scope.opts.ioengine.clone();
        let key = one_line(&e.key);
        if table::NEWER_THAN_333.contains(&e.key.as_str()) {
            return Err(BenchError::UnknownOption {
                at: e.at.clone(),
                option: key,
                why: "option of a fio newer than 3.33; zonekit follows fio 3.33".into(),
            });
        }
        match engines::find(&engine_name) {
            Some(eng) => match engines::find_option(eng, &e.key) {
                Some(def) => apply_one(scope, def, e)?,
                None => {
                    let owners = engines::engines_with_option(&e.key);
                    let why = if owners.is_empty() {
                        unknown_why(&e.key, eng.options)
                    } else {
                        format!(
                            "option of the {} engine{}, but ioengine={}{}",
                            owners.join("/"),
                            if owners.len() > 1 { "s" } else { "" },
                            one_line(&engine_name),
                            if job_at.is_none() { " in this global section" } else { "" }
                        )
                    };
                    return Err(BenchError::UnknownOption { at: e.at.clone(), option: key, why });
                }
            },
            None => {
                let why = if table::find(&e.key).is_none() && engines::engines_with_option(&e.key).is_empty() {
                    format!(
                        "unknown option; ioengine={} is an engine neither zonekit nor fio 3.33 knows, so its options are unknown too",
                        one_line(&engine_name)
                    )
                } else {
                    format!(
                        "not an option of ioengine={}, an engine neither zonekit nor fio 3.33 knows",
                        one_line(&engine_name)
                    )
                };
                return Err(BenchError::UnknownOption { at: e.at.clone(), option: key, why });
            }
        }
    }
    Ok(())
}

/// "unknown option", with fio's "did you mean" (Levenshtein distance at most half the length).
fn unknown_why(key: &str, engine_opts: &[OptionDef]) -> String {
    let mut best: Option<(usize, &str)> = None;
    for name in
        table::OPTIONS.iter().chain(engine_opts).flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
    {
        let d = distance(key, name);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, name));
        }
    }
    match best {
        Some((d, name)) if d <= key.chars().count().div_ceil(2) => format!("unknown option (did you mean {name}?)"),
        _ => "unknown option".into(),
    }
}

/// Levenshtein distance (fio's `string_distance`).
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

fn apply_one(scope: &mut Scope, def: &'static OptionDef, e: &Entry) -> Result<(), BenchError> {
    let bad = |why: String| match &e.value {
        Some(v) => BenchError::BadValue { at: e.at.clone(), option: one_line(&e.key), value: one_line(v), why },
        None => BenchError::Syntax { at: e.at.clone(), why: format!("{}: {why}", one_line(&e.key)) },
    };
    if matches!(def.kind, Kind::Removed) {
        return Err(BenchError::UnknownOption {
            at: e.at.clone(),
            option: one_line(&e.key),
            why: "removed from fio (fio 3.33 rejects it too)".into(),
        });
    }
    let v = def.kind.parse(e.value.as_deref(), scope.opts.kb_base).map_err(bad)?;
    if matches!(def.kind, Kind::Deprecated) {
        scope.notes.push(format!("Option {} is deprecated", def.name));
    }
    if let Some(f) = def.apply {
        f(&mut scope.opts, &v).map_err(bad)?;
    }
    scope.opts.set.insert(def.name);
    scope.values.insert(def.name, (v, e.at.clone(), e.value.clone()));
    scope.echo.push((def.name.to_string(), e.value.clone()));
    Ok(())
}

/// fio's `fixup_options` and the checks zonekit adds where fio only warns.
fn finalize(
    scope: Scope,
    jobname: &str,
    at: Origin,
    job_file: Option<usize>,
    readonly: bool,
) -> Result<JobSpec, BenchError> {
    let Scope { mut opts, values, echo, mut notes } = scope;
    let where_set = |name: &str| values.get(name).map(|v| v.1.clone()).unwrap_or_else(|| at.clone());
    let shown = |name: &str| -> String {
        match values.get(name) {
            Some((_, _, Some(v))) => format!("{name}={}", one_line(v)),
            _ => name.to_string(),
        }
    };
    let mut conflicts: Vec<Conflict> = Vec::new();
    let mut conflict = |at: Origin, why: String| conflicts.push(Conflict { at, why, as_fio: false });
    let o = &mut opts;

    o.readonly = readonly;
    if readonly && (o.rw.writes() || o.rw.trims()) {
        conflict(
            where_set("rw"),
            format!("rw={}: trim and write operations are not allowed with --readonly", o.rw.name()),
        );
    }
    // fio's lines and exit code (init.c:fixup_options), which t/zbd greps.
    let mut refuse = |at: Origin, why: &str| conflicts.push(Conflict { at, why: why.into(), as_fio: true });
    if o.zonemode == ZoneMode::None && o.zonesize != 0 {
        refuse(where_set("zonesize"), "--zonemode=none and --zonesize are not compatible.");
    }
    if o.zonemode == ZoneMode::Zbd && !o.create_serialize {
        refuse(where_set("create_serialize"), "--zonemode=zbd and --create_serialize=0 are not compatible.");
    }
    if o.zonemode == ZoneMode::Strided && o.zonesize == 0 {
        refuse(where_set("zonemode"), "--zonesize must be specified when using --zonemode=strided.");
    }
    let mut conflict = |at: Origin, why: String| conflicts.push(Conflict { at, why, as_fio: false });
    if o.bs_unaligned && o.direct {
        // fio logs `bs_unaligned may not work with raw io` and runs the job, whose O_DIRECT
        // transfers then fail: an error here, with a bad-input exit code.
        conflict(
            where_set("bs_unaligned"),
            "bs_unaligned does not go with direct=1 (O_DIRECT needs aligned transfers)".into(),
        );
    }
    if o.zonemode == ZoneMode::Strided && o.openfiles > 1 {
        o.zonemode = ZoneMode::None;
    }
    if o.zonemode == ZoneMode::Strided && o.zonerange == 0 {
        o.zonerange = o.zonesize;
    }
    if o.rw.reads() {
        o.overwrite = true;
    }
    if let Some(dir) = o.opendir.clone() {
        // fio lists the directory when the option is parsed, and stops there if it cannot.
        match crate::run::sizing::opendir_files(std::path::Path::new(&dir)) {
            Ok(files) => notes.push(format!("opendir added {} files", files.len() + o.filenames().len())),
            Err(e) => {
                conflict(where_set("opendir"), format!("opendir={}: {}", one_line(&dir), zonekit_core::io_text(&e)))
            }
        }
    }
    if (o.log_unix_epoch || o.log_alternate_epoch)
        && crate::sys::clock_ms(o.log_alternate_epoch_clock_id as i32).is_none()
    {
        conflict(
            where_set("log_alternate_epoch_clock_id"),
            format!("log_alternate_epoch_clock_id={}: not a clock of this system", o.log_alternate_epoch_clock_id),
        );
    }
    // Files: a filename list fixes nrfiles to its length.
    if let Some(f) = &o.filename {
        let n = o.filenames().len();
        if n == 0 {
            conflict(where_set("filename"), format!("filename={}: names no file", one_line(f)));
        }
        o.nrfiles = u32::try_from(n).unwrap_or(u32::MAX);
    }
    if o.nrfiles == 0 {
        conflict(where_set("nrfiles"), "nrfiles=0: a job needs at least one file".into());
    }

    if o.openfiles > o.nrfiles || o.openfiles == 0 {
        o.openfiles = o.nrfiles;
    }
    // Block sizes: bsrange and bssplit set the smallest and largest; otherwise bs does.
    for d in 0..3 {
        if o.bssplit[d].is_empty() && o.bsrange.is_none() {
            o.min_bs[d] = o.bs[d];
            o.max_bs[d] = o.bs[d];
        }
    }
    // fio's mmap engine refuses to start when it would msync part of a page (its init).
    if o.ioengine == "mmap" && (o.direct || o.fsync > 0 || o.fdatasync > 0) {
        let page = zonekit_blk::page_size() as u64;
        if o.min_bs.iter().any(|&b| b % page != 0) {
            conflict(
                where_set("ioengine"),
                format!(
                    "ioengine=mmap: with direct=1, fsync or fdatasync every block size must be a multiple of the page size ({page} bytes), as fio's mmap engine requires"
                ),
            );
        }
    }
    // fio's e4defrag init refuses to start without a donor file.
    if o.ioengine == "e4defrag" && o.e4defrag.donorname.as_deref().is_none_or(str::is_empty) {
        conflict(where_set("ioengine"), "ioengine=e4defrag: 'donorname' options required".into());
    }
    // The init of fio's cpuio and exec engines: one file (a name only), and the think time
    // after every completed I/O that paces the job (cpuio: its load; exec: a 50 ms poll).
    if matches!(o.ioengine.as_str(), "cpuio" | "exec") {
        if o.ioengine == "cpuio" && o.noio.cpuload == 0 {
            conflict(where_set("ioengine"), "ioengine=cpuio: cpu thread needs rate (cpuload=)".into());
        }
        if o.ioengine == "exec" && o.noio.program.as_deref().is_none_or(str::is_empty) {
            conflict(
                where_set("ioengine"),
                "ioengine=exec: no program is defined, it is mandatory to define one".into(),
            );
        }
        o.nrfiles = 1;
        o.openfiles = 1;
        // No offsets are drawn (fio skips them for FIO_NOIO engines): no map of the blocks done.
        o.norandommap = true;
        let think_us = if o.ioengine == "exec" {
            50_000
        } else {
            let load = u64::from(o.noio.cpuload.clamp(1, 100));
            u64::from(o.noio.cpuchunks) * (100 - load) / load
        };
        o.thinktime = std::time::Duration::from_micros(think_us);
        o.thinktime_spin = std::time::Duration::ZERO;
        o.thinktime_blocks = 1;
        o.pacing.thinktime_blocks_issue = false;
    }
    let ba_given = o.is_set("ba");
    for d in 0..3 {
        if !ba_given || o.blockalign[d] == 0 || !o.rw.is_random() {
            o.blockalign[d] = o.min_bs[d];
        }
    }
    if o.blockalign != o.min_bs && !o.norandommap {
        o.norandommap = true;
        notes.push("Any use of blockalign= turns off randommap".into());
    }
    if o.thinktime_spin > o.thinktime {
        o.thinktime_spin = o.thinktime;
    }
    if o.iodepth_low > o.iodepth || o.iodepth_low == 0 {
        o.iodepth_low = o.iodepth;
    }
    if o.iodepth_batch_submit > o.iodepth || o.iodepth_batch_submit == 0 {
        o.iodepth_batch_submit = o.iodepth;
    }
    if o.iodepth_batch_complete_min > o.iodepth_batch_complete_max {
        o.iodepth_batch_complete_max = o.iodepth_batch_complete_min;
    }
    let any = |a: &[u64; 3]| a.iter().any(|&r| r > 0);
    let any32 = |a: &[u32; 3]| a.iter().any(|&r| r > 0);
    if (any(&o.rate) && any32(&o.rate_iops)) || (any(&o.rate_min) && any32(&o.rate_iops_min)) {
        conflict(where_set("rate_iops"), "rate and rate_iops are mutually exclusive".into());
    }
    for d in 0..3 {
        if (o.rate[d] > 0 && o.rate[d] < o.rate_min[d]) || (o.rate_iops[d] > 0 && o.rate_iops[d] < o.rate_iops_min[d]) {
            conflict(where_set("rate_min"), "the minimum rate exceeds the rate".into());
        }
    }
    if o.pacing.poisson {
        // fio 3.33 divides by the rate in I/Os per second and dies of SIGFPE when it is 0.
        for d in 0..3 {
            let bps = if o.rate[d] > 0 { o.rate[d] } else { u64::from(o.rate_iops[d]).saturating_mul(o.min_bs[d]) };
            if bps > 0 && bps < o.min_bs[d] {
                let opt = if o.rate[d] > 0 { "rate" } else { "rate_iops" };
                conflict(
                    where_set(opt),
                    format!(
                        "{}: with rate_process=poisson the rate must allow at least one block ({} bytes) per second",
                        shown(opt),
                        o.min_bs[d]
                    ),
                );
                break;
            }
        }
    }
    if o.cmdprio.conflicting() {
        // fio's fio_cmdprio_init.
        conflict(where_set("cmdprio_bssplit"), "cmdprio_percentage and cmdprio_bssplit are mutually exclusive".into());
    }
    if o.time_based && o.runtime.is_none() {
        conflict(where_set("time_based"), "time_based: needs runtime (fio would only warn and drop time_based)".into());
    }
    if o.pre_read {
        o.invalidate = false;
    }
    if o.unit_base == 0 {
        // fio's FIO_BIT_BASED engines (net) report bandwidth in bits.
        o.unit_base = if o.ioengine == "net" { 1 } else { 8 };
    }
    if o.buffer_compress_percentage == 100 {
        o.zero_buffers = true;
        o.buffer_compress_percentage = 0;
    } else if o.buffer_compress_percentage > 0 && !o.is_set("refill_buffers") {
        o.refill_buffers = true;
    }
    if o.dedupe_percentage > 0 && !o.is_set("refill_buffers") {
        o.refill_buffers = true;
    }
    // fio's dedupe working set checks (init.c:fixup_options), as one-line errors.
    if o.dedupe_percentage > 0 && o.dedupe_working_set {
        if !o.is_set("size") {
            conflict(
                where_set("dedupe_mode"),
                "dedupe_mode=working_set: needs size (the working set is a share of it)".into(),
            );
        } else if o.nrfiles != 1 {
            conflict(
                where_set("dedupe_mode"),
                format!("dedupe_mode=working_set: works on one file per job, not {}", o.nrfiles),
            );
        } else if o.dedupe_working_set_percentage + o.dedupe_percentage > 100 {
            conflict(
                where_set("dedupe_percentage"),
                format!(
                    "dedupe_percentage={}: cannot be reached with dedupe_working_set_percentage={} (those pages are unique; the two add up to more than 100)",
                    o.dedupe_percentage, o.dedupe_working_set_percentage
                ),
            );
        }
    }
    if o.random_distribution != RandomDistribution::Random {
        o.norandommap = true;
    }
    let min_bs_all = o.min_bs.iter().copied().min().unwrap_or(1);
    if let Some(s) = o.size.and_then(|s| s.bytes())
        && s > 0
        && s < min_bs_all
    {
        conflict(where_set("size"), format!("{}: smaller than the smallest block size ({min_bs_all})", shown("size")));
    }
    if values.get("atomic").is_some_and(|v| v.0.as_bool()) {
        o.direct = true;
        o.buffered = false;
    }
    // fio seeds the generators with `randrepeat` as given (`rng::Seeds::fio`), then a `randseed`
    // turns it off.
    o.randrepeat_seeding = o.randrepeat;
    if o.is_set("randseed") {
        o.randrepeat = false;
    }
    if o.loops == 0 {
        o.loops = 1;
    }
    // Log prefixes default to the job name (fio's make_log_name: an empty name counts as none).
    let name = o.name.clone();
    for log in [&mut o.write_bw_log, &mut o.write_lat_log, &mut o.write_iops_log, &mut o.write_hist_log] {
        if let Some(p) = log
            && p.is_empty()
        {
            *p = name.clone();
        }
    }
    if o.offload() {
        match o.ioengine.as_str() {
            // fio's check_engine_ops: an engine flagged FIO_NO_OFFLOAD (fio 3.33 then fails the
            // job with `failed to load engine`, exit code 1).
            "io_uring" => conflict(
                where_set("io_submit_mode"),
                "ioengine=io_uring: can't be used with offloaded submit. Use a sync engine".into(),
            ),
            e @ ("cpuio" | "exec" | "net" | "netsplice") => conflict(
                where_set("io_submit_mode"),
                format!(
                    "io_submit_mode=offload: not with ioengine={e} (its I/Os are no transfers to hand over; fio 3.33 dies of SIGSEGV on such a job)"
                ),
            ),
            _ => {}
        }
    }
    // With offload the depth is the submission pool's, whatever the engine.
    if let Some(e) = engines::find(&o.ioengine)
        && e.sync
        && o.iodepth > 1
        && !o.offload()
    {
        notes.push(
            "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1".into(),
        );
    }
    if let Err(why) = crate::verify::resolve_options(o) {
        conflict(where_set("verify"), why);
    }
    let fmt = &o.filename_format;
    if o.verify.kind != crate::verify::VerifyType::None
        && o.rw.writes()
        && o.do_verify
        && o.numjobs > 1
        && (o.filename.is_some()
            || !(o.unique_filename && fmt.contains("$jobname") && fmt.contains("$jobnum") && fmt.contains("$filenum")))
    {
        notes.push(
            "multiple writers may overwrite blocks that belong to other jobs. This can cause verification failures."
                .into(),
        );
    }
    if o.verify.kind != crate::verify::VerifyType::None
        && o.rw.writes()
        && !o.rw.reads()
        && o.do_verify
        && o.time_based
        && o.runtime.is_some()
        && o.verify.backlog == 0
    {
        notes.push("verification read phase will never start because write phase uses all of runtime".into());
    }
    if o.filename.is_none() && o.filename_format.is_empty() {
        conflict(where_set("filename_format"), "filename_format is empty and no filename is given".into());
    }
    // fio's option callbacks read CPU and node lists against the machine (and skip them under
    // --parse-only): checked here, reported when the job would run.
    if let Err((name, why)) =
        opts.placement.resolve(crate::sys::cpus_configured(), crate::options::placement::NumaHost::get())
    {
        conflicts.push(Conflict { at: where_set(name), why: format!("{}: {why}", shown(name)), as_fio: false });
    }
    if opts.block_error_hist && opts.nrfiles != 1 {
        // fio's fixup_options line, and its exit code.
        conflicts.push(Conflict {
            at: where_set("block_error_percentiles"),
            why: format!(
                "block error histogram only available with a single file per job, but {} files provided",
                opts.nrfiles
            ),
            as_fio: true,
        });
    }

    let refusals = refusals(&opts, &values, &at);
    Ok(JobSpec {
        name: opts.name.clone(),
        jobname: jobname.to_string(),
        options: opts,
        groupid: 0,
        at,
        job_file,
        echo,
        conflicts,
        refusals,
        notes,
    })
}

fn refusals(o: &JobOptions, values: &Values, at: &Origin) -> Vec<Refusal> {
    let mut out = Vec::new();
    let set_at = |name: &str| values.get(name).map(|v| v.1.clone()).unwrap_or_else(|| at.clone());
    let device_only = crate::target::DEVICE_ONLY_ENGINES;
    let implemented: Vec<&str> = engines::ENGINES
        .iter()
        .filter(|e| e.support == EngineSupport::Implemented && !device_only.contains(&e.name))
        .map(|e| e.name)
        .collect();
    let implemented = format!("{}; {} on its emulated devices", implemented.join(", "), device_only.join(" and "));
    match engines::find(&o.ioengine) {
        Some(e) if e.support == EngineSupport::Implemented => {}
        Some(_) => out.push(Refusal {
            at: set_at("ioengine"),
            what: format!("ioengine={}", o.ioengine),
            why: format!("engine not implemented by zonekit (it runs {implemented})"),
        }),
        None => out.push(Refusal {
            at: set_at("ioengine"),
            what: format!("ioengine={}", one_line(&o.ioengine)),
            why: format!("not an engine zonekit or fio 3.33 knows (zonekit runs {implemented})"),
        }),
    }
    let engine_opts: &[OptionDef] = engines::find(&o.ioengine).map(|e| e.options).unwrap_or(&[]);
    for (name, (v, where_, raw)) in values {
        let general = table::find(name);
        let Some(def) = general.or_else(|| engine_opts.iter().find(|d| d.name == *name)) else { continue };
        if def.support != Support::Refused || def.is_default_value(v) {
            continue;
        }
        // Options of a refused engine are covered by the engine's refusal.
        if general.is_none() && !engine_implemented(o) {
            continue;
        }
        out.push(Refusal {
            at: where_.clone(),
            what: match raw {
                Some(r) => format!("{name}={}", one_line(r)),
                None => (*name).to_string(),
            },
            why: "not supported by zonekit".into(),
        });
    }
    let fst = o.file_service_type.split(':').next().unwrap_or("");
    if fst != "roundrobin" {
        out.push(Refusal {
            at: set_at("file_service_type"),
            what: format!("file_service_type={}", one_line(&o.file_service_type)),
            why: "zonekit serves files round-robin only".into(),
        });
    }
    if o.rw.trims() && o.rw.writes() && o.zonemode == ZoneMode::Zbd {
        out.push(Refusal {
            at: set_at("rw"),
            what: format!("rw={}", o.rw.name()),
            why: "trim-then-write patterns are not supported by zonekit with zonemode=zbd".into(),
        });
    }
    out
}

fn engine_implemented(o: &JobOptions) -> bool {
    engines::find(&o.ioengine).is_some_and(|e| e.support == EngineSupport::Implemented)
}
