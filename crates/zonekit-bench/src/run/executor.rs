//! Running a job's `async` loop on its own thread.
//!
//! A job is written as an `async` function so that where it waits (a zone another job holds)
//! one code path serves both drivers: on a thread, a wait parks the thread until another job's
//! thread wakes it ([`block_on`]); in one event loop, a wait yields to the loop. Everything else
//! a job does (system calls, reaping an engine) blocks the thread as it always has.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Run `fut` to completion on the current thread, parking it while the future waits.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return v,
            // A spurious unpark only costs one more poll.
            Poll::Pending => thread::park(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A one-shot signal between threads.
    #[derive(Default)]
    struct Signal {
        state: Mutex<(bool, Option<Waker>)>,
    }

    impl Signal {
        fn fire(&self) {
            let mut s = self.state.lock().unwrap();
            s.0 = true;
            if let Some(w) = s.1.take() {
                w.wake();
            }
        }
    }

    struct Wait<'a>(&'a Signal);

    impl Future for Wait<'_> {
        type Output = ();
        fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            let mut s = self.0.state.lock().unwrap();
            if s.0 {
                Poll::Ready(())
            } else {
                s.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    #[test]
    fn a_parked_future_resumes_when_woken() {
        assert_eq!(block_on(async { 7 }), 7);
        let sig = Arc::new(Signal::default());
        let s2 = sig.clone();
        let t = thread::spawn(move || {
            thread::sleep(std::time::Duration::from_millis(20));
            s2.fire();
        });
        block_on(Wait(&sig));
        t.join().unwrap();
    }
}
