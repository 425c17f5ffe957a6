//! `docs/bench-options.md`, generated from the option table, the engine table and the run-level
//! options. `tests/parse.rs` fails when the file is stale; `ZONEKIT_BLESS=1 cargo test -p
//! zonekit-bench --test parse docs` rewrites it.

use std::fmt::Write;

use super::engines::{ENGINES, EngineSupport};
use super::table::{Category, OPTIONS, OptionDef, Support};
use crate::cmdline::{Arg, RUN_OPTIONS};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Support-level counts of the general options (fio 3.33's `--cmdhelp=all` plus its profile options).
pub fn support_counts(opts: &[OptionDef]) -> [(Support, usize); 4] {
    [Support::Implemented, Support::Ignored, Support::Refused, Support::Rejected]
        .map(|s| (s, opts.iter().filter(|o| o.support == s).count()))
}

fn option_rows(out: &mut String, opts: &[&OptionDef]) {
    out.push_str("| option | aliases | value | default | zonekit | what it does |\n|---|---|---|---|---|---|\n");
    for o in opts {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            o.name,
            o.aliases.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", "),
            cell(&o.kind.describe()),
            o.default.map(|d| format!("`{}`", cell(d))).unwrap_or_default(),
            o.support.label(),
            cell(o.help)
        );
    }
}

/// The whole of `docs/bench-options.md`.
pub fn options_markdown() -> String {
    let mut out = String::new();
    out.push_str("# `zonekit bench` options\n\n");
    out.push_str(
        "<!-- Generated from crates/zonekit-bench/src/options/ by `ZONEKIT_BLESS=1 cargo test -p zonekit-bench \
         --test parse docs`; do not edit. -->\n\n",
    );
    out.push_str(
        "`zonekit bench` takes fio 3.33's job files and command lines. Every option fio 3.33 knows is in one \
         table (this page is generated from it), with a support level:\n\n\
         - **implemented**: parsed into the job's options and honoured when the job runs;\n\
         - **ignored**: parsed and checked, then ignored because it cannot change what is measured (the text \
         says why);\n\
         - **refused**: parsed and checked, so `--parse-only` accepts it; a job that sets it to anything but \
         its default is refused when it runs, with one line naming it;\n\
         - **rejected**: rejected while parsing, as fio 3.33 rejects it.\n\n\
         Values follow fio's syntax, but where fio 3.33 silently turns a value into something else (`1.5k` is \
         1 byte there, `10sec` is 10 µs, `bs=4k-8k` is read 4k/write 8k) zonekit stops with one line: \
         `zonekit: <file>:<line> or job <name>: <option>=<value>: <why>`, exit code 2. Cross-option checks \
         that fio makes when jobs are set up (e.g. `time_based` without `runtime`, `zonesize` without a zone \
         mode) are reported when a job would run, not under `--parse-only`, as in fio.\n\n\
         How zonekit fares on fio's own example job files: [bench-corpus.md](bench-corpus.md).\n\n",
    );
    let counts = support_counts(OPTIONS);
    out.push_str("| support level | job options | engine options (implemented engines) |\n|---|---|---|\n");
    let engine_opts: Vec<&OptionDef> =
        ENGINES.iter().filter(|e| e.support == EngineSupport::Implemented).flat_map(|e| e.options.iter()).collect();
    for (s, n) in counts {
        let e = engine_opts.iter().filter(|o| o.support == s).count();
        let _ = writeln!(out, "| {} | {n} | {e} |", s.label());
    }
    let _ = writeln!(out, "| total | {} | {} |\n", OPTIONS.len(), engine_opts.len());

    out.push_str("## Command line\n\n");
    out.push_str(
        "fio's form: `--name=X` starts a job and the options after it apply to it; options before the first \
         `--name` are global (as in fio 3.33 they reach the command-line jobs and the first job file only); \
         `--opt=value` or `--opt value` (a switch takes a value only as `--opt=value`); one dash or two; an \
         unambiguous prefix of a long option works (getopt_long_only). Other arguments are job files, read \
         after the command-line jobs, with an implicit stonewall between files. Job options on the command \
         line get `$ncpus`/`$pagesize`/`$mb_memory` arithmetic as in job files (fio 3.33 does not expand \
         them there).\n\n| option | argument | zonekit |\n|---|---|---|\n",
    );
    for (name, arg, what) in RUN_OPTIONS {
        let a = match arg {
            Arg::None => "",
            Arg::Required => "required",
            Arg::Optional => "optional (`=value`)",
        };
        let _ = writeln!(out, "| `--{name}` | {a} | {} |", cell(what));
    }
    out.push('\n');

    out.push_str("## Job options\n\n");
    for cat in Category::ALL {
        let opts: Vec<&OptionDef> = OPTIONS.iter().filter(|o| o.category == cat).collect();
        if opts.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {}\n", cat.title());
        option_rows(&mut out, &opts);
        out.push('\n');
    }

    out.push_str("## I/O engines\n\n");
    out.push_str(
        "zonekit runs the engines marked *runs*; the others are fio 3.33's, recognised by name: `--parse-only` \
         accepts them and their options, and a job using one is refused when it runs. An engine name neither \
         knows is accepted in a job file (fio loads engines only to run them) and refused when the job runs; \
         on the command line it is an error at once, as in fio.\n\n| engine | zonekit | synchronous | what it \
         is |\n|---|---|---|---|\n",
    );
    for e in ENGINES {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            e.name,
            if e.support == EngineSupport::Implemented { "runs" } else { "refused" },
            if e.sync { "yes" } else { "" },
            cell(e.help)
        );
    }
    out.push('\n');
    let mut seen: Vec<*const [OptionDef]> = Vec::new();
    for e in ENGINES {
        if e.options.is_empty() {
            continue;
        }
        let key: *const [OptionDef] = e.options;
        let sharing: Vec<String> =
            ENGINES.iter().filter(|x| std::ptr::eq(x.options, e.options)).map(|x| format!("`{}`", x.name)).collect();
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let _ = writeln!(out, "### Options of {}\n", sharing.join(", "));
        let opts: Vec<&OptionDef> = e.options.iter().collect();
        option_rows(&mut out, &opts);
        out.push('\n');
    }
    out
}
