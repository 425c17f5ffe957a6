//! The zone state that every job writing to one file or device shares (fio's
//! `zoned_block_device_info`): each zone's write pointer, condition and lock, the write-zone set
//! (fio 3.33's "open zones": the zones jobs are allowed to write), and the counters of the
//! threshold/frequency resets.
//!
//! One mutex guards it all (fio has one per zone plus one per device): a job holds it only for the
//! few instructions of a decision, never across a wait. A *zone lock* is the other thing: it is
//! owned by a job from the decision that picks a zone until the I/O completes, recursively (one
//! job may hold several I/Os in flight to one zone), as fio's recursive zone mutex is. A job that
//! finds a zone locked by another job waits for it with a [`Waker`], so that the same code serves
//! threads (the waker unparks the thread) and one event loop.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use zonekit_core::{ZoneCond, ZoneType, ZonedDevice};

/// fio's `ZBD_MAX_OPEN_ZONES`: the largest write-zone set.
pub const MAX_OPEN_ZONES: usize = 4096;

/// The zoned model of a target (fio's `zbd_zoned_model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Zones emulated by the benchmark itself on a regular file or a non-zoned block device
    /// (`ZBD_NONE`): nothing to reset on the device.
    None,
    /// Host-aware: sequential-write-preferred zones (which fio treats as having no write pointer).
    HostAware,
    /// Host-managed: sequential-write-required zones, the device's open limit applies.
    HostManaged,
}

/// One zone as the benchmark starts with it (from a device report, or emulated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneInit {
    /// Byte offset of the zone.
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
    /// Writable bytes.
    pub capacity: u64,
    /// Byte offset of the write pointer (the capacity end for full and conventional zones).
    pub wp: u64,
    /// Zone type.
    pub zone_type: ZoneType,
    /// Condition.
    pub cond: ZoneCond,
}

/// The fixed part of a zone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geom {
    pub start: u64,
    pub capacity: u64,
    pub has_wp: bool,
}

/// The changing part of a zone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ZoneState {
    pub wp: u64,
    pub cond: ZoneCond,
    /// In the write-zone set (fio's `z->open`).
    pub open: bool,
    /// A threshold/frequency reset is due (fio's `z->reset_zone`).
    pub reset_zone: bool,
    /// Job holding the zone lock, plus one (0: free).
    pub owner: u32,
    /// How many times the owner holds it.
    pub count: u32,
}

/// What the mutex guards.
pub(crate) struct Shared {
    pub zones: Vec<ZoneState>,
    /// fio's `open_zones[]`, stale entries past `num_open` included (fio reads one of them when
    /// the set is empty, and so must we to pick the same zone).
    pub open_zones: Box<[u32; MAX_OPEN_ZONES]>,
    pub num_open: u32,
    /// Write zones per job (fio's `td->num_open_zones`).
    pub job_open: Vec<u32>,
    /// Bytes below the write pointers (fio 3.33's `sectors_with_data` / `wp_sectors_with_data`,
    /// which count bytes despite their names).
    pub sectors_with_data: u64,
    pub wp_sectors_with_data: u64,
    /// Writes until the next frequency reset (fio's `write_cnt`).
    pub write_cnt: u32,
    /// Jobs waiting for a zone lock.
    pub waiters: Vec<(u32, Waker)>,
}

/// The shared zone state of one file (or device) of a run.
pub struct ZbdFile {
    /// The file name, as jobs name it (fio shares zone state between jobs by file name).
    pub name: String,
    /// Zoned model.
    pub model: Model,
    /// Zone size in bytes.
    pub zone_size: u64,
    /// The write-zone limit every job on this file shares (0: none, no tracking).
    pub max_open_zones: u32,
    /// Byte size of the file or device (fio's `real_file_size`).
    pub size: u64,
    pub(crate) geom: Vec<Geom>,
    /// End of the last zone (fio's sentinel zone start).
    pub(crate) sentinel: u64,
    pub(crate) shared: Mutex<Shared>,
    /// I/Os in flight in all zoned jobs of the run (fio's `any_io_in_flight`).
    pub(crate) in_flight: Arc<AtomicUsize>,
    /// The zoned device, for resets before any job runs.
    pub(crate) device: Option<Arc<dyn ZonedDevice>>,
}

impl std::fmt::Debug for ZbdFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZbdFile")
            .field("name", &self.name)
            .field("model", &self.model)
            .field("zone_size", &self.zone_size)
            .field("zones", &self.geom.len())
            .finish_non_exhaustive()
    }
}

impl ZbdFile {
    /// Zone state from a list of zones (consecutive, all but the last of `zone_size` bytes).
    pub fn new(
        name: &str,
        model: Model,
        zone_size: u64,
        size: u64,
        zones: &[ZoneInit],
        max_open_zones: u32,
        in_flight: Arc<AtomicUsize>,
    ) -> ZbdFile {
        let geom: Vec<Geom> = zones
            .iter()
            .map(|z| Geom { start: z.start, capacity: z.capacity, has_wp: z.zone_type == ZoneType::SeqWriteRequired })
            .collect();
        let states = zones
            .iter()
            .map(|z| ZoneState { wp: z.wp, cond: z.cond, open: false, reset_zone: false, owner: 0, count: 0 })
            .collect();
        let sentinel = zones.last().map_or(0, |z| z.start + z.len);
        ZbdFile {
            name: name.to_string(),
            model,
            zone_size,
            max_open_zones,
            size,
            geom,
            sentinel,
            shared: Mutex::new(Shared {
                zones: states,
                open_zones: Box::new([0; MAX_OPEN_ZONES]),
                num_open: 0,
                job_open: Vec::new(),
                sectors_with_data: 0,
                wp_sectors_with_data: 0,
                write_cnt: 0,
                waiters: Vec::new(),
            }),
            in_flight,
            device: None,
        }
    }

    /// Number of zones.
    pub fn nr_zones(&self) -> u32 {
        self.geom.len() as u32
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Zone index of byte `offset` (the sentinel's index past the last zone), as fio's
    /// `zbd_offset_to_zone_idx`.
    #[inline]
    pub fn zone_idx(&self, offset: u64) -> u32 {
        ((offset / self.zone_size).min(self.geom.len() as u64)) as u32
    }

    /// Start of zone `z` (the sentinel for `z == nr_zones`).
    #[inline]
    pub(crate) fn start(&self, z: u32) -> u64 {
        self.geom.get(z as usize).map_or(self.sentinel, |g| g.start)
    }

    /// End of zone `z`: the next zone's start.
    #[inline]
    pub(crate) fn end(&self, z: u32) -> u64 {
        self.start(z + 1)
    }

    /// Capacity end of zone `z`.
    #[inline]
    pub(crate) fn cap_end(&self, z: u32) -> u64 {
        let g = &self.geom[z as usize];
        g.start + g.capacity
    }

    #[inline]
    pub(crate) fn has_wp(&self, z: u32) -> bool {
        self.geom.get(z as usize).is_some_and(|g| g.has_wp)
    }

    /// Register job `job` (0-based index of the clone in the run).
    pub(crate) fn add_job(&self, job: u32) {
        let mut s = self.lock();
        if s.job_open.len() <= job as usize {
            s.job_open.resize(job as usize + 1, 0);
        }
    }

    /// Whether any zoned job of the run has I/O in flight.
    pub(crate) fn any_io_in_flight(&self) -> bool {
        self.in_flight.load(Ordering::Relaxed) > 0
    }

    /// Every zone as it is now, in bytes: (start, write pointer, capacity, length), for
    /// reports after a run.
    pub fn snapshot(&self) -> Vec<(u64, u64, u64, u64)> {
        let s = self.lock();
        (0..self.nr_zones())
            .map(|z| {
                let g = &self.geom[z as usize];
                (g.start, s.zones[z as usize].wp, g.capacity, self.end(z) - g.start)
            })
            .collect()
    }

    /// Take zone `z`'s lock for `job` if it is free or `job` holds it already.
    pub(crate) fn try_lock(&self, s: &mut Shared, z: u32, job: u32) -> bool {
        let st = &mut s.zones[z as usize];
        if st.owner == 0 || st.owner == job + 1 {
            st.owner = job + 1;
            st.count += 1;
            true
        } else {
            false
        }
    }

    /// Release one hold of zone `z`'s lock; wakes the jobs waiting for it once it is free.
    pub(crate) fn unlock_locked(&self, s: &mut Shared, z: u32) {
        let st = &mut s.zones[z as usize];
        debug_assert!(st.count > 0, "zone {z} unlocked more often than locked");
        st.count = st.count.saturating_sub(1);
        if st.count == 0 {
            st.owner = 0;
            let mut i = 0;
            while i < s.waiters.len() {
                if s.waiters[i].0 == z {
                    s.waiters.swap_remove(i).1.wake();
                } else {
                    i += 1;
                }
            }
        }
    }

    /// Release one hold of zone `z`'s lock.
    pub(crate) fn unlock(&self, z: u32) {
        let mut s = self.lock();
        self.unlock_locked(&mut s, z);
    }

    /// A future that takes zone `z`'s lock for `job`, waiting while another job holds it.
    pub(crate) fn lock_zone(&self, z: u32, job: u32) -> LockZone<'_> {
        LockZone { file: self, zone: z, job }
    }
}

/// Waits for a zone lock (see [`ZbdFile::lock_zone`]).
pub(crate) struct LockZone<'a> {
    file: &'a ZbdFile,
    zone: u32,
    job: u32,
}

impl Future for LockZone<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.file.lock();
        if self.file.try_lock(&mut s, self.zone, self.job) {
            return Poll::Ready(());
        }
        s.waiters.push((self.zone, cx.waker().clone()));
        Poll::Pending
    }
}
