//! The directory store: one file per zone, laid out as the kernel's zoned loop driver (zloop) lays
//! out its backing directory, plus a small file for the zone conditions that file sizes cannot
//! express.
//!
//! - `cnv-NNNNNN` / `seq-NNNNNN` (zone number, at least 6 digits): created on the zone's first
//!   write. A sequential zone's file size is its write pointer; conventional zone files are sparse.
//! - `zones.state`: lines `full N` (a finished zone), `read_only N`, `offline N`, replaced
//!   atomically whenever it changes. Absent or empty: no such zone.
//!
//! A reset removes the zone's file rather than truncating it, as zloop does: on ext4, truncating a
//! file with synced blocks and dirty pages writes the pages out first (milliseconds), an unlink
//! does not. The directory layout is the same either way (no file: an empty zone).
//!
//! Durability rules (what makes a crash leave a consistent device, see `docs/devices.md`):
//! - writes and resets of unlisted zones become durable at [`Store::flush`], which fsyncs every
//!   zone file written since the last flush, then the directory if a zone file was created or
//!   removed;
//! - before a zone is added to `zones.state`, its file (and the directory, if it changed) is
//!   synced, so the state never names data that a power loss could take away;
//! - a zone leaves `zones.state` before its data is discarded (state first, then remove, then
//!   fsync the directory): a crash in between leaves the old data with a write pointer matching
//!   it, never a write pointer without data.
//!
//! All file operations go through [`ZoneDir`], so that tests can put a power-loss model under the
//! store; [`FsZoneDir`] is the real one.

use super::Store;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use zonekit_core::{Action, Geometry, Transition, ZoneCond, ZoneOp, ZoneType};

/// Name of the rare-state file.
pub const STATE_FILE: &str = "zones.state";

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

    /// Remove a file (a missing one is not an error).
    fn remove(&mut self, name: &str) -> io::Result<()>;

    /// Make a file's content and size durable (`fdatasync`).
    fn sync_file(&mut self, name: &str) -> io::Result<()>;

    /// Make the directory's entries durable (`fsync` of the directory).
    fn sync_dir(&mut self) -> io::Result<()>;
}

/// [`ZoneDir`] over a real directory, keeping at most [`MAX_OPEN_FILES`] files open.
#[derive(Debug)]
pub struct FsZoneDir {
    root: PathBuf,
    files: HashMap<String, File>,
    /// The directory itself, locked exclusively while the device is open.
    lock: Option<File>,
}

impl FsZoneDir {
    /// The directory at `root` (not checked until used).
    pub fn new(root: impl Into<PathBuf>) -> FsZoneDir {
        FsZoneDir { root: root.into(), files: HashMap::new(), lock: None }
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
        match std::fs::read(self.root.join(name)) {
            Ok(data) => Ok(Some(data)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
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
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("{}: not a regular file", path.display())));
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
}

/// A zone condition that file sizes cannot express, recorded in `zones.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RareCond {
    /// Finished: full with the write pointer at the zone end, the file possibly shorter.
    Full,
    /// Read-only (fault injection).
    ReadOnly,
    /// Offline (fault injection).
    Offline,
}

impl RareCond {
    /// The word used in `zones.state` (the zone condition's long name).
    pub fn name(self) -> &'static str {
        self.cond().long_name()
    }

    /// The zone condition.
    pub fn cond(self) -> ZoneCond {
        match self {
            RareCond::Full => ZoneCond::Full,
            RareCond::ReadOnly => ZoneCond::ReadOnly,
            RareCond::Offline => ZoneCond::Offline,
        }
    }

    fn from_name(s: &str) -> Option<RareCond> {
        [RareCond::Full, RareCond::ReadOnly, RareCond::Offline].into_iter().find(|c| c.name() == s)
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

/// The content of `zones.state` for `states`, one `COND ZONE` line per zone in zone order.
pub fn format_zone_states(states: &BTreeMap<u32, RareCond>) -> String {
    states.iter().map(|(z, c)| format!("{} {z}\n", c.name())).collect()
}

/// Parse `zones.state`: every line `full|read_only|offline ZONE`, naming a sequential zone once.
pub(crate) fn parse_zone_states(geometry: &Geometry, data: &[u8]) -> Result<BTreeMap<u32, RareCond>, String> {
    let text = std::str::from_utf8(data).map_err(|_| "not UTF-8 text".to_string())?;
    let mut states = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let at = |why: String| format!("line {}: {why}", n + 1);
        let mut words = line.split(' ');
        let (Some(cond), Some(zone), None) = (words.next(), words.next(), words.next()) else {
            return Err(at(format!("'{line}' is not `full|read_only|offline ZONE`")));
        };
        let cond = RareCond::from_name(cond)
            .ok_or_else(|| at(format!("unknown condition '{cond}' (expected full, read_only or offline)")))?;
        let idx = zone
            .parse::<u32>()
            .ok()
            .filter(|_| zone.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| at(format!("'{zone}' is not a zone number")))?;
        if idx >= geometry.nr_zones {
            return Err(at(format!("zone {idx} is past the last zone ({} zones)", geometry.nr_zones)));
        }
        if geometry.is_conventional(idx) {
            return Err(at(format!("zone {idx} is conventional")));
        }
        if states.insert(idx, cond).is_some() {
            return Err(at(format!("zone {idx} is listed twice")));
        }
    }
    Ok(states)
}

/// The persistent store of an emulated device directory (see the module documentation).
/// Built by [`crate::persistent::create_in`] and [`crate::persistent::open_in`].
pub struct DirStore {
    dir: Box<dyn ZoneDir>,
    geometry: Geometry,
    /// Zones whose file exists.
    has_file: Vec<bool>,
    /// What `zones.state` holds.
    states: BTreeMap<u32, RareCond>,
    /// Zone files written since they were last synced.
    dirty: BTreeSet<u32>,
    /// A zone file was created or removed since the directory was last synced.
    dir_dirty: bool,
}

impl std::fmt::Debug for DirStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirStore")
            .field("dir", &self.dir.path())
            .field("states", &self.states)
            .field("dirty", &self.dirty)
            .finish_non_exhaustive()
    }
}

impl DirStore {
    /// A store over `dir` whose zone files (`has_file`, one flag per zone) and `zones.state`
    /// (`states`) were checked by the caller.
    pub(crate) fn new(
        dir: Box<dyn ZoneDir>,
        geometry: Geometry,
        has_file: Vec<bool>,
        states: BTreeMap<u32, RareCond>,
    ) -> DirStore {
        debug_assert_eq!(has_file.len(), geometry.nr_zones as usize);
        DirStore { dir, geometry, has_file, states, dirty: BTreeSet::new(), dir_dirty: false }
    }

    fn name(&self, zone: u32) -> String {
        zone_file_name(&self.geometry, zone)
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

    /// Record zone `zone`'s rare condition (`None`: it has none) in `zones.state`.
    fn set_state(&mut self, zone: u32, cond: Option<RareCond>) -> io::Result<()> {
        let mut next = self.states.clone();
        match cond {
            Some(c) => next.insert(zone, c),
            None => next.remove(&zone),
        };
        if next != self.states {
            self.dir.replace(STATE_FILE, format_zone_states(&next).as_bytes())?;
            self.states = next;
        }
        Ok(())
    }

    /// Discard zone `zone`'s data.
    fn discard(&mut self, zone: u32) -> io::Result<()> {
        let listed = self.states.get(&zone).copied();
        if listed.is_some() {
            // State first: a crash before the removal leaves the old data, unlisted, with a
            // write pointer that matches it.
            self.set_state(zone, None)?;
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
        self.dirty.remove(&zone);
        self.dir_dirty = true;
        if listed.is_some() {
            // The zone was not active while listed; making the removal durable now keeps it from
            // coming back active after a power loss (which could exceed the active limit).
            self.sync_dir()?;
        }
        Ok(())
    }

    /// Zones listed in `zones.state`.
    pub fn rare_states(&self) -> &BTreeMap<u32, RareCond> {
        &self.states
    }
}

impl Store for DirStore {
    fn name(&self) -> &'static str {
        "dir"
    }

    fn read(&mut self, zone: u32, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let n = if self.has_file[zone as usize] {
            let name = self.name(zone);
            self.dir.read_at(&name, offset, buf)?
        } else {
            0
        };
        // Past the end of a file: a finished or read-only zone, or a hole of a conventional zone.
        buf[n..].fill(0);
        Ok(())
    }

    fn write(&mut self, zone: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        let name = self.name(zone);
        match self.dir.write_at(&name, offset, data) {
            Ok(created) => {
                self.has_file[zone as usize] = true;
                self.dir_dirty |= created;
                self.dirty.insert(zone);
                Ok(())
            }
            Err(e) => {
                // The file may have been created, and written in part, before the failure.
                self.dir_dirty = true;
                if self.dir.file_len(&name).is_ok() {
                    self.has_file[zone as usize] = true;
                    self.dirty.insert(zone);
                    if self.geometry.zone_type(zone) == ZoneType::SeqWriteRequired {
                        // The write pointer stays where it was (the write failed): so must the
                        // file's end. Host-aware zones may be written below their write pointer,
                        // where this would cut acknowledged data.
                        let _ = self.dir.truncate(&name, offset);
                    }
                }
                Err(e)
            }
        }
    }

    fn zone_changed(&mut self, t: &Transition) -> io::Result<()> {
        if t.discards_data() {
            return self.discard(t.zone);
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
        while let Some(&zone) = self.dirty.first() {
            let name = self.name(zone);
            self.dir.sync_file(&name)?;
            self.dirty.remove(&zone);
        }
        self.sync_dir()
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
        fn remove(&mut self, name: &str) -> io::Result<()> {
            self.0.remove(name)
        }
        fn sync_file(&mut self, name: &str) -> io::Result<()> {
            self.0.sync_file(name)
        }
        fn sync_dir(&mut self) -> io::Result<()> {
            self.0.sync_dir()
        }
    }

    #[test]
    fn a_failed_write_leaves_the_file_end_at_the_write_pointer() {
        let tmp = tempfile::tempdir().unwrap();
        let g = geo();
        let mut ok = DirStore::new(Box::new(FsZoneDir::new(tmp.path())), g.clone(), vec![false; 8], BTreeMap::new());
        ok.write(3, 0, &[1u8; 1024]).unwrap();
        let mut s = DirStore::new(Box::new(HalfWrites(FsZoneDir::new(tmp.path()))), g, vec![false; 8], BTreeMap::new());
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

    #[test]
    fn zone_states_round_trip_and_errors() {
        let g = geo();
        let states = BTreeMap::from([(2, RareCond::Full), (5, RareCond::ReadOnly), (7, RareCond::Offline)]);
        let text = format_zone_states(&states);
        assert_eq!(text, "full 2\nread_only 5\noffline 7\n");
        assert_eq!(parse_zone_states(&g, text.as_bytes()), Ok(states));
        assert_eq!(parse_zone_states(&g, b""), Ok(BTreeMap::new()));
        for (bad, why) in [
            ("full 2\n\n", "line 2"),
            ("full  2\n", "is not `full"),
            ("closed 3\n", "unknown condition 'closed'"),
            ("full x\n", "'x' is not a zone number"),
            ("full +3\n", "'+3' is not a zone number"),
            ("full 8\n", "past the last zone"),
            ("offline 1\n", "zone 1 is conventional"),
            ("full 3\nread_only 3\n", "line 2: zone 3 is listed twice"),
        ] {
            let e = parse_zone_states(&g, bad.as_bytes()).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }
}
