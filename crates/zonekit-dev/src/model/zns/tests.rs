use super::*;
use crate::model::testkit::{self, Job, Rng, Stats};
use crate::profiles::profile;

fn geometry() -> Geometry {
    profile("zns-zn540").unwrap().config().geometry
}

fn model() -> ZnsModel {
    ZnsModel::new(ZnsParams::ZN540, &geometry())
}

/// `jobs` closed-loop jobs of depth `qd` reading `sectors` at random aligned places of the
/// first `zones` zones.
fn random_reads(jobs: u32, qd: u32, sectors: u64, ios: u64) -> Stats {
    let g = geometry();
    let mut m = model();
    let span = g.zone_capacity / sectors;
    let mut js: Vec<Job<'_>> = (0..jobs)
        .map(|j| {
            let mut rng = Rng(0x1234 + u64::from(j));
            let zs = g.zone_size;
            let g: Gen = Box::new(move || {
                let zone = rng.below(64);
                (CommandKind::Read, zone * zs + rng.below(span) * sectors, sectors)
            });
            Job { qd, next: g }
        })
        .collect();
    testkit::run_warm(&mut m, &mut js, 0, 1000, ios, u64::MAX)
}

type Gen = testkit::Gen<'static>;

#[test]
fn qd1_random_reads_take_firmware_die_channel_and_pcie_time() {
    let st = random_reads(1, 1, 8, 5000);
    // 20 µs firmware + 50 µs die + 4 KiB over 450 MB/s + 4 KiB over 3050 MB/s.
    let expect = 20_000.0 + 50_000.0 + 4096e9 / 450e6 + 4096e9 / 3050e6;
    eprintln!("ZN540 QD1 4 KiB random read: {:.0} IOPS, {:.1} µs", st.iops(), st.mean_lat_ns() / 1e3);
    assert!((st.mean_lat_ns() - expect).abs() < 2.0, "{} ns", st.mean_lat_ns());
    assert!((st.iops() - 1e9 / expect).abs() < 0.01 * st.iops());
}

#[test]
fn deep_random_reads_are_bounded_by_the_dies() {
    let iops: Vec<f64> =
        [(1, 4), (4, 16), (8, 32)].iter().map(|&(j, qd)| random_reads(j, qd, 8, 40_000).iops()).collect();
    eprintln!("ZN540 4 KiB random reads: QD4 {:.0}, QD64 {:.0}, QD256 {:.0} IOPS", iops[0], iops[1], iops[2]);
    // 32 dies of 50 µs each: at most 640,000 reads per second.
    let dies_bound = 32.0 / 50e-6;
    assert!(iops[0] > 3.5 * 12_000.0, "QD4 {}", iops[0]);
    assert!(iops[1] > iops[0] && iops[2] > iops[1]);
    assert!(iops[2] <= dies_bound * 1.001 && iops[2] > 0.75 * dies_bound, "QD256 {}", iops[2]);
}

#[test]
fn large_reads_are_capped_by_pcie() {
    let st = random_reads(4, 8, 256, 10_000);
    eprintln!("ZN540 128 KiB random reads QD32: {:.0} MB/s", st.mb_s());
    assert!(st.mb_s() < 3050.0 * 1.001 && st.mb_s() > 0.95 * 3050.0, "{} MB/s", st.mb_s());
}

/// `zones` sequential writers (one per zone, queue depth 1) of 1 MiB.
fn seq_writes(zones: u64, ios: u64) -> Stats {
    let g = geometry();
    let mut m = model();
    let mut js: Vec<Job<'_>> = (0..zones)
        .map(|z| {
            let mut next = z * 3 * g.zone_size;
            let g: Gen = Box::new(move || {
                let s = next;
                next += 2048;
                (CommandKind::Write, s, 2048)
            });
            Job { qd: 1, next: g }
        })
        .collect();
    testkit::run_warm(&mut m, &mut js, 0, 200, ios, u64::MAX)
}

#[test]
fn sequential_write_bandwidth() {
    let one = seq_writes(1, 1000).mb_s();
    let eight = seq_writes(8, 4000).mb_s();
    eprintln!("ZN540 1 MiB sequential writes: 1 zone {one:.0} MB/s, 8 zones {eight:.0} MB/s");
    // One zone: its 960 KiB buffer turns over once per unit's PCIe and channel transfers and
    // program (≈1210 MB/s); at queue depth 1 the write buffer latency of each command
    // (5.6 µs + 0.6 µs per 4 KiB: 159 µs per MiB) comes on top.
    let unit = 96.0 * 1024.0;
    let per_zone = 10.0 * unit / ((unit / 3050e6 + unit / 450e6 + 561e-6) * 1e6);
    let qd1 = 1.048_576 / (1.048_576 / per_zone + 159e-6);
    assert!(one <= per_zone && (one - qd1).abs() < 0.1 * qd1, "1 zone {one}, expected ≈{qd1}");
    // Several zones: the PCIe link (3050 MB/s) is the limit (8 channels × 450 = 3600).
    assert!(eight < 3050.0 * 1.001 && eight > 0.9 * 3050.0, "8 zones {eight}");
}

#[test]
fn command_costs() {
    let mut m = model();
    let zs = geometry().zone_size;
    let c = |id, kind, sectors, failed| Command { id, kind, sector: 5 * zs, sectors, media_sectors: sectors, failed };
    m.submit(0, c(0, CommandKind::Write, 8, false));
    m.submit(0, c(1, CommandKind::ZoneMgmt(ZoneOp::Reset), zs, false));
    m.submit(0, c(2, CommandKind::ZoneMgmt(ZoneOp::Finish), zs, false));
    m.submit(0, c(3, CommandKind::ZoneMgmt(ZoneOp::Open), zs, false));
    m.submit(0, c(4, CommandKind::Write, 8, true));
    m.submit(0, Command { media_sectors: 0, ..c(5, CommandKind::Read, 8, false) });
    let mut out = Vec::new();
    m.complete_until(u64::MAX, &mut out);
    let at = |id| out.iter().find(|d| d.id == id).unwrap().at_ns;
    assert_eq!(at(0), xfer(4096, 3_050_000_000) + 5_600 + 600, "a 4 KiB write: PCIe + write buffer");
    assert_eq!(at(1), 200_000);
    assert_eq!(at(2), 1_000_000_000);
    assert_eq!(at(3), 13_000);
    assert_eq!(at(4), 13_000);
    assert!(at(5) < 25_000, "above the write pointer: no die read ({})", at(5));
    assert_eq!(m.next_event(), None);
}

#[test]
fn simulated_reads_are_cheap() {
    let g = geometry();
    let mut m = model();
    let mut rng = Rng(9);
    let mut out = Vec::with_capacity(4);
    let n = 200_000u64;
    let wall = std::time::Instant::now();
    let mut t = 0;
    for id in 0..n {
        let sector = rng.below(g.capacity / 8) * 8;
        m.submit(t, Command { id, kind: CommandKind::Read, sector, sectors: 8, media_sectors: 8, failed: false });
        t = m.next_event().unwrap();
        out.clear();
        m.complete_until(t, &mut out);
        assert_eq!(out.len(), 1);
    }
    let rate = n as f64 / wall.elapsed().as_secs_f64();
    eprintln!("ZN540 model: {rate:.0} simulated QD1 reads per wall second (this build)");
    assert!(rate > 100_000.0, "{rate}");
}
