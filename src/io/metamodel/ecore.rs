//! A reader for Ecore XML metamodels (`.ecore`): `eClassifiers` (EClass, EEnum, EDataType, in any
//! sub-package), their `eStructuralFeatures` (EAttribute, EReference) and `eLiterals`.

use std::path::Path;

use hashbrown::HashMap;
use quick_xml::events::{BytesStart, Event};

use super::{Attribute, Class, EnumType, Metamodel, Reference};
use crate::error::{Error, Result};

/// The classifier name at the end of an Ecore type URI: `ecore:EDataType
/// http://…/Ecore#//EInt` → `EInt`, `#//pkg/Sensor` → `Sensor`.
fn last_segment(uri: &str) -> String {
    let uri = uri.rsplit(' ').next().unwrap_or(uri);
    let frag = uri.rsplit('#').next().unwrap_or(uri);
    frag.rsplit('/').next().unwrap_or(frag).to_owned()
}

struct Feature {
    class: String,
    is_reference: bool,
    name: String,
    ty: String,
    many: bool,
    containment: bool,
    opposite: Option<String>,
    default: Option<String>,
    is_id: bool,
}

fn attrs(e: &BytesStart<'_>, line: u64, file: Option<&Path>) -> Result<HashMap<String, String>> {
    let mut out = HashMap::new();
    for a in e.attributes() {
        let a = a.map_err(|err| {
            Error::parse(
                file.map(Path::to_path_buf),
                line,
                0,
                format!("bad attribute: {err}"),
            )
        })?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a.unescape_value().map_err(|err| {
            Error::parse(
                file.map(Path::to_path_buf),
                line,
                0,
                format!("bad attribute value: {err}"),
            )
        })?;
        out.insert(key, value.into_owned());
    }
    Ok(out)
}

/// Turns byte positions into 1-based line numbers, counting newlines only once.
#[derive(Default)]
struct LineCounter {
    pos: usize,
    line: u64,
}

impl LineCounter {
    /// The line of byte `pos` of `text`; positions before the last one asked are counted again
    /// from the start (never the case while parsing, which only moves forward).
    fn line_at(&mut self, text: &[u8], pos: u64) -> u64 {
        let pos = (pos as usize).min(text.len());
        if pos < self.pos {
            self.pos = 0;
            self.line = 0;
        }
        self.line += text[self.pos..pos].iter().filter(|&&b| b == b'\n').count() as u64;
        self.pos = pos;
        self.line + 1
    }
}

/// Parses Ecore XML (`file` names it in errors).
pub(super) fn parse(text: &str, file: Option<&Path>) -> Result<Metamodel> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut mm = Metamodel::default();
    let mut data_types: HashMap<String, String> = HashMap::new();
    let mut features: Vec<Feature> = Vec::new();
    // The classifiers opened so far (is a class, name) and the element stack: for each open
    // element, the innermost classifier enclosing it (or opened by it), as an index into
    // `classifiers`. Inheriting it keeps the look-up O(1) at any depth.
    let mut classifiers: Vec<(bool, String)> = Vec::new();
    let mut stack: Vec<Option<usize>> = Vec::new();
    // Line numbers are counted incrementally (positions only grow), so the whole parse stays
    // linear in the size of the text.
    let mut lines = LineCounter::default();
    let mut line_at = |pos: u64| lines.line_at(text.as_bytes(), pos);
    loop {
        let pos = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            Error::parse(
                file.map(Path::to_path_buf),
                line_at(reader.error_position()),
                0,
                format!("malformed XML: {e}"),
            )
        })?;
        let (e, empty) = match event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let line = line_at(pos);
        let local = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
        let a = attrs(&e, line, file)?;
        let xsi = a
            .get("xsi:type")
            .map(|t| t.rsplit(':').next().unwrap_or("").to_owned())
            .unwrap_or_default();
        let name = a.get("name").cloned().unwrap_or_default();
        let enclosing_index = stack.last().copied().flatten();
        let enclosing = enclosing_index.map(|i| classifiers[i].clone());
        let mut opened: Option<(bool, String)> = None;
        match local.as_str() {
            "eClassifiers" => {
                if name.is_empty() {
                    return Err(Error::parse(
                        file.map(Path::to_path_buf),
                        line,
                        0,
                        "a classifier without a name",
                    ));
                }
                match xsi.as_str() {
                    "EEnum" => {
                        mm.enums.insert(
                            name.clone(),
                            EnumType {
                                name: name.clone(),
                                literals: Vec::new(),
                            },
                        );
                        opened = Some((false, name));
                    }
                    "EDataType" => {
                        let inst = a.get("instanceClassName").cloned().unwrap_or_default();
                        let inst = inst.rsplit('.').next().unwrap_or("").to_owned();
                        data_types.insert(name, inst);
                    }
                    _ => {
                        let class = Class {
                            name: name.clone(),
                            is_abstract: a.get("abstract").is_some_and(|v| v == "true")
                                || a.get("interface").is_some_and(|v| v == "true"),
                            supertypes: a
                                .get("eSuperTypes")
                                .map(|s| s.split_whitespace().map(last_segment).collect())
                                .unwrap_or_default(),
                            ..Default::default()
                        };
                        mm.classes.insert(name.clone(), class);
                        opened = Some((true, name));
                    }
                }
            }
            "eStructuralFeatures" => {
                let Some((true, class)) = enclosing else {
                    return Err(Error::parse(
                        file.map(Path::to_path_buf),
                        line,
                        0,
                        "a structural feature outside a class",
                    ));
                };
                let upper: i64 = a
                    .get("upperBound")
                    .and_then(|u| u.parse().ok())
                    .unwrap_or(1);
                features.push(Feature {
                    class,
                    is_reference: xsi == "EReference",
                    name,
                    ty: a.get("eType").map(|t| last_segment(t)).unwrap_or_default(),
                    many: upper != 1,
                    containment: a.get("containment").is_some_and(|v| v == "true"),
                    opposite: a.get("eOpposite").map(|o| last_segment(o)),
                    default: a.get("defaultValueLiteral").cloned(),
                    is_id: a.get("iD").is_some_and(|v| v == "true"),
                });
            }
            "eGenericType" => {
                if let (Some(f), Some(c)) = (features.last_mut(), a.get("eClassifier")) {
                    if f.ty.is_empty() {
                        f.ty = last_segment(c);
                    }
                }
            }
            "eLiterals" => {
                if let Some((false, en)) = &enclosing {
                    if let Some(en) = mm.enums.get_mut(en) {
                        let value = match a.get("value") {
                            Some(v) => v.parse().map_err(|_| {
                                Error::parse(
                                    file.map(Path::to_path_buf),
                                    line,
                                    0,
                                    format!("bad literal value `{v}`"),
                                )
                            })?,
                            None => en.literals.last().map_or(0, |l| l.1 + 1),
                        };
                        en.literals.push((name, value));
                    }
                }
            }
            _ => {}
        }
        if !empty {
            let inner = match opened {
                Some(c) => {
                    classifiers.push(c);
                    Some(classifiers.len() - 1)
                }
                None => enclosing_index,
            };
            stack.push(inner);
        }
    }
    for f in features {
        let ty = data_types.get(&f.ty).cloned().unwrap_or(f.ty);
        let attr_ty = if f.is_reference {
            None
        } else {
            Some(mm.attr_type_of(&ty).unwrap_or(super::AttrType::Str))
        };
        let Some(class) = mm.classes.get_mut(&f.class) else {
            continue;
        };
        match attr_ty {
            Some(t) => class.attributes.push(Attribute {
                name: f.name,
                ty: t,
                many: f.many,
                default_literal: f.default,
                is_id: f.is_id,
            }),
            None => class.references.push(Reference {
                name: f.name,
                target: ty,
                containment: f.containment,
                many: f.many,
                opposite: f.opposite,
            }),
        }
    }
    Ok(mm)
}
