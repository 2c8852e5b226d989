//! The worker's side of a distributed run: BiGJoin-style extension of partial matches one query
//! vertex at a time in a timely dataflow (Ammar, McSherry, Salihoglu, Joglekar, PVLDB 2018).
//!
//! For each vertex after the first, with several back-edges, a partial match first visits the
//! owner of each back-edge's node, which *counts* that node's list (BiGJoin's count stage: the
//! match keeps the index and length of the smallest list seen); then it goes to the owner of the
//! smallest list's node, which *proposes* that list as candidates; then to the owner of each
//! other back-edge's node, which *intersects* the candidates with its list. (A vertex with one
//! back-edge skips the count.) Then the candidates are split by their owner and each share goes
//! to that worker, which applies the vertex's labels, self-loops and `WHERE` conjuncts where the
//! node's data lives, evaluates the returned items of that vertex, and extends the match by each
//! surviving candidate — or, for the last vertex of a count, counts them without extending.
//! Every exchange is timely's, batched per round.
//!
//! Under Cypher semantics (relationship isomorphism) a match carries a weight: the number of
//! ways its relationships bind edges, parallel edges multiplying it and two relationships of one
//! `MATCH` clause never binding the same edge ([`edge_ways`], computed where the newly bound
//! node's lists live, which hold every edge between it and a bound node).
//!
//! Start vertices are fed in rounds of [`Settings::batch`] per worker: a round's matches are all
//! finished before the next round starts, so the memory in flight is that of one round's
//! extensions, not of the whole result. Counts and rows are gathered at worker 0.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use timely::dataflow::operators::vec::Map;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

use super::local::{
    accepts, edge_ways, ids_hold, intersect, items, list_len, neighbours, reweigh, Local, Wire,
};
use super::plan::DistPlan;
use crate::error::{Error, Result};
use crate::pattern::ir::BoundQuery;

/// How a run proceeds.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Start vertices per worker and round.
    pub batch: usize,
    /// The partition set's id, compared across all workers before the query starts.
    pub set_id: String,
}

/// A partial match on its way: the nodes bound so far (in plan order), the candidates of the
/// next vertex, and the returned items evaluated so far.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Partial {
    nodes: Vec<u32>,
    cands: Vec<u32>,
    vals: Vec<(u32, Wire)>,
    /// The back-edge (index) whose list proposes, and that list's length (count stage).
    best: u32,
    best_len: u64,
    /// Ways its relationships bind edges (Cypher semantics; else 1).
    weight: u64,
}

impl Partial {
    fn start(node: u32, vals: Vec<(u32, Wire)>, weight: u64) -> Partial {
        Partial {
            nodes: vec![node],
            cands: Vec::new(),
            vals,
            best: 0,
            best_len: u64::MAX,
            weight,
        }
    }
}

/// A result row's item values by item index, as gathered.
pub type Row = Vec<(u32, Wire)>;

/// What worker 0 ends with (other workers: an empty result).
#[derive(Debug, Default)]
pub struct Gathered {
    /// The number of matches (count plans).
    pub count: u64,
    /// The rows' item values by item index, each with its multiplicity (row plans; above 1
    /// only under Cypher semantics, for parallel edges).
    pub rows: Vec<(Row, u64)>,
}

/// Steps `worker` until `done`, or fails once `abort` is set (another thread saw the cluster
/// fail).
fn step_until(
    worker: &mut Worker,
    abort: &AtomicBool,
    mut done: impl FnMut() -> bool,
) -> Result<()> {
    while !done() {
        if abort.load(Ordering::Relaxed) {
            return Err(Error::Cluster("the run was aborted".into()));
        }
        worker.step();
    }
    Ok(())
}

/// Sends each `(destination worker, item)` to its worker; returns what this worker received.
fn exchange_all<D>(worker: &mut Worker, abort: &AtomicBool, items: Vec<(u64, D)>) -> Result<Vec<D>>
where
    D: timely::ExchangeData + Clone,
{
    let got: Rc<RefCell<Vec<D>>> = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&got);
    let probe = ProbeHandle::new();
    let mut input: InputHandleVec<u64, (u64, D)> = InputHandleVec::new();
    worker.dataflow::<u64, _, _>(|scope| {
        scope
            .input_from(&mut input)
            .exchange(|(to, _): &(u64, D)| *to)
            .inspect(move |(_, d)| sink.borrow_mut().push(d.clone()))
            .probe_with(&probe);
    });
    for item in items {
        input.send(item);
    }
    input.close();
    step_until(worker, abort, || probe.done())?;
    let out = std::mem::take(&mut *got.borrow_mut());
    Ok(out)
}

/// Every worker's partition-set id must be the same: checked by all workers alike (each sees
/// every id), so all refuse or all go on.
fn check_set(
    worker: &mut Worker,
    abort: &AtomicBool,
    settings: &Settings,
    parts: u32,
) -> Result<()> {
    let me = (worker.index() as u64, settings.set_id.clone(), parts);
    let to_all = (0..worker.peers() as u64)
        .map(|w| (w, me.clone()))
        .collect();
    let seen = exchange_all(worker, abort, to_all)?;
    if let Some((w, id, n)) = seen
        .iter()
        .find(|(_, id, n)| *id != settings.set_id || *n != parts)
    {
        return Err(Error::Cluster(format!(
            "worker {w} has partition set {id} of {n} parts, worker {} has {} of {parts}: \
             every process must open the same partition set",
            worker.index(),
            settings.set_id
        )));
    }
    Ok(())
}

/// Runs `plan` on this worker; worker 0 returns the gathered result.
pub fn run_worker(
    worker: &mut Worker,
    local: Arc<Local>,
    query: Arc<BoundQuery>,
    plan: Arc<DistPlan>,
    settings: &Settings,
    abort: &AtomicBool,
) -> Result<Gathered> {
    check_set(worker, abort, settings, local.part_count())?;
    let me = worker.index();
    let count = Rc::new(Cell::new(0u64));
    let rows: Rc<RefCell<Vec<(Row, u64)>>> = Rc::new(RefCell::new(Vec::new()));
    let probe = ProbeHandle::new();
    let mut input: InputHandleVec<u64, Partial> = InputHandleVec::new();
    let k = plan.order.len();
    let counting = plan.counts_last();
    worker.dataflow::<u64, _, _>(|scope| {
        let mut stream = scope.input_from(&mut input);
        for i in 1..k {
            let vertex = plan.order[i].clone();
            let last = i + 1 == k;
            let backs = Arc::new(vertex.back.clone());
            let k_back = backs.len();
            // Count: each back-edge's list length at its node's owner; the smallest proposes.
            for j in (0..k_back).filter(|_| k_back > 1) {
                let (l1, l2) = (Arc::clone(&local), Arc::clone(&local));
                let back = backs[j].clone();
                let pos = back.pos;
                stream = stream
                    .exchange(move |p: &Partial| l1.worker_of(p.nodes[pos]))
                    .flat_map(move |mut p: Partial| {
                        let node = p.nodes[pos];
                        let len = l2.at(node).map_or(0, |(m, l)| list_len(m, l, &back));
                        if j == 0 || len < p.best_len {
                            p.best = j as u32;
                            p.best_len = len;
                        }
                        (len > 0).then_some(p)
                    });
            }
            // Propose: the smallest list, at its node's owner.
            let (l1, l2) = (Arc::clone(&local), Arc::clone(&local));
            let (b1, b2) = (Arc::clone(&backs), Arc::clone(&backs));
            stream = stream
                .exchange(move |p: &Partial| l1.worker_of(p.nodes[b1[p.best as usize].pos]))
                .flat_map(move |mut p: Partial| {
                    let back = &b2[p.best as usize];
                    let node = p.nodes[back.pos];
                    p.cands = l2
                        .at(node)
                        .map(|(m, l)| neighbours(m, l, back))
                        .unwrap_or_default();
                    (!p.cands.is_empty()).then_some(p)
                });
            // Intersect with every other back-edge's list, at its node's owner: step `t` takes
            // the `t`-th back-edge other than the proposer.
            for t in 0..k_back.saturating_sub(1) {
                let (l1, l2) = (Arc::clone(&local), Arc::clone(&local));
                let (b1, b2) = (Arc::clone(&backs), Arc::clone(&backs));
                let other = move |p: &Partial| if t < p.best as usize { t } else { t + 1 };
                stream = stream
                    .exchange(move |p: &Partial| l1.worker_of(p.nodes[b1[other(p)].pos]))
                    .flat_map(move |mut p: Partial| {
                        let back = &b2[other(&p)];
                        let pos = back.pos;
                        let node = p.nodes[pos];
                        let list = l2
                            .at(node)
                            .map(|(m, l)| neighbours(m, l, back))
                            .unwrap_or_default();
                        intersect(&mut p.cands, &list);
                        (!p.cands.is_empty()).then_some(p)
                    });
            }
            // Split the candidates by owner; check and extend (or count) there.
            let (l1, l2, l3) = (Arc::clone(&local), Arc::clone(&local), Arc::clone(&local));
            let injective = plan.injective;
            let (q, pl) = (Arc::clone(&query), Arc::clone(&plan));
            let counted = Rc::clone(&count);
            stream = stream
                .flat_map(move |p: Partial| split(&l1, p, injective))
                .exchange(move |p: &Partial| l2.worker_of(p.cands[0]))
                .flat_map(move |p: Partial| {
                    let vertex = &pl.order[i];
                    let mut out = Vec::new();
                    let mut n = 0u64;
                    for &c in &p.cands {
                        let Some((m, lc)) = l3.at(c) else { continue };
                        if !ids_hold(&l3.ids_only, &q, vertex, &pl.slot_at, &p.nodes, c)
                            || !accepts(m, &q, vertex, pl.slots, lc)
                        {
                            continue;
                        }
                        let weight = if pl.edges {
                            let mut nodes = p.nodes.clone();
                            nodes.push(c);
                            let ways = edge_ways(m, lc, &pl.rels, &nodes, i);
                            if ways.0 == 0 {
                                continue;
                            }
                            reweigh(p.weight, ways)
                        } else {
                            p.weight
                        };
                        if last && counting {
                            n = n.saturating_add(weight);
                            continue;
                        }
                        let mut nodes = p.nodes.clone();
                        nodes.push(c);
                        let mut next = Partial {
                            nodes,
                            cands: Vec::new(),
                            vals: p.vals.clone(),
                            best: 0,
                            best_len: u64::MAX,
                            weight,
                        };
                        next.vals.extend(items(m, &q, vertex, pl.slots, lc));
                        out.push(next);
                    }
                    counted.set(counted.get().saturating_add(n));
                    out
                });
        }
        if counting {
            // Single-vertex counts are counted at the input; longer ones in the last step.
            let counted = Rc::clone(&count);
            let single = k == 1;
            stream
                .inspect(move |p: &Partial| {
                    if single {
                        counted.set(counted.get().saturating_add(p.weight))
                    }
                })
                .probe_with(&probe);
        } else {
            let sink = Rc::clone(&rows);
            stream
                .exchange(|_: &Partial| 0)
                .inspect(move |p: &Partial| sink.borrow_mut().push((p.vals.clone(), p.weight)))
                .probe_with(&probe);
        }
    });
    // Start vertices of this worker's parts, in rounds.
    let start = &plan.order[0];
    let mut round = 0u64;
    let mut pending = Vec::new();
    for m in local.parts_of(me) {
        // Local indices of the part's nodes (every one it holds is its own).
        let scan: Box<dyn Iterator<Item = u32>> = match start.labels.first() {
            Some(any) => {
                let mut ids: Vec<u32> = any
                    .iter()
                    .flat_map(|&l| m.nodes().nodes_with_label(l).iter().copied())
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                Box::new(ids.into_iter())
            }
            None => Box::new(0..m.owned_count() as u32),
        };
        for v in scan {
            let Some(global) = m.global(v) else { continue };
            if !accepts(m, &query, start, plan.slots, v) {
                continue;
            }
            let weight = if plan.edges {
                edge_ways(m, v, &plan.rels, &[global], 0).0
            } else {
                1
            };
            if weight == 0 {
                continue;
            }
            pending.push(Partial::start(
                global,
                items(m, &query, start, plan.slots, v),
                weight,
            ));
            if pending.len() >= settings.batch.max(1) {
                round = feed(worker, abort, &mut input, &probe, &mut pending, round)?;
            }
        }
    }
    feed(worker, abort, &mut input, &probe, &mut pending, round)?;
    input.close();
    step_until(worker, abort, || probe.done())?;
    // Gather at worker 0.
    let counts = exchange_all(worker, abort, vec![(0, count.get())])?;
    let rows = std::mem::take(&mut *rows.borrow_mut());
    Ok(Gathered {
        count: counts.iter().sum(),
        rows,
    })
}

/// Sends one round of start vertices and waits until the dataflow has finished it.
fn feed(
    worker: &mut Worker,
    abort: &AtomicBool,
    input: &mut InputHandleVec<u64, Partial>,
    probe: &ProbeHandle<u64>,
    pending: &mut Vec<Partial>,
    round: u64,
) -> Result<u64> {
    for p in pending.drain(..) {
        input.send(p);
    }
    input.advance_to(round + 1);
    step_until(worker, abort, || !probe.less_than(input.time()))?;
    Ok(round + 1)
}

/// `p`'s candidates without the nodes it already binds (when injective), one share per owning
/// worker.
fn split(local: &Local, mut p: Partial, injective: bool) -> Vec<Partial> {
    if injective {
        p.cands.retain(|c| !p.nodes.contains(c));
    }
    let mut shares: Vec<(u64, Vec<u32>)> = Vec::new();
    for &c in &p.cands {
        let w = local.worker_of(c);
        match shares.iter_mut().find(|(x, _)| *x == w) {
            Some((_, list)) => list.push(c),
            None => shares.push((w, vec![c])),
        }
    }
    shares
        .into_iter()
        .map(|(_, cands)| Partial {
            nodes: p.nodes.clone(),
            cands,
            vals: p.vals.clone(),
            best: 0,
            best_len: u64::MAX,
            weight: p.weight,
        })
        .collect()
}
