//! fio's JSON document model (json.c): ordered objects, integers, `%f` floats and strings, printed
//! exactly as fio prints them (two spaces per level, `"key" : value`, `,\n` between members),
//! which `serde_json` does not do. Reading fio's documents back (the tests' recorded runs) is
//! `serde_json`'s job.

/// A JSON value as fio's json.c builds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// An object; members keep their order (fio prints them in insertion order).
    Object(Vec<(String, Json)>),
    /// An array.
    Array(Vec<Json>),
    /// A string, printed with `\` and `"` escaped (fio escapes nothing else).
    Str(String),
    /// An integer, printed `%lld`.
    Int(i64),
    /// A float, printed `%f`.
    Float(f64),
}

impl Json {
    /// An empty object.
    pub fn object() -> Json {
        Json::Object(Vec::new())
    }

    /// Appends a member to an object (no-op on other values). fio drops string members whose
    /// value is empty (`json_create_value_string` fails on ""), and so does this.
    pub fn add(&mut self, key: impl Into<String>, value: Json) {
        if let Json::Str(s) = &value
            && s.is_empty()
        {
            return;
        }
        if let Json::Object(m) = self {
            m.push((key.into(), value));
        }
    }

    /// Appends an unsigned integer member (printed as fio's `%lld` of the same bits).
    pub fn add_u(&mut self, key: impl Into<String>, v: u64) {
        self.add(key, Json::Int(v as i64));
    }

    /// Appends a float member.
    pub fn add_f(&mut self, key: impl Into<String>, v: f64) {
        self.add(key, Json::Float(v));
    }

    /// Appends a string member.
    pub fn add_s(&mut self, key: impl Into<String>, v: impl Into<String>) {
        self.add(key, Json::Str(v.into()));
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Members of an object (empty for other values).
    pub fn members(&self) -> &[(String, Json)] {
        match self {
            Json::Object(m) => m,
            _ => &[],
        }
    }

    /// Elements of an array (empty for other values).
    pub fn elements(&self) -> &[Json] {
        match self {
            Json::Array(a) => a,
            _ => &[],
        }
    }

    /// The value as an integer (floats truncate).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Int(i) => Some(*i),
            Json::Float(f) => Some(*f as i64),
            _ => None,
        }
    }

    /// The value as an unsigned integer (negative integers wrap, as fio's casts do).
    pub fn as_u64(&self) -> Option<u64> {
        self.as_i64().map(|i| i as u64)
    }

    /// The value as a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Int(i) => Some(*i as f64),
            Json::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The value as a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// fio's `json_print_object` text of a top-level object, without the trailing newline fio
    /// adds after it.
    pub fn to_fio_string(&self) -> String {
        let mut out = String::new();
        print_value(self, 0, &mut out);
        out
    }
}

fn indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// Prints `v` whose container sits at `level` (fio: an object's members are one level deeper than
/// the object; an array's elements one deeper than the array).
fn print_value(v: &Json, level: usize, out: &mut String) {
    use std::fmt::Write as _;
    match v {
        Json::Object(m) => {
            out.push_str("{\n");
            for (i, (k, val)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(level + 1, out);
                let _ = write!(out, "\"{k}\" : ");
                print_value(val, level + 1, out);
            }
            out.push('\n');
            indent(level, out);
            out.push('}');
        }
        Json::Array(a) => {
            out.push_str("[\n");
            for (i, val) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(level + 1, out);
                print_value(val, level + 1, out);
            }
            out.push('\n');
            indent(level, out);
            out.push(']');
        }
        Json::Str(s) => {
            out.push('"');
            for c in s.chars() {
                if c == '\\' || c == '"' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
        Json::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Json::Float(f) => out.push_str(&super::num::cf(*f)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_fio() {
        let mut root = Json::object();
        root.add_s("fio version", "zonekit-0.1.0");
        let mut job = Json::object();
        job.add_s("jobname", "t");
        job.add_f("iops", 1.5);
        job.add_s("empty", "");
        root.add("jobs", Json::Array(vec![job]));
        let want = "{\n  \"fio version\" : \"zonekit-0.1.0\",\n  \"jobs\" : [\n    {\n      \"jobname\" : \"t\",\n      \"iops\" : 1.500000\n    }\n  ]\n}";
        assert_eq!(root.to_fio_string(), want);
    }
}
