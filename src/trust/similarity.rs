//! The similarity table `S`: one fixed-point [`levenshtein::similarity`] per (template node, data
//! node) pair, row-major by template node (`S[i · |V_D| + j]`). Computed in parallel with rayon;
//! template values of up to 64 characters use Myers' bit-parallel distance ([`Pattern`]).

use rayon::prelude::*;

use super::graph::TrustGraph;
use super::levenshtein::{self, Pattern};

/// Pairs handled per rayon task.
const CHUNK: usize = 2048;

/// The similarity table of `template` against `data` (`|V_T| · |V_D|` entries).
pub fn similarity_table(template: &TrustGraph, data: &TrustGraph) -> Vec<u32> {
    let d = data.node_count();
    let mut table = vec![0u32; template.node_count() * d];
    if d == 0 {
        return table;
    }
    let patterns: Vec<Option<Pattern>> = (0..template.node_count() as u32)
        .map(|i| Pattern::new(template.value_chars(i)))
        .collect();
    table
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each_init(Vec::new, |row, (chunk, out)| {
            let first = chunk * CHUNK;
            for (k, slot) in out.iter_mut().enumerate() {
                let pair = first + k;
                let (i, j) = ((pair / d) as u32, (pair % d) as u32);
                *slot = match &patterns[i as usize] {
                    Some(p) => p.similarity(data.value_chars(j)),
                    None => {
                        levenshtein::similarity(template.value_chars(i), data.value_chars(j), row)
                    }
                };
            }
        });
    table
}
