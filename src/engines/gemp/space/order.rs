//! Stage 2 — *order*: static matching orders, each connected (every node after the first has a
//! bound neighbour), scored by one cost model and the cheapest taken.
//!
//! - `gql`: GraphQL's — start at the fewest candidates, then the connected node with the fewest;
//! - `ri`: RI's structural order — start at the highest degree, then the node with the most bound
//!   neighbours, then the most neighbours next to bound ones, then the most others;
//! - `cost`: greedy on the cost model from every start — the connected node whose binding grows
//!   the estimated partial matches least.
//!
//! Every order then ends with the pattern's leaves (nodes with one neighbour), up to
//! [`MAX_TAIL`] of them, those with the most candidates last ([`leaves_last`]): once their
//! neighbours are bound a leaf prunes little (refinement left every candidate of its neighbour a
//! candidate neighbour), and nodes at the end that are not adjacent to each other are counted
//! together rather than visited one by one (see [`super::search`]).
//!
//! Cost model: the cost of an order is the sum over its prefixes of their estimated partial
//! matches. A prefix's estimate is the exact number of homomorphisms of its spanning tree (each
//! node hung from its first bound neighbour) into the candidate-edge tables, a dynamic program over
//! the tables kept up to date as the tree grows, times the selectivity of each other relationship
//! (`|E(u, v)| / (|C(u)| |C(v)|)`). Over a very large candidate space the tree counts are replaced
//! by the independence estimate (candidates times selectivities).

use super::query_graph::QueryGraph;
use super::search::MAX_TAIL;
use super::tables::{table_id, EdgeTable};

/// A chosen order and the alternatives considered.
#[derive(Debug, Clone)]
pub struct OrderChoice {
    /// Pattern nodes in binding order.
    pub order: Vec<usize>,
    /// The algorithm that produced it.
    pub name: &'static str,
    /// Its estimated cost.
    pub cost: f64,
    /// Every order considered: (algorithm, estimated cost).
    pub considered: Vec<(&'static str, f64)>,
    /// The other orders considered, cheapest first (tried when the chosen one turns out costly).
    pub alternatives: Vec<(&'static str, Vec<usize>)>,
}

/// The statistics orders are scored with.
#[derive(Debug, Clone)]
pub struct OrderStats<'a> {
    /// Candidates per pattern node.
    pub sizes: Vec<usize>,
    /// Candidate edges per relationship (either orientation).
    pub edges: Vec<usize>,
    /// The candidate-edge tables ([`table_id`]); empty = independence estimates only.
    pub tables: &'a [EdgeTable],
}

/// Candidate edges beyond which orders are scored by the independence estimate.
const TREE_ESTIMATE_LIMIT: usize = 1 << 21;

/// The spanning-tree dynamic program of one growing prefix.
#[derive(Clone)]
struct TreeCount<'s, 'a> {
    stats: &'s OrderStats<'a>,
    q: &'s QueryGraph,
    /// Per node in the prefix: (parent, table from the parent) or none for the root.
    parent: Vec<Option<(usize, usize)>>,
    /// Per node: tree homomorphisms of its subtree, per candidate.
    weight: Vec<Vec<f64>>,
    /// Per node: its children.
    children: Vec<Vec<usize>>,
    root: Option<usize>,
    /// Selectivity product of the non-tree relationships inside the prefix.
    extra: f64,
    bound: Vec<bool>,
}

impl<'s, 'a> TreeCount<'s, 'a> {
    fn new(q: &'s QueryGraph, stats: &'s OrderStats<'a>) -> Self {
        let k = q.len();
        TreeCount {
            stats,
            q,
            parent: vec![None; k],
            weight: vec![Vec::new(); k],
            children: vec![Vec::new(); k],
            root: None,
            extra: 1.0,
            bound: vec![false; k],
        }
    }

    /// `Σ_{y ∈ row(x)} weight[c](y)` for each candidate `x` of `c`'s parent.
    fn child_sums(&self, c: usize) -> Vec<f64> {
        let (_, tb) = self.parent[c].expect("a child has a parent");
        let t = &self.stats.tables[tb];
        let w = &self.weight[c];
        (0..t.offsets.len() - 1)
            .map(|x| t.row(x as u32).iter().map(|&y| w[y as usize]).sum())
            .collect()
    }

    fn recompute(&mut self, a: usize) {
        let mut w = vec![1.0; self.stats.sizes[a]];
        for &c in &self.children[a].clone() {
            for (wx, s) in w.iter_mut().zip(self.child_sums(c)) {
                *wx *= s;
            }
        }
        self.weight[a] = w;
    }

    /// Binds `v` next.
    fn push(&mut self, v: usize) {
        let first = self.q.incident[v].iter().find(|i| self.bound[i.other]);
        match first {
            None => {
                self.weight[v] = vec![1.0; self.stats.sizes[v]];
                if self.root.is_none() {
                    self.root = Some(v);
                } else {
                    // Another component: counts multiply.
                    self.extra *= self.stats.sizes[v] as f64;
                }
            }
            Some(inc) => {
                let p = inc.other;
                // The table walked from the parent's end.
                self.parent[v] = Some((p, table_id(inc.rel, !inc.forward)));
                self.children[p].push(v);
                self.weight[v] = vec![1.0; self.stats.sizes[v]];
                for other in self.q.incident[v]
                    .iter()
                    .filter(|i| self.bound[i.other])
                    .skip(1)
                {
                    self.extra *= self.stats.selectivity(self.q, other.rel);
                }
                let mut a = Some(p);
                while let Some(x) = a {
                    self.recompute(x);
                    a = self.parent[x].map(|(pp, _)| pp);
                }
            }
        }
        self.bound[v] = true;
    }

    /// Estimated partial matches of the prefix bound so far.
    fn estimate(&self) -> f64 {
        let Some(r) = self.root else { return 1.0 };
        self.weight[r].iter().sum::<f64>() * self.extra
    }
}

impl OrderStats<'_> {
    fn selectivity(&self, q: &QueryGraph, rel: usize) -> f64 {
        let r = &q.rels[rel];
        let pairs = self.sizes[r.src] as f64 * self.sizes[r.dst] as f64;
        if pairs == 0.0 {
            0.0
        } else {
            self.edges[rel] as f64 / pairs
        }
    }

    /// The factor binding `v` multiplies partial matches by, given the `bound` nodes, by the
    /// independence estimate.
    fn growth(&self, q: &QueryGraph, v: usize, bound: &[bool]) -> f64 {
        q.incident[v]
            .iter()
            .filter(|i| bound[i.other])
            .fold(self.sizes[v] as f64, |acc, i| {
                acc * self.selectivity(q, i.rel)
            })
    }

    fn exact_trees(&self) -> bool {
        !self.tables.is_empty() && self.edges.iter().sum::<usize>() <= TREE_ESTIMATE_LIMIT
    }

    /// The estimated partial matches after each prefix of `order`.
    pub fn prefix_estimates(&self, q: &QueryGraph, order: &[usize]) -> Vec<f64> {
        if self.exact_trees() {
            let mut t = TreeCount::new(q, self);
            return order
                .iter()
                .map(|&v| {
                    t.push(v);
                    t.estimate()
                })
                .collect();
        }
        let mut bound = vec![false; q.len()];
        let mut partial = 1.0;
        order
            .iter()
            .map(|&v| {
                partial *= self.growth(q, v, &bound);
                bound[v] = true;
                partial
            })
            .collect()
    }

    /// The estimated cost of `order`: the sum of its prefix estimates.
    pub fn cost(&self, q: &QueryGraph, order: &[usize]) -> f64 {
        self.prefix_estimates(q, order).iter().sum()
    }
}

fn bound_neighbours(q: &QueryGraph, v: usize, bound: &[bool]) -> usize {
    q.neighbours(v).into_iter().filter(|&w| bound[w]).count()
}

/// Extends `start` to a full order, each next node chosen among the unbound neighbours of bound
/// ones by the smallest `key` (ties: lowest node number).
fn greedy<K: PartialOrd>(
    q: &QueryGraph,
    start: usize,
    key: impl Fn(usize, &[bool]) -> K,
) -> Vec<usize> {
    let k = q.len();
    let mut bound = vec![false; k];
    let mut order = vec![start];
    bound[start] = true;
    while order.len() < k {
        let frontier = (0..k).filter(|&v| !bound[v] && bound_neighbours(q, v, &bound) > 0);
        let mut best: Option<(usize, K)> = None;
        for v in frontier {
            let kv = key(v, &bound);
            if best.as_ref().is_none_or(|(_, b)| kv < *b) {
                best = Some((v, kv));
            }
        }
        let v = best.map_or_else(
            // Not connected (the caller checks): take any unbound node.
            || (0..k).find(|&v| !bound[v]).expect("an unbound node"),
            |(v, _)| v,
        );
        bound[v] = true;
        order.push(v);
    }
    order
}

/// GraphQL's order.
pub fn gql(q: &QueryGraph, stats: &OrderStats) -> Vec<usize> {
    let start = (0..q.len())
        .min_by_key(|&v| (stats.sizes[v], usize::MAX - q.neighbours(v).len()))
        .unwrap_or(0);
    greedy(q, start, |v, bound| {
        (stats.sizes[v], usize::MAX - bound_neighbours(q, v, bound))
    })
}

/// RI's structural order.
pub fn ri(q: &QueryGraph, stats: &OrderStats) -> Vec<usize> {
    let start = (0..q.len())
        .min_by_key(|&v| (usize::MAX - q.neighbours(v).len(), stats.sizes[v]))
        .unwrap_or(0);
    greedy(q, start, |v, bound| {
        let nbrs = q.neighbours(v);
        let vis = nbrs.iter().filter(|&&w| bound[w]).count();
        let near = nbrs
            .iter()
            .filter(|&&w| !bound[w] && q.neighbours(w).iter().any(|&x| bound[x]))
            .count();
        let rest = nbrs.len() - vis - near;
        // Larger is better: negate for the smallest-key greedy.
        (
            usize::MAX - vis,
            usize::MAX - near,
            usize::MAX - rest,
            stats.sizes[v],
        )
    })
}

/// The cost-greedy order: from the node with the fewest candidates, the connected node whose
/// binding gives the fewest estimated partial matches next.
pub fn cost_greedy(q: &QueryGraph, stats: &OrderStats) -> Vec<usize> {
    let k = q.len();
    let start = (0..k).min_by_key(|&v| stats.sizes[v]).unwrap_or(0);
    let mut order = vec![start];
    let mut bound = vec![false; k];
    bound[start] = true;
    if !stats.exact_trees() {
        return greedy(q, start, |v, bound| {
            (
                stats.growth(q, v, bound),
                usize::MAX - bound_neighbours(q, v, bound),
            )
        });
    }
    let mut tree = TreeCount::new(q, stats);
    tree.push(start);
    while order.len() < k {
        let mut best: Option<(usize, f64, TreeCount)> = None;
        for v in (0..k).filter(|&v| !bound[v] && bound_neighbours(q, v, &bound) > 0) {
            let mut t = tree.clone();
            t.push(v);
            let e = t.estimate();
            if best.as_ref().is_none_or(|b| e < b.1) {
                best = Some((v, e, t));
            }
        }
        let Some((v, _, t)) = best else {
            // Not connected (the caller checks): take any unbound node.
            let v = (0..k).find(|&v| !bound[v]).expect("an unbound node");
            tree.push(v);
            bound[v] = true;
            order.push(v);
            continue;
        };
        tree = t;
        bound[v] = true;
        order.push(v);
    }
    order
}

/// `order` with up to [`MAX_TAIL`] of the pattern's leaves moved to its end, the leaves with the
/// most candidates last (a leaf: one neighbour, no self-loop; never the first node, whose place
/// starts the search). Every node keeps a neighbour before it: a leaf's neighbour is not a leaf
/// (the pattern is connected and has more than two nodes) and stays in place.
pub fn leaves_last(q: &QueryGraph, stats: &OrderStats, order: Vec<usize>) -> Vec<usize> {
    if order.len() <= 2 {
        return order;
    }
    let is_leaf = |u: usize| {
        let mut others = q.incident[u].iter().map(|i| i.other);
        match others.next() {
            Some(first) => first != u && others.all(|o| o == first),
            None => false,
        }
    };
    let mut leaves: Vec<usize> = order[1..].iter().copied().filter(|&u| is_leaf(u)).collect();
    // The most candidates last; among equals, the order's own.
    leaves.sort_by_key(|&u| std::cmp::Reverse(stats.sizes[u]));
    leaves.truncate(MAX_TAIL);
    leaves.reverse();
    let mut out: Vec<usize> = order.into_iter().filter(|u| !leaves.contains(u)).collect();
    out.extend(leaves);
    out
}

/// Every order algorithm's order (leaves last), scored; the cheapest chosen (ties: the earlier
/// algorithm).
pub fn choose(q: &QueryGraph, stats: &OrderStats) -> OrderChoice {
    let all: [(&'static str, Vec<usize>); 3] = [
        ("gql", leaves_last(q, stats, gql(q, stats))),
        ("ri", leaves_last(q, stats, ri(q, stats))),
        ("cost", leaves_last(q, stats, cost_greedy(q, stats))),
    ];
    let considered: Vec<(&'static str, f64)> =
        all.iter().map(|(n, o)| (*n, stats.cost(q, o))).collect();
    let best = (0..all.len())
        .min_by(|&a, &b| considered[a].1.total_cmp(&considered[b].1))
        .unwrap_or(0);
    let (name, order) = all[best].clone();
    let mut others: Vec<usize> = (0..all.len())
        .filter(|&i| i != best && all[i].1 != order)
        .collect();
    others.sort_by(|&a, &b| considered[a].1.total_cmp(&considered[b].1));
    let mut alternatives: Vec<(&'static str, Vec<usize>)> = Vec::new();
    for i in others {
        if alternatives.iter().all(|(_, o)| *o != all[i].1) {
            alternatives.push(all[i].clone());
        }
    }
    OrderChoice {
        order,
        name,
        cost: considered[best].1,
        considered,
        alternatives,
    }
}

/// The order named `name` (`gql`, `ri`, `cost`), scored; `None` for another name.
pub fn named(q: &QueryGraph, stats: &OrderStats, name: &str) -> Option<OrderChoice> {
    let (name, order): (&'static str, Vec<usize>) = match name {
        "gql" => ("gql", gql(q, stats)),
        "ri" => ("ri", ri(q, stats)),
        "cost" => ("cost", cost_greedy(q, stats)),
        _ => return None,
    };
    let order = leaves_last(q, stats, order);
    let cost = stats.cost(q, &order);
    Some(OrderChoice {
        order,
        name,
        cost,
        considered: vec![(name, cost)],
        alternatives: Vec::new(),
    })
}
