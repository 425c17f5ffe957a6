//! zonekit-bench: the fio-compatible benchmark behind `zonekit bench`.

pub mod cmdline;
pub mod error;
pub mod job;
pub mod jobfile;
pub mod options;
pub mod output;
pub mod rng;
pub mod stats;
pub mod workload;
pub mod exec;
pub mod process;
pub mod plan;
