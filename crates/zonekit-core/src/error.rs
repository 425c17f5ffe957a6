//! Errors of the zone model: geometry validation, and the kinds of zone-rule violations that a
//! device personality turns into an errno.

/// A geometry or limit that no device can have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// The logical block size is neither 512 nor 4096 bytes.
    #[error("logical block size {0} is not 512 or 4096")]
    BlockSize(u32),
    /// A zone size of zero.
    #[error("zone size must not be zero")]
    ZoneSizeZero,
    /// The zone size is not a multiple of the logical block size.
    #[error("zone size of {zone_size} sectors is not a multiple of the {logical_block_size}-byte logical block size")]
    ZoneSizeUnaligned {
        /// Zone size in sectors.
        zone_size: u64,
        /// Logical block size in bytes.
        logical_block_size: u32,
    },
    /// The zone capacity is zero or not a multiple of the logical block size.
    #[error(
        "zone capacity of {zone_capacity} sectors is zero or not a multiple of the {logical_block_size}-byte logical block size"
    )]
    ZoneCapacityUnaligned {
        /// Zone capacity in sectors.
        zone_capacity: u64,
        /// Logical block size in bytes.
        logical_block_size: u32,
    },
    /// A zone size given in bytes that is not whole 512-byte sectors.
    #[error("zone size of {0} bytes is not a whole number of 512-byte sectors")]
    ZoneSizeNotSectors(u64),
    /// A zone capacity given in bytes that is not whole 512-byte sectors.
    #[error("zone capacity of {0} bytes is not a whole number of 512-byte sectors")]
    ZoneCapacityNotSectors(u64),
    /// Zone capacity larger than the zone size.
    #[error("zone capacity ({zone_capacity} sectors) is larger than the zone size ({zone_size} sectors)")]
    CapacityLargerThanSize {
        /// Zone capacity in sectors.
        zone_capacity: u64,
        /// Zone size in sectors.
        zone_size: u64,
    },
    /// The device is smaller than one zone.
    #[error("device capacity ({capacity} sectors) is smaller than the zone size ({zone_size} sectors)")]
    DeviceSmallerThanZone {
        /// Device capacity in sectors.
        capacity: u64,
        /// Zone size in sectors.
        zone_size: u64,
    },
    /// A smaller last zone together with a zone capacity below the zone size (null_blk refuses it).
    #[error("a smaller last zone is not allowed with a zone capacity smaller than the zone size")]
    SmallerLastZoneWithCapacity,
    /// No zones at all.
    #[error("a device needs at least one zone")]
    NoZones,
    /// More zones than a `u32` counts.
    #[error("{0} zones is more than zonekit keeps in memory (at most {max})", max = crate::geometry::MAX_ZONES)]
    TooManyZones(u64),
    /// Every zone conventional.
    #[error("{nr_conv_zones} conventional zones leave no sequential zone out of {nr_zones}")]
    NoSequentialZones {
        /// Requested conventional zones.
        nr_conv_zones: u32,
        /// Total zones.
        nr_zones: u32,
    },
    /// Open limit above the active limit.
    #[error("max open zones ({max_open}) is larger than max active zones ({max_active})")]
    OpenAboveActive {
        /// Requested open limit.
        max_open: u32,
        /// Requested active limit.
        max_active: u32,
    },
    /// The zone size is not a power of two where the kernel requires one.
    #[error("zone size of {0} sectors is not a power of two")]
    ZoneSizeNotPowerOfTwo(u64),
}

/// What kind of rule an I/O or zone operation broke. The state machine returns kinds; the device's
/// [`Personality`](crate::Personality) decides which errno each becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum ZoneErrorKind {
    /// A command whose sector or length is not in whole logical blocks. The device refuses it with
    /// its transport's errno; the block layer never sends one (it refuses the call: `EINVAL`).
    #[error("not aligned to the logical block size")]
    Unaligned,
    /// A command past the end of the device, or empty. The device refuses it with its transport's
    /// errno; the block layer never sends one (it cuts I/O at the device end and refuses
    /// management ranges past it: `EINVAL`).
    #[error("range past the end of the device")]
    OutOfRange,
    /// A zone management command not on whole zones. The device refuses it with its transport's
    /// errno; the block layer never sends one (it refuses the range: `EINVAL`).
    #[error("range not aligned to the zone size")]
    MgmtUnaligned,
    /// A write not at the zone's write pointer.
    #[error("write not at the write pointer")]
    NotWritePointer,
    /// A write that would go past the zone capacity.
    #[error("write past the zone capacity")]
    PastCapacity,
    /// A write or append to a full zone.
    #[error("zone is full")]
    ZoneFull,
    /// A write that crosses a zone boundary.
    #[error("write crosses a zone boundary")]
    BoundaryCrossing,
    /// No room under the open-zone limit (`BLK_STS_ZONE_OPEN_RESOURCE`).
    #[error("too many open zones")]
    OpenLimit,
    /// No room under the active-zone limit (`BLK_STS_ZONE_ACTIVE_RESOURCE`).
    #[error("too many active zones")]
    ActiveLimit,
    /// A zone management operation the zone's condition does not allow.
    #[error("invalid zone state transition")]
    InvalidTransition,
    /// A zone management operation or zone append on a conventional zone.
    #[error("conventional zone")]
    Conventional,
    /// A write or management operation on a read-only zone.
    #[error("zone is read-only")]
    ReadOnly,
    /// Any I/O or management operation on an offline zone.
    #[error("zone is offline")]
    Offline,
    /// A zone append whose sector is not the start of a sequential zone.
    #[error("zone append not at the start of a sequential zone")]
    AppendNotZoneStart,
    /// A zone append longer than the device's limit (or the device has no zone append).
    #[error("zone append larger than the device limit")]
    AppendTooLarge,
}

/// A zone-rule violation: its kind and where it happened. Displays as
/// `zone 3 (sector 6144): write not at the write pointer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneError {
    /// The rule broken.
    pub kind: ZoneErrorKind,
    /// The zone concerned, if the sector is on the device.
    pub zone: Option<u32>,
    /// The sector of the operation.
    pub sector: u64,
}

impl ZoneError {
    /// An error of `kind` at `sector` in `zone`.
    pub fn new(kind: ZoneErrorKind, zone: Option<u32>, sector: u64) -> ZoneError {
        ZoneError { kind, zone, sector }
    }
}

impl std::fmt::Display for ZoneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.zone {
            Some(z) => write!(f, "zone {z} (sector {}): {}", self.sector, self.kind),
            None => write!(f, "sector {}: {}", self.sector, self.kind),
        }
    }
}

impl std::error::Error for ZoneError {}
