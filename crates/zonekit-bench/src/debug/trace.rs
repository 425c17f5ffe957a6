//! The trace lines of a run (`--debug=CLASS` for every class but `parse`, whose lines a parse
//! builds beforehand): where a run prints them and whether a class is on.
//!
//! A [`Tracer`] is cheap to clone and to ask: off (the default), it holds nothing and
//! [`Tracer::on`] is one test of an `Option`. Code on the per-I/O path reads the classes it
//! traces once per job into plain booleans, so that tracing off costs one predictable branch per
//! I/O at most.

use super::DebugMask;
use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// fio 3.33's debug classes (`enum` in its `debug.h`), in its order: a class's bit in a
/// [`DebugMask`] is its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Class {
    /// `process`: job states and starts.
    Process = 0,
    /// `file`: files added, opened, served and closed.
    File,
    /// `io`: engines and every I/O's steps.
    Io,
    /// `mem`: I/O units and their buffers.
    Mem,
    /// `blktrace`: blktrace replay.
    Blktrace,
    /// `verify`: verification.
    Verify,
    /// `random`: random offsets.
    Random,
    /// `parse`: the parse trace.
    Parse,
    /// `diskutil`: disk statistics.
    Diskutil,
    /// `job` (a job number, no lines of its own).
    Job,
    /// `mutex`: the start-up semaphores.
    Mutex,
    /// `profile`: fio's built-in profiles.
    Profile,
    /// `time`: the clock's calibration.
    Time,
    /// `net`: network engines.
    Net,
    /// `rate`: rate and latency-target pacing.
    Rate,
    /// `compress`: compressed logs.
    Compress,
    /// `steadystate`: steady-state detection.
    Steadystate,
    /// `helperthread`: fio's helper thread.
    Helperthread,
    /// `zbd`: zone mode.
    Zbd,
}

impl Class {
    /// The name fio prints in the first column.
    pub fn name(self) -> &'static str {
        crate::cmdline::DEBUG_CLASSES[self as usize]
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// Where a run's output goes: the trace lines go there too, as fio's do.
pub type Out = Arc<Mutex<Box<dyn Write + Send>>>;

struct Sink {
    mask: u32,
    out: Out,
    /// `job:N`: once the job's thread has started, only its lines (0: every thread's).
    only: AtomicU32,
}

/// A run's trace: the classes turned on and where their lines go. Off by default.
#[derive(Clone, Default)]
pub struct Tracer(Option<Arc<Sink>>);

impl std::fmt::Debug for Tracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Tracer").field(&self.0.as_ref().map(|s| s.mask)).finish()
    }
}

impl Tracer {
    /// A trace of the classes of `mask` to `out` (the `parse` lines of the parse itself are
    /// built beforehand: a run prints those of its jobs freeing their engine options); off when
    /// no class is on.
    pub fn new(mask: DebugMask, out: Out) -> Tracer {
        let mask = mask.0 & !Class::Job.bit();
        if mask == 0 {
            return Tracer(None);
        }
        Tracer(Some(Arc::new(Sink { mask, out, only: AtomicU32::new(0) })))
    }

    /// Whether `class` is on.
    #[inline]
    pub fn on(&self, class: Class) -> bool {
        self.0.as_ref().is_some_and(|s| s.mask & class.bit() != 0)
    }

    /// Whether any class is on.
    #[inline]
    pub fn any(&self) -> bool {
        self.0.is_some()
    }

    /// Prints `msg` (a line, without its newline) as `class`, from the calling thread.
    pub fn print(&self, class: Class, msg: &str) {
        self.print_as(class, crate::sys::gettid(), msg);
    }

    /// Prints `msg` as `class` with `tid` in the thread column (fio's `gettid()` of the thread
    /// that prints it).
    pub fn print_as(&self, class: Class, tid: u32, msg: &str) {
        let Some(s) = &self.0 else { return };
        if s.mask & class.bit() == 0 {
            return;
        }
        let only = s.only.load(Ordering::Relaxed);
        if only != 0 && only != tid {
            return;
        }
        let text = format!("{}\n", super::line(class.name(), tid, msg));
        if let Ok(mut w) = s.out.lock() {
            let _ = w.write_all(text.as_bytes());
            let _ = w.flush();
        }
    }

    /// `job:N`: from now on, only the lines of the thread `tid` (fio's `fio_debug_jobp`, set
    /// when job N's process starts).
    pub fn only_thread(&self, tid: u32) {
        if let Some(s) = &self.0 {
            s.only.store(tid, Ordering::Relaxed);
        }
    }
}

/// `dprint!(tracer, Class::File, "fd open {}", name)`: fio's `dprint`, the message formatted
/// only when the class is on.
#[macro_export]
macro_rules! dprint {
    ($t:expr, $class:expr, $($arg:tt)*) => {
        if $t.on($class) {
            $t.print($class, &format!($($arg)*));
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn classes_print_as_fio_and_only_when_on() {
        let buf = Buf::default();
        let out: Out = Arc::new(Mutex::new(Box::new(buf.clone())));
        let mut mask = DebugMask::default();
        mask.set("file");
        mask.set("parse");
        let t = Tracer::new(mask, out.clone());
        assert!(t.on(Class::File) && !t.on(Class::Io) && t.on(Class::Parse));
        t.print_as(Class::File, 42, "fd open f");
        t.print_as(Class::Io, 42, "not on");
        dprint!(t, Class::File, "fd close {}", "f");
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let me = crate::sys::gettid();
        assert_eq!(text, format!("file     42    fd open f\nfile     {me:<5} fd close f\n"));
        // job:N: once set, another thread's lines are dropped.
        t.only_thread(7);
        t.print_as(Class::File, 8, "dropped");
        t.print_as(Class::File, 7, "kept");
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(text.ends_with("file     7     kept\n") && !text.contains("dropped"), "{text}");
        // Nothing (or only `job`): off.
        let mut p = DebugMask::default();
        p.set("job");
        assert!(!Tracer::new(p, out).any());
    }
}
