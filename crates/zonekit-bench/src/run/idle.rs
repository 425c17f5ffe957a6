//! fio's `--idle-prof` (`idletime.c`): how idle the CPUs were while the jobs ran.
//!
//! One thread per configured CPU, pinned to it, first times a unit of work (touching each byte of
//! a page once, as fio's: the fastest of 10 runs of 1000 units, at normal priority), then moves
//! to `SCHED_IDLE`, where it runs only when nothing else wants the CPU, and repeats the unit from
//! the moment the jobs start to the moment they have all ended. A CPU's idleness is the work its
//! thread got done there over what that time could hold: units × the mean unit time (over the
//! CPUs) / the time; the system's is the mean of the CPUs'. `calibrate` only times the unit.
//!
//! The figures are the scheduler's to make: a CPU busy with other processes (not the run's) is
//! not idle either, and a unit timed while the CPU was shared makes every later figure of it
//! larger (fio's as well; both can exceed 100 %).

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::output::report::IdleReport;

/// Runs of the unit timed, the fastest kept (fio's `CALIBRATE_RUNS`).
const CALIBRATE_RUNS: usize = 10;
/// Units per timed run (fio's `CALIBRATE_SCALE`).
const CALIBRATE_SCALE: usize = 1000;

/// `--idle-prof=`: what to measure and print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleProf {
    /// `calibrate`: time the unit of work, print it, run nothing.
    Calibrate,
    /// `system`: the system's idleness.
    System,
    /// `percpu`: the system's and each CPU's.
    Percpu,
}

impl IdleProf {
    /// fio's option value: `calibrate`, `system` or `percpu`; `None` for anything else.
    pub fn parse(s: &str) -> Option<IdleProf> {
        match s {
            "calibrate" => Some(IdleProf::Calibrate),
            "system" => Some(IdleProf::System),
            "percpu" => Some(IdleProf::Percpu),
            _ => None,
        }
    }
}

/// One unit of work: write each byte of `data` once, from `j` on around the page, checking
/// `stop` after each byte (as fio's unit checks its status). `Some(k)`: stopped after `k`
/// bytes.
#[inline(never)]
fn unit(data: &[AtomicU8], j: usize, stop: &AtomicBool) -> Option<usize> {
    let page = data.len();
    for k in 0..page {
        data[(k + j) % page].store(k as u8, Ordering::Relaxed);
        if stop.load(Ordering::Relaxed) {
            return Some(k);
        }
    }
    None
}

/// The fastest of [`CALIBRATE_RUNS`] runs of [`CALIBRATE_SCALE`] units, per unit, in µs.
fn calibrate_unit(data: &[AtomicU8], stop: &AtomicBool) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..CALIBRATE_RUNS {
        let t0 = Instant::now();
        for j in 0..CALIBRATE_SCALE {
            let _ = unit(data, j, stop);
        }
        let us = t0.elapsed().as_secs_f64() * 1e6;
        if us > 0.0 && us < best {
            best = us;
        }
    }
    if best.is_finite() { best / CALIBRATE_SCALE as f64 } else { 0.0 }
}

/// What a CPU's thread reports once set up: its unit time (µs), or why it could not run there
/// (fio's line).
type Setup = Result<f64, String>;

/// What a CPU's thread did while profiling: units done, over how long (µs).
#[derive(Debug, Clone, Copy, Default)]
struct Spun {
    loops: f64,
    us: f64,
}

/// The threads of a run's idleness profile (see the module documentation), from their
/// calibration to [`IdleProfiler::stop`].
pub struct IdleProfiler {
    mode: IdleProf,
    /// What the threads wait for after their calibration: 0 wait, 1 profile, 2 leave
    /// (calibration only, or a thread failed).
    go: Arc<(Mutex<u8>, Condvar)>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<Spun>>,
    /// Mean and standard deviation of the CPUs' unit times (0 when a thread failed).
    unit_mean: f64,
    unit_stddev: f64,
    /// fio's lines about threads that could not run (`fio_setaffinity failed`…), for stderr.
    pub problems: Vec<String>,
}

impl IdleProfiler {
    /// Start one thread per configured CPU and wait for their calibration (fio's
    /// `fio_idle_prof_init`). A thread that cannot be pinned or made idle aborts the profile:
    /// every figure is then 0, as in fio, and [`IdleProfiler::problems`] says why.
    pub fn calibrate(mode: IdleProf) -> IdleProfiler {
        let cpus = crate::sys::cpus_configured();
        let go = Arc::new((Mutex::new(0u8), Condvar::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel::<Setup>();
        let page = zonekit_blk::page_size().max(1);
        let mut threads = Vec::with_capacity(cpus);
        let mut problems = Vec::new();
        for cpu in 0..cpus {
            let (go, stop, tx) = (go.clone(), stop.clone(), tx.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("zonekit-idle-{cpu}"))
                .spawn(move || idle_thread(cpu, page, &go, &stop, &tx));
            match spawned {
                Ok(t) => threads.push(t),
                Err(e) => {
                    problems.push(format!("zonekit: pthread_create {e}"));
                    break;
                }
            }
        }
        drop(tx);
        let mut units = Vec::with_capacity(cpus);
        for _ in 0..threads.len() {
            match rx.recv() {
                Ok(Ok(t)) => units.push(t),
                Ok(Err(line)) => problems.push(line),
                Err(_) => problems.push("zonekit: an idle profiling thread ended early".into()),
            }
        }
        let aborted = !problems.is_empty();
        let (unit_mean, unit_stddev) = if aborted { (0.0, 0.0) } else { mean_stddev(&units) };
        let mut p = IdleProfiler { mode, go, stop, threads, unit_mean, unit_stddev, problems };
        if aborted || mode == IdleProf::Calibrate {
            p.release(2);
        }
        p
    }

    /// Let the threads start profiling (fio's `fio_idle_prof_start`, just before the jobs).
    pub fn start(&mut self) {
        self.release(1);
    }

    /// Let the threads go with `what` (1: profile, 2: leave), once.
    fn release(&mut self, what: u8) {
        let (lock, cv) = &*self.go;
        let mut g = lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if *g == 0 {
            *g = what;
            cv.notify_all();
        }
    }

    /// Stop the threads and work out the idleness (fio's `fio_idle_prof_stop`).
    pub fn stop(mut self) -> IdleReport {
        self.release(2);
        self.stop.store(true, Ordering::Relaxed);
        let spun: Vec<Spun> = self.threads.drain(..).map(|t| t.join().unwrap_or_default()).collect();
        let cpus: Vec<f64> = spun
            .iter()
            .map(|s| if self.unit_mean == 0.0 || s.us <= 0.0 { 0.0 } else { 100.0 * s.loops * self.unit_mean / s.us })
            .collect();
        let system = if cpus.is_empty() { 0.0 } else { cpus.iter().sum::<f64>() / cpus.len() as f64 };
        IdleReport {
            percpu: self.mode == IdleProf::Percpu,
            system,
            cpus,
            unit_mean: self.unit_mean,
            unit_stddev: self.unit_stddev,
        }
    }

    /// The calibration alone (`--idle-prof=calibrate`).
    pub fn calibration(self) -> (f64, f64, Vec<String>) {
        let (m, s) = (self.unit_mean, self.unit_stddev);
        let problems = self.problems.clone();
        let _ = self.stop();
        (m, s, problems)
    }
}

impl Drop for IdleProfiler {
    fn drop(&mut self) {
        self.release(2);
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Mean and sample standard deviation (n - 1, as fio's `calibration_stats`; 0 for one CPU,
/// where fio divides by zero).
fn mean_stddev(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    if v.len() < 2 {
        return (mean, 0.0);
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    (mean, var.sqrt())
}

/// One CPU's thread: pin, calibrate, go idle, report, then profile until told to stop.
fn idle_thread(
    cpu: usize,
    page: usize,
    go: &(Mutex<u8>, Condvar),
    stop: &AtomicBool,
    tx: &mpsc::Sender<Setup>,
) -> Spun {
    let data: Vec<AtomicU8> = (0..page).map(|_| AtomicU8::new(0)).collect();
    if let Err(e) = crate::sys::pin_thread_to_cpu(cpu) {
        let _ = tx.send(Err(format!("zonekit: fio_setaffinity failed (CPU {cpu}: {})", zonekit_core::io_text(&e))));
        return Spun::default();
    }
    let unit_us = calibrate_unit(&data, stop);
    // fio moves to SCHED_IDLE only now, so that the calibration runs at full speed.
    if let Err(e) = crate::sys::set_sched_idle() {
        let _ = tx.send(Err(format!("zonekit: fio_set_sched_idle failed ({})", zonekit_core::io_text(&e))));
        return Spun::default();
    }
    let _ = tx.send(Ok(unit_us));
    let (lock, cv) = go;
    let mut g = lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    while *g == 0 {
        g = cv.wait(g).unwrap_or_else(std::sync::PoisonError::into_inner);
    }
    let what = *g;
    drop(g);
    if what != 1 {
        return Spun::default();
    }
    let t0 = Instant::now();
    let mut j = 0usize;
    loop {
        if let Some(k) = unit(&data, j, stop) {
            let us = t0.elapsed().as_secs_f64() * 1e6;
            return Spun { loops: j as f64 + k as f64 / page as f64, us };
        }
        j += 1;
    }
}

/// `--idle-prof=calibrate`'s output (fio prints it whatever the output format).
pub fn calibration_text(unit_mean: f64, unit_stddev: f64) -> String {
    format!("CPU idleness:\n  unit work: mean={unit_mean:.2}us, stddev={unit_stddev:.2}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_fios() {
        assert_eq!(IdleProf::parse("percpu"), Some(IdleProf::Percpu));
        assert_eq!(IdleProf::parse("system"), Some(IdleProf::System));
        assert_eq!(IdleProf::parse("calibrate"), Some(IdleProf::Calibrate));
        assert_eq!(IdleProf::parse("nope"), None);
        assert_eq!(IdleProf::parse(""), None);
    }

    #[test]
    fn a_unit_touches_each_byte_once_and_stops_when_told() {
        let data: Vec<AtomicU8> = (0..64).map(|_| AtomicU8::new(0xff)).collect();
        let stop = AtomicBool::new(false);
        assert_eq!(unit(&data, 10, &stop), None);
        // Byte (k + j) % page holds k.
        assert!(data.iter().enumerate().all(|(i, b)| b.load(Ordering::Relaxed) == ((i + 64 - 10) % 64) as u8));
        stop.store(true, Ordering::Relaxed);
        assert_eq!(unit(&data, 0, &stop), Some(0));
    }

    #[test]
    fn mean_and_sample_deviation() {
        let (m, s) = mean_stddev(&[10.0, 12.0, 14.0]);
        assert!((m - 12.0).abs() < 1e-12 && (s - 2.0).abs() < 1e-12);
        assert_eq!(mean_stddev(&[3.5]), (3.5, 0.0));
        assert_eq!(calibration_text(15.284, 0.1649), "CPU idleness:\n  unit work: mean=15.28us, stddev=0.16\n");
    }

    /// A profile over 300 ms in which this thread, pinned to CPU 0, keeps that CPU busy: CPU 0's
    /// idle thread (SCHED_IDLE) gets next to nothing of it, whatever else the machine runs; the
    /// figures are per CPU, the system's is their mean, and the calibration is positive.
    #[test]
    fn a_busy_cpu_is_not_idle() {
        let mut p = IdleProfiler::calibrate(IdleProf::Percpu);
        if !p.problems.is_empty() || crate::sys::pin_thread_to_cpu(0).is_err() {
            // No CPU placement here (a restricted cpuset): every figure is 0, as fio's.
            let r = p.stop();
            assert!(r.cpus.iter().all(|&c| c == 0.0) && r.system == 0.0);
            return;
        }
        p.start();
        let t0 = Instant::now();
        while t0.elapsed().as_millis() < 300 {
            std::hint::spin_loop();
        }
        let r = p.stop();
        assert!(r.percpu);
        assert_eq!(r.cpus.len(), crate::sys::cpus_configured());
        assert!(r.unit_mean > 0.0 && r.unit_stddev >= 0.0, "{r:?}");
        let mean = r.cpus.iter().sum::<f64>() / r.cpus.len() as f64;
        assert!((r.system - mean).abs() < 1e-9);
        assert!(r.cpus.iter().all(|c| c.is_finite() && *c >= 0.0), "{r:?}");
        assert!(r.cpus[0] < 20.0, "CPU 0 was busy all along: {r:?}");
    }
}
