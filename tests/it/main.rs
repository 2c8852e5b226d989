//! The integration tests, one crate (one link) with a module per area: the command line through its
//! binary, the library through its public API, differential tests against brute force and the
//! device, and the source's layering. Shared helpers are in `common/`.

mod common;

mod api_stream;
mod cli;
mod cli_columnar;
mod cli_outcomes;
mod cli_output;
mod cli_reports;
#[cfg(feature = "cluster")]
mod cluster;
mod cypher_clauses;
mod cypher_lists;
mod cypher_values;
mod deadline;
mod device_attributes;
mod device_factorised;
mod device_predicates;
mod device_topology;
mod example_queries;
mod export_atomic;
mod factorised;
mod generate_graph;
mod generate_imdb;
mod generate_ttc14;
mod gpsense;
mod gpu_access;
mod hprd;
mod imdb_lists;
mod imdb_tsv;
mod layering;
mod live_query;
mod matcher_bruteforce;
mod mde_cli;
mod mde_import;
mod memory_bounds;
mod model_builder;
mod neo4j_import;
mod params;
mod prepare;
mod probe_memo;
mod queries;
mod query_warnings;
mod safe_write;
mod semantics;
mod shell;
mod similarity_among;
mod similarity_astar;
mod similarity_cli;
mod snapshot;
mod snapshot_truncate;
mod space_core;
mod stages;
mod subgraph_bench;
mod trainbenchmark;
mod transform;
mod transform_cli;
mod transform_kill;
mod transform_trainbenchmark;
mod transform_ttc14;
mod trust;
mod trust_cli;
mod trust_device;
