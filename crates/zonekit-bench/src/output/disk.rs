//! Disk utilisation as fio measures it (`diskutil.c`): for each file of a job, the block device
//! under it (the device itself, or the one holding its file system; a partition counts as its
//! disk; dm/md devices also track their slaves), read `/sys/block/<dev>/stat` when the run starts
//! and while it runs, and report the differences. Files on tmpfs or other device-less file
//! systems have no entry, so the `Disk stats` section is absent for them.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::report::{DiskAggReport, DiskUtilReport};

/// The fields of `/sys/block/<dev>/stat` fio reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockStat {
    /// Reads and writes completed.
    pub ios: [u64; 2],
    /// Merges.
    pub merges: [u64; 2],
    /// Sectors.
    pub sectors: [u64; 2],
    /// ms spent reading, writing.
    pub ticks: [u64; 2],
    /// ms the device was busy.
    pub io_ticks: u64,
    /// Weighted ms in queue.
    pub time_in_queue: u64,
}

impl BlockStat {
    /// Parses the first 11 fields of a `stat` file (as fio's `sscanf`); `None` if fewer.
    pub fn parse(line: &str) -> Option<BlockStat> {
        let v: Vec<u64> = line.split_whitespace().take(11).map(|t| t.parse().ok()).collect::<Option<_>>()?;
        if v.len() != 11 {
            return None;
        }
        Some(BlockStat {
            ios: [v[0], v[4]],
            merges: [v[1], v[5]],
            sectors: [v[2], v[6]],
            ticks: [v[3], v[7]],
            io_ticks: v[9],
            time_in_queue: v[10],
        })
    }

    fn delta(&self, earlier: &BlockStat) -> BlockStat {
        let d = |a: u64, b: u64| a.wrapping_sub(b);
        BlockStat {
            ios: [d(self.ios[0], earlier.ios[0]), d(self.ios[1], earlier.ios[1])],
            merges: [d(self.merges[0], earlier.merges[0]), d(self.merges[1], earlier.merges[1])],
            sectors: [d(self.sectors[0], earlier.sectors[0]), d(self.sectors[1], earlier.sectors[1])],
            ticks: [d(self.ticks[0], earlier.ticks[0]), d(self.ticks[1], earlier.ticks[1])],
            io_ticks: d(self.io_ticks, earlier.io_ticks),
            time_in_queue: d(self.time_in_queue, earlier.time_in_queue),
        }
    }
}

fn dev_major(dev: u64) -> u64 {
    ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff)
}

fn dev_minor(dev: u64) -> u64 {
    (dev & 0xff) | ((dev >> 12) & !0xff)
}

/// One tracked device.
#[derive(Debug, Clone)]
struct Tracked {
    name: String,
    sysfs: PathBuf,
    first: BlockStat,
    last: BlockStat,
    start: Instant,
    msec: u64,
    slaves: Vec<usize>,
    is_slave: bool,
}

/// The devices under a run's files and their counters since the run started.
#[derive(Debug, Clone, Default)]
pub struct DiskUtilTracker {
    sys_block: PathBuf,
    devs: Vec<Tracked>,
}

impl DiskUtilTracker {
    /// Tracks the devices under `files` (paths that may not exist yet: then their directory's
    /// device), reading `/sys/block`. Files on device-less file systems add nothing.
    pub fn new<P: AsRef<Path>>(files: impl IntoIterator<Item = P>) -> DiskUtilTracker {
        DiskUtilTracker::with_sysfs("/sys/block", files)
    }

    /// As [`DiskUtilTracker::new`] with another `/sys/block` (tests).
    pub fn with_sysfs<P: AsRef<Path>>(
        sys_block: impl Into<PathBuf>,
        files: impl IntoIterator<Item = P>,
    ) -> DiskUtilTracker {
        let mut t = DiskUtilTracker { sys_block: sys_block.into(), devs: Vec::new() };
        for f in files {
            if let Some((maj, min)) = device_numbers(f.as_ref()) {
                t.add_device(maj, min);
            }
        }
        t
    }

    /// Number of devices tracked (0: no `Disk stats` section).
    pub fn len(&self) -> usize {
        self.devs.iter().filter(|d| !d.is_slave).count()
    }

    /// True when no device is tracked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn add_device(&mut self, maj: u64, min: u64) -> Option<usize> {
        let dir = disk_dir_of(&self.sys_block, maj, min)?;
        self.add_dir(dir)
    }

    fn add_dir(&mut self, dir: PathBuf) -> Option<usize> {
        let name = dir.file_name()?.to_string_lossy().into_owned();
        if let Some(i) = self.devs.iter().position(|d| d.name == name) {
            return Some(i);
        }
        let stat = read_stat(&dir).unwrap_or_default();
        self.devs.push(Tracked {
            name,
            sysfs: dir.clone(),
            first: stat,
            last: stat,
            start: Instant::now(),
            msec: 0,
            slaves: Vec::new(),
            is_slave: false,
        });
        let me = self.devs.len() - 1;
        if let Ok(entries) = fs::read_dir(dir.join("slaves")) {
            let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            names.sort();
            for s in names {
                let target = fs::canonicalize(&s).unwrap_or(s);
                if let Some(i) = self.add_dir(target) {
                    self.devs[i].is_slave = true;
                    self.devs[me].slaves.push(i);
                }
            }
        }
        Some(me)
    }

    /// Reads the counters now (fio does it every 250 ms and at the end; the last reading counts).
    pub fn update(&mut self) {
        for d in &mut self.devs {
            if let Some(s) = read_stat(&d.sysfs) {
                d.last = s;
            }
            d.msec = d.start.elapsed().as_millis() as u64;
        }
    }

    /// The reports of the devices (slaves only inside their master's averages), after a final
    /// [`DiskUtilTracker::update`].
    pub fn report(&self) -> Vec<DiskUtilReport> {
        let util = |d: &Tracked| {
            let s = d.last.delta(&d.first);
            if d.msec == 0 { 0.0 } else { (100.0 * s.io_ticks as f64 / d.msec as f64).min(100.0) }
        };
        self.devs
            .iter()
            .filter(|d| !d.is_slave)
            .map(|d| {
                let s = d.last.delta(&d.first);
                let slaves = (!d.slaves.is_empty()).then(|| {
                    let n = d.slaves.len() as u64;
                    let mut a = DiskAggReport::default();
                    for &i in &d.slaves {
                        let ss = self.devs[i].last.delta(&self.devs[i].first);
                        for k in 0..2 {
                            a.ios[k] += ss.ios[k];
                            a.merges[k] += ss.merges[k];
                            a.ticks[k] += ss.ticks[k];
                        }
                        a.time_in_queue += ss.time_in_queue;
                        a.max_util = a.max_util.max(util(&self.devs[i]));
                    }
                    for k in 0..2 {
                        a.ios[k] /= n;
                        a.merges[k] /= n;
                        a.ticks[k] /= n;
                    }
                    a.time_in_queue /= n;
                    a.max_util = a.max_util.min(100.0);
                    a
                });
                DiskUtilReport {
                    name: d.name.clone(),
                    ios: s.ios,
                    merges: s.merges,
                    ticks: s.ticks,
                    time_in_queue: s.time_in_queue,
                    util: util(d),
                    slaves,
                }
            })
            .collect()
    }
}

fn read_stat(dir: &Path) -> Option<BlockStat> {
    BlockStat::parse(fs::read_to_string(dir.join("stat")).ok()?.lines().next()?)
}

/// fio's `get_device_numbers`: a block device's own numbers, a file's file-system device, or
/// (for a path that does not exist) its directory's; none for character devices and FIFOs.
pub(crate) fn device_numbers(path: &Path) -> Option<(u64, u64)> {
    match fs::symlink_metadata(path) {
        Ok(m) => {
            let ft = m.file_type();
            if ft.is_block_device() {
                Some((dev_major(m.rdev()), dev_minor(m.rdev())))
            } else if ft.is_char_device() || ft.is_fifo() {
                None
            } else {
                Some((dev_major(m.dev()), dev_minor(m.dev())))
            }
        }
        Err(_) => {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let m = fs::metadata(dir).ok()?;
            Some((dev_major(m.dev()), dev_minor(m.dev())))
        }
    }
}

/// The disk's directory in `sys_block` (`/sys/block`) for device `maj:min`: its own, or its
/// disk's for a partition (fio's `__init_per_file_disk_util`).
fn disk_dir_of(sys_block: &Path, maj: u64, min: u64) -> Option<PathBuf> {
    let dir = find_block_dir(sys_block, maj, min, true)?;
    // A partition's directory sits inside its disk's (which has `queue/`).
    if dir.join("../queue").exists() { Some(dir.parent()?.to_path_buf()) } else { Some(dir) }
}

/// The `/sys/block` directory of the disk under `path` (fio's `f->du`): a block device's own
/// disk, the disk a regular file's file system is on (a file not created yet: its directory's);
/// None for a file system without a disk (tmpfs) or a character device.
pub fn sysfs_disk_dir(path: &Path) -> Option<PathBuf> {
    let (maj, min) = device_numbers(path)?;
    disk_dir_of(Path::new("/sys/block"), maj, min)
}

/// fio's `find_block_dir`: the directory under `path` whose `dev` file holds `maj:min`.
pub(crate) fn find_block_dir(path: &Path, maj: u64, min: u64, follow_links: bool) -> Option<PathBuf> {
    let mut entries: Vec<_> = fs::read_dir(path).ok()?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let full = e.path();
        if e.file_name() == "dev" {
            if let Ok(s) = fs::read_to_string(&full)
                && let Some((a, b)) = s.trim().split_once(':')
                && a.parse() == Ok(maj)
                && b.parse() == Ok(min)
            {
                return Some(path.to_path_buf());
            }
            continue;
        }
        let md = if follow_links { fs::metadata(&full) } else { fs::symlink_metadata(&full) };
        let Ok(md) = md else { continue };
        if !md.is_dir() || md.file_type().is_symlink() {
            continue;
        }
        if let Some(found) = find_block_dir(&full, maj, min, false) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_stat_line() {
        let s = BlockStat::parse("  100 2 800 30 200 4 1600 50 0 70 80 0 0 0 0").unwrap();
        assert_eq!(s.ios, [100, 200]);
        assert_eq!(s.merges, [2, 4]);
        assert_eq!(s.ticks, [30, 50]);
        assert_eq!((s.io_ticks, s.time_in_queue), (70, 80));
        assert!(BlockStat::parse("1 2 3").is_none());
    }

    #[test]
    fn fake_sysfs_partition_counts_as_disk() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("block");
        let disk = sys.join("vdz");
        fs::create_dir_all(disk.join("queue")).unwrap();
        fs::create_dir_all(disk.join("vdz1")).unwrap();
        fs::write(disk.join("dev"), "250:0\n").unwrap();
        fs::write(disk.join("vdz1/dev"), "250:1\n").unwrap();
        fs::write(disk.join("stat"), "1 0 8 1 2 0 16 3 0 4 4\n").unwrap();
        let mut t = DiskUtilTracker { sys_block: sys, devs: Vec::new() };
        t.add_device(250, 1).unwrap();
        fs::write(disk.join("stat"), "11 0 88 2 12 1 96 5 0 9 9\n").unwrap();
        t.update();
        let r = t.report();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].name, "vdz");
        assert_eq!(r[0].ios, [10, 10]);
        assert_eq!(r[0].merges, [0, 1]);
        assert_eq!(r[0].time_in_queue, 5);
    }

    #[test]
    fn tmpfs_has_no_device() {
        // /dev/shm is tmpfs here: no /sys/block entry carries its anonymous device number.
        if Path::new("/dev/shm").exists() {
            assert!(DiskUtilTracker::new(["/dev/shm/zonekit-no-such-file"]).is_empty());
        }
    }
}
