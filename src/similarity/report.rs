//! A retrieval's result as text and JSON, the same for every front end (`gemp similarity --json`, the
//! Python package): each case's similarity, how its search ended, its search statistics and,
//! optionally, the mapping found.

use serde_json::{json, Value};

use super::retrieval::CaseOutcome;
use super::{Outcome, SemanticGraph, StopReason};

/// Edge `e` of `g` as `source-[kind]->target`.
pub fn edge_name(g: &SemanticGraph, e: usize) -> String {
    let edge = &g.edges[e];
    format!(
        "{}-[{}]->{}",
        g.nodes[edge.source].id, edge.kind, g.nodes[edge.target].id
    )
}

/// How a case's search ended: `optimal`, `pruned`, or why it stopped with its upper bound.
pub fn status(o: &CaseOutcome) -> String {
    match &o.outcome {
        Outcome::Done(r) if r.exact => "optimal".into(),
        Outcome::Done(_) => "pruned".into(),
        Outcome::Stopped {
            reason,
            upper_bound,
            ..
        } => match reason {
            StopReason::BelowBound => format!("early stop (≤ {upper_bound:.4})"),
            StopReason::TimeLimit => format!("time limit (≤ {upper_bound:.4})"),
            StopReason::Cancelled => "cancelled".into(),
            StopReason::QueueCapacity => format!("queue capacity (≤ {upper_bound:.4})"),
        },
    }
}

/// One case of a retrieval for query `q` as JSON; with `mappings`, the node and edge mapping of a
/// finished search.
pub fn case_json(
    q: &SemanticGraph,
    cases: &[SemanticGraph],
    o: &CaseOutcome,
    mappings: bool,
) -> Value {
    let s = o.outcome.stats();
    let mut v = json!({
        "case": cases[o.case].name,
        "similarity": o.similarity(),
        "status": status(o),
        "expansions": s.expansions,
        "generated": s.generated,
        "max_queue": s.max_queue,
        "case_oriented": s.case_oriented,
        "time_ms": s.time.as_secs_f64() * 1e3,
    });
    if let Outcome::Stopped { upper_bound, .. } = &o.outcome {
        v["upper_bound"] = json!(upper_bound);
    }
    if mappings {
        if let Outcome::Done(r) = &o.outcome {
            let c = &cases[o.case];
            v["mapping"] = json!({
                "nodes": r.mapping.nodes.iter().enumerate().map(|(i, t)|
                    json!({"query": q.nodes[i].id, "case": t.map(|t| c.nodes[t].id.clone())})).collect::<Vec<_>>(),
                "edges": r.mapping.edges.iter().enumerate().map(|(i, t)|
                    json!({"query": edge_name(q, i), "case": t.map(|t| edge_name(c, t))})).collect::<Vec<_>>(),
            });
        }
    }
    v
}
