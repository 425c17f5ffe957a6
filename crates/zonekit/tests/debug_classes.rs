//! `--debug`: `help` lists fio 3.33's debug classes as fio does; `parse` prints fio's parse
//! trace (`parse    <pid>  handle_option=bs, ptr=4k` and the like) on standard output; the other
//! classes are named as fio names them, and zonekit says it prints no trace for them.
//!
//! The side-by-side tests need `fio` and fail without it.

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
    assert!(err.contains("zonekit prints no trace lines of class process,file,io,mem,"), "{err}");
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

mod needs_tools {
    use super::*;

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
        let fio = Command::new("fio").arg("--debug=help").output().expect("fio is needed (apt-get install fio)");
        assert!(fio.status.success());
        let want = String::from_utf8_lossy(&fio.stdout).replacen("fio: ", "zonekit: ", 1);
        assert_eq!(String::from_utf8_lossy(&zonekit(&["--debug=help"]).stdout), want);
    }

    /// Runs each command line under fio and zonekit in a directory holding `j.fio`, and compares
    /// the parse traces, pids aside.
    fn same_trace_as_fio(cases: &[&[&str]]) {
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
