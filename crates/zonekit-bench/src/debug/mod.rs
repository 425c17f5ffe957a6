//! `--debug=CLASS`: fio's debug trace lines. fio prints each as the class name padded to 8
//! columns, the printing thread's id padded to 5, then the message, on its standard output (or the
//! `--output` file). zonekit prints the `parse` class: the lines fio 3.33 prints while it reads the
//! command line and the job files ([`ParseTrace`]).

mod fio_types;

use crate::cmdline::DEBUG_CLASSES;
use crate::options::{engines, table, value};

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
}

fn has_engine_options(engine: &str) -> bool {
    engines::find(engine.trim()).is_some_and(|e| !e.options.is_empty())
}

/// fio 3.33's `parse` trace, built from what zonekit parsed: the options of each command-line
/// section and job-file section in fio's order, each job structure fio makes and frees.
#[derive(Debug)]
pub struct ParseTrace {
    pid: u32,
    dry_run: bool,
    def: Td,
    out: RunTrace,
    cur: String,
    numjobs: Vec<u32>,
    jobs_added: usize,
    tds: usize,
}

impl ParseTrace {
    /// A trace for a run (`dry_run` false) or for `--parse-only`/`--showcmd`; `numjobs` is each
    /// job's clone count, in the order the jobs are added.
    pub fn new(pid: u32, dry_run: bool, numjobs: Vec<u32>) -> Self {
        ParseTrace {
            pid,
            dry_run,
            def: Td { engine: "psync".into(), loaded: None, eo: false, kb_base: 1024, global: true },
            out: RunTrace::default(),
            cur: String::new(),
            numjobs,
            jobs_added: 0,
            tds: 0,
        }
    }

    fn emit(&mut self, msg: &str) {
        self.cur.push_str(&line("parse", self.pid, msg));
    }

    /// fio's ioengine_load on a job structure.
    fn load(&mut self, td: &mut Td) {
        if td.loaded.as_deref() == Some(td.engine.as_str()) {
            return;
        }
        if let Some(old) = td.loaded.take()
            && td.eo
            && has_engine_options(&old)
        {
            self.emit("free options\n");
            td.eo = false;
        }
        td.loaded = Some(td.engine.clone());
        if has_engine_options(&td.engine) {
            self.emit("init options\n");
            let from_def = !td.global && self.def.eo && self.def.loaded.as_deref() == Some(td.engine.as_str());
            if td.eo || from_def {
                self.emit("dup options\n");
            } else {
                self.emit("filling default options\n");
            }
            td.eo = true;
        }
    }

    fn new_job(&mut self, preserve_eo: bool) -> Td {
        self.emit("dup options\n");
        Td {
            engine: self.def.engine.clone(),
            loaded: None,
            eo: preserve_eo && self.def.eo,
            kb_base: self.def.kb_base,
            global: false,
        }
    }

    /// fio's add_job: a dry run frees the job at once; a run loads its engine, prints its header
    /// and makes its clones.
    fn add_job(&mut self, td: &mut Td) {
        if td.global {
            return;
        }
        if self.dry_run {
            self.emit("free options\n");
            if td.eo && td.loaded.as_deref().is_some_and(has_engine_options) {
                self.emit("free options\n");
            }
            return;
        }
        self.load(td);
        let n = self.numjobs.get(self.jobs_added).copied().unwrap_or(1).max(1);
        self.jobs_added += 1;
        self.out.before_job.push(std::mem::take(&mut self.cur));
        for _ in 1..n {
            self.emit("dup options\n");
            let mut clone = Td { loaded: None, ..td.clone() };
            self.load(&mut clone);
        }
        self.out.clones.push(std::mem::take(&mut self.cur));
        let with_eo = td.eo && has_engine_options(&td.engine);
        for _ in 0..n {
            self.tds += 1;
            if with_eo {
                self.out.started.push_str(&line("parse", self.pid, "free options\n"));
            }
        }
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
            self.emit("free options\n");
            self.out.after_jobs = std::mem::take(&mut self.cur);
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
        let mut t = ParseTrace::new(7, true, vec![]);
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
}
