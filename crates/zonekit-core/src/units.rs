//! Units: 512-byte sectors, as the kernel's block layer counts them.
//!
//! Every offset and length inside zonekit's zone model is a sector count (`u64`); bytes appear only at
//! the edges (data buffers, user-facing sizes).

/// Size of a sector in bytes: the kernel's `SECTOR_SIZE`, whatever the device's logical block size.
pub const SECTOR_SIZE: u64 = 512;
/// `log2(SECTOR_SIZE)`.
pub const SECTOR_SHIFT: u32 = 9;

/// Bytes to whole sectors; `None` if `bytes` is not a multiple of 512.
pub fn bytes_to_sectors(bytes: u64) -> Option<u64> {
    bytes.is_multiple_of(SECTOR_SIZE).then_some(bytes >> SECTOR_SHIFT)
}

/// Sectors to bytes; saturates rather than wrapping on absurd values.
pub fn sectors_to_bytes(sectors: u64) -> u64 {
    sectors.saturating_mul(SECTOR_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(bytes_to_sectors(4096), Some(8));
        assert_eq!(bytes_to_sectors(4095), None);
        assert_eq!(sectors_to_bytes(8), 4096);
        assert_eq!(sectors_to_bytes(u64::MAX), u64::MAX);
    }
}
