//! fio's `exec` engine: runs a program beside the job and moves no data (fio's `FIO_NOIO`).
//!
//! As fio 3.33 has it: the first I/O starts the program (its standard output and error in
//! `<job>.stdout` and `<job>.stderr`, created 0644, unless `std_redirect` is off); every later
//! I/O sleeps `poll_us` (fio's think time of 50 ms), then, once the job has run longer than its
//! runtime, sends the program `SIGTERM` and sleeps `grace_time` seconds. The job loop ends the
//! job at its runtime; the engine, dropped, sends `SIGKILL` to a program still running (and
//! reaps it). The program's end does not end the job, as in fio.

use std::io;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Common, Completion, Engine, EngineConfig, EngineError, Io, Queued};
use crate::sys::buf::SlotBuffers;

/// Settings of the `exec` engine.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExecOptions {
    /// The program (looked up in `PATH` when it has no `/`).
    pub program: String,
    /// Its arguments, `%r` and `%n` already replaced; split at spaces as fio splits them.
    pub arguments: Option<String>,
    /// Where its standard output and error go (`<job>.stdout`, `<job>.stderr`); `None`: the
    /// job's own (`std_redirect=0`).
    pub redirect: Option<(PathBuf, PathBuf)>,
    /// Seconds between `SIGTERM` and the job's end (`grace_time`).
    pub grace_time_s: u64,
    /// The job's runtime in microseconds (0: none, so the program is stopped at the second
    /// I/O, as in fio).
    pub timeout_us: u64,
    /// The sleep of each I/O after the first (µs).
    pub poll_us: u64,
}

impl ExecOptions {
    /// The program's command line, split at spaces as fio splits it (empty words dropped).
    pub fn argv(&self) -> Vec<String> {
        let line = match &self.arguments {
            Some(a) => format!("{} {a}", self.program),
            None => self.program.clone(),
        };
        line.split(' ').filter(|w| !w.is_empty()).map(str::to_string).collect()
    }
}

pub(crate) struct ExecEngine {
    opts: ExecOptions,
    bufs: SlotBuffers,
    child: Option<Child>,
    started: Option<Instant>,
    failure: Option<(i32, String)>,
}

impl ExecEngine {
    pub fn new(opts: ExecOptions, mut config: EngineConfig) -> Result<ExecEngine, EngineError> {
        let common = Common::new("exec", &mut config)?;
        if opts.program.is_empty() {
            return Err(EngineError::Option {
                engine: "exec",
                why: "no program is defined, it is mandatory to define one".into(),
            });
        }
        Ok(ExecEngine { opts, bufs: common.bufs, child: None, started: None, failure: None })
    }

    fn start(&mut self) -> Result<(), (i32, String)> {
        let argv = self.opts.argv();
        let Some((prog, args)) = argv.split_first() else {
            return Err((libc::EINVAL, "exec".into()));
        };
        let mut cmd = Command::new(prog);
        cmd.args(args).stdin(Stdio::inherit());
        if let Some((out, err)) = &self.opts.redirect {
            let create = |p: &PathBuf| {
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o644).open(p)
            };
            let o =
                create(out).map_err(|e| (e.raw_os_error().unwrap_or(libc::EIO), format!("open({})", out.display())))?;
            let e =
                create(err).map_err(|e| (e.raw_os_error().unwrap_or(libc::EIO), format!("open({})", err.display())))?;
            cmd.stdout(o).stderr(e);
        }
        let child = cmd.spawn().map_err(|e| (e.raw_os_error().unwrap_or(libc::EIO), format!("execvp({prog})")))?;
        self.child = Some(child);
        Ok(())
    }

    /// `SIGTERM` to the program (nothing if it has ended and been reaped).
    fn terminate(&mut self) {
        if let Some(c) = &mut self.child
            && matches!(c.try_wait(), Ok(None))
            && let Some(pid) = i32::try_from(c.id()).ok().and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
    }
}

impl Engine for ExecEngine {
    fn name(&self) -> &'static str {
        "exec"
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    fn queue(&mut self, _io: &Io) -> Queued {
        let Some(started) = self.started else {
            self.started = Some(Instant::now());
            if let Err(f) = self.start() {
                let errno = f.0;
                self.failure = Some(f);
                return Queued::Completed(-errno);
            }
            return Queued::Completed(0);
        };
        std::thread::sleep(Duration::from_micros(self.opts.poll_us));
        if started.elapsed().as_micros() as u64 > self.opts.timeout_us {
            self.terminate();
            std::thread::sleep(Duration::from_secs(self.opts.grace_time_s));
        }
        Queued::Completed(0)
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }

    fn moves_no_data(&self) -> bool {
        true
    }

    fn failure(&mut self) -> Option<(i32, String)> {
        self.failure.take()
    }
}

impl Drop for ExecEngine {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // fio's cleanup: SIGKILL, whatever the program is doing (an ended program is only
            // reaped).
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
