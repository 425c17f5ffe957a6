//! Open/active accounting and the resource check at the open and active limits, with the
//! eviction of an implicitly open zone that the personality's rules call for.

use super::{Rejection, ZoneTable};
use crate::error::{ZoneError, ZoneErrorKind};
use crate::personality::{EvictionPolicy, ResourceCheck};
use crate::zone::ZoneCond;

impl ZoneTable {
    /// Check the open/active limits for zone `idx` leaving `from` (empty or closed) towards an open
    /// state, as [`ResourceCheck`] says; returns the implicitly open zone to close first, if any.
    pub(super) fn check_resources(&self, idx: u32, from: ZoneCond, sector: u64) -> Result<Option<u32>, Rejection> {
        let err = |kind| ZoneError::new(kind, Some(idx), sector);
        let l = self.limits;
        let c = self.counters;
        let active_ok = l.max_active == 0 || c.active() < l.max_active;
        match self.rules.resource_check {
            ResourceCheck::ActiveThenOpen { evict_needs_active_room } => {
                // Empty zones need an active slot, then every zone an open slot.
                if from == ZoneCond::Empty && !active_ok {
                    return Err(err(ZoneErrorKind::ActiveLimit).into());
                }
                if l.max_open == 0 || c.open() < l.max_open {
                    return Ok(None);
                }
                // Room is made by closing an implicitly open zone unless every open zone is
                // explicit. null_blk also wants the active check to pass on the current counters,
                // even for a closed zone (for which the move is neutral).
                if c.imp_open > 0 && (active_ok || !evict_needs_active_room) {
                    return Ok(self.eviction_victim());
                }
                Err(err(ZoneErrorKind::OpenLimit).into())
            }
            ResourceCheck::CloseFirst => {
                let evict = if l.max_open != 0 && c.open() >= l.max_open { self.eviction_victim() } else { None };
                let open_after = c.open() - u32::from(evict.is_some());
                let act = u32::from(from == ZoneCond::Empty);
                if l.max_active != 0 && c.active() + act > l.max_active {
                    return Err(Rejection { error: err(ZoneErrorKind::ActiveLimit), evict });
                }
                if l.max_open != 0 && open_after + 1 > l.max_open {
                    return Err(Rejection { error: err(ZoneErrorKind::OpenLimit), evict });
                }
                Ok(evict)
            }
        }
    }

    /// The implicitly open zone the eviction policy closes next, if any is open.
    pub(super) fn eviction_victim(&self) -> Option<u32> {
        match self.rules.eviction {
            EvictionPolicy::RoundRobin => {
                self.imp_open.range(self.rr_cursor..).next().or_else(|| self.imp_open.iter().next()).copied()
            }
            EvictionPolicy::LowestNumbered => self.imp_open.iter().next().copied(),
            EvictionPolicy::Oldest => self.imp_open_order.values().next().copied(),
        }
    }

    /// The condition an open zone takes when closed: empty if nothing was written, unless the
    /// rules keep it closed ([`crate::ZoneRules::close_unwritten_to_empty`]).
    pub(super) fn closed_cond(&self, idx: u32, wp: u64) -> ZoneCond {
        if self.rules.close_unwritten_to_empty && wp == self.geometry.zone_start(idx) {
            ZoneCond::Empty
        } else {
            ZoneCond::Closed
        }
    }

    /// Close an implicitly open zone to make room; null_blk's cursor moves past it.
    pub(super) fn close_victim(&mut self, v: u32) {
        let cond = self.closed_cond(v, self.slots[v as usize].wp);
        self.set_cond(v, cond);
        if self.rules.eviction == EvictionPolicy::RoundRobin {
            let next = v + 1;
            self.rr_cursor = if next >= self.geometry.nr_zones { self.geometry.nr_conv_zones } else { next };
        }
    }

    /// Change a zone's condition, keeping the counters and the implicitly-open sets in step.
    pub(super) fn set_cond(&mut self, idx: u32, to: ZoneCond) {
        let from = self.slots[idx as usize].cond;
        if from == to {
            return;
        }
        self.leave_accounting(from, idx);
        match to {
            ZoneCond::ImplicitOpen => {
                self.counters.imp_open += 1;
                self.open_seq += 1;
                self.slots[idx as usize].opened_at = self.open_seq;
                self.imp_open.insert(idx);
                self.imp_open_order.insert(self.open_seq, idx);
            }
            ZoneCond::ExplicitOpen => self.counters.exp_open += 1,
            ZoneCond::Closed => self.counters.closed += 1,
            _ => {}
        }
        self.slots[idx as usize].cond = to;
    }

    fn leave_accounting(&mut self, from: ZoneCond, idx: u32) {
        match from {
            ZoneCond::ImplicitOpen => {
                self.counters.imp_open -= 1;
                self.imp_open.remove(&idx);
                self.imp_open_order.remove(&self.slots[idx as usize].opened_at);
            }
            ZoneCond::ExplicitOpen => self.counters.exp_open -= 1,
            ZoneCond::Closed => self.counters.closed -= 1,
            _ => {}
        }
    }
}
