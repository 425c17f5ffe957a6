//! A test-side driver: closed-loop jobs over a timing model in simulated time, as the benchmark's
//! event loop drives one (each job keeps `qd` commands outstanding and issues the next one
//! `gap_ns` after a completion).

use std::collections::BTreeMap;
use zonekit_core::Geometry;
use zonekit_core::timing::{Command, CommandKind, Done, TimingModel};

/// What a job issues next: kind, sector, sectors.
pub(crate) type Gen<'a> = Box<dyn FnMut() -> (CommandKind, u64, u64) + 'a>;

/// One closed-loop job.
pub(crate) struct Job<'a> {
    pub qd: u32,
    pub next: Gen<'a>,
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Stats {
    pub ios: u64,
    pub bytes: u64,
    /// Time the measurement started (the last completion of the warm-up).
    pub start_ns: u64,
    /// Time of the last completion counted.
    pub end_ns: u64,
    pub lat_sum_ns: u64,
}

impl Stats {
    pub fn mb_s(&self) -> f64 {
        self.bytes as f64 * 1e3 / (self.end_ns - self.start_ns) as f64
    }
    pub fn iops(&self) -> f64 {
        self.ios as f64 * 1e9 / (self.end_ns - self.start_ns) as f64
    }
    pub fn mean_lat_ns(&self) -> f64 {
        self.lat_sum_ns as f64 / self.ios as f64
    }
}

/// Run `jobs` from time 0 until `ios` commands completed (or `until_ns` passed), each job's next
/// command `gap_ns` after one of its commands completes. Every command needs the media in full.
pub(crate) fn run(model: &mut dyn TimingModel, jobs: &mut [Job<'_>], gap_ns: u64, ios: u64, until_ns: u64) -> Stats {
    run_warm(model, jobs, gap_ns, 0, ios, until_ns)
}

/// [`run`], counting only what completes after the first `warm` completions.
pub(crate) fn run_warm(
    model: &mut dyn TimingModel,
    jobs: &mut [Job<'_>],
    gap_ns: u64,
    warm: u64,
    ios: u64,
    until_ns: u64,
) -> Stats {
    let mut st = Stats::default();
    let mut warmed = 0u64;
    let mut next_id = 0u64;
    // (submit time, job) waiting to be submitted, by time then order.
    let mut due: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    let mut order = 0u64;
    for (j, job) in jobs.iter().enumerate() {
        for _ in 0..job.qd {
            due.insert((0, order), j);
            order += 1;
        }
    }
    let mut inflight: BTreeMap<u64, (usize, u64, u64)> = BTreeMap::new();
    let mut out: Vec<Done> = Vec::new();
    loop {
        let ne = model.next_event();
        let first_due = due.keys().next().copied();
        if let Some((t, o)) = first_due
            && ne.is_none_or(|e| t <= e)
        {
            let j = due.remove(&(t, o)).unwrap();
            let (kind, sector, sectors) = (jobs[j].next)();
            let id = next_id;
            next_id += 1;
            inflight.insert(id, (j, t, sectors));
            model.submit(t, Command { id, kind, sector, sectors, media_sectors: sectors, failed: false });
            continue;
        }
        let Some(e) = ne else { break };
        if e > until_ns {
            break;
        }
        out.clear();
        model.complete_until(e, &mut out);
        for d in &out {
            let (j, t, sectors) = inflight.remove(&d.id).expect("a completion of an outstanding command");
            assert!(d.at_ns >= t && d.at_ns <= e);
            due.insert((d.at_ns + gap_ns, order), j);
            order += 1;
            if warmed < warm {
                warmed += 1;
                st.start_ns = d.at_ns;
                continue;
            }
            st.ios += 1;
            st.bytes += sectors * 512;
            st.end_ns = d.at_ns;
            st.lat_sum_ns += d.at_ns - t;
        }
        if st.ios >= ios {
            break;
        }
    }
    st
}

/// A small pseudo-random generator (xorshift), seeded: tests stay deterministic.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in `[0, n)`.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}

/// Drive `model` with a short mix of commands and check that each completes once, not before it
/// was submitted, and in time order.
pub(crate) fn smoke(model: &mut dyn TimingModel, g: &Geometry) {
    let zs = g.zone_size;
    let first_seq = u64::from(g.nr_conv_zones) * zs;
    let cmds = [
        (CommandKind::Read, 0, 8),
        (CommandKind::Write, first_seq, 2048),
        (CommandKind::Write, first_seq + 2048, 8),
        (CommandKind::Flush, 0, 0),
        (CommandKind::ZoneMgmt(zonekit_core::ZoneOp::Reset), first_seq, zs),
        (CommandKind::Read, g.capacity - 8, 8),
    ];
    for (i, (kind, sector, sectors)) in cmds.into_iter().enumerate() {
        model.submit(
            i as u64 * 1000,
            Command { id: i as u64, kind, sector, sectors, media_sectors: sectors, failed: false },
        );
    }
    let mut out = Vec::new();
    let mut steps = 0;
    while let Some(e) = model.next_event() {
        model.complete_until(e, &mut out);
        steps += 1;
        assert!(steps < 100_000, "the model keeps producing events");
    }
    let mut ids: Vec<u64> = out.iter().map(|d| d.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..cmds.len() as u64).collect::<Vec<_>>());
    assert!(out.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
}
