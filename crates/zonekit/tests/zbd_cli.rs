//! `zonekit bench --zonemode=zbd` end to end: fio's engines on zonekit's emulated devices.

mod common;

use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).arg("bench").args(args).output().expect("run zonekit")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The `io=` bytes of the group line of direction `what` (`WRITE:` or `READ:`).
fn group_bytes(o: &Output, what: &str) -> Option<u64> {
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out.lines().find(|l| l.trim_start().starts_with(what))?;
    let io = line.split("io=").nth(1)?.split('B').next()?;
    io.parse().ok()
}

#[test]
fn every_engine_runs_on_an_emulated_device_at_any_iodepth() {
    // Synchronous engines keep one I/O in flight whatever iodepth says (fio caps the depth at
    // 1); the in-process engine must still serve every slot the job loop fills.
    for engine in ["psync", "sync", "sg", "libzbc", "libaio", "io_uring", "null"] {
        for depth in ["1", "4"] {
            let o = bench(&[
                "--name=j",
                "--filename=@nullb-small",
                "--zonemode=zbd",
                "--direct=1",
                "--rw=randwrite",
                "--bs=4k",
                "--size=8M",
                "--significant_figures=10",
                &format!("--ioengine={engine}"),
                &format!("--iodepth={depth}"),
            ]);
            assert!(o.status.success(), "{engine} iodepth={depth}: {}", text(&o));
            assert!(!text(&o).contains("panicked"), "{engine} iodepth={depth}: {}", text(&o));
            assert_eq!(group_bytes(&o, "WRITE:"), Some(8 << 20), "{engine} iodepth={depth}: {}", text(&o));
        }
    }
}

/// The targets a validation case names: `{F}` a 64 MiB regular file, `{S}` a 1 MiB one, `{Z}` a
/// zonekit device directory (null_blk rules, 1 MiB zones, 4 conventional), `{D4}` one with SCSI
/// rules and at most 4 open zones, `{D5K}` one whose open limit (5000) is beyond fio's 4096.
struct Targets {
    dir: tempfile::TempDir,
}

impl Targets {
    fn new() -> Targets {
        let base = if std::path::Path::new("/dev/shm").is_dir() { "/dev/shm" } else { "/tmp" };
        let dir = tempfile::tempdir_in(base).unwrap();
        let t = Targets { dir };
        t.reset_files();
        for (name, args) in [
            ("z", &["--zone-size", "1M", "--zones", "64", "--conv-zones", "4"][..]),
            ("d4", &["--zone-size", "1M", "--zones", "64", "--max-open", "4", "--personality", "zbc"][..]),
            ("d5k", &["--zone-size", "64K", "--zones", "8192", "--max-open", "5000"][..]),
        ] {
            let o = Command::new(env!("CARGO_BIN_EXE_zonekit"))
                .args(["dev", "create"])
                .arg(t.dir.path().join(name))
                .args(args)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", text(&o));
        }
        t
    }

    /// Fresh regular files (a run may write them).
    fn reset_files(&self) {
        std::fs::File::create(self.dir.path().join("f.img")).unwrap().set_len(64 << 20).unwrap();
        std::fs::File::create(self.dir.path().join("s.img")).unwrap().set_len(1 << 20).unwrap();
    }

    fn expand(&self, s: &str) -> String {
        let p = |n: &str| self.dir.path().join(n).display().to_string();
        s.replace("{F}", &p("f.img"))
            .replace("{S}", &p("s.img"))
            .replace("{Z}", &p("z"))
            .replace("{D4}", &p("d4"))
            .replace("{D5K}", &p("d5k"))
    }
}

/// What a run printed, in the parts a validation case checks.
#[derive(Debug, PartialEq)]
struct Printed {
    code: i32,
    /// Standard error, `pid=` numbers masked.
    stderr: Vec<String>,
    /// Lines of the normal output that are neither the job headers nor the report.
    notes: Vec<String>,
    /// Jobs with a block in the report.
    jobs: Vec<String>,
}

fn mask_pid(line: &str) -> String {
    match line.find("pid=") {
        Some(i) => {
            let rest = &line[i + 4..];
            let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            format!("{}pid=N{}", &line[..i], &rest[end..])
        }
        None => line.to_string(),
    }
}

fn printed(o: &Output) -> Printed {
    let out = String::from_utf8_lossy(&o.stdout);
    let mut notes = Vec::new();
    let mut jobs = Vec::new();
    let mut in_report = false;
    for l in out.lines() {
        if let Some(i) = l.find(": (groupid=") {
            jobs.push(l[..i].to_string());
            in_report = true;
        }
        if l.starts_with("Run status group") {
            in_report = true;
        }
        let header =
            l.contains(": (g=") || l.starts_with("fio-") || l.starts_with("zonekit-") || l.starts_with("Starting ");
        if !in_report && !header && !l.is_empty() {
            notes.push(mask_pid(l));
        }
    }
    let stderr = String::from_utf8_lossy(&o.stderr).lines().map(mask_pid).collect();
    Printed { code: o.status.code().unwrap_or(-1), stderr, notes, jobs }
}

/// One row of the validation table: a command line and what zonekit prints for it.
struct Case {
    /// The arguments after `bench` (placeholders as in [`Targets`]).
    args: &'static str,
    /// Exit code.
    code: i32,
    /// Standard error, line by line (`pid=N`).
    stderr: &'static [&'static str],
    /// Notes in the normal output.
    notes: &'static [&'static str],
    /// Jobs that still ran.
    jobs: &'static [&'static str],
    /// fio 3.33 prints the same on a regular file (with `fio` for `zonekit`, and its runtime
    /// `pid=` line on standard output).
    as_fio: bool,
}

/// fio 3.33's zone-mode validation (reference §1.1), each as zonekit reports it.
const CASES: &[Case] = &[
    // zbd.c:init_zone_info, on a regular file.
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --rw=write --size=4M",
        code: 1,
        stderr: &["{F}: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd", ""],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1 --rw=write --size=4M",
        code: 1,
        stderr: &["{F}: zone size must be at least 512 bytes for --zonemode=zbd", ""],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --zonecapacity=2M --rw=write --size=4M",
        code: 1,
        stderr: &["{F}: job parameter zonecapacity 2097152 is larger than zone size 1048576"],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={S} --zonemode=zbd --zonesize=4M --rw=write --size=1M",
        code: 1,
        stderr: &[
            "{S}: file/device size 1048576 is smaller than zone size 4194304",
            "zonekit: pid=N, err=22/file:zbd.c:985, func=zbd_create_zone_info() failed, error=Invalid argument",
        ],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    // init.c:fixup_options: nothing runs.
    Case {
        args: "--name=j --filename={F} --zonemode=none --zonesize=1M --rw=write --size=4M",
        code: 1,
        stderr: &["zonekit: --zonemode=none and --zonesize are not compatible."],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonesize=1M --rw=write --size=4M",
        code: 1,
        stderr: &["zonekit: --zonemode=none and --zonesize are not compatible."],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=strided --rw=write --size=4M",
        code: 1,
        stderr: &["zonekit: --zonesize must be specified when using --zonemode=strided."],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --create_serialize=0 --rw=write --size=4M",
        code: 1,
        stderr: &["zonekit: --zonemode=zbd and --create_serialize=0 are not compatible."],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    // Values that do not parse: zonekit's rule for every option (one line naming the job and the
    // option, exit 2), with fio's reason; fio prints the reason, then `fio: failed parsing …`,
    // and exits with 1 (and only warns about a list too long).
    Case {
        args: "--name=j --filename={F} --zonemode=bogus --rw=write --size=4M",
        code: 2,
        stderr: &["zonekit: job j: zonemode=bogus: expected one of none, strided, zbd"],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --max_open_zones=5000 --rw=write --size=4M",
        code: 2,
        stderr: &["zonekit: job j: max_open_zones=5000: max value out of range: 5000 (4096 max)"],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --zone_reset_threshold=1.5 --rw=write --size=4M",
        code: 2,
        stderr: &["zonekit: job j: zone_reset_threshold=1.5: value out of range: 1.500000 (range max: 1.000000)"],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --zone_reset_frequency=.4:.6 --rw=write --size=4M",
        code: 2,
        stderr: &["zonekit: job j: zone_reset_frequency=.4:.6: the list exceeding max length 1"],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    // zbd.c:zbd_setup_files: the job fails, the others run.
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --job_max_open_zones=2 --rw=write --size=4M",
        code: 1,
        stderr: &["'job_max_open_zones' cannot be used without a global open zones limit"],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--filename={F} --zonemode=zbd --zonesize=1M --rw=write --size=4M --name=a --max_open_zones=2 --name=b --max_open_zones=3 --name=c --max_open_zones=2",
        code: 1,
        stderr: &["Different 'max_open_zones' values"],
        notes: &[],
        jobs: &["a", "c"],
        as_fio: true,
    },
    // zbd.c:zbd_set_max_open_zones on host-managed devices.
    Case {
        args: "--name=j --filename={D4} --zonemode=zbd --direct=1 --max_open_zones=8 --rw=write --size=4M",
        code: 1,
        stderr: &[
            "Specified --max_open_zones (8) is larger than max (4)",
            "zonekit: pid=N, err=22/file:zbd.c:872, func=Specified --max_open_zones is too large, error=Invalid argument",
        ],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    Case {
        args: "--name=j --filename={D4} --zonemode=zbd --direct=1 --max_open_zones=8 --ignore_zone_limits=1 --rw=write --size=4M",
        code: 0,
        stderr: &[],
        notes: &[],
        jobs: &["j"],
        as_fio: false,
    },
    Case {
        args: "--name=j --filename={D5K} --zonemode=zbd --direct=1 --rw=write --size=4M",
        code: 1,
        stderr: &[
            "'max_open_zones' value is larger than 4096",
            "zonekit: pid=N, err=22/file:zbd.c:882, func='max_open_zones' value is too large, error=Invalid argument",
        ],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    // Buffered writes to a host-managed device: that job and every job set up after it fail.
    Case {
        args: "--filename={Z} --zonemode=zbd --rw=write --size=4M --name=a --direct=1 --name=b --name=c --direct=1",
        code: 2,
        stderr: &[
            "Using direct I/O is mandatory for writing to ZBD drives",
            "",
            "Using direct I/O is mandatory for writing to ZBD drives",
            "",
        ],
        notes: &[],
        jobs: &["a"],
        as_fio: false,
    },
    // Buffered reads are fine, and so are buffered writes to a regular file.
    Case {
        args: "--filename={Z} --zonemode=zbd --rw=read --size=4M --name=j",
        code: 0,
        stderr: &[],
        notes: &[],
        jobs: &["j"],
        as_fio: false,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --rw=write --size=4M",
        code: 0,
        stderr: &[],
        notes: &[],
        jobs: &["j"],
        as_fio: true,
    },
    // A zone size that is not the device's.
    Case {
        args: "--name=j --filename={Z} --zonemode=zbd --direct=1 --zonesize=2M --rw=read --size=4M",
        code: 1,
        stderr: &[
            "zonekit: {Z} job parameter zonesize 2097152 does not match disk zone size 1048576.",
            "zonekit: pid=N, err=22/file:zbd.c:985, func=zbd_create_zone_info() failed, error=Invalid argument",
        ],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    // zbd.c:zbd_zone_align_file_sizes, checked over every job set up so far.
    Case {
        args: "--filename={F} --zonemode=zbd --rw=write --size=4M --name=a --zonesize=1M --name=b --zonesize=2M --name=c --zonesize=1M",
        code: 2,
        stderr: &[
            "{F}: zonesize 2097152 does not match the device zone size 1048576.",
            "{F}: zonesize 2097152 does not match the device zone size 1048576.",
        ],
        notes: &[],
        jobs: &["a"],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --zoneskip=1 --rw=write --size=4M",
        code: 1,
        stderr: &["{F}: zoneskip 1 is not a multiple of the device zone size 1048576."],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    // A job that breaks a check fails with every job set up after it (the check covers them
    // all); the jobs set up before it run.
    Case {
        args: "--filename={F} --rw=write --size=4M --zonemode=zbd --zonesize=1M --name=a --name=b --zoneskip=1 --name=c",
        code: 2,
        stderr: &[
            "{F}: zoneskip 1 is not a multiple of the device zone size 1048576.",
            "{F}: zoneskip 1 is not a multiple of the device zone size 1048576.",
        ],
        notes: &[],
        jobs: &["a"],
        as_fio: true,
    },
    // A job whose zones cannot be set up fails alone.
    Case {
        args: "--filename={F} --rw=write --size=4M --name=a --zonemode=zbd --name=b --name=c --zonemode=zbd --zonesize=1M",
        code: 1,
        stderr: &["{F}: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd", ""],
        notes: &[],
        jobs: &["b", "c"],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --offset=512 --size=1047552 --rw=write",
        code: 1,
        stderr: &[],
        notes: &["{F}: io_size must be at least one zone"],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --offset=512 --size=3M --rw=write",
        code: 0,
        stderr: &[],
        notes: &["{F}: rounded up offset from 512 to 1048576", "{F}: rounded down io_size from 2097664 to 2097152"],
        jobs: &["j"],
        as_fio: true,
    },
    // zbd.c:zbd_verify_bs.
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --rw=trim --bsrange=1M-2M --size=4M",
        code: 1,
        stderr: &[],
        notes: &["bsrange and bssplit are not allowed for trim with zonemode=zbd"],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--filename={F} --size=4M --zonemode=zbd --zonesize=1M --name=a --rw=write --name=b --rw=trim --bs=64K --name=c --rw=write",
        code: 2,
        stderr: &[],
        notes: &[
            "{F}: trim block size 65536 is not the zone size 1048576",
            "{F}: trim block size 65536 is not the zone size 1048576",
        ],
        jobs: &["a"],
        as_fio: true,
    },
    // zbd.c:zbd_adjust_block, as the job runs.
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --rw=write --bs=2M --size=4M",
        code: 1,
        stderr: &["zonekit: pid=N, err=22/file:zbd.c:1937, func=I/O buflen exceeds zone size, error=Invalid argument"],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=64K --zonecapacity=4K --rw=write --bs=16K --size=4M",
        code: 1,
        stderr: &[
            "zone capacity 4096 smaller than minimum block size 16384",
            "zonekit: pid=N, err=22/file:zbd.c:1977, func=ZCAP is less min_bs, error=Invalid argument",
        ],
        notes: &[],
        jobs: &[],
        as_fio: true,
    },
    // A trim must start a zone (fio 3.33 records the trim's -EINVAL as error -22 instead).
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --rw=trim:4k --bs=1M --size=4M",
        code: 1,
        stderr: &[
            "Trim offset not at zone start (1052672)",
            "zonekit: io_u error on file {F}: Invalid argument: trim offset=1052672, buflen=1048576",
        ],
        notes: &[],
        jobs: &["j"],
        as_fio: false,
    },
    // A character device (fio 3.33 fails earlier, on its zoned model).
    Case {
        args: "--name=j --filename=/dev/null --zonemode=zbd --zonesize=1M --rw=write --size=4M",
        code: 1,
        stderr: &["zonemode=zbd does not support pipes"],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    // A random write without zonemode=zbd misses the device's write pointer.
    Case {
        args: "--name=j --filename={Z} --direct=1 --rw=randwrite --bs=4K --offset=4M --size=1M --randseed=1",
        code: 1,
        stderr: &[
            "zonekit: first I/O failed. If {Z} is a zoned block device, consider --zonemode=zbd",
            // fio 3.33 writes the same first offset (the same seeds and generator).
            "zonekit: io_u error on file {Z}: Input/output error: write offset=4255744, buflen=4096",
        ],
        notes: &[],
        jobs: &["j"],
        as_fio: false,
    },
    // What zonekit adds: targets and engines that cannot serve the job (one line, exit 2).
    Case {
        args: "--name=j --directory={Z} --zonemode=zbd --direct=1 --rw=write --size=4M",
        code: 2,
        stderr: &[
            "zonekit: job j: directory={Z}: this is a zonekit device (the benchmark would create its files inside it); name it with filename= instead",
        ],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    Case {
        args: "--name=j --filename={F} --zonemode=zbd --zonesize=1M --ioengine=sg --rw=write --size=4M",
        code: 2,
        stderr: &[
            "zonekit: job j: ioengine=sg: runs only on zonekit's emulated devices (@PROFILE or a device directory), not on {F}",
        ],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
    Case {
        args: "--name=j --filename={Z} --zonemode=zbd --direct=1 --ioengine=mmap --rw=write --size=4M",
        code: 2,
        stderr: &[
            "zonekit: job j: ioengine=mmap: not available on zonekit's emulated devices: it maps the file's pages (write-back would write a zoned device's sequential zones out of order); use it on a file",
        ],
        notes: &[],
        jobs: &[],
        as_fio: false,
    },
];

/// Verifying on a device that keeps no data (an `@PROFILE` instance) would report every block as
/// a bad header: the job stops before any I/O with one line instead.
#[test]
fn verify_on_a_device_without_data_is_refused_in_one_line() {
    let args =
        ["--name=v", "--filename=@smr-hm-15tb", "--zonemode=zbd", "--rw=write", "--bs=1m", "--size=8m", "--direct=1"];
    let o = bench(&[&args[..], &["--verify=md5"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("verify=md5: @smr-hm-15tb keeps no data"), "{err}");
    assert!(!text(&o).contains("bad magic"), "{}", text(&o));
    // verify=null reads nothing back, so it still runs.
    let o = bench(&[&args[..], &["--verify=null"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn zone_mode_validation_is_fios() {
    let t = Targets::new();
    for c in CASES {
        t.reset_files();
        let args: Vec<String> = t.expand(c.args).split_whitespace().map(String::from).collect();
        let o = Command::new(env!("CARGO_BIN_EXE_zonekit")).arg("bench").args(&args).output().unwrap();
        let got = printed(&o);
        let want = Printed {
            code: c.code,
            stderr: c.stderr.iter().map(|l| t.expand(l)).collect(),
            notes: c.notes.iter().map(|l| t.expand(l)).collect(),
            jobs: c.jobs.iter().map(|j| j.to_string()).collect(),
        };
        assert_eq!(got, want, "zonekit bench {}\n{}", c.args, text(&o));
        assert!(!text(&o).contains("panicked"), "{}", text(&o));
    }
}

/// Panics unless fio runs: a comparison with fio must never pass without it.
use crate::common::require_fio;

fn zone_mode_validation_matches_fio_on_regular_files() {
    // The same command lines through fio 3.33: the same exit code, lines and surviving jobs,
    // with `fio` for `zonekit`. One difference is normalised: fio prints a job's runtime
    // `pid=…, err=…` line on standard output as the job ends, zonekit on standard error after
    // the report.
    require_fio();
    let t = Targets::new();
    for c in CASES.iter().filter(|c| c.as_fio) {
        t.reset_files();
        let args: Vec<String> = t.expand(c.args).split_whitespace().map(String::from).collect();
        let o = Command::new("fio").args(&args).output().unwrap();
        let mut fio = printed(&o);
        let to_zonekit = |l: &String| match l.strip_prefix("fio: ") {
            Some(rest) => format!("zonekit: {rest}"),
            None => l.clone(),
        };
        fio.stderr = fio.stderr.iter().map(to_zonekit).collect();
        let notes: Vec<String> = fio.notes.iter().map(to_zonekit).collect();
        let (pid_lines, notes): (Vec<String>, Vec<String>) =
            notes.into_iter().partition(|l| l.starts_with("zonekit: pid=N, err="));
        fio.notes = notes;
        fio.stderr.extend(pid_lines);
        let zonekit = Printed {
            code: c.code,
            stderr: c.stderr.iter().map(|l| t.expand(l)).collect(),
            notes: c.notes.iter().map(|l| t.expand(l)).collect(),
            jobs: c.jobs.iter().map(|j| j.to_string()).collect(),
        };
        assert_eq!(fio, zonekit, "fio {}\n{}", c.args, text(&o));
    }
}

/// Runs `zonekit bench ARGS`, killed after `limit`: None if it had to be killed.
fn bench_within(args: &[String], limit: std::time::Duration) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zonekit"))
        .arg("bench")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn cases() -> u32 {
        std::env::var("ZONEKIT_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(40)
    }

    /// `--NAME=VALUE` for one of `values`, or nothing for "".
    fn opt(name: &'static str, values: &'static [&'static str]) -> impl Strategy<Value = Option<String>> {
        prop::sample::select(values).prop_map(move |v| (!v.is_empty()).then(|| format!("--{name}={v}")))
    }

    fn zone_options() -> impl Strategy<Value = Vec<String>> {
        (
            (
                prop::sample::select(&["{F}", "{Z}", "@nullb-small", "@zbc-small"][..]),
                opt("zonemode", &["", "none", "strided", "zbd", "zbd", "zbd", "bogus"]),
                opt("zonesize", &["", "0", "1", "511", "512", "48k", "64k", "1M", "1M", "3M", "4M", "1G", "-1", "1z"]),
                opt("zonecapacity", &["", "", "0", "4k", "512k", "1M", "2M"]),
                opt("zoneskip", &["", "", "0", "1", "1M", "1z", "3z"]),
                opt("zonerange", &["", "", "1M", "2M"]),
                opt("max_open_zones", &["", "", "0", "1", "4", "4096", "4097"]),
                opt("job_max_open_zones", &["", "", "0", "1", "2"]),
                opt("ignore_zone_limits", &["", "", "1"]),
                opt("read_beyond_wp", &["", "", "1"]),
            ),
            (
                opt("rw", &["read", "write", "randwrite", "randread", "randrw", "rw", "trim", "randtrim"]),
                opt("bs", &["512", "4k", "48k", "1M", "2M", "4M", "8M"]),
                opt("bsrange", &["", "", "", "4k-64k", "1M-2M"]),
                opt("offset", &["", "", "0", "512", "1M", "1z", "8%", "63M", "70M"]),
                opt("size", &["4M", "1M", "1z", "2z", "100%", "1k", "3000k"]),
                opt("io_size", &["", "", "8M", "1k", "3z"]),
            ),
            (
                opt("zone_reset_threshold", &["", "", "0", ".5", "1", "2"]),
                opt("zone_reset_frequency", &["", "", "0", ".5", "1"]),
                opt("direct", &["0", "1", "1"]),
                opt("ioengine", &["psync", "libaio", "io_uring", "sg", "null"]),
                opt("iodepth", &["1", "4"]),
                opt("numjobs", &["1", "1", "2"]),
                opt("loops", &["", "", "2"]),
            ),
        )
            .prop_map(|(a, b, c)| {
                let mut v = vec!["--name=j".to_string(), format!("--filename={}", a.0)];
                v.extend([a.1, a.2, a.3, a.4, a.5, a.6, a.7, a.8, a.9].into_iter().flatten());
                v.extend([b.0, b.1, b.2, b.3, b.4, b.5].into_iter().flatten());
                v.extend([c.0, c.1, c.2, c.3, c.4, c.5, c.6].into_iter().flatten());
                v
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

        /// Whatever the zone options, zonekit ends with 0, 1 or 2, never panics, and a refusal
        /// says why: bad input in one `zonekit: ` line (exit 2), a job that fails with a line.
        #[test]
        fn zone_options_never_panic(args in zone_options()) {
            let t = Targets::new();
            let mut a: Vec<String> = args.iter().map(|s| t.expand(s)).collect();
            // A bound on any job's time: a job that never ends is a failure below.
            a.push("--runtime=3".into());
            let o = bench_within(&a, std::time::Duration::from_secs(30));
            prop_assert!(o.is_some(), "zonekit bench {:?} did not end", a);
            let o = o.unwrap();
            let all = text(&o);
            prop_assert!(!all.contains("panicked") && !all.contains("job thread failed"), "{:?}\n{}", a, all);
            let code = o.status.code();
            prop_assert!(matches!(code, Some(0..=2)), "{:?}: exit {:?}\n{}", a, code, all);
            let err = String::from_utf8_lossy(&o.stderr);
            if o.stdout.is_empty() {
                // Refused before anything ran: one line (bad input exits with 2, what fio refuses
                // with its own words with 1).
                prop_assert!(matches!(code, Some(1 | 2)), "{:?}\n{}", a, all);
                // fio's notes (`note: both iodepth >= 1 …`) come first.
                let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("zonekit: note: ")).collect();
                prop_assert!(lines.len() == 1 && lines[0].starts_with("zonekit: "), "{:?}\n{}", a, all);
            }
            if code != Some(0) {
                prop_assert!(!all.trim().is_empty(), "{:?}: a failure without a word", a);
            }
        }
    }
}

/// The tests that need a tool besides Rust: ignored by a plain `cargo test`, run by
/// `scripts/test.sh`, and failing there when the tool is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn zone_mode_validation_matches_fio_on_regular_files() {
        super::zone_mode_validation_matches_fio_on_regular_files();
    }
}
