//! The pictures' text (titles, axis labels, legend entries) as the SVG holds it, and valid files.

use zonekit_core::{Zone, ZoneCond, ZoneType};
use zonekit_plot::logs::{LogKind, parse};
use zonekit_plot::run::{RunInput, figure};
use zonekit_plot::{draw, map, result};

const JSON: &str = r#"{"jobs":[{"jobname":"seq","groupid":0,"write":{"io_bytes":1,"total_ios":1,"bw_bytes":1,"iops":1,
  "clat_ns":{"bins":{"1000":1,"20000":3}}}}]}"#;

fn run(name: &str) -> RunInput {
    let mut lat = String::new();
    for i in 0..300 {
        lat += &format!("{i}, {}, 1, 4096, 0\n", 20_000 + i * 10);
    }
    RunInput {
        name: name.into(),
        result: result::parse("r", JSON).unwrap(),
        logs: vec![
            parse("a_bw.1.log", LogKind::Bw, Some(1), "100, 2048, 1, 0\n200, 4096, 1, 0\n").unwrap(),
            parse("a_lat.1.log", LogKind::Lat, Some(1), &lat).unwrap(),
        ],
    }
}

/// Text content of the SVG's `<text>` elements.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim().to_string()))
        .collect()
}

#[test]
fn run_svg_has_titles_units_and_legends() {
    let f = figure(&[run("base"), run("qd1")]);
    let svg = draw::figure_svg(&f.figure).unwrap();
    let t = texts(&svg);
    for want in [
        "zonekit bench: base vs qd1",
        "base: bandwidth over time",
        "qd1: IOPS over time",
        "bandwidth (MiB/s)",
        "time (s)",
        "lat (µs)",
        "seq (job 1)",
        "write p10–p90",
        "write median",
        "write p99",
        "I/Os at or below (%)",
        "base: completion latency (clat) distribution",
    ] {
        assert!(t.iter().any(|x| x == want), "{want:?} not in {t:?}");
    }
    // The missing IOPS log is said in the panel, naming the option.
    assert!(t.iter().any(|x| x.contains("write_iops_log")), "{t:?}");
}

#[test]
fn png_and_svg_files_are_valid() {
    let d = tempfile::tempdir().unwrap();
    let f = figure(&[run("base")]);
    let png = d.path().join("a.png");
    draw::write_figure(&f.figure, &png).unwrap();
    let b = std::fs::read(&png).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&b[12..16], b"IHDR");
    let (w, h) = draw::figure_size(&f.figure);
    assert_eq!(u32::from_be_bytes(b[16..20].try_into().unwrap()), w);
    assert_eq!(u32::from_be_bytes(b[20..24].try_into().unwrap()), h);
    let svg = d.path().join("a.svg");
    draw::write_figure(&f.figure, &svg).unwrap();
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
    assert!(draw::write_figure(&f.figure, &d.path().join("a.jpg")).is_err());
}

#[test]
fn map_svg_has_legend_counts() {
    let zones: Vec<Zone> = (0..16u64)
        .map(|i| Zone {
            start: i * 8192,
            len: 8192,
            capacity: 8192,
            wp: i * 8192 + if i == 3 { 4096 } else { 0 },
            zone_type: if i == 0 { ZoneType::Conventional } else { ZoneType::SeqWriteRequired },
            cond: match i {
                0 => ZoneCond::NotWp,
                3 => ZoneCond::ImplicitOpen,
                4 => ZoneCond::Full,
                _ => ZoneCond::Empty,
            },
            non_seq: false,
            reset: false,
        })
        .collect();
    let m = map::layout("zones of small", &zones);
    let t = texts(&map::map_svg(&m).unwrap());
    for want in ["zones of small", "conventional: 1", "empty: 13", "implicit open: 1", "full: 1", "offline: 0", "50%"] {
        assert!(t.iter().any(|x| x == want), "{want:?} not in {t:?}");
    }
}
