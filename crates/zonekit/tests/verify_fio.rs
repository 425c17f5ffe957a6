//! Data verification side by side with real fio 3.33 on the same jobs: a file one tool writes
//! (`do_verify=0`) verifies in the other (`verify_only=1`, or a read job), for every verify
//! method; a block corrupted between the write and the verify phase fails both with the same
//! lines and exit code; zonekit's verify state file is fio's, byte for byte, and each tool loads
//! the other's. Needs `fio` (Debian's 3.33) and `fio-verify-state`: without them the tests fail.

use std::path::Path;
use std::process::{Command, Output};

const ZONEKIT: &str = env!("CARGO_BIN_EXE_zonekit");

fn tool(program: &str, args: &[&str], dir: &Path) -> Output {
    let mut cmd = Command::new(program);
    if program == ZONEKIT {
        cmd.arg("bench");
    }
    cmd.args(args).current_dir(dir).output().unwrap_or_else(|e| panic!("{program} must be installed: {e}"))
}

fn fio(args: &[&str], dir: &Path) -> Output {
    tool("fio", args, dir)
}

fn zonekit(args: &[&str], dir: &Path) -> Output {
    tool(ZONEKIT, args, dir)
}

fn ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\n{}\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn job<'a>(file: &'a str, rw: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["--name=v", file, "--size=256k", "--bs=4k", rw];
    v.extend_from_slice(extra);
    v
}

#[test]
fn files_written_by_either_tool_verify_in_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let methods: &[&[&str]] = &[
        &["--verify=md5"],
        &["--verify=crc64"],
        &["--verify=crc32"],
        &["--verify=crc32c"],
        &["--verify=crc32c-intel"],
        &["--verify=crc16"],
        &["--verify=crc7"],
        &["--verify=sha1"],
        &["--verify=sha256"],
        &["--verify=sha512"],
        &["--verify=sha3-224"],
        &["--verify=sha3-256"],
        &["--verify=sha3-384"],
        &["--verify=sha3-512"],
        &["--verify=xxhash"],
        &["--verify=meta"],
        &["--verify=pattern", "--verify_pattern=0xdeadbeef"],
        &["--verify_pattern=%o\"zonekit\""],
        &["--verify=md5", "--verify_interval=512"],
        &["--verify=crc32c", "--verify_offset=100"],
    ];
    for m in methods {
        for (writer, reader) in [("fio", "zonekit"), ("zonekit", "fio")] {
            let run = |who: &str, args: &[&str]| if who == "fio" { fio(args, d) } else { zonekit(args, d) };
            let _ = std::fs::remove_file(d.join("data"));
            let mut w = m.to_vec();
            w.push("--do_verify=0");
            ok(&run(writer, &job("--filename=data", "--rw=randwrite", &w)), &format!("{writer} writes {m:?}"));
            // A writing job that only verifies, and a read job that verifies every read.
            let mut v = m.to_vec();
            v.push("--verify_only=1");
            ok(&run(reader, &job("--filename=data", "--rw=write", &v)), &format!("{reader} verifies {writer}'s {m:?}"));
            ok(&run(reader, &job("--filename=data", "--rw=read", m)), &format!("{reader} reads {writer}'s {m:?}"));
        }
    }
}

/// The lines each tool prints about a failed block, without the pid and with `fio: ` for
/// `zonekit: `.
fn verify_lines(o: &Output) -> Vec<String> {
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    all.lines()
        .filter(|l| l.contains("verify") || l.contains("CRC:") || l.contains("pattern") || l.contains("err=84/"))
        .filter(|l| !l.contains("(g=0)"))
        .map(|l| {
            let l = l.replacen("zonekit: ", "fio: ", 1);
            match l.find("pid=") {
                Some(i) => {
                    let rest = &l[i..];
                    let comma = rest.find(',').unwrap_or(rest.len());
                    format!("{}pid=N{}", &l[..i], &rest[comma..])
                }
                None => l,
            }
        })
        .filter(|l| !l.starts_with("v: (groupid"))
        .collect()
}

#[test]
fn a_block_corrupted_between_write_and_verify_fails_both_tools_alike() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: &[(&[&str], u64)] = &[
        (&["--verify=md5"], 3 * 4096 + 200),
        (&["--verify=crc32c"], 5 * 4096 + 2),
        (&["--verify=sha256"], 7 * 4096 + 3000),
        (&["--verify=pattern", "--verify_pattern=0x5a5a"], 2 * 4096 + 17),
    ];
    for (m, at) in cases {
        for engine in ["--ioengine=psync", "--ioengine=libaio"] {
            let _ = std::fs::remove_file(d.join("data"));
            let mut w = m.to_vec();
            w.push("--do_verify=0");
            ok(&fio(&job("--filename=data", "--rw=write", &w), d), "fio writes");
            let mut data = std::fs::read(d.join("data")).unwrap();
            data[*at as usize] ^= 0x5a;
            std::fs::write(d.join("data"), &data).unwrap();
            let mut v = m.to_vec();
            v.extend_from_slice(&["--verify_only=1", engine]);
            let args = job("--filename=data", "--rw=write", &v);
            let (f, z) = (fio(&args, d), zonekit(&args, d));
            assert_eq!(f.status.code(), Some(1), "fio fails");
            assert_eq!(z.status.code(), Some(1), "zonekit fails as fio");
            // fio prints its `pid=` line on standard output, zonekit on standard error: the same
            // lines, in another order.
            let (mut fl, mut zl) = (verify_lines(&f), verify_lines(&z));
            fl.sort();
            zl.sort();
            assert!(!fl.is_empty());
            assert_eq!(zl, fl, "{m:?} {engine}");
        }
    }
}

#[test]
fn verify_dump_writes_the_files_fio_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&zonekit(&job("--filename=data", "--rw=write", &["--verify=md5", "--do_verify=0"]), d), "write");
    let mut data = std::fs::read(d.join("data")).unwrap();
    data[4096 + 300] ^= 1;
    std::fs::write(d.join("data"), &data).unwrap();
    let args = job("--filename=data", "--rw=read", &["--verify=md5", "--verify_dump=1"]);
    let names = |o: &Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stderr).lines().filter(|l| l.contains("dumped as")).map(str::to_string).collect()
    };
    let f = fio(&args, d);
    let fio_received = std::fs::read(d.join("data.4096.received")).unwrap();
    let z = zonekit(&args, d);
    assert_eq!(names(&z), names(&f));
    assert_eq!(
        names(&z),
        ["       received data dumped as data.4096.received", "       expected data dumped as data.4096.expected"]
    );
    assert_eq!(std::fs::read(d.join("data.4096.received")).unwrap(), fio_received, "the block read");
    // zonekit wrote the block, so it regenerates what it wrote.
    assert_eq!(std::fs::read(d.join("data.4096.expected")).unwrap(), {
        data[4096 + 300] ^= 1;
        data[4096..8192].to_vec()
    });
}

#[test]
fn verify_state_files_are_fios() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = job("--filename=data", "--rw=write", &["--verify=crc32c", "--iodepth=1"]);
    ok(&fio(&args, d), "fio");
    let fio_state = std::fs::read(d.join("local-v-0-verify.state")).unwrap();
    std::fs::remove_file(d.join("local-v-0-verify.state")).unwrap();
    ok(&zonekit(&args, d), "zonekit");
    let zk_state = std::fs::read(d.join("local-v-0-verify.state")).unwrap();
    assert_eq!(zk_state, fio_state, "the same state file, byte for byte");
    let shown = Command::new("fio-verify-state").arg(d.join("local-v-0-verify.state")).output().unwrap();
    ok(&shown, "fio-verify-state reads zonekit's file");
    assert!(String::from_utf8_lossy(&shown.stdout).contains("Number IOs:\t64"));
    // Each tool loads the state the other saved and verifies up to it.
    let load = job("--filename=data", "--rw=read", &["--verify=crc32c", "--verify_state_load=1"]);
    ok(&fio(&load, d), "fio loads zonekit's state");
    ok(&zonekit(&load, d), "zonekit loads its state");
    // A writer that does not read back (do_verify=0, as fio's examples/surface-scan.fio's write
    // phase) saves its state too.
    std::fs::remove_file(d.join("local-v-0-verify.state")).unwrap();
    let args = job("--filename=data", "--rw=write", &["--verify=crc32c", "--iodepth=1", "--do_verify=0"]);
    ok(&fio(&args, d), "fio");
    let fio_state = std::fs::read(d.join("local-v-0-verify.state")).expect("fio saves the state");
    std::fs::remove_file(d.join("local-v-0-verify.state")).unwrap();
    ok(&zonekit(&args, d), "zonekit");
    let zk_state = std::fs::read(d.join("local-v-0-verify.state")).expect("zonekit saves the state");
    assert_eq!(zk_state, fio_state, "do_verify=0: the same state file");
}

#[test]
fn zone_mode_writes_then_verifies_as_fio() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A regular file with emulated zones, in both tools: write, then the verify phase.
    let args = [
        "--name=z",
        "--filename=zdata",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--size=4m",
        "--bs=64k",
        "--rw=write",
        "--verify=crc32c",
        "--direct=0",
    ];
    std::fs::write(d.join("zdata"), vec![0u8; 4 << 20]).unwrap();
    let f = fio(&args, d);
    ok(&f, "fio");
    let z = zonekit(&args, d);
    ok(&z, "zonekit");
    let z_out = String::from_utf8_lossy(&z.stdout);
    assert!(z_out.contains("read: IOPS="), "the verify phase is reported:\n{z_out}");
    assert!(z_out.contains("issued rwts: total=64,64,0,0"), "{z_out}");
    // zonekit's own emulated device, made with `zonekit dev create`: data persists.
    let dev = d.join("dev");
    let c =
        Command::new(ZONEKIT).args(["dev", "create", "--zone-size", "1M", "--zones", "8"]).arg(&dev).output().unwrap();
    ok(&c, "dev create");
    let dev_arg = format!("--filename={}", dev.display());
    let z = zonekit(
        &["--name=z", &dev_arg, "--zonemode=zbd", "--size=4m", "--bs=64k", "--rw=write", "--verify=md5", "--direct=1"],
        d,
    );
    ok(&z, "zonekit on its device");
    let out = String::from_utf8_lossy(&z.stdout);
    assert!(out.contains("issued rwts: total=64,64,0,0"), "{out}");
    let r = zonekit(
        &["--name=z", &dev_arg, "--zonemode=zbd", "--size=4m", "--bs=64k", "--rw=read", "--verify=md5", "--direct=1"],
        d,
    );
    ok(&r, "a read job verifies what the device kept");
}
