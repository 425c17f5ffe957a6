//! The kernel's view of a zoned device: queue limits ([`limits`]), reads and writes cut at the
//! device end and split at zone boundaries and the largest request ([`split`]), management ranges
//! issued zone by zone ([`mgmt`]), and [`BlockDevice`], which applies them to a device for
//! synchronous callers; zone write plugging and the single-context QD1 worker ([`plug`]).
//! `docs/blk.md` names the kernel function each rule follows.
//!
//! `limits`, `split` and `mgmt` are pure: plain data and functions, tested from text scripts
//! (`testdata/*.txt`).

pub mod device;
pub mod dispatch;
pub mod limits;
pub mod mgmt;
pub mod plug;
pub mod split;

pub use device::{BlkError, BlockDevice};
pub use limits::{AttrValue, LimitOverrides, LimitsError, QueueLimits, ZoneAppendMode};
pub use mgmt::{MgmtCommand, MgmtError, MgmtPlan};
pub use split::{Cut, Piece, SplitError};
