//! fio 3.33's zone policy for one job on one file (`zbd.c`): where a write goes (a write pointer
//! of a zone in the write set, with fio's zone selection), where a read goes (below a write
//! pointer), trims as zone resets, the threshold/frequency resets, and what submission and
//! completion do to the zone state.
//!
//! The decisions are fio's, step for step, so that a job picks the zones fio picks; they wait
//! where fio waits (a zone locked by another job, draining the job's own I/O before a reset or
//! when the write set is full) through [`JobIo`], which the job loop implements. The functions
//! are `async` so that one code path serves a thread (waits block it) and an event loop (waits
//! yield).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use zonekit_core::ZoneCond;

use super::state::{Model, Shared, ZbdFile};
use crate::workload::Dir;

/// What the zone policy needs from the job that runs it (fio's `td`).
#[allow(async_fn_in_trait)]
pub trait JobIo {
    /// The job's index in the run (0-based).
    fn job_id(&self) -> u32;

    /// Whether the job's engine is synchronous (fio's `FIO_SYNCIO`: nothing to drain).
    fn sync_engine(&self) -> bool;

    /// fio's `io_u_quiesce`: send what is queued and complete every I/O the job has in flight.
    async fn quiesce(&mut self);

    /// Reset the zones of `len` bytes at `offset` of the job's file `file` on the device, and
    /// wait for it: 0 or `-errno`.
    async fn reset_zones(&mut self, file: usize, offset: u64, len: u64) -> i32;

    /// Count one zone reset (fio's `nr_zone_resets`).
    fn zone_reset_done(&mut self);

    /// Record the job's error (fio's `td_verror`): the errno and what failed.
    fn verror(&mut self, errno: i32, func: &str);

    /// Report a line as fio's `log_err` does.
    fn log_err(&mut self, line: String);

    /// Whether `--debug=CLASS` lines of `class` (`zbd`, `io`) are kept (by default, none).
    fn trace_on(&self, _class: crate::debug::Class) -> bool {
        false
    }

    /// A `--debug` line of the I/O being placed, printed with the job's other lines for it.
    fn trace_line(&mut self, _class: crate::debug::Class, _line: String) {}
}

/// A `--debug=zbd` line through `q`, formatted only when the class is on.
fn zbd_line<Q: JobIo>(q: &mut Q, line: impl FnOnce() -> String) {
    if q.trace_on(crate::debug::Class::Zbd) {
        q.trace_line(crate::debug::Class::Zbd, line());
    }
}

/// A `--debug=io` line through `q`.
fn io_line<Q: JobIo>(q: &mut Q, line: impl FnOnce() -> String) {
    if q.trace_on(crate::debug::Class::Io) {
        q.trace_line(crate::debug::Class::Io, line());
    }
}

/// An I/O the workload proposes and the policy may move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneIo {
    /// Direction (read, write or trim).
    pub dir: Dir,
    /// Byte offset in the file.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
}

/// What the policy decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Issue the I/O (as adjusted). `zone` is the sequential zone it holds locked until it
    /// completes (`None` for a conventional zone or a read beyond the write pointer).
    Accept {
        /// Locked zone.
        zone: Option<u32>,
    },
    /// No I/O can be placed in this file (fio's `io_u_eof`): the file is done.
    Eof,
}

/// The zone policy of one job on one file (fio's per-file `min_zone`/`max_zone` and the job's
/// zone options).
#[derive(Debug, Clone)]
pub struct ZoneJob {
    /// The shared zone state.
    pub file: Arc<ZbdFile>,
    /// Index of the file among the job's files.
    pub file_index: usize,
    /// The job's range in the file after zone alignment (fio's `file_offset`, `io_size`).
    pub file_offset: u64,
    /// Length of the range.
    pub io_size: u64,
    /// Zones of the range: `[min_zone, max_zone)`.
    pub min_zone: u32,
    /// First zone past the range.
    pub max_zone: u32,
    /// Smallest block size per direction.
    pub min_bs: [u64; 3],
    /// Random offsets (`td_random`).
    pub random: bool,
    /// Reads and writes mixed (`td_rw`).
    pub rw_mixed: bool,
    /// `job_max_open_zones`.
    pub job_max_open_zones: u32,
    /// `read_beyond_wp`.
    pub read_beyond_wp: bool,
    /// `zone_reset_threshold`.
    pub reset_threshold: f64,
    /// `zone_reset_frequency`.
    pub reset_frequency: f64,
    /// Data verification is on (full zones are not written).
    pub verify: bool,
}

const WRITE: usize = 1;

fn dir_index(d: Dir) -> usize {
    match d {
        Dir::Read => 0,
        Dir::Write => 1,
        _ => 2,
    }
}

impl ZoneJob {
    fn valid(&self, offset: u64) -> bool {
        offset.wrapping_sub(self.file_offset) < self.io_size
    }

    /// fio's `pick_random_zone_idx`: the random offset mapped proportionally onto the write set.
    fn pick_idx(&self, offset: u64, num_open: u32) -> u32 {
        (((offset - self.file_offset) as u128 * u128::from(num_open)) / u128::from(self.io_size.max(1))) as u32
    }

    fn full(&self, s: &Shared, z: u32, required: u64) -> bool {
        self.file.has_wp(z) && s.zones[z as usize].wp + required > self.file.cap_end(z)
    }

    /// A zone that can take no write: offline (fio) or read-only (zonekit: fio 3.33 would try
    /// and fail).
    fn unwritable(cond: ZoneCond) -> bool {
        matches!(cond, ZoneCond::Offline | ZoneCond::ReadOnly)
    }

    /// Take zone `z`'s lock, draining the job's own I/O first if another job holds it (fio's
    /// `zone_lock`).
    async fn zone_lock<Q: JobIo>(&self, z: u32, q: &mut Q) {
        let job = q.job_id();
        {
            let mut s = self.file.lock();
            if self.file.try_lock(&mut s, z, job) {
                return;
            }
        }
        if !q.sync_engine() {
            q.quiesce().await;
        }
        self.file.lock_zone(z, job).await;
    }

    /// fio's `zbd_open_zone`: put zone `z` in the write set unless a limit forbids it.
    pub(crate) fn open_zone(&self, s: &mut Shared, z: u32, job: u32) -> bool {
        let f = &self.file;
        let st = s.zones[z as usize];
        if Self::unwritable(st.cond) {
            return false;
        }
        if self.verify && self.full(s, z, self.min_bs[WRITE]) {
            return false;
        }
        if f.max_open_zones == 0 {
            return true;
        }
        if st.open {
            // Filled by writes already in flight: a full zone, not an open one.
            return st.wp < f.cap_end(z);
        }
        if self.job_max_open_zones > 0 && s.job_open[job as usize] >= self.job_max_open_zones {
            return false;
        }
        if s.num_open >= f.max_open_zones {
            return false;
        }
        let n = s.num_open as usize;
        s.open_zones[n] = z;
        s.num_open += 1;
        s.job_open[job as usize] += 1;
        s.zones[z as usize].open = true;
        true
    }

    /// fio's `zbd_close_zone`: take zone `z` out of the write set (counted against `job`, the job
    /// whose I/O filled it, as fio counts it).
    /// True when the zone was in the set (fio traces its closing).
    pub(crate) fn close_zone(s: &mut Shared, z: u32, job: u32) -> bool {
        if !s.zones[z as usize].open {
            return false;
        }
        let n = s.num_open as usize;
        let Some(i) = s.open_zones[..n].iter().position(|&o| o == z) else { return false };
        // fio moves the whole tail down, stale entries included.
        s.open_zones.copy_within(i + 1.., i);
        s.num_open -= 1;
        if let Some(c) = s.job_open.get_mut(job as usize) {
            *c = c.saturating_sub(1);
        }
        s.zones[z as usize].open = false;
        true
    }

    /// [`ZoneJob::open_zone`], traced: fio's line when the zone joins the write set.
    fn open_zone_traced<Q: JobIo>(&self, s: &mut Shared, z: u32, job: u32, q: &mut Q) -> bool {
        let was_open = s.zones[z as usize].open;
        let ok = self.open_zone(s, z, job);
        if ok && !was_open && s.zones[z as usize].open {
            zbd_line(q, || format!("{}: opening zone {z}", self.file.name));
        }
        ok
    }

    /// fio's `zbd_reset_zone`: reset zone `z` (held locked) if it holds data.
    async fn reset_zone<Q: JobIo>(&self, z: u32, q: &mut Q) -> Result<(), ()> {
        let f = &self.file;
        let (start, len) = (f.start(z), f.end(z) - f.start(z));
        let data = f.lock().zones[z as usize].wp - start;
        if data == 0 {
            return Ok(());
        }
        zbd_line(q, || format!("{}: resetting wp of zone {z}.", f.name));
        if f.model != Model::None {
            let r = q.reset_zones(self.file_index, start, len).await;
            if r < 0 {
                q.verror(-r, "resetting wp failed");
                q.log_err(format!(
                    "{}: resetting wp for {} sectors at sector {} failed ({}).",
                    f.name,
                    len >> 9,
                    start >> 9,
                    -r
                ));
                return Err(());
            }
        }
        let mut s = f.lock();
        s.sectors_with_data = s.sectors_with_data.wrapping_sub(data);
        s.wp_sectors_with_data = s.wp_sectors_with_data.wrapping_sub(data);
        s.zones[z as usize].wp = start;
        drop(s);
        q.zone_reset_done();
        Ok(())
    }

    /// fio's `zbd_adjust_ddir`: a mixed job whose first I/O would read an empty device writes
    /// instead.
    pub fn adjust_dir(&self, dir: Dir) -> Dir {
        if dir != Dir::Read || !self.rw_mixed {
            return dir;
        }
        if self.read_beyond_wp || self.file.lock().sectors_with_data > 0 { Dir::Read } else { Dir::Write }
    }

    /// fio's `zbd_file_reset` at the start of each loop of a writing job: recount the bytes with
    /// data over the job's range and restart the reset countdown. Returns the bytes with data
    /// (fio traces them as `swd`).
    pub fn file_reset(&self) -> u64 {
        let f = &self.file;
        let mut s = f.lock();
        let (mut swd, mut wp_swd) = (0u64, 0u64);
        for z in self.min_zone..self.max_zone {
            let d = s.zones[z as usize].wp.wrapping_sub(f.start(z));
            swd = swd.wrapping_add(d);
            if f.has_wp(z) {
                wp_swd = wp_swd.wrapping_add(d);
            }
        }
        s.sectors_with_data = swd;
        s.wp_sectors_with_data = wp_swd;
        s.write_cnt = self.write_cnt_init();
        swd
    }

    /// fio's `zbd_file_reset` with data verification, before a writing job's loop: every zone of
    /// the range that holds data is taken out of the write set and reset, so that no reset has
    /// to be issued (losing verified data) while the job writes (`zbd_reset_zones`).
    pub async fn reset_for_verify<Q: JobIo>(&self, q: &mut Q) {
        if !self.verify {
            return;
        }
        let job = q.job_id();
        zbd_line(q, || format!("{}: examining zones {} .. {}", self.file.name, self.min_zone, self.max_zone));
        for z in self.min_zone..self.max_zone {
            if !self.file.has_wp(z) {
                continue;
            }
            self.zone_lock(z, q).await;
            let (closed, has_data) = {
                let mut s = self.file.lock();
                let closed = Self::close_zone(&mut s, z, job);
                (closed, s.zones[z as usize].wp != self.file.start(z))
            };
            if closed {
                zbd_line(q, || format!("{}: closing zone {z}", self.file.name));
            }
            if has_data {
                zbd_line(q, || format!("{}: resetting zone {z}", self.file.name));
                let _ = self.reset_zone(z, q).await;
            }
            self.file.unlock(z);
        }
    }

    fn write_cnt_init(&self) -> u32 {
        if self.reset_frequency > 0.0 { (1.0 / self.reset_frequency).min(f64::from(u32::MAX)) as u32 } else { u32::MAX }
    }

    /// fio's `zbd_dec_and_reset_write_cnt`.
    fn dec_write_cnt(&self, s: &mut Shared) -> bool {
        let n = if s.write_cnt > 0 {
            s.write_cnt -= 1;
            s.write_cnt
        } else {
            0
        };
        if n == 0 {
            s.write_cnt = self.write_cnt_init();
        }
        n == 0
    }

    /// fio's `zbd_find_zone`: the nearest zone after `zb` (and, for random jobs, before it)
    /// with at least `min_bytes` below its write pointer, returned locked.
    async fn find_zone<Q: JobIo>(&self, min_bytes: u64, zb: u32, q: &mut Q) -> Option<u32> {
        let zl = i64::from(self.max_zone);
        let zf = i64::from(self.min_zone);
        let (mut z1, mut z2) = (i64::from(zb) + 1, i64::from(zb) - 1);
        while z1 < zl || z2 >= zf {
            if z1 < zl && self.online(z1 as u32) {
                if let Some(z) = self.lock_if_readable(z1 as u32, min_bytes, q).await {
                    return Some(z);
                }
            } else if !self.random {
                break;
            }
            if self.random
                && z2 >= zf
                && self.online(z2 as u32)
                && let Some(z) = self.lock_if_readable(z2 as u32, min_bytes, q).await
            {
                return Some(z);
            }
            z1 += 1;
            z2 -= 1;
        }
        zbd_line(q, || format!("{}: no zone has {min_bytes} bytes of readable data", self.file.name));
        None
    }

    /// Whether zone `z` is not offline.
    fn online(&self, z: u32) -> bool {
        self.file.lock().zones[z as usize].cond != ZoneCond::Offline
    }

    /// Zone `z`, locked, if it has at least `min_bytes` below its write pointer once locked
    /// (`zbd_find_zone`'s test of one candidate).
    async fn lock_if_readable<Q: JobIo>(&self, z: u32, min_bytes: u64, q: &mut Q) -> Option<u32> {
        let f = &self.file;
        if f.has_wp(z) {
            self.zone_lock(z, q).await;
        }
        if f.start(z) + min_bytes <= f.lock().zones[z as usize].wp {
            return Some(z);
        }
        if f.has_wp(z) {
            f.unlock(z);
        }
        None
    }

    /// fio's `zbd_convert_to_open_zone`: move a write that cannot go to its zone to a zone of the
    /// write set (opening one if the set has room), returned locked; `None` when there is none.
    async fn convert_to_open_zone<Q: JobIo>(&self, io: &mut ZoneIo, q: &mut Q) -> Option<u32> {
        let f = &self.file;
        let job = q.job_id();
        let min_bs = self.min_bs[dir_index(io.dir)];
        let tracked = f.max_open_zones > 0 || self.job_max_open_zones > 0;
        let mut zone_idx = if tracked {
            // fio reads the array without the lock, stale entries included.
            let s = f.lock();
            s.open_zones[self.pick_idx(io.offset, s.num_open) as usize % super::state::MAX_OPEN_ZONES]
        } else {
            f.zone_idx(io.offset)
        };
        zone_idx = zone_idx.clamp(self.min_zone, self.max_zone.saturating_sub(1).max(self.min_zone));
        const FN: &str = "zbd_convert_to_open_zone";
        zbd_line(q, || {
            format!("{FN}({}): starting from zone {zone_idx} (offset {}, buflen {})", f.name, io.offset, io.len)
        });

        // Find the candidate: the zone itself when nothing limits the write set, else a zone of
        // the set inside the job's range.
        let mut z;
        let open_other;
        loop {
            z = zone_idx;
            if f.has_wp(z) {
                self.zone_lock(z, q).await;
            }
            let s = f.lock();
            if f.has_wp(z) {
                if s.zones[z as usize].cond != ZoneCond::Offline
                    && f.max_open_zones == 0
                    && self.job_max_open_zones == 0
                {
                    open_other = false;
                    break;
                }
                if s.num_open == 0 {
                    drop(s);
                    zbd_line(q, || format!("{FN}({}): no zones are open", f.name));
                    open_other = true;
                    break;
                }
            }
            let n = s.num_open;
            let mut tmp = self.pick_idx(io.offset, n);
            let mut found = None;
            for _ in 0..n {
                if tmp >= n {
                    tmp = 0;
                }
                let tz = s.open_zones[tmp as usize];
                if self.min_zone <= tz && tz < self.max_zone {
                    found = Some(tz);
                    break;
                }
                tmp += 1;
            }
            drop(s);
            match found {
                None => {
                    zbd_line(q, || format!("{FN}({}): no candidate zone", f.name));
                    if f.has_wp(z) {
                        f.unlock(z);
                    }
                    return None;
                }
                Some(nz) if nz == zone_idx => {
                    open_other = false;
                    break;
                }
                Some(nz) => {
                    zone_idx = nz;
                    if f.has_wp(z) {
                        f.unlock(z);
                    }
                }
            }
        }

        if !open_other {
            // examine_zone
            let s = f.lock();
            if s.zones[z as usize].wp + min_bs <= f.cap_end(z) {
                drop(s);
                zbd_line(q, || format!("{FN}({}): returning zone {z}", f.name));
                io.offset = f.start(z);
                return Some(z);
            }
        }

        // open_other_zone: at a limit, let the job's own writes complete (and close zones) first.
        let wait_zone_close = {
            let s = f.lock();
            s.num_open == self.max_zone - self.min_zone
                || (f.max_open_zones > 0 && s.num_open == f.max_open_zones)
                || (self.job_max_open_zones > 0 && s.job_open[job as usize] == self.job_max_open_zones)
        };
        if wait_zone_close {
            zbd_line(q, || format!("{FN}({}): quiesce to allow open zones to close", f.name));
            q.quiesce().await;
        }

        let mut should_retry = true;
        loop {
            // retry: zone `z` is full; try to open one of the following zones of the range.
            let mut i = self.io_size / f.zone_size;
            while i > 0 {
                i -= 1;
                if f.has_wp(z) {
                    f.unlock(z);
                }
                z += 1;
                if !self.valid(f.start(z)) {
                    z = self.min_zone;
                }
                if !f.has_wp(z) {
                    continue;
                }
                self.zone_lock(z, q).await;
                let mut s = f.lock();
                if s.zones[z as usize].open {
                    continue;
                }
                if self.open_zone_traced(&mut s, z, job, q) {
                    drop(s);
                    zbd_line(q, || format!("{FN}({}): returning zone {z}", f.name));
                    io.offset = f.start(z);
                    return Some(z);
                }
            }

            // Does the write fit in a zone already in the set?
            let mut k = 0;
            loop {
                let zi = {
                    let s = f.lock();
                    if k >= s.num_open {
                        break;
                    }
                    s.open_zones[k as usize]
                };
                k += 1;
                if zi < self.min_zone || zi >= self.max_zone {
                    continue;
                }
                if f.has_wp(z) {
                    f.unlock(z);
                }
                z = zi;
                self.zone_lock(z, q).await;
                if f.lock().zones[z as usize].wp + min_bs <= f.cap_end(z) {
                    zbd_line(q, || format!("{FN}({}): returning zone {z}", f.name));
                    io.offset = f.start(z);
                    return Some(z);
                }
            }

            // Writes in flight (of any job) may close zones: drain ours and try again.
            let in_flight = f.any_io_in_flight();
            if in_flight || should_retry {
                zbd_line(q, || format!("{FN}({}): wait zone close and retry open zones", f.name));
                if f.has_wp(z) {
                    f.unlock(z);
                }
                q.quiesce().await;
                if f.has_wp(z) {
                    self.zone_lock(z, q).await;
                }
                should_retry = in_flight;
                continue;
            }
            if f.has_wp(z) {
                f.unlock(z);
            }
            zbd_line(q, || format!("{FN}({}): did not open another zone", f.name));
            return None;
        }
    }

    /// fio's `zbd_adjust_block`: place `io` (an I/O the workload proposes, at its random or
    /// sequential offset) where the zones allow it.
    pub async fn adjust<Q: JobIo>(&self, io: &mut ZoneIo, q: &mut Q) -> Decision {
        let f = &self.file;
        let job = q.job_id();
        let d = dir_index(io.dir);
        let min_bs = self.min_bs[d];
        let mut zb = f.zone_idx(io.offset);
        let orig_zb = zb;

        if !f.has_wp(zb) {
            // Conventional zones: anything but a write goes as is; a write must not run into the
            // next (sequential) zone.
            if io.dir != Dir::Write {
                return Decision::Accept { zone: None };
            }
            let next = f.start(zb + 1);
            if !f.has_wp(zb + 1) || io.offset + io.len <= next {
                return Decision::Accept { zone: None };
            }
            let new_len = if io.offset + min_bs > next {
                io_line(q, || format!("{}: off={} + min_bs={min_bs} > next zone {next}", f.name, io.offset));
                io.offset = f.start(zb) + next - io.offset;
                io.len.min(next - io.offset)
            } else {
                next - io.offset
            };
            io.len = new_len / min_bs * min_bs;
            return Decision::Accept { zone: None };
        }

        if io.dir == Dir::Read && self.read_beyond_wp && f.lock().zones[zb as usize].cond != ZoneCond::Offline {
            return Decision::Accept { zone: None };
        }

        self.zone_lock(zb, q).await;
        let orig_len = io.len;

        match io.dir {
            Dir::Read => {
                let readable = |z: u32| {
                    let s = f.lock();
                    let st = &s.zones[z as usize];
                    if st.cond == ZoneCond::Offline { 0 } else { st.wp - f.start(z) }
                };
                let mut range = readable(zb);
                let wp = f.lock().zones[zb as usize].wp;
                if range < min_bs || (!self.random && io.offset + min_bs > wp) {
                    f.unlock(zb);
                    match self.find_zone(min_bs, zb, q).await {
                        Some(z) => zb = z,
                        None => {
                            zbd_line(q, || format!("{}: zbd_find_zone({}, {}) failed", f.name, io.offset, io.len));
                            return Decision::Eof;
                        }
                    }
                    range = f.lock().zones[zb as usize].wp - f.start(zb);
                    if !self.random {
                        io.offset = f.start(zb);
                    }
                }
                if range <= io.len {
                    io.offset = f.start(zb);
                } else if self.random {
                    io.offset = f.start(zb) + ((io.offset - f.start(orig_zb)) % (range - io.len)) / min_bs * min_bs;
                }
                if !f.has_wp(zb) {
                    return Decision::Accept { zone: None };
                }
                let wp = f.lock().zones[zb as usize].wp;
                let new_len = io.len.min(wp.saturating_sub(io.offset)) / min_bs * min_bs;
                if new_len < io.len {
                    io.len = new_len;
                    io_line(q, || format!("Changed length from {orig_len} into {new_len}"));
                }
                Decision::Accept { zone: Some(zb) }
            }
            Dir::Write => {
                if io.len > f.zone_size {
                    q.verror(libc::EINVAL, "I/O buflen exceeds zone size");
                    io_line(q, || format!("{}: I/O buflen {} exceeds zone size {}", f.name, io.len, f.zone_size));
                    f.unlock(zb);
                    return Decision::Eof;
                }
                let opened = {
                    let mut s = f.lock();
                    self.open_zone_traced(&mut s, zb, job, q)
                };
                if !opened {
                    f.unlock(zb);
                    match self.convert_to_open_zone(io, q).await {
                        Some(z) => zb = z,
                        None => {
                            // fio's line has no newline of its own.
                            io_line(q, || format!("{}: can't convert to open zone", f.name));
                            return Decision::Eof;
                        }
                    }
                }
                // The threshold/frequency resets.
                if self.reset_frequency > 0.0 {
                    let mut s = f.lock();
                    if s.wp_sectors_with_data as f64 >= self.io_size as f64 * self.reset_threshold
                        && self.dec_write_cnt(&mut s)
                    {
                        s.zones[zb as usize].reset_zone = true;
                    }
                }
                let must_reset = {
                    let s = f.lock();
                    s.zones[zb as usize].reset_zone || self.full(&s, zb, min_bs)
                };
                if must_reset {
                    // Resets are synchronous: let the job's writes in flight complete first.
                    q.quiesce().await;
                    f.lock().zones[zb as usize].reset_zone = false;
                    if self.reset_zone(zb, q).await.is_err() {
                        f.unlock(zb);
                        return Decision::Eof;
                    }
                    let cap = f.cap_end(zb) - f.start(zb);
                    if cap < min_bs {
                        q.verror(libc::EINVAL, "ZCAP is less min_bs");
                        q.log_err(format!("zone capacity {cap} smaller than minimum block size {min_bs}"));
                        f.unlock(zb);
                        return Decision::Eof;
                    }
                }
                io.offset = f.lock().zones[zb as usize].wp;
                if !self.valid(io.offset) {
                    q.verror(libc::EINVAL, "invalid WP value");
                    zbd_line(q, || format!("{}: dropped request with offset {}", f.name, io.offset));
                    f.unlock(zb);
                    return Decision::Eof;
                }
                let room = f.cap_end(zb) - io.offset;
                let new_len = io.len.min(room) / min_bs * min_bs;
                if new_len == io.len {
                    return Decision::Accept { zone: Some(zb) };
                }
                if new_len >= min_bs {
                    io.len = new_len;
                    io_line(q, || format!("Changed length from {orig_len} into {new_len}"));
                    return Decision::Accept { zone: Some(zb) };
                }
                q.verror(libc::EIO, "zone remainder too small");
                q.log_err(format!("zone remainder {room} smaller than min block size {min_bs}"));
                f.unlock(zb);
                Decision::Eof
            }
            Dir::Trim => {
                let nonempty = f.lock().zones[zb as usize].wp > f.start(zb);
                if !self.random || nonempty {
                    return Decision::Accept { zone: Some(zb) };
                }
                f.unlock(zb);
                match self.find_zone(1, zb, q).await {
                    Some(z) => {
                        io.offset = f.start(z);
                        zbd_line(q, || format!("{}: found new zone({}) for trim", f.name, io.offset));
                        Decision::Accept { zone: if f.has_wp(z) { Some(z) } else { None } }
                    }
                    None => Decision::Eof,
                }
            }
            Dir::Sync | Dir::DataSync | Dir::SyncFileRange => Decision::Accept { zone: Some(zb) },
        }
    }

    /// fio's `zbd_queue_io` after the engine took the I/O (`queued`: it is in flight; otherwise it
    /// completed, with `error` set if it failed): a write moves the write pointer at once; an I/O
    /// that completed releases its zone.
    /// True when the I/O filled its zone and closed it (fio traces that).
    pub fn queued(&self, io: &ZoneIo, zone: u32, queued: bool, error: bool, job: u32) -> bool {
        let f = &self.file;
        let mut s = f.lock();
        if io.dir == Dir::Write {
            let zone_end = (io.offset + io.len).min(f.cap_end(zone));
            let st = &mut s.zones[zone as usize];
            let old = st.wp;
            st.wp = zone_end;
            if old <= zone_end {
                s.sectors_with_data += zone_end - old;
                s.wp_sectors_with_data += zone_end - old;
            }
        }
        let mut closed = false;
        if !queued {
            if !error {
                closed = self.end_zone_io(&mut s, io, zone, job);
            }
            f.unlock_locked(&mut s, zone);
        } else {
            f.in_flight.fetch_add(1, Ordering::Relaxed);
        }
        closed
    }

    /// fio's `zbd_put_io`: an I/O that was in flight completed; release its zone. True when it
    /// filled the zone and closed it.
    pub fn completed(&self, io: &ZoneIo, zone: u32, job: u32) -> bool {
        let f = &self.file;
        f.in_flight.fetch_sub(1, Ordering::Relaxed);
        let mut s = f.lock();
        let closed = self.end_zone_io(&mut s, io, zone, job);
        f.unlock_locked(&mut s, zone);
        closed
    }

    /// The engine refused the I/O for now (`Busy`): it will be queued again, holding its zone.
    pub fn requeued(&self) {}

    fn end_zone_io(&self, s: &mut Shared, io: &ZoneIo, zone: u32, job: u32) -> bool {
        io.dir == Dir::Write && io.offset + io.len >= self.file.cap_end(zone) && Self::close_zone(s, zone, job)
    }

    /// fio's `zbd_do_io_u_trim`: a trim of a sequential zone is a reset of the zone (held
    /// locked). Returns the trim's result: its length, or `-errno`; `None` for a conventional
    /// zone, which the engine trims.
    pub async fn trim<Q: JobIo>(&self, io: &ZoneIo, q: &mut Q) -> Option<i64> {
        let f = &self.file;
        let z = f.zone_idx(io.offset);
        if !f.has_wp(z) {
            return None;
        }
        if io.offset != f.start(z) {
            q.log_err(format!("Trim offset not at zone start ({})", io.offset));
            return Some(-i64::from(libc::EINVAL));
        }
        match self.reset_zone(z, q).await {
            Ok(()) => Some(io.len as i64),
            Err(()) => Some(-i64::from(libc::EIO)),
        }
    }

    /// fio's `setup_zbd_zone_mode`, the part that needs zone state: where a sequential job's next
    /// I/O in direction `dir` starts after `last_pos` (an absolute offset). Returns the new
    /// position when it jumps past a zone's capacity end.
    pub fn capacity_jump(&self, dir: Dir, last_pos: u64) -> Option<u64> {
        let f = &self.file;
        if self.random || dir != Dir::Write {
            return None;
        }
        let z = f.zone_idx(last_pos);
        if (z as usize) >= f.geom.len() {
            return None;
        }
        let cap = f.geom[z as usize].capacity;
        (cap < f.zone_size && last_pos >= f.cap_end(z)).then(|| f.end(z))
    }

    /// Zone boundaries and write pointer around `offset` (for `zoneskip`): (zone end, write
    /// pointer).
    pub fn zone_end_and_wp(&self, offset: u64) -> (u64, u64) {
        let f = &self.file;
        let z = f.zone_idx(offset);
        if (z as usize) >= f.geom.len() {
            return (f.sentinel, f.sentinel);
        }
        (f.end(z), f.lock().zones[z as usize].wp)
    }
}
