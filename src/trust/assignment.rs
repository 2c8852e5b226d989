//! Maximum-weight bipartite assignment: the Hungarian (Kuhn–Munkres) algorithm with potentials,
//! written iteratively (no recursion, no fixed-size arrays), on integer weights.
//!
//! The paper's version recursed and used 80-entry local arrays, which capped the degree; here the
//! scratch arrays grow with the input and any sizes work. `O(n²·m)` for `n ≤ m`.

/// Reusable scratch space for [`Hungarian::max_weight`] (keep one per thread to avoid allocating
/// in inner loops).
#[derive(Debug, Default, Clone)]
pub struct Hungarian {
    u: Vec<i64>,
    v: Vec<i64>,
    minv: Vec<i64>,
    p: Vec<u32>,
    way: Vec<u32>,
    used: Vec<bool>,
}

impl Hungarian {
    /// Empty scratch space.
    pub fn new() -> Self {
        Self::default()
    }

    /// The largest total weight of a matching between `rows` and `cols` items where pairing row
    /// `r` with column `c` is worth `weight(r, c) ≥ 0`. Every item is matched at most once; with
    /// non-negative weights a maximum matching that saturates the smaller side is optimal, which
    /// is what the algorithm computes. 0 when either side is empty.
    pub fn max_weight(
        &mut self,
        rows: usize,
        cols: usize,
        weight: impl Fn(usize, usize) -> u32,
    ) -> u64 {
        if rows == 0 || cols == 0 {
            return 0;
        }
        if rows <= cols {
            self.solve(rows, cols, &weight)
        } else {
            self.solve(cols, rows, &|r, c| weight(c, r))
        }
    }

    /// Minimum-cost assignment of all `n` rows to distinct columns (`n ≤ m`) with cost
    /// `−weight`; returns the total weight.
    fn solve(&mut self, n: usize, m: usize, weight: &dyn Fn(usize, usize) -> u32) -> u64 {
        const INF: i64 = i64::MAX / 4;
        self.u.clear();
        self.u.resize(n + 1, 0);
        self.v.clear();
        self.v.resize(m + 1, 0);
        self.p.clear();
        self.p.resize(m + 1, 0);
        self.way.clear();
        self.way.resize(m + 1, 0);
        self.minv.resize(m + 1, INF);
        self.used.resize(m + 1, false);
        for i in 1..=n {
            self.p[0] = i as u32;
            let mut j0 = 0usize;
            self.minv.fill(INF);
            self.used.fill(false);
            loop {
                self.used[j0] = true;
                let i0 = self.p[j0] as usize;
                let mut delta = INF;
                let mut j1 = 0usize;
                for j in 1..=m {
                    if !self.used[j] {
                        let cost = -i64::from(weight(i0 - 1, j - 1));
                        let cur = cost - self.u[i0] - self.v[j];
                        if cur < self.minv[j] {
                            self.minv[j] = cur;
                            self.way[j] = j0 as u32;
                        }
                        if self.minv[j] < delta {
                            delta = self.minv[j];
                            j1 = j;
                        }
                    }
                }
                for j in 0..=m {
                    if self.used[j] {
                        self.u[self.p[j] as usize] += delta;
                        self.v[j] -= delta;
                    } else {
                        self.minv[j] -= delta;
                    }
                }
                j0 = j1;
                if self.p[j0] == 0 {
                    break;
                }
            }
            loop {
                let j1 = self.way[j0] as usize;
                self.p[j0] = self.p[j1];
                j0 = j1;
                if j0 == 0 {
                    break;
                }
            }
        }
        (1..=m)
            .filter(|&j| self.p[j] != 0)
            .map(|j| u64::from(weight(self.p[j] as usize - 1, j - 1)))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(w: &[Vec<u32>], rows: usize, cols: usize) -> u64 {
        // Best over all partial injections rows -> cols (None allowed).
        fn go(r: usize, w: &[Vec<u32>], rows: usize, cols: usize, used: &mut Vec<bool>) -> u64 {
            if r == rows {
                return 0;
            }
            let mut best = go(r + 1, w, rows, cols, used);
            for c in 0..cols {
                if !used[c] {
                    used[c] = true;
                    best = best.max(u64::from(w[r][c]) + go(r + 1, w, rows, cols, used));
                    used[c] = false;
                }
            }
            best
        }
        go(0, w, rows, cols, &mut vec![false; cols])
    }

    #[test]
    fn known_matrix() {
        // Greedy takes 9 then 1 (total 10); the optimum is 8 + 7 = 15.
        let w = [[9u32, 8], [7, 1]];
        let mut h = Hungarian::new();
        assert_eq!(h.max_weight(2, 2, |r, c| w[r][c]), 15);
        assert_eq!(h.max_weight(0, 3, |_, _| 1), 0);
        assert_eq!(h.max_weight(1, 3, |_, c| [3, 9, 4][c]), 9);
        assert_eq!(h.max_weight(3, 1, |r, _| [3, 9, 4][r]), 9);
    }

    proptest! {
        #[test]
        fn equals_brute_force(rows in 0usize..6, cols in 0usize..6, seed in any::<u64>()) {
            let mut s = seed;
            let w: Vec<Vec<u32>> = (0..rows).map(|_| (0..cols).map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 33) % 5) as u32 * 1000 + ((s >> 20) % 3) as u32
            }).collect()).collect();
            let mut h = Hungarian::new();
            prop_assert_eq!(h.max_weight(rows, cols, |r, c| w[r][c]), brute(&w, rows, cols));
        }
    }
}
