//! EMF XMI models, read generically (no generated code): a streaming pass with quick-xml turns
//! each element into a node and each reference into an edge.
//!
//! - **Class** (the node's label): the element's `xsi:type` (`railway:Segment` → `Segment`), else
//!   the type the metamodel gives its containment feature, else the tag's local name (the root's
//!   `railway:RailwayContainer` → `RailwayContainer`). With a metamodel the node also carries every
//!   superclass as a label.
//! - **Containment**: a nested element is a child of its parent through an edge typed by the
//!   feature (the tag): `(container)-[:routes]->(route)`.
//! - **Cross-references**: attributes holding fragment paths (`//@regions.0/@sensors.1`,
//!   `/1/@a.0`, `other.xmi#//@a.0`), `xmi:id`s or values of the class's ID attribute (Xcore
//!   `id`, Ecore `iD="true"`), several separated by spaces, and child
//!   elements with an `href`, become edges typed by the feature name. With a metamodel, the
//!   references are those it declares; without one, an attribute is a reference when all of its
//!   values are paths or known `xmi:id`s.
//! - **Properties**: the other attributes, typed by the metamodel (enums as literal names), or
//!   without one by inference over all values of the name (int, else float, else bool, else
//!   string). With a metamodel, unset single-valued attributes get EMF's default values (`0`,
//!   `false`, the first enum literal), as `eGet` would return them. Attributes written as
//!   child elements (`<tags>a</tags>`) are read when the metamodel declares them; several values
//!   are stored as a JSON array text.
//! - **Opposites**: a reference whose metamodel feature has an `opposite` also gets the reverse
//!   edge when the file does not carry it (EMF never writes container references).
//! - **Keys**: a node's key is its EMF fragment path (`//@regions.0/@sensors.1`); see
//!   [`fragment`]. A path longer than [`fragment::MAX_PATH_KEY`] bytes (deep nesting) is not a
//!   key: such an element gets the short key `/~<n>` (its position in document order), so keys,
//!   memory and snapshots stay linear in the number of elements however deep the nesting.
//!   `xmi:id` is kept as the property `xmi:id`.
//!
//! Loading is linear in the input: no element copies its ancestors' path or keeps a per-depth
//! structure; references written as paths are followed step by step through a
//! (parent, feature, index) → child table.
//!
//! References that do not resolve are malformed rows (file and line), skipped unless strict.

pub mod fragment;
mod lines;

use std::io::BufRead;
use std::path::{Path, PathBuf};

use hashbrown::HashMap;
use quick_xml::events::{BytesStart, Event};

use self::fragment::Target;
use self::lines::LineTracker;
use super::metamodel::{Metamodel, Opposites};
use super::report::{LoadOptions, LoadReport};
use crate::error::{Error, Result};
use crate::model::{Model, ModelBuilder, Value};

/// A reference waiting for the end of the load (its target may come later or in another file).
struct PendingRef {
    src: u32,
    class: u32,
    feature: u32,
    feature_name: u32,
    token: String,
    prefix: u32,
    file: usize,
    line: u64,
}

/// An attribute the metamodel does not type: kept until every value of its name is known.
struct PendingAttr {
    node: u32,
    class: u32,
    value: String,
    prefix: u32,
    file: usize,
    line: u64,
}

/// One open element.
enum Frame {
    /// The `<xmi:XMI>` wrapper of a multi-root document: counts its roots.
    Wrapper { roots: usize },
    /// A model object; `path` is its fragment path while that is short enough to be its key.
    Object {
        node: u32,
        class: u32,
        path: Option<String>,
        counters: HashMap<u32, u32>,
    },
    /// An attribute written as an element: collects its text.
    AttrValue {
        node: u32,
        class: u32,
        name: String,
        text: String,
        line: u64,
    },
    /// Anything else (`xmi:Extension`, `href` proxies, unknown markup): skipped to its end.
    Skip,
}

/// Loads XMI files into a builder. Several files form one model; the prefix of each file's keys
/// is `""` for a single file, else `<file name>#`.
pub struct XmiLoader<'a> {
    builder: &'a mut ModelBuilder,
    metamodel: Option<&'a Metamodel>,
    options: &'a LoadOptions,
    report: &'a mut LoadReport,
    names: crate::model::Interner,
    prefixes: Vec<(String, bool)>,
    multi_file: bool,
    ids: HashMap<(u32, String), u32>,
    refs: Vec<PendingRef>,
    attrs: HashMap<String, Vec<PendingAttr>>,
    element_attrs: Vec<(u32, u32, String, Vec<String>, usize, u64)>,
    /// Where `(node, attribute name)` sits in `element_attrs`.
    element_attr_index: HashMap<(u32, u32), usize>,
    /// The root elements: `(prefix, root index)` → node.
    roots: HashMap<(u32, u32), u32>,
    /// The containment tree: `(parent, feature name, index)` → child, to follow fragment paths.
    children: HashMap<(u32, u32, u32), u32>,
    opposites: Opposites,
}

/// Where a new element sits.
enum Place {
    /// Root number `index` of its file.
    Root(u32),
    /// Child `index` of `parent` (class `class`) in containment feature `feature`.
    Child {
        parent: u32,
        class: u32,
        feature: String,
        index: u32,
    },
}

fn attr_error(file: &Path, line: u64, e: impl std::fmt::Display) -> Error {
    Error::parse(
        Some(file.to_path_buf()),
        line,
        0,
        format!("bad attribute: {e}"),
    )
}

fn local(name: &[u8]) -> String {
    let s = String::from_utf8_lossy(name);
    match s.rsplit_once(':') {
        Some((_, l)) => l.to_owned(),
        None => s.into_owned(),
    }
}

impl<'a> XmiLoader<'a> {
    /// A loader adding to `builder`; `file_count` tells whether keys need file prefixes.
    pub fn new(
        builder: &'a mut ModelBuilder,
        metamodel: Option<&'a Metamodel>,
        options: &'a LoadOptions,
        report: &'a mut LoadReport,
        file_count: usize,
    ) -> Self {
        XmiLoader {
            builder,
            metamodel,
            options,
            report,
            names: Default::default(),
            prefixes: Vec::new(),
            multi_file: file_count > 1,
            ids: HashMap::new(),
            refs: Vec::new(),
            attrs: HashMap::new(),
            element_attrs: Vec::new(),
            element_attr_index: HashMap::new(),
            roots: HashMap::new(),
            children: HashMap::new(),
            opposites: Opposites::new(metamodel),
        }
    }

    /// Reads one file (plain or gzip).
    pub fn read_file(&mut self, path: &Path) -> Result<()> {
        let input = super::input::open(path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.read(input.reader, path, &name, input.size)
    }

    /// Reads one document from `reader`; `path` names it in messages, `name` is its file name
    /// (the key prefix when several files load together).
    pub fn read(
        &mut self,
        reader: impl BufRead,
        path: &Path,
        name: &str,
        bytes: u64,
    ) -> Result<()> {
        let file = self.report.begin_file(path, bytes);
        let prefix_text = if self.multi_file {
            format!("{name}#")
        } else {
            String::new()
        };
        let prefix = self.prefixes.len() as u32;
        self.prefixes.push((prefix_text.clone(), false));
        let mut xml = quick_xml::Reader::from_reader(LineTracker::new(reader));
        let mut buf = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        let mut seen_root = false;
        loop {
            let (line, column) = xml.get_ref().position();
            buf.clear();
            let event = match xml.read_event_into(&mut buf) {
                Ok(e) => e,
                Err(e) => {
                    let (l, c) = xml.get_ref().position();
                    return Err(Error::parse(
                        Some(path.to_path_buf()),
                        l,
                        c,
                        format!("malformed XML: {e}"),
                    ));
                }
            };
            match event {
                Event::Start(e) => {
                    let frame =
                        self.start(&e, &mut stack, path, file, prefix, line, &mut seen_root)?;
                    stack.push(frame);
                }
                Event::Empty(e) => {
                    let frame =
                        self.start(&e, &mut stack, path, file, prefix, line, &mut seen_root)?;
                    self.end(frame);
                }
                Event::End(_) => {
                    if let Some(frame) = stack.pop() {
                        self.end(frame);
                    }
                }
                Event::Text(t) => {
                    if let Some(Frame::AttrValue { text, .. }) = stack.last_mut() {
                        let s = t.unescape().map_err(|e| {
                            Error::parse(Some(path.to_path_buf()), line, column, e.to_string())
                        })?;
                        text.push_str(&s);
                    }
                }
                Event::CData(t) => {
                    if let Some(Frame::AttrValue { text, .. }) = stack.last_mut() {
                        text.push_str(&String::from_utf8_lossy(&t));
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if !stack.is_empty() {
            let (l, c) = xml.get_ref().position();
            return Err(Error::parse(
                Some(path.to_path_buf()),
                l,
                c,
                "unexpected end of file: an element is not closed",
            ));
        }
        if !seen_root {
            return Err(Error::BadFile {
                path: path.to_path_buf(),
                message: "no root element: not an XMI model".into(),
            });
        }
        Ok(())
    }

    fn end(&mut self, frame: Frame) {
        if let Frame::AttrValue {
            node,
            class,
            name,
            text,
            line,
        } = frame
        {
            let file = self.report.files.len() - 1;
            let name_id = self.names.intern(&name);
            match self.element_attr_index.get(&(node, name_id)) {
                Some(&i) => self.element_attrs[i].3.push(text),
                None => {
                    self.element_attr_index
                        .insert((node, name_id), self.element_attrs.len());
                    self.element_attrs
                        .push((node, class, name, vec![text], file, line));
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        e: &BytesStart<'_>,
        stack: &mut [Frame],
        path: &Path,
        file: usize,
        prefix: u32,
        line: u64,
        seen_root: &mut bool,
    ) -> Result<Frame> {
        let qname = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        let tag = local(qname.as_bytes());
        let is_xmi_ns = qname.starts_with("xmi:");
        let mut attrs: Vec<(String, String)> = Vec::new();
        for a in e.attributes() {
            let a = a.map_err(|err| attr_error(path, line, err))?;
            let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            let value = a
                .unescape_value()
                .map_err(|err| attr_error(path, line, err))?
                .into_owned();
            attrs.push((key, value));
        }
        let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
        let xsi_type = get("xsi:type")
            .or(get("xmi:type"))
            .map(|t| local(t.as_bytes()));
        let prefix_text = self.prefixes[prefix as usize].0.clone();

        // Where the element sits: the document root, a root inside <xmi:XMI>, or a feature.
        let (class, path_key, place) = match stack.last_mut() {
            None => {
                if *seen_root {
                    return Ok(Frame::Skip);
                }
                *seen_root = true;
                if qname == "xmi:XMI" {
                    self.prefixes[prefix as usize].1 = true;
                    return Ok(Frame::Wrapper { roots: 0 });
                }
                (
                    xsi_type.unwrap_or(tag.clone()),
                    Some(fragment::root_key(&prefix_text, false, 0)),
                    Place::Root(0),
                )
            }
            Some(Frame::Wrapper { roots }) => {
                if is_xmi_ns {
                    return Ok(Frame::Skip);
                }
                let index = *roots;
                *roots += 1;
                (
                    xsi_type.unwrap_or(tag.clone()),
                    Some(fragment::root_key(&prefix_text, true, index)),
                    Place::Root(index as u32),
                )
            }
            Some(Frame::Object {
                node,
                class,
                path: parent_path,
                counters,
            }) => {
                if is_xmi_ns {
                    return Ok(Frame::Skip);
                }
                let class_name = self.names.name(*class).unwrap_or("").to_owned();
                let mm = self.metamodel;
                let feature = tag.clone();
                if let Some(href) = get("href") {
                    let feature_id = self.builder.rel_type(&feature);
                    let feature_name = self.names.intern(&feature);
                    for token in href.split_whitespace() {
                        self.refs.push(PendingRef {
                            src: *node,
                            class: *class,
                            feature: feature_id,
                            feature_name,
                            token: token.to_owned(),
                            prefix,
                            file,
                            line,
                        });
                    }
                    return Ok(Frame::Skip);
                }
                if mm.is_some_and(|m| m.attribute(&class_name, &feature).is_some()) {
                    return Ok(Frame::AttrValue {
                        node: *node,
                        class: *class,
                        name: feature,
                        text: String::new(),
                        line,
                    });
                }
                let declared = mm.and_then(|m| m.reference(&class_name, &feature));
                let child_class = xsi_type
                    .or_else(|| declared.map(|r| r.target.clone()))
                    .unwrap_or_else(|| feature.clone());
                let feature_name = self.names.intern(&feature);
                let counter = counters.entry(feature_name).or_insert(0);
                let index = *counter;
                *counter += 1;
                // The path only while it is short: deeper paths would make keys quadratic.
                let path = parent_path
                    .as_deref()
                    .map(|p| fragment::child_key(p, &feature, index as usize))
                    .filter(|k| k.len() <= fragment::MAX_PATH_KEY);
                (
                    child_class,
                    path,
                    Place::Child {
                        parent: *node,
                        class: *class,
                        feature,
                        index,
                    },
                )
            }
            Some(Frame::AttrValue { .. }) | Some(Frame::Skip) => return Ok(Frame::Skip),
        };

        let labels = match self.metamodel {
            Some(mm) => mm.labels_of(&class),
            None => vec![class.clone()],
        };
        let label_refs: Vec<&str> = labels.iter().map(String::as_str).collect();
        let ordinal = self.report.files[file].rows;
        let key = match &path_key {
            Some(p) => p.clone(),
            None => fragment::compact_key(&prefix_text, ordinal),
        };
        let (node, created) = self.builder.ensure_node(&key);
        if !created {
            return Err(Error::parse(
                Some(path.to_path_buf()),
                line,
                0,
                format!("two elements have the address `{key}`"),
            ));
        }
        for l in &label_refs {
            let lid = self.builder.label(l);
            self.builder.add_label(node, lid);
        }
        self.report.files[file].rows += 1;
        let class_id = self.names.intern(&class);
        if let Place::Root(index) = place {
            self.roots.insert((prefix, index), node);
        }
        if let Place::Child {
            parent,
            class: parent_class,
            feature,
            index,
        } = place
        {
            let feature_name = self.names.intern(&feature);
            self.children.insert((parent, feature_name, index), node);
            let ty = self.builder.rel_type(&feature);
            self.builder.add_edge(parent, node, ty)?;
            let parent_class_name = self.names.name(parent_class).unwrap_or("").to_owned();
            let opposite = self
                .metamodel
                .and_then(|m| m.opposite(Some(&parent_class_name), &feature));
            self.opposites
                .record(self.builder, (parent, &feature, ty, node), opposite);
        }

        // Attributes.
        let mut set: Vec<String> = Vec::new();
        for (k, v) in &attrs {
            if k.starts_with("xmlns")
                || k.starts_with("xsi:")
                || k == "xmi:version"
                || k == "xmi:type"
            {
                continue;
            }
            if k == "xmi:id" || k == "xmi:uuid" {
                self.ids.insert((prefix, v.clone()), node);
                if k == "xmi:id" {
                    let pk = self.builder.node_property("xmi:id");
                    self.builder
                        .set_node_property(node, pk, crate::model::ValueRef::Str(v))?;
                }
                continue;
            }
            if k.starts_with("xmi:") {
                continue;
            }
            let mm = self.metamodel;
            if let Some(attr) = mm.and_then(|m| m.attribute(&class, k)) {
                set.push(k.clone());
                if attr.is_id {
                    self.ids.insert((prefix, v.clone()), node);
                }
                let value = if attr.many {
                    Some(Value::Str(v.clone()))
                } else {
                    mm.and_then(|m| m.convert(&attr.ty, v))
                };
                match value {
                    Some(value) => self.set_property(node, k, &value, path, line)?,
                    None => self.report.bad_row(
                        self.options,
                        file,
                        line,
                        format!(
                            "attribute `{k}` of {class}: `{v}` is not a valid {}",
                            type_name(&attr.ty)
                        ),
                    )?,
                }
            } else if mm.and_then(|m| m.reference(&class, k)).is_some() {
                let feature = self.builder.rel_type(k);
                let feature_name = self.names.intern(k);
                for token in v.split_whitespace() {
                    self.refs.push(PendingRef {
                        src: node,
                        class: class_id,
                        feature,
                        feature_name,
                        token: token.to_owned(),
                        prefix,
                        file,
                        line,
                    });
                }
            } else {
                self.attrs.entry(k.clone()).or_default().push(PendingAttr {
                    node,
                    class: class_id,
                    value: v.clone(),
                    prefix,
                    file,
                    line,
                });
            }
        }
        if let Some(mm) = self.metamodel {
            for attr in mm.all_attributes(&class) {
                if set.contains(&attr.name) {
                    continue;
                }
                if let Some(d) = mm.default_value(attr) {
                    // Overwritten by a child-element value, if one follows.
                    self.set_property(node, &attr.name, &d, path, line)?;
                }
            }
        }
        Ok(Frame::Object {
            node,
            class: class_id,
            path: path_key,
            counters: HashMap::new(),
        })
    }

    fn set_property(
        &mut self,
        node: u32,
        name: &str,
        value: &Value,
        path: &Path,
        line: u64,
    ) -> Result<()> {
        let key = self.builder.node_property(name);
        self.builder
            .set_node_property(node, key, value.as_ref())
            .map_err(|e| Error::parse(Some(path.to_path_buf()), line, 0, e.to_string()))
    }

    /// The element at fragment path `steps` below root `root` of the file with key prefix
    /// `prefix`, following the containment table (time linear in the path's length).
    fn follow(&self, prefix: &str, root: usize, steps: &[(String, usize)]) -> Option<u32> {
        let pi = self.prefixes.iter().position(|(q, _)| q == prefix)?;
        let mut node = *self.roots.get(&(pi as u32, u32::try_from(root).ok()?))?;
        for (feature, index) in steps {
            let f = self.names.get(feature)?;
            node = *self.children.get(&(node, f, u32::try_from(*index).ok()?))?;
        }
        Some(node)
    }

    /// Resolves references, types the remaining attributes and completes opposites.
    pub fn finish(mut self) -> Result<()> {
        // Attributes the metamodel does not know: references when every value is a path or id.
        let mut attrs: Vec<(String, Vec<PendingAttr>)> =
            std::mem::take(&mut self.attrs).into_iter().collect();
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, values) in attrs {
            let is_ref = values.iter().all(|p| {
                let mut tokens = p.value.split_whitespace().peekable();
                tokens.peek().is_some()
                    && tokens.all(|t| {
                        fragment::looks_like_path(t)
                            || self.ids.contains_key(&(p.prefix, t.to_owned()))
                    })
            });
            if is_ref {
                let feature = self.builder.rel_type(&name);
                let feature_name = self.names.intern(&name);
                for p in values {
                    for token in p.value.split_whitespace() {
                        self.refs.push(PendingRef {
                            src: p.node,
                            class: p.class,
                            feature,
                            feature_name,
                            token: token.to_owned(),
                            prefix: p.prefix,
                            file: p.file,
                            line: p.line,
                        });
                    }
                }
                continue;
            }
            let texts: Vec<&str> = values.iter().map(|p| p.value.as_str()).collect();
            let typed = infer_values(&texts);
            let key = self.builder.node_property(&name);
            for (p, v) in values.iter().zip(typed) {
                self.builder
                    .set_node_property(p.node, key, v.as_ref())
                    .map_err(|e| {
                        Error::parse(
                            Some(self.report.files[p.file].file.clone()),
                            p.line,
                            0,
                            e.to_string(),
                        )
                    })?;
            }
        }
        // Attributes written as elements.
        for (node, class, name, texts, file, line) in std::mem::take(&mut self.element_attrs) {
            let class_name = self.names.name(class).unwrap_or("").to_owned();
            let Some(mm) = self.metamodel else { continue };
            let Some(attr) = mm.attribute(&class_name, &name) else {
                continue;
            };
            let value = if attr.many {
                let items: Vec<serde_json::Value> = texts
                    .iter()
                    .map(|t| match mm.convert(&attr.ty, t) {
                        Some(Value::Int(i)) => serde_json::Value::from(i),
                        Some(Value::Float(f)) => serde_json::Value::from(f),
                        Some(Value::Bool(b)) => serde_json::Value::from(b),
                        _ => serde_json::Value::from(t.as_str()),
                    })
                    .collect();
                Some(Value::Str(serde_json::Value::Array(items).to_string()))
            } else {
                texts.last().and_then(|t| mm.convert(&attr.ty, t))
            };
            let path = self.report.files[file].file.clone();
            match value {
                Some(v) => self.set_property(node, &name, &v, &path, line)?,
                None => self.report.bad_row(
                    self.options,
                    file,
                    line,
                    format!(
                        "attribute `{name}` of {class_name}: not a valid {}",
                        type_name(&attr.ty)
                    ),
                )?,
            }
        }
        // References.
        let refs = std::mem::take(&mut self.refs);
        for r in refs {
            let prefix = &self.prefixes[r.prefix as usize].0;
            let prefixes = &self.prefixes;
            let found = fragment::target(
                &r.token,
                prefix,
                &|p| prefixes.iter().find(|(q, _)| q == p).map(|(_, w)| *w),
                &|name| {
                    if !self.multi_file {
                        return Some(String::new());
                    }
                    let p = format!("{name}#");
                    prefixes.iter().any(|(q, _)| *q == p).then_some(p)
                },
            );
            let dst = match found {
                Some(Target::Path {
                    prefix,
                    root,
                    steps,
                }) => self.follow(&prefix, root, &steps),
                Some(Target::Id(p, id)) => {
                    let pi = self.prefixes.iter().position(|(q, _)| *q == p);
                    pi.and_then(|pi| self.ids.get(&(pi as u32, id)).copied())
                }
                None => None,
            };
            let feature_name = self.names.name(r.feature_name).unwrap_or("").to_owned();
            match dst {
                Some(dst) => {
                    self.builder.add_edge(r.src, dst, r.feature)?;
                    let class_name = self.names.name(r.class).unwrap_or("").to_owned();
                    let opposite = self
                        .metamodel
                        .and_then(|m| m.opposite(Some(&class_name), &feature_name));
                    self.opposites.record(
                        self.builder,
                        (r.src, &feature_name, r.feature, dst),
                        opposite,
                    );
                }
                None => self.report.bad_row(
                    self.options,
                    r.file,
                    r.line,
                    format!(
                        "reference `{}` of feature `{feature_name}` does not resolve",
                        r.token
                    ),
                )?,
            }
        }
        let added = std::mem::take(&mut self.opposites).finish(self.builder)?;
        if added > 0 {
            log::debug!("added {added} opposite references");
        }
        Ok(())
    }
}

fn type_name(t: &super::metamodel::AttrType) -> String {
    use super::metamodel::AttrType;
    match t {
        AttrType::Int => "int".into(),
        AttrType::Float => "float".into(),
        AttrType::Bool => "boolean".into(),
        AttrType::Str => "string".into(),
        AttrType::Enum(e) => format!("literal of {e}"),
    }
}

/// Types a property from all of its values: int if all are integers, else float if all are
/// numbers, else bool if all are `true`/`false`, else string.
pub fn infer_values(values: &[&str]) -> Vec<Value> {
    if values.iter().all(|v| v.trim().parse::<i64>().is_ok()) {
        return values
            .iter()
            .map(|v| Value::Int(v.trim().parse().unwrap_or(0)))
            .collect();
    }
    if values.iter().all(|v| v.trim().parse::<f64>().is_ok()) {
        return values
            .iter()
            .map(|v| Value::Float(v.trim().parse().unwrap_or(0.0)))
            .collect();
    }
    if values.iter().all(|v| *v == "true" || *v == "false") {
        return values.iter().map(|v| Value::Bool(*v == "true")).collect();
    }
    values.iter().map(|v| Value::Str((*v).to_owned())).collect()
}

/// The lower-cased endings of XMI file names: a directory's files with these are loaded.
pub const EXTENSIONS: &[&str] = &[".xmi", ".xmi.gz"];

/// Loads XMI files (directories: their `.xmi` / `.xmi.gz` files) into `builder`.
pub fn load_into(
    builder: &mut ModelBuilder,
    paths: &[PathBuf],
    metamodel: Option<&Metamodel>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<()> {
    let files = super::expand::expand_paths_with(paths, EXTENSIONS)?;
    let mut loader = XmiLoader::new(builder, metamodel, options, report, files.len());
    for f in &files {
        loader.read_file(f)?;
    }
    loader.finish()
}

/// Reads one XMI document from memory into a model (for tests and fuzzing); `strict` options
/// make unresolved references errors.
pub fn read_str(
    text: &str,
    metamodel: Option<&Metamodel>,
    options: &LoadOptions,
) -> Result<(Model, LoadReport)> {
    let mut builder = ModelBuilder::new();
    let mut report = LoadReport::default();
    let mut loader = XmiLoader::new(&mut builder, metamodel, options, &mut report, 1);
    loader.read(
        text.as_bytes(),
        Path::new("<memory>"),
        "memory.xmi",
        text.len() as u64,
    )?;
    loader.finish()?;
    Ok((builder.freeze()?, report))
}
