//! issue 9 ("fio compatibility round 2") beside real fio (3.33, Debian's package) on the same
//! job: the data each tool writes (`buffer_pattern` byte for byte; the share of duplicate 4 KiB
//! blocks with `dedupe_percentage`; the zlib-compressed size with `buffer_compress_percentage`;
//! the interplay with `zero_buffers`, `scramble_buffers`, `refill_buffers`), and the I/O counts
//! and bytes of `number_ios` and `rw=trimwrite` / `randtrimwrite`.
//!
//! Needs `fio`: the tests are `#[ignore]`d for a plain `cargo test`; `scripts/test.sh` runs them and
//! they fail without fio.

mod common;

use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;

/// Panics unless fio runs: a comparison with fio must never pass without it.
use crate::common::require_fio;

/// Runs `fio ARGS` or `zonekit bench ARGS` in `dir` with JSON output; the report.
fn run(program: &str, args: &[&str], dir: &Path) -> Value {
    let mut cmd = Command::new(program);
    if program.ends_with("zonekit") {
        cmd.arg("bench");
    }
    let o = cmd.args(args).arg("--output-format=json").arg("--output=out.json").current_dir(dir).output().expect("run");
    assert!(o.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).expect("JSON")
}

/// Runs each job of `jobs` (its options, for a job of its own writing file `fN`) in one run of
/// each tool; the files each wrote, fio's first.
fn written(jobs: &[&str]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let names: Vec<String> = (0..jobs.len()).map(|i| format!("--name=j{i} --filename=f{i}")).collect();
    let line: Vec<&str> =
        names.iter().zip(jobs).flat_map(|(n, j)| n.split_whitespace().chain(j.split_whitespace())).collect();
    let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run("fio", &line, fdir.path());
    run(zonekit, &line, zdir.path());
    let read = |d: &Path, i: usize| std::fs::read(d.join(format!("f{i}"))).unwrap();
    (0..jobs.len()).map(|i| (read(fdir.path(), i), read(zdir.path(), i))).collect()
}

/// The share of 4 KiB blocks that repeat an earlier block.
fn dup_share(data: &[u8]) -> f64 {
    let mut seen: HashMap<&[u8], ()> = HashMap::new();
    let blocks = data.chunks(4096);
    let n = blocks.len();
    let dups = blocks.filter(|b| seen.insert(b, ()).is_some()).count();
    dups as f64 / n as f64
}

/// zlib-compressed size over the original size.
fn zlib_ratio(data: &[u8]) -> f64 {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(data).unwrap();
    z.finish().unwrap().len() as f64 / data.len() as f64
}

fn buffers_as_fio() {
    require_fio();
    // buffer_pattern: the same bytes, written once (rw=write) or refilled (a job that reads).
    let pattern = [
        "--rw=write --bs=4k --size=64k --buffer_pattern=0xdeadbeef\"zonekit\"-7",
        "--rw=randrw --bs=4k --size=64k --buffer_pattern=\"abc\"",
        "--rw=write --bs=1k --size=64k --buffer_pattern=0x0102030405 --iodepth=4 --ioengine=libaio",
        "--rw=write --bs=4k --size=64k --buffer_pattern=1234 --zero_buffers",
    ];
    // Deduplication: the same share of repeated 4 KiB blocks (4 MiB: 1024 blocks), and fio's
    // near what it was asked.
    let dedupe = [
        ("--rw=write --bs=4k --size=4m --dedupe_percentage=40", 0.40),
        ("--rw=write --bs=4k --size=4m --dedupe_percentage=70 --buffer_compress_percentage=30", 0.70),
        (
            "--rw=write --bs=4k --size=4m --dedupe_percentage=30 --dedupe_mode=working_set --dedupe_working_set_percentage=10",
            0.30,
        ),
        ("--rw=write --bs=4k --size=1m --dedupe_percentage=100", 255.0 / 256.0),
    ];
    // Compression: the same zlib ratio within 2 points.
    let compress = [
        "--rw=write --bs=64k --size=2m --buffer_compress_percentage=60",
        "--rw=write --bs=64k --size=2m --buffer_compress_percentage=25 --buffer_compress_chunk=4k",
        "--rw=write --bs=4k --size=2m --buffer_compress_percentage=50 --buffer_compress_chunk=0",
        "--rw=write --bs=16k --size=2m --buffer_compress_percentage=50 --buffer_pattern=0x1f2e3d4c5b6a",
        "--rw=write --bs=16k --size=2m --buffer_compress_percentage=100",
        "--rw=write --bs=16k --size=2m --buffer_compress_percentage=40 --verify=crc32c --do_verify=0",
    ];
    // zero_buffers, scramble_buffers and refill_buffers: which blocks repeat, all zeros or not.
    let interplay = [
        "--rw=write --bs=4k --size=1m",
        "--rw=write --bs=4k --size=1m --zero_buffers",
        "--rw=write --bs=4k --size=1m --scramble_buffers=0",
        "--rw=write --bs=4k --size=1m --scramble_buffers=0 --refill_buffers",
        "--rw=write --bs=4k --size=1m --zero_buffers --scramble_buffers=1",
    ];
    let mut jobs: Vec<&str> = pattern.to_vec();
    jobs.extend(dedupe.iter().map(|d| d.0));
    jobs.extend(compress);
    jobs.extend(interplay);
    let mut files = written(&jobs).into_iter();

    for (i, args) in pattern.into_iter().enumerate() {
        let (f, z) = files.next().unwrap();
        if i == 0 {
            let want = [0xde, 0xad, 0xbe, 0xef, b'z', b'o', b'n', b'e', b'k', b'i', b't', 0xf9, 0xff, 0xff, 0xff, 0xde];
            assert_eq!(&f[..16], &want, "fio's reading of the pattern");
        }
        assert_eq!(f.len(), z.len(), "{args}");
        assert!(f == z, "{args}: the files differ");
    }
    for (args, want) in dedupe {
        let (f, z) = files.next().unwrap();
        let (fs, zs) = (dup_share(&f), dup_share(&z));
        assert!((fs - want).abs() < 0.05, "{args}: fio's own share {fs}");
        assert!((fs - zs).abs() < 0.05, "{args}: duplicate 4 KiB blocks fio {fs:.3} zonekit {zs:.3}");
    }
    for args in compress {
        let (f, z) = files.next().unwrap();
        let (fr, zr) = (zlib_ratio(&f), zlib_ratio(&z));
        assert!((fr - zr).abs() < 0.02, "{args}: zlib ratio fio {fr:.3} zonekit {zr:.3}");
    }
    // dedupe_global: the jobs' working sets spread over each other's data (fio's
    // examples/dedupe-global.fio, smaller): duplicates across the files, as many as fio's.
    let global = "--rw=write --bs=4k --size=2m --dedupe_percentage=50 --dedupe_mode=working_set \
                  --dedupe_working_set_percentage=50 --dedupe_global=1 --buffer_compress_percentage=50";
    let files_g = written(&[global, global, global]);
    let cat =
        |z: bool| -> Vec<u8> { files_g.iter().flat_map(|(f, zk)| if z { zk.clone() } else { f.clone() }).collect() };
    let (fs, zs) = (dup_share(&cat(false)), dup_share(&cat(true)));
    let (f0, z0) = (dup_share(&files_g[0].0), dup_share(&files_g[0].1));
    assert!(
        fs > f0 + 0.05 && zs > z0 + 0.05,
        "duplicates across jobs: fio {fs:.3} (one file {f0:.3}), zonekit {zs:.3} ({z0:.3})"
    );
    assert!((fs - zs).abs() < 0.05, "dedupe_global: duplicate 4 KiB blocks fio {fs:.3} zonekit {zs:.3}");

    for args in interplay {
        let (f, z) = files.next().unwrap();
        let (fs, zs) = (dup_share(&f), dup_share(&z));
        assert!((fs - zs).abs() < 0.01, "{args}: duplicate 4 KiB blocks fio {fs:.3} zonekit {zs:.3}");
        let zeros = |d: &[u8]| d.iter().all(|&b| b == 0);
        assert_eq!(zeros(&f), zeros(&z), "{args}: all zeros");
    }
}

/// I/Os and bytes per direction (read, write, trim) of each job.
fn counts(doc: &Value) -> Vec<[u64; 6]> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
            [
                n("read", "total_ios"),
                n("write", "total_ios"),
                n("trim", "total_ios"),
                n("read", "io_bytes"),
                n("write", "io_bytes"),
                n("trim", "io_bytes"),
            ]
        })
        .collect()
}

/// The actions of a version-3 iolog: (action, offset, length) of each I/O.
fn iolog_ios(path: &Path) -> Vec<(String, u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 5).then(|| (f[2].to_string(), f[3].parse().unwrap(), f[4].parse().unwrap()))
        })
        .collect()
}

fn counts_as_fio() {
    require_fio();
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let both = |args: &str| {
        let args: Vec<&str> = args.split_whitespace().collect();
        let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let f = run("fio", &args, fdir.path());
        let z = run(zonekit, &args, zdir.path());
        (counts(&f), counts(&z), fdir, zdir)
    };
    // Jobs run together, each with its own file; the last two log their I/Os.
    let jobs = [
        "--name=n --filename=a --size=1m --bs=4k --rw=write --number_ios=10",
        "--name=n --filename=b --size=1m --bs=4k --rw=randread --number_ios=37",
        "--name=n --filename=c --size=64k --bs=4k --rw=read --number_ios=40 --loops=3",
        "--name=n --filename=d --size=1m --bs=4k --rw=write --number_ios=1000",
        "--name=n --ioengine=null --size=1m --bs=4k --rw=randwrite --number_ios=25 --iodepth=8",
        "--name=t --ioengine=null --size=1m --bs=4k --rw=trimwrite",
        "--name=t --ioengine=null --size=1m --bs=16k --rw=randtrimwrite",
        "--name=t --ioengine=null --size=1m --bs=4k --rw=trimwrite --number_ios=10",
        "--name=t --ioengine=null --size=256k --bs=4k,8k,8k --rw=trimwrite",
        "--name=c --filename=g --size=1m --rw=write --bs=8k,",
        "--name=c --filename=h --size=1m --rw=write --bsrange=512-16k,",
        "--name=m --filename=e --size=1m --bs=4k --rw=randrw --number_ios=64",
        "--name=l --ioengine=null --size=128k --bs=4k --rw=trimwrite --write_iolog=seq.log",
        "--name=l --ioengine=null --size=128k --bs=4k --rw=randtrimwrite --write_iolog=rand.log",
    ];
    let (f, z, fd, zd) = both(&jobs.join(" "));
    assert_eq!(f.len(), jobs.len());
    for (i, args) in jobs.iter().enumerate() {
        if args.contains("randrw") {
            // A mixed job: the same total.
            let total = |c: &[u64; 6]| c[0] + c[1] + c[2];
            assert_eq!((total(&f[i]), total(&z[i])), (64, 64), "{args}");
        } else {
            assert_eq!(f[i], z[i], "{args}: ios and bytes (read, write, trim)");
        }
    }

    // Each trim is followed by the write of the same block: the same sequence as fio's for
    // trimwrite, the same pairing for randtrimwrite.
    let (fl, zl) = (iolog_ios(&fd.path().join("seq.log")), iolog_ios(&zd.path().join("seq.log")));
    assert_eq!(fl.len(), 64);
    assert_eq!(fl, zl, "trimwrite: the I/Os in order");
    for p in [fd.path(), zd.path()] {
        let ios = iolog_ios(&p.join("rand.log"));
        assert_eq!(ios.len(), 64, "{}", p.display());
        for pair in ios.chunks(2) {
            assert_eq!((pair[0].0.as_str(), pair[1].0.as_str()), ("trim", "write"));
            assert_eq!((pair[0].1, pair[0].2), (pair[1].1, pair[1].2), "the write goes where the trim went");
        }
        let mut offs: Vec<u64> = ios.iter().step_by(2).map(|i| i.1).collect();
        offs.sort_unstable();
        offs.dedup();
        assert_eq!(offs.len(), 32, "each block trimmed once");
    }
}

/// Bad input: one line, exit code 2, for both of zonekit's checks and fio's ranges.
fn bad_input_in_one_line() {
    let zonekit = env!("CARGO_BIN_EXE_zonekit");
    let dir = tempfile::tempdir().unwrap();
    for (arg, what) in [
        ("--buffer_pattern=0xZZ", "buffer_pattern=0xZZ"),
        ("--buffer_pattern=\"abc", "buffer_pattern"),
        ("--buffer_pattern=%o", "buffer_pattern=%o"),
        ("--buffer_compress_percentage=101", "buffer_compress_percentage=101"),
        ("--dedupe_percentage=-1", "dedupe_percentage=-1"),
        ("--dedupe_working_set_percentage=200", "dedupe_working_set_percentage=200"),
        ("--dedupe_mode=sometimes", "dedupe_mode=sometimes"),
        ("--dedupe_mode=working_set --dedupe_percentage=60 --dedupe_working_set_percentage=50", "dedupe_percentage"),
    ] {
        let mut args: Vec<&str> = vec!["--name=b", "--filename=data", "--size=64k", "--rw=write"];
        args.extend(arg.split(' '));
        let o = Command::new(zonekit).arg("bench").args(&args).current_dir(dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{arg}: {err}");
        assert_eq!(err.lines().count(), 1, "{arg}: {err}");
        assert!(err.starts_with("zonekit: ") && err.contains(what), "{arg}: {err}");
    }
    assert!(!dir.path().join("data").exists(), "nothing written");
}

/// The tests that need a tool besides Rust: ignored by a plain `cargo test`, run by
/// `scripts/test.sh`, and failing there when the tool is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn buffers_as_fio() {
        super::buffers_as_fio();
    }

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn counts_as_fio() {
        super::counts_as_fio();
    }
}

#[test]
fn bad_buffer_options_in_one_line() {
    bad_input_in_one_line();
}
