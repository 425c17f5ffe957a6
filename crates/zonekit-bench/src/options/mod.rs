//! fio's options: one declarative table ([`table::OPTIONS`], engines in [`engines`]) drives
//! parsing, validation messages, `--cmdhelp`, the JSON "job options" echo and
//! `docs/bench-options.md`; [`job::JobOptions`] holds the typed result.

pub mod cmdprio;
pub mod docs;
pub mod engines;
pub mod job;
pub mod placement;
pub mod special;
pub mod table;
pub mod value;

pub use job::JobOptions;
pub use table::{Category, Kind, OptionDef, Support};
pub use value::Value;
