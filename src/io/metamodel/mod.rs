//! EMF metamodels (`.ecore` XML or `.xcore` text), read generically: classes with their supertypes,
//! attributes (typed, with defaults) and references (containment, multiplicity, opposite), and
//! enums. The XMI and Neo4j-CSV loaders use one to
//!
//! - give a node every label of its class's ancestry (a `Switch` is also a `TrackElement` and a
//!   `RailwayElement`), so a pattern on a superclass matches its subclasses;
//! - type properties (an XMI attribute `length="3"` of an `int` feature is an integer);
//! - tell cross-references from attributes in XMI and fill in EMF default values of unset
//!   attributes (`0`, `false`, an enum's first literal);
//! - complete references declared with an opposite, so both directions can be matched
//!   ([`Opposites`]).

mod ecore;
mod xcore;

use std::path::Path;

use hashbrown::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::model::{ModelBuilder, Value};

/// The type of an attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrType {
    /// Integer types (`int`, `long`, `EInt`, …).
    Int,
    /// Floating-point types (`double`, `float`, `EDouble`, …).
    Float,
    /// `boolean` / `EBoolean`.
    Bool,
    /// Strings and every data type gemp has no better column for (dates, custom data types).
    Str,
    /// An enum of the metamodel, stored as its literal's name.
    Enum(String),
}

/// An attribute (EAttribute) of a class.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// Feature name.
    pub name: String,
    /// Its type.
    pub ty: AttrType,
    /// Multi-valued (`[]`, `upperBound` other than 1).
    pub many: bool,
    /// The declared default value literal, if any.
    pub default_literal: Option<String>,
    /// The class's ID attribute (Xcore `id`, Ecore `iD="true"`): XMI references may name the
    /// object by its value.
    pub is_id: bool,
}

/// A reference (EReference) of a class.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// Feature name (the edge type).
    pub name: String,
    /// Name of the referenced class.
    pub target: String,
    /// A containment reference (children nested in XMI).
    pub containment: bool,
    /// Multi-valued.
    pub many: bool,
    /// The opposite reference's name, if declared.
    pub opposite: Option<String>,
}

/// A class (EClass).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Class {
    /// Class name.
    pub name: String,
    /// Abstract or interface.
    pub is_abstract: bool,
    /// Direct supertypes, by name.
    pub supertypes: Vec<String>,
    /// Attributes declared here (not inherited).
    pub attributes: Vec<Attribute>,
    /// References declared here (not inherited).
    pub references: Vec<Reference>,
}

/// An enum (EEnum): literal names with their values, in declaration order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EnumType {
    /// Enum name.
    pub name: String,
    /// `(literal, value)` in declaration order.
    pub literals: Vec<(String, i64)>,
}

/// A metamodel: classes and enums by (unqualified) name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metamodel {
    /// Classes by name.
    pub classes: HashMap<String, Class>,
    /// Enums by name.
    pub enums: HashMap<String, EnumType>,
}

/// Integer type names of Ecore and Xcore.
const INT_TYPES: &[&str] = &[
    "int",
    "long",
    "short",
    "byte",
    "Integer",
    "Long",
    "Short",
    "Byte",
    "EInt",
    "ELong",
    "EShort",
    "EByte",
    "EIntegerObject",
    "ELongObject",
    "EShortObject",
    "EByteObject",
    "EBigInteger",
    "BigInteger",
];
const FLOAT_TYPES: &[&str] = &[
    "double",
    "float",
    "Double",
    "Float",
    "EDouble",
    "EFloat",
    "EDoubleObject",
    "EFloatObject",
    "EBigDecimal",
    "BigDecimal",
];
const BOOL_TYPES: &[&str] = &["boolean", "Boolean", "EBoolean", "EBooleanObject"];

impl Metamodel {
    /// Reads a metamodel file: `.xcore` as Xcore text, anything else as Ecore XML.
    pub fn load(path: &Path) -> Result<Metamodel> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        if path.extension().is_some_and(|e| e == "xcore") {
            xcore::parse(&text, Some(path))
        } else {
            ecore::parse(&text, Some(path))
        }
    }

    /// Parses Xcore source text.
    pub fn from_xcore(text: &str) -> Result<Metamodel> {
        xcore::parse(text, None)
    }

    /// Parses Ecore XML text.
    pub fn from_ecore(text: &str) -> Result<Metamodel> {
        ecore::parse(text, None)
    }

    /// Adds the classes and enums of `other` (later definitions of a name win).
    pub fn merge(&mut self, other: Metamodel) {
        self.classes.extend(other.classes);
        self.enums.extend(other.enums);
    }

    /// The type of a type name as an attribute, or `None` when it names a class (a reference).
    pub(crate) fn attr_type_of(&self, type_name: &str) -> Option<AttrType> {
        if self.classes.contains_key(type_name) {
            return None;
        }
        Some(if INT_TYPES.contains(&type_name) {
            AttrType::Int
        } else if FLOAT_TYPES.contains(&type_name) {
            AttrType::Float
        } else if BOOL_TYPES.contains(&type_name) {
            AttrType::Bool
        } else if self.enums.contains_key(type_name) {
            AttrType::Enum(type_name.to_owned())
        } else {
            AttrType::Str
        })
    }

    /// `class` followed by all its ancestors (breadth-first, each once; unknown names kept as
    /// given, cycles cut). A name that is not a class of the metamodel yields just itself.
    pub fn labels_of(&self, class: &str) -> Vec<String> {
        let mut out = vec![class.to_owned()];
        let mut i = 0;
        while i < out.len() {
            if let Some(c) = self.classes.get(&out[i]) {
                for s in &c.supertypes {
                    if !out.contains(s) {
                        out.push(s.clone());
                    }
                }
            }
            i += 1;
        }
        out
    }

    /// The attribute `name` of `class` or of one of its ancestors.
    pub fn attribute(&self, class: &str, name: &str) -> Option<&Attribute> {
        self.ancestry(class)
            .into_iter()
            .find_map(|c| c.attributes.iter().find(|a| a.name == name))
    }

    /// The class named `class` and its ancestors (breadth-first, each once), without copying
    /// names.
    fn ancestry(&self, class: &str) -> Vec<&Class> {
        let mut out: Vec<&Class> = self.classes.get(class).into_iter().collect();
        let mut i = 0;
        while i < out.len() {
            for s in &out[i].supertypes {
                if let Some(c) = self.classes.get(s) {
                    if !out.iter().any(|o| std::ptr::eq(*o, c)) {
                        out.push(c);
                    }
                }
            }
            i += 1;
        }
        out
    }

    /// The reference `name` of `class` or of one of its ancestors.
    pub fn reference(&self, class: &str, name: &str) -> Option<&Reference> {
        self.ancestry(class)
            .into_iter()
            .find_map(|c| c.references.iter().find(|r| r.name == name))
    }

    /// Every attribute of `class`, inherited ones included (nearest declaration first).
    pub fn all_attributes(&self, class: &str) -> Vec<&Attribute> {
        let mut out: Vec<&Attribute> = Vec::new();
        for c in self.ancestry(class) {
            for a in &c.attributes {
                if !out.iter().any(|b| b.name == a.name) {
                    out.push(a);
                }
            }
        }
        out
    }

    /// The opposite of reference `feature`: looked up on `class` (and its ancestors) when given,
    /// else on any class, provided every class declaring a reference of that name agrees.
    pub fn opposite(&self, class: Option<&str>, feature: &str) -> Option<&str> {
        if let Some(c) = class {
            if let Some(r) = self.reference(c, feature) {
                return r.opposite.as_deref();
            }
        }
        let mut found: Option<&str> = None;
        for c in self.classes.values() {
            for r in c.references.iter().filter(|r| r.name == feature) {
                match (found, r.opposite.as_deref()) {
                    (_, None) => return None,
                    (None, Some(o)) => found = Some(o),
                    (Some(f), Some(o)) if f != o => return None,
                    _ => {}
                }
            }
        }
        found
    }

    /// Converts an attribute's text to a typed value (`None`: not a valid literal of the type).
    /// Enum values are kept as literal names; a numeric literal value is mapped to its name.
    pub fn convert(&self, ty: &AttrType, text: &str) -> Option<Value> {
        convert(self, ty, text)
    }

    /// The value an unset single-valued attribute has in EMF: its declared default, else `0`,
    /// `0.0`, `false` or an enum's first literal; `None` for strings and multi-valued attributes.
    pub fn default_value(&self, attr: &Attribute) -> Option<Value> {
        if attr.many {
            return None;
        }
        if let Some(lit) = &attr.default_literal {
            return self.convert(&attr.ty, lit);
        }
        match &attr.ty {
            AttrType::Int => Some(Value::Int(0)),
            AttrType::Float => Some(Value::Float(0.0)),
            AttrType::Bool => Some(Value::Bool(false)),
            AttrType::Str => None,
            AttrType::Enum(e) => self
                .enums
                .get(e)
                .and_then(|e| e.literals.first())
                .map(|(l, _)| Value::Str(l.clone())),
        }
    }
}

fn convert(mm: &Metamodel, ty: &AttrType, text: &str) -> Option<Value> {
    let t = text.trim();
    match ty {
        AttrType::Int => t.parse::<i64>().ok().map(Value::Int),
        AttrType::Float => t.parse::<f64>().ok().map(Value::Float),
        AttrType::Bool => match t.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        AttrType::Str => Some(Value::Str(text.to_owned())),
        AttrType::Enum(e) => {
            let Some(en) = mm.enums.get(e) else {
                return Some(Value::Str(t.to_owned()));
            };
            if en.literals.iter().any(|(l, _)| l == t) {
                return Some(Value::Str(t.to_owned()));
            }
            let n: i64 = t.parse().ok()?;
            en.literals
                .iter()
                .find(|(_, v)| *v == n)
                .map(|(l, _)| Value::Str(l.clone()))
        }
    }
}

/// Completes references that have an opposite: every recorded edge `a -[f]-> b` whose feature
/// `f` has opposite `g` gets `b -[g]-> a`, unless that edge was recorded too. Both sides of a
/// bidirectional reference are usually serialised; this fills in the side that is not (EMF omits
/// container references, CSV exports often carry one side only). Only edges of types that are
/// some feature's opposite are remembered, and nothing without a metamodel.
#[derive(Debug, Default)]
pub struct Opposites {
    enabled: bool,
    reverse_names: HashSet<String>,
    edges: HashSet<(u32, u32, u32)>,
    pending: Vec<(u32, u32, u32)>,
}

impl Opposites {
    /// A recorder for the opposites `metamodel` declares (inactive without one).
    pub fn new(metamodel: Option<&Metamodel>) -> Self {
        let reverse_names = metamodel
            .map(|mm| {
                mm.classes
                    .values()
                    .flat_map(|c| c.references.iter().filter_map(|r| r.opposite.clone()))
                    .collect()
            })
            .unwrap_or_default();
        Opposites {
            enabled: metamodel.is_some(),
            reverse_names,
            ..Default::default()
        }
    }

    /// Records an edge `src -[feature]-> dst` (type id `ty`) added to the builder; `opposite` is
    /// the opposite feature's name, if any.
    pub fn record(
        &mut self,
        builder: &mut ModelBuilder,
        (src, feature, ty, dst): (u32, &str, u32, u32),
        opposite: Option<&str>,
    ) {
        if !self.enabled {
            return;
        }
        if self.reverse_names.contains(feature) {
            self.edges.insert((src, ty, dst));
        }
        if let Some(o) = opposite {
            let oty = builder.rel_type(o);
            self.pending.push((dst, oty, src));
        }
    }

    /// Adds the missing opposite edges; returns how many were added.
    pub fn finish(self, builder: &mut ModelBuilder) -> Result<u64> {
        let Opposites {
            mut edges, pending, ..
        } = self;
        let mut added = 0;
        for (s, t, d) in pending {
            if edges.insert((s, t, d)) {
                builder.add_edge(s, d, t)?;
                added += 1;
            }
        }
        Ok(added)
    }
}
