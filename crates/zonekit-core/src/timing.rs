//! Timing models: when a device completes the commands it is given.
//!
//! A model is pure (docs/architecture.md): it never reads a clock. It is told that a command
//! arrives at a time `t` (nanoseconds of whatever clock drives it: simulated, or real for pacing)
//! and says when commands complete. It keeps the state that timing depends on (the head's position
//! and angle of a disk, the busy-until times of a flash die, its own command queue and write
//! cache), not the zones' state: the device applies each command to its zones when it is submitted
//! and tells the model what the model needs to know (for instance how many sectors of a read lie
//! below the write pointers and need the media).
//!
//! Models are driven as discrete-event processes, so that a drive can reorder its queue (NCQ,
//! shortest access time first) with the commands it really has:
//! - [`TimingModel::submit`] at `t`: the model first runs its own events up to `t`, then queues the
//!   command. Submissions come in non-decreasing time order.
//! - [`TimingModel::next_event`]: the time of the model's next event (a completion, or an internal
//!   step such as the start of a command's service or a write-cache destage). No command completes
//!   before it unless a new command is submitted first.
//! - [`TimingModel::complete_until`] at `t`: runs the events up to `t` and hands back the commands
//!   that completed by then, in completion order.

use crate::state::ZoneOp;

/// What a command does, as a timing model sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandKind {
    /// Read `sectors` sectors at `sector`.
    Read,
    /// Write `sectors` sectors at `sector`.
    Write,
    /// Flush the volatile write cache (completes when everything written before it is on media).
    Flush,
    /// A zone management operation over `sectors` sectors (whole zones) from `sector`.
    ZoneMgmt(ZoneOp),
}

/// One command handed to a timing model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    /// The submitter's identifier, handed back in [`Done::id`]. Unique among outstanding commands.
    pub id: u64,
    /// What the command does.
    pub kind: CommandKind,
    /// First sector (512 bytes).
    pub sector: u64,
    /// Length in sectors (0 for a flush).
    pub sectors: u64,
    /// Sectors that need the media: all of a write; for a read, the sectors below the write
    /// pointers (or in conventional zones). The rest of a read is served without media access, as
    /// a drive returns fill data above a write pointer.
    pub media_sectors: u64,
    /// The command failed its zone checks: it completes after the command overhead only.
    pub failed: bool,
}

/// A completed command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    /// [`Command::id`].
    pub id: u64,
    /// Completion time (same clock as the submissions).
    pub at_ns: u64,
}

/// One parameter of a model, for `zonekit profiles --details` and `docs/models.md`.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Name (`rpm`, `rate_od_mb_s`…).
    pub name: &'static str,
    /// Value, as printed (with its unit).
    pub value: String,
    /// Where the value comes from.
    pub source: &'static str,
}

/// A drive's timing (see the module documentation for the contract).
pub trait TimingModel: Send + std::fmt::Debug {
    /// The model's name (`smr-hdd`, `zns-ssd`), as the report's `zonekit: simulated clock, model …`
    /// line shows it.
    fn name(&self) -> &str;

    /// Command `cmd` arrives at `t_ns`.
    fn submit(&mut self, t_ns: u64, cmd: Command);

    /// When the model's next event happens; `None` when it has nothing left to do.
    fn next_event(&self) -> Option<u64>;

    /// Run the model up to `t_ns` and append the commands completed by then to `out`, in
    /// completion order.
    fn complete_until(&mut self, t_ns: u64, out: &mut Vec<Done>);

    /// The parameters, each with its value and source.
    fn params(&self) -> Vec<Param>;
}
