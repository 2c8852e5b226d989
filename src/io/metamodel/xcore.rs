//! A reader for the structural part of Xcore (EMF's textual metamodel syntax): `package`,
//! `import`, annotations (skipped), `[abstract] class|interface Name extends A, B { … }`,
//! `enum Name { LIT [= n] … }`, `type Name wraps T` data types, and class members
//! `[modifiers] [contains|container|refers] Type[bounds] name [opposite o] [keys …] [= default]`.
//! Operations (`op …`) and derived-feature bodies are skipped.

use std::path::{Path, PathBuf};

use super::{Attribute, Class, EnumType, Metamodel, Reference};
use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Num(String),
    Punct(char),
}

struct Lexer {
    toks: Vec<(Tok, u64, u64)>,
}

fn lex(text: &str, file: Option<&Path>) -> Result<Lexer> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u64, 1u64);
    let err = |line: u64, col: u64, msg: String| {
        Error::parse(file.map(Path::to_path_buf), line, col, msg)
    };
    while i < chars.len() {
        let c = chars[i];
        let (tl, tc) = (line, col);
        let advance = |n: usize, i: &mut usize, line: &mut u64, col: &mut u64| {
            for k in 0..n {
                if chars.get(*i + k) == Some(&'\n') {
                    *line += 1;
                    *col = 1;
                } else {
                    *col += 1;
                }
            }
            *i += n;
        };
        if c.is_whitespace() {
            advance(1, &mut i, &mut line, &mut col);
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            let mut n = 0;
            while i + n < chars.len() && chars[i + n] != '\n' {
                n += 1;
            }
            advance(n, &mut i, &mut line, &mut col);
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let mut n = 2;
            while i + n < chars.len()
                && !(chars[i + n] == '*' && chars.get(i + n + 1) == Some(&'/'))
            {
                n += 1;
            }
            if i + n >= chars.len() {
                return Err(err(tl, tc, "unterminated comment".into()));
            }
            advance(n + 2, &mut i, &mut line, &mut col);
        } else if c == '"' || c == '\'' {
            let mut n = 1;
            let mut s = String::new();
            while i + n < chars.len() && chars[i + n] != c {
                if chars[i + n] == '\\' && i + n + 1 < chars.len() {
                    n += 1;
                }
                s.push(chars[i + n]);
                n += 1;
            }
            if i + n >= chars.len() {
                return Err(err(tl, tc, "unterminated string".into()));
            }
            advance(n + 1, &mut i, &mut line, &mut col);
            toks.push((Tok::Str(s), tl, tc));
        } else if c.is_alphabetic() || c == '_' || c == '^' {
            let mut n = usize::from(c == '^');
            while i + n < chars.len() && (chars[i + n].is_alphanumeric() || chars[i + n] == '_') {
                n += 1;
            }
            let s: String = chars[i..i + n].iter().filter(|&&c| c != '^').collect();
            if s.is_empty() {
                return Err(err(tl, tc, "`^` must be followed by a name".into()));
            }
            advance(n, &mut i, &mut line, &mut col);
            // `^name` escapes a keyword: keep it an identifier that matches no keyword.
            let tok = if c == '^' { format!("^{s}") } else { s };
            toks.push((Tok::Ident(tok), tl, tc));
        } else if c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let mut n = 1;
            while i + n < chars.len()
                && (chars[i + n].is_ascii_alphanumeric() || chars[i + n] == '.')
            {
                n += 1;
            }
            let s: String = chars[i..i + n].iter().collect();
            advance(n, &mut i, &mut line, &mut col);
            toks.push((Tok::Num(s), tl, tc));
        } else {
            advance(1, &mut i, &mut line, &mut col);
            toks.push((Tok::Punct(c), tl, tc));
        }
    }
    Ok(Lexer { toks })
}

/// The name a `^`-escaped identifier stands for.
fn unescape(s: &str) -> String {
    s.trim_start_matches('^').to_owned()
}

/// A feature without `contains`/`refers`: `(name, type name, many, default literal, id)`; an
/// attribute unless its type turns out to be a class.
type PlainFeature = (String, String, bool, Option<String>, bool);

const MODIFIERS: &[&str] = &[
    "unordered",
    "unique",
    "readonly",
    "transient",
    "volatile",
    "unsettable",
    "derived",
    "id",
    "resolving",
    "local",
    "ordered",
];

struct Parser<'a> {
    toks: &'a [(Tok, u64, u64)],
    pos: usize,
    file: Option<PathBuf>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn is_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w)) if w == word)
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn error(&self, message: impl Into<String>) -> Error {
        let (line, col) = self
            .toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or((1, 0), |t| (t.1, t.2));
        Error::parse(self.file.clone(), line, col, message)
    }

    fn ident(&mut self, what: &str) -> Result<String> {
        match self.peek() {
            Some(Tok::Ident(w)) => {
                let w = unescape(w);
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.error(format!("expected {what}"))),
        }
    }

    /// A qualified name `a.b.C`, returned unqualified (`C`); generic arguments are skipped.
    fn type_name(&mut self) -> Result<String> {
        let mut name = self.ident("a type name")?;
        while self.is_punct('.') {
            self.pos += 1;
            if self.is_punct('*') {
                self.pos += 1;
                break;
            }
            name = self.ident("a name after `.`")?;
        }
        if self.is_punct('<') {
            self.skip_balanced('<', '>')?;
        }
        Ok(name)
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.is_punct(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(format!("expected `{c}`")))
        }
    }

    /// Skips `open … close` with nesting (the current token must be `open`).
    fn skip_balanced(&mut self, open: char, close: char) -> Result<()> {
        self.expect(open)?;
        let mut depth = 1;
        while depth > 0 {
            match self.peek() {
                None => return Err(self.error(format!("missing `{close}`"))),
                Some(Tok::Punct(c)) if *c == open => depth += 1,
                Some(Tok::Punct(c)) if *c == close => depth -= 1,
                _ => {}
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// Skips `@Name` or `@Name(…)` annotations.
    fn skip_annotations(&mut self) -> Result<()> {
        while self.is_punct('@') {
            self.pos += 1;
            self.type_name()?;
            if self.is_punct('(') {
                self.skip_balanced('(', ')')?;
            }
        }
        Ok(())
    }

    /// `[lower..upper]`, `[]`, `[n]`, `[*]`, `[?]`…: returns whether it is many-valued.
    fn multiplicity(&mut self) -> Result<bool> {
        if !self.is_punct('[') {
            return Ok(false);
        }
        let start = self.pos;
        self.skip_balanced('[', ']')?;
        let inner = &self.toks[start + 1..self.pos - 1];
        if inner.is_empty() {
            return Ok(true);
        }
        let upper = inner.last().map(|t| &t.0);
        Ok(match upper {
            Some(Tok::Punct('*')) | Some(Tok::Punct('+')) => true,
            Some(Tok::Punct('?')) => false,
            Some(Tok::Num(n)) => n.parse::<i64>().map_or(true, |n| n != 1 && n != 0),
            _ => true,
        })
    }

    fn parse(mut self) -> Result<Metamodel> {
        let mut mm = Metamodel::default();
        let mut pending: Vec<(String, Vec<PlainFeature>)> = Vec::new();
        while self.peek().is_some() {
            self.skip_annotations()?;
            let Some(tok) = self.peek().cloned() else {
                break;
            };
            match tok {
                Tok::Ident(w) if w == "package" || w == "import" => {
                    self.pos += 1;
                    self.type_name()?;
                }
                Tok::Ident(w) if w == "annotation" => {
                    // `annotation "uri" as Name`
                    self.pos += 1;
                    if matches!(self.peek(), Some(Tok::Str(_))) {
                        self.pos += 1;
                    }
                    if self.is_ident("as") {
                        self.pos += 1;
                        self.ident("an annotation alias")?;
                    }
                }
                Tok::Ident(w) if w == "type" => {
                    self.pos += 1;
                    let _ = self.ident("a data type name")?;
                    if self.is_punct('<') {
                        self.skip_balanced('<', '>')?;
                    }
                    if self.is_ident("wraps") {
                        self.pos += 1;
                        self.type_name()?;
                    }
                    if self.is_punct('{') {
                        self.skip_balanced('{', '}')?;
                    }
                }
                Tok::Ident(w) if w == "enum" => {
                    self.pos += 1;
                    let e = self.enum_body()?;
                    mm.enums.insert(e.name.clone(), e);
                }
                Tok::Ident(w) if w == "abstract" || w == "class" || w == "interface" => {
                    let (class, features) = self.class()?;
                    pending.push((class.name.clone(), features));
                    mm.classes.insert(class.name.clone(), class);
                }
                Tok::Punct(';') => self.pos += 1,
                _ => return Err(self.error("expected `class`, `enum`, `type` or `import`")),
            }
        }
        // Features are typed once every classifier is known: a class-typed feature without
        // `contains`/`refers` is still a reference.
        for (class, features) in pending {
            let mut attrs = Vec::new();
            let mut refs = Vec::new();
            for (name, ty, many, default, is_id) in features {
                match mm.attr_type_of(&ty) {
                    Some(t) => attrs.push(Attribute {
                        name,
                        ty: t,
                        many,
                        default_literal: default,
                        is_id,
                    }),
                    None => refs.push(Reference {
                        name,
                        target: ty,
                        containment: false,
                        many,
                        opposite: None,
                    }),
                }
            }
            if let Some(c) = mm.classes.get_mut(&class) {
                c.attributes = attrs;
                c.references.extend(refs);
            }
        }
        Ok(mm)
    }

    fn enum_body(&mut self) -> Result<EnumType> {
        let name = self.ident("an enum name")?;
        self.expect('{')?;
        let mut e = EnumType {
            name,
            literals: Vec::new(),
        };
        let mut next = 0i64;
        while !self.is_punct('}') {
            self.skip_annotations()?;
            if self.is_punct(',') || self.is_punct(';') {
                self.pos += 1;
                continue;
            }
            let lit = self.ident("an enum literal")?;
            let mut value = next;
            if self.is_ident("as") {
                self.pos += 1;
                if matches!(self.peek(), Some(Tok::Str(_))) {
                    self.pos += 1;
                }
            }
            if self.is_punct('=') {
                self.pos += 1;
                value = match self.peek() {
                    Some(Tok::Num(n)) => n
                        .parse()
                        .map_err(|_| self.error(format!("bad enum value `{n}`")))?,
                    _ => return Err(self.error("expected an integer enum value")),
                };
                self.pos += 1;
            }
            e.literals.push((lit, value));
            next = value + 1;
        }
        self.expect('}')?;
        Ok(e)
    }

    fn class(&mut self) -> Result<(Class, Vec<PlainFeature>)> {
        let mut class = Class::default();
        if self.is_ident("abstract") {
            class.is_abstract = true;
            self.pos += 1;
        }
        if self.is_ident("interface") {
            class.is_abstract = true;
        }
        self.pos += 1; // class | interface
        class.name = self.ident("a class name")?;
        if self.is_punct('<') {
            self.skip_balanced('<', '>')?;
        }
        if self.is_ident("extends") {
            self.pos += 1;
            loop {
                class.supertypes.push(self.type_name()?);
                if !self.is_punct(',') {
                    break;
                }
                self.pos += 1;
            }
        }
        if self.is_ident("wraps") {
            self.pos += 1;
            self.type_name()?;
        }
        self.expect('{')?;
        let mut features = Vec::new();
        while !self.is_punct('}') {
            if self.peek().is_none() {
                return Err(self.error(format!("missing `}}` of class {}", class.name)));
            }
            self.skip_annotations()?;
            if self.is_punct(';') {
                self.pos += 1;
                continue;
            }
            if self.is_punct('}') {
                break;
            }
            if self.is_ident("op") {
                self.skip_operation()?;
                continue;
            }
            let mut is_id = false;
            while matches!(self.peek(), Some(Tok::Ident(w)) if MODIFIERS.contains(&w.as_str())) {
                is_id |= self.is_ident("id");
                self.pos += 1;
            }
            let kind = match self.peek() {
                Some(Tok::Ident(w)) if w == "contains" || w == "container" || w == "refers" => {
                    let k = w.clone();
                    self.pos += 1;
                    Some(k)
                }
                _ => None,
            };
            let ty = self.type_name()?;
            let many = self.multiplicity()?;
            let name = self.ident("a feature name")?;
            let mut opposite = None;
            let mut default = None;
            loop {
                if self.is_ident("opposite") {
                    self.pos += 1;
                    opposite = Some(self.ident("the opposite's name")?);
                } else if self.is_ident("keys") {
                    self.pos += 1;
                    self.ident("a key attribute")?;
                    while self.is_punct(',') {
                        self.pos += 1;
                        self.ident("a key attribute")?;
                    }
                } else if self.is_punct('=') {
                    self.pos += 1;
                    default = match self.peek().cloned() {
                        Some(Tok::Num(n)) | Some(Tok::Str(n)) | Some(Tok::Ident(n)) => {
                            self.pos += 1;
                            Some(unescape(&n))
                        }
                        _ => return Err(self.error("expected a default value")),
                    };
                } else if ["get", "set", "isSet", "unset"]
                    .iter()
                    .any(|k| self.is_ident(k))
                {
                    self.pos += 1;
                    self.skip_balanced('{', '}')?;
                } else {
                    break;
                }
            }
            match kind {
                Some(k) => class.references.push(Reference {
                    name,
                    target: ty,
                    containment: k == "contains",
                    many,
                    opposite,
                }),
                None => features.push((name, ty, many, default, is_id)),
            }
        }
        self.expect('}')?;
        Ok((class, features))
    }

    /// `op Type[..] name(params) [throws …] [{ body }]`.
    fn skip_operation(&mut self) -> Result<()> {
        self.pos += 1;
        while !self.is_punct('(') {
            if self.peek().is_none() || self.is_punct('}') {
                return Err(self.error("expected `(` of an operation"));
            }
            self.pos += 1;
        }
        self.skip_balanced('(', ')')?;
        if self.is_ident("throws") {
            self.pos += 1;
            self.type_name()?;
            while self.is_punct(',') {
                self.pos += 1;
                self.type_name()?;
            }
        }
        if self.is_punct('{') {
            self.skip_balanced('{', '}')?;
        }
        Ok(())
    }
}

/// Parses Xcore text (`file` names it in errors).
pub(super) fn parse(text: &str, file: Option<&Path>) -> Result<Metamodel> {
    let lexer = lex(text, file)?;
    Parser {
        toks: &lexer.toks,
        pos: 0,
        file: file.map(Path::to_path_buf),
    }
    .parse()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::metamodel::AttrType;

    const RAILWAY: &str = r#"
@Ecore(nsURI="http://example.org/railway")
package hu.bme.railway
abstract class RailwayElement { int ^id }
class Route extends RailwayElement {
    boolean active
    contains SwitchPosition[] follows opposite route
    refers Sensor[2..*] requires
    refers Semaphore entry
}
class SwitchPosition extends RailwayElement {
    Position position
    refers Route route opposite follows
}
class Sensor extends RailwayElement {}
class Semaphore extends RailwayElement { Signal signal = "GO" }
enum Position { FAILURE = 0 STRAIGHT = 1 DIVERGING = 2 }
enum Signal { FAILURE, STOP, GO }
"#;

    #[test]
    fn reads_classes_features_and_enums() {
        let mm = parse(RAILWAY, None).unwrap();
        let route = &mm.classes["Route"];
        assert_eq!(route.supertypes, vec!["RailwayElement"]);
        assert_eq!(
            route.attributes,
            vec![Attribute {
                name: "active".into(),
                ty: AttrType::Bool,
                many: false,
                default_literal: None,
                is_id: false
            }]
        );
        let follows = &route.references[0];
        assert!(follows.containment && follows.many);
        assert_eq!(follows.opposite.as_deref(), Some("route"));
        assert!(route.references[1].many && !route.references[1].containment);
        assert!(!route.references[2].many);
        assert_eq!(mm.classes["RailwayElement"].attributes[0].name, "id");
        assert!(mm.classes["RailwayElement"].is_abstract);
        assert_eq!(
            mm.enums["Signal"].literals,
            vec![("FAILURE".into(), 0), ("STOP".into(), 1), ("GO".into(), 2)]
        );
        let pos = mm.attribute("SwitchPosition", "position").unwrap();
        assert_eq!(pos.ty, AttrType::Enum("Position".into()));
        assert_eq!(
            mm.default_value(pos),
            Some(crate::model::Value::Str("FAILURE".into()))
        );
        let sig = mm.attribute("Semaphore", "signal").unwrap();
        assert_eq!(
            mm.default_value(sig),
            Some(crate::model::Value::Str("GO".into()))
        );
        assert_eq!(mm.labels_of("Route"), vec!["Route", "RailwayElement"]);
        assert_eq!(mm.opposite(Some("Route"), "follows"), Some("route"));
        assert_eq!(mm.opposite(None, "route"), Some("follows"));
        assert_eq!(mm.opposite(None, "requires"), None);
    }

    #[test]
    fn errors_name_line_and_column() {
        let err = parse("package p\nclass A {\n  int\n}", Some(Path::new("m.xcore"))).unwrap_err();
        assert_eq!(err.to_string(), "m.xcore:4:1: expected a feature name");
        let err = parse("class A { int x", None).unwrap_err();
        assert!(err.to_string().contains("missing `}` of class A"), "{err}");
    }
}
