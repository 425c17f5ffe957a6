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
//! In all three, resource limits become `ETOOMANYREFS` (open) and `EOVERFLOW` (active). A command
//! the device cannot take at all (past its end, not in whole logical blocks, a management command
//! not on whole zones) is refused like any other bad command of the transport; the block layer
//! (`zonekit-blk`) checks first and refuses such calls with `EINVAL` before a device sees them.
//!
//! Every difference the zone state machine makes between them is a field of [`ZoneRules`]
//! ([`Personality::rules`]), documented with the device it comes from.

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

/// How a conventional zone's write pointer appears in a zone report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConventionalWp {
    /// At the zone end (null_blk fills the field with `start + len`).
    ZoneEnd,
    /// All ones, in logical blocks, converted to sectors by the kernel's `sd` driver (a SCSI
    /// drive's WRITE POINTER field of a conventional zone; scsi_debug does the same).
    AllOnes,
}

/// Which rule a bad write is reported as breaking first when it breaks several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteCheckOrder {
    /// The write's range (crossing the zone end, then past the capacity), then the zone's
    /// condition, then the write pointer: scsi_debug's `check_zbc_access_params`.
    RangeFirst,
    /// The zone's condition, then the write pointer, then the range: QEMU's
    /// `nvme_check_zone_write`. null_blk fails all of them with one `BLK_STS_IOERR`, testing the
    /// write pointer first, and is classified the same way.
    ConditionFirst,
}

/// How the open and active limits are checked when a zone leaves EMPTY or CLOSED for an open
/// condition (a write, an explicit open, and for null_blk a finish).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceCheck {
    /// The active limit first (EMPTY zones only: `EOVERFLOW`), then the open limit; at the open
    /// limit, an implicitly open zone is closed to make room, else `ETOOMANYREFS`.
    ///
    /// With `evict_needs_active_room`, the close happens only if the active check passes on the
    /// current counters, even for a CLOSED zone whose move would not change them: null_blk's
    /// `null_check_zone_resources` / `null_check_open`, whose quirk (a closed zone cannot be
    /// reopened with both limits saturated) is kept. Without it, whenever an implicitly open zone
    /// exists: scsi_debug's `zbc_open_zone` (which has no active limit; zonekit applies one when
    /// configured, checked as null_blk checks it).
    ActiveThenOpen {
        /// Close an implicitly open zone only when the active check passes (null_blk).
        evict_needs_active_room: bool,
    },
    /// QEMU's `nvme_zrm_open_flags` with `auto_transition`: when the open count is at the limit,
    /// the oldest implicitly open zone is closed first; then `active + (empty ? 1 : 0) >
    /// max_active` is `EOVERFLOW`, then `open + 1 > max_open` is `ETOOMANYREFS`. The close stands
    /// even when a check then fails.
    CloseFirst,
}

/// Every way the personalities differ in the zone state machine, as plain values: the state
/// machine reads these fields and never asks which personality it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneRules {
    /// The errno of a zone rule broken on the device side (not a limit), and of a command the
    /// device cannot take (past its end, not in whole logical blocks or zones):
    /// `EIO` for null_blk (`BLK_STS_IOERR`) and NVMe (zone status codes); `EREMOTEIO` for SCSI,
    /// whose ILLEGAL REQUEST and DATA PROTECT sense data `scsi_check_sense` marks as target
    /// failures (`BLK_STS_TARGET`).
    pub zone_rule_errno: Errno,
    /// What a read returns beyond a zone's write pointer: `0xff` for null_blk
    /// (`null_zone_valid_read_len` leaves the buffer filled); zeros for scsi_debug and QEMU.
    pub read_fill: u8,
    /// A FULL zone reports its write pointer at the zone end: the kernel's `sd_zbc` and `nvme`
    /// drivers present it so. null_blk reports its own value (`start + capacity` when filled by
    /// writes, `start + len` when finished).
    pub full_wp_at_zone_end: bool,
    /// How a conventional zone's write pointer is reported.
    pub conventional_wp: ConventionalWp,
    /// Which rule a bad write breaks first.
    pub write_check_order: WriteCheckOrder,
    /// An explicit open of a FULL zone succeeds and changes nothing (scsi_debug's
    /// `resp_open_zone`); null_blk and QEMU refuse it as an invalid transition.
    pub open_full_is_noop: bool,
    /// A close of an EMPTY or FULL zone succeeds and changes nothing (scsi_debug's
    /// `resp_close_zone`); null_blk and QEMU refuse it as an invalid transition.
    pub close_inactive_is_noop: bool,
    /// An open zone closed with nothing written (write pointer at the zone start) becomes EMPTY
    /// (null_blk's `null_close_zone`, scsi_debug's `zbc_close_zone`); QEMU's `nvme_zrm_close`
    /// always makes it CLOSED, keeping its active resource. Applies to closes by command and to
    /// zones closed to make room.
    pub close_unwritten_to_empty: bool,
    /// A finish of an EMPTY or CLOSED zone goes through the open resource check (null_blk's
    /// `null_finish_zone`: ZNS semantics, finish passes through an open state); scsi_debug and
    /// QEMU finish without checking.
    pub finish_checks_resources: bool,
    /// Which implicitly open zone is closed to make room under the open limit.
    pub eviction: EvictionPolicy,
    /// How the open and active limits are checked.
    pub resource_check: ResourceCheck,
}

/// Linux null_blk (`drivers/block/null_blk/zoned.c`).
static NULLBLK_RULES: ZoneRules = ZoneRules {
    zone_rule_errno: Errno::EIO,
    read_fill: 0xff,
    full_wp_at_zone_end: false,
    conventional_wp: ConventionalWp::ZoneEnd,
    write_check_order: WriteCheckOrder::ConditionFirst,
    open_full_is_noop: false,
    close_inactive_is_noop: false,
    close_unwritten_to_empty: true,
    finish_checks_resources: true,
    eviction: EvictionPolicy::RoundRobin,
    resource_check: ResourceCheck::ActiveThenOpen { evict_needs_active_room: true },
};

/// SCSI host-managed: the kernel's scsi_debug (`zbc=managed`) and `sd_zbc`, tcmu-runner's
/// `file_zbc` for the eviction choice.
static ZBC_RULES: ZoneRules = ZoneRules {
    zone_rule_errno: Errno::EREMOTEIO,
    read_fill: 0x00,
    full_wp_at_zone_end: true,
    conventional_wp: ConventionalWp::AllOnes,
    write_check_order: WriteCheckOrder::RangeFirst,
    open_full_is_noop: true,
    close_inactive_is_noop: true,
    close_unwritten_to_empty: true,
    finish_checks_resources: false,
    eviction: EvictionPolicy::LowestNumbered,
    resource_check: ResourceCheck::ActiveThenOpen { evict_needs_active_room: false },
};

/// NVMe ZNS: QEMU's `hw/nvme` with `auto_transition`, and the kernel's `nvme` driver.
static ZNS_RULES: ZoneRules = ZoneRules {
    zone_rule_errno: Errno::EIO,
    read_fill: 0x00,
    full_wp_at_zone_end: true,
    conventional_wp: ConventionalWp::ZoneEnd,
    write_check_order: WriteCheckOrder::ConditionFirst,
    open_full_is_noop: false,
    close_inactive_is_noop: false,
    close_unwritten_to_empty: false,
    finish_checks_resources: false,
    eviction: EvictionPolicy::Oldest,
    resource_check: ResourceCheck::CloseFirst,
};

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

    /// The zone state machine's rules for this personality: every difference between the
    /// transports, as named values.
    pub fn rules(self) -> &'static ZoneRules {
        match self {
            Personality::NullBlk => &NULLBLK_RULES,
            Personality::Zbc => &ZBC_RULES,
            Personality::Zns => &ZNS_RULES,
        }
    }

    /// The errno userspace sees for `kind` on this transport.
    pub fn errno(self, kind: ZoneErrorKind) -> Errno {
        use ZoneErrorKind::*;
        match kind {
            OpenLimit => Errno::ETOOMANYREFS,
            ActiveLimit => Errno::EOVERFLOW,
            // The block layer refuses malformed zone appends itself, on every transport.
            AppendNotZoneStart | AppendTooLarge => Errno::EIO,
            _ => self.rules().zone_rule_errno,
        }
    }

    /// What a read returns for sectors beyond a zone's write pointer.
    pub fn read_fill(self) -> u8 {
        self.rules().read_fill
    }

    /// The eviction policy at the open limit.
    pub fn eviction(self) -> EvictionPolicy {
        self.rules().eviction
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
