//! The graph format of the subgraph-matching benchmarks (Sun & Luo, SIGMOD 2020), used by HPRD:
//!
//! ```text
//! t N M          header: N vertices, M undirected edges
//! v id label deg one line per vertex, ids 0..N-1
//! e u v          one line per undirected edge
//! ```
//!
//! Vertex labels become node labels named by the label number as written (`5`; in a pattern file
//! write ``(:`5`)``); each undirected edge becomes one edge each way of type [`EDGE_TYPE`]. Node keys
//! are the vertex ids.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::io::input;
use crate::io::{LoadOptions, LoadReport};
use crate::model::{Model, ModelBuilder};

/// The lower-cased ending of benchmark graph file names (used by format detection).
pub const EXTENSIONS: &[&str] = &[".graph"];

/// The relationship type given to every edge.
pub const EDGE_TYPE: &str = "EDGE";

/// A parsed benchmark graph, before it becomes a model or a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchGraph {
    /// Vertex labels, indexed by vertex id (as written, e.g. `"5"`).
    pub labels: Vec<String>,
    /// Undirected edges `(u, v)` as written.
    pub edges: Vec<(u32, u32)>,
}

fn num<T: std::str::FromStr>(tok: Option<&str>, what: &str) -> std::result::Result<T, String> {
    let tok = tok.ok_or_else(|| format!("missing {what}"))?;
    tok.parse().map_err(|_| {
        if !tok.is_empty() && tok.bytes().all(|b| b.is_ascii_digit()) {
            format!("{what} `{tok}` is too large")
        } else {
            format!("{what} `{tok}` is not a number")
        }
    })
}

/// Parses a benchmark graph file. Malformed lines are counted in `report` (strict: an error).
pub fn parse(path: &Path, options: &LoadOptions, report: &mut LoadReport) -> Result<BenchGraph> {
    let mut input = input::open(path)?;
    let file = report.begin_file(path, input.size);
    let mut line = String::new();
    let mut line_no = 0u64;
    let mut header: Option<(usize, usize)> = None;
    // (vertex id, label) as read; memory follows the input, never the header's claim.
    let mut vertices: Vec<(u32, String)> = Vec::new();
    let mut edges = Vec::new();
    loop {
        line.clear();
        let n = input
            .reader
            .read_line(&mut line)
            .map_err(|e| input::read_error(path, e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        // A byte-order mark before the first line is not part of it.
        let text = match line_no {
            1 => line.strip_prefix('\u{feff}').unwrap_or(&line),
            _ => &line,
        };
        let mut toks = text.split_whitespace();
        let Some(kind) = toks.next() else { continue };
        // Nothing can be read without the header (vertex ids are checked against it): a bad or
        // missing one stops the load at its line, whatever the malformed-row policy.
        if header.is_none() {
            let fatal =
                |message: String| Err(Error::parse(Some(path.to_path_buf()), line_no, 0, message));
            if kind != "t" {
                return fatal(format!(
                    "expected the `t N M` header (N vertices, M edges) as the first line, found a `{}` line",
                    kind.chars().take(20).collect::<String>()
                ));
            }
            let parsed = (|| -> std::result::Result<(usize, usize), String> {
                let n: usize = num(toks.next(), "vertex count")?;
                let m: usize = num(toks.next(), "edge count")?;
                if n > crate::model::MAX_ELEMENTS {
                    return Err(format!(
                        "{n} vertices is more than a model holds ({} at most)",
                        crate::model::MAX_ELEMENTS
                    ));
                }
                Ok((n, m))
            })();
            match parsed {
                Ok(h) => {
                    header = Some(h);
                    report.files[file].rows += 1;
                    continue;
                }
                Err(message) => return fatal(format!("bad `t N M` header: {message}")),
            }
        }
        let parsed: std::result::Result<(), String> = (|| {
            match (kind, header) {
                ("t", _) => return Err("a second `t` header".into()),
                (_, None) => return Err("expected the `t N M` header first".into()),
                ("v", Some((n, _))) => {
                    let id: usize = num(toks.next(), "vertex id")?;
                    let label = toks.next().ok_or("missing vertex label")?;
                    let _: u64 = num(toks.next(), "degree")?;
                    if id >= n {
                        return Err(format!(
                            "vertex id {id} out of range (header says {n} vertices)"
                        ));
                    }
                    vertices.push((id as u32, label.to_owned()));
                }
                ("e", Some((n, _))) => {
                    let u: u32 = num(toks.next(), "edge source")?;
                    let v: u32 = num(toks.next(), "edge target")?;
                    if u as usize >= n || v as usize >= n {
                        return Err(format!("edge {u} {v} names a vertex out of range (0..{n})"));
                    }
                    edges.push((u, v));
                }
                (k, _) => return Err(format!("unknown line kind `{k}` (expected t, v or e)")),
            }
            Ok(())
        })();
        match parsed {
            Ok(()) => report.files[file].rows += 1,
            Err(msg) => report.bad_row(options, file, line_no, msg)?,
        }
    }
    let Some((n, m)) = header else {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            message: "empty file (no line but blank ones), expected a `t N M` header".into(),
        });
    };
    vertices.sort_by_key(|v| v.0);
    if let Some(w) = vertices.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            message: format!("vertex {} is defined twice", w[0].0),
        });
    }
    if vertices.len() != n {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            message: format!("{} of {n} vertices have no `v` line", n - vertices.len()),
        });
    }
    if edges.len() != m {
        log::warn!(
            "{}: header says {m} edges, file has {}",
            path.display(),
            edges.len()
        );
    }
    Ok(BenchGraph {
        labels: vertices.into_iter().map(|(_, l)| l).collect(),
        edges,
    })
}

/// Adds a benchmark graph to a builder (node keys = vertex ids, one edge each way).
pub fn add_to(builder: &mut ModelBuilder, g: &BenchGraph) -> Result<()> {
    let ty = builder.rel_type(EDGE_TYPE);
    let ids: Vec<u32> = g
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let id = builder.ensure_node(&i.to_string()).0;
            let label = builder.label(l);
            builder.add_label(id, label);
            id
        })
        .collect();
    for &(u, v) in &g.edges {
        builder.add_edge(ids[u as usize], ids[v as usize], ty)?;
        builder.add_edge(ids[v as usize], ids[u as usize], ty)?;
    }
    Ok(())
}

/// Loads benchmark graph files into `builder`, one after the other (each file's vertex ids are
/// node keys, so the files of one call share the vertices of equal id). A directory gives all
/// the files directly inside it, sorted by name.
pub fn load_into(
    builder: &mut ModelBuilder,
    paths: &[PathBuf],
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<()> {
    for p in super::expand::expand_paths(paths)? {
        let g = parse(&p, options, report)?;
        add_to(builder, &g)?;
    }
    Ok(())
}

/// Loads a benchmark graph file as a model.
pub fn load(path: &Path, options: &LoadOptions) -> Result<(Model, LoadReport)> {
    let mut report = LoadReport::default();
    let g = parse(path, options, &mut report)?;
    let mut b = ModelBuilder::new();
    add_to(&mut b, &g)?;
    Ok((b.freeze()?, report))
}
