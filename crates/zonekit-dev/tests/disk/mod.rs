//! An in-memory directory for the crash tests, as a power loss sees it, as harsh as a file system
//! may be: names point to inodes; a crash keeps the durable names (made so by a directory sync or
//! an atomic replace) and, for each inode, its durable content (made so by a file sync) with any
//! subset of the writes and size changes made since, and a size anywhere between the synced and
//! the current one (zeros where no write survived). The power can go in the middle of an
//! operation, after which every file operation fails until the crash; each crash restarts the
//! machine (the boot id changes). A killed process is the same cut without the crash: nothing is
//! lost, the boot stays.

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use zonekit_dev::store::ZoneDir;

/// A change to a file not yet made durable.
#[derive(Debug, Clone)]
enum Unsynced {
    Write { offset: usize, data: Vec<u8> },
    SetLen(usize),
}

#[derive(Debug, Default, Clone)]
struct Inode {
    current: Vec<u8>,
    durable: Vec<u8>,
    /// Changes since the last file sync, in order.
    unsynced: Vec<Unsynced>,
}

impl Inode {
    fn synced(data: Vec<u8>) -> Inode {
        Inode { current: data.clone(), durable: data, unsynced: Vec::new() }
    }

    /// What a power loss leaves of the file: its durable content, any subset of the unsynced
    /// changes applied in order, then a size anywhere between the synced and the current one.
    fn survivor(&self, rng: &mut u64) -> Vec<u8> {
        let mut data = self.durable.clone();
        for change in &self.unsynced {
            if next(rng).is_multiple_of(2) {
                continue;
            }
            match change {
                Unsynced::Write { offset, data: d } => {
                    if data.len() < offset + d.len() {
                        resize(&mut data, offset + d.len());
                    }
                    data[*offset..offset + d.len()].copy_from_slice(d);
                }
                Unsynced::SetLen(len) => resize(&mut data, *len),
            }
        }
        let (a, b) = (self.durable.len(), self.current.len());
        let (lo, hi) = (a.min(b), a.max(b));
        let len = lo + (next(rng) % (hi - lo + 1) as u64) as usize;
        resize(&mut data, len);
        data
    }
}

/// xorshift64: the disk's own choices at a crash.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// A directory as a power loss sees it (see the module documentation).
#[derive(Debug, Default)]
pub struct Disk {
    inodes: Vec<Inode>,
    /// Names of the directory.
    pub names: BTreeMap<String, usize>,
    durable_names: BTreeMap<String, usize>,
    /// File operations left before the power goes (`None`: it stays on).
    pub power_left: Option<usize>,
    /// Machine restarts so far: the boot id.
    boots: u64,
}

impl Disk {
    /// Power loss and restart: back to the durable state, with what else survived chosen from
    /// `seed`. With `commit_names`, the directory's entries were committed just before (as a
    /// file system's periodic journal commit may do), not the files' contents.
    pub fn crash(&mut self, commit_names: bool, seed: u64) {
        let mut rng = seed | 1;
        self.power_left = None;
        self.boots += 1;
        if commit_names {
            self.durable_names = self.names.clone();
        }
        // Only the inodes that a durable name points to survive.
        let inodes = std::mem::take(&mut self.inodes);
        for i in self.durable_names.values_mut() {
            let survivor = inodes[*i].survivor(&mut rng);
            self.inodes.push(Inode::synced(survivor));
            *i = self.inodes.len() - 1;
        }
        self.names = self.durable_names.clone();
    }

    /// A killed process: the operation in progress stops, nothing written is lost (the page
    /// cache stays), the machine does not restart.
    pub fn revive(&mut self) {
        self.power_left = None;
    }

    /// The current content of file `name`, if it exists.
    pub fn content(&self, name: &str) -> Option<&[u8]> {
        self.names.get(name).map(|&i| &self.inodes[i].current[..])
    }

    fn inode(&mut self, name: &str) -> io::Result<&mut Inode> {
        match self.names.get(name) {
            Some(&i) => Ok(&mut self.inodes[i]),
            None => Err(io::Error::new(io::ErrorKind::NotFound, format!("{name}: no such file"))),
        }
    }

    fn new_inode(&mut self, inode: Inode) -> usize {
        self.inodes.push(inode);
        self.inodes.len() - 1
    }

    /// The inode of `name`, created empty (and not durable) if missing; whether it was created.
    fn create(&mut self, name: &str) -> bool {
        let created = !self.names.contains_key(name);
        if created {
            let i = self.new_inode(Inode::default());
            self.names.insert(name.to_string(), i);
        }
        created
    }
}

/// `Vec::resize` with zeros, fast in an unoptimised build.
fn resize(v: &mut Vec<u8>, len: usize) {
    if len <= v.len() {
        v.truncate(len);
    } else {
        v.extend_from_slice(&vec![0u8; len - v.len()]);
    }
}

/// A [`ZoneDir`] over a shared [`Disk`]; clones see the same disk.
#[derive(Debug, Clone)]
pub struct LossyDir {
    disk: Arc<Mutex<Disk>>,
    path: PathBuf,
}

impl LossyDir {
    /// An empty directory on a fresh disk.
    pub fn new() -> LossyDir {
        LossyDir { disk: Arc::default(), path: PathBuf::from("/lossy") }
    }

    /// The disk, for the test to look at or to crash.
    pub fn disk(&self) -> std::sync::MutexGuard<'_, Disk> {
        self.disk.lock().unwrap()
    }

    /// The disk for one file operation, unless the power is gone: then every operation fails
    /// until the crash, so a device operation can be cut between any two file operations.
    fn op(&self) -> io::Result<std::sync::MutexGuard<'_, Disk>> {
        let mut d = self.disk();
        match d.power_left {
            Some(0) => Err(io::Error::other("power lost")),
            Some(n) => {
                d.power_left = Some(n - 1);
                Ok(d)
            }
            None => Ok(d),
        }
    }
}

impl ZoneDir for LossyDir {
    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&mut self) -> io::Result<Vec<String>> {
        Ok(self.op()?.names.keys().cloned().collect())
    }

    fn read_small(&mut self, name: &str) -> io::Result<Option<Vec<u8>>> {
        Ok(self.op()?.content(name).map(<[u8]>::to_vec))
    }

    fn replace(&mut self, name: &str, data: &[u8]) -> io::Result<()> {
        let mut d = self.op()?;
        let i = d.new_inode(Inode::synced(data.to_vec()));
        d.names.insert(name.to_string(), i);
        d.durable_names.insert(name.to_string(), i);
        Ok(())
    }

    fn file_len(&mut self, name: &str) -> io::Result<u64> {
        Ok(self.op()?.inode(name)?.current.len() as u64)
    }

    fn read_at(&mut self, name: &str, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let mut d = self.op()?;
        let data = &d.inode(name)?.current;
        let start = (offset as usize).min(data.len());
        let n = (data.len() - start).min(buf.len());
        buf[..n].copy_from_slice(&data[start..start + n]);
        Ok(n)
    }

    fn write_at(&mut self, name: &str, offset: u64, data: &[u8]) -> io::Result<bool> {
        let mut d = self.op()?;
        let created = d.create(name);
        let f = d.inode(name)?;
        let (offset, end) = (offset as usize, offset as usize + data.len());
        if f.current.len() < end {
            resize(&mut f.current, end);
        }
        f.current[offset..end].copy_from_slice(data);
        f.unsynced.push(Unsynced::Write { offset, data: data.to_vec() });
        Ok(created)
    }

    fn truncate(&mut self, name: &str, len: u64) -> io::Result<()> {
        let mut d = self.op()?;
        let f = d.inode(name)?;
        resize(&mut f.current, len as usize);
        f.unsynced.push(Unsynced::SetLen(len as usize));
        Ok(())
    }

    fn set_len(&mut self, name: &str, len: u64) -> io::Result<bool> {
        let mut d = self.op()?;
        let created = d.create(name);
        let f = d.inode(name)?;
        resize(&mut f.current, len as usize);
        f.unsynced.push(Unsynced::SetLen(len as usize));
        Ok(created)
    }

    fn remove(&mut self, name: &str) -> io::Result<()> {
        self.op()?.names.remove(name);
        Ok(())
    }

    fn sync_file(&mut self, name: &str) -> io::Result<()> {
        let mut d = self.op()?;
        let inode = d.inode(name)?;
        inode.durable = inode.current.clone();
        inode.unsynced.clear();
        Ok(())
    }

    fn sync_dir(&mut self) -> io::Result<()> {
        let mut d = self.op()?;
        d.durable_names = d.names.clone();
        Ok(())
    }

    fn boot_id(&mut self) -> io::Result<String> {
        Ok(format!("boot-{}", self.disk().boots))
    }
}
