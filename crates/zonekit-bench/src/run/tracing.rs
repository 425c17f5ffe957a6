//! fio 3.33's trace lines of a run's start and end, at the points where fio prints them: the
//! clock's calibration (`time`), the helper thread and the start-up semaphores
//! (`helperthread`, `mutex`), each job's states (`process`), the disks under the files
//! (`diskutil`), and what fio's exit prints (`io`'s engines unregistered, `profile`'s profiles).
//!
//! zonekit's jobs are threads of one process: the thread column holds the thread's id, as fio's
//! does for `thread` jobs (a forked job's process id otherwise).

use crate::debug::{Class, DebugMask, Tracer};
use crate::dprint;
use crate::run::Monitor;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

/// fio's `td_set_runstate` line: `pid=N: runstate FROM -> TO`.
pub(crate) fn runstate(t: &Tracer, pid: u32, from: &str, to: &str) {
    dprint!(t, Class::Process, "pid={pid}: runstate {from} -> {to}");
}

/// The engines fio 3.33 (Debian's build) unregisters at exit, in that order, with its two
/// profiles' lines where they fall among them.
const AT_EXIT: &[(Class, &str)] = &[
    (Class::Io, "ioengine libpmem unregistered"),
    (Class::Io, "ioengine dev-dax unregistered"),
    (Class::Io, "ioengine pmemblk unregistered"),
    (Class::Io, "ioengine rbd unregistered"),
    (Class::Io, "ioengine rados unregistered"),
    (Class::Io, "ioengine rdma unregistered"),
    (Class::Io, "ioengine libaio unregistered"),
    (Class::Io, "ioengine nbd unregistered"),
    (Class::Io, "ioengine io_uring unregistered"),
    (Class::Io, "ioengine io_uring_cmd unregistered"),
    (Class::Io, "ioengine sg unregistered"),
    (Class::Io, "ioengine mtd unregistered"),
    (Class::Io, "ioengine gfapi_async unregistered"),
    (Class::Io, "ioengine gfapi unregistered"),
    (Class::Io, "ioengine splice unregistered"),
    (Class::Io, "ioengine e4defrag unregistered"),
    (Class::Io, "ioengine falloc unregistered"),
    (Class::Io, "ioengine posixaio unregistered"),
    (Class::Profile, "unregister profile 'act'"),
    (Class::Profile, "unregister profile 'tiobench'"),
    (Class::Io, "ioengine exec unregistered"),
    (Class::Io, "ioengine filecreate unregistered"),
    (Class::Io, "ioengine filestat unregistered"),
    (Class::Io, "ioengine filedelete unregistered"),
    (Class::Io, "ioengine ftruncate unregistered"),
    (Class::Io, "ioengine net unregistered"),
    (Class::Io, "ioengine netsplice unregistered"),
    (Class::Io, "ioengine null unregistered"),
    (Class::Io, "ioengine sync unregistered"),
    (Class::Io, "ioengine psync unregistered"),
    (Class::Io, "ioengine vsync unregistered"),
    (Class::Io, "ioengine pvsync unregistered"),
    (Class::Io, "ioengine pvsync2 unregistered"),
    (Class::Io, "ioengine mmap unregistered"),
    (Class::Io, "ioengine cpuio unregistered"),
];

/// What fio prints as it exits (after the report, or after a parse-only run): its engines and
/// profiles unregistered, as lines of `pid`.
pub fn exit_lines(mask: DebugMask, pid: u32) -> String {
    AT_EXIT
        .iter()
        .filter(|(c, _)| mask.has(c.name()))
        .map(|(c, m)| format!("{}\n", crate::debug::line(c.name(), pid, m)))
        .collect()
}

/// fio's clock calibration as its `time` class traces it: the CPU's cycles per millisecond
/// measured 50 times, their statistics and the scale factors fio derives from them, then the
/// clock source (`gettime: clocksource=N`). The figures are this machine's, measured now (about
/// 65 ms a calibration); without a time-stamp counter, only the clock source line.
///
/// Returns what fio prints while it parses the jobs (before their header lines) and what it
/// prints as the run starts. Without `clocksource` (`set` is `None`), fio calibrates twice as
/// the run starts and names the counter when it is reliable (else `clock_gettime`); with it,
/// once, as the option is parsed, naming the source asked for (and never again).
pub fn calibration_lines(mask: DebugMask, pid: u32, set: Option<zonekit_blk::clock::ClockSource>) -> (String, String) {
    if !mask.has("time") {
        return (String::new(), String::new());
    }
    let mut out = String::new();
    let mut put = |m: String| out.push_str(&format!("{}\n", crate::debug::line("time", pid, &m)));
    let rounds = if set.is_some() { 1 } else { 2 };
    if zonekit_blk::clock::cpu_cycles().is_some() {
        for _ in 0..rounds {
            calibrate(&mut put);
        }
    }
    // fio's clock sources: 1 gettimeofday, 2 clock_gettime, 3 the CPU's counter.
    let source = match set {
        Some(s) => s.fio_number(),
        None if zonekit_blk::clock::tsc_reliable() => 3,
        None => 2,
    };
    put(format!("gettime: clocksource={source}"));
    if set.is_some() { (out, String::new()) } else { (String::new(), out) }
}

/// fio's note when `clocksource=cpu` is asked for on a machine whose time-stamp counter is not
/// reliable (printed as the option is parsed); zonekit then reads `CLOCK_MONOTONIC`.
pub fn clock_note(set: Option<zonekit_blk::clock::ClockSource>) -> Option<&'static str> {
    (set == Some(zonekit_blk::clock::ClockSource::Cpu) && !zonekit_blk::clock::tsc_reliable())
        .then_some("zonekit: clocksource=cpu may not be reliable")
}

/// The run's clock source: the last of `values` (each job's `clocksource`, in job order) that
/// is set, as fio's global clock source is the last one parsed; `None` when no job sets it.
pub fn run_clock_source<'a>(
    values: impl DoubleEndedIterator<Item = Option<&'a str>>,
) -> Option<zonekit_blk::clock::ClockSource> {
    values.rev().flatten().find_map(zonekit_blk::clock::ClockSource::from_fio)
}

/// The CPU's cycles over at least 1.28 ms of `CLOCK_MONOTONIC`, per millisecond.
fn cycles_per_msec() -> u64 {
    let cycles = || zonekit_blk::clock::cpu_cycles().unwrap_or(0);
    let (t0, c0) = (std::time::Instant::now(), cycles());
    loop {
        let (elapsed, c1) = (t0.elapsed().as_nanos() as u64, cycles());
        if elapsed >= 1_280_000 {
            return c1.wrapping_sub(c0).wrapping_mul(1_000_000) / elapsed;
        }
    }
}

fn calibrate(put: &mut impl FnMut(String)) {
    const N: usize = 50;
    const MAX_CLOCK_SEC: u64 = 60 * 60;
    let mut cycles = [0u64; N];
    cycles[0] = cycles_per_msec();
    let (mut mean, mut s) = (0.0f64, 0.0f64);
    for (i, c) in cycles.iter_mut().enumerate() {
        *c = cycles_per_msec();
        let delta = *c as f64 - mean;
        if delta != 0.0 {
            mean += delta / (i as f64 + 1.0);
            s += delta * (*c as f64 - mean);
        }
    }
    let mut sd = (s / (N as f64 - 1.0)).sqrt();
    let (mut minc, mut maxc, mut samples, mut avg) = (u64::MAX, 0u64, 0u64, 0u64);
    for &c in &cycles {
        minc = minc.min(c);
        maxc = maxc.max(c);
        if (c as f64).max(mean) - (c as f64).min(mean) > sd {
            continue;
        }
        samples += 1;
        avg += c;
    }
    sd /= N as f64;
    for (i, c) in cycles.iter().enumerate() {
        put(format!("cycles[{i}]={c}"));
    }
    let per_msec = avg.checked_div(samples).unwrap_or(0).max(1);
    put(format!("min={minc}, max={maxc}, mean={mean:.6}, S={sd:.6}, N={N}"));
    put(format!("trimmed mean={per_msec}, N={samples}"));
    let max_ticks = MAX_CLOCK_SEC * per_msec * 1000;
    let max_mult = u64::MAX / max_ticks;
    put(format!("max_ticks={max_ticks}, __builtin_clzll={}, max_mult={max_mult}", max_ticks.leading_zeros()));
    let mut tmp = max_mult.wrapping_mul(per_msec) / 1_000_000;
    let mut sft = 0u32;
    while tmp > 1 {
        tmp >>= 1;
        sft += 1;
        put(format!("tmp={tmp}, sft={sft}"));
    }
    let mult = (1u64 << sft).wrapping_mul(1_000_000) / per_msec;
    put(format!("clock_shift={sft}, clock_mult={mult}"));
    let mut shift = 0u32;
    let mut tmp = MAX_CLOCK_SEC * 1000 * per_msec;
    put(format!("tmp={tmp}, max_cycles_shift={shift}"));
    while tmp > 1 {
        tmp >>= 1;
        shift += 1;
        put(format!("tmp={tmp}, max_cycles_shift={shift}"));
    }
    let nsecs = (1u64 << shift).wrapping_mul(mult) >> sft;
    let mask = (1u64 << shift) - 1;
    put(format!(
        "max_cycles_shift={shift}, 2^max_cycles_shift={}, nsecs_for_max_cycles={nsecs}, max_cycles_mask={mask:016x}",
        1u64 << shift
    ));
    put(format!("cycles_start={}", zonekit_blk::clock::cpu_cycles().unwrap_or(0)));
}

enum HelperMsg {
    /// Run the monitor until `done` (real time).
    Monitor(Box<Monitor>, Arc<AtomicBool>),
    /// The run is over: fio's helper writes every job's logs out (each job's state bumped to
    /// FINISHING and back), with these job ids.
    Exit(Vec<u32>),
}

/// fio's helper thread: started before the jobs (its start traced as fio's), it runs the
/// monitor (the ETA line, status reports, steady state) in real time, and traces what fio's
/// helper prints at the run's end.
pub(crate) struct Helper {
    tx: mpsc::Sender<HelperMsg>,
    /// Each run of the monitor ends with a message here.
    monitor_done: mpsc::Receiver<()>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Helper {
    /// Starts the thread; the calling thread waits until it runs, as fio's waits on its
    /// `startup_sem`.
    pub(crate) fn start(t: &Tracer) -> Helper {
        let (tx, rx) = mpsc::channel::<HelperMsg>();
        let (up_tx, up_rx) = mpsc::channel::<()>();
        let (done_tx, monitor_done) = mpsc::channel::<()>();
        dprint!(t, Class::Mutex, "wait on startup_sem");
        let tr = t.clone();
        let body = move || {
            dprint!(tr, Class::Helperthread, "clk_tck = {}", crate::sys::clk_tck());
            let _ = up_tx.send(());
            while let Ok(msg) = rx.recv() {
                match msg {
                    HelperMsg::Monitor(m, done) => {
                        crate::run::monitor_thread(*m, done);
                        let _ = done_tx.send(());
                    }
                    HelperMsg::Exit(pids) => {
                        for pid in pids {
                            runstate(&tr, pid, "REAPED", "FINISHING");
                            runstate(&tr, pid, "FINISHING", "REAPED");
                        }
                        return;
                    }
                }
            }
        };
        let handle = std::thread::Builder::new().name("zonekit-helper".into()).spawn(body).ok();
        if handle.is_some() {
            let _ = up_rx.recv();
        }
        dprint!(t, Class::Mutex, "done waiting on startup_sem");
        Helper { tx, monitor_done, handle }
    }

    /// Runs `m` on the helper thread until `done` is set.
    pub(crate) fn run_monitor(&self, m: Monitor, done: Arc<AtomicBool>) {
        let _ = self.tx.send(HelperMsg::Monitor(Box::new(m), done));
    }

    /// Waits until the monitor [`Helper::run_monitor`] started has seen `done` and returned.
    pub(crate) fn wait_monitor(&self) {
        if self.handle.is_some() {
            let _ = self.monitor_done.recv();
        }
    }

    /// Ends the thread (it traces the jobs `pids` as fio's helper does at its exit) and waits
    /// for it.
    pub(crate) fn exit(mut self, pids: Vec<u32>) {
        let _ = self.tx.send(HelperMsg::Exit(pids));
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// fio's helper thread reads the disks' statistics this often (`DISK_UTIL_MSEC`).
pub(crate) const DISK_UTIL_MSEC: u64 = 250;

/// The disks each clone's files are on (clone index, the disk's directory).
pub(crate) type DiskUsers = Arc<std::sync::Mutex<Vec<(usize, std::path::PathBuf)>>>;

/// The disks fio's `init_disk_util` has found so far in a run, for its `diskutil` lines.
#[derive(Debug, Default)]
pub(crate) struct DiskTrace {
    /// Each disk added: its numbers and name.
    known: Vec<(u64, u64, String)>,
    /// The numbers looked up last (fio's cache of one lookup).
    last: Option<(u64, u64)>,
    /// Which clone uses which disk.
    pub(crate) users: DiskUsers,
}

impl DiskTrace {
    /// fio's `init_disk_util` for clone `clone`'s `files`.
    pub(crate) fn init(&mut self, t: &Tracer, clone: usize, files: &[&Path]) {
        for f in files {
            let Some((maj, min)) = crate::output::disk::device_numbers(f) else { continue };
            dprint!(t, Class::Diskutil, "{} belongs to maj/min {maj}/{min}", f.display());
            if let Some((_, _, name)) = self.known.iter().find(|(a, b, _)| (*a, *b) == (maj, min)) {
                self.used(clone, name.clone());
                continue;
            }
            if self.last == Some((maj, min)) {
                continue;
            }
            self.last = Some((maj, min));
            let root = Path::new("/sys/block");
            let Some(dir) = crate::output::disk::find_block_dir(root, maj, min, true) else { continue };
            let dir =
                if dir.join("../queue").exists() { dir.parent().map_or(dir.clone(), Path::to_path_buf) } else { dir };
            self.add(t, maj, min, &dir);
            if let Some(n) = dir.file_name() {
                self.used(clone, n.to_string_lossy().into_owned());
            }
        }
    }

    fn used(&self, clone: usize, name: String) {
        if let Ok(mut u) = self.users.lock() {
            u.push((clone, Path::new("/sys/block").join(name)));
        }
    }

    /// fio's `disk_util_add` (and the slaves of a device-mapper or md device).
    fn add(&mut self, t: &Tracer, maj: u64, min: u64, dir: &Path) {
        dprint!(t, Class::Diskutil, "add maj/min {maj}/{min}: {}", dir.display());
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for (_, _, n) in &self.known {
            dprint!(t, Class::Diskutil, "found {n} in list");
            if *n == name {
                return;
            }
        }
        dprint!(t, Class::Diskutil, "add {name} to list");
        stat_lines(t, dir);
        self.known.push((maj, min, name));
        if let Ok(entries) = std::fs::read_dir(dir.join("slaves")) {
            let mut slaves: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            slaves.sort();
            for s in slaves {
                let target = std::fs::canonicalize(&s).unwrap_or(s);
                let numbers = std::fs::read_to_string(target.join("dev")).ok().and_then(|d| {
                    let (a, b) = d.trim().split_once(':')?;
                    Some((a.parse().ok()?, b.parse().ok()?))
                });
                if let Some((a, b)) = numbers
                    && !self.known.iter().any(|(x, y, _)| (*x, *y) == (a, b))
                {
                    self.add(t, a, b, &target);
                }
            }
        }
    }
}

/// One round of fio's helper thread at `now_ms` into the run: the disks under running clones'
/// files read (`update io ticks`), then how long it will sleep (its bandwidth and IOPS samples
/// are due every 500 ms, its disk readings every 250 ms).
pub(crate) fn helper_tick(t: &Tracer, users: &DiskUsers, running: &[bool], now_ms: u64) {
    dprint!(t, Class::Diskutil, "update io ticks");
    if t.on(Class::Diskutil) {
        let mut dirs: Vec<std::path::PathBuf> = Vec::new();
        if let Ok(u) = users.lock() {
            for (c, d) in u.iter() {
                if running.get(*c).copied().unwrap_or(false) && !dirs.contains(d) {
                    dirs.push(d.clone());
                }
            }
        }
        for d in dirs {
            stat_lines(t, &d);
        }
    }
    let next_log = 500 - now_ms % 500;
    dprint!(t, Class::Helperthread, "next_log: {next_log}, msec_to_next_event: {}", next_log.min(DISK_UTIL_MSEC));
}

/// fio's `get_io_ticks` lines: the `stat` file opened, its first line as read, and whether
/// `sscanf` read exactly one field of it (fio prints `ret == 1`, so 0 for a good line).
pub(crate) fn stat_lines(t: &Tracer, dir: &Path) {
    let path = dir.join("stat");
    dprint!(t, Class::Diskutil, "open stat file: {}", path.display());
    let Ok(text) = std::fs::read_to_string(&path) else { return };
    let Some(first) = text.split_inclusive('\n').next() else { return };
    if t.on(Class::Diskutil) {
        // The line keeps its own newline, as fio prints it.
        let msg = format!("{}: {}", path.display(), first.trim_end_matches('\n'));
        t.print(Class::Diskutil, &msg);
    }
    let fields = first.split_whitespace().take(11).take_while(|f| f.parse::<u64>().is_ok()).count();
    dprint!(t, Class::Diskutil, "{}: stat read ok? {}", path.display(), u8::from(fields == 1));
}
