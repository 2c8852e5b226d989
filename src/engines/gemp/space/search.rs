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
//!   of its local candidates less the nodes bound already, not visited; and when the order ends
//!   with up to [`MAX_TAIL`] nodes none of which is adjacent to another of them (leaves, say),
//!   those are counted together once the nodes before them are bound: the product of their local
//!   candidate counts, and under isomorphism the number of tuples of distinct nodes from those
//!   lists by inclusion–exclusion over the set partitions of the tail (a block's term: the size of
//!   the intersection of its lists, times `(-1)^(b-1) (b-1)!` for a block of `b` nodes). Only
//!   partitions whose blocks join nodes whose candidate lists can share a node are kept
//!   (`TailTerms`, computed once per search): with no such pair the count is the product of
//!   the list sizes, each less the bound nodes in it, and only nodes in a shared block have their
//!   lists' nodes looked at.
//! - **Work stealing**: a worker that finds a thread idle and no split-off work waiting hands the
//!   second half of what is left of its *shallowest* unfinished candidate list (whose candidates
//!   head the largest subtrees) to a new task in a `rayon` scope, with its bindings above that depth
//!   and a forked visitor: one heavy subtree is shared among threads at any depth, not only at the
//!   first node, and the pieces handed over are as large as they can be.
//!
//! Invariants: `Task::ids[..d]` are the nodes bound at depths `0..d` (distinct under isomorphism),
//! `Task::idx[p]` the position of `ids[p]` in its pattern node's candidate list; a depth whose list
//! was partly handed over reports the full failing set (its other share's outcome is unknown).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use super::filter::Candidates;
use super::query_graph::QueryGraph;
use super::tables::{table_id, EdgeTable};
use crate::exec::{Control, Sink};

/// The failing set of a subtree that has a match (prunes nothing).
pub const FULL: u64 = u64::MAX;

/// Most pattern nodes the search takes (failing sets are 64-bit masks of depths).
pub const MAX_NODES: usize = 64;

/// Most trailing nodes counted together (see the module docs): 4 nodes have 15 set partitions.
pub const MAX_TAIL: usize = 4;

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
    /// The first depth of the tail counted together when counting ([`super::order::tail_start`]).
    pub tail_start: usize,
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
        let overlaps = (0..k)
            .map(|d| {
                (0..d)
                    .filter(|&p| cands[order[p]].overlaps(&cands[order[d]]))
                    .collect()
            })
            .collect();
        SearchPlan {
            tail_start: super::order::tail_start(q, &order),
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

/// Where the local candidates of one depth are: a row of a candidate-edge table (or the root
/// list), or the task's own buffer for that depth (an intersection, or a list handed over by
/// another task).
#[derive(Debug, Clone, Copy)]
enum List<'a> {
    Row(&'a [u32]),
    Buf,
}

/// One thread's position in the search: the bindings, and per depth the list being walked and how
/// far, so that the rest of a shallow list can be handed to an idle thread.
#[derive(Debug)]
struct Task<'a> {
    idx: Vec<u32>,
    ids: Vec<u32>,
    ticks: u32,
    /// Per depth: the local candidates.
    lists: Vec<List<'a>>,
    /// Per depth: the buffer behind [`List::Buf`].
    bufs: Vec<Vec<u32>>,
    /// Per depth: the position of the next candidate to bind.
    next: Vec<usize>,
    /// Per depth: the end of this task's share of the list.
    end: Vec<usize>,
    /// Per depth: part of the list went to another task, so this one's failing set is unknown.
    split: Vec<bool>,
    /// Per node of the counted tail: its local candidates as data node ids, less those bound.
    tail_ids: Vec<Vec<u32>>,
    /// Scratch for intersections of the tail's lists.
    tail_scratch: (Vec<u32>, Vec<u32>),
}

impl<'a> Task<'a> {
    fn new(k: usize) -> Self {
        Task {
            idx: vec![0; k],
            ids: vec![u32::MAX; k],
            ticks: 0,
            lists: vec![List::Buf; k],
            bufs: vec![Vec::new(); k],
            next: vec![0; k],
            end: vec![0; k],
            split: vec![false; k],
            tail_ids: Vec::new(),
            tail_scratch: (Vec::new(), Vec::new()),
        }
    }

    /// The local candidates of depth `d`.
    #[inline]
    fn list(&self, d: usize) -> &[u32] {
        match self.lists[d] {
            List::Row(r) => r,
            List::Buf => &self.bufs[d],
        }
    }

    /// A task that walks `rest` at depth `d` under this task's bindings of depths `0..d`.
    fn resume(&self, d: usize, rest: Vec<u32>) -> Task<'a> {
        let mut t = Task::new(self.ids.len());
        t.idx[..d].copy_from_slice(&self.idx[..d]);
        t.ids[..d].copy_from_slice(&self.ids[..d]);
        t.bufs[d] = rest;
        t
    }
}

/// What a search counts as it goes, shared by its threads: candidate visits against a budget,
/// whether it gave up, and the work handed to other threads ([`Searcher`] and
/// [`super::adaptive::AdaptiveSearcher`]).
#[derive(Debug)]
pub struct Meter {
    /// Candidates visited, in units of 1,024 (updated every 1,024 per task).
    visited: AtomicU64,
    /// Units of 1,024 visits after which the search gives up.
    visit_budget: u64,
    /// Set once the visit budget ran out.
    exhausted: AtomicBool,
    /// Tasks handed to other threads.
    handed_over: AtomicU64,
}

impl Meter {
    /// No visits yet, no budget.
    pub fn new() -> Self {
        Meter {
            visited: AtomicU64::new(0),
            visit_budget: u64::MAX,
            exhausted: AtomicBool::new(false),
            handed_over: AtomicU64::new(0),
        }
    }

    /// Gives up after about `visits` candidates visited.
    pub fn set_visit_budget(&mut self, visits: u64) {
        self.visit_budget = visits / 1024;
    }

    /// Counts one visit of a task whose own count is `ticks`; false once the budget ran out,
    /// the deadline or memory limit passed (checked every 1,024 visits) or `control` was stopped.
    #[inline]
    pub fn tick(&self, ticks: &mut u32, control: &Control) -> bool {
        *ticks = ticks.wrapping_add(1);
        if *ticks % 1024 == 0 {
            let units = self.visited.fetch_add(1, Ordering::Relaxed) + 1;
            if units > self.visit_budget {
                self.exhausted.store(true, Ordering::Relaxed);
            }
            if self.exhausted.load(Ordering::Relaxed) {
                return false;
            }
            return control.check_deadline();
        }
        !control.stopped() && !self.exhausted.load(Ordering::Relaxed)
    }

    /// True when the search gave up at its visit budget: what it found is incomplete.
    pub fn exhausted(&self) -> bool {
        self.exhausted.load(Ordering::Relaxed)
    }

    /// Candidates visited so far, rounded down to thousands (1,024 per unit, per task).
    pub fn visited(&self) -> u64 {
        self.visited.load(Ordering::Relaxed) * 1024
    }

    /// Tasks handed to other threads so far.
    pub fn handed_over(&self) -> u64 {
        self.handed_over.load(Ordering::Relaxed)
    }

    /// Records `n` more tasks handed to other threads.
    pub fn hand_over(&self, n: u64) {
        self.handed_over.fetch_add(n, Ordering::Relaxed);
    }
}

impl Default for Meter {
    fn default() -> Self {
        Self::new()
    }
}

/// Where split-off work goes: the scope its tasks run in, and the visitors they end with (merged
/// into the caller's when the scope ends).
struct Spawner<'x, 's, V> {
    scope: &'x rayon::Scope<'s>,
    done: &'s Mutex<Vec<V>>,
}

impl<V> Clone for Spawner<'_, '_, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V> Copy for Spawner<'_, '_, V> {}

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
    fn row(&self, t: &Task<'_>) -> &'a [u32] {
        let i = t.idx[self.parent] as usize;
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// Intersects sorted, distinct `a` and `b` into `out` (cleared first).
pub(super) fn intersect_into(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
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
    /// Visits, budget, hand-overs ([`Searcher::with_visit_budget`]).
    meter: Meter,
    /// The first depth of the tail counted together when counting (see the module docs); the
    /// last depth when no longer tail qualifies.
    tail_start: usize,
    /// How the tail's distinct tuples are counted (under isomorphism).
    tail_terms: TailTerms,
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
            meter: Meter::new(),
            tail_start: plan.tail_start,
            tail_terms: TailTerms::new(plan, plan.tail_start),
        }
    }

    /// Gives up (see [`Self::exhausted`]) after about `visits` candidates visited.
    pub fn with_visit_budget(mut self, visits: u64) -> Self {
        self.meter.set_visit_budget(visits);
        self
    }

    /// The search on the calling thread only (no work handed to other threads).
    pub fn sequential(mut self) -> Self {
        self.threads = 1;
        self
    }

    /// What the search counted: visits, whether it gave up, hand-overs.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    fn k(&self) -> usize {
        self.plan.order.len()
    }

    /// Runs the whole search into `v`, handing work to idle threads when `v` can fork.
    pub fn run<V: Visitor>(&self, v: &mut V) {
        let mut task = Task::new(self.k());
        if self.threads > 1 && v.fork().is_some() {
            let done = Mutex::new(Vec::new());
            self.busy.store(1, Ordering::Relaxed);
            rayon::scope(|scope| {
                let spawner = Spawner { scope, done: &done };
                self.extend(0, &mut task, v, Some(spawner));
                self.busy.fetch_sub(1, Ordering::Relaxed);
            });
            for other in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
                v.merge(other);
            }
        } else {
            self.extend(0, &mut task, v, None);
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
        let plan: &'a SearchPlan = self.plan;
        plan.root
            .par_chunks(64)
            .map(|chunk| {
                let mut v = make();
                let mut task = Task::new(k);
                task.lists[0] = List::Row(chunk);
                if !self.control.stopped() {
                    self.visit(0, &mut task, &mut v, None);
                }
                v
            })
            .collect()
    }

    /// True (after stopping) once the deadline or memory limit passed; checked every 1,024 steps.
    #[inline]
    fn tick(&self, t: &mut Task<'_>) -> bool {
        self.meter.tick(&mut t.ticks, self.control)
    }

    #[inline]
    fn wants_split(&self) -> bool {
        self.threads > 1
            && self.pending.load(Ordering::Relaxed) == 0
            && self.busy.load(Ordering::Relaxed) < self.threads
    }

    /// Sets the local candidates of the node at depth `d` given the bound ones.
    #[inline]
    fn local_candidates(&self, d: usize, t: &mut Task<'a>) {
        let plan: &'a SearchPlan = self.plan;
        let back = &self.back[d];
        t.lists[d] = match back.len() {
            0 => List::Row(&plan.root),
            1 => List::Row(back[0].row(t)),
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
                let mut buf = std::mem::take(&mut t.bufs[d]);
                intersect_into(best, back[second].row(t), &mut buf);
                for (i, b) in back.iter().enumerate() {
                    if buf.is_empty() {
                        break;
                    }
                    if i != shortest && i != second {
                        intersect_in_place(&mut buf, b.row(t));
                    }
                }
                t.bufs[d] = buf;
                List::Buf
            }
        };
    }

    /// Binds the node at depth `d` in every way; returns the failing set.
    fn extend<'s, V: Visitor + 's>(
        &'s self,
        d: usize,
        t: &mut Task<'a>,
        v: &mut V,
        spawner: Option<Spawner<'_, 's, V>>,
    ) -> u64 {
        if d == self.tail_start && d + 1 < self.k() && v.counts_last() {
            return self.count_tail(d, t, v);
        }
        self.local_candidates(d, t);
        if t.list(d).is_empty() {
            return self.plan.anc[d];
        }
        if d + 1 == self.k() && v.counts_last() {
            return self.count_last(d, t, v);
        }
        self.visit(d, t, v, spawner)
    }

    /// Counts the last node's bindings: its local candidates less those bound already.
    fn count_last<V: Visitor>(&self, d: usize, t: &Task<'_>, v: &mut V) -> u64 {
        let c = &self.cands[self.plan.order[d]];
        let lc = t.list(d);
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

    /// Counts the bindings of the tail `d..k` (no node of it adjacent to another; see the module
    /// docs) under the bindings of `0..d`.
    fn count_tail<V: Visitor>(&self, d: usize, t: &mut Task<'a>, v: &mut V) -> u64 {
        if !self.tick(t) {
            return FULL;
        }
        let k = self.k();
        for j in d..k {
            self.local_candidates(j, t);
            if t.list(j).is_empty() {
                return self.plan.anc[j];
            }
        }
        let n = if self.injective {
            self.distinct_tuples(d, t)
        } else {
            (d..k).map(|j| t.list(j).len() as u128).product()
        };
        if n == 0 {
            // Conflicts with bound nodes, or among the tail's: no pruning claimed.
            return FULL;
        }
        if !v.add(u64::try_from(n).unwrap_or(u64::MAX)) {
            self.control.stop();
        }
        FULL
    }

    /// Under isomorphism, the tuples of distinct nodes, one from each tail node's local
    /// candidates less the nodes bound at `0..d`: inclusion–exclusion over the set partitions of
    /// the tail whose blocks hold only nodes with overlapping candidate sets ([`TailTerms`]). A
    /// single node's term is its list's length less the bound nodes in it (no copy); only the nodes
    /// of a block of two or more are turned into data node ids and intersected.
    fn distinct_tuples(&self, d: usize, t: &mut Task<'a>) -> u128 {
        let m = self.k() - d;
        let terms = &self.tail_terms;
        let mut sizes = [0u128; 1 << MAX_TAIL];
        for i in 0..m {
            let depth = d + i;
            let c = &self.cands[self.plan.order[depth]];
            let lc = t.list(depth);
            let mut conflicts = 0;
            for &p in &self.plan.overlaps[depth] {
                if p < d {
                    if let Some(j) = c.index_of(t.ids[p]) {
                        if lc.binary_search(&j).is_ok() {
                            conflicts += 1;
                        }
                    }
                }
            }
            sizes[1 << i] = (lc.len() - conflicts) as u128;
        }
        if terms.blocks.is_empty() {
            return (0..m).map(|i| sizes[1 << i]).product();
        }
        let mut ids = std::mem::take(&mut t.tail_ids);
        ids.resize_with(m, Vec::new);
        for (i, out) in ids.iter_mut().enumerate() {
            if terms.shared & (1 << i) == 0 {
                continue;
            }
            let depth = d + i;
            let nodes = &self.cands[self.plan.order[depth]].nodes;
            out.clear();
            out.extend(t.list(depth).iter().map(|&j| nodes[j as usize]));
            for &p in &self.plan.overlaps[depth] {
                if p < d {
                    if let Ok(at) = out.binary_search(&t.ids[p]) {
                        out.remove(at);
                    }
                }
            }
        }
        // The size of the intersection of the lists in each block of two or more nodes.
        let (mut x, mut y) = std::mem::take(&mut t.tail_scratch);
        for &mask in &terms.blocks {
            let first = mask.trailing_zeros() as usize;
            x.clear();
            x.extend_from_slice(&ids[first]);
            for i in (first + 1..m).filter(|&i| mask & (1 << i) != 0) {
                if x.is_empty() {
                    break;
                }
                y.clear();
                intersect_into(&x, &ids[i], &mut y);
                std::mem::swap(&mut x, &mut y);
            }
            sizes[mask] = x.len() as u128;
        }
        t.tail_scratch = (x, y);
        t.tail_ids = ids;
        u128::try_from(terms.sum(&sizes).max(0)).unwrap_or(0)
    }

    /// Hands the second half of what is left of the shallowest list of `t` with candidates left
    /// (above the last depth; at depth `d`, whose candidate at `next[d]` is not bound yet, two or
    /// more) to a new task in `spawner`'s scope, with a forked visitor — one candidate when one is
    /// left: the thread goes on with its current subtree, the other thread takes the next one. The
    /// shallowest list: its candidates head the largest subtrees.
    fn split<'s, V: Visitor + 's>(
        &'s self,
        d: usize,
        t: &mut Task<'a>,
        v: &V,
        spawner: Spawner<'_, 's, V>,
    ) {
        let k = self.k();
        let left = |s: usize| t.end[s] - t.next[s];
        let Some(s) = (0..=d).find(|&s| s + 1 < k && left(s) >= if s == d { 2 } else { 1 }) else {
            return;
        };
        let Some(mut v2) = v.fork() else {
            return;
        };
        let mid = t.next[s] + (t.end[s] - t.next[s]) / 2;
        let rest = t.list(s)[mid..t.end[s]].to_vec();
        t.end[s] = mid;
        t.split[s] = true;
        let mut t2 = t.resume(s, rest);
        let done = spawner.done;
        self.pending.fetch_add(1, Ordering::Relaxed);
        self.meter.hand_over(1);
        spawner.scope.spawn(move |scope| {
            self.pending.fetch_sub(1, Ordering::Relaxed);
            self.busy.fetch_add(1, Ordering::Relaxed);
            self.visit(s, &mut t2, &mut v2, Some(Spawner { scope, done }));
            self.busy.fetch_sub(1, Ordering::Relaxed);
            done.lock().unwrap_or_else(|e| e.into_inner()).push(v2);
        });
    }

    /// Binds the node at depth `d` to each of its local candidates in turn (this task's share of
    /// them); returns the failing set.
    fn visit<'s, V: Visitor + 's>(
        &'s self,
        d: usize,
        t: &mut Task<'a>,
        v: &mut V,
        spawner: Option<Spawner<'_, 's, V>>,
    ) -> u64 {
        let k = self.k();
        let nodes = &self.cands[self.plan.order[d]].nodes;
        let bit = 1u64 << (d % 64);
        let mut fs = 0u64;
        // A table row outlives the task's borrow: read it directly (the common case).
        let row = match t.lists[d] {
            List::Row(r) => Some(r),
            List::Buf => None,
        };
        let mut i = 0;
        t.next[d] = 0;
        t.end[d] = t.list(d).len();
        t.split[d] = false;
        while i < t.end[d] {
            if !self.tick(t) {
                return FULL;
            }
            if let Some(spawner) = spawner {
                if self.wants_split() {
                    self.split(d, t, v, spawner);
                }
            }
            let j = match row {
                Some(r) => r[i],
                None => t.bufs[d][i],
            };
            i += 1;
            t.next[d] = i;
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
                self.extend(d + 1, t, v, spawner)
            };
            if self.failing_sets && child & bit == 0 {
                // No other candidate here can do better — but a share handed to another task
                // leaves this depth's failing set unknown.
                return if t.split[d] { FULL } else { child };
            }
            fs |= child;
        }
        if t.split[d] {
            FULL
        } else {
            fs
        }
    }
}

/// The terms of the inclusion–exclusion that counts tuples of distinct nodes from the tail's
/// lists: Σ over the set partitions π of the tail of Π over π's blocks `B` of
/// `(-1)^(|B|-1) (|B|-1)! · |∩ lists of B|`. A block holding two nodes whose candidate sets do not
/// overlap has an empty intersection, so only partitions whose blocks are cliques of the overlap
/// relation are kept; without any overlapping pair the sum is the product of the list sizes.
#[derive(Debug, Clone, Default)]
struct TailTerms {
    /// Per kept partition: its coefficient and its blocks (bit masks of tail positions).
    terms: Vec<(i128, Vec<usize>)>,
    /// The blocks of two or more nodes that some term uses (their intersections are needed).
    blocks: Vec<usize>,
    /// The tail positions in those blocks (their lists are turned into node ids).
    shared: usize,
}

impl TailTerms {
    /// The terms for the tail `start..k` of `plan` (none when counting it takes no
    /// inclusion–exclusion: no two tail nodes' candidate sets overlap).
    fn new(plan: &SearchPlan, start: usize) -> Self {
        let k = plan.order.len();
        let m = k.saturating_sub(start).min(MAX_TAIL);
        if m < 2 || start + m != k {
            return TailTerms::default();
        }
        let overlap = |a: usize, b: usize| {
            let (lo, hi) = (a.min(b), a.max(b));
            plan.overlaps[start + hi].contains(&(start + lo))
        };
        Self::from_overlaps(m, overlap)
    }

    /// The terms for `m` lists of which `overlap(i, j)` tells whether lists `i` and `j` may
    /// share an element.
    fn from_overlaps(m: usize, overlap: impl Fn(usize, usize) -> bool) -> Self {
        let clique = |mask: usize| {
            (0..m).all(|i| {
                mask & (1 << i) == 0 || (i + 1..m).all(|j| mask & (1 << j) == 0 || overlap(i, j))
            })
        };
        if (0..m).all(|i| (i + 1..m).all(|j| !overlap(i, j))) {
            return TailTerms::default();
        }
        let mut terms = Vec::new();
        let mut blocks = Vec::new();
        fn go(
            i: usize,
            m: usize,
            open: &mut Vec<usize>,
            keep: &dyn Fn(usize) -> bool,
            out: &mut Vec<(i128, Vec<usize>)>,
        ) {
            if i == m {
                let mut coef: i128 = 1;
                for &b in open.iter() {
                    let n = b.count_ones() as i128;
                    let factorial: i128 = (1..n).product();
                    coef *= if n % 2 == 1 { factorial } else { -factorial };
                }
                out.push((coef, open.clone()));
                return;
            }
            for j in 0..open.len() {
                if keep(open[j] | 1 << i) {
                    open[j] |= 1 << i;
                    go(i + 1, m, open, keep, out);
                    open[j] &= !(1 << i);
                }
            }
            open.push(1 << i);
            go(i + 1, m, open, keep, out);
            open.pop();
        }
        go(0, m, &mut Vec::new(), &clique, &mut terms);
        for (_, bs) in &terms {
            for &b in bs {
                if b.count_ones() > 1 && !blocks.contains(&b) {
                    blocks.push(b);
                }
            }
        }
        let shared = blocks.iter().fold(0, |a, &b| a | b);
        TailTerms {
            terms,
            blocks,
            shared,
        }
    }

    /// The sum of the terms given the intersection sizes by block mask.
    fn sum(&self, sizes: &[u128]) -> i128 {
        let mut total: i128 = 0;
        for (coef, bs) in &self.terms {
            let mut term = *coef;
            for &b in bs {
                term = term.saturating_mul(i128::try_from(sizes[b]).unwrap_or(i128::MAX));
                if term == 0 {
                    break;
                }
            }
            total = total.saturating_add(term);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    /// Brute force: the tuples, one element from each list, with pairwise distinct entries.
    fn distinct_tuples_by_brute_force(lists: &[&[u32]]) -> i128 {
        let m = lists.len();
        let mut want = 0i128;
        let mut tuple = vec![0usize; m];
        if lists.iter().any(|l| l.is_empty()) {
            return 0;
        }
        'all: loop {
            let vals: Vec<u32> = (0..m).map(|i| lists[i][tuple[i]]).collect();
            if (0..m).all(|a| (a + 1..m).all(|b| vals[a] != vals[b])) {
                want += 1;
            }
            for i in 0..m {
                tuple[i] += 1;
                if tuple[i] < lists[i].len() {
                    continue 'all;
                }
                tuple[i] = 0;
            }
            return want;
        }
    }

    /// The tail's terms, given the overlap relation of the actual lists, count what brute force
    /// counts — with every pair declared overlapping, and with only the pairs that do.
    #[test]
    fn tail_terms_count_tuples_of_distinct_elements() {
        let sets: [[&[u32]; 4]; 4] = [
            [&[0, 1, 2, 5], &[1, 2, 3], &[0, 2, 3, 4, 5], &[2, 5]],
            [&[0, 1], &[2, 3], &[0, 2], &[1, 3, 4]],
            [&[0, 1, 2], &[3, 4], &[5], &[0, 1, 2]],
            [&[7], &[7], &[7, 8], &[8, 9]],
        ];
        for lists in sets {
            for m in 1..=4 {
                let lists = &lists[..m];
                let mut sizes = [0u128; 16];
                for (mask, size) in sizes.iter_mut().enumerate().skip(1).take((1 << m) - 1) {
                    *size = (0..10u32)
                        .filter(|x| (0..m).all(|i| mask & (1 << i) == 0 || lists[i].contains(x)))
                        .count() as u128;
                }
                let want = distinct_tuples_by_brute_force(lists);
                let shares = |i: usize, j: usize| lists[i].iter().any(|x| lists[j].contains(x));
                for terms in [
                    super::TailTerms::from_overlaps(m, |_, _| true),
                    super::TailTerms::from_overlaps(m, shares),
                ] {
                    let got = if terms.terms.is_empty() {
                        (0..m).map(|i| sizes[1 << i] as i128).product()
                    } else {
                        terms.sum(&sizes)
                    };
                    assert_eq!(got, want, "{lists:?}");
                }
            }
        }
        // Two lists {0, 1} and {0, 1}: (0, 1) and (1, 0).
        let mut sizes = [0u128; 16];
        sizes[1] = 2;
        sizes[2] = 2;
        sizes[3] = 2;
        assert_eq!(
            super::TailTerms::from_overlaps(2, |_, _| true).sum(&sizes),
            2
        );
        // Three lists without the pair (0, 2): {0}{1}{2}, {01}{2}, {0}{12}, with -1 for the last
        // two; lists that share nothing need no terms at all.
        let t = super::TailTerms::from_overlaps(3, |i, j| (i.min(j), i.max(j)) != (0, 2));
        assert_eq!(t.terms.len(), 3);
        assert_eq!(t.shared, 0b111);
        assert!(t.terms.contains(&(-1, vec![0b011, 0b100])));
        assert!(super::TailTerms::from_overlaps(4, |_, _| false)
            .terms
            .is_empty());
    }

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
