//! Similarity of semantic graphs (NEST workflows and other typed graphs with semantic
//! descriptions): the similarity model (local-global principle), the A*-based search of Bergmann
//! & Gil with the improvements of Zeyen & Bergmann, retrieval over a case base, the recipe
//! case-base generator, and AMonG, the A* search on OpenCL (Hoffmann et al.).

#[cfg(feature = "opencl")]
pub mod among;
pub mod astar;
pub mod exhaustive;
pub mod graph;
pub mod load;
pub mod measures;
pub mod problem;
pub mod recipes;
pub mod report;
pub mod retrieval;
pub mod sim_model;
pub mod taxonomy;

pub use astar::{
    search, variant_name, Algorithm, Improvements, Mapping, Outcome, SearchOptions, SearchResult,
    Stats, StopReason,
};
pub use graph::{SemanticEdge, SemanticGraph, SemanticNode};
pub use problem::Problem;
pub use sim_model::SimilarityModel;
pub use taxonomy::Taxonomy;

/// Prepares `query` against `case` and runs the A* search.
pub fn similarity(
    query: &SemanticGraph,
    case: &SemanticGraph,
    model: &SimilarityModel,
    options: &SearchOptions,
) -> crate::Result<Outcome> {
    let problem = Problem::new(query, case, model)?;
    search(&problem, options)
}
