//! Linux errno values that zoned devices return, with their names and `strerror` texts.
//!
//! The core crate does no I/O, so it carries its own small table instead of depending on `libc`;
//! values are Linux's (x86-64 and the generic ABI agree on all of these).

use std::fmt;

/// A Linux errno value (positive), as userspace sees it from a failed system call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Errno(pub i32);

macro_rules! errnos {
    ($($name:ident = $val:expr, $text:expr;)*) => {
        impl Errno {
            $(
                #[doc = concat!("`", stringify!($name), "`: ", $text, ".")]
                pub const $name: Errno = Errno($val);
            )*

            /// The symbolic name (`"EIO"`), or `None` for a value outside this table.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($val => Some(stringify!($name)),)*
                    _ => None,
                }
            }

            /// The glibc `strerror` text (`"Input/output error"`), or `None` outside this table.
            pub fn description(self) -> Option<&'static str> {
                match self.0 {
                    $($val => Some($text),)*
                    _ => None,
                }
            }

            /// Look an errno up by its symbolic name (`"EIO"`).
            pub fn from_name(name: &str) -> Option<Errno> {
                match name {
                    $(stringify!($name) => Some(Errno($val)),)*
                    _ => None,
                }
            }
        }
    };
}

errnos! {
    EPERM = 1, "Operation not permitted";
    ENOENT = 2, "No such file or directory";
    EIO = 5, "Input/output error";
    ENXIO = 6, "No such device or address";
    EBADF = 9, "Bad file descriptor";
    EAGAIN = 11, "Resource temporarily unavailable";
    ENOMEM = 12, "Cannot allocate memory";
    EACCES = 13, "Permission denied";
    EBUSY = 16, "Device or resource busy";
    EEXIST = 17, "File exists";
    ENODEV = 19, "No such device";
    ENOTDIR = 20, "Not a directory";
    EISDIR = 21, "Is a directory";
    EINVAL = 22, "Invalid argument";
    ENFILE = 23, "Too many open files in system";
    EMFILE = 24, "Too many open files";
    ENOTTY = 25, "Inappropriate ioctl for device";
    EFBIG = 27, "File too large";
    ENOSPC = 28, "No space left on device";
    EROFS = 30, "Read-only file system";
    ENAMETOOLONG = 36, "File name too long";
    ENOTEMPTY = 39, "Directory not empty";
    ELOOP = 40, "Too many levels of symbolic links";
    EOVERFLOW = 75, "Value too large for defined data type";
    EILSEQ = 84, "Invalid or incomplete multibyte or wide character";
    EOPNOTSUPP = 95, "Operation not supported";
    ETOOMANYREFS = 109, "Too many references: cannot splice";
    ETIMEDOUT = 110, "Connection timed out";
    EREMOTEIO = 121, "Remote I/O error";
    EDQUOT = 122, "Disk quota exceeded";
}

impl Errno {
    /// The errno an I/O error carries, `EIO` for one made in-process without an errno.
    pub fn of_io(e: &std::io::Error) -> Errno {
        Errno(e.raw_os_error().unwrap_or(Errno::EIO.0))
    }
}

/// An I/O error in `strerror`'s words (`No such file or directory`), without the `(os error N)`
/// that Rust's own text appends: what every zonekit message says after `<what>: `.
pub fn io_text(e: &std::io::Error) -> String {
    match e.raw_os_error().and_then(|n| Errno(n).description()) {
        Some(text) => text.to_string(),
        None => {
            let text = e.to_string();
            text.find(" (os error ").map_or(text.clone(), |i| text[..i].to_string())
        }
    }
}

impl fmt::Display for Errno {
    /// `Input/output error (EIO)`, or `errno 200` for a value outside the table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.description(), self.name()) {
            (Some(d), Some(n)) => write!(f, "{d} ({n})"),
            _ => write!(f, "errno {}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for e in [Errno::EIO, Errno::EINVAL, Errno::EREMOTEIO, Errno::ETOOMANYREFS, Errno::EOVERFLOW] {
            assert_eq!(Errno::from_name(e.name().unwrap()), Some(e));
        }
        assert_eq!(Errno::EREMOTEIO.0, 121);
        assert_eq!(Errno::ETOOMANYREFS.0, 109);
        assert_eq!(Errno::EOVERFLOW.0, 75);
        assert_eq!(Errno::EIO.to_string(), "Input/output error (EIO)");
        assert_eq!(Errno(4242).to_string(), "errno 4242");
        // What a directory refused for a device holds (`dev create` on a non-empty one).
        assert_eq!(Errno(39).name(), Some("ENOTEMPTY"));
    }

    #[test]
    fn io_errors_in_strerror_words() {
        let enoent = std::io::Error::from_raw_os_error(2);
        assert_eq!(io_text(&enoent), "No such file or directory");
        assert_eq!(Errno::of_io(&enoent), Errno::ENOENT);
        // Outside the table: the system's text, without Rust's suffix.
        let odd = std::io::Error::from_raw_os_error(200);
        assert!(!io_text(&odd).contains("os error"), "{}", io_text(&odd));
        // Made in-process: its own words, and EIO.
        let own = std::io::Error::other("bad thing");
        assert_eq!(io_text(&own), "bad thing");
        assert_eq!(Errno::of_io(&own), Errno::EIO);
    }
}
