//! [`Transaction`]: several rule files applied to a [`Graph`] as one change, with queries on the
//! changed model before it is committed.

use super::{Graph, RunOptions};
use crate::error::Result;
use crate::model::Model;
use crate::transform::{ApplyOptions, ChangeReport, Rules, Touched};

/// Changes to a [`Graph`] that become visible to the graph only on [`Transaction::commit`];
/// dropping the transaction (or [`Transaction::rollback`]) discards them.
///
/// ```
/// use gemp::api::Graph;
///
/// let mut graph = Graph::from_json_str(r#"{"nodes": [{"id": "a", "labels": ["Task"]}], "edges": []}"#)?;
/// let mut tx = graph.transaction();
/// tx.apply("CREATE (:Task {name: 'b'})")?;
/// assert_eq!(tx.count("MATCH (t:Task) RETURN t")?, 2);
/// tx.rollback();
/// assert_eq!(graph.count("MATCH (t:Task) RETURN t")?, 1);
/// # Ok::<(), gemp::Error>(())
/// ```
#[derive(Debug)]
pub struct Transaction<'g> {
    graph: &'g mut Graph,
    pending: Option<Model>,
    report: ChangeReport,
    touched: Touched,
}

impl<'g> Transaction<'g> {
    pub(super) fn new(graph: &'g mut Graph) -> Self {
        Transaction {
            graph,
            pending: None,
            report: ChangeReport::default(),
            touched: Touched::new(),
        }
    }

    /// The model with the changes so far.
    pub fn model(&self) -> &Model {
        self.pending.as_ref().unwrap_or(&self.graph.model)
    }

    /// Applies a rule file to the changed model. On an error, this call changes nothing and the
    /// transaction stays open with its earlier changes.
    pub fn apply(&mut self, rules: &str) -> Result<ChangeReport> {
        self.apply_with(rules, &ApplyOptions::default())
    }

    /// [`Transaction::apply`] with options (fixpoint, parameters).
    pub fn apply_with(&mut self, rules: &str, options: &ApplyOptions) -> Result<ChangeReport> {
        let rules = Rules::parse(rules, None)?;
        let (model, report, touched) =
            crate::transform::apply_tracked(self.model(), &rules, options)?;
        if let Some(m) = model {
            self.pending = Some(m);
            self.touched.extend(&touched);
        }
        self.report
            .statements
            .extend(report.statements.iter().cloned());
        self.report.iterations += report.iterations;
        Ok(report)
    }

    /// The number of results of a query on the changed model (host matcher).
    pub fn count(&self, source: &str) -> Result<u64> {
        let options = RunOptions::host().count_only();
        let session = crate::session::Session::host(self.model());
        let prepared = session.prepare(source, &Default::default())?;
        let mut run = options.match_options();
        run.semantics = prepared.semantics();
        Ok(session.run(prepared.bound(), &run)?.0.count)
    }

    /// Makes the changes the graph's; returns every statement's report.
    pub fn commit(self) -> ChangeReport {
        if let Some(m) = self.pending {
            self.graph.replace_model(m);
            self.graph.log.record(self.touched);
        }
        self.report
    }

    /// Discards the changes.
    pub fn rollback(self) {}
}
