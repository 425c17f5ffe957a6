//! zonekit-bench: the fio-compatible benchmark behind `zonekit bench`.

pub mod options;
pub mod rng;
pub mod workload;
