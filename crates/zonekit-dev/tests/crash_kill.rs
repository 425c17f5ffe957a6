//! A killed process loses nothing it acknowledged.
//!
//! The test re-executes its own binary as a child (`crash_kill_child`, ignored unless run that
//! way) that opens a persistent device and writes in a loop, printing one line per operation
//! after the call returned. The parent SIGKILLs it at a random point, reopens the device and
//! checks it against the acknowledged operations. Both sides draw the operations from the same
//! seeded generator over the same model, so the parent knows the data (derived from zone, offset
//! and the zone's reset count) and the operation that was in flight without being told.
//!
//! `ZONEKIT_CRASH_KILL_ITERATIONS` sets the number of kills (default 200);
//! `ZONEKIT_CRASH_KILL_SEED` replays a run.

mod common;

use common::Rng;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};
use zonekit_core::{BlockIo, Personality, ZoneCond, ZoneManagement, ZoneOp, ZoneReport};
use zonekit_dev::persistent::{create_dir, open_dir};
use zonekit_dev::{DataMode, DeviceConfig, GeometrySpec};

const DIR_ENV: &str = "ZONEKIT_CRASH_KILL_DIR";
const SEED_ENV: &str = "ZONEKIT_CRASH_KILL_CHILD_SEED";
const CHILD: &str = "crash_kill_child";

const BLOCK: u64 = 512;
const ZONE: u64 = 128 * 1024;
const CAP: u64 = 112 * 1024;
const NR_ZONES: u32 = 16;
const NR_CONV: u32 = 2;
/// Largest write, in blocks.
const MAX_BLOCKS: u64 = 16;

fn config() -> DeviceConfig {
    GeometrySpec {
        zone_size: ZONE,
        nr_zones: NR_ZONES,
        nr_conv_zones: NR_CONV,
        zone_capacity: Some(CAP),
        max_open: 4,
        max_active: 0,
        block_size: BLOCK as u32,
        personality: Personality::NullBlk,
    }
    .into_config()
    .unwrap()
}

/// The bytes at `[offset, offset + len)` of zone `zone`'s data of generation `tag` (a sequential zone's reset count; for conventional zones, the operation that
/// wrote the block), in whole blocks.
fn pattern(zone: u32, tag: u64, offset: u64, len: u64) -> Vec<u8> {
    common::pattern(BLOCK, zone, tag, offset, len)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Write at a sequential zone's write pointer (zone-relative bytes).
    Write {
        zone: u32,
        offset: u64,
        len: u64,
    },
    /// Overwrite part of a conventional zone; `generation` tags the data.
    Conv {
        zone: u32,
        offset: u64,
        len: u64,
        generation: u64,
    },
    Reset {
        zone: u32,
    },
    Finish {
        zone: u32,
    },
    Flush,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Write { zone, offset, len } => write!(f, "write {zone} {offset} {len}"),
            Op::Conv { zone, offset, len, generation } => write!(f, "conv {zone} {offset} {len} {generation}"),
            Op::Reset { zone } => write!(f, "reset {zone}"),
            Op::Finish { zone } => write!(f, "finish {zone}"),
            Op::Flush => write!(f, "flush"),
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct SeqZone {
    /// Bytes written in this epoch.
    len: u64,
    finished: bool,
    /// Resets so far.
    epoch: u64,
}

/// What the acknowledged operations did.
#[derive(Debug, Clone)]
struct Model {
    seq: Vec<SeqZone>,
    /// The generation of every block of the conventional zones (0: never written).
    conv: Vec<u64>,
    ops: u64,
}

impl Model {
    fn new() -> Model {
        Model {
            seq: vec![SeqZone::default(); NR_ZONES as usize],
            conv: vec![0; (u64::from(NR_CONV) * ZONE / BLOCK) as usize],
            ops: 0,
        }
    }

    fn next_op(&self, rng: &mut Rng) -> Op {
        // Per mille: 10% conventional writes, 0.2% flushes (fsyncs are slow and change nothing
        // for a killed process), 3.8% resets, 1% finishes, the rest sequential writes.
        let r = rng.below(1000);
        let seq_zone = |rng: &mut Rng| NR_CONV + rng.below(u64::from(NR_ZONES - NR_CONV)) as u32;
        if r < 100 {
            let zone = rng.below(u64::from(NR_CONV)) as u32;
            let offset = rng.below(ZONE / BLOCK) * BLOCK;
            let len = ((1 + rng.below(MAX_BLOCKS)) * BLOCK).min(ZONE - offset);
            return Op::Conv { zone, offset, len, generation: self.ops + 1 };
        }
        if r < 102 {
            return Op::Flush;
        }
        let zone = seq_zone(rng);
        let z = self.seq[zone as usize];
        let full = z.finished || z.len == CAP;
        if r < 140 || full {
            return Op::Reset { zone };
        }
        if r < 150 {
            return Op::Finish { zone };
        }
        let len = ((1 + rng.below(MAX_BLOCKS)) * BLOCK).min(CAP - z.len);
        Op::Write { zone, offset: z.len, len }
    }

    fn apply(&mut self, op: &Op) {
        self.ops += 1;
        match *op {
            Op::Write { zone, len, .. } => self.seq[zone as usize].len += len,
            Op::Conv { zone, offset, len, generation } => {
                let first = ((u64::from(zone) * ZONE + offset) / BLOCK) as usize;
                self.conv[first..first + (len / BLOCK) as usize].fill(generation);
            }
            Op::Reset { zone } => {
                let z = &mut self.seq[zone as usize];
                *z = SeqZone { epoch: z.epoch + 1, ..SeqZone::default() };
            }
            Op::Finish { zone } => self.seq[zone as usize].finished = true,
            Op::Flush => {}
        }
    }
}

fn sector(zone: u32, offset: u64) -> u64 {
    (u64::from(zone) * ZONE + offset) / 512
}

#[test]
#[ignore = "the child process of killed_process_loses_nothing_acknowledged"]
fn crash_kill_child() {
    let dir = std::env::var(DIR_ENV).expect("run by killed_process_loses_nothing_acknowledged");
    let seed: u64 = std::env::var(SEED_ENV).unwrap().parse().unwrap();
    let dev = open_dir(Path::new(&dir), &dir, true).unwrap();
    let mut model = Model::new();
    let mut rng = Rng::new(seed);
    let mut out = std::io::stdout().lock();
    // libtest printed `test crash_kill_child ... ` without a newline.
    writeln!(out).unwrap();
    for i in 0u64.. {
        let op = model.next_op(&mut rng);
        match op {
            Op::Write { zone, offset, len } => {
                dev.write_at(sector(zone, offset), &pattern(zone, model.seq[zone as usize].epoch, offset, len))
            }
            Op::Conv { zone, offset, len, generation } => {
                dev.write_at(sector(zone, offset), &pattern(zone, generation, offset, len))
            }
            Op::Reset { zone } => dev.zone_mgmt(ZoneOp::Reset, sector(zone, 0), ZONE / 512),
            Op::Finish { zone } => dev.zone_mgmt(ZoneOp::Finish, sector(zone, 0), ZONE / 512),
            Op::Flush => dev.flush(),
        }
        .unwrap_or_else(|e| panic!("operation {i} ({op}): {e}"));
        model.apply(&op);
        // The acknowledgement: only once the call returned.
        writeln!(out, "ACK {i} {op}").and_then(|()| out.flush()).unwrap();
    }
}

/// Check the device in `dir`, keeping `data`, after the child ran with `seed` and acknowledged
/// `acks`. Without data, the zone files' sizes are still the write pointers and reads return
/// zeros below them.
fn verify(dir: &Path, data: DataMode, seed: u64, acks: &[String]) -> Result<(), String> {
    let keeps_data = data == DataMode::Files;
    let mut model = Model::new();
    let mut rng = Rng::new(seed);
    for (i, line) in acks.iter().enumerate() {
        let op = model.next_op(&mut rng);
        if *line != format!("ACK {i} {op}") {
            return Err(format!("line {i} is '{line}', expected operation '{op}'"));
        }
        model.apply(&op);
    }
    let in_flight = model.next_op(&mut rng);
    let dev = open_dir(dir, "recovered", true).map_err(|e| format!("reopen: {e}"))?;
    let mut zones = Vec::new();
    dev.report_zones(0, usize::MAX, &mut zones).unwrap();
    if dev.counters().open() != 0 {
        return Err(format!("open zones after a reopen: {:?}", dev.counters()));
    }

    for zone in NR_CONV..NR_ZONES {
        let z = zones[zone as usize];
        let m = model.seq[zone as usize];
        let ctx = |why: String| format!("zone {zone} ({z:?}, acknowledged {m:?}, in flight '{in_flight}'): {why}");
        let file = dir.join(format!("seq-{zone:06}"));
        let file_len = std::fs::metadata(&file).map_or(0, |md| md.len());
        let finished = z.cond == ZoneCond::Full && file_len < CAP;
        // The write pointer is the data on disk (a finished zone's is the zone end).
        let expected = if finished {
            (ZoneCond::Full, z.start + z.len)
        } else {
            let cond = match file_len {
                0 => ZoneCond::Empty,
                CAP => ZoneCond::Full,
                _ => ZoneCond::Closed,
            };
            (cond, z.start + file_len / 512)
        };
        if (z.cond, z.wp) != expected {
            return Err(ctx(format!("reports {:?}, but its file holds {file_len} bytes", (z.cond, z.wp))));
        }
        // What the acknowledged operations, and maybe the one in flight, leave.
        let mut allowed = vec![(m.finished, m.len, m.len)];
        match in_flight {
            Op::Write { zone: w, len, .. } if w == zone => allowed.push((false, m.len, m.len + len)),
            // State first, then truncate: the old data may come back unlisted.
            Op::Reset { zone: w } if w == zone => allowed.extend([(false, 0, 0), (false, m.len, m.len)]),
            Op::Finish { zone: w } if w == zone => allowed.push((true, m.len, m.len)),
            _ => {}
        }
        if !allowed.iter().any(|&(f, lo, hi)| f == finished && (lo..=hi).contains(&file_len)) {
            return Err(ctx(format!("recovered as finished={finished} with {file_len} bytes; allowed {allowed:?}")));
        }
        // Every byte up to the write pointer is this epoch's data; beyond, the fill.
        let mut buf = vec![0u8; (file_len + BLOCK).min(ZONE) as usize];
        dev.read_at(z.start, &mut buf).map_err(|e| ctx(format!("read: {e}")))?;
        let written = if keeps_data { pattern(zone, m.epoch, 0, file_len) } else { vec![0; file_len as usize] };
        if buf[..file_len as usize] != written[..] {
            return Err(ctx("data differ from what was written".into()));
        }
        let fill = if finished { 0 } else { 0xff };
        let beyond = &buf[file_len as usize..];
        if *beyond != vec![fill; beyond.len()][..] {
            return Err(ctx(format!("beyond the data, expected {fill:#x} bytes")));
        }
    }

    let mut conv = vec![0u8; (u64::from(NR_CONV) * ZONE) as usize];
    dev.read_at(0, &mut conv).unwrap();
    for (b, data) in conv.chunks(BLOCK as usize).enumerate() {
        let pos = b as u64 * BLOCK;
        let (zone, offset) = ((pos / ZONE) as u32, pos % ZONE);
        let mut generations = vec![model.conv[b]];
        if let Op::Conv { zone: w, offset: o, len, generation } = in_flight
            && w == zone
            && (o..o + len).contains(&offset)
        {
            generations.push(generation);
        }
        if !keeps_data {
            generations = vec![0];
        }
        let ok = generations.iter().any(|&g| {
            if g == 0 { *data == [0u8; BLOCK as usize][..] } else { *data == pattern(zone, g, offset, BLOCK)[..] }
        });
        if !ok {
            return Err(format!(
                "conventional zone {zone}, offset {offset}: not the data of generation(s) {generations:?} (in flight '{in_flight}')"
            ));
        }
    }

    // The recovered device goes on: a write at each closed zone's write pointer (which opens it,
    // closing others at the open limit), a reset of each full one; a clean close and a reopen
    // then find every zone as it was, open ones included.
    for z in &zones[NR_CONV as usize..] {
        match z.cond {
            ZoneCond::Closed => {
                dev.write_at(z.wp, &[0x5a; BLOCK as usize]).map_err(|e| format!("write after recovery: {e}"))?;
            }
            ZoneCond::Full => {
                dev.zone_mgmt(ZoneOp::Reset, z.start, ZONE / 512).map_err(|e| format!("reset after recovery: {e}"))?;
            }
            _ => {}
        }
    }
    let mut before = Vec::new();
    dev.report_zones(0, usize::MAX, &mut before).unwrap();
    let counters = dev.counters();
    drop(dev);
    let dev = open_dir(dir, "again", true).map_err(|e| format!("second reopen: {e}"))?;
    let mut again = Vec::new();
    dev.report_zones(0, usize::MAX, &mut again).unwrap();
    if again != before || dev.counters() != counters {
        return Err(format!(
            "after recovery, a clean close and a reopen: {again:?} {:?}, expected {before:?} {counters:?}",
            dev.counters()
        ));
    }
    for (z, old) in again.iter().zip(&zones).skip(NR_CONV as usize) {
        let wp = match old.cond {
            ZoneCond::Closed => old.wp + BLOCK / 512,
            ZoneCond::Full => z.start,
            _ => old.wp,
        };
        if z.wp != wp {
            return Err(format!(
                "after recovery, zone at {} has its write pointer at {}, expected {wp}",
                z.start, z.wp
            ));
        }
    }
    Ok(())
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(v.parse().unwrap_or_else(|_| panic!("{name}={v}: not a number")))
}

/// One kill: run a child on a fresh device in `dir`, kill it as `plan` says, check the device.
/// Returns the number of acknowledged operations.
fn kill_once(exe: &Path, dir: &Path, child_seed: u64, plan: &mut Rng) -> Result<usize, String> {
    // One device in four keeps no data (`--data none`): its write pointers must still cover every
    // acknowledged write.
    let data = if plan.below(4) == 0 { DataMode::None } else { DataMode::Files };
    drop(create_dir(dir, &config(), data).unwrap());
    let mut child = Command::new(exe)
        .args(["--exact", CHILD, "--ignored", "--nocapture", "--test-threads=1"])
        .env(DIR_ENV, dir)
        .env(SEED_ENV, child_seed.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.starts_with("ACK ") && tx.send(line).is_err() {
                break;
            }
        }
    });
    // Kill after a random number of acknowledgements, or after a random short delay (which may
    // fall before the child even opened the device).
    let mut acks = Vec::new();
    if plan.below(3) > 0 {
        let target = plan.below(400) as usize;
        while acks.len() < target {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(line) => acks.push(line),
                Err(_) => break,
            }
        }
    } else {
        std::thread::sleep(Duration::from_micros(plan.below(20_000)));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    // Lines written before the kill are acknowledgements too.
    acks.extend(rx.try_iter());
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    if status.signal() != Some(libc::SIGKILL) {
        return Err(format!("the child was not killed but {status}:\n{stderr}"));
    }
    verify(dir, data, child_seed, &acks)
        .map_err(|why| format!("{} acknowledged operations, data {}: {why}", acks.len(), data.name()))?;
    std::fs::remove_dir_all(dir).unwrap();
    Ok(acks.len())
}

#[test]
fn killed_process_loses_nothing_acknowledged() {
    let iterations = env_u64("ZONEKIT_CRASH_KILL_ITERATIONS").unwrap_or(200);
    let seed = env_u64("ZONEKIT_CRASH_KILL_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    eprintln!("crash_kill: {iterations} kills, seed {seed} (replay: ZONEKIT_CRASH_KILL_SEED={seed})");
    let exe = std::env::current_exe().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let started = Instant::now();
    // Each kill has its own seeds, drawn in order, so a replay redoes the same operations and
    // kill targets whatever the scheduling (the instants of the kills differ).
    let mut rng = Rng::new(seed);
    let runs: Vec<(u64, u64)> = (0..iterations).map(|_| (rng.next(), rng.next())).collect();
    let next = AtomicUsize::new(0);
    let acks = AtomicUsize::new(0);
    let failure = Mutex::new(None);
    // Most of a kill is spent waiting (process start, fsync): two at a time halves the wall time.
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let it = next.fetch_add(1, Ordering::Relaxed);
                    if it >= runs.len() || failure.lock().unwrap().is_some() {
                        return;
                    }
                    let (child_seed, plan_seed) = runs[it];
                    let dir = tmp.path().join(format!("dev{it}"));
                    match kill_once(&exe, &dir, child_seed, &mut Rng::new(plan_seed)) {
                        Ok(n) => {
                            acks.fetch_add(n, Ordering::Relaxed);
                        }
                        Err(why) => {
                            failure
                                .lock()
                                .unwrap()
                                .get_or_insert(format!("kill {it} (child seed {child_seed}): {why}"));
                        }
                    }
                }
            });
        }
    });
    if let Some(why) = failure.into_inner().unwrap() {
        panic!("{why}\nreplay: ZONEKIT_CRASH_KILL_SEED={seed}");
    }
    eprintln!(
        "crash_kill: {iterations} kills, {} acknowledged operations checked in {:.1?}",
        acks.into_inner(),
        started.elapsed()
    );
}
