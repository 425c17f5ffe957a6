//! What a run checks or changes on the host around its jobs, as fio 3.33 does: whether a block
//! device a job writes to carries a mounted file system (`allow_mounted_write`, fio's
//! `check_mount_writes`), and the I/O scheduler of the disks under a job's files
//! (`ioscheduler`, fio's `switch_ioscheduler`).

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// One mounted file system: the device numbers of what it is mounted from, and its source as
/// the mount table names it (`/dev/loop0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// `major:minor` (0 for file systems without a device: tmpfs, proc…).
    pub dev: (u64, u64),
    /// The mount source.
    pub source: String,
}

/// Undoes the octal escapes of `/proc/self/mountinfo` (`\040` is a blank).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The mounts of a `/proc/self/mountinfo` text (lines it cannot read are skipped).
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|l| {
            let fields: Vec<&str> = l.split(' ').collect();
            let (maj, min) = fields.get(2)?.split_once(':')?;
            let dash = fields.iter().position(|f| *f == "-")?;
            let source = fields.get(dash + 2)?;
            Some(Mount { dev: (maj.parse().ok()?, min.parse().ok()?), source: unescape(source) })
        })
        .collect()
}

fn read_dev(dir: &Path) -> Option<(u64, u64)> {
    let s = fs::read_to_string(dir.join("dev")).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The block devices a run must not write to unasked: those mounted file systems sit on.
#[derive(Debug, Clone, Default)]
pub struct MountTable {
    mounts: Vec<Mount>,
    /// Every device under a mount: the mounted device, the disk of a mounted partition, and the
    /// devices a mounted device is built on (device mapper, md), recursively.
    in_use: BTreeSet<(u64, u64)>,
}

impl MountTable {
    /// This process's mounts (`/proc/self/mountinfo`), their devices looked up in `/sys`.
    pub fn read() -> MountTable {
        let text = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        MountTable::new(parse_mountinfo(&text), Path::new("/sys/dev/block"))
    }

    /// The table of `mounts`, each device's disk and slaves found under `sys_dev_block`
    /// (`/sys/dev/block`, whose `MAJ:MIN` links lead to the devices' directories).
    pub fn new(mounts: Vec<Mount>, sys_dev_block: &Path) -> MountTable {
        let mut in_use = BTreeSet::new();
        let mut todo: Vec<(u64, u64)> = mounts.iter().map(|m| m.dev).filter(|d| d.0 != 0).collect();
        while let Some(dev) = todo.pop() {
            if !in_use.insert(dev) {
                continue;
            }
            let Ok(dir) = fs::canonicalize(sys_dev_block.join(format!("{}:{}", dev.0, dev.1))) else { continue };
            // A partition's directory sits in its disk's.
            if dir.join("partition").exists()
                && let Some(disk) = dir.parent().and_then(read_dev)
            {
                todo.push(disk);
            }
            if let Ok(slaves) = fs::read_dir(dir.join("slaves")) {
                for s in slaves.flatten() {
                    if let Some(d) = fs::canonicalize(s.path()).ok().as_deref().and_then(read_dev) {
                        todo.push(d);
                    }
                }
            }
        }
        MountTable { mounts, in_use }
    }

    /// Whether block device `path` carries a mounted file system: its name is a mount's source
    /// (fio's `device_is_mounted`), or its device is one a mount sits on.
    pub fn holds(&self, path: &Path) -> bool {
        let name = path.to_string_lossy();
        if self.mounts.iter().any(|m| m.source == name) {
            return true;
        }
        match fs::metadata(path) {
            Ok(m) if m.file_type().is_block_device() => {
                let rdev = m.rdev();
                let dev = (((rdev >> 8) & 0xfff) | ((rdev >> 32) & !0xfff), (rdev & 0xff) | ((rdev >> 12) & !0xff));
                self.in_use.contains(&dev)
            }
            _ => false,
        }
    }
}

/// fio's `check_mount_writes` over a run's jobs, each as (writes or trims, `allow_mounted_write`,
/// its files): the line for the first block device a writing job names that carries a mounted
/// file system, or None. The mount table is read only when a writing job names a block device.
pub fn mounted_write<'a>(jobs: impl IntoIterator<Item = (bool, bool, Vec<PathBuf>)> + 'a) -> Option<String> {
    let mut table: Option<MountTable> = None;
    for (writes, allowed, files) in jobs {
        if !writes || allowed {
            continue;
        }
        for f in files {
            let is_block = fs::metadata(&f).is_ok_and(|m| m.file_type().is_block_device());
            if is_block && table.get_or_insert_with(MountTable::read).holds(&f) {
                return Some(format!(
                    "{} appears mounted, and 'allow_mounted_write' isn't set. Aborting.",
                    f.display()
                ));
            }
        }
    }
    None
}

/// How a job's `ioscheduler` switch ended, when the job goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchedulerSwitch {
    /// The scheduler is now the one asked for.
    Switched,
    /// The disk has no scheduler to choose (its file reads `none`): fio's `io scheduler is not
    /// tunable`, and the job goes on.
    NotTunable,
    /// There is no scheduler file: fio's `os or kernel doesn't support IO scheduler switching`.
    Unsupported,
}

impl SchedulerSwitch {
    /// fio's line for the outcome (after `zonekit: `), if it prints one.
    pub fn line(&self) -> Option<&'static str> {
        match self {
            SchedulerSwitch::Switched => None,
            SchedulerSwitch::NotTunable => Some("io scheduler is not tunable"),
            SchedulerSwitch::Unsupported => Some("os or kernel doesn't support IO scheduler switching"),
        }
    }
}

/// A switch that failed the job: the errno and fio's `td_verror` message, and fio's line before
/// it (if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerError {
    /// The job's error number.
    pub errno: i32,
    /// fio's `file:…, func=…`.
    pub func: &'static str,
    /// fio's line printed before the error (`unable to set io scheduler to X`).
    pub line: Option<String>,
}

/// fio's `set_ioscheduler` on the disk whose sysfs directory is `disk` (`/sys/block/loop0`):
/// write `name` to its `queue/scheduler`, read the file back, and check that `[name]` is the
/// one selected. A write the kernel refuses is not an error by itself (fio's buffered `fwrite`
/// never sees it): the read-back tells.
pub fn switch_scheduler(disk: &Path, name: &str) -> Result<SchedulerSwitch, SchedulerError> {
    use std::io::Write;
    let path = disk.join("queue/scheduler");
    let mut f = match fs::OpenOptions::new().read(true).write(true).open(&path) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(SchedulerSwitch::Unsupported),
        Err(e) => {
            return Err(SchedulerError {
                errno: e.raw_os_error().unwrap_or(libc::EIO),
                func: "file:backend.c:1405, func=fopen iosched",
                line: None,
            });
        }
    };
    let _ = f.write_all(name.as_bytes());
    drop(f);
    let now = fs::read_to_string(&path).map_err(|e| SchedulerError {
        errno: e.raw_os_error().unwrap_or(libc::EIO),
        func: "file:backend.c:1426, func=fread",
        line: None,
    })?;
    let first = now.split('\n').next().unwrap_or("");
    if first == "none" {
        return Ok(SchedulerSwitch::NotTunable);
    }
    if !first.contains(&format!("[{name}]")) {
        return Err(SchedulerError {
            errno: libc::EINVAL,
            func: "file:backend.c:1450, func=iosched_switch",
            line: Some(format!("unable to set io scheduler to {name}")),
        });
    }
    Ok(SchedulerSwitch::Switched)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines() {
        let text = "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n\
                    42 27 7:0 / /tmp/a\\040b rw,relatime - ext4 /dev/loop\\0400 rw\n\
                    30 22 0:25 / /dev/shm rw - tmpfs tmpfs rw\n\
                    garbage\n";
        let m = parse_mountinfo(text);
        assert_eq!(m.len(), 3);
        assert_eq!(m[0], Mount { dev: (254, 0), source: "/dev/vda".into() });
        assert_eq!(m[1], Mount { dev: (7, 0), source: "/dev/loop 0".into() });
        assert_eq!(m[2].dev, (0, 25));
    }

    /// A fake `/sys`: disk `sda` (8:0) with partitions `sda1` (8:1) and `sda2` (8:2), and
    /// `dm-0` (253:0) built on `sdb` (8:16).
    fn fake_sys() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let blk = t.path().join("devices/block");
        let mk = |rel: &str, dev: &str| {
            let d = blk.join(rel);
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join("dev"), format!("{dev}\n")).unwrap();
            d
        };
        mk("sda", "8:0");
        fs::write(mk("sda/sda1", "8:1").join("partition"), "1\n").unwrap();
        fs::write(mk("sda/sda2", "8:2").join("partition"), "2\n").unwrap();
        let sdb = mk("sdb", "8:16");
        let dm = mk("dm-0", "253:0");
        fs::create_dir(dm.join("slaves")).unwrap();
        std::os::unix::fs::symlink(&sdb, dm.join("slaves/sdb")).unwrap();
        let links = t.path().join("dev/block");
        fs::create_dir_all(&links).unwrap();
        for (dev, rel) in [("8:0", "sda"), ("8:1", "sda/sda1"), ("8:2", "sda/sda2"), ("8:16", "sdb"), ("253:0", "dm-0")]
        {
            std::os::unix::fs::symlink(blk.join(rel), links.join(dev)).unwrap();
        }
        t
    }

    #[test]
    fn a_mounted_partition_holds_its_disk_and_a_mapped_device_its_slaves() {
        let sys = fake_sys();
        let mounts = vec![
            Mount { dev: (8, 1), source: "/dev/sda1".into() },
            Mount { dev: (253, 0), source: "/dev/mapper/vg-lv".into() },
            Mount { dev: (0, 25), source: "tmpfs".into() },
        ];
        let t = MountTable::new(mounts, &sys.path().join("dev/block"));
        let used: Vec<(u64, u64)> = t.in_use.iter().copied().collect();
        // sda1 and its disk sda, dm-0 and sdb under it; not sda2.
        assert_eq!(used, vec![(8, 0), (8, 1), (8, 16), (253, 0)]);
        // fio's own check: the name as the mount table has it.
        assert!(t.holds(Path::new("/dev/mapper/vg-lv")));
        assert!(!t.holds(Path::new("/dev/sda2")));
    }

    #[test]
    fn scheduler_read_back_decides() {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir(d.path().join("queue")).unwrap();
        let file = d.path().join("queue/scheduler");
        // A regular file keeps what is written: "[bfq]" is not in "bfq".
        fs::write(&file, "").unwrap();
        let e = switch_scheduler(d.path(), "bfq").unwrap_err();
        assert_eq!((e.errno, e.func), (libc::EINVAL, "file:backend.c:1450, func=iosched_switch"));
        assert_eq!(e.line.as_deref(), Some("unable to set io scheduler to bfq"));
        // A disk without schedulers reads `none` whatever is written.
        fs::write(&file, "none\n").unwrap();
        assert_eq!(switch_scheduler(d.path(), "none"), Ok(SchedulerSwitch::NotTunable));
        // The name written over the start of a text that selects it.
        fs::write(&file, "mq [mq] kyber\n").unwrap();
        assert_eq!(switch_scheduler(d.path(), "mq"), Ok(SchedulerSwitch::Switched));
        assert_eq!(switch_scheduler(&d.path().join("nope"), "xx"), Ok(SchedulerSwitch::Unsupported));
    }
}
