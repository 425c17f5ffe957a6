//! ext4's online defragmentation ioctl, `EXT4_IOC_MOVE_EXT` (`fs/ext4/ext4.h`, `struct
//! move_extent`): the kernel swaps the blocks of a range of one file with those of another file of
//! the same ext4 file system (the donor), as `e4defrag(8)` does.
//!
//! Neither `linux-raw-sys` nor `rustix` has this request, so its number is composed with rustix's
//! `_IOWR` encoder, which knows each architecture's encoding; that encoder is checked against a
//! sibling ext4 request that `linux-raw-sys` does generate from the kernel's headers, and the
//! struct's size and layout against the kernel's.

use std::io;
use std::mem::{offset_of, size_of};
use std::os::fd::BorrowedFd;

use rustix::ioctl::{Opcode, Updater, ioctl, opcode};

/// `struct move_extent`: the argument of `EXT4_IOC_MOVE_EXT` (40 bytes). Offsets and lengths are
/// in file-system blocks.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MoveExtent {
    /// Must be zero.
    pub reserved: u32,
    /// The donor file's descriptor (opened for writing).
    pub donor_fd: u32,
    /// First block of the original file.
    pub orig_start: u64,
    /// First block of the donor file.
    pub donor_start: u64,
    /// Blocks to move.
    pub len: u64,
    /// Blocks moved (out; the kernel fills it in even when the call fails part way).
    pub moved_len: u64,
}

const _: () = assert!(size_of::<MoveExtent>() == 40);
const _: () = assert!(offset_of!(MoveExtent, donor_fd) == 4 && offset_of!(MoveExtent, orig_start) == 8);
const _: () = assert!(offset_of!(MoveExtent, donor_start) == 16 && offset_of!(MoveExtent, len) == 24);
const _: () = assert!(offset_of!(MoveExtent, moved_len) == 32);

/// `EXT4_IOC_MOVE_EXT = _IOWR('f', 15, struct move_extent)`.
pub const EXT4_IOC_MOVE_EXT: Opcode = opcode::read_write::<MoveExtent>(b'f', 15);

// The encoder composes the kernel's numbers on this architecture: `EXT4_IOC_RESIZE_FS =
// _IOW('f', 16, __u64)` and `EXT4_IOC_GETVERSION = _IOR('f', 3, long)` as linux-raw-sys has them.
const _: () = assert!(opcode::write::<u64>(b'f', 16) == linux_raw_sys::ioctl::EXT4_IOC_RESIZE_FS as Opcode);
const _: () =
    assert!(opcode::read::<core::ffi::c_long>(b'f', 3) == linux_raw_sys::ioctl::EXT4_IOC_GETVERSION as Opcode);
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const _: () = assert!(EXT4_IOC_MOVE_EXT == 0xc028_660f);

/// `ioctl(fd, EXT4_IOC_MOVE_EXT, me)`: move `me.len` blocks of `fd` from `me.orig_start` with the
/// donor's from `me.donor_start`. `me.moved_len` says how many moved, whatever the result.
pub fn move_ext(fd: BorrowedFd<'_>, me: &mut MoveExtent) -> io::Result<()> {
    // SAFETY: EXT4_IOC_MOVE_EXT reads and writes one `struct move_extent` through its pointer
    // argument; `MoveExtent` has its layout (asserted above) and is exclusively borrowed for the
    // call, so the kernel writes only into it.
    let op = unsafe { Updater::<{ EXT4_IOC_MOVE_EXT }, MoveExtent>::new(me) };
    // SAFETY: `op` pairs the request with the argument the kernel expects (above); `fd` is
    // borrowed for the call.
    Ok(unsafe { ioctl(fd, op) }?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_on_ext4_refuses_the_request() {
        // /proc is not ext4: the ioctl is not the file's (ENOTTY), or the descriptors do not
        // fit (EBADF, EINVAL, EXDEV, EOPNOTSUPP); never success, never a crash.
        let orig = std::fs::File::open("/proc/self/status").unwrap();
        let donor = std::fs::File::open("/proc/self/stat").unwrap();
        use std::os::fd::{AsFd, AsRawFd};
        let mut me = MoveExtent { donor_fd: donor.as_raw_fd() as u32, len: 1, ..MoveExtent::default() };
        let e = move_ext(orig.as_fd(), &mut me).unwrap_err();
        assert!(e.raw_os_error().is_some(), "{e}");
        assert_eq!(me.moved_len, 0);
    }
}
