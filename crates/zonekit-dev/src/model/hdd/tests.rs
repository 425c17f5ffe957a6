use super::*;
use crate::model::testkit::{self, Job, Rng, Stats};
use crate::profiles::{HC620_15TB_MODEL, SMR_30TB_MODEL, profile};

fn geometry(name: &str) -> Geometry {
    profile(name).unwrap().config().geometry
}

fn model(p: HddParams, profile_name: &str) -> HddModel {
    HddModel::new(p, &geometry(profile_name))
}

const MS: f64 = 1e6;

#[test]
fn seek_curve_matches_the_specification() {
    let m = model(HC620_15TB_MODEL, "smr-hm-15tb");
    let d = &m.disk;
    let one_cyl = 2.0 * d.half_cyl / d.stroke_per_r;
    let t1 = d.seek(one_cyl) / MS;
    assert!((0.21..0.26).contains(&t1), "one cylinder: {t1} ms (HC310: 0.23 ms)");
    assert_eq!(d.seek(one_cyl / 4.0), 0.0, "within a cylinder");
    let full = d.seek(1.0 / d.stroke_per_r) / MS;
    assert!((13.0..16.0).contains(&full), "full stroke {full} ms");
    // The specification's average: the mean over all pairs of cylinders.
    let mut rng = Rng(7);
    let n = 20_000;
    let mut sum = 0.0;
    for _ in 0..n {
        let (a, b) = (rng.below(1 << 30) as f64, rng.below(1 << 30) as f64);
        sum += d.seek((a - b) / f64::from(1 << 30) / d.stroke_per_r);
    }
    let mean = sum / f64::from(n) / MS;
    assert!((7.4 * 0.9..7.4 * 1.1).contains(&mean), "mean seek {mean} ms (HC310: 7.4 ms)");
    assert!(full > 1.7 * mean && full < 2.2 * mean);
}

#[test]
fn rotational_wait_averages_half_a_revolution() {
    let mut m = model(HC620_15TB_MODEL, "smr-hm-15tb");
    let mut rng = Rng(3);
    let cap = m.disk.capacity as u64;
    let n = 20_000;
    let mut sum = 0.0;
    for i in 0..n {
        let now = i * 1_234_567 + rng.below(10_000_000);
        let sector = rng.below(cap - 8);
        let seek = m.disk.seek(m.disk.pos(sector).r - m.head.r).round();
        sum += m.positioning(now, sector, false) as f64 - seek;
        m.head.r = m.disk.pos(rng.below(cap)).r;
    }
    let mean = sum / n as f64 / MS;
    assert!((4.0..4.35).contains(&mean), "mean rotational wait {mean} ms (8.33 ms/rev: 4.17 ms)");
}

/// Sequential writes of 1 MiB at queue depth 1 from `start`, the next one 10 µs after each
/// completion, for `ios` commands.
fn seq_writes(p: HddParams, profile_name: &str, start: u64, warm: u64, ios: u64) -> Stats {
    let mut m = model(p, profile_name);
    let mut next = start;
    let mut jobs = [Job {
        qd: 1,
        next: Box::new(move || {
            let s = next;
            next += 2048;
            (CommandKind::Write, s, 2048)
        }),
    }];
    testkit::run_warm(&mut m, &mut jobs, 10_000, warm, ios, u64::MAX)
}

#[test]
fn sequential_writes_stream_at_the_media_rate() {
    for (p, name) in [(HC620_15TB_MODEL, "smr-hm-15tb"), (SMR_30TB_MODEL, "smr-hm-30tb")] {
        let g = geometry(name);
        let first_seq = u64::from(g.nr_conv_zones) * g.zone_size;
        let last_zones = g.capacity - 32 * g.zone_size;
        let rate = |sector: u64, od: u64| {
            let f = sector as f64 / g.capacity as f64;
            let k = p.rate_id_bps as f64 / p.rate_od_bps as f64;
            od as f64 / 1e6 * (1.0 - f * (1.0 - k * k)).sqrt()
        };
        for wce in [false, true] {
            let p = HddParams { wce, ..p };
            // With the cache on, measure past the first fill of the cache (≈ 500 MiB written).
            let warm = if wce { 1000 } else { 0 };
            let od = seq_writes(p, name, first_seq, warm, 400);
            let id = seq_writes(p, name, last_zones, warm, 400);
            let (od_mb, id_mb) = (od.mb_s(), id.mb_s());
            eprintln!("{name} wce={wce}: OD {od_mb:.1} MB/s, ID {id_mb:.1} MB/s");
            let media_od = rate(first_seq, p.rate_od_bps);
            let media_id = rate(last_zones, p.rate_od_bps);
            // No revolution lost per command: at least 95 % of the media rate.
            assert!(od_mb > 0.95 * media_od && od_mb < 1.12 * media_od, "{name} wce={wce} OD {od_mb}");
            assert!(id_mb > 0.95 * media_id && id_mb < 1.3 * media_id, "{name} wce={wce} ID {id_mb}");
            if name == "smr-hm-30tb" {
                assert!((245.0 * 0.95..245.0 * 1.05).contains(&od_mb), "30 TB: {od_mb} MB/s, the commit's 245");
            }
        }
    }
}

#[test]
fn a_late_sequential_command_waits_for_its_sector() {
    let p = HddParams { wce: false, ..SMR_30TB_MODEL };
    let mut m = model(p, "smr-hm-30tb");
    let g = geometry("smr-hm-30tb");
    let s = u64::from(g.nr_conv_zones) * g.zone_size;
    let cmd = |id, sector| Command {
        id,
        kind: CommandKind::Write,
        sector,
        sectors: 2048,
        media_sectors: 2048,
        failed: false,
    };
    let mut out = Vec::new();
    m.submit(0, cmd(0, s));
    m.complete_until(u64::MAX / 2, &mut out);
    let end = out[0].at_ns;
    // 1 ms late: the sector has gone by; it comes back one revolution after it passed.
    m.submit(end + 1_000_000, cmd(1, s + 2048));
    m.complete_until(u64::MAX / 2, &mut out);
    let xfer = (m.disk.pos(s + 4096).phase - m.disk.pos(s + 2048).phase) * m.disk.rev_ns;
    let took = (out[1].at_ns - end) as f64;
    assert!((took - xfer - m.disk.rev_ns).abs() < 1_000.0, "took {took}, transfer {xfer}");
}

fn random_reads(p: HddParams, qd: u32, ios: u64) -> Stats {
    let mut m = model(p, "smr-hm-15tb");
    let cap = m.disk.capacity as u64;
    let mut rng = Rng(0x5eed + u64::from(qd));
    let mut jobs = [Job { qd, next: Box::new(move || (CommandKind::Read, rng.below(cap / 8) * 8, 8)) }];
    testkit::run(&mut m, &mut jobs, 0, ios, u64::MAX)
}

#[test]
fn satf_raises_random_read_iops_with_queue_depth() {
    let iops: Vec<f64> = [1, 4, 32].iter().map(|&qd| random_reads(HC620_15TB_MODEL, qd, 3000).iops()).collect();
    eprintln!("15 TB 4 KiB random reads, SATF: QD1 {:.0}, QD4 {:.0}, QD32 {:.0} IOPS", iops[0], iops[1], iops[2]);
    // seek 7.3 ms (mean over LBA pairs) + 4.17 ms + 0.1 ms overhead + 16 µs: ≈ 86 IOPS.
    assert!((75.0..92.0).contains(&iops[0]), "QD1 {}", iops[0]);
    assert!(iops[1] > 1.3 * iops[0], "QD4 {}", iops[1]);
    assert!(iops[2] > 1.5 * iops[1], "QD32 {}", iops[2]);
    assert!((180.0..250.0).contains(&iops[2]), "QD32 {}", iops[2]);
    let fifo = random_reads(HddParams { sched: Sched::Fifo, ..HC620_15TB_MODEL }, 32, 3000).iops();
    assert!((fifo - iops[0]).abs() < 0.1 * iops[0], "FIFO at QD32 is QD1: {fifo}");
}

/// Submit `cmds` (kind, sector, sectors) at time 0 (or `t_i`), run to the end, return the completions.
fn run_all(m: &mut HddModel, cmds: &[(u64, CommandKind, u64, u64)]) -> Vec<Done> {
    let mut out = Vec::new();
    for (i, &(t, kind, sector, sectors)) in cmds.iter().enumerate() {
        m.submit(t, Command { id: i as u64, kind, sector, sectors, media_sectors: sectors, failed: false });
    }
    while let Some(e) = m.next_event() {
        m.complete_until(e, &mut out);
    }
    assert_eq!(out.len(), cmds.len());
    out
}

#[test]
fn writes_to_one_zone_keep_their_order() {
    let g = geometry("smr-hm-15tb");
    let mut rng = Rng(11);
    for wce in [false, true] {
        let mut m = model(HddParams { wce, ..HC620_15TB_MODEL }, "smr-hm-15tb");
        let zones: Vec<u64> = (0..4).map(|_| 524 + rng.below(50_000)).collect();
        let mut cmds = Vec::new();
        let mut wp: Vec<u64> = zones.iter().map(|z| z * g.zone_size).collect();
        for i in 0..60 {
            let z = rng.below(4) as usize;
            if i % 3 == 0 {
                cmds.push((0, CommandKind::Read, rng.below(g.capacity / 8) * 8, 8));
            }
            cmds.push((0, CommandKind::Write, wp[z], 64));
            wp[z] += 64;
        }
        let out = run_all(&mut m, &cmds);
        let pos: HashMap<u64, usize> = out.iter().enumerate().map(|(i, d)| (d.id, i)).collect();
        for z in &zones {
            let mut last = None;
            for (i, c) in cmds.iter().enumerate() {
                if c.1 == CommandKind::Write && c.2 / g.zone_size == *z {
                    let p = pos[&(i as u64)];
                    assert!(last.is_none_or(|l| l < p), "wce={wce}: zone {z} write {i} completed out of order");
                    last = Some(p);
                }
            }
        }
    }
}

/// The 30 TB drive with a cache of 256 MiB (the profiles have 4 MiB), to see the cache work.
const BIG_CACHE_30TB: HddParams = HddParams { cache_bytes: 256 << 20, ..SMR_30TB_MODEL };

#[test]
fn write_cache_absorbs_writes_and_flush_waits_for_the_media() {
    let g = geometry("smr-hm-30tb");
    let s = u64::from(g.nr_conv_zones) * g.zone_size;
    let mut m = model(BIG_CACHE_30TB, "smr-hm-30tb");
    // 64 writes of 1 MiB at once, then a flush.
    let mut cmds: Vec<_> = (0..64).map(|i| (0, CommandKind::Write, s + i * 2048, 2048)).collect();
    cmds.push((0, CommandKind::Flush, 0, 0));
    let out = run_all(&mut m, &cmds);
    let at = |id: u64| out.iter().find(|d| d.id == id).unwrap().at_ns as f64;
    // Writes complete at the interface rate: 64 MiB at 550 MB/s, plus the overhead.
    let iface = 64.0 * 1_048_576.0 / 550e6 * 1e9;
    assert!((at(63) - iface - 100_000.0).abs() < 50_000.0, "last write {} ns", at(63));
    // The flush waits for 64 MiB to reach the media at ≈245 MB/s.
    let media = 64.0 * 1_048_576.0 / 245e6 * 1e9;
    assert!(at(64) > media && at(64) < media + 25e6, "flush at {} ns, media {media}", at(64));
    // A flush with nothing cached: the overhead only.
    let mut m = model(SMR_30TB_MODEL, "smr-hm-30tb");
    assert_eq!(run_all(&mut m, &[(0, CommandKind::Flush, 0, 0)])[0].at_ns, 100_000);
    // Without the cache, a write completes on the media, a flush after the overhead.
    let mut m = model(HddParams { wce: false, ..SMR_30TB_MODEL }, "smr-hm-30tb");
    let out = run_all(&mut m, &[(0, CommandKind::Write, s, 2048), (0, CommandKind::Flush, 0, 0)]);
    assert_eq!(out[0].id, 1);
    assert!(out[1].at_ns as f64 > 1_048_576.0 / 246e6 * 1e9);
}

#[test]
fn a_full_cache_paces_writes_at_the_media_rate() {
    let g = geometry("smr-hm-30tb");
    let s = u64::from(g.nr_conv_zones) * g.zone_size;
    // 2000 MiB at QD1: writes go at the interface rate (≈520 MB/s with the overhead and the host
    // gap) while the cache fills at that rate less the media rate, then at the media rate.
    let st = seq_writes(BIG_CACHE_30TB, "smr-hm-30tb", s, 0, 2000);
    let total = 2000.0 * 1_048_576.0;
    let (host, media) = (1_048_576.0 / (1_048_576.0 / 550e6 + 110e-6), 245e6);
    let fill_time = 256.0 * 1_048_576.0 / (host - media);
    let expect = total / (fill_time + (total - fill_time * host) / media) / 1e6;
    assert!((st.mb_s() - expect).abs() < 0.05 * expect, "{} MB/s, expected ≈{expect}", st.mb_s());
}

/// Writes of 1 MiB to two zones in turn (`pairs` each), submitted at once, then a flush: when the
/// flush completes.
fn two_zones_in_turn(p: HddParams, pairs: u64) -> u64 {
    let g = geometry("smr-hm-30tb");
    let (a, b) = (u64::from(g.nr_conv_zones) * g.zone_size, (u64::from(g.nr_conv_zones) + 5000) * g.zone_size);
    let mut cmds = Vec::new();
    for i in 0..pairs {
        cmds.push((0, CommandKind::Write, a + i * 2048, 2048));
        cmds.push((0, CommandKind::Write, b + i * 2048, 2048));
    }
    cmds.push((0, CommandKind::Flush, 0, 0));
    let mut m = model(p, "smr-hm-30tb");
    let out = run_all(&mut m, &cmds);
    out.iter().find(|d| d.id == 2 * pairs).unwrap().at_ns
}

#[test]
fn the_cache_gathers_each_zone_s_writes_up_to_its_size() {
    // 2 × 48 MiB in a 256 MiB cache: each zone's writes join one extent whatever their order
    // (but the one being destaged), so the media sees a few long runs: a few positionings
    // (≈ 10 ms each, a long seek between the two zones).
    let media = 96.0 * 1_048_576.0 / 245e6 * 1e9;
    let big = two_zones_in_turn(BIG_CACHE_30TB, 48) as f64;
    eprintln!("two zones in turn, 96 MiB: media {:.0} ms, 256 MiB cache {:.0} ms", media / 1e6, big / 1e6);
    assert!(big > media && big < media + 80e6, "256 MiB cache: flush at {big} ns, media alone {media}");
    // The profile's 4 MiB gathers a few MiB per zone at a time: a positioning (a long seek
    // between the two zones, ≈ 10 ms) every few MiB.
    let small = two_zones_in_turn(SMR_30TB_MODEL, 48) as f64;
    eprintln!("4 MiB cache {:.0} ms", small / 1e6);
    let switches = (small - media) / 10e6;
    assert!((10.0..60.0).contains(&switches), "4 MiB cache: flush at {small} ns, ≈{switches} positionings");
}

#[test]
fn zone_commands_failures_and_reads_above_the_write_pointer() {
    let mut m = model(HC620_15TB_MODEL, "smr-hm-15tb");
    let zs = geometry("smr-hm-15tb").zone_size;
    let mut out = Vec::new();
    let c = |id, kind, sectors, media_sectors, failed| Command {
        id,
        kind,
        sector: 600 * zs,
        sectors,
        media_sectors,
        failed,
    };
    m.submit(0, c(0, CommandKind::ZoneMgmt(ZoneOp::Reset), zs, zs, false));
    m.submit(0, c(1, CommandKind::Write, 8, 8, true));
    m.submit(0, c(2, CommandKind::Read, 2048, 0, false));
    while let Some(e) = m.next_event() {
        m.complete_until(e, &mut out);
    }
    let at = |id| out.iter().find(|d| d.id == id).unwrap().at_ns;
    assert_eq!(at(0), 100_000 + 1_000_000, "overhead + zone management");
    assert_eq!(at(1), 100_000, "a failed command: the overhead only");
    let fill = (1_048_576.0 / 550e6 * 1e9_f64).round() as u64;
    assert_eq!(at(2), 100_000 + fill, "above the write pointer: no media access");
    // A read half above the write pointer is faster than a full one.
    let mut a = model(HddParams { wce: false, ..HC620_15TB_MODEL }, "smr-hm-15tb");
    let mut b = model(HddParams { wce: false, ..HC620_15TB_MODEL }, "smr-hm-15tb");
    a.submit(0, c(0, CommandKind::Read, 65536, 65536, false));
    b.submit(0, c(0, CommandKind::Read, 65536, 1024, false));
    let (mut oa, mut ob) = (Vec::new(), Vec::new());
    a.complete_until(u64::MAX / 2, &mut oa);
    b.complete_until(u64::MAX / 2, &mut ob);
    assert!(ob[0].at_ns * 2 < oa[0].at_ns, "{:?} {:?}", ob, oa);
}

#[test]
fn ncq_depth_bounds_the_drive_queue() {
    let p = HddParams { ncq_depth: 2, wce: false, ..HC620_15TB_MODEL };
    let mut m = model(p, "smr-hm-15tb");
    let mut rng = Rng(5);
    let cap = m.disk.capacity as u64;
    let cmds: Vec<_> = (0..10).map(|_| (0, CommandKind::Read, rng.below(cap / 8) * 8, 8)).collect();
    for (i, &(t, kind, sector, sectors)) in cmds.iter().enumerate() {
        m.submit(t, Command { id: i as u64, kind, sector, sectors, media_sectors: sectors, failed: false });
    }
    assert_eq!((m.queue.len(), m.overflow.len()), (2, 8));
    let mut out = Vec::new();
    while let Some(e) = m.next_event() {
        m.complete_until(e, &mut out);
        assert!(m.queue.len() <= 2);
    }
    assert_eq!(out.len(), 10);
}
