//! Device personalities: which errno each zone-rule violation becomes, which implicitly open zone
//! is closed at the open limit, and what unwritten sectors read as.
//!
//! - **null_blk** follows `drivers/block/null_blk/zoned.c`: every device-side violation is
//!   `BLK_STS_IOERR` (`EIO`); eviction scans round-robin from a cursor.
//! - **ZBC** (SCSI/ATA host-managed SMR) follows the kernel's `scsi_debug` (`zbc=managed`) for the
//!   transitions and tcmu-runner's `file_zbc` for the eviction choice (the lowest-numbered
//!   implicitly open zone); ILLEGAL REQUEST sense data becomes `EREMOTEIO` (`BLK_STS_TARGET`).
//! - **ZNS** (NVMe) follows QEMU's `hw/nvme` emulation with `auto_transition` on: the oldest
//!   implicitly open zone is closed; NVMe zone status codes become `EIO`.
//!
//! In all three, resource limits become `ETOOMANYREFS` (open) and `EOVERFLOW` (active), and
//! block-layer checks (alignment, range) are `EINVAL`.

use crate::errno::Errno;
use crate::error::ZoneErrorKind;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A device personality (transport and emulator family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Personality {
    /// Linux null_blk in zoned mode.
    NullBlk,
    /// SCSI ZBC / ATA ZAC host-managed SMR disk.
    Zbc,
    /// NVMe Zoned Namespace SSD.
    Zns,
}

/// Which implicitly open zone a device closes to make room under its open limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvictionPolicy {
    /// null_blk: scan from a cursor that moves past each zone closed, wrapping round.
    RoundRobin,
    /// ZBC (tcmu-runner, scsi_debug): the lowest-numbered implicitly open zone.
    LowestNumbered,
    /// ZNS (QEMU): the zone that has been implicitly open longest.
    Oldest,
}

impl Personality {
    /// Every personality.
    pub const ALL: [Personality; 3] = [Personality::NullBlk, Personality::Zbc, Personality::Zns];

    /// The name used on the command line and in metadata (`nullblk`, `zbc`, `zns`).
    pub fn name(self) -> &'static str {
        match self {
            Personality::NullBlk => "nullblk",
            Personality::Zbc => "zbc",
            Personality::Zns => "zns",
        }
    }

    /// A one-line description of the transport.
    pub fn description(self) -> &'static str {
        match self {
            Personality::NullBlk => "Linux null_blk zoned device",
            Personality::Zbc => "SCSI ZBC host-managed disk",
            Personality::Zns => "NVMe zoned namespace",
        }
    }

    /// The errno userspace sees for `kind` on this transport.
    pub fn errno(self, kind: ZoneErrorKind) -> Errno {
        use ZoneErrorKind::*;
        match kind {
            Unaligned | OutOfRange | MgmtUnaligned => Errno::EINVAL,
            OpenLimit => Errno::ETOOMANYREFS,
            ActiveLimit => Errno::EOVERFLOW,
            // The block layer refuses malformed zone appends itself, on every transport.
            AppendNotZoneStart | AppendTooLarge => Errno::EIO,
            _ => match self {
                Personality::NullBlk | Personality::Zns => Errno::EIO,
                // ILLEGAL REQUEST (0x21, 0x24) and DATA PROTECT (ZONE IS OFFLINE, 0x2C/0x0E) sense
                // data are both marked target failures by scsi_check_sense: BLK_STS_TARGET.
                Personality::Zbc => Errno::EREMOTEIO,
            },
        }
    }

    /// What a read returns for sectors beyond a zone's write pointer.
    pub fn read_fill(self) -> u8 {
        match self {
            Personality::NullBlk => 0xff,
            Personality::Zbc | Personality::Zns => 0x00,
        }
    }

    /// The eviction policy at the open limit.
    pub fn eviction(self) -> EvictionPolicy {
        match self {
            Personality::NullBlk => EvictionPolicy::RoundRobin,
            Personality::Zbc => EvictionPolicy::LowestNumbered,
            Personality::Zns => EvictionPolicy::Oldest,
        }
    }
}

impl fmt::Display for Personality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error of parsing a personality name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown personality '{0}' (expected nullblk, zbc or zns)")]
pub struct UnknownPersonality(pub String);

impl FromStr for Personality {
    type Err = UnknownPersonality;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "nullblk" | "null_blk" | "null-blk" => Ok(Personality::NullBlk),
            "zbc" | "zac" | "smr" => Ok(Personality::Zbc),
            "zns" | "nvme" => Ok(Personality::Zns),
            _ => Err(UnknownPersonality(s.to_string())),
        }
    }
}
