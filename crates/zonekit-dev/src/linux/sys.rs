//! The kernel's blkzoned ABI (`include/uapi/linux/blkzoned.h`) and the block-device ioctls zonekit
//! uses: `repr(C)` structs with size asserts, the kernel's ioctl numbers (from `linux-raw-sys`, checked
//! against those structs' sizes), and one thin safe wrapper per ioctl, named after the C request it
//! issues.
//!
//! This is the only module of the Linux backend with `unsafe`; every block says why it is sound.
//! Everything the kernel hands back is plain bytes or integers here: decoding it into zones is the
//! parent module's (tested) business.
#![allow(unsafe_code)]

use std::io;
use std::mem::size_of;
use std::os::fd::{AsRawFd, BorrowedFd};

/// `struct blk_zone`: one zone of a `BLKREPORTZONE` reply (64 bytes; sectors of 512 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlkZone {
    /// Zone start sector.
    pub start: u64,
    /// Zone length in sectors.
    pub len: u64,
    /// Write pointer position (absolute sector).
    pub wp: u64,
    /// `enum blk_zone_type`.
    pub type_: u8,
    /// `enum blk_zone_cond`.
    pub cond: u8,
    /// Non-sequential write resources active.
    pub non_seq: u8,
    /// Reset write pointer recommended.
    pub reset: u8,
    /// Padding.
    pub resv: [u8; 4],
    /// Zone capacity in sectors (valid when the report has [`BLK_ZONE_REP_CAPACITY`]).
    pub capacity: u64,
    /// Padding.
    pub reserved: [u8; 24],
}

/// `struct blk_zone_report` without its flexible `zones[]` array: the 16-byte header.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlkZoneReportHeader {
    /// First sector to report from (in); unchanged on return.
    pub sector: u64,
    /// Room for zones in the buffer (in); zones reported (out).
    pub nr_zones: u32,
    /// `BLK_ZONE_REP_*` flags (out).
    pub flags: u32,
}

/// `struct blk_zone_range`: the argument of the zone management ioctls.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlkZoneRange {
    /// First sector (a zone start).
    pub sector: u64,
    /// Number of sectors (whole zones, or up to the device end).
    pub nr_sectors: u64,
}

const _: () = assert!(size_of::<BlkZone>() == 64);
const _: () = assert!(size_of::<BlkZoneReportHeader>() == 16);
const _: () = assert!(size_of::<BlkZoneRange>() == 16);

/// Size of `struct blk_zone`.
pub const BLK_ZONE_SIZE: usize = size_of::<BlkZone>();
/// Size of the `struct blk_zone_report` header.
pub const BLK_ZONE_REPORT_HEADER_SIZE: usize = size_of::<BlkZoneReportHeader>();
/// `BLK_ZONE_REP_CAPACITY`: the report's `capacity` fields are valid.
pub const BLK_ZONE_REP_CAPACITY: u32 = 1 << 0;

// The ioctl numbers come from `linux-raw-sys`, generated from the kernel's headers for each
// architecture (the `_IOC` encoding differs on mips, powerpc and sparc), not computed here.
use linux_raw_sys::ioctl as k;

/// `_IOC_SIZE(request)`: the argument size an ioctl number encodes (14 bits at bit 16 on most
/// architectures, 13 on mips/powerpc/sparc, hence the 13-bit mask: every size used here fits).
const fn ioc_size(request: u32) -> usize {
    ((request >> 16) & 0x1fff) as usize
}

/// `BLKSSZGET = _IO(0x12, 104)`: logical block size (an `int`).
pub const BLKSSZGET: u32 = k::BLKSSZGET;
/// `BLKPBSZGET = _IO(0x12, 123)`: physical block size (an `unsigned int`).
pub const BLKPBSZGET: u32 = k::BLKPBSZGET;
/// `BLKGETSIZE64 = _IOR(0x12, 114, size_t)`: device size in bytes.
pub const BLKGETSIZE64: u32 = k::BLKGETSIZE64;
/// `BLKREPORTZONE = _IOWR(0x12, 130, struct blk_zone_report)`: the size field encodes the 16-byte
/// header, not the buffer that follows it.
pub const BLKREPORTZONE: u32 = k::BLKREPORTZONE;
/// `BLKRESETZONE = _IOW(0x12, 131, struct blk_zone_range)`.
pub const BLKRESETZONE: u32 = k::BLKRESETZONE;
/// `BLKGETZONESZ = _IOR(0x12, 132, __u32)`: zone size in sectors (0 if not zoned).
pub const BLKGETZONESZ: u32 = k::BLKGETZONESZ;
/// `BLKGETNRZONES = _IOR(0x12, 133, __u32)`: number of zones (0 if not zoned).
pub const BLKGETNRZONES: u32 = k::BLKGETNRZONES;
/// `BLKOPENZONE = _IOW(0x12, 134, struct blk_zone_range)`.
pub const BLKOPENZONE: u32 = k::BLKOPENZONE;
/// `BLKCLOSEZONE = _IOW(0x12, 135, struct blk_zone_range)`.
pub const BLKCLOSEZONE: u32 = k::BLKCLOSEZONE;
/// `BLKFINISHZONE = _IOW(0x12, 136, struct blk_zone_range)`.
pub const BLKFINISHZONE: u32 = k::BLKFINISHZONE;

// The argument structs declared above are the ones the kernel's ioctl numbers were built with.
const _: () = assert!(ioc_size(BLKREPORTZONE) == size_of::<BlkZoneReportHeader>());
const _: () = assert!(ioc_size(BLKRESETZONE) == size_of::<BlkZoneRange>());
const _: () = assert!(ioc_size(BLKOPENZONE) == size_of::<BlkZoneRange>());
const _: () = assert!(ioc_size(BLKCLOSEZONE) == size_of::<BlkZoneRange>());
const _: () = assert!(ioc_size(BLKFINISHZONE) == size_of::<BlkZoneRange>());
const _: () = assert!(ioc_size(BLKGETZONESZ) == size_of::<u32>());
const _: () = assert!(ioc_size(BLKGETNRZONES) == size_of::<u32>());

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// `ioctl(fd, request, &mut out)` for a request whose argument is a pointer to a plain integer.
fn get<T: Copy + Default>(fd: BorrowedFd<'_>, request: u32) -> io::Result<T> {
    let mut out = T::default();
    // SAFETY: `fd` is a live descriptor for the borrow; the callers pair each request with the
    // integer type the kernel writes for it (`int`, `unsigned int`, `__u32`, `u64`), so the kernel
    // writes at most `size_of::<T>()` bytes into `out`, a valid, exclusively borrowed local.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), request as _, &mut out as *mut T) })?;
    Ok(out)
}

/// `BLKSSZGET`: the logical block size in bytes.
pub fn blksszget(fd: BorrowedFd<'_>) -> io::Result<u32> {
    get::<libc::c_int>(fd, BLKSSZGET).map(|v| v as u32)
}

/// `BLKPBSZGET`: the physical block size in bytes.
pub fn blkpbszget(fd: BorrowedFd<'_>) -> io::Result<u32> {
    get::<libc::c_uint>(fd, BLKPBSZGET)
}

/// `BLKGETSIZE64`: the device size in bytes.
pub fn blkgetsize64(fd: BorrowedFd<'_>) -> io::Result<u64> {
    get::<u64>(fd, BLKGETSIZE64)
}

/// `BLKGETZONESZ`: the zone size in 512-byte sectors; 0 for a device that is not zoned.
pub fn blkgetzonesz(fd: BorrowedFd<'_>) -> io::Result<u32> {
    get::<u32>(fd, BLKGETZONESZ)
}

/// `BLKGETNRZONES`: the number of zones; 0 for a device that is not zoned.
pub fn blkgetnrzones(fd: BorrowedFd<'_>) -> io::Result<u32> {
    get::<u32>(fd, BLKGETNRZONES)
}

/// `BLKREPORTZONE`: report up to `nr_zones` zones from the one holding `sector`.
///
/// Returns the reply as the kernel wrote it: the `struct blk_zone_report` header followed by the
/// `nr_zones` (out) `struct blk_zone` entries, in native byte order, for
/// [`parse_report`](super::parse_report).
pub fn blkreportzone(fd: BorrowedFd<'_>, sector: u64, nr_zones: u32) -> io::Result<Vec<u8>> {
    let words = (BLK_ZONE_REPORT_HEADER_SIZE + nr_zones as usize * BLK_ZONE_SIZE) / 8;
    // A buffer of u64s is aligned for every field of the header and of `struct blk_zone`.
    let mut buf = vec![0u64; words];
    buf[0] = sector;
    let mut nr_and_flags = [0u8; 8];
    nr_and_flags[..4].copy_from_slice(&nr_zones.to_ne_bytes());
    buf[1] = u64::from_ne_bytes(nr_and_flags);
    // SAFETY: `buf` is an exclusively borrowed, 8-byte aligned allocation of `words * 8` bytes that
    // starts with a valid `struct blk_zone_report` header whose `nr_zones` is the number of
    // `struct blk_zone` entries that fit after it; the kernel writes the header and at most that
    // many zones, all inside the allocation. `fd` is live for the borrow.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), BLKREPORTZONE as _, buf.as_mut_ptr()) })?;
    let mut bytes: Vec<u8> = buf.iter().flat_map(|w| w.to_ne_bytes()).collect();
    let got = u32::from_ne_bytes(bytes[8..12].try_into().expect("4 bytes")).min(nr_zones);
    bytes.truncate(BLK_ZONE_REPORT_HEADER_SIZE + got as usize * BLK_ZONE_SIZE);
    Ok(bytes)
}

fn zone_range(fd: BorrowedFd<'_>, request: u32, sector: u64, nr_sectors: u64) -> io::Result<()> {
    let range = BlkZoneRange { sector, nr_sectors };
    // SAFETY: the request is one of the `_IOW(0x12, n, struct blk_zone_range)` management ioctls,
    // which only read a `struct blk_zone_range` from the pointer; `range` is a valid `repr(C)`
    // value that outlives the call. `fd` is live for the borrow.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), request as _, &range as *const BlkZoneRange) })
}

/// `BLKRESETZONE`: reset the write pointers of the zones of `[sector, sector + nr_sectors)`.
pub fn blkresetzone(fd: BorrowedFd<'_>, sector: u64, nr_sectors: u64) -> io::Result<()> {
    zone_range(fd, BLKRESETZONE, sector, nr_sectors)
}

/// `BLKOPENZONE`: explicitly open the zones of `[sector, sector + nr_sectors)`.
pub fn blkopenzone(fd: BorrowedFd<'_>, sector: u64, nr_sectors: u64) -> io::Result<()> {
    zone_range(fd, BLKOPENZONE, sector, nr_sectors)
}

/// `BLKCLOSEZONE`: close the zones of `[sector, sector + nr_sectors)`.
pub fn blkclosezone(fd: BorrowedFd<'_>, sector: u64, nr_sectors: u64) -> io::Result<()> {
    zone_range(fd, BLKCLOSEZONE, sector, nr_sectors)
}

/// `BLKFINISHZONE`: finish (make full) the zones of `[sector, sector + nr_sectors)`.
pub fn blkfinishzone(fd: BorrowedFd<'_>, sector: u64, nr_sectors: u64) -> io::Result<()> {
    zone_range(fd, BLKFINISHZONE, sector, nr_sectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the generic `_IOC` encoding (x86, arm, riscv…), the numbers blkzone and fio use.
    #[test]
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))]
    fn opcodes_are_the_generic_encoding() {
        assert_eq!(BLKREPORTZONE, 0xC010_1282);
        assert_eq!(BLKRESETZONE, 0x4010_1283);
        assert_eq!(BLKGETZONESZ, 0x8004_1284);
        assert_eq!(BLKFINISHZONE, 0x4010_1288);
        assert_eq!(BLKGETSIZE64, 0x8008_1272);
        assert_eq!(BLKSSZGET, 0x1268);
    }

    #[test]
    fn ioctls_on_a_regular_file_fail_with_enotty() {
        let f = tempfile::tempfile().unwrap();
        let fd = std::os::fd::AsFd::as_fd(&f);
        assert_eq!(blkgetzonesz(fd).unwrap_err().raw_os_error(), Some(libc::ENOTTY));
        assert_eq!(blkreportzone(fd, 0, 1).unwrap_err().raw_os_error(), Some(libc::ENOTTY));
        assert_eq!(blkresetzone(fd, 0, 8).unwrap_err().raw_os_error(), Some(libc::ENOTTY));
    }
}
