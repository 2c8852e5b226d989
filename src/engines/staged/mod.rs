//! Swappable matching stages, as in Sun & Luo's subgraph-matching study: a **filter** (candidate
//! sets per pattern node), an **order** (the node visiting order) and a **join** (the matches),
//! each with one contract and two algorithms — GEMP's and GpSense's — that combine freely
//! ([`StageChoice`], `gemp match --filter gpsense --order gemp --join gpsense`).
//!
//! ```text
//! filter::filter ─► Vec<CandidateSet> ─► order::order ─► Vec<NodeSlot> ─► join::join ─► sinks ─► results
//!   gemp | gpsense                         gemp | gpsense                   gemp | gpsense
//! ```
//!
//! [`execute`] runs the three stages and the result stage, timing each ([`Timings`]: filter,
//! plan = order, enumerate = join, results). It always enumerates (no factorised or
//! symmetry-reduced counting, no tail-group shortcut), so stage algorithms compare on equal terms.
//! Queries with `OPTIONAL MATCH`, `UNWIND`, `UNION` or variable-length relationships are refused
//! with an [`Error::Query`]: those run on the default host pipeline only.

pub mod filter;
pub mod join;
pub mod order;

use std::time::Instant;

use crate::error::{Error, Result};
use crate::exec::exists::ModelOracle;
use crate::exec::Control;
use crate::exec::{drive, Drive, Search, Sink};
use crate::exec::{MatchOptions, QueryOutput, Timings};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

use join::JoinInput;

/// Defines a stage's algorithm choice: GEMP's or GpSense's.
macro_rules! algo_enum {
    ($(#[$doc:meta])* $name:ident, $stage:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
        pub enum $name {
            /// GEMP's algorithm (the default).
            #[default]
            Gemp,
            /// GpSense's algorithm.
            Gpsense,
        }

        impl $name {
            /// Every algorithm of this stage.
            pub const ALL: [$name; 2] = [$name::Gemp, $name::Gpsense];

            /// The name options take and reports print (`gemp`, `gpsense`).
            pub fn name(self) -> &'static str {
                match self {
                    $name::Gemp => "gemp",
                    $name::Gpsense => "gpsense",
                }
            }

            /// Parses a name (case-insensitive, surrounding spaces ignored).
            pub fn parse(name: &str) -> Result<Self> {
                Self::ALL
                    .into_iter()
                    .find(|a| a.name().eq_ignore_ascii_case(name.trim()))
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "unknown {} algorithm `{}` (expected gemp or gpsense)",
                            $stage,
                            name.trim()
                        ))
                    })
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

algo_enum!(
    /// The filter stage's algorithm (see [`filter::filter`]).
    FilterAlgo,
    "filter"
);
algo_enum!(
    /// The order stage's algorithm (see [`order::order`]).
    OrderAlgo,
    "order"
);
algo_enum!(
    /// The join stage's algorithm (see [`join::join`]).
    JoinAlgo,
    "join"
);

/// One algorithm per stage. The default is GEMP's for each; it prints as
/// `filter=gemp order=gpsense join=gemp` and parses from `filter=…,order=…,join=…`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StageChoice {
    /// Candidate filtering.
    pub filter: FilterAlgo,
    /// Visiting order.
    pub order: OrderAlgo,
    /// Join.
    pub join: JoinAlgo,
}

impl StageChoice {
    /// All eight combinations.
    pub fn all() -> Vec<StageChoice> {
        let mut v = Vec::with_capacity(8);
        for filter in FilterAlgo::ALL {
            for order in OrderAlgo::ALL {
                for join in JoinAlgo::ALL {
                    v.push(StageChoice {
                        filter,
                        order,
                        join,
                    });
                }
            }
        }
        v
    }

    /// Parses `filter=…,order=…,join=…` (commas or spaces between; any subset in any order,
    /// the others GEMP's). Errors: an unknown stage or algorithm, a stage given twice.
    pub fn parse(text: &str) -> Result<StageChoice> {
        let mut choice = StageChoice::default();
        let mut seen = [false; 3];
        for part in text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|p| !p.is_empty())
        {
            let Some((stage, algo)) = part.split_once('=') else {
                return Err(Error::InvalidArgument(format!(
                    "stage choice `{part}` is not STAGE=ALGORITHM (e.g. filter=gpsense)"
                )));
            };
            let i = match stage.trim().to_ascii_lowercase().as_str() {
                "filter" => {
                    choice.filter = FilterAlgo::parse(algo)?;
                    0
                }
                "order" => {
                    choice.order = OrderAlgo::parse(algo)?;
                    1
                }
                "join" => {
                    choice.join = JoinAlgo::parse(algo)?;
                    2
                }
                other => {
                    return Err(Error::InvalidArgument(format!(
                        "unknown stage `{other}` (expected filter, order or join)"
                    )))
                }
            };
            if std::mem::replace(&mut seen[i], true) {
                return Err(Error::InvalidArgument(format!(
                    "stage `{}` is given twice",
                    stage.trim()
                )));
            }
        }
        Ok(choice)
    }
}

impl std::fmt::Display for StageChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "filter={} order={} join={}",
            self.filter, self.order, self.join
        )
    }
}

impl std::str::FromStr for StageChoice {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        StageChoice::parse(s)
    }
}

/// An error for queries the stages do not run (clauses only the default host pipeline runs), and
/// for Cypher semantics with GpSense's join.
pub fn check(query: &BoundQuery, options: &MatchOptions, choice: StageChoice) -> Result<()> {
    if query.clauses.is_some() {
        let what = query.host_only_clause().unwrap_or("this query's clauses");
        return Err(Error::Query(
            format!(
                "{what} is not supported with stage algorithms (--filter/--order/--join, \
             stages={choice}); run it without them"
            )
            .into(),
        ));
    }
    join::check(choice.join, options.semantics)
}

/// Runs `query` through the chosen filter, order and join, then the result stage; each stage
/// timed. Results equal [`crate::engines::gemp::execute`]'s (rows in another order when the query does
/// not order them). Errors: see [`check`].
pub fn execute<'m>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
    choice: StageChoice,
) -> Result<QueryOutput<'m>> {
    check(query, options, choice)?;
    let semantics = options.semantics;
    let control = Control::new(options.timeout.map(|d| Instant::now() + d));
    let mut timings = Timings::default();

    let start = Instant::now();
    let cands = filter::filter(choice.filter, model, query, semantics);
    timings.filter = start.elapsed();

    let start = Instant::now();
    let order = order::order(choice.order, model, query, &cands);
    timings.plan = start.elapsed();

    let input = JoinInput {
        model,
        query,
        cands: &cands,
        order: &order,
        semantics,
        control: &control,
    };
    let oracle = ModelOracle { model, semantics };
    let mut search = StagedSearch {
        algo: choice.join,
        input: &input,
        plan: None,
    };
    let run = Drive {
        model,
        query,
        options,
        control: &control,
        oracle: &oracle,
        timings,
    };
    drive(run, &mut search)
}

/// The chosen join's search for [`drive`]; the join makes the plan the output reports.
struct StagedSearch<'i, 'a> {
    algo: JoinAlgo,
    input: &'i JoinInput<'a>,
    plan: Option<crate::exec::plan::Plan>,
}

impl Search for StagedSearch<'_, '_> {
    fn search<S: Sink + Send>(
        &mut self,
        make_sink: &(dyn Fn() -> S + Sync + Send),
    ) -> Result<Vec<S>> {
        let joined = join::join(self.algo, self.input, make_sink)?;
        self.plan = Some(joined.plan);
        Ok(joined.sinks)
    }

    fn plan(&mut self) -> crate::exec::plan::Plan {
        self.plan
            .take()
            .unwrap_or_else(|| join::plan(self.algo, self.input).unwrap_or_default())
    }
}

/// How the stages run `query` (`gemp explain --filter … --order … --join …`): the choice, each
/// node's candidate count after the chosen filter, the chosen order, and the chosen join's plan.
pub fn explain(
    model: &Model,
    query: &BoundQuery,
    options: &MatchOptions,
    choice: StageChoice,
) -> Result<String> {
    check(query, options, choice)?;
    let cands = filter::filter(choice.filter, model, query, options.semantics);
    let order = order::order(choice.order, model, query, &cands);
    let control = Control::new(None);
    let input = JoinInput {
        model,
        query,
        cands: &cands,
        order: &order,
        semantics: options.semantics,
        control: &control,
    };
    let plan = join::plan(choice.join, &input)?;
    let name = |slot: usize| {
        query
            .pattern
            .nodes
            .get(slot)
            .map_or_else(|| format!("#{slot}"), |n| n.name.clone())
    };
    let mut text = format!("stages: {choice}\n");
    text.push_str(&format!("filter ({}): candidates", choice.filter));
    for (slot, c) in cands.iter().enumerate() {
        text.push_str(&format!(
            "{} {} {}",
            if slot == 0 { "" } else { "," },
            name(slot),
            c.len()
        ));
    }
    text.push('\n');
    let names: Vec<String> = order.iter().map(|&s| name(s)).collect();
    text.push_str(&format!(
        "order ({}): {}\n",
        choice.order,
        names.join(" → ")
    ));
    text.push_str(&format!(
        "join ({}): {}\n",
        choice.join,
        match choice.join {
            JoinAlgo::Gemp => {
                "backtracking from the first node's candidates on all cores, each step expanding \
                 the relationship of least sampled fan-out (intersections for the others), \
                 string predicates on complete matches"
            }
            JoinAlgo::Gpsense => {
                "edge candidates collected per relationship, partial matches extended in batches \
                 along the cheapest relationship to an earlier node (the others checked), string \
                 predicates on complete matches"
            }
        }
    ));
    text.push('\n');
    text.push_str(&crate::exec::explain::render_under(
        query,
        &plan,
        model,
        options.semantics,
    ));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_choices_print_and_parse_back() {
        assert_eq!(
            StageChoice::default().to_string(),
            "filter=gemp order=gemp join=gemp"
        );
        let all = StageChoice::all();
        assert_eq!(all.len(), 8);
        for c in &all {
            assert_eq!(StageChoice::parse(&c.to_string()).unwrap(), *c);
            let commas = c.to_string().replace(' ', ",");
            assert_eq!(commas.parse::<StageChoice>().unwrap(), *c);
        }
        let c = StageChoice::parse(" join=GpSense , filter=gpsense").unwrap();
        assert_eq!(
            c,
            StageChoice {
                filter: FilterAlgo::Gpsense,
                order: OrderAlgo::Gemp,
                join: JoinAlgo::Gpsense,
            }
        );
        assert_eq!(StageChoice::parse("").unwrap(), StageChoice::default());
        assert_eq!(OrderAlgo::parse("gpsense").unwrap(), OrderAlgo::Gpsense);
        for (bad, says) in [
            ("filter=fast", "unknown filter algorithm `fast`"),
            ("sort=gemp", "unknown stage `sort`"),
            ("join", "not STAGE=ALGORITHM"),
            ("order=gemp,order=gpsense", "given twice"),
        ] {
            let err = StageChoice::parse(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
