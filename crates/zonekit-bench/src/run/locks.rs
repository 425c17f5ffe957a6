//! `lockfile`: one lock per file, shared by every job of the run that works on the file with the
//! same lock mode (fio keeps it in its file hash), held while an I/O is handed to the engine
//! (fio's `td_io_prep` to the end of `td_io_queue`): over the whole I/O with a synchronous
//! engine, over its submission with an asynchronous one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

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

/// The lock of one file.
#[derive(Debug)]
pub struct FileLock {
    mode: LockMode,
    lock: RwLock<()>,
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
    /// A lock of `mode`, not held.
    pub fn new(mode: LockMode) -> FileLock {
        FileLock { mode, lock: RwLock::new(()) }
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
}

impl FileLocks {
    /// The lock of `path` under `lockfile=value` (`None` for `none`), shared with every job that
    /// asked for it before.
    pub fn get(&mut self, path: &Path, value: &str) -> Option<Arc<FileLock>> {
        let mode = LockMode::of(value)?;
        Some(self.locks.entry((path.to_path_buf(), mode)).or_insert_with(|| Arc::new(FileLock::new(mode))).clone())
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
}
