//! fio's `zonemode=zbd` (`zbd.c`): the zone state jobs share ([`ZbdFile`]), the policy that
//! places each job's I/O in it ([`ZoneJob`]), and the setup that checks and builds them as fio 3.33
//! does ([`setup`]).

mod policy;
pub mod setup;
mod state;

pub use policy::{Decision, JobIo, ZoneIo, ZoneJob};
pub use setup::{SetupError, ZbdJob, ZbdRun, ZbdTarget, ZoneSource};
pub use state::{MAX_OPEN_ZONES, Model, ZbdFile, ZoneInit};

/// What fio's `td_verror` records for an error of its `zbd.c` (`file:zbd.c:LINE, func=WHAT`, the
/// line numbers of fio 3.33's source), so that the job's error line reads as fio's.
pub(crate) fn verror(func: &str) -> String {
    const LINES: &[(&str, u32)] = &[
        ("get zoned model failed", 164),
        ("report zones failed", 198),
        ("Empty zone report", 202),
        ("resetting wp failed", 231),
        ("get max open zones failed", 389),
        ("Specified --max_open_zones is too large", 872),
        ("'max_open_zones' value is too large", 882),
        ("Unsupported zoned model", 923),
        ("zbd_create_zone_info() failed", 985),
        ("I/O buflen exceeds zone size", 1937),
        ("ZCAP is less min_bs", 1977),
        ("invalid WP value", 1988),
        ("zone remainder too small", 2011),
    ];
    match LINES.iter().find(|(f, _)| *f == func) {
        Some((_, line)) => format!("file:zbd.c:{line}, func={func}"),
        None => format!("func={func}"),
    }
}
