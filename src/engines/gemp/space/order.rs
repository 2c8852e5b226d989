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
//! When the matches are only counted, each algorithm's order is also tried with more such nodes
//! at its end ([`independent_tails`]: taken from the end backwards, pairwise non-adjacent, the
//! rest left connected), and orders are scored by [`OrderStats::counting_cost`], which charges a
//! tail counted together once per partial match before it instead of once per partial match of
//! each prefix.
//!
//! Cost model: the cost of an order is the sum over its prefixes of their estimated partial
//! matches. A prefix's estimate is the exact number of homomorphisms of its spanning tree (each
//! node hung from its first bound neighbour) into the candidate-edge tables, a dynamic program over
//! the tables kept up to date as the tree grows, times the selectivity of each other relationship
//! (`|E(u, v)| / (|C(u)| |C(v)|)`). Over a very large candidate space the tree counts are replaced
//! by the independence estimate (candidates times selectivities).
//!
//! Sampled scores: the selectivities of the relationships outside a prefix's tree are not
//! independent on dense queries over correlated data, and there the model's estimates of different
//! orders can be off by different factors of ten. When asked (`sample_from`: up front for a
//! query whose rows are wanted, by [`super::Prepared::count`] once the model's order has overrun
//! a budget), every order is scored again on estimates measured by [`super::sampled`], and a
//! fourth order joins: [`Sampler::greedy`], the connected node whose binding gives the fewest
//! sampled partial matches at each step.

use super::filter::Candidates;
use super::query_graph::QueryGraph;
use super::sampled::Sampler;
use super::search::MAX_TAIL;
use super::tables::{table_id, EdgeTable};

/// A chosen order and the alternatives considered.
#[derive(Debug, Clone)]
pub struct OrderChoice {
    /// Pattern nodes in binding order.
    pub order: Vec<usize>,
    /// The algorithm that produced it.
    pub name: &'static str,
    /// Its estimated cost when every partial match is visited ([`OrderStats::cost`], also when
    /// it was chosen by [`OrderStats::counting_cost`]): the budget of its first run.
    pub cost: f64,
    /// Every order considered: (algorithm, its score: the estimated cost it was chosen by).
    pub considered: Vec<(&'static str, f64)>,
    /// The other orders considered, cheapest first (tried when the chosen one turns out costly).
    pub alternatives: Vec<(&'static str, Vec<usize>)>,
    /// The most candidates any order can visit when the space is tiny (then the order was not
    /// scored against others: [`TINY_SPACE_VISITS`]); `None` otherwise.
    pub tiny_bound: Option<f64>,
    /// The particles per level when the orders were scored by sampled estimates
    /// ([`super::sampled`]) instead of the model; `None` otherwise.
    pub sampled: Option<usize>,
}

impl OrderChoice {
    /// One order, not scored against others: `score` is what it was chosen by, `cost` its
    /// estimated cost with every partial match visited.
    fn single(
        name: &'static str,
        order: Vec<usize>,
        score: f64,
        cost: f64,
        tiny_bound: Option<f64>,
    ) -> Self {
        OrderChoice {
            order,
            name,
            cost,
            considered: vec![(name, score)],
            alternatives: Vec::new(),
            tiny_bound,
            sampled: None,
        }
    }
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
    /// The candidate sets (for sampled estimates, [`super::sampled`]); empty = no sampling.
    pub cands: &'a [Candidates],
    /// Node-isomorphism (sampled partial matches bind distinct nodes).
    pub injective: bool,
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

    /// True when sampled estimates can be taken: the tables and candidate sets are there.
    fn can_sample(&self, q: &QueryGraph) -> bool {
        self.cands.len() == q.len() && self.tables.len() == 2 * q.rels.len()
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

    /// The estimated cost of counting the matches of `order`: the sum of its prefix estimates up
    /// to the tail counted together ([`tail_start`]), plus one evaluation of each tail node's
    /// local candidates per partial match before the tail.
    pub fn counting_cost(&self, q: &QueryGraph, order: &[usize]) -> f64 {
        let estimates = self.prefix_estimates(q, order);
        let s = tail_start(q, order);
        if s == 0 {
            return estimates.iter().sum();
        }
        let before: f64 = estimates[..s].iter().sum();
        before + estimates[s - 1] * (order.len() - s) as f64
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
    greedy(q, gql_start(q, stats), |v, bound| {
        (stats.sizes[v], usize::MAX - bound_neighbours(q, v, bound))
    })
}

/// GraphQL's first node: the fewest candidates (ties: the most neighbours).
fn gql_start(q: &QueryGraph, stats: &OrderStats) -> usize {
    (0..q.len())
        .min_by_key(|&v| (stats.sizes[v], usize::MAX - q.neighbours(v).len()))
        .unwrap_or(0)
}

/// RI's first node: the most neighbours (ties: the fewest candidates).
fn ri_start(q: &QueryGraph, stats: &OrderStats) -> usize {
    (0..q.len())
        .min_by_key(|&v| (usize::MAX - q.neighbours(v).len(), stats.sizes[v]))
        .unwrap_or(0)
}

/// RI's structural order.
pub fn ri(q: &QueryGraph, stats: &OrderStats) -> Vec<usize> {
    let start = ri_start(q, stats);
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

/// The first depth of the tail of `order` that a count takes together: the smallest `s` (at
/// least 1, at most [`MAX_TAIL`] from the end) such that every node at `s..k` has all its
/// neighbours before `s` (no two tail nodes adjacent); `k - 1` (the last node alone) when none is
/// smaller.
pub fn tail_start(q: &QueryGraph, order: &[usize]) -> usize {
    let k = order.len();
    if k < 2 {
        return k.saturating_sub(1);
    }
    let mut depth_of = vec![usize::MAX; q.len()];
    for (d, &u) in order.iter().enumerate() {
        depth_of[u] = d;
    }
    // The deepest neighbour bound before each node (self-loops aside).
    let last_parent = |j: usize| {
        q.incident[order[j]]
            .iter()
            .map(|i| depth_of[i.other])
            .filter(|&p| p < j)
            .max()
            .unwrap_or(0)
    };
    let lowest = k.saturating_sub(MAX_TAIL).max(1);
    (lowest..k - 1)
        .find(|&s| (s..k).all(|j| last_parent(j) < s))
        .unwrap_or(k - 1)
}

/// Variants of `order` that end with more nodes counted together: the nodes taken from the end
/// of `order` backwards, each not adjacent to those taken already and leaving the rest of the
/// pattern connected (never the first node), up to [`MAX_TAIL`]; one variant per number taken
/// (two or more), each with the rest in `order`'s order (a node whose earlier neighbours all moved
/// waits until one of its neighbours is placed) and the taken nodes last, most candidates last.
pub fn independent_tails(q: &QueryGraph, stats: &OrderStats, order: &[usize]) -> Vec<Vec<usize>> {
    let k = order.len();
    if k <= 2 {
        return Vec::new();
    }
    let adjacent = |a: usize, b: usize| q.incident[a].iter().any(|i| i.other == b);
    let connected_without = |gone: &[usize]| {
        let mut seen = vec![false; k];
        let mut stack = vec![order[0]];
        seen[order[0]] = true;
        let mut reached = 1;
        while let Some(u) = stack.pop() {
            for i in &q.incident[u] {
                if !seen[i.other] && !gone.contains(&i.other) {
                    seen[i.other] = true;
                    reached += 1;
                    stack.push(i.other);
                }
            }
        }
        reached + gone.len() == k
    };
    let mut taken: Vec<usize> = Vec::new();
    let mut variants = Vec::new();
    for &u in order[1..].iter().rev() {
        if taken.len() == MAX_TAIL {
            break;
        }
        if taken.iter().any(|&t| adjacent(t, u)) || q.incident[u].iter().any(|i| i.other == u) {
            continue;
        }
        taken.push(u);
        if !connected_without(&taken) {
            taken.pop();
            continue;
        }
        if taken.len() >= 2 {
            variants.push(with_tail(q, stats, order, &taken));
        }
    }
    variants
}

/// `order` without `tail` (kept connected), then `tail`, most candidates last.
fn with_tail(q: &QueryGraph, stats: &OrderStats, order: &[usize], tail: &[usize]) -> Vec<usize> {
    let mut placed = vec![false; q.len()];
    let mut out: Vec<usize> = Vec::with_capacity(order.len());
    let mut waiting: Vec<usize> = Vec::new();
    let touches = |u: usize, placed: &[bool]| q.incident[u].iter().any(|i| placed[i.other]);
    for &u in order.iter().filter(|u| !tail.contains(u)) {
        if out.is_empty() || touches(u, &placed) {
            placed[u] = true;
            out.push(u);
            // Those waiting that now have a placed neighbour, in their order.
            while let Some(at) = waiting.iter().position(|&w| touches(w, &placed)) {
                let w = waiting.remove(at);
                placed[w] = true;
                out.push(w);
            }
        } else {
            waiting.push(u);
        }
    }
    // The rest is connected, so nothing waits at the end; should it, keep every node anyway.
    out.extend(waiting);
    let mut tail = tail.to_vec();
    tail.sort_by_key(|&u| stats.sizes[u]);
    out.extend(tail);
    out
}

/// `order` scored (by [`OrderStats::counting_cost`] when `counting`, else [`OrderStats::cost`]),
/// or when counting its cheapest variant with more independent nodes last.
fn cheapest_variant(
    q: &QueryGraph,
    stats: &OrderStats,
    order: Vec<usize>,
    counting: bool,
) -> (f64, Vec<usize>) {
    if !counting {
        return (stats.cost(q, &order), order);
    }
    let mut best = (stats.counting_cost(q, &order), order);
    for variant in independent_tails(q, stats, &best.1) {
        let cost = stats.counting_cost(q, &variant);
        if cost < best.0 {
            best = (cost, variant);
        }
    }
    best
}

/// Every order algorithm's order (leaves last), scored; the cheapest chosen (ties: the earlier
/// algorithm). When the best score is `sample_from` or more, the orders (and a sampled greedy
/// one) are scored again on sampled estimates ([`sampled_scores`]) and chosen on those. When the query's matches are only counted (`counting`), orders are scored by
/// [`OrderStats::counting_cost`] and each algorithm's order is also tried with more independent
/// nodes last ([`independent_tails`]), which a count takes together instead of visiting.
pub fn choose(
    q: &QueryGraph,
    stats: &OrderStats,
    counting: bool,
    sample_from: Option<f64>,
) -> OrderChoice {
    if let Some(choice) = tiny_space_order(q, stats) {
        return choice;
    }
    let base: [(&'static str, Vec<usize>); 3] = [
        ("gql", leaves_last(q, stats, gql(q, stats))),
        ("ri", leaves_last(q, stats, ri(q, stats))),
        ("cost", leaves_last(q, stats, cost_greedy(q, stats))),
    ];
    // Per algorithm its cheapest variant (one each: every order considered may get a trial).
    let mut all: Vec<(&'static str, Vec<usize>)> = Vec::new();
    let mut considered: Vec<(&'static str, f64)> = Vec::new();
    for (name, order) in base {
        let (score, order) = cheapest_variant(q, stats, order, counting);
        considered.push((name, score));
        all.push((name, order));
    }
    let model_best = considered.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
    // Per order in `all`, its sampled cost with every partial match visited, when sampled.
    let mut sampled_visits = None;
    if sample_from.is_some_and(|from| model_best >= from) && stats.can_sample(q) {
        let sampler = Sampler::new(q, stats.cands, stats.tables, stats.injective);
        let (orders, scores, visits) = sampled_scores(q, stats, &sampler, &all, counting);
        all = orders;
        considered = scores;
        sampled_visits = Some(visits);
    }
    let best = (0..all.len())
        .min_by(|&a, &b| considered[a].1.total_cmp(&considered[b].1))
        .unwrap_or(0);
    let (name, order) = all[best].clone();
    // The first run's budget: the model's estimate, or the sampled one when that is higher (the
    // model underestimates dense queries most).
    let mut cost = stats.cost(q, &order);
    if let Some(visits) = &sampled_visits {
        cost = cost.max(visits[best]);
    }
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
        cost,
        considered,
        alternatives,
        tiny_bound: None,
        sampled: sampled_visits.map(|_| super::sampled::PARTICLES),
    }
}

/// Estimated costs (by the model, of the best order) from which orders are scored by sampled
/// estimates instead ([`super::sampled`]): below it the search takes about a millisecond, less
/// than sampling a few orders.
pub const SAMPLE_FROM: f64 = 2e5;

/// The orders scored on sampled estimates: each algorithm's order (leaves last) and, when
/// counting, its variants with more independent nodes last, plus the sampled greedy order
/// ([`Sampler::greedy`]) from the node with the fewest candidates and from the one with the most
/// neighbours; one order per algorithm, its best-scoring form, with its score and its sampled
/// cost with every partial match visited.
#[allow(clippy::type_complexity)]
fn sampled_scores(
    q: &QueryGraph,
    stats: &OrderStats,
    sampler: &Sampler,
    modelled: &[(&'static str, Vec<usize>)],
    counting: bool,
) -> (
    Vec<(&'static str, Vec<usize>)>,
    Vec<(&'static str, f64)>,
    Vec<f64>,
) {
    let fewest = gql_start(q, stats);
    let widest = ri_start(q, stats);
    let mut bases = modelled.to_vec();
    bases.push(("sampled", leaves_last(q, stats, sampler.greedy(fewest))));
    if widest != fewest {
        bases.push(("sampled", leaves_last(q, stats, sampler.greedy(widest))));
    }
    // (score, visiting cost) of one form.
    let score = |order: &[usize]| {
        let levels = sampler.levels(order);
        (
            sampled_score(q, order, &levels, counting),
            levels.iter().sum::<f64>(),
        )
    };
    let mut orders: Vec<(&'static str, Vec<usize>)> = Vec::new();
    let mut scores: Vec<(&'static str, f64)> = Vec::new();
    let mut visits: Vec<f64> = Vec::new();
    for (name, order) in bases {
        let mut forms = vec![order.clone()];
        if counting {
            forms.extend(independent_tails(q, stats, &order));
        }
        let ((best, visited), form) = forms
            .into_iter()
            .map(|f| (score(&f), f))
            .min_by(|a, b| a.0 .0.total_cmp(&b.0 .0))
            .expect("one form at least");
        match orders.iter().position(|(n, _)| *n == name) {
            Some(at) if scores[at].1 <= best => {}
            Some(at) => {
                orders[at].1 = form;
                scores[at].1 = best;
                visits[at] = visited;
            }
            None => {
                orders.push((name, form));
                scores.push((name, best));
                visits.push(visited);
            }
        }
    }
    (orders, scores, visits)
}

/// An order's cost from its sampled level estimates, as [`OrderStats::cost`] (every partial match
/// visited) or [`OrderStats::counting_cost`] (the tail counted together) scores it.
fn sampled_score(q: &QueryGraph, order: &[usize], levels: &[f64], counting: bool) -> f64 {
    if !counting {
        return levels.iter().sum();
    }
    let s = tail_start(q, order);
    if s == 0 {
        return levels.iter().sum();
    }
    levels[..s].iter().sum::<f64>() + levels[s - 1] * (order.len() - s) as f64
}

/// Candidate visits under which the order does not matter: at most this many whatever the order
/// (see [`tiny_space_order`]), a few microseconds of search — less than scoring the orders.
pub const TINY_SPACE_VISITS: f64 = 4096.0;

/// GraphQL's order, unscored against the others, when the candidate space is so small that no
/// order can visit more than [`TINY_SPACE_VISITS`] candidates: every order's search tree has at
/// most `Π sizes` nodes per depth, so `k · Π sizes` bounds its visits (a proof, not an estimate:
/// no order trial can be needed). Common after refinement on sparse labelled graphs (HPRD's
/// queries are often down to one or two candidates a node), where scoring three orders and their
/// variants cost more than the search.
fn tiny_space_order(q: &QueryGraph, stats: &OrderStats) -> Option<OrderChoice> {
    let k = q.len() as f64;
    let bound = stats
        .sizes
        .iter()
        .fold(k, |acc, &n| (acc * n as f64).min(f64::MAX));
    if bound > TINY_SPACE_VISITS {
        return None;
    }
    let order = leaves_last(q, stats, gql(q, stats));
    let cost = stats.cost(q, &order);
    Some(OrderChoice::single("gql", order, cost, cost, Some(bound)))
}

/// The order named `name` (`gql`, `ri`, `cost`), scored; `None` for another name.
pub fn named(
    q: &QueryGraph,
    stats: &OrderStats,
    name: &str,
    counting: bool,
) -> Option<OrderChoice> {
    let (name, order): (&'static str, Vec<usize>) = match name {
        "gql" => ("gql", gql(q, stats)),
        "ri" => ("ri", ri(q, stats)),
        "cost" => ("cost", cost_greedy(q, stats)),
        _ => return explicit(q, stats, name),
    };
    let (score, order) = cheapest_variant(q, stats, leaves_last(q, stats, order), counting);
    let cost = stats.cost(q, &order);
    Some(OrderChoice::single(name, order, score, cost, None))
}

/// An order spelled out as `list:` and the pattern's node numbers (`list:3,0,2,1`): every node
/// once, each after the first adjacent to an earlier one; used as given (no variant, no leaves
/// moved). `None` for anything else.
fn explicit(q: &QueryGraph, stats: &OrderStats, spec: &str) -> Option<OrderChoice> {
    let nums = spec.strip_prefix("list:")?;
    let order: Vec<usize> = nums
        .split(',')
        .map(|n| n.trim().parse().ok())
        .collect::<Option<_>>()?;
    let mut placed = vec![false; q.len()];
    for (i, &u) in order.iter().enumerate() {
        if u >= q.len() || placed[u] || (i > 0 && !q.incident[u].iter().any(|n| placed[n.other])) {
            return None;
        }
        placed[u] = true;
    }
    if order.len() != q.len() {
        return None;
    }
    let cost = stats.cost(q, &order);
    Some(OrderChoice::single("given", order, cost, cost, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::gemp::space::query_graph::undirected as graph;

    fn adjacent(q: &QueryGraph, a: usize, b: usize) -> bool {
        q.incident[a].iter().any(|i| i.other == b)
    }

    /// Every node of `order` but the first has a neighbour before it.
    fn is_connected_order(q: &QueryGraph, order: &[usize]) -> bool {
        (1..order.len()).all(|j| order[..j].iter().any(|&p| adjacent(q, p, order[j])))
    }

    #[test]
    fn tail_start_is_the_first_depth_of_the_independent_tail() {
        // A square 0-1-2-3 with 4 on 1 and 3, 5 on 0 and 2.
        let q = graph(
            6,
            &[
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 0),
                (1, 4),
                (3, 4),
                (0, 5),
                (2, 5),
            ],
        );
        assert_eq!(tail_start(&q, &[0, 1, 2, 3, 4, 5]), 4);
        // 3 is adjacent to 4: the tail is 4 and 5 only; with 3 last, 3 alone (adjacent to 4).
        assert_eq!(tail_start(&q, &[0, 1, 2, 5, 4, 3]), 5);
        // A path 0-1-2: the last node alone.
        let path = graph(3, &[(0, 1), (1, 2)]);
        assert_eq!(tail_start(&path, &[0, 1, 2]), 2);
        // A star around 0: every leaf after the centre.
        let star = graph(4, &[(0, 1), (0, 2), (0, 3)]);
        assert_eq!(tail_start(&star, &[0, 1, 2, 3]), 1);
    }

    #[test]
    fn independent_tails_are_connected_orders_ending_in_independent_nodes() {
        let graphs = [
            graph(
                6,
                &[
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 0),
                    (1, 4),
                    (3, 4),
                    (0, 5),
                    (2, 5),
                ],
            ),
            // A path: taking an inner node would cut the rest.
            graph(5, &[(0, 1), (1, 2), (2, 3), (3, 4)]),
            // Two triangles sharing node 2, with a pendant on each far corner.
            graph(
                7,
                &[
                    (0, 1),
                    (1, 2),
                    (2, 0),
                    (2, 3),
                    (3, 4),
                    (4, 2),
                    (0, 5),
                    (4, 6),
                ],
            ),
        ];
        for q in &graphs {
            let k = q.incident.len();
            let stats = OrderStats {
                sizes: (0..k).map(|u| 10 + u).collect(),
                edges: vec![20; q.rels.len()],
                tables: &[],
                cands: &[],
                injective: true,
            };
            let order: Vec<usize> = (0..k).collect();
            assert!(is_connected_order(q, &order));
            for variant in independent_tails(q, &stats, &order) {
                let mut sorted = variant.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, order, "{variant:?} is a permutation");
                assert!(is_connected_order(q, &variant), "{variant:?} is connected");
                let s = tail_start(q, &variant);
                assert!(
                    k - s >= 2,
                    "{variant:?} ends in two or more independent nodes"
                );
                for a in s..k {
                    for b in a + 1..k {
                        assert!(!adjacent(q, variant[a], variant[b]));
                    }
                }
            }
        }
        // The square's variant moves 4 and 5 last (fewer candidates first).
        let q = &graphs[0];
        let stats = OrderStats {
            sizes: vec![1, 1, 1, 1, 9, 3],
            edges: vec![1; q.rels.len()],
            tables: &[],
            cands: &[],
            injective: true,
        };
        assert_eq!(
            independent_tails(q, &stats, &[0, 1, 2, 3, 4, 5]),
            vec![vec![0, 1, 2, 3, 5, 4]]
        );
        // A path has none: only its last end can go without cutting the rest.
        let path = &graphs[1];
        let stats = OrderStats {
            sizes: vec![1; 5],
            edges: vec![1; 4],
            tables: &[],
            cands: &[],
            injective: true,
        };
        assert!(independent_tails(path, &stats, &[0, 1, 2, 3, 4]).is_empty());
    }

    #[test]
    fn an_order_spelled_out_is_taken_as_given_only_when_it_is_a_connected_permutation() {
        let q = graph(4, &[(0, 1), (1, 2), (2, 3)]);
        let stats = OrderStats {
            sizes: vec![2; 4],
            edges: vec![2; 3],
            tables: &[],
            cands: &[],
            injective: true,
        };
        let given = named(&q, &stats, "list:1,0,2,3", false).expect("a connected order");
        assert_eq!(given.order, vec![1, 0, 2, 3]);
        assert_eq!(given.name, "given");
        for bad in [
            "list:0,2,1,3", // 2 has no earlier neighbour
            "list:0,1,2",   // 3 missing
            "list:0,1,1,2", // 1 twice
            "list:0,1,2,4", // no node 4
            "list:0,x,2,3",
            "0,1,2,3",
            "nope",
        ] {
            assert!(named(&q, &stats, bad, false).is_none(), "{bad}");
        }
    }
}
