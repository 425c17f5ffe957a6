//! Options whose values have their own syntax: `rw`'s `:N`, `bssplit`, `bsrange`,
//! `random_distribution`, `file_service_type`, `ioengine`, `continue_on_error`, `ignore_error`, `steadystate`.

/// `sync_file_range=flags[:N]`: the `SYNC_FILE_RANGE_*` bits of a comma list of `wait_before`,
/// `write` and `wait_after`, and N (1 when left out; 0 never syncs).
pub fn parse_sync_file_range(s: &str) -> Result<(u32, u64), String> {
    let (names, nr) = match s.split_once(':') {
        Some((f, n)) => {
            let n = n.trim().parse::<u64>().map_err(|_| format!("{n:?} is not a number of writes"))?;
            (f, n)
        }
        None => (s, 1),
    };
    let mut flags = 0;
    for name in names.split(',') {
        flags |= match name.trim() {
            "wait_before" => libc::SYNC_FILE_RANGE_WAIT_BEFORE,
            "write" => libc::SYNC_FILE_RANGE_WRITE,
            "wait_after" => libc::SYNC_FILE_RANGE_WAIT_AFTER,
            other => return Err(format!("{other:?} is not wait_before, write or wait_after")),
        };
    }
    Ok((flags, nr))
}

use super::job::{
    BsSplit, ContinueOnError, IoUringOptions, JobOptions, LibaioOptions, Pvsync2Options, RandomDistribution, RwMode,
    ZoneSplit,
};
use super::value::{self, Value};

/// `rw=mode[:N]`: for random modes N is how many I/Os share one random offset (a whole number
/// ≥ 1); for sequential modes N is a gap in bytes added after each I/O.
pub fn apply_rw(o: &mut JobOptions, v: &Value) -> Result<(), String> {
    let Value::Choice(name, postfix) = v else {
        return Err("expected an I/O pattern".into());
    };
    o.rw = match *name {
        "read" => RwMode::Read,
        "write" => RwMode::Write,
        "trim" => RwMode::Trim,
        "randread" => RwMode::RandRead,
        "randwrite" => RwMode::RandWrite,
        "randtrim" => RwMode::RandTrim,
        "rw" => RwMode::ReadWrite,
        "randrw" => RwMode::RandRw,
        "trimwrite" => RwMode::TrimWrite,
        "randtrimwrite" => RwMode::RandTrimWrite,
        other => return Err(format!("unknown I/O pattern {other}")),
    };
    o.rw_modifier = if o.rw.is_random() { 1 } else { 0 };
    o.rw_seq_add = 0;
    if let Some(p) = postfix {
        let p = p.trim();
        if o.rw.is_random() {
            let n: u64 = p
                .parse()
                .map_err(|_| format!("'{p}' after ':' must be a whole number of I/Os for a random pattern"))?;
            if n == 0 {
                return Err("the number of I/Os per random offset must be at least 1".into());
            }
            o.rw_modifier = n;
        } else {
            let gap = value::parse_int(p, o.kb_base).map_err(|e| format!("gap after ':': {e}"))?;
            o.rw_seq_add = gap;
            o.rw_modifier = u64::try_from(gap).unwrap_or(0);
        }
    }
    Ok(())
}

/// `ioengine=NAME` or `ioengine=external:PATH`.
pub fn apply_ioengine(o: &mut JobOptions, v: &Value) -> Result<(), String> {
    let name = v.as_text().trim();
    if name.is_empty() {
        return Err("an engine name is required".into());
    }
    if name.starts_with("external") && !name.starts_with("external:") {
        return Err("an external engine is written external:/path/to/engine.so".into());
    }
    if o.ioengine != name {
        // Another engine: its options start from their defaults, whatever the previous one had.
        o.io_uring = IoUringOptions::default();
        o.libaio = LibaioOptions::default();
        o.pvsync2 = Pvsync2Options::default();
    }
    o.ioengine = name.to_string();
    Ok(())
}

/// `bsrange=lo-hi[,lo-hi[,lo-hi]]`: sets the range and the smallest and largest block sizes.
pub fn apply_bsrange(o: &mut JobOptions, v: &Value) -> Result<(), String> {
    let Value::RangeDirs(d) = v else {
        return Err("expected a range low-high".into());
    };
    let mut r = o.bsrange.unwrap_or([(o.bs[0], o.bs[0]), (o.bs[1], o.bs[1]), (o.bs[2], o.bs[2])]);
    for (i, e) in d.iter().enumerate() {
        if let Some((lo, hi)) = e {
            r[i] = (*lo, *hi);
            o.min_bs[i] = *lo;
            o.max_bs[i] = *hi;
        }
    }
    o.bsrange = Some(r);
    Ok(())
}

/// One direction's `bssplit` list (`bs/perc:bs/perc…`), with fio's rules (`split_parse_ddir`,
/// `bssplit_ddir`): the percentage is read as C's `atoi` reads it (`50x` is 50, `x` is 0); an
/// entry without a percentage (or with 0) shares what the others leave; a percentage above 100
/// counts as 100; the percentages may add up to more than 100 only with at most one entry left
/// to share the rest (which then gets none); entries past the 64th are dropped with a warning.
fn bssplit_list(s: &str, kb_base: u32) -> Result<Vec<BsSplit>, String> {
    let mut entries: Vec<(u64, Option<u32>)> = Vec::new();
    for item in s.split(':') {
        if item.trim().is_empty() {
            break;
        }
        let (bs, perc) = match item.split_once('/') {
            Some((b, p)) => {
                let n = value::atoi(p);
                (b, if n <= 0 { None } else { Some(n.min(100) as u32) })
            }
            None => (item, None),
        };
        let bs = value::parse_size(bs, kb_base)?;
        if bs == 0 {
            return Err("block sizes must be at least 1".into());
        }
        entries.push((bs, perc));
        if entries.len() == 64 {
            eprintln!("zonekit: warning: bssplit: only the first 64 entries of a list are used, as fio does");
            break;
        }
    }
    let given: u32 = entries.iter().filter_map(|e| e.1).sum();
    let missing = entries.iter().filter(|e| e.1.is_none()).count() as u32;
    if given > 100 && missing > 1 {
        return Err(format!("percentages add up to {given}%, more than 100%"));
    }
    let share = if missing == 0 {
        0
    } else if missing == 1 && entries.len() == 1 {
        100
    } else {
        100u32.saturating_sub(given) / missing
    };
    let mut out: Vec<BsSplit> = entries.into_iter().map(|(bs, p)| BsSplit { bs, perc: p.unwrap_or(share) }).collect();
    // fio sorts each list by percentage (ascending) for its lookup; a stable sort keeps ties in
    // the order written.
    out.sort_by_key(|e| e.perc);
    Ok(out)
}

/// Splits a per-direction value `r,w,t` as fio's `str_split_parse`: without a comma one list
/// serves all three directions; with one comma, trim takes the write list.
pub(crate) fn split_dirs(s: &str) -> Result<[Option<&str>; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    match parts.len() {
        1 => Ok([Some(parts[0]), Some(parts[0]), Some(parts[0])]),
        2 => Ok([Some(parts[0]), Some(parts[1]), Some(parts[1])]),
        3 => Ok([Some(parts[0]), Some(parts[1]), Some(parts[2])]),
        _ => Err("at most three lists (read,write,trim)".into()),
    }
}

/// `bssplit=…`.
pub fn apply_bssplit(o: &mut JobOptions, v: &Value) -> Result<(), String> {
    let dirs = split_dirs(v.as_text())?;
    let mut any = false;
    for (i, part) in dirs.iter().enumerate() {
        let Some(part) = part else { continue };
        let list = bssplit_list(part, o.kb_base)?;
        if list.is_empty() {
            continue;
        }
        any = true;
        o.min_bs[i] = list.iter().map(|e| e.bs).min().unwrap_or(o.bs[i]);
        o.max_bs[i] = list.iter().map(|e| e.bs).max().unwrap_or(o.bs[i]);
        o.bssplit[i] = list;
    }
    if !any {
        return Err("expected bs/percent entries".into());
    }
    Ok(())
}

fn distr_params(p: &str) -> Result<(f64, Option<f64>), String> {
    let (val, center) = match p.split_once(':') {
        Some((v, c)) => (v, Some(c)),
        None => (p, None),
    };
    let val = value::parse_float(val).map_err(|_| format!("'{val}' is not a number"))?;
    let center = match center {
        Some(c) => {
            let c = value::parse_float(c).map_err(|_| format!("center '{c}' is not a number"))?;
            if !(0.0..=1.0).contains(&c) {
                return Err("the center must be within 0.0–1.0".into());
            }
            Some(c)
        }
        None => None,
    };
    Ok((val, center))
}

fn zoned_list(s: &str, absolute: bool, kb_base: u32) -> Result<Vec<ZoneSplit>, String> {
    let mut entries: Vec<(u64, Option<u64>)> = Vec::new();
    for item in s.split(':') {
        if item.trim().is_empty() {
            break;
        }
        let (a, sz) = match item.split_once('/') {
            Some((a, s)) => (a, Some(s.trim())),
            None => (item, None),
        };
        let access = value::parse_size(a, kb_base)?;
        let size = match sz {
            Some(s) if absolute => Some(value::parse_size(s, kb_base)?),
            Some(s) => {
                // fio reads the size share with atoi: empty or 0 means "share the rest".
                let n: u64 =
                    if s.is_empty() { 0 } else { s.parse().map_err(|_| format!("'{s}' is not a whole percentage"))? };
                if n == 0 { None } else { Some(n.min(100)) }
            }
            None if absolute => Some(0),
            None => None,
        };
        entries.push((access, size));
        if entries.len() > 256 {
            return Err("at most 256 entries per direction".into());
        }
    }
    let access: u64 = entries.iter().map(|e| e.0).sum();
    if access != 100 {
        return Err(format!("access percentages add up to {access}%, not 100%"));
    }
    let mut out = Vec::with_capacity(entries.len());
    if absolute {
        for (a, s) in entries {
            out.push(ZoneSplit { access_perc: a as u32, size: s.unwrap_or(0) });
        }
    } else {
        let given: u64 = entries.iter().filter_map(|e| e.1).sum();
        if given > 100 {
            return Err(format!("size percentages add up to {given}%, more than 100%"));
        }
        let missing = entries.iter().filter(|e| e.1.is_none()).count() as u64;
        let share = if missing == 0 {
            0
        } else if missing == 1 && entries.len() == 1 {
            100
        } else {
            (100 - given) / missing
        };
        for (a, s) in entries {
            out.push(ZoneSplit { access_perc: a as u32, size: s.unwrap_or(share) });
        }
    }
    Ok(out)
}

/// `random_distribution=random | zipf[:θ[:c]] | pareto[:h[:c]] | normal[:σ[:c]] | zoned:… |
/// zoned_abs:…` with fio's ranges (θ ≠ 1, 0 < h < 1, 0 ≤ σ < 100, 0 ≤ c ≤ 1).
pub fn apply_random_distribution(o: &mut JobOptions, v: &Value) -> Result<(), String> {
    let Value::Choice(name, postfix) = v else {
        return Err("expected a distribution".into());
    };
    let post = postfix.as_deref().map(str::trim);
    o.random_distribution = match *name {
        "random" => {
            if post.is_some() {
                return Err("random takes no parameter".into());
            }
            RandomDistribution::Random
        }
        "zipf" => {
            let (theta, center) = match post {
                Some(p) => distr_params(p)?,
                None => (1.1, None),
            };
            if theta == 1.0 {
                return Err("the zipf exponent must not be 1.0".into());
            }
            if theta < 0.0 {
                return Err("the zipf exponent must not be negative".into());
            }
            RandomDistribution::Zipf { theta, center }
        }
        "pareto" => {
            let (h, center) = match post {
                Some(p) => distr_params(p)?,
                None => (0.2, None),
            };
            if h <= 0.0 || h >= 1.0 {
                return Err("the pareto shape must be between 0 and 1 (exclusive)".into());
            }
            RandomDistribution::Pareto { h, center }
        }
        "normal" => {
            let (sigma, center) = match post {
                Some(p) => distr_params(p)?,
                None => (0.0, None),
            };
            if !(0.0..100.0).contains(&sigma) {
                return Err("the normal deviation must be within 0 and 100 (exclusive)".into());
            }
            RandomDistribution::Normal { sigma, center }
        }
        "zoned" | "zoned_abs" => {
            let absolute = *name == "zoned_abs";
            let p = post.ok_or_else(|| format!("{name} needs a list, e.g. {name}:60/10:40/90"))?;
            let dirs = split_dirs(p)?;
            let mut lists: [Vec<ZoneSplit>; 3] = [Vec::new(), Vec::new(), Vec::new()];
            for (i, d) in dirs.iter().enumerate() {
                if let Some(d) = d
                    && !d.trim().is_empty()
                {
                    lists[i] = zoned_list(d, absolute, o.kb_base)?;
                }
            }
            if absolute { RandomDistribution::ZonedAbs(lists) } else { RandomDistribution::Zoned(lists) }
        }
        other => return Err(format!("unknown distribution {other}")),
    };
    Ok(())
}

/// `file_service_type=roundrobin[:N] | sequential[:N] | random[:N] | zipf[:θ] | pareto[:h] |
/// normal[:σ] | gauss[:σ]`.
pub fn apply_file_service_type(o: &mut JobOptions, v: &Value) -> Result<(), String> {
    let Value::Choice(name, postfix) = v else {
        return Err("expected a file service type".into());
    };
    if let Some(p) = postfix.as_deref().map(str::trim) {
        match *name {
            "roundrobin" | "sequential" | "random" => {
                let n: u64 = p.parse().map_err(|_| format!("'{p}' after ':' must be a whole number of I/Os"))?;
                if n == 0 {
                    return Err("the number of I/Os per file must be at least 1".into());
                }
            }
            _ => {
                distr_params(p)?;
            }
        }
        o.file_service_type = format!("{name}:{p}");
    } else {
        o.file_service_type = (*name).to_string();
    }
    Ok(())
}

/// `continue_on_error` as fio's bit mask.
pub fn continue_on_error(s: &str) -> ContinueOnError {
    match s {
        "read" => ContinueOnError { read: true, ..Default::default() },
        "write" => ContinueOnError { write: true, ..Default::default() },
        "io" => ContinueOnError { read: true, write: true, verify: false },
        "verify" => ContinueOnError { verify: true, ..Default::default() },
        "all" => ContinueOnError { read: true, write: true, verify: true },
        _ => ContinueOnError::default(),
    }
}

/// `steadystate=criterion:limit` (fio's `str_steadystate_cb`): the limit is required; `N%` is a
/// percentage of the mean, else IOPS for the `iops` criteria and bytes per second (size
/// suffixes, under the job's `kb_base`) for the `bw` ones.
pub fn steadystate(o: &mut JobOptions, v: &Value) -> Result<(), String> {
    let Value::Choice(name, extra) = v else { return Ok(()) };
    let Some(limit) = extra.as_deref() else {
        return Err("the limit is required after the criterion (e.g. iops_slope:0.1%)".to_string());
    };
    let ss = &mut o.steadystate;
    ss.iops = name.starts_with("iops");
    ss.slope = name.ends_with("_slope");
    if let Some(pct) = limit.strip_suffix('%') {
        ss.limit = value::parse_float(pct.trim_end()).map_err(|e| format!("limit {limit}: {e}"))?;
        ss.percent = true;
    } else if ss.iops {
        ss.limit = value::parse_float(limit).map_err(|e| format!("limit {limit}: {e}"))?;
        ss.percent = false;
    } else {
        ss.limit = value::parse_int(limit, o.kb_base).map_err(|e| format!("limit {limit}: {e}"))? as f64;
        ss.percent = false;
    }
    Ok(())
}

/// The errno names `ignore_error` knows (fio's `str2error`): EPERM (1) to ERANGE (34).
const ERRNO_NAMES: [&str; 34] = [
    "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF", "ECHILD", "EAGAIN", "ENOMEM",
    "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV", "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE",
    "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
];

/// `ignore_error=read,write,verify` (fio's `str_ignore_error_cb`): each a `:`-separated list of
/// errno names or numbers; a non-empty list turns `continue_on_error` on for its kind.
pub fn ignore_error(o: &mut JobOptions, v: &Value) -> Result<(), String> {
    let text = v.as_text().trim();
    let kinds: Vec<&str> = text.split(',').collect();
    if kinds.len() > 3 {
        return Err("at most three lists (read,write,verify)".to_string());
    }
    for (kind, list) in kinds.iter().enumerate() {
        if list.is_empty() {
            continue;
        }
        let mut errnos = Vec::new();
        for name in list.split(':') {
            let errno = if name.is_empty() {
                return Err(format!("{list}: an empty entry (fio would drop the rest of the list)"));
            } else if name.starts_with('E') {
                match ERRNO_NAMES.iter().position(|n| *n == name) {
                    Some(i) => i as i32 + 1,
                    None => {
                        return Err(format!(
                            "unknown error {name} (fio knows EPERM to ERANGE by name; give the number)"
                        ));
                    }
                }
            } else {
                match name.parse::<i32>() {
                    Ok(n) if n != 0 && n != i32::MIN => n.abs(),
                    _ => return Err(format!("{name}: not an errno name or number")),
                }
            };
            errnos.push(errno);
        }
        match kind {
            0 => o.continue_on_error.read = true,
            1 => o.continue_on_error.write = true,
            _ => o.continue_on_error.verify = true,
        }
        o.ignore_error[kind] = errnos;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_error_lists() {
        let ie = |s: &str| {
            let mut o = JobOptions::default();
            ignore_error(&mut o, &Value::Text(s.to_string())).map(|_| o)
        };
        let o = ie(",EIO:ENOSPC:121").unwrap();
        assert_eq!(o.ignore_error, [vec![], vec![5, 28, 121], vec![]]);
        assert!(!o.continue_on_error.read && o.continue_on_error.write && !o.continue_on_error.verify);
        let o = ie("-22,,84").unwrap();
        assert_eq!(o.ignore_error, [vec![22], vec![], vec![84]]);
        assert!(o.continue_on_error.read && !o.continue_on_error.write && o.continue_on_error.verify);
        assert!(ie("EILSEQ").is_err());
        assert!(ie("EIO::EBUSY").is_err());
        assert!(ie("1,2,3,4").is_err());
        assert!(ie("abc").is_err());
    }

    #[test]
    fn steadystate_limits() {
        let ss = |n: &'static str, p: Option<&str>| {
            let mut o = JobOptions::default();
            steadystate(&mut o, &Value::Choice(n, p.map(str::to_string))).map(|_| o.steadystate)
        };
        let s = ss("iops", Some("5%")).unwrap();
        assert!(s.iops && !s.slope && s.percent && s.limit == 5.0);
        let s = ss("bw_slope", Some("10m")).unwrap();
        assert!(!s.iops && s.slope && !s.percent && s.limit == 10.0 * 1024.0 * 1024.0);
        let s = ss("iops_slope", Some("0.5")).unwrap();
        assert!(s.iops && s.slope && !s.percent && s.limit == 0.5);
        assert!(ss("iops", None).is_err());
        assert!(ss("iops", Some("x%")).is_err());
        assert!(ss("bw", Some("1q")).is_err());
    }

    fn rw(s: &str) -> Result<JobOptions, String> {
        let mut o = JobOptions::default();
        let (n, p) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p.to_string())),
            None => (s, None),
        };
        let name: &'static str = match n {
            "randread" => "randread",
            "write" => "write",
            _ => "read",
        };
        apply_rw(&mut o, &Value::Choice(name, p))?;
        Ok(o)
    }

    #[test]
    fn rw_modifiers() {
        assert_eq!(rw("randread:8").map(|o| o.rw_modifier), Ok(8));
        assert_eq!(rw("randread").map(|o| o.rw_modifier), Ok(1));
        assert_eq!(rw("write:4k").map(|o| o.rw_modifier), Ok(4096));
        assert!(rw("randread:abc").is_err());
        assert!(rw("randread:0").is_err());
        assert!(rw("write:abc").is_err());
        let back = rw("write:-8k").unwrap();
        assert_eq!((back.rw_modifier, back.rw_seq_add), (0, -8192));
    }

    #[test]
    fn bssplit_rules() {
        let l = bssplit_list("4k/50:64k/50", 1024).unwrap();
        assert_eq!(l, vec![BsSplit { bs: 4096, perc: 50 }, BsSplit { bs: 65536, perc: 50 }]);
        let l = bssplit_list("4k/10:8k:16k", 1024).unwrap();
        assert_eq!(l.iter().map(|e| e.perc).collect::<Vec<_>>(), vec![10, 45, 45]);
        assert_eq!(bssplit_list("4k", 1024).unwrap(), vec![BsSplit { bs: 4096, perc: 100 }]);
        // fio's lenient reading: more than 100 % with at most one entry left to share the rest,
        // a percentage read as atoi reads it.
        let l = bssplit_list("4k/60:8k/60", 1024).unwrap();
        assert_eq!(l.iter().map(|e| e.perc).sum::<u32>(), 120);
        assert_eq!(bssplit_list("4k/60:8k/60:16k", 1024).unwrap()[0], BsSplit { bs: 16384, perc: 0 });
        assert!(bssplit_list("4k/60:8k/60:16k:32k", 1024).is_err());
        assert_eq!(bssplit_list("4k/x", 1024).unwrap(), vec![BsSplit { bs: 4096, perc: 100 }]);
        assert_eq!(bssplit_list("4k/30x:8k", 1024).unwrap()[0], BsSplit { bs: 4096, perc: 30 });
        assert_eq!(
            bssplit_list("1k/50:2k/:3k/", 1024).unwrap().iter().map(|e| e.perc).collect::<Vec<_>>(),
            [25, 25, 50]
        );
        let many: Vec<String> = (1..=70).map(|i| format!("{}k", i)).collect();
        assert_eq!(bssplit_list(&many.join(":"), 1024).unwrap().len(), 64);
        let mut o = JobOptions::default();
        apply_bssplit(&mut o, &Value::Text("4k/50:8k/50,64k".into())).unwrap();
        assert_eq!(o.min_bs, [4096, 65536, 65536]);
        assert_eq!(o.max_bs, [8192, 65536, 65536]);
    }

    #[test]
    fn distributions() {
        let mut o = JobOptions::default();
        let d = |o: &mut JobOptions, n: &'static str, p: Option<&str>| {
            apply_random_distribution(o, &Value::Choice(n, p.map(str::to_string)))
        };
        d(&mut o, "zipf", Some("1.2")).unwrap();
        assert_eq!(o.random_distribution, RandomDistribution::Zipf { theta: 1.2, center: None });
        d(&mut o, "normal", Some("5:0.5")).unwrap();
        assert_eq!(o.random_distribution, RandomDistribution::Normal { sigma: 5.0, center: Some(0.5) });
        assert!(d(&mut o, "zipf", Some("1.0")).is_err());
        assert!(d(&mut o, "pareto", Some("1.5")).is_err());
        assert!(d(&mut o, "normal", Some("5:2")).is_err());
        d(&mut o, "zoned", Some("60/10:30/20:8/30:2/40")).unwrap();
        assert!(matches!(o.random_distribution, RandomDistribution::Zoned(_)));
        assert!(d(&mut o, "zoned", Some("60/10:30/20")).is_err());
        d(&mut o, "zoned", Some("50/5:30/15:20/")).unwrap();
        let RandomDistribution::Zoned(l) = &o.random_distribution else { panic!() };
        assert_eq!(l[0][2], ZoneSplit { access_perc: 20, size: 80 });
        d(&mut o, "zoned_abs", Some("60/20G:30/100G:10/500g")).unwrap();
    }
}
