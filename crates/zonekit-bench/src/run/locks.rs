//! `lockfile`: one lock per file, shared by every job of the run that works on the file with the
//! same lock mode (fio keeps it in its file hash), held while an I/O is handed to the engine
//! (fio's `td_io_prep` to the end of `td_io_queue`): over the whole I/O with a synchronous
//! engine, over its submission with an asynchronous one.
//!
//! Two jobs with different modes cannot have one file open at the same time: fio 3.33 hands the
//! second to open it the first one's lock (its file hash keeps one lock per open file, whatever
//! the mode), takes it as a lock of the other kind and fails an assertion (`fio_sem_down:
//! Assertion 'sem->magic == FIO_SEM_MAGIC' failed`, or `fio_rwlock_read`'s), which kills that
//! job (the whole run with `thread`). Here the second job to open the file fails before its I/O
//! ([`FileLock::open`]); jobs that do not overlap may use either mode.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// How a file is locked (`lockfile`, other than `none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockMode {
    /// One I/O at a time, whatever its direction.
    Exclusive,
    /// Reads together, anything else alone.
    ReadWrite,
}

impl LockMode {
    /// The mode of a `lockfile` value (`None` for `none`).
    pub fn of(value: &str) -> Option<LockMode> {
        match value {
            "exclusive" => Some(LockMode::Exclusive),
            "readwrite" => Some(LockMode::ReadWrite),
            _ => None,
        }
    }
}

impl LockMode {
    /// The `lockfile` value naming the mode.
    pub fn name(self) -> &'static str {
        match self {
            LockMode::Exclusive => "exclusive",
            LockMode::ReadWrite => "readwrite",
        }
    }
}

/// The files of a run that running jobs have open with a lock, by path: the mode and how many
/// jobs.
type InUse = Arc<Mutex<HashMap<PathBuf, (LockMode, usize)>>>;

/// The lock of one file.
#[derive(Debug)]
pub struct FileLock {
    mode: LockMode,
    lock: RwLock<()>,
    path: PathBuf,
    in_use: InUse,
}

/// A job's use of a locked file, from its open to its end ([`FileLock::open`]).
#[derive(Debug)]
pub struct OpenLock {
    lock: Arc<FileLock>,
}

impl Drop for OpenLock {
    fn drop(&mut self) {
        let mut in_use = self.lock.in_use.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, n)) = in_use.get_mut(&self.lock.path) {
            *n -= 1;
            if *n == 0 {
                in_use.remove(&self.lock.path);
            }
        }
    }
}

/// A held lock, released when dropped.
#[must_use]
pub enum Held<'a> {
    /// Shared (a read under `readwrite`).
    Shared(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    /// Alone.
    Alone(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

impl FileLock {
    /// A lock of `mode`, not held, of a file of its own.
    pub fn new(mode: LockMode) -> FileLock {
        FileLock { mode, lock: RwLock::new(()), path: PathBuf::new(), in_use: InUse::default() }
    }

    /// The job opens the file: it counts as using it with this lock's mode until the
    /// [`OpenLock`] is dropped. `Err` with the other mode when a running job has the file open
    /// with it.
    pub fn open(self: &Arc<Self>) -> Result<OpenLock, LockMode> {
        let mut in_use = self.in_use.lock().unwrap_or_else(|p| p.into_inner());
        let entry = in_use.entry(self.path.clone()).or_insert((self.mode, 0));
        if entry.0 != self.mode {
            return Err(entry.0);
        }
        entry.1 += 1;
        Ok(OpenLock { lock: self.clone() })
    }

    /// The file it locks.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its mode.
    pub fn mode(&self) -> LockMode {
        self.mode
    }

    /// Wait for the lock for an I/O that reads (`read`) or does anything else.
    pub fn hold(&self, read: bool) -> Held<'_> {
        // Nothing is ever written under the lock, so a poisoned lock is as good as a sound one.
        if read && self.mode == LockMode::ReadWrite {
            Held::Shared(self.lock.read().unwrap_or_else(|p| p.into_inner()))
        } else {
            Held::Alone(self.lock.write().unwrap_or_else(|p| p.into_inner()))
        }
    }
}

/// The locks of a run's files, by path and mode.
#[derive(Debug, Default)]
pub struct FileLocks {
    locks: HashMap<(PathBuf, LockMode), Arc<FileLock>>,
    in_use: InUse,
}

impl FileLocks {
    /// The lock of `path` under `lockfile=value` (`None` for `none`), shared with every job that
    /// asked for it before.
    pub fn get(&mut self, path: &Path, value: &str) -> Option<Arc<FileLock>> {
        let mode = LockMode::of(value)?;
        let in_use = &self.in_use;
        let lock = self.locks.entry((path.to_path_buf(), mode)).or_insert_with(|| {
            Arc::new(FileLock { mode, lock: RwLock::new(()), path: path.to_path_buf(), in_use: in_use.clone() })
        });
        Some(lock.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    /// Most holders seen at once when `threads` threads each take the lock `rounds` times for
    /// reads (`read`) or not.
    fn most_at_once(mode: LockMode, read: bool) -> u32 {
        let lock = Arc::new(FileLock::new(mode));
        let now = Arc::new(AtomicU32::new(0));
        let most = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (lock, now, most) = (lock.clone(), now.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        let _held = lock.hold(read);
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_micros(200));
                        now.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        most.load(Ordering::SeqCst)
    }

    #[test]
    fn exclusive_lets_one_holder_in() {
        assert_eq!(most_at_once(LockMode::Exclusive, true), 1);
        assert_eq!(most_at_once(LockMode::Exclusive, false), 1);
        assert_eq!(most_at_once(LockMode::ReadWrite, false), 1);
    }

    /// Whether another thread gets the lock for `second_read` while this one holds it for
    /// `first_read` (the other thread gets it once this one lets go, in any case).
    fn second_gets_in(mode: LockMode, first_read: bool, second_read: bool) -> bool {
        let lock = Arc::new(FileLock::new(mode));
        let held = lock.hold(first_read);
        let (tx, rx) = std::sync::mpsc::channel();
        let other = lock.clone();
        let t = std::thread::spawn(move || {
            let _h = other.hold(second_read);
            tx.send(()).unwrap();
        });
        let wait = if first_read && second_read { Duration::from_secs(5) } else { Duration::from_millis(50) };
        let got_in = rx.recv_timeout(wait).is_ok();
        drop(held);
        if !got_in {
            rx.recv_timeout(Duration::from_secs(5)).expect("the lock is let go");
        }
        t.join().unwrap();
        got_in
    }

    #[test]
    fn readwrite_lets_readers_share() {
        assert!(second_gets_in(LockMode::ReadWrite, true, true));
        assert!(!second_gets_in(LockMode::ReadWrite, true, false));
        assert!(!second_gets_in(LockMode::ReadWrite, false, true));
        assert!(!second_gets_in(LockMode::Exclusive, true, true));
    }

    #[test]
    fn locks_are_shared_by_path_and_mode() {
        let mut locks = FileLocks::default();
        assert!(locks.get(Path::new("a"), "none").is_none());
        let a = locks.get(Path::new("a"), "exclusive").unwrap();
        assert!(Arc::ptr_eq(&a, &locks.get(Path::new("a"), "exclusive").unwrap()));
        assert!(!Arc::ptr_eq(&a, &locks.get(Path::new("b"), "exclusive").unwrap()));
        assert!(!Arc::ptr_eq(&a, &locks.get(Path::new("a"), "readwrite").unwrap()));
    }

    /// While a job has a file open with one mode, a job with the other cannot open it (fio 3.33
    /// fails an assertion then); jobs of the same mode can, and once every job of one mode has
    /// let go, the other mode can.
    #[test]
    fn a_file_is_open_with_one_mode_at_a_time() {
        let mut locks = FileLocks::default();
        let ex = locks.get(Path::new("f"), "exclusive").unwrap();
        let rw = locks.get(Path::new("f"), "readwrite").unwrap();
        let other = locks.get(Path::new("g"), "readwrite").unwrap();
        let first = ex.open().unwrap();
        let second = ex.open().unwrap();
        assert_eq!(rw.open().unwrap_err(), LockMode::Exclusive);
        let _g = other.open().expect("another file");
        drop(first);
        assert_eq!(rw.open().unwrap_err(), LockMode::Exclusive, "one exclusive user left");
        drop(second);
        let r = rw.open().expect("nobody has it open now");
        assert_eq!(ex.open().unwrap_err(), LockMode::ReadWrite);
        drop(r);
        assert!(ex.open().is_ok());
    }
}
