//! R-MAT / Graph500 Kronecker graphs: `2^scale` nodes and `edge_factor · 2^scale` generated
//! edges, each edge placed by descending `scale` levels of a 2×2 probability matrix
//! (`a`, `b`, `c`, `d = 1 − a − b − c`; Graph500's 0.57, 0.19, 0.19, 0.05), node ids then
//! scrambled by a seed-dependent bijection so that hubs are spread over the id space (as
//! Graph500's generator does). Labelled for subgraph queries: node `v` gets label `L{i}`, `i`
//! uniform in `0..labels` from a per-node stream; every edge has type `E`.
//!
//! **Policy** (the graph is a simple undirected graph stored once per edge): self-loops are
//! dropped; a pair generated several times, in either orientation, is kept once; each kept pair
//! is stored as one directed edge from the lower node key to the higher (keys are the generated
//! ids `0`…`2^scale − 1`; the model numbers nodes by label, so its ids differ). So the model has at most
//! `edge_factor · 2^scale` edges (Graph500's skew makes duplicates common: about 10–25% of the
//! generated edges at scales 20–26); undirected patterns (`(a)--(b)`) count each triangle or
//! clique of the simple graph once per automorphism, as on any undirected graph.
//!
//! **Determinism and speed**: edges are generated in fixed chunks of [`CHUNK`] edges, chunk `i`
//! from its own stream `(seed, i)`, on all cores; duplicates are removed by a parallel sort of
//! 64-bit pair keys. The output depends on the seed and parameters only, never on the number of
//! threads. Memory at 10⁸ edges: the pair keys (8 bytes per edge) and the builder's edge lists
//! (12 bytes per edge), then the frozen model.

use rayon::prelude::*;

use super::rng::{mix64, Rng, SplitMix64};
use crate::error::{Error, Result};
use crate::model::{Model, ModelBuilder};

/// Edges per generation chunk (each chunk its own random stream).
pub const CHUNK: u64 = 1 << 16;

/// Largest scale: node ids fit in the model's 32-bit ids.
pub const MAX_SCALE: u32 = 31;

/// Stream tag of the edge chunks.
const EDGE_STREAM: u64 = 0x524d_4154; // "RMAT"
/// Stream tag of the node labels.
const LABEL_STREAM: u64 = 0x4c41_424c; // "LABL"

/// Parameters of an R-MAT graph.
#[derive(Debug, Clone)]
pub struct RmatConfig {
    /// `log2` of the node count.
    pub scale: u32,
    /// Generated edges per node (before self-loops and duplicates are dropped).
    pub edge_factor: u32,
    /// Labels `L0`, `L1`, … assigned uniformly (at least 1).
    pub labels: u32,
    /// Seed.
    pub seed: u64,
    /// Probability of the top-left quadrant (Graph500: 0.57).
    pub a: f64,
    /// Top-right (Graph500: 0.19).
    pub b: f64,
    /// Bottom-left (Graph500: 0.19); the bottom-right gets `1 − a − b − c`.
    pub c: f64,
}

impl Default for RmatConfig {
    fn default() -> Self {
        RmatConfig {
            scale: 16,
            edge_factor: 16,
            labels: 1,
            seed: 1,
            a: 0.57,
            b: 0.19,
            c: 0.19,
        }
    }
}

impl RmatConfig {
    fn check(&self) -> Result<()> {
        if self.scale > MAX_SCALE {
            return Err(Error::InvalidArgument(format!(
                "rmat scale {} is above {MAX_SCALE} (node ids are 32-bit)",
                self.scale
            )));
        }
        if self.labels == 0 {
            return Err(Error::InvalidArgument("rmat needs at least 1 label".into()));
        }
        let d = 1.0 - self.a - self.b - self.c;
        if [self.a, self.b, self.c]
            .iter()
            .any(|p| !(0.0..=1.0).contains(p))
            || d < -1e-9
        {
            return Err(Error::InvalidArgument(format!(
                "rmat probabilities a={}, b={}, c={} must be in [0, 1] with a + b + c <= 1",
                self.a, self.b, self.c
            )));
        }
        let generated = self.generated_edges();
        if generated > crate::model::MAX_ELEMENTS as u64 {
            return Err(Error::InvalidArgument(format!(
                "rmat would generate {generated} edges, more than the model's {} limit",
                crate::model::MAX_ELEMENTS
            )));
        }
        Ok(())
    }

    /// Edges generated before self-loops and duplicates are dropped: `edge_factor · 2^scale`.
    pub fn generated_edges(&self) -> u64 {
        (self.edge_factor as u64) << self.scale
    }
}

/// The seed-dependent bijection of `0..2^scale` that scrambles node ids (xor, multiply by an odd
/// constant, xor again, modulo `2^scale`: each step is a bijection).
fn scramble(x: u64, scale: u32, k1: u64, k2: u64) -> u64 {
    let mask = if scale == 64 {
        u64::MAX
    } else {
        (1u64 << scale) - 1
    };
    let y = ((x ^ k1).wrapping_mul(0x9E37_79B9_7F4A_7C15 | 1)) & mask;
    ((y ^ k2).wrapping_mul(0xBF58_476D_1CE4_E5B9 | 1)) & mask
}

/// The generated pairs `(u, v)` with `u < v` after scrambling, self-loops dropped and
/// duplicates kept once, sorted (the edges [`generate_rmat`] stores).
pub fn rmat_pairs(c: &RmatConfig) -> Result<Vec<(u32, u32)>> {
    c.check()?;
    let total = c.generated_edges();
    let chunks = total.div_ceil(CHUNK);
    let (k1, k2) = (mix64(c.seed ^ 0x5eed), mix64(c.seed.wrapping_add(0x5eed)));
    let (ab, abc) = (c.a + c.b, c.a + c.b + c.c);
    let mut keys: Vec<u64> = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|chunk| {
            let mut rng = SplitMix64::for_stream(c.seed, EDGE_STREAM, chunk);
            let n = CHUNK.min(total - chunk * CHUNK);
            (0..n).filter_map(move |_| {
                let (mut u, mut v) = (0u64, 0u64);
                for _ in 0..c.scale {
                    let r = rng.next_f64();
                    let (bu, bv) = if r < c.a {
                        (0, 0)
                    } else if r < ab {
                        (0, 1)
                    } else if r < abc {
                        (1, 0)
                    } else {
                        (1, 1)
                    };
                    u = (u << 1) | bu;
                    v = (v << 1) | bv;
                }
                let (u, v) = (scramble(u, c.scale, k1, k2), scramble(v, c.scale, k1, k2));
                (u != v).then(|| (u.min(v) << 32) | u.max(v))
            })
        })
        .collect();
    keys.par_sort_unstable();
    keys.dedup();
    Ok(keys
        .into_iter()
        .map(|k| ((k >> 32) as u32, k as u32))
        .collect())
}

/// The label index of node `v` (uniform in `0..labels`, from the node's own stream).
pub fn rmat_label(c: &RmatConfig, v: u32) -> u32 {
    SplitMix64::for_stream(c.seed, LABEL_STREAM, v as u64).below(c.labels as u64) as u32
}

/// Builds the R-MAT graph as a [`Model`] (nodes keyed by their id, `0`…`2^scale − 1`).
///
/// Errors: a scale above [`MAX_SCALE`], no label, probabilities outside `[0, 1]` or summing above
/// 1, more generated edges than the model holds.
pub fn generate_rmat(c: &RmatConfig) -> Result<Model> {
    let pairs = rmat_pairs(c)?;
    let n = 1u64 << c.scale;
    let mut b = ModelBuilder::new();
    let labels: Vec<u32> = (0..c.labels).map(|i| b.label(&format!("L{i}"))).collect();
    let ty = b.rel_type("E");
    let node_labels: Vec<u32> = (0..n as u32)
        .into_par_iter()
        .map(|v| rmat_label(c, v))
        .collect();
    let mut key = String::new();
    for (v, &l) in node_labels.iter().enumerate() {
        key.clear();
        key.push_str(&v.to_string());
        let id = b.push_unique_node(&key);
        b.add_label(id, labels[l as usize]);
    }
    drop(node_labels);
    for (u, v) in pairs {
        b.add_edge(u, v, ty)?;
    }
    b.freeze()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scramble_is_a_bijection() {
        for scale in [0, 1, 3, 8] {
            let mut seen: Vec<u64> = (0..1u64 << scale)
                .map(|x| scramble(x, scale, 7, 99))
                .collect();
            seen.sort_unstable();
            assert_eq!(
                seen,
                (0..1u64 << scale).collect::<Vec<_>>(),
                "scale {scale}"
            );
        }
    }
}
