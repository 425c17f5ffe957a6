//! `zonekit bench --zonemode=zbd` end to end: fio's engines on zonekit's emulated devices.

use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).arg("bench").args(args).output().expect("run zonekit")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The `io=` bytes of the group line of direction `what` (`WRITE:` or `READ:`).
fn group_bytes(o: &Output, what: &str) -> Option<u64> {
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out.lines().find(|l| l.trim_start().starts_with(what))?;
    let io = line.split("io=").nth(1)?.split('B').next()?;
    io.parse().ok()
}

#[test]
fn every_engine_runs_on_an_emulated_device_at_any_iodepth() {
    // Synchronous engines keep one I/O in flight whatever iodepth says (fio caps the depth at
    // 1); the in-process engine must still serve every slot the job loop fills.
    for engine in ["psync", "sync", "sg", "libzbc", "libaio", "io_uring", "null"] {
        for depth in ["1", "4"] {
            let o = bench(&[
                "--name=j",
                "--filename=@nullb-small",
                "--zonemode=zbd",
                "--direct=1",
                "--rw=randwrite",
                "--bs=4k",
                "--size=8M",
                "--significant_figures=10",
                &format!("--ioengine={engine}"),
                &format!("--iodepth={depth}"),
            ]);
            assert!(o.status.success(), "{engine} iodepth={depth}: {}", text(&o));
            assert!(!text(&o).contains("panicked"), "{engine} iodepth={depth}: {}", text(&o));
            assert_eq!(group_bytes(&o, "WRITE:"), Some(8 << 20), "{engine} iodepth={depth}: {}", text(&o));
        }
    }
}
