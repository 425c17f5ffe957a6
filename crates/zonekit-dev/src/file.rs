//! Regular files and non-zoned block devices with emulated zones, as fio's `zonemode=zbd` treats
//! them: every zone sequential-write-required and empty at each open, nothing persisted but the data.

use crate::config::DeviceConfig;
use crate::emulated::EmulatedDevice;
use crate::store::Store;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use zonekit_core::{DeviceError, DeviceKind, Geometry, Limits, Personality, SECTOR_SIZE, Transition};

/// A store that writes straight into a file (or block device) at the zone's byte offset; resets
/// leave the data in place (zones restart empty anyway).
#[derive(Debug)]
pub struct FileStore {
    file: File,
    zone_bytes: u64,
}

impl FileStore {
    /// Wrap an open file whose zones are `zone_size` sectors.
    pub fn new(file: File, zone_size: u64) -> FileStore {
        FileStore { file, zone_bytes: zone_size * SECTOR_SIZE }
    }
}

impl Store for FileStore {
    fn name(&self) -> &'static str {
        "file"
    }

    fn read(&mut self, zone: u32, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let pos = u64::from(zone) * self.zone_bytes + offset;
        let mut done = 0;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], pos + done as u64) {
                Ok(0) => {
                    buf[done..].fill(0);
                    break;
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn write(&mut self, zone: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        self.file.write_all_at(data, u64::from(zone) * self.zone_bytes + offset)
    }

    fn zone_changed(&mut self, _t: &Transition) -> io::Result<()> {
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// Open `file` (of `size_bytes`) with emulated zones of `zone_size` bytes (a multiple of 512, as
/// fio accepts) and an optional capacity. The last zone is shorter when the size is not a multiple.
pub fn open_file_zoned(
    spec: &str,
    file: File,
    size_bytes: u64,
    zone_size: u64,
    zone_capacity: Option<u64>,
) -> Result<EmulatedDevice, DeviceError> {
    let bad = |m: String| DeviceError::Unsupported(format!("{spec}: {m}"));
    if zone_size < SECTOR_SIZE || !zone_size.is_multiple_of(SECTOR_SIZE) {
        return Err(bad(format!("zone size {zone_size} must be a non-zero multiple of 512 bytes")));
    }
    let cap = zone_capacity.unwrap_or(zone_size);
    if !cap.is_multiple_of(SECTOR_SIZE) || cap == 0 {
        return Err(bad(format!("zone capacity {cap} must be a non-zero multiple of 512 bytes")));
    }
    if size_bytes < zone_size {
        return Err(bad(format!(
            "its size, {size_bytes} bytes ({} sectors), is smaller than the zone size, {zone_size} bytes ({} sectors)",
            size_bytes / SECTOR_SIZE,
            zone_size / SECTOR_SIZE
        )));
    }
    let geometry = Geometry::new(size_bytes / SECTOR_SIZE, zone_size / SECTOR_SIZE, cap / SECTOR_SIZE, 0, 512)
        .map_err(|e| bad(e.to_string()))?;
    let limits = Limits { max_open: 0, max_active: 0, max_append_sectors: geometry.zone_size }
        .normalized(&geometry)
        .map_err(|e| bad(e.to_string()))?;
    let config = DeviceConfig {
        personality: Personality::NullBlk,
        limits,
        profile: None,
        rotational: false,
        vendor: "file".into(),
        description: "file with emulated zones (fio's zonemode=zbd emulation: all zones sequential, empty at open)"
            .into(),
        geometry,
        model: None,
        queue: zonekit_core::QueueSettings::defaults(false),
    };
    let store = FileStore::new(file, config.geometry.zone_size);
    Ok(EmulatedDevice::new(spec, DeviceKind::File, &config, Box::new(store)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonekit_core::{BlockIo, ZoneCond, ZoneReport};

    #[test]
    fn file_zones_are_empty_and_data_lands_in_the_file() {
        let f = tempfile::tempfile().unwrap();
        f.set_len(10 << 20).unwrap();
        let d = open_file_zoned("f", f.try_clone().unwrap(), 10 << 20, 4 << 20, None).unwrap();
        let g = &d.info().geometry;
        assert_eq!((g.nr_zones, g.nr_conv_zones, g.zone_len(2)), (3, 0, 4096));
        let mut zones = Vec::new();
        d.report_zones(0, 10, &mut zones).unwrap();
        assert!(zones.iter().all(|z| z.cond == ZoneCond::Empty));
        d.write_at(8192, &[3u8; 4096]).unwrap();
        let mut b = [0u8; 4096];
        f.read_at(&mut b, 4 << 20).unwrap();
        assert_eq!(b, [3u8; 4096]);
        assert!(open_file_zoned("f", f.try_clone().unwrap(), 1 << 20, 4 << 20, None).is_err());
        assert!(open_file_zoned("f", f, 10 << 20, 1000, None).is_err());
    }
}
