//! Reading fio's JSON documents (recorded runs) into zonekit's [`Json`] model with `serde_json`,
//! keeping each object's members in their printed order (percentile and bin lists depend on it).

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use zonekit_bench::output::json::Json;

/// A JSON document as fio's json.c models it: integers without a fraction or exponent become
/// [`Json::Int`], other numbers [`Json::Float`]; `true`/`false`/`null` become 1/0/0 (fio never
/// prints them).
pub fn parse_json(text: &str) -> Result<Json, String> {
    serde_json::from_str::<Ordered>(text).map(|o| o.0).map_err(|e| e.to_string())
}

/// A [`Json`] read by serde (a newtype: serde's trait on zonekit's type).
struct Ordered(Json);

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
        Ok(Ordered(Json::Int(i64::from(v))))
    }

    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered(Json::Int(0)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
        Ok(Ordered(Json::Int(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
        // As fio's casts: the same bits.
        Ok(Ordered(Json::Int(v as i64)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Ordered, E> {
        Ok(Ordered(Json::Float(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
        Ok(Ordered(Json::Str(v.to_string())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut v = Vec::new();
        while let Some(Ordered(e)) = seq.next_element()? {
            v.push(e);
        }
        Ok(Ordered(Json::Array(v)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut m = Vec::new();
        while let Some((k, Ordered(v))) = map.next_entry::<String, Ordered>()? {
            m.push((k, v));
        }
        Ok(Ordered(Json::Object(m)))
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        d.deserialize_any(OrderedVisitor)
    }
}

#[test]
fn fios_printing_reads_back_in_order() {
    let mut root = Json::object();
    root.add_s("fio version", "zonekit-0.1.0");
    let mut job = Json::object();
    job.add_s("jobname", "t");
    job.add_f("iops", 1.5);
    job.add_u("5.000000", 7);
    job.add_u("10.000000", 9);
    root.add("jobs", Json::Array(vec![job]));
    assert_eq!(parse_json(&root.to_fio_string()).unwrap(), root);
    assert!(parse_json("{} x").is_err());
}
