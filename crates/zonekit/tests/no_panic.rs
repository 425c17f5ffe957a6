//! Bad input never panics: parsers and range checks over arbitrary values, and the command line
//! over arbitrary arguments (in-process, through `Cli` parsing and range resolution).

use proptest::prelude::*;
use zonekit_cli::cmd::zone::{RangeArgs, mgmt_range, report_selection};
use zonekit_cli::units::{parse_byte, parse_bytes, parse_sectors};
use zonekit_core::Geometry;

fn geometries() -> impl Strategy<Value = Geometry> {
    (1u64..=64, 1u32..=64, 0u32..4).prop_filter_map("valid geometry", |(zs, nz, conv)| {
        Geometry::with_zones(zs * 8, nz, zs * 8, conv.min(nz - 1), 512).ok()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn size_parsers_never_panic(s in ".{0,24}") {
        let _ = parse_bytes(&s);
        let _ = parse_sectors(&s);
        let _ = parse_byte(&s);
    }

    #[test]
    fn suffixed_sizes_parse_exactly(n in 0u64..1_000_000, unit in prop::sample::select(vec!["", "k", "K", "m", "M", "g", "KiB", "MB"])) {
        let mult: u64 = match unit.to_ascii_lowercase().chars().next() { Some('k') => 1 << 10, Some('m') => 1 << 20, Some('g') => 1 << 30, _ => 1 };
        prop_assert_eq!(parse_bytes(&format!("{n}{unit}")), Ok(n * mult));
    }

    #[test]
    fn ranges_are_checked_not_panicking(g in geometries(), o in prop::option::of(any::<u64>()), l in prop::option::of(any::<u64>()), c in prop::option::of(any::<u64>())) {
        let r = RangeArgs { offset: o, length: l, count: c };
        if let Ok((sector, nr)) = mgmt_range("d", &g, &r) {
            prop_assert!(nr > 0 && sector + nr <= g.capacity);
            prop_assert_eq!(sector % g.zone_size, 0);
            prop_assert!(nr % g.zone_size == 0 || sector + nr == g.capacity);
        }
        if let Ok(sel) = report_selection("d", &g, &r, vec![]) {
            prop_assert!(sel.first < g.nr_zones && sel.count >= 1 && sel.first + sel.count <= g.nr_zones);
        }
    }

    #[test]
    fn command_lines_never_panic(args in prop::collection::vec(prop::sample::select(vec![
        "zone", "report", "reset", "open", "close", "finish", "write", "read", "dev", "info", "profiles",
        "@nullb-small", "@zns-small", "@nope", "-o", "-l", "-c", "--cond", "--count-only", "--format", "zbc",
        "json", "0", "8192", "1M", "x", "--all", "--zone-size", "-1", "99999999999999999999", "em,fu",
        "--pattern", "--json", "-v", "capacity", "append", "inject", "read-only", "fail-next-write",
        "move-wp=8", "move-wp=1M", "clear", "-f", "text",
    ]), 0..9)) {
        let mut argv: Vec<std::ffi::OsString> = vec!["zonekit".into()];
        argv.extend(args.iter().map(Into::into));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = zonekit_cli::run_to(argv, &mut out, &mut err);
        prop_assert!([0, 1, 2].contains(&code));
        if code != 0 {
            let e = String::from_utf8_lossy(&err);
            prop_assert!(e.starts_with("zonekit: ") || e.contains("Usage:"), "{:?}", e);
        }
    }
}
