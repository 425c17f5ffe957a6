//! `block_error_percentiles`: the state of every trim-sized block and fio's report of them,
//! side by side with real fio 3.33 where fio runs the job (its sort aborts on an assertion as soon
//! as a second block has a state, so the comparisons use one trim block).
//!
//! The side-by-side tests need `fio` and fail without it (a missing tool must not pass a check).

mod common;

use common::{raw, text, zonekit};

use serde_json::Value;
use std::path::Path;

fn bench(args: &[&str], dir: &Path) -> std::process::Output {
    raw(zonekit(), args, dir)
}

/// A regular file written, trimmed and verified (`trim_backlog` trims every logged write, then
/// the verify phase expects zeros from them): every block trimmed as often as the job says.
#[test]
fn block_states_of_a_written_trimmed_and_verified_file() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--name=t",
        "--filename=f",
        "--size=64k",
        "--bs=4k",
        "--rw=trimwrite",
        "--verify=md5",
        "--trim_percentage=100",
        "--trim_backlog=1",
        "--loops=2",
        "--block_error_percentiles=1",
        "--output-format=normal,json",
    ];
    let o = bench(&args, dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // Each loop trims each block before writing it, then trim_backlog trims the write: 4 each.
    assert!(out.contains("     issued rwts: total=32,32,64,0"), "{out}");
    assert!(
        out.contains(
            "  block lifetime percentiles :\n   | 1.00th=4, 5.00th=4, 10.00th=4, 20.00th=4, 30.00th=4, 40.00th=4, 50.00th=4,\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "        states               : unwritten=0, trimmed=16, written=0, trim failure=0, write failure=0\n"
        ),
        "{out}"
    );
    let doc: Value = serde_json::from_str(&out[out.find("{\n").unwrap()..out.rfind("\n}\n").unwrap() + 3]).unwrap();
    let b = &doc["jobs"][0]["block"];
    assert_eq!(b["percentiles"]["50.000000"], 4);
    assert_eq!(b["states"]["trimmed"], 16);
    assert_eq!(b["states"]["unwritten"], 0);
    // One file per job, 1 to 8192 trim blocks: fio's lines and exit codes.
    let o = bench(&["--name=t", "--size=64k", "--nrfiles=2", "--block_error_percentiles=1"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o)
            .contains("zonekit: block error histogram only available with a single file per job, but 2 files provided")
    );
    let o =
        bench(&["--name=t", "--filename=g", "--size=4k", "--bs=4k,4k,8k", "--block_error_percentiles=1"], dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("zonekit: cannot calculate block histogram with 0 trim blocks, maximum 8192"));
}

mod needs_tools {
    use super::*;
    use common::require_fio;

    /// The block report side by side: a one-block file (fio 3.33's sort reads two entries at a
    /// time and aborts once a second block has a state), written, trimmed by `trimwrite` and by
    /// `trim_backlog`, verified, twice. fio trims regular files with BLKDISCARD, which fails, so
    /// fio runs the `null` engine; zonekit runs it on a regular file with `psync` (trims punch
    /// holes, the verify phase reads them back as zeros) and with `null`.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn block_error_percentiles_print_fios_lines_and_keys() {
        require_fio();
        let job = [
            "--name=t",
            "--filename=f",
            "--size=4k",
            "--bs=4k",
            "--rw=trimwrite",
            "--verify=md5",
            "--trim_percentage=100",
            "--trim_backlog=1",
            "--loops=2",
            "--block_error_percentiles=1",
            "--output-format=normal,json",
        ];
        let block_part = |out: &str| -> (Vec<String>, Value, String) {
            let lines: Vec<String> = out
                .lines()
                .skip_while(|l| !l.starts_with("  block lifetime percentiles"))
                .take(5)
                .map(str::to_string)
                .collect();
            let start = out.find("{\n").expect("json");
            let end = out.rfind("\n}\n").expect("json end") + 3;
            let doc: Value = serde_json::from_str(&out[start..end]).unwrap();
            let issued = out.lines().find(|l| l.contains("issued rwts")).unwrap_or_default().to_string();
            (lines, doc["jobs"][0]["block"].clone(), issued)
        };
        let go = |p: &str, extra: &[&str]| {
            let dir = tempfile::tempdir().unwrap();
            let mut a: Vec<&str> = job.to_vec();
            a.extend_from_slice(extra);
            let o = raw(p, &a, dir.path());
            assert!(o.status.success(), "{p} {extra:?}: {}", text(&o));
            block_part(&String::from_utf8_lossy(&o.stdout))
        };
        let fio = go("fio", &["--ioengine=null"]);
        assert_eq!(fio.0.len(), 5, "{fio:?}");
        assert_eq!(fio.1["states"]["trimmed"], 1);
        for extra in [&["--ioengine=null"][..], &["--ioengine=psync"][..]] {
            let z = go(zonekit(), extra);
            assert_eq!(z, fio, "{extra:?}");
        }
        // Nothing trimmed: the header, no percentiles (no JSON object), the states line. fio
        // prints its counts from memory it never set (zeros here); zonekit the blocks' states.
        let plain = ["--name=t", "--filename=f", "--size=16k", "--bs=4k", "--rw=write", "--block_error_percentiles=1"];
        let both_plain = ["fio", zonekit()].map(|p| {
            let dir = tempfile::tempdir().unwrap();
            let mut a = plain.to_vec();
            a.extend(["--ioengine=null", "--output-format=normal,json"]);
            let o = raw(p, &a, dir.path());
            assert!(o.status.success(), "{p}: {}", text(&o));
            block_part(&String::from_utf8_lossy(&o.stdout))
        });
        let [f, z] = both_plain;
        assert_eq!(z.1, Value::Null, "no block object");
        assert_eq!(f.1, Value::Null);
        assert_eq!(f.0[0], "  block lifetime percentiles :");
        assert_eq!(z.0[0], f.0[0]);
        assert!(f.0[1].starts_with("   |        states               : unwritten="), "{:?}", f.0);
        assert_eq!(
            z.0[1],
            "   |        states               : unwritten=4, trimmed=0, written=0, trim failure=0, write failure=0"
        );
    }
}
