//! [`LiveQuery`]: a query whose matches are kept and brought up to date after the graph changes,
//! re-examining only what the changes could affect.
//!
//! A match is a distinct binding of the query's named variables: a node by its key (keys survive
//! the rebuild after every change; ids do not), a relationship as `src-[:TYPE]->dst` by its ends'
//! keys (parallel relationships of one type between the same nodes are one match). Property keys
//! the graph does not have read as null, as in rule files: they may appear later. [`Graph::apply`] and [`super::Transaction::commit`] record which nodes each change
//! touched ([`Touched`]: created, deleted, a property or label changed, a relationship at it
//! created, deleted or changed). [`LiveQuery::refresh`] then
//!
//! 1. takes the touched nodes and, when the query has nodes that are not named (anonymous pattern
//!    nodes, the nodes of `EXISTS { … }` and pattern predicates), every node within as many hops
//!    as such a node lies from the nearest named one (the query's *radius*): a change there can
//!    make or break a match without touching its named nodes. These are the *affected* nodes;
//! 2. drops the kept matches that bind an affected node, and finds, on the changed graph, every
//!    match that binds an affected node: one run per pattern node, its candidates cut down to the
//!    affected nodes ([`crate::engines::gemp::execute_seeded`]), so the search starts there; the other
//!    nodes' candidates are filtered once, among the nodes within the pattern's radius of the
//!    affected ones only, so a re-check costs what the neighbourhood of the change costs;
//! 3. reports the difference as added and removed matches.
//!
//! A match binding no affected node keeps its status: nothing within its reach changed. So every
//! new match uses at least one changed element, and the result equals a full re-run
//! (`tests/live_query.rs` checks this on random graphs and random changes).
//!
//! Queries: `MATCH … WHERE …` with an optional `RETURN` (its items are not used: the matches are
//! the bindings); `WITH`, aggregates, `SKIP` and `LIMIT` are refused. A full re-run replaces the
//! incremental one (reported as [`MatchDiff::incremental`] = false) when the pattern has a part
//! with no named node (its radius is unbounded), when `EXISTS` is nested, or when a quarter or more
//! of the graph's nodes are affected. Matching is node-isomorphic on the host.

use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::{HashMap, HashSet};

use super::Graph;
use crate::error::{Error, Result};
use crate::exec::eval::Val;
use crate::exec::MatchOptions;
use crate::model::Model;
use crate::pattern::binder::Params;
use crate::pattern::ir::{BoundQuery, Expr, NodeSlot, ProjItem, Projection};
use crate::session::{PrepareOptions, Session};
use crate::transform::Touched;

/// The changes made to one [`Graph`], in order: what [`LiveQuery::refresh`] reads.
#[derive(Debug)]
pub(super) struct ChangeLog {
    /// Tells graphs apart, so that a live query is refreshed against its own graph only.
    id: u64,
    entries: Vec<Touched>,
}

static NEXT_GRAPH: AtomicU64 = AtomicU64::new(1);

impl ChangeLog {
    pub(super) fn new() -> Self {
        ChangeLog {
            id: NEXT_GRAPH.fetch_add(1, Ordering::Relaxed),
            entries: Vec::new(),
        }
    }

    /// Records one change.
    pub(super) fn record(&mut self, touched: Touched) {
        self.entries.push(touched);
    }

    fn generation(&self) -> usize {
        self.entries.len()
    }

    /// Everything touched by the changes from `generation` on.
    fn since(&self, generation: usize) -> Touched {
        let mut all = Touched::new();
        for t in self.entries.iter().skip(generation) {
            all.extend(t);
        }
        all
    }
}

/// What changed in a [`LiveQuery`]'s matches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchDiff {
    /// Matches the graph has now and did not have (each as its [`LiveQuery::columns`] values).
    pub added: Vec<Vec<String>>,
    /// Matches the graph had and has no longer.
    pub removed: Vec<Vec<String>>,
    /// False when the matches were found by a full re-run (see the module docs for when).
    pub incremental: bool,
    /// Nodes re-examined: the affected nodes (0 after a full re-run or when nothing changed).
    pub affected: usize,
}

impl MatchDiff {
    /// True when no match was added or removed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }
}

/// One kept match: how many times it occurs, and the keys of the nodes it binds.
#[derive(Debug, Clone)]
struct Kept {
    count: u32,
    nodes: Vec<String>,
}

type Matches = HashMap<Vec<String>, Kept>;

/// The kept matches, with an index from a node's key to the matches binding it, so that a refresh
/// finds the matches an affected node is in without a pass over all of them. A match is stored
/// once, under a 128-bit hash of its values (the index holds hashes, not copies of the values).
#[derive(Debug, Clone, Default)]
struct Store {
    matches: HashMap<u128, (Vec<String>, Kept)>,
    /// Node key → hashes of the matches binding that node.
    by_node: HashMap<String, Vec<u128>>,
}

/// The identity of a match in a [`Store`].
fn fingerprint(values: &[String]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for v in values {
        h.update(&(v.len() as u64).to_le_bytes());
        h.update(v.as_bytes());
    }
    h.digest128()
}

impl Store {
    fn new(matches: Matches) -> Store {
        let mut store = Store::default();
        store.extend(matches);
        store
    }

    fn extend(&mut self, matches: Matches) {
        for (m, k) in matches {
            let id = fingerprint(&m);
            for n in &k.nodes {
                let list = self.by_node.entry_ref(n.as_str()).or_default();
                if !list.contains(&id) {
                    list.push(id);
                }
            }
            self.matches.insert(id, (m, k));
        }
    }

    fn remove(&mut self, m: &[String]) {
        let id = fingerprint(m);
        let Some((_, k)) = self.matches.remove(&id) else {
            return;
        };
        for n in &k.nodes {
            if let Some(list) = self.by_node.get_mut(n.as_str()) {
                list.retain(|&x| x != id);
                if list.is_empty() {
                    self.by_node.remove(n.as_str());
                }
            }
        }
    }

    /// The kept matches binding one of the nodes with `keys`.
    fn binding(&self, keys: &HashSet<String>) -> Matches {
        let mut out = Matches::new();
        for key in keys {
            for id in self.by_node.get(key.as_str()).into_iter().flatten() {
                if let Some((m, k)) = self.matches.get(id) {
                    if !out.contains_key(m) {
                        out.insert(m.clone(), k.clone());
                    }
                }
            }
        }
        out
    }

    /// Every kept match.
    fn all(&self) -> Matches {
        self.matches
            .values()
            .map(|(m, k)| (m.clone(), k.clone()))
            .collect()
    }

    fn iter(&self) -> impl Iterator<Item = (&Vec<String>, &Kept)> {
        self.matches.values().map(|(m, k)| (m, k))
    }
}

/// A query whose matches are kept and updated incrementally (see the module docs).
///
/// ```
/// use gemp::api::Graph;
///
/// let mut graph = Graph::from_json_str(r#"{
///   "nodes": [ {"id": "a", "labels": ["Task"]}, {"id": "b", "labels": ["Task"]} ],
///   "edges": [ {"source": "a", "target": "b", "type": "NEXT"} ] }"#)?;
/// let mut live = graph.live_query("MATCH (x:Task)-[:NEXT]->(y:Task) RETURN x, y")?;
/// assert_eq!(live.len(), 1);
/// graph.apply("MATCH (b:Task) WHERE NOT (b)-[:NEXT]->() CREATE (b)-[:NEXT]->(:Task)")?;
/// let diff = live.refresh(&graph)?;
/// assert_eq!(diff.added, vec![vec!["b".to_string(), "new:2".to_string()]]);
/// assert!(diff.removed.is_empty() && diff.incremental);
/// # Ok::<(), gemp::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct LiveQuery {
    source: String,
    params: Params,
    graph: u64,
    generation: usize,
    columns: Vec<String>,
    store: Store,
}

/// What a live query needs of its bound query.
struct Shape {
    /// The query with one stage projecting the named variables' ids.
    bindings: BoundQuery,
    /// How it runs: the semantics of its `// gemp:` line, else node-isomorphism.
    options: MatchOptions,
    /// Named node slots and relationship slots, in column order.
    columns: Vec<Column>,
    /// The pattern nodes a match's identity names: the named nodes and the ends of named
    /// relationships.
    identity: Vec<NodeSlot>,
    /// Hops from a named node to the farthest unnamed one; `None`: unbounded (full re-runs).
    radius: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
enum Column {
    Node,
    Rel,
}

impl LiveQuery {
    /// Compiles `source` against `graph` and finds all its matches.
    pub(super) fn new(graph: &Graph, source: &str, params: &Params) -> Result<LiveQuery> {
        let shape = shape(graph.model(), source, params)?;
        let columns = names(&shape);
        let matches = all_matches(graph.model(), &shape)?;
        Ok(LiveQuery {
            source: source.to_owned(),
            params: params.clone(),
            graph: graph.log.id,
            generation: graph.log.generation(),
            columns,
            store: Store::new(matches),
        })
    }

    /// The query text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The named variables, in the order of a match's values.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The number of matches (as of the last refresh).
    pub fn len(&self) -> usize {
        self.store.iter().map(|(_, k)| k.count as usize).sum()
    }

    /// True when there is no match.
    pub fn is_empty(&self) -> bool {
        self.store.matches.is_empty()
    }

    /// The matches, sorted (each as its [`LiveQuery::columns`] values).
    pub fn matches(&self) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = Vec::with_capacity(self.len());
        for (m, k) in self.store.iter() {
            out.extend(std::iter::repeat_n(m.clone(), k.count as usize));
        }
        out.sort();
        out
    }

    /// Brings the matches up to date with `graph`'s changes since the last refresh (or since the
    /// query was made), re-examining only the affected nodes; returns what changed. `graph` must
    /// be the graph the query was made on.
    pub fn refresh(&mut self, graph: &Graph) -> Result<MatchDiff> {
        if graph.log.id != self.graph {
            return Err(Error::InvalidArgument(
                "a live query is refreshed with the graph it was made on".into(),
            ));
        }
        let touched = graph.log.since(self.generation);
        self.generation = graph.log.generation();
        if touched.is_empty() {
            return Ok(MatchDiff {
                incremental: true,
                ..MatchDiff::default()
            });
        }
        let model = graph.model();
        let shape = shape(model, &self.source, &self.params)?;
        let affected = shape
            .radius
            .and_then(|r| affected_nodes(model, &touched, r));
        let Some(affected) = affected else {
            let now = all_matches(model, &shape)?;
            let diff = difference(&self.store.all(), &now, false, 0);
            self.store = Store::new(now);
            return Ok(diff);
        };
        let mut keys: HashSet<String> = touched.keys().map(str::to_owned).collect();
        keys.extend(
            affected
                .iter()
                .map(|&n| model.node_key(n).unwrap_or("").to_owned()),
        );
        let before = self.store.binding(&keys);
        let after = seeded_matches(model, &shape, &affected)?;
        let diff = difference(&before, &after, true, affected.len());
        for m in before.keys() {
            self.store.remove(m);
        }
        self.store.extend(after);
        Ok(diff)
    }
}

impl Graph {
    /// A [`LiveQuery`] of `source` on this graph: all its matches now, brought up to date by
    /// [`LiveQuery::refresh`] after [`Graph::apply`] or a committed [`Graph::transaction`].
    pub fn live_query(&self, source: &str) -> Result<LiveQuery> {
        LiveQuery::new(self, source, &Params::default())
    }

    /// [`Graph::live_query`] with query parameters.
    pub fn live_query_with(&self, source: &str, params: &Params) -> Result<LiveQuery> {
        LiveQuery::new(self, source, params)
    }
}

/// Binds `source` and checks that it is a query a live query can keep.
/// Property keys the model does not have read as null (they may appear later, and a refresh
/// after the last element with a property was deleted must still bind), as in rule files.
fn shape(model: &Model, source: &str, params: &Params) -> Result<Shape> {
    let prepared = Session::host(model).prepare(
        source,
        &PrepareOptions {
            params: params.clone(),
            lenient: true,
            ..Default::default()
        },
    )?;
    let options = prepared.options();
    let query = prepared.into_bound();
    let refuse = |what: &str| {
        Err(Error::Query(
            format!(
                "a live query is MATCH … WHERE … with an optional RETURN; {what} is not supported"
            )
            .into(),
        ))
    };
    if query.stages.len() > 1 {
        return refuse("WITH");
    }
    // OPTIONAL MATCH, UNWIND, UNION and variable-length paths run in the row-by-row pipeline,
    // which the seeded (incremental) search does not follow.
    if let Some(what) = query.host_only_clause() {
        return refuse(what);
    }
    if let Some(stage) = query.stages.first() {
        if stage.items.iter().any(|i| i.expr.has_aggregate()) {
            return refuse("an aggregate");
        }
        if stage.skip.is_some() || stage.limit.is_some() {
            return refuse("SKIP or LIMIT");
        }
    }
    let mut columns = Vec::new();
    let mut items = Vec::new();
    for (slot, n) in query.pattern.nodes.iter().enumerate() {
        if n.named {
            columns.push(Column::Node);
            items.push(ProjItem {
                expr: Expr::Id(Box::new(Expr::Node(slot))),
                name: n.name.clone(),
            });
        }
    }
    for (slot, r) in query.pattern.rels.iter().enumerate() {
        if r.named {
            columns.push(Column::Rel);
            items.push(ProjItem {
                expr: Expr::Id(Box::new(Expr::Rel(slot))),
                name: r.name.clone(),
            });
        }
    }
    let identity = identity_slots(&query);
    let radius = radius(&query, &identity);
    let bindings = BoundQuery {
        stages: vec![Projection {
            items,
            distinct: true,
            filter: None,
            order_by: Vec::new(),
            skip: None,
            limit: None,
        }],
        ..query
    };
    Ok(Shape {
        bindings,
        options,
        columns,
        identity,
        radius,
    })
}

fn names(shape: &Shape) -> Vec<String> {
    shape.bindings.stages[0]
        .items
        .iter()
        .map(|i| i.name.clone())
        .collect()
}

/// The named nodes and the ends of named relationships, sorted.
fn identity_slots(query: &BoundQuery) -> Vec<NodeSlot> {
    let mut slots: Vec<NodeSlot> = (0..query.pattern.nodes.len())
        .filter(|&s| query.pattern.nodes[s].named)
        .collect();
    for r in query.pattern.rels.iter().filter(|r| r.named) {
        slots.extend([r.src, r.dst]);
    }
    slots.sort_unstable();
    slots.dedup();
    slots
}

/// The farthest any other node of the pattern (or of an `EXISTS`) lies from the nearest of
/// `identity`, in hops; `None` when some node is not connected to one or `EXISTS` is nested.
fn radius(query: &BoundQuery, identity: &[NodeSlot]) -> Option<usize> {
    let named: Vec<(NodeSlot, usize)> = identity.iter().map(|&s| (s, 0)).collect();
    let outer = query.pattern.hops_from(&named)?;
    let mut radius = outer.iter().copied().max().unwrap_or(0);
    let mut subs = Vec::new();
    for e in &query.filter {
        e.walk(&mut |x| {
            if let Expr::Exists(sub) = x {
                subs.push(sub.clone());
            }
        });
    }
    for sub in subs {
        let mut nested = false;
        for f in &sub.filter {
            f.walk(&mut |x| nested |= matches!(x, Expr::Exists(_)));
        }
        if nested {
            return None;
        }
        let starts: Vec<(NodeSlot, usize)> =
            sub.anchors.iter().map(|&(o, i)| (i, outer[o])).collect();
        let inner = sub.pattern.hops_from(&starts)?;
        radius = radius.max(inner.iter().copied().max().unwrap_or(0));
    }
    Some(radius)
}

/// The nodes of `model` within `radius` hops (either direction) of a touched node, sorted;
/// `None` when they are a quarter of the graph or more (a full re-run is then cheaper).
fn affected_nodes(model: &Model, touched: &Touched, radius: usize) -> Option<Vec<u32>> {
    let limit = (model.node_count() / 4).max(64);
    let seeds: Vec<u32> = touched
        .keys()
        .filter_map(|k| model.node_by_key(k))
        .collect();
    crate::model::neighbourhood::neighbourhood(model, &seeds, radius, limit - 1)
}

/// Every match of the query.
fn all_matches(model: &Model, shape: &Shape) -> Result<Matches> {
    let (out, _) = Session::host(model).run(&shape.bindings, &shape.options)?;
    let mut matches = Matches::new();
    add_rows(model, shape, &out.rows, &mut matches);
    Ok(matches)
}

/// The matches that bind at least one of `seeds` (sorted node ids) to a node of their identity.
fn seeded_matches(model: &Model, shape: &Shape, seeds: &[u32]) -> Result<Matches> {
    let mut all = Matches::new();
    if seeds.is_empty() {
        return Ok(all);
    }
    let outputs =
        Session::host(model).run_seeded(&shape.bindings, &shape.options, &shape.identity, seeds)?;
    for out in outputs {
        let mut found = Matches::new();
        add_rows(model, shape, &out.rows, &mut found);
        // A match binding seeds in several slots is found by each of their runs, each time with
        // all its occurrences.
        for (m, k) in found {
            match all.get_mut(&m) {
                Some(have) => have.count = have.count.max(k.count),
                None => {
                    all.insert(m, k);
                }
            }
        }
    }
    Ok(all)
}

fn add_rows(model: &Model, shape: &Shape, rows: &[Vec<Val<'_>>], into: &mut Matches) {
    let key = |n: u32| model.node_key(n).unwrap_or("").to_owned();
    for row in rows {
        let mut values = Vec::with_capacity(row.len());
        let mut nodes = Vec::with_capacity(row.len());
        for (v, c) in row.iter().zip(&shape.columns) {
            let Val::Int(id) = v else {
                values.push(String::new());
                continue;
            };
            let id = *id as u32;
            match c {
                Column::Node => {
                    let k = key(id);
                    nodes.push(k.clone());
                    values.push(k);
                }
                Column::Rel => {
                    let src = model.edge_source(id).map(key).unwrap_or_default();
                    let (dst, ty) = model
                        .edge_target(id)
                        .map(|(d, t)| (key(d), model.rel_types().name(t).unwrap_or("")))
                        .unwrap_or_default();
                    values.push(format!("{src}-[:{ty}]->{dst}"));
                    nodes.push(src);
                    nodes.push(dst);
                }
            }
        }
        into.entry(values).or_insert(Kept { count: 0, nodes }).count += 1;
    }
}

/// `after` − `before` (added) and `before` − `after` (removed), as multisets, sorted.
fn difference(before: &Matches, after: &Matches, incremental: bool, affected: usize) -> MatchDiff {
    let mut diff = MatchDiff {
        incremental,
        affected,
        ..MatchDiff::default()
    };
    for (m, k) in after {
        let had = before.get(m).map_or(0, |b| b.count);
        diff.added.extend(std::iter::repeat_n(
            m.clone(),
            k.count.saturating_sub(had) as usize,
        ));
    }
    for (m, k) in before {
        let has = after.get(m).map_or(0, |a| a.count);
        diff.removed.extend(std::iter::repeat_n(
            m.clone(),
            k.count.saturating_sub(has) as usize,
        ));
    }
    diff.added.sort();
    diff.removed.sort();
    diff
}
