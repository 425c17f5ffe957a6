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
        CliError::Failed(format!("{what}: {} ({})", e.message(), e.errno_tag()))
    }

    /// A block-device call that failed while doing `what`: `<what>: <why> (<ERRNO>)`.
    pub fn blk(what: impl fmt::Display, e: &BlkError) -> CliError {
        let what = what.to_string();
        // The device names itself in its messages; `what` already starts with its spec (specs
        // hold no ':').
        let spec = what.split(':').next().unwrap_or_default();
        let why = e.message.strip_prefix(spec).and_then(|m| m.strip_prefix(": ")).unwrap_or(&e.message);
        CliError::Failed(format!("{what}: {why} ({})", errno_tag(e.errno)))
    }

    /// A file-system call that failed while doing `what`: `<what>: <strerror text> (<ERRNO>)`.
    pub fn io(what: impl Into<String>, e: std::io::Error) -> CliError {
        let e = DeviceError::io(what, e);
        CliError::Failed(format!("{} ({})", e.message(), e.errno_tag()))
    }

    /// A spec that could not be opened: a bad spec is bad input (exit 2), a device that failed
    /// to open (an OS error, corrupt metadata) a failure with its errno (exit 1).
    pub fn open(e: OpenError) -> CliError {
        match e {
            OpenError::Device(d) if !matches!(d, DeviceError::Unsupported(_)) => {
                CliError::Failed(format!("{} ({})", d.message(), d.errno_tag()))
            }
            other => CliError::Usage(other.to_string()),
        }
    }
}

/// The tag that ends a failure's line: the errno's name (`EIO`), or `errno N` outside the table.
fn errno_tag(errno: zonekit_core::Errno) -> String {
    errno.name().map_or_else(|| format!("errno {}", errno.0), str::to_string)
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

/// What a failed output's message starts with (`writing standard output: <why> (<ERRNO>)`).
pub const WRITING_STDOUT: &str = "writing standard output";

/// Output errors: a closed pipe (`| head`) ends the command quietly; anything else fails it.
pub fn output(r: std::io::Result<()>) -> CliResult {
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(CliError::Failed(String::new())),
        Err(e) => Err(CliError::io(WRITING_STDOUT, e)),
    }
}
