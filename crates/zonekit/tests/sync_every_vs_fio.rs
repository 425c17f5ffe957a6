//! `fsync=N` and `fdatasync=N` beside fio 3.33 over `loops`: the same syncs (none after the job's
//! last write, one after each earlier pass's last write, one at the start of a later pass), the
//! same writes, and the same places in the JSON report (fio counts fsyncs in `sync.total_ios`
//! and fdatasyncs in the reads' `short_ios`).
//!
//! Needs `fio`: the comparison is `#[ignore]`d for a plain `cargo test`; `scripts/test.sh` runs it
//! and it fails without fio.

mod common;

use common::{ok, require_fio, run, zonekit};

/// Writes, sync.total_ios, the reads' and the writes' short_ios of the report's only job.
fn counts(doc: &serde_json::Value) -> [u64; 4] {
    let j = &doc["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or_else(|| panic!("{d}.{k} in {j}"));
    [n("write", "total_ios"), n("sync", "total_ios"), n("read", "short_ios"), n("write", "short_ios")]
}

fn syncs_as_fio() {
    require_fio();
    // 16 writes a pass, a sync due every 4: fio 3.33 makes 3, 8 and 13 (psync).
    for (opt, want) in [
        ("--fsync=4", [[16, 3, 0, 0], [32, 8, 0, 0], [48, 13, 0, 0]]),
        ("--fdatasync=4", [[16, 0, 3, 0], [32, 0, 8, 0], [48, 0, 13, 0]]),
    ] {
        for (loops, want) in [1, 2, 3].into_iter().zip(want) {
            let l = format!("--loops={loops}");
            let args = ["--name=s", "--filename=data", "--rw=write", "--bs=4k", "--size=64k", opt, &l];
            let (fdir, zdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let (f, fo) = run("fio", &args, fdir.path());
            ok(&fo);
            let (z, zo) = run(zonekit(), &args, zdir.path());
            ok(&zo);
            assert_eq!(counts(&f), want, "{args:?}: fio 3.33");
            assert_eq!(counts(&z), counts(&f), "{args:?}: zonekit beside fio");
        }
    }
}

mod needs_tools {
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn syncs_as_fio() {
        super::syncs_as_fio();
    }
}
