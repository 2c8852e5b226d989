//! Engine-neutral execution: what every engine shares, so that no engine imports another and the
//! front ends (session, API, CLI, transformations) import no engine.
//!
//! - [`options`]: how a query runs ([`MatchOptions`]) and the stage timings engines report;
//! - [`candidates`]: candidate sets from labels, degrees and unary predicates (every engine's filter);
//! - [`plan`]: the matching order (a [`Plan`] of steps) and its cost-based construction;
//! - [`eval`]: values ([`Val`]) and expression evaluation; [`functions`]: the scalar, string and
//!   list functions, indexing and slicing; [`temporal`]: dates, times, datetimes and durations;
//!   [`column_filter`] and [`id_tuple`];
//! - [`exists`]: edge existence and `EXISTS` sub-patterns on the data graph;
//! - [`explain`]: a plan as text;
//! - [`control`]: the match [`Sink`] contract and the shared stop conditions ([`Control`]);
//! - [`results`]: the result stages (projection, grouping, DISTINCT, ORDER BY, SKIP/LIMIT);
//! - [`output`]: what a query gives back ([`QueryOutput`], [`StreamSummary`]);
//! - [`drive`]: the one end of a query every engine's search goes through ([`drive::drive`]).

pub mod candidates;
pub mod column_filter;
pub mod control;
pub mod drive;
pub mod eval;
pub mod exists;
pub mod explain;
pub mod functions;
pub mod id_tuple;
pub mod options;
pub mod output;
pub mod plan;
pub mod results;
pub mod temporal;

pub use crate::pattern::Semantics;
pub use control::{Control, Sink};
pub use drive::{drive, Drive, Search};
pub use eval::Val;
pub use options::{MatchOptions, Timings};
pub use output::{
    hand_over, is_single_aggregate, is_streamable, QueryOutput, RowConsumer, StreamSummary,
};
pub use plan::Plan;
