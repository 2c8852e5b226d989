//! The select functions: which element of the walked side to map next.

use super::search::NO_CANDIDATE;
use super::state::{View, Work, FREE};
use super::Algorithm;

/// The next own element to decide (`None` when all are decided). Edges are only ever chosen once
/// both their nodes are decided. `best` holds each undecided element's first legal candidate
/// (position, similarity) under `h_III` (needed with `heuristic_selection`).
pub fn select(
    view: &View<'_>,
    work: &Work,
    algorithm: Algorithm,
    heuristic_selection: bool,
    best: &[(u32, f64)],
) -> Option<usize> {
    if heuristic_selection {
        return select_iii(view, work, best);
    }
    match algorithm {
        Algorithm::AStarI => first_free(work),
        Algorithm::AStarII | Algorithm::AStarIII => select_ii(view, work),
    }
}

fn first_free(work: &Work) -> Option<usize> {
    work.own.iter().position(|&y| y == FREE)
}

/// `select_II` (and `select_IIc`): the first edge whose nodes are decided, else the first node.
fn select_ii(view: &View<'_>, work: &Work) -> Option<usize> {
    let own = view.own;
    for x in own.nodes..own.len() {
        if work.own[x] == FREE {
            let (l, r) = own.ends_of(x);
            if work.own[l] != FREE && work.own[r] != FREE {
                return Some(x);
            }
        }
    }
    first_free(work)
}

/// `select_III`: the element with the highest best possible similarity, then the fewest such
/// mappings, then the lowest id; an edge with an undecided node gives way to that node.
fn select_iii(view: &View<'_>, work: &Work, bests: &[(u32, f64)]) -> Option<usize> {
    let mut chosen: Option<(usize, f64, usize)> = None;
    for (x, &(pos, best)) in bests.iter().enumerate() {
        if work.own[x] != FREE {
            continue;
        }
        let count = if pos == NO_CANDIDATE {
            0
        } else {
            view.candidates[x][pos as usize..]
                .iter()
                .take_while(|c| c.1 == best)
                .filter(|&&(y, _)| work.allows(view, x, y as usize))
                .count()
        };
        let better = match chosen {
            None => true,
            Some((_, b, c)) => best > b || (best == b && count < c),
        };
        if better {
            chosen = Some((x, best, count));
        }
    }
    let (x, _, _) = chosen?;
    if view.own.is_edge(x) {
        let (l, r) = view.own.ends_of(x);
        if work.own[l] == FREE {
            return Some(l);
        }
        if work.own[r] == FREE {
            return Some(r);
        }
    }
    Some(x)
}
