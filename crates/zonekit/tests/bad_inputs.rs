//! Every bad input of `testdata/bad_inputs.txt`, run through the built `zonekit` binary: each
//! gives one line on stderr (`zonekit: <what>: <why>`, no panic), the exit code users rely on (2
//! for bad input, 1 for an operation that ran and failed), the errno tag right for the error (none
//! for exit 2), nothing on stdout, and leaves the device's zones, data and files as they were
//! unless the case says the command changes them.
//!
//! The file's format is described at its top.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const TABLE: &str = include_str!("../testdata/bad_inputs.txt");

/// The user a case with `readonly` runs as when the test runs as root (root writes anywhere).
const NOBODY: u32 = 65534;

/// How many cases ran as user nobody.
static AS_NOBODY: AtomicUsize = AtomicUsize::new(0);

/// One line of the table.
#[derive(Debug, Clone)]
struct Case {
    line: usize,
    category: String,
    setup: Vec<String>,
    args: String,
    exit: i32,
    errno: Option<String>,
    says: String,
}

/// The table: named device geometries (`define NAME: OPTIONS`) and the cases, each under the
/// latest `## CATEGORY` heading.
fn parse_table() -> (HashMap<String, String>, Vec<Case>) {
    let mut defines = HashMap::new();
    let mut cases = Vec::new();
    let mut category = String::from("none");
    for (i, raw) in TABLE.lines().enumerate() {
        let line = raw.trim();
        if let Some(c) = line.strip_prefix("## ") {
            category = c.trim().to_string();
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(d) = line.strip_prefix("define ") {
            let (name, opts) = d.split_once(':').unwrap_or_else(|| panic!("line {}: define NAME: OPTIONS", i + 1));
            defines.insert(name.trim().to_string(), opts.trim().to_string());
            continue;
        }
        let f: Vec<&str> = line.split(" | ").map(str::trim).collect();
        assert_eq!(f.len(), 5, "line {}: SETUP | COMMAND | EXIT | ERRNO | MESSAGE: {line}", i + 1);
        cases.push(Case {
            line: i + 1,
            category: category.clone(),
            setup: f[0].split(';').map(|s| s.trim().to_string()).filter(|s| !s.is_empty() && s != "-").collect(),
            args: f[1].to_string(),
            exit: f[2].parse().unwrap_or_else(|_| panic!("line {}: exit code {:?}", i + 1, f[2])),
            errno: (f[3] != "-").then(|| f[3].to_string()),
            says: f[4].to_string(),
        });
    }
    (defines, cases)
}

/// Split a command line on spaces; `''` is an empty argument; `$T`, `$D`, `$F` are the case's
/// directory, device and file.
fn words(s: &str, vars: &Vars) -> Vec<String> {
    s.split_whitespace().map(|w| if w == "''" { String::new() } else { vars.expand(w) }).collect()
}

struct Vars {
    tmp: PathBuf,
}

impl Vars {
    fn dev(&self) -> PathBuf {
        self.tmp.join("d")
    }

    fn file(&self) -> PathBuf {
        self.tmp.join("f")
    }

    fn expand(&self, s: &str) -> String {
        s.replace("$D", self.dev().to_str().unwrap())
            .replace("$F", self.file().to_str().unwrap())
            .replace("$T", self.tmp.to_str().unwrap())
    }
}

fn zonekit(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonekit")).args(args).output().expect("run zonekit")
}

/// A size as the setup steps give it: bytes, or K/M/G suffixed.
fn setup_size(s: &str) -> Result<u64, String> {
    let (n, m) = match s.as_bytes().last() {
        Some(b'K') => (&s[..s.len() - 1], 1 << 10),
        Some(b'M') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    n.parse::<u64>().map(|n| n * m).map_err(|e| format!("size '{s}': {e}"))
}

/// What a case's command may change, recorded before and after it: the device's zone report and
/// every file under the case's directory (name, type, mode, length, and a hash of its bytes).
fn snapshot(vars: &Vars) -> String {
    let mut s = String::new();
    if vars.dev().join("zonekit.meta").is_file() {
        let o = zonekit(&[
            "zone".into(),
            "report".into(),
            vars.dev().to_str().unwrap().into(),
            "--format".into(),
            "json".into(),
        ]);
        let _ = write!(s, "report exit {:?}\n{}\n", o.status.code(), String::from_utf8_lossy(&o.stdout));
    }
    let mut files = BTreeMap::new();
    walk(&vars.tmp, &vars.tmp, &mut files);
    for (name, what) in files {
        let _ = writeln!(s, "{name}: {what}");
    }
    s
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let rel = p.strip_prefix(root).unwrap().display().to_string();
        let Ok(m) = std::fs::symlink_metadata(&p) else { continue };
        let mode = m.mode() & 0o7777;
        if m.is_dir() {
            out.insert(rel, format!("dir {mode:o}"));
            walk(root, &p, out);
        } else if m.is_file() {
            // Every byte of a device's files; a large sparse file (a huge emulated-zone target)
            // by its first MiB and its modification time.
            let mut h = std::collections::hash_map::DefaultHasher::new();
            if m.len() <= 16 << 20 {
                std::fs::read(&p).unwrap_or_default().hash(&mut h);
            } else {
                let mut head = vec![0u8; 1 << 20];
                let _ = std::fs::File::open(&p).and_then(|f| std::os::unix::fs::FileExt::read_at(&f, &mut head, 0));
                (head, m.mtime(), m.mtime_nsec()).hash(&mut h);
            }
            out.insert(rel, format!("file {mode:o} {} bytes, hash {:016x}", m.len(), h.finish()));
        } else {
            out.insert(rel, format!("other {:?}", m.file_type()));
        }
    }
}

/// Whether user `NOBODY` can run the binary (every directory above it searchable by others).
fn nobody_can_run_the_binary() -> bool {
    let bin = Path::new(env!("CARGO_BIN_EXE_zonekit"));
    bin.ancestors().skip(1).all(|d| std::fs::metadata(d).is_ok_and(|m| m.mode() & 0o001 != 0))
        && std::fs::metadata(bin).is_ok_and(|m| m.mode() & 0o001 != 0)
}

/// Prepare a case, run it, and say what is wrong with its result, if anything.
fn run_case(case: &Case, defines: &HashMap<String, String>) -> Result<(), String> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let vars = Vars { tmp: tmp.path().to_path_buf() };
    let mut lock = false;
    let mut as_nobody = false;
    let mut changes = false;
    let mut full_output = false;
    let mut prepare = |step: &str| -> Result<(), String> {
        let (verb, rest) = step.split_once(' ').unwrap_or((step, ""));
        let arg = vars.expand(rest.trim());
        let path = |a: &str| PathBuf::from(vars.expand(a));
        let io = |r: std::io::Result<()>| r.map_err(|e| format!("setup '{step}': {e}"));
        match verb {
            "dev" => {
                let opts = defines.get(rest.trim()).ok_or_else(|| format!("no define '{rest}'"))?;
                let mut a = vec!["dev".to_string(), "create".into(), vars.dev().to_str().unwrap().into()];
                a.extend(words(opts, &vars));
                let o = zonekit(&a);
                if !o.status.success() {
                    return Err(format!("setup '{step}': {}", String::from_utf8_lossy(&o.stderr)));
                }
            }
            "file" => {
                let f = std::fs::File::create(vars.file()).map_err(|e| e.to_string())?;
                io(f.set_len(setup_size(&arg)?))?;
            }
            "run" => {
                let o = zonekit(&words(rest, &vars));
                if !o.status.success() {
                    return Err(format!("setup '{step}': {}", String::from_utf8_lossy(&o.stderr)));
                }
            }
            // write PATH TEXT: the file holds TEXT (`\n` for newlines).
            "write" => {
                let (p, text) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
                io(std::fs::write(path(p), text.replace("\\n", "\n")))?;
            }
            // inject PATH LINE: LINE added after the first line of PATH (`zones.state`'s boot
            // line), as the device records an injected condition.
            "inject" => {
                let (p, text) = rest.trim().split_once(' ').ok_or("inject PATH LINE")?;
                let old = std::fs::read_to_string(path(p)).map_err(|e| e.to_string())?;
                let (first, others) = old.split_once('\n').unwrap_or((&old, ""));
                let text = text.replace("\\n", "\n");
                io(std::fs::write(path(p), format!("{first}\n{text}\n{others}")))?;
            }
            // truncate PATH LEN
            "truncate" => {
                let (p, len) = rest.trim().split_once(' ').ok_or("truncate PATH LEN")?;
                let f = std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(path(p));
                let len = setup_size(len)?;
                io(f.and_then(|f| f.set_len(len)))?;
            }
            // edit PATH KEY JSON: one field of a JSON file set (`-` removes it).
            "edit" => {
                let mut it = rest.trim().splitn(3, ' ');
                let (p, key, value) = (path(it.next().unwrap()), it.next().unwrap(), it.next().unwrap_or("-"));
                let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
                let obj = v.as_object_mut().ok_or("not a JSON object")?;
                if value == "-" {
                    obj.remove(key);
                } else {
                    obj.insert(key.into(), serde_json::from_str(value).map_err(|e| format!("{value}: {e}"))?);
                }
                io(std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()))?;
            }
            "mkdir" => io(std::fs::create_dir_all(path(&arg)))?,
            "rm" => {
                let p = path(&arg);
                io(if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) })?;
            }
            // symlink TARGET LINK
            "symlink" => {
                let (t, l) = rest.trim().split_once(' ').ok_or("symlink TARGET LINK")?;
                io(std::os::unix::fs::symlink(path(t), path(l)))?;
            }
            "fifo" => {
                let o = Command::new("mkfifo").arg(path(&arg)).output().map_err(|e| e.to_string())?;
                if !o.status.success() {
                    return Err(format!("mkfifo: {}", String::from_utf8_lossy(&o.stderr)));
                }
            }
            // lock: another process holds the device open (its lock, `flock` on the directory).
            "lock" => lock = true,
            // readonly PATH: no one but root may write in PATH; the command runs as another user
            // when the test runs as root.
            "readonly" => {
                io(std::fs::set_permissions(path(&arg), std::fs::Permissions::from_mode(0o555)))?;
                as_nobody = is_root();
            }
            // chmod MODE PATH (octal), for a command run as another user (`nobody`).
            "chmod" => {
                let (mode, p) = rest.trim().split_once(' ').ok_or("chmod MODE PATH")?;
                let mode = u32::from_str_radix(mode, 8).map_err(|e| e.to_string())?;
                io(std::fs::set_permissions(path(p), std::fs::Permissions::from_mode(mode)))?;
            }
            // full-output: the command's standard output is /dev/full (every write fails, ENOSPC).
            "full-output" => full_output = true,
            // The command runs as user nobody when the test runs as root.
            "nobody" => as_nobody = is_root(),
            // The command changes the device (it ran, and failed part way): no snapshot check.
            "changes" => changes = true,
            // Checked by `judge`: stdout holds the command's JSON result.
            "json-result" => {}
            other => return Err(format!("unknown setup step '{other}'")),
        }
        Ok(())
    };
    for step in &case.setup {
        prepare(step)?;
    }
    if as_nobody {
        if !nobody_can_run_the_binary() {
            eprintln!("line {}: skipped: user nobody cannot reach {}", case.line, env!("CARGO_BIN_EXE_zonekit"));
            return Ok(());
        }
        // The case's directory must be reachable for the other user.
        std::fs::set_permissions(&vars.tmp, std::fs::Permissions::from_mode(0o755)).map_err(|e| e.to_string())?;
    }
    let before = snapshot(&vars);
    let held = if lock {
        let d = std::fs::File::open(vars.dev()).map_err(|e| e.to_string())?;
        d.try_lock().map_err(|e| format!("lock: {e}"))?;
        Some(d)
    } else {
        None
    };
    let args = words(&case.args, &vars);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_zonekit"));
    cmd.args(&args).env_remove("RUST_BACKTRACE").env_remove("RUST_LIB_BACKTRACE");
    if as_nobody {
        cmd.uid(NOBODY).gid(NOBODY);
    }
    if full_output {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").map_err(|e| format!("/dev/full: {e}"))?;
        cmd.stdout(full);
    }
    let o = cmd.output().map_err(|e| format!("run: {e}"))?;
    if as_nobody {
        AS_NOBODY.fetch_add(1, Ordering::Relaxed);
    }
    drop(held);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let result = judge(case, &vars, &o, &err, if changes { None } else { Some(before) });
    // Whatever `readonly` and `chmod` took away, so that the directory can be removed.
    make_writable(&vars.tmp);
    result
}

fn make_writable(dir: &Path) {
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => make_writable(&p),
            Ok(m) if m.is_file() => {
                let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644));
            }
            _ => {}
        }
    }
}

/// What is wrong with a case's result (`before`: the snapshot to compare with, if any).
fn judge(case: &Case, vars: &Vars, o: &Output, err: &str, before: Option<String>) -> Result<(), String> {
    let mut wrong = Vec::new();
    if o.status.code() != Some(case.exit) {
        wrong.push(format!("exit {:?}, expected {}", o.status.code(), case.exit));
    }
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") || o.status.code() == Some(101) {
        wrong.push("panic".into());
    }
    if err.lines().count() != 1 || !err.ends_with('\n') {
        wrong.push(format!("{} lines on stderr", err.lines().count()));
    }
    let line = err.lines().next().unwrap_or("");
    if !line.starts_with("zonekit: ") {
        wrong.push("stderr does not start with 'zonekit: '".into());
    }
    // A path said twice in a row ("/x/d: /x/d/zonekit.meta: …"): a context added twice.
    let parts: Vec<&str> = line.split(": ").collect();
    if parts.windows(2).any(|w| w[0].starts_with('/') && w[1].starts_with(w[0])) {
        wrong.push("a path repeated in the message".into());
    }
    if line.contains("os error") {
        wrong.push("Rust's '(os error N)' in the message".into());
    }
    let tag = errno_tag(line);
    if tag != case.errno.as_deref() {
        wrong.push(format!("errno tag {tag:?}, expected {:?}", case.errno));
    }
    if case.exit == 2 && tag.is_some() {
        wrong.push("a usage error carries no errno tag".into());
    }
    if !line.contains(&vars.expand(&case.says)) {
        wrong.push(format!("message lacks {:?}", case.says));
    }
    if case.setup.iter().any(|s| s == "json-result") {
        // `--format json`: the result of a command that ran is one JSON object, failed or not,
        // with the errno of the line.
        match serde_json::from_slice::<serde_json::Value>(&o.stdout) {
            Ok(v) if v["ok"] == false && v["errno"].as_str() == case.errno.as_deref() => {}
            Ok(v) => wrong.push(format!("JSON result {v}: expected ok false and errno {:?}", case.errno)),
            Err(e) => wrong.push(format!("stdout is not one JSON object: {e}")),
        }
    } else if !o.stdout.is_empty() {
        wrong.push(format!("{} bytes on stdout", o.stdout.len()));
    }
    if let Some(before) = before {
        let after = snapshot(vars);
        if after != before {
            wrong.push(format!("the device changed:\n--- before\n{before}--- after\n{after}"));
        }
    }
    if wrong.is_empty() { Ok(()) } else { Err(format!("{}\n    stderr: {}", wrong.join("; "), err.trim_end())) }
}

/// The `(EXXX)` at the end of a line, if any.
fn errno_tag(line: &str) -> Option<&str> {
    let inner = line.strip_suffix(')')?;
    let open = inner.rfind('(')?;
    let tag = &inner[open + 1..];
    (tag.len() > 1 && tag.starts_with('E') && tag.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        .then_some(tag)
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[test]
fn every_bad_input_is_one_line_with_the_right_exit_code_and_errno() {
    let started = std::time::Instant::now();
    let (defines, cases) = parse_table();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    // Twice the cores: a case mostly waits for its processes (and a locked device for 250 ms).
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get() * 2).clamp(4, 16);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    if let Err(why) = run_case(case, &defines) {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("line {} [{}] zonekit {}: {why}", case.line, case.category, case.args));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    let mut by_category: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &cases {
        *by_category.entry(c.category.as_str()).or_default() += 1;
    }
    eprintln!(
        "{} cases in {:.1} s ({} as user nobody): {by_category:?}",
        cases.len(),
        started.elapsed().as_secs_f64(),
        AS_NOBODY.load(Ordering::Relaxed)
    );
    assert!(failures.is_empty(), "{} of {} cases wrong:\n{}", failures.len(), cases.len(), failures.join("\n"));
    assert!(cases.len() >= 100, "{} cases: the table should hold at least 100", cases.len());
}

#[test]
fn the_table_has_no_duplicate_case() {
    let (_, cases) = parse_table();
    let mut seen = HashMap::new();
    for c in &cases {
        let key = (c.setup.join(";"), c.args.clone());
        if let Some(first) = seen.insert(key, c.line) {
            panic!("lines {first} and {} are the same case", c.line);
        }
    }
}
