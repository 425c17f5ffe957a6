//! fio's `io_submit_mode=offload` (`rate-submit.c`, `workqueue.c`): the job's thread only makes
//! I/Os and collects completions; a pool of submission threads makes the engine calls, so the
//! pace at which the job issues I/Os does not wait on the device (the coordinated-omission
//! problem fio's option is for).
//!
//! The pool has one thread per slot, as fio's has one worker per `iodepth`, each with an engine of
//! depth 1 of its own ([`OffloadEngine::new`]'s `engines`, one per slot). Slot `tag`'s engine
//! stays with the caller while the slot is idle, so its buffer is filled and read there
//! ([`Engine::buffer`]); `queue` sends the engine and the I/O to thread `tag`, which issues the
//! I/O, waits for it, and sends the engine back with the completion. No buffer is copied and no
//! engine is shared between threads at once. An engine is used from several threads in turn,
//! which `io_uring` does not allow (its rings have one submitter): it is refused, with fio's
//! words.
//!
//! Each I/O's times are the submission thread's ([`Engine::hand_off`]): issued just before the
//! engine's call (a synchronous engine; no submission latency) or at the end of the commit that
//! sent it (an asynchronous one, reaped by the thread at once: a submission latency from the
//! caller's preparation to then, as fio's asynchronous engines in a worker have; not for `vsync`,
//! whose commit fio does not time), completed when the call returned or the thread reaped it.

use std::cell::OnceCell;
use std::io;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{Completion, DiskCounts, Engine, EngineError, Io, Queued};
use crate::clock::RealClock;

/// How the submission thread of an offloaded I/O issued it ([`Engine::hand_off`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HandOff {
    /// The issue, in nanoseconds of the engine's clock: before the engine's call for a
    /// synchronous engine, at the end of the commit that sent it for an asynchronous one.
    pub issue_ns: u64,
    /// The thread's engine queued it and fio counts a submission latency for it (from the
    /// caller's preparation of the I/O to `issue_ns`).
    pub submitted: bool,
}

/// One I/O for a submission thread, with the slot's engine.
struct Job {
    tag: u32,
    io: Io,
    prio: Option<u16>,
    engine: Box<dyn Engine>,
}

/// A submission thread's answer: the completion, how it was issued, what the engine measured,
/// and the engine back.
struct Done {
    completion: Completion,
    hand_off: HandOff,
    latencies: Vec<u64>,
    failure: Option<(i32, String)>,
    engine: Box<dyn Engine>,
}

/// fio's `io_submit_mode=offload` over one engine of depth 1 per slot (see the module
/// documentation). Asynchronous to its caller: `queue` hands the I/O over at once (`commit` has
/// nothing left to send), `getevents` collects what the threads finished.
pub struct OffloadEngine {
    name: &'static str,
    /// Per slot: its engine while the slot is idle (`None` while a thread has it).
    slots: Vec<Option<Box<dyn Engine>>>,
    /// Per slot: how its last completed I/O was issued.
    hand_offs: Vec<HandOff>,
    to_threads: Vec<Sender<Job>>,
    done: Receiver<Done>,
    threads: Vec<JoinHandle<()>>,
    in_flight: usize,
    moves_no_data: bool,
    own_latencies: bool,
    latencies: Vec<u64>,
    failure: Option<(i32, String)>,
    /// The slots' devices' counts added up, made when asked for and dropped at the next `queue`.
    disk: OnceCell<Vec<DiskCounts>>,
}

impl OffloadEngine {
    /// A pool over `engines`, one per slot (slot `i` is served by its own thread with
    /// `engines[i]`), each built at depth 1 over its own file table (a job's `sync` engines keep
    /// a file position each, so each needs descriptors of its own), all of one kind and stamping
    /// completions on `clock`.
    pub fn new(engines: Vec<Box<dyn Engine>>, clock: RealClock) -> Result<OffloadEngine, EngineError> {
        let Some(first) = engines.first() else {
            return Err(EngineError::Option { engine: "offload", why: "iodepth must be at least 1".into() });
        };
        let name = first.name();
        if name == "io_uring" {
            // fio's check_engine_ops for FIO_NO_OFFLOAD engines.
            return Err(EngineError::Option {
                engine: name,
                why: "can't be used with offloaded submit. Use a sync engine".into(),
            });
        }
        if let Some(e) = engines.iter().find(|e| e.name() != name) {
            return Err(EngineError::Option {
                engine: name,
                why: format!("offloaded submission over engines of two kinds ({name}, {})", e.name()),
            });
        }
        let (moves_no_data, own_latencies) = (first.moves_no_data(), first.own_latencies());
        let depth = engines.len();
        let (done_tx, done) = mpsc::channel::<Done>();
        let mut to_threads = Vec::with_capacity(depth);
        let mut threads = Vec::with_capacity(depth);
        for i in 0..depth {
            let (tx, rx) = mpsc::channel::<Job>();
            let done_tx = done_tx.clone();
            let thread = std::thread::Builder::new()
                .name(format!("zonekit-submit-{i}"))
                .spawn(move || submission_thread(&rx, &done_tx, clock, own_latencies))
                .map_err(|source| EngineError::Setup { engine: name, source })?;
            to_threads.push(tx);
            threads.push(thread);
        }
        Ok(OffloadEngine {
            name,
            slots: engines.into_iter().map(Some).collect(),
            hand_offs: vec![HandOff::default(); depth],
            to_threads,
            done,
            threads,
            in_flight: 0,
            moves_no_data,
            own_latencies,
            latencies: Vec::new(),
            failure: None,
            disk: OnceCell::new(),
        })
    }

    /// Hand slot `tag`'s I/O to its thread.
    fn hand_over(&mut self, io: &Io, prio: Option<u16>) -> Queued {
        let tag = io.tag as usize;
        let Some(engine) = self.slots.get_mut(tag).and_then(Option::take) else {
            // No such slot, or its I/O is still with its thread.
            return if tag < self.slots.len() { Queued::Busy } else { Queued::Completed(-libc::EINVAL) };
        };
        self.disk.take();
        let job = Job { tag: io.tag, io: Io { tag: 0, ..*io }, prio, engine };
        match self.to_threads[tag].send(job) {
            Ok(()) => {
                self.in_flight += 1;
                Queued::Queued
            }
            Err(mpsc::SendError(job)) => {
                // The thread is gone (it can only have died): the I/O fails, the slot stays.
                self.slots[tag] = Some(job.engine);
                Queued::Completed(-libc::EIO)
            }
        }
    }

    fn take_done(&mut self, d: Done, out: &mut Vec<Completion>) {
        let tag = d.completion.tag as usize;
        self.slots[tag] = Some(d.engine);
        self.hand_offs[tag] = d.hand_off;
        self.in_flight -= 1;
        if self.own_latencies {
            self.latencies.extend(d.latencies);
        }
        if self.failure.is_none() {
            self.failure = d.failure;
        }
        out.push(d.completion);
    }
}

/// A submission thread: run each I/O it is handed to completion, hand it back, until the pool
/// is dropped.
fn submission_thread(jobs: &Receiver<Job>, done: &Sender<Done>, clock: RealClock, own_latencies: bool) {
    let mut scratch = Vec::with_capacity(1);
    while let Ok(mut job) = jobs.recv() {
        let engine = &mut *job.engine;
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_one(engine, &job.io, job.prio, &clock, &mut scratch)
        }));
        let (result, at_ns, hand_off) = run
            .unwrap_or_else(|_| (-libc::EIO, clock.now_ns(), HandOff { issue_ns: clock.now_ns(), submitted: false }));
        let mut latencies = Vec::new();
        if own_latencies {
            engine.take_latencies(&mut latencies);
        }
        let failure = if result < 0 { engine.failure() } else { None };
        let d = Done {
            completion: Completion { tag: job.tag, result, at_ns },
            hand_off,
            latencies,
            failure,
            engine: job.engine,
        };
        if done.send(d).is_err() {
            return;
        }
    }
}

/// Issue `io` on an engine of depth 1 and wait for it: its result, completion time and issue.
fn run_one(
    e: &mut dyn Engine,
    io: &Io,
    prio: Option<u16>,
    clock: &RealClock,
    scratch: &mut Vec<Completion>,
) -> (i32, u64, HandOff) {
    // fio's asynchronous engines in a worker have their submission timed at commit (`libaio`)
    // or queue (`posixaio`); `vsync`'s commit is not timed.
    let timed_submit = !e.is_sync() && e.name() != "vsync";
    let mut issue = clock.now_ns();
    for _ in 0..2 {
        issue = clock.now_ns();
        let q = match prio {
            Some(p) => e.queue_prio(io, p),
            None => e.queue(io),
        };
        match q {
            Queued::Completed(r) => return (r, clock.now_ns(), HandOff { issue_ns: issue, submitted: false }),
            Queued::Queued => {
                if let Err(err) = e.commit() {
                    let now = clock.now_ns();
                    return (neg_errno(&err), now, HandOff { issue_ns: now, submitted: false });
                }
                let issue = clock.now_ns();
                let (r, at) = reap_one(e, clock, scratch);
                return (r, at, HandOff { issue_ns: issue, submitted: timed_submit });
            }
            // Nothing else is queued on this engine: whatever it waits for is sent by a commit.
            Queued::Busy => {
                let _ = e.commit();
            }
        }
    }
    (-libc::EBUSY, clock.now_ns(), HandOff { issue_ns: issue, submitted: false })
}

/// Wait for the one I/O committed on `e`: its result and completion time. An engine whose
/// completions follow a timing model is asked again when it says one is due (the thread sleeps
/// until then, in real time).
fn reap_one(e: &mut dyn Engine, clock: &RealClock, scratch: &mut Vec<Completion>) -> (i32, u64) {
    loop {
        scratch.clear();
        if let Err(err) = e.getevents(1, 1, scratch) {
            return (neg_errno(&err), clock.now_ns());
        }
        if let Some(c) = scratch.first() {
            return (c.result, if c.at_ns == 0 { clock.now_ns() } else { c.at_ns });
        }
        let Some(t) = e.next_event() else { return (-libc::EIO, clock.now_ns()) };
        let now = clock.now_ns();
        if t > now {
            std::thread::sleep(Duration::from_nanos(t - now));
        }
    }
}

fn neg_errno(e: &io::Error) -> i32 {
    -e.raw_os_error().unwrap_or(libc::EIO)
}

impl Engine for OffloadEngine {
    fn name(&self) -> &'static str {
        self.name
    }

    fn is_sync(&self) -> bool {
        false
    }

    /// # Panics
    /// If the slot does not exist or its I/O is with its thread.
    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        let e = self.slots.get_mut(tag as usize).expect("slot out of range");
        e.as_mut().unwrap_or_else(|| panic!("slot {tag} is in flight")).buffer(0)
    }

    fn queue(&mut self, io: &Io) -> Queued {
        self.hand_over(io, None)
    }

    fn queue_prio(&mut self, io: &Io, ioprio: u16) -> Queued {
        self.hand_over(io, Some(ioprio))
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let min = min.min(self.in_flight);
        let max = max.max(min);
        let mut n = 0;
        while n < max && self.in_flight > 0 {
            let d = if n < min {
                self.done.recv().map_err(|_| io::Error::from_raw_os_error(libc::EIO))?
            } else {
                match self.done.try_recv() {
                    Ok(d) => d,
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return Err(io::Error::from_raw_os_error(libc::EIO)),
                }
            };
            self.take_done(d, out);
            n += 1;
        }
        Ok(n)
    }

    fn disk_counts(&self) -> &[DiskCounts] {
        self.disk.get_or_init(|| {
            let mut sum: Vec<DiskCounts> = Vec::new();
            for e in self.slots.iter().flatten() {
                let c = e.disk_counts();
                if sum.len() < c.len() {
                    sum.resize(c.len(), DiskCounts::default());
                }
                for (s, c) in sum.iter_mut().zip(c) {
                    s.add(c);
                }
            }
            sum
        })
    }

    fn moves_no_data(&self) -> bool {
        self.moves_no_data
    }

    fn own_latencies(&self) -> bool {
        self.own_latencies
    }

    fn take_latencies(&mut self, out: &mut Vec<u64>) {
        out.append(&mut self.latencies);
    }

    fn failure(&mut self) -> Option<(i32, String)> {
        self.failure.take()
    }

    fn offloads(&self) -> bool {
        true
    }

    fn hand_off(&self, tag: u32) -> Option<HandOff> {
        self.hand_offs.get(tag as usize).copied()
    }
}

impl Drop for OffloadEngine {
    fn drop(&mut self) {
        // Each thread ends once its channel is closed, after the I/O it may still be running.
        self.to_threads.clear();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
