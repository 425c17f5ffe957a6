//! End-to-end tests of the zone tools a blkzone user reaches for: `capacity`, `report -v`,
//! `-f`, `append`, data in and out of `write` / `read`, `inject`, and the JSON results.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn zonekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).args(args).output().expect("run zonekit")
}

/// Run with `input` on standard input.
fn zonekit_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zonekit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run zonekit");
    // The command may refuse before reading it all: a closed pipe is not a failure here.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[track_caller]
fn ok(o: &Output) -> String {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), stderr(o));
    stdout(o)
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

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {:?}", stdout(o)))
}

/// A persistent device made from `profile` in a fresh directory.
fn device(tmp: &tempfile::TempDir, profile: &str) -> String {
    let d = tmp.path().join(profile).to_str().unwrap().to_string();
    ok(&zonekit(&["dev", "create", &d, "--profile", profile]));
    d
}

/// The blkzone lines of `-c n` zones from sector `o`.
fn report(d: &str, o: u64, n: u32) -> Vec<String> {
    ok(&zonekit(&["zone", "report", d, "-o", &o.to_string(), "-c", &n.to_string()])).lines().map(String::from).collect()
}

/// Everything a command could change on a persistent device: its report and its files.
fn snapshot(d: &str) -> (String, Vec<(String, Vec<u8>)>) {
    let rep = ok(&zonekit(&["zone", "report", d]));
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default())
        })
        .collect();
    files.sort();
    (rep, files)
}

#[test]
fn capacity_sums_zone_capacities_as_blkzone_prints_them() {
    assert_eq!(ok(&zonekit(&["zone", "capacity", "@smr-hm-15tb"])), "0x6d2400000\n");
    // ZNS zones of 4 MiB with 3 MiB capacity: 16 × 6144 sectors.
    assert_eq!(ok(&zonekit(&["zone", "capacity", "@zns-small"])), "0x000018000\n");
    assert_eq!(ok(&zonekit(&["zone", "capacity", "@zns-small", "-o", "8192", "-c", "2"])), "0x000003000\n");
    // -l covers ceil(length / zone size) zones from the zone holding -o, as report does.
    assert_eq!(ok(&zonekit(&["zone", "capacity", "@zns-small", "-o", "9000", "-l", "8193"])), "0x000003000\n");
    // Conventional zones count their length.
    assert_eq!(ok(&zonekit(&["zone", "capacity", "@nullb-small", "-c", "1"])), "0x000002000\n");
    let out = ok(&zonekit(&["zone", "capacity", "@smr-hm-15tb", "-v", "-o", "1000"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 15, "{out}");
    assert_eq!(lines[0], "Found 4096 zones from 0x3e8");
    assert_eq!(lines[1], format!("Found 4096 zones from 0x{:x}", 4096u64 * 524_288));
    assert_eq!(lines[13], format!("Found {} zones from 0x{:x}", 55_880 - 13 * 4096, 13 * 4096u64 * 524_288));
    assert_eq!(lines[14], "0x6d2400000");
    let v = json(&zonekit(&["zone", "capacity", "@zns-small", "-o", "8192", "--format", "json"]));
    assert_eq!(
        (v["capacity"].as_u64(), v["zones"].as_u64(), v["sector"].as_u64()),
        (Some(92_160), Some(15), Some(8192))
    );
    assert_fails(&zonekit(&["zone", "capacity", "@zns-small", "-o", "131072"]), 2, "past the end");
    assert_fails(&zonekit(&["zone", "capacity", "@zns-small", "-c", "0"]), 2, "--count must be at least 1");
}

#[test]
fn report_verbose_prints_blkzone_batches() {
    let out = ok(&zonekit(&["zone", "report", "@nullb-small", "-v", "-o", "100", "-c", "2"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], "Found 2 zones from 0x64");
    assert!(lines[1].starts_with("  start: 0x000000000") && lines[2].starts_with("  start: 0x000002000"), "{out}");
    let out = ok(&zonekit(&["zone", "report", "@smr-hm-15tb", "-v"]));
    assert_eq!(out.lines().filter(|l| l.starts_with("Found ")).count(), 14);
    assert_eq!(out.lines().count(), 55_880 + 14);
    assert_fails(&zonekit(&["zone", "report", "@nullb-small", "-v", "--format", "json"]), 2, "--format blkzone");
    assert_fails(&zonekit(&["zone", "report", "@nullb-small", "-v", "--count-only"]), 2, "cannot be used with");
}

#[test]
fn force_is_taken_by_the_commands_that_change_zones() {
    let tmp = tempfile::tempdir().unwrap();
    let d = device(&tmp, "nullb-small");
    ok(&zonekit(&["zone", "write", &d, "-f", "-o", "8192", "-l", "8"]));
    ok(&zonekit(&["zone", "append", &d, "--force", "-o", "16384", "-l", "8"]));
    ok(&zonekit(&["zone", "finish", &d, "-f", "-o", "24576", "-c", "1"]));
    ok(&zonekit(&["zone", "reset", &d, "-f"]));
    // Report and capacity take it as blkzone does (they open the device read-only).
    ok(&zonekit(&["zone", "report", &d, "-f", "-c", "1"]));
    ok(&zonekit(&["zone", "capacity", &d, "--force"]));
    assert_eq!(ok(&zonekit(&["zone", "report", &d, "--cond", "em", "--count-only"])), "15\n");
    let help = ok(&zonekit(&["zone", "reset", "--help"]));
    assert!(help.contains("-f, --force") && help.contains("O_EXCL"), "{help}");
}

#[test]
fn write_from_a_file_or_stdin_and_read_to_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = device(&tmp, "nullb-small");
    let data: Vec<u8> = (0..12_288u32).map(|i| (i * 7 + i / 512) as u8).collect();
    let input = tmp.path().join("in.bin");
    std::fs::write(&input, &data).unwrap();
    let inp = input.to_str().unwrap();
    // -l may be left out: the file's length is written.
    ok(&zonekit(&["zone", "write", &d, "-o", "8192", "--input", inp]));
    assert!(report(&d, 8192, 1)[0].contains("wptr 0x000018"), "{:?}", report(&d, 8192, 1));
    let out = tmp.path().join("out.bin");
    let outp = out.to_str().unwrap();
    assert_eq!(ok(&zonekit(&["zone", "read", &d, "-o", "8192", "-l", "24", "--output", outp])), "");
    assert_eq!(std::fs::read(&out).unwrap(), data);
    // Standard input, with a length that matches it.
    ok(&zonekit_stdin(&["zone", "write", &d, "-o", "8216", "-l", "12K", "-i", "-"], &data));
    assert_eq!(zonekit(&["zone", "read", &d, "-o", "8216", "-l", "24"]).stdout, data);
    // A larger read to a file replaces what the file held.
    ok(&zonekit(&["zone", "read", &d, "-o", "8192", "-l", "48", "--output", outp]));
    assert_eq!(std::fs::read(&out).unwrap(), [&data[..], &data[..]].concat());

    // Refused before anything is written: exit 2, one line, the device unchanged.
    let before = snapshot(&d);
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "8240", "-l", "8", "--input", inp]), 2, "nothing written");
    assert_fails(
        &zonekit(&["zone", "write", &d, "-o", "8240", "-l", "100", "--input", inp]),
        2,
        "12288 bytes, but --length asks for 51200 bytes (100 sectors)",
    );
    assert_fails(&zonekit_stdin(&["zone", "write", &d, "-o", "8240", "-l", "8", "-i", "-"], &data), 2, "longer");
    assert_fails(
        &zonekit_stdin(&["zone", "write", &d, "-o", "8240", "-i", "-"], &data[..1000]),
        2,
        "not a whole number",
    );
    assert_fails(&zonekit_stdin(&["zone", "write", &d, "-o", "8240", "-i", "-"], b""), 2, "is empty");
    // More than a zone cannot be appended: refused before the data is read whole.
    let big = vec![0u8; (4 << 20) + 512];
    assert_fails(
        &zonekit_stdin(&["zone", "append", &d, "-o", "16384", "-i", "-"], &big),
        2,
        "longer than the 4194304 bytes",
    );
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "8240", "-l", "0"]), 2, "--length must not be zero");
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "8240", "-l", "0", "-i", inp]), 2, "--length must not be zero");
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "8240", "-i", "/no/such/file"]), 1, "(ENOENT)");
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "8240", "-i", inp, "--pattern", "7"]), 2, "cannot be used with");
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "8240"]), 2, "--length");
    assert_fails(&zonekit(&["zone", "read", &d, "-o", "8192", "-l", "0"]), 2, "--length must not be zero");
    let missing = tmp.path().join("no/such/dir/out.bin");
    assert_fails(
        &zonekit(&["zone", "read", &d, "-o", "8192", "-l", "8", "--output", missing.to_str().unwrap()]),
        1,
        "cannot create: No such file or directory (ENOENT)",
    );
    assert_eq!(snapshot(&d), before, "refused commands change nothing");
}

#[test]
fn zone_append_returns_the_sector_written() {
    let tmp = tempfile::tempdir().unwrap();
    // Native (null_blk): the device's command; emulated (SCSI): a write at the write pointer.
    for profile in ["nullb-small", "zbc-small"] {
        let d = device(&tmp, profile);
        assert_eq!(ok(&zonekit(&["zone", "append", &d, "-o", "8192", "-l", "8"])), "8192\n", "{profile}");
        assert_eq!(ok(&zonekit(&["zone", "append", &d, "-o", "8192", "-l", "4K"])), "8200\n", "{profile}");
        let data: Vec<u8> = (0..4096u32).map(|i| (i % 251) as u8).collect();
        let o = zonekit_stdin(&["zone", "append", &d, "-o", "8192", "-i", "-", "--format", "json"], &data);
        let v = json(&o);
        assert_eq!(v["written_sector"], 8208, "{profile}: {v}");
        assert_eq!(
            (v["bytes_written"].as_u64(), v["ok"].as_bool(), v["zones"].as_u64()),
            (Some(4096), Some(true), Some(1))
        );
        assert_eq!(zonekit(&["zone", "read", &d, "-o", "8208", "-l", "8"]).stdout, data, "{profile}");
        assert!(report(&d, 8192, 1)[0].contains("wptr 0x000018"), "{profile}");
        // -o must start a zone, as management ranges must (exit 2).
        assert_fails(&zonekit(&["zone", "append", &d, "-o", "8200", "-l", "8"]), 2, "not the start of a zone");
        assert_fails(&zonekit(&["zone", "append", &d, "-o", "999999999", "-l", "8"]), 2, "past the end");
        assert_fails(&zonekit(&["zone", "append", &d, "-o", "8192", "-l", "0"]), 2, "--length must not be zero");
        // The kernel's answers: a conventional zone, and more than zone_append_max_bytes.
        assert_fails(&zonekit(&["zone", "append", &d, "-o", "0", "-l", "8"]), 1, "(EIO)");
        let o = zonekit(&["zone", "append", &d, "-o", "16384", "-l", "8M", "--format", "json"]);
        assert_fails(&o, 1, "larger than the zone append limit");
        let v = json(&o);
        assert_eq!(
            (v["ok"].as_bool(), v["errno"].as_str(), v["errno_code"].as_i64()),
            (Some(false), Some("EIO"), Some(5))
        );
        assert!(v["written_sector"].is_null() && v["bytes_written"] == 0, "{v}");
    }
    // null_blk's limit is 255 sectors; an emulated append's is the zone size.
    let nullb = tmp.path().join("nullb-small");
    let o = zonekit(&["zone", "append", nullb.to_str().unwrap(), "-o", "16384", "-l", "256"]);
    assert_fails(&o, 1, "larger than the zone append limit (130560 bytes) (EIO)");
    let zbc = tmp.path().join("zbc-small");
    assert_eq!(ok(&zonekit(&["zone", "append", zbc.to_str().unwrap(), "-o", "16384", "-l", "4M"])), "16384\n");
    let v = json(&zonekit(&["dev", "info", zbc.to_str().unwrap(), "--format", "json"]));
    assert_eq!(v["queue"]["zone_append_max_bytes"], 4 << 20);
}

#[test]
fn inject_puts_faults_in_the_device_state() {
    let tmp = tempfile::tempdir().unwrap();
    let d = device(&tmp, "nullb-small");
    ok(&zonekit(&["zone", "write", &d, "-o", "8192", "-l", "8", "--pattern", "0x5a"]));
    let v = json(&zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "2", "read-only", "--format", "json"]));
    assert_eq!(
        (v["command"].as_str(), v["zones"].as_u64(), v["zones_changed"].as_u64()),
        (Some("inject"), Some(2), Some(2))
    );
    ok(&zonekit(&["zone", "inject", &d, "-o", "24576", "-c", "1", "offline"]));
    // Kept in the device's state, shown by every later command.
    let state = std::fs::read_to_string(tmp.path().join("nullb-small/zones.state")).unwrap();
    assert!(state.contains("read_only 1\nread_only 2\noffline 3\n"), "{state}");
    let r = report(&d, 8192, 3);
    assert!(r[0].contains("zcond:13(ro)") && r[1].contains("zcond:13(ro)") && r[2].contains("zcond:15(of)"), "{r:?}");
    assert_eq!(ok(&zonekit(&["zone", "report", &d, "--cond", "ro,of", "--count-only"])), "3\n");
    // A read-only zone keeps its data for reads and refuses writes; an offline zone refuses both.
    assert_eq!(zonekit(&["zone", "read", &d, "-o", "8192", "-l", "8"]).stdout, vec![0x5a; 4096]);
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "8200", "-l", "8"]), 1, "zone is read-only (EIO)");
    assert_fails(&zonekit(&["zone", "read", &d, "-o", "24576", "-l", "8"]), 1, "zone is offline (EIO)");
    assert_fails(&zonekit(&["zone", "reset", &d, "-o", "8192", "-c", "1"]), 1, "(EIO)");
    // Asking again changes nothing; clear returns the zones to empty.
    let v = json(&zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "1", "read-only", "--format", "json"]));
    assert_eq!(v["zones_changed"], 0);
    let v = json(&zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "4", "clear", "--format", "json"]));
    assert_eq!((v["zones"].as_u64(), v["zones_changed"].as_u64()), (Some(4), Some(3)));
    assert!(report(&d, 8192, 3).iter().all(|l| l.contains("zcond: 1(em)")));
    ok(&zonekit(&["zone", "write", &d, "-o", "8192", "-l", "8"]));

    // Refused (exit 2) where nothing could keep a fault, or for zones that cannot take one.
    let before = snapshot(&d);
    assert_fails(&zonekit(&["zone", "inject", "@nullb-small", "-o", "8192", "read-only"]), 2, "lives for one command");
    let f = tmp.path().join("plain");
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    assert_fails(
        &zonekit(&["zone", "inject", f.to_str().unwrap(), "-o", "0", "offline"]),
        2,
        "not a zoned block device",
    );
    assert_fails(&zonekit(&["zone", "inject", "/no/such/dir", "offline"]), 2, "no such file or directory");
    assert_fails(&zonekit(&["zone", "inject", &d, "read-only"]), 2, "zone 0 (sector 0) is conventional");
    assert_fails(&zonekit(&["zone", "inject", &d, "-o", "100", "offline"]), 2, "not aligned to zone size");
    assert_fails(&zonekit(&["zone", "inject", &d, "-o", "8192", "bogus"]), 2, "unknown fault 'bogus'");
    assert_eq!(snapshot(&d), before);
}

#[test]
fn management_results_in_json() {
    let tmp = tempfile::tempdir().unwrap();
    let d = device(&tmp, "nullb-small");
    ok(&zonekit(&["zone", "write", &d, "-o", "8192", "-l", "8"]));
    let v = json(&zonekit(&["zone", "finish", &d, "-o", "8192", "-c", "3", "--format", "json"]));
    assert_eq!(v["command"], "finish");
    assert_eq!((v["sector"].as_u64(), v["sectors"].as_u64(), v["zones"].as_u64()), (Some(8192), Some(24_576), Some(3)));
    assert_eq!((v["zones_changed"].as_u64(), v["ok"].as_bool()), (Some(3), Some(true)));
    assert!(v["errno"].is_null() && v["error"].is_null() && v.get("bytes_written").is_none(), "{v}");
    let v = json(&zonekit(&["zone", "reset", &d, "--format", "json"]));
    assert_eq!((v["zones"].as_u64(), v["zones_changed"].as_u64()), (Some(16), Some(3)));
    // A failure: the JSON on stdout, the line on stderr, exit 1.
    let o = zonekit(&["zone", "close", &d, "-o", "8192", "-c", "2", "--format", "json"]);
    assert_fails(&o, 1, "invalid zone state transition");
    let v = json(&o);
    assert_eq!(
        (v["ok"].as_bool(), v["errno"].as_str(), v["zones_changed"].as_u64()),
        (Some(false), Some("EIO"), Some(0))
    );
    assert!(v["error"].as_str().unwrap().contains("(2 of 2 zones failed)"), "{v}");
    let o = zonekit(&["zone", "open", &d, "-o", "8192", "-c", "5", "--format", "json"]);
    assert_fails(&o, 1, "(ETOOMANYREFS)");
    let v = json(&o);
    assert_eq!(
        (v["errno"].as_str(), v["errno_code"].as_i64(), v["zones_changed"].as_u64()),
        (Some("ETOOMANYREFS"), Some(109), Some(4))
    );
    // Writes: bytes written, also when the write stops part way.
    let v = json(&zonekit(&["zone", "write", &d, "-o", "0", "-l", "1M", "--format", "json"]));
    assert_eq!(
        (v["bytes_written"].as_u64(), v["zones"].as_u64(), v["ok"].as_bool()),
        (Some(1 << 20), Some(1), Some(true))
    );
    ok(&zonekit(&["zone", "reset", &d]));
    let o = zonekit(&["zone", "write", &d, "-o", "122880", "-l", "8M", "--format", "json"]);
    assert_fails(&o, 1, "(ENOSPC)");
    let v = json(&o);
    assert_eq!((v["bytes_written"].as_u64(), v["errno"].as_str()), (Some(4 << 20), Some("ENOSPC")));
    // Text stays blkzone's: nothing, or the -v line.
    assert_eq!(ok(&zonekit(&["zone", "reset", &d, "-o", "8192", "-c", "1"])), "");
}

#[test]
fn open_close_finish_without_a_range_act_on_every_zone() {
    // As blkzone's single ioctl over the device makes the kernel do: nothing is skipped, the
    // conventional zone fails, the other zones are done all the same.
    let tmp = tempfile::tempdir().unwrap();
    let d = device(&tmp, "zbc-small");
    let o = zonekit(&["zone", "finish", &d, "--format", "json"]);
    assert_fails(&o, 1, "zone 0 (sector 0): conventional zone (EIO)");
    assert_eq!(json(&o)["zones_changed"], 15);
    assert_eq!(ok(&zonekit(&["zone", "report", &d, "--cond", "full", "--count-only"])), "15\n");
    // Reset skips what the kernel's reset-all skips: it succeeds.
    ok(&zonekit(&["zone", "reset", &d, "--all"]));
    // Open: the conventional zone fails, the open limit (4) stops the rest: the last zone's errno.
    assert_fails(&zonekit(&["zone", "open", &d]), 1, "too many open zones (12 of 16 zones failed) (ETOOMANYREFS)");
    assert_eq!(ok(&zonekit(&["zone", "report", &d, "--cond", "oe", "--count-only"])), "4\n");
    // Close: the conventional zone fails; SCSI takes the empty zones; the open ones close.
    assert_fails(&zonekit(&["zone", "close", &d, "--all"]), 1, "zone 0 (sector 0)");
    assert_eq!(ok(&zonekit(&["zone", "report", &d, "--cond", "em", "--count-only"])), "15\n");
    // From the first sequential zone on, nothing fails.
    ok(&zonekit(&["zone", "finish", &d, "-o", "8192"]));
    // Each command's --help describes its own --all.
    let help = |cmd: &str| ok(&zonekit(&["zone", cmd, "--help"]));
    assert!(help("reset").contains("skips conventional, empty, read-only and offline zones"));
    assert!(help("open").contains("BLKOPENZONE") && help("open").contains("open limit"));
    assert!(help("close").contains("BLKCLOSEZONE") && !help("close").contains("reset-all"));
    assert!(help("finish").contains("BLKFINISHZONE") && help("finish").contains("full"));
}

#[test]
fn profiles_and_dev_info_in_json() {
    let v = json(&zonekit(&["profiles", "--format", "json"]));
    let list = v.as_array().unwrap();
    let p = list.iter().find(|p| p["name"] == "smr-hm-15tb").unwrap();
    assert_eq!(
        (p["personality"].as_str(), p["nr_zones"].as_u64(), p["zone_size"].as_u64()),
        (Some("zbc"), Some(55_880), Some(524_288))
    );
    assert_eq!((p["max_open_zones"].as_u64(), p["capacity"].as_u64()), (Some(128), Some(29_297_213_440)));
    assert_eq!(p["timing_model"], "smr-hdd");
    assert!(p["model_params"].as_array().unwrap().iter().any(|q| q["name"] == "rpm"));
    let z = list.iter().find(|p| p["name"] == "zns-small").unwrap();
    assert_eq!((z["zone_capacity_bytes"].as_u64(), z["timing_model"].is_null()), (Some(3 << 20), true));
    assert_eq!(list.len(), ok(&zonekit(&["profiles"])).lines().count() - 1, "every profile of the table");
    let a = json(&zonekit(&["dev", "info", "@zns-small", "--format", "json"]));
    let b = json(&zonekit(&["dev", "info", "@zns-small", "--json"]));
    assert_eq!(a, b);
    assert_eq!((a["device"]["zone_capacity"].as_u64(), a["conditions"]["empty"].as_u64()), (Some(6144), Some(16)));
}

#[test]
fn inject_write_faults_and_moved_write_pointers() {
    let tmp = tempfile::tempdir().unwrap();
    let d = device(&tmp, "zbc-small");
    ok(&zonekit(&["zone", "write", &d, "-o", "8192", "-l", "64", "--pattern", "0x11"]));
    // fail-next-write: kept in the state, shown by JSON reports and dev info, used up by one write.
    let v = json(&zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "2", "fail-next-write", "--format", "json"]));
    assert_eq!(v["zones_changed"], 2);
    let state = std::fs::read_to_string(tmp.path().join("zbc-small/zones.state")).unwrap();
    assert!(state.contains("fail_next_write 1\nfail_next_write 2\n"), "{state}");
    let v = json(&zonekit(&["zone", "report", &d, "-o", "8192", "-c", "3", "--format", "json"]));
    let flags: Vec<bool> = v["zones"].as_array().unwrap().iter().map(|z| z["fail_next_write"] == true).collect();
    assert_eq!(flags, [true, true, false]);
    assert!(ok(&zonekit(&["dev", "info", &d])).contains("faults:        next write fails in zones 1, 2\n"));
    assert_eq!(json(&zonekit(&["dev", "info", &d, "--format", "json"]))["fail_next_write"], serde_json::json!([1, 2]));
    let o = zonekit(&["zone", "write", &d, "-o", "8256", "-l", "8", "--format", "json"]);
    assert_fails(&o, 1, "write at sector 8256: injected write fault: Input/output error (EIO)");
    assert_eq!((json(&o)["bytes_written"].as_u64(), json(&o)["errno"].as_str()), (Some(0), Some("EIO")));
    assert!(report(&d, 8192, 1)[0].contains("wptr 0x000040"), "the failed write changed nothing");
    ok(&zonekit(&["zone", "write", &d, "-o", "8256", "-l", "8"]));
    // Emulated on SCSI, a zone append is a write: it fails the same way, once.
    assert_fails(&zonekit(&["zone", "append", &d, "-o", "16384", "-l", "8"]), 1, "injected write fault");
    assert_eq!(ok(&zonekit(&["zone", "append", &d, "-o", "16384", "-l", "8"])), "16384\n");
    assert!(!ok(&zonekit(&["dev", "info", &d])).contains("faults:"));
    // clear takes a pending fault away.
    ok(&zonekit(&["zone", "inject", &d, "-o", "24576", "-c", "1", "fail-next-write"]));
    ok(&zonekit(&["zone", "inject", &d, "-o", "24576", "-c", "1", "clear"]));
    ok(&zonekit(&["zone", "write", &d, "-o", "24576", "-l", "8"]));

    // move-wp=N: sectors from the zone start (bytes with a suffix); data cut or extended.
    ok(&zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "1", "move-wp=16"]));
    assert!(
        report(&d, 8192, 1)[0].contains("wptr 0x000010 reset:0 non-seq:0, zcond: 2(oi)"),
        "{:?}",
        report(&d, 8192, 1)
    );
    assert_eq!(std::fs::metadata(tmp.path().join("zbc-small/seq-000001")).unwrap().len(), 16 * 512);
    assert_fails(&zonekit(&["zone", "write", &d, "-o", "8264", "-l", "8"]), 1, "write not at the write pointer");
    ok(&zonekit(&["zone", "write", &d, "-o", "8208", "-l", "8", "--pattern", "0x22"]));
    let v = json(&zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "1", "move-wp=16K", "--format", "json"]));
    assert_eq!(v["zones_changed"], 1);
    let data = zonekit(&["zone", "read", &d, "-o", "8192", "-l", "32"]).stdout;
    assert_eq!(data, [vec![0x11; 8192], vec![0x22; 4096], vec![0; 4096]].concat(), "zeros past the old end");
    ok(&zonekit(&["zone", "inject", &d, "-o", "16384", "-c", "2", "move-wp=4M"]));
    assert_eq!(
        ok(&zonekit(&["zone", "report", &d, "-o", "16384", "-c", "2", "--cond", "full", "--count-only"])),
        "2\n"
    );
    ok(&zonekit(&["zone", "inject", &d, "-o", "16384", "-c", "1", "move-wp=0"]));
    assert!(report(&d, 16384, 1)[0].contains("zcond: 1(em)"));
    let before = snapshot(&d);
    assert_fails(
        &zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "1", "move-wp=5M"]),
        2,
        "move-wp (10240 sectors, 5 MiB) is past the zone capacity (8192 sectors, 4 MiB)",
    );
    assert_fails(&zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "1", "move-wp=1000b"]), 2, "move-wp");
    assert_fails(&zonekit(&["zone", "inject", &d, "-o", "8192", "-c", "1", "move-wp="]), 2, "move-wp");
    let zns = device(&tmp, "zns-small");
    assert_fails(
        &zonekit(&["zone", "inject", &zns, "-o", "8192", "-c", "1", "move-wp=4"]),
        2,
        "4096-byte logical blocks",
    );
    assert_eq!(snapshot(&d), before);
    ok(&zonekit(&["zone", "inject", &d, "-o", "40960", "-c", "1", "offline"]));
    assert_fails(&zonekit(&["zone", "inject", &d, "-o", "40960", "-c", "1", "move-wp=8"]), 1, "zone is offline");
}
