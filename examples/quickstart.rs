//! The library in a few lines, on the bundled IMDb sample (no other data needed):
//!
//! ```text
//! cargo run --release --example quickstart
//! ```
//!
//! Loads the sample, prepares a query once and runs it with two parameter values (the query is
//! parsed once and bound again for each), then runs a query file with its `// gemp: semantics=…`
//! line exactly as `gemp match` would, then streams the rows of a query with a list
//! parameter, stopping after three. The graph keeps one session between the queries.

use std::ops::ControlFlow;
use std::path::Path;

use gemp::api::{Graph, RunOptions};
use gemp::model::Value;

fn main() -> gemp::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = Graph::load(&[root.join("datasets/imdb-sample")])?;
    println!(
        "{} nodes, {} relationships",
        graph.model().node_count(),
        graph.model().edge_count()
    );

    let source = "MATCH (t:Title) WHERE t.startYear >= $from RETURN count(*) AS titles";
    let since = |year: i64| RunOptions::host().param("from", Value::Int(year));
    let query = graph.query_with(source, &since(2000))?;
    for year in [2000, 2010] {
        let matches = graph.execute(&query, &since(year))?;
        println!("titles since {year}: {}", matches.output().rows[0][0]);
    }

    let file = root.join("datasets/queries/couples.cypher");
    let couples = graph.query_file(&file, &RunOptions::host())?;
    let matches = graph.execute(&couples, &RunOptions::host())?;
    println!(
        "{}: {} rows under {} semantics, e.g.",
        file.display(),
        matches.count(),
        couples.semantics()
    );
    for row in matches.rows().take(3) {
        let text: Vec<String> = row.items().iter().map(|i| format!("{i:?}")).collect();
        println!("  {}", text.join(" | "));
    }

    // A list parameter, rows streamed as the search finds them; stopping ends the search.
    let options = RunOptions::host().param("names", vec!["Anna Taylor", "Anna Prescott"]);
    let people = graph.query_with(
        "MATCH (p:Person)-[r]->(t:Title) WHERE p.primaryName IN $names \
         RETURN p.primaryName AS name, type(r) AS role, t.primaryTitle AS title",
        &options,
    )?;
    let mut shown = 0;
    graph.for_each_row(&people, &options, |row| {
        let name = row.value("name").unwrap_or(Value::Null);
        let title = row.value("title").unwrap_or(Value::Null);
        println!("  {} in {}", name.as_ref(), title.as_ref());
        shown += 1;
        if shown == 3 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;

    // Errors say what kind they are and, for queries and input data, where.
    let err = graph.query("MATCH (p:Person)\nRETURN p.nope").unwrap_err();
    if let Some(at) = err.position() {
        println!(
            "{} error at line {}, column {}",
            err.kind(),
            at.line,
            at.column
        );
    }
    Ok(())
}
