//! The `sg` engine's options on zonekit's emulated devices: `sg_write_mode` (every value fio 3.33
//! has), `readfua`, `writefua`, `hipri`, `stream_id`. fio cannot run `sg` here (no `/dev/sg*`),
//! so the jobs follow fio's own `examples/sg_verify.fio`, `sg_verify-fail.fio` and
//! `sg_write_same_ndob.fio` on a device directory (whose zone 0 is conventional, as those
//! examples need a range they can write again), and the expected counts are what fio's
//! `engines/sg.c` counts: every command is one write I/O of the job's block size, whatever it
//! transfers, and a CHECK CONDITION (a miscompare) is `EIO`.

mod common;

use common::{raw, run, text, zonekit};

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A `zbc-small` device directory (16 zones of 4 MiB, zone 0 conventional, 512-byte blocks).
fn device(dir: &Path) -> String {
    let dev = dir.join("dev");
    let o = Command::new(zonekit()).args(["dev", "create", "--profile", "zbc-small"]).arg(&dev).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    dev.display().to_string()
}

/// Per job: name, error, write I/Os and bytes.
fn writes(doc: &Value) -> Vec<(String, i64, u64, u64)> {
    doc["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("no jobs in {doc}"))
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["error"].as_i64().unwrap(),
                j["write"]["total_ios"].as_u64().unwrap(),
                j["write"]["io_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Runs the job file `job` (`DEV` standing for the device) in `dir`.
fn bench(dir: &Path, dev: &str, job: &str) -> (Value, std::process::Output) {
    let file = dir.join("job.fio");
    std::fs::write(&file, job.replace("DEV", dev)).unwrap();
    run(zonekit(), &[file.to_str().unwrap()], dir)
}

fn row(name: &str, error: i32, ios: u64, bytes: u64) -> (String, i64, u64, u64) {
    (name.to_string(), i64::from(error), ios, bytes)
}

const GLOBAL: &str = "[global]\nfilename=DEV\nbuffer_pattern=0x01\nioengine=sg\nrw=write\nbs=512\nstonewall\n";

/// `sg_verify.fio`: 20 blocks written with a pattern, then VERIFY commands with BYTCHK 00, 01
/// and 11 over them (one block at a time, two of ten blocks, five of four, one of twenty): all
/// pass, each counting its whole range.
#[test]
fn verify_commands_pass_on_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let dev = device(dir.path());
    let job = format!(
        "{GLOBAL}number_ios=20\n[precon]\n[verify00]\nsg_write_mode=verify_bytchk_00\n\
         [verify01]\nsg_write_mode=verify_bytchk_01\n\
         [verify01-two_ios]\nsg_write_mode=verify_bytchk_01\nbs=5120\nnumber_ios=2\n\
         [verify11]\nsg_write_mode=verify_bytchk_11\n\
         [verify11-five_ios]\nsg_write_mode=verify_bytchk_11\nbs=2048\nnumber_ios=5\n\
         [verify11-one_ios]\nsg_write_mode=verify_bytchk_11\nbs=10240\nnumber_ios=1\n"
    );
    let (doc, o) = bench(dir.path(), &dev, &job);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        writes(&doc),
        [
            row("precon", 0, 20, 10240),
            row("verify00", 0, 20, 10240),
            row("verify01", 0, 20, 10240),
            row("verify01-two_ios", 0, 2, 10240),
            row("verify11", 0, 20, 10240),
            row("verify11-five_ios", 0, 5, 10240),
            row("verify11-one_ios", 0, 1, 10240),
        ]
    );
}

/// `sg_verify-fail.fio`: a VERIFY one block past what was written miscompares (`EIO`), with
/// BYTCHK 01 at its 21st command, with BYTCHK 11 in its only one.
#[test]
fn verify_commands_fail_past_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let dev = device(dir.path());
    let job = format!(
        "{GLOBAL}number_ios=20\n[precon]\n\
         [verify01]\nsg_write_mode=verify_bytchk_01\nnumber_ios=20\n\
         [verify01-fail]\nsg_write_mode=verify_bytchk_01\nnumber_ios=21\n\
         [verify11-one_ios]\nsg_write_mode=verify_bytchk_11\nnumber_ios=1\nbs=10240\n\
         [verify11-fail]\nsg_write_mode=verify_bytchk_11\nnumber_ios=1\nbs=10752\n"
    );
    let (doc, o) = bench(dir.path(), &dev, &job);
    assert_eq!(o.status.code(), Some(2), "two jobs failed: {}", text(&o));
    assert_eq!(
        writes(&doc),
        [
            row("precon", 0, 20, 10240),
            row("verify01", 0, 20, 10240),
            row("verify01-fail", libc::EIO, 21, 10240),
            row("verify11-one_ios", 0, 1, 10240),
            row("verify11-fail", libc::EIO, 1, 0),
        ]
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Input/output error: write offset=10240, buflen=512"), "{err}");
    assert!(err.contains("Input/output error: write offset=0, buflen=10752"), "{err}");
}

/// `sg_write_same_ndob.fio`: WRITE SAME with NDOB zeroes 19 blocks (counting them all, though
/// no data is sent); a VERIFY of 19 zero blocks passes, of 20 fails at the 20th (still 0x01).
#[test]
fn write_same_ndob_zeroes_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let dev = device(dir.path());
    let job = format!(
        "{GLOBAL}[precon]\nnumber_ios=20\n[write_same_ndob]\nsg_write_mode=write_same_ndob\nnumber_ios=19\n\
         [verify-pass]\nsg_write_mode=verify_bytchk_01\nbuffer_pattern=0x00\nnumber_ios=19\n\
         [verify-fail]\nsg_write_mode=verify_bytchk_01\nbuffer_pattern=0x00\nnumber_ios=20\n"
    );
    let (doc, o) = bench(dir.path(), &dev, &job);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(
        writes(&doc),
        [
            row("precon", 0, 20, 10240),
            row("write_same_ndob", 0, 19, 9728),
            row("verify-pass", 0, 19, 9728),
            row("verify-fail", libc::EIO, 20, 9728),
        ]
    );
}

/// WRITE SAME into a sequential zone: at its write pointer only; each block is the buffer's
/// first, and the whole range counts as written (fio transfers one block per command). WRITE
/// AND VERIFY writes and reads back; WRITE STREAM (any `stream_id`), `hipri` and FUA write as
/// WRITE does.
#[test]
fn write_modes_in_a_sequential_zone() {
    let dir = tempfile::tempdir().unwrap();
    let dev = device(dir.path());
    let zone = 4u64 << 20;
    // Random data (no pattern): each 8 KiB command writes its first 512 bytes 16 times.
    let job = "[same]\nfilename=DEV\nioengine=sg\nrw=write\nbs=8k\noffset=4m\nsize=64k\nsg_write_mode=write_same\n\
               [wav]\nstonewall\nfilename=DEV\nioengine=sg\nrw=write\nbs=4k\noffset=4160k\nsize=64k\nsg_write_mode=write_and_verify\n\
               [stream]\nstonewall\nfilename=DEV\nioengine=sg\nrw=write\nbs=4k\noffset=4224k\nsize=64k\nsg_write_mode=write_stream\nstream_id=3\nhipri\nwritefua=1\n\
               [fua-read]\nstonewall\nfilename=DEV\nioengine=sg\nrw=read\nbs=4k\noffset=4m\nsize=192k\nreadfua=1\n";
    let (doc, o) = bench(dir.path(), &dev, job);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        writes(&doc),
        [row("same", 0, 8, 65536), row("wav", 0, 16, 65536), row("stream", 0, 16, 65536), row("fua-read", 0, 0, 0)]
    );
    assert_eq!(doc["jobs"][3]["read"]["io_bytes"], 196608);
    let data = dir.path().join("data");
    let o = Command::new(zonekit())
        .args(["zone", "read", "-o", &(zone / 512).to_string(), "-l", "64k", "--output"])
        .arg(&data)
        .arg(&dev)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let data = std::fs::read(&data).unwrap();
    for (i, cmd) in data.chunks(8192).enumerate() {
        assert!(cmd.chunks(512).all(|b| b == &cmd[..512]), "command {i}: every block is its first");
    }
    assert_ne!(data[..512], data[8192..8192 + 512], "each command its own block");
    // Not at the write pointer (now 4 MiB + 192 KiB): refused as a WRITE is, with EIO (the
    // errno fio's sg engine gives any CHECK CONDITION too).
    let job = "[late]\nfilename=DEV\nioengine=sg\nrw=write\nbs=4k\noffset=4m\nsize=4k\nsg_write_mode=write_same\n";
    let (doc, o) = bench(dir.path(), &dev, job);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(writes(&doc), [row("late", libc::EIO, 1, 0)]);
}

/// A corrupted block, injected with `zonekit zone inject` (the zone's write pointer moved back
/// behind the host's back, then forward: zeros where the data was), fails a VERIFY with
/// BYTCHK 01 from that block on; the blocks before it verify.
#[test]
fn verify_fails_on_a_block_corrupted_by_fault_injection() {
    let dir = tempfile::tempdir().unwrap();
    let dev = device(dir.path());
    let job = "[w]\nfilename=DEV\nioengine=sg\nrw=write\nbs=512\noffset=4m\nsize=10k\nbuffer_pattern=0x5a\n";
    let (_, o) = bench(dir.path(), &dev, job);
    assert!(o.status.success(), "{}", text(&o));
    let zone = (4u64 << 20) / 512;
    for wp in ["10", "20"] {
        let o = Command::new(zonekit())
            .args(["zone", "inject", "-o", &zone.to_string()])
            .arg(&dev)
            .arg(format!("move-wp={wp}"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let verify = "[v]\nfilename=DEV\nioengine=sg\nrw=write\nbs=512\noffset=4m\nsize=SIZE\nbuffer_pattern=0x5a\nsg_write_mode=verify_bytchk_01\n";
    let (doc, o) = bench(dir.path(), &dev, &verify.replace("SIZE", "5k"));
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(writes(&doc), [row("v", 0, 10, 5120)]);
    let (doc, o) = bench(dir.path(), &dev, &verify.replace("SIZE", "10k"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(writes(&doc), [row("v", libc::EIO, 11, 5120)], "the 11th block (sector 10) is the first bad one");
    assert!(text(&o).contains("Input/output error: write offset=4199424, buflen=512"), "{}", text(&o));
}

/// A VERIFY that compares needs a device that keeps data: refused before any I/O on an
/// `@PROFILE` device (exit 1, one line naming the option), as `verify=` is; the medium check
/// (BYTCHK 00) and the other modes run there.
#[test]
fn comparing_verify_needs_a_device_that_keeps_data() {
    let dir = tempfile::tempdir().unwrap();
    for mode in ["verify_bytchk_01", "verify_bytchk_11"] {
        let m = format!("--sg_write_mode={mode}");
        let args = ["--name=v", "--filename=@zbc-small", "--ioengine=sg", "--rw=write", "--size=64k", &m];
        let o = raw(zonekit(), &args, dir.path());
        assert_eq!(o.status.code(), Some(1), "{mode}: {}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(&format!("sg_write_mode={mode}: @zbc-small keeps no data")),
            "{mode}: {}",
            text(&o)
        );
    }
    for mode in ["verify_bytchk_00", "write_and_verify", "same", "write_same_ndob", "write_stream"] {
        let m = format!("--sg_write_mode={mode}");
        let args = ["--name=v", "--filename=@zbc-small", "--ioengine=sg", "--rw=write", "--size=64k", "--bs=4k", &m];
        let o = raw(zonekit(), &args, dir.path());
        assert!(o.status.success(), "{mode}: {}", text(&o));
        assert!(text(&o).contains("io=64.0KiB"), "{mode}: {}", text(&o));
    }
    // A value fio 3.33 does not have: one line, exit 2.
    let o =
        raw(zonekit(), &["--name=v", "--filename=@zbc-small", "--ioengine=sg", "--sg_write_mode=bogus"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1, "{}", text(&o));
}
