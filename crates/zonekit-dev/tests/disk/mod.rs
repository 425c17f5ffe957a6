//! An in-memory directory for the crash tests, as a power loss sees it: names point to inodes;
//! a crash keeps the durable names (made so by a directory sync or an atomic replace) and each
//! inode's durable content (made so by a file sync); the power can go in the middle of an
//! operation, after which every file operation fails until the crash. Each crash restarts the
//! machine: the boot id changes.

// Each test binary that includes this module uses part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use zonekit_dev::store::ZoneDir;

#[derive(Debug, Default, Clone)]
struct Inode {
    current: Vec<u8>,
    durable: Vec<u8>,
}

/// A directory as a power loss sees it: names point to inodes; the durable names (made so by a
/// directory sync or an atomic replace) and each inode's durable content (made so by a file sync)
/// are what a crash leaves.
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
    /// Power loss: back to the durable state. With `commit_names`, the directory's entries were
    /// committed just before (as a file system's periodic journal commit may do), not the files'
    /// contents.
    pub fn crash(&mut self, commit_names: bool) {
        self.power_left = None;
        self.boots += 1;
        if commit_names {
            self.durable_names = self.names.clone();
        }
        // Only the inodes that a durable name points to survive.
        let inodes = std::mem::take(&mut self.inodes);
        for i in self.durable_names.values_mut() {
            let durable = inodes[*i].durable.clone();
            self.inodes.push(Inode { current: durable.clone(), durable });
            *i = self.inodes.len() - 1;
        }
        self.names = self.durable_names.clone();
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
        let i = d.new_inode(Inode { current: data.to_vec(), durable: data.to_vec() });
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
        let created = !d.names.contains_key(name);
        if created {
            let i = d.new_inode(Inode::default());
            d.names.insert(name.to_string(), i);
        }
        let f = &mut d.inode(name)?.current;
        let end = offset as usize + data.len();
        if f.len() < end {
            resize(f, end);
        }
        f[offset as usize..end].copy_from_slice(data);
        Ok(created)
    }

    fn truncate(&mut self, name: &str, len: u64) -> io::Result<()> {
        resize(&mut self.op()?.inode(name)?.current, len as usize);
        Ok(())
    }

    fn set_len(&mut self, name: &str, len: u64) -> io::Result<bool> {
        let mut d = self.op()?;
        let created = !d.names.contains_key(name);
        if created {
            let i = d.new_inode(Inode::default());
            d.names.insert(name.to_string(), i);
        }
        resize(&mut d.inode(name)?.current, len as usize);
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
