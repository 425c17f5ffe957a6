//! fio 3.33's `e4defrag` engine beside `zonekit bench`: on a real ext4 (an image made with
//! `mkfs.ext4` and loop-mounted for the test), the same jobs (fio's `examples/e4defrag.fio` and
//! `e4defrag2.fio`, made smaller and pointed at the mount) move the same blocks with the same I/O
//! counts, bytes, errors and exit codes, and leave the same files; off ext4 (tmpfs) both fail the
//! first write with `ENOTTY`; on zonekit's emulated devices the engine is refused in one line.
//!
//! Needs `fio`, and root for the loop mount: the comparisons are `#[ignore]`d for a plain `cargo
//! test`; `scripts/test.sh` runs them. Without root or loop devices the ext4 part says why it is
//! skipped; anything else that fails (mkfs, mount, either tool) fails the test.

mod common;

use common::{listing, raw, require_fio, run, text, zonekit};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A loop-mounted ext4 image, unmounted and removed when dropped (a failing test too).
struct Ext4 {
    dir: tempfile::TempDir,
    mnt: PathBuf,
    mounted: bool,
}

impl Ext4 {
    /// A fresh 128 MiB ext4 (4 KiB blocks), or why it cannot be had here (not root, no loop
    /// devices): then the caller skips.
    fn mount() -> Result<Ext4, String> {
        if !nix::unistd::geteuid().is_root() {
            return Err("not root: mounting a loop device needs root".into());
        }
        if !Path::new("/dev/loop-control").exists() {
            return Err("no /dev/loop-control: this machine has no loop devices".into());
        }
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("ext4.img");
        std::fs::File::create(&image).unwrap().set_len(128 << 20).unwrap();
        let mkfs = Command::new("mkfs.ext4").args(["-q", "-F", "-b", "4096"]).arg(&image).output();
        let mkfs = mkfs.unwrap_or_else(|e| panic!("mkfs.ext4 (package e2fsprogs): {e}"));
        assert!(mkfs.status.success(), "mkfs.ext4: {}", text(&mkfs));
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        let mut fs = Ext4 { dir, mnt, mounted: false };
        let m = Command::new("mount").args(["-t", "ext4", "-o", "loop"]).arg(&image).arg(&fs.mnt).output().unwrap();
        assert!(m.status.success(), "mount -o loop {}: {}", image.display(), text(&m));
        fs.mounted = true;
        Ok(fs)
    }

    /// A new empty directory on the file system.
    fn subdir(&self, name: &str) -> PathBuf {
        let d = self.mnt.join(name);
        std::fs::create_dir(&d).unwrap();
        d
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        if self.mounted {
            let ok = Command::new("umount").arg(&self.mnt).status().is_ok_and(|s| s.success());
            if !ok {
                // Something still holds it (a process a failed test left): detach it anyway.
                let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
            }
        }
        let _ = &self.dir;
    }
}

/// Per job: its name, error, and write I/Os, bytes, short I/Os and latency samples (completion,
/// total, submission: a synchronous engine has none of the last), and read I/Os.
fn counts(doc: &Value) -> Vec<(String, i64, [u64; 7])> {
    doc["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("no jobs in {doc}"))
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or_else(|| panic!("{d}.{k} in {j}"));
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["error"].as_i64().unwrap(),
                [
                    n("write", "total_ios"),
                    n("write", "io_bytes"),
                    n("write", "short_ios"),
                    j["write"]["clat_ns"]["N"].as_u64().unwrap(),
                    j["write"]["lat_ns"]["N"].as_u64().unwrap(),
                    j["write"]["slat_ns"]["N"].as_u64().unwrap(),
                    n("read", "total_ios"),
                ],
            )
        })
        .collect()
}

/// Runs job file `job` (with `DIR` standing for a directory of its own) through both tools;
/// asserts the same exit code, per-job counts and files left; returns fio's report.
fn compare(fs: &Ext4, name: &str, job: &str) -> Value {
    let mut docs = Vec::new();
    for (tool, program) in [("fio", "fio"), ("zonekit", zonekit())] {
        let dir = fs.subdir(&format!("{name}-{tool}"));
        let file = dir.join("job.fio");
        std::fs::write(&file, job.replace("DIR", &dir.display().to_string())).unwrap();
        let (doc, o) = run(program, &[file.to_str().unwrap()], &dir);
        std::fs::remove_file(&file).unwrap();
        docs.push((doc, o, listing(&dir)));
        // Room for the next comparison.
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let (f, z) = (&docs[0], &docs[1]);
    let what = |d: &(Value, std::process::Output, Vec<(String, u64)>)| format!("{}{}", text(&d.1), d.0);
    assert_eq!(f.1.status.code(), z.1.status.code(), "{name}: exit code\nfio: {}\nzonekit: {}", what(f), what(z));
    assert_eq!(
        counts(&f.0),
        counts(&z.0),
        "{name}: per job: error, write (ios, bytes, short, clat/lat/slat samples), read ios"
    );
    assert_eq!(f.2, z.2, "{name}: the files left");
    f.0.clone()
}

/// fio's `examples/e4defrag.fio` (its first job; the second runs beside libaio jobs for 30 s)
/// and `e4defrag2.fio` (its e4defrag jobs; the rest run libaio beside them), smaller.
fn ext4_as_fio() {
    require_fio();
    let fs = match Ext4::mount() {
        Ok(fs) => fs,
        Err(why) => {
            eprintln!("skipped: the e4defrag comparison on ext4 needs a loop-mounted ext4: {why}");
            return;
        }
    };
    // e4defrag.fio: one job, the donor preallocated over the file's size.
    let f = compare(
        &fs,
        "isolated",
        "[global]\nioengine=e4defrag\ndirectory=DIR\nnrfiles=1\nfilesize=8M\nsize=8M\nbs=32k\n\
         [isolated-e4defrag]\nbuffered=0\ndonorname=file.def\nfilename=file1\ninplace=0\nrw=write\n",
    );
    assert_eq!(counts(&f)[0].2, [256, 8 << 20, 0, 256, 256, 0, 0], "8 MiB moved in 32 KiB I/Os, each timed");
    // e4defrag2.fio: four clones sharing a donor, two jobs each other's donor, and random 4 KiB
    // moves allocating the donor's blocks for each (inplace).
    let f = compare(
        &fs,
        "e4defrag2",
        "[global]\nioengine=e4defrag\ngroup_reporting\ndirectory=DIR\nnrfiles=1\nfilesize=4M\nsize=4M\n\
         donorname=file.def\nbs=32k\n\
         [parallel-e4defrag]\nbuffered=0\ninplace=0\nrw=write\nnumjobs=4\n\
         [e4defrag-1]\nstonewall\ninplace=0\nrw=write\ndonorname=e4defrag-2\n\
         [e4defrag-2]\ninplace=0\nrw=write\ndonorname=e4defrag-1\n\
         [e4defrag-fuzzer-4k]\nstonewall\ninplace=1\nbs=4k\nrw=randwrite\nfilename=file\ndonorname=file.def\n",
    );
    let c = counts(&f);
    assert_eq!(c.iter().map(|j| j.2[0]).collect::<Vec<_>>(), [512, 256, 1024], "{c:?}");
    // A job that reads: fio's engine fails anything but a write with EINVAL (exit code 1).
    let f = compare(
        &fs,
        "read",
        "[r]\nioengine=e4defrag\ndirectory=DIR\nfilename=f\nfilesize=1M\nbs=32k\nrw=read\ndonorname=d\n",
    );
    assert_eq!(counts(&f)[0].1, libc::EINVAL as i64);
    // Without filesize the donor's preallocation is empty: the engine's setup fails (EINVAL).
    compare(&fs, "nofilesize", "[n]\nioengine=e4defrag\ndirectory=DIR\nfilename=f\nsize=1M\nrw=write\ndonorname=d\n");
}

/// Off ext4 (tmpfs, in /dev/shm): the donor is preallocated, the first move fails with ENOTTY.
fn tmpfs_as_fio() {
    require_fio();
    let args = [
        "--name=t",
        "--ioengine=e4defrag",
        "--filename=f",
        "--filesize=1M",
        "--size=1M",
        "--bs=32k",
        "--rw=write",
        "--donorname=f.def",
    ];
    let mut seen = Vec::new();
    for program in ["fio", zonekit()] {
        let dir = tempfile::tempdir_in("/dev/shm").unwrap();
        let o = raw(program, &args, dir.path());
        let out = text(&o);
        assert!(out.contains("err=25") && out.contains("Inappropriate ioctl for device"), "{program}: {out}");
        assert!(out.contains("issued rwts: total=0,1,0,0"), "{program}: one write issued: {out}");
        seen.push((o.status.code(), listing(dir.path())));
    }
    assert_eq!(seen[0], seen[1], "exit codes and files left (the file and its preallocated donor)");
    assert_eq!(seen[0].0, Some(1));
}

/// zonekit's own refusals: on an emulated device (the engine works on a file and its donor),
/// and without donorname (fio's line; fio fails the job at its start, exit code 1).
#[test]
fn e4defrag_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--name=d", "--filename=@nullb-small", "--rw=write", "--ioengine=e4defrag", "--donorname=x"];
    let o = raw(zonekit(), &args, dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("ioengine=e4defrag: not available on zonekit's emulated devices"), "{err}");
    assert!(err.contains("EXT4_IOC_MOVE_EXT"), "{err}");
    let o = raw(zonekit(), &["--name=d", "--filename=f", "--size=1m", "--rw=write", "--ioengine=e4defrag"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        "zonekit: job d: ioengine=e4defrag: 'donorname' options required"
    );
    assert!(!dir.path().join("f").exists(), "no file made for a refused job");
}

/// The tests that need a tool besides Rust: ignored by a plain `cargo test`, run by
/// `scripts/test.sh`, and failing there when the tool is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn e4defrag_on_ext4_as_fio() {
        super::ext4_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn e4defrag_off_ext4_as_fio() {
        super::tmpfs_as_fio();
    }
}
