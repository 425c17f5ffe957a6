//! zonekit-blk: zonekit's block layer.
//!
//! Requests and completions, the I/O engines that carry them out (psync / sync, io_uring, libaio
//! (served by io_uring), null), aligned buffers, opening and laying out job files, and the clock.

pub mod engine;

pub use engine::{Completion, Ddir, Engine, EngineConfig, EngineError, Io, Queued};
