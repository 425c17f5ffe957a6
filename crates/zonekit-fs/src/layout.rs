//! The file tree of a volume, from a zone report (pure): which zones make which file, inode
//! numbers, the directories that exist. Follows `zonefs_init_zgroup`: zone 0 (the superblock)
//! is never a file; sequential-write-required and -preferred zones are both `seq`; with
//! [`Features::AGGR_CNV`](crate::Features::AGGR_CNV) each run of contiguous conventional zones is
//! one file.

use zonekit_core::{Zone, ZoneType};

/// A group directory: `cnv/` (conventional zones) or `seq/` (sequential zones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// `cnv/`.
    Cnv,
    /// `seq/`.
    Seq,
}

impl Group {
    /// The directory's name.
    pub fn name(self) -> &'static str {
        match self {
            Group::Cnv => "cnv",
            Group::Seq => "seq",
        }
    }

    /// The group of a directory name.
    pub fn from_name(name: &str) -> Option<Group> {
        match name {
            "cnv" => Some(Group::Cnv),
            "seq" => Some(Group::Seq),
            _ => None,
        }
    }

    /// `ZONEFS_ZTYPE_CNV` = 0, `ZONEFS_ZTYPE_SEQ` = 1: the directory's inode number is
    /// `nr_zones + 1 + ztype`.
    pub fn ztype(self) -> u64 {
        match self {
            Group::Cnv => 0,
            Group::Seq => 1,
        }
    }
}

/// A file: its index in [`Layout::files`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub usize);

/// One file and the zones it covers; positions in 512-byte sectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLayout {
    /// Its directory.
    pub group: Group,
    /// Its name's number in the directory (0, 1, … in zone order).
    pub index: u32,
    /// Index of its first zone (also its inode number).
    pub first_zone: u32,
    /// Number of zones (more than one only for an aggregated conventional file).
    pub nr_zones: u32,
    /// First sector.
    pub start: u64,
    /// Sectors covered (the sum of the zone lengths).
    pub len: u64,
    /// Writable sectors (the sum of the zone capacities): the largest file size.
    pub capacity: u64,
}

impl FileLayout {
    /// Inode number: the index of the file's first zone (`z_sector >> zone_sectors_shift`).
    pub fn ino(&self) -> u64 {
        u64::from(self.first_zone)
    }

    /// The name in its directory.
    pub fn name(&self) -> String {
        self.index.to_string()
    }

    /// The largest size in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity * zonekit_core::SECTOR_SIZE
    }
}

/// The file tree of a volume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Zones on the device (the root directory's inode number).
    pub nr_zones: u32,
    /// Every file: the `cnv` files in zone order, then the `seq` files in zone order.
    pub files: Vec<FileLayout>,
}

impl Layout {
    /// The tree of a device whose zones are `zones` (all of them, in order). `Err` names a report
    /// that does not start at sector 0 or has a hole, or an empty report.
    pub fn new(zones: &[Zone], aggr_cnv: bool) -> Result<Layout, String> {
        if zones.is_empty() {
            return Err("the device reports no zones".into());
        }
        let mut next = 0;
        for (i, z) in zones.iter().enumerate() {
            if z.start != next {
                return Err(format!("invalid zone report: zone {i} starts at sector {}, not {next}", z.start));
            }
            next = z.end();
        }
        let mut cnv: Vec<FileLayout> = Vec::new();
        let mut seq: Vec<FileLayout> = Vec::new();
        let mut prev_cnv = false;
        for (i, z) in zones.iter().enumerate().skip(1) {
            let i = i as u32;
            match z.zone_type {
                ZoneType::Conventional => {
                    if aggr_cnv
                        && prev_cnv
                        && let Some(f) = cnv.last_mut()
                    {
                        f.nr_zones += 1;
                        f.len += z.len;
                        f.capacity += z.capacity;
                    } else {
                        let index = cnv.len() as u32;
                        cnv.push(file(Group::Cnv, index, i, z));
                    }
                    prev_cnv = true;
                }
                ZoneType::SeqWriteRequired | ZoneType::SeqWritePreferred => {
                    let index = seq.len() as u32;
                    seq.push(file(Group::Seq, index, i, z));
                    prev_cnv = false;
                }
            }
        }
        cnv.extend(seq);
        Ok(Layout { nr_zones: zones.len() as u32, files: cnv })
    }

    /// The files of `group`, with their ids, in name order.
    pub fn group(&self, group: Group) -> impl Iterator<Item = (FileId, &FileLayout)> {
        self.files.iter().enumerate().filter(move |(_, f)| f.group == group).map(|(i, f)| (FileId(i), f))
    }

    /// Number of files in `group` (its directory's size); a group of none has no directory.
    pub fn group_len(&self, group: Group) -> usize {
        self.files.iter().filter(|f| f.group == group).count()
    }

    /// The groups that have a directory, in `readdir` order (`cnv` before `seq`).
    pub fn groups(&self) -> Vec<Group> {
        [Group::Cnv, Group::Seq].into_iter().filter(|&g| self.group_len(g) > 0).collect()
    }

    /// Root directory inode number: the device's zone count.
    pub fn root_ino(&self) -> u64 {
        u64::from(self.nr_zones)
    }

    /// A group directory's inode number: `nr_zones + 1 + ztype`.
    pub fn group_ino(&self, group: Group) -> u64 {
        u64::from(self.nr_zones) + 1 + group.ztype()
    }

    /// The file `name` of `group`: a decimal index without leading zeros, below the group's
    /// size (zonefs's lookup: anything else does not exist).
    pub fn lookup(&self, group: Group, name: &str) -> Option<FileId> {
        let canonical =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) && (name == "0" || !name.starts_with('0'));
        let index: u32 = if canonical { name.parse().ok()? } else { return None };
        self.group(group).find(|(_, f)| f.index == index).map(|(id, _)| id)
    }

    /// The file `id`.
    pub fn file(&self, id: FileId) -> &FileLayout {
        &self.files[id.0]
    }
}

fn file(group: Group, index: u32, zone: u32, z: &Zone) -> FileLayout {
    FileLayout { group, index, first_zone: zone, nr_zones: 1, start: z.start, len: z.len, capacity: z.capacity }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonekit_core::ZoneCond;

    fn zones(types: &str) -> Vec<Zone> {
        types
            .chars()
            .enumerate()
            .map(|(i, t)| {
                let start = i as u64 * 100;
                let (zone_type, cond, cap) = match t {
                    'c' => (ZoneType::Conventional, ZoneCond::NotWp, 100),
                    _ => (ZoneType::SeqWriteRequired, ZoneCond::Empty, 80),
                };
                Zone { start, len: 100, capacity: cap, wp: start, zone_type, cond, non_seq: false, reset: false }
            })
            .collect()
    }

    fn summary(l: &Layout) -> Vec<String> {
        l.files
            .iter()
            .map(|f| format!("{}/{} ino={} zones={} cap={}", f.group.name(), f.index, f.ino(), f.nr_zones, f.capacity))
            .collect()
    }

    #[test]
    fn files_inodes_and_directories() {
        let l = Layout::new(&zones("cccss"), false).unwrap();
        assert_eq!(
            summary(&l),
            [
                "cnv/0 ino=1 zones=1 cap=100",
                "cnv/1 ino=2 zones=1 cap=100",
                "seq/0 ino=3 zones=1 cap=80",
                "seq/1 ino=4 zones=1 cap=80"
            ]
        );
        assert_eq!((l.root_ino(), l.group_ino(Group::Cnv), l.group_ino(Group::Seq)), (5, 6, 7));
        assert_eq!(l.groups(), [Group::Cnv, Group::Seq]);

        let l = Layout::new(&zones("cccss"), true).unwrap();
        assert_eq!(
            summary(&l),
            ["cnv/0 ino=1 zones=2 cap=200", "seq/0 ino=3 zones=1 cap=80", "seq/1 ino=4 zones=1 cap=80"]
        );

        // One conventional zone holds the superblock: no cnv directory.
        let l = Layout::new(&zones("csss"), false).unwrap();
        assert_eq!(l.groups(), [Group::Seq]);
        // No conventional zone: zone 0 is sequential and still not a file.
        let l = Layout::new(&zones("sss"), false).unwrap();
        assert_eq!(summary(&l), ["seq/0 ino=1 zones=1 cap=80", "seq/1 ino=2 zones=1 cap=80"]);
        // Separate runs of conventional zones make separate aggregated files.
        let l = Layout::new(&zones("ccscc"), true).unwrap();
        assert_eq!(
            summary(&l),
            ["cnv/0 ino=1 zones=1 cap=100", "cnv/1 ino=3 zones=2 cap=200", "seq/0 ino=2 zones=1 cap=80"]
        );
    }

    #[test]
    fn lookup_takes_canonical_decimal_names_only() {
        let l = Layout::new(&zones("cccss"), false).unwrap();
        assert_eq!(l.lookup(Group::Seq, "1"), Some(FileId(3)));
        assert_eq!(l.lookup(Group::Cnv, "0"), Some(FileId(0)));
        for bad in ["01", "2", "", "x", "-1", "+1", " 1", "00"] {
            assert_eq!(l.lookup(Group::Seq, bad), None, "{bad:?}");
        }
    }

    #[test]
    fn bad_reports() {
        let mut z = zones("css");
        z[2].start = 250;
        assert!(Layout::new(&z, false).unwrap_err().contains("zone 2 starts at sector 250"));
        assert!(Layout::new(&[], false).is_err());
    }
}
