//! The distributed plan of a bound query: the order in which query vertices extend partial
//! matches, each vertex's back-edges (the neighbour lists whose intersection proposes its
//! candidates), the `WHERE` conjuncts each vertex checks where its data lives, and what the
//! result is (a count, or rows of per-node values). What the plan cannot run is refused with
//! [`Error::Cluster`] ("not supported on a cluster: …"), never answered wrongly.
//!
//! The order depends on the pattern alone (not on a part's statistics, which differ from process
//! to process), so that every process builds the same dataflow: the first vertex is the one with
//! the most constraints (labels, then conjuncts, then degree), and each next one the vertex with
//! the most edges to the vertices already placed (then the most constraints, then the lowest slot).

use crate::error::{Error, Result};
use crate::exec::plan::Dir;
use crate::exec::Semantics;
use crate::pattern::ir::{AggFn, BoundQuery, Expr, NodeSlot, Projection};

/// One neighbour list a vertex's candidates must be in: the list of the vertex at position
/// `pos` of the partial match, in direction `dir`, over relationships of `types` (empty: any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackEdge {
    /// Position in the partial match of the bound end.
    pub pos: usize,
    /// Direction from the bound end.
    pub dir: Dir,
    /// Relationship types (empty: any).
    pub types: Vec<u32>,
}

/// One step of the order: the query vertex bound at this position.
#[derive(Debug, Clone)]
pub struct Vertex {
    /// Its pattern slot.
    pub slot: NodeSlot,
    /// Its labels in conjunctive normal form (every inner list: one of these labels).
    pub labels: Vec<Vec<u32>>,
    /// Lists of bound vertices its candidates must be in (empty for the first vertex).
    pub back: Vec<BackEdge>,
    /// Self-loops: relationship types (empty: any) of `v -> v` edges it must have.
    pub loops: Vec<Vec<u32>>,
    /// Indices of the query's `WHERE` conjuncts evaluated at this vertex's owner.
    pub filters: Vec<usize>,
    /// Indices of the conjuncts over several nodes that read only their ids (`id(a) < id(b)`),
    /// evaluated once this vertex, the last of their nodes, is bound.
    pub id_filters: Vec<usize>,
    /// Indices of the returned items evaluated at this vertex's owner.
    pub items: Vec<usize>,
}

/// A pattern relationship placed in the order (for Cypher semantics, where every relationship
/// binds an edge of its own): the positions of its ends in the partial match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedRel {
    /// Position of the source (for an undirected relationship: the first node as written).
    pub src: usize,
    /// Position of the target.
    pub dst: usize,
    /// Relationship types (empty: any).
    pub types: Vec<u32>,
    /// Either direction.
    pub undirected: bool,
    /// The `MATCH` clause it was written in: relationships of one clause bind distinct edges.
    pub clause: usize,
}

impl PlacedRel {
    /// The position bound last of its two ends.
    pub fn last(&self) -> usize {
        self.src.max(self.dst)
    }

    /// True when it may bind an edge of type `t`.
    pub fn allows(&self, t: u32) -> bool {
        self.types.is_empty() || self.types.contains(&t)
    }
}

/// What a run gives back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// The number of matches (no projection, or a lone `count(*)` named `column`).
    Count {
        /// The column name.
        column: String,
    },
    /// Rows of the projection's items (each a per-node value or `count(*)`).
    Rows,
}

/// The distributed plan.
#[derive(Debug, Clone)]
pub struct DistPlan {
    /// The vertices in extension order.
    pub order: Vec<Vertex>,
    /// Pattern node count (slots).
    pub slots: usize,
    /// The slot bound at each position of a partial match.
    pub slot_at: Vec<NodeSlot>,
    /// Distinct pattern nodes bind distinct nodes.
    pub injective: bool,
    /// Cypher semantics: every relationship binds an edge, those of one `MATCH` clause distinct
    /// edges (a match counts once per such choice of edges; nodes may repeat).
    pub edges: bool,
    /// The pattern's relationships with the positions of their ends (all semantics).
    pub rels: Vec<PlacedRel>,
    /// Every relationship names its types and no two share one: no edge can be bound by two
    /// relationships, so under Cypher semantics a match's ways are the product of each
    /// relationship's parallel edges.
    pub disjoint_types: bool,
    /// What comes back.
    pub output: Output,
}

fn refuse(what: &str) -> Error {
    Error::Cluster(format!(
        "not supported on a cluster: {what} (run it with `gemp match` on one machine)"
    ))
}

/// True when every node `e` reads is read only through `id()`.
fn reads_ids_only(e: &Expr) -> bool {
    let (mut nodes, mut ids) = (0usize, 0usize);
    e.walk(&mut |x| match x {
        Expr::Node(_) => nodes += 1,
        Expr::Id(inner) if matches!(**inner, Expr::Node(_)) => ids += 1,
        _ => {}
    });
    nodes == ids
}

/// The node slots `e` reads; an error for what the plan cannot evaluate where a node lives.
fn node_slots(e: &Expr, out: &mut Vec<NodeSlot>) -> Result<()> {
    let mut bad: Option<&'static str> = None;
    e.walk(&mut |x| match x {
        Expr::Node(s) => out.push(*s),
        Expr::Rel(_) => bad = bad.or(Some("relationship variables or properties")),
        Expr::Exists(_) => bad = bad.or(Some("EXISTS and pattern predicates")),
        Expr::Column(_) => bad = bad.or(Some("WITH")),
        Expr::Aggregate { .. } => bad = bad.or(Some("aggregates inside expressions")),
        _ => {}
    });
    out.sort_unstable();
    out.dedup();
    match bad {
        Some(what) => Err(refuse(what)),
        None => Ok(()),
    }
}

impl DistPlan {
    /// The plan of `query` under `semantics`, or why it cannot run on a cluster.
    pub fn new(query: &BoundQuery, semantics: Semantics) -> Result<DistPlan> {
        if let Some(what) = query.host_only_clause() {
            return Err(refuse(what));
        }
        let p = &query.pattern;
        if p.nodes.is_empty() {
            return Err(refuse("a query without pattern nodes"));
        }
        if let Some(r) = p.rels.iter().find(|r| r.named) {
            return Err(refuse(&format!(
                "named relationships (`{}`): they are enumerated edge by edge",
                r.name
            )));
        }
        let n = p.nodes.len();
        // Conjuncts by the one node they read (a constant conjunct goes to the first vertex).
        let mut filter_slot = Vec::new();
        let mut id_filters: Vec<(usize, Vec<NodeSlot>)> = Vec::new();
        for (k, e) in query.filter.iter().enumerate() {
            let mut slots = Vec::new();
            node_slots(e, &mut slots)?;
            if slots.len() > 1 {
                if !reads_ids_only(e) {
                    return Err(refuse(
                        "WHERE conditions that read properties or labels of two or more \
                         pattern nodes (only id() comparisons)",
                    ));
                }
                id_filters.push((k, slots));
                filter_slot.push(None);
                continue;
            }
            filter_slot.push(slots.first().copied());
        }
        let is_id_filter = |k: usize| id_filters.iter().any(|(f, _)| *f == k);
        let (item_slot, output) = output_of(query)?;
        // The order: pattern shape only.
        let score = |s: usize| {
            (
                p.nodes[s].labels.len(),
                filter_slot.iter().filter(|&&f| f == Some(s)).count(),
                p.degrees()[s],
            )
        };
        let first = (0..n)
            .max_by_key(|&s| (score(s), std::cmp::Reverse(s)))
            .unwrap_or(0);
        let mut placed = vec![first];
        while placed.len() < n {
            let links = |s: usize| {
                p.rels
                    .iter()
                    .filter(|r| {
                        (r.src == s && placed.contains(&r.dst))
                            || (r.dst == s && placed.contains(&r.src))
                    })
                    .count()
            };
            let next = (0..n)
                .filter(|s| !placed.contains(s))
                .max_by_key(|&s| (links(s), score(s), std::cmp::Reverse(s)))
                .unwrap_or(0);
            if links(next) == 0 {
                return Err(refuse("a pattern of several unconnected parts"));
            }
            placed.push(next);
        }
        let pos_of = |s: usize| placed.iter().position(|&x| x == s).unwrap_or(0);
        let order = placed
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let mut back = Vec::new();
                let mut loops = Vec::new();
                for r in &p.rels {
                    let (a, b) = (pos_of(r.src), pos_of(r.dst));
                    if r.src == s && r.dst == s {
                        loops.push(r.types.clone());
                    } else if b == i && a < i {
                        let dir = if r.undirected { Dir::Both } else { Dir::Out };
                        back.push(BackEdge {
                            pos: a,
                            dir,
                            types: r.types.clone(),
                        });
                    } else if a == i && b < i {
                        let dir = if r.undirected { Dir::Both } else { Dir::In };
                        back.push(BackEdge {
                            pos: b,
                            dir,
                            types: r.types.clone(),
                        });
                    }
                }
                let slot_or_first = |f: &Option<usize>| f.map_or(i == 0, |x| x == s);
                Vertex {
                    slot: s,
                    labels: p.nodes[s].labels.clone(),
                    back,
                    loops,
                    filters: (0..filter_slot.len())
                        .filter(|&k| !is_id_filter(k) && slot_or_first(&filter_slot[k]))
                        .collect(),
                    id_filters: id_filters
                        .iter()
                        .filter(|(_, slots)| slots.iter().map(|&x| pos_of(x)).max() == Some(i))
                        .map(|(k, _)| *k)
                        .collect(),
                    items: (0..item_slot.len())
                        .filter(|&k| item_slot[k].is_some_and(|x| slot_or_first(&x)))
                        .collect(),
                }
            })
            .collect();
        let rels = p
            .rels
            .iter()
            .map(|r| PlacedRel {
                src: pos_of(r.src),
                dst: pos_of(r.dst),
                types: r.types.clone(),
                undirected: r.undirected,
                clause: r.clause,
            })
            .collect();
        let mut named: Vec<u32> = p.rels.iter().flat_map(|r| r.types.clone()).collect();
        let typed = p.rels.iter().all(|r| !r.types.is_empty());
        let total = named.len();
        named.sort_unstable();
        named.dedup();
        let disjoint_types = typed && named.len() == total;
        Ok(DistPlan {
            disjoint_types,
            order,
            slots: n,
            slot_at: placed.clone(),
            injective: semantics == Semantics::Isomorphism,
            edges: semantics == Semantics::Cypher,
            rels,
            output,
        })
    }

    /// True when the last vertex is counted rather than bound: a count whose last vertex
    /// evaluates no items.
    pub fn counts_last(&self) -> bool {
        matches!(self.output, Output::Count { .. })
    }

    /// True when the vertex at position `i` is the last of a count and can be counted where its
    /// candidates are proposed, without visiting their owners: its only checks are labels (read
    /// from a sieve, [`super::sieve`]), id comparisons and injectivity, it returns no item, and
    /// under Cypher semantics it has a single back-edge (whose node's lists hold every edge the
    /// candidate's relationships can bind).
    pub fn counted_where_proposed(&self, i: usize) -> bool {
        let Some(v) = self.order.get(i) else {
            return false;
        };
        i > 0
            && i + 1 == self.order.len()
            && self.counts_last()
            && v.filters.is_empty()
            && v.loops.is_empty()
            && v.items.is_empty()
            && (!self.edges || self.weighed_where_proposed(i))
    }

    /// For a triangle count (three vertices, the third counted where proposed, with one back-edge
    /// to each of the others, the second with its one back-edge to the first): the third
    /// vertex's back-edges to the first and to the second (indices into its `back`). Its list
    /// from the first node is then read by the scan, while that node's lists are at hand, and
    /// travels with the partial match to the second node's owner, which intersects and counts:
    /// one trip per partial match instead of BiGJoin's four.
    pub fn triangle_ahead(&self) -> Option<(usize, usize)> {
        let third = self.order.get(2)?;
        if self.order.len() != 3
            || !self.counted_where_proposed(2)
            || self.order[1].back.len() != 1
            || third.back.len() != 2
        {
            return None;
        }
        let to = |pos: usize| third.back.iter().position(|b| b.pos == pos);
        Some((to(0)?, to(1)?))
    }

    /// True when the vertex at position `i` is counted where its proposer was bound: it is
    /// [counted where proposed](Self::counted_where_proposed) and its one back-edge is to the
    /// vertex just before it (so the worker that binds that vertex holds the list).
    pub fn counted_at_previous_owner(&self, i: usize) -> bool {
        self.counted_where_proposed(i)
            && self
                .order
                .get(i)
                .is_some_and(|v| v.back.len() == 1 && v.back[0].pos + 1 == i)
    }

    /// True when, under Cypher semantics, the candidates of the vertex at position `i` are
    /// weighed (the ways their relationships bind edges) where they are proposed and intersected,
    /// not at their owners: a vertex without self-loops and either with one back-edge (whose
    /// node's lists hold every edge its relationship can bind) or in a pattern whose
    /// relationships' types are [disjoint](Self::disjoint_types) (a candidate's ways are then the
    /// product of its parallel edges in each back-edge's list).
    pub fn weighed_where_proposed(&self, i: usize) -> bool {
        self.edges
            && i > 0
            && self
                .order
                .get(i)
                .is_some_and(|v| v.loops.is_empty() && (v.back.len() == 1 || self.disjoint_types))
    }
}

/// Per returned item: the vertex it is evaluated at (`Some(None)`: a constant; `None`:
/// `count(*)`), and what the run gives back.
#[allow(clippy::type_complexity)]
fn output_of(query: &BoundQuery) -> Result<(Vec<Option<Option<NodeSlot>>>, Output)> {
    let Some(proj) = query.stages.first() else {
        return Ok((
            Vec::new(),
            Output::Count {
                column: "count".into(),
            },
        ));
    };
    if query.stages.len() > 1 {
        return Err(refuse("WITH"));
    }
    check_projection(proj)?;
    let is_count_star = |e: &Expr| {
        matches!(
            e,
            Expr::Aggregate {
                func: AggFn::Count,
                distinct: false,
                arg: None
            }
        )
    };
    if proj.items.len() == 1
        && is_count_star(&proj.items[0].expr)
        && proj.skip.is_none()
        && proj.limit.is_none_or(|l| l > 0)
    {
        return Ok((
            vec![None],
            Output::Count {
                column: proj.items[0].name.clone(),
            },
        ));
    }
    let mut slots = Vec::new();
    for item in &proj.items {
        if is_count_star(&item.expr) {
            slots.push(None);
            continue;
        }
        if let Expr::Aggregate { func, arg, .. } = &item.expr {
            // Its argument is evaluated where its node lives; process 0 aggregates.
            let Some(arg) = arg else {
                return Err(refuse("an aggregate without an argument"));
            };
            let mut s = Vec::new();
            node_slots(arg, &mut s)?;
            if s.len() > 1 {
                return Err(refuse("an aggregate over two or more pattern nodes"));
            }
            if matches!(**arg, Expr::Node(_)) && *func != AggFn::Count {
                return Err(refuse(&format!(
                    "aggregating whole nodes (`{}`): aggregate their properties or id()",
                    item.name
                )));
            }
            slots.push(Some(s.first().copied()));
            continue;
        }
        let mut s = Vec::new();
        node_slots(&item.expr, &mut s)?;
        if s.len() > 1 {
            return Err(refuse(
                "a returned expression over two or more pattern nodes",
            ));
        }
        if matches!(item.expr, Expr::Node(_)) {
            return Err(refuse(&format!(
                "returning whole nodes (`{}`): return their properties or id()",
                item.name
            )));
        }
        slots.push(Some(s.first().copied()));
    }
    Ok((slots, Output::Rows))
}

/// Refuses what the rows' combination at worker 0 does not do.
fn check_projection(proj: &Projection) -> Result<()> {
    if proj.filter.is_some() {
        return Err(refuse("WITH … WHERE"));
    }
    for (e, _) in &proj.order_by {
        let mut bad = false;
        e.walk(&mut |x| bad |= matches!(x, Expr::Node(_) | Expr::Rel(_) | Expr::Aggregate { .. }));
        if bad {
            return Err(refuse(
                "ORDER BY an expression that is not a returned column",
            ));
        }
    }
    Ok(())
}
