//! `verify=` end to end through the command line (in process): the write and verify phases in
//! the report, every engine, corruption with and without `continue_on_error`, and bad values.
//! Comparisons with real fio are in `crates/zonekit/tests/verify_fio.rs`.

/// Runs `zonekit bench ARGS`, the report going to a file beside the job's: (exit code, report,
/// standard error).
fn bench(args: &[String]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let mut argv = args.to_vec();
    argv.push(format!("--output={}", report.display()));
    let mut err = Vec::new();
    let code = zonekit_bench::cli::main(&argv, &mut Vec::new(), &mut err);
    (code, std::fs::read_to_string(&report).unwrap_or_default(), String::from_utf8(err).unwrap())
}

fn args(file: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        "--name=v".to_string(),
        format!("--filename={}", file.display()),
        "--size=256k".into(),
        "--bs=4k".into(),
        "--verify_state_save=0".into(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

#[test]
fn a_writing_job_reads_back_and_reports_its_verify_phase() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data");
    for (engine, depth) in [("psync", "1"), ("io_uring", "8"), ("libaio", "4")] {
        for rw in ["write", "randwrite", "randrw"] {
            let e = format!("--ioengine={engine}");
            let d = format!("--iodepth={depth}");
            let r = format!("--rw={rw}");
            let (code, out, err) = bench(&args(&f, &["--verify=crc32c", &e, &d, &r]));
            assert_eq!(code, 0, "{engine} {rw}: {err}{out}");
            assert!(out.contains("  read: IOPS="), "{out}");
            assert!(out.contains("  write: IOPS="), "{out}");
            if rw != "randrw" {
                assert!(out.contains("issued rwts: total=64,64,0,0"), "{engine} {rw}: {out}");
            }
        }
    }
}

#[test]
fn each_loop_writes_then_verifies_as_fio() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data");
    let (code, out, err) = bench(&args(&f, &["--rw=randwrite", "--verify=crc32c", "--loops=3"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("issued rwts: total=192,192,0,0"), "fio's counts for this job: {out}");
    let (code, out, err) = bench(&args(&f, &["--rw=write", "--verify=crc32c", "--time_based", "--runtime=200ms"]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("verification read phase will never start"), "{err}");
    assert!(!out.contains("READ:"), "no verify phase: {out}");
}

#[test]
fn trimmed_blocks_read_back_as_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data");
    for zero in ["--trim_verify_zero=1", "--trim_verify_zero=0"] {
        let (code, out, err) =
            bench(&args(&f, &["--rw=randwrite", "--verify=crc32c", "--trim_percentage=50", "--trim_backlog=4", zero]));
        assert_eq!(code, 0, "{err}{out}");
        let issued = out.lines().find(|l| l.contains("issued rwts")).unwrap();
        let trims: u64 = issued.split("total=").nth(1).unwrap().split(',').nth(2).unwrap().parse().unwrap();
        assert!(trims > 10, "about half the blocks are trimmed: {issued}");
    }
}

#[test]
fn backlog_verifies_while_writing_as_many_reads_as_writes() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data");
    let (code, out, err) =
        bench(&args(&f, &["--rw=randwrite", "--verify=md5", "--verify_backlog=4", "--verify_backlog_batch=2"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("issued rwts: total=64,64,0,0"), "fio's counts for this job: {out}");
}

#[test]
fn corruption_fails_the_job_unless_verify_errors_are_continued() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data");
    let (code, _, err) = bench(&args(&f, &["--rw=write", "--verify=sha1", "--do_verify=0"]));
    assert_eq!(code, 0, "{err}");
    let mut data = std::fs::read(&f).unwrap();
    data[4096 * 9 + 1000] ^= 1;
    data[4096 * 11 + 10] ^= 1;
    std::fs::write(&f, &data).unwrap();
    let (code, out, err) = bench(&args(&f, &["--rw=read", "--verify=sha1"]));
    assert_eq!(code, 1);
    assert!(err.starts_with("sha1: verify failed at file "), "{err}");
    assert!(err.contains(" offset 36864, length 4096 (requested block: offset=36864, length=4096, flags=8)"), "{err}");
    assert!(err.contains("err=84/file:io_u.c:2152, func=io_u_sync_complete, error=Invalid or incomplete"), "{err}");
    assert!(out.contains("err=84 (file:io_u.c:2152"), "{out}");
    let (code, out, err) = bench(&args(&f, &["--rw=read", "--verify=sha1", "--continue_on_error=verify"]));
    assert_eq!(err.matches("verify failed").count(), 1, "{err}");
    assert!(err.contains("bad header crc"), "the header of block 11 is hit: {err}");
    assert!(out.contains("issued rwts: total=64,0,0,0"), "every block read: {out}");
    assert!(out.contains(": (groupid=0, jobs=1): err=84 (): pid="), "as fio shows it: {out}");
    assert!(out.contains("errors    : total=2, first_error=84/<Invalid or incomplete multibyte"), "{out}");
    assert_eq!(code, 0, "fio's exit code: the job carried on");
}

#[test]
fn bad_verify_values_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data");
    for bad in [
        &["--verify_pattern=0xzz"][..],
        &["--verify_pattern=\"open"],
        &["--verify_pattern=99999999999"],
        &["--verify=pattern"],
        &["--verify=sha512", "--bs=128"],
        &["--verify=md5", "--verify_offset=4090"],
        &["--verify=blake3"],
    ] {
        let (code, out, err) = bench(&args(&f, bad));
        assert_eq!(code, 2, "{bad:?}: {err}{out}");
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(err.starts_with("zonekit: "), "{err}");
    }
}
