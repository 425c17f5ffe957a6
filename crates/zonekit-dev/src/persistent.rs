//! Persistent emulated devices: a directory laid out as the kernel's zoned loop driver (zloop) lays
//! out its backing directory, so that crash consistency falls out of the file system instead of a
//! journal.
//!
//! - `zonekit.meta`: the device configuration and data mode ([`Meta`], JSON), written once at
//!   creation, atomically;
//! - `cnv-NNNNNN` / `seq-NNNNNN`: one file per zone, created on its first write; a sequential
//!   zone's file size is its write pointer (with `--data none`, the files are sparse and empty:
//!   only their sizes count);
//! - `zones.state`: finished, read-only and offline zones, the session's boot, and after a clean
//!   close every open and closed zone with the eviction state ([`ZoneStates`]).
//!
//! Reopening after a clean close in the same boot restores every zone as it was, open ones
//! included, as a device that stayed powered keeps them. Otherwise (a crash, or a restart of the
//! machine) each sequential zone's condition comes from its file, as after a power cycle: no file
//! or an empty one is empty, a partial one closed (open zones come back closed, as zloop does at
//! every start), one of the zone capacity full; `zones.state` overrides that for the finished,
//! read-only and offline zones. A file whose size is not a multiple of the logical block size ends
//! with a write cut short by a crash, never acknowledged: a writable open trims it to its last
//! whole block. Anything else out of place is [`DeviceError::Corrupt`], naming the file, and the
//! directory is left as it was. A read-only open changes nothing in the directory.

use crate::config::{DataMode, DeviceConfig, Meta};
use crate::emulated::{EmulatedDevice, device_info};
use crate::store::{
    DirStore, FsZoneDir, RareCond, STATE_FILE, ZoneDir, ZoneFiles, ZoneStates, looks_like_zone_file,
    parse_zone_file_name, zone_file_name,
};
use std::io;
use std::path::Path;
use zonekit_core::{DeviceError, DeviceKind, INVALID_WP, SECTOR_SIZE, ZoneCond, ZoneTable};

/// Name of the metadata file.
pub const META_FILE: &str = "zonekit.meta";

/// Create a persistent device keeping `data` in directory `path` (created if missing; an existing
/// one must be empty). The device's spec is the path.
pub fn create_dir(path: &Path, config: &DeviceConfig, data: DataMode) -> Result<EmulatedDevice, DeviceError> {
    let shown = path.display().to_string();
    // A symbolic link to an empty directory is that directory, as it is when the device is opened.
    match std::fs::metadata(path) {
        Ok(m) if !m.is_dir() => {
            let e = io::Error::from_raw_os_error(libc::ENOTDIR);
            return Err(DeviceError::io(format!("{shown}: exists and is not a directory"), e));
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound && std::fs::symlink_metadata(path).is_ok() => {
            return Err(DeviceError::io(format!("{shown}: a symbolic link to nothing"), e));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::create_dir_all(path)
                .map_err(|e| DeviceError::io(format!("{shown}: creating the directory"), e))?;
            // Make the new directory's own entry durable.
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            std::fs::File::open(parent).and_then(|d| d.sync_all()).map_err(|e| DeviceError::io(&shown, e))?;
        }
        Err(e) => return Err(DeviceError::io(shown, e)),
    }
    let mut dir = FsZoneDir::new(path);
    dir.lock().map_err(|e| DeviceError::io(format!("{shown}: locking the device"), e))?;
    create_in(Box::new(dir), &shown, config, data)
}

/// Create a persistent device keeping `data` in `dir`, which must be empty: write its metadata
/// and return it. Nothing is allocated for the zones: their files come with their first write.
pub fn create_in(
    mut dir: Box<dyn ZoneDir>,
    spec: &str,
    config: &DeviceConfig,
    data: DataMode,
) -> Result<EmulatedDevice, DeviceError> {
    let root = dir.path().to_path_buf();
    let names = dir.list().map_err(|e| DeviceError::io(root.display().to_string(), e))?;
    if names.iter().any(|n| n == META_FILE) {
        return Err(DeviceError::io(
            format!("{}: a device already exists here", root.join(META_FILE).display()),
            io::Error::from_raw_os_error(libc::EEXIST),
        ));
    }
    if !names.is_empty() {
        return Err(DeviceError::io(
            format!("{}: refusing to create a device in a directory that is not empty", root.display()),
            io::Error::from_raw_os_error(libc::ENOTEMPTY),
        ));
    }
    let meta = config.to_meta(data);
    check_config(&meta)
        .and_then(|c| {
            // Whatever the metadata format cannot hold would be lost at the first reopen.
            if c == *config { Ok(()) } else { Err("this configuration cannot be stored (the metadata format has no host-aware zone type nor physical block size)".into()) }
        })
        .map_err(|why| DeviceError::Unsupported(format!("{spec}: {why}")))?;
    let mut json = serde_json::to_vec_pretty(&meta).expect("metadata serialises");
    json.push(b'\n');
    dir.replace(META_FILE, &json).map_err(|e| DeviceError::io(root.join(META_FILE).display().to_string(), e))?;
    let g = config.geometry.clone();
    let mut store = DirStore::new(dir, g.clone(), data, ZoneFiles::none(&g), ZoneStates::default(), true);
    store.begin_session().map_err(|e| DeviceError::io(root.join(STATE_FILE).display().to_string(), e))?;
    let kind = DeviceKind::Emulated { store: "dir".into(), profile: config.profile.clone() };
    Ok(EmulatedDevice::new(spec, kind, config, Box::new(store)))
}

/// Open the persistent device in directory `path`, under the name `spec`; for writing when
/// `writable` (a read-only device refuses writes and zone changes, and leaves the directory as it
/// is).
pub fn open_dir(path: &Path, spec: &str, writable: bool) -> Result<EmulatedDevice, DeviceError> {
    let mut dir = FsZoneDir::new(path);
    dir.lock().map_err(|e| DeviceError::io(format!("{spec}: locking the device"), e))?;
    open_in(Box::new(dir), spec, writable)
}

/// What happened since `zones.state` was last written, as its `boot` tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Since {
    /// Written in the running boot: the device was closed cleanly, or its process killed; the
    /// page cache kept every acknowledged write.
    SameBoot,
    /// Written in an earlier boot: the machine restarted, maybe losing power with the device open.
    Restart,
    /// No boot recorded (written by a zonekit before it recorded one): trust the files, as it did.
    Unknown,
}

/// A stored configuration, checked as a new device is (emulated devices need a power-of-two zone
/// size, as the kernel does).
fn check_config(meta: &Meta) -> Result<DeviceConfig, String> {
    let config = DeviceConfig::from_meta(meta)?;
    let zone_size = config.geometry.zone_size;
    if !zone_size.is_power_of_two() {
        return Err(format!("zone size {zone_size} sectors is not a power of two"));
    }
    Ok(config)
}

/// Open the persistent device in `dir`, under the name `spec`: check every file, restore each
/// zone's condition and write pointer (as they were at a clean close in this boot, else as after
/// a power cycle), and, when `writable`, trim torn tails and start a session in `zones.state`.
pub fn open_in(mut dir: Box<dyn ZoneDir>, spec: &str, writable: bool) -> Result<EmulatedDevice, DeviceError> {
    let root = dir.path().to_path_buf();
    let file = |name: &str| root.join(name).display().to_string();
    let corrupt = |name: &str, why: &dyn std::fmt::Display| DeviceError::Corrupt(format!("{}: {why}", file(name)));
    let io_err = |name: &str, e: io::Error| DeviceError::io(file(name), e);
    // A file that is not what it should be (a directory, a FIFO, far too large): the directory
    // is damaged, not unreadable.
    let read_err = |name: &str, e: io::Error| match e.kind() {
        io::ErrorKind::InvalidData => corrupt(name, &e),
        _ => io_err(name, e),
    };

    let names = dir.list().map_err(|e| DeviceError::io(root.display().to_string(), e))?;
    let mut zone_names: Vec<&String> = names.iter().filter(|n| looks_like_zone_file(n)).collect();
    zone_names.sort();
    let Some(meta) = dir.read_small(META_FILE).map_err(|e| read_err(META_FILE, e))? else {
        if zone_names.is_empty() {
            return Err(DeviceError::Unsupported(format!(
                "{}: not a zonekit device directory (no {META_FILE})",
                root.display()
            )));
        }
        return Err(corrupt(
            META_FILE,
            &format_args!("missing, but the directory holds zone files ({})", zone_names[0]),
        ));
    };
    let meta: Meta =
        serde_json::from_slice(&meta).map_err(|e| corrupt(META_FILE, &format_args!("not device metadata: {e}")))?;
    let config = check_config(&meta).map_err(|e| corrupt(META_FILE, &e))?;
    let g = &config.geometry;
    let lbs = u64::from(g.logical_block_size);

    // Check everything before changing anything.
    let mut sizes: Vec<Option<u64>> = vec![None; g.nr_zones as usize];
    for name in zone_names {
        let idx = parse_zone_file_name(g, name).map_err(|e| corrupt(name, &e))?;
        let len = dir.file_len(name).map_err(|e| read_err(name, e))?;
        let room = if g.is_conventional(idx) { g.zone_len(idx) } else { g.zone_cap(idx) } * SECTOR_SIZE;
        if len > room {
            let what = if g.is_conventional(idx) { "zone size" } else { "zone capacity" };
            return Err(corrupt(name, &format_args!("{len} bytes, larger than the {what} ({room} bytes)")));
        }
        sizes[idx as usize] = Some(len);
    }
    let states = match dir.read_small(STATE_FILE).map_err(|e| read_err(STATE_FILE, e))? {
        Some(data) => ZoneStates::parse(g, &data).map_err(|e| corrupt(STATE_FILE, &e))?,
        None => ZoneStates::default(),
    };
    let boot = dir.boot_id().map_err(|e| DeviceError::io(format!("{spec}: reading the boot id"), e))?;
    let since = match states.boot_id.as_deref() {
        None => Since::Unknown,
        Some(b) if b == boot => Since::SameBoot,
        Some(_) => Since::Restart,
    };
    // A clean close is trusted in the boot that wrote it only: a restart of the machine is a power
    // cycle of the device.
    let clean = states.clean.as_ref().filter(|_| since == Since::SameBoot);

    // How much of each zone file is the zone's data: whole blocks (a write cut short by a crash was
    // never acknowledged), and after a restart no more than a flush made durable (beyond, the file
    // may hold any part of the unflushed writes, and zeros where they did not survive).
    let mut files = ZoneFiles::none(g);
    for (idx, size) in sizes.iter().enumerate() {
        let Some(len) = *size else { continue };
        let i = idx as u32;
        let whole = len - len % lbs;
        files.has_file[idx] = true;
        files.lens[idx] = match states.synced.get(&i) {
            _ if since != Since::Restart || g.is_conventional(i) || states.rare.contains_key(&i) => whole,
            Some(&synced) if whole >= synced => synced,
            // Shorter than its synced length: a new file since a reset, none of it flushed.
            _ => 0,
        };
    }

    let mut table = ZoneTable::new(g.clone(), config.limits, config.personality);
    let state_file = STATE_FILE.to_string();
    for idx in g.nr_conv_zones..g.nr_zones {
        let rare = states.rare.get(&idx).copied();
        let listed = clean.and_then(|c| c.active.get(&idx)).copied();
        if !files.has_file[idx as usize] && rare.is_none() && listed.is_none() {
            continue;
        }
        let start = g.zone_start(idx);
        let written = files.lens[idx as usize] / SECTOR_SIZE;
        let name = zone_file_name(g, idx);
        let (cond, wp, blame) = match (rare, clean) {
            (Some(RareCond::Full), _) => (ZoneCond::Full, start + g.zone_len(idx), &name),
            (Some(c), _) => (c.cond(), INVALID_WP, &name),
            (None, Some(_)) => {
                // A clean close listed every open and closed zone; the others say what their
                // file says.
                let cond = match listed {
                    Some(c) => c,
                    None if written == 0 => ZoneCond::Empty,
                    None if written == g.zone_cap(idx) => ZoneCond::Full,
                    None => {
                        let why = format!("zone {idx} holds data but the clean close lists it neither open nor closed");
                        return Err(corrupt(STATE_FILE, &why));
                    }
                };
                (cond, start + written, &state_file)
            }
            (None, None) => {
                table.restore_zone(idx, ZoneCond::Closed, start + written).map_err(|e| corrupt(&name, &e))?;
                continue;
            }
        };
        table.resume_zone(idx, cond, wp).map_err(|e| corrupt(blame, &e))?;
    }
    // A running device never has more open zones than its open limit (explicit opens are refused
    // at it, implicit ones evict), so a clean close never lists more: such a state was edited, or
    // written for other limits. (Not so for the active limit: a reset lost to a power failure
    // brings its zone back, closed, beyond it.)
    let (open, max_open) = (table.counters().open(), config.limits.max_open);
    if max_open > 0 && open > max_open {
        let why = format!("{open} zones are open, more than the open limit ({max_open})");
        return Err(corrupt(STATE_FILE, &why));
    }
    if let Some(c) = clean {
        table.resume_eviction(&c.eviction).map_err(|e| corrupt(STATE_FILE, &e))?;
    }

    let mut states = states;
    if writable {
        // Cut each file to its data (a torn tail; after a restart, what no flush made durable),
        // durably: a second power loss must not bring the rest back.
        for (idx, size) in sizes.iter().enumerate() {
            if size.is_some_and(|len| len != files.lens[idx]) {
                let name = zone_file_name(g, idx as u32);
                let keep = files.lens[idx];
                dir.truncate(&name, keep).and_then(|()| dir.sync_file(&name)).map_err(|e| io_err(&name, e))?;
            }
        }
        if since == Since::Unknown {
            // Written by a zonekit that recorded neither boots nor synced lengths: make every file
            // durable now, so that from here on a restart can be told and cut back safely.
            for idx in (0..g.nr_zones).filter(|&i| files.has_file[i as usize]) {
                let name = zone_file_name(g, idx);
                dir.sync_file(&name).map_err(|e| io_err(&name, e))?;
                if !g.is_conventional(idx) && !states.rare.contains_key(&idx) {
                    states.synced.insert(idx, files.lens[idx as usize]);
                }
            }
            dir.sync_dir().map_err(|e| DeviceError::io(root.display().to_string(), e))?;
        }
    }
    let data = meta.data_mode().map_err(|e| corrupt(META_FILE, &e))?;
    let mut store = DirStore::new(dir, g.clone(), data, files, states, writable);
    if writable {
        // From here on, a crash must not find the clean-close section.
        store.begin_session().map_err(|e| io_err(STATE_FILE, e))?;
        store.assume_unsynced();
    }
    let kind = DeviceKind::Emulated { store: "dir".into(), profile: config.profile.clone() };
    Ok(EmulatedDevice::from_table(device_info(spec, kind, &config), table, Box::new(store)).with_model(config.model))
}
