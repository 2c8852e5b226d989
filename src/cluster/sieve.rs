//! Per-query label sieves: for each plan vertex with labels, one bit per node of the whole model
//! saying whether the node carries them, built by every worker for the nodes it owns and then
//! gathered by all (an all-to-all of bit words, `⌈nodes / 64⌉` words per vertex and worker).
//!
//! With its sieve a worker tests a candidate's labels where the candidate was proposed, before
//! sending it to its owner: candidates that fail never travel, and a last vertex whose only checks
//! are labels and id comparisons is counted where its list is read ([`super::dataflow`]). A node
//! whose bit is set still passes every check at its owner as before; the sieve only drops nodes
//! that would have failed there, so it cannot change a result.

use std::sync::atomic::AtomicBool;

use timely::worker::Worker;

use super::dataflow::exchange_all;
use super::local::Local;
use super::plan::DistPlan;
use crate::error::Result;

/// Bit words sent per message of the all-to-all.
const WORDS_PER_MESSAGE: usize = 1 << 14;

/// Messages per destination in one round of the all-to-all.
const MESSAGES_PER_ROUND: usize = 16;

/// A run of a sieve's words on its way to another worker: (vertex position, first word, words).
type Words = (u32, u32, Vec<u64>);

/// One bit per global node: set when the node passes a vertex's labels.
#[derive(Debug, Clone)]
pub struct Sieve {
    words: Vec<u64>,
}

impl Sieve {
    fn empty(nodes: u64) -> Sieve {
        Sieve {
            words: vec![0; (nodes as usize).div_ceil(64)],
        }
    }

    fn set(&mut self, node: u32) {
        self.words[node as usize / 64] |= 1u64 << (node % 64);
    }

    /// True when global node `node` passes the vertex's labels (false beyond the model).
    pub fn holds(&self, node: u32) -> bool {
        self.words
            .get(node as usize / 64)
            .is_some_and(|w| w & (1u64 << (node % 64)) != 0)
    }
}

/// The sieves of `plan`'s vertices by position (`None`: the vertex at position `scanned`, whose
/// nodes are scanned where they live, and vertices without labels). Every worker calls this at
/// the same point (it exchanges with all of them).
pub fn build_sieves(
    worker: &mut Worker,
    abort: &AtomicBool,
    local: &Local,
    plan: &DistPlan,
    scanned: usize,
) -> Result<Vec<Option<Sieve>>> {
    let me = worker.index();
    let peers = worker.peers();
    let mut sieves: Vec<Option<Sieve>> = Vec::with_capacity(plan.order.len());
    for (i, vertex) in plan.order.iter().enumerate() {
        if i == scanned || vertex.labels.is_empty() {
            sieves.push(None);
            continue;
        }
        let mut sieve = Sieve::empty(local.global_nodes);
        for part in local.parts_of(me) {
            let model = part.nodes();
            let Some((first, rest)) = vertex.labels.split_first() else {
                continue;
            };
            for &l in first {
                for &v in model.nodes_with_label(l) {
                    let passes = rest
                        .iter()
                        .all(|any| any.iter().any(|&l| model.has_label(v, l)));
                    if let (true, Some(global)) = (passes, part.global(v)) {
                        sieve.set(global);
                    }
                }
            }
        }
        sieves.push(Some(sieve));
    }
    // Every worker's words to every other worker, in messages of at most WORDS_PER_MESSAGE (a
    // part's nodes are spread over the whole id range, so its words are sent whole), and in
    // rounds of MESSAGES_PER_ROUND messages per destination, so that what is in flight stays
    // bounded (2 MB per destination) however large the graph. Every worker runs the same rounds
    // (they depend only on the plan and the node count); a round's words are OR-ed in after it
    // is sent, and later rounds send other words.
    let messages: Vec<(usize, usize)> = sieves
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().map(|s| (i, s.words.len())))
        .flat_map(|(i, len)| (0..len.div_ceil(WORDS_PER_MESSAGE)).map(move |c| (i, c)))
        .collect();
    for round in messages.chunks(MESSAGES_PER_ROUND) {
        let mut outgoing: Vec<(u64, Words)> = Vec::new();
        for &(i, c) in round {
            let Some(sieve) = &sieves[i] else { continue };
            let start = c * WORDS_PER_MESSAGE;
            let chunk = &sieve.words[start..(start + WORDS_PER_MESSAGE).min(sieve.words.len())];
            if chunk.iter().all(|&w| w == 0) {
                continue;
            }
            for to in (0..peers).filter(|&w| w != me) {
                outgoing.push((to as u64, (i as u32, start as u32, chunk.to_vec())));
            }
        }
        for (i, offset, words) in exchange_all(worker, abort, outgoing)? {
            if let Some(Some(sieve)) = sieves.get_mut(i as usize) {
                let target = sieve.words.iter_mut().skip(offset as usize);
                for (mine, theirs) in target.zip(words) {
                    *mine |= theirs;
                }
            }
        }
    }
    Ok(sieves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sieve_holds_the_nodes_set_and_no_other() {
        let mut s = Sieve::empty(130);
        for v in [0, 63, 64, 129] {
            s.set(v);
        }
        let held: Vec<u32> = (0..200).filter(|&v| s.holds(v)).collect();
        assert_eq!(held, vec![0, 63, 64, 129]);
    }
}
