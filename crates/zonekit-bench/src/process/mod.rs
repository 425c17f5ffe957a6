//! Process facilities of the benchmark: terminating signals, thread ids, terminals.

pub mod sys;

pub use sys::{catch_terminating_signals, gettid, isatty, received};
