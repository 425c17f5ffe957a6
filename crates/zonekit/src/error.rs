//! What the user sees when something goes wrong: one line, `zonekit: <what>: <why>`, and the exit
//! code of docs/architecture.md (2 for bad input, 1 for an operation that ran and failed).

use std::fmt;
use zonekit_blk::BlkError;
use zonekit_core::DeviceError;
use zonekit_dev::OpenError;

/// A command's failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliError {
    /// Bad command line, bad value, bad device spec, unaligned or out-of-range management range.
    Usage(String),
    /// The operation ran and failed; the message ends with the errno name in parentheses.
    Failed(String),
    /// A subcommand that printed its own messages ended with this exit code.
    Exit(i32),
}

impl CliError {
    /// Process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failed(_) => 1,
            CliError::Exit(c) => *c,
        }
    }

    /// A device error while doing `what`: `<what>: <why> (<ERRNO>)`.
    pub fn device(what: impl fmt::Display, e: &DeviceError) -> CliError {
        let errno = e.errno();
        let name = errno.name().unwrap_or("errno");
        let why = match e {
            DeviceError::Zone { error, .. } => error.to_string(),
            DeviceError::Io { context, .. } => {
                format!("{context}: {}", errno.description().unwrap_or("I/O error"))
            }
            other => other.to_string(),
        };
        CliError::Failed(format!("{what}: {why} ({name})"))
    }

    /// A block-device call that failed while doing `what`: `<what>: <why> (<ERRNO>)`.
    pub fn blk(what: impl fmt::Display, e: &BlkError) -> CliError {
        CliError::Failed(format!("{what}: {} ({})", e.message, e.errno.name().unwrap_or("errno")))
    }

    /// A spec that could not be opened.
    pub fn open(e: OpenError) -> CliError {
        match e {
            OpenError::Device(d) if !matches!(d, DeviceError::Unsupported(_)) => {
                let errno = d.errno();
                CliError::Failed(format!("{d} ({})", errno.name().unwrap_or("EIO")))
            }
            other => CliError::Usage(other.to_string()),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Failed(m) => write!(f, "zonekit: {m}"),
            CliError::Exit(c) => write!(f, "zonekit: exit code {c}"),
        }
    }
}

impl std::error::Error for CliError {}

/// Result of a command.
pub type CliResult<T = ()> = Result<T, CliError>;

/// Output errors: a closed pipe (`| head`) ends the command quietly; anything else fails it.
pub fn output(r: std::io::Result<()>) -> CliResult {
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(CliError::Failed(String::new())),
        Err(e) => Err(CliError::Failed(format!("writing output: {e}"))),
    }
}
