//! The job-file lexer, with fio 3.33's rules (`init.c:__parse_jobs_ini`, `parse.c`,
//! `options.c:fio_option_dup_subs` / `fio_keyword_replace`):
//!
//! - `[name]` starts a section; a name starting with `global` makes a global section; job
//!   sections stay in order and duplicates are kept.
//! - `key=value` or a bare `key`, one per line; leading and trailing blanks go; a line whose
//!   first non-blank character is `;` or `#` is a comment, and everything after the first `;`
//!   or `#` of a line is cut (so values cannot contain them).
//! - `include FILE` inside a section reads FILE's options into that section (relative to the
//!   including file's directory, then to the working directory); an included file may not
//!   contain sections; include loops are errors.
//! - `${VAR}` is replaced by the environment variable. fio substitutes an empty string for an
//!   unset variable, which either fails later with a message that does not name the variable or
//!   silently changes the value (`directory=/data/${USER}/x`); zonekit stops with one line
//!   naming it.
//! - `$pagesize`, `$mb_memory` and `$ncpus` are replaced by their values; when one was replaced
//!   and the value contains `+ - * /`, the value is evaluated as integer arithmetic (what fio
//!   pipes to `bc`: `+ - * / % ^` and parentheses, division truncating).
//! - An option before any section is an error naming the file and line.
//!
//! Every entry keeps its file and line for messages.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::error::{BenchError, Origin, one_line};

/// Looks up an environment variable.
pub type VarLookup = dyn Fn(&str) -> Option<String> + Send + Sync;
/// Reads a file (job files and includes).
pub type FileReader = dyn Fn(&Path) -> std::io::Result<Vec<u8>> + Send + Sync;

/// What the parser may ask of the world: environment variables, files, and the values of
/// `$ncpus`, `$pagesize`, `$mb_memory`. Tests build hermetic ones.
#[derive(Clone)]
pub struct Env {
    vars: Arc<VarLookup>,
    files: Arc<FileReader>,
    /// `$ncpus`: CPUs configured.
    pub ncpus: u64,
    /// `$pagesize`: the page size in bytes.
    pub pagesize: u64,
    /// `$mb_memory`: physical memory in MiB.
    pub mb_memory: u64,
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Env")
            .field("ncpus", &self.ncpus)
            .field("pagesize", &self.pagesize)
            .field("mb_memory", &self.mb_memory)
            .finish_non_exhaustive()
    }
}

impl Env {
    /// The real process environment, file system and machine.
    pub fn process() -> Env {
        Env {
            vars: Arc::new(|k| std::env::var(k).ok()),
            files: Arc::new(read_file_or_stdin),
            ncpus: ncpus_configured(),
            pagesize: page_size(),
            mb_memory: mb_memory(),
        }
    }

    /// A hermetic environment: these variables, no files, 4 CPUs, 4 KiB pages, 8 GiB.
    pub fn hermetic<K: Into<String>, V: Into<String>>(vars: impl IntoIterator<Item = (K, V)>) -> Env {
        let map: HashMap<String, String> = vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        Env {
            vars: Arc::new(move |k| map.get(k).cloned()),
            files: Arc::new(|p| {
                Err(std::io::Error::new(std::io::ErrorKind::NotFound, format!("no such file: {}", p.display())))
            }),
            ncpus: 4,
            pagesize: 4096,
            mb_memory: 8192,
        }
    }

    /// The same environment reading files from `files` (path → contents) instead.
    pub fn with_files<P: Into<PathBuf>, C: Into<Vec<u8>>>(mut self, files: impl IntoIterator<Item = (P, C)>) -> Env {
        let map: HashMap<PathBuf, Vec<u8>> = files.into_iter().map(|(p, c)| (normalize(&p.into()), c.into())).collect();
        self.files = Arc::new(move |p| {
            map.get(&normalize(p)).cloned().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)")
            })
        });
        self
    }

    /// The same environment reading files from the real file system.
    pub fn with_real_files(mut self) -> Env {
        self.files = Arc::new(read_file_or_stdin);
        self
    }

    /// The same environment with another variable lookup.
    pub fn with_vars(mut self, vars: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Env {
        self.vars = Arc::new(vars);
        self
    }

    /// Looks a variable up.
    pub fn var(&self, name: &str) -> Option<String> {
        (self.vars)(name)
    }

    /// Reads a file.
    pub fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        (self.files)(path)
    }
}

/// Reads a file; `-` is standard input (fio reads a job file from stdin that way).
fn read_file_or_stdin(p: &Path) -> std::io::Result<Vec<u8>> {
    if p == Path::new("-") {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)?;
        return Ok(buf);
    }
    std::fs::read(p)
}

fn ncpus_configured() -> u64 {
    // fio uses sysconf(_SC_NPROCESSORS_CONF): the CPUs the kernel knows, online or not.
    if let Ok(s) = std::fs::read_to_string("/sys/devices/system/cpu/possible")
        && let Some(n) = count_cpu_list(s.trim())
    {
        return n;
    }
    std::thread::available_parallelism().map(|n| n.get() as u64).unwrap_or(1)
}

fn count_cpu_list(s: &str) -> Option<u64> {
    let mut n = 0u64;
    for part in s.split(',') {
        match part.split_once('-') {
            Some((a, b)) => n += b.trim().parse::<u64>().ok()?.checked_sub(a.trim().parse::<u64>().ok()?)? + 1,
            None => {
                part.trim().parse::<u64>().ok()?;
                n += 1;
            }
        }
    }
    (n > 0).then_some(n)
}

fn page_size() -> u64 {
    // No libc call (unsafe is denied here): the kernel reports the page size of every mapping.
    if let Ok(s) = std::fs::read_to_string("/proc/self/smaps")
        && let Some(line) = s.lines().find(|l| l.starts_with("KernelPageSize:"))
        && let Some(kb) = line.split_whitespace().nth(1).and_then(|v| v.parse::<u64>().ok())
    {
        return kb * 1024;
    }
    4096
}

fn mb_memory() -> u64 {
    if let Ok(s) = std::fs::read_to_string("/proc/meminfo")
        && let Some(line) = s.lines().find(|l| l.starts_with("MemTotal:"))
        && let Some(kb) = line.split_whitespace().nth(1).and_then(|v| v.parse::<u64>().ok())
    {
        return kb / 1024;
    }
    0
}

/// One `key[=value]` line of a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The option name as written.
    pub key: String,
    /// The value after substitution (None: a bare key).
    pub value: Option<String>,
    /// Where it was written.
    pub at: Origin,
}

/// A `[section]` and its entries, includes expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The name between the brackets.
    pub name: String,
    /// Whether it is a global section (its name starts with `global`).
    pub global: bool,
    /// Where the header is.
    pub at: Origin,
    /// The options, in file order.
    pub entries: Vec<Entry>,
}

/// A parsed job file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFile {
    /// The file as named.
    pub path: PathBuf,
    /// Its sections in order.
    pub sections: Vec<Section>,
}

/// How deep includes may nest (a loop written with different spellings of a path stops here).
const MAX_INCLUDE_DEPTH: usize = 16;

/// Reads and lexes the job file `path` (`-` is standard input for the caller to supply as
/// `text` through [`parse_job_text`]).
pub fn parse_job_file(path: &Path, env: &Env) -> Result<JobFile, BenchError> {
    let text = env
        .read(path)
        .map_err(|e| BenchError::JobFile { path: one_line(&path.display().to_string()), why: io_why(&e) })?;
    parse_job_text(path, &text, env)
}

fn io_why(e: &std::io::Error) -> String {
    let s = e.to_string();
    // "No such file or directory (os error 2)" → keep the words, they are what users search for.
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Lexes job-file text that came from `path` (used for messages and relative includes).
pub fn parse_job_text(path: &Path, text: &[u8], env: &Env) -> Result<JobFile, BenchError> {
    let mut sections: Vec<Section> = Vec::new();
    let mut stack = vec![normalize(path)];
    lex_lines(path, text, env, &mut sections, false, &mut stack)?;
    Ok(JobFile { path: path.to_path_buf(), sections })
}

fn lex_lines(
    path: &Path,
    text: &[u8],
    env: &Env,
    sections: &mut Vec<Section>,
    included: bool,
    stack: &mut Vec<PathBuf>,
) -> Result<(), BenchError> {
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let at = Origin::file(path, line_no);
        let Ok(line) = std::str::from_utf8(raw) else {
            return Err(BenchError::Syntax { at, why: "the line is not valid UTF-8".into() });
        };
        let line = strip_line(line);
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            if included {
                return Err(BenchError::Syntax { at, why: "no new sections in included files".into() });
            }
            let Some(name) = rest.strip_suffix(']') else {
                return Err(BenchError::Syntax {
                    at,
                    why: format!("section header '{}' has no closing ']'", one_line(line)),
                });
            };
            if name.is_empty() {
                return Err(BenchError::Syntax { at, why: "empty section name".into() });
            }
            sections.push(Section {
                name: name.to_string(),
                global: name.starts_with("global"),
                at,
                entries: Vec::new(),
            });
            continue;
        }
        if sections.is_empty() {
            return Err(BenchError::Syntax { at, why: format!("option '{}' outside of a [section]", one_line(line)) });
        }
        if let Some(target) = include_target(line) {
            if target.is_empty() {
                return Err(BenchError::Syntax { at, why: "include needs a file name".into() });
            }
            include(path, target, env, sections, stack, &at)?;
            continue;
        }
        let entry = lex_option(line, env, &at)?;
        if let Some(s) = sections.last_mut() {
            s.entries.push(entry);
        }
    }
    Ok(())
}

/// `include FILE` (fio also reads `include=FILE`, it only looks at the first 7 characters).
fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    if rest.is_empty() {
        return Some("");
    }
    let first = rest.chars().next()?;
    if first.is_whitespace() || first == '=' { Some(rest[first.len_utf8()..].trim()) } else { None }
}

fn include(
    from: &Path,
    target: &str,
    env: &Env,
    sections: &mut Vec<Section>,
    stack: &mut Vec<PathBuf>,
    at: &Origin,
) -> Result<(), BenchError> {
    let target_path = Path::new(target);
    let mut candidates = Vec::new();
    if target_path.is_absolute() {
        candidates.push(target_path.to_path_buf());
    } else {
        if let Some(dir) = from.parent()
            && !dir.as_os_str().is_empty()
        {
            candidates.push(dir.join(target_path));
        }
        candidates.push(target_path.to_path_buf());
    }
    let mut last_err = None;
    for cand in candidates {
        match env.read(&cand) {
            Ok(text) => {
                let norm = normalize(&cand);
                if stack.contains(&norm) {
                    return Err(BenchError::Syntax {
                        at: at.clone(),
                        why: format!("include loop: {} includes itself", one_line(&cand.display().to_string())),
                    });
                }
                if stack.len() > MAX_INCLUDE_DEPTH {
                    return Err(BenchError::Syntax {
                        at: at.clone(),
                        why: format!("includes nested deeper than {MAX_INCLUDE_DEPTH} (an include loop?)"),
                    });
                }
                stack.push(norm);
                let r = lex_lines(&cand, &text, env, sections, true, stack);
                stack.pop();
                return r;
            }
            Err(e) => last_err = Some(e),
        }
    }
    Err(BenchError::Syntax {
        at: at.clone(),
        why: format!(
            "include {}: {}",
            one_line(target),
            last_err.map(|e| io_why(&e)).unwrap_or_else(|| "cannot be read".into())
        ),
    })
}

/// Lexical normalisation (`a/./b/../c` → `a/c`) for include-loop detection; no file system access.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// fio's `strip_blank_front` + `strip_blank_end`: leading blanks go, the line is cut at its first
/// `;` and its first `#`, trailing blanks and control characters go.
pub fn strip_line(line: &str) -> &str {
    let line = line.trim_start();
    let cut = line.find([';', '#']).unwrap_or(line.len());
    line[..cut].trim_end_matches(|c: char| c.is_whitespace() || c.is_control())
}

/// Lexes one option line (already stripped): `${VAR}` and keyword substitution of the whole line
/// (so a variable may hold `key=value`, as in fio), then `key[=value]`, then arithmetic of the value
/// when a keyword was used.
fn lex_option(line: &str, env: &Env, at: &Origin) -> Result<Entry, BenchError> {
    let (full, keyword) = substitute(line, env, at)?;
    let (key, value) = match full.split_once('=') {
        Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
        None => (full.trim().to_string(), None),
    };
    if key.is_empty() {
        return Err(BenchError::Syntax { at: at.clone(), why: format!("'{}' has no option name", one_line(line)) });
    }
    let value = match value {
        Some(v) if keyword => Some(arith_value(&key, v, at)?),
        other => other,
    };
    Ok(Entry { key, value, at: at.clone() })
}

/// fio hands a value to `bc` when a keyword was replaced and it contains `+ - * /`.
fn arith_value(key: &str, v: String, at: &Origin) -> Result<String, BenchError> {
    if !v.contains(['+', '-', '*', '/']) || v.contains('\'') {
        return Ok(v);
    }
    match eval_arith(&v) {
        Ok(n) => Ok(n.to_string()),
        Err(why) => Err(BenchError::BadValue {
            at: at.clone(),
            option: one_line(key),
            value: one_line(&v),
            why: format!("cannot evaluate: {why} (integer arithmetic: + - * / % ^ and parentheses)"),
        }),
    }
}

/// `${VAR}` and keyword substitution of a value, then arithmetic when a keyword was used (the
/// command line uses this for option values).
pub fn expand_value(key: &str, v: &str, env: &Env, at: &Origin) -> Result<String, BenchError> {
    let (v, keyword) = substitute(v, env, at)?;
    if keyword { arith_value(key, v, at) } else { Ok(v) }
}

/// Replaces `${VAR}` and the keywords; returns the text and whether a keyword was replaced.
fn substitute(s: &str, env: &Env, at: &Origin) -> Result<(String, bool), BenchError> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) => {
                let name = &after[..j];
                if !name.is_empty() {
                    match env.var(name) {
                        Some(v) => out.push_str(&v),
                        None => return Err(BenchError::UnsetVariable { at: at.clone(), var: one_line(name) }),
                    }
                }
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    let mut keyword = false;
    for (word, val) in [("$pagesize", env.pagesize), ("$mb_memory", env.mb_memory), ("$ncpus", env.ncpus)] {
        if out.contains(word) {
            out = out.replace(word, &val.to_string());
            keyword = true;
        }
    }
    Ok((out, keyword))
}

/// Evaluates integer arithmetic as `bc` does with `scale=0`: `+ - * / % ^`, unary minus,
/// parentheses; division and remainder truncate toward zero.
pub fn eval_arith(s: &str) -> Result<i128, String> {
    let tokens = tokenize(s)?;
    let mut p = Parser { t: &tokens, i: 0, depth: 0 };
    let v = p.expr()?;
    if p.i != tokens.len() {
        return Err(format!("unexpected '{}'", p.t[p.i]));
    }
    Ok(v)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i128),
    Op(char),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Op(c) => write!(f, "{c}"),
        }
    }
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let n: i128 = s[start..i].parse().map_err(|_| "number too large".to_string())?;
            out.push(Tok::Num(n));
        } else if b"+-*/%^()".contains(&c) {
            out.push(Tok::Op(c as char));
            i += 1;
        } else {
            let ch = s[i..].chars().next().unwrap_or('?');
            return Err(format!("unexpected '{}'", one_line(&ch.to_string())));
        }
    }
    if out.is_empty() {
        return Err("empty expression".into());
    }
    Ok(out)
}

struct Parser<'a> {
    t: &'a [Tok],
    i: usize,
    depth: u32,
}

const LIMIT: i128 = 1 << 100;

fn check(v: Option<i128>) -> Result<i128, String> {
    match v {
        Some(v) if (-LIMIT..=LIMIT).contains(&v) => Ok(v),
        _ => Err("number too large".into()),
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }

    fn expr(&mut self) -> Result<i128, String> {
        let mut v = self.term()?;
        while let Some(Tok::Op(c @ ('+' | '-'))) = self.peek() {
            let c = *c;
            self.i += 1;
            let r = self.term()?;
            v = check(if c == '+' { v.checked_add(r) } else { v.checked_sub(r) })?;
        }
        Ok(v)
    }

    fn term(&mut self) -> Result<i128, String> {
        let mut v = self.power()?;
        while let Some(Tok::Op(c @ ('*' | '/' | '%'))) = self.peek() {
            let c = *c;
            self.i += 1;
            let r = self.power()?;
            v = match c {
                '*' => check(v.checked_mul(r))?,
                _ if r == 0 => return Err("division by zero".into()),
                '/' => check(v.checked_div(r))?,
                _ => check(v.checked_rem(r))?,
            };
        }
        Ok(v)
    }

    fn power(&mut self) -> Result<i128, String> {
        let base = self.unary()?;
        if let Some(Tok::Op('^')) = self.peek() {
            self.i += 1;
            // Right-associative, as in bc.
            let exp = self.power()?;
            if exp < 0 {
                return Err("negative exponent".into());
            }
            let exp = u32::try_from(exp).map_err(|_| "number too large".to_string())?;
            return check(base.checked_pow(exp));
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<i128, String> {
        match self.peek() {
            Some(Tok::Op('-')) => {
                self.i += 1;
                Ok(-self.unary()?)
            }
            Some(Tok::Op('+')) => {
                self.i += 1;
                self.unary()
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<i128, String> {
        match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                self.i += 1;
                check(Some(n))
            }
            Some(Tok::Op('(')) => {
                self.depth += 1;
                if self.depth > 64 {
                    return Err("parentheses nested too deeply".into());
                }
                self.i += 1;
                let v = self.expr()?;
                if self.peek() != Some(&Tok::Op(')')) {
                    return Err("missing ')'".into());
                }
                self.i += 1;
                self.depth -= 1;
                Ok(v)
            }
            Some(t) => Err(format!("unexpected '{t}'")),
            None => Err("expression ends too early".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(text: &str) -> Result<JobFile, BenchError> {
        parse_job_text(Path::new("t.fio"), text.as_bytes(), &Env::hermetic([("BS", "8k"), ("EMPTY", "")]))
    }

    #[test]
    fn sections_entries_and_comments() {
        let f = lex("; comment\n# another\n[global]\nbs=4k ; inline\n  rw = randread # x\n[job1]\ngroup_reporting\n[job1]\nsize=${BS}\n[global2]\n").unwrap();
        let names: Vec<_> = f.sections.iter().map(|s| (s.name.as_str(), s.global)).collect();
        assert_eq!(names, vec![("global", true), ("job1", false), ("job1", false), ("global2", true)]);
        assert_eq!(f.sections[0].entries[0].value.as_deref(), Some("4k"));
        assert_eq!(f.sections[0].entries[1].key, "rw");
        assert_eq!(f.sections[0].entries[1].value.as_deref(), Some("randread"));
        assert_eq!(f.sections[1].entries[0].value, None);
        assert_eq!(f.sections[2].entries[0].value.as_deref(), Some("8k"));
        assert_eq!(f.sections[2].entries[0].at, Origin::file(Path::new("t.fio"), 9));
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = lex("bs=4k\n[x]\n").unwrap_err();
        assert_eq!(e.to_string(), "t.fio:1: option 'bs=4k' outside of a [section]");
        let e = lex("[x]\nsize=${NOPE}\n").unwrap_err();
        assert_eq!(e.to_string(), "t.fio:2: ${NOPE}: environment variable is not set");
        let e = lex("[x\n").unwrap_err();
        assert!(e.to_string().starts_with("t.fio:1: section header"));
        assert!(lex("[]\n").is_err());
        assert!(lex("[x]\n=4\n").is_err());
    }

    #[test]
    fn keywords_and_arithmetic() {
        let f =
            lex("[x]\nnumjobs=$ncpus\nsize=5*1024*1024*$mb_memory/8\nbs=$pagesize\niodepth=2*($ncpus+1)\n").unwrap();
        let v: Vec<_> = f.sections[0].entries.iter().map(|e| e.value.clone().unwrap()).collect();
        assert_eq!(v, vec!["4", &(5i128 * 1024 * 1024 * 8192 / 8).to_string(), "4096", "10"]);
        assert!(lex("[x]\nbs=4k*$ncpus\n").is_err());
        assert!(lex("[x]\nbs=$ncpus/0\n").is_err());
        assert_eq!(eval_arith("2^3^2"), Ok(512));
        assert_eq!(eval_arith("-7/2"), Ok(-3));
        assert_eq!(eval_arith("7%3"), Ok(1));
        assert!(eval_arith("2^200").is_err());
        assert!(eval_arith("(1").is_err());
        assert!(eval_arith("1)").is_err());
    }

    #[test]
    fn includes() {
        let env = Env::hermetic(Vec::<(String, String)>::new()).with_files([
            ("dir/main.fio", "[x]\ninclude inc.fio\nrw=write\n"),
            ("dir/inc.fio", "bs=8k\ninclude sub/more.fio\n"),
            ("dir/sub/more.fio", "direct=1\n"),
            ("dir/loop.fio", "[x]\ninclude loop2.fio\n"),
            ("dir/loop2.fio", "include loop2.fio\n"),
            ("dir/sect.fio", "[x]\ninclude s.fio\n"),
            ("dir/s.fio", "[y]\n"),
        ]);
        let f = parse_job_file(Path::new("dir/main.fio"), &env).unwrap();
        let keys: Vec<_> = f.sections[0].entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, vec!["bs", "direct", "rw"]);
        assert_eq!(f.sections[0].entries[1].at, Origin::file(Path::new("dir/sub/more.fio"), 1));
        let e = parse_job_file(Path::new("dir/loop.fio"), &env).unwrap_err();
        assert!(e.to_string().contains("include loop"), "{e}");
        let e = parse_job_file(Path::new("dir/sect.fio"), &env).unwrap_err();
        assert_eq!(e.to_string(), "dir/s.fio:1: no new sections in included files");
        let e = parse_job_file(Path::new("dir/none.fio"), &env).unwrap_err();
        assert!(e.to_string().starts_with("dir/none.fio: "), "{e}");
    }

    #[test]
    fn a_variable_may_hold_a_whole_option() {
        let env = Env::hermetic([("OPT", "bs=8k"), ("K", "rw")]);
        let f = parse_job_text(Path::new("t.fio"), b"[x]\n${OPT}\n${K}=write\r\n", &env).unwrap();
        let e: Vec<_> = f.sections[0].entries.iter().map(|e| (e.key.as_str(), e.value.as_deref())).collect();
        assert_eq!(e, vec![("bs", Some("8k")), ("rw", Some("write"))]);
    }

    #[test]
    fn strip_rules() {
        assert_eq!(strip_line("  bs=4k ; c"), "bs=4k");
        assert_eq!(strip_line("a#b;c"), "a");
        assert_eq!(strip_line("x\r"), "x");
        assert_eq!(strip_line("; all"), "");
        assert_eq!(count_cpu_list("0-3,8"), Some(5));
    }
}
