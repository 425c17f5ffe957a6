//! Where the I/O buffers live and how they are aligned (`mem`/`iomem`, `iomem_align`,
//! `hugepage-size`), which zonekit used to accept and ignore (issue 9), beside real fio 3.33:
//! the same allocation calls under strace, the same outcome of O_DIRECT I/O from buffers off
//! the page, the same failing call where huge pages are missing.
//!
//! The side-by-side tests need `fio` and `strace` and fail without them (a missing tool must not
//! pass a check).

mod common;

use common::{raw, run, text, zonekit};

use std::path::Path;

/// The memory calls `program` makes under strace for `args` in `dir`, those of its buffers:
/// `shmget` of a segment other than fio's own status area, `mmap` of huge pages, the map file's
/// `openat` and `unlink` (as `name(args) = result`, the segment id and addresses left out); and
/// its exit code.
fn memory_calls(program: &str, args: &[&str], dir: &Path) -> (Option<i32>, Vec<String>) {
    let trace = dir.join("strace.out");
    let mut full = vec!["-f", "-qq", "-e", "trace=shmget,mmap,openat,unlink", "-o", trace.to_str().unwrap(), program];
    if program == zonekit() {
        full.push("bench");
    }
    full.extend_from_slice(args);
    let o = raw("strace", &full, dir);
    let t = std::fs::read_to_string(&trace).unwrap_or_else(|e| panic!("no trace ({e}): {}", text(&o)));
    std::fs::remove_file(&trace).unwrap();
    let calls = t
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(_, c)| c.split_whitespace().collect::<Vec<_>>().join(" ")))
        .filter(|c| {
            (c.starts_with("shmget") && !c.contains("1536456")) // fio's status area
                || (c.starts_with("mmap") && c.contains("HUGETLB"))
                || c.contains("mmfile")
        })
        .map(|c| {
            let c = c.replace("|O_CLOEXEC", "");
            match c.rsplit_once(" = ") {
                // A segment id or a descriptor: any number.
                Some((call, r)) if r.chars().all(|x| x.is_ascii_digit()) => format!("{call} = N"),
                _ => c,
            }
        })
        .collect();
    // fio's exit code under strace is the tracee's.
    (o.status.code(), calls)
}

/// Whether the system has a free huge page.
fn huge_pages_free() -> bool {
    std::fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("HugePages_Free:").map(|v| v.trim().parse::<u64>().unwrap()))
        .unwrap_or(0)
        > 0
}

mod needs_tools {
    use super::*;
    use common::require_fio;

    /// `mem=shm` asks for a shared memory segment of the buffers, `mem=mmap:FILE` creates FILE
    /// and removes it at the end, as fio does; `malloc`, `mmap` and `mmapshared` make no such
    /// call. Both tools' jobs complete the same I/O.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn memory_kinds_make_fios_calls() {
        require_fio();
        for mem in ["malloc", "shm", "mmap", "mmapshared", "mmap:mmfile", "shm:ignored"] {
            let mut seen = Vec::new();
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let m = format!("--mem={mem}");
                let args = ["--name=j", "--filename=f", "--size=256k", "--bs=64k", "--rw=write", &m];
                let (code, calls) = memory_calls(program, &args, dir.path());
                let (doc, o) = run(program, &args, dir.path());
                assert!(o.status.success(), "{program} {mem}: {}", text(&o));
                let leftover = dir.path().join("mmfile").exists();
                seen.push((code, calls, doc["jobs"][0]["write"]["io_bytes"].clone(), leftover));
            }
            assert_eq!(seen[0], seen[1], "mem={mem}: fio, then zonekit");
            let shm = seen[0].1.iter().any(|c| c.starts_with("shmget"));
            assert_eq!(shm, mem.starts_with("shm"), "mem={mem}: {:?}", seen[0]);
        }
    }

    /// `mem=mmaphuge` and `mem=shmhuge` ask for huge pages (the size rounded up to
    /// `hugepage-size`); on a system without a free one both tools' call fails with ENOMEM. fio
    /// 3.33 then dies (SIGSEGV: `fio: pid=N, got signal=11`); zonekit ends the job with the
    /// error fio recorded before it crashed (`err=12/file:memory.c:170, func=mmap`,
    /// `…:78, func=shmget` and fio's advice line), exit code 1. With free huge pages, both run.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn huge_pages_as_fio() {
        require_fio();
        let free = huge_pages_free();
        for (mem, call, line) in [("mmaphuge", "mmap", "memory.c:170"), ("shmhuge", "shmget", "memory.c:78")] {
            let mut calls = Vec::new();
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let m = format!("--mem={mem}");
                let args = ["--name=j", "--filename=f", "--size=256k", "--bs=64k", "--rw=write", &m];
                let (_, c) = memory_calls(program, &args, dir.path());
                calls.push(c);
                if program == zonekit() {
                    let o = raw(program, &args, dir.path());
                    let t = text(&o);
                    if free {
                        assert!(o.status.success(), "{t}");
                    } else {
                        assert_eq!(o.status.code(), Some(1), "{t}");
                        assert!(
                            t.contains(&format!("err=12/file:{line}, func={call}, error=Cannot allocate memory")),
                            "{t}"
                        );
                        if mem == "shmhuge" {
                            assert!(
                                t.contains("zonekit: no huge pages available, do you need to allocate some?"),
                                "{t}"
                            );
                        }
                    }
                }
            }
            assert_eq!(calls[0], calls[1], "mem={mem}: fio's calls, then zonekit's");
            assert_eq!(calls[0].len(), 1, "mem={mem}: {:?}", calls[0]);
            assert!(calls[0][0].contains("2097152"), "rounded up to hugepage-size: {:?}", calls[0]);
            assert_eq!(calls[0][0].contains("ENOMEM"), !free, "{:?}", calls[0]);
        }
    }

    /// `iomem_align=N` with `direct=1`: the buffers start N bytes past the page, and the
    /// device's DMA alignment decides whether O_DIRECT takes them (on this machine's virtio
    /// disk, 512 bytes). Both tools: the same error (`err=22`, fio's `first direct IO errored`
    /// line) or none, the same I/Os, the same exit code.
    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn iomem_align_as_fio() {
        require_fio();
        let mut failed = 0;
        for (align, direct) in [("0", "1"), ("512", "1"), ("256", "1"), ("1", "1"), ("4096", "1"), ("256", "0")] {
            let mut seen = Vec::new();
            for program in ["fio", zonekit()] {
                let dir = tempfile::tempdir().unwrap();
                let (a, d) = (format!("--iomem_align={align}"), format!("--direct={direct}"));
                let args = ["--name=j", "--filename=f", "--size=256k", "--bs=64k", "--rw=write", &a, &d];
                let (doc, o) = run(program, &args, dir.path());
                let job = &doc["jobs"][0];
                // fio logs the advice with its output (in the JSON file with `--output`): the
                // normal output's text, in both.
                let said = text(&raw(program, &args, dir.path())).contains("first direct IO errored");
                seen.push((o.status.code(), job["error"].clone(), job["write"]["total_ios"].clone(), said));
            }
            assert_eq!(seen[0], seen[1], "iomem_align={align} direct={direct}: fio, then zonekit");
            if seen[0].1 != 0 {
                failed += 1;
            }
        }
        assert!(failed > 0, "an offset of 1 byte is refused by every O_DIRECT file system");
    }
}
