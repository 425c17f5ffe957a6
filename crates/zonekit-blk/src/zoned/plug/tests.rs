use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// 8 zones of 64 sectors (capacity 48), zone 0 conventional.
fn cfg(qd1: bool, native_append: bool, recovery: Recovery) -> PlugConfig {
    PlugConfig {
        geometry: Geometry::with_zones(64, 8, 48, 1, 512).unwrap(),
        max_sectors: 16,
        qd1,
        native_append,
        recovery,
        pop_when_run: false,
    }
}

fn bio(id: u64, sector: u64, sectors: u64) -> Bio {
    Bio { id, sector, sectors, append: false }
}

fn dispatched(ev: &[Event]) -> Vec<Request> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Dispatch(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn failed(ev: &[Event]) -> Vec<(u64, FailReason)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Fail(b, why) => Some((b.id, *why)),
            _ => None,
        })
        .collect()
}

#[test]
fn one_write_in_flight_per_zone_and_plugged_writes_merge() {
    let mut p = Plugs::new(cfg(false, true, Recovery::Resync));
    let mut ev = Vec::new();
    p.submit(bio(1, 64, 4), &mut ev);
    assert_eq!(dispatched(&ev).len(), 1, "the first write goes at once");
    ev.clear();
    for (i, s) in [68, 72, 76, 80, 84].iter().enumerate() {
        p.submit(bio(2 + i as u64, *s, 4), &mut ev);
    }
    // A write to another zone is independent.
    p.submit(bio(9, 128, 8), &mut ev);
    let d = dispatched(&ev);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].zone, 2);
    assert_eq!(p.waiting(), 5);
    ev.clear();
    p.complete(1, true, &mut ev);
    let d = dispatched(&ev);
    // 68..84 merged up to max_sectors (16): 68, 72, 76, 80.
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].sector, d[0].sectors), (68, 16));
    assert_eq!(d[0].bios().iter().map(|b| b.id).collect::<Vec<_>>(), [2, 3, 4, 5]);
    ev.clear();
    p.complete(1, true, &mut ev);
    assert_eq!(dispatched(&ev)[0].bios().iter().map(|b| b.id).collect::<Vec<_>>(), [6]);
    ev.clear();
    p.complete(1, true, &mut ev);
    assert!(ev.is_empty());
    assert_eq!(p.wp_offset(1), Some(24), "the partially written zone keeps its plug");
}

#[test]
fn checks_against_the_cached_write_pointer() {
    let mut p = Plugs::new(cfg(false, true, Recovery::Resync));
    let mut ev = Vec::new();
    p.submit(bio(1, 64, 8), &mut ev);
    p.submit(bio(2, 64, 8), &mut ev); // waits; it will not line up
    ev.clear();
    p.complete(1, true, &mut ev);
    assert_eq!(failed(&ev), [(2, FailReason::Unaligned)]);
    assert!(ev.contains(&Event::Resync(1)));
    // The zone fills up to its capacity (48): then writes fail as to a full zone.
    let mut p = Plugs::new(cfg(false, true, Recovery::Resync));
    ev.clear();
    p.submit(bio(1, 64, 16), &mut ev);
    p.complete(1, true, &mut ev);
    p.submit(bio(2, 80, 16), &mut ev);
    p.complete(1, true, &mut ev);
    p.submit(bio(3, 96, 16), &mut ev);
    p.complete(1, true, &mut ev);
    assert_eq!(p.wp_offset(1), None, "a full zone has no plug");
    ev.clear();
    // No plug: a new one starts at the write's offset and the device decides.
    p.submit(bio(4, 112, 8), &mut ev);
    assert_eq!(failed(&ev), [(4, FailReason::ZoneFull)], "112 is at the capacity");
    ev.clear();
    p.submit(bio(5, 64, 8), &mut ev);
    assert_eq!(dispatched(&ev).len(), 1, "a write at the start of a full zone reaches the device");
}

#[test]
fn conventional_zones_and_appends() {
    let mut p = Plugs::new(cfg(false, false, Recovery::Resync));
    let mut ev = Vec::new();
    p.submit(bio(1, 8, 8), &mut ev);
    assert_eq!(ev, [Event::Direct(bio(1, 8, 8))]);
    ev.clear();
    p.submit(Bio { id: 2, sector: 0, sectors: 8, append: true }, &mut ev);
    assert_eq!(failed(&ev), [(2, FailReason::AppendConventional)]);
    ev.clear();
    // Emulated appends land at the cached write pointer, one after the other.
    for id in 3..6 {
        p.submit(Bio { id, sector: 64, sectors: 4, append: true }, &mut ev);
    }
    let mut sectors = Vec::new();
    loop {
        let d = dispatched(&ev);
        ev.clear();
        let Some(r) = d.first() else { break };
        assert_eq!(r.bios().len(), 1, "appends are not merged");
        sectors.push(r.sector);
        p.complete(r.zone, true, &mut ev);
    }
    assert_eq!(sectors, [64, 68, 72]);
    ev.clear();
    p.submit(bio(9, 64 + 32, 4), &mut ev);
    assert_eq!(failed(&ev), [(9, FailReason::Unaligned)]);
}

#[test]
fn native_append_aborts_plugged_writes() {
    let mut p = Plugs::new(cfg(false, true, Recovery::Resync));
    let mut ev = Vec::new();
    p.submit(bio(1, 64, 8), &mut ev);
    p.submit(bio(2, 72, 8), &mut ev);
    ev.clear();
    p.submit(Bio { id: 3, sector: 64, sectors: 8, append: true }, &mut ev);
    assert_eq!(failed(&ev), [(2, FailReason::Aborted)]);
    assert!(matches!(ev.last(), Some(Event::Direct(b)) if b.id == 3));
}

#[test]
fn reset_and_finish_abort_and_drop_plugs() {
    let mut p = Plugs::new(cfg(false, true, Recovery::Resync));
    let mut ev = Vec::new();
    p.submit(bio(1, 64, 8), &mut ev);
    p.submit(bio(2, 72, 8), &mut ev);
    ev.clear();
    p.reset(1, &mut ev);
    assert_eq!(failed(&ev), [(2, FailReason::Aborted)]);
    ev.clear();
    p.complete(1, false, &mut ev);
    assert_eq!(ev, [Event::Resync(1)], "the write in flight fails on the reset zone");
    assert_eq!(p.len(), 0, "an empty zone has no plug");
    ev.clear();
    p.submit(bio(3, 128, 8), &mut ev);
    p.complete(2, true, &mut ev);
    p.finish(2, &mut ev);
    assert_eq!(p.len(), 0, "a finished zone has no plug");
}

fn zone(idx: u64, wp_off: u64) -> Zone {
    let start = idx * 64;
    let cond = if wp_off == 0 { ZoneCond::Empty } else { ZoneCond::ImplicitOpen };
    Zone {
        start,
        len: 64,
        capacity: 48,
        wp: start + wp_off,
        cond,
        zone_type: zonekit_core::ZoneType::SeqWriteRequired,
        non_seq: false,
        reset: false,
    }
}

#[test]
fn revalidate_makes_plugs_for_partially_written_zones() {
    let mut p = Plugs::new(cfg(false, true, Recovery::Resync));
    p.revalidate(&[zone(1, 0), zone(2, 16), zone(3, 48)]);
    assert_eq!((p.wp_offset(1), p.wp_offset(2), p.wp_offset(3)), (None, Some(16), None));
    let mut ev = Vec::new();
    p.submit(bio(1, 128, 8), &mut ev);
    assert_eq!(failed(&ev), [(1, FailReason::Unaligned)], "the block layer knows the write pointer");
}

#[test]
fn need_wp_update_fails_writes_until_a_report() {
    let mut p = Plugs::new(cfg(false, true, Recovery::NeedWpUpdate));
    let mut ev = Vec::new();
    p.submit(bio(1, 64, 8), &mut ev);
    p.submit(bio(2, 72, 8), &mut ev);
    ev.clear();
    p.complete(1, false, &mut ev);
    assert_eq!(failed(&ev), [(2, FailReason::Aborted)]);
    ev.clear();
    p.submit(bio(3, 64, 8), &mut ev);
    assert_eq!(failed(&ev), [(3, FailReason::NeedWpUpdate)]);
    ev.clear();
    p.sync_wp(&zone(1, 0), &mut ev);
    p.submit(bio(4, 64, 8), &mut ev);
    assert_eq!(dispatched(&ev).len(), 1);
}

#[test]
fn qd1_drains_one_zone_before_the_next_in_fifo_order() {
    let mut p = Plugs::new(cfg(true, true, Recovery::Resync));
    let mut ev = Vec::new();
    // Zone 1 gets a write, then zone 2, then zone 1 again, then zone 3.
    p.submit(bio(1, 64, 16), &mut ev);
    p.submit(bio(2, 128, 16), &mut ev);
    p.submit(bio(3, 80, 16), &mut ev);
    p.submit(bio(4, 192, 16), &mut ev);
    let mut order = Vec::new();
    loop {
        let d = dispatched(&ev);
        ev.clear();
        assert!(d.len() <= 1, "one write in flight per device");
        let Some(r) = d.first() else { break };
        order.extend(r.bios().iter().map(|b| b.id));
        if r.bios()[0].id == 3 {
            // Arrives while zone 1 drains: it is drained with it.
            p.submit(bio(5, 96, 16), &mut ev);
            assert!(dispatched(&ev).is_empty());
        }
        p.complete(r.zone, true, &mut ev);
    }
    assert_eq!(order, [1, 3, 5, 2, 4]);
}

/// A device for the property tests: hardware rules (a write must be at the write pointer), and
/// requests at the device complete in any order the test picks.
struct Sim {
    plugs: Plugs,
    wp: BTreeMap<u32, u64>,
    at_device: Vec<Request>,
    /// Per zone: the writes' ids in the order the device got them.
    reached: BTreeMap<u32, Vec<u64>>,
    results: BTreeMap<u64, Result<u64, FailReason>>,
    max_in_flight_per_zone: usize,
    max_in_flight: usize,
    fail_next: bool,
}

impl Sim {
    fn new(cfg: PlugConfig) -> Sim {
        Sim {
            plugs: Plugs::new(cfg),
            wp: BTreeMap::new(),
            at_device: Vec::new(),
            reached: BTreeMap::new(),
            results: BTreeMap::new(),
            max_in_flight_per_zone: 0,
            max_in_flight: 0,
            fail_next: false,
        }
    }

    fn events(&mut self, ev: Vec<Event>) {
        let mut queue = ev;
        while !queue.is_empty() {
            let mut next = Vec::new();
            for e in queue {
                match e {
                    Event::Dispatch(r) => {
                        self.reached.entry(r.zone).or_default().extend(r.bios().iter().map(|b| b.id));
                        self.at_device.push(r);
                    }
                    Event::Direct(b) => {
                        self.results.insert(b.id, Ok(b.sector));
                    }
                    Event::Fail(b, why) => {
                        self.results.insert(b.id, Err(why));
                    }
                    Event::Resync(z) => {
                        let off = self.wp.get(&z).copied().unwrap_or(0);
                        self.plugs.sync_wp(&zone(u64::from(z), off), &mut next);
                    }
                    Event::Wake(who) => self.plugs.wake(who, &mut next),
                }
            }
            queue = next;
        }
        let mut per_zone: BTreeMap<u32, usize> = BTreeMap::new();
        for r in &self.at_device {
            *per_zone.entry(r.zone).or_default() += 1;
        }
        self.max_in_flight_per_zone = self.max_in_flight_per_zone.max(per_zone.values().copied().max().unwrap_or(0));
        self.max_in_flight = self.max_in_flight.max(self.at_device.len());
    }

    fn submit(&mut self, b: Bio) {
        let mut ev = Vec::new();
        self.plugs.submit(b, &mut ev);
        self.events(ev);
    }

    /// The device completes the `pick`-th request it holds.
    fn complete(&mut self, pick: usize) {
        if self.at_device.is_empty() {
            return;
        }
        let r = self.at_device.remove(pick % self.at_device.len());
        let wp = self.wp.entry(r.zone).or_insert(0);
        let ok =
            !std::mem::take(&mut self.fail_next) && r.sector == u64::from(r.zone) * 64 + *wp && *wp + r.sectors <= 48;
        if ok {
            *wp += r.sectors;
        }
        for b in r.bios() {
            self.results.insert(b.id, if ok { Ok(b.sector) } else { Err(FailReason::Aborted) });
        }
        let mut ev = Vec::new();
        self.plugs.complete(r.zone, ok, &mut ev);
        self.events(ev);
    }

    fn drain(&mut self) {
        while !self.at_device.is_empty() {
            self.complete(0);
        }
    }
}

#[derive(Debug, Clone)]
enum Step {
    /// Submitter `s` writes its next block (submitters write zones 1 to 4, each to one zone in
    /// turn, keeping their own write pointer).
    Write(u8),
    Append(u8),
    /// The device completes one of its requests.
    Complete(usize),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            3 => (0u8..4).prop_map(Step::Write),
            1 => (0u8..4).prop_map(Step::Append),
            3 => (0usize..8).prop_map(Step::Complete),
        ],
        1..120,
    )
}

proptest! {
    /// Never two writes in flight to one zone (one per device with qd1), and the writes of a zone
    /// reach the device in the order they were submitted, under any interleaving of submitters
    /// and completions; emulated zone appends get strictly increasing sectors per zone.
    #[test]
    fn plugs_keep_zone_writes_in_order(
        steps in steps(), qd1 in any::<bool>(), native in any::<bool>(), late in any::<bool>(),
    ) {
        // `late`: the sender takes its writes when woken (here at once, through Event::Wake).
        let mut sim = Sim::new(PlugConfig { pop_when_run: late, ..cfg(qd1, native, Recovery::Resync) });
        let mut next_off: BTreeMap<u32, u64> = BTreeMap::new();
        let mut submitted: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        let mut appends: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        let mut id = 0;
        for s in steps {
            match s {
                Step::Write(z) | Step::Append(z) => {
                    let zone = u32::from(z) + 1;
                    let off = next_off.entry(zone).or_insert(0);
                    if *off + 4 > 48 {
                        continue;
                    }
                    id += 1;
                    let append = matches!(s, Step::Append(_));
                    // With native appends, the device orders them; keep the test to regular
                    // writes there.
                    let append = append && !native;
                    let sector = if append { u64::from(zone) * 64 } else { u64::from(zone) * 64 + *off };
                    *off += 4;
                    submitted.entry(zone).or_default().push(id);
                    if append {
                        appends.entry(zone).or_default().push(id);
                    }
                    sim.submit(Bio { id, sector, sectors: 4, append });
                }
                Step::Complete(pick) => sim.complete(pick),
            }
        }
        sim.drain();
        prop_assert!(sim.max_in_flight_per_zone <= 1);
        if qd1 {
            prop_assert!(sim.max_in_flight <= 1);
        }
        for (zone, ids) in &submitted {
            prop_assert_eq!(sim.reached.get(zone).cloned().unwrap_or_default(), ids.clone(), "zone {}", zone);
            for i in ids {
                prop_assert!(matches!(sim.results.get(i), Some(Ok(_))), "write {} of zone {}: {:?}", i, zone, sim.results.get(i));
            }
        }
        for ids in appends.values() {
            let sectors: Vec<u64> = ids.iter().map(|i| *sim.results[i].as_ref().unwrap()).collect();
            prop_assert!(sectors.windows(2).all(|w| w[0] < w[1]), "{:?}", sectors);
        }
        prop_assert_eq!(sim.plugs.waiting(), 0);
    }

    /// With 6.13's rule, after a write fails on the device every write to its zone fails until a
    /// report (or a reset or finish) tells the plug its write pointer again.
    #[test]
    fn after_a_write_error_writes_fail_until_the_zone_is_reported(
        before in 1usize..6, after in 1usize..6, qd1 in any::<bool>(), how in 0u8..3, late in any::<bool>(),
    ) {
        let mut sim = Sim::new(PlugConfig { pop_when_run: late, ..cfg(qd1, true, Recovery::NeedWpUpdate) });
        let mut id = 0;
        let mut off = 0;
        for _ in 0..before {
            id += 1;
            sim.submit(bio(id, 64 + off, 4));
            off += 4;
            sim.drain();
        }
        sim.fail_next = true;
        id += 1;
        sim.submit(bio(id, 64 + off, 4));
        sim.drain();
        prop_assert!(sim.results[&id].is_err());
        for _ in 0..after {
            id += 1;
            sim.submit(bio(id, 64 + off, 4));
            sim.drain();
            prop_assert_eq!(sim.results[&id], Err(FailReason::NeedWpUpdate));
        }
        let mut ev = Vec::new();
        let wp = match how {
            0 => { sim.plugs.sync_wp(&zone(1, off), &mut ev); off }
            1 => { sim.plugs.reset(1, &mut ev); sim.wp.insert(1, 0); 0 }
            _ => { sim.plugs.finish(1, &mut ev); sim.wp.insert(1, 48); 48 }
        };
        sim.events(ev);
        id += 1;
        sim.submit(bio(id, 64 + wp.min(44), 4));
        sim.drain();
        if how == 2 {
            prop_assert!(sim.results[&id].is_err(), "the zone is full");
        } else {
            prop_assert!(sim.results[&id].is_ok(), "{:?}", sim.results[&id]);
        }
    }
}

#[test]
fn the_plug_table_finds_plugs_by_zone_and_reuses_freed_places() {
    let mut t = PlugTable::default();
    assert!(t.get(3).is_none(), "nothing past the index");
    t.get_or_insert(3, 8).list.push_back(bio(1, 0, 1));
    t.get_or_insert(1, 16);
    assert_eq!(t.get_or_insert(3, 99).wp_offset, 8, "an existing plug is kept");
    assert_eq!((t.len(), t.get(1).map(|p| p.wp_offset), t.get(2).map(|p| p.wp_offset)), (2, Some(16), None));
    t.remove(3);
    assert!(t.get(3).is_none());
    let p = t.get_or_insert(5, 4);
    assert_eq!((p.wp_offset, p.list.len(), p.in_flight), (4, 0, 0), "a reused place starts afresh");
    let mut zones: Vec<u32> = t.iter().map(|(z, _)| z).collect();
    zones.sort_unstable();
    assert_eq!(zones, [1, 5]);
    assert_eq!(t.slab.len(), 2, "zone 5 took zone 3's place");
}
