//! End-to-end tests of the `zonekit` command: output formats, ranges, errors and exit codes.

use std::path::Path;
use std::process::{Command, Output};

fn zonekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).args(args).output().expect("run zonekit")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A failure: the exit code, and exactly one stderr line starting `zonekit: ` that contains `needle`.
#[track_caller]
fn assert_fails(o: &Output, code: i32, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(err.starts_with("zonekit: "), "{err:?}");
    assert!(err.contains(needle), "{err:?} should contain {needle:?}");
}

#[test]
fn report_of_the_15tb_disk_lists_every_zone() {
    let o = zonekit(&["zone", "report", "@smr-hm-15tb"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 55_880);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[523],
        "  start: 0x010580000, len 0x080000, cap 0x080000, wptr 0x000000 reset:0 non-seq:0, zcond: 0(nw) [type: 1(CONVENTIONAL)]"
    );
    // The first sequential zone starts at sector 274,726,912, as on the real drive.
    assert_eq!(
        lines[524],
        "  start: 0x010600000, len 0x080000, cap 0x080000, wptr 0x000000 reset:0 non-seq:0, zcond: 1(em) [type: 2(SEQ_WRITE_REQUIRED)]"
    );
    assert!(lines[55_879].starts_with(&format!("  start: 0x{:09x}, len 0x080000", 55_879u64 * 524_288)));
}

#[test]
fn report_ranges_follow_blkzone() {
    let count = |args: &[&str]| {
        let mut a = vec!["zone", "report", "@smr-hm-15tb"];
        a.extend_from_slice(args);
        let o = zonekit(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o).lines().count()
    };
    assert_eq!(count(&["-c", "10"]), 10);
    assert_eq!(count(&["-o", "274726912", "-c", "3"]), 3);
    // -l counts ceil(length / zone size) zones from the zone holding -o.
    assert_eq!(count(&["-o", "1000", "-l", "524289"]), 2);
    assert_eq!(count(&["-l", "256M"]), 1);
    assert_eq!(count(&["-o", "29297213439"]), 1);
    assert_eq!(count(&["--cond", "nw"]), 524);
    assert_eq!(count(&["--cond", "em,fu"]), 55_356);
    let o = zonekit(&["zone", "report", "@smr-hm-15tb", "--cond", "not_wp", "--count-only"]);
    assert_eq!(stdout(&o), "524\n");
    let o = zonekit(&["zone", "report", "@smr-hm-15tb", "--count-only", "-c", "600", "--cond", "empty"]);
    assert_eq!(stdout(&o), "76\n");
}

#[test]
fn zbc_format_has_libzbc_header() {
    let o = zonekit(&["zone", "report", "@smr-hm-15tb", "--format", "zbc", "-o", "274726912", "-c", "1"]);
    assert!(o.status.success());
    let expected = "\
Device @smr-hm-15tb:
    Vendor ID: WDC HSH721415AL (emulated)
    SCSI (zonekit emulation) interface, Host-managed zone model
    29297213440 512-bytes sectors
    3662151680 logical blocks of 4096 B
    3662151680 physical blocks of 4096 B
    15000.173 GB capacity
    Read commands are unrestricted
    1024 KiB max R/W size
    Maximum number of open sequential write required zones: 128
    Zone Domains command set is NOT supported
    Zone Realms command set is NOT supported
    Zone operation counts are NOT supported
    55356 zones from 274726912, reporting option 0x00
1 / 55356 zone:
Zone 00000: type 0x2 (Sequential-write-required), cond 0x1 (Empty), reset recommended 0, non_seq 0, sector 274726912, 524288 sectors, wp 274726912
";
    assert_eq!(stdout(&o), expected);
}

#[test]
fn json_format_parses() {
    let o = zonekit(&["zone", "report", "@zns-small", "--format", "json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    assert_eq!(v["device"]["personality"], "zns");
    assert_eq!(v["device"]["zone_size"], 8192);
    assert_eq!(v["device"]["zone_capacity"], 6144);
    assert_eq!(v["device"]["max_open_zones"], 4);
    assert_eq!(v["device"]["max_append_sectors"], 1024);
    let zones = v["zones"].as_array().unwrap();
    assert_eq!(zones.len(), 16);
    assert_eq!(zones[1]["start"], 8192);
    assert_eq!(zones[1]["cond"], "empty");
    assert_eq!(zones[1]["type"], "seq_write_required");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    assert_fails(&zonekit(&["zone", "report", "@nope"]), 2, "unknown profile 'nope'");
    assert_fails(&zonekit(&["zone", "report", "/no/such/device"]), 2, "/no/such/device: no such file or directory");
    assert_fails(&zonekit(&["zone", "report", "@nullb-small", "-o", "abc"]), 2, "invalid size 'abc'");
    assert_fails(&zonekit(&["zone", "report", "@nullb-small", "-o", "1000b"]), 2, "not a multiple of 512");
    assert_fails(&zonekit(&["zone", "report", "@nullb-small", "-o", "131072"]), 2, "past the end");
    assert_fails(&zonekit(&["zone", "report", "@nullb-small", "-l", "8", "-c", "1"]), 2, "cannot be used with");
    assert_fails(&zonekit(&["zone", "report", "@nullb-small", "--cond", "bogus"]), 2, "unknown zone condition");
    assert_fails(
        &zonekit(&["zone", "reset", "@nullb-small", "-o", "100"]),
        2,
        "offset 100 sectors (50 KiB) is not aligned to zone size 8192 sectors (4 MiB)",
    );
    assert_fails(
        &zonekit(&["zone", "reset", "@nullb-small", "-o", "8192", "-l", "100"]),
        2,
        "not aligned to zone size",
    );
    assert_fails(&zonekit(&["zone", "open", "@nullb-small", "-o", "999999999"]), 2, "past the end");
    assert_fails(&zonekit(&["zone", "frobnicate", "@nullb-small"]), 2, "unrecognized subcommand");
    assert_fails(&zonekit(&["profiles", "--bogus"]), 2, "unexpected argument");
    let f = tempfile::NamedTempFile::new().unwrap();
    f.as_file().set_len(1 << 20).unwrap();
    let p = f.path().to_str().unwrap();
    assert_fails(&zonekit(&["zone", "report", p]), 2, "not a zoned block device");
    assert_fails(
        &zonekit(&["zone", "report", p, "--zone-size", "4M"]),
        2,
        "are fewer than --zone-size 4M (8192 sectors)",
    );
    assert_fails(&zonekit(&["zone", "report", p, "--zone-size", "12q"]), 2, "invalid size '12q'");
}

#[test]
fn zone_rule_failures_are_exit_1_with_errno() {
    assert_fails(&zonekit(&["zone", "reset", "@nullb-small", "-c", "1"]), 1, "conventional zone (EIO)");
    // Linux 6.10+ fails a reset of a conventional zone in the block layer: EIO on SCSI too.
    assert_fails(&zonekit(&["zone", "reset", "@zbc-small", "-c", "1"]), 1, "conventional zone (EIO)");
    assert_fails(
        &zonekit(&["zone", "write", "@nullb-small", "-o", "8200", "-l", "8"]),
        1,
        "write not at the write pointer (EIO)",
    );
    // An empty zone has no plug: the write reaches the disk, which refuses it with its errno.
    assert_fails(&zonekit(&["zone", "write", "@zbc-small", "-o", "8200", "-l", "8"]), 1, "(EREMOTEIO)");
    assert_fails(
        &zonekit(&["zone", "close", "@nullb-small", "-o", "8192", "-c", "1"]),
        1,
        "invalid zone state transition (EIO)",
    );
    // ZBC closes an empty zone without complaint, as scsi_debug does.
    assert!(zonekit(&["zone", "close", "@zbc-small", "-o", "8192", "-c", "1"]).status.success());
}

#[test]
fn whole_device_reset_skips_conventional_zones() {
    for args in [&["zone", "reset", "@nullb-small"][..], &["zone", "reset", "@nullb-small", "--all"]] {
        let o = zonekit(args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = zonekit(&["zone", "finish", "@nullb-small", "-o", "8192", "-v"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "@nullb-small: successful finish of zones in range from 8192, to 131072\n");
}

#[test]
fn file_with_emulated_zones() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("disk.img");
    std::fs::File::create(&p).unwrap().set_len(16 << 20).unwrap();
    let p = p.to_str().unwrap();
    let o = zonekit(&["zone", "write", p, "--zone-size", "4M", "-o", "8192", "-l", "64K", "--pattern", "0x3c"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let data = std::fs::read(p).unwrap();
    assert!(data[4 << 20..(4 << 20) + 65536].iter().all(|&b| b == 0x3c));
    assert!(data[(4 << 20) + 65536..].iter().all(|&b| b == 0));
    // Zones start empty at each open, but reads return the file's data, as fio's emulation does.
    let o = zonekit(&["zone", "read", p, "--zone-size", "4M", "-o", "8192", "-l", "8"]);
    assert!(o.status.success());
    assert!(o.stdout.len() == 4096 && o.stdout.iter().all(|&b| b == 0x3c), "read back the pattern");
    let o = zonekit(&["zone", "report", p, "--zone-size", "4M"]);
    assert_eq!(stdout(&o).lines().count(), 4);
    assert!(stdout(&o).lines().all(|l| l.contains("zcond: 1(em)")));
}

#[test]
fn profiles_lists_the_drives() {
    let o = zonekit(&["profiles"]);
    let out = stdout(&o);
    for name in ["smr-hm-15tb", "smr-hm-30tb", "zns-zn540", "nullb-small", "zbc-small", "zns-small"] {
        assert!(out.contains(name), "{name}");
    }
    assert!(!out.contains("model:"), "the plain list stays as it was");
    let o = zonekit(&["profiles", "--details"]);
    let out = stdout(&o);
    for want in
        ["model: smr-hdd", "model: zns-ssd", "model: none", "rate_od_bps", "255 MB/s", "245 MB/s", "561 µs", "WD HC310"]
    {
        assert!(out.contains(want), "{want} in:\n{out}");
    }
    let o = zonekit(&["dev", "info", "@zns-zn540"]);
    let out = stdout(&o);
    assert!(out.contains("zone capacity: 2205696 sectors (1.05 GiB)"), "{out}");
    assert!(out.contains("max open:      14"));
    assert!(Path::new(env!("CARGO_BIN_EXE_zonekit")).exists());
}

#[test]
fn persistent_device_keeps_its_zones() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = tmp.path().join("smr");
    let d = dev.to_str().unwrap();
    let o = zonekit(&["dev", "create", d, "--profile", "zbc-small"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("kind:          emulated, dir store, profile zbc-small"));
    // Fill zone 1, write half of zone 2, open zone 3 explicitly, write the conventional zone.
    for args in [
        &["zone", "write", d, "-o", "8192", "-l", "4M"][..],
        &["zone", "write", d, "-o", "16384", "-l", "2M", "--sync"],
        &["zone", "open", d, "-o", "24576", "-c", "1"],
        &["zone", "write", d, "-o", "100", "-l", "8", "--pattern", "7"],
    ] {
        let o = zonekit(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    let o = zonekit(&["zone", "report", d, "-c", "4"]);
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert!(lines[1].contains("wptr 0x002000") && lines[1].contains("zcond:14(fu)"), "{}", lines[1]);
    assert!(lines[2].contains("wptr 0x001000") && lines[2].contains("zcond: 2(oi)"), "{}", lines[2]);
    // A clean close keeps the zone open, as a device that stays powered does.
    assert!(lines[3].contains("zcond: 3(oe)"), "{}", lines[3]);
    let o = zonekit(&["zone", "read", d, "-o", "100", "-l", "1"]);
    assert_eq!(o.stdout, vec![7u8; 512]);
    let o = zonekit(&["zone", "report", d, "--cond", "full,imp_open", "--count-only"]);
    assert_eq!(stdout(&o), "2\n");
    // A write off the write pointer of a partially written zone fails in the block layer's zone
    // write plug (EIO whatever the transport, as Linux 6.10+), and changes nothing.
    assert_fails(&zonekit(&["zone", "write", d, "-o", "16384", "-l", "8"]), 1, "write not at the write pointer (EIO)");
    let o = zonekit(&["zone", "reset", d, "-o", "8192", "-c", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = zonekit(&["zone", "report", d, "--cond", "em", "--count-only"]);
    assert_eq!(stdout(&o), "14\n");
}

#[test]
fn zone_open_then_report_shows_the_zone_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = tmp.path().join("nullb");
    let d = dev.to_str().unwrap();
    assert!(zonekit(&["dev", "create", d, "--profile", "nullb-small"]).status.success());
    let o = zonekit(&["zone", "open", d, "-o", "8192", "-c", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = zonekit(&["zone", "write", d, "-o", "16384", "-l", "8"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let state = std::fs::read(dev.join("zones.state")).unwrap();
    let o = zonekit(&["zone", "report", d, "-o", "8192", "-c", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    // As blkzone shows it on null_blk: explicitly open, and implicitly open after a write.
    assert!(lines[0].contains("wptr 0x000000") && lines[0].contains("zcond: 3(oe)"), "{out}");
    assert!(lines[1].contains("wptr 0x000008") && lines[1].contains("zcond: 2(oi)"), "{out}");
    assert_eq!(std::fs::read(dev.join("zones.state")).unwrap(), state, "a report changes nothing on disk");
    let o = zonekit(&["dev", "info", d]);
    assert!(stdout(&o).contains("conditions:    nw 1, em 13, oi 1, oe 1"), "{}", stdout(&o));
}

#[test]
fn persistent_device_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = tmp.path().join("d");
    let d = dev.to_str().unwrap();
    assert_fails(
        &zonekit(&["dev", "create", d, "--zone-size", "4M", "--zones", "8", "--zone-capacity", "8M"]),
        2,
        "--zone-capacity 8M (16384 sectors) is larger than --zone-size 4M (8192 sectors)",
    );
    assert_fails(&zonekit(&["dev", "create", d, "--zone-size", "3M", "--zones", "8"]), 2, "not a power of two");
    assert_fails(&zonekit(&["dev", "create", d, "--zone-size", "4M"]), 2, "--zones");
    assert_fails(&zonekit(&["dev", "create", d, "--profile", "nope"]), 2, "unknown profile 'nope'");
    assert_fails(
        &zonekit(&["dev", "create", d, "--zone-size", "4M", "--zones", "8", "--max-open", "4", "--max-active", "2"]),
        2,
        "larger than max active",
    );
    assert!(!dev.exists(), "nothing created by a refused command");
    let o = zonekit(&["dev", "create", d, "--zone-size", "4M", "--zones", "8", "--conv-zones", "1", "--max-open", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_fails(&zonekit(&["dev", "create", d, "--profile", "nullb-small"]), 1, "(EEXIST)");
    let o = zonekit(&["zone", "write", d, "-o", "8192", "-l", "8"]);
    assert!(o.status.success());
    // A corrupt metadata file: one line, exit 1, and the zone data is untouched.
    let meta = dev.join("zonekit.meta");
    let good = std::fs::read(&meta).unwrap();
    std::fs::write(&meta, b"{ not json").unwrap();
    assert_fails(&zonekit(&["zone", "report", d]), 1, "zonekit.meta");
    assert_fails(&zonekit(&["zone", "reset", d]), 1, "zonekit.meta");
    std::fs::write(&meta, &good).unwrap();
    let o = zonekit(&["zone", "report", d, "-o", "8192", "-c", "1"]);
    assert!(stdout(&o).contains("wptr 0x000008"), "{}", stdout(&o));
    // A missing metadata file next to zone files is corrupt; an unrelated directory is a bad spec.
    std::fs::remove_file(&meta).unwrap();
    assert_fails(&zonekit(&["dev", "info", d]), 1, "zonekit.meta");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_fails(&zonekit(&["dev", "info", empty.to_str().unwrap()]), 2, "not a zonekit device directory");
}

#[test]
fn bench_bad_input_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bench = |args: &[&str]| {
        let mut a = vec!["bench"];
        a.extend_from_slice(args);
        Command::new(env!("CARGO_BIN_EXE_zonekit")).args(&a).current_dir(d).output().unwrap()
    };
    assert_fails(&bench(&["--name=a", "--filename=x", "--size=1M", "--bs=0"]), 2, "bs=0");
    assert_fails(&bench(&["--name=a", "--filename=x", "--size=abc"]), 2, "size=abc");
    assert_fails(&bench(&["--name=a", "--filename=x", "--size=1M", "--iodepth=-1"]), 2, "iodepth=-1");
    assert_fails(&bench(&["--name=a", "--filename=x", "--size=1M", "--rw=bogus"]), 2, "rw=bogus");
    assert_fails(&bench(&["missing.fio"]), 2, "missing.fio");
    assert_fails(&bench(&["--name=a", "--bogus=1"]), 2, "--bogus");
    assert_fails(&bench(&["--name=a", "--filename=x", "--size=1M", "--ioengine=rdma"]), 2, "rdma");
    std::fs::write(d.join("a.fio"), "[a]\ninclude b.fio\n").unwrap();
    std::fs::write(d.join("b.fio"), "include a.fio\n").unwrap();
    assert_fails(&bench(&["a.fio"]), 2, "include loop");
    std::fs::write(d.join("empty.fio"), "").unwrap();
    assert_fails(&bench(&["empty.fio"]), 2, "empty.fio");
    std::fs::write(d.join("plain"), "x").unwrap();
    let o = bench(&["--name=a", "--filename=plain/f", "--size=1M", "--rw=write"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("(ENOTDIR)"), "{}", stderr(&o));
    let o = bench(&["--name=a", "--filename=x", "--size=1M", "--output=plain/out"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot create the output file"), "{}", stderr(&o));
    assert!(bench(&["--name=a", "--filename=x", "--size=1M", "--bs=8k", "--parse-only"]).status.success());
}

#[test]
fn bench_runs_a_job_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("j.fio"),
        "[global]\nsize=1M\nbs=8k\n\n[w]\nrw=write\nfilename=f\n\n[r]\nstonewall\nrw=randread\nfilename=f\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zonekit"))
        .args(["bench", "j.fio", "--output-format=terse"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("3;zonekit-") && lines[0].contains(";w;0;0;"), "{out}");
    assert!(lines[1].contains(";r;1;0;"), "{out}");
}

#[test]
fn data_none_device_keeps_zone_state_without_data() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = tmp.path().join("smr");
    let d = dev.to_str().unwrap();
    assert_fails(&zonekit(&["dev", "create", d, "--profile", "smr-hm-15tb", "--data", "nothing"]), 2, "'nothing'");
    assert!(!dev.exists(), "nothing created by a refused command");
    let o = zonekit(&["dev", "create", d, "--zone-size", "4M", "--zones", "8"]);
    assert!(stdout(&o).contains("data:          files"), "{}", stdout(&o));
    let help = stdout(&zonekit(&["dev", "create", "--help"]));
    assert!(help.contains("--data <MODE>") && help.contains("files") && help.contains("none"), "{help}");

    // A 15 TB drive, written 4 GiB: fast, and stored in (almost) no space.
    let dev = tmp.path().join("huge");
    let d = dev.to_str().unwrap();
    let started = std::time::Instant::now();
    let o = zonekit(&["dev", "create", d, "--profile", "smr-hm-15tb", "--data", "none"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("data:          none"), "{}", stdout(&o));
    let o = zonekit(&["zone", "write", d, "-o", "274726912", "-l", "4G"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let elapsed = started.elapsed();
    let o = zonekit(&["zone", "report", d, "--cond", "full", "--count-only"]);
    assert_eq!(stdout(&o), "16\n", "4 GiB fill 16 zones of 256 MiB");
    let o = zonekit(&["zone", "read", d, "-o", "274726912", "-l", "8"]);
    assert_eq!(o.stdout, vec![0u8; 4096], "reads return zeros");
    let stored: u64 = std::fs::read_dir(&dev)
        .unwrap()
        .map(|e| std::os::unix::fs::MetadataExt::blocks(&e.unwrap().metadata().unwrap()) * 512)
        .sum();
    assert!(stored < 1 << 20, "{stored} bytes stored for 4 GiB written");
    assert!(elapsed < std::time::Duration::from_secs(20), "creating and writing took {elapsed:?}");
    let o = zonekit(&["dev", "info", d, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["device"]["keeps_data"], false);
    assert_eq!(v["conditions"]["full"], 16);
}

/// A directory device of 8 zones of 64 KiB (128 sectors), made with `extra` options.
fn small_device(tmp: &tempfile::TempDir, extra: &[&str]) -> String {
    let dev = tmp.path().join("d");
    let d = dev.to_str().unwrap().to_string();
    let mut args = vec!["dev", "create", &d, "--zone-size", "64K", "--zones", "8"];
    args.extend_from_slice(extra);
    let o = zonekit(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    d
}

fn conds(d: &str) -> Vec<String> {
    let o = zonekit(&["zone", "report", d]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cond = |l: &str| {
        let c = l.split("zcond:").nth(1).unwrap().trim_start();
        c[..=c.find(')').unwrap()].to_string()
    };
    stdout(&o).lines().map(cond).collect()
}

#[test]
fn zone_write_splits_at_zone_boundaries_as_the_kernel_does() {
    let tmp = tempfile::tempdir().unwrap();
    let d = small_device(&tmp, &[]);
    // 128 KiB from sector 0 crosses into zone 1: the block layer issues one write per zone.
    let o = zonekit(&["zone", "write", &d, "-o", "0", "-l", "256", "--pattern", "0x3c"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(conds(&d)[..3], ["14(fu)", "14(fu)", "1(em)"]);
    let o = zonekit(&["zone", "read", &d, "-o", "0", "-l", "256"]);
    assert!(o.status.success());
    assert!(o.stdout.len() == 131_072 && o.stdout.iter().all(|&b| b == 0x3c));
    // Through zone 2 and into zone 3 from zone 2's write pointer: both parts land.
    let o = zonekit(&["zone", "write", &d, "-o", "256", "-l", "200"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = conds(&d);
    assert_eq!((c[2].as_str(), c[3].as_str()), ("14(fu)", "2(oi)"));
    // A part not at its zone's write pointer fails the write, naming the zone and the errno.
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "500", "-l", "100"]), 1, "write not at the write pointer (EIO)");
}

#[test]
fn a_write_past_the_end_writes_what_fits_then_fails_with_enospc() {
    let tmp = tempfile::tempdir().unwrap();
    let d = small_device(&tmp, &[]);
    let o = zonekit(&["zone", "write", &d, "-o", "896", "-l", "256"]);
    assert_fails(&o, 1, "65536 of 131072 bytes written");
    assert!(stderr(&o).trim_end().ends_with("(ENOSPC)"), "{}", stderr(&o));
    assert_eq!(conds(&d)[7], "14(fu)", "what fits is written");
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "1024", "-l", "8"]), 1, "at sector 1024: at or past the end");
    // A read past the end stops there, as a block device file's read does.
    let o = zonekit(&["zone", "read", &d, "-o", "1000", "-l", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout.len(), 24 * 512);
    let o = zonekit(&["zone", "read", &d, "-o", "1024", "-l", "8"]);
    assert!(o.status.success() && o.stdout.is_empty());
}

#[test]
fn management_ranges_carry_on_after_a_failing_zone() {
    let tmp = tempfile::tempdir().unwrap();
    let d = small_device(&tmp, &[]);
    for o in ["128", "384"] {
        assert!(zonekit(&["zone", "write", &d, "-o", o, "-l", "8"]).status.success());
    }
    // Zone 2 is empty: closing it fails, and zone 3 is closed all the same.
    let o = zonekit(&["zone", "close", &d, "-o", "128", "-c", "3"]);
    assert_fails(&o, 1, "zone 2 (sector 256): invalid zone state transition (EIO)");
    assert_eq!(conds(&d)[1..4], ["4(cl)", "1(em)", "4(cl)"]);

    // The errno of the last failing zone: zone 0 is conventional (EREMOTEIO), zone 1 opens,
    // zones 2 and 3 find the one open zone taken (ETOOMANYREFS).
    let tmp = tempfile::tempdir().unwrap();
    let d = small_device(&tmp, &["--personality", "zbc", "--conv-zones", "1", "--max-open", "1"]);
    let o = zonekit(&["zone", "open", &d, "-c", "4"]);
    assert_fails(&o, 1, "zone 3 (sector 384): too many open zones (3 of 4 zones failed) (ETOOMANYREFS)");
    assert_eq!(conds(&d)[..4], ["0(nw)", "3(oe)", "1(em)", "1(em)"]);
}

#[test]
fn dev_info_shows_the_queue_attributes() {
    let o = zonekit(&["dev", "info", "@smr-hm-15tb"]);
    let out = stdout(&o);
    for line in [
        "queue:         as /sys/block/X/queue shows it",
        "  zoned                   host-managed",
        "  chunk_sectors           524288",
        "  nr_zones                55880",
        "  max_open_zones          128",
        "  max_active_zones        0",
        "  zone_append_max_bytes   268435456",
        "  zone_write_granularity  4096",
        "  max_sectors_kb          1280",
        "  zoned_qd1_writes        1",
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} in:\n{out}");
    }
    let o = zonekit(&["dev", "info", "@zns-zn540", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let q = &v["queue"];
    assert_eq!((q["zoned"].as_str(), q["max_sectors_kb"].as_u64()), (Some("host-managed"), Some(512)));
    assert_eq!((q["max_open_zones"].as_u64(), q["zone_append_max_bytes"].as_u64()), (Some(14), Some(524_288)));
    assert_eq!(q["zoned_qd1_writes"].as_u64(), Some(0));
    // No limits and more sequential zones than the write-plug pool: Linux shows 128.
    let o = zonekit(&["dev", "info", "@nullb-1t", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((v["queue"]["max_open_zones"].as_u64(), v["device"]["max_open_zones"].as_u64()), (Some(128), Some(0)));
}

#[test]
fn dev_create_stores_the_queue_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let d = small_device(&tmp, &["--max-sectors-kb", "64", "--zoned-qd1-writes", "1"]);
    let o = zonekit(&["dev", "info", &d, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((v["queue"]["max_sectors_kb"].as_u64(), v["queue"]["zoned_qd1_writes"].as_u64()), (Some(64), Some(1)));
    // A profile's own value, and the kernel's default for its drive.
    let dev = tmp.path().join("zns");
    let o = zonekit(&["dev", "create", dev.to_str().unwrap(), "--profile", "zns-small", "--zoned-qd1-writes", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = zonekit(&["dev", "info", dev.to_str().unwrap()]);
    assert!(stdout(&o).contains("  max_sectors_kb          512\n  zoned_qd1_writes        1\n"), "{}", stdout(&o));
    let bad = tmp.path().join("bad");
    let b = bad.to_str().unwrap();
    assert_fails(
        &zonekit(&["dev", "create", b, "--zone-size", "4M", "--zones", "4", "--max-sectors-kb", "2"]),
        2,
        "below 4",
    );
    assert_fails(
        &zonekit(&[
            "dev",
            "create",
            b,
            "--zone-size",
            "4M",
            "--zones",
            "4",
            "--block-size",
            "4096",
            "--max-sectors-kb",
            "3",
        ]),
        2,
        "--max-sectors-kb 3 is below 4",
    );
    assert_fails(
        &zonekit(&["dev", "create", b, "--profile", "zbc-small", "--zoned-qd1-writes", "yes"]),
        2,
        "expected 0 or 1",
    );
    assert!(!bad.exists(), "nothing created by a refused command");
}
