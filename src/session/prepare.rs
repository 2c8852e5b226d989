//! Preparing a query — the one way every front end turns text into something a session runs
//! (as Kùzu's `ClientContext::prepare`): source → directives (`// gemp: semantics=…`) → parse →
//! bind against the session's model → the semantics in force → a [`PreparedQuery`].
//!
//! A prepared query keeps its parsed form: [`PreparedQuery::bind`] binds it again with new
//! parameters without parsing, so it can run many times. The command line, [`crate::api::Graph`],
//! transactions and live queries all prepare through [`Session::prepare`](super::Session::prepare)
//! or [`Session::prepare_file`](super::Session::prepare_file), so a query file runs under the same
//! semantics whichever front end reads it.

use std::path::Path;

use crate::error::{Error, Result};
use crate::exec::{MatchOptions, Semantics};
use crate::io::{subgraph_bench, LoadOptions, LoadReport};
use crate::model::Model;
use crate::pattern::ast;
use crate::pattern::binder::{self, Params, QueryWarning};
use crate::pattern::ir::BoundQuery;
use crate::pattern::QueryError;
use crate::util::deadline::Deadline;

/// What a query is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueryLanguage {
    /// By the file name: `.graph` is a subgraph-matching query graph, anything else Cypher.
    #[default]
    Auto,
    /// The openCypher subset (see `docs/query-language.md`).
    Cypher,
    /// A `t N M` / `v id label degree` / `e u v` query graph of the subgraph-matching benchmarks.
    SubgraphBench,
}

/// How to prepare a query.
#[derive(Debug, Clone, Default)]
pub struct PrepareOptions {
    /// The parameters bound now (a prepared query can be bound again with others).
    pub params: Params,
    /// Semantics asked for by the caller (`--semantics`, the API): overrides a `// gemp:
    /// semantics=…` line, with a warning when they differ.
    pub semantics: Option<Semantics>,
    /// What the query is written in.
    pub language: QueryLanguage,
    /// Names the model does not have are not errors: property keys read as null, labels and
    /// relationship types match nothing, as in Cypher (live queries and rule files: the property
    /// may appear later; [`crate::pattern::binder::bind_lenient`]).
    pub lenient: bool,
}

/// Where the semantics a prepared query runs under came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SemanticsFrom {
    /// The caller's option (`--semantics`, the API).
    Caller,
    /// The query's `// gemp: semantics=…` line (1-based).
    Directive(usize),
    /// Neither: the language's default — Cypher's relationship-isomorphism for Cypher text,
    /// node-isomorphism for a `.graph` query graph ([`default_semantics`]).
    Default,
}

/// The parsed form a prepared query binds again for new parameters.
#[derive(Debug, Clone)]
enum Parsed {
    Cypher(Box<ast::Query>),
    /// A query graph binds to the same query whatever the parameters.
    Graph,
}

/// A query parsed, bound and given its semantics: what [`Session::run`](super::Session::run) and
/// the other run methods take.
#[derive(Debug, Clone)]
pub struct PreparedQuery {
    source: String,
    name: Option<String>,
    parsed: Parsed,
    bound: BoundQuery,
    semantics: Semantics,
    semantics_from: SemanticsFrom,
    lenient: bool,
}

impl PreparedQuery {
    /// The bound query (pattern, predicates, projection).
    pub fn bound(&self) -> &BoundQuery {
        &self.bound
    }

    /// The bound query, owned.
    pub fn into_bound(self) -> BoundQuery {
        self.bound
    }

    /// The query's source text (empty for a query graph read from a file).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The file it was read from, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The semantics it runs under.
    pub fn semantics(&self) -> Semantics {
        self.semantics
    }

    /// Where that semantics came from.
    pub fn semantics_from(&self) -> &SemanticsFrom {
        &self.semantics_from
    }

    /// Run options with this query's semantics.
    pub fn options(&self) -> MatchOptions {
        MatchOptions {
            semantics: self.semantics,
            ..Default::default()
        }
    }

    /// The same query bound with `params` against `model` (no parsing again).
    pub fn bind(&self, model: &Model, params: &Params) -> Result<PreparedQuery> {
        let bound = match &self.parsed {
            Parsed::Cypher(ast) => {
                binder::bind_parsed(ast, &self.source, model, params, self.lenient)
                    .map(|(q, _)| q)
                    .map_err(|e| e.into_error(&self.source, self.name.as_deref()))?
            }
            Parsed::Graph => self.bound.clone(),
        };
        Ok(PreparedQuery {
            bound,
            ..self.clone()
        })
    }
}

/// Prepares Cypher `source` (named `name` in messages) against `model`: what
/// [`Session::prepare`](super::Session::prepare) runs, for callers that have the model before a
/// session is open.
pub fn prepare(
    model: &Model,
    source: &str,
    name: Option<&str>,
    options: &PrepareOptions,
) -> Result<PreparedQuery> {
    let at = |e: Error| match name {
        Some(n) => Error::Query(
            crate::error::QueryMessage::classed(format!("{n}: {e}"), e.cypher_class())
                .at(e.position().cloned()),
        ),
        None => e,
    };
    let declared = crate::pattern::directives::parse(source)
        .map_err(at)?
        .semantics;
    // Past the thread's deadline ([`Deadline::scope`]) a failure is the timeout.
    let failed = |stage: &str, e: QueryError| match Deadline::current() {
        Some(d) if d.passed() => Error::Timeout {
            stage: stage.to_owned(),
            limit: d.limit(),
        },
        _ => e.into_error(source, name),
    };
    let ast = crate::pattern::parse_query(source).map_err(|e| failed("parsing the query", e))?;
    let (bound, _) = binder::bind_parsed(&ast, source, model, &options.params, options.lenient)
        .map_err(|e| failed("binding the query", e))?;
    Ok(cypher_query(source, name, ast, bound, declared, options))
}

/// A prepared Cypher query from its parts, with the semantics in force decided.
fn cypher_query(
    source: &str,
    name: Option<&str>,
    ast: ast::Query,
    bound: BoundQuery,
    declared: Option<(Semantics, usize)>,
    options: &PrepareOptions,
) -> PreparedQuery {
    let (semantics, semantics_from) = semantics_for(
        name,
        options.semantics,
        declared,
        default_semantics(QueryLanguage::Cypher),
    );
    PreparedQuery {
        source: source.to_owned(),
        name: name.map(str::to_owned),
        parsed: Parsed::Cypher(Box::new(ast)),
        bound,
        semantics,
        semantics_from,
        lenient: options.lenient,
    }
}

/// [`prepare`] keeping a syntax or binding error's structure (kind, message, position, hint) and
/// returning the binder's warnings, for embeddings that show positions themselves (the Python
/// package). A bad `// gemp:` line is a semantic [`QueryError`] without a position.
pub fn prepare_detailed(
    model: &Model,
    source: &str,
    options: &PrepareOptions,
) -> std::result::Result<(PreparedQuery, Vec<QueryWarning>), QueryError> {
    let declared = crate::pattern::directives::parse(source)
        .map_err(|e| QueryError::semantic(e.to_string(), None))?
        .semantics;
    let ast = crate::pattern::parse_query(source)?;
    let (bound, warnings) =
        binder::bind_parsed(&ast, source, model, &options.params, options.lenient)?;
    let prepared = cypher_query(source, None, ast, bound, declared, options);
    Ok((prepared, warnings))
}

/// Prepares the query file at `path` against `model`: Cypher, or a `.graph` query graph (see
/// [`prepare`]).
pub fn prepare_file(model: &Model, path: &Path, options: &PrepareOptions) -> Result<PreparedQuery> {
    let graph = match options.language {
        QueryLanguage::SubgraphBench => true,
        QueryLanguage::Cypher => false,
        QueryLanguage::Auto => path.extension().is_some_and(|e| e == "graph"),
    };
    let name = path.display().to_string();
    if graph {
        let g = subgraph_bench::parse(
            path,
            &LoadOptions {
                strict: true,
                ..Default::default()
            },
            &mut LoadReport::default(),
        )?;
        let (semantics, semantics_from) = semantics_for(
            Some(&name),
            options.semantics,
            None,
            default_semantics(QueryLanguage::SubgraphBench),
        );
        return Ok(PreparedQuery {
            source: String::new(),
            name: Some(name),
            parsed: Parsed::Graph,
            bound: crate::pattern::bench_query::bind(&g, model),
            semantics,
            semantics_from,
            lenient: false,
        });
    }
    let source = crate::io::input::read_utf8(path)?;
    prepare(model, &source, Some(&name), options)
}

/// The semantics a query in `language` runs under when neither the caller nor the query says:
/// Cypher's relationship-isomorphism for Cypher text (what Neo4j, Memgraph and Kùzu answer), and
/// node-isomorphism (subgraph monomorphism, what the subgraph-matching literature counts) for a
/// `.graph` query graph.
pub fn default_semantics(language: QueryLanguage) -> Semantics {
    match language {
        QueryLanguage::SubgraphBench => Semantics::Isomorphism,
        QueryLanguage::Cypher | QueryLanguage::Auto => Semantics::Cypher,
    }
}

/// The semantics a query runs under: the caller's when given (a warning when the query declares
/// another), else its `// gemp: semantics=…` line, else `default` (the language's: see
/// [`default_semantics`]). Logged at `-v`.
fn semantics_for(
    name: Option<&str>,
    asked: Option<Semantics>,
    declared: Option<(Semantics, usize)>,
    default: Semantics,
) -> (Semantics, SemanticsFrom) {
    let shown = name.unwrap_or("the query");
    let (semantics, from) = match (asked, declared) {
        (Some(f), Some((d, line))) if f != d => {
            log::warn!("{shown}:{line} declares semantics={d}; --semantics {f} overrides it");
            (f, SemanticsFrom::Caller)
        }
        (Some(f), _) => (f, SemanticsFrom::Caller),
        (None, Some((d, line))) => (d, SemanticsFrom::Directive(line)),
        (None, None) => (default, SemanticsFrom::Default),
    };
    let said = match &from {
        SemanticsFrom::Caller => "--semantics".to_owned(),
        SemanticsFrom::Directive(line) => format!("line {line} of the query file"),
        SemanticsFrom::Default => "the default".to_owned(),
    };
    log::info!("{shown}: semantics {} (from {said})", semantics.describe());
    (semantics, from)
}
