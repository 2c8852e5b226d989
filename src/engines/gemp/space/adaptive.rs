//! Stage 3, adaptive form — DP-iso's *adaptive order*: no order fixed in advance; the query's
//! relationships are directed along a BFS from the root (parents before children), a node is
//! *extendable* once all its parents are bound, and after each binding the next node is the
//! extendable one whose local candidates weigh least (leaves last). A candidate's weight estimates
//! the matches below it: 1 for a node without children, else the least, over the children whose
//! only parent it is, of the summed weights of its candidate neighbours among that child's
//! candidates (DP-iso's path-based weights, computed once per search from the tables).
//!
//! - Every unbound node next to a bound one keeps its local candidates up to date: binding `u`
//!   intersects each unbound neighbour's list with `u`'s table row towards it (the row itself,
//!   borrowed, for a neighbour's first bound neighbour). An update that empties a list ends the
//!   branch at once — a dead end is seen one binding early, whichever node it is; a node whose
//!   last parent was bound gets its list's weight.
//! - **Failing sets** over pattern nodes (not depths, as the order varies): a bound node's
//!   ancestors are itself and its bound neighbours' ancestors at the time it was bound; an emptied
//!   list fails with its node's ancestors, an injectivity conflict with both nodes' ancestors, and
//!   a child whose failing set misses the node just bound ends that node's loop (no other of its
//!   candidates can do better: the set's bindings alone admit no match, whatever the order below).
//! - **Counting**: the last unbound node is counted by its list's size less the bound nodes in
//!   it; when every unbound node's neighbours are all bound and no two unbound nodes can share a
//!   data node, they are counted together as the product of those sizes.
//! - Threads: the root's candidates are split into chunks, each searched on one thread with its own
//!   state and a forked visitor; while a thread is idle, the next level a busy thread reaches with
//!   at least [`SPLIT_ABOVE_LAST`] nodes left to bind splits its candidates into pieces (a copy of
//!   the state each, shared out by rayon's work stealing; such a level claims no failing set), so
//!   one heavy root candidate is shared too.
//!
//! The adaptive search competes with the static orders in [`super::Prepared::count`]'s rate
//! trials: it pays a few intersections per binding (one per unbound neighbour, not one per node)
//! and wins where the best next node depends on the bindings, on dense queries over correlated
//! data above all.
//!
//! Invariants: `State::ids[u]` is bound exactly when bit `u` of `State::bound` is set; the local
//! candidates of an unbound node are positions in its candidate list, sorted and distinct, equal to
//! the intersection of its bound neighbours' rows (`Lc::Unset` when it has none).

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::filter::Candidates;
use super::query_graph::QueryGraph;
use super::search::{Meter, Visitor, FULL, MAX_NODES, MAX_TAIL};
use super::tables::{table_id, EdgeTable};
use crate::exec::Control;

/// Root candidates per parallel task (at least one task per thread, a few per thread when there
/// are enough candidates).
const TASKS_PER_THREAD: usize = 16;

/// Nodes left to bind from which a level's candidates are split among threads while one is idle
/// (below that, a piece's subtree is too small to pay for the copy of the state).
const SPLIT_ABOVE_LAST: usize = 3;

/// Where an unbound node's local candidates are.
#[derive(Debug, Clone, Copy)]
enum Lc<'a> {
    /// No bound neighbour yet.
    Unset,
    /// One table row (the node's only bound neighbour's).
    Row(&'a [u32]),
    /// An intersection, in buffer slot `n * k + depth` of the state.
    Buf(usize),
}

/// One thread's search state.
#[derive(Clone)]
struct State<'a> {
    /// Bound pattern nodes (bit mask).
    bound: u64,
    /// Per pattern node: the data node it is bound to.
    ids: Vec<u32>,
    /// Per pattern node: the local candidates while unbound.
    lc: Vec<Lc<'a>>,
    /// Per unbound pattern node: the union of its bound neighbours' ancestors.
    lc_anc: Vec<u64>,
    /// Per extendable pattern node: the summed weights of its local candidates.
    weight: Vec<f64>,
    /// Per bound pattern node: itself and its bound neighbours' ancestors when it was bound.
    anc: Vec<u64>,
    /// Intersection buffers, `k` per pattern node (one per depth).
    bufs: Vec<Vec<u32>>,
    /// What the bindings below changed: (node, its previous list, its previous `lc_anc`).
    undo: Vec<(usize, Lc<'a>, u64)>,
    ticks: u32,
}

impl<'a> State<'a> {
    fn new(k: usize) -> Self {
        State {
            bound: 0,
            ids: vec![u32::MAX; k],
            lc: vec![Lc::Unset; k],
            lc_anc: vec![0; k],
            weight: vec![0.0; k],
            anc: vec![0; k],
            bufs: vec![Vec::new(); k * k],
            undo: Vec::new(),
            ticks: 0,
        }
    }

    #[inline]
    fn list(&self, u: usize) -> &[u32] {
        match self.lc[u] {
            Lc::Unset => &[],
            Lc::Row(r) => r,
            Lc::Buf(slot) => &self.bufs[slot],
        }
    }
}

/// What the adaptive search needs of a query and its candidate space, computed once per query
/// (the races of [`super::Prepared::count`] run it several times).
#[derive(Debug, Clone)]
pub struct AdaptivePlan {
    /// Per pattern node: (neighbour, the table walked from this node towards it).
    towards: Vec<Vec<(usize, usize)>>,
    /// Per pattern node: its neighbours (bit mask).
    adjacent: Vec<u64>,
    /// Per pattern node: its parents in the BFS orientation (bit mask).
    parents: Vec<u64>,
    /// Per pattern node: true for a leaf of the query (one neighbour), bound last.
    leaf: Vec<bool>,
    /// Per pattern node and candidate position: the candidate's weight (see the module docs).
    weights: Vec<Vec<f64>>,
    /// Per pattern node: the nodes whose candidate sets share a data node with its own (bit mask;
    /// the only bindings an injectivity check must look at).
    overlaps: Vec<u64>,
    root: usize,
}

/// The adaptive-order search over one candidate space.
pub struct AdaptiveSearcher<'a> {
    cands: &'a [Candidates],
    tables: &'a [EdgeTable],
    plan: &'a AdaptivePlan,
    injective: bool,
    failing_sets: bool,
    control: &'a Control,
    threads: usize,
    /// Visits, budget, pieces handed to other threads.
    meter: Meter,
    /// Tasks (root chunks, split pieces) being searched now.
    busy: AtomicUsize,
}

impl AdaptivePlan {
    /// The plan of query `q` (connected, at most [`MAX_NODES`] nodes) over `cands` and `tables`.
    /// The root is DP-iso's: the fewest candidates per neighbour.
    pub fn new(q: &QueryGraph, cands: &[Candidates], tables: &[EdgeTable]) -> Self {
        let k = q.len();
        assert!(k <= MAX_NODES, "the adaptive search takes at most 64 nodes");
        let mut towards = vec![Vec::new(); k];
        let mut adjacent = vec![0u64; k];
        for (u, incs) in q.incident.iter().enumerate() {
            for inc in incs {
                towards[u].push((inc.other, table_id(inc.rel, inc.forward)));
                adjacent[u] |= 1 << inc.other;
            }
        }
        let mut overlaps = vec![0u64; k];
        for u in 0..k {
            for w in 0..u {
                if cands[u].overlaps(&cands[w]) {
                    overlaps[u] |= 1 << w;
                    overlaps[w] |= 1 << u;
                }
            }
        }
        let root = (0..k)
            .min_by(|&a, &b| {
                let score = |u: usize| cands[u].len() as f64 / q.incident[u].len().max(1) as f64;
                score(a).total_cmp(&score(b))
            })
            .unwrap_or(0);
        // BFS from the root: a node's parents are its neighbours reached before it.
        let mut bfs = vec![root];
        let mut seen = 1u64 << root;
        let mut i = 0;
        while i < bfs.len() {
            let u = bfs[i];
            i += 1;
            for &(w, _) in &towards[u] {
                if seen & (1 << w) == 0 {
                    seen |= 1 << w;
                    bfs.push(w);
                }
            }
        }
        let mut parents = vec![0u64; k];
        for (at, &u) in bfs.iter().enumerate() {
            for &earlier in &bfs[..at] {
                if adjacent[u] & (1 << earlier) != 0 {
                    parents[u] |= 1 << earlier;
                }
            }
        }
        // Weights, children before parents.
        let mut weights: Vec<Vec<f64>> =
            cands.iter().map(|c| vec![f64::INFINITY; c.len()]).collect();
        for &u in bfs.iter().rev() {
            let mut any = false;
            for &(c, tb) in &towards[u] {
                if parents[c] != 1 << u || towards[u].iter().any(|&(x, t)| x == c && t < tb) {
                    // Not a child whose only parent is `u` (or a second relationship to it).
                    continue;
                }
                any = true;
                let (table, below) = (&tables[tb], &weights[c]);
                let sums: Vec<f64> = (0..cands[u].len() as u32)
                    .map(|i| table.row(i).iter().map(|&j| below[j as usize]).sum())
                    .collect();
                for (w, s) in weights[u].iter_mut().zip(sums) {
                    *w = w.min(s);
                }
            }
            if !any {
                weights[u].iter_mut().for_each(|w| *w = 1.0);
            }
        }
        let leaf = q.incident.iter().map(|incs| incs.len() == 1).collect();
        AdaptivePlan {
            towards,
            adjacent,
            parents,
            leaf,
            weights,
            overlaps,
            root,
        }
    }

    /// The pattern node bound first.
    pub fn root(&self) -> usize {
        self.root
    }
}

impl<'a> AdaptiveSearcher<'a> {
    /// A search of `plan` over `cands` and `tables` (those it was made from); `injective` =
    /// node-isomorphism.
    pub fn new(
        plan: &'a AdaptivePlan,
        cands: &'a [Candidates],
        tables: &'a [EdgeTable],
        injective: bool,
        failing_sets: bool,
        control: &'a Control,
    ) -> Self {
        AdaptiveSearcher {
            cands,
            tables,
            plan,
            injective,
            failing_sets,
            control,
            threads: rayon::current_num_threads(),
            meter: Meter::new(),
            busy: AtomicUsize::new(0),
        }
    }

    /// Gives up (see [`Self::exhausted`]) after about `visits` candidates visited.
    pub fn with_visit_budget(mut self, visits: u64) -> Self {
        self.meter.set_visit_budget(visits);
        self
    }

    /// The search on the calling thread only.
    pub fn sequential(mut self) -> Self {
        self.threads = 1;
        self
    }

    /// What the search counted: visits, whether it gave up, pieces split off for other threads.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    fn k(&self) -> usize {
        self.cands.len()
    }

    /// Runs the whole search into `v`; on several threads when `v` can fork. A visitor that does
    /// not count the last node gets each match by pattern node (`ids[u]`: node `u`'s binding), so
    /// a [`super::Rows`] visitor takes the identity order.
    pub fn run<V: Visitor>(&self, v: &mut V) {
        let n = self.cands[self.plan.root].len();
        if n == 0 {
            return;
        }
        if self.threads > 1 && v.fork().is_some() {
            let tasks = (self.threads * TASKS_PER_THREAD).min(n);
            let chunk = n.div_ceil(tasks);
            let work: Vec<(usize, V)> = (0..n)
                .step_by(chunk)
                .filter_map(|from| Some((from, v.fork()?)))
                .collect();
            let done: Vec<V> = work
                .into_par_iter()
                .with_max_len(1)
                .map(|(from, mut w)| {
                    if !self.control.stopped() {
                        self.busy.fetch_add(1, Ordering::Relaxed);
                        self.search_root(from..(from + chunk).min(n), &mut w);
                        self.busy.fetch_sub(1, Ordering::Relaxed);
                    }
                    w
                })
                .collect();
            for w in done {
                v.merge(w);
            }
        } else {
            self.search_root(0..n, v);
        }
    }

    /// Binds the root to each of the candidate positions `range` in turn.
    fn search_root<V: Visitor>(&self, range: std::ops::Range<usize>, v: &mut V) {
        let mut s = State::new(self.k());
        for j in range {
            if !self.tick(&mut s) {
                return;
            }
            let fs = self.bind(self.plan.root, j as u32, 1, &mut s, v);
            if self.failing_sets && fs & (1u64 << self.plan.root) == 0 {
                // The failure does not depend on the root's binding: no other can match.
                return;
            }
        }
    }

    /// True (after stopping) once the deadline passed or the visit budget ran out.
    #[inline]
    fn tick(&self, s: &mut State<'_>) -> bool {
        self.meter.tick(&mut s.ticks, self.control)
    }

    /// Binds `u` to its candidate at position `j`, updates its unbound neighbours' lists and goes
    /// on below (`depth` nodes bound with `u`); undoes it all before returning the failing set.
    fn bind<V: Visitor>(
        &self,
        u: usize,
        j: u32,
        depth: usize,
        s: &mut State<'a>,
        v: &mut V,
    ) -> u64 {
        let k = self.k();
        let bit = 1u64 << u;
        s.ids[u] = self.cands[u].nodes[j as usize];
        s.bound |= bit;
        s.anc[u] = bit | s.lc_anc[u];
        let mark = s.undo.len();
        let mut emptied = None;
        for &(w, tb) in &self.plan.towards[u] {
            if s.bound & (1 << w) != 0 {
                continue;
            }
            let row = self.tables[tb].row(j);
            let before = s.lc[w];
            s.undo.push((w, before, s.lc_anc[w]));
            s.lc_anc[w] |= s.anc[u];
            let now = match before {
                Lc::Unset => Lc::Row(row),
                Lc::Row(r) => {
                    let slot = w * k + depth;
                    let mut buf = std::mem::take(&mut s.bufs[slot]);
                    super::search::intersect_into(r, row, &mut buf);
                    s.bufs[slot] = buf;
                    Lc::Buf(slot)
                }
                Lc::Buf(old) if old == w * k + depth => {
                    // A second relationship between `u` and `w`: this binding's list, narrowed.
                    super::search::intersect_in_place(&mut s.bufs[old], row);
                    Lc::Buf(old)
                }
                Lc::Buf(old) => {
                    let slot = w * k + depth;
                    let mut buf = std::mem::take(&mut s.bufs[slot]);
                    super::search::intersect_into(&s.bufs[old], row, &mut buf);
                    s.bufs[slot] = buf;
                    Lc::Buf(slot)
                }
            };
            s.lc[w] = now;
            if s.list(w).is_empty() {
                emptied = Some(w);
                break;
            }
            if self.plan.parents[w] & !s.bound == 0 {
                // Extendable now: its list is final until it is bound.
                let weights = &self.plan.weights[w];
                s.weight[w] = s.list(w).iter().map(|&j| weights[j as usize]).sum();
            }
        }
        let fs = match emptied {
            Some(w) => (1u64 << w) | s.lc_anc[w],
            None if depth == k => {
                if !v.complete(&s.ids) {
                    self.control.stop();
                }
                FULL
            }
            None => self.descend(depth, s, v),
        };
        while s.undo.len() > mark {
            if let Some((w, lc, anc)) = s.undo.pop() {
                s.lc[w] = lc;
                s.lc_anc[w] = anc;
            }
        }
        s.bound &= !bit;
        fs
    }

    /// The bound node of the `overlaps` of `u` bound to data node `y`, if any.
    #[inline]
    fn conflict(&self, u: usize, y: u32, s: &State<'_>) -> Option<usize> {
        let mut m = self.plan.overlaps[u] & s.bound;
        while m != 0 {
            let p = m.trailing_zeros() as usize;
            if s.ids[p] == y {
                return Some(p);
            }
            m &= m - 1;
        }
        None
    }

    /// The size of `u`'s local candidates less the bound nodes in them (under isomorphism), and
    /// the ancestors of those bound nodes.
    fn free_candidates(&self, u: usize, s: &State<'_>) -> (usize, u64) {
        let lc = s.list(u);
        if !self.injective {
            return (lc.len(), 0);
        }
        let c = &self.cands[u];
        let (mut taken, mut anc) = (0, 0);
        let mut m = self.plan.overlaps[u] & s.bound;
        while m != 0 {
            let p = m.trailing_zeros() as usize;
            m &= m - 1;
            if let Some(i) = c.index_of(s.ids[p]) {
                if lc.binary_search(&i).is_ok() {
                    taken += 1;
                    anc |= s.anc[p];
                }
            }
        }
        (lc.len() - taken, anc)
    }

    /// With `depth` nodes bound (fewer than all), counts what is left when it can be counted, else
    /// binds the unbound node with the fewest local candidates in every way.
    fn descend<V: Visitor>(&self, depth: usize, s: &mut State<'a>, v: &mut V) -> u64 {
        let k = self.k();
        let all = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        let unbound = all & !s.bound;
        let left = k - depth;
        if v.counts_last() && left <= MAX_TAIL {
            if let Some(fs) = self.count_rest(unbound, s, v) {
                return fs;
            }
        }
        // The extendable node whose local candidates weigh least, leaves last.
        let mut best = usize::MAX;
        let mut best_key = (true, f64::INFINITY);
        let mut m = unbound;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.plan.parents[w] & !s.bound != 0 {
                continue;
            }
            // Non-leaves before leaves, then the lighter.
            let key = (self.plan.leaf[w], s.weight[w]);
            let lighter = match (key.0, best_key.0) {
                (false, true) => true,
                (true, false) => false,
                _ => key.1 < best_key.1,
            };
            if best == usize::MAX || lighter {
                best = w;
                best_key = key;
            }
        }
        if best == usize::MAX {
            // No unbound node next to a bound one: a disconnected query (not eligible).
            return FULL;
        }
        let u = best;
        if self.threads > 1
            && depth + SPLIT_ABOVE_LAST <= k
            && s.list(u).len() > 1
            && self.busy.load(Ordering::Relaxed) < self.threads
        {
            if let Some(fs) = self.descend_split(u, depth, s, v) {
                return fs;
            }
        }
        let bit = 1u64 << u;
        let own = bit | s.lc_anc[u];
        let mut fs = 0u64;
        let mut i = 0;
        while i < s.list(u).len() {
            if !self.tick(s) {
                return FULL;
            }
            let j = s.list(u)[i];
            i += 1;
            if self.injective {
                let y = self.cands[u].nodes[j as usize];
                if let Some(p) = self.conflict(u, y, s) {
                    fs |= own | s.anc[p];
                    continue;
                }
            }
            let child = self.bind(u, j, depth + 1, s, v);
            if self.failing_sets && child & bit == 0 {
                return child;
            }
            fs |= child;
        }
        fs
    }

    /// Binds `u` to each of its local candidates, the list split into pieces searched in parallel
    /// (each with a copy of the state and a forked visitor, merged into `v`). Claims no failing
    /// set. `None` when `v` cannot fork (nothing done).
    fn descend_split<V: Visitor>(
        &self,
        u: usize,
        depth: usize,
        s: &State<'a>,
        v: &mut V,
    ) -> Option<u64> {
        let list = s.list(u).to_vec();
        let piece = list.len().div_ceil(self.threads * 4).max(1);
        let mut work = Vec::new();
        for chunk in list.chunks(piece) {
            work.push((chunk, v.fork()?));
        }
        // This task waits for (and helps with) the pieces, which count as busy instead.
        self.busy.fetch_sub(1, Ordering::Relaxed);
        self.meter.hand_over(work.len() as u64);
        let done: Vec<V> = work
            .into_par_iter()
            .with_max_len(1)
            .map(|(chunk, mut w)| {
                self.busy.fetch_add(1, Ordering::Relaxed);
                let mut s = s.clone();
                for &j in chunk {
                    if !self.tick(&mut s) {
                        break;
                    }
                    if self.injective {
                        let y = self.cands[u].nodes[j as usize];
                        if self.conflict(u, y, &s).is_some() {
                            continue;
                        }
                    }
                    self.bind(u, j, depth + 1, &mut s, &mut w);
                }
                self.busy.fetch_sub(1, Ordering::Relaxed);
                w
            })
            .collect();
        self.busy.fetch_add(1, Ordering::Relaxed);
        for w in done {
            v.merge(w);
        }
        Some(FULL)
    }

    /// Counts the matches of the unbound nodes `unbound` when they can be counted without
    /// binding them: one node, or nodes whose neighbours are all bound and no two of which can
    /// share a data node (the product of their free candidates). `None` otherwise.
    fn count_rest<V: Visitor>(&self, unbound: u64, s: &State<'_>, v: &mut V) -> Option<u64> {
        let mut m = unbound;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.plan.adjacent[w] & unbound != 0
                || (self.injective && self.plan.overlaps[w] & unbound != 0)
            {
                return None;
            }
        }
        let mut product: u128 = 1;
        let mut m = unbound;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let (free, taken) = self.free_candidates(w, s);
            if free == 0 {
                // This node alone admits no binding, whatever the others'.
                return Some((1u64 << w) | s.lc_anc[w] | taken);
            }
            product = product.saturating_mul(free as u128);
        }
        if !v.add(u64::try_from(product).unwrap_or(u64::MAX)) {
            self.control.stop();
        }
        Some(FULL)
    }
}
