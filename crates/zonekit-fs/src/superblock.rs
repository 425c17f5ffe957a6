//! The zonefs superblock (`struct zonefs_super`): 4096 bytes at byte 0 of zone 0, every integer
//! little-endian.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x000 | 4 | `s_magic` = 0x5a4f4653 ("ZOFS") |
//! | 0x004 | 4 | `s_crc`: [`crc32_le`]`(!0, block with s_crc = 0)` |
//! | 0x008 | 64 | `s_label`, NUL-padded |
//! | 0x048 | 16 | `s_uuid` |
//! | 0x058 | 8 | `s_features` ([`Features`]) |
//! | 0x060 | 4 | `s_uid` |
//! | 0x064 | 4 | `s_gid` |
//! | 0x068 | 4 | `s_perm` |
//! | 0x06C | 3988 | `s_reserved`, all zero |
//!
//! [`Superblock::parse`] checks in the kernel's order (`zonefs_read_super`): magic, checksum,
//! feature bits, reserved area.

use crate::crc::crc32_le;

/// Size of the superblock and of the block that holds it (`ZONEFS_SUPER_SIZE`).
pub const SUPER_SIZE: usize = 4096;
/// `ZONEFS_MAGIC`: "ZOFS" read as a little-endian u32.
pub const MAGIC: u32 = 0x5a4f_4653;
/// Bytes of `s_label` (`ZONEFS_LABEL_LEN`).
pub const LABEL_LEN: usize = 64;
/// Longest label [`Superblock::set_label`] takes: one byte is left for the NUL that the kernel
/// and mkzonefs expect.
pub const MAX_LABEL: usize = LABEL_LEN - 1;

/// Byte offsets of the fields.
pub mod offset {
    /// `s_magic`.
    pub const MAGIC: usize = 0x000;
    /// `s_crc`.
    pub const CRC: usize = 0x004;
    /// `s_label`.
    pub const LABEL: usize = 0x008;
    /// `s_uuid`.
    pub const UUID: usize = 0x048;
    /// `s_features`.
    pub const FEATURES: usize = 0x058;
    /// `s_uid`.
    pub const UID: usize = 0x060;
    /// `s_gid`.
    pub const GID: usize = 0x064;
    /// `s_perm`.
    pub const PERM: usize = 0x068;
    /// `s_reserved`, to the end of the block.
    pub const RESERVED: usize = 0x06C;
}

/// The feature bits of `s_features` (`enum zonefs_features`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features(pub u64);

impl Features {
    /// `ZONEFS_F_AGGRCNV`: each run of contiguous conventional zones is one file.
    pub const AGGR_CNV: Features = Features(1 << 0);
    /// `ZONEFS_F_UID`: files belong to `s_uid`.
    pub const UID: Features = Features(1 << 1);
    /// `ZONEFS_F_GID`: files belong to group `s_gid`.
    pub const GID: Features = Features(1 << 2);
    /// `ZONEFS_F_PERM`: files have permission bits `s_perm`.
    pub const PERM: Features = Features(1 << 3);
    /// Every bit the kernel knows (`ZONEFS_F_DEFINED_FEATURES`); any other bit fails the mount.
    pub const DEFINED: Features = Features(0xF);

    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }

    /// The bits set that the kernel does not know.
    pub fn unknown(self) -> u64 {
        self.0 & !Self::DEFINED.0
    }
}

impl std::ops::BitOr for Features {
    type Output = Features;
    fn bitor(self, rhs: Features) -> Features {
        Features(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Features {
    fn bitor_assign(&mut self, rhs: Features) {
        self.0 |= rhs.0;
    }
}

/// Why zone 0 does not hold a superblock the kernel would mount. Each names the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SuperblockError {
    /// Fewer than 4096 bytes to parse.
    #[error("superblock: {0} bytes, not {SUPER_SIZE}")]
    Short(usize),
    /// The magic number is not zonefs's: the device is not formatted.
    #[error("not formatted as zonefs: no zonefs superblock in zone 0 (magic 0x{found:08x}, expected 0x{MAGIC:08x})")]
    NotFormatted {
        /// The value found at offset 0.
        found: u32,
    },
    /// The checksum does not match the block.
    #[error("bad superblock checksum: the block's CRC32 is 0x{computed:08x}, the superblock says 0x{stored:08x}")]
    BadCrc {
        /// What the block's bytes give.
        computed: u32,
        /// What `s_crc` holds.
        stored: u32,
    },
    /// Feature bits the kernel does not know.
    #[error("unknown superblock feature bits 0x{unknown:x} (features 0x{features:x})")]
    UnknownFeatures {
        /// The unknown bits.
        unknown: u64,
        /// The whole `s_features`.
        features: u64,
    },
    /// The reserved area holds something other than zeros.
    #[error("superblock reserved area is not zero (first non-zero byte at offset 0x{offset:03x})")]
    ReservedNotZero {
        /// Byte offset in the superblock of the first non-zero reserved byte.
        offset: usize,
    },
}

/// The contents of a zonefs superblock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Superblock {
    /// `s_label`: up to [`MAX_LABEL`] bytes, NUL-padded on disk. The kernel ignores it.
    pub label: [u8; LABEL_LEN],
    /// `s_uuid`: the volume's UUID (the kernel derives `statfs`' `f_fsid` from it).
    pub uuid: [u8; 16],
    /// `s_features`.
    pub features: Features,
    /// `s_uid`: owner of every file when [`Features::UID`] is set.
    pub uid: u32,
    /// `s_gid`: group of every file when [`Features::GID`] is set.
    pub gid: u32,
    /// `s_perm`: permission bits of every file when [`Features::PERM`] is set.
    pub perm: u32,
}

/// The permission bits of a file when the superblock does not set them.
pub const DEFAULT_PERM: u32 = 0o640;

impl Superblock {
    /// A superblock with `uuid`, no label and no features (files owned by 0:0, mode 0640).
    pub fn new(uuid: [u8; 16]) -> Superblock {
        Superblock { label: [0; LABEL_LEN], uuid, features: Features::default(), uid: 0, gid: 0, perm: 0 }
    }

    /// Set the label; `Err` with a reason if it is longer than [`MAX_LABEL`] bytes or holds a NUL.
    pub fn set_label(&mut self, label: &str) -> Result<(), String> {
        let b = label.as_bytes();
        if b.len() > MAX_LABEL {
            return Err(format!("label of {} bytes: at most {MAX_LABEL}", b.len()));
        }
        if b.contains(&0) {
            return Err("label holds a NUL byte".into());
        }
        self.label = [0; LABEL_LEN];
        self.label[..b.len()].copy_from_slice(b);
        Ok(())
    }

    /// The label up to its first NUL, lossily decoded.
    pub fn label(&self) -> String {
        let end = self.label.iter().position(|&b| b == 0).unwrap_or(LABEL_LEN);
        String::from_utf8_lossy(&self.label[..end]).into_owned()
    }

    /// Owner of every file: `uid` with [`Features::UID`], else 0.
    pub fn file_uid(&self) -> u32 {
        if self.features.contains(Features::UID) { self.uid } else { 0 }
    }

    /// Group of every file: `gid` with [`Features::GID`], else 0.
    pub fn file_gid(&self) -> u32 {
        if self.features.contains(Features::GID) { self.gid } else { 0 }
    }

    /// Permission bits of every file: `perm` with [`Features::PERM`] (unmasked, as the kernel
    /// takes them), else [`DEFAULT_PERM`].
    pub fn file_perm(&self) -> u32 {
        if self.features.contains(Features::PERM) { self.perm } else { DEFAULT_PERM }
    }

    /// The UUID in its usual text form (`8-4-4-4-12` lowercase hex).
    pub fn uuid_string(&self) -> String {
        let h: Vec<String> = self.uuid.iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "{}-{}-{}-{}-{}",
            h[..4].concat(),
            h[4..6].concat(),
            h[6..8].concat(),
            h[8..10].concat(),
            h[10..].concat()
        )
    }

    /// The 4096 bytes on disk, checksum included.
    pub fn encode(&self) -> [u8; SUPER_SIZE] {
        let mut b = [0u8; SUPER_SIZE];
        b[offset::MAGIC..][..4].copy_from_slice(&MAGIC.to_le_bytes());
        b[offset::LABEL..][..LABEL_LEN].copy_from_slice(&self.label);
        b[offset::UUID..][..16].copy_from_slice(&self.uuid);
        b[offset::FEATURES..][..8].copy_from_slice(&self.features.0.to_le_bytes());
        b[offset::UID..][..4].copy_from_slice(&self.uid.to_le_bytes());
        b[offset::GID..][..4].copy_from_slice(&self.gid.to_le_bytes());
        b[offset::PERM..][..4].copy_from_slice(&self.perm.to_le_bytes());
        let crc = crc32_le(!0, &b);
        b[offset::CRC..][..4].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Parse the first 4096 bytes of `block`, checking what the kernel checks, in its order:
    /// magic, checksum (over the block with `s_crc` zeroed), feature bits, reserved area.
    pub fn parse(block: &[u8]) -> Result<Superblock, SuperblockError> {
        let Some(b) = block.get(..SUPER_SIZE) else { return Err(SuperblockError::Short(block.len())) };
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let magic = u32_at(offset::MAGIC);
        if magic != MAGIC {
            return Err(SuperblockError::NotFormatted { found: magic });
        }
        let stored = u32_at(offset::CRC);
        let mut copy = [0u8; SUPER_SIZE];
        copy.copy_from_slice(b);
        copy[offset::CRC..][..4].fill(0);
        let computed = crc32_le(!0, &copy);
        if computed != stored {
            return Err(SuperblockError::BadCrc { computed, stored });
        }
        let features = Features(u64::from_le_bytes(b[offset::FEATURES..][..8].try_into().expect("8 bytes")));
        if features.unknown() != 0 {
            return Err(SuperblockError::UnknownFeatures { unknown: features.unknown(), features: features.0 });
        }
        if let Some(i) = b[offset::RESERVED..].iter().position(|&x| x != 0) {
            return Err(SuperblockError::ReservedNotZero { offset: offset::RESERVED + i });
        }
        let mut label = [0u8; LABEL_LEN];
        label.copy_from_slice(&b[offset::LABEL..][..LABEL_LEN]);
        let mut uuid = [0u8; 16];
        uuid.copy_from_slice(&b[offset::UUID..][..16]);
        Ok(Superblock {
            label,
            uuid,
            features,
            uid: u32_at(offset::UID),
            gid: u32_at(offset::GID),
            perm: u32_at(offset::PERM),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Superblock {
        let mut s = Superblock::new([
            0x59, 0x0d, 0x2c, 0x75, 0x0a, 0, 0x4f, 0x10, 0xbd, 0x18, 0xf3, 0xc2, 0x25, 0x81, 0xd6, 0x38,
        ]);
        s.set_label("vol").unwrap();
        s.features = Features::AGGR_CNV | Features::UID | Features::GID | Features::PERM;
        s.uid = 1000;
        s.gid = 2000;
        s.perm = 0o770;
        s
    }

    #[test]
    fn layout_field_by_field() {
        let s = sample();
        let b = s.encode();
        assert_eq!(b.len(), 4096);
        assert_eq!(&b[0..4], b"SFOZ", "magic 0x5a4f4653 little-endian");
        assert_eq!(&b[0x08..0x0b], b"vol");
        assert!(b[0x0b..0x48].iter().all(|&x| x == 0), "label NUL-padded");
        assert_eq!(&b[0x48..0x58], &s.uuid);
        assert_eq!(&b[0x58..0x60], &[0x0f, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&b[0x60..0x64], &1000u32.to_le_bytes());
        assert_eq!(&b[0x64..0x68], &2000u32.to_le_bytes());
        assert_eq!(&b[0x68..0x6c], &0o770u32.to_le_bytes());
        assert!(b[0x6c..].iter().all(|&x| x == 0), "reserved area zero");
        assert_eq!(4096 - 0x6c, 3988);
        let mut z = b;
        z[4..8].fill(0);
        assert_eq!(&b[4..8], &crc32_le(!0, &z).to_le_bytes(), "crc over the block with s_crc zeroed");
        assert_eq!(Superblock::parse(&b).unwrap(), s);
    }

    #[test]
    fn known_crc_of_an_empty_superblock() {
        // The block of a superblock with everything zero but the magic: its CRC, checked with
        // Python's zlib (zlib.crc32(block) ^ 0xffffffff).
        let b = Superblock::new([0; 16]).encode();
        assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()), 0x59bf_ab05);
    }

    #[test]
    fn errors_name_the_problem() {
        let good = sample().encode();
        assert_eq!(Superblock::parse(&[0u8; 4096]), Err(SuperblockError::NotFormatted { found: 0 }));
        assert_eq!(Superblock::parse(&good[..100]), Err(SuperblockError::Short(100)));

        let mut bad = good;
        bad[0x10] ^= 1;
        let e = Superblock::parse(&bad).unwrap_err();
        assert!(matches!(e, SuperblockError::BadCrc { .. }), "{e}");
        assert!(e.to_string().contains("checksum"), "{e}");

        let reseal = |mut b: [u8; 4096]| {
            b[4..8].fill(0);
            let c = crc32_le(!0, &b);
            b[4..8].copy_from_slice(&c.to_le_bytes());
            b
        };
        let mut f = good;
        f[0x58] = 0x30;
        let e = Superblock::parse(&reseal(f)).unwrap_err();
        assert_eq!(e, SuperblockError::UnknownFeatures { unknown: 0x30, features: 0x30 });
        assert!(e.to_string().contains("unknown superblock feature bits 0x30"), "{e}");

        let mut r = good;
        r[0x200] = 7;
        let e = Superblock::parse(&reseal(r)).unwrap_err();
        assert_eq!(e, SuperblockError::ReservedNotZero { offset: 0x200 });
        assert!(e.to_string().contains("reserved area"), "{e}");
    }

    #[test]
    fn defaults_and_labels() {
        let s = Superblock::new([0; 16]);
        assert_eq!((s.file_uid(), s.file_gid(), s.file_perm()), (0, 0, 0o640));
        let s = sample();
        assert_eq!((s.file_uid(), s.file_gid(), s.file_perm()), (1000, 2000, 0o770));
        assert_eq!(s.label(), "vol");
        assert_eq!(s.uuid_string(), "590d2c75-0a00-4f10-bd18-f3c22581d638");
        let mut t = Superblock::new([0; 16]);
        assert!(t.set_label(&"x".repeat(63)).is_ok());
        assert!(t.set_label(&"x".repeat(64)).is_err());
    }
}
