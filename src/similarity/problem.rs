//! One query/case pair prepared for the search: the isolated similarities of every legal pair of
//! elements (`sim_N`, and `sim_E` through `F_E`), candidate lists sorted best first, and the type
//! counts that decide where null mappings are needed.
//!
//! Elements are numbered per graph: nodes `0..n`, edges `n..n + e` ("element ids").

use std::collections::HashMap;

use super::graph::SemanticGraph;
use super::sim_model::SimilarityModel;
use crate::error::{Error, Result};

/// Largest number of elements (`|N| + |E|`) per graph the search accepts (element ids are stored
/// as `u16`, two values reserved for "not yet mapped" and "null").
pub const MAX_ELEMENTS: usize = 0xFFFD;

/// `F_E(s_e, s_l, s_r) = s_e · (s_l + s_r) / 2`.
pub fn edge_aggregate(s_e: f64, s_l: f64, s_r: f64) -> f64 {
    s_e * (s_l + s_r) / 2.0
}

/// Topology and types of one graph in the search's terms.
#[derive(Debug, Clone)]
pub struct Side {
    /// Number of nodes.
    pub nodes: usize,
    /// Number of edges.
    pub edges: usize,
    /// Type id of each element (node types and edge types have separate ids).
    pub kind: Vec<u32>,
    /// `(left, right)` node of each edge (indexed by edge number, not element id).
    pub ends: Vec<(u32, u32)>,
}

impl Side {
    /// `|N| + |E|`.
    pub fn len(&self) -> usize {
        self.nodes + self.edges
    }

    /// Whether the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether element `x` is an edge.
    #[inline]
    pub fn is_edge(&self, x: usize) -> bool {
        x >= self.nodes
    }

    /// The `(left, right)` node of edge element `x`.
    #[inline]
    pub fn ends_of(&self, x: usize) -> (usize, usize) {
        let (l, r) = self.ends[x - self.nodes];
        (l as usize, r as usize)
    }
}

/// The prepared pair.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The query graph.
    pub query: Side,
    /// The case graph.
    pub case: Side,
    /// For each query element: the legal (same-type) case elements with their isolated
    /// similarity, best first (ties by element id).
    pub query_candidates: Vec<Vec<(u32, f64)>>,
    /// For each case element: the legal query elements with their isolated similarity, best first.
    pub case_candidates: Vec<Vec<(u32, f64)>>,
    /// Per type id: number of query elements of that type.
    pub query_type_count: Vec<u32>,
    /// Per type id: number of case elements of that type.
    pub case_type_count: Vec<u32>,
    /// Names of the type ids (node types, then edge types prefixed with `-`).
    pub type_names: Vec<String>,
}

impl Problem {
    /// Prepares `query` against `case` under `model`.
    pub fn new(
        query: &SemanticGraph,
        case: &SemanticGraph,
        model: &SimilarityModel,
    ) -> Result<Self> {
        for g in [query, case] {
            if g.size() > MAX_ELEMENTS {
                return Err(Error::InvalidArgument(format!(
                    "graph `{}` has {} nodes and {} edges; the A* search takes at most {} elements",
                    g.name,
                    g.nodes.len(),
                    g.edges.len(),
                    MAX_ELEMENTS
                )));
            }
        }
        let mut types: HashMap<String, u32> = HashMap::new();
        let mut type_names = Vec::new();
        let mut intern = |name: String| -> u32 {
            *types.entry(name.clone()).or_insert_with(|| {
                type_names.push(name);
                type_names.len() as u32 - 1
            })
        };
        let mut side = |g: &SemanticGraph| Side {
            nodes: g.nodes.len(),
            edges: g.edges.len(),
            kind: {
                let mut kinds: Vec<u32> = g.nodes.iter().map(|n| intern(n.kind.clone())).collect();
                kinds.extend(g.edges.iter().map(|e| intern(format!("-{}", e.kind))));
                kinds
            },
            ends: g
                .edges
                .iter()
                .map(|e| (e.source as u32, e.target as u32))
                .collect(),
        };
        let qs = side(query);
        let cs = side(case);
        let types_n = type_names.len();
        let mut query_type_count = vec![0u32; types_n];
        let mut case_type_count = vec![0u32; types_n];
        for &t in &qs.kind {
            query_type_count[t as usize] += 1;
        }
        for &t in &cs.kind {
            case_type_count[t as usize] += 1;
        }
        // sim_N for every same-type node pair.
        let mut node_sim = vec![0.0f64; qs.nodes * cs.nodes];
        for (i, qn) in query.nodes.iter().enumerate() {
            for (j, cn) in case.nodes.iter().enumerate() {
                if qs.kind[i] == cs.kind[j] {
                    node_sim[i * cs.nodes + j] =
                        model.similarity(&qn.kind, &qn.description, &cn.description);
                }
            }
        }
        let mut query_candidates: Vec<Vec<(u32, f64)>> = vec![Vec::new(); qs.len()];
        let mut case_candidates: Vec<Vec<(u32, f64)>> = vec![Vec::new(); cs.len()];
        for i in 0..qs.nodes {
            for j in 0..cs.nodes {
                if qs.kind[i] == cs.kind[j] {
                    let s = node_sim[i * cs.nodes + j];
                    query_candidates[i].push((j as u32, s));
                    case_candidates[j].push((i as u32, s));
                }
            }
        }
        for (a, qe) in query.edges.iter().enumerate() {
            let x = qs.nodes + a;
            for (b, ce) in case.edges.iter().enumerate() {
                let y = cs.nodes + b;
                if qs.kind[x] != cs.kind[y] {
                    continue;
                }
                let s_e = model.similarity(&qe.kind, &qe.description, &ce.description);
                let s_l = node_sim[qe.source * cs.nodes + ce.source];
                let s_r = node_sim[qe.target * cs.nodes + ce.target];
                let s = edge_aggregate(s_e, s_l, s_r);
                query_candidates[x].push((y as u32, s));
                case_candidates[y].push((x as u32, s));
            }
        }
        for list in query_candidates
            .iter_mut()
            .chain(case_candidates.iter_mut())
        {
            list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        Ok(Problem {
            query: qs,
            case: cs,
            query_candidates,
            case_candidates,
            query_type_count,
            case_type_count,
            type_names,
        })
    }

    /// The isolated similarity of query element `x` and case element `y` (`None` when illegal:
    /// different types).
    pub fn similarity(&self, x: usize, y: usize) -> Option<f64> {
        self.query_candidates
            .get(x)?
            .iter()
            .find(|&&(c, _)| c as usize == y)
            .map(|&(_, s)| s)
    }

    /// `|N_q| + |E_q|`, the denominator of `F_G`.
    pub fn denominator(&self) -> f64 {
        self.query.len() as f64
    }
}
