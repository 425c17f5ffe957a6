//! fio's `zonemode=zbd` (`zbd.c`): the zone state jobs share ([`ZbdFile`]), the policy that
//! places each job's I/O in it ([`ZoneJob`]), and the setup that checks and builds them as fio 3.33
//! does ([`setup`]).

mod policy;
pub mod setup;
mod state;

pub use policy::{Decision, JobIo, ZoneIo, ZoneJob};
pub use setup::{SetupError, ZbdJob, ZbdRun, ZbdTarget, ZoneSource};
pub use state::{MAX_OPEN_ZONES, Model, ZbdFile, ZoneInit};
