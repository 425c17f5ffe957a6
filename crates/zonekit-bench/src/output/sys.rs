//! The OS boundary of the output: local time as C's `ctime` prints it (fio prints report times
//! with `ctime_r`, in the local time zone).
#![allow(unsafe_code)]

use std::time::{SystemTime, UNIX_EPOCH};

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// `ctime(&secs)` without its trailing newline, e.g. `Sun Nov 22 04:37:48 2026` (local time;
/// UTC if the conversion fails).
pub fn ctime(secs: i64) -> String {
    let t: libc::time_t = secs as libc::time_t;
    let mut tm = std::mem::MaybeUninit::<libc::tm>::zeroed();
    // SAFETY: `t` and `tm` are valid for reads and writes of their types for the whole call;
    // localtime_r is the thread-safe variant and writes only to `tm`.
    let res = unsafe { libc::localtime_r(&t, tm.as_mut_ptr()) };
    let tm = if res.is_null() {
        None
    } else {
        // SAFETY: localtime_r succeeded, so it filled every field of `tm` (zeroed before anyway).
        Some(unsafe { tm.assume_init() })
    };
    match tm {
        Some(tm) => format!(
            "{} {} {:2} {:02}:{:02}:{:02} {}",
            DAYS[tm.tm_wday.rem_euclid(7) as usize],
            MONTHS[tm.tm_mon.rem_euclid(12) as usize],
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec,
            i64::from(tm.tm_year) + 1900
        ),
        None => utc_ctime(secs),
    }
}

/// `ctime` in UTC, computed without the C library.
pub fn utc_ctime(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let wday = (days + 4).rem_euclid(7) as usize; // 1970-01-01 was a Thursday
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mon = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mon <= 2);
    format!("{} {} {:2} {:02}:{:02}:{:02} {}", DAYS[wday], MONTHS[(mon - 1) as usize], d, h, m, s, y)
}

/// Now as (seconds, milliseconds) since the epoch: JSON's `timestamp` and `timestamp_ms`.
pub fn now_timestamp() -> (u64, u64) {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    (d.as_secs(), d.as_secs() * 1000 + u64::from(d.subsec_millis()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc_ctime(0), "Thu Jan  1 00:00:00 1970");
        // The timestamp of a recorded fio run (this machine's zone is UTC).
        assert_eq!(utc_ctime(1_795_331_658), "Sun Nov 22 07:14:18 2026");
        assert_eq!(utc_ctime(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn local_ctime_has_ctimes_shape() {
        let s = ctime(1_795_331_658);
        assert_eq!(s.len(), 24, "{s}");
        assert!(s.ends_with(" 2026"), "{s}");
    }
}
