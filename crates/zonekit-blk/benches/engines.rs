//! Per-I/O cost of zonekit's engines and clock (a plain `harness = false` bench: no dependencies).
//!
//! `cargo bench -p zonekit-blk` (optionally `-- FILTER`) runs, each for `ZONEKIT_BENCH_SECS`
//! seconds (default 3), on a 1 GiB file in /dev/shm (`ZONEKIT_BENCH_DIR` to change) written out
//! once beforehand — or on the first 2 GiB of an existing file `ZONEKIT_BENCH_FILE` (what
//! `bench/vs-fio.sh` gives fio) — with O_DIRECT and 4 KiB blocks at uniformly random aligned
//! offsets:
//! - `clock`: one `RealClock::now_ns()` (the TSC where the kernel trusts it), `clock-monotonic`:
//!   the same on `CLOCK_MONOTONIC`;
//! - `null-qd1`, `null-qd32`: the engine interface alone (no system call);
//! - `psync-4k-randwrite`: `queue` of a 4 KiB write (one `pwrite`) per I/O;
//! - `psync-4k-randwrite+clock`: the same with three clock reads per I/O, as a runner does;
//! - `io_uring-qd32-4k-randwrite`: 32 slots, refill every free slot, one `commit`, then
//!   `getevents(1)`;
//! - `io_uring-qd32-4k-randwrite-batch1`: fio's default loop (`iodepth_batch_submit=1`): queue
//!   and commit one I/O at a time, reap one when all 32 slots are busy;
//! - `libaio-qd32-4k-randwrite`: as the first io_uring row.
//!
//! Each row prints ns per I/O of wall time, IOPS, and CPU ns per I/O of the whole process (user +
//! system from /proc/self/stat, so io_uring's kernel workers count, as `/usr/bin/time` counts
//! them).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use zonekit_blk::engine::{
    Completion, Ddir, EngineConfig, EngineKind, Io, LibaioOptions, Queued, UringOptions, open_engine,
};
use zonekit_blk::file::{LayoutSpec, OpenSpec, lay_out_file, open_job_file};
use zonekit_blk::{Engine, RealClock};

const FILE_SIZE: u64 = 1 << 30;
const BS: u32 = 4096;

struct Rng(u64, u64);
impl Rng {
    #[inline]
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A random block-aligned offset in the first `self.1` bytes.
    #[inline]
    fn offset(&mut self) -> u64 {
        (self.next() % (self.1 / u64::from(BS))) * u64::from(BS)
    }
}

/// CPU seconds (user + system) of the whole process, all threads included.
fn process_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may contain spaces) start at ") ".
    let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name; USER_HZ = 100.
    let ticks: u64 =
        f.get(11).and_then(|s| s.parse().ok()).unwrap_or(0) + f.get(12).and_then(|s| s.parse().ok()).unwrap_or(0);
    ticks as f64 / 100.0
}

struct Row {
    ops: u64,
    wall: Duration,
    cpu: f64,
}

fn report(name: &str, r: Row) {
    let ns = r.wall.as_nanos() as f64 / r.ops as f64;
    let iops = r.ops as f64 / r.wall.as_secs_f64();
    let cpu_ns = r.cpu * 1e9 / r.ops as f64;
    println!(
        "{name:<36} {ns:>9.1} ns/op  {iops:>12.0} IOPS  {cpu_ns:>9.1} CPU ns/op  ({:.2} cores, {} ops)",
        r.cpu / r.wall.as_secs_f64(),
        r.ops
    );
}

fn measure(secs: f64, mut batch: impl FnMut() -> u64) -> Row {
    let start = Instant::now();
    let cpu0 = process_cpu();
    let mut ops = 0;
    while start.elapsed().as_secs_f64() < secs {
        ops += batch();
    }
    Row { ops, wall: start.elapsed(), cpu: process_cpu() - cpu0 }
}

fn engine(kind: EngineKind, depth: u32, files: Vec<OwnedFd>) -> Box<dyn Engine> {
    let config = EngineConfig {
        depth,
        buffer_size: BS as usize,
        buffer_align: 4096,
        files,
        clock: zonekit_blk::RealClock::new(),
        buffer_offset: 0,
        buffer_memory: Default::default(),
    };
    let mut e = open_engine(kind.clone(), config).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    for tag in 0..depth {
        e.buffer(tag).fill(0xa5);
    }
    e
}

fn open(path: &Path) -> Vec<OwnedFd> {
    let mut spec = OpenSpec::new(false, true, false);
    spec.direct = true;
    vec![open_job_file(path, &spec).expect("open bench file")]
}

/// Keep `depth` writes in flight: refill every free slot, commit once, reap at least one.
fn async_batched(e: &mut dyn Engine, rng: &mut Rng, free: &mut Vec<u32>, out: &mut Vec<Completion>) -> u64 {
    let mut done = 0;
    for _ in 0..256 {
        while let Some(tag) = free.pop() {
            let io = Io { tag, ddir: Ddir::Write, file: 0, offset: rng.offset(), len: BS };
            match e.queue(&io) {
                Queued::Queued => {}
                Queued::Completed(r) => {
                    assert_eq!(r, BS as i32);
                    free.push(tag);
                    done += 1;
                }
                Queued::Busy => {
                    free.push(tag);
                    break;
                }
            }
        }
        e.commit().expect("commit");
        out.clear();
        e.getevents(1, usize::MAX, out).expect("getevents");
        for c in out.iter() {
            assert_eq!(c.result, BS as i32, "write failed");
            free.push(c.tag);
        }
        done += out.len() as u64;
    }
    done
}

/// fio's default loop: queue and commit one I/O at a time; when every slot is busy, reap one (or
/// more, if ready).
fn async_one_by_one(e: &mut dyn Engine, rng: &mut Rng, free: &mut Vec<u32>, out: &mut Vec<Completion>) -> u64 {
    let mut done = 0;
    for _ in 0..256 {
        if let Some(tag) = free.pop() {
            let io = Io { tag, ddir: Ddir::Write, file: 0, offset: rng.offset(), len: BS };
            assert_eq!(e.queue(&io), Queued::Queued);
            e.commit().expect("commit");
        }
        out.clear();
        let min = usize::from(free.is_empty());
        e.getevents(min, usize::MAX, out).expect("getevents");
        for c in out.iter() {
            assert_eq!(c.result, BS as i32, "write failed");
            free.push(c.tag);
        }
        done += out.len() as u64;
    }
    done
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.starts_with(f.as_str()));
    let secs: f64 = std::env::var("ZONEKIT_BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let dir = PathBuf::from(std::env::var("ZONEKIT_BENCH_DIR").unwrap_or_else(|_| "/dev/shm".into()));
    let path = dir.join(format!("zonekit-blk-bench-{}", std::process::id()));

    for (name, clock) in [("clock", RealClock::new()), ("clock-monotonic", RealClock::monotonic())] {
        if !wanted(name) {
            continue;
        }
        let row = measure(secs.min(1.0), || {
            let mut acc = 0u64;
            for _ in 0..100_000 {
                acc = acc.wrapping_add(clock.now_ns());
            }
            std::hint::black_box(acc);
            100_000
        });
        report(if clock.uses_tsc() { "clock (tsc)" } else { name }, row);
    }
    for depth in [1u32, 32] {
        let name = format!("null-qd{depth}");
        if !wanted(&name) {
            continue;
        }
        let mut e = engine(EngineKind::Null, depth, Vec::new());
        let (mut rng, mut out, mut free) = (Rng(7, FILE_SIZE), Vec::new(), (0..depth).collect::<Vec<_>>());
        let row = if depth == 1 {
            measure(secs.min(1.0), || {
                for _ in 0..100_000 {
                    let io = Io { tag: 0, ddir: Ddir::Write, file: 0, offset: rng.offset(), len: BS };
                    std::hint::black_box(e.queue(&io));
                }
                100_000
            })
        } else {
            measure(secs.min(1.0), || async_batched(e.as_mut(), &mut rng, &mut free, &mut out))
        };
        report(&name, row);
    }

    let io_rows = [
        "psync-4k-randwrite",
        "psync-4k-randwrite+clock",
        "io_uring-qd32-4k-randwrite",
        "io_uring-qd32-4k-randwrite-batch1",
        "libaio-qd32-4k-randwrite",
    ];
    if !io_rows.iter().any(|r| wanted(r)) {
        return;
    }
    let (path, range, ours) = match std::env::var_os("ZONEKIT_BENCH_FILE") {
        Some(f) => {
            let f = PathBuf::from(f);
            let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
            assert!(len >= u64::from(BS), "ZONEKIT_BENCH_FILE {}: too small or missing", f.display());
            (f, len.min(2 << 30), false)
        }
        None => {
            let t = Instant::now();
            let spec = LayoutSpec::for_job(false, true, true, false, 1 << 20);
            lay_out_file(&path, FILE_SIZE, &spec, &mut |b| {
                b.fill(0x5a);
                true
            })
            .expect("lay out the bench file");
            eprintln!("(laid out {} in {:.2} s)", path.display(), t.elapsed().as_secs_f64());
            (path, FILE_SIZE, true)
        }
    };

    if wanted("psync-4k-randwrite") {
        let mut e = engine(EngineKind::Psync, 1, open(&path));
        let mut rng = Rng(0x1234_5678, range);
        let row = measure(secs, || {
            for _ in 0..4096 {
                let io = Io { tag: 0, ddir: Ddir::Write, file: 0, offset: rng.offset(), len: BS };
                assert_eq!(e.queue(&io), Queued::Completed(BS as i32));
            }
            4096
        });
        report("psync-4k-randwrite", row);

        let clock = RealClock::new();
        let mut lat_sum = 0u64;
        let row = measure(secs, || {
            for _ in 0..4096 {
                let issue = clock.now_ns();
                let io = Io { tag: 0, ddir: Ddir::Write, file: 0, offset: rng.offset(), len: BS };
                let start = clock.now_ns();
                assert_eq!(e.queue(&io), Queued::Completed(BS as i32));
                let end = clock.now_ns();
                lat_sum = lat_sum.wrapping_add(end - start + (start - issue));
            }
            4096
        });
        std::hint::black_box(lat_sum);
        report("psync-4k-randwrite+clock", row);
    }
    for (name, engine_kind, one_by_one) in [
        ("io_uring-qd32-4k-randwrite", EngineKind::IoUring(UringOptions::default()), false),
        ("io_uring-qd32-4k-randwrite-batch1", EngineKind::IoUring(UringOptions::default()), true),
        ("libaio-qd32-4k-randwrite", EngineKind::Libaio(LibaioOptions::default()), false),
    ] {
        if !wanted(name) {
            continue;
        }
        let mut e = engine(engine_kind, 32, open(&path));
        let (mut rng, mut out, mut free) = (Rng(0x1234_5678, range), Vec::new(), (0..32).collect::<Vec<u32>>());
        let row = measure(secs, || {
            if one_by_one {
                async_one_by_one(e.as_mut(), &mut rng, &mut free, &mut out)
            } else {
                async_batched(e.as_mut(), &mut rng, &mut free, &mut out)
            }
        });
        // Drain before the next row.
        while free.len() < 32 {
            out.clear();
            e.getevents(1, usize::MAX, &mut out).expect("getevents");
            free.extend(out.iter().map(|c| c.tag));
        }
        report(name, row);
    }
    if ours {
        let _ = std::fs::remove_file(&path);
    }
}
