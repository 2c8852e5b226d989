//! GpSense's query plan (paper §4 "Query Plan Generation" and §6): concept versus variable nodes
//! and the node visiting order by rank `deg(u) / freq(u)`.
//!
//! - A **concept node** is a pattern node fixed to (at most) one data node by a unary equality
//!   conjunct — `id(n) = 42`, or `n.key = 7` when that leaves a single candidate. Its frequency is 1
//!   (paper §6); a variable node's frequency is the number of data nodes passing its label test.
//! - The **order** starts with the concept node of highest pattern degree (if any), else the node
//!   of highest rank; each next node is connected to the nodes already ordered and has the most
//!   neighbours not yet ordered (ties: higher rank, then lower slot). A pattern with several
//!   connected components continues with the best-ranked node of the next component.
//! - Every `WHERE` conjunct is placed: unary non-string conjuncts go into candidate initialisation,
//!   other non-string conjuncts run at the first join step where all their variables are bound,
//!   string conjuncts run in the attribute phase on complete matches (as GEMP's phase 2).

use serde::Serialize;

use crate::exec::plan;
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, CmpOp, Expr, NodeSlot, RelSlot};

/// One join step: bind `node` using the relationships to nodes bound earlier.
#[derive(Debug, Clone, Serialize)]
pub struct JoinStep {
    /// The pattern node bound at this step.
    pub node: NodeSlot,
    /// Relationships between `node` and nodes bound earlier, and self loops on `node`: the join
    /// expands along one of them (the one with the fewest edge candidates) and checks the others.
    pub rels: Vec<RelSlot>,
    /// Non-string conjuncts evaluated once this step has bound (indices into the query's filter).
    pub filters: Vec<usize>,
}

/// A GpSense plan.
#[derive(Debug, Clone, Serialize)]
pub struct GpsPlan {
    /// Node visiting order (pattern node slots); `order[0]` is the first node.
    pub order: Vec<NodeSlot>,
    /// Per node slot: a concept node (fixed to one data node).
    pub concept: Vec<bool>,
    /// Per node slot: `deg(u) / freq(u)`.
    pub rank: Vec<f64>,
    /// One step per entry of `order`.
    pub steps: Vec<JoinStep>,
    /// Unary non-string conjuncts per node slot, applied at candidate initialisation.
    pub unary: Vec<Vec<usize>>,
    /// String conjuncts, evaluated on complete matches (the attribute phase).
    pub attribute_filters: Vec<usize>,
}

/// True when conjunct `e` is `id(slot) = <integer>` (either side).
fn is_id_equality(e: &Expr) -> bool {
    let Expr::Compare(CmpOp::Eq, a, b) = e else {
        return false;
    };
    let id_of_node = |x: &Expr| matches!(x, Expr::Id(inner) if matches!(**inner, Expr::Node(_)));
    let literal = |x: &Expr| matches!(x, Expr::Literal(_));
    (id_of_node(a) && literal(b)) || (id_of_node(b) && literal(a))
}

/// True when conjunct `e` is an equality with a literal on one side.
fn is_literal_equality(e: &Expr) -> bool {
    matches!(e, Expr::Compare(CmpOp::Eq, a, b)
        if matches!(**a, Expr::Literal(_)) || matches!(**b, Expr::Literal(_)))
}

/// Number of data nodes passing `slot`'s label test (the frequency of its label).
fn label_frequency(model: &Model, query: &BoundQuery, slot: NodeSlot) -> usize {
    query.pattern.nodes[slot]
        .labels
        .iter()
        .map(|g| g.iter().map(|&l| model.label_count(l)).sum::<usize>())
        .min()
        .unwrap_or(model.node_count())
}

/// Builds the plan. `candidates[slot]` is the number of initial candidates of each node (used only
/// to recognise concept nodes fixed by a unique-property equality).
pub fn plan(model: &Model, query: &BoundQuery, candidates: &[usize]) -> GpsPlan {
    let unary = plan::unary_conjuncts(query);
    let ranks = Ranks::of(model, query, &unary, candidates);
    let order = rank_order(query, &ranks);
    assemble(query, order, ranks, unary)
}

/// A plan that visits the pattern nodes in `order` (the order stage's choice, see
/// [`crate::engines::staged`]): join steps and conjunct placement as [`plan`] makes them. With
/// `strings_unary`, unary string conjuncts count as applied to the candidates already (as the
/// host's candidate filter does), else they run on complete matches. Nodes `order` leaves out
/// are visited after it, by slot; repeated or unknown slots are skipped.
pub fn plan_in_order(
    model: &Model,
    query: &BoundQuery,
    candidates: &[usize],
    order: &[NodeSlot],
    strings_unary: bool,
) -> GpsPlan {
    let k = query.pattern.nodes.len();
    let unary = plan::unary_conjuncts_with(query, strings_unary);
    let ranks = Ranks::of(model, query, &unary, candidates);
    let mut seen = vec![false; k];
    let mut full = Vec::with_capacity(k);
    for s in order.iter().copied().chain(0..k) {
        if s < k && !seen[s] {
            seen[s] = true;
            full.push(s);
        }
    }
    assemble(query, full, ranks, unary)
}

/// Per pattern node: concept node or not, pattern degree, and rank `deg(u) / freq(u)`.
struct Ranks {
    concept: Vec<bool>,
    degree: Vec<usize>,
    rank: Vec<f64>,
}

impl Ranks {
    fn of(model: &Model, query: &BoundQuery, unary: &[Vec<usize>], candidates: &[usize]) -> Self {
        let pattern = &query.pattern;
        let k = pattern.nodes.len();
        let concept: Vec<bool> = (0..k)
            .map(|s| {
                let conj = &unary[s];
                conj.iter().any(|&i| is_id_equality(&query.filter[i]))
                    || (candidates.get(s).is_some_and(|&c| c <= 1)
                        && conj.iter().any(|&i| is_literal_equality(&query.filter[i])))
            })
            .collect();
        let degree = pattern.degrees();
        let rank: Vec<f64> = (0..k)
            .map(|s| {
                let freq = if concept[s] {
                    1
                } else {
                    label_frequency(model, query, s)
                };
                degree[s] as f64 / freq.max(1) as f64
            })
            .collect();
        Ranks {
            concept,
            degree,
            rank,
        }
    }
}

/// GpSense's visiting order (see the module documentation).
fn rank_order(query: &BoundQuery, ranks: &Ranks) -> Vec<NodeSlot> {
    let pattern = &query.pattern;
    let k = pattern.nodes.len();
    let (concept, degree, rank) = (&ranks.concept, &ranks.degree, &ranks.rank);
    let neighbours = |s: NodeSlot| -> Vec<NodeSlot> {
        let mut v: Vec<NodeSlot> = pattern
            .rels
            .iter()
            .filter_map(|r| {
                if r.src == s && r.dst != s {
                    Some(r.dst)
                } else if r.dst == s && r.src != s {
                    Some(r.src)
                } else {
                    None
                }
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let adj: Vec<Vec<NodeSlot>> = (0..k).map(neighbours).collect();

    let mut ordered = vec![false; k];
    let mut order = Vec::with_capacity(k);
    while order.len() < k {
        let connected: Vec<NodeSlot> = (0..k)
            .filter(|&s| !ordered[s] && adj[s].iter().any(|&n| ordered[n]))
            .collect();
        let next = if connected.is_empty() {
            // First node of a component: a concept node of highest degree, else the highest rank.
            (0..k).filter(|&s| !ordered[s]).max_by(|&a, &b| {
                concept[a]
                    .cmp(&concept[b])
                    .then(if concept[a] && concept[b] {
                        degree[a].cmp(&degree[b])
                    } else {
                        std::cmp::Ordering::Equal
                    })
                    .then(rank[a].total_cmp(&rank[b]))
                    .then(b.cmp(&a))
            })
        } else {
            let fresh = |s: NodeSlot| adj[s].iter().filter(|&&n| !ordered[n]).count();
            connected.into_iter().max_by(|&a, &b| {
                concept[a]
                    .cmp(&concept[b])
                    .then(fresh(a).cmp(&fresh(b)))
                    .then(rank[a].total_cmp(&rank[b]))
                    .then(b.cmp(&a))
            })
        };
        let Some(s) = next else { break };
        ordered[s] = true;
        order.push(s);
    }
    order
}

/// The plan visiting the nodes in `order` (every slot once): relationships per step, and conjunct
/// placement (`unary` conjuncts are applied to the candidates already).
fn assemble(
    query: &BoundQuery,
    order: Vec<NodeSlot>,
    ranks: Ranks,
    unary: Vec<Vec<usize>>,
) -> GpsPlan {
    let pattern = &query.pattern;
    let k = pattern.nodes.len();
    // Relationships per step, and conjunct placement.
    let position: Vec<usize> = {
        let mut p = vec![0; k];
        for (i, &s) in order.iter().enumerate() {
            p[s] = i;
        }
        p
    };
    let mut steps: Vec<JoinStep> = order
        .iter()
        .map(|&node| JoinStep {
            node,
            rels: Vec::new(),
            filters: Vec::new(),
        })
        .collect();
    for (ri, r) in pattern.rels.iter().enumerate() {
        let at = position[r.src].max(position[r.dst]);
        steps[at].rels.push(ri);
    }
    let rel_step = |ri: RelSlot| {
        let r = &pattern.rels[ri];
        position[r.src].max(position[r.dst])
    };
    let mut attribute_filters = Vec::new();
    for (i, c) in query.filter.iter().enumerate() {
        if unary.iter().any(|u| u.contains(&i)) {
            continue;
        }
        if c.is_string_predicate() {
            attribute_filters.push(i);
            continue;
        }
        let mut n = Vec::new();
        let mut r = Vec::new();
        c.node_slots(&mut n);
        c.rel_slots(&mut r);
        let at = n
            .iter()
            .map(|&s| position.get(s).copied().unwrap_or(0))
            .chain(r.iter().map(|&s| rel_step(s)))
            .max()
            .unwrap_or(0);
        if let Some(step) = steps.get_mut(at) {
            step.filters.push(i);
        } else {
            attribute_filters.push(i);
        }
    }
    GpsPlan {
        order,
        concept: ranks.concept,
        rank: ranks.rank,
        steps,
        unary,
        attribute_filters,
    }
}

impl GpsPlan {
    /// The plan in the shape of the default planner's (for `--timings` and result reporting):
    /// steps in GpSense order, expansions left to the join.
    pub fn as_planner_plan(&self, candidates: &[usize]) -> plan::Plan {
        plan::Plan {
            steps: self
                .steps
                .iter()
                .map(|s| plan::Step {
                    node: s.node,
                    expand: None,
                    checks: s.rels.clone(),
                    filters: s.filters.clone(),
                    candidates: candidates.get(s.node).copied().unwrap_or(0),
                    estimate: 0.0,
                })
                .collect(),
            unary: self.unary.clone(),
            attribute_filters: self.attribute_filters.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;

    fn model() -> Model {
        let mut b = ModelBuilder::new();
        let t = b.rel_type("T");
        let hub = b.add_node("hub", &["Rare"]);
        for i in 0..6 {
            let x = b.add_node(&format!("c{i}"), &["Common"]);
            b.add_edge(hub, x, t).unwrap();
        }
        b.freeze().unwrap()
    }

    #[test]
    fn concept_node_of_highest_degree_comes_first_then_neighbours_by_fresh_degree() {
        let m = model();
        // (a:Common)<-(h:Rare)->(b:Common)->(c:Common), id(b) = 3 makes b a concept node.
        let q = crate::pattern::compile(
            "MATCH (a:Common)<-[:T]-(h:Rare)-[:T]->(b:Common)-[:T]->(c:Common) WHERE id(b) = 3 \
             RETURN a",
            &m,
            &Default::default(),
        )
        .unwrap();
        let slot = |name: &str| q.pattern.nodes.iter().position(|n| n.name == name).unwrap();
        let p = plan(&m, &q, &[6, 1, 1, 6]);
        assert!(p.concept[slot("b")]);
        assert!(!p.concept[slot("h")]);
        assert_eq!(p.order[0], slot("b"));
        // Next among b's neighbours: h (one neighbour not yet ordered, a) before c (none).
        assert_eq!(p.order[1], slot("h"));
        assert_eq!(p.order.len(), 4);
        // Without a concept node the rare hub ranks highest: deg 2 / freq 1.
        let q2 = crate::pattern::compile(
            "MATCH (a:Common)<-[:T]-(h:Rare)-[:T]->(b:Common) RETURN a",
            &m,
            &Default::default(),
        )
        .unwrap();
        let p2 = plan(&m, &q2, &[6, 1, 6]);
        let h = q2.pattern.nodes.iter().position(|n| n.name == "h").unwrap();
        assert_eq!(p2.order[0], h);
        assert!((p2.rank[h] - 2.0).abs() < 1e-9);
        // Every relationship is handled at the step of its later end.
        let placed: usize = p2.steps.iter().map(|s| s.rels.len()).sum();
        assert_eq!(placed, 2);
        assert!(p2.steps[0].rels.is_empty());
    }
}
