//! Local similarity measures and their object-level aggregation (local-global principle).

use serde_json::Value;

use super::taxonomy::Taxonomy;

/// A local similarity measure `sim: value × value → [0, 1]` (query value first).
#[derive(Debug, Clone, PartialEq)]
pub enum Measure {
    /// 1 when the values are equal (numbers compared numerically), else 0.
    Equality,
    /// Numbers: `max(0, 1 − |q − c| / max_distance)`; other values: equality.
    Linear {
        /// Distance at which the similarity reaches 0 (> 0).
        max_distance: f64,
    },
    /// Numbers: `exp(−lambda · |q − c|)`; other values: equality.
    Exponential {
        /// Decay rate (≥ 0).
        lambda: f64,
    },
    /// Strings: `1 − lev(q, c) / max(|q|, |c|)` over characters; other values: equality.
    Levenshtein {
        /// Compare letters case-sensitively.
        case_sensitive: bool,
    },
    /// Strings: the depth-based similarity of the concepts in the taxonomy with this index of the
    /// similarity model; other values: equality.
    Taxonomy {
        /// Index into the model's taxonomies.
        taxonomy: usize,
    },
    /// Objects: the weighted average over attributes (see [`ObjectMeasure`]); other values: equality.
    Object(ObjectMeasure),
}

/// Weighted average over the attributes of a semantic description.
///
/// With `attributes` listed, exactly those count (attribute absent from the query: skipped; absent
/// from the case: similarity 0). With none listed, every query attribute counts with weight 1 and
/// `Measure::Object` (default) for nested objects, equality otherwise. No counted attribute gives 1:
/// an empty description (edges, workflow nodes without data) matches anything of its type.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectMeasure {
    /// `(attribute, weight, measure)`.
    pub attributes: Vec<(String, f64, Measure)>,
}

impl Measure {
    /// The similarity of query value `q` and case value `c` in `[0, 1]`.
    pub fn similarity(&self, q: &Value, c: &Value, taxonomies: &[Taxonomy]) -> f64 {
        match self {
            Measure::Equality => equality(q, c),
            Measure::Linear { max_distance } => match (q.as_f64(), c.as_f64()) {
                (Some(a), Some(b)) => (1.0 - (a - b).abs() / max_distance).max(0.0),
                _ => equality(q, c),
            },
            Measure::Exponential { lambda } => match (q.as_f64(), c.as_f64()) {
                (Some(a), Some(b)) => (-lambda * (a - b).abs()).exp(),
                _ => equality(q, c),
            },
            Measure::Levenshtein { case_sensitive } => match (q, c) {
                (Value::String(a), Value::String(b)) => {
                    if *case_sensitive {
                        normalised_levenshtein(a, b)
                    } else {
                        normalised_levenshtein(&a.to_lowercase(), &b.to_lowercase())
                    }
                }
                _ => equality(q, c),
            },
            Measure::Taxonomy { taxonomy } => match (q, c, taxonomies.get(*taxonomy)) {
                (Value::String(a), Value::String(b), Some(t)) => t.similarity(a, b),
                _ => equality(q, c),
            },
            Measure::Object(o) => match (q, c) {
                (Value::Object(_), Value::Object(_)) => o.similarity(q, c, taxonomies),
                _ => equality(q, c),
            },
        }
    }
}

impl ObjectMeasure {
    /// The weighted average of the attribute similarities of `q` and `c` (objects; see the type).
    pub fn similarity(&self, q: &Value, c: &Value, taxonomies: &[Taxonomy]) -> f64 {
        let (Value::Object(qm), Value::Object(cm)) = (q, c) else {
            return equality(q, c);
        };
        let mut sum = 0.0;
        let mut weights = 0.0;
        if self.attributes.is_empty() {
            for (k, qv) in qm {
                if qv.is_null() {
                    continue;
                }
                weights += 1.0;
                if let Some(cv) = cm.get(k) {
                    sum += if qv.is_object() {
                        ObjectMeasure::default().similarity(qv, cv, taxonomies)
                    } else {
                        equality(qv, cv)
                    };
                }
            }
        } else {
            for (k, w, m) in &self.attributes {
                let Some(qv) = qm.get(k).filter(|v| !v.is_null()) else {
                    continue;
                };
                weights += w;
                if let Some(cv) = cm.get(k) {
                    sum += w * m.similarity(qv, cv, taxonomies);
                }
            }
        }
        if weights <= 0.0 {
            1.0
        } else {
            (sum / weights).clamp(0.0, 1.0)
        }
    }
}

fn equality(q: &Value, c: &Value) -> f64 {
    let equal = match (q.as_f64(), c.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => q == c,
    };
    if equal {
        1.0
    } else {
        0.0
    }
}

/// `1 − lev(a, b) / max(|a|, |b|)` over characters (1 for two empty strings).
pub fn normalised_levenshtein(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let subst = prev[j] + usize::from(ca != cb);
            cur[j + 1] = subst.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    1.0 - prev[b.len()] as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn local_measures() {
        let t = [];
        assert_eq!(
            Measure::Equality.similarity(&json!(2), &json!(2.0), &t),
            1.0
        );
        assert_eq!(
            Measure::Equality.similarity(&json!("a"), &json!("b"), &t),
            0.0
        );
        let lin = Measure::Linear { max_distance: 10.0 };
        assert!((lin.similarity(&json!(5), &json!(8), &t) - 0.7).abs() < 1e-12);
        assert_eq!(lin.similarity(&json!(5), &json!(50), &t), 0.0);
        let exp = Measure::Exponential { lambda: 0.5 };
        assert!((exp.similarity(&json!(1), &json!(3), &t) - (-1.0f64).exp()).abs() < 1e-12);
        assert!((normalised_levenshtein("kitten", "sitting") - (1.0 - 3.0 / 7.0)).abs() < 1e-12);
        let lev = Measure::Levenshtein {
            case_sensitive: false,
        };
        assert_eq!(lev.similarity(&json!("Cut"), &json!("cut"), &t), 1.0);
    }

    #[test]
    fn weighted_average_over_query_attributes() {
        let t = [];
        let o = ObjectMeasure {
            attributes: vec![
                ("name".into(), 3.0, Measure::Equality),
                ("amount".into(), 1.0, Measure::Linear { max_distance: 4.0 }),
            ],
        };
        // name equal (3·1), amount 1 vs 2 → 0.75: (3 + 0.75) / 4.
        let s = o.similarity(
            &json!({"name": "x", "amount": 1}),
            &json!({"name": "x", "amount": 2}),
            &t,
        );
        assert!((s - 3.75 / 4.0).abs() < 1e-12);
        // attribute missing in the query is skipped, missing in the case counts 0.
        assert_eq!(
            o.similarity(&json!({"name": "x"}), &json!({"amount": 2}), &t),
            0.0
        );
        assert_eq!(o.similarity(&json!({}), &json!({"name": "y"}), &t), 1.0);
        let all = ObjectMeasure::default();
        let s = all.similarity(
            &json!({"a": 1, "b": {"c": 1, "d": 2}}),
            &json!({"a": 1, "b": {"c": 1, "d": 3}}),
            &t,
        );
        assert!((s - 0.75).abs() < 1e-12);
    }
}
