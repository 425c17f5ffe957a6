//! End-to-end tests of `zonekit map` and `zonekit plot` through the binary: a device's zones and a
//! run's logs drawn to SVG, checked by the picture's text (legend counts, titles, axis labels), and
//! bad input refused in one line.
#![cfg(feature = "plot")]

use std::path::Path;
use std::process::{Command, Output};

fn zonekit(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).current_dir(dir).args(args).output().expect("run zonekit")
}

#[track_caller]
fn ok(o: &Output) {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), String::from_utf8_lossy(&o.stderr));
}

/// The text elements of an SVG, trimmed, in document order.
fn svg_texts(path: &Path) -> Vec<String> {
    let s = std::fs::read_to_string(path).unwrap();
    assert!(s.starts_with("<svg"), "not an SVG: {}", path.display());
    let mut out = Vec::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find("<text") {
        rest = &rest[i..];
        let open = rest.find('>').unwrap() + 1;
        let close = rest.find("</text>").unwrap();
        out.push(rest[open..close].trim().to_string());
        rest = &rest[close..];
    }
    out
}

#[test]
fn map_counts_each_condition_and_shows_fill_levels() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    ok(&zonekit(d, &["dev", "create", "small", "--profile", "zbc-small"]));
    // zbc-small: 16 zones of 4 MiB (8192 sectors), zone 0 conventional.
    ok(&zonekit(d, &["zone", "open", "small", "-o", "8192", "-c", "1"]));
    ok(&zonekit(d, &["zone", "write", "small", "-o", "16384", "-l", "2048"]));
    ok(&zonekit(d, &["zone", "finish", "small", "-o", "32768", "-c", "1"]));
    ok(&zonekit(d, &["map", "small", "-o", "map.svg"]));
    let t = svg_texts(&d.join("map.svg"));
    for want in [
        "zones of small",
        "conventional: 1",
        "empty: 12",
        "implicit open: 1",
        "explicit open: 1",
        "closed: 0",
        "full: 1",
        "read-only: 0",
        "offline: 0",
    ] {
        assert!(t.iter().any(|x| x == want), "map lacks {want:?}: {t:?}");
    }
    // The written zone (2048 of 8192 sectors) is labelled with its fill; the full one with 100 %.
    let after = |zone: &str| t.iter().position(|x| x == zone).map(|i| t[i + 1].clone());
    assert_eq!(after("2").as_deref(), Some("25%"), "{t:?}");
    assert_eq!(after("4").as_deref(), Some("100%"), "{t:?}");

    ok(&zonekit(d, &["map", "small", "-o", "map.png"]));
    let png = std::fs::read(d.join("map.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn plot_draws_a_runs_logs_with_titles_units_and_legends() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    ok(&zonekit(d, &["dev", "create", "small", "--profile", "zbc-small"]));
    let run = zonekit(
        d,
        &[
            "bench",
            "--name=w",
            "--filename=small",
            "--zonemode=zbd",
            "--direct=1",
            "--rw=write",
            "--bs=64k",
            "--size=8M",
            "--offset=8M",
            "--write_bw_log=w",
            "--write_lat_log=w",
            "--write_iops_log=w",
            "--log_avg_msec=0",
            "--output-format=json+",
        ],
    );
    ok(&run);
    std::fs::write(d.join("r.json"), &run.stdout).unwrap();
    ok(&zonekit(d, &["plot", "r.json", "w_bw.1.log", "w_iops.1.log", "w_lat.1.log", "-o", "p.svg"]));
    let t = svg_texts(&d.join("p.svg"));
    for want in [
        "bandwidth over time",
        "bandwidth (MiB/s)",
        "IOPS over time",
        "IOPS (I/Os per second)",
        "time (s)",
        "w (job 1)",
    ] {
        assert!(t.iter().any(|x| x == want), "plot lacks {want:?}: {t:?}");
    }
    assert!(t.iter().any(|x| x.contains("latency")), "no latency panel: {t:?}");
}

#[test]
fn bad_input_is_one_line_with_the_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let o = zonekit(d, &["plot", "nope.json", "-o", "x.svg"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("zonekit: nope.json: No such file or directory"), "{err}");
    assert!(!err.contains("os error"), "{err}");
    let o = zonekit(d, &["map", "@zbc-small", "-o", "x.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr).unwrap().contains("must end in .png or .svg"));
}
