//! [`BlockDevice`]: a zoned device seen through the block layer, synchronously, as a program sees
//! a block device file: `pwrite`/`pread` on the file, the `BLK*ZONE` ioctls, and the kernel's zone
//! append. For the `zonekit` command, zonefs and tests.
//!
//! Every command that reaches the device goes through one private method per kind: the pieces of
//! a split write through the zone write plugs, in the order Linux 6.12 sends them
//! (`issue_writes`); each piece of a split read, each zone of a management range, each report
//! through a `dispatch_*` method, which tells the plugs what they need to know.

use super::limits::{LimitOverrides, QueueLimits, ZoneAppendMode};
use super::mgmt::{self, MgmtCommand};
use super::plug::{Bio, Event, PlugConfig, Plugs, Recovery};
use super::split;
use std::sync::{Arc, Mutex};
use zonekit_core::{
    DeviceError, DeviceInfo, DeviceKind, DeviceResult, Errno, SECTOR_SIZE, Zone, ZoneCond, ZoneOp, ZonedDevice,
};

/// A failed block-device call: the errno the system call returns and what happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BlkError {
    /// The errno.
    pub errno: Errno,
    /// What failed and why (without the errno).
    pub message: String,
}

impl BlkError {
    /// An error with `errno` and `message`.
    pub fn new(errno: Errno, message: impl Into<String>) -> BlkError {
        BlkError { errno, message: message.into() }
    }

    /// A device's error, with the errno it gives.
    pub fn from_device(e: &DeviceError) -> BlkError {
        let errno = e.errno();
        let message = match e {
            DeviceError::Zone { error, .. } => error.to_string(),
            DeviceError::Io { context, .. } => {
                format!("{context}: {}", errno.description().unwrap_or("I/O error"))
            }
            other => other.to_string(),
        };
        BlkError { errno, message }
    }
}

impl From<split::SplitError> for BlkError {
    fn from(e: split::SplitError) -> BlkError {
        BlkError::new(e.errno(), e.to_string())
    }
}

impl From<mgmt::MgmtError> for BlkError {
    fn from(e: mgmt::MgmtError) -> BlkError {
        BlkError::new(e.errno(), e.to_string())
    }
}

/// A zoned device behind the block layer, used synchronously.
///
/// Reads and writes follow a block device file opened with `O_DIRECT`: cut at the device end,
/// in whole logical blocks, split into device commands at zone boundaries and at `max_sectors`
/// ([`split`]); management ranges are issued zone by zone, or as one reset-all ([`mgmt`]). A Linux
/// device gets each read and write whole once cut at its end and checked as its block device file
/// checks it, and each range as it is: its kernel splits, issues and plugs them itself.
pub struct BlockDevice {
    dev: Arc<dyn ZonedDevice>,
    limits: QueueLimits,
    /// The kernel does the block layer's work (a Linux device).
    passthrough: bool,
    /// The zone write plugs (not for a Linux device): made at open for the partially written
    /// zones, as the kernel keeps them for as long as the disk is there.
    plugs: Option<Mutex<Plugs>>,
}

impl std::fmt::Debug for BlockDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockDevice").field("spec", &self.dev.info().spec).field("limits", &self.limits).finish()
    }
}

impl BlockDevice {
    /// `dev` behind the block layer, with the queue limits its description gives.
    pub fn new(dev: Arc<dyn ZonedDevice>) -> BlockDevice {
        let limits = QueueLimits::from_info(dev.info());
        BlockDevice::with_limits(dev, limits)
    }

    /// `dev` with its queue limits changed by `overrides` (`EINVAL` for a limit no device has).
    pub fn with_overrides(dev: Arc<dyn ZonedDevice>, overrides: &LimitOverrides) -> Result<BlockDevice, BlkError> {
        let limits = QueueLimits::with_overrides(dev.info(), overrides)
            .map_err(|e| BlkError::new(e.errno(), format!("{}: {e}", dev.info().spec)))?;
        Ok(BlockDevice::with_limits(dev, limits))
    }

    fn with_limits(dev: Arc<dyn ZonedDevice>, limits: QueueLimits) -> BlockDevice {
        let passthrough = dev.info().kind == DeviceKind::Linux;
        let plugs = (!passthrough).then(|| {
            let info = dev.info();
            let mut p = Plugs::new(PlugConfig {
                geometry: info.geometry.clone(),
                max_sectors: limits.max_sectors(),
                qd1: limits.zoned_qd1_writes,
                native_append: limits.zone_append == ZoneAppendMode::Native,
                recovery: Recovery::default(),
                pop_when_run: false,
            });
            // blk_revalidate_seq_zone: a device whose zone appends the block layer emulates needs
            // the write pointer of every partially written zone; others get a plug at their
            // first write.
            let mut zones = Vec::new();
            if limits.zone_append == ZoneAppendMode::Emulated && dev.report_zones(0, usize::MAX, &mut zones).is_ok() {
                p.revalidate(&zones);
            }
            Mutex::new(p)
        });
        BlockDevice { dev, limits, passthrough, plugs }
    }

    /// The device underneath.
    pub fn device(&self) -> &Arc<dyn ZonedDevice> {
        &self.dev
    }

    /// What the device is.
    pub fn info(&self) -> &DeviceInfo {
        self.dev.info()
    }

    /// The queue limits.
    pub fn limits(&self) -> &QueueLimits {
        &self.limits
    }

    /// `pwrite(fd, buf, offset)` with `O_DIRECT`: the number of bytes written, fewer than
    /// `buf.len()` when the write runs past the device end. An empty write is 0; a write at or
    /// past the end is `ENOSPC`; one not in whole logical blocks `EINVAL`.
    ///
    /// The write is one bio (its pages make at most 256 physically contiguous runs), split into
    /// device commands ([`split::pieces`]) that go through the zone write plugs and reach the
    /// device as Linux 6.12 sends them: the first piece of each zone first, then each zone's next
    /// piece when its previous one completes. Every piece is issued even when one fails (pieces in
    /// other zones may land), and the call then fails with the errno [`split::split_errno`] picks.
    pub fn write(&self, offset: u64, buf: &[u8]) -> Result<usize, BlkError> {
        let cut = split::cut_write(&self.limits, offset, buf.len() as u64)?;
        let data = &buf[..cut.bytes as usize];
        if data.is_empty() {
            return Ok(0);
        }
        if self.passthrough {
            self.dev.write_at(cut.sector, data).map_err(|e| BlkError::from_device(&e))?;
            return Ok(data.len());
        }
        let pieces: Vec<split::Piece> = split::pieces(&self.limits, cut.sector, cut.sectors()).collect();
        self.issue_writes(cut.sector, data, &pieces)?;
        Ok(data.len())
    }

    /// `pread(fd, buf, offset)` with `O_DIRECT`: the number of bytes read, fewer than `buf.len()`
    /// when the read runs past the device end, 0 at or past it; `EINVAL` if not in whole logical
    /// blocks. A failing piece fails the call as for [`BlockDevice::write`].
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<usize, BlkError> {
        let cut = split::cut_read(&self.limits, offset, buf.len() as u64)?;
        let data = &mut buf[..cut.bytes as usize];
        if data.is_empty() {
            return Ok(0);
        }
        if self.passthrough {
            self.dispatch_read(cut.sector, data).map_err(|e| BlkError::from_device(&e))?;
            return Ok(data.len());
        }
        let mut errors = Vec::new();
        let mut n = 0;
        for (i, p) in split::pieces(&self.limits, cut.sector, cut.sectors()).enumerate() {
            n = i + 1;
            if let Err(e) = self.dispatch_read(p.sector, &mut data[p.buf_range()]) {
                errors.push((i, BlkError::from_device(&e)));
            }
        }
        split_error(errors, n)?;
        Ok(data.len())
    }

    /// `ioctl(fd, BLKRESETZONE / BLKOPENZONE / BLKCLOSEZONE / BLKFINISHZONE, {sector, nr})`:
    /// `EINVAL` for a range `blkdev_zone_mgmt` refuses; a reset of the whole device is one
    /// reset-all; any other range one command per zone in ascending order, carrying on after a
    /// zone that fails. Fails with the errno [`mgmt::range_errno`] picks, and the message of that
    /// zone.
    pub fn zone_mgmt(&self, op: ZoneOp, sector: u64, nr: u64) -> Result<(), BlkError> {
        if self.passthrough {
            return self.dev.zone_mgmt(op, sector, nr).map_err(|e| BlkError::from_device(&e));
        }
        let plan = mgmt::plan(&self.limits, op, sector, nr)?;
        let mut failed: Vec<(u64, Errno)> = Vec::new();
        let mut errors: Vec<BlkError> = Vec::new();
        for cmd in plan.commands() {
            // The zones' bios are chained in ascending order (`blk_next_bio`), so each one's
            // status at completion is its own error or an earlier zone's: after a failing zone,
            // the plugs of the zones after it are left as they were (`blk_zone_mgmt_bio_endio`
            // does nothing for a failed bio).
            if let Err(e) = self.dispatch_mgmt(cmd, failed.is_empty()) {
                let at = match cmd {
                    MgmtCommand::Zone { sector, .. } => sector,
                    MgmtCommand::ResetAll => 0,
                };
                let e = BlkError::from_device(&e);
                failed.push((at, e.errno));
                errors.push(e);
            }
        }
        let Some(errno) = mgmt::range_errno(&failed) else { return Ok(()) };
        let i = failed.iter().rposition(|&(_, e)| e == errno).unwrap_or(0);
        let mut e = errors.swap_remove(i);
        if failed.len() > 1 {
            e.message = format!("{} ({} of {} zones failed)", e.message, failed.len(), plan.len());
        }
        Err(e)
    }

    /// `ioctl(fd, BLKREPORTZONE)`: append to `out` up to `max` zones from the one holding `sector`
    /// (none from the device end on); `EINVAL` when `max` is 0.
    pub fn report_zones(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> Result<(), BlkError> {
        if max == 0 {
            return Err(BlkError::new(Errno::EINVAL, "report of 0 zones"));
        }
        if sector >= self.limits.capacity {
            return Ok(());
        }
        self.dispatch_report(sector, max, out).map_err(|e| BlkError::from_device(&e))
    }

    /// A zone append of `buf` to the zone starting at `zone_start`: the sector the data landed at.
    /// The block layer's checks first (`blk_check_zone_append`: a zone start, no larger than a zone
    /// nor than `zone_append_max_bytes`, else `EIO`; whole logical blocks, else `EINVAL`); then the
    /// device's zone append where it has one, or, emulated, a write at the zone's write pointer
    /// (`EIO` for a conventional or full zone, as `blk_zone_wplug_prepare_bio` refuses them).
    pub fn zone_append(&self, zone_start: u64, buf: &[u8]) -> Result<u64, BlkError> {
        let l = &self.limits;
        let len = buf.len() as u64;
        let lbs = u64::from(l.logical_block_size);
        if len == 0 || !len.is_multiple_of(lbs) {
            return Err(BlkError::new(
                Errno::EINVAL,
                format!("zone append of {len} bytes: not a whole number of {lbs}-byte logical blocks"),
            ));
        }
        let eio = |why: String| Err(BlkError::new(Errno::EIO, format!("zone append at sector {zone_start}: {why}")));
        let sectors = len / SECTOR_SIZE;
        if zone_start >= l.capacity || !zone_start.is_multiple_of(l.chunk_sectors) {
            return eio("not the start of a zone".into());
        }
        if sectors > l.chunk_sectors || sectors > l.zone_append_max_sectors() {
            return eio(format!("{len} bytes: larger than the zone append limit ({} bytes)", l.zone_append_max_bytes));
        }
        if self.passthrough {
            return self.dev.zone_append(zone_start, buf).map_err(|e| BlkError::from_device(&e));
        }
        if l.zone_append == ZoneAppendMode::Native {
            return self.dispatch_append(zone_start, buf).map_err(|e| BlkError::from_device(&e));
        }
        let mut zones = Vec::with_capacity(1);
        self.dispatch_report(zone_start, 1, &mut zones).map_err(|e| BlkError::from_device(&e))?;
        let Some(z) = zones.first().filter(|z| z.start == zone_start) else {
            return eio("no such zone".into());
        };
        match z.cond {
            ZoneCond::NotWp => return eio("conventional zone".into()),
            ZoneCond::Full => return eio("zone is full".into()),
            ZoneCond::ReadOnly => return eio("zone is read-only".into()),
            ZoneCond::Offline => return eio("zone is offline".into()),
            _ => {}
        }
        if z.wp + sectors > z.start + z.capacity {
            return eio("past the zone capacity".into());
        }
        let piece = split::Piece { sector: z.wp, sectors, buf_offset: 0 };
        self.issue_writes(z.wp, buf, &[piece])?;
        Ok(z.wp)
    }

    /// `fsync(fd)`: make every acknowledged write durable.
    pub fn flush(&self) -> Result<(), BlkError> {
        self.dispatch_flush().map_err(|e| BlkError::from_device(&e))
    }

    /// Close the device, reporting what a drop would ignore (a persistent device records its
    /// zones' conditions).
    pub fn close(&self) -> Result<(), BlkError> {
        self.dev.close().map_err(|e| BlkError::from_device(&e))
    }

    // One method per kind of device command: every command the block layer issues goes through
    // one of these.

    /// Issue the write commands `pieces` of one bio (its data `data`, starting at `sector`)
    /// through the zone write plugs, in the order Linux 6.12 sends them to the device, and fail
    /// with the errno the bio ends with.
    ///
    /// - Submission (`submit_bio`, then `bio_split_to_limits` piece by piece): a piece to a
    ///   conventional zone becomes a request; a piece to a sequential zone is checked by its zone's
    ///   plug (`blk_zone_wplug_handle_write`), fails there at once, becomes a request if its plug
    ///   is idle, or waits in the plug behind the zone's request.
    /// - The requests made at submission (one per zone at most, besides conventional ones) reach
    ///   the device in submission order once the whole bio is submitted (the submitter's
    ///   `blk_plug`, flushed by `blk_finish_plug`); only then does a completion send the next
    ///   piece of its zone (`blk_zone_wplug_bio_work`). So a write crossing from one zone into
    ///   the next opens the next zone before the rest of the first is written, as the kernel's
    ///   trace shows (`block_rq_issue` of the next zone's first piece before the first zone's
    ///   second).
    /// - A failed request fails the pieces waiting in its zone's plug first
    ///   (`blk_zone_write_plug_bio_endio` aborts them before the failed bio completes to its
    ///   parent), so they come before it in completion order.
    fn issue_writes(&self, sector: u64, data: &[u8], pieces: &[split::Piece]) -> Result<(), BlkError> {
        let plugs = self.plugs.as_ref().expect("an emulated device has plugs");
        let mut p = plugs.lock().unwrap_or_else(|e| e.into_inner());
        let g = &self.dev.info().geometry;
        let buf = |s: u64, n: u64| {
            let at = ((s - sector) * SECTOR_SIZE) as usize;
            &data[at..at + (n * SECTOR_SIZE) as usize]
        };
        // Pieces that failed, in completion order, with their errors.
        let mut errors: Vec<(usize, BlkError)> = Vec::new();
        let mut queue: std::collections::VecDeque<Event> = std::collections::VecDeque::new();
        let route = |ev: Vec<Event>,
                     p: &mut Plugs,
                     queue: &mut std::collections::VecDeque<Event>,
                     errors: &mut Vec<(usize, BlkError)>| {
            let mut ev = ev;
            while !ev.is_empty() {
                for e in std::mem::take(&mut ev) {
                    match e {
                        Event::Fail(b, why) => {
                            let e = BlkError::from_device(&plug_error(why, g, b.sector));
                            errors.push((b.id as usize, e));
                        }
                        Event::Resync(zone) => super::resync(&*self.dev, p, zone, &mut ev),
                        // Never asked for: this device's plugs take their writes at completion.
                        Event::Wake(who) => p.wake(who, &mut ev),
                        e @ (Event::Direct(_) | Event::Dispatch(_)) => queue.push_back(e),
                    }
                }
            }
        };
        for (i, piece) in pieces.iter().enumerate() {
            let mut ev = Vec::new();
            p.submit(Bio { id: i as u64, sector: piece.sector, sectors: piece.sectors, append: false }, &mut ev);
            route(ev, &mut p, &mut queue, &mut errors);
        }
        while let Some(e) = queue.pop_front() {
            match e {
                Event::Direct(b) => {
                    if let Err(e) = self.dev.write_at(b.sector, buf(b.sector, b.sectors)) {
                        errors.push((b.id as usize, BlkError::from_device(&e)));
                    }
                }
                Event::Dispatch(req) => {
                    let r = self.dev.write_at(req.sector, buf(req.sector, req.sectors));
                    let mut ev = Vec::new();
                    p.complete(req.zone, r.is_ok(), &mut ev);
                    route(ev, &mut p, &mut queue, &mut errors);
                    if let Err(e) = r {
                        let e = BlkError::from_device(&e);
                        errors.extend(req.bios().iter().map(|b| (b.id as usize, e.clone())));
                    }
                }
                Event::Fail(..) | Event::Resync(_) | Event::Wake(_) => unreachable!("routed above"),
            }
        }
        split_error(errors, pieces.len())
    }

    /// One read command.
    fn dispatch_read(&self, sector: u64, buf: &mut [u8]) -> DeviceResult<()> {
        self.dev.read_at(sector, buf)
    }

    /// One native zone append command.
    /// A native zone append is not plugged, but a plug of its zone goes away, failing the
    /// writes that wait in it (`blk_zone_wplug_handle_native_zone_append`).
    fn dispatch_append(&self, zone_start: u64, buf: &[u8]) -> DeviceResult<u64> {
        if let Some(plugs) = &self.plugs {
            let mut p = plugs.lock().unwrap_or_else(|e| e.into_inner());
            let mut ev = Vec::new();
            let sectors = buf.len() as u64 / SECTOR_SIZE;
            p.submit(Bio { id: 0, sector: zone_start, sectors, append: true }, &mut ev);
        }
        self.dev.zone_append(zone_start, buf)
    }

    /// One zone management command: one zone, or a reset-all (the device's reset of its whole
    /// capacity). A reset or finish of a conventional zone fails in the block layer
    /// (`blk_zone_wplug_handle_zone_mgmt`: EIO, whatever the transport). Once the device has
    /// carried out a reset, finish or reset-all, and if `update_plugs` (the bio completes without
    /// error), the plugs of its zones take their new write pointers (`blk_zone_mgmt_bio_endio`:
    /// at completion, since Linux 6.12.95's backport; at submission before it).
    fn dispatch_mgmt(&self, cmd: MgmtCommand, update_plugs: bool) -> DeviceResult<()> {
        let g = &self.dev.info().geometry;
        if let MgmtCommand::Zone { op: ZoneOp::Reset | ZoneOp::Finish, sector, .. } = cmd
            && let Some(zone) = g.zone_index(sector).filter(|&z| g.is_conventional(z))
        {
            let error = zonekit_core::ZoneError::new(zonekit_core::ZoneErrorKind::Conventional, Some(zone), sector);
            return Err(DeviceError::Zone { error, errno: Errno::EIO });
        }
        match cmd {
            MgmtCommand::Zone { op, sector, nr } => self.dev.zone_mgmt(op, sector, nr)?,
            MgmtCommand::ResetAll => self.dev.zone_mgmt(ZoneOp::Reset, 0, self.limits.capacity)?,
        }
        if let Some(plugs) = self.plugs.as_ref().filter(|_| update_plugs) {
            let mut p = plugs.lock().unwrap_or_else(|e| e.into_inner());
            let mut ev = Vec::new();
            match cmd {
                MgmtCommand::Zone { op: ZoneOp::Reset, sector, .. } => {
                    p.reset(g.zone_index(sector).unwrap_or(0), &mut ev)
                }
                MgmtCommand::Zone { op: ZoneOp::Finish, sector, .. } => {
                    p.finish(g.zone_index(sector).unwrap_or(0), &mut ev)
                }
                MgmtCommand::ResetAll => p.reset_all(&mut ev),
                MgmtCommand::Zone { .. } => {}
            }
        }
        Ok(())
    }

    /// One report zones command.
    fn dispatch_report(&self, sector: u64, max: usize, out: &mut Vec<Zone>) -> DeviceResult<()> {
        let from = out.len();
        self.dev.report_zones(sector, max, out)?;
        // A report tells the plugs of the zones it covers their write pointers again.
        if let Some(plugs) = &self.plugs {
            let mut p = plugs.lock().unwrap_or_else(|e| e.into_inner());
            let mut ev = Vec::new();
            for z in &out[from..] {
                p.sync_wp(z, &mut ev);
            }
        }
        Ok(())
    }

    /// One flush command.
    fn dispatch_flush(&self) -> DeviceResult<()> {
        self.dev.flush()
    }
}

/// A write the zone write plug refused: EIO, with the reason (and no OS error text).
fn plug_error(why: super::plug::FailReason, geometry: &zonekit_core::Geometry, sector: u64) -> DeviceError {
    use super::plug::FailReason as F;
    use zonekit_core::{ZoneError, ZoneErrorKind as K};
    let kind = match why {
        F::Unaligned => K::NotWritePointer,
        F::ZoneFull => K::ZoneFull,
        F::Straddles => K::BoundaryCrossing,
        F::AppendConventional => K::Conventional,
        F::NeedWpUpdate | F::Aborted => {
            return DeviceError::io(format!("sector {sector}: {why}"), std::io::Error::from_raw_os_error(Errno::EIO.0));
        }
    };
    DeviceError::Zone { error: ZoneError::new(kind, geometry.zone_index(sector), sector), errno: Errno::EIO }
}

/// The error of a split request whose pieces `errors` failed (piece index and error, in
/// completion order) out of `nr_pieces`: the errno [`split::split_errno`] picks, with that
/// piece's message; when several failed, the message also gives the first piece's (in the
/// request's order) if it differs, as that is usually the cause and the others its consequences
/// (a plug that lost its write pointer, pieces aborted with it).
fn split_error(errors: Vec<(usize, BlkError)>, nr_pieces: usize) -> Result<(), BlkError> {
    let failed: Vec<(usize, Errno)> = errors.iter().map(|(i, e)| (*i, e.errno)).collect();
    if split::split_errno(&failed, nr_pieces).is_none() {
        return Ok(());
    }
    let count = errors.len();
    let first = errors.iter().min_by_key(|(i, _)| *i).map(|(_, e)| e.message.clone()).unwrap_or_default();
    let at = errors.iter().position(|(i, _)| i + 1 == nr_pieces).unwrap_or(0);
    let mut e = errors.into_iter().nth(at).expect("a piece failed").1;
    if count > 1 {
        // The same reason at another sector adds nothing.
        let reason = |m: &str| {
            m.strip_prefix("sector ").and_then(|r| r.split_once(": ")).map_or(m.to_string(), |(_, why)| why.to_string())
        };
        e.message = if reason(&first) == reason(&e.message) {
            format!("{} ({count} of {nr_pieces} commands failed)", e.message)
        } else {
            format!("{} ({count} of {nr_pieces} commands failed, the first: {first})", e.message)
        };
    }
    Err(e)
}
