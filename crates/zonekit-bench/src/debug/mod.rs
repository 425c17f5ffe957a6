//! `--debug=CLASS`: fio's debug trace lines. fio prints each as the class name padded to 8
//! columns, the printing thread's id padded to 5, then the message, on its standard output (or the
//! `--output` file). The lines fio 3.33 prints while it reads the command line and the job files
//! (the `parse` class, and the `file` and `io` lines of that time) are built beforehand
//! ([`ParseTrace`]); a run prints the others as it goes ([`trace::Tracer`]).

mod fio_types;
pub mod trace;

pub use trace::{Class, Tracer};

use crate::cmdline::DEBUG_CLASSES;
use crate::options::{engines, placement, table, value};

/// A section's options as written: name and value (None: a bare switch), in order.
pub type Options = Vec<(String, Option<String>)>;

/// fio 3.33's option types, as its parse trace names them (`type=OPT_STR_STORE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FioType {
    /// `OPT_STR`: one of a set of words, or a callback.
    Str,
    /// `OPT_STR_ULL`.
    StrUll,
    /// `OPT_STR_MULTI`.
    StrMulti,
    /// `OPT_STR_VAL`: a number with a size suffix.
    StrVal,
    /// `OPT_STR_VAL_TIME`: a time.
    StrValTime,
    /// `OPT_STR_STORE`: text kept as written.
    StrStore,
    /// `OPT_RANGE`: `A-B`.
    Range,
    /// `OPT_INT`.
    Int,
    /// `OPT_ULL`.
    Ull,
    /// `OPT_BOOL`.
    Bool,
    /// `OPT_FLOAT_LIST`: `A:B:…`.
    FloatList,
    /// `OPT_STR_SET`: a switch.
    StrSet,
    /// `OPT_STR_VAL_ZONE`: a size, a percentage or a zone count.
    StrValZone,
    /// `OPT_DEPRECATED`.
    Deprecated,
    /// `OPT_SOFT_DEPRECATED`.
    SoftDeprecated,
    /// `OPT_UNSUPPORTED`.
    Unsupported,
}

impl FioType {
    /// The name fio's trace prints.
    pub fn name(self) -> &'static str {
        match self {
            FioType::Str => "OPT_STR",
            FioType::StrUll => "OPT_STR_ULL",
            FioType::StrMulti => "OPT_STR_MULTI",
            FioType::StrVal => "OPT_STR_VAL",
            FioType::StrValTime => "OPT_STR_VAL_TIME",
            FioType::StrStore => "OPT_STR_STORE",
            FioType::Range => "OPT_RANGE",
            FioType::Int => "OPT_INT",
            FioType::Ull => "OPT_ULL",
            FioType::Bool => "OPT_BOOL",
            FioType::FloatList => "OPT_FLOAT_LIST",
            FioType::StrSet => "OPT_STR_SET",
            FioType::StrValZone => "OPT_STR_VAL_ZONE",
            FioType::Deprecated => "OPT_DEPRECATED",
            FioType::SoftDeprecated => "OPT_SOFT_DEPRECATED",
            FioType::Unsupported => "OPT_UNSUPPORTED",
        }
    }
}

/// How fio reads a number option's value: as a size, or as a time whose bare number is in
/// seconds or microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A size or count.
    None,
    /// A time, bare numbers in seconds.
    Secs,
    /// A time, bare numbers in microseconds.
    Usecs,
}

/// fio's type of option `name` (canonical name; `engine`: look among the engines' options).
pub fn fio_type(name: &str, engine: bool) -> Option<(FioType, Unit)> {
    let list = if engine { fio_types::ENGINE } else { fio_types::MAIN };
    list.binary_search_by(|(n, _, _)| (*n).cmp(name)).ok().map(|i| (list[i].1, list[i].2))
}

/// The classes `--debug=` turned on, one bit each in [`DEBUG_CLASSES`]' order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DebugMask(pub u32);

impl DebugMask {
    /// Whether `class` (one of [`DEBUG_CLASSES`]) is on.
    pub fn has(self, class: &str) -> bool {
        DEBUG_CLASSES.iter().position(|c| *c == class).is_some_and(|i| self.0 & (1 << i) != 0)
    }

    /// Turns `class` on.
    pub fn set(&mut self, class: &str) {
        if let Some(i) = DEBUG_CLASSES.iter().position(|c| *c == class) {
            self.0 |= 1 << i;
        }
    }
}

/// One trace line as fio prints it: `class` padded to 8, `pid` to 5, then `msg` as given (fio
/// adds no newline: the message carries its own).
pub fn line(class: &str, pid: u32, msg: &str) -> String {
    format!("{class:<8} {pid:<5} {msg}")
}

/// The trace of a parse, in the pieces a run prints around its header lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunTrace {
    /// Before each job's header line (`name: (g=0): rw=…`), one entry per job.
    pub before_job: Vec<String>,
    /// Between each job's header line and its `...` line: the clones of `numjobs`.
    pub clones: Vec<String>,
    /// After the last job's lines, before the version line.
    pub after_jobs: String,
    /// After `Starting N processes`: the job threads releasing their engine options.
    pub started: String,
    /// After the report.
    pub end: String,
}

impl RunTrace {
    /// Everything, in order, without header lines (a parse-only run, or output formats that
    /// print no header).
    pub fn all(&self) -> String {
        let mut s = String::new();
        for (b, c) in self.before_job.iter().zip(&self.clones) {
            s.push_str(b);
            s.push_str(c);
        }
        for b in self.before_job.iter().skip(self.clones.len()) {
            s.push_str(b);
        }
        s.push_str(&self.after_jobs);
        s.push_str(&self.started);
        s.push_str(&self.end);
        s
    }

    /// Whether there is nothing to print.
    pub fn is_empty(&self) -> bool {
        self.all().is_empty()
    }
}

/// A job structure of fio's parser, as far as the trace tells it apart: its engine, whether that
/// engine is loaded, whether it holds engine options, its `kb_base`.
#[derive(Debug, Clone)]
struct Td {
    engine: String,
    loaded: Option<String>,
    eo: bool,
    kb_base: u32,
    global: bool,
    /// fio's `thread_number` of the structure (0: the default one).
    number: u32,
    /// Its files (`files_index`), the room for them (`files_size`), `nr_files`.
    files: u32,
    files_size: u32,
    nr_files: u32,
    /// `directory`, as set so far.
    directory: Option<String>,
}

/// What the trace needs of each job a run adds: its clone count, and the files fio names after
/// the job (one list per clone; empty when `filename` names them).
#[derive(Debug, Clone, Default)]
pub struct JobFiles {
    /// `numjobs`.
    pub numjobs: u32,
    /// Each clone's files, when fio makes them from the job's name.
    pub alloc: Vec<Vec<String>>,
}

/// zonekit's identifier of one of fio's objects, printed where fio prints its address (`%p`):
/// `0x7a6b`, then the kind (1 a file, 2 an I/O unit, 3 the I/O buffers, 4 a zoned file), the
/// job's `thread_number` in three hex digits and the object's index (a byte offset for
/// buffers) in eight. The same object prints the same value throughout a run.
pub fn zk_ptr(kind: u32, job: u32, index: u64) -> String {
    format!("0x7a6b{kind:x}{:03x}{:08x}", job & 0xfff, index & 0xffff_ffff)
}

/// Whether fio's `engine` has options of its own (a job frees them with its engine).
pub fn has_engine_options(engine: &str) -> bool {
    engines::find(engine.trim()).is_some_and(|e| !e.options.is_empty())
}

/// fio 3.33's `parse` trace, built from what zonekit parsed: the options of each command-line
/// section and job-file section in fio's order, each job structure fio makes and frees.
#[derive(Debug)]
pub struct ParseTrace {
    pid: u32,
    dry_run: bool,
    mask: DebugMask,
    def: Td,
    out: RunTrace,
    cur: String,
    jobs: Vec<JobFiles>,
    jobs_added: usize,
    tds: usize,
    /// fio's `thread_number` so far.
    thread_number: u32,
}

impl ParseTrace {
    /// A trace of the classes of `mask` (`parse`, `file`, `io`) for a run (`dry_run` false) or
    /// for `--parse-only`/`--showcmd`; `jobs` describes each job, in the order they are added.
    pub fn new(pid: u32, dry_run: bool, mask: DebugMask, jobs: Vec<JobFiles>) -> Self {
        ParseTrace {
            pid,
            dry_run,
            mask,
            def: Td {
                engine: "psync".into(),
                loaded: None,
                eo: false,
                kb_base: 1024,
                global: true,
                number: 0,
                files: 0,
                files_size: 0,
                nr_files: 1,
                directory: None,
            },
            out: RunTrace::default(),
            cur: String::new(),
            jobs,
            jobs_added: 0,
            tds: 0,
            thread_number: 0,
        }
    }

    fn emit(&mut self, msg: &str) {
        self.emit_c(Class::Parse, msg);
    }

    /// A line of `class` (the message with its newline), if that class is on.
    fn emit_c(&mut self, class: Class, msg: &str) {
        if self.mask.has(class.name()) {
            self.cur.push_str(&line(class.name(), self.pid, msg));
        }
    }

    /// fio's add_file: `name` added to `td` (`inc`: it counts in `nr_files`, as a `filename`
    /// does).
    fn add_file(&mut self, td: &mut Td, name: &str, inc: bool) {
        let name = match &td.directory {
            Some(d) if !name.starts_with('/') => format!("{d}/{name}"),
            _ => name.to_string(),
        };
        self.emit_c(Class::File, &format!("add file {name}\n"));
        if td.files_size <= td.files {
            let n = td.nr_files + 1;
            self.emit_c(Class::File, &format!("resize file array to {n} files\n"));
            td.files_size = n;
        }
        let at = td.files;
        let p = zk_ptr(1, td.number, u64::from(at));
        self.emit_c(Class::File, &format!("file {p} \"{name}\" added at {at}\n"));
        td.files += 1;
        if inc {
            td.nr_files += 1;
        }
    }

    /// fio's ioengine_load on a job structure.
    fn load(&mut self, td: &mut Td) {
        if td.loaded.as_deref() == Some(td.engine.as_str()) {
            return;
        }
        if let Some(old) = td.loaded.take() {
            // fio loads the new engine to compare, then frees the old one.
            self.emit_c(Class::Io, &format!("load ioengine {}\n", td.engine));
            self.emit_c(Class::Io, &format!("free ioengine {old}\n"));
            if td.eo && has_engine_options(&old) {
                self.emit("free options\n");
                td.eo = false;
            }
        }
        self.emit_c(Class::Io, &format!("load ioengine {}\n", td.engine));
        td.loaded = Some(td.engine.clone());
        if has_engine_options(&td.engine) {
            self.emit("init options\n");
            let from_def = !td.global && self.def.eo && self.def.loaded.as_deref() == Some(td.engine.as_str());
            if td.eo || from_def {
                self.emit("dup options\n");
            } else {
                self.emit("filling default options\n");
                // fio handles each engine option that has a default, as if given.
                let defaults: Vec<(&str, &str)> = engines::find(td.engine.trim())
                    .map(|e| e.options.iter().filter_map(|d| Some((d.name, d.default?))).collect())
                    .unwrap_or_default();
                td.eo = true;
                for (name, def) in defaults {
                    self.option(td, name, Some(def));
                }
            }
            td.eo = true;
        }
    }

    fn new_job(&mut self, preserve_eo: bool) -> Td {
        let parent = self.def.clone();
        self.dup(&parent, preserve_eo)
    }

    /// fio's get_new_job from `parent`: its files duplicated, its options copied.
    fn dup(&mut self, parent: &Td, preserve_eo: bool) -> Td {
        self.thread_number += 1;
        self.emit_c(Class::File, &format!("dup files: {}\n", parent.files));
        self.emit("dup options\n");
        Td {
            engine: parent.engine.clone(),
            loaded: None,
            eo: preserve_eo && parent.eo,
            kb_base: parent.kb_base,
            global: false,
            number: self.thread_number,
            files: parent.files,
            files_size: parent.files_size,
            nr_files: parent.nr_files,
            directory: parent.directory.clone(),
        }
    }

    /// fio's put_job: a structure dropped (a dry run adds no job).
    fn put_job(&mut self, td: &Td) {
        self.emit("free options\n");
        if td.eo && td.loaded.as_deref().is_some_and(has_engine_options) {
            self.emit("free options\n");
        }
        if let Some(e) = &td.loaded {
            self.emit_c(Class::Io, &format!("free ioengine {e}\n"));
        }
        self.thread_number -= 1;
    }

    /// fio's add_job: a dry run frees the job at once; a run loads its engine, prints its header
    /// and makes its clones.
    fn add_job(&mut self, td: &mut Td) {
        if td.global {
            return;
        }
        if self.dry_run {
            self.put_job(td);
            return;
        }
        self.load(td);
        let job = self.jobs.get(self.jobs_added).cloned().unwrap_or_default();
        let n = job.numjobs.max(1);
        self.jobs_added += 1;
        let alloced = td.files == 0 && !job.alloc.is_empty();
        if alloced {
            for name in job.alloc.first().cloned().unwrap_or_default() {
                self.add_file(td, &name, false);
            }
        }
        self.out.before_job.push(std::mem::take(&mut self.cur));
        // fio adds the clones from the last down to 1, each from the job.
        for k in (1..n).rev() {
            let mut clone = self.dup(td, true);
            self.load(&mut clone);
            if alloced {
                clone.files = 0;
                clone.files_size = 0;
                for name in job.alloc.get(k as usize).cloned().unwrap_or_default() {
                    self.add_file(&mut clone, &name, false);
                }
            }
        }
        self.out.clones.push(std::mem::take(&mut self.cur));
        // Each job's process frees its engine's options as it ends (the run traces that line
        // from the job's thread).
        self.tds += n as usize;
    }

    /// The lines of one option: `handle_option=…`, then `__handle_option=…` for each part of a
    /// value fio splits, with the number read from it.
    fn option(&mut self, td: &mut Td, key: &str, value: Option<&str>) {
        let (name, ty) = match table::find(key) {
            Some(d) => (d.name, fio_type(d.name, false)),
            None => {
                let def = engines::find(td.engine.trim()).and_then(|e| engines::find_option(e, key));
                match def {
                    Some(d) => (d.name, fio_type(d.name, true)),
                    None => return,
                }
            }
        };
        let Some((ty, unit)) = ty else { return };
        let shown = value.unwrap_or("(null)");
        self.emit(&format!("handle_option={name}, ptr={shown}\n"));
        let mut rest = value.map(str::to_string);
        loop {
            let split = rest.as_deref().and_then(|p| split_at(p, ty));
            self.one(name, ty, unit, rest.as_deref(), td.kb_base);
            match split {
                Some(next) => rest = Some(next),
                None => break,
            }
        }
        if let Some(v) = value
            && matches!(name, "cpumask" | "cpus_allowed" | "verify_async_cpus" | "log_compression_cpus")
        {
            // fio's callbacks trace each CPU as they add it to the mask.
            let max = crate::sys::cpus_configured();
            let cpus = if name == "cpumask" {
                value::parse_int(v.trim(), td.kb_base).ok().and_then(|n| placement::parse_cpumask(n, max).ok())
            } else {
                placement::parse_cpu_list(v, max).ok()
            };
            for cpu in cpus.map(|c| c.1).unwrap_or_default() {
                self.emit(&format!("set cpu allowed {cpu}\n"));
            }
        }
        if name == "steadystate"
            && let Some(v) = value
            && let Some(l) = steadystate_line(v)
        {
            self.emit(&l);
        }
        if name == "kb_base"
            && let Some(v) = value
            && let Ok(n) = v.trim().parse::<u32>()
        {
            td.kb_base = n;
        }
        if name == "directory" {
            td.directory = value.map(|v| v.trim().split(':').next().unwrap_or("").to_string());
        }
        if name == "nrfiles"
            && let Some(v) = value
            && let Ok(n) = v.trim().parse::<u32>()
        {
            td.nr_files = n;
        }
        if name == "filename"
            && let Some(v) = value
        {
            // fio's str_filename_cb: the names split at `:`, each added in turn.
            if td.files == 0 {
                td.nr_files = 0;
            }
            for n in crate::options::job::split_colon_list(v) {
                self.add_file(td, &n, true);
            }
        }
    }

    fn one(&mut self, name: &str, ty: FioType, unit: Unit, ptr: Option<&str>, kb_base: u32) {
        self.emit(&format!("__handle_option={name}, type={}, ptr={}\n", ty.name(), ptr.unwrap_or("(null)")));
        match ty {
            FioType::StrValTime | FioType::Ull | FioType::Int | FioType::StrVal | FioType::StrValZone => {
                let Some(p) = ptr else { return };
                let p = p.split(',').next().unwrap_or("");
                let t = p.trim();
                if ty == FioType::StrValZone && t.ends_with('z') {
                    return;
                }
                let unit = if ty == FioType::StrValTime && unit == Unit::None { Unit::Usecs } else { unit };
                let (ret, out) = match unit {
                    Unit::Secs | Unit::Usecs => match value::parse_time(number_prefix(t), unit == Unit::Secs) {
                        Ok(d) => (0, d.as_micros() as u64),
                        Err(_) => (1, 0),
                    },
                    Unit::None => match t.strip_suffix('%') {
                        Some(n) => match n.trim().parse::<u64>() {
                            Ok(n) => (0, u64::MAX - n),
                            Err(_) => (1, 0),
                        },
                        None => match value::parse_int(number_prefix(t), kb_base) {
                            Ok(v) => (0, v as u64),
                            Err(_) => (1, 0),
                        },
                    },
                };
                self.emit(&format!("  ret={ret}, out={out}\n"));
                if ret == 0
                    && let Some(n) = t.strip_suffix('%')
                {
                    let what = match name {
                        "size" => Some("size_percent"),
                        "offset" => Some("start_offset_percent"),
                        "offset_increment" => Some("offset_increment_percent"),
                        "io_size" => Some("io_size_percent"),
                        _ => None,
                    };
                    if let Some(w) = what {
                        self.emit(&format!("SET {w} {}\n", n.trim()));
                    }
                }
            }
            FioType::Bool | FioType::StrSet => {
                let (ret, out) = match ptr {
                    Some(p) => match c_atoi(p) {
                        Some(n) => (0, n),
                        None => (1, 0),
                    },
                    None if ty == FioType::Bool => (1, 0),
                    None => (0, 1),
                };
                self.emit(&format!("  ret={ret}, out={out}\n"));
            }
            FioType::FloatList => {
                if let Some(p) = ptr
                    && let Ok(f) = value::parse_float(number_prefix(p.split(':').next().unwrap_or("")))
                {
                    self.emit(&format!("  out={f:.6}\n"));
                }
            }
            FioType::Deprecated | FioType::SoftDeprecated => {}
            _ => {}
        }
    }

    /// The command line's sections, in order: the options before the first `--name` (global),
    /// then each `--name` section, each as (is a job, its options as written, in order).
    pub fn command_line(&mut self, sections: &[(bool, Options)]) {
        let mut td: Option<Td> = None;
        for (is_job, entries) in sections {
            for (key, value) in entries {
                if key == "name"
                    && let Some(mut t) = td.take()
                {
                    self.add_job(&mut t);
                }
                let mut t = match td.take() {
                    Some(t) => t,
                    None => {
                        let mut t = if *is_job && key == "name" { self.new_job(true) } else { self.def.clone() };
                        self.load(&mut t);
                        t
                    }
                };
                self.option(&mut t, key, value.as_deref());
                if key == "ioengine"
                    && let Some(v) = value
                {
                    t.engine = v.trim().to_string();
                    self.load(&mut t);
                }
                if t.global {
                    self.def = t.clone();
                }
                td = Some(t);
            }
        }
        if let Some(mut t) = td.take() {
            self.add_job(&mut t);
        }
    }

    /// A job file: its raw text as fio reads it line by line (None: not readable again, as
    /// standard input) and its sections as zonekit parsed them (options after substitution), with
    /// whether each section is run (`--section`).
    pub fn job_file(&mut self, path: &str, text: Option<&str>, sections: &[(bool, bool, Options)]) {
        self.emit(&format!("Parsing ini file {path}\n"));
        let lines: Vec<&str> = text.map(|t| t.split_inclusive('\n').collect()).unwrap_or_default();
        let mut i = 0;
        let mut sec = 0usize;
        let mut inside_skip = false;
        while i < lines.len() {
            let p = crate::jobfile::strip_line(lines[i]);
            i += 1;
            self.emit(&format!("{p}\n"));
            if p.is_empty() {
                continue;
            }
            if !p.starts_with('[') {
                if inside_skip {
                    continue;
                }
                break;
            }
            let name = p.trim_start_matches('[').trim_end_matches(']');
            let Some((global, run, entries)) = sections.get(sec) else { break };
            sec += 1;
            if !run {
                inside_skip = true;
                continue;
            }
            inside_skip = false;
            self.emit(&format!("Parsing section [{name}]\n"));
            let mut td = if *global { Td { global: true, ..self.def.clone() } } else { self.new_job(false) };
            while i < lines.len() {
                let raw = lines[i];
                let t = raw.trim_start();
                if t.starts_with('[') {
                    self.emit(raw);
                    break;
                }
                i += 1;
                self.emit(raw);
            }
            self.section(&mut td, entries);
            if td.global {
                self.def = td;
            } else {
                self.add_job(&mut td);
            }
        }
    }

    fn section(&mut self, td: &mut Td, entries: &[(String, Option<String>)]) {
        let mut sorted: Vec<&(String, Option<String>)> = entries.iter().collect();
        sorted.sort_by_key(|(k, _)| std::cmp::Reverse(table::find(k).map_or(0, |d| d.prio)));
        let mut unknown = Vec::new();
        for (k, v) in sorted {
            if table::find(k).is_none() {
                unknown.push((k.clone(), v.clone()));
                continue;
            }
            self.option(td, k, v.as_deref());
            if table::find(k).is_some_and(|d| d.name == "ioengine")
                && let Some(v) = v
            {
                td.engine = v.trim().to_string();
            }
        }
        if !unknown.is_empty() {
            self.load(td);
            for (k, v) in unknown {
                self.option(td, &k, v.as_deref());
            }
        }
    }

    /// Before the second and later job files, fio frees its default job structure and fills it
    /// again with every option's default.
    pub fn next_file(&mut self) {
        self.emit("filling default options\n");
        self.def.engine = "psync".into();
        self.def.kb_base = 1024;
        let mut td = self.def.clone();
        for d in table::OPTIONS {
            // gpu_dev_id exists only in fio built with CUDA (Debian's is not).
            let v = match (d.name, d.default) {
                ("gpu_dev_id", _) | (_, None) => continue,
                (_, Some(v)) => v,
            };
            if fio_type(d.name, false).is_some() {
                self.option(&mut td, d.name, Some(v));
            }
        }
    }

    /// Ends the parse: fio frees its default job structure; a run frees every job after its
    /// report, and the default one again at exit.
    pub fn finish(mut self) -> RunTrace {
        self.emit("free options\n");
        if self.def.eo && self.def.loaded.as_deref().is_some_and(has_engine_options) {
            self.emit("free options\n");
        }
        if self.dry_run {
            // The last at exit, after the clock's calibration (`time`).
            self.out.after_jobs = std::mem::take(&mut self.cur);
            self.emit("free options\n");
            self.out.end = std::mem::take(&mut self.cur);
            return self.out;
        }
        self.out.after_jobs = std::mem::take(&mut self.cur);
        for _ in 0..=self.tds {
            self.emit("free options\n");
        }
        self.out.end = std::mem::take(&mut self.cur);
        self.out
    }
}

/// The line fio's steadystate callback prints: the threshold as a percentage, an IOPS figure or
/// a bandwidth in bytes.
fn steadystate_line(v: &str) -> Option<String> {
    let (kind, limit) = v.split_once(':')?;
    let limit = limit.trim();
    if let Some(p) = limit.strip_suffix('%') {
        let f = value::parse_float(p).ok()?;
        return Some(format!("set steady state threshold to {f:.6}%\n"));
    }
    if kind.trim().starts_with("iops") {
        let f = value::parse_float(limit).ok()?;
        return Some(format!("set steady state IOPS threshold to {f:.6}\n"));
    }
    let n = value::parse_int(limit, 1024).ok()?;
    Some(format!("set steady state BW threshold to {n}\n"))
}

/// Where fio's handle_option splits a value for another round (the rest after `,`, else `:`,
/// else `-`, as the type allows).
fn split_at(p: &str, ty: FioType) -> Option<String> {
    match ty {
        FioType::StrStore | FioType::Str | FioType::StrUll => None,
        FioType::FloatList => p.find(':').map(|i| p[i + 1..].to_string()),
        _ => {
            if let Some(i) = p.find(',') {
                return if i + 1 == p.len() { None } else { Some(p[i + 1..].to_string()) };
            }
            if matches!(ty, FioType::StrMulti | FioType::Range) {
                return None;
            }
            p.find(':').or_else(|| p.find('-')).map(|i| p[i + 1..].to_string())
        }
    }
}

/// The part of `s` a C number parser reads: sign, digits (and `.`), a unit or suffix of letters.
fn number_prefix(s: &str) -> &str {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    if s[i..].len() >= 2 && s[i..i + 2].eq_ignore_ascii_case("0x") {
        i += 2;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            i += 1;
        }
        return &s[..i];
    }
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    while i < b.len() && b[i].is_ascii_alphabetic() {
        i += 1;
    }
    &s[..i]
}

/// C's `atoi`-like reading fio's check_int makes: an optional sign and digits (or `0x` hex).
fn c_atoi(s: &str) -> Option<i64> {
    let t = s.trim_start();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let end = h.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(h.len());
        i64::from_str_radix(&h[..end], 16).ok()?
    } else {
        let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        t[..end].parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_sorted_and_known() {
        for list in [fio_types::MAIN, fio_types::ENGINE] {
            assert!(list.windows(2).all(|w| w[0].0 < w[1].0));
        }
        assert_eq!(fio_type("bs", false), Some((FioType::Ull, Unit::None)));
        assert_eq!(fio_type("runtime", false), Some((FioType::StrValTime, Unit::Secs)));
        assert_eq!(fio_type("userspace_reap", true).map(|t| t.0), Some(FioType::StrSet));
        // Every option of zonekit's table that fio 3.33 has is typed.
        for d in table::OPTIONS {
            assert!(fio_type(d.name, false).is_some(), "{}", d.name);
        }
    }

    #[test]
    fn one_option_as_fio_prints_it() {
        let mut mask = DebugMask::default();
        mask.set("parse");
        let mut t = ParseTrace::new(7, true, mask, vec![]);
        let mut td = t.def.clone();
        t.option(&mut td, "bs", Some("4k,8k"));
        t.option(&mut td, "percentile_list", Some("50:99.5"));
        t.option(&mut td, "size", Some("50%"));
        t.option(&mut td, "time_based", None);
        assert_eq!(
            t.cur,
            "parse    7     handle_option=bs, ptr=4k,8k\n\
             parse    7     __handle_option=bs, type=OPT_ULL, ptr=4k,8k\n\
             parse    7       ret=0, out=4096\n\
             parse    7     __handle_option=bs, type=OPT_ULL, ptr=8k\n\
             parse    7       ret=0, out=8192\n\
             parse    7     handle_option=percentile_list, ptr=50:99.5\n\
             parse    7     __handle_option=percentile_list, type=OPT_FLOAT_LIST, ptr=50:99.5\n\
             parse    7       out=50.000000\n\
             parse    7     __handle_option=percentile_list, type=OPT_FLOAT_LIST, ptr=99.5\n\
             parse    7       out=99.500000\n\
             parse    7     handle_option=size, ptr=50%\n\
             parse    7     __handle_option=size, type=OPT_STR_VAL_ZONE, ptr=50%\n\
             parse    7       ret=0, out=18446744073709551565\n\
             parse    7     SET size_percent 50\n\
             parse    7     handle_option=time_based, ptr=(null)\n\
             parse    7     __handle_option=time_based, type=OPT_STR_SET, ptr=(null)\n\
             parse    7       ret=0, out=1\n"
        );
    }

    #[test]
    fn cpu_lists_trace_each_cpu_as_fio_adds_it() {
        let mut mask = DebugMask::default();
        mask.set("parse");
        let mut t = ParseTrace::new(7, true, mask, vec![]);
        let mut td = t.def.clone();
        t.option(&mut td, "cpumask", Some("1"));
        t.option(&mut td, "cpus_allowed", Some("0,0"));
        assert_eq!(
            t.cur,
            "parse    7     handle_option=cpumask, ptr=1\n\
             parse    7     __handle_option=cpumask, type=OPT_INT, ptr=1\n\
             parse    7       ret=0, out=1\n\
             parse    7     set cpu allowed 0\n\
             parse    7     handle_option=cpus_allowed, ptr=0,0\n\
             parse    7     __handle_option=cpus_allowed, type=OPT_STR, ptr=0,0\n\
             parse    7     set cpu allowed 0\n\
             parse    7     set cpu allowed 0\n"
        );
    }
}
