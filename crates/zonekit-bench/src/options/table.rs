//! The option table: one entry per option fio 3.33 knows (`fio --cmdhelp=all`), with its
//! aliases, value syntax, default, category, help text (zonekit's own words) and support level.
//! Parsing, validation messages, `--cmdhelp`, the JSON "job options" echo and
//! `docs/bench-options.md` all read this table; engine options live in [`super::engines`].

use super::job::{JobOptions, RwSequencer, ZoneMode};
use super::placement;
use super::special;
use super::value::{self, Value};

/// Applies a parsed value to the typed options.
pub type ApplyFn = fn(&mut JobOptions, &Value) -> Result<(), String>;

/// One allowed value of a choice option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The value as written.
    pub name: &'static str,
    /// The value it stands for (`readwrite` stands for `rw`, `0` for `none`…).
    pub canon: &'static str,
    /// What it means ("" when the name says it).
    pub help: &'static str,
}

/// The syntax of an option's value (fio's `FIO_OPT_*` types).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// One of `choices`; with `postfix`, `value:extra` is allowed and the option reads the extra.
    Choice {
        /// The allowed values.
        choices: &'static [Choice],
        /// Whether `:extra` may follow.
        postfix: bool,
    },
    /// A comma-separated set of choices.
    Choices(&'static [Choice]),
    /// Non-empty text.
    Text,
    /// Text, or nothing (the bare option).
    OptText,
    /// An integer (size suffixes allowed, as fio) within `[min, max]`.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// Up to three integers (read,write,trim) within `[min, max]`.
    IntDirs {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// A size in bytes (at least `min`), optionally a percentage or a zone count.
    Size {
        /// Smallest byte count.
        min: u64,
        /// `N%` allowed.
        percent: bool,
        /// `Nz` allowed.
        zones: bool,
    },
    /// Up to three sizes (read,write,trim), each at least `min`.
    SizeDirs {
        /// Smallest byte count.
        min: u64,
    },
    /// A size or a size range `low-high`.
    SizePair,
    /// Up to three size ranges `low-high` (read,write,trim).
    SizeRangeDirs,
    /// A duration; a bare number is seconds when `seconds`, else microseconds.
    Time {
        /// Unit of a bare number.
        seconds: bool,
    },
    /// Up to three durations (read,write,trim).
    TimeDirs {
        /// Unit of a bare number.
        seconds: bool,
    },
    /// A duration or a duration range `low-high`.
    TimePair {
        /// Unit of a bare number.
        seconds: bool,
    },
    /// `0` or `1`, required.
    Bool,
    /// A switch: bare means on; `0`/`1` also accepted.
    Flag,
    /// `:`-separated floats.
    FloatList {
        /// Most entries.
        max_len: usize,
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// A value with its own syntax, checked by the option's `apply`.
    Special(&'static str),
    /// Deprecated in fio: accepted and ignored (fio prints a note).
    Deprecated,
    /// Removed from fio: rejected, as fio rejects it.
    Removed,
}

impl Kind {
    /// The value syntax in words, for `--cmdhelp` and the generated docs.
    pub fn describe(&self) -> String {
        match self {
            Kind::Choice { choices, postfix } => {
                let mut names: Vec<&str> = choices.iter().map(|c| c.name).collect();
                names.dedup();
                format!("one of {}{}", names.join(", "), if *postfix { " (`:extra` allowed)" } else { "" })
            }
            Kind::Choices(c) => {
                let names: Vec<&str> = c.iter().map(|c| c.name).collect();
                format!("comma list of {}", names.join(", "))
            }
            Kind::Text => "text".into(),
            Kind::OptText => "text, or nothing".into(),
            Kind::Int { min, max } => format!("integer {}", range_words(*min, *max)),
            Kind::IntDirs { min, max } => format!("integer {} per direction (r,w,t)", range_words(*min, *max)),
            Kind::Size { min, percent, zones } => {
                let mut s = "size".to_string();
                if *min > 0 {
                    s.push_str(&format!(" (at least {min})"));
                }
                if *percent {
                    s.push_str(", or N%");
                }
                if *zones {
                    s.push_str(", or Nz (zones)");
                }
                s
            }
            Kind::SizeDirs { .. } => "size per direction (r,w,t)".into(),
            Kind::SizePair => "size, or size range low-high".into(),
            Kind::SizeRangeDirs => "size range low-high per direction (r,w,t)".into(),
            Kind::Time { seconds } => format!("time (bare number: {})", if *seconds { "seconds" } else { "µs" }),
            Kind::TimeDirs { seconds } => {
                format!("time per direction (bare number: {})", if *seconds { "seconds" } else { "µs" })
            }
            Kind::TimePair { seconds } => {
                format!("time, or range low-high (bare number: {})", if *seconds { "seconds" } else { "µs" })
            }
            Kind::Bool => "boolean 0/1".into(),
            Kind::Flag => "switch (bare, or 0/1)".into(),
            Kind::FloatList { max_len, min, max } => {
                let mut s = format!("up to {max_len} floats separated by ':'");
                if *min > f64::MIN || *max < f64::MAX {
                    s.push_str(&format!(", each in [{min}, {max}]"));
                }
                s
            }
            Kind::Special(syntax) => (*syntax).to_string(),
            Kind::Deprecated => "deprecated (ignored)".into(),
            Kind::Removed => "removed (rejected)".into(),
        }
    }

    /// True when the option may be given without a value (a bare key, or `--opt` alone).
    pub fn value_optional(&self) -> bool {
        matches!(self, Kind::Flag | Kind::OptText | Kind::Deprecated)
    }

    /// Parses `raw` (None: the bare option) under `kb_base`.
    pub fn parse(&self, raw: Option<&str>, kb_base: u32) -> Result<Value, String> {
        let Some(raw) = raw else {
            return match self {
                Kind::Flag => Ok(Value::Bool(true)),
                Kind::OptText | Kind::Deprecated => Ok(Value::Absent),
                Kind::Removed => Err("removed from fio".into()),
                Kind::Bool => Err("a value (0 or 1) is required".into()),
                _ => Err("a value is required".into()),
            };
        };
        let s = raw.trim();
        match self {
            Kind::Choice { choices, postfix } => {
                if s.is_empty() {
                    return Err("a value is required".into());
                }
                let (head, tail) = match s.split_once(':') {
                    Some((h, t)) if *postfix => (h, Some(t.to_string())),
                    Some(_) => return Err(format!("expected one of {}", choice_names(choices))),
                    None => (s, None),
                };
                match choices.iter().find(|c| c.name == head) {
                    Some(c) => Ok(Value::Choice(c.canon, tail)),
                    None => Err(format!("expected one of {}", choice_names(choices))),
                }
            }
            Kind::Choices(choices) => {
                let mut out = Vec::new();
                for part in s.split(',') {
                    match choices.iter().find(|c| c.name == part.trim()) {
                        Some(c) => out.push(c.canon),
                        None => return Err(format!("expected a comma list of {}", choice_names(choices))),
                    }
                }
                Ok(Value::Choices(out))
            }
            Kind::Text | Kind::Special(_) => {
                if s.is_empty() {
                    Err("a value is required".into())
                } else {
                    Ok(Value::Text(s.to_string()))
                }
            }
            Kind::OptText => Ok(if s.is_empty() { Value::Absent } else { Value::Text(s.to_string()) }),
            Kind::Int { min, max } => int_in(s, *min, *max, kb_base).map(Value::Int),
            Kind::IntDirs { min, max } => {
                value::per_direction(s, |p| int_in(p, *min, *max, kb_base)).map(Value::IntDirs)
            }
            Kind::Size { min, percent, zones } => {
                let v = value::parse_size_spec(s, kb_base, *percent, *zones)?;
                if let Some(b) = v.bytes()
                    && b < *min
                {
                    return Err(format!("must be at least {min}"));
                }
                Ok(Value::Size(v))
            }
            Kind::SizeDirs { min } => value::per_direction(s, |p| {
                let b = value::parse_size(p, kb_base)?;
                if b < *min {
                    return Err(format!("must be at least {min}"));
                }
                Ok(b)
            })
            .map(Value::SizeDirs),
            Kind::SizePair => {
                let (lo, hi) = match value::split_range(s).or_else(|| s.split_once(',')) {
                    Some((l, h)) => (value::parse_size(l, kb_base)?, value::parse_size(h, kb_base)?),
                    None => {
                        let v = value::parse_size(s, kb_base)?;
                        (v, v)
                    }
                };
                if lo > hi {
                    return Err("the low end of the range is above the high end".into());
                }
                Ok(Value::SizePair(lo, hi))
            }
            Kind::SizeRangeDirs => value::per_direction(s, |p| {
                let (l, h) = value::split_range(p).ok_or_else(|| "expected a range low-high".to_string())?;
                let l = value::parse_size(l, kb_base)?;
                let h = value::parse_size(h, kb_base)?;
                if l == 0 || h == 0 {
                    return Err("block sizes must be at least 1".into());
                }
                Ok(if l <= h { (l, h) } else { (h, l) })
            })
            .map(Value::RangeDirs),
            Kind::Time { seconds } => value::parse_time(s, *seconds).map(Value::Time),
            Kind::TimeDirs { seconds } => value::per_direction(s, |p| value::parse_time(p, *seconds))
                .map(|d| Value::IntDirs(d.map(|t| t.map(|t| i64::try_from(t.as_micros()).unwrap_or(i64::MAX))))),
            Kind::TimePair { seconds } => match value::split_range(s) {
                Some((l, h)) => {
                    let l = value::parse_time(l, *seconds)?;
                    let h = value::parse_time(h, *seconds)?;
                    if l > h {
                        return Err("the low end of the range is above the high end".into());
                    }
                    Ok(Value::TimePair(l, h))
                }
                None => {
                    let t = value::parse_time(s, *seconds)?;
                    Ok(Value::TimePair(t, t))
                }
            },
            Kind::Bool => value::parse_bool(s).map(Value::Bool),
            Kind::Flag => value::parse_flag(Some(s)).map(Value::Bool),
            Kind::FloatList { max_len, min, max } => {
                value::parse_float_list(s, *max_len, *min, *max).map(|(v, p)| Value::Floats(v, p))
            }
            Kind::Deprecated => Ok(Value::Absent),
            Kind::Removed => Err("removed from fio".into()),
        }
    }
}

fn range_words(min: i64, max: i64) -> String {
    if max >= i64::from(u32::MAX) {
        if min == 0 { String::new() } else { format!("≥ {min}") }
    } else {
        format!("{min}–{max}")
    }
}

fn choice_names(choices: &[Choice]) -> String {
    let mut names: Vec<&str> = choices.iter().map(|c| c.name).collect();
    names.dedup();
    names.join(", ")
}

fn int_in(s: &str, min: i64, max: i64, kb_base: u32) -> Result<i64, String> {
    let v = value::parse_int(s, kb_base)?;
    // fio's wording (parse.c), which scripts grep.
    if v < min {
        return Err(format!("min value out of range: {v} ({min} min)"));
    }
    if v > max {
        return Err(format!("max value out of range: {v} ({max} max)"));
    }
    Ok(v)
}

/// Sets per-direction fields from `SizeDirs`/`IntDirs` values, keeping entries left empty.
pub(crate) fn set_dirs<T: TryFrom<u64> + TryFrom<i64> + Copy>(field: &mut [T; 3], v: &Value) {
    match v {
        Value::SizeDirs(d) => {
            for (f, x) in field.iter_mut().zip(d) {
                if let Some(x) = x
                    && let Ok(x) = T::try_from(*x)
                {
                    *f = x;
                }
            }
        }
        Value::IntDirs(d) => {
            for (f, x) in field.iter_mut().zip(d) {
                if let Some(x) = x
                    && let Ok(x) = T::try_from(*x)
                {
                    *f = x;
                }
            }
        }
        _ => {}
    }
}

/// Where an option's documentation is grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// Naming and describing jobs.
    Description,
    /// Files, sizes and offsets.
    Files,
    /// The I/O pattern.
    IoType,
    /// Block sizes.
    BlockSize,
    /// Random offsets.
    Random,
    /// Engine, queue depth and I/O flags.
    Engine,
    /// fsync and friends.
    Sync,
    /// I/O buffers and their contents.
    Buffers,
    /// Run time, loops and delays.
    Time,
    /// Clones, threads, groups and barriers.
    Jobs,
    /// Rate limits, think time and latency targets.
    Rate,
    /// Data verification.
    Verify,
    /// I/O logs, replay and blktrace.
    Trace,
    /// Zoned block devices.
    Zones,
    /// Statistics and reporting.
    Stats,
    /// Bandwidth, latency and IOPS logs.
    Logs,
    /// Processes, CPUs and credentials.
    Process,
    /// Everything else.
    Misc,
}

impl Category {
    /// Heading of the category in the docs.
    pub fn title(self) -> &'static str {
        match self {
            Category::Description => "Job description",
            Category::Files => "Files, sizes and offsets",
            Category::IoType => "I/O pattern",
            Category::BlockSize => "Block sizes",
            Category::Random => "Random offsets",
            Category::Engine => "Engine, queue depth and I/O flags",
            Category::Sync => "Syncing",
            Category::Buffers => "Buffers and memory",
            Category::Time => "Run time",
            Category::Jobs => "Jobs, groups and barriers",
            Category::Rate => "Rate, think time and latency targets",
            Category::Verify => "Verification",
            Category::Trace => "I/O logs and replay",
            Category::Zones => "Zones",
            Category::Stats => "Statistics and reporting",
            Category::Logs => "Log files",
            Category::Process => "Processes and CPUs",
            Category::Misc => "Miscellaneous",
        }
    }

    /// Every category, in docs order.
    pub const ALL: [Category; 18] = [
        Category::Description,
        Category::Files,
        Category::IoType,
        Category::BlockSize,
        Category::Random,
        Category::Engine,
        Category::Sync,
        Category::Buffers,
        Category::Time,
        Category::Jobs,
        Category::Rate,
        Category::Verify,
        Category::Trace,
        Category::Zones,
        Category::Stats,
        Category::Logs,
        Category::Process,
        Category::Misc,
    ];
}

/// What zonekit does with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Support {
    /// Parsed into [`JobOptions`] and honoured when a job runs.
    Implemented,
    /// Parsed and validated, then ignored: it cannot change what is measured (the help says why).
    Ignored,
    /// Parsed and validated (so `--parse-only` accepts it); a job that sets it to anything but its
    /// default is refused when it runs, with one line naming it.
    Refused,
    /// Rejected while parsing, as fio 3.33 itself rejects it (removed options).
    Rejected,
}

impl Support {
    /// Short name for tables.
    pub fn label(self) -> &'static str {
        match self {
            Support::Implemented => "implemented",
            Support::Ignored => "ignored",
            Support::Refused => "refused",
            Support::Rejected => "rejected",
        }
    }
}

/// One option.
#[derive(Debug, Clone, Copy)]
pub struct OptionDef {
    /// fio's name (the canonical one, used in the JSON echo and `--showcmd`).
    pub name: &'static str,
    /// Other names fio accepts for it.
    pub aliases: &'static [&'static str],
    /// Value syntax.
    pub kind: Kind,
    /// fio 3.33's default as fio writes it, if it has one.
    pub default: Option<&'static str>,
    /// Docs group.
    pub category: Category,
    /// fio's parent option (for the `--cmdhelp=all` tree).
    pub parent: Option<&'static str>,
    /// fio's parse priority within a section: higher first (`kb_base` 1, `filename` -1).
    pub prio: i8,
    /// What zonekit does with it.
    pub support: Support,
    /// One line of help.
    pub help: &'static str,
    /// Sets the typed field(s); `None` for options without one.
    pub apply: Option<ApplyFn>,
}

/// An option entry; the builder methods below add the rest.
pub const fn opt(
    name: &'static str,
    kind: Kind,
    category: Category,
    support: Support,
    help: &'static str,
) -> OptionDef {
    OptionDef { name, aliases: &[], kind, default: None, category, parent: None, prio: 0, support, help, apply: None }
}

impl OptionDef {
    /// Adds aliases.
    pub const fn alias(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// Sets fio's default.
    pub const fn def(mut self, default: &'static str) -> Self {
        self.default = Some(default);
        self
    }

    /// Sets the parent option.
    pub const fn parent(mut self, parent: &'static str) -> Self {
        self.parent = Some(parent);
        self
    }

    /// Sets the parse priority.
    pub const fn prio(mut self, prio: i8) -> Self {
        self.prio = prio;
        self
    }

    /// Sets the function that stores the value.
    pub const fn apply(mut self, f: ApplyFn) -> Self {
        self.apply = Some(f);
        self
    }

    /// True when `name` is this option's name or one of its aliases.
    pub fn matches(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    /// True when `v` is what the option's default parses to (or, without a default, an "off"
    /// value: false, 0, empty).
    pub fn is_default_value(&self, v: &Value) -> bool {
        match self.default {
            Some(d) => self.kind.parse(Some(d), 1024).is_ok_and(|dv| &dv == v),
            None => match v {
                Value::Bool(b) => !b,
                Value::Int(i) => *i == 0,
                Value::IntDirs(d) => d.iter().all(|x| x.is_none_or(|x| x == 0)),
                Value::SizeDirs(d) => d.iter().all(|x| x.is_none_or(|x| x == 0)),
                Value::Size(s) => s.is_zero(),
                Value::Time(t) => t.is_zero(),
                Value::Absent => false,
                _ => false,
            },
        }
    }
}

/// Looks up a general (non-engine) option by name or alias.
pub fn find(name: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().find(|o| o.matches(name))
}

/// Options of fio newer than 3.33, recognised so the error says so (from fio's HEAD `options.c`
/// and engines, where 3.33 lacks them).
pub const NEWER_THAN_333: &[&str] = &[
    "apptag",
    "apptag_mask",
    "cdb_len",
    "cmdprio_hint",
    "comm",
    "data_placement",
    "dataplacement",
    "deac",
    "dp_scheme",
    "end_syncfs",
    "fdp",
    "fdp_pli",
    "fdp_pli_select",
    "filetype",
    "http_object_mode",
    "http_s3_security_token",
    "job_start_clock_id",
    "libaio_vectored",
    "libblkio_driver",
    "libblkio_force_enable_completion_eventfd",
    "libblkio_num_entries",
    "libblkio_path",
    "libblkio_pre_connect_props",
    "libblkio_pre_start_props",
    "libblkio_queue_size",
    "libblkio_vectored",
    "libblkio_wait_mode",
    "libblkio_write_zeroes_on_trim",
    "log_issue_time",
    "log_window_value",
    "md_per_io_size",
    "num_range",
    "pi_act",
    "pi_chk",
    "plid_select",
    "plids",
    "priohint",
    "ramp_size",
    "random_sequence_stride",
    "rbd_encryption_format",
    "rbd_encryption_passphrase",
    "read_mode",
    "recover_zbd_write_error",
    "rocm_io",
    "spr_cs",
    "spr_num_regions",
    "spr_op",
    "sprandom",
    "ss_interval",
    "steadystate_check_interval",
    "thinkcycles",
    "verify_bytchk",
    "verify_header_seed",
    "verify_mode",
    "verify_pattern_interval",
    "verify_policy",
    "verify_write_sequence",
    "write_mode",
    "write_zone_remainder",
    "xnvme_dev_subnqn",
    "xnvme_mem",
];

/// Every general option fio 3.33 knows, in fio's order.
pub static OPTIONS: &[OptionDef] = &[
    opt("description", Kind::Text, Category::Description, Support::Implemented, "Free text describing the job; echoed in the JSON output.")
        .apply(|o, v| {
            o.description = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("name", Kind::Text, Category::Description, Support::Implemented, "Name of the job; on the command line `--name` also starts a new job.")
        .apply(|o, v| {
            o.name = v.as_text().to_string();
            Ok(())
        }),
    opt("wait_for", Kind::Text, Category::Jobs, Support::Implemented, "Start only once every clone of the named job has finished.")
        .apply(|o, v| {
            o.wait_for = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("filename", Kind::Text, Category::Files, Support::Implemented, "File or device to use; `:` separates several (`\\:` is a literal colon).")
        .prio(-1)
        .apply(|o, v| {
            o.filename = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("directory", Kind::Text, Category::Files, Support::Implemented, "Directory for generated file names; `:` separates several, used in turn.")
        .apply(|o, v| {
            o.directory = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("filename_format", Kind::Text, Category::Files, Support::Implemented, "Template for generated file names: `$jobname`, `$jobnum`, `$filenum`, `$clientuid`.")
        .def("$jobname.$jobnum.$filenum")
        .prio(-1)
        .apply(|o, v| {
            o.filename_format = v.as_text().to_string();
            Ok(())
        }),
    opt("unique_filename", Kind::Bool, Category::Files, Support::Ignored, "Client/server mode only (prefixes names with the client address); no effect here.")
        .def("1")
        .apply(|o, v| {
            o.unique_filename = v.as_bool();
            Ok(())
        }),
    opt("lockfile", Kind::Choice { choices: &[Choice { name: "none", canon: "none", help: "no locking" }, Choice { name: "exclusive", canon: "exclusive", help: "one I/O at a time" }, Choice { name: "readwrite", canon: "readwrite", help: "shared reads, exclusive writes" }], postfix: false }, Category::Files, Support::Implemented, "Lock each file around the submission of each I/O (the whole I/O with a synchronous engine), with a lock every job of the run on that file shares: `none`, `exclusive` or `readwrite`.")
        .def("none")
        .apply(|o, v| {
            o.lockfile = v.as_text().to_string();
            Ok(())
        })
        .parent("filename")
        .prio(1),
    opt("opendir", Kind::Text, Category::Files, Support::Implemented, "Add every regular file below this directory (recursively, in directory order) to the job's files.")
        .apply(|o, v| {
            o.opendir = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("rw", Kind::Choice { choices: &[Choice { name: "read", canon: "read", help: "sequential reads" }, Choice { name: "write", canon: "write", help: "sequential writes" }, Choice { name: "trim", canon: "trim", help: "sequential trims" }, Choice { name: "randread", canon: "randread", help: "random reads" }, Choice { name: "randwrite", canon: "randwrite", help: "random writes" }, Choice { name: "randtrim", canon: "randtrim", help: "random trims" }, Choice { name: "rw", canon: "rw", help: "sequential mixed reads and writes" }, Choice { name: "readwrite", canon: "rw", help: "same as rw" }, Choice { name: "randrw", canon: "randrw", help: "random mixed reads and writes" }, Choice { name: "trimwrite", canon: "trimwrite", help: "trim then write each block, sequentially" }, Choice { name: "randtrimwrite", canon: "randtrimwrite", help: "trim then write each block, at random offsets" }], postfix: true }, Category::IoType, Support::Implemented, "I/O pattern; `:N` is the offset modifier (a new random offset every N I/Os, or an N-byte gap after each sequential I/O, which past the end of the file starts over; negative, backwards: `read:-8k`).")
        .alias(&["readwrite"])
        .def("read")
        .apply(special::apply_rw),
    opt("rw_sequencer", Kind::Choice { choices: &[Choice { name: "sequential", canon: "sequential", help: "offsets after a random one follow on sequentially" }, Choice { name: "identical", canon: "identical", help: "repeat the same offset" }], postfix: false }, Category::IoType, Support::Implemented, "With `rw=…:N`, how the offsets after each random one are chosen.")
        .def("sequential")
        .apply(|o, v| {
            o.rw_sequencer = if v.as_text() == "identical" { RwSequencer::Identical } else { RwSequencer::Sequential };
            Ok(())
        }),
    opt("ioengine", Kind::Special("engine name, or external:/path/to/engine.so"), Category::Engine, Support::Implemented, "How I/O is issued. zonekit runs `sync`, `psync`, `io_uring`, `libaio` and `null`; fio's other engines are known by name and refused when a job runs.")
        .def("psync")
        .apply(special::apply_ioengine),
    opt("iodepth", Kind::Int { min: 1, max: u32::MAX as i64 }, Category::Engine, Support::Implemented, "I/Os kept in flight; synchronous engines cap it at 1 (with fio's note).")
        .def("1")
        .apply(|o, v| {
            o.iodepth = v.as_u32();
            Ok(())
        }),
    opt("iodepth_batch", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Engine, Support::Implemented, "I/Os submitted at once (0 or more than `iodepth`: `iodepth`).")
        .alias(&["iodepth_batch_submit"])
        .def("1")
        .parent("iodepth")
        .apply(|o, v| {
            o.iodepth_batch_submit = v.as_u32();
            Ok(())
        }),
    opt("iodepth_batch_complete_min", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Engine, Support::Implemented, "Fewest completions waited for at once (0: reap without waiting).")
        .alias(&["iodepth_batch_complete"])
        .def("1")
        .parent("iodepth")
        .apply(|o, v| {
            o.iodepth_batch_complete_min = v.as_u32();
            Ok(())
        }),
    opt("iodepth_batch_complete_max", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Engine, Support::Implemented, "Most completions reaped at once (raised to the minimum if below it).")
        .parent("iodepth")
        .apply(|o, v| {
            o.iodepth_batch_complete_max = v.as_u32();
            Ok(())
        }),
    opt("iodepth_low", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Engine, Support::Implemented, "Refill the queue only once it has drained to this depth (0 or more than `iodepth`: `iodepth`).")
        .parent("iodepth")
        .apply(|o, v| {
            o.iodepth_low = v.as_u32();
            Ok(())
        }),
    opt("serialize_overlap", Kind::Bool, Category::Engine, Support::Implemented, "Hold back an I/O whose byte range overlaps one in flight (in any file, as fio compares offsets only) until that completes; matters for asynchronous engines at `iodepth` > 1.")
        .def("0")
        .parent("iodepth")
        .apply(|o, v| {
            o.serialize_overlap = v.as_bool();
            Ok(())
        }),
    opt("io_submit_mode", Kind::Choice { choices: &[Choice { name: "inline", canon: "inline", help: "submit from the job thread" }, Choice { name: "offload", canon: "offload", help: "submit from a pool of helper threads" }], postfix: false }, Category::Engine, Support::Implemented, "`inline` submits from the job's thread; `offload` hands each I/O to a pool of `iodepth` submission threads, each with an engine of its own, so the job issues at its rate whatever the device's completions (not `io_uring`, as in fio; not the engines without data, on which fio 3.33 crashes; real time only).")
        .def("inline")
        .apply(|o, v| {
            o.io_submit_mode = v.as_text().to_string();
            Ok(())
        }),
    opt("size", Kind::Size { min: 0, percent: true, zones: true }, Category::Files, Support::Implemented, "Size of the job's region: bytes, a percentage of the file or device (`50%`), or zones (`8z`).")
        .apply(|o, v| {
            o.size = Some(v.as_size());
            Ok(())
        }),
    opt("io_size", Kind::Size { min: 0, percent: true, zones: true }, Category::Files, Support::Implemented, "Bytes to transfer (default: `size`); larger than `size` reuses the region.")
        .alias(&["io_limit"])
        .apply(|o, v| {
            o.io_size = Some(v.as_size());
            Ok(())
        }),
    opt("fill_device", Kind::Bool, Category::Files, Support::Implemented, "Write until the device or file system is full (without `size`: no other limit); the write that finds no space (`ENOSPC`, `EDQUOT`) ends the job without an error, as in fio.")
        .alias(&["fill_fs"])
        .def("0")
        .apply(|o, v| {
            o.fill_device = v.as_bool();
            Ok(())
        }),
    opt("filesize", Kind::SizePair, Category::Files, Support::Implemented, "Size of each file; `low-high` draws a size per file.")
        .apply(|o, v| {
            if let Value::SizePair(l, h) = v { o.filesize = Some((*l, *h)); }
            Ok(())
        }),
    opt("file_append", Kind::Bool, Category::Files, Support::Implemented, "Start I/O at the current end of each file (`offset` is ignored); the file grows by the job's size.")
        .def("0")
        .apply(|o, v| {
            o.file_append = v.as_bool();
            Ok(())
        }),
    opt("offset", Kind::Size { min: 0, percent: true, zones: true }, Category::Files, Support::Implemented, "Where I/O starts in each file: bytes, a percentage or zones.")
        .alias(&["fileoffset"])
        .def("0")
        .apply(|o, v| {
            o.offset = v.as_size();
            Ok(())
        }),
    opt("offset_align", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Files, Support::Implemented, "Alignment of a percentage `offset` (0: the smallest block size).")
        .def("0")
        .apply(|o, v| {
            o.offset_align = v.as_int() as u64;
            Ok(())
        }),
    opt("offset_increment", Kind::Size { min: 0, percent: true, zones: true }, Category::Files, Support::Implemented, "Added to `offset` for each `numjobs` clone: bytes, a percentage or zones.")
        .def("0")
        .parent("offset")
        .apply(|o, v| {
            o.offset_increment = v.as_size();
            Ok(())
        }),
    opt("number_ios", Kind::Size { min: 0, percent: false, zones: false }, Category::Files, Support::Implemented, "Stop after this many I/Os (of all directions, each pass counted: `loops` multiplies it) if the byte count does not stop the job first; time-based jobs ignore it, as fio does.")
        .def("0")
        .apply(|o, v| {
            o.number_ios = v.as_bytes();
            Ok(())
        }),
    opt("bs", Kind::SizeDirs { min: 1 }, Category::BlockSize, Support::Implemented, "Block size; `r,w,t` sets read, write and trim separately (`bs=4k,64k`).")
        .alias(&["blocksize"])
        .def("4096")
        .parent("rw")
        .apply(|o, v| {
            set_dirs(&mut o.bs, v);
            Ok(())
        }),
    opt("ba", Kind::SizeDirs { min: 1 }, Category::BlockSize, Support::Implemented, "Alignment of random offsets per direction (default: the smallest block size); turns the random map off.")
        .alias(&["blockalign"])
        .parent("rw")
        .apply(|o, v| {
            set_dirs(&mut o.blockalign, v);
            Ok(())
        }),
    opt("bsrange", Kind::SizeRangeDirs, Category::BlockSize, Support::Implemented, "Block sizes drawn from `low-high`, per direction as for `bs` (a reversed range is swapped, as fio does).")
        .alias(&["blocksize_range"])
        .parent("rw")
        .apply(special::apply_bsrange),
    opt("bssplit", Kind::Special("bs/percent[:bs/percent…][,write list[,trim list]]"), Category::BlockSize, Support::Implemented, "Mix of block sizes `size/percent:size/percent…`; `,` separates read, write and trim.")
        .parent("rw")
        .apply(special::apply_bssplit),
    opt("bs_unaligned", Kind::Flag, Category::BlockSize, Support::Implemented, "Block sizes drawn in `bsrange` are used as drawn, not rounded down to a multiple of the smallest one (so not multiples of 512 bytes); an error with `direct=1`, where fio only warns.")
        .alias(&["blocksize_unaligned"])
        .parent("rw")
        .apply(|o, v| {
            o.bs_unaligned = v.as_bool();
            Ok(())
        }),
    opt("bs_is_seq_rand", Kind::Bool, Category::BlockSize, Support::Implemented, "Read `bs=a,b` as sequential,random instead of read,write (an offset drawn at random is random; sequential ones and `percentage_random`'s continuations are not).")
        .def("0")
        .parent("blocksize")
        .apply(|o, v| {
            o.bs_is_seq_rand = v.as_bool();
            Ok(())
        }),
    opt("randrepeat", Kind::Bool, Category::Random, Support::Implemented, "Seed the random generators the same way on every run (and every pass of `loops`), as fio does for the same seed.")
        .def("1")
        .parent("rw")
        .apply(|o, v| {
            o.randrepeat = v.as_bool();
            Ok(())
        }),
    opt("randseed", Kind::Size { min: 0, percent: false, zones: false }, Category::Random, Support::Implemented, "Seed of the random generators (fio's derivation per purpose and thread); setting it turns `randrepeat` off, yet random offsets change with it only under `randrepeat=0`, as in fio.")
        .def("0x89")
        .parent("rw")
        .apply(|o, v| {
            o.randseed = v.as_bytes();
            Ok(())
        }),
    opt("norandommap", Kind::Flag, Category::Random, Support::Implemented, "Do not track done blocks: random I/O may hit a block twice in a pass.")
        .parent("rw")
        .apply(|o, v| {
            o.norandommap = v.as_bool();
            Ok(())
        }),
    opt("softrandommap", Kind::Bool, Category::Random, Support::Ignored, "Go on without a random map if it cannot be allocated; zonekit always allocates it.")
        .def("0")
        .parent("norandommap")
        .apply(|o, v| {
            o.softrandommap = v.as_bool();
            Ok(())
        }),
    opt("random_generator", Kind::Choice { choices: &[Choice { name: "tausworthe", canon: "tausworthe", help: "" }, Choice { name: "lfsr", canon: "lfsr", help: "" }, Choice { name: "tausworthe64", canon: "tausworthe64", help: "" }], postfix: false }, Category::Random, Support::Implemented, "Generator of random offsets, fio's own: `tausworthe` (32-bit), `tausworthe64`, or `lfsr` (each block once per pass, without a random map); the same seed gives fio's sequence.")
        .def("tausworthe")
        .apply(|o, v| {
            o.random_generator = v.as_text().to_string();
            Ok(())
        }),
    opt("random_distribution", Kind::Choice { choices: &[Choice { name: "random", canon: "random", help: "uniform" }, Choice { name: "zipf", canon: "zipf", help: "Zipf, `zipf:θ` (default 1.1)" }, Choice { name: "pareto", canon: "pareto", help: "Pareto, `pareto:h` (0<h<1, default 0.2)" }, Choice { name: "normal", canon: "normal", help: "Gaussian, `normal:σ` in percent of the range" }, Choice { name: "zoned", canon: "zoned", help: "`zoned:a/s:…`: a% of accesses to s% of the range" }, Choice { name: "zoned_abs", canon: "zoned_abs", help: "`zoned_abs:a/s:…`: a% of accesses to s bytes" }], postfix: true }, Category::Random, Support::Implemented, "Distribution of random offsets: `random`, `zipf[:θ]`, `pareto[:h]`, `normal[:σ]` (each with an optional `:center`), `zoned:…` or `zoned_abs:…` (fio's offsets; a list per direction, `r,w,t`, which fio 3.33's parser refuses, is read as fio documents it).")
        .def("random")
        .apply(special::apply_random_distribution),
    opt("percentage_random", Kind::IntDirs { min: 0, max: 100 }, Category::Random, Support::Implemented, "Share of random I/Os in a random job, per direction; the others continue sequentially from the previous I/O.")
        .def("100,100,100")
        .apply(|o, v| {
            if let Value::IntDirs(d) = v { for (i, x) in d.iter().enumerate() { if let Some(x) = x { o.percentage_random[i] = *x as u32; } } }
            Ok(())
        }),
    opt("percentage_sequential", Kind::Removed, Category::Random, Support::Rejected, "Removed from fio (use `percentage_random`)."),
    opt("allrandrepeat", Kind::Bool, Category::Random, Support::Implemented, "Seed every generator from the thread number alone (fio's `FIO_RANDSEED`), whatever `randseed` and `randrepeat` say.")
        .def("0")
        .apply(|o, v| {
            o.allrandrepeat = v.as_bool();
            Ok(())
        }),
    opt("nrfiles", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Files, Support::Implemented, "Number of files per job.")
        .alias(&["nr_files"])
        .def("1")
        .apply(|o, v| {
            o.nrfiles = v.as_u32();
            Ok(())
        }),
    opt("openfiles", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Files, Support::Ignored, "Files kept open at once (0: all); zonekit keeps all of a job's files open.")
        .apply(|o, v| {
            o.openfiles = v.as_u32();
            Ok(())
        }),
    opt("file_service_type", Kind::Choice { choices: &[Choice { name: "random", canon: "random", help: "pick a file at random" }, Choice { name: "zipf", canon: "zipf", help: "Zipf-distributed file choice" }, Choice { name: "pareto", canon: "pareto", help: "Pareto-distributed file choice" }, Choice { name: "normal", canon: "normal", help: "Gaussian file choice" }, Choice { name: "gauss", canon: "normal", help: "same as normal" }, Choice { name: "roundrobin", canon: "roundrobin", help: "take files in turn" }, Choice { name: "sequential", canon: "sequential", help: "finish one file before the next" }], postfix: true }, Category::Files, Support::Implemented, "How the next file is chosen; zonekit runs `roundrobin` and refuses the others when a job runs.")
        .def("roundrobin")
        .parent("nrfiles")
        .apply(special::apply_file_service_type),
    opt("fallocate", Kind::Choice { choices: &[Choice { name: "none", canon: "none", help: "do not preallocate" }, Choice { name: "native", canon: "native", help: "fallocate(2), failures ignored" }, Choice { name: "posix", canon: "posix", help: "posix_fallocate(3), failures logged" }, Choice { name: "keep", canon: "keep", help: "fallocate(2) with FALLOC_FL_KEEP_SIZE" }, Choice { name: "truncate", canon: "truncate", help: "ftruncate(2) to the size" }, Choice { name: "0", canon: "none", help: "same as none" }, Choice { name: "1", canon: "posix", help: "same as posix" }], postfix: false }, Category::Files, Support::Implemented, "How a file being laid out is preallocated after it is (re)created: `native` fallocate(2) (a failure ignored), `posix` posix_fallocate(3) (a failure logged), `keep` fallocate with FALLOC_FL_KEEP_SIZE and `truncate` ftruncate(2) (a failure is the job's error after its first I/O), `none`.")
        .def("native")
        .apply(|o, v| {
            o.fallocate = v.as_text().to_string();
            Ok(())
        }),
    opt("fadvise_hint", Kind::Choice { choices: &[Choice { name: "0", canon: "0", help: "no advice" }, Choice { name: "1", canon: "1", help: "the job's pattern: random or sequential" }, Choice { name: "random", canon: "random", help: "POSIX_FADV_RANDOM" }, Choice { name: "sequential", canon: "sequential", help: "POSIX_FADV_SEQUENTIAL" }], postfix: false }, Category::Files, Support::Implemented, "posix_fadvise(2) each file over the job's range as it is opened: `1` by the job's pattern (`POSIX_FADV_RANDOM` for random I/O, else `POSIX_FADV_SEQUENTIAL`), `random`, `sequential`, `0` none; the `mmap` engine's madvise follows it too.")
        .def("1")
        .apply(|o, v| {
            o.fadvise_hint = v.as_text().to_string();
            Ok(())
        }),
    opt("fsync", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Sync, Support::Implemented, "fsync after every N writes (0: never).")
        .def("0")
        .apply(|o, v| {
            o.fsync = v.as_u32();
            Ok(())
        }),
    opt("fdatasync", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Sync, Support::Implemented, "fdatasync after every N writes (0: never).")
        .def("0")
        .apply(|o, v| {
            o.fdatasync = v.as_u32();
            Ok(())
        }),
    opt("write_barrier", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Sync, Support::Ignored, "Mark every N-th write a barrier write: fio 3.33 marks them only for an engine with barrier support (libpmem), and no engine acts on the mark, so nothing changes.")
        .def("0"),
    opt("sync_file_range", Kind::Special("flags[,flags…][:N] with flags wait_before, write, wait_after"), Category::Sync, Support::Implemented, "Call sync_file_range(2) with these flags every N writes (`flags:N`, N 1 when left out) over the range written since the last sync; counted with the syncs (`fsync/fdatasync/sync_file_range` latencies).")
        .apply(|o, v| {
            o.sync_file_range = special::parse_sync_file_range(v.as_text())?;
            Ok(())
        }),
    opt("direct", Kind::Bool, Category::Engine, Support::Implemented, "Unbuffered I/O (O_DIRECT); the opposite of `buffered`.")
        .def("0")
        .apply(|o, v| {
            o.direct = v.as_bool(); o.buffered = !o.direct;
            Ok(())
        }),
    opt("atomic", Kind::Bool, Category::Engine, Support::Implemented, "Atomic O_DIRECT writes: implies `direct=1`, whatever `direct` says; the O_ATOMIC flag fio 3.33 adds on Linux is one the kernel ignores, so the I/O is plain O_DIRECT.")
        .def("0")
        .apply(|o, v| {
            o.atomic = v.as_bool();
            Ok(())
        }),
    opt("buffered", Kind::Bool, Category::Engine, Support::Implemented, "Buffered I/O; the opposite of `direct`.")
        .def("1")
        .apply(|o, v| {
            o.buffered = v.as_bool(); o.direct = !o.buffered;
            Ok(())
        }),
    opt("overwrite", Kind::Bool, Category::Files, Support::Implemented, "Lay files out before writing, so writes overwrite existing blocks (always on for jobs that read).")
        .def("0")
        .apply(|o, v| {
            o.overwrite = v.as_bool();
            Ok(())
        }),
    opt("loops", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Time, Support::Implemented, "Run the workload this many times.")
        .def("1")
        .apply(|o, v| {
            o.loops = v.as_u32();
            Ok(())
        }),
    opt("numjobs", Kind::Int { min: 1, max: u32::MAX as i64 }, Category::Jobs, Support::Implemented, "Run this many clones of the job (same group); at least 1 (fio 3.33 would loop on 0); a run refuses more than 4088 jobs in all, as fio does.")
        .def("1")
        .apply(|o, v| {
            o.numjobs = v.as_u32();
            Ok(())
        }),
    opt("startdelay", Kind::TimePair { seconds: true }, Category::Time, Support::Implemented, "Wait this long before starting (seconds by default); `low-high` draws the delay.")
        .def("0")
        .apply(|o, v| {
            if let Value::TimePair(l, h) = v { o.startdelay = (*l, *h); }
            Ok(())
        }),
    opt("runtime", Kind::Time { seconds: true }, Category::Time, Support::Implemented, "Stop after this long (seconds by default; 0: no limit).")
        .alias(&["timeout"])
        .def("0")
        .apply(|o, v| {
            let t = v.as_time(); o.runtime = if t.is_zero() { None } else { Some(t) };
            Ok(())
        }),
    opt("time_based", Kind::Flag, Category::Time, Support::Implemented, "Run for all of `runtime`, repeating the workload as needed.")
        .apply(|o, v| {
            o.time_based = v.as_bool();
            Ok(())
        }),
    opt("verify_only", Kind::Flag, Category::Verify, Support::Implemented, "Do not write: only verify data written by an earlier run (a writing job reads back what it would have written).")
        .apply(|o, v| {
            o.verify.only = v.as_bool();
            Ok(())
        }),
    opt("ramp_time", Kind::Time { seconds: true }, Category::Time, Support::Implemented, "Run this long before statistics start (seconds by default).")
        .apply(|o, v| {
            o.ramp_time = v.as_time();
            Ok(())
        }),
    opt("clocksource", Kind::Choice { choices: &[Choice { name: "gettimeofday", canon: "gettimeofday", help: "microsecond resolution" }, Choice { name: "clock_gettime", canon: "clock_gettime", help: "CLOCK_MONOTONIC" }, Choice { name: "cpu", canon: "cpu", help: "the CPU's time-stamp counter" }], postfix: false }, Category::Stats, Support::Implemented, "The clock the run times I/O with (one for the whole run: the last job that sets it decides): `gettimeofday` (every latency a whole number of microseconds), `clock_gettime` (CLOCK_MONOTONIC), `cpu` (the time-stamp counter, or CLOCK_MONOTONIC where it is not reliable; zonekit's choice when unset, as fio's).")
        .apply(|o, v| {
            o.clocksource = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("mem", Kind::Choice { choices: &[Choice { name: "malloc", canon: "malloc", help: "the heap" }, Choice { name: "shm", canon: "shm", help: "a System V shared memory segment" }, Choice { name: "shmhuge", canon: "shmhuge", help: "a shared memory segment of huge pages" }, Choice { name: "mmap", canon: "mmap", help: "an anonymous map, or `mmap:FILE` a private map of FILE" }, Choice { name: "mmapshared", canon: "mmapshared", help: "as mmap; `mmapshared:FILE` a shared map of FILE" }, Choice { name: "mmaphuge", canon: "mmaphuge", help: "a map of huge pages (`mmaphuge:FILE` on hugetlbfs)" }], postfix: true }, Category::Buffers, Support::Implemented, "Where the I/O buffers live: `malloc` (the heap), `shm`/`shmhuge` (shmget+shmat, huge pages with `shmhuge`), `mmap`/`mmapshared`/`mmaphuge` (an anonymous map, MAP_HUGETLB with `mmaphuge`; `:FILE` maps FILE). A failed allocation fails the job with fio's error (`func=mmap`, `func=shmget`…); `cudamalloc` is refused, as by fio built without CUDA.")
        .alias(&["iomem"])
        .def("malloc")
        .apply(|o, v| {
            if let Value::Choice(name, postfix) = v {
                o.mem = (*name).to_string();
                // fio's str_mem_cb: only the map kinds read a file name after the colon.
                o.mmapfile = postfix.clone().filter(|_| name.starts_with("mmap"));
            }
            Ok(())
        }),
    opt("iomem_align", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Buffers, Support::Implemented, "Start every I/O buffer this many bytes past a page boundary (0: page-aligned). With `direct=1` an offset the device's DMA alignment refuses fails the first I/O with EINVAL, as in fio.")
        .alias(&["mem_align"])
        .def("0")
        .parent("iomem")
        .apply(|o, v| {
            o.iomem_align = v.as_u32();
            Ok(())
        }),
    opt("verify", Kind::Choice { choices: &[Choice { name: "0", canon: "0", help: "" }, Choice { name: "md5", canon: "md5", help: "" }, Choice { name: "crc64", canon: "crc64", help: "" }, Choice { name: "crc32", canon: "crc32", help: "" }, Choice { name: "crc32c-intel", canon: "crc32c-intel", help: "" }, Choice { name: "crc32c", canon: "crc32c", help: "" }, Choice { name: "crc16", canon: "crc16", help: "" }, Choice { name: "crc7", canon: "crc7", help: "" }, Choice { name: "sha1", canon: "sha1", help: "" }, Choice { name: "sha256", canon: "sha256", help: "" }, Choice { name: "sha512", canon: "sha512", help: "" }, Choice { name: "sha3-224", canon: "sha3-224", help: "" }, Choice { name: "sha3-256", canon: "sha3-256", help: "" }, Choice { name: "sha3-384", canon: "sha3-384", help: "" }, Choice { name: "sha3-512", canon: "sha3-512", help: "" }, Choice { name: "xxhash", canon: "xxhash", help: "" }, Choice { name: "meta", canon: "meta", help: "" }, Choice { name: "pattern", canon: "pattern", help: "" }, Choice { name: "null", canon: "null", help: "" }], postfix: false }, Category::Verify, Support::Implemented, "Check written data with this method (`md5`, `crc32c`, `pattern`…); `0` is off. Written blocks carry fio's verify header, so data written by fio verifies here and the reverse.")
        .def("0")
        .apply(|o, v| {
            o.verify.kind = crate::verify::VerifyType::from_option(v.as_text());
            Ok(())
        }),
    opt("do_verify", Kind::Bool, Category::Verify, Support::Implemented, "Run the verify phase after writing (with `verify`; fio's default of 1 also makes every pass of a job start with all its files, which zonekit follows).")
        .def("1")
        .parent("verify")
        .apply(|o, v| {
            o.do_verify = v.as_bool();
            Ok(())
        }),
    opt("verifysort", Kind::Deprecated, Category::Verify, Support::Ignored, "Deprecated in fio; no effect."),
    opt("verifysort_nr", Kind::Deprecated, Category::Verify, Support::Ignored, "Deprecated in fio; no effect."),
    opt("verify_interval", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Verify, Support::Implemented, "Bytes covered by each verify header (default: the write block size).")
        .parent("verify")
        .apply(|o, v| {
            o.verify.interval = v.as_u32();
            Ok(())
        }),
    opt("verify_offset", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Verify, Support::Implemented, "Swap the verify header to this offset in each interval.")
        .parent("verify")
        .apply(|o, v| {
            o.verify.offset = v.as_u32();
            Ok(())
        }),
    opt("verify_pattern", Kind::Text, Category::Verify, Support::Implemented, "Pattern written and checked: `0xHEX`, a decimal integer, `\"text\"`, `'file'`, `%o` (the block offset), one after the other; alone it selects verification by pattern with headers.")
        .parent("verify")
        .apply(|o, v| {
            o.verify.pattern = Some(crate::verify::Pattern::parse(v.as_text())?);
            Ok(())
        }),
    opt("verify_fatal", Kind::Bool, Category::Verify, Support::Implemented, "Stop checking a block at its first bad interval.")
        .def("0")
        .parent("verify")
        .apply(|o, v| {
            o.verify.fatal = v.as_bool();
            Ok(())
        }),
    opt("verify_dump", Kind::Bool, Category::Verify, Support::Implemented, "Write the received and expected data of a block that fails verification to files in the current directory.")
        .def("0")
        .parent("verify")
        .apply(|o, v| {
            o.verify.dump = v.as_bool();
            Ok(())
        }),
    opt("verify_async", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Verify, Support::Implemented, "Verify in this many helper threads; zonekit verifies inline in the job's thread, with the same results.")
        .def("0")
        .parent("verify")
        .apply(|o, v| {
            o.verify.async_threads = v.as_u32();
            Ok(())
        }),
    opt("verify_backlog", Kind::Size { min: 0, percent: false, zones: false }, Category::Verify, Support::Implemented, "Verify written blocks after every N writes instead of after the write phase.")
        .parent("verify")
        .apply(|o, v| {
            o.verify.backlog = v.as_bytes();
            Ok(())
        }),
    opt("verify_backlog_batch", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Verify, Support::Implemented, "Blocks verified per backlog round (0: `verify_backlog`).")
        .parent("verify")
        .apply(|o, v| {
            o.verify.backlog_batch = v.as_u32();
            Ok(())
        }),
    opt("verify_async_cpus", Kind::Special("CPU list, e.g. 0-3,6"), Category::Verify, Support::Ignored, "CPUs of fio's verify threads (`verify_async`); zonekit verifies inline in the job's thread, which has no such threads to pin (the job's own CPUs are `cpus_allowed`). The list is checked as fio checks it (`CPU N too large`).")
        .parent("verify_async")
        .apply(|o, v| {
            o.placement.other_cpu_lists.push(("verify_async_cpus", v.as_text().to_string()));
            Ok(())
        }),
    opt("experimental_verify", Kind::Bool, Category::Verify, Support::Implemented, "Verify by replaying the job's offsets instead of a list of its writes.")
        .parent("verify")
        .apply(|o, v| {
            o.verify.experimental = v.as_bool();
            Ok(())
        }),
    opt("verify_state_load", Kind::Bool, Category::Verify, Support::Implemented, "Stop verifying where the writing job stopped, as its saved state file (`local-JOB-N-verify.state`) says.")
        .parent("verify")
        .apply(|o, v| {
            o.verify.state_load = v.as_bool();
            Ok(())
        }),
    opt("verify_state_save", Kind::Bool, Category::Verify, Support::Implemented, "When a writing job with `verify` ends, save what it completed to `local-JOB-N-verify.state` (fio's format).")
        .def("1")
        .parent("verify")
        .apply(|o, v| {
            o.verify.state_save = v.as_bool();
            Ok(())
        }),
    opt("trim_percentage", Kind::Int { min: 0, max: 100 }, Category::Verify, Support::Implemented, "Share of written blocks (logged for verification) that `trim_backlog` trims.")
        .def("0")
        .parent("verify")
        .apply(|o, v| {
            o.verify.trim_percentage = v.as_u32();
            Ok(())
        }),
    opt("trim_verify_zero", Kind::Bool, Category::Verify, Support::Implemented, "Verify that trimmed blocks read back as zeros (else they leave the verify list).")
        .def("1")
        .parent("trim_percentage")
        .apply(|o, v| {
            o.verify.trim_zero = v.as_bool();
            Ok(())
        }),
    opt("trim_backlog", Kind::Size { min: 0, percent: false, zones: false }, Category::Verify, Support::Implemented, "Trim blocks chosen by `trim_percentage` after every N writes.")
        .parent("trim_percentage")
        .apply(|o, v| {
            o.verify.trim_backlog = v.as_bytes();
            Ok(())
        }),
    opt("trim_backlog_batch", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Verify, Support::Implemented, "Blocks trimmed per backlog round (0: `trim_backlog`).")
        .parent("trim_percentage")
        .apply(|o, v| {
            o.verify.trim_batch = v.as_u32();
            Ok(())
        }),
    opt("write_iolog", Kind::Text, Category::Trace, Support::Implemented, "Record the I/O pattern to this file (fio's iolog version 3).")
        .apply(|o, v| {
            o.write_iolog = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("read_iolog", Kind::Text, Category::Trace, Support::Implemented, "Replay an I/O pattern from this file (fio's iolog version 2 or 3; blktrace files are refused).")
        .apply(|o, v| {
            o.replay.read_iolog = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("read_iolog_chunked", Kind::Bool, Category::Trace, Support::Ignored, "Read the replay log in chunks; has effect only with `read_iolog`.")
        .def("0")
        .parent("read_iolog"),
    opt("replay_no_stall", Kind::Bool, Category::Trace, Support::Implemented, "Replay without the recorded delays; has effect only with `read_iolog`.")
        .def("0")
        .parent("read_iolog")
        .apply(|o, v| {
            o.replay.no_stall = v.as_bool();
            Ok(())
        }),
    opt("replay_redirect", Kind::Text, Category::Trace, Support::Implemented, "Replay onto this device; has effect only with `read_iolog`.")
        .parent("read_iolog")
        .apply(|o, v| {
            o.replay.redirect = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("replay_scale", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Trace, Support::Implemented, "Divide replayed offsets by this; has effect only with `read_iolog`.")
        .def("1")
        .parent("read_iolog")
        .apply(|o, v| {
            o.replay.scale = v.as_u32().into();
            Ok(())
        }),
    opt("replay_align", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Trace, Support::Implemented, "Align replayed offsets down to this; has effect only with `read_iolog`.")
        .parent("read_iolog")
        .apply(|o, v| {
            o.replay.align = v.as_u32().into();
            Ok(())
        }),
    opt("replay_time_scale", Kind::Int { min: 1, max: u32::MAX as i64 }, Category::Trace, Support::Implemented, "Scale replay timing (percent); has effect only with `read_iolog`.")
        .def("100")
        .parent("read_iolog")
        .apply(|o, v| {
            o.replay.time_scale = v.as_u32().into();
            Ok(())
        }),
    opt("replay_skip", Kind::Special("comma list of read, write, trim, sync"), Category::Trace, Support::Implemented, "I/O kinds left out of a replay; has effect only with `read_iolog`.")
        .parent("read_iolog")
        .apply(|o, v| {
            for part in v.as_text().split(',') {
                match part.trim() {
                    "read" => o.replay.skip[0] = true,
                    "write" => o.replay.skip[1] = true,
                    "trim" => o.replay.skip[2] = true,
                    "sync" => o.replay.skip[3] = true,
                    other => return Err(format!("{other}: expected read, write, trim or sync")),
                }
            }
            Ok(())
        }),
    opt("merge_blktrace_file", Kind::Text, Category::Trace, Support::Refused, "Merge blktrace inputs into this file."),
    opt("merge_blktrace_scalars", Kind::FloatList { max_len: 20, min: f64::MIN, max: f64::MAX }, Category::Trace, Support::Ignored, "Per-trace scaling when merging; has effect only with `merge_blktrace_file`."),
    opt("merge_blktrace_iters", Kind::FloatList { max_len: 20, min: f64::MIN, max: f64::MAX }, Category::Trace, Support::Ignored, "Per-trace repetitions when merging; has effect only with `merge_blktrace_file`."),
    opt("exec_prerun", Kind::Text, Category::Misc, Support::Implemented, "Run this shell command (`sh -c`) before the job's I/O, its output to `<job>.prerun.txt`; when it fails the job does no I/O.")
        .apply(|o, v| {
            o.exec_prerun = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("exec_postrun", Kind::Text, Category::Misc, Support::Implemented, "Run this shell command (`sh -c`) after the job, its output to `<job>.postrun.txt`; its exit status is ignored.")
        .apply(|o, v| {
            o.exec_postrun = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("ioscheduler", Kind::Text, Category::Process, Support::Implemented, "Switch the disk under each of the job's files (the file system's disk for a regular file) to this I/O scheduler as the job starts (`/sys/block/DISK/queue/scheduler`), and fail the job (`unable to set io scheduler`) if it did not take; the scheduler is left switched, as fio leaves it.")
        .apply(|o, v| {
            o.placement.ioscheduler = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("zonemode", Kind::Choice { choices: &[Choice { name: "none", canon: "none", help: "no zones" }, Choice { name: "strided", canon: "strided", help: "zonesize bytes of each zonerange, then skip zoneskip" }, Choice { name: "zbd", canon: "zbd", help: "zoned block device rules: writes at write pointers" }], postfix: false }, Category::Zones, Support::Implemented, "How the zone options apply: `none`, `strided` (`zonesize` bytes of each `zonerange`, then skip `zoneskip`) or `zbd` (writes at write pointers, as on a zoned block device).")
        .def("none")
        .apply(|o, v| {
            o.zonemode = match v.as_text() { "zbd" => ZoneMode::Zbd, "strided" => ZoneMode::Strided, _ => ZoneMode::None };
            Ok(())
        }),
    opt("zonesize", Kind::Size { min: 0, percent: false, zones: false }, Category::Zones, Support::Implemented, "Zone size; with `zonemode=none` it is an error, as in fio.")
        .def("0")
        .apply(|o, v| {
            o.zonesize = v.as_bytes();
            Ok(())
        }),
    opt("zonecapacity", Kind::Size { min: 0, percent: false, zones: false }, Category::Zones, Support::Implemented, "Writable bytes of each zone (0: the zone size; emulated zones only).")
        .def("0")
        .apply(|o, v| {
            o.zonecapacity = v.as_bytes();
            Ok(())
        }),
    opt("zonerange", Kind::Size { min: 0, percent: false, zones: false }, Category::Zones, Support::Implemented, "Strided mode: size of one zone range (0: `zonesize`).")
        .def("0")
        .apply(|o, v| {
            o.zonerange = v.as_bytes();
            Ok(())
        }),
    opt("zoneskip", Kind::Size { min: 0, percent: false, zones: true }, Category::Zones, Support::Implemented, "Bytes (or zones, `Nz`) skipped after each zone.")
        .def("0")
        .apply(|o, v| {
            o.zoneskip = v.as_size();
            Ok(())
        }),
    opt("read_beyond_wp", Kind::Bool, Category::Zones, Support::Implemented, "zbd mode: let reads go past a zone's write pointer.")
        .def("0")
        .apply(|o, v| {
            o.read_beyond_wp = v.as_bool();
            Ok(())
        }),
    opt("max_open_zones", Kind::Int { min: 0, max: 4096 }, Category::Zones, Support::Implemented, "zbd mode: most zones written at once per device (0: the device limit).")
        .def("0")
        .apply(|o, v| {
            o.max_open_zones = v.as_u32();
            Ok(())
        }),
    opt("job_max_open_zones", Kind::Int { min: 0, max: 4096 }, Category::Zones, Support::Implemented, "zbd mode: most zones written at once by one job.")
        .def("0")
        .apply(|o, v| {
            o.job_max_open_zones = v.as_u32();
            Ok(())
        }),
    opt("ignore_zone_limits", Kind::Bool, Category::Zones, Support::Implemented, "zbd mode: ignore the device's open and active zone limits.")
        .def("0")
        .apply(|o, v| {
            o.ignore_zone_limits = v.as_bool();
            Ok(())
        }),
    opt("zone_reset_threshold", Kind::FloatList { max_len: 1, min: 0.0, max: 1.0 }, Category::Zones, Support::Implemented, "zbd mode: share of valid data (0–1) above which zones are reset.")
        .apply(|o, v| {
            if let Value::Floats(f, _) = v { o.zone_reset_threshold = f.first().copied().unwrap_or(0.0); }
            Ok(())
        }),
    opt("zone_reset_frequency", Kind::FloatList { max_len: 1, min: 0.0, max: 1.0 }, Category::Zones, Support::Implemented, "zbd mode: above the threshold, reset a zone every 1/f writes (0–1).")
        .apply(|o, v| {
            if let Value::Floats(f, _) = v { o.zone_reset_frequency = f.first().copied().unwrap_or(0.0); }
            Ok(())
        }),
    opt("lockmem", Kind::Size { min: 0, percent: false, zones: false }, Category::Process, Support::Implemented, "Lock this much memory (mlock) while the job runs, to shrink what the page cache can use; at most the machine's RAM less 128 MiB.")
        .def("0")
        .apply(|o, v| {
            o.lockmem = v.as_bytes();
            Ok(())
        }),
    opt("rwmixread", Kind::Int { min: 0, max: 100 }, Category::IoType, Support::Implemented, "Percentage of reads in a mixed job (`rw`, `randrw`); sets `rwmixwrite` to the rest.")
        .def("50")
        .apply(|o, v| {
            o.rwmixread = v.as_u32(); o.rwmixwrite = 100 - o.rwmixread;
            Ok(())
        }),
    opt("rwmixwrite", Kind::Int { min: 0, max: 100 }, Category::IoType, Support::Implemented, "Percentage of writes in a mixed job; sets `rwmixread` to the rest.")
        .def("50")
        .apply(|o, v| {
            o.rwmixwrite = v.as_u32(); o.rwmixread = 100 - o.rwmixwrite;
            Ok(())
        }),
    opt("rwmixcycle", Kind::Removed, Category::IoType, Support::Rejected, "Removed from fio."),
    opt("nice", Kind::Int { min: -20, max: 19 }, Category::Process, Support::Implemented, "Add this to the nice value of the job's thread as it starts (fio's `nice(N)` in each job; below 0 needs root).")
        .def("0")
        .apply(|o, v| {
            o.placement.nice = v.as_int() as i32;
            Ok(())
        }),
    opt("prio", Kind::Int { min: 0, max: 7 }, Category::Process, Support::Implemented, "I/O priority level of the job (ioprio_set on its thread, and the priority of each io_uring I/O).")
        .apply(|o, v| {
            o.prio = v.as_u32();
            Ok(())
        }),
    opt("prioclass", Kind::Int { min: 0, max: 3 }, Category::Process, Support::Implemented, "I/O priority class of the job (1 real-time, 2 best-effort, 3 idle), as prio.")
        .apply(|o, v| {
            o.prioclass = v.as_u32();
            Ok(())
        }),
    opt("thinktime", Kind::Time { seconds: false }, Category::Rate, Support::Implemented, "Pause between I/Os (microseconds by default).")
        .def("0")
        .apply(|o, v| {
            o.thinktime = v.as_time();
            Ok(())
        }),
    opt("thinktime_spin", Kind::Time { seconds: false }, Category::Rate, Support::Implemented, "Busy-wait part of `thinktime`; has effect only with `thinktime`.")
        .def("0")
        .parent("thinktime")
        .apply(|o, v| {
            o.thinktime_spin = v.as_time();
            Ok(())
        }),
    opt("thinktime_blocks", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Rate, Support::Implemented, "I/Os between think times; has effect only with `thinktime`.")
        .def("1")
        .parent("thinktime")
        .apply(|o, v| {
            o.thinktime_blocks = v.as_u32();
            o.pacing.thinktime_blocks_set = true;
            Ok(())
        }),
    opt("thinktime_blocks_type", Kind::Choice { choices: &[Choice { name: "complete", canon: "complete", help: "" }, Choice { name: "issue", canon: "issue", help: "" }], postfix: false }, Category::Rate, Support::Implemented, "Whether `thinktime_blocks` counts issued or completed I/Os; has effect only with `thinktime`.")
        .def("complete")
        .parent("thinktime")
        .apply(|o, v| {
            o.pacing.thinktime_blocks_issue = v.as_text() == "issue";
            Ok(())
        }),
    opt("thinktime_iotime", Kind::Time { seconds: true }, Category::Rate, Support::Implemented, "Think after this much I/O time; has effect only with `thinktime`.")
        .def("0")
        .parent("thinktime")
        .apply(|o, v| {
            o.pacing.thinktime_iotime_us = u64::try_from(v.as_time().as_micros()).unwrap_or(u64::MAX);
            Ok(())
        }),
    opt("rate", Kind::SizeDirs { min: 0 }, Category::Rate, Support::Implemented, "Bandwidth cap per direction (bytes per second).")
        .apply(|o, v| {
            set_dirs(&mut o.rate, v);
            Ok(())
        }),
    opt("rate_min", Kind::SizeDirs { min: 0 }, Category::Rate, Support::Implemented, "Least bandwidth per direction; the job fails below it.")
        .alias(&["ratemin"])
        .parent("rate")
        .apply(|o, v| {
            set_dirs(&mut o.rate_min, v);
            Ok(())
        }),
    opt("rate_iops", Kind::IntDirs { min: 0, max: u32::MAX as i64 }, Category::Rate, Support::Implemented, "IOPS cap per direction.")
        .apply(|o, v| {
            if let Value::IntDirs(d) = v { for (i, x) in d.iter().enumerate() { if let Some(x) = x { o.rate_iops[i] = *x as u32; } } }
            Ok(())
        }),
    opt("rate_iops_min", Kind::IntDirs { min: 0, max: u32::MAX as i64 }, Category::Rate, Support::Implemented, "Least IOPS per direction; the job fails below it.")
        .parent("rate_iops")
        .apply(|o, v| {
            if let Value::IntDirs(d) = v { for (i, x) in d.iter().enumerate() { if let Some(x) = x { o.rate_iops_min[i] = *x as u32; } } }
            Ok(())
        }),
    opt("rate_process", Kind::Choice { choices: &[Choice { name: "linear", canon: "linear", help: "" }, Choice { name: "poisson", canon: "poisson", help: "" }], postfix: false }, Category::Rate, Support::Implemented, "How rated I/O is spaced (`linear`, `poisson`); has effect only with a rate.")
        .def("linear")
        .parent("rate")
        .apply(|o, v| {
            o.pacing.poisson = v.as_text() == "poisson";
            Ok(())
        }),
    opt("rate_cycle", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Rate, Support::Implemented, "Averaging window of `rate_min` (ms); has effect only with a rate.")
        .alias(&["ratecycle"])
        .def("1000")
        .parent("rate")
        .apply(|o, v| {
            o.pacing.rate_cycle_ms = v.as_u32().into();
            Ok(())
        }),
    opt("rate_ignore_thinktime", Kind::Bool, Category::Rate, Support::Implemented, "Rate without counting think time; has effect only with a rate.")
        .parent("rate")
        .apply(|o, v| {
            o.pacing.rate_ignore_thinktime = v.as_bool();
            Ok(())
        }),
    opt("max_latency", Kind::TimeDirs { seconds: false }, Category::Rate, Support::Implemented, "Fail the job when an I/O takes longer than this (microseconds by default).")
        .apply(|o, v| {
            set_dirs(&mut o.pacing.max_latency_us, v);
            Ok(())
        }),
    opt("latency_target", Kind::Time { seconds: false }, Category::Rate, Support::Implemented, "Find the largest queue depth that keeps latency under this target.")
        .apply(|o, v| {
            o.pacing.latency_target_us = u64::try_from(v.as_time().as_micros()).unwrap_or(u64::MAX);
            Ok(())
        }),
    opt("latency_window", Kind::Time { seconds: false }, Category::Rate, Support::Implemented, "Window of `latency_target`; has effect only with it.")
        .apply(|o, v| {
            o.pacing.latency_window_us = u64::try_from(v.as_time().as_micros()).unwrap_or(u64::MAX);
            Ok(())
        }),
    opt("latency_percentile", Kind::FloatList { max_len: 1, min: 0.0, max: 100.0 }, Category::Rate, Support::Implemented, "Share of I/Os that must meet `latency_target`; has effect only with it.")
        .def("100")
        .apply(|o, v| {
            if let Value::Floats(f, _) = v {
                o.pacing.latency_percentile = f.first().copied().unwrap_or(100.0);
            }
            Ok(())
        }),
    opt("latency_run", Kind::Bool, Category::Rate, Support::Implemented, "Keep adjusting the depth for `latency_target`; has effect only with it.")
        .def("0")
        .apply(|o, v| {
            o.pacing.latency_run = v.as_bool();
            Ok(())
        }),
    opt("invalidate", Kind::Bool, Category::Files, Support::Implemented, "Drop the files' page cache before the job.")
        .def("1")
        .apply(|o, v| {
            o.invalidate = v.as_bool();
            Ok(())
        }),
    opt("sync", Kind::Choice { choices: &[Choice { name: "none", canon: "none", help: "no synchronous flag" }, Choice { name: "0", canon: "none", help: "same as none" }, Choice { name: "sync", canon: "sync", help: "O_SYNC" }, Choice { name: "1", canon: "sync", help: "same as sync" }, Choice { name: "dsync", canon: "dsync", help: "O_DSYNC" }], postfix: false }, Category::Engine, Support::Implemented, "Open files with O_SYNC (`sync`, `1`) or O_DSYNC (`dsync`).")
        .def("none")
        .apply(|o, v| {
            o.sync = v.as_text().to_string();
            Ok(())
        }),
    opt("write_hint", Kind::Choice { choices: &[Choice { name: "none", canon: "none", help: "RWH_WRITE_LIFE_NONE" }, Choice { name: "short", canon: "short", help: "RWH_WRITE_LIFE_SHORT" }, Choice { name: "medium", canon: "medium", help: "RWH_WRITE_LIFE_MEDIUM" }, Choice { name: "long", canon: "long", help: "RWH_WRITE_LIFE_LONG" }, Choice { name: "extreme", canon: "extreme", help: "RWH_WRITE_LIFE_EXTREME" }], postfix: false }, Category::Files, Support::Implemented, "Set each file's write-life hint as it is opened: fcntl F_SET_RW_HINT (buffered) or F_SET_FILE_RW_HINT (`direct=1`, which Linux 5.17 and later refuse: the job fails with `fcntl write hint`, as fio's).")
        .apply(|o, v| {
            o.write_hint = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("create_serialize", Kind::Bool, Category::Files, Support::Implemented, "Lay out every job's files before any job starts, one job at a time (`1`); `0`: each job lays out its own as it starts (after its `startdelay`), while others run. Must stay on with `zonemode=zbd`.")
        .def("1")
        .apply(|o, v| {
            o.create_serialize = v.as_bool();
            Ok(())
        }),
    opt("create_fsync", Kind::Bool, Category::Files, Support::Implemented, "fsync(2) a file once it is written out (a job that reads, or writes with `overwrite`); `0`: no fsync.")
        .def("1")
        .apply(|o, v| {
            o.create_fsync = v.as_bool();
            Ok(())
        }),
    opt("create_on_open", Kind::Bool, Category::Files, Support::Implemented, "Create files when they are opened for I/O (mode 0600), not laid out before the job.")
        .def("0")
        .apply(|o, v| {
            o.create_on_open = v.as_bool();
            Ok(())
        }),
    opt("create_only", Kind::Bool, Category::Files, Support::Implemented, "Lay out the files, then stop: the job does no I/O.")
        .def("0")
        .apply(|o, v| {
            o.create_only = v.as_bool();
            Ok(())
        }),
    opt("allow_file_create", Kind::Bool, Category::Files, Support::Implemented, "May create missing files; with `0` a job whose file does not exist fails.")
        .def("1")
        .apply(|o, v| {
            o.allow_file_create = v.as_bool();
            Ok(())
        }),
    opt("allow_mounted_write", Kind::Bool, Category::Files, Support::Implemented, "Let a job that writes or trims use a block device that is mounted (or whose partition, or a device built on it, is); without it the run stops before any job starts with fio's `appears mounted` line, exit code 1.")
        .def("0")
        .apply(|o, v| {
            o.placement.allow_mounted_write = v.as_bool();
            Ok(())
        }),
    opt("pre_read", Kind::Bool, Category::Files, Support::Implemented, "Read the job's range of each file (in `bs` reads) before the job, to have it in the page cache; `invalidate` is then off.")
        .def("0")
        .apply(|o, v| {
            o.pre_read = v.as_bool();
            Ok(())
        }),
    opt("cpumask", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Process, Support::Implemented, "CPUs of the job's thread as a bit mask (bit N is CPU N, bits 0 to 31), set with sched_setaffinity as the job starts; a CPU the machine does not have is refused (`CPU N too large`).")
        .apply(|o, v| {
            o.placement.cpus_spec = Some(placement::CpusSpec::Mask(v.as_int()));
            Ok(())
        }),
    opt("cpus_allowed", Kind::Special("CPU list, e.g. 0-3,6"), Category::Process, Support::Implemented, "CPUs the job's thread may run on (sched_setaffinity as the job starts), read as fio reads the list; a CPU the machine does not have is refused (`CPU N too large`), an empty set fails the job (`cpu_set_affinity`).")
        .apply(|o, v| {
            o.placement.cpus_spec = Some(placement::CpusSpec::List(v.as_text().to_string()));
            Ok(())
        }),
    opt("cpus_allowed_policy", Kind::Choice { choices: &[Choice { name: "shared", canon: "shared", help: "every clone may run on every CPU of the mask" }, Choice { name: "split", canon: "split", help: "each job runs on one CPU of the mask: its place in the run modulo the mask's size" }], postfix: false }, Category::Process, Support::Implemented, "`shared`: every clone may use all of the `cpus_allowed` CPUs; `split`: each job of the run gets one of them (its place in the run, counted from 0, modulo their number).")
        .parent("cpus_allowed")
        .prio(1)
        .apply(|o, v| {
            o.placement.cpus_split = v.as_text() == "split";
            Ok(())
        }),
    opt("numa_cpu_nodes", Kind::Special("NUMA node list, e.g. 0-1"), Category::Process, Support::Implemented, "Run the job's thread on these NUMA nodes' CPUs (sched_setaffinity, after and instead of `cpus_allowed`), the list read as libnuma reads it (`all`, `!`, `+`); a node this process cannot use is refused with libnuma's words.")
        .apply(|o, v| {
            o.placement.numa_cpu_nodes_spec = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("numa_mem_policy", Kind::Special("default, prefer:N, bind:N-M, interleave:N-M or local"), Category::Process, Support::Implemented, "Memory policy of the job's thread (set_mempolicy as the job starts): `default`, `prefer:N`, `bind:NODES`, `interleave[:NODES]`, `local`; fio's messages for a bad one, and a node this process cannot use is refused.")
        .apply(|o, v| {
            o.placement.numa_mem_policy_spec = Some(placement::parse_mem_policy(v.as_text())?);
            Ok(())
        }),
    opt("gpu_dev_id", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Buffers, Support::Refused, "GPU for `mem=cudamalloc` (CUDA builds of fio only).")
        .def("0"),
    opt("end_fsync", Kind::Bool, Category::Sync, Support::Implemented, "fsync each file when the job ends.")
        .def("0")
        .apply(|o, v| {
            o.end_fsync = v.as_bool();
            Ok(())
        }),
    opt("fsync_on_close", Kind::Bool, Category::Sync, Support::Implemented, "fsync each file when the job's I/O ends (as `end_fsync`: fio's close finds the file just synced).")
        .def("0")
        .apply(|o, v| {
            o.fsync_on_close = v.as_bool();
            Ok(())
        }),
    opt("unlink", Kind::Bool, Category::Files, Support::Implemented, "Delete the job's files when it ends.")
        .def("0")
        .apply(|o, v| {
            o.unlink = v.as_bool();
            Ok(())
        }),
    opt("unlink_each_loop", Kind::Bool, Category::Files, Support::Implemented, "Close and delete the job's regular files between its `loops`; the next loop opens them again (a writing job creates them anew, a reading one fails to open them, as in fio).")
        .def("0")
        .apply(|o, v| {
            o.unlink_each_loop = v.as_bool();
            Ok(())
        }),
    opt("exitall", Kind::Flag, Category::Jobs, Support::Implemented, "When any job ends, end the others of its group (or what its `exit_what` says); set for every job of the run, as in fio.")
        .apply(|o, v| {
            if !v.as_bool() {
                // fio 3.33's callback turns exitall on whatever the value.
                return Err("fio 3.33 turns exitall on whatever its value; leave the option out instead".to_string());
            }
            o.exitall = true;
            Ok(())
        }),
    opt("exit_what", Kind::Choice { choices: &[Choice { name: "group", canon: "group", help: "" }, Choice { name: "stonewall", canon: "stonewall", help: "" }, Choice { name: "all", canon: "all", help: "" }], postfix: false }, Category::Jobs, Support::Implemented, "What this job's end ends under `exitall` or `exitall_on_error`: `group` (its reporting group), `stonewall` (every running job; later stonewall groups still run), `all` (everything, including jobs not started).")
        .def("group")
        .apply(|o, v| {
            o.exit_what = v.as_text().to_string();
            Ok(())
        }),
    opt("exitall_on_error", Kind::Flag, Category::Jobs, Support::Implemented, "When this job ends in error, end the others as `exit_what` says.")
        .apply(|o, v| {
            o.exitall_on_error = v.as_bool();
            Ok(())
        }),
    opt("stonewall", Kind::Flag, Category::Jobs, Support::Implemented, "Wait for the jobs before this one and start a new reporting group.")
        .alias(&["wait_for_previous"])
        .apply(|o, v| {
            o.stonewall = v.as_bool();
            Ok(())
        }),
    opt("new_group", Kind::Flag, Category::Jobs, Support::Implemented, "Start a new reporting group without waiting.")
        .apply(|o, v| {
            o.new_group = v.as_bool();
            Ok(())
        }),
    opt("thread", Kind::Flag, Category::Jobs, Support::Implemented, "Run jobs as threads (zonekit always does).")
        .apply(|o, v| {
            o.thread = v.as_bool();
            Ok(())
        }),
    opt("per_job_logs", Kind::Bool, Category::Logs, Support::Implemented, "Put the job number in log file names.")
        .def("1")
        .apply(|o, v| {
            o.per_job_logs = v.as_bool();
            Ok(())
        }),
    opt("write_bw_log", Kind::OptText, Category::Logs, Support::Implemented, "Write a bandwidth log (`<prefix>_bw.<n>.log`; the prefix defaults to the job name).")
        .apply(|o, v| {
            o.write_bw_log = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("write_lat_log", Kind::OptText, Category::Logs, Support::Implemented, "Write latency logs (`_lat`, `_clat`, `_slat`).")
        .apply(|o, v| {
            o.write_lat_log = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("write_iops_log", Kind::OptText, Category::Logs, Support::Implemented, "Write an IOPS log.")
        .apply(|o, v| {
            o.write_iops_log = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("log_entries", Kind::Int { min: 1024, max: 1048576 }, Category::Logs, Support::Ignored, "Initial size of in-memory logs; zonekit grows them as needed.")
        .def("1024"),
    opt("log_avg_msec", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Logs, Support::Implemented, "Average log entries over this many ms (0: one entry per I/O).")
        .def("0")
        .apply(|o, v| {
            o.log_avg_msec = v.as_u32();
            Ok(())
        }),
    opt("log_hist_msec", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Logs, Support::Implemented, "Interval of histogram logs (0: none); has effect only with `write_hist_log`.")
        .def("0")
        .apply(|o, v| {
            o.log_hist_msec = v.as_u32();
            Ok(())
        }),
    opt("log_hist_coarseness", Kind::Int { min: 0, max: 10 }, Category::Logs, Support::Implemented, "Histogram log bins summed in groups of 2^N (fio reads past its table above 10); has effect only with `write_hist_log`.")
        .def("0")
        .apply(|o, v| {
            o.log_hist_coarseness = v.as_u32();
            Ok(())
        }),
    opt("write_hist_log", Kind::OptText, Category::Logs, Support::Implemented, "Write completion latency histogram logs (`<prefix>_clat_hist.<n>.log`, every `log_hist_msec`).")
        .apply(|o, v| {
            o.write_hist_log = Some(v.as_text().to_string());
            Ok(())
        }),
    opt("log_max_value", Kind::Bool, Category::Logs, Support::Implemented, "Log the window's largest value instead of its mean.")
        .def("0")
        .apply(|o, v| {
            o.log_max_value = v.as_bool();
            Ok(())
        }),
    opt("log_offset", Kind::Bool, Category::Logs, Support::Implemented, "Add the I/O offset to each log entry.")
        .def("0")
        .apply(|o, v| {
            o.log_offset = v.as_bool();
            Ok(())
        }),
    opt("log_prio", Kind::Bool, Category::Logs, Support::Implemented, "Print the I/O priority in hex in each log entry (else whether it is real-time): the job's (prioclass, prio) or the one cmdprio gave the I/O.")
        .def("0")
        .apply(|o, v| {
            o.log_prio = v.as_bool();
            Ok(())
        }),
    opt("log_compression", Kind::Int { min: 0, max: 536870912 }, Category::Logs, Support::Implemented, "Keep logs zlib-compressed in memory, in chunks of this many bytes of samples.")
        .apply(|o, v| {
            o.log_compression = u64::from(v.as_u32());
            Ok(())
        }),
    opt("log_compression_cpus", Kind::Special("CPU list, e.g. 0-3,6"), Category::Logs, Support::Ignored, "CPUs of fio's log compression thread; zonekit compresses a job's logs in the job's own thread, so there is no thread to pin. The list is checked as fio checks it (`CPU N too large`).")
        .parent("log_compression")
        .apply(|o, v| {
            o.placement.other_cpu_lists.push(("log_compression_cpus", v.as_text().to_string()));
            Ok(())
        }),
    opt("log_store_compressed", Kind::Bool, Category::Logs, Support::Implemented, "Write logs compressed (`.log.fz`, fio's format; `zonekit bench --inflate-log` reads them).")
        .apply(|o, v| {
            o.log_store_compressed = v.as_bool();
            Ok(())
        }),
    opt("log_unix_epoch", Kind::Bool, Category::Logs, Support::Implemented, "Log time stamps since the Unix epoch (ms; in simulated time, the run's start plus simulated time).")
        .apply(|o, v| {
            o.log_unix_epoch = v.as_bool();
            Ok(())
        }),
    opt("log_alternate_epoch", Kind::Bool, Category::Logs, Support::Implemented, "Log time stamps on the clock `log_alternate_epoch_clock_id` (ms).")
        .apply(|o, v| {
            o.log_alternate_epoch = v.as_bool();
            Ok(())
        }),
    opt("log_alternate_epoch_clock_id", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Logs, Support::Implemented, "The `clock_gettime` clock of `log_unix_epoch` and `log_alternate_epoch` (0: real time).")
        .apply(|o, v| {
            o.log_alternate_epoch_clock_id = v.as_u32();
            Ok(())
        }),
    opt("block_error_percentiles", Kind::Bool, Category::Stats, Support::Implemented, "Keep the state of every trim-sized block (`bs` of trims) of the job's one file — trimmed how many times, or failed: a write that fails while verification logs writes — and report fio's `block lifetime percentiles` (the trims it took, over the blocks ever trimmed) and the count of blocks per state.")
        .def("0")
        .apply(|o, v| {
            o.block_error_hist = v.as_bool();
            Ok(())
        }),
    opt("bwavgtime", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Stats, Support::Implemented, "Bandwidth sample window in ms.")
        .def("500")
        .parent("write_bw_log")
        .apply(|o, v| {
            o.bwavgtime = v.as_u32();
            Ok(())
        }),
    opt("iopsavgtime", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Stats, Support::Implemented, "IOPS sample window in ms.")
        .def("500")
        .parent("write_iops_log")
        .apply(|o, v| {
            o.iopsavgtime = v.as_u32();
            Ok(())
        }),
    opt("group_reporting", Kind::Flag, Category::Jobs, Support::Implemented, "Report each group as one.")
        .apply(|o, v| {
            o.group_reporting = v.as_bool();
            Ok(())
        }),
    opt("stats", Kind::Bool, Category::Stats, Support::Implemented, "Collect statistics; `0` leaves the job out of the report and its latency logs empty.")
        .def("1")
        .apply(|o, v| {
            o.stats = v.as_bool();
            Ok(())
        }),
    opt("zero_buffers", Kind::Flag, Category::Buffers, Support::Implemented, "Fill I/O buffers with zeros.")
        .apply(|o, v| {
            o.zero_buffers = v.as_bool();
            Ok(())
        }),
    opt("refill_buffers", Kind::Flag, Category::Buffers, Support::Implemented, "Refill the buffer with fresh data before every write.")
        .apply(|o, v| {
            o.refill_buffers = v.as_bool();
            Ok(())
        }),
    opt("scramble_buffers", Kind::Bool, Category::Buffers, Support::Implemented, "Lightly scramble the buffer before every write (when not refilled).")
        .def("1")
        .apply(|o, v| {
            o.scramble_buffers = v.as_bool();
            Ok(())
        }),
    opt("buffer_pattern", Kind::Text, Category::Buffers, Support::Implemented, "Fill write buffers with this pattern, repeated from each buffer's start: `0xHEX`, a decimal integer, `\"text\"`, `'file'`, one after the other (no `%o`); turns `scramble_buffers` and `zero_buffers` off, and `refill_buffers` on only for a job that reads or has `buffer_compress_percentage`, as fio does.")
        .apply(|o, v| {
            let p = crate::verify::Pattern::parse(v.as_text())?;
            if !p.offsets_at.is_empty() {
                return Err("formats such as %o are not allowed in buffer_pattern (fio takes them only in verify_pattern)".into());
            }
            o.buffer_pattern = Some(v.as_text().to_string());
            // fio's str_buffer_pattern_cb, with the options read so far.
            o.refill_buffers = o.buffer_compress_percentage > 0 || o.rw.reads();
            o.scramble_buffers = false;
            o.zero_buffers = false;
            Ok(())
        }),
    opt("buffer_compress_percentage", Kind::Int { min: 0, max: 100 }, Category::Buffers, Support::Implemented, "Make written data compressible by about this much: each chunk of `buffer_compress_chunk` bytes ends with this share of zeros (or `buffer_pattern`); 100 writes zeros. Turns `refill_buffers` on unless it is set.")
        .apply(|o, v| {
            o.buffer_compress_percentage = v.as_u32();
            Ok(())
        }),
    opt("buffer_compress_chunk", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Buffers, Support::Implemented, "Granularity of compressible data (at most the smallest write block size; 0: that size).")
        .def("512")
        .parent("buffer_compress_percentage")
        .apply(|o, v| {
            o.buffer_compress_chunk = v.as_u32();
            Ok(())
        }),
    opt("dedupe_percentage", Kind::Int { min: 0, max: 100 }, Category::Buffers, Support::Implemented, "Make this share of written blocks duplicates of others (whole buffers); turns `refill_buffers` on unless it is set.")
        .apply(|o, v| {
            o.dedupe_percentage = v.as_u32();
            Ok(())
        }),
    opt("dedupe_global", Kind::Bool, Category::Buffers, Support::Implemented, "With `dedupe_mode=working_set`, build each job's working set from every job's data in turn (the run's jobs share `size × dedupe_working_set_percentage` of pages evenly), so that jobs duplicate each other's blocks.")
        .def("0")
        .apply(|o, v| {
            o.dedupe_global = v.as_bool();
            Ok(())
        }),
    opt("dedupe_mode", Kind::Choice { choices: &[Choice { name: "repeat", canon: "repeat", help: "duplicate the last new block" }, Choice { name: "working_set", canon: "working_set", help: "duplicate one of the first blocks, a working set of dedupe_working_set_percentage of size" }], postfix: false }, Category::Buffers, Support::Implemented, "Which blocks duplicates copy; has effect only with `dedupe_percentage`.")
        .def("repeat")
        .parent("dedupe_percentage")
        .apply(|o, v| {
            o.dedupe_working_set = v.as_text() == "working_set";
            Ok(())
        }),
    opt("dedupe_working_set_percentage", Kind::Int { min: 0, max: 100 }, Category::Buffers, Support::Implemented, "Size of the working set of `dedupe_mode=working_set`, as a percentage of `size` (which must be set; one file per job).")
        .def("5")
        .parent("dedupe_percentage")
        .apply(|o, v| {
            o.dedupe_working_set_percentage = v.as_u32();
            Ok(())
        }),
    opt("clat_percentiles", Kind::Bool, Category::Stats, Support::Implemented, "Report completion latency percentiles.")
        .def("1")
        .apply(|o, v| {
            o.clat_percentiles = v.as_bool();
            Ok(())
        }),
    opt("lat_percentiles", Kind::Bool, Category::Stats, Support::Implemented, "Report total latency percentiles.")
        .def("0")
        .apply(|o, v| {
            o.lat_percentiles = v.as_bool();
            Ok(())
        }),
    opt("slat_percentiles", Kind::Bool, Category::Stats, Support::Implemented, "Report submission latency percentiles.")
        .def("0")
        .apply(|o, v| {
            o.slat_percentiles = v.as_bool();
            Ok(())
        }),
    opt("percentile_list", Kind::FloatList { max_len: 20, min: 0.0, max: 100.0 }, Category::Stats, Support::Implemented, "Percentiles to report, `:`-separated (at most 20, each 0–100).")
        .def("1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99")
        .apply(|o, v| {
            if let Value::Floats(f, p) = v { o.percentile_list = f.clone(); o.percentile_precision = *p; }
            Ok(())
        }),
    opt("significant_figures", Kind::Int { min: 1, max: 10 }, Category::Stats, Support::Implemented, "Significant figures of normal output.")
        .def("4")
        .apply(|o, v| {
            o.significant_figures = v.as_u32();
            Ok(())
        }),
    opt("disk_util", Kind::Bool, Category::Stats, Support::Implemented, "Report disk utilisation statistics.")
        .def("1")
        .apply(|o, v| {
            o.disk_util = v.as_bool();
            Ok(())
        }),
    opt("gtod_reduce", Kind::Bool, Category::Stats, Support::Implemented, "`1` sets `disable_lat`, `disable_clat`, `disable_slat`, `disable_bw_measurement` and turns the latency percentiles off (options after it can turn one on again): the report keeps bandwidth and IOPS only.")
        .def("0")
        .apply(|o, v| {
            o.gtod_reduce = v.as_bool();
            // fio's str_gtod_reduce_cb: `1` turns every measurement below off (options after it
            // may turn one on again); `0` changes nothing.
            if o.gtod_reduce {
                o.disable_lat = true;
                o.disable_clat = true;
                o.disable_slat = true;
                o.disable_bw_measurement = true;
                o.clat_percentiles = false;
                o.lat_percentiles = false;
                o.slat_percentiles = false;
            }
            Ok(())
        }),
    opt("disable_lat", Kind::Bool, Category::Stats, Support::Implemented, "Leave total latency out (`lat`, its percentiles and log).")
        .def("0")
        .parent("gtod_reduce")
        .apply(|o, v| {
            o.disable_lat = v.as_bool();
            Ok(())
        }),
    opt("disable_clat", Kind::Bool, Category::Stats, Support::Implemented, "Leave completion latency out (`clat`, its percentiles and log, the `lat (usec)` buckets, sync latencies).")
        .def("0")
        .parent("gtod_reduce")
        .apply(|o, v| {
            o.disable_clat = v.as_bool();
            Ok(())
        }),
    opt("disable_slat", Kind::Bool, Category::Stats, Support::Implemented, "Leave submission latency out (`slat`, its percentiles and log).")
        .def("0")
        .parent("gtod_reduce")
        .apply(|o, v| {
            o.disable_slat = v.as_bool();
            Ok(())
        }),
    opt("disable_bw_measurement", Kind::Bool, Category::Stats, Support::Implemented, "Take no per-I/O bandwidth samples (a `write_bw_log` without `log_avg_msec` stays empty); the periodic samples of the `bw` line are taken all the same, as in fio 3.33. With `disable_clat` and `disable_slat` too, no per-I/O IOPS samples either.")
        .alias(&["disable_bw"])
        .def("0")
        .parent("gtod_reduce")
        .apply(|o, v| {
            o.disable_bw_measurement = v.as_bool();
            Ok(())
        }),
    opt("gtod_cpu", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Stats, Support::Implemented, "Keep the jobs' threads off this CPU (unless it is 0) when they have a `cpumask`/`cpus_allowed`, as fio does for its clock thread; that thread itself (fio 3.33's spins on the CPU updating a time nothing reads) is not started.")
        .apply(|o, v| {
            o.placement.gtod_cpu = Some(v.as_u32());
            Ok(())
        }),
    opt("unified_rw_reporting", Kind::Choice { choices: &[Choice { name: "none", canon: "none", help: "report directions separately" }, Choice { name: "mixed", canon: "mixed", help: "report them together" }, Choice { name: "both", canon: "both", help: "report both ways" }, Choice { name: "0", canon: "none", help: "same as none" }, Choice { name: "1", canon: "mixed", help: "same as mixed" }, Choice { name: "2", canon: "both", help: "same as both" }], postfix: false }, Category::Stats, Support::Implemented, "Report reads, writes and trims as one direction named `mixed` (`mixed`), or apart and then as one (`both`), in every output format.")
        .def("none")
        .apply(|o, v| {
            o.unified_rw_reporting = v.as_text().to_string();
            Ok(())
        }),
    opt("continue_on_error", Kind::Choice { choices: &[Choice { name: "none", canon: "none", help: "stop at the first error" }, Choice { name: "read", canon: "read", help: "continue past read errors" }, Choice { name: "write", canon: "write", help: "continue past write errors" }, Choice { name: "io", canon: "io", help: "continue past read and write errors" }, Choice { name: "verify", canon: "verify", help: "continue past verify errors" }, Choice { name: "all", canon: "all", help: "continue past every error" }, Choice { name: "0", canon: "none", help: "same as none" }, Choice { name: "1", canon: "all", help: "same as all" }], postfix: false }, Category::Engine, Support::Implemented, "Carry on past I/O errors of these kinds: `none`, `read`, `write`, `io`, `verify`, `all`.")
        .def("none")
        .apply(|o, v| {
            o.continue_on_error = super::special::continue_on_error(v.as_text());
            Ok(())
        }),
    opt("ignore_error", Kind::Special("read,write,verify lists of error names or numbers separated by :"), Category::Engine, Support::Implemented, "Errors to carry past, per kind (`read,write,verify` lists of names `EPERM`…`ERANGE` or numbers, `:`-separated); a non-empty list turns `continue_on_error` on for its kind and replaces the default list (EIO, EILSEQ). Trims and syncs count as writes.")
        .parent("rw")
        .apply(special::ignore_error),
    opt("error_dump", Kind::Bool, Category::Engine, Support::Implemented, "Print the `io_u error` line of every I/O error, those carried past too.")
        .def("0")
        .apply(|o, v| {
            o.error_dump = v.as_bool();
            Ok(())
        }),
    opt("profile", Kind::Choice { choices: &[Choice { name: "tiobench", canon: "tiobench", help: "tiotest/tiobench's sequential and random writes, then reads, on four files" }, Choice { name: "act", canon: "act", help: "the Aerospike Certification Tool's rated random reads and writes on each device, or its prep phase" }], postfix: false }, Category::Misc, Support::Implemented, "Run a built-in profile's jobs after the others (as `--profile=NAME`; fio 3.33 stores this option and does nothing with it); its options are read wherever the run gives them (`--profile=NAME --cmdhelp` lists them)."),
    opt("cgroup", Kind::Text, Category::Process, Support::Refused, "Run the job in this cgroup."),
    opt("cgroup_nodelete", Kind::Bool, Category::Process, Support::Ignored, "Keep the cgroup afterwards; has effect only with `cgroup`.")
        .def("0")
        .parent("cgroup"),
    opt("cgroup_weight", Kind::Int { min: 100, max: 1000 }, Category::Process, Support::Ignored, "cgroup I/O weight; has effect only with `cgroup`.")
        .parent("cgroup"),
    opt("uid", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Process, Support::Refused, "Run the job as this user."),
    opt("gid", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Process, Support::Refused, "Run the job as this group."),
    opt("kb_base", Kind::Choice { choices: &[Choice { name: "1024", canon: "1024", help: "binary prefixes by default; input k/m/g are powers of 1024 and ki/kib… are inverted" }, Choice { name: "1000", canon: "1000", help: "decimal prefixes; k is 1000, kib is 1024" }], postfix: false }, Category::Misc, Support::Implemented, "Meaning of size prefixes: 1024 (`k` is 1024, `kib` 1000, fio's inversion) or 1000 (`k` is 1000, `kib` 1024).")
        .def("1024")
        .prio(1)
        .apply(|o, v| {
            o.kb_base = if v.as_text() == "1000" { 1000 } else { 1024 };
            Ok(())
        }),
    opt("unit_base", Kind::Choice { choices: &[Choice { name: "0", canon: "0", help: "pick bytes or bits from the engine" }, Choice { name: "8", canon: "8", help: "bytes" }, Choice { name: "1", canon: "1", help: "bits" }], postfix: false }, Category::Stats, Support::Implemented, "Report bandwidth in bytes (8), bits (1) or pick (0).")
        .prio(1)
        .apply(|o, v| {
            o.unit_base = v.as_text().parse().unwrap_or(0);
            Ok(())
        }),
    opt("hugepage-size", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Buffers, Support::Implemented, "Huge page size for `mem=shmhuge`/`mmaphuge`: the buffer area is rounded up to a multiple of it.")
        .def("2097152")
        .apply(|o, v| {
            o.hugepage_size = v.as_int().max(0) as u64;
            Ok(())
        }),
    opt("flow_id", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Rate, Support::Implemented, "Flow group of `flow`; has effect only with `flow`.")
        .def("0")
        .apply(|o, v| {
            o.pacing.flow_id = v.as_u32();
            Ok(())
        }),
    opt("flow", Kind::Int { min: 0, max: 1000 }, Category::Rate, Support::Implemented, "Weight of the job in flow control between jobs.")
        .def("0")
        .parent("flow_id")
        .apply(|o, v| {
            o.pacing.flow = v.as_u32();
            Ok(())
        }),
    opt("flow_watermark", Kind::Deprecated, Category::Rate, Support::Ignored, "Deprecated in fio; no effect."),
    opt("flow_sleep", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Rate, Support::Implemented, "Sleep after being held back by flow control; has effect only with `flow`.")
        .def("0")
        .parent("flow_id")
        .apply(|o, v| {
            o.pacing.flow_sleep_us = v.as_u32().into();
            Ok(())
        }),
    opt("steadystate", Kind::Choice { choices: &[Choice { name: "iops", canon: "iops", help: "" }, Choice { name: "iops_slope", canon: "iops_slope", help: "" }, Choice { name: "bw", canon: "bw", help: "" }, Choice { name: "bw_slope", canon: "bw_slope", help: "" }], postfix: true }, Category::Time, Support::Implemented, "Steady-state criterion and limit: `iops` or `bw` (largest deviation from the mean), `iops_slope` or `bw_slope` (slope of the least-squares line), then `:limit` in IOPS, bytes/s (size suffixes) or `N%` of the mean; has effect only with `steadystate_duration`.")
        .alias(&["ss"])
        .def("iops_slope:0.01%")
        .apply(special::steadystate),
    opt("steadystate_duration", Kind::Time { seconds: true }, Category::Time, Support::Implemented, "Stop once the job has been steady over this window of one-second samples (whole seconds).")
        .alias(&["ss_dur"])
        .def("0")
        .parent("steadystate")
        .apply(|o, v| {
            let t = v.as_time();
            if t.subsec_nanos() != 0 {
                return Err("fio 3.33 counts whole seconds here and drops the rest; give whole seconds".to_string());
            }
            o.steadystate.dur_sec = u32::try_from(t.as_secs()).map_err(|_| "too long".to_string())?;
            Ok(())
        }),
    opt("steadystate_ramp_time", Kind::Time { seconds: true }, Category::Time, Support::Implemented, "Collect no steady-state data until this long (plus one second) into the job; has effect only with `steadystate_duration`.")
        .alias(&["ss_ramp"])
        .def("0")
        .parent("steadystate")
        .apply(|o, v| {
            o.steadystate.ramp = v.as_time();
            Ok(())
        }),
    // fio registers the options of its built-in profiles (tiobench, act) with the job options,
    // so job files may carry them; the profile (crate::profile) reads them wherever the run
    // gives them, and they change nothing in the job that carries them.
    opt("block", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Misc, Support::Implemented, "tiobench profile: block size in bytes of its jobs (`bs`); no effect on the job that carries it.")
        .def("4096"),
    opt("numruns", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Misc, Support::Implemented, "tiobench profile: runs of each of its jobs (`loops`, default 1); no effect on the job that carries it."),
    opt("dir", Kind::Text, Category::Misc, Support::Implemented, "tiobench profile: directory of its four files (default `./`); no effect on the job that carries it."),
    opt("threads", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Misc, Support::Implemented, "tiobench profile: threads of each of its jobs (`numjobs`, default 1); no effect on the job that carries it (the job option is `thread`)."),
    opt("device-names", Kind::Text, Category::Misc, Support::Implemented, "act profile: the devices or files it runs on, comma-separated (required); no effect on the job that carries it."),
    opt("load", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Misc, Support::Implemented, "act profile: load multiplier: 2000 reads and 1000 reads' worth of writes per second per device at 1; no effect on the job that carries it.")
        .def("1"),
    opt("test-duration", Kind::Time { seconds: true }, Category::Misc, Support::Implemented, "act profile: how long its jobs run (a bare number is seconds; default 24h), in hourly slices judged against ACT's criteria; no effect on the job that carries it.")
        .def("24h"),
    opt("threads-per-queue", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Misc, Support::Implemented, "act profile: read threads per device, sharing its read rate; no effect on the job that carries it.")
        .def("8"),
    opt("read-req-num-512-blocks", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Misc, Support::Implemented, "act profile: size of each read in 512-byte blocks; no effect on the job that carries it.")
        .def("3"),
    opt("large-block-op-kbytes", Kind::Int { min: 0, max: u32::MAX as i64 }, Category::Misc, Support::Implemented, "act profile: size of each write, in bytes as fio uses it (fio's help says KiB); no effect on the job that carries it.")
        .def("131072"),
    opt("prep", Kind::Flag, Category::Misc, Support::Implemented, "act profile: run ACT's prep phase instead (zero the devices in 1 MiB writes, then salt them with random 4 KiB writes); no effect on the job that carries it."),
];
