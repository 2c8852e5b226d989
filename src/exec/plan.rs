//! Stage 2 of matching — *order query vertices*: the planner picks the pivot (the pattern node with
//! the fewest candidates), a matching order in which every next node is connected to the matched
//! ones (most constrained first), turns relationships whose both ends are bound into checks, and
//! places every `WHERE` conjunct: unary non-string conjuncts into candidate filtering, other cheap
//! conjuncts (numbers, ids, NACs) at the first step where their variables are bound, and string
//! conjuncts into the attribute phase (GEMP phase 2).

use serde::Serialize;

use crate::pattern::ir::{BoundQuery, Expr, NodeSlot, RelSlot};

/// How an expansion walks a relationship from a bound node to the new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Dir {
    /// Along outgoing edges of the bound node (out-CSR).
    Out,
    /// Along incoming edges of the bound node (in-CSR).
    In,
    /// Either direction (undirected pattern relationship).
    Both,
}

/// Walk relationship `rel` from the bound node `from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Expansion {
    /// The relationship slot.
    pub rel: RelSlot,
    /// The already-bound end.
    pub from: NodeSlot,
    /// Direction from `from`.
    pub dir: Dir,
}

/// One step of the matching order: bind `node`.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The pattern node bound at this step.
    pub node: NodeSlot,
    /// How candidates are generated: `None` = scan the candidate set (the pivot, or the first node of
    /// another connected component), else walk this relationship from a bound node.
    pub expand: Option<Expansion>,
    /// Relationships to already-bound nodes (or self loops) that must exist — checks, not expansions.
    pub checks: Vec<RelSlot>,
    /// Phase-1 conjuncts (indices into the query's filter) evaluated once this step has bound.
    pub filters: Vec<usize>,
    /// Candidates of this node after filtering.
    pub candidates: usize,
    /// Estimated partial matches after this step.
    pub estimate: f64,
}

/// A matching plan.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    /// Steps in matching order; `steps[0].node` is the pivot.
    pub steps: Vec<Step>,
    /// Unary conjuncts pushed into candidate filtering, per node slot.
    pub unary: Vec<Vec<usize>>,
    /// String conjuncts evaluated in the attribute phase on complete topological matches.
    pub attribute_filters: Vec<usize>,
}

/// How a conjunct is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Placement {
    /// In candidate filtering of one node.
    Unary(NodeSlot),
    /// During the topology search, at a step.
    Step(usize),
    /// In the attribute phase.
    Attribute,
}

/// Classifies conjuncts before candidate filtering: returns the unary conjuncts per node slot.
/// String conjuncts stay out (GEMP's attribute phase runs them; see [`unary_conjuncts_with`]).
pub fn unary_conjuncts(query: &BoundQuery) -> Vec<Vec<usize>> {
    unary_conjuncts_with(query, false)
}

/// Like [`unary_conjuncts`]; with `strings`, unary string conjuncts (`a.name CONTAINS 'Jack'`)
/// are candidate filters too: one pass over the column prunes the node before the search, instead
/// of checking every topological match in the attribute phase (the host backend's choice).
pub fn unary_conjuncts_with(query: &BoundQuery, strings: bool) -> Vec<Vec<usize>> {
    let mut unary = vec![Vec::new(); query.pattern.nodes.len()];
    for (i, c) in query.filter.iter().enumerate() {
        if let Some(slot) = unary_slot(c, strings) {
            unary[slot].push(i);
        }
    }
    unary
}

fn slots_of(e: &Expr) -> (Vec<NodeSlot>, Vec<RelSlot>) {
    let mut n = Vec::new();
    let mut r = Vec::new();
    e.node_slots(&mut n);
    e.rel_slots(&mut r);
    n.sort_unstable();
    n.dedup();
    r.sort_unstable();
    r.dedup();
    (n, r)
}

fn has_exists(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Exists(_)));
    found
}

/// The slot of a conjunct that can run during candidate filtering (string conjuncts only with
/// `strings`).
fn unary_slot(e: &Expr, strings: bool) -> Option<NodeSlot> {
    if (!strings && e.is_string_predicate()) || has_exists(e) {
        return None;
    }
    let (n, r) = slots_of(e);
    (n.len() == 1 && r.is_empty()).then(|| n[0])
}

/// Estimates how many neighbours one bound node has along a relationship: `(rel, from, dir)` →
/// average number of candidate edges (the matcher samples the data graph for it).
pub type Fanout<'a> = &'a dyn Fn(RelSlot, NodeSlot, Dir) -> f64;

/// Builds the plan from the candidate counts of each node slot and a fan-out estimator; unary
/// string conjuncts go to the attribute phase.
pub fn plan(query: &BoundQuery, candidate_counts: &[usize], fanout: Fanout<'_>) -> Plan {
    plan_with(query, candidate_counts, fanout, false)
}

/// [`plan`], with unary string conjuncts in candidate filtering when `strings_unary` (they must
/// then have been applied to the candidates the counts come from).
pub fn plan_with(
    query: &BoundQuery,
    candidate_counts: &[usize],
    fanout: Fanout<'_>,
    strings_unary: bool,
) -> Plan {
    // No order given: every next node is the cheapest one.
    plan_in_order(query, &[], candidate_counts, fanout, strings_unary)
}

/// A plan that binds the pattern nodes in `order` (the order stage's choice, see
/// [`crate::engines::staged`]): expansions, checks and conjunct placement as [`plan_with`] makes
/// them, only the choice of the next node is `order`'s. Nodes `order` leaves out (or repeats)
/// are bound afterwards as [`plan_with`] would choose them, so the plan always binds every node.
pub fn plan_in_order(
    query: &BoundQuery,
    order: &[NodeSlot],
    candidate_counts: &[usize],
    fanout: Fanout<'_>,
    strings_unary: bool,
) -> Plan {
    let chooser = Chooser::new(query, candidate_counts, fanout);
    let mut next_in_order = 0;
    build(query, &chooser, strings_unary, &mut |bound: &[bool]| {
        while let Some(&s) = order.get(next_in_order) {
            if s < bound.len() && !bound[s] {
                return Some(s);
            }
            next_in_order += 1;
        }
        chooser.cheapest_next(bound)
    })
}

/// What choosing the next node reads, computed once per plan (a pattern of thousands of nodes
/// plans in time linear per step, not quadratic: each node's relationships are listed once, and
/// each fan-out is estimated once).
struct Chooser<'a> {
    query: &'a BoundQuery,
    candidate_counts: &'a [usize],
    fanout: Fanout<'a>,
    /// Per node: the relationships with that node at an end.
    incident: Vec<Vec<RelSlot>>,
    /// Per node: its pattern degree.
    degree: Vec<usize>,
    /// Per relationship: the fan-out from its source end and from its target end, once asked.
    fans: std::cell::RefCell<Vec<[Option<f64>; 2]>>,
}

impl<'a> Chooser<'a> {
    fn new(query: &'a BoundQuery, candidate_counts: &'a [usize], fanout: Fanout<'a>) -> Self {
        let pattern = &query.pattern;
        let mut incident = vec![Vec::new(); pattern.nodes.len()];
        for (ri, r) in pattern.rels.iter().enumerate() {
            if let Some(v) = incident.get_mut(r.src) {
                v.push(ri);
            }
            if r.dst != r.src {
                if let Some(v) = incident.get_mut(r.dst) {
                    v.push(ri);
                }
            }
        }
        Chooser {
            query,
            candidate_counts,
            fanout,
            incident,
            degree: pattern.degrees(),
            fans: std::cell::RefCell::new(vec![[None; 2]; pattern.rels.len()]),
        }
    }

    fn count(&self, s: NodeSlot) -> usize {
        self.candidate_counts.get(s).copied().unwrap_or(0)
    }

    /// The expansion of relationship `ri` from its bound end `from`.
    fn expansion(&self, ri: RelSlot, from: NodeSlot) -> Expansion {
        let r = &self.query.pattern.rels[ri];
        let dir = match (r.undirected, from == r.src) {
            (true, _) => Dir::Both,
            (false, true) => Dir::Out,
            (false, false) => Dir::In,
        };
        Expansion { rel: ri, from, dir }
    }

    /// The estimated fan-out of `e` (asked of the estimator once per relationship end).
    fn fan(&self, e: Expansion) -> f64 {
        let end = usize::from(e.from != self.query.pattern.rels[e.rel].src);
        if let Some(f) = self.fans.borrow().get(e.rel).and_then(|f| f[end]) {
            return f;
        }
        let f = (self.fanout)(e.rel, e.from, e.dir);
        if let Some(slot) = self.fans.borrow_mut().get_mut(e.rel) {
            slot[end] = Some(f);
        }
        f
    }

    /// The expansions that reach the unbound node `s` from a bound one (self loops left out).
    fn expansions_to<'s>(
        &'s self,
        s: NodeSlot,
        bound: &'s [bool],
    ) -> impl Iterator<Item = Expansion> + 's {
        let rels = &self.query.pattern.rels;
        self.incident[s].iter().filter_map(move |&ri| {
            let r = &rels[ri];
            if r.src == r.dst {
                None
            } else if r.dst == s && bound[r.src] {
                Some(self.expansion(ri, r.src))
            } else if r.src == s && bound[r.dst] {
                Some(self.expansion(ri, r.dst))
            } else {
                None
            }
        })
    }

    /// [`plan_with`]'s choice of the next node to bind, given the nodes bound so far: connected
    /// first; then more connections; then the smaller expansion; then fewer candidates; then
    /// higher pattern degree; then the lower slot.
    fn cheapest_next(&self, bound: &[bool]) -> Option<NodeSlot> {
        let k = self.query.pattern.nodes.len().min(bound.len());
        // Per unbound node: (connections to the bound set, the cheapest expansion to it).
        let key = |s: NodeSlot| -> (usize, f64) {
            self.expansions_to(s, bound)
                .fold((0, f64::INFINITY), |(n, best), e| {
                    (n + 1, best.min(self.fan(e)))
                })
        };
        let mut best: Option<(NodeSlot, (usize, f64))> = None;
        for s in (0..k).filter(|&s| !bound[s]) {
            let ks = key(s);
            let better = match &best {
                None => true,
                Some((b, kb)) => {
                    let (ca, cb) = (ks.0, kb.0);
                    // Connected first; then more connections; then the smaller expansion; then
                    // fewer candidates; then higher pattern degree; then the lower slot.
                    (ca == 0)
                        .cmp(&(cb == 0))
                        .then(cb.cmp(&ca))
                        .then(ks.1.total_cmp(&kb.1))
                        .then(self.count(s).cmp(&self.count(*b)))
                        .then(self.degree[*b].cmp(&self.degree[s]))
                        .then(s.cmp(b))
                        .is_lt()
                }
            };
            if better {
                best = Some((s, ks));
            }
        }
        best.map(|(s, _)| s)
    }
}

/// Chooses the next node to bind from the nodes bound so far (`None`: stop).
type NextNode<'a> = &'a mut dyn FnMut(&[bool]) -> Option<NodeSlot>;

/// The plan with nodes bound in the order `next` picks them: expansions, checks, estimates and
/// conjunct placement.
fn build(
    query: &BoundQuery,
    chooser: &Chooser<'_>,
    strings_unary: bool,
    next: NextNode<'_>,
) -> Plan {
    let pattern = &query.pattern;
    let k = pattern.nodes.len();
    let unary = unary_conjuncts_with(query, strings_unary);
    let count = |s: NodeSlot| chooser.count(s);

    let mut bound = vec![false; k];
    let mut rel_done = vec![false; pattern.rels.len()];
    let mut steps: Vec<Step> = Vec::with_capacity(k);
    let mut estimate = 1.0f64;
    while steps.len() < k {
        let Some(node) = next(&bound).filter(|&s| s < k && !bound[s]) else {
            break;
        };
        // Expansion: the connecting relationship from the bound node with the fewest candidates.
        let expand = chooser
            .expansions_to(node, &bound)
            .filter(|e| !rel_done[e.rel])
            .min_by(|a, b| {
                chooser
                    .fan(*a)
                    .total_cmp(&chooser.fan(*b))
                    .then(a.rel.cmp(&b.rel))
            });
        bound[node] = true;
        if let Some(e) = expand {
            rel_done[e.rel] = true;
        }
        // Only relationships at the new node can have had their last end bound now.
        let mut checks: Vec<RelSlot> = chooser.incident[node]
            .iter()
            .copied()
            .filter(|&ri| {
                let r = &pattern.rels[ri];
                !rel_done[ri] && bound[r.src] && bound[r.dst]
            })
            .collect();
        checks.sort_unstable();
        for &c in &checks {
            rel_done[c] = true;
        }
        estimate = match expand {
            None => estimate * count(node) as f64,
            Some(e) => estimate * chooser.fan(e),
        } * 0.5f64.powi(checks.len() as i32);
        steps.push(Step {
            node,
            expand,
            checks,
            filters: Vec::new(),
            candidates: count(node),
            estimate,
        });
    }

    // Place the remaining conjuncts.
    let mut attribute_filters = Vec::new();
    let node_step: Vec<usize> = {
        let mut v = vec![0; k];
        for (i, s) in steps.iter().enumerate() {
            v[s.node] = i;
        }
        v
    };
    let rel_step: Vec<usize> = {
        let mut v = vec![0; pattern.rels.len()];
        for (i, s) in steps.iter().enumerate() {
            if let Some(e) = s.expand {
                v[e.rel] = i;
            }
            for &c in &s.checks {
                v[c] = i;
            }
        }
        v
    };
    for (i, c) in query.filter.iter().enumerate() {
        if unary_slot(c, strings_unary).is_some() {
            continue;
        }
        if c.is_string_predicate() {
            attribute_filters.push(i);
            continue;
        }
        let (n, r) = slots_of(c);
        let at = n
            .iter()
            .map(|&s| node_step.get(s).copied().unwrap_or(0))
            .chain(r.iter().map(|&s| rel_step.get(s).copied().unwrap_or(0)))
            .max()
            .unwrap_or(0);
        if let Some(step) = steps.get_mut(at) {
            step.filters.push(i);
        }
    }
    Plan {
        steps,
        unary,
        attribute_filters,
    }
}

impl Plan {
    /// Where each conjunct of the filter runs.
    pub fn placement(&self, conjunct: usize) -> Option<Placement> {
        for (slot, u) in self.unary.iter().enumerate() {
            if u.contains(&conjunct) {
                return Some(Placement::Unary(slot));
            }
        }
        for (i, s) in self.steps.iter().enumerate() {
            if s.filters.contains(&conjunct) {
                return Some(Placement::Step(i));
            }
        }
        self.attribute_filters
            .contains(&conjunct)
            .then_some(Placement::Attribute)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;

    fn query() -> (crate::model::Model, BoundQuery) {
        let mut b = ModelBuilder::new();
        let t = b.rel_type("T");
        let x = b.add_node("x", &["A"]);
        let y = b.add_node("y", &["B"]);
        b.add_edge(x, y, t).unwrap();
        let m = b.freeze().unwrap();
        // A path a -> b -> c -> d plus a chord a -> c, and a WHERE on b and d.
        let q = crate::pattern::compile(
            "MATCH (a:A)-[:T]->(b:B)-[:T]->(c)-[:T]->(d), (a)-[:T]->(c) WHERE id(b) < id(d) \
             RETURN a",
            &m,
            &Default::default(),
        )
        .unwrap();
        (m, q)
    }

    #[test]
    fn plan_in_order_follows_the_order_it_is_given() {
        let (_, q) = query();
        let counts = [5, 1, 9, 3];
        let fanout = |_: RelSlot, _: NodeSlot, _: Dir| 2.0;
        let default = plan_with(&q, &counts, &fanout, true);
        for order in [[3, 2, 1, 0], [2, 0, 3, 1], [0, 1, 2, 3], [1, 2, 3, 0]] {
            let p = plan_in_order(&q, &order, &counts, &fanout, true);
            let got: Vec<NodeSlot> = p.steps.iter().map(|s| s.node).collect();
            assert_eq!(got, order);
            // Every relationship is an expansion or a check exactly once, from bound nodes.
            let mut handled = vec![0; q.pattern.rels.len()];
            for (i, s) in p.steps.iter().enumerate() {
                let before: Vec<NodeSlot> = p.steps[..i].iter().map(|s| s.node).collect();
                if let Some(e) = s.expand {
                    handled[e.rel] += 1;
                    assert!(before.contains(&e.from), "{order:?}: step {i}");
                } else if i > 0 {
                    // Only a node with no relationship to earlier ones is scanned.
                    assert!(q
                        .pattern
                        .rels
                        .iter()
                        .all(|r| !(r.src == s.node && before.contains(&r.dst)
                            || r.dst == s.node && before.contains(&r.src))));
                }
                for &c in &s.checks {
                    handled[c] += 1;
                }
            }
            assert!(handled.iter().all(|&h| h == 1), "{order:?}: {handled:?}");
            // The id-order conjunct runs once both ends are bound.
            let at = p.steps.iter().position(|s| !s.filters.is_empty()).unwrap();
            let bound: Vec<NodeSlot> = p.steps[..=at].iter().map(|s| s.node).collect();
            assert!(bound.contains(&1) && bound.contains(&3));
            assert!(
                !p.steps[..at].iter().map(|s| s.node).any(|n| n == 1)
                    || !p.steps[..at].iter().map(|s| s.node).any(|n| n == 3)
            );
        }
        // The default planner's own order, given back, gives the default plan.
        let own: Vec<NodeSlot> = default.steps.iter().map(|s| s.node).collect();
        let again = plan_in_order(&q, &own, &counts, &fanout, true);
        assert_eq!(format!("{again:?}"), format!("{default:?}"));
        // An incomplete or repeating order is completed: every node bound once.
        let p = plan_in_order(&q, &[2, 2, 7], &counts, &fanout, true);
        let mut got: Vec<NodeSlot> = p.steps.iter().map(|s| s.node).collect();
        assert_eq!(got[0], 2);
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2, 3]);
    }
}
