//! Symmetry breaking for pure counts (Grochow & Kellis): a pattern with automorphisms (the three
//! persons of a co-star cycle can be rotated and reflected) has every match counted once per
//! automorphism. For `RETURN count(*)` under node-injective semantics, the search can instead
//! require `id(v) < id(u)` for a node `v` and the other nodes `u` of its orbit, repeat inside
//! the stabiliser of `v`, and multiply the count by the product of the orbit sizes: the
//! automorphism group acts freely on injective matches, and each round keeps exactly one match per
//! coset of the stabiliser.
//!
//! Only nodes the factorised plan keeps (enumerates) get conditions: an eliminated node is
//! counted in bulk already, and a condition on it would force the search to enumerate it.

use super::factorised::FactorPlan;
use crate::pattern::ir::{BoundQuery, CmpOp, Expr, NodeSlot};

/// Most automorphisms enumerated; a larger group is left alone.
const MAX_AUTOMORPHISMS: usize = 5040;
/// Most search nodes spent looking for automorphisms.
const MAX_SEARCH: usize = 200_000;

/// Symmetry-breaking conditions for `query` and the factor the count must be multiplied by, or
/// `None` when the pattern has no usable symmetry. `fixed[s]` marks nodes that must map to
/// themselves (they carry unary conjuncts); conditions go on nodes `fp` keeps.
pub fn conditions(
    query: &BoundQuery,
    fixed: &[bool],
    fp: &FactorPlan,
) -> Option<(Vec<(NodeSlot, NodeSlot)>, u64)> {
    let p = &query.pattern;
    if p.rels.iter().any(|r| r.named) {
        return None;
    }
    let mut group = automorphisms(query, fixed)?;
    let kept: Vec<NodeSlot> = fp.steps.iter().map(|s| s.node).collect();
    let mut conds = Vec::new();
    let mut factor = 1u64;
    while group.len() > 1 {
        // The kept node with the largest orbit under the current group.
        let orbit = |v: NodeSlot| {
            let mut o: Vec<NodeSlot> = group.iter().map(|g| g[v]).collect();
            o.sort_unstable();
            o.dedup();
            o
        };
        let Some((v, o)) = kept
            .iter()
            .map(|&v| (v, orbit(v)))
            .filter(|(_, o)| o.len() > 1)
            .max_by_key(|(v, o)| (o.len(), std::cmp::Reverse(*v)))
        else {
            break;
        };
        for &u in &o {
            if u != v {
                conds.push((v, u));
            }
        }
        factor *= o.len() as u64;
        group.retain(|g| g[v] == v);
    }
    (!conds.is_empty()).then_some((conds, factor))
}

/// `query` with `id(a) < id(b)` added for every condition.
pub fn with_conditions(query: &BoundQuery, conds: &[(NodeSlot, NodeSlot)]) -> BoundQuery {
    let mut q = query.clone();
    let id = |s: NodeSlot| Expr::Id(Box::new(Expr::Node(s)));
    for &(a, b) in conds {
        q.filter
            .push(Expr::Compare(CmpOp::Lt, Box::new(id(a)), Box::new(id(b))));
    }
    q
}

/// Every automorphism of the pattern (as node permutations, identity included) that preserves
/// labels, relationships (types, direction) and the `fixed` nodes; `None` when the search is too
/// large.
fn automorphisms(query: &BoundQuery, fixed: &[bool]) -> Option<Vec<Vec<NodeSlot>>> {
    let p = &query.pattern;
    let k = p.nodes.len();
    // A relationship as a comparable key, endpoints mapped by `perm`.
    let key = |r: &crate::pattern::ir::RelVar, perm: &[NodeSlot]| {
        let (mut a, mut b) = (perm[r.src], perm[r.dst]);
        if r.undirected && a > b {
            std::mem::swap(&mut a, &mut b);
        }
        let mut types = r.types.clone();
        types.sort_unstable();
        (a, b, types, r.undirected)
    };
    let identity: Vec<NodeSlot> = (0..k).collect();
    let mut want: Vec<_> = p.rels.iter().map(|r| key(r, &identity)).collect();
    want.sort();
    let degree = |s: NodeSlot| {
        let out = p.rels.iter().filter(|r| r.src == s).count();
        let inc = p.rels.iter().filter(|r| r.dst == s).count();
        (out, inc)
    };
    let mut out = Vec::new();
    let mut perm = vec![usize::MAX; k];
    let mut used = vec![false; k];
    let mut budget = MAX_SEARCH;
    #[allow(clippy::too_many_arguments)]
    fn go(
        i: usize,
        k: usize,
        perm: &mut Vec<NodeSlot>,
        used: &mut Vec<bool>,
        ok: &dyn Fn(NodeSlot, NodeSlot) -> bool,
        complete: &dyn Fn(&[NodeSlot]) -> bool,
        out: &mut Vec<Vec<NodeSlot>>,
        budget: &mut usize,
    ) -> bool {
        if *budget == 0 || out.len() > MAX_AUTOMORPHISMS {
            return false;
        }
        *budget -= 1;
        if i == k {
            if complete(perm) {
                out.push(perm.clone());
            }
            return true;
        }
        for t in 0..k {
            if used[t] || !ok(i, t) {
                continue;
            }
            perm[i] = t;
            used[t] = true;
            let fine = go(i + 1, k, perm, used, ok, complete, out, budget);
            used[t] = false;
            perm[i] = usize::MAX;
            if !fine {
                return false;
            }
        }
        true
    }
    let ok = |s: NodeSlot, t: NodeSlot| {
        if fixed.get(s).copied().unwrap_or(false) || fixed.get(t).copied().unwrap_or(false) {
            return s == t;
        }
        p.nodes[s].labels == p.nodes[t].labels && degree(s) == degree(t)
    };
    let complete = |perm: &[NodeSlot]| {
        let mut got: Vec<_> = p.rels.iter().map(|r| key(r, perm)).collect();
        got.sort();
        got == want
    };
    if !go(
        0,
        k,
        &mut perm,
        &mut used,
        &ok,
        &complete,
        &mut out,
        &mut budget,
    ) {
        return None;
    }
    Some(out)
}
