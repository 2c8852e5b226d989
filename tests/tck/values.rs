//! Cypher values as the TCK writes them in its tables (`1`, `1.0`, `'a'`, `[1, 2]`, `{k: 1}`,
//! `(:L {p: 1})`, `[:T {p: 1}]`, `<(:A)-[:T]->(:B)>`), parsed into [`TVal`], and their comparison.

use std::collections::BTreeMap;
use std::fmt;

/// A Cypher value in the TCK's sense: integers and floats are distinct.
#[derive(Debug, Clone)]
pub enum TVal {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float (`NaN` equals `NaN` here).
    Float(f64),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<TVal>),
    /// A map (keys sorted).
    Map(BTreeMap<String, TVal>),
    /// A node: its labels (sorted) and properties.
    Node(Vec<String>, BTreeMap<String, TVal>),
    /// A relationship: its type and properties.
    Rel(String, BTreeMap<String, TVal>),
    /// A path: its nodes and, between them, relationships with their direction (true: forward).
    Path(Vec<TVal>, Vec<(TVal, bool)>),
}

impl PartialEq for TVal {
    fn eq(&self, other: &TVal) -> bool {
        use TVal::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Str(a), Str(b)) => a == b,
            (List(a), List(b)) => a == b,
            (Map(a), Map(b)) => a == b,
            (Node(la, pa), Node(lb, pb)) => la == lb && pa == pb,
            (Rel(ta, pa), Rel(tb, pb)) => ta == tb && pa == pb,
            (Path(na, ra), Path(nb, rb)) => na == nb && ra == rb,
            _ => false,
        }
    }
}

impl TVal {
    /// The same value with every list sorted (by its printed form), for "ignoring element order
    /// for lists".
    pub fn lists_sorted(&self) -> TVal {
        match self {
            TVal::List(items) => {
                let mut items: Vec<TVal> = items.iter().map(TVal::lists_sorted).collect();
                items.sort_by_key(|v| v.to_string());
                TVal::List(items)
            }
            TVal::Map(m) => TVal::Map(
                m.iter()
                    .map(|(k, v)| (k.clone(), v.lists_sorted()))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

fn write_props(f: &mut fmt::Formatter<'_>, props: &BTreeMap<String, TVal>) -> fmt::Result {
    f.write_str("{")?;
    for (i, (k, v)) in props.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{k}: {v}")?;
    }
    f.write_str("}")
}

impl fmt::Display for TVal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TVal::Null => f.write_str("null"),
            TVal::Bool(b) => write!(f, "{b}"),
            TVal::Int(i) => write!(f, "{i}"),
            TVal::Float(x) => {
                if x.is_nan() {
                    f.write_str("NaN")
                } else if x.is_infinite() {
                    f.write_str(if *x > 0.0 { "Inf" } else { "-Inf" })
                } else if x.fract() == 0.0 && x.abs() < 1e15 {
                    write!(f, "{x:.1}")
                } else {
                    write!(f, "{x}")
                }
            }
            TVal::Str(s) => write!(f, "'{s}'"),
            TVal::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            TVal::Map(m) => write_props(f, m),
            TVal::Node(labels, props) => {
                f.write_str("(")?;
                for l in labels {
                    write!(f, ":{l}")?;
                }
                if !props.is_empty() {
                    if !labels.is_empty() {
                        f.write_str(" ")?;
                    }
                    write_props(f, props)?;
                }
                f.write_str(")")
            }
            TVal::Rel(t, props) => {
                write!(f, "[:{t}")?;
                if !props.is_empty() {
                    f.write_str(" ")?;
                    write_props(f, props)?;
                }
                f.write_str("]")
            }
            TVal::Path(nodes, rels) => {
                f.write_str("<")?;
                for (i, n) in nodes.iter().enumerate() {
                    if i > 0 {
                        let (r, fwd) = &rels[i - 1];
                        if *fwd {
                            write!(f, "-{r}->")?;
                        } else {
                            write!(f, "<-{r}-")?;
                        }
                    }
                    write!(f, "{n}")?;
                }
                f.write_str(">")
            }
        }
    }
}

/// Parses one value in the TCK's notation.
pub fn parse(text: &str) -> Result<TVal, String> {
    let mut p = P {
        s: text.as_bytes(),
        i: 0,
        text,
    };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("trailing text in value `{text}` at {}", p.i));
    }
    Ok(v)
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    text: &'a str,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "expected `{}` at {} in `{}`",
                c as char, self.i, self.text
            ))
        }
    }

    fn value(&mut self) -> Result<TVal, String> {
        match self.peek() {
            None => Err(format!("empty value in `{}`", self.text)),
            Some(b'\'') | Some(b'"') => self.string().map(TVal::Str),
            Some(b'[') => {
                let save = self.i;
                self.i += 1;
                if self.peek() == Some(b':') {
                    self.i = save;
                    return self.rel().map(|(t, p)| TVal::Rel(t, p));
                }
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        self.expect(b',')?;
                    }
                }
                Ok(TVal::List(items))
            }
            Some(b'{') => self.map().map(TVal::Map),
            Some(b'(') => self.node(),
            Some(b'<') => self.path(),
            _ => self.scalar(),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let q = self.s[self.i];
        self.i += 1;
        let mut out = String::new();
        let rest = &self.text[self.i..];
        let mut chars = rest.char_indices();
        while let Some((k, c)) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, e)) => out.push(e),
                    None => break,
                }
            } else if c as u32 == q as u32 {
                self.i += k + 1;
                return Ok(out);
            } else {
                out.push(c);
            }
        }
        Err(format!("unterminated string in `{}`", self.text))
    }

    fn name(&mut self) -> Result<String, String> {
        self.ws();
        if self.s.get(self.i) == Some(&b'`') {
            let end = self.text[self.i + 1..]
                .find('`')
                .ok_or_else(|| format!("unterminated name in `{}`", self.text))?;
            let n = self.text[self.i + 1..self.i + 1 + end].to_string();
            self.i += end + 2;
            return Ok(n);
        }
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || self.s[self.i] == b'_'
                || self.s[self.i] >= 0x80)
        {
            self.i += 1;
        }
        if start == self.i {
            return Err(format!("expected a name at {} in `{}`", start, self.text));
        }
        Ok(self.text[start..self.i].to_string())
    }

    fn map(&mut self) -> Result<BTreeMap<String, TVal>, String> {
        self.expect(b'{')?;
        let mut m = BTreeMap::new();
        if self.eat(b'}') {
            return Ok(m);
        }
        loop {
            let k = self.name()?;
            self.expect(b':')?;
            let v = self.value()?;
            m.insert(k, v);
            if self.eat(b'}') {
                return Ok(m);
            }
            self.expect(b',')?;
        }
    }

    fn node(&mut self) -> Result<TVal, String> {
        self.expect(b'(')?;
        let mut labels = Vec::new();
        while self.eat(b':') {
            labels.push(self.name()?);
        }
        let props = if self.peek() == Some(b'{') {
            self.map()?
        } else {
            BTreeMap::new()
        };
        self.expect(b')')?;
        labels.sort();
        Ok(TVal::Node(labels, props))
    }

    fn rel(&mut self) -> Result<(String, BTreeMap<String, TVal>), String> {
        self.expect(b'[')?;
        self.expect(b':')?;
        let t = self.name()?;
        let props = if self.peek() == Some(b'{') {
            self.map()?
        } else {
            BTreeMap::new()
        };
        self.expect(b']')?;
        Ok((t, props))
    }

    fn path(&mut self) -> Result<TVal, String> {
        self.expect(b'<')?;
        let mut nodes = vec![self.node()?];
        let mut rels = Vec::new();
        loop {
            if self.eat(b'>') {
                return Ok(TVal::Path(nodes, rels));
            }
            let back = self.eat(b'<');
            self.expect(b'-')?;
            let (t, p) = self.rel()?;
            self.expect(b'-')?;
            let fwd = self.eat(b'>');
            if back == fwd {
                return Err(format!(
                    "a path step needs one direction in `{}`",
                    self.text
                ));
            }
            rels.push((TVal::Rel(t, p), fwd));
            nodes.push(self.node()?);
        }
    }

    fn scalar(&mut self) -> Result<TVal, String> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len() && !matches!(self.s[self.i], b',' | b']' | b'}' | b')' | b' ') {
            self.i += 1;
        }
        let word = &self.text[start..self.i];
        Ok(match word {
            "null" => TVal::Null,
            "true" => TVal::Bool(true),
            "false" => TVal::Bool(false),
            "NaN" => TVal::Float(f64::NAN),
            "Inf" | "Infinity" => TVal::Float(f64::INFINITY),
            "-Inf" | "-Infinity" => TVal::Float(f64::NEG_INFINITY),
            _ if word.contains(['.', 'e', 'E']) && !word.starts_with("0x") => TVal::Float(
                word.parse()
                    .map_err(|_| format!("bad number `{word}` in `{}`", self.text))?,
            ),
            _ => TVal::Int(
                word.parse()
                    .map_err(|_| format!("bad value `{word}` in `{}`", self.text))?,
            ),
        })
    }
}

/// Checks the parser on a few values; the runner calls it first, so a broken parser fails the run
/// instead of misjudging scenarios.
pub fn self_check() -> Result<(), String> {
    let cases = [
        ("[1, [2], 'x']", "[1, [2], 'x']"),
        ("(:B:A {name: 'x', n: 1})", "(:A:B {n: 1, name: 'x'})"),
        ("[:T {w: 2.5}]", "[:T {w: 2.5}]"),
        ("<(:A)-[:T]->()<-[:U]-(:B)>", "<(:A)-[:T]->()<-[:U]-(:B)>"),
        ("{a: null, b: []}", "{a: null, b: []}"),
        ("-1.5e3", "-1500.0"),
        ("1.0", "1.0"),
        ("'a b'", "'a b'"),
    ];
    for (text, shown) in cases {
        let v = parse(text)?;
        if v.to_string() != shown {
            return Err(format!(
                "value parser: `{text}` read as `{v}`, not `{shown}`"
            ));
        }
    }
    if parse("1")? == parse("1.0")? {
        return Err("value parser: 1 and 1.0 must differ".into());
    }
    Ok(())
}
