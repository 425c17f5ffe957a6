//! What a job does next: the data direction, file, offset and length of each I/O, with fio's
//! rules (`io_u.c`): sequential offsets per direction with `rw=…:N` gaps, random offsets over the
//! job's blocks with a random map (each block once per pass), `rw_sequencer`, the `rwmix` cycle,
//! block sizes from `bs` / `bsrange` / `bssplit`, `fsync` every N writes, round-robin files, and the
//! byte limit (`io_size` or `size`, times `loops`). Pure: no I/O, no clock.

use crate::rng::{FioRand, Generator, Lfsr, Purpose, Rng, Seeds};

/// Data direction of an I/O the workload asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Read.
    Read,
    /// Write.
    Write,
    /// Trim (discard).
    Trim,
    /// `fsync` (after `fsync=N` writes).
    Sync,
    /// `fdatasync` (after `fdatasync=N` writes).
    DataSync,
    /// `sync_file_range` (after `sync_file_range=…:N` writes).
    SyncFileRange,
}

impl Dir {
    /// Index of a data direction in per-direction arrays (read 0, write 1, trim 2).
    pub fn index(self) -> Option<usize> {
        match self {
            Dir::Read => Some(0),
            Dir::Write => Some(1),
            Dir::Trim => Some(2),
            Dir::Sync | Dir::DataSync | Dir::SyncFileRange => None,
        }
    }
}

/// Block sizes of one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockSizes {
    /// Smallest block size.
    pub min: u64,
    /// Largest block size.
    pub max: u64,
    /// `bssplit`: (block size, percent) pairs; empty for `bs` / `bsrange`.
    pub split: Vec<(u64, u32)>,
    /// Offset alignment of random I/O (`blockalign`; defaults to `min`).
    pub align: u64,
}

impl BlockSizes {
    /// A fixed block size.
    pub fn fixed(bs: u64) -> BlockSizes {
        BlockSizes { min: bs, max: bs, split: Vec::new(), align: bs }
    }
}

/// How random offsets are distributed (`random_distribution`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Uniform, with fio's random map unless `norandommap`.
    Uniform,
    /// Zipf with exponent θ (fio's `zipf:θ`).
    Zipf(f64),
    /// Pareto with shape h (fio's `pareto:h`).
    Pareto(f64),
    /// Normal with deviation σ in percent of the range (fio's `normal:σ`).
    Normal(f64),
}

/// One file of a job: its size and the range the job works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileRange {
    /// Size of the file (fio's `real_file_size`).
    pub size: u64,
    /// Where the job's range starts (`offset`).
    pub offset: u64,
    /// Length of the range (`size / nrfiles`, capped at the file).
    pub len: u64,
}

/// A job's workload, resolved from its options.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadSpec {
    /// Reads are part of it.
    pub read: bool,
    /// Writes are part of it.
    pub write: bool,
    /// Trims are part of it.
    pub trim: bool,
    /// Random offsets (`randread`, `randwrite`, `randrw`, `randtrim`).
    pub random: bool,
    /// The `:N` of `rw=`: for random modes a new random offset every N I/Os (for sequential
    /// modes, see `seq_add`).
    pub rw_modifier: u64,
    /// The `:N` of a sequential `rw=` (fio's `ddir_seq_add`): N bytes skipped after each I/O;
    /// negative, the job goes backwards (`rw=read:-8k`).
    pub seq_add: i64,
    /// `rw_sequencer=identical`: between random offsets, repeat the same offset.
    pub sequencer_identical: bool,
    /// `percentage_random` per direction: the share of a random job's offsets drawn at random,
    /// the rest continuing sequentially (100: all random).
    pub perc_rand: [u32; 3],
    /// `bs_is_seq_rand`: `bs[0]` sizes sequential I/Os and `bs[1]` random ones, whatever their
    /// direction.
    pub bs_is_seq_rand: bool,
    /// `bs_unaligned`: a length drawn in a range is not rounded down to the smallest size.
    pub bs_unaligned: bool,
    /// Percentage of reads in a mixed workload.
    pub rwmix_read: u32,
    /// Block sizes per direction (read, write, trim).
    pub bs: [BlockSizes; 3],
    /// The job's files.
    pub files: Vec<FileRange>,
    /// Bytes to transfer in all (`io_size`, else `size`), before `loops`.
    pub io_limit: u64,
    /// Passes over the range (`loops`).
    pub loops: u32,
    /// Run until stopped (`time_based`): ranges wrap round instead of ending.
    pub time_based: bool,
    /// Allow repeated random blocks within a pass (`norandommap`).
    pub norandommap: bool,
    /// Distribution of random offsets.
    pub distribution: Distribution,
    /// `random_distribution=zoned|zoned_abs`: where each random offset falls (uniform inside).
    pub zoned: Option<Zoned>,
    /// Seed of the streams fio does not define the same way (skewed distributions).
    pub seed: u64,
    /// fio's generators and their seeds.
    pub rand: RandSpec,
    /// `fsync` after every N writes (0: never).
    pub fsync_every: u64,
    /// `fdatasync` after every N writes (0: never).
    pub fdatasync_every: u64,
    /// `sync_file_range` after every N writes (0: never).
    pub sfr_every: u64,
    /// How zones move the job's position (`zonemode`).
    pub zone_mode: ZoneModeSpec,
    /// `io_size` was given: passes over the range go on until that many bytes are done, even past
    /// `loops` (fio's `keep_running`).
    pub io_size_given: bool,
    /// Bytes a pass issues at most (fio's `total_bytes` in `do_io`: `size`, or `io_size` when
    /// larger for random writes without a random map; fio counts them only for queued I/Os, so a
    /// synchronous engine's job sets `u64::MAX`).
    pub pass_bytes: u64,
    /// A file done in one pass stays done in the next (fio: only with `loops=1`, not time based
    /// and `do_verify=0`).
    pub keep_done_files: bool,
    /// `read_iolog`: replay these I/Os instead of generating any.
    pub replay: Option<std::sync::Arc<crate::run::iolog::Replay>>,
    /// Stop after this many I/Os of all directions (`number_ios × loops`, doubled for
    /// trim-then-write as fio doubles it; 0: no limit; time-based jobs ignore it).
    pub number_ios: u64,
    /// `trimwrite` / `randtrimwrite`: each trim is followed by a write of the same block, and only
    /// the written bytes count against the byte limit (fio's `td_trimwrite`).
    pub trimwrite: bool,
}

/// How a job's random streams are generated and seeded, as fio 3.33 does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandSpec {
    /// `random_generator`.
    pub generator: Generator,
    /// `random_generator` was given (else fio switches a 32-bit generator to the 64-bit one for
    /// files of more than 2^32 blocks, from the second pass on).
    pub generator_set: bool,
    /// The job clone's seeds.
    pub seeds: Seeds,
    /// Writes draw block sizes from the reads' seed (fio does with `verify`).
    pub bs_write_as_read: bool,
    /// Trims draw block sizes from the writes' seed (`rw=trimwrite`).
    pub bs_trim_as_write: bool,
}

impl RandSpec {
    /// fio's defaults for thread 1 (or `seed`'s seeds through `randseed` with `randrepeat=0`
    /// when `seed` is not fio's default 0x89).
    pub fn from_seed(seed: u64) -> RandSpec {
        let seeds = if seed == 0x89 { Seeds::default_job() } else { Seeds::fio(seed, true, false, false, 1) };
        RandSpec {
            generator: Generator::Tausworthe,
            generator_set: false,
            seeds,
            bs_write_as_read: false,
            bs_trim_as_write: false,
        }
    }
}

/// The position rules of fio's zone modes (`io_u.c:setup_strided_zone_mode`,
/// `zbd.c:setup_zbd_zone_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ZoneModeSpec {
    /// No zones.
    #[default]
    None,
    /// `zonemode=strided`: `size` bytes in each zone of `range` bytes, then skip `skip` bytes.
    Strided {
        /// `zonesize`: bytes to do in each zone.
        size: u64,
        /// `zonerange`: the zone's extent.
        range: u64,
        /// `zoneskip`: bytes skipped after each zone.
        skip: u64,
    },
    /// `zonemode=zbd`: sequential jobs jump over zone tails beyond the capacity and apply
    /// `zoneskip` (a multiple of the zone size) once a zone is done.
    Zbd {
        /// Zone size.
        zone_size: u64,
        /// `zoneskip`.
        skip: u64,
        /// `read_beyond_wp`.
        read_beyond_wp: bool,
    },
}

/// What the zone policy tells the workload while it picks an I/O (fio's hooks into `io_u.c`).
pub trait ZoneHooks {
    /// fio's `zbd_adjust_ddir`: the direction for file `file`.
    fn adjust_dir(&self, file: usize, dir: Dir) -> Dir;
    /// Where a sequential job continues after `pos` (an absolute offset) when it sits at a zone's
    /// capacity end: the zone end.
    fn capacity_jump(&self, file: usize, dir: Dir, pos: u64) -> Option<u64>;
    /// (end of the zone holding `pos`, its write pointer).
    fn zone_end_and_wp(&self, file: usize, pos: u64) -> (u64, u64);
    /// fio's `zbd_file_reset`: the job starts a new pass over `file`.
    fn file_reset(&self, file: usize);
}

impl WorkloadSpec {
    /// A plain job over one file of `size` bytes: fixed block size `bs`, one pass, no syncs, a
    /// uniform distribution, 50 % reads when mixed.
    pub fn simple(read: bool, write: bool, random: bool, size: u64, bs: u64, seed: u64) -> WorkloadSpec {
        WorkloadSpec {
            read,
            write,
            trim: false,
            random,
            rw_modifier: 0,
            sequencer_identical: false,
            perc_rand: [100; 3],
            seq_add: 0,
            bs_is_seq_rand: false,
            bs_unaligned: false,
            rwmix_read: 50,
            bs: [BlockSizes::fixed(bs), BlockSizes::fixed(bs), BlockSizes::fixed(bs)],
            files: vec![FileRange { size, offset: 0, len: size }],
            io_limit: size,
            loops: 1,
            time_based: false,
            norandommap: false,
            distribution: Distribution::Uniform,
            zoned: None,
            seed,
            rand: RandSpec::from_seed(seed),
            fsync_every: 0,
            fdatasync_every: 0,
            sfr_every: 0,
            zone_mode: ZoneModeSpec::None,
            io_size_given: false,
            pass_bytes: size,
            keep_done_files: false,
            replay: None,
            number_ios: 0,
            trimwrite: false,
        }
    }
}

/// An I/O the workload proposes, before the zone policy places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proposal {
    /// Direction.
    pub dir: Dir,
    /// Index of the file.
    pub file: usize,
    /// Byte offset in the file.
    pub offset: u64,
    /// Byte length (0 for syncs).
    pub len: u64,
}

/// One I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextIo {
    /// Direction.
    pub dir: Dir,
    /// Index of the file.
    pub file: usize,
    /// Byte offset in the file.
    pub offset: u64,
    /// Byte length (0 for syncs).
    pub len: u64,
}

/// In [`Workload::take_random_log`]: a new pass starts here.
pub const PASS_MARK: &str = "\u{0}pass";

/// In [`Workload::take_random_log`]: a time-based job wraps round its file here.
pub const WRAP_MARK: &str = "\u{2}wrap";

/// In [`Workload::take_random_log`]: a draw found the random map full, followed by the file's
/// last position and size (`LAST:SIZE`).
pub const RAND_FAILED: &str = "\u{1}";

/// `random_distribution=zoned:…` or `zoned_abs:…` (fio's `zone_split_index`): per direction,
/// for each of the 100 values a draw in 1..=100 may take, the part of the range the offset falls
/// in, as `(start, end)` in percent of the range (`zoned`) or in bytes (`zoned_abs`). A direction
/// without a list has no entries: its offsets are uniform over the range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zoned {
    /// Sizes are bytes (`zoned_abs`), else percentages.
    pub absolute: bool,
    /// Per direction, entry `v - 1` for the draw `v`.
    pub index: [Vec<(u64, u64)>; 3],
}

impl Zoned {
    /// fio's `td_zone_gen_index` over each direction's list of `(access %, size)` (size in
    /// percent, or bytes when `absolute`); the access percentages add up to 100.
    pub fn new(absolute: bool, lists: [&[(u32, u64)]; 3]) -> Zoned {
        let index = lists.map(|list| {
            let mut out = Vec::with_capacity(100);
            let mut prev = 0u64;
            for &(access, size) in list {
                for _ in 0..access {
                    if out.len() < 100 {
                        out.push((prev, prev + size));
                    }
                }
                prev += size;
            }
            out
        });
        Zoned { absolute, index }
    }
}

/// fio's random map: a bitmap of the blocks used in this pass.
///
/// The map goes on transparent huge pages (fewer TLB misses) only once the job has marked as
/// many blocks as the map has 4 KiB pages: a short job over a huge range (30 simulated seconds on
/// a 30 TB disk) touches a few pages of a map of tens of MiB, and keeps it small.
#[derive(Debug, Clone)]
struct RandomMap {
    bits: Vec<u64>,
    /// One bit per word of `bits`, set when the word is full: `next_free` skips 64 full words
    /// at a time instead of reading each (a nearly full map otherwise scans far per I/O).
    full: Vec<u64>,
    nr: u64,
    used: u64,
    /// Marks after which the map asks for huge pages (`u64::MAX` once it has).
    huge_at: u64,
}

impl RandomMap {
    fn new(nr: u64) -> RandomMap {
        let bits = vec![0; nr.div_ceil(64) as usize];
        let full = vec![0; bits.len().div_ceil(64)];
        let huge_at = (bits.len() as u64 * 8).div_ceil(4096);
        RandomMap { bits, full, nr, used: 0, huge_at }
    }

    #[inline]
    fn is_free(&self, b: u64) -> bool {
        self.bits[(b / 64) as usize] & (1 << (b % 64)) == 0
    }

    /// Marks block `b` if it is free; whether it was (one read of its word, not two).
    #[inline]
    fn test_and_mark(&mut self, b: u64) -> bool {
        let wi = (b / 64) as usize;
        let bit = 1 << (b % 64);
        let w = &mut self.bits[wi];
        if *w & bit != 0 {
            return false;
        }
        *w |= bit;
        if *w == !0 {
            self.full[wi / 64] |= 1 << (wi % 64);
        }
        self.used += 1;
        if self.used >= self.huge_at {
            self.huge_at = u64::MAX;
            crate::sys::advise_huge_pages(&mut self.bits);
        }
        true
    }

    /// The first word at or after `from` (no wrap) that is not full.
    #[inline]
    fn next_open_word(&self, from: usize) -> Option<usize> {
        let words = self.bits.len();
        if from >= words {
            return None;
        }
        let mut s = from / 64;
        let mut open = !self.full[s] & (!0u64 << (from % 64));
        loop {
            if open != 0 {
                let w = s * 64 + open.trailing_zeros() as usize;
                return (w < words).then_some(w);
            }
            s += 1;
            if s == self.full.len() {
                return None;
            }
            open = !self.full[s];
        }
    }

    /// The first free block after `b`, wrapping round (`axmap_next_free`); `None` when full.
    fn next_free(&self, b: u64) -> Option<u64> {
        if self.used >= self.nr {
            return None;
        }
        let start = if b + 1 >= self.nr { 0 } else { b + 1 };
        let w0 = (start / 64) as usize;
        let free = !self.bits[w0] & (!0u64 << (start % 64));
        let found = |w: usize, free: u64| {
            let bit = w as u64 * 64 + u64::from(free.trailing_zeros());
            (free != 0 && bit < self.nr).then_some(bit)
        };
        if let Some(bit) = found(w0, free) {
            return Some(bit);
        }
        // The words after w0, then from the first through w0 itself (its bits before `start`),
        // skipping the full ones.
        let mut from = w0 + 1;
        while let Some(w) = self.next_open_word(from) {
            if let Some(bit) = found(w, !self.bits[w]) {
                return Some(bit);
            }
            from = w + 1;
        }
        let mut from = 0;
        while let Some(w) = self.next_open_word(from).filter(|&w| w <= w0) {
            if let Some(bit) = found(w, !self.bits[w]) {
                return Some(bit);
            }
            from = w + 1;
        }
        None
    }

    fn clear(&mut self) {
        self.bits.fill(0);
        self.full.fill(0);
        self.used = 0;
    }
}

#[derive(Debug, Clone)]
struct FileState {
    range: FileRange,
    /// Next sequential position per direction, relative to the range start.
    last_pos: [u64; 3],
    /// Start of the last I/O per direction (for `rw_sequencer=identical`).
    last_start: [Option<u64>; 3],
    map: Option<RandomMap>,
    /// `random_generator=lfsr`: the file's blocks in the register's order (no random map).
    lfsr: Option<Lfsr>,
    done: bool,
    dist: Option<DistState>,
}

#[derive(Debug, Clone)]
struct DistState {
    nranges: u64,
    rand_off: u64,
    kind: Distribution,
    zetan: f64,
    zeta2: f64,
}

/// A job's stream of I/Os.
#[derive(Debug, Clone)]
pub struct Workload {
    spec: WorkloadSpec,
    files: Vec<FileState>,
    next_file: usize,
    /// fio's `random_state`: random offsets (Tausworthe generators).
    rng_offset: FioRand,
    /// fio's `bsrange_state`, per direction.
    rng_bs: [FioRand; 3],
    /// fio's `rwmix_state` (always 32-bit).
    rng_mix: FioRand,
    rng_dist: Rng,
    /// fio's `seq_rand_state`: draws whether a random job's next offset is random (32-bit, all
    /// three from the reads' seed, as fio seeds them).
    rng_seq_rand: [FioRand; 3],
    /// fio's `zone_state` (32-bit): the part of the range of a zoned distribution's offset.
    rng_zone: FioRand,
    /// The last offset was drawn at random (fio's `is_random`).
    last_random: bool,
    /// Generators from the second pass on (fio's reseeding under `randrepeat`).
    use64_later: bool,
    /// I/Os issued per direction.
    issues: [u64; 3],
    /// Bytes issued per direction.
    issue_bytes: [u64; 3],
    rwmix_dir: usize,
    rwmix_issues: u64,
    /// Countdown of the `rw=…:N` modifier for random modes.
    seq_nr: u64,
    /// The last I/O was a sync (fio's `last_was_sync`: no second sync before the next write;
    /// cleared at each pass start).
    last_was_sync: bool,
    /// Bytes done in the current zone (fio's `zone_bytes`).
    zone_bytes: u64,
    /// The offset generator's next draw, taken one I/O early (see `random_offset`).
    next_unit: Option<u64>,
    /// Passes over the range started, beyond the first.
    pass: u32,
    /// Bytes issued in this pass.
    pass_issued: u64,
    /// The next I/O of a replay, and when the last one proposed is due (µs).
    replay_next: usize,
    replay_due_us: u64,
    /// `--debug=random`: fio's lines of each random offset drawn, kept for the job's trace.
    trace_random: bool,
    random_log: Vec<String>,
}

/// `a / b` for `b > 0`, a shift when `b` is a power of two (block sizes and alignments nearly
/// always are): a 64-bit division costs tens of cycles, several times per I/O.
#[inline]
fn div(a: u64, b: u64) -> u64 {
    if b.is_power_of_two() { a >> b.trailing_zeros() } else { a / b }
}

fn hash_u64(v: u64) -> u64 {
    // A multiplicative hash to scatter the hot ranks of skewed distributions over the range.
    let mut x = v.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 32)
}

impl Workload {
    /// Start a job's workload.
    pub fn new(spec: WorkloadSpec) -> Workload {
        let seed = spec.seed;
        let mut dist_rng = Rng::new(seed ^ 0xd157);
        let rand = spec.rand;
        let lfsr = rand.generator == Generator::Lfsr && spec.distribution == Distribution::Uniform;
        let mut use64_later = rand.generator.use64();
        let files = spec
            .files
            .iter()
            .map(|&range| {
                let unit = spec.bs.iter().map(|b| b.min.max(1)).min().unwrap_or(512);
                // fio's init_random_map: the blocks of min(file size, io size), or of the zone range.
                let span = match spec.zone_mode {
                    ZoneModeSpec::Strided { range: zr, .. } if zr > 0 => zr,
                    _ => range.len.min(range.size.saturating_sub(range.offset)),
                };
                let blocks = span / unit;
                if blocks > u64::from(u32::MAX) && !rand.generator_set && rand.generator == Generator::Tausworthe {
                    use64_later = true;
                }
                let lfsr = (spec.random && lfsr).then(|| Lfsr::new(blocks, rand.seeds.of(Purpose::Block))).flatten();
                let map =
                    (spec.random && lfsr.is_none() && !spec.norandommap && spec.distribution == Distribution::Uniform)
                        .then(|| RandomMap::new(blocks.max(1)));
                let dist = match spec.distribution {
                    Distribution::Uniform => None,
                    kind => Some(DistState::new(kind, blocks.max(1), &mut dist_rng)),
                };
                FileState { range, last_pos: [0; 3], last_start: [None; 3], map, lfsr, done: false, dist }
            })
            .collect();
        let (rng_offset, rng_bs, rng_mix) = Self::seeded(&rand, rand.generator.use64());
        let rwmix_dir = if spec.read { 0 } else { 1 };
        // fio starts the countdown at 1 (init.c), not at N: the first I/O takes a random offset.
        let seq_nr = 1;
        Workload {
            rng_offset,
            rng_bs,
            rng_mix,
            rng_dist: dist_rng,
            rng_seq_rand: Self::seq_rand(&rand),
            rng_zone: FioRand::new(rand.seeds.of(Purpose::Zone), false),
            last_random: false,
            use64_later,
            spec,
            files,
            next_file: 0,
            issues: [0; 3],
            issue_bytes: [0; 3],
            rwmix_dir,
            rwmix_issues: 0,
            seq_nr,
            last_was_sync: false,
            zone_bytes: 0,
            next_unit: None,
            trace_random: false,
            random_log: Vec::new(),
            pass: 0,
            pass_issued: 0,
            replay_next: 0,
            replay_due_us: 0,
        }
    }

    /// fio's `td_fill_rand_seeds`: the offset, block size and mix generators of `rand`.
    fn seeded(rand: &RandSpec, use64: bool) -> (FioRand, [FioRand; 3], FioRand) {
        let s = &rand.seeds;
        let read = s.of(Purpose::BsRead);
        let write = if rand.bs_write_as_read { read } else { s.of(Purpose::BsWrite) };
        let trim = if rand.bs_trim_as_write { write } else { s.of(Purpose::BsTrim) };
        (
            s.rand(Purpose::Block, use64),
            [FioRand::new(read, use64), FioRand::new(write, use64), FioRand::new(trim, use64)],
            s.rand(Purpose::Mix, false),
        )
    }

    /// fio's `seq_rand_state`s: every direction from the reads' `percentage_random` seed, 32-bit.
    fn seq_rand(rand: &RandSpec) -> [FioRand; 3] {
        let seed = rand.seeds.of(Purpose::SeqRandRead);
        [FioRand::new(seed, false), FioRand::new(seed, false), FioRand::new(seed, false)]
    }

    /// When the I/O last proposed from a replay is due (µs since the job started; 0: at once).
    pub fn replay_due_us(&self) -> u64 {
        self.replay_due_us
    }

    /// The specification.
    pub fn spec(&self) -> &WorkloadSpec {
        &self.spec
    }

    /// Bytes issued per direction.
    pub fn issued_bytes(&self) -> [u64; 3] {
        self.issue_bytes
    }

    /// The pass over the files the job is in (0 first; one per `loops`, and more while
    /// `io_size` is not reached): fio closes the job's files between two.
    pub fn pass(&self) -> u32 {
        self.pass
    }

    /// I/Os issued per direction.
    pub fn issued(&self) -> [u64; 3] {
        self.issues
    }

    fn max_bs(&self) -> u64 {
        self.spec.bs.iter().map(|b| b.max).max().unwrap_or(0)
    }

    /// Bytes still allowed before the byte limit (`None` for time-based jobs).
    fn remaining(&self) -> Option<u64> {
        if self.spec.time_based {
            return None;
        }
        // fio's io_bytes_exceeded counts the written bytes only for trim-then-write.
        let done: u64 = if self.spec.trimwrite { self.issue_bytes[1] } else { self.issue_bytes.iter().sum() };
        let limit = self.spec.io_limit.saturating_mul(u64::from(self.spec.loops.max(1)));
        Some(limit.saturating_sub(done))
    }

    /// Whether the job may issue more (fio's `do_io` loop condition): time based, or its byte
    /// limit and `number_ios` not reached. The rest of a short I/O goes out only then.
    pub fn has_budget(&self) -> bool {
        self.remaining() != Some(0) && !self.ios_exceeded()
    }

    /// The rest of a short I/O in `dir` (`len` bytes) is issued again: its bytes count against
    /// the job's limits as fio's `td_io_queue` counts them, and, with `count_issue` (an I/O
    /// completed asynchronously, whose issue fio does not take back when it requeues it), one
    /// more I/O.
    pub fn reissued(&mut self, dir: Dir, len: u64, count_issue: bool) {
        let Some(d) = dir.index() else { return };
        self.issue_bytes[d] += len;
        self.pass_issued += len;
        if count_issue {
            self.issues[d] += 1;
        }
    }

    /// Takes back [`Workload::reissued`] for a rest the engine could not take now.
    pub fn reissued_undo(&mut self, dir: Dir, len: u64, count_issue: bool) {
        let Some(d) = dir.index() else { return };
        self.issue_bytes[d] -= len;
        self.pass_issued -= len;
        if count_issue {
            self.issues[d] -= 1;
        }
    }

    /// `number_ios` is reached (fio's `exceeds_number_ios`).
    fn ios_exceeded(&self) -> bool {
        let n = self.spec.number_ios;
        n > 0 && !self.spec.time_based && self.issues.iter().sum::<u64>() >= n
    }

    /// The next I/O, or `None` when the job has issued everything it should (no zone policy).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<NextIo> {
        let p = self.propose(None)?;
        Some(self.accept(&p, p.offset, p.len))
    }

    /// The next I/O the job would issue, before a zone policy places it; `None` when the job has
    /// issued everything it should. [`Workload::accept`] makes it the job's next I/O,
    /// [`Workload::file_done`] gives up on its file.
    pub fn propose(&mut self, hooks: Option<&dyn ZoneHooks>) -> Option<Proposal> {
        self.propose_steered(hooks, &mut |d| d)
    }

    /// `--debug`: keep fio's lines of the random offsets drawn from now on, with a mark where a
    /// new pass starts ([`PASS_MARK`]) and where a draw finds the random map full
    /// ([`RAND_FAILED`]).
    pub fn trace_random(&mut self, on: bool) {
        self.trace_random = on;
    }

    /// The lines of the random offsets drawn since the last call (fio's `off rand`, `offset …
    /// busy`, and the marks).
    pub fn take_random_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.random_log)
    }

    /// [`Workload::propose`], with `steer` choosing the direction after the workload drew it
    /// (rate pacing may turn a mixed job to the direction behind its rate, which then stays the
    /// drawn direction, as fio's `rate_ddir` sets `rwmix_ddir`).
    pub fn propose_steered(
        &mut self,
        hooks: Option<&dyn ZoneHooks>,
        steer: &mut impl FnMut(Dir) -> Dir,
    ) -> Option<Proposal> {
        if let Some(r) = &self.spec.replay {
            let io = *r.ios.get(self.replay_next)?;
            self.replay_next += 1;
            self.replay_due_us = io.due_us;
            return Some(Proposal { dir: io.dir, file: io.file, offset: io.offset, len: io.len });
        }
        loop {
            // fio's do_io: stop once the job's byte limit is issued; a pass ends after `size`
            // bytes (`pass_bytes`), or when every file is done.
            if self.remaining() == Some(0) || self.ios_exceeded() {
                return None;
            }
            if !self.spec.time_based && self.pass_issued >= self.spec.pass_bytes {
                if !self.next_pass(hooks) {
                    return None;
                }
                continue;
            }
            // fio's get_rw_ddir: a sync comes before the next I/O fio asks for, so none follows
            // the job's last write (do_io stops first), while a pass that ends on its files
            // being done has one after its last write and the next pass may start with one.
            if let Some(dir) = self.sync_due() {
                self.last_was_sync = true;
                let file = self.next_file.checked_sub(1).unwrap_or(self.files.len() - 1);
                return Some(Proposal { dir, file, offset: 0, len: 0 });
            }
            let drawn = self.next_dir();
            let drawn = match steer(drawn) {
                d if d == drawn => drawn,
                d if self.spec.read && self.spec.write && d.index().is_some_and(|i| i < 2) => {
                    self.rwmix_dir = d.index().unwrap_or(self.rwmix_dir);
                    d
                }
                _ => drawn,
            };
            for _ in 0..=self.files.len() {
                let Some(fi) = self.pick_file() else { break };
                let dir = hooks.map_or(drawn, |h| h.adjust_dir(fi, drawn));
                let dir = if self.spec.trimwrite { self.trimwrite_dir(fi) } else { dir };
                if let Some(p) = self.propose_in(fi, dir, hooks) {
                    return Some(p);
                }
                self.files[fi].done = true;
            }
            if !self.next_pass(hooks) {
                return None;
            }
        }
    }

    /// The next I/O in file `fi` and direction `dir`, or `None` when the file is done for this
    /// pass (fio's `fill_io_u` failing).
    fn propose_in(&mut self, fi: usize, dir: Dir, hooks: Option<&dyn ZoneHooks>) -> Option<Proposal> {
        let d = dir.index().expect("data direction");
        if self.spec.trimwrite && self.spec.random && dir == Dir::Write {
            // randtrimwrite: the write goes where the last trim went, with its length.
            let f = &self.files[fi];
            let start = f.last_start[2].unwrap_or(0);
            return Some(self.proposal(dir, fi, start, f.last_pos[2].saturating_sub(start)));
        }
        self.zone_mode_setup(fi, dir, hooks);
        let off = match self.next_offset(fi, d) {
            Some(off) => off,
            None if self.spec.time_based => {
                if self.trace_random {
                    self.random_log.push(WRAP_MARK.to_string());
                }
                self.reset_file(fi, hooks);
                self.next_offset(fi, d)?
            }
            None => return None,
        };
        let len = self.next_buflen(fi, d, off)?;
        // A fixed block size is not cut at the range end; only the file's end stops it.
        let r = self.files[fi].range;
        if r.offset + off + len > r.size {
            return None;
        }
        Some(self.proposal(dir, fi, off, len))
    }

    /// fio's `keep_running` between passes: another pass while `loops` asks for one, or while
    /// less than `io_size` (else `size`) is done; never after a pass that issued nothing. A new
    /// pass starts every file over.
    fn next_pass(&mut self, hooks: Option<&dyn ZoneHooks>) -> bool {
        // A pass that did nothing ends the job (fio's thread_main: no bytes done, terminate).
        if self.pass_issued == 0 {
            return false;
        }
        if !self.spec.time_based {
            if self.ios_exceeded() {
                return false;
            }
            let done: u64 = self.issue_bytes.iter().sum();
            let limit = self.spec.io_limit;
            let more_loops = self.pass + 1 < self.spec.loops.max(1);
            let all_done = self.files.iter().all(|f| f.done);
            let go =
                more_loops || (done < limit && limit - done >= self.max_bs() && (self.spec.io_size_given || !all_done));
            if !go {
                return false;
            }
        }
        let keep_done = self.spec.keep_done_files;
        let done: Vec<bool> = self.files.iter().map(|f| f.done).collect();
        if keep_done && done.iter().all(|&d| d) {
            return false;
        }
        self.pass += 1;
        if self.trace_random {
            self.random_log.push(PASS_MARK.to_string());
        }
        self.pass_issued = 0;
        self.last_was_sync = false;
        self.zone_bytes = 0;
        // fio's clear_io_state: a new direction is drawn, and under `randrepeat` every generator
        // starts over (the same offsets, sizes and mix each pass).
        self.rwmix_issues = 0;
        if self.spec.rand.seeds.repeatable {
            (self.rng_offset, self.rng_bs, self.rng_mix) = Self::seeded(&self.spec.rand, self.use64_later);
            self.rng_seq_rand = Self::seq_rand(&self.spec.rand);
            self.rng_zone = FioRand::new(self.spec.rand.seeds.of(Purpose::Zone), false);
            self.next_unit = None;
        }
        for (fi, was_done) in done.into_iter().enumerate() {
            self.reset_file(fi, hooks);
            if keep_done {
                self.files[fi].done = was_done;
            }
        }
        true
    }

    fn proposal(&self, dir: Dir, fi: usize, rel: u64, len: u64) -> Proposal {
        Proposal { dir, file: fi, offset: self.files[fi].range.offset + rel, len }
    }

    /// Make `p`, placed at `offset` with `len` bytes by the zone policy (or as proposed), the
    /// job's next I/O: mark the random map at the proposed offset (which may shorten it, as fio's
    /// `mark_random_map`), continue sequential positions after the placed one, count it.
    pub fn accept(&mut self, p: &Proposal, offset: u64, len: u64) -> NextIo {
        if p.dir.index().is_none() {
            return NextIo { dir: p.dir, file: p.file, offset: 0, len: 0 };
        }
        if self.spec.replay.is_some() {
            // As logged: no random map, no passes.
            if let Some(d) = p.dir.index() {
                self.issues[d] += 1;
                self.issue_bytes[d] += len;
            }
            return NextIo { dir: p.dir, file: p.file, offset, len };
        }
        let base = self.files[p.file].range.offset;
        self.issue(p.dir, p.file, p.offset.saturating_sub(base), offset.saturating_sub(base), len)
    }

    /// The zone policy found no place for an I/O in `file` (fio's `io_u_eof`): the file is done
    /// for this pass.
    pub fn file_done(&mut self, file: usize) {
        if let Some(f) = self.files.get_mut(file) {
            f.done = true;
        }
    }

    /// fio's per-zone-mode position rules, before the next offset of `fi` in direction `dir`.
    fn zone_mode_setup(&mut self, fi: usize, dir: Dir, hooks: Option<&dyn ZoneHooks>) {
        let d = dir.index().expect("data direction");
        match self.spec.zone_mode {
            ZoneModeSpec::None => {}
            ZoneModeSpec::Strided { size, range, skip } => {
                let start = self.spec.files[fi].offset;
                if self.zone_bytes >= size {
                    self.zone_bytes = 0;
                    let f = &mut self.files[fi];
                    f.range.offset += range + skip;
                    if f.range.offset >= f.range.size {
                        f.range.offset = start;
                    }
                    f.last_pos[d] = 0;
                }
                let f = &mut self.files[fi];
                // A zone larger than its range stays in the range until it is done.
                if f.last_pos[d] >= range {
                    f.last_pos[d] = 0;
                }
                if range > 0 && self.zone_bytes.is_multiple_of(range) {
                    self.reset_file(fi, hooks);
                }
            }
            ZoneModeSpec::Zbd { zone_size, skip, read_beyond_wp } => {
                let Some(h) = hooks else { return };
                let base = self.files[fi].range.offset;
                let pos = base + self.files[fi].last_pos[d];
                if let Some(to) = h.capacity_jump(fi, dir, pos) {
                    self.files[fi].last_pos[d] = to - base;
                }
                if self.spec.random || skip == 0 {
                    return;
                }
                let pos = base + self.files[fi].last_pos[d];
                let (zone_end, wp) = h.zone_end_and_wp(fi, pos);
                if self.zone_bytes >= zone_size || pos >= zone_end || (dir == Dir::Read && !read_beyond_wp && pos >= wp)
                {
                    self.zone_bytes = 0;
                    let start = self.spec.files[fi].offset;
                    let f = &mut self.files[fi];
                    f.range.offset += zone_size + skip;
                    if f.range.offset >= f.range.size {
                        f.range.offset = start;
                    }
                    f.last_pos[d] = 0;
                }
            }
        }
    }

    /// Count an I/O proposed at `orig` (relative to the range) and placed at `off`.
    fn issue(&mut self, dir: Dir, fi: usize, orig: u64, off: u64, len: u64) -> NextIo {
        let d = dir.index().expect("data direction");
        let f = &mut self.files[fi];
        let mut len = len;
        let trimwrite_write = self.spec.trimwrite && dir == Dir::Write;
        if self.spec.trimwrite && self.spec.random && dir == Dir::Trim && f.last_start[2] == Some(off) {
            // A new trim at the last pair's offset: make the write side differ, so that the
            // next I/O is its write (fio decrements last_start[DDIR_WRITE]).
            f.last_start[1] = Some(off.wrapping_sub(1));
        }
        if let Some(map) = f.map.as_mut().filter(|_| !(trimwrite_write && self.spec.random)) {
            // fio's mark_random_map: mark the I/O's blocks up to the first one already used, and
            // shorten the I/O to what was marked.
            let unit = self.spec.bs[d].min.max(1);
            let first = div(orig, unit);
            let want = {
                let q = div(len, unit);
                if q * unit < len { q + 1 } else { q }
            };
            let mut marked = 0;
            while marked < want && first + marked < map.nr && map.test_and_mark(first + marked) {
                marked += 1;
            }
            if marked > 0 && marked * unit < len {
                len = marked * unit;
            }
        }
        f.last_start[d] = Some(off);
        f.last_pos[d] = off + len;
        self.issues[d] += 1;
        self.issue_bytes[d] += len;
        self.pass_issued += len;
        self.zone_bytes += len;
        self.last_was_sync = false;
        let r = f.range;
        NextIo { dir, file: fi, offset: r.offset + off, len }
    }

    /// The sync due before the next I/O (fio's `get_rw_ddir`): `fsync`, else `fdatasync`, else
    /// `sync_file_range`, when the job's write count (never reset between passes) is a non-zero
    /// multiple of its interval and the last I/O was not a sync.
    fn sync_due(&self) -> Option<Dir> {
        let w = self.issues[1];
        if self.last_was_sync || w == 0 {
            return None;
        }
        [
            (self.spec.fsync_every, Dir::Sync),
            (self.spec.fdatasync_every, Dir::DataSync),
            (self.spec.sfr_every, Dir::SyncFileRange),
        ]
        .into_iter()
        .find(|&(n, _)| n > 0 && w.is_multiple_of(n))
        .map(|(_, d)| d)
    }

    /// fio's `fio_file_reset`: a new pass over file `fi`.
    fn reset_file(&mut self, fi: usize, hooks: Option<&dyn ZoneHooks>) {
        let f = &mut self.files[fi];
        f.last_pos = [0; 3];
        f.last_start = [None; 3];
        f.done = false;
        if let Some(m) = f.map.as_mut() {
            m.clear();
        }
        if let Some(l) = f.lfsr.as_mut() {
            l.reset(self.spec.rand.seeds.of(Purpose::Block));
        }
        if let Some(h) = hooks
            && self.spec.write
        {
            h.file_reset(fi);
        }
    }

    /// Files are served round-robin, one I/O each (fio's `file_service_type=roundrobin`).
    fn pick_file(&mut self) -> Option<usize> {
        let n = self.files.len();
        for _ in 0..n {
            // Round-robin without a division per I/O (`next_file` stays below `n`).
            let fi = if self.next_file < n { self.next_file } else { self.next_file % n };
            self.next_file = if fi + 1 == n { 0 } else { fi + 1 };
            if !self.files[fi].done {
                return Some(fi);
            }
        }
        None
    }

    /// fio's `set_rw_ddir` for trim-then-write: a trim when the file's last trim and last write
    /// started at the same place (or neither was issued), else the write that follows it.
    fn trimwrite_dir(&self, fi: usize) -> Dir {
        let f = &self.files[fi];
        if f.last_start[1] == f.last_start[2] { Dir::Trim } else { Dir::Write }
    }

    /// fio's `get_rw_ddir`: mixed workloads draw a direction, and keep it for a number of I/Os
    /// that keeps the mix at `rwmixread`.
    fn next_dir(&mut self) -> Dir {
        let s = &self.spec;
        if s.read && s.write {
            if self.issues[self.rwmix_dir] >= self.rwmix_issues {
                // fio's get_rand_ddir: 1 to 100 from the 32-bit mix generator.
                let v = self.rng_mix.between(1, 100) as u32;
                let dir = if v <= s.rwmix_read { 0 } else { 1 };
                if dir != self.rwmix_dir {
                    let diff = if self.rwmix_dir == 0 { 100 - s.rwmix_read } else { s.rwmix_read };
                    self.rwmix_issues = self.issues[self.rwmix_dir] * u64::from(diff) / 100;
                }
                self.rwmix_dir = dir;
            }
            return if self.rwmix_dir == 0 { Dir::Read } else { Dir::Write };
        }
        if s.read {
            Dir::Read
        } else if s.write {
            Dir::Write
        } else {
            Dir::Trim
        }
    }

    /// Offset relative to the range start, or `None` when the file is exhausted for this pass.
    fn next_offset(&mut self, fi: usize, d: usize) -> Option<u64> {
        let spec = &self.spec;
        let len = {
            let r = self.files[fi].range;
            r.len.min(r.size.saturating_sub(r.offset))
        };
        // Strided jobs draw random offsets inside the current zone range (fio's get_rand_max).
        let rand_len = match spec.zone_mode {
            ZoneModeSpec::Strided { range, .. } if range > 0 => range,
            _ => len,
        };
        let random_now = if spec.random {
            if spec.rw_modifier > 1 {
                self.seq_nr -= 1;
                if self.seq_nr == 0 {
                    self.seq_nr = spec.rw_modifier;
                    true
                } else {
                    false
                }
            } else {
                true
            }
        } else {
            false
        };
        // fio's is_random (it picks the block size under bs_is_seq_rand): only an offset drawn
        // as random is; a sequential one, and the random fallback past the end, are not.
        self.last_random = false;
        // fio's should_do_random: with percentage_random below 100, a draw in 1..=100 above it
        // continues sequentially from the last I/O (random again once past the end).
        if random_now && spec.perc_rand[d] < 100 && self.rng_seq_rand[d].between(1, 100) as u32 > spec.perc_rand[d] {
            let f = &self.files[fi];
            if f.last_pos[d] < len {
                return Some(f.last_pos[d]);
            }
            return self.random_offset(fi, d, rand_len);
        }
        let spec = &self.spec;
        if spec.random && !random_now {
            let f = &self.files[fi];
            if spec.sequencer_identical {
                return Some(f.last_start[d].unwrap_or(0));
            }
            if f.last_pos[d] < len {
                return Some(f.last_pos[d]);
            }
            return self.random_offset(fi, d, rand_len);
        }
        if spec.random {
            self.last_random = true;
            return self.random_offset(fi, d, rand_len);
        }
        // Sequential: from the last position.
        let f = &self.files[fi];
        if spec.seq_add != 0 {
            return self.next_seq_offset_with_gap(fi, d);
        }
        let pos = f.last_pos[d];
        (pos < len).then_some(pos)
    }

    fn random_offset(&mut self, fi: usize, d: usize, len: u64) -> Option<u64> {
        let align = self.spec.bs[d].align.max(1);
        let min_bs = self.spec.bs[d].min;
        let usable = len.saturating_sub(min_bs.saturating_sub(align));
        let mut lastb = div(usable, align);
        if lastb == 0 {
            return None;
        }
        // fio's __get_next_rand_offset_zoned(_abs): a draw in 1..=100 picks the part of the range,
        // then the offset is drawn (and checked in the random map) as if that part were the
        // whole range, and moved to its start.
        let mut first = 0;
        if let Some(z) = &self.spec.zoned
            && let Some(list) = z.index.get(d).filter(|l| !l.is_empty())
        {
            let v = self.rng_zone.between(1, 100) as usize;
            if let Some(&(start, end)) = list.get(v - 1) {
                if z.absolute {
                    let (s, e) = (start / align, end / align);
                    if e > lastb {
                        // fio: "zoned_abs sizes exceed file size", and the file is done.
                        return None;
                    }
                    (first, lastb) = (s, e - s);
                } else {
                    first = start * lastb / 100;
                    lastb = lastb * (end - start) / 100;
                }
            }
            if lastb == 0 {
                // fio scales its draw by 0: the part's first block.
                return Some(first * align);
            }
        }
        let f = &mut self.files[fi];
        let b = match f.dist.as_mut() {
            Some(dist) => dist.next(&mut self.rng_dist) % lastb,
            None if f.lfsr.is_some() => f.lfsr.as_mut().and_then(Iterator::next)?,
            None => {
                // fio's __get_next_rand_offset: lastb * (r / (rand_max + 1.0)), in doubles (the
                // division is by a power of two, so multiplying by its inverse gives the same bits).
                let unit = self.rng_offset.unit_factor();
                let scale = |r: u64| (((lastb as f64) * (r as f64 * unit)) as u64).min(lastb - 1);
                let r = self.next_unit.take().unwrap_or_else(|| self.rng_offset.next_u64());
                let b = scale(r);
                if self.trace_random {
                    self.random_log.push(format!("off rand {r}"));
                }
                // Draw the next offset now and let the CPU fetch its random-map word meanwhile: a
                // large map misses the cache on nearly every I/O.
                let next = self.rng_offset.next_u64();
                self.next_unit = Some(next);
                if let Some(map) = f.map.as_ref() {
                    let nb = scale(next);
                    crate::sys::prefetch(map.bits.as_ptr().wrapping_add((nb / 64) as usize));
                }
                match f.map.as_ref() {
                    // A strided zone range beyond the file draws blocks past the map: the offset
                    // is past the range, and the caller finds the file done (as fio does).
                    Some(map) if b >= map.nr => b,
                    Some(map) if !map.is_free(b) => {
                        if self.trace_random {
                            self.random_log.push(format!("get_next_rand_offset: offset {b} busy"));
                        }
                        match map.next_free(b) {
                            Some(n) => n,
                            None => {
                                if self.trace_random {
                                    let (last, size) = (f.last_pos[d], f.range.size);
                                    self.random_log.push(format!("{RAND_FAILED}{last}:{size}"));
                                }
                                return None;
                            }
                        }
                    }
                    Some(map) if map.used >= map.nr => return None,
                    _ => b,
                }
            }
        };
        Some((b + first) * align)
    }

    /// fio's `get_next_seq_offset` for `rw=…:N` (relative to the range's start): the gap is
    /// added after the first I/O; past the end of the file a positive gap goes on from the
    /// range's start, a negative one from its end, so a job reads its size whatever the gap
    /// (`rw=read:-8k` reads 0, then backwards from the end less 8 KiB, 4 KiB lower each time).
    /// fio mixes positions relative to the range with absolute ones there; so does this, for
    /// the same offsets when the range does not start at 0.
    fn next_seq_offset_with_gap(&mut self, fi: usize, d: usize) -> Option<u64> {
        let add = self.spec.seq_add;
        let r = self.files[fi].range;
        let (start, real, io_size) = (r.offset, r.size, r.len);
        let one_file = self.files.len() == 1;
        let f = &mut self.files[fi];
        let mut last = start + f.last_pos[d];
        if last >= io_size + start && self.spec.time_based && one_file {
            last = start;
            f.last_pos[d] = 0;
        }
        if last >= real {
            return None;
        }
        // The end a backwards job starts over from.
        let end = if real > io_size { io_size } else { real };
        if last == start && start != 0 && add < 0 {
            last = end;
        }
        let mut pos = last.wrapping_sub(start);
        if pos != 0 {
            pos = pos.wrapping_add(add as u64);
            if pos >= real {
                pos = if add > 0 { start } else { end.wrapping_add(add as u64) };
            }
        }
        Some(pos)
    }

    /// fio's `get_next_buflen`: fixed, a range, or a split; never past the range end.
    fn next_buflen(&mut self, fi: usize, d: usize, off: u64) -> Option<u64> {
        // `bs_is_seq_rand`: the read sizes serve sequential I/Os, the write sizes random ones.
        let d = if self.spec.bs_is_seq_rand { usize::from(self.last_random) } else { d };
        let bs = &self.spec.bs[d];
        let r = self.files[fi].range;
        let room = r.len.min(r.size.saturating_sub(r.offset)).saturating_sub(off);
        let fits = |n: u64| n <= room;
        if bs.min == bs.max {
            return Some(bs.min);
        }
        if !fits(bs.min) {
            return None;
        }
        let rng = &mut self.rng_bs[d];
        let max = rng.max();
        // fio redraws until a length fits; a bounded number of tries here, then the smallest.
        for _ in 0..10_000 {
            let r = rng.next_u64();
            let mut len = if bs.split.is_empty() {
                bs.min + (bs.max as f64 * (r as f64 / (max as f64 + 1.0))) as u64
            } else {
                // fio: entries by rising percentage; the first whose running percentage covers
                // the draw (`r / perc <= rand_max / 100`, in integers) and fits, else the last.
                let (mut perc, mut chosen) = (0u64, bs.min);
                for &(size, pct) in &bs.split {
                    if pct == 0 {
                        continue;
                    }
                    chosen = size;
                    perc += u64::from(pct);
                    if r / perc <= max / 100 && fits(size) {
                        break;
                    }
                }
                chosen
            };
            if self.spec.bs_unaligned {
                // fio's get_next_buflen keeps the drawn length as it is.
            } else if bs.min.is_power_of_two() {
                len &= !(bs.min - 1);
            } else {
                len -= len % bs.min;
            }
            len = len.clamp(bs.min, bs.max);
            if fits(len) {
                return Some(len);
            }
        }
        Some(bs.min)
    }
}

impl DistState {
    fn new(kind: Distribution, nranges: u64, rng: &mut Rng) -> DistState {
        let rand_off = rng.next_u64() % nranges;
        let (zetan, zeta2) = match kind {
            Distribution::Zipf(theta) => {
                // The generalised harmonic number ζ(n, θ), summed over at most 10 M terms as fio caps it.
                let n = nranges.min(10_000_000);
                let zetan: f64 = (1..=n).map(|i| (i as f64).powf(-theta)).sum();
                (zetan, 1.0 + 0.5f64.powf(theta))
            }
            _ => (0.0, 0.0),
        };
        DistState { nranges, rand_off, kind, zetan, zeta2 }
    }

    fn next(&mut self, rng: &mut Rng) -> u64 {
        let n = self.nranges as f64;
        let val = match self.kind {
            Distribution::Zipf(theta) => {
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n).powf(1.0 - theta)) / (1.0 - self.zeta2 / self.zetan);
                let u = rng.unit();
                let z = u * self.zetan;
                let v = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(theta) {
                    2
                } else {
                    1 + (n * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                hash_u64(v - 1)
            }
            Distribution::Pareto(h) => {
                let u = rng.unit();
                let v = (n * (1.0 - u).powf(1.0 / (1.0 - h.clamp(0.0001, 0.9999)))) as u64;
                hash_u64(v.min(self.nranges - 1))
            }
            Distribution::Normal(dev) => {
                // Sum of uniform draws (Irwin-Hall) approximates a normal around the middle of the
                // range, with a deviation of `dev` percent of it.
                let s: f64 = (0..12).map(|_| rng.unit()).sum::<f64>() - 6.0;
                let center = n / 2.0;
                let v = center + s * n * dev / 100.0;
                return (v.clamp(0.0, n - 1.0)) as u64;
            }
            Distribution::Uniform => rng.next_u64(),
        };
        val.wrapping_add(self.rand_off) % self.nranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn spec(read: bool, write: bool, random: bool, size: u64, bs: u64) -> WorkloadSpec {
        WorkloadSpec::simple(read, write, random, size, bs, 0x1234)
    }

    fn drain(w: &mut Workload) -> Vec<NextIo> {
        std::iter::from_fn(|| w.next()).take(10_000_000).collect()
    }

    /// The random map's `next_free` with its summary of full words finds what a plain cyclic
    /// scan finds, on maps of every fill, with and without a partial last word.
    #[test]
    fn random_map_next_free_matches_a_plain_scan() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for nr in [1u64, 63, 64, 65, 4096, 4097, 64 * 64 * 3 + 5] {
            let mut m = RandomMap::new(nr);
            let mut set = vec![false; nr as usize];
            let plain = |set: &[bool], b: u64| (1..=nr).map(|i| (b + i) % nr).find(|&c| !set[c as usize]);
            let mut marks = 0u64;
            while marks < nr {
                // Mark runs (filling whole words) and single blocks.
                let b = rnd() % nr;
                let run = if rnd() % 2 == 0 { 150 } else { 1 };
                for c in b..(b + run).min(nr) {
                    let was_free = !set[c as usize];
                    assert_eq!(m.test_and_mark(c), was_free);
                    if was_free {
                        set[c as usize] = true;
                        marks += 1;
                    }
                }
                let q = rnd() % nr;
                assert_eq!(m.next_free(q), plain(&set, q), "nr {nr} at {q}");
                assert_eq!(m.next_free(nr - 1), plain(&set, nr - 1));
            }
            assert_eq!(m.next_free(0), None);
            m.clear();
            assert_eq!(m.next_free(nr - 1), Some(0));
        }
    }

    #[test]
    fn sequential_write_covers_the_file_once() {
        let mut w = Workload::new(spec(false, true, false, 1 << 20, 4096));
        let ios = drain(&mut w);
        assert_eq!(ios.len(), 256);
        assert!(ios.iter().enumerate().all(|(i, io)| io.offset == i as u64 * 4096 && io.dir == Dir::Write));
    }

    #[test]
    fn trimwrite_trims_then_writes_each_block() {
        let mut s = spec(false, true, false, 64 << 10, 4096);
        s.trim = true;
        s.trimwrite = true;
        s.pass_bytes *= 2;
        let ios = drain(&mut Workload::new(s.clone()));
        assert_eq!(ios.len(), 32);
        for (i, pair) in ios.chunks(2).enumerate() {
            assert_eq!((pair[0].dir, pair[1].dir), (Dir::Trim, Dir::Write));
            assert_eq!((pair[0].offset, pair[1].offset), (i as u64 * 4096, i as u64 * 4096));
        }
        s.random = true;
        let ios = drain(&mut Workload::new(s));
        assert_eq!(ios.len(), 32);
        let mut offs: Vec<u64> = ios.chunks(2).map(|p| p[0].offset).collect();
        for pair in ios.chunks(2) {
            assert_eq!((pair[0].dir, pair[1].dir), (Dir::Trim, Dir::Write));
            assert_eq!((pair[0].offset, pair[0].len), (pair[1].offset, pair[1].len));
        }
        offs.sort_unstable();
        offs.dedup();
        assert_eq!(offs.len(), 16, "the random map gives each block one trim");
    }

    #[test]
    fn number_ios_stops_the_job_first() {
        let mut s = spec(true, true, true, 1 << 20, 4096);
        s.number_ios = 10;
        assert_eq!(drain(&mut Workload::new(s.clone())).len(), 10);
        s.number_ios = 1000;
        assert_eq!(drain(&mut Workload::new(s.clone())).len(), 256, "the byte count stops it first");
        s.number_ios = 10;
        s.time_based = true;
        let mut w = Workload::new(s);
        assert_eq!(std::iter::from_fn(|| w.next()).take(100).count(), 100, "time-based jobs ignore it");
    }

    #[test]
    fn random_read_hits_every_block_once() {
        let mut w = Workload::new(spec(true, false, true, 8 << 20, 4096));
        let ios = drain(&mut w);
        assert_eq!(ios.len(), 2048);
        let offs: HashSet<u64> = ios.iter().map(|i| i.offset).collect();
        assert_eq!(offs.len(), 2048, "the random map gives each block once");
        assert!(ios.windows(2).any(|p| p[1].offset != p[0].offset + 4096), "not sequential");
    }

    #[test]
    fn randrw_mix_is_near_the_ratio() {
        let mut s = spec(true, true, true, 256 << 20, 4096);
        s.rwmix_read = 70;
        let mut w = Workload::new(s);
        let ios = drain(&mut w);
        assert_eq!(ios.len(), 65536);
        let reads = ios.iter().filter(|i| i.dir == Dir::Read).count() as f64;
        let share = reads / ios.len() as f64;
        assert!((share - 0.70).abs() < 0.02, "read share {share}");
    }

    #[test]
    fn seeds_repeat() {
        let a = drain(&mut Workload::new(spec(false, true, true, 1 << 20, 4096)));
        let b = drain(&mut Workload::new(spec(false, true, true, 1 << 20, 4096)));
        assert_eq!(a, b);
    }

    #[test]
    fn round_robin_files_and_gaps() {
        let mut s = spec(true, false, false, 64 << 10, 4096);
        s.files = vec![FileRange { size: 64 << 10, offset: 0, len: 32 << 10 }; 2];
        let ios = drain(&mut Workload::new(s.clone()));
        assert_eq!(ios.len(), 16);
        assert_eq!((ios[0].file, ios[1].file, ios[2].file), (0, 1, 0));
        s.files = vec![FileRange { size: 64 << 10, offset: 0, len: 64 << 10 }];
        s.seq_add = 4096;
        let ios = drain(&mut Workload::new(s.clone()));
        let offsets: Vec<u64> = ios.iter().map(|i| i.offset).collect();
        // fio 3.33's write_iolog of rw=read:4k over 64 KiB: every other block, then from the
        // start again (the gap is added to the start too), until the size is read.
        let evens: Vec<u64> = (0..8).map(|i| i * 8192).collect();
        assert_eq!(offsets[..8], evens[..]);
        assert_eq!(offsets.len(), 16);
        assert_eq!(offsets[8..], evens[..]);
        // rw=read:-8k (fio's examples/backwards-read.fio): 0, then from the end less 8 KiB
        // downwards, back at 0 last.
        s.seq_add = -8192;
        let offsets: Vec<u64> = drain(&mut Workload::new(s)).iter().map(|i| i.offset).collect();
        let mut want = vec![0];
        want.extend((0..15).map(|i| (64 << 10) - 8192 - 4096 * i));
        assert_eq!(offsets, want);
    }

    /// fio's `td_zone_gen_index`: draw `v` (1..=100) maps to the part whose access share
    /// covers it; `zoned:50/5:30/15:20/` gives the last part the rest of the range (80 %).
    #[test]
    fn zoned_index_and_offsets() {
        let list = [(50, 5), (30, 15), (20, 80)];
        let z = Zoned::new(false, [&list, &list, &[]]);
        assert_eq!(z.index[0].len(), 100);
        assert_eq!((z.index[0][0], z.index[0][49]), ((0, 5), (0, 5)));
        assert_eq!((z.index[0][50], z.index[0][79]), ((5, 20), (5, 20)));
        assert_eq!((z.index[0][80], z.index[0][99]), ((20, 100), (20, 100)));
        assert!(z.index[2].is_empty(), "trims: uniform");
        // Offsets: about half in the first 5 % of the range, 30 % in the next 15 %.
        let mut s = spec(true, false, true, 64 << 20, 4096);
        s.norandommap = true;
        s.zoned = Some(z);
        let mut w = Workload::new(s);
        let offs: Vec<u64> = (0..10_000).map(|_| w.next().unwrap().offset).collect();
        let share = |lo: u64, hi: u64| {
            offs.iter().filter(|&&o| o >= (64 << 20) / 100 * lo && o < (64 << 20) / 100 * hi).count()
        };
        assert!((4700..5300).contains(&share(0, 5)), "{}", share(0, 5));
        assert!((2700..3300).contains(&share(5, 20)), "{}", share(5, 20));
        assert!(offs.iter().all(|&o| o < 64 << 20 && o % 4096 == 0));
    }

    #[test]
    fn random_every_n_starts_with_a_random_offset() {
        // rw=randwrite:4 with rw_sequencer=sequential: one random offset, then three I/Os that
        // follow it, then a new random offset (fio's countdown starts at 1, not at N).
        let mut s = spec(false, true, true, 64 << 20, 4096);
        s.rw_modifier = 4;
        let ios: Vec<NextIo> = drain(&mut Workload::new(s)).into_iter().take(12).collect();
        for run in ios.chunks(4) {
            assert!(run.windows(2).all(|p| p[1].offset == p[0].offset + 4096), "{run:?}");
        }
        assert!(ios[0].offset != 0 || ios[4].offset != 4 * 4096, "the first offset is drawn at random");
        assert_ne!(ios[4].offset, ios[3].offset + 4096, "a new random offset every 4 I/Os");
    }

    #[test]
    fn bsrange_and_bssplit_stay_in_bounds() {
        let mut s = spec(false, true, true, 64 << 20, 4096);
        s.bs[1] = BlockSizes { min: 4096, max: 65536, split: vec![], align: 4096 };
        for io in drain(&mut Workload::new(s.clone())) {
            assert!(io.len >= 4096 && io.len <= 65536 && io.len % 4096 == 0, "{io:?}");
        }
        s.bs[1] = BlockSizes { min: 4096, max: 65536, split: vec![(4096, 50), (65536, 50)], align: 4096 };
        // As fio's keep_running: the job ends once less than the largest block size is left; the
        // random map shortens I/Os that run into used blocks.
        let total: u64 = drain(&mut Workload::new(s.clone())).iter().map(|i| i.len).sum();
        assert!(total <= 64 << 20 && total > (64 << 20) - 65536, "{total}");
        s.norandommap = true;
        let ios = drain(&mut Workload::new(s));
        let big = ios.iter().filter(|i| i.len == 65536).count() as f64;
        let small = ios.iter().filter(|i| i.len == 4096).count() as f64;
        assert!((big / (big + small) - 0.5).abs() < 0.05, "{big} {small}");
    }

    /// fio 3.33's `write_iolog` of `fio --name=t --ioengine=null --size=16T --norandommap
    /// --number_ios=N` with the options of each case: blocks of 4 KiB (over 2^32 blocks).
    const FIO_BLOCKS: [u64; 12] = [
        259_043_585,
        3_179_521_932,
        3_621_444_214,
        2_018_697_059,
        1_726_199_243,
        3_608_323_581,
        1_634_212_905,
        1_518_359_867,
        3_921_331_707,
        287_004_724,
        3_673_173_177,
        2_796_675_757,
    ];

    fn fio_like(read: bool, write: bool, seeds: Seeds) -> WorkloadSpec {
        let mut s = spec(read, write, true, 16 << 40, 4096);
        s.norandommap = true;
        s.rand.seeds = seeds;
        s
    }

    fn first(s: WorkloadSpec, n: usize) -> Vec<(char, u64, u64)> {
        let mut w = Workload::new(s);
        (0..n)
            .map(|_| w.next().unwrap())
            .map(|io| (if io.dir == Dir::Read { 'r' } else { 'w' }, io.offset / 4096, io.len))
            .collect()
    }

    #[test]
    fn randrw_directions_and_offsets_as_fio() {
        for (seeds, dirs) in [
            // --rw=randrw --rwmixread=70
            (Seeds::default_job(), "rrrwrrwrrrwr"),
            // … --randseed=1234: another mix, the same offsets (randrepeat still seeds them).
            (Seeds::fio(1234, true, true, false, 1), "rwrrwrrrwrww"),
        ] {
            let mut s = fio_like(true, true, seeds);
            s.rwmix_read = 70;
            let want: Vec<(char, u64, u64)> = dirs.chars().zip(FIO_BLOCKS).map(|(d, b)| (d, b, 4096)).collect();
            assert_eq!(first(s, 12), want);
        }
    }

    #[test]
    fn bsrange_and_bssplit_lengths_as_fio() {
        // --bsrange=4k-64k
        let mut s = fio_like(true, false, Seeds::default_job());
        s.bs[0] = BlockSizes { min: 4096, max: 65536, split: vec![], align: 4096 };
        let lens: Vec<u64> = first(s.clone(), 6).iter().map(|x| x.2).collect();
        assert_eq!(lens, [12288, 45056, 53248, 24576, 61440, 8192]);
        // --bssplit=4k/50:16k/30:64k/20 (fio sorts the entries by percentage).
        s.bs[0].split = vec![(65536, 20), (16384, 30), (4096, 50)];
        let ios = first(s, 8);
        assert_eq!(ios.iter().map(|x| x.1).collect::<Vec<_>>(), FIO_BLOCKS[..8]);
        let lens: Vec<u64> = ios.iter().map(|x| x.2).collect();
        assert_eq!(lens, [65536, 4096, 4096, 16384, 4096, 65536, 4096, 65536]);
    }

    #[test]
    fn lfsr_gives_each_block_once_in_fios_order() {
        // --random_generator=lfsr --size=64k --bs=4k
        let mut s = spec(true, false, true, 64 << 10, 4096);
        s.rand = RandSpec { generator: Generator::Lfsr, ..RandSpec::from_seed(0x89) };
        let blocks: Vec<u64> = drain(&mut Workload::new(s)).iter().map(|io| io.offset / 4096).collect();
        assert_eq!(blocks, [15, 11, 9, 14, 3, 8, 0, 4, 6, 7, 10, 1, 12, 2, 5, 13]);
    }

    #[test]
    fn randrepeat_repeats_each_pass() {
        let mut s = spec(false, true, true, 64 << 10, 4096);
        s.norandommap = true;
        s.loops = 2;
        s.rand = RandSpec::from_seed(0x89);
        let ios = drain(&mut Workload::new(s.clone()));
        assert_eq!(ios.len(), 32);
        assert_eq!(ios[..16], ios[16..], "the same offsets each pass");
        s.rand.seeds = Seeds::fio(0x89, true, true, false, 1);
        let ios = drain(&mut Workload::new(s));
        assert_ne!(ios[..16], ios[16..], "a randseed turns randrepeat off: the stream goes on");
    }

    #[test]
    fn fsync_every_n_writes() {
        let mut s = spec(false, true, false, 64 << 10, 4096);
        s.fsync_every = 4;
        let ios = drain(&mut Workload::new(s.clone()));
        // fio 3.33: a sync before the next I/O, so none after the job's last write.
        assert_eq!(ios.iter().filter(|i| i.dir == Dir::Sync).count(), 3);
        assert_eq!(ios[4].dir, Dir::Sync);
        assert_eq!(ios.last().map(|i| i.dir), Some(Dir::Write));
        // Loops: the write count goes on across passes, and each pass starts with no sync
        // behind it. A synchronous engine's pass ends on its file being done, after the sync
        // due (fio 3.33 gives 3, 8, 13); a queued pass ends after `size` bytes, before it.
        for (sync_engine, want) in [(true, [3, 8, 13]), (false, [3, 7, 11])] {
            for (loops, want) in [1, 2, 3].into_iter().zip(want) {
                let mut s = s.clone();
                s.loops = loops;
                if sync_engine {
                    s.pass_bytes = u64::MAX;
                }
                for (every, dir) in [(0, Dir::Sync), (1, Dir::DataSync), (2, Dir::SyncFileRange)] {
                    let mut s = s.clone();
                    s.fsync_every = 0;
                    *[&mut s.fsync_every, &mut s.fdatasync_every, &mut s.sfr_every][every] = 4;
                    let ios = drain(&mut Workload::new(s));
                    let n = ios.iter().filter(|i| i.dir == dir).count();
                    assert_eq!(n, want, "{dir:?} loops={loops} sync engine {sync_engine}");
                    assert_eq!(ios.iter().filter(|i| i.dir == Dir::Write).count(), 16 * loops as usize);
                }
            }
        }
    }

    #[test]
    fn time_based_wraps() {
        let mut s = spec(false, true, true, 64 << 10, 4096);
        s.time_based = true;
        let mut w = Workload::new(s);
        let ios: Vec<NextIo> = (0..100).map(|_| w.next().unwrap()).collect();
        assert!(ios.iter().all(|i| i.offset < 64 << 10));
    }

    #[test]
    fn skewed_distributions_stay_in_range() {
        for d in [Distribution::Zipf(1.2), Distribution::Pareto(0.9), Distribution::Normal(10.0)] {
            let mut s = spec(true, false, true, 16 << 20, 4096);
            s.distribution = d;
            let ios = drain(&mut Workload::new(s));
            assert_eq!(ios.len(), 4096, "{d:?}: size-bounded");
            let distinct: HashSet<u64> = ios.iter().map(|i| i.offset).collect();
            assert!(distinct.len() < 4096, "{d:?} repeats hot blocks");
            assert!(ios.iter().all(|i| i.offset < 16 << 20));
        }
    }

    /// A zone policy that puts every write back at the range start (as a zone reset does when
    /// the block size leaves a tail smaller than itself): the sequential position never reaches
    /// the range end.
    fn writes_back_at_the_start(w: &mut Workload) -> Vec<NextIo> {
        let mut ios = Vec::new();
        while let Some(p) = w.propose(None) {
            ios.push(w.accept(&p, 0, p.len));
            assert!(ios.len() < 1000, "the job never ends");
        }
        ios
    }

    #[test]
    fn a_pass_ends_after_size_bytes_only_for_queued_ios() {
        // fio's t/zbd 33 on 64 KiB zones: bs 48 KiB, size 128 KiB, io_size 320 KiB. fio counts
        // a pass's bytes only for I/Os an engine queues: an asynchronous job's pass ends after
        // `size` bytes and the job after 6 writes (320 KiB less 288 KiB is under one block); a
        // synchronous job's pass lasts until the job's bytes are done: 7 writes.
        let mut s = spec(false, true, false, 128 << 10, 48 << 10);
        s.io_limit = 320 << 10;
        s.io_size_given = true;
        assert_eq!(writes_back_at_the_start(&mut Workload::new(s.clone())).len(), 6, "asynchronous");
        s.pass_bytes = u64::MAX;
        assert_eq!(writes_back_at_the_start(&mut Workload::new(s)).len(), 7, "synchronous");
    }

    #[test]
    fn a_strided_range_beyond_the_file_ends_the_file() {
        // zonemode=strided with zonesize (and so zonerange) larger than the file: random offsets
        // are drawn over the zone range, past the random map and the file.
        let mut s = spec(false, true, true, 64 << 20, 512);
        s.zone_mode = ZoneModeSpec::Strided { size: 1 << 30, range: 1 << 30, skip: 0 };
        let ios = drain(&mut Workload::new(s));
        assert!(ios.iter().all(|i| i.offset + i.len <= 64 << 20), "stays in the file");
        assert!(ios.len() < 10, "ends at the first offset past the file: {}", ios.len());
    }

    #[test]
    fn a_pass_that_issues_nothing_ends_the_job() {
        // Reads of empty zones with io_size beyond size: the zone policy finds nothing to read in
        // any pass; fio's thread_main ends the job after such a pass instead of starting another.
        let mut s = spec(true, false, false, 1 << 20, 4096);
        s.io_limit = 2 << 20;
        s.io_size_given = true;
        s.loops = 3;
        let mut w = Workload::new(s);
        let mut proposals = 0;
        while let Some(p) = w.propose(None) {
            w.file_done(p.file);
            proposals += 1;
            assert!(proposals < 100, "the job never ends");
        }
        assert_eq!(proposals, 1);
        assert_eq!(w.issued(), [0, 0, 0]);
    }
}
