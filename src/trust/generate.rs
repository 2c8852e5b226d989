//! Random TruST inputs like the paper's experiments: a data graph and a template graph whose nodes
//! carry random lowercase strings (property `value`), optionally with a noisy copy of the template
//! planted in the data graph so that accuracy can be measured.
//!
//! - Both graphs are simple and undirected in spirit (one `LINK` edge per pair). A graph with at
//!   least `nodes − 1` edges is connected: a random spanning tree comes first (node `i` attaches
//!   to a random earlier node), then random distinct pairs up to the edge count.
//! - Planting picks `|V_T|` distinct data nodes, gives each the template node's value with noise
//!   (each character is, with probability `noise`, substituted, deleted or followed by an
//!   inserted character — one of the three at random) and adds the template's edges between them
//!   (before the random edges, so the edge count still holds unless the template alone has more). Template edges are never removed:
//!   the search requires them (see [`super::search`]).
//! - Node keys are `t0…` (template) and `d0…` (data), the label is `Node`.

use hashbrown::{HashMap, HashSet};

use super::graph::TrustGraph;
use crate::error::{Error, Result};
use crate::generate::rng::{Rng, SplitMix64};
use crate::model::{Model, ModelBuilder, ValueRef};

/// The paper's 16 size combinations: data (nodes, edges) × template (nodes, edges).
pub const PAPER_DATA_SIZES: [(usize, usize); 4] =
    [(40, 80), (400, 1000), (4000, 15000), (10000, 40000)];
/// The paper's template sizes (nodes, edges).
pub const PAPER_TEMPLATE_SIZES: [(usize, usize); 4] = [(3, 3), (4, 6), (6, 10), (7, 20)];

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrustGenConfig {
    /// Data graph nodes.
    pub data_nodes: usize,
    /// Data graph edges.
    pub data_edges: usize,
    /// Template nodes.
    pub template_nodes: usize,
    /// Template edges (at least `template_nodes − 1`: templates are connected).
    pub template_edges: usize,
    /// Plant a noisy copy of the template in the data graph.
    pub plant: bool,
    /// Per-character edit probability of the planted values, in `[0, 1]`.
    pub noise: f64,
    /// Shortest and longest random value, in characters.
    pub value_len: (usize, usize),
    /// Random seed (same seed, same graphs).
    pub seed: u64,
}

impl Default for TrustGenConfig {
    fn default() -> Self {
        TrustGenConfig {
            data_nodes: 400,
            data_edges: 1000,
            template_nodes: 4,
            template_edges: 6,
            plant: true,
            noise: 0.1,
            value_len: (5, 10),
            seed: 1,
        }
    }
}

/// A generated instance.
#[derive(Debug)]
pub struct TrustInstance {
    /// The template graph.
    pub template: Model,
    /// The data graph.
    pub data: Model,
    /// For a planted template: the key of the data node standing for each template node, in
    /// template key order (`t0`, `t1`, …).
    pub planted: Option<Vec<String>>,
}

impl TrustInstance {
    /// The planted mapping expressed on `TrustGraph`s built from this instance's models:
    /// template node id → data node id. `None` without a plant or when a key is missing.
    pub fn planted_mapping(&self, template: &TrustGraph, data: &TrustGraph) -> Option<Vec<u32>> {
        let planted = self.planted.as_ref()?;
        let by_name: HashMap<&str, u32> = (0..data.node_count() as u32)
            .map(|v| (data.name(v), v))
            .collect();
        (0..template.node_count() as u32)
            .map(|t| {
                let index: usize = template.name(t).strip_prefix('t')?.parse().ok()?;
                by_name.get(planted.get(index)?.as_str()).copied()
            })
            .collect()
    }
}

/// Generates a template, a data graph and (optionally) a planted noisy copy.
pub fn generate(config: &TrustGenConfig) -> Result<TrustInstance> {
    let (lo, hi) = config.value_len;
    if lo > hi || hi == 0 {
        return Err(Error::InvalidArgument(format!(
            "value lengths {lo}..={hi} are empty"
        )));
    }
    if !(0.0..=1.0).contains(&config.noise) {
        return Err(Error::InvalidArgument(format!(
            "noise {} is not in [0, 1]",
            config.noise
        )));
    }
    let (tn, te) = (config.template_nodes, config.template_edges);
    if tn == 0 || te + 1 < tn || te > max_edges(tn) {
        return Err(Error::InvalidArgument(format!(
            "a connected template of {tn} nodes has between {} and {} edges, not {te}",
            tn.saturating_sub(1),
            max_edges(tn)
        )));
    }
    let (dn, de) = (config.data_nodes, config.data_edges);
    if de > max_edges(dn) {
        return Err(Error::InvalidArgument(format!(
            "a simple graph of {dn} nodes has at most {} edges, not {de}",
            max_edges(dn)
        )));
    }
    if config.plant && tn > dn {
        return Err(Error::InvalidArgument(format!(
            "cannot plant a {tn}-node template in a {dn}-node data graph"
        )));
    }
    let mut rng = SplitMix64::new(config.seed);
    let t_values: Vec<String> = (0..tn).map(|_| random_word(&mut rng, lo, hi)).collect();
    let t_edges = random_edges(&mut rng, tn, te, &[]);
    let mut d_values: Vec<String> = (0..dn).map(|_| random_word(&mut rng, lo, hi)).collect();
    let mut planted = None;
    let mut forced = Vec::new();
    if config.plant {
        let mut chosen: Vec<u32> = Vec::with_capacity(tn);
        let mut taken = HashSet::new();
        while chosen.len() < tn {
            let v = rng.below(dn as u64) as u32;
            if taken.insert(v) {
                chosen.push(v);
            }
        }
        for (i, &v) in chosen.iter().enumerate() {
            d_values[v as usize] = noisy(&mut rng, &t_values[i], config.noise);
        }
        forced = t_edges
            .iter()
            .map(|&(a, b)| (chosen[a as usize], chosen[b as usize]))
            .collect();
        planted = Some(chosen.iter().map(|v| format!("d{v}")).collect());
    }
    let d_edges = random_edges(&mut rng, dn, de, &forced);
    Ok(TrustInstance {
        template: build_model("t", &t_values, &t_edges)?,
        data: build_model("d", &d_values, &d_edges)?,
        planted,
    })
}

fn max_edges(n: usize) -> usize {
    n * n.saturating_sub(1) / 2
}

/// A random lowercase word of `lo..=hi` letters.
pub fn random_word(rng: &mut impl Rng, lo: usize, hi: usize) -> String {
    let len = rng.range(lo as u64, hi as u64) as usize;
    (0..len)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect()
}

/// `word` with each character edited with probability `noise` (substitution, deletion or an
/// insertion after it).
pub fn noisy(rng: &mut impl Rng, word: &str, noise: f64) -> String {
    let mut out = String::with_capacity(word.len() + 4);
    for c in word.chars() {
        if !rng.bernoulli(noise) {
            out.push(c);
            continue;
        }
        match rng.below(3) {
            0 => out.push((b'a' + rng.below(26) as u8) as char),
            1 => {}
            _ => {
                out.push(c);
                out.push((b'a' + rng.below(26) as u8) as char);
            }
        }
    }
    out
}

/// `m` distinct undirected edges over `n` nodes: `forced` first, then (when `m ≥ n − 1`) a random
/// spanning tree, then random pairs.
fn random_edges(rng: &mut impl Rng, n: usize, m: usize, forced: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut set: HashSet<(u32, u32)> = HashSet::with_capacity(m);
    let mut edges = Vec::with_capacity(m);
    let mut add = |a: u32, b: u32, edges: &mut Vec<(u32, u32)>| {
        let key = (a.min(b), a.max(b));
        if a != b && set.insert(key) {
            edges.push(key);
        }
    };
    for &(a, b) in forced {
        add(a, b, &mut edges);
    }
    if m + 1 >= n {
        for v in 1..n as u32 {
            if edges.len() >= m {
                break;
            }
            let parent = rng.below(u64::from(v)) as u32;
            add(v, parent, &mut edges);
        }
    }
    while edges.len() < m {
        let a = rng.below(n as u64) as u32;
        let b = rng.below(n as u64) as u32;
        add(a, b, &mut edges);
    }
    edges
}

fn build_model(prefix: &str, values: &[String], edges: &[(u32, u32)]) -> Result<Model> {
    let mut b = ModelBuilder::new();
    let key = b.node_property("value");
    let link = b.rel_type("LINK");
    let ids: Vec<u32> = (0..values.len())
        .map(|i| b.add_node(&format!("{prefix}{i}"), &["Node"]))
        .collect();
    for (i, v) in values.iter().enumerate() {
        b.set_node_property(ids[i], key, ValueRef::Str(v))?;
    }
    for &(a, c) in edges {
        b.add_edge(ids[a as usize], ids[c as usize], link)?;
    }
    b.freeze()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_connectivity_and_plant() {
        let config = TrustGenConfig {
            data_nodes: 60,
            data_edges: 120,
            template_nodes: 5,
            template_edges: 7,
            ..Default::default()
        };
        let inst = generate(&config).unwrap();
        let (t, _) = TrustGraph::from_model(&inst.template, "value").unwrap();
        let (d, src) = TrustGraph::from_model(&inst.data, "value").unwrap();
        assert_eq!((t.node_count(), t.edge_count()), (5, 7));
        assert_eq!((d.node_count(), d.edge_count()), (60, 120));
        assert!(t.is_connected() && d.is_connected());
        assert_eq!(src.strings, 60);
        let planted = inst.planted_mapping(&t, &d).unwrap();
        for a in 0..5u32 {
            for &b in t.neighbors(a) {
                assert!(d.adjacent(planted[a as usize], planted[b as usize]));
            }
        }
        // Same seed, same graphs.
        let again = generate(&config).unwrap();
        assert_eq!(again.planted, inst.planted);
        assert!(generate(&TrustGenConfig {
            template_edges: 11,
            ..config
        })
        .is_err());
        assert!(generate(&TrustGenConfig {
            template_edges: 3,
            ..config
        })
        .is_err());
    }

    #[test]
    fn noise_zero_copies_and_one_changes() {
        let mut rng = SplitMix64::new(3);
        assert_eq!(noisy(&mut rng, "abcdef", 0.0), "abcdef");
        let changed = (0..20)
            .filter(|_| noisy(&mut rng, "abcdefgh", 1.0) != "abcdefgh")
            .count();
        assert!(changed >= 19);
    }
}
