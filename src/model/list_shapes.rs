//! Shapes of a model's adjacency lists that let readers skip per-call checks: whether every
//! list holds each (type, neighbour) pair once, and whether the graph is stored symmetrically
//! (every node's in-list equal to its out-list, as the subgraph-matching data sets' undirected
//! edges are). Found once per model, in O(V + E), on first use.

use rayon::prelude::*;

use super::csr::Adjacency;
use super::validate::lists_distinct;

/// See the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListShapes {
    /// No out-list repeats a (type, neighbour) pair: each type's run of a node's out-list is
    /// strictly increasing (lists are sorted by type, then neighbour).
    pub out_distinct: bool,
    /// The same for the in-lists.
    pub in_distinct: bool,
    /// Every node's in-list equals its out-list, neighbours and types.
    pub symmetric: bool,
}

/// Nodes per parallel task (below this many nodes the lists are checked on the calling thread).
const CHUNK: usize = 1 << 14;

/// True when every node's in-list equals its out-list.
fn symmetric(out: &Adjacency, inc: &Adjacency, n: usize) -> bool {
    let check = |range: std::ops::Range<usize>| {
        range.into_iter().all(|v| {
            let (a, b) = (out.range(v as u32), inc.range(v as u32));
            out.neighbors[a.clone()] == inc.neighbors[b.clone()] && out.types[a] == inc.types[b]
        })
    };
    chunked(n, check)
}

/// `check` over `0..n` in chunks, on all cores when there are several.
fn chunked(n: usize, check: impl Fn(std::ops::Range<usize>) -> bool + Sync) -> bool {
    if n <= CHUNK {
        return check(0..n);
    }
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .all(|c| check(c * CHUNK..((c + 1) * CHUNK).min(n)))
}

impl ListShapes {
    /// The shapes of `out` and `inc` over `n` nodes; `distinct`: the out- and in-lists'
    /// distinctness when already known (validation finds it in its pass over the lists).
    pub(crate) fn of(
        out: &Adjacency,
        inc: &Adjacency,
        n: usize,
        distinct_known: Option<(bool, bool)>,
    ) -> Self {
        let (out_distinct, in_distinct) =
            distinct_known.unwrap_or_else(|| (lists_distinct(out, n), lists_distinct(inc, n)));
        ListShapes {
            out_distinct,
            in_distinct,
            symmetric: out.neighbors.len() == inc.neighbors.len() && symmetric(out, inc, n),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{ListShapes, ModelBuilder};

    fn shapes(edges: &[(u32, u32, &str)]) -> ListShapes {
        let mut b = ModelBuilder::new();
        for k in 0..4 {
            b.add_node(&k.to_string(), &["N"]);
        }
        for &(s, d, t) in edges {
            let t = b.rel_type(t);
            b.add_edge(s, d, t).unwrap();
        }
        b.freeze().unwrap().list_shapes()
    }

    /// Symmetric storage, parallel edges and types, each told apart.
    #[test]
    fn shapes_are_found() {
        let both = [(0, 1, "T"), (1, 0, "T"), (1, 2, "T"), (2, 1, "T")];
        let s = shapes(&both);
        assert!(s.symmetric && s.out_distinct && s.in_distinct);
        // One direction only: not symmetric (node 0's out-list is [1], its in-list empty).
        let s = shapes(&[(0, 1, "T"), (1, 2, "T")]);
        assert!(!s.symmetric && s.out_distinct && s.in_distinct);
        // A parallel edge of one type repeats the pair in both lists.
        let s = shapes(&[(0, 1, "T"), (0, 1, "T")]);
        assert!(!s.out_distinct && !s.in_distinct);
        // Parallel edges of two types do not.
        let s = shapes(&[(0, 1, "T"), (0, 1, "U")]);
        assert!(s.out_distinct && s.in_distinct);
        // Same neighbours both ways but different types: not symmetric.
        let s = shapes(&[(0, 1, "T"), (1, 0, "U")]);
        assert!(!s.symmetric);
    }
}
