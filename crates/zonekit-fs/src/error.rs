//! The errors of zonekit-fs: each carries the errno the kernel's zonefs returns for it.

use crate::superblock::SuperblockError;
use zonekit_blk::BlkError;
use zonekit_core::Errno;

/// A zonefs call that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// Zone 0 holds no superblock the kernel would mount (`EINVAL`, as `mount` fails).
    #[error("{0}")]
    Superblock(#[from] SuperblockError),
    /// A file-system rule refused the call, with the kernel's errno (`EPERM` for a truncate to a
    /// size other than 0 or the capacity, `EINVAL` for a write not at the write pointer, …).
    #[error("{message}")]
    Refused {
        /// The errno the system call returns.
        errno: Errno,
        /// What was refused and why.
        message: String,
    },
    /// The device failed while doing `context`.
    #[error("{context}: {}", source.message)]
    Device {
        /// What was being done.
        context: String,
        /// The block layer's error (its errno is the call's).
        source: BlkError,
    },
    /// The device cannot hold a zonefs volume (no data kept, a zone layout zonefs refuses,
    /// already holding data without `--force`). `errno` says which.
    #[error("{message}")]
    Unsuitable {
        /// The errno.
        errno: Errno,
        /// Why.
        message: String,
    },
}

impl FsError {
    /// The errno a system call returns for this error.
    pub fn errno(&self) -> Errno {
        match self {
            FsError::Superblock(_) => Errno::EINVAL,
            FsError::Refused { errno, .. } | FsError::Unsuitable { errno, .. } => *errno,
            FsError::Device { source, .. } => source.errno,
        }
    }

    /// A rule's refusal with `errno`.
    pub fn refused(errno: Errno, message: impl Into<String>) -> FsError {
        FsError::Refused { errno, message: message.into() }
    }

    /// A device error while doing `context`.
    pub fn device(context: impl Into<String>, source: BlkError) -> FsError {
        FsError::Device { context: context.into(), source }
    }
}

/// Result of zonekit-fs calls.
pub type FsResult<T> = Result<T, FsError>;
