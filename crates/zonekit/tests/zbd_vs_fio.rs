//! `zonemode=zbd` (and `strided`) side by side with real fio 3.33 on the same regular file with
//! emulated zones: the same size-bounded jobs with a fixed seed give the same I/O counts and bytes,
//! and zone-reset counts within 10 % (fio's random offsets differ from zonekit's until the second
//! fio-compatibility round brings fio's generators; `bench/zbd-vs-fio.sh` prints the same table).
//!
//! Needs `fio`; without it the test says so and passes, unless `ZONEKIT_REQUIRE_FIO=1` (CI sets it).

use std::path::Path;
use std::process::Command;

fn have_fio() -> bool {
    let ok = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var("ZONEKIT_REQUIRE_FIO").is_err(), "fio is required (ZONEKIT_REQUIRE_FIO is set)");
        eprintln!("fio not installed: skipping the comparison");
    }
    ok
}

/// What a run's normal output says: per job block, issued (read, write, trim) and zone resets.
#[derive(Debug, PartialEq)]
struct Outcome {
    issued: Vec<[u64; 3]>,
    resets: u64,
}

fn parse(text: &str) -> Outcome {
    let mut issued = Vec::new();
    let mut resets = 0;
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("issued rwts: total=") {
            let nums: Vec<u64> = rest.split(' ').next().unwrap().split(',').map(|n| n.parse().unwrap()).collect();
            issued.push([nums[0], nums[1], nums[2]]);
        }
        if let Some(i) = line.find(" zone resets") {
            let head = &line[..i];
            let n = head.rsplit(' ').next().unwrap();
            resets += n.parse::<u64>().unwrap();
        }
    }
    Outcome { issued, resets }
}

fn run(program: &str, args: &[String], file: &Path) -> Outcome {
    let mut cmd = Command::new(program);
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    // Global options first, so that they apply to every job of the case.
    let o = cmd.arg(format!("--filename={}", file.display())).arg("--randseed=42").args(args).output().expect("run");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{program} {args:?}: {}{out}", String::from_utf8_lossy(&o.stderr));
    parse(&out)
}

fn compare(file: &Path, args: &str) {
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let args: Vec<String> = args.split_whitespace().map(String::from).collect();
    let f = run("fio", &args, file);
    let z = run(zonekit, &args, file);
    eprintln!("{args:?}: fio {f:?} zonekit {z:?}");
    assert_eq!(f.issued, z.issued, "{args:?}: I/Os issued (read, write, trim)");
    let tolerance = (f.resets as f64 * 0.10).floor() as u64;
    assert!(
        f.resets.abs_diff(z.resets) <= tolerance,
        "{args:?}: zone resets fio {} zonekit {} (more than 10 % apart)",
        f.resets,
        z.resets
    );
}

#[test]
fn zoned_jobs_match_fio() {
    if !have_fio() {
        return;
    }
    let base = if Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" };
    let dir = tempfile::tempdir_in(base).unwrap();
    let file = dir.path().join("zoned.img");
    std::fs::File::create(&file).unwrap().set_len(1 << 30).unwrap();
    let z = "--name=z --zonemode=zbd --zonesize=64M";
    for case in [
        // Sequential writes over 8 zones, then again (each zone reset on the second pass).
        format!("{z} --size=512M --rw=write --bs=128k --io_size=1G"),
        // Random writes into at most 8 zones at a time.
        format!("{z} --size=512M --rw=randwrite --bs=4k --max_open_zones=8 --io_size=1G"),
        // Four jobs sharing the zones (and the write set), an asynchronous engine.
        format!(
            "{z} --size=512M --rw=randwrite --bs=16k --numjobs=4 --io_size=512M --group_reporting --max_open_zones=4 --ioengine=libaio --iodepth=8"
        ),
        // Threshold/frequency resets.
        format!(
            "{z} --size=256M --rw=randwrite --bs=64k --io_size=2G --zone_reset_frequency=0.25 --zone_reset_threshold=0.5"
        ),
        // Reads beyond the write pointers (emulated zones start empty).
        format!("{z} --size=256M --rw=randread --bs=64k --read_beyond_wp=1"),
        // Reads of empty zones: no I/O at all.
        format!("{z} --size=256M --rw=randread --bs=64k"),
        // Zone capacity below the zone size.
        format!("{z} --zonecapacity=48M --size=512M --rw=write --bs=64k --io_size=1G"),
        // A block size that leaves a tail in each zone (reset, as fio 3.33 does).
        format!("{z} --size=256M --rw=randwrite --bs=48k --io_size=512M"),
        // A block size that leaves a tail, io_size beyond size: each write resets the zone it
        // leaves. fio counts a pass's bytes only for I/Os an engine queues, so a synchronous job
        // writes 7 blocks and an asynchronous one 6 (t/zbd 33).
        format!("{z} --size=128M --rw=write --bs=48M --io_size=320M"),
        format!("{z} --size=128M --rw=write --bs=48M --io_size=320M --ioengine=libaio"),
        // Reads of empty zones with io_size beyond size: a pass that reads nothing ends the job.
        format!("{z} --size=256M --io_size=512M --rw=read --bs=64k"),
        // A sequential writer starting in a zone a first job wrote part of: one write fills the
        // zone, and the job ends there (t/zbd 37 without verify's zone resets).
        "--zonemode=zbd --zonesize=64M --name=a --rw=write --bs=16M --size=64M --io_size=48M --name=b --wait_for=a --rw=write --bs=16M --size=64M".to_string(),
        "--zonemode=zbd --zonesize=64M --ioengine=libaio --name=a --rw=write --bs=16M --size=64M --io_size=48M --name=b --wait_for=a --rw=write --bs=16M --size=64M".to_string(),
        // Unaligned range: rounded to zone boundaries.
        format!("{z} --offset=1M --size=200M --rw=write --bs=1M"),
        // zonemode=strided.
        "--name=s --zonemode=strided --zonesize=1M --zonerange=8M --zoneskip=2M --size=256M --rw=read --bs=64k"
            .to_string(),
        "--name=s --zonemode=strided --zonesize=2M --zonerange=4M --size=64M --rw=randread --bs=4k".to_string(),
    ] {
        compare(&file, &case);
    }
}
