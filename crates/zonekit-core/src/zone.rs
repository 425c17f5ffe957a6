//! Zones as the kernel reports them: type, condition and the `struct blk_zone` fields.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Zone type, with the kernel's `enum blk_zone_type` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneType {
    /// Random writes anywhere; no write pointer (`BLK_ZONE_TYPE_CONVENTIONAL` = 1).
    Conventional,
    /// Writes only at the write pointer (`BLK_ZONE_TYPE_SEQWRITE_REQ` = 2): host-managed SMR, ZNS.
    SeqWriteRequired,
    /// Sequential writes preferred, random ones tolerated (`BLK_ZONE_TYPE_SEQWRITE_PREF` = 3):
    /// host-aware SMR.
    SeqWritePreferred,
}

impl ZoneType {
    /// The kernel's numeric value.
    pub fn code(self) -> u8 {
        match self {
            ZoneType::Conventional => 1,
            ZoneType::SeqWriteRequired => 2,
            ZoneType::SeqWritePreferred => 3,
        }
    }

    /// Decode the kernel's numeric value.
    pub fn from_code(code: u8) -> Option<ZoneType> {
        match code {
            1 => Some(ZoneType::Conventional),
            2 => Some(ZoneType::SeqWriteRequired),
            3 => Some(ZoneType::SeqWritePreferred),
            _ => None,
        }
    }

    /// blkzone's name (`SEQ_WRITE_REQUIRED`).
    pub fn blkzone_name(self) -> &'static str {
        match self {
            ZoneType::Conventional => "CONVENTIONAL",
            ZoneType::SeqWriteRequired => "SEQ_WRITE_REQUIRED",
            ZoneType::SeqWritePreferred => "SEQ_WRITE_PREFERRED",
        }
    }

    /// libzbc's name (`Sequential-write-required`).
    pub fn zbc_name(self) -> &'static str {
        match self {
            ZoneType::Conventional => "Conventional",
            ZoneType::SeqWriteRequired => "Sequential-write-required",
            ZoneType::SeqWritePreferred => "Sequential-write-preferred",
        }
    }

    /// Whether the zone has a write pointer.
    pub fn is_sequential(self) -> bool {
        self != ZoneType::Conventional
    }
}

/// Zone condition, with the kernel's `enum blk_zone_cond` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneCond {
    /// Conventional zone: no write pointer (0x0).
    NotWp,
    /// Nothing written, write pointer at the zone start (0x1).
    Empty,
    /// Opened by a write (0x2); the device may close it to make room.
    ImplicitOpen,
    /// Opened by an explicit OPEN ZONE (0x3); only the host closes it.
    ExplicitOpen,
    /// Partly written, not open (0x4); counts against the active limit.
    Closed,
    /// Readable only (0xD); the write pointer is invalid.
    ReadOnly,
    /// Write pointer at the zone capacity, or finished (0xE).
    Full,
    /// Neither readable nor writable (0xF).
    Offline,
}

/// Every condition, in numeric order.
pub const ALL_CONDS: [ZoneCond; 8] = [
    ZoneCond::NotWp,
    ZoneCond::Empty,
    ZoneCond::ImplicitOpen,
    ZoneCond::ExplicitOpen,
    ZoneCond::Closed,
    ZoneCond::ReadOnly,
    ZoneCond::Full,
    ZoneCond::Offline,
];

impl ZoneCond {
    /// The kernel's numeric value.
    pub fn code(self) -> u8 {
        match self {
            ZoneCond::NotWp => 0x0,
            ZoneCond::Empty => 0x1,
            ZoneCond::ImplicitOpen => 0x2,
            ZoneCond::ExplicitOpen => 0x3,
            ZoneCond::Closed => 0x4,
            ZoneCond::ReadOnly => 0xd,
            ZoneCond::Full => 0xe,
            ZoneCond::Offline => 0xf,
        }
    }

    /// Decode the kernel's numeric value.
    pub fn from_code(code: u8) -> Option<ZoneCond> {
        ALL_CONDS.into_iter().find(|c| c.code() == code)
    }

    /// blkzone's two-letter abbreviation (`oi`); offline is `of`, as blkzone's code prints it.
    pub fn short_name(self) -> &'static str {
        match self {
            ZoneCond::NotWp => "nw",
            ZoneCond::Empty => "em",
            ZoneCond::ImplicitOpen => "oi",
            ZoneCond::ExplicitOpen => "oe",
            ZoneCond::Closed => "cl",
            ZoneCond::ReadOnly => "ro",
            ZoneCond::Full => "fu",
            ZoneCond::Offline => "of",
        }
    }

    /// The full name zonekit accepts and prints in JSON (`imp_open`).
    pub fn long_name(self) -> &'static str {
        match self {
            ZoneCond::NotWp => "not_wp",
            ZoneCond::Empty => "empty",
            ZoneCond::ImplicitOpen => "imp_open",
            ZoneCond::ExplicitOpen => "exp_open",
            ZoneCond::Closed => "closed",
            ZoneCond::ReadOnly => "read_only",
            ZoneCond::Full => "full",
            ZoneCond::Offline => "offline",
        }
    }

    /// libzbc's name (`Implicit-open`).
    pub fn zbc_name(self) -> &'static str {
        match self {
            ZoneCond::NotWp => "Not-write-pointer",
            ZoneCond::Empty => "Empty",
            ZoneCond::ImplicitOpen => "Implicit-open",
            ZoneCond::ExplicitOpen => "Explicit-open",
            ZoneCond::Closed => "Closed",
            ZoneCond::ReadOnly => "Read-only",
            ZoneCond::Full => "Full",
            ZoneCond::Offline => "Offline",
        }
    }

    /// Implicitly or explicitly open: counts against the open limit.
    pub fn is_open(self) -> bool {
        matches!(self, ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen)
    }

    /// Open or closed: counts against the active limit.
    pub fn is_active(self) -> bool {
        self.is_open() || self == ZoneCond::Closed
    }
}

impl fmt::Display for ZoneCond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.long_name())
    }
}

/// Error of parsing a condition name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown zone condition '{0}' (expected one of nw/not_wp, em/empty, oi/imp_open, oe/exp_open, cl/closed, ro/read_only, fu/full, of/offline)"
)]
pub struct UnknownCond(pub String);

impl FromStr for ZoneCond {
    type Err = UnknownCond;

    /// Accepts blkzone's abbreviation or the full name, case-insensitively (`ol` too, as blkzone's
    /// man page spells offline).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_lowercase();
        if l == "ol" {
            return Ok(ZoneCond::Offline);
        }
        ALL_CONDS
            .into_iter()
            .find(|c| c.short_name() == l || c.long_name() == l)
            .ok_or_else(|| UnknownCond(s.to_string()))
    }
}

/// One zone as a zone report describes it (`struct blk_zone`); all positions in sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Zone {
    /// First sector of the zone.
    pub start: u64,
    /// Zone length in sectors (the last zone may be shorter than the others).
    pub len: u64,
    /// Writable sectors from the start (≤ `len`).
    pub capacity: u64,
    /// Write pointer, absolute. Conventional zones report `start + len`; read-only and offline zones
    /// report `u64::MAX` (invalid), as null_blk does.
    pub wp: u64,
    /// Zone type.
    #[serde(rename = "type")]
    pub zone_type: ZoneType,
    /// Zone condition.
    pub cond: ZoneCond,
    /// Written non-sequentially (host-aware zones only).
    pub non_seq: bool,
    /// The device recommends a reset.
    pub reset: bool,
}

impl Zone {
    /// Zone end (exclusive).
    pub fn end(&self) -> u64 {
        self.start + self.len
    }

    /// Sectors written so far (`wp - start`), clamped to the zone length; conventional zones
    /// count as written.
    pub fn written(&self) -> u64 {
        self.wp.saturating_sub(self.start).min(self.len)
    }

    /// The zone as blkzone 2.38's `report` prints it (with zone capacity), without the newline.
    pub fn blkzone_line(&self) -> String {
        let wptr = if self.zone_type == ZoneType::Conventional { 0 } else { self.wp.wrapping_sub(self.start) };
        format!(
            "  start: 0x{:09x}, len 0x{:06x}, cap 0x{:06x}, wptr 0x{:06x} reset:{} non-seq:{}, zcond:{:2}({}) [type: {}({})]",
            self.start,
            self.len,
            self.capacity,
            wptr,
            u8::from(self.reset),
            u8::from(self.non_seq),
            self.cond.code(),
            self.cond.short_name(),
            self.zone_type.code(),
            self.zone_type.blkzone_name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cond_codes_round_trip() {
        for c in ALL_CONDS {
            assert_eq!(ZoneCond::from_code(c.code()), Some(c));
            assert_eq!(c.short_name().parse::<ZoneCond>(), Ok(c));
            assert_eq!(c.long_name().parse::<ZoneCond>(), Ok(c));
        }
        assert_eq!(ZoneCond::from_code(5), None);
        assert_eq!("OL".parse::<ZoneCond>(), Ok(ZoneCond::Offline));
        assert!("bogus".parse::<ZoneCond>().is_err());
    }

    #[test]
    fn type_codes_round_trip() {
        for t in [ZoneType::Conventional, ZoneType::SeqWriteRequired, ZoneType::SeqWritePreferred] {
            assert_eq!(ZoneType::from_code(t.code()), Some(t));
        }
        assert_eq!(ZoneType::from_code(0), None);
    }
}
