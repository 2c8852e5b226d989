//! Sampled estimates of an order's partial matches, and a greedy order built on them.
//!
//! The cost model of [`super::order`] multiplies independent selectivities for the relationships
//! outside a prefix's spanning tree. On dense queries over correlated data (the yeast sets' 24- and
//! 32-node queries) those relationships are far from independent, and the estimates of different
//! orders can be off by different factors of ten: the order that looks cheapest can search ten
//! times longer than another.
//!
//! This module measures instead of multiplying. A population of [`PARTICLES`] partial matches walks
//! down an order over the candidate space (sequential importance resampling, a particle form of
//! Knuth's estimator of a backtracking tree): at each node, each particle's local candidates are
//! computed exactly as the search computes them (the intersection of its bound neighbours'
//! candidate-edge rows, less the nodes it has bound under isomorphism); the mean count times the
//! previous level's estimate estimates the next level's partial matches; then the population is
//! redrawn, particles chosen in proportion to their counts (systematic resampling: evenly spaced
//! draws from one random offset) and each extended by one of its local candidates at random. The
//! estimates are unbiased per level; correlation between relationships is in the sample, not
//! assumed away. They count the search tree without failing-set pruning, which can cut one
//! order's tree several times more than another's: close scores are a tie, not a ranking (the
//! count races such orders, [`super::Prepared::count`]).
//!
//! [`Sampler::greedy`] builds an order with the same walk, choosing at each step the connected
//! node whose binding gives the fewest estimated partial matches.
//!
//! Inputs: the query graph, candidate sets and candidate-edge tables of a [`super::Space`].
//! Output: per prefix of an order, estimated partial matches (`0.0` once the population dies: no
//! sampled partial match extends, and deeper levels are estimated empty). Deterministic: a fixed
//! seed, so an order chosen on these estimates is the same on every run.

use super::filter::Candidates;
use super::query_graph::QueryGraph;
use super::tables::{table_id, EdgeTable};
use crate::generate::rng::{Rng, SplitMix64};

/// Partial matches in the sampled population.
pub const PARTICLES: usize = 96;

/// The seed of every walk (orders must not depend on chance from run to run).
const SEED: u64 = 0x6765_6d70_5f73_616d;

/// Sampled estimates over one candidate space.
pub struct Sampler<'a> {
    q: &'a QueryGraph,
    cands: &'a [Candidates],
    tables: &'a [EdgeTable],
    injective: bool,
}

/// A population of partial matches: for each particle, per pattern node, the bound candidate's
/// position in that node's list (`u32::MAX` while unbound).
struct Population {
    k: usize,
    idx: Vec<u32>,
    /// Estimated partial matches of the prefix bound so far.
    estimate: f64,
}

impl Population {
    /// Particles alive: none once no sampled partial match extends.
    fn alive(&self) -> usize {
        self.idx.len() / self.k
    }

    fn particle(&self, i: usize) -> &[u32] {
        &self.idx[i * self.k..(i + 1) * self.k]
    }
}

impl<'a> Sampler<'a> {
    /// A sampler over a space (`injective`: node-isomorphism, else homomorphism).
    pub fn new(
        q: &'a QueryGraph,
        cands: &'a [Candidates],
        tables: &'a [EdgeTable],
        injective: bool,
    ) -> Self {
        Sampler {
            q,
            cands,
            tables,
            injective,
        }
    }

    /// The estimated partial matches after each prefix of `order` (connected).
    pub fn levels(&self, order: &[usize]) -> Vec<f64> {
        let mut rng = SplitMix64::new(SEED);
        let mut levels = Vec::with_capacity(order.len());
        let mut pop = self.start(order[0], &mut rng);
        let mut bound = vec![false; self.q.len()];
        bound[order[0]] = true;
        levels.push(pop.estimate);
        let mut out = Vec::new();
        for &u in &order[1..] {
            if pop.alive() > 0 {
                let counts = self.counts(&pop, u, &bound, &mut out);
                pop = self.advance(&pop, u, &bound, &counts, &mut rng, &mut out);
            }
            bound[u] = true;
            levels.push(if pop.alive() == 0 { 0.0 } else { pop.estimate });
        }
        levels
    }

    /// A connected order from `start`, each next node the connected one whose binding gives the
    /// fewest estimated partial matches (ties: more bound neighbours, then fewer candidates, then
    /// the lower node); once the population dies (no sampled partial match extends), the rest by
    /// those ties alone.
    pub fn greedy(&self, start: usize) -> Vec<usize> {
        let k = self.q.len();
        let mut rng = SplitMix64::new(SEED);
        let mut pop = self.start(start, &mut rng);
        let mut bound = vec![false; k];
        bound[start] = true;
        let mut order = vec![start];
        let mut out = Vec::new();
        while order.len() < k {
            let frontier: Vec<usize> = (0..k)
                .filter(|&v| !bound[v] && self.q.incident[v].iter().any(|i| bound[i.other]))
                .collect();
            let Some(&first) = frontier.first() else {
                // Not connected (the caller checks): take the rest as they come.
                order.extend((0..k).filter(|&v| !bound[v]));
                break;
            };
            let bound_neighbours =
                |v: usize| self.q.incident[v].iter().filter(|i| bound[i.other]).count();
            let key = |v: usize, grows: f64| {
                (
                    grows,
                    usize::MAX - bound_neighbours(v),
                    self.cands[v].len(),
                    v,
                )
            };
            let mut best = (key(first, f64::INFINITY), Vec::new());
            for &v in &frontier {
                let counts = if pop.alive() > 0 {
                    self.counts(&pop, v, &bound, &mut out)
                } else {
                    Vec::new()
                };
                let grows = counts.iter().map(|&c| c as f64).sum::<f64>();
                let kv = key(v, grows);
                if kv.partial_cmp(&best.0).is_some_and(|o| o.is_lt()) {
                    best = (kv, counts);
                }
            }
            let (v, counts) = (best.0 .3, best.1);
            if pop.alive() > 0 {
                pop = self.advance(&pop, v, &bound, &counts, &mut rng, &mut out);
            }
            bound[v] = true;
            order.push(v);
        }
        order
    }

    /// The first population: draws from the first node's candidates.
    fn start(&self, u: usize, rng: &mut SplitMix64) -> Population {
        let k = self.q.len();
        let n = self.cands[u].len();
        let mut pop = Population {
            k,
            idx: Vec::new(),
            estimate: n as f64,
        };
        if n == 0 {
            return pop;
        }
        // Stratified: evenly spaced over the candidates from one random offset.
        let p = PARTICLES;
        pop.idx = vec![u32::MAX; p * k];
        let offset = rng.below(n as u64) as usize;
        for i in 0..p {
            pop.idx[i * k + u] = ((i * n + offset) / p) as u32;
        }
        pop
    }

    /// Per particle, the number of `u`'s local candidates.
    fn counts(&self, pop: &Population, u: usize, bound: &[bool], out: &mut Vec<u32>) -> Vec<u32> {
        (0..pop.alive())
            .map(|i| {
                self.local(pop.particle(i), u, bound, out);
                out.len() as u32
            })
            .collect()
    }

    /// The next population: particles drawn in proportion to their counts for `u`, each
    /// extended by one of its local candidates.
    fn advance(
        &self,
        pop: &Population,
        u: usize,
        bound: &[bool],
        counts: &[u32],
        rng: &mut SplitMix64,
        out: &mut Vec<u32>,
    ) -> Population {
        let k = pop.k;
        let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
        let mut next = Population {
            k,
            idx: Vec::new(),
            estimate: pop.estimate * total as f64 / pop.alive() as f64,
        };
        if total == 0 {
            return next;
        }
        // Systematic resampling: one random offset, then evenly spaced draws (sorted, so one pass
        // over the cumulative counts places them all; less variance than independent draws).
        let n = PARTICLES as u64;
        let offset = rng.below(total);
        let draws = (0..n).map(|j| {
            ((u128::from(j) * u128::from(total) + u128::from(offset)) / u128::from(n)) as u64
        });
        next.idx.reserve(PARTICLES * k);
        let mut cumulative = 0u64;
        let mut i = 0;
        let mut current = usize::MAX;
        for r in draws {
            while cumulative + u64::from(counts[i]) <= r {
                cumulative += u64::from(counts[i]);
                i += 1;
            }
            if current != i {
                self.local(pop.particle(i), u, bound, out);
                current = i;
            }
            // The candidate at random: evenly spaced draws would pick the same position in the
            // lists of particles that are copies of one another.
            let pick = out[rng.below(out.len() as u64) as usize];
            let at = next.idx.len();
            next.idx.extend_from_slice(pop.particle(i));
            next.idx[at + u] = pick;
        }
        next
    }

    /// Sets `out` to the local candidates of `u` for one particle: the intersection of the
    /// rows of its bound neighbours, less (under isomorphism) the nodes it has bound.
    fn local(&self, particle: &[u32], u: usize, bound: &[bool], out: &mut Vec<u32>) {
        out.clear();
        let mut first = true;
        for inc in self.q.incident[u].iter().filter(|i| bound[i.other]) {
            let row = self.tables[table_id(inc.rel, !inc.forward)].row(particle[inc.other]);
            if first {
                out.extend_from_slice(row);
                first = false;
            } else {
                super::search::intersect_in_place(out, row);
            }
            if out.is_empty() {
                return;
            }
        }
        if self.injective {
            let c = &self.cands[u];
            for (w, &j) in particle.iter().enumerate() {
                if j == u32::MAX || !bound[w] {
                    continue;
                }
                let id = self.cands[w].nodes[j as usize];
                if let Some(at) = c.index_of(id) {
                    if let Ok(p) = out.binary_search(&at) {
                        out.remove(p);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::gemp::space::query_graph::undirected;

    /// A triangle query over a data graph whose candidate space is given by explicit tables:
    /// every node has candidates 0..n, and the edges of the data graph are `edges` (undirected).
    fn triangle_space(
        n: u32,
        edges: &[(u32, u32)],
    ) -> (QueryGraph, Vec<Candidates>, Vec<EdgeTable>) {
        let q = undirected(3, &[(0, 1), (1, 2), (2, 0)]);
        let cands = vec![Candidates::from_sorted((0..n).collect(), n as usize); 3];
        let mut adj = vec![Vec::new(); n as usize];
        for &(a, b) in edges {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        for row in &mut adj {
            row.sort_unstable();
            row.dedup();
        }
        let table = {
            let mut offsets = vec![0u32];
            let mut targets = Vec::new();
            for row in &adj {
                targets.extend_from_slice(row);
                offsets.push(targets.len() as u32);
            }
            EdgeTable { offsets, targets }
        };
        let tables = vec![table; 6];
        (q, cands, tables)
    }

    #[test]
    fn levels_of_a_clique_are_exact() {
        // K4: 4 first nodes, 3 neighbours each, 2 common neighbours of an edge: 4, 12, 24.
        let edges = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        let (q, cands, tables) = triangle_space(4, &edges);
        let s = Sampler::new(&q, &cands, &tables, true);
        assert_eq!(s.levels(&[0, 1, 2]), vec![4.0, 12.0, 24.0]);
        // Homomorphisms of the triangle's prefixes into K4 without loops are the same here.
        let s = Sampler::new(&q, &cands, &tables, false);
        assert_eq!(s.levels(&[0, 1, 2]), vec![4.0, 12.0, 24.0]);
    }

    #[test]
    fn a_population_that_dies_estimates_nothing_deeper() {
        // A path 0-1-2 has edges but no triangle.
        let (q, cands, tables) = triangle_space(3, &[(0, 1), (1, 2)]);
        let s = Sampler::new(&q, &cands, &tables, true);
        let levels = s.levels(&[0, 1, 2]);
        assert_eq!(levels[0], 3.0);
        assert!((levels[1] - 4.0).abs() < 1.5, "{levels:?}");
        assert_eq!(levels[2], 0.0);
    }

    #[test]
    fn the_greedy_order_is_connected_and_complete() {
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3)];
        let (q, cands, tables) = triangle_space(4, &edges);
        let s = Sampler::new(&q, &cands, &tables, true);
        for start in 0..3 {
            let order = s.greedy(start);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, vec![0, 1, 2]);
            assert_eq!(order[0], start);
        }
    }
}
