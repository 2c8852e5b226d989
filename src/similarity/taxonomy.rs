//! Taxonomies of concepts (ingredients, tasks) with a depth-based similarity.
//!
//! A taxonomy file is a JSON object with one key, the root concept, whose value is an object of
//! child concepts, recursively: `{"ingredient": {"vegetable": {"tomato": {}}, "cheese": {}}}`.
//! Concept names are unique. The similarity of two concepts is
//! `depth(lca(a, b)) / max(depth(a), depth(b))` with the root at depth 0, and 1 for equal concepts:
//! concepts that only share the root are unrelated (0), siblings deep in the tree are close.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// A tree of concepts.
#[derive(Debug, Clone, Default)]
pub struct Taxonomy {
    names: Vec<String>,
    index: HashMap<String, usize>,
    parent: Vec<usize>,
    depth: Vec<u32>,
}

impl Taxonomy {
    /// Reads a taxonomy file.
    pub fn load(path: &Path) -> Result<Taxonomy> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let value: Value = serde_json::from_str(&text).map_err(|e| Error::Parse {
            location: crate::error::Location {
                file: Some(path.to_path_buf()),
                line: e.line() as u64,
                column: e.column() as u64,
            },
            message: format!("invalid JSON: {e}"),
        })?;
        Taxonomy::from_json(&value).map_err(|e| Error::BadFile {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// Builds a taxonomy from its JSON tree (see the module documentation).
    pub fn from_json(value: &Value) -> Result<Taxonomy> {
        let Value::Object(top) = value else {
            return Err(Error::InvalidArgument(
                "taxonomy: the tree must be an object".into(),
            ));
        };
        if top.len() != 1 {
            return Err(Error::InvalidArgument(format!(
                "taxonomy: the top level must hold exactly one root concept, found {}",
                top.len()
            )));
        }
        let mut t = Taxonomy::default();
        // Iterative walk: (name, children, parent index).
        let mut stack: Vec<(&String, &Value, usize)> =
            top.iter().map(|(k, v)| (k, v, usize::MAX)).collect();
        while let Some((name, children, parent)) = stack.pop() {
            if t.index.contains_key(name) {
                return Err(Error::InvalidArgument(format!(
                    "taxonomy: concept `{name}` appears twice"
                )));
            }
            let i = t.names.len();
            t.names.push(name.clone());
            t.index.insert(name.clone(), i);
            t.parent.push(parent);
            t.depth.push(if parent == usize::MAX {
                0
            } else {
                t.depth[parent] + 1
            });
            match children {
                Value::Object(m) => stack.extend(m.iter().rev().map(|(k, v)| (k, v, i))),
                Value::Null => {}
                _ => {
                    return Err(Error::InvalidArgument(format!(
                        "taxonomy: the children of `{name}` must be an object"
                    )))
                }
            }
        }
        Ok(t)
    }

    /// Builds a taxonomy from `(concept, parent)` pairs; the first pair is the root (its parent
    /// is ignored). Parents must come before their children.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<Taxonomy> {
        let mut tree = Map::new();
        let mut paths: HashMap<&str, Vec<&str>> = HashMap::new();
        for (i, &(concept, parent)) in pairs.iter().enumerate() {
            let path = if i == 0 {
                vec![concept]
            } else {
                let mut p = paths.get(parent).cloned().ok_or_else(|| {
                    Error::InvalidArgument(format!("taxonomy: unknown parent `{parent}`"))
                })?;
                p.push(concept);
                p
            };
            let mut node = &mut tree;
            for step in &path {
                node = node
                    .entry(step.to_string())
                    .or_insert_with(|| Value::Object(Map::new()))
                    .as_object_mut()
                    .expect("taxonomy nodes are objects");
            }
            paths.insert(concept, path);
        }
        Taxonomy::from_json(&Value::Object(tree))
    }

    /// The JSON tree of this taxonomy (the file format).
    pub fn to_json(&self) -> Value {
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.names.len()];
        let mut roots = Vec::new();
        for (i, &p) in self.parent.iter().enumerate() {
            if p == usize::MAX {
                roots.push(i);
            } else {
                children[p].push(i);
            }
        }
        fn build(t: &Taxonomy, children: &[Vec<usize>], i: usize) -> Value {
            Value::Object(
                children[i]
                    .iter()
                    .map(|&c| (t.names[c].clone(), build(t, children, c)))
                    .collect(),
            )
        }
        Value::Object(
            roots
                .iter()
                .map(|&r| (self.names[r].clone(), build(self, &children, r)))
                .collect(),
        )
    }

    /// Whether `concept` is in the taxonomy.
    pub fn contains(&self, concept: &str) -> bool {
        self.index.contains_key(concept)
    }

    /// Number of concepts.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the taxonomy has no concepts.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The leaf concepts (no children), in file order.
    pub fn leaves(&self) -> Vec<&str> {
        let mut has_child = vec![false; self.names.len()];
        for &p in &self.parent {
            if p != usize::MAX {
                has_child[p] = true;
            }
        }
        (0..self.names.len())
            .filter(|&i| !has_child[i])
            .map(|i| self.names[i].as_str())
            .collect()
    }

    /// Depth-based similarity of two concepts (1 when equal, 0 when either is unknown and they differ).
    pub fn similarity(&self, a: &str, b: &str) -> f64 {
        if a == b {
            return 1.0;
        }
        let (Some(&i), Some(&j)) = (self.index.get(a), self.index.get(b)) else {
            return 0.0;
        };
        let (mut x, mut y) = (i, j);
        while self.depth[x] > self.depth[y] {
            x = self.parent[x];
        }
        while self.depth[y] > self.depth[x] {
            y = self.parent[y];
        }
        while x != y {
            if self.parent[x] == usize::MAX || self.parent[y] == usize::MAX {
                return 0.0;
            }
            x = self.parent[x];
            y = self.parent[y];
        }
        let deepest = self.depth[i].max(self.depth[j]);
        if deepest == 0 {
            1.0
        } else {
            f64::from(self.depth[x]) / f64::from(deepest)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_based_similarity() {
        let t = Taxonomy::from_json(
            &serde_json::json!({"food": {"cheese": {"hard": {"cheddar": {},
            "gouda": {}}, "soft": {"mozzarella": {}}}, "vegetable": {"cucumber": {}}}}),
        )
        .unwrap();
        assert_eq!(t.len(), 9);
        assert_eq!(t.similarity("cheddar", "cheddar"), 1.0);
        assert!((t.similarity("cheddar", "gouda") - 2.0 / 3.0).abs() < 1e-12);
        assert!((t.similarity("cheddar", "mozzarella") - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(t.similarity("cheddar", "cucumber"), 0.0);
        assert!((t.similarity("cheese", "cheddar") - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(t.similarity("cheddar", "bread"), 0.0);
        let back = Taxonomy::from_json(&t.to_json()).unwrap();
        assert_eq!(
            back.similarity("cheddar", "gouda"),
            t.similarity("cheddar", "gouda")
        );
        assert!(Taxonomy::from_json(&serde_json::json!({"a": {"b": {}}, "c": {}})).is_err());
        assert!(Taxonomy::from_json(&serde_json::json!({"a": {"b": {"a": {}}}})).is_err());
    }
}
