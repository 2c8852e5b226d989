//! The change report: what each statement of a rule file changed, and totals.

use serde::Serialize;

/// What one statement changed. Only real changes count: setting the value a property already has,
/// adding a label a node carries or deleting an element twice counts nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Nodes created (`CREATE`, `MERGE`).
    pub nodes_created: u64,
    /// Nodes deleted.
    pub nodes_deleted: u64,
    /// Relationships created.
    pub relationships_created: u64,
    /// Relationships deleted (`DETACH DELETE`'s included).
    pub relationships_deleted: u64,
    /// Property values set, changed or removed (on existing elements; a created element's
    /// properties count here too).
    pub properties_set: u64,
    /// Labels added to existing nodes.
    pub labels_added: u64,
    /// Labels removed.
    pub labels_removed: u64,
}

impl Counts {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        *self == Counts::default()
    }

    /// Adds `other` to these counts.
    pub fn add(&mut self, other: &Counts) {
        self.nodes_created += other.nodes_created;
        self.nodes_deleted += other.nodes_deleted;
        self.relationships_created += other.relationships_created;
        self.relationships_deleted += other.relationships_deleted;
        self.properties_set += other.properties_set;
        self.labels_added += other.labels_added;
        self.labels_removed += other.labels_removed;
    }
}

/// The report of one statement run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatementReport {
    /// 1-based number of the statement in its rule file.
    pub statement: usize,
    /// Pass over the rule file (1 unless repeating until a fixpoint).
    pub iteration: usize,
    /// Line of the statement's first token.
    pub line: u32,
    /// Rows its read part matched (1 for a statement without `MATCH`).
    pub matches: u64,
    /// What it changed.
    #[serde(flatten)]
    pub counts: Counts,
}

/// The report of a rule file run: one entry per statement run, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChangeReport {
    /// Per statement (and per pass, with `--until-fixpoint`).
    pub statements: Vec<StatementReport>,
    /// Passes over the rule file.
    pub iterations: usize,
    /// With a fixpoint run: whether the last pass changed nothing.
    pub fixpoint_reached: bool,
    /// The rows of the last statement run that has a `RETURN` (its nodes and relationships are
    /// ids of the model right after that statement: of the final model when it is the last).
    #[serde(skip)]
    pub returned: Option<super::Returned>,
}

impl ChangeReport {
    /// The sum over every statement.
    pub fn totals(&self) -> Counts {
        let mut total = Counts::default();
        for s in &self.statements {
            total.add(&s.counts);
        }
        total
    }

    /// True when some statement changed something.
    pub fn changed(&self) -> bool {
        self.statements.iter().any(|s| !s.counts.is_empty())
    }

    /// The report as an aligned text table, one row per statement run and a total row.
    pub fn to_table(&self) -> String {
        let header = [
            "pass", "stmt", "line", "matches", "+nodes", "-nodes", "+rels", "-rels", "props",
            "+labels", "-labels",
        ];
        let row = |pass: String, stmt: String, line: String, m: String, c: &Counts| {
            vec![
                pass,
                stmt,
                line,
                m,
                c.nodes_created.to_string(),
                c.nodes_deleted.to_string(),
                c.relationships_created.to_string(),
                c.relationships_deleted.to_string(),
                c.properties_set.to_string(),
                c.labels_added.to_string(),
                c.labels_removed.to_string(),
            ]
        };
        let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
        for s in &self.statements {
            rows.push(row(
                s.iteration.to_string(),
                s.statement.to_string(),
                s.line.to_string(),
                s.matches.to_string(),
                &s.counts,
            ));
        }
        let matches: u64 = self.statements.iter().map(|s| s.matches).sum();
        rows.push(row(
            "total".into(),
            String::new(),
            String::new(),
            matches.to_string(),
            &self.totals(),
        ));
        let widths: Vec<usize> = (0..header.len())
            .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for r in &rows {
            let cells: Vec<String> = r
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (c, w))| {
                    if i == 0 {
                        format!("{c:<w$}")
                    } else {
                        format!("{c:>w$}")
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}
