//! `ramp_time`'s accounting, as fio 3.33 does it: at the end of the ramp every statistic starts
//! again (`reset_all_stats`), so the I/Os still in flight then count their bytes (added at
//! completion) but not their I/Os (`total_io_u` is counted at queue time), and each direction's
//! runtime runs from the end of the ramp to the end of the job's I/O loop, whenever its last
//! I/O completed.

mod common;

use common::{run, zonekit};
use serde_json::Value;

/// Job `i`'s write `(io_bytes, total_ios, runtime, bw_bytes)`.
fn write(doc: &Value, i: usize) -> (u64, u64, u64, u64) {
    let w = &doc["jobs"][i]["write"];
    let f = |k: &str| w[k].as_u64().unwrap_or_else(|| panic!("write.{k} of job {i} in {doc}"));
    (f("io_bytes"), f("total_ios"), f("runtime"), f("bw_bytes"))
}

/// The file job of the fio comparison below, on zonekit only.
const FILE_JOB: [&str; 11] = [
    "--name=r",
    "--filename=f",
    "--size=16M",
    "--ioengine=libaio",
    "--iodepth=8",
    "--numjobs=2",
    "--bs=4k",
    "--rw=randwrite",
    "--time_based",
    "--ramp_time=200ms",
    "--runtime=300ms",
];

/// Checks job `i` of `program`'s report of [`FILE_JOB`].
fn check_file_job(program: &str, doc: &Value, i: usize) {
    let (bytes, ios, runtime, bw) = write(doc, i);
    assert!(ios > 0, "{program} job {i}: {doc}");
    assert_eq!(bytes % 4096, 0, "{program} job {i}");
    // The I/Os in flight at the end of the ramp: their bytes, not their I/Os (at most iodepth).
    let extra = bytes / 4096 - ios;
    assert!((1..=8).contains(&extra), "{program} job {i}: {bytes} bytes, {ios} I/Os");
    // From the end of the ramp to the end of the loop: at least the runtime (fio: 300-321 ms).
    assert!((300..400).contains(&runtime), "{program} job {i}: runtime {runtime} ms");
    assert_eq!(bw, bytes * 1000 / runtime, "{program} job {i}");
}

#[test]
fn a_ramped_jobs_runtime_runs_to_the_end_of_its_loop() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, o) = run(zonekit(), &FILE_JOB, dir.path());
    common::ok(&o);
    for i in 0..2 {
        check_file_job(zonekit(), &doc, i);
    }
}

mod needs_tools {
    use super::*;
    use common::require_fio;

    /// A file job with a deep queue and a ramp, on fio and on zonekit: for each job, the bytes of
    /// the I/Os in flight at the end of the ramp count, their I/Os don't, and the runtime is the
    /// job's (end of ramp to end of loop).
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn in_flight_ios_at_the_end_of_the_ramp_count_as_fio() {
        require_fio();
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            let (doc, o) = run(program, &FILE_JOB, dir.path());
            common::ok(&o);
            for i in 0..2 {
                check_file_job(program, &doc, i);
            }
        }
    }

    /// A verifying writer's read-back pass stops at the job's deadline as its ramp moved it
    /// (fio's `do_verify` checks `runtime_exceeded`, which counts from the reset epoch): the
    /// writes fill the runtime, so nothing is read back. zonekit used to give its verify pass
    /// the whole `ramp_time` once more and read everything back.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn a_verify_pass_stops_at_the_deadline_the_ramp_moved() {
        require_fio();
        let job = [
            "--name=v",
            "--filename=f",
            "--size=64m",
            "--bs=4k",
            "--rw=write",
            "--verify=crc32c",
            "--ramp_time=300ms",
            "--runtime=500ms",
            "--rate=,1m",
        ];
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            let (doc, o) = run(program, &job, dir.path());
            common::ok(&o);
            let (bytes, ios, runtime, _) = write(&doc, 0);
            assert!((100..=140).contains(&ios), "{program}: {ios} writes after the ramp");
            assert_eq!(bytes, ios * 4096, "{program}");
            assert!((500..600).contains(&runtime), "{program}: write runtime {runtime} ms");
            assert_eq!(doc["jobs"][0]["read"]["total_ios"], 0, "{program}: read back past the deadline");
        }
    }

    /// fio notices the end of the ramp as an I/O is sent (`io_u_queued`), not only as one
    /// completes: `libaio` on a buffered file does its I/O inside `io_submit`, so the ramp mostly
    /// ends there, and the I/Os then in flight, the one just sent included, are the whole
    /// queue: `io_bytes` is `(total_ios + 32) × bs` at `iodepth=32` (31 when a completion
    /// notices it first). zonekit used to notice it only between its rounds: always 31.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn a_full_queue_counts_its_bytes_when_the_ramp_ends_at_a_submission() {
        require_fio();
        let mut job = FILE_JOB;
        job[4] = "--iodepth=32";
        for program in ["fio", zonekit()] {
            let dir = tempfile::tempdir().unwrap();
            let (doc, o) = run(program, &job, dir.path());
            common::ok(&o);
            let extra: Vec<u64> = (0..2)
                .map(|i| {
                    let (bytes, ios, ..) = write(&doc, i);
                    bytes / 4096 - ios
                })
                .collect();
            assert!(extra.iter().all(|e| (31..=32).contains(e)), "{program}: {extra:?}");
            assert!(extra.contains(&32), "{program}: {extra:?}: the ramp ended at a submission in neither job");
        }
    }
}
