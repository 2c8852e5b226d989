//! TCK scenarios read from Gherkin feature files: Scenario Outlines expanded over their Examples,
//! steps turned into what to run and what to expect.

use std::path::Path;

/// What a query is expected to give.
#[derive(Debug, Clone)]
pub enum Expect {
    /// A result table: its header and rows (cells in the TCK's value notation).
    Rows {
        /// `in order`.
        ordered: bool,
        /// `ignoring element order for lists`.
        lists_unordered: bool,
        /// The column names.
        header: Vec<String>,
        /// The rows.
        rows: Vec<Vec<String>>,
    },
    /// `the result should be empty`.
    Empty,
    /// `a <Class> should be raised at <phase>: <detail>`.
    Error {
        /// `SyntaxError`, `TypeError`, …
        class: String,
        /// `UndefinedVariable`, …
        detail: String,
    },
}

/// One query of a scenario with its expectations.
#[derive(Debug, Clone)]
pub struct Step {
    /// The query text.
    pub query: String,
    /// What it gives.
    pub expect: Option<Expect>,
    /// The side effects: `None` when the scenario does not say, `Some([])` for "no side effects".
    pub side_effects: Option<Vec<(String, i64)>>,
}

/// One scenario (an outline's Examples row counts as one).
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Stable id: `clauses/match/Match1:[3]` (`#k` appended for an outline's k-th example row).
    pub id: String,
    /// The feature file's directory under the features root (`clauses/match`).
    pub dir: String,
    /// A named graph (`binary-tree-1`) instead of an empty one.
    pub named_graph: Option<String>,
    /// `having executed:` statements, in order.
    pub setup: Vec<String>,
    /// `parameters are:` (name, value in TCK notation).
    pub params: Vec<(String, String)>,
    /// The queries (the first is the scenario's; later ones are control queries).
    pub steps: Vec<Step>,
    /// The scenario declares procedures (`there exists a procedure`): the runner has none.
    pub needs_procedures: bool,
    /// A step the runner does not know.
    pub unknown_step: Option<String>,
}

/// Every `.feature` file under `root`, sorted.
pub fn feature_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "feature") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Replaces `<name>` placeholders by an Examples row's values.
fn substitute(text: &str, header: &[String], row: &[String]) -> String {
    let mut out = text.to_string();
    for (h, v) in header.iter().zip(row) {
        out = out.replace(&format!("<{h}>"), v);
    }
    out
}

/// A Gherkin table cell with the TCK's escapes (`\|`) resolved.
fn cell(s: &str) -> String {
    s.replace("\\|", "|").trim().to_string()
}

/// The feature text with its `#` comment lines blanked (outside doc strings): the parser does
/// not take a comment between the feature's title and its `Background`.
fn without_comments(text: &str) -> String {
    let mut in_doc = false;
    let mut first_step = false;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim_start();
        if !in_doc && (t.starts_with("Given ") || t.starts_with("When ") || t.starts_with("Then "))
        {
            first_step = false;
        }
        if t.starts_with("\"\"\"") {
            in_doc = !in_doc;
        }
        if !in_doc && (t.starts_with("Scenario") || t.starts_with("Background")) {
            first_step = true;
        }
        if !in_doc && t.starts_with('#') {
            out.push('\n');
        } else if !in_doc && first_step && t.starts_with("And ") {
            // A scenario whose first step is `And` (its `Given` is the background's).
            let indent = &line[..line.len() - t.len()];
            out.push_str(&format!("{indent}Given {}\n", &t[4..]));
            first_step = false;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The scenarios of one feature file; `rel` is its path under the features root, without the
/// extension (`clauses/match/Match1`).
pub fn read_feature(path: &Path, rel: &str) -> Result<Vec<Scenario>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let feature = gherkin::Feature::parse(without_comments(&text), gherkin::GherkinEnv::default())
        .map_err(|e| format!("{}: {e:?}", path.display()))?;
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let mut out = Vec::new();
    let scenarios = feature
        .scenarios
        .iter()
        .chain(feature.rules.iter().flat_map(|r| r.scenarios.iter()));
    let background: Vec<gherkin::Step> = feature
        .background
        .as_ref()
        .map(|b| b.steps.clone())
        .unwrap_or_default();
    for sc in scenarios {
        let mut sc = sc.clone();
        sc.steps.splice(0..0, background.iter().cloned());
        let sc = &sc;
        let short = match sc.name.strip_prefix('[').and_then(|s| s.split_once(']')) {
            Some((n, _)) => format!("[{n}]"),
            None => sc.name.clone(),
        };
        let base_id = format!("{rel}:{short}");
        let tables: Vec<&gherkin::Table> = sc
            .examples
            .iter()
            .filter_map(|e| e.table.as_ref())
            .collect();
        if tables.is_empty() {
            out.push(build(sc, base_id, &dir, &[], &[]));
            continue;
        }
        let mut k = 0;
        for t in tables {
            let Some((header, rows)) = t.rows.split_first() else {
                continue;
            };
            for row in rows {
                k += 1;
                out.push(build(sc, format!("{base_id}#{k}"), &dir, header, row));
            }
        }
    }
    Ok(out)
}

fn build(
    sc: &gherkin::Scenario,
    id: String,
    dir: &str,
    header: &[String],
    row: &[String],
) -> Scenario {
    let sub = |s: &str| substitute(s, header, row);
    let mut s = Scenario {
        id,
        dir: dir.to_string(),
        named_graph: None,
        setup: Vec::new(),
        params: Vec::new(),
        steps: Vec::new(),
        needs_procedures: false,
        unknown_step: None,
    };
    let table = |st: &gherkin::Step| -> Vec<Vec<String>> {
        st.table
            .as_ref()
            .map(|t| {
                t.rows
                    .iter()
                    .map(|r| r.iter().map(|c| cell(&sub(c))).collect())
                    .collect()
            })
            .unwrap_or_default()
    };
    for st in &sc.steps {
        let text = sub(st.value.trim());
        let doc = st.docstring.as_deref().map(|d| sub(d).trim().to_string());
        if text == "an empty graph" || text == "any graph" {
        } else if let Some(g) = text
            .strip_prefix("the ")
            .and_then(|t| t.strip_suffix(" graph"))
        {
            s.named_graph = Some(g.to_string());
        } else if text.starts_with("having executed") {
            s.setup.push(doc.unwrap_or_default());
        } else if text.starts_with("parameters are") {
            for r in table(st) {
                if let [k, v] = &r[..] {
                    s.params.push((k.clone(), v.clone()));
                }
            }
        } else if text.starts_with("there exists a procedure") {
            s.needs_procedures = true;
        } else if text.starts_with("executing query") || text.starts_with("executing control query")
        {
            s.steps.push(Step {
                query: doc.unwrap_or_default(),
                expect: None,
                side_effects: None,
            });
        } else if let Some(rest) = text.strip_prefix("the result should be") {
            let rows = table(st);
            let expect = if rest.trim() == "empty" {
                Expect::Empty
            } else {
                let (header, body) = match rows.split_first() {
                    Some((h, b)) => (h.clone(), b.to_vec()),
                    None => (Vec::new(), Vec::new()),
                };
                Expect::Rows {
                    ordered: rest.contains("in order"),
                    lists_unordered: rest.contains("ignoring element order for lists"),
                    header,
                    rows: body,
                }
            };
            match s.steps.last_mut() {
                Some(step) => step.expect = Some(expect),
                None => s.unknown_step = Some(format!("result before query: {text}")),
            }
        } else if text.contains("should be raised") {
            // "a SyntaxError should be raised at compile time: UndefinedVariable"
            let words: Vec<&str> = text.split_whitespace().collect();
            let class = words.get(1).copied().unwrap_or("").to_string();
            let detail = text
                .rsplit_once(':')
                .map_or("", |(_, d)| d.trim())
                .to_string();
            match s.steps.last_mut() {
                Some(step) => step.expect = Some(Expect::Error { class, detail }),
                None => s.unknown_step = Some(format!("error before query: {text}")),
            }
        } else if text == "no side effects" {
            if let Some(step) = s.steps.last_mut() {
                step.side_effects = Some(Vec::new());
            }
        } else if text.starts_with("the side effects should be") {
            let effects = table(st)
                .into_iter()
                .filter_map(|r| match &r[..] {
                    [k, v] => v.parse().ok().map(|n| (k.clone(), n)),
                    _ => None,
                })
                .collect();
            if let Some(step) = s.steps.last_mut() {
                step.side_effects = Some(effects);
            }
        } else {
            s.unknown_step.get_or_insert(text);
        }
    }
    s
}
