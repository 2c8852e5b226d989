//! Exhaustive search over every legal mapping: the reference optimum for tests on small graphs
//! (exponential; do not use beyond a handful of elements).

use super::astar::Mapping;
use super::problem::Problem;

/// The maximum of `sim_m` over all legal mappings and one mapping that reaches it.
pub fn best_mapping(problem: &Problem) -> (f64, Mapping) {
    let q = &problem.query;
    let mut state = State {
        problem,
        assign: vec![None; q.len()],
        used: vec![false; problem.case.len()],
        best: -1.0,
        best_assign: vec![None; q.len()],
    };
    state.visit(0, 0.0);
    let c_nodes = problem.case.nodes;
    let mapping = Mapping {
        nodes: state.best_assign[..q.nodes].to_vec(),
        edges: state.best_assign[q.nodes..]
            .iter()
            .map(|y| y.map(|y| y - c_nodes))
            .collect(),
    };
    let sim = if q.is_empty() {
        1.0
    } else {
        state.best / problem.denominator()
    };
    (sim, mapping)
}

struct State<'a> {
    problem: &'a Problem,
    assign: Vec<Option<usize>>,
    used: Vec<bool>,
    best: f64,
    best_assign: Vec<Option<usize>>,
}

impl State<'_> {
    fn visit(&mut self, x: usize, sum: f64) {
        let q = &self.problem.query;
        if x == q.len() {
            if sum > self.best {
                self.best = sum;
                self.best_assign.clone_from(&self.assign);
            }
            return;
        }
        self.assign[x] = None;
        self.visit(x + 1, sum);
        for &(y, s) in &self.problem.query_candidates[x] {
            let y = y as usize;
            if self.used[y] {
                continue;
            }
            if q.is_edge(x) {
                let (l, r) = q.ends_of(x);
                let (cl, cr) = self.problem.case.ends_of(y);
                if self.assign[l] != Some(cl) || self.assign[r] != Some(cr) {
                    continue;
                }
            }
            self.used[y] = true;
            self.assign[x] = Some(y);
            self.visit(x + 1, sum + s);
            self.assign[x] = None;
            self.used[y] = false;
        }
    }
}
