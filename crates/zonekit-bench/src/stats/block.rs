//! `block_error_percentiles` (fio's `block_infos`): the state of every trim-sized block of a
//! job's one file — how many times it was trimmed, and whether a trim or a write of it failed —
//! and the report fio makes of them (`block lifetime percentiles`: the trims it took, over the
//! blocks ever trimmed or failed; the count of blocks per state).
//!
//! The states change as fio 3.33 changes them: a trim that completes (and is counted, so not in
//! `ramp_time`) adds one to its block's trims and marks it trimmed unless it has failed; a
//! write that fails while verification logs writes marks its block a write failure (fio's
//! `unlog_io_piece`). Nothing marks a block written (fio names the state but never sets it), so
//! a block only written stays "unwritten".

use super::hist::PercentileList;

/// The most blocks fio keeps (`MAX_NR_BLOCK_INFOS`).
pub const MAX_BLOCKS: u64 = 8192;

/// A block's state, in fio's order (`enum block_info_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BlockState {
    /// Never trimmed (fio's `BLOCK_STATE_UNINIT`, reported as "unwritten").
    Unwritten = 0,
    /// Trimmed at least once.
    Trimmed = 1,
    /// Written (fio never sets it).
    Written = 2,
    /// A trim of it failed.
    TrimFailure = 3,
    /// A write of it failed.
    WriteFailure = 4,
}

impl BlockState {
    /// fio's names, in order.
    pub const NAMES: [&'static str; 5] = ["unwritten", "trimmed", "written", "trim failure", "write failure"];

    /// fio's sort category: never trimmed, trimmed or written, failed.
    fn category(self) -> u8 {
        match self {
            BlockState::Unwritten => 0,
            BlockState::Trimmed | BlockState::Written => 1,
            BlockState::TrimFailure | BlockState::WriteFailure => 2,
        }
    }
}

/// One block: its state and how many trims it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    state: BlockState,
    trims: u32,
}

/// The blocks of a job's file, from `base` (the job's `offset`) in blocks of `bs` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockInfos {
    base: u64,
    bs: u64,
    blocks: Vec<Block>,
}

/// What `block_error_percentiles` reports: the percentiles of the trims the blocks took (none
/// when no block was ever trimmed or failed), and how many blocks are in each state.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockReport {
    /// (percentile, trims) in ascending order of percentile.
    pub percentiles: Vec<(f64, u32)>,
    /// Blocks per state, in [`BlockState::NAMES`] order.
    pub states: [u64; 5],
}

impl BlockInfos {
    /// `n` blocks of `bs` bytes from `base`, none trimmed yet.
    pub fn new(base: u64, bs: u64, n: usize) -> BlockInfos {
        BlockInfos { base, bs: bs.max(1), blocks: vec![Block { state: BlockState::Unwritten, trims: 0 }; n] }
    }

    fn block(&mut self, offset: u64) -> Option<&mut Block> {
        // An I/O outside the blocks (past the last whole one) is not counted (fio asserts).
        let idx = offset.checked_sub(self.base)? / self.bs;
        self.blocks.get_mut(usize::try_from(idx).ok()?)
    }

    /// A trim at `offset` completed (fio's `trim_block_info`).
    pub fn trimmed(&mut self, offset: u64) {
        if let Some(b) = self.block(offset)
            && b.state < BlockState::TrimFailure
        {
            b.state = BlockState::Trimmed;
            b.trims = b.trims.saturating_add(1);
        }
    }

    /// A trim (`trim`) or write at `offset` failed (fio's `unlog_io_piece`).
    pub fn failed(&mut self, trim: bool, offset: u64) {
        if let Some(b) = self.block(offset)
            && b.state < BlockState::TrimFailure
        {
            b.state = if trim { BlockState::TrimFailure } else { BlockState::WriteFailure };
        }
    }

    /// The report over `list` (fio's `calc_block_percentiles`): blocks sorted by category, then
    /// trims, then state; the blocks never trimmed are left out of the percentiles.
    pub fn report(&self, list: &PercentileList) -> BlockReport {
        let mut sorted = self.blocks.clone();
        sorted.sort_by_key(|b| (b.state.category(), b.trims, b.state));
        let mut states = [0u64; 5];
        for b in &sorted {
            states[b.state as usize] += 1;
        }
        let n = sorted.len();
        let uninit = states[BlockState::Unwritten as usize] as usize;
        let percentiles = if uninit == n {
            Vec::new()
        } else {
            list.values()
                .iter()
                .map(|&p| {
                    // C's arithmetic: a double, truncated to an index (kept inside the list,
                    // where fio reads past it for 100).
                    let idx = (p * (n - uninit) as f64 / 100.0 + uninit as f64) as usize;
                    (p, sorted[idx.min(n - 1)].trims)
                })
                .collect()
        };
        BlockReport { percentiles, states }
    }
}

impl BlockReport {
    /// fio's normal-output lines (`show_block_infos`): the percentiles wrapped at 75 columns,
    /// then the states.
    pub fn normal(&self) -> String {
        const LINE_LENGTH: usize = 75;
        let mut out = String::from("  block lifetime percentiles :\n   |");
        let mut pos = 0;
        let last = self.percentiles.len().saturating_sub(1);
        for (i, (p, trims)) in self.percentiles.iter().enumerate() {
            let item = format!(" {p:3.2}th={trims}{}", if i == last { '\n' } else { ',' });
            if pos + item.len() > LINE_LENGTH {
                pos = 0;
                out.push_str("\n   |");
            }
            out.push_str(&item);
            pos += item.len();
        }
        out.push_str("        states               :");
        for (i, (name, n)) in BlockState::NAMES.iter().zip(self.states).enumerate() {
            out.push_str(&format!(" {name}={n}{}", if i == 4 { '\n' } else { ',' }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_count_per_block_and_failures_stick() {
        let mut b = BlockInfos::new(8192, 4096, 4);
        b.trimmed(8192);
        b.trimmed(8192 + 100);
        b.trimmed(8192 + 4096);
        b.trimmed(0);
        b.trimmed(8192 + 4 * 4096);
        b.failed(false, 8192 + 4096);
        b.trimmed(8192 + 4096);
        b.failed(true, 8192 + 2 * 4096);
        b.failed(false, 8192 + 2 * 4096);
        let r = b.report(&PercentileList::new(&[1.0, 50.0, 99.0], 2));
        // Sorted: unwritten (block 3), trimmed twice (block 0), trim failure with 0 trims
        // (block 2), write failure after one trim (block 1).
        assert_eq!(r.states, [1, 1, 0, 1, 1]);
        assert_eq!(r.percentiles, [(1.0, 2), (50.0, 0), (99.0, 1)]);
    }

    #[test]
    fn nothing_trimmed_has_no_percentiles() {
        let b = BlockInfos::new(0, 4096, 16);
        let r = b.report(&PercentileList::fio_default());
        assert!(r.percentiles.is_empty());
        assert_eq!(r.states, [16, 0, 0, 0, 0]);
        assert_eq!(
            r.normal(),
            "  block lifetime percentiles :\n   |        states               : unwritten=16, trimmed=0, written=0, trim failure=0, write failure=0\n"
        );
    }

    #[test]
    fn normal_output_wraps_as_fio() {
        let mut b = BlockInfos::new(0, 4096, 1);
        for _ in 0..3 {
            b.trimmed(0);
        }
        // fio 3.33's lines for a one-block file trimmed three times (trimwrite, loops=3).
        assert_eq!(
            b.report(&PercentileList::fio_default()).normal(),
            "  block lifetime percentiles :\n   | 1.00th=3, 5.00th=3, 10.00th=3, 20.00th=3, 30.00th=3, 40.00th=3, 50.00th=3,\n   | 60.00th=3, 70.00th=3, 80.00th=3, 90.00th=3, 95.00th=3, 99.00th=3,\n   | 99.50th=3, 99.90th=3, 99.95th=3, 99.99th=3\n        states               : unwritten=0, trimmed=1, written=0, trim failure=0, write failure=0\n"
        );
    }

    #[test]
    fn percentiles_skip_the_untrimmed_blocks() {
        let mut b = BlockInfos::new(0, 1, 10);
        for (i, trims) in [(2u64, 1), (5, 3), (7, 2)] {
            for _ in 0..trims {
                b.trimmed(i);
            }
        }
        let r = b.report(&PercentileList::new(&[10.0, 50.0, 90.0, 100.0], 0));
        // Over the three trimmed blocks (1, 2, 3 trims): index p * 3 / 100, the last kept.
        assert_eq!(r.percentiles, [(10.0, 1), (50.0, 2), (90.0, 3), (100.0, 3)]);
        assert_eq!(r.states[0], 7);
    }
}
