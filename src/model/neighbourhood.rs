//! The ball of nodes around some seeds: what incremental re-checking searches again.

use super::Model;

/// The nodes within `hops` edges (either direction) of `seeds`, sorted and distinct; `None` when
/// they are more than `limit`.
pub fn neighbourhood(model: &Model, seeds: &[u32], hops: usize, limit: usize) -> Option<Vec<u32>> {
    let n = model.node_count();
    let mut seen = vec![false; n];
    let mut all: Vec<u32> = Vec::new();
    for &s in seeds {
        if (s as usize) < n && !seen[s as usize] {
            seen[s as usize] = true;
            all.push(s);
        }
    }
    let mut frontier = all.clone();
    for _ in 0..hops {
        let mut next = Vec::new();
        for &v in &frontier {
            for &w in model
                .out()
                .neighbors_of(v)
                .iter()
                .chain(model.inc().neighbors_of(v))
            {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    next.push(w);
                }
            }
            if all.len() + next.len() > limit {
                return None;
            }
        }
        all.extend_from_slice(&next);
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }
    if all.len() > limit {
        return None;
    }
    all.sort_unstable();
    Some(all)
}
