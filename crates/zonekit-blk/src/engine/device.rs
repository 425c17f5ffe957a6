//! The in-process engine of zonekit's own devices: every I/O goes straight to a [`ZonedDevice`]
//! (an emulated drive, `@profile` or a device directory) in this process, with no system call.
//!
//! It behaves as fio's asynchronous engines do (queue, commit, reap, `depth` slots), or as a
//! synchronous one (every I/O done inside `queue`) when the job's fio engine is synchronous, so
//! that job files written for real disks (`ioengine=libaio`, `io_uring`, `psync`, `sg`, `libzbc`)
//! run unchanged against an emulated drive.
//!
//! A device without a timing model serves its commands in submission order, at commit, and hands
//! them back one by one: `getevents(min, max)` returns the `min` oldest completions (none when
//! `min` is 0), as a device whose completions arrive one after the other. A job at `iodepth=N` thus
//! keeps N commands in flight, as it does on a real disk (fio's `IO depths 8=99.8%` at N = 8).
//! Each completion is stamped with the engine's clock when it is handed back. Zone resets run
//! inline (`queue` completes them once nothing waits for a commit), as trims do on fio's
//! asynchronous engines.
//!
//! A device with a timing model ([`DeviceTiming`], one per device per run, shared by every engine
//! that uses the device) takes each command at commit on the engine's clock and completes it when
//! its model says: `getevents` hands back what has completed by the clock's time (at most `max`;
//! the rest, with their times, at the next call), and
//! [`Engine::next_event`] says when to look again (the caller sleeps until then: in simulated
//! time the scheduler jumps there; in real time the thread sleeps, which paces the job at the
//! drive's speed). Synchronous jobs queue every command and wait for it the same way; zone
//! resets are commands too (queued when nothing else waits for a commit).
//!
//! Standing in for fio's `sg` engine, the engine can issue the SCSI command variants that
//! engine's options select ([`ScsiOptions`]): each is one I/O of the job made of one or two
//! device operations, run one after the other (at once on an untimed device; on a timed one the
//! second is sent when the first completes, so the model charges both):
//!
//! | command | first | then | the I/O completes with |
//! |---|---|---|---|
//! | READ with FUA | flush | read | the read's bytes |
//! | WRITE, WRITE STREAM with FUA | write | flush | the write's bytes |
//! | WRITE AND VERIFY | write | read back | the bytes, or `-EIO` if what reads back differs from what was written (devices that keep data) |
//! | WRITE SAME | write of the buffer's first logical block, repeated over the range | | the I/O's length |
//! | WRITE SAME with NDOB | write of zeros over the range | | the I/O's length |
//! | VERIFY, BYTCHK 00 | read | | the I/O's length |
//! | VERIFY, BYTCHK 01 | read | | the length, or `-EIO` if the range differs from the buffer |
//! | VERIFY, BYTCHK 11 | read | | the length, or `-EIO` if a block differs from the buffer's first block |
//!
//! A failed operation ends the I/O with its errno. Reads and writes keep every rule they have
//! otherwise (a WRITE SAME in a sequential zone must start at its write pointer).

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use super::{BufferMemory, Completion, Ddir, DiskCounts, Engine, EngineError, Io, Queued, check_len};
use crate::clock::{Clock, RealClock};
use crate::sys::buf::SlotBuffers;
use crate::zoned::dispatch::{DeviceQueue, Finished, QueueIo, QueueOp};
use crate::zoned::split;

/// The SCSI command a write of fio's `sg` engine is (its `sg_write_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScsiWriteMode {
    /// WRITE(10/16): a plain write.
    #[default]
    Write,
    /// WRITE AND VERIFY(10/16) with BYTCHK 0: the device writes, then reads the blocks back
    /// (medium verification).
    WriteAndVerify,
    /// WRITE SAME(10/16): one logical block of data (the buffer's first) written over the range.
    WriteSame,
    /// WRITE SAME(16) with NDOB: zeros written over the range, no data sent.
    WriteSameNdob,
    /// WRITE STREAM(16): a write tagged with a stream, which places nothing differently here.
    WriteStream,
    /// VERIFY(10/16) with BYTCHK 00: the device reads the range (medium verification); nothing
    /// is written.
    VerifyBytchk00,
    /// VERIFY with BYTCHK 01: the range compared with the buffer; nothing is written.
    VerifyBytchk01,
    /// VERIFY with BYTCHK 11: every block of the range compared with the buffer's first block;
    /// nothing is written.
    VerifyBytchk11,
}

impl ScsiWriteMode {
    /// Whether a write in this mode writes the range (the verify commands only read it).
    pub fn writes(self) -> bool {
        !matches!(self, ScsiWriteMode::VerifyBytchk00 | ScsiWriteMode::VerifyBytchk01 | ScsiWriteMode::VerifyBytchk11)
    }

    /// Whether a write in this mode compares the device's data with data the host sent (which a
    /// device that keeps no data cannot do).
    pub fn compares_host_data(self) -> bool {
        matches!(self, ScsiWriteMode::VerifyBytchk01 | ScsiWriteMode::VerifyBytchk11)
    }
}

/// The SCSI command variants of fio's `sg` engine (`readfua`, `writefua`, `sg_write_mode`), as
/// the in-process engine carries them out on an emulated device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScsiOptions {
    /// FUA on reads: the range's data is made durable before it is read.
    pub read_fua: bool,
    /// FUA on writes (`Write` and `WriteStream` only, as fio sets it): the write completes once
    /// its data is durable.
    pub write_fua: bool,
    /// The command a write is.
    pub write_mode: ScsiWriteMode,
}

impl ScsiOptions {
    /// Whether these options change anything (plain READ and WRITE otherwise).
    fn is_plain(&self) -> bool {
        !self.read_fua
            && !self.write_fua
            && matches!(self.write_mode, ScsiWriteMode::Write | ScsiWriteMode::WriteStream)
    }
}

/// How to build a [`DeviceEngine`].
#[derive(Debug, Clone)]
pub struct DeviceEngineConfig<C: Clock = RealClock> {
    /// Slots: the most I/Os in flight at once (`iodepth`), at least 1.
    pub depth: u32,
    /// Size of each slot's buffer (the largest block size of the job).
    pub buffer_size: usize,
    /// Complete every I/O inside `queue` (the job's fio engine is synchronous).
    pub sync: bool,
    /// The clock completions are stamped with.
    pub clock: C,
    /// The SCSI command variants of fio's `sg` engine (`None`: plain reads and writes).
    pub scsi: Option<ScsiOptions>,
    /// Where each slot's buffer starts past the page (fio's `iomem_align`; nothing checks the
    /// alignment of memory in process, so it changes nothing else).
    pub buffer_offset: usize,
    /// Where the buffers live (fio's `mem=`).
    pub buffer_memory: BufferMemory,
}

/// Build the in-process engine over the request queues of the job's devices (its files, in
/// order).
pub fn open_device_engine<C: Clock>(
    queues: Vec<Arc<DeviceQueue>>,
    config: DeviceEngineConfig<C>,
) -> Result<Box<dyn Engine>, EngineError> {
    Ok(Box::new(DeviceEngine::new(queues, config)?))
}

/// A slot's I/O, from queue to reap.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// Index of [`DiskCounts`]' directions (read 0, write 1) for reads and writes.
    dir: Option<usize>,
    file: u32,
}

/// The buffer a device operation of a SCSI command uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Buf {
    /// The slot's buffer (the I/O's data).
    Slot,
    /// The slot's scratch buffer (data built for a WRITE SAME, or read back to compare).
    Scratch,
}

/// What a SCSI command checks once its last operation has read the range into the scratch
/// buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compare {
    /// Nothing (a medium verification without data, or no read).
    Nothing,
    /// The range equals the slot's buffer (what was written, or BYTCHK 01's data).
    Whole,
    /// Every logical block of the range equals the slot buffer's first (BYTCHK 11).
    EachBlock,
}

/// A SCSI command of the `sg` engine in flight: its I/O, the operation still to come, and what
/// its completion checks.
#[derive(Debug, Clone, Copy)]
struct ScsiCommand {
    io: Io,
    /// The second operation, once the first has completed.
    then: Option<(QueueOp, Buf)>,
    compare: Compare,
    /// The result the I/O completes with when every operation succeeds: the bytes of the data
    /// operation (the I/O's length for a WRITE SAME or a VERIFY, as fio counts them).
    result: i32,
    /// When the first operation reached the device.
    sent_ns: Option<u64>,
}

/// The in-process engine (see the module documentation).
pub struct DeviceEngine<C: Clock = RealClock> {
    /// Per file: its device's queue and this engine's number in it.
    queues: Vec<(Arc<DeviceQueue>, u32)>,
    bufs: SlotBuffers,
    sync: bool,
    depth: usize,
    in_flight: Vec<bool>,
    slots: Vec<Slot>,
    /// Queued, not yet committed.
    queued: Vec<Io>,
    /// Completed by untimed devices, not yet reaped.
    ready: VecDeque<Completion>,
    clock: C,
    /// What each device did (reads and writes that succeeded).
    counts: Vec<DiskCounts>,
    /// I/Os committed to timed devices and not yet reaped.
    timed_in_flight: usize,
    /// Completed by timed devices and taken from their queues, not yet reaped (beyond a
    /// `getevents`'s `max`), with the model's completion times.
    timed_done: VecDeque<Completion>,
    scratch: Vec<Finished>,
    /// The `sg` engine's command variants, when they change anything.
    scsi: Option<ScsiOptions>,
    /// Per slot, the SCSI command in flight (with `scsi` only).
    commands: Vec<Option<ScsiCommand>>,
    /// Per slot, data built for a command or read back by it (with `scsi` only).
    scratch_bufs: Option<SlotBuffers>,
}

impl<C: Clock> DeviceEngine<C> {
    /// An engine over `queues`.
    pub fn new(queues: Vec<Arc<DeviceQueue>>, config: DeviceEngineConfig<C>) -> Result<DeviceEngine<C>, EngineError> {
        let bad = |why: &str| EngineError::Option { engine: "device", why: why.to_string() };
        if config.depth == 0 {
            return Err(bad("iodepth must be at least 1"));
        }
        if config.buffer_size > i32::MAX as usize {
            return Err(bad("block size too large (at most 2 GiB - 1)"));
        }
        let depth = config.depth as usize;
        let bufs = SlotBuffers::with(depth, config.buffer_size, 4096, config.buffer_offset, &config.buffer_memory)
            .map_err(|source| EngineError::Buffers { engine: "device", source })?;
        let counts = vec![DiskCounts::default(); queues.len()];
        let scsi = config.scsi.filter(|o| !o.is_plain());
        let scratch_bufs = match scsi {
            // zonekit's own scratch space (fio has none): on the heap, whatever `mem=` says.
            Some(_) => Some(
                SlotBuffers::new(depth, config.buffer_size, 4096)
                    .map_err(|source| EngineError::Setup { engine: "device", source })?,
            ),
            None => None,
        };
        let queues = queues
            .into_iter()
            .map(|q| {
                let id = q.register();
                (q, id)
            })
            .collect();
        Ok(DeviceEngine {
            queues,
            bufs,
            sync: config.sync,
            depth,
            in_flight: vec![false; depth],
            slots: vec![Slot::default(); depth],
            queued: Vec::with_capacity(depth),
            ready: VecDeque::with_capacity(depth),
            clock: config.clock,
            counts,
            timed_in_flight: 0,
            timed_done: VecDeque::with_capacity(depth),
            scratch: Vec::with_capacity(depth),
            scsi,
            commands: vec![None; if scsi.is_some() { depth } else { 0 }],
            scratch_bufs,
        })
    }

    /// Checks the block layer makes before anything is queued, as a block device file's
    /// `O_DIRECT` read or write makes them (`blkdev_read_iter`, `blkdev_write_iter`): `Err(-errno)`
    /// for an I/O that cannot go (bad file; not in whole logical blocks: `EINVAL`; a write at or
    /// past the end: `ENOSPC`; a trim, which an emulated zoned device does not have: zonemode=zbd
    /// turns trims into zone resets before they get here); else the I/O, cut at the device end.
    fn check(&self, io: &Io) -> Result<Io, i32> {
        let Some((q, _)) = self.queues.get(io.file as usize) else { return Err(-libc::EBADF) };
        let (offset, len) = (io.offset, u64::from(io.len));
        match io.ddir {
            Ddir::Read | Ddir::Write => {
                check_len(&self.bufs, io)?;
                let cut = if io.ddir == Ddir::Read {
                    split::cut_read(q.limits(), offset, len)
                } else {
                    split::cut_write(q.limits(), offset, len)
                };
                let cut = cut.map_err(|e| -e.errno().0)?;
                Ok(Io { len: cut.bytes as u32, ..*io })
            }
            Ddir::ZoneReset if !offset.is_multiple_of(512) || !len.is_multiple_of(512) => Err(-libc::EINVAL),
            Ddir::Trim => Err(-libc::EOPNOTSUPP),
            _ => Ok(*io),
        }
    }

    /// Send `io` to its device's queue.
    fn submit(&mut self, io: &Io) {
        if self.scsi.is_some() && matches!(io.ddir, Ddir::Read | Ddir::Write) {
            self.submit_command(io);
            if self.queues[io.file as usize].0.is_timed() {
                self.timed_in_flight += 1;
            }
            return;
        }
        let now = self.clock.now_ns();
        let (q, engine) = &self.queues[io.file as usize];
        let op = match io.ddir {
            Ddir::Read => QueueOp::Read,
            Ddir::Write => QueueOp::Write,
            Ddir::Sync | Ddir::DataSync | Ddir::SyncFileRange(_) => QueueOp::Flush,
            Ddir::ZoneReset => QueueOp::Reset,
            Ddir::Trim => unreachable!("refused by check"),
        };
        let dir = match io.ddir {
            Ddir::Read => Some(0),
            Ddir::Write => Some(1),
            _ => None,
        };
        self.slots[io.tag as usize] = Slot { dir, file: io.file };
        let len = match op {
            QueueOp::Read | QueueOp::Write => io.len as usize,
            _ => 0,
        };
        let buf = &mut self.bufs.get_mut(io.tag as usize).expect("checked slot")[..len];
        let qio = QueueIo { engine: *engine, tag: io.tag, op, sector: io.offset >> 9, sectors: u64::from(io.len) >> 9 };
        if q.is_timed() {
            q.submit(now, qio, buf);
            self.timed_in_flight += 1;
        } else {
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            q.submit_and_take(now, qio, buf, &mut scratch);
            for f in &scratch {
                self.account(f);
                self.ready.push_back(Completion { tag: f.tag, result: f.result, at_ns: f.at_ns });
            }
            self.scratch = scratch;
        }
    }

    /// Start the SCSI command a read or write of the `sg` engine is (see the module
    /// documentation): its first operation now, the second when the first completes.
    #[cold]
    fn submit_command(&mut self, io: &Io) {
        let o = self.scsi.expect("SCSI options");
        let len = io.len as usize;
        let lbs = (self.queues[io.file as usize].0.limits().lbs_sectors().max(1) * 512) as usize;
        let keeps_data = self.queues[io.file as usize].0.device().info().keeps_data;
        let whole = io.len as i32;
        let (first, then, compare, result) = if io.ddir == Ddir::Read {
            if o.read_fua {
                ((QueueOp::Flush, Buf::Slot), Some((QueueOp::Read, Buf::Slot)), Compare::Nothing, 0)
            } else {
                ((QueueOp::Read, Buf::Slot), None, Compare::Nothing, 0)
            }
        } else {
            // fio sets FUA on WRITE and WRITE STREAM only.
            let fua = o.write_fua.then_some((QueueOp::Flush, Buf::Slot));
            let scratch = self.scratch_bufs.as_mut().and_then(|b| b.get_mut(io.tag as usize)).expect("scratch slot");
            match o.write_mode {
                ScsiWriteMode::Write | ScsiWriteMode::WriteStream => {
                    ((QueueOp::Write, Buf::Slot), fua, Compare::Nothing, 0)
                }
                ScsiWriteMode::WriteAndVerify => {
                    let compare = if keeps_data { Compare::Whole } else { Compare::Nothing };
                    ((QueueOp::Write, Buf::Slot), Some((QueueOp::Read, Buf::Scratch)), compare, 0)
                }
                ScsiWriteMode::WriteSame => {
                    let data = self.bufs.get(io.tag as usize).expect("checked slot");
                    let block = &data[..lbs.min(len)];
                    for chunk in scratch[..len].chunks_mut(lbs) {
                        chunk.copy_from_slice(&block[..chunk.len()]);
                    }
                    ((QueueOp::Write, Buf::Scratch), None, Compare::Nothing, whole)
                }
                ScsiWriteMode::WriteSameNdob => {
                    scratch[..len].fill(0);
                    ((QueueOp::Write, Buf::Scratch), None, Compare::Nothing, whole)
                }
                ScsiWriteMode::VerifyBytchk00 => ((QueueOp::Read, Buf::Scratch), None, Compare::Nothing, whole),
                ScsiWriteMode::VerifyBytchk01 => ((QueueOp::Read, Buf::Scratch), None, Compare::Whole, whole),
                ScsiWriteMode::VerifyBytchk11 => ((QueueOp::Read, Buf::Scratch), None, Compare::EachBlock, whole),
            }
        };
        self.slots[io.tag as usize] = Slot { dir: Some(usize::from(io.ddir == Ddir::Write)), file: io.file };
        self.commands[io.tag as usize] = Some(ScsiCommand { io: *io, then, compare, result, sent_ns: None });
        self.send_op(io, first);
    }

    /// Send one operation of the SCSI command in slot `io.tag`; on an untimed device, carry the
    /// command on as its operations complete, to its end.
    fn send_op(&mut self, io: &Io, (op, buf): (QueueOp, Buf)) {
        let now = self.clock.now_ns();
        let (q, engine) = &self.queues[io.file as usize];
        let len = if op == QueueOp::Flush { 0 } else { io.len as usize };
        let bufs = match buf {
            Buf::Slot => &mut self.bufs,
            Buf::Scratch => self.scratch_bufs.as_mut().expect("scratch buffers"),
        };
        let data = &mut bufs.get_mut(io.tag as usize).expect("checked slot")[..len];
        let sectors = if op == QueueOp::Flush { 0 } else { u64::from(io.len) >> 9 };
        let qio = QueueIo { engine: *engine, tag: io.tag, op, sector: io.offset >> 9, sectors };
        if q.is_timed() {
            q.submit(now, qio, data);
            return;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        q.submit_and_take(now, qio, data, &mut scratch);
        for f in &scratch {
            if let Some(done) = self.command_step(f) {
                self.account(&done);
                self.ready.push_back(Completion { tag: done.tag, result: done.result, at_ns: done.at_ns });
            }
        }
        self.scratch = scratch;
    }

    /// An operation of the SCSI command in slot `f.tag` finished: send the next one, or end the
    /// command (its checks made) and return how the I/O finished.
    fn command_step(&mut self, f: &Finished) -> Option<Finished> {
        let tag = f.tag as usize;
        let mut c = self.commands[tag].take().expect("a command in flight");
        let sent_ns = *c.sent_ns.get_or_insert(f.sent_ns);
        if f.result >= 0 {
            if c.result == 0 && f.result > 0 {
                // The data operation's bytes (a WRITE SAME or VERIFY counts its whole length).
                c.result = f.result;
            }
            if let Some(next) = c.then.take() {
                let io = c.io;
                self.commands[tag] = Some(c);
                self.send_op(&io, next);
                return None;
            }
        }
        let result = if f.result < 0 {
            f.result
        } else if self.miscompares(&c) {
            -libc::EIO
        } else {
            c.result
        };
        Some(Finished { tag: f.tag, result, at_ns: f.at_ns, sent_ns, append_sector: None })
    }

    /// Whether what the command read back differs from what it compares it with (a SCSI
    /// MISCOMPARE, or a medium error for a WRITE AND VERIFY: fio's `EIO` either way).
    fn miscompares(&self, c: &ScsiCommand) -> bool {
        let len = c.io.len as usize;
        let tag = c.io.tag as usize;
        let read = || &self.scratch_bufs.as_ref().expect("scratch buffers").get(tag).expect("scratch slot")[..len];
        let data = &self.bufs.get(tag).expect("checked slot")[..len];
        match c.compare {
            Compare::Nothing => false,
            Compare::Whole => read() != data,
            Compare::EachBlock => {
                let lbs = (self.queues[c.io.file as usize].0.limits().lbs_sectors().max(1) * 512) as usize;
                let block = &data[..lbs.min(len)];
                read().chunks(lbs).any(|b| b != &block[..b.len()])
            }
        }
    }

    /// Count a finished I/O in its device's statistics.
    fn account(&mut self, f: &Finished) {
        let slot = self.slots[f.tag as usize];
        if let Some(d) = slot.dir
            && f.result >= 0
        {
            let c = &mut self.counts[slot.file as usize];
            c.ios[d] += 1;
            c.sectors[d] += f.result as u64 >> 9;
            c.ticks_ns[d] += f.at_ns.saturating_sub(f.sent_ns);
        }
    }

    fn is_timed(&self, io: &Io) -> bool {
        self.queues.get(io.file as usize).is_some_and(|(q, _)| q.is_timed())
    }
}

impl<C: Clock> Engine for DeviceEngine<C> {
    fn name(&self) -> &'static str {
        "device"
    }

    fn is_sync(&self) -> bool {
        self.sync
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        super::idle_slot_buffer(&mut self.bufs, &self.in_flight, tag)
    }

    #[inline]
    fn queue(&mut self, io: &Io) -> Queued {
        let tag = io.tag as usize;
        if tag >= self.depth {
            return Queued::Completed(-libc::EINVAL);
        }
        let io = &match self.check(io) {
            Ok(io) => io,
            Err(e) => return Queued::Completed(e),
        };
        if matches!(io.ddir, Ddir::Read | Ddir::Write) && io.len == 0 {
            // A read at the device end: nothing to do.
            return Queued::Completed(0);
        }
        let timed = self.is_timed(io);
        if self.sync && !timed {
            self.submit(io);
            let c = self.ready.pop_back().expect("an untimed device completes at once");
            return Queued::Completed(c.result);
        }
        if io.ddir == Ddir::ZoneReset && !self.queued.is_empty() {
            // As the kernel engines do with trims: inline (untimed) or as a command of its own
            // (timed), once what is queued is sent.
            return Queued::Busy;
        }
        if io.ddir == Ddir::ZoneReset && !timed {
            self.submit(io);
            let c = self.ready.pop_back().expect("an untimed device completes at once");
            return Queued::Completed(c.result);
        }
        if self.in_flight[tag] || self.queued.len() == self.depth {
            return Queued::Busy;
        }
        self.in_flight[tag] = true;
        self.queued.push(*io);
        Queued::Queued
    }

    fn commit(&mut self) -> io::Result<usize> {
        let queued = std::mem::take(&mut self.queued);
        for io in &queued {
            self.submit(io);
        }
        let n = queued.len();
        self.queued = queued;
        self.queued.clear();
        Ok(n)
    }

    fn disk_counts(&self) -> &[DiskCounts] {
        &self.counts
    }

    fn next_event(&self) -> Option<u64> {
        if self.timed_in_flight == 0 {
            return None;
        }
        let queued = self.queues.iter().filter(|(q, _)| q.is_timed()).filter_map(|(q, _)| q.next_event()).min();
        match self.timed_done.front() {
            Some(c) => Some(queued.map_or(c.at_ns, |t| t.min(c.at_ns))),
            None => queued,
        }
    }

    fn getevents(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let max = max.max(min).max(1);
        let mut got = 0;
        if self.timed_in_flight > self.timed_done.len() {
            let now = self.clock.now_ns();
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            for (q, engine) in &self.queues {
                if q.is_timed() {
                    q.take(*engine, now, &mut scratch);
                }
            }
            for f in &scratch {
                let f = if self.commands.get(f.tag as usize).is_some_and(Option::is_some) {
                    match self.command_step(f) {
                        Some(done) => done,
                        // Its next operation is on its way.
                        None => continue,
                    }
                } else {
                    *f
                };
                self.account(&f);
                self.timed_done.push_back(Completion { tag: f.tag, result: f.result, at_ns: f.at_ns });
            }
            self.scratch = scratch;
        }
        while got < max
            && let Some(c) = self.timed_done.pop_front()
        {
            self.in_flight[c.tag as usize] = false;
            self.timed_in_flight -= 1;
            out.push(c);
            got += 1;
        }
        let n = min.saturating_sub(got).min(self.ready.len()).min(max - got);
        if n == 0 {
            return Ok(got);
        }
        let now = self.clock.now_ns();
        for mut c in self.ready.drain(..n) {
            self.in_flight[c.tag as usize] = false;
            c.at_ns = now;
            out.push(c);
        }
        Ok(got + n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zoned::dispatch::QueueConfig;
    use zonekit_core::{Command, Done, TimingModel, ZonedDevice};
    use zonekit_core::{Errno, ZoneCond};
    use zonekit_dev::{EmulatedDevice, profile, store::MemoryStore};

    fn device(name: &str) -> Arc<dyn ZonedDevice> {
        let c = profile(name).unwrap().config();
        let kind = zonekit_core::DeviceKind::Emulated { store: "memory".into(), profile: None };
        Arc::new(EmulatedDevice::new(name, kind, &c, Box::new(MemoryStore::new())))
    }

    fn queue(dev: &Arc<dyn ZonedDevice>, model: Option<Box<dyn TimingModel>>) -> Arc<DeviceQueue> {
        let mut config = QueueConfig::for_device(&**dev);
        config.reissue_ns = 0;
        Arc::new(DeviceQueue::new(dev.clone(), config, model))
    }

    fn engine(dev: &Arc<dyn ZonedDevice>, depth: u32, sync: bool) -> DeviceEngine {
        let cfg = DeviceEngineConfig {
            depth,
            buffer_size: 65536,
            sync,
            clock: RealClock::new(),
            scsi: None,
            buffer_offset: 0,
            buffer_memory: Default::default(),
        };
        DeviceEngine::new(vec![queue(dev, None)], cfg).unwrap()
    }

    fn io(tag: u32, ddir: Ddir, offset: u64, len: u32) -> Io {
        Io { tag, ddir, file: 0, offset, len }
    }

    #[test]
    fn async_completions_come_back_one_by_one_in_order() {
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        let mut e = engine(&dev, 4, false);
        for t in 0..4 {
            e.buffer(t).fill(t as u8 + 1);
            assert_eq!(e.queue(&io(t, Ddir::Write, zone + u64::from(t) * 4096, 4096)), Queued::Queued);
        }
        assert_eq!(e.queue(&io(0, Ddir::Write, 0, 4096)), Queued::Busy, "slot 0 is in flight");
        assert_eq!(e.commit().unwrap(), 4);
        let mut out = Vec::new();
        assert_eq!(e.getevents(0, usize::MAX, &mut out).unwrap(), 0, "nothing without waiting");
        assert_eq!(e.getevents(1, usize::MAX, &mut out).unwrap(), 1);
        assert_eq!(e.getevents(2, usize::MAX, &mut out).unwrap(), 2);
        assert_eq!(e.getevents(8, usize::MAX, &mut out).unwrap(), 1, "capped at what was committed");
        assert_eq!(
            out.iter().map(|c| (c.tag, c.result)).collect::<Vec<_>>(),
            [(0, 4096), (1, 4096), (2, 4096), (3, 4096)]
        );
        assert!(out.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
        let mut zones = Vec::new();
        dev.report_zones(zone >> 9, 1, &mut zones).unwrap();
        assert_eq!(zones[0].wp, (zone + 16384) >> 9);
        assert_eq!(e.disk_counts(), &[DiskCounts { ios: [0, 4], sectors: [0, 32], ..DiskCounts::default() }]);
        // Read back what slot 2 wrote.
        assert_eq!(e.queue(&io(2, Ddir::Read, zone + 8192, 4096)), Queued::Queued);
        e.commit().unwrap();
        e.getevents(1, usize::MAX, &mut out).unwrap();
        assert!(e.buffer(2)[..4096].iter().all(|&b| b == 3));
        assert_eq!(e.disk_counts()[0].ios, [1, 4], "the read counts");
    }

    #[test]
    fn errors_are_the_personalitys_errno_and_resets_work() {
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        let mut e = engine(&dev, 1, true);
        assert_eq!(e.queue(&io(0, Ddir::Write, zone + 4096, 4096)), Queued::Completed(-Errno::EREMOTEIO.0));
        // As Linux 6.12.95: the failed write leaves the zone's plug without a write pointer, and
        // writes fail (EIO, in the block layer) until a report, reset or finish of the zone.
        assert_eq!(e.queue(&io(0, Ddir::Write, zone, 4096)), Queued::Completed(-libc::EIO));
        assert_eq!(e.queue(&io(0, Ddir::ZoneReset, zone, zone as u32)), Queued::Completed(0));
        assert_eq!(e.queue(&io(0, Ddir::Write, zone, 4096)), Queued::Completed(4096));
        assert_eq!(e.queue(&io(0, Ddir::Write, zone + 4096, 100)), Queued::Completed(-libc::EINVAL));
        assert_eq!(e.queue(&io(0, Ddir::Trim, zone, 4096)), Queued::Completed(-libc::EOPNOTSUPP));
        assert_eq!(e.queue(&io(0, Ddir::ZoneReset, zone, zone as u32)), Queued::Completed(0));
        let mut zones = Vec::new();
        dev.report_zones(zone >> 9, 1, &mut zones).unwrap();
        assert_eq!(zones[0].cond, ZoneCond::Empty);
        // A conventional zone's reset fails in the block layer (Linux 6.10+): EIO on SCSI too.
        assert_eq!(e.queue(&io(0, Ddir::ZoneReset, 0, zone as u32)), Queued::Completed(-libc::EIO));
        assert_eq!(e.queue(&io(0, Ddir::ZoneReset, 512, zone as u32)), Queued::Completed(-libc::EINVAL));
        assert_eq!(e.queue(&io(0, Ddir::Sync, 0, 0)), Queued::Completed(0));
        assert_eq!(e.queue(&Io { file: 3, ..io(0, Ddir::Read, 0, 512) }), Queued::Completed(-libc::EBADF));
        assert_eq!(e.disk_counts()[0].ios, [0, 1], "only the write that succeeded counts");
    }

    /// A memory store that tells whether every write it took has been flushed, and can garble
    /// what it is given to write at one zone offset (a bad spot of the medium).
    struct Watched {
        inner: MemoryStore,
        dirty: Arc<std::sync::atomic::AtomicBool>,
        flushes: Arc<std::sync::atomic::AtomicU32>,
        bad: Option<(u32, u64)>,
    }

    impl zonekit_dev::store::Store for Watched {
        fn name(&self) -> &'static str {
            "memory"
        }
        fn read(&mut self, zone: u32, offset: u64, buf: &mut [u8]) -> io::Result<()> {
            self.inner.read(zone, offset, buf)
        }
        fn write(&mut self, zone: u32, offset: u64, data: &[u8]) -> io::Result<()> {
            self.dirty.store(true, std::sync::atomic::Ordering::Relaxed);
            let mut data = data.to_vec();
            if let Some((z, at)) = self.bad
                && z == zone
                && (offset..offset + data.len() as u64).contains(&at)
            {
                data[(at - offset) as usize] ^= 0xff;
            }
            self.inner.write(zone, offset, &data)
        }
        fn zone_changed(&mut self, t: &zonekit_core::Transition) -> io::Result<()> {
            self.inner.zone_changed(t)
        }
        fn flush(&mut self) -> io::Result<()> {
            self.dirty.store(false, std::sync::atomic::Ordering::Relaxed);
            self.flushes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.flush()
        }
    }

    struct Watch {
        dev: Arc<dyn ZonedDevice>,
        dirty: Arc<std::sync::atomic::AtomicBool>,
        flushes: Arc<std::sync::atomic::AtomicU32>,
    }

    impl Watch {
        fn dirty(&self) -> bool {
            self.dirty.load(std::sync::atomic::Ordering::Relaxed)
        }
        fn flushes(&self) -> u32 {
            self.flushes.load(std::sync::atomic::Ordering::Relaxed)
        }
    }

    /// A `zbc-small` device (512-byte blocks, zone 0 conventional) over a [`Watched`] store.
    fn watched(bad: Option<(u32, u64)>) -> Watch {
        let c = profile("zbc-small").unwrap().config();
        let kind = zonekit_core::DeviceKind::Emulated { store: "memory".into(), profile: None };
        let dirty = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flushes = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let store = Watched { inner: MemoryStore::new(), dirty: dirty.clone(), flushes: flushes.clone(), bad };
        let dev = Arc::new(EmulatedDevice::new("w", kind, &c, Box::new(store)));
        Watch { dev, dirty, flushes }
    }

    fn sg_engine(dev: &Arc<dyn ZonedDevice>, scsi: ScsiOptions) -> DeviceEngine {
        let cfg = DeviceEngineConfig {
            depth: 1,
            buffer_size: 65536,
            sync: true,
            clock: RealClock::new(),
            scsi: Some(scsi),
            buffer_offset: 0,
            buffer_memory: Default::default(),
        };
        DeviceEngine::new(vec![queue(dev, None)], cfg).unwrap()
    }

    fn mode(write_mode: ScsiWriteMode) -> ScsiOptions {
        ScsiOptions { write_mode, ..ScsiOptions::default() }
    }

    fn read_back(dev: &Arc<dyn ZonedDevice>, offset: u64, len: usize) -> Vec<u8> {
        let mut buf = vec![0u8; len];
        dev.read_at(offset >> 9, &mut buf).unwrap();
        buf
    }

    #[test]
    fn write_same_repeats_the_first_block_and_counts_the_whole_length() {
        let w = watched(None);
        let zone = w.dev.info().geometry.zone_size * 512;
        let mut e = sg_engine(&w.dev, mode(ScsiWriteMode::WriteSame));
        let b = e.buffer(0);
        for (i, x) in b[..8192].iter_mut().enumerate() {
            *x = (i % 251) as u8 + 1;
        }
        let first: Vec<u8> = b[..512].to_vec();
        // Conventional zone 0: anywhere.
        assert_eq!(e.queue(&io(0, Ddir::Write, 4096, 8192)), Queued::Completed(8192));
        let data = read_back(&w.dev, 4096, 8192);
        assert!(data.chunks(512).all(|c| c == first), "every block is the first one");
        // A sequential zone: at the write pointer only, which then moves by the whole range.
        assert_eq!(e.queue(&io(0, Ddir::Write, zone + 512, 1024)), Queued::Completed(-Errno::EREMOTEIO.0));
        assert_eq!(e.queue(&io(0, Ddir::ZoneReset, zone, zone as u32)), Queued::Completed(0));
        assert_eq!(e.queue(&io(0, Ddir::Write, zone, 8192)), Queued::Completed(8192));
        let mut zones = Vec::new();
        w.dev.report_zones(zone >> 9, 1, &mut zones).unwrap();
        assert_eq!(zones[0].wp, (zone + 8192) >> 9);
        assert!(read_back(&w.dev, zone, 8192).chunks(512).all(|c| c == first));
        assert!(e.buffer(0)[512..1024] != first[..], "the job's buffer is left as it was");
        assert_eq!(e.disk_counts()[0].ios, [0, 2]);
        assert_eq!(e.disk_counts()[0].sectors, [0, 32], "the whole ranges count, as fio counts them");
    }

    #[test]
    fn write_same_ndob_writes_zeros() {
        let w = watched(None);
        let mut e = sg_engine(&w.dev, ScsiOptions::default());
        e.buffer(0)[..4096].fill(7);
        assert_eq!(e.queue(&io(0, Ddir::Write, 0, 4096)), Queued::Completed(4096));
        let mut e = sg_engine(&w.dev, mode(ScsiWriteMode::WriteSameNdob));
        e.buffer(0)[..4096].fill(9);
        assert_eq!(e.queue(&io(0, Ddir::Write, 1024, 2048)), Queued::Completed(2048));
        let data = read_back(&w.dev, 0, 4096);
        assert!(data[..1024].iter().chain(&data[3072..]).all(|&x| x == 7));
        assert!(data[1024..3072].iter().all(|&x| x == 0));
    }

    #[test]
    fn write_and_verify_fails_with_eio_where_the_medium_garbles_a_block() {
        // Byte 1000 of zone 0 reads back other than written.
        let w = watched(Some((0, 1000)));
        let mut plain = sg_engine(&w.dev, ScsiOptions::default());
        plain.buffer(0)[..4096].fill(3);
        assert_eq!(plain.queue(&io(0, Ddir::Write, 0, 4096)), Queued::Completed(4096), "a WRITE does not notice");
        let mut e = sg_engine(&w.dev, mode(ScsiWriteMode::WriteAndVerify));
        e.buffer(0)[..4096].fill(5);
        assert_eq!(e.queue(&io(0, Ddir::Write, 4096, 4096)), Queued::Completed(4096), "a good spot verifies");
        assert_eq!(e.queue(&io(0, Ddir::Write, 0, 4096)), Queued::Completed(-libc::EIO), "the bad spot does not");
        // The write happened; the verification found it wrong.
        assert_eq!(read_back(&w.dev, 0, 512)[..8], [5; 8]);
        assert_eq!(e.disk_counts()[0].ios, [0, 1], "only the verified write counts");
    }

    #[test]
    fn verify_modes_compare_what_the_device_holds_and_write_nothing() {
        let w = watched(None);
        let zone = w.dev.info().geometry.zone_size * 512;
        let mut plain = sg_engine(&w.dev, ScsiOptions::default());
        plain.buffer(0)[..4096].fill(1);
        assert_eq!(plain.queue(&io(0, Ddir::Write, zone, 4096)), Queued::Completed(4096));
        let verify = |m: ScsiWriteMode, fill: u8, len: u32| {
            let mut e = sg_engine(&w.dev, mode(m));
            e.buffer(0)[..len as usize].fill(fill);
            e.buffer(0)[512..1024].fill(fill.wrapping_add(1));
            match e.queue(&io(0, Ddir::Write, zone, len)) {
                Queued::Completed(r) => r,
                q => panic!("{q:?}"),
            }
        };
        // BYTCHK 00: a medium check, whatever the buffer holds.
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk00, 9, 4096), 4096);
        // BYTCHK 11 compares each block with the buffer's first (block 1 of the buffer differs,
        // and is not used); BYTCHK 01 with the whole buffer (block 1 differs: a miscompare).
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk11, 1, 4096), 4096);
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk11, 2, 4096), -libc::EIO);
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk01, 1, 4096), -libc::EIO);
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk01, 1, 512), 512);
        // Past what was written: the zone's fill, not the pattern.
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk11, 1, 8192), -libc::EIO);
        let mut zones = Vec::new();
        w.dev.report_zones(zone >> 9, 1, &mut zones).unwrap();
        assert_eq!(zones[0].wp, (zone + 4096) >> 9, "no VERIFY moved the write pointer");
        // A block the medium garbled (byte 2058 of what was written) miscompares; the blocks
        // before it still verify, and a medium check without data does not look.
        let w = watched(Some((1, 2058)));
        let mut plain = sg_engine(&w.dev, ScsiOptions::default());
        plain.buffer(0)[..4096].fill(1);
        assert_eq!(plain.queue(&io(0, Ddir::Write, zone, 4096)), Queued::Completed(4096));
        let verify = |m: ScsiWriteMode, len: u32| {
            let mut e = sg_engine(&w.dev, mode(m));
            e.buffer(0)[..len as usize].fill(1);
            e.queue(&io(0, Ddir::Write, zone, len))
        };
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk11, 2048), Queued::Completed(2048));
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk01, 2048), Queued::Completed(2048));
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk11, 4096), Queued::Completed(-libc::EIO));
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk01, 4096), Queued::Completed(-libc::EIO));
        assert_eq!(verify(ScsiWriteMode::VerifyBytchk00, 4096), Queued::Completed(4096), "no comparison");
    }

    #[test]
    fn fua_makes_the_data_durable_before_the_io_completes() {
        let w = watched(None);
        let zone = w.dev.info().geometry.zone_size * 512;
        let mut plain = sg_engine(&w.dev, ScsiOptions::default());
        assert_eq!(plain.queue(&io(0, Ddir::Write, zone, 4096)), Queued::Completed(4096));
        assert!(w.dirty(), "a plain WRITE leaves its data in the volatile cache");
        let mut fua = sg_engine(&w.dev, ScsiOptions { write_fua: true, ..ScsiOptions::default() });
        assert_eq!(fua.queue(&io(0, Ddir::Write, zone + 4096, 4096)), Queued::Completed(4096));
        assert!(!w.dirty(), "a FUA WRITE completes once its data is durable");
        assert_eq!(w.flushes(), 1);
        assert_eq!(fua.disk_counts()[0].ios, [0, 1], "one write, whatever it took");
        // WRITE STREAM takes FUA too; WRITE SAME ignores it, as fio sets it on neither.
        let mut stream = sg_engine(
            &w.dev,
            ScsiOptions { write_fua: true, write_mode: ScsiWriteMode::WriteStream, ..ScsiOptions::default() },
        );
        assert_eq!(stream.queue(&io(0, Ddir::Write, zone + 8192, 4096)), Queued::Completed(4096));
        assert!(!w.dirty());
        let mut same = sg_engine(
            &w.dev,
            ScsiOptions { write_fua: true, write_mode: ScsiWriteMode::WriteSame, ..ScsiOptions::default() },
        );
        assert_eq!(same.queue(&io(0, Ddir::Write, zone + 12288, 4096)), Queued::Completed(4096));
        assert!(w.dirty(), "writefua is ignored with write_same, as in fio");
        // A FUA READ reads from the medium: what is cached is made durable first.
        let mut read = sg_engine(&w.dev, ScsiOptions { read_fua: true, ..ScsiOptions::default() });
        read.buffer(0)[..4096].fill(0xee);
        assert_eq!(read.queue(&io(0, Ddir::Read, zone + 4096, 4096)), Queued::Completed(4096));
        assert!(!w.dirty());
        assert!(read.buffer(0)[..4096].iter().all(|&x| x == 0), "the data written (zeros) is read");
        assert_eq!(read.disk_counts()[0].ios, [1, 0]);
        assert_eq!(w.flushes(), 3);
    }

    #[test]
    fn a_timed_device_charges_each_operation_of_a_command() {
        use crate::sim::{Scheduler, SimClock};
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        let timing = queue(&dev, Some(Box::new(Fifo::new(1_000, 10))));
        let clock = SimClock::new();
        let scsi = ScsiOptions { write_fua: true, ..ScsiOptions::default() };
        let cfg = DeviceEngineConfig {
            depth: 1,
            buffer_size: 65536,
            sync: true,
            clock: clock.clone(),
            scsi: Some(scsi),
            buffer_offset: 0,
            buffer_memory: Default::default(),
        };
        let mut e = DeviceEngine::new(vec![timing], cfg).unwrap();
        let verify = DeviceEngineConfig {
            depth: 1,
            buffer_size: 65536,
            sync: true,
            clock: clock.clone(),
            scsi: Some(mode(ScsiWriteMode::WriteAndVerify)),
            buffer_offset: 0,
            buffer_memory: Default::default(),
        };
        let mut v = DeviceEngine::new(vec![queue(&dev, Some(Box::new(Fifo::new(1_000, 10))))], verify).unwrap();
        let c2 = clock.clone();
        let task = Box::pin(async move {
            let mut times = Vec::new();
            for (e, offset) in [(&mut e, zone), (&mut v, 2 * zone)] {
                assert_eq!(e.queue(&io(0, Ddir::Write, offset, 4096)), Queued::Queued);
                e.commit().unwrap();
                let mut out = Vec::new();
                while out.is_empty() {
                    let t = e.next_event().expect("in flight");
                    c2.sleep_until(t).await;
                    e.getevents(1, usize::MAX, &mut out).unwrap();
                }
                assert_eq!(e.next_event(), None);
                assert_eq!(out[0].result, 4096);
                times.push(out[0].at_ns);
            }
            (times, e.disk_counts()[0], v.disk_counts()[0])
        }) as crate::sim::Task<'static, (Vec<u64>, DiskCounts, DiskCounts)>;
        let (times, fua, verified) = Scheduler::new(clock).run(vec![task], |_| {}).pop().flatten().unwrap();
        // FUA: the write (1 µs + 8 sectors × 10 ns), then the flush (1 µs). WRITE AND VERIFY,
        // from there: the write (1080 ns), then the read back (1080 ns).
        assert_eq!(times, [2_080, 2_080 + 2_160]);
        assert_eq!((fua.ios, fua.ticks_ns[1]), ([0, 1], 2_080), "one write, timed from its start to the flush's end");
        assert_eq!((verified.ios, verified.ticks_ns[1]), ([0, 1], 2_160));
    }

    /// A drive that serves one command at a time, in arrival order: `per_cmd` ns each, plus
    /// `per_sector` ns per media sector.
    #[derive(Debug)]
    struct Fifo {
        per_cmd: u64,
        per_sector: u64,
        queue: VecDeque<(u64, Command)>,
        /// The command in service and when it ends.
        busy: Option<(Command, u64)>,
        done: VecDeque<Done>,
    }

    impl Fifo {
        fn new(per_cmd: u64, per_sector: u64) -> Fifo {
            Fifo { per_cmd, per_sector, queue: VecDeque::new(), busy: None, done: VecDeque::new() }
        }

        fn run(&mut self, t: u64) {
            loop {
                match self.busy {
                    Some((c, end)) if end <= t => {
                        self.done.push_back(Done { id: c.id, at_ns: end });
                        self.busy = None;
                        if let Some((arr, next)) = self.queue.pop_front() {
                            let start = end.max(arr);
                            self.busy = Some((next, start + self.per_cmd + self.per_sector * next.media_sectors));
                        }
                    }
                    _ => return,
                }
            }
        }
    }

    impl TimingModel for Fifo {
        fn name(&self) -> &str {
            "fifo-test"
        }
        fn submit(&mut self, t: u64, cmd: Command) {
            self.run(t);
            if self.busy.is_none() {
                self.busy = Some((cmd, t + self.per_cmd + self.per_sector * cmd.media_sectors));
            } else {
                self.queue.push_back((t, cmd));
            }
        }
        fn next_event(&self) -> Option<u64> {
            self.busy.map(|(_, end)| end)
        }
        fn complete_until(&mut self, t: u64, out: &mut Vec<Done>) {
            self.run(t);
            out.extend(self.done.drain(..));
        }
        fn params(&self) -> Vec<zonekit_core::Param> {
            Vec::new()
        }
    }

    #[test]
    fn a_timed_device_completes_at_its_models_times_in_simulated_time() {
        use crate::sim::{Scheduler, SimClock};
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        let timing = queue(&dev, Some(Box::new(Fifo::new(1_000, 10))));
        let clock = SimClock::new();
        let cfg = DeviceEngineConfig {
            depth: 4,
            buffer_size: 65536,
            sync: false,
            clock: clock.clone(),
            scsi: None,
            buffer_offset: 0,
            buffer_memory: Default::default(),
        };
        let mut e = DeviceEngine::new(vec![timing.clone()], cfg).unwrap();
        let c2 = clock.clone();
        let task = Box::pin(async move {
            for t in 0..4 {
                assert_eq!(e.queue(&io(t, Ddir::Write, zone + u64::from(t) * 4096, 4096)), Queued::Queued);
            }
            e.commit().unwrap();
            let mut out = Vec::new();
            assert_eq!(e.getevents(1, usize::MAX, &mut out).unwrap(), 0, "nothing is done at time 0");
            while out.len() < 4 {
                let t = e.next_event().expect("in flight");
                c2.sleep_until(t).await;
                e.getevents(1, usize::MAX, &mut out).unwrap();
            }
            assert_eq!(e.next_event(), None);
            // A reset is a command too, queued when nothing else waits for a commit.
            assert_eq!(e.queue(&io(0, Ddir::ZoneReset, zone, zone as u32)), Queued::Queued);
            e.commit().unwrap();
            c2.sleep_until(e.next_event().unwrap()).await;
            e.getevents(1, usize::MAX, &mut out).unwrap();
            (out, e.disk_counts()[0])
        }) as crate::sim::Task<'static, (Vec<Completion>, DiskCounts)>;
        let (out, counts) = Scheduler::new(clock.clone()).run(vec![task], |_| {}).pop().flatten().unwrap();
        // The first write goes at once (1 µs + 8 sectors × 10 ns); the zone's plug holds the
        // other three and sends them merged into one request of 24 sectors when it completes
        // (1 µs + 240 ns); then the reset (1 µs).
        let times: Vec<u64> = out.iter().map(|c| c.at_ns).collect();
        assert_eq!(times, [1_080, 2_320, 2_320, 2_320, 3_320]);
        assert!(out.iter().all(|c| c.result >= 0));
        assert_eq!(clock.now_ns(), 3_320);
        assert_eq!(counts.ios, [0, 4]);
        assert_eq!(counts.ticks_ns[1], 1_080 + 3 * 1_240, "each from its sending to the device to completion");
        assert_eq!(timing.busy_ns(), 3_320);
    }

    #[test]
    fn a_timed_device_hands_back_at_most_max_keeping_the_models_times() {
        use crate::sim::{Scheduler, SimClock};
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        let timing = queue(&dev, Some(Box::new(Fifo::new(1_000, 10))));
        let clock = SimClock::new();
        let cfg = DeviceEngineConfig {
            depth: 4,
            buffer_size: 65536,
            sync: false,
            clock: clock.clone(),
            scsi: None,
            buffer_offset: 0,
            buffer_memory: Default::default(),
        };
        let mut e = DeviceEngine::new(vec![timing], cfg).unwrap();
        let c2 = clock.clone();
        let task = Box::pin(async move {
            for t in 0..4 {
                assert_eq!(e.queue(&io(t, Ddir::Write, zone + u64::from(t) * 4096, 4096)), Queued::Queued);
            }
            e.commit().unwrap();
            c2.sleep_until(10_000).await;
            let mut out = Vec::new();
            assert_eq!(e.getevents(1, 2, &mut out).unwrap(), 2);
            // The other two are done already: the next event is now.
            assert_eq!(e.next_event(), Some(2_320));
            assert_eq!(e.getevents(0, 1, &mut out).unwrap(), 1);
            assert_eq!(e.getevents(1, 8, &mut out).unwrap(), 1);
            assert_eq!(e.next_event(), None);
            out
        }) as crate::sim::Task<'static, Vec<Completion>>;
        let out = Scheduler::new(clock).run(vec![task], |_| {}).pop().flatten().unwrap();
        let times: Vec<u64> = out.iter().map(|c| c.at_ns).collect();
        assert_eq!(times, [1_080, 2_320, 2_320, 2_320]);
    }

    /// Real-time pacing: the model runs on the real clock (a command sent at wall time `t`
    /// completes at `t` + 2 ms), each completion is handed back no earlier than its model time,
    /// and the engine never has its caller sleep past a completion's time nor hold one back once
    /// the clock has reached it. Those bounds are on the times the engine and the model give, not
    /// on how late the operating system wakes a sleeping thread, so a loaded machine cannot fail
    /// them (the wall-clock lateness is printed; it was bounded by 5 ms before, which a busy
    /// 2-core machine overran). An engine that slept until a later event, or did not hand back a
    /// due completion, still fails.
    #[test]
    fn a_timed_device_on_the_real_clock_paces_completions() {
        let dev = device("zbc-small");
        let zone = dev.info().geometry.zone_size * 512;
        // 2 ms per command.
        let timing = queue(&dev, Some(Box::new(Fifo::new(2_000_000, 0))));
        let clock = RealClock::new();
        let cfg = DeviceEngineConfig {
            depth: 2,
            buffer_size: 65536,
            sync: true,
            clock,
            scsi: None,
            buffer_offset: 0,
            buffer_memory: Default::default(),
        };
        let mut e = DeviceEngine::new(vec![timing], cfg).unwrap();
        let mut lateness = Vec::new();
        let t0 = clock.now_ns();
        for i in 0..10u64 {
            let before = clock.now_ns();
            assert_eq!(e.queue(&io(0, Ddir::Write, zone + i * 4096, 4096)), Queued::Queued);
            e.commit().unwrap();
            let after = clock.now_ns();
            // The times the caller was told to sleep until, in order.
            let mut targets = Vec::new();
            let mut out = Vec::new();
            loop {
                e.getevents(1, usize::MAX, &mut out).unwrap();
                if let Some(c) = out.first() {
                    let now = clock.now_ns();
                    assert!(now >= c.at_ns, "handed back at {now} before its time {}", c.at_ns);
                    // Sent on the real clock between `before` and `after`, done 2 ms later.
                    assert!(
                        (before + 2_000_000..=after + 2_000_000).contains(&c.at_ns),
                        "command {i}: sent in [{before}, {after}], completed at {}",
                        c.at_ns
                    );
                    // Never asked to sleep past the completion; once a sleep reached its time,
                    // the very next call handed it back.
                    let (last, earlier) = targets.split_last().map_or((None, &[][..]), |(l, r)| (Some(*l), r));
                    assert!(last.is_none_or(|t| t <= c.at_ns), "slept until {last:?}, past {}", c.at_ns);
                    assert!(
                        earlier.iter().all(|&t| t < c.at_ns),
                        "command {i}: slept until {earlier:?} and again, though {} was due",
                        c.at_ns
                    );
                    lateness.push(now - c.at_ns);
                    break;
                }
                let t = e.next_event().expect("a command in flight has a next event");
                targets.push(t);
                crate::run_to_completion(clock.sleep_until(t));
            }
        }
        let total = clock.now_ns() - t0;
        assert!(total >= 20_000_000, "10 commands of 2 ms took {total} ns");
        let worst = lateness.iter().max().copied().unwrap_or(0);
        eprintln!("pacing: worst lateness {worst} ns over {} completions (wall clock)", lateness.len());
    }
}
