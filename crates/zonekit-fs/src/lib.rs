//! zonekit-fs: zonefs in userspace, with the kernel's on-disk format.
//!
//! zonefs exposes each zone of a zoned device as a file: conventional zones under `cnv/`,
//! sequential zones under `seq/`, named by their decimal index. Its only metadata is one 4 KiB
//! superblock at the start of zone 0 ([`superblock`]), which [`mkfs`] writes byte for byte as the
//! kernel's `mkzonefs` does. A [`Volume`] mounts such a device through the block layer
//! (`zonekit_blk::BlockDevice`) and applies the kernel's file rules: append-only writes at the
//! write pointer, truncate to 0 (reset) or to the capacity (finish), the `errors=` policies, and
//! explicit-open accounting. The zone rules themselves stay the device's: a write the zone state
//! machine refuses fails with the device's errno, and the volume then recovers as the kernel does.
//!
//! `layout` and `superblock` are pure (plain data and functions); `Volume` is the driver.
//! [`fuse`] serves a volume to the kernel through `fuser`, [`mount`] runs such a mount (with a
//! control socket for `zonekit fs stats` and `zonekit fs inject`), and [`fault`] injects faults
//! under a running volume.

pub mod crc;
pub mod error;
pub mod fault;
pub mod fuse;
pub mod layout;
pub mod mkfs;
pub mod mount;
pub mod superblock;
pub mod volume;

pub use error::{FsError, FsResult};
pub use layout::{FileId, Group, Layout};
pub use mkfs::{MkfsOptions, MkfsPlan};
pub use superblock::{Features, Superblock, SuperblockError};
pub use volume::{
    DirEntry, ErrorsPolicy, MountOptions, Node, NodeKind, OpenFile, OpenFlags, StatFs, SysfsCounters, Volume,
    VolumeStat,
};
