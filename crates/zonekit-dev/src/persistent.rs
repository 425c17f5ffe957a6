//! Persistent emulated devices: a directory laid out as the kernel's zoned loop driver (zloop) lays
//! out its backing directory, so that crash consistency falls out of the file system instead of a
//! journal.
//!
//! - `zonekit.meta`: the device configuration ([`Meta`], JSON), written once at creation,
//!   atomically;
//! - `cnv-NNNNNN` / `seq-NNNNNN`: one file per zone, created on its first write; a sequential
//!   zone's file size is its write pointer;
//! - `zones.state`: finished, read-only and offline zones (see [`crate::store::DirStore`]).
//!
//! Reopening derives every sequential zone's condition from its file: no file or an empty one is
//! empty, a partial one closed (open zones come back closed, as zloop does), one of the zone
//! capacity full; `zones.state` overrides that for the zones it lists. A file whose size is not a
//! multiple of the logical block size ends with a write cut short by a crash, never acknowledged:
//! it is trimmed to its last whole block. Anything else out of place is [`DeviceError::Corrupt`],
//! naming the file, and the directory is left as it was.

use crate::config::{DeviceConfig, Meta};
use crate::emulated::{EmulatedDevice, device_info};
use crate::store::{
    DirStore, FsZoneDir, RareCond, STATE_FILE, ZoneDir, looks_like_zone_file, parse_zone_file_name, parse_zone_states,
    zone_file_name,
};
use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use zonekit_core::{DeviceError, DeviceKind, INVALID_WP, SECTOR_SIZE, ZoneCond, ZoneTable};

/// Name of the metadata file.
pub const META_FILE: &str = "zonekit.meta";

/// Create a persistent device in directory `path` (created if missing; an existing one must be
/// empty). The device's spec is the path.
pub fn create_dir(path: &Path, config: &DeviceConfig) -> Result<EmulatedDevice, DeviceError> {
    let shown = path.display().to_string();
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_dir() => return Err(DeviceError::io(shown, io::Error::from_raw_os_error(libc::ENOTDIR))),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::create_dir_all(path).map_err(|e| DeviceError::io(&shown, e))?;
            // Make the new directory's own entry durable.
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            std::fs::File::open(parent).and_then(|d| d.sync_all()).map_err(|e| DeviceError::io(&shown, e))?;
        }
        Err(e) => return Err(DeviceError::io(shown, e)),
    }
    let mut dir = FsZoneDir::new(path);
    dir.lock().map_err(|e| DeviceError::io(format!("{shown}: locking the device"), e))?;
    create_in(Box::new(dir), &shown, config)
}

/// Create a persistent device in `dir`, which must be empty: write its metadata and return it.
pub fn create_in(mut dir: Box<dyn ZoneDir>, spec: &str, config: &DeviceConfig) -> Result<EmulatedDevice, DeviceError> {
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
    let meta = config.to_meta();
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
    let has_file = vec![false; g.nr_zones as usize];
    let store = DirStore::new(dir, g, has_file, BTreeMap::new());
    let kind = DeviceKind::Emulated { store: "dir".into(), profile: config.profile.clone() };
    Ok(EmulatedDevice::new(spec, kind, config, Box::new(store)))
}

/// Open the persistent device in directory `path`, under the name `spec`.
pub fn open_dir(path: &Path, spec: &str) -> Result<EmulatedDevice, DeviceError> {
    let mut dir = FsZoneDir::new(path);
    dir.lock().map_err(|e| DeviceError::io(format!("{spec}: locking the device"), e))?;
    open_in(Box::new(dir), spec)
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

/// Open the persistent device in `dir`, under the name `spec`: check every file, trim torn
/// tails, and restore each zone's condition and write pointer.
pub fn open_in(mut dir: Box<dyn ZoneDir>, spec: &str) -> Result<EmulatedDevice, DeviceError> {
    let root = dir.path().to_path_buf();
    let file = |name: &str| root.join(name).display().to_string();
    let corrupt = |name: &str, why: &dyn std::fmt::Display| DeviceError::Corrupt(format!("{}: {why}", file(name)));
    let io_err = |name: &str, e: io::Error| DeviceError::io(file(name), e);

    let names = dir.list().map_err(|e| DeviceError::io(root.display().to_string(), e))?;
    let mut zone_names: Vec<&String> = names.iter().filter(|n| looks_like_zone_file(n)).collect();
    zone_names.sort();
    let Some(meta) = dir.read_small(META_FILE).map_err(|e| io_err(META_FILE, e))? else {
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
        let len = dir.file_len(name).map_err(|e| io_err(name, e))?;
        let room = if g.is_conventional(idx) { g.zone_len(idx) } else { g.zone_cap(idx) } * SECTOR_SIZE;
        if len > room {
            let what = if g.is_conventional(idx) { "zone size" } else { "zone capacity" };
            return Err(corrupt(name, &format_args!("{len} bytes, larger than the {what} ({room} bytes)")));
        }
        sizes[idx as usize] = Some(len);
    }
    let states = match dir.read_small(STATE_FILE).map_err(|e| io_err(STATE_FILE, e))? {
        Some(data) => parse_zone_states(g, &data).map_err(|e| corrupt(STATE_FILE, &e))?,
        None => BTreeMap::new(),
    };

    let mut table = ZoneTable::new(g.clone(), config.limits, config.personality);
    for idx in g.nr_conv_zones..g.nr_zones {
        let size = sizes[idx as usize];
        let state = states.get(&idx).copied();
        if size.is_none() && state.is_none() {
            continue;
        }
        let start = g.zone_start(idx);
        let written = size.unwrap_or(0) / SECTOR_SIZE / g.lbs_sectors() * g.lbs_sectors();
        let (cond, wp) = match state {
            None => (ZoneCond::Closed, start + written),
            Some(RareCond::Full) => (ZoneCond::Full, start + g.zone_len(idx)),
            Some(c) => (c.cond(), INVALID_WP),
        };
        let name = zone_file_name(g, idx);
        table.restore_zone(idx, cond, wp).map_err(|e| corrupt(&name, &e))?;
    }

    // A write cut short by a crash was never acknowledged: drop its partial last block.
    for (idx, size) in sizes.iter_mut().enumerate() {
        if let Some(len) = size.filter(|len| !len.is_multiple_of(lbs)) {
            let name = zone_file_name(g, idx as u32);
            let whole = len - len % lbs;
            dir.truncate(&name, whole).and_then(|()| dir.sync_file(&name)).map_err(|e| io_err(&name, e))?;
            *size = Some(whole);
        }
    }

    let has_file = sizes.iter().map(Option::is_some).collect();
    let store = DirStore::new(dir, g.clone(), has_file, states);
    let kind = DeviceKind::Emulated { store: "dir".into(), profile: config.profile.clone() };
    Ok(EmulatedDevice::from_table(device_info(spec, kind, &config), table, Box::new(store)))
}
