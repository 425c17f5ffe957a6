//! `--debug`: `help` lists fio 3.33's debug classes as fio does; each class prints fio's trace
//! lines (`parse    <pid>  handle_option=bs, ptr=4k`, `file     <tid>  fd open f`, …) on
//! standard output; `blktrace`, whose lines fio prints only while it replays a blktrace file
//! (refused), is noted on standard error.
//!
//! The side-by-side tests need `fio` and fail without it: they run fio 3.33 and zonekit on the
//! same jobs and compare the trace lines of each thread, in order, after normalising what cannot
//! match (thread ids, addresses, measured figures).

mod common;

use std::path::Path;
use std::process::Command;

fn zonekit_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).arg("bench").args(args).current_dir(dir).output().unwrap()
}

fn zonekit(args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    zonekit_in(dir.path(), args)
}

/// The trace lines of `class` in `out`, with the thread-id column replaced by `<pid>`.
fn trace(out: &[u8], class: &str) -> Vec<String> {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| l.starts_with(&format!("{class:<8} ")))
        .map(|l| {
            let rest = &l[9..];
            let msg = rest.get(6..).unwrap_or("");
            format!("{class:<8} <pid> {msg}")
        })
        .collect()
}

const JOB: &str = "# a comment before the first section\n\n[global]\nioengine=null\n  size=${SZ}\n; inside\nbs=4k,8k\n\n[one]\nrw=randread\nruntime=1s\ntime_based=0\npercentile_list=50:99.5\n[two]\nrw=write\nsize=50%\nnumjobs=2\n";

#[test]
fn debug_help_and_classes() {
    for arg in ["--debug=help", "--debug=?"] {
        let o = zonekit(&[arg]);
        assert!(o.status.success(), "{o:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.starts_with("zonekit: dumping debug options:process,file,io,mem,"), "{out}");
        assert!(out.ends_with(",steadystate,helperthread,zbd,all\n"), "{out}");
    }
    let o = zonekit(&["--debug=parse,file,io,job:2,all", "--name=d", "--size=64k", "--ioengine=null"]);
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with(
            "zonekit: set debug option parse\nzonekit: set debug option file\nzonekit: set debug option io\n\
             zonekit: set debug jobno 2\nzonekit: set all debug options\n"
        ),
        "{out}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("zonekit prints no trace lines of class blktrace: fio prints them only while it replays"),
        "{err}"
    );
    // A class fio does not know, or job without its number: fio's words, exit code 2.
    for (arg, want) in [("--debug=nosuch", "debug mask nosuch not found"), ("--debug=job", "missing job number")] {
        let o = zonekit(&[arg, "--name=d", "--size=64k", "--ioengine=null"]);
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want) && err.lines().count() == 1, "{err}");
    }
}

#[test]
fn parse_trace_of_a_command_line() {
    let o = zonekit(&[
        "--debug=parse",
        "--parse-only",
        "--ioengine=null",
        "--name=a",
        "--size=4k",
        "--bs=4k,8k",
        "--direct=1",
        "--runtime=2",
        "--name=b",
        "--rw=rw",
        "--iodepth",
        "4",
    ]);
    assert!(o.status.success(), "{o:?}");
    let want = [
        "handle_option=ioengine, ptr=null",
        "__handle_option=ioengine, type=OPT_STR_STORE, ptr=null",
        "dup options",
        "handle_option=name, ptr=a",
        "__handle_option=name, type=OPT_STR_STORE, ptr=a",
        "handle_option=size, ptr=4k",
        "__handle_option=size, type=OPT_STR_VAL_ZONE, ptr=4k",
        "  ret=0, out=4096",
        "handle_option=bs, ptr=4k,8k",
        "__handle_option=bs, type=OPT_ULL, ptr=4k,8k",
        "  ret=0, out=4096",
        "__handle_option=bs, type=OPT_ULL, ptr=8k",
        "  ret=0, out=8192",
        "handle_option=direct, ptr=1",
        "__handle_option=direct, type=OPT_BOOL, ptr=1",
        "  ret=0, out=1",
        "handle_option=runtime, ptr=2",
        "__handle_option=runtime, type=OPT_STR_VAL_TIME, ptr=2",
        "  ret=0, out=2000000",
        "free options",
        "dup options",
        "handle_option=name, ptr=b",
        "__handle_option=name, type=OPT_STR_STORE, ptr=b",
        "handle_option=rw, ptr=rw",
        "__handle_option=rw, type=OPT_STR, ptr=rw",
        "handle_option=iodepth, ptr=4",
        "__handle_option=iodepth, type=OPT_INT, ptr=4",
        "  ret=0, out=4",
        "free options",
        "free options",
        "free options",
    ];
    let want: Vec<String> = want.iter().map(|m| format!("parse    <pid> {m}")).collect();
    assert_eq!(trace(&o.stdout, "parse"), want);
    // The pid column is the process id, padded to five columns as fio pads it.
    let first = String::from_utf8_lossy(&o.stdout).lines().nth(1).unwrap_or("").to_string();
    assert!(first.starts_with("parse    ") && first[9..].split(' ').next().unwrap().parse::<u32>().is_ok(), "{first}");
}

#[test]
fn parse_trace_of_a_job_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("j.fio"), JOB).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zonekit"))
        .args(["bench", "--debug=parse", "--parse-only", "j.fio"])
        .env("SZ", "8k")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let t = trace(&o.stdout, "parse");
    // The raw lines of a section come before its options, which fio handles when the next
    // section starts; a value's ${VAR} is substituted in the handled option only.
    let at = |s: &str| t.iter().position(|l| l.ends_with(s)).unwrap_or_else(|| panic!("{s} in {t:#?}"));
    assert!(at("<pid>   size=${SZ}") < at("handle_option=size, ptr=8k"));
    assert!(at("handle_option=size, ptr=8k") < at("Parsing section [one]"));
    assert!(t.contains(&"parse    <pid> SET size_percent 50".to_string()), "{t:#?}");
    assert!(t.contains(&"parse    <pid>   out=99.500000".to_string()), "{t:#?}");
    assert_eq!(t[0], "parse    <pid> Parsing ini file j.fio");
}

#[test]
fn parse_trace_goes_around_the_headers_of_a_run() {
    let o = zonekit(&["--debug=parse", "--ioengine=null", "--name=a", "--size=8k", "--numjobs=3"]);
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    let hdr = lines.iter().position(|l| l.starts_with("a: (g=0)")).expect("header");
    assert!(lines[hdr + 1].ends_with("dup options") && lines[hdr + 2].ends_with("dup options"), "{out}");
    assert_eq!(lines[hdr + 3], "...");
    assert!(lines[hdr + 4].ends_with("free options") && lines[hdr + 5].starts_with("zonekit-"), "{out}");
    // After the report: one per job clone, and the default job at exit.
    let tail: Vec<&&str> = lines.iter().rev().take_while(|l| l.starts_with("parse ")).collect();
    assert_eq!(tail.len(), 4, "{out}");
}

/// A run's trace: each class's lines at their points of the run, on the thread fio prints them
/// from (the run's, the job's), in fio's format.
#[test]
fn run_trace_of_a_psync_job() {
    let dir = tempfile::tempdir().unwrap();
    let o = zonekit_in(
        dir.path(),
        &[
            "--debug=process,file,io,mem,mutex",
            "--name=a",
            "--filename=f",
            "--size=8k",
            "--bs=4k",
            "--ioengine=psync",
            "--rw=write",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    let at = |s: &str| lines.iter().position(|l| l.ends_with(s)).unwrap_or_else(|| panic!("{s} in {out}"));
    // The run's thread: the job set up, started, and let run.
    assert!(at("setup files") < at("pid=0: runstate NOT_CREATED -> SETTING_UP"));
    assert!(at("a: Laying out IO file (1 file / 0MiB)") < at("layout unlink f"));
    assert!(at("open file f, flags 41") < at("native fallocate of file f size 8192 was successful"));
    assert!(at("declare unneeded cache f: 0/8192") < at("pid=0: runstate SETTING_UP -> NOT_CREATED"));
    assert!(at("pid=0: runstate NOT_CREATED -> CREATED") < at("will fork"));
    // The job's thread: its units, its file opened at its first I/O, each I/O's steps.
    let job = lines.iter().find(|l| l.contains("jobs pid=")).expect("job start");
    let tid = job.split_whitespace().nth(1).unwrap();
    assert!(job.ends_with(&format!("jobs pid={tid} started")), "{job}");
    assert_ne!(tid, std::process::id().to_string(), "the job's own thread");
    let first_unit = lines.iter().position(|l| l.contains("io_u alloc 0x7a6b2001")).expect("units");
    assert!(first_unit < at("Alloc 4096 for buffers"));
    assert!(at("trying file f 200") < at("fd open f"));
    assert!(at("file not found in hash f") < at("get file f, ref=0"));
    assert!(
        at("fill: io_u 0x7a6b200100000000: off=0x0,len=0x1000,ddir=1,file=f")
            < at("queue: io_u 0x7a6b200100000000: off=0x0,len=0x1000,ddir=1,file=f")
    );
    assert!(at("close files") < at("fd close f"));
    assert!(
        at(&format!("pid={tid}: runstate FINISHING -> EXITED")) < at(&format!("pid={tid}: runstate EXITED -> REAPED"))
    );
    // Each line: the class padded to 8, the thread id padded to 5.
    for l in lines.iter().filter(|l| l.starts_with("file ")) {
        assert!(l.len() > 15 && l[9..14].trim().parse::<u32>().is_ok() && &l[14..15] == " ", "{l}");
    }
    // A class not asked for prints nothing.
    assert!(!out.lines().any(|l| l.starts_with("random ") || l.starts_with("parse ")), "{out}");
}

mod needs_tools {
    use super::*;

    /// fio's debug classes, as the first column names them.
    const CLASSES: [&str; 19] = [
        "process",
        "file",
        "io",
        "mem",
        "blktrace",
        "verify",
        "random",
        "parse",
        "diskutil",
        "job",
        "mutex",
        "profile",
        "time",
        "net",
        "rate",
        "compress",
        "steadystate",
        "helperthread",
        "zbd",
    ];

    /// What cannot match between two runs, normalised away.
    #[derive(Default, Clone, Copy)]
    struct Norm {
        /// Classes whose figures are measured (times, disk counters, rates): digits become `#`.
        nums: &'static [&'static str],
        /// Leave out the helper thread's periodic lines (their number follows the run's timing).
        no_helper_ticks: bool,
        /// An asynchronous engine: how many I/Os each reap finds, and so the depth at each
        /// commit, the references each file holds and the order of the completions, follow the
        /// device's timing: the reaps' lines and those figures go.
        any_completion_order: bool,
    }

    /// The trace lines of `out`, per thread in the order each thread printed them, normalised:
    /// thread ids (column and messages) and addresses (`0x` values of 2^32 and more, fio's
    /// pointers and zonekit's identifiers) replaced. The run's own thread (the first to print)
    /// also gets the header and report lines, to check where its lines fall among them.
    fn threads(out: &str, n: Norm) -> Vec<Vec<String>> {
        let parse = |l: &str| -> Option<(String, String, String)> {
            let class = l.split(' ').next()?;
            if !CLASSES.contains(&class) {
                return None;
            }
            let rest = l.get(class.len().max(8) + 1..)?;
            let tid: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if tid.is_empty() {
                return None;
            }
            let msg = rest.get(tid.len().max(5) + 1..).unwrap_or("");
            Some((class.to_string(), tid, msg.to_string()))
        };
        let lines: Vec<&str> = out.lines().collect();
        let tids: Vec<String> = lines.iter().filter_map(|l| parse(l)).map(|(_, t, _)| t).collect();
        let main = tids.first().cloned().unwrap_or_default();
        let helper = lines
            .iter()
            .filter_map(|l| parse(l))
            .find(|(c, _, m)| c == "helperthread" && m.starts_with("clk_tck"))
            .map(|(_, t, _)| t);
        let mut order: Vec<String> = Vec::new();
        let mut groups: std::collections::HashMap<String, Vec<String>> = Default::default();
        let mut push = |tid: &str, line: String| {
            if !order.iter().any(|t| t == tid) {
                order.push(tid.to_string());
            }
            groups.entry(tid.to_string()).or_default().push(line);
        };
        for l in &lines {
            let Some((class, tid, msg)) = parse(l) else {
                let marker = if l.starts_with("fio-") || l.starts_with("zonekit-") {
                    Some("<version>".to_string())
                } else if l.contains(": (g=") || l.contains(": (groupid=") || l.starts_with("Starting ") {
                    Some(l.split(": err=").next().unwrap_or(l).to_string())
                } else if l.contains(": Laying out IO file") || *l == "..." {
                    Some(l.to_string())
                } else {
                    None
                };
                if let Some(m) = marker
                    && !main.is_empty()
                {
                    push(&main, format!("MARK {m}"));
                }
                continue;
            };
            if n.no_helper_ticks
                && helper.as_deref() == Some(tid.as_str())
                && (class == "diskutil" || (class == "helperthread" && !msg.starts_with("clk_tck")))
            {
                continue;
            }
            let mut m = String::new();
            let mut rest = msg.as_str();
            // Addresses: fio's pointers and zonekit's identifiers alike.
            while let Some(i) = rest.find("0x") {
                m.push_str(&rest[..i]);
                let hex: String = rest[i + 2..].chars().take_while(char::is_ascii_hexdigit).collect();
                match u64::from_str_radix(&hex, 16) {
                    Ok(v) if v >= 1 << 32 => m.push_str("<ptr>"),
                    _ => m.push_str(&format!("0x{hex}")),
                }
                rest = &rest[i + 2 + hex.len()..];
            }
            m.push_str(rest);
            let mut m = m.replace("(nil)", "<ptr>");
            for t in &tids {
                for p in ["pid=", "/", "by "] {
                    let from = format!("{p}{t}");
                    if let Some(i) = m.find(&from)
                        && !m[i + from.len()..].starts_with(|c: char| c.is_ascii_digit())
                    {
                        m.replace_range(i..i + from.len(), &format!("{p}<tid>"));
                    }
                }
            }
            if n.any_completion_order {
                if m.starts_with("io_u_queued_complete:") || m.starts_with("getevents:") {
                    continue;
                }
                if m.starts_with("complete: io_u") || m.starts_with("calling ->commit()") {
                    m = m.split([':', ',']).next().unwrap_or(&m).to_string();
                }
                if m.starts_with("get file ") || m.starts_with("put file ") {
                    m = m.split(", ref=").next().unwrap_or(&m).to_string();
                }
            }
            if n.nums.contains(&class.as_str()) {
                m = m.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect();
                while m.contains("##") {
                    m = m.replace("##", "#");
                }
                // The kernel pads a disk's counters to their width.
                m = m.split_whitespace().collect::<Vec<_>>().join(" ");
            }
            push(&tid, format!("{class:<8} {m}"));
        }
        order.into_iter().map(|t| groups.remove(&t).unwrap_or_default()).collect()
    }

    /// Runs `args` with `--debug=CLASSES` under fio and zonekit, each in a fresh directory that
    /// `prepare` fills, and compares their trace lines thread by thread (fio's job processes and
    /// zonekit's job threads run side by side, so only each one's order is fixed).
    fn same_threads(classes: &str, args: &[&str], prepare: fn(&Path), n: Norm) {
        common::require_fio();
        let run = |program: &str| {
            let dir = tempfile::tempdir().unwrap();
            prepare(dir.path());
            let mut a = vec![format!("--debug={classes}")];
            a.extend(args.iter().map(|s| s.to_string()));
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let o = common::raw(program, &a, dir.path());
            assert!(o.status.success(), "{program} {a:?}: {}", common::text(&o));
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        let (f, z) = (run("fio"), run(common::zonekit()));
        let (mut ft, mut zt) = (threads(&f, n), threads(&z, n));
        assert!(!ft.is_empty(), "fio printed no trace lines for {args:?}");
        ft.sort();
        zt.sort();
        assert_eq!(ft.len(), zt.len(), "threads for {args:?}:\nfio:\n{f}\nzonekit:\n{z}");
        for (a, b) in ft.iter().zip(&zt) {
            if a != b {
                let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
                let lo = at.saturating_sub(3);
                panic!(
                    "{classes} {args:?}: a thread's lines differ at line {at}\nfio:\n{}\nzonekit:\n{}",
                    a[lo..(at + 4).min(a.len())].join("\n"),
                    b[lo..(at + 4).min(b.len())].join("\n")
                );
            }
        }
    }

    fn nothing(_: &Path) {}

    /// A 1 MiB file for zone mode (fio needs it there and at least a zone large).
    fn one_mib(dir: &Path) {
        std::fs::File::create(dir.join("f")).unwrap().set_len(1 << 20).unwrap();
    }

    /// The figures a machine measures: the clock's calibration, the disks' counters.
    const MEASURED: Norm = Norm { nums: &["time", "diskutil"], no_helper_ticks: true, any_completion_order: false };

    /// `--debug=all` (every class at once, in order among the header and report lines) on
    /// small jobs of each engine zonekit runs on a regular file.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn all_classes_of_engines_as_fio() {
        let job = ["--name=a", "--filename=f", "--size=64k", "--bs=4k"];
        for extra in [
            &["--ioengine=psync", "--rw=write"][..],
            &["--ioengine=psync", "--rw=randwrite", "--bs=16k", "--io_size=128k"],
            &["--ioengine=psync", "--rw=write", "--bs=16k", "--loops=2"],
            &["--ioengine=null", "--rw=randread"],
        ] {
            let args: Vec<&str> = job.iter().chain(extra).copied().collect();
            same_threads("all", &args, nothing, MEASURED);
        }
        for extra in [
            &["--ioengine=libaio", "--iodepth=4", "--direct=1", "--rw=randwrite"][..],
            &["--ioengine=io_uring", "--iodepth=4", "--rw=read"],
        ] {
            let args: Vec<&str> = job.iter().chain(extra).copied().collect();
            same_threads("all", &args, nothing, Norm { any_completion_order: true, ..MEASURED });
        }
    }

    /// One class at a time prints only its own lines (here those of a job's start).
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn single_classes_as_fio() {
        let args = ["--name=a", "--filename=f", "--size=16k", "--bs=4k", "--ioengine=psync", "--rw=write"];
        for class in ["process", "file", "io", "mem", "mutex", "helperthread", "profile", "parse"] {
            same_threads(class, &args, nothing, Norm::default());
        }
        same_threads("diskutil", &args, nothing, Norm { nums: &["diskutil"], ..Norm::default() });
        same_threads("time", &args, nothing, Norm { nums: &["time"], ..Norm::default() });
        // Classes whose lines this job never reaches print none, as fio's.
        for class in ["net", "compress", "steadystate", "zbd", "verify", "rate", "blktrace"] {
            let o = zonekit(&[&format!("--debug={class}"), "--name=a", "--size=16k", "--ioengine=null"]);
            assert!(!String::from_utf8_lossy(&o.stdout).lines().any(|l| l.starts_with(class)), "{class}");
        }
    }

    /// Zone mode on a regular file with a zone size: sequential and random writes (zones
    /// opened, filled, closed and reset), a write limit, reads of an empty file, verified writes.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn zone_mode_as_fio() {
        let job = ["--name=a", "--filename=f", "--size=1m", "--zonemode=zbd", "--zonesize=256k", "--ioengine=psync"];
        for extra in [
            &["--rw=write", "--bs=16k"][..],
            &["--rw=randwrite", "--bs=64k", "--max_open_zones=2", "--io_size=2m"],
            &["--rw=randwrite", "--bs=64k", "--io_size=2m"],
            &["--rw=randread", "--bs=64k"],
            &["--rw=read", "--bs=64k"],
            &["--rw=write", "--bs=64k", "--verify=crc32c"],
        ] {
            let args: Vec<&str> = job.iter().chain(extra).copied().collect();
            same_threads("all", &args, one_mib, MEASURED);
        }
    }

    /// Verification: the writes' headers, the phase change, each check.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn verify_as_fio() {
        let job = ["--name=a", "--filename=f", "--size=32k"];
        let args = [&job[..], &["--bs=4k", "--ioengine=psync", "--rw=write", "--verify=crc32c"]].concat();
        same_threads("all", &args, nothing, MEASURED);
        let libaio = ["--bs=8k", "--verify_interval=4k", "--ioengine=libaio", "--direct=1", "--iodepth=2"];
        let args = [&job[..], &libaio, &["--rw=randwrite", "--verify=md5"]].concat();
        same_threads("all", &args, nothing, Norm { any_completion_order: true, ..MEASURED });
    }

    /// A rate-limited job: fio quiesces before each late I/O (its commit line counts the unit it
    /// holds); the helper thread's periodic readings follow the run's timing and are left out.
    /// With `rate_process=poisson`, the gaps are zonekit's own draws: their figures go.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn rate_limited_as_fio() {
        let job = ["--name=a", "--filename=f", "--size=64k", "--bs=4k", "--ioengine=psync", "--rw=write"];
        let args = [&job[..], &["--rate=128k"]].concat();
        same_threads("all", &args, nothing, MEASURED);
        let args = [&job[..], &["--rate_iops=400", "--rate_process=poisson"]].concat();
        same_threads("rate", &args, nothing, Norm { nums: &["rate"], ..Norm::default() });
    }

    /// `numjobs=2` (files of their own, and one file shared), several files per job: each
    /// clone's thread prints its own lines.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn clones_and_files_as_fio() {
        let job = ["--name=a", "--size=32k", "--bs=4k", "--ioengine=psync", "--rw=write"];
        for extra in [&["--numjobs=2"][..], &["--nrfiles=2", "--filename_format=f.$filenum"]] {
            let args: Vec<&str> = job.iter().chain(extra).copied().collect();
            same_threads("all", &args, nothing, MEASURED);
        }
    }

    /// Steady-state detection: a check a second on the helper thread, each with its window's
    /// figures (measured: only their form is compared).
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn steadystate_as_fio() {
        let args = [
            "--name=a",
            "--filename=f",
            "--size=64k",
            "--bs=4k",
            "--ioengine=psync",
            "--rw=write",
            "--rate=32k",
            "--time_based",
            "--runtime=3",
            "--steadystate=iops:10%",
            "--ss_dur=2",
        ];
        let run = |program: &str| {
            let dir = tempfile::tempdir().unwrap();
            let mut a = vec!["--debug=steadystate"];
            a.extend(args);
            let o = common::raw(program, &a, dir.path());
            assert!(o.status.success(), "{}", common::text(&o));
            let t = threads(&String::from_utf8_lossy(&o.stdout), Norm { nums: &["steadystate"], ..Norm::default() });
            let mut shapes: Vec<String> = t.concat();
            shapes.sort();
            shapes.dedup();
            shapes
        };
        common::require_fio();
        let (f, z) = (run("fio"), run(common::zonekit()));
        assert!(f.iter().any(|l| l.contains("steadystate_check()")), "{f:?}");
        assert_eq!(z, f);
    }

    fn fio_in(dir: &Path, args: &[&str]) -> std::process::Output {
        Command::new("fio")
            .args(args)
            .env("SZ", "8k")
            .current_dir(dir)
            .output()
            .expect("fio is needed (apt-get install fio)")
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn debug_help_as_fio() {
        common::require_fio();
        let fio = Command::new("fio").arg("--debug=help").output().expect("fio is needed (apt-get install fio)");
        assert!(fio.status.success());
        let want = String::from_utf8_lossy(&fio.stdout).replacen("fio: ", "zonekit: ", 1);
        assert_eq!(String::from_utf8_lossy(&zonekit(&["--debug=help"]).stdout), want);
    }

    /// Runs each command line under fio and zonekit in a directory holding `j.fio`, and compares
    /// the parse traces, pids aside.
    fn same_trace_as_fio(cases: &[&[&str]]) {
        common::require_fio();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("j.fio"), JOB).unwrap();
        for args in cases {
            let f = fio_in(dir.path(), args);
            let z = Command::new(env!("CARGO_BIN_EXE_zonekit"))
                .arg("bench")
                .args(*args)
                .env("SZ", "8k")
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert!(f.status.success() && z.status.success(), "{args:?}: {f:?} {z:?}");
            assert_eq!(trace(&z.stdout, "parse"), trace(&f.stdout, "parse"), "{args:?}");
        }
    }

    /// The same job file and command lines under fio and zonekit with `--parse-only`: the same
    /// parse trace.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn parse_trace_as_fio() {
        same_trace_as_fio(&[
            &["--debug=parse", "--parse-only", "j.fio"],
            &["--debug=parse", "--parse-only", "--section=two", "j.fio"],
            &["--debug=parse", "--parse-only", "--name=x", "--ioengine=libaio", "j.fio", "j.fio"],
            &[
                "--debug=parse",
                "--parse-only",
                "--kb_base=1000",
                "--name=x",
                "--bs=1k",
                "--size=50%",
                "--offset=1z",
                "--rate=1m,2m",
                "--thinktime=5ms",
                "--filesize=4k-8k",
                "--steadystate=iops:30",
                "--steadystate=bw:1m",
                "--steadystate=iops_slope:2%",
            ],
            &[
                "--debug=parse",
                "--parse-only",
                "--ioengine=libaio",
                "--name=a",
                "--userspace_reap",
                "--iodepth=2",
                "--name=b",
                "--ioengine=null",
            ],
        ]);
    }

    /// In a run, the trace around the header lines and after the report, as fio's.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn parse_trace_of_runs_as_fio() {
        same_trace_as_fio(&[
            &["--debug=parse", "--ioengine=null", "--name=a", "--size=8k", "--numjobs=2", "--name=b", "--size=4k"],
            &["--debug=parse", "--output-format=json", "--ioengine=null", "--name=a", "--size=8k"],
        ]);
    }
}
