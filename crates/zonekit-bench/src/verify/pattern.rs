//! `verify_pattern` values in fio's syntax: tokens written one after the other, without
//! separators: `"text"` (the bytes between the quotes, no escapes), `'file'` (up to 512 bytes read
//! from the file), `0x…` hex bytes in the order written (an odd leading digit is a byte of its
//! own), a decimal integer in the range of a C `int` (its little-endian bytes up to the highest
//! non-zero one; `0` is one zero byte), and `%o` (8 bytes that each I/O fills with its offset,
//! little-endian). At most 512 bytes in all, as fio's `MAX_PATTERN_SIZE`.

/// The longest pattern fio keeps.
pub const MAX_PATTERN_SIZE: usize = 512;

/// A parsed pattern: its bytes, and where `%o` puts the I/O's offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern, with zeros where offsets go.
    pub bytes: Vec<u8>,
    /// Positions in `bytes` where an I/O's offset is pasted (8 bytes, cut at the pattern's end).
    pub offsets_at: Vec<usize>,
}

impl Pattern {
    /// Parses fio's pattern syntax; the error says what is wrong, for the option's message.
    pub fn parse(input: &str) -> Result<Pattern, String> {
        let s = input.trim();
        if s.is_empty() {
            return Err("an empty pattern".into());
        }
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut offsets_at = Vec::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'"' => {
                    let end = s[i + 1..].find('"').ok_or("a string without its closing quote")? + i + 1;
                    if end == i + 1 {
                        return Err("an empty string".into());
                    }
                    out.extend_from_slice(&b[i + 1..end]);
                    i = end + 1;
                }
                b'\'' => {
                    let end = s[i + 1..].find('\'').ok_or("a file name without its closing quote")? + i + 1;
                    let name = &s[i + 1..end];
                    let data = std::fs::read(name).map_err(|e| format!("cannot read pattern file {name}: {e}"))?;
                    let room = MAX_PATTERN_SIZE.saturating_sub(out.len());
                    if data.is_empty() {
                        return Err(format!("pattern file {name} is empty"));
                    }
                    out.extend_from_slice(&data[..data.len().min(room)]);
                    i = end + 1;
                }
                b'%' => {
                    if b.get(i + 1) != Some(&b'o') {
                        return Err(format!("unknown format at `{}` (only %o is known)", &s[i..]));
                    }
                    offsets_at.push(out.len());
                    out.extend_from_slice(&[0; 8]);
                    i += 2;
                }
                b'0' if matches!(b.get(i + 1), Some(b'x' | b'X')) => {
                    let start = i + 2;
                    let mut end = start;
                    while end < b.len() && b[end].is_ascii_hexdigit() {
                        end += 1;
                    }
                    // `0xff0x14` is two tokens: a run that ends in the `0` of the next `0x`
                    // gives that `0` back.
                    if end > start + 1 && matches!(b.get(end), Some(b'x' | b'X')) && b[end - 1] == b'0' {
                        end -= 1;
                    }
                    if end == start {
                        return Err(format!("no hex digits after 0x in `{}`", &s[i..]));
                    }
                    let digits = &s[start..end];
                    let (first, rest) = digits.split_at(digits.len() % 2);
                    if !first.is_empty() {
                        out.push(u8::from_str_radix(first, 16).map_err(|e| e.to_string())?);
                    }
                    for pair in rest.as_bytes().chunks(2) {
                        let txt = std::str::from_utf8(pair).map_err(|e| e.to_string())?;
                        out.push(u8::from_str_radix(txt, 16).map_err(|e| e.to_string())?);
                    }
                    i = end;
                }
                c if c == b'-' || c == b'+' || c.is_ascii_digit() => {
                    // A decimal runs up to the next `0x`, as fio looks ahead for one.
                    let rest = &s[i..];
                    let limit = rest.to_ascii_lowercase().find("0x").filter(|&p| p > 0).unwrap_or(rest.len());
                    let mut end = usize::from(c == b'-' || c == b'+');
                    while end < limit && rest.as_bytes()[end].is_ascii_digit() {
                        end += 1;
                    }
                    let txt = &rest[..end];
                    let v: i64 = txt.parse().map_err(|_| format!("`{rest}` is not a number"))?;
                    if v > i64::from(i32::MAX) || v < i64::from(i32::MIN) {
                        return Err(format!("{v} is out of the range of a 32-bit integer"));
                    }
                    if v == 0 {
                        out.push(0);
                    } else {
                        let mut u = v as i32 as u32;
                        while u != 0 {
                            out.push(u as u8);
                            u >>= 8;
                        }
                    }
                    i += end;
                }
                _ => return Err(format!("cannot read `{}` (expected \"text\", 0xHEX, a number or %o)", &s[i..])),
            }
            if out.len() > MAX_PATTERN_SIZE {
                return Err(format!("longer than {MAX_PATTERN_SIZE} bytes"));
            }
        }
        Ok(Pattern { bytes: out, offsets_at })
    }

    /// The pattern with `offset` pasted where `%o` stands.
    pub fn with_offset(&self, offset: u64) -> std::borrow::Cow<'_, [u8]> {
        if self.offsets_at.is_empty() {
            return std::borrow::Cow::Borrowed(&self.bytes);
        }
        let mut p = self.bytes.clone();
        let o = offset.to_le_bytes();
        for &at in &self.offsets_at {
            let n = (p.len() - at).min(8);
            p[at..at + n].copy_from_slice(&o[..n]);
        }
        std::borrow::Cow::Owned(p)
    }

    /// Fills `buf` with the pattern (offset pasted) repeated from its start.
    pub fn fill(&self, buf: &mut [u8], offset: u64) {
        let p = self.with_offset(offset);
        let n = p.len().min(buf.len());
        buf[..n].copy_from_slice(&p[..n]);
        let mut filled = n;
        while filled < buf.len() {
            let k = filled.min(buf.len() - filled);
            buf.copy_within(..k, filled);
            filled += k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str) -> Vec<u8> {
        Pattern::parse(s).unwrap().bytes
    }

    #[test]
    fn fios_documented_examples() {
        assert_eq!(bytes("\"abcd\""), b"abcd");
        assert_eq!(bytes("-1024"), [0x00, 0xfc, 0xff, 0xff]);
        assert_eq!(bytes("66"), [0x42]);
        assert_eq!(bytes("0xFF0X1"), [0xff, 0x01]);
        assert_eq!(bytes("%o"), [0; 8]);
        assert_eq!(bytes("\"123\"0xFFeeCC"), [0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]);
        assert_eq!(bytes("-100xab\"1\"%o\"2\""), [0xf6, 0xff, 0xff, 0xff, 0xab, 0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0x32]);
        assert_eq!(bytes("0xdeadbeef"), [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(bytes("0xfff"), [0x0f, 0xff]);
        assert_eq!(bytes("0"), [0]);
        assert_eq!(bytes("256"), [0, 1]);
        let p = Pattern::parse("%o0xdeadbeef%o").unwrap();
        assert_eq!(p.offsets_at, [0, 12]);
        assert_eq!(p.bytes.len(), 20);
    }

    #[test]
    fn bad_patterns_say_why() {
        for bad in ["", "xyz", "0x", "0xzz", "\"abc", "%d", "4294967296", "'/nonexistent/pattern'"] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
        assert!(Pattern::parse(&format!("0x{}", "ab".repeat(513))).is_err());
    }

    #[test]
    fn fill_repeats_and_pastes_the_offset() {
        let p = Pattern::parse("%o\"xy\"").unwrap();
        let mut buf = [0u8; 25];
        p.fill(&mut buf, 0x0102);
        assert_eq!(&buf[..10], &[2, 1, 0, 0, 0, 0, 0, 0, b'x', b'y']);
        assert_eq!(&buf[10..20], &buf[..10]);
        assert_eq!(&buf[20..], &buf[..5]);
    }
}
