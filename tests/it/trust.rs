//! TruST on the host: the unbounded search equals an exhaustive search over injective mappings,
//! one-hop scores equal a brute-force matching, and planted templates are recovered at the default
//! parameters on the paper's sizes.

use gemp::trust::generate::{generate, TrustGenConfig, PAPER_DATA_SIZES, PAPER_TEMPLATE_SIZES};
use gemp::trust::levenshtein::SCALE;
use gemp::trust::one_hop::{one_hop_table, LazyOneHop, OneHopSource, OneHopTable};
use gemp::trust::search::{search, SearchParams};
use gemp::trust::similarity::similarity_table;
use gemp::trust::{run_host, TrustGraph, TrustParams, NONE};
use proptest::prelude::*;

/// Every injective mapping of all template nodes that maps template edges to data edges, with its
/// score (sum of one-hop scores).
fn exhaustive(t: &TrustGraph, d: &TrustGraph, oh: &[u32]) -> Vec<(Vec<u32>, u64)> {
    fn go(
        i: usize,
        t: &TrustGraph,
        d: &TrustGraph,
        oh: &[u32],
        f: &mut Vec<u32>,
        out: &mut Vec<(Vec<u32>, u64)>,
    ) {
        let n = t.node_count();
        if i == n {
            let score = (0..n)
                .map(|k| u64::from(oh[k * d.node_count() + f[k] as usize]))
                .sum();
            out.push((f.clone(), score));
            return;
        }
        for x in 0..d.node_count() as u32 {
            if f[..i].contains(&x) {
                continue;
            }
            let ok = t
                .neighbors(i as u32)
                .iter()
                .all(|&w| (w as usize) >= i || d.adjacent(f[w as usize], x));
            if ok {
                f[i] = x;
                go(i + 1, t, d, oh, f, out);
                f[i] = NONE;
            }
        }
    }
    let mut out = Vec::new();
    go(0, t, d, oh, &mut vec![NONE; t.node_count()], &mut out);
    out
}

/// Max-weight matching by trying every partial injection (tiny inputs only).
fn brute_matching(rows: &[u32], cols: &[u32], w: &dyn Fn(u32, u32) -> u32) -> u64 {
    fn go(
        r: usize,
        rows: &[u32],
        cols: &[u32],
        used: &mut Vec<bool>,
        w: &dyn Fn(u32, u32) -> u32,
    ) -> u64 {
        if r == rows.len() {
            return 0;
        }
        let mut best = go(r + 1, rows, cols, used, w);
        for c in 0..cols.len() {
            if !used[c] {
                used[c] = true;
                best = best.max(u64::from(w(rows[r], cols[c])) + go(r + 1, rows, cols, used, w));
                used[c] = false;
            }
        }
        best
    }
    go(0, rows, cols, &mut vec![false; cols.len()], w)
}

fn random_graph(seed: &mut u64, n: usize, edge_percent: u64, alphabet: &[&str]) -> TrustGraph {
    let mut next = || {
        *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let values: Vec<&str> = (0..n)
        .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
        .collect();
    let mut edges = Vec::new();
    for a in 0..n as u32 {
        for b in a + 1..n as u32 {
            if next() % 100 < edge_percent {
                edges.push((a, b));
            }
        }
    }
    TrustGraph::from_parts(&values, &edges).unwrap()
}

const WORDS: &[&str] = &["cat", "cut", "cart", "dog", "dig", "", "catalog", "a"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With unbounded k0 and β the last level holds exactly the edge-preserving injective
    /// mappings, each once (dedup), sorted by score; the best equals the exhaustive optimum.
    #[test]
    fn unbounded_search_is_exhaustive(seed in any::<u64>(), tn in 1usize..5, dn in 1usize..8, tp in 30u64..100, dp in 20u64..90) {
        let mut s = seed;
        let t = random_graph(&mut s, tn, tp, WORDS);
        let d = random_graph(&mut s, dn, dp, WORDS);
        let sim = similarity_table(&t, &d);
        let oh = one_hop_table(&t, &d, &sim);
        let params = SearchParams { k0: usize::MAX, beam: usize::MAX, depth: None };
        let (level, stats) = search(&t, &d, &mut OneHopTable { table: &oh, data_nodes: dn }, &params).unwrap();
        // The lazy source (exact scores only where needed) finds the same level.
        let sim2 = similarity_table(&t, &d);
        let (lazy_level, lazy_stats) = search(&t, &d, &mut LazyOneHop::new(&t, &d, &sim2), &params).unwrap();
        prop_assert_eq!(&lazy_level, &level);
        prop_assert_eq!(lazy_stats, stats);
        let mut all = exhaustive(&t, &d, &oh);
        if all.is_empty() {
            // No full matching: the result is a partial level (some template node unmatched).
            prop_assert!(level.is_empty() || level.state(0, tn).contains(&NONE));
        } else {
            prop_assert_eq!(level.len(), all.len());
            let mut found: Vec<(Vec<u32>, u64)> = (0..level.len()).map(|k| (level.state(k, tn).to_vec(), level.scores[k])).collect();
            prop_assert!(level.scores.windows(2).all(|w| w[0] >= w[1]));
            prop_assert_eq!(level.scores[0], all.iter().map(|a| a.1).max().unwrap());
            found.sort();
            all.sort();
            prop_assert_eq!(found, all);
        }
    }

    /// One-hop scores equal ½S + ½W with W from a brute-force matching, normalised by the template
    /// degree.
    #[test]
    fn one_hop_equals_brute_force(seed in any::<u64>(), tn in 1usize..6, dn in 1usize..8) {
        let mut s = seed;
        let t = random_graph(&mut s, tn, 60, WORDS);
        let d = random_graph(&mut s, dn, 50, WORDS);
        let sim = similarity_table(&t, &d);
        let oh = one_hop_table(&t, &d, &sim);
        for i in 0..tn as u32 {
            for j in 0..dn as u32 {
                let w = |a: u32, b: u32| sim[a as usize * dn + b as usize];
                let tnb = t.neighbors(i);
                let wij = if tnb.is_empty() { u64::from(SCALE) } else {
                    brute_matching(tnb, d.neighbors(j), &w) / tnb.len() as u64
                };
                let expect = (u64::from(sim[i as usize * dn + j as usize]) + wij) / 2;
                prop_assert_eq!(u64::from(oh[i as usize * dn + j as usize]), expect);
            }
        }
    }
}

#[test]
fn truncated_search_keeps_the_best_states() {
    // A beam of 1 follows the single best pair: level 1 is the best pair overall.
    let mut s = 7;
    let t = random_graph(&mut s, 4, 70, WORDS);
    let d = random_graph(&mut s, 9, 50, WORDS);
    let sim = similarity_table(&t, &d);
    let oh = one_hop_table(&t, &d, &sim);
    let one = SearchParams {
        k0: 1,
        beam: 1,
        depth: Some(1),
    };
    let (level, stats) = search(
        &t,
        &d,
        &mut OneHopTable {
            table: &oh,
            data_nodes: 9,
        },
        &one,
    )
    .unwrap();
    assert_eq!(stats.len(), 1);
    let best = *oh.iter().max().unwrap();
    assert_eq!(level.scores, vec![u64::from(best)]);
    let first = oh.iter().position(|&v| v == best).unwrap();
    assert_eq!(level.state(0, 4)[first / 9], (first % 9) as u32);
}

/// Truncated searches (small k0 and β) with the lazy and the full one-hop source agree: the
/// bound-driven level-1 selection picks the same pairs as a full sort.
#[test]
fn lazy_one_hop_equals_full_table_when_truncated() {
    for seed in 0..6 {
        let inst = generate(&TrustGenConfig {
            data_nodes: 300,
            data_edges: 900,
            template_nodes: 5,
            template_edges: 6,
            seed,
            noise: 0.3,
            ..Default::default()
        })
        .unwrap();
        let (t, _) = TrustGraph::from_model(&inst.template, "value").unwrap();
        let (d, _) = TrustGraph::from_model(&inst.data, "value").unwrap();
        let sim = similarity_table(&t, &d);
        let oh = one_hop_table(&t, &d, &sim);
        for (k0, beam) in [(1, 1), (3, 5), (40, 8), (700, 50)] {
            let p = SearchParams {
                k0,
                beam,
                depth: None,
            };
            let full = search(
                &t,
                &d,
                &mut OneHopTable {
                    table: &oh,
                    data_nodes: d.node_count(),
                },
                &p,
            )
            .unwrap();
            let mut lazy_source = LazyOneHop::new(&t, &d, &sim);
            let lazy = search(&t, &d, &mut lazy_source, &p).unwrap();
            assert_eq!(lazy, full, "seed {seed}, k0 {k0}, beam {beam}");
            assert!(lazy_source.assignments() < oh.len());
        }
    }
}

#[test]
fn disconnected_template_is_matched_by_jumping() {
    // Two isolated template nodes "ab" and "cd"; the data graph has them far apart.
    let t = TrustGraph::from_parts(&["ab", "cd"], &[]).unwrap();
    let d = TrustGraph::from_parts(&["xx", "cd", "yy", "ab"], &[(0, 1), (2, 3)]).unwrap();
    let r = run_host(&t, &d, &TrustParams::default()).unwrap();
    assert_eq!(r.matchings[0].mapping(), vec![3, 1]);
    assert!((r.matchings[0].score() - 1.0).abs() < 1e-9);
}

#[test]
fn empty_data_graph_gives_no_matching() {
    let t = TrustGraph::from_parts(&["a", "b"], &[(0, 1)]).unwrap();
    let d = TrustGraph::from_parts::<&str>(&[], &[]).unwrap();
    let r = run_host(&t, &d, &TrustParams::default()).unwrap();
    assert!(r.matchings.is_empty());
}

#[test]
fn bad_parameters_are_errors() {
    let t = TrustGraph::from_parts::<&str>(&[], &[]).unwrap();
    let d = TrustGraph::from_parts(&["a"], &[]).unwrap();
    assert!(run_host(&t, &d, &TrustParams::default()).is_err());
    let mut p = TrustParams::default();
    p.search.beam = 0;
    assert!(run_host(&d, &d, &p).is_err());
}

/// The paper's 16 size combinations, each with a planted noisy template: the best matching at the
/// default parameters is the planted one.
#[test]
fn planted_templates_are_recovered_at_default_parameters() {
    for (k, &(dn, de)) in PAPER_DATA_SIZES.iter().enumerate() {
        for (l, &(tn, te)) in PAPER_TEMPLATE_SIZES.iter().enumerate() {
            let config = TrustGenConfig {
                data_nodes: dn,
                data_edges: de,
                template_nodes: tn,
                template_edges: te,
                plant: true,
                noise: 0.1,
                seed: 100 + (k * 4 + l) as u64,
                ..Default::default()
            };
            let inst = generate(&config).unwrap();
            let (t, _) = TrustGraph::from_model(&inst.template, "value").unwrap();
            let (d, _) = TrustGraph::from_model(&inst.data, "value").unwrap();
            let planted = inst.planted_mapping(&t, &d).unwrap();
            let r = run_host(&t, &d, &TrustParams::default()).unwrap();
            assert_eq!(
                r.matchings[0].mapping(),
                planted,
                "data {dn}/{de}, template {tn}/{te}"
            );
            let score = r.matchings[0].score();
            assert!(score > 0.5 && score <= 1.0, "score {score}");
        }
    }
}

/// A star template whose 90 leaves all prefer the same data leaf: the exact matching (Hungarian
/// path, far beyond the paper's 80-entry cap) gives W = (1 + 89 · ½) / 90.
pub fn big_stars() -> (TrustGraph, TrustGraph) {
    let mut tv = vec!["c".to_string()];
    tv.extend((0..90).map(|_| "ab".to_string()));
    let te: Vec<(u32, u32)> = (1..=90).map(|l| (0, l)).collect();
    let mut dv = vec!["c".to_string(), "ab".to_string()];
    dv.extend((0..119).map(|_| "ac".to_string()));
    let de: Vec<(u32, u32)> = (1..=120).map(|l| (0, l)).collect();
    (
        TrustGraph::from_parts(&tv, &te).unwrap(),
        TrustGraph::from_parts(&dv, &de).unwrap(),
    )
}

#[test]
fn high_degree_one_hop_is_exact() {
    let (t, d) = big_stars();
    let sim = similarity_table(&t, &d);
    let oh = one_hop_table(&t, &d, &sim);
    // W = ⌊(65536 + 89 · 32768) / 90⌋ = 33132; OH = ⌊(65536 + 33132) / 2⌋ = 49334.
    assert_eq!(oh[0], 49334);
    let mut lazy = LazyOneHop::new(&t, &d, &sim);
    assert_eq!(lazy.one_hop(0, 0), 49334);
    // Leaf "ab" to leaf "ab": S = 1 and the centres match, OH = 1 (pair 1 · 121 + 1).
    assert_eq!(lazy.best_pairs(1), vec![(122, SCALE)]);
}
