//! The OS boundary of the block layer: every `unsafe` block of `zonekit-blk` lives below this module,
//! each with a `// SAFETY:` note, behind safe types and functions.
//!
//! - [`buf`]: page-aligned, zeroed buffers (`std::alloc`), and the per-slot buffers of an engine.
//! - [`io`]: one thin wrapper per system call that std does not offer (vectored positional I/O,
//!   `fallocate`, `posix_fadvise`, block-device ioctls), named after the call it makes, over
//!   `rustix`.
//! - [`ext4`]: ext4's `EXT4_IOC_MOVE_EXT` (the `e4defrag` engine), which no crate defines.
//! - [`net`]: socket options rustix does not wrap (`TCP_MAXSEG`).
//! - [`uring`]: an io_uring queue that owns its slot buffers, so that a buffer the kernel may still
//!   touch is never handed out or freed.
//! - [`aio`]: the same for Linux native AIO (`io_setup` / `io_submit` / `io_getevents`), called
//!   directly, without libaio.
//! - [`paio`]: POSIX AIO from the C library (`aio_read`, `aio_write`, `aio_fsync`), with the same
//!   ownership of control blocks and buffers.
//! - [`mmap`]: memory maps of a file, copied to and from through raw pointers.
//! - [`pipe`]: a pipe, `splice` and `vmsplice`.
//! - [`slots`]: the slot rules both queues keep (a busy slot's buffer is never lent out).
//! - [`tsc`]: the CPU time-stamp counter, for the clock.
#![allow(unsafe_code)]

pub mod aio;
pub mod buf;
pub mod ext4;
pub mod io;
pub mod mmap;
pub mod net;
pub mod paio;
pub mod pipe;
pub mod slots;
pub mod tsc;
pub mod uring;

/// `-errno` of an OS error (`-EIO` when the error carries no errno).
pub(crate) fn neg_errno(e: &std::io::Error) -> i32 {
    -e.raw_os_error().unwrap_or(libc::EIO)
}
