//! The superblock checksum: the kernel's `crc32_le` (reflected polynomial 0xEDB88320), seeded
//! with `~0` and without the final inversion that zlib's CRC-32 applies. zonefs calls it as
//! `crc32(~0U, super, 4096)` with the `s_crc` field zeroed.

/// The reflected CRC-32 polynomial (IEEE 802.3).
const POLY: u32 = 0xEDB8_8320;

/// Byte-at-a-time table for [`POLY`], built at compile time.
const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// `crc32_le(seed, data)`: the running CRC `seed` continued over `data`, no final inversion.
/// `crc32_le(!0, b"123456789")` is `0x340BC6D9` (the IEEE check value `0xCBF43926`, inverted).
pub fn crc32_le(seed: u32, data: &[u8]) -> u32 {
    data.iter().fold(seed, |c, &b| (c >> 8) ^ TABLE[((c ^ u32::from(b)) & 0xFF) as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        // The IEEE CRC-32 check value is 0xCBF43926 with the final inversion; the kernel's
        // crc32_le leaves it out.
        assert_eq!(crc32_le(!0, b"123456789"), !0xCBF4_3926);
        assert_eq!(crc32_le(!0, b""), 0xFFFF_FFFF);
        assert_eq!(crc32_le(0, b""), 0);
        // zlib.crc32(b"a") == 0xE8B7BE43.
        assert_eq!(crc32_le(!0, b"a"), !0xE8B7_BE43);
        // 4096 zero bytes: zlib.crc32(bytes(4096)) == 0xC71C0011.
        assert_eq!(crc32_le(!0, &[0u8; 4096]), !0xC71C_0011);
        // Continuing a CRC over a split buffer gives the same value.
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        assert_eq!(crc32_le(crc32_le(!0, &data[..333]), &data[333..]), crc32_le(!0, &data));
    }
}
