//! The scenarios of the "Benchmarking Zoned Block Devices" guide (zonedstorage.io: fio's zone mode
//! on a 15 TB host-managed SMR disk; each test below names the guide's command and the behaviour
//! it shows), in order, on one persistent 15 TB host-managed SMR disk made with
//! `zonekit dev create DIR --profile smr-hm-15tb --data none` (the guide's `/dev/sdd`: 55,880 zones
//! of 256 MiB, zones 0–523 conventional, at most 128 open zones), with `--filename=DIR` in place of
//! `--filename=/dev/sdd` and every other option as the guide gives it. State carries over from one
//! scenario to the next, as on the guide's disk.
//!
//! Each scenario checks the behaviour of its table row: the I/Os issued, the zone resets, the depth
//! distribution, the error of scenario 2 and the zone conditions afterwards (from `zonekit zone
//! report`). The profile's timing model runs them in simulated time, so the time-based scenarios
//! (7–10) run the guide's full 30 s; each scenario's figures are logged (`--no-capture`) for
//! `docs/models.md`, which compares them with what the drive's mechanics predict.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ZONEKIT: &str = env!("CARGO_BIN_EXE_zonekit");

/// Byte offset of the first sequential zone (zone 524, sector 274726912).
const FIRST_SEQ: u64 = 140_660_178_944;
/// Sector of the first sequential zone.
const FIRST_SEQ_SECTOR: u64 = FIRST_SEQ / 512;
/// Zone size in sectors (256 MiB).
const ZONE_SECTORS: u64 = 524_288;
/// The device's open-zone limit.
const MAX_OPEN: u64 = 128;
/// The time-based scenarios run the guide's 30 s, in simulated time (the profile's timing model).
const SHORT_RUNTIME: &str = "--runtime=30";

struct Disk {
    dir: PathBuf,
    _tmp: tempfile::TempDir,
}

/// What a command printed and how it ended.
struct Ran {
    code: i32,
    out: String,
    err: String,
}

impl Ran {
    fn text(&self) -> String {
        format!("exit {}\n--- stdout\n{}--- stderr\n{}", self.code, self.out, self.err)
    }

    /// `issued rwts: total=R,W,T,…` of the (group-reported) job block: reads, writes, trims.
    fn issued(&self) -> Option<[u64; 3]> {
        let line = self.out.lines().find(|l| l.trim_start().starts_with("issued rwts: total="))?;
        let nums: Vec<u64> =
            line.split("total=").nth(1)?.split(' ').next()?.split(',').map(|n| n.parse().unwrap()).collect();
        Some([nums[0], nums[1], nums[2]])
    }

    /// The `; N zone resets` of the job's write line.
    fn zone_resets(&self) -> Option<u64> {
        let line = self.out.lines().find(|l| l.trim_start().starts_with("write:"))?;
        line.rsplit_once("; ")?.1.strip_suffix(" zone resets")?.parse().ok()
    }

    /// The `read:`/`write:` and `clat` lines of the job block, for the log.
    fn figures(&self) -> String {
        self.out
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                t.starts_with("read:") || t.starts_with("write:") || t.starts_with("clat (")
            })
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" | ")
    }

    /// The `IO depths    :` line, from its first bucket.
    fn depths(&self) -> String {
        self.out
            .lines()
            .find(|l| l.trim_start().starts_with("IO depths"))
            .map_or(String::new(), |l| l.split_once(": ").map_or("", |(_, v)| v).trim().to_string())
    }
}

fn run(args: &[&str]) -> Ran {
    let o: Output = Command::new(ZONEKIT).args(args).output().expect("run zonekit");
    let ran = Ran {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!ran.err.contains("panicked"), "zonekit panicked: {args:?}\n{}", ran.text());
    ran
}

impl Disk {
    fn create() -> Disk {
        let base = if Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" };
        let tmp = tempfile::tempdir_in(base).unwrap();
        let dir = tmp.path().join("sdd");
        let r = run(&["dev", "create", dir.to_str().unwrap(), "--profile", "smr-hm-15tb", "--data", "none"]);
        assert_eq!(r.code, 0, "{}", r.text());
        Disk { dir, _tmp: tmp }
    }

    fn path(&self) -> &str {
        self.dir.to_str().unwrap()
    }

    /// `zonekit bench` with the guide's options and `--filename=DIR`.
    fn bench(&self, args: &str) -> Ran {
        let filename = format!("--filename={}", self.path());
        let mut all = vec!["bench"];
        all.extend(args.split_whitespace().map(|a| if a == "--filename=/dev/sdd" { filename.as_str() } else { a }));
        run(&all)
    }

    /// `zonekit zone CMD DIR ARGS…`, which must succeed.
    fn zone(&self, cmd: &str, args: &[&str]) -> String {
        let mut all = vec!["zone", cmd, self.path()];
        all.extend(args);
        let r = run(&all);
        assert_eq!(r.code, 0, "zone {cmd} {args:?}: {}", r.text());
        r.out
    }

    /// How many zones have condition `cond` (`zonekit zone report --cond C --count-only`).
    fn count(&self, cond: &str) -> u64 {
        self.zone("report", &["--cond", cond, "--count-only"]).trim().parse().unwrap()
    }

    /// (condition, write pointer sector) of zone `idx`.
    fn zone_state(&self, idx: u64) -> (String, u64) {
        let out = self.zone("report", &["--format", "json", "-o", &(idx * ZONE_SECTORS).to_string(), "-c", "1"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let z = &v["zones"][0];
        (z["cond"].as_str().unwrap().to_string(), z["wp"].as_u64().unwrap())
    }

    /// Bytes below the write pointers of zones `range` (data the zones hold).
    fn data_bytes(&self, first: u64, count: u64) -> u64 {
        let out = self
            .zone("report", &["--format", "json", "-o", &(first * ZONE_SECTORS).to_string(), "-c", &count.to_string()]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["zones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|z| {
                let (start, wp, cond) =
                    (z["start"].as_u64().unwrap(), z["wp"].as_u64().unwrap(), z["cond"].as_str().unwrap());
                if cond == "full" { ZONE_SECTORS * 512 } else { (wp - start) * 512 }
            })
            .sum()
    }
}

fn ok(r: &Ran, what: &str) {
    eprintln!("{what}: {}", r.figures());
    assert_eq!(r.code, 0, "{what}: {}", r.text());
}

/// Scenario 1's command line (the guide's, with `/dev/sdd`).
const S1: &str = "--name=zbc --filename=/dev/sdd --direct=1 --zonemode=zbd --offset=140660178944 --size=1G \
                  --ioengine=libaio --iodepth=8 --rw=write --bs=256K";
/// Scenario 7's.
const S7: &str = "--name=zbc --filename=/dev/sdd --direct=1 --zonemode=zbd --offset=140660178944 --numjobs=4 \
                  --group_reporting=1 --ioengine=libaio --iodepth=4 --rw=randwrite --bs=256K";

#[test]
fn the_guides_scenarios_in_order_on_one_persistent_smr_disk() {
    let disk = Disk::create();
    let first = FIRST_SEQ_SECTOR / ZONE_SECTORS;
    assert_eq!(first, 524);

    // 1: 1 GiB of sequential writes from the first sequential zone, libaio at depth 8.
    let r = disk.bench(S1);
    ok(&r, "scenario 1");
    assert_eq!(r.issued(), Some([0, 4096, 0]), "scenario 1: 4096 writes\n{}", r.text());
    assert_eq!(r.zone_resets(), Some(0), "scenario 1\n{}", r.text());
    // The guide's kernel (mq-deadline zone write locking) showed 8=99.8%. With zone write
    // plugging (Linux 6.10+), the seven writes that wait behind the one in flight are merged into
    // requests of up to max_sectors_kb (1280 KiB: five 256 KiB writes), which complete together;
    // fio still reaps them one at a time (iodepth_batch_complete_max is 1), refilling to 8 after
    // each, so the distribution is the guide's.
    assert!(r.depths().starts_with("1=0.1%, 2=0.1%, 4=0.1%, 8=99.8%"), "scenario 1 depths: {}", r.depths());
    // The disk's own statistics, as fio prints /dev/sdd's, with the model's time spent.
    assert!(r.out.contains("zonekit: simulated clock, model smr-hdd\n"), "scenario 1 clock\n{}", r.text());
    assert!(
        r.out.contains("Disk stats (read/write):\n  sdd: ios=0/4096, merge=0/0, ticks=0/"),
        "scenario 1 disk stats\n{}",
        r.text()
    );
    assert!(!r.out.contains("util=0.00%"), "scenario 1: the disk was busy\n{}", r.text());
    for z in 524..528 {
        assert_eq!(disk.zone_state(z), ("full".to_string(), (z + 1) * ZONE_SECTORS), "scenario 1: zone {z}");
    }
    assert_eq!(disk.zone_state(528), ("empty".to_string(), 528 * ZONE_SECTORS));
    eprintln!("1: issued {:?}, {:?} zone resets, IO depths {}", r.issued(), r.zone_resets(), r.depths());

    // 2: the same without --zonemode=zbd on full zones: the first write fails as the disk fails it.
    let r = disk.bench(&S1.replace("--zonemode=zbd ", ""));
    assert_eq!(r.code, 1, "scenario 2 fails\n{}", r.text());
    let all = format!("{}{}", r.out, r.err);
    assert!(
        all.contains(&format!(
            "io_u error on file {}: Remote I/O error: write offset=140660178944, buflen=262144",
            disk.path()
        )),
        "scenario 2 error\n{}",
        r.text()
    );
    assert!(r.out.contains("err=121"), "scenario 2: err=121\n{}", r.text());
    assert!(!r.out.contains("WRITE:"), "scenario 2: nothing written\n{}", r.text());
    assert_eq!(disk.data_bytes(524, 5), 1 << 30, "scenario 2 changed nothing");

    // 3: scenario 1 again: each full zone is reset before it is written.
    let r = disk.bench(S1);
    ok(&r, "scenario 3");
    assert_eq!(r.issued(), Some([0, 4096, 0]), "scenario 3\n{}", r.text());
    assert_eq!(r.zone_resets(), Some(4), "scenario 3\n{}", r.text());
    assert_eq!(disk.count("full"), 4);
    eprintln!("3: issued {:?}, {:?} zone resets", r.issued(), r.zone_resets());

    // 4: reading them back.
    let s4 = S1.replace("--rw=write", "--rw=read");
    let r = disk.bench(&s4);
    ok(&r, "scenario 4");
    assert_eq!(r.issued(), Some([4096, 0, 0]), "scenario 4\n{}", r.text());

    // 5: after a reset of the four zones, a read job finds nothing to read: no I/O at all.
    disk.zone("reset", &["-o", "274726912", "-l", "2097152"]);
    assert_eq!(disk.data_bytes(524, 4), 0);
    let r = disk.bench(&s4);
    ok(&r, "scenario 5");
    assert!(r.out.contains("Run status group 0 (all jobs):"), "scenario 5\n{}", r.text());
    assert!(
        !r.out.contains("READ:") && !r.out.contains("read:") && r.issued().is_none(),
        "scenario 5: no read I/O\n{}",
        r.text()
    );
    assert!(
        r.out.contains("  sdd: ios=0/0, merge=0/0, ticks=0/0, in_queue=0, util=0.00%"),
        "scenario 5: disk stats of zero\n{}",
        r.text()
    );

    // 6: with read_beyond_wp=1 the reads happen (of unwritten sectors).
    let r = disk.bench(&format!("{s4} --read_beyond_wp=1"));
    ok(&r, "scenario 6");
    assert_eq!(r.issued(), Some([4096, 0, 0]), "scenario 6\n{}", r.text());

    // 7: random writes from 4 jobs over every sequential zone. fio 3.33 takes the disk's open limit
    // as its max_open_zones: 128 zones are written, all stay implicitly open, none fills.
    let r = disk.bench(&format!("{S7} {SHORT_RUNTIME}"));
    ok(&r, "scenario 7");
    assert_eq!(r.zone_resets(), Some(0), "scenario 7\n{}", r.text());
    let writes = r.issued().unwrap()[1];
    assert!(writes >= 4 * MAX_OPEN, "scenario 7 wrote {writes} blocks: too few to open 128 zones\n{}", r.text());
    assert_eq!((disk.count("full"), disk.count("imp_open"), disk.count("closed")), (0, MAX_OPEN, 0), "scenario 7");
    eprintln!("7: {writes} writes, 0 zone resets; full 0, imp_open {MAX_OPEN}, closed 0");

    // 7, as the guide ran it (fio 3.13, no limit of its own): the disk closes implicitly open zones
    // to stay within its limit, leaving 128 open and thousands closed.
    let r = disk.bench(&format!("{S7} {SHORT_RUNTIME} --ignore_zone_limits=1"));
    ok(&r, "scenario 7 without zone limits");
    assert_eq!(r.zone_resets(), Some(0), "scenario 7b\n{}", r.text());
    let (full, open, closed) = (disk.count("full"), disk.count("imp_open"), disk.count("closed"));
    assert_eq!((full, open), (0, MAX_OPEN), "scenario 7b");
    assert!(closed >= 1000, "scenario 7b: {closed} closed zones\n{}", r.text());
    eprintln!(
        "7 (ignore_zone_limits=1): {} writes; full {full}, imp_open {open}, closed {closed}",
        r.issued().unwrap()[1]
    );

    // 8: random reads, only of written sectors: they happen.
    let s8 = S7.replace("--rw=randwrite", "--rw=randread");
    let r = disk.bench(&format!("{s8} {SHORT_RUNTIME}"));
    ok(&r, "scenario 8");
    let reads = r.issued().unwrap()[0];
    assert!(reads > 0, "scenario 8\n{}", r.text());
    eprintln!("8: {reads} reads");

    // 9: after resetting every sequential zone, nothing is readable.
    disk.zone("reset", &["-o", "274726912"]);
    assert_eq!((disk.count("imp_open"), disk.count("closed"), disk.count("full")), (0, 0, 0), "scenario 9 reset");
    let r = disk.bench(&format!("{s8} {SHORT_RUNTIME}"));
    ok(&r, "scenario 9");
    assert!(!r.out.contains("READ:") && r.issued().is_none(), "scenario 9: no read I/O\n{}", r.text());

    // 10: the conventional zones read normally.
    let s10 = s8.replace("--offset=140660178944", "--offset=0 --size=140660178944");
    let r = disk.bench(&format!("{s10} {SHORT_RUNTIME}"));
    ok(&r, "scenario 10");
    assert!(r.issued().unwrap()[0] > 0, "scenario 10\n{}", r.text());

    // 11: 8 jobs writing 1 GiB each into the same four zones, synchronously (sg). Every zone reset
    // is of a full zone, so resets = (bytes written + data held before - data held after) / zone.
    // Scenario 9 left the four zones empty: the first fill of each needs no reset, and 8 GiB into
    // four empty zones gives 28 resets. The guide's 32 are those of four zones full beforehand
    // (as after scenario 3), which the second run shows.
    let s11 = "--name=zbc --filename=/dev/sdd --direct=1 --zonemode=zbd --offset=140660178944 --size=1G \
               --numjobs=8 --group_reporting=1 --ioengine=sg --rw=randwrite --bs=64K";
    for run in 0..2 {
        let before = disk.data_bytes(524, 4);
        let r = disk.bench(s11);
        ok(&r, "scenario 11");
        assert_eq!(r.issued(), Some([0, 131072, 0]), "scenario 11\n{}", r.text());
        assert!(r.depths().starts_with("1=100.0%"), "scenario 11 depth: {}", r.depths());
        let after = disk.data_bytes(524, 4);
        let resets = r.zone_resets().unwrap();
        assert_eq!(resets * (256 << 20), (8u64 << 30) + before - after, "scenario 11: resets {resets}\n{}", r.text());
        let want = if run == 0 { 28 } else { 32 };
        eprintln!("11 (run {run}): issued {:?}, {resets} zone resets, data before {before}, after {after}", r.issued());
        if after == 1 << 30 {
            assert_eq!(resets, want, "scenario 11 run {run}");
        }
    }

    // 12: four write streams (streams.fio), each filling whole zones in its own quarter of the disk.
    let job = disk.dir.parent().unwrap().join("streams.fio");
    let quarters = [140660178944u64, 3855538454528, 7570416730112, 11285295005696];
    let mut text = format!(
        "[global]\nioengine=psync\ndirect=1\nthread=1\nbs=512K\ncontinue_on_error=none\nfilename={}\ngroup_reporting=1\nzonemode=zbd\n",
        disk.path()
    );
    for (i, q) in quarters.iter().enumerate() {
        text.push_str(&format!(
            "\n[stream{}]\noffset={q}\nsize=3714878275584\nrw=randwrite:512\nrw_sequencer=sequential\nio_size=2G\n",
            i + 1
        ));
    }
    std::fs::write(&job, text).unwrap();
    let zones_per_quarter = 3714878275584 / 512 / ZONE_SECTORS;
    let quarter_data = || -> Vec<u64> {
        quarters.iter().map(|q| disk.data_bytes(q / 512 / ZONE_SECTORS, zones_per_quarter)).collect()
    };
    let (data_before, full_before) = (quarter_data(), disk.count("full"));
    let r = run(&["bench", job.to_str().unwrap()]);
    ok(&r, "scenario 12");
    assert_eq!(r.issued(), Some([0, 16384, 0]), "scenario 12\n{}", r.text());
    assert_eq!(r.zone_resets(), Some(0), "scenario 12\n{}", r.text());
    assert_eq!(disk.count("full"), full_before + 32, "scenario 12: 4 streams × 8 whole zones");
    assert_eq!(disk.count("imp_open") + disk.count("closed"), 0, "scenario 12: no partly written zone");
    for (i, (after, before)) in quarter_data().iter().zip(data_before).enumerate() {
        assert_eq!(after - before, 2 << 30, "scenario 12: stream {} writes its 2 GiB in its own quarter", i + 1);
    }
}
