//! Stores: where an emulated device keeps its data.
//!
//! A store sees zone-relative byte offsets. The zone state machine decides what is allowed; the
//! store only keeps bytes (and, for the persistent store, the rare zone conditions that its files
//! cannot express).

mod dir;
mod memory;
mod state_file;

pub use dir::{DirStore, FsZoneDir, MAX_OPEN_FILES, ZoneDir, zone_file_name};
pub(crate) use dir::{ZoneFiles, looks_like_zone_file, parse_zone_file_name};
pub use memory::MemoryStore;
pub use state_file::{CleanClose, RareCond, STATE_FILE, ZoneStates};

use std::collections::BTreeSet;
use std::io;
use zonekit_core::{Transition, ZoneTable};

/// Data keeping of an emulated device. Offsets are bytes from the zone start.
pub trait Store: Send {
    /// `none`, `memory` or `dir`.
    fn name(&self) -> &'static str;

    /// Read `buf.len()` bytes at `offset` in `zone`; sectors never written read as zeros.
    fn read(&mut self, zone: u32, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// Write `data` at `offset` in `zone`.
    fn write(&mut self, zone: u32, offset: u64, data: &[u8]) -> io::Result<()>;

    /// A zone changed condition (reset, finish, read-only, offline…): discard or record what the
    /// store needs to. Called before the change is applied; an error cancels it.
    fn zone_changed(&mut self, t: &Transition) -> io::Result<()>;

    /// Make every acknowledged write durable.
    fn flush(&mut self) -> io::Result<()>;

    /// Whether written data reads back (false: reads below a write pointer return zeros).
    fn keeps_data(&self) -> bool {
        true
    }

    /// Whether the store takes changes: false for a persistent device opened read-only, and once
    /// it is closed. The device refuses writes and zone changes (`EBADF`) rather than change the
    /// table alone.
    fn writable(&self) -> bool {
        true
    }

    /// Sequential zones whose next write fails (fault injection), as the store recorded them:
    /// none unless a persistent store kept them.
    fn write_faults(&self) -> BTreeSet<u32> {
        BTreeSet::new()
    }

    /// Record the zones whose next write fails (persistent stores keep them for the next open).
    fn set_write_faults(&mut self, _zones: &BTreeSet<u32>) -> io::Result<()> {
        Ok(())
    }

    /// The device is closed cleanly, with its zones as `table` holds them: record what the next
    /// open needs to find them so (persistent stores). Called once; nothing is changed after it.
    fn close(&mut self, _table: &ZoneTable) -> io::Result<()> {
        Ok(())
    }
}

/// Keeps nothing: reads return zeros (below the write pointer), like null_blk without
/// `memory_backed`. Serves huge simulated drives.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoneStore;

impl Store for NoneStore {
    fn name(&self) -> &'static str {
        "none"
    }

    fn keeps_data(&self) -> bool {
        false
    }

    fn read(&mut self, _zone: u32, _offset: u64, buf: &mut [u8]) -> io::Result<()> {
        buf.fill(0);
        Ok(())
    }

    fn write(&mut self, _zone: u32, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn zone_changed(&mut self, _t: &Transition) -> io::Result<()> {
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
