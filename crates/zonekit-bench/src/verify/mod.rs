//! Data verification as fio 3.33 does it (`verify=`): every verify interval of a written block
//! starts with fio's header, followed by the digest of the rest of the interval, so that data
//! written by fio verifies here and the reverse; reads check the header (magic, length, seed,
//! offset, number, header CRC) then the digest or the pattern, and a failure is reported with
//! fio's lines.
//!
//! The header (little-endian, 40 bytes): `u16 magic 0xacca`, `u16 verify_type` (fio's enum
//! number), `u32 len` (the interval), `u64 rand_seed`, `u64 offset` (of the interval), `u32 time_sec`,
//! `u32 time_nsec`, `u16 thread` (1-based job number), `u16 numberio` (the write's number in the
//! job), `u32 crc32` (fio's CRC32C, see [`fio_crc32c`], of the 36 bytes before it).
//!
//! fio's digests are not all the textbook ones: its CRC32C and CRC32 skip the final inversion,
//! its SHA-1 words are stored little-endian, its SHA-256 field holds the low byte of each state
//! word over its last padded block (with the bit count appended little-endian), and its SHA-512
//! field is never finalised: it is the hash's 128-byte input buffer. [`digest`] reproduces each,
//! on top of the kept crates' primitives.

pub mod pattern;
pub mod run;
pub mod state;

pub use pattern::Pattern;

use crc::{CRC_7_MMC, CRC_16_ARC, CRC_32_CKSUM, CRC_64_REDIS, Crc};
use sha2::Digest as _;

/// fio's `fixup_options` for verification, once a job's options are all read: `verify_pattern`
/// alone selects [`VerifyType::Pattern`]; the interval defaults to the write block size and is
/// kept a divisor of the write sizes; the header must fit the interval. The error is the reason
/// for the job's one-line refusal.
pub fn resolve_options(o: &mut crate::options::job::JobOptions) -> Result<(), String> {
    if o.verify.pattern.is_some() && !o.is_set("verify") {
        o.verify.kind = VerifyType::Pattern;
    }
    if o.verify.kind == VerifyType::None {
        return Ok(());
    }
    if matches!(o.verify.kind, VerifyType::Pattern | VerifyType::PatternNoHdr) && o.verify.pattern.is_none() {
        return Err("verify=pattern needs verify_pattern".into());
    }
    if !o.is_set("refill_buffers") {
        o.refill_buffers = true;
    }
    let (min_w, max_w, min_r) = (o.min_bs[1], o.max_bs[1], o.min_bs[0]);
    let mut vi = u64::from(o.verify.interval);
    if max_w != min_w && vi == 0 {
        vi = min_w;
    }
    if vi > min_w {
        vi = min_w;
    } else if o.rw.reads() && vi > min_r {
        vi = min_r;
    }
    if vi == 0 || min_w % vi != 0 || max_w % vi != 0 {
        vi = gcd(min_w, max_w);
    }
    o.verify.interval = u32::try_from(vi).unwrap_or(u32::MAX);
    let hs = o.verify.kind.hdr_size() as u64;
    if hs > 0 && vi <= hs {
        return Err(format!(
            "verify={}: the verify interval ({vi} bytes) must be larger than the header and digest ({hs} bytes)",
            o.verify.kind.option_name()
        ));
    }
    if o.verify.offset > 0 && u64::from(o.verify.offset) + hs > vi {
        return Err(format!(
            "verify_offset={}: the header ({hs} bytes) must fit in the verify interval ({vi} bytes) after it",
            o.verify.offset
        ));
    }
    Ok(())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// fio's magic number at the start of every verify header.
pub const HDR_MAGIC: u16 = 0xacca;
/// Bytes of fio's verify header, before the digest.
pub const HDR_LEN: usize = 40;

/// A verify method, with fio 3.33's number for it (stored in each header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum VerifyType {
    /// No verification.
    None = 0,
    /// `meta`: the header only.
    Meta = 1,
    /// MD5.
    Md5 = 2,
    /// fio's CRC-64 (the Jones polynomial, reflected, no inversion).
    Crc64 = 3,
    /// fio's CRC-32 (polynomial 0x04c11db7, MSB first, no inversion).
    Crc32 = 4,
    /// fio's CRC-32C (Castagnoli, initial all ones, no final inversion).
    Crc32c = 5,
    /// The same CRC-32C, by fio's hardware path.
    Crc32cIntel = 6,
    /// CRC-16 (0x8005 reflected, as the kernel's crc16).
    Crc16 = 7,
    /// CRC-7 (0x09, as the kernel's old crc7).
    Crc7 = 8,
    /// fio's SHA-256 variant.
    Sha256 = 9,
    /// fio's SHA-512 variant.
    Sha512 = 10,
    /// SHA3-224.
    Sha3_224 = 11,
    /// SHA3-256.
    Sha3_256 = 12,
    /// SHA3-384.
    Sha3_384 = 13,
    /// SHA3-512.
    Sha3_512 = 14,
    /// XXH32 with seed 1.
    Xxhash = 15,
    /// SHA-1, words stored little-endian.
    Sha1 = 16,
    /// Header, then `verify_pattern` (what `verify_pattern` alone selects).
    Pattern = 17,
    /// `verify=pattern`: the pattern only, no header.
    PatternNoHdr = 18,
    /// `null`: write and read, check nothing.
    Null = 19,
}

impl VerifyType {
    /// The method a `verify=` value names (the option table has already checked the name).
    pub fn from_option(name: &str) -> VerifyType {
        match name {
            "md5" => VerifyType::Md5,
            "crc64" => VerifyType::Crc64,
            "crc32" => VerifyType::Crc32,
            "crc32c" => VerifyType::Crc32c,
            "crc32c-intel" => VerifyType::Crc32c,
            "crc16" => VerifyType::Crc16,
            "crc7" => VerifyType::Crc7,
            "sha1" => VerifyType::Sha1,
            "sha256" => VerifyType::Sha256,
            "sha512" => VerifyType::Sha512,
            "sha3-224" => VerifyType::Sha3_224,
            "sha3-256" => VerifyType::Sha3_256,
            "sha3-384" => VerifyType::Sha3_384,
            "sha3-512" => VerifyType::Sha3_512,
            "xxhash" => VerifyType::Xxhash,
            "meta" => VerifyType::Meta,
            "pattern" => VerifyType::PatternNoHdr,
            "null" => VerifyType::Null,
            _ => VerifyType::None,
        }
    }

    /// The `verify=` value that selects this method.
    pub fn option_name(self) -> &'static str {
        match self {
            VerifyType::None => "0",
            VerifyType::Meta => "meta",
            VerifyType::Pattern | VerifyType::PatternNoHdr => "pattern",
            VerifyType::Null => "null",
            VerifyType::Crc32cIntel => "crc32c-intel",
            t => t.failure_name(),
        }
    }

    /// The method stored as `code` in a header, if fio knows it.
    pub fn from_code(code: u16) -> Option<VerifyType> {
        use VerifyType::*;
        const ALL: [VerifyType; 20] = [
            None,
            Meta,
            Md5,
            Crc64,
            Crc32,
            Crc32c,
            Crc32cIntel,
            Crc16,
            Crc7,
            Sha256,
            Sha512,
            Sha3_224,
            Sha3_256,
            Sha3_384,
            Sha3_512,
            Xxhash,
            Sha1,
            Pattern,
            PatternNoHdr,
            Null,
        ];
        ALL.get(usize::from(code)).copied()
    }

    /// Bytes of the digest that follows the header (fio's `vhdr_*` structures).
    pub fn digest_len(self) -> usize {
        match self {
            VerifyType::Md5 => 16,
            VerifyType::Crc64 => 8,
            VerifyType::Crc32 | VerifyType::Crc32c | VerifyType::Crc32cIntel | VerifyType::Xxhash => 4,
            VerifyType::Crc16 => 2,
            VerifyType::Crc7 => 1,
            VerifyType::Sha256 => 64,
            VerifyType::Sha512 => 128,
            VerifyType::Sha3_224 => 28,
            VerifyType::Sha3_256 => 32,
            VerifyType::Sha3_384 => 48,
            VerifyType::Sha3_512 => 64,
            VerifyType::Sha1 => 20,
            _ => 0,
        }
    }

    /// Bytes of header and digest at the start of each interval (0 without a header).
    pub fn hdr_size(self) -> usize {
        match self {
            VerifyType::PatternNoHdr => 0,
            t => HDR_LEN + t.digest_len(),
        }
    }

    /// The name fio prints in a digest failure (`md5: verify failed …`).
    pub fn failure_name(self) -> &'static str {
        match self {
            VerifyType::Md5 => "md5",
            VerifyType::Crc64 => "crc64",
            VerifyType::Crc32 => "crc32",
            VerifyType::Crc32c | VerifyType::Crc32cIntel => "crc32c",
            VerifyType::Crc16 => "crc16",
            VerifyType::Crc7 => "crc7",
            VerifyType::Sha256 => "sha256",
            VerifyType::Sha512 => "sha512",
            VerifyType::Sha3_224 => "sha3-224",
            VerifyType::Sha3_256 => "sha3-256",
            VerifyType::Sha3_384 => "sha3-384",
            VerifyType::Sha3_512 => "sha3-512",
            VerifyType::Xxhash => "xxhash",
            VerifyType::Sha1 => "sha1",
            _ => "pattern",
        }
    }
}

static CRC64: Crc<u64> = Crc::<u64>::new(&CRC_64_REDIS);
static CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_CKSUM);
static CRC16: Crc<u16> = Crc::<u16>::new(&CRC_16_ARC);
static CRC7: Crc<u8> = Crc::<u8>::new(&CRC_7_MMC);

/// fio's `fio_crc32c`: CRC-32C without the final inversion (headers, state files, `crc32c`).
#[inline]
pub fn fio_crc32c(data: &[u8]) -> u32 {
    !crc32c::crc32c(data)
}

/// fio's SHA-256 field: SHA-256 rounds over `data`, padded with the bit count appended
/// little-endian; the low byte of each of the 8 state words, then bytes 8..64 of the last block.
fn fio_sha256(data: &[u8], out: &mut [u8]) {
    use sha2::digest::generic_array::GenericArray;
    const IV: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut state = IV;
    let full = data.len() / 64 * 64;
    let blocks: Vec<GenericArray<u8, _>> = data[..full].chunks_exact(64).map(GenericArray::clone_from_slice).collect();
    sha2::compress256(&mut state, &blocks);
    let tail = &data[full..];
    let mut last = [0u8; 128];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] = 0x80;
    let total = if tail.len() < 56 { 64 } else { 128 };
    let bits = ((data.len() as u32 as u64) << 3).to_le_bytes();
    last[total - 8..total].copy_from_slice(&bits);
    let tail_blocks: Vec<GenericArray<u8, _>> =
        last[..total].chunks_exact(64).map(GenericArray::clone_from_slice).collect();
    sha2::compress256(&mut state, &tail_blocks);
    out[..64].copy_from_slice(&last[total - 64..total]);
    for (o, w) in out.iter_mut().zip(state) {
        *o = w as u8;
    }
}

/// fio's SHA-512 field: the hash's 128-byte input buffer after the data went through it, never
/// finalised: the last partial block's bytes over the first block's.
fn fio_sha512(data: &[u8], out: &mut [u8]) {
    let out = &mut out[..128];
    out.fill(0);
    if data.len() < 128 {
        out[..data.len()].copy_from_slice(data);
        return;
    }
    out.copy_from_slice(&data[..128]);
    let done = data.len() / 128 * 128;
    let rest = &data[done..];
    out[..rest.len()].copy_from_slice(rest);
}

/// The digest of `kind` over `data`, as fio stores it, into `out` (`kind.digest_len()` bytes).
pub fn digest(kind: VerifyType, data: &[u8], out: &mut [u8]) {
    match kind {
        VerifyType::Md5 => out[..16].copy_from_slice(&md5::Md5::digest(data)),
        VerifyType::Crc64 => out[..8].copy_from_slice(&CRC64.checksum(data).to_le_bytes()),
        VerifyType::Crc32 => out[..4].copy_from_slice(&(!CRC32.checksum(data)).to_le_bytes()),
        VerifyType::Crc32c | VerifyType::Crc32cIntel => out[..4].copy_from_slice(&fio_crc32c(data).to_le_bytes()),
        VerifyType::Crc16 => out[..2].copy_from_slice(&CRC16.checksum(data).to_le_bytes()),
        VerifyType::Crc7 => out[0] = CRC7.checksum(data),
        VerifyType::Sha256 => fio_sha256(data, out),
        VerifyType::Sha512 => fio_sha512(data, out),
        VerifyType::Sha3_224 => out[..28].copy_from_slice(&sha3::Sha3_224::digest(data)),
        VerifyType::Sha3_256 => out[..32].copy_from_slice(&sha3::Sha3_256::digest(data)),
        VerifyType::Sha3_384 => out[..48].copy_from_slice(&sha3::Sha3_384::digest(data)),
        VerifyType::Sha3_512 => out[..64].copy_from_slice(&sha3::Sha3_512::digest(data)),
        VerifyType::Xxhash => out[..4].copy_from_slice(&xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes()),
        VerifyType::Sha1 => {
            let d = sha1::Sha1::digest(data);
            for (o, w) in out[..20].chunks_exact_mut(4).zip(d.chunks_exact(4)) {
                o.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
            }
        }
        _ => {}
    }
}

/// fio's verify header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// `0xacca` when valid.
    pub magic: u16,
    /// The method's number.
    pub verify_type: u16,
    /// The interval's length.
    pub len: u32,
    /// Seed of the random data.
    pub rand_seed: u64,
    /// Offset of the interval in the file.
    pub offset: u64,
    /// Write time, seconds.
    pub time_sec: u32,
    /// Write time, nanoseconds.
    pub time_nsec: u32,
    /// The writing job's number (1-based).
    pub thread: u16,
    /// The write's number in its job.
    pub numberio: u16,
    /// CRC of the fields above.
    pub crc32: u32,
}

impl Header {
    /// Reads a header from the first 40 bytes of `b`.
    pub fn read(b: &[u8]) -> Header {
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or_default());
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        Header {
            magic: u16_at(0),
            verify_type: u16_at(2),
            len: u32_at(4),
            rand_seed: u64_at(8),
            offset: u64_at(16),
            time_sec: u32_at(24),
            time_nsec: u32_at(28),
            thread: u16_at(32),
            numberio: u16_at(34),
            crc32: u32_at(36),
        }
    }

    /// Writes the header into the first 40 bytes of `b`, computing its CRC.
    pub fn write(&self, b: &mut [u8]) {
        b[0..2].copy_from_slice(&self.magic.to_le_bytes());
        b[2..4].copy_from_slice(&self.verify_type.to_le_bytes());
        b[4..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..16].copy_from_slice(&self.rand_seed.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.time_sec.to_le_bytes());
        b[28..32].copy_from_slice(&self.time_nsec.to_le_bytes());
        b[32..34].copy_from_slice(&self.thread.to_le_bytes());
        b[34..36].copy_from_slice(&self.numberio.to_le_bytes());
        let crc = fio_crc32c(&b[..36]);
        b[36..40].copy_from_slice(&crc.to_le_bytes());
    }
}

/// How a job verifies: fixed for the job's life.
#[derive(Debug, Clone)]
pub struct VerifySpec {
    /// The method.
    pub kind: VerifyType,
    /// Bytes per header (fio's resolved `verify_interval`).
    pub interval: u32,
    /// Where in each interval the header is swapped to (`verify_offset`).
    pub hdr_offset: u32,
    /// `verify_pattern`.
    pub pattern: Option<Pattern>,
    /// `buffer_compress_percentage`: without `verify_pattern`, this share at the end of each
    /// block is `buffer_pattern` (or zeros) instead of random (fio's `__fill_buffer`).
    pub compress_percentage: u32,
    /// `buffer_pattern`'s bytes (empty: zeros), for the compressible share.
    pub buffer_pattern: Vec<u8>,
    /// Stop checking a block at its first bad interval, and end the job (`verify_fatal`).
    pub fatal: bool,
    /// Write the received and expected data of a failed block to files (`verify_dump`).
    pub dump: bool,
    /// The job's number (1-based), written in each header.
    pub thread: u16,
    /// Check each header's `numberio` against the write's (fio: writing jobs with a fixed block
    /// size, not time-based, not `verify_only`).
    pub check_numberio: bool,
}

/// What the reader of a block expects of it.
#[derive(Debug, Clone, Copy)]
pub struct Expect<'a> {
    /// The file's name, for messages.
    pub file: &'a str,
    /// The block's offset.
    pub offset: u64,
    /// The seed it was written with (`None`: take the header's, as fio does for jobs that do
    /// not both read and write, and with `verify_backlog`).
    pub seed: Option<u64>,
    /// The write's number (checked when the spec says so).
    pub numberio: u16,
    /// fio's `io_u` flags, printed in digest failures (8, or 0x88 for a block of the verify list).
    pub flags: u32,
}

/// A block that failed verification: fio's lines, in order (`fio: ` lines as fio prints them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What fio logs.
    pub lines: Vec<String>,
}

impl VerifySpec {
    /// The bytes between header starts for a block of `len` bytes (fio's `get_hdr_inc`).
    pub fn hdr_inc(&self, len: usize) -> usize {
        let vi = self.interval as usize;
        if vi > 0 && vi <= len { vi } else { len }
    }

    /// Fills a block to be written at `offset`: data (random from `seed`, or the pattern), then a
    /// header and digest per interval. `time` is the write's (seconds, nanoseconds).
    pub fn fill(&self, buf: &mut [u8], offset: u64, seed: u64, numberio: u16, time: (u32, u32)) {
        if self.kind == VerifyType::Null {
            return;
        }
        match &self.pattern {
            Some(p) => p.fill(buf, offset),
            None if self.compress_percentage > 0 => {
                let n = buf.len();
                crate::run::buffers::fill_percentage(seed, buf, self.compress_percentage, n, &self.buffer_pattern);
            }
            None => fill_seeded(buf, seed),
        }
        let inc = self.hdr_inc(buf.len());
        let hs = self.kind.hdr_size();
        for (n, chunk) in buf.chunks_mut(inc).enumerate() {
            if hs == 0 || chunk.len() <= hs {
                continue;
            }
            let h = Header {
                magic: HDR_MAGIC,
                verify_type: self.kind as u16,
                len: inc as u32,
                rand_seed: seed,
                offset: offset + n as u64 * u64::from(self.interval),
                time_sec: time.0,
                time_nsec: time.1,
                thread: self.thread,
                numberio,
                crc32: 0,
            };
            h.write(chunk);
            let (head, data) = chunk.split_at_mut(hs);
            digest(self.kind, data, &mut head[HDR_LEN..]);
            let vo = self.hdr_offset as usize;
            if vo > 0 && vo + hs <= chunk.len() {
                let (a, b) = chunk.split_at_mut(vo);
                a[..hs].swap_with_slice(&mut b[..hs]);
            }
        }
    }

    /// Checks a block read back. `buf` may be changed (headers swapped back into place).
    pub fn check(&self, buf: &mut [u8], e: &Expect<'_>) -> Result<(), Failure> {
        if self.kind == VerifyType::Null {
            return Ok(());
        }
        let inc = self.hdr_inc(buf.len());
        let hs = self.kind.hdr_size();
        let buflen = buf.len();
        let mut lines = Vec::new();
        for (n, chunk) in buf.chunks_mut(inc).enumerate() {
            if !lines.is_empty() && self.fatal {
                break;
            }
            let vo = self.hdr_offset as usize;
            if vo > 0 && vo + hs <= chunk.len() {
                let (a, b) = chunk.split_at_mut(vo);
                a[..hs].swap_with_slice(&mut b[..hs]);
            }
            let hdr = Header::read(chunk);
            if self.kind != VerifyType::PatternNoHdr
                && let Some(why) = self.header_problem(&hdr, chunk, n, inc, e)
            {
                lines.push(format!(
                    "{why} at file {} offset {}, length {inc} (requested block: offset={}, length={buflen})",
                    e.file,
                    e.offset + (n * inc) as u64,
                    e.offset
                ));
                if self.dump {
                    lines.extend(dump(chunk, e.file, e.offset + (n * inc) as u64, "hdr_fail"));
                }
                return Err(Failure { lines });
            }
            let kind = self.kind;
            let bad = match kind {
                VerifyType::None => None,
                VerifyType::Meta | VerifyType::Pattern | VerifyType::PatternNoHdr => {
                    self.check_pattern(chunk, n, inc, e.offset)
                }
                k => {
                    let dl = k.digest_len();
                    let mut got = [0u8; 128];
                    let hsz = HDR_LEN + dl;
                    let hlen = (hdr.len as usize).clamp(hsz, chunk.len());
                    digest(k, &chunk[hsz..hlen], &mut got);
                    let want = &chunk[HDR_LEN..hsz];
                    // fio's SHA-512 field holds data bytes: a short interval fills only part of it.
                    let cmp = if k == VerifyType::Sha512 { dl.min(hlen - hsz) } else { dl };
                    (want[..cmp] != got[..cmp]).then(|| {
                        vec![
                            format!("       Expected CRC: {}", hex(want)),
                            format!("       Received CRC: {}", hex(&got[..dl])),
                        ]
                    })
                }
            };
            if let Some(extra) = bad {
                let name = kind.failure_name();
                let (pre, post): (Vec<_>, Vec<_>) = extra.into_iter().partition(|l| l.starts_with("fio: "));
                lines.extend(pre);
                lines.push(format!(
                    "{name}: verify failed at file {} offset {}, length {} (requested block: offset={}, length={buflen}, flags={:x})",
                    e.file,
                    e.offset + n as u64 * u64::from(hdr.len),
                    hdr.len,
                    e.offset,
                    e.flags
                ));
                lines.extend(post);
                if self.dump {
                    lines.extend(dump(chunk, e.file, e.offset + (n * inc) as u64, "received"));
                    let mut expected = vec![0u8; buflen];
                    self.fill(&mut expected, e.offset, hdr.rand_seed, hdr.numberio, (hdr.time_sec, hdr.time_nsec));
                    let at = (n * inc).min(buflen);
                    let end = (at + inc).min(buflen);
                    lines.extend(dump(&expected[at..end], e.file, e.offset + at as u64, "expected"));
                }
                if kind as u16 != hdr.verify_type {
                    lines.push(format!("fio: verify type mismatch ({} media, {} given)", hdr.verify_type, kind as u16));
                }
            }
        }
        if lines.is_empty() { Ok(()) } else { Err(Failure { lines }) }
    }

    /// fio's `verify_header`: the first check that fails, as fio words it.
    fn header_problem(&self, h: &Header, chunk: &[u8], n: usize, inc: usize, e: &Expect<'_>) -> Option<String> {
        if h.magic != HDR_MAGIC {
            return Some(format!("verify: bad magic header {:x}, wanted {:x}", h.magic, HDR_MAGIC));
        }
        if h.len as usize != inc {
            return Some(format!("verify: bad header length {}, wanted {inc}", h.len));
        }
        let seed = e.seed.unwrap_or(h.rand_seed);
        if h.rand_seed != seed {
            return Some(format!("verify: bad header rand_seed {}, wanted {seed}", h.rand_seed));
        }
        if h.offset != e.offset + n as u64 * u64::from(self.interval) {
            return Some(format!("verify: bad header offset {}, wanted {}", h.offset, e.offset));
        }
        if self.check_numberio && h.numberio != e.numberio {
            return Some(format!("verify: bad header numberio {}, wanted {}", h.numberio, e.numberio));
        }
        let crc = fio_crc32c(&chunk[..36]);
        if crc != h.crc32 {
            return Some(format!("verify: bad header crc {:x}, calculated {crc:x}", h.crc32));
        }
        None
    }

    /// fio's `verify_io_u_pattern`: the first byte that differs from the pattern.
    fn check_pattern(&self, chunk: &[u8], n: usize, inc: usize, offset: u64) -> Option<Vec<String>> {
        let p = self.pattern.as_ref()?;
        let pat = p.with_offset(offset);
        let hs = self.kind.hdr_size();
        let data = &chunk[hs.min(chunk.len())..];
        let mut m = (inc * n + hs) % pat.len();
        for (i, &b) in data.iter().enumerate() {
            if b != pat[m] {
                return Some(vec![
                    format!(
                        "fio: got pattern '{b:02x}', wanted '{:02x}'. Bad bits {}",
                        pat[m],
                        (b ^ pat[m]).count_ones()
                    ),
                    format!("fio: bad pattern block offset {i}"),
                ]);
            }
            m += 1;
            if m == pat.len() {
                m = 0;
            }
        }
        None
    }
}

fn hex(b: &[u8]) -> String {
    use std::fmt::Write as _;
    b.iter().fold(String::with_capacity(b.len() * 2), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// Writes `data` to `<file's base name>.<offset>.<kind>` in the current directory (fio's
/// `dump_buf`); the line fio logs about it.
fn dump(data: &[u8], file: &str, offset: u64, kind: &str) -> Vec<String> {
    let base = std::path::Path::new(file).file_name().map_or_else(|| file.to_string(), |b| b.to_string_lossy().into());
    let name = format!("{base}.{offset}.{kind}");
    match std::fs::write(&name, data) {
        Ok(()) => vec![format!("       {kind} data dumped as {name}")],
        Err(e) => vec![format!("open verify buf file: {e}")],
    }
}

/// Random data from `seed` (the same seed, the same bytes): a 64-bit multiply-xorshift stream,
/// fast enough to fill every written block.
pub fn fill_seeded(buf: &mut [u8], seed: u64) {
    let mut x = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        z ^ (z >> 32)
    };
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&next().to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let last = next().to_le_bytes();
    rest.copy_from_slice(&last[..rest.len()]);
}

#[cfg(test)]
mod tests;
