//! zonekit-bench: the fio-compatible benchmark behind `zonekit bench`.

pub mod cli;
pub mod cmdline;
pub mod debug;
pub mod error;
pub mod job;
pub mod jobfile;
pub mod options;
pub mod output;
pub mod profile;
pub mod rng;
pub mod run;
pub mod stats;
pub mod sys;
pub mod target;
pub mod verify;
pub mod workload;
pub mod zbd;
