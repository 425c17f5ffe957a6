//! The documentation stands alone: a clone of the repository has every file that the README, the
//! docs, the examples and the scripts point to. Links of the Markdown pages must resolve, and
//! nothing may send a reader to files kept beside the repository (`../shared/…`, the design notes
//! and references a clone does not have).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The files a user reads: README.md, docs/, examples/, bench/ and scripts/ (recursively).
fn user_files() -> Vec<PathBuf> {
    let root = root();
    let mut out = vec![root.join("README.md")];
    let mut stack: Vec<PathBuf> = ["docs", "examples", "bench", "scripts"].iter().map(|d| root.join(d)).collect();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if std::fs::read_to_string(&p).is_ok() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_pointer_leaves_the_repository() {
    let root = root();
    let mut bad = Vec::new();
    for path in user_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            for needle in ["../shared", "shared/calibration", "DESIGN.md", "reference/", "notes/personalities"] {
                if line.contains(needle) {
                    bad.push(format!("{}:{}: {needle}: {line}", path.strip_prefix(&root).unwrap().display(), i + 1));
                }
            }
        }
    }
    assert!(bad.is_empty(), "pointers to files a clone does not have:\n{}", bad.join("\n"));
}

#[test]
fn markdown_links_resolve() {
    let root = root();
    let mut bad = Vec::new();
    for path in user_files().into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let dir = path.parent().unwrap();
        // `](target)` of inline links; web addresses and in-page anchors are not checked.
        for (i, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("](") {
                rest = &rest[at + 2..];
                let Some(end) = rest.find(')') else { break };
                let target = rest[..end].split('#').next().unwrap_or("");
                rest = &rest[end..];
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                if !dir.join(target).exists() {
                    bad.push(format!("{}:{}: {target}", path.strip_prefix(&root).unwrap().display(), i + 1));
                }
            }
        }
    }
    assert!(bad.is_empty(), "links to missing files:\n{}", bad.join("\n"));
}

/// docs/blkzone.md sets every zone command beside blkzone's and zbd's: a new `zonekit zone`
/// subcommand must be added there.
#[test]
fn blkzone_page_lists_every_zone_command() {
    use clap::CommandFactory;
    let page = std::fs::read_to_string(root().join("docs/blkzone.md")).unwrap();
    let cli = zonekit_cli::Cli::command();
    let zone = cli.find_subcommand("zone").expect("zonekit zone");
    let missing: Vec<&str> = zone
        .get_subcommands()
        .map(|c| c.get_name())
        .filter(|name| !page.contains(&format!("`zonekit zone {name}")))
        .collect();
    assert!(missing.is_empty(), "docs/blkzone.md does not mention zonekit zone {missing:?}");
    // And the reverse: every `zonekit zone NAME` the page names exists.
    let named: Vec<&str> = page
        .split("`zonekit zone ")
        .skip(1)
        .map(|rest| &rest[..rest.find(|c: char| !c.is_ascii_lowercase()).unwrap_or(rest.len())])
        .filter(|n| !n.is_empty())
        .collect();
    let unknown: Vec<&&str> = named.iter().filter(|n| zone.find_subcommand(n).is_none()).collect();
    assert!(unknown.is_empty(), "docs/blkzone.md names commands zonekit does not have: {unknown:?}");
}
