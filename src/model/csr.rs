//! Flattened compressed-sparse-row adjacency (GEMP §5, Fig. 3): one offsets array and parallel
//! neighbour / edge-type / edge-id arrays, because OpenCL 1.2 kernels take no 2D arrays.
//!
//! Invariant: each node's list `offsets[u]..offsets[u + 1]` is sorted by `(type, neighbour)`, so a
//! kernel or the host can binary-search "is there an edge of type T from u to v" and iterate the
//! neighbours of one type contiguously.

use super::slab::Slab;

/// One direction of adjacency (outgoing or incoming).
#[derive(Debug, Default, Clone)]
pub struct Adjacency {
    /// `node_count + 1` offsets into the arrays below.
    pub offsets: Slab<u32>,
    /// Neighbour node ids.
    pub neighbors: Slab<u32>,
    /// Relationship type id of each entry.
    pub types: Slab<u32>,
    /// Edge id of each entry. Empty for the outgoing direction, where the edge id *is* the position.
    pub edge_ids: Slab<u32>,
}

/// Any relationship type (used by [`Adjacency::range_of_type`] callers that accept every type).
pub const ANY_TYPE: u32 = u32::MAX;

impl Adjacency {
    /// The position range of `node`'s list (empty when out of range).
    #[inline]
    pub fn range(&self, node: u32) -> std::ops::Range<usize> {
        let n = node as usize;
        match (self.offsets.get(n), self.offsets.get(n + 1)) {
            (Some(&s), Some(&e)) => s as usize..e as usize,
            _ => 0..0,
        }
    }

    /// Degree of `node` in this direction.
    #[inline]
    pub fn degree(&self, node: u32) -> usize {
        self.range(node).len()
    }

    /// The neighbours of `node`, sorted by (type, id).
    #[inline]
    pub fn neighbors_of(&self, node: u32) -> &[u32] {
        &self.neighbors[self.range(node)]
    }

    /// The sub-range of `node`'s list holding edges of type `ty` (binary search).
    pub fn range_of_type(&self, node: u32, ty: u32) -> std::ops::Range<usize> {
        let r = self.range(node);
        if ty == ANY_TYPE {
            return r;
        }
        let types = &self.types[r.clone()];
        let lo = types.partition_point(|&t| t < ty);
        let hi = types.partition_point(|&t| t <= ty);
        r.start + lo..r.start + hi
    }

    /// Pushes the sub-ranges of `node`'s list, each sorted by neighbour id, that hold edges of type
    /// `ty`: one range, or one per type present when `ty` is `ANY_TYPE`.
    pub fn type_runs(&self, node: u32, ty: u32, out: &mut Vec<std::ops::Range<usize>>) {
        if ty != ANY_TYPE {
            let r = self.range_of_type(node, ty);
            if !r.is_empty() {
                out.push(r);
            }
            return;
        }
        let r = self.range(node);
        let types = &self.types[r.clone()];
        let mut i = 0;
        while i < types.len() {
            let t = types[i];
            let run = types[i..].partition_point(|&x| x == t);
            out.push(r.start + i..r.start + i + run);
            i += run;
        }
    }

    /// The neighbours of `node` over edges of type `ty`, sorted by id.
    pub fn neighbors_of_type(&self, node: u32, ty: u32) -> &[u32] {
        &self.neighbors[self.range_of_type(node, ty)]
    }

    /// Number of entries `node -> other` of type `ty` (`ANY_TYPE` = any). Counts parallel edges.
    pub fn count_edges(&self, node: u32, other: u32, ty: u32) -> usize {
        if ty == ANY_TYPE {
            let r = self.range(node);
            let types = &self.types[r.clone()];
            let nbrs = &self.neighbors[r];
            // Lists are sorted per type: search each type run.
            let mut count = 0;
            let mut i = 0;
            while i < types.len() {
                let t = types[i];
                let run = types[i..].partition_point(|&x| x == t);
                let seg = &nbrs[i..i + run];
                let lo = seg.partition_point(|&v| v < other);
                let hi = seg.partition_point(|&v| v <= other);
                count += hi - lo;
                i += run;
            }
            return count;
        }
        let seg = self.neighbors_of_type(node, ty);
        let lo = seg.partition_point(|&v| v < other);
        let hi = seg.partition_point(|&v| v <= other);
        hi - lo
    }

    /// True when there is at least one entry `node -> other` of type `ty` (`ANY_TYPE` = any).
    pub fn has_edge(&self, node: u32, other: u32, ty: u32) -> bool {
        self.count_edges(node, other, ty) > 0
    }

    /// The edge id stored at list position `pos`.
    #[inline]
    pub fn edge_id_at(&self, pos: usize) -> u32 {
        if self.edge_ids.is_empty() {
            pos as u32
        } else {
            self.edge_ids[pos]
        }
    }

    /// Total number of entries.
    pub fn len(&self) -> usize {
        self.neighbors.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.neighbors.is_empty()
    }
}
