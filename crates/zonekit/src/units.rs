//! Parsing sizes and offsets as users type them.
//!
//! Sizes follow fio: bytes, with optional base-2 suffixes `k`, `m`, `g`, `t`, `p` (case-insensitive,
//! optionally followed by `b` or `ib`, all base 2 as fio's default `kb_base=1024`), or `0x` hex.
//! Zone-command offsets and lengths follow blkzone: a plain number is 512-byte sectors, and a
//! value with a size suffix is bytes.

/// A size or offset that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSize(pub String);

impl std::fmt::Display for BadSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Split `s` into its number and its (lower-cased) suffix multiplier; `None` suffix when there is none.
fn split(s: &str) -> Result<(u64, Option<u64>), BadSize> {
    let t = s.trim();
    let bad = || BadSize(format!("invalid size '{s}'"));
    if t.is_empty() {
        return Err(bad());
    }
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map(|n| (n, None)).map_err(|_| bad());
    }
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if digits_end == 0 {
        return Err(bad());
    }
    let n: u64 = t[..digits_end].parse().map_err(|_| bad())?;
    let suffix = t[digits_end..].to_ascii_lowercase();
    if suffix.is_empty() {
        return Ok((n, None));
    }
    let unit = suffix.strip_suffix("ib").or_else(|| suffix.strip_suffix('b')).unwrap_or(&suffix);
    let mult = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        "p" => 1 << 50,
        _ => return Err(bad()),
    };
    Ok((n, Some(mult)))
}

/// A size in bytes, fio style (`256M`, `4k`, `1GiB`, `4096`, `0x1000`).
pub fn parse_bytes(s: &str) -> Result<u64, BadSize> {
    let (n, mult) = split(s)?;
    n.checked_mul(mult.unwrap_or(1)).ok_or_else(|| BadSize(format!("size '{s}' is too large")))
}

/// A zone-command offset or length: a plain number is sectors, a suffixed value is bytes and
/// must be a multiple of 512.
pub fn parse_sectors(s: &str) -> Result<u64, BadSize> {
    let (n, mult) = split(s)?;
    match mult {
        None => Ok(n),
        Some(m) => {
            let bytes = n.checked_mul(m).ok_or_else(|| BadSize(format!("size '{s}' is too large")))?;
            if bytes % 512 != 0 {
                return Err(BadSize(format!("'{s}' is {bytes} bytes, not a multiple of 512-byte sectors")));
            }
            Ok(bytes / 512)
        }
    }
}

/// A byte value, as the decimal or `0x` hex number `--pattern` takes.
pub fn parse_byte(s: &str) -> Result<u8, BadSize> {
    let t = s.trim();
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u8::from_str_radix(h, 16),
        None => t.parse(),
    };
    v.map_err(|_| BadSize(format!("invalid byte '{s}' (0-255 or 0x00-0xff)")))
}

/// `N sectors`, or `1 sector`.
pub fn sectors_word(n: u64) -> String {
    if n == 1 { "1 sector".to_string() } else { format!("{n} sectors") }
}

/// A human size in binary units (`256 MiB`, `13.6 TiB`).
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 { format!("{v:.0} {}", UNITS[u]) } else { format!("{v:.2} {}", UNITS[u]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_sizes() {
        assert_eq!(parse_bytes("256M"), Ok(256 << 20));
        assert_eq!(parse_bytes("4k"), Ok(4096));
        assert_eq!(parse_bytes("4KiB"), Ok(4096));
        assert_eq!(parse_bytes("4KB"), Ok(4096));
        assert_eq!(parse_bytes("1g"), Ok(1 << 30));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("0x1000"), Ok(4096));
        for bad in ["", "abc", "12q", "-1", "1.5M", "k", "99999999999999999999"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
        assert!(parse_bytes("100000000P").is_err());
    }

    #[test]
    fn sector_offsets() {
        assert_eq!(parse_sectors("2048"), Ok(2048));
        assert_eq!(parse_sectors("1M"), Ok(2048));
        assert_eq!(parse_sectors("0x800"), Ok(2048));
        assert!(parse_sectors("1000b").is_err());
        assert_eq!(parse_byte("0xA5"), Ok(0xa5));
        assert_eq!(parse_byte("7"), Ok(7));
        assert!(parse_byte("256").is_err());
        assert_eq!(human_bytes(256 << 20), "256 MiB");
        assert_eq!(human_bytes(1536), "1.50 KiB");
    }
}
