//! Statistics as fio keeps them: the latency histogram, running min/max/mean/stdev, bandwidth and
//! IOPS samples per interval, latency buckets, I/O depth distributions, cpu usage, and the
//! per-job sample logs. The runner records events into a [`ThreadStats`]; [`ThreadStats::finish`]
//! gives the [`JobStats`] that `group_reporting` merges and the output module prints.

pub mod block;
pub mod hist;
pub mod iostat;
pub mod log;
pub mod prio;
mod thread;

pub use hist::{PercentileList, PlatHistogram};
pub use iostat::{IoStat, StatSummary};
pub use thread::*;
