//! The undirected, valued view of a shared-model graph that TruST works on.

use crate::error::{Error, Result};
use crate::model::{Model, ValueRef};

/// The property read as each node's value when the caller names none.
pub const DEFAULT_VALUE_PROPERTY: &str = "value";

/// Marker for "no data node" in a mapping (an unmatched template node).
pub const NONE: u32 = u32::MAX;

/// A simple undirected graph with one string value per node, in CSR form.
///
/// Built from a [`Model`] by [`TrustGraph::from_model`]: edge directions, relationship types,
/// self-loops and parallel edges are dropped (TruST compares topologies, not edge kinds), so the
/// neighbour list of a node is the sorted, duplicate-free union of its out- and in-neighbours.
/// Values are kept as Unicode code points so that string lengths and edit distances count
/// characters, not bytes (the same on the host and on the device).
#[derive(Debug, Clone)]
pub struct TrustGraph {
    chars: Vec<u32>,
    char_offsets: Vec<u32>,
    offsets: Vec<u32>,
    neighbors: Vec<u32>,
    names: Vec<String>,
}

/// How the node values of a graph were obtained (see [`TrustGraph::from_model`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValueSources {
    /// Nodes whose value is the named property, a string.
    pub strings: usize,
    /// Nodes whose value is the named property's non-string value, written as text.
    pub converted: usize,
    /// Nodes without the property: their key (or decimal id when they have none) stands in.
    pub fallback: usize,
}

impl TrustGraph {
    /// Builds the graph from `model`, reading each node's value from property `value_property`:
    /// a string is taken as is; an integer, float or boolean is written as text; a node without
    /// the property gets its key (its decimal id when it has no key). The returned
    /// [`ValueSources`] counts which rule applied how often, so callers can warn about a
    /// misspelt property name.
    pub fn from_model(model: &Model, value_property: &str) -> Result<(TrustGraph, ValueSources)> {
        let n = model.node_count();
        check_size(n)?;
        let mut sources = ValueSources::default();
        let mut values = Vec::with_capacity(n);
        let mut names = Vec::with_capacity(n);
        for v in 0..n as u32 {
            let name = model
                .node_key(v)
                .map_or_else(|| v.to_string(), str::to_string);
            let value = match model.node_property(v, value_property) {
                ValueRef::Str(s) => {
                    sources.strings += 1;
                    s.to_string()
                }
                ValueRef::Null => {
                    sources.fallback += 1;
                    name.clone()
                }
                other => {
                    sources.converted += 1;
                    other.to_string()
                }
            };
            values.push(value);
            names.push(name);
        }
        let mut edges = Vec::with_capacity(model.edge_count());
        let out = model.out();
        for v in 0..n as u32 {
            for &w in out.neighbors_of(v) {
                edges.push((v, w));
            }
        }
        let graph = TrustGraph::build(values, names, &edges)?;
        Ok((graph, sources))
    }

    /// A graph from node values and undirected edges `(a, b)` between node indices; nodes are
    /// named by their index. Self-loops and repeated edges are dropped; an endpoint out of range
    /// is an error.
    pub fn from_parts<S: AsRef<str>>(values: &[S], edges: &[(u32, u32)]) -> Result<TrustGraph> {
        check_size(values.len())?;
        let values: Vec<String> = values.iter().map(|s| s.as_ref().to_string()).collect();
        let names = (0..values.len()).map(|i| i.to_string()).collect();
        TrustGraph::build(values, names, edges)
    }

    fn build(values: Vec<String>, names: Vec<String>, edges: &[(u32, u32)]) -> Result<TrustGraph> {
        let n = values.len();
        let mut degree = vec![0u32; n + 1];
        for &(a, b) in edges {
            if a as usize >= n || b as usize >= n {
                return Err(Error::InvalidArgument(format!(
                    "edge ({a}, {b}) names a node outside 0..{n}"
                )));
            }
            if a != b {
                degree[a as usize] += 1;
                degree[b as usize] += 1;
            }
        }
        let mut offsets = vec![0u32; n + 1];
        for v in 0..n {
            offsets[v + 1] = offsets[v] + degree[v];
        }
        let mut fill: Vec<u32> = offsets[..n].to_vec();
        let mut raw = vec![0u32; offsets[n] as usize];
        for &(a, b) in edges {
            if a != b {
                raw[fill[a as usize] as usize] = b;
                fill[a as usize] += 1;
                raw[fill[b as usize] as usize] = a;
                fill[b as usize] += 1;
            }
        }
        // Sort and deduplicate every list, compacting in place.
        let mut neighbors = Vec::with_capacity(raw.len());
        let mut new_offsets = vec![0u32; n + 1];
        for v in 0..n {
            let list = &mut raw[offsets[v] as usize..offsets[v + 1] as usize];
            list.sort_unstable();
            let start = neighbors.len();
            for &w in list.iter() {
                if neighbors.len() == start || *neighbors.last().unwrap_or(&NONE) != w {
                    neighbors.push(w);
                }
            }
            new_offsets[v + 1] = neighbors.len() as u32;
        }
        let mut chars = Vec::new();
        let mut char_offsets = Vec::with_capacity(n + 1);
        char_offsets.push(0u32);
        for s in &values {
            chars.extend(s.chars().map(u32::from));
            let end = u32::try_from(chars.len()).map_err(|_| {
                Error::InvalidArgument("node values longer than 2^32 characters in total".into())
            })?;
            char_offsets.push(end);
        }
        Ok(TrustGraph {
            chars,
            char_offsets,
            offsets: new_offsets,
            neighbors,
            names,
        })
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.names.len()
    }

    /// Number of undirected edges (after dropping self-loops and repeats).
    pub fn edge_count(&self) -> usize {
        self.neighbors.len() / 2
    }

    /// The sorted, duplicate-free neighbours of `v`.
    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.neighbors[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// Number of neighbours of `v`.
    pub fn degree(&self, v: u32) -> usize {
        (self.offsets[v as usize + 1] - self.offsets[v as usize]) as usize
    }

    /// The largest degree (0 for a graph without edges).
    pub fn max_degree(&self) -> usize {
        (0..self.node_count() as u32)
            .map(|v| self.degree(v))
            .max()
            .unwrap_or(0)
    }

    /// Whether `a` and `b` are adjacent (binary search in the shorter list).
    pub fn adjacent(&self, a: u32, b: u32) -> bool {
        let (x, y) = if self.degree(a) <= self.degree(b) {
            (a, b)
        } else {
            (b, a)
        };
        self.neighbors(x).binary_search(&y).is_ok()
    }

    /// The value of `v` as code points.
    pub fn value_chars(&self, v: u32) -> &[u32] {
        &self.chars
            [self.char_offsets[v as usize] as usize..self.char_offsets[v as usize + 1] as usize]
    }

    /// The value of `v` as a string.
    pub fn value(&self, v: u32) -> String {
        self.value_chars(v)
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }

    /// The name of `v`: its key in the model (its index for [`TrustGraph::from_parts`]).
    pub fn name(&self, v: u32) -> &str {
        &self.names[v as usize]
    }

    /// The longest value, in characters.
    pub fn max_value_len(&self) -> usize {
        self.char_offsets
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }

    /// Whether every node can reach every other (true for the empty graph).
    pub fn is_connected(&self) -> bool {
        let n = self.node_count();
        if n == 0 {
            return true;
        }
        let mut seen = vec![false; n];
        let mut stack = vec![0u32];
        seen[0] = true;
        let mut count = 1;
        while let Some(v) = stack.pop() {
            for &w in self.neighbors(v) {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    count += 1;
                    stack.push(w);
                }
            }
        }
        count == n
    }

    /// The raw CSR arrays (offsets, neighbours) for the device.
    pub fn csr(&self) -> (&[u32], &[u32]) {
        (&self.offsets, &self.neighbors)
    }

    /// The raw value arrays (offsets into code points, code points) for the device.
    pub fn value_arrays(&self) -> (&[u32], &[u32]) {
        (&self.char_offsets, &self.chars)
    }
}

fn check_size(n: usize) -> Result<()> {
    if n >= NONE as usize {
        return Err(Error::InvalidArgument(format!(
            "a TruST graph holds fewer than {NONE} nodes, got {n}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undirected_deduplicated_neighbours() {
        let g =
            TrustGraph::from_parts(&["a", "b", "c"], &[(0, 1), (1, 0), (1, 1), (2, 1)]).unwrap();
        assert_eq!(g.neighbors(0), &[1]);
        assert_eq!(g.neighbors(1), &[0, 2]);
        assert_eq!(g.neighbors(2), &[1]);
        assert_eq!(g.edge_count(), 2);
        assert!(g.adjacent(2, 1) && !g.adjacent(0, 2));
        assert!(g.is_connected());
        assert!(TrustGraph::from_parts(&["a"], &[(0, 3)]).is_err());
    }

    #[test]
    fn values_are_code_points() {
        let g = TrustGraph::from_parts(&["héllo", ""], &[]).unwrap();
        assert_eq!(g.value_chars(0).len(), 5);
        assert_eq!(g.value(0), "héllo");
        assert_eq!(g.max_value_len(), 5);
        assert!(!g.is_connected());
    }
}
