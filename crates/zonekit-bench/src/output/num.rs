//! fio's number formatting: `num2str` (lib/num2str.c: a value shortened to a few significant
//! digits with an SI or IEC prefix, "complete with carry rounding error") and C `printf`
//! float conversions as fio's format strings use them.

/// What `num2str` appends after the prefix (fio's `enum n2s_unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum N2sUnit {
    /// Nothing.
    None,
    /// `/s`.
    PerSec,
    /// `B`.
    Byte,
    /// `bit` (the value is multiplied by 8).
    Bit,
    /// `B/s`.
    BytePerSec,
    /// `bit/s` (the value is multiplied by 8).
    BitPerSec,
}

impl N2sUnit {
    fn suffix(self) -> &'static str {
        match self {
            N2sUnit::None => "",
            N2sUnit::PerSec => "/s",
            N2sUnit::Byte => "B",
            N2sUnit::Bit => "bit",
            N2sUnit::BytePerSec => "B/s",
            N2sUnit::BitPerSec => "bit/s",
        }
    }
}

const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// fio's `num2str(num, maxlen, base, pow2, units)`: at most `maxlen` digits (counting the point)
/// before the prefix; `base` is what one unit of `num` is worth (1, or 1024 for KiB counts);
/// `pow2` picks IEC prefixes and steps of 1024 instead of SI and 1000.
pub fn num2str(num: u64, maxlen: usize, base: u64, pow2: bool, units: N2sUnit) -> String {
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let prefix = if pow2 { &IEC } else { &SI };
    let mut post_index = 0usize;
    let mut base = base;
    while base > 1 {
        base /= thousand;
        post_index += 1;
    }
    let mut num = match units {
        N2sUnit::Bit | N2sUnit::BitPerSec => num.wrapping_mul(8),
        _ => num,
    };
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post_index < SI.len() {
        if num.to_string().len() <= maxlen {
            break;
        }
        let m = num % thousand;
        modulo = Some(m);
        num /= thousand;
        carry = m >= thousand / 2;
        post_index += 1;
    }
    if post_index >= SI.len() {
        post_index = 0;
    }
    let Some(modulo) = modulo else {
        return format!("{num}{}{}", prefix[post_index], units.suffix());
    };
    let len = num.to_string().len() as i64;
    if maxlen as i64 - len <= 1 {
        if carry {
            num += 1;
        }
        return format!("{num}{}{}", prefix[post_index], units.suffix());
    }
    let decimals = (maxlen as i64 - len - 1) as usize;
    let tmp = format!("{:.*}", decimals, modulo as f64 / thousand as f64);
    if tmp.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{}{}", &tmp[2..], prefix[post_index], units.suffix())
}

/// C's `%<width>.<prec>f` for a double (right-aligned, `nan`/`inf` spelled as glibc does).
pub fn cfmt(v: f64, width: usize, prec: usize) -> String {
    if v.is_nan() {
        let s = if v.is_sign_negative() { "-nan" } else { "nan" };
        return format!("{s:>width$}");
    }
    if v.is_infinite() {
        let s = if v < 0.0 { "-inf" } else { "inf" };
        return format!("{s:>width$}");
    }
    format!("{v:>width$.prec$}")
}

/// C's `%f` (six decimals).
pub fn cf(v: f64) -> String {
    cfmt(v, 0, 6)
}

/// C's `%3.2f`.
pub fn c32(v: f64) -> String {
    cfmt(v, 3, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num2str_as_fio_prints_it() {
        // Values seen in fio 3.33 output.
        assert_eq!(num2str(4096, 4, 1, true, N2sUnit::Byte), "4096B");
        assert_eq!(num2str(65536, 4, 1, true, N2sUnit::Byte), "64.0KiB");
        assert_eq!(num2str(16 << 20, 4, 1, true, N2sUnit::Byte), "16.0MiB");
        assert_eq!(num2str(16 << 20, 4, 1, false, N2sUnit::Byte), "16.8MB");
        assert_eq!(num2str(2048 << 20, 4, 1, true, N2sUnit::Byte), "2048MiB");
        assert_eq!(num2str(14_900, 4, 1, false, N2sUnit::None), "14.9k");
        assert_eq!(num2str(258, 4, 1, false, N2sUnit::None), "258");
        assert_eq!(num2str(5_831_600, 6, 1, false, N2sUnit::None), "5831.6k");
        assert_eq!(num2str(979_000_000, 4, 1, false, N2sUnit::BytePerSec), "979MB/s");
    }

    #[test]
    fn c_floats() {
        assert_eq!(cfmt(7.0912, 5, 2), " 7.09");
        assert_eq!(cf(0.0), "0.000000");
        assert_eq!(c32(100.0), "100.00");
        assert_eq!(cfmt(0.1, 3, 1), "0.1");
    }
}
