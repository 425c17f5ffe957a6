//! fio's live status line (`eta.c`: `display_thread_status`), e.g.
//! `Jobs: 1 (f=1): [W(1)][45.0%][w=239MiB/s][w=955 IOPS][eta 00m:03s]`, ended by `\r` so the
//! next update overwrites it. The runner fills an [`EtaStatus`] and keeps one [`EtaLine`].

use std::fmt::Write as _;

use super::num::{N2sUnit, cfmt, num2str};

/// What a job is doing, for its letter in the run string (HOWTO "Interpreting the output").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// `P`: not yet created.
    NotCreated,
    /// `C`: created.
    Created,
    /// `I`: initialised or setting up, waiting to start.
    Initialized,
    /// `/`: in `ramp_time`.
    Ramp,
    /// Running: `R`/`r` (sequential/random reads), `W`/`w` (writes), `M`/`m` (mixed),
    /// `D`/`d` (trims).
    Running {
        /// The job reads.
        read: bool,
        /// The job writes.
        write: bool,
        /// The offsets are random.
        random: bool,
        /// `rwmixread` (100 for pure reads; used when the job both reads and writes).
        rwmix_read: u32,
    },
    /// `p`: pre-reading files.
    PreReading,
    /// `V`: verifying.
    Verifying,
    /// `F`: running `end_fsync` / fsyncing.
    Fsyncing,
    /// `f`: finishing.
    Finishing,
    /// `E`: exited, not yet reaped.
    Exited,
    /// Reaped: `X` after an error, `K` when killed by a signal, `_` otherwise.
    Reaped {
        /// The job failed.
        error: bool,
        /// The job was stopped by a signal.
        signal: bool,
    },
}

impl JobState {
    /// The letter fio shows for the state (`check_str_update`).
    pub fn letter(self) -> char {
        match self {
            JobState::NotCreated => 'P',
            JobState::Created => 'C',
            JobState::Initialized => 'I',
            JobState::Ramp => '/',
            JobState::Running { read, write, random, rwmix_read } => {
                let (seq, rnd) = if read && write {
                    match rwmix_read {
                        100 => ('R', 'r'),
                        0 => ('W', 'w'),
                        _ => ('M', 'm'),
                    }
                } else if read {
                    ('R', 'r')
                } else if write {
                    ('W', 'w')
                } else {
                    ('D', 'd')
                };
                if random { rnd } else { seq }
            }
            JobState::PreReading => 'p',
            JobState::Verifying => 'V',
            JobState::Fsyncing => 'F',
            JobState::Finishing => 'f',
            JobState::Exited => 'E',
            JobState::Reaped { error: true, .. } => 'X',
            JobState::Reaped { signal: true, .. } => 'K',
            JobState::Reaped { .. } => '_',
        }
    }
}

/// fio's condensed run string: runs of the same letter as `X(n)`, comma separated (`W(2),_(1)`).
pub fn condensed_run_str(letters: &str) -> String {
    let mut out = String::new();
    let b: Vec<char> = letters.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let mut n = 1;
        while i + n < b.len() && b[i + n] == c {
            n += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        let _ = write!(out, "{c}({n})");
        i += n;
    }
    out
}

/// fio's `eta_to_str`: `03s` → `00m:03s`, with hours and days when needed (`01h:02m:03s`,
/// `01d:00h:00m:05s`); `None` prints `--`.
pub fn eta_to_str(eta_sec: Option<u64>) -> String {
    let Some(mut e) = eta_sec else { return "--".into() };
    let s = e % 60;
    e /= 60;
    let m = e % 60;
    e /= 60;
    let h = e % 24;
    let d = e / 24;
    let mut out = String::new();
    if d != 0 {
        let _ = write!(out, "{d:02}d:");
    }
    if h != 0 || d != 0 {
        let _ = write!(out, "{h:02}h:");
    }
    let _ = write!(out, "{m:02}m:{s:02}s");
    out
}

/// The numbers behind one status line (fio's `struct jobs_eta`).
#[derive(Debug, Clone, PartialEq)]
pub struct EtaStatus {
    /// Jobs running (`Jobs: N`).
    pub nr_running: u32,
    /// Open files (`f=N`).
    pub files_open: u32,
    /// Sum of the jobs' `ratemin`, bytes/s (shown as `, min-max` with `rate`).
    pub m_rate: u64,
    /// Sum of the jobs' `rate`, bytes/s.
    pub t_rate: u64,
    /// Sum of `rate_iops_min`.
    pub m_iops: u64,
    /// Sum of `rate_iops`.
    pub t_iops: u64,
    /// One state letter per job, in job order (see [`JobState::letter`]).
    pub run_str: String,
    /// Seconds left; `None` when unknown (fio's `INT_MAX`: no bracket part is printed).
    pub eta_sec: Option<u64>,
    /// Seconds since the start (rounded up).
    pub elapsed_sec: u64,
    /// Jobs in ramp time.
    pub nr_ramp: u32,
    /// Jobs still setting up.
    pub nr_setting_up: u32,
    /// Current bandwidth per direction, KiB/s.
    pub rate_kib: [u64; 3],
    /// Current IOPS per direction.
    pub iops: [u64; 3],
    /// `kb_base` is a power of two (IEC units).
    pub is_pow2: bool,
    /// `unit_base=1`: bits.
    pub unit_bits: bool,
    /// `significant_figures`.
    pub sig_figs: u32,
}

impl Default for EtaStatus {
    fn default() -> Self {
        EtaStatus {
            nr_running: 0,
            files_open: 0,
            m_rate: 0,
            t_rate: 0,
            m_iops: 0,
            t_iops: 0,
            run_str: String::new(),
            eta_sec: None,
            elapsed_sec: 0,
            nr_ramp: 0,
            nr_setting_up: 0,
            rate_kib: [0; 3],
            iops: [0; 3],
            is_pow2: true,
            unit_bits: false,
            sig_figs: 4,
        }
    }
}

/// The state fio keeps between status lines: the last line's length (a shorter line is padded
/// with spaces to blank the rest), whether a percentage was shown already, and `eta-newline`.
#[derive(Debug, Clone, Default)]
pub struct EtaLine {
    linelen_last: usize,
    eta_good: bool,
    newline_pending: bool,
    last_newline_ms: Option<u64>,
    /// `eta-newline`: start a new line when this many ms passed since the last one.
    pub eta_newline_ms: Option<u64>,
}

impl EtaLine {
    /// A fresh line state.
    pub fn new(eta_newline_ms: Option<u64>) -> EtaLine {
        EtaLine { eta_newline_ms, ..EtaLine::default() }
    }

    /// The text to print for `st` at `now_ms` (including the leading `\n` of `eta-newline` and the
    /// trailing `\r`).
    pub fn format(&mut self, st: &EtaStatus, now_ms: u64) -> String {
        let mut p = String::new();
        if self.newline_pending {
            self.newline_pending = false;
            self.linelen_last = 0;
            p.push('\n');
        }
        let start = p.len();
        let mut perc = 0.0;
        let eta_str = eta_to_str(st.eta_sec);
        if let Some(eta) = st.eta_sec
            && st.elapsed_sec != 0
        {
            perc = st.elapsed_sec as f64 / (st.elapsed_sec + eta) as f64;
        }
        let _ = write!(p, "Jobs: {} (f={})", st.nr_running, st.files_open);
        if st.m_rate != 0 || st.t_rate != 0 {
            let unit = N2sUnit::BytePerSec;
            let _ = write!(
                p,
                ", {}-{}",
                num2str(st.m_rate, st.sig_figs as usize, 1, st.is_pow2, unit),
                num2str(st.t_rate, st.sig_figs as usize, 1, st.is_pow2, unit)
            );
        } else if st.m_iops != 0 || st.t_iops != 0 {
            let _ = write!(p, ", {}-{} IOPS", st.m_iops, st.t_iops);
        }
        if st.eta_sec.is_some() && st.nr_running != 0 {
            let perc_str = if (st.eta_sec == Some(0) && !self.eta_good) || st.nr_ramp == st.nr_running {
                "-.-%".to_string()
            } else {
                let mut mult = 100.0;
                if st.nr_setting_up != 0 && st.nr_running != 0 {
                    mult *= 1.0 - f64::from(st.nr_setting_up) / f64::from(st.nr_running);
                }
                self.eta_good = true;
                format!("{}%", cfmt(perc * mult, 3, 1))
            };
            let _ = write!(p, ": [{}][{perc_str}]", condensed_run_str(&st.run_str));
            let unit = if st.unit_bits { N2sUnit::BitPerSec } else { N2sUnit::BytePerSec };
            let has: Vec<usize> = (0..3).filter(|&d| st.rate_kib[d] != 0 || st.iops[d] != 0).collect();
            if !has.is_empty() {
                let c = ['r', 'w', 't'];
                let rates: Vec<String> = has
                    .iter()
                    .map(|&d| format!("{}={}", c[d], num2str(st.rate_kib[d], 4, 1024, st.is_pow2, unit)))
                    .collect();
                let iops: Vec<String> = has
                    .iter()
                    .map(|&d| format!("{}={}", c[d], num2str(st.iops[d], 4, 1, false, N2sUnit::None)))
                    .collect();
                let _ = write!(p, "[{}][{} IOPS]", rates.join(","), iops.join(","));
            }
            let _ = write!(p, "[eta {eta_str}]");
            let linelen = p.len() - start;
            if linelen < self.linelen_last {
                p.push_str(&" ".repeat(self.linelen_last - linelen));
            }
            self.linelen_last = linelen;
        }
        p.push('\r');
        match (self.last_newline_ms, self.eta_newline_ms) {
            (None, _) => self.last_newline_ms = Some(now_ms),
            (Some(last), Some(every)) if now_ms.saturating_sub(last) > every => {
                self.last_newline_ms = Some(now_ms);
                self.newline_pending = true;
            }
            _ => {}
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_example() {
        let mut l = EtaLine::new(None);
        let st = EtaStatus {
            nr_running: 1,
            files_open: 1,
            run_str: "W".into(),
            eta_sec: Some(3),
            elapsed_sec: 3,
            rate_kib: [0, 239 * 1024, 0],
            iops: [0, 955, 0],
            ..EtaStatus::default()
        };
        // 3 / (3 + 3) = 50%.
        assert_eq!(l.format(&st, 0), "Jobs: 1 (f=1): [W(1)][50.0%][w=239MiB/s][w=955 IOPS][eta 00m:03s]\r");
    }

    #[test]
    fn recorded_rate_line() {
        // fio 3.33, rate_iops=3000,1000 randrw, first update (eta 0, no percentage yet).
        let mut l = EtaLine::new(None);
        let st = EtaStatus {
            nr_running: 1,
            files_open: 1,
            t_iops: 4000,
            run_str: "m".into(),
            eta_sec: Some(0),
            elapsed_sec: 1,
            rate_kib: [11980, 4004, 0],
            iops: [3003, 1001, 0],
            ..EtaStatus::default()
        };
        assert_eq!(
            l.format(&st, 0),
            "Jobs: 1 (f=1), 0-4000 IOPS: [m(1)][-.-%][r=11.7MiB/s,w=4004KiB/s][r=3003,w=1001 IOPS][eta 00m:00s]\r"
        );
    }

    #[test]
    fn pieces() {
        assert_eq!(condensed_run_str("WW_r"), "W(2),_(1),r(1)");
        assert_eq!(eta_to_str(Some(3725)), "01h:02m:05s");
        assert_eq!(eta_to_str(Some(86405)), "01d:00h:00m:05s");
        assert_eq!(eta_to_str(None), "--");
        let run = JobState::Running { read: true, write: true, random: true, rwmix_read: 70 };
        assert_eq!(run.letter(), 'm');
        assert_eq!(JobState::Reaped { error: false, signal: false }.letter(), '_');
    }

    #[test]
    fn shorter_line_is_padded() {
        let mut l = EtaLine::new(None);
        let mut st = EtaStatus {
            nr_running: 1,
            files_open: 1,
            run_str: "W".into(),
            eta_sec: Some(30),
            elapsed_sec: 3,
            rate_kib: [0, 239 * 1024, 0],
            iops: [0, 12345, 0],
            ..EtaStatus::default()
        };
        let a = l.format(&st, 0);
        st.iops[1] = 5;
        let b = l.format(&st, 1000);
        assert_eq!(a.len(), b.len());
    }
}
