//! End-to-end tests of `zonekit mkfs` and `zonekit fs ls|stat|cat`: mkzonefs's summary, the
//! volume read back through the library, and bad input per docs/architecture.md (errors and exit
//! codes).

use std::path::Path;
use std::process::{Command, Output};

fn zonekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).args(args).output().expect("run zonekit")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Success, with the output.
#[track_caller]
fn ok(args: &[&str]) -> String {
    let o = zonekit(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

/// A failure: the exit code, and exactly one stderr line starting `zonekit: ` that contains `needle`.
#[track_caller]
fn fails(args: &[&str], code: i32, needle: &str) {
    let o = zonekit(args);
    let err = String::from_utf8(o.stderr.clone()).unwrap();
    assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(err.starts_with("zonekit: "), "{err:?}");
    assert!(err.contains(needle), "{err:?} should contain {needle:?}");
}

/// An emulated device directory: 1 MiB zones, 8 zones, 3 conventional.
fn device(tmp: &Path, name: &str, extra: &[&str]) -> String {
    let dir = tmp.join(name).display().to_string();
    let mut args = vec!["dev", "create", &dir, "--zone-size", "1M", "--zones", "8", "--conv-zones", "3"];
    args.extend_from_slice(extra);
    ok(&args);
    dir
}

/// The summary with its random UUID replaced.
fn without_uuid(s: &str) -> String {
    s.lines().map(|l| if l.starts_with("  FS UUID: ") { "  FS UUID: X" } else { l }).collect::<Vec<_>>().join("\n")
}

#[test]
fn mkfs_prints_mkzonefs_summary_and_the_volume_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = device(tmp.path(), "d", &[]);
    let out = ok(&["mkfs", &dev, "--label", "vol", "--uid", "1000", "--perm", "600"]);
    assert_eq!(
        without_uuid(&out),
        format!(
            "{dev}: 16384 512-byte sectors (0 GiB)
  Host-managed device
  8 zones of 2048 512-byte sectors (1 MiB)
  3 conventional zones, 5 sequential zones
  0 read-only zones, 0 offline zones
Format:
  7 usable zones
  Aggregate conventional zones: disabled
  FS label: vol
  File UID: 1000
  File GID: 0
  File access permissions: 600
  FS UUID: X
Resetting sequential zones
Writing super block"
        )
    );
    // The superblock's bytes at sector 0: magic, label, features uid|perm.
    let sb = zonekit(&["zone", "read", &dev, "-o", "0", "-l", "8"]).stdout;
    assert_eq!(&sb[0..4], b"SFOZ");
    assert_eq!(&sb[8..11], b"vol");
    assert_eq!(sb[0x58], 0b1010);

    // 4 KiB written to the first sequential zone (zone 3) shows as seq/0's size and contents.
    ok(&["zone", "write", &dev, "-o", "6144", "-l", "8", "--pattern", "0x5a"]);
    assert_eq!(
        ok(&["fs", "ls", &dev]),
        "       9 dr-xr-xr-x  2     0     0              2 cnv\n      10 dr-xr-xr-x  2     0     0              5 seq\n"
    );
    let seq = ok(&["fs", "ls", &dev, "seq"]);
    assert_eq!(seq.lines().next().unwrap(), "       3 -rw-------  1  1000     0           4096 0");
    assert_eq!(seq.lines().count(), 5);
    assert_eq!(ok(&["fs", "ls", &dev, "/cnv/1"]), "       2 -rw-------  1  1000     0        1048576 cnv/1\n");
    let cat = zonekit(&["fs", "cat", &dev, "seq/0"]);
    assert!(cat.status.success());
    assert_eq!(cat.stdout, vec![0x5a; 4096]);
    assert_eq!(zonekit(&["fs", "cat", &dev, "seq/1"]).stdout.len(), 0);
    assert_eq!(zonekit(&["fs", "cat", &dev, "cnv/0"]).stdout.len(), 1 << 20);

    let st = ok(&["fs", "stat", &dev, "seq/0"]);
    assert!(st.contains(" Inode: 3\n"), "{st}");
    assert!(st.contains("  Size: 4096\n"), "{st}");
    assert!(st.contains("Blocks: 2048 (512-byte)"), "{st}");
    let root = ok(&["fs", "stat", &dev]);
    assert!(root.contains("  Label: vol\n"), "{root}");
    assert!(root.contains("  Inodes: total 9 free 0\n"), "{root}");
    assert!(root.contains("  nr_active_seq_files: 1\n"), "{root}");

    // Reading changed nothing: zone 3 is still open with 8 sectors written.
    let z = ok(&["zone", "report", &dev, "-o", "6144", "-c", "1"]);
    assert!(z.contains("wptr 0x000008") && z.contains("(oi)"), "{z}");
}

#[test]
fn mkfs_with_aggregated_conventional_zones_and_sequential_zone_0() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = device(tmp.path(), "a", &[]);
    let out = ok(&["mkfs", &dev, "--aggr-cnv"]);
    assert!(out.contains("  Aggregate conventional zones: enabled\n"), "{out}");
    assert_eq!(ok(&["fs", "ls", &dev, "cnv"]), "       1 -rw-r-----  1     0     0        2097152 0\n");

    let dir = tmp.path().join("s").display().to_string();
    ok(&["dev", "create", &dir, "--zone-size", "1M", "--zones", "4"]);
    ok(&["mkfs", &dir]);
    // Zone 0 holds the superblock and is finished.
    let z = ok(&["zone", "report", &dir, "-c", "1"]);
    assert!(z.contains("(fu)"), "{z}");
    assert_eq!(ok(&["fs", "ls", &dir]), "       6 dr-xr-xr-x  2     0     0              3 seq\n");
}

#[test]
fn bad_input_and_refusals() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = device(tmp.path(), "b", &[]);
    // Unformatted.
    fails(&["fs", "ls", &dev], 1, "not formatted as zonefs");
    // Bad values: exit 2.
    fails(&["mkfs", &dev, "--perm", "999"], 2, "--perm");
    fails(&["mkfs", &dev, "--perm", "rw"], 2, "--perm");
    fails(&["mkfs", &dev, "--uid", "x"], 2, "--uid");
    fails(&["mkfs", &dev, "--label", &"x".repeat(64)], 2, "at most 63 bytes");
    fails(&["mkfs"], 2, "DEV");
    fails(&["fs", "cat", &dev], 2, "PATH");
    fails(&["mkfs", &tmp.path().join("missing").display().to_string()], 2, "no such file");
    // A device that keeps no data.
    fails(&["mkfs", "@nullb-1t"], 1, "keeps no data");
    let none = device(tmp.path(), "n", &["--data", "none"]);
    fails(&["mkfs", &none], 1, "keeps no data");
    // Formatted once: again only with --force.
    ok(&["mkfs", &dev]);
    fails(&["mkfs", &dev], 1, "already holds a zonefs superblock (use --force to format again) (EEXIST)");
    ok(&["mkfs", &dev, "--force"]);
    // Paths.
    fails(&["fs", "stat", &dev, "seq/5"], 1, "seq/5: No such file or directory (ENOENT)");
    fails(&["fs", "stat", &dev, "seq/00"], 1, "(ENOENT)");
    fails(&["fs", "ls", &dev, "seq/0123456789abcdefg"], 1, "(ENAMETOOLONG)");
    fails(&["fs", "cat", &dev, "seq"], 1, "is a directory (EISDIR)");
    // A broken CRC (a label byte, then a reserved byte: the checksum is checked first, as the
    // kernel does). Zone 0's data is the file cnv-000000 of the directory.
    let zone0 = Path::new(&dev).join("cnv-000000");
    let mut b = std::fs::read(&zone0).unwrap();
    b[0x20] ^= 0xff;
    std::fs::write(&zone0, &b).unwrap();
    fails(&["fs", "ls", &dev], 1, "bad superblock checksum");
    b[0x20] ^= 0xff;
    b[0x100] = 1;
    std::fs::write(&zone0, &b).unwrap();
    fails(&["fs", "ls", &dev], 1, "bad superblock checksum");
    // Non-zero data in zone 0 needs --force.
    fails(&["mkfs", &dev], 1, "zone 0 holds data");
}
