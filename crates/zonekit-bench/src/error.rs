//! The errors of `zonekit bench`: one enum, one line each. `Display` gives `<what>: <why>`; the
//! command prefixes `zonekit: ` and exits with [`BenchError::exit_code`] (docs/architecture.md: 2
//! for bad input, 1 for an operation that ran and failed).

use std::fmt;
use std::path::{Path, PathBuf};

/// Where a piece of input came from, for messages: a job file and line, or the command line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A line of a job file (or of a file it includes).
    File {
        /// The file, as named on the command line or in the `include`.
        path: PathBuf,
        /// 1-based line number.
        line: u32,
    },
    /// The command line, inside the job named `job` (None: before any `--name`, global options).
    CommandLine {
        /// The job the option belongs to.
        job: Option<String>,
    },
}

impl Origin {
    /// A file location.
    pub fn file(path: &Path, line: u32) -> Origin {
        Origin::File { path: path.to_path_buf(), line }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line } => write!(f, "{}:{line}", path.display()),
            Origin::CommandLine { job: Some(j) } => write!(f, "job {}", one_line(j)),
            Origin::CommandLine { job: None } => f.write_str("command line"),
        }
    }
}

/// Makes user text safe for a one-line message: control characters (newlines included) are
/// shown escaped.
pub fn one_line(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect()
}

/// Everything that can go wrong in `zonekit bench`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// The command line is wrong: an unknown or ambiguous option, a missing argument, a bad
    /// run-level value, no jobs.
    #[error("{0}")]
    Usage(String),
    /// A job file could not be read.
    #[error("{path}: {why}")]
    JobFile {
        /// The file.
        path: String,
        /// Why (the OS error, or "is a directory", …).
        why: String,
    },
    /// A job file is malformed: an option outside a section, a bad section header, a section in
    /// an included file, an include loop.
    #[error("{at}: {why}")]
    Syntax {
        /// Where.
        at: Origin,
        /// What is wrong.
        why: String,
    },
    /// An option zonekit does not know (neither fio 3.33's nor the job engine's).
    #[error("{at}: {option}: {why}")]
    UnknownOption {
        /// Where it was given.
        at: Origin,
        /// The option as written.
        option: String,
        /// "unknown option", with a suggestion or the engine it would need.
        why: String,
    },
    /// An option value that does not parse or is out of range (also where fio only warns).
    #[error("{at}: {option}={value}: {why}")]
    BadValue {
        /// Where it was given.
        at: Origin,
        /// The option as written.
        option: String,
        /// The value as written (after `${VAR}` and keyword substitution).
        value: String,
        /// What is wrong with it.
        why: String,
    },
    /// Options of a job that do not go together (fio's `fixup_options` checks).
    #[error("{at}: {why}")]
    Conflict {
        /// The job (file and line of the option that triggers it, or the job name).
        at: Origin,
        /// What is wrong.
        why: String,
    },
    /// `${VAR}` names an environment variable that is not set.
    #[error("{at}: ${{{var}}}: environment variable is not set")]
    UnsetVariable {
        /// Where it was used.
        at: Origin,
        /// The variable.
        var: String,
    },
    /// A job asks for something zonekit does not run (an engine or option it recognises but
    /// does not implement); reported when the job would run, not under `--parse-only`.
    #[error("{at}: {what}: {why}")]
    Unsupported {
        /// Where it was given.
        at: Origin,
        /// `option=value` or `ioengine=name`.
        what: String,
        /// Why it is refused.
        why: String,
    },
    /// An operation ran and failed (a file that cannot be created, an I/O error); the message
    /// ends with the errno name in parentheses.
    #[error("{0}")]
    Failed(String),
    /// A job fio 3.33 refuses to run, in fio's own words (the zone-mode conflicts of fio's
    /// `fixup_options`, which scripts such as fio's `t/zbd` grep): exit code 1, as fio's.
    #[error("{0}")]
    Refused(String),
}

impl BenchError {
    /// Process exit code (docs/architecture.md, "Errors and exit codes"): 1 for
    /// [`BenchError::Failed`] and for what fio refuses with its own exit code
    /// ([`BenchError::Refused`]), 2 for bad input.
    pub fn exit_code(&self) -> i32 {
        match self {
            BenchError::Failed(_) | BenchError::Refused(_) => 1,
            _ => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line() {
        let e = BenchError::BadValue {
            at: Origin::file(Path::new("a.fio"), 3),
            option: "bs".into(),
            value: "0".into(),
            why: "must be at least 1".into(),
        };
        assert_eq!(e.to_string(), "a.fio:3: bs=0: must be at least 1");
        assert_eq!(e.exit_code(), 2);
        let e = BenchError::UnsetVariable { at: Origin::CommandLine { job: Some("x".into()) }, var: "BS".into() };
        assert_eq!(e.to_string(), "job x: ${BS}: environment variable is not set");
        assert_eq!(one_line("a\nb"), "a\\nb");
        assert_eq!(BenchError::Failed("x".into()).exit_code(), 1);
        assert_eq!(BenchError::Refused("x".into()).exit_code(), 1);
    }
}
