//! The similarity model `sim_Σ`: one measure per node/edge type over semantic descriptions, plus the
//! taxonomies that taxonomy measures refer to. Read from a JSON file:
//!
//! ```json
//! { "taxonomies": { "ingredients": "ingredients.taxonomy.json", "tasks": {"task": {"cut": {}}} },
//!   "types": {
//!     "Task": { "measure": "object", "attributes": {
//!         "name": { "measure": "taxonomy", "taxonomy": "tasks", "weight": 2 },
//!         "duration": { "measure": "linear", "max_distance": 30 } } },
//!     "Data": { "measure": "object", "attributes": {
//!         "name": { "measure": "taxonomy", "taxonomy": "ingredients" } } } },
//!   "default": { "measure": "object" } }
//! ```
//!
//! Measures: `equality`, `linear` (`max_distance`), `exponential` (`lambda`), `levenshtein`
//! (`case_sensitive`, default false), `taxonomy` (`taxonomy`: a name from `taxonomies`) and
//! `object` (`attributes`: name → measure with optional `weight`, default 1). A taxonomy is a
//! file path (relative to the model file) or an inline tree. Types not listed use `default`
//! (itself defaulting to `object` without attributes: every query attribute, equality).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::measures::{Measure, ObjectMeasure};
use super::taxonomy::Taxonomy;
use crate::error::{Error, Location, Result};

/// `sim_Σ` per type.
#[derive(Debug, Clone, Default)]
pub struct SimilarityModel {
    taxonomy_names: Vec<String>,
    taxonomies: Vec<Taxonomy>,
    types: HashMap<String, Measure>,
    default: Option<Measure>,
}

impl SimilarityModel {
    /// The model that compares every description attribute by equality (weight 1 each).
    pub fn equality() -> Self {
        SimilarityModel::default()
    }

    /// Adds a taxonomy under `name` and returns its index for [`Measure::Taxonomy`].
    pub fn add_taxonomy(&mut self, name: &str, taxonomy: Taxonomy) -> usize {
        self.taxonomy_names.push(name.to_string());
        self.taxonomies.push(taxonomy);
        self.taxonomies.len() - 1
    }

    /// The taxonomy called `name`.
    pub fn taxonomy(&self, name: &str) -> Option<&Taxonomy> {
        let i = self.taxonomy_names.iter().position(|n| n == name)?;
        self.taxonomies.get(i)
    }

    /// Sets the measure of type `kind`.
    pub fn set_type(&mut self, kind: &str, measure: Measure) {
        self.types.insert(kind.to_string(), measure);
    }

    /// Sets the measure of types that have none of their own.
    pub fn set_default(&mut self, measure: Measure) {
        self.default = Some(measure);
    }

    /// `sim_Σ(q, c)` of two descriptions of elements of type `kind`.
    pub fn similarity(&self, kind: &str, q: &Value, c: &Value) -> f64 {
        match self.types.get(kind).or(self.default.as_ref()) {
            Some(m) => m.similarity(q, c, &self.taxonomies),
            None => ObjectMeasure::default().similarity(q, c, &self.taxonomies),
        }
    }

    /// Reads a model file; taxonomy paths are relative to the file's directory.
    pub fn load(path: &Path) -> Result<SimilarityModel> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let value: Value = serde_json::from_str(&text).map_err(|e| Error::Parse {
            location: Location {
                file: Some(path.to_path_buf()),
                line: e.line() as u64,
                column: e.column() as u64,
            },
            message: format!("invalid JSON: {e}"),
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        SimilarityModel::from_json(&value, dir).map_err(|e| match e {
            Error::InvalidArgument(message) => Error::BadFile {
                path: path.to_path_buf(),
                message,
            },
            other => other,
        })
    }

    /// Builds a model from its JSON document; taxonomy paths are relative to `dir`.
    pub fn from_json(value: &Value, dir: &Path) -> Result<SimilarityModel> {
        let Value::Object(top) = value else {
            return Err(bad("the similarity model must be an object"));
        };
        let mut model = SimilarityModel::default();
        if let Some(t) = top.get("taxonomies") {
            let Value::Object(ts) = t else {
                return Err(bad("`taxonomies` must be an object"));
            };
            for (name, spec) in ts {
                let taxonomy = match spec {
                    Value::String(file) => Taxonomy::load(&dir.join(file))?,
                    tree => Taxonomy::from_json(tree)
                        .map_err(|e| bad(&format!("taxonomy `{name}`: {e}")))?,
                };
                model.add_taxonomy(name, taxonomy);
            }
        }
        if let Some(t) = top.get("types") {
            let Value::Object(ts) = t else {
                return Err(bad("`types` must be an object"));
            };
            for (kind, spec) in ts {
                let m = model
                    .parse_measure(spec)
                    .map_err(|e| bad(&format!("type `{kind}`: {e}")))?;
                model.types.insert(kind.clone(), m);
            }
        }
        if let Some(d) = top.get("default") {
            model.default = Some(
                model
                    .parse_measure(d)
                    .map_err(|e| bad(&format!("default: {e}")))?,
            );
        }
        for key in top.keys() {
            if !matches!(key.as_str(), "taxonomies" | "types" | "default") {
                return Err(bad(&format!("unknown key `{key}`")));
            }
        }
        Ok(model)
    }

    fn parse_measure(&self, spec: &Value) -> std::result::Result<Measure, String> {
        let Value::Object(m) = spec else {
            return Err("a measure must be an object with a `measure` field".into());
        };
        let kind = match m.get("measure") {
            Some(Value::String(s)) => s.as_str(),
            None if m.contains_key("attributes") => "object",
            _ => return Err("`measure` (a string) is required".into()),
        };
        let number = |key: &str| -> std::result::Result<f64, String> {
            m.get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| format!("`{kind}` needs the number `{key}`"))
        };
        Ok(match kind {
            "equality" => Measure::Equality,
            "linear" => {
                let d = number("max_distance")?;
                if d <= 0.0 || !d.is_finite() {
                    return Err("`max_distance` must be positive".into());
                }
                Measure::Linear { max_distance: d }
            }
            "exponential" => {
                let l = number("lambda")?;
                if l < 0.0 || !l.is_finite() {
                    return Err("`lambda` must be non-negative".into());
                }
                Measure::Exponential { lambda: l }
            }
            "levenshtein" => Measure::Levenshtein {
                case_sensitive: m
                    .get("case_sensitive")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
            "taxonomy" => {
                let name = m
                    .get("taxonomy")
                    .and_then(Value::as_str)
                    .ok_or("`taxonomy` needs the name of a taxonomy")?;
                let i = self
                    .taxonomy_names
                    .iter()
                    .position(|n| n == name)
                    .ok_or_else(|| format!("unknown taxonomy `{name}`"))?;
                Measure::Taxonomy { taxonomy: i }
            }
            "object" => {
                let mut o = ObjectMeasure::default();
                if let Some(a) = m.get("attributes") {
                    let Value::Object(attrs) = a else {
                        return Err("`attributes` must be an object".into());
                    };
                    for (name, spec) in attrs {
                        let w = match spec.get("weight") {
                            None => 1.0,
                            Some(w) => w
                                .as_f64()
                                .filter(|w| *w >= 0.0 && w.is_finite())
                                .ok_or_else(|| format!("attribute `{name}`: bad weight"))?,
                        };
                        let inner = self
                            .parse_measure(spec)
                            .map_err(|e| format!("attribute `{name}`: {e}"))?;
                        o.attributes.push((name.clone(), w, inner));
                    }
                }
                Measure::Object(o)
            }
            other => return Err(format!("unknown measure `{other}`")),
        })
    }
}

fn bad(message: &str) -> Error {
    Error::InvalidArgument(format!("similarity model: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_measures_per_type() {
        let m = SimilarityModel::from_json(
            &json!({"taxonomies": {"food": {"food": {"cheese": {"cheddar": {}, "gouda": {}}}}},
                "types": {"Data": {"measure": "object", "attributes": {
                    "name": {"measure": "taxonomy", "taxonomy": "food", "weight": 3},
                    "amount": {"measure": "linear", "max_distance": 2}}}}}),
            Path::new("."),
        )
        .unwrap();
        let s = m.similarity(
            "Data",
            &json!({"name": "cheddar", "amount": 1}),
            &json!({"name": "gouda", "amount": 2}),
        );
        assert!((s - (3.0 * 0.5 + 0.5) / 4.0).abs() < 1e-12, "{s}");
        // Unlisted types compare every query attribute by equality.
        assert_eq!(
            m.similarity("Task", &json!({"name": "a"}), &json!({"name": "b"})),
            0.0
        );
        assert_eq!(m.similarity("PART_OF", &json!({}), &json!({})), 1.0);
        let e = SimilarityModel::from_json(
            &json!({"types": {"X": {"measure": "taxonomy", "taxonomy": "nope"}}}),
            Path::new("."),
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown taxonomy `nope`"), "{e}");
        let e = SimilarityModel::from_json(
            &json!({"types": {"X": {"measure": "linear"}}}),
            Path::new("."),
        )
        .unwrap_err();
        assert!(e.to_string().contains("max_distance"), "{e}");
    }
}
