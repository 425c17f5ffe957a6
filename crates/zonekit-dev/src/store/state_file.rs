//! `zones.state`: what a persistent device's zone files cannot say, one line per fact.
//!
//! ```text
//! boot 5d1c0f3e-8a0b-4c43-9e55-0d0c4a8b7f21   the boot of the session that wrote the file
//! full 4                                      a finished zone (full, the file possibly shorter)
//! read_only 6                                 fault injection
//! offline 7
//! synced 3 16384                              bytes of zone 3's file made durable by a flush
//! fail_next_write 5                           fault injection: zone 5's next write fails
//! imp_open 9                                  } the clean-close section: every open or closed
//! imp_open 2                                  } zone (implicitly open ones oldest first), the
//! exp_open 8                                  } eviction state, then the marker; written when
//! closed 3                                    } the device is closed cleanly, dropped when it is
//! cursor 5                                    } opened for writing
//! stale_closed 1                              }
//! clean                                       }
//! ```
//!
//! Rare conditions (`full`, `read_only`, `offline`) and synced lengths are in zone order. The
//! clean-close section is trusted only if its `boot` is the running one: a device that stays
//! powered keeps its open zones, one that lost power does not. A `boot` other than the running
//! one also says the machine restarted while the device was open or since: its zone files may
//! hold any part of what was not flushed, and are cut back to their synced lengths. The file is
//! always replaced atomically.

use std::collections::{BTreeMap, BTreeSet};
use zonekit_core::{EvictionState, Geometry, ZoneCond};

/// Name of the state file.
pub const STATE_FILE: &str = "zones.state";

/// A zone condition that file sizes cannot express, recorded in `zones.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RareCond {
    /// Finished: full with the write pointer at the zone end, the file possibly shorter.
    Full,
    /// Read-only (fault injection).
    ReadOnly,
    /// Offline (fault injection).
    Offline,
}

impl RareCond {
    /// The word used in `zones.state` (the zone condition's long name).
    pub fn name(self) -> &'static str {
        self.cond().long_name()
    }

    /// The zone condition.
    pub fn cond(self) -> ZoneCond {
        match self {
            RareCond::Full => ZoneCond::Full,
            RareCond::ReadOnly => ZoneCond::ReadOnly,
            RareCond::Offline => ZoneCond::Offline,
        }
    }

    fn from_name(s: &str) -> Option<RareCond> {
        [RareCond::Full, RareCond::ReadOnly, RareCond::Offline].into_iter().find(|c| c.name() == s)
    }
}

/// What a clean close records: the conditions that a reopen could not derive from the zone files
/// (every open and closed zone) and the eviction state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CleanClose {
    /// Every implicitly open, explicitly open and closed zone.
    pub active: BTreeMap<u32, ZoneCond>,
    /// The order of the implicitly open zones, the round-robin cursor, the stale closed count.
    pub eviction: EvictionState,
}

/// The content of `zones.state`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ZoneStates {
    /// The boot (`/proc/sys/kernel/random/boot_id`) of the session that wrote the file; absent in
    /// a file written before zonekit recorded it.
    pub boot_id: Option<String>,
    /// Finished, read-only and offline zones.
    pub rare: BTreeMap<u32, RareCond>,
    /// For sequential zones outside `rare`: how many bytes at the start of the zone's file a flush
    /// made durable (a lower bound; a reset makes it stale until the zone is written again).
    pub synced: BTreeMap<u32, u64>,
    /// Present after a clean close, until the next writable open.
    pub clean: Option<CleanClose>,
    /// Sequential zones whose next write fails (fault injection), until that write.
    pub fail_next_write: BTreeSet<u32>,
}

impl ZoneStates {
    /// The file's text: `boot`, the rare conditions in zone order, the synced lengths, the
    /// injected write faults, then the clean-close section.
    pub fn format(&self) -> String {
        let mut s = String::new();
        if let Some(b) = &self.boot_id {
            s += &format!("boot {b}\n");
        }
        for (z, c) in &self.rare {
            s += &format!("{} {z}\n", c.name());
        }
        for (z, len) in &self.synced {
            s += &format!("synced {z} {len}\n");
        }
        for z in &self.fail_next_write {
            s += &format!("fail_next_write {z}\n");
        }
        if let Some(clean) = &self.clean {
            for z in &clean.eviction.imp_open_order {
                s += &format!("imp_open {z}\n");
            }
            for (z, c) in &clean.active {
                if *c != ZoneCond::ImplicitOpen {
                    s += &format!("{} {z}\n", c.long_name());
                }
            }
            s += &format!("cursor {}\n", clean.eviction.rr_cursor);
            if clean.eviction.stale_closed > 0 {
                s += &format!("stale_closed {}\n", clean.eviction.stale_closed);
            }
            s += "clean\n";
        }
        s
    }

    /// Parse the file: every line one of the forms above, each zone a sequential zone named once
    /// (`synced` excepted, which may name an open or closed zone too),
    /// `boot`, `cursor`, `stale_closed` and `clean` at most once, and the open and closed zones,
    /// `cursor` and `stale_closed` only with `clean`.
    pub fn parse(geometry: &Geometry, data: &[u8]) -> Result<ZoneStates, String> {
        let text = std::str::from_utf8(data).map_err(|_| "not UTF-8 text".to_string())?;
        let mut states = ZoneStates::default();
        let mut clean = CleanClose::default();
        let (mut marker, mut cursor, mut stale) = (false, None, None);
        let mut listed = BTreeMap::new();
        let mut first_clean_line = None;
        for (n, line) in text.lines().enumerate() {
            let at = |why: String| format!("line {}: {why}", n + 1);
            let mut words = line.split(' ');
            let (word, arg, bytes) = match (words.next(), words.next(), words.next(), words.next()) {
                (Some("clean"), None, None, None) => ("clean", "", None),
                (Some("synced"), Some(a), Some(b), None) => ("synced", a, Some(b)),
                (Some(w), Some(a), None, None) if !matches!(w, "clean" | "synced") && !a.is_empty() => (w, a, None),
                _ => {
                    return Err(at(format!(
                        "'{line}' is not `CONDITION ZONE`, `synced ZONE BYTES`, `fail_next_write ZONE`, `boot ID`, `cursor ZONE` or `clean`"
                    )));
                }
            };
            let once = |seen: bool, what: &str| if seen { Err(at(format!("`{what}` is given twice"))) } else { Ok(()) };
            let number = || {
                arg.parse::<u32>()
                    .ok()
                    .filter(|_| arg.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(|| at(format!("'{arg}' is not a zone number")))
            };
            let zone = || {
                let idx = number()?;
                if idx >= geometry.nr_zones {
                    return Err(at(format!("zone {idx} is past the last zone ({} zones)", geometry.nr_zones)));
                }
                if geometry.is_conventional(idx) {
                    return Err(at(format!("zone {idx} is conventional")));
                }
                Ok(idx)
            };
            let cond = RareCond::from_name(word).map(RareCond::cond).or(match word {
                "imp_open" => Some(ZoneCond::ImplicitOpen),
                "exp_open" => Some(ZoneCond::ExplicitOpen),
                "closed" => Some(ZoneCond::Closed),
                _ => None,
            });
            match (word, cond) {
                ("synced", _) => {
                    let idx = zone()?;
                    let bytes = bytes.unwrap_or_default();
                    let room = geometry.zone_cap(idx) * 512;
                    let len = bytes
                        .parse::<u64>()
                        .ok()
                        .filter(|&n| bytes.bytes().all(|b| b.is_ascii_digit()) && n <= room)
                        .filter(|n| n.is_multiple_of(u64::from(geometry.logical_block_size)))
                        .ok_or_else(|| {
                            at(format!("'{bytes}' is not a length of whole blocks within the zone capacity"))
                        })?;
                    if states.synced.insert(idx, len).is_some() || states.rare.contains_key(&idx) {
                        return Err(at(format!("zone {idx} is listed twice")));
                    }
                }
                ("fail_next_write", _) => {
                    let idx = zone()?;
                    if !states.fail_next_write.insert(idx) {
                        return Err(at(format!("zone {idx} is listed twice")));
                    }
                }
                ("boot", _) => {
                    once(states.boot_id.is_some(), "boot")?;
                    states.boot_id = Some(arg.to_string());
                }
                ("clean", _) => {
                    once(marker, "clean")?;
                    marker = true;
                }
                ("cursor", _) => {
                    once(cursor.is_some(), "cursor")?;
                    cursor = Some(zone()?);
                    first_clean_line.get_or_insert(n + 1);
                }
                ("stale_closed", _) => {
                    once(stale.is_some(), "stale_closed")?;
                    stale = Some(number().map_err(|_| at(format!("'{arg}' is not a count")))?);
                    first_clean_line.get_or_insert(n + 1);
                }
                (_, Some(c)) => {
                    let idx = zone()?;
                    if listed.insert(idx, c).is_some() {
                        return Err(at(format!("zone {idx} is listed twice")));
                    }
                    match RareCond::from_name(word) {
                        Some(_) if states.synced.contains_key(&idx) => {
                            return Err(at(format!("zone {idx} is listed twice")));
                        }
                        Some(r) => {
                            states.rare.insert(idx, r);
                        }
                        None => {
                            first_clean_line.get_or_insert(n + 1);
                            clean.active.insert(idx, c);
                            if c == ZoneCond::ImplicitOpen {
                                clean.eviction.imp_open_order.push(idx);
                            }
                        }
                    }
                }
                _ => {
                    return Err(at(format!(
                        "unknown condition '{word}' (expected full, read_only, offline, imp_open, exp_open or closed)"
                    )));
                }
            }
        }
        if marker {
            let Some(rr_cursor) = cursor else {
                return Err("the clean-close section has no `cursor`".into());
            };
            clean.eviction.rr_cursor = rr_cursor;
            clean.eviction.stale_closed = stale.unwrap_or(0);
            states.clean = Some(clean);
        } else if let Some(line) = first_clean_line {
            return Err(format!("line {line}: open or closed zones listed without the `clean` marker"));
        }
        Ok(states)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry::with_zones(64, 8, 64, 2, 512).unwrap()
    }

    #[test]
    fn zone_states_round_trip_and_errors() {
        let g = geo();
        let mut states = ZoneStates {
            boot_id: Some("b0".into()),
            rare: BTreeMap::from([(2, RareCond::Full), (5, RareCond::ReadOnly), (7, RareCond::Offline)]),
            synced: BTreeMap::from([(3, 4096)]),
            clean: None,
            fail_next_write: BTreeSet::from([4, 6]),
        };
        let text = states.format();
        assert_eq!(
            text,
            "boot b0\nfull 2\nread_only 5\noffline 7\nsynced 3 4096\nfail_next_write 4\nfail_next_write 6\n"
        );
        assert_eq!(ZoneStates::parse(&g, text.as_bytes()), Ok(states.clone()));
        states.clean = Some(CleanClose {
            active: BTreeMap::from([(3, ZoneCond::ImplicitOpen), (4, ZoneCond::Closed), (6, ZoneCond::ImplicitOpen)]),
            eviction: EvictionState { imp_open_order: vec![6, 3], rr_cursor: 4, stale_closed: 1 },
        });
        let text = states.format();
        assert_eq!(
            text,
            "boot b0\nfull 2\nread_only 5\noffline 7\nsynced 3 4096\nfail_next_write 4\nfail_next_write 6\nimp_open 6\nimp_open 3\nclosed 4\ncursor 4\nstale_closed 1\nclean\n"
        );
        assert_eq!(ZoneStates::parse(&g, text.as_bytes()), Ok(states));
        assert_eq!(ZoneStates::parse(&g, b""), Ok(ZoneStates::default()));
        for (bad, why) in [
            ("full 2\n\n", "line 2"),
            ("full  2\n", "is not `CONDITION ZONE`"),
            ("empty 3\n", "unknown condition 'empty'"),
            ("full x\n", "'x' is not a zone number"),
            ("full +3\n", "'+3' is not a zone number"),
            ("full 8\n", "past the last zone"),
            ("offline 1\n", "zone 1 is conventional"),
            ("fail_next_write 1\n", "zone 1 is conventional"),
            ("fail_next_write 3\nfail_next_write 3\n", "line 2: zone 3 is listed twice"),
            ("full 3\nread_only 3\n", "line 2: zone 3 is listed twice"),
            ("full 3\nclosed 3\ncursor 2\nclean\n", "line 2: zone 3 is listed twice"),
            ("full 4\nclosed 3\n", "line 2: open or closed zones listed without the `clean` marker"),
            ("cursor 3\n", "line 1: open or closed zones listed without"),
            ("closed 3\nclean\n", "no `cursor`"),
            ("cursor 2\ncursor 3\nclean\n", "line 2: `cursor` is given twice"),
            ("boot a\nboot b\n", "line 2: `boot` is given twice"),
            ("boot \n", "line 1: 'boot ' is not"),
            ("clean 3\n", "line 1: 'clean 3' is not"),
            ("cursor 2\nstale_closed x\nclean\n", "'x' is not a count"),
            ("synced 3\n", "is not `CONDITION ZONE`"),
            ("synced 3 100\n", "'100' is not a length of whole blocks"),
            ("synced 3 33280\n", "'33280' is not a length of whole blocks within the zone capacity"),
            ("synced 1 512\n", "zone 1 is conventional"),
            ("full 3\nsynced 3 512\n", "line 2: zone 3 is listed twice"),
            ("synced 3 512\nfull 3\n", "line 2: zone 3 is listed twice"),
        ] {
            let e = ZoneStates::parse(&g, bad.as_bytes()).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }
}
