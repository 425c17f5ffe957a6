//! The parts of fio's JSON result (`--output-format=json` or `json+`) that the plots use: each
//! job's name, group, and per direction its bandwidth, IOPS and, with json+, its latency bins.

use crate::{PlotError, Result};
use serde_json::Value;

/// The three directions, as fio's JSON names them.
pub const DIRS: [&str; 3] = ["read", "write", "trim"];

/// One direction of one job.
#[derive(Debug, Clone, PartialEq)]
pub struct DirResult {
    /// 0 read, 1 write, 2 trim.
    pub ddir: u8,
    /// Mean bandwidth, bytes/s.
    pub bw_bytes: f64,
    /// Mean IOPS.
    pub iops: f64,
    /// json+ latency bins (`clat_ns.bins`, else `lat_ns.bins`): (ns, count), ascending; empty
    /// without json+.
    pub bins: Vec<(u64, u64)>,
    /// Which latency the bins count: `clat` or `lat`.
    pub bins_of: &'static str,
}

/// One job of the result.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResult {
    /// `jobname`.
    pub name: String,
    /// `groupid`.
    pub group: u64,
    /// The directions that did I/O.
    pub dirs: Vec<DirResult>,
}

/// A result file.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// The jobs (or groups, with `group_reporting`), in file order: job N's logs are `*.N.log`.
    pub jobs: Vec<JobResult>,
}

/// Parse fio's JSON; text before the first `{` and after the last `}` (a normal-format report,
/// warnings) is ignored, as fio's own tools do. `what` names the file in errors.
pub fn parse(what: &str, text: &str) -> Result<RunResult> {
    let bad = |why: String| PlotError::Input(format!("{what}: {why}"));
    let (Some(a), Some(b)) = (text.find('{'), text.rfind('}')) else {
        return Err(bad("no JSON object (run zonekit bench with --output-format=json or json+)".into()));
    };
    if b < a {
        return Err(bad("no JSON object".into()));
    }
    let v: Value = serde_json::from_str(&text[a..=b]).map_err(|e| bad(format!("not fio's JSON: {e}")))?;
    let Some(jobs) = v.get("jobs").and_then(Value::as_array) else {
        return Err(bad("no \"jobs\" array: not fio's JSON output".into()));
    };
    let mut out = Vec::new();
    for j in jobs {
        let name = j.get("jobname").and_then(Value::as_str).unwrap_or("?").to_string();
        let group = j.get("groupid").and_then(Value::as_u64).unwrap_or(0);
        let mut dirs = Vec::new();
        for (i, d) in DIRS.iter().enumerate() {
            let Some(o) = j.get(*d) else { continue };
            let f = |k: &str| o.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            if f("io_bytes") == 0.0 && f("total_ios") == 0.0 {
                continue;
            }
            let (bins, bins_of) = match bins_of(o.get("clat_ns")) {
                b if !b.is_empty() => (b, "clat"),
                _ => (bins_of(o.get("lat_ns")), "lat"),
            };
            dirs.push(DirResult { ddir: i as u8, bw_bytes: f("bw_bytes"), iops: f("iops"), bins, bins_of });
        }
        out.push(JobResult { name, group, dirs });
    }
    Ok(RunResult { jobs: out })
}

fn bins_of(v: Option<&Value>) -> Vec<(u64, u64)> {
    let Some(m) = v.and_then(|v| v.get("bins")).and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut b: Vec<(u64, u64)> =
        m.iter().filter_map(|(k, c)| Some((k.parse::<u64>().ok()?, c.as_u64()?))).filter(|&(_, c)| c > 0).collect();
    b.sort_unstable();
    b
}

/// Read a result file.
pub fn read(path: &std::path::Path) -> Result<RunResult> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| PlotError::Input(format!("{}: {}", path.display(), zonekit_core::io_text(&e))))?;
    parse(&path.display().to_string(), &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_dirs_and_bins() {
        let t = r#"note: something
{"jobs":[{"jobname":"seq","groupid":0,
  "read":{"io_bytes":0,"total_ios":0,"bw_bytes":0,"iops":0},
  "write":{"io_bytes":4096,"total_ios":1,"bw_bytes":1000,"iops":2.5,
           "clat_ns":{"bins":{"2000":3,"1000":1,"5000":0}}}}]}"#;
        let r = parse("r.json", t).unwrap();
        assert_eq!(r.jobs.len(), 1);
        assert_eq!(r.jobs[0].name, "seq");
        assert_eq!(r.jobs[0].dirs.len(), 1);
        let d = &r.jobs[0].dirs[0];
        assert_eq!((d.ddir, d.bw_bytes, d.iops), (1, 1000.0, 2.5));
        assert_eq!(d.bins, [(1000, 1), (2000, 3)]);
        assert_eq!(d.bins_of, "clat");
    }

    #[test]
    fn not_json_is_an_input_error() {
        assert!(matches!(parse("r", "hello"), Err(PlotError::Input(_))));
        assert!(matches!(parse("r", "{\"a\":1}"), Err(PlotError::Input(_))));
        assert!(matches!(parse("r", "} {"), Err(PlotError::Input(_))));
    }
}
