//! The options that place a job on the host, side by side with fio 3.33 (issue 9): `cpumask`,
//! `cpus_allowed`, `cpus_allowed_policy`, `gtod_cpu`, `nice`, `numa_cpu_nodes` and
//! `numa_mem_policy` as each job's thread has them while it runs (`Cpus_allowed_list`, the nice
//! value, the memory policy in `numa_maps`, read from `/proc` for the thread fio and zonekit
//! report as the job's `pid=`; fio runs its jobs as threads, `--thread`), what a nice value does
//! to two `cpuio` jobs sharing a CPU, the values both refuse and the errors both end a job with;
//! `allow_mounted_write` on a loop device with a mounted ext4; `ioscheduler` on a loop device
//! and on a file of the ext4 on one.
//!
//! Needs `fio`, and root with loop devices for the last two (they say why they are skipped
//! otherwise): the tests are `#[ignore]`d for a plain `cargo test`; `scripts/test.sh` runs them.

mod common;

use common::{cpus, raw, text, zonekit};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// What a thread has: its CPUs (`Cpus_allowed_list`), nice value, memory policy (the policy
/// `numa_maps` shows for its first mapping, which has none of its own).
type Placed = (String, i32, String);

fn placed(task: &Path) -> Option<Placed> {
    let status = std::fs::read_to_string(task.join("status")).ok()?;
    let cpus = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?.trim().to_string();
    let stat = std::fs::read_to_string(task.join("stat")).ok()?;
    // Fields after the command name, which may hold blanks: state is field 3, nice field 19.
    let after = &stat[stat.rfind(')')? + 2..];
    let nice = after.split(' ').nth(16)?.parse().ok()?;
    let maps = std::fs::read_to_string(task.join("numa_maps")).ok()?;
    let policy = maps.lines().next()?.split(' ').nth(1)?.to_string();
    Some((cpus, nice, policy))
}

/// Runs `program` with `args` in `dir`, reading every thread's placement from `/proc` every few
/// milliseconds while it runs; its output and the last placement seen of each thread.
fn run_watched(program: &str, args: &[&str], dir: &Path) -> (Output, BTreeMap<u32, Placed>) {
    let mut cmd = Command::new(program);
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    let mut child = cmd.args(args).current_dir(dir).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run");
    let tasks = PathBuf::from(format!("/proc/{}/task", child.id()));
    let mut seen = BTreeMap::new();
    while child.try_wait().expect("wait").is_none() {
        for t in std::fs::read_dir(&tasks).into_iter().flatten().flatten() {
            let Ok(tid) = t.file_name().to_string_lossy().parse::<u32>() else { continue };
            if let Some(p) = placed(&t.path()) {
                seen.insert(tid, p);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (child.wait_with_output().expect("output"), seen)
}

/// The `pid=` of each job in a normal report, in order.
fn job_pids(normal: &str) -> Vec<u32> {
    normal.lines().filter_map(|l| l.split(": pid=").nth(1)?.split(':').next()?.parse().ok()).collect()
}

/// Runs `args` (jobs of a few hundred ms) through fio (`--thread`) and zonekit; asserts both
/// succeed and that each job's thread had the same placement in both; returns zonekit's.
fn compare_placement(args: &[&str]) -> Vec<Placed> {
    let dir = tempfile::tempdir().unwrap();
    let mut got = Vec::new();
    for program in ["fio", zonekit()] {
        let mut a: Vec<&str> = vec!["--thread"];
        a.extend(args);
        let (o, seen) = run_watched(program, &a, dir.path());
        // fio 3.33 with gtod_cpu often dies of SIGSEGV as it exits, after its report: its clock
        // thread spins on after the memory it writes is gone.
        let crash_ok = program == "fio" && args.iter().any(|a| a.starts_with("--gtod_cpu"));
        assert!(o.status.success() || crash_ok, "{program} {args:?}: {}", text(&o));
        let pids = job_pids(&String::from_utf8_lossy(&o.stdout));
        assert!(!pids.is_empty(), "{program}: no job pid in {}", text(&o));
        let jobs: Vec<Placed> = pids
            .iter()
            .map(|p| seen.get(p).cloned().unwrap_or_else(|| panic!("{program} {args:?}: thread {p} never seen")))
            .collect();
        got.push(jobs);
    }
    assert_eq!(got[0], got[1], "{args:?}: each job's (CPUs, nice, memory policy) in fio, then zonekit");
    got.pop().unwrap()
}

/// A null job that runs for 400 ms (rate-limited, so that it spends it asleep).
const JOB: [&str; 5] = ["--ioengine=null", "--size=1g", "--rate_iops=200", "--runtime=400ms", "--time_based"];

fn job(name: &str, extra: &[&str]) -> Vec<String> {
    let mut v = vec![format!("--name={name}")];
    v.extend(JOB.iter().map(|s| s.to_string()));
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn compare_jobs(jobs: &[Vec<String>]) -> Vec<Placed> {
    let args: Vec<&str> = jobs.iter().flatten().map(String::as_str).collect();
    compare_placement(&args)
}

/// Stdout and stderr with the thread ids fio and zonekit print as `pid=N` made `pid=P`, `fio`
/// and `zonekit` as the program name, and fio's message that runs over two lines joined.
fn normalized(o: &Output) -> String {
    let t = text(o).replace("fio: ", "zonekit: ").replace("failed\n, error", "failed, error");
    let mut out = String::new();
    let mut rest = t.as_str();
    while let Some(at) = rest.find("pid=") {
        out.push_str(&rest[..at + 4]);
        rest = rest[at + 4..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('P');
    }
    out.push_str(rest);
    out
}

/// The job error lines (`… err=N/…`, and fio's lines about CPUs and I/O schedulers) of an
/// output, normalized and sorted (fio prints some on standard output, zonekit all on standard
/// error).
fn error_lines(o: &Output) -> Vec<String> {
    let mut v: Vec<String> = normalized(o)
        .lines()
        .filter(|l| l.contains("err=") && !l.contains("groupid") || l.contains("CPUs") || l.contains("io scheduler"))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// Runs `program` with `args` and a JSON report written to a file; the report (`Null` when
/// there is none) and the output. fio writes its `cpuio` start line and its error lines to the
/// file before the report: the report is read from its first `{`.
fn run(program: &str, args: &[&str], dir: &Path) -> (serde_json::Value, Output) {
    let outdir = tempfile::tempdir().unwrap();
    let out = outdir.path().join("out.json");
    let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    a.push("--output-format=json".into());
    a.push(format!("--output={}", out.display()));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = raw(program, &a, dir);
    let doc = std::fs::read_to_string(&out)
        .ok()
        .and_then(|t| t.find('{').and_then(|at| serde_json::from_str(&t[at..]).ok()))
        .unwrap_or(serde_json::Value::Null);
    (doc, o)
}

/// Each job's user CPU % in a JSON report.
fn usr_cpu(doc: &serde_json::Value) -> Vec<f64> {
    doc["jobs"].as_array().unwrap().iter().map(|j| j["usr_cpu"].as_f64().unwrap()).collect()
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// A loop device over a file of its own, detached (and unmounted) when dropped, a failing test's
/// too.
struct Loop {
    dev: String,
    mnt: Option<PathBuf>,
    _dir: tempfile::TempDir,
    /// The image file.
    image: PathBuf,
}

impl Loop {
    /// A loop device over a new sparse image of `size` bytes written by `fill`, scanned for
    /// partitions (`-P`); or why there is none here (not root, no loop devices).
    fn new(size: u64, fill: impl FnOnce(&Path)) -> Result<Loop, String> {
        if !is_root() {
            return Err("not root: loop devices need root".into());
        }
        if !Path::new("/dev/loop-control").exists() {
            return Err("no /dev/loop-control: this machine has no loop devices".into());
        }
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("disk.img");
        std::fs::File::create(&image).unwrap().set_len(size).unwrap();
        fill(&image);
        let o = Command::new("losetup").args(["-f", "-P", "--show"]).arg(&image).output().expect("losetup");
        if !o.status.success() {
            return Err(format!("losetup found no loop device: {}", text(&o).trim()));
        }
        let dev = String::from_utf8_lossy(&o.stdout).trim().to_string();
        Ok(Loop { dev, mnt: None, _dir: dir, image })
    }

    /// Formats `dev` as ext4 of `fs_size` (`32M`: the file system may be smaller than the
    /// device, whose rest no one uses) and mounts it; the mount point.
    fn mount_ext4(&mut self, dev: &str, fs_size: &str) -> PathBuf {
        let o = Command::new("mkfs.ext4").args(["-q", "-F", "-b", "4096", dev, fs_size]).output();
        let o = o.unwrap_or_else(|e| panic!("mkfs.ext4 (package e2fsprogs): {e}"));
        assert!(o.status.success(), "mkfs.ext4 {dev}: {}", text(&o));
        let mnt = self._dir.path().join("mnt");
        std::fs::create_dir_all(&mnt).unwrap();
        let o = Command::new("mount").args(["-t", "ext4", dev]).arg(&mnt).output().unwrap();
        assert!(o.status.success(), "mount {dev}: {}", text(&o));
        self.mnt = Some(mnt.clone());
        mnt
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if let Some(m) = self.mnt.take()
            && !Command::new("umount").arg(&m).status().is_ok_and(|s| s.success())
        {
            let _ = Command::new("umount").arg("-l").arg(&m).status();
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// `len` bytes of `dev` from `offset`.
fn read_at(dev: &str, offset: u64, len: usize) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(dev).unwrap();
    let mut buf = vec![0; len];
    f.read_exact_at(&mut buf, offset).unwrap();
    buf
}

/// A disk's I/O scheduler, set back as it was when dropped.
struct Scheduler {
    file: PathBuf,
    was: String,
}

/// The scheduler a `queue/scheduler` file selects (`[x]`).
fn selected(file: &Path) -> String {
    let t = std::fs::read_to_string(file).unwrap();
    t.split_whitespace().find_map(|w| w.strip_prefix('[')?.strip_suffix(']')).unwrap_or(t.trim()).to_string()
}

impl Scheduler {
    fn of(dev: &str) -> Scheduler {
        let name = Path::new(dev).file_name().unwrap().to_string_lossy().into_owned();
        let file = PathBuf::from(format!("/sys/block/{name}/queue/scheduler"));
        Scheduler { was: selected(&file), file }
    }

    /// The scheduler selected now.
    fn selected(&self) -> String {
        selected(&self.file)
    }

    /// The schedulers the disk offers.
    fn offered(&self) -> Vec<String> {
        let t = std::fs::read_to_string(&self.file).unwrap();
        t.split_whitespace().map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string()).collect()
    }

    fn set(&self, name: &str) {
        std::fs::write(&self.file, name).unwrap();
        assert_eq!(self.selected(), name);
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.file, &self.was);
    }
}

/// An MBR with one Linux partition from 1 MiB, `sectors` long.
fn mbr(image: &Path, sectors: u32) {
    use std::os::unix::fs::FileExt;
    let mut sector = [0u8; 512];
    let e = &mut sector[446..462];
    e[4] = 0x83;
    e[8..12].copy_from_slice(&2048u32.to_le_bytes());
    e[12..16].copy_from_slice(&sectors.to_le_bytes());
    sector[510] = 0x55;
    sector[511] = 0xaa;
    std::fs::OpenOptions::new().write(true).open(image).unwrap().write_all_at(&sector, 0).unwrap();
}

/// A loop device's first partition once the kernel has read its table; None when it reads none
/// (a kernel without partition table support: CONFIG_MSDOS_PARTITION).
fn partition(dev: &str) -> Option<String> {
    let p = format!("{dev}p1");
    for _ in 0..200 {
        if Path::new(&p).exists() {
            return Some(p);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

mod needs_tools {
    use super::*;
    use common::require_fio;

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn each_jobs_cpus_nice_and_memory_policy_as_fio() {
        require_fio();
        let n = cpus();
        let last = (n - 1).to_string();
        let all = format!("0-{last}");
        // One CPU and a nice value.
        let p = compare_jobs(&[job("a", &[&format!("--cpus_allowed={last}"), "--nice=5"])]);
        assert_eq!(p, vec![(last.clone(), 5, "default".into())]);
        // A mask of bits; a CPU list read as fio reads it (`abc` is CPU 0).
        compare_jobs(&[job("a", &[&format!("--cpumask={}", 1u64 << (n - 1))]), job("b", &["--cpus_allowed=abc"])]);
        // split: each job of the run on one CPU, by its place in the run (the second job's
        // clones are the run's 2nd to 4th).
        let p = compare_jobs(&[
            job("a", &[]),
            job("b", &[&format!("--cpus_allowed={all}"), "--cpus_allowed_policy=split", "--numjobs=3"]),
        ]);
        if n == 2 {
            let cpus: Vec<&str> = p.iter().map(|x| x.0.as_str()).collect();
            assert_eq!(cpus, ["0-1", "1", "0", "1"]);
        }
        // gtod_cpu takes its CPU out of the jobs' masks (not CPU 0).
        if n >= 2 {
            let p = compare_jobs(&[job("a", &[&format!("--cpus_allowed={all}"), &format!("--gtod_cpu={last}")])]);
            if n == 2 {
                assert_eq!(p[0].0, "0");
            }
            compare_jobs(&[job("a", &[&format!("--cpus_allowed={all}"), "--gtod_cpu=0"])]);
        }
        // NUMA: the node's CPUs replace cpus_allowed; the memory policies.
        compare_jobs(&[job("a", &["--cpus_allowed=0", "--numa_cpu_nodes=0"]), job("b", &["--numa_cpu_nodes=all"])]);
        let p = compare_jobs(&[
            job("a", &["--numa_mem_policy=local"]),
            job("b", &["--numa_mem_policy=prefer:0"]),
            job("c", &["--numa_mem_policy=bind:0"]),
            job("d", &["--numa_mem_policy=interleave"]),
            job("e", &["--numa_mem_policy=interleave:!0"]),
            job("f", &["--numa_mem_policy=default"]),
        ]);
        let policies: Vec<&str> = p.iter().map(|x| x.2.as_str()).collect();
        assert_eq!(policies, ["local", "prefer:0", "bind:0", "interleave:0", "default", "default"]);
        if is_root() {
            let p = compare_jobs(&[job("a", &["--nice=-3"]), job("b", &["--nice=19"])]);
            assert_eq!((p[0].1, p[1].1), (-3, 19));
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn a_nice_job_gets_less_of_a_shared_cpu_as_in_fio() {
        require_fio();
        // Two jobs burning CPU 0 for a second: the one at nice 19 gets a small share (its weight
        // is 15 to the other's 1024), in fio and in zonekit alike.
        let dir = tempfile::tempdir().unwrap();
        let args = [
            "--thread",
            "--ioengine=cpuio",
            "--cpuload=100",
            "--runtime=1",
            "--time_based",
            "--cpus_allowed=0",
            "--name=busy",
            "--name=nice",
            "--nice=19",
        ];
        for program in ["fio", zonekit()] {
            let (doc, o) = run(program, &args, dir.path());
            assert!(o.status.success(), "{program}: {}", text(&o));
            let cpu = usr_cpu(&doc);
            assert!(cpu[0] > 10.0 && cpu[1] < cpu[0] / 4.0, "{program}: usr_cpu of the jobs {cpu:?}");
            eprintln!("{program}: usr_cpu {cpu:?}");
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn values_refused_as_fio_refuses_them() {
        require_fio();
        let dir = tempfile::tempdir().unwrap();
        let n = cpus();
        let too_big = n.to_string();
        let mask = format!("{}", 1u64 << n.min(31));
        let one_node = !Path::new("/sys/devices/system/node/node1").exists();
        let mut cases: Vec<(&str, String)> = vec![
            ("cpus_allowed", too_big.clone()),
            ("cpus_allowed", format!("0-{too_big}")),
            ("cpus_allowed", "9999".into()),
            ("verify_async_cpus", too_big.clone()),
            ("log_compression_cpus", too_big),
            ("numa_cpu_nodes", "abc".into()),
            ("numa_mem_policy", "prefer".into()),
            ("numa_mem_policy", "prefer:0-1".into()),
            ("numa_mem_policy", "bind".into()),
            ("numa_mem_policy", "local:0".into()),
            ("numa_mem_policy", "default:1".into()),
            ("numa_mem_policy", "foo".into()),
        ];
        if n < 32 {
            cases.push(("cpumask", mask));
        }
        if one_node {
            cases.push(("numa_cpu_nodes", "1".into()));
            cases.push(("numa_cpu_nodes", "0-1".into()));
            cases.push(("numa_mem_policy", "bind:1".into()));
        }
        for (opt, value) in cases {
            let arg = format!("--{opt}={value}");
            let args = ["--name=x", "--ioengine=null", "--size=1m", &arg];
            let f = raw("fio", &args, dir.path());
            let z = raw(zonekit(), &args, dir.path());
            // fio's own line, or libnuma's warning fio prints before its `failed parsing`.
            let ft = text(&f);
            let why = ft
                .lines()
                .find_map(|l| l.strip_prefix("libnuma: Warning: "))
                .or_else(|| {
                    ft.lines().filter_map(|l| l.strip_prefix("fio: ")).find(|l| !l.starts_with("failed parsing"))
                })
                .unwrap_or_else(|| panic!("{arg}: fio said {ft}"))
                .trim();
            assert_eq!(f.status.code(), Some(1), "{arg}: fio: {ft}");
            assert_eq!(z.status.code(), Some(2), "{arg}: zonekit: {}", text(&z));
            let zt = String::from_utf8_lossy(&z.stderr);
            assert_eq!(zt.lines().count(), 1, "{arg}: {zt}");
            assert!(
                zt.starts_with(&format!("zonekit: job x: {opt}={value}: {why}")),
                "{arg}: fio: {why}\nzonekit: {zt}"
            );
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn jobs_end_with_fios_errors() {
        require_fio();
        let dir = tempfile::tempdir().unwrap();
        for extra in [
            // A mask of no CPU: sched_setaffinity refuses it.
            vec!["--cpus_allowed=1-0"],
            vec!["--cpumask=0"],
            // split of an empty mask: fio's two lines, then the error.
            vec!["--cpus_allowed=1-0", "--cpus_allowed_policy=split"],
            // No node: no CPU to run on.
            vec!["--numa_cpu_nodes=!0"],
        ] {
            let mut args = vec!["--name=x", "--ioengine=null", "--size=64k"];
            args.extend(&extra);
            let f = raw("fio", &args, dir.path());
            let z = raw(zonekit(), &args, dir.path());
            assert_eq!(f.status.code(), Some(1), "{extra:?}: fio: {}", text(&f));
            assert_eq!(z.status.code(), Some(1), "{extra:?}: zonekit: {}", text(&z));
            assert_eq!(error_lines(&f), error_lines(&z), "{extra:?}");
            assert!(!error_lines(&z).is_empty());
        }
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn writes_to_a_mounted_device_are_refused_as_fio_refuses_them() {
        require_fio();
        // A 64 MiB loop device with a 32 MiB ext4 mounted from it: the device's upper half is
        // outside the file system, where the writes that are let through go.
        let mut lo = match Loop::new(64 << 20, |_| {}) {
            Ok(l) => l,
            Err(why) => {
                eprintln!("skipped: allow_mounted_write needs a mounted loop device: {why}");
                return;
            }
        };
        let dev = lo.dev.clone();
        lo.mount_ext4(&dev, "32M");
        let dir = tempfile::tempdir().unwrap();
        let file = format!("--filename={dev}");
        let job = |rw: &str, extra: &[&str]| -> Vec<String> {
            let mut v: Vec<String> =
                ["--name=w", &file, &format!("--rw={rw}"), "--size=1m", "--offset=48m", "--bs=64k"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
            v.extend(extra.iter().map(|s| s.to_string()));
            v
        };
        let before = read_at(&dev, 48 << 20, 1 << 20);
        assert!(before.iter().all(|&b| b == 0));
        let line = format!("{dev} appears mounted, and 'allow_mounted_write' isn't set. Aborting.");
        // A writer: refused before it starts (fio: an empty report, exit 0; zonekit: exit 1).
        let args = job("write", &[]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (fdoc, f) = run("fio", &args, dir.path());
        let (zdoc, z) = run(zonekit(), &args, dir.path());
        assert!(String::from_utf8_lossy(&f.stderr).contains(&format!("fio: {line}")), "fio: {}", text(&f));
        assert_eq!(f.status.code(), Some(0), "fio 3.33 exits 0 here");
        assert_eq!(fdoc["jobs"][0]["write"]["io_bytes"], 0);
        assert_eq!(String::from_utf8_lossy(&z.stderr), format!("zonekit: {line}\n"));
        assert_eq!(z.status.code(), Some(1));
        assert!(zdoc.is_null(), "zonekit writes no report: {zdoc}");
        assert_eq!(read_at(&dev, 48 << 20, 1 << 20), before, "nothing was written");
        // zonekit refuses trims as well (fio's check covers writes only: not run with fio).
        let args = job("trim", &[]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let z = raw(zonekit(), &args, dir.path());
        assert_eq!(
            (z.status.code(), String::from_utf8_lossy(&z.stderr).to_string()),
            (Some(1), format!("zonekit: {line}\n"))
        );
        // A reader is not checked.
        let args = job("read", &[]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        for program in ["fio", zonekit()] {
            let (doc, o) = run(program, &args, dir.path());
            assert!(o.status.success(), "{program}: {}", text(&o));
            assert_eq!(doc["jobs"][0]["read"]["io_bytes"], 1 << 20, "{program}");
        }
        // allow_mounted_write=1: both write (outside the file system).
        let args = job("write", &["--allow_mounted_write=1"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        for program in ["fio", zonekit()] {
            let (doc, o) = run(program, &args, dir.path());
            assert!(o.status.success(), "{program}: {}", text(&o));
            assert_eq!(doc["jobs"][0]["write"]["io_bytes"], 1 << 20, "{program}");
        }
        assert_ne!(read_at(&dev, 48 << 20, 1 << 20), before, "the writes reached the device");
        let mnt = lo.mnt.clone().unwrap();
        assert!(std::fs::read_dir(&mnt).is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.file_name() == "lost+found"))));
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn a_disk_whose_partition_is_mounted_is_refused() {
        require_fio();
        // zonekit alone (fio compares the device's name with the mount table's, so it would
        // write to the disk): a partition from 1 MiB to 33 MiB, mounted; the whole disk is held.
        let mut lo = match Loop::new(64 << 20, |img| mbr(img, 32 << 11)) {
            Ok(l) => l,
            Err(why) => {
                eprintln!("skipped: needs a partitioned loop device: {why}");
                return;
            }
        };
        let dev = lo.dev.clone();
        let Some(part) = partition(&dev) else {
            eprintln!("skipped: this kernel finds no partition on {dev} (no partition table support)");
            return;
        };
        lo.mount_ext4(&part, "32M");
        let dir = tempfile::tempdir().unwrap();
        let file = format!("--filename={dev}");
        let args = ["--name=w", &file, "--rw=write", "--size=1m", "--offset=48m"];
        let z = raw(zonekit(), &args, dir.path());
        assert_eq!(z.status.code(), Some(1), "{}", text(&z));
        assert_eq!(
            String::from_utf8_lossy(&z.stderr),
            format!("zonekit: {dev} appears mounted, and 'allow_mounted_write' isn't set. Aborting.\n")
        );
        let mut args = args.to_vec();
        args.push("--allow_mounted_write=1");
        let (doc, z) = run(zonekit(), &args, dir.path());
        assert!(z.status.success(), "{}", text(&z));
        assert_eq!(doc["jobs"][0]["write"]["io_bytes"], 1 << 20);
        let _ = &lo.image;
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn ioscheduler_switches_the_disk_as_fio_does() {
        require_fio();
        let mut lo = match Loop::new(64 << 20, |_| {}) {
            Ok(l) => l,
            Err(why) => {
                eprintln!("skipped: ioscheduler needs a loop device: {why}");
                return;
            }
        };
        let dev = lo.dev.clone();
        let sched = Scheduler::of(&dev);
        let offered = sched.offered();
        let others: Vec<&String> = offered.iter().filter(|s| *s != "none").collect();
        if others.is_empty() {
            eprintln!("skipped: {dev} offers no I/O scheduler but none ({offered:?})");
            return;
        }
        let target = others[0].clone();
        let dir = tempfile::tempdir().unwrap();
        let sched_arg = format!("--ioscheduler={target}");
        // On the device itself, then with disk_util=0 (fio finds no disk then, and switches
        // nothing), then a bad name (the job fails).
        let file = format!("--filename={dev}");
        let base = ["--name=r", &file, "--rw=read", "--size=256k"];
        for (extra, want, code) in [
            (vec![sched_arg.as_str()], target.as_str(), 0),
            (vec![sched_arg.as_str(), "--disk_util=0"], "none", 0),
            (vec!["--ioscheduler=bogus"], "none", 1),
        ] {
            let mut results = Vec::new();
            for program in ["fio", zonekit()] {
                sched.set("none");
                let mut args = base.to_vec();
                args.extend(&extra);
                let o = raw(program, &args, dir.path());
                assert_eq!(o.status.code(), Some(code), "{program} {extra:?}: {}", text(&o));
                assert_eq!(sched.selected(), want, "{program} {extra:?}");
                results.push(error_lines(&o));
            }
            assert_eq!(results[0], results[1], "{extra:?}: fio's error lines, then zonekit's");
        }
        // A file on an ext4 on the device: the file system's disk is switched.
        let mnt = lo.mount_ext4(&dev, "32M");
        let file = format!("--filename={}", mnt.join("data").display());
        let args = ["--name=w", &file, "--rw=write", "--size=1m", &sched_arg];
        for program in ["fio", zonekit()] {
            sched.set("none");
            let o = raw(program, &args, dir.path());
            assert!(o.status.success(), "{program}: {}", text(&o));
            assert_eq!(sched.selected(), target, "{program}");
        }
    }
}
