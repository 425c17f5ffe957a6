//! `zonekit completions SHELL` and `zonekit man --dir DIR`: shell completions and manual pages
//! generated from the command's own clap definitions, so they list exactly the commands and
//! options this binary parses.

use crate::error::{CliError, CliResult, output};
use clap::CommandFactory;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `zonekit completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to write a completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Arguments of `zonekit man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write zonekit.1 and one page per subcommand (zonekit-zone-report.1, …) into this directory,
    /// creating it if needed.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

/// The complete clap command of `zonekit`.
fn command() -> clap::Command {
    crate::Cli::command()
}

/// Write the completion script for `args.shell` to `out`.
pub fn completions(args: &CompletionsArgs, out: &mut impl Write) -> CliResult {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut command(), "zonekit", &mut buf);
    output(out.write_all(&buf))
}

/// The manual pages: (file name, roff text) for `zonekit` and each of its subcommands, at every
/// level (`zonekit-zone.1`, `zonekit-zone-report.1`, …).
pub fn man_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = command();
    // Building names every subcommand as man finds it: display name `zonekit-zone-report`, usage
    // name `zonekit zone report`.
    cmd.build();
    let mut pages = Vec::new();
    collect_pages(&cmd, &mut pages)?;
    Ok(pages)
}

fn collect_pages(cmd: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut text = Vec::new();
    man.render(&mut text)?;
    match cmd.get_name() {
        "zonekit" => add_sections(&mut text, ROOT_SECTIONS),
        "bench" => add_sections(&mut text, &bench_options()),
        _ => {}
    }
    pages.push((man.get_filename(), text));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect_pages(sub, pages)?;
    }
    Ok(())
}

/// What `zonekit.1` says beyond the commands: units and exit codes (docs/architecture.md).
const ROOT_SECTIONS: &str = r#".SH UNITS
Offsets and lengths of the zone commands are 512\-byte sectors when written as plain numbers, as
with blkzone; a value with a size suffix is bytes (\fB\-l 1M\fR is 1 MiB, where blkzone reads
1 Mi sectors). Other sizes (\fB\-\-zone\-size\fR, \fBdev create\fR, \fBbench\fR) follow fio: bytes,
with the suffixes K, M, G, T in base 2.
.SH "EXIT STATUS"
.TP
.B 0
Success.
.TP
.B 1
The operation ran and failed (a device or I/O error, a zone rule broken, corrupt device
metadata); one line on standard error, \fBzonekit: \fIwhat\fB: \fIwhy\fB (\fIERRNO\fB)\fR, with the
errno the kernel returns for that device. \fBzonekit bench\fR exits 1 when a job failed, as fio.
.TP
.B 2
Bad input: command line, option value, job file, device spec, a zone range not on whole zones or
past the end; one line on standard error.
"#;

/// Add roff `sections` to a page, before its VERSION section (the last but the authors').
fn add_sections(page: &mut Vec<u8>, sections: &str) {
    const VERSION: &[u8] = b".SH VERSION\n";
    match page.windows(VERSION.len()).position(|w| w == VERSION) {
        Some(at) => {
            page.splice(at..at, sections.bytes());
        }
        None => page.extend_from_slice(sections.as_bytes()),
    }
}

/// `zonekit bench` parses fio's command line itself, so clap knows none of its options: its page
/// gets the text of `zonekit bench --help`, unfilled.
fn bench_options() -> String {
    let mut out = String::from(".SH \"FIO OPTIONS\"\nAs \\fBzonekit bench \\-\\-help\\fR prints them:\n.PP\n.nf\n");
    for line in zonekit_bench::cmdline::usage().lines() {
        let l = line.replace('\\', "\\e").replace('-', "\\-");
        if l.starts_with('.') || l.starts_with('\'') {
            out.push_str("\\&");
        }
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(".fi\n");
    out
}

/// Write every manual page into `args.dir`, printing the path of each.
pub fn man(args: &ManArgs, out: &mut impl Write) -> CliResult {
    let dir: &Path = &args.dir;
    std::fs::create_dir_all(dir).map_err(|e| io_failed(dir, &e))?;
    let pages = man_pages().map_err(|e| CliError::Failed(format!("rendering manual pages: {e}")))?;
    for (file, text) in pages {
        let path = dir.join(file);
        std::fs::write(&path, text).map_err(|e| io_failed(&path, &e))?;
        output(writeln!(out, "{}", path.display()))?;
    }
    Ok(())
}

fn io_failed(path: &Path, e: &std::io::Error) -> CliError {
    let errno = e.raw_os_error().and_then(|n| zonekit_core::Errno(n).name());
    match errno {
        Some(name) => CliError::Failed(format!("{}: {} ({name})", path.display(), strip_os_error(e))),
        None => CliError::Failed(format!("{}: {e}", path.display())),
    }
}

/// `No such file or directory (os error 2)` without its `(os error 2)`: the errno name follows.
fn strip_os_error(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
