//! The support column of `docs/bench-options.md` is what a run does: the document is generated
//! from the option table (`parse.rs` checks that it is fresh), and this test checks the table
//! against the run's own refusals. For every option, a job that sets it to a value other than its
//! default is built as `zonekit bench` builds it; an option marked *refused* must be refused by
//! name, and one marked *implemented* or *ignored* must not be, unless its help (printed in the
//! document) says which values are refused.

use zonekit_bench::cmdline::parse_args;
use zonekit_bench::jobfile::Env;
use zonekit_bench::options::engines::{ENGINES, EngineSupport};
use zonekit_bench::options::table::{Choice, Kind, OPTIONS, OptionDef, Support};

/// Values to try, in order, for an option of this kind: the first that parses and is not the
/// default is used.
fn candidates(kind: &Kind) -> Vec<String> {
    let choices = |cs: &[Choice]| cs.iter().map(|c| c.name.to_string()).collect::<Vec<_>>();
    let mut v = match kind {
        Kind::Choice { choices: cs, .. } | Kind::Choices(cs) => choices(cs),
        _ => Vec::new(),
    };
    v.extend(
        ["1", "2", "4k", "64k", "1m", "50%", "0.5", "1:2", "10ms", "1s", "x", "/tmp/zonekit-support-test", "4k-8k"]
            .map(String::from),
    );
    v
}

/// The refusal of a job with `--name=opt=value` and the given extra options, or `None` when no
/// candidate value both parses and differs from the default.
fn first_run(def: &OptionDef, extra: &[&str]) -> Option<(String, Vec<String>)> {
    let env = Env::hermetic(Vec::<(String, String)>::new());
    for value in candidates(&def.kind) {
        let Ok(parsed) = def.kind.parse(Some(&value), 1024) else { continue };
        if def.is_default_value(&parsed) {
            continue;
        }
        let mut args: Vec<String> =
            ["--name=j", "--filename=/tmp/zonekit-support-test", "--size=1m"].iter().map(|s| s.to_string()).collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push(format!("--{}={value}", def.name));
        let Ok(inv) = parse_args(&args, &env) else { continue };
        let refused = inv.jobs.iter().flat_map(|j| &j.refusals).map(|r| r.what.clone()).collect();
        return Some((value, refused));
    }
    None
}

fn check(def: &OptionDef, extra: &[&str], checked: &mut usize, wrong: &mut Vec<String>) {
    if matches!(def.support, Support::Rejected) {
        return;
    }
    let Some((value, refused)) = first_run(def, extra) else { return };
    *checked += 1;
    let names_it = refused.iter().any(|w| w.split('=').next() == Some(def.name));
    let ctx = if extra.is_empty() { String::new() } else { format!(" (with {})", extra.join(" ")) };
    match def.support {
        Support::Refused if !names_it => {
            wrong.push(format!("{}={value}{ctx}: marked refused, but the job runs ({refused:?})", def.name))
        }
        Support::Implemented | Support::Ignored if names_it && !def.help.contains("refuse") => wrong.push(format!(
            "{}={value}{ctx}: marked {}, but the run refuses it and the help does not say so",
            def.name,
            def.support.label()
        )),
        _ => {}
    }
}

#[test]
fn the_support_column_is_what_a_run_does() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for def in OPTIONS {
        check(def, &[], &mut checked, &mut wrong);
    }
    for engine in ENGINES.iter().filter(|e| e.support == EngineSupport::Implemented) {
        let with = format!("--ioengine={}", engine.name);
        for def in engine.options {
            check(def, &[&with], &mut checked, &mut wrong);
        }
    }
    assert!(wrong.is_empty(), "docs/bench-options.md (the option table) and the run disagree:\n{}", wrong.join("\n"));
    // Most options get a value the test can set; a table change that left most unchecked would
    // make this test hollow.
    let total = OPTIONS.iter().filter(|d| d.support != Support::Rejected).count();
    assert!(checked * 10 >= total * 8, "only {checked} of {total} options could be checked");
    eprintln!("{checked} options checked against the run");
}
