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
    accepts, edge_ways, edge_ways_seen_from, ids_hold, intersect, items, list_len, neighbours,
    neighbours_with_repeats, reweigh, visit_lists, Local, Wire,
};
use super::plan::{DistPlan, Vertex};
use super::sieve::{build_sieves, Sieve};
use super::star::{count_star, Star};
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
    /// A triangle's third vertex's list from the first node, one entry per edge
    /// ([`DistPlan::triangle_ahead`]; else empty).
    ahead: Vec<u32>,
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
            ahead: Vec::new(),
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
pub(super) fn exchange_all<D>(
    worker: &mut Worker,
    abort: &AtomicBool,
    items: Vec<(u64, D)>,
) -> Result<Vec<D>>
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
    // Every worker is past its load once the set is checked (an exchange with all): the query's
    // time counts from there.
    check_set(worker, abort, settings, local.part_count())?;
    if let Some(star) = Star::of(&plan) {
        let count = count_star(worker, abort, &local, &query, &plan, &star)?;
        return Ok(Gathered {
            count,
            rows: Vec::new(),
        });
    }
    let started = std::time::Instant::now();
    let sieves = Arc::new(build_sieves(worker, abort, &local, &plan, 0)?);
    let me = worker.index();
    log::debug!(
        "worker {me}: label sieves built in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let count = Rc::new(Cell::new(0u64));
    let rows: Rc<RefCell<Vec<(Row, u64)>>> = Rc::new(RefCell::new(Vec::new()));
    let probe = ProbeHandle::new();
    let mut input: InputHandleVec<u64, Partial> = InputHandleVec::new();
    let k = plan.order.len();
    let counting = plan.counts_last();
    // The second vertex's candidates are proposed by the scan itself when its one back-edge is to
    // the first vertex (whose lists the scanning worker holds).
    let start_proposes = k >= 2 && plan.order[1].back.len() == 1;
    let triangle = plan.triangle_ahead();
    worker.dataflow::<u64, _, _>(|scope| {
        let mut stream = scope.input_from(&mut input);
        for i in 1..k {
            if plan.counted_at_previous_owner(i) || (i == 2 && triangle.is_some()) {
                // Counted where the vertex before it was bound (or by the scan).
                break;
            }
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
            let here = plan.counted_where_proposed(i);
            // Propose: the smallest list, at its node's owner (done by the scan for the second
            // vertex when its one back-edge is to the first).
            if !(i == 1 && start_proposes) {
                let (l1, l2) = (Arc::clone(&local), Arc::clone(&local));
                let (b1, b2) = (Arc::clone(&backs), Arc::clone(&backs));
                let pl = Arc::clone(&plan);
                stream = stream
                    .exchange(move |p: &Partial| l1.worker_of(p.nodes[b1[p.best as usize].pos]))
                    .flat_map(move |p: Partial| {
                        let back = &b2[p.best as usize];
                        match l2.at(p.nodes[back.pos]) {
                            Some(at) => propose_at(&pl, i, at, back, p),
                            None => Vec::new(),
                        }
                    });
            }
            // Intersect with every other back-edge's list, at its node's owner: step `t` takes
            // the `t`-th back-edge other than the proposer.
            let weighed = plan.weighed_where_proposed(i);
            for t in 0..k_back.saturating_sub(1) {
                let (l1, l2) = (Arc::clone(&local), Arc::clone(&local));
                let (b1, b2) = (Arc::clone(&backs), Arc::clone(&backs));
                let other = move |p: &Partial| if t < p.best as usize { t } else { t + 1 };
                stream = stream
                    .exchange(move |p: &Partial| l1.worker_of(p.nodes[b1[other(p)].pos]))
                    .flat_map(move |mut p: Partial| {
                        let back = &b2[other(&p)];
                        let Some((m, l)) = l2.at(p.nodes[back.pos]) else {
                            return Vec::new();
                        };
                        if weighed {
                            return weigh_by_list(p, &neighbours_with_repeats(m, l, back), true);
                        }
                        intersect(&mut p.cands, &neighbours(m, l, back));
                        if p.cands.is_empty() {
                            Vec::new()
                        } else {
                            vec![p]
                        }
                    });
            }
            if here {
                // A last vertex that needs nothing of its candidates' owners: counted here.
                let (l1, q, pl, sv) = (
                    Arc::clone(&local),
                    Arc::clone(&query),
                    Arc::clone(&plan),
                    Arc::clone(&sieves),
                );
                let counted = Rc::clone(&count);
                stream = stream.flat_map(move |p: Partial| {
                    let n = count_here(&l1, &q, &pl, &sv, i, p);
                    counted.set(counted.get().saturating_add(n));
                    None::<Partial>
                });
                continue;
            }
            // Drop the candidates that fail the checks every worker can make, split the rest by
            // owner; check and extend (or count) there.
            let (l1, l2, l3) = (Arc::clone(&local), Arc::clone(&local), Arc::clone(&local));
            let (q0, pl0, sv) = (Arc::clone(&query), Arc::clone(&plan), Arc::clone(&sieves));
            let (q, pl) = (Arc::clone(&query), Arc::clone(&plan));
            // The next vertex, when it is counted where this one is bound: its proposer.
            let next_back = plan
                .counted_at_previous_owner(i + 1)
                .then(|| plan.order[i + 1].back[0].clone());
            let sv_next = Arc::clone(&sieves);
            let triangle_here = triangle.filter(|_| i == 1);
            let counted = Rc::clone(&count);
            stream = stream
                .flat_map(move |mut p: Partial| {
                    keep_candidates(&l1, &q0, &pl0, &sv, i, &mut p);
                    split(&l1, p)
                })
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
                        let weight = if pl.edges && !weighed {
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
                        if let Some((_, to_second)) = triangle_here {
                            let back = &pl.order[2].back[to_second];
                            let list = neighbours_with_repeats(m, lc, back);
                            let k = count_triangle(&l3, &q, &pl, &sv_next, &nodes, &p.ahead, &list);
                            n = n.saturating_add(k.saturating_mul(weight));
                            continue;
                        }
                        if let Some(back) = &next_back {
                            let at = (m, lc);
                            let k = count_proposed(
                                &l3,
                                &q,
                                &pl,
                                &sv_next,
                                i + 1,
                                at,
                                back,
                                &nodes,
                                weight,
                            );
                            n = n.saturating_add(k);
                            continue;
                        }
                        let mut next = Partial {
                            nodes,
                            cands: Vec::new(),
                            vals: p.vals.clone(),
                            best: 0,
                            best_len: u64::MAX,
                            weight,
                            ahead: Vec::new(),
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
            if plan.counted_at_previous_owner(1) {
                let back = &plan.order[1].back[0];
                let n = count_proposed(
                    &local,
                    &query,
                    &plan,
                    &sieves,
                    1,
                    (m, v),
                    back,
                    &[global],
                    weight,
                );
                count.set(count.get().saturating_add(n));
                continue;
            }
            if start_proposes {
                // No candidate for the second vertex (none with its labels): no partial match.
                let back = &plan.order[1].back[0];
                let any = match sieves.get(1).and_then(Option::as_ref) {
                    Some(sieve) => {
                        let mut found = false;
                        visit_lists(m, v, back, &mut |list| {
                            found = found || list.iter().any(|&c| sieve.holds(c))
                        });
                        found
                    }
                    None => list_len(m, v, back) > 0,
                };
                if !any {
                    continue;
                }
            }
            let mut p = Partial::start(global, items(m, &query, start, plan.slots, v), weight);
            if let Some((to_first, _)) = triangle {
                p.ahead = neighbours_with_repeats(m, v, &plan.order[2].back[to_first]);
                if p.ahead.is_empty() {
                    continue;
                }
            }
            if start_proposes {
                // Only the shares with a candidate left after the checks every worker can make
                // (most die here when the second vertex has labels) enter the dataflow.
                for mut share in propose_at(&plan, 1, (m, v), &plan.order[1].back[0], p) {
                    keep_candidates(&local, &query, &plan, &sieves, 1, &mut share);
                    if !share.cands.is_empty() {
                        pending.push(share);
                    }
                }
            } else {
                pending.push(p);
            }
            if pending.len() >= settings.batch.max(1) {
                round = feed(worker, abort, &mut input, &probe, &mut pending, round)?;
            }
        }
    }
    feed(worker, abort, &mut input, &probe, &mut pending, round)?;
    input.close();
    step_until(worker, abort, || probe.done())?;
    log::debug!(
        "worker {me}: matched in {:.1} ms after every worker had loaded its parts",
        started.elapsed().as_secs_f64() * 1e3
    );
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

/// `p` with the candidates of the vertex at position `i` proposed by back-edge `back`, whose node
/// has local index `l` in `part`: weighed there under Cypher semantics when the plan says so
/// ([`propose_weighed`], one partial per weight), else the list's distinct nodes; nothing when no
/// candidate is left.
fn propose_at(
    plan: &DistPlan,
    i: usize,
    (part, l): (&crate::model::part::Part, u32),
    back: &super::plan::BackEdge,
    mut p: Partial,
) -> Vec<Partial> {
    if plan.weighed_where_proposed(i) {
        if plan.order[i].back.len() > 1 {
            // Disjoint types: the ways are the product of each list's parallel edges.
            let list = neighbours_with_repeats(part, l, back);
            p.cands.clear();
            return weigh_by_list(p, &list, false);
        }
        return propose_weighed(plan, i, (part, l), back, p);
    }
    p.cands = neighbours(part, l, back);
    if p.cands.is_empty() {
        Vec::new()
    } else {
        vec![p]
    }
}

/// `p` with its candidates weighed by their entries in `list` (sorted, one entry per edge): each
/// candidate's weight is `p`'s times its entries (one partial per distinct weight). With
/// `intersect`, the candidates are `p`'s, those without an entry dropped; without, they are
/// `list`'s distinct nodes.
fn weigh_by_list(p: Partial, list: &[u32], intersect: bool) -> Vec<Partial> {
    let mut shares: Vec<(u64, Vec<u32>)> = Vec::new();
    let mut add = |c: u32, entries: usize| {
        let weight = p.weight.saturating_mul(entries as u64);
        match shares.iter_mut().find(|(w, _)| *w == weight) {
            Some((_, cands)) => cands.push(c),
            None => shares.push((weight, vec![c])),
        }
    };
    let mut at = 0;
    if intersect {
        for &c in &p.cands {
            while at < list.len() && list[at] < c {
                at += 1;
            }
            let entries = list[at..].iter().take_while(|&&x| x == c).count();
            if entries > 0 {
                add(c, entries);
            }
        }
    } else {
        while at < list.len() {
            let c = list[at];
            let entries = list[at..].iter().take_while(|&&x| x == c).count();
            at += entries;
            add(c, entries);
        }
    }
    into_shares(p, shares)
}

/// The matches the bound nodes `nodes` (positions `0..i`, weight `weight`) count at the last
/// vertex (position `i`), whose one back-edge `back` is to a node of local index `l` in `part`:
/// what [`propose_at`] then [`count_here`] count, read straight off the lists without building a
/// partial match (under Cypher semantics every list entry is an edge, so each entry that passes
/// counts once, and a node bound again is weighed as [`propose_weighed`] weighs it).
#[allow(clippy::too_many_arguments)]
fn count_proposed(
    local: &Local,
    query: &BoundQuery,
    plan: &DistPlan,
    sieves: &[Option<Sieve>],
    i: usize,
    (part, l): (&crate::model::part::Part, u32),
    back: &super::plan::BackEdge,
    nodes: &[u32],
    weight: u64,
) -> u64 {
    let keep = |c: u32| passes_everywhere(local, query, plan, sieves, i, nodes, c);
    let lists = |visit: &mut dyn FnMut(&[u32])| visit_lists(part, l, back, visit);
    let mut total = 0u64;
    if plan.edges {
        let mut again: Vec<u32> = Vec::new();
        lists(&mut |list: &[u32]| {
            for &c in list {
                if nodes.contains(&c) {
                    again.push(c);
                } else if keep(c) {
                    total = total.saturating_add(weight);
                }
            }
        });
        if again.is_empty() {
            return total;
        }
        // Nodes bound again: weighed from the proposer's side, once each.
        again.sort_unstable();
        again.dedup();
        let other = nodes[back.pos];
        let mut bound = nodes.to_vec();
        for c in again.into_iter().filter(|&c| keep(c)) {
            bound.truncate(i);
            bound.push(c);
            let ways = edge_ways_seen_from(part, l, other, &plan.rels, &bound, i);
            if ways.0 > 0 {
                total = total.saturating_add(reweigh(weight, ways));
            }
        }
        return total;
    }
    if back.types.len() != 1 || back.dir == crate::exec::plan::Dir::Both {
        // Several lists, or one over every type (sorted by type first): their distinct nodes.
        let distinct = neighbours(part, l, back);
        let n = distinct.into_iter().filter(|&c| keep(c)).count() as u64;
        return n.saturating_mul(weight);
    }
    // One list of one type, sorted by neighbour: its distinct nodes in one pass.
    lists(&mut |list: &[u32]| {
        let mut previous = None;
        for &c in list {
            if previous != Some(c) && keep(c) {
                total = total.saturating_add(weight);
            }
            previous = Some(c);
        }
    });
    total
}

/// A triangle's count for the bound first two nodes `nodes` (weight aside): its third vertex's
/// candidates are the nodes in both `ahead` (the list from the first node) and `list` (from the
/// second), both sorted with one entry per edge; each that passes the checks every worker can
/// make counts the product of its entries in the two under Cypher semantics (the types are
/// pairwise disjoint there, so no edge is bound twice), else once.
fn count_triangle(
    local: &Local,
    query: &BoundQuery,
    plan: &DistPlan,
    sieves: &[Option<Sieve>],
    nodes: &[u32],
    ahead: &[u32],
    list: &[u32],
) -> u64 {
    let (mut x, mut y, mut total) = (0, 0, 0u64);
    while x < ahead.len() && y < list.len() {
        let (c, d) = (ahead[x], list[y]);
        if c < d {
            x += 1;
        } else if d < c {
            y += 1;
        } else {
            let first = ahead[x..].iter().take_while(|&&e| e == c).count();
            let second = list[y..].iter().take_while(|&&e| e == c).count();
            x += first;
            y += second;
            if passes_everywhere(local, query, plan, sieves, 2, nodes, c) {
                let ways = if plan.edges {
                    (first as u64).saturating_mul(second as u64)
                } else {
                    1
                };
                total = total.saturating_add(ways);
            }
        }
    }
    total
}

/// The matches `p` counts at the last vertex (position `i`) where its candidates are: those that
/// pass the checks every worker can make, times its weight.
fn count_here(
    local: &Local,
    query: &BoundQuery,
    plan: &DistPlan,
    sieves: &[Option<Sieve>],
    i: usize,
    mut p: Partial,
) -> u64 {
    keep_candidates(local, query, plan, sieves, i, &mut p);
    (p.cands.len() as u64).saturating_mul(p.weight)
}

/// Keeps those of `p`'s candidates for the vertex at position `i` that pass the checks every
/// worker can make: not a node `p` already binds (when injective), the vertex's labels (its sieve)
/// and its id comparisons.
fn keep_candidates(
    local: &Local,
    query: &BoundQuery,
    plan: &DistPlan,
    sieves: &[Option<Sieve>],
    i: usize,
    p: &mut Partial,
) {
    let nodes = &p.nodes;
    p.cands
        .retain(|&c| passes_everywhere(local, query, plan, sieves, i, nodes, c));
}

/// True when node `c` passes, for the vertex at position `i` after the bound nodes `nodes`, the
/// checks every worker can make: not a bound node (when injective), the vertex's labels (its
/// sieve) and its id comparisons.
fn passes_everywhere(
    local: &Local,
    query: &BoundQuery,
    plan: &DistPlan,
    sieves: &[Option<Sieve>],
    i: usize,
    nodes: &[u32],
    c: u32,
) -> bool {
    let vertex: &Vertex = &plan.order[i];
    !(plan.injective && nodes.contains(&c))
        && sieves
            .get(i)
            .and_then(Option::as_ref)
            .is_none_or(|s| s.holds(c))
        && ids_hold(&local.ids_only, query, vertex, &plan.slot_at, nodes, c)
}

/// `p` with the candidates of the vertex at position `i` proposed by its one back-edge `back`
/// (whose node has local index `lo` in `part`), weighed under Cypher semantics by the edges that
/// node's lists hold to each (its weight times their ways): one partial per distinct weight
/// (almost always one: parallel edges are rare).
fn propose_weighed(
    plan: &DistPlan,
    i: usize,
    (part, lo): (&crate::model::part::Part, u32),
    back: &super::plan::BackEdge,
    p: Partial,
) -> Vec<Partial> {
    let other = p.nodes[back.pos];
    let list = neighbours_with_repeats(part, lo, back);
    let mut shares: Vec<(u64, Vec<u32>)> = Vec::new();
    let mut at = 0;
    while at < list.len() {
        let c = list[at];
        let same = list[at..].iter().take_while(|&&x| x == c).count();
        at += same;
        let weight = if p.nodes.contains(&c) {
            // A node bound again: the relationships already bound between the two count.
            let mut nodes = p.nodes.clone();
            nodes.push(c);
            let ways = edge_ways_seen_from(part, lo, other, &plan.rels, &nodes, i);
            if ways.0 == 0 {
                continue;
            }
            reweigh(p.weight, ways)
        } else {
            p.weight.saturating_mul(same as u64)
        };
        match shares.iter_mut().find(|(w, _)| *w == weight) {
            Some((_, cands)) => cands.push(c),
            None => shares.push((weight, vec![c])),
        }
    }
    into_shares(p, shares)
}

/// `p` once per (weight, candidates) share, `p` itself the last (none: no share).
fn into_shares(mut p: Partial, mut shares: Vec<(u64, Vec<u32>)>) -> Vec<Partial> {
    let last = shares.pop();
    let mut out: Vec<Partial> = shares
        .into_iter()
        .map(|(weight, cands)| Partial {
            nodes: p.nodes.clone(),
            cands,
            vals: p.vals.clone(),
            best: p.best,
            best_len: p.best_len,
            weight,
            ahead: p.ahead.clone(),
        })
        .collect();
    if let Some((weight, cands)) = last {
        p.cands = cands;
        p.weight = weight;
        out.push(p);
    }
    out
}

/// `p`'s candidates, one share per owning worker.
fn split(local: &Local, p: Partial) -> Vec<Partial> {
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
            ahead: p.ahead.clone(),
        })
        .collect()
}
