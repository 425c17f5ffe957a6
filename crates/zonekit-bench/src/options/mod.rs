//! fio's options: one declarative table (`table`) drives parsing, validation messages,
//! `--cmdhelp`, the JSON "job options" echo and `docs/bench-options.md`; `job` holds the typed
//! result.

pub mod job;

pub use job::JobOptions;
