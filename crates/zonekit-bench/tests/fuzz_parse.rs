//! The lexer, the option parser and the command line never panic, and every error is one line:
//! proptest over arbitrary bytes and over token soups (sections, keys, values, includes, `${}`,
//! keyword arithmetic, huge numbers). Bounded for CI (a few seconds); `ZONEKIT_FUZZ_CASES=N`
//! raises the number of cases per property.

use proptest::prelude::*;
use zonekit_bench::cmdline::{cmdhelp, enghelp, parse_args};
use zonekit_bench::jobfile::Env;
use zonekit_bench::options::table::OPTIONS;

fn cases() -> u32 {
    std::env::var("ZONEKIT_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

fn env_with(files: Vec<(String, Vec<u8>)>) -> Env {
    Env::hermetic([("SET", "4k"), ("EMPTY", ""), ("WEIRD", "a;b#c\nd")]).with_files(files)
}

/// Parses, resolves and checks runnability; any error must be a single line.
fn check(args: &[String], env: &Env) -> Result<(), TestCaseError> {
    match parse_args(args, env) {
        Ok(inv) => {
            if let Err(e) = inv.check_runnable() {
                let m = e.to_string();
                prop_assert!(!m.contains('\n'), "multi-line run error: {m:?}");
                // Bad input exits with 2; what fio refuses in its own words, with fio's 1.
                prop_assert!(e.exit_code() == 2 || matches!(e, zonekit_bench::error::BenchError::Refused(_)));
            }
        }
        Err(e) => {
            let m = e.to_string();
            prop_assert!(!m.contains('\n') && !m.contains('\r'), "multi-line error: {m:?}");
            prop_assert!(!m.is_empty());
            prop_assert!(e.exit_code() == 1 || e.exit_code() == 2);
        }
    }
    Ok(())
}

fn key() -> impl Strategy<Value = String> {
    let names: Vec<String> = OPTIONS.iter().map(|o| o.name.to_string()).collect();
    prop_oneof![
        4 => proptest::sample::select(names),
        1 => proptest::sample::select(vec![
            "hipri", "fixedbufs", "sqthread_poll", "nonvectored", "userspace_reap", "rbdname", "pool", "port",
            "include", "blocksize", "readwrite", "timeout", "iodepth_batch_submit", "num_range", "threads",
        ]).prop_map(str::to_string),
        1 => "[a-z_$]{1,12}",
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(vec![
            "",
            "0",
            "1",
            "-1",
            "4k",
            "64K",
            "1m",
            "1mi",
            "1MiB",
            "2g",
            "1t",
            "16p",
            "0x10",
            "0x",
            "1.5k",
            "50%",
            "150%",
            "8z",
            "z",
            "10s",
            "500ms",
            "2m",
            "1h",
            "3d",
            "10sec",
            "4k-64k",
            "64k-4k",
            "4k:8k",
            "4k,8k,16k",
            ",8k",
            "4k/50:8k/50",
            "4k/60:8k/60",
            "4k/:8k",
            "read",
            "randrw:8",
            "write:-8k",
            "randread:0",
            "zipf:1.2",
            "zipf:1",
            "pareto:0.5:0.3",
            "normal:200",
            "zoned:50/5:30/15:20/",
            "zoned_abs:50/10G:50/20G",
            "1:5:99.99",
            "${SET}",
            "${UNSET}",
            "${EMPTY}x",
            "${}",
            "${WEIRD}",
            "$ncpus",
            "$ncpus*2",
            "($mb_memory/4)",
            "$pagesize-",
            "2^$ncpus^$ncpus^9",
            "$ncpus/0",
            "((((((($ncpus)))))))",
            "99999999999999999999999999",
            "18446744073709551616",
            "-9223372036854775808",
            "io_uring",
            "libaio",
            "psync",
            "null",
            "external:/x.so",
            "none",
            "zbd",
            "all",
            "json",
            "a:b\\:c",
            ":",
            "::",
            "\u{e9}t\u{e9}",
            "\u{0}",
            "1e308",
            "nan",
            "inf",
        ])
        .prop_map(str::to_string),
        "[ -~]{0,24}",
        (
            any::<u64>(),
            proptest::sample::select(vec!["", "k", "m", "g", "t", "p", "%", "z", "s", "ms", "us", "b", "kib"])
        )
            .prop_map(|(n, s)| format!("{n}{s}")),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (key(), value()).prop_map(|(k, v)| format!("{k}={v}")),
        2 => key(),
        1 => "[a-z]{0,8}".prop_map(|n| format!("[{n}]")),
        1 => Just("[global]".to_string()),
        1 => proptest::sample::select(vec!["include inc.fio", "include self.fio", "include nope.fio", "include", "include=inc.fio"])
            .prop_map(str::to_string),
        1 => proptest::sample::select(vec!["; comment", "# comment", "", "   ", "[unclosed", "[]", "=x", "bs=4k ; c # d"])
            .prop_map(str::to_string),
    ]
}

fn soup() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    (proptest::collection::vec(line(), 0..24), proptest::collection::vec(line(), 0..6))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let env = env_with(vec![("f.fio".to_string(), bytes)]);
        check(&["--parse-only".to_string(), "f.fio".to_string()], &env)?;
        check(&["f.fio".to_string()], &env)?;
    }

    #[test]
    fn job_file_soups_never_panic((main, inc) in soup(), header in any::<bool>()) {
        let mut text = if header { "[job]\n".to_string() } else { String::new() };
        text.push_str(&main.join("\n"));
        let env = env_with(vec![
            ("self.fio".to_string(), text.clone().into_bytes()),
            ("inc.fio".to_string(), inc.join("\n").into_bytes()),
        ]);
        check(&["--parse-only".to_string(), "self.fio".to_string()], &env)?;
        check(&["--showcmd".to_string(), "self.fio".to_string(), "inc.fio".to_string()], &env)?;
        check(&["--bs=8k".to_string(), "self.fio".to_string()], &env)?;
    }

    #[test]
    fn command_line_soups_never_panic(
        args in proptest::collection::vec(
            prop_oneof![
                3 => (key(), value()).prop_map(|(k, v)| format!("--{k}={v}")),
                1 => key().prop_map(|k| format!("--{k}")),
                1 => key().prop_map(|k| format!("-{k}")),
                1 => value(),
                1 => proptest::sample::select(vec![
                    "--name=x", "--name=global", "--parse-only", "--showcmd", "--output-format=json+", "--eta=never",
                    "--section=x", "--readonly", "--", "-", "--cmdhelp", "--enghelp=io_uring", "--eta-newline=1",
                    "--status-interval=0", "--terse-version=9", "--client", "--debug=io", "--o", "--runt",
                ]).prop_map(str::to_string),
            ],
            0..16,
        )
    ) {
        check(&args, &env_with(vec![]))?;
    }

    #[test]
    fn help_never_panics(name in "[ -~]{0,20}") {
        for r in [cmdhelp(Some(&name), None), enghelp(Some(&name))] {
            if let Err(e) = r {
                prop_assert!(!e.to_string().contains('\n'));
            }
        }
    }
}
