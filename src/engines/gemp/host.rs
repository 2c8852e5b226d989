//! The host backend: runs the enumerator over pivot candidates on all cores (rayon). Chunks of pivot
//! candidates are processed in parallel, each into its own sink; sinks come back in pivot order, so
//! output without `ORDER BY` is deterministic.

use rayon::prelude::*;

use super::enumerate::{Enumerator, State};
use crate::exec::Sink;

use crate::exec::control::CHUNK;

/// Runs `e` over `pivots` in parallel chunks; returns the sinks in pivot order.
pub fn run_parallel<S, F>(
    e: &Enumerator<'_>,
    pivots: &[u32],
    nodes: usize,
    rels: usize,
    make_sink: F,
) -> Vec<S>
where
    S: Sink + Send,
    F: Fn() -> S + Sync + Send,
{
    if pivots.is_empty() {
        return Vec::new();
    }
    pivots
        .par_chunks(CHUNK)
        .map_init(
            || State::new(nodes, rels),
            |state, chunk| {
                let mut sink = make_sink();
                e.run(chunk, state, &mut sink);
                sink
            },
        )
        .collect()
}
