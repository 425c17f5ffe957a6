//! Whole runs through `run::execute`: header lines, groups, report formats, exit codes.

use std::io::Write;
use std::sync::{Arc, Mutex};
use zonekit_bench::options::job::{JobOptions, RwMode, SizeSpec};
use zonekit_bench::output::OutputFormats;
use zonekit_bench::run::{BenchJob, RunSettings, execute};

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn job(name: &str, file: &std::path::Path, rw: RwMode, groupid: u32) -> BenchJob {
    let mut o = JobOptions { name: name.into(), ..JobOptions::default() };
    o.filename = Some(file.display().to_string());
    o.size = Some(SizeSpec::Bytes(2 << 20));
    o.rw = rw;
    BenchJob { name: name.into(), opts: Arc::new(o), groupid, job_options: vec![("name".into(), name.into())] }
}

fn run(jobs: &[BenchJob], formats: &str) -> (i32, String, String) {
    let buf = Buf::default();
    let mut err = Vec::new();
    let settings = RunSettings { formats: OutputFormats::parse(formats).unwrap(), ..RunSettings::default() };
    let r = execute(jobs, &settings, Box::new(buf.clone()), &mut err);
    let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    (r.exit_code, out, String::from_utf8(err).unwrap())
}

#[test]
fn normal_output_has_fios_structure() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let (code, out, err) = run(&[job("w", &f, RwMode::Write, 0), job("r", &f, RwMode::RandRead, 1)], "normal");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(
            "w: (g=0): rw=write, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1"
        ),
        "{out}"
    );
    assert!(lines[1].starts_with("r: (g=1): rw=randread"), "{out}");
    assert!(lines[2].starts_with("zonekit-"), "{out}");
    assert_eq!(lines[3], "Starting 2 processes");
    assert!(out.contains("w: Laying out IO file (1 file / 2MiB)"), "{out}");
    assert!(out.contains("  write: IOPS="), "{out}");
    assert!(out.contains("  read: IOPS="), "{out}");
    assert!(out.contains("Run status group 0 (all jobs):"), "{out}");
    assert!(out.contains("Run status group 1 (all jobs):"), "{out}");
    assert!(out.contains("issued rwts: total=0,512,0,0"), "{out}");
    assert!(out.contains("issued rwts: total=512,0,0,0"), "{out}");
}

#[test]
fn json_output_parses_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let (code, out, _) = run(&[job("w", &f, RwMode::Write, 0)], "json");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert!(v["fio version"].as_str().unwrap().starts_with("zonekit-"));
    assert_eq!(v["jobs"][0]["write"]["total_ios"], 512);
    assert_eq!(v["jobs"][0]["write"]["io_bytes"], 2 << 20);
}

#[test]
fn a_failing_job_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = job("r", &dir.path().join("missing"), RwMode::Read, 0);
    Arc::get_mut(&mut j.opts).unwrap().size = None;
    let (code, out, err) = run(&[j], "normal");
    assert_eq!(code, 1);
    assert_eq!(err, "zonekit: job r: you need to specify size=\n");
    // As fio: no job block for a job that could not set up, an empty group, no disk stats.
    assert!(out.ends_with("Run status group 0 (all jobs):\n"), "{out}");
}

#[test]
fn status_interval_and_eta_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = job("s", &dir.path().join("f"), RwMode::RandRead, 0);
    let o = Arc::get_mut(&mut j.opts).unwrap();
    o.time_based = true;
    o.runtime = Some(std::time::Duration::from_millis(2300));
    let buf = Buf::default();
    let mut err = Vec::new();
    let settings = RunSettings {
        formats: OutputFormats::parse("normal").unwrap(),
        eta: zonekit_bench::run::EtaMode::Always,
        status_interval: Some(std::time::Duration::from_secs(1)),
        ..RunSettings::default()
    };
    let r = execute(&[j], &settings, Box::new(buf.clone()), &mut err);
    assert_eq!(r.exit_code, 0);
    let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    assert!(out.matches("s: (groupid=0, jobs=1)").count() >= 3, "two interim reports and the final one: {out}");
    assert!(out.contains("Jobs: 1 (f=1): [r(1)]["), "{out}");
    assert!(out.contains("\r"), "the status line is rewritten in place");
}

#[test]
fn clones_sharing_a_new_file_lay_it_out_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = job("shared", &dir.path().join("f"), RwMode::RandRw, 0);
    Arc::get_mut(&mut j.opts).unwrap().numjobs = 4;
    for _ in 0..3 {
        let _ = std::fs::remove_file(dir.path().join("f"));
        let (code, out, err) = run(std::slice::from_ref(&j), "normal");
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.matches("Laying out IO file").count(), 1, "{out}");
        assert_eq!(out.matches("shared: (groupid=0, jobs=1): err= 0").count(), 4, "{out}");
    }
}
