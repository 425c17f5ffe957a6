//! zonefs-tools' test cases (`tests/00xx`–`06xx` of zonefs-tools 1.6.0) against a FUSE mount of
//! an emulated device (`zonekit mount`), one test per case, named `tNNNN_…` after the case.
//! `docs/zonefs.md` has the table of all 113 cases.
//!
//! The mounts need root and `/dev/fuse`. Without them these tests fail, so that CI never skips
//! them silently; a developer without FUSE sets `ZONEKIT_SKIP_FUSE=1` to skip them.
//!
//! The device of most cases: 12 zones of 4 MiB, 4 conventional (zone 0 holds the superblock, so
//! 3 `cnv/` files and 8 `seq/` files), an open limit of 4 and an active limit of 6. I/O goes
//! through small helpers of our own in the spirit of zonefs-tools' `zio` and `zopen`: writes
//! and reads with `O_DIRECT`, `O_APPEND`, `O_DSYNC`, vectors; files held open for writing.

use std::fs::{File, OpenOptions};
use std::io::{IoSlice, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

const ZONEKIT: &str = env!("CARGO_BIN_EXE_zonekit");
const MIB: u64 = 1 << 20;
const ZONE: u64 = 4 * MIB;
const NR_ZONES: u64 = 12;
const NR_CNV: u64 = 4;
const MAX_OPEN: u32 = 4;
const MAX_ACTIVE: u32 = 6;

/// Whether the mount tests can run: root and `/dev/fuse`. Missing either fails the test unless
/// `ZONEKIT_SKIP_FUSE` is set.
fn fuse_ready() -> bool {
    let root = std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false);
    let fuse = Path::new("/dev/fuse").exists();
    if root && fuse {
        return true;
    }
    if std::env::var_os("ZONEKIT_SKIP_FUSE").is_some() {
        eprintln!("skipped: ZONEKIT_SKIP_FUSE is set and {}", if root { "/dev/fuse is missing" } else { "not root" });
        return false;
    }
    panic!(
        "zonefs mount tests need root and /dev/fuse ({}); set ZONEKIT_SKIP_FUSE=1 to skip them",
        if root { "/dev/fuse is missing" } else { "not root" }
    );
}

/// A device's shape.
#[derive(Clone, Copy)]
struct Shape {
    zones: u64,
    conv: u64,
}

const DEFAULT: Shape = Shape { zones: NR_ZONES, conv: NR_CNV };

/// A device in a temporary directory, its mount point, and the mount daemon when mounted.
struct Env {
    _tmp: tempfile::TempDir,
    dev: PathBuf,
    mnt: PathBuf,
    rt: PathBuf,
    shape: Shape,
    daemon: Option<Child>,
}

impl Drop for Env {
    fn drop(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            let _ = nix::mount::umount2(&self.mnt, nix::mount::MntFlags::MNT_DETACH);
            let _ = d.wait();
        }
    }
}

fn zonekit(rt: &Path, args: &[&str]) -> Output {
    Command::new(ZONEKIT).args(args).env("ZONEKIT_RUNTIME_DIR", rt).output().expect("run zonekit")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "zonekit failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

impl Env {
    /// A fresh device of `shape`, not formatted.
    fn blank(shape: Shape) -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let (dev, mnt, rt) = (tmp.path().join("dev"), tmp.path().join("mnt"), tmp.path().join("run"));
        std::fs::create_dir(&mnt).unwrap();
        let env = Env { _tmp: tmp, dev, mnt, rt, shape, daemon: None };
        let (zones, conv) = (shape.zones.to_string(), shape.conv.to_string());
        let (mo, ma) = (MAX_OPEN.to_string(), MAX_ACTIVE.to_string());
        ok(&env.zk(&[
            "dev",
            "create",
            env.d(),
            "--zone-size",
            "4M",
            "--zones",
            &zones,
            "--conv-zones",
            &conv,
            "--max-open",
            &mo,
            "--max-active",
            &ma,
        ]));
        env
    }

    /// A device of `shape` formatted with `mkfs` options `opts`.
    fn formatted(shape: Shape, opts: &[&str]) -> Env {
        let env = Env::blank(shape);
        env.mkfs(opts);
        env
    }

    /// The default device, formatted and mounted with `-o opts`.
    fn mounted(opts: &str) -> Env {
        let mut env = Env::formatted(DEFAULT, &[]);
        env.mount(opts).unwrap();
        env
    }

    fn d(&self) -> &str {
        self.dev.to_str().unwrap()
    }

    fn zk(&self, args: &[&str]) -> Output {
        zonekit(&self.rt, args)
    }

    fn mkfs(&self, opts: &[&str]) {
        let mut a = vec!["mkfs", self.d(), "--force"];
        a.extend_from_slice(opts);
        ok(&self.zk(&a));
    }

    /// Mount in the foreground daemon; `Err(stderr)` if it fails.
    fn mount(&mut self, opts: &str) -> Result<(), String> {
        assert!(self.daemon.is_none());
        let mut child = Command::new(ZONEKIT)
            .args(["mount", self.d(), self.mnt.to_str().unwrap(), "-o", opts, "--foreground"])
            .env("ZONEKIT_RUNTIME_DIR", &self.rt)
            .env("ZONEKIT_MOUNT_NOTIFY", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = [0u8; 6];
        let mut out = child.stdout.take().unwrap();
        if out.read_exact(&mut line).is_ok() && &line == b"ready\n" {
            self.daemon = Some(child);
            return Ok(());
        }
        let o = child.wait_with_output().unwrap();
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }

    /// Unmount, and check that the daemon closed the device cleanly.
    fn umount(&mut self) {
        let mut d = self.daemon.take().expect("mounted");
        // Another test's thread forking a command holds copies of this test's descriptors
        // until its exec (they are close-on-exec): the mount is busy for that moment.
        let mut r = nix::mount::umount(&self.mnt);
        for _ in 0..200 {
            if r != Err(nix::errno::Errno::EBUSY) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            r = nix::mount::umount(&self.mnt);
        }
        r.expect("umount");
        let st = d.wait().unwrap();
        let mut err = String::new();
        if let Some(mut e) = d.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        assert!(st.success(), "the mount daemon failed: {err}");
    }

    fn remount(&mut self, opts: &str) {
        self.umount();
        self.mount(opts).unwrap();
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.mnt.join(rel)
    }

    fn nr_cnv_files(&self) -> u64 {
        self.shape.conv.saturating_sub(1)
    }

    fn nr_seq_files(&self) -> u64 {
        let seq = self.shape.zones - self.shape.conv;
        if self.shape.conv == 0 { seq - 1 } else { seq }
    }

    fn stats(&self) -> Vec<(String, u64)> {
        ok(&self.zk(&["fs", "stats", self.mnt.to_str().unwrap()]))
            .lines()
            .map(|l| {
                let (k, v) = l.split_once(' ').unwrap();
                (k.to_string(), v.parse().unwrap())
            })
            .collect()
    }

    fn stat(&self, name: &str) -> u64 {
        self.stats().into_iter().find(|(k, _)| k == name).unwrap().1
    }

    fn inject(&self, file: &str, fault: &[&str]) {
        let mut a = vec!["fs", "inject", self.mnt.to_str().unwrap(), file];
        a.extend_from_slice(fault);
        ok(&self.zk(&a));
    }

    fn size(&self, rel: &str) -> u64 {
        std::fs::metadata(self.p(rel)).unwrap().len()
    }

    fn perm(&self, rel: &str) -> u32 {
        std::fs::metadata(self.p(rel)).unwrap().mode() & 0o7777
    }
}

/// How a helper opens a file (`zio --fflag=`).
#[derive(Clone, Copy, Default)]
struct Fl {
    direct: bool,
    append: bool,
    dsync: bool,
}

const DIRECT: Fl = Fl { direct: true, append: false, dsync: false };
const BUFFERED: Fl = Fl { direct: false, append: false, dsync: false };
const APPEND: Fl = Fl { direct: true, append: true, dsync: false };

fn open(p: &Path, write: bool, fl: Fl) -> std::io::Result<File> {
    let mut flags = 0;
    if fl.direct {
        flags |= libc::O_DIRECT;
    }
    if fl.dsync {
        flags |= libc::O_DSYNC;
    }
    OpenOptions::new().read(true).write(write).append(fl.append).custom_flags(flags).open(p)
}

/// A buffer of `len` bytes aligned for direct I/O, filled from `seed`.
struct Buf {
    raw: Vec<u8>,
    off: usize,
    len: usize,
}

impl Buf {
    fn new(len: usize, seed: u64) -> Buf {
        let raw = vec![0u8; len + 4096];
        let off = raw.as_ptr().align_offset(4096);
        let mut b = Buf { raw, off, len };
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        for c in b.as_mut().chunks_mut(8) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let n = c.len();
            c.copy_from_slice(&x.to_le_bytes()[..n]);
        }
        b
    }

    fn as_ref(&self) -> &[u8] {
        &self.raw[self.off..self.off + self.len]
    }

    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.off..self.off + self.len]
    }
}

/// `zio --write`: one `pwrite` (or `write` with `O_APPEND`) of `len` bytes at `ofst`.
fn zwrite(p: &Path, ofst: u64, len: usize, fl: Fl) -> std::io::Result<usize> {
    let f = open(p, true, fl)?;
    zwrite_f(&f, ofst, &Buf::new(len, ofst).as_ref()[..len], fl)
}

fn zwrite_f(mut f: &File, ofst: u64, data: &[u8], fl: Fl) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    if fl.append { f.write(data) } else { f.write_at(data, ofst) }
}

/// `zio --read`: one `pread` of `len` bytes at `ofst`; the bytes read.
fn zread(p: &Path, ofst: u64, len: usize, fl: Fl) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let f = open(p, false, fl)?;
    let mut b = Buf::new(len, 0);
    let n = f.read_at(b.as_mut(), ofst)?;
    Ok(b.as_ref()[..n].to_vec())
}

/// Fill a sequential file with direct writes of `bs` (the last one short), checking each.
fn fill(p: &Path, cap: u64, bs: usize, fl: Fl) -> Vec<u8> {
    let f = open(p, true, fl).unwrap();
    let mut all = Vec::new();
    let mut at = std::fs::metadata(p).unwrap().len();
    while at < cap {
        let b = Buf::new(bs, at);
        let n = zwrite_f(&f, at, b.as_ref(), fl).unwrap();
        assert_eq!(n as u64, (bs as u64).min(cap - at));
        all.extend_from_slice(&b.as_ref()[..n]);
        at += n as u64;
    }
    all
}

fn errno(r: std::io::Result<impl Sized>) -> i32 {
    match r {
        Ok(_) => 0,
        Err(e) => e.raw_os_error().unwrap_or(-1),
    }
}

fn truncate(p: &Path, size: u64) -> std::io::Result<()> {
    nix::unistd::truncate(p, size as i64).map_err(std::io::Error::from)
}

fn ls(p: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(p).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort_by_key(|n| n.parse::<u64>().unwrap_or(u64::MAX));
    v
}

/// The open and active counters.
fn counters(env: &Env) -> (u64, u64) {
    (env.stat("nr_wro_seq_files"), env.stat("nr_active_seq_files"))
}

/// Check the counters against `want`. FUSE sends the release of a closed file in the
/// background (`close(2)` does not wait for it), so a close reaches the counters a moment later:
/// wait up to 2 s for them.
fn assert_counters(env: &Env, want: (u64, u64)) {
    let mut got = counters(env);
    for _ in 0..200 {
        if got == want {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        got = counters(env);
    }
    assert_eq!(got, want, "(nr_wro_seq_files, nr_active_seq_files)");
}

// ---- 00xx: mkfs and mount ----

#[test]
fn t0001_mkfs_options() {
    if !fuse_ready() {
        return;
    }
    let env = Env::blank(DEFAULT);
    for good in [
        &[][..],
        &["--aggr-cnv"],
        &["--uid", "0"],
        &["--gid", "0"],
        &["--perm", "777"],
        &["--aggr-cnv", "--uid", "0", "--gid", "0", "--perm", "777"],
    ] {
        env.mkfs(good);
    }
    for help in ["-h", "--help"] {
        ok(&env.zk(&["mkfs", help]));
    }
    for bad in [&["--bad-option"][..], &["--perm"], &["--perm", "invalid"], &["--uid", "x,,y"]] {
        let mut a = vec!["mkfs", env.d(), "--force"];
        a.extend_from_slice(bad);
        assert_eq!(env.zk(&a).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn t0002_mkfs_force() {
    if !fuse_ready() {
        return;
    }
    // zonefs-tools puts an f2fs volume there first; without libblkid, any data in zone 0 (or a
    // zonefs superblock) is what needs --force.
    let env = Env::blank(DEFAULT);
    ok(&env.zk(&["zone", "write", env.d(), "-o", "8", "-l", "8"]));
    for _ in 0..2 {
        let o = env.zk(&["mkfs", env.d()]);
        assert_eq!(o.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&o.stderr).contains("EEXIST"));
        env.mkfs(&[]);
    }
}

#[test]
fn t0003_mkfs_invalid_device() {
    if !fuse_ready() {
        return;
    }
    let env = Env::blank(DEFAULT);
    assert!(!env.zk(&["mkfs", "/dev/console"]).status.success());
    let plain = env.mnt.join("../plain");
    std::fs::write(&plain, vec![0u8; 1 << 20]).unwrap();
    assert!(!env.zk(&["mkfs", plain.to_str().unwrap()]).status.success());
}

#[test]
fn t0004_mkfs_super_block_zone_state() {
    if !fuse_ready() {
        return;
    }
    let env = Env::formatted(Shape { zones: 6, conv: 0 }, &[]);
    let report = ok(&env.zk(&["zone", "report", env.d(), "-c", "1"]));
    assert!(report.contains("zcond:14(fu)"), "{report}");
}

#[test]
fn t0020_mount_default() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::formatted(DEFAULT, &[]);
    env.mount("").unwrap();
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    assert!(mounts.contains(env.mnt.to_str().unwrap()));
    env.umount();
    // The device is closed: the directory's lock is free again.
    ok(&env.zk(&["fs", "ls", env.d()]));
}

#[test]
fn t0021_mount_invalid_device() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::blank(DEFAULT);
    let e = env.mount("").unwrap_err();
    assert!(e.contains("not formatted as zonefs"), "{e}");
    let mnt = env.mnt.to_str().unwrap().to_string();
    for dev in ["/dev/console", "/dev/null"] {
        let o = env.zk(&["mount", dev, &mnt]);
        assert!(!o.status.success(), "{dev}");
    }
}

#[test]
fn t0022_mount_directories() {
    if !fuse_ready() {
        return;
    }
    for (conv, cnv) in [(NR_CNV, true), (1, false), (0, false)] {
        let mut env = Env::formatted(Shape { zones: NR_ZONES, conv }, &[]);
        env.mount("").unwrap();
        assert_eq!(env.p("cnv").is_dir(), cnv, "{conv} conventional zones");
        assert!(env.p("seq").is_dir());
        env.umount();
    }
}

#[test]
fn t0023_mount_options() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::formatted(DEFAULT, &[]);
    for good in ["errors=repair", "errors=remount-ro", "errors=zone-ro", "errors=zone-offline", "explicit-open"] {
        env.mount(good).unwrap();
        env.umount();
    }
    let mnt = env.mnt.to_str().unwrap().to_string();
    for bad in ["errors=continue", "errors=panic", "foo=bar", "bad_option"] {
        let o = env.zk(&["mount", env.d(), &mnt, "-o", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
}

// ---- 004x: number of files and blocks ----

fn nr_files(aggr: bool) {
    let mut env = Env::formatted(DEFAULT, if aggr { &["--aggr-cnv"] } else { &[] });
    env.mount("").unwrap();
    let cnv = if aggr { 1 } else { env.nr_cnv_files() };
    assert_eq!(ls(&env.p("cnv")).len() as u64, cnv);
    assert_eq!(ls(&env.p("seq")).len() as u64, env.nr_seq_files());
    assert_eq!(std::fs::metadata(env.p("cnv")).unwrap().len(), cnv);
    assert_eq!(std::fs::metadata(env.p("seq")).unwrap().len(), env.nr_seq_files());
    let vfs = nix::sys::statvfs::statvfs(&env.mnt).unwrap();
    assert_eq!(vfs.files() as u64, (cnv + 1) + (env.nr_seq_files() + 1));
    let usable = (NR_ZONES - 1) * ZONE;
    assert_eq!(vfs.blocks() as u64 * vfs.fragment_size() as u64, usable);
    env.umount();
}

#[test]
fn t0040_t0042_t0044_nr_files_and_blocks() {
    if fuse_ready() {
        nr_files(false);
    }
}

#[test]
fn t0041_t0043_t0045_nr_files_and_blocks_aggr_cnv() {
    if fuse_ready() {
        nr_files(true);
    }
}

// ---- 006x, 008x: permissions and owners ----

fn all_files(env: &Env) -> Vec<String> {
    let mut v = Vec::new();
    for d in ["cnv", "seq"] {
        for f in ls(&env.p(d)) {
            v.push(format!("{d}/{f}"));
        }
    }
    v
}

fn perms(mkfs: &[&str], want: u32) {
    let mut env = Env::formatted(DEFAULT, mkfs);
    env.mount("").unwrap();
    for f in all_files(&env) {
        assert_eq!(env.perm(&f), want, "{f}");
    }
    env.umount();
}

#[test]
fn t0060_t0061_perm_default() {
    if fuse_ready() {
        perms(&[], 0o640);
        perms(&["--aggr-cnv"], 0o640);
    }
}

#[test]
fn t0062_t0063_perm_format() {
    if fuse_ready() {
        perms(&["--perm", "770"], 0o770);
        perms(&["--aggr-cnv", "--perm", "770"], 0o770);
    }
}

fn drop_caches() {
    // Only the kernel's caches: attributes are never cached by the mount anyway.
    let _ = std::fs::write("/proc/sys/vm/drop_caches", "3");
}

#[test]
fn t0064_t0065_perm_user_set() {
    if !fuse_ready() {
        return;
    }
    for aggr in [false, true] {
        let mut env = Env::formatted(DEFAULT, if aggr { &["--aggr-cnv"] } else { &[] });
        env.mount("").unwrap();
        for f in ["cnv/0", "seq/0"] {
            std::fs::set_permissions(env.p(f), std::os::unix::fs::PermissionsExt::from_mode(0o770)).unwrap();
        }
        drop_caches();
        for f in ["cnv/0", "seq/0"] {
            assert_eq!(env.perm(f), 0o770);
        }
        // chmod on a directory may not add write bits.
        let r = std::fs::set_permissions(env.p("seq"), std::os::unix::fs::PermissionsExt::from_mode(0o755));
        assert_eq!(errno(r), libc::EPERM);
        env.umount();
    }
}

fn owners(mkfs: &[&str], uid: u32, gid: u32) {
    let mut env = Env::formatted(DEFAULT, mkfs);
    env.mount("").unwrap();
    for f in all_files(&env) {
        let m = std::fs::metadata(env.p(&f)).unwrap();
        assert_eq!((m.uid(), m.gid()), (uid, gid), "{f}");
    }
    env.umount();
}

#[test]
fn t0080_t0081_owner_default() {
    if fuse_ready() {
        owners(&[], 0, 0);
        owners(&["--aggr-cnv"], 0, 0);
    }
}

#[test]
fn t0082_t0083_owner_format() {
    if !fuse_ready() {
        return;
    }
    for aggr in [&[][..], &["--aggr-cnv"]] {
        for (o, uid, gid) in [
            (&["--uid", "1000"][..], 1000, 0),
            (&["--gid", "1000"], 0, 1000),
            (&["--uid", "1000", "--gid", "2000"], 1000, 2000),
        ] {
            let mut a = aggr.to_vec();
            a.extend_from_slice(o);
            owners(&a, uid, gid);
        }
    }
}

#[test]
fn t0084_t0085_owner_user_set() {
    if !fuse_ready() {
        return;
    }
    for aggr in [false, true] {
        let mut env = Env::formatted(DEFAULT, if aggr { &["--aggr-cnv"] } else { &[] });
        env.mount("").unwrap();
        for f in ["cnv/0", "seq/0"] {
            std::os::unix::fs::chown(env.p(f), Some(1000), Some(1000)).unwrap();
        }
        drop_caches();
        for f in ["cnv/0", "seq/0"] {
            let m = std::fs::metadata(env.p(f)).unwrap();
            assert_eq!((m.uid(), m.gid()), (1000, 1000));
        }
        env.umount();
    }
}

// ---- 010x, 011x: sizes and inode numbers ----

#[test]
fn t0100_t0101_file_sizes() {
    if !fuse_ready() {
        return;
    }
    for aggr in [false, true] {
        let mut env = Env::formatted(DEFAULT, if aggr { &["--aggr-cnv"] } else { &[] });
        env.mount("").unwrap();
        if aggr {
            assert_eq!(env.size("cnv/0"), ZONE * (NR_CNV - 1));
        } else {
            for f in ls(&env.p("cnv")) {
                assert_eq!(env.size(&format!("cnv/{f}")), ZONE);
            }
        }
        for f in ls(&env.p("seq")) {
            let m = std::fs::metadata(env.p(&format!("seq/{f}"))).unwrap();
            assert_eq!(m.len(), 0);
            assert_eq!(m.blocks(), ZONE / 512, "st_blocks is the capacity");
        }
        env.umount();
    }
}

#[test]
fn t0110_t0111_inode_numbers() {
    if !fuse_ready() {
        return;
    }
    for aggr in [false, true] {
        let mut env = Env::formatted(DEFAULT, if aggr { &["--aggr-cnv"] } else { &[] });
        env.mount("").unwrap();
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        assert_eq!(ino(&env.mnt), NR_ZONES);
        assert_eq!(ino(&env.p("cnv")), NR_ZONES + 1);
        assert_eq!(ino(&env.p("seq")), NR_ZONES + 2);
        let cnv = ls(&env.p("cnv"));
        for (i, f) in cnv.iter().enumerate() {
            assert_eq!(f, &i.to_string());
            assert_eq!(ino(&env.p(&format!("cnv/{f}"))), 1 + i as u64);
        }
        for (i, f) in ls(&env.p("seq")).iter().enumerate() {
            assert_eq!(f, &i.to_string());
            assert_eq!(ino(&env.p(&format!("seq/{f}"))), NR_CNV + i as u64);
        }
        // readdir's d_ino agrees with stat.
        for e in std::fs::read_dir(env.p("seq")).unwrap() {
            let e = e.unwrap();
            assert_eq!(std::os::unix::fs::DirEntryExt::ino(&e), ino(&e.path()));
        }
        env.umount();
    }
}

// ---- 02xx: conventional files ----

#[test]
fn t0200_t0201_t0202_t0203_cnv_truncate_unlink() {
    if !fuse_ready() {
        return;
    }
    for aggr in [false, true] {
        let mut env = Env::formatted(DEFAULT, if aggr { &["--aggr-cnv"] } else { &[] });
        env.mount("").unwrap();
        assert_eq!(errno(truncate(&env.p("cnv/0"), 0)), libc::EPERM);
        assert!(std::fs::remove_file(env.p("cnv/0")).is_err());
        assert!(env.p("cnv/0").exists());
        env.umount();
    }
}

/// Random writes of `bs` over a conventional file of `size`, then everything read back.
fn cnv_random(env: &Env, f: &str, size: u64, bs: usize, fl: Fl) {
    let p = env.p(f);
    let mut model = vec![0u8; size as usize];
    let init = zread(&p, 0, size as usize, BUFFERED).unwrap();
    model.copy_from_slice(&init);
    let file = open(&p, true, fl).unwrap();
    let mut x = 12345u64;
    for i in 0..64u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let at = (x >> 20) % (size / bs as u64) * bs as u64;
        let b = Buf::new(bs, i);
        assert_eq!(zwrite_f(&file, at, b.as_ref(), fl).unwrap(), bs);
        model[at as usize..at as usize + bs].copy_from_slice(b.as_ref());
    }
    file.sync_all().unwrap();
    drop(file);
    assert!(zread(&p, 0, size as usize, fl).unwrap() == model, "{f}: data read back differs");
}

#[test]
fn t0204_t0205_cnv_random_write() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    cnv_random(&env, "cnv/0", ZONE, 128 << 10, BUFFERED);
    cnv_random(&env, "cnv/1", ZONE, 128 << 10, DIRECT);
    env.umount();
}

#[test]
fn t0206_t0207_cnv_random_write_aggr_cnv() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::formatted(DEFAULT, &["--aggr-cnv"]);
    env.mount("").unwrap();
    cnv_random(&env, "cnv/0", 2 * ZONE, 128 << 10, BUFFERED);
    cnv_random(&env, "cnv/0", 2 * ZONE, 128 << 10, DIRECT);
    env.umount();
}

fn fio(args: &[&str]) {
    let o = Command::new("fio").args(args).output().expect("fio is installed");
    assert!(o.status.success(), "fio: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
}

/// Sequential writes of `bs` over a conventional file, then read back sequentially with `rfl`.
fn cnv_seq(env: &Env, f: &str, size: u64, bs: usize, wfl: Fl, rfl: Fl) {
    let p = env.p(f);
    let file = open(&p, true, wfl).unwrap();
    let mut model = Vec::new();
    let mut at = 0;
    while at < size {
        let b = Buf::new(bs, at ^ 7);
        assert_eq!(zwrite_f(&file, at, b.as_ref(), wfl).unwrap(), bs);
        model.extend_from_slice(b.as_ref());
        at += bs as u64;
    }
    drop(file);
    let r = open(&p, false, rfl).unwrap();
    let mut got = Vec::new();
    let mut b = Buf::new(bs, 0);
    at = 0;
    while at < size {
        let n = std::os::unix::fs::FileExt::read_at(&r, b.as_mut(), at).unwrap();
        assert_eq!(n, bs);
        got.extend_from_slice(b.as_ref());
        at += bs as u64;
    }
    assert!(got == model, "{f}: data read back differs");
}

#[test]
fn t0210_t0211_t0216_t0217_cnv_seq_write_read() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    cnv_seq(&env, "cnv/0", ZONE, 64 << 10, BUFFERED, BUFFERED);
    cnv_seq(&env, "cnv/1", ZONE, 64 << 10, DIRECT, DIRECT);
    env.umount();
}

#[test]
fn t0212_t0213_t0218_t0219_cnv_seq_write_read_aggr_cnv() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::formatted(DEFAULT, &["--aggr-cnv"]);
    env.mount("").unwrap();
    cnv_seq(&env, "cnv/0", 3 * ZONE, 128 << 10, BUFFERED, BUFFERED);
    cnv_seq(&env, "cnv/0", 3 * ZONE, 128 << 10, DIRECT, DIRECT);
    env.umount();
}

#[test]
fn t0214_t0220_cnv_large_io() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    cnv_seq(&env, "cnv/0", ZONE, ZONE as usize, BUFFERED, BUFFERED);
    cnv_seq(&env, "cnv/1", ZONE, ZONE as usize, DIRECT, DIRECT);
    env.umount();
}

#[test]
fn t0215_t0221_cnv_large_io_aggr_cnv() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::formatted(DEFAULT, &["--aggr-cnv"]);
    env.mount("").unwrap();
    cnv_seq(&env, "cnv/0", 3 * ZONE, 3 * ZONE as usize, BUFFERED, BUFFERED);
    cnv_seq(&env, "cnv/0", 3 * ZONE, 3 * ZONE as usize, DIRECT, DIRECT);
    env.umount();
}

#[test]
fn t0222_cnv_readahead() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let b = Buf::new(4096, 99);
    let f = open(&env.p("cnv/0"), true, DIRECT).unwrap();
    zwrite_f(&f, 0, b.as_ref(), DIRECT).unwrap();
    drop(f);
    assert_eq!(zread(&env.p("cnv/0"), 0, 4096, BUFFERED).unwrap(), b.as_ref());
    env.umount();
}

#[test]
fn t0223_cnv_read_beyond_eof() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("cnv/0");
    assert_eq!(zread(&p, ZONE - 4096, 8192, BUFFERED).unwrap().len(), 4096);
    assert_eq!(zread(&p, ZONE, 4096, BUFFERED).unwrap().len(), 0);
    assert_eq!(zread(&p, ZONE - 4096, 8192, DIRECT).unwrap().len(), 4096);
    env.umount();
}

// ---- 03xx: sequential files ----

#[test]
fn t0300_seq_truncate() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    assert_eq!(zwrite(&p, 0, 4096, DIRECT).unwrap(), 4096);
    assert_eq!(env.size("seq/0"), 4096);
    truncate(&p, 0).unwrap();
    assert_eq!(env.size("seq/0"), 0);
    assert_eq!(errno(truncate(&p, 4096)), libc::EPERM);
    truncate(&p, ZONE).unwrap();
    assert_eq!(env.size("seq/0"), ZONE);
    env.umount();
}

#[test]
fn t0301_seq_unlink() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    assert!(std::fs::remove_file(env.p("seq/0")).is_err());
    assert_eq!(errno(OpenOptions::new().write(true).create(true).truncate(false).open(env.p("seq/new"))), libc::EACCES);
    env.umount();
}

#[test]
fn t0302_seq_buffered_write() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    assert_eq!(errno(zwrite(&env.p("seq/0"), 0, 4096, BUFFERED)), libc::EIO);
    assert_eq!(env.size("seq/0"), 0);
    env.umount();
}

#[test]
fn t0303_seq_overwrite() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    zwrite(&p, 0, 4096, DIRECT).unwrap();
    assert_eq!(errno(zwrite(&p, 0, 4096, DIRECT)), libc::EINVAL);
    truncate(&p, 0).unwrap();
    zwrite(&p, 0, 4096, DIRECT).unwrap();
    env.umount();
}

#[test]
fn t0304_seq_unaligned_write_sync() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    assert_eq!(errno(zwrite(&p, 4096, 4096, DIRECT)), libc::EINVAL);
    assert_eq!(errno(zwrite(&p, 0, 1000, DIRECT)), libc::EINVAL);
    assert_eq!(zwrite(&p, 0, 4096, DIRECT).unwrap(), 4096);
    env.umount();
}

#[test]
fn t0305_seq_unaligned_write_async() {
    if !fuse_ready() {
        return;
    }
    // zio's queue depth 8 as 8 threads with writes in flight at once, none at the write pointer.
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let f = open(&p, true, DIRECT).unwrap();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..8u64)
            .map(|i| {
                let f = &f;
                s.spawn(move || errno(zwrite_f(f, 4096 + i * 135168, Buf::new(135168, i).as_ref(), DIRECT)))
            })
            .collect();
        for h in hs {
            assert_eq!(h.join().unwrap(), libc::EINVAL);
        }
    });
    assert_eq!(env.size("seq/0"), 0);
    drop(f);
    assert_eq!(zwrite(&p, 0, 4096, DIRECT).unwrap(), 4096);
    env.umount();
}

#[test]
fn t0306_seq_append_sync() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    // O_APPEND with an offset that is not the write pointer: the write pointer wins.
    let data = fill(&p, ZONE, 135168, APPEND);
    assert_eq!(env.size("seq/0"), ZONE);
    assert!(zread(&p, 0, ZONE as usize, DIRECT).unwrap() == data);
    assert_eq!(errno(zwrite(&p, 0, 4096, APPEND)), libc::EFBIG);
    env.umount();
}

#[test]
fn t0307_seq_append_async() {
    if !fuse_ready() {
        return;
    }
    // 8 threads appending at once: the volume serialises them at the write pointer.
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let f = open(&p, true, APPEND).unwrap();
    let total = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|s| {
        for i in 0..8u64 {
            let (f, total) = (&f, &total);
            s.spawn(move || {
                loop {
                    match zwrite_f(f, 0, Buf::new(128 << 10, i).as_ref(), APPEND) {
                        Ok(n) => total.fetch_add(n as u64, std::sync::atomic::Ordering::SeqCst),
                        Err(e) => {
                            assert_eq!(e.raw_os_error(), Some(libc::EFBIG));
                            break;
                        }
                    };
                }
            });
        }
    });
    drop(f);
    assert_eq!(total.into_inner(), ZONE);
    assert_eq!(env.size("seq/0"), ZONE);
    env.umount();
}

#[test]
fn t0310_seq_4k_sync_write() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let data = fill(&p, ZONE, 4096, DIRECT);
    assert!(zread(&p, 0, ZONE as usize, DIRECT).unwrap() == data);
    env.umount();
}

#[test]
fn t0311_seq_large_sync_write() {
    if !fuse_ready() {
        return;
    }
    // Writes of FUSE's max_write (1 MiB) + one block: the kernel splits each in two requests.
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let data = fill(&p, ZONE, (1 << 20) + 4096, DIRECT);
    assert!(zread(&p, 0, ZONE as usize, DIRECT).unwrap() == data);
    env.umount();
}

#[test]
fn t0312_seq_explicit_open_resources() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("explicit-open");
    let files: Vec<File> = (0..MAX_OPEN).map(|i| open(&env.p(&format!("seq/{i}")), true, DIRECT).unwrap()).collect();
    for (i, f) in files.iter().enumerate() {
        zwrite_f(f, 0, Buf::new(4096, i as u64).as_ref(), DIRECT).unwrap();
    }
    assert_eq!(errno(open(&env.p(&format!("seq/{MAX_OPEN}")), true, DIRECT)), libc::EBUSY);
    drop(files);
    open(&env.p(&format!("seq/{MAX_OPEN}")), true, DIRECT).unwrap();
    env.umount();
}

fn seq_read(direct_read: bool, random: bool) {
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let data = fill(&p, ZONE, 128 << 10, DIRECT);
    let rfl = if direct_read { DIRECT } else { BUFFERED };
    let f = open(&p, false, rfl).unwrap();
    let bs = 64 << 10;
    let mut x = 7u64;
    for i in 0..(ZONE / bs) {
        let at = if random {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 20) % (ZONE / bs) * bs
        } else {
            i * bs
        };
        let mut b = Buf::new(bs as usize, 0);
        assert_eq!(std::os::unix::fs::FileExt::read_at(&f, b.as_mut(), at).unwrap(), bs as usize);
        assert!(b.as_ref() == &data[at as usize..(at + bs) as usize], "read at {at}");
    }
    drop(f);
    env.umount();
}

#[test]
fn t0320_seq_random_read_buffered() {
    if fuse_ready() {
        seq_read(false, true);
    }
}

#[test]
fn t0321_seq_random_read_direct() {
    if fuse_ready() {
        seq_read(true, true);
    }
}

#[test]
fn t0322_seq_read_buffered() {
    if fuse_ready() {
        seq_read(false, false);
    }
}

#[test]
fn t0323_seq_read_direct() {
    if fuse_ready() {
        seq_read(true, false);
    }
}

#[test]
fn t0324_seq_readahead() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let b = Buf::new(4096, 3);
    let f = open(&p, true, DIRECT).unwrap();
    zwrite_f(&f, 0, b.as_ref(), DIRECT).unwrap();
    drop(f);
    assert_eq!(zread(&p, 0, 1 << 20, BUFFERED).unwrap(), b.as_ref());
    env.umount();
}

#[test]
fn t0325_seq_read_beyond_eof() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    zwrite(&p, 0, 4096, DIRECT).unwrap();
    assert_eq!(zread(&p, 0, 8192, DIRECT).unwrap().len(), 4096);
    assert_eq!(zread(&p, 0, 8192, BUFFERED).unwrap().len(), 4096);
    fill(&p, ZONE, 1 << 20, DIRECT);
    assert_eq!(zread(&p, ZONE, 4096, DIRECT).unwrap().len(), 0);
    assert_eq!(zread(&p, ZONE + 8192, 4096, BUFFERED).unwrap().len(), 0);
    env.umount();
}

#[test]
fn t0326_seq_dsync_write_sync() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let data = fill(&env.p("seq/0"), ZONE, 2 << 20, Fl { direct: true, append: false, dsync: true });
    assert!(zread(&env.p("seq/0"), 0, ZONE as usize, DIRECT).unwrap() == data);
    env.umount();
}

#[test]
fn t0328_seq_dsync_write_sync_iovec() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let fl = Fl { direct: true, append: true, dsync: true };
    let mut f = open(&p, true, fl).unwrap();
    let (a, b) = (Buf::new(1 << 20, 1), Buf::new(1 << 20, 2));
    let mut want = Vec::new();
    for _ in 0..2 {
        let n = f.write_vectored(&[IoSlice::new(a.as_ref()), IoSlice::new(b.as_ref())]).unwrap();
        assert_eq!(n, 2 << 20);
        want.extend_from_slice(a.as_ref());
        want.extend_from_slice(b.as_ref());
    }
    drop(f);
    assert_eq!(env.size("seq/0"), ZONE);
    assert!(zread(&p, 0, ZONE as usize, DIRECT).unwrap() == want);
    env.umount();
}

#[test]
fn t0330_seq_large_read_buffered() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let data = fill(&p, ZONE, 4 << 20, DIRECT);
    let mut f = open(&p, false, BUFFERED).unwrap();
    let mut got = Vec::new();
    f.seek(SeekFrom::Start(0)).unwrap();
    f.read_to_end(&mut got).unwrap();
    drop(f);
    assert!(got == data);
    env.umount();
}

// ---- 040x: swap ----

#[test]
fn t0401_swap_on_seq_file() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let p = env.p("seq/0");
    let mkswap = Command::new("mkswap").arg(&p).output();
    assert!(mkswap.map(|o| !o.status.success()).unwrap_or(true), "mkswap on a sequential file must fail");
    let swapon = Command::new("swapon").arg(&p).output();
    assert!(swapon.map(|o| !o.status.success()).unwrap_or(true), "swapon on a sequential file must fail");
    env.umount();
}

// ---- 05xx: open and active counters ----

#[test]
fn t0510_sysfs_after_format() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    assert_eq!(env.stat("max_wro_seq_files"), u64::from(MAX_OPEN));
    assert_eq!(env.stat("max_active_seq_files"), u64::from(MAX_ACTIVE));
    assert_counters(&env, (0, 0));
    env.umount();
}

fn seq_sector(i: u64) -> String {
    ((NR_CNV + i) * ZONE / 512).to_string()
}

#[test]
fn t0511_sysfs_active_after_mount_open_zones() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::formatted(DEFAULT, &[]);
    for i in 0..MAX_OPEN as u64 {
        ok(&env.zk(&["zone", "open", env.d(), "-o", &seq_sector(i), "-c", "1"]));
    }
    env.mount("").unwrap();
    assert_counters(&env, (0, 0));
    env.umount();
}

#[test]
fn t0512_sysfs_active_after_mount_active_zones() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::formatted(DEFAULT, &[]);
    for i in 0..MAX_OPEN as u64 {
        ok(&env.zk(&["zone", "write", env.d(), "-o", &seq_sector(i), "-l", "8"]));
    }
    env.mount("").unwrap();
    assert_counters(&env, (0, u64::from(MAX_OPEN)));
    env.umount();
}

#[test]
fn t0513_sysfs_write_open_default() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    let readers: Vec<File> =
        (0..env.nr_seq_files()).map(|i| open(&env.p(&format!("seq/{i}")), false, DIRECT).unwrap()).collect();
    assert_counters(&env, (0, 0));
    drop(readers);
    let mut held = Vec::new();
    for i in 0..env.nr_seq_files() {
        held.push(open(&env.p(&format!("seq/{i}")), true, DIRECT).unwrap());
        assert_counters(&env, (i + 1, 0));
    }
    drop(held);
    assert_counters(&env, (0, 0));
    env.umount();
}

#[test]
fn t0514_sysfs_write_open_explicit_open() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("explicit-open");
    let mut held = Vec::new();
    for i in 0..u64::from(MAX_OPEN) {
        held.push(open(&env.p(&format!("seq/{i}")), true, DIRECT).unwrap());
        assert_counters(&env, (i + 1, i + 1));
    }
    assert_eq!(errno(open(&env.p(&format!("seq/{MAX_OPEN}")), true, DIRECT)), libc::EBUSY);
    assert_counters(&env, (u64::from(MAX_OPEN), u64::from(MAX_OPEN)));
    drop(held);
    assert_counters(&env, (0, 0));
    env.umount();
}

#[test]
fn t0515_sysfs_active_after_write() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("");
    for i in 0..u64::from(MAX_OPEN) {
        zwrite(&env.p(&format!("seq/{i}")), 0, 1 << 20, DIRECT).unwrap();
        assert_counters(&env, (0, i + 1));
    }
    env.remount("");
    assert_counters(&env, (0, u64::from(MAX_OPEN)));
    for i in 0..u64::from(MAX_OPEN) {
        fill(&env.p(&format!("seq/{i}")), ZONE, 1 << 20, DIRECT);
        assert_counters(&env, (0, u64::from(MAX_OPEN) - i - 1));
    }
    env.umount();
}

fn active_after_truncate(to_max: bool) {
    let mut env = Env::mounted("");
    for i in 0..u64::from(MAX_OPEN) {
        zwrite(&env.p(&format!("seq/{i}")), 0, 1 << 20, DIRECT).unwrap();
    }
    assert_counters(&env, (0, u64::from(MAX_OPEN)));
    for i in 0..u64::from(MAX_OPEN) {
        truncate(&env.p(&format!("seq/{i}")), if to_max { ZONE } else { 0 }).unwrap();
        assert_counters(&env, (0, u64::from(MAX_OPEN) - i - 1));
    }
    env.umount();
}

#[test]
fn t0516_sysfs_active_after_truncate_to_0() {
    if fuse_ready() {
        active_after_truncate(false);
    }
}

#[test]
fn t0517_sysfs_active_after_truncate_to_max() {
    if fuse_ready() {
        active_after_truncate(true);
    }
}

#[test]
fn t0518_t0519_sysfs_cnv_files() {
    if !fuse_ready() {
        return;
    }
    for opts in ["", "explicit-open"] {
        let mut env = Env::mounted(opts);
        let held: Vec<File> =
            (0..env.nr_cnv_files()).map(|i| open(&env.p(&format!("cnv/{i}")), true, BUFFERED).unwrap()).collect();
        assert_counters(&env, (0, 0));
        for f in &held {
            zwrite_f(f, 4096, Buf::new(1 << 20, 1).as_ref(), BUFFERED).unwrap();
        }
        assert_counters(&env, (0, 0));
        drop(held);
        assert_counters(&env, (0, 0));
        env.umount();
    }
}

// ---- 06xx: I/O errors ----

/// What a case expects of the file after the error, and of the volume.
struct After {
    size: u64,
    perm: u32,
    read_ok: bool,
    write_ok: bool,
    fs_ro: bool,
}

fn check_after(env: &Env, a: &After) {
    let p = env.p("seq/0");
    assert_eq!(env.size("seq/0"), a.size, "size");
    assert_eq!(env.perm("seq/0"), a.perm, "perm");
    assert_eq!(zread(&p, 0, 4096, DIRECT).is_ok(), a.read_ok, "read");
    assert_eq!(zwrite(&p, a.size, 4096, DIRECT).is_ok(), a.write_ok, "write");
    let other = errno(zwrite(&env.p("seq/1"), 0, 4096, DIRECT));
    assert_eq!(other, if a.fs_ro { libc::EROFS } else { 0 }, "another file");
    assert_eq!(env.stat("read_only"), u64::from(a.fs_ro));
}

/// 0600–0607: the write pointer moved behind the volume's back, then a write.
fn wp_moved(opts: &str, a: After) {
    let mut env = Env::mounted(opts);
    let p = env.p("seq/0");
    zwrite(&p, 0, 4096, DIRECT).unwrap();
    env.inject("seq/0", &["move-wp", "4096"]);
    assert_eq!(errno(zwrite(&p, 4096, 4096, DIRECT)), libc::EIO);
    if opts != "errors=repair" {
        assert_ne!(errno(truncate(&p, 0)), 0);
    }
    check_after(&env, &a);
    if opts == "errors=repair" {
        truncate(&p, 0).unwrap();
        assert_eq!(env.size("seq/0"), 0);
    }
    env.umount();
}

#[test]
fn t0600_wp_error_remount_ro() {
    if fuse_ready() {
        wp_moved("errors=remount-ro", After { size: 4096, perm: 0o640, read_ok: true, write_ok: false, fs_ro: true });
    }
}

#[test]
fn t0602_wp_error_zone_ro() {
    if fuse_ready() {
        wp_moved("errors=zone-ro", After { size: 4096, perm: 0o440, read_ok: true, write_ok: false, fs_ro: false });
    }
}

#[test]
fn t0604_wp_error_zone_offline() {
    if fuse_ready() {
        wp_moved("errors=zone-offline", After { size: 0, perm: 0, read_ok: false, write_ok: false, fs_ro: false });
    }
}

#[test]
fn t0606_wp_error_repair() {
    if fuse_ready() {
        wp_moved("errors=repair", After { size: 8192, perm: 0o640, read_ok: true, write_ok: true, fs_ro: false });
    }
}

/// 0601–0607: as [`wp_moved`], the failing writes issued asynchronously (fio, libaio, 8 in
/// flight) from the old write pointer.
fn wp_moved_async(opts: &str, a: After) {
    let mut env = Env::mounted(opts);
    let p = env.p("seq/0");
    zwrite(&p, 0, 4096, DIRECT).unwrap();
    env.inject("seq/0", &["move-wp", "4096"]);
    let name = format!("--filename={}", p.display());
    let o = Command::new("fio")
        .args([
            "--name=w",
            &name,
            "--ioengine=libaio",
            "--iodepth=8",
            "--direct=1",
            "--rw=write",
            "--bs=4k",
            "--offset=4096",
            "--size=64k",
            "--allow_file_create=0",
            "--create_on_open=1",
            "--fallocate=none",
        ])
        .output()
        .expect("fio is installed");
    assert!(!o.status.success(), "the writes after the write pointer moved must fail");
    let mut a = a;
    if opts == "errors=repair" {
        // The kernel has all 8 writes in flight past the old write pointer, so all fail. FUSE
        // hands them over one at a time: those after the repair land at the repaired write
        // pointer (8192) and succeed.
        let size = env.size("seq/0");
        assert!(size >= 8192 && size.is_multiple_of(4096), "size {size}");
        a.size = size;
    }
    check_after(&env, &a);
    env.umount();
}

/// 0610–0627: the zone goes read-only or offline, found at mount or by the next write.
fn zone_cond(opts: &str, fault: &str, at_mount: bool, a: After) {
    let mut env = Env::mounted(opts);
    let p = env.p("seq/0");
    zwrite(&p, 0, 4096, DIRECT).unwrap();
    env.inject("seq/0", &[fault]);
    if at_mount {
        env.remount(opts);
    } else {
        assert_ne!(errno(zwrite(&p, 4096, 4096, DIRECT)), 0);
        assert_ne!(errno(truncate(&p, 0)), 0);
    }
    check_after(&env, &a);
    env.umount();
}

const HIDDEN: After = After { size: 0, perm: 0, read_ok: false, write_ok: false, fs_ro: false };

#[test]
fn t0610_t0612_t0614_t0616_readonly_zone_at_mount() {
    if !fuse_ready() {
        return;
    }
    for o in ["errors=remount-ro", "errors=zone-ro", "errors=zone-offline", "errors=repair"] {
        zone_cond(o, "read-only", true, HIDDEN);
    }
}

#[test]
fn t0611_readonly_zone_remount_ro() {
    if fuse_ready() {
        zone_cond(
            "errors=remount-ro",
            "read-only",
            false,
            After { size: 4096, perm: 0o440, read_ok: true, write_ok: false, fs_ro: true },
        );
    }
}

#[test]
fn t0613_readonly_zone_zone_ro() {
    if fuse_ready() {
        zone_cond(
            "errors=zone-ro",
            "read-only",
            false,
            After { size: 4096, perm: 0o440, read_ok: true, write_ok: false, fs_ro: false },
        );
    }
}

#[test]
fn t0615_readonly_zone_zone_offline() {
    if fuse_ready() {
        zone_cond("errors=zone-offline", "read-only", false, HIDDEN);
    }
}

#[test]
fn t0617_readonly_zone_repair() {
    if fuse_ready() {
        zone_cond(
            "errors=repair",
            "read-only",
            false,
            After { size: 4096, perm: 0o440, read_ok: true, write_ok: false, fs_ro: false },
        );
    }
}

#[test]
fn t0620_t0622_t0624_t0626_offline_zone_at_mount() {
    if !fuse_ready() {
        return;
    }
    for o in ["errors=remount-ro", "errors=zone-ro", "errors=zone-offline", "errors=repair"] {
        zone_cond(o, "offline", true, HIDDEN);
    }
}

#[test]
fn t0621_offline_zone_remount_ro() {
    if fuse_ready() {
        zone_cond(
            "errors=remount-ro",
            "offline",
            false,
            After { size: 0, perm: 0, read_ok: false, write_ok: false, fs_ro: true },
        );
    }
}

#[test]
fn t0623_t0625_t0627_offline_zone_io_error() {
    if !fuse_ready() {
        return;
    }
    for o in ["errors=zone-ro", "errors=zone-offline", "errors=repair"] {
        zone_cond(o, "offline", false, HIDDEN);
    }
}

// ---- zonekit's own: fault injection, signals ----

#[test]
fn fail_write_injection_applies_the_policy() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("errors=zone-ro");
    let p = env.p("seq/0");
    zwrite(&p, 0, 4096, DIRECT).unwrap();
    env.inject("seq/0", &["fail-write"]);
    assert_eq!(errno(zwrite(&p, 4096, 4096, DIRECT)), libc::EIO);
    assert_eq!((env.size("seq/0"), env.perm("seq/0")), (4096, 0o440));
    let mnt = env.mnt.to_str().unwrap().to_string();
    for bad in [&["seq/0", "explode"][..], &["cnv/0", "move-wp", "4096"], &["seq/9", "offline"]] {
        let mut a = vec!["fs", "inject", &mnt];
        a.extend_from_slice(bad);
        assert_ne!(env.zk(&a).status.code(), Some(0), "{bad:?}");
    }
    // A full zone has no room for a write pointer to move into (it would land in the next zone).
    truncate(&env.p("seq/1"), ZONE).unwrap();
    assert_eq!(env.zk(&["fs", "inject", &mnt, "seq/1", "move-wp", "4096"]).status.code(), Some(2));
    assert_eq!(env.size("seq/2"), 0);
    env.umount();
}

#[test]
fn sigterm_unmounts_and_closes_the_device() {
    if !fuse_ready() {
        return;
    }
    let mut env = Env::mounted("explicit-open");
    zwrite(&env.p("seq/0"), 0, 4096, DIRECT).unwrap();
    let mut d = env.daemon.take().unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(d.id() as i32), nix::sys::signal::Signal::SIGTERM).unwrap();
    assert!(d.wait().unwrap().success());
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    assert!(!mounts.contains(env.mnt.to_str().unwrap()));
    let ls = ok(&env.zk(&["fs", "ls", env.d(), "seq/0"]));
    assert!(ls.contains(" 4096 seq/0"), "{ls}");
}

/// A loop device over a file, and an ext4 mount of it, undone on drop.
struct Loop {
    dev: String,
    mnt: Option<PathBuf>,
}

impl Loop {
    /// `losetup` over `file`, or `None` (with the reason printed) where loop devices are absent.
    fn attach(file: &Path) -> Option<Loop> {
        if !Path::new("/dev/loop-control").exists() {
            eprintln!("skipped: no loop devices here (/dev/loop-control is missing)");
            return None;
        }
        let o = Command::new("losetup").args(["-f", "--show"]).arg(file).output();
        match o {
            Ok(o) if o.status.success() => {
                Some(Loop { dev: String::from_utf8_lossy(&o.stdout).trim().to_string(), mnt: None })
            }
            Ok(o) => {
                eprintln!("skipped: losetup found no loop device: {}", String::from_utf8_lossy(&o.stderr).trim());
                None
            }
            Err(e) => {
                eprintln!("skipped: losetup cannot run: {e}");
                None
            }
        }
    }

    fn mount(&mut self, at: &Path) {
        nix::mount::mount(Some(self.dev.as_str()), at, Some("ext4"), nix::mount::MsFlags::empty(), None::<&str>)
            .expect("mount ext4");
        self.mnt = Some(at.to_path_buf());
    }

    fn umount(&mut self) {
        if let Some(m) = self.mnt.take() {
            nix::mount::umount(&m).expect("umount ext4");
        }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if let Some(m) = self.mnt.take() {
            let _ = nix::mount::umount2(&m, nix::mount::MntFlags::MNT_DETACH);
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

#[test]
fn aggr_cnv_file_as_a_disk_ext4_on_loop() {
    if !fuse_ready() {
        return;
    }
    // The issue's check that the aggregated conventional file works as a disk: ext4 on a loop
    // device over cnv/0, written, then read back after both file systems were unmounted.
    let mut env = Env::formatted(DEFAULT, &["--aggr-cnv"]);
    env.mount("").unwrap();
    let Some(mut lo) = Loop::attach(&env.p("cnv/0")) else { return };
    let o = Command::new("mkfs.ext4").args(["-q", "-F", &lo.dev]).output().expect("mkfs.ext4 runs");
    assert!(o.status.success(), "mkfs.ext4: {}", String::from_utf8_lossy(&o.stderr));
    let ext4 = env.mnt.join("../ext4");
    std::fs::create_dir(&ext4).unwrap();
    lo.mount(&ext4);
    let data = Buf::new(3 << 20, 42).as_ref().to_vec();
    std::fs::write(ext4.join("data"), &data).unwrap();
    lo.umount();
    drop(lo);
    env.remount("");
    let mut lo = Loop::attach(&env.p("cnv/0")).expect("a loop device, as before");
    lo.mount(&ext4);
    assert!(std::fs::read(ext4.join("data")).unwrap() == data, "ext4's file read back differs");
    lo.umount();
    drop(lo);
    env.umount();
}

#[test]
fn fcntl_setfl_o_direct_counts_for_writes() {
    if !fuse_ready() {
        return;
    }
    // FUSE passes a file's current flags with each write: O_DIRECT set by fcntl after a buffered
    // open makes a sequential file writable, and clearing it makes the next write EIO again.
    use nix::fcntl::{F_SETFL, OFlag, fcntl};
    let mut env = Env::mounted("");
    let f = open(&env.p("seq/0"), true, BUFFERED).unwrap();
    assert_eq!(errno(zwrite_f(&f, 0, Buf::new(4096, 1).as_ref(), BUFFERED)), libc::EIO);
    fcntl(&f, F_SETFL(OFlag::O_DIRECT)).unwrap();
    assert_eq!(zwrite_f(&f, 0, Buf::new(4096, 1).as_ref(), BUFFERED).unwrap(), 4096);
    fcntl(&f, F_SETFL(OFlag::empty())).unwrap();
    assert_eq!(errno(zwrite_f(&f, 4096, Buf::new(4096, 1).as_ref(), BUFFERED)), libc::EIO);
    drop(f);
    assert_eq!(env.size("seq/0"), 4096);
    env.umount();
}

#[test]
fn mount_errors_are_one_line_with_exit_codes() {
    if !fuse_ready() {
        return;
    }
    let env = Env::mounted("");
    let line = |o: &Output| {
        let e = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.starts_with("zonekit: "), "{e}");
        e
    };
    let missing = env.mnt.join("../missing");
    let o = env.zk(&["mount", env.d(), missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(line(&o).contains("ENOTDIR"));
    // The device is locked while mounted.
    let other = env.mnt.join("../other");
    std::fs::create_dir(&other).unwrap();
    let o = env.zk(&["mount", env.d(), other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(line(&o).contains("EBUSY"));
    let o = env.zk(&["zone", "report", env.d()]);
    assert_ne!(o.status.code(), Some(0));
    // Counters and faults need a running mount.
    let o = env.zk(&["fs", "stats", other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(line(&o).contains("not a zonekit mount"));
}

/// The cases that use fio (asynchronous I/O, mmap with verification): `#[ignore]`d for a plain
/// `cargo test`, run by `scripts/test.sh`, where a missing fio fails them.
mod needs_tools {
    use super::*;

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0208_t0209_cnv_mmap() {
        if !fuse_ready() {
            return;
        }
        for aggr in [false, true] {
            let mut env = Env::formatted(DEFAULT, if aggr { &["--aggr-cnv"] } else { &[] });
            env.mount("").unwrap();
            let f = env.p("cnv/0");
            let name = format!("--filename={}", f.display());
            fio(&[
                "--name=w",
                &name,
                "--ioengine=mmap",
                "--rw=randwrite",
                "--bs=4k",
                "--size=2M",
                "--verify=md5",
                "--verify_state_save=0",
            ]);
            env.remount("");
            fio(&[
                "--name=r",
                &name,
                "--ioengine=mmap",
                "--rw=randread",
                "--bs=4k",
                "--size=2M",
                "--verify=md5",
                "--verify_only",
                "--verify_state_save=0",
            ]);
            env.umount();
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0309_seq_mmap_read() {
        if !fuse_ready() {
            return;
        }
        // A shared writable mapping of a sequential file fails (FUSE's ENODEV where zonefs says
        // EINVAL); then fill with asynchronous direct writes, and read and verify through mmap.
        let mut env = Env::mounted("");
        let name = format!("--filename={}", env.p("seq/0").display());
        let common = ["--bs=64k", "--size=4M", "--allow_file_create=0", "--create_on_open=1", "--fallocate=none"];
        let o = Command::new("fio")
            .args(["--name=m", &name, "--ioengine=mmap", "--rw=write"])
            .args(common)
            .output()
            .expect("fio is installed");
        assert!(!o.status.success(), "a shared writable mmap of a sequential file must fail");
        assert_eq!(env.size("seq/0"), 0);
        let mut w = vec!["--name=w", &name, "--ioengine=libaio", "--iodepth=64", "--direct=1", "--rw=write"];
        w.extend_from_slice(&common);
        w.extend_from_slice(&["--verify=md5", "--do_verify=0", "--verify_state_save=0"]);
        fio(&w);
        let mut r = vec!["--name=r", &name, "--ioengine=mmap", "--rw=randread"];
        r.extend_from_slice(&common);
        r.extend_from_slice(&["--verify=md5", "--verify_only", "--verify_state_save=0"]);
        fio(&r);
        env.umount();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0327_seq_dsync_write_async() {
        if !fuse_ready() {
            return;
        }
        // 8 writes of 512 KiB in flight (libaio), O_DSYNC, filling the file, then verified.
        let mut env = Env::mounted("");
        let name = format!("--filename={}", env.p("seq/0").display());
        fio(&[
            "--name=w",
            &name,
            "--ioengine=libaio",
            "--iodepth=8",
            "--direct=1",
            "--rw=write",
            "--bs=512k",
            "--size=4M",
            "--sync=dsync",
            "--allow_file_create=0",
            "--create_on_open=1",
            "--fallocate=none",
            "--verify=crc32c",
            "--verify_state_save=0",
        ]);
        assert_eq!(env.size("seq/0"), ZONE);
        env.umount();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0329_seq_dsync_write_async_iovec() {
        if !fuse_ready() {
            return;
        }
        // io_uring's vectored writes (IORING_OP_WRITEV), 8 in flight, O_DSYNC, then verified.
        let mut env = Env::mounted("");
        let name = format!("--filename={}", env.p("seq/0").display());
        fio(&[
            "--name=w",
            &name,
            "--ioengine=io_uring",
            "--nonvectored=0",
            "--iodepth=8",
            "--direct=1",
            "--rw=write",
            "--bs=512k",
            "--size=4M",
            "--sync=dsync",
            "--allow_file_create=0",
            "--create_on_open=1",
            "--fallocate=none",
            "--verify=crc32c",
            "--verify_state_save=0",
        ]);
        assert_eq!(env.size("seq/0"), ZONE);
        env.umount();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0601_wp_error_remount_ro_async() {
        if fuse_ready() {
            wp_moved_async(
                "errors=remount-ro",
                After { size: 4096, perm: 0o640, read_ok: true, write_ok: false, fs_ro: true },
            );
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0603_wp_error_zone_ro_async() {
        if fuse_ready() {
            wp_moved_async(
                "errors=zone-ro",
                After { size: 4096, perm: 0o440, read_ok: true, write_ok: false, fs_ro: false },
            );
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0605_wp_error_zone_offline_async() {
        if fuse_ready() {
            wp_moved_async("errors=zone-offline", HIDDEN);
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0607_wp_error_repair_async() {
        if fuse_ready() {
            wp_moved_async(
                "errors=repair",
                After { size: 8192, perm: 0o640, read_ok: true, write_ok: true, fs_ro: false },
            );
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0204_t0205_t0210_t0211_t0216_t0217_cnv_fio_libaio() {
        if !fuse_ready() {
            return;
        }
        // zonefs-tools' libaio runs on conventional files: random and sequential writes with
        // 8 and 64 in flight, buffered and direct, verified; then sequential reads verified. The
        // same on the aggregated file (0206, 0207, 0212, 0213, 0218, 0219).
        for aggr in [false, true] {
            let mut env = Env::formatted(DEFAULT, if aggr { &["--aggr-cnv"] } else { &[] });
            env.mount("").unwrap();
            for (i, (rw, depth, direct)) in
                [("randwrite", "8", "0"), ("randwrite", "64", "1"), ("write", "8", "1")].into_iter().enumerate()
            {
                let file = if aggr { "cnv/0".to_string() } else { format!("cnv/{i}") };
                let name = format!("--filename={}", env.p(&file).display());
                let depth = format!("--iodepth={depth}");
                let direct = format!("--direct={direct}");
                let size = if aggr { "--size=12M" } else { "--size=4M" };
                let common = ["--ioengine=libaio", "--bs=128k", size, "--verify=md5", "--verify_state_save=0"];
                let mut w = vec!["--name=w", &name, "--rw", rw, &depth, &direct];
                w.extend_from_slice(&common);
                fio(&w);
                let mut r = vec!["--name=r", &name, "--rw=read", &depth, &direct, "--verify_only"];
                r.extend_from_slice(&common);
                fio(&r);
            }
            env.umount();
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn t0320_t0321_t0322_t0323_seq_fio_libaio_fill_and_reads() {
        if !fuse_ready() {
            return;
        }
        // As zonefs-tools: fill with libaio, 8 direct writes in flight, verified; then random and
        // sequential reads, buffered and direct, psync and libaio, verified.
        let mut env = Env::mounted("");
        let name = format!("--filename={}", env.p("seq/0").display());
        let common = ["--bs=128k", "--size=4M", "--allow_file_create=0", "--create_on_open=1", "--fallocate=none"];
        let mut w = vec!["--name=w", &name, "--ioengine=libaio", "--iodepth=8", "--direct=1", "--rw=write"];
        w.extend_from_slice(&common);
        w.extend_from_slice(&["--verify=md5", "--verify_state_save=0"]);
        fio(&w);
        assert_eq!(env.size("seq/0"), ZONE);
        for rw in ["randread", "read"] {
            for direct in ["0", "1"] {
                for engine in ["psync", "libaio"] {
                    let (rw, direct, engine) =
                        (format!("--rw={rw}"), format!("--direct={direct}"), format!("--ioengine={engine}"));
                    let mut r = vec!["--name=r", &name, &rw, &direct, &engine, "--iodepth=8", "--verify=md5"];
                    r.extend_from_slice(&common);
                    r.extend_from_slice(&["--verify_only", "--verify_state_save=0"]);
                    fio(&r);
                }
            }
        }
        env.umount();
    }
}
