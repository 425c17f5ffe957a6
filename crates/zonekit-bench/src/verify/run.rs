//! A job's verification while it runs (fio's `populate_verify_io_u`, `log_io_piece`,
//! `get_next_verify`, `verify_io_u`): writes are filled with headers and digests and logged;
//! reads that verify (every read of a job that does not both read and write, the blocks of the
//! verify list in the verify phase or a `verify_backlog` batch) are checked as they complete.

use super::state::VerifyState;
use super::{Expect, VerifySpec};
use crate::rng::Rng;
use crate::workload::{Dir, NextIo};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// A written block that the verify phase reads back (fio's `io_piece`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// File index in the job.
    pub file: usize,
    /// Offset of the block.
    pub offset: u64,
    /// Its length.
    pub len: u64,
    /// The write's number.
    pub numberio: u16,
    /// Seed of its random data (`None`: not known, for blocks a dry run lists).
    pub seed: Option<u64>,
    id: u64,
    done: bool,
    /// Trimmed since written: it must read back as zeros.
    pub trimmed: bool,
}

/// What a verifying read checks its block against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadCheck {
    /// The seed written (`None`: the header's).
    pub seed: Option<u64>,
    /// The write's number.
    pub numberio: u16,
    /// From the verify list (fio's `IO_U_F_VER_LIST`, flags 0x88 in messages; otherwise 8).
    pub listed: bool,
    /// The block was trimmed: it must be zeros.
    pub trimmed: bool,
}

/// How a job verifies, beyond the block format.
#[derive(Debug, Clone)]
pub struct VerifyPlan {
    /// The block format and checks.
    pub spec: Arc<VerifySpec>,
    /// Log writes for a verify phase (`do_verify`, not `experimental_verify`).
    pub log_writes: bool,
    /// Keep the log sorted by offset, newer writes replacing overlapping older ones (fio without a
    /// random map: sequential jobs, `norandommap`); otherwise in write order.
    pub sorted: bool,
    /// Verify every read of the main phase (jobs that do not both read and write).
    pub verify_reads: bool,
    /// Check each header's seed against the logged one (jobs that read and write, without
    /// `verify_backlog`; fio takes the header's otherwise).
    pub check_seed: bool,
    /// `verify_backlog` (0: off).
    pub backlog: u64,
    /// `verify_backlog_batch` (0: `verify_backlog`).
    pub backlog_batch: u32,
    /// Keep going after a failed block (`continue_on_error=verify|all`).
    pub continue_on_error: bool,
    /// The engine completes asynchronously (fio names another function in the error).
    pub async_engine: bool,
    /// `verify_state_load`: the writing job's saved state.
    pub state: Option<Arc<VerifyState>>,
    /// Seed of the written blocks' seeds.
    pub seed: u64,
    /// `iodepth` (the completions a state file keeps per file).
    pub depth: u32,
    /// The engine only pretends to do I/O (`null`): reads are not checked, as in fio.
    pub fake_io: bool,
    /// `trim_percentage`.
    pub trim_percentage: u32,
    /// `trim_backlog` (0: no trims).
    pub trim_backlog: u64,
    /// `trim_backlog_batch` (0: `trim_backlog`).
    pub trim_batch: u32,
    /// `trim_verify_zero`.
    pub trim_zero: bool,
}

/// A job's verification state while its I/O loop runs.
#[derive(Debug, Clone)]
pub struct JobVerify {
    plan: VerifyPlan,
    seeds: Rng,
    list: VecDeque<Piece>,
    map: BTreeMap<(usize, u64), Piece>,
    next_id: u64,
    writes: u64,
    batch_left: u64,
    last_read: bool,
    replay: Option<VecDeque<Piece>>,
    slots: Vec<SlotMeta>,
    last_writes: Vec<VecDeque<u64>>,
    writes_done: u64,
    verify_reads_done: u64,
    /// Logged writes chosen for trimming (file, offset, id), oldest first.
    trim_list: VecDeque<(usize, u64, u64)>,
    trim_left: u64,
    trim_rng: Rng,
}

#[derive(Debug, Clone, Copy, Default)]
struct SlotMeta {
    read: Option<ReadCheck>,
    piece: Option<(usize, u64, u64)>,
}

/// A failed verification: the lines fio logs, the errno (EILSEQ) and fio's function text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError {
    /// fio's lines.
    pub lines: Vec<String>,
    /// Whether the job stops (not `continue_on_error=verify`).
    pub fatal: bool,
    /// fio's `td_verror` text (`file:io_u.c:2152, func=io_u_sync_complete`).
    pub verror: &'static str,
}

impl JobVerify {
    /// Verification for a job with `files` files and `depth` slots.
    pub fn new(plan: VerifyPlan, files: usize) -> JobVerify {
        let depth = plan.depth.max(1) as usize;
        JobVerify {
            seeds: Rng::new(plan.seed ^ 0x5eed_f00d),
            trim_rng: Rng::new(plan.seed ^ 0x7717),
            plan,
            list: VecDeque::new(),
            map: BTreeMap::new(),
            next_id: 0,
            writes: 0,
            batch_left: 0,
            last_read: false,
            replay: None,
            slots: vec![SlotMeta::default(); depth],
            last_writes: vec![VecDeque::new(); files],
            writes_done: 0,
            verify_reads_done: 0,
            trim_list: VecDeque::new(),
            trim_left: 0,
        }
    }

    /// The plan.
    pub fn plan(&self) -> &VerifyPlan {
        &self.plan
    }

    /// Start the verify phase: read back `pieces` in order (the log, or a replayed workload).
    pub fn start_phase(&mut self, pieces: Vec<Piece>) {
        self.replay = Some(pieces.into());
        self.batch_left = 0;
    }

    /// End the verify phase: the next reads come from the workload again.
    pub fn end_phase(&mut self) {
        self.replay = None;
    }

    /// The logged writes, in the order the verify phase reads them (and the log emptied).
    pub fn take_log(&mut self) -> Vec<Piece> {
        let mut v: Vec<Piece> = self.list.drain(..).collect();
        v.extend(std::mem::take(&mut self.map).into_values());
        v
    }

    /// Pieces for blocks a workload would write, in order, numbered as fio's replay numbers them.
    pub fn pieces_of(ios: impl Iterator<Item = NextIo>) -> Vec<Piece> {
        ios.filter(|io| io.dir == Dir::Write)
            .enumerate()
            .map(|(n, io)| Piece {
                file: io.file,
                offset: io.offset,
                len: io.len,
                numberio: n as u16,
                seed: None,
                id: n as u64,
                done: true,
                trimmed: false,
            })
            .collect()
    }

    /// The next read of the verify phase, or of a `verify_backlog` batch (fio's
    /// `check_get_verify`); `None` to go on with the workload. In the verify phase, `None` ends
    /// the job (`Some(None)`): the outer option says whether the verify list decides.
    pub fn next_read(&mut self) -> Option<Option<(NextIo, ReadCheck)>> {
        if let Some(q) = &mut self.replay {
            let p = q.pop_front();
            return Some(p.map(|p| self.read_of(p)));
        }
        if self.plan.backlog == 0 || self.log_len() == 0 {
            return None;
        }
        let take = if self.batch_left > 0 {
            true
        } else if self.log_len().is_multiple_of(self.plan.backlog) && !self.last_read {
            self.batch_left =
                if self.plan.backlog_batch > 0 { u64::from(self.plan.backlog_batch) } else { self.plan.backlog };
            true
        } else {
            false
        };
        if !take {
            return None;
        }
        let p = self.pop_done()?;
        self.batch_left = self.batch_left.saturating_sub(1);
        Some(Some(self.read_of(p)))
    }

    /// The next trim of a `trim_backlog` batch (fio's `check_get_trim`, after the verify
    /// backlog's turn): a logged write chosen by `trim_percentage`, which then either must read
    /// back as zeros (`trim_verify_zero`) or leaves the verify list.
    pub fn next_trim(&mut self) -> Option<NextIo> {
        if self.plan.trim_backlog == 0 || self.trim_list.is_empty() || self.replay.is_some() {
            return None;
        }
        if self.trim_left > 0 {
            self.trim_left -= 1;
        } else if self.log_len().is_multiple_of(self.plan.trim_backlog) && !self.last_read {
            let batch = if self.plan.trim_batch > 0 { u64::from(self.plan.trim_batch) } else { self.plan.trim_backlog };
            self.trim_left = batch.saturating_sub(1);
        } else {
            return None;
        }
        let (file, offset, id) = *self.trim_list.front()?;
        // Only a completed write is trimmed; a block a newer write replaced is not.
        let piece = if self.plan.sorted {
            self.map.get(&(file, offset)).filter(|p| p.id == id)
        } else {
            let i = self.list.partition_point(|p| p.id < id);
            self.list.get(i).filter(|p| p.id == id)
        };
        match piece {
            None => {
                self.trim_list.pop_front();
                return None;
            }
            Some(p) if !p.done => return None,
            Some(_) => {
                self.trim_list.pop_front();
            }
        }
        let zero = self.plan.trim_zero;
        let len = if self.plan.sorted {
            let p = self.map.get_mut(&(file, offset)).filter(|p| p.id == id)?;
            p.trimmed = true;
            let len = p.len;
            if !zero {
                self.map.remove(&(file, offset));
            }
            len
        } else {
            let i = self.list.partition_point(|p| p.id < id);
            let p = self.list.get_mut(i).filter(|p| p.id == id)?;
            p.trimmed = true;
            let len = p.len;
            if !zero {
                self.list.remove(i);
            }
            len
        };
        Some(NextIo { dir: Dir::Trim, file, offset, len })
    }

    fn read_of(&self, p: Piece) -> (NextIo, ReadCheck) {
        let check_seed = self.plan.check_seed && self.plan.spec.pattern.is_none();
        (
            NextIo { dir: Dir::Read, file: p.file, offset: p.offset, len: p.len },
            ReadCheck { seed: p.seed.filter(|_| check_seed), numberio: p.numberio, listed: true, trimmed: p.trimmed },
        )
    }

    fn log_len(&self) -> u64 {
        (self.list.len() + self.map.len()) as u64
    }

    /// The oldest (or lowest) logged write, if it has completed.
    fn pop_done(&mut self) -> Option<Piece> {
        if self.plan.sorted {
            let (&k, p) = self.map.iter().next()?;
            if !p.done {
                return None;
            }
            self.map.remove(&k)
        } else {
            if !self.list.front()?.done {
                return None;
            }
            self.list.pop_front()
        }
    }

    /// The job issued an I/O in direction `dir` (fio's `last_ddir`).
    pub fn issued(&mut self, dir: Dir) {
        if dir.index().is_some() {
            self.last_read = dir == Dir::Read;
        }
    }

    /// Fills the buffer of a write about to be issued on slot `tag`, and logs it.
    pub fn prepare_write(&mut self, tag: u32, io: &NextIo, buf: &mut [u8], now_ns: u64) {
        let numberio = self.writes as u16;
        self.writes += 1;
        let seed = self.seeds.next_u64();
        let time = ((now_ns / 1_000_000_000) as u32, (now_ns % 1_000_000_000) as u32);
        self.plan.spec.fill(buf, io.offset, seed, numberio, time);
        let mut meta = SlotMeta::default();
        if self.plan.log_writes {
            let id = self.log_piece(io, numberio, Some(seed), false);
            meta.piece = Some((io.file, io.offset, id));
        }
        if let Some(s) = self.slots.get_mut(tag as usize) {
            *s = meta;
        }
    }

    /// A write `verify_only` would have issued (fio's `do_dry_run`): logged as done, not written.
    pub fn dry_run_write(&mut self, io: &NextIo) {
        let numberio = self.writes as u16;
        self.writes += 1;
        self.log_piece(io, numberio, None, true);
    }

    /// Logs a write for the verify phase (fio's `log_io_piece`); its id.
    fn log_piece(&mut self, io: &NextIo, numberio: u16, seed: Option<u64>, done: bool) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let p = Piece { file: io.file, offset: io.offset, len: io.len, numberio, seed, id, done, trimmed: false };
        if self.plan.trim_percentage > 0 && self.trim_rng.between(0, 99) < u64::from(self.plan.trim_percentage) {
            self.trim_list.push_back((io.file, io.offset, id));
        }
        if self.plan.sorted {
            // A newer write replaces every older one it overlaps. Logged blocks never overlap, so
            // their ends rise with their offsets: walking down from this block's end, the first
            // that ends before its start ends the search.
            let end = io.offset + io.len;
            let overlapping: Vec<(usize, u64)> = self
                .map
                .range((io.file, 0)..(io.file, end))
                .rev()
                .take_while(|(_, q)| q.offset + q.len > io.offset)
                .map(|(k, _)| *k)
                .collect();
            for k in overlapping {
                self.map.remove(&k);
            }
            self.map.insert((io.file, io.offset), p);
        } else {
            self.list.push_back(p);
        }
        id
    }

    /// Writes issued (logged or not).
    pub fn writes_issued(&self) -> u64 {
        self.writes
    }

    /// A read about to be issued on slot `tag`: `check` if it verifies (else the main-phase rule).
    pub fn prepare_read(&mut self, tag: u32, check: Option<ReadCheck>) {
        let read = check.or(self.plan.verify_reads.then_some(ReadCheck {
            seed: None,
            numberio: 0,
            listed: false,
            trimmed: false,
        }));
        if let Some(s) = self.slots.get_mut(tag as usize) {
            *s = SlotMeta { read, piece: None };
        }
    }

    /// Whether the read on slot `tag` will be checked when it completes (fio's `verify_io_u`).
    pub fn checks(&self, tag: u32) -> bool {
        !self.plan.fake_io && self.slots.get(tag as usize).is_some_and(|s| s.read.is_some_and(|r| !r.trimmed))
    }

    /// With `verify_state_load`: whether a verifying read of `io` is past what the writing job
    /// completed, which ends the job.
    pub fn should_stop(&self, io: &NextIo, check: Option<&ReadCheck>) -> bool {
        let verifies = check.is_some() || self.plan.verify_reads;
        match &self.plan.state {
            Some(s) if verifies && io.dir == Dir::Read => {
                s.should_stop(self.verify_reads_done, io.file as u64, io.offset)
            }
            _ => false,
        }
    }

    /// The I/O on slot `tag` completed with `res`; `buf` holds what a read brought. A verifying
    /// read is checked: the error is what fio logs and does.
    pub fn completed(
        &mut self,
        tag: u32,
        io: &NextIo,
        res: i64,
        buf: &mut [u8],
        file_name: &str,
    ) -> Result<(), VerifyError> {
        let meta = self.slots.get_mut(tag as usize).map(std::mem::take).unwrap_or_default();
        if res < 0 {
            return Ok(());
        }
        if io.dir == Dir::Write {
            self.writes_done += 1;
            if let Some((file, offset, id)) = meta.piece {
                let p = if self.plan.sorted {
                    self.map.get_mut(&(file, offset)).filter(|p| p.id == id)
                } else {
                    let i = self.list.partition_point(|p| p.id < id);
                    self.list.get_mut(i).filter(|p| p.id == id)
                };
                if let Some(p) = p {
                    p.done = true;
                }
            }
            if let Some(ring) = self.last_writes.get_mut(io.file) {
                if ring.len() >= self.plan.depth.max(1) as usize {
                    ring.pop_front();
                }
                ring.push_back(io.offset);
            }
            return Ok(());
        }
        let Some(check) = meta.read else { return Ok(()) };
        if io.dir != Dir::Read || self.plan.fake_io {
            return Ok(());
        }
        self.verify_reads_done += 1;
        let len = (res as usize).min(buf.len());
        let verror = if self.plan.async_engine {
            "file:io_u.c:2190, func=io_u_queued_complete"
        } else {
            "file:io_u.c:2152, func=io_u_sync_complete"
        };
        if check.trimmed {
            // fio's verify_trimmed_io_u: the block must read back as zeros.
            return match buf[..len].iter().position(|&b| b != 0) {
                Some(at) if self.plan.trim_zero => Err(VerifyError {
                    lines: vec![format!(
                        "trim: verify failed at file {file_name} offset {}, length {}, block offset {at}",
                        io.offset, io.len
                    )],
                    fatal: !self.plan.continue_on_error || self.plan.spec.fatal,
                    verror,
                }),
                _ => Ok(()),
            };
        }
        let e = Expect {
            file: file_name,
            offset: io.offset,
            seed: check.seed,
            numberio: check.numberio,
            flags: if check.listed { 0x88 } else { 0x8 },
        };
        self.plan.spec.check(&mut buf[..len], &e).map_err(|f| VerifyError {
            lines: f.lines,
            fatal: !self.plan.continue_on_error || self.plan.spec.fatal,
            verror,
        })
    }

    /// What `verify_state_save` writes for this job.
    pub fn state(&self, name: &str, index: u64, writes_issued: u64) -> VerifyState {
        let depth = self.plan.depth.max(1);
        let per_file = self.writes_done.min(u64::from(depth)) as usize;
        let mut comps = Vec::new();
        for (f, ring) in self.last_writes.iter().enumerate() {
            for i in 0..per_file {
                let off = ring.len().checked_sub(1 + i).and_then(|j| ring.get(j)).copied().unwrap_or(0);
                comps.push((f as u64, off));
            }
        }
        VerifyState {
            name: name.to_string(),
            index,
            depth,
            nofiles: self.last_writes.len() as u32,
            numberio: writes_issued,
            comps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::VerifyType;

    fn plan(sorted: bool, backlog: u64) -> VerifyPlan {
        VerifyPlan {
            spec: Arc::new(VerifySpec {
                kind: VerifyType::Crc32c,
                interval: 4096,
                hdr_offset: 0,
                pattern: None,
                compress_percentage: 0,
                buffer_pattern: Vec::new(),
                fatal: false,
                dump: false,
                thread: 1,
                check_numberio: true,
            }),
            log_writes: true,
            sorted,
            verify_reads: false,
            check_seed: true,
            backlog,
            backlog_batch: 0,
            continue_on_error: false,
            async_engine: false,
            state: None,
            seed: 1,
            depth: 4,
            fake_io: false,
            trim_percentage: 0,
            trim_backlog: 0,
            trim_batch: 0,
            trim_zero: true,
        }
    }

    fn w(offset: u64) -> NextIo {
        NextIo { dir: Dir::Write, file: 0, offset, len: 4096 }
    }

    fn write(v: &mut JobVerify, tag: u32, offset: u64) -> Vec<u8> {
        let mut buf = vec![0u8; 4096];
        v.prepare_write(tag, &w(offset), &mut buf, 0);
        v.completed(tag, &w(offset), 4096, &mut buf.clone(), "f").unwrap();
        buf
    }

    #[test]
    fn the_log_is_by_offset_without_a_random_map_newest_write_kept() {
        let mut v = JobVerify::new(plan(true, 0), 1);
        for off in [8192, 0, 4096, 0] {
            write(&mut v, 0, off);
        }
        let log = v.take_log();
        assert_eq!(log.iter().map(|p| p.offset).collect::<Vec<_>>(), [0, 4096, 8192]);
        assert_eq!(log[0].numberio, 3, "the newer write of offset 0 replaced the older");
        let mut v = JobVerify::new(plan(false, 0), 1);
        for off in [8192, 0, 4096] {
            write(&mut v, 0, off);
        }
        assert_eq!(v.take_log().iter().map(|p| p.offset).collect::<Vec<_>>(), [8192, 0, 4096], "write order");
    }

    #[test]
    fn the_verify_phase_checks_what_was_written() {
        let mut v = JobVerify::new(plan(false, 0), 1);
        let data: Vec<Vec<u8>> = (0..3).map(|i| write(&mut v, 0, i * 4096)).collect();
        let log = v.take_log();
        v.start_phase(log);
        for (i, d) in data.iter().enumerate() {
            let (io, check) = v.next_read().unwrap().unwrap();
            assert_eq!(io.offset, i as u64 * 4096);
            v.prepare_read(1, Some(check));
            let mut buf = d.clone();
            if i == 2 {
                buf[100] ^= 1;
            }
            let r = v.completed(1, &io, 4096, &mut buf, "f");
            assert_eq!(r.is_err(), i == 2);
        }
        assert_eq!(v.next_read(), Some(None), "the phase ends with the list");
    }

    #[test]
    fn backlog_batches_come_after_every_n_completed_writes() {
        let mut v = JobVerify::new(plan(false, 2), 1);
        assert_eq!(v.next_read(), None);
        let mut buf = vec![0u8; 4096];
        v.prepare_write(0, &w(0), &mut buf, 0);
        v.issued(Dir::Write);
        v.prepare_write(1, &w(4096), &mut buf, 0);
        v.issued(Dir::Write);
        assert_eq!(v.next_read(), None, "the oldest write is still in flight");
        v.completed(0, &w(0), 4096, &mut buf, "f").unwrap();
        let (io, c) = v.next_read().unwrap().unwrap();
        assert_eq!((io.offset, c.listed), (0, true));
        v.issued(Dir::Read);
    }

    #[test]
    fn the_state_lists_the_last_completed_writes_newest_first() {
        let mut v = JobVerify::new(plan(false, 0), 1);
        for off in 0..6 {
            write(&mut v, 0, off * 4096);
        }
        let s = v.state("j", 0, 6);
        assert_eq!(s.comps, [(0, 20480), (0, 16384), (0, 12288), (0, 8192)]);
        assert_eq!((s.depth, s.nofiles, s.numberio), (4, 1, 6));
    }
}
