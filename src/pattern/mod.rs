//! The pattern query language, as a pipeline of plain values you can print:
//! text → [`parse_query`] → [`ast::Query`] → [`binder`] (names checked against the model's schema)
//! → [`ir::BoundQuery`] → [`planner`] (pivot, order, predicate placement) → [`planner::Plan`],
//! which the matchers execute. [`explain`] prints the bound query and its plan.
//!
//! Queries are a subset of openCypher (see `pattern-language.md`); every failure is a
//! [`QueryError`] that renders with the offending source line.

pub mod ast;
pub mod bench_query;
pub mod binder;
pub mod error;
pub mod eval;
pub mod explain;
pub mod ir;
pub mod lexer;
pub mod parser;
pub mod planner;

pub use binder::{compile, Params};
pub use error::{QueryError, QueryErrorKind};
pub use parser::parse_query;
