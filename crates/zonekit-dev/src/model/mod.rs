//! Timing models of drives (docs/architecture.md): an SMR hard disk ([`hdd`]) and a ZNS SSD
//! ([`zns`]), both implementing [`TimingModel`]. A [`ModelSpec`] is the plain-data description of a
//! model (its parameters) that a profile carries, a persistent device stores in its metadata, and
//! that [`ModelSpec::build`] turns into a fresh model instance. `docs/models.md` describes both
//! models and the source of every parameter.
//!
//! Parameters are integers in base units (nanoseconds, bytes, bytes per second, parts per million),
//! so that a spec is `Eq`, `Copy`, const-constructible and stored exactly.

pub mod hdd;
pub mod zns;

#[cfg(test)]
pub(crate) mod testkit;

pub use hdd::{HddModel, HddParams, Sched};
pub use zns::{ZnsModel, ZnsParams};

use std::collections::BTreeMap;
use zonekit_core::Geometry;
use zonekit_core::timing::{Param, TimingModel};

/// A drive's timing model and its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSpec {
    /// A host-managed SMR hard disk.
    Hdd(HddParams),
    /// An NVMe ZNS SSD.
    Zns(ZnsParams),
}

impl ModelSpec {
    /// A fresh model (the drive at rest, at time 0) for a device of geometry `geometry`.
    pub fn build(&self, geometry: &Geometry) -> Box<dyn TimingModel> {
        match self {
            ModelSpec::Hdd(p) => Box::new(HddModel::new(*p, geometry)),
            ModelSpec::Zns(p) => Box::new(ZnsModel::new(*p, geometry)),
        }
    }

    /// The model's name: `smr-hdd` or `zns-ssd`.
    pub fn name(&self) -> &'static str {
        match self {
            ModelSpec::Hdd(_) => hdd::NAME,
            ModelSpec::Zns(_) => zns::NAME,
        }
    }

    /// Every parameter with its value (and unit) and its source.
    pub fn params(&self) -> Vec<Param> {
        match self {
            ModelSpec::Hdd(p) => table_params(hdd::PARAMS, p, p.sources),
            ModelSpec::Zns(p) => table_params(zns::PARAMS, p, p.sources),
        }
    }

    /// The form kept in a device's metadata: the name and every parameter's raw value.
    pub fn to_stored(&self) -> StoredModel {
        let params = match self {
            ModelSpec::Hdd(p) => table_store(hdd::PARAMS, p),
            ModelSpec::Zns(p) => table_store(zns::PARAMS, p),
        };
        StoredModel { name: self.name().to_string(), params }
    }

    /// Rebuild from a device's metadata. Every parameter must be present, known and valid. The
    /// sources come from the built-in profile `profile` when its model has the same values (a
    /// device made from it), else each parameter's general source.
    pub fn from_stored(stored: &StoredModel, profile: Option<&str>) -> Result<ModelSpec, String> {
        let spec = match stored.name.as_str() {
            hdd::NAME => ModelSpec::Hdd(table_load(hdd::PARAMS, HddParams::EMPTY, &stored.params)?),
            zns::NAME => ModelSpec::Zns(table_load(zns::PARAMS, ZnsParams::EMPTY, &stored.params)?),
            other => return Err(format!("unknown timing model '{other}' (known: {}, {})", hdd::NAME, zns::NAME)),
        };
        spec.validate().map_err(|e| format!("timing model {}: {e}", spec.name()))?;
        let builtin = profile.and_then(crate::profiles::profile).and_then(|p| p.model);
        Ok(match (spec, builtin) {
            (ModelSpec::Hdd(p), Some(ModelSpec::Hdd(b))) if HddParams { sources: b.sources, ..p } == b => {
                ModelSpec::Hdd(b)
            }
            (ModelSpec::Zns(p), Some(ModelSpec::Zns(b))) if ZnsParams { sources: b.sources, ..p } == b => {
                ModelSpec::Zns(b)
            }
            _ => spec,
        })
    }

    /// Check that the parameters make a working model (no zero rates, sizes or depths).
    pub fn validate(&self) -> Result<(), String> {
        match self {
            ModelSpec::Hdd(p) => p.validate(),
            ModelSpec::Zns(p) => p.validate(),
        }
    }
}

/// A model as a device's metadata stores it: the name, and each parameter's raw value as a
/// string (integers in the unit the parameter's name ends with; `on`/`off`; `fifo`/`satf`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredModel {
    /// `smr-hdd` or `zns-ssd`.
    pub name: String,
    /// Parameter name to raw value.
    pub params: BTreeMap<String, String>,
}

/// How a parameter's raw value reads.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Unit {
    /// Nanoseconds.
    Ns,
    /// Bytes per second (shown in MB/s, 10^6).
    BytesPerSec,
    /// Bytes (shown in KiB or MiB).
    Bytes,
    /// A plain count, with a unit word.
    Count(&'static str),
    /// Parts per million of something (shown as a fraction, with a unit word).
    Ppm(&'static str),
    /// 0 = off, 1 = on.
    OnOff,
    /// A [`Sched`] (0 = fifo, 1 = satf).
    Sched,
}

/// One parameter of a model's table: name (with its unit), how to read it, its general source,
/// and how to get and set it.
pub(crate) struct ParamDef<P> {
    pub name: &'static str,
    pub unit: Unit,
    pub source: &'static str,
    pub get: fn(&P) -> u64,
    pub set: fn(&mut P, u64),
}

fn trim(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

/// A raw value as `zonekit profiles --details` shows it.
pub(crate) fn show(unit: Unit, v: u64) -> String {
    match unit {
        Unit::Ns if v >= 1_000_000_000 => format!("{} s", trim(v as f64 / 1e9, 3)),
        Unit::Ns if v >= 1_000_000 => format!("{} ms", trim(v as f64 / 1e6, 3)),
        Unit::Ns if v >= 1_000 => format!("{} µs", trim(v as f64 / 1e3, 3)),
        Unit::Ns => format!("{v} ns"),
        Unit::BytesPerSec => format!("{} MB/s", trim(v as f64 / 1e6, 2)),
        Unit::Bytes if v >= 1 << 20 && v.is_multiple_of(1 << 20) => format!("{} MiB", v >> 20),
        Unit::Bytes if v >= 1 << 10 && v.is_multiple_of(1 << 10) => format!("{} KiB", v >> 10),
        Unit::Bytes => format!("{v} bytes"),
        Unit::Count(w) => format!("{v} {w}"),
        Unit::Ppm(w) => format!("{} {w}", trim(v as f64 / 1e6, 6)),
        Unit::OnOff => (if v != 0 { "on" } else { "off" }).to_string(),
        Unit::Sched => Sched::from_raw(v).name().to_string(),
    }
}

fn store(unit: Unit, v: u64) -> String {
    match unit {
        Unit::OnOff | Unit::Sched => show(unit, v),
        _ => v.to_string(),
    }
}

fn parse(unit: Unit, s: &str) -> Option<u64> {
    match unit {
        Unit::OnOff => match s {
            "on" => Some(1),
            "off" => Some(0),
            _ => None,
        },
        Unit::Sched => Sched::parse(s).map(|x| x as u64),
        _ => s.parse().ok(),
    }
}

fn table_params<P>(defs: &[ParamDef<P>], p: &P, overrides: &[(&'static str, &'static str)]) -> Vec<Param> {
    defs.iter()
        .map(|d| Param {
            name: d.name,
            value: show(d.unit, (d.get)(p)),
            source: overrides.iter().find(|(n, _)| *n == d.name).map_or(d.source, |(_, s)| s),
        })
        .collect()
}

fn table_store<P>(defs: &[ParamDef<P>], p: &P) -> BTreeMap<String, String> {
    defs.iter().map(|d| (d.name.to_string(), store(d.unit, (d.get)(p)))).collect()
}

fn table_load<P>(defs: &[ParamDef<P>], mut p: P, stored: &BTreeMap<String, String>) -> Result<P, String> {
    if let Some(unknown) = stored.keys().find(|k| !defs.iter().any(|d| d.name == k.as_str())) {
        return Err(format!("unknown timing model parameter '{unknown}'"));
    }
    for d in defs {
        let raw = stored.get(d.name).ok_or_else(|| format!("timing model parameter '{}' is missing", d.name))?;
        let v = parse(d.unit, raw).ok_or_else(|| format!("timing model parameter '{}': bad value '{raw}'", d.name))?;
        (d.set)(&mut p, v);
    }
    Ok(p)
}

/// Nanoseconds to transfer `bytes` at `bytes_per_sec`, as a float.
pub(crate) fn xfer_ns(bytes: u64, bytes_per_sec: u64) -> f64 {
    bytes as f64 * 1e9 / bytes_per_sec as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::PROFILES;

    #[test]
    fn stored_models_round_trip_and_bad_ones_are_refused() {
        for p in PROFILES {
            let Some(m) = p.model else { continue };
            let s = m.to_stored();
            assert_eq!(ModelSpec::from_stored(&s, Some(p.name)), Ok(m), "{}", p.name);
            // Without the profile, the values survive, the sources fall back to the general ones.
            let back = ModelSpec::from_stored(&s, None).unwrap();
            assert_eq!(back.to_stored(), s);
            assert_eq!(back.params().len(), m.params().len());
            for (a, b) in back.params().iter().zip(m.params()) {
                assert_eq!((a.name, &a.value), (b.name, &b.value));
                assert!(!a.source.is_empty() && !b.source.is_empty(), "{}", a.name);
            }
            let mut bad = s.clone();
            bad.name = "tape".into();
            assert!(ModelSpec::from_stored(&bad, None).unwrap_err().contains("unknown timing model 'tape'"));
            let mut bad = s.clone();
            bad.params.insert("warp".into(), "9".into());
            assert!(ModelSpec::from_stored(&bad, None).unwrap_err().contains("'warp'"));
            let mut bad = s.clone();
            let first = bad.params.keys().next().unwrap().clone();
            bad.params.remove(&first);
            assert!(ModelSpec::from_stored(&bad, None).unwrap_err().contains("missing"));
            let mut bad = s.clone();
            bad.params.insert(first.clone(), "x1".into());
            assert!(ModelSpec::from_stored(&bad, None).unwrap_err().contains("bad value"));
        }
    }

    #[test]
    fn zero_parameters_are_refused() {
        for p in PROFILES {
            let Some(m) = p.model else { continue };
            let s = m.to_stored();
            for key in s.params.keys() {
                let mut bad = s.clone();
                let v = bad.params.get_mut(key).unwrap();
                if v.parse::<u64>().is_err() {
                    continue;
                }
                *v = "0".into();
                // Either refused, or a model that still runs (a zero overhead, say).
                if let Ok(spec) = ModelSpec::from_stored(&bad, None) {
                    let g = p.config().geometry;
                    let mut model = spec.build(&g);
                    testkit::smoke(model.as_mut(), &g);
                }
            }
        }
    }

    #[test]
    fn values_show_with_units() {
        assert_eq!(show(Unit::Ns, 210_000), "210 µs");
        assert_eq!(show(Unit::Ns, 8_333_333), "8.333 ms");
        assert_eq!(show(Unit::Ns, 1_000_000_000), "1 s");
        assert_eq!(show(Unit::BytesPerSec, 245_000_000), "245 MB/s");
        assert_eq!(show(Unit::Bytes, 256 << 20), "256 MiB");
        assert_eq!(show(Unit::Bytes, 96 << 10), "96 KiB");
        assert_eq!(show(Unit::Ppm("stroke"), 300_000), "0.3 stroke");
        assert_eq!(show(Unit::Sched, 1), "satf");
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::profiles::profile;
    use proptest::prelude::*;
    use zonekit_core::ZoneOp;
    use zonekit_core::timing::{Command, CommandKind, Done};

    /// (time step in µs, kind, zone, offset in 4 KiB blocks, length in 4 KiB blocks, failed,
    /// media share in eighths)
    type Step = (u64, u8, u64, u64, u64, bool, u64);

    fn steps() -> impl Strategy<Value = Vec<Step>> {
        proptest::collection::vec(
            (0u64..3000, 0u8..8, 0u64..6, 0u64..64, 1u64..300, proptest::bool::weighted(0.1), 0u64..9),
            1..80,
        )
    }

    /// Drive a model through `steps`, checking the contract; returns every completion.
    fn drive(spec: ModelSpec, profile_name: &str, steps: &[Step]) -> Vec<Done> {
        let g = profile(profile_name).unwrap().config().geometry;
        let mut m = spec.build(&g);
        let first_seq = u64::from(g.nr_conv_zones);
        let mut t = 0u64;
        let mut submitted: Vec<u64> = Vec::new();
        let mut all: Vec<Done> = Vec::new();
        let mut out = Vec::new();
        let mut check = |m: &mut Box<dyn zonekit_core::timing::TimingModel>, upto: u64, all: &mut Vec<Done>| {
            let before = m.next_event();
            out.clear();
            m.complete_until(upto, &mut out);
            for d in &out {
                let ne = before.expect("a completion although no event was pending");
                assert!(d.at_ns >= ne, "completion at {} before the next event {ne}", d.at_ns);
                assert!(d.at_ns <= upto);
            }
            assert!(out.windows(2).all(|w| w[0].at_ns <= w[1].at_ns), "completion order");
            if let (Some(last), Some(first)) = (all.last(), out.first()) {
                assert!(first.at_ns >= last.at_ns);
            }
            all.extend_from_slice(&out);
        };
        for (i, &(dt, kind, zone, off, len, failed, media)) in steps.iter().enumerate() {
            t += dt * 1000;
            // Sometimes advance through the events before t, as a driver does.
            while let Some(e) = m.next_event() {
                if e >= t || dt % 3 == 0 {
                    break;
                }
                check(&mut m, e, &mut all);
            }
            let zone_no = if zone == 0 { 0 } else { first_seq + zone * 7 };
            let sector = zone_no * g.zone_size + off * 8;
            let sectors = len * 8;
            let (kind, sector, sectors) = match kind {
                0..=2 => (CommandKind::Read, sector, sectors),
                3..=5 => (CommandKind::Write, sector, sectors),
                6 => (CommandKind::Flush, 0, 0),
                _ => (CommandKind::ZoneMgmt(ZoneOp::ALL[(off % 4) as usize]), zone_no * g.zone_size, g.zone_size),
            };
            let media_sectors = if kind == CommandKind::Read { sectors * media / 8 } else { sectors };
            m.submit(t, Command { id: i as u64, kind, sector, sectors, media_sectors, failed });
            submitted.push(t);
            if dt % 2 == 0 {
                check(&mut m, t, &mut all);
            }
        }
        let mut guard = 0;
        while let Some(e) = m.next_event() {
            check(&mut m, e, &mut all);
            guard += 1;
            assert!(guard < 1_000_000, "the model never finishes");
        }
        let mut seen = vec![false; steps.len()];
        for d in &all {
            let i = d.id as usize;
            assert!(!seen[i], "command {i} completed twice");
            seen[i] = true;
            assert!(d.at_ns >= submitted[i], "command {i} completed before it arrived");
        }
        assert!(seen.iter().all(|&s| s), "a command never completed");
        all
    }

    fn specs() -> Vec<(ModelSpec, &'static str)> {
        let hdd = crate::profiles::HC620_15TB_MODEL;
        vec![
            (ModelSpec::Hdd(hdd), "smr-hm-15tb"),
            (ModelSpec::Hdd(HddParams { wce: false, ..hdd }), "smr-hm-15tb"),
            (ModelSpec::Hdd(HddParams { wce: false, sched: Sched::Fifo, ncq_depth: 4, ..hdd }), "smr-hm-15tb"),
            (ModelSpec::Hdd(HddParams { cache_bytes: 1 << 20, ncq_depth: 3, ..hdd }), "smr-hm-15tb"),
            (ModelSpec::Zns(ZnsParams::ZN540), "zns-zn540"),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn models_keep_the_contract_and_are_deterministic(steps in steps()) {
            for (spec, name) in specs() {
                let a = drive(spec, name, &steps);
                let b = drive(spec, name, &steps);
                prop_assert_eq!(a, b, "{}: same input, same output", spec.name());
            }
        }
    }
}
