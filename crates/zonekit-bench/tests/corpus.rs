//! fio's own example job files (the 107 `.fio` files of fio's `examples/` directory at commit
//! f5344384f7c7, read in place, never copied here: fio is GPL-2.0): every file that fio 3.33 parses
//! (listed in `data/parsed-by-fio-3.33.txt`) parses with `--parse-only`; every other one parses or
//! stops with one line naming the unsupported engine, option or unset variable. The counts are
//! asserted exactly and must match `docs/bench-corpus.md`.
//!
//! The directory is `$ZONEKIT_FIO_EXAMPLES` (e.g. a fio checkout's `examples/`); without it, the
//! copy that the project's CI lays beside the repository (`../shared/fio-examples`).

use std::path::{Path, PathBuf};

use zonekit_bench::cmdline::parse_args;
use zonekit_bench::error::BenchError;
use zonekit_bench::jobfile::Env;

fn corpus_dir() -> PathBuf {
    match std::env::var_os("ZONEKIT_FIO_EXAMPLES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fio-examples"),
    }
}

/// The counts this parser reaches on the corpus.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    files: usize,
    listed: usize,
    listed_parsed: usize,
    others_parsed: usize,
    others_unset_variable: usize,
    others_unknown_option: usize,
    others_bad_value: usize,
    runnable: usize,
    /// Runnable on a machine with the CPUs and NUMA nodes they name, stopped here by fio's check
    /// of them (counted with `runnable` in the docs).
    host: usize,
    refused_engine: usize,
    refused_option: usize,
    conflict: usize,
}

const EXPECTED: Counts = Counts {
    files: 107,
    listed: 71,
    listed_parsed: 71,
    others_parsed: 2,
    others_unset_variable: 14,
    others_unknown_option: 10,
    others_bad_value: 10,
    runnable: 49,
    host: 0,
    refused_engine: 22,
    refused_option: 0,
    conflict: 2,
};

#[test]
fn fio_examples() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        panic!(
            "the corpus is missing: {} (set ZONEKIT_FIO_EXAMPLES to the examples/ directory of fio at commit f5344384f7c7)",
            dir.display()
        );
    }
    let list = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/parsed-by-fio-3.33.txt");
    let listed: Vec<String> = std::fs::read_to_string(list)
        .expect("parsed-by-fio-3.33.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.sort();
    // No environment variables: the corpus's ${FIO_*} and friends are unset, as in a plain shell.
    let env = Env::hermetic(Vec::<(String, String)>::new()).with_real_files();
    let mut c = Counts { files: files.len(), listed: listed.len(), ..Counts::default() };
    let mut problems = Vec::new();
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let is_listed = listed.contains(&name);
        let arg = path.display().to_string();
        let r = parse_args(&["--parse-only".to_string(), arg.clone()], &env);
        match (&r, is_listed) {
            (Ok(_), true) => c.listed_parsed += 1,
            (Err(e), true) => problems.push(format!("{name}: fio 3.33 parses it, zonekit says: {e}")),
            (Ok(_), false) => c.others_parsed += 1,
            (Err(e), false) => {
                let msg = e.to_string();
                if msg.contains('\n') {
                    problems.push(format!("{name}: message on several lines: {msg:?}"));
                }
                match e {
                    BenchError::UnsetVariable { .. } => c.others_unset_variable += 1,
                    BenchError::UnknownOption { .. } => c.others_unknown_option += 1,
                    BenchError::BadValue { option, .. } if !option.is_empty() => c.others_bad_value += 1,
                    other => {
                        problems.push(format!("{name}: stops without naming an engine, option or variable: {other}"))
                    }
                }
            }
        }
        eprintln!(
            "{name}: {}",
            match &r {
                Ok(_) => "parses".to_string(),
                Err(e) => format!("zonekit: {e}"),
            }
        );
        // What a run would do (without --parse-only): run, or refuse with one line.
        if let Ok(inv) = parse_args(std::slice::from_ref(&arg), &env) {
            // Engines that only run on zonekit's own devices are refused for the files named.
            let targets = inv.jobs.iter().try_for_each(|j| {
                let names: Vec<String> = zonekit_bench::run::sizing::file_paths(&j.options, 0)
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                zonekit_bench::target::Devices::new().check_job(&j.options, &names)
            });
            match inv.check_runnable() {
                Ok(()) if targets.as_ref().is_err_and(|e| e.message.contains("ioengine=")) => c.refused_engine += 1,
                Ok(()) => c.runnable += 1,
                Err(BenchError::Unsupported { what, .. }) if what.starts_with("ioengine=") => c.refused_engine += 1,
                Err(BenchError::Unsupported { .. }) => c.refused_option += 1,
                // `numa.fio` names NUMA nodes 0-1: on a machine without node 1 its run stops,
                // as fio's does (`node argument 1 out of range`).
                Err(BenchError::Conflict { why, .. })
                    if why.contains("node argument") || why.contains("too large (max=") =>
                {
                    c.host += 1
                }
                Err(BenchError::Conflict { .. }) => c.conflict += 1,
                Err(other) => problems.push(format!("{name}: a run stops with an unexpected error: {other}")),
            }
        }
    }
    eprintln!("{c:#?}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let second_node = Path::new("/sys/devices/system/node/node1").exists();
    assert_eq!(c.host, usize::from(!second_node), "numa.fio runs where NUMA node 1 exists, and only there");
    c.runnable += std::mem::take(&mut c.host);
    assert_eq!(c, EXPECTED, "the corpus counts changed; update EXPECTED and docs/bench-corpus.md");
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/bench-corpus.md"))
        .expect("docs/bench-corpus.md");
    for (label, n) in [
        ("files", c.files),
        ("listed", c.listed),
        ("listed_parsed", c.listed_parsed),
        ("others_parsed", c.others_parsed),
        ("others_unset_variable", c.others_unset_variable),
        ("others_unknown_option", c.others_unknown_option),
        ("others_bad_value", c.others_bad_value),
        ("runnable", c.runnable),
        ("refused_engine", c.refused_engine),
        ("refused_option", c.refused_option),
        ("conflict", c.conflict),
    ] {
        let needle = format!("<!-- {label} --> {n} ");
        assert!(doc.contains(&needle), "docs/bench-corpus.md lacks `{needle}`");
    }
}
