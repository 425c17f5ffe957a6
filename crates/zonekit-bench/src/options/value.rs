//! fio's value syntax: sizes with suffixes (`kb_base` inversion included), percentages and
//! zone counts, times with units, booleans, per-direction lists, ranges and float lists.
//!
//! Every parser is strict where fio 3.33 silently produces garbage (`size=1.5k` is 1 byte
//! there, `runtime=10sec` is 10 µs, `bs=4kfoo` is 4 KiB): such values are errors here, with a
//! reason that says what fio would have done when that helps.

use std::time::Duration;

use super::job::SizeSpec;

/// A parsed option value, shaped by the option's [`Kind`](super::table::Kind).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `Bool` and `Flag` options.
    Bool(bool),
    /// A signed integer (`Int` options).
    Int(i64),
    /// Per-direction integers (read, write, trim); `None` keeps the earlier value.
    IntDirs([Option<i64>; 3]),
    /// A size, percentage or zone count.
    Size(SizeSpec),
    /// Per-direction sizes (read, write, trim); `None` keeps the earlier value.
    SizeDirs([Option<u64>; 3]),
    /// A size range `low-high` (equal when a single size was given).
    SizePair(u64, u64),
    /// Per-direction size ranges (`bsrange`).
    RangeDirs([Option<(u64, u64)>; 3]),
    /// A duration (µs resolution).
    Time(Duration),
    /// A duration range `low-high`.
    TimePair(Duration, Duration),
    /// A float list and the number of digits after the point of its most precise entry.
    Floats(Vec<f64>, u32),
    /// One of the option's choices, and the text after its `:` if any.
    Choice(&'static str, Option<String>),
    /// Several choices (`sync_file_range=wait_before,write`).
    Choices(Vec<&'static str>),
    /// Text, as written (free-text options and those with their own syntax).
    Text(String),
    /// A valueless `Text` option given bare (`write_bw_log`).
    Absent,
}

impl Value {
    /// The boolean of a `Bool`/`Flag` value (false for other shapes).
    pub fn as_bool(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// The integer of an `Int` value (0 for other shapes).
    pub fn as_int(&self) -> i64 {
        match self {
            Value::Int(i) => *i,
            _ => 0,
        }
    }

    /// The integer as u32, saturating (tables keep ranges within u32 where this is used).
    pub fn as_u32(&self) -> u32 {
        u32::try_from(self.as_int().max(0)).unwrap_or(u32::MAX)
    }

    /// The size of a `Size` value (`Bytes(0)` for other shapes).
    pub fn as_size(&self) -> SizeSpec {
        match self {
            Value::Size(s) => *s,
            _ => SizeSpec::Bytes(0),
        }
    }

    /// The byte count of an absolute `Size` value (0 otherwise).
    pub fn as_bytes(&self) -> u64 {
        self.as_size().bytes().unwrap_or(0)
    }

    /// The duration of a `Time` value (zero otherwise).
    pub fn as_time(&self) -> Duration {
        match self {
            Value::Time(t) => *t,
            Value::TimePair(t, _) => *t,
            _ => Duration::ZERO,
        }
    }

    /// The text of a `Text`/`Choice` value ("" otherwise).
    pub fn as_text(&self) -> &str {
        match self {
            Value::Text(t) => t,
            Value::Choice(c, _) => c,
            _ => "",
        }
    }
}

/// Splits `s` into the number and the suffix after it, as fio's `str_to_decimal` reads them.
fn split_number(s: &str) -> Result<(bool, u64, &str), String> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let end = hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len());
        if end == 0 {
            return Err("not a number".into());
        }
        let n = u64::from_str_radix(&hex[..end], 16).map_err(|_| "number too large".to_string())?;
        return Ok((neg, n, &hex[end..]));
    }
    let end = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
    if end == 0 {
        return Err("not a number".into());
    }
    let n: u64 = body[..end].parse().map_err(|_| "number too large".to_string())?;
    let rest = &body[end..];
    if rest.starts_with('.') {
        return Err("fractions are not accepted (fio 3.33 would drop everything after the point)".into());
    }
    Ok((neg, n, rest))
}

/// The multiplier of a size suffix, with fio's rule: under `kb_base=1024` (the default) `k`, `kb`
/// and `ki` are 1024 and `kib` is 1000 (inverted "for compatibility"); under `kb_base=1000` it is
/// the other way round. `b` alone is 1.
pub fn size_multiplier(suffix: &str, kb_base: u32) -> Result<u64, String> {
    let s = suffix.to_ascii_lowercase();
    if s.is_empty() || s == "b" {
        return Ok(1);
    }
    let mut chars = s.chars();
    let pow = match chars.next() {
        Some('k') => 1,
        Some('m') => 2,
        Some('g') => 3,
        Some('t') => 4,
        Some('p') => 5,
        _ => return Err(format!("unknown size suffix '{suffix}'")),
    };
    let base: u64 = match chars.as_str() {
        "" | "b" | "i" => u64::from(kb_base),
        "ib" => {
            if kb_base == 1000 {
                1024
            } else {
                1000
            }
        }
        _ => return Err(format!("unknown size suffix '{suffix}'")),
    };
    Ok(base.pow(pow))
}

/// fio's `str_to_decimal` takes the number, then a suffix only from a letter that follows it,
/// and ignores anything else: `filesize=65536)` is 65536 bytes, `4k)` is 4 KiB. The suffix without
/// its trailing characters that are neither letters, digits nor `%`; a warning on stderr says
/// what is ignored.
fn lenient_suffix<'a>(s: &str, suffix: &'a str) -> &'a str {
    let kept = suffix.trim_end_matches(|c: char| !c.is_ascii_alphanumeric() && c != '%');
    if kept.len() != suffix.len() {
        eprintln!("zonekit: warning: '{s}': ignoring '{}' after the number, as fio does", &suffix[kept.len()..]);
    }
    kept
}

/// A size in bytes: a decimal or `0x` number with an optional suffix (see [`size_multiplier`]).
pub fn parse_size(s: &str, kb_base: u32) -> Result<u64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("a value is required".into());
    }
    let (neg, n, suffix) = split_number(s)?;
    let suffix = lenient_suffix(s, suffix);
    if neg && n != 0 {
        return Err("must not be negative".into());
    }
    let hex = s.trim_start_matches(['+', '-']).get(..2).is_some_and(|p| p.eq_ignore_ascii_case("0x"));
    if hex && !suffix.is_empty() {
        return Err(format!("unexpected '{suffix}' after a hexadecimal number"));
    }
    let m = size_multiplier(suffix, kb_base)?;
    n.checked_mul(m).ok_or_else(|| "number too large".to_string())
}

/// A signed integer with optional size suffix (fio's `FIO_OPT_INT` accepts `iodepth=1k`).
pub fn parse_int(s: &str, kb_base: u32) -> Result<i64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("a value is required".into());
    }
    let (neg, n, suffix) = split_number(s)?;
    let suffix = lenient_suffix(s, suffix);
    let hex = s.trim_start_matches(['+', '-']).get(..2).is_some_and(|p| p.eq_ignore_ascii_case("0x"));
    if hex && !suffix.is_empty() {
        return Err(format!("unexpected '{suffix}' after a hexadecimal number"));
    }
    let m = size_multiplier(suffix, kb_base)?;
    let v = n.checked_mul(m).ok_or_else(|| "number too large".to_string())?;
    let v = i64::try_from(v).map_err(|_| "number too large".to_string())?;
    Ok(if neg { -v } else { v })
}

/// A size, a percentage (`50%`, when `percent`) or a zone count (`8z`, when `zones`).
pub fn parse_size_spec(s: &str, kb_base: u32, percent: bool, zones: bool) -> Result<SizeSpec, String> {
    let t = s.trim();
    if let Some(num) = t.strip_suffix('%') {
        if !percent {
            return Err("a percentage is not accepted here".into());
        }
        let (neg, n, rest) = split_number(num.trim_end())?;
        if neg || !rest.is_empty() {
            return Err("a percentage is a whole number from 0 to 100".into());
        }
        if n > 100 {
            return Err("a percentage is a whole number from 0 to 100".into());
        }
        return Ok(SizeSpec::Percent(n as u32));
    }
    if let Some(num) = t.strip_suffix(['z', 'Z']) {
        if !zones {
            return Err("the 'z' (zones) suffix is not accepted here".into());
        }
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
            return Err("a zone count is a whole number followed by 'z'".into());
        }
        let n: u32 = num.parse().map_err(|_| "zone count too large".to_string())?;
        return Ok(SizeSpec::Zones(n));
    }
    parse_size(t, kb_base).map(SizeSpec::Bytes)
}

/// A duration: a number with an optional unit `d`, `h`, `m`, `s`, `ms`/`msec`, `us`/`usec`
/// (case-insensitive); a bare number is in seconds when `seconds`, else microseconds.
pub fn parse_time(s: &str, seconds: bool) -> Result<Duration, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("a value is required".into());
    }
    let (neg, n, unit) = split_number(s)?;
    if neg && n != 0 {
        return Err("must not be negative".into());
    }
    let us: u64 = match unit.to_ascii_lowercase().as_str() {
        "" => {
            if seconds {
                1_000_000
            } else {
                1
            }
        }
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => {
            return Err(format!(
                "unknown time unit '{unit}' (units: d, h, m, s, ms, us; fio 3.33 would read it as microseconds)"
            ));
        }
    };
    let total = n.checked_mul(us).ok_or_else(|| "time too large".to_string())?;
    Ok(Duration::from_micros(total))
}

/// A `FIO_OPT_BOOL` value: `0` or `1`.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim() {
        "0" | "0x0" => Ok(false),
        "1" | "0x1" => Ok(true),
        "" => Err("a value (0 or 1) is required".into()),
        _ => Err("must be 0 or 1".into()),
    }
}

/// A `FIO_OPT_STR_SET` value: absent means on; otherwise a non-negative integer, non-zero is on.
pub fn parse_flag(s: Option<&str>) -> Result<bool, String> {
    match s.map(str::trim) {
        None => Ok(true),
        Some(v) => {
            let (neg, n, rest) = split_number(v).map_err(|_| "must be 0 or 1".to_string())?;
            if neg || !rest.is_empty() {
                return Err("must be 0 or 1".into());
            }
            Ok(n != 0)
        }
    }
}

/// A finite floating point number.
pub fn parse_float(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v: f64 = t.parse().map_err(|_| "not a number".to_string())?;
    if !v.is_finite() {
        return Err("not a finite number".into());
    }
    Ok(v)
}

/// Spreads up to three comma-separated entries over read, write, trim with fio's rule: one
/// value sets all three, two set read and write (trim copies write), an empty entry keeps the
/// earlier value.
pub fn per_direction<T: Copy>(
    s: &str,
    mut one: impl FnMut(&str) -> Result<T, String>,
) -> Result<[Option<T>; 3], String> {
    // fio's handle_option: a trailing comma still says "more values follow", so `8k,` sets
    // reads only and the other directions keep what they had.
    let s = s.trim();
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err("at most three values (read,write,trim)".into());
    }
    let mut vals: Vec<Option<T>> = Vec::with_capacity(3);
    for p in &parts {
        if p.trim().is_empty() {
            vals.push(None);
        } else {
            vals.push(Some(one(p)?));
        }
    }
    if vals.iter().all(Option::is_none) {
        return Err("a value is required".into());
    }
    let last = *vals.last().unwrap_or(&None);
    let get = |i: usize| if i < vals.len() { vals[i] } else { last };
    Ok([get(0), get(1), get(2)])
}

/// Splits a range `low-high` (or `low:high`); the caller parses both halves.
pub fn split_range(s: &str) -> Option<(&str, &str)> {
    let s = s.trim();
    // A leading sign belongs to the number, not the range.
    let skip = usize::from(s.starts_with(['-', '+']));
    let i = s[skip..].find(['-', ':'])? + skip;
    Some((&s[..i], &s[i + 1..]))
}

/// A `:`-separated float list of at most `max_len` entries within `[min, max]`; also returns the
/// most digits written after a decimal point (fio's precision for printing the list).
pub fn parse_float_list(s: &str, max_len: usize, min: f64, max: f64) -> Result<(Vec<f64>, u32), String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("a value is required".into());
    }
    let mut out = Vec::new();
    let mut precision = 0u32;
    for part in s.split(':') {
        if out.len() == max_len {
            // fio's wording (parse.c), which scripts grep.
            return Err(format!("the list exceeding max length {max_len}"));
        }
        let v = parse_float(part).map_err(|_| format!("'{part}' is not a floating point value"))?;
        if v > max {
            return Err(format!("value out of range: {v:.6} (range max: {max:.6})"));
        }
        if v < min {
            return Err(format!("value out of range: {v:.6} (range min: {min:.6})"));
        }
        if let Some((_, frac)) = part.trim().split_once('.') {
            let digits = frac.bytes().take_while(u8::is_ascii_digit).count() as u32;
            precision = precision.max(digits);
        }
        out.push(v);
    }
    Ok((out, precision))
}

/// C's `atoi`: leading blanks, a sign, then digits as far as they go (0 without any); clamped
/// to `int`.
pub fn atoi(s: &str) -> i64 {
    let s = s.trim_start();
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = (v * 10 + i64::from(b - b'0')).min(i64::from(i32::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_fio_and_its_inversion() {
        assert_eq!(parse_size("4k", 1024), Ok(4096));
        assert_eq!(parse_size("4K", 1024), Ok(4096));
        assert_eq!(parse_size("1kb", 1024), Ok(1024));
        assert_eq!(parse_size("1ki", 1024), Ok(1024));
        assert_eq!(parse_size("1kib", 1024), Ok(1000));
        assert_eq!(parse_size("1KiB", 1024), Ok(1000));
        assert_eq!(parse_size("1mi", 1024), Ok(1 << 20));
        assert_eq!(parse_size("1MiB", 1024), Ok(1_000_000));
        assert_eq!(parse_size("1k", 1000), Ok(1000));
        assert_eq!(parse_size("1kib", 1000), Ok(1024));
        assert_eq!(parse_size("2g", 1024), Ok(2 << 30));
        assert_eq!(parse_size("1p", 1024), Ok(1 << 50));
        assert_eq!(parse_size("0x10", 1024), Ok(16));
        assert_eq!(parse_size("512b", 1024), Ok(512));
        assert!(parse_size("1.5k", 1024).is_err());
        assert!(parse_size("4kfoo", 1024).is_err());
        assert!(parse_size("abc", 1024).is_err());
        assert!(parse_size("", 1024).is_err());
        assert!(parse_size("-4k", 1024).is_err());
        assert!(parse_size("99999999999999999999", 1024).is_err());
        assert!(parse_size("16385p", 1024).is_err());
    }

    #[test]
    fn percentages_and_zones() {
        assert_eq!(parse_size_spec("50%", 1024, true, false), Ok(SizeSpec::Percent(50)));
        assert!(parse_size_spec("150%", 1024, true, false).is_err());
        assert!(parse_size_spec("12.5%", 1024, true, false).is_err());
        assert!(parse_size_spec("50%", 1024, false, false).is_err());
        assert_eq!(parse_size_spec("8z", 1024, true, true), Ok(SizeSpec::Zones(8)));
        assert!(parse_size_spec("8z", 1024, true, false).is_err());
        assert!(parse_size_spec("z", 1024, true, true).is_err());
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("10", true), Ok(Duration::from_secs(10)));
        assert_eq!(parse_time("10", false), Ok(Duration::from_micros(10)));
        assert_eq!(parse_time("500ms", true), Ok(Duration::from_millis(500)));
        assert_eq!(parse_time("2m", true), Ok(Duration::from_secs(120)));
        assert_eq!(parse_time("1h", true), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_time("3usec", true), Ok(Duration::from_micros(3)));
        assert!(parse_time("10sec", true).is_err());
        assert!(parse_time("1.5s", true).is_err());
        assert!(parse_time("-1", true).is_err());
    }

    #[test]
    fn trailing_characters_as_fio() {
        assert_eq!(parse_size("65536)", 1024), Ok(65536));
        assert_eq!(parse_size("4k)", 1024), Ok(4096));
        assert_eq!(parse_int("8 ", 1024), Ok(8));
        assert!(parse_size("4x", 1024).is_err());
        assert!(parse_size(")", 1024).is_err());
    }

    #[test]
    fn per_direction_lists() {
        let p = |s| per_direction(s, |x| parse_size(x, 1024));
        assert_eq!(p("4k"), Ok([Some(4096); 3]));
        assert_eq!(p("4k,8k"), Ok([Some(4096), Some(8192), Some(8192)]));
        assert_eq!(p("4k,8k,16k"), Ok([Some(4096), Some(8192), Some(16384)]));
        assert_eq!(p(",8k"), Ok([None, Some(8192), Some(8192)]));
        assert_eq!(p("4k,"), Ok([Some(4096), None, None]), "fio: reads only");
        assert_eq!(p("4k,,"), Ok([Some(4096), None, None]));
        assert!(p("1,2,3,4").is_err());
        assert!(p(",").is_err());
    }

    #[test]
    fn floats_and_flags() {
        assert_eq!(parse_float_list("1:5:99.5", 20, 0.0, 100.0), Ok((vec![1.0, 5.0, 99.5], 1)));
        assert!(parse_float_list("1:x", 20, 0.0, 100.0).is_err());
        assert!(parse_float_list(".4:.6", 1, 0.0, 1.0).is_err());
        assert!(parse_float_list("1.5", 1, 0.0, 1.0).is_err());
        assert_eq!(parse_flag(None), Ok(true));
        assert_eq!(parse_flag(Some("0")), Ok(false));
        assert_eq!(parse_flag(Some("2")), Ok(true));
        assert!(parse_flag(Some("yes")).is_err());
        assert_eq!(parse_bool("1"), Ok(true));
        assert!(parse_bool("2").is_err());
        assert_eq!(split_range("4k-64k"), Some(("4k", "64k")));
        assert_eq!(split_range("4k:64k"), Some(("4k", "64k")));
        assert_eq!(split_range("4k"), None);
    }
}
