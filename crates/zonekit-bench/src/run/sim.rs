//! The clock of a run, and its simulated-time driver.
//!
//! [`ClockPlan`] decides which clock times a run: simulated time when every job runs on zonekit's
//! devices with a timing model and none hands its I/Os to submission threads
//! (`io_submit_mode=offload`), or when `--clock=sim` asks for it; real time otherwise; either way each
//! device with a model gets one [`DeviceTiming`] shared by every job that uses it.
//!
//! [`run_groups_sim`] runs each group's clones as tasks of one discrete-event scheduler on one
//! thread: the same job code as the threads ([`super::job_thread::run_prepared`]), interleaved in simulated-time
//! order. A job's waits (for its device's completions, a zone another job holds, `startdelay`,
//! `wait_for`) let the others run, and when every job waits the clock jumps to the earliest
//! moment one of them waits for. Stonewall waves follow each other on the same clock, as they
//! do in real time. CPU usage is measured for the whole group and shared evenly between
//! its clones (they run on one thread).

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use zonekit_blk::{Clock, DeviceQueue, QueueConfig, Scheduler, SimClock, sim::Task};

use super::job_thread::{JobOutcome, NoteSink, Prepared};
use super::{BenchJob, ClockChoice, Clone_, Monitor, QueueOverrides, StartTrace, clone_life, job_up};
use crate::debug::Class;
use crate::dprint;
use crate::output::report::ClockReport;
use crate::run::tracing::runstate;
use crate::stats::CpuTimes;
use crate::sys::thread_rusage;
use crate::target::Devices;

/// Which clock times a run, and the request queue of each of zonekit's devices (timed by the
/// device's model, if it has one).
#[derive(Debug, Default)]
pub struct ClockPlan {
    /// Simulated time.
    pub sim: bool,
    /// Each of zonekit's devices the jobs use, by the name jobs give it: one queue shared by every
    /// job on the device, so its zone write plugs (and its model) see every writer.
    pub queues: HashMap<String, Arc<DeviceQueue>>,
}

impl ClockPlan {
    /// The plan for `jobs` on `devices` (opened already) under `choice`; an error line when
    /// `--clock=sim` is asked for a job that cannot run in simulated time.
    pub fn new(
        jobs: &[BenchJob],
        devices: &Devices,
        choice: ClockChoice,
        overrides: QueueOverrides,
    ) -> Result<ClockPlan, String> {
        let mut queues: HashMap<String, Arc<DeviceQueue>> = HashMap::new();
        let mut untimed: Option<String> = None;
        // A job whose I/Os are issued by submission threads of its own runs in real time.
        let mut offload: Option<&str> = None;
        for j in jobs {
            if j.opts.offload() {
                offload.get_or_insert(&j.name);
            }
            let names = super::sizing::file_paths(&j.opts, 0);
            for n in names {
                let name = n.display().to_string();
                if j.opts.ioengine == "null" {
                    untimed.get_or_insert_with(|| format!("job {}: ioengine=null does no I/O on the device", j.name));
                    continue;
                }
                if let Some(q) = queues.get(&name) {
                    if !q.is_timed() {
                        untimed.get_or_insert_with(|| format!("job {}: {name} has no timing model", j.name));
                    }
                    continue;
                }
                let Some(dev) = devices.opened(&name) else {
                    untimed.get_or_insert_with(|| format!("job {}: {name} has no timing model", j.name));
                    continue;
                };
                // Each device's queue (and model) is built once, the first time a job names it.
                let model = dev.timing_model();
                if model.is_none() {
                    untimed.get_or_insert_with(|| format!("job {}: {name} has no timing model", j.name));
                }
                let mut config = QueueConfig::for_device(&**dev);
                if let Some(on) = overrides.zoned_qd1_writes {
                    config.settings.zoned_qd1_writes = on;
                }
                if let Some(kb) = overrides.max_sectors_kb {
                    config.settings.max_sectors_kb = kb;
                }
                if let Some(ns) = overrides.host_io_ns {
                    config.host_io_ns = ns;
                }
                queues.insert(name, Arc::new(DeviceQueue::new(dev.clone(), config, model)));
            }
        }
        let sim = match choice {
            ClockChoice::Real => false,
            ClockChoice::Auto => untimed.is_none() && offload.is_none() && queues.values().any(|q| q.is_timed()),
            ClockChoice::Sim if offload.is_some() => {
                return Err(format!(
                    "--clock=sim: job {}: io_submit_mode=offload issues its I/Os from threads of its own, in real time (use --clock=real)",
                    offload.unwrap_or_default()
                ));
            }
            ClockChoice::Sim => match untimed {
                Some(why) => {
                    return Err(format!(
                        "--clock=sim: {why} (simulated time needs every job on a zonekit device with a timing model, such as @smr-hm-15tb)"
                    ));
                }
                None => true,
            },
        };
        Ok(ClockPlan { sim, queues })
    }

    /// Whether a model times some device.
    fn timed(&self) -> bool {
        self.queues.values().any(|q| q.is_timed())
    }

    /// The models' names, sorted and joined with `, `.
    fn models(&self) -> String {
        let mut names: Vec<&str> = self.queues.values().filter_map(|q| q.model_name()).collect();
        names.sort_unstable();
        names.dedup();
        names.join(", ")
    }

    /// The line the normal output prints after `Starting N threads`, when a model times the run.
    pub fn line(&self) -> Option<String> {
        if !self.timed() {
            return None;
        }
        Some(if self.sim {
            format!("zonekit: simulated clock, model {}", self.models())
        } else {
            format!("zonekit: real clock, model {} (completions paced in real time)", self.models())
        })
    }

    /// JSON's `"zonekit"` object, when a model times the run.
    pub fn report(&self) -> Option<ClockReport> {
        self.timed().then(|| ClockReport { clock: if self.sim { "sim" } else { "real" }, model: self.models() })
    }
}

/// CPU times divided evenly between `n` clones.
fn share(cpu: CpuTimes, n: u64) -> CpuTimes {
    let n = n.max(1);
    CpuTimes {
        usr_ms: cpu.usr_ms / n,
        sys_ms: cpu.sys_ms / n,
        ctx: cpu.ctx / n,
        majf: cpu.majf / n,
        minf: cpu.minf / n,
    }
}

/// Run the stonewall waves in order, each wave's clones as tasks of one event loop in simulated
/// time.
/// Returns the outcomes (by clone index), how many clones never finished, and the simulated
/// nanoseconds the run took.
pub(super) fn run_groups_sim(
    clones: &Arc<Vec<Clone_>>,
    prepared: &mut [Option<Prepared>],
    mut monitor: Monitor,
    terminate: &Arc<AtomicBool>,
    note: &NoteSink,
    err: &mut dyn Write,
    st: &mut StartTrace,
) -> (Vec<(usize, JobOutcome)>, u32, u64) {
    let clock = SimClock::new();
    let scheduler = Scheduler::new(clock.clone());
    let mut outcomes = Vec::new();
    let mut stuck = 0u32;
    let last_wave = clones.iter().map(|c| c.wave).max().unwrap_or(0);
    for w in 0..=last_wave {
        if terminate.load(Ordering::Relaxed) {
            break;
        }
        let mut index = Vec::new();
        let mut tasks: Vec<Task<'_, JobOutcome>> = Vec::new();
        let mut starts = Vec::new();
        for (i, c) in clones.iter().enumerate().filter(|(_, c)| c.wave == w) {
            let Some(p) = prepared[i].take() else { continue };
            // The jobs' starts as fio traces them, all on this thread.
            st.create(i, &p);
            if st.handshake() {
                let t = &st.trace;
                dprint!(t, Class::Mutex, "wait on startup_sem");
                let tid = job_up(t, st.jobno == Some(i as u32) && !c.run.opts.thread);
                dprint!(t, Class::Mutex, "done waiting on startup_sem");
                dprint!(t, Class::Mutex, "wait on td->sem");
                starts.push((tid, !c.run.opts.ramp_time.is_zero()));
            }
            index.push(i);
            tasks.push(Box::pin(clone_life(clock.clone(), clones.clone(), i, p, note.clone())));
        }
        for (tid, ramp) in starts {
            runstate(&st.trace, tid, "INITIALIZED", if ramp { "RAMP" } else { "RUNNING" });
            dprint!(st.trace, Class::Mutex, "done waiting on td->sem");
        }
        let ru0 = thread_rusage().unwrap_or_default();
        let n = tasks.len() as u64;
        let results = scheduler.run(tasks, |now| monitor.tick(now / 1_000_000, false));
        let cpu = share(CpuTimes::between(&ru0, &thread_rusage().unwrap_or_default()), n);
        for (i, r) in index.into_iter().zip(results) {
            match r {
                Some(mut o) => {
                    o.stats.cpu = cpu;
                    runstate(&st.trace, o.pid, "EXITED", "REAPED");
                    outcomes.push((i, o));
                }
                None => {
                    stuck += 1;
                    clones[i].progress.finished.store(true, Ordering::Relaxed);
                    let _ = writeln!(
                        err,
                        "zonekit: job {} waits for something that never happens in simulated time",
                        clones[i].name
                    );
                }
            }
        }
    }
    (outcomes, stuck, clock.now_ns())
}
