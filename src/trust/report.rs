//! A TruST result as JSON, the same for every front end (`gemp trust --json`, the Python package):
//! the matchings with each node's template and data names, values and scores, the levels' counts,
//! and the stage timings.

use serde_json::{json, Value};

use super::levenshtein::to_f64;
use super::{TrustGraph, TrustResult};

/// The result as a JSON value.
pub fn to_json(template: &TrustGraph, data: &TrustGraph, result: &TrustResult) -> Value {
    let t = result.timings;
    json!({
        "matchings": result.matchings.iter().map(|m| json!({
            "score": m.score(),
            "nodes": m.nodes.iter().map(|n| json!({
                "template": template.name(n.template),
                "template_value": template.value(n.template),
                "data": n.data.map(|x| data.name(x).to_string()),
                "data_value": n.data.map(|x| data.value(x)),
                "similarity": to_f64(u64::from(n.similarity)),
                "one_hop": to_f64(u64::from(n.one_hop)),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "levels": result.levels.iter().map(|l| json!({
            "candidates": l.candidates, "duplicates": l.duplicates, "kept": l.kept,
        })).collect::<Vec<_>>(),
        "timings_ms": {
            "similarity": t.similarity.as_secs_f64() * 1e3,
            "one_hop": t.one_hop.as_secs_f64() * 1e3,
            "search": t.search.as_secs_f64() * 1e3,
            "total": t.total().as_secs_f64() * 1e3,
        },
    })
}
