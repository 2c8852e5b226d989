//! Query graphs in the subgraph-matching benchmark format (`t`/`v`/`e` lines) as patterns: each
//! vertex becomes a pattern node with its label, each edge an anonymous undirected relationship of
//! type `EDGE`; the result is every embedding (injective, non-induced; automorphic images counted
//! separately under the default semantics).

use crate::io::subgraph_bench::{BenchGraph, EDGE_TYPE};
use crate::model::Model;

use super::ir::{BoundQuery, Expr, NodeVar, Pattern, ProjItem, Projection, RelVar};

/// Binds a benchmark query graph against `model`. A label the model does not have gives a node
/// with no candidates (zero matches), not an error: benchmark queries are sampled from other graphs.
pub fn bind(g: &BenchGraph, model: &Model) -> BoundQuery {
    let edge_type = model.rel_types().get(EDGE_TYPE);
    let nodes = g
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| NodeVar {
            name: format!("v{i}"),
            named: true,
            labels: vec![model.labels().get(l).map_or_else(Vec::new, |id| vec![id])],
        })
        .collect();
    let rels = g
        .edges
        .iter()
        .enumerate()
        .map(|(i, &(u, v))| RelVar {
            name: format!("_e{i}"),
            named: false,
            src: u as usize,
            dst: v as usize,
            // An absent EDGE type matches nothing: use an id no edge has.
            types: vec![edge_type.unwrap_or(u32::MAX - 1)],
            undirected: true,
            clause: 0,
        })
        .collect();
    let items = (0..g.labels.len())
        .map(|i| ProjItem {
            expr: Expr::Id(Box::new(Expr::Node(i))),
            name: format!("v{i}"),
        })
        .collect();
    BoundQuery {
        pattern: Pattern { nodes, rels },
        filter: Vec::new(),
        stages: vec![Projection {
            items,
            distinct: false,
            filter: None,
            order_by: Vec::new(),
            skip: None,
            limit: None,
        }],
        clauses: None,
    }
}
