//! Where and how a job's thread runs: its CPUs (`cpumask`, `cpus_allowed`,
//! `cpus_allowed_policy`, `gtod_cpu`), its nice value, its NUMA nodes and memory policy
//! (`numa_cpu_nodes`, `numa_mem_policy`), the I/O scheduler of its devices (`ioscheduler`), and
//! whether it may write to a mounted block device (`allow_mounted_write`).
//!
//! The values are read as fio 3.33 reads them (`options.c`: `set_cpus_allowed`,
//! `str_cpumask_cb`, `str_numa_mpol_cb`; libnuma's `numa_parse_nodestring` for node lists), with
//! fio's messages, against this machine's CPUs and nodes; the run applies them
//! (`run::placement`).

use super::value;
use std::fmt;

/// The most CPUs a mask holds: glibc's `CPU_SETSIZE`, fio's `FIO_MAX_CPUS` on Linux.
pub const MAX_CPUS: usize = 1024;

/// The most NUMA nodes a node mask holds (the kernel's largest `MAX_NUMNODES`, what libnuma sizes
/// its masks to here).
pub const MAX_NODES: usize = 1024;

/// A set of CPU (or node) numbers below 1024, as a `cpu_set_t` holds them.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Bits1024(pub [u64; 16]);

impl Bits1024 {
    /// The empty set.
    pub const fn new() -> Bits1024 {
        Bits1024([0; 16])
    }

    /// Adds `n` (no effect at 1024 or above, as `CPU_SET`).
    pub fn set(&mut self, n: usize) {
        if n < 1024 {
            self.0[n / 64] |= 1 << (n % 64);
        }
    }

    /// Removes `n`.
    pub fn clear(&mut self, n: usize) {
        if n < 1024 {
            self.0[n / 64] &= !(1 << (n % 64));
        }
    }

    /// True when `n` is in the set.
    pub fn contains(&self, n: usize) -> bool {
        n < 1024 && self.0[n / 64] & (1 << (n % 64)) != 0
    }

    /// How many numbers the set holds.
    pub fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The numbers in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..1024).filter(|&n| self.contains(n))
    }

    /// The set as the kernel lists it (`Cpus_allowed_list`): `0-3,6`; empty for the empty set.
    pub fn list(&self) -> String {
        let mut parts = Vec::new();
        let mut it = self.iter().peekable();
        while let Some(lo) = it.next() {
            let mut hi = lo;
            while it.peek() == Some(&(hi + 1)) {
                hi = it.next().unwrap_or(hi);
            }
            parts.push(if hi == lo { lo.to_string() } else { format!("{lo}-{hi}") });
        }
        parts.join(",")
    }

    /// Reads a kernel list (`0-3,6`, as `cpulist` and `Mems_allowed_list` hold); None when it is
    /// not one.
    pub fn parse_list(s: &str) -> Option<Bits1024> {
        let mut set = Bits1024::new();
        for part in s.trim().split(',').filter(|p| !p.is_empty()) {
            let (lo, hi) = match part.split_once('-') {
                Some((l, h)) => (l.trim().parse::<usize>().ok()?, h.trim().parse::<usize>().ok()?),
                None => {
                    let n = part.trim().parse::<usize>().ok()?;
                    (n, n)
                }
            };
            for n in lo..=hi.min(1023) {
                set.set(n);
            }
        }
        Some(set)
    }
}

impl fmt::Debug for Bits1024 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}", self.list())
    }
}

/// A set of CPUs (`cpumask`, `cpus_allowed`).
pub type CpuSet = Bits1024;
/// A set of NUMA nodes (`numa_cpu_nodes`, `numa_mem_policy`).
pub type NodeSet = Bits1024;

/// fio's `fio_cpus_split` (`cpus_allowed_policy=split`): of the CPUs in `mask` (ascending), the
/// one at `index` modulo their number; None when the mask is empty (fio: `no CPUs set`).
pub fn split(mask: &CpuSet, index: u32) -> Option<CpuSet> {
    let n = mask.count();
    if n == 0 {
        return None;
    }
    let cpu = mask.iter().nth(index as usize % n)?;
    let mut one = CpuSet::new();
    one.set(cpu);
    Some(one)
}

/// One CPU of a list, checked as fio's `set_cpus_allowed` checks it.
fn check_cpu(cpu: i64, max_cpu: usize) -> Result<(), String> {
    if cpu >= MAX_CPUS as i64 {
        return Err(format!("your OS only supports up to {MAX_CPUS} CPUs"));
    }
    if cpu >= max_cpu as i64 {
        return Err(format!("CPU {cpu} too large (max={})", max_cpu as i64 - 1));
    }
    Ok(())
}

/// A CPU list (`cpus_allowed`, `verify_async_cpus`, `log_compression_cpus`) as fio 3.33's
/// `set_cpus_allowed` reads it against `max_cpu` configured CPUs: entries `N` or `N-M` separated
/// by `,` (an empty entry ends the list), each number read as C's `atoi` reads it (`abc` is 0,
/// `3x` is 3), a range that runs backwards adds nothing. The set, and the CPUs in the order fio
/// adds them (its `set cpu allowed N` trace lines).
pub fn parse_cpu_list(s: &str, max_cpu: usize) -> Result<(CpuSet, Vec<u32>), String> {
    let mut set = CpuSet::new();
    let mut order = Vec::new();
    for entry in s.trim().split(',') {
        if entry.is_empty() {
            break;
        }
        let mut parts = entry.split('-');
        let first = parts.next().unwrap_or("");
        let mut last: Option<i64> = None;
        for p in std::iter::once(first).chain(parts) {
            if p.is_empty() {
                break;
            }
            last = Some(value::atoi(p));
        }
        let lo = value::atoi(first);
        let hi = last.unwrap_or(lo);
        let mut cpu = lo;
        while cpu <= hi {
            check_cpu(cpu, max_cpu)?;
            if cpu >= 0 {
                set.set(cpu as usize);
                order.push(cpu as u32);
            }
            cpu += 1;
        }
    }
    Ok((set, order))
}

/// `cpumask=N` as fio 3.33's `str_cpumask_cb` reads it: bits 0 to 31 of `N`, each a CPU that must
/// exist among `max_cpu`.
pub fn parse_cpumask(v: i64, max_cpu: usize) -> Result<(CpuSet, Vec<u32>), String> {
    let mut set = CpuSet::new();
    let mut order = Vec::new();
    for i in 0..32u32 {
        if v & (1i64 << i) != 0 {
            if i as usize >= max_cpu {
                return Err(format!("CPU {i} too large (max={})", max_cpu as i64 - 1));
            }
            set.set(i as usize);
            order.push(i);
        }
    }
    Ok((set, order))
}

/// The machine's NUMA nodes as libnuma sees them: how many are configured (one more than the
/// highest `/sys/devices/system/node/nodeN`, at least 1), which of them this process may use
/// (`Mems_allowed_list`), and each node's CPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumaHost {
    /// Nodes 0 to `configured - 1` exist.
    pub configured: usize,
    /// The nodes this process may allocate from.
    pub allowed: NodeSet,
    /// The CPUs of each configured node (empty for a node without CPUs).
    pub node_cpus: Vec<CpuSet>,
}

impl NumaHost {
    /// This machine's nodes, read once per process.
    pub fn get() -> &'static NumaHost {
        static HOST: std::sync::OnceLock<NumaHost> = std::sync::OnceLock::new();
        HOST.get_or_init(|| NumaHost::read("/sys/devices/system/node", "/proc/self/status"))
    }

    /// Reads the nodes from `node_dir` (`/sys/devices/system/node`) and the allowed ones from
    /// `status` (`/proc/self/status`); a missing directory is one node, as libnuma takes it.
    pub fn read(node_dir: &str, status: &str) -> NumaHost {
        let mut max = 0usize;
        if let Ok(entries) = std::fs::read_dir(node_dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if let Some(n) = name.strip_prefix("node").and_then(|n| n.parse::<usize>().ok()) {
                    max = max.max(n);
                }
            }
        }
        let configured = (max + 1).min(MAX_NODES);
        let node_cpus = (0..configured)
            .map(|n| {
                std::fs::read_to_string(format!("{node_dir}/node{n}/cpulist"))
                    .ok()
                    .and_then(|s| CpuSet::parse_list(&s))
                    .unwrap_or_default()
            })
            .collect();
        let allowed = std::fs::read_to_string(status)
            .ok()
            .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Mems_allowed_list:").and_then(NodeSet::parse_list)))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| {
                let mut all = NodeSet::new();
                for n in 0..configured {
                    all.set(n);
                }
                all
            });
        NumaHost { configured, allowed, node_cpus }
    }

    /// The CPUs of the nodes in `nodes` (libnuma's `numa_run_on_node_mask`).
    pub fn cpus_of(&self, nodes: &NodeSet) -> CpuSet {
        let mut cpus = CpuSet::new();
        for n in nodes.iter() {
            if let Some(c) = self.node_cpus.get(n) {
                for i in 0..16 {
                    cpus.0[i] |= c.0[i];
                }
            }
        }
        cpus
    }
}

/// C's `strtoul(s, &end, 0)` on the digits at the start of `s` (decimal, `0x` hex, `0` octal):
/// the number and the bytes it took; None when there is no number there.
fn strtoul0(s: &str) -> Option<(u64, usize)> {
    let b = s.as_bytes();
    let (radix, start) = if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' && b[2].is_ascii_hexdigit() {
        (16, 2)
    } else if b.first() == Some(&b'0') {
        (8, 0)
    } else {
        (10, 0)
    };
    let len = b[start..].iter().take_while(|c| (**c as char).is_digit(radix)).count();
    if len == 0 {
        return None;
    }
    let digits = &s[start..start + len];
    let v = u64::from_str_radix(digits, radix).unwrap_or(u64::MAX);
    Some((v, start + len))
}

/// A node list as libnuma's `numa_parse_nodestring` reads it (what fio 3.33 checks
/// `numa_cpu_nodes` and the node lists of `numa_mem_policy` with): `all`, or entries `N` and
/// `N-M` separated by `,`, each node one this process may use; a leading `!` takes the other
/// configured nodes, a `+` counts nodes within the allowed ones (`+0` is the first allowed node).
/// The errors are libnuma's warnings. libnuma's device forms (`netdev:`, `block:`, `file:`,
/// `pci:`, `ip:`) are not read.
pub fn parse_nodestring(s: &str, host: &NumaHost) -> Result<NodeSet, String> {
    let mut rest = s;
    let invert = rest.starts_with('!');
    if invert {
        rest = &rest[1..];
    }
    let relative = rest.starts_with('+');
    if relative {
        rest = &rest[1..];
    }
    // `+N`: the N-th allowed node (past the last: out of range).
    let resolve = |n: u64| -> u64 {
        if !relative {
            return n;
        }
        host.allowed.iter().nth(usize::try_from(n).unwrap_or(usize::MAX)).map_or(MAX_NODES as u64, |x| x as u64)
    };
    let allowed = |n: u64| n < MAX_NODES as u64 && host.allowed.contains(n as usize);
    let mut mask = NodeSet::new();
    loop {
        if rest == "all" {
            mask = host.allowed;
            break;
        }
        let Some((a, used)) = strtoul0(rest) else {
            return Err(format!("unparseable node description `{rest}'"));
        };
        let a = resolve(a);
        if !allowed(a) {
            return Err(format!("node argument {} is out of range", a as i64 as i32));
        }
        mask.set(a as usize);
        rest = &rest[used..];
        if let Some(r) = rest.strip_prefix('-') {
            let Some((b, used)) = strtoul0(r) else {
                return Err(format!("missing node argument {r}"));
            };
            let b = resolve(b);
            if !allowed(b) {
                return Err(format!("node argument {} out of range", b as i64 as i32));
            }
            for n in a..=b {
                if allowed(n) {
                    mask.set(n as usize);
                }
            }
            rest = &r[used..];
        }
        match rest.strip_prefix(',') {
            Some(r) => rest = r,
            None if rest.is_empty() => break,
            None => return Err(format!("unparseable node description `{rest}'")),
        }
    }
    if invert {
        for n in 0..host.configured {
            if mask.contains(n) {
                mask.clear(n);
            } else {
                mask.set(n);
            }
        }
    }
    Ok(mask)
}

/// `numa_mem_policy`: the memory policy of the job's thread (`set_mempolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemPolicy {
    /// `default`: the thread keeps its policy.
    Default,
    /// `prefer:N`: allocate on node N first (`MPOL_PREFERRED`).
    Prefer(u32),
    /// `bind:LIST`: allocate only on these nodes (`MPOL_BIND`).
    Bind(NodeSet),
    /// `interleave[:LIST]`: spread allocations over these nodes, every allowed node by default
    /// (`MPOL_INTERLEAVE`; no node at all is `MPOL_DEFAULT`, as libnuma sets it).
    Interleave(NodeSet),
    /// `local`: allocate on the node the thread runs on (`MPOL_LOCAL`).
    Local,
}

/// `numa_mem_policy` as written: its mode, and its node list still to be read against this
/// machine's nodes ([`MemPolicySpec::resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemPolicySpec {
    /// `default`.
    Default,
    /// `prefer:N`.
    Prefer(String),
    /// `bind:LIST`.
    Bind(String),
    /// `interleave[:LIST]`.
    Interleave(Option<String>),
    /// `local`.
    Local,
}

/// `numa_mem_policy=MODE[:NODES]` as fio 3.33's `str_numa_mpol_cb` reads it, with its messages;
/// zonekit also refuses an empty node number after `prefer:` (fio reads it as node 0).
pub fn parse_mem_policy(s: &str) -> Result<MemPolicySpec, String> {
    let (mode, nodes) = match s.split_once(':') {
        Some((m, n)) => (m, Some(n)),
        None => (s, None),
    };
    match mode {
        "default" | "local" => match nodes {
            // fio's message names `local` for both.
            Some(_) => Err("NO nodelist for 'local'".into()),
            None if mode == "local" => Ok(MemPolicySpec::Local),
            None => Ok(MemPolicySpec::Default),
        },
        "prefer" => {
            let Some(n) = nodes.filter(|n| !n.is_empty()) else {
                return Err("one node is needed for 'prefer'".into());
            };
            if !n.bytes().all(|b| b.is_ascii_digit()) {
                return Err("one node only for 'prefer'".into());
            }
            Ok(MemPolicySpec::Prefer(n.to_string()))
        }
        "bind" => match nodes {
            None => Err("a nodelist is needed for 'bind'".into()),
            Some(n) => Ok(MemPolicySpec::Bind(n.to_string())),
        },
        "interleave" => Ok(MemPolicySpec::Interleave(nodes.map(str::to_string))),
        _ => Err("memory policy should be: default, prefer, bind, interleave, local".into()),
    }
}

impl MemPolicySpec {
    /// The policy on this machine: node lists read as libnuma reads them, and a `prefer` node
    /// this process cannot use refused (fio takes it, and libnuma's `set_mempolicy` then fails
    /// in the job with `Invalid argument`, which fio ignores).
    pub fn resolve(&self, host: &NumaHost) -> Result<MemPolicy, String> {
        Ok(match self {
            MemPolicySpec::Default => MemPolicy::Default,
            MemPolicySpec::Local => MemPolicy::Local,
            MemPolicySpec::Prefer(n) => match n.parse::<u32>() {
                Ok(node) if host.allowed.contains(node as usize) => MemPolicy::Prefer(node),
                _ => return Err(format!("node argument {n} is out of range")),
            },
            MemPolicySpec::Bind(n) => MemPolicy::Bind(parse_nodestring(n, host)?),
            MemPolicySpec::Interleave(None) => MemPolicy::Interleave(host.allowed),
            MemPolicySpec::Interleave(Some(n)) => MemPolicy::Interleave(parse_nodestring(n, host)?),
        })
    }
}

/// `cpumask` or `cpus_allowed` as written, read against this machine's CPUs when the job is
/// checked ([`Placement::resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpusSpec {
    /// `cpumask=N`.
    Mask(i64),
    /// `cpus_allowed=LIST`.
    List(String),
}

/// What a job asks of its thread and its devices besides I/O (see the module doc).
///
/// fio reads the CPU and node lists in its option callbacks, against the machine it runs on,
/// and skips them under `--parse-only`: here the options keep what was written, and
/// [`Placement::resolve`] reads it when the job is checked to run, with fio's messages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Placement {
    /// `cpumask` / `cpus_allowed` as written (the last one given wins, as in fio: they set one
    /// mask).
    pub cpus_spec: Option<CpusSpec>,
    /// The CPUs of `cpus_spec` once resolved; None when neither is set (the thread keeps the
    /// process's CPUs).
    pub cpus: Option<CpuSet>,
    /// `cpus_allowed_policy=split`: each clone runs on one CPU of the mask, the clone's place in
    /// the run (`thread_number - 1`) modulo the mask's size.
    pub cpus_split: bool,
    /// `gtod_cpu`: a CPU other than 0 is taken out of every job's mask.
    pub gtod_cpu: Option<u32>,
    /// `nice`: added to the thread's nice value (fio calls `nice(N)` in each job).
    pub nice: i32,
    /// `numa_cpu_nodes` as written.
    pub numa_cpu_nodes_spec: Option<String>,
    /// `numa_cpu_nodes` resolved: the thread runs on these nodes' CPUs (after `cpus_allowed`,
    /// which it replaces).
    pub numa_cpu_nodes: Option<NodeSet>,
    /// `numa_mem_policy` as written.
    pub numa_mem_policy_spec: Option<MemPolicySpec>,
    /// `numa_mem_policy` resolved.
    pub numa_mem_policy: Option<MemPolicy>,
    /// `verify_async_cpus` and `log_compression_cpus` as written: checked as fio checks them,
    /// then unused (zonekit has no verify or compression threads).
    pub other_cpu_lists: Vec<(&'static str, String)>,
    /// `ioscheduler`: the I/O scheduler to switch the job's disks to.
    pub ioscheduler: Option<String>,
    /// `allow_mounted_write`: a writing job may use a mounted block device.
    pub allow_mounted_write: bool,
}

impl Placement {
    /// Reads what was written against this machine (`max_cpu` configured CPUs, `host`'s
    /// nodes), as fio's option callbacks do: the resolved fields are set, or the first option
    /// that does not fit and why, in fio's (or libnuma's) words.
    pub fn resolve(&mut self, max_cpu: usize, host: &NumaHost) -> Result<(), (&'static str, String)> {
        for (name, list) in &self.other_cpu_lists {
            parse_cpu_list(list, max_cpu).map_err(|e| (*name, e))?;
        }
        self.cpus = match &self.cpus_spec {
            None => None,
            Some(CpusSpec::Mask(v)) => Some(parse_cpumask(*v, max_cpu).map_err(|e| ("cpumask", e))?.0),
            Some(CpusSpec::List(l)) => Some(parse_cpu_list(l, max_cpu).map_err(|e| ("cpus_allowed", e))?.0),
        };
        self.numa_cpu_nodes = match &self.numa_cpu_nodes_spec {
            None => None,
            Some(s) => Some(parse_nodestring(s, host).map_err(|e| ("numa_cpu_nodes", e))?),
        };
        self.numa_mem_policy = match &self.numa_mem_policy_spec {
            None => None,
            Some(s) => Some(s.resolve(host).map_err(|e| ("numa_mem_policy", e))?),
        };
        Ok(())
    }

    /// The CPUs clone `thread_number` (1-based, over the run) runs on: the mask without the
    /// `gtod_cpu` (when not 0), split for `cpus_allowed_policy=split`; `Ok(None)` when no mask
    /// is set; `Err(())` for a split of an empty mask.
    #[allow(clippy::result_unit_err)]
    pub fn job_cpus(&self, thread_number: u32) -> Result<Option<CpuSet>, ()> {
        let Some(mut mask) = self.cpus else { return Ok(None) };
        if let Some(g) = self.gtod_cpu.filter(|&g| g != 0) {
            mask.clear(g as usize);
        }
        if self.cpus_split {
            return split(&mask, thread_number.saturating_sub(1)).map(Some).ok_or(());
        }
        Ok(Some(mask))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus(s: &str, max: usize) -> Result<String, String> {
        parse_cpu_list(s, max).map(|(set, _)| set.list())
    }

    #[test]
    fn cpu_lists_read_as_fio_reads_them() {
        assert_eq!(cpus("0-3,6", 8).unwrap(), "0-3,6");
        assert_eq!(cpus("1,0", 2).unwrap(), "0-1");
        assert_eq!(parse_cpu_list("1,0", 2).unwrap().1, vec![1, 0]);
        // C's atoi: letters are 0, trailing junk is dropped.
        assert_eq!(cpus("abc", 2).unwrap(), "0");
        assert_eq!(cpus("1a", 2).unwrap(), "1");
        // An empty entry ends the list; `-1` splits into nothing and reads as CPU 0; `0-` is 0.
        assert_eq!(cpus("1,,0", 2).unwrap(), "1");
        assert_eq!(cpus("-1", 2).unwrap(), "0");
        assert_eq!(cpus("0-", 2).unwrap(), "0");
        // A backwards range adds nothing: an empty mask, which the run refuses (EINVAL).
        assert_eq!(cpus("1-0", 2).unwrap(), "");
        assert_eq!(cpus("5", 2).unwrap_err(), "CPU 5 too large (max=1)");
        assert_eq!(cpus("0-3", 2).unwrap_err(), "CPU 2 too large (max=1)");
        assert_eq!(cpus("9999", 2).unwrap_err(), "your OS only supports up to 1024 CPUs");
    }

    #[test]
    fn cpumask_bits() {
        assert_eq!(parse_cpumask(3, 2).unwrap().0.list(), "0-1");
        assert_eq!(parse_cpumask(0, 2).unwrap().0.list(), "");
        assert_eq!(parse_cpumask(4, 2).unwrap_err(), "CPU 2 too large (max=1)");
        assert_eq!(parse_cpumask(0x8000_0001, 64).unwrap().0.list(), "0,31");
    }

    #[test]
    fn split_takes_the_clones_cpu() {
        let (m, _) = parse_cpu_list("1,3,5", 8).unwrap();
        assert_eq!(split(&m, 0).unwrap().list(), "1");
        assert_eq!(split(&m, 2).unwrap().list(), "5");
        assert_eq!(split(&m, 4).unwrap().list(), "3");
        assert!(split(&CpuSet::new(), 0).is_none());
        let p = Placement { cpus: Some(m), cpus_split: true, gtod_cpu: Some(3), ..Placement::default() };
        assert_eq!(p.job_cpus(2).unwrap().unwrap().list(), "5");
        // gtod_cpu=0 leaves CPU 0 in, as fio's `if (o->gtod_cpu)`.
        let (m, _) = parse_cpu_list("0-1", 2).unwrap();
        let p = Placement { cpus: Some(m), gtod_cpu: Some(0), ..Placement::default() };
        assert_eq!(p.job_cpus(1).unwrap().unwrap().list(), "0-1");
        assert_eq!(Placement::default().job_cpus(1), Ok(None));
    }

    fn host(configured: usize, allowed: &str) -> NumaHost {
        NumaHost {
            configured,
            allowed: NodeSet::parse_list(allowed).unwrap(),
            node_cpus: (0..configured)
                .map(|n| CpuSet::parse_list(&format!("{}-{}", 2 * n, 2 * n + 1)).unwrap())
                .collect(),
        }
    }

    #[test]
    fn node_strings_read_as_libnuma_reads_them() {
        let one = host(1, "0");
        assert_eq!(parse_nodestring("0", &one).unwrap().list(), "0");
        assert_eq!(parse_nodestring("all", &one).unwrap().list(), "0");
        assert_eq!(parse_nodestring("+0", &one).unwrap().list(), "0");
        assert_eq!(parse_nodestring("!0", &one).unwrap().list(), "");
        assert_eq!(parse_nodestring("1", &one).unwrap_err(), "node argument 1 is out of range");
        assert_eq!(parse_nodestring("0-1", &one).unwrap_err(), "node argument 1 out of range");
        assert_eq!(parse_nodestring("abc", &one).unwrap_err(), "unparseable node description `abc'");
        assert_eq!(parse_nodestring("0-", &one).unwrap_err(), "missing node argument ");
        let four = host(4, "0-1,3");
        assert_eq!(parse_nodestring("0-3", &four).unwrap().list(), "0-1,3");
        assert_eq!(parse_nodestring("+2", &four).unwrap().list(), "3");
        assert_eq!(parse_nodestring("!1", &four).unwrap().list(), "0,2-3");
        assert_eq!(parse_nodestring("0x3", &four).unwrap().list(), "3");
        assert_eq!(parse_nodestring("2", &four).unwrap_err(), "node argument 2 is out of range");
        assert_eq!(parse_nodestring("1;", &four).unwrap_err(), "unparseable node description `;'");
        assert_eq!(four.cpus_of(&parse_nodestring("1,3", &four).unwrap()).list(), "2-3,6-7");
    }

    #[test]
    fn memory_policies_read_as_fio_reads_them() {
        let one = host(1, "0");
        let p = |s: &str| parse_mem_policy(s).and_then(|spec| spec.resolve(&one));
        assert_eq!(p("local"), Ok(MemPolicy::Local));
        assert_eq!(p("default"), Ok(MemPolicy::Default));
        assert_eq!(p("prefer:0"), Ok(MemPolicy::Prefer(0)));
        assert_eq!(p("interleave").unwrap(), MemPolicy::Interleave(one.allowed));
        assert_eq!(p("bind:0").unwrap(), MemPolicy::Bind(one.allowed));
        assert_eq!(p("interleave:!0").unwrap(), MemPolicy::Interleave(NodeSet::new()));
        assert_eq!(p("prefer").unwrap_err(), "one node is needed for 'prefer'");
        assert_eq!(p("prefer:0-1").unwrap_err(), "one node only for 'prefer'");
        assert_eq!(p("prefer:1").unwrap_err(), "node argument 1 is out of range");
        assert_eq!(p("bind").unwrap_err(), "a nodelist is needed for 'bind'");
        assert_eq!(p("bind:1").unwrap_err(), "node argument 1 is out of range");
        assert_eq!(p("local:0").unwrap_err(), "NO nodelist for 'local'");
        assert_eq!(p("default:1").unwrap_err(), "NO nodelist for 'local'");
        assert_eq!(p("foo").unwrap_err(), "memory policy should be: default, prefer, bind, interleave, local");
        // The syntax is checked as written, the nodes only against a machine.
        assert_eq!(parse_mem_policy("bind:7"), Ok(MemPolicySpec::Bind("7".into())));
    }

    #[test]
    fn resolving_reads_the_lists_against_the_machine() {
        let one = host(1, "0");
        let mut p = Placement {
            cpus_spec: Some(CpusSpec::List("1".into())),
            numa_cpu_nodes_spec: Some("0".into()),
            numa_mem_policy_spec: Some(MemPolicySpec::Interleave(None)),
            ..Placement::default()
        };
        assert_eq!(p.resolve(2, &one), Ok(()));
        assert_eq!(p.cpus.unwrap().list(), "1");
        assert_eq!(p.numa_cpu_nodes.unwrap().list(), "0");
        assert_eq!(p.numa_mem_policy, Some(MemPolicy::Interleave(one.allowed)));
        assert_eq!(p.resolve(1, &one), Err(("cpus_allowed", "CPU 1 too large (max=0)".into())));
        p.cpus_spec = Some(CpusSpec::Mask(2));
        assert_eq!(p.resolve(1, &one), Err(("cpumask", "CPU 1 too large (max=0)".into())));
        p.cpus_spec = None;
        p.other_cpu_lists = vec![("log_compression_cpus", "3".into())];
        assert_eq!(p.resolve(2, &one), Err(("log_compression_cpus", "CPU 3 too large (max=1)".into())));
    }

    #[test]
    fn kernel_lists_round_trip() {
        for s in ["0", "0-1", "0-3,6,8-9", ""] {
            assert_eq!(Bits1024::parse_list(s).unwrap().list(), s);
        }
        assert!(Bits1024::parse_list("x").is_none());
    }

    #[test]
    fn this_machine_has_a_node() {
        let h = NumaHost::get();
        assert!(h.configured >= 1 && !h.allowed.is_empty(), "{h:?}");
    }
}
