//! `gemp explain` for GEMP's host and device engines: what runs for a query (the row-by-row
//! executor, the candidate-space core, a factorised plan or the enumeration in plan order), on top of
//! the shared rendering of the plan ([`crate::exec::explain`]).

use std::fmt::Write;

use crate::exec::explain::render_under;
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// What the host engine runs for `query`: its plan (unary string predicates filter candidates
/// first), then either the factorised execution that replaces the matching order or the
/// enumeration in that order.
pub fn host_execution(model: &Model, query: &BoundQuery, options: &super::MatchOptions) -> String {
    if query.clauses.is_some() {
        let head = match query.clauses.as_deref() {
            Some(c) if c.steps.is_empty() => {
                // A UNION of core queries: the first one's plan, then the others.
                let mut core = query.clone();
                core.clauses = None;
                host_execution(model, &core, options)
            }
            _ => String::new(),
        };
        return head + &super::clauses::describe(model, query);
    }
    if let Some(text) = super::space_exec::describe(model, query, options) {
        return text;
    }
    let (plan, cands, _) = super::prepare_host(model, query, options.semantics);
    let mut o = render_under(query, &plan, model, options.semantics);
    if let Some(reduced) = super::count_symmetry(model, query, &plan, &cands, options) {
        // The run counts the symmetry-reduced query and multiplies.
        let name = |s: usize| query.pattern.nodes[s].name.clone();
        let stated: Vec<String> = reduced
            .conds
            .iter()
            .map(|&(a, b)| format!("id({}) < id({})", name(a), name(b)))
            .collect();
        let fp = super::choose_factorised(model, &reduced.query, &reduced.plan, &cands, options);
        if let Some(fp) = fp {
            let _ = write!(
                o,
                "\nsymmetry breaking: the pattern's automorphisms are broken by {}; the count is \
                 multiplied by {}\nhost execution (the matching order above is replaced):\n{}",
                stated.join(", "),
                reduced.factor,
                fp.describe(&reduced.query)
            );
            return o;
        }
    }
    match super::choose_factorised(model, query, &plan, &cands, options) {
        Some(fp) => {
            let _ = write!(
                o,
                "\nhost execution (the matching order above is replaced):\n{}",
                fp.describe(query)
            );
        }
        None => {
            let _ = writeln!(
                o,
                "\nhost execution: enumeration in the matching order above"
            );
        }
    }
    o
}

/// What GEMP's device engine runs for `query`: the plan of the topology kernel (string
/// predicates wait for the attribute phase) and the result stage on the host.
pub fn device_execution(
    model: &Model,
    query: &BoundQuery,
    options: &super::MatchOptions,
) -> String {
    if query.clauses.is_some() {
        // The device refuses these clauses; the host runs them.
        return host_execution(model, query, options);
    }
    #[cfg(feature = "opencl")]
    if let Some(factorised) = super::device::factorised::describe(model, query, options) {
        let (plan, _, _) = super::prepare_host(model, query, options.semantics);
        let mut o = render_under(query, &plan, model, options.semantics);
        let _ = write!(o, "\n{factorised}");
        return o;
    }
    let (plan, _, _) = super::prepare(model, query, options.semantics);
    let mut o = render_under(query, &plan, model, options.semantics);
    let _ = writeln!(
        o,
        "\ndevice execution: phase 1 (topology kernel) seeds one work item per pivot candidate and \
         backtracks in the matching order above; phase 2 checks the string predicates of the \
         matched nodes; the result stage runs on the host"
    );
    o
}
