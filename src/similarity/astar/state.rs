//! The oriented view of a problem and the working arrays of one solution.
//!
//! Query-oriented search walks the query elements ("own" side) and maps each to a case element
//! ("other" side); case-oriented search (improvement M) walks the case elements. Both directions
//! share one implementation over [`View`]: `own[x]` is the other-side element of own element `x`
//! (or [`FREE`] / [`NULL`]) and `other[y]` the own-side element mapped to `y` (or [`FREE`]).

use super::super::problem::{Problem, Side};

/// Not decided yet.
pub const FREE: u16 = u16::MAX;
/// Decided: mapped to nothing (null mapping).
pub const NULL: u16 = u16::MAX - 1;

/// A problem seen from the side the search walks.
pub struct View<'a> {
    /// The walked side.
    pub own: &'a Side,
    /// The side mapped to.
    pub other: &'a Side,
    /// Candidates of each own element (other-side elements, best first).
    pub candidates: &'a [Vec<(u32, f64)>],
    /// Own elements per type.
    pub own_count: &'a [u32],
    /// Other elements per type.
    pub other_count: &'a [u32],
    /// Whether own = case.
    pub case_oriented: bool,
}

impl<'a> View<'a> {
    /// The view of `problem` in the given orientation.
    pub fn new(problem: &'a Problem, case_oriented: bool) -> Self {
        if case_oriented {
            View {
                own: &problem.case,
                other: &problem.query,
                candidates: &problem.case_candidates,
                own_count: &problem.case_type_count,
                other_count: &problem.query_type_count,
                case_oriented,
            }
        } else {
            View {
                own: &problem.query,
                other: &problem.case,
                candidates: &problem.query_candidates,
                own_count: &problem.query_type_count,
                other_count: &problem.case_type_count,
                case_oriented,
            }
        }
    }
}

/// The mapping of one solution in both directions.
#[derive(Debug, Clone)]
pub struct Work {
    /// Own element → other element, [`FREE`] or [`NULL`].
    pub own: Vec<u16>,
    /// Other element → own element or [`FREE`].
    pub other: Vec<u16>,
}

impl Work {
    /// Rebuilds both directions from the stored own-side assignment.
    pub fn load(&mut self, assign: &[u16], other_len: usize) {
        self.own.clear();
        self.own.extend_from_slice(assign);
        self.other.clear();
        self.other.resize(other_len, FREE);
        for (x, &y) in assign.iter().enumerate() {
            if y != FREE && y != NULL {
                self.other[y as usize] = x as u16;
            }
        }
    }

    /// Whether other-side element `y` may still receive own element `x`: `y` free and, for edges,
    /// the ends consistent with the mapping so far (mapped ends must correspond; ends decided as
    /// null exclude every edge).
    #[inline]
    pub fn allows(&self, view: &View<'_>, x: usize, y: usize) -> bool {
        if self.other[y] != FREE {
            return false;
        }
        if !view.own.is_edge(x) {
            return true;
        }
        let (xl, xr) = view.own.ends_of(x);
        let (yl, yr) = view.other.ends_of(y);
        end_ok(self.own[xl], yl)
            && end_ok(self.own[xr], yr)
            && back_ok(self.other[yl], xl)
            && back_ok(self.other[yr], xr)
    }

    /// Number of own elements of type `t` decided as null.
    pub fn nulls_of_type(&self, view: &View<'_>, t: u32) -> u32 {
        self.own
            .iter()
            .enumerate()
            .filter(|&(x, &y)| y == NULL && view.own.kind[x] == t)
            .count() as u32
    }
}

#[inline]
fn end_ok(mapped: u16, y_end: usize) -> bool {
    mapped == FREE || mapped as usize == y_end
}

#[inline]
fn back_ok(mapped_from: u16, x_end: usize) -> bool {
    mapped_from == FREE || mapped_from as usize == x_end
}
