//! fio's JSON document model (json.c): ordered objects, integers, `%f` floats and strings, printed
//! exactly as fio prints them (two spaces per level, `"key" : value`, `,\n` between members), and
//! a reader for fio's own documents (order kept, so a recorded run loads as it was printed).

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

    /// Parses a JSON document (fio's output or any plain JSON). Integers without a fraction or
    /// exponent become [`Json::Int`], other numbers [`Json::Float`]; `true`/`false`/`null` become
    /// integers 1/0/0 (fio never prints them).
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut p = Parser { s: text.as_bytes(), i: 0 };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at byte {}", p.i));
        }
        Ok(v)
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

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut m = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Object(m));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return self.err("expected ':'");
                    }
                    self.i += 1;
                    let v = self.value()?;
                    m.push((k, v));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Object(m));
                        }
                        _ => return self.err("expected ',' or '}'"),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Array(a));
                }
                loop {
                    a.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Array(a));
                        }
                        _ => return self.err("expected ',' or ']'"),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Json::Int(1))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Json::Int(0))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Json::Int(0))
            }
            Some(_) => self.number(),
            None => self.err("unexpected end"),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return self.err("expected string");
        }
        self.i += 1;
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else { return self.err("bad escape") };
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = self.s.get(self.i..self.i + 4).ok_or("bad \\u escape")?;
                            let code = u32::from_str_radix(std::str::from_utf8(hex).map_err(|e| e.to_string())?, 16)
                                .map_err(|e| e.to_string())?;
                            self.i += 4;
                            let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                            let mut buf = [0; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        self.err("unterminated string")
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        while self.i < self.s.len() && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
            self.i += 1;
        }
        let t = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
        if t.is_empty() {
            return self.err("unexpected character");
        }
        if !t.contains(['.', 'e', 'E'])
            && let Ok(i) = t.parse::<i64>()
        {
            return Ok(Json::Int(i));
        }
        t.parse::<f64>().map(Json::Float).map_err(|e| format!("bad number {t}: {e}"))
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
        assert_eq!(Json::parse(want).unwrap(), root);
    }
}
