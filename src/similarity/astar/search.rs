//! The A* loop: priority queue of partial solutions ordered by `f = g + h`, expansion of the
//! selected element with every legal mapping plus the null mapping where one is needed.
//!
//! Null mappings (exactly as many as can pay off): a node of type `T` may be mapped to null while
//! fewer nulls of `T` were used than the walked side has more elements of `T` than the other side
//! (an optimum maps all elements of the smaller side: mapping a node never lowers the similarity
//! and never blocks an edge). An edge whose nodes are both mapped may be null while the free
//! matching edges between the images are fewer than the undecided edges of the same type between
//! the same nodes; an edge with a null node is always null. In case-oriented mode the null
//! mappings of the query are added in one step when every case element is decided
//! (`completeSolution`).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::time::Instant;

use super::super::problem::Problem;
use super::heuristic::{element_estimate, estimate};
use super::select::select;
use super::state::{View, Work, FREE, NULL};
use super::{Algorithm, Mapping, Outcome, SearchOptions, SearchResult, Stats, StopReason};
use crate::error::{Error, Result};

/// One partial solution in the queue: the own-side assignment, `g` and `h` (both undivided).
struct Solution {
    assign: Box<[u16]>,
    g: f64,
    h: f64,
}

/// Queue order: higher f first, then deeper, then older.
#[derive(Clone, Copy)]
struct Key {
    f: f64,
    depth: u32,
    seq: u64,
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.f
            .total_cmp(&other.f)
            .then(self.depth.cmp(&other.depth))
            .then(other.seq.cmp(&self.seq))
    }
}

/// Runs the search for `problem` (see the module and [`SearchOptions`]).
pub fn search(problem: &Problem, options: &SearchOptions) -> Result<Outcome> {
    let start = Instant::now();
    let algorithm = options.algorithm;
    if options.improvements.selection && algorithm != Algorithm::AStarIII {
        return Err(Error::InvalidArgument(
            "improvement S (heuristic-based selection) needs A*III's heuristic".into(),
        ));
    }
    if options.queue_limit == Some(0) {
        return Err(Error::InvalidArgument(
            "the queue limit must be at least 1".into(),
        ));
    }
    let case_oriented =
        options.improvements.orientation && problem.case.len() < problem.query.len();
    let view = View::new(problem, case_oriented);
    let denominator = problem.denominator().max(1.0);
    let mut stats = Stats {
        case_oriented,
        ..Stats::default()
    };
    let mut work = Work {
        own: vec![FREE; view.own.len()],
        other: vec![FREE; view.other.len()],
    };
    let mut g0 = 0.0;
    if options.improvements.reduction {
        for x in 0..view.own.nodes {
            let t = view.own.kind[x] as usize;
            if view.own_count[t] == 1 && view.other_count[t] == 1 {
                if let Some(&(y, s)) = view.candidates[x].first() {
                    work.own[x] = y as u16;
                    work.other[y as usize] = x as u16;
                    g0 += s;
                }
            }
        }
    }
    let h0 = estimate(&view, &work, algorithm);
    let mut queue: BTreeMap<Key, Solution> = BTreeMap::new();
    let mut seq = 0u64;
    let depth0 = work.own.iter().filter(|&&y| y != FREE).count() as u32;
    queue.insert(
        Key {
            f: (g0 + h0) / denominator,
            depth: depth0,
            seq,
        },
        Solution {
            assign: work.own.clone().into_boxed_slice(),
            g: g0,
            h: h0,
        },
    );
    stats.max_queue = 1;
    stats.generated = 1;
    let mut children: Vec<(u16, f64)> = Vec::new();
    let mut parent_best: Vec<(u32, f64)> = Vec::new();
    loop {
        let Some((key, sol)) = queue.pop_last() else {
            return Err(Error::InvalidArgument(
                "A* search: the queue ran empty (internal error)".into(),
            ));
        };
        if let Some(bound) = &options.prune_below {
            let b = f64::from_bits(bound.load(AtomicOrdering::Relaxed));
            if key.f < b {
                stats.time = start.elapsed();
                return Ok(Outcome::Stopped {
                    reason: StopReason::BelowBound,
                    upper_bound: key.f,
                    stats,
                });
            }
        }
        if stats.expansions % 64 == 0 {
            let reason = if options
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(AtomicOrdering::Relaxed))
            {
                Some(StopReason::Cancelled)
            } else if options.time_limit.is_some_and(|t| start.elapsed() > t) {
                Some(StopReason::TimeLimit)
            } else {
                None
            };
            if let Some(reason) = reason {
                stats.time = start.elapsed();
                return Ok(Outcome::Stopped {
                    reason,
                    upper_bound: key.f,
                    stats,
                });
            }
        }
        work.load(&sol.assign, view.other.len());
        if algorithm == Algorithm::AStarIII {
            // The best legal candidate of every undecided element: for select_III and for the
            // children's h_III.
            parent_best.clear();
            parent_best.extend((0..view.own.len()).map(|z| {
                if work.own[z] == FREE {
                    first_legal(&view, &work, z, 0)
                } else {
                    (NO_CANDIDATE, 0.0)
                }
            }));
        }
        let Some(x) = select(
            &view,
            &work,
            algorithm,
            options.improvements.selection,
            &parent_best,
        ) else {
            stats.time = start.elapsed();
            return Ok(Outcome::Done(finish(
                problem,
                &view,
                &work,
                sol.g / denominator,
                stats,
            )));
        };
        stats.expansions += 1;
        children.clear();
        expand(&view, &work, x, &mut children);
        let est_x = match algorithm {
            Algorithm::AStarIII => parent_best[x].1,
            _ => element_estimate(&view, &work, x, algorithm),
        };
        for &(y, s) in &children {
            work.own[x] = y;
            if y != NULL {
                work.other[y as usize] = x as u16;
            }
            let h = match algorithm {
                Algorithm::AStarIII => {
                    let h = h_iii_after(&view, &work, &parent_best, sol.h - est_x, x, y);
                    debug_assert!(
                        (h - estimate(&view, &work, algorithm)).abs() < 1e-9,
                        "incremental h_III"
                    );
                    h
                }
                _ => (sol.h - est_x).max(0.0),
            };
            let g = sol.g + s;
            seq += 1;
            queue.insert(
                Key {
                    f: (g + h) / denominator,
                    depth: key.depth + 1,
                    seq,
                },
                Solution {
                    assign: work.own.clone().into_boxed_slice(),
                    g,
                    h,
                },
            );
            if y != NULL {
                work.other[y as usize] = FREE;
            }
            work.own[x] = FREE;
        }
        stats.generated += children.len() as u64;
        if let Some(limit) = options.queue_limit {
            while queue.len() > limit {
                queue.pop_first();
                stats.pruned += 1;
            }
        }
        stats.max_queue = stats.max_queue.max(queue.len());
        if options.max_queue.is_some_and(|cap| queue.len() > cap) {
            stats.time = start.elapsed();
            return Ok(Outcome::Stopped {
                reason: StopReason::QueueCapacity,
                upper_bound: queue.last_key_value().map_or(0.0, |(k, _)| k.f),
                stats,
            });
        }
    }
}

/// No legal candidate left.
pub(super) const NO_CANDIDATE: u32 = u32::MAX;

/// The first legal candidate of own element `z` from position `from` on: (position, similarity),
/// or ([`NO_CANDIDATE`], 0).
#[inline]
fn first_legal(view: &View<'_>, work: &Work, z: usize, from: usize) -> (u32, f64) {
    view.candidates[z][from..]
        .iter()
        .position(|&(y, _)| work.allows(view, z, y as usize))
        .map_or((NO_CANDIDATE, 0.0), |p| {
            ((from + p) as u32, view.candidates[z][from + p].1)
        })
}

/// `h_III` of the child that maps `x` to `y` (applied in `work`), from the parent's best legal
/// candidates: a mapping only removes candidates, so an element's best stays best unless that
/// candidate is `y`, or the element is an edge at `x`, or (`x` a node) the candidate is an edge at
/// `y`; only those elements are searched again, from their old best on. `h` is the parent's `h`
/// without `x`'s share.
fn h_iii_after(
    view: &View<'_>,
    work: &Work,
    parent_best: &[(u32, f64)],
    mut h: f64,
    x: usize,
    y: u16,
) -> f64 {
    let x_is_node = !view.own.is_edge(x);
    for (z, &(pos, sim)) in parent_best.iter().enumerate() {
        if z == x || work.own[z] != FREE || pos == NO_CANDIDATE {
            continue;
        }
        let c = view.candidates[z][pos as usize].0 as usize;
        let mut affected = y != NULL && c == y as usize;
        if !affected && view.own.is_edge(z) {
            let (zl, zr) = view.own.ends_of(z);
            affected = zl == x || zr == x;
            if !affected && x_is_node && y != NULL {
                let (cl, cr) = view.other.ends_of(c);
                affected = cl == y as usize || cr == y as usize;
            }
        }
        if affected {
            h += first_legal(view, work, z, pos as usize).1 - sim;
        }
    }
    h.max(0.0)
}

/// The legal mappings of own element `x` (other element, similarity) and the null mapping
/// `(NULL, 0)` when one is needed.
fn expand(view: &View<'_>, work: &Work, x: usize, out: &mut Vec<(u16, f64)>) {
    let t = view.own.kind[x];
    if !view.own.is_edge(x) {
        for &(y, s) in &view.candidates[x] {
            if work.other[y as usize] == FREE {
                out.push((y as u16, s));
            }
        }
        let surplus = view.own_count[t as usize].saturating_sub(view.other_count[t as usize]);
        if work.nulls_of_type(view, t) < surplus {
            out.push((NULL, 0.0));
        }
        return;
    }
    let (l, r) = view.own.ends_of(x);
    let (ml, mr) = (work.own[l], work.own[r]);
    if ml == NULL || mr == NULL {
        out.push((NULL, 0.0));
        return;
    }
    for &(y, s) in &view.candidates[x] {
        if work.allows(view, x, y as usize) {
            out.push((y as u16, s));
        }
    }
    let free = out.len();
    let pending = (view.own.nodes..view.own.len())
        .filter(|&e| {
            work.own[e] == FREE && view.own.kind[e] == t && {
                let (el, er) = view.own.ends_of(e);
                work.own[el] == ml && work.own[er] == mr
            }
        })
        .count();
    if free < pending {
        out.push((NULL, 0.0));
    }
}

/// The result of a complete solution: the mapping oriented query → case.
fn finish(
    problem: &Problem,
    view: &View<'_>,
    work: &Work,
    similarity: f64,
    stats: Stats,
) -> SearchResult {
    let forward: &[u16] = if view.case_oriented {
        &work.other
    } else {
        &work.own
    };
    let q = &problem.query;
    let c = &problem.case;
    let target = |x: usize| -> Option<usize> {
        let y = forward[x];
        (y != FREE && y != NULL).then_some(y as usize)
    };
    let mapping = Mapping {
        nodes: (0..q.nodes).map(target).collect(),
        edges: (q.nodes..q.len())
            .map(|x| target(x).map(|y| y - c.nodes))
            .collect(),
    };
    let exact = stats.pruned == 0;
    SearchResult {
        similarity: if q.is_empty() { 1.0 } else { similarity },
        mapping,
        stats,
        exact,
    }
}
