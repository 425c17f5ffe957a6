//! `fsync=N` and `fdatasync=N` beside fio 3.33 over `loops`: the same syncs (none after the job's
//! last write, one after each earlier pass's last write, one at the start of a later pass), the
//! same writes, and the same places in the JSON report (fio counts fsyncs in `sync.total_ios`
//! and fdatasyncs in the reads' `short_ios`).
//!
//! Needs `fio`: the comparison is `#[ignore]`d for a plain `cargo test`; `scripts/test.sh` runs it
//! and it fails without fio.

mod common;

use common::{ok, require_fio, run, zonekit};

/// Per job: writes, sync.total_ios, the reads' and the writes' short_ios.
fn counts(doc: &serde_json::Value) -> Vec<[u64; 4]> {
    let jobs = doc["jobs"].as_array().unwrap_or_else(|| panic!("no jobs in {doc}"));
    jobs.iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or_else(|| panic!("{d}.{k} in {j}"));
            [n("write", "total_ios"), n("sync", "total_ios"), n("read", "short_ios"), n("write", "short_ios")]
        })
        .collect()
}

fn syncs_as_fio() {
    require_fio();
    // 16 writes a pass, a sync due every 4, loops 1, 2 and 3 (one job each, one run): fio 3.33
    // makes 3, 8 and 13 (psync), fsyncs in sync.total_ios, fdatasyncs in the reads' short_ios.
    for (opt, want) in [
        ("--fsync=4", [[16, 3, 0, 0], [32, 8, 0, 0], [48, 13, 0, 0]]),
        ("--fdatasync=4", [[16, 0, 3, 0], [32, 0, 8, 0], [48, 0, 13, 0]]),
    ] {
        let mut args = vec!["--rw=write", "--bs=4k", "--size=64k", opt];
        args.extend(["--name=l1", "--filename=d1", "--loops=1", "--name=l2", "--filename=d2", "--loops=2"]);
        args.extend(["--name=l3", "--filename=d3", "--loops=3"]);
        let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (f, fo) = run("fio", &args, fdir.path());
        ok(&fo);
        let (z, zo) = run(zonekit(), &args, zdir.path());
        ok(&zo);
        assert_eq!(counts(&f), want, "{args:?}: fio 3.33");
        assert_eq!(counts(&z), counts(&f), "{args:?}: zonekit beside fio");
    }
}

mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn syncs_as_fio() {
        super::syncs_as_fio();
    }
}
