//! zonekit's test support (a dev-dependency only): the harness of the text-driven tests.
//!
//! A script (`testdata/*.txt`) is a list of cases: a command line, `----`, and the expected output
//! up to a blank line; `#` lines and blank lines before a command are kept as they are. [`run`]
//! runs every script of a directory through an interpreter and fails with the cases that differ;
//! with `ZONEKIT_REWRITE=1` it writes the actual outputs back instead.

use std::path::{Path, PathBuf};

/// One command and its expected output, with the comment and blank lines before it.
struct Case {
    preamble: Vec<String>,
    /// 1-based line number of the command.
    line: usize,
    command: String,
    expected: String,
}

/// A parsed script: its cases and whatever trails the last one.
struct Script {
    cases: Vec<Case>,
    trailer: Vec<String>,
}

fn parse(path: &Path, text: &str) -> Script {
    let lines: Vec<&str> = text.lines().collect();
    let mut cases = Vec::new();
    let mut preamble = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if l.trim().is_empty() || l.starts_with('#') {
            preamble.push(l.to_string());
            i += 1;
            continue;
        }
        let line = i + 1;
        let command = l.trim().to_string();
        i += 1;
        assert!(
            i < lines.len() && lines[i] == "----",
            "{}:{}: expected `----` after the command `{command}`",
            path.display(),
            line
        );
        i += 1;
        let mut out = Vec::new();
        while i < lines.len() && !lines[i].trim().is_empty() {
            out.push(lines[i]);
            i += 1;
        }
        cases.push(Case { preamble: std::mem::take(&mut preamble), line, command, expected: out.join("\n") });
    }
    Script { cases, trailer: preamble }
}

fn render(script: &Script, outputs: &[String]) -> String {
    let mut s = String::new();
    for (case, out) in script.cases.iter().zip(outputs) {
        for p in &case.preamble {
            s.push_str(p);
            s.push('\n');
        }
        s.push_str(&case.command);
        s.push_str("\n----\n");
        s.push_str(out);
        s.push('\n');
    }
    for t in &script.trailer {
        s.push_str(t);
        s.push('\n');
    }
    s
}

/// The `*.txt` files of `dir`, sorted.
fn scripts(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
}

/// Run every script of `dir`: each file gets a fresh interpreter from `new`, which runs each
/// command (`Err` is a broken script, not a failing case). Panics with the cases whose output
/// differs from the expected one, unless `ZONEKIT_REWRITE=1`, which rewrites the scripts with
/// the actual outputs.
pub fn run<R>(dir: &Path, new: impl Fn() -> R, mut step: impl FnMut(&mut R, &str) -> Result<String, String>) {
    let rewrite = std::env::var_os("ZONEKIT_REWRITE").is_some_and(|v| v == "1");
    let files = scripts(dir);
    assert!(!files.is_empty(), "no {}/*.txt files", dir.display());
    let mut failures = Vec::new();
    let mut total = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let script = parse(path, &text);
        let mut runner = new();
        let mut outputs = Vec::new();
        for case in &script.cases {
            total += 1;
            let out =
                step(&mut runner, &case.command).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), case.line));
            assert!(
                !out.lines().any(|l| l.trim().is_empty()),
                "{}:{}: output has a blank line",
                path.display(),
                case.line
            );
            if out != case.expected {
                failures.push(format!(
                    "{}:{}: {}\n--- expected\n{}\n--- actual\n{}\n",
                    path.display(),
                    case.line,
                    case.command,
                    case.expected,
                    out
                ));
            }
            outputs.push(out);
        }
        if rewrite {
            let new = render(&script, &outputs);
            if new != text {
                std::fs::write(path, new).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
    }
    eprintln!("datadriven: {total} cases in {} files", files.len());
    if !rewrite && !failures.is_empty() {
        panic!(
            "{} of {total} cases differ (ZONEKIT_REWRITE=1 rewrites them):\n\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_render_round_trip() {
        let text = "# a comment\n\necho a\n----\na\n\n# tail\n";
        let s = parse(Path::new("t.txt"), text);
        assert_eq!(s.cases.len(), 1);
        assert_eq!((s.cases[0].line, s.cases[0].command.as_str(), s.cases[0].expected.as_str()), (3, "echo a", "a"));
        assert_eq!(render(&s, &["a".to_string()]), text);
        assert_eq!(render(&s, &["b".to_string()]), text.replace("\na\n", "\nb\n"));
    }
}
