//! The query as the candidate-space core sees it: vertices, relationships with their type sets and
//! directions, and each vertex's incident relationships; plus reading a data vertex's neighbours
//! along one pattern relationship (sorted, distinct).

use std::ops::Range;

use crate::model::{Model, ANY_TYPE};
use crate::pattern::ir::Pattern;

/// A pattern relationship (anonymous: an existence check between two distinct pattern nodes).
#[derive(Debug, Clone)]
pub struct QueryRel {
    /// Source pattern node (the first node as written when undirected).
    pub src: usize,
    /// Target pattern node.
    pub dst: usize,
    /// Allowed relationship types (`ANY_TYPE` alone = any type).
    pub types: Vec<u32>,
    /// Matches an edge in either direction.
    pub undirected: bool,
    /// True when the model has at most one relationship type and the relationship allows it:
    /// a node's whole list (per direction) is its run.
    pub whole_lists: bool,
}

/// One end's view of a relationship: the other end, the relationship, and whether this end is
/// its source (`forward`: walk `src → dst`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Incidence {
    /// The pattern node at the other end.
    pub other: usize,
    /// The relationship's index in [`QueryGraph::rels`].
    pub rel: usize,
    /// True when this end is the relationship's source.
    pub forward: bool,
}

/// The pattern as a labelled query graph.
#[derive(Debug, Clone)]
pub struct QueryGraph {
    /// Relationships.
    pub rels: Vec<QueryRel>,
    /// For each pattern node, its incident relationships.
    pub incident: Vec<Vec<Incidence>>,
}

impl QueryGraph {
    /// The query graph of `pattern` over `model` (no checks; see [`super::eligible`]).
    pub fn new(pattern: &Pattern, model: &Model) -> Self {
        let single_type = model.rel_types().len() <= 1;
        let k = pattern.nodes.len();
        let mut incident = vec![Vec::new(); k];
        let rels = pattern
            .rels
            .iter()
            .enumerate()
            .map(|(i, r)| {
                incident[r.src].push(Incidence {
                    other: r.dst,
                    rel: i,
                    forward: true,
                });
                incident[r.dst].push(Incidence {
                    other: r.src,
                    rel: i,
                    forward: false,
                });
                let mut types = r.types.clone();
                if types.is_empty() {
                    types.push(ANY_TYPE);
                }
                types.sort_unstable();
                types.dedup();
                let whole_lists = single_type && (types == [ANY_TYPE] || types.contains(&0));
                QueryRel {
                    src: r.src,
                    dst: r.dst,
                    types,
                    undirected: r.undirected,
                    whole_lists,
                }
            })
            .collect();
        QueryGraph { rels, incident }
    }

    /// Number of pattern nodes.
    pub fn len(&self) -> usize {
        self.incident.len()
    }

    /// True for a pattern without nodes.
    pub fn is_empty(&self) -> bool {
        self.incident.is_empty()
    }

    /// Distinct pattern nodes adjacent to `u`.
    pub fn neighbours(&self, u: usize) -> Vec<usize> {
        let mut n: Vec<usize> = self.incident[u].iter().map(|i| i.other).collect();
        n.sort_unstable();
        n.dedup();
        n
    }
}

/// Reusable buffers for [`neighbours`].
#[derive(Debug, Default)]
pub struct NeighbourScratch {
    runs: Vec<(bool, Range<usize>)>,
    merged: Vec<u32>,
    tmp: Vec<Range<usize>>,
}

/// The data neighbours of `x` along `rel` walked from its source end (`forward`) or its target
/// end: sorted and distinct (parallel edges and both directions of an undirected relationship
/// give one entry). Borrows the model's list when it is one sorted run.
pub fn neighbours<'a>(
    model: &'a Model,
    x: u32,
    rel: &QueryRel,
    forward: bool,
    scratch: &'a mut NeighbourScratch,
) -> &'a [u32] {
    let single = match rel.types[..] {
        _ if rel.whole_lists => Some(ANY_TYPE),
        [t] if t != ANY_TYPE => Some(t),
        _ => None,
    };
    if let Some(t) = single {
        // One type: one sorted run per direction (the whole list, or found by binary search).
        // The model's list shapes (found once) spare the per-call checks where they hold.
        let shapes = model.list_shapes();
        let out = model.out().range_of_type(x, t);
        if !rel.undirected {
            let (adj, r, distinct) = if forward {
                (model.out(), out, shapes.out_distinct)
            } else {
                (
                    model.inc(),
                    model.inc().range_of_type(x, t),
                    shapes.in_distinct,
                )
            };
            let s = &adj.neighbors[r];
            if distinct || s.windows(2).all(|w| w[0] < w[1]) {
                return s;
            }
        } else if shapes.symmetric && shapes.out_distinct {
            // Every edge stored both ways: the out-run lists each neighbour once.
            return &model.out().neighbors[out];
        } else {
            let inc = model.inc().range_of_type(x, t);
            let (a, b) = (&model.out().neighbors[out], &model.inc().neighbors[inc]);
            // A symmetric graph (every edge stored both ways) lists the same neighbours twice.
            if a == b && a.windows(2).all(|w| w[0] < w[1]) {
                return a;
            }
        }
    }
    scratch.runs.clear();
    let sides = [
        (true, forward || rel.undirected),
        (false, !forward || rel.undirected),
    ];
    for (out, used) in sides {
        if !used {
            continue;
        }
        let adj = if out { model.out() } else { model.inc() };
        for &t in &rel.types {
            scratch.tmp.clear();
            adj.type_runs(x, t, &mut scratch.tmp);
            scratch.runs.extend(scratch.tmp.drain(..).map(|r| (out, r)));
        }
    }
    let slice = |out: bool, r: Range<usize>| -> &'a [u32] {
        let adj = if out { model.out() } else { model.inc() };
        &adj.neighbors[r]
    };
    if scratch.runs.len() == 1 {
        let (out, r) = scratch.runs[0].clone();
        let s = slice(out, r);
        // A run is sorted; parallel edges repeat a neighbour.
        if s.windows(2).all(|w| w[0] < w[1]) {
            return s;
        }
    }
    scratch.merged.clear();
    if scratch.runs.len() == 2 {
        // Both directions of one type (an undirected relationship): a linear merge.
        let (a, b) = (scratch.runs[0].clone(), scratch.runs[1].clone());
        let (a, b) = (slice(a.0, a.1), slice(b.0, b.1));
        let (mut i, mut j) = (0, 0);
        let out = &mut scratch.merged;
        while i < a.len() || j < b.len() {
            let next = match (a.get(i), b.get(j)) {
                (Some(&x), Some(&y)) if x <= y => {
                    i += 1;
                    j += usize::from(x == y);
                    x
                }
                (_, Some(&y)) => {
                    j += 1;
                    y
                }
                (Some(&x), None) => {
                    i += 1;
                    x
                }
                (None, None) => break,
            };
            if out.last() != Some(&next) {
                out.push(next);
            }
        }
        return &scratch.merged;
    }
    for (out, r) in scratch.runs.drain(..) {
        scratch.merged.extend_from_slice(slice(out, r));
    }
    scratch.merged.sort_unstable();
    scratch.merged.dedup();
    &scratch.merged
}

/// An undirected query graph on `k` nodes with `edges` (any type), for tests of the core's stages.
#[cfg(test)]
pub(crate) fn undirected(k: usize, edges: &[(usize, usize)]) -> QueryGraph {
    let mut incident = vec![Vec::new(); k];
    let rels = edges
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| {
            incident[a].push(Incidence {
                other: b,
                rel: i,
                forward: true,
            });
            incident[b].push(Incidence {
                other: a,
                rel: i,
                forward: false,
            });
            QueryRel {
                src: a,
                dst: b,
                types: vec![ANY_TYPE],
                undirected: true,
                whole_lists: true,
            }
        })
        .collect();
    QueryGraph { rels, incident }
}
