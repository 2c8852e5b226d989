//! Result formatting: aligned table, JSON lines, CSV, DOT (Arrow and Parquet: `columnar.rs`). Nodes print as their key and labels;
//! in JSON lines a node is `{"id", "key", "labels", "properties"}` (a relationship `{"id", "type",
//! "src", "dst", "properties"}`) so a downstream tool can use it; DOT draws the
//! nodes and relationships the rows return as one Graphviz digraph.

use std::io::Write;

use serde_json::{json, Value as Json};

use gemp::exec::eval::Val;
use gemp::model::Model;

/// Output formats of `gemp match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// An aligned text table.
    Table,
    /// One JSON object per row.
    Jsonl,
    /// CSV with a header row.
    Csv,
    /// A Graphviz digraph of the returned nodes and relationships (each once).
    Dot,
    /// An Arrow IPC stream with typed columns (binary: to -o FILE or a pipe; see
    /// `src/cli/columnar.rs` for the column types).
    Arrow,
    /// A Parquet file with typed columns, as --format arrow (binary: to -o FILE or a pipe).
    Parquet,
}

impl OutputFormat {
    /// True when rows can be written batch by batch while the search runs: every text format
    /// (DOT keeps only the distinct nodes and relationships until the end); Arrow and Parquet
    /// type each column from all its values, so they are written once the rows are collected.
    pub fn streams(self) -> bool {
        !self.is_binary()
    }

    /// True for the binary, columnar formats (Arrow, Parquet).
    pub fn is_binary(self) -> bool {
        matches!(self, OutputFormat::Arrow | OutputFormat::Parquet)
    }

    /// The extension of a result file in this format.
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Jsonl => "jsonl",
            OutputFormat::Csv => "csv",
            OutputFormat::Table => "txt",
            OutputFormat::Dot => "dot",
            OutputFormat::Arrow => "arrows",
            OutputFormat::Parquet => "parquet",
        }
    }
}

/// A DOT string literal.
fn dot_quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Collects the nodes and relationships in `v` (lists included).
fn collect_graph(v: &Val<'_>, nodes: &mut Vec<u32>, rels: &mut Vec<u32>) {
    match v {
        Val::Node(n) => nodes.push(*n),
        Val::Rel(r) => rels.push(*r),
        Val::Path(p) => {
            nodes.extend(&p.nodes);
            rels.extend(&p.rels);
        }
        Val::List(items) => items.iter().for_each(|i| collect_graph(i, nodes, rels)),
        Val::Map(entries) => entries
            .iter()
            .for_each(|(_, i)| collect_graph(i, nodes, rels)),
        _ => {}
    }
}

/// The nodes and relationships rows returned so far, each once: a DOT output's whole state while
/// rows stream (bounded by the graph, not by the number of rows).
#[derive(Debug, Default)]
struct DotGraph {
    nodes: Vec<u32>,
    rels: Vec<u32>,
    /// Lengths of `nodes` and `rels` after their last deduplication.
    distinct: [usize; 2],
    /// Rows seen.
    rows: u64,
}

impl DotGraph {
    /// Adds the nodes and relationships of `rows`; duplicates are dropped whenever the lists
    /// double, so they stay within twice the distinct ids.
    fn add(&mut self, rows: &[Vec<Val<'_>>]) {
        for v in rows.iter().flatten() {
            collect_graph(v, &mut self.nodes, &mut self.rels);
        }
        self.rows += rows.len() as u64;
        for (list, distinct) in [&mut self.nodes, &mut self.rels]
            .into_iter()
            .zip(&mut self.distinct)
        {
            if list.len() > 2 * (*distinct).max(4096) {
                list.sort_unstable();
                list.dedup();
                *distinct = list.len();
            }
        }
    }
}

/// Writes the nodes and relationships of `rows` as one digraph: a node is drawn with its key and
/// labels, a relationship with its type; a relationship's endpoints are drawn even when the rows do
/// not return them. Rows without any node or relationship (an aggregate) give an empty digraph
/// with a comment saying why.
fn write_dot(out: &mut dyn Write, model: &Model, graph: DotGraph) -> std::io::Result<Finished> {
    let DotGraph {
        mut nodes,
        mut rels,
        rows,
        ..
    } = graph;
    rels.sort_unstable();
    rels.dedup();
    let mut edges = Vec::with_capacity(rels.len());
    for &r in &rels {
        if let (Some(src), Some((dst, ty))) = (model.edge_source(r), model.edge_target(r)) {
            nodes.extend([src, dst]);
            edges.push((r, src, dst, model.rel_types().name(ty).unwrap_or("?")));
        }
    }
    nodes.sort_unstable();
    nodes.dedup();
    let empty_graph = rows > 0 && nodes.is_empty();
    writeln!(out, "digraph matches {{")?;
    if empty_graph {
        writeln!(
            out,
            "  // empty: the rows hold no nodes or relationships; use --format table, jsonl or csv \
             for this query"
        )?;
    }
    for n in nodes {
        let label = format!(
            "{}\n{}",
            model.node_key(n).unwrap_or("?"),
            label_names(model, n).join(":")
        );
        writeln!(out, "  n{n} [label={}];", dot_quote(&label))?;
    }
    for (r, src, dst, ty) in edges {
        writeln!(
            out,
            "  n{src} -> n{dst} [label={}, id=\"r{r}\"];",
            dot_quote(ty)
        )?;
    }
    writeln!(out, "}}")?;
    Ok(Finished { empty_graph })
}

/// The label names of node `n`.
fn label_names(model: &Model, n: u32) -> Vec<&str> {
    model
        .node_labels(n)
        .iter()
        .filter_map(|&l| model.labels().name(l))
        .collect()
}

/// A value as display text.
pub fn text(model: &Model, v: &Val<'_>) -> String {
    match v {
        Val::Node(n) => {
            let labels = label_names(model, *n);
            format!(
                "({}:{})",
                model.node_key(*n).unwrap_or("?"),
                labels.join(":")
            )
        }
        Val::Rel(r) => {
            let ty = model
                .edge_target(*r)
                .and_then(|(_, t)| model.rel_types().name(t))
                .unwrap_or("?");
            format!("[{r}:{ty}]")
        }
        Val::List(items) => {
            let parts: Vec<String> = items.iter().map(|i| text(model, i)).collect();
            format!("[{}]", parts.join(", "))
        }
        // `<(a:A)-[3:T]->(b:B)>`, each relationship pointing the way it points in the graph.
        Val::Path(p) => {
            let mut t = String::from("<");
            for (i, &n) in p.nodes.iter().enumerate() {
                if let Some(&r) = i.checked_sub(1).and_then(|j| p.rels.get(j)) {
                    let rel = text(model, &Val::Rel(r));
                    if model.edge_source(r) == Some(p.nodes[i - 1]) {
                        t += &format!("-{rel}->");
                    } else {
                        t += &format!("<-{rel}-");
                    }
                }
                t += &text(model, &Val::Node(n));
            }
            t + ">"
        }
        Val::Map(entries) => {
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, i)| format!("{k}: {}", text(model, i)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// A value as JSON.
pub fn to_json(model: &Model, v: &Val<'_>) -> Json {
    match v {
        Val::Node(n) => {
            // Labels as the API and the JSON graph format list them: the primary label first.
            let labels = gemp::io::json_graph::label_names(model, *n);
            let properties = gemp::io::json_graph::node_properties(model, *n);
            json!({"id": n, "key": model.node_key(*n), "labels": labels, "properties": properties})
        }
        Val::Rel(r) => {
            let (dst, ty) = model.edge_target(*r).unwrap_or((u32::MAX, u32::MAX));
            let properties = gemp::io::json_graph::edge_properties(model, *r);
            json!({"id": r, "type": model.rel_types().name(ty), "src": model.edge_source(*r), "dst": dst,
                "properties": properties})
        }
        Val::List(items) => Json::Array(items.iter().map(|i| to_json(model, i)).collect()),
        Val::Path(p) => json!({
            "nodes": p.nodes.iter().map(|&n| to_json(model, &Val::Node(n))).collect::<Vec<_>>(),
            "relationships": p.rels.iter().map(|&r| to_json(model, &Val::Rel(r))).collect::<Vec<_>>(),
        }),
        Val::Map(entries) => Json::Object(
            entries
                .iter()
                .map(|(k, i)| (k.clone(), to_json(model, i)))
                .collect(),
        ),
        Val::Float(f) if !f.is_finite() => Json::String(f.to_string()),
        other => serde_json::to_value(other).unwrap_or(Json::Null),
    }
}

/// Writes all of `rows` in `format`, with the header (CSV and table); a table is not truncated.
/// Returns what [`RowWriter::finish`] returns.
pub fn write_rows(
    out: &mut dyn Write,
    model: &Model,
    format: OutputFormat,
    columns: &[String],
    rows: &[Vec<Val<'_>>],
) -> std::io::Result<Finished> {
    match format {
        OutputFormat::Arrow => {
            super::columnar::write_arrow(out, model, columns, rows)?;
            return Ok(Finished::default());
        }
        OutputFormat::Parquet => {
            super::columnar::write_parquet(out, model, columns, rows)?;
            return Ok(Finished::default());
        }
        _ => {}
    }
    let mut w = RowWriter::new(format, None);
    w.write(out, model, columns, rows)?;
    w.finish(out, model, columns)
}

/// What a [`RowWriter`] noticed once all rows were written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Finished {
    /// DOT only: the rows held no nodes or relationships, so the digraph is empty (the output
    /// says why in a comment; the caller should warn too).
    pub empty_graph: bool,
}

/// Writes rows batch by batch in one format: JSON lines and CSV row by row, the table with its
/// column widths taken from the header and the first batch (see [`TableWriter`]); DOT keeps the
/// distinct nodes and relationships of every row and draws the digraph at [`RowWriter::finish`].
pub struct RowWriter {
    format: OutputFormat,
    table: TableWriter,
    header_written: bool,
    dot: DotGraph,
}

impl RowWriter {
    /// A writer for `format`; `max_width` is the width a table must fit in (cells are truncated
    /// with `…` to fit), `None` for no truncation.
    pub fn new(format: OutputFormat, max_width: Option<usize>) -> Self {
        RowWriter {
            format,
            table: TableWriter::new(max_width),
            header_written: false,
            dot: DotGraph::default(),
        }
    }

    /// Writes one batch of rows (the header first, with the first batch).
    pub fn write(
        &mut self,
        out: &mut dyn Write,
        model: &Model,
        columns: &[String],
        rows: &[Vec<Val<'_>>],
    ) -> std::io::Result<()> {
        match self.format {
            OutputFormat::Arrow | OutputFormat::Parquet => {
                return Err(std::io::Error::other(
                    "Arrow and Parquet output is written whole (write_rows), not row by row",
                ))
            }
            OutputFormat::Dot => self.dot.add(rows),
            OutputFormat::Jsonl => {
                for r in rows {
                    // serde_json keeps insertion order (feature `preserve_order`): RETURN order.
                    let obj: serde_json::Map<String, Json> = columns
                        .iter()
                        .cloned()
                        .zip(r.iter().map(|v| to_json(model, v)))
                        .collect();
                    writeln!(out, "{}", Json::Object(obj))?;
                }
            }
            OutputFormat::Csv => {
                let mut w = csv::Writer::from_writer(&mut *out);
                if !self.header_written {
                    w.write_record(columns).map_err(csv_io)?;
                }
                for r in rows {
                    w.write_record(r.iter().map(|v| csv_text(model, v)))
                        .map_err(csv_io)?;
                }
                w.flush()?;
            }
            OutputFormat::Table => {
                let cells: Vec<Vec<String>> = rows
                    .iter()
                    .map(|r| r.iter().map(|v| text(model, v)).collect())
                    .collect();
                self.table.write(out, columns, &cells)?;
            }
        }
        self.header_written = true;
        Ok(())
    }

    /// Ends the output: the header of an empty table or CSV, the DOT digraph.
    pub fn finish(
        &mut self,
        out: &mut dyn Write,
        model: &Model,
        columns: &[String],
    ) -> std::io::Result<Finished> {
        match self.format {
            OutputFormat::Dot => {
                return write_dot(out, model, std::mem::take(&mut self.dot));
            }
            OutputFormat::Table => self.table.write(out, columns, &[])?,
            OutputFormat::Csv if !self.header_written => self.write(out, model, columns, &[])?,
            _ => {}
        }
        Ok(Finished::default())
    }
}

/// A value as a CSV field: null is an empty field, everything else its [`text`].
pub fn csv_text(model: &Model, v: &Val<'_>) -> String {
    match v {
        Val::Null => String::new(),
        v => text(model, v),
    }
}

/// A cell with its control characters escaped: `\n`, `\r`, `\t`, and `\u{…}` for the others,
/// so that one row stays one line.
pub fn escape_cell(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut e = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => e.push_str("\\n"),
            '\r' => e.push_str("\\r"),
            '\t' => e.push_str("\\t"),
            c if c.is_control() => e.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => e.push(c),
        }
    }
    std::borrow::Cow::Owned(e)
}

/// The width in terminal columns of `s`.
fn width(s: &str) -> usize {
    console::measure_text_width(s)
}

/// `s` cut to at most `w` terminal columns, ending in `…` when cut.
pub fn truncate_cell(s: &str, w: usize) -> std::borrow::Cow<'_, str> {
    if width(s) <= w {
        return std::borrow::Cow::Borrowed(s);
    }
    console::truncate_str(s, w, "…")
}

/// The narrowest a column is cut to, whatever the terminal's width.
pub const MIN_CUT_WIDTH: usize = 3;

/// The separator between two cells.
const SEPARATOR: &str = " | ";

/// Column widths `natural` narrowed so that they and their separators fit in `max_width`: the
/// widest columns are cut first, each to one common limit (never below [`MIN_CUT_WIDTH`], so a very
/// narrow terminal still gets a table wider than itself).
pub fn fit_widths(natural: &[usize], max_width: usize) -> Vec<usize> {
    let seps = SEPARATOR.len() * natural.len().saturating_sub(1);
    let budget = max_width.saturating_sub(seps);
    if natural.iter().sum::<usize>() <= budget {
        return natural.to_vec();
    }
    // The largest common limit under which the columns fit.
    let top = natural.iter().copied().max().unwrap_or(0);
    let fits = |limit: usize| natural.iter().map(|&w| w.min(limit)).sum::<usize>() <= budget;
    let (mut lo, mut hi) = (MIN_CUT_WIDTH, top);
    if !fits(lo) {
        hi = lo;
    }
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    natural.iter().map(|&w| w.min(lo)).collect()
}

/// An aligned text table written batch by batch.
///
/// The column widths come from the header and the first batch of rows (the session hands rows
/// in batches of up to 1024); later rows are padded to them. A later cell wider than its column
/// widens its own row (the cells after it shift right) rather than the whole table. Cells have
/// their control characters escaped ([`escape_cell`]). With a maximum width (the terminal's, when
/// stdout is one and `--no-trunc` is not given), the widest columns are cut with `…` so the
/// header and first batch fit in it ([`fit_widths`]), and a later row that would be wider than it
/// is cut the same way; without one nothing is ever cut.
pub struct TableWriter {
    max_width: Option<usize>,
    widths: Option<Vec<usize>>,
}

impl TableWriter {
    /// A table that fits in `max_width` columns (`None`: never truncate).
    pub fn new(max_width: Option<usize>) -> Self {
        TableWriter {
            max_width,
            widths: None,
        }
    }

    /// Writes a batch of rows (with the header and the rule under it before the first batch).
    pub fn write(
        &mut self,
        out: &mut dyn Write,
        columns: &[String],
        rows: &[Vec<String>],
    ) -> std::io::Result<()> {
        let rows: Vec<Vec<std::borrow::Cow<'_, str>>> = rows
            .iter()
            .map(|r| r.iter().map(|c| escape_cell(c)).collect())
            .collect();
        let widths = match &self.widths {
            Some(w) => w.clone(),
            None => {
                let header: Vec<_> = columns.iter().map(|c| escape_cell(c)).collect();
                let mut natural: Vec<usize> = header.iter().map(|c| width(c)).collect();
                for r in &rows {
                    for (w, c) in natural.iter_mut().zip(r) {
                        *w = (*w).max(width(c));
                    }
                }
                let widths = match self.max_width {
                    Some(m) => fit_widths(&natural, m),
                    None => natural,
                };
                self.write_line(out, &header, &widths)?;
                writeln!(
                    out,
                    "{}",
                    widths
                        .iter()
                        .map(|&w| "-".repeat(w))
                        .collect::<Vec<_>>()
                        .join("-+-")
                )?;
                self.widths = Some(widths.clone());
                widths
            }
        };
        for r in &rows {
            self.write_line(out, r, &widths)?;
        }
        Ok(())
    }

    /// One row: each cell padded to its column's width, or wider when the cell is (cut, with a
    /// maximum width, so that the row fits).
    fn write_line<S: AsRef<str>>(
        &self,
        out: &mut dyn Write,
        cells: &[S],
        widths: &[usize],
    ) -> std::io::Result<()> {
        let mut row: Vec<usize> = cells
            .iter()
            .zip(widths)
            .map(|(c, &w)| w.max(width(c.as_ref())))
            .collect();
        if let Some(m) = self.max_width {
            row = fit_widths(&row, m);
        }
        let mut line = String::new();
        for (i, (c, &w)) in cells.iter().zip(&row).enumerate() {
            if i > 0 {
                line.push_str(SEPARATOR);
            }
            let c = truncate_cell(c.as_ref(), w);
            line.push_str(&c);
            line.extend(std::iter::repeat_n(' ', w.saturating_sub(width(&c))));
        }
        writeln!(out, "{}", line.trim_end())
    }
}

/// The `--meta` line that starts JSON lines output: `{"_meta": {"semantics": …, "engine": …}}`.
pub fn meta_line(semantics: gemp::exec::Semantics, engine: &str) -> String {
    json!({"_meta": {"semantics": semantics.name(), "engine": engine}}).to_string()
}

/// A CSV writer's error as the I/O error it is (a closed pipe stays a closed pipe).
fn csv_io(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io,
        other => std::io::Error::other(format!("CSV output: {other:?}")),
    }
}

/// Marks a partial result (a `--timeout` stopped the search) in the output itself, so a
/// partial answer never reads as a complete one: a footer line in a table, a `#` comment line
/// in CSV and DOT (`//`), a final `{"_partial": {…}}` object in JSON lines.
pub fn write_partial_marker(
    out: &mut dyn Write,
    format: OutputFormat,
    rows: u64,
    reason: &str,
) -> std::io::Result<()> {
    let text = format!("partial result: {reason}; {rows} rows so far");
    match format {
        OutputFormat::Table => writeln!(out, "({text})"),
        OutputFormat::Csv => writeln!(out, "# {text}"),
        OutputFormat::Dot => writeln!(out, "// {text}"),
        // Nothing can be appended to a binary file: the warning on stderr and the exit status
        // say it.
        OutputFormat::Arrow | OutputFormat::Parquet => Ok(()),
        OutputFormat::Jsonl => writeln!(
            out,
            "{}",
            serde_json::json!({"_partial": {"reason": reason, "rows": rows}})
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn rows(cells: &[&[&str]]) -> Vec<Vec<String>> {
        cells
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    /// Everything `batches` write through one table of `max_width`.
    fn table(max_width: Option<usize>, header: &[&str], batches: &[&[&[&str]]]) -> String {
        let mut out = Vec::new();
        let mut t = TableWriter::new(max_width);
        for b in batches {
            t.write(&mut out, &cols(header), &rows(b)).unwrap();
        }
        t.write(&mut out, &cols(header), &[]).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_cell("plain"), "plain");
        assert!(matches!(
            escape_cell("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(escape_cell("a\nb\tc\rd"), "a\\nb\\tc\\rd");
        assert_eq!(escape_cell("bell\u{7}esc\u{1b}"), "bell\\u{7}esc\\u{1b}");
        assert_eq!(escape_cell("back\\slash"), "back\\slash");
        let t = table(None, &["a\nb"], &[&[&["x\ny"]]]);
        assert_eq!(t, "a\\nb\n----\nx\\ny\n");
    }

    #[test]
    fn without_a_width_nothing_is_cut() {
        let long = "y".repeat(200);
        let t = table(None, &["k", "v"], &[&[&["1", &long]]]);
        assert_eq!(t.lines().nth(2).unwrap(), format!("1 | {long}"));
        assert!(!t.contains('…'));
    }

    #[test]
    fn cells_are_cut_with_an_ellipsis_only_when_the_table_is_wider_than_the_terminal() {
        // Fits in 40 columns: nothing is cut.
        let t = table(Some(40), &["k", "v"], &[&[&["1", "short"]]]);
        assert_eq!(t, "k | v\n--+------\n1 | short\n");
        // 3 + 3 + 50 columns in 30: the wide column is cut to 30 - 3 - 1 = 26, ending in `…`.
        let long = "z".repeat(50);
        let t = table(Some(30), &["k", "v"], &[&[&["1", &long]]]);
        let row = t.lines().nth(2).unwrap();
        assert_eq!(row, format!("1 | {}…", "z".repeat(25)));
        assert_eq!(console::measure_text_width(row), 30);
        for line in t.lines() {
            assert!(console::measure_text_width(line) <= 30, "{line:?}");
        }
    }

    #[test]
    fn the_widest_columns_are_cut_first() {
        assert_eq!(fit_widths(&[5, 10], 100), [5, 10]);
        // Budget 20 - 3 = 17: a common limit of 12 keeps the 5 and cuts the 30.
        assert_eq!(fit_widths(&[5, 30], 20), [5, 12]);
        // Two wide columns share the room: 30 - 6 = 24 over 4 + 10 + 10.
        assert_eq!(fit_widths(&[4, 40, 50], 30), [4, 10, 10]);
        // Never below the minimum, even when the terminal is narrower.
        assert_eq!(fit_widths(&[40, 40], 4), [MIN_CUT_WIDTH, MIN_CUT_WIDTH]);
    }

    #[test]
    fn later_batches_keep_the_first_batchs_widths() {
        let t = table(
            None,
            &["a", "b"],
            &[&[&["xx", "1"]], &[&["y", "2"], &["wider", "3"]]],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "a  | b");
        assert_eq!(lines[1], "---+--");
        assert_eq!(lines[2], "xx | 1");
        // Padded to the first batch's widths.
        assert_eq!(lines[3], "y  | 2");
        // A wider later cell widens its own row only.
        assert_eq!(lines[4], "wider | 3");
        // On a terminal, a later row that would be too wide is cut to fit.
        let long = "w".repeat(40);
        let t = table(Some(20), &["a", "b"], &[&[&["x", "1"]], &[&[&long, "2"]]]);
        let last = t.lines().last().unwrap();
        assert_eq!(last, format!("{}… | 2", "w".repeat(15)));
    }

    #[test]
    fn wide_characters_are_measured_in_columns() {
        let t = table(Some(13), &["k", "v"], &[&[&["1", "日本語日本語"]]]);
        let row = t.lines().nth(2).unwrap();
        assert!(row.ends_with('…'), "{row}");
        assert!(console::measure_text_width(row) <= 13, "{row}");
    }
}
