//! [`Volume`]: a mounted zonefs volume over a [`BlockDevice`], with the kernel's file rules.
//!
//! Each file has the kernel's two locks (an inode lock and a truncate mutex): a write checks the
//! rules, goes to the device and moves the file size under its inode lock, so concurrent writes
//! to one file are serialised here, before the block layer's zone write plugging sees them;
//! reads share that lock. Volume-wide state (read-only after `errors=remount-ro`, the open and
//! active counters of `/sys/fs/zonefs/<dev>/`) is atomic.
//!
//! Where the kernel's rules are a list of checks, the code keeps the kernel's order, so that a
//! call breaking two rules fails with the errno the kernel returns.

use crate::error::{FsError, FsResult};
use crate::layout::{FileId, FileLayout, Group, Layout};
use crate::superblock::{Features, SUPER_SIZE, Superblock};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use zonekit_blk::{BlkError, BlockDevice};
use zonekit_core::{Errno, SECTOR_SIZE, Zone, ZoneCond, ZoneOp, ZoneType};

/// `ZONEFS_MAGIC`, the `f_type` of `statfs`.
pub const ZONEFS_MAGIC: u64 = 0x5a4f_4653;
/// `ZONEFS_NAME_MAX`: the longest name a lookup takes.
pub const NAME_MAX: usize = 16;
/// `S_IFDIR`.
pub const S_IFDIR: u32 = 0o040000;
/// `S_IFREG`.
pub const S_IFREG: u32 = 0o100000;

/// What the volume does when an I/O error or a zone condition change hits a file (`errors=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorsPolicy {
    /// `errors=remount-ro` (the default): the whole volume becomes read-only.
    #[default]
    RemountRo,
    /// `errors=zone-ro`: the file becomes read-only.
    ZoneRo,
    /// `errors=zone-offline`: the file becomes unreadable and unwritable, size 0.
    ZoneOffline,
    /// `errors=repair`: the file size is fixed from the zone's write pointer.
    Repair,
}

impl ErrorsPolicy {
    /// The option's value (`remount-ro`, `zone-ro`, `zone-offline`, `repair`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorsPolicy::RemountRo => "remount-ro",
            ErrorsPolicy::ZoneRo => "zone-ro",
            ErrorsPolicy::ZoneOffline => "zone-offline",
            ErrorsPolicy::Repair => "repair",
        }
    }

    /// The policy an option value names.
    pub fn from_name(s: &str) -> Option<ErrorsPolicy> {
        [ErrorsPolicy::RemountRo, ErrorsPolicy::ZoneRo, ErrorsPolicy::ZoneOffline, ErrorsPolicy::Repair]
            .into_iter()
            .find(|p| p.name() == s)
    }
}

/// Mount options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MountOptions {
    /// `errors=`.
    pub errors: ErrorsPolicy,
    /// `explicit-open`: opening a sequential file for writing opens its zone, and fails with
    /// `EBUSY` past the device's open limit.
    pub explicit_open: bool,
    /// Read-only from the start (`-o ro`): no call changes the device, and zones found open are
    /// left open (the kernel closes them at mount; a read-only look at a device should not).
    pub read_only: bool,
}

impl MountOptions {
    /// Parse a `-o` list: `errors=remount-ro|zone-ro|zone-offline|repair` (the last one wins),
    /// `explicit-open`, `ro` and `rw`, comma-separated; anything else is `EINVAL`, as for the kernel's mount.
    pub fn parse(s: &str) -> FsResult<MountOptions> {
        let mut o = MountOptions::default();
        for opt in s.split(',').filter(|x| !x.is_empty()) {
            if opt == "explicit-open" {
                o.explicit_open = true;
            } else if opt == "ro" {
                o.read_only = true;
            } else if opt == "rw" {
                o.read_only = false;
            } else if let Some(p) = opt.strip_prefix("errors=").and_then(ErrorsPolicy::from_name) {
                o.errors = p;
            } else {
                return Err(FsError::refused(Errno::EINVAL, format!("unknown or invalid mount option '{opt}'")));
            }
        }
        Ok(o)
    }
}

/// A node of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    /// The root directory.
    Root,
    /// `cnv/` or `seq/`.
    Dir(Group),
    /// A file.
    File(FileId),
}

/// Directory or regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A directory (`DT_DIR`).
    Dir,
    /// A regular file (`DT_REG`).
    File,
}

impl Node {
    /// Directory or file.
    pub fn kind(self) -> NodeKind {
        match self {
            Node::File(_) => NodeKind::File,
            _ => NodeKind::Dir,
        }
    }
}

/// One entry of a directory listing (`.` and `..` left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// Name.
    pub name: String,
    /// Inode number.
    pub ino: u64,
    /// The node.
    pub node: Node,
}

/// What `stat(2)` says of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VolumeStat {
    /// `st_ino`: the zone index for a file, `nr_zones` for the root, `nr_zones + 1 + ztype` for
    /// a group directory.
    pub ino: u64,
    /// `st_mode`: type and permission bits.
    pub mode: u32,
    /// `st_nlink`.
    pub nlink: u32,
    /// `st_uid`.
    pub uid: u32,
    /// `st_gid`.
    pub gid: u32,
    /// `st_size`: write pointer offset (sequential file), capacity (conventional file), number
    /// of files (group directory), 2 + number of group directories (root).
    pub size: u64,
    /// `st_blocks`: the file's capacity in 512-byte units (the largest size, not what is used).
    pub blocks: u64,
    /// `st_blksize`: the volume's block size (the device's zone write granularity).
    pub blksize: u32,
}

/// What `statfs(2)` says of the volume (`zonefs_statfs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatFs {
    /// `f_type`: [`ZONEFS_MAGIC`].
    pub f_type: u64,
    /// `f_bsize`: the block size.
    pub bsize: u64,
    /// `f_blocks`: the capacity of every file, in blocks.
    pub blocks: u64,
    /// `f_bfree`: `blocks` less the file sizes (conventional files count as full).
    pub bfree: u64,
    /// `f_bavail`: as `bfree`.
    pub bavail: u64,
    /// `f_files`: the files and group directories.
    pub files: u64,
    /// `f_ffree`: 0 (no file can be created).
    pub ffree: u64,
    /// `f_namelen`: [`NAME_MAX`].
    pub namelen: u64,
    /// `f_fsid`: the two halves of the UUID's halves XORed (`uuid_to_fsid`).
    pub fsid: [u32; 2],
}

/// The attributes of `/sys/fs/zonefs/<dev>/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SysfsCounters {
    /// `max_wro_seq_files`: the device's open limit (0: none).
    pub max_wro_seq_files: u32,
    /// `nr_wro_seq_files`: sequential files open for writing.
    pub nr_wro_seq_files: u32,
    /// `max_active_seq_files`: the device's active limit (0: none).
    pub max_active_seq_files: u32,
    /// `nr_active_seq_files`: sequential files whose zone is open or partly written.
    pub nr_active_seq_files: u32,
}

impl SysfsCounters {
    /// The attributes by their sysfs file names, in `ls` order.
    pub fn attributes(&self) -> [(&'static str, u32); 4] {
        [
            ("max_active_seq_files", self.max_active_seq_files),
            ("max_wro_seq_files", self.max_wro_seq_files),
            ("nr_active_seq_files", self.nr_active_seq_files),
            ("nr_wro_seq_files", self.nr_wro_seq_files),
        ]
    }
}

/// How a file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenFlags {
    /// Open for writing (`O_WRONLY` / `O_RDWR`).
    pub write: bool,
    /// `O_DIRECT`: mandatory for writes to sequential files; I/O in whole blocks.
    pub direct: bool,
    /// `O_APPEND`: writes to a sequential file go to its write pointer; `EINVAL` on a
    /// conventional file.
    pub append: bool,
}

/// An open file (a file descriptor); give it back with [`Volume::release`].
#[derive(Debug)]
pub struct OpenFile {
    file: FileId,
    flags: OpenFlags,
}

impl OpenFile {
    /// The file.
    pub fn file(&self) -> FileId {
        self.file
    }

    /// How it was opened.
    pub fn flags(&self) -> OpenFlags {
        self.flags
    }

    /// `fcntl(F_SETFL)`: change `O_DIRECT` and `O_APPEND`; the access mode stays as opened (the
    /// open and active counters depend on it).
    pub fn set_status_flags(&mut self, direct: bool, append: bool) {
        self.flags.direct = direct;
        self.flags.append = append;
    }
}

/// The in-memory inode of a file (`struct zonefs_zone` and the inode fields zonefs uses).
#[derive(Debug, Clone)]
struct FileState {
    /// `i_size`, which is also `z_wpoffset`: writes complete before the call returns.
    size: u64,
    /// Permission bits.
    perm: u32,
    uid: u32,
    gid: u32,
    /// `ZONEFS_ZONE_OPEN`: opened explicitly by the volume (`explicit-open`).
    open: bool,
    /// `ZONEFS_ZONE_ACTIVE`: counted in `nr_active_seq_files`.
    active: bool,
    /// `ZONEFS_ZONE_READONLY`.
    readonly: bool,
    /// `ZONEFS_ZONE_OFFLINE`.
    offline: bool,
    /// Open file descriptors that write (`i_wr_refcnt`).
    writers: u32,
}

impl FileState {
    /// `S_IMMUTABLE`.
    fn immutable(&self) -> bool {
        self.readonly || self.offline
    }
}

/// A file's two locks, as the kernel's inode has them: `inode` (`i_rwsem`) is held shared by a
/// read across its device I/O and exclusively by a write or a truncate, so a read never sees a
/// zone being reset or written; `state` (`i_truncate_mutex`) guards the fields.
#[derive(Debug)]
struct FileNode {
    inode: RwLock<()>,
    state: Mutex<FileState>,
}

/// A mounted zonefs volume.
pub struct Volume {
    dev: BlockDevice,
    sb: Superblock,
    layout: Layout,
    opts: MountOptions,
    block_size: u32,
    files: Vec<FileNode>,
    read_only: AtomicBool,
    nr_wro: AtomicU32,
    nr_active: AtomicU32,
    max_wro: u32,
    max_active: u32,
}

impl std::fmt::Debug for Volume {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Volume").field("dev", &self.dev).field("opts", &self.opts).finish_non_exhaustive()
    }
}

/// Every zone of `dev`, in order.
pub(crate) fn report_all(dev: &BlockDevice) -> FsResult<Vec<Zone>> {
    let mut zones = Vec::with_capacity(dev.info().geometry.nr_zones as usize);
    dev.report_zones(0, usize::MAX, &mut zones).map_err(|e| FsError::device("report zones", e))?;
    Ok(zones)
}

/// Size of a file from a zone's report (`zonefs_check_zone_condition`), with the conditions
/// it finds: (size in bytes, read-only, offline). A read-only zone's write pointer is undefined:
/// a sequential file keeps `known` (0 at mount).
fn zone_size_and_flags(file: &FileLayout, zones: &[Zone], known: u64) -> (u64, bool, bool) {
    let cap = file.capacity_bytes();
    let offline = zones.iter().any(|z| z.cond == ZoneCond::Offline);
    let readonly = !offline && zones.iter().any(|z| z.cond == ZoneCond::ReadOnly);
    let size = if offline {
        0
    } else if file.group == Group::Cnv {
        cap
    } else {
        let z = &zones[0];
        match z.cond {
            ZoneCond::ReadOnly => known,
            ZoneCond::Full => cap,
            _ => z.wp.saturating_sub(z.start).min(z.capacity) * SECTOR_SIZE,
        }
    };
    (size, readonly, offline)
}

impl Volume {
    /// Mount the volume on `dev` (`zonefs_fill_super`): read and check the superblock, report
    /// every zone, build the tree, and close the sequential zones found open (a zone opened but
    /// not written is reset instead, so it does not stay active). Zones read-only or offline at
    /// mount make files of size 0 with no permission bits, which no call may change.
    pub fn mount(dev: BlockDevice, opts: MountOptions) -> FsResult<Volume> {
        let mut buf = vec![0u8; SUPER_SIZE];
        dev.read(0, &mut buf).map_err(|e| FsError::device("reading the superblock", e))?;
        let sb = Superblock::parse(&buf)?;
        let limits = dev.limits();
        let (max_wro, max_active) = (limits.max_open_zones, limits.max_active_zones);
        let mut opts = opts;
        // "No open and active zone limits. Ignoring explicit_open mount option".
        if max_wro == 0 && max_active == 0 {
            opts.explicit_open = false;
        }
        let block_size =
            if limits.zone_write_granularity > 0 { limits.zone_write_granularity } else { limits.logical_block_size };
        let zones = report_all(&dev)?;
        let layout = Layout::new(&zones, sb.features.contains(Features::AGGR_CNV))
            .map_err(|m| FsError::Unsuitable { errno: Errno::EIO, message: m })?;
        let mut files = Vec::with_capacity(layout.files.len());
        let mut nr_active = 0;
        for f in &layout.files {
            let fz = &zones[f.first_zone as usize..(f.first_zone + f.nr_zones) as usize];
            if f.group == Group::Seq && fz[0].cond.is_open() && !opts.read_only {
                let z = &fz[0];
                let op = if z.wp == z.start { ZoneOp::Reset } else { ZoneOp::Close };
                dev.zone_mgmt(op, z.start, z.len)
                    .map_err(|e| FsError::device(format!("{} zone at sector {}", op.name(), z.start), e))?;
            }
            let (size, readonly, offline) = zone_size_and_flags(f, fz, 0);
            let mut perm = sb.file_perm();
            if readonly || offline {
                // ZONEFS_ZONE_INIT_MODE: a zone found read-only at mount has an undefined write
                // pointer, so it is hidden as an offline one is.
                perm &= !0o777;
            }
            let active = f.group == Group::Seq && !readonly && !offline && size > 0 && size < f.capacity_bytes();
            nr_active += u32::from(active);
            files.push(FileNode {
                inode: RwLock::new(()),
                state: Mutex::new(FileState {
                    size,
                    perm,
                    uid: sb.file_uid(),
                    gid: sb.file_gid(),
                    open: false,
                    active,
                    readonly,
                    offline,
                    writers: 0,
                }),
            });
        }
        Ok(Volume {
            dev,
            sb,
            layout,
            opts,
            block_size,
            files,
            read_only: AtomicBool::new(opts.read_only),
            nr_wro: AtomicU32::new(0),
            nr_active: AtomicU32::new(nr_active),
            max_wro,
            max_active,
        })
    }

    /// Flush the device and give it back (still open: close it with [`BlockDevice::close`] so
    /// that a persistent device records its zones, or mount it again).
    pub fn unmount(self) -> FsResult<BlockDevice> {
        self.dev.flush().map_err(|e| FsError::device("flush", e))?;
        Ok(self.dev)
    }

    /// The device underneath.
    pub fn device(&self) -> &BlockDevice {
        &self.dev
    }

    /// The superblock read at mount.
    pub fn superblock(&self) -> &Superblock {
        &self.sb
    }

    /// The file tree.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The mount options in force (`explicit-open` is dropped on a device with no limits).
    pub fn options(&self) -> MountOptions {
        self.opts
    }

    /// The block size (`st_blksize`, `f_bsize`, the alignment of direct I/O).
    pub fn block_size(&self) -> u32 {
        self.block_size
    }

    /// Whether the volume is read-only (after an error with `errors=remount-ro`).
    pub fn is_read_only(&self) -> bool {
        self.read_only.load(Ordering::SeqCst)
    }

    fn state(&self, id: FileId) -> MutexGuard<'_, FileState> {
        self.files[id.0].state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The file's inode lock, shared (reads).
    fn inode_shared(&self, id: FileId) -> RwLockReadGuard<'_, ()> {
        self.files[id.0].inode.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The file's inode lock, exclusive (writes, truncates).
    fn inode_exclusive(&self, id: FileId) -> RwLockWriteGuard<'_, ()> {
        self.files[id.0].inode.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The node `name` in directory `parent` (`zonefs_lookup`): `ENAMETOOLONG` past
    /// [`NAME_MAX`] bytes, `ENOENT` for anything that is not there, `ENOTDIR` under a file.
    pub fn lookup(&self, parent: Node, name: &str) -> FsResult<Node> {
        if name.len() > NAME_MAX {
            return Err(FsError::refused(Errno::ENAMETOOLONG, format!("{name}: file name too long")));
        }
        let missing = || FsError::refused(Errno::ENOENT, format!("{name}: no such file or directory"));
        match parent {
            Node::Root => match Group::from_name(name) {
                Some(g) if self.layout.group_len(g) > 0 => Ok(Node::Dir(g)),
                _ => Err(missing()),
            },
            Node::Dir(g) => self.layout.lookup(g, name).map(Node::File).ok_or_else(missing),
            Node::File(_) => Err(FsError::refused(Errno::ENOTDIR, format!("{name}: not a directory"))),
        }
    }

    /// The node at `path` (`/`, `seq`, `/seq/3`, …; empty and `.` components are skipped, `..`
    /// goes up as a path walk does).
    pub fn lookup_path(&self, path: &str) -> FsResult<Node> {
        let mut node = Node::Root;
        for c in path.split('/').filter(|c| !c.is_empty() && *c != ".") {
            if c == ".." && node != Node::Root {
                if let Node::File(_) = node {
                    return Err(FsError::refused(Errno::ENOTDIR, format!("{path}: {}", errno_text(Errno::ENOTDIR))));
                }
                node = Node::Root;
                continue;
            }
            if c == ".." {
                continue;
            }
            node = self.lookup(node, c).map_err(|e| match e {
                FsError::Refused { errno, .. } => FsError::refused(errno, format!("{path}: {}", errno_text(errno))),
                e => e,
            })?;
        }
        Ok(node)
    }

    /// The entries of a directory in `readdir` order (`.` and `..` left out): `cnv`, `seq` in
    /// the root; files in index order in a group. `ENOTDIR` for a file.
    pub fn readdir(&self, node: Node) -> FsResult<Vec<DirEntry>> {
        match node {
            Node::Root => Ok(self
                .layout
                .groups()
                .into_iter()
                .map(|g| DirEntry { name: g.name().into(), ino: self.layout.group_ino(g), node: Node::Dir(g) })
                .collect()),
            Node::Dir(g) => Ok(self
                .layout
                .group(g)
                .map(|(id, f)| DirEntry { name: f.name(), ino: f.ino(), node: Node::File(id) })
                .collect()),
            Node::File(_) => Err(FsError::refused(Errno::ENOTDIR, "not a directory")),
        }
    }

    /// `stat(2)` of a node.
    pub fn stat(&self, node: Node) -> VolumeStat {
        let dir = |ino, nlink, size| VolumeStat {
            ino,
            mode: S_IFDIR | 0o555,
            nlink,
            uid: 0,
            gid: 0,
            size,
            blocks: 0,
            blksize: self.block_size,
        };
        match node {
            Node::Root => {
                let groups = self.layout.groups().len() as u32;
                dir(self.layout.root_ino(), 2 + groups, u64::from(2 + groups))
            }
            Node::Dir(g) => dir(self.layout.group_ino(g), 2, self.layout.group_len(g) as u64),
            Node::File(id) => {
                let f = self.layout.file(id);
                let st = self.state(id);
                VolumeStat {
                    ino: f.ino(),
                    mode: S_IFREG | st.perm,
                    nlink: 1,
                    uid: st.uid,
                    gid: st.gid,
                    size: st.size,
                    blocks: f.capacity,
                    blksize: self.block_size,
                }
            }
        }
    }

    /// `statfs(2)` (`zonefs_statfs`).
    pub fn statfs(&self) -> StatFs {
        let bs = u64::from(self.block_size);
        let mut blocks = 0;
        let mut used = 0;
        for (i, f) in self.layout.files.iter().enumerate() {
            blocks += f.capacity_bytes() / bs;
            used += self.state(FileId(i)).size / bs;
        }
        let files = self.layout.groups().iter().map(|&g| self.layout.group_len(g) as u64 + 1).sum();
        let u = &self.sb.uuid;
        let half = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let folded = half(&u[..8]) ^ half(&u[8..]);
        let bfree = blocks.saturating_sub(used);
        StatFs {
            f_type: ZONEFS_MAGIC,
            bsize: bs,
            blocks,
            bfree,
            bavail: bfree,
            files,
            ffree: 0,
            namelen: NAME_MAX as u64,
            fsid: [folded as u32, (folded >> 32) as u32],
        }
    }

    /// The counters of `/sys/fs/zonefs/<dev>/`.
    pub fn sysfs(&self) -> SysfsCounters {
        SysfsCounters {
            max_wro_seq_files: self.max_wro,
            nr_wro_seq_files: self.nr_wro.load(Ordering::SeqCst),
            max_active_seq_files: self.max_active,
            nr_active_seq_files: self.nr_active.load(Ordering::SeqCst),
        }
    }

    /// A zone management command on the file's zone(s): a close of a zone not written becomes
    /// a reset (`zonefs_inode_zone_mgmt`), so an opened but unwritten zone does not stay active.
    fn zone_mgmt(&self, f: &FileLayout, st: &FileState, op: ZoneOp) -> FsResult<()> {
        let op = if op == ZoneOp::Close && st.size == 0 { ZoneOp::Reset } else { op };
        self.dev
            .zone_mgmt(op, f.start, f.len)
            .map_err(|e| FsError::device(format!("zone management operation {} at sector {}", op.name(), f.start), e))
    }

    /// A new size (`zonefs_i_size_write`): a full file's zone is neither open nor active any
    /// more, so the last writer does not close it.
    fn set_size(&self, f: &FileLayout, st: &mut FileState, size: u64) {
        st.size = size;
        if size >= f.capacity_bytes() {
            st.open = false;
        }
        self.account_active(f, st);
    }

    /// `zonefs_inode_account_active`: a sequential file is active when its zone was opened
    /// explicitly or is partly written, and neither read-only nor offline.
    fn account_active(&self, f: &FileLayout, st: &mut FileState) {
        if f.group != Group::Seq {
            return;
        }
        let active = !st.immutable() && (st.open || (st.size > 0 && st.size < f.capacity_bytes()));
        if active != st.active {
            st.active = active;
            if active {
                self.nr_active.fetch_add(1, Ordering::SeqCst);
            } else {
                self.nr_active.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    /// Error recovery (`__zonefs_io_error` and `zonefs_io_error_cb`): report the file's zone(s)
    /// again and apply the `errors=` policy. An offline zone, or `zone-offline`, makes the file
    /// offline (size 0, no permission bits); a read-only zone, or `zone-ro`, makes it read-only
    /// (size kept, write bits cleared); `remount-ro` keeps a size the device's write pointer
    /// went beyond and makes the volume read-only; otherwise (`repair`) the size becomes the
    /// write pointer's offset. A read error with a good zone and the right size changes nothing.
    fn io_error(&self, id: FileId, st: &mut FileState, write: bool) {
        let f = self.layout.file(id);
        let mut zones = Vec::new();
        let r = self.dev.report_zones(f.start, f.nr_zones as usize, &mut zones);
        if r.is_err() || zones.len() != f.nr_zones as usize {
            // "Get inode zone information failed": nothing is known, so nothing may be written.
            self.read_only.store(true, Ordering::SeqCst);
            return;
        }
        let (mut data_size, readonly, offline) = zone_size_and_flags(f, &zones, st.size);
        st.readonly |= readonly;
        st.offline |= offline;
        if !st.immutable() && !write && st.size == data_size {
            return;
        }
        if st.offline || self.opts.errors == ErrorsPolicy::ZoneOffline {
            st.offline = true;
            st.perm &= !0o777;
            data_size = 0;
        } else if st.readonly || self.opts.errors == ErrorsPolicy::ZoneRo {
            st.readonly = true;
            st.perm &= !0o222;
            data_size = st.size;
        } else if self.opts.errors == ErrorsPolicy::RemountRo && data_size > st.size {
            // Do not expose what was written behind the file system's back.
            data_size = st.size;
        }
        if st.immutable() {
            st.open = false;
        }
        if self.opts.errors == ErrorsPolicy::RemountRo {
            self.read_only.store(true, Ordering::SeqCst);
        }
        self.set_size(f, st, data_size);
    }

    /// `open(2)` of a file. Opening for writing fails with `EROFS` on a read-only volume and
    /// `EPERM` on a read-only or offline file. The first writer of a sequential file counts in
    /// `nr_wro_seq_files`; with `explicit-open` it fails with `EBUSY` past the device's open
    /// limit, and opens the zone unless the file is full.
    pub fn open(&self, id: FileId, flags: OpenFlags) -> FsResult<OpenFile> {
        let f = self.layout.file(id);
        let mut st = self.state(id);
        if flags.write {
            if self.is_read_only() {
                return Err(FsError::refused(Errno::EROFS, "read-only file system"));
            }
            if st.immutable() {
                return Err(FsError::refused(Errno::EPERM, "the file's zone is read-only or offline"));
            }
        }
        if flags.write && f.group == Group::Seq {
            if st.writers == 0 {
                let wro = self.nr_wro.fetch_add(1, Ordering::SeqCst) + 1;
                if self.opts.explicit_open {
                    if self.max_wro != 0 && wro > self.max_wro {
                        self.nr_wro.fetch_sub(1, Ordering::SeqCst);
                        return Err(FsError::refused(
                            Errno::EBUSY,
                            format!("{} sequential files open for writing: the device's open limit", self.max_wro),
                        ));
                    }
                    if st.size < f.capacity_bytes() {
                        if let Err(e) = self.zone_mgmt(f, &st, ZoneOp::Open) {
                            self.nr_wro.fetch_sub(1, Ordering::SeqCst);
                            return Err(e);
                        }
                        st.open = true;
                        self.account_active(f, &mut st);
                    }
                }
            }
            st.writers += 1;
        }
        Ok(OpenFile { file: id, flags })
    }

    /// `close(2)`: never fails. The last writer of a sequential file leaves
    /// `nr_wro_seq_files`; with `explicit-open` its zone, if still open, is closed (reset if not
    /// written). A close that fails runs error recovery and, if the zone stays open, makes the
    /// volume read-only (open zones left behind would exhaust the device's resources); the file
    /// then stays counted in `nr_wro_seq_files`, as in the kernel.
    pub fn release(&self, file: OpenFile) {
        let f = self.layout.file(file.file);
        if !(file.flags.write && f.group == Group::Seq) {
            return;
        }
        let mut st = self.state(file.file);
        st.writers = st.writers.saturating_sub(1);
        if st.writers > 0 {
            return;
        }
        if st.open {
            if self.zone_mgmt(f, &st, ZoneOp::Close).is_err() {
                self.io_error(file.file, &mut st, false);
                if st.open {
                    self.read_only.store(true, Ordering::SeqCst);
                }
                // As zonefs_seq_file_write_close: the file stays counted in nr_wro_seq_files.
                return;
            }
            st.open = false;
            self.account_active(f, &mut st);
        }
        self.nr_wro.fetch_sub(1, Ordering::SeqCst);
    }

    /// `pread(2)`: the number of bytes read, short at the end of the file, 0 at or past it.
    /// `EPERM` for an offline file; with `O_DIRECT`, `EINVAL` unless offset and length (cut at
    /// the file size) are whole blocks. A device error runs error recovery.
    pub fn read(&self, file: &OpenFile, offset: u64, buf: &mut [u8]) -> FsResult<usize> {
        let id = file.file;
        let f = self.layout.file(id);
        let _inode = self.inode_shared(id);
        let size = {
            let st = self.state(id);
            if st.immutable() && st.perm & 0o777 == 0 {
                return Err(FsError::refused(
                    Errno::EPERM,
                    "the file is offline (its zone is offline, or was read-only at mount)",
                ));
            }
            st.size
        };
        if offset >= f.capacity_bytes() || offset >= size {
            return Ok(0);
        }
        let n = buf.len().min((size - offset) as usize);
        if file.flags.direct && (offset | n as u64) & (u64::from(self.block_size) - 1) != 0 {
            return Err(FsError::refused(
                Errno::EINVAL,
                format!("direct read of {n} bytes at {offset}: not in whole {}-byte blocks", self.block_size),
            ));
        }
        if n == 0 {
            return Ok(0);
        }
        let at = f.start * SECTOR_SIZE + offset;
        if let Err(e) = self.read_bytes(at, &mut buf[..n]) {
            let mut st = self.state(id);
            self.io_error(id, &mut st, false);
            return Err(FsError::device(format!("read at {offset}"), e));
        }
        Ok(n)
    }

    /// `pwrite(2)`, with the kernel's checks in its order (`zonefs_file_write_iter`):
    /// `EPERM` (read-only or offline file), `EROFS` (read-only volume), `EFBIG` (at or past the
    /// capacity), `EIO` (a sequential file not opened with `O_DIRECT`), 0 for nothing to write,
    /// `EINVAL` (`O_APPEND` on a conventional file), then for `O_APPEND` the offset becomes the
    /// write pointer's; the length is cut at the capacity (a short write); `EINVAL` for a direct
    /// write not in whole blocks or a sequential write not at the write pointer. A device error
    /// runs error recovery and fails the call with the device's errno.
    pub fn write(&self, file: &OpenFile, offset: u64, data: &[u8]) -> FsResult<usize> {
        if !file.flags.write {
            return Err(FsError::refused(Errno::EBADF, "file not open for writing"));
        }
        let id = file.file;
        let f = self.layout.file(id);
        let seq = f.group == Group::Seq;
        let cap = f.capacity_bytes();
        let _inode = self.inode_exclusive(id);
        let mut st = self.state(id);
        if st.immutable() {
            return Err(FsError::refused(Errno::EPERM, "the file's zone is read-only or offline"));
        }
        if self.is_read_only() {
            return Err(FsError::refused(Errno::EROFS, "read-only file system"));
        }
        let efbig = |pos: u64| {
            FsError::refused(Errno::EFBIG, format!("write at {pos}: at or past the file's capacity ({cap} bytes)"))
        };
        if offset >= cap {
            return Err(efbig(offset));
        }
        if seq && !file.flags.direct {
            return Err(FsError::refused(Errno::EIO, "buffered write to a sequential file (O_DIRECT is needed)"));
        }
        if data.is_empty() {
            return Ok(0);
        }
        let mut pos = offset;
        if file.flags.append {
            if !seq {
                return Err(FsError::refused(Errno::EINVAL, "O_APPEND on a conventional file"));
            }
            pos = st.size;
        }
        if pos >= cap {
            return Err(efbig(pos));
        }
        let n = data.len().min((cap - pos) as usize);
        let bs = u64::from(self.block_size);
        if file.flags.direct && (pos | n as u64) & (bs - 1) != 0 {
            return Err(FsError::refused(
                Errno::EINVAL,
                format!("direct write of {n} bytes at {pos}: not in whole {bs}-byte blocks"),
            ));
        }
        if seq && pos != st.size {
            return Err(FsError::refused(
                Errno::EINVAL,
                format!("write at {pos}: not at the write pointer (file size {})", st.size),
            ));
        }
        let at = f.start * SECTOR_SIZE + pos;
        let r = if seq { self.dev.write(at, &data[..n]).map(|_| ()) } else { self.write_bytes(at, &data[..n]) };
        if let Err(e) = r {
            self.io_error(id, &mut st, true);
            return Err(FsError::device(format!("write of {n} bytes at {pos}"), e));
        }
        if seq {
            self.set_size(f, &mut st, pos + n as u64);
        }
        Ok(n)
    }

    /// `truncate(2)` (`zonefs_file_truncate`): `EROFS` on a read-only volume, `EPERM` for a
    /// read-only or offline file, a conventional file, or a size other than 0 (reset the zone)
    /// or the capacity (finish it). The current size is a no-op. With `explicit-open`, a reset
    /// zone is opened again and a finished one is no longer open.
    pub fn truncate(&self, id: FileId, size: u64) -> FsResult<()> {
        if self.is_read_only() {
            return Err(FsError::refused(Errno::EROFS, "read-only file system"));
        }
        let f = self.layout.file(id);
        let _inode = self.inode_exclusive(id);
        let mut st = self.state(id);
        if st.immutable() {
            return Err(FsError::refused(Errno::EPERM, "the file's zone is read-only or offline"));
        }
        if f.group != Group::Seq {
            return Err(FsError::refused(Errno::EPERM, "a conventional file cannot be truncated"));
        }
        let op = if size == 0 {
            ZoneOp::Reset
        } else if size == f.capacity_bytes() {
            ZoneOp::Finish
        } else {
            return Err(FsError::refused(
                Errno::EPERM,
                format!("truncate to {size}: only to 0 or to the capacity ({} bytes)", f.capacity_bytes()),
            ));
        };
        if size == st.size {
            return Ok(());
        }
        self.zone_mgmt(f, &st, op)?;
        if st.open {
            if size == 0 {
                self.dev
                    .zone_mgmt(ZoneOp::Open, f.start, f.len)
                    .map_err(|e| FsError::device(format!("zone management operation open at sector {}", f.start), e))?;
            } else {
                st.open = false;
            }
        }
        st.size = size;
        self.account_active(f, &mut st);
        Ok(())
    }

    /// `fsync(2)` (`zonefs_file_fsync`): `EPERM` for a read-only or offline file; otherwise the
    /// device's flush (writes reach the device before the call returns, so there is no page
    /// cache to write back). A failed flush runs error recovery.
    pub fn fsync(&self, file: &OpenFile) -> FsResult<()> {
        let id = file.file;
        let mut st = self.state(id);
        if st.immutable() {
            return Err(FsError::refused(Errno::EPERM, "the file's zone is read-only or offline"));
        }
        if let Err(e) = self.dev.flush() {
            self.io_error(id, &mut st, true);
            return Err(FsError::device("flush", e));
        }
        Ok(())
    }

    /// `chmod(2)` of a file: the permission bits, kept until unmount (`EPERM` for a read-only
    /// or offline file, `EROFS` on a read-only volume).
    pub fn set_perm(&self, id: FileId, perm: u32) -> FsResult<()> {
        self.setattr(id, |st| st.perm = perm & 0o7777)
    }

    /// `chown(2)` of a file, kept until unmount (errors as [`Volume::set_perm`]).
    pub fn set_owner(&self, id: FileId, uid: Option<u32>, gid: Option<u32>) -> FsResult<()> {
        self.setattr(id, |st| {
            st.uid = uid.unwrap_or(st.uid);
            st.gid = gid.unwrap_or(st.gid);
        })
    }

    fn setattr(&self, id: FileId, f: impl FnOnce(&mut FileState)) -> FsResult<()> {
        if self.is_read_only() {
            return Err(FsError::refused(Errno::EROFS, "read-only file system"));
        }
        let mut st = self.state(id);
        if st.immutable() {
            return Err(FsError::refused(Errno::EPERM, "the file's zone is read-only or offline"));
        }
        f(&mut st);
        Ok(())
    }

    /// Read bytes at any byte offset, through whole logical blocks.
    fn read_bytes(&self, at: u64, buf: &mut [u8]) -> Result<(), BlkError> {
        let lbs = u64::from(self.dev.limits().logical_block_size);
        let end = at + buf.len() as u64;
        if at.is_multiple_of(lbs) && end.is_multiple_of(lbs) {
            self.dev.read(at, buf)?;
            return Ok(());
        }
        let (a, b) = (at / lbs * lbs, end.div_ceil(lbs) * lbs);
        let mut tmp = vec![0u8; (b - a) as usize];
        self.dev.read(a, &mut tmp)?;
        let from = (at - a) as usize;
        buf.copy_from_slice(&tmp[from..from + buf.len()]);
        Ok(())
    }

    /// Write bytes at any byte offset of a conventional zone: the partial blocks at either end
    /// are read, merged and written back (what the page cache does for a buffered write).
    fn write_bytes(&self, at: u64, data: &[u8]) -> Result<(), BlkError> {
        let lbs = u64::from(self.dev.limits().logical_block_size);
        let end = at + data.len() as u64;
        if at.is_multiple_of(lbs) && end.is_multiple_of(lbs) {
            self.dev.write(at, data)?;
            return Ok(());
        }
        let (a, b) = (at / lbs * lbs, end.div_ceil(lbs) * lbs);
        let mut tmp = vec![0u8; (b - a) as usize];
        let last = tmp.len() - lbs as usize;
        self.dev.read(a, &mut tmp[..lbs as usize])?;
        if last > 0 {
            self.dev.read(b - lbs, &mut tmp[last..])?;
        }
        let from = (at - a) as usize;
        tmp[from..from + data.len()].copy_from_slice(data);
        self.dev.write(a, &tmp)?;
        Ok(())
    }
}

/// The kernel's text for the errnos a lookup gives.
fn errno_text(e: Errno) -> &'static str {
    e.description().unwrap_or("error")
}

/// Whether zone `z` holds a file-system block in zone 0 (the superblock zone), for mkfs.
pub(crate) fn is_sequential(z: &Zone) -> bool {
    z.zone_type != ZoneType::Conventional
}
