//! fio's latency histogram (`stat.h` "plat"): nanosecond values in 1856 log-linear buckets.
//!
//! Values below 128 ns have a bucket each; above, each power of two is split into 64 buckets, so
//! a bucket's width is at most 1/64 of its lower bound and its reported value (the midpoint) is
//! within 1/128 of any value in it. Values past the last group land in the last bucket.
//! Percentiles follow `calc_clat_percentiles` exactly, including its `long double` rank
//! comparison, so they equal what fio prints for the same bucket counts.

/// `FIO_IO_U_PLAT_BITS`: index bits per group.
pub const PLAT_BITS: u32 = 6;
/// `FIO_IO_U_PLAT_VAL`: buckets per group.
pub const PLAT_VAL: usize = 1 << PLAT_BITS;
/// `FIO_IO_U_PLAT_GROUP_NR`: groups.
pub const PLAT_GROUP_NR: usize = 29;
/// `FIO_IO_U_PLAT_NR`: buckets in a histogram (1856).
pub const PLAT_NR: usize = PLAT_GROUP_NR * PLAT_VAL;
/// `FIO_IO_U_LIST_MAX_LEN`: most entries in a percentile list.
pub const PERCENTILE_LIST_MAX: usize = 20;

/// Bucket index of a value in nanoseconds (fio's `plat_val_to_idx`).
pub fn plat_val_to_idx(val: u64) -> usize {
    let msb = if val == 0 { 0 } else { 63 - val.leading_zeros() };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as usize) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits) as usize;
    (base + offset).min(PLAT_NR - 1)
}

/// The value a bucket stands for (fio's `plat_idx_to_val`): the index itself below 128, else
/// the midpoint of the bucket's range. `idx` must be below [`PLAT_NR`].
pub fn plat_idx_to_val(idx: usize) -> u64 {
    assert!(idx < PLAT_NR, "plat index {idx} out of range");
    if idx < (PLAT_VAL << 1) {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let k = (idx % PLAT_VAL) as u64;
    // fio computes (k + 0.5) * (1 << error_bits) in double; error_bits >= 1 so it is exact.
    base + (2 * k + 1) * (1u64 << (error_bits - 1))
}

/// A percentile list as fio holds it (`percentile_list`): at most 20 entries, cut at the first
/// 0, sorted ascending (fio sorts it in place before the first use, so output follows this order).
#[derive(Debug, Clone, PartialEq)]
pub struct PercentileList {
    values: Vec<f64>,
    precision: u32,
}

impl PercentileList {
    /// fio's default list `1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99`, precision 2.
    pub fn fio_default() -> PercentileList {
        PercentileList::new(
            &[1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99],
            2,
        )
    }

    /// A list from parsed values and the print precision (digits after the point, the most any
    /// entry was written with). Entries from the first 0.0 on are dropped, as fio's list ends at
    /// the first zero; at most [`PERCENTILE_LIST_MAX`] are kept.
    pub fn new(values: &[f64], precision: u32) -> PercentileList {
        let mut v: Vec<f64> = values.iter().copied().take(PERCENTILE_LIST_MAX).take_while(|&p| p != 0.0).collect();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        PercentileList { values: v, precision }
    }

    /// Parses fio's option text (`99:99.999`), computing the precision as fio's parser does
    /// (the most digits after a `.` in any entry).
    pub fn parse(text: &str) -> Option<PercentileList> {
        let mut values = Vec::new();
        let mut precision = 0;
        for tok in text.split(':') {
            let tok = tok.trim();
            let v: f64 = tok.parse().ok()?;
            if !(0.0..=100.0).contains(&v) {
                return None;
            }
            if let Some(dot) = tok.find('.') {
                let digits = tok[dot + 1..].bytes().take_while(u8::is_ascii_digit).count() as u32;
                precision = precision.max(digits);
            }
            values.push(v);
        }
        Some(PercentileList::new(&values, precision))
    }

    /// The percentiles, ascending.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Digits after the point in the normal output (`%1.2f` for the default list).
    pub fn precision(&self) -> u32 {
        self.precision
    }

    /// True when the list has no entries (no percentiles are reported).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// One latency histogram: a count per bucket.
#[derive(Clone, PartialEq, Eq)]
pub struct PlatHistogram {
    buckets: Box<[u64; PLAT_NR]>,
}

impl std::fmt::Debug for PlatHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nonzero: Vec<(usize, u64)> = self.nonzero().collect();
        f.debug_struct("PlatHistogram").field("nonzero", &nonzero).finish()
    }
}

impl Default for PlatHistogram {
    fn default() -> Self {
        PlatHistogram::new()
    }
}

impl PlatHistogram {
    /// An empty histogram.
    pub fn new() -> PlatHistogram {
        PlatHistogram { buckets: Box::new([0; PLAT_NR]) }
    }

    /// Counts one value (nanoseconds).
    #[inline]
    pub fn add(&mut self, nsec: u64) {
        self.buckets[plat_val_to_idx(nsec)] += 1;
    }

    /// Adds `count` to bucket `idx` (loading saved histograms). `idx` must be below [`PLAT_NR`].
    pub fn add_to_bucket(&mut self, idx: usize, count: u64) {
        self.buckets[idx] += count;
    }

    /// Adds every bucket of `other` (fio's `sum_thread_stats` for `group_reporting`).
    pub fn merge(&mut self, other: &PlatHistogram) {
        for (a, b) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *a += *b;
        }
    }

    /// Bucket counts, index order.
    pub fn buckets(&self) -> &[u64; PLAT_NR] {
        &self.buckets
    }

    /// Sum of all bucket counts.
    pub fn count(&self) -> u64 {
        self.buckets.iter().sum()
    }

    /// Non-empty buckets as (index, count), index order.
    pub fn nonzero(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.buckets.iter().enumerate().filter(|(_, c)| **c != 0).map(|(i, c)| (i, *c))
    }

    /// Loads json+ `"bins"`: (bucket value in ns, count) pairs as fio prints them. A value that is
    /// not a bucket's value is put where fio would have counted it.
    pub fn from_bins(bins: impl IntoIterator<Item = (u64, u64)>) -> PlatHistogram {
        let mut h = PlatHistogram::new();
        for (val, count) in bins {
            h.buckets[plat_val_to_idx(val)] += count;
        }
        h
    }

    /// The json+ `"bins"` of this histogram: (bucket value, count) for every non-empty bucket.
    pub fn bins(&self) -> Vec<(u64, u64)> {
        self.nonzero().map(|(i, c)| (plat_idx_to_val(i), c)).collect()
    }

    /// Percentile values in ns for `list` over `nr` samples, as fio's `calc_clat_percentiles`
    /// computes them: for each percentile p (ascending), the value of the first bucket whose
    /// cumulative count reaches `(long double)p / 100.0 * nr`. `nr` is the sample count of the
    /// matching latency stat (fio passes that, not the histogram sum). Percentiles the
    /// histogram never reaches (when `nr` exceeds its count) get the last bucket's value;
    /// fio prints an error and garbage there.
    pub fn percentiles(&self, list: &PercentileList, nr: u64) -> Vec<u64> {
        let plist = list.values();
        let mut out = Vec::with_capacity(plist.len());
        if plist.is_empty() {
            return out;
        }
        let ranks: Vec<Ext80> = plist.iter().map(|&p| Ext80::rank(p, nr)).collect();
        let mut sum: u64 = 0;
        let mut j = 0;
        'buckets: for (i, &c) in self.buckets.iter().enumerate() {
            sum += c;
            while ranks[j].le_u64(sum) {
                out.push(plat_idx_to_val(i));
                j += 1;
                if j == plist.len() {
                    break 'buckets;
                }
            }
        }
        while out.len() < plist.len() {
            out.push(plat_idx_to_val(PLAT_NR - 1));
        }
        out
    }
}

/// An x87 80-bit extended value (64-bit significand, round to nearest even), enough of it to
/// reproduce fio's `sum >= (long double)p / 100.0 * nr` on x86-64 bit for bit.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ext80 {
    /// Significand with the top bit set, or 0 for zero.
    mant: u64,
    /// The value is `mant * 2^exp`.
    exp: i32,
}

impl Ext80 {
    /// `(long double)p / 100.0 * nr`.
    fn rank(p: f64, nr: u64) -> Ext80 {
        Ext80::from_f64(p).div_u64(100).mul_u64(nr)
    }

    fn from_f64(v: f64) -> Ext80 {
        if v == 0.0 || !v.is_finite() {
            return Ext80 { mant: 0, exp: 0 };
        }
        let bits = v.abs().to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1u64 << 52) - 1);
        let (m, e) = if biased == 0 { (frac, -1074) } else { (frac | (1u64 << 52), biased - 1075) };
        Ext80::normalize(m as u128, e, false)
    }

    /// Rounds `m * 2^e` (with `sticky` set when nonzero bits below `m` were dropped) to 64 bits.
    fn normalize(m: u128, e: i32, sticky: bool) -> Ext80 {
        if m == 0 {
            return Ext80 { mant: 0, exp: 0 };
        }
        let msb = 127 - m.leading_zeros() as i32;
        if msb <= 63 {
            // Exact: shifting left loses nothing (sticky only arises from longer values).
            let shift = 63 - msb;
            return Ext80 { mant: (m << shift) as u64, exp: e - shift };
        }
        let shift = msb - 63;
        let kept = m >> shift;
        let rest = m & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let round_up = match rest.cmp(&half) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            // A tie only when nothing nonzero was dropped below `m`; then round to even.
            std::cmp::Ordering::Equal => sticky || kept & 1 == 1,
        };
        let mut kept = kept + u128::from(round_up);
        let mut exp = e + shift;
        if kept >> 64 != 0 {
            kept >>= 1;
            exp += 1;
        }
        Ext80 { mant: kept as u64, exp }
    }

    fn div_u64(self, d: u64) -> Ext80 {
        if self.mant == 0 {
            return self;
        }
        let num = (self.mant as u128) << 64;
        let q = num / d as u128;
        let r = num % d as u128;
        Ext80::normalize(q, self.exp - 64, r != 0)
    }

    fn mul_u64(self, n: u64) -> Ext80 {
        if self.mant == 0 || n == 0 {
            return Ext80 { mant: 0, exp: 0 };
        }
        Ext80::normalize(self.mant as u128 * n as u128, self.exp, false)
    }

    /// `self <= sum`, exactly.
    fn le_u64(self, sum: u64) -> bool {
        if self.mant == 0 {
            return true;
        }
        if self.exp >= 0 {
            if self.exp >= 64 {
                return false;
            }
            let v = (self.mant as u128) << self.exp;
            v <= sum as u128
        } else {
            let s = -self.exp;
            if s >= 64 {
                // mant < 2^64 <= sum * 2^s unless sum is 0.
                return sum != 0 || self.mant == 0;
            }
            ((sum as u128) << s) >= self.mant as u128
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idx_val_round_trip() {
        for idx in 0..PLAT_NR - 1 {
            assert_eq!(plat_val_to_idx(plat_idx_to_val(idx)), idx, "idx {idx}");
        }
        assert_eq!(plat_val_to_idx(u64::MAX), PLAT_NR - 1);
        assert_eq!(plat_idx_to_val(127), 127);
        assert_eq!(plat_idx_to_val(128), 129);
        assert_eq!(plat_val_to_idx(128), 128);
        assert_eq!(plat_val_to_idx(129), 128);
        assert_eq!(plat_val_to_idx(130), 129);
    }

    #[test]
    fn bucket_error_within_1_128() {
        for v in [1000u64, 12345, 999_999, 1 << 33, 17_000_000_000] {
            let mid = plat_idx_to_val(plat_val_to_idx(v));
            assert!((mid as f64 - v as f64).abs() / v as f64 <= 1.0 / 128.0, "{v} -> {mid}");
        }
    }

    #[test]
    fn ext80_rank_is_exact_where_real_math_is() {
        assert!(Ext80::rank(50.0, 1000).le_u64(500));
        assert!(!Ext80::rank(50.0, 1000).le_u64(499));
        // 99.9 as a double is slightly above 99.9: 99.9% of 1000 needs all 1000.
        assert!(!Ext80::rank(99.9, 1000).le_u64(999));
        assert!(Ext80::rank(99.9, 1000).le_u64(1000));
        // 99.5 is exact in binary.
        assert!(Ext80::rank(99.5, 1000).le_u64(995));
    }

    #[test]
    fn list_precision_is_the_most_decimals_of_any_entry() {
        for (text, prec) in [("1:50", 0), ("99.5:50", 1), ("50:99.5", 1), ("25.125:1", 3)] {
            assert_eq!(PercentileList::parse(text).unwrap().precision(), prec, "{text}");
        }
        let l = PercentileList::parse("99:1:50").unwrap();
        assert_eq!(l.values(), &[1.0, 50.0, 99.0]);
        // fio's list ends at the first zero.
        assert_eq!(PercentileList::parse("5:0:50").unwrap().values(), &[5.0]);
        assert!(PercentileList::parse("101").is_none());
        assert!(PercentileList::parse("abc").is_none());
    }

    #[test]
    fn percentiles_of_uniform_counts() {
        let mut h = PlatHistogram::new();
        for v in 0..100 {
            h.add(v);
        }
        let l = PercentileList::new(&[1.0, 50.0, 99.0, 100.0], 2);
        assert_eq!(h.percentiles(&l, 100), vec![0, 49, 98, 99]);
    }
}
