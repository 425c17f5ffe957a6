//! The block layer against the kernel's: the same requests on a real Linux zoned block device
//! (null_blk, scsi_debug `zbc=managed`, a QEMU NVMe ZNS namespace) and on its emulated twin, a
//! [`BlockDevice`] over an [`EmulatedDevice`] with the real device's geometry, limits and
//! personality, compared step by step: results (byte counts, errnos), data read back and zone
//! reports.
//!
//! Ignored by default: they need a kernel with zoned devices and root. `scripts/vm/linux-tests.sh`
//! sets the devices up inside the VM of `scripts/vm/run.sh` (Linux 6.1 or 6.12) and runs this binary
//! with `--ignored --test-threads=1`. Devices are named by environment variables; a test skips a
//! device whose variable is unset, unless `ZONEKIT_TEST_REQUIRE=1` (the VM script sets it):
//!
//! - `ZONEKIT_TEST_NULLB`: null_blk, 16 zones of 4 MiB, zone 0 conventional, max_open 4,
//!   max_active 8, `memory_backed=1`;
//! - `ZONEKIT_TEST_NULLB_ZCAP`: the same with a 3 MiB zone capacity;
//! - `ZONEKIT_TEST_NULLB_4K`: null_blk with 4 KiB logical blocks, max_open 6, no active limit;
//! - `ZONEKIT_TEST_ZBC`: scsi_debug, 16 zones of 4 MiB, zone 0 conventional, max_open 4;
//! - `ZONEKIT_TEST_ZNS`: QEMU NVMe ZNS, 16 zones of 4 MiB (none conventional), max_open 4,
//!   max_active 8.
//!
//! The kernel side is the device file itself (one `pwrite`/`pread` per request with `O_DIRECT`,
//! the zone ioctls): the kernel has its own block layer. The twin follows Linux 6.12
//! ([`BlockDevice`]), so on 6.12 there must be no difference at all; on 6.1 the differences are
//! those of [`KNOWN_6_1`], each explained by a rule 6.12 has and 6.1 has not, and a twin with 6.1's
//! rules ([`Linux61`]) must show none. `scripts/vm/README.md` says what the lane does to the devices
//! so that the kernel's answers depend on its rules only (timer completions for null_blk, the I/O
//! scheduler, one bio per write).
//!
//! - `scenarios`: fixed sequences (write pointers, zone boundaries, the device end, management,
//!   ranges, open and active limits, reads);
//! - `random`: seeded random sequences of writes (some crossing zone boundaries, the capacity or
//!   the device end), reads and range management, against a twin with the running kernel's block
//!   layer; in some runs the twin is a persistent device directory closed and reopened between
//!   steps, as separate `zonekit zone` commands do. The seed is printed, and `ZONEKIT_DIFF_SEED`
//!   replays one; `ZONEKIT_DIFF_STEPS` sets the steps per run, `ZONEKIT_DIFF_ONLY` picks one
//!   device's runs, `ZONEKIT_DIFF_VERBOSE=1` logs every step;
//! - `kernel_rules`: the kernel's own behaviour where 6.1 and 6.12 may differ, checked against the
//!   table of each kernel (scripts/vm/README.md shows the tables).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use zonekit_core::{
    BlockIo, DeviceInfo, DeviceKind, DeviceResult, Errno, Personality, SECTOR_SIZE, Zone, ZoneCond, ZoneManagement,
    ZoneOp, ZoneReport, ZoneTable, ZonedDevice,
};
use zonekit_dev::linux::LinuxDevice;
use zonekit_dev::store::MemoryStore;
use zonekit_dev::{DataMode, DeviceConfig, EmulatedDevice, persistent};

use zonekit_blk::zoned::{BlockDevice, LimitOverrides, MgmtCommand, QueueLimits, mgmt, split};

// ---------------------------------------------------------------------------------------------
// Devices.

/// A device under test, with what `scripts/vm/linux-tests.sh` made it.
struct Dev {
    /// Its place in [`DEVICES`] (random runs derive their seeds from it).
    index: usize,
    label: &'static str,
    path: PathBuf,
    personality: Personality,
    /// Logical block size.
    lbs: u32,
}

/// Label, environment variable, personality, logical block size.
const DEVICES: [(&str, &str, Personality, u32); 5] = [
    ("nullb", "ZONEKIT_TEST_NULLB", Personality::NullBlk, 512),
    ("nullb-zcap", "ZONEKIT_TEST_NULLB_ZCAP", Personality::NullBlk, 512),
    ("nullb-4k", "ZONEKIT_TEST_NULLB_4K", Personality::NullBlk, 4096),
    ("zbc", "ZONEKIT_TEST_ZBC", Personality::Zbc, 512),
    ("zns", "ZONEKIT_TEST_ZNS", Personality::Zns, 512),
];

/// The devices named in the environment.
fn devices() -> Vec<Dev> {
    let require = std::env::var("ZONEKIT_TEST_REQUIRE").is_ok_and(|v| v == "1");
    let mut out = Vec::new();
    for (index, (label, var, personality, lbs)) in DEVICES.into_iter().enumerate() {
        match std::env::var_os(var) {
            Some(p) => out.push(Dev { index, label, path: PathBuf::from(p), personality, lbs }),
            None if require => panic!("{var} is not set"),
            None => eprintln!("skipping {label}: {var} is not set"),
        }
    }
    out
}

/// The running kernel's series (`6.1`, `6.12`, ...), from its release string.
fn kernel_series() -> String {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    release.trim().split(['.', '-', '+']).take(2).collect::<Vec<_>>().join(".")
}

// ---------------------------------------------------------------------------------------------
// The two sides.

/// What a request did, as a program sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// A management request succeeded.
    Ok,
    /// A write transferred this many bytes.
    Wrote(usize),
    /// A read transferred these bytes.
    Read(Vec<u8>),
    /// The request failed.
    Err(Errno),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Ok => f.write_str("ok"),
            Outcome::Wrote(n) => write!(f, "wrote {n}"),
            Outcome::Read(d) => {
                let first = d.first().copied().unwrap_or(0);
                if d.iter().all(|&b| b == first) {
                    write!(f, "read {} B of {first:#04x}", d.len())
                } else {
                    write!(f, "read {} B of data", d.len())
                }
            }
            Outcome::Err(e) => write!(f, "{}", e.name().unwrap_or("errno?")),
        }
    }
}

/// One request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Write this many bytes at a sector.
    W(u64, usize),
    /// Read this many bytes at a sector.
    R(u64, usize),
    /// Zone management over `(sector, nr)`.
    M(ZoneOp, u64, u64),
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Step::W(s, n) => write!(f, "write {n} B at sector {s}"),
            Step::R(s, n) => write!(f, "read {n} B at sector {s}"),
            Step::M(op, s, n) => write!(f, "{} ({s}, {n})", op.name()),
        }
    }
}

/// Data that differs from sector to sector and from seed to seed.
fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    for (i, sector) in v.chunks_mut(512).enumerate() {
        sector.fill((seed.wrapping_mul(31).wrapping_add(i as u64 * 7)) as u8 | 1);
        sector[0] = seed as u8;
    }
    v
}

/// A buffer aligned for `O_DIRECT` (4 KiB), made without `unsafe`: a larger vector, sliced.
struct Aligned {
    buf: Vec<u8>,
    at: usize,
    len: usize,
}

/// Pages in a bio (`BIO_MAX_VECS`): the most a direct I/O puts in one bio when its pages are not
/// physically contiguous; contiguous pages share a `bio_vec`.
const BIO_MAX_VECS: usize = 256;
const PAGE: usize = 4096;
/// A transparent huge page (the lanes' kernels make them at fault, `CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS`).
const HUGE_PAGE: usize = 2 << 20;

impl Aligned {
    fn new(len: usize) -> Aligned {
        Aligned::with_alignment(len, PAGE)
    }

    fn with_alignment(len: usize, align: usize) -> Aligned {
        let buf = vec![0u8; len.next_multiple_of(align) + align];
        let at = buf.as_ptr().align_offset(align);
        Aligned { buf, at, len }
    }

    /// Run `f` on a buffer holding `data` that a direct write puts in one bio, as `BlockDevice`
    /// assumes of the buffers it is given: a write of more than [`BIO_MAX_VECS`] pages fills a bio
    /// with at most that many runs of physically contiguous pages (`bio_iov_iter_get_pages`),
    /// then goes on in another, and where the kernel's bios end changes which pieces of a failing
    /// write land and the errno it returns. Large writes use one buffer of huge pages kept for the
    /// whole process, checked once against the page frames `/proc/self/pagemap` gives.
    fn with_one_bio<R>(data: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
        static LARGE: std::sync::OnceLock<Mutex<Aligned>> = std::sync::OnceLock::new();
        const LARGE_LEN: usize = 3 * HUGE_PAGE;
        if data.len().div_ceil(PAGE) <= BIO_MAX_VECS || data.len() > LARGE_LEN {
            let mut b = Aligned::new(data.len());
            b.get_mut().copy_from_slice(data);
            return f(b.get());
        }
        let large = LARGE.get_or_init(|| {
            let mut tried = Vec::new();
            loop {
                let mut b = Aligned::with_alignment(LARGE_LEN, HUGE_PAGE);
                b.get_mut().fill(1);
                let runs = b.physical_runs();
                if runs <= BIO_MAX_VECS {
                    return Mutex::new(b);
                }
                tried.push(b);
                assert!(tried.len() < 20, "no buffer of {LARGE_LEN} bytes in at most {BIO_MAX_VECS} physically contiguous runs (the last has {runs})");
            }
        });
        let mut b = large.lock().unwrap();
        b.get_mut()[..data.len()].copy_from_slice(data);
        f(&b.get()[..data.len()])
    }

    /// How many runs of physically contiguous pages the buffer's pages make.
    fn physical_runs(&self) -> usize {
        let f = std::fs::File::open("/proc/self/pagemap").expect("open /proc/self/pagemap");
        let first = self.get().as_ptr() as usize / PAGE;
        let pages = self.len.div_ceil(PAGE);
        let mut raw = vec![0u8; pages * 8];
        f.read_exact_at(&mut raw, (first * 8) as u64).expect("read /proc/self/pagemap");
        let pfns: Vec<u64> =
            raw.chunks(8).map(|e| u64::from_le_bytes(e.try_into().expect("8 bytes")) & ((1 << 55) - 1)).collect();
        assert!(pfns.iter().all(|&p| p != 0), "no page frame numbers in /proc/self/pagemap (not root?)");
        1 + pfns.windows(2).filter(|w| w[1] != w[0] + 1).count()
    }

    fn get(&self) -> &[u8] {
        &self.buf[self.at..self.at + self.len]
    }
    fn get_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.at..self.at + self.len]
    }
}

fn io_errno(e: &std::io::Error) -> Errno {
    Errno(e.raw_os_error().unwrap_or(libc::EIO))
}

/// The kernel's device: one system call per request, as a program makes them.
struct Kernel {
    dev: LinuxDevice,
}

impl Kernel {
    fn open(dev: &Dev) -> Kernel {
        let spec = dev.path.to_string_lossy().into_owned();
        let d = LinuxDevice::open(&dev.path, &spec, true).unwrap_or_else(|e| panic!("{}: open: {e}", dev.label));
        assert!(d.is_direct(), "{}: opened without O_DIRECT", dev.label);
        Kernel { dev: d }
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<usize, Errno> {
        Aligned::with_one_bio(data, |b| self.dev.file().write_at(b, offset)).map_err(|e| io_errno(&e))
    }

    fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, Errno> {
        let mut b = Aligned::new(len);
        let n = self.dev.file().read_at(b.get_mut(), offset).map_err(|e| io_errno(&e))?;
        Ok(b.get()[..n].to_vec())
    }

    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> Result<(), Errno> {
        self.dev.zone_mgmt(op, sector, nr).map_err(|e| e.errno())
    }

    fn report(&self, sector: u64, max: usize) -> Vec<Zone> {
        let mut out = Vec::new();
        self.dev.report_zones(sector, max, &mut out).expect("kernel zone report");
        out
    }

    fn zones(&self) -> Vec<Zone> {
        self.report(0, usize::MAX)
    }

    /// Zero the conventional zones, which keep their data across resets and tests, so that they
    /// read as a new twin's do.
    fn zero_conventional(&self) {
        let g = self.dev.info().geometry.clone();
        let zeros = vec![0u8; 1 << 20];
        for z in 0..u64::from(g.nr_conv_zones) {
            let mut at = z * g.zone_size * SECTOR_SIZE;
            let end = (z + 1) * g.zone_size * SECTOR_SIZE;
            while at < end {
                let n = zeros.len().min((end - at) as usize);
                assert_eq!(self.write(at, &zeros[..n]), Ok(n), "zeroing the conventional zones");
                at += n as u64;
            }
        }
    }

    fn apply(&self, step: Step, seed: u64) -> Outcome {
        let r = match step {
            Step::W(s, n) => self.write(s * SECTOR_SIZE, &pattern(seed, n)).map(Outcome::Wrote),
            Step::R(s, n) => self.read(s * SECTOR_SIZE, n).map(Outcome::Read),
            Step::M(op, s, n) => self.zone_mgmt(op, s, n).map(|()| Outcome::Ok),
        };
        r.unwrap_or_else(Outcome::Err)
    }
}

/// The device configuration of the kernel device's twin.
fn twin_config(info: &DeviceInfo) -> DeviceConfig {
    DeviceConfig {
        personality: info.personality,
        geometry: info.geometry.clone(),
        limits: info.limits.normalized(&info.geometry).expect("kernel limits are consistent"),
        profile: None,
        rotational: info.rotational,
        vendor: info.vendor.clone(),
        description: info.description.clone(),
        model: None,
        queue: info.queue,
    }
}

/// An emulated device directory opened for each request and closed after it, as separate
/// `zonekit zone` commands open and close it (its state goes through the directory every time).
struct Reopened {
    dir: PathBuf,
    info: DeviceInfo,
    dev: Mutex<Option<EmulatedDevice>>,
}

impl Reopened {
    fn open(dir: &Path) -> Reopened {
        let dev = persistent::open_dir(dir, &dir.to_string_lossy(), true).expect("open the twin");
        Reopened { dir: dir.to_path_buf(), info: dev.info().clone(), dev: Mutex::new(Some(dev)) }
    }

    fn reopen(&self) {
        let dev = persistent::open_dir(&self.dir, &self.info.spec, true).expect("reopen the twin");
        *self.dev.lock().unwrap() = Some(dev);
    }

    fn close(&self) {
        let dev = self.dev.lock().unwrap().take().expect("the twin is open");
        dev.close().expect("close the twin");
    }

    fn on<R>(&self, f: impl FnOnce(&EmulatedDevice) -> R) -> R {
        f(self.dev.lock().unwrap().as_ref().expect("the twin is open"))
    }
}

impl ZoneReport for Reopened {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }
    fn report_zones(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> DeviceResult<()> {
        self.on(|d| d.report_zones(sector, max, out))
    }
}

impl ZoneManagement for Reopened {
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> DeviceResult<()> {
        self.on(|d| d.zone_mgmt(op, sector, nr))
    }
}

impl BlockIo for Reopened {
    fn read_at(&self, sector: u64, buf: &mut [u8]) -> DeviceResult<()> {
        self.on(|d| d.read_at(sector, buf))
    }
    fn write_at(&self, sector: u64, buf: &[u8]) -> DeviceResult<()> {
        self.on(|d| d.write_at(sector, buf))
    }
    fn zone_append(&self, zone_start: u64, buf: &[u8]) -> DeviceResult<u64> {
        self.on(|d| d.zone_append(zone_start, buf))
    }
    fn flush(&self) -> DeviceResult<()> {
        self.on(|d| d.flush())
    }
}

/// A block layer over a twin's device, as a program sees it through a block device file.
trait Layer {
    fn write(&self, offset: u64, buf: &[u8]) -> Result<usize, Errno>;
    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<usize, Errno>;
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> Result<(), Errno>;
    fn report(&self) -> Vec<Zone>;
    /// In how many orders the kernel may send this write's pieces to the device (1: one order,
    /// the one [`Layer::write`] follows).
    fn write_orders(&self, _offset: u64, _len: usize) -> usize {
        1
    }
    /// The write with its pieces sent in order `order` (below [`Layer::write_orders`]; 0 is
    /// [`Layer::write`]'s).
    fn write_in_order(&self, offset: u64, buf: &[u8], _order: usize) -> Result<usize, Errno> {
        self.write(offset, buf)
    }
    /// What [`Layer::write_in_order`] would do, on a copy of the twin's zones (the twin is left
    /// as it is): the result and the zones after it.
    fn try_write_in_order(
        &self,
        _offset: u64,
        _buf: &[u8],
        _order: usize,
    ) -> Option<(Result<usize, Errno>, Vec<Zone>)> {
        None
    }
}

/// Linux 6.12's: zonekit's block layer.
impl Layer for BlockDevice {
    fn write(&self, offset: u64, buf: &[u8]) -> Result<usize, Errno> {
        BlockDevice::write(self, offset, buf).map_err(|e| e.errno)
    }
    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
        BlockDevice::read(self, offset, buf).map_err(|e| e.errno)
    }
    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> Result<(), Errno> {
        BlockDevice::zone_mgmt(self, op, sector, nr).map_err(|e| e.errno)
    }
    fn report(&self) -> Vec<Zone> {
        let mut out = Vec::new();
        self.report_zones(0, usize::MAX, &mut out).expect("twin zone report");
        out
    }
}

/// Linux 6.1's block layer, for the 6.1 lane: what 6.12's is without zone write plugs. Reads and
/// writes are cut and split as in 6.12 ([`split`]), ranges planned as in 6.12 ([`mgmt`]); but no
/// write is checked before the device sees it (no cached write pointer, so no failure until a
/// report after a failed write either), a reset or finish of a conventional zone goes to the
/// device, and the pieces of a split write reach it in an order mq-deadline's zone write locking
/// allows: one at a time per sequential zone, each when the zone's previous piece has completed
/// (failed or not), conventional pieces as they are made, and the next zone's first piece after
/// 1 to all of the first zone's pieces: 6.1 splits a write piece by piece in the writer
/// (`__bio_split_to_limits`, `submit_bio_noacct` of the rest), does not plug zoned writes
/// (`blk_mq_plug`) and dispatches from kblockd (`blk_mq_sched_insert_request(.., async)`) while the
/// writer is still splitting, so the next zone's piece is inserted, and dispatched ahead of the
/// locked zone's remaining pieces (`deadline_next_request`, `deadline_fifo_request`), after as many
/// of the first zone's pieces as completed meanwhile ([`Layer::write_orders`]). Every other
/// difference between this and `BlockDevice` is a rule 6.12 has and 6.1 has not
/// (scripts/vm/README.md, docs/blk.md).
struct Linux61 {
    dev: Arc<dyn ZonedDevice>,
    limits: QueueLimits,
    /// A copy of the twin's zone table, for [`Layer::try_write_in_order`].
    snapshot: Snapshot,
}

/// A copy of a twin device's zone table (open and eviction order included).
type Snapshot = Arc<dyn Fn() -> ZoneTable + Send + Sync>;

impl Linux61 {
    fn new(dev: Arc<dyn ZonedDevice>, snapshot: Snapshot, overrides: &LimitOverrides) -> Linux61 {
        let limits = QueueLimits::with_overrides(dev.info(), overrides).expect("the kernel's queue limits");
        Linux61 { dev, limits, snapshot }
    }

    /// The write's pieces, and the order in which they reach the device in `order`: the next
    /// sequential zone's first piece goes after `order + 1` pieces of the first sequential zone
    /// (order 0: right after its first piece, as when the writer has split the whole write before
    /// the first dispatch). The random differential's writes span two zones at most; a third
    /// zone's first piece goes as it is made.
    fn plan(&self, offset: u64, len: u64, order: usize) -> Result<(u64, Vec<split::Piece>, Vec<usize>), Errno> {
        let cut = split::cut_write(&self.limits, offset, len).map_err(|e| e.errno())?;
        if cut.bytes == 0 {
            return Ok((0, Vec::new(), Vec::new()));
        }
        let pieces: Vec<split::Piece> = split::pieces(&self.limits, cut.sector, cut.sectors()).collect();
        let g = &self.dev.info().geometry;
        let zone_of = |p: &split::Piece| g.zone_index(p.sector).expect("a piece inside the device");
        let seq: Vec<u32> = {
            let mut z: Vec<u32> = pieces.iter().map(zone_of).filter(|&z| !g.is_conventional(z)).collect();
            z.dedup();
            z
        };
        // The zone whose first piece waits for `order + 1` pieces of the first sequential zone.
        let delayed = if order > 0 { seq.get(1).copied() } else { None };
        // Each sequential zone's pieces wait for the one before (the zone write lock); the first
        // of each, and every conventional piece, go as they are made.
        let mut waiting: BTreeMap<u32, std::collections::VecDeque<usize>> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::new();
        for (i, p) in pieces.iter().enumerate() {
            let zone = zone_of(p);
            if g.is_conventional(zone) {
                queue.push_back(i);
            } else {
                let w = waiting.entry(zone).or_default();
                if w.is_empty() && Some(zone) != delayed {
                    queue.push_back(i);
                }
                w.push_back(i);
            }
        }
        let mut sent = Vec::with_capacity(pieces.len());
        let mut first_zone_sent = 0;
        while let Some(i) = queue.pop_front() {
            sent.push(i);
            let zone = zone_of(&pieces[i]);
            if let Some(w) = waiting.get_mut(&zone) {
                w.pop_front();
                if let Some(&next) = w.front() {
                    queue.push_back(next);
                }
            }
            if Some(zone) == seq.first().copied() {
                first_zone_sent += 1;
                let first_done = waiting.get(&zone).is_none_or(|w| w.is_empty());
                if let Some(d) = delayed
                    && (first_zone_sent == order + 1 || first_done)
                    && let Some(&next) = waiting.get(&d).and_then(|w| w.front())
                    && !queue.contains(&next)
                    && !sent.contains(&next)
                {
                    // Ahead of the first zone's next piece, as the kernel dispatches it.
                    queue.push_front(next);
                }
            }
        }
        Ok((cut.bytes, pieces, sent))
    }

    /// The write on `dev` with its pieces sent in `order`.
    fn write_on(&self, dev: &dyn ZonedDevice, offset: u64, buf: &[u8], order: usize) -> Result<usize, Errno> {
        let (bytes, pieces, sent) = self.plan(offset, buf.len() as u64, order)?;
        let mut failed = Vec::new();
        for i in sent {
            let p = pieces[i];
            if let Err(e) = dev.write_at(p.sector, &buf[p.buf_range()]) {
                failed.push((i, e.errno()));
            }
        }
        match split::split_errno(&failed, pieces.len()) {
            Some(e) => Err(e),
            None => Ok(bytes as usize),
        }
    }
}

impl Layer for Linux61 {
    fn write(&self, offset: u64, buf: &[u8]) -> Result<usize, Errno> {
        self.write_on(&*self.dev, offset, buf, 0)
    }

    /// One order per piece of the first sequential zone when the write reaches a second one (the
    /// next zone's first piece after 1, 2, … all of them), else one.
    fn write_orders(&self, offset: u64, len: usize) -> usize {
        let Ok((_, pieces, _)) = self.plan(offset, len as u64, 0) else { return 1 };
        let g = &self.dev.info().geometry;
        let mut seq: Vec<u32> = pieces
            .iter()
            .map(|p| g.zone_index(p.sector).expect("a piece inside the device"))
            .filter(|&z| !g.is_conventional(z))
            .collect();
        let first = seq.first().copied();
        let in_first = seq.iter().filter(|&&z| Some(z) == first).count();
        seq.dedup();
        if seq.len() < 2 { 1 } else { in_first }
    }

    fn write_in_order(&self, offset: u64, buf: &[u8], order: usize) -> Result<usize, Errno> {
        self.write_on(&*self.dev, offset, buf, order)
    }

    fn try_write_in_order(&self, offset: u64, buf: &[u8], order: usize) -> Option<(Result<usize, Errno>, Vec<Zone>)> {
        // The same device with the twin's zones and no data: what the write does to the zones
        // and the result depend on the zones only.
        let mut info = self.dev.info().clone();
        info.kind = DeviceKind::Emulated { store: "none".into(), profile: None };
        let copy = EmulatedDevice::from_table(info, (self.snapshot)(), Box::new(zonekit_dev::store::NoneStore));
        let r = self.write_on(&copy, offset, buf, order);
        let mut zones = Vec::new();
        copy.report_zones(0, usize::MAX, &mut zones).expect("copy's zone report");
        Some((r, zones))
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
        let cut = split::cut_read(&self.limits, offset, buf.len() as u64).map_err(|e| e.errno())?;
        let pieces: Vec<split::Piece> = split::pieces(&self.limits, cut.sector, cut.sectors()).collect();
        let mut failed = Vec::new();
        for (i, p) in pieces.iter().enumerate() {
            if let Err(e) = self.dev.read_at(p.sector, &mut buf[p.buf_range()]) {
                failed.push((i, e.errno()));
            }
        }
        match split::split_errno(&failed, pieces.len()) {
            Some(e) => Err(e),
            None => Ok(cut.bytes as usize),
        }
    }

    fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> Result<(), Errno> {
        let plan = mgmt::plan(&self.limits, op, sector, nr).map_err(|e| e.errno())?;
        let mut failed = Vec::new();
        for cmd in plan.commands() {
            let (at, r) = match cmd {
                MgmtCommand::Zone { op, sector, nr } => (sector, self.dev.zone_mgmt(op, sector, nr)),
                MgmtCommand::ResetAll => (0, self.dev.zone_mgmt(ZoneOp::Reset, 0, self.limits.capacity)),
            };
            if let Err(e) = r {
                failed.push((at, e.errno()));
            }
        }
        mgmt::range_errno(&failed).map_or(Ok(()), Err)
    }

    fn report(&self) -> Vec<Zone> {
        let mut out = Vec::new();
        self.dev.report_zones(0, usize::MAX, &mut out).expect("twin zone report");
        out
    }
}

/// The kernel device's queue limits that its description does not carry: null_blk's
/// `max_sectors` in sectors. null_blk passes its `max_sectors` setting (configfs, 0 by default) as
/// the driver's limit, and with none the block layer takes `BLK_SAFE_MAX_SECTORS`, 255 sectors,
/// which sysfs can only show as `max_sectors_kb` 127; requests are split at 255.
fn twin_overrides(dev: &Dev, info: &DeviceInfo) -> LimitOverrides {
    let mut o = LimitOverrides {
        max_sectors_kb: Some(info.queue.max_sectors_kb),
        zoned_qd1_writes: Some(info.queue.zoned_qd1_writes),
        ..LimitOverrides::default()
    };
    if dev.personality == Personality::NullBlk {
        let name = dev.path.file_name().expect("a device file").to_string_lossy();
        let attr = format!("/sys/kernel/config/nullb/{name}/max_sectors");
        let set: u64 = std::fs::read_to_string(&attr)
            .unwrap_or_else(|e| panic!("{attr}: {e}"))
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{attr}: {e}"));
        o.max_sectors = Some(if set == 0 { 255 } else { set });
    }
    o
}

/// Which kernel's block layer a twin has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rules {
    /// Linux 6.12's: [`BlockDevice`].
    Linux612,
    /// Linux 6.1's: [`Linux61`].
    Linux61,
}

impl Rules {
    fn layer(self, dev: Arc<dyn ZonedDevice>, snapshot: Snapshot, overrides: &LimitOverrides) -> Box<dyn Layer> {
        match self {
            Rules::Linux612 => {
                Box::new(BlockDevice::with_overrides(dev, overrides).expect("the kernel's queue limits"))
            }
            Rules::Linux61 => Box::new(Linux61::new(dev, snapshot, overrides)),
        }
    }
}

/// The emulated twin: a block layer over an emulated device, kept in memory, or in a persistent
/// directory opened and closed around every request (with the kernel device's queue settings,
/// which the directory does not keep). In both, one block layer serves every request: the
/// kernel's (its zone write plugs and their cached write pointers) lives as long as the disk,
/// whatever the programs that open it, so the persistent runs check what the device keeps across
/// a close and an open, under the same block layer.
struct Twin {
    layer: Box<dyn Layer>,
    /// A persistent twin's device, opened for each request.
    reopened: Option<Arc<Reopened>>,
}

impl Twin {
    fn memory(info: &DeviceInfo, overrides: &LimitOverrides, rules: Rules) -> Twin {
        let kind = DeviceKind::Emulated { store: "memory".into(), profile: None };
        let dev = Arc::new(EmulatedDevice::new(
            &format!("emulated {}", info.spec),
            kind,
            &twin_config(info),
            Box::new(MemoryStore::new()),
        ));
        let d = dev.clone();
        let snapshot: Snapshot = Arc::new(move || d.with_table(|t| t.clone()));
        Twin { layer: rules.layer(dev, snapshot, overrides), reopened: None }
    }

    fn persistent(info: &DeviceInfo, overrides: &LimitOverrides, rules: Rules, dir: &Path) -> Twin {
        // What the metadata keeps of the configuration (not the physical block size nor the
        // queue settings, which a reopened device takes from its defaults).
        let config = DeviceConfig::from_meta(&twin_config(info).to_meta(DataMode::Files)).expect("storable twin");
        let new = persistent::create_dir(dir, &config, DataMode::Files).expect("create the twin");
        new.close().expect("close the new twin");
        drop(new);
        let dev = Arc::new(Reopened::open(dir));
        let d = dev.clone();
        let snapshot: Snapshot = Arc::new(move || d.on(|e| e.with_table(|t| t.clone())));
        let layer = rules.layer(dev.clone(), snapshot, overrides);
        dev.close();
        Twin { layer, reopened: Some(dev) }
    }

    /// Run `f` on the block layer; a persistent twin's device is opened for it and closed after,
    /// as one `zonekit zone` command does.
    fn with<R>(&self, f: impl FnOnce(&dyn Layer) -> R) -> R {
        match &self.reopened {
            None => f(&*self.layer),
            Some(dev) => {
                dev.reopen();
                let r = f(&*self.layer);
                dev.close();
                r
            }
        }
    }

    fn zones(&self) -> Vec<Zone> {
        self.with(|b| b.report())
    }

    fn apply(&self, step: Step, seed: u64) -> Outcome {
        self.with(|b| {
            let r = match step {
                Step::W(s, n) => b.write(s * SECTOR_SIZE, &pattern(seed, n)).map(Outcome::Wrote),
                Step::R(s, n) => {
                    let mut buf = vec![0u8; n];
                    b.read(s * SECTOR_SIZE, &mut buf).map(|got| {
                        buf.truncate(got);
                        Outcome::Read(buf)
                    })
                }
                Step::M(op, s, n) => b.zone_mgmt(op, s, n).map(|()| Outcome::Ok),
            };
            r.unwrap_or_else(Outcome::Err)
        })
    }

    /// In how many orders the kernel may send this step's pieces (1 but for a 6.1 twin's write
    /// into a second sequential zone).
    fn orders(&self, step: Step) -> usize {
        match step {
            Step::W(s, n) => self.with(|b| b.write_orders(s * SECTOR_SIZE, n)),
            _ => 1,
        }
    }

    /// [`Twin::apply`], with the pieces of a write sent in the first order (of
    /// [`Twin::orders`]) that gives the kernel's result and zones, or in the first order when none
    /// does; returns the order too.
    fn apply_as(&self, step: Step, seed: u64, kernel: &Outcome, kernel_zones: &[Zone]) -> (Outcome, usize) {
        let Step::W(s, n) = step else { return (self.apply(step, seed), 0) };
        let orders = self.orders(step);
        if orders < 2 {
            return (self.apply(step, seed), 0);
        }
        let data = pattern(seed, n);
        let outcome = |r: Result<usize, Errno>| r.map(Outcome::Wrote).unwrap_or_else(Outcome::Err);
        self.with(|b| {
            let order = (0..orders)
                .find(|&o| {
                    let (r, zones) = b.try_write_in_order(s * SECTOR_SIZE, &data, o).expect("a layer with orders");
                    compare(step, kernel, &outcome(r), kernel_zones, &zones).is_empty()
                })
                .unwrap_or(0);
            (outcome(b.write_in_order(s * SECTOR_SIZE, &data, order)), order)
        })
    }
}

fn describe_zone(z: &Zone) -> String {
    let wp = if z.wp == u64::MAX { "-1".to_string() } else { (z.wp.wrapping_sub(z.start)).to_string() };
    format!("{}/wp {wp}", z.cond.short_name())
}

fn describe_data(kernel: &[u8], twin: &[u8]) -> String {
    match kernel.iter().zip(twin).position(|(a, b)| a != b) {
        Some(i) => format!(
            "data differs from byte {i} (sector +{}): kernel {:#04x}, twin {:#04x}",
            i / 512,
            kernel[i],
            twin[i]
        ),
        None => format!("lengths differ: kernel {}, twin {}", kernel.len(), twin.len()),
    }
}

/// One difference between the kernel and the twin after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Difference {
    /// `result`, `data` or `zones`.
    what: &'static str,
    detail: String,
}

/// Compare what one step did on both sides and the zones after it.
fn compare(step: Step, k: &Outcome, t: &Outcome, kz: &[Zone], tz: &[Zone]) -> Vec<Difference> {
    let mut out = Vec::new();
    match (k, t) {
        (Outcome::Read(a), Outcome::Read(b)) if a != b => {
            if a.len() == b.len() {
                out.push(Difference { what: "data", detail: describe_data(a, b) });
            } else {
                out.push(Difference { what: "result", detail: format!("{step}: kernel {k}, twin {t}") });
            }
        }
        _ if k != t => out.push(Difference { what: "result", detail: format!("{step}: kernel {k}, twin {t}") }),
        _ => {}
    }
    if kz.len() != tz.len() {
        out.push(Difference { what: "zones", detail: format!("{} zones, twin {}", kz.len(), tz.len()) });
        return out;
    }
    let zones: Vec<String> = kz
        .iter()
        .zip(tz)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(n, (a, b))| {
            let (da, db) = (describe_zone(a), describe_zone(b));
            if da == db {
                format!("zone {n}: kernel {a:?}, twin {b:?}")
            } else {
                format!("zone {n}: kernel {da}, twin {db}")
            }
        })
        .collect();
    if !zones.is_empty() {
        out.push(Difference { what: "zones", detail: format!("after {step}: {}", zones.join("; ")) });
    }
    out
}

/// The two sides made equal, at the start of a sequence and after a difference (so that one
/// difference does not cascade): every zone is reset on both sides (the device is reset whole,
/// then conditions are rebuilt by the sequence itself), and null_blk's round-robin cursor is put
/// in the same place on both.
fn resync(k: &Kernel, t: &Twin, info: &DeviceInfo) {
    let capacity = info.geometry.capacity;
    k.zone_mgmt(ZoneOp::Reset, 0, capacity).expect("kernel reset all");
    t.with(|b| b.zone_mgmt(ZoneOp::Reset, 0, capacity)).expect("twin reset all");
    sync_eviction_cursor(k, t, info);
}

/// null_blk closes the implicitly open zone it finds first from a cursor (`imp_close_zone_no`)
/// that moves past each zone it closes and that nothing else moves, not even a reset: the kernel
/// device's cursor is wherever the previous tests left it, a new twin's at the first sequential
/// zone. Both are moved to the same place by making the last zone the only implicitly open one
/// at the open limit (the other open zones explicitly open) and writing to one more zone: the
/// last zone is closed, and the cursor wraps to the first sequential zone. Then every zone is
/// reset again.
fn sync_eviction_cursor(k: &Kernel, t: &Twin, info: &DeviceInfo) {
    let g = &info.geometry;
    let max_open = u64::from(info.limits.max_open);
    let (conv, nr) = (u64::from(g.nr_conv_zones), u64::from(g.nr_zones));
    if info.personality != Personality::NullBlk || max_open == 0 || nr - conv < max_open + 1 {
        return;
    }
    let zs = g.zone_size;
    let lbs = g.logical_block_size as usize;
    let mut steps: Vec<Step> = (conv..conv + max_open - 1).map(|z| Step::M(ZoneOp::Open, z * zs, zs)).collect();
    steps.push(Step::W((nr - 1) * zs, lbs));
    steps.push(Step::W((conv + max_open - 1) * zs, lbs));
    for step in steps {
        let (ko, to) = (k.apply(step, 1), t.apply(step, 1));
        assert_eq!(ko, to, "moving null_blk's cursor: {step}: kernel {ko}, twin {to}");
    }
    let last = k.report((nr - 1) * zs, 1)[0];
    assert_eq!(last.cond, ZoneCond::Closed, "moving null_blk's cursor: the last zone was not closed");
    assert_eq!(k.zones(), t.zones(), "moving null_blk's cursor: the zones differ");
    k.zone_mgmt(ZoneOp::Reset, 0, g.capacity).expect("kernel reset all");
    t.with(|b| b.zone_mgmt(ZoneOp::Reset, 0, g.capacity)).expect("twin reset all");
}

// ---------------------------------------------------------------------------------------------
// Fixed scenarios.

/// The scenarios, for a device of `nr` zones of `zs` sectors with zone capacity `cap`, of which
/// the first `conv` are conventional. Each starts with a reset of the whole device.
fn scenarios(zs: u64, cap: u64, nr: u64, conv: u64) -> Vec<(&'static str, Vec<Step>)> {
    use Step::*;
    use ZoneOp::*;
    let z = |i: u64| i * zs;
    let end = nr * zs;
    let k4 = 4096;
    let mut out = vec![
        (
            "write-pointer",
            vec![
                W(z(1), 8192),
                R(z(1), 16384),
                W(z(1), k4),
                W(z(1) + 16, k4),
                W(z(2) + 64, k4),
                W(z(2), k4),
                W(z(1) + 64, k4),
                W(z(1) + 24, k4),
                W(z(1) + 16, 1000),
                R(z(1), 1000),
            ],
        ),
        (
            "full-zone",
            vec![
                M(Finish, z(1), zs),
                W(z(1), k4),
                W(z(1) + cap - 8, k4),
                W(z(2), ((cap * 512) as usize).min(1 << 20)),
                M(Finish, z(2), zs),
                W(z(2) + cap - 8, k4),
                M(Reset, z(2), zs),
                W(z(2), k4),
            ],
        ),
        (
            "boundaries",
            vec![
                W(z(2) - 8, 8192),
                R(z(2) - 8, 8192),
                W(z(3), ((cap - 8) * 512) as usize),
                W(z(3) + cap - 8, 8192),
                R(z(3) + cap - 8, 8192),
                W(z(5) - 8, 8192),
                W(z(6), ((cap - 8) * 512) as usize),
                W(z(7), k4),
                W(z(6) + cap - 8, 8192),
                R(z(6) + cap - 8, 8192),
            ],
        ),
        (
            "device-end",
            vec![
                W(z(nr - 1), k4),
                W(end - 8, 8192),
                R(end - 8, 8192),
                M(Open, z(nr - 1), 2 * zs),
                M(Reset, end, zs),
                M(Finish, z(nr - 1), zs),
                W(end - 8, k4),
                W(end, k4),
                M(Reset, z(nr - 1), zs),
                W(z(nr - 1), ((cap - 8) * 512) as usize),
                W(z(nr - 1) + cap - 8, 8192),
                R(z(nr - 1) + cap - 8, k4),
                R(end - 8, 8192),
                R(end, k4),
            ],
        ),
        (
            "management",
            vec![
                M(Open, z(1), zs),
                M(Close, z(1), zs),
                M(Open, z(2), zs),
                W(z(2), k4),
                M(Close, z(2), zs),
                M(Close, z(2), zs),
                M(Finish, z(2), zs),
                M(Open, z(2), zs),
                M(Close, z(2), zs),
                M(Finish, z(2), zs),
                W(z(2), k4),
                M(Close, z(3), zs),
                M(Finish, z(3), zs),
                M(Reset, z(3), zs),
                M(Reset, z(3), zs),
                W(z(4), k4),
                M(Finish, z(4), zs),
                M(Open, z(5), zs),
                M(Finish, z(5), zs),
                W(z(6), k4),
                M(Open, z(6), zs),
                M(Close, z(6), zs),
                M(Open, z(6), zs),
                W(z(6) + 8, k4),
            ],
        ),
        (
            "ranges",
            vec![
                M(Reset, z(1) + 8, zs),
                M(Reset, z(1), zs - 8),
                M(Reset, z(1), 0),
                M(Open, z(1), 3 * zs),
                M(Close, z(1), 5 * zs),
                M(Open, z(5), zs),
                M(Close, z(4), 2 * zs),
                W(z(7), k4),
                W(z(8), k4),
                M(Reset, z(1), 8 * zs),
                M(Finish, z(9), 3 * zs),
                M(Reset, z(9), end - z(9)),
                M(Finish, z(2), zs),
                M(Open, z(1), 3 * zs),
                W(z(1), k4),
                M(Finish, z(3), zs),
                M(Open, z(2), 3 * zs),
                M(Reset, 0, end),
            ],
        ),
        (
            "open-limit",
            vec![
                M(Open, z(1), zs),
                M(Open, z(2), zs),
                M(Open, z(3), zs),
                M(Open, z(4), zs),
                M(Open, z(5), zs),
                W(z(5), k4),
                M(Finish, z(5), zs),
                M(Close, z(1), zs),
                W(z(5), k4),
                W(z(6), k4),
                M(Open, z(7), zs),
                M(Open, z(8), zs),
                W(z(6) + 8, k4),
                W(z(9), k4),
                M(Close, z(2), 3 * zs),
                M(Open, z(1), 9 * zs),
            ],
        ),
        (
            "implicit-open-churn",
            (1..=10).map(|i| W(z(i), k4)).chain([W(z(2) + 8, k4), W(z(9) + 8, k4), W(z(1) + 8, k4)]).collect(),
        ),
        (
            "active-limit",
            (1..=8)
                .flat_map(|i| [W(z(i), k4), M(Close, z(i), zs)])
                .chain([
                    W(z(9), k4),
                    M(Open, z(9), zs),
                    M(Finish, z(9), zs),
                    W(z(3) + 8, k4),
                    M(Open, z(4), zs),
                    M(Finish, z(5), zs),
                    W(z(9), k4),
                ])
                .collect(),
        ),
        (
            "reads",
            vec![
                W(z(1), 8192),
                R(z(1) + 16, k4),
                R(z(3), k4),
                M(Reset, z(1), zs),
                R(z(1), k4),
                M(Finish, z(2), zs),
                R(z(2), k4),
                R(z(2) + cap - 8, 8192),
                R(z(1) - 8, 16384),
            ],
        ),
    ];
    if conv > 0 {
        out.push((
            "conventional",
            vec![
                W(z(0) + 64, k4),
                R(z(0) + 64, k4),
                W(z(0) + 8, k4),
                M(Reset, z(0), zs),
                M(Open, z(0), zs),
                M(Close, z(0), zs),
                M(Finish, z(0), zs),
                W(z(1) - 8, 8192),
                R(z(1) - 8, 8192),
                W(z(1) - 8, 8192),
                M(Reset, 0, 3 * zs),
                M(Finish, 0, 2 * zs),
                M(Reset, 0, end),
            ],
        ));
    }
    out
}

/// A known difference on a kernel other than 6.12: the kernel series, the devices, the scenario,
/// the step, what differs, and why (the rule of that kernel that 6.12 has not).
struct Known {
    series: &'static str,
    devices: &'static [&'static str],
    scenario: &'static str,
    step: usize,
    what: &'static str,
    why: &'static str,
}

/// Every difference the twin (which follows 6.12) shows against Linux 6.1, each with the rule of
/// 6.1 that explains it. The scenarios check that a twin with 6.1's rules ([`Linux61`]) shows
/// none of them. null_blk and NVMe fail a write off the write pointer, and a reset of a
/// conventional zone, with EIO in the device as 6.12's block layer does, so only the SCSI disk
/// shows these.
const KNOWN_6_1: &[Known] = &[
    Known { series: "6.1", devices: &["zbc"], scenario: "write-pointer", step: 3, what: "result", why: NO_PLUG_CHECK },
    Known { series: "6.1", devices: &["zbc"], scenario: "write-pointer", step: 7, what: "result", why: NO_PLUG_CHECK },
    Known { series: "6.1", devices: &["zbc"], scenario: "boundaries", step: 6, what: "result", why: NO_PLUG_CHECK },
    Known { series: "6.1", devices: &["zbc"], scenario: "boundaries", step: 9, what: "result", why: NO_PLUG_CHECK },
    Known { series: "6.1", devices: &["zbc"], scenario: "device-end", step: 2, what: "result", why: NO_PLUG_CHECK },
    Known {
        series: "6.1",
        devices: &["zbc"],
        scenario: "conventional",
        step: 4,
        what: "result",
        why: CONVENTIONAL_MGMT,
    },
    Known {
        series: "6.1",
        devices: &["zbc"],
        scenario: "conventional",
        step: 7,
        what: "result",
        why: CONVENTIONAL_MGMT,
    },
    Known { series: "6.1", devices: &["zbc"], scenario: "conventional", step: 10, what: "result", why: NO_PLUG_CHECK },
    Known {
        series: "6.1",
        devices: &["zbc"],
        scenario: "conventional",
        step: 11,
        what: "result",
        why: CONVENTIONAL_MGMT,
    },
    Known {
        series: "6.1",
        devices: &["zbc"],
        scenario: "conventional",
        step: 12,
        what: "result",
        why: CONVENTIONAL_MGMT,
    },
];

/// 6.1 has no zone write plugs: a write off the write pointer of a partially written zone (or a
/// piece of a split write that is) reaches the device, which fails it with its own errno
/// (EREMOTEIO from a SCSI disk), where 6.12's plug fails it with EIO before the device sees it.
const NO_PLUG_CHECK: &str = "6.1 has no zone write plugs: the write off the write pointer reaches the disk (EREMOTEIO), where 6.12's plug fails it (EIO)";

/// 6.1 sends a reset or finish of a conventional zone to the device (EREMOTEIO from a SCSI disk);
/// 6.12's block layer fails it with EIO (`blk_zone_wplug_handle_zone_mgmt`).
const CONVENTIONAL_MGMT: &str = "6.1 sends a reset or finish of a conventional zone to the disk (EREMOTEIO); 6.12 fails it in the block layer (EIO)";

/// Run one device's scenarios; returns the differences, with their scenario and step.
fn scenario_differences(dev: &Dev, rules: Rules, log: &mut String) -> Vec<(&'static str, usize, Difference)> {
    let k = Kernel::open(dev);
    k.zero_conventional();
    let info = k.dev.info().clone();
    let t = Twin::memory(&info, &twin_overrides(dev, &info), rules);
    let g = &info.geometry;
    let mut out = Vec::new();
    let _ = writeln!(
        log,
        "== {} ({}, {:?}, limits {:?}, twin with {rules:?}'s block layer)",
        dev.label,
        dev.path.display(),
        info.personality,
        info.limits
    );
    let all = scenarios(g.zone_size, g.zone_capacity, u64::from(g.nr_zones), u64::from(g.nr_conv_zones));
    for (scenario, steps) in all {
        resync(&k, &t, &info);
        for (i, step) in steps.into_iter().enumerate() {
            let i = i + 1;
            let seed = i as u64 + 1;
            let ko = k.apply(step, seed);
            let kz = k.zones();
            let (to, _) = t.apply_as(step, seed, &ko, &kz);
            let diffs = compare(step, &ko, &to, &kz, &t.zones());
            let _ = writeln!(log, "{scenario:>20} #{i:<2} {step:<40} kernel: {ko:<24} twin: {to}");
            for d in diffs {
                let _ = writeln!(log, "   DIFF {}: {}", d.what, d.detail);
                out.push((scenario, i, d));
            }
        }
    }
    resync(&k, &t, &info);
    out
}

#[test]
#[ignore = "needs a zoned block device (scripts/vm/linux-tests.sh)"]
fn scenarios_match_the_kernel() {
    let series = kernel_series();
    let mut log = String::new();
    let mut unexpected = Vec::new();
    let mut seen = Vec::new();
    let devs = devices();
    // On 6.1, the differences from 6.12's block layer must be exactly those a twin with 6.1's
    // rules does not show: its differences are all unexpected.
    let mut unexplained = Vec::new();
    for dev in &devs {
        if series == "6.1" {
            for (scenario, step, d) in scenario_differences(dev, Rules::Linux61, &mut log) {
                unexplained.push(format!("{} {scenario} #{step} {}: {}", dev.label, d.what, d.detail));
            }
        }
        for (scenario, step, d) in scenario_differences(dev, Rules::Linux612, &mut log) {
            let known = KNOWN_6_1.iter().find(|k| {
                k.series == series
                    && k.devices.contains(&dev.label)
                    && (k.scenario, k.step, k.what) == (scenario, step, d.what)
            });
            match known {
                Some(k) => seen.push((dev.label, scenario, step, d.what, k.why)),
                None => unexpected.push(format!("{} {scenario} #{step} {}: {}", dev.label, d.what, d.detail)),
            }
        }
    }
    println!("{log}");
    println!("kernel {series}: {} known differences, {} unexpected", seen.len(), unexpected.len());
    for (dev, scenario, step, what, why) in &seen {
        println!("  known: {dev} {scenario} #{step} {what}: {why}");
    }
    for u in &unexpected {
        println!("  UNEXPECTED: {u}");
    }
    for u in &unexplained {
        println!("  DIFFERS FROM 6.1'S RULES: {u}");
    }
    let tested: Vec<&str> = devs.iter().map(|d| d.label).collect();
    let gone: Vec<String> = KNOWN_6_1
        .iter()
        .filter(|k| k.series == series)
        .flat_map(|k| k.devices.iter().map(move |d| (d, k)))
        .filter(|(d, k)| {
            tested.contains(d) && !seen.iter().any(|s| (s.0, s.1, s.2, s.3) == (**d, k.scenario, k.step, k.what))
        })
        .map(|(d, k)| format!("{d} {} #{} {}", k.scenario, k.step, k.what))
        .collect();
    assert!(unexpected.is_empty(), "{} unexpected differences (see above)", unexpected.len());
    assert!(unexplained.is_empty(), "{} differences from a twin with 6.1's rules (see above)", unexplained.len());
    assert!(gone.is_empty(), "known differences that no longer happen (remove them): {gone:?}");
}

// ---------------------------------------------------------------------------------------------
// Random sequences.

/// splitmix64: small, seedable, good enough to pick requests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A random request, biased towards the places where rules meet: write pointers, zone ends,
/// the device end, ranges over zones in every condition.
fn random_step(rng: &mut Rng, zones: &[Zone], zs: u64, lbs: u64) -> Step {
    let nr = zones.len() as u64;
    let end = nr * zs;
    let blocks = |rng: &mut Rng, max: u64| (1 + rng.below(max)) * lbs;
    let zi = rng.below(nr) as usize;
    let z = zones[zi];
    let kind = rng.below(100);
    if kind < 55 {
        let conv = z.cond == ZoneCond::NotWp;
        let wp = if conv || z.wp == u64::MAX { z.start + rng.below(zs / lbs) * lbs } else { z.wp };
        let sector = match rng.below(20) {
            0..=11 => wp,
            12 => z.start,
            13 => wp.saturating_sub(lbs * (1 + rng.below(4))).max(z.start),
            14 => wp + lbs * (1 + rng.below(4)),
            15 | 16 => z.start + z.capacity.saturating_sub(lbs * (1 + rng.below(8))),
            17 => end - lbs * (1 + rng.below(8)),
            _ => z.start + rng.below(zs / lbs) * lbs,
        };
        let bytes = match rng.below(10) {
            0..=5 => blocks(rng, 16) * 512,
            6 | 7 => blocks(rng, 256) * 512,
            8 => ((z.start + z.capacity).saturating_sub(sector).max(lbs) + lbs * rng.below(16)) * 512,
            _ if rng.chance(50) => 1000,
            _ => blocks(rng, 8) * 512,
        };
        Step::W(sector.min(end), bytes as usize)
    } else if kind < 75 {
        let sector = match rng.below(4) {
            0 => z.start,
            1 if z.wp != u64::MAX => z.wp.saturating_sub(lbs),
            2 => end - lbs * (1 + rng.below(8)),
            _ => z.start + rng.below(zs / lbs) * lbs,
        };
        Step::R(sector, (blocks(rng, 32) * 512) as usize)
    } else {
        let op = [ZoneOp::Open, ZoneOp::Close, ZoneOp::Finish, ZoneOp::Reset][rng.below(4) as usize];
        let (sector, nr_sectors) = match rng.below(20) {
            0..=11 => (z.start, zs),
            12..=16 => {
                let n = 2 + rng.below(4);
                (z.start, n.min(nr - zi as u64).max(1) * zs)
            }
            17 => (0, end),
            18 => (z.start, zs + zs * rng.below(3)),
            _ => (z.start + lbs * rng.below(2), zs - lbs * rng.below(2)),
        };
        Step::M(op, sector, nr_sectors)
    }
}

/// With `ZONEKIT_TRACE=1`, write `text` to the kernel's trace buffer (`trace_marker`), so that a
/// trace of the block layer's events shows which step issued them.
fn trace_marker(text: &str) {
    if std::env::var("ZONEKIT_TRACE").is_ok_and(|v| v == "1") {
        let _ = std::fs::write("/sys/kernel/tracing/trace_marker", text);
    }
}

/// One random run: `steps` requests from `seed` on the kernel's device and on a twin; the first
/// difference ends the run and is returned with its step.
fn random_run(dev: &Dev, rules: Rules, seed: u64, steps: usize, persistent: bool, log: &mut String) -> Option<String> {
    let k = Kernel::open(dev);
    k.zero_conventional();
    let info = k.dev.info().clone();
    let g = info.geometry.clone();
    let tmp = tempfile::tempdir().expect("temporary directory");
    let o = twin_overrides(dev, &info);
    let t = if persistent {
        Twin::persistent(&info, &o, rules, &tmp.path().join("twin"))
    } else {
        Twin::memory(&info, &o, rules)
    };
    resync(&k, &t, &info);
    let mut rng = Rng(seed);
    let lbs = u64::from(g.logical_block_size) / SECTOR_SIZE;
    let mut kz = k.zones();
    let mut history: Vec<String> = Vec::new();
    // `ZONEKIT_DIFF_VERBOSE=1`: every step in the log, not only those before a difference.
    let verbose = std::env::var("ZONEKIT_DIFF_VERBOSE").is_ok_and(|v| v == "1");
    let mut reordered = 0;
    for i in 0..steps {
        let step = random_step(&mut rng, &kz, g.zone_size, lbs);
        let data_seed = rng.next();
        trace_marker(&format!("{} step {i}: {step}", dev.label));
        let ko = k.apply(step, data_seed);
        // A zone report refreshes the kernel's cached write pointers (6.12 needs one after a
        // failed write), so in-memory runs skip it now and then; separate commands report. A 6.1
        // write into a second zone always reports: its pieces' order is the kernel's choice
        // (`Linux61`), and the twin follows the order that gives the kernel's result and zones.
        let orders = t.orders(step);
        let report = persistent || rng.chance(70) || orders > 1;
        if report {
            kz = k.zones();
        }
        let (to, order) = t.apply_as(step, data_seed, &ko, if report { &kz } else { &[] });
        let diffs = if report { compare(step, &ko, &to, &kz, &t.zones()) } else { compare(step, &ko, &to, &[], &[]) };
        let how = match (report, order) {
            (false, _) => " (no report)".to_string(),
            (true, 0) => String::new(),
            (true, o) => {
                reordered += 1;
                format!(" (the next zone's first piece after {} of {orders} pieces)", o + 1)
            }
        };
        history.push(format!("#{i} {step}: kernel {ko}, twin {to}{how}"));
        if verbose {
            let _ = writeln!(log, "   {}", history[history.len() - 1]);
        }
        if !diffs.is_empty() {
            let text: Vec<String> = diffs.iter().map(|d| format!("{}: {}", d.what, d.detail)).collect();
            for h in &history[if verbose { history.len() } else { history.len().saturating_sub(12) }..] {
                let _ = writeln!(log, "   {h}");
            }
            let zones: Vec<String> =
                k.zones().iter().enumerate().map(|(n, z)| format!("{n}:{}", describe_zone(z))).collect();
            let _ = writeln!(log, "   kernel zones now: {}", zones.join(" "));
            resync(&k, &t, &info);
            if reordered > 0 {
                let _ = writeln!(log, "   {reordered} writes' pieces in a later order");
            }
            return Some(format!(
                "{} seed {seed:#x}{} step {i}: {step}: kernel {ko}, twin {to}; {}",
                dev.label,
                if persistent { " (persistent twin)" } else { "" },
                text.join("; ")
            ));
        }
    }
    resync(&k, &t, &info);
    if reordered > 0 {
        let _ = writeln!(log, "   {steps} steps, {reordered} writes' pieces in a later order");
    }
    None
}

#[test]
#[ignore = "needs a zoned block device (scripts/vm/linux-tests.sh)"]
fn random_sequences_match_the_kernel() {
    let series = kernel_series();
    let steps: usize = std::env::var("ZONEKIT_DIFF_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(250);
    let base = match std::env::var("ZONEKIT_DIFF_SEED").ok() {
        Some(s) => u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("ZONEKIT_DIFF_SEED in hex"),
        None => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64),
    };
    // The twin has the running kernel's block layer: on 6.1, the steps where 6.12's rules differ
    // are those 6.1 has not (the scenarios list them); what a twin with 6.1's rules does not
    // explain is a difference.
    let rules = if series == "6.1" { Rules::Linux61 } else { Rules::Linux612 };
    println!(
        "kernel {series}: random differential against a twin with {rules:?}'s block layer, base seed {base:#x} (ZONEKIT_DIFF_SEED={base:x} replays it)"
    );
    let mut log = String::new();
    let mut failures = Vec::new();
    let mut total = 0;
    // `ZONEKIT_DIFF_ONLY=LABEL` or `LABEL/memory` or `LABEL/persistent` replays one device's runs.
    let only = std::env::var("ZONEKIT_DIFF_ONLY").unwrap_or_default();
    let (only_label, only_kind) = only.split_once('/').unwrap_or((only.as_str(), ""));
    for dev in devices().iter().filter(|d| only_label.is_empty() || d.label == only_label) {
        // Two runs per device: the twin in memory, then a persistent twin reopened at every step.
        for persistent in [false, true] {
            if only_kind == if persistent { "memory" } else { "persistent" } {
                continue;
            }
            let n = dev.index as u64;
            let seed = base ^ (n << 8 | u64::from(persistent)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let _ = writeln!(log, "== {} seed {seed:#x}{}", dev.label, if persistent { " persistent" } else { "" });
            total += steps;
            if let Some(f) = random_run(dev, rules, seed, steps, persistent, &mut log) {
                failures.push(f);
            }
        }
    }
    println!("{log}");
    println!("random differential: {total} steps planned, {} runs failed", failures.len());
    for f in &failures {
        println!("  FIRST DIFFERENCE: {f}");
    }
    assert!(failures.is_empty(), "the twin differs from the kernel (seeds and steps above)");
}

// ---------------------------------------------------------------------------------------------
// The kernel's own rules where 6.1 and 6.12 may differ.

/// One probe: a name and the outcome, as one line of the findings table.
fn probe_line(table: &mut Vec<(String, String)>, name: &str, outcome: String) {
    table.push((name.to_string(), outcome));
}

fn show(r: &Result<usize, Errno>) -> String {
    match r {
        Ok(n) => format!("ok {n}"),
        Err(e) => e.name().unwrap_or("errno?").to_string(),
    }
}

fn show_unit(r: &Result<(), Errno>) -> String {
    show(&r.map(|()| 0)).replace("ok 0", "ok")
}

fn conds(k: &Kernel, zones: &[u64], zs: u64) -> String {
    zones
        .iter()
        .map(|&i| {
            let z = k.report(i * zs, 1)[0];
            format!("{i}:{}", describe_zone(&z))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Probe the kernel: each line is a question of scripts/vm/README.md's tables.
fn probe(dev: &Dev) -> Vec<(String, String)> {
    let k = Kernel::open(dev);
    let g = k.dev.info().geometry.clone();
    let zs = g.zone_size;
    let b = SECTOR_SIZE;
    let blk = (dev.lbs as usize).max(4096);
    let mut t = Vec::new();
    let reset = |k: &Kernel| k.zone_mgmt(ZoneOp::Reset, 0, g.capacity).expect("reset all");
    reset(&k);

    // Writes to a full zone: at its start, and at its end (the write pointer of a full zone).
    k.zone_mgmt(ZoneOp::Finish, zs, zs).unwrap();
    probe_line(&mut t, "write at the start of a FULL zone (finished)", show(&k.write(zs * b, &pattern(1, blk))));
    k.write(2 * zs * b, &pattern(1, (g.zone_capacity * b) as usize)).unwrap();
    probe_line(
        &mut t,
        "write at the start of a FULL zone (written full)",
        show(&k.write(2 * zs * b, &pattern(1, blk))),
    );

    // Writes not at the write pointer.
    k.write(3 * zs * b, &pattern(2, 8192)).unwrap();
    probe_line(
        &mut t,
        "write ahead of the wp, partly written zone",
        show(&k.write((3 * zs + 64) * b, &pattern(3, blk))),
    );
    probe_line(&mut t, "  then a write at the wp", show(&k.write((3 * zs + 16) * b, &pattern(3, blk))));
    probe_line(&mut t, "write behind the wp, partly written zone", show(&k.write(3 * zs * b, &pattern(3, blk))));
    let wp = k.report(3 * zs, 1)[0].wp;
    probe_line(&mut t, "  then a write at the (new) wp", show(&k.write(wp * b, &pattern(3, blk))));
    probe_line(&mut t, "write ahead of the wp, empty zone", show(&k.write((4 * zs + 64) * b, &pattern(4, blk))));
    probe_line(&mut t, "  then the write at the wp (zone start)", show(&k.write(4 * zs * b, &pattern(4, blk))));
    probe_line(&mut t, "  zone after it", conds(&k, &[4], zs));
    // A failed write, then a write at the wp with and without a report in between.
    k.write(5 * zs * b, &pattern(5, 8192)).unwrap();
    let _ = k.write((5 * zs + 64) * b, &pattern(5, blk));
    let _ = k.report(5 * zs, 1);
    probe_line(
        &mut t,
        "write ahead fails, zone report, write at the wp",
        show(&k.write((5 * zs + 16) * b, &pattern(5, blk))),
    );

    // After a failed write, what clears the zone's error: each line fails a write ahead of the
    // wp of a partly written zone, does something, then writes at the wp.
    let after_failure = |k: &Kernel, what: &str, t: &mut Vec<(String, String)>, f: &dyn Fn(&Kernel, u64)| {
        reset(k);
        let z = 7 * zs;
        k.write(z * b, &pattern(9, 8192)).unwrap();
        k.write(8 * zs * b, &pattern(9, 8192)).unwrap();
        let failed = k.write((z + 64) * b, &pattern(9, blk));
        assert!(failed.is_err(), "{}: a write ahead of the wp succeeded", dev.label);
        f(k, z);
        // The wp is known (16 sectors written): no zone report of zone 7 before the write.
        probe_line(t, what, show(&k.write((z + 16) * b, &pattern(9, blk))));
    };
    after_failure(&k, "write ahead fails, then (nothing), write at the wp", &mut t, &|_, _| {});
    after_failure(&k, "write ahead fails, then a read of the zone, write at the wp", &mut t, &|k, z| {
        let _ = k.read(z * b, 4096);
    });
    after_failure(&k, "write ahead fails, then a report of the next zone only, write at the wp", &mut t, &|k, z| {
        let _ = k.report(z + zs, 1);
    });
    after_failure(&k, "write ahead fails, then a report from zone 0 (all zones), write at the wp", &mut t, &|k, _| {
        let _ = k.report(0, usize::MAX);
    });
    after_failure(&k, "write ahead fails, then a write at the next zone's wp, write at the wp", &mut t, &|k, z| {
        let _ = k.write((z + zs + 16) * b, &pattern(9, blk));
    });
    after_failure(&k, "write ahead fails, then CLOSE and OPEN of the zone, write at the wp", &mut t, &|k, z| {
        let _ = k.zone_mgmt(ZoneOp::Close, z, zs);
        let _ = k.zone_mgmt(ZoneOp::Open, z, zs);
    });
    reset(&k);
    k.write(7 * zs * b, &pattern(9, 8192)).unwrap();
    let _ = k.write((7 * zs + 64) * b, &pattern(9, blk));
    k.zone_mgmt(ZoneOp::Reset, 7 * zs, zs).unwrap();
    probe_line(
        &mut t,
        "write ahead fails, then RESET of the zone, write at its start",
        show(&k.write(7 * zs * b, &pattern(9, blk))),
    );
    reset(&k);
    k.write(7 * zs * b, &pattern(9, 8192)).unwrap();
    let _ = k.write((7 * zs + 64) * b, &pattern(9, blk));
    let fin = k.zone_mgmt(ZoneOp::Finish, 7 * zs, zs);
    probe_line(
        &mut t,
        "write ahead fails, then FINISH of the zone, write at its start",
        format!("{} {}", show_unit(&fin), show(&k.write(7 * zs * b, &pattern(9, blk)))),
    );

    // Writes across a zone boundary of which one part fails.
    reset(&k);
    probe_line(
        &mut t,
        "write crossing from an empty zone's end (not its wp) into the next empty zone",
        format!("{} -> {}", show(&k.write((3 * zs - 8) * b, &pattern(10, 8192))), conds(&k, &[2, 3], zs)),
    );
    reset(&k);
    k.write(zs * b, &pattern(10, ((g.zone_capacity - 8) * b) as usize)).unwrap();
    k.write(2 * zs * b, &pattern(10, 4096)).unwrap();
    probe_line(
        &mut t,
        "write crossing from the wp at a zone's end into a written zone (not its wp)",
        format!("{} -> {}", show(&k.write((zs + g.zone_capacity - 8) * b, &pattern(10, 8192))), conds(&k, &[1, 2], zs)),
    );

    // Writes of several bios (more than 1 MiB) across a zone boundary: how much of the first
    // zone lands when the part in the next zone fails.
    let big = ((zs + 16) * b) as usize;
    reset(&k);
    probe_line(
        &mut t,
        "write of zone size + 8 KiB at an empty zone's start, next zone empty",
        format!("{} -> {}", show(&k.write(10 * zs * b, &pattern(11, big))), conds(&k, &[10, 11], zs)),
    );
    reset(&k);
    k.write(11 * zs * b, &pattern(11, 4096)).unwrap();
    probe_line(
        &mut t,
        "write of zone size + 8 KiB at an empty zone's start, next zone written 4 KiB",
        format!("{} -> {}", show(&k.write(10 * zs * b, &pattern(11, big))), conds(&k, &[10, 11], zs)),
    );
    reset(&k);
    k.zone_mgmt(ZoneOp::Finish, 11 * zs, zs).unwrap();
    probe_line(
        &mut t,
        "write of zone size + 8 KiB at an empty zone's start, next zone FULL",
        format!("{} -> {}", show(&k.write(10 * zs * b, &pattern(11, big))), conds(&k, &[10, 11], zs)),
    );

    // A write across a zone boundary and past the device end.
    reset(&k);
    k.write(zs * b, &pattern(6, ((g.zone_capacity - 8) * b) as usize)).unwrap();
    probe_line(
        &mut t,
        "write at the wp crossing into the next (empty) zone",
        format!("{} -> {}", show(&k.write((zs + g.zone_capacity - 8) * b, &pattern(6, 8192))), conds(&k, &[1, 2], zs)),
    );
    let last = g.capacity - zs;
    k.write(last * b, &pattern(7, ((g.zone_capacity - 8) * b) as usize)).unwrap();
    let end_write = k.write((g.capacity - 8) * b, &pattern(7, 8192));
    probe_line(&mut t, "write of 8 KiB at the wp 4 KiB before the device end", show(&end_write));
    probe_line(&mut t, "  then the rest, at the device end", show(&k.write(g.capacity * b, &pattern(7, blk))));
    probe_line(
        &mut t,
        "read of 8 KiB 4 KiB before the device end",
        show(&k.read((g.capacity - 8) * b, 8192).map(|d| d.len())),
    );
    probe_line(&mut t, "read at the device end", show(&k.read(g.capacity * b, 4096).map(|d| d.len())));

    // Management ranges whose middle zone fails.
    reset(&k);
    k.zone_mgmt(ZoneOp::Finish, 5 * zs, zs).unwrap();
    probe_line(
        &mut t,
        "OPEN zones 4-6, 5 FULL",
        format!("{} -> {}", show_unit(&k.zone_mgmt(ZoneOp::Open, 4 * zs, 3 * zs)), conds(&k, &[4, 5, 6], zs)),
    );
    reset(&k);
    k.zone_mgmt(ZoneOp::Open, 4 * zs, zs).unwrap();
    k.zone_mgmt(ZoneOp::Open, 6 * zs, zs).unwrap();
    probe_line(
        &mut t,
        "CLOSE zones 4-6, 4 and 6 open, 5 empty",
        format!("{} -> {}", show_unit(&k.zone_mgmt(ZoneOp::Close, 4 * zs, 3 * zs)), conds(&k, &[4, 5, 6], zs)),
    );
    reset(&k);
    k.zone_mgmt(ZoneOp::Finish, 5 * zs, zs).unwrap();
    k.write(6 * zs * b, &pattern(8, 8192)).unwrap();
    probe_line(
        &mut t,
        "FINISH zones 4-6, 5 FULL, 6 written",
        format!("{} -> {}", show_unit(&k.zone_mgmt(ZoneOp::Finish, 4 * zs, 3 * zs)), conds(&k, &[4, 5, 6], zs)),
    );
    reset(&k);
    let max_open = u64::from(k.dev.info().limits.max_open);
    if max_open > 0 && max_open + 3 < u64::from(g.nr_zones) {
        // Zone 2 full (fails first, with the zone-rule errno), then the open limit (ETOOMANYREFS).
        k.zone_mgmt(ZoneOp::Finish, 2 * zs, zs).unwrap();
        let r = k.zone_mgmt(ZoneOp::Open, zs, (max_open + 2) * zs);
        probe_line(
            &mut t,
            "OPEN zones 1..=max_open+2, 2 FULL (then the open limit)",
            format!("{} -> {}", show_unit(&r), conds(&k, &(1..=max_open + 2).collect::<Vec<_>>(), zs)),
        );
        reset(&k);
    }
    reset(&k);
    t
}

/// What each kernel answers where the answer is a rule (the tables in scripts/vm/README.md have
/// every answer); `None`: not checked. These are the rules 6.1 and 6.12 differ on and those the
/// twin relies on.
fn expected(series: &str, p: Personality, question: &str) -> Option<&'static str> {
    let v612 = series == "6.12";
    let zbc = p == Personality::Zbc;
    Some(match question {
        // 6.12's write plugs check a write against the cached write pointer of a partly written
        // zone and fail it with EIO whatever the transport; 6.1 leaves it to the device.
        "write ahead of the wp, partly written zone" | "write behind the wp, partly written zone" => {
            if zbc && !v612 {
                "EREMOTEIO"
            } else {
                "EIO"
            }
        }
        // An empty zone has no plug: the device decides.
        "write ahead of the wp, empty zone" => {
            if zbc {
                "EREMOTEIO"
            } else {
                "EIO"
            }
        }
        // 6.12: after a failed write, the zone's writes fail until a zone report covering it, a
        // reset or a finish; 6.1 has no such state.
        "  then a write at the wp"
        | "  then the write at the wp (zone start)"
        | "write ahead fails, then (nothing), write at the wp"
        | "write ahead fails, then a read of the zone, write at the wp"
        | "write ahead fails, then a report of the next zone only, write at the wp"
        | "write ahead fails, then a write at the next zone's wp, write at the wp"
        | "write ahead fails, then CLOSE and OPEN of the zone, write at the wp" => {
            if v612 {
                "EIO"
            } else {
                "ok 4096"
            }
        }
        "write ahead fails, zone report, write at the wp"
        | "write ahead fails, then a report from zone 0 (all zones), write at the wp"
        | "write ahead fails, then RESET of the zone, write at its start"
        | "  then a write at the (new) wp" => "ok 4096",
        "  then the rest, at the device end" => "ENOSPC",
        "read at the device end" => "ok 0",
        "read of 8 KiB 4 KiB before the device end" => "ok 4096",
        _ => return None,
    })
}

#[test]
#[ignore = "needs a zoned block device (scripts/vm/linux-tests.sh)"]
fn kernel_rules() {
    let series = kernel_series();
    // Questions in the order the probes ask them, each with every device's answer.
    let mut rows: Vec<(String, BTreeMap<&str, String>)> = Vec::new();
    let devs = devices();
    let mut wrong = Vec::new();
    for dev in &devs {
        for (q, a) in probe(dev) {
            if let Some(want) = expected(&series, dev.personality, &q)
                && want != a
            {
                wrong.push(format!("{}: {q}: {a}, expected {want}", dev.label));
            }
            match rows.iter_mut().find(|r| r.0 == q) {
                Some(r) => {
                    r.1.insert(dev.label, a);
                }
                None => rows.push((q, BTreeMap::from([(dev.label, a)]))),
            }
        }
    }
    let labels: Vec<&str> = devs.iter().map(|d| d.label).collect();
    println!("kernel {series}:");
    println!("| question | {} |", labels.join(" | "));
    println!("|---|{}", "---|".repeat(labels.len()));
    for (q, answers) in &rows {
        let cells: Vec<&str> = labels.iter().map(|l| answers.get(l).map_or("-", |a| a.as_str())).collect();
        println!("| {q} | {} |", cells.join(" | "));
    }
    assert!(wrong.is_empty(), "the kernel's rules changed: {wrong:#?}");
}

// ---------------------------------------------------------------------------------------------
// The random generator without a kernel: the in-memory twin against the persistent one.

/// The description of a kernel device as the VM lane has it, for the kernel-less replay: 16 zones
/// of 4 MiB, `conv` conventional, the open and active limits, the queue's `max_sectors_kb`.
fn lane_info(personality: Personality, conv: u32, max_open: u32, max_active: u32, max_sectors_kb: u32) -> DeviceInfo {
    let zs = 8192;
    let geometry = zonekit_core::Geometry::with_zones(zs, 16, zs, conv, 512).unwrap();
    let limits = zonekit_core::Limits { max_open, max_active, max_append_sectors: 256 }.normalized(&geometry).unwrap();
    let config = DeviceConfig {
        personality,
        geometry,
        limits,
        profile: None,
        rotational: false,
        vendor: "test".into(),
        description: "replay twin".into(),
        model: None,
        queue: zonekit_core::QueueSettings { max_sectors_kb, zoned_qd1_writes: false },
    };
    let kind = DeviceKind::Emulated { store: "memory".into(), profile: None };
    EmulatedDevice::new("replay", kind, &config, Box::new(MemoryStore::new())).info().clone()
}

/// `random_run` with the in-memory twin standing for the kernel and the persistent twin under
/// test: the generator draws from the in-memory twin's zones, as it draws from the kernel's.
/// Under 6.1's rules the stand-in sends the pieces of a write into a second zone in an order of
/// its own (drawn from another generator, as 6.1's timing picks one), and the persistent twin must
/// find it ([`Twin::apply_as`]). Returns the first difference (its "kernel" side is the in-memory
/// twin) and how many writes the stand-in sent in a later order than the first.
fn twins_run(info: &DeviceInfo, rules: Rules, seed: u64, steps: usize) -> (Option<String>, usize) {
    let o = LimitOverrides {
        max_sectors_kb: Some(info.queue.max_sectors_kb),
        zoned_qd1_writes: Some(false),
        ..LimitOverrides::default()
    };
    // In memory when the machine has a tmpfs: the reopens sync the state file at every step.
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.expect("temporary directory");
    let m = Twin::memory(info, &o, rules);
    let p = Twin::persistent(info, &o, rules, &tmp.path().join("twin"));
    let g = &info.geometry;
    m.with(|b| b.zone_mgmt(ZoneOp::Reset, 0, g.capacity)).expect("reset all");
    p.with(|b| b.zone_mgmt(ZoneOp::Reset, 0, g.capacity)).expect("reset all");
    let mut rng = Rng(seed);
    let lbs = u64::from(g.logical_block_size) / SECTOR_SIZE;
    let mut mz = m.zones();
    let mut history = Vec::new();
    let mut timing = Rng(!seed);
    let mut reordered = 0;
    for i in 0..steps {
        let step = random_step(&mut rng, &mz, g.zone_size, lbs);
        let data_seed = rng.next();
        let mo = match step {
            Step::W(s, n) if m.orders(step) > 1 => {
                let order = timing.below(m.orders(step) as u64) as usize;
                reordered += usize::from(order > 0);
                let r = m.with(|b| b.write_in_order(s * SECTOR_SIZE, &pattern(data_seed, n), order));
                r.map(Outcome::Wrote).unwrap_or_else(Outcome::Err)
            }
            _ => m.apply(step, data_seed),
        };
        mz = m.zones();
        let (po, order) = p.apply_as(step, data_seed, &mo, &mz);
        let diffs = compare(step, &mo, &po, &mz, &p.zones());
        history.push(format!("#{i} {step}: memory {mo}, persistent {po} (order {order})"));
        if !diffs.is_empty() {
            let text: Vec<String> = diffs.iter().map(|d| format!("{}: {}", d.what, d.detail)).collect();
            let last = history[history.len().saturating_sub(8)..].join("\n  ");
            return (Some(format!("seed {seed:#x} step {i}: {}\n  {last}", text.join("; "))), reordered);
        }
    }
    (None, reordered)
}

/// The VM lane's failure on 6.1's NVMe ZNS with a persistent twin (base seed `18eb5680688426e4`,
/// run seed `0x64f50936c1bef6f1`, step 96), replayed without the kernel: the persistent twin must
/// do what the in-memory one does, under both kernels' block layers.
#[test]
fn random_generator_replays_without_a_kernel() {
    let base = 0x18eb_5680_6884_26e4u64;
    let zns = 4u64;
    let seed = base ^ (zns << 8 | 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    assert_eq!(seed, 0x64f5_0936_c1be_f6f1, "the lane's seed derivation");
    // The lane's run (ZNS under 6.1's rules, past its step 96), then every personality under
    // both kernels' rules with two more seeds: null_blk's round-robin cursor and the oldest-first
    // order of ZNS must survive every reopen.
    let mut failures = Vec::new();
    let mut reordered = 0;
    for seed in [seed, 1, 0x5eed] {
        for rules in [Rules::Linux61, Rules::Linux612] {
            for (p, conv) in [(Personality::Zns, 0), (Personality::NullBlk, 1), (Personality::Zbc, 1)] {
                let info = lane_info(p, conv, 4, 8, 512);
                let (f, r) = twins_run(&info, rules, seed, 120);
                if let Some(f) = f {
                    failures.push(format!("{p:?} {rules:?}: {f}"));
                }
                assert!(rules == Rules::Linux61 || r == 0, "6.12's twin has one order");
                reordered += r;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The stand-in drew a later order for some writes (the persistent twin found an order that
    // gives the same result and zones for each).
    assert!(reordered > 0, "no write's pieces went in a later order");
}

/// The 6.1 lane's flake (NVMe ZNS, persistent twin, base seed `18eb5680688426e4`, step 96, a
/// write of the last 8183 sectors of zone 9 and 5 sectors of zone 10, at the open limit with zone
/// 9 the oldest implicitly open zone), replayed without a kernel: when zone 10's piece reaches the
/// device after zone 9's last piece (as 6.1's writer, still splitting while kblockd dispatches,
/// can deliver it), zone 9 is full and opening zone 10 closes no other zone, so zone 0 stays open:
/// the kernel's report of that run. Sent after zone 9's first piece (order 0), zone 9's next
/// piece reopens it and closes zone 0: the twin's report of that run. The twin must find the
/// kernel's order from its result and zones.
#[test]
fn split_write_order_of_linux_6_1_replays_without_a_kernel() {
    let seed = 0x64f5_0936_c1be_f6f1u64;
    let info = lane_info(Personality::Zns, 0, 4, 8, 512);
    let o = LimitOverrides { max_sectors_kb: Some(512), zoned_qd1_writes: Some(false), ..LimitOverrides::default() };
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.expect("temporary directory");
    // `k` stands for the kernel, `t` is the lane's twin.
    let k = Twin::memory(&info, &o, Rules::Linux61);
    let t = Twin::persistent(&info, &o, Rules::Linux61, &tmp.path().join("twin"));
    let g = &info.geometry;
    k.with(|b| b.zone_mgmt(ZoneOp::Reset, 0, g.capacity)).expect("reset all");
    t.with(|b| b.zone_mgmt(ZoneOp::Reset, 0, g.capacity)).expect("reset all");
    let mut rng = Rng(seed);
    let mut kz = k.zones();
    for i in 0..=96 {
        let step = random_step(&mut rng, &kz, g.zone_size, 1);
        let data_seed = rng.next();
        if i < 96 {
            let (ko, to) = (k.apply(step, data_seed), t.apply(step, data_seed));
            kz = k.zones();
            assert!(compare(step, &ko, &to, &kz, &t.zones()).is_empty(), "step {i}: {step}: {ko} / {to}");
            continue;
        }
        assert_eq!(step, Step::W(73737, 4192256), "the lane's step 96");
        let zone9 = kz[9];
        assert_eq!((zone9.cond, zone9.wp - zone9.start), (ZoneCond::ImplicitOpen, 9), "zone 9 before step 96");
        let orders = t.orders(step);
        assert_eq!(orders, 8, "zone 9's part is 8 pieces of at most 1024 sectors");
        // The kernel: zone 10's piece after all of zone 9's.
        let ko = k.with(|b| b.write_in_order(73737 * SECTOR_SIZE, &pattern(data_seed, 4192256), orders - 1));
        let ko = ko.map(Outcome::Wrote).unwrap_or_else(Outcome::Err);
        assert_eq!(ko, Outcome::Wrote(4192256));
        kz = k.zones();
        assert_eq!(kz[0].cond, ZoneCond::ImplicitOpen, "zone 0 stays open (the kernel's report)");
        // The first order is the lane's twin: zone 0 closed, the flake.
        let (first, zones) =
            t.with(|b| b.try_write_in_order(73737 * SECTOR_SIZE, &pattern(data_seed, 4192256), 0)).expect("6.1 orders");
        assert_eq!(first, Ok(4192256));
        assert_eq!(zones[0].cond, ZoneCond::Closed, "order 0 closes zone 0");
        // Which orders give the kernel's zones: the late ones only.
        let matching: Vec<usize> = (0..orders)
            .filter(|&o| {
                let (r, zones) = t
                    .with(|b| b.try_write_in_order(73737 * SECTOR_SIZE, &pattern(data_seed, 4192256), o))
                    .expect("6.1 orders");
                compare(step, &ko, &r.map(Outcome::Wrote).unwrap_or_else(Outcome::Err), &kz, &zones).is_empty()
            })
            .collect();
        assert_eq!(matching, [orders - 1], "only zone 10's piece after all of zone 9's gives the kernel's zones");
        let (to, order) = t.apply_as(step, data_seed, &ko, &kz);
        assert_eq!(order, orders - 1);
        assert!(compare(step, &ko, &to, &kz, &t.zones()).is_empty(), "the twin follows the kernel's order");
    }
}
