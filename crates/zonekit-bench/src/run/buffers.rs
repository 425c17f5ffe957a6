//! What a job writes, as fio 3.33 fills its write buffers (`io_u.c:fill_io_buffer`,
//! `lib/rand.c:fill_random_buf_percentage`, `dedupe.c`):
//!
//! - `buffer_compress_percentage` / `dedupe_percentage` set: the buffer is made of chunks of
//!   `min(bs_min, buffer_compress_chunk)` bytes; each chunk starts with `100 - percentage` % random
//!   bytes from one seed, the rest is zeros (or the `buffer_pattern`, repeated from the rest's
//!   start). A whole buffer is either new or a duplicate: with `dedupe_percentage` a draw in
//!   1–100 at or under it replays the seeds of another buffer: `dedupe_mode=repeat` the last
//!   new one's (fio's saved state, whose next seeds the next new buffer also takes),
//!   `working_set` one of the first `size × dedupe_working_set_percentage / bs_min` new pages,
//!   drawn uniformly. At 100 % every buffer is the first one.
//! - else `buffer_pattern`: the pattern repeated from the buffer's start;
//! - else `zero_buffers`: zeros;
//! - else random bytes from a new seed per buffer.
//!
//! The random bytes themselves are zonekit's ([`crate::verify::fill_seeded`]), not fio's hash:
//! what matches fio is the structure (which share is random, which bytes repeat, the pattern
//! bytes exactly), not the random values.

use crate::rng::Rng;

/// How a job's write buffers are filled, resolved from its options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BufferContent {
    /// `buffer_pattern`'s bytes (empty: none).
    pub pattern: Vec<u8>,
    /// `buffer_compress_percentage` (100 has become `zero`, as fio's fixup makes it).
    pub compress_percentage: u32,
    /// `buffer_compress_chunk` (0: the whole `bs_min`).
    pub compress_chunk: u64,
    /// `dedupe_percentage`.
    pub dedupe_percentage: u32,
    /// `dedupe_mode=working_set`: duplicates come from a working set of pages (else `repeat`).
    pub working_set: bool,
    /// Pages of the working set (`size × dedupe_working_set_percentage / 100 / bs_min`).
    pub working_set_pages: u64,
    /// `zero_buffers`.
    pub zero: bool,
    /// The smallest write block size (fio's `min_bs[DDIR_WRITE]`).
    pub min_write: u64,
    /// `dedupe_global`: the seeds of every clone of the run and this clone's index among them;
    /// the working set takes its pages from each clone's stream in turn.
    pub peers: Option<(std::sync::Arc<Vec<u64>>, u32)>,
}

impl BufferContent {
    /// The content of a job with options `o`, over `size` bytes of files.
    pub fn of(o: &crate::options::job::JobOptions, size: u64) -> BufferContent {
        let min_write = o.min_bs[1].max(1);
        let pattern = o
            .buffer_pattern
            .as_deref()
            .and_then(|p| crate::verify::Pattern::parse(p).ok())
            .map(|p| p.bytes)
            .unwrap_or_default();
        let working_set = o.dedupe_working_set && o.dedupe_percentage > 0;
        BufferContent {
            pattern,
            compress_percentage: o.buffer_compress_percentage,
            compress_chunk: u64::from(o.buffer_compress_chunk),
            dedupe_percentage: o.dedupe_percentage,
            working_set,
            working_set_pages: if working_set {
                size * u64::from(o.dedupe_working_set_percentage) / 100 / min_write
            } else {
                0
            },
            zero: o.zero_buffers,
            min_write,
            peers: None,
        }
    }
}

/// What the job loop mixes into a job's seed for its buffers ([`crate::run::io_loop`]).
pub const LOOP_SEED: u64 = 0xb0ff;
/// What a generator mixes into its seed for its stream of buffer seeds.
const BUF_SEED: u64 = 0x5eed_b0f5;

/// fio's `frand_state` as far as buffers use it: a stream of seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SeedState(u64);

impl SeedState {
    fn next_seed(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Which state a buffer takes its seeds from (fio's `get_buf_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The job's own stream: a new buffer.
    Main,
    /// A copy of a saved state: a duplicate.
    Copy,
}

/// Fills a job's write buffers.
#[derive(Debug, Clone)]
pub struct BufferGen {
    c: BufferContent,
    state: SeedState,
    prev: SeedState,
    ret: SeedState,
    dedupe: Rng,
    ws_index: Rng,
    ws: Vec<SeedState>,
}

impl BufferGen {
    /// A generator for `content`, its random streams seeded from `seed`.
    pub fn new(content: &BufferContent, seed: u64) -> BufferGen {
        let state = SeedState(seed ^ BUF_SEED);
        let mut ws = Vec::new();
        if content.working_set && content.working_set_pages > 0 {
            // Each page of the working set starts where the job's own stream will be when it
            // writes that page as a new one (fio advances a copy once per chunk of a page).
            // dedupe_global (fio's init_global_dedupe_working_set_seeds): every `pages / jobs`
            // pages, the next job's stream from its start.
            let per_page = content.min_write / min_not_zero(content.min_write, content.compress_chunk).max(1);
            let pages = content.working_set_pages;
            let (peers, mut index): (&[u64], u64) = match &content.peers {
                Some((seeds, own)) => (seeds, u64::from(*own)),
                None => (&[], 0),
            };
            let per_seed = (pages / peers.len().max(1) as u64).max(1);
            let mut s = state;
            ws.push(s);
            for i in 1..pages {
                for _ in 0..per_page {
                    s.next_seed();
                }
                if !peers.is_empty() && i % per_seed == 0 {
                    index += 1;
                    s = SeedState(peers[(index % peers.len() as u64) as usize] ^ LOOP_SEED ^ BUF_SEED);
                }
                ws.push(s);
            }
        }
        BufferGen {
            c: content.clone(),
            state,
            prev: state,
            ret: state,
            dedupe: Rng::new(seed ^ 0xdeed),
            ws_index: Rng::new(seed ^ 0x3e75),
            ws,
        }
    }

    /// What fills buffers.
    pub fn content(&self) -> &BufferContent {
        &self.c
    }

    fn pick(&mut self) -> Source {
        let p = self.c.dedupe_percentage;
        if p == 0 {
            return Source::Main;
        }
        if p == 100 {
            self.prev = self.state;
            return Source::Main;
        }
        let v = self.dedupe.between(1, 100) as u32;
        if v > p {
            return Source::Main;
        }
        if self.c.working_set && !self.ws.is_empty() {
            let i = self.ws_index.between(0, self.ws.len() as u64 - 1) as usize;
            self.ret = self.ws[i];
        } else {
            self.ret = self.prev;
        }
        Source::Copy
    }

    fn seed(&mut self, from: Source) -> u64 {
        match from {
            Source::Main => self.state.next_seed(),
            Source::Copy => self.ret.next_seed(),
        }
    }

    /// Fills `buf` as fio's `fill_io_buffer(td, buf, min_write, buf.len())`.
    pub fn fill(&mut self, buf: &mut [u8], min_write: u64) {
        let c = &self.c;
        if c.compress_percentage > 0 || c.dedupe_percentage > 0 {
            let from = self.pick();
            let (perc, chunk) = (self.c.compress_percentage, self.c.compress_chunk);
            let mut pos = 0;
            let mut min_write = min_write;
            while pos < buf.len() {
                let left = (buf.len() - pos) as u64;
                min_write = min_write.min(left);
                let this = min_not_zero(min_write, chunk).clamp(1, left) as usize;
                let seed = self.seed(from);
                fill_percentage(seed, &mut buf[pos..pos + this], perc, this, &self.c.pattern);
                pos += this;
                // fio's save_buf_state.
                if self.c.dedupe_percentage == 100 {
                    self.state = self.prev;
                } else if from == Source::Main {
                    self.prev = self.state;
                }
            }
        } else if !c.pattern.is_empty() {
            copy_pattern(&c.pattern, buf);
        } else if c.zero {
            buf.fill(0);
        } else {
            let seed = self.state.next_seed();
            crate::verify::fill_seeded(buf, seed);
        }
    }
}

fn min_not_zero(a: u64, b: u64) -> u64 {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a.min(b),
    }
}

/// `pattern` repeated from the start of `buf` (zeros when empty).
pub fn copy_pattern(pattern: &[u8], buf: &mut [u8]) {
    if pattern.is_empty() {
        buf.fill(0);
        return;
    }
    let n = pattern.len().min(buf.len());
    buf[..n].copy_from_slice(&pattern[..n]);
    let mut filled = n;
    while filled < buf.len() {
        let k = filled.min(buf.len() - filled);
        buf.copy_within(..k, filled);
        filled += k;
    }
}

/// fio's `__fill_random_buf_percentage`: segments of `segment` bytes, each `100 - percentage` %
/// random (from `seed`) then zeros or `pattern`; a tail of a few bytes joins the filler.
pub fn fill_percentage(seed: u64, buf: &mut [u8], percentage: u32, segment: usize, pattern: &[u8]) {
    if percentage >= 100 {
        copy_pattern(pattern, buf);
        return;
    }
    let segment = segment.min(buf.len());
    let mut pos = 0;
    while pos < buf.len() {
        let len = buf.len() - pos;
        let random = (segment * (100 - percentage as usize) / 100).min(len);
        crate::verify::fill_seeded(&mut buf[pos..pos + random], seed);
        pos += random;
        let len = buf.len() - pos;
        if len == 0 {
            break;
        }
        let mut fill = segment - random;
        if fill > len || len - fill <= std::mem::size_of::<u64>() {
            fill = len;
        }
        copy_pattern(pattern, &mut buf[pos..pos + fill]);
        pos += fill;
        if segment == 0 {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn content() -> BufferContent {
        BufferContent { compress_chunk: 512, min_write: 4096, ..BufferContent::default() }
    }

    fn blocks(c: &BufferContent, n: usize) -> Vec<Vec<u8>> {
        let mut g = BufferGen::new(c, 42);
        (0..n)
            .map(|_| {
                let mut b = vec![0xaa; 4096];
                g.fill(&mut b, 4096);
                b
            })
            .collect()
    }

    fn dup_fraction(b: &[Vec<u8>]) -> f64 {
        let unique: HashSet<&Vec<u8>> = b.iter().collect();
        1.0 - unique.len() as f64 / b.len() as f64
    }

    #[test]
    fn compressible_share_per_chunk() {
        let c = BufferContent { compress_percentage: 25, ..content() };
        let b = &blocks(&c, 1)[0];
        for chunk in b.chunks(512) {
            assert!(chunk[384..].iter().all(|&x| x == 0), "the last 25 % of each chunk is zeros");
            assert!(chunk[..384].iter().filter(|&&x| x == 0).count() < 20, "the rest is random");
        }
        let c = BufferContent { compress_percentage: 50, pattern: b"ab".to_vec(), compress_chunk: 0, ..content() };
        let b = &blocks(&c, 1)[0];
        assert_eq!(&b[2048..2054], b"ababab", "the filler is the pattern, from its start");
    }

    #[test]
    fn dedupe_shares_follow_the_percentage() {
        for (p, ws) in [(30, false), (60, false), (30, true)] {
            let c = BufferContent { dedupe_percentage: p, working_set: ws, working_set_pages: 50, ..content() };
            let f = dup_fraction(&blocks(&c, 2000));
            assert!((f - f64::from(p) / 100.0).abs() < 0.05, "{p}% {ws}: {f}");
        }
        let c = BufferContent { dedupe_percentage: 100, ..content() };
        let b = blocks(&c, 10);
        assert!(b.iter().all(|x| *x == b[0]));
        assert!(dup_fraction(&blocks(&content(), 100)) == 0.0);
    }

    #[test]
    fn working_set_duplicates_come_from_the_first_pages() {
        let c = BufferContent { dedupe_percentage: 40, working_set: true, working_set_pages: 20, ..content() };
        let b = blocks(&c, 1000);
        let uniq: Vec<&Vec<u8>> = b.iter().filter(|x| b.iter().filter(|y| y == x).count() == 1).collect();
        let dups: HashSet<&Vec<u8>> = b.iter().filter(|x| !uniq.contains(x)).collect();
        assert!(dups.len() <= 20, "{} distinct duplicated pages", dups.len());
    }

    #[test]
    fn a_global_working_set_spans_the_jobs() {
        let seeds = std::sync::Arc::new(vec![11u64, 22, 33]);
        let c = |own| BufferContent {
            dedupe_percentage: 50,
            working_set: true,
            working_set_pages: 30,
            peers: Some((seeds.clone(), own)),
            ..content()
        };
        let job = |own: u32, global: bool| {
            let c = if global { c(own) } else { BufferContent { peers: None, ..c(own) } };
            let mut g = BufferGen::new(&c, seeds[own as usize] ^ LOOP_SEED);
            (0..300)
                .map(|_| {
                    let mut b = vec![0; 4096];
                    g.fill(&mut b, 4096);
                    b
                })
                .collect::<Vec<_>>()
        };
        let shared = |a: &[Vec<u8>], b: &[Vec<u8>]| {
            let a: HashSet<&Vec<u8>> = a.iter().collect();
            b.iter().filter(|x| a.contains(x)).count()
        };
        let n = shared(&job(0, true), &job(1, true));
        assert!(n > 20, "the jobs repeat each other's blocks: {n}");
        assert_eq!(shared(&job(0, false), &job(1, false)), 0, "without dedupe_global the jobs share nothing");
    }

    #[test]
    fn pattern_and_zero() {
        let c = BufferContent { pattern: vec![1, 2, 3], ..content() };
        let b = &blocks(&c, 1)[0];
        assert_eq!(&b[..7], &[1, 2, 3, 1, 2, 3, 1]);
        let c = BufferContent { zero: true, ..content() };
        assert!(blocks(&c, 1)[0].iter().all(|&x| x == 0));
    }

    #[test]
    fn fill_percentage_tail_joins_the_filler() {
        let mut b = [0xffu8; 20];
        fill_percentage(1, &mut b, 50, 12, &[]);
        // 6 random bytes, then 6 of filler would leave 8: as few as a long, they join the filler.
        assert!(b[..6].iter().any(|&x| x != 0));
        assert!(b[6..].iter().all(|&x| x == 0));
        let mut b = [0xffu8; 30];
        fill_percentage(1, &mut b, 50, 12, b"z");
        assert!(b[6..12].iter().all(|&x| x == b'z') && b[12..18] == b[..6] && b[18..].iter().all(|&x| x == b'z'));
    }
}
