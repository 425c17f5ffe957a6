//! What the crash tests share: a seeded generator and the data patterns they write and check.

/// splitmix64: the seeding and hashing step.
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xorshift64*, seeded through splitmix64.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(splitmix(seed) | 1)
    }

    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Bytes `[offset, offset + len)` (whole `grain`s) of the data tagged `tag` in zone `zone`: every
/// `grain` bytes one 8-byte word repeated, different for every zone, tag and position; cheap to
/// make and compare in an unoptimised test build.
pub fn pattern(grain: u64, zone: u32, tag: u64, offset: u64, len: u64) -> Vec<u8> {
    let key = splitmix(u64::from(zone) << 40 ^ tag);
    let mut out = Vec::with_capacity(len as usize);
    for g in offset / grain..(offset + len) / grain {
        out.extend_from_slice(&splitmix(key ^ g).to_le_bytes().repeat((grain / 8) as usize));
    }
    out
}
