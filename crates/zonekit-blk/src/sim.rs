//! Simulated time: a clock that moves only when every task waits ([`SimClock`]), and the
//! discrete-event scheduler that runs the tasks and moves it ([`Scheduler`]).
//!
//! Tasks are futures (a benchmark's jobs, written once for both clocks). The scheduler polls
//! every task that is ready; when none is, it takes the earliest timer (a task's
//! [`Clock::sleep_until`]), sets the clock to its time and wakes its task. Timers at the same time
//! fire in the order they were set, and ready tasks run in the order they were woken, so a run is
//! the same every time for the same inputs.

use std::cmp::Ordering as CmpOrdering;
use std::collections::{BinaryHeap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use crate::clock::Clock;

struct Timer {
    at: u64,
    seq: u64,
    waker: Waker,
}

impl PartialEq for Timer {
    fn eq(&self, other: &Timer) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Timer {}

impl PartialOrd for Timer {
    fn partial_cmp(&self, other: &Timer) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timer {
    // Reversed: the heap's top is the earliest timer, then the first set.
    fn cmp(&self, other: &Timer) -> CmpOrdering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

#[derive(Default)]
struct Timers {
    heap: BinaryHeap<Timer>,
    seq: u64,
}

#[derive(Default)]
struct Shared {
    now: AtomicU64,
    timers: Mutex<Timers>,
}

/// Simulated nanoseconds, starting at 0. Clones share one time.
#[derive(Clone, Default)]
pub struct SimClock {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SimClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimClock").field("now_ns", &self.now_ns()).finish()
    }
}

impl SimClock {
    /// A clock at time 0 with no timers.
    pub fn new() -> SimClock {
        SimClock::default()
    }

    fn add_timer(&self, at: u64, waker: Waker) {
        let mut t = self.shared.timers.lock().unwrap_or_else(|e| e.into_inner());
        t.seq += 1;
        let seq = t.seq;
        t.heap.push(Timer { at, seq, waker });
    }

    /// Move to the earliest timer's time (never backwards) and wake every task whose timer is
    /// due then. Returns the new time, or `None` when no timer is set.
    pub fn advance(&self) -> Option<u64> {
        let mut t = self.shared.timers.lock().unwrap_or_else(|e| e.into_inner());
        let first = t.heap.pop()?;
        let now = self.shared.now.load(Ordering::Relaxed).max(first.at);
        self.shared.now.store(now, Ordering::Relaxed);
        let mut due = vec![first.waker];
        while t.heap.peek().is_some_and(|x| x.at <= now) {
            if let Some(x) = t.heap.pop() {
                due.push(x.waker);
            }
        }
        drop(t);
        for w in due {
            w.wake();
        }
        Some(now)
    }
}

/// [`SimClock::sleep_until`].
#[derive(Debug)]
pub struct SimSleep<'a> {
    clock: &'a SimClock,
    until: u64,
    set: bool,
}

impl Future for SimSleep<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.clock.now_ns() >= self.until {
            return Poll::Ready(());
        }
        if !self.set {
            self.set = true;
            self.clock.add_timer(self.until, cx.waker().clone());
        }
        Poll::Pending
    }
}

impl Clock for SimClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        self.shared.now.load(Ordering::Relaxed)
    }

    fn sleep_until(&self, t_ns: u64) -> impl Future<Output = ()> + Send + '_ {
        SimSleep { clock: self, until: t_ns, set: false }
    }
}

/// Which tasks were woken, in order, each once.
struct ReadyQueue {
    queue: Mutex<VecDeque<usize>>,
    queued: Vec<AtomicBool>,
}

impl ReadyQueue {
    fn push(&self, i: usize) {
        if !self.queued[i].swap(true, Ordering::AcqRel) {
            self.queue.lock().unwrap_or_else(|e| e.into_inner()).push_back(i);
        }
    }

    fn pop(&self) -> Option<usize> {
        let i = self.queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front()?;
        self.queued[i].store(false, Ordering::Release);
        Some(i)
    }
}

struct TaskWaker {
    index: usize,
    ready: Arc<ReadyQueue>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.ready.push(self.index);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.ready.push(self.index);
    }
}

/// A task of the scheduler.
pub type Task<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// The discrete-event scheduler of a [`SimClock`] (see the module documentation).
#[derive(Debug, Clone)]
pub struct Scheduler {
    clock: SimClock,
}

impl Scheduler {
    /// A scheduler moving `clock`.
    pub fn new(clock: SimClock) -> Scheduler {
        Scheduler { clock }
    }

    /// Run `tasks` until each is done. `on_time` is called each time the clock moves, with the new
    /// time (for a status line). A task that waits for something no other task will ever do
    /// (no timer is left and nothing is ready) is left unfinished: its result is `None`.
    pub fn run<'a, T>(&self, tasks: Vec<Task<'a, T>>, mut on_time: impl FnMut(u64)) -> Vec<Option<T>> {
        let n = tasks.len();
        let ready = Arc::new(ReadyQueue {
            queue: Mutex::new((0..n).collect()),
            queued: (0..n).map(|_| AtomicBool::new(true)).collect(),
        });
        let wakers: Vec<Waker> =
            (0..n).map(|index| Waker::from(Arc::new(TaskWaker { index, ready: ready.clone() }))).collect();
        let mut tasks: Vec<Option<Task<'a, T>>> = tasks.into_iter().map(Some).collect();
        let mut results: Vec<Option<T>> = (0..n).map(|_| None).collect();
        let mut left = n;
        while left > 0 {
            while let Some(i) = ready.pop() {
                let Some(task) = tasks[i].as_mut() else { continue };
                let mut cx = Context::from_waker(&wakers[i]);
                if let Poll::Ready(v) = task.as_mut().poll(&mut cx) {
                    results[i] = Some(v);
                    tasks[i] = None;
                    left -= 1;
                }
            }
            if left == 0 {
                break;
            }
            match self.clock.advance() {
                Some(now) => on_time(now),
                None => break,
            }
        }
        results
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_interleave_in_time_order_and_time_jumps() {
        let clock = SimClock::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        let task = |name: &'static str, step: u64, n: u64| {
            let (c, log) = (clock.clone(), log.clone());
            Box::pin(async move {
                for _ in 0..n {
                    let t = c.now_ns() + step;
                    c.sleep_until(t).await;
                    log.lock().unwrap().push((c.now_ns(), name));
                }
                name
            }) as Task<'static, &'static str>
        };
        let mut moves = 0;
        let wall = std::time::Instant::now();
        let out = Scheduler::new(clock.clone()).run(vec![task("a", 3, 3), task("b", 2, 4)], |_| moves += 1);
        assert!(wall.elapsed().as_millis() < 1000);
        assert_eq!(out, [Some("a"), Some("b")]);
        assert_eq!(
            *log.lock().unwrap(),
            [(2, "b"), (3, "a"), (4, "b"), (6, "a"), (6, "b"), (8, "b"), (9, "a")],
            "equal times in the order the timers were set"
        );
        assert_eq!(clock.now_ns(), 9);
        assert_eq!(moves, 6);
    }

    #[test]
    fn a_task_that_waits_forever_is_left_unfinished() {
        let clock = SimClock::new();
        let never = Box::pin(std::future::pending::<u32>()) as Task<'static, u32>;
        let c = clock.clone();
        let timed = Box::pin(async move {
            c.sleep_until(1_000_000_000).await;
            7u32
        }) as Task<'static, u32>;
        assert_eq!(Scheduler::new(clock.clone()).run(vec![never, timed], |_| {}), [None, Some(7)]);
        assert_eq!(clock.now_ns(), 1_000_000_000);
    }
}
