//! The directory store: one file per zone, laid out as the kernel's zoned loop driver (zloop) lays
//! out its backing directory, plus a small file for the zone conditions that file sizes cannot
//! express.
//!
//! - `cnv-NNNNNN` / `seq-NNNNNN` (zone number, at least 6 digits): created on the zone's first
//!   write. A sequential zone's file size is its write pointer; conventional zone files are sparse.
//! - `zones.state` ([`ZoneStates`]): finished, read-only and offline zones, the boot of the
//!   session, and after a clean close every open and closed zone with the eviction state;
//!   replaced atomically whenever it changes. Absent or empty: no such zone.
//!
//! A reset removes the zone's file rather than truncating it, as zloop does: on ext4, truncating a
//! file with synced blocks and dirty pages writes the pages out first (milliseconds), an unlink
//! does not. The directory layout is the same either way (no file: an empty zone).
//!
//! Durability rules (what makes a crash leave a consistent device, see `docs/persistence.md`):
//! - writes and resets of unlisted zones become durable at [`Store::flush`], which fsyncs every
//!   zone file written since the last flush, then the directory if a zone file was created or
//!   removed, then records in `zones.state` the synced length of each sequential zone file it
//!   synced: after a power loss (a different boot), a file may hold any part of its unsynced
//!   writes and any size between its synced and its last one, so it is cut back to that length;
//! - a synced length whose file a reset removed is dropped from `zones.state` before the zone's
//!   next file is created;
//! - before a zone is added to `zones.state`, its file (and the directory, if it changed) is
//!   synced, so the state never names data that a power loss could take away;
//! - a zone leaves `zones.state` before its data is discarded (state first, then remove, then
//!   fsync the directory): a crash in between leaves the old data with a write pointer matching
//!   it, never a write pointer without data.
//!
//!
//! A clean close ([`Store::close`]) writes every open and closed zone and the eviction state to
//! `zones.state` with the running boot's id; a writable open drops them again first, so that only
//! a device closed cleanly, in the same boot, comes back with its zones open.
//!
//! All file operations go through [`ZoneDir`], so that tests can put a power-loss model under the
//! store; [`FsZoneDir`] is the real one.

use super::Store;
use super::state_file::{CleanClose, RareCond, STATE_FILE, ZoneStates};
use crate::config::DataMode;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use zonekit_core::{Action, Geometry, SECTOR_SIZE, Transition, ZoneCond, ZoneOp, ZoneTable, ZoneType};

/// Zone files kept open at once by [`FsZoneDir`]; beyond, an open one is closed.
pub const MAX_OPEN_FILES: usize = 256;

/// The file operations a [`DirStore`] needs from its directory. File names are plain names
/// inside the directory. An implementation must make [`ZoneDir::replace`] atomic and durable,
/// and may lose, at a power loss, anything not covered by a later [`ZoneDir::sync_file`] (file
/// contents) or [`ZoneDir::sync_dir`] (new directory entries).
pub trait ZoneDir: Send {
    /// The directory, for messages.
    fn path(&self) -> &Path;

    /// Names of the entries of the directory, in no particular order.
    fn list(&mut self) -> io::Result<Vec<String>>;

    /// The whole content of a small file, or `None` if it does not exist.
    fn read_small(&mut self, name: &str) -> io::Result<Option<Vec<u8>>>;

    /// Replace a small file with `data`, atomically and durably (write a temporary file, sync
    /// it, rename it over `name`, sync the directory).
    fn replace(&mut self, name: &str, data: &[u8]) -> io::Result<()>;

    /// Size of a regular file in bytes (an error if it is missing or not a regular file).
    fn file_len(&mut self, name: &str) -> io::Result<u64>;

    /// Read at `offset` into `buf`, up to the end of the file; returns the bytes read.
    fn read_at(&mut self, name: &str, offset: u64, buf: &mut [u8]) -> io::Result<usize>;

    /// Write all of `data` at `offset`, creating the file if it is missing; returns whether it
    /// was created.
    fn write_at(&mut self, name: &str, offset: u64, data: &[u8]) -> io::Result<bool>;

    /// Set an existing file's size.
    fn truncate(&mut self, name: &str, len: u64) -> io::Result<()>;

    /// Set a file's size, creating the file (sparse) if it is missing; returns whether it was
    /// created.
    fn set_len(&mut self, name: &str, len: u64) -> io::Result<bool>;

    /// Remove a file (a missing one is not an error).
    fn remove(&mut self, name: &str) -> io::Result<()>;

    /// Make a file's content and size durable (`fdatasync`).
    fn sync_file(&mut self, name: &str) -> io::Result<()>;

    /// Make the directory's entries durable (`fsync` of the directory).
    fn sync_dir(&mut self) -> io::Result<()>;

    /// The id of the running boot (`/proc/sys/kernel/random/boot_id`): it changes when the
    /// machine restarts, which is how a device tells a power loss from a killed process.
    fn boot_id(&mut self) -> io::Result<String>;
}

/// The most `read_small` reads: far more than the metadata (about 1 KiB) or `zones.state` of the
/// largest drive (a line per zone, tens of bytes each) holds.
pub const SMALL_FILE_MAX: u64 = 64 << 20;

/// A directory entry that should be a regular file and is not (`InvalidData`: the device
/// directory is damaged). The caller names the file; this says only what is wrong with it.
fn not_regular(m: &std::fs::Metadata) -> io::Error {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    let what = if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "a special file"
    };
    io::Error::new(io::ErrorKind::InvalidData, format!("{what}, not a regular file"))
}

/// [`ZoneDir`] over a real directory, keeping at most [`MAX_OPEN_FILES`] files open.
#[derive(Debug)]
pub struct FsZoneDir {
    root: PathBuf,
    files: HashMap<String, File>,
    /// The directory itself, locked exclusively while the device is open.
    lock: Option<File>,
    /// The running boot's id, read once.
    boot_id: Option<String>,
}

impl FsZoneDir {
    /// The directory at `root` (not checked until used).
    pub fn new(root: impl Into<PathBuf>) -> FsZoneDir {
        FsZoneDir { root: root.into(), files: HashMap::new(), lock: None, boot_id: None }
    }

    /// Take an exclusive lock on the directory (`flock`), held until this is dropped, so that two
    /// processes never run the same device: the second gets `EBUSY`.
    ///
    /// A lock that is busy is retried for a moment: a process forking a child (which holds a copy of
    /// every descriptor until it execs) keeps a released lock alive for that long.
    pub fn lock(&mut self) -> io::Result<()> {
        let dir = File::open(&self.root)?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(250);
        loop {
            match dir.try_lock() {
                Ok(()) => {
                    self.lock = Some(dir);
                    return Ok(());
                }
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                Err(std::fs::TryLockError::WouldBlock) => return Err(io::Error::from_raw_os_error(libc::EBUSY)),
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
        }
    }

    /// The open handle of `name`, opening (and, with `create`, creating) it if needed; the
    /// boolean says whether the file was created.
    fn handle(&mut self, name: &str, create: bool) -> io::Result<(&File, bool)> {
        let mut created = false;
        if !self.files.contains_key(name) {
            let path = self.root.join(name);
            let file = match OpenOptions::new().read(true).write(true).open(&path) {
                Ok(f) => f,
                Err(e) if create && e.kind() == io::ErrorKind::NotFound => {
                    created = true;
                    OpenOptions::new().read(true).write(true).create_new(true).open(&path)?
                }
                // A device on read-only storage can still be read.
                Err(e) if !create && e.kind() == io::ErrorKind::PermissionDenied => File::open(&path)?,
                Err(e) => return Err(e),
            };
            if self.files.len() >= MAX_OPEN_FILES {
                // Any victim will do: closing a file loses nothing (fsync works on the inode).
                if let Some(victim) = self.files.keys().next().cloned() {
                    self.files.remove(&victim);
                }
            }
            self.files.insert(name.to_string(), file);
        }
        Ok((&self.files[name], created))
    }
}

impl ZoneDir for FsZoneDir {
    fn path(&self) -> &Path {
        &self.root
    }

    fn list(&mut self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.root)? {
            // A name that is not UTF-8 cannot be one of ours.
            if let Ok(name) = entry?.file_name().into_string() {
                names.push(name);
            }
        }
        Ok(names)
    }

    fn read_small(&mut self, name: &str) -> io::Result<Option<Vec<u8>>> {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking: a FIFO in the file's place must not hang the open; only a regular file is
        // read, and no more than a small file can hold (a link to /dev/zero must not eat memory).
        let f = match OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(self.root.join(name)) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let m = f.metadata()?;
        if !m.is_file() {
            return Err(not_regular(&m));
        }
        if m.len() > SMALL_FILE_MAX {
            let why = format!("{} bytes, more than such a file ever holds ({SMALL_FILE_MAX})", m.len());
            return Err(io::Error::new(io::ErrorKind::InvalidData, why));
        }
        let mut data = Vec::with_capacity(m.len() as usize);
        f.take(SMALL_FILE_MAX).read_to_end(&mut data)?;
        Ok(Some(data))
    }

    fn replace(&mut self, name: &str, data: &[u8]) -> io::Result<()> {
        let tmp = self.root.join(format!("{name}.tmp"));
        let mut f = File::create(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, self.root.join(name))?;
        self.sync_dir()
    }

    fn file_len(&mut self, name: &str) -> io::Result<u64> {
        let path = self.root.join(name);
        let m = std::fs::symlink_metadata(&path)?;
        if !m.is_file() {
            return Err(not_regular(&m));
        }
        Ok(m.len())
    }

    fn read_at(&mut self, name: &str, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let (f, _) = self.handle(name, false)?;
        let mut done = 0;
        while done < buf.len() {
            match f.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }

    fn write_at(&mut self, name: &str, offset: u64, data: &[u8]) -> io::Result<bool> {
        let (f, created) = self.handle(name, true)?;
        f.write_all_at(data, offset)?;
        Ok(created)
    }

    fn truncate(&mut self, name: &str, len: u64) -> io::Result<()> {
        self.handle(name, false)?.0.set_len(len)
    }

    fn set_len(&mut self, name: &str, len: u64) -> io::Result<bool> {
        let (f, created) = self.handle(name, true)?;
        f.set_len(len)?;
        Ok(created)
    }

    fn remove(&mut self, name: &str) -> io::Result<()> {
        // The cached handle would go on writing to the unlinked file.
        self.files.remove(name);
        match std::fs::remove_file(self.root.join(name)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn sync_file(&mut self, name: &str) -> io::Result<()> {
        self.handle(name, false)?.0.sync_data()
    }

    fn sync_dir(&mut self) -> io::Result<()> {
        File::open(&self.root)?.sync_all()
    }

    fn boot_id(&mut self) -> io::Result<String> {
        if self.boot_id.is_none() {
            let path = "/proc/sys/kernel/random/boot_id";
            let id = std::fs::read_to_string(path)
                .map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?
                .trim()
                .to_string();
            self.boot_id = Some(id);
        }
        Ok(self.boot_id.clone().unwrap_or_default())
    }
}

/// The file name of zone `idx`: `cnv-NNNNNN` or `seq-NNNNNN`, as zloop names them.
pub fn zone_file_name(geometry: &Geometry, idx: u32) -> String {
    format!("{}-{idx:06}", if geometry.is_conventional(idx) { "cnv" } else { "seq" })
}

/// Whether a directory entry is, or pretends to be, a zone file.
pub(crate) fn looks_like_zone_file(name: &str) -> bool {
    name.starts_with("cnv-") || name.starts_with("seq-")
}

/// Parse a zone file name that [`looks_like_zone_file`]: the zone number, checked against the
/// geometry (in range, and the zone type the prefix says).
pub(crate) fn parse_zone_file_name(geometry: &Geometry, name: &str) -> Result<u32, String> {
    let (conventional, digits) = match (name.strip_prefix("cnv-"), name.strip_prefix("seq-")) {
        (Some(d), _) => (true, d),
        (_, Some(d)) => (false, d),
        _ => return Err("not a zone file name".into()),
    };
    let idx = digits
        .parse::<u32>()
        .ok()
        .filter(|n| digits.bytes().all(|b| b.is_ascii_digit()) && format!("{n:06}") == digits)
        .ok_or_else(|| format!("'{digits}' is not a zone number (6 digits or more, as `{}-000042`)", &name[..3]))?;
    if idx >= geometry.nr_zones {
        return Err(format!("zone {idx} is past the last zone ({} zones)", geometry.nr_zones));
    }
    match (conventional, geometry.is_conventional(idx)) {
        (true, false) => Err(format!("zone {idx} is sequential, not conventional")),
        (false, true) => Err(format!("zone {idx} is conventional, not sequential")),
        _ => Ok(idx),
    }
}

/// The persistent store of an emulated device directory (see the module documentation).
/// Built by [`crate::persistent::create_in`] and [`crate::persistent::open_in`].
pub struct DirStore {
    dir: Box<dyn ZoneDir>,
    geometry: Geometry,
    /// What the zone files keep.
    data: DataMode,
    /// Zones whose file exists.
    has_file: Vec<bool>,
    /// Bytes of each zone file that hold the zone's data, what reads return: a read-only open
    /// leaves a write cut short by a crash in the file, beyond this.
    lens: Vec<u64>,
    /// What `zones.state` holds (while the device is open for writing, no clean-close section).
    states: ZoneStates,
    /// Zone files written since they were last synced.
    dirty: BTreeSet<u32>,
    /// A zone file was created or removed since the directory was last synced.
    dir_dirty: bool,
    /// Changes are allowed: false for a read-only open and once the device is closed.
    writable: bool,
}

impl std::fmt::Debug for DirStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirStore")
            .field("dir", &self.dir.path())
            .field("states", &self.states)
            .field("dirty", &self.dirty)
            .field("writable", &self.writable)
            .finish_non_exhaustive()
    }
}

/// The zone files of a directory, as [`crate::persistent::open_in`] checked them: which exist, and
/// how many of their bytes are the zone's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ZoneFiles {
    /// Zones whose file exists.
    pub has_file: Vec<bool>,
    /// Bytes of data in each zone's file.
    pub lens: Vec<u64>,
}

impl ZoneFiles {
    /// No zone file: a new device.
    pub fn none(geometry: &Geometry) -> ZoneFiles {
        ZoneFiles { has_file: vec![false; geometry.nr_zones as usize], lens: vec![0; geometry.nr_zones as usize] }
    }
}

impl DirStore {
    /// A store over `dir` keeping `data`, whose zone files and `zones.state` (`states`) were
    /// checked by the caller; `writable` false refuses every change.
    pub(crate) fn new(
        dir: Box<dyn ZoneDir>,
        geometry: Geometry,
        data: DataMode,
        files: ZoneFiles,
        states: ZoneStates,
        writable: bool,
    ) -> DirStore {
        debug_assert_eq!(files.has_file.len(), geometry.nr_zones as usize);
        let ZoneFiles { has_file, lens } = files;
        let dirty = BTreeSet::new();
        DirStore { dir, geometry, data, has_file, lens, states, dirty, dir_dirty: false, writable }
    }

    /// Start a writable session: record the running boot in `zones.state` and drop its
    /// clean-close section, so that a crash from now on is recognised as one (and a restart of the
    /// machine as a power loss), and the synced lengths that no longer describe a zone's file.
    pub(crate) fn begin_session(&mut self) -> io::Result<()> {
        let mut next = ZoneStates { boot_id: Some(self.dir.boot_id()?), clean: None, ..self.states.clone() };
        self.drop_stale_records(&mut next);
        self.write_states(next)
    }

    /// Count as unsynced every zone file that may hold data no flush made durable (a previous
    /// session ended by a clean close or a kill, which sync nothing): conventional zone files, and
    /// sequential ones longer than their synced length. The next flush syncs them (and the
    /// directory) before it records their lengths.
    pub(crate) fn assume_unsynced(&mut self) {
        for zone in 0..self.geometry.nr_zones {
            let z = zone as usize;
            let synced = self.states.synced.get(&zone).copied().unwrap_or(0);
            let unlisted = !self.states.rare.contains_key(&zone);
            if self.has_file[z] && unlisted && (self.geometry.is_conventional(zone) || self.lens[z] > synced) {
                self.dirty.insert(zone);
            }
        }
        self.dir_dirty = true;
    }

    /// Forget the synced lengths of zones whose file was removed (a reset) or is shorter: they
    /// describe a file that is gone, and must be gone from `zones.state` before the zone's new
    /// file could be mistaken for it after a power loss.
    fn drop_stale_records(&self, next: &mut ZoneStates) {
        next.synced.retain(|&z, len| self.has_file[z as usize] && self.lens[z as usize] >= *len && *len > 0);
    }

    fn name(&self, zone: u32) -> String {
        zone_file_name(&self.geometry, zone)
    }

    fn refuse_if_read_only(&self) -> io::Result<()> {
        if self.writable { Ok(()) } else { Err(io::Error::from_raw_os_error(libc::EBADF)) }
    }

    /// Make zone `zone`'s file, and its directory entry, durable now.
    fn sync_zone(&mut self, zone: u32) -> io::Result<()> {
        if self.dirty.contains(&zone) {
            let name = self.name(zone);
            self.dir.sync_file(&name)?;
            self.dirty.remove(&zone);
        }
        self.sync_dir()
    }

    fn sync_dir(&mut self) -> io::Result<()> {
        if self.dir_dirty {
            self.dir.sync_dir()?;
            self.dir_dirty = false;
        }
        Ok(())
    }

    /// Replace `zones.state` with `next`, if it differs.
    fn write_states(&mut self, next: ZoneStates) -> io::Result<()> {
        if next != self.states {
            self.dir.replace(STATE_FILE, next.format().as_bytes())?;
            self.states = next;
        }
        Ok(())
    }

    /// Record zone `zone`'s rare condition (`None`: it has none) in `zones.state`. A listed zone
    /// needs no synced length: its data was synced before it was listed.
    fn set_state(&mut self, zone: u32, cond: Option<RareCond>) -> io::Result<()> {
        let mut next = self.states.clone();
        match cond {
            Some(c) => {
                next.rare.insert(zone, c);
                next.synced.remove(&zone);
            }
            None => {
                next.rare.remove(&zone);
            }
        };
        self.write_states(next)
    }

    /// Before a zone's file is created: if `zones.state` still holds a synced length for the
    /// zone's previous file (removed by a reset), drop it durably first. Otherwise a power loss
    /// could leave the new file, holding any part of its unflushed writes, with the old length
    /// claiming them.
    fn before_creating(&mut self, zone: u32) -> io::Result<()> {
        if self.has_file[zone as usize] || !self.states.synced.contains_key(&zone) {
            return Ok(());
        }
        let mut next = self.states.clone();
        self.drop_stale_records(&mut next);
        self.write_states(next)
    }

    /// Discard zone `zone`'s data.
    fn discard(&mut self, zone: u32) -> io::Result<()> {
        let listed = self.states.rare.get(&zone).copied();
        if listed.is_some() {
            // State first: a crash before the removal leaves the old data, unlisted, with a
            // write pointer that matches it. The data was synced before the zone was listed: its
            // synced length keeps a power loss after such a crash from cutting it.
            let mut next = self.states.clone();
            next.rare.remove(&zone);
            if self.has_file[zone as usize] && self.lens[zone as usize] > 0 {
                next.synced.insert(zone, self.lens[zone as usize]);
            }
            self.write_states(next)?;
        }
        if !self.has_file[zone as usize] {
            return Ok(());
        }
        let name = self.name(zone);
        if let Err(e) = self.dir.remove(&name) {
            if let Some(c) = listed {
                // The reset is cancelled: best effort to list the zone again.
                let _ = self.set_state(zone, Some(c));
            }
            return Err(e);
        }
        self.has_file[zone as usize] = false;
        self.lens[zone as usize] = 0;
        self.dirty.remove(&zone);
        self.dir_dirty = true;
        if listed.is_some() {
            // The zone was not active while listed; making the removal durable now keeps it from
            // coming back active after a power loss (which could exceed the active limit).
            self.sync_dir()?;
        }
        Ok(())
    }

    /// A write without data (`--data none`): a sequential zone's file grows to the write's end
    /// (sparse: nothing is stored), so that its size is still the write pointer; a conventional
    /// zone has no write pointer, and no file.
    fn write_size_only(&mut self, zone: u32, end: u64) -> io::Result<()> {
        if self.geometry.is_conventional(zone) || end <= self.lens[zone as usize] {
            return Ok(());
        }
        self.before_creating(zone)?;
        let name = self.name(zone);
        match self.dir.set_len(&name, end) {
            Ok(created) => {
                self.has_file[zone as usize] = true;
                self.lens[zone as usize] = end;
                self.dir_dirty |= created;
                self.dirty.insert(zone);
                Ok(())
            }
            Err(e) => {
                // The file may have been created before the failure; its size did not change.
                self.dir_dirty = true;
                if self.dir.file_len(&name).is_ok() {
                    self.has_file[zone as usize] = true;
                    self.dirty.insert(zone);
                }
                Err(e)
            }
        }
    }

    /// A write pointer moved by fault injection: the zone's file ends at `len` bytes, cut or
    /// extended (sparse: zeros); `zones.state` first loses the zone's `full` record and any
    /// synced length past the new end. The change is durable at the next flush, as a write is.
    fn move_wp(&mut self, zone: u32, len: u64) -> io::Result<()> {
        if len == 0 {
            return self.discard(zone);
        }
        let z = zone as usize;
        let mut next = self.states.clone();
        // As for a discard: a finished zone's data was synced before it was listed, so its
        // length stays durable once the record goes; and no synced length may claim more than
        // the new end, or a power loss after the cut could bring the old end back.
        if next.rare.remove(&zone).is_some() && self.has_file[z] && self.lens[z] > 0 {
            next.synced.insert(zone, self.lens[z]);
        }
        if let Some(s) = next.synced.get_mut(&zone) {
            *s = (*s).min(len);
        }
        self.write_states(next)?;
        let name = self.name(zone);
        if self.has_file[z] && len <= self.dir.file_len(&name)? {
            self.dir.truncate(&name, len)?;
        } else {
            self.before_creating(zone)?;
            self.dir_dirty |= self.dir.set_len(&name, len)?;
            self.has_file[z] = true;
        }
        self.lens[z] = len;
        self.dirty.insert(zone);
        Ok(())
    }

    /// Zones whose next write fails, as `zones.state` lists them.
    fn recorded_write_faults(&self) -> &BTreeSet<u32> {
        &self.states.fail_next_write
    }

    /// Zones listed in `zones.state` as finished, read-only or offline.
    pub fn rare_states(&self) -> &BTreeMap<u32, RareCond> {
        &self.states.rare
    }
}

impl Store for DirStore {
    fn name(&self) -> &'static str {
        "dir"
    }

    fn read(&mut self, zone: u32, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if self.data == DataMode::None {
            buf.fill(0);
            return Ok(());
        }
        let len = self.lens[zone as usize];
        let want = (len.saturating_sub(offset) as usize).min(buf.len());
        let n = if self.has_file[zone as usize] && want > 0 {
            let name = self.name(zone);
            self.dir.read_at(&name, offset, &mut buf[..want])?
        } else {
            0
        };
        // Past the end of the data: a finished or read-only zone, or a hole of a conventional zone.
        buf[n..].fill(0);
        Ok(())
    }

    fn write(&mut self, zone: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        self.refuse_if_read_only()?;
        let name = self.name(zone);
        if self.data == DataMode::None {
            return self.write_size_only(zone, offset + data.len() as u64);
        }
        self.before_creating(zone)?;
        match self.dir.write_at(&name, offset, data) {
            Ok(created) => {
                let len = &mut self.lens[zone as usize];
                *len = (*len).max(offset + data.len() as u64);
                self.has_file[zone as usize] = true;
                self.dir_dirty |= created;
                self.dirty.insert(zone);
                Ok(())
            }
            Err(e) => {
                // The file may have been created, and written in part, before the failure.
                self.dir_dirty = true;
                if let Ok(file_len) = self.dir.file_len(&name) {
                    self.has_file[zone as usize] = true;
                    self.dirty.insert(zone);
                    if self.geometry.zone_type(zone) == ZoneType::SeqWriteRequired {
                        // The write pointer stays where it was (the write failed): so must the
                        // file's end. Host-aware zones may be written below their write pointer,
                        // where this would cut acknowledged data.
                        let _ = self.dir.truncate(&name, offset);
                    } else {
                        // Conventional data written in part reads back as written.
                        let len = &mut self.lens[zone as usize];
                        *len = (*len).max(file_len);
                    }
                }
                Err(e)
            }
        }
    }

    fn zone_changed(&mut self, t: &Transition) -> io::Result<()> {
        self.refuse_if_read_only()?;
        if t.discards_data() {
            return self.discard(t.zone);
        }
        if t.action == Action::MoveWp {
            let len = (t.new_wp - self.geometry.zone_start(t.zone)) * SECTOR_SIZE;
            return self.move_wp(t.zone, len);
        }
        let record = match t.action {
            Action::Mgmt(ZoneOp::Finish) if t.from != ZoneCond::Full && t.to == ZoneCond::Full => RareCond::Full,
            Action::SetCond(ZoneCond::ReadOnly) => RareCond::ReadOnly,
            Action::SetCond(ZoneCond::Offline) => RareCond::Offline,
            _ => return Ok(()),
        };
        // Data first: the state must never name data that a power loss could take away.
        self.sync_zone(t.zone)?;
        self.set_state(t.zone, Some(record))
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut synced = Vec::new();
        while let Some(&zone) = self.dirty.first() {
            let name = self.name(zone);
            self.dir.sync_file(&name)?;
            self.dirty.remove(&zone);
            synced.push(zone);
        }
        self.sync_dir()?;
        // Only now that the data is durable may `zones.state` say so: after a power loss, the
        // zone files are cut back to these lengths.
        let mut next = self.states.clone();
        for zone in synced {
            if !self.geometry.is_conventional(zone) && !next.rare.contains_key(&zone) {
                next.synced.insert(zone, self.lens[zone as usize]);
            }
        }
        self.drop_stale_records(&mut next);
        self.write_states(next)
    }

    fn writable(&self) -> bool {
        self.writable
    }

    fn write_faults(&self) -> BTreeSet<u32> {
        self.recorded_write_faults().clone()
    }

    fn set_write_faults(&mut self, zones: &BTreeSet<u32>) -> io::Result<()> {
        self.refuse_if_read_only()?;
        let next = ZoneStates { fail_next_write: zones.clone(), ..self.states.clone() };
        self.write_states(next)
    }

    fn keeps_data(&self) -> bool {
        self.data == DataMode::Files
    }

    fn close(&mut self, table: &ZoneTable) -> io::Result<()> {
        if !std::mem::replace(&mut self.writable, false) {
            return Ok(());
        }
        let g = table.geometry();
        let active =
            (g.nr_conv_zones..g.nr_zones).map(|i| (i, table.zone(i).cond)).filter(|(_, c)| c.is_active()).collect();
        let clean = CleanClose { active, eviction: table.eviction_state() };
        let next = ZoneStates { boot_id: Some(self.dir.boot_id()?), clean: Some(clean), ..self.states.clone() };
        self.write_states(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory whose writes stop half-way, failing.
    struct HalfWrites(FsZoneDir);

    impl ZoneDir for HalfWrites {
        fn path(&self) -> &Path {
            self.0.path()
        }
        fn list(&mut self) -> io::Result<Vec<String>> {
            self.0.list()
        }
        fn read_small(&mut self, name: &str) -> io::Result<Option<Vec<u8>>> {
            self.0.read_small(name)
        }
        fn replace(&mut self, name: &str, data: &[u8]) -> io::Result<()> {
            self.0.replace(name, data)
        }
        fn file_len(&mut self, name: &str) -> io::Result<u64> {
            self.0.file_len(name)
        }
        fn read_at(&mut self, name: &str, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
            self.0.read_at(name, offset, buf)
        }
        fn write_at(&mut self, name: &str, offset: u64, data: &[u8]) -> io::Result<bool> {
            self.0.write_at(name, offset, &data[..data.len() / 2])?;
            Err(io::Error::from_raw_os_error(libc::ENOSPC))
        }
        fn truncate(&mut self, name: &str, len: u64) -> io::Result<()> {
            self.0.truncate(name, len)
        }
        fn set_len(&mut self, name: &str, len: u64) -> io::Result<bool> {
            self.0.set_len(name, len)
        }
        fn remove(&mut self, name: &str) -> io::Result<()> {
            self.0.remove(name)
        }
        fn sync_file(&mut self, name: &str) -> io::Result<()> {
            self.0.sync_file(name)
        }
        fn sync_dir(&mut self) -> io::Result<()> {
            self.0.sync_dir()
        }
        fn boot_id(&mut self) -> io::Result<String> {
            self.0.boot_id()
        }
    }

    #[test]
    fn a_failed_write_leaves_the_file_end_at_the_write_pointer() {
        let tmp = tempfile::tempdir().unwrap();
        let g = geo();
        let store = |dir: Box<dyn ZoneDir>, files| {
            DirStore::new(dir, g.clone(), DataMode::Files, files, ZoneStates::default(), true)
        };
        let mut ok = store(Box::new(FsZoneDir::new(tmp.path())), ZoneFiles::none(&g));
        ok.write(3, 0, &[1u8; 1024]).unwrap();
        let files = ZoneFiles { has_file: ok.has_file.clone(), lens: ok.lens.clone() };
        let mut s = store(Box::new(HalfWrites(FsZoneDir::new(tmp.path()))), files);
        assert_eq!(s.write(3, 1024, &[2u8; 2048]).unwrap_err().raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(std::fs::metadata(tmp.path().join("seq-000003")).unwrap().len(), 1024);
        // A new file is known, and the directory will be synced.
        assert!(s.write(4, 0, &[2u8; 2048]).is_err());
        assert!(s.has_file[4] && s.dir_dirty && s.dirty.contains(&4));
        assert_eq!(std::fs::metadata(tmp.path().join("seq-000004")).unwrap().len(), 0);
        // Conventional zones keep what was written.
        assert!(s.write(1, 4096, &[2u8; 2048]).is_err());
        assert_eq!(std::fs::metadata(tmp.path().join("cnv-000001")).unwrap().len(), 4096 + 1024);
    }

    fn geo() -> Geometry {
        Geometry::with_zones(64, 8, 64, 2, 512).unwrap()
    }

    #[test]
    fn zone_file_names_round_trip() {
        let g = geo();
        assert_eq!(zone_file_name(&g, 1), "cnv-000001");
        assert_eq!(zone_file_name(&g, 7), "seq-000007");
        for i in 0..8 {
            assert_eq!(parse_zone_file_name(&g, &zone_file_name(&g, i)), Ok(i));
        }
        assert_eq!(zone_file_name(&g, 1_234_567), "seq-1234567");
        for bad in ["seq-7", "seq-0000007", "seq-00000x", "seq-+00007", "seq-", "seq-000007.tmp"] {
            assert!(parse_zone_file_name(&g, bad).unwrap_err().contains("not a zone number"), "{bad}");
        }
        assert!(parse_zone_file_name(&g, "seq-000008").unwrap_err().contains("past the last zone"));
        assert!(parse_zone_file_name(&g, "cnv-000002").unwrap_err().contains("sequential"));
        assert!(parse_zone_file_name(&g, "seq-000001").unwrap_err().contains("conventional"));
    }
}
