//! A job clone run end to end on real files, with each engine.

use std::sync::Arc;
use zonekit_bench::options::job::{JobOptions, RwMode, SizeSpec};
use zonekit_bench::run::io_loop::Progress;
use zonekit_bench::run::job_thread::{JobRun, run_job};

fn job(dir: &std::path::Path, rw: RwMode, engine: &str, depth: u32) -> JobOptions {
    let mut o = JobOptions { name: "t".into(), ..JobOptions::default() };
    o.filename = Some(dir.join("data").display().to_string());
    o.size = Some(SizeSpec::Bytes(4 << 20));
    o.rw = rw;
    o.ioengine = engine.into();
    o.iodepth = depth;
    o.iodepth_batch_complete_max = depth;
    o
}

fn run(o: JobOptions) -> zonekit_bench::run::job_thread::JobOutcome {
    let r = JobRun { opts: Arc::new(o), jobnum: 0, thread_number: 1, groupid: 0, seeds: Arc::default() };
    run_job(r, Arc::default(), Arc::new(Progress::default()), Arc::new(|_: &str| {}))
}

#[test]
fn write_then_read_with_every_engine() {
    for (engine, depth) in [("psync", 1), ("sync", 1), ("io_uring", 16), ("libaio", 8)] {
        let dir = tempfile::tempdir().unwrap();
        for rw in [RwMode::Write, RwMode::RandRead, RwMode::RandRw] {
            let out = run(job(dir.path(), rw, engine, depth));
            assert_eq!(out.error, None, "{engine} {rw:?}");
            let bytes: u64 = out.stats.io_bytes.iter().sum();
            assert_eq!(bytes, 4 << 20, "{engine} {rw:?}");
            assert_eq!(out.stats.total_io_u[..3].iter().sum::<u64>(), 1024, "{engine} {rw:?}");
        }
        assert_eq!(std::fs::metadata(dir.path().join("data")).unwrap().len(), 4 << 20);
    }
}

#[test]
fn missing_size_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = job(dir.path(), RwMode::Read, "psync", 1);
    o.size = None;
    let out = run(o);
    assert_eq!(out.error.unwrap().1, "job t: you need to specify size=");
}
