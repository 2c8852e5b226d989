//! Stage 3 — *enumerate*: backtracking over the candidate space in a static order.
//!
//! - The local candidates of the node at depth `d` are the intersection of the candidate-edge table
//!   rows of its bound neighbours (one row: the row itself, no copy; several: merged, or galloped
//!   when one row is much longer). No allocation per match: one buffer per depth.
//! - **Failing sets** (DP-iso): each search node returns the set of depths whose bindings explain
//!   why its subtree has no match (an empty local-candidate set: the node and its ancestors; a
//!   conflict with an earlier binding: both nodes' ancestors; a match: every depth). When a child's
//!   failing set does not contain the current depth, no other candidate at this depth can do
//!   better, and the remaining siblings are skipped.
//! - **Counting**: when only the number of matches is wanted, the last node is counted by the size
//!   of its local candidates less the nodes bound already, not visited.
//! - **Work stealing**: a worker that finds a thread idle and no split-off work waiting splits the
//!   rest of its current candidate list in two (`rayon::join`): one heavy subtree is shared among
//!   threads at any depth, not only at the first node.
//!
//! Invariants: `Task::ids[..d]` are the nodes bound at depths `0..d` (distinct under isomorphism),
//! `Task::idx[p]` the position of `ids[p]` in its pattern node's candidate list.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::filter::Candidates;
use super::query_graph::QueryGraph;
use super::tables::{table_id, EdgeTable};
use crate::exec::{Control, Sink};

/// The failing set of a subtree that has a match (prunes nothing).
pub const FULL: u64 = u64::MAX;

/// Most pattern nodes the search takes (failing sets are 64-bit masks of depths).
pub const MAX_NODES: usize = 64;

/// The order turned into what each depth needs.
#[derive(Debug, Clone)]
pub struct SearchPlan {
    /// Pattern nodes in binding order.
    pub order: Vec<usize>,
    /// Per depth: (table id, depth of the bound neighbour) for each relationship to an earlier
    /// node.
    pub backward: Vec<Vec<(usize, usize)>>,
    /// Per depth: the depth and its ancestors (through backward relationships), as a bit mask.
    pub anc: Vec<u64>,
    /// `0..|C(order[0])|`: the first node's local candidates.
    pub root: Vec<u32>,
    /// Per depth: the earlier depths whose candidate sets share a node with this one's — the only
    /// bindings an injectivity check must look at.
    pub overlaps: Vec<Vec<usize>>,
}

impl SearchPlan {
    /// The plan of `order` (connected; at most [`MAX_NODES`] nodes) over `cands`.
    pub fn new(q: &QueryGraph, order: Vec<usize>, cands: &[Candidates]) -> Self {
        let k = order.len();
        let mut depth_of = vec![0; k];
        for (d, &u) in order.iter().enumerate() {
            depth_of[u] = d;
        }
        let mut backward = Vec::with_capacity(k);
        let mut anc = vec![0u64; k];
        for (d, &u) in order.iter().enumerate() {
            let mut back = Vec::new();
            let mut a = 1u64 << d;
            for inc in &q.incident[u] {
                let p = depth_of[inc.other];
                if p < d {
                    // The table walked from the bound end (the source when `u` is the target).
                    back.push((table_id(inc.rel, !inc.forward), p));
                    a |= anc[p];
                }
            }
            backward.push(back);
            anc[d] = a;
        }
        let root = (0..cands[order[0]].len() as u32).collect();
        let share = |a: &Candidates, b: &Candidates| {
            let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            small.nodes.iter().any(|&v| large.contains(v))
        };
        let overlaps = (0..k)
            .map(|d| {
                (0..d)
                    .filter(|&p| share(&cands[order[p]], &cands[order[d]]))
                    .collect()
            })
            .collect();
        SearchPlan {
            order,
            backward,
            anc,
            root,
            overlaps,
        }
    }
}

/// What the search reports to.
pub trait Visitor: Send {
    /// True when the last node is counted by its local candidates instead of visited.
    fn counts_last(&self) -> bool;
    /// `n` more matches, counted. Returns false to stop the search.
    fn add(&mut self, n: u64) -> bool;
    /// A match: `ids[d]` is the node bound at depth `d`. Returns false to stop the search.
    fn complete(&mut self, ids: &[u32]) -> bool;
    /// A visitor for a split-off part of the search (merged back with [`Self::merge`]); `None`
    /// when this visitor cannot split.
    fn fork(&self) -> Option<Self>
    where
        Self: Sized;
    /// Takes in what a forked visitor saw.
    fn merge(&mut self, other: Self);
}

/// An exact cap on the number of matches (`--limit`), shared by every worker.
#[derive(Debug)]
pub struct Budget<'c> {
    limit: u64,
    taken: AtomicU64,
    control: &'c Control,
}

impl<'c> Budget<'c> {
    /// At most `limit` matches; the search is stopped through `control` once they are found.
    pub fn new(limit: u64, control: &'c Control) -> Self {
        if limit == 0 {
            control.stop();
        }
        Budget {
            limit,
            taken: AtomicU64::new(0),
            control,
        }
    }

    /// Takes up to `n` matches from the budget; returns how many were granted.
    pub fn take(&self, n: u64) -> u64 {
        let mut cur = self.taken.load(Ordering::Relaxed);
        loop {
            if cur >= self.limit {
                return 0;
            }
            let grant = n.min(self.limit - cur);
            match self.taken.compare_exchange_weak(
                cur,
                cur + grant,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    if cur + grant >= self.limit {
                        self.control.stop();
                    }
                    return grant;
                }
                Err(now) => cur = now,
            }
        }
    }
}

/// Counts matches (capped by an optional budget).
#[derive(Debug)]
pub struct Counter<'b, 'c> {
    /// Matches counted.
    pub count: u64,
    budget: Option<&'b Budget<'c>>,
}

impl<'b, 'c> Counter<'b, 'c> {
    /// A counter, capped by `budget` when given.
    pub fn new(budget: Option<&'b Budget<'c>>) -> Self {
        Counter { count: 0, budget }
    }
}

impl Visitor for Counter<'_, '_> {
    fn counts_last(&self) -> bool {
        true
    }

    fn add(&mut self, n: u64) -> bool {
        match self.budget {
            None => {
                self.count += n;
                true
            }
            Some(b) => {
                let granted = b.take(n);
                self.count += granted;
                granted == n
            }
        }
    }

    fn complete(&mut self, _: &[u32]) -> bool {
        self.add(1)
    }

    fn fork(&self) -> Option<Self> {
        Some(Counter {
            count: 0,
            budget: self.budget,
        })
    }

    fn merge(&mut self, other: Self) {
        self.count += other.count;
    }
}

/// Hands matches to a [`Sink`] (node ids by pattern slot; anonymous relationships unbound).
pub struct Rows<'b, 'c, S> {
    /// The sink.
    pub sink: S,
    order: &'b [usize],
    nodes: Vec<u32>,
    rels: Vec<u32>,
    budget: Option<&'b Budget<'c>>,
}

impl<'b, 'c, S: Sink> Rows<'b, 'c, S> {
    /// Matches of `order` into `sink` for a pattern of `rels` relationships.
    pub fn new(sink: S, order: &'b [usize], rels: usize, budget: Option<&'b Budget<'c>>) -> Self {
        Rows {
            sink,
            order,
            nodes: vec![u32::MAX; order.len()],
            rels: vec![u32::MAX; rels],
            budget,
        }
    }
}

impl<S: Sink + Send> Visitor for Rows<'_, '_, S> {
    fn counts_last(&self) -> bool {
        self.sink.count_only()
    }

    fn add(&mut self, n: u64) -> bool {
        let n = self.budget.map_or(n, |b| b.take(n));
        n > 0 && self.sink.add_count(n)
    }

    fn complete(&mut self, ids: &[u32]) -> bool {
        if self.budget.is_some_and(|b| b.take(1) == 0) {
            return false;
        }
        for (d, &u) in self.order.iter().enumerate() {
            self.nodes[u] = ids[d];
        }
        self.sink.emit(&self.nodes, &self.rels)
    }

    fn fork(&self) -> Option<Self> {
        None
    }

    fn merge(&mut self, _: Self) {}
}

#[derive(Debug, Clone)]
struct Task {
    idx: Vec<u32>,
    ids: Vec<u32>,
    ticks: u32,
}

impl Task {
    fn new(k: usize) -> Self {
        Task {
            idx: vec![0; k],
            ids: vec![u32::MAX; k],
            ticks: 0,
        }
    }
}

/// Intersects sorted, distinct `a` with sorted `b` in place (galloping when `b` is much longer).
pub fn intersect_in_place(a: &mut Vec<u32>, b: &[u32]) {
    if b.len() > 16 * a.len() {
        let mut lo = 0;
        a.retain(|&x| {
            lo += b[lo..].partition_point(|&y| y < x);
            lo < b.len() && b[lo] == x
        });
        return;
    }
    let mut w = 0;
    let mut j = 0;
    for i in 0..a.len() {
        let x = a[i];
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() {
            break;
        }
        if b[j] == x {
            a[w] = x;
            w += 1;
            j += 1;
        }
    }
    a.truncate(w);
}

/// A relationship to an earlier-bound node, as the search reads it: the table's arrays and the
/// bound node's depth.
#[derive(Debug, Clone, Copy)]
struct Back<'a> {
    offsets: &'a [u32],
    targets: &'a [u32],
    parent: usize,
}

impl<'a> Back<'a> {
    #[inline]
    fn row(&self, t: &Task) -> &'a [u32] {
        let i = t.idx[self.parent] as usize;
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// Intersects sorted, distinct `a` and `b` into `out` (cleared first).
fn intersect_into(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.clear();
    if b.len() > 16 * a.len() {
        let mut lo = 0;
        for &x in a {
            lo += b[lo..].partition_point(|&y| y < x);
            if lo == b.len() {
                break;
            }
            if b[lo] == x {
                out.push(x);
            }
        }
        return;
    }
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() {
            break;
        }
        if b[j] == x {
            out.push(x);
            j += 1;
        }
    }
}

/// The search over one candidate space.
pub struct Searcher<'a> {
    cands: &'a [Candidates],
    back: Vec<Vec<Back<'a>>>,
    plan: &'a SearchPlan,
    injective: bool,
    failing_sets: bool,
    control: &'a Control,
    threads: usize,
    /// Split-off halves not started yet.
    pending: AtomicUsize,
    /// Threads working on this search.
    busy: AtomicUsize,
    /// Candidates visited, in units of 1,024 (updated every 1,024 per task).
    visited: AtomicU64,
    /// Units of 1,024 visits after which the search gives up ([`Searcher::with_visit_budget`]).
    visit_budget: u64,
    /// Set once the visit budget ran out.
    exhausted: AtomicBool,
}

impl<'a> Searcher<'a> {
    /// A search of `plan` over `cands` and `tables`; `injective` = node-isomorphism.
    pub fn new(
        cands: &'a [Candidates],
        tables: &'a [EdgeTable],
        plan: &'a SearchPlan,
        injective: bool,
        failing_sets: bool,
        control: &'a Control,
    ) -> Self {
        let back = plan
            .backward
            .iter()
            .map(|b| {
                b.iter()
                    .map(|&(tb, parent)| Back {
                        offsets: &tables[tb].offsets,
                        targets: &tables[tb].targets,
                        parent,
                    })
                    .collect()
            })
            .collect();
        Searcher {
            cands,
            back,
            plan,
            injective,
            failing_sets: failing_sets && plan.order.len() <= MAX_NODES,
            control,
            threads: rayon::current_num_threads(),
            pending: AtomicUsize::new(0),
            busy: AtomicUsize::new(0),
            visited: AtomicU64::new(0),
            visit_budget: u64::MAX,
            exhausted: AtomicBool::new(false),
        }
    }

    /// Gives up (see [`Self::exhausted`]) after about `visits` candidates visited.
    pub fn with_visit_budget(mut self, visits: u64) -> Self {
        self.visit_budget = visits / 1024;
        self
    }

    /// True when the search gave up at its visit budget: what it found is incomplete.
    pub fn exhausted(&self) -> bool {
        self.exhausted.load(Ordering::Relaxed)
    }

    /// Candidates visited so far, rounded down to thousands (1,024 per unit, per task).
    pub fn visited(&self) -> u64 {
        self.visited.load(Ordering::Relaxed) * 1024
    }

    fn k(&self) -> usize {
        self.plan.order.len()
    }

    /// Runs the whole search into `v`, splitting work among threads when `v` can fork.
    pub fn run<V: Visitor>(&self, v: &mut V) {
        let k = self.k();
        let mut task = Task::new(k);
        let mut scratch = vec![Vec::new(); k];
        if self.threads > 1 && v.fork().is_some() {
            self.busy.store(1, Ordering::Relaxed);
            rayon::scope(|_| {
                self.extend(0, &mut task, &mut scratch, v);
            });
        } else {
            self.extend(0, &mut task, &mut scratch, v);
        }
    }

    /// Runs the search over chunks of the first node's candidates in parallel, a visitor each
    /// (made by `make`); the visitors come back in candidate order.
    pub fn run_chunks<V, F>(&self, make: F) -> Vec<V>
    where
        V: Visitor,
        F: Fn() -> V + Sync,
    {
        let k = self.k();
        self.plan
            .root
            .par_chunks(64)
            .map(|chunk| {
                let mut v = make();
                let mut task = Task::new(k);
                let mut scratch = vec![Vec::new(); k];
                let (_, deeper) = scratch.split_first_mut().expect("one level per depth");
                if !self.control.stopped() {
                    self.visit(0, chunk, &mut task, deeper, &mut v);
                }
                v
            })
            .collect()
    }

    /// True (after stopping) once the deadline or memory limit passed; checked every 1,024 steps.
    #[inline]
    fn tick(&self, t: &mut Task) -> bool {
        t.ticks = t.ticks.wrapping_add(1);
        if t.ticks % 1024 == 0 {
            let units = self.visited.fetch_add(1, Ordering::Relaxed) + 1;
            if units > self.visit_budget {
                self.exhausted.store(true, Ordering::Relaxed);
            }
            if self.exhausted.load(Ordering::Relaxed) {
                return false;
            }
            return self.control.check_deadline();
        }
        !self.control.stopped() && !self.exhausted.load(Ordering::Relaxed)
    }

    #[inline]
    fn wants_split(&self) -> bool {
        self.threads > 1
            && self.pending.load(Ordering::Relaxed) == 0
            && self.busy.load(Ordering::Relaxed) < self.threads
    }

    /// The positions of the candidates of the node at depth `d` given the bound ones.
    #[inline]
    fn local_candidates<'b>(&self, d: usize, t: &Task, buf: &'b mut Vec<u32>) -> &'b [u32]
    where
        'a: 'b,
    {
        let back = &self.back[d];
        match back.len() {
            0 => &self.plan.root,
            1 => back[0].row(t),
            _ => {
                let mut shortest = 0;
                let mut best = back[0].row(t);
                for (i, b) in back.iter().enumerate().skip(1) {
                    let row = b.row(t);
                    if row.len() < best.len() {
                        best = row;
                        shortest = i;
                    }
                }
                let second = if shortest == 0 { 1 } else { 0 };
                intersect_into(best, back[second].row(t), buf);
                for (i, b) in back.iter().enumerate() {
                    if buf.is_empty() {
                        break;
                    }
                    if i != shortest && i != second {
                        intersect_in_place(buf, b.row(t));
                    }
                }
                buf
            }
        }
    }

    /// Binds the node at depth `d` in every way; returns the failing set.
    fn extend<V: Visitor>(
        &self,
        d: usize,
        t: &mut Task,
        scratch: &mut [Vec<u32>],
        v: &mut V,
    ) -> u64 {
        let (mine, deeper) = scratch.split_first_mut().expect("one level per depth");
        let lc = self.local_candidates(d, t, mine);
        if lc.is_empty() {
            return self.plan.anc[d];
        }
        if d + 1 == self.k() && v.counts_last() {
            return self.count_last(d, t, lc, v);
        }
        self.visit(d, lc, t, deeper, v)
    }

    /// Counts the last node's bindings: its local candidates less those bound already.
    fn count_last<V: Visitor>(&self, d: usize, t: &Task, lc: &[u32], v: &mut V) -> u64 {
        let c = &self.cands[self.plan.order[d]];
        let mut fs = self.plan.anc[d];
        let mut conflicts = 0;
        if self.injective {
            for &p in &self.plan.overlaps[d] {
                if let Some(j) = c.index_of(t.ids[p]) {
                    if lc.binary_search(&j).is_ok() {
                        conflicts += 1;
                        fs |= self.plan.anc[p];
                    }
                }
            }
        }
        let n = (lc.len() - conflicts) as u64;
        if n == 0 {
            return fs;
        }
        if !v.add(n) {
            self.control.stop();
        }
        FULL
    }

    /// Binds the node at depth `d` to each of `lc` in turn; returns the failing set.
    fn visit<V: Visitor>(
        &self,
        d: usize,
        lc: &[u32],
        t: &mut Task,
        deeper: &mut [Vec<u32>],
        v: &mut V,
    ) -> u64 {
        let k = self.k();
        let nodes = &self.cands[self.plan.order[d]].nodes;
        let bit = 1u64 << (d % 64);
        let mut fs = 0u64;
        let mut i = 0;
        while i < lc.len() {
            if !self.tick(t) {
                return FULL;
            }
            if d + 1 < k && lc.len() - i >= 2 && self.wants_split() {
                if let Some(mut v2) = v.fork() {
                    let (a, b) = lc[i..].split_at((lc.len() - i) / 2);
                    let b = b.to_vec();
                    let mut t2 = t.clone();
                    let mut s2 = vec![Vec::new(); deeper.len()];
                    let me = rayon::current_thread_index();
                    self.pending.fetch_add(1, Ordering::Relaxed);
                    let (fa, fb) = rayon::join(
                        || self.visit(d, a, t, deeper, v),
                        || {
                            self.pending.fetch_sub(1, Ordering::Relaxed);
                            let stolen = rayon::current_thread_index() != me;
                            if stolen {
                                self.busy.fetch_add(1, Ordering::Relaxed);
                            }
                            let f = self.visit(d, &b, &mut t2, &mut s2, &mut v2);
                            if stolen {
                                self.busy.fetch_sub(1, Ordering::Relaxed);
                            }
                            f
                        },
                    );
                    v.merge(v2);
                    if self.failing_sets {
                        if fa & bit == 0 {
                            return fa;
                        }
                        if fb & bit == 0 {
                            return fb;
                        }
                    }
                    return fs | fa | fb;
                }
            }
            let j = lc[i];
            i += 1;
            let y = nodes[j as usize];
            if self.injective {
                if let Some(&p) = self.plan.overlaps[d].iter().find(|&&p| t.ids[p] == y) {
                    fs |= self.plan.anc[d] | self.plan.anc[p];
                    continue;
                }
            }
            t.idx[d] = j;
            t.ids[d] = y;
            let child = if d + 1 == k {
                if !v.complete(&t.ids) {
                    self.control.stop();
                }
                FULL
            } else {
                self.extend(d + 1, t, deeper, v)
            };
            if self.failing_sets && child & bit == 0 {
                return child;
            }
            fs |= child;
        }
        fs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In-place intersection equals the set intersection, by merge and by galloping.
    #[test]
    fn intersection_matches_the_set_intersection() {
        let cases: Vec<(Vec<u32>, Vec<u32>)> = vec![
            (vec![1, 3, 5, 7], vec![2, 3, 4, 7, 9]),
            (vec![], vec![1, 2]),
            (vec![1, 2], vec![]),
            (vec![5, 500, 999], (0..1000).collect()),
            (vec![0, 1001], (0..1000).collect()),
            (
                (0..100).map(|x| x * 3).collect(),
                (0..100).map(|x| x * 2).collect(),
            ),
        ];
        for (a, b) in cases {
            let want: Vec<u32> = a.iter().copied().filter(|x| b.contains(x)).collect();
            let mut got = a.clone();
            intersect_in_place(&mut got, &b);
            assert_eq!(got, want, "{a:?} ∩ {b:?}");
        }
    }

    /// The budget grants exactly the limit across many takers and stops the search.
    #[test]
    fn budget_grants_exactly_the_limit() {
        let control = Control::new(None);
        let budget = Budget::new(1000, &control);
        let granted: u64 = (0..64u64)
            .into_par_iter()
            .map(|i| (0..50).map(|_| budget.take(i % 7 + 1)).sum::<u64>())
            .sum();
        assert_eq!(granted, 1000);
        assert!(control.stopped());
        assert_eq!(budget.take(1), 0);
    }
}
