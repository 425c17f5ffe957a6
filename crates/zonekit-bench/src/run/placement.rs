//! A job's thread placed as fio 3.33's `thread_main` places a job: its CPUs (`cpumask` /
//! `cpus_allowed`, split per clone, without the `gtod_cpu`), then its NUMA nodes' CPUs and its
//! memory policy, and later its nice value and its disks' I/O scheduler. Everything is set on
//! the calling thread (the job's), so the threads it starts afterwards (offload submitters,
//! POSIX AIO's) inherit it, and the run's other threads keep theirs.

use crate::options::placement::{MemPolicy, NodeSet, NumaHost, Placement};
use crate::run::host::{self, SchedulerSwitch};
use crate::sys;
use std::path::Path;

/// A step that ends the job, as fio's `td_verror` records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFailure {
    /// The job's error number.
    pub errno: i32,
    /// fio's `file:…, func=…`.
    pub msg: String,
    /// Lines fio prints before the error (as zonekit prints them: `zonekit: ` for fio's `fio: `).
    pub log: Vec<String>,
}

fn failure(e: &std::io::Error, msg: &str) -> JobFailure {
    JobFailure { errno: e.raw_os_error().unwrap_or(libc::EIO), msg: msg.to_string(), log: Vec::new() }
}

/// fio's affinity and NUMA steps for clone `thread_number` (1-based, over the run), on the
/// calling thread. The lines fio prints and goes on after (libnuma's `set_mempolicy: …`).
pub fn apply_cpus(p: &Placement, thread_number: u32) -> Result<Vec<String>, JobFailure> {
    let mut log = Vec::new();
    match p.job_cpus(thread_number) {
        Err(()) => {
            return Err(JobFailure {
                errno: libc::EINVAL,
                msg: "file:backend.c:1710, func=cpus_split".into(),
                log: vec!["zonekit: no CPUs set".into(), "zonekit: Try increasing number of available CPUs".into()],
            });
        }
        Ok(Some(cpus)) => {
            sys::set_thread_affinity(&cpus).map_err(|e| failure(&e, "file:backend.c:1716, func=cpu_set_affinity"))?
        }
        Ok(None) => {}
    }
    if p.numa_cpu_nodes.is_none() && p.numa_mem_policy.is_none() {
        return Ok(log);
    }
    if !sys::numa_available() {
        return Err(JobFailure {
            errno: libc::ENOSYS,
            msg: "file:backend.c:1728, func=Does not support NUMA API".into(),
            log: Vec::new(),
        });
    }
    if let Some(nodes) = &p.numa_cpu_nodes {
        // libnuma's numa_run_on_node_mask: the nodes' CPUs, whatever the mask before.
        let cpus = NumaHost::get().cpus_of(nodes);
        sys::set_thread_affinity(&cpus)
            .map_err(|e| failure(&e, "file:backend.c:1737, func=numa_run_on_node_mask failed"))?;
    }
    let none = NodeSet::new();
    let set = match &p.numa_mem_policy {
        None | Some(MemPolicy::Default) => Ok(()),
        Some(MemPolicy::Prefer(n)) => {
            let mut one = NodeSet::new();
            one.set(*n as usize);
            sys::set_mempolicy(sys::mpol::PREFERRED, &one)
        }
        Some(MemPolicy::Bind(nodes)) => sys::set_mempolicy(sys::mpol::BIND, nodes),
        // libnuma's numa_set_interleave_mask: no node at all is the default policy.
        Some(MemPolicy::Interleave(nodes)) if nodes.is_empty() => sys::set_mempolicy(sys::mpol::DEFAULT, &none),
        Some(MemPolicy::Interleave(nodes)) => sys::set_mempolicy(sys::mpol::INTERLEAVE, nodes),
        Some(MemPolicy::Local) => sys::set_mempolicy(sys::mpol::LOCAL, &none),
    };
    if let Err(e) = set {
        // libnuma reports it (perror) and fio goes on.
        log.push(format!("set_mempolicy: {}", zonekit_core::io_text(&e)));
    }
    Ok(log)
}

/// fio's `nice(o->nice)` on the calling thread (nothing to do for 0).
pub fn apply_nice(p: &Placement) -> Result<(), JobFailure> {
    if p.nice == 0 {
        return Ok(());
    }
    sys::add_thread_nice(p.nice).map_err(|e| failure(&e, "file:backend.c:1817, func=nice"))
}

/// fio's `switch_ioscheduler`: each file's disk (`None`: a file with no disk under it, which fio
/// skips) switched to `name` in turn; the lines fio prints and goes on after, or the failure.
pub fn switch_ioscheduler<'a>(
    name: &str,
    disks: impl IntoIterator<Item = Option<&'a Path>>,
) -> Result<Vec<String>, JobFailure> {
    let mut log = Vec::new();
    for disk in disks.into_iter().flatten() {
        match host::switch_scheduler(disk, name) {
            Ok(s @ (SchedulerSwitch::NotTunable | SchedulerSwitch::Unsupported)) => {
                log.extend(s.line().map(|l| format!("zonekit: {l}")));
            }
            Ok(SchedulerSwitch::Switched) => {}
            Err(e) => {
                log.extend(e.line.map(|l| format!("zonekit: {l}")));
                return Err(JobFailure { errno: e.errno, msg: e.func.to_string(), log });
            }
        }
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::placement::{CpuSet, parse_cpu_list};

    /// Runs `f` on a thread of its own (what it sets stays there) and returns its result.
    fn on_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::spawn(f).join().unwrap()
    }

    #[test]
    fn the_job_thread_gets_its_cpus_and_keeps_them_to_itself() {
        let before = sys::thread_affinity().unwrap();
        let first = before.iter().next().unwrap();
        let mut one = CpuSet::new();
        one.set(first);
        let p = Placement { cpus: Some(one), ..Placement::default() };
        let (log, got) = on_thread(move || (apply_cpus(&p, 1), sys::thread_affinity().unwrap()));
        assert_eq!(log, Ok(vec![]));
        assert_eq!(got.list(), first.to_string());
        assert_eq!(sys::thread_affinity().unwrap(), before, "the calling thread keeps its CPUs");
    }

    #[test]
    fn an_empty_mask_fails_as_fio_fails() {
        let (empty, _) = parse_cpu_list("1-0", 2).unwrap();
        let p = Placement { cpus: Some(empty), ..Placement::default() };
        let r = on_thread(move || apply_cpus(&p, 1));
        assert_eq!(
            r,
            Err(JobFailure {
                errno: libc::EINVAL,
                msg: "file:backend.c:1716, func=cpu_set_affinity".into(),
                log: vec![]
            })
        );
        let p = Placement { cpus: Some(empty), cpus_split: true, ..Placement::default() };
        let r = on_thread(move || apply_cpus(&p, 1)).unwrap_err();
        assert_eq!((r.errno, r.msg.as_str(), r.log.len()), (libc::EINVAL, "file:backend.c:1710, func=cpus_split", 2));
    }

    #[test]
    fn numa_nodes_and_memory_policy() {
        let host = NumaHost::get();
        let node = host.allowed.iter().next().unwrap();
        let mut nodes = NodeSet::new();
        nodes.set(node);
        let want_cpus = host.cpus_of(&nodes);
        for (policy, mode) in [
            (MemPolicy::Interleave(nodes), sys::mpol::INTERLEAVE),
            (MemPolicy::Bind(nodes), sys::mpol::BIND),
            (MemPolicy::Prefer(node as u32), sys::mpol::PREFERRED),
            (MemPolicy::Local, sys::mpol::LOCAL),
            (MemPolicy::Interleave(NodeSet::new()), sys::mpol::DEFAULT),
        ] {
            let p = Placement { numa_cpu_nodes: Some(nodes), numa_mem_policy: Some(policy), ..Placement::default() };
            let (r, cpus, pol) = on_thread(move || {
                (apply_cpus(&p, 1), sys::thread_affinity().unwrap(), sys::thread_mempolicy().unwrap())
            });
            assert_eq!(r, Ok(vec![]), "{policy:?}");
            assert_eq!(pol.0, mode, "{policy:?}");
            if !want_cpus.is_empty() {
                assert_eq!(cpus, want_cpus);
            }
        }
        assert_eq!(sys::thread_mempolicy().unwrap().0, sys::mpol::DEFAULT, "the calling thread keeps its policy");
    }

    #[test]
    fn nice_adds_to_the_threads_value() {
        let before = sys::thread_nice().unwrap();
        let p = Placement { nice: 3, ..Placement::default() };
        let (r, after) = on_thread(move || (apply_nice(&p), sys::thread_nice().unwrap()));
        assert_eq!(r, Ok(()));
        assert_eq!(after, (before + 3).min(19));
        assert_eq!(sys::thread_nice().unwrap(), before);
    }
}
