//! Per-I/O priorities of the `io_uring` and `libaio` engines, as fio 3.33 has them
//! (`engines/cmdprio.c`): `cmdprio_percentage` sends that share of a direction's I/Os with the
//! priority `cmdprio_class`/`cmdprio` (class real-time when not given), and `cmdprio_bssplit`
//! picks a share and priority per block size. Every other I/O carries the job's own priority
//! (`prioclass`/`prio`, 0 when not set).
//!
//! A job's latency statistics are then kept per priority too, in fio's order: the job's
//! priority first, then each other priority in the order the options name it
//! ([`CmdPrio::prios`]); each I/O says which one it counts in ([`Pick::index`]).

use crate::rng::FioRand;

/// `IOPRIO_CLASS_RT`, the class fio gives the I/Os of `cmdprio_percentage`/`cmdprio_bssplit`
/// when `cmdprio_class` is not set.
pub const IOPRIO_CLASS_RT: u32 = 1;

/// The kernel's `IOPRIO_PRIO_VALUE`: the class in the top 3 bits of 16, the level below.
pub fn ioprio_value(class: u32, level: u32) -> u32 {
    (class << 13) | level
}

/// fio's limit on the entries of one direction's `cmdprio_bssplit` (`BSSPLIT_MAX`).
const BSSPLIT_MAX: usize = 64;

/// One `cmdprio_bssplit` entry: I/Os of `bs` bytes take the priority `prio` (`None`: the one of
/// `cmdprio_class`/`cmdprio`) `perc` percent of the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrioSplit {
    /// Block size, bytes.
    pub bs: u64,
    /// Percentage of the I/Os of that size, 1 to 100.
    pub perc: u32,
    /// The priority value (class and level), or `None` for the implicit one.
    pub prio: Option<u32>,
}

/// The `cmdprio*` options of a job (reads and writes; fio ignores trims).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CmdprioOptions {
    /// `cmdprio_percentage` per direction (read, write).
    pub percentage: [u32; 2],
    /// `cmdprio_class` per direction (0: not set, real-time is used).
    pub class: [u32; 2],
    /// `cmdprio` per direction.
    pub level: [u32; 2],
    /// `cmdprio_bssplit` per direction, sorted by block size (empty: not given or no entry
    /// with a share).
    pub bssplit: [Vec<PrioSplit>; 2],
    /// Whether `cmdprio_bssplit` was given a non-empty value.
    pub bssplit_set: bool,
}

impl CmdprioOptions {
    /// Whether any I/O may take a priority of its own.
    pub fn active(&self) -> bool {
        self.bssplit_set || self.percentage.iter().any(|&p| p > 0)
    }

    /// fio's conflict check: both ways of choosing are set.
    pub fn conflicting(&self) -> bool {
        self.bssplit_set && self.percentage.iter().any(|&p| p > 0)
    }
}

/// C's `%u` of one `/`-separated field: optional blanks and sign, then digits, nothing else.
fn field(s: &str) -> Option<u32> {
    let t = s.trim_start();
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(t.parse::<u64>().map_or(u32::MAX, |n| n.min(u64::from(u32::MAX)) as u32))
}

/// One direction's list (`bs/perc[/class/level]:…`), as fio's `split_parse_prio_ddir` reads it:
/// `bs/` or `bs` alone has no share and is dropped, a percentage above 100 counts as 100, a
/// class above 3 as 3 and a level above 7 as 7, fields after the fourth are ignored (a later
/// fio's priority hint); the list is sorted by block size. Unlike fio, which reads what it can
/// of a malformed entry, any other form is an error.
fn parse_dir(s: &str, kb_base: u32) -> Result<Vec<PrioSplit>, String> {
    let mut out = Vec::new();
    for (n, item) in s.split(':').enumerate() {
        if item.is_empty() {
            break;
        }
        if n >= BSSPLIT_MAX {
            return Err(format!("more than {BSSPLIT_MAX} entries in one direction"));
        }
        let bad = || format!("`{item}`: expected bs/percent or bs/percent/class/level");
        let parts: Vec<&str> = item.split('/').collect();
        let bs = super::value::parse_size(parts[0], kb_base).map_err(|e| format!("`{item}`: {e}"))?;
        let num = |i: usize| parts.get(i).map(|p| field(p).ok_or_else(bad)).transpose();
        let (perc, prio) = match parts.len() {
            1 => (0, None),
            2 if parts[1].is_empty() => (0, None),
            2 => (num(1)?.unwrap_or(0), None),
            // fio 3.33 reads four fields and leaves the rest (a later fio's `/hint`).
            n if n >= 4 => {
                let class = num(2)?.unwrap_or(0).min(3);
                let level = num(3)?.unwrap_or(0).min(7);
                (num(1)?.unwrap_or(0), Some(ioprio_value(class, level)))
            }
            _ => return Err(bad()),
        };
        if perc > 0 {
            out.push(PrioSplit { bs, perc: perc.min(100), prio });
        }
    }
    // A stable sort: entries of one block size keep the order written.
    out.sort_by_key(|e| e.bs);
    for (i, e) in out.iter().enumerate() {
        if i > 0 && out[i - 1].bs == e.bs {
            continue;
        }
        let total: u32 = out.iter().filter(|x| x.bs == e.bs).map(|x| x.perc).sum();
        if total > 100 {
            return Err(format!("the percentages of block size {} add up to {total}%, more than 100%", e.bs));
        }
    }
    Ok(out)
}

/// `cmdprio_bssplit=…`: lists per direction as `bssplit` takes them (`reads,writes[,trims]`;
/// one list serves both), trims' ignored as fio ignores them.
pub fn parse_bssplit(s: &str, kb_base: u32) -> Result<[Vec<PrioSplit>; 2], String> {
    let s = s.trim();
    let dirs = super::special::split_dirs(s)?;
    let read = dirs[0].map(|d| parse_dir(d, kb_base)).transpose()?.unwrap_or_default();
    let write = dirs[1].map(|d| parse_dir(d, kb_base)).transpose()?.unwrap_or_default();
    if let Some(t) = dirs[2] {
        parse_dir(t, kb_base)?;
    }
    Ok([read, write])
}

/// One possible priority of a direction's I/Os: its share and where its statistics go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Choice {
    perc: u32,
    prio: u32,
    index: usize,
}

/// How one direction picks priorities.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DirPlan {
    /// Every I/O at the job's priority.
    None,
    /// `cmdprio_percentage`.
    Perc(Choice),
    /// `cmdprio_bssplit`: per block size, its choices (their shares add up to at most 100).
    Bs(Vec<(u64, Vec<Choice>)>),
}

/// What a picked I/O carries: its priority value and the index of its statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    /// The priority value (class << 13 | level).
    pub prio: u16,
    /// Index in [`CmdPrio::prios`] of the direction.
    pub index: usize,
}

/// A job's priority picker (fio's `struct cmdprio` with its `prio_state` generator).
#[derive(Debug, Clone)]
pub struct CmdPrio {
    dirs: [DirPlan; 2],
    prios: [Vec<u32>; 2],
    rng: FioRand,
}

impl CmdPrio {
    /// The picker of a job that reads (`reads`) and writes (`writes`) with the job's priority
    /// `job_prio`, drawing from `rng` (fio's `prio_state`). `None` when no `cmdprio*` option asks
    /// for anything.
    pub fn new(o: &CmdprioOptions, job_prio: u32, reads: bool, writes: bool, rng: FioRand) -> Option<CmdPrio> {
        if !o.active() {
            return None;
        }
        let mut dirs = [DirPlan::None, DirPlan::None];
        let mut prios: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        for d in 0..2 {
            if (d == 0 && !reads) || (d == 1 && !writes) {
                continue;
            }
            let class = if o.class[d] == 0 { IOPRIO_CLASS_RT } else { o.class[d] };
            let implicit = ioprio_value(class, o.level[d]);
            let mut list = vec![job_prio];
            let mut index_of = |p: u32| match list.iter().position(|&x| x == p) {
                Some(i) => i,
                None => {
                    list.push(p);
                    list.len() - 1
                }
            };
            if o.bssplit_set {
                if o.bssplit[d].is_empty() {
                    continue;
                }
                let mut per_bs: Vec<(u64, Vec<Choice>)> = Vec::new();
                for e in &o.bssplit[d] {
                    let prio = e.prio.unwrap_or(implicit);
                    let c = Choice { perc: e.perc, prio, index: index_of(prio) };
                    match per_bs.last_mut() {
                        Some((bs, v)) if *bs == e.bs => v.push(c),
                        _ => per_bs.push((e.bs, vec![c])),
                    }
                }
                dirs[d] = DirPlan::Bs(per_bs);
            } else {
                if o.percentage[d] == 0 {
                    continue;
                }
                dirs[d] = DirPlan::Perc(Choice { perc: o.percentage[d], prio: implicit, index: index_of(implicit) });
            }
            prios[d] = list;
        }
        Some(CmdPrio { dirs, prios, rng })
    }

    /// The priorities the statistics of direction `d` (0 read, 1 write) are kept for, the job's
    /// own first; empty when that direction's I/Os all take the job's priority.
    pub fn prios(&self, d: usize) -> &[u32] {
        self.prios.get(d).map_or(&[], Vec::as_slice)
    }

    /// The priority of the next I/O of direction `d` (0 read, 1 write) and `len` bytes (fio's
    /// `fio_cmdprio_set_ioprio`): `None` keeps the job's priority. Draws one number from the
    /// generator when the I/O's direction and size have a share.
    pub fn pick(&mut self, d: usize, len: u64) -> Option<Pick> {
        let choices: &[Choice] = match self.dirs.get(d)? {
            DirPlan::None => return None,
            DirPlan::Perc(c) => std::slice::from_ref(c),
            DirPlan::Bs(v) => &v.iter().find(|(bs, _)| *bs == len)?.1,
        };
        let total: u32 = choices.iter().map(|c| c.perc).sum();
        if total == 0 {
            return None;
        }
        let r = self.rng.between(0, 99) as u32;
        if r >= total {
            return None;
        }
        let mut acc = 0;
        for c in choices {
            acc += c.perc;
            if r < acc {
                return Some(Pick { prio: c.prio as u16, index: c.index });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bssplit_entries_as_fio_reads_them() {
        let [r, w] = parse_bssplit("64k/40:4k/30/2/5:4k/", 1024).unwrap();
        assert_eq!(
            r,
            vec![
                PrioSplit { bs: 4096, perc: 30, prio: Some((2 << 13) | 5) },
                PrioSplit { bs: 65536, perc: 40, prio: None },
            ]
        );
        assert_eq!(r, w, "one list serves both directions");
        let [r, w] = parse_bssplit("4k/10,8k/200/9/9", 1024).unwrap();
        assert_eq!(r, vec![PrioSplit { bs: 4096, perc: 10, prio: None }]);
        assert_eq!(w, vec![PrioSplit { bs: 8192, perc: 100, prio: Some((3 << 13) | 7) }], "clamped as fio");
        assert!(parse_bssplit("4k/10/1", 1024).unwrap_err().contains("bs/percent"));
        let [r, _] = parse_bssplit("1M/10/2/0/1", 1024).unwrap();
        assert_eq!(r, vec![PrioSplit { bs: 1 << 20, perc: 10, prio: Some(2 << 13) }], "the hint is left");
        assert!(parse_bssplit("4k/x", 1024).is_err());
        assert!(parse_bssplit("zz/10", 1024).is_err());
        assert!(parse_bssplit("4k/60:4k/50/1/1", 1024).unwrap_err().contains("110%"));
    }

    #[test]
    fn percentage_picks_about_its_share_and_indexes_the_job_priority_first() {
        let o = CmdprioOptions { percentage: [30, 0], ..Default::default() };
        let mut p = CmdPrio::new(&o, 0, true, true, FioRand::new(1234, false)).unwrap();
        assert_eq!(p.prios(0), &[0, 1 << 13]);
        assert!(p.prios(1).is_empty());
        let n = (0..10_000).filter(|_| p.pick(0, 4096).is_some()).count();
        assert!((2800..3200).contains(&n), "{n}");
        assert_eq!(p.pick(1, 4096), None);
        assert_eq!(CmdPrio::new(&CmdprioOptions::default(), 0, true, true, FioRand::new(1, false)).map(|_| ()), None);
    }

    #[test]
    fn bssplit_picks_per_block_size() {
        let [r, w] = parse_bssplit("4k/50/3/1:4k/50/2/0:8k/0", 1024).unwrap();
        let o = CmdprioOptions { bssplit: [r, w], bssplit_set: true, ..Default::default() };
        let mut p = CmdPrio::new(&o, ioprio_value(2, 0), true, false, FioRand::new(7, false)).unwrap();
        // The job's own priority is index 0; 2/0 is the same value, so it counts there.
        assert_eq!(p.prios(0), &[2 << 13, (3 << 13) | 1]);
        for _ in 0..100 {
            let k = p.pick(0, 4096).expect("every 4k I/O has a priority of its own");
            assert!(k.index == 0 || k.index == 1);
        }
        assert_eq!(p.pick(0, 8192), None);
        assert_eq!(p.pick(1, 4096), None, "a job that does not write");
    }
}
