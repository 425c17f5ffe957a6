//! The FUSE adapter: a mounted [`Volume`] served to the kernel through `fuser`.
//!
//! Every call goes to the volume, whose errno reaches the kernel unchanged. What the kernel's
//! FUSE layer would otherwise decide on its own is pinned down here:
//! - attributes are never cached (TTL 0), so a size changed by a write, a truncate or error
//!   recovery is what the next `stat` shows; directory entries never change and are cached;
//! - the open flags of each write (`O_DIRECT`, `O_APPEND`, which FUSE passes with every write)
//!   are the ones the volume checks, so a buffered write to a sequential file is `EIO`;
//! - node ids: FUSE's root is node 1, and a zonefs file's inode number may be 1 (`cnv/0` of a
//!   device with several conventional zones), so node ids are a mapping of their own
//!   ([`node_id`]); a lookup answers with the node id, and `getattr` (never cached) with the
//!   kernel's inode number, which is what `stat` shows. `readdir` gives the inode numbers too.
//! - no file or directory can be created, removed or renamed (`EPERM`; `EACCES` for `O_CREAT`).

use crate::layout::{FileId, Group};
use crate::volume::{Node, OpenFile, OpenFlags, S_IFDIR, Volume, VolumeStat};
use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, KernelConfig, LockOwner,
    ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite,
    Request, TimeOrNow, WriteFlags,
};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

/// FUSE `max_write` (and the largest read): 1 MiB, so a 1 MiB direct write is one request.
pub const MAX_WRITE: u32 = 1 << 20;

/// Directory entries never change while mounted.
const ENTRY_TTL: Duration = Duration::from_secs(3600);
/// Attributes change behind the kernel's back (writes, error recovery): never cache them.
const ATTR_TTL: Duration = Duration::ZERO;

/// The FUSE node id of `node`: the root is 1 (FUSE's), `cnv` 2, `seq` 3, file `i` 4 + i.
pub fn node_id(node: Node) -> u64 {
    match node {
        Node::Root => 1,
        Node::Dir(g) => 2 + g.ztype(),
        Node::File(FileId(i)) => 4 + i as u64,
    }
}

/// The node of a FUSE node id, if it is one of `vol`'s.
pub fn node_of(vol: &Volume, id: u64) -> Option<Node> {
    match id {
        1 => Some(Node::Root),
        2 | 3 => {
            let g = if id == 2 { Group::Cnv } else { Group::Seq };
            (vol.layout().group_len(g) > 0).then_some(Node::Dir(g))
        }
        _ => {
            let i = usize::try_from(id - 4).ok()?;
            (i < vol.layout().files.len()).then_some(Node::File(FileId(i)))
        }
    }
}

/// A volume served through FUSE.
pub struct ZonefsFuse {
    vol: Arc<Volume>,
    /// Mount time: every timestamp (zonefs keeps none on disk).
    time: SystemTime,
    next_fh: AtomicU64,
    /// Open files by handle; the lock of each lets `fcntl(F_SETFL)` change its flags, and
    /// `release` take the file back even while another request still holds the handle.
    open: Mutex<HashMap<u64, Handle>>,
}

impl std::fmt::Debug for ZonefsFuse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZonefsFuse").field("vol", &self.vol).finish_non_exhaustive()
    }
}

/// An open file as the requests share it (`None` once released).
type Handle = Arc<RwLock<Option<OpenFile>>>;

fn errno(e: &crate::FsError) -> Errno {
    Errno::from_i32(e.errno().0)
}

fn open_flags(flags: i32) -> OpenFlags {
    OpenFlags {
        write: flags & libc::O_ACCMODE != libc::O_RDONLY,
        direct: flags & libc::O_DIRECT != 0,
        append: flags & libc::O_APPEND != 0,
    }
}

impl ZonefsFuse {
    /// Serve `vol`.
    pub fn new(vol: Arc<Volume>) -> ZonefsFuse {
        ZonefsFuse { vol, time: SystemTime::now(), next_fh: AtomicU64::new(1), open: Mutex::new(HashMap::new()) }
    }

    fn attr(&self, st: &VolumeStat, ino: u64) -> FileAttr {
        FileAttr {
            ino: INodeNo(ino),
            size: st.size,
            blocks: st.blocks,
            atime: self.time,
            mtime: self.time,
            ctime: self.time,
            crtime: self.time,
            kind: if st.mode & S_IFDIR != 0 { FileType::Directory } else { FileType::RegularFile },
            perm: (st.mode & 0o7777) as u16,
            nlink: st.nlink,
            uid: st.uid,
            gid: st.gid,
            rdev: 0,
            blksize: st.blksize,
            flags: 0,
        }
    }

    fn node(&self, ino: INodeNo) -> Result<Node, Errno> {
        node_of(&self.vol, ino.0).ok_or(Errno::ENOENT)
    }

    fn handle(&self, fh: FileHandle) -> Result<Handle, Errno> {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).get(&fh.0).cloned().ok_or(Errno::EBADF)
    }

    fn file(&self, ino: INodeNo) -> Result<FileId, Errno> {
        match self.node(ino)? {
            Node::File(id) => Ok(id),
            _ => Err(Errno::EISDIR),
        }
    }
}

impl Filesystem for ZonefsFuse {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Both only fail with the nearest value the kernel takes, which is then in force.
        let _ = config.set_max_write(MAX_WRITE);
        let _ = config.set_max_readahead(MAX_WRITE);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let r = self.node(parent).and_then(|p| {
            let name = name.to_str().ok_or(Errno::ENOENT)?;
            self.vol.lookup(p, name).map_err(|e| errno(&e))
        });
        match r {
            Ok(n) => {
                let id = node_id(n);
                reply.entry_with_ttls(&ATTR_TTL, &ENTRY_TTL, &self.attr(&self.vol.stat(n), id), Generation(0));
            }
            Err(e) => reply.error(e),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.node(ino) {
            Ok(n) => {
                let st = self.vol.stat(n);
                reply.attr(&ATTR_TTL, &self.attr(&st, st.ino));
            }
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let r = (|| -> Result<Node, Errno> {
            let node = self.node(ino)?;
            let Node::File(id) = node else {
                // zonefs_inode_setattr: a directory takes no write bit and no size.
                if mode.is_some_and(|m| m & 0o222 != 0) || size.is_some() {
                    return Err(Errno::EPERM);
                }
                return Ok(node);
            };
            if let Some(size) = size {
                self.vol.truncate(id, size).map_err(|e| errno(&e))?;
            }
            if uid.is_some() || gid.is_some() {
                self.vol.set_owner(id, uid, gid).map_err(|e| errno(&e))?;
            }
            if let Some(m) = mode {
                self.vol.set_perm(id, m).map_err(|e| errno(&e))?;
            }
            Ok(node)
        })();
        match r {
            Ok(n) => {
                let st = self.vol.stat(n);
                reply.attr(&ATTR_TTL, &self.attr(&st, st.ino));
            }
            Err(e) => reply.error(e),
        }
    }

    fn mknod(&self, _: &Request, _: INodeNo, _: &OsStr, _: u32, _: u32, _: u32, reply: ReplyEntry) {
        reply.error(Errno::EPERM);
    }

    fn mkdir(&self, _: &Request, _: INodeNo, _: &OsStr, _: u32, _: u32, reply: ReplyEntry) {
        reply.error(Errno::EPERM);
    }

    fn unlink(&self, _: &Request, _: INodeNo, _: &OsStr, reply: ReplyEmpty) {
        reply.error(Errno::EPERM);
    }

    fn rmdir(&self, _: &Request, _: INodeNo, _: &OsStr, reply: ReplyEmpty) {
        reply.error(Errno::EPERM);
    }

    fn symlink(&self, _: &Request, _: INodeNo, _: &OsStr, _: &std::path::Path, reply: ReplyEntry) {
        reply.error(Errno::EPERM);
    }

    fn rename(
        &self,
        _: &Request,
        _: INodeNo,
        _: &OsStr,
        _: INodeNo,
        _: &OsStr,
        _: fuser::RenameFlags,
        reply: ReplyEmpty,
    ) {
        reply.error(Errno::EPERM);
    }

    fn link(&self, _: &Request, _: INodeNo, _: INodeNo, _: &OsStr, reply: ReplyEntry) {
        reply.error(Errno::EPERM);
    }

    fn create(&self, _: &Request, _: INodeNo, _: &OsStr, _: u32, _: u32, _: i32, reply: ReplyCreate) {
        reply.error(Errno::EACCES);
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: fuser::OpenFlags, reply: ReplyOpen) {
        let r = self.file(ino).and_then(|id| self.vol.open(id, open_flags(flags.0)).map_err(|e| errno(&e)));
        match r {
            Ok(f) => {
                // FUSE's direct-I/O mode (no page cache for this descriptor), for two zonefs
                // rules FUSE would otherwise break:
                // - FUSE answers a read at or past the size itself, as 0; zonefs fails any read
                //   of an offline file (size 0, no permission bit) with EPERM;
                // - zonefs refuses a shared mapping of a sequential file open for writing
                //   (`zonefs_file_mmap`: EINVAL); in this mode FUSE refuses every shared mapping
                //   (ENODEV). Read-only descriptors keep the page cache and shared read mappings.
                let hidden = self.vol.stat(Node::File(f.file())).mode & 0o777 == 0;
                let seq_writer = f.flags().write && self.vol.layout().file(f.file()).group == Group::Seq;
                let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
                self.open.lock().unwrap_or_else(|e| e.into_inner()).insert(fh, Arc::new(RwLock::new(Some(f))));
                let flags = if hidden || seq_writer { FopenFlags::FOPEN_DIRECT_IO } else { FopenFlags::empty() };
                reply.opened(FileHandle(fh), flags);
            }
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        flags: fuser::OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let r = self.handle(fh).and_then(|f| {
            sync_flags(&f, flags.0);
            let f = f.read().unwrap_or_else(|e| e.into_inner());
            let f = f.as_ref().ok_or(Errno::EBADF)?;
            let mut buf = vec![0u8; size as usize];
            let n = self.vol.read(f, offset, &mut buf).map_err(|e| errno(&e))?;
            buf.truncate(n);
            Ok(buf)
        });
        match r {
            Ok(buf) => reply.data(&buf),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        flags: fuser::OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let r = self.handle(fh).and_then(|f| {
            sync_flags(&f, flags.0);
            let f = f.read().unwrap_or_else(|e| e.into_inner());
            let f = f.as_ref().ok_or(Errno::EBADF)?;
            self.vol.write(f, offset, data).map_err(|e| errno(&e))
        });
        match r {
            Ok(n) => reply.written(n as u32),
            Err(e) => reply.error(e),
        }
    }

    fn flush(&self, _: &Request, _: INodeNo, _: FileHandle, _: LockOwner, reply: ReplyEmpty) {
        reply.ok();
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: fuser::OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        let f = self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&fh.0);
        if let Some(f) = f.and_then(|f| f.write().unwrap_or_else(|e| e.into_inner()).take()) {
            self.vol.release(f);
        }
        reply.ok();
    }

    fn fsync(&self, _req: &Request, _ino: INodeNo, fh: FileHandle, _datasync: bool, reply: ReplyEmpty) {
        let r = self.handle(fh).and_then(|f| {
            let f = f.read().unwrap_or_else(|e| e.into_inner());
            self.vol.fsync(f.as_ref().ok_or(Errno::EBADF)?).map_err(|e| errno(&e))
        });
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn readdir(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, offset: u64, mut reply: ReplyDirectory) {
        let node = match self.node(ino) {
            Ok(n) => n,
            Err(e) => return reply.error(e),
        };
        let entries = match self.vol.readdir(node) {
            Ok(e) => e,
            Err(e) => return reply.error(errno(&e)),
        };
        let own = self.vol.stat(node).ino;
        let parent = self.vol.stat(Node::Root).ino;
        let mut all = vec![(own, FileType::Directory, ".".to_string()), (parent, FileType::Directory, "..".into())];
        for e in entries {
            let kind = if matches!(e.node, Node::File(_)) { FileType::RegularFile } else { FileType::Directory };
            all.push((e.ino, kind, e.name));
        }
        for (i, (ino, kind, name)) in all.into_iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(ino), i as u64 + 1, kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let s = self.vol.statfs();
        reply.statfs(s.blocks, s.bfree, s.bavail, s.files, s.ffree, s.bsize as u32, s.namelen as u32, s.bsize as u32);
    }
}

/// Give the open file the status flags of this request (`fcntl(F_SETFL)` may have changed
/// `O_DIRECT` or `O_APPEND` since the open; FUSE sends the current ones with each read and write).
fn sync_flags(f: &Handle, flags: i32) {
    let want = open_flags(flags);
    let have = f.read().unwrap_or_else(|e| e.into_inner()).as_ref().map(|f| f.flags());
    if have.is_some_and(|h| (h.direct, h.append) != (want.direct, want.append))
        && let Some(f) = f.write().unwrap_or_else(|e| e.into_inner()).as_mut()
    {
        f.set_status_flags(want.direct, want.append);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_flags_follow_the_access_mode_and_status_flags() {
        assert_eq!(open_flags(libc::O_RDONLY), OpenFlags::default());
        let f = open_flags(libc::O_WRONLY | libc::O_DIRECT | libc::O_APPEND);
        assert!(f.write && f.direct && f.append);
        assert!(open_flags(libc::O_RDWR).write);
    }

    #[test]
    fn node_ids_leave_fuse_root_alone() {
        assert_eq!(node_id(Node::Root), 1);
        assert_eq!(node_id(Node::Dir(Group::Cnv)), 2);
        assert_eq!(node_id(Node::Dir(Group::Seq)), 3);
        // cnv/0 of a device with several conventional zones has inode number 1: its node id is not.
        assert_eq!(node_id(Node::File(FileId(0))), 4);
    }
}
