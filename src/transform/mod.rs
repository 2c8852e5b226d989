//! Model transformation: rule files of Cypher updating statements applied to a frozen [`Model`].
//!
//! A rule file ([`Rules`]) is a sequence of statements separated by `;`. Each statement is a read
//! part (`UNWIND`, `MATCH … WHERE …`, `OPTIONAL MATCH`, `WITH …`, optional) followed by updating
//! clauses (`CREATE`, `MERGE … [ON CREATE SET …] [ON MATCH SET …]`, `SET`, `REMOVE`, `DELETE`,
//! `DETACH DELETE`), then optionally `(WITH …)* RETURN …`, whose rows
//! ([`ChangeReport::returned`]) are computed on the model the updates leave. Statements run in
//! order ([`apply`]):
//!
//! 1. the read part finds **all** its matches on the model as it stands ([`execute`]: the host
//!    matcher through [`crate::session::Session`]; written values are evaluated there too);
//! 2. every updating clause is applied to every match, clause by clause, into a [`Delta`] over the
//!    frozen model — one atomic change: an error (a `DELETE` of a node that keeps relationships, a
//!    value of the wrong type, a `SET` on a deleted node, a value or `WHERE` that cannot be
//!    computed: an integer overflow, an integer division by zero) discards the whole statement;
//! 3. the delta is folded into a new frozen model ([`compact()`]) that the next statement reads.
//!
//! The matchers read frozen models, so step 3 makes a new one after every statement that changed
//! something: [`fold`] starts from the old model's arrays, shared rather than copied, and replaces
//! only what the statement changed (a `SET` rebuilds the changed columns; created or deleted
//! relationships splice the adjacency, re-sorting only the touched lists), with the builder path
//! as its fallback for changes the builder would have to decide (a changed primary label,
//! conflicting property types). [`apply_tracked`] also says which nodes the run touched, from
//! which [`crate::api::LiveQuery`] re-checks queries incrementally. Per statement, a
//! [`ChangeReport`] entry counts what changed.
//!
//! Files: `plan` (binding a statement), `execute` (running it), `delta` (the change layer),
//! `fold` (splicing a delta into a new model), `compact` (folding, with the builder fallback),
//! `report` (the change report), `returning` (a statement's `RETURN`, run on the rows its updates
//! leave in the new model), `touched` (the nodes a run changed, for incremental re-checking).

pub mod compact;
pub mod delta;
pub mod execute;
pub mod fold;
pub mod plan;
pub mod report;
pub mod returning;
pub mod touched;

pub use compact::compact;
pub use delta::{Delta, EdgeId, NodeId};
pub use report::{ChangeReport, Counts, StatementReport};
pub use returning::Returned;
pub use touched::Touched;

use crate::error::{Error, Result};
use crate::model::Model;
use crate::pattern::ast::Statement;
use crate::pattern::Params;
use crate::util::deadline::Deadline;
use execute::Source;

/// A parsed rule file.
#[derive(Debug, Clone)]
pub struct Rules {
    text: String,
    file: Option<String>,
    statements: Vec<Statement>,
    declared: Option<crate::exec::Semantics>,
}

impl Rules {
    /// Parses rule text; `file` names it in error messages. Syntax errors show the offending line;
    /// a bad leading `// gemp:` line is an error naming its line.
    pub fn parse(text: &str, file: Option<&str>) -> Result<Rules> {
        let named = |e: Error| match file {
            Some(f) => Error::Query(format!("{f}: {e}").into()),
            None => e,
        };
        let declared = crate::pattern::directives::parse(text)
            .map_err(named)?
            .semantics
            .map(|(s, _)| s);
        let statements =
            crate::pattern::parser::parse_rules(text).map_err(|e| e.into_error(text, file))?;
        Ok(Rules {
            text: text.to_owned(),
            file: file.map(str::to_owned),
            statements,
            declared,
        })
    }

    /// The semantics the file declares in a leading `// gemp: semantics=…` line, if any.
    pub fn declared_semantics(&self) -> Option<crate::exec::Semantics> {
        self.declared
    }

    /// The semantics the read parts match under: `asked` (the caller's), else the file's
    /// declaration, else Cypher's relationship-isomorphism (the default for Cypher text).
    pub fn semantics(&self, asked: Option<crate::exec::Semantics>) -> crate::exec::Semantics {
        asked
            .or(self.declared)
            .unwrap_or(crate::exec::Semantics::Cypher)
    }

    /// The statements, in order.
    pub fn statements(&self) -> &[Statement] {
        &self.statements
    }

    fn source(&self) -> Source<'_> {
        Source {
            text: &self.text,
            file: self.file.as_deref(),
        }
    }
}

/// How [`apply`] runs a rule file.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// Repeat the rule file until a pass changes nothing.
    pub until_fixpoint: bool,
    /// Most passes with `until_fixpoint` (at least 1).
    pub max_iterations: usize,
    /// Query parameters (`$name`).
    pub params: Params,
    /// One time limit for the whole run (every statement of every pass): once it passes the run
    /// stops with [`Error::Timeout`] and nothing is returned (the model is unchanged).
    pub timeout: Option<std::time::Duration>,
    /// How the read parts match; `None`: the rule file's `// gemp: semantics=…` line, else
    /// Cypher's relationship-isomorphism (the default for Cypher text, see [`Rules::semantics`]).
    pub semantics: Option<crate::exec::Semantics>,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions {
            until_fixpoint: false,
            max_iterations: 100,
            params: Params::default(),
            timeout: None,
            semantics: None,
        }
    }
}

/// Applies `rules` to `model`: the transformed model (`None` when nothing changed) and the report.
///
/// Each statement is atomic; the run as a whole is too, for the caller: on an error nothing is
/// returned and `model` is untouched. With `until_fixpoint`, passes repeat until one changes
/// nothing or `max_iterations` passes ran ([`ChangeReport::fixpoint_reached`] says which).
pub fn apply(
    model: &Model,
    rules: &Rules,
    options: &ApplyOptions,
) -> Result<(Option<Model>, ChangeReport)> {
    apply_tracked(model, rules, options).map(|(m, r, _)| (m, r))
}

/// [`apply`], also returning the nodes the run touched ([`Touched`], by key).
pub fn apply_tracked(
    model: &Model,
    rules: &Rules,
    options: &ApplyOptions,
) -> Result<(Option<Model>, ChangeReport, Touched)> {
    let deadline = options.timeout.map(Deadline::after);
    let mut touched = Touched::new();
    let mut current: Option<Model> = None;
    let mut report = ChangeReport::default();
    let passes = if options.until_fixpoint {
        options.max_iterations.max(1)
    } else {
        1
    };
    for pass in 1..=passes {
        let mut changed = false;
        for (i, stmt) in rules.statements.iter().enumerate() {
            let m = current.as_ref().unwrap_or(model);
            let at = || format!("statement {} (line {})", i + 1, stmt.span.line);
            if let Some(d) = &deadline {
                d.check(|| format!("running {}; the model is unchanged", at()))?;
            }
            let cx = execute::RunContext {
                params: &options.params,
                source: rules.source(),
                deadline: deadline.as_ref(),
                semantics: Some(rules.semantics(options.semantics)),
            };
            let (delta, mut entry, tail) = execute::run_statement_returning(m, stmt, i + 1, &cx)?;
            entry.iteration = pass;
            if !delta.is_empty() {
                let (next, created) = compact::compact_keyed(m, &delta).map_err(|e| {
                    Error::Query(crate::error::QueryMessage::classed(
                        format!("statement {} (line {}): {e}", i + 1, stmt.span.line),
                        e.cypher_class(),
                    ))
                })?;
                touched.record(m, &delta, &created);
                if let Some(t) = &tail {
                    report.returned =
                        Some(returning::evaluate(m, &next, &delta, &created, t, &cx)?);
                }
                current = Some(next);
                if let Some(d) = &deadline {
                    d.check(|| format!("applying {}; the model is unchanged", at()))?;
                }
            } else if let Some(t) = &tail {
                report.returned = Some(returning::evaluate(m, m, &delta, &[], t, &cx)?);
            }
            changed |= !entry.counts.is_empty();
            report.statements.push(entry);
        }
        report.iterations = pass;
        if !changed {
            report.fixpoint_reached = true;
            break;
        }
    }
    if !options.until_fixpoint {
        report.fixpoint_reached = !report.changed();
    }
    Ok((current, report, touched))
}
