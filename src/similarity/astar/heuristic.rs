//! The estimation functions: `h_I`, `h_II` (and `h_IIc`) and `h_III`, summed over the elements of
//! the walked side that are not decided yet. Each is an upper bound of the similarity the rest of
//! the mapping can add (admissible), so A* returns the optimum.

use super::state::{View, Work, FREE};
use super::Algorithm;

/// The estimate for own element `x` alone.
#[inline]
pub fn element_estimate(view: &View<'_>, work: &Work, x: usize, algorithm: Algorithm) -> f64 {
    let cands = &view.candidates[x];
    match algorithm {
        Algorithm::AStarI => 1.0,
        Algorithm::AStarII => cands.first().map_or(0.0, |c| c.1),
        Algorithm::AStarIII => cands
            .iter()
            .find(|&&(y, _)| work.allows(view, x, y as usize))
            .map_or(0.0, |c| c.1),
    }
}

/// `h(Sol)` before the division by `|N_q| + |E_q|`.
pub fn estimate(view: &View<'_>, work: &Work, algorithm: Algorithm) -> f64 {
    work.own
        .iter()
        .enumerate()
        .filter(|&(_, &y)| y == FREE)
        .map(|(x, _)| element_estimate(view, work, x, algorithm))
        .sum()
}
