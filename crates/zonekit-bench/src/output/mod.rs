//! fio's output formats: the report types of a finished run and their printers (normal, JSON,
//! json+, terse), the header lines printed before a run, the live ETA line, and disk statistics
//! from `/sys/block`.

pub mod disk;
pub mod eta;
pub mod fio_json;
pub mod json;
pub mod json_out;
pub mod normal;
pub mod num;
pub mod report;
pub mod terse;

pub use report::{
    DdirReport, DiskAggReport, DiskUtilReport, GroupReport, IdleReport, JobInfo, JobReport, LatReport, OutputFormats,
    RunReport, SampleReport, SyncReport, version_string,
};

/// Everything fio prints after a run for `formats`, in fio's order whatever the order given:
/// terse lines, then the JSON document, then the normal report.
pub fn render(report: &RunReport, formats: OutputFormats) -> String {
    let mut out = String::new();
    if formats.terse {
        out.push_str(&terse::render(report));
    }
    if formats.json {
        out.push_str(&json_out::render(report, formats.json_plus));
    }
    if formats.normal {
        out.push_str(&normal::render(report));
    }
    out
}
