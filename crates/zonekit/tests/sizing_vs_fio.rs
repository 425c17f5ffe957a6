//! Where a job's I/O goes in its files (`size`, `filesize`, `offset`, `offset_increment`,
//! `io_size`, `nrfiles`, percentages, clones) and what a short I/O does (its rest issued again,
//! fio's "full resid" when nothing moved), side by side with fio 3.33: the files laid out, the
//! I/O counts, bytes and short I/Os, the I/Os of `write_iolog`, errors and exit codes.
//!
//! The side-by-side tests need `fio` and fail without it (a missing tool must not pass a check).

mod common;

use common::zonekit;
use serde_json::Value;
use std::process::Command;

/// What a run did: its exit code, the report's numbers per job (`total_ios`, `io_bytes` and
/// `short_ios` of reads then writes, and `error`), the files left with their sizes, and the
/// I/Os of its `write_iolog` per file (`direction offset length`, in the order logged).
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    code: Option<i32>,
    jobs: Vec<[u64; 7]>,
    files: Vec<(String, u64)>,
    ios: Vec<(String, Vec<String>)>,
}

impl Outcome {
    /// The first and last I/O of each file, for messages.
    fn ends(&self) -> Vec<String> {
        self.ios.iter().map(|(f, v)| format!("{f}: {} I/Os, {:?} .. {:?}", v.len(), v.first(), v.last())).collect()
    }
}

/// Runs `program` (fio, or zonekit's `bench`) on `args` in a directory of its own that holds
/// `pre` (files of the given sizes) first; with `fsize_kib`, under a file size limit of that many
/// KiB with SIGXFSZ ignored (both inherited across exec), so that a write across it is short and
/// one past it fails with EFBIG. Also gives back what the program printed on standard error.
fn outcome(program: &str, args: &[&str], pre: &[(&str, u64)], fsize_kib: Option<u64>) -> (Outcome, String) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, size) in pre {
        std::fs::write(d.join(name), vec![1u8; *size as usize]).unwrap();
    }
    let outdir = tempfile::tempdir().unwrap();
    let out = outdir.path().join("out.json");
    let log = outdir.path().join("iolog");
    let mut full: Vec<String> = Vec::new();
    if program == zonekit() {
        full.push("bench".into());
    }
    full.extend(args.iter().map(|a| a.to_string()));
    full.push("--output-format=json".into());
    full.push(format!("--output={}", out.display()));
    full.push(format!("--write_iolog={}", log.display()));
    let o = match fsize_kib {
        None => Command::new(program).args(&full).current_dir(d).output().expect("run"),
        Some(kib) => {
            // No argument holds a space or a quote here.
            let script = format!("trap '' XFSZ; ulimit -f {kib}; exec {program} {}", full.join(" "));
            Command::new("bash").arg("-c").arg(script).current_dir(d).output().expect("bash")
        }
    };
    let doc: Value =
        std::fs::read_to_string(&out).ok().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or(Value::Null);
    let n = |j: &Value, dir: &str, key: &str| j[dir][key].as_u64().unwrap_or_else(|| panic!("{dir}.{key} in {j}"));
    let jobs = doc["jobs"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|j| {
                    [
                        n(j, "read", "total_ios"),
                        n(j, "read", "io_bytes"),
                        n(j, "read", "short_ios"),
                        n(j, "write", "total_ios"),
                        n(j, "write", "io_bytes"),
                        n(j, "write", "short_ios"),
                        j["error"].as_u64().unwrap(),
                    ]
                })
                .collect()
        })
        .unwrap_or_default();
    let mut files: Vec<(String, u64)> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().len()))
        .filter(|(name, _)| !name.ends_with(".prerun.txt"))
        .collect();
    files.sort();
    let mut ios: Vec<(String, Vec<String>)> = Vec::new();
    for line in std::fs::read_to_string(&log).unwrap_or_default().lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if let [_, file, dir @ ("read" | "write" | "trim"), off, len] = w[..] {
            let io = format!("{dir} {off} {len}");
            match ios.iter_mut().find(|(f, _)| f == file) {
                Some((_, v)) => v.push(io),
                None => ios.push((file.to_string(), vec![io])),
            }
        }
    }
    ios.sort();
    (Outcome { code: o.status.code(), jobs, files, ios }, String::from_utf8_lossy(&o.stderr).into_owned())
}

mod needs_tools {
    use super::*;
    use common::require_fio;

    /// Options, files there before, a file size limit in KiB, and the report fio gives.
    type ShortCase = (&'static [&'static str], &'static [(&'static str, u64)], Option<u64>, [u64; 7]);

    /// One job of the table: its options, the files there before it, and whether clones share a
    /// file (their I/Os then interleave in the log: compared as a set).
    struct Case {
        args: &'static str,
        pre: &'static [(&'static str, u64)],
        shared: bool,
    }

    const fn case(args: &'static str, pre: &'static [(&'static str, u64)]) -> Case {
        Case { args, pre, shared: false }
    }

    const M: u64 = 1 << 20;

    /// fio 3.33's `setup_files` rules, combination by combination: every job runs with fio and
    /// with zonekit, and the two must lay out the same files, report the same counts and bytes
    /// per job (in the same order: fio numbers a job's clones 0, then N-1 down to 1), log the
    /// same I/Os (so the same first and last offsets) and end with the same exit code.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn file_ranges_as_fio() {
        require_fio();
        let table = [
            // filesize is where each file ends: the range runs from offset to it.
            case("--rw=write --filesize=2M --offset=1M", &[]),
            case("--rw=write --filesize=2M --offset=1M --size=512k", &[]),
            case("--rw=write --filesize=2M --offset=1M --size=8M", &[]),
            // An offset past filesize; a range of nothing (fio prints no report: exit code 1).
            case("--rw=write --filesize=1M --offset=2M", &[]),
            case("--rw=write --filesize=1M --offset=1M", &[]),
            // filesize ranges: one size per file, drawn with fio's generator.
            case("--rw=write --nrfiles=3 --filesize=256k-1M", &[]),
            case("--rw=randwrite --nrfiles=3 --filesize=256k-1M --offset=64k --size=1M", &[]),
            case("--rw=write --nrfiles=2 --filesize=512k --size=256k", &[]),
            // size shared out over nrfiles, each range from offset.
            case("--rw=write --bs=4k --nrfiles=3 --size=1000k --offset=8k", &[]),
            // A percentage offset is of the file as it is (a new file: nothing), rounded up to
            // offset_align or the block size; one in bytes is used as given.
            case("--rw=write --size=1M --offset=10%", &[]),
            case("--rw=read --size=512k --offset=10%", &[("f.0", M)]),
            case("--rw=read --size=512k --offset=10% --offset_align=4k", &[("f.0", M)]),
            case("--rw=write --bs=4k --size=1M --offset=1000 --offset_align=4k", &[]),
            // io_size beyond the range loops over it; io_size=P% is of the ranges.
            case("--rw=write --filesize=1M --io_size=3M", &[]),
            case("--rw=read --io_size=50% --offset=256k", &[("f.0", M)]),
            // size=P% of each file from its start, at most to its end.
            case("--rw=read --size=50% --offset=256k", &[("f.0", M)]),
            case("--rw=read --size=20% --offset=90%", &[("f.0", M)]),
            // A file already in the filesize range keeps its size; past its end: no I/O.
            case("--rw=read --filesize=512k-2M --offset=512k", &[("f.0", M)]),
            case("--rw=read --filesize=512k-2M --offset=1536k", &[("f.0", M)]),
            // A file larger than filesize keeps its size, the range stops at filesize.
            case("--rw=write --filesize=1M-2M --offset=256k", &[("f.0", 4 * M)]),
            case("--rw=randread --size=1M --offset=3584k", &[("f.0", 4 * M)]),
            // offset_increment by clone (fio's numbering), in bytes and in percent of the file
            // as each clone's setup finds it.
            case("--rw=write --filesize=1M --offset=128k --offset_increment=256k --numjobs=3", &[]),
            Case {
                args: "--rw=write --filename=f --filesize=1M --offset=128k --offset_increment=256k --numjobs=3",
                pre: &[],
                shared: true,
            },
            Case {
                args: "--rw=read --filename=f --bs=4k --size=1M --offset_increment=25% --numjobs=3",
                pre: &[],
                shared: true,
            },
            Case {
                args: "--rw=read --filename=f --bs=4k --offset=50% --offset_increment=10% --numjobs=2",
                pre: &[("f", M)],
                shared: true,
            },
        ];
        assert!(table.len() >= 15);
        for c in &table {
            // Files named by clone and number (`f.$jobnum.$filenum`), 64 KiB blocks unless given.
            let mut args = vec!["--name=j", "--filename_format=f.$filenum", "--bs=64k"];
            if c.args.contains("numjobs") && !c.args.contains("--filename=") {
                args[1] = "--filename_format=f.$jobnum.$filenum";
            }
            args.extend(c.args.split(' '));
            let (mut f, ferr) = outcome("fio", &args, c.pre, None);
            let (mut z, zerr) = outcome(zonekit(), &args, c.pre, None);
            let what = format!("{}\nfio: {:?}\nzonekit: {:?}", c.args, f.ends(), z.ends());
            if f.jobs.is_empty() {
                // fio drops a job whose setup fails (no report); zonekit reports it failed with
                // EINVAL, and both say why in the same words.
                assert_eq!((f.code, z.code), (Some(1), Some(1)), "{what}\n{ferr}\n{zerr}");
                let why = ferr.lines().next().unwrap_or_default().trim_start_matches("fio: ").trim_start_matches("j: ");
                assert!(!why.is_empty() && zerr.contains(why), "{what}\nfio: {ferr}\nzonekit: {zerr}");
                assert!(z.jobs.iter().all(|j| j[6] == 22), "{what}: {:?}", z.jobs);
                assert_eq!(z.files, f.files, "{what}");
                continue;
            }
            if c.shared {
                for (_, v) in f.ios.iter_mut().chain(z.ios.iter_mut()) {
                    v.sort();
                }
            }
            assert_eq!(z, f, "{what}\n{zerr}");
            assert!(f.jobs.iter().all(|j| j[0] + j[3] > 0) || c.args.contains("1536k"), "{what}: no I/O");
        }
    }

    /// Short I/Os on regular files, where fio 3.33 really meets them: a file cut short after its
    /// setup (`exec_prerun` truncates it), a file created empty at open (`create_on_open`),
    /// the file recreated empty between loops (`unlink_each_loop`), and writes across a file size
    /// limit. A synchronous engine counts the short I/O, issues its rest (which moves nothing:
    /// fio's `err=5`, "full resid", exit code 1) or meets EFBIG; an asynchronous one issues the
    /// rest too and completes every read past the end with no bytes and no error. The same I/O
    /// counts, bytes, short I/Os, errors, exit codes, files and logged I/Os as fio.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn short_ios_as_fio() {
        require_fio();
        const CUT: &str = "--exec_prerun=truncate -s 1000000 f";
        // (options, files there before, file size limit in KiB, the report fio must give:
        // reads' total, bytes and short; writes' total, bytes and short; error).
        let table: [ShortCase; 12] = [
            (&["--rw=read", "--size=1M", CUT], &[], None, [246, 999_424, 1, 0, 0, 0, 5]),
            (&["--rw=read", "--size=1M", "--ioengine=pvsync", CUT], &[], None, [246, 999_424, 1, 0, 0, 0, 5]),
            (&["--rw=read", "--size=1M", "--ioengine=sync", CUT], &[], None, [246, 999_424, 1, 0, 0, 0, 5]),
            (
                &["--rw=read", "--size=1M", "--ioengine=libaio", "--iodepth=4", CUT],
                &[],
                None,
                [257, 999_424, 1, 0, 0, 0, 0],
            ),
            (&["--rw=read", "--size=1M", "--ioengine=posixaio", CUT], &[], None, [257, 999_424, 1, 0, 0, 0, 0]),
            // A block size that does not divide the file: the last part is never read.
            (&["--rw=read"], &[("f", 1_000_000)], None, [244, 999_424, 0, 0, 0, 0, 0]),
            (
                &["--rw=read", "--ioengine=libaio", "--iodepth=8"],
                &[("f", 1_000_000)],
                None,
                [244, 999_424, 0, 0, 0, 0, 0],
            ),
            (&["--rw=read", "--size=64k", "--create_on_open=1"], &[], None, [1, 0, 0, 0, 0, 0, 5]),
            (
                &["--rw=read", "--size=64k", "--create_on_open=1", "--ioengine=libaio", "--iodepth=4"],
                &[],
                None,
                [16, 0, 0, 0, 0, 0, 0],
            ),
            (
                &["--rw=randrw", "--size=64k", "--unlink_each_loop=1", "--loops=2"],
                &[],
                None,
                [11, 40960, 0, 6, 24576, 0, 5],
            ),
            // 977 KiB: the write at 999424 moves 1024 bytes, its rest fails with EFBIG.
            (&["--rw=write", "--size=1M"], &[], Some(977), [0, 0, 0, 246, 999_424, 1, 27]),
            (
                &["--rw=write", "--size=1M", "--ioengine=libaio", "--iodepth=4"],
                &[],
                Some(977),
                [0, 0, 0, 249, 999_424, 1, 27],
            ),
        ];
        for (extra, pre, limit, want) in table {
            let mut args = vec!["--name=j", "--filename=f", "--bs=4k"];
            args.extend_from_slice(extra);
            let (f, ferr) = outcome("fio", &args, pre, limit);
            let (z, zerr) = outcome(zonekit(), &args, pre, limit);
            let what = format!("{extra:?}\nfio: {:?} {ferr}\nzonekit: {:?} {zerr}", f.ends(), z.ends());
            assert_eq!(f.jobs, vec![want], "fio: {what}");
            assert_eq!(f.code, Some(if want[6] == 0 { 0 } else { 1 }), "{what}");
            assert_eq!(z, f, "{what}");
            if want[6] == 27 && limit.is_some() && !extra.contains(&"--ioengine=libaio") {
                // fio's line for the rest's error, with the rest's offset and length (with
                // libaio fio prints one for every write that failed, zonekit the first's).
                let line = "io_u error on file f: File too large: write offset=1000448, buflen=3072";
                assert!(ferr.contains(line) && zerr.contains(line), "{what}");
            }
        }
        // The job's error in the normal report, in fio's words.
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            let mut cmd = Command::new(program);
            if program == zonekit() {
                cmd.arg("bench");
            }
            let o = cmd
                .args(["--name=j", "--filename=f", "--bs=4k", "--rw=read", "--size=1M", CUT])
                .current_dir(dir.path())
                .output()
                .unwrap();
            let out = common::text(&o);
            assert!(
                out.contains("err= 5 (file:backend.c:471, func=full resid, error=Input/output error): pid="),
                "{program}: {out}"
            );
        }
    }
}
