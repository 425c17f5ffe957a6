//! Shell completions and manual pages, as a user installs them: `zonekit completions bash` sourced
//! by bash completes subcommands and options, and every page `zonekit man --dir DIR` writes renders
//! with `man -l` without a warning. They need `bash`, and `man` (package man-db, which `.ci/run`
//! installs) for the page test, which is among the `needs_tools::` tests that `scripts/test.sh`
//! runs; a missing tool fails them rather than skipping.

use clap::CommandFactory;
use std::path::Path;
use std::process::{Command, Output};

fn zonekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).args(args).output().expect("run zonekit")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// What bash's programmable completion offers for `line` (the word being completed is its last
/// word, possibly empty), through the function that `zonekit completions bash` registers.
fn bash_complete(script: &Path, line: &str) -> Vec<String> {
    let program = r#"
        source "$1" || exit 3
        line=$2
        read -r -a COMP_WORDS <<< "$line"
        [[ $line == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE=$line
        COMP_POINT=${#line}
        prev=""
        (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
        fn=$(complete -p zonekit | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
        [[ -n $fn ]] || exit 4
        "$fn" zonekit "${COMP_WORDS[COMP_CWORD]}" "$prev"
        printf '%s\n' "${COMPREPLY[@]}"
    "#;
    let o = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", program, "bash"])
        .arg(script)
        .arg(line)
        .output()
        .expect("bash is needed to test the completion script");
    assert!(o.status.success(), "bash exited with {:?}: {}", o.status, text(&o.stderr));
    text(&o.stdout).lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
}

#[test]
fn bash_completes_subcommands_and_options() {
    let o = zonekit(&["completions", "bash"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("zonekit.bash");
    std::fs::write(&script, &o.stdout).unwrap();

    let words = bash_complete(&script, "zonekit zone r");
    assert!(words.contains(&"report".to_string()) && words.contains(&"reset".to_string()), "{words:?}");
    assert!(words.iter().all(|w| w.starts_with('r')), "{words:?}");

    let top = bash_complete(&script, "zonekit ");
    for want in ["dev", "zone", "profiles", "bench", "completions", "man"] {
        assert!(top.iter().any(|w| w == want), "{want} missing from {top:?}");
    }

    let opts = bash_complete(&script, "zonekit zone report --co");
    for want in ["--cond", "--count", "--count-only"] {
        assert!(opts.iter().any(|w| w == want), "{want} missing from {opts:?}");
    }

    let shells = bash_complete(&script, "zonekit completions ");
    assert!(shells.iter().any(|w| w == "bash") && shells.iter().any(|w| w == "zsh"), "{shells:?}");
}

#[test]
fn completion_scripts_for_other_shells_name_the_commands() {
    for (shell, marker) in [("zsh", "#compdef zonekit"), ("fish", "complete -c zonekit"), ("elvish", "zonekit")] {
        let o = zonekit(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", text(&o.stderr));
        let s = text(&o.stdout);
        assert!(s.contains(marker), "{shell}: no {marker:?}");
        assert!(s.contains("report") && s.contains("--zone-size"), "{shell}: commands missing");
    }
    let o = zonekit(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("zonekit: ") && err.contains("tcsh"), "{err}");
}

/// `zonekit-zone-report.1` for `zonekit zone report`, for every subcommand at every level.
fn expected_pages(cmd: &clap::Command, name: &str, out: &mut Vec<String>) {
    out.push(format!("{name}.1"));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        expected_pages(sub, &format!("{name}-{}", sub.get_name()), out);
    }
}

/// The tests that need a tool besides Rust and bash: ignored by a plain `cargo test`, run by
/// `scripts/test.sh` (`cargo test -- --ignored needs_tools::`), and failing there when the tool
/// is missing.
mod needs_tools {
    #[test]
    #[ignore = "needs man (man-db): scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn man_pages_render_for_every_command() {
        super::man_pages_render_for_every_command();
    }
}

fn man_pages_render_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let mandir = dir.path().join("man1");
    let o = zonekit(&["man", "--dir", mandir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));

    let mut want = Vec::new();
    expected_pages(&zonekit_cli::Cli::command(), "zonekit", &mut want);
    for page in ["zonekit.1", "zonekit-zone-report.1", "zonekit-zone-reset.1", "zonekit-bench.1", "zonekit-man.1"] {
        assert!(want.iter().any(|w| w == page), "{page} not among {want:?}");
    }
    let printed: Vec<String> = text(&o.stdout).lines().map(str::to_string).collect();
    assert_eq!(printed.len(), want.len(), "{printed:?}");

    for page in &want {
        let path = mandir.join(page);
        assert!(printed.contains(&path.display().to_string()), "{page} not printed");
        // man-db renders the page; -ww makes groff warn about anything it does not understand.
        let r = Command::new("man")
            .arg("-l")
            .arg(&path)
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "100")
            .env("MANROFFOPT", "-ww")
            .env("LC_ALL", "C.UTF-8")
            .output()
            .expect("`man` is needed to test the manual pages: install man-db");
        let (out, err) = (text(&r.stdout), text(&r.stderr));
        assert!(r.status.success(), "man -l {page}: {:?}: {err}", r.status);
        assert!(err.is_empty(), "man -l {page} warned: {err}");
        let title = page.trim_end_matches(".1");
        assert!(out.contains("NAME") && out.contains("SYNOPSIS"), "{page}: {out}");
        let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains(&format!("NAME {title} - ")), "{page}: {out}");
    }

    let root = man_text(&mandir.join("zonekit.1")).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(root.contains("EXIT STATUS") && root.contains("-l 1M is 1 MiB"), "{root}");
    let report = man_text(&mandir.join("zonekit-zone-report.1")).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(report.contains("zonekit zone report") && report.contains("--count-only"), "{report}");
    // bench parses fio's command line itself; its page carries that usage, line for line.
    let bench = man_text(&mandir.join("zonekit-bench.1"));
    assert!(bench.contains("FIO OPTIONS") && bench.contains("--output-format=X"), "{bench}");
    assert!(bench.contains("  --cmdhelp[=OPT|all]"), "{bench}");
}

fn man_text(path: &Path) -> String {
    let r = Command::new("man")
        .arg("-l")
        .arg(path)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "120")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap();
    // Without bold and underline overstrikes, as a terminal would show them.
    let s = text(&r.stdout);
    let mut plain = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if chars.peek() == Some(&'\u{8}') {
            chars.next();
            continue;
        }
        plain.push(c);
    }
    plain.replace('‐', "-")
}

#[test]
fn man_into_a_path_that_cannot_be_a_directory_fails_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, b"x").unwrap();
    let o = zonekit(&["man", "--dir", file.join("man1").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("zonekit: ") && err.contains("(ENOTDIR)"), "{err}");
}
