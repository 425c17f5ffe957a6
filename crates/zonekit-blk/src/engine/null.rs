//! fio's `null` engine: every I/O succeeds at once with its full length, without a system call.
//!
//! As fio: at depth 1 it is synchronous (`queue` completes the I/O); above, `queue` queues,
//! `commit` completes everything queued (unless completions are still waiting to be reaped, when
//! `queue` answers `Busy`), and `getevents` hands them back when asked for at least one.

use std::io;

use super::{Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, Queued, hand_back, stamp};
use crate::clock::RealClock;
use crate::sys::buf::SlotBuffers;

pub(crate) struct NullEngine {
    bufs: SlotBuffers,
    sync: bool,
    depth: usize,
    in_flight: Vec<bool>,
    queued: Vec<Completion>,
    events: Vec<Completion>,
    clock: RealClock,
}

impl NullEngine {
    pub fn new(mut config: EngineConfig) -> Result<NullEngine, EngineError> {
        let common = Common::new("null", &mut config)?;
        let depth = config.depth as usize;
        Ok(NullEngine {
            bufs: common.bufs,
            sync: depth == 1,
            depth,
            in_flight: vec![false; depth],
            queued: Vec::with_capacity(depth),
            events: Vec::with_capacity(depth),
            clock: config.clock,
        })
    }
}

impl Engine for NullEngine {
    fn name(&self) -> &'static str {
        "null"
    }

    fn is_sync(&self) -> bool {
        self.sync
    }

    fn reopen_files(&mut self, files: Vec<std::os::fd::OwnedFd>) -> Result<(), EngineError> {
        // No file is ever touched.
        drop(files);
        Ok(())
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        super::idle_slot_buffer(&mut self.bufs, &self.in_flight, tag)
    }

    #[inline]
    fn queue(&mut self, io: &Io) -> Queued {
        let tag = io.tag as usize;
        if tag >= self.depth || io.len as usize > self.bufs.size() && matches!(io.ddir, Ddir::Read | Ddir::Write) {
            return Queued::Completed(-libc::EINVAL);
        }
        let result = match io.ddir {
            Ddir::Read | Ddir::Write | Ddir::Trim => io.len as i32,
            Ddir::Sync | Ddir::DataSync | Ddir::SyncFileRange(_) | Ddir::ZoneReset => 0,
        };
        if self.sync {
            return Queued::Completed(result);
        }
        if !self.events.is_empty() || self.in_flight[tag] || self.queued.len() == self.depth {
            return Queued::Busy;
        }
        self.in_flight[tag] = true;
        self.queued.push(Completion::new(io.tag, result));
        Queued::Queued
    }

    fn commit(&mut self) -> io::Result<usize> {
        if !self.events.is_empty() {
            return Ok(0);
        }
        std::mem::swap(&mut self.events, &mut self.queued);
        Ok(self.events.len())
    }

    fn getevents(&mut self, min: usize, _max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let from = out.len();
        let n = hand_back(min, &mut self.events, &mut self.in_flight, out);
        stamp(out, from, &self.clock);
        Ok(n)
    }
}
