//! A* similarity: every variant without pruning returns the exhaustive optimum (property test on
//! small random typed graphs), the worked example of Zeyen & Bergmann's Fig. 2, pruning and
//! retrieval.

use crate::common;

use common::semantic_graphs::{model, random_graph};
use common::Rng;
use gemp::similarity::astar::mapping_similarity;
use gemp::similarity::exhaustive::best_mapping;
use gemp::similarity::{
    search, Algorithm, Improvements, Outcome, Problem, SearchOptions, SemanticGraph,
    SimilarityModel,
};
use proptest::prelude::*;
use serde_json::json;

fn all_variants() -> Vec<(Algorithm, Improvements)> {
    let mut v = Vec::new();
    for algorithm in [Algorithm::AStarI, Algorithm::AStarII, Algorithm::AStarIII] {
        for bits in 0..8u8 {
            let imp = Improvements {
                reduction: bits & 1 != 0,
                orientation: bits & 2 != 0,
                selection: bits & 4 != 0,
            };
            if imp.selection && algorithm != Algorithm::AStarIII {
                continue;
            }
            v.push((algorithm, imp));
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_variant_finds_the_exhaustive_optimum(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let q = random_graph(&mut rng, "q", 5, 6, true);
        let c = random_graph(&mut rng, "c", 5, 6, true);
        let m = model();
        let problem = Problem::new(&q, &c, &m).unwrap();
        let (best, best_map) = best_mapping(&problem);
        prop_assert!((mapping_similarity(&problem, &best_map).unwrap() - best).abs() < 1e-12);
        for (algorithm, improvements) in all_variants() {
            let options = SearchOptions { algorithm, improvements, ..Default::default() };
            let r = search(&problem, &options).unwrap().done().unwrap();
            let name = gemp::similarity::variant_name(algorithm, improvements);
            prop_assert!((r.similarity - best).abs() < 1e-9, "{name}: {} vs optimum {best}", r.similarity);
            let again = mapping_similarity(&problem, &r.mapping);
            prop_assert!(again.is_some(), "{name}: illegal mapping {:?}", r.mapping);
            prop_assert!((again.unwrap() - r.similarity).abs() < 1e-9, "{name}: mapping worth {again:?}");
            prop_assert!(r.exact);
        }
        // Pruned searches return legal mappings no better than the optimum.
        for limit in [1, 3] {
            let options = SearchOptions { queue_limit: Some(limit), improvements: Improvements::ALL, ..Default::default() };
            let r = search(&problem, &options).unwrap().done().unwrap();
            prop_assert!(r.similarity <= best + 1e-9);
            prop_assert!((mapping_similarity(&problem, &r.mapping).unwrap() - r.similarity).abs() < 1e-9);
        }
    }
}

/// Fig. 2 of Zeyen & Bergmann rebuilt from the text: rectangles with symbols a, b, c, a diamond
/// n14 / n23 (the only one of its type), solid and dashed edges; null mappings n11, e11, e14.
fn fig2() -> (SemanticGraph, SemanticGraph) {
    let mut q = SemanticGraph::new("Gq");
    for (id, sym) in [("n11", "a"), ("n12", "b"), ("n13", "c")] {
        q.add_node(id, "rect", json!({"symbol": sym}));
    }
    q.add_node("n14", "diamond", json!({}));
    for (s, t, kind) in [
        (0, 1, "solid"),
        (1, 2, "solid"),
        (2, 3, "dashed"),
        (0, 3, "dashed"),
        (1, 3, "dashed"),
    ] {
        q.add_edge(s, t, kind, json!({})).unwrap();
    }
    let mut c = SemanticGraph::new("Gc");
    c.add_node("n21", "rect", json!({"symbol": "b"}));
    c.add_node("n22", "rect", json!({"symbol": "c"}));
    c.add_node("n23", "diamond", json!({}));
    for (s, t, kind) in [(0, 1, "solid"), (1, 2, "dashed"), (0, 2, "dashed")] {
        c.add_edge(s, t, kind, json!({})).unwrap();
    }
    (q, c)
}

#[test]
fn fig2_example_is_six_ninths_and_one_the_other_way() {
    let (q, c) = fig2();
    let m = SimilarityModel::equality();
    for (algorithm, improvements) in all_variants() {
        let options = SearchOptions {
            algorithm,
            improvements,
            ..Default::default()
        };
        let r = gemp::similarity::similarity(&q, &c, &m, &options)
            .unwrap()
            .done()
            .unwrap();
        assert!(
            (r.similarity - 6.0 / 9.0).abs() < 1e-12,
            "{algorithm} {improvements}: {}",
            r.similarity
        );
        // The paper's null mappings: n11, e11 and e14.
        assert_eq!(r.mapping.nodes, vec![None, Some(0), Some(1), Some(2)]);
        assert_eq!(r.mapping.edges, vec![None, Some(0), Some(1), None, Some(2)]);
        let back = gemp::similarity::similarity(&c, &q, &m, &options)
            .unwrap()
            .done()
            .unwrap();
        assert!((back.similarity - 1.0).abs() < 1e-12);
    }
    // M maps case-oriented when the query is larger: here sim(Gq, Gc) with |Gq| = 9 > |Gc| = 6.
    let options = SearchOptions {
        improvements: Improvements::ALL,
        ..Default::default()
    };
    let r = gemp::similarity::similarity(&q, &c, &m, &options).unwrap();
    assert!(r.stats().case_oriented);
}

#[test]
fn stops_on_time_and_bound_and_rejects_bad_options() {
    let mut rng = Rng(7);
    let q = random_graph(&mut rng, "q", 4, 5, true);
    let c = random_graph(&mut rng, "c", 4, 5, true);
    let problem = Problem::new(&q, &c, &model()).unwrap();
    let bound = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(2.0f64.to_bits()));
    let options = SearchOptions {
        prune_below: Some(bound),
        ..Default::default()
    };
    assert!(matches!(
        search(&problem, &options).unwrap(),
        Outcome::Stopped { .. }
    ));
    let options = SearchOptions {
        algorithm: Algorithm::AStarII,
        improvements: "s".parse().unwrap(),
        ..Default::default()
    };
    assert!(search(&problem, &options).is_err());
    assert!("rx".parse::<Improvements>().is_err());
    assert_eq!("RMS".parse::<Improvements>().unwrap(), Improvements::ALL);
}

#[test]
fn max_queue_gives_up_instead_of_pruning() {
    let mut rng = Rng(9);
    let q = random_graph(&mut rng, "q", 6, 8, true);
    let c = random_graph(&mut rng, "c", 6, 8, true);
    let problem = Problem::new(&q, &c, &model()).unwrap();
    let exact = search(&problem, &SearchOptions::default()).unwrap();
    let Outcome::Done(exact) = exact else {
        panic!("unbounded search finished")
    };
    assert!(exact.stats.max_queue > 2, "the case needs a queue");
    let tight = SearchOptions {
        max_queue: Some(exact.stats.max_queue - 1),
        ..Default::default()
    };
    match search(&problem, &tight).unwrap() {
        Outcome::Stopped {
            reason,
            upper_bound,
            stats,
        } => {
            assert_eq!(reason, gemp::similarity::StopReason::QueueCapacity);
            assert!(upper_bound + 1e-12 >= exact.similarity, "an upper bound");
            assert_eq!(stats.pruned, 0);
        }
        Outcome::Done(_) => panic!("the queue bound was exceeded, so the search gives up"),
    }
    let roomy = SearchOptions {
        max_queue: Some(exact.stats.max_queue),
        ..Default::default()
    };
    let Outcome::Done(r) = search(&problem, &roomy).unwrap() else {
        panic!("the bound is never exceeded")
    };
    assert_eq!(r.similarity, exact.similarity);
    assert!(r.exact);
}

#[test]
fn retrieval_top_k_is_the_same_with_and_without_early_stop() {
    let mut rng = Rng(11);
    let m = model();
    let query = random_graph(&mut rng, "q", 5, 6, true);
    let mut cases: Vec<SemanticGraph> = (0..12)
        .map(|i| random_graph(&mut rng, &format!("c{i}"), 5, 6, true))
        .collect();
    cases.push(query.clone());
    let options = SearchOptions::default();
    let full =
        gemp::similarity::retrieval::retrieve(&query, &cases, &m, 3, &options, false).unwrap();
    let early =
        gemp::similarity::retrieval::retrieve(&query, &cases, &m, 3, &options, true).unwrap();
    assert!(full.stopped.is_empty());
    assert_eq!(full.ranked.len(), 3);
    // The query itself is a case: similarity 1, ranked first.
    assert_eq!(full.ranked[0].case, 12);
    assert!((full.ranked[0].similarity().unwrap() - 1.0).abs() < 1e-12);
    let sims = |r: &gemp::similarity::retrieval::Retrieval| -> Vec<f64> {
        r.ranked.iter().map(|o| o.similarity().unwrap()).collect()
    };
    assert_eq!(sims(&full), sims(&early));
    // Every case ranked below the top 3 or stopped early is no better than the third.
    let third = sims(&full)[2];
    for o in full.others.iter() {
        assert!(o.similarity().unwrap() <= third + 1e-12);
    }
    for o in &early.stopped {
        if let Outcome::Stopped { upper_bound, .. } = o.outcome {
            assert!(upper_bound <= third + 1e-12);
        }
    }
    // The exhaustive optimum of each ranked case.
    for o in &full.ranked {
        let p = Problem::new(&query, &cases[o.case], &m).unwrap();
        assert!((best_mapping(&p).0 - o.similarity().unwrap()).abs() < 1e-9);
    }
}
