//! The pattern query language: lexer, parser, AST, semantic checks and planner.
//!
//! Queries are a subset of openCypher (see `pattern-language.md`). [`parse_query`] turns query text
//! into an [`ast::Query`]; every failure is a [`QueryError`] that can be rendered with the offending
//! source line.

pub mod ast;
pub mod error;
pub mod lexer;
pub mod parser;

pub use error::{QueryError, QueryErrorKind};
pub use parser::parse_query;
