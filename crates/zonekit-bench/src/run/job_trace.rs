//! One job's trace lines (`--debug=file,io,mem,random,verify,zbd,rate,process`), printed on the
//! job's thread where fio's job prints them: its I/O units and buffers allocated and freed, each
//! file's life as fio leads it (opened at its first I/O, referenced by every I/O in flight,
//! closed at the end), and every I/O's steps (`fill`, `prep`, `queue`, `complete`).
//!
//! zonekit opens a job's files before its first I/O and keeps its own slots and buffers: the
//! lines follow fio's model of them (its file flags and reference counts, its I/O units), fed by
//! what the job does. Where fio prints an address (`%p`), zonekit prints its identifier of the
//! object ([`zk_ptr`]).

use crate::debug::{Class, Tracer, zk_ptr};
use crate::dprint;
use crate::options::job::JobOptions;
use crate::run::sizing::PlannedFile;
use crate::workload::{Dir, NextIo};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// fio's file flags (`enum fio_file_flags`).
const OPEN: u32 = 1;
const CLOSING: u32 = 1 << 1;
const DONE: u32 = 1 << 3;
const SIZE_KNOWN: u32 = 1 << 4;
const HASHED: u32 = 1 << 5;
const AXMAP: u32 = 1 << 7;
const LFSR: u32 = 1 << 8;
const SMALLOC: u32 = 1 << 9;

/// The files every job of a run has open, by name, and how many jobs hold each (fio's file
/// hash, shared by its job processes).
pub(crate) type FileHash = Arc<Mutex<HashMap<String, u32>>>;

#[derive(Debug, Clone)]
struct FioFile {
    name: String,
    flags: u32,
    refs: i32,
    offset: u64,
    io_size: u64,
    is_block: bool,
}

/// How fio picks the next file (`file_service_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Service {
    RoundRobin,
    Sequential,
    Random,
}

/// fio's direction numbers (`enum fio_ddir`).
fn ddir(d: Dir) -> u32 {
    match d {
        Dir::Read => 0,
        Dir::Write => 1,
        Dir::Trim => 2,
        Dir::Sync => 3,
        Dir::DataSync => 4,
        Dir::SyncFileRange => 5,
    }
}

/// fio's allocation of a job's buffer area, as its `mem` class traces it.
#[derive(Debug, Clone)]
struct MemTrace {
    /// `mem=`: `malloc`, `shm`, `shmhuge`, `mmap`, `mmapshared`, `mmaphuge`.
    kind: String,
    /// `mmap…:FILE`.
    file: bool,
    /// The size asked of `shmget` / `mmap` (rounded up to the huge page size).
    alloc: u64,
    /// The size fio's `munmap` line names.
    freed: u64,
    /// Where the first unit's buffer starts in the area (`iomem_align`).
    first: u64,
}

/// One job's trace state.
#[derive(Debug, Clone)]
pub(crate) struct JobTrace {
    pub(crate) t: Tracer,
    /// The classes traced on every I/O.
    pub(crate) io: bool,
    pub(crate) file: bool,
    pub(crate) random: bool,
    pub(crate) verify: bool,
    pub(crate) zbd: bool,
    pub(crate) rate: bool,
    /// The job's `thread_number`, in the identifiers.
    tn: u32,
    files: Vec<FioFile>,
    next_file: usize,
    cur: Option<usize>,
    left: u32,
    service: Service,
    service_nr: u32,
    nr_done: u32,
    /// fio's `FIO_DISKLESSIO` engines: no file is opened, hashed or invalidated.
    diskless: bool,
    invalidate: bool,
    direct: bool,
    engine: String,
    /// The engine has a `prep` step of its own (fio prints its result).
    engine_prep: bool,
    /// Lines of the I/O being placed (its random draw, its zone), printed after the file's.
    pending: Vec<(Class, String)>,
    /// Passes over the files after the first.
    pub(crate) passes: u32,
    /// Lines fio prints as it opens each file (its zones reset), printed at its first open.
    on_open: Vec<Vec<(Class, String)>>,
    hash: FileHash,
    /// The buffer area: its size and each unit's share.
    buf_total: u64,
    /// How fio allocates it (`mem=`).
    mem: MemTrace,
    max_bs: u64,
    depth: u32,
    data_xfer: bool,
}

impl JobTrace {
    /// The trace of a job (`thread_number` `tn`) with `files`, of which those `known` had a size
    /// before the job's setup laid them out; `hash` is the run's.
    pub(crate) fn new(
        t: Tracer,
        opts: &JobOptions,
        tn: u32,
        files: &[PlannedFile],
        known: &[bool],
        hash: FileHash,
    ) -> JobTrace {
        let diskless = crate::run::sizing::diskless(opts);
        let nofilehash = crate::run::sizing::file_ops(opts);
        let random_map = opts.rw.is_random() && !opts.norandommap;
        let lfsr = opts.random_generator == "lfsr";
        let nfiles = files.len();
        let files: Vec<FioFile> = files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut flags = if nofilehash { 0 } else { SMALLOC };
                if known.get(i).copied().unwrap_or(false) {
                    flags |= SIZE_KNOWN;
                }
                if random_map {
                    flags |= if lfsr { LFSR } else { AXMAP };
                }
                FioFile {
                    name: f.path.display().to_string(),
                    flags,
                    refs: 0,
                    offset: f.range.offset,
                    io_size: f.range.len,
                    is_block: f.is_block,
                }
            })
            .collect();
        let service = match opts.file_service_type.split(':').next().unwrap_or("") {
            "sequential" => Service::Sequential,
            "random" | "zipf" | "pareto" | "normal" | "gauss" => Service::Random,
            _ => Service::RoundRobin,
        };
        let service_nr =
            opts.file_service_type.split_once(':').and_then(|(_, n)| n.trim().parse::<u32>().ok()).unwrap_or(1).max(1);
        let depth = opts.iodepth.max(1);
        let max_bs = crate::run::sizing::max_block_size(opts);
        let direct = opts.direct || opts.atomic;
        let rawio = matches!(opts.ioengine.as_str(), "sg" | "libzbc" | "io_uring_cmd");
        let memalign = matches!(opts.ioengine.as_str(), "io_uring_cmd");
        // fio's buffer area (init_io_u_buffers, allocate_io_mem): a page more for each
        // alignment it may need, `iomem_align` more, rounded up to the huge page size for the
        // huge page kinds.
        let mem_align = u64::from(opts.iomem_align);
        let aligned = direct || rawio || mem_align > 0;
        let mut orig = max_bs * u64::from(depth);
        if aligned {
            orig += 4095 + mem_align;
        }
        let huge = matches!(opts.mem.as_str(), "shmhuge" | "mmaphuge") && opts.hugepage_size > 0;
        if huge {
            orig = orig.next_multiple_of(opts.hugepage_size);
        }
        let mut total = orig;
        if direct || memalign || mem_align > 0 {
            total += 4095;
            total += mem_align.saturating_sub(4096);
        }
        let freed = if direct { orig + 4095 } else { orig };
        let mem = MemTrace {
            kind: opts.mem.clone(),
            file: opts.mmapfile.is_some(),
            alloc: if huge { total.next_multiple_of(opts.hugepage_size) } else { total },
            freed,
            first: if aligned { mem_align } else { 0 },
        };
        let noio = matches!(opts.ioengine.as_str(), "cpuio" | "exec");
        JobTrace {
            io: t.on(Class::Io),
            file: t.on(Class::File),
            random: t.on(Class::Random),
            verify: t.on(Class::Verify),
            zbd: t.on(Class::Zbd),
            rate: t.on(Class::Rate),
            t,
            tn,
            files,
            next_file: 0,
            cur: None,
            left: 0,
            service,
            service_nr,
            nr_done: 0,
            diskless,
            invalidate: opts.invalidate,
            direct,
            engine: opts.ioengine.clone(),
            engine_prep: matches!(
                opts.ioengine.as_str(),
                "libaio" | "io_uring" | "mmap" | "net" | "netsplice" | "posixaio" | "sg" | "sync"
            ),
            pending: Vec::new(),
            on_open: vec![Vec::new(); nfiles],
            passes: 0,
            hash,
            buf_total: total,
            mem,
            max_bs,
            depth,
            data_xfer: !noio && (opts.rw.reads() || opts.rw.writes()),
        }
    }

    /// fio's `loop_cache_invalidate` as a time-based job wraps around file `k`.
    pub(crate) fn loop_invalidate(&mut self, k: usize) {
        if self.invalidate && !self.direct && !self.diskless && self.files.len() == 1 && k < self.files.len() {
            let f = &self.files[k];
            let line = if f.is_block {
                format!("drop page cache {}", f.name)
            } else {
                format!("declare unneeded cache {}: {}/{}", f.name, f.offset, f.io_size)
            };
            if self.io {
                self.later(Class::Io, line);
            }
        }
    }

    /// Whether any class traced on every I/O is on.
    pub(crate) fn per_io(&self) -> bool {
        self.io || self.file || self.random || self.verify || self.zbd || self.rate
    }

    /// zonekit's identifier of I/O unit `tag`.
    pub(crate) fn io_u(&self, tag: u32) -> String {
        zk_ptr(2, self.tn, u64::from(tag))
    }

    fn file_ptr(&self, k: usize) -> String {
        zk_ptr(1, self.tn, k as u64)
    }

    /// fio's `init_io_u`: the I/O units, the buffer area, each unit's buffer (`mem`).
    pub(crate) fn mem_init(&self) {
        if !self.t.on(Class::Mem) {
            return;
        }
        let t = &self.t;
        for i in 0..self.depth {
            t.print(Class::Mem, &format!("io_u alloc {}, index {i}", self.io_u(i)));
        }
        if self.data_xfer {
            let total = self.buf_total;
            t.print(Class::Mem, &format!("Alloc {total} for buffers"));
            let base = zk_ptr(3, self.tn, 0);
            // zonekit has no segment id or descriptor to show: the job's number, and -1 (an
            // anonymous map) or 0 (a file's), stand for them.
            let m = &self.mem;
            match m.kind.as_str() {
                "shm" | "shmhuge" => {
                    t.print(Class::Mem, &format!("shmget {}, {}", m.alloc, self.tn));
                    t.print(Class::Mem, &format!("shmat {}, {base}", self.tn));
                }
                "mmap" | "mmapshared" | "mmaphuge" => {
                    let fd = if m.file { 0 } else { -1 };
                    t.print(Class::Mem, &format!("mmap {}/{fd} {base}", m.alloc));
                }
                _ => t.print(Class::Mem, &format!("malloc {total} {base}")),
            }
        }
        for i in 0..self.depth {
            t.print(Class::Mem, &format!("io_u alloc {}, index {i}", self.io_u(i)));
            if self.data_xfer {
                let mem = zk_ptr(3, self.tn, self.mem.first + u64::from(i) * self.max_bs);
                t.print(Class::Mem, &format!("io_u {}, mem {mem}", self.io_u(i)));
            }
        }
    }

    /// fio's `cleanup_io_u`: the buffer area freed.
    pub(crate) fn mem_free(&self) {
        if !self.data_xfer {
            return;
        }
        let base = zk_ptr(3, self.tn, 0);
        match self.mem.kind.as_str() {
            "shm" | "shmhuge" => dprint!(self.t, Class::Mem, "shmdt/ctl {} {base}", self.tn),
            "mmap" | "mmapshared" | "mmaphuge" => dprint!(self.t, Class::Mem, "munmap {} {base}", self.mem.freed),
            _ => dprint!(self.t, Class::Mem, "free malloc mem {base}"),
        }
    }

    /// A line of the I/O being placed, printed once its file's lines are (fio draws offsets and
    /// places zones after it has picked the file).
    pub(crate) fn later(&mut self, class: Class, msg: String) {
        self.pending.push((class, msg));
    }

    /// A line fio prints as it opens file `k` (after its file-hash lines).
    pub(crate) fn at_open(&mut self, k: usize, class: Class, msg: String) {
        if let Some(v) = self.on_open.get_mut(k) {
            v.push((class, msg));
        }
    }

    fn flush_pending(&mut self) {
        for (c, m) in std::mem::take(&mut self.pending) {
            self.t.print(c, &m);
        }
    }

    fn get(&mut self, k: usize) {
        let f = &mut self.files[k];
        if self.file {
            self.t.print(Class::File, &format!("get file {}, ref={}", f.name, f.refs));
        }
        f.refs += 1;
    }

    /// fio's `td_io_open_file` of file `k`.
    fn open(&mut self, k: usize) {
        if !self.diskless {
            let name = self.files[k].name.clone();
            dprint!(self.t, Class::File, "fd open {name}");
            let found = match self.hash.lock() {
                Ok(mut h) => {
                    let n = h.entry(name.clone()).or_insert(0);
                    *n += 1;
                    *n > 1
                }
                Err(_) => false,
            };
            if found {
                dprint!(self.t, Class::File, "found file in hash {name}");
            } else {
                dprint!(self.t, Class::File, "file not found in hash {name}");
                if self.files[k].flags & SMALLOC != 0 {
                    self.files[k].flags |= HASHED;
                }
            }
        }
        for (c, m) in std::mem::take(&mut self.on_open[k]) {
            self.t.print(c, &m);
        }
        let f = &mut self.files[k];
        f.flags = (f.flags | OPEN) & !CLOSING;
        self.get(k);
        if !self.diskless && self.invalidate {
            let f = &self.files[k];
            if f.is_block {
                dprint!(self.t, Class::Io, "drop page cache {}", f.name);
            } else {
                dprint!(self.t, Class::Io, "declare unneeded cache {}: {}/{}", f.name, f.offset, f.io_size);
            }
        }
    }

    /// fio's `put_file`: one reference to file `k` dropped; the last closes it.
    fn put(&mut self, k: usize) {
        let f = &mut self.files[k];
        if self.file {
            self.t.print(Class::File, &format!("put file {}, ref={}", f.name, f.refs));
        }
        if f.flags & OPEN == 0 {
            return;
        }
        f.refs -= 1;
        if f.refs > 0 {
            return;
        }
        if !self.diskless {
            dprint!(self.t, Class::File, "fd close {}", f.name);
            if let Ok(mut h) = self.hash.lock()
                && let Some(n) = h.get_mut(&f.name)
            {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    h.remove(&f.name);
                }
            }
        }
        f.flags &= !(OPEN | CLOSING | HASHED);
    }

    /// fio's `get_next_file` and `get_file` for an I/O the job placed in file `k`, then the lines
    /// of its placing.
    pub(crate) fn select(&mut self, k: usize) {
        if k >= self.files.len() {
            self.flush_pending();
            return;
        }
        let fast = self.cur == Some(k)
            && self.files[k].flags & OPEN != 0
            && self.files[k].flags & CLOSING == 0
            && (self.service == Service::Sequential || self.left > 0);
        if fast {
            if self.service != Service::Sequential {
                self.left -= 1;
            }
        } else if self.service == Service::Random {
            if self.files[k].flags & OPEN == 0 {
                self.open(k);
            }
            if self.file {
                let p = self.file_ptr(k);
                self.t.print(Class::File, &format!("get_next_file_rand: {p}"));
            }
            self.cur = Some(k);
            self.left = self.service_nr - 1;
        } else {
            // Round robin from fio's next file up to the one the job placed the I/O in.
            let n = self.files.len();
            let mut c = self.next_file;
            loop {
                let here = c;
                c = (c + 1) % n;
                if self.file {
                    let f = &self.files[here];
                    self.t.print(Class::File, &format!("trying file {} {:x}", f.name, f.flags));
                }
                if here != k {
                    if c == self.next_file {
                        break;
                    }
                    continue;
                }
                if self.files[k].flags & OPEN == 0 {
                    self.open(k);
                }
                if self.file {
                    self.t.print(Class::File, &format!("goodf=1, badf=2, ff={:x}", self.files[k].flags));
                }
                break;
            }
            self.next_file = (k + 1) % n;
            if self.file {
                let p = self.file_ptr(k);
                self.t.print(Class::File, &format!("get_next_file_rr: {p}"));
            }
            self.cur = Some(k);
            self.left = self.service_nr - 1;
        }
        if self.file {
            let p = self.file_ptr(k);
            self.t.print(Class::File, &format!("get_next_file: {p} [{}]", self.files[k].name));
        }
        self.get(k);
        self.flush_pending();
    }

    /// A read of the verify list in file `k` on unit `tag` (fio's `get_next_verify`): the file
    /// opened again if the phase change closed it, referenced, and the unit named.
    pub(crate) fn verify_read(&mut self, k: usize, tag: u32) {
        if k < self.files.len() {
            if self.files[k].flags & OPEN == 0 {
                self.open(k);
            }
            self.get(k);
        }
        dprint!(self.t, Class::Verify, "get_next_verify: ret io_u {}", self.io_u(tag));
    }

    /// The I/O on unit `tag` has completed (or failed to queue): its file's reference dropped.
    pub(crate) fn done(&mut self, k: usize) {
        if k < self.files.len() {
            self.put(k);
        }
    }

    /// The job starts a new pass over its files (fio's next loop of `do_io`); the I/O that
    /// starts it goes to file `k`, on unit `tag`. `file_done`: the pass ended because file `k`
    /// had no more room (`io_size` past the file), which fio finds as it tries it once more;
    /// otherwise its byte budget ended it. fio then closes the files (`clear_io_state`).
    /// `old`: the random lines of the old pass's last try (with its failure mark).
    pub(crate) fn end_pass(&mut self, k: usize, tag: u32, file_done: bool, old: &[String]) {
        self.passes += 1;
        if file_done && k < self.files.len() {
            let pending = std::mem::take(&mut self.pending);
            self.select(k);
            self.pending = pending;
            for l in old {
                match l.strip_prefix(crate::workload::RAND_FAILED) {
                    Some(v) => {
                        let (last, size) = v.split_once(':').unwrap_or((v, ""));
                        let name = &self.files[k].name;
                        dprint!(self.t, Class::Io, "{name}: rand offset failed, last={last}, size={size}");
                    }
                    None => dprint!(self.t, Class::Random, "{l}"),
                }
            }
            dprint!(self.t, Class::Io, "io_u {}, failed getting offset", self.io_u(tag));
            self.put(k);
            self.give_up(k, tag);
        }
        self.close_files(false);
    }

    /// The zone policy found no room for an I/O in file `k` (fio's `io_u_eof`): the file picked,
    /// the lines of the try, the file closed and done.
    pub(crate) fn file_eof(&mut self, k: usize, tag: u32) {
        if k >= self.files.len() {
            return;
        }
        self.select(k);
        self.put(k);
        self.give_up(k, tag);
    }

    /// File `k` closed and done (its I/O unit's reference already dropped); with every file
    /// done, fio finds no file for the unit `tag`.
    fn give_up(&mut self, k: usize, tag: u32) {
        self.files[k].flags |= CLOSING;
        self.put(k);
        self.files[k].flags |= DONE;
        self.nr_done += 1;
        let total = self.files.len();
        if self.file {
            let name = self.files[k].name.clone();
            self.t.print(Class::File, &format!("{name}: is done ({} of {total})", self.nr_done));
        }
        if self.nr_done as usize >= total {
            let open = self.files.iter().filter(|f| f.flags & OPEN != 0).count();
            dprint!(self.t, Class::File, "get_next_file: nr_open={open}, nr_done={}, nr_files={total}", self.nr_done);
            dprint!(self.t, Class::Io, "io_u {}, setting file failed", self.io_u(tag));
            dprint!(self.t, Class::Io, "get_io_u failed");
        }
    }

    /// fio's `close_files` (`announce`: `close_and_free_files`, at the job's end, which says so
    /// first): every open file's last reference dropped.
    pub(crate) fn close_files(&mut self, announce: bool) {
        if announce {
            dprint!(self.t, Class::File, "close files");
        }
        for k in 0..self.files.len() {
            if self.files[k].flags & OPEN != 0 {
                self.files[k].flags |= CLOSING;
                self.put(k);
            }
            self.files[k].flags &= !DONE;
        }
        self.nr_done = 0;
        self.cur = None;
    }

    /// fio's `dprint_io_u`: `WHAT: io_u P: off=…,len=…,ddir=…,file=…`.
    pub(crate) fn io_line(&self, what: &str, tag: u32, io: &NextIo) {
        if !self.io {
            return;
        }
        let file = self.files.get(io.file).map_or("", |f| f.name.as_str());
        self.t.print(
            Class::Io,
            &format!(
                "{what}: io_u {}: off=0x{:x},len=0x{:x},ddir={},file={file}",
                self.io_u(tag),
                io.offset,
                io.len,
                ddir(io.dir)
            ),
        );
    }

    /// `prep:` and, for an engine with a prep step of its own, its result.
    pub(crate) fn prep(&self, tag: u32, io: &NextIo) {
        self.io_line("prep", tag, io);
        if self.io && self.engine_prep {
            self.t.print(Class::Io, &format!("prep: io_u {}: ret=0", self.io_u(tag)));
        }
    }

    /// fio's `populate_verify_io_u` for a write of `len` bytes on unit `tag`: its buffer filled
    /// (random bytes, unless a `verify_pattern` fills it), then one header per interval.
    pub(crate) fn verify_fill(&self, spec: &crate::verify::VerifySpec, tag: u32, len: u64) {
        use crate::verify::VerifyType as V;
        if !self.verify || matches!(spec.kind, V::None | V::Null) {
            return;
        }
        if spec.pattern.is_none() {
            self.t.print(Class::Verify, &format!("fill random bytes len={len}"));
        }
        if matches!(spec.kind, V::Meta | V::Pattern | V::PatternNoHdr) {
            return;
        }
        let interval = u64::from(spec.interval.max(1)).min(len.max(1));
        for _ in 0..len / interval {
            self.t.print(
                Class::Verify,
                &format!("fill {} io_u {}, len {interval}", spec.kind.failure_name(), self.io_u(tag)),
            );
        }
    }

    /// fio's checks of a verifying read of `len` bytes on unit `tag`: one line per interval.
    pub(crate) fn verify_check(&self, spec: &crate::verify::VerifySpec, tag: u32, len: u64) {
        use crate::verify::VerifyType as V;
        if !self.verify || matches!(spec.kind, V::None | V::Null | V::Meta | V::Pattern | V::PatternNoHdr) {
            return;
        }
        let interval = u64::from(spec.interval.max(1)).min(len.max(1));
        for _ in 0..len / interval {
            self.t.print(
                Class::Verify,
                &format!("{} verify io_u {}, len {interval}", spec.kind.failure_name(), self.io_u(tag)),
            );
        }
    }

    /// fio's `close_ioengine` at the job's end.
    pub(crate) fn close_engine(&self) {
        dprint!(self.t, Class::Io, "close ioengine {}", self.engine);
        dprint!(self.t, Class::Io, "free ioengine {}", self.engine);
        if crate::debug::has_engine_options(&self.engine) {
            dprint!(self.t, Class::Parse, "free options");
        }
    }
}
