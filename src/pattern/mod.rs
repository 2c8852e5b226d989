//! The pattern query language, as a pipeline of plain values you can print:
//! text → [`parse_query`] → [`ast::Query`] → [`binder`] (names checked against the model's schema)
//! → [`ir::BoundQuery`], which the execution side ([`crate::exec`]: plans, expression
//! evaluation; [`crate::engines`]) plans and runs, and [`crate::session::Session`] drives.
//!
//! Queries are a subset of openCypher (see `docs/query-language.md`); every failure is a
//! [`QueryError`] that renders with the offending source line. Rule files (statements with
//! updating clauses, for [`crate::transform`]) parse with [`parser::parse_rules`] into
//! [`ast::Statement`]s.

pub mod ast;
pub mod bench_query;
pub mod binder;
pub mod directives;
pub mod error;
pub mod ir;
pub mod lexer;
pub mod literal_set;
pub mod params;
pub mod parser;
pub mod semantics;

pub use binder::{compile, Params};
pub use error::{QueryError, QueryErrorKind};
pub use params::ParamValue;
pub use parser::parse_query;
pub use semantics::Semantics;
