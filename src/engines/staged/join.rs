//! The join stage: every match of the pattern over the filter stage's candidates, binding nodes in
//! the order stage's order. Two algorithms behind one contract ([`join`]): GEMP's backtracking
//! enumerator with intersections ([`crate::engines::gemp::enumerate`], on all cores through
//! [`crate::engines::gemp::host::run_parallel`]) and GpSense's batched edge-candidate join
//! ([`crate::engines::gpsense::join::Joiner`], in parallel chunks of the first node's candidates).
//! Both evaluate the query's non-unary conjuncts (string ones on complete matches) and report
//! every distinct binding once, under node-isomorphism or homomorphism; Cypher's relationship
//! isomorphism is GEMP's join's only.

use crate::engines::gemp::enumerate::{Enumerator, State};
use crate::engines::gpsense::filter::Topo;
use crate::engines::gpsense::join::{self as gps_join, Conjuncts, Joiner, Repeat};
use crate::error::{Error, Result};
use crate::exec::candidates::{CandidateSet, Semantics};
use crate::exec::exists::ModelOracle;
use crate::exec::plan::Plan;
use crate::exec::{Control, Sink};
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, NodeSlot};

use super::JoinAlgo;

/// What a join runs on: the outputs of the filter and order stages and the run's settings.
#[derive(Clone, Copy)]
pub struct JoinInput<'a> {
    /// The model matched in.
    pub model: &'a Model,
    /// The query (pattern and `WHERE` conjuncts).
    pub query: &'a BoundQuery,
    /// Candidate sets per pattern node, from the filter stage (unary conjuncts applied, string
    /// ones included).
    pub cands: &'a [CandidateSet],
    /// The visiting order, from the order stage.
    pub order: &'a [NodeSlot],
    /// Which bindings count as matches.
    pub semantics: Semantics,
    /// Stop conditions (deadline, LIMIT).
    pub control: &'a Control,
}

/// What a join returns: one sink per parallel task, and the plan it ran (in the default planner's
/// shape, for reports and `explain`).
pub struct Joined<S> {
    /// The sinks, in the order of the first node's candidates.
    pub sinks: Vec<S>,
    /// The plan that ran.
    pub plan: Plan,
}

/// An error when `algo` cannot join under `semantics` (GpSense's join has no Cypher semantics,
/// as the GpSense engine has none).
pub fn check(algo: JoinAlgo, semantics: Semantics) -> Result<()> {
    if algo == JoinAlgo::Gpsense && semantics.distinct_edges() {
        return Err(Error::Query(
            "Cypher semantics (relationship-isomorphism, the default for Cypher text) is not in \
             GpSense's join (--join gpsense); use --join gemp, or --semantics isomorphism"
                .into(),
        ));
    }
    Ok(())
}

/// The plan `algo` runs for `input` (what [`join`] reports, without joining).
pub fn plan(algo: JoinAlgo, input: &JoinInput<'_>) -> Result<Plan> {
    check(algo, input.semantics)?;
    Ok(match algo {
        JoinAlgo::Gemp => gemp_plan(input),
        JoinAlgo::Gpsense => {
            let counts = counts(input.cands);
            gpsense_plan(input, &counts).as_planner_plan(&counts)
        }
    })
}

/// Joins by `algo`, each parallel task into its own sink from `make_sink`. Errors: Cypher
/// semantics with GpSense's join.
pub fn join<S, F>(algo: JoinAlgo, input: &JoinInput<'_>, make_sink: F) -> Result<Joined<S>>
where
    S: Sink + Send,
    F: Fn() -> S + Sync + Send,
{
    check(algo, input.semantics)?;
    Ok(match algo {
        JoinAlgo::Gemp => gemp(input, make_sink),
        JoinAlgo::Gpsense => gpsense(input, make_sink),
    })
}

fn counts(cands: &[CandidateSet]) -> Vec<usize> {
    cands.iter().map(|c| c.len()).collect()
}

/// GEMP's plan binding the nodes in the given order (expansions along the cheapest sampled
/// relationship, checks, conjuncts at their first bound step).
fn gemp_plan(input: &JoinInput<'_>) -> Plan {
    crate::engines::gemp::plan_in_order_for(input.model, input.query, input.cands, input.order)
}

fn gemp<S, F>(input: &JoinInput<'_>, make_sink: F) -> Joined<S>
where
    S: Sink + Send,
    F: Fn() -> S + Sync + Send,
{
    let plan = gemp_plan(input);
    let (k, r) = (
        input.query.pattern.nodes.len(),
        input.query.pattern.rels.len(),
    );
    // Pure enumeration: no combinatorial counting of trailing groups.
    let e = Enumerator::new(
        input.model,
        input.query,
        &plan,
        input.cands,
        input.semantics,
        input.control,
        false,
    );
    let sinks = if plan.steps.is_empty() {
        let mut sink = make_sink();
        e.run(&[], &mut State::new(k, r), &mut sink);
        vec![sink]
    } else {
        crate::engines::gemp::host::run_parallel(&e, e.pivot_candidates(), k, r, make_sink)
    };
    Joined { sinks, plan }
}

/// GpSense's plan visiting the nodes in the given order.
fn gpsense_plan(input: &JoinInput<'_>, counts: &[usize]) -> crate::engines::gpsense::plan::GpsPlan {
    crate::engines::gpsense::plan::plan_in_order(
        input.model,
        input.query,
        counts,
        input.order,
        true,
    )
}

fn gpsense<S, F>(input: &JoinInput<'_>, make_sink: F) -> Joined<S>
where
    S: Sink + Send,
    F: Fn() -> S + Sync + Send,
{
    let model = input.model;
    let counts = counts(input.cands);
    let plan = gpsense_plan(input, &counts);
    let lists: Vec<Vec<u32>> = input.cands.iter().map(|c| c.nodes.clone()).collect();
    let flags: Vec<Vec<bool>> = input
        .cands
        .iter()
        .map(|c| {
            let mut f = vec![false; model.node_count()];
            for &v in &c.nodes {
                f[v as usize] = true;
            }
            f
        })
        .collect();
    let topo = Topo::of_model(model);
    let edges = gps_join::collect_all_edge_candidates(&topo, input.query, &lists, &flags);
    drop(flags);
    let oracle = ModelOracle {
        model,
        semantics: input.semantics,
    };
    let joiner = Joiner {
        query: input.query,
        plan: &plan,
        cands: &lists,
        edges: &edges,
        repeat: Repeat::of(input.semantics),
        all_anonymous: false,
        conjuncts: Some(Conjuncts {
            model,
            oracle: &oracle,
        }),
        control: input.control,
    };
    let sinks = joiner.run_parallel(make_sink);
    Joined {
        sinks,
        plan: plan.as_planner_plan(&counts),
    }
}
